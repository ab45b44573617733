//! `rtl-gen sim recxl [--variant baseline,parallel,proactive] [--geometry N,C,R]… [--trials T]
//! [--cycles N] [--dump-period P] [--store-rate X] [--lu FIELD=VALUE]… [--seed S] [--shard K/N]
//! [--out PREFIX] [--json FILE] [--csv FILE]`: the ReCXL multi-node system
//! (`rtl_gen_sim::campaign::recxl`, docs/results/recxl.md) with a random fail-stop crash per
//! trial, the Table I recovery and scoreboards S1–S8; exits 1 when any trial's scoreboard failed.
//! `--figures` prints the §5.4 figure tables instead (traffic vs R, SRAM rows vs load, DRAM log vs
//! dump period, dump bandwidth raw and ÷ 5.8, recovery time at the Fig. 15 sizes, the store-drain
//! proxy); with `--svg FILE` also the SRAM rows against load as a plot. The logging units are the cycle-accurate model (the RTL twin runs in the test suite).

use super::{seed, shard, Outputs};
use crate::cmd::CmdResult;
use anyhow::Context;
use rtl_gen_sim::campaign::recxl::campaign::{self as rc, Geometry, RecxlOptions};
use rtl_gen_sim::campaign::recxl::Variant;
use rtl_gen_sim::campaign::{Progress, Shard};
use rtl_gen_sim::results::ResultFile;
use std::process::ExitCode;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum, Debug)]
pub enum VariantArg {
    Baseline,
    Parallel,
    Proactive,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Protocol variants (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "baseline,parallel,proactive")]
    pub variant: Vec<VariantArg>,
    /// System geometry N,C,R (nodes, cores per node, replicas); repeatable.
    #[arg(long, value_parser = geometry)]
    pub geometry: Vec<Geometry>,
    /// Random crashes per geometry and variant.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub trials: u64,
    /// Cycles (2 ns) of traffic per trial; the crash falls in [1000, cycles).
    #[arg(long, default_value_t = 6_000, value_parser = clap::value_parser!(u64).range(2_000..=100_000_000))]
    pub cycles: u64,
    /// Dump period in cycles (the paper's 2.5 ms is 1,250,000).
    #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(200..=100_000_000))]
    pub dump_period: u64,
    /// Per core and cycle probability of a store.
    #[arg(long, default_value_t = 0.02, value_parser = super::probability)]
    pub store_rate: f64,
    /// A logging-unit field for every node, e.g. `free_lag=0`, `csn_bits=0`; repeatable. The
    /// campaign sets num_nodes, cores_per_node, replicas, addr_bits, ts_bits, sram_rows,
    /// head_reserve, log_bytes, fetch_queries and counter_bits itself.
    #[arg(long = "lu", value_name = "FIELD=VALUE")]
    pub lu: Vec<String>,
    #[arg(long, default_value = "1", value_parser = seed)]
    pub seed: u64,
    #[arg(long, default_value = "0/1", value_parser = shard)]
    pub shard: Shard,
    /// Print the §5.4 figure tables instead of running a crash campaign.
    #[arg(long)]
    pub figures: bool,
    /// Write PREFIX.json, PREFIX.md, PREFIX.csv.
    #[arg(long, value_name = "PREFIX")]
    pub out: Option<String>,
    #[command(flatten)]
    pub outputs: Outputs,
}

/// `N,C,R`.
fn geometry(s: &str) -> Result<Geometry, String> {
    let v: Vec<u32> = s.split(',').map(|x| x.trim().parse::<u32>()).collect::<Result<_, _>>().map_err(|_| format!("`{s}` is not N,C,R (three whole numbers, e.g. 4,2,2)"))?;
    match v[..] {
        [n, c, r] if (2..=16).contains(&n) && (1..=8).contains(&c) && (2..=n.min(8)).contains(&r) => Ok(Geometry { n, c, r }),
        [n, c, r] => Err(format!("`{s}`: N = {n}, C = {c}, R = {r} out of range; allowed N 2..=16, C 1..=8, R 2..=min(8, N)")),
        _ => Err(format!("`{s}` is not N,C,R (three whole numbers, e.g. 4,2,2)")),
    }
}

/// The logging-unit fields the campaign sets itself ([`rc::lu_block`]): the geometry's
/// `num_nodes`, `cores_per_node`, `replicas` and `head_reserve` (N·C), and a small SRAM and log
/// so that short runs wrap, NACK and dump.
pub const CAMPAIGN_SET: &[&str] = &["num_nodes", "cores_per_node", "replicas", "addr_bits", "ts_bits", "sram_rows", "head_reserve", "log_bytes", "fetch_queries", "counter_bits"];

/// One `--lu FIELD=VALUE` as a line of the logging unit's TOML: FIELD a field name the campaign
/// does not set, VALUE an integer, a boolean or a plain word (quoted); nothing else reaches the
/// design text.
fn lu_field(f: &str) -> anyhow::Result<String> {
    let (k, v) = f.split_once('=').ok_or_else(|| anyhow::anyhow!("--lu {f}: expected FIELD=VALUE (e.g. free_lag=0)"))?;
    let (k, v) = (k.trim(), v.trim());
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
        anyhow::bail!("--lu {f}: `{}` is not a field name (lower-case letters, digits, `_`)", k.escape_debug());
    }
    if CAMPAIGN_SET.contains(&k) {
        anyhow::bail!("--lu {f}: the campaign sets `{k}` itself (from --geometry, or small on purpose so that runs wrap, NACK and dump); fields it sets: {}", CAMPAIGN_SET.join(", "));
    }
    let value = if v == "true" || v == "false" || v.parse::<i64>().is_ok() || (v.starts_with("0x") && u64::from_str_radix(&v[2..], 16).is_ok()) {
        v.to_string()
    } else if !v.is_empty() && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        format!("\"{v}\"")
    } else {
        anyhow::bail!("--lu {f}: `{}` is not a value; allowed an integer, true/false or a word", v.escape_debug());
    };
    Ok(format!("{k} = {value}\n"))
}

pub fn run(a: Args) -> CmdResult {
    if a.figures {
        if let Some(p) = &a.outputs.svg {
            super::output_file("--svg", p)?;
        }
        let s = a.seed;
        println!("## Replication traffic per store vs R (N = 6, C = 2, proactive, 1-word stores)\n\n{}", rc::traffic_vs_r(s)?);
        let rows = rc::rows_vs_load_points(s)?;
        println!("## SRAM log-buffer rows vs load and variant (N = 4, C = 2, R = 2)\n\n{}", rc::rows_vs_load_table(&rows));
        println!("## DRAM log high-water mark vs dump period (N = 4, C = 2, R = 2, proactive)\n\n{}", rc::log_vs_period(s)?);
        println!("## Dump bandwidth (N = 4, C = 2, R = 2, proactive, 500 MHz)\n\n{}", rc::dump_bandwidth(s)?);
        println!("## Recovery time at the Fig. 15 sizes (N = 16, R = 3)\n\n{}", rc::recovery_time(&[4_096, 65_536], &[64, 1024])?);
        println!("## Store-drain proxy (not execution time; N = 4, C = 2, R = 2)\n\n{}", rc::drain_proxy(s)?);
        if let Some(p) = &a.outputs.svg {
            let title = format!("ReCXL SRAM log-buffer rows vs store rate (N = 4, C = 2, R = 2, seed {s})");
            std::fs::write(p, rc::rows_vs_load_svg(&rows, &title)).with_context(|| format!("writing {}", p.display()))?;
            println!("wrote {}", p.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    a.outputs.check(a.out.as_deref(), false)?;
    let mut lu_extra = String::new();
    for f in &a.lu {
        lu_extra.push_str(&lu_field(f)?);
    }
    let o = RecxlOptions {
        geometries: if a.geometry.is_empty() { RecxlOptions::default().geometries } else { a.geometry.clone() },
        variants: a
            .variant
            .iter()
            .map(|v| match v {
                VariantArg::Baseline => Variant::Baseline,
                VariantArg::Parallel => Variant::Parallel,
                VariantArg::Proactive => Variant::Proactive,
            })
            .collect(),
        trials: a.trials as usize,
        seed: a.seed,
        cycles: a.cycles,
        dump_period: a.dump_period,
        store_rate: a.store_rate,
        lu_extra,
    };
    // Bad logging-unit fields are found before the campaign runs.
    for g in &o.geometries {
        rc::lu_block(*g, &o.lu_extra)?;
    }
    let results = rc::run(&o, a.shard, &mut Progress::auto()).with_context(|| format!("ReCXL campaign (shard {})", a.shard))?;
    let failed = results.failures().len();
    a.outputs.write(&ResultFile::Recxl(results), a.out.as_deref())?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list of fields the campaign sets is the design text's: each of them given again is
    /// the duplicate the option must refuse first, every other field of the kind is not.
    #[test]
    fn campaign_set_fields_match_the_logging_unit_text() {
        let g = Geometry { n: 4, c: 2, r: 2 };
        let kind = rtl_gen::blocks::KINDS.iter().find(|k| k.kind() == "recxl_logging_unit").expect("the kind");
        for f in kind.fields() {
            let value = match f.default_value() {
                rtl_gen::fields::FieldDefault::Value(v) => v,
                _ => "1",
            };
            let line = format!("{} = {value}\n", f.name);
            let duplicate = rc::lu_block(g, &line).is_err_and(|e| e.to_string().contains("duplicate key"));
            assert_eq!(duplicate, CAMPAIGN_SET.contains(&f.name), "{}", f.name);
        }
        let err = lu_field("sram_rows=4").expect_err("set by the campaign").to_string();
        assert!(err.contains("the campaign sets `sram_rows`"), "{err}");
        assert_eq!(lu_field(" free_lag = 0 ").expect("a free field"), "free_lag = 0\n");
        for bad in ["x", "a b=1", "free_lag=1\n[design]", "free_lag=\"x\"", "=1"] {
            assert!(lu_field(bad).is_err(), "{bad:?}");
        }
    }
}
