//! `rtl-gen synth [DIR]`

use super::CmdResult;
use rtl_gen::tools::{synth, TreeManifest};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

#[derive(clap::Args)]
pub struct Args {
    /// A generated tree (the folder holding manifest.json); default generated/.
    #[arg(default_value = "generated")]
    pub tree: PathBuf,
    /// Only these modules (repeatable); default all.
    #[arg(long = "module", value_name = "NAME")]
    pub modules: Vec<String>,
    /// Where to write the JSON report (default target/synth/<design>.json).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Parallel Yosys runs (default: available cores).
    #[arg(long, short)]
    pub jobs: Option<usize>,
}

pub fn run(a: Args) -> CmdResult {
    let manifest = TreeManifest::load(&a.tree)?;
    let mut names: Vec<String> = manifest.modules.iter().map(|m| m.name.clone()).collect();
    if !a.modules.is_empty() {
        if let Some(bad) = a.modules.iter().find(|m| !names.contains(m)) {
            return Err(format!("--module {bad}: no such module in {}; modules: {}", a.tree.display(), names.join(", ")).into());
        }
        names.retain(|n| a.modules.contains(n));
    }
    let jobs = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)).max(1);
    let queue = Mutex::new(names.iter().enumerate().collect::<Vec<_>>());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let Some((i, name)) = queue.lock().expect("queue").pop() else { break };
                let r = synth::synth_module(&a.tree, &manifest, name);
                if let Ok((row, _)) = &r {
                    eprintln!("synthesised {} in {:.1} s", row.module, row.seconds);
                }
                results.lock().expect("results").push((i, r.map(|(row, _)| row)));
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(i, _)| *i);
    let mut rows = Vec::new();
    for (_, r) in results {
        rows.push(r?);
    }
    print!("{}", synth::table(&rows));
    let json = a.json.unwrap_or_else(|| PathBuf::from(format!("target/synth/{}.json", manifest.design)));
    if let Some(parent) = json.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&json, serde_json::to_string_pretty(&rows)? + "\n")?;
    println!("JSON report: {}", json.display());
    Ok(ExitCode::SUCCESS)
}
