//! How a [`Dut`](crate::Dut) starts, before the co-simulation driver's own reset: from zero or
//! random register and memory contents, and optionally in the middle of random traffic with the
//! reset asserted while it runs. A driver resets the module and its model and compares from
//! there, so a run under a [`Start`] other than the default checks that the reset alone brings
//! every register to the model's state: a register missing from the reset branch, or one whose
//! value after reset depends on its initial value, gives a mismatch.
//!
//! The start belongs to the [`Tree`](crate::Tree) the module is built from
//! ([`Bench::set_start`](crate::Bench::set_start)), so every driver and campaign node built
//! from it starts that way without a change of its own.

/// Register and memory contents when the model is created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Initial {
    /// Every variable zero (Verilator `--x-initial unique` with random reset 0).
    #[default]
    Zero,
    /// Every variable random, from Verilator's generator seeded with `seed` (random reset 2;
    /// seed 0 is taken as 1, since Verilator reads 0 as "seed from the clock").
    Random { seed: u32 },
}

impl Initial {
    /// Verilator's random-reset mode and seed, as the shim takes them.
    pub(crate) fn verilator(self) -> (u32, u32) {
        match self {
            Initial::Zero => (0, 0),
            Initial::Random { seed } => (2, seed.max(1)),
        }
    }
}

/// Random traffic before the driver's reset: every input (but the clock and the reset) takes a
/// random value each cycle for `cycles` cycles out of reset; then the reset is asserted between
/// two clock edges (after the falling edge: an asynchronous reset acts at once, away from the
/// rising edge) while the random traffic goes on for one more cycle; then the inputs go to zero
/// with the reset still asserted, and the driver's own reset continues and releases it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrafficBeforeReset {
    pub cycles: u32,
    /// Seed of the traffic (each module mixes in its name).
    pub seed: u64,
}

/// How every model built from a tree starts (the default: zero contents, no traffic).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Start {
    pub initial: Initial,
    pub traffic_before_reset: Option<TrafficBeforeReset>,
}

impl Start {
    /// Random initial contents from `seed`.
    pub fn random(seed: u32) -> Start {
        Start { initial: Initial::Random { seed }, traffic_before_reset: None }
    }

    /// Zero initial contents, then `cycles` of random traffic with the reset asserted in it.
    pub fn reset_in_traffic(cycles: u32, seed: u64) -> Start {
        Start { initial: Initial::Zero, traffic_before_reset: Some(TrafficBeforeReset { cycles, seed }) }
    }
}
