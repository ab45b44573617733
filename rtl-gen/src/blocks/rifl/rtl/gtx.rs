//! `<p>_gtx`: one lane's TX GT width converter (see `model::gtwidth`, the machine it
//! implements): the lane's frame register on `clk` out to the transceiver as `gt_bits` per
//! `tx_fast_clk` cycle. The two clocks come from one source, `tx_fast_clk` at R = F / W times
//! `clk` with every `clk` rising edge also one of its own: the crossing is phase-known (no FIFO,
//! no synchronizer), timed by the constraint files as the multicycle and single-cycle paths
//! between two related clocks.

use super::Names;
use crate::hw::build::*;
use crate::hw::cdc::domain_reset_doc;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{ClockDomain, Expr, Item, Module, Port};
use crate::info::DesignInfo;

/// The fast TX domain: `tx_fast_clk` and its reset.
pub fn fast_domain(design: &DesignInfo) -> ClockDomain {
    ClockDomain::named("tx_fast", design.reset)
}

pub fn module(frame_bits: u32, gt_bits: u32, design: &DesignInfo, n: &Names) -> GeneratedModule {
    let (f, w) = (frame_bits, gt_bits);
    let r = f / w;
    let pw = bits_for((r - 1) as u64);
    let fast = fast_domain(design);
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("frame", f, "the lane's frame: a clk register (launched at clk edges)"),
        Port::input(&fast.clock, 1, &format!("{r} x clk from the same source; every clk rising edge is one of its rising edges")),
        Port::input(&fast.reset, 1, &domain_reset_doc(design.reset, &format!("reset of the {} domain", fast.clock), &fast.clock)),
        Port::output("tx_fast_data", w, "the word to the transceiver this tx_fast_clk cycle, frame bits [W(k+1)-1:Wk] at phase k (tx_fast_clk register)"),
    ]);
    let mut it: Vec<Item> = Vec::new();
    localparam(&mut it, "LAST_PHASE", pw, (r - 1) as u64, "the fast phase that ends at a clk edge");

    it.push(Item::comment("clk side: a toggle the fast side sees one fast cycle after each clk edge."));
    reg(&mut it, "slow_toggle_q", 1, "flips at every clk edge");
    it.push(Item::AlwaysFf { reset: Some(vec![set_id("slow_toggle_q", Expr::zero())]), body: vec![set_id("slow_toggle_q", id("slow_toggle_q").not())] });

    it.push(Item::comment("tx_fast_clk side: the phase counter, and the frame taken at the edge shared with clk."));
    reg(&mut it, "seen_q", 1, "slow_toggle_q as of the last fast edge");
    reg(&mut it, "phase_q", pw, "fast cycles since the last clk edge");
    reg(&mut it, "gt_hold_q", (r - 1) * w, "frame words 1..R-1 still to go, the next at the bottom");
    reg(&mut it, "gt_word_q", w, "");
    wire(&mut it, "load", 1, "a clk edge was the last fast edge (related clocks: a one-fast-cycle path)", ne(id("seen_q"), id("slow_toggle_q")));
    wire(&mut it, "capture", 1, "this fast edge is also a clk edge: take the frame (a path of one clk cycle); load wins out of phase", Expr::and(eq(id("phase_q"), id("LAST_PHASE")), id("load").not()));
    let shifted = if r == 2 { id("gt_hold_q") } else { cat(vec![zeros(w), Expr::slice("gt_hold_q", (r - 1) * w - 1, w)]) };
    it.push(Item::AlwaysFfOn {
        domain: fast.clone(),
        reset: Some(vec![set_id("seen_q", Expr::zero()), set_id("phase_q", dec(pw, 0)), set_id("gt_word_q", dec(w, 0))]),
        body: vec![
            set_id("seen_q", id("slow_toggle_q")),
            if_else(
                id("capture"),
                vec![set_id("gt_word_q", Expr::slice("frame", w - 1, 0)), set_id("phase_q", dec(pw, 0))],
                vec![set_id("gt_word_q", Expr::slice("gt_hold_q", w - 1, 0)), set_id("phase_q", Expr::mux(id("load"), dec(pw, 1), add(id("phase_q"), dec(pw, 1))))],
            ),
        ],
    });
    it.push(Item::AlwaysFfOn { domain: fast, reset: None, body: vec![if_else(id("capture"), vec![set_id("gt_hold_q", Expr::slice("frame", f - 1, w))], vec![set_id("gt_hold_q", shifted)])] });
    it.push(Item::assign(id("tx_fast_data"), id("gt_word_q")));
    GeneratedModule {
        module: Module { name: n.gtx.clone(), ports, items: it, reset: Some(design.reset) },
        latency: 1,
        summary: format!("RIFL TX GT width converter: a {f}-bit frame per clk cycle out as {r} {w}-bit words per clk cycle on tx_fast_clk ({r} x clk, same source)."),
        notes: vec![
            format!("Clocks: tx_fast_clk = {r} x clk from one source, every clk rising edge also a tx_fast_clk rising edge. slow_toggle_q is on clk; seen_q, phase_q, gt_hold_q and gt_word_q on tx_fast_clk."),
            "The crossing is phase-known, not asynchronous: load (slow_toggle_q against seen_q) is a one-fast-cycle path that sets phase_q to 1 one fast cycle after each clk edge; capture (phase_q = LAST_PHASE) names the fast edge that is also the next clk edge, where gt_word_q and gt_hold_q take frame, launched one clk cycle earlier (a multicycle path of R fast cycles). The constraint files time both: the clocks as related, and the frame path as a multicycle path into gt_hold_q and gt_word_q.".into(),
            format!("Latency: a frame registered at a clk edge leaves at the next clk edge as word 0 (frame[{}:0], the SYN first on the wire), then word k at the k-th tx_fast_clk edge after it. After reset the phase is learnt at the first clk edge; from the second clk cycle on every word is in place.", w - 1),
        ],
        role: Role::GtTxWidth,
        origin: None,
    }
}
