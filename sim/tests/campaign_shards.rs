//! Campaigns beyond one machine: `--shard K/N` runs a deterministic slice of a campaign, and
//! the merge of all N shards' result files equals the single run with the same options and seed
//! (records, tables, CSV), for the RXL campaign and the RIFL sweep. Small sizes: both run on the
//! models in a few seconds.

use rtl_gen_sim::campaign::rifl::sweep::{self, SweepOptions};
use rtl_gen_sim::campaign::rxl::{self, Impl, ModeSel, RxlOptions};
use rtl_gen_sim::campaign::{Faults, Progress, Shard};
use rtl_gen_sim::results::ResultFile;
use rtl_gen_sim::Bench;

fn bench() -> Bench {
    Bench::default_design().expect("the default design and generated/")
}

/// Writes each shard's JSON, reads them back and merges them, as `rtl-gen sim merge` does.
fn merge_through_files(parts: Vec<ResultFile>, tag: &str) -> ResultFile {
    let dir = tempfile::tempdir().expect("temp dir");
    let paths: Vec<_> = parts
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let p = dir.path().join(format!("{tag}_{k}.json"));
            f.write_json(&p).expect("written");
            p
        })
        .collect();
    // Out of order on purpose: the merge sorts by work unit.
    let mut rev = paths.clone();
    rev.reverse();
    ResultFile::merge_files(&rev).expect("the shards merge")
}

#[test]
fn rxl_merge_of_4_shards_equals_the_single_run() {
    let bench = bench();
    let opts = RxlOptions {
        implementation: Impl::Model,
        endpoints: rxl::endpoints_for_mode(&bench, ModeSel::Both).expect("rxl and cxl_baseline endpoints"),
        topologies: vec![0, 1],
        faults: Faults { drop: 2e-3, ber: 1e-6, burst: 1e-4, burst_bits: 40, uc: 1e-4 },
        internal: 1e-4,
        flits: 6_000,
        segments: 3,
        seed: 11,
        ..RxlOptions::default()
    };
    assert_eq!(opts.units().len(), 12, "2 endpoints × 2 topologies × 3 segments");
    let single = rxl::run(&bench, &opts, Shard::ALL, &mut Progress::hidden()).expect("single run");
    let shards: Vec<ResultFile> = (0..4).map(|k| ResultFile::Rxl(rxl::run(&bench, &opts, Shard::new(k, 4).expect("shard"), &mut Progress::hidden()).expect("shard run"))).collect();
    for (k, s) in shards.iter().enumerate() {
        let ResultFile::Rxl(r) = s else { unreachable!() };
        assert_eq!(r.records.len(), 3, "shard {k}/4 runs 3 of the 12 units");
    }
    let merged = merge_through_files(shards, "rxl");
    let single = ResultFile::Rxl(single);
    assert_eq!(merged, single, "merged shards = single run (every record)");
    assert_eq!(merged.report(), single.report());
    print!("{}", merged.report());
    let ResultFile::Rxl(r) = &merged else { unreachable!() };
    // The campaign is real: faults happened and rxl stayed exactly-once.
    let rows = r.rows();
    assert_eq!(rows.len(), 4);
    for row in rows.iter().filter(|x| x.mode == "rxl") {
        assert!(row.exactly_once(), "rxl, {} switches: {row:?}", row.switches);
        assert!(row.dirs.iter().all(|d| d.channels.drops > 0 && d.tx_counters.replays > 0));
    }
    // A shard missing, or given twice, is refused with what is wrong.
    let part = |k| ResultFile::Rxl(rxl::run(&bench, &RxlOptions { topologies: vec![0], endpoints: vec!["rxl_ep".into()], ..opts.clone() }, Shard::new(k, 2).expect("shard"), &mut Progress::hidden()).expect("run"));
    let e = ResultFile::merge(vec![part(0)]).expect_err("one of two shards");
    assert!(e.to_string().contains("shards missing: 1/2"), "{e}");
    let e = ResultFile::merge(vec![part(0), part(0)]).expect_err("a shard twice");
    assert!(e.to_string().contains("given twice"), "{e}");
}

#[test]
fn rifl_sweep_merge_of_4_shards_equals_the_single_run() {
    let bench = bench();
    let opts = SweepOptions { block: "rifl".into(), packets: 60, threads: 2, seed: 3, bers: vec![1e-7, 1e-6, 3e-6, 1e-5, 2e-5], max_cycles: 2_000_000, ..SweepOptions::default() };
    let single = sweep::sweep(&bench, &opts, Shard::ALL, &mut Progress::hidden()).expect("single sweep");
    assert_eq!(single.points.len(), 6, "reference + 5 BERs");
    let shards: Vec<ResultFile> = (0..4).map(|k| ResultFile::RiflSweep(sweep::sweep(&bench, &opts, Shard::new(k, 4).expect("shard"), &mut Progress::hidden()).expect("shard sweep"))).collect();
    let merged = merge_through_files(shards, "rifl");
    let single = ResultFile::RiflSweep(single);
    assert_eq!(merged, single, "merged shards = single sweep (every point)");
    let (ResultFile::RiflSweep(m), ResultFile::RiflSweep(s)) = (&merged, &single) else { unreachable!() };
    assert_eq!(m.csv(), s.csv());
    assert_eq!(m.svg(), s.svg());
    print!("{}", m.report());
    assert!(m.points.iter().all(|p| p.completed && p.packets == 120), "every point delivered its packets");
    assert!(m.points.last().expect("points").retransmissions > 0, "errors at 2e-5 cost retransmissions");
}

#[test]
fn wrong_or_missing_blocks_are_named() {
    let bench = bench();
    let e = sweep::sweep(&bench, &SweepOptions { block: "rxl_ep".into(), ..SweepOptions::default() }, Shard::ALL, &mut Progress::hidden()).expect_err("not a rifl block");
    assert!(e.to_string().contains("rxl_ep") && e.to_string().contains("RiflBlock"), "{e}");
    let opts = RxlOptions { implementation: Impl::Model, endpoints: vec!["nope".into()], ..RxlOptions::default() };
    let e = rxl::run(&bench, &opts, Shard::ALL, &mut Progress::hidden()).expect_err("no such block");
    assert!(e.to_string().contains("nope") && e.to_string().contains("rxl_ep (rxl_endpoint)"), "{e}");
    let opts = RxlOptions { implementation: Impl::Model, endpoints: vec!["rifl".into()], ..RxlOptions::default() };
    let e = rxl::run(&bench, &opts, Shard::ALL, &mut Progress::hidden()).expect_err("wrong kind");
    assert!(e.to_string().contains("rifl") && e.to_string().contains("RxlEndpointBlock"), "{e}");
}

/// The committed sweep (`sim/results/rifl_sweep.csv`, the command in docs/results/rifl.md) is what the
/// code produces today: shard 0/20 of the same command (the error-free reference and 5.62e-8,
/// with 111 frames hit) reproduces its two CSV rows character for character.
/// A change to the channel, the RNG streams, the model or the statistics fails here.
#[test]
fn committed_rifl_sweep_rows_reproduce() {
    let bench = bench();
    let opts = SweepOptions { block: "rifl4".into(), packets: 25_000, frame_id_bits: Some(7), max_cycles: 400_000_000, ..SweepOptions::default() };
    let r = sweep::sweep(&bench, &opts, Shard::new(0, 20).expect("shard"), &mut Progress::hidden()).expect("sweep shard");
    let committed = include_str!("../results/rifl_sweep.csv");
    let ours = r.csv();
    let mut rows = ours.lines();
    assert_eq!(rows.next(), committed.lines().next(), "CSV header");
    let rows: Vec<&str> = rows.collect();
    assert_eq!(rows.len(), 2, "shard 0/20 runs units 0 and 20");
    for row in &rows {
        let ber = row.split(',').next().expect("ber column");
        let want = committed.lines().find(|l| l.split(',').next() == Some(ber)).unwrap_or_else(|| panic!("BER {ber} is in the committed CSV"));
        assert_eq!(*row, want, "BER {ber}: re-run vs sim/results/rifl_sweep.csv");
    }
    let hits: Vec<u64> = rows.iter().map(|l| l.split(',').nth(9).and_then(|v| v.parse().ok()).expect("frames_hit")).collect();
    assert_eq!(hits, [0, 111], "the rows cover the reference and points with frame errors");
}

/// The Gen-Z LLR campaign (models, small): 3 shards merged equal the single run, every unit
/// exactly once and in order, and the report names every table.
#[test]
fn genz_merge_of_3_shards_equals_the_single_run() {
    use rtl_gen_sim::campaign::genz::campaign::{self as genz, GenzImpl, GenzOptions};
    let bench = genz::figures_bench().expect("figures design");
    let opts = GenzOptions { implementation: GenzImpl::Model, sizes: vec![64], cables_m: vec![10.0], occupancy_cables_m: vec![2.0], bers: vec![1e-5], cycles: 8_000, fault_cycles: 8_000, ..GenzOptions::default() };
    let single = genz::run(&bench, &opts, Shard::ALL, &mut Progress::hidden()).expect("single run");
    assert_eq!(single.records.len(), 6, "faults, 2 x init, BER 0, BER 1e-5, occupancy at 2 m");
    assert!(single.clean(), "{}", single.report());
    let noisy = &single.records[4];
    assert!(noisy.beats_hit > 0 && !noisy.recoveries.is_empty() && noisy.goodput(8) < single.records[3].goodput(8), "{noisy:?}");
    let shards: Vec<ResultFile> = (0..3).map(|k| ResultFile::Genz(genz::run(&bench, &opts, Shard::new(k, 3).expect("shard"), &mut Progress::hidden()).expect("shard run"))).collect();
    let merged = merge_through_files(shards, "genz");
    assert_eq!(merged, ResultFile::Genz(single.clone()));
    let report = merged.report();
    for t in ["**Faults**", "**Init time**", "**Goodput vs BER**", "**Recovery time per error**", "**Retry-buffer occupancy"] {
        assert!(report.contains(t), "{t} missing:\n{report}");
    }
    // Bad options are named.
    let bad = GenzOptions { sizes: vec![12], ..opts };
    let e = genz::run(&bench, &bad, Shard::ALL, &mut Progress::hidden()).unwrap_err().to_string();
    assert!(e.contains("packet size 12"), "{e}");
}

/// The SUE figures (`rtl-gen sim sue --figures`) are a campaign of seven units: three shards
/// merged through their JSON files give the single run's records, report and CSV. Small: the
/// fabric models alone, 1,000 traffic cycles, one point per sweep, the RTL-only packer hold
/// figure empty.
#[test]
fn sue_merge_of_3_shards_equals_the_single_run() {
    use rtl_gen_sim::campaign::sue::campaign::{self as sue, SueOptions};
    let bench = bench();
    let opts = SueOptions {
        fabric_cycles: 1_000,
        rtl: false,
        seed: 5,
        drops: vec![1e-2],
        drop_variants: vec![(8, 2048)],
        incast_senders: 2,
        loads: vec![0.5],
        hold_cycles: Vec::new(),
        ack_points: vec![(2, 512)],
        ..SueOptions::default()
    };
    let single = sue::run(&bench, &opts, Shard::ALL, &mut Progress::hidden()).expect("single run");
    assert_eq!(single.records.len(), 7, "seven figures");
    let shards: Vec<ResultFile> = (0..3).map(|k| ResultFile::Sue(sue::run(&bench, &opts, Shard::new(k, 3).expect("shard"), &mut Progress::hidden()).expect("shard run"))).collect();
    let sizes: Vec<usize> = shards.iter().map(|s| if let ResultFile::Sue(r) = s { r.records.len() } else { 0 }).collect();
    assert_eq!(sizes, [3, 2, 2], "units 0,3,6 / 1,4 / 2,5");
    let merged = merge_through_files(shards.clone(), "sue");
    let ResultFile::Sue(m) = &merged else { panic!("a SUE result") };
    assert_eq!(m, &single, "merged shards = single run (every figure and point)");
    assert_eq!(m.report(), single.report());
    assert_eq!(m.csv(), single.csv());
    print!("{}", m.report());
    assert_eq!(m.violations(), 0, "scoreboards clean");
    assert_eq!(m.records[1].figure.points.len(), 2, "F3: the default window and the window 8 variant");
    assert!(m.records[1].figure.table.contains("| 8 | 2048 | 1e-2 |"), "{}", m.records[1].figure.table);
    // F6 is real: one-way, every ACK is a control PDU; counted on the link = the transports'
    // counters; with ack_coalesce 2 and a long delay about one control PDU per 2 data PDUs.
    let f6 = &m.records[6].figure.points;
    assert_eq!(f6.len(), 2);
    for p in f6 {
        assert_eq!(p.tx_ctrl, p.link.ctrl_ack + p.link.ctrl_nack, "{}: link = counters", p.label);
        assert_eq!(p.tx_piggy, p.link.piggy_ack + p.link.piggy_nack, "{}: link = counters", p.label);
    }
    let one = &f6[0];
    assert_eq!(one.link.piggy_ack, 0, "one-way: nothing to piggyback on");
    let ratio = one.link.ctrl_ack as f64 / one.data_pdus as f64;
    assert!(one.data_pdus > 20 && (0.45..=0.6).contains(&ratio), "one-way ctrl/data {ratio} over {} PDUs", one.data_pdus);
    assert!(f6[1].link.piggy_ack > f6[1].link.ctrl_ack, "two-way: most ACKs ride on data");
    // Parts of two different campaigns are refused.
    let other = sue::run(&bench, &SueOptions { seed: 6, ..opts.clone() }, Shard::new(1, 3).expect("shard"), &mut Progress::hidden()).expect("run");
    let mut mixed = shards;
    mixed[1] = ResultFile::Sue(other);
    let e = ResultFile::merge(mixed).expect_err("two campaigns");
    assert!(e.to_string().contains("other options"), "{e}");
}
