//! The selection and wiring helpers of the logging unit's sections: named wires and registers,
//! a priority encoder, an index mux, and the compare-and-select tournament of the gap skip (and
//! of the release pick's group winners beyond four sources).

use crate::hw::build::{bit_of, cat, dec, eq, id, lt, mux, set_id};
use crate::hw::verilog::{Expr, Item, Stmt, UnOp};

pub(super) fn w(items: &mut Vec<Item>, name: &str, width: u32, value: Expr) -> Expr {
    items.push(Item::wire(name, width, ""));
    items.push(Item::assign(id(name), value));
    id(name)
}

pub(super) fn reg(items: &mut Vec<Item>, rst: &mut Vec<Stmt>, name: &str, width: u32, init: u64, doc: &str) {
    state_reg(items, rst, name, width, dec(width, init), doc);
}

/// A register whose reset value has a name (a state machine's idle state).
pub(super) fn state_reg(items: &mut Vec<Item>, rst: &mut Vec<Stmt>, name: &str, width: u32, init: Expr, doc: &str) {
    items.push(Item::reg(name, width, doc));
    rst.push(set_id(name, init));
}

/// A priority encoder: the first `i` (lowest) for which `cond(i)` holds gives `val(i)`, else
/// `dflt`, as the `width`-bit wire `name`. The conditions are gathered in the wire `{name}_hit`
/// and the choice is a balanced tree (the lower half wins when any of its conditions holds), so
/// the select path is ⌈log2 n⌉ muxes fed by OR reductions rather than the `n` muxes of a chain.
pub(super) fn first_of(it: &mut Vec<Item>, name: &str, width: u32, n: u32, cond: impl Fn(u32) -> Expr, val: impl Fn(u32) -> Expr, dflt: Expr) -> Expr {
    let hit = format!("{name}_hit");
    let hits = w(it, &hit, n, cat((0..n).rev().map(cond).collect()));
    let any_in = |lo: u32, hi: u32| if n == 1 { hits.clone() } else if hi - lo == 1 { Expr::bit(&hit, lo) } else { Expr::red(UnOp::RedOr, sl(&hit, hi - 1, lo)) };
    // The value of the first hit in [lo, hi), given that one of them holds.
    fn pick(lo: u32, hi: u32, any_in: &dyn Fn(u32, u32) -> Expr, val: &dyn Fn(u32) -> Expr) -> Expr {
        if hi - lo == 1 {
            return val(lo);
        }
        let mid = lo + (hi - lo).div_ceil(2);
        mux(any_in(lo, mid), pick(lo, mid, any_in, val), pick(mid, hi, any_in, val))
    }
    let chosen = mux(any_in(0, n), pick(0, n, &any_in, &val), dflt);
    w(it, name, width, chosen)
}

/// `val(sel)` for the `bits`-bit select wire `sel`, `val(n - 1)` for a select of `n` or more: a
/// balanced mux on the select bits, most significant first.
pub(super) fn by_index(sel: &str, bits: u32, n: u32, val: &dyn Fn(u32) -> Expr) -> Expr {
    fn level(sel: &str, bits: u32, n: u32, lo: u32, b: u32, val: &dyn Fn(u32) -> Expr) -> Expr {
        if b == 0 || lo >= n - 1 {
            return val(lo.min(n - 1));
        }
        let half = 1 << (b - 1);
        mux(bit_of(sel, bits, b - 1), level(sel, bits, n, lo + half, b - 1, val), level(sel, bits, n, lo, b - 1, val))
    }
    level(sel, bits, n, 0, bits, val)
}

/// One candidate of a [`tournament`]: whether it takes part, its key and the values it carries
/// (in the order of the tournament's `carried` fields).
pub(super) struct Entrant {
    pub valid: Expr,
    pub key: Expr,
    pub carried: Vec<Expr>,
}

/// The valid entrant with the smallest key, the lowest index among equal keys: what a linear
/// scan gives in which a later entrant wins only with a strictly smaller key, in ⌈log2 n⌉
/// compare-and-select levels (pairs merge, the lower-index side keeps a tie). With no valid
/// entrant the winner is entrant 0 with `valid` low. Each merge's signals are the wires
/// `{name}{level}_{slot}_{t,v,k,<field>}`; the winner's are `{name}_v`, `{name}_k` (only with
/// `key_out`: the final merge then selects no key) and `{name}_<field>` for the `carried` fields
/// (name, width).
pub(super) fn tournament(it: &mut Vec<Item>, name: &str, key_width: u32, key_out: bool, carried: &[(&str, u32)], mut round: Vec<Entrant>) -> Entrant {
    let mut level = 0;
    while round.len() > 1 {
        let key_needed = key_out || round.len() > 2;
        level += 1;
        let mut next = Vec::with_capacity(round.len().div_ceil(2));
        let round_size = round.len();
        let mut pairs = round.into_iter();
        let mut slot = 0;
        while let Some(lo) = pairs.next() {
            let Some(hi) = pairs.next() else {
                next.push(lo);
                break;
            };
            // The final's wires carry the tournament's own name: they are its result.
            let n = if round_size == 2 { name.to_string() } else { format!("{name}{level}_{slot}") };
            let take_hi = w(it, &format!("{n}_t"), 1, and2(hi.valid.clone(), or2(lo.valid.clone().lnot(), lt(hi.key.clone(), lo.key.clone()))));
            let valid = w(it, &format!("{n}_v"), 1, or2(lo.valid, hi.valid));
            let key = if key_needed { w(it, &format!("{n}_k"), key_width, mux(take_hi.clone(), hi.key, lo.key)) } else { Expr::zero() };
            let values = lo.carried.into_iter().zip(hi.carried).zip(carried);
            let carried = values.map(|((l, h), &(f, fw))| w(it, &format!("{n}_{f}"), fw, mux(take_hi.clone(), h, l))).collect();
            next.push(Entrant { valid, key, carried });
            slot += 1;
        }
        round = next;
    }
    let last = round.pop().expect("a tournament has at least one entrant");
    if level > 0 {
        return last;
    }
    Entrant {
        valid: w(it, &format!("{name}_v"), 1, last.valid),
        key: if key_out { w(it, &format!("{name}_k"), key_width, last.key) } else { Expr::zero() },
        carried: last.carried.into_iter().zip(carried).map(|(c, &(f, fw))| w(it, &format!("{name}_{f}"), fw, c)).collect(),
    }
}

pub(super) fn sl(name: &str, hi: u32, lo: u32) -> Expr {
    Expr::slice(name, hi, lo)
}

pub(super) fn and2(a: Expr, b: Expr) -> Expr {
    Expr::and(a, b)
}
pub(super) fn or2(a: Expr, b: Expr) -> Expr {
    Expr::or(a, b)
}

/// `1 << sel` as a `q`-bit vector, one comparison per bit.
pub(super) fn onehot(q: u32, sel: &Expr) -> Expr {
    if q == 1 {
        return Expr::one();
    }
    cat((0..q).rev().map(|k| eq(sel.clone(), dec(crate::hw::build::clog2(q as u64), k as u64))).collect())
}

