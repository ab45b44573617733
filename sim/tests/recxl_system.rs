//! ReCXL multi-node system simulation (contract recxl.md §5.3): random crashes per variant with
//! scoreboards S1–S8 in every trial, the targeted crash scenarios C1–C9, the paper-exact settings
//! (their hazards counted, never silent loss), a broken system model caught by S1, and the
//! Verilated logging units of the default design in lockstep inside one small system run.

mod common;

use common::{bench, scaled, TestResult};
use rtl_gen::blocks::recxl_logging_unit::RecxlLoggingUnitBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::campaign::recxl::campaign::{self as rc, lu_block, models, Geometry, RecxlOptions};
use rtl_gen_sim::campaign::recxl::{Crash, CrashWhen, Defect, LuNode, RtlTwin, ScriptStore, SysOptions, System, Trial, Variant};
use rtl_gen_sim::campaign::{Progress, Shard};
use rtl_gen_sim::results::ResultFile;

const G4: Geometry = Geometry { n: 4, c: 2, r: 2 };
const G6: Geometry = Geometry { n: 6, c: 2, r: 3 };

fn trial(g: Geometry, extra: &str, o: SysOptions) -> Trial {
    let b = lu_block(g, extra).expect("valid logging unit");
    let t = System::new(&b, &o, models(&b)).expect("system").run().expect("run");
    show(&format!("N={} R={} {}", g.n, g.r, o.variant.name()), &t);
    t
}

fn show(name: &str, t: &Trial) {
    println!(
        "{name}: {} cycles, {} commits, crash {:?}@{}, owned {}, words from logs {} / dumps {}, partial {} applied {}, recovery {} cycles, {} msgs / {} stores, NACK retries {}, forced ACKs {}, retried RdX {}, discarded {}, ambiguous {}, undecidable {}, inversions {}, row HWM {}, epochs {}; violations {:?}",
        t.cycles, t.commits, t.crashed, t.crash_cycle, t.owned_lines, t.words_from_logs, t.words_from_dumps, t.partial, t.partial_applied, t.recovery_cycles, t.repl_msgs, t.repl_stores, t.nack_retries, t.forced_acks, t.retried_rdx, t.discarded, t.ambiguous, t.undecidable, t.inversions, t.row_hwm, t.epochs, t.violations
    );
}

/// Random crashes of a random node at a random time, every variant, N = 4 / R = 2 and
/// N = 6 / R = 3; S1–S8 hold in every trial; shards merge into the single run.
#[test]
fn random_crashes_hold_every_scoreboard() -> TestResult {
    let o = RecxlOptions { trials: scaled(40), seed: 7, ..RecxlOptions::default() };
    let r = rc::run(&o, Shard::ALL, &mut Progress::hidden())?;
    println!("{}", r.report());
    assert_eq!(r.records.len(), 2 * 3 * o.trials);
    assert!(r.failures().is_empty(), "{}", r.report());
    let crashed = r.records.iter().filter(|t| t.trial.crashed.is_some() && t.trial.recovery_cycles > 0).count();
    assert_eq!(crashed, r.records.len(), "every trial crashed a node and recovered");
    assert!(r.records.iter().map(|t| t.trial.owned_lines).sum::<u64>() > 0, "no owned line was ever recovered");
    assert!(r.records.iter().all(|t| t.trial.stores_after_recovery >= 4), "S7: stores after RecovEnd");
    // Loads create sharers that later RdX invalidate, lines are evicted (S silently, M with a
    // writeback), and S2 meets a failed CN that really was a sharer.
    let sum = |f: &dyn Fn(&Trial) -> u64| r.records.iter().map(|t| f(&t.trial)).sum::<u64>();
    for (what, k) in [
        ("loads", sum(&|t| t.loads)),
        ("S grants", sum(&|t| t.shared_grants)),
        ("invalidations", sum(&|t| t.invalidations)),
        ("silent S evictions", sum(&|t| t.clean_evictions)),
        ("M writebacks", sum(&|t| t.writebacks)),
        ("failed-CN sharer lines", sum(&|t| t.failed_shared_lines)),
    ] {
        assert!(k > 0, "no {what} in the random campaign");
    }
    // 3·R messages per replicated store.
    for t in &r.records {
        let want = 3 * t.geometry.r as u64;
        assert_eq!(t.trial.repl_msgs, want * t.trial.repl_stores, "unit {}", t.unit);
    }
    // Shards: two halves merge into the single run.
    let small = RecxlOptions { trials: 2, geometries: vec![G4], ..o };
    let single = rc::run(&small, Shard::ALL, &mut Progress::hidden())?;
    let parts = (0..2).map(|k| rc::run(&small, Shard::new(k, 2).expect("shard"), &mut Progress::hidden()).map(ResultFile::Recxl)).collect::<Result<Vec<_>, _>>()?;
    let ResultFile::Recxl(merged) = ResultFile::merge(parts)? else { panic!("a ReCXL result") };
    assert_eq!(merged.records, single.records);
    Ok(())
}

/// The Table I message flow, message by message, with the CM and the failed node.
#[test]
fn table_one_recovery_trace() {
    let t = trial(G4, "", SysOptions { crash: Crash::At { node: 2, cycle: 3_000 }, trace: true, ..SysOptions::default() });
    for l in &t.trace {
        println!("{l}");
    }
    assert!(t.ok());
    let kinds = ["Viral_Status[2]", "Interrupt", "InterruptResp", "InitRecov", "InitRecovResp", "RecovEnd", "RecovEndResp"];
    let mut at = 0;
    for k in kinds {
        let p = t.trace.iter().skip(at).position(|l| l.contains(k)).map(|p| p + at);
        assert!(p.is_some(), "{k} missing after line {at}");
        at = p.expect("found");
    }
    assert_eq!(t.trace.iter().filter(|l| l.contains(": Interrupt to")).count(), 3, "Interrupt to the 3 live CNs");
    assert_eq!(t.trace.iter().filter(|l| l.contains("InitRecov to")).count(), 4, "InitRecov to the 4 homes");
    assert_eq!(t.trace.iter().filter(|l| l.contains("RecovEndResp {")).count(), 3);
}

fn when(node: u32, cond: CrashWhen, variant: Variant, seed: u64) -> SysOptions {
    SysOptions { variant, seed, crash: Crash::When { node, after: 1_500, cond }, cycles: 6_000, store_rate: 0.04, lines: 12, ..SysOptions::default() }
}

/// C1: the crash falls after the failed CN sent its VAL to a subset of the replicas (§V-C's
/// divergent case): the partially validated store is applied because a live replica logged it.
#[test]
fn c1_crash_between_vals() {
    let t = trial(G6, "", when(1, CrashWhen::PartialVal, Variant::Baseline, 3));
    assert_eq!(t.crashed, Some(1));
    assert!(t.partial && t.partial_applied, "a partially validated store applied");
    assert!(t.words_from_logs > 0);
    assert!(t.ok(), "{:?}", t.violations);
}

/// C2: the crash falls while the failed CN's dump traversal runs (its epoch never completes).
#[test]
fn c2_crash_during_dump() {
    let t = trial(G4, "", SysOptions { dump_period: 1_000, ..when(0, CrashWhen::DumpBusy, Variant::Proactive, 5) });
    assert_eq!(t.crashed, Some(0));
    assert!(t.ok(), "{:?}", t.violations);
    assert!(t.epochs >= 4, "epochs continue after recovery: {}", t.epochs);
}

/// C3: the crash falls right after an epoch commit; the owned line's value was freed from every
/// log and lives only in the MN dumps, which recovery searches.
#[test]
fn c3_value_only_in_dumps() {
    // CN 1 writes line 5 (group {1, 2}) once; the epochs at 1000 and 2000 dump and then free it.
    let mut script = vec![ScriptStore { cycle: 100, node: 1, core: 0, line: 5, mask: 0b11, value: 0xC3C3 }];
    for k in 0..30 {
        script.push(ScriptStore { cycle: 400 + 100 * k, node: [0, 2, 3][k as usize % 3], core: 1, line: 6 + k % 4, mask: 1, value: k });
    }
    let o = SysOptions { script, dump_period: 1_000, cycles: 4_000, crash: Crash::When { node: 1, after: 2_000, cond: CrashWhen::AfterEpochCommit }, ..SysOptions::default() };
    let t = trial(G4, "", o);
    assert_eq!(t.crashed, Some(1));
    assert!(t.owned_lines >= 1);
    assert!(t.words_from_dumps >= 2, "line 5's two words came from the MN dumps");
    assert!(t.ok(), "{:?}", t.violations);
}

/// C4: REPL_ACKs outstanding and no VAL sent: the store never committed, its PENDING rows are
/// discarded, it is not applied.
#[test]
fn c4_acks_outstanding() {
    let t = trial(G4, "", when(2, CrashWhen::AcksOutstanding, Variant::Parallel, 9));
    assert_eq!(t.crashed, Some(2));
    assert!(!t.partial);
    assert!(t.discarded >= 1, "PENDING rows of the failed CN discarded");
    assert!(t.ok(), "{:?}", t.violations);
}

/// C5: the failed CN is a replica of live writers' stores in flight: their REPL_ACK is taken as
/// received at Interrupt, they commit with R − 1 replicas (3·(R − 1) messages, S8).
#[test]
fn c5_replica_of_stores_in_flight() {
    let t = trial(G6, "", when(3, CrashWhen::ReplicaOfInFlight, Variant::Proactive, 11));
    assert_eq!(t.crashed, Some(3));
    assert!(t.forced_acks >= 1, "a live store waited on the failed replica's ACK");
    assert!(t.degraded_stores > 0 && t.degraded_msgs == 3 * 2 * t.degraded_stores, "3·(R−1) messages per degraded store");
    assert!(t.ok(), "{:?}", t.violations);
}

/// C6: the failed CN owns a line another CN's RdX waits for: the home aborts, recovers the line
/// and serves the RdX after recovery.
#[test]
fn c6_pending_rdx_on_failed_owner() {
    // No evictions: a writeback in flight would answer the snoop instead of the recovery.
    let t = trial(G4, "", SysOptions { lines: 4, evict_rate: 0.0, ..when(1, CrashWhen::PendingRdX, Variant::Baseline, 13) });
    assert_eq!(t.crashed, Some(1));
    assert!(t.retried_rdx >= 1, "a RdX waiting on the failed owner was retried");
    assert!(t.owned_lines >= 1);
    assert!(t.ok(), "{:?}", t.violations);
}

/// C7: the failed CN was in its own line's replica group (U2): the line is recovered from the
/// other member's log.
#[test]
fn c7_failed_cn_in_its_own_group() {
    let t = trial(G4, "", when(0, CrashWhen::OwnGroupCommit, Variant::Proactive, 17));
    assert_eq!(t.crashed, Some(0));
    assert!(t.owned_lines >= 1 && t.words_from_logs >= 1);
    assert!(t.ok(), "{:?}", t.violations);
}

/// C8: several CNs write one line back and forth (H3): under A1 every unit logs the line in
/// commit order (S4), so no inversion, and recovery is exact.
#[test]
fn c8_one_line_many_writers() {
    for v in Variant::RECXL {
        let t = trial(G4, "", SysOptions { lines: 1, store_rate: 0.03, seed: 19, crash: Crash::At { node: 3, cycle: 3_000 }, variant: v, ..SysOptions::default() });
        assert!(t.commits > 40, "contended line: {} commits", t.commits);
        assert_eq!(t.inversions, 0);
        assert!(t.ok(), "{:?}", t.violations);
    }
}

/// C9 (H6): a dump boundary that falls between the two replicas' copies of a record. With
/// free_lag = 0 the non-in-charge unit frees the record at the commit while the in-charge unit
/// (the writer and owner) had not dumped it yet; the writer crashes: the value exists nowhere and
/// S1 reports it. With free_lag = 1 (the default) the record is kept one more epoch and recovered.
#[test]
fn c9_free_lag_zero_loses_a_value_free_lag_one_recovers_it() {
    // Line 2: group {2, 3}, CN 2 in charge. The epoch's start reaches unit 2 at 20,049 (before
    // the store) and unit 3 at 25,049 (after it): the record is in unit 3's snapshot only.
    let o = SysOptions {
        script: vec![ScriptStore { cycle: 20_100, node: 2, core: 0, line: 2, mask: 0b101, value: 0xC9C9 }],
        dump_period: 20_000,
        dump_skew: Some(vec![0, 0, 0, 5_000]),
        cycles: 26_000,
        crash: Crash::At { node: 2, cycle: 25_500 },
        ..SysOptions::default()
    };
    let lost = trial(G4, "free_lag = 0", o.clone());
    assert_eq!(lost.crashed, Some(2));
    assert_eq!(lost.owned_lines, 1);
    assert_eq!(lost.words_from_logs, 0, "free_lag = 0: unit 3 freed the record");
    assert!(lost.violations.iter().any(|v| v.starts_with("S1: line 0x2")), "S1 must report the lost value: {:?}", lost.violations);
    let kept = trial(G4, "free_lag = 1", o);
    assert_eq!(kept.owned_lines, 1);
    assert_eq!(kept.words_from_logs, 2, "free_lag = 1: both words fetched from unit 3");
    assert!(kept.ok(), "{:?}", kept.violations);
}

/// Paper-exact settings (tag_bits = 0, csn_bits = 0, nack_enable = false), baseline and parallel,
/// crashes between VALs: the hazards show as counted events. Even in baseline a core's next REPL
/// to a line can overtake the previous store's VAL in the fabric, so without tags a VAL matches
/// two PENDING rows (ambiguous, H1) and logs the other update's data (mislogged); every scoreboard
/// violation of these trials comes with such counted events. The same crashes with the default
/// extensions (tags, CSN, NACK) hold every scoreboard with no ambiguous match. Proactive with
/// tag_bits = 0 is refused with the contract's text.
#[test]
fn paper_exact_settings_count_hazards() {
    let px = "tag_bits = 0\ncsn_bits = 0\nnack_enable = false";
    let (mut amb, mut mis, mut und, mut partial) = (0, 0, 0, 0);
    for v in [Variant::Baseline, Variant::Parallel] {
        for seed in 0..scaled(3) as u64 {
            let t = trial(G6, px, when(1, CrashWhen::PartialVal, v, 100 + seed));
            if !t.ok() {
                assert!(t.ambiguous + t.undecidable > 0, "a violation without a counted hazard: {:?}", t.violations);
            }
            amb += t.ambiguous;
            mis += t.mislogged;
            und += t.undecidable;
            partial += t.partial_applied as u32;
            let d = trial(G6, "", when(1, CrashWhen::PartialVal, v, 100 + seed));
            assert!(d.ok() && d.ambiguous == 0 && d.mislogged == 0, "default settings: {:?}", d.violations);
        }
    }
    println!("paper-exact: ambiguous VAL matches {amb}, mislogged records {mis}, undecidable merges {und}, partial stores applied {partial}");
    assert!(partial > 0, "the divergent merge was exercised without CSNs");
    assert!(amb > 0, "H1 shows as counted ambiguous matches");
    let b = lu_block(G4, "tag_bits = 0").expect("valid");
    let err = System::new(&b, &SysOptions { variant: Variant::Proactive, ..SysOptions::default() }, models(&b)).err().expect("refused").to_string();
    assert!(err.contains("tag_bits = 0 cannot match VALs when a core has several REPLs outstanding to one line (ReCXL-proactive, §IV-D.4); use tag_bits >= 7 or variant \"baseline\"/\"parallel\""), "{err}");
}

/// A broken system model is caught: recovery that applies only the newest record of a line (the
/// per-line reading of §V-C, hazard H5) loses words, and S1 reports them.
#[test]
fn a_broken_recovery_is_caught_by_s1() {
    // Whether a crash leaves a line whose lost words S1 sees depends on the whole system's
    // timing (with the logging unit's release one cycle later, none of the six crashes on eight
    // lines did): twelve crash times on four lines, so more of the failed CN's lines hold
    // several words.
    const CRASHES: u64 = 12;
    let mut caught = 0;
    for seed in 0..CRASHES {
        // No evictions: the failed CN must own multi-word lines (a written-back line is not recovered).
        let o = SysOptions { defect: Defect::PerLineRecovery, evict_rate: 0.0, max_words: 4, store_rate: 0.04, lines: 4, crash: Crash::At { node: 1, cycle: 3_000 + 100 * seed }, seed, ..SysOptions::default() };
        let t = trial(G4, "", o);
        caught += t.has("S1") as u32;
    }
    assert!(caught >= 1, "S1 never caught the per-line recovery in {CRASHES} crashes");
    // The same crashes with the correct recovery hold.
    for seed in 0..CRASHES {
        let o = SysOptions { evict_rate: 0.0, max_words: 4, store_rate: 0.04, lines: 4, crash: Crash::At { node: 1, cycle: 3_000 + 100 * seed }, seed, ..SysOptions::default() };
        assert!(trial(G4, "", o).ok());
    }
}

/// The default design's Verilated logging unit (N = 4, C = 2, R = 2, 16 rows) as all four units of
/// a system with a crash and recovery, each in lockstep with its model every cycle.
#[test]
fn rtl_logging_units_in_the_system() -> TestResult {
    let bench = bench();
    let b = bench.block::<RecxlLoggingUnitBlock>("recxl_lu")?.clone();
    let mut lus: Vec<Box<dyn LuNode>> = Vec::new();
    for k in 0..b.n() {
        lus.push(Box::new(RtlTwin::new(bench.dut("recxl_lu", Role::LoggingUnit, &format!("recxl_system_rtl_{k}"))?, &b)?));
    }
    let o = SysOptions { variant: Variant::Proactive, lines: 12, store_rate: 0.02, crash: Crash::At { node: 1, cycle: 2_500 }, cycles: 4_000, dump_period: 1_000, seed: 23, ..SysOptions::default() };
    let t = System::new(&b, &o, lus)?.run()?;
    show("RTL units", &t);
    assert_eq!(t.rtl_mismatches, 0);
    assert!(t.commits > 50 && t.recovery_cycles > 0 && t.epochs >= 2);
    assert!(t.ok(), "{:?}", t.violations);
    Ok(())
}

/// Dump regions so small that epochs overflow them: every overflowed unit is given a new region
/// and its epoch restarts (the coordinator's rule, the module doc's exit from the overflow), so
/// epochs keep committing, logs keep draining, the crash is recovered (st_quiesced reached),
/// stores go on after RecovEnd, and S1–S8 hold, S5 reading the committed epochs region by region.
#[test]
fn dump_overflow_then_traffic_and_a_crash_recover() {
    for (i, g) in [G4, G6].into_iter().enumerate() {
        let o = SysOptions { dump_region_beats: 12, dump_period: 1_000, cycles: 8_000, crash: Crash::At { node: 1, cycle: 5_500 }, seed: 40 + i as u64, ..SysOptions::default() };
        let t = trial(g, "", o);
        println!("  {} dump overflows, {} epochs, {} records dumped", t.dump_overflows, t.epochs, t.records_dumped);
        assert!(t.dump_overflows >= 2, "N = {}: the regions never overflowed", g.n);
        assert!(t.epochs >= 4, "N = {}: epochs stopped committing after an overflow ({} epochs)", g.n, t.epochs);
        assert!(t.recovery_cycles > 0 && t.stores_after_recovery >= 4, "N = {}: no recovery", g.n);
        assert!(t.ok(), "N = {}: {:?}", g.n, t.violations);
    }
}

/// The same with the default design's Verilated logging units as all four units, in lockstep with
/// their models every cycle through overflows, region changes, restarts and the recovery.
#[test]
fn rtl_logging_units_through_dump_overflows() -> TestResult {
    let bench = bench();
    let b = bench.block::<RecxlLoggingUnitBlock>("recxl_lu")?.clone();
    let mut lus: Vec<Box<dyn LuNode>> = Vec::new();
    for k in 0..b.n() {
        lus.push(Box::new(RtlTwin::new(bench.dut("recxl_lu", Role::LoggingUnit, &format!("recxl_system_rtl_{k}"))?, &b)?));
    }
    let o = SysOptions { variant: Variant::Proactive, lines: 12, store_rate: 0.02, crash: Crash::At { node: 1, cycle: 3_500 }, cycles: 5_000, dump_period: 1_000, dump_region_beats: 8, seed: 29, ..SysOptions::default() };
    let t = System::new(&b, &o, lus)?.run()?;
    show("RTL units, small dump regions", &t);
    println!("  {} dump overflows, {} epochs", t.dump_overflows, t.epochs);
    assert_eq!(t.rtl_mismatches, 0);
    assert!(t.dump_overflows >= 2, "the regions never overflowed");
    assert!(t.commits > 50 && t.recovery_cycles > 0 && t.epochs >= 3);
    assert!(t.ok(), "{:?}", t.violations);
    Ok(())
}

/// Heavy sharing and eviction (10× the default load rate, 25× the eviction rate, 16 lines): writebacks
/// cross snoops, stale sharer bits meet invalidations, and every scoreboard still holds (one crash
/// per variant and geometry).
#[test]
fn heavy_sharing_and_evictions_hold_every_scoreboard() {
    let (mut with_s_grants, mut writebacks, mut failed_sharers) = (0, 0, 0);
    for (i, v) in Variant::RECXL.iter().enumerate() {
        for g in [G4, G6] {
            let o = SysOptions { variant: *v, load_rate: 0.02, evict_rate: 0.05, lines: 16, seed: 100 + i as u64, ..SysOptions::default() };
            let t = trial(g, "", o);
            assert!(t.ok(), "{:?}", t.violations);
            assert!(t.stores_after_recovery >= 4, "S7: stores after RecovEnd");
            with_s_grants += t.shared_grants.min(1);
            writebacks += t.writebacks;
            failed_sharers += t.failed_shared_lines;
        }
    }
    assert_eq!(with_s_grants, 6, "S grants in every trial");
    println!("heavy: {writebacks} writebacks, failed CN a sharer of {failed_sharers} lines");
    assert!(writebacks >= 20, "{writebacks} writebacks");
    assert!(failed_sharers > 0, "the failed CN was never a sharer");
}

/// H3 beyond A1 (the adversarial fabric of contract §5.3, a reported finding): with jitter
/// J ≥ L_min a previous writer's VAL can reach a unit after the next writer's, so the unit logs a
/// contended line out of commit order. The system counts these inversions instead of flagging
/// S4, and the cost shows in S5: a final dump whose newest record of a line is not the line's
/// newest committed value (a later recovery of that line would restore a stale word). The same
/// seeds on the default fabric (L_min 50, J 40: A1 holds) show neither.
#[test]
fn adversarial_fabric_inversions_are_counted() {
    let (mut inversions, mut stale, mut trials) = (0, 0, 0);
    for v in Variant::RECXL {
        for seed in 1..=8 {
            let base = SysOptions { lines: 2, store_rate: 0.05, seed, cycles: 20_000, crash: Crash::Random, variant: v, ..SysOptions::default() };
            let a1 = trial(G4, "", base.clone());
            assert_eq!(a1.inversions, 0, "{} seed {seed}: inversions under A1", v.name());
            assert!(a1.ok(), "{} seed {seed}: {:?}", v.name(), a1.violations);
            let t = trial(G4, "", SysOptions { l_min: 5, local_latency: 5, jitter: 300, ..base });
            trials += 1;
            inversions += t.inversions;
            if !t.ok() {
                // Only the inverted logs' consequence may fail, and only where logs were inverted.
                assert!(t.inversions > 0, "{} seed {seed}: {:?} without an inversion", v.name(), t.violations);
                assert!(t.violations.iter().all(|e| e.starts_with("S5: ") || e.starts_with("S1: ")), "{} seed {seed}: {:?}", v.name(), t.violations);
                stale += 1;
            }
        }
    }
    println!("adversarial fabric (L_min 5, J 300): {inversions} inversions over {trials} trials, {stale} trials with a stale newest record");
    assert!(inversions > trials, "the adversarial fabric produced only {inversions} inversions in {trials} trials");
    assert!(stale > 0, "no inversion ever reached the dumped image");
}
