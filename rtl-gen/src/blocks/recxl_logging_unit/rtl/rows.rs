//! The row table (the SRAM Log Buffer's headers): each row's view of its source (next
//! timestamp, eligibility time, failed or not) and of the VAL offered, the discard of rows of
//! failed sources, and the row state changes with the row counts that follow them.

use super::admission::Admission;
use super::kit::{and2, by_index, first_of};
use super::release::Release;
use super::Lu;
use crate::hw::build::{add, all, any, dec, eq, id, ne, set_id, sub, when, zext};
use crate::hw::verilog::{Expr, Item, Stmt};

/// The discard of failed sources' PENDING rows: whether one goes this cycle, which, and whether
/// any row of a failed source is still held (the unit cannot quiesce while one is).
pub(super) struct Discard {
    pub fire: Expr,
    pub row: Expr,
    pub any_failed_row: Expr,
}

/// Per row: the source's next TS (`_nts`) and last eligibility time (`_el`), failed source (`_fail`), releasable (`_rel`), VAL
/// match (`_vm`), duplicate timestamp (`_dup`) and TS distance from the source's next (`_gd`,
/// the gap-skip key).
pub(super) fn decode(lu: &mut Lu) {
    lu.it.push(Item::comment("Per row: source's next TS and eligibility time, releasable, VAL match, failed source."));
    for i in 0..lu.rows {
        let r = |f: &str| lu.r(i, f);
        let node = format!("r{i}_node");
        let nts = lu.src_mux(&node, &|s| id(&format!("s{s}_nts")));
        let el = lu.src_mux(&node, &|s| id(&format!("s{s}_el")));
        let fail = lu.failed(r("node"));
        let ts_ok = if lu.mutation == super::Mutation::ArrivalOrder { and2(id("rel_busy_q"), eq(id("rel_row_q"), lu.rowc(i))).lnot() } else { eq(r("ts"), r("nts")) };
        let rel = all(vec![eq(r("st"), lu.st_valid.clone()), ts_ok]);
        let mut key = vec![eq(r("st"), lu.st_pend.clone()), eq(r("node"), id("val_src_node")), eq(r("core"), id("val_src_core")), eq(r("line"), id("val_line"))];
        if lu.tg > 0 {
            key.push(eq(r("tag"), id("val_tag")));
        }
        let dup = all(vec![eq(r("st"), lu.st_valid.clone()), eq(r("node"), id("val_src_node")), eq(r("ts"), id("val_ts"))]);
        let gd = sub(r("ts"), r("nts"));
        let ts = lu.ts;
        lu.w(&format!("r{i}_nts"), ts, nts);
        lu.w(&format!("r{i}_el"), 32, el);
        lu.w(&format!("r{i}_fail"), 1, fail);
        lu.w(&format!("r{i}_rel"), 1, rel);
        lu.w(&format!("r{i}_vm"), 1, all(key));
        lu.w(&format!("r{i}_dup"), 1, dup);
        lu.w(&format!("r{i}_gd"), ts, gd);
    }
}

/// Failed-source PENDING rows are discarded, lowest first (U9).
pub(super) fn discard(lu: &mut Lu) -> Discard {
    let rows = lu.rows;
    let pending_failed = |lu: &Lu, i: u32| and2(eq(lu.r(i, "st"), lu.st_pend.clone()), lu.r(i, "fail"));
    let fire = any((0..rows).map(|i| pending_failed(lu, i)).collect());
    let fire = lu.w("disc_fire", 1, fire);
    let conds: Vec<Expr> = (0..rows).map(|i| pending_failed(lu, i)).collect();
    let rowcs: Vec<Expr> = (0..rows).map(|i| lu.rowc(i)).collect();
    let row = first_of(&mut lu.it, "disc_row", lu.rb, rows, |i| conds[i as usize].clone(), |i| rowcs[i as usize].clone(), dec(lu.rb, 0));
    let any_failed_row = any((0..rows).map(|i| and2(ne(lu.r(i, "st"), lu.st_free.clone()), lu.r(i, "fail"))).collect());
    Discard { fire, row, any_failed_row }
}

/// The row state changes in the model's order (allocate, free on ACK in the mutation, validate,
/// free after release, discard: a later change of the same row wins), then the row counts.
pub(super) fn update(lu: &mut Lu, adm: &Admission, rel: &Release, disc: &Discard) {
    let (rows, tg, cs, ts) = (lu.rows, lu.tg, lu.cs, lu.ts);
    let mut row_stmts = Vec::new();
    for i in 0..rows {
        let set = |f: &str, v: Expr| set_id(&format!("r{i}_{f}"), v);
        let is_row = |sel: &Expr| eq(sel.clone(), lu.rowc(i));
        let mut alloc_s = vec![set("st", lu.st_pend.clone()), set("node", id("repl_src_node")), set("core", id("repl_src_core"))];
        if tg > 0 {
            alloc_s.push(set("tag", id("repl_tag")));
        }
        alloc_s.extend([
            set("line", id("repl_line")),
            set("mask", id("repl_mask")),
            set("head", id("repl_at_head")),
            set("ts", dec(ts, 0)),
            set("stamp", dec(32, 0)),
        ]);
        if cs > 0 {
            alloc_s.push(set("csn", dec(cs, 0)));
        }
        row_stmts.push(when(and2(adm.alloc.clone(), is_row(&adm.alloc_row)), alloc_s));
        if let Some((fire, row)) = &adm.pop_free {
            row_stmts.push(when(and2(fire.clone(), is_row(row)), vec![set("st", lu.st_free.clone())]));
        }
        let mut v = vec![set("st", lu.st_valid.clone()), set("ts", id("val_ts")), set("stamp", id("now_q"))];
        if cs > 0 {
            v.push(set("csn", id("val_csn")));
        }
        row_stmts.push(when(and2(adm.val_ok.clone(), is_row(&adm.vm_row)), v));
        row_stmts.push(when(and2(rel.rel_free.clone(), is_row(&id("rel_row_q"))), vec![set("st", lu.st_free.clone())]));
        row_stmts.push(when(and2(disc.fire.clone(), is_row(&disc.row)), vec![set("st", lu.st_free.clone())]));
    }
    lu.body.push(Stmt::Comment("Rows: allocate, validate, free after release, discard failed sources.".into()));
    lu.body.extend(row_stmts);
    // Row counts.
    let (rb, rcb) = (lu.rb, lu.rcb);
    let head_of = |row: &str| by_index(row, rb, rows, &|i| id(&format!("r{i}_head")));
    let b1 = |e: Expr| zext(e, 1, rcb);
    let up = vec![b1(adm.alloc.clone())];
    let mut down = vec![b1(rel.rel_free.clone()), b1(disc.fire.clone())];
    let hup = vec![b1(and2(adm.alloc.clone(), id("repl_at_head")))];
    let mut hdown = vec![b1(and2(rel.rel_free.clone(), id("rel_head_q"))), b1(and2(disc.fire.clone(), head_of("disc_row")))];
    if let Some((fire, _)) = &adm.pop_free {
        down.push(b1(fire.clone()));
        hdown.push(b1(and2(fire.clone(), head_of("fa_row"))));
    }
    let sum = |v: Vec<Expr>| v.into_iter().reduce(add).expect("terms");
    lu.body.push(set_id("rows_used_q", sub(add(id("rows_used_q"), sum(up)), sum(down))));
    lu.body.push(set_id("head_used_q", sub(add(id("head_used_q"), sum(hup)), sum(hdown))));
}
