//! `rtl-gen sim …`: co-simulation and link campaigns on the Verilated RTL, one file per
//! subcommand. Arguments are validated here (ranges, shards, blocks of the chosen design, files)
//! before anything is built or run; the simulation itself lives in `rtl_gen_sim`.

pub mod cosim;
pub mod merge;
pub mod rifl_sweep;
pub mod rxl;

use super::CmdResult;
use rtl_gen::config::Design;
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
}

pub fn run(c: Command) -> CmdResult {
    match c {
        Command::Cosim(a) => cosim::run(a),
        Command::Rxl(a) => rxl::run(a),
        Command::RiflSweep(a) => rifl_sweep::run(a),
        Command::Merge(a) => merge::run(a),
    }
}

/// Which design and which generated tree of it: shared by the campaigns.
#[derive(clap::Args, Debug, Clone)]
pub struct DesignArgs {
    /// Design file (TOML); without it the built-in default design.
    #[arg(value_name = "DESIGN.toml")]
    pub design: Option<PathBuf>,
    /// Generated tree of the design (the folder holding manifest.json); default generated/ for
    /// the built-in design, generated/<design name>/ for a design file.
    #[arg(long, value_name = "DIR")]
    pub tree: Option<PathBuf>,
}

/// A design and its tree folder, validated.
pub struct Chosen {
    pub design: Design,
    pub tree: PathBuf,
}

impl DesignArgs {
    /// Load the design; check an explicit `--tree` holds a manifest.
    pub fn resolve(&self) -> anyhow::Result<Chosen> {
        let design = super::design_or_default(self.design.as_deref())?;
        let tree = match (&self.tree, &self.design) {
            (Some(t), _) => super::tree_dir(t)?,
            (None, None) => PathBuf::from("generated"),
            (None, Some(_)) => Path::new("generated").join(&design.info.name),
        };
        Ok(Chosen { design, tree })
    }
}

impl Chosen {
    /// Where this design came from, for messages.
    pub fn origin(&self, args: &DesignArgs) -> String {
        match &args.design {
            None => "the built-in default design".into(),
            Some(p) => format!("design file {}", p.display()),
        }
    }

    /// A block of the design of one of `kinds`, else an error listing the allowed blocks.
    pub fn block(&self, args: &DesignArgs, option: &str, name: &str, kinds: &[&str]) -> anyhow::Result<&dyn rtl_gen::blocks::Block> {
        let fits: Vec<&str> = self.design.blocks.iter().filter(|b| kinds.contains(&b.kind())).map(|b| b.name()).collect();
        match self.design.block(name) {
            Some(b) if kinds.contains(&b.kind()) => Ok(b),
            found => {
                let what = match found {
                    Some(b) => format!("block `{name}` is of kind {}", b.kind()),
                    None => format!("no block `{name}`"),
                };
                let allowed = if fits.is_empty() { "none".to_string() } else { fits.join(", ") };
                anyhow::bail!("{option} {name}: {what} in {}; allowed blocks of kind {}: {allowed}", self.origin(args), kinds.join(" or "))
            }
        }
    }
}

/// `--shard K/N`: run the K-th of N equal parts of a campaign (0 ≤ K < N), for merging with
/// `rtl-gen sim merge`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// At most this many shards.
pub const MAX_SHARDS: u32 = 65_536;

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
    Ok(Shard { index, count })
}

/// A probability: a number in 0..=1 (the channels draw with it per bit or per flit).
pub fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        Ok(p) => Err(format!("{p} is out of range; allowed 0..=1")),
        Err(_) => Err(format!("`{s}` is not a number; allowed 0..=1 (e.g. 1e-6)")),
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

/// The error of a subcommand whose library function has not landed yet; `what` says what
/// would have run.
pub fn not_wired(command: &str, library: &str, what: &str) -> CmdResult {
    anyhow::bail!("`rtl-gen sim {command}` is not wired yet: the arguments are valid ({what}), but {library} is not in this build of rtl-gen-sim")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse() {
        assert_eq!(shard("0/4"), Ok(Shard { index: 0, count: 4 }));
        assert_eq!(shard("3/4"), Ok(Shard { index: 3, count: 4 }));
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
    }
}
