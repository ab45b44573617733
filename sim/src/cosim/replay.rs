//! Replay buffers (`replay_buffer`, and the one inside an endpoint), every output compared with
//! the cycle-accurate model every cycle: a directed prefix (fill to full with the output stalled
//! and push while full, ack of everything, replay from the oldest, stale and future acks and
//! replays), then random push / ack / replay / backpressure traffic.

use super::{Options, Tally};
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::blocks::replay_buffer::model::{RbInputs, ReplayBufferModel};
use rtl_gen::blocks::replay_buffer::ReplayBufferBlock;
use rtl_gen::elab::ElabModule;

struct Lockstep<'a> {
    b: &'a ReplayBufferBlock,
    dut: Dut,
    model: ReplayBufferModel,
    tally: Tally,
    cycle: u64,
}

impl Lockstep<'_> {
    fn step(&mut self, inp: &RbInputs) -> Result<(), SimError> {
        let d = &mut self.dut;
        d.set_u64("push_valid", inp.push_valid as u64)?;
        d.set("push_data", &Bits::from_bytes_width(&inp.push_data, self.b.entry_bits as usize))?;
        d.set_u64("ack_valid", inp.ack_valid as u64)?;
        d.set_u64("ack_seq", inp.ack_seq as u64)?;
        d.set_u64("replay_valid", inp.replay_valid as u64)?;
        d.set_u64("replay_seq", inp.replay_seq as u64)?;
        d.set_u64("out_ready", inp.out_ready as u64)?;
        d.eval();
        let o = self.model.outputs();
        let c = self.cycle;
        let t = &mut self.tally;
        t.compare(c, "push_ready", o.push_ready as u64, d.get_u64("push_ready")?);
        t.compare(c, "push_seq", o.push_seq as u64, d.get_u64("push_seq")?);
        t.compare(c, "out_valid", o.out_valid as u64, d.get_u64("out_valid")?);
        t.compare(c, "out_seq", o.out_seq as u64, d.get_u64("out_seq")?);
        t.compare(c, "head", o.head as u64, d.get_u64("head")?);
        t.compare(c, "count", o.count as u64, d.get_u64("count")?);
        t.compare(c, "full", o.full as u64, d.get_u64("full")?);
        if o.out_valid {
            t.compare_bits(c, "out_data", &Bits::from_bytes_width(self.model.out_data(), self.b.entry_bits as usize), &d.get("out_data")?);
        }
        t.vectors += 1;
        self.model.tick(inp);
        self.dut.tick();
        self.cycle += 1;
        Ok(())
    }
}

pub fn replay_buffer(_bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let own = super::own_block(m)?;
    let b = super::downcast::<ReplayBufferBlock>(&own, m)?;
    let mut dut = Dut::build_named(_bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    dut.reset(2)?;
    let mut model = b.model();
    model.reset();
    let mut t = Lockstep { b, dut, model, tally: Tally::default(), cycle: 0 };
    let mask = (1u32 << b.seq_bits) - 1;
    let data = |rng: &mut TestRng| rng.bits(b.entry_bits as usize).to_bytes();
    // Fill to full with the output stalled, pushing past full.
    for _ in 0..b.depth + 3 {
        t.step(&RbInputs { push_valid: true, push_data: data(rng), ..Default::default() })?;
    }
    // Replay from the oldest while stalled, then drain half, then stale and future acks/replays.
    let head = t.model.head();
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
    let h = t.model.head();
    t.step(&RbInputs { ack_valid: true, ack_seq: (h + 1) & mask, replay_valid: true, replay_seq: (h + 1) & mask, ..Default::default() })?;
    t.step(&RbInputs { out_ready: true, ..Default::default() })?;
    let on_output = t.model.outputs().out_seq;
    t.step(&RbInputs { ack_valid: true, ack_seq: on_output, out_ready: true, ..Default::default() })?;
    let last = t.model.head().wrapping_add(t.model.count()).wrapping_sub(1) & mask;
    t.step(&RbInputs { ack_valid: true, ack_seq: last, out_ready: true, ..Default::default() })?;
    // Random traffic: acks and replays near the held window, sometimes outside it.
    for _ in 0..opts.vectors {
        let head = t.model.head();
        let count = t.model.count().max(1);
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
    let mut tally = t.tally;
    tally.cycles = t.cycle;
    Ok(tally)
}
