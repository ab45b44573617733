//! The logging unit as RTL: per-row header registers and a row-data RAM (the SRAM Log Buffer),
//! per-source timestamp registers, a 4-deep REPL_ACK FIFO, the release engine, the dump and fetch
//! engines over one log read port, and the counters. Register for register the structure of
//! [`super::model::LoggingUnitModel`]; every choice it documents is made the same way here.

use super::model::{D_DONE, D_FLUSH, D_IDLE, D_TRAV, FREE, F_IDLE, F_LAST, F_TRAV, PENDING, TRAILER_MAGIC, VALID};
use super::{RecxlLoggingUnitBlock, COUNTERS};
use crate::blocks::recxl_replica_map::rtl::emit as emit_map;
use crate::info::DesignInfo;
use crate::hw::build::{add, all, any, bit_of, bits_for, cat, dec, eq, ge, gt, id, if_else, lt, mux, ne, set_id, sub, when, zeros, zext};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt, UnOp};

/// Deliberate defects for the mutation checks of contract §5.2: each must make the lockstep
/// co-simulation against the (correct) model fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    None,
    /// Release rows in VAL arrival order (the timestamp check is dropped).
    ArrivalOrder,
    /// Free a row when its REPL_ACK leaves instead of after its records are logged.
    FreeOnAck,
    /// Free the whole snapshot at commit whatever `free_lag` says.
    IgnoreFreeLag,
}

fn w(items: &mut Vec<Item>, name: &str, width: u32, value: Expr) -> Expr {
    items.push(Item::wire(name, width, ""));
    items.push(Item::assign(id(name), value));
    id(name)
}

fn reg(items: &mut Vec<Item>, rst: &mut Vec<Stmt>, name: &str, width: u32, init: u64, doc: &str) {
    state_reg(items, rst, name, width, dec(width, init), doc);
}

/// A register whose reset value has a name (a state machine's idle state).
fn state_reg(items: &mut Vec<Item>, rst: &mut Vec<Stmt>, name: &str, width: u32, init: Expr, doc: &str) {
    items.push(Item::reg(name, width, doc));
    rst.push(set_id(name, init));
}

/// A priority encoder: the first `i` (lowest) for which `cond(i)` holds gives `val(i)`, else
/// `dflt`, as the `width`-bit wire `name`. The conditions are gathered in the wire `{name}_hit`
/// and the choice is a balanced tree (the lower half wins when any of its conditions holds), so
/// the select path is ⌈log2 n⌉ muxes fed by OR reductions rather than the `n` muxes of a chain.
fn first_of(it: &mut Vec<Item>, name: &str, width: u32, n: u32, cond: impl Fn(u32) -> Expr, val: impl Fn(u32) -> Expr, dflt: Expr) -> Expr {
    let hit = format!("{name}_hit");
    let hits = w(it, &hit, n, cat((0..n).rev().map(cond).collect()));
    let any_in = |lo: u32, hi: u32| if n == 1 { hits.clone() } else if hi - lo == 1 { Expr::bit(&hit, lo) } else { Expr::red(UnOp::RedOr, sl(&hit, hi - 1, lo)) };
    // The value of the first hit in [lo, hi), given that one of them holds.
    fn pick(lo: u32, hi: u32, any_in: &dyn Fn(u32, u32) -> Expr, val: &dyn Fn(u32) -> Expr) -> Expr {
        if hi - lo == 1 {
            return val(lo);
        }
        let mid = lo + (hi - lo).div_ceil(2);
        mux(any_in(lo, mid), pick(lo, mid, any_in, val), pick(mid, hi, any_in, val))
    }
    let chosen = mux(any_in(0, n), pick(0, n, &any_in, &val), dflt);
    w(it, name, width, chosen)
}

/// `val(sel)` for the `bits`-bit select wire `sel`, `val(n - 1)` for a select of `n` or more: a
/// balanced mux on the select bits, most significant first.
fn by_index(sel: &str, bits: u32, n: u32, val: &dyn Fn(u32) -> Expr) -> Expr {
    fn level(sel: &str, bits: u32, n: u32, lo: u32, b: u32, val: &dyn Fn(u32) -> Expr) -> Expr {
        if b == 0 || lo >= n - 1 {
            return val(lo.min(n - 1));
        }
        let half = 1 << (b - 1);
        mux(bit_of(sel, bits, b - 1), level(sel, bits, n, lo + half, b - 1, val), level(sel, bits, n, lo, b - 1, val))
    }
    level(sel, bits, n, 0, bits, val)
}

/// One candidate of a [`tournament`]: whether it takes part, its key and the values it carries
/// (in the order of the tournament's `carried` fields).
struct Entrant {
    valid: Expr,
    key: Expr,
    carried: Vec<Expr>,
}

/// The valid entrant with the smallest key, the lowest index among equal keys: what a linear
/// scan gives in which a later entrant wins only with a strictly smaller key, in ⌈log2 n⌉
/// compare-and-select levels (pairs merge, the lower-index side keeps a tie). With no valid
/// entrant the winner is entrant 0 with `valid` low. Each merge's signals are the wires
/// `{name}{level}_{slot}_{t,v,k,<field>}`; the winner's are `{name}_v`, `{name}_k` (only with
/// `key_out`: the final merge then selects no key) and `{name}_<field>` for the `carried` fields
/// (name, width).
fn tournament(it: &mut Vec<Item>, name: &str, key_width: u32, key_out: bool, carried: &[(&str, u32)], mut round: Vec<Entrant>) -> Entrant {
    let mut level = 0;
    while round.len() > 1 {
        let key_needed = key_out || round.len() > 2;
        level += 1;
        let mut next = Vec::with_capacity(round.len().div_ceil(2));
        let round_size = round.len();
        let mut pairs = round.into_iter();
        let mut slot = 0;
        while let Some(lo) = pairs.next() {
            let Some(hi) = pairs.next() else {
                next.push(lo);
                break;
            };
            // The final's wires carry the tournament's own name: they are its result.
            let n = if round_size == 2 { name.to_string() } else { format!("{name}{level}_{slot}") };
            let take_hi = w(it, &format!("{n}_t"), 1, and2(hi.valid.clone(), or2(lo.valid.clone().lnot(), lt(hi.key.clone(), lo.key.clone()))));
            let valid = w(it, &format!("{n}_v"), 1, or2(lo.valid, hi.valid));
            let key = if key_needed { w(it, &format!("{n}_k"), key_width, mux(take_hi.clone(), hi.key, lo.key)) } else { Expr::zero() };
            let values = lo.carried.into_iter().zip(hi.carried).zip(carried);
            let carried = values.map(|((l, h), &(f, fw))| w(it, &format!("{n}_{f}"), fw, mux(take_hi.clone(), h, l))).collect();
            next.push(Entrant { valid, key, carried });
            slot += 1;
        }
        round = next;
    }
    let last = round.pop().expect("a tournament has at least one entrant");
    if level > 0 {
        return last;
    }
    Entrant {
        valid: w(it, &format!("{name}_v"), 1, last.valid),
        key: if key_out { w(it, &format!("{name}_k"), key_width, last.key) } else { Expr::zero() },
        carried: last.carried.into_iter().zip(carried).map(|(c, &(f, fw))| w(it, &format!("{name}_{f}"), fw, c)).collect(),
    }
}

fn sl(name: &str, hi: u32, lo: u32) -> Expr {
    Expr::slice(name, hi, lo)
}

pub fn module(b: &RecxlLoggingUnitBlock, design: &DesignInfo, name: &str, mutation: Mutation) -> GeneratedModule {
    let rows = b.sram_rows;
    let n = b.n();
    let (nb, cb, tg, cs, ts, la) = (b.nb(), b.cb(), b.tag_bits, b.csn_bits, b.ts_bits, b.la());
    let (wd, wib, dw, lw, rec, rpb) = (b.words(), b.wib(), b.dw(), b.lw(), b.rec(), b.rpb());
    let (lr, lib, lcb, q, qb, cnt, a) = (b.lr(), b.lib(), b.lcb(), b.fetch_queries, b.qb(), b.counter_bits, b.shape.addr_bits);
    let rb = b.rb();
    let rcb = rb + 1;
    let bnb = bits_for(rpb as u64);
    let qnb = bits_for(q as u64);
    let mut ports = clock_ports(design);
    let mut push = |p: Port| ports.push(p);
    push(Port::input("cfg_node_id", nb, "this CN's ID; static (change it only in reset)"));
    push(Port::input("cfg_failed_mask", n, "bit n = CN n has failed; bits may be set in any cycle (at Interrupt, before the unit quiesces), never cleared"));
    push(Port::input("cfg_dump_base", a, "byte address of this unit's dump region, 64-byte aligned; change only while st_dump_busy is low"));
    push(Port::input("cfg_dump_limit", a, "exclusive end of the dump region; change only while st_dump_busy is low"));
    push(Port::input("ctl_dump_start", 1, "pulse: start a dump epoch (taken while idle, not done, and no fetch runs)"));
    push(Port::input("ctl_dump_commit", 1, "pulse: every unit finished this epoch (barrier)"));
    push(Port::input("ctl_quiesce", 1, "level: Interrupt .. RecovEnd"));
    push(Port::output("st_quiesced", 1, "InterruptResp condition of this unit"));
    push(Port::output("st_dump_busy", 1, "epoch traversal running"));
    push(Port::output("st_dump_done", 1, "traversal and trailer written, waiting for commit"));
    push(Port::output("st_dump_overflow", 1, "the last epoch stopped at cfg_dump_limit (abandoned, no trailer); cleared by the next accepted ctl_dump_start"));
    push(Port::output("st_log_almost_full", 1, "log occupancy >= high-water mark"));
    push(Port::output("st_log_count", lcb, "records held in the DRAM log"));
    push(Port::output("st_rows_used", rcb, "SRAM rows in use"));
    push(Port::output("st_epoch", 32, "committed epochs"));
    push(Port::input("stat_sel", 5, "counter select"));
    push(Port::output("stat_data", cnt, "counter stat_sel, registered (1-cycle latency)"));
    push(Port::input("repl_valid", 1, "REPL offered"));
    push(Port::output("repl_ready", 1, "a row is free and the ACK FIFO has room"));
    push(Port::input("repl_src_node", nb, "requester CN"));
    push(Port::input("repl_src_core", cb, "requester core"));
    if tg > 0 {
        push(Port::input("repl_tag", tg, "transaction tag (H1)"));
    }
    push(Port::input("repl_at_head", 1, "store at the SB head (H4)"));
    push(Port::input("repl_line", la, "physical line address"));
    push(Port::input("repl_mask", wd, "Word Mask, bit i = word i"));
    push(Port::input("repl_data", lw, "word i at [DW*i+DW-1 : DW*i]"));
    push(Port::output("ack_valid", 1, "REPL_ACK offered"));
    push(Port::input("ack_ready", 1, "REPL_ACK taken"));
    push(Port::output("ack_dst_node", nb, "requester CN"));
    push(Port::output("ack_dst_core", cb, "requester core"));
    if tg > 0 {
        push(Port::output("ack_tag", tg, "transaction tag"));
    }
    push(Port::output("ack_line", la, "line acknowledged"));
    push(Port::output("ack_nack", 1, "1 = not logged, re-send at the SB head (H4)"));
    push(Port::input("val_valid", 1, "VAL offered"));
    push(Port::output("val_ready", 1, "always 1: VAL is never backpressured"));
    push(Port::input("val_src_node", nb, "requester CN"));
    push(Port::input("val_src_core", cb, "requester core"));
    if tg > 0 {
        push(Port::input("val_tag", tg, "transaction tag"));
    }
    push(Port::input("val_line", la, "line validated"));
    push(Port::input("val_ts", ts, "logical timestamp (§IV-C)"));
    if cs > 0 {
        push(Port::input("val_csn", cs, "commit sequence number (H2)"));
    }
    push(Port::output("logw_valid", 1, "append one record to the DRAM log"));
    push(Port::input("logw_ready", 1, "the log memory takes it"));
    push(Port::output("logw_idx", lib, "record index (wraps at LR)"));
    push(Port::output("logw_data", rec, "record (contract §4.4)"));
    push(Port::output("logr_req_valid", 1, "log read request"));
    push(Port::input("logr_req_ready", 1, "read request taken"));
    push(Port::output("logr_req_idx", lib, "record index to read"));
    push(Port::input("logr_rsp_valid", 1, "read data"));
    push(Port::output("logr_rsp_ready", 1, "read data taken"));
    push(Port::input("logr_rsp_data", rec, "record read"));
    push(Port::output("dump_wr_valid", 1, "64-byte write to the MN dump region"));
    push(Port::input("dump_wr_ready", 1, "write taken"));
    push(Port::output("dump_wr_addr", a, "byte address, 64-byte aligned"));
    push(Port::output("dump_wr_data", 512, "RPB records, or the trailer"));
    push(Port::output("dump_wr_last", 1, "epoch trailer beat"));
    push(Port::input("fq_valid", 1, "FetchLatestVers query"));
    push(Port::output("fq_ready", 1, "query taken (quiesced, fetch idle)"));
    push(Port::input("fq_line", la, "queried line"));
    push(Port::input("fq_last", 1, "last query of the batch"));
    push(Port::output("fr_valid", 1, "FetchLatestVersResp beat"));
    push(Port::input("fr_ready", 1, "beat taken"));
    push(Port::output("fr_match", 1, "beat carries a logged update (0 on the terminating beat)"));
    push(Port::output("fr_qidx", qb, "query index"));
    push(Port::output("fr_line", la, "line"));
    push(Port::output("fr_word", wib, "word index"));
    push(Port::output("fr_src_node", nb, "writer CN"));
    push(Port::output("fr_src_core", cb, "writer core"));
    if cs > 0 {
        push(Port::output("fr_csn", cs, "commit sequence number"));
    }
    push(Port::output("fr_data", dw, "word value"));
    push(Port::output("fr_age", lib, "0 = newest record of the log"));
    push(Port::output("fr_last", 1, "terminating beat"));

    let mut it: Vec<Item> = Vec::new();
    let mut rst: Vec<Stmt> = Vec::new();
    let mut body: Vec<Stmt> = Vec::new();
    let rows_c = |v: u64| dec(rcb, v);
    let st_free = crate::hw::build::localparam(&mut it, "ROW_FREE", 2, FREE as u64, "row states");
    let st_pend = crate::hw::build::localparam(&mut it, "ROW_PENDING", 2, PENDING as u64, "REPL logged, waiting for VAL");
    let st_valid = crate::hw::build::localparam(&mut it, "ROW_VALID", 2, VALID as u64, "validated, waiting for release in TS order");
    let d_idle = crate::hw::build::localparam(&mut it, "D_IDLE", 2, D_IDLE as u64, "dump engine states");
    let d_trav = crate::hw::build::localparam(&mut it, "D_TRAV", 2, D_TRAV as u64, "traversing [dumped, T)");
    let d_flush = crate::hw::build::localparam(&mut it, "D_FLUSH", 2, D_FLUSH as u64, "last data beat and trailer");
    let d_done = crate::hw::build::localparam(&mut it, "D_DONE", 2, D_DONE as u64, "waiting for ctl_dump_commit");
    let f_idle = crate::hw::build::localparam(&mut it, "F_IDLE", 2, F_IDLE as u64, "fetch engine states");
    let f_trav = crate::hw::build::localparam(&mut it, "F_TRAV", 2, F_TRAV as u64, "newest-to-oldest traversal");
    let f_last = crate::hw::build::localparam(&mut it, "F_LAST", 2, F_LAST as u64, "terminating beat");
    let n_rows = crate::hw::build::localparam(&mut it, "ROWS", rcb, rows as u64, "SRAM Log Buffer rows");
    let lr_c = crate::hw::build::localparam(&mut it, "LOG_RECORDS", lcb, lr, "DRAM log capacity in records");
    let cnt_max = Expr::Const(crate::math::gf2::BitVec::from_u128(cnt as usize, if cnt >= 128 { u128::MAX } else { (1u128 << cnt) - 1 }));

    // ---- registers -------------------------------------------------------------------------
    reg(&mut it, &mut rst, "now_q", 32, 0, "cycle counter: VAL stamps");
    for i in 0..rows {
        state_reg(&mut it, &mut rst, &format!("r{i}_st"), 2, st_free.clone(), &format!("row {i} state"));
        reg(&mut it, &mut rst, &format!("r{i}_node"), nb, 0, "");
        reg(&mut it, &mut rst, &format!("r{i}_core"), cb, 0, "");
        if tg > 0 {
            reg(&mut it, &mut rst, &format!("r{i}_tag"), tg, 0, "");
        }
        reg(&mut it, &mut rst, &format!("r{i}_line"), la, 0, "");
        reg(&mut it, &mut rst, &format!("r{i}_mask"), wd, 0, "");
        reg(&mut it, &mut rst, &format!("r{i}_head"), 1, 0, "");
        reg(&mut it, &mut rst, &format!("r{i}_ts"), ts, 0, "");
        if cs > 0 {
            reg(&mut it, &mut rst, &format!("r{i}_csn"), cs, 0, "");
        }
        reg(&mut it, &mut rst, &format!("r{i}_stamp"), 32, 0, "");
    }
    it.push(Item::Memory { name: "row_data".into(), width: lw, depth: rows, doc: "row data (the SRAM Log Buffer proper)".into() });
    for s in 0..n {
        reg(&mut it, &mut rst, &format!("s{s}_nts"), ts, 1, &format!("next TS expected from CN {s}"));
        reg(&mut it, &mut rst, &format!("s{s}_el"), 32, 0, &format!("last eligibility time of CN {s}"));
    }
    reg(&mut it, &mut rst, "rows_used_q", rcb, 0, "rows not FREE");
    reg(&mut it, &mut rst, "head_used_q", rcb, 0, "rows held by SB-head REPLs");
    for j in 0..4 {
        reg(&mut it, &mut rst, &format!("a{j}_node"), nb, 0, &format!("ACK FIFO entry {j}"));
        reg(&mut it, &mut rst, &format!("a{j}_core"), cb, 0, "");
        if tg > 0 {
            reg(&mut it, &mut rst, &format!("a{j}_tag"), tg, 0, "");
        }
        reg(&mut it, &mut rst, &format!("a{j}_line"), la, 0, "");
        reg(&mut it, &mut rst, &format!("a{j}_nack"), 1, 0, "");
    }
    reg(&mut it, &mut rst, "ack_rd_q", 2, 0, "ACK FIFO read pointer");
    reg(&mut it, &mut rst, "ack_wr_q", 2, 0, "ACK FIFO write pointer");
    reg(&mut it, &mut rst, "ack_cnt_q", 3, 0, "ACK FIFO entries");
    reg(&mut it, &mut rst, "rel_busy_q", 1, 0, "release engine owns a row");
    reg(&mut it, &mut rst, "rel_row_q", rb, 0, "row being released");
    reg(&mut it, &mut rst, "rel_mask_q", wd, 0, "words still to log");
    it.push(Item::reg("rel_data_q", lw, "data of the row being released"));
    reg(&mut it, &mut rst, "rel_node_q", nb, 0, "");
    reg(&mut it, &mut rst, "rel_core_q", cb, 0, "");
    reg(&mut it, &mut rst, "rel_line_q", la, 0, "");
    reg(&mut it, &mut rst, "rel_head_q", 1, 0, "");
    if cs > 0 {
        reg(&mut it, &mut rst, "rel_csn_q", cs, 0, "");
    }
    reg(&mut it, &mut rst, "head_q", lib, 0, "oldest record held");
    reg(&mut it, &mut rst, "tail_q", lib, 0, "next record index");
    reg(&mut it, &mut rst, "count_q", lcb, 0, "records held");
    reg(&mut it, &mut rst, "dumped_n_q", lcb, 0, "records from head to the end of the last committed snapshot");
    if b.free_lag == 1 {
        reg(&mut it, &mut rst, "prev_n_q", lcb, 0, "records from head to the previous epoch's boundary (free_lag = 1)");
    }
    state_reg(&mut it, &mut rst, "dstate_q", 2, d_idle.clone(), "dump engine state");
    reg(&mut it, &mut rst, "quiesce_q", 1, 0, "ctl_quiesce of the previous cycle (a done epoch is abandoned when it rises)");
    reg(&mut it, &mut rst, "trav_idx_q", lib, 0, "next record the dump reads");
    reg(&mut it, &mut rst, "trav_left_q", lcb, 0, "records left to read");
    reg(&mut it, &mut rst, "resc_left_q", lcb, 0, "responses left in the failure rescan region");
    reg(&mut it, &mut rst, "snap_n_q", lcb, 0, "records from head to the epoch boundary T");
    reg(&mut it, &mut rst, "rd_pend_q", 1, 0, "a log read is outstanding");
    reg(&mut it, &mut rst, "beat_q", 512, 0, "dump beat being packed");
    reg(&mut it, &mut rst, "beat_n_q", bnb, 0, "records in beat_q");
    reg(&mut it, &mut rst, "woff_q", a, 0, "dump write offset from cfg_dump_base");
    reg(&mut it, &mut rst, "estart_q", a, 0, "write offset at this epoch's start (an overflow rewinds to it)");
    reg(&mut it, &mut rst, "rbase_q", a, 0, "cfg_dump_base the offsets belong to (another base at a start: offset 0)");
    reg(&mut it, &mut rst, "erecs_q", 32, 0, "records in this epoch");
    reg(&mut it, &mut rst, "overflow_q", 1, 0, "the last epoch stopped at the region's end (until the next start)");
    reg(&mut it, &mut rst, "mask_seen_q", n, 0, "failed mask of the last committed epoch");
    reg(&mut it, &mut rst, "emask_q", n, 0, "failed mask of this epoch");
    reg(&mut it, &mut rst, "epoch_q", 32, 0, "committed epochs");
    state_reg(&mut it, &mut rst, "fstate_q", 2, f_idle.clone(), "fetch engine state");
    for k in 0..q {
        reg(&mut it, &mut rst, &format!("q{k}_line"), la, 0, &format!("query {k}"));
    }
    reg(&mut it, &mut rst, "q_n_q", qnb, 0, "queries loaded");
    reg(&mut it, &mut rst, "fidx_q", lib, 0, "next record the fetch reads");
    reg(&mut it, &mut rst, "fleft_q", lcb, 0, "records left to read");
    reg(&mut it, &mut rst, "fage_q", lib, 0, "age of frec_q");
    reg(&mut it, &mut rst, "fnext_q", lib, 0, "age of the next record read");
    it.push(Item::pragma("verilator lint_off UNUSED"));
    it.push(Item::comment("The Valid bit and padding of a fetched record are not reported."));
    reg(&mut it, &mut rst, "frec_q", rec, 0, "record being reported");
    it.push(Item::pragma("verilator lint_on UNUSED"));
    reg(&mut it, &mut rst, "fmatch_q", q, 0, "queries matching frec_q still to report");
    for c in 0..COUNTERS {
        reg(&mut it, &mut rst, &format!("cnt{c}_q"), cnt, 0, &format!("counter {c} (contract §4.8)"));
    }
    reg(&mut it, &mut rst, "stat_q", cnt, 0, "registered counter read");

    // ---- helpers ---------------------------------------------------------------------------
    let src_mux = |sel: &str, f: &dyn Fn(u32) -> Expr| by_index(sel, nb, n, f);
    let failed = |sel: Expr| Expr::Index("cfg_failed_mask".into(), Box::new(sel));
    let inc_mod = |x: Expr| mux(eq(x.clone(), dec(lib, lr - 1)), dec(lib, 0), add(x, dec(lib, 1)));
    let dec_mod = |x: Expr| mux(eq(x.clone(), dec(lib, 0)), dec(lib, lr - 1), sub(x, dec(lib, 1)));
    // Index + count modulo LR, in lcb + 1 bits; the low lib bits are the index.
    let add_mod = |it: &mut Vec<Item>, name: &str, a_: Expr, n_: Expr| -> Expr {
        let s_ = format!("{name}_s");
        let m_ = format!("{name}_m");
        it.push(Item::pragma("verilator lint_off UNUSED"));
        w(it, &s_, lcb + 1, add(zext(a_, lib, lcb + 1), zext(n_, lcb, lcb + 1)));
        w(it, &m_, lcb + 1, mux(ge(id(&s_), zext(lr_c.clone(), lcb, lcb + 1)), sub(id(&s_), zext(lr_c.clone(), lcb, lcb + 1)), id(&s_)));
        it.push(Item::pragma("verilator lint_on UNUSED"));
        sl(&m_, lib - 1, 0)
    };

    // ---- per-row combinational ---------------------------------------------------------------
    it.push(Item::comment("Per row: source's next TS and eligibility, releasable, VAL match, failed source."));
    for i in 0..rows {
        let r = |f: &str| id(&format!("r{i}_{f}"));
        let node = format!("r{i}_node");
        let nts = src_mux(&node, &|s| id(&format!("s{s}_nts")));
        w(&mut it, &format!("r{i}_nts"), ts, nts);
        let el = src_mux(&node, &|s| id(&format!("s{s}_el")));
        w(&mut it, &format!("r{i}_el"), 32, el);
        w(&mut it, &format!("r{i}_e"), 32, mux(gt(r("stamp"), r("el")), r("stamp"), r("el")));
        w(&mut it, &format!("r{i}_fail"), 1, failed(r("node")));
        let ts_ok = if mutation == Mutation::ArrivalOrder { Expr::one() } else { eq(r("ts"), r("nts")) };
        w(&mut it, &format!("r{i}_rel"), 1, all(vec![eq(r("st"), st_valid.clone()), ts_ok]));
        let mut key = vec![eq(r("st"), st_pend.clone()), eq(r("node"), id("val_src_node")), eq(r("core"), id("val_src_core")), eq(r("line"), id("val_line"))];
        if tg > 0 {
            key.push(eq(r("tag"), id("val_tag")));
        }
        w(&mut it, &format!("r{i}_vm"), 1, all(key));
        w(&mut it, &format!("r{i}_dup"), 1, all(vec![eq(r("st"), st_valid.clone()), eq(r("node"), id("val_src_node")), eq(r("ts"), id("val_ts"))]));
        w(&mut it, &format!("r{i}_gd"), ts, sub(r("ts"), r("nts")));
    }
    let r_ = |i: u32, f: &str| id(&format!("r{i}_{f}"));
    let rowc = |i: u32| dec(rb, i as u64);
    // Release pick: smallest {E, node}, the lower row on a tie (H3). The row's mask, core, line,
    // head flag (and CSN) ride along so the release registers load without a row mux after it.
    it.push(Item::comment("Release pick: the releasable row with the smallest {E, source} (eligibility order, H3), lower row on a tie."));
    let kw = 32 + nb;
    let mut pick_fields = vec![("row", rb), ("mask", wd), ("core", cb), ("line", la), ("head", 1)];
    if cs > 0 {
        pick_fields.push(("csn", cs));
    }
    let pick_entrants = (0..rows)
        .map(|i| {
            let mut carried = vec![rowc(i), r_(i, "mask"), r_(i, "core"), r_(i, "line"), r_(i, "head")];
            if cs > 0 {
                carried.push(r_(i, "csn"));
            }
            Entrant { valid: r_(i, "rel"), key: cat(vec![r_(i, "e"), r_(i, "node")]), carried }
        })
        .collect();
    let pick = tournament(&mut it, "pick", kw, true, &pick_fields, pick_entrants);
    let any_rel = pick.valid;
    let pick_row = pick.carried[0].clone();
    // Gap skip among VALID rows of failed sources: smallest {node, TS distance}, lower row on a tie.
    it.push(Item::comment("Gap-skip tournament: the winner's source and timestamp ride along; its key is not needed."));
    let gkw = nb + ts;
    let gap_entrants = (0..rows)
        .map(|i| Entrant { valid: and2(eq(r_(i, "st"), st_valid.clone()), r_(i, "fail")), key: cat(vec![r_(i, "node"), r_(i, "gd")]), carried: vec![r_(i, "node"), r_(i, "ts")] })
        .collect();
    let gap = tournament(&mut it, "gs", gkw, false, &[("node", nb), ("ts", ts)], gap_entrants);
    let gs_any = gap.valid;
    let gs_node = gap.carried[0].clone();
    let gs_ts = gap.carried[1].clone();

    // ---- REPL / ACK --------------------------------------------------------------------------
    it.push(Item::comment("REPL: lowest free row; NACK when only the unused head reserve is left (H4)."));
    let alloc_row = first_of(&mut it, "alloc_row", rb, rows, |i| eq(r_(i, "st"), st_free.clone()), rowc, dec(rb, 0));
    let repl_ready = w(&mut it, "repl_ready_w", 1, and2(lt(id("rows_used_q"), n_rows.clone()), lt(id("ack_cnt_q"), dec(3, 4))));
    let repl_fire = w(&mut it, "repl_fire", 1, and2(id("repl_valid"), repl_ready.clone()));
    let repl_failed = w(&mut it, "repl_failed", 1, failed(id("repl_src_node")));
    let nack = if b.nack_enable {
        let free = w(&mut it, "rows_free", rcb, sub(n_rows.clone(), id("rows_used_q")));
        // With no reserve the NACK condition is "no row free", which repl_ready already
        // excludes; it is kept as that comparison (a constant 0 > head_used_q would not lint).
        let short = if b.head_reserve() == 0 {
            eq(free, dec(rcb, 0))
        } else {
            let hr = dec(rcb, b.head_reserve() as u64);
            let reserve = w(&mut it, "reserve_left", rcb, mux(gt(hr.clone(), id("head_used_q")), sub(hr, id("head_used_q")), dec(rcb, 0)));
            ge(reserve, free)
        };
        w(&mut it, "nack_w", 1, and2(id("repl_at_head").lnot(), short))
    } else {
        Expr::zero()
    };
    let alloc = w(&mut it, "alloc_fire", 1, all(vec![repl_fire.clone(), repl_failed.clone().lnot(), nack.clone().lnot()]));
    let nack_fire = w(&mut it, "nack_fire", 1, all(vec![repl_fire.clone(), repl_failed.clone().lnot(), nack]));
    let ack_push = w(&mut it, "ack_push", 1, or2(alloc.clone(), nack_fire.clone()));
    let ack_valid = w(&mut it, "ack_valid_w", 1, ne(id("ack_cnt_q"), dec(3, 0)));
    let ack_pop = w(&mut it, "ack_pop", 1, and2(ack_valid.clone(), id("ack_ready")));
    // The FIFO head: field `f` of entry ack_rd_q.
    let a4 = |f: &str| by_index("ack_rd_q", 2, 4, &|j| id(&format!("a{j}_{f}")));
    w(&mut it, "ack_h_node", nb, a4("node"));
    w(&mut it, "ack_h_core", cb, a4("core"));
    if tg > 0 {
        w(&mut it, "ack_h_tag", tg, a4("tag"));
    }
    w(&mut it, "ack_h_line", la, a4("line"));
    w(&mut it, "ack_h_nack", 1, a4("nack"));
    let pop_free = if mutation == Mutation::FreeOnAck {
        for i in 0..rows {
            w(
                &mut it,
                &format!("r{i}_fa"),
                1,
                all(vec![eq(r_(i, "st"), st_pend.clone()), eq(r_(i, "node"), id("ack_h_node")), eq(r_(i, "core"), id("ack_h_core")), eq(r_(i, "line"), id("ack_h_line"))]),
            );
        }
        let anyfa = any((0..rows).map(|i| r_(i, "fa")).collect());
        let fire = w(&mut it, "fa_fire", 1, all(vec![ack_pop.clone(), id("ack_h_nack").lnot(), anyfa]));
        let row = first_of(&mut it, "fa_row", rb, rows, |i| r_(i, "fa"), rowc, dec(rb, 0));
        Some((fire, row))
    } else {
        None
    };

    // ---- VAL -----------------------------------------------------------------------------------
    it.push(Item::comment("VAL: lowest matching PENDING row; timestamp window and duplicate check."));
    let val_failed = w(&mut it, "val_failed", 1, failed(id("val_src_node")));
    let vm_any = w(&mut it, "vm_any", 1, any((0..rows).map(|i| r_(i, "vm")).collect()));
    let mut seen = Expr::zero();
    let mut multi = Vec::new();
    for i in 0..rows {
        multi.push(and2(r_(i, "vm"), seen.clone()));
        if i + 1 < rows {
            seen = w(&mut it, &format!("vm{i}_seen"), 1, or2(seen, r_(i, "vm")));
        }
    }
    let vm_multi = w(&mut it, "vm_multi", 1, any(multi));
    let vm_row = first_of(&mut it, "vm_row", rb, rows, |i| r_(i, "vm"), rowc, dec(rb, 0));
    let val_nts = w(&mut it, "val_nts", ts, src_mux("val_src_node", &|s| id(&format!("s{s}_nts"))));
    let val_d = w(&mut it, "val_d", ts, sub(id("val_ts"), val_nts));
    let dup = any((0..rows).map(|i| r_(i, "dup")).collect());
    let val_live = w(&mut it, "val_live", 1, and2(id("val_valid"), val_failed.clone().lnot()));
    let val_bad = w(&mut it, "val_bad", 1, or2(ge(val_d, dec(ts, rows as u64)), dup));
    let val_ok = w(&mut it, "val_ok", 1, all(vec![val_live.clone(), vm_any.clone(), val_bad.clone().lnot()]));

    // ---- release ------------------------------------------------------------------------------
    it.push(Item::comment("Release engine: one record per cycle, ascending word index; the row is freed one cycle after its last record."));
    let f_is_idle = w(&mut it, "fetch_idle", 1, eq(id("fstate_q"), f_idle.clone()));
    let pick_fire = w(&mut it, "pick_fire", 1, all(vec![id("rel_busy_q").lnot(), any_rel.clone(), f_is_idle.clone()]));
    let gap_fire = w(&mut it, "gap_fire", 1, all(vec![id("rel_busy_q").lnot(), f_is_idle.clone(), any_rel.clone().lnot(), gs_any]));
    let pick_node = w(&mut it, "pick_node", nb, sl("pick_k", nb - 1, 0));
    let pick_e = w(&mut it, "pick_e", 32, sl("pick_k", kw - 1, nb));
    let rel_free = w(&mut it, "rel_free", 1, and2(id("rel_busy_q"), eq(id("rel_mask_q"), dec(wd, 0))));
    let log_full = w(&mut it, "log_full", 1, eq(id("count_q"), lr_c.clone()));
    let logw_valid = w(&mut it, "logw_valid_w", 1, all(vec![id("rel_busy_q"), ne(id("rel_mask_q"), dec(wd, 0)), log_full.clone().lnot()]));
    let logw_fire = w(&mut it, "logw_fire", 1, and2(logw_valid.clone(), id("logw_ready")));
    let widx = first_of(&mut it, "rel_widx", wib, wd, |k| bit_of("rel_mask_q", wd, k), |k| dec(wib, k as u64), dec(wib, 0));
    it.push(Item::reg("rel_word", dw, "word rel_widx of the row being released"));
    it.push(Item::AlwaysComb(vec![Stmt::Case(
        widx.clone(),
        (0..wd).map(|k| (vec![dec(wib, k as u64)], vec![set_id("rel_word", sl("rel_data_q", dw * k + dw - 1, dw * k))])).collect(),
        vec![set_id("rel_word", dec(dw, 0))],
    )]));
    let used = 1 + cs + nb + cb + la + wib + dw;
    let mut recp = vec![Expr::one()];
    if rec > used {
        recp.push(zeros(rec - used));
    }
    if cs > 0 {
        recp.push(id("rel_csn_q"));
    }
    recp.extend([id("rel_node_q"), id("rel_core_q"), id("rel_line_q"), widx, id("rel_word")]);
    w(&mut it, "rel_rec", rec, cat(recp));

    // Failed-source PENDING rows are discarded, lowest first (U9).
    let disc_fire = w(&mut it, "disc_fire", 1, any((0..rows).map(|i| and2(eq(r_(i, "st"), st_pend.clone()), r_(i, "fail"))).collect()));
    let disc_row = first_of(&mut it, "disc_row", rb, rows, |i| and2(eq(r_(i, "st"), st_pend.clone()), r_(i, "fail")), rowc, dec(rb, 0));
    let any_failed_row = any((0..rows).map(|i| and2(ne(r_(i, "st"), st_free.clone()), r_(i, "fail"))).collect());

    // ---- log read port, dump and fetch --------------------------------------------------------
    it.push(Item::comment("Dump engine (epoch traversal, beats, trailer) and fetch engine share one outstanding log read."));
    let in_dtrav = eq(id("dstate_q"), d_trav.clone());
    let dump_trav = w(&mut it, "dump_trav", 1, or2(in_dtrav.clone(), eq(id("dstate_q"), d_flush.clone())));
    let beat_full = eq(id("beat_n_q"), dec(bnb, rpb as u64));
    let dwant = w(&mut it, "dump_want", 1, or2(and2(in_dtrav.clone(), beat_full.clone()), eq(id("dstate_q"), d_flush.clone())));
    let room = w(&mut it, "dump_room", a, sub(id("cfg_dump_limit"), id("cfg_dump_base")));
    let dover = w(&mut it, "dump_over", 1, gt(add(zext(id("woff_q"), a, a + 1), dec(a + 1, 64)), zext(room, a, a + 1)));
    let dwr_valid = w(&mut it, "dump_wr_valid_w", 1, and2(dwant.clone(), dover.clone().lnot()));
    let dwr_fire = w(&mut it, "dump_wr_fire", 1, and2(dwr_valid.clone(), id("dump_wr_ready")));
    let dlast = w(&mut it, "dump_last", 1, and2(eq(id("dstate_q"), d_flush.clone()), eq(id("beat_n_q"), dec(bnb, 0))));
    let dump_rd = all(vec![in_dtrav.clone(), id("rd_pend_q").lnot(), ne(id("trav_left_q"), dec(lcb, 0)), beat_full.clone().lnot()]);
    let fetch_rd = all(vec![eq(id("fstate_q"), f_trav.clone()), id("rd_pend_q").lnot(), ne(id("fleft_q"), dec(lcb, 0)), eq(id("fmatch_q"), dec(q, 0))]);
    let req_valid = w(&mut it, "logr_req_valid_w", 1, or2(dump_rd, fetch_rd));
    let req_fire = w(&mut it, "req_fire", 1, and2(req_valid, id("logr_req_ready")));
    let rsp_fire = w(&mut it, "rsp_fire", 1, and2(id("rd_pend_q"), id("logr_rsp_valid")));
    // In-charge node of the record read, under the current and the last committed failed mask.
    let lo = dw + wib;
    let rsp_line = sl("logr_rsp_data", lo + la - 1, lo);
    let shape = b.shape.map();
    let mnew = emit_map(&mut it, "mn_", shape, rsp_line.clone(), la, "cfg_failed_mask");
    let mold = emit_map(&mut it, "mo_", shape, rsp_line.clone(), la, "mask_seen_q");
    let mine = w(&mut it, "dump_mine", 1, and2(id(&mnew.dump_valid), eq(id(&mnew.dump_node), id("cfg_node_id"))));
    let was_failed = and2(id(&mold.dump_valid), failed(id(&mold.dump_node)));
    let in_resc = w(&mut it, "in_rescan", 1, ne(id("resc_left_q"), dec(lcb, 0)));
    let take = w(&mut it, "dump_take", 1, all(vec![rsp_fire.clone(), in_dtrav.clone(), dwant.clone().lnot(), mux(in_resc.clone(), and2(mine.clone(), was_failed), mine)]));
    let rescan = w(&mut it, "rescan", 1, Expr::red(crate::hw::verilog::UnOp::RedOr, and2(id("cfg_failed_mask"), id("mask_seen_q").not())));
    let start_ok = w(&mut it, "start_ok", 1, all(vec![id("ctl_dump_start"), eq(id("dstate_q"), d_idle.clone()), f_is_idle.clone()]));
    let in_done = eq(id("dstate_q"), d_done.clone());
    // A failure after the epoch started voids it: its snapshot may hold records whose in-charge
    // unit died before dumping them (found by the system simulation), so it is never committed.
    let gained = w(&mut it, "mask_gained", 1, Expr::red(crate::hw::verilog::UnOp::RedOr, and2(id("cfg_failed_mask"), id("emask_q").not())));
    let commit_ok = w(&mut it, "commit_ok", 1, all(vec![id("ctl_dump_commit"), in_done.clone(), gained.clone().lnot()]));
    let lag1 = b.free_lag == 1 && mutation != Mutation::IgnoreFreeLag;
    // A start in another region (cfg_dump_base changed) writes from offset 0.
    let new_region = w(&mut it, "dump_new_region", 1, ne(id("cfg_dump_base"), id("rbase_q")));
    let start_woff = w(&mut it, "dump_start_woff", a, mux(new_region, dec(a, 0), id("woff_q")));
    let free_n = w(&mut it, "free_n", lcb, if lag1 { id("prev_n_q") } else { id("snap_n_q") });
    let freed = w(&mut it, "freed", lcb, mux(commit_ok.clone(), free_n.clone(), dec(lcb, 0)));
    let new_head = add_mod(&mut it, "new_head", id("head_q"), free_n.clone());
    let trav_start = add_mod(&mut it, "trav_start", id("head_q"), id("dumped_n_q"));
    let quiesced = w(
        &mut it,
        "quiesced",
        1,
        all(vec![id("ctl_quiesce"), any_rel.clone().lnot(), id("rel_busy_q").lnot(), dump_trav.clone().lnot(), any_failed_row.lnot()]),
    );
    let fq_ready = w(&mut it, "fq_ready_w", 1, and2(quiesced.clone(), f_is_idle.clone()));
    let fq_fire = w(&mut it, "fq_fire", 1, and2(id("fq_valid"), fq_ready.clone()));
    let fq_start = w(&mut it, "fq_start", 1, and2(fq_fire.clone(), or2(id("fq_last"), eq(add(id("q_n_q"), dec(qnb, 1)), dec(qnb, q as u64)))));
    let in_ftrav = eq(id("fstate_q"), f_trav.clone());
    let fr_valid = w(&mut it, "fr_valid_w", 1, or2(and2(in_ftrav.clone(), ne(id("fmatch_q"), dec(q, 0))), eq(id("fstate_q"), f_last.clone())));
    let fr_fire = w(&mut it, "fr_fire", 1, and2(fr_valid.clone(), id("fr_ready")));
    let fr_q = first_of(&mut it, "fr_q", qb, q, |k| bit_of("fmatch_q", q, k), |k| dec(qb, k as u64), dec(qb, 0));
    let rsp_m: Vec<Expr> = (0..q).rev().map(|k| and2(lt(dec(qnb, k as u64), id("q_n_q")), eq(id(&format!("q{k}_line")), rsp_line.clone()))).collect();
    let rsp_match = w(&mut it, "rsp_match", q, cat(rsp_m));
    let fr_clear = w(&mut it, "fr_clear", q, mux(and2(fr_fire.clone(), in_ftrav.clone()), onehot(q, &fr_q), dec(q, 0)));

    // ---- the register update ------------------------------------------------------------------
    // Rows.
    let mut row_stmts = Vec::new();
    for i in 0..rows {
        let r = |f: &str| id(&format!("r{i}_{f}"));
        let mut alloc_s = vec![set_id(&format!("r{i}_st"), st_pend.clone()), set_id(&format!("r{i}_node"), id("repl_src_node")), set_id(&format!("r{i}_core"), id("repl_src_core"))];
        if tg > 0 {
            alloc_s.push(set_id(&format!("r{i}_tag"), id("repl_tag")));
        }
        alloc_s.extend([
            set_id(&format!("r{i}_line"), id("repl_line")),
            set_id(&format!("r{i}_mask"), id("repl_mask")),
            set_id(&format!("r{i}_head"), id("repl_at_head")),
            set_id(&format!("r{i}_ts"), dec(ts, 0)),
            set_id(&format!("r{i}_stamp"), dec(32, 0)),
        ]);
        if cs > 0 {
            alloc_s.push(set_id(&format!("r{i}_csn"), dec(cs, 0)));
        }
        row_stmts.push(when(and2(alloc.clone(), eq(alloc_row.clone(), rowc(i))), alloc_s));
        if let Some((fire, row)) = &pop_free {
            row_stmts.push(when(and2(fire.clone(), eq(row.clone(), rowc(i))), vec![set_id(&format!("r{i}_st"), st_free.clone())]));
        }
        let mut v = vec![set_id(&format!("r{i}_st"), st_valid.clone()), set_id(&format!("r{i}_ts"), id("val_ts")), set_id(&format!("r{i}_stamp"), id("now_q"))];
        if cs > 0 {
            v.push(set_id(&format!("r{i}_csn"), id("val_csn")));
        }
        row_stmts.push(when(and2(val_ok.clone(), eq(vm_row.clone(), rowc(i))), v));
        row_stmts.push(when(and2(rel_free.clone(), eq(id("rel_row_q"), rowc(i))), vec![set_id(&format!("r{i}_st"), st_free.clone())]));
        row_stmts.push(when(and2(disc_fire.clone(), eq(disc_row.clone(), rowc(i))), vec![set_id(&format!("r{i}_st"), st_free.clone())]));
        let _ = r;
    }
    body.push(Stmt::Comment("Rows: allocate, validate, free after release, discard failed sources.".into()));
    body.extend(row_stmts);
    // Row counts.
    let head_of = |row: &str| by_index(row, rb, rows, &|i| r_(i, "head"));
    let b1 = |e: Expr| zext(e, 1, rcb);
    let mut up = vec![b1(alloc.clone())];
    let mut down = vec![b1(rel_free.clone()), b1(disc_fire.clone())];
    let mut hup = vec![b1(and2(alloc.clone(), id("repl_at_head")))];
    let mut hdown = vec![b1(and2(rel_free.clone(), id("rel_head_q"))), b1(and2(disc_fire.clone(), head_of("disc_row")))];
    if let Some((fire, _)) = &pop_free {
        down.push(b1(fire.clone()));
        hdown.push(b1(and2(fire.clone(), head_of("fa_row"))));
    }
    let sum = |v: Vec<Expr>| v.into_iter().reduce(add).expect("terms");
    body.push(set_id("rows_used_q", sub(add(id("rows_used_q"), sum(std::mem::take(&mut up))), sum(down))));
    body.push(set_id("head_used_q", sub(add(id("head_used_q"), sum(std::mem::take(&mut hup))), sum(hdown))));
    // Per-source TS and eligibility.
    for s in 0..n {
        let sc = dec(nb, s as u64);
        body.push(if_else(
            and2(pick_fire.clone(), eq(pick_node.clone(), sc.clone())),
            vec![set_id(&format!("s{s}_nts"), add(id(&format!("s{s}_nts")), dec(ts, 1))), set_id(&format!("s{s}_el"), pick_e.clone())],
            vec![when(and2(gap_fire.clone(), eq(gs_node.clone(), sc)), vec![set_id(&format!("s{s}_nts"), gs_ts.clone())])],
        ));
    }
    // ACK FIFO.
    for j in 0..4u32 {
        let mut e = vec![set_id(&format!("a{j}_node"), id("repl_src_node")), set_id(&format!("a{j}_core"), id("repl_src_core"))];
        if tg > 0 {
            e.push(set_id(&format!("a{j}_tag"), id("repl_tag")));
        }
        e.push(set_id(&format!("a{j}_line"), id("repl_line")));
        e.push(set_id(&format!("a{j}_nack"), nack_fire.clone()));
        body.push(when(and2(ack_push.clone(), eq(id("ack_wr_q"), dec(2, j as u64))), e));
    }
    body.push(when(ack_pop.clone(), vec![set_id("ack_rd_q", add(id("ack_rd_q"), dec(2, 1)))]));
    body.push(when(ack_push.clone(), vec![set_id("ack_wr_q", add(id("ack_wr_q"), dec(2, 1)))]));
    body.push(set_id("ack_cnt_q", sub(add(id("ack_cnt_q"), zext(ack_push.clone(), 1, 3)), zext(ack_pop.clone(), 1, 3))));
    // Release engine.
    let mut pick_s = vec![
        set_id("rel_busy_q", Expr::one()),
        set_id("rel_row_q", pick_row.clone()),
        set_id("rel_mask_q", pick.carried[1].clone()),
        set_id("rel_node_q", pick_node.clone()),
        set_id("rel_core_q", pick.carried[2].clone()),
        set_id("rel_line_q", pick.carried[3].clone()),
        set_id("rel_head_q", pick.carried[4].clone()),
    ];
    if cs > 0 {
        pick_s.push(set_id("rel_csn_q", pick.carried[5].clone()));
    }
    body.push(Stmt::Comment("Release engine.".into()));
    body.push(if_else(
        rel_free.clone(),
        vec![set_id("rel_busy_q", Expr::zero())],
        vec![if_else(
            logw_fire.clone(),
            vec![set_id("rel_mask_q", Expr::and(id("rel_mask_q"), sub(id("rel_mask_q"), dec(wd, 1)))), set_id("tail_q", inc_mod(id("tail_q")))],
            vec![when(pick_fire.clone(), pick_s)],
        )],
    ));
    body.push(set_id("rd_pend_q", mux(req_fire.clone(), Expr::one(), mux(rsp_fire.clone(), Expr::zero(), id("rd_pend_q")))));
    body.push(set_id("count_q", sub(add(id("count_q"), zext(logw_fire.clone(), 1, lcb)), freed.clone())));
    // Dump engine.
    let mut beat_ins = Vec::new();
    for j in 0..rpb {
        beat_ins.push(when(eq(id("beat_n_q"), dec(bnb, j as u64)), vec![Stmt::set(sl("beat_q", rec * j + rec - 1, rec * j), id("logr_rsp_data"))]));
    }
    beat_ins.push(set_id("beat_n_q", add(id("beat_n_q"), dec(bnb, 1))));
    beat_ins.push(set_id("erecs_q", add(id("erecs_q"), dec(32, 1))));
    let trav_s = vec![
        when(req_fire.clone(), vec![set_id("trav_idx_q", inc_mod(id("trav_idx_q"))), set_id("trav_left_q", sub(id("trav_left_q"), dec(lcb, 1)))]),
        when(and2(rsp_fire.clone(), in_resc.clone()), vec![set_id("resc_left_q", sub(id("resc_left_q"), dec(lcb, 1)))]),
        when(take.clone(), beat_ins),
        when(and2(eq(id("trav_left_q"), dec(lcb, 0)), id("rd_pend_q").lnot()), vec![set_id("dstate_q", d_flush.clone())]),
    ];
    let write_s = vec![when(
        id("dump_wr_ready"),
        vec![
            set_id("woff_q", add(id("woff_q"), dec(a, 64))),
            set_id("beat_n_q", dec(bnb, 0)),
            set_id("beat_q", dec(512, 0)),
            when(dlast.clone(), vec![set_id("dstate_q", d_done.clone())]),
        ],
    )];
    let mut commit_s = vec![set_id("head_q", new_head), set_id("dumped_n_q", sub(id("snap_n_q"), free_n.clone()))];
    if b.free_lag == 1 {
        commit_s.push(set_id("prev_n_q", sub(id("snap_n_q"), free_n)));
    }
    commit_s.extend([set_id("mask_seen_q", id("emask_q")), set_id("epoch_q", add(id("epoch_q"), dec(32, 1))), set_id("dstate_q", d_idle.clone())]);
    body.push(Stmt::Comment("Dump engine.".into()));
    body.push(Stmt::Case(
        id("dstate_q"),
        vec![
            (
                vec![d_idle.clone()],
                vec![when(
                    start_ok.clone(),
                    vec![
                        set_id("woff_q", start_woff.clone()),
                        set_id("estart_q", start_woff),
                        set_id("rbase_q", id("cfg_dump_base")),
                        set_id("overflow_q", Expr::zero()),
                        set_id("snap_n_q", id("count_q")),
                        set_id("emask_q", id("cfg_failed_mask")),
                        set_id("erecs_q", dec(32, 0)),
                        set_id("beat_n_q", dec(bnb, 0)),
                        set_id("beat_q", dec(512, 0)),
                        set_id("trav_idx_q", mux(rescan.clone(), id("head_q"), trav_start)),
                        set_id("trav_left_q", mux(rescan.clone(), id("count_q"), sub(id("count_q"), id("dumped_n_q")))),
                        set_id("resc_left_q", mux(rescan.clone(), id("dumped_n_q"), dec(lcb, 0))),
                        set_id("dstate_q", d_trav.clone()),
                    ],
                )],
            ),
            (
                vec![d_trav.clone(), d_flush.clone()],
                vec![if_else(
                    and2(dwant.clone(), dover.clone()),
                    vec![set_id("overflow_q", Expr::one()), set_id("woff_q", id("estart_q")), set_id("dstate_q", d_idle.clone())],
                    vec![if_else(dwant.clone(), write_s, vec![when(in_dtrav.clone(), trav_s)])],
                )],
            ),
        ],
        vec![if_else(
            commit_ok.clone(),
            commit_s,
            vec![when(or2(and2(id("ctl_quiesce"), id("quiesce_q").lnot()), gained.clone()), vec![set_id("dstate_q", d_idle.clone())])],
        )],
    ));
    // Fetch engine.
    let mut load = Vec::new();
    for k in 0..q {
        load.push(when(eq(id("q_n_q"), dec(qnb, k as u64)), vec![set_id(&format!("q{k}_line"), id("fq_line"))]));
    }
    load.push(set_id("q_n_q", add(id("q_n_q"), dec(qnb, 1))));
    load.push(when(
        fq_start.clone(),
        vec![
            set_id("fstate_q", f_trav.clone()),
            set_id("fidx_q", dec_mod(id("tail_q"))),
            set_id("fleft_q", id("count_q")),
            set_id("fage_q", dec(lib, 0)),
            set_id("fnext_q", dec(lib, 0)),
            set_id("fmatch_q", dec(q, 0)),
        ],
    ));
    let lcb_to_lib = |e: Expr| if lcb > lib { Expr::slice(&e.render(), lib - 1, 0) } else { e };
    let _ = lcb_to_lib;
    body.push(Stmt::Comment("Fetch engine.".into()));
    body.push(Stmt::Case(
        id("fstate_q"),
        vec![
            (vec![f_idle.clone()], vec![when(fq_fire.clone(), load)]),
            (
                vec![f_trav.clone()],
                vec![
                    when(req_fire.clone(), vec![set_id("fidx_q", dec_mod(id("fidx_q"))), set_id("fleft_q", sub(id("fleft_q"), dec(lcb, 1)))]),
                    if_else(
                        rsp_fire.clone(),
                        vec![set_id("fmatch_q", rsp_match.clone()), set_id("frec_q", id("logr_rsp_data")), set_id("fage_q", id("fnext_q")), set_id("fnext_q", add(id("fnext_q"), dec(lib, 1)))],
                        vec![set_id("fmatch_q", Expr::and(id("fmatch_q"), fr_clear.clone().not()))],
                    ),
                    when(all(vec![eq(id("fleft_q"), dec(lcb, 0)), id("rd_pend_q").lnot(), eq(id("fmatch_q"), dec(q, 0))]), vec![set_id("fstate_q", f_last.clone())]),
                ],
            ),
        ],
        vec![when(id("fr_ready"), vec![set_id("fstate_q", f_idle.clone()), set_id("q_n_q", dec(qnb, 0))])],
    ));
    // Counters.
    let popcount = (0..wd).map(|k| zext(Expr::bit("repl_mask", k), 1, bits_for(wd as u64))).reduce(add).expect("words");
    let pcw = bits_for(wd as u64);
    let pc = w(&mut it, "repl_words", pcw, popcount);
    let d_start_ign = and2(id("ctl_dump_start"), or2(ne(id("dstate_q"), d_idle.clone()), f_is_idle.clone().lnot()));
    let d_commit_ign = and2(id("ctl_dump_commit"), or2(in_done.clone().lnot(), gained.clone()));
    let incs: Vec<(u32, Expr)> = vec![
        (1, alloc.clone()),
        (pcw, mux(alloc.clone(), pc, dec(pcw, 0))),
        (1, nack_fire.clone()),
        (1, and2(id("repl_valid"), repl_ready.clone().lnot())),
        (1, and2(ack_valid.clone(), id("ack_ready").lnot())),
        (1, val_ok.clone()),
        (1, and2(val_live.clone(), vm_any.clone().lnot())),
        (1, and2(val_live.clone(), vm_multi)),
        (1, all(vec![val_live.clone(), vm_any.clone(), val_bad])),
        (1, logw_fire.clone()),
        (1, all(vec![id("rel_busy_q"), ne(id("rel_mask_q"), dec(wd, 0)), log_full])),
        (1, commit_ok.clone()),
        (bnb, mux(dwr_fire.clone(), id("beat_n_q"), dec(bnb, 0))),
        (1, dwr_fire.clone()),
        (2, add(zext(d_start_ign, 1, 2), zext(d_commit_ign, 1, 2))),
        (2, add(zext(and2(repl_fire.clone(), repl_failed), 1, 2), zext(and2(id("val_valid"), val_failed), 1, 2))),
        (1, disc_fire.clone()),
        (1, gap_fire.clone()),
        (1, and2(eq(id("fstate_q"), f_last.clone()), id("fr_ready"))),
        (1, and2(fr_fire.clone(), in_ftrav.clone())),
        (0, Expr::zero()),
        (0, Expr::zero()),
        (1, and2(alloc.clone(), eq(id("repl_mask"), dec(wd, 0)))),
    ];
    body.push(Stmt::Comment("Saturating counters (contract §4.8) and high-water marks.".into()));
    for (c, (iw, e)) in incs.into_iter().enumerate() {
        let name = format!("cnt{c}_q");
        if iw == 0 {
            continue;
        }
        let sw = format!("cnt{c}_sum");
        w(&mut it, &sw, cnt + 1, add(zext(id(&name), cnt, cnt + 1), zext(e, iw, cnt + 1)));
        body.push(set_id(&name, mux(Expr::bit(&sw, cnt), cnt_max.clone(), sl(&sw, cnt - 1, 0))));
    }
    body.push(when(gt(zext(id("rows_used_q"), rcb, cnt.max(rcb)), zext(id("cnt20_q"), cnt, cnt.max(rcb))), vec![set_id("cnt20_q", zext(id("rows_used_q"), rcb, cnt))]));
    let hw = cnt.max(lcb);
    let capped = if lcb > cnt { mux(gt(id("count_q"), zext(cnt_max.clone(), cnt, lcb)), cnt_max.clone(), sl("count_q", cnt - 1, 0)) } else { zext(id("count_q"), lcb, cnt) };
    body.push(when(gt(zext(id("count_q"), lcb, hw), zext(id("cnt21_q"), cnt, hw)), vec![set_id("cnt21_q", capped)]));
    body.push(Stmt::Case(
        id("stat_sel"),
        (0..COUNTERS as u32).map(|c| (vec![dec(5, c as u64)], vec![set_id("stat_q", id(&format!("cnt{c}_q")))])).collect(),
        vec![set_id("stat_q", dec(cnt, 0))],
    ));
    body.push(set_id("now_q", add(id("now_q"), dec(32, 1))));
    body.push(set_id("quiesce_q", id("ctl_quiesce")));
    it.push(Item::comment("All registers with a reset."));
    it.push(Item::AlwaysFf { reset: Some(rst), body });
    it.push(Item::comment("Row data RAM: written on allocation, read into rel_data_q when the release engine picks a row."));
    it.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            when(alloc.clone(), vec![Stmt::set(Expr::Index("row_data".into(), Box::new(alloc_row.clone())), id("repl_data"))]),
            when(pick_fire.clone(), vec![set_id("rel_data_q", Expr::Index("row_data".into(), Box::new(pick_row.clone())))]),
        ],
    });

    // ---- outputs ---------------------------------------------------------------------------
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
        it.push(Item::assign(id(p), e));
    }
    it.push(super::props::properties(design, rows, rcb));
    let _ = (rsp_fire, fr_clear, mold, rows_c);
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: it, reset: Some(design.reset) },
        role: Role::LoggingUnit,
        latency: 1,
        summary: format!(
            "ReCXL Logging Unit (paper §IV-B; contract recxl.md §4): {rows} SRAM Log Buffer rows of one {}-byte line, REPL → REPL_ACK, VAL with a {ts}-bit timestamp, release to a {lr}-record DRAM log in timestamp order per source and eligibility order across sources, dump epochs as 64-byte beats with a trailer, FetchLatestVers newest to oldest in one traversal, quiesce, {COUNTERS} saturating {cnt}-bit counters.",
            b.shape.line_bytes
        ),
        notes: vec![
            format!("Record ({rec} bits, LSB first): value [{}:0], word index, line, core, node, CSN ({cs} bits), zero padding, Valid at bit {}.", dw - 1, rec - 1),
            "Dump trailer beat: [31:0] 0x5243584C, [63:32] epoch number (st_epoch + 1), [95:64] records, [111:96] node ID.".into(),
            format!("free_lag = {}: at a commit the unit frees {}.", b.free_lag, if b.free_lag == 1 { "the previous epoch's snapshot (H6)" } else { "its own snapshot (paper's \"clears its whole log\")" }),
            "One log read outstanding; the release engine frees a row one cycle after its last record.".into(),
            "Configuration inputs: cfg_node_id is static (change it only in reset). cfg_failed_mask may gain bits in any cycle (the CM sets them at Interrupt, before the unit can quiesce) and never loses any. cfg_dump_base and cfg_dump_limit may change only while st_dump_busy is low. stat_sel may change in any cycle.".into(),
            "Epoch boundary: the snapshot of an accepted ctl_dump_start is the log as it was before that edge, so a record written (logw_valid and logw_ready) in the same cycle as ctl_dump_start belongs to the next epoch.".into(),
            "Dump region: epochs are written one after the other at cfg_dump_base + offset. An accepted ctl_dump_start whose cfg_dump_base differs from the previous epoch's begins a new region at offset 0. When the next beat (data or trailer) would pass cfg_dump_limit the epoch stops: st_dump_overflow rises, the beats written are abandoned (no trailer), the offset returns to the epoch's start, the engine is idle again (st_dump_busy and st_dump_done low) and a commit is ignored (counted). To leave that state software supplies room, a new region (another cfg_dump_base, and its cfg_dump_limit) or a higher cfg_dump_limit for the same region, and pulses ctl_dump_start: st_dump_overflow clears and the epoch is dumped again from its start under the same epoch number, with a fresh snapshot. Until then the log is not freed and fills (nothing is lost; release then stalls).".into(),
            "Committed epochs: a trailer marks a finished traversal, not a commit. An epoch abandoned when done (ctl_quiesce rose, or cfg_failed_mask gained a bit after the epoch started, in which case its beats may mix records selected under two masks) also leaves a trailer. Epoch E is committed when an accepted ctl_dump_commit makes st_epoch = E; its content is the last run of beats ending in a trailer numbered E (earlier runs numbered E are superseded), and an epoch whose number st_epoch never reached is not committed.".into(),
            format!("Counters (stat_sel, saturating at {cnt} bits): 0 REPLs that allocated a row (NACKed and failed-source REPLs take none), 1 words in those REPLs, 2 REPLs NACKed, 3 REPL stall cycles, 4 ACK stall cycles, 5 VALs matched, 6 orphan VALs, 7 ambiguous VAL matches, 8 VAL TS-window errors, 9 records logged, 10 log-full stall cycles, 11 epochs committed, 12 records in data beats written to the dump region (each time a record is written), 13 dump beats written (trailers included), 14 dump starts/commits ignored, 15 REPLs/VALs of failed sources dropped, 16 unvalidated rows discarded, 17 TS gap skips, 18 fetch batches, 19 fetch matches, 20 row high-water mark, 21 log-count high-water mark, 22 empty-mask REPLs; other stat_sel values read 0."),
        ],
        origin: None,
    }
}

fn and2(a: Expr, b: Expr) -> Expr {
    Expr::and(a, b)
}
fn or2(a: Expr, b: Expr) -> Expr {
    Expr::or(a, b)
}

/// `1 << sel` as a `q`-bit vector, one comparison per bit.
fn onehot(q: u32, sel: &Expr) -> Expr {
    if q == 1 {
        return Expr::one();
    }
    cat((0..q).rev().map(|k| eq(sel.clone(), dec(crate::hw::build::clog2(q as u64), k as u64))).collect())
}

