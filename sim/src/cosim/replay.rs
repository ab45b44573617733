//! Replay buffers (`replay_buffer`, and the one inside an endpoint), every output compared with
//! the cycle-accurate model every cycle: a directed prefix (fill to full with the output stalled
//! and push while full, ack of everything, replay from the oldest, stale and future acks and
//! replays), then random push / ack / replay / backpressure traffic.
//!
//! [`ReplayTwin`] is the one lockstep of a replay buffer: this driver (`rtl-gen sim cosim`) and
//! the test suite's corner-case and go-back-N benches both step it, so a port added to the block
//! is compared in one place.

use super::{Options, Tally};
use crate::{Bench, Bits, Dut, PortId, SimError, TestRng};
use rtl_gen::blocks::replay_buffer::model::{RbInputs, RbOutputs, ReplayBufferModel};
use rtl_gen::blocks::replay_buffer::{ReplayBufferBlock, ReplayBufferParams};
use rtl_gen::elab::ElabModule;

/// The buffer's ports, resolved once.
struct Ports {
    push_valid: PortId,
    push_data: PortId,
    ack_valid: PortId,
    ack_seq: PortId,
    replay_valid: PortId,
    replay_seq: PortId,
    out_ready: PortId,
    push_ready: PortId,
    push_seq: PortId,
    out_valid: PortId,
    out_seq: PortId,
    head: PortId,
    count: PortId,
    full: PortId,
    out_data: PortId,
}

impl Ports {
    fn of(dut: &Dut) -> Result<Ports, SimError> {
        Ok(Ports {
            push_valid: dut.port("push_valid")?,
            push_data: dut.port("push_data")?,
            ack_valid: dut.port("ack_valid")?,
            ack_seq: dut.port("ack_seq")?,
            replay_valid: dut.port("replay_valid")?,
            replay_seq: dut.port("replay_seq")?,
            out_ready: dut.port("out_ready")?,
            push_ready: dut.port("push_ready")?,
            push_seq: dut.port("push_seq")?,
            out_valid: dut.port("out_valid")?,
            out_seq: dut.port("out_seq")?,
            head: dut.port("head")?,
            count: dut.port("count")?,
            full: dut.port("full")?,
            out_data: dut.port("out_data")?,
        })
    }
}

/// The model's outputs during one cycle.
#[derive(Debug, Clone)]
pub struct Shown {
    pub outputs: RbOutputs,
    /// The entry on `out_data` (meaningful while `outputs.out_valid`).
    pub out_data: Vec<u8>,
}

/// A replay buffer's Verilated module and its model in lockstep: every output (out_data while
/// out_valid) compared every cycle, mismatches counted in a [`Tally`].
pub struct ReplayTwin {
    block: ReplayBufferBlock,
    dut: Dut,
    ports: Ports,
    model: ReplayBufferModel,
    tally: Tally,
    cycle: u64,
}

impl ReplayTwin {
    /// Resets `dut` (a build of `block`'s module) and a fresh model of `block`.
    pub fn new(block: &ReplayBufferBlock, dut: Dut) -> Result<ReplayTwin, SimError> {
        let mut model = block.model();
        model.reset();
        ReplayTwin::with_model(block, dut, model)
    }

    /// As [`ReplayTwin::new`] with a given (reset) model, e.g. a deliberately wrong one to show
    /// that the comparison fails.
    pub fn with_model(block: &ReplayBufferBlock, mut dut: Dut, model: ReplayBufferModel) -> Result<ReplayTwin, SimError> {
        let ports = Ports::of(&dut)?;
        dut.reset(2)?;
        Ok(ReplayTwin { block: block.clone(), dut, ports, model, tally: Tally::default(), cycle: 0 })
    }

    /// One clock cycle: drive `inp`, compare every output with the model's, clock both. Returns
    /// what the model showed during the cycle (what the RTL should have shown).
    pub fn step(&mut self, inp: &RbInputs) -> Result<Shown, SimError> {
        let (p, d, width) = (&self.ports, &mut self.dut, self.block.entry_bits as usize);
        d.set_port_u64(p.push_valid, inp.push_valid as u64)?;
        d.set_port(p.push_data, &Bits::from_bytes_width(&inp.push_data, width))?;
        d.set_port_u64(p.ack_valid, inp.ack_valid as u64)?;
        d.set_port_u64(p.ack_seq, inp.ack_seq as u64)?;
        d.set_port_u64(p.replay_valid, inp.replay_valid as u64)?;
        d.set_port_u64(p.replay_seq, inp.replay_seq as u64)?;
        d.set_port_u64(p.out_ready, inp.out_ready as u64)?;
        d.eval();
        let o = self.model.outputs();
        let (c, t) = (self.cycle, &mut self.tally);
        t.compare(c, "push_ready", o.push_ready, d.get_port_u64(p.push_ready)? == 1);
        t.compare(c, "push_seq", o.push_seq as u64, d.get_port_u64(p.push_seq)?);
        t.compare(c, "out_valid", o.out_valid, d.get_port_u64(p.out_valid)? == 1);
        t.compare(c, "out_seq", o.out_seq as u64, d.get_port_u64(p.out_seq)?);
        t.compare(c, "head", o.head as u64, d.get_port_u64(p.head)?);
        t.compare(c, "count", o.count as u64, d.get_port_u64(p.count)?);
        t.compare(c, "full", o.full, d.get_port_u64(p.full)? == 1);
        if o.out_valid {
            t.compare_bits(c, "out_data", &Bits::from_bytes_width(self.model.out_data(), width), &d.get_port(p.out_data)?);
        }
        t.vectors += 1;
        let shown = Shown { out_data: self.model.out_data().to_vec(), outputs: o };
        self.model.tick(inp);
        self.dut.tick();
        self.cycle += 1;
        Ok(shown)
    }

    /// `Ok` while every compared output matched; else the first mismatch (cycle, port, both
    /// values) and the waveform, if one is written.
    pub fn check(&self) -> Result<(), SimError> {
        match &self.tally.first {
            None => Ok(()),
            Some(m) => {
                let wave = self.dut.wave_path().map(|p| format!("; waveform {}", p.display())).unwrap_or_default();
                Err(SimError::Cosim { summary: format!("{}: {} mismatches, first at {m}{wave}", self.block.name, self.tally.mismatches) })
            }
        }
    }

    /// The model, as it stands after the cycles stepped so far.
    pub fn model(&self) -> &ReplayBufferModel {
        &self.model
    }

    /// The block under test.
    pub fn block(&self) -> &ReplayBufferBlock {
        &self.block
    }

    /// Cycles stepped.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The comparison counts, with the cycles stepped.
    pub fn into_tally(self) -> Tally {
        Tally { cycles: self.cycle, ..self.tally }
    }
}

pub fn replay_buffer(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = &super::kind_params::<ReplayBufferParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    let dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    let mut t = ReplayTwin::new(b, dut)?;
    let mask = (1u32 << b.seq_bits) - 1;
    let data = |rng: &mut TestRng| rng.bits(b.entry_bits as usize).to_bytes();
    // Fill to full with the output stalled, pushing past full.
    for _ in 0..b.depth + 3 {
        t.step(&RbInputs { push_valid: true, push_data: data(rng), ..Default::default() })?;
    }
    // Replay from the oldest while stalled, then drain half, then stale and future acks/replays.
    let head = t.model().head();
    t.step(&RbInputs { replay_valid: true, replay_seq: head, ..Default::default() })?;
    for _ in 0..b.depth / 2 {
        t.step(&RbInputs { out_ready: true, ..Default::default() })?;
    }
    t.step(&RbInputs { ack_valid: true, ack_seq: head.wrapping_sub(1) & mask, ..Default::default() })?;
    t.step(&RbInputs { replay_valid: true, replay_seq: (head + b.depth + 1) & mask, out_ready: true, ..Default::default() })?;
    // Ack and replay in the same cycle, then ack of everything.
    t.step(&RbInputs { ack_valid: true, ack_seq: head, replay_valid: true, replay_seq: (head + 1) & mask, out_ready: true, ..Default::default() })?;
    // An ack naming the replay target (the pointer would land on a freed entry: it goes to the new
    // head), then an ack naming the entry on the output while it is taken.
    let h = t.model().head();
    t.step(&RbInputs { ack_valid: true, ack_seq: (h + 1) & mask, replay_valid: true, replay_seq: (h + 1) & mask, ..Default::default() })?;
    t.step(&RbInputs { out_ready: true, ..Default::default() })?;
    let on_output = t.model().outputs().out_seq;
    t.step(&RbInputs { ack_valid: true, ack_seq: on_output, out_ready: true, ..Default::default() })?;
    let last = t.model().head().wrapping_add(t.model().count()).wrapping_sub(1) & mask;
    t.step(&RbInputs { ack_valid: true, ack_seq: last, out_ready: true, ..Default::default() })?;
    // Random traffic: acks and replays near the held window, sometimes outside it.
    for _ in 0..opts.vectors {
        let head = t.model().head();
        let count = t.model().count().max(1);
        let near = |rng: &mut TestRng| (head + rng.range(0, count as u64 + 1) as u32) & mask;
        let inp = RbInputs {
            push_valid: rng.chance(0.6),
            push_data: data(rng),
            ack_valid: rng.chance(0.1),
            ack_seq: if rng.chance(0.9) { near(rng) } else { rng.range(0, mask as u64) as u32 },
            replay_valid: rng.chance(0.03),
            replay_seq: if rng.chance(0.9) { near(rng) } else { rng.range(0, mask as u64) as u32 },
            out_ready: rng.chance(0.8),
        };
        t.step(&inp)?;
    }
    Ok(t.into_tally())
}
