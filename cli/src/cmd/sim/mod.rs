//! `rtl-gen sim …`: co-simulation and link campaigns on the Verilated RTL, one file per
//! subcommand. Arguments are validated here (ranges, shards, blocks of the chosen design, files)
//! before anything is built or run; the simulation itself lives in `rtl_gen_sim`.

pub mod cosim;
pub mod genz;
pub mod merge;
pub mod recxl;
pub mod rifl_sweep;
pub mod rxl;
pub mod sue;

use super::CmdResult;
use anyhow::Context;
use rtl_gen::blocks::Block;
use rtl_gen_sim::campaign::rxl::record::{rxl_csv, rxl_svg};
use rtl_gen_sim::campaign::Shard;
use rtl_gen_sim::results::{write_file, ResultFile};
use rtl_gen_sim::Bench;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Every module of a design (or one block's) in Verilator against its Rust reference model on
    /// random and directed vectors.
    Cosim(cosim::Args),
    /// RXL / CXL 3.0 link campaigns on the generated RTL: scoreboards, ordering failures (Eq. 7)
    /// and bandwidth loss (Eq. 11-14).
    Rxl(rxl::Args),
    /// RIFL BER sweep (§6.C, Fig. 9): bandwidth ratio and average/p99/p99.9 latency per BER
    /// from 1e-12 to 1e-5 in steps of 10^0.25.
    RiflSweep(rifl_sweep::Args),
    /// Merge the JSON results of sharded `rxl` / `rifl-sweep` runs into one table.
    Merge(merge::Args),
    /// SUE packer: commands per PDU, wire efficiency and packing latency vs offered load on the
    /// RTL, checked against the model.
    Sue(sue::Args),
    /// Gen-Z LLR link: two genz_llr interfaces (RTL in lockstep with the models, or models)
    /// under bit errors, bursts, drops and link-down periods; exactly-once scoreboard.
    Genz(Box<genz::Args>),
    /// ReCXL multi-node system: store buffers (baseline/parallel/proactive), MESI homes, a
    /// reordering fabric, logging units, dumps, a random fail-stop crash and the Table I recovery;
    /// scoreboards S1-S8 per trial (`--figures`: the figure tables of docs/results/recxl.md).
    Recxl(recxl::Args),
}

pub fn run(c: Command) -> CmdResult {
    match c {
        Command::Cosim(a) => cosim::run(a),
        Command::Rxl(a) => rxl::run(a),
        Command::RiflSweep(a) => rifl_sweep::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Sue(a) => sue::run(a),
        Command::Genz(a) => genz::run(*a),
        Command::Recxl(a) => recxl::run(a),
    }
}

/// Which design and which generated tree of it: shared by the campaigns.
#[derive(clap::Args, Debug, Clone)]
pub struct DesignArgs {
    /// Design file (TOML); without it the built-in default design (or, with --tree, the design
    /// the tree's manifest describes).
    #[arg(value_name = "DESIGN.toml")]
    pub design: Option<PathBuf>,
    /// Generated tree to simulate (the folder holding manifest.json), taken as it is; default:
    /// the committed generated/ for the built-in design, a fresh tree under
    /// target/bench/<design>/ for a design file.
    #[arg(long, value_name = "DIR")]
    pub tree: Option<PathBuf>,
}

impl DesignArgs {
    /// The design and its tree (errors are found before anything is simulated).
    pub fn bench(&self) -> anyhow::Result<Bench> {
        let tree = self.tree.as_deref().map(super::tree_dir).transpose()?;
        Ok(match (&self.design, tree) {
            (None, None) => Bench::default_design().context("opening the built-in default design and generated/")?,
            (None, Some(t)) => Bench::from_tree(&t).with_context(|| format!("opening the tree {}", t.display()))?,
            (Some(f), None) => Bench::from_design(super::load_design(f)?).with_context(|| format!("generating design file {} for simulation", f.display()))?,
            (Some(f), Some(t)) => Bench::with_tree(super::load_design(f)?, &t).with_context(|| format!("opening the tree {}", t.display()))?,
        })
    }

    /// Where the design came from, for messages.
    pub fn origin(&self) -> String {
        match (&self.design, &self.tree) {
            (Some(p), _) => format!("design file {}", p.display()),
            (None, Some(t)) => format!("the design of tree {}", t.display()),
            (None, None) => "the built-in default design".into(),
        }
    }

    /// A block of the design of one of `kinds`, else an error listing the allowed blocks.
    pub fn block<'b>(&self, bench: &'b Bench, option: &str, name: &str, kinds: &[&str]) -> anyhow::Result<&'b dyn Block> {
        let design = bench.design();
        let fits: Vec<&str> = design.blocks.iter().filter(|b| kinds.contains(&b.kind())).map(|b| b.name()).collect();
        match design.block(name) {
            Some(b) if kinds.contains(&b.kind()) => Ok(b),
            found => {
                let what = match found {
                    Some(b) => format!("block `{name}` is of kind {}", b.kind()),
                    None => format!("no block `{name}`"),
                };
                let allowed = if fits.is_empty() { "none".to_string() } else { fits.join(", ") };
                anyhow::bail!("{option} {name}: {what} in {}; allowed blocks of kind {}: {allowed}", self.origin(), kinds.join(" or "))
            }
        }
    }
}

/// At most this many shards.
pub const MAX_SHARDS: u32 = 65_536;

/// `--shard K/N`: run the K-th of N parts of a campaign (0 <= K < N), for merging with
/// `rtl-gen sim merge`.
pub fn shard(s: &str) -> Result<Shard, String> {
    let form = "allowed K/N with 0 <= K < N <= 65536, e.g. 0/4";
    let (k, n) = s.split_once('/').ok_or_else(|| format!("`{s}` is not K/N; {form}"))?;
    let num = |t: &str| t.trim().parse::<u32>().map_err(|_| format!("`{s}`: `{t}` is not a whole number; {form}"));
    let (index, count) = (num(k)?, num(n)?);
    if count == 0 || count > MAX_SHARDS {
        return Err(format!("`{s}`: N = {count} is out of range; {form}"));
    }
    if index >= count {
        return Err(format!("`{s}`: K = {index} must be less than N = {count}; {form}"));
    }
    Shard::new(index, count).map_err(|e| e.to_string())
}

/// A probability: a number in 0..=1 (the channels draw with it per bit or per flit).
pub fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        Ok(p) => Err(format!("{p} is out of range; allowed 0..=1")),
        Err(_) => Err(format!("`{s}` is not a number; allowed 0..=1 (e.g. 1e-6)")),
    }
}

/// A finite number in `lo..=hi`; the error says the range (the option's help says it too).
pub fn in_range(s: &str, lo: f64, hi: f64) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (lo..=hi).contains(&x) => Ok(x),
        Ok(x) => Err(format!("{x} is out of range; allowed {lo}..={hi}")),
        Err(_) => Err(format!("`{s}` is not a number; allowed {lo}..={hi}")),
    }
}

/// A seed: decimal or `0x…` hexadecimal (as `RTLGEN_SEED` prints them).
pub fn seed(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16),
        None => t.replace('_', "").parse::<u64>(),
    };
    r.map_err(|_| format!("`{s}` is not a seed; allowed a 64-bit number, decimal or 0x… hexadecimal"))
}

/// An output file: its folder must exist or be creatable (checked before a long run, not after).
pub fn output_file(option: &str, path: &Path) -> anyhow::Result<()> {
    if path.as_os_str().is_empty() || path.to_string_lossy().ends_with('/') || path.is_dir() {
        anyhow::bail!("{option} {}: not a file name", path.display());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{option} {}: cannot create the folder {}: {e}", path.display(), dir.display()))?;
    }
    Ok(())
}

/// Where a campaign's results go: `--out PREFIX` (every format) and single files.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Outputs {
    /// Write the results as JSON (what `rtl-gen sim merge` reads).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the table as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write the plot as SVG (RIFL sweeps, Gen-Z and RXL campaigns, ReCXL figures).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

impl Outputs {
    /// Every output folder exists or can be made: checked before a long run, not after it.
    pub fn check(&self, prefix: Option<&str>, svg_allowed: bool) -> anyhow::Result<()> {
        if let (Some(p), false) = (&self.svg, svg_allowed) {
            anyhow::bail!("--svg {}: only RIFL sweeps, Gen-Z and RXL campaigns and `sim recxl --figures` have a plot", p.display());
        }
        if let Some(prefix) = prefix {
            output_file("--out", Path::new(&format!("{prefix}.md")))?;
        }
        for (option, path) in [("--json", &self.json), ("--csv", &self.csv), ("--svg", &self.svg)] {
            if let Some(p) = path {
                output_file(option, p)?;
            }
        }
        Ok(())
    }

    /// Print the report and write every requested file.
    pub fn write(&self, results: &ResultFile, prefix: Option<&str>) -> anyhow::Result<()> {
        println!("{}", results.report());
        let mut written = Vec::new();
        if let Some(prefix) = prefix {
            written.extend(results.write_all(prefix).with_context(|| format!("writing {prefix}.*"))?);
        }
        if let Some(p) = &self.json {
            results.write_json(p).with_context(|| format!("writing {}", p.display()))?;
            written.push(p.display().to_string());
        }
        if let Some(p) = &self.csv {
            let csv = match results {
                ResultFile::Rxl(r) => rxl_csv(&r.rows()),
                ResultFile::RiflSweep(r) => r.csv(),
                ResultFile::Genz(r) => r.csv(),
                ResultFile::Recxl(r) => r.csv(),
                ResultFile::Sue(r) => r.csv(),
            };
            write_file(p, &csv).with_context(|| format!("writing {}", p.display()))?;
            written.push(p.display().to_string());
        }
        if let Some(p) = &self.svg {
            match results {
                ResultFile::RiflSweep(r) if r.reference().is_some() => write_file(p, &r.svg()).with_context(|| format!("writing {}", p.display()))?,
                ResultFile::RiflSweep(_) => anyhow::bail!("--svg {}: the results hold no BER-0 reference point (merge every shard first)", p.display()),
                ResultFile::Genz(r) if r.shard.is_all() => write_file(p, &r.svg()).with_context(|| format!("writing {}", p.display()))?,
                ResultFile::Genz(_) => anyhow::bail!("--svg {}: one shard holds part of the sweep (merge every shard first)", p.display()),
                ResultFile::Rxl(r) => write_file(p, &rxl_svg(&r.rows())).with_context(|| format!("writing {}", p.display()))?,
                ResultFile::Recxl(_) | ResultFile::Sue(_) => anyhow::bail!("--svg {}: only RIFL sweeps, Gen-Z and RXL campaigns have a plot (ReCXL: `sim recxl --figures --svg`; SUE: `sim sue --svg`)", p.display()),
            }
            written.push(p.display().to_string());
        }
        if !written.is_empty() {
            println!("wrote {}", written.join(", "));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse() {
        assert_eq!(shard("0/4"), Ok(Shard { index: 0, count: 4 }));
        assert_eq!(shard("3/4"), Ok(Shard { index: 3, count: 4 }));
        assert_eq!(shard("0/1"), Ok(Shard::ALL));
        for bad in ["4/4", "1/0", "x/2", "2", "-1/3", "0/65537"] {
            assert!(shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn seeds_and_probabilities() {
        assert_eq!(seed("0x1F"), Ok(31));
        assert_eq!(seed("1_000"), Ok(1000));
        assert!(seed("-1").is_err() && seed("0xZZ").is_err());
        assert_eq!(probability("1e-6"), Ok(1e-6));
        assert!(probability("1.5").is_err() && probability("nan").is_err() && probability("x").is_err());
        assert_eq!(in_range("1000", 0.0, 1000.0), Ok(1000.0));
        assert_eq!(in_range("1000.5", 0.0, 1000.0), Err("1000.5 is out of range; allowed 0..=1000".into()));
        assert!(in_range("inf", 0.0, 1e9).is_err() && in_range("-0.1", 0.0, 1.0).is_err());
    }
}
