//! Properties of the `rs_crc` generator and checker, against a reference built from the code's
//! definition rather than from the model's LFSR division (which the generator's XOR network is
//! probed from): the check symbols are the remainder of data(x)·x^count mod g(x), so the word
//! data(x)·x^count + crc(x) vanishes at every root α^(first_root + r) of g. Each root's value
//! is linear over GF(2) in the port bits (symbol bit b is the coefficient of α^b, placed on the
//! bus by the block's bit map), so the reference is one flat masked parity per syndrome bit.
//! A polynomial of degree below `count` with `count` distinct roots is zero, so the check
//! symbols making every syndrome zero are unique: `p_crc_roots` says `crc` is the remainder for
//! every message. The checker: `p_syndrome_ref` (its `syndrome` XOR `crc_in` makes every
//! syndrome zero: it is the remainder XOR `crc_in`) and `p_ok` (`ok` is the zero test of the
//! syndrome, with `syndrome` as a cut point). Pipelined, the same properties read the message
//! (and `crc_in`) its latency earlier through plain shadow delay registers, and the network's
//! registers are read as delays; the checker's zero test is proven after its output register
//! `syndrome_q`, the cut.

use super::model::{Orientation, RsCrc};
use super::RsCrcBlock;
use crate::hw::props::Formal;
use crate::hw::verilog::{Expr, Item, UnOp};
use crate::math::gf2::BitVec;

/// The syndromes (root r, bit t at row r·m + t) as masks over `{check, seq, data}`: data bits
/// first, then seq (each XORed into the data bit of its index), then the check bits.
pub fn root_rows(model: &RsCrc) -> Vec<BitVec> {
    let f = model.field();
    let m = f.m() as usize;
    let (nd, ns, nc) = (model.data_bits(), model.seq_bits() as usize, model.crc_bits_len());
    let (d, count) = (model.data_symbols(), model.count());
    let bus = model.bit_map();
    let msb = model.orientation() == Orientation::MsbFirst;
    let mut rows = vec![BitVec::zeros(nd + ns + nc); count * m];
    let mut add = |col: usize, degree: usize, b: usize| {
        for r in 0..count {
            let beta = f.alpha(i64::from(model.first_root()) + r as i64);
            let v = f.mul(1u16 << b, f.pow(beta, degree as i64));
            for t in (0..m).filter(|t| v >> t & 1 == 1) {
                rows[r * m + t].flip(col);
            }
        }
    };
    for s in 0..d {
        let degree = if msb { d + count - 1 - s } else { count + s };
        for (b, &at) in bus.iter().enumerate().take(m) {
            let k = s * m + at as usize;
            if k < nd {
                add(k, degree, b);
                if k < ns {
                    add(nd + k, degree, b);
                }
            }
        }
    }
    for j in 0..count {
        let degree = if msb { count - 1 - j } else { j };
        for (b, &at) in bus.iter().enumerate().take(m) {
            add(nd + ns + j * m + at as usize, degree, b);
        }
    }
    rows
}

/// `|syndromes` of the vector `of` (zero iff it is a codeword of the CRC).
fn any_syndrome(of: Expr, rows: &[BitVec]) -> Expr {
    let bits: Vec<Expr> = rows.iter().rev().map(|r| if r.is_zero() { Expr::dec(1, 0) } else { Expr::parity(of.clone(), r.clone(), false) }).collect();
    Expr::red(UnOp::RedOr, Expr::Concat(bits))
}

/// `{check, seq, data}` with the message `pipeline` cycles earlier (the check bits are the
/// caller's, already of that cycle).
fn word(b: &RsCrcBlock, f: &mut Formal, check: Expr) -> Expr {
    let mut parts = vec![check];
    if b.seq_bits > 0 {
        parts.push(f.delayed("seq", b.seq_bits, Expr::id("seq"), b.pipeline));
    }
    parts.push(f.delayed("data", b.data_bits(), Expr::id("data"), b.pipeline));
    Expr::Concat(parts)
}

fn with_reference(model: &RsCrc, f: &mut Formal, of: Expr) -> Expr {
    let rows = root_rows(model);
    f.items.push(Item::wire("f_ref_word", rows[0].len() as u32, "reference: the word whose syndromes at the roots of g must vanish"));
    f.items.push(Item::assign(Expr::id("f_ref_word"), of));
    any_syndrome(Expr::id("f_ref_word"), &rows).lnot()
}

fn block(b: &RsCrcBlock) -> Formal {
    if b.pipeline > 0 {
        Formal::retimed()
    } else {
        Formal::combinational()
    }
}

/// The generator's properties.
pub fn generator(b: &RsCrcBlock, model: &RsCrc) -> Option<Item> {
    let mut f = block(b);
    let of = word(b, &mut f, Expr::id("crc"));
    let zero = with_reference(model, &mut f, of);
    f.assert("p_crc_roots", "data(x)·x^count + crc(x) vanishes at every root of g: crc is the remainder", None, zero);
    Some(Item::Formal(f))
}

/// The checker's properties.
pub fn checker(b: &RsCrcBlock, model: &RsCrc) -> Option<Item> {
    let mut f = block(b);
    let syndrome = if b.pipeline > 0 { "syndrome_q" } else { "syndrome" };
    let crc_in = f.delayed("crc_in", b.crc_bits(), Expr::id("crc_in"), b.pipeline);
    let of = word(b, &mut f, Expr::xor(Expr::id(syndrome), crc_in));
    let zero = with_reference(model, &mut f, of);
    f.assert("p_syndrome_ref", "syndrome ^ crc_in is the remainder: the syndrome is the remainder XOR crc_in", None, zero);
    f.cut_points.push(syndrome.into());
    f.assert("p_ok", "ok is 1 exactly when the syndrome is zero", None, Expr::eq(Expr::id("ok"), Expr::eq(Expr::id(syndrome), Expr::dec(model.crc_bits_len() as u32, 0))));
    Some(Item::Formal(f))
}
