//! The output assignments (every output a function of the registers, and of the static
//! configuration inputs) and the module's documentation: its summary and its notes on the
//! record and trailer formats, the configuration inputs, epochs and the counters.

use super::admission::Admission;
use super::dump::Dump;
use super::fetch::Fetch;
use super::kit::sl;
use super::release::Release;
use super::super::model::TRAILER_MAGIC;
use super::super::{RecxlLoggingUnitBlock, COUNTERS};
use super::Lu;
use crate::hw::build::{add, cat, dec, eq, ge, id, mux, zeros, zext};
use crate::hw::verilog::{Expr, Item};

pub(super) fn assign(lu: &mut Lu, adm: &Admission, rel: &Release, d: &Dump, f: &Fetch) {
    let (b, nb, dw, wib, la, cb, cs, tg, lcb) = (lu.b, lu.nb, lu.dw, lu.wib, lu.la, lu.cb, lu.cs, lu.tg, lu.lcb);
    let f_last = lu.f_last.clone();
    let (repl_ready, ack_valid, logw_valid) = (adm.repl_ready.clone(), adm.ack_valid.clone(), rel.logw_valid.clone());
    let (dump_trav, in_done, in_dtrav, dwr_valid, dlast) = (d.dump_trav.clone(), d.in_done.clone(), d.in_dtrav.clone(), d.dwr_valid.clone(), d.dlast.clone());
    let (quiesced, fq_ready, fr_valid, in_ftrav, fr_q) = (f.quiesced.clone(), f.fq_ready.clone(), f.fr_valid.clone(), f.in_ftrav.clone(), f.fr_q.clone());
    let hwm = dec(lcb, b.high_water());
    let trailer = cat(vec![zeros(512 - 112), zext(id("cfg_node_id"), nb, 16), id("erecs_q"), add(id("epoch_q"), dec(32, 1)), dec(32, TRAILER_MAGIC as u64)]);
    let fl = |lo_: u32, wd_: u32| sl("frec_q", lo_ + wd_ - 1, lo_);
    let c0 = dw + wib + la;
    let mut outs = vec![
        ("st_quiesced", quiesced),
        ("st_dump_busy", dump_trav),
        ("st_dump_done", in_done),
        ("st_dump_overflow", id("overflow_q")),
        ("st_log_almost_full", ge(id("count_q"), hwm)),
        ("st_log_count", id("count_q")),
        ("st_rows_used", id("rows_used_q")),
        ("st_epoch", id("epoch_q")),
        ("stat_data", id("stat_q")),
        ("repl_ready", repl_ready),
        ("ack_valid", ack_valid),
        ("ack_dst_node", id("ack_h_node")),
        ("ack_dst_core", id("ack_h_core")),
        ("ack_line", id("ack_h_line")),
        ("ack_nack", id("ack_h_nack")),
        ("val_ready", Expr::one()),
        ("logw_valid", logw_valid),
        ("logw_idx", id("tail_q")),
        ("logw_data", id("rel_rec")),
        ("logr_req_valid", id("logr_req_valid_w")),
        ("logr_req_idx", mux(in_dtrav, id("trav_idx_q"), id("fidx_q"))),
        ("logr_rsp_ready", id("rd_pend_q")),
        ("dump_wr_valid", dwr_valid),
        ("dump_wr_addr", add(id("cfg_dump_base"), id("woff_q"))),
        ("dump_wr_data", mux(dlast.clone(), trailer, id("beat_q"))),
        ("dump_wr_last", dlast),
        ("fq_ready", fq_ready),
        ("fr_valid", fr_valid),
        ("fr_match", in_ftrav),
        ("fr_qidx", fr_q),
        ("fr_line", fl(dw + wib, la)),
        ("fr_word", fl(dw, wib)),
        ("fr_src_node", fl(c0 + cb, nb)),
        ("fr_src_core", fl(c0, cb)),
        ("fr_data", fl(0, dw)),
        ("fr_age", id("fage_q")),
        ("fr_last", eq(id("fstate_q"), f_last)),
    ];
    if tg > 0 {
        outs.push(("ack_tag", id("ack_h_tag")));
    }
    if cs > 0 {
        outs.push(("fr_csn", fl(c0 + cb + nb, cs)));
    }
    for (p, e) in outs {
        lu.it.push(Item::assign(id(p), e));
    }
}

/// The module's summary and notes.
pub(super) struct Doc {
    pub summary: String,
    pub notes: Vec<String>,
}

pub(super) fn docs(b: &RecxlLoggingUnitBlock) -> Doc {
    let (rows, ts, lr, cnt, rec, dw, cs) = (b.sram_rows, b.ts_bits, b.lr(), b.counter_bits, b.rec(), b.dw(), b.csn_bits);
    let summary = format!(
        "ReCXL Logging Unit (paper §IV-B; contract recxl.md §4): {rows} SRAM Log Buffer rows of one {}-byte line, REPL → REPL_ACK, VAL with a {ts}-bit timestamp, release to a {lr}-record DRAM log in timestamp order per source and eligibility order across sources, dump epochs as 64-byte beats with a trailer, FetchLatestVers newest to oldest in one traversal, quiesce, {COUNTERS} saturating {cnt}-bit counters.",
        b.shape.line_bytes
    );
    let notes = vec![
        format!("Record ({rec} bits, LSB first): value [{}:0], word index, line, core, node, CSN ({cs} bits), zero padding, Valid at bit {}.", dw - 1, rec - 1),
        "Dump trailer beat: [31:0] 0x5243584C, [63:32] epoch number (st_epoch + 1), [95:64] records, [111:96] node ID.".into(),
        format!("free_lag = {}: at a commit the unit frees {}.", b.free_lag, if b.free_lag == 1 { "the previous epoch's snapshot (H6)" } else { "its own snapshot (paper's \"clears its whole log\")" }),
        "One log read outstanding. Release: each row's eligibility (releasable, and its E) is registered (r<i>_rq, r<i>_e), per source its row of those is registered as a candidate (rc<s>_*) with the comparisons of the candidates' E inside each group of four sources (rc<a>_le<b>), and the release engine picks among the candidates (a one-hot select from those comparisons; with more than four sources the group winners meet in a tournament), so a row is picked three cycles after its VAL at the earliest (VAL in cycle t, row VALID from t + 1, eligibility registered from t + 2, candidate from t + 3, first record offered at t + 4); back-to-back releases keep their spacing (one record per cycle, the row freed one cycle after its last record). Counters count their events one cycle late (registered events), so stat_data shows an event three cycles after it (event cycle t, counted at t + 2, read out at t + 3 for a stat_sel held since t + 2).".into(),
        "Configuration inputs: cfg_node_id is static (change it only in reset). cfg_failed_mask may gain bits in any cycle (the CM sets them at Interrupt, before the unit can quiesce) and never loses any. cfg_dump_base and cfg_dump_limit may change only while st_dump_busy is low. stat_sel may change in any cycle.".into(),
        "Epoch boundary: the snapshot of an accepted ctl_dump_start is the log as it was before that edge, so a record written (logw_valid and logw_ready) in the same cycle as ctl_dump_start belongs to the next epoch.".into(),
        "Dump region: epochs are written one after the other at cfg_dump_base + offset. An accepted ctl_dump_start whose cfg_dump_base differs from the previous epoch's begins a new region at offset 0. When the next beat (data or trailer) would pass cfg_dump_limit the epoch stops: st_dump_overflow rises, the beats written are abandoned (no trailer), the offset returns to the epoch's start, the engine is idle again (st_dump_busy and st_dump_done low) and a commit is ignored (counted). To leave that state software supplies room, a new region (another cfg_dump_base, and its cfg_dump_limit) or a higher cfg_dump_limit for the same region, and pulses ctl_dump_start: st_dump_overflow clears and the epoch is dumped again from its start under the same epoch number, with a fresh snapshot. Until then the log is not freed and fills (nothing is lost; release then stalls).".into(),
        "Committed epochs: a trailer marks a finished traversal, not a commit. An epoch abandoned when done (ctl_quiesce rose, or cfg_failed_mask gained a bit after the epoch started, in which case its beats may mix records selected under two masks) also leaves a trailer. Epoch E is committed when an accepted ctl_dump_commit makes st_epoch = E; its content is the last run of beats ending in a trailer numbered E (earlier runs numbered E are superseded), and an epoch whose number st_epoch never reached is not committed.".into(),
        format!("Counters (stat_sel, saturating at {cnt} bits): 0 REPLs that allocated a row (NACKed and failed-source REPLs take none), 1 words in those REPLs, 2 REPLs NACKed, 3 REPL stall cycles, 4 ACK stall cycles, 5 VALs matched, 6 orphan VALs, 7 ambiguous VAL matches, 8 VAL TS-window errors, 9 records logged, 10 log-full stall cycles, 11 epochs committed, 12 records in data beats written to the dump region (each time a record is written), 13 dump beats written (trailers included), 14 dump starts/commits ignored, 15 REPLs/VALs of failed sources dropped, 16 unvalidated rows discarded, 17 TS gap skips, 18 fetch batches, 19 fetch matches, 20 row high-water mark, 21 log-count high-water mark, 22 empty-mask REPLs; other stat_sel values read 0."),
    ];
    Doc { summary, notes }
}
