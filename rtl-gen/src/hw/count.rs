//! Saturating counters without a carry chain. The counter is cut into chunks of six bits, each
//! with a registered "all ones" flag kept exact every cycle (a chunk that increments becomes
//! all ones when it was all ones but one: one LUT on its six bits), so a chunk's increment enable
//! is an AND of flags and a bit's toggle an AND of its chunk's lower bits: three LUT6 levels
//! whatever the width, where `x + 1` and `x != MAX` map to a chain as long as the counter.
//! Same value every cycle as [`super::build::counter`], for the blocks whose timing needs it.

use super::build::{add, dec, id, mux, set_id, wire, zext};
use super::props::{Formal, PAST_VALID};
use super::verilog::{Expr, Item, Stmt, UnOp};
use crate::info::ResetStyle;

/// Chunk width: a chunk's "all ones but one" test is one LUT6.
const CHUNK: u32 = 6;

/// `&name[hi_excl-1:lo]` (1 when the range is empty).
fn all_ones(name: &str, width: u32, lo: u32, hi_excl: u32) -> Expr {
    if hi_excl <= lo {
        dec(1, 1)
    } else if width == 1 {
        id(name)
    } else if hi_excl - lo == 1 {
        Expr::bit(name, lo)
    } else {
        Expr::red(UnOp::RedAnd, Expr::slice(name, hi_excl - 1, lo))
    }
}

fn concat_msb_first(mut v: Vec<Expr>) -> Expr {
    v.reverse();
    if v.len() == 1 {
        v.into_iter().next().expect("one part")
    } else {
        Expr::Concat(v)
    }
}

/// Increments bits `lo..bits` of register `name` by one when `inc` holds and those bits are
/// not all ones, chunk by chunk. Declares the flag register `<name>_ones` (one bit per chunk)
/// and the wires `<name>_en`, `<name>_tgl`; returns the next value of the bits `lo..bits` and
/// "all those bits are one" (from the flags, for the caller's saturation). The flags' reset
/// and update go to `reset` and `body`; their invariant (`p_<label>_ones`: each flag is the
/// AND of its chunk's bits) goes to `f`. Without it an induction may start from a state whose
/// flags lie about the bits, where the counter steps wrongly, so no counter property closes.
#[allow(clippy::too_many_arguments)] // the three lists are the parts of the caller's register group
fn chunked_increment(items: &mut Vec<Item>, reset: &mut Vec<Stmt>, body: &mut Vec<Stmt>, f: &mut Formal, name: &str, bits: u32, lo: u32, inc: Expr) -> (Expr, Expr) {
    let n = bits - lo;
    let k_n = n.div_ceil(CHUNK);
    let ones = format!("{name}_ones");
    let en = format!("{name}_en");
    let tgl = format!("{name}_tgl");
    items.push(Item::reg(&ones, k_n, "per six-bit chunk: all its bits are one"));
    let full = all_ones(&ones, k_n, 0, k_n);
    let ens: Vec<Expr> = (0..k_n).map(|k| Expr::and(Expr::and(inc.clone(), full.clone().not()), all_ones(&ones, k_n, 0, k))).collect();
    wire(items, &en, k_n, "chunk increments: enabled, not saturated, every lower chunk all ones", concat_msb_first(ens));
    let chunk = |k: u32| (lo + k * CHUNK, (lo + (k + 1) * CHUNK).min(bits));
    let en_k = |k: u32| if k_n == 1 { id(&en) } else { Expr::bit(&en, k) };
    let t: Vec<Expr> = (lo..bits).map(|i| {
        let k = (i - lo) / CHUNK;
        Expr::and(en_k(k), all_ones(name, bits, chunk(k).0, i))
    }).collect();
    wire(items, &tgl, n, "bits that toggle: their chunk increments and every lower bit of it is one", concat_msb_first(t));
    reset.push(set_id(&ones, dec(k_n, 0)));
    let next_ones: Vec<Expr> = (0..k_n)
        .map(|k| {
            let (c_lo, c_hi) = chunk(k);
            // All ones but the lowest bit: the chunk becomes all ones on its increment.
            let but_one = Expr::and(all_ones(name, bits, c_lo + 1, c_hi), if bits == 1 { id(name).not() } else { Expr::bit(name, c_lo).not() });
            let flag = if k_n == 1 { id(&ones) } else { Expr::bit(&ones, k) };
            mux(en_k(k), but_one, flag)
        })
        .collect();
    body.push(set_id(&ones, concat_msb_first(next_ones)));
    let chunk_ones: Vec<Expr> = (0..k_n).map(|k| all_ones(name, bits, chunk(k).0, chunk(k).1)).collect();
    f.assert(
        &format!("p_{}_ones", label(name)),
        &format!("{ones}: each flag is the AND of its six-bit chunk of {name}"),
        // Checked in reset too: a multiclock proof may hold reset over steps without a clock
        // edge, and the flags agree with the bits in every state reachable after the first edge.
        Some(id(PAST_VALID)),
        Expr::eq(id(&ones), concat_msb_first(chunk_ones)),
    );
    let cur = if bits == 1 {
        id(name)
    } else if n == 1 {
        Expr::bit(name, lo)
    } else {
        Expr::slice(name, bits - 1, lo)
    };
    (Expr::xor(cur, id(&tgl)), full)
}

/// The label of a counter's property: its name without the register suffix `_q`.
fn label(name: &str) -> &str {
    name.strip_suffix("_q").unwrap_or(name)
}

/// A saturating event counter `name` (`bits` wide, reset to 0) counting the cycles where `inc`
/// holds: its declarations and wires go to `items`, its reset and update to the caller's
/// register group `reset` and `body`. It brings its property (`p_<name>_sat`: it holds or
/// counts up by one and never steps from all ones, so it never wraps), which the module's
/// formal block takes in ([`crate::hw::props::gather`]).
#[allow(clippy::too_many_arguments)] // the three lists are the parts of the caller's register group
pub fn sat_counter(items: &mut Vec<Item>, reset: &mut Vec<Stmt>, body: &mut Vec<Stmt>, name: &str, bits: u32, inc: Expr, doc: &str, style: ResetStyle) {
    items.push(Item::reg(name, bits, doc));
    reset.push(set_id(name, dec(bits, 0)));
    let mut f = Formal::clocked(style);
    let (next, _) = chunked_increment(items, reset, body, &mut f, name, bits, 0, inc);
    body.push(set_id(name, next));
    f.saturating(style, name, label(name), bits, dec(bits, all_ones_value(bits)));
    items.push(Item::Formal(f));
}

fn all_ones_value(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// A saturating accumulator `name` (`bits` wide, reset to 0) adding `n` (`nw` bits) every
/// cycle: the low `nw` bits add with a carry out, the bits above increment on that carry
/// chunk by chunk, and a carry out of the top saturates the whole register. It brings its
/// property (`p_<name>_sat`: it never decreases, so it never wraps).
#[allow(clippy::too_many_arguments)] // the three lists are the parts of the caller's register group
pub fn sat_accumulator(items: &mut Vec<Item>, reset: &mut Vec<Stmt>, body: &mut Vec<Stmt>, name: &str, bits: u32, n: Expr, nw: u32, max: Expr, doc: &str, style: ResetStyle) {
    items.push(Item::reg(name, bits, doc));
    reset.push(set_id(name, dec(bits, 0)));
    let mut f = Formal::clocked(style);
    f.never_decreases(style, name, label(name), bits);
    if bits <= nw {
        let sw = nw + 1;
        let sum = format!("{name}_sum");
        wire(items, &sum, sw, "the sum, one bit wider", add(zext(id(name), bits, sw), zext(n, nw, sw)));
        let over = Expr::red(UnOp::RedOr, Expr::slice(&sum, sw - 1, bits));
        body.push(set_id(name, mux(over, max, Expr::slice(&sum, bits - 1, 0))));
        items.push(Item::Formal(f));
        return;
    }
    let lo = format!("{name}_lo");
    let low = if nw == 1 { Expr::bit(name, 0) } else { Expr::slice(name, nw - 1, 0) };
    wire(items, &lo, nw + 1, "low bits plus the addend, with the carry out", add(zext(low, nw, nw + 1), zext(n, nw, nw + 1)));
    let carry = Expr::bit(&lo, nw);
    let (hi_next, hi_full) = chunked_increment(items, reset, body, &mut f, name, bits, nw, carry.clone());
    let lo_next = if nw == 1 { Expr::bit(&lo, 0) } else { Expr::slice(&lo, nw - 1, 0) };
    body.push(set_id(name, mux(Expr::and(carry, hi_full), max, Expr::Concat(vec![hi_next, lo_next]))));
    items.push(Item::Formal(f));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::eval::Sim;
    use crate::hw::verilog::{Module, Port};

    fn module(items: Vec<Item>, reset: Vec<Stmt>, body: Vec<Stmt>, ports: Vec<Port>) -> Module {
        let mut items = items;
        items.push(Item::AlwaysFf { reset: Some(reset), body });
        Module { name: "c".into(), ports, items, reset: Some(ResetStyle::SyncHigh) }
    }

    #[test]
    fn sat_counter_counts_and_saturates() {
        for bits in [1u32, 3, 5] {
            let (mut it, mut r, mut b) = (Vec::new(), Vec::new(), Vec::new());
            sat_counter(&mut it, &mut r, &mut b, "k", bits, id("inc"), "", ResetStyle::SyncHigh);
            it.push(Item::assign(id("y"), id("k")));
            let ports = vec![Port::input("clk", 1, ""), Port::input("rst", 1, ""), Port::input("inc", 1, ""), Port::output("y", bits, "")];
            let mut sim = Sim::new(&module(it, r, b, ports));
            sim.set_u64("rst", 1);
            sim.clock();
            sim.set_u64("rst", 0);
            let max = (1u64 << bits) - 1;
            let mut want = 0u64;
            for cyc in 0..(3 << bits) {
                let inc = cyc % 3 != 1;
                sim.set_u64("inc", inc as u64);
                sim.clock();
                if inc {
                    want = (want + 1).min(max);
                }
                assert_eq!(sim.get_u64("y"), want, "{bits} bits, cycle {cyc}");
            }
            assert_eq!(want, max, "reached saturation");
        }
    }

    #[test]
    fn sat_accumulator_adds_and_saturates() {
        for (bits, nw) in [(7u32, 3u32), (3, 3), (2, 3), (4, 1)] {
            let (mut it, mut r, mut b) = (Vec::new(), Vec::new(), Vec::new());
            let max = (1u64 << bits) - 1;
            sat_accumulator(&mut it, &mut r, &mut b, "k", bits, id("n"), nw, dec(bits, max), "", ResetStyle::SyncHigh);
            it.push(Item::assign(id("y"), id("k")));
            let ports = vec![Port::input("clk", 1, ""), Port::input("rst", 1, ""), Port::input("n", nw, ""), Port::output("y", bits, "")];
            let mut sim = Sim::new(&module(it, r, b, ports));
            sim.set_u64("rst", 1);
            sim.clock();
            sim.set_u64("rst", 0);
            let mut want = 0u64;
            for cyc in 0..200u64 {
                let n = (cyc * 5 + 3) % (1 << nw);
                sim.set_u64("n", n);
                sim.clock();
                want = (want + n).min(max);
                assert_eq!(sim.get_u64("y"), want, "{bits}/{nw} bits, cycle {cyc}");
            }
            assert_eq!(want, max, "reached saturation");
        }
    }
}
