//! Several unrelated clocks for one Verilated model: a time-ordered scheduler of their edges.
//!
//! [`Dut::tick`](crate::Dut::tick) drives the one clock a module has. A module with several
//! clocks (the asynchronous FIFO's `wr_clk` and `rd_clk`) is driven edge by edge instead: each
//! clock has a period, a phase and optionally jitter, [`Edges`] yields every rising and falling
//! edge of all of them in time order, and the caller sets that clock's port and evaluates the
//! model once per edge ([`Dut::clock_edge`](crate::Dut::clock_edge)), comparing with a model that
//! takes the same edges in the same order.
//!
//! Why one evaluation per edge from Rust rather than Verilator's `--timing` with clocks written
//! as delays in a testbench: the stimulus and the reference model live in Rust and must see the
//! edges in exactly the order the RTL did, including edges at the same instant (taken in clock
//! order here, so the model can take them in the same order); with `--timing` the order would be
//! the simulator's scheduling, which the model cannot observe. It also keeps every model built
//! the one way the rest of the suite builds them (no `--timing` runtime, no C++ coroutines).
//!
//! Times are in femtoseconds (a 250 MHz clock has a 4 000 000 fs period, and ±200 ppm of it is
//! 800 fs), so ppm offsets are exact integers.

use crate::TestRng;

/// Femtoseconds per nanosecond.
pub const FS_PER_NS: u64 = 1_000_000;

/// One clock: period, the time of its first rising edge and the peak of a uniform jitter added
/// to every half period (period jitter: the mean period stays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockSpec {
    pub period_fs: u64,
    pub phase_fs: u64,
    pub jitter_fs: u64,
}

impl ClockSpec {
    /// A clock of `mhz` offset by `ppm` parts per million (positive: slower), first rising edge
    /// at `phase_fs`, no jitter.
    pub fn mhz(mhz: f64, ppm: f64, phase_fs: u64) -> ClockSpec {
        let period = 1e9 / mhz * (1.0 + ppm * 1e-6);
        ClockSpec { period_fs: period.round() as u64, phase_fs, jitter_fs: 0 }
    }

    /// The same clock with its first edge at a random phase within one period.
    pub fn random_phase(self, rng: &mut TestRng) -> ClockSpec {
        ClockSpec { phase_fs: rng.range(0, self.period_fs - 1), ..self }
    }

    pub fn with_jitter(self, jitter_fs: u64) -> ClockSpec {
        ClockSpec { jitter_fs, ..self }
    }
}

/// One edge of one clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub time_fs: u64,
    /// Index of the clock in the list [`Edges::new`] was given.
    pub clock: usize,
    pub rising: bool,
}

/// Every edge of a set of clocks, in time order; edges at the same instant in clock order.
#[derive(Debug, Clone)]
pub struct Edges {
    clocks: Vec<(ClockSpec, u64, bool)>,
    rng: TestRng,
}

impl Edges {
    /// Clocks starting low; `rng` draws the jitter.
    pub fn new(clocks: &[ClockSpec], rng: TestRng) -> Edges {
        for c in clocks {
            assert!(c.period_fs >= 2 && c.jitter_fs < c.period_fs / 4, "clock {c:?}: period too short for its jitter");
        }
        Edges { clocks: clocks.iter().map(|&c| (c, c.phase_fs, true)).collect(), rng }
    }
}

impl Iterator for Edges {
    type Item = Edge;
    fn next(&mut self) -> Option<Edge> {
        let (clock, _) = self.clocks.iter().enumerate().min_by_key(|(i, (_, t, _))| (*t, *i))?;
        let (spec, time, rising) = self.clocks[clock];
        let half = spec.period_fs / 2;
        let jitter = if spec.jitter_fs == 0 { 0 } else { self.rng.range(0, 2 * spec.jitter_fs) };
        // Half periods alternate floor/ceil so an odd period keeps its length.
        let half = if rising { half } else { spec.period_fs - half };
        // Jitter below a quarter period keeps every half period positive.
        self.clocks[clock].1 = time + half + jitter - spec.jitter_fs;
        self.clocks[clock].2 = !rising;
        Some(Edge { time_fs: time, clock, rising })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_come_in_time_order_and_keep_each_clock_s_period() {
        let a = ClockSpec::mhz(250.0, 0.0, 0);
        let b = ClockSpec::mhz(250.0, 200.0, 1_000_000);
        let edges: Vec<Edge> = Edges::new(&[a, b], TestRng::from_seed(1)).take(4000).collect();
        assert!(edges.windows(2).all(|w| (w[0].time_fs, w[0].clock) <= (w[1].time_fs, w[1].clock)));
        let rises = |c: usize| edges.iter().filter(|e| e.clock == c && e.rising).map(|e| e.time_fs).collect::<Vec<_>>();
        let (ra, rb) = (rises(0), rises(1));
        assert!(ra.windows(2).all(|w| w[1] - w[0] == 4_000_000));
        assert!(rb.windows(2).all(|w| w[1] - w[0] == 4_000_800), "200 ppm slower");
        assert_eq!(rb[0], 1_000_000);
    }

    #[test]
    fn jitter_moves_edges_within_its_bound() {
        let a = ClockSpec::mhz(100.0, 0.0, 0).with_jitter(50_000);
        let rises: Vec<u64> = Edges::new(&[a], TestRng::from_seed(3)).filter(|e| e.rising).take(1000).map(|e| e.time_fs).collect();
        let periods: Vec<u64> = rises.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(periods.iter().all(|&p| p.abs_diff(10_000_000) <= 200_000), "{periods:?}");
        assert!(periods.iter().any(|&p| p != 10_000_000));
    }
}
