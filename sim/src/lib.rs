//! Verilator co-simulation of rtl-gen modules, driven from Rust.
//!
//! ```no_run
//! use rtl_gen_sim::{Bits, Dut, Scoreboard, TestRng, Tree};
//!
//! # fn main() -> Result<(), rtl_gen_sim::SimError> {
//! let tree = Tree::open("generated")?;
//! let mut dut = Dut::build_named(&tree, "rtlgen_crc32", "crc32_random")?;
//! let mut rng = TestRng::for_test("crc32_random")?;
//! let mut sb = Scoreboard::new("crc32").with_seed(rng.seed()).with_wave(dut.wave_path());
//! for _ in 0..1000 {
//!     let data = rng.bits(72);
//!     dut.set("data", &data)?;
//!     dut.eval();
//!     sb.push_expected(dut.cycle(), Bits::zeros(32) /* the reference model's CRC */)?;
//!     sb.push_actual(dut.cycle(), dut.get("crc")?)?;
//! }
//! sb.finish()?;
//! # Ok(()) }
//! ```
//!
//! How it works (see `sim/README.md` for the reasoning): `verilator --cc` the module, generate
//! a small C++ shim with `extern "C"` functions from the manifest's port list, compile both into
//! a shared library linked with a once-compiled Verilator runtime, cache it under
//! `target/verilator-cache/`, and load it with `libloading`.
//!
//! Environment: `RTLGEN_WAVES=1` writes VCD waveforms to `target/waves/`; `RTLGEN_SEED`
//! replays a random test; `VERILATOR` / `CXX` pick the tools; `RTLGEN_SIM_JOBS` caps parallel
//! compiler processes.


pub mod axis;
mod bench;
pub mod clocks;
pub mod cosim;
pub mod link;
mod dut;
mod env_vars;
mod error;
pub mod campaign;
mod manifest;
mod model_build;
mod module_params;
pub mod plot;
mod port;
pub mod results;
mod rng;
mod scoreboard;
mod shim;
mod start;
mod waves;

pub use rtl_gen::bits::Bits;
pub use bench::Bench;
pub use dut::{Dut, PortId};
pub use error::SimError;
pub use manifest::{Dir, FileEntry, Manifest, Module, Port, Reset, Tree, MAX_PORT_WIDTH};
pub use model_build::{cache_dir, target_dir, toolchain, BuildInfo, Toolchain};
pub use env_vars::{SEED_ENV, WAVES_ENV};
pub use rng::TestRng;
pub use start::{Initial, Start, TrafficBeforeReset};
pub use scoreboard::{CountMismatch, Mismatch, RunContext, Scoreboard, ScoreboardError};
pub use waves::{wave_path_for, waves_dir, waves_enabled};

/// Re-exported so tests can use `Rng` methods on [`TestRng`] without naming a rand version.
pub use rand;
