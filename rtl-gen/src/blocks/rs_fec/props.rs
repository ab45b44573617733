//! Properties of the `rs_fec` whole-codeword generators: the encoder and the t = 1 decoder equal
//! references built from the model's syndrome function ([`FlitFec::syndromes`]: Horner's rule
//! at the generator's roots, pcie6 its parity and check sums), not from the code paths the
//! generators use (the encoder is the model's `encode` probed on unit vectors, the decoder's
//! syndromes are written from the field's α powers in `dec_t1`).
//!
//! - Encoder: `p_cw_msg` (the message passes unchanged) and `p_cw_codeword` (every syndrome of
//!   `cw` is zero). A systematic code has exactly one codeword per message, so together they say
//!   `cw` is the model's codeword of `msg` for every message. Both are affine: GF(2) evaluation.
//! - t = 1 decoder: `p_syn_ref` (the decoder's syndrome wire `syn` equals the model's syndromes
//!   of `cw`, affine: GF(2) evaluation), one `p_dec_ref_w<k>` per way (the way's message
//!   symbols and flags equal a reference decision computed from the way's syndromes in `syn`)
//!   and `p_dec_flags` (the global flags are the OR of the per-way ones). A way's assertion
//!   reads 2m bits of the cut, so `rtl-gen formal` proves it by enumerating them (GF(2) over
//!   `cw` for every syndrome value). The reference locates an error without the generator's
//!   `S1 == α^d·S0` test: for each symbol i of a way, A_i is the model's syndrome of a single
//!   error at i (m columns, probed), e_i = B_i·s with B_i a left inverse of A_i, and i is hit
//!   when e_i != 0 and s == A_i·e_i (s lies in A_i's image). That is the model's t = 1 rule: a
//!   single error anywhere in the way is located and corrected, any other nonzero syndrome is
//!   uncorrectable (shortened positions and pcie6's constant zero are not symbols of `cw`, so
//!   they are never hit). The decision assertions read the decoder's `syn` as a cut point; `p_syn_ref`
//!   proves that cut equal to the model's syndromes, so the two compose to "the outputs are the
//!   reference decoder's on every cw".
//!
//! A pipelined encoder carries the same two properties, `p_cw_msg` against the message its
//! latency earlier (shadow delay registers), and is proven with its registers read as delays
//! ([`Formal::retimed`]). A pipelined t = 1 decoder carries the decoder's: `p_syn_ref` for its
//! syndrome register `syn_q` against `cw` the syndrome network's stages earlier, the decision
//! against `syn_q` delayed to the output by shadow registers and `cw` the latency earlier, with
//! `syn_q` the cut (the enumeration reads the plain registers after it as delays). The
//! streaming modules' properties are in [`super::stream_props`].

use super::model::FlitFec;
use super::RsFecBlock;
use crate::hw::props::Formal;
use crate::hw::verilog::{Expr, Item, UnOp};
use crate::math::gf2::{BitMatrix, BitVec};
use crate::math::gf2m::set_bit;

/// The model's syndromes of every way as rows over the `cw` bits (row k: the cw bits syndrome
/// bit k XORs), way after way, each syndrome LSB first; the syndromes are linear in `cw`.
pub fn syndrome_rows(b: &RsFecBlock) -> Vec<BitVec> {
    let model = b.model();
    let m = b.symbol_bits as usize;
    let cw_bits = b.cw_bits() as usize;
    let flat = |cw: &[u8]| -> Vec<bool> { model.syndromes(cw).iter().flatten().flat_map(|&s| (0..m).map(move |i| s >> i & 1 == 1)).collect() };
    let mut cw = vec![0u8; cw_bits.div_ceil(8)];
    let zero = flat(&cw);
    debug_assert!(zero.iter().all(|&x| !x), "syndromes of the zero word");
    let mut rows = vec![BitVec::zeros(cw_bits); zero.len()];
    for k in 0..cw_bits {
        set_bit(&mut cw, k, true);
        for (r, v) in flat(&cw).into_iter().enumerate() {
            if v {
                rows[r].set(k, true);
            }
        }
        set_bit(&mut cw, k, false);
    }
    rows
}

/// One flat masked parity of `of` per row, row 0 the LSB; a row without a bit is the constant
/// 0 (no `of & 0` in the text).
fn parities(of: &str, rows: &[BitVec]) -> Expr {
    let bits: Vec<Expr> = rows.iter().rev().map(|r| if r.is_zero() { Expr::dec(1, 0) } else { Expr::parity(Expr::id(of), r.clone(), false) }).collect();
    if bits.len() == 1 {
        bits.into_iter().next().expect("one bit")
    } else {
        Expr::Concat(bits)
    }
}

/// The encoder's properties (whole-codeword encoders; pipelined, against the message its
/// latency earlier, the registers read as delays).
pub fn encoder(b: &RsFecBlock) -> Option<Item> {
    if b.stream.is_some() {
        return None;
    }
    let rows = syndrome_rows(b);
    let mut f = if b.enc_stages > 0 { Formal::retimed() } else { Formal::combinational() };
    f.items.push(Item::wire("f_ref_syn", rows.len() as u32, "reference: the model's syndromes of cw, one flat masked parity per bit"));
    f.items.push(Item::assign(Expr::id("f_ref_syn"), parities("cw", &rows)));
    let msg_bits = b.msg_bits();
    let msg = f.delayed("msg", msg_bits, Expr::id("msg"), b.enc_stages);
    f.assert("p_cw_msg", "the message passes unchanged", None, Expr::eq(Expr::slice("cw", msg_bits - 1, 0), msg));
    f.assert("p_cw_codeword", "cw is a codeword of the model's code: every syndrome zero", None, Expr::red(UnOp::RedOr, Expr::id("f_ref_syn")).lnot());
    Some(Item::Formal(f))
}

/// A left inverse of the `r`×`c` matrix `a` (rank c): `c`×`r`, `l·a = I`.
fn left_inverse(a: &BitMatrix) -> BitMatrix {
    let (r, c) = (a.rows(), a.cols());
    // Greedily pick c independent rows, reduced against the picked ones.
    let mut picked: Vec<usize> = Vec::new();
    let mut basis: Vec<(BitVec, usize)> = Vec::new();
    for i in 0..r {
        let mut v = a.row(i).clone();
        for (bv, lead) in &basis {
            if v.get(*lead) {
                v.xor_assign(bv);
            }
        }
        let lead = v.iter_ones().next();
        if let Some(lead) = lead {
            for (bv, _) in basis.iter_mut() {
                if bv.get(lead) {
                    bv.xor_assign(&v);
                }
            }
            basis.push((v, lead));
            picked.push(i);
        }
        if picked.len() == c {
            break;
        }
    }
    assert_eq!(picked.len(), c, "a single-error syndrome map has full column rank");
    let square = BitMatrix::from_rows(c, picked.iter().map(|&i| a.row(i).clone()).collect());
    let inv = square.inverse().expect("independent rows");
    let mut l = BitMatrix::zeros(c, r);
    for j in 0..c {
        for (k, &i) in picked.iter().enumerate() {
            if inv.get(j, k) {
                l.set(j, i, true);
            }
        }
    }
    l
}

/// Rows of `m` (over `width` bits) shifted to start at bit `at` of a `total`-bit vector.
fn placed(m: &BitMatrix, at: usize, total: usize) -> Vec<BitVec> {
    m.row_iter()
        .map(|row| {
            let mut v = BitVec::zeros(total);
            for k in row.iter_ones() {
                v.set(at + k, true);
            }
            v
        })
        .collect()
}

/// The t = 1 decoder's properties (whole-codeword decoders; pipelined, `syn_stages` of its
/// `pipeline` stages in the syndrome network, whose output register `syn_q` is the cut).
pub fn decoder_t1(b: &RsFecBlock, syn_stages: u32) -> Option<Item> {
    if b.stream.is_some() || b.t() != 1 {
        return None;
    }
    let model = b.model();
    let m = b.symbol_bits as usize;
    let ways = b.ways as usize;
    let (msg_symbols, cw_symbols) = (b.flit_msg_symbols as usize, b.cw_symbols() as usize);
    let rows = syndrome_rows(b);
    let syn_bits = rows.len();
    assert_eq!(syn_bits, 2 * m * ways, "two syndromes per way");
    let mut f = if b.pipeline > 0 { Formal::retimed() } else { Formal::combinational() };
    // The cut: the syndromes (registered at the end of a pipelined syndrome network), the
    // codeword at its stage, and both as the decision's reference reads them at the output.
    let syn = if syn_stages > 0 { "syn_q" } else { "syn" };
    let name = |e: &Expr, default: &str| if let Expr::Ident(n) = e { n.clone() } else { default.to_string() };
    let cw_at_syn = f.delayed("cw", b.cw_bits(), Expr::id("cw"), syn_stages);
    let cw_at_out = f.delayed("cw_out", b.cw_bits(), cw_at_syn.clone(), b.pipeline - syn_stages);
    let syn_at_out = f.delayed("syn", syn_bits as u32, Expr::id(syn), b.pipeline - syn_stages);
    let (cw_syn, cw_out, syn_out) = (name(&cw_at_syn, "cw"), name(&cw_at_out, "cw"), name(&syn_at_out, syn));
    f.items.push(Item::wire("f_ref_syn", syn_bits as u32, "reference: the model's syndromes of cw, one flat masked parity per bit"));
    f.items.push(Item::assign(Expr::id("f_ref_syn"), parities(&cw_syn, &rows)));
    f.assert("p_syn_ref", "the decoder's syndromes are the model's", None, Expr::eq(Expr::id(syn), Expr::id("f_ref_syn")));
    f.cut_points.push(syn.into());
    let (cw, syn) = (cw_out.as_str(), syn_out.as_str());
    // Per way: every symbol of the way, its error value e_i and its hit.
    let mut fixes = vec![None; msg_symbols];
    let (mut wc, mut wu) = (Vec::new(), Vec::new());
    for w in 0..ways {
        let at = 2 * m * w;
        let symbols: Vec<usize> = (0..cw_symbols).filter(|&i| model.way_of(i) == w).collect();
        let mut hits = Vec::with_capacity(symbols.len());
        for &i in &symbols {
            // A_i: the way's syndrome of a single error of value e at symbol i.
            let a = BitMatrix::from_rows(m, (0..2 * m).map(|k| BitVec::from_u128(m, (0..m).fold(0u128, |acc, bit| acc | u128::from(rows[at + k].get(i * m + bit)) << bit))).collect());
            let l = left_inverse(&a);
            let residue = {
                let mut p = a.mul(&l);
                for k in 0..2 * m {
                    p.set(k, k, !p.get(k, k));
                }
                p
            };
            let e = format!("f_e{i}");
            f.items.push(Item::wire(&e, m as u32, &format!("reference: the error value if the error is at symbol {i}")));
            f.items.push(Item::assign(Expr::id(&e), parities(syn, &placed(&l, at, syn_bits))));
            let hit = format!("f_hit{i}");
            f.items.push(Item::wire(&hit, 1, &format!("reference: syn is a single error at symbol {i}")));
            let off_image = Expr::red(UnOp::RedOr, parities(syn, &placed(&residue, at, syn_bits)));
            f.items.push(Item::assign(Expr::id(&hit), Expr::and(Expr::red(UnOp::RedOr, Expr::id(&e)), off_image.lnot())));
            if i < msg_symbols {
                fixes[i] = Some((e, hit.clone()));
            }
            hits.push(Expr::id(&hit));
        }
        let located = hits.into_iter().reduce(Expr::or).expect("a way has symbols");
        let nonzero = Expr::red(UnOp::RedOr, Expr::slice(syn, (at + 2 * m - 1) as u32, at as u32));
        wu.push(Expr::and(nonzero, located.clone().lnot()));
        wc.push(located);
    }
    let msg = (0..msg_symbols)
        .rev()
        .map(|i| {
            let (e, hit) = fixes[i].clone().expect("every message symbol belongs to a way");
            let sym = Expr::slice(cw, (i * m + m - 1) as u32, (i * m) as u32);
            Expr::xor(sym, Expr::and(Expr::Repeat(m as u32, Box::new(Expr::id(&hit))), Expr::id(&e)))
        })
        .collect();
    let cat = |v: Vec<Expr>| if v.len() == 1 { v.into_iter().next().expect("one") } else { Expr::Concat(v.into_iter().rev().collect()) };
    for (name, width, value, doc) in [
        ("f_ref_msg", b.msg_bits(), Expr::Concat(msg), "reference: cw's message with the located error removed"),
        ("f_ref_wc", b.ways, cat(wc), "reference: per way, a single error located"),
        ("f_ref_wu", b.ways, cat(wu), "reference: per way, nonzero syndromes no single error explains"),
    ] {
        f.items.push(Item::wire(name, width, doc));
        f.items.push(Item::assign(Expr::id(name), value));
    }
    // One assertion per way: a way's outputs depend only on its own two syndromes (2m bits
    // of the cut), so each proof enumerates 2^(2m) syndrome values, not 2^(2m·ways).
    let slice = |name: &str, i: usize| Expr::slice(name, (i * m + m - 1) as u32, (i * m) as u32);
    for w in 0..ways {
        let symbols: Vec<usize> = (0..msg_symbols).filter(|&i| model.way_of(i) == w).collect();
        let mut out: Vec<Expr> = symbols.iter().map(|&i| slice("msg", i)).collect();
        let mut reference: Vec<Expr> = symbols.iter().map(|&i| slice("f_ref_msg", i)).collect();
        let bit = |name: &str| if ways == 1 { Expr::id(name) } else { Expr::bit(name, w as u32) };
        out.extend([bit("way_corrected"), bit("way_uncorrectable")]);
        reference.extend([bit("f_ref_wc"), bit("f_ref_wu")]);
        f.assert(
            &format!("p_dec_ref_w{w}"),
            &format!("way {w}: its message symbols and flags are the reference t = 1 decoder's, from its syndromes"),
            None,
            Expr::eq(Expr::Concat(out), Expr::Concat(reference)),
        );
    }
    f.assert(
        "p_dec_flags",
        "the global flags are the OR of the per-way flags",
        None,
        Expr::eq(
            Expr::Concat(vec![Expr::id("corrected"), Expr::id("uncorrectable")]),
            Expr::Concat(vec![Expr::red(UnOp::RedOr, Expr::id("way_corrected")), Expr::red(UnOp::RedOr, Expr::id("way_uncorrectable"))]),
        ),
    );
    Some(Item::Formal(f))
}
