//! Properties of the switch's ingress (`…_link_rx`), at its ports: no flit created or lost. Its
//! FEC decoder is a free instance of the proof (proven on its own), so they hold whatever the
//! decoder decides: every flit it outputs is either delivered (`out_valid`) or counted dropped,
//! never both, never neither.
//!
//! The flit stream has no `tready` (a switch takes a flit every cycle), so no stability rule
//! applies; the counters' saturation properties come with them, from [`crate::hw::count`].

use crate::hw::build::{add, and, dec, eq, id, le, ne, ones, zext};
use crate::hw::props::{running, Formal};
use crate::hw::verilog::{Item, Stmt};
use crate::info::DesignInfo;

/// `cb`: the status counters' width.
pub fn link_rx(design: &DesignInfo, cb: u32) -> Item {
    let reset = design.reset;
    let mut f = Formal::clocked(reset);
    f.items.push(Item::reg("f_delivered", cb, "flits delivered on out_valid before this cycle (below cnt_flits, so it does not wrap while that counts)"));
    f.items.push(Item::AlwaysFf {
        reset: Some(vec![Stmt::set(id("f_delivered"), dec(cb, 0))]),
        body: vec![Stmt::when(id("out_valid"), vec![Stmt::set(id("f_delivered"), add(id("f_delivered"), dec(cb, 1)))])],
    });
    let counting = and(running(reset), ne(id("cnt_flits"), ones(cb)));
    f.assert(
        "p_flits_conserved",
        "until cnt_flits saturates: flits received = flits delivered (this cycle's included) + flits dropped",
        Some(counting.clone()),
        eq(id("cnt_flits"), add(add(id("f_delivered"), zext(id("out_valid"), 1, cb)), id("cnt_dropped"))),
    );
    // Neither part exceeds the whole. With both bounds the sum above cannot wrap (that would
    // need cnt_flits >= 2^cb - 1, saturated), so it is an equation of integers and inductive:
    // without them an induction may start from a saturated cnt_dropped under a smaller cnt_flits.
    f.assert(
        "p_flits_parts",
        "until cnt_flits saturates: flits delivered (this cycle's included) and flits dropped are each at most flits received",
        Some(counting),
        and(le(add(zext(id("f_delivered"), cb, cb + 1), zext(id("out_valid"), 1, cb + 1)), zext(id("cnt_flits"), cb, cb + 1)), le(id("cnt_dropped"), id("cnt_flits"))),
    );
    Item::Formal(f)
}
