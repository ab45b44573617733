//! ReCXL drivers: the replica map (every line value class against `MapShape::map`, the one Rust
//! function every model uses, a line per cycle through a pipelined map) and the logging unit (lockstep with its cycle-accurate model).

use super::{Options, Tally};
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::blocks::recxl_replica_map::model::NodeMask;
use rtl_gen::blocks::recxl_replica_map::{RecxlReplicaMapBlock, RecxlReplicaMapParams};
use rtl_gen::elab::ElabModule;

/// The replica map: every 16-bit fold value (lines 0..2^16, or all lines when LA < 16) with a
/// random failed mask, every failed mask (N <= 12) for a few lines, then `opts.vectors` random
/// full-width lines with masks of 0, 1, R−1, R and random failures.
pub fn replica_map(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = &super::kind_params::<RecxlReplicaMapParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    let mut dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    let mut tally = Tally::default();
    check_map(&mut dut, b, opts.vectors, rng, &mut tally)?;
    Ok(tally)
}

/// The stimulus and comparison of [`replica_map`] on an already built `dut`.
pub fn check_map(dut: &mut Dut, b: &RecxlReplicaMapBlock, random: u64, rng: &mut TestRng, tally: &mut Tally) -> Result<(), SimError> {
    let shape = b.shape();
    let (n, r) = (shape.num_nodes, shape.replicas);
    let nb = shape.node_bits() as usize;
    let la = b.line_addr_bits();
    let line_mask = if la >= 64 { u64::MAX } else { (1u64 << la) - 1 };
    let random_mask = |rng: &mut TestRng, p: f64| {
        let mut m = NodeMask::empty();
        for i in 0..n {
            if rng.chance(p) {
                m.set(i);
            }
        }
        m
    };
    let mut vectors: Vec<(u64, NodeMask)> = Vec::new();
    let folds = 1u64 << la.min(16);
    for line in 0..folds {
        let p = if line % 4 == 0 { 0.0 } else { 0.3 };
        vectors.push((line, random_mask(rng, p)));
    }
    if n <= 12 {
        for line in [0u64, 1, 0x1234 & line_mask, line_mask] {
            for mask in 0..(1u64 << n) {
                vectors.push((line, NodeMask::from_u64(mask)));
            }
        }
    }
    for i in 0..random {
        let line = rng.range(0, u64::MAX) & line_mask;
        let mask = match i % 4 {
            0 => NodeMask::empty(),
            1 => NodeMask::empty().with(rng.range(0, n as u64 - 1) as u32),
            2 => {
                // Every member of the group but one (R − 1 failures), or all of them.
                let set = shape.map(line, &NodeMask::empty());
                let keep = if rng.chance(0.5) { Some(rng.range(0, r as u64 - 1) as usize) } else { None };
                let mut m = NodeMask::empty();
                for (j, c) in set.nodes.iter().enumerate() {
                    if Some(j) != keep {
                        m.set(*c);
                    }
                }
                m
            }
            _ => random_mask(rng, 0.5),
        };
        vectors.push((line, mask));
    }
    // A pipelined map (latency L = `pipeline`) takes a line per cycle: after the inputs of
    // vector i settle, the outputs belong to vector i − L; L trailing cycles drain the pipe.
    let latency = b.pipeline() as usize;
    if latency > 0 {
        dut.set_u64("in_valid", 0)?;
        dut.reset(1)?;
    }
    for i in 0..vectors.len() + latency {
        if let Some((line, mask)) = vectors.get(i) {
            dut.set("line", &Bits::from_u64(*line, la as usize))?;
            dut.set("failed_mask", &Bits::from_bytes_width(&mask.to_bytes(n), n as usize))?;
        }
        if latency > 0 {
            dut.set_u64("in_valid", u64::from(i < vectors.len()))?;
        }
        dut.eval();
        let Some(at) = i.checked_sub(latency) else {
            if latency > 0 {
                tally.compare(i as u64, "out_valid", 0, dut.get_u64("out_valid")?);
            }
            dut.tick();
            continue;
        };
        if latency > 0 {
            tally.compare(at as u64, "out_valid", 1, dut.get_u64("out_valid")?);
        }
        let (line, mask) = &vectors[at];
        let want = shape.map(*line, mask);
        let mut nodes = Bits::zeros(r as usize * nb);
        for (j, c) in want.nodes.iter().enumerate() {
            nodes.set_field(j * nb, nb, *c as u64);
        }
        let c = at as u64;
        tally.compare_bits(c, "replica_nodes", &nodes, &dut.get("replica_nodes")?);
        tally.compare(c, "dump_slot", want.dump_slot as u64, dut.get_u64("dump_slot")?);
        tally.compare(c, "dump_node_valid", want.dump_node.is_some() as u64, dut.get_u64("dump_node_valid")?);
        if let Some(d) = want.dump_node {
            tally.compare(c, "dump_node", d as u64, dut.get_u64("dump_node")?);
        }
        tally.vectors += 1;
        dut.tick();
    }
    Ok(())
}

// ---- logging unit ----------------------------------------------------------------------------

use rtl_gen::blocks::recxl_logging_unit::model::{LoggingUnitModel, LuInputs, LuOutputs, Mutation};
use rtl_gen::blocks::recxl_logging_unit::{RecxlLoggingUnitBlock, RecxlLoggingUnitParams};
use std::collections::{HashMap, VecDeque};

/// Knobs of one lockstep run (contract §5.2 stimulus).
#[derive(Debug, Clone)]
pub struct LuScenario {
    pub cycles: u64,
    /// Probability per cycle that a new store transaction is created.
    pub load: f64,
    /// Distinct lines written (few lines: many collisions and duplicates).
    pub lines: u64,
    /// Maximum extra fabric delay of a VAL (reordering).
    pub jitter: u64,
    /// Probability per cycle of a dump start pulse, and of a commit pulse while done.
    pub p_start: f64,
    pub p_commit: f64,
    /// Ready probabilities of the external ports.
    pub p_ready: f64,
    /// Dump region size in 64-byte beats.
    pub dump_beats: u64,
    /// On a dump overflow, supply a new region twice the size of the current one, right after it,
    /// before the next start (the module doc's exit from the overflow); else the region stays.
    pub new_region_on_overflow: bool,
    /// Cycle at which a source CN fails (quiesce, fetch batches), and for how long.
    pub fail_at: Option<u64>,
    pub quiesce_cycles: u64,
    /// Probability per cycle of an orphan / out-of-window / duplicate VAL.
    pub p_bad_val: f64,
    /// Transactions a core may have outstanding (several to one line need tags, H1).
    pub per_core: usize,
    /// Probability that a REPL is sent for the store at the SB head (else proactive, H4).
    pub p_head: f64,
}

impl Default for LuScenario {
    fn default() -> Self {
        LuScenario {
            cycles: 4_000,
            load: 0.04,
            lines: 6,
            jitter: 12,
            p_start: 0.01,
            p_commit: 0.05,
            p_ready: 0.8,
            dump_beats: 1 << 20,
            new_region_on_overflow: false,
            fail_at: Some(2_500),
            quiesce_cycles: 1_200,
            p_bad_val: 0.01,
            per_core: 3,
            p_head: 0.6,
        }
    }
}

/// What a lockstep run saw.
#[derive(Debug, Default, Clone)]
pub struct LuReport {
    pub cycles: u64,
    pub repls: u64,
    pub nacks: u64,
    pub vals: u64,
    pub records: u64,
    pub beats: u64,
    pub epochs: u64,
    pub fetch_beats: u64,
    pub fetch_batches: u64,
    /// Independent check O1 (records of one source in commit order, by CSN): violations.
    pub order_violations: u64,
    /// Dump overflows (rises of st_dump_overflow), regions supplied, and epochs committed after
    /// the first overflow.
    pub overflows: u64,
    pub regions: u64,
    pub epochs_after_overflow: u64,
    /// Data beats written to the dump regions that were still there at the end and records in
    /// them, against the unit's `records dumped` counter (checked by the caller).
    pub records_in_beats: u64,
    pub counter_dumped: u64,
}

#[derive(Debug, Clone)]
struct Txn {
    node: u32,
    core: u32,
    tag: u32,
    line: u64,
    mask: u32,
    data: Bits,
    at_head: bool,
}

/// Drive `dut` and `model` in lockstep under `sc`; every output is compared every cycle (data
/// fields while their valid is high).
pub fn lu_lockstep(dut: &mut Dut, b: &RecxlLoggingUnitBlock, mut model: LoggingUnitModel, sc: &LuScenario, rng: &mut TestRng, tally: &mut Tally) -> Result<LuReport, SimError> {
    dut.reset(2)?;
    let n = b.n();
    let me = 1u32.min(n - 1);
    let tsm: u32 = if b.ts_bits >= 32 { u32::MAX } else { (1 << b.ts_bits) - 1 };
    let csm: u32 = if b.csn_bits >= 32 { u32::MAX } else if b.csn_bits == 0 { 0 } else { (1 << b.csn_bits) - 1 };
    let tagm: u32 = if b.tag_bits == 0 { 0 } else { (1 << b.tag_bits) - 1 };
    let cores = b.cores_per_node.min(4);
    let lr = b.lr() as usize;
    let mut log: Vec<Bits> = vec![Bits::zeros(b.rec() as usize); lr];
    let mut reads: VecDeque<(u64, Bits)> = VecDeque::new();
    let mut dump_mem: HashMap<u64, Bits> = HashMap::new();
    let mut repl_q: VecDeque<Txn> = VecDeque::new();
    let mut acked: Vec<(u64, Txn)> = Vec::new();
    let mut fabric: Vec<(u64, u32, u32, u32, u64, u32, u32)> = Vec::new();
    let mut outstanding: HashMap<(u32, u32), usize> = HashMap::new();
    let mut next_tag: HashMap<(u32, u32), u32> = HashMap::new();
    let mut ts_ctr = vec![0u32; n as usize];
    let mut csn_ctr = vec![0u32; n as usize];
    let mut last_csn: HashMap<u32, u32> = HashMap::new();
    let mut failed = NodeMask::empty();
    let mut quiesce = false;
    let mut fq: VecDeque<(u64, bool)> = VecDeque::new();
    let mut rep = LuReport::default();
    let mut base = 0x4000u64;
    let amask = if b.shape.addr_bits >= 64 { u64::MAX } else { (1u64 << b.shape.addr_bits) - 1 };
    // The dump region: dump_beats beats, or up to the end of the address space.
    let mut region_beats = sc.dump_beats;
    let region_limit = |base: u64, beats: u64| (base + 64 * beats).min((amask & !63).max(base));
    let mut overflow_prev = false;
    let mut epoch_at_overflow: Option<u32> = None;
    let mut region_given = false;
    let lmask = if b.la() >= 64 { u64::MAX } else { (1u64 << b.la()) - 1 };
    let lines: Vec<u64> = (0..sc.lines).map(|i| (0x1230 + i * 0x0101_0007) & lmask).collect();
    let wd = b.words();
    let fail_src = if me == 0 { 1 } else { 0 };
    for cycle in 0..sc.cycles {
        // Failure: a source CN stops; its in-flight VALs still arrive (detection > L_max).
        if sc.fail_at == Some(cycle) {
            failed.set(fail_src);
            quiesce = true;
            repl_q.retain(|t| t.node != fail_src);
            acked.retain(|(_, t)| t.node != fail_src);
        }
        if quiesce && sc.fail_at.is_some_and(|f| cycle == f + sc.quiesce_cycles) {
            quiesce = false;
        }
        // New transactions from live (node, core) pairs.
        if !quiesce && rng.chance(sc.load) {
            let node = rng.range(0, n as u64 - 1) as u32;
            let core = rng.range(0, cores as u64 - 1) as u32;
            let k = outstanding.entry((node, core)).or_insert(0);
            if !failed.has(node) && *k < sc.per_core.max(1) && (b.tag_bits > 0 || *k == 0) {
                *k += 1;
                let t = next_tag.entry((node, core)).or_insert(0);
                let tag = *t & tagm;
                *t = t.wrapping_add(1);
                let mask = match rng.range(0, 9) {
                    0 => 0,
                    1 => ((1u64 << wd) - 1) as u32,
                    2 => 1 << rng.range(0, wd as u64 - 1),
                    _ => rng.range(0, (1u64 << wd) - 1) as u32,
                };
                let line = lines[rng.range(0, lines.len() as u64 - 1) as usize];
                repl_q.push_back(Txn { node, core, tag, line, mask, data: rng.bits(b.lw() as usize), at_head: rng.chance(sc.p_head) });
            }
        }
        // VAL sends: an acknowledged transaction, after a little while, gets its TS and CSN.
        let mut i = 0;
        while i < acked.len() {
            if acked[i].0 <= cycle {
                let (_, t) = acked.remove(i);
                let s = t.node as usize;
                ts_ctr[s] = ts_ctr[s].wrapping_add(1) & tsm;
                csn_ctr[s] = csn_ctr[s].wrapping_add(1) & csm;
                let due = cycle + 1 + rng.range(0, sc.jitter);
                fabric.push((due, t.node, t.core, t.tag, t.line, ts_ctr[s], csn_ctr[s]));
                rep.vals += 1;
                if let Some(k) = outstanding.get_mut(&(t.node, t.core)) {
                    *k = k.saturating_sub(1);
                }
            } else {
                i += 1;
            }
        }
        let mut inp = LuInputs {
            node_id: me,
            failed,
            dump_base: base & amask,
            dump_limit: region_limit(base, region_beats) & amask,
            quiesce,
            stat_sel: rng.range(0, 24) as u32,
            ack_ready: rng.chance(sc.p_ready),
            logw_ready: rng.chance(sc.p_ready),
            logr_req_ready: rng.chance(sc.p_ready),
            dump_wr_ready: rng.chance(sc.p_ready),
            fr_ready: rng.chance(sc.p_ready),
            repl_data: Bits::zeros(b.lw() as usize),
            logr_rsp_data: Bits::zeros(b.rec() as usize),
            ..Default::default()
        };
        if let Some(t) = repl_q.front() {
            inp.repl_valid = true;
            inp.repl_node = t.node;
            inp.repl_core = t.core;
            inp.repl_tag = t.tag;
            inp.repl_at_head = t.at_head;
            inp.repl_line = t.line;
            inp.repl_mask = t.mask;
            inp.repl_data = t.data.clone();
        }
        // One due VAL per cycle (the earliest due first: the fabric reorders within the jitter).
        let due = fabric.iter().enumerate().filter(|(_, v)| v.0 <= cycle).min_by_key(|(_, v)| v.0).map(|(i, _)| i);
        if let Some(i) = due {
            let v = fabric.remove(i);
            inp.val_valid = true;
            inp.val_node = v.1;
            inp.val_core = v.2;
            inp.val_tag = v.3;
            inp.val_line = v.4;
            inp.val_ts = v.5;
            inp.val_csn = v.6;
        } else if rng.chance(sc.p_bad_val) {
            // Orphan (random key), out-of-window TS, or a duplicate of a recent TS.
            let node = rng.range(0, n as u64 - 1) as u32;
            inp.val_valid = true;
            inp.val_node = node;
            inp.val_core = rng.range(0, cores as u64 - 1) as u32;
            inp.val_tag = rng.range(0, tagm as u64) as u32;
            inp.val_line = lines[rng.range(0, lines.len() as u64 - 1) as usize];
            inp.val_ts = match rng.range(0, 2) {
                0 => ts_ctr[node as usize],
                1 => ts_ctr[node as usize].wrapping_add(b.sram_rows + 3) & tsm,
                _ => rng.range(0, tsm as u64) as u32,
            };
            inp.val_csn = rng.range(0, csm as u64) as u32;
        }
        // Dump coordinator: no new epochs during recovery unless the log must drain.
        inp.dump_start = rng.chance(sc.p_start) && (!quiesce || model.log_count() * 4 >= 3 * b.lr());
        inp.dump_commit = rng.chance(sc.p_commit);
        // Log read responses.
        if let Some((t, d)) = reads.front() {
            if *t <= cycle {
                inp.logr_rsp_valid = rng.chance(sc.p_ready);
                inp.logr_rsp_data = d.clone();
            }
        }
        // Fetch batches while quiesced: lines written and lines never written, duplicates too.
        if quiesce && fq.is_empty() && rng.chance(0.02) {
            let k = rng.range(1, b.fetch_queries as u64 + 1);
            for j in 0..k {
                let line = if rng.chance(0.8) { lines[rng.range(0, lines.len() as u64 - 1) as usize] } else { 0x3FF & lmask };
                fq.push_back((line, j + 1 == k));
            }
        }
        if let Some((line, last)) = fq.front() {
            inp.fq_valid = true;
            inp.fq_line = *line;
            inp.fq_last = *last;
        }
        let o = model.outputs(&inp);
        if std::env::var("RECXL_DEBUG").is_ok() && quiesce && cycle % 200 == 0 {
            eprintln!("cycle {cycle}: quiesced {} fq {} {}", o.st_quiesced, fq.len(), model.describe());
        }
        drive(dut, b, &inp)?;
        dut.eval();
        compare(dut, b, &o, cycle, tally)?;
        tally.vectors += 1;
        // Environment reactions.
        if inp.repl_valid && o.repl_ready {
            let t = repl_q.pop_front().expect("presented");
            if !failed.has(t.node) {
                acked.push((u64::MAX, t));
            }
            rep.repls += 1;
        }
        if o.ack_valid && inp.ack_ready {
            // The oldest unacknowledged transaction with this key is the one acknowledged.
            let pos = acked.iter().position(|(d, t)| *d == u64::MAX && t.node == o.ack_node && t.core == o.ack_core && t.line == o.ack_line && (b.tag_bits == 0 || t.tag == o.ack_tag));
            if let Some(p) = pos {
                if o.ack_nack {
                    let (_, mut t) = acked.remove(p);
                    t.at_head = true;
                    repl_q.push_back(t);
                    rep.nacks += 1;
                } else {
                    acked[p].0 = cycle + 1 + rng.range(0, 8);
                }
            }
        }
        if o.logw_valid && inp.logw_ready {
            log[o.logw_idx as usize] = o.logw_data.clone();
            rep.records += 1;
            if b.csn_bits > 0 {
                let r = model.unpack(&o.logw_data);
                if let Some(prev) = last_csn.insert(r.node, r.csn) {
                    let d = r.csn.wrapping_sub(prev) & csm;
                    if d > (csm >> 1) {
                        rep.order_violations += 1;
                    }
                }
            }
        }
        if o.logr_req_valid && inp.logr_req_ready {
            reads.push_back((cycle + 1 + rng.range(0, 4), log[o.logr_req_idx as usize].clone()));
        }
        if inp.logr_rsp_valid && o.logr_rsp_ready {
            reads.pop_front();
        }
        if o.dump_wr_valid && inp.dump_wr_ready {
            if !o.dump_wr_last {
                let rec = b.rec() as usize;
                rep.records_in_beats += (0..512 / rec).filter(|j| o.dump_wr_data.get(j * rec + rec - 1)).count() as u64;
            }
            dump_mem.insert(o.dump_wr_addr, o.dump_wr_data.clone());
            rep.beats += 1;
        }
        if o.st_dump_overflow && !overflow_prev {
            rep.overflows += 1;
            epoch_at_overflow.get_or_insert(model.epoch());
        }
        overflow_prev = o.st_dump_overflow;
        // The software's exit from an overflow: a new region while the engine is idle (no start
        // this cycle), then the next start re-dumps the epoch there.
        if sc.new_region_on_overflow && o.st_dump_overflow && !o.st_dump_busy && !inp.dump_start && !region_given {
            let next = base + 64 * region_beats;
            if next + 128 * region_beats <= amask {
                base = next;
                region_beats *= 2;
                rep.regions += 1;
            }
            region_given = true;
        }
        if !o.st_dump_overflow {
            region_given = false;
        }
        if inp.fq_valid && o.fq_ready {
            fq.pop_front();
        }
        if o.fr_valid && inp.fr_ready {
            rep.fetch_beats += 1;
            rep.fetch_batches += o.fr_last as u64;
        }
        model.tick(&inp);
        dut.tick();
    }
    rep.epochs = model.epoch() as u64;
    rep.counter_dumped = model.counter(rtl_gen::blocks::recxl_logging_unit::model::ctr::DUMPED);
    rep.epochs_after_overflow = epoch_at_overflow.map_or(0, |e| (model.epoch() - e) as u64);
    rep.cycles = sc.cycles;
    tally.cycles += sc.cycles;
    Ok(rep)
}

pub fn drive(d: &mut Dut, b: &RecxlLoggingUnitBlock, i: &LuInputs) -> Result<(), SimError> {
    let n = b.n();
    d.set_u64("cfg_node_id", i.node_id as u64)?;
    d.set("cfg_failed_mask", &Bits::from_bytes_width(&i.failed.to_bytes(n), n as usize))?;
    d.set_u64("cfg_dump_base", i.dump_base)?;
    d.set_u64("cfg_dump_limit", i.dump_limit)?;
    d.set_u64("ctl_dump_start", i.dump_start as u64)?;
    d.set_u64("ctl_dump_commit", i.dump_commit as u64)?;
    d.set_u64("ctl_quiesce", i.quiesce as u64)?;
    d.set_u64("stat_sel", i.stat_sel as u64)?;
    d.set_u64("repl_valid", i.repl_valid as u64)?;
    d.set_u64("repl_src_node", i.repl_node as u64)?;
    d.set_u64("repl_src_core", i.repl_core as u64)?;
    if b.tag_bits > 0 {
        d.set_u64("repl_tag", i.repl_tag as u64)?;
        d.set_u64("val_tag", i.val_tag as u64)?;
    }
    d.set_u64("repl_at_head", i.repl_at_head as u64)?;
    d.set_u64("repl_line", i.repl_line)?;
    d.set_u64("repl_mask", i.repl_mask as u64)?;
    d.set("repl_data", &i.repl_data)?;
    d.set_u64("ack_ready", i.ack_ready as u64)?;
    d.set_u64("val_valid", i.val_valid as u64)?;
    d.set_u64("val_src_node", i.val_node as u64)?;
    d.set_u64("val_src_core", i.val_core as u64)?;
    d.set_u64("val_line", i.val_line)?;
    d.set_u64("val_ts", i.val_ts as u64)?;
    if b.csn_bits > 0 {
        d.set_u64("val_csn", i.val_csn as u64)?;
    }
    d.set_u64("logw_ready", i.logw_ready as u64)?;
    d.set_u64("logr_req_ready", i.logr_req_ready as u64)?;
    d.set_u64("logr_rsp_valid", i.logr_rsp_valid as u64)?;
    d.set("logr_rsp_data", &i.logr_rsp_data)?;
    d.set_u64("dump_wr_ready", i.dump_wr_ready as u64)?;
    d.set_u64("fq_valid", i.fq_valid as u64)?;
    d.set_u64("fq_line", i.fq_line)?;
    d.set_u64("fq_last", i.fq_last as u64)?;
    d.set_u64("fr_ready", i.fr_ready as u64)?;
    Ok(())
}

pub fn compare(d: &Dut, b: &RecxlLoggingUnitBlock, o: &LuOutputs, c: u64, t: &mut Tally) -> Result<(), SimError> {
    let u = |name: &str| d.get_u64(name);
    t.compare(c, "st_quiesced", o.st_quiesced as u64, u("st_quiesced")?);
    t.compare(c, "st_dump_busy", o.st_dump_busy as u64, u("st_dump_busy")?);
    t.compare(c, "st_dump_done", o.st_dump_done as u64, u("st_dump_done")?);
    t.compare(c, "st_dump_overflow", o.st_dump_overflow as u64, u("st_dump_overflow")?);
    t.compare(c, "st_log_almost_full", o.st_log_almost_full as u64, u("st_log_almost_full")?);
    t.compare(c, "st_log_count", o.st_log_count, u("st_log_count")?);
    t.compare(c, "st_rows_used", o.st_rows_used as u64, u("st_rows_used")?);
    t.compare(c, "st_epoch", o.st_epoch as u64, u("st_epoch")?);
    t.compare(c, "stat_data", o.stat_data, u("stat_data")?);
    t.compare(c, "repl_ready", o.repl_ready as u64, u("repl_ready")?);
    t.compare(c, "ack_valid", o.ack_valid as u64, u("ack_valid")?);
    if o.ack_valid {
        t.compare(c, "ack_dst_node", o.ack_node as u64, u("ack_dst_node")?);
        t.compare(c, "ack_dst_core", o.ack_core as u64, u("ack_dst_core")?);
        t.compare(c, "ack_line", o.ack_line, u("ack_line")?);
        t.compare(c, "ack_nack", o.ack_nack as u64, u("ack_nack")?);
        if b.tag_bits > 0 {
            t.compare(c, "ack_tag", o.ack_tag as u64, u("ack_tag")?);
        }
    }
    t.compare(c, "val_ready", 1, u("val_ready")?);
    t.compare(c, "logw_valid", o.logw_valid as u64, u("logw_valid")?);
    if o.logw_valid {
        t.compare(c, "logw_idx", o.logw_idx, u("logw_idx")?);
        t.compare_bits(c, "logw_data", &o.logw_data, &d.get("logw_data")?);
    }
    t.compare(c, "logr_req_valid", o.logr_req_valid as u64, u("logr_req_valid")?);
    if o.logr_req_valid {
        t.compare(c, "logr_req_idx", o.logr_req_idx, u("logr_req_idx")?);
    }
    t.compare(c, "logr_rsp_ready", o.logr_rsp_ready as u64, u("logr_rsp_ready")?);
    t.compare(c, "dump_wr_valid", o.dump_wr_valid as u64, u("dump_wr_valid")?);
    if o.dump_wr_valid {
        t.compare(c, "dump_wr_addr", o.dump_wr_addr, u("dump_wr_addr")?);
        t.compare(c, "dump_wr_last", o.dump_wr_last as u64, u("dump_wr_last")?);
        t.compare_bits(c, "dump_wr_data", &o.dump_wr_data, &d.get("dump_wr_data")?);
    }
    t.compare(c, "fq_ready", o.fq_ready as u64, u("fq_ready")?);
    t.compare(c, "fr_valid", o.fr_valid as u64, u("fr_valid")?);
    if o.fr_valid {
        t.compare(c, "fr_last", o.fr_last as u64, u("fr_last")?);
        t.compare(c, "fr_match", o.fr_match as u64, u("fr_match")?);
        if o.fr_match {
            t.compare(c, "fr_qidx", o.fr_qidx as u64, u("fr_qidx")?);
            t.compare(c, "fr_line", o.fr_line, u("fr_line")?);
            t.compare(c, "fr_word", o.fr_word as u64, u("fr_word")?);
            t.compare(c, "fr_src_node", o.fr_node as u64, u("fr_src_node")?);
            t.compare(c, "fr_src_core", o.fr_core as u64, u("fr_src_core")?);
            t.compare(c, "fr_data", o.fr_data, u("fr_data")?);
            t.compare(c, "fr_age", o.fr_age, u("fr_age")?);
            if b.csn_bits > 0 {
                t.compare(c, "fr_csn", o.fr_csn as u64, u("fr_csn")?);
            }
        }
    }
    Ok(())
}

/// The logging unit against its model: the default scenario, then one with a failure.
pub fn logging_unit(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = &super::kind_params::<RecxlLoggingUnitParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    let mut dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    let mut tally = Tally::default();
    let sc = LuScenario { cycles: opts.vectors.max(1_000), fail_at: Some(opts.vectors.max(1_000) * 2 / 3), ..Default::default() };
    lu_lockstep(&mut dut, b, b.model().with_mutation(Mutation::None), &sc, rng, &mut tally)?;
    Ok(tally)
}
