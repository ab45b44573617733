//! SUE packer (`sue_packer`) in Verilator against the cycle-accurate model, every output every
//! cycle, plus an independent scoreboard (exactly once, in order per {destination, VC},
//! bit-exact, no PDU over max_pack_bytes): random commands with bad sideband, err and framing
//! faults under backpressure, VC pause and dest_ok gating; the seed's Fig. 18 sequence (§4.4);
//! the no-delay rule (a lone command leaves at T+3); back-to-back PDUs; the packing limit; a
//! second configuration (one-beat commands, three VCs, three XPUs, hold_cycles); and a broken
//! model that the comparison must catch.

mod common;

use common::{bench, scaled, TestResult};
use rtl_gen::blocks::sue_packer::model::{PackerModel, PkInputs};
use rtl_gen::blocks::sue_packer::SuePackerBlock;
use rtl_gen_sim::cosim::sue::{random_traffic, PackerLockstep};
use rtl_gen_sim::{Bench, TestRng};

const RANDOM_CYCLES: usize = 30_000;

fn open() -> PkInputs {
    PkInputs {
        pdu_ready: true,
        ..Default::default()
    }
}

fn stalled() -> PkInputs {
    PkInputs::default()
}

fn check(t: &PackerLockstep) {
    assert_eq!(
        t.tally.mismatches, 0,
        "{}: first mismatch {:?}",
        t.b.name, t.tally.first
    );
}

/// Offer `cmds` (dest, vc) with the output stalled until each is committed.
fn feed(t: &mut PackerLockstep, rng: &mut TestRng, cmds: &[(u32, u32)]) -> TestResult {
    for (i, &(d, v)) in cmds.iter().enumerate() {
        let c = t.command(rng, i as u32, d, v);
        t.pending.push_back(c);
    }
    while !t.pending.is_empty() {
        t.step(stalled())?;
    }
    Ok(())
}

#[test]
fn sue_packer_random_traffic_matches_the_model() -> TestResult {
    let bench = bench();
    let b = bench.block::<SuePackerBlock>("sue_pk")?;
    let mut rng = TestRng::for_test("sue_packer_random")?;
    let mut t = PackerLockstep::new(&bench, b, "sue_packer_random")?;
    random_traffic(&mut t, &mut rng, scaled(RANDOM_CYCLES) as u64)?;
    check(&t);
    let max = b.common.max_cmds();
    let packed = t.pdus.iter().filter(|p| p.ncmds > 1).count();
    let full = t.pdus.iter().filter(|p| p.ncmds == max).count();
    let cmds: u32 = t.pdus.iter().map(|p| p.ncmds).sum();
    println!("sue_pk: {} cycles, {} PDUs, {cmds} commands, {packed} packed, {full} full ({max} commands), seed {:#x}", t.cycle, t.pdus.len(), rng.seed());
    assert!(
        t.pdus.len() > 400 && packed > 150 && full > 50,
        "stimulus reached packing and the limit"
    );
    let k = t.model.outputs(&open()).counters;
    assert!(
        k.cmd_drop_dest > 0 && k.cmd_drop_vc > 0 && k.cmd_drop_err > 0 && k.cmd_drop_framing > 0,
        "every drop class exercised: {k:?}"
    );
    Ok(())
}

/// Seed §4.4, Fig. 18: A→d1, B→d2, C→d3, D→d4 queued, E→d3 before d3 is served: [A], [B],
/// [C, E], [D]. Here d1..d4 are xpuids 0..3 on VC 0, the output stalled while they arrive.
#[test]
fn sue_packer_fig18_sequence() -> TestResult {
    let bench = bench();
    let b = bench.block::<SuePackerBlock>("sue_pk")?;
    let mut rng = TestRng::from_seed(18);
    let mut t = PackerLockstep::new(&bench, b, "sue_packer_fig18")?;
    feed(&mut t, &mut rng, &[(0, 0), (1, 0), (2, 0), (3, 0), (2, 0)])?;
    for _ in 0..40 {
        t.step(open())?;
    }
    check(&t);
    let got: Vec<(u32, u32)> = t.pdus.iter().map(|p| (p.dest, p.ncmds)).collect();
    assert_eq!(
        got,
        vec![(0, 1), (1, 1), (2, 2), (3, 1)],
        "Fig. 18: [A], [B], [C, E], [D]"
    );
    // C and E in arrival order inside the third PDU (sequence tags 2 and 4).
    let cb = b.common.cmd_bytes as usize;
    let tags: Vec<u8> = t.pdus[2].bytes.chunks(cb).map(|c| c[0]).collect();
    assert_eq!(tags, vec![2, 4]);
    Ok(())
}

/// No delay for packing (seed §4.4): a lone command committed in cycle T is on the output in
/// T+3; commands to several queues leave as back-to-back PDUs with no idle cycle; 16 commands
/// to one queue leave as PDUs of at most max_cmds.
#[test]
fn sue_packer_no_delay_back_to_back_and_limit() -> TestResult {
    let bench = bench();
    let b = bench.block::<SuePackerBlock>("sue_pk")?;
    let c = b.common.clone();
    let mut rng = TestRng::from_seed(44);
    let mut t = PackerLockstep::new(&bench, b, "sue_packer_timing")?;
    // Lone command: beats offered from cycle 0, tlast taken in cycle cmd_beats - 1 = T.
    let cmd = t.command(&mut rng, 0, 1, 1);
    t.pending.push_back(cmd);
    let mut first_valid = None;
    for cyc in 0..10u64 {
        if t.model.outputs(&open()).pdu_valid && first_valid.is_none() {
            first_valid = Some(cyc);
        }
        t.step(open())?;
    }
    assert_eq!(first_valid, Some(u64::from(c.cmd_beats()) - 1 + 3), "T+3");
    // Back to back: fill four queues while stalled, then count idle cycles until all is sent.
    feed(
        &mut t,
        &mut rng,
        &[(0, 0), (1, 0), (2, 1), (3, 1), (0, 1), (0, 1), (2, 0)],
    )?;
    let before = t.pdus.len();
    let mut beats = 0;
    while t.model.outputs(&open()).pdu_valid {
        beats += 1;
        t.step(open())?;
    }
    assert_eq!(
        beats as u32,
        7 * c.cmd_beats(),
        "7 commands leave in 7 x cmd_beats consecutive beats"
    );
    assert_eq!(t.pdus.len() - before, 6, "six PDUs, (0,1) packed");
    // Packing limit: queue_depth commands to one queue with the output stalled.
    let n = b.packer.queue_depth;
    let cmds: Vec<(u32, u32)> = (0..n).map(|_| (2, 0)).collect();
    let before = t.pdus.len();
    feed(&mut t, &mut rng, &cmds)?;
    for _ in 0..(4 * n * c.cmd_beats()) {
        t.step(open())?;
    }
    check(&t);
    let sizes: Vec<u32> = t.pdus[before..].iter().map(|p| p.ncmds).collect();
    let m = c.max_cmds();
    // The first command is taken alone as soon as it commits (never wait); the rest pack.
    let mut want = vec![1];
    let mut left = n - 1;
    while left > 0 {
        want.push(left.min(m));
        left -= left.min(m);
    }
    assert_eq!(sizes, want);
    Ok(())
}

/// Pause and dest_ok gate the scheduler: nothing of a paused VC or a blocked destination starts.
#[test]
fn sue_packer_pause_and_dest_gating() -> TestResult {
    let bench = bench();
    let b = bench.block::<SuePackerBlock>("sue_pk")?;
    let mut rng = TestRng::from_seed(7);
    let mut t = PackerLockstep::new(&bench, b, "sue_packer_gating")?;
    let mut dest_ok = vec![true; 4];
    dest_ok[2] = false;
    for (i, (d, v)) in [(0, 1), (2, 0), (1, 0)].into_iter().enumerate() {
        let c = t.command(&mut rng, i as u32, d, v);
        t.pending.push_back(c);
    }
    for _ in 0..30 {
        t.step(PkInputs {
            vc_pause: 0b10,
            dest_ok: dest_ok.clone(),
            pdu_ready: true,
            ..Default::default()
        })?;
    }
    assert_eq!(
        t.pdus.iter().map(|p| (p.dest, p.vc)).collect::<Vec<_>>(),
        vec![(1, 0)],
        "only the ungated queue"
    );
    for _ in 0..30 {
        t.step(open())?;
    }
    assert_eq!(t.pdus.len(), 3);
    check(&t);
    Ok(())
}

const SECOND: &str = r#"
[design]
name = "suepk2"
reset = "async_low"

[[blocks]]
kind = "sue_packer"
name = "pk1"
data_bytes = 32
cmd_bytes = 32
num_xpu = 3
num_vc = 3
max_pack_bytes = 128
queue_depth = 5
hold_cycles = 7
counter_bits = 12
"#;

/// One-beat commands, three VCs and XPUs (non-power-of-two queue count), queue_depth above
/// max_cmds, hold_cycles > 0 with flush, async reset: lockstep under random traffic.
#[test]
fn sue_packer_second_configuration_with_hold() -> TestResult {
    let bench = Bench::from_toml(SECOND, "suepk2.toml")?;
    let b = bench.block::<SuePackerBlock>("pk1")?;
    let mut rng = TestRng::for_test("sue_packer_second")?;
    let mut t = PackerLockstep::new(&bench, b, "sue_packer_second")?;
    random_traffic(&mut t, &mut rng, scaled(RANDOM_CYCLES / 2) as u64)?;
    check(&t);
    assert!(
        t.pdus.iter().any(|p| p.ncmds == 4) && t.pdus.len() > 300,
        "{} PDUs",
        t.pdus.len()
    );
    Ok(())
}

/// The comparison can fail: a model that packs one command less than the RTL disagrees on the
/// PDU's tuser (ncmds) once a queue holds more than that.
#[test]
fn a_broken_packer_model_is_caught() -> TestResult {
    let bench = bench();
    let b = bench.block::<SuePackerBlock>("sue_pk")?;
    let mut rng = TestRng::from_seed(3);
    let mut t = PackerLockstep::new(&bench, b, "sue_packer_broken")?;
    let mut wrong = b.clone();
    wrong.params.common.max_pack_bytes -= wrong.common.cmd_bytes;
    t.model = PackerModel::new(&wrong);
    let cmds: Vec<(u32, u32)> = (0..b.packer.queue_depth).map(|_| (1, 1)).collect();
    feed(&mut t, &mut rng, &cmds)?;
    for _ in 0..200 {
        t.step(open())?;
    }
    let first = t
        .tally
        .first
        .clone()
        .expect("a model packing fewer commands was accepted");
    assert!(
        t.tally.mismatches > 0 && first.port == "m_axis_pdu_tuser",
        "{first:?}"
    );
    Ok(())
}

/// The packing campaign (`rtl-gen sim sue`) on the RTL: at light load a lone command is not
/// delayed (p50 = the T+3 pipeline), at a load the link cannot carry unpacked, PDUs pack and
/// wire efficiency rises; no mismatch while measuring.
#[test]
fn sue_packing_rises_with_load() -> TestResult {
    use rtl_gen_sim::campaign::sue::packing::{run, table, PackingOptions};
    let bench = bench();
    let opts = PackingOptions {
        loads: vec![0.05, 0.9],
        cycles: 4000,
        ..Default::default()
    };
    let pts = run(&bench, &opts)?;
    print!("{}", table(&pts));
    assert!(pts.iter().all(|p| p.mismatches == 0));
    let (light, heavy) = (&pts[0], &pts[1]);
    assert_eq!(light.latency_p50, 3, "no delay for packing at light load");
    assert!(
        light.cmds_per_pdu < 1.1 && heavy.cmds_per_pdu > 4.0,
        "{} -> {}",
        light.cmds_per_pdu,
        heavy.cmds_per_pdu
    );
    assert!(heavy.wire_efficiency > 2.0 * light.wire_efficiency);
    Ok(())
}

/// Round robin across VCs, then across destinations within a VC (seed §4.2 step 3), over two
/// rounds of all eight queues; and q_space at full: a queue holding queue_depth commands
/// refuses the next first beat until a PDU has left the RAM.
#[test]
fn sue_packer_round_robin_order_and_full_queue() -> TestResult {
    let bench = bench();
    let b = bench.block::<SuePackerBlock>("sue_pk")?;
    let mut rng = TestRng::from_seed(9);
    let mut t = PackerLockstep::new(&bench, b, "sue_packer_rr")?;
    let mut cmds = Vec::new();
    for _ in 0..2 {
        for d in 0..4 {
            for v in 0..2 {
                cmds.push((d, v));
            }
        }
    }
    feed(&mut t, &mut rng, &cmds[..8])?;
    for _ in 0..40 {
        t.step(open())?;
    }
    feed(&mut t, &mut rng, &cmds[8..])?;
    for _ in 0..40 {
        t.step(open())?;
    }
    let order: Vec<(u32, u32)> = t.pdus.iter().map(|p| (p.dest, p.vc)).collect();
    let round = vec![
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
        (3, 0),
        (3, 1),
    ];
    // Second round: the pointers stand at VC 1 / destination 3, so VC 0 destination 0 is next.
    assert_eq!(
        order,
        [round.clone(), round].concat(),
        "VCs alternate, destinations ascend within a VC"
    );

    // Full queue (3, 1): queue_depth commands with the output stalled, then one more offered.
    let q = b.common.queue(3, 1) as usize;
    let full: Vec<(u32, u32)> = (0..b.packer.queue_depth).map(|_| (3, 1)).collect();
    feed(&mut t, &mut rng, &full)?;
    let extra = t.command(&mut rng, 99, 3, 1);
    t.pending.push_back(extra);
    for _ in 0..5 {
        let o = t.model.outputs(&stalled());
        assert!(!o.q_space[q], "queue full: {o:?}");
        t.step(stalled())?;
    }
    assert_eq!(t.pending.len(), 1, "the extra command waits");
    for _ in 0..200 {
        t.step(open())?;
    }
    assert!(
        t.pending.is_empty() && t.outstanding() == 0,
        "taken once a PDU left"
    );
    check(&t);
    Ok(())
}

/// hold_cycles (our extension) with and without flush, on the second configuration (one-beat
/// commands, hold_cycles = 7): a lone command waits 7 cycles for company; a flushed one leaves
/// at T+3 as with hold_cycles = 0 (seed §4.2 step 2, "transmit without waiting").
#[test]
fn sue_packer_hold_with_and_without_flush() -> TestResult {
    let bench = Bench::from_toml(SECOND, "suepk2.toml")?;
    let b = bench.block::<SuePackerBlock>("pk1")?;
    let mut rng = TestRng::from_seed(11);
    let mut t = PackerLockstep::new(&bench, b, "sue_packer_hold")?;
    let mut first_beat =
        |t: &mut PackerLockstep, flush: bool| -> Result<u64, Box<dyn std::error::Error>> {
            let mut c = t.command(&mut rng, 0, 2, 1);
            if flush {
                c.user |= 4;
            }
            t.pending.push_back(c);
            // One-beat command: tlast taken in the first cycle (T = 0 here).
            for cyc in 0..40u64 {
                if t.model.outputs(&open()).pdu_valid {
                    for _ in 0..5 {
                        t.step(open())?;
                    }
                    return Ok(cyc);
                }
                t.step(open())?;
            }
            Err("no PDU".into())
        };
    let flushed = first_beat(&mut t, true)?;
    let held = first_beat(&mut t, false)?;
    check(&t);
    assert_eq!(flushed, 3, "flush: T+3");
    assert_eq!(
        held,
        3 + u64::from(b.packer.hold_cycles),
        "a lone command waits hold_cycles"
    );
    Ok(())
}
