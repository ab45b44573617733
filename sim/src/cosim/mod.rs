//! Co-simulation of every module of a design against its reference model, as `rtl-gen sim
//! cosim` runs it and as the test suite does: one driver per (kind, role) draws the stimulus
//! classes of that block (random vectors, corner cases, injected faults where the block exists
//! to survive them), drives the Verilated module and the model side by side and counts every
//! output that differs.
//!
//! A driver returns an [`Outcome`]: vectors and cycles run, mismatches, and the first mismatch
//! with its cycle, port, both values and the seed that replays it. `run` walks the modules of a
//! [`Bench`] (or one block's) and returns one outcome per module; shared modules run once, under
//! the block that owns them.

pub mod async_fifo;
mod crc;
mod fec;
pub mod fec_stream;
pub mod genz;
pub mod replay;
pub mod recxl;
pub mod rifl;
pub mod rifl_bond;
pub mod rifl_gt;
pub mod rifl_rclk;
pub mod ram;
pub mod rxl;
pub mod sue;
pub mod sue_link;
pub mod sue_endpoint;
pub mod sue_transport;
mod vectors;

pub use crate::module_params::{design_error, kind_params};
pub use crate::link::{FirstMismatch, Tally};

use crate::{Bench, SimError, TestRng};
use rtl_gen::elab::ElabModule;
use rtl_gen::hw::module::Role;
use std::fmt;

/// How much stimulus a run draws and from which seed.
#[derive(Debug, Clone)]
pub struct Options {
    /// Random vectors (combinational modules) or random cycles (clocked ones) per module, on top
    /// of the corner cases.
    pub vectors: u64,
    /// Seed of every stimulus stream (each module derives its own from it and its name).
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options { vectors: 10_000, seed: 1 }
    }
}

impl Options {
    /// The stimulus stream of `module`: independent of the order modules are run in.
    pub fn rng(&self, module: &str) -> TestRng {
        let mut h: u64 = self.seed ^ 0x9E37_79B9_7F4A_7C15;
        for b in module.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
        }
        TestRng::from_seed(h)
    }
}

/// What co-simulating one module found.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub module: String,
    pub block: String,
    pub role: Role,
    /// Vectors (or transactions) compared.
    pub vectors: u64,
    /// Clock cycles simulated (0 for combinational modules).
    pub cycles: u64,
    pub mismatches: u64,
    pub first: Option<FirstMismatch>,
    /// Seed of this module's stimulus stream (`RTLGEN_SEED` replays it in the tests).
    pub seed: u64,
    /// The module's file in the tree is not what the design generates.
    pub differs_from_design: bool,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.mismatches == 0 && self.vectors > 0
    }

    /// `Ok` when nothing differed, else an error naming module, cycle, port, values and seed.
    pub fn check(&self) -> Result<(), SimError> {
        if self.passed() {
            return Ok(());
        }
        Err(SimError::Cosim { summary: self.to_string() })
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (block {}, {}): {} vectors, {} cycles, {} mismatches, seed {:#x}", self.module, self.block, self.role, self.vectors, self.cycles, self.mismatches, self.seed)?;
        if let Some(m) = &self.first {
            write!(f, "; first at {m}")?;
        }
        if self.differs_from_design {
            write!(f, " [file differs from what the design generates]")?;
        }
        Ok(())
    }
}

/// A driver's tally as the outcome of its module.
impl Tally {
    fn outcome(self, m: &ElabModule, bench: &Bench, seed: u64) -> Outcome {
        Outcome {
            module: m.name().to_string(),
            block: bench.design().blocks[m.block].name().to_string(),
            role: m.role,
            vectors: self.vectors,
            cycles: self.cycles,
            mismatches: self.mismatches,
            first: self.first,
            seed,
            differs_from_design: false,
        }
    }
}

/// A driver: co-simulates one module against its block's model.
pub type Driver = fn(&Bench, &ElabModule, &Options, &mut TestRng) -> Result<Tally, SimError>;

/// The driver of modules of `kind` with `role`, if the kind has one.
pub fn driver(kind: &str, role: Role) -> Option<Driver> {
    Some(match (kind, role) {
        ("crc", Role::Crc) => crc::crc_generator,
        ("crc", Role::CrcCheck) => crc::crc_checker,
        ("rs_crc", Role::Crc) => crc::rs_crc_generator,
        ("rs_crc", Role::CrcCheck) => crc::rs_crc_checker,
        ("crc_stream", Role::CrcStream) => crc::crc_stream,
        ("replay_buffer", Role::Replay) => replay::replay_buffer,
        ("rs_fec", Role::FecEnc) => fec::encoder,
        ("rs_fec", Role::FecDec) => fec::decoder,
        ("rifl", Role::Node) => rifl::node,
        ("rifl", Role::Tx) => rifl::tx,
        ("rifl", Role::Rx) => rifl::rx,
        ("rifl", Role::Fifo) => rifl::fifo,
        ("rifl", Role::TxGear | Role::RxGear) => rifl::gear,
        ("rifl", Role::FrameEncode) => rifl::frame_encode,
        ("rifl", Role::FrameCheck) => rifl::frame_check,
        ("rifl", Role::FrameCrc) => rifl::frame_crc,
        ("rifl", Role::Scrambler) => rifl::scrambler,
        ("rifl", Role::Descrambler) => rifl::descrambler,
        ("rifl", Role::RxCdc) => rifl_rclk::rxcdc,
        ("rifl", Role::ClockComp) => rifl_rclk::comp,
        ("rifl", Role::LaneAligner) => rifl_gt::lane_aligner,
        ("rifl", Role::GtTxWidth) => rifl_gt::gt_tx_width,
        ("rifl", Role::TemporalBondTx) => rifl_bond::bond_tx,
        ("rifl", Role::TemporalBondRx) => rifl_bond::bond_rx,
        ("rxl_endpoint", Role::Endpoint) => rxl::endpoint,
        ("rxl_switch", Role::LinkRx) => rxl::link_rx,
        ("rxl_switch", Role::LinkTx) => rxl::link_tx,
        ("sue_packer", Role::SuePacker) => sue::packer,
        ("sue_transport", Role::SueTransport) => sue_transport::transport,
        ("sue_endpoint", Role::Endpoint) => sue_endpoint::endpoint,
        ("recxl_replica_map", Role::ReplicaMap) => recxl::replica_map,
        ("recxl_logging_unit", Role::LoggingUnit) => recxl::logging_unit,
        ("genz_llr", Role::Interface) => genz::interface,
        ("async_fifo", Role::AsyncFifo) => async_fifo::async_fifo,
        (rtl_gen::hw::ram::KIND, Role::Ram) => ram::ram,
        _ => return None,
    })
}

/// Co-simulate module `m` of `bench`.
pub fn module(bench: &Bench, m: &ElabModule, opts: &Options) -> Result<Outcome, SimError> {
    let differs = bench.differing_modules().iter().any(|n| n == m.name());
    run_one(bench, m, opts, differs)
}

fn run_one(bench: &Bench, m: &ElabModule, opts: &Options, differs_from_design: bool) -> Result<Outcome, SimError> {
    let d = driver(m.kind, m.role).ok_or_else(|| SimError::NoDriver { module: m.name().to_string(), kind: m.kind.to_string(), role: m.role.as_str().to_string() })?;
    let mut rng = opts.rng(m.name());
    let seed = rng.seed();
    let tally = d(bench, m, opts, &mut rng)?;
    let mut o = tally.outcome(m, bench, seed);
    o.differs_from_design = differs_from_design;
    Ok(o)
}

/// Re-runs module `module` of `bench` with the same options (so the same stimulus and the same
/// mismatch) on models built for waveforms, and returns the VCD files written
/// (`<target>/waves/cosim_<module>….vcd`, one per Verilated instance the driver builds).
pub fn waves_for(bench: &Bench, module: &str, opts: &Options) -> Result<Vec<std::path::PathBuf>, SimError> {
    let m = bench.elab().modules.iter().find(|m| m.name() == module).ok_or_else(|| SimError::Design { message: format!("no module `{module}` in the design") })?;
    let (run, paths) = crate::waves::traced(|| run_one(bench, m, opts, false));
    run?;
    Ok(paths)
}

/// Co-simulate every module of the design, or of block `only`, in emission order; `progress`
/// hears of each module before it runs. The tree is compared with the design once.
pub fn run(bench: &Bench, only: Option<&str>, opts: &Options, progress: &mut dyn FnMut(&ElabModule)) -> Result<Vec<Outcome>, SimError> {
    let modules: Vec<&ElabModule> = match only {
        Some(b) => {
            bench.module_any(b)?;
            bench.elab().modules_of(b)
        }
        None => bench.elab().modules.iter().collect(),
    };
    let differing = bench.differing_modules();
    let mut out = Vec::new();
    for m in modules {
        progress(m);
        out.push(run_one(bench, m, opts, differing.iter().any(|n| n == m.name()))?);
    }
    Ok(out)
}

/// The table `rtl-gen sim cosim` prints.
pub fn table(outcomes: &[Outcome]) -> String {
    let w = outcomes.iter().map(|o| o.module.len()).max().unwrap_or(6).max(6);
    let mut s = format!("{:<w$}  {:>10}  {:>10}  {:>10}  {:<18}  {}\n", "module", "vectors", "cycles", "mismatches", "seed", "note");
    for o in outcomes {
        let note = match (&o.first, o.differs_from_design) {
            (Some(m), d) => format!("first at cycle {} on `{}`: expected {}, got {}{}", m.cycle, m.port, m.expected, m.actual, if d { "; file differs from the design" } else { "" }),
            (None, true) => "file differs from what the design generates".to_string(),
            (None, false) => String::new(),
        };
        s.push_str(&format!("{:<w$}  {:>10}  {:>10}  {:>10}  {:<#18x}  {}\n", o.module, o.vectors, o.cycles, o.mismatches, o.seed, note));
    }
    s
}
