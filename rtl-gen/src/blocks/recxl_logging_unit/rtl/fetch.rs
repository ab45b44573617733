//! Quiesce and the fetch engine (FetchLatestVers, §V-D): the unit is quiesced when nothing
//! is left to release, dump or discard; then it takes a batch of queries and answers them in one
//! newest-to-oldest traversal of the log, one beat per matching query of each record read.

use super::dump::Dump;
use super::kit::{and2, first_of, onehot, or2, w};
use super::release::{Picks, Release};
use super::rows::Discard;
use super::Lu;
use crate::hw::build::{add, all, bit_of, cat, dec, eq, id, if_else, lt, mux, ne, set_id, sub, when};
use crate::hw::verilog::{Expr, Stmt};

/// The quiesce and fetch signals the counters and the outputs read.
pub(super) struct Fetch {
    pub quiesced: Expr,
    pub fq_ready: Expr,
    pub fq_fire: Expr,
    pub fq_start: Expr,
    pub in_ftrav: Expr,
    pub fr_valid: Expr,
    pub fr_fire: Expr,
    pub fr_q: Expr,
    pub rsp_match: Expr,
    pub fr_clear: Expr,
}

pub(super) fn comb(lu: &mut Lu, p: &Picks, rel: &Release, disc: &Discard, d: &Dump) -> Fetch {
    let (q, qb, qnb) = (lu.q, lu.qb, lu.qnb);
    let (f_trav, f_last) = (lu.f_trav.clone(), lu.f_last.clone());
    let (any_rel, f_is_idle, dump_trav, any_failed_row, rsp_line) = (p.any_rel.clone(), rel.f_is_idle.clone(), d.dump_trav.clone(), disc.any_failed_row.clone(), d.rsp_line.clone());
    let quiesced = w(
        &mut lu.it,
        "quiesced",
        1,
        all(vec![id("ctl_quiesce"), any_rel.clone().lnot(), id("rel_busy_q").lnot(), dump_trav.clone().lnot(), any_failed_row.lnot()]),
    );
    let fq_ready = w(&mut lu.it, "fq_ready_w", 1, and2(quiesced.clone(), f_is_idle.clone()));
    let fq_fire = w(&mut lu.it, "fq_fire", 1, and2(id("fq_valid"), fq_ready.clone()));
    let fq_start = w(&mut lu.it, "fq_start", 1, and2(fq_fire.clone(), or2(id("fq_last"), eq(add(id("q_n_q"), dec(qnb, 1)), dec(qnb, q as u64)))));
    let in_ftrav = eq(id("fstate_q"), f_trav.clone());
    let fr_valid = w(&mut lu.it, "fr_valid_w", 1, or2(and2(in_ftrav.clone(), ne(id("fmatch_q"), dec(q, 0))), eq(id("fstate_q"), f_last.clone())));
    let fr_fire = w(&mut lu.it, "fr_fire", 1, and2(fr_valid.clone(), id("fr_ready")));
    let fr_q = first_of(&mut lu.it, "fr_q", qb, q, |k| bit_of("fmatch_q", q, k), |k| dec(qb, k as u64), dec(qb, 0));
    let rsp_m: Vec<Expr> = (0..q).rev().map(|k| and2(lt(dec(qnb, k as u64), id("q_n_q")), eq(id(&format!("q{k}_line")), rsp_line.clone()))).collect();
    let rsp_match = w(&mut lu.it, "rsp_match", q, cat(rsp_m));
    let fr_clear = w(&mut lu.it, "fr_clear", q, mux(and2(fr_fire.clone(), in_ftrav.clone()), onehot(q, &fr_q), dec(q, 0)));
    Fetch { quiesced, fq_ready, fq_fire, fq_start, in_ftrav, fr_valid, fr_fire, fr_q, rsp_match, fr_clear }
}

/// The query table and the fetch engine's state machine.
pub(super) fn update(lu: &mut Lu, d: &Dump, f: &Fetch) {
    let (q, qnb, lib, lcb) = (lu.q, lu.qnb, lu.lib, lu.lcb);
    let (f_idle, f_trav, f_last) = (lu.f_idle.clone(), lu.f_trav.clone(), lu.f_last.clone());
    let (fq_fire, fq_start, req_fire, rsp_fire, rsp_match, fr_clear) = (f.fq_fire.clone(), f.fq_start.clone(), d.req_fire.clone(), d.rsp_fire.clone(), f.rsp_match.clone(), f.fr_clear.clone());
    let (tail_back, fidx_back) = (lu.dec_mod(id("tail_q")), lu.dec_mod(id("fidx_q")));
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
            set_id("fidx_q", tail_back),
            set_id("fleft_q", id("count_q")),
            set_id("fage_q", dec(lib, 0)),
            set_id("fnext_q", dec(lib, 0)),
            set_id("fmatch_q", dec(q, 0)),
        ],
    ));
    lu.body.push(Stmt::Comment("Fetch engine.".into()));
    lu.body.push(Stmt::Case(
        id("fstate_q"),
        vec![
            (vec![f_idle.clone()], vec![when(fq_fire.clone(), load)]),
            (
                vec![f_trav.clone()],
                vec![
                    when(req_fire.clone(), vec![set_id("fidx_q", fidx_back), set_id("fleft_q", sub(id("fleft_q"), dec(lcb, 1)))]),
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
}
