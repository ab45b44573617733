//! Short-hand builders over the typed Verilog tree, shared by the hand-structured generators
//! (replay buffer, RXL endpoint and switch, RIFL): they only shorten the common shapes, every
//! module is still an `hw::verilog` tree. The one place for them: a block's generator imports
//! its helpers from here.

use super::verilog::{BinOp, Expr, Item, Stmt};
use crate::info::ResetStyle;
use crate::math::gf2::{AffineMap, BitVec};

pub fn id(name: &str) -> Expr {
    Expr::id(name)
}
pub fn dec(width: u32, value: u64) -> Expr {
    Expr::dec(width, value)
}
pub fn and(a: Expr, b: Expr) -> Expr {
    Expr::and(a, b)
}
pub fn or(a: Expr, b: Expr) -> Expr {
    Expr::or(a, b)
}
pub fn eq(a: Expr, b: Expr) -> Expr {
    Expr::eq(a, b)
}
pub fn ne(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Ne, a, b)
}
pub fn lt(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Lt, a, b)
}
pub fn le(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Le, a, b)
}
pub fn gt(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Gt, a, b)
}
pub fn ge(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Ge, a, b)
}
pub fn add(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Add, a, b)
}
pub fn sub(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Sub, a, b)
}
pub fn mux(sel: Expr, a: Expr, b: Expr) -> Expr {
    Expr::mux(sel, a, b)
}

/// Declare the wire `name` of `width` bits and drive it with `value`.
pub fn wire(items: &mut Vec<Item>, name: &str, width: u32, doc: &str, value: Expr) {
    items.push(Item::wire(name, width, doc));
    items.push(Item::assign(id(name), value));
}

/// `localparam [width-1:0] NAME = width'dVALUE; // doc`, returning the name to use in
/// expressions. Generators declare their control codes, states and limits this way, at the
/// top of the module.
pub fn localparam(items: &mut Vec<Item>, name: &str, width: u32, value: u64, doc: &str) -> Expr {
    items.push(Item::Localparam { name: name.into(), value: dec(width, value), doc: doc.into() });
    id(name)
}

/// `a & b & …` (1-bit terms).
pub fn all(terms: Vec<Expr>) -> Expr {
    terms.into_iter().reduce(Expr::and).unwrap_or_else(Expr::one)
}

/// `a | b | …` (1-bit terms).
pub fn any(terms: Vec<Expr>) -> Expr {
    terms.into_iter().reduce(Expr::or).unwrap_or_else(Expr::zero)
}

/// `{a, b, …}`, or the one part alone.
pub fn cat(parts: Vec<Expr>) -> Expr {
    if parts.len() == 1 {
        parts.into_iter().next().expect("one part")
    } else {
        Expr::Concat(parts)
    }
}

/// `{w{1'd0}}`.
pub fn zeros(w: u32) -> Expr {
    Expr::Repeat(w, Box::new(Expr::zero()))
}

/// The `w`-bit constant with every bit set, printed in hex (`8'hff`).
pub fn ones(w: u32) -> Expr {
    let mut v = crate::math::gf2::BitVec::zeros(w as usize);
    (0..w as usize).for_each(|i| v.set(i, true));
    Expr::Const(v)
}

/// `x` zero-extended from `from` to `to` bits (`x` itself when no bits are added). Extending an
/// extension widens its leading zeros (`{2'd0, x}`, not `{1'd0, {1'd0, x}}`).
pub fn zext(x: Expr, from: u32, to: u32) -> Expr {
    if to <= from {
        return x;
    }
    let added = to - from;
    match x {
        Expr::Concat(mut parts) if parts.len() == 2 && matches!(&parts[0], Expr::Repeat(n, z) if **z == Expr::zero() && *n > 0) => {
            let Expr::Repeat(n, _) = parts[0] else { unreachable!("matched above") };
            parts[0] = zeros(n + added);
            Expr::Concat(parts)
        }
        x => Expr::Concat(vec![zeros(added), x]),
    }
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

/// The saturating increment of register `x`: `if (x != max) x <= x + 1;`, under `cond` when
/// given (`if (cond && x != max) …`). The one counter shape of every generator: event counters
/// ([`counter`]) and the RIFL receiver's run-length counters.
pub fn sat_inc(x: &str, w: u32, max: Expr, cond: Option<Expr>) -> Stmt {
    let room = ne(id(x), max);
    let c = match cond {
        Some(c) => and(c, room),
        None => room,
    };
    when(c, vec![set_id(x, add(id(x), dec(w, 1)))])
}

/// A saturating event counter `name` (`bits` wide, reset to 0) counting the cycles where `inc`
/// holds, up to `max`: its declaration goes to `regs`, its reset and [`sat_inc`] to the
/// register group's `reset` and `body`.
#[allow(clippy::too_many_arguments)] // the three lists are the parts of the caller's register group
pub fn counter(regs: &mut Vec<Item>, reset: &mut Vec<Stmt>, body: &mut Vec<Stmt>, name: &str, bits: u32, inc: Expr, max: Expr, doc: &str) {
    regs.push(Item::reg(name, bits, doc));
    reset.push(set_id(name, dec(bits, 0)));
    body.push(sat_inc(name, bits, max, Some(inc)));
}

/// An instance with the given connections.
pub fn instance(module: &str, name: &str, conns: Vec<(&str, Expr)>) -> Item {
    Item::Instance { module: module.into(), name: name.into(), conns: conns.into_iter().map(|(p, e)| (p.to_string(), e)).collect() }
}

/// An instance of a clocked module: `clk` and the design's reset port first, then `conns`.
pub fn clocked_instance(module: &str, name: &str, reset: ResetStyle, conns: Vec<(&str, Expr)>) -> Item {
    let mut c = vec![("clk", id("clk")), (reset.port(), id(reset.port()))];
    c.extend(conns);
    instance(module, name, c)
}

/// Output wires of an instance that this module does not use, declared between Verilator
/// `lint_off UNUSED` / `lint_on` pragmas so `-Wall` stays clean without empty pin connections.
pub fn unused_wires(items: &mut Vec<Item>, wires: &[(&str, u32, &str)]) {
    items.push(Item::pragma("verilator lint_off UNUSED"));
    for (n, w, doc) in wires {
        items.push(Item::wire(n, *w, doc));
    }
    items.push(Item::pragma("verilator lint_on UNUSED"));
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
/// number `bits_for(n)` bits wide: bit j is the XOR of `t` at positions q·2^j − 1 (the count
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

/// `⌈log2 n⌉`, at least 1: the width of a counter over 0..n−1.
pub fn clog2(n: u64) -> u32 {
    (64 - (n.max(2) - 1).leading_zeros()).max(1)
}

/// Bits to hold 0..=max (at least 1).
pub fn bits_for(max: u64) -> u32 {
    (u64::BITS - max.leading_zeros()).max(1)
}

#[cfg(test)]
mod tests {
    use super::{bits_for, clog2};

    #[test]
    fn clog2_is_the_address_width() {
        assert_eq!(clog2(1), 1);
        assert_eq!(clog2(2), 1);
        assert_eq!(clog2(3), 2);
        assert_eq!(clog2(256), 8);
        assert_eq!(clog2(257), 9);
    }

    #[test]
    fn bits_for_holds_the_maximum() {
        assert_eq!(bits_for(0), 1);
        assert_eq!(bits_for(1), 1);
        assert_eq!(bits_for(7), 3);
        assert_eq!(bits_for(8), 4);
        assert_eq!(bits_for(255), 8);
        assert_eq!(bits_for(256), 9);
        assert_eq!(bits_for(u64::MAX), 64);
    }
}
