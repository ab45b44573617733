//! Selection logic shared by the schedulers: one-hot AND-OR multiplexers, one-hot to binary
//! encoders and round-robin arbiters. The round robin with a one-hot "last served" pointer
//! ([`round_robin_oh`]) is the shallow form: the pointer's mask of requests above it is an OR
//! of pointer bits (no comparator), and the pick is a prefix OR (no adder carry chain), so a
//! grant over `n ≤ 6` requests is two LUT6 levels from the requests.

use super::build::{add, bit_of, cat, clog2, dec, id, lt, mux, wire};
use super::verilog::{Expr, Item, UnOp};
use crate::math::gf2::BitVec;

/// `{w{b}}`: one bit replicated.
pub fn rep(w: u32, b: Expr) -> Expr {
    if w == 1 {
        b
    } else {
        Expr::Repeat(w, Box::new(b))
    }
}

/// The OR of `values(i)` (each `w` bits) selected by one-hot bit `oh[i]` (an AND-OR mux).
pub fn onehot_mux(oh: &str, n: u32, values: impl Fn(u32) -> String, w: u32) -> Expr {
    let terms: Vec<Expr> = (0..n).map(|i| Expr::and(id(&values(i)), rep(w, bit_of(oh, n, i)))).collect();
    terms.into_iter().reduce(Expr::or).expect("n >= 1")
}

/// The smallest of `n` keyed entrants as a one-hot vector, from precomputed comparisons: bit i
/// is `valid(i)` and, for every other valid entrant j, `key_i < key_j`, where `below(a, b)` (for
/// a < b) says `key_a ≤ key_b` (so the lower index keeps a tie: the keys are totally ordered with
/// the index as the last digit). Zero when no entrant is valid. With the comparisons registered a
/// cycle ahead, the choice is two LUT levels (each bit sees `2n − 1` inputs) instead of a
/// tournament's ⌈log2 n⌉ comparators in series; it costs n(n − 1)/2 comparators, so it suits a
/// few entrants.
pub fn onehot_min(valid: &dyn Fn(u32) -> Expr, below: &dyn Fn(u32, u32) -> Expr, n: u32) -> Expr {
    let bit = |i: u32| {
        let beats = (0..n).filter(|&j| j != i).map(|j| {
            let wins = if i < j { below(i, j) } else { below(j, i).lnot() };
            Expr::or(valid(j).lnot(), wins)
        });
        std::iter::once(valid(i)).chain(beats).reduce(Expr::and).expect("one term")
    };
    cat((0..n).rev().map(bit).collect())
}

/// Binary index of a one-hot (or zero) vector `oh` of `n` bits, as `w`-bit wire `out`: bit j is
/// the parity of the one-hot bits whose index has bit j set (an OR, since at most one is set).
pub fn encode(items: &mut Vec<Item>, out: &str, oh: &str, n: u32, w: u32, doc: &str) {
    items.push(Item::wire(out, w, doc));
    for j in 0..w {
        let mut mask = BitVec::zeros(n as usize);
        for i in 0..n {
            if (i >> j) & 1 == 1 {
                mask.set(i as usize, true);
            }
        }
        let rhs = if mask.is_zero() { dec(1, 0) } else { Expr::parity(id(oh), mask, false) };
        items.push(Item::assign(bit_of(out, w, j), rhs));
    }
}

/// Round robin over `n` requests `req` after a binary pointer `ptr` (`clog2(n)` bits): the
/// first request above the pointer, else the lowest; one-hot `<pfx>_oh` and index `<pfx>_idx`.
pub fn round_robin(items: &mut Vec<Item>, pfx: &str, req: &str, n: u32, ptr: Expr) {
    let pw = clog2(n as u64);
    let above: Vec<Expr> = (0..n).rev().map(|i| if i == 0 { dec(1, 0) } else { lt(ptr.clone(), dec(pw, i as u64)) }).collect();
    wire(items, &format!("{pfx}_hi"), n, "requests above the pointer", Expr::and(id(req), cat(above)));
    wire(
        items,
        &format!("{pfx}_src"),
        n,
        "requests above the pointer if any, else all (wrap around)",
        mux(Expr::red(UnOp::RedOr, id(&format!("{pfx}_hi"))), id(&format!("{pfx}_hi")), id(req)),
    );
    let src = format!("{pfx}_src");
    wire(items, &format!("{pfx}_oh"), n, "lowest set request: x & -x", Expr::and(id(&src), add(id(&src).not(), dec(n, 1))));
    encode(items, &format!("{pfx}_idx"), &format!("{pfx}_oh"), n, pw, "index of the pick");
}

/// Declares `out` (`n ≥ 2` bits): bit i is the OR of the input bits below i (bit 0 is 0), from
/// `low`, the input's low `n − 1` bits (bit n − 1 is below none), as a parallel prefix (log2 n
/// stages of `s | s << d`): the netlist is n·log2 n ORs and the synthesiser maps it as a tree,
/// where the per-bit sums would be n² terms.
pub fn prefix_or_below(items: &mut Vec<Item>, out: &str, low: Expr, n: u32, doc: &str) {
    let m = n - 1;
    let shifted = |s: &str, d: u32| Expr::Concat(vec![if m - d == 1 { bit_of(s, m, 0) } else { Expr::slice(s, m - 1 - d, 0) }, Expr::Repeat(d, Box::new(dec(1, 0)))]);
    let s0 = format!("{out}_s0");
    wire(items, &s0, m, "the input's low bits", low);
    let mut cur = s0;
    let (mut d, mut k) = (1, 1);
    while d < m {
        let next = format!("{out}_s{k}");
        wire(items, &next, m, &format!("OR over spans of {} bits", 2 * d), Expr::or(id(&cur), shifted(&cur, d)));
        cur = next;
        d *= 2;
        k += 1;
    }
    // Inclusive prefix of the low bits, one place up.
    wire(items, out, n, doc, Expr::Concat(vec![id(&cur), dec(1, 0)]));
}

/// Round robin over `n ≥ 2` requests `req` after the pointer `last`: the request served last,
/// one-hot in `n − 1` bits (all zero = request `n − 1`, the reset value, so the first pick is
/// the lowest request; load it with the grant's low `n − 1` bits): the first request above the
/// pointer, else the lowest request. Declares `<pfx>_hi` (requests above the pointer) and the
/// one-hot grant `<pfx>_oh` (zero when no request is set): grant i is `hi[i]` with no `hi`
/// below it, or `req[i]` with no `hi` at all and no `req` below it, the "below" ORs as
/// parallel prefixes ([`prefix_or_below`]).
pub fn round_robin_oh(items: &mut Vec<Item>, pfx: &str, req: &str, n: u32, last: &str) {
    assert!(n >= 2, "a round robin over one request is the request");
    let hi = format!("{pfx}_hi");
    let (above, hi_below, req_below) = (format!("{pfx}_above"), format!("{pfx}_hi_below"), format!("{pfx}_req_below"));
    // Request i is above the pointer when the pointer's bit is below i.
    prefix_or_below(items, &above, id(last), n, "requests above the pointer: a pointer bit below them");
    wire(items, &hi, n, "requests above the pointer", Expr::and(id(req), id(&above)));
    let low = |v: &str| if n == 2 { Expr::bit(v, 0) } else { Expr::slice(v, n - 2, 0) };
    prefix_or_below(items, &hi_below, low(&hi), n, "a request above the pointer below this one");
    prefix_or_below(items, &req_below, low(req), n, "a request below this one");
    let hi_any = rep(n, Expr::red(UnOp::RedOr, id(&hi)));
    let first_above = Expr::and(id(&hi), id(&hi_below).not());
    let first_wrap = Expr::and(id(req), Expr::or(hi_any, id(&req_below)).not());
    wire(items, &format!("{pfx}_oh"), n, "grant: first request above the pointer, else the lowest", Expr::or(first_above, first_wrap));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::eval::Sim;
    use crate::hw::verilog::{Module, Port};
    use crate::info::ResetStyle;

    fn comb_module(name: &str, ports: Vec<Port>, items: Vec<Item>) -> Module {
        Module { name: name.into(), ports, items, reset: Some(ResetStyle::SyncHigh) }
    }

    /// Reference: the first index after `last` (circularly) with a request.
    fn rr_ref(n: u32, req: u64, last: u32) -> u64 {
        (1..=n).map(|k| (last + k) % n).find(|&i| (req >> i) & 1 == 1).map_or(0, |i| 1 << i)
    }

    #[test]
    fn one_hot_round_robin_matches_the_reference_exhaustively() {
        for n in 2..=6u32 {
            let mut items = Vec::new();
            round_robin_oh(&mut items, "a", "req", n, "last");
            items.push(Item::assign(id("grant"), id("a_oh")));
            let ports = vec![Port::input("clk", 1, ""), Port::input("rst", 1, ""), Port::input("req", n, ""), Port::input("last", n - 1, ""), Port::output("grant", n, "")];
            let mut sim = Sim::new(&comb_module("rr", ports, items));
            for req in 0..(1u64 << n) {
                for last in 0..n {
                    sim.set_u64("req", req);
                    sim.set_u64("last", (1u64 << last) & ((1 << (n - 1)) - 1));
                    sim.settle();
                    assert_eq!(sim.get_u64("grant"), rr_ref(n, req, last), "n {n} req {req:#b} last {last}");
                }
            }
        }
    }

    #[test]
    fn binary_round_robin_matches_the_reference() {
        for n in 2..=5u32 {
            let mut items = Vec::new();
            items.push(Item::wire("ptr_w", clog2(n as u64), ""));
            items.push(Item::assign(id("ptr_w"), id("ptr")));
            round_robin(&mut items, "a", "req", n, id("ptr_w"));
            items.push(Item::assign(id("grant"), id("a_oh")));
            items.push(Item::assign(id("idx"), id("a_idx")));
            let pw = clog2(n as u64);
            let ports = vec![Port::input("clk", 1, ""), Port::input("rst", 1, ""), Port::input("req", n, ""), Port::input("ptr", pw, ""), Port::output("grant", n, ""), Port::output("idx", pw, "")];
            let mut sim = Sim::new(&comb_module("rrb", ports, items));
            for req in 0..(1u64 << n) {
                for last in 0..n {
                    sim.set_u64("req", req);
                    sim.set_u64("ptr", last as u64);
                    sim.settle();
                    let want = rr_ref(n, req, last);
                    assert_eq!(sim.get_u64("grant"), want, "n {n} req {req:#b} ptr {last}");
                    if want != 0 {
                        assert_eq!(sim.get_u64("idx"), u64::from(want.trailing_zeros()));
                    }
                }
            }
        }
    }

    #[test]
    fn onehot_mux_and_encode_pick_the_selected_value() {
        let n = 5u32;
        let mut items = Vec::new();
        for i in 0..n {
            items.push(Item::wire(&format!("v{i}"), 4, ""));
            items.push(Item::assign(id(&format!("v{i}")), dec(4, u64::from(3 * i + 1))));
        }
        items.push(Item::assign(id("y"), onehot_mux("oh", n, |i| format!("v{i}"), 4)));
        encode(&mut items, "idx_w", "oh", n, 3, "");
        items.push(Item::assign(id("idx"), id("idx_w")));
        let ports = vec![Port::input("clk", 1, ""), Port::input("rst", 1, ""), Port::input("oh", n, ""), Port::output("y", 4, ""), Port::output("idx", 3, "")];
        let mut sim = Sim::new(&comb_module("mx", ports, items));
        for i in 0..n {
            sim.set_u64("oh", 1 << i);
            sim.settle();
            assert_eq!(sim.get_u64("y"), u64::from(3 * i + 1));
            assert_eq!(sim.get_u64("idx"), u64::from(i));
        }
        sim.set_u64("oh", 0);
        sim.settle();
        assert_eq!((sim.get_u64("y"), sim.get_u64("idx")), (0, 0), "no selection: zero");
    }

    #[test]
    fn onehot_min_picks_the_smallest_valid_key_lower_index_on_a_tie() {
        let n = 4u32;
        // Keys of two bits per entrant in `keys`, the comparisons computed here as a register
        // stage would.
        let mut items = Vec::new();
        let key = |i: u32| Expr::slice("keys", 2 * i + 1, 2 * i);
        items.push(Item::assign(id("oh"), onehot_min(&|i| bit_of("valid", n, i), &|a, b| crate::hw::build::le(key(a), key(b)), n)));
        let ports = vec![Port::input("clk", 1, ""), Port::input("rst", 1, ""), Port::input("valid", n, ""), Port::input("keys", 2 * n, ""), Port::output("oh", n, "")];
        let mut sim = Sim::new(&comb_module("omin", ports, items));
        for valid in 0..(1u64 << n) {
            for keys in 0..(1u64 << (2 * n)) {
                sim.set_u64("valid", valid);
                sim.set_u64("keys", keys);
                sim.settle();
                let k = |i: u32| (keys >> (2 * i)) & 3;
                let want = (0..n).filter(|&i| (valid >> i) & 1 == 1).min_by_key(|&i| (k(i), i)).map_or(0, |i| 1u64 << i);
                assert_eq!(sim.get_u64("oh"), want, "valid {valid:#b} keys {keys:#x}");
            }
        }
    }
}
