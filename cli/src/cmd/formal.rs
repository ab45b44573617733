//! `rtl-gen formal [DIR] [--module M]… [--depth N] [--engine smtbmc-z3|…] [--work DIR]
//! [--limit SECONDS] [-j N]`: prove the properties the generated modules carry. Exit status 1
//! when a property fails (its counterexample named), 0 otherwise; a module only bounded or
//! unknown is reported as such, never as proven.

use super::CmdResult;
use anyhow::Context;
use rtl_gen::tools::formal::{self, Engine, FormalRow, Options, Verdict};
use rtl_gen::tools::{default_jobs, parallel_map, TreeManifest};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// A generated tree (the folder holding manifest.json); default generated/.
    #[arg(default_value = "generated")]
    pub tree: PathBuf,
    /// Only these modules (repeatable); default every module that carries properties.
    #[arg(long = "module", value_name = "NAME")]
    pub modules: Vec<String>,
    /// k-induction depth of the SymbiYosys proofs (1..=100).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: u32,
    /// Proof engine of clocked modules: smtbmc-z3, smtbmc-yices or smtbmc-bitwuzla.
    #[arg(long, default_value = "smtbmc-z3", value_parser = parse_engine)]
    pub engine: Engine,
    /// The folder the runs own (one subfolder per module, overwritten); default
    /// target/formal/<design>.
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
    /// Wall-clock limit per module in seconds (1..=86400).
    #[arg(long, default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub limit: u64,
    /// Bounded model check only (no induction): a pass is reported as bounded to the depth.
    /// For properties that are not inductive (bounded liveness) and to find counterexamples fast.
    #[arg(long)]
    pub bmc: bool,
    /// Parallel proofs (default: available cores; 1..=256).
    #[arg(long, short, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
}

fn parse_engine(s: &str) -> Result<Engine, String> {
    Engine::parse(s).ok_or_else(|| format!("unknown engine `{s}`; allowed: {}", Engine::ALL.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")))
}

/// The result column of a row.
pub fn result_text(v: &Verdict) -> String {
    match v {
        Verdict::Proven => "proven".into(),
        Verdict::Bounded { depth, bmc: false } => format!("bounded to depth {depth} (induction did not close)"),
        Verdict::Bounded { depth, bmc: true } => format!("bounded to depth {depth} (BMC, no induction tried)"),
        Verdict::Failed { property, vcd, testbench } => {
            format!("FAILED{}: counterexample {} , testbench {}", property.as_ref().map(|p| format!(" ({p})")).unwrap_or_default(), vcd.display(), testbench.display())
        }
        Verdict::Unknown { reason } => format!("unknown: {reason}"),
    }
}

/// The table `rtl-gen formal` prints.
pub fn table(rows: &[FormalRow], depth: u32) -> String {
    let mut out = String::from("| module | properties | method | result | depth | time (s) |\n|---|---:|---|---|---:|---:|\n");
    for r in rows {
        // GF(2) evaluation has no depth; a module it shares with SymbiYosys (`gf2+smtbmc-…`) has.
        let d = if r.method.starts_with("gf2") && !r.method.contains("smtbmc") { "-".to_string() } else { depth.to_string() };
        out.push_str(&format!("| {} | {} | {} | {} | {} | {:.1} |\n", r.module, r.properties, r.method, result_text(&r.verdict), d, r.seconds));
    }
    out
}

pub fn run(a: Args) -> CmdResult {
    let tree = super::tree_dir(&a.tree)?;
    let manifest = TreeManifest::load(&tree)?;
    let with_props = formal::modules_with_properties(&tree, &manifest);
    let names: Vec<String> = if a.modules.is_empty() {
        with_props.clone()
    } else {
        for m in &a.modules {
            if !manifest.modules.iter().any(|x| &x.name == m) {
                anyhow::bail!("--module {m}: no such module in {}", tree.display());
            }
            if !with_props.contains(m) {
                anyhow::bail!("--module {m}: the module carries no properties; modules with properties: {}", with_props.join(", "));
            }
        }
        a.modules.clone()
    };
    formal::preflight(a.engine).context("rtl-gen formal needs Yosys, SymbiYosys and the solver")?;
    let work = a.work.unwrap_or_else(|| PathBuf::from(format!("target/formal/{}", manifest.design)));
    std::fs::create_dir_all(&work).with_context(|| format!("creating the work folder {}", work.display()))?;
    let opts = Options { depth: a.depth, engine: a.engine, work, limit: Duration::from_secs(a.limit), bmc: a.bmc };
    let jobs = a.jobs.map(usize::from).unwrap_or_else(default_jobs);
    let indexed: Vec<(usize, &String)> = names.iter().enumerate().collect();
    let mut results = parallel_map(&indexed, jobs, |&(i, name)| {
        let r = formal::prove_module(&tree, &manifest, name, &opts);
        if let Ok(row) = &r {
            eprintln!("{}: {} in {:.1} s", row.module, result_text(&row.verdict), row.seconds);
        }
        (i, r)
    });
    results.sort_by_key(|(i, _)| *i);
    let mut rows = Vec::new();
    for ((_, r), name) in results.into_iter().zip(&names) {
        rows.push(r.with_context(|| format!("proving module {name} of {}", tree.display()))?);
    }
    print!("{}", table(&rows, a.depth));
    let failed = rows.iter().filter(|r| matches!(r.verdict, Verdict::Failed { .. })).count();
    let open = rows.iter().filter(|r| !matches!(r.verdict, Verdict::Proven | Verdict::Failed { .. })).count();
    println!("{} module(s): {} proven, {open} bounded or unknown, {failed} failed", rows.len(), rows.len() - failed - open);
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
