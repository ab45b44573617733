//! Asynchronous FIFOs (`async_fifo`) on two unrelated clocks, edge by edge against the two-clock
//! model ([`rtl_gen::blocks::async_fifo::model::AsyncFifoModel`]): the clocks' edges come from
//! [`crate::clocks::Edges`], each rising edge is applied to the Verilated module (one evaluation)
//! and to the model in the same order, and every output is compared after every edge (`rd_data`
//! while a word is on it). On top, a scoreboard that trusts only the RTL's own flags checks that
//! every word written comes out once, in order, bit-exact.
//!
//! [`FifoTwin`] is the lockstep; the `rtl-gen sim cosim` driver and `sim/tests/async_fifo_cosim.rs`
//! both step it.

use super::{Options, Tally};
use crate::clocks::{ClockSpec, Edge, Edges};
use crate::{Bench, Bits, Dut, PortId, SimError, TestRng};
use rtl_gen::blocks::async_fifo::model::AsyncFifoModel;
use rtl_gen::blocks::async_fifo::{AsyncFifoBlock, AsyncFifoParams};
use rtl_gen::elab::ElabModule;
use std::collections::VecDeque;

struct Ports {
    wr_clk: PortId,
    wr_rst: PortId,
    wr_en: PortId,
    wr_data: PortId,
    wr_full: PortId,
    wr_level: PortId,
    rd_clk: PortId,
    rd_rst: PortId,
    rd_en: PortId,
    rd_empty: PortId,
    rd_level: PortId,
    rd_data: PortId,
    rd_valid: Option<PortId>,
    /// Whether the resets are active low (`*_rst_n`).
    active_low: bool,
}

impl Ports {
    fn of(dut: &Dut) -> Result<Ports, SimError> {
        let active_low = dut.info().ports.iter().any(|p| p.name == "wr_rst_n");
        let rst = |side: &str| dut.port(&format!("{side}_{}", if active_low { "rst_n" } else { "rst" }));
        Ok(Ports {
            wr_clk: dut.port("wr_clk")?,
            wr_rst: rst("wr")?,
            wr_en: dut.port("wr_en")?,
            wr_data: dut.port("wr_data")?,
            wr_full: dut.port("wr_full")?,
            wr_level: dut.port("wr_level")?,
            rd_clk: dut.port("rd_clk")?,
            rd_rst: rst("rd")?,
            rd_en: dut.port("rd_en")?,
            rd_empty: dut.port("rd_empty")?,
            rd_level: dut.port("rd_level")?,
            rd_data: dut.port("rd_data")?,
            rd_valid: dut.info().ports.iter().any(|p| p.name == "rd_valid").then(|| dut.port("rd_valid")).transpose()?,
            active_low,
        })
    }
}

/// Clock index of the write clock in the [`Edges`] the twin is stepped with (the read clock is 1).
pub const WR: usize = 0;
/// Clock index of the read clock.
pub const RD: usize = 1;

/// Counts of what a run did, from the RTL's own flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FifoCounts {
    pub writes: u64,
    pub reads: u64,
    /// Write edges with `wr_en` while `wr_full` (refused).
    pub refused: u64,
    /// Read edges with `rd_en` while `rd_empty`.
    pub starved: u64,
    pub wr_edges: u64,
    pub rd_edges: u64,
}

/// An asynchronous FIFO's Verilated module and its model in lockstep, edge by edge.
pub struct FifoTwin {
    block: AsyncFifoBlock,
    dut: Dut,
    ports: Ports,
    model: AsyncFifoModel,
    tally: Tally,
    /// Words the RTL accepted and has not yet given back, oldest first.
    queue: VecDeque<Bits>,
    /// A word was read at the last read edge and shows on rd_data after it (registered output).
    pending_read: bool,
    pub counts: FifoCounts,
    /// Scoreboard failures (a word lost, duplicated, out of order or changed), the first kept.
    pub order_errors: u64,
    pub first_order_error: Option<String>,
}

impl FifoTwin {
    /// Resets both domains of `dut` (a build of `block`'s module) and takes a fresh model.
    pub fn new(block: &AsyncFifoBlock, dut: Dut) -> Result<FifoTwin, SimError> {
        FifoTwin::with_model(block, dut, block.model())
    }

    /// As [`FifoTwin::new`] with a given model, e.g. one with a synchronizer stage more than the
    /// RTL, to show that the comparison catches it.
    pub fn with_model(block: &AsyncFifoBlock, dut: Dut, model: AsyncFifoModel) -> Result<FifoTwin, SimError> {
        let ports = Ports::of(&dut)?;
        let mut t = FifoTwin {
            block: block.clone(),
            dut,
            ports,
            model,
            tally: Tally::default(),
            queue: VecDeque::new(),
            pending_read: false,
            counts: FifoCounts::default(),
            order_errors: 0,
            first_order_error: None,
        };
        t.reset()?;
        Ok(t)
    }

    /// Both resets asserted together for two edges of each clock, then released.
    fn reset(&mut self) -> Result<(), SimError> {
        let (p, d) = (&self.ports, &mut self.dut);
        let on = u64::from(!p.active_low);
        d.set_port_u64(p.wr_rst, on)?;
        d.set_port_u64(p.rd_rst, on)?;
        d.set_port_u64(p.wr_en, 0)?;
        d.set_port_u64(p.rd_en, 0)?;
        d.eval();
        for _ in 0..2 {
            for clk in [p.wr_clk, p.rd_clk] {
                d.clock_edge(clk, true)?;
                d.clock_edge(clk, false)?;
            }
        }
        d.set_port_u64(p.wr_rst, 1 - on)?;
        d.set_port_u64(p.rd_rst, 1 - on)?;
        d.eval();
        self.model.wr_reset();
        self.model.rd_reset();
        Ok(())
    }

    /// One edge of the schedule; at a rising edge the domain's enable is `en` (the write data is
    /// drawn from `rng`). Every output is compared after the edge.
    pub fn edge(&mut self, e: Edge, en: bool, rng: &mut TestRng) -> Result<(), SimError> {
        let clk = if e.clock == WR { self.ports.wr_clk } else { self.ports.rd_clk };
        if !e.rising {
            return self.dut.clock_edge(clk, false);
        }
        let (p, width) = (&self.ports, self.block.width as usize);
        if e.clock == WR {
            let data = rng.bits(width);
            self.dut.set_port_u64(p.wr_en, u64::from(en))?;
            self.dut.set_port(p.wr_data, &data)?;
            let full = self.dut.get_port_u64(p.wr_full)? == 1;
            if en && full {
                self.counts.refused += 1;
            } else if en {
                self.queue.push_back(data.clone());
                self.counts.writes += 1;
            }
            self.model.wr_edge(en, &data.to_bytes());
            self.counts.wr_edges += 1;
        } else {
            self.dut.set_port_u64(p.rd_en, u64::from(en))?;
            let empty = self.dut.get_port_u64(p.rd_empty)? == 1;
            if en && empty {
                self.counts.starved += 1;
            } else if en {
                // First word fall through: the word is on rd_data before the edge that takes it.
                let word = if self.block.registered_output { None } else { Some(self.dut.get_port(p.rd_data)?) };
                self.read(word);
            }
            self.model.rd_edge(en);
            self.counts.rd_edges += 1;
        }
        self.dut.clock_edge(clk, true)?;
        if std::mem::take(&mut self.pending_read) {
            let word = self.dut.get_port(self.ports.rd_data)?;
            self.check_order(word);
        }
        self.compare()
    }

    /// The RTL took a word: FWFT words are checked at once, registered ones after the edge.
    fn read(&mut self, word: Option<Bits>) {
        self.counts.reads += 1;
        match word {
            Some(w) => self.check_order(w),
            None => self.pending_read = true,
        }
    }

    fn check_order(&mut self, word: Bits) {
        let expected = self.queue.pop_front();
        if expected.as_ref() != Some(&word) {
            self.order_errors += 1;
            if self.first_order_error.is_none() {
                self.first_order_error = Some(format!("read {} of {}: got {word:?}, expected {expected:?}", self.counts.reads, self.block.name));
            }
        }
    }

    fn compare(&mut self) -> Result<(), SimError> {
        let (p, d, m, t) = (&self.ports, &self.dut, &self.model, &mut self.tally);
        let c = self.counts.wr_edges + self.counts.rd_edges;
        t.compare(c, "wr_full", m.wr_full(), d.get_port_u64(p.wr_full)? == 1);
        t.compare(c, "wr_level", u64::from(m.wr_level()), d.get_port_u64(p.wr_level)?);
        t.compare(c, "rd_empty", m.rd_empty(), d.get_port_u64(p.rd_empty)? == 1);
        t.compare(c, "rd_level", u64::from(m.rd_level()), d.get_port_u64(p.rd_level)?);
        if let Some(v) = p.rd_valid {
            t.compare(c, "rd_valid", m.rd_valid(), d.get_port_u64(v)? == 1);
        }
        if self.block.registered_output || !m.rd_empty() {
            t.compare_bits(c, "rd_data", &Bits::from_bytes_width(m.rd_data(), self.block.width as usize), &d.get_port(p.rd_data)?);
        }
        t.vectors += 1;
        Ok(())
    }

    /// Runs `edges` edges of `clocks` (write clock first) with enables drawn from `rng`: the
    /// write and read probabilities change every few hundred edges (bursts that fill the FIFO,
    /// bursts that drain it, balanced stretches), then writes stop and the FIFO is drained.
    pub fn run(&mut self, clocks: [ClockSpec; 2], edges: u64, rng: &mut TestRng) -> Result<(), SimError> {
        let mut schedule = Edges::new(&clocks, TestRng::from_seed(rng.range(0, u64::MAX - 1)));
        let (mut p_wr, mut p_rd) = (0.5, 0.5);
        for i in 0..edges {
            if i % 400 == 0 {
                (p_wr, p_rd) = [(0.9, 0.2), (0.2, 0.9), (0.5, 0.5), (1.0, 1.0), (0.7, 0.7)][rng.range(0, 4) as usize];
            }
            let e = schedule.next().expect("clocks never stop");
            let en = rng.chance(if e.clock == WR { p_wr } else { p_rd });
            self.edge(e, en, rng)?;
        }
        // Drain: no writes, reads every read edge, until everything is out and both sides agree.
        let mut quiet = 0;
        while quiet < 8 * (self.block.sync_stages as u64 + 2) {
            let e = schedule.next().expect("clocks never stop");
            self.edge(e, e.clock == RD, rng)?;
            quiet = if self.queue.is_empty() { quiet + 1 } else { 0 };
        }
        // Both clocks low, so the next schedule's first rising edge is an edge for the RTL too.
        self.dut.clock_edge(self.ports.wr_clk, false)?;
        self.dut.clock_edge(self.ports.rd_clk, false)
    }

    /// Edges with both flags settled: `n` of each clock alternately, enables low.
    pub fn idle(&mut self, n: u32, rng: &mut TestRng) -> Result<(), SimError> {
        for _ in 0..n {
            for clock in [WR, RD] {
                self.edge(Edge { time_fs: 0, clock, rising: true }, false, rng)?;
                self.edge(Edge { time_fs: 0, clock, rising: false }, false, rng)?;
            }
        }
        Ok(())
    }

    /// An output of the RTL as it stands (for measurements that do not go through the model).
    pub fn rtl(&self, port: &str) -> Result<u64, SimError> {
        self.dut.get_u64(port)
    }

    pub fn model(&self) -> &AsyncFifoModel {
        &self.model
    }
    pub fn tally(&self) -> &Tally {
        &self.tally
    }
    /// Words accepted and not (yet) read back.
    pub fn outstanding(&self) -> usize {
        self.queue.len()
    }

    /// `Ok` while the model matched every output and the scoreboard every word.
    pub fn check(&self) -> Result<(), SimError> {
        if let Some(m) = &self.tally.first {
            let wave = self.dut.wave_path().map(|p| format!("; waveform {}", p.display())).unwrap_or_default();
            return Err(SimError::Cosim { summary: format!("{}: {} mismatches, first at edge {m}{wave}", self.block.name, self.tally.mismatches) });
        }
        if let Some(e) = &self.first_order_error {
            return Err(SimError::Cosim { summary: format!("{}: {} words lost, duplicated, reordered or changed; first: {e}", self.block.name, self.order_errors) });
        }
        Ok(())
    }

    pub fn into_tally(self) -> Tally {
        let cycles = self.counts.wr_edges + self.counts.rd_edges;
        let mut t = self.tally;
        t.cycles = cycles;
        if self.order_errors > 0 {
            t.compare(cycles, "word order (scoreboard)", 0, self.order_errors);
        }
        t
    }
}

/// The clock pairs (write, read) every run is checked at: 1:1 with the read clock 200 ppm slower
/// and faster, write 3.7 times slower than read, write 4 times faster; each at a random phase.
pub fn clock_pairs(rng: &mut TestRng) -> Vec<(&'static str, [ClockSpec; 2])> {
    let pair = |w: ClockSpec, r: ClockSpec, rng: &mut TestRng| [w.random_phase(rng), r.random_phase(rng)];
    vec![
        ("1:1, read +200 ppm", pair(ClockSpec::mhz(250.0, 0.0, 0), ClockSpec::mhz(250.0, 200.0, 0), rng)),
        ("1:1, read -200 ppm", pair(ClockSpec::mhz(250.0, 0.0, 0), ClockSpec::mhz(250.0, -200.0, 0), rng)),
        ("1:3.7", pair(ClockSpec::mhz(100.0, 0.0, 0), ClockSpec::mhz(370.0, 0.0, 0), rng)),
        ("4:1", pair(ClockSpec::mhz(400.0, 0.0, 0), ClockSpec::mhz(100.0, 0.0, 0), rng)),
    ]
}

pub fn async_fifo(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = &super::kind_params::<AsyncFifoParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    let mut t = FifoTwin::new(b, Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?)?;
    for (_, clocks) in clock_pairs(rng) {
        // Each pair gets a quarter of the cycles: rising edges, so twice as many edges.
        t.run(clocks, opts.vectors.div_ceil(2).max(200), rng)?;
    }
    Ok(t.into_tally())
}
