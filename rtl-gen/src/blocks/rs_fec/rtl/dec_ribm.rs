//! The streaming decoder's key-equation solvers: the reformulated inversionless
//! Berlekamp–Massey (RiBM, Sarwate and Shanbhag 2001), 3t+1 identical processing elements, u
//! iterations per clock for 2t/u clocks ([`DecTiming`]).
//!
//! With S = 2 solvers they take codewords in turn (`bm_turn`), so each has 2·B clocks per
//! codeword instead of B and runs u times fewer iterations per clock: one multiply-add between
//! its registers instead of u in a chain. What the rest of the decoder reads is the same for
//! any S: `bm_done` (a solver finished the clock before), `bm_key` (its δ_0..δ_2t: Ω^h in
//! symbols 0..t−1, Λ in t..2t) and `bm_khalf` (its k/2, two's complement); with two solvers,
//! the finished one's through a 2:1 select.

use super::model::stream::DecTiming;
use super::stream_common::symbol;
use crate::hw::build::{add, and, cat, dec, eq, id, if_else, localparam, mux, or, set_id, when, wire, zeros};
use crate::hw::gf_net::{emit_mul_matrix, emit_sum, Term};
use crate::hw::verilog::{Expr, Item, UnOp};
use crate::math::gf2m::Gf2m;

/// The shape of the solvers.
pub struct Ribm<'a> {
    pub f: &'a Gf2m,
    pub t: usize,
    /// Bits of the k register (two's complement, k = 2t − 2L at the end).
    pub kw: u32,
    pub tm: &'a DecTiming,
    /// 1-bit signal: the syndromes are complete this clock.
    pub start: &'a str,
    /// Vector of the 2t syndromes (S_0 at the low symbol), read on `start`.
    pub syndromes: &'a str,
}

/// Declares the solver(s) and `bm_done`, `bm_key`, `bm_khalf`.
pub fn emit(items: &mut Vec<Item>, r: &Ribm) {
    let (m, pe) = (r.f.m(), 3 * r.t + 1);
    let tm = r.tm;
    let bm_w = crate::hw::build::bits_for(u64::from(tm.bm_clocks));
    items.push(Item::comment(&format!(
        "RiBM: {} solver(s) of {pe} processing elements, {} iteration(s) per clock for {} clocks.",
        tm.solvers, tm.iters_per_clock, tm.bm_clocks
    )));
    let bm_last = localparam(items, "BM_LAST", bm_w, u64::from(tm.bm_clocks - 1), "last clock of a key-equation solver");
    let key_w = (2 * r.t as u32 + 1) * m;
    let key = |reg: &str| Expr::slice(&format!("{reg}d"), key_w - 1, 0);
    let khalf = |reg: &str| Expr::slice(&format!("{reg}k"), r.kw - 1, 1);
    let key_doc = "δ_0..δ_2t of the finished solver: Ω^h, then Λ";
    let khalf_doc = "its k/2 (k = 2t − 2L is even when L ≤ t)";
    if tm.solvers == 1 {
        solver(items, r, "bm_", "", id(r.start), bm_last);
        wire(items, "bm_key", key_w, key_doc, key("bm_"));
        wire(items, "bm_khalf", r.kw - 1, khalf_doc, khalf("bm_"));
        return;
    }
    assert_eq!(tm.solvers, 2, "the solver plan takes at most two");
    items.push(Item::reg("bm_turn", 1, "the solver that takes the next codeword"));
    for s in 0..2u32 {
        let start = format!("bm{s}_start");
        wire(items, &start, 1, &format!("solver {s} takes this codeword"), and(id(r.start), eq(id("bm_turn"), dec(1, u64::from(s)))));
        solver(items, r, &format!("bm{s}_"), &format!("s{s}_"), id(&start), bm_last.clone());
    }
    items.push(Item::AlwaysFf { reset: Some(vec![set_id("bm_turn", dec(1, 0))]), body: vec![when(id(r.start), vec![set_id("bm_turn", id("bm_turn").not())])] });
    wire(items, "bm_done", 1, "a solver finished: its Λ and Ω^h are in bm_key", or(id("bm0_done"), id("bm1_done")));
    wire(items, "bm_key", key_w, key_doc, mux(id("bm1_done"), key("bm1_"), key("bm0_")));
    wire(items, "bm_khalf", r.kw - 1, khalf_doc, mux(id("bm1_done"), khalf("bm1_"), khalf("bm0_")));
}

/// One solver: registers `<reg>d`, `<reg>th`, `<reg>g`, `<reg>k`, `<reg>busy`, `<reg>cnt`,
/// `<reg>done`; its iteration wires named with `wp`.
fn solver(items: &mut Vec<Item>, r: &Ribm, reg: &str, wp: &str, start: Expr, bm_last: Expr) {
    let (f, t, kw, tm) = (r.f, r.t, r.kw, r.tm);
    let (m, pe) = (f.m(), 3 * t + 1);
    let bm_w = crate::hw::build::bits_for(u64::from(tm.bm_clocks));
    let rn = |x: &str| format!("{reg}{x}");
    for (x, w, doc) in [
        ("d", pe as u32 * m, "δ_0..δ_3t"),
        ("th", pe as u32 * m, "θ_0..θ_3t"),
        ("g", m, "γ"),
        ("k", kw, "k = 2t − 2L after 2t iterations (two's complement)"),
        ("busy", 1, ""),
        ("cnt", bm_w, ""),
        ("done", 1, "Λ and Ω^h are in d"),
    ] {
        items.push(Item::reg(&rn(x), w, doc));
    }
    let sym_wires = |items: &mut Vec<Item>, vec: &str, prefix: &str| -> Vec<String> {
        (0..pe)
            .map(|i| {
                let w = format!("{wp}{prefix}{i}");
                wire(items, &w, m, "", symbol(vec, m, i));
                w
            })
            .collect()
    };
    let mut d = sym_wires(items, &rn("d"), "d0_");
    let mut th = sym_wires(items, &rn("th"), "th0_");
    let mut g = rn("g");
    let mut k = rn("k");
    for j in 1..=tm.iters_per_clock as usize {
        let sw = format!("{wp}sw{j}");
        wire(items, &sw, 1, "δ_0 ≠ 0 and k ≥ 0: the roles swap", and(Expr::red(UnOp::RedOr, id(&d[0])), Expr::bit(&k, kw - 1).not()));
        // δ_0 and γ scale every element: their multiplication matrices are built once.
        let (dm, gm) = (format!("{wp}d0m{j}"), format!("{wp}gm{j}"));
        emit_mul_matrix(items, f, &d[0], &dm, "δ_0·α^j, for the products δ_0·θ_i");
        emit_mul_matrix(items, f, &g, &gm, "γ·α^j, for the products γ·δ_(i+1)");
        let mut nd = Vec::new();
        let mut nth = Vec::new();
        for i in 0..pe {
            let w = format!("{wp}d{j}_{i}");
            items.push(Item::wire(&w, m, ""));
            let mut terms = vec![Term::MatProd(dm.clone(), th[i].clone())];
            if i + 1 < pe {
                terms.push(Term::MatProd(gm.clone(), d[i + 1].clone()));
            }
            emit_sum(items, f, &w, &terms, &w);
            nd.push(w);
            let tw = format!("{wp}th{j}_{i}");
            let shifted = if i + 1 < pe { id(&d[i + 1]) } else { zeros(m) };
            wire(items, &tw, m, "", mux(id(&sw), shifted, id(&th[i])));
            nth.push(tw);
        }
        let gw = format!("{wp}g{j}");
        wire(items, &gw, m, "", mux(id(&sw), id(&d[0]), id(&g)));
        let kn = format!("{wp}k{j}");
        wire(items, &kn, kw, "", mux(id(&sw), id(&k).not(), add(id(&k), dec(kw, 1))));
        d = nd;
        th = nth;
        g = gw;
        k = kn;
    }
    let init = cat(vec![dec(m, 1), zeros(t as u32 * m), id(r.syndromes)]);
    let rev = |v: &[String]| cat(v.iter().rev().map(|s| id(s)).collect());
    items.push(Item::AlwaysFf {
        reset: Some(vec![set_id(&rn("busy"), dec(1, 0)), set_id(&rn("done"), dec(1, 0)), set_id(&rn("cnt"), dec(bm_w, 0))]),
        body: vec![
            set_id(&rn("done"), and(id(&rn("busy")), eq(id(&rn("cnt")), bm_last.clone()))),
            if_else(
                start.clone(),
                vec![set_id(&rn("busy"), dec(1, 1)), set_id(&rn("cnt"), dec(bm_w, 0))],
                vec![when(
                    id(&rn("busy")),
                    vec![set_id(&rn("cnt"), add(id(&rn("cnt")), dec(bm_w, 1))), when(eq(id(&rn("cnt")), bm_last), vec![set_id(&rn("busy"), dec(1, 0))])],
                )],
            ),
        ],
    });
    items.push(Item::AlwaysFf {
        reset: None,
        body: vec![if_else(
            start,
            vec![set_id(&rn("d"), init.clone()), set_id(&rn("th"), init), set_id(&rn("g"), dec(m, 1)), set_id(&rn("k"), dec(kw, 0))],
            vec![when(id(&rn("busy")), vec![set_id(&rn("d"), rev(&d)), set_id(&rn("th"), rev(&th)), set_id(&rn("g"), id(&g)), set_id(&rn("k"), id(&k))])],
        )],
    });
}
