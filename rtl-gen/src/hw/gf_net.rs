//! GF(2^m) arithmetic as XOR networks, for the Reed-Solomon decoders.
//!
//! Everything is a masked-parity network ([`xor_net`]): a constant multiplier or a Frobenius
//! power is a linear map of its operand; a variable product a·b is linear in the partial
//! products a[j]·b[k], so a sum of products Σ a_i·b_i (+ linear terms) is one network over the
//! concatenated partial products, `{a & {m{b[m-1]}}, …, a & {m{b[0]}}, …}`. No ROMs, no `*`.
//!
//! Where one variable multiplies many (the RiBM's δ_0 and γ scale every processing element),
//! its multiplication matrix (the columns a·α^j, linear in a) is built once
//! ([`emit_mul_matrix`]) and each product is then [`Term::MatProd`]: output bit r is
//! `^(A_r & b)`, an AND-XOR of 2m signals, where [`Term::Prod`] folds m² partial products.

use super::verilog::{Expr, Item};
use super::xor_net::{self, Columns, XorNet, XorStyle};
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};
use crate::math::gf2m::{AffineMasks, Gf2m};

/// The [`AffineMap`] of probed [`AffineMasks`] (same columns and constant).
pub fn affine_of_masks(masks: &AffineMasks) -> AffineMap {
    let rows = masks
        .rows
        .iter()
        .map(|words| {
            let mut row = BitVec::zeros(masks.inputs);
            for (w, &word) in words.iter().enumerate() {
                for b in 0..64 {
                    if word >> b & 1 == 1 {
                        row.set(64 * w + b, true);
                    }
                }
            }
            row
        })
        .collect();
    let mut constant = BitVec::zeros(masks.outputs);
    for (i, &c) in masks.constant.iter().enumerate() {
        constant.set(i, c);
    }
    AffineMap { matrix: BitMatrix::from_rows(masks.inputs, rows), constant }
}

/// One term of a sum over GF(2^m); operands are named m-bit wires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// a·b of two variables.
    Prod(String, String),
    /// a·b with `a` given as its multiplication matrix (the m²-bit wire of
    /// [`emit_mul_matrix`]) and `b` a variable.
    MatProd(String, String),
    /// A linear map of a variable: `rows[i]` is the mask of input bits output bit i XORs
    /// (the form of [`Gf2m::mul_matrix`]).
    Lin(String, Vec<u32>),
}

impl Term {
    /// c·x for a constant c.
    pub fn scaled(field: &Gf2m, x: &str, c: u16) -> Term {
        Term::Lin(x.to_string(), field.mul_matrix(c))
    }

    /// x itself.
    pub fn plain(field: &Gf2m, x: &str) -> Term {
        Term::scaled(field, x, 1)
    }

    /// x^(2^k), a linear map over GF(2).
    pub fn frobenius(field: &Gf2m, x: &str, k: u32) -> Term {
        Term::Lin(x.to_string(), frobenius_rows(field, k))
    }
}

/// Rows of x ↦ x^(2^k).
pub fn frobenius_rows(field: &Gf2m, k: u32) -> Vec<u32> {
    let m = field.m() as usize;
    let mut rows = vec![0u32; m];
    for j in 0..m {
        let column = field.pow(1 << j, 1i64 << k);
        for (i, row) in rows.iter_mut().enumerate() {
            if column >> i & 1 == 1 {
                *row |= 1 << j;
            }
        }
    }
    rows
}

/// Emits `out = Σ terms` into the existing m-bit wire `out`. `tmp` names the partial-product
/// wire (`<tmp>_pp`) when the sum has products. An empty sum drives zero.
pub fn emit_sum(items: &mut Vec<Item>, field: &Gf2m, out: &str, terms: &[Term], tmp: &str) {
    let m = field.m() as usize;
    // Columns, low first: every term's block; parts are collected low first and reversed for
    // the Verilog concatenation.
    let mut parts: Vec<Expr> = Vec::new();
    let mut rows = vec![BitVec::zeros(0); m];
    let mut width = 0usize;
    let mut blocks: Vec<(usize, &Term)> = Vec::new();
    for term in terms {
        blocks.push((width, term));
        match term {
            Term::Prod(a, b) => {
                for k in 0..m {
                    parts.push(Expr::and(Expr::id(a), Expr::Repeat(m as u32, Box::new(Expr::bit(b, k as u32)))));
                }
                width += m * m;
            }
            Term::MatProd(a, b) => {
                // Bit r·m + j is A[r][j]·b[j].
                parts.push(Expr::and(Expr::id(a), Expr::Repeat(m as u32, Box::new(Expr::id(b)))));
                width += m * m;
            }
            Term::Lin(x, _) => {
                parts.push(Expr::id(x));
                width += m;
            }
        }
    }
    if width == 0 {
        items.push(Item::assign(Expr::id(out), Expr::dec(m as u32, 0)));
        return;
    }
    for row in rows.iter_mut() {
        *row = BitVec::zeros(width);
    }
    for (lo, term) in blocks {
        match term {
            Term::Prod(..) => {
                // Column lo + k·m + j is a[j]·b[k] = α^(j+k) contributions.
                for k in 0..m {
                    for j in 0..m {
                        let product = field.mul(1 << j, 1 << k);
                        for (i, row) in rows.iter_mut().enumerate() {
                            if product >> i & 1 == 1 {
                                row.flip(lo + k * m + j);
                            }
                        }
                    }
                }
            }
            Term::MatProd(..) => {
                for (r, row) in rows.iter_mut().enumerate() {
                    for j in 0..m {
                        row.flip(lo + r * m + j);
                    }
                }
            }
            Term::Lin(_, lin) => {
                for (i, row) in rows.iter_mut().enumerate() {
                    for j in 0..m {
                        if lin[i] >> j & 1 == 1 {
                            row.flip(lo + j);
                        }
                    }
                }
            }
        }
    }
    let map = AffineMap { matrix: BitMatrix::from_rows(width, rows), constant: BitVec::zeros(m) };
    // A single linear term on a plain wire needs no feed vector.
    let input = if parts.len() == 1 && matches!(terms, [Term::Lin(..)]) {
        match &terms[0] {
            Term::Lin(x, _) => x.clone(),
            Term::Prod(..) | Term::MatProd(..) => unreachable!(),
        }
    } else {
        let feed = format!("{tmp}_pp");
        let free = terms.iter().any(|t| matches!(t, Term::Prod(..)));
        let matrix = terms.iter().any(|t| matches!(t, Term::MatProd(..)));
        let doc = match (free, matrix) {
            (false, false) => "linear inputs",
            (true, false) => "partial products a[j]&b[k] and linear inputs",
            (false, true) => "matrix products A[r][j]&b[j] and linear inputs",
            (true, true) => "partial products a[j]&b[k], matrix products A[r][j]&b[j] and linear inputs",
        };
        items.push(Item::wire(&feed, width as u32, doc));
        parts.reverse();
        items.push(Item::assign(Expr::id(&feed), Expr::Concat(parts)));
        feed
    };
    xor_net::emit(items, &XorNet { name: tmp, input: Columns::One(&input), map: &map, style: XorStyle::Masked }, out, 0);
}

/// Declares `out`, the multiplication matrix of the variable m-bit wire `a`, for
/// [`Term::MatProd`]: bit r·m + j is bit r of a·α^j. Each bit is a parity of a few bits of `a`
/// (a constant multiple), so the matrix is one shallow linear network however many products
/// read it.
pub fn emit_mul_matrix(items: &mut Vec<Item>, field: &Gf2m, a: &str, out: &str, doc: &str) {
    let m = field.m() as usize;
    // columns[j][r]: the mask of a's bits that bit r of a·α^j XORs.
    let columns: Vec<Vec<u32>> = (0..m).map(|j| field.mul_matrix(field.alpha(j as i64))).collect();
    let rows = (0..m * m).map(|bit| BitVec::from_u128(m, columns[bit % m][bit / m].into())).collect();
    let map = AffineMap { matrix: BitMatrix::from_rows(m, rows), constant: BitVec::zeros(m * m) };
    items.push(Item::wire(out, (m * m) as u32, doc));
    xor_net::emit(items, &XorNet { name: out, input: Columns::One(a), map: &map, style: XorStyle::Masked }, out, 0);
}

/// An addition chain for the Itoh–Tsujii inverse: steps (j, k) meaning β_(j+k) = β_j^(2^k)·β_k
/// with β_n = a^(2^n − 1), from β_1 = a up to β_(m−1); then a^(−1) = β_(m−1)^2.
pub fn inverse_chain(m: u32) -> Vec<(u32, u32)> {
    // Binary method on m − 1: double, and add 1 where the bit is set.
    let target = m - 1;
    let mut steps = Vec::new();
    let mut n = 1u32;
    for bit in (0..(31 - target.leading_zeros())).rev() {
        steps.push((n, n));
        n *= 2;
        if target >> bit & 1 == 1 {
            steps.push((n, 1));
            n += 1;
        }
    }
    debug_assert_eq!(n, target);
    steps
}

/// Emits `out = a^(−1)` (0 for a = 0) into the existing wire `out`, by Itoh–Tsujii:
/// [`inverse_chain`] products and Frobenius maps. Intermediate wires are named `<tmp>_b<n>`.
pub fn emit_inverse(items: &mut Vec<Item>, field: &Gf2m, a: &str, out: &str, tmp: &str) {
    let m = field.m();
    let mut beta: Vec<(u32, String)> = vec![(1, a.to_string())];
    let name_of = |beta: &Vec<(u32, String)>, n: u32| beta.iter().find(|(k, _)| *k == n).map(|(_, s)| s.clone()).expect("chain value");
    for (j, k) in inverse_chain(m) {
        let bj = name_of(&beta, j);
        let bk = name_of(&beta, k);
        // β_j^(2^k) as its own wire, then the product.
        let frob = format!("{tmp}_f{}", j + k);
        items.push(Item::wire(&frob, m, &format!("β_{j}^(2^{k})")));
        emit_sum(items, field, &frob, &[Term::frobenius(field, &bj, k)], &frob);
        let next = format!("{tmp}_b{}", j + k);
        items.push(Item::wire(&next, m, &format!("β_{} = a^(2^{} - 1)", j + k, j + k)));
        emit_sum(items, field, &next, &[Term::Prod(frob, bk)], &next);
        beta.push((j + k, next));
    }
    let last = name_of(&beta, m - 1);
    emit_sum(items, field, out, &[Term::frobenius(field, &last, 1)], &format!("{tmp}_sq"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::eval::{Bits, Sim};
    use crate::hw::verilog::{Module, Port};

    fn sim_of(ports: Vec<Port>, items: Vec<Item>) -> Sim {
        Sim::new(&Module { name: "gf".into(), ports, items, reset: None })
    }

    #[test]
    fn inverse_chains_reach_m_minus_1() {
        for m in 3..=12 {
            let mut have = vec![1u32];
            for (j, k) in inverse_chain(m) {
                assert!(have.contains(&j) && have.contains(&k), "m={m}");
                have.push(j + k);
            }
            assert_eq!(*have.last().unwrap(), m - 1, "m={m}");
        }
    }

    #[test]
    fn sum_of_products_and_linear_terms() {
        for (m, poly) in [(8, 0x11D), (10, 0x409), (3, 0xB)] {
            let f = Gf2m::new(m, poly).unwrap();
            let ports = vec![Port::input("a", m, ""), Port::input("b", m, ""), Port::input("c", m, ""), Port::output("y", m, ""), Port::output("z", m, "")];
            let mut items = Vec::new();
            let c7 = f.alpha(7);
            emit_sum(&mut items, &f, "y", &[Term::Prod("a".into(), "b".into()), Term::scaled(&f, "c", c7), Term::Prod("c".into(), "c".into())], "t");
            emit_sum(&mut items, &f, "z", &[Term::frobenius(&f, "a", 3)], "u");
            let mut sim = sim_of(ports, items);
            for a in (0..=f.mask()).step_by(7) {
                for b in (0..=f.mask()).step_by(11) {
                    let c = a ^ (b << 1 & f.mask());
                    let out = sim.eval_comb(
                        &[("a", &Bits::from_u64(a.into(), m as usize)), ("b", &Bits::from_u64(b.into(), m as usize)), ("c", &Bits::from_u64(c.into(), m as usize))],
                        &["y", "z"],
                    );
                    assert_eq!(out[0].low_u64() as u16, f.mul(a, b) ^ f.mul(c7, c) ^ f.mul(c, c), "m={m} a={a} b={b}");
                    assert_eq!(out[1].low_u64() as u16, f.pow(a, 8));
                }
            }
        }
    }

    /// A shared operand's matrix feeding two products and a linear term: every (a, b, c) of a
    /// sampled grid equals the field's a·b + c·d + α³·b.
    #[test]
    fn products_through_a_multiplication_matrix() {
        for (m, poly) in [(8, 0x11D), (10, 0x409), (5, 0x25)] {
            let f = Gf2m::new(m, poly).unwrap();
            let ports = vec![Port::input("a", m, ""), Port::input("b", m, ""), Port::input("c", m, ""), Port::input("d", m, ""), Port::output("y", m, "")];
            let mut items = Vec::new();
            emit_mul_matrix(&mut items, &f, "a", "am", "");
            emit_mul_matrix(&mut items, &f, "c", "cm", "");
            let a3 = f.alpha(3);
            emit_sum(&mut items, &f, "y", &[Term::MatProd("am".into(), "b".into()), Term::MatProd("cm".into(), "d".into()), Term::scaled(&f, "b", a3)], "t");
            let mut sim = sim_of(ports, items);
            let bits = |v: u16| Bits::from_u64(v.into(), m as usize);
            for a in (0..=f.mask()).step_by(3) {
                for b in (0..=f.mask()).step_by(13) {
                    let (c, d) = (f.mul(a, 0x5) ^ b, a ^ (b >> 1));
                    let y = sim.eval_comb(&[("a", &bits(a)), ("b", &bits(b)), ("c", &bits(c)), ("d", &bits(d))], &["y"])[0].low_u64() as u16;
                    assert_eq!(y, f.mul(a, b) ^ f.mul(c, d) ^ f.mul(a3, b), "m={m} a={a} b={b}");
                }
            }
        }
    }

    #[test]
    fn inverse_network() {
        for (m, poly) in [(8, 0x11D), (8, 0x12B), (10, 0x409), (4, 0x13), (12, 0x1053)] {
            let f = Gf2m::new(m, poly).unwrap();
            let mut items = Vec::new();
            emit_inverse(&mut items, &f, "a", "y", "inv");
            let mut sim = sim_of(vec![Port::input("a", m, ""), Port::output("y", m, "")], items);
            for a in (0..=f.mask()).step_by(if m > 10 { 5 } else { 1 }) {
                let y = sim.eval_comb(&[("a", &Bits::from_u64(a.into(), m as usize))], &["y"])[0].low_u64() as u16;
                assert_eq!(y, if a == 0 { 0 } else { f.inv(a) }, "m={m} a={a}");
            }
        }
    }
}
