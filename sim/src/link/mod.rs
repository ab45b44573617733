//! Links: two nodes joined by fault-injecting [`channel::Channel`]s and stepped cycle by cycle,
//! each node the Rust model, the Verilated RTL, or the two in lockstep (every output compared
//! every cycle into a [`Tally`]). The co-simulation drivers of the link-level kinds
//! (`crate::cosim::{rxl, genz, rifl, rifl_rclk}`) run these links with every mismatch counted;
//! the campaigns (`crate::campaign`) run the same links for their figures and stop at the first
//! mismatch. This layer sits below both, so neither imports the other's pieces.
//!
//! | module | what |
//! |---|---|
//! | [`channel`] | the one fault-injecting delay line (BER, bursts, drops, symbol errors beyond the FEC) for flits and lane frames |
//! | [`rxl`] | RXL / CXL-baseline endpoints and FEC-only switches as link nodes (models, RTL, lockstep twins), one configuration's run, Eq. 7 / Eq. 11–14 |
//! | [`genz`] | two Gen-Z LLR interfaces (models, or RTL with model twins) on [`genz::run_link`] |
//! | [`rifl`] | two RIFL nodes (model, RTL, lockstep twins) with traffic flows and scoreboard; [`rifl::rclk`] the recovered-clock link |

pub mod channel;
pub mod genz;
pub mod rifl;
pub mod rxl;

use crate::SimError;
use rtl_gen::bits::Bits;
use std::fmt;

/// The first output that differed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstMismatch {
    /// Vector index (combinational) or clock cycle (clocked) where it happened.
    pub cycle: u64,
    pub port: String,
    pub expected: String,
    pub actual: String,
}

impl fmt::Display for FirstMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cycle {} on port `{}`: expected {}, got {}", self.cycle, self.port, self.expected, self.actual)
    }
}

/// Counts mismatches per port and keeps the first.
#[derive(Debug, Default)]
pub struct Tally {
    pub vectors: u64,
    pub cycles: u64,
    pub mismatches: u64,
    pub first: Option<FirstMismatch>,
}

impl Tally {
    /// Compare one output value.
    pub fn compare<T: PartialEq + fmt::Debug>(&mut self, cycle: u64, port: &str, expected: T, actual: T) {
        if expected != actual {
            self.mismatches += 1;
            if self.first.is_none() {
                self.first = Some(FirstMismatch { cycle, port: port.to_string(), expected: format!("{expected:?}"), actual: format!("{actual:?}") });
            }
        }
    }

    /// Compare bit vectors (printed in hex by their `Debug`).
    pub fn compare_bits(&mut self, cycle: u64, port: &str, expected: &Bits, actual: &Bits) {
        self.compare(cycle, port, expected, actual);
    }
}

/// Why a campaign stopped.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// Building, loading or driving a model, or a block missing / of the wrong kind.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// Options that cannot run (named, with what is allowed), or result files that do not merge.
    #[error("campaign: {0}")]
    Config(String),
    /// A node running the RTL and the model in lockstep saw them disagree.
    #[error("{node}: RTL and model disagree at cycle {cycle} on {what}: RTL {rtl}, model {model}")]
    Mismatch { node: String, cycle: u64, what: String, rtl: String, model: String },
    /// The scoreboard found a packet lost, duplicated, reordered or corrupted.
    #[error("scoreboard: {0}")]
    Scoreboard(String),
}
