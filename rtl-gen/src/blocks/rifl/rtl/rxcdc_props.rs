//! Properties of one lane's receiver crossing (`<p>_rxcdc`), proven with SymbiYosys `multiclock
//! on` (`rx_clk` and `clk` free inputs, every interleaving of their edges). The receiver `u_rx`
//! is left free (its outputs any value at every step; it is proven on its own), so what is proven
//! is the crossing for every stream of receiver outputs:
//!
//! - the CDC FIFO: entries held = accepted writes − pops, never more than its depth (no
//!   overflow) nor fewer than none (no underflow: the 1-bit-wider counters' difference would
//!   wrap above the depth); `rx_cdc_level` never below the entries held, never above the depth;
//!   an entry that is due is written, or `rx_cdc_overflow` says one was lost;
//! - data integrity by one tagged entry: the entry written with a free number is the one the
//!   clk side takes with the same number (so in order, none created), and the outputs show it
//!   unchanged at the next clk cycle (its err_pulse, flags and out_valid, and out_raw when it
//!   carries data); `out_valid` never pulses more often than data entries were written;
//! - the flags: after every rx_clk edge with room, the flags the last entry carries are the
//!   receiver's flags of that edge (a change of a flag is never skipped).

use crate::blocks::rifl::model::rxcdc::{Entry, CDC_DEPTH, FLAGS};
use crate::hw::build::{add, all, and, cat, dec, eq, id, le, sub, zext};
use crate::hw::props::{domain_in_reset, resets_released_together, Formal};
use crate::hw::verilog::{ClockDomain, Expr, Item, Stmt};
use crate::info::DesignInfo;

/// `r`: raw bits of a delivered frame.
pub fn properties(design: &DesignInfo, r: u32) -> Item {
    let style = design.reset;
    let rx = ClockDomain::named("rx", style);
    let node = ClockDomain { clock: "clk".into(), reset: style.port().into() };
    let w = Entry::bits(r);
    let nf = FLAGS.len() as u32;
    let lb = super::rxcdc::level_bits();
    // One bit wider than the level: an underflow shows as a difference above the depth.
    let c = lb + 1;
    let mut f = Formal::free(&["u_rx"]);
    let run = resets_released_together(&mut f, &[&rx, &node], style);

    f.items.push(Item::wire("f_push", 1, "an entry is written at the next rx_clk edge"));
    f.items.push(Item::assign(id("f_push"), and(id("rx_wr_en"), id("rx_wr_full").not())));
    f.items.push(Item::wire("f_pop", 1, "the head entry is taken at the next clk edge"));
    f.items.push(Item::assign(id("f_pop"), and(id("pop"), id("cdc_empty").not())));
    f.anyconst.push(("f_tag".into(), c, "the number of the tagged entry".into()));
    for (name, doc) in [
        ("f_pushes", "entries written since reset"),
        ("f_dues", "entries due (rx_wr_en) since reset"),
        ("f_data_pushes", "entries written that carry data"),
        ("f_pops", "entries taken since reset"),
        ("f_outs", "clk cycles out_valid was high since reset"),
    ] {
        f.items.push(Item::reg(name, c, doc));
    }
    f.items.push(Item::reg("f_tag_written", 1, "the tagged entry has been written"));
    f.items.push(Item::reg("f_tag_data", w, "the tagged entry as written"));
    f.items.push(Item::reg("f_tag_out", 1, "the last clk edge took the tagged entry"));
    f.items.push(Item::reg("f_rx_flags_d", nf, "the receiver's flags at the last rx_clk edge"));
    f.items.push(Item::reg("f_rx_full_d", 1, "the FIFO was full at the last rx_clk edge"));
    f.items.push(Item::reg("f_rx_run_d", 1, "the last rx_clk edge was out of reset"));
    f.init.push(("f_rx_run_d".into(), Expr::zero()));
    let one = dec(c, 1);
    let tagged_push = and(id("f_push"), eq(id("f_pushes"), id("f_tag")));
    f.items.push(Item::AlwaysFfOn {
        domain: rx.clone(),
        reset: Some(vec![Stmt::set(id("f_pushes"), dec(c, 0)), Stmt::set(id("f_dues"), dec(c, 0)), Stmt::set(id("f_data_pushes"), dec(c, 0)), Stmt::set(id("f_tag_written"), Expr::zero())]),
        body: vec![
            Stmt::when(id("f_push"), vec![Stmt::set(id("f_pushes"), add(id("f_pushes"), one.clone()))]),
            Stmt::when(id("rx_wr_en"), vec![Stmt::set(id("f_dues"), add(id("f_dues"), one.clone()))]),
            Stmt::when(and(id("f_push"), id("rx_out_valid")), vec![Stmt::set(id("f_data_pushes"), add(id("f_data_pushes"), one.clone()))]),
            Stmt::when(tagged_push, vec![Stmt::set(id("f_tag_written"), Expr::one()), Stmt::set(id("f_tag_data"), id("rx_entry"))]),
        ],
    });
    f.items.push(Item::AlwaysFfOn {
        domain: rx.clone(),
        reset: None,
        body: vec![Stmt::set(id("f_rx_flags_d"), id("rx_flags")), Stmt::set(id("f_rx_full_d"), id("rx_wr_full")), Stmt::set(id("f_rx_run_d"), domain_in_reset(&rx, style).not())],
    });
    f.items.push(Item::AlwaysFfOn {
        domain: node,
        reset: Some(vec![Stmt::set(id("f_pops"), dec(c, 0)), Stmt::set(id("f_outs"), dec(c, 0)), Stmt::set(id("f_tag_out"), Expr::zero())]),
        body: vec![
            Stmt::when(id("f_pop"), vec![Stmt::set(id("f_pops"), add(id("f_pops"), one.clone()))]),
            Stmt::when(id("out_valid"), vec![Stmt::set(id("f_outs"), add(id("f_outs"), one))]),
            Stmt::set(id("f_tag_out"), and(id("f_pop"), eq(id("f_pops"), id("f_tag")))),
        ],
    });

    let held = sub(id("f_pushes"), id("f_pops"));
    let depth = dec(c, CDC_DEPTH as u64);
    f.assert("p_occupancy", &format!("entries written - entries taken in 0..{CDC_DEPTH}: no overflow, no underflow"), Some(run.clone()), le(held.clone(), depth.clone()));
    let level = zext(id("rx_cdc_level"), lb, c);
    f.assert("p_level", "entries held <= rx_cdc_level <= the depth", Some(run.clone()), and(le(held, level.clone()), le(level, depth)));
    f.assert("p_no_silent_loss", "every entry due is written while rx_cdc_overflow is low", Some(and(run.clone(), id("rx_cdc_overflow").not())), eq(id("f_dues"), id("f_pushes")));
    let outs = add(id("f_outs"), zext(id("out_valid"), 1, c));
    f.assert("p_out_count", "out_valid pulses no more often than data entries were written", Some(run.clone()), le(outs, id("f_data_pushes")));
    let taken = and(run.clone(), id("f_tag_out"));
    f.assert("p_tag_written", "the entry taken with the tag's number was written", Some(taken.clone()), id("f_tag_written"));
    f.assert(
        "p_tag_flags",
        "the tagged entry's err_pulse, flags and out_valid show at the clk cycle after it is taken",
        Some(taken.clone()),
        eq(cat(vec![id("err_pulse"), id("flags_q"), id("out_valid")]), Expr::slice("f_tag_data", w - 1, r)),
    );
    f.assert("p_tag_raw", "the tagged entry's data shows on out_raw unchanged", Some(and(taken, Expr::bit("f_tag_data", r))), eq(id("out_raw"), Expr::slice("f_tag_data", r - 1, 0)));
    f.assert(
        "p_flags_sent",
        "after an rx_clk edge with room, the last entry carries the receiver's flags of that edge",
        Some(all(vec![run, id("f_rx_run_d"), id("f_rx_full_d").not()])),
        eq(id("rx_flags_sent_q"), id("f_rx_flags_d")),
    );
    Item::Formal(f)
}
