//! Properties of the clock compensation (`<p>_comp`), proven with SymbiYosys `multiclock on`:
//! `clk`, `rx_clk` and `free_clk` are free inputs, so every interleaving of their edges is
//! considered. What the module promises, in three families:
//!
//! - Gray counters and crossings: each Gray register is the Gray code of its binary count (one
//!   bit changes per step, so it crosses safely), and the count a destination decodes from its
//!   synchronizer is never ahead of the source's count (at most half the counter's range behind,
//!   which holds within 2^(COUNT_BITS-1) edges of either clock between free_clk edges: the free
//!   clock's bound, and in any trace shorter than that);
//! - accounting on free_clk: with `f_net` the sum of the net steps (TX cycles minus recovered
//!   cycles as the free domain sees them) and `f_owed` the Idle slots owed, `balance_q = FLOOR +
//!   f_net − f_owed` as long as the balance was never clamped, and the owed count never exceeds
//!   the largest gain `f_net` has shown (unless the far end's lead was forgotten by the floor at
//!   0): the node pauses only for TX cycles it gained;
//! - the pause in clk: the Idle slots the TX side takes never outnumber the ones owed, and `idle`
//!   is high only while one is owed and not yet taken.

use crate::blocks::rifl::model::comp::{BALANCE_BITS, COUNT_BITS, OWED_BITS};
use crate::hw::build::{add, and, cat, dec, eq, gt, id, le, lt, sub, zext};
use crate::hw::cdc::gray_of;
use crate::hw::props::{resets_released_together, Formal};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::info::DesignInfo;

/// Width of the shadow counters (never wrap in a proof's trace).
const SHADOW_BITS: u32 = 16;
/// `f_net` starts here, so a negative sum stays an unsigned compare.
const NET_OFFSET: u64 = 1 << (SHADOW_BITS - 1);

pub fn properties(design: &DesignInfo) -> Item {
    let (tx, rx, free) = super::comp::domains(design);
    let (cw, bw, ow, w) = (COUNT_BITS, BALANCE_BITS, OWED_BITS, SHADOW_BITS);
    let (nw, sw) = (cw + 2, bw + 2);
    let mut f = Formal::default();
    let run = resets_released_together(&mut f, &[&tx, &rx, &free], design.reset);

    for (counter, bits, doc) in [("tx_cnt", cw, "the TX cycle count"), ("rx_cnt", cw, "the recovered cycle count"), ("owed", ow, "the owed count")] {
        let bin = format!("{counter}_bin_q");
        f.assert(&format!("p_{counter}_gray"), &format!("{doc} crosses as the Gray code of its binary count"), Some(run.clone()), eq(id(&format!("{counter}_gray_q")), gray_of(&bin, bits)));
    }
    // A decoded count behind its source by less than half the range: never ahead of it.
    let half = |bits: u32| dec(bits, 1 << (bits - 1));
    f.assert("p_tx_seen", "the free domain's TX count is never ahead of the TX clock's", Some(run.clone()), lt(sub(id("tx_cnt_bin_q"), id("tx_seen_q")), half(cw)));
    f.assert("p_rx_seen", "the free domain's recovered count is never ahead of the recovered clock's", Some(run.clone()), lt(sub(id("rx_cnt_bin_q"), id("rx_seen_q")), half(cw)));
    f.assert("p_owed_seen", "the TX domain's owed count is never ahead of the free domain's", Some(run.clone()), lt(sub(id("owed_bin_q"), id("owed_seen")), half(ow)));

    for (name, doc) in [
        ("f_net", "NET_OFFSET + the net steps added to the balance since reset"),
        ("f_peak", "the largest f_net so far"),
        ("f_owed", "Idle slots owed since reset"),
        ("f_paid", "Idle slots taken by the TX side since reset"),
    ] {
        f.items.push(Item::reg(name, w, doc));
    }
    f.items.push(Item::reg("f_floored", 1, "the balance was clamped at 0 (the far end's lead forgotten)"));
    f.items.push(Item::reg("f_clamped", 1, "the balance was clamped at 0 or at BALANCE_MAX"));
    let net_ext = cat(vec![Expr::Repeat(w - nw, Box::new(Expr::bit("net_q", nw - 1))), id("net_q")]);
    f.items.push(Item::wire("f_net_n", w, "f_net after this free_clk edge"));
    f.items.push(Item::assign(id("f_net_n"), add(id("f_net"), net_ext)));
    let floored = Expr::bit("balance_sum", sw - 1);
    f.items.push(Item::AlwaysFfOn {
        domain: free,
        reset: Some(vec![
            Stmt::set(id("f_net"), dec(w, NET_OFFSET)),
            Stmt::set(id("f_peak"), dec(w, NET_OFFSET)),
            Stmt::set(id("f_owed"), dec(w, 0)),
            Stmt::set(id("f_floored"), Expr::zero()),
            Stmt::set(id("f_clamped"), Expr::zero()),
        ]),
        body: vec![
            Stmt::set(id("f_net"), id("f_net_n")),
            Stmt::when(gt(id("f_net_n"), id("f_peak")), vec![Stmt::set(id("f_peak"), id("f_net_n"))]),
            Stmt::when(id("pay"), vec![Stmt::set(id("f_owed"), add(id("f_owed"), dec(w, 1)))]),
            Stmt::when(floored, vec![Stmt::set(id("f_floored"), Expr::one())]),
            // Above the largest balance unsigned: floored (the sign bit) or topped.
            Stmt::when(gt(id("balance_sum"), id("BALANCE_MAX")), vec![Stmt::set(id("f_clamped"), Expr::one())]),
        ],
    });
    f.items.push(Item::AlwaysFfOn {
        domain: tx,
        reset: Some(vec![Stmt::set(id("f_paid"), dec(w, 0))]),
        body: vec![Stmt::when(and(id("idle"), id("slot")), vec![Stmt::set(id("f_paid"), add(id("f_paid"), dec(w, 1)))])],
    });
    let balance = add(add(zext(id("balance_q"), bw, w), id("f_owed")), dec(w, NET_OFFSET));
    f.assert(
        "p_balance",
        "balance_q = BALANCE_FLOOR + net steps - Idle slots owed, until a clamp",
        Some(and(run.clone(), id("f_clamped").not())),
        eq(balance, add(zext(id("BALANCE_FLOOR"), bw, w), id("f_net"))),
    );
    f.assert("p_owed_gain", "never more Idle slots owed than the largest TX gain seen, until the floor forgets a far-end lead", Some(and(run.clone(), id("f_floored").not())), le(add(id("f_owed"), dec(w, NET_OFFSET)), id("f_peak")));
    f.assert("p_paid_owed", "the TX side never takes more Idle slots than are owed", Some(run.clone()), le(id("f_paid"), id("f_owed")));
    f.assert("p_idle_owed", "idle is high only while an owed Idle slot is not yet taken", Some(and(run, id("idle"))), lt(id("f_paid"), id("f_owed")));
    Item::Formal(f)
}
