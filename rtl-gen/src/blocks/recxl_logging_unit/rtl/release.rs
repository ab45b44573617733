//! The release engine: the release pick (the releasable row with the smallest eligibility
//! time and source, H3) as a one-hot select from E comparisons registered with the per-source
//! candidates, the gap skip of failed sources as a compare-and-select tournament,
//! one record per cycle from the row being released, the per-source timestamps and eligibility
//! times the picks move, and the row-data RAM's write and read.

use super::admission::Admission;
use super::kit::{and2, first_of, sl, tournament, w, Entrant};
use super::Lu;
use crate::hw::build::{add, all, any, bit_of, cat, clog2, dec, eq, gt, id, if_else, le, mux, ne, set_id, sub, when, zeros, zext};
use crate::hw::select::{encode, onehot_min, onehot_mux};
use crate::hw::verilog::{Expr, Item, Stmt};

/// The winners of the release pick and of the gap skip.
pub(super) struct Picks {
    /// Some row is releasable now (the gap skip and quiesce read it), and the pick's winner
    /// among the registered candidates (carried: row, mask, core, line, head flag, CSN).
    pub any_rel: Expr,
    pub pick: Entrant,
    pub pick_row: Expr,
    /// The winner's source and eligibility time E.
    pub pick_node: Expr,
    pub pick_e: Expr,
    pub gs_any: Expr,
    pub gs_node: Expr,
    pub gs_ts: Expr,
}

/// The fields of a release candidate register `rc{s}_<field>` after its valid bit, with their
/// widths, in the order the candidate's next value packs them (most significant first).
fn cand_fields(lu: &Lu) -> Vec<(&'static str, u32)> {
    let mut f = vec![("row", lu.rb), ("e", 32), ("mask", lu.wd), ("core", lu.cb), ("line", lu.la), ("head", 1)];
    if lu.cs > 0 {
        f.push(("csn", lu.cs));
    }
    f
}

/// The release pick's registers: per row, whether it was releasable in the previous cycle and
/// its eligibility time E then (`r<i>_rq`, `r<i>_e`); per source, the candidate taken from
/// those, with that row's number, E and header fields (`rc<s>_*`).
pub(super) fn declare_candidates(lu: &mut Lu) {
    for i in 0..lu.rows {
        super::kit::reg(&mut lu.it, &mut lu.rst, &format!("r{i}_rq"), 1, 0, &format!("row {i} was releasable last cycle (cleared when picked)"));
        super::kit::reg(&mut lu.it, &mut lu.rst, &format!("r{i}_e"), 32, 0, &format!("row {i}'s eligibility time E last cycle"));
    }
    for s in 0..lu.n {
        super::kit::reg(&mut lu.it, &mut lu.rst, &format!("rc{s}_v"), 1, 0, &format!("CN {s} had a releasable row last cycle"));
        for (f, fw) in cand_fields(lu) {
            super::kit::reg(&mut lu.it, &mut lu.rst, &format!("rc{s}_{f}"), fw, 0, "");
        }
    }
    for (a, b) in pick_pairs(lu.n) {
        super::kit::reg(&mut lu.it, &mut lu.rst, &format!("rc{a}_le{b}"), 1, 0, &format!("CN {a}'s candidate E is at most CN {b}'s"));
    }
}

/// Sources per group of the release pick: inside a group the candidates' E are compared pairwise
/// as they are registered, n(n − 1)/2 comparators for a select of two LUT levels.
const PICK_GROUP: u32 = 4;

/// The pairs of sources (a < b) of one pick group, whose E comparison is registered.
fn pick_pairs(n: u32) -> Vec<(u32, u32)> {
    (0..n).flat_map(|a| (a + 1..n).filter(move |&b| a / PICK_GROUP == b / PICK_GROUP).map(move |b| (a, b))).collect()
}

pub(super) fn picks(lu: &mut Lu) -> Picks {
    let (rows, rb, n, nb, ts) = (lu.rows, lu.rb, lu.n, lu.nb, lu.ts);
    let st_valid = lu.st_valid.clone();
    let r_ = |i: u32, f: &str| id(&format!("r{i}_{f}"));
    let rowc = |i: u32| dec(rb, i as u64);
    let fields = cand_fields(lu);
    let cw: u32 = fields.iter().map(|f| f.1).sum();
    // Two registered stages before the pick. Per row: releasable (`r<i>_rq`) and E, the later of
    // its VAL stamp and its source's last eligibility time (`r<i>_e`). Per source: its row of
    // r<i>_rq (at most one: the row holding the source's next timestamp), the lowest if
    // several. A row stays releasable until it is picked, and a pick clears its r<i>_rq at once
    // and keeps the engine busy for the next cycle, so a candidate is never stale when the
    // engine can use it; E is exact too, as a source's eligibility time moves only when it is
    // picked, and its next candidate comes two cycles later. A row reaches the pick two cycles
    // after it becomes releasable.
    lu.it.push(Item::comment("Release candidates: per source, its row of r<i>_rq (registered into rc<s>_* below)."));
    for s in 0..n {
        let name = format!("rc{s}_d");
        let conds: Vec<Expr> = (0..rows).map(|i| and2(r_(i, "rq"), eq(r_(i, "node"), dec(nb, s as u64)))).collect();
        let vals: Vec<Expr> = (0..rows)
            .map(|i| cat(fields.iter().map(|&(f, _)| if f == "row" { rowc(i) } else { r_(i, f) }).collect()))
            .collect();
        first_of(&mut lu.it, &name, cw, rows, |i| conds[i as usize].clone(), |i| vals[i as usize].clone(), dec(cw, 0));
    }
    let any_rel = w(&mut lu.it, "any_rel", 1, any((0..rows).map(|i| r_(i, "rel")).collect()));
    // Second stage: the candidate with the smallest {E, source} (eligibility order, H3), E the
    // later of its VAL stamp and the source's last eligibility time. Sources differ, so keys do.
    // Within a group of sources the E comparisons were registered with the candidates
    // (`rc<a>_le<b>`), so the group's choice is a one-hot select; group winners (several groups
    // only beyond PICK_GROUP sources) meet in a tournament.
    lu.it.push(Item::comment("Release pick: the registered candidate with the smallest {E, source} (eligibility order, H3), from the registered E comparisons."));
    let kw = 32 + nb;
    let pick_fields: Vec<(&str, u32)> = fields.iter().copied().filter(|f| f.0 != "e").collect();
    let groups = n.div_ceil(PICK_GROUP);
    let mut entrants = Vec::new();
    for g in 0..groups {
        let lo = g * PICK_GROUP;
        let m = PICK_GROUP.min(n - lo);
        let pfx = if groups == 1 { "pick".to_string() } else { format!("pickg{g}") };
        let oh = format!("{pfx}_oh");
        let rc_v = |i: u32| id(&format!("rc{}_v", lo + i));
        let sel = onehot_min(&rc_v, &|a, b| id(&format!("rc{}_le{}", lo + a, lo + b)), m);
        w(&mut lu.it, &oh, m, sel);
        let valid = w(&mut lu.it, &format!("{pfx}_v"), 1, any((0..m).map(rc_v).collect()));
        let node = if m == 1 {
            dec(nb, lo as u64)
        } else {
            let ib = clog2(m as u64);
            let idx = format!("{pfx}_idx");
            encode(&mut lu.it, &idx, &oh, m, ib, "the chosen candidate's place in its group");
            let idx = zext(id(&idx), ib, nb);
            if lo == 0 { idx } else { Expr::or(dec(nb, lo as u64), idx) }
        };
        let node = w(&mut lu.it, &format!("{pfx}_node"), nb, node);
        let field = |lu: &mut Lu, f: &str, fw: u32| w(&mut lu.it, &format!("{pfx}_{f}"), fw, onehot_mux(&oh, m, |i| format!("rc{}_{f}", lo + i), fw));
        let e = field(lu, "e", 32);
        let carried = pick_fields.iter().map(|&(f, fw)| field(lu, f, fw)).collect();
        entrants.push(Entrant { valid, key: cat(vec![e, node]), carried });
    }
    let (pick, pick_node, pick_e) = if groups == 1 {
        let pick = entrants.pop().expect("one group");
        (pick, id("pick_node"), id("pick_e"))
    } else {
        let pick = tournament(&mut lu.it, "pick", kw, true, &pick_fields, entrants);
        let node = w(&mut lu.it, "pick_node", nb, sl("pick_k", nb - 1, 0));
        let e = w(&mut lu.it, "pick_e", 32, sl("pick_k", kw - 1, nb));
        (pick, node, e)
    };
    let pick_row = pick.carried[0].clone();
    // Gap skip among VALID rows of failed sources: smallest {node, TS distance}, lower row on a tie.
    lu.it.push(Item::comment("Gap-skip tournament: the winner's source and timestamp ride along; its key is not needed."));
    let gkw = nb + ts;
    let gap_entrants = (0..rows)
        .map(|i| Entrant { valid: and2(eq(r_(i, "st"), st_valid.clone()), r_(i, "fail")), key: cat(vec![r_(i, "node"), r_(i, "gd")]), carried: vec![r_(i, "node"), r_(i, "ts")] })
        .collect();
    let gap = tournament(&mut lu.it, "gs", gkw, false, &[("node", nb), ("ts", ts)], gap_entrants);
    let gs_any = gap.valid;
    let gs_node = gap.carried[0].clone();
    let gs_ts = gap.carried[1].clone();
    Picks { any_rel, pick, pick_row, pick_node, pick_e, gs_any, gs_node, gs_ts }
}

/// The release engine's decisions this cycle.
pub(super) struct Release {
    pub f_is_idle: Expr,
    pub pick_fire: Expr,
    pub gap_fire: Expr,
    pub pick_node: Expr,
    pub pick_e: Expr,
    pub rel_free: Expr,
    pub log_full: Expr,
    pub logw_valid: Expr,
    pub logw_fire: Expr,
}

/// The per-row eligibility and the release candidate registers load every cycle.
pub(super) fn candidate_update(lu: &mut Lu, p: &Picks, r: &Release) {
    let fields = cand_fields(lu);
    let cw: u32 = fields.iter().map(|f| f.1).sum();
    lu.body.push(Stmt::Comment("Per-row eligibility: releasable (a picked row's bit clears at once) and E.".into()));
    for i in 0..lu.rows {
        let picked = and2(r.pick_fire.clone(), eq(p.pick_row.clone(), lu.rowc(i)));
        lu.body.push(set_id(&format!("r{i}_rq"), and2(lu.r(i, "rel"), picked.lnot())));
        let (stamp, el) = (lu.r(i, "stamp"), lu.r(i, "el"));
        lu.body.push(set_id(&format!("r{i}_e"), mux(gt(stamp.clone(), el.clone()), stamp, el)));
    }
    lu.body.push(Stmt::Comment("Release candidates.".into()));
    for s in 0..lu.n {
        let d = format!("rc{s}_d");
        lu.body.push(set_id(&format!("rc{s}_v"), Expr::red(crate::hw::verilog::UnOp::RedOr, id(&format!("{d}_hit")))));
        let mut hi = cw;
        for &(f, fw) in &fields {
            lu.body.push(set_id(&format!("rc{s}_{f}"), sl(&d, hi - 1, hi - fw)));
            hi -= fw;
        }
    }
    let e_lo = cw - fields.iter().take_while(|f| f.0 != "e").map(|f| f.1).sum::<u32>() - 32;
    let e_of = |s: u32| sl(&format!("rc{s}_d"), e_lo + 31, e_lo);
    for (a, b) in pick_pairs(lu.n) {
        lu.body.push(set_id(&format!("rc{a}_le{b}"), le(e_of(a), e_of(b))));
    }
}

pub(super) fn comb(lu: &mut Lu, p: &Picks) -> Release {
    let (nb, wd, wib, dw, rec, cs, cb, la) = (lu.nb, lu.wd, lu.wib, lu.dw, lu.rec, lu.cs, lu.cb, lu.la);
    let (f_idle, lr_c, any_rel, any_cand, gs_any) = (lu.f_idle.clone(), lu.lr_c.clone(), p.any_rel.clone(), p.pick.valid.clone(), p.gs_any.clone());
    lu.it.push(Item::comment("Release engine: one record per cycle, ascending word index; the row is freed one cycle after its last record."));
    let f_is_idle = w(&mut lu.it, "fetch_idle", 1, eq(id("fstate_q"), f_idle.clone()));
    let pick_fire = w(&mut lu.it, "pick_fire", 1, all(vec![id("rel_busy_q").lnot(), any_cand, f_is_idle.clone()]));
    let gap_fire = w(&mut lu.it, "gap_fire", 1, all(vec![id("rel_busy_q").lnot(), f_is_idle.clone(), any_rel.clone().lnot(), gs_any]));
    let (pick_node, pick_e) = (p.pick_node.clone(), p.pick_e.clone());
    let rel_free = w(&mut lu.it, "rel_free", 1, and2(id("rel_busy_q"), eq(id("rel_mask_q"), dec(wd, 0))));
    let log_full = w(&mut lu.it, "log_full", 1, eq(id("count_q"), lr_c.clone()));
    let logw_valid = w(&mut lu.it, "logw_valid_w", 1, all(vec![id("rel_busy_q"), ne(id("rel_mask_q"), dec(wd, 0)), log_full.clone().lnot()]));
    let logw_fire = w(&mut lu.it, "logw_fire", 1, and2(logw_valid.clone(), id("logw_ready")));
    let widx = first_of(&mut lu.it, "rel_widx", wib, wd, |k| bit_of("rel_mask_q", wd, k), |k| dec(wib, k as u64), dec(wib, 0));
    lu.it.push(Item::reg("rel_word", dw, "word rel_widx of the row being released"));
    lu.it.push(Item::AlwaysComb(vec![Stmt::Case(
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
    w(&mut lu.it, "rel_rec", rec, cat(recp));
    Release { f_is_idle, pick_fire, gap_fire, pick_node, pick_e, rel_free, log_full, logw_valid, logw_fire }
}

/// Per source: a release of its row advances its next timestamp and sets its eligibility time;
/// a gap skip moves its next timestamp to the skipped-to row's.
pub(super) fn source_update(lu: &mut Lu, p: &Picks, r: &Release) {
    let (n, nb, ts) = (lu.n, lu.nb, lu.ts);
    let (pick_fire, pick_node, pick_e, gap_fire, gs_node, gs_ts) = (r.pick_fire.clone(), r.pick_node.clone(), r.pick_e.clone(), r.gap_fire.clone(), p.gs_node.clone(), p.gs_ts.clone());
    // Per-source TS and eligibility.
    for s in 0..n {
        let sc = dec(nb, s as u64);
        lu.body.push(if_else(
            and2(pick_fire.clone(), eq(pick_node.clone(), sc.clone())),
            vec![set_id(&format!("s{s}_nts"), add(id(&format!("s{s}_nts")), dec(ts, 1))), set_id(&format!("s{s}_el"), pick_e.clone())],
            vec![when(and2(gap_fire.clone(), eq(gs_node.clone(), sc)), vec![set_id(&format!("s{s}_nts"), gs_ts.clone())])],
        ));
    }
}

/// The release registers: free the row after its last record, else log one record, else load
/// the picked row.
pub(super) fn update(lu: &mut Lu, p: &Picks, r: &Release) {
    let (cs, wd) = (lu.cs, lu.wd);
    let (pick, pick_row, pick_node, pick_fire, rel_free, logw_fire) = (&p.pick, p.pick_row.clone(), r.pick_node.clone(), r.pick_fire.clone(), r.rel_free.clone(), r.logw_fire.clone());
    let inc_tail = lu.inc_mod(id("tail_q"));
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
    lu.body.push(Stmt::Comment("Release engine.".into()));
    lu.body.push(if_else(
        rel_free.clone(),
        vec![set_id("rel_busy_q", Expr::zero())],
        vec![if_else(
            logw_fire.clone(),
            vec![set_id("rel_mask_q", Expr::and(id("rel_mask_q"), sub(id("rel_mask_q"), dec(wd, 1)))), set_id("tail_q", inc_tail)],
            vec![when(pick_fire.clone(), pick_s)],
        )],
    ));
}

/// The row-data RAM: written at allocation, read into `rel_data_q` at a pick.
pub(super) fn row_ram(lu: &mut Lu, adm: &Admission, p: &Picks, r: &Release) {
    let (alloc, alloc_row, pick_fire, pick_row) = (adm.alloc.clone(), adm.alloc_row.clone(), r.pick_fire.clone(), p.pick_row.clone());
    lu.it.push(Item::comment("Row data RAM: written on allocation, read into rel_data_q when the release engine picks a row."));
    lu.it.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            when(alloc.clone(), vec![Stmt::set(Expr::Index("row_data".into(), Box::new(alloc_row.clone())), id("repl_data"))]),
            when(pick_fire.clone(), vec![set_id("rel_data_q", Expr::Index("row_data".into(), Box::new(pick_row.clone())))]),
        ],
    });
}
