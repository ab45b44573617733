//! Small builders shared by the RIFL module generators: every module here is written with the
//! typed Verilog tree, these only shorten the common shapes.

pub use crate::hw::build::{add, bits_for, dec, ge, id, lt, ne, sub, wire};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::math::gf2::{AffineMap, BitVec};

/// `⌈log2 n⌉`, at least 1: the width of a counter over 0..n−1.
pub fn clog2(n: u64) -> u32 {
    (64 - (n.max(2) - 1).leading_zeros()).max(1)
}


/// `a & b & …` (1-bit terms).
pub fn all(terms: Vec<Expr>) -> Expr {
    terms.into_iter().reduce(Expr::and).unwrap_or_else(Expr::one)
}

/// `a | b | …` (1-bit terms).
pub fn any(terms: Vec<Expr>) -> Expr {
    terms.into_iter().reduce(Expr::or).unwrap_or_else(Expr::zero)
}

pub fn cat(parts: Vec<Expr>) -> Expr {
    if parts.len() == 1 {
        parts.into_iter().next().expect("one part")
    } else {
        Expr::Concat(parts)
    }
}

pub fn zeros(w: u32) -> Expr {
    Expr::Repeat(w, Box::new(Expr::zero()))
}

/// Bit `i` of a vector `width` wide (a 1-bit vector has no range).
pub fn bit_of(name: &str, width: u32, i: u32) -> Expr {
    if width == 1 {
        id(name)
    } else {
        Expr::bit(name, i)
    }
}

pub fn set(l: Expr, r: Expr) -> Stmt {
    Stmt::set(l, r)
}

pub fn set_id(l: &str, r: Expr) -> Stmt {
    Stmt::set(id(l), r)
}

pub fn when(c: Expr, then: Vec<Stmt>) -> Stmt {
    Stmt::when(c, then)
}

pub fn if_else(c: Expr, then: Vec<Stmt>, els: Vec<Stmt>) -> Stmt {
    Stmt::If(c, then, els)
}

pub fn reg(items: &mut Vec<Item>, name: &str, width: u32, doc: &str) {
    items.push(Item::reg(name, width, doc));
}

/// `out = M·input ⊕ c`, one masked parity per output bit (the form of `hw::xor_net`).
pub fn affine(items: &mut Vec<Item>, out: &str, input: &str, map: &AffineMap) {
    let rows = map.outputs() as u32;
    for r in 0..rows {
        let mask = map.matrix.row(r as usize);
        let inv = map.constant.get(r as usize);
        let rhs = if mask.is_zero() { dec(1, inv as u64) } else { Expr::parity(id(input), mask.clone(), inv) };
        items.push(Item::assign(bit_of(out, rows, r), rhs));
    }
}

/// The count of ones of a thermometer code `t` (ones from bit 0 up, `n` bits) as a binary
/// number `clog2(n+1)` bits wide: bit j is the XOR of `t` at positions q·2^j − 1 (the count
/// reaches q·2^j), so the conversion is parities, not an adder tree.
pub fn thermo_count(items: &mut Vec<Item>, out: &str, t: &str, n: u32) {
    let w = bits_for(n as u64);
    items.push(Item::wire(out, w, &format!("ones of the thermometer code {t}")));
    for j in 0..w {
        let step = 1u64 << j;
        let mut mask = BitVec::zeros(n as usize);
        let mut q = 1u64;
        while q * step <= n as u64 {
            mask.set((q * step - 1) as usize, true);
            q += 1;
        }
        let rhs = if mask.is_zero() {
            dec(1, 0)
        } else if n == 1 {
            id(t)
        } else {
            Expr::parity(id(t), mask, false)
        };
        items.push(Item::assign(bit_of(out, w, j), rhs));
    }
}

/// A saturating counter increment `x + 1` capped at `max` (`x` is `w` bits).
pub fn sat_inc(x: &str, w: u32, max: u64) -> Expr {
    Expr::mux(Expr::eq(id(x), dec(w, max)), dec(w, max), add(id(x), dec(w, 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        assert_eq!(clog2(1), 1);
        assert_eq!(clog2(2), 1);
        assert_eq!(clog2(3), 2);
        assert_eq!(clog2(256), 8);
        assert_eq!(clog2(257), 9);
    }
}
