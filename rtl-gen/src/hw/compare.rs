//! Magnitude comparisons and increments as balanced trees. Yosys maps `a < b` and `x + 1` to a
//! carry chain that `abc -lut 6` keeps as one LUT level per bit or two (a 26-bit `>=` was ten
//! levels); the trees here are ⌈log2 w⌉ stages of AND/OR, three or four LUT6 levels for 32 bits.

use super::build::{bit_of, wire};
use super::verilog::{Expr, Item, UnOp};

/// `a < b` (unsigned, `w` bits; `a(i)`, `b(i)` give bit i) as the wire `name`: per-bit
/// (less, equal) vectors `{name}_l0`, `{name}_e0` merged pairwise up a balanced tree, one wire
/// pair per stage (less = less_hi | equal_hi & less_lo). The stage wires keep the tree's shape:
/// written as one expression the printer flattens it into a sum of products, which Yosys and ABC
/// map as a chain again.
pub fn less_bits(items: &mut Vec<Item>, name: &str, a: &dyn Fn(u32) -> Expr, b: &dyn Fn(u32) -> Expr, w: u32) -> Expr {
    let msb_first = |v: Vec<Expr>| if v.len() == 1 { v.into_iter().next().expect("one bit") } else { Expr::Concat(v.into_iter().rev().collect()) };
    // The equal vectors leave out the lowest group: it is always the lower half of a merge, so
    // its equality is never read (and an unread bit would not lint).
    let (mut l, mut e) = (format!("{name}_l0"), format!("{name}_e0"));
    wire(items, &l, w, "", msb_first((0..w).map(|i| Expr::and(a(i).not(), b(i))).collect()));
    if w > 1 {
        wire(items, &e, w - 1, "", msb_first((1..w).map(|i| Expr::xor(a(i), b(i)).not()).collect()));
    }
    let (mut n, mut k) = (w, 0);
    while n > 1 {
        k += 1;
        let m = n.div_ceil(2);
        let (lv, ev) = (l.clone(), e.clone());
        let lb = |i: u32| bit_of(&lv, n, i);
        let eb = |i: u32| bit_of(&ev, n - 1, i - 1);
        let lt: Vec<Expr> = (0..m).map(|j| if 2 * j + 1 < n { Expr::or(lb(2 * j + 1), Expr::and(eb(2 * j + 1), lb(2 * j))) } else { lb(2 * j) }).collect();
        l = format!("{name}_l{k}");
        wire(items, &l, m, "", msb_first(lt));
        if m > 1 {
            let eq: Vec<Expr> = (1..m).map(|j| if 2 * j + 1 < n { Expr::and(eb(2 * j + 1), eb(2 * j)) } else { eb(2 * j) }).collect();
            e = format!("{name}_e{k}");
            wire(items, &e, m - 1, "", msb_first(eq));
        }
        n = m;
    }
    Expr::id(&l)
}

/// `a < b` for the `w`-bit signals named `a` and `b`, as the wire `name` (see [`less_bits`]).
pub fn less(items: &mut Vec<Item>, name: &str, a: &str, b: &str, w: u32) -> Expr {
    less_bits(items, name, &|i| bit_of(a, w, i), &|i| bit_of(b, w, i), w)
}

/// `x + 1` (modulo 2^w) for the `w`-bit signal `x`: bit i toggles when every bit below it is one
/// (an AND reduction per bit, no carry chain).
pub fn increment(x: &str, w: u32) -> Expr {
    if w == 1 {
        return Expr::id(x).not();
    }
    let bits: Vec<Expr> = (0..w)
        .rev()
        .map(|i| match i {
            0 => bit_of(x, w, 0).not(),
            1 => Expr::xor(bit_of(x, w, 1), bit_of(x, w, 0)),
            _ => Expr::xor(bit_of(x, w, i), Expr::red(UnOp::RedAnd, Expr::slice(x, i - 1, 0))),
        })
        .collect();
    Expr::Concat(bits)
}

/// `x − 1` (modulo 2^w) for the `w`-bit signal `x`: bit i toggles when every bit below it is
/// zero.
pub fn decrement(x: &str, w: u32) -> Expr {
    if w == 1 {
        return Expr::id(x).not();
    }
    let bits: Vec<Expr> = (0..w)
        .rev()
        .map(|i| match i {
            0 => bit_of(x, w, 0).not(),
            1 => Expr::xor(bit_of(x, w, 1), bit_of(x, w, 0).not()),
            _ => Expr::xor(bit_of(x, w, i), Expr::red(UnOp::RedOr, Expr::slice(x, i - 1, 0)).not()),
        })
        .collect();
    Expr::Concat(bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::build::id;
    use crate::hw::eval::Sim;
    use crate::hw::verilog::{Module, Port};
    use crate::info::ResetStyle;

    #[test]
    fn less_increment_and_decrement_match_the_arithmetic_exhaustively() {
        for w in [1u32, 2, 3, 5] {
            let ports = vec![Port::input("clk", 1, ""), Port::input("rst", 1, ""), Port::input("a", w, ""), Port::input("b", w, ""), Port::output("lt", 1, ""), Port::output("inc", w, ""), Port::output("dec", w, "")];
            let mut items = Vec::new();
            let lt = less(&mut items, "c", "a", "b", w);
            items.extend([Item::assign(id("lt"), lt), Item::assign(id("inc"), increment("a", w)), Item::assign(id("dec"), decrement("a", w))]);
            let mut sim = Sim::new(&Module { name: "cmp".into(), ports, items, reset: Some(ResetStyle::SyncHigh) });
            let m = (1u64 << w) - 1;
            for a in 0..=m {
                for b in 0..=m {
                    sim.set_u64("a", a);
                    sim.set_u64("b", b);
                    sim.settle();
                    assert_eq!(sim.get_u64("lt"), (a < b) as u64, "{w} bits: {a} < {b}");
                    assert_eq!(sim.get_u64("inc"), (a + 1) & m, "{w} bits: {a} + 1");
                    assert_eq!(sim.get_u64("dec"), a.wrapping_sub(1) & m, "{w} bits: {a} - 1");
                }
            }
        }
    }
}
