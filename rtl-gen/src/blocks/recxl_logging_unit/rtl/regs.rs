//! The register file: every register of the unit with its reset value, declared in one
//! place in the model's order (the clock, the row table, the row-data RAM, the sources, the row
//! counts, the ACK FIFO, the release engine, the log pointers, the dump engine, the fetch
//! engine, the counters).

use super::super::model::ctr::{LOG_HWM, ROW_HWM};
use super::kit::{reg, state_reg};
use super::Lu;
use crate::hw::verilog::Item;

pub(super) fn declare(lu: &mut Lu) {
    let (rows, n, nb, cb, tg, cs, ts, la, wd, lw) = (lu.rows, lu.n, lu.nb, lu.cb, lu.tg, lu.cs, lu.ts, lu.la, lu.wd, lu.lw);
    let (rb, rcb, lib, lcb, bnb, a, q, qnb, rec, cnt) = (lu.rb, lu.rcb, lu.lib, lu.lcb, lu.bnb, lu.a, lu.q, lu.qnb, lu.rec, lu.cnt);
    let (st_free, d_idle, f_idle) = (lu.st_free.clone(), lu.d_idle.clone(), lu.f_idle.clone());
    reg(&mut lu.it, &mut lu.rst, "now_q", 32, 0, "cycle counter: VAL stamps");
    for i in 0..rows {
        state_reg(&mut lu.it, &mut lu.rst, &format!("r{i}_st"), 2, st_free.clone(), &format!("row {i} state"));
        reg(&mut lu.it, &mut lu.rst, &format!("r{i}_node"), nb, 0, "");
        reg(&mut lu.it, &mut lu.rst, &format!("r{i}_core"), cb, 0, "");
        if tg > 0 {
            reg(&mut lu.it, &mut lu.rst, &format!("r{i}_tag"), tg, 0, "");
        }
        reg(&mut lu.it, &mut lu.rst, &format!("r{i}_line"), la, 0, "");
        reg(&mut lu.it, &mut lu.rst, &format!("r{i}_mask"), wd, 0, "");
        reg(&mut lu.it, &mut lu.rst, &format!("r{i}_head"), 1, 0, "");
        reg(&mut lu.it, &mut lu.rst, &format!("r{i}_ts"), ts, 0, "");
        if cs > 0 {
            reg(&mut lu.it, &mut lu.rst, &format!("r{i}_csn"), cs, 0, "");
        }
        reg(&mut lu.it, &mut lu.rst, &format!("r{i}_stamp"), 32, 0, "");
    }
    lu.it.push(Item::Memory { name: "row_data".into(), width: lw, depth: rows, doc: "row data (the SRAM Log Buffer proper)".into() });
    for s in 0..n {
        reg(&mut lu.it, &mut lu.rst, &format!("s{s}_nts"), ts, 1, &format!("next TS expected from CN {s}"));
        reg(&mut lu.it, &mut lu.rst, &format!("s{s}_el"), 32, 0, &format!("last eligibility time of CN {s}"));
    }
    reg(&mut lu.it, &mut lu.rst, "rows_used_q", rcb, 0, "rows not FREE");
    reg(&mut lu.it, &mut lu.rst, "head_used_q", rcb, 0, "rows held by SB-head REPLs");
    for j in 0..4 {
        reg(&mut lu.it, &mut lu.rst, &format!("a{j}_node"), nb, 0, &format!("ACK FIFO entry {j}"));
        reg(&mut lu.it, &mut lu.rst, &format!("a{j}_core"), cb, 0, "");
        if tg > 0 {
            reg(&mut lu.it, &mut lu.rst, &format!("a{j}_tag"), tg, 0, "");
        }
        reg(&mut lu.it, &mut lu.rst, &format!("a{j}_line"), la, 0, "");
        reg(&mut lu.it, &mut lu.rst, &format!("a{j}_nack"), 1, 0, "");
    }
    reg(&mut lu.it, &mut lu.rst, "ack_rd_q", 2, 0, "ACK FIFO read pointer");
    reg(&mut lu.it, &mut lu.rst, "ack_wr_q", 2, 0, "ACK FIFO write pointer");
    reg(&mut lu.it, &mut lu.rst, "ack_cnt_q", 3, 0, "ACK FIFO entries");
    reg(&mut lu.it, &mut lu.rst, "rel_busy_q", 1, 0, "release engine owns a row");
    reg(&mut lu.it, &mut lu.rst, "rel_row_q", rb, 0, "row being released");
    reg(&mut lu.it, &mut lu.rst, "rel_mask_q", wd, 0, "words still to log");
    lu.it.push(Item::reg("rel_data_q", lw, "data of the row being released"));
    reg(&mut lu.it, &mut lu.rst, "rel_node_q", nb, 0, "");
    reg(&mut lu.it, &mut lu.rst, "rel_core_q", cb, 0, "");
    reg(&mut lu.it, &mut lu.rst, "rel_line_q", la, 0, "");
    reg(&mut lu.it, &mut lu.rst, "rel_head_q", 1, 0, "");
    if cs > 0 {
        reg(&mut lu.it, &mut lu.rst, "rel_csn_q", cs, 0, "");
    }
    reg(&mut lu.it, &mut lu.rst, "head_q", lib, 0, "oldest record held");
    reg(&mut lu.it, &mut lu.rst, "tail_q", lib, 0, "next record index");
    reg(&mut lu.it, &mut lu.rst, "count_q", lcb, 0, "records held");
    reg(&mut lu.it, &mut lu.rst, "dumped_n_q", lcb, 0, "records from head to the end of the last committed snapshot");
    if lu.b.free_lag == 1 {
        reg(&mut lu.it, &mut lu.rst, "prev_n_q", lcb, 0, "records from head to the previous epoch's boundary (free_lag = 1)");
    }
    state_reg(&mut lu.it, &mut lu.rst, "dstate_q", 2, d_idle.clone(), "dump engine state");
    reg(&mut lu.it, &mut lu.rst, "quiesce_q", 1, 0, "ctl_quiesce of the previous cycle (a done epoch is abandoned when it rises)");
    reg(&mut lu.it, &mut lu.rst, "trav_idx_q", lib, 0, "next record the dump reads");
    reg(&mut lu.it, &mut lu.rst, "trav_left_q", lcb, 0, "records left to read");
    reg(&mut lu.it, &mut lu.rst, "resc_left_q", lcb, 0, "responses left in the failure rescan region");
    reg(&mut lu.it, &mut lu.rst, "snap_n_q", lcb, 0, "records from head to the epoch boundary T");
    reg(&mut lu.it, &mut lu.rst, "rd_pend_q", 1, 0, "a log read is outstanding");
    reg(&mut lu.it, &mut lu.rst, "beat_q", 512, 0, "dump beat being packed");
    reg(&mut lu.it, &mut lu.rst, "beat_n_q", bnb, 0, "records in beat_q");
    reg(&mut lu.it, &mut lu.rst, "woff_q", a, 0, "dump write offset from cfg_dump_base");
    reg(&mut lu.it, &mut lu.rst, "estart_q", a, 0, "write offset at this epoch's start (an overflow rewinds to it)");
    reg(&mut lu.it, &mut lu.rst, "rbase_q", a, 0, "cfg_dump_base the offsets belong to (another base at a start: offset 0)");
    reg(&mut lu.it, &mut lu.rst, "erecs_q", 32, 0, "records in this epoch");
    reg(&mut lu.it, &mut lu.rst, "overflow_q", 1, 0, "the last epoch stopped at the region's end (until the next start)");
    reg(&mut lu.it, &mut lu.rst, "mask_seen_q", n, 0, "failed mask of the last committed epoch");
    reg(&mut lu.it, &mut lu.rst, "emask_q", n, 0, "failed mask of this epoch");
    reg(&mut lu.it, &mut lu.rst, "epoch_q", 32, 0, "committed epochs");
    state_reg(&mut lu.it, &mut lu.rst, "fstate_q", 2, f_idle.clone(), "fetch engine state");
    for k in 0..q {
        reg(&mut lu.it, &mut lu.rst, &format!("q{k}_line"), la, 0, &format!("query {k}"));
    }
    reg(&mut lu.it, &mut lu.rst, "q_n_q", qnb, 0, "queries loaded");
    reg(&mut lu.it, &mut lu.rst, "fidx_q", lib, 0, "next record the fetch reads");
    reg(&mut lu.it, &mut lu.rst, "fleft_q", lcb, 0, "records left to read");
    reg(&mut lu.it, &mut lu.rst, "fage_q", lib, 0, "age of frec_q");
    reg(&mut lu.it, &mut lu.rst, "fnext_q", lib, 0, "age of the next record read");
    lu.it.push(Item::pragma("verilator lint_off UNUSED"));
    lu.it.push(Item::comment("The Valid bit and padding of a fetched record are not reported."));
    reg(&mut lu.it, &mut lu.rst, "frec_q", rec, 0, "record being reported");
    lu.it.push(Item::pragma("verilator lint_on UNUSED"));
    reg(&mut lu.it, &mut lu.rst, "fmatch_q", q, 0, "queries matching frec_q still to report");
    // The event counters are declared with their increments (`counters`); the two high-water
    // marks here.
    for c in [ROW_HWM, LOG_HWM] {
        reg(&mut lu.it, &mut lu.rst, &format!("cnt{c}_q"), cnt, 0, &format!("counter {c} (contract §4.8): high-water mark"));
    }
    reg(&mut lu.it, &mut lu.rst, "stat_q", cnt, 0, "registered counter read");
}
