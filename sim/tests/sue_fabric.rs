//! SUE N-XPU fabric: `sue_endpoint`s with the default design's `sue_ep` fields (4 XPUs × 2 VCs,
//! 16-byte beats, 32-byte commands, PDUs up to 256 bytes; the XPU id on the `local_xpuid`
//! input, so every XPU is the ONE generated endpoint module, driven with its own id) through the
//! behavioural switch (per-class queues, PFC, loss, silent corruption, FCS-flagged frames,
//! reordering between classes), random commands to random {destination, VC}. Every XPU of the
//! 4-XPU fabric is Verilated RTL in lockstep with its model; the 8-XPU fabric runs one RTL XPU
//! among models (16 XPUs: `RTLGEN_LONG=1`). Scoreboards: exactly once, in order per
//! {src, dst, VC}, bit-exact; no PDU over max_pack_bytes; completions = commands accepted;
//! zero RTL/model mismatches. A switch bug that corrupts a payload and recomputes the R-CRC
//! (invisible to the transport) must be caught by the content scoreboard.

mod common;

use common::{bench, scaled, TestResult};
use rtl_gen::blocks::sue_endpoint::SueEndpointBlock;
use rtl_gen::blocks::sue_transport::model::k;
use rtl_gen_sim::campaign::sue::fabric::{fabric_bench, Fabric, Traffic};
use rtl_gen_sim::campaign::sue::switch::{LinkFaults, SwitchBug, SwitchConfig};
use rtl_gen_sim::TestRng;

fn long() -> bool {
    std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1")
}

/// Runs `cycles` of uniform traffic on `n` XPUs (`rtl` of them Verilated), drains, and returns
/// the fabric for the caller's assertions.
fn run(n: usize, rtl: usize, cycles: u64, test: &str, tweak: impl FnOnce(&mut SwitchConfig)) -> Result<Fabric, Box<dyn std::error::Error>> {
    let base = bench().block::<SueEndpointBlock>("sue_ep")?.clone();
    let (fb, blocks) = fabric_bench(&base, n, "")?;
    let c = &base.common;
    let max_pdu = c.max_pack_bytes as usize + 12;
    let mut sw = SwitchConfig::new(n, c.num_vc as usize, c.data_bytes as usize, max_pdu);
    sw.faults(LinkFaults { drop: 1e-3, corrupt: 1e-3, fcs_err: 5e-4 });
    sw.class_stall = 0.002;
    sw.class_stall_cycles = 150;
    let mut rng = TestRng::for_test(test)?;
    sw.seed = rng.range(0, u64::MAX - 1);
    tweak(&mut sw);
    let traffic = Traffic { load: 0.6, out_ready: 0.9, ..Default::default() };
    let rtl_mask: Vec<bool> = (0..n).map(|x| x < rtl).collect();
    let mut f = Fabric::new(&fb, &blocks, &rtl_mask, sw, traffic, rng.range(0, u64::MAX - 1), test)?;
    for _ in 0..cycles {
        f.step()?;
    }
    f.drain(100_000)?;
    println!(
        "{test}: {n} XPUs ({} RTL), {} cycles, {} commands delivered in {} data PDUs ({:.2} commands/PDU, largest payload {} B); retx {}, NACKs received {}, RTOs {}, R-CRC errors {}, frame errors {}, gaps {}, dups {}; switch drops {}+{}, corrupted {}, FCS-flagged {}, overflow {}, class overtakes {}, pause cycles {:?}; mismatches {} (seed {:#x})",
        f.rtl_count(),
        f.cycle,
        f.delivered.iter().flatten().sum::<u64>(),
        f.data_pdus,
        f.cmds_in_pdus as f64 / f.data_pdus.max(1) as f64,
        f.max_payload,
        f.counter(k::TX_RETX),
        f.counter(k::TX_NACK_RCVD),
        f.counter(k::TX_RTO),
        f.counter(k::RX_CRC_ERR),
        f.counter(k::RX_FRAME_ERR),
        f.counter(k::RX_GAP),
        f.counter(k::RX_DUP),
        f.switch.stats.uplink_drops,
        f.switch.stats.downlink_drops,
        f.switch.stats.corrupted,
        f.switch.stats.fcs_flagged,
        f.switch.stats.overflow_drops,
        f.switch.stats.class_overtakes,
        f.switch.stats.pause_cycles,
        f.tally.mismatches,
        rng.seed()
    );
    Ok(f)
}

fn assert_clean(f: &Fabric, min_cmds: u64) {
    assert_eq!(f.tally.mismatches, 0, "first violation {:?}", f.tally.first);
    let delivered: u64 = f.delivered.iter().flatten().sum();
    let accepted: u64 = f.accepted.iter().flatten().sum();
    assert_eq!(delivered, accepted, "every accepted command delivered");
    assert!(delivered >= min_cmds, "traffic flowed: {delivered} commands");
    assert!(f.cmds_in_pdus > f.data_pdus, "commands were packed");
    for s in 0..f.n() {
        for d in 0..f.n() {
            if s != d {
                assert!(f.delivered[s][d] > 0, "{s}→{d} carried traffic");
            }
        }
    }
    assert!(f.max_payload <= 256);
    assert_eq!(f.switch.stats.overflow_drops, 0, "PFC kept the switch lossless");
}

#[test]
fn four_rtl_xpus_through_a_lossy_reordering_switch() -> TestResult {
    let f = run(4, 4, scaled(12_000) as u64, "sue_fabric_4", |_| {})?;
    assert_eq!(f.rtl_count(), 4);
    let mods = f.rtl_modules();
    assert!(mods.len() == 4 && mods.iter().all(|m| *m == mods[0]), "four instances of one generated endpoint module: {mods:?}");
    assert_clean(&f, 3_000);
    assert!(f.counter(k::TX_RETX) > 0 && f.counter(k::RX_CRC_ERR) > 0 && f.counter(k::RX_FRAME_ERR) > 0, "faults were injected and recovered");
    assert!(f.switch.stats.class_overtakes > 0, "classes were reordered");
    Ok(())
}

#[test]
fn eight_xpus_one_rtl_through_the_switch() -> TestResult {
    let f = run(8, 1, scaled(8_000) as u64, "sue_fabric_8", |_| {})?;
    assert_clean(&f, 4_000);
    Ok(())
}

#[test]
fn sixteen_xpus_long() -> TestResult {
    if !long() {
        println!("16-XPU fabric: set RTLGEN_LONG=1");
        return Ok(());
    }
    let f = run(16, 4, 40_000, "sue_fabric_16", |_| {})?;
    assert_clean(&f, 20_000);
    Ok(())
}

/// The mutation: a switch that corrupts payloads *and* recomputes the R-CRC passes every
/// transport check, so only the fabric's content scoreboard can see it — and must.
#[test]
fn a_switch_that_recomputes_the_rcrc_after_corrupting_is_caught() -> TestResult {
    let rcrc = bench().block::<SueEndpointBlock>("sue_ep")?.transport_block.resolved.rcrc;
    let f = run(4, 0, 3_000, "sue_fabric_bug", |sw| {
        sw.faults(LinkFaults::default());
        sw.bug = Some(SwitchBug::CorruptWithFreshCrc { prob: 0.01, rcrc });
    })?;
    assert!(f.switch.stats.bug_corrupted > 0);
    assert!(f.tally.mismatches > 0, "the scoreboard caught the corrupted commands");
    let first = f.tally.first.as_ref().expect("a first violation");
    assert!(first.port.contains("bit-exact"), "caught by the content scoreboard: {first:?}");
    assert_eq!(f.counter(k::RX_CRC_ERR), 0, "the transport saw nothing");
    Ok(())
}
