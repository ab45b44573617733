//! The saturating counters of contract §4.8 (`stat_sel` reads them through a register), the
//! row and log-count high-water marks, the cycle counter that stamps VALs, and the quiesce
//! input's previous value.

use super::admission::Admission;
use super::dump::Dump;
use super::fetch::Fetch;
use super::kit::{and2, or2, sl, w};
use super::release::Release;
use super::rows::Discard;
use super::super::COUNTERS;
use super::Lu;
use crate::hw::build::{add, all, bits_for, dec, eq, gt, id, mux, ne, set_id, when, zext};
use crate::hw::count::{sat_accumulator, sat_counter};
use crate::hw::verilog::{Expr, Item, Stmt};

pub(super) fn update(lu: &mut Lu, adm: &Admission, rel: &Release, disc: &Discard, d: &Dump, f: &Fetch) {
    let (wd, cnt, rcb, lcb, bnb) = (lu.wd, lu.cnt, lu.rcb, lu.lcb, lu.bnb);
    let (d_idle, f_last) = (lu.d_idle.clone(), lu.f_last.clone());
    let cnt_max = Expr::Const(crate::math::gf2::BitVec::from_u128(cnt as usize, if cnt >= 128 { u128::MAX } else { (1u128 << cnt) - 1 }));
    let Admission { alloc, nack_fire, repl_ready, ack_valid, val_ok, val_live, vm_any, vm_multi, val_bad, repl_fire, repl_failed, val_failed, .. } = adm;
    let (alloc, nack_fire, repl_ready, ack_valid, val_ok, val_live, vm_any, vm_multi, val_bad, repl_fire, repl_failed, val_failed) =
        (alloc.clone(), nack_fire.clone(), repl_ready.clone(), ack_valid.clone(), val_ok.clone(), val_live.clone(), vm_any.clone(), vm_multi.clone(), val_bad.clone(), repl_fire.clone(), repl_failed.clone(), val_failed.clone());
    let (f_is_idle, logw_fire, log_full, gap_fire) = (rel.f_is_idle.clone(), rel.logw_fire.clone(), rel.log_full.clone(), rel.gap_fire.clone());
    let disc_fire = disc.fire.clone();
    let (in_done, gained, commit_ok, dwr_fire) = (d.in_done.clone(), d.gained.clone(), d.commit_ok.clone(), d.dwr_fire.clone());
    let (fr_fire, in_ftrav) = (f.fr_fire.clone(), f.in_ftrav.clone());
    let popcount = (0..wd).map(|k| zext(Expr::bit("repl_mask", k), 1, bits_for(wd as u64))).reduce(add).expect("words");
    let pcw = bits_for(wd as u64);
    let pc = w(&mut lu.it, "repl_words", pcw, popcount);
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
    // Each counter's event is registered first (`ev<c>_q`), so a counter counts its events one
    // cycle late, from a register: the event logic and the counter's carry-free increment
    // (three LUT levels, `hw::count`) are never in one path.
    lu.body.push(Stmt::Comment("Saturating counters (contract §4.8) from the registered events, and high-water marks.".into()));
    for (c, (iw, e)) in incs.into_iter().enumerate() {
        if iw == 0 {
            continue;
        }
        let ev = format!("ev{c}_q");
        lu.it.push(Item::reg(&ev, iw, &format!("counter {c}'s increment of the previous cycle")));
        lu.rst.push(set_id(&ev, dec(iw, 0)));
        lu.body.push(set_id(&ev, e));
        let name = format!("cnt{c}_q");
        let doc = format!("counter {c} (contract §4.8)");
        if iw == 1 {
            sat_counter(&mut lu.it, &mut lu.rst, &mut lu.body, &name, cnt, id(&ev), &doc, lu.reset);
        } else {
            sat_accumulator(&mut lu.it, &mut lu.rst, &mut lu.body, &name, cnt, id(&ev), iw, cnt_max.clone(), &doc, lu.reset);
        }
    }
    lu.body.push(when(gt(zext(id("rows_used_q"), rcb, cnt.max(rcb)), zext(id("cnt20_q"), cnt, cnt.max(rcb))), vec![set_id("cnt20_q", zext(id("rows_used_q"), rcb, cnt))]));
    let hw = cnt.max(lcb);
    let capped = if lcb > cnt { mux(gt(id("count_q"), zext(cnt_max.clone(), cnt, lcb)), cnt_max.clone(), sl("count_q", cnt - 1, 0)) } else { zext(id("count_q"), lcb, cnt) };
    lu.body.push(when(gt(zext(id("count_q"), lcb, hw), zext(id("cnt21_q"), cnt, hw)), vec![set_id("cnt21_q", capped)]));
    lu.body.push(Stmt::Case(
        id("stat_sel"),
        (0..COUNTERS as u32).map(|c| (vec![dec(5, c as u64)], vec![set_id("stat_q", id(&format!("cnt{c}_q")))])).collect(),
        vec![set_id("stat_q", dec(cnt, 0))],
    ));
    lu.body.push(set_id("now_q", add(id("now_q"), dec(32, 1))));
    lu.body.push(set_id("quiesce_q", id("ctl_quiesce")));
}
