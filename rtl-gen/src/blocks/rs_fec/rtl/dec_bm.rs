//! The decoder for any t (`check_symbols` = 2t ≥ 4): a whole codeword per cycle through
//!
//! 1. **SYN**: the 2t syndromes S_j = r(α^(fcr+j)) of every way, XOR networks over `cw`;
//! 2. **BM_0 … BM_(2t−1)**: Berlekamp's inversionless Berlekamp–Massey, one unrolled iteration per
//!    step: δ = Σ Λ_i·S_(r−i); Λ ← γ·Λ − δ·x·B; if δ ≠ 0 and 2L ≤ r then (B, L, γ) ← (Λ, r+1−L, δ)
//!    else B ← x·B. Λ is a nonzero multiple of the textbook locator (γ ≠ 0 always), so its roots,
//!    its length L and the Forney ratio are the reference model's. Λ keeps t+1 coefficients and
//!    B t: whenever the final L ≤ t the dropped ones are provably zero, and when L > t the word
//!    is uncorrectable whatever they were (L never decreases);
//! 3. **KEY**: Ω = Λ·S mod x^t (deg Ω < L ≤ t for a correctable word) and the Chien search
//!    Λ(α^−d) = 0 over every existing position d < n in parallel (linear in Λ: XOR networks);
//! 4. **COUNT**: prefix counts of the roots (blocked adders, logarithmic depth); the word is
//!    correctable iff 0 < L ≤ t and exactly L roots lie in existing positions;
//! 5. **SLOT**: the j-th located message position goes to slot j (< t): its X^−1 = α^−d and
//!    X^(1−fcr) are selected by masked OR reductions (constants, no ROM), and the powers of X^−1;
//! 6. **EVAL**, **INV**, **VALUE**: Forney per slot, Y = X^(1−fcr)·Ω(X^−1)/Λ'(X^−1), the inverse
//!    by Itoh–Tsujii (products and Frobenius maps);
//! 7. **CORRECT**: each message symbol XORs the value of its slot when the way is correctable.
//!
//! With `pipeline` = P ≥ 1, P − 1 register stages go between these steps where they balance the
//! estimated logic depth best, plus an output register: latency P, one word per cycle. Only
//! values live across a cut are registered ([`Pipe`]).

use super::model::RsCode;
use super::{latency_note, layout_notes, RsFecBlock};
use crate::hw::module::{GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::gf_net::{emit_inverse, emit_sum, inverse_chain, Term};
use crate::hw::pipe::Pipe;
use crate::hw::verilog::{BinOp, Expr, Item, Module, UnOp};
use crate::hw::xor_net::{self, Columns, XorNet, XorStyle};
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};
use crate::math::gf2m::Gf2m;

/// One step of the decoder and its estimated logic depth in LUT levels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub name: String,
    pub weight: u32,
}

/// Elements summed by one ripple block of the prefix counter.
const RADIX: usize = 4;
/// Terms per line of the slot multiplexers.
const OR_CHUNK: usize = 64;

fn log_ceil(x: usize, base: usize) -> u32 {
    let mut levels = 0;
    let mut reach = 1usize;
    while reach < x {
        reach = reach.saturating_mul(base);
        levels += 1;
    }
    levels
}

/// The steps of the decoder of `b`, in order.
pub fn steps(b: &RsFecBlock) -> Vec<Step> {
    let t = b.t() as usize;
    let m = b.symbol_bits as usize;
    let n = b.cw_symbols().div_ceil(b.ways) as usize;
    let step = |name: &str, weight: u32| Step { name: name.into(), weight };
    let mul = 1 + log_ceil(m * m, 6);
    let mut s = vec![step("syndromes", 1 + log_ceil((b.cw_bits() as usize).div_ceil(2), 6))];
    for r in 0..2 * t {
        s.push(step(&format!("bm{r}"), 2 * mul + 2));
    }
    s.push(step("omega_chien", mul + 1));
    let levels = log_ceil(n, RADIX) as usize;
    s.push(step("count", (levels * RADIX + levels + 1) as u32));
    s.push(step("slot", 2 + mul * log_ceil(t, 2)));
    s.push(step("forney_eval", mul + 1));
    s.push(step("inverse", mul * inverse_chain(b.symbol_bits).len() as u32 + 1));
    s.push(step("value", mul));
    s.push(step("correct", 3));
    s
}

/// Where the registers go: `cut[i]` means a register stage after step i, for `segments` = P
/// groups of consecutive steps (the last closed by the output register) with the largest
/// group weight as small as possible. Deterministic: ties go to the earliest cut.
pub fn plan_cuts(weights: &[u32], segments: usize) -> Vec<bool> {
    let k = weights.len();
    let mut cut = vec![false; k];
    if segments <= 1 {
        return cut;
    }
    assert!(segments <= k, "{segments} pipeline segments for {k} steps");
    let prefix: Vec<u64> = std::iter::once(0).chain(weights.iter().scan(0u64, |a, &w| {
        *a += u64::from(w);
        Some(*a)
    })).collect();
    // best[s][i]: the smallest max weight splitting the first i steps into s groups.
    let inf = u64::MAX;
    let mut best = vec![vec![inf; k + 1]; segments + 1];
    let mut from = vec![vec![0usize; k + 1]; segments + 1];
    best[0][0] = 0;
    for s in 1..=segments {
        for i in s..=k {
            for j in (s - 1)..i {
                if best[s - 1][j] == inf {
                    continue;
                }
                let v = best[s - 1][j].max(prefix[i] - prefix[j]);
                if v < best[s][i] {
                    best[s][i] = v;
                    from[s][i] = j;
                }
            }
        }
    }
    let mut i = k;
    for s in (1..=segments).rev() {
        let j = from[s][i];
        if j > 0 {
            cut[j - 1] = true;
        }
        i = j;
    }
    cut
}

/// The signals of one way as the steps build them.
struct Way {
    p: String,
    code: RsCode,
    /// Flit symbol index of each way position.
    symbols: Vec<usize>,
    s: Vec<String>,
    lam: Vec<String>,
    bb: Vec<String>,
    gam: String,
    len: String,
    om: Vec<String>,
    /// Root flag wire of every way position.
    roots: Vec<String>,
    /// Wire holding the exclusive prefix count of roots for each message position (`None` = 0).
    pc: Vec<Option<String>>,
    ok: String,
    nzl: String,
    /// One-hot slot of each message position's root.
    oh: Vec<String>,
    pw: Vec<Vec<String>>,
    scale: Vec<Option<String>>,
    num: Vec<String>,
    den: Vec<String>,
    inv: Vec<String>,
    e: Vec<String>,
}

struct Ctx<'a> {
    f: Gf2m,
    t: usize,
    m: usize,
    lw: u32,
    fcr: u32,
    b: &'a RsFecBlock,
}

impl Ctx<'_> {
    fn gf_wire(&self, pipe: &mut Pipe, name: &str, doc: &str) -> String {
        pipe.wire(name, self.m as u32, doc)
    }

    /// out = Σ terms, operands read in the current stage.
    fn sum(&self, pipe: &mut Pipe, out: &str, doc: &str, terms: &[Term]) {
        let resolved: Vec<Term> = terms
            .iter()
            .map(|t| match t {
                Term::Prod(a, b) => Term::Prod(pipe.at(a), pipe.at(b)),
                Term::MatProd(a, b) => Term::MatProd(pipe.at(a), pipe.at(b)),
                Term::Lin(x, rows) => Term::Lin(pipe.at(x), rows.clone()),
            })
            .collect();
        self.gf_wire(pipe, out, doc);
        emit_sum(&mut pipe.items, &self.f, out, &resolved, out);
    }

    fn konst(&self, pipe: &mut Pipe, name: &str, width: u32, value: u64, doc: &str) -> String {
        pipe.wire(name, width, doc);
        pipe.items.push(Item::assign(Expr::id(name), Expr::dec(width, value)));
        name.to_string()
    }
}

fn syndromes(cx: &Ctx, pipe: &mut Pipe, way: &mut Way) {
    let (m, f) = (cx.m, &cx.f);
    let n = way.code.n();
    let cw = pipe.at("cw");
    for j in 0..2 * cx.t {
        let mut rows = vec![BitVec::zeros(cx.b.cw_bits() as usize); m];
        for (pos, &sym) in way.symbols.iter().enumerate() {
            let d = (n - 1 - pos) as i64;
            let c = f.alpha((i64::from(cx.fcr) + j as i64) * d);
            for bit in 0..m {
                let column = f.mul(c, 1 << bit);
                for (i, row) in rows.iter_mut().enumerate() {
                    if column >> i & 1 == 1 {
                        row.flip(sym * m + bit);
                    }
                }
            }
        }
        let name = format!("{}s{j}", way.p);
        cx.gf_wire(pipe, &name, &format!("S{j} = r(α^{})", cx.fcr as usize + j));
        let map = AffineMap { matrix: BitMatrix::from_rows(cx.b.cw_bits() as usize, rows), constant: BitVec::zeros(m) };
        xor_net::emit(&mut pipe.items, &XorNet { name: &name, input: Columns::One(&cw), map: &map, style: XorStyle::Masked }, &name, 0);
        way.s.push(name);
    }
}

fn bm_init(cx: &Ctx, pipe: &mut Pipe, way: &mut Way) {
    let m = cx.m as u32;
    let p = way.p.clone();
    way.lam = vec![cx.konst(pipe, &format!("{p}l0_0"), m, 1, "Λ = 1 before the first iteration")];
    way.bb = vec![cx.konst(pipe, &format!("{p}b0_0"), m, 1, "B = 1")];
    way.gam = cx.konst(pipe, &format!("{p}g_0"), m, 1, "γ = 1");
    way.len = cx.konst(pipe, &format!("{p}len_0"), cx.lw, 0, "L = 0");
}

/// Iteration r of the inversionless Berlekamp–Massey algorithm.
fn bm_step(cx: &Ctx, pipe: &mut Pipe, way: &mut Way, r: usize) {
    let (t, lw) = (cx.t, cx.lw);
    let p = way.p.clone();
    let deg = r.min(t);
    let bdeg = r.min(t - 1);
    debug_assert_eq!(way.lam.len(), deg + 1);
    debug_assert_eq!(way.bb.len(), bdeg + 1);
    let d = format!("{p}d{r}");
    let terms: Vec<Term> = (0..=deg).map(|i| Term::Prod(way.lam[i].clone(), way.s[r - i].clone())).collect();
    cx.sum(pipe, &d, &format!("discrepancy δ of iteration {r}"), &terms);
    let c = pipe.wire(&format!("{p}c{r}"), 1, "δ != 0 and 2L <= r: the length changes");
    let len = pipe.at(&way.len);
    let le = Expr::bin(BinOp::Le, Expr::id(&len), Expr::dec(lw, (r / 2) as u64));
    pipe.items.push(Item::assign(Expr::id(&c), Expr::and(Expr::red(UnOp::RedOr, Expr::id(&d)), le)));
    // Λ' = γ·Λ + δ·x·B.
    let mut lam = Vec::new();
    for i in 0..=(r + 1).min(t) {
        let mut terms = Vec::new();
        if i <= deg {
            terms.push(Term::Prod(way.gam.clone(), way.lam[i].clone()));
        }
        if i >= 1 && i - 1 <= bdeg {
            terms.push(Term::Prod(d.clone(), way.bb[i - 1].clone()));
        }
        let name = format!("{p}l{i}_{}", r + 1);
        cx.sum(pipe, &name, "", &terms);
        lam.push(name);
    }
    let last = r + 1 == 2 * t;
    if !last {
        let zero = Expr::dec(cx.m as u32, 0);
        let mut bb = Vec::new();
        for i in 0..=(r + 1).min(t - 1) {
            let keep = if i <= deg { pipe.expr(&way.lam[i]) } else { zero.clone() };
            let shift = if i >= 1 && i - 1 <= bdeg { pipe.expr(&way.bb[i - 1]) } else { zero.clone() };
            let name = cx.gf_wire(pipe, &format!("{p}b{i}_{}", r + 1), "");
            pipe.items.push(Item::assign(Expr::id(&name), Expr::mux(Expr::id(&c), keep, shift)));
            bb.push(name);
        }
        let g = cx.gf_wire(pipe, &format!("{p}g_{}", r + 1), "");
        let old = pipe.expr(&way.gam);
        pipe.items.push(Item::assign(Expr::id(&g), Expr::mux(Expr::id(&c), Expr::id(&d), old)));
        way.bb = bb;
        way.gam = g;
    }
    let l = pipe.wire(&format!("{p}len_{}", r + 1), lw, "");
    let changed = Expr::bin(BinOp::Sub, Expr::dec(lw, (r + 1) as u64), Expr::id(&len));
    pipe.items.push(Item::assign(Expr::id(&l), Expr::mux(Expr::id(&c), changed, Expr::id(&len))));
    way.lam = lam;
    way.len = l;
}

fn omega_chien(cx: &Ctx, pipe: &mut Pipe, way: &mut Way) {
    let (t, m, f) = (cx.t, cx.m, &cx.f);
    let p = way.p.clone();
    for i in 0..t {
        let terms: Vec<Term> = (0..=i).map(|j| Term::Prod(way.lam[j].clone(), way.s[i - j].clone())).collect();
        let name = format!("{p}om{i}");
        cx.sum(pipe, &name, &format!("Ω_{i} of Ω = Λ·S mod x^t"), &terms);
        way.om.push(name);
    }
    let n = way.code.n();
    let lamv = pipe.wire(&format!("{p}lamv"), ((t + 1) * m) as u32, "{Λ_t, …, Λ_0}");
    let parts: Vec<Expr> = (0..=t).rev().map(|i| pipe.expr(&way.lam[i])).collect();
    pipe.items.push(Item::assign(Expr::id(&lamv), Expr::Concat(parts)));
    // One small network and one root flag per position: narrow wires, no wide vectors to select
    // bits from (Verilator 5.006's DFG walks a concatenation per bit select, quadratically).
    let mut flags = Vec::with_capacity(n);
    for pos in 0..n {
        let d = (n - 1 - pos) as i64;
        let mut rows = vec![BitVec::zeros((t + 1) * m); m];
        for i in 0..=t {
            let c = f.alpha(-d * i as i64);
            for bit in 0..m {
                let column = f.mul(c, 1 << bit);
                for (o, row) in rows.iter_mut().enumerate() {
                    if column >> o & 1 == 1 {
                        row.flip(i * m + bit);
                    }
                }
            }
        }
        let ev = pipe.wire(&format!("{p}ev{pos}"), m as u32, "");
        let map = AffineMap { matrix: BitMatrix::from_rows((t + 1) * m, rows), constant: BitVec::zeros(m) };
        xor_net::emit(&mut pipe.items, &XorNet { name: &ev, input: Columns::One(&lamv), map: &map, style: XorStyle::Masked }, &ev, 0);
        let rt = pipe.wire(&format!("{p}rt{pos}"), 1, "");
        pipe.items.push(Item::assign(Expr::id(&rt), Expr::red(UnOp::RedNor, Expr::id(&ev))));
        flags.push(rt);
    }
    way.roots = flags;
}

/// Blocked prefix sums of `values` (each `w` bits): the exclusive prefix of every element whose
/// `need` is set (`None` = 0) and the total. Wires are named `<base>_<counter>`.
fn prefix_sums(items: &mut Vec<Item>, base: &str, counter: &mut usize, values: &[Expr], need: &[bool], w: u32) -> (Vec<Option<Expr>>, Expr) {
    fn add(items: &mut Vec<Item>, base: &str, counter: &mut usize, w: u32, a: Expr, b: Expr) -> Expr {
        let name = format!("{base}_{}", *counter);
        *counter += 1;
        items.push(Item::wire(&name, w, ""));
        items.push(Item::assign(Expr::id(&name), Expr::bin(BinOp::Add, a, b)));
        Expr::id(&name)
    }
    let mut local = Vec::with_capacity(values.len());
    let mut totals = Vec::new();
    for block in values.chunks(RADIX) {
        let mut acc: Option<Expr> = None;
        for v in block {
            local.push(acc.clone());
            acc = Some(match acc {
                None => v.clone(),
                Some(a) => add(items, base, counter, w, a, v.clone()),
            });
        }
        totals.push(acc.expect("non-empty block"));
    }
    if values.len() <= RADIX {
        let total = totals.pop().expect("one block");
        return ((0..values.len()).map(|i| if need[i] { local[i].clone() } else { None }).collect(), total);
    }
    let block_need: Vec<bool> = need.chunks(RADIX).map(|c| c.iter().any(|&x| x)).collect();
    let (bases, total) = prefix_sums(items, base, counter, &totals, &block_need, w);
    let mut out = Vec::with_capacity(values.len());
    for i in 0..values.len() {
        if !need[i] {
            out.push(None);
            continue;
        }
        out.push(match (&bases[i / RADIX], &local[i]) {
            (None, l) => l.clone(),
            (Some(bs), None) => Some(bs.clone()),
            (Some(bs), Some(l)) => Some(add(items, base, counter, w, bs.clone(), l.clone())),
        });
    }
    (out, total)
}

fn count(cx: &Ctx, pipe: &mut Pipe, way: &mut Way) {
    let lw = cx.lw;
    let p = way.p.clone();
    let (n, k) = (way.code.n(), way.code.k());
    let values: Vec<Expr> = (0..n).map(|pos| Expr::Concat(vec![Expr::dec(lw - 1, 0), pipe.expr(&way.roots[pos])])).collect();
    let need: Vec<bool> = (0..n).map(|pos| pos < k).collect();
    pipe.items.push(Item::comment(&format!("{p}: prefix counts of the roots (how many lie before each message position) and their total.")));
    let mut counter = 0;
    let (pc, total) = prefix_sums(&mut pipe.items, &format!("{p}cnt"), &mut counter, &values, &need, lw);
    // Each count a wire of its own, so a register stage can carry it.
    way.pc = pc
        .into_iter()
        .take(k)
        .enumerate()
        .map(|(q, e)| {
            e.map(|e| {
                let name = pipe.wire(&format!("{p}pc{q}"), lw, "");
                pipe.items.push(Item::assign(Expr::id(&name), e));
                name
            })
        })
        .collect();
    let len = pipe.at(&way.len);
    let nzl = pipe.wire(&format!("{p}nzl"), 1, "L != 0: some syndrome is nonzero");
    pipe.items.push(Item::assign(Expr::id(&nzl), Expr::red(UnOp::RedOr, Expr::id(&len))));
    let ok = pipe.wire(&format!("{p}ok"), 1, "correctable: L <= t and exactly L roots at existing positions");
    let fits = Expr::bin(BinOp::Le, Expr::id(&len), Expr::id("T"));
    pipe.items.push(Item::assign(Expr::id(&ok), Expr::and(Expr::and(Expr::id(&nzl), fits), Expr::eq(total, Expr::id(&len)))));
    way.ok = ok;
    way.nzl = nzl;
}

fn slot(cx: &Ctx, pipe: &mut Pipe, way: &mut Way) {
    let (t, m, lw, f) = (cx.t, cx.m, cx.lw, &cx.f);
    let p = way.p.clone();
    let (n, k) = (way.code.n(), way.code.k());
    // The prefix counts are wires of the COUNT step: bring them into this stage.
    let pc: Vec<Option<Expr>> = way.pc.iter().map(|e| e.as_ref().map(|name| pipe.expr(name))).collect();
    // Per message position, the one-hot slot of its root (all zero without a root).
    for (q, count) in pc.iter().enumerate() {
        let root = pipe.expr(&way.roots[q]);
        let oh = pipe.wire(&format!("{p}oh{q}"), t as u32, "");
        let bits: Vec<Expr> = (0..t)
            .rev()
            .map(|s| match count {
                None if s == 0 => root.clone(),
                None => Expr::dec(1, 0),
                Some(c) => Expr::and(root.clone(), Expr::eq(c.clone(), Expr::dec(lw, s as u64))),
            })
            .collect();
        pipe.items.push(Item::assign(Expr::id(&oh), Expr::Concat(bits)));
        way.oh.push(oh);
    }
    for s in 0..t {
        // Constants of the selected position: an OR over the positions of (one-hot bit & constant),
        // narrow m-bit terms (cheaper for Verilator than a wide masked reduction).
        let select = |pipe: &mut Pipe, name: &str, value: &dyn Fn(i64) -> u16, doc: &str| {
            let w = cx.gf_wire(pipe, name, doc);
            let terms: Vec<Expr> = (0..k)
                .filter_map(|q| {
                    let c = value((n - 1 - q) as i64);
                    (c != 0).then(|| Expr::and(Expr::Repeat(m as u32, Box::new(Expr::bit(&way.oh[q], s as u32))), Expr::konst(m as u32, u128::from(c))))
                })
                .collect();
            // Lines of at most OR_CHUNK terms: partial ORs on wires of their own.
            let mut parts: Vec<Expr> = Vec::new();
            let chunks = terms.len().div_ceil(OR_CHUNK);
            for (j, chunk) in terms.chunks(OR_CHUNK).enumerate() {
                let e = chunk.iter().cloned().reduce(Expr::or).expect("non-empty chunk");
                if chunks == 1 {
                    parts.push(e);
                } else {
                    let part = pipe.wire(&format!("{name}_o{j}"), m as u32, "");
                    pipe.items.push(Item::assign(Expr::id(&part), e));
                    parts.push(Expr::id(&part));
                }
            }
            let rhs = parts.into_iter().reduce(Expr::or).unwrap_or_else(|| Expr::dec(m as u32, 0));
            pipe.items.push(Item::assign(Expr::id(&w), rhs));
            w
        };
        let x = select(pipe, &format!("{p}x{s}"), &|d| f.alpha(-d), "X^−1 = α^−d of the slot's position");
        way.scale.push((cx.fcr != 1).then(|| select(pipe, &format!("{p}y{s}"), &|d| f.alpha(d * (1 - i64::from(cx.fcr))), "X^(1−fcr)")));
        // Powers x^1 … x^(t−1): squares are linear maps, odd powers one product.
        let mut pw = vec![x.clone()];
        for i in 2..t {
            let name = format!("{p}x{s}_e{i}");
            if i % 2 == 0 {
                let half = pw[i / 2 - 1].clone();
                cx.sum(pipe, &name, &format!("X^−{i}"), &[Term::frobenius(f, &half, 1)]);
            } else {
                let prev = pw[i - 2].clone();
                cx.sum(pipe, &name, &format!("X^−{i}"), &[Term::Prod(prev, x.clone())]);
            }
            pw.push(name);
        }
        way.pw.push(pw);
    }
}

fn forney_eval(cx: &Ctx, pipe: &mut Pipe, way: &mut Way) {
    let (t, f) = (cx.t, &cx.f);
    let p = way.p.clone();
    for s in 0..t {
        let pw = way.pw[s].clone();
        let mut terms = vec![Term::plain(f, &way.om[0])];
        for i in 1..t {
            terms.push(Term::Prod(way.om[i].clone(), pw[i - 1].clone()));
        }
        let ov = format!("{p}ov{s}");
        cx.sum(pipe, &ov, "Ω(X^−1)", &terms);
        let mut terms = vec![Term::plain(f, &way.lam[1])];
        for i in (3..=t).step_by(2) {
            terms.push(Term::Prod(way.lam[i].clone(), pw[i - 2].clone()));
        }
        let dn = format!("{p}dn{s}");
        cx.sum(pipe, &dn, "Λ'(X^−1)", &terms);
        way.num.push(ov);
        way.den.push(dn);
    }
}

fn inverse(cx: &Ctx, pipe: &mut Pipe, way: &mut Way) {
    let p = way.p.clone();
    for s in 0..cx.t {
        let den = pipe.at(&way.den[s]);
        let iv = cx.gf_wire(pipe, &format!("{p}iv{s}"), "1 / Λ'(X^−1)");
        emit_inverse(&mut pipe.items, &cx.f, &den, &iv, &format!("{p}inv{s}"));
        way.inv.push(iv);
        if let Some(y) = way.scale[s].clone() {
            let nm = format!("{p}nm{s}");
            cx.sum(pipe, &nm, "X^(1−fcr)·Ω(X^−1)", &[Term::Prod(y, way.num[s].clone())]);
            way.num[s] = nm;
        }
    }
}

fn value(cx: &Ctx, pipe: &mut Pipe, way: &mut Way) {
    let p = way.p.clone();
    for s in 0..cx.t {
        let e = format!("{p}e{s}");
        cx.sum(pipe, &e, &format!("error value of slot {s}"), &[Term::Prod(way.num[s].clone(), way.inv[s].clone())]);
        way.e.push(e);
    }
}

/// The corrected message symbols of a way (into `fixed`, by flit symbol) and its flags.
fn correct(cx: &Ctx, pipe: &mut Pipe, way: &mut Way, w: usize, fixed: &mut [Option<Expr>]) {
    let (t, m) = (cx.t, cx.m);
    let k = way.code.k();
    let cw_msg = pipe.at("cw_msg");
    let ok = pipe.at(&way.ok);
    let e: Vec<String> = way.e.iter().map(|s| pipe.at(s)).collect();
    for q in 0..k {
        let sym = way.symbols[q] as u32;
        let m32 = m as u32;
        let oh = pipe.at(&way.oh[q]);
        let corr = (0..t)
            .map(|s| Expr::and(Expr::Repeat(m32, Box::new(Expr::bit(&oh, s as u32))), Expr::id(&e[s])))
            .reduce(Expr::or)
            .expect("t >= 2");
        let fix = Expr::and(Expr::Repeat(m32, Box::new(Expr::id(&ok))), corr);
        fixed[sym as usize] = Some(Expr::xor(Expr::slice(&cw_msg, m32 * sym + m32 - 1, m32 * sym), fix));
    }
    let ways = cx.b.ways as usize;
    let vbit = |name: &str| if ways == 1 { Expr::id(name) } else { Expr::bit(name, w as u32) };
    let nzl = pipe.expr(&way.nzl);
    pipe.items.push(Item::assign(vbit("wc"), Expr::id(&ok)));
    pipe.items.push(Item::assign(vbit("wu"), Expr::and(nzl, Expr::id(&ok).lnot())));
}

pub fn module(b: &RsFecBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let f = b.field();
    let t = b.t() as usize;
    let cx = Ctx { m: f.m() as usize, t, lw: u32::BITS - (2 * t as u32).leading_zeros(), fcr: b.fcr, b, f };
    let model = b.generic_model();
    let (msg_bits, cw_bits) = (b.msg_bits(), b.cw_bits());
    let ways_n = b.ways as usize;

    let ports = super::decoder_ports(
        b,
        design,
        super::FlagTexts {
            corrected: "some way had errors and corrected them (possibly a miscorrection)",
            way_corrected: "per way: errors located and corrected",
            way_uncorrectable: "per way: L > t, or fewer than L roots at existing positions",
        },
    );

    let plan = steps(b);
    let weights: Vec<u32> = plan.iter().map(|s| s.weight).collect();
    let cuts = plan_cuts(&weights, b.pipeline as usize);
    let mut pipe = Pipe::new();
    pipe.items.push(Item::Localparam { name: "T".into(), value: Expr::dec(cx.lw, t as u64), doc: "symbol errors a way corrects".into() });
    pipe.define("cw", cw_bits, 0);
    let cw_msg = pipe.wire("cw_msg", msg_bits, "cw[msg bits], carried to the correction");
    pipe.items.push(Item::assign(Expr::id(&cw_msg), Expr::slice("cw", msg_bits - 1, 0)));
    let mut ways: Vec<Way> = (0..ways_n)
        .map(|w| {
            let code = model.way_code(w).clone();
            let symbols = (0..code.n()).map(|pos| pos * ways_n + w).collect();
            Way {
                p: format!("w{w}_"),
                code,
                symbols,
                s: vec![],
                lam: vec![],
                bb: vec![],
                gam: String::new(),
                len: String::new(),
                om: vec![],
                roots: vec![],
                pc: vec![],
                ok: String::new(),
                nzl: String::new(),
                oh: vec![],
                pw: vec![],
                scale: vec![],
                num: vec![],
                den: vec![],
                inv: vec![],
                e: vec![],
            }
        })
        .collect();
    let mut fixed: Vec<Option<Expr>> = vec![None; b.flit_msg_symbols as usize];
    let mut stage_of_step = Vec::with_capacity(plan.len());
    for (i, step) in plan.iter().enumerate() {
        pipe.items.push(Item::comment(&format!("Step {}: {} (stage {}).", i, step.name, pipe.stage())));
        stage_of_step.push(pipe.stage());
        if i == 1 {
            for way in ways.iter_mut() {
                bm_init(&cx, &mut pipe, way);
            }
        }
        if i == plan.len() - 1 {
            pipe.wire("msg_c", msg_bits, "corrected message");
            pipe.wire("wc", b.ways, "way corrected");
            pipe.wire("wu", b.ways, "way uncorrectable");
        }
        for (w, way) in ways.iter_mut().enumerate() {
            match i {
                0 => syndromes(&cx, &mut pipe, way),
                r if r <= 2 * t => bm_step(&cx, &mut pipe, way, r - 1),
                r => match r - 2 * t {
                    1 => omega_chien(&cx, &mut pipe, way),
                    2 => count(&cx, &mut pipe, way),
                    3 => slot(&cx, &mut pipe, way),
                    4 => forney_eval(&cx, &mut pipe, way),
                    5 => inverse(&cx, &mut pipe, way),
                    6 => value(&cx, &mut pipe, way),
                    _ => correct(&cx, &mut pipe, way, w, &mut fixed),
                },
            }
        }
        if i == plan.len() - 1 {
            // One assignment per symbol (a single concatenation would exceed tool line limits).
            let m32 = cx.m as u32;
            for (sym, e) in fixed.drain(..).enumerate() {
                let sym = sym as u32;
                pipe.items.push(Item::assign(Expr::slice("msg_c", m32 * sym + m32 - 1, m32 * sym), e.expect("every message symbol is in some way")));
            }
        }
        if cuts[i] {
            pipe.cut();
        }
    }
    let cor = pipe.wire("cor", 1, "");
    let unc = pipe.wire("unc", 1, "");
    pipe.items.push(Item::assign(Expr::id(&cor), Expr::red(UnOp::RedOr, Expr::id("wc"))));
    pipe.items.push(Item::assign(Expr::id(&unc), Expr::red(UnOp::RedOr, Expr::id("wu"))));
    if b.pipeline > 0 {
        pipe.items.push(Item::comment("Output register."));
        pipe.cut();
    }
    assert_eq!(pipe.stage(), b.pipeline, "the plan places exactly `pipeline` stages");
    for (port, sig) in [("msg", "msg_c"), ("corrected", "cor"), ("uncorrectable", "unc"), ("way_corrected", "wc"), ("way_uncorrectable", "wu")] {
        let e = pipe.expr(sig);
        pipe.items.push(Item::assign(Expr::id(port), e));
    }
    let mut items = pipe.finish();
    if b.pipeline > 0 {
        xor_net::emit_valid_pipe(&mut items, "valid_pipe", "in_valid", "out_valid", b.pipeline);
    }

    let mut notes = layout_notes(b);
    notes.push(format!(
        "Decoder for t = {t} per way: syndromes (XOR networks), inversionless Berlekamp-Massey unrolled over {} iterations, Chien search over the existing positions in parallel, the located message positions compacted into {t} slots, Forney per slot (inverse by Itoh-Tsujii), correction. Uncorrectable when L > t or the number of roots at existing positions differs from L; such a way passes through unchanged.",
        2 * t
    ));
    if b.pipeline > 0 {
        let groups: Vec<String> = (0..=b.pipeline.saturating_sub(1))
            .map(|s| {
                let names: Vec<&str> = plan.iter().zip(&stage_of_step).filter(|(_, &st)| st == s).map(|(p, _)| p.name.as_str()).collect();
                format!("stage {}: {}", s, compress(&names))
            })
            .collect();
        notes.push(format!("Register stages (each ends in registers; the last in the output register): {}.", groups.join("; ")));
    }
    notes.push(latency_note(b.pipeline));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: (b.pipeline > 0).then_some(design.reset) },
        latency: b.pipeline,
        summary: format!(
            "Reed-Solomon decoder for t = {t} symbol errors per way ({}), one codeword per cycle: Berlekamp-Massey, Chien and Forney.",
            {
                let codes: Vec<String> = (0..ways_n).map(|w| format!("RS({}, {})", model.way_code(w).n(), model.way_code(w).k())).collect();
                let mut codes = codes;
                codes.dedup();
                format!("{} way(s) of {} over GF(2^{})", b.ways, codes.join(" / "), b.symbol_bits)
            }
        ),
        notes,
        role: Role::FecDec,
        origin: None,
    }
}

/// "bm0, bm1, …, bm5" → "bm0..bm5" for the docs.
fn compress(names: &[&str]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < names.len() {
        let mut j = i;
        while j + 1 < names.len() && names[j + 1].starts_with("bm") && names[i].starts_with("bm") {
            j += 1;
        }
        out.push(if j > i { format!("{}..{}", names[i], names[j]) } else { names[i].to_string() });
        i = j + 1;
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::rs_fec::rtl::dec_t1::tests::{run, words};
    use crate::blocks::rs_fec::model::FlitFec;
    use crate::blocks::rs_fec::test_support::{block, design, hit_symbol, Rng};

    #[test]
    fn cut_plans_balance_and_count() {
        let w = [5, 1, 1, 1, 9, 2, 2];
        for segments in 1..=w.len() {
            let cut = plan_cuts(&w, segments);
            assert_eq!(cut.iter().filter(|&&c| c).count(), segments - 1);
            assert!(!cut[w.len() - 1], "never after the last step");
        }
        assert_eq!(plan_cuts(&w, 3), vec![false, false, false, true, true, false, false]);
    }

    #[test]
    fn small_codes_match_the_model() {
        for f in [
            "symbol_bits = 4\nfield_poly = 0x13\ncheck_symbols = 4\nmsg_symbols = 7",
            "symbol_bits = 5\nfield_poly = 0x25\nfcr = 3\ncheck_symbols = 6\nmsg_symbols = 20\nways = 2",
            "symbol_bits = 8\nfield_poly = 0x12B\nfcr = 1\ncheck_symbols = 4\nmsg_bytes = 30\nways = 3\npipeline = 5",
            "symbol_bits = 6\nfield_poly = 0x43\nfcr = 60\ncheck_symbols = 8\nmsg_symbols = 50\npipeline = 16",
        ] {
            run(f, &words(f, 300, 11));
        }
    }

    /// Errors up to t and t + 1 (detected or miscorrected, as the model says) on KR4.
    fn ethernet(fields: &str, seed: u64, trials: usize) {
        let d = design(fields, "async_low");
        let b = block(&d);
        let model = b.model();
        let t = b.t() as usize;
        let n = b.cw_symbols() as usize;
        let mut rng = Rng::new(seed);
        let mut ws = Vec::new();
        for i in 0..trials {
            let msg = crate::blocks::rs_fec::test_support::message(&mut rng, b);
            let mut cw = model.encode(&msg);
            let errors = if i % 3 == 2 { t + 1 } else { 1 + rng.below(t) };
            for s in rng.distinct(n, errors) {
                hit_symbol(&mut cw, 10, s, rng.nonzero(0x3FF));
            }
            ws.push(cw);
        }
        run(fields, &ws);
    }

    /// Small fields make every corner frequent: miscorrections, roots in shortened positions,
    /// L > t, locators without enough roots. Random words, and codewords with many errors.
    #[test]
    fn garbage_on_small_fields_matches_the_model() {
        for (i, f) in [
            "symbol_bits = 3\nfield_poly = 0xB\ncheck_symbols = 4\nmsg_symbols = 2",
            "symbol_bits = 4\nfield_poly = 0x13\ncheck_symbols = 6\nmsg_symbols = 5\nways = 2\npipeline = 3",
            "symbol_bits = 4\nfield_poly = 0x19\nfcr = 5\ncheck_symbols = 4\nmsg_symbols = 3",
            "symbol_bits = 5\nfield_poly = 0x25\nfcr = 1\ncheck_symbols = 8\nmsg_symbols = 9",
        ]
        .into_iter()
        .enumerate()
        {
            let d = design(f, "async_low");
            let b = block(&d);
            let model = b.model();
            let mut rng = Rng::new(100 + i as u64);
            let bytes = (b.cw_bits() as usize).div_ceil(8);
            let mut ws = Vec::new();
            for j in 0..1500 {
                let mut w = if j % 2 == 0 {
                    rng.bytes(bytes)
                } else {
                    let msg = crate::blocks::rs_fec::test_support::message(&mut rng, b);
                    let mut cw = model.encode(&msg);
                    let n = b.cw_symbols() as usize;
                    let errors = 1 + rng.below(n);
                    for s in rng.distinct(n, errors) {
                        hit_symbol(&mut cw, b.symbol_bits, s, rng.nonzero(((1u32 << b.symbol_bits) - 1) as u16));
                    }
                    cw
                };
                let spare = bytes * 8 - b.cw_bits() as usize;
                *w.last_mut().expect("non-empty") &= 0xFF >> spare;
                ws.push(w);
            }
            let (mut corrected, mut flagged) = (0, 0);
            for w in &ws {
                let s = model.decode(w).status;
                corrected += usize::from(s.corrected);
                flagged += usize::from(s.uncorrectable);
            }
            assert!(corrected > 100 && flagged > 100, "{f}: {corrected} corrected, {flagged} flagged");
            run(f, &ws);
        }
    }

    #[test]
    fn kr4_matches_the_model() {
        ethernet("symbol_bits = 10\nfield_poly = 0x409\ncheck_symbols = 14\nmsg_symbols = 514\npipeline = 8", 21, 60);
    }

    #[test]
    fn kp4_matches_the_model() {
        ethernet("symbol_bits = 10\nfield_poly = 0x409\ncheck_symbols = 30\nmsg_symbols = 514\npipeline = 12", 22, 24);
    }
}
