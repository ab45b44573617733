//! Admission: REPL allocates the lowest free row (or is NACKed when only the head reserve is
//! left, H4) and queues its REPL_ACK in a 4-deep FIFO; VAL finds the lowest matching PENDING row
//! and checks its timestamp window and duplicates.

use super::kit::{and2, by_index, first_of, or2, w};
use super::{Lu, Mutation};
use crate::hw::build::{add, all, any, cat, dec, eq, ge, gt, id, lt, mux, ne, set_id, sub, when, zext};
use crate::hw::verilog::{Expr, Item};

/// The admission signals the row table, the counters and the outputs read.
pub(super) struct Admission {
    pub alloc_row: Expr,
    pub repl_ready: Expr,
    pub repl_fire: Expr,
    pub repl_failed: Expr,
    /// A REPL takes a row / is NACKed.
    pub alloc: Expr,
    pub nack_fire: Expr,
    pub ack_push: Expr,
    pub ack_valid: Expr,
    pub ack_pop: Expr,
    /// The FreeOnAck mutation's free: fire and row.
    pub pop_free: Option<(Expr, Expr)>,
    pub val_failed: Expr,
    pub vm_any: Expr,
    pub vm_multi: Expr,
    pub vm_row: Expr,
    pub val_live: Expr,
    pub val_bad: Expr,
    pub val_ok: Expr,
}

pub(super) fn comb(lu: &mut Lu) -> Admission {
    let (b, mutation, rows, n, rb, rcb, nb, cb, tg, la, ts) = (lu.b, lu.mutation, lu.rows, lu.n, lu.rb, lu.rcb, lu.nb, lu.cb, lu.tg, lu.la, lu.ts);
    let (st_free, st_pend, n_rows) = (lu.st_free.clone(), lu.st_pend.clone(), lu.n_rows.clone());
    let r_ = |i: u32, f: &str| id(&format!("r{i}_{f}"));
    let rowc = |i: u32| dec(rb, i as u64);
    let failed = |sel: Expr| Expr::Index("cfg_failed_mask".into(), Box::new(sel));
    lu.it.push(Item::comment("REPL: lowest free row; NACK when only the unused head reserve is left (H4)."));
    let alloc_row = first_of(&mut lu.it, "alloc_row", rb, rows, |i| eq(r_(i, "st"), st_free.clone()), rowc, dec(rb, 0));
    let repl_ready = w(&mut lu.it, "repl_ready_w", 1, and2(lt(id("rows_used_q"), n_rows.clone()), lt(id("ack_cnt_q"), dec(3, 4))));
    let repl_fire = w(&mut lu.it, "repl_fire", 1, and2(id("repl_valid"), repl_ready.clone()));
    let repl_failed = w(&mut lu.it, "repl_failed", 1, failed(id("repl_src_node")));
    let nack = if b.nack_enable {
        let free = w(&mut lu.it, "rows_free", rcb, sub(n_rows.clone(), id("rows_used_q")));
        // With no reserve the NACK condition is "no row free", which repl_ready already
        // excludes; it is kept as that comparison (a constant 0 > head_used_q would not lint).
        let short = if b.head_reserve() == 0 {
            eq(free, dec(rcb, 0))
        } else {
            let hr = dec(rcb, b.head_reserve() as u64);
            let reserve = w(&mut lu.it, "reserve_left", rcb, mux(gt(hr.clone(), id("head_used_q")), sub(hr, id("head_used_q")), dec(rcb, 0)));
            ge(reserve, free)
        };
        w(&mut lu.it, "nack_w", 1, and2(id("repl_at_head").lnot(), short))
    } else {
        Expr::zero()
    };
    let alloc = w(&mut lu.it, "alloc_fire", 1, all(vec![repl_fire.clone(), repl_failed.clone().lnot(), nack.clone().lnot()]));
    let nack_fire = w(&mut lu.it, "nack_fire", 1, all(vec![repl_fire.clone(), repl_failed.clone().lnot(), nack]));
    let ack_push = w(&mut lu.it, "ack_push", 1, or2(alloc.clone(), nack_fire.clone()));
    let ack_valid = w(&mut lu.it, "ack_valid_w", 1, ne(id("ack_cnt_q"), dec(3, 0)));
    let ack_pop = w(&mut lu.it, "ack_pop", 1, and2(ack_valid.clone(), id("ack_ready")));
    // The FIFO head: field `f` of entry ack_rd_q.
    let a4 = |f: &str| by_index("ack_rd_q", 2, 4, &|j| id(&format!("a{j}_{f}")));
    w(&mut lu.it, "ack_h_node", nb, a4("node"));
    w(&mut lu.it, "ack_h_core", cb, a4("core"));
    if tg > 0 {
        w(&mut lu.it, "ack_h_tag", tg, a4("tag"));
    }
    w(&mut lu.it, "ack_h_line", la, a4("line"));
    w(&mut lu.it, "ack_h_nack", 1, a4("nack"));
    let pop_free = if mutation == Mutation::FreeOnAck {
        for i in 0..rows {
            w(
                &mut lu.it,
                &format!("r{i}_fa"),
                1,
                all(vec![eq(r_(i, "st"), st_pend.clone()), eq(r_(i, "node"), id("ack_h_node")), eq(r_(i, "core"), id("ack_h_core")), eq(r_(i, "line"), id("ack_h_line"))]),
            );
        }
        let anyfa = any((0..rows).map(|i| r_(i, "fa")).collect());
        let fire = w(&mut lu.it, "fa_fire", 1, all(vec![ack_pop.clone(), id("ack_h_nack").lnot(), anyfa]));
        let row = first_of(&mut lu.it, "fa_row", rb, rows, |i| r_(i, "fa"), rowc, dec(rb, 0));
        Some((fire, row))
    } else {
        None
    };

    // ---- VAL -----------------------------------------------------------------------------------
    lu.it.push(Item::comment("VAL: lowest matching PENDING row; timestamp window and duplicate check."));
    let val_failed = w(&mut lu.it, "val_failed", 1, failed(id("val_src_node")));
    let vm_any = w(&mut lu.it, "vm_any", 1, any((0..rows).map(|i| r_(i, "vm")).collect()));
    let vm_multi = more_than_one(&mut lu.it, "vm", rows, |i| r_(i, "vm"));
    let vm_row = first_of(&mut lu.it, "vm_row", rb, rows, |i| r_(i, "vm"), rowc, dec(rb, 0));
    let val_nts = w(&mut lu.it, "val_nts", ts, by_index("val_src_node", nb, n, &|s| id(&format!("s{s}_nts"))));
    let val_d = w(&mut lu.it, "val_d", ts, sub(id("val_ts"), val_nts));
    let dup = any((0..rows).map(|i| r_(i, "dup")).collect());
    let val_live = w(&mut lu.it, "val_live", 1, and2(id("val_valid"), val_failed.clone().lnot()));
    let val_bad = w(&mut lu.it, "val_bad", 1, or2(ge(val_d, dec(ts, rows as u64)), dup));
    let val_ok = w(&mut lu.it, "val_ok", 1, all(vec![val_live.clone(), vm_any.clone(), val_bad.clone().lnot()]));

    Admission { alloc_row, repl_ready, repl_fire, repl_failed, alloc, nack_fire, ack_push, ack_valid, ack_pop, pop_free, val_failed, vm_any, vm_multi, vm_row, val_live, val_bad, val_ok }
}

/// The ACK FIFO's entry write, pointers and count.
pub(super) fn ack_update(lu: &mut Lu, adm: &Admission) {
    let (tg, nack_fire, ack_push, ack_pop) = (lu.tg, adm.nack_fire.clone(), adm.ack_push.clone(), adm.ack_pop.clone());
    // ACK FIFO.
    for j in 0..4u32 {
        let mut e = vec![set_id(&format!("a{j}_node"), id("repl_src_node")), set_id(&format!("a{j}_core"), id("repl_src_core"))];
        if tg > 0 {
            e.push(set_id(&format!("a{j}_tag"), id("repl_tag")));
        }
        e.push(set_id(&format!("a{j}_line"), id("repl_line")));
        e.push(set_id(&format!("a{j}_nack"), nack_fire.clone()));
        lu.body.push(when(and2(ack_push.clone(), eq(id("ack_wr_q"), dec(2, j as u64))), e));
    }
    lu.body.push(when(ack_pop.clone(), vec![set_id("ack_rd_q", add(id("ack_rd_q"), dec(2, 1)))]));
    lu.body.push(when(ack_push.clone(), vec![set_id("ack_wr_q", add(id("ack_wr_q"), dec(2, 1)))]));
    lu.body.push(set_id("ack_cnt_q", sub(add(id("ack_cnt_q"), zext(ack_push.clone(), 1, 3)), zext(ack_pop.clone(), 1, 3))));
}

/// Whether more than one of the `n` bits `bit(i)` is set (`n` a power of two), as a balanced
/// tree: level `k` pairs the blocks of level `k − 1` into `{name}_any{k}` (some bit set in the
/// block) and `{name}_two{k}` (two or more), so the depth grows with log2 n, not with n. The
/// result is the wire `{name}_multi` (`{name}_two{log2 n}`).
fn more_than_one(it: &mut Vec<Item>, name: &str, n: u32, bit: impl Fn(u32) -> Expr) -> Expr {
    let mut any_prev: Vec<Expr> = (0..n).map(bit).collect();
    let mut two_prev: Option<Vec<Expr>> = None;
    let mut k = 0;
    while any_prev.len() > 1 {
        k += 1;
        let half = any_prev.len() as u32 / 2;
        let any_k = format!("{name}_any{k}");
        let two_k = format!("{name}_two{k}");
        let pair_any = (0..half).rev().map(|j| or2(any_prev[2 * j as usize].clone(), any_prev[2 * j as usize + 1].clone())).collect();
        let pair_two = (0..half)
            .rev()
            .map(|j| {
                let (lo, hi) = (2 * j as usize, 2 * j as usize + 1);
                let both = and2(any_prev[lo].clone(), any_prev[hi].clone());
                match &two_prev {
                    Some(t) => any(vec![t[lo].clone(), t[hi].clone(), both]),
                    None => both,
                }
            })
            .collect();
        w(it, &two_k, half, cat(pair_two));
        if half == 1 {
            // The last level's "some bit set" is the caller's own OR of the bits.
            return w(it, &format!("{name}_multi"), 1, id(&two_k));
        }
        w(it, &any_k, half, cat(pair_any));
        let bits = |nm: &str| (0..half).map(|j| Expr::bit(nm, j)).collect();
        any_prev = bits(&any_k);
        two_prev = Some(bits(&two_k));
    }
    w(it, &format!("{name}_multi"), 1, Expr::zero())
}
