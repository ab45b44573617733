//! Every `replay_buffer` module of the default design in Verilator against the cycle-accurate
//! model: every output compared every cycle (out_data included), under directed corner cases
//! (fill to full and push while full, wrap of the sequence numbers, ack of everything, replay of
//! the oldest entry, replay while the output is stalled, stale and future acks/replays, ack and
//! replay in the same cycle) and random push/ack/replay/backpressure traffic. Independently of
//! the model, a go-back-N scoreboard checks that every entry on the output is the data pushed
//! with its sequence number and that entries come out in order between replays.

mod common;

use common::{bench, scaled, TestResult};
use rtl_gen::blocks::replay_buffer::model::{RbInputs, ReplayBufferModel};
use rtl_gen::blocks::replay_buffer::ReplayBufferBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::replay::ReplayTwin;
use rtl_gen_sim::{Bench, TestRng};
use std::collections::HashMap;

const RANDOM_CYCLES: usize = 100_000;

/// The library's lockstep of RTL and model (every output compared every cycle), plus the
/// independent go-back-N checks, which do not trust the model.
struct Lockstep {
    twin: ReplayTwin,
    seed: u64,
    /// Data pushed with each sequence number (the latest push of that number).
    pushed: HashMap<u32, Vec<u8>>,
    /// The next sequence number the output must show unless a replay intervened.
    next_out: Option<u32>,
    outs: u64,
    replays: u64,
    acks: u64,
    pushes: u64,
    /// The ack and replay presented last cycle (valid, seq): the buffer judges them this cycle.
    pending: [(bool, u32); 2],
}

impl Lockstep {
    fn new(bench: &Bench, b: &ReplayBufferBlock, test: &str, seed: u64) -> Result<Lockstep, Box<dyn std::error::Error>> {
        let twin = ReplayTwin::new(b, bench.dut(&b.name, Role::Replay, test)?)?;
        Ok(Lockstep::around(twin, seed))
    }

    fn around(twin: ReplayTwin, seed: u64) -> Lockstep {
        Lockstep { twin, seed, pushed: HashMap::new(), next_out: None, outs: 0, replays: 0, acks: 0, pushes: 0, pending: [(false, 0); 2] }
    }

    fn b(&self) -> &ReplayBufferBlock {
        self.twin.block()
    }

    fn model(&self) -> &ReplayBufferModel {
        self.twin.model()
    }

    fn mask(&self) -> u32 {
        (1u32 << self.b().seq_bits) - 1
    }

    /// One cycle: drive `inp`, compare every output (failing at the first mismatch), check
    /// go-back-N order, clock both.
    fn step(&mut self, inp: &RbInputs) -> TestResult {
        let cycle = self.twin.cycle();
        let shown = self.twin.step(inp)?;
        self.twin.check().map_err(|e| format!("{e} (seed {:#x})", self.seed))?;
        let name = self.b().name.clone();
        let mask = self.mask();

        // Independent checks: data integrity and in-order output.
        let o = &shown.outputs;
        if o.out_valid {
            let want = self.pushed.get(&o.out_seq).unwrap_or_else(|| panic!("{name}: cycle {cycle}: seq {} on the output was never pushed", o.out_seq));
            assert_eq!(&shown.out_data, want, "{name}: cycle {cycle}: out_data of seq {}", o.out_seq);
            if let Some(n) = self.next_out {
                assert_eq!(o.out_seq, n, "{name}: cycle {cycle}: output out of order");
            }
            assert!((o.out_seq.wrapping_sub(o.head) & mask) < o.count, "{name}: cycle {cycle}: seq {} on the output is not held", o.out_seq);
        }
        if inp.push_valid && o.push_ready {
            self.pushed.insert(o.push_seq, inp.push_data.clone());
            self.pushes += 1;
        }
        // Acks and replays are judged the cycle after they are presented, against its window.
        let [(ack_valid, ack_seq), (replay_valid, replay_seq)] = self.pending;
        self.pending = [(inp.ack_valid, inp.ack_seq), (inp.replay_valid, inp.replay_seq)];
        let ack_taken = ack_valid && (ack_seq.wrapping_sub(o.head) & mask) < o.count;
        let replay_taken = replay_valid && (replay_seq.wrapping_sub(o.head) & mask) <= o.count;
        self.acks += ack_taken as u64;
        self.replays += replay_taken as u64;
        if o.out_valid && inp.out_ready && !replay_taken {
            self.outs += 1;
            self.next_out = Some((o.out_seq + 1) & mask);
        }
        if replay_taken || ack_taken {
            // The pointer moves; its next value is the model's business (compared above), the
            // order check resumes from there.
            self.next_out = None;
        }
        if self.next_out.is_none() {
            let o = self.model().outputs();
            if o.out_valid {
                self.next_out = Some(o.out_seq);
            }
        }
        Ok(())
    }

    fn data(&self, rng: &mut TestRng) -> Vec<u8> {
        rng.bits(self.b().entry_bits as usize).to_bytes()
    }

    /// Cycles compared, all of them equal.
    fn finish(self) -> Result<u64, Box<dyn std::error::Error>> {
        self.twin.check()?;
        Ok(self.twin.cycle())
    }
}

fn idle() -> RbInputs {
    RbInputs::default()
}

/// Directed corner cases, every cycle compared with the model.
fn corner_cases(bench: &Bench, b: &ReplayBufferBlock) -> TestResult {
    let test = format!("replay_corners_{}", b.name);
    let mut rng = TestRng::for_test(&test)?;
    let mut t = Lockstep::new(bench, b, &test, rng.seed())?;
    let depth = b.depth;
    let mask = t.mask();

    // Fill to full with the output stalled; a push while full is refused.
    for _ in 0..depth + 3 {
        let inp = RbInputs { push_valid: true, push_data: t.data(&mut rng), ..idle() };
        t.step(&inp)?;
    }
    let o = t.model().outputs();
    assert!(o.full && !o.push_ready && o.count == depth, "{}: full after {depth} pushes: {o:?}", b.name);
    assert!(o.out_valid && o.out_seq == 0, "{}: oldest entry presented while stalled", b.name);
    // Replay while the output is stalled (to the oldest, then to the middle, then to the tail).
    for target in [0, depth / 2, depth] {
        t.step(&RbInputs { replay_valid: true, replay_seq: target, ..idle() })?;
        t.step(&idle())?;
        let o = t.model().outputs();
        assert_eq!((o.out_seq, o.out_valid), (target & mask, false), "{}: replay to {target}: judged, the RAM reads it", b.name);
        t.step(&idle())?;
        assert!(!t.model().outputs().out_valid, "{}: replay to {target}: in the RAM's read register", b.name);
        t.step(&idle())?;
        assert_eq!(t.model().outputs().out_valid, target != depth, "{}: replay to the tail leaves nothing to send", b.name);
    }
    // Stream everything out, replay the oldest and stream again.
    for _ in 0..2 {
        t.step(&RbInputs { replay_valid: true, replay_seq: 0, ..idle() })?;
        for _ in 0..depth + 4 {
            t.step(&RbInputs { out_ready: true, ..idle() })?;
        }
        assert!(!t.model().outputs().out_valid, "{}: all sent", b.name);
    }
    // Stale, future and out-of-window commands are ignored.
    t.step(&RbInputs { ack_valid: true, ack_seq: depth, ..idle() })?;
    t.step(&RbInputs { replay_valid: true, replay_seq: (depth + 1) & mask, ..idle() })?;
    t.step(&idle())?;
    assert_eq!(t.model().outputs().count, depth, "{}: out-of-window ack ignored", b.name);
    // Ack in the same cycle as a replay to an entry the ack frees: the pointer goes to the new head.
    t.step(&RbInputs { ack_valid: true, ack_seq: 2, replay_valid: true, replay_seq: 1, ..idle() })?;
    t.step(&idle())?;
    assert_eq!(t.model().outputs().out_seq, 3, "{}: replay into freed entries lands on the new head", b.name);
    if depth > 7 {
        // The replay target is the very entry the ack names: freed, so the new head again.
        t.step(&RbInputs { ack_valid: true, ack_seq: 4, replay_valid: true, replay_seq: 4, ..idle() })?;
        t.step(&idle())?;
        assert_eq!(t.model().outputs().out_seq, 5, "{}: replay to the acked entry lands on the new head", b.name);
        // An ack naming the entry on the output, judged while it is taken: the pointer moves on to the new head.
        t.step(&idle())?; // the RAM reads entry 5 into its read register
        t.step(&RbInputs { ack_valid: true, ack_seq: 5, ..idle() })?;
        assert!(t.model().outputs().out_valid, "{}: entry 5 presented", b.name);
        t.step(&RbInputs { out_ready: true, ..idle() })?;
        let o = t.model().outputs();
        assert!(o.out_seq == 6 && t.model().head() == 6, "{}: ack of the entry being taken: {o:?}", b.name);
    }
    // Ack of everything.
    t.step(&RbInputs { ack_valid: true, ack_seq: depth - 1, ..idle() })?;
    t.step(&idle())?;
    let o = t.model().outputs();
    assert!(o.count == 0 && !o.full && o.push_ready, "{}: empty after acking everything: {o:?}", b.name);
    t.step(&RbInputs { ack_valid: true, ack_seq: depth - 1, ..idle() })?;
    t.step(&idle())?;
    assert_eq!(t.model().outputs().count, 0, "{}: a second ack of everything is stale", b.name);

    // Wrap the sequence numbers three times: streaming with acks trailing a few entries behind.
    let laps = 3 * (mask as u64 + 1);
    let mut sent = 0u64;
    while sent < laps {
        let o = t.model().outputs();
        let ack = o.count > 3;
        let ack_seq = (t.model().head() + o.count - 3) & mask;
        let inp = RbInputs { push_valid: true, push_data: t.data(&mut rng), out_ready: true, ack_valid: ack, ack_seq, ..idle() };
        sent += (o.out_valid) as u64;
        t.step(&inp)?;
    }
    assert!(t.model().outputs().push_seq != 0 || t.pushes > laps, "{}: sequence numbers wrapped", b.name);
    // Replay of the oldest after the wrap (once the last ack is judged), and ack of everything again.
    t.step(&idle())?;
    let head = t.model().head();
    t.step(&RbInputs { replay_valid: true, replay_seq: head, ..idle() })?;
    t.step(&idle())?;
    assert_eq!(t.model().outputs().out_seq, head, "{}: replay of the oldest after wrapping", b.name);
    let last = (t.model().outputs().push_seq + mask) & mask;
    t.step(&RbInputs { ack_valid: true, ack_seq: last, ..idle() })?;
    t.step(&idle())?;
    assert_eq!(t.model().outputs().count, 0, "{}: ack of everything after wrapping", b.name);
    // Push into the empty buffer with the output waiting: out_valid three cycles later.
    let o0 = t.model().outputs();
    t.step(&RbInputs { push_valid: true, push_data: t.data(&mut rng), out_ready: true, ..idle() })?;
    assert!(!t.model().outputs().out_valid, "{}: the RAM is not read for the entry written at the same edge", b.name);
    t.step(&RbInputs { out_ready: true, ..idle() })?;
    assert!(!t.model().outputs().out_valid, "{}: the entry is in the RAM's read register", b.name);
    t.step(&RbInputs { out_ready: true, ..idle() })?;
    let o = t.model().outputs();
    assert!(o.out_valid && o.out_seq == o0.push_seq, "{}: pushed entry on the output after 3 cycles", b.name);

    let n = t.finish()?;
    assert!(n > 100, "{n} cycles compared");
    Ok(())
}

/// Random traffic: pushes, acks (mostly in window, some stale or future), replays (mostly to a
/// held entry), output backpressure, in phases of different densities.
fn random_traffic(bench: &Bench, b: &ReplayBufferBlock) -> TestResult {
    let test = format!("replay_random_{}", b.name);
    let mut rng = TestRng::for_test(&test)?;
    let mut t = Lockstep::new(bench, b, &test, rng.seed())?;
    let mask = t.mask() as u64;
    let cycles = scaled(RANDOM_CYCLES);
    let mut full_cycles = 0u64;
    let mut stalled_replays = 0u64;
    for c in 0..cycles {
        // Phases of 2000 cycles: heavy pushing, heavy draining, balanced.
        let (p_push, p_ready, p_ack, p_replay) = match (c / 2000) % 3 {
            0 => (0.9, 0.5, 0.1, 0.01),
            1 => (0.3, 0.9, 0.3, 0.02),
            _ => (0.7, 0.7, 0.2, 0.05),
        };
        let o = t.model().outputs();
        let head = t.model().head() as u64;
        let count = o.count as u64;
        let pick = |rng: &mut TestRng, extra: u64| -> u32 {
            // Usually a held sequence number, sometimes just outside the window.
            if rng.chance(0.9) || count == 0 {
                ((head + rng.range(0, count.max(1) - 1 + extra)) & mask) as u32
            } else {
                ((head + count + 1 + rng.range(0, mask / 2)) & mask) as u32
            }
        };
        let inp = RbInputs {
            push_valid: rng.chance(p_push),
            push_data: t.data(&mut rng),
            ack_valid: rng.chance(p_ack),
            ack_seq: pick(&mut rng, 0),
            replay_valid: rng.chance(p_replay),
            replay_seq: pick(&mut rng, 1),
            out_ready: rng.chance(p_ready),
        };
        full_cycles += o.full as u64;
        stalled_replays += (inp.replay_valid && o.out_valid && !inp.out_ready) as u64;
        t.step(&inp)?;
    }
    let (outs, replays, acks, pushes) = (t.outs, t.replays, t.acks, t.pushes);
    let n = t.finish()?;
    assert_eq!(n, cycles as u64, "every cycle compared");
    // The stimulus must have reached the interesting states.
    assert!(full_cycles > 100 && stalled_replays > 50, "{}: full {full_cycles} cycles, {stalled_replays} replays while stalled", b.name);
    assert!(outs > cycles as u64 / 4 && replays > 100 && acks > 1000 && pushes > cycles as u64 / 4, "{}: outs {outs} replays {replays} acks {acks} pushes {pushes}", b.name);
    Ok(())
}

#[test]
fn replay_buffer_corner_cases_match_the_model() -> TestResult {
    let bench = bench();
    let blocks = bench.blocks::<ReplayBufferBlock>();
    assert!(blocks.len() >= 2, "the default design has its replay buffers");
    for b in blocks {
        corner_cases(&bench, b)?;
    }
    Ok(())
}

#[test]
fn replay_buffer_random_traffic_matches_the_model() -> TestResult {
    let bench = bench();
    for b in bench.blocks::<ReplayBufferBlock>() {
        random_traffic(&bench, b)?;
    }
    Ok(())
}

/// The comparison can fail: a model of a buffer one entry deeper than the RTL disagrees on
/// `push_ready` (and `full`) as soon as the RTL fills up.
#[test]
fn a_wrong_depth_is_caught() -> TestResult {
    let bench = bench();
    let b = bench.block::<ReplayBufferBlock>("replay_buf_np")?;
    let deeper = ReplayBufferModel::new(b.entry_bits, b.seq_bits, b.depth + 1);
    let twin = ReplayTwin::with_model(b, bench.dut(&b.name, Role::Replay, "replay_wrong_depth")?, deeper)?;
    let mut t = Lockstep::around(twin, 1);
    let mut rng = TestRng::from_seed(1);
    let mut failure = None;
    for _ in 0..b.depth + 2 {
        let inp = RbInputs { push_valid: true, push_data: t.data(&mut rng), ..idle() };
        if let Err(e) = t.step(&inp) {
            failure = Some(e.to_string());
            break;
        }
    }
    let msg = failure.expect("a model of the wrong depth was accepted");
    let first = format!("2 mismatches, first at cycle {} on port `push_ready`: expected true, got false", b.depth);
    assert!(msg.contains(&first), "{msg}");
    Ok(())
}
