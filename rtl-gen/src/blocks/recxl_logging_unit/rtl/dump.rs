//! The log read port and the dump engine: one outstanding read shared with the fetch engine,
//! the epoch traversal that packs this unit's records (by the replica map, under the current
//! and the last committed failed mask) into 64-byte beats with a trailer, the region overflow,
//! and the commit that frees the log.

use super::kit::{and2, or2, sl, w};
use super::release::Release;
use super::{Lu, Mutation};
use crate::blocks::recxl_replica_map::rtl::emit as emit_map;
use crate::hw::build::{add, all, dec, eq, gt, id, if_else, mux, ne, set_id, sub, when, zext};
use crate::hw::verilog::{Expr, Item, Stmt};

/// The log read port's and the dump engine's signals the fetch engine, the counters and the
/// outputs read.
pub(super) struct Dump {
    pub in_dtrav: Expr,
    pub dump_trav: Expr,
    pub dwant: Expr,
    pub dover: Expr,
    pub dwr_valid: Expr,
    pub dwr_fire: Expr,
    pub dlast: Expr,
    pub req_fire: Expr,
    pub rsp_fire: Expr,
    /// The line of the record read.
    pub rsp_line: Expr,
    pub in_resc: Expr,
    pub take: Expr,
    pub rescan: Expr,
    pub start_ok: Expr,
    pub in_done: Expr,
    pub gained: Expr,
    pub commit_ok: Expr,
    pub start_woff: Expr,
    pub free_n: Expr,
    pub freed: Expr,
    pub new_head: Expr,
    pub trav_start: Expr,
}

pub(super) fn comb(lu: &mut Lu, rel: &Release) -> Dump {
    let (b, mutation, bnb, rpb, a, lcb, q, dw, wib, la) = (lu.b, lu.mutation, lu.bnb, lu.rpb, lu.a, lu.lcb, lu.q, lu.dw, lu.wib, lu.la);
    let (d_idle, d_trav, d_flush, d_done, f_trav) = (lu.d_idle.clone(), lu.d_trav.clone(), lu.d_flush.clone(), lu.d_done.clone(), lu.f_trav.clone());
    let f_is_idle = rel.f_is_idle.clone();
    let failed = |sel: Expr| Expr::Index("cfg_failed_mask".into(), Box::new(sel));
    lu.it.push(Item::comment("Dump engine (epoch traversal, beats, trailer) and fetch engine share one outstanding log read."));
    let in_dtrav = eq(id("dstate_q"), d_trav.clone());
    let dump_trav = w(&mut lu.it, "dump_trav", 1, or2(in_dtrav.clone(), eq(id("dstate_q"), d_flush.clone())));
    let beat_full = eq(id("beat_n_q"), dec(bnb, rpb as u64));
    let dwant = w(&mut lu.it, "dump_want", 1, or2(and2(in_dtrav.clone(), beat_full.clone()), eq(id("dstate_q"), d_flush.clone())));
    let room = w(&mut lu.it, "dump_room", a, sub(id("cfg_dump_limit"), id("cfg_dump_base")));
    let dover = w(&mut lu.it, "dump_over", 1, gt(add(zext(id("woff_q"), a, a + 1), dec(a + 1, 64)), zext(room, a, a + 1)));
    let dwr_valid = w(&mut lu.it, "dump_wr_valid_w", 1, and2(dwant.clone(), dover.clone().lnot()));
    let dwr_fire = w(&mut lu.it, "dump_wr_fire", 1, and2(dwr_valid.clone(), id("dump_wr_ready")));
    let dlast = w(&mut lu.it, "dump_last", 1, and2(eq(id("dstate_q"), d_flush.clone()), eq(id("beat_n_q"), dec(bnb, 0))));
    let dump_rd = all(vec![in_dtrav.clone(), id("rd_pend_q").lnot(), ne(id("trav_left_q"), dec(lcb, 0)), beat_full.clone().lnot()]);
    let fetch_rd = all(vec![eq(id("fstate_q"), f_trav.clone()), id("rd_pend_q").lnot(), ne(id("fleft_q"), dec(lcb, 0)), eq(id("fmatch_q"), dec(q, 0))]);
    let req_valid = w(&mut lu.it, "logr_req_valid_w", 1, or2(dump_rd, fetch_rd));
    let req_fire = w(&mut lu.it, "req_fire", 1, and2(req_valid, id("logr_req_ready")));
    let rsp_fire = w(&mut lu.it, "rsp_fire", 1, and2(id("rd_pend_q"), id("logr_rsp_valid")));
    // In-charge node of the record read, under the current and the last committed failed mask.
    let lo = dw + wib;
    let rsp_line = sl("logr_rsp_data", lo + la - 1, lo);
    let shape = b.shape.map();
    let mnew = emit_map(&mut lu.it, "mn_", shape, rsp_line.clone(), la, "cfg_failed_mask");
    let mold = emit_map(&mut lu.it, "mo_", shape, rsp_line.clone(), la, "mask_seen_q");
    let mine = w(&mut lu.it, "dump_mine", 1, and2(id(&mnew.dump_valid), eq(id(&mnew.dump_node), id("cfg_node_id"))));
    let was_failed = and2(id(&mold.dump_valid), failed(id(&mold.dump_node)));
    let in_resc = w(&mut lu.it, "in_rescan", 1, ne(id("resc_left_q"), dec(lcb, 0)));
    let take = w(&mut lu.it, "dump_take", 1, all(vec![rsp_fire.clone(), in_dtrav.clone(), dwant.clone().lnot(), mux(in_resc.clone(), and2(mine.clone(), was_failed), mine)]));
    let rescan = w(&mut lu.it, "rescan", 1, Expr::red(crate::hw::verilog::UnOp::RedOr, and2(id("cfg_failed_mask"), id("mask_seen_q").not())));
    let start_ok = w(&mut lu.it, "start_ok", 1, all(vec![id("ctl_dump_start"), eq(id("dstate_q"), d_idle.clone()), f_is_idle.clone()]));
    let in_done = eq(id("dstate_q"), d_done.clone());
    // A failure after the epoch started voids it: its snapshot may hold records whose in-charge
    // unit died before dumping them (found by the system simulation), so it is never committed.
    let gained = w(&mut lu.it, "mask_gained", 1, Expr::red(crate::hw::verilog::UnOp::RedOr, and2(id("cfg_failed_mask"), id("emask_q").not())));
    let commit_ok = w(&mut lu.it, "commit_ok", 1, all(vec![id("ctl_dump_commit"), in_done.clone(), gained.clone().lnot()]));
    let lag1 = b.free_lag == 1 && mutation != Mutation::IgnoreFreeLag;
    // A start in another region (cfg_dump_base changed) writes from offset 0.
    let new_region = w(&mut lu.it, "dump_new_region", 1, ne(id("cfg_dump_base"), id("rbase_q")));
    let start_woff = w(&mut lu.it, "dump_start_woff", a, mux(new_region, dec(a, 0), id("woff_q")));
    let free_n = w(&mut lu.it, "free_n", lcb, if lag1 { id("prev_n_q") } else { id("snap_n_q") });
    let freed = w(&mut lu.it, "freed", lcb, mux(commit_ok.clone(), free_n.clone(), dec(lcb, 0)));
    let new_head = lu.add_mod("new_head", id("head_q"), free_n.clone());
    let trav_start = lu.add_mod("trav_start", id("head_q"), id("dumped_n_q"));
    Dump { in_dtrav, dump_trav, dwant, dover, dwr_valid, dwr_fire, dlast, req_fire, rsp_fire, rsp_line, in_resc, take, rescan, start_ok, in_done, gained, commit_ok, start_woff, free_n, freed, new_head, trav_start }
}

/// The read-outstanding flag, the log count, and the dump engine's state machine.
pub(super) fn update(lu: &mut Lu, rel: &Release, d: &Dump) {
    let (b, rpb, rec, bnb, lcb, a) = (lu.b, lu.rpb, lu.rec, lu.bnb, lu.lcb, lu.a);
    let (d_idle, d_trav, d_flush, d_done) = (lu.d_idle.clone(), lu.d_trav.clone(), lu.d_flush.clone(), lu.d_done.clone());
    let logw_fire = rel.logw_fire.clone();
    let Dump { in_dtrav, dwant, dover, dlast, req_fire, rsp_fire, in_resc, take, rescan, start_ok, gained, commit_ok, start_woff, free_n, freed, new_head, trav_start, .. } = d;
    let (in_dtrav, dwant, dover, dlast, req_fire, rsp_fire, in_resc, take, rescan, start_ok, gained, commit_ok) =
        (in_dtrav.clone(), dwant.clone(), dover.clone(), dlast.clone(), req_fire.clone(), rsp_fire.clone(), in_resc.clone(), take.clone(), rescan.clone(), start_ok.clone(), gained.clone(), commit_ok.clone());
    let (start_woff, free_n, freed, new_head, trav_start) = (start_woff.clone(), free_n.clone(), freed.clone(), new_head.clone(), trav_start.clone());
    let inc_trav = lu.inc_mod(id("trav_idx_q"));
    lu.body.push(set_id("rd_pend_q", mux(req_fire.clone(), Expr::one(), mux(rsp_fire.clone(), Expr::zero(), id("rd_pend_q")))));
    lu.body.push(set_id("count_q", sub(add(id("count_q"), zext(logw_fire.clone(), 1, lcb)), freed.clone())));
    // Dump engine.
    let mut beat_ins = Vec::new();
    for j in 0..rpb {
        beat_ins.push(when(eq(id("beat_n_q"), dec(bnb, j as u64)), vec![Stmt::set(sl("beat_q", rec * j + rec - 1, rec * j), id("logr_rsp_data"))]));
    }
    beat_ins.push(set_id("beat_n_q", add(id("beat_n_q"), dec(bnb, 1))));
    beat_ins.push(set_id("erecs_q", add(id("erecs_q"), dec(32, 1))));
    let trav_s = vec![
        when(req_fire.clone(), vec![set_id("trav_idx_q", inc_trav), set_id("trav_left_q", sub(id("trav_left_q"), dec(lcb, 1)))]),
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
    lu.body.push(Stmt::Comment("Dump engine.".into()));
    lu.body.push(Stmt::Case(
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
}
