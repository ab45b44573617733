//! `<p>_comp`: clock compensation of a node on recovered clocks (§4.E, end of §5.B; see
//! `model::comp` for the edge behaviour it implements). The TX clock `clk` and the far end's TX
//! clock as recovered on lane 0 (`rx_clk`) each keep a Gray-coded cycle counter; both cross into
//! the free-running domain (`free_clk`), which adds up how many cycles the TX clock gained and
//! pays each gained cycle by one step of a Gray-coded "owed" counter. That counter crosses back
//! into `clk`, where every owed step becomes one frame slot without user data (`idle`), so the
//! node never sends the far end data frames faster than the far end's clock takes them.

use super::Names;
use crate::blocks::rifl::model::comp::{BALANCE_BITS, BALANCE_FLOOR, COUNT_BITS, OWED_BITS, SYNC_STAGES};
use crate::hw::build::*;
use crate::hw::cdc::{bin_of_gray, domain_reset_doc, gray_counter, synchronizer};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{ClockDomain, Expr, Item, Module, Port, Stmt};
use crate::info::DesignInfo;

/// The clock domains of the compensation: the TX clock, lane 0's recovered clock, the free clock.
pub fn domains(design: &DesignInfo) -> (ClockDomain, ClockDomain, ClockDomain) {
    let tx = ClockDomain { clock: "clk".into(), reset: design.reset.port().into() };
    (tx, ClockDomain::named("rx", design.reset), ClockDomain::named("free", design.reset))
}

/// The reset port's doc for the domain of `clock`.
pub fn reset_doc(design: &DesignInfo, clock: &str) -> String {
    domain_reset_doc(design.reset, &format!("reset of the {clock} domain"), clock)
}

/// `rx_tick`: the recovered clock is a transceiver clock (the node with `gt_bits`), and the
/// recovered count advances only at edges with the `rx_tick` input (one per frame).
pub fn module(design: &DesignInfo, n: &Names, rx_tick: bool) -> GeneratedModule {
    let (tx, rx, free) = domains(design);
    let (cw, bw, ow) = (COUNT_BITS, BALANCE_BITS, OWED_BITS);
    let sw = bw + 2;
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("slot", 1, "a frame slot passes at this clk edge (tx_ready)"),
        Port::output("idle", 1, "the slot at this edge must carry no user data (an owed Idle slot); from clk registers"),
        Port::input(&rx.clock, 1, "lane 0's recovered clock: the far end's TX clock"),
        Port::input(&rx.reset, 1, &reset_doc(design, &rx.clock)),
    ]);
    if rx_tick {
        ports.push(Port::input("rx_tick", 1, "a frame of the far end passed on lane 0 at this rx_clk edge (the lane aligner's frame_valid): one per far-end clk cycle"));
    }
    ports.extend([
        Port::input(&free.clock, 1, "free-running clock (at least 1/32 of clk and rx_clk)"),
        Port::input(&free.reset, 1, &reset_doc(design, &free.clock)),
    ]);
    let mut it: Vec<Item> = Vec::new();
    localparam(&mut it, "BALANCE_FLOOR", bw, BALANCE_FLOOR as u64, "balance of no gain: below it the far end's clock is the faster one");
    localparam(&mut it, "BALANCE_MAX", sw, (1u64 << bw) - 1, "largest balance");

    it.push(Item::comment("Cycle counters of the two clocks (Gray codes cross)."));
    let txc = gray_counter(&mut it, "tx_cnt", cw, Expr::one(), &tx, "TX clock cycles.");
    let rxc = if rx_tick {
        gray_counter(&mut it, "rx_cnt", cw, id("rx_tick"), &rx, "Frames received on lane 0: the far end's TX clock cycles.")
    } else {
        gray_counter(&mut it, "rx_cnt", cw, Expr::one(), &rx, "Recovered clock cycles (the far end's TX clock).")
    };

    it.push(Item::comment("Free-running domain, three register stages: the counts in binary, their net step, the balance."));
    let tx_s = synchronizer(&mut it, "tx_cnt_sync", id(&txc.gray), cw, SYNC_STAGES, &free, "The TX cycle count seen by the free domain.");
    let rx_s = synchronizer(&mut it, "rx_cnt_sync", id(&rxc.gray), cw, SYNC_STAGES, &free, "The recovered cycle count seen by the free domain.");
    let nw = cw + 2;
    reg(&mut it, "tx_seen_q", cw, "the synchronized TX count in binary");
    reg(&mut it, "rx_seen_q", cw, "the synchronized recovered count in binary");
    reg(&mut it, "tx_prev_q", cw, "tx_seen_q at the last free_clk edge");
    reg(&mut it, "rx_prev_q", cw, "rx_seen_q at the last free_clk edge");
    reg(&mut it, "seen_q", 1, "tx_seen_q and rx_seen_q hold samples (not the reset values)");
    reg(&mut it, "primed_q", 1, "tx_prev_q and rx_prev_q hold samples too: the steps are real");
    reg(&mut it, "net_q", nw, "TX cycles minus recovered cycles over one free_clk period (two's complement)");
    reg(&mut it, "balance_q", bw, "BALANCE_FLOOR + TX cycles gained and not yet paid (floored at 0: a far end that is faster earns no credit beyond the floor)");
    let widen = |e: Expr, w: u32| cat(vec![zeros(sw - w), e]);
    // Each step is below 2^(cw-1) (the free clock's bound), so the steps' difference fits nw signed bits.
    wire(&mut it, "tx_step", cw, "TX cycles between the last two samples", sub(id("tx_seen_q"), id("tx_prev_q")));
    wire(&mut it, "rx_step", cw, "recovered cycles between the last two samples", sub(id("rx_seen_q"), id("rx_prev_q")));
    wire(&mut it, "net_n", nw, "tx_step - rx_step (two's complement)", sub(cat(vec![zeros(2), id("tx_step")]), cat(vec![zeros(2), id("rx_step")])));
    wire(&mut it, "pay", 1, "the TX clock is ahead: owe one more Idle slot", gt(id("balance_q"), id("BALANCE_FLOOR")));
    wire(
        &mut it,
        "balance_sum",
        sw,
        "the balance after this edge before clamping (two's complement)",
        sub(add(widen(id("balance_q"), bw), cat(vec![Expr::Repeat(sw - nw, Box::new(Expr::bit("net_q", nw - 1))), id("net_q")])), widen(id("pay"), 1)),
    );
    wire(
        &mut it,
        "balance_n",
        bw,
        "clamped to 0..BALANCE_MAX",
        Expr::mux(Expr::bit("balance_sum", sw - 1), dec(bw, 0), Expr::mux(gt(id("balance_sum"), id("BALANCE_MAX")), ones(bw), Expr::slice("balance_sum", bw - 1, 0))),
    );
    it.push(Item::AlwaysFfOn {
        domain: free.clone(),
        reset: Some(vec![
            set_id("tx_seen_q", dec(cw, 0)),
            set_id("rx_seen_q", dec(cw, 0)),
            set_id("tx_prev_q", dec(cw, 0)),
            set_id("rx_prev_q", dec(cw, 0)),
            set_id("seen_q", Expr::zero()),
            set_id("primed_q", Expr::zero()),
            set_id("net_q", dec(nw, 0)),
            set_id("balance_q", id("BALANCE_FLOOR")),
        ]),
        body: vec![
            set_id("tx_seen_q", bin_of_gray(&tx_s, cw)),
            set_id("rx_seen_q", bin_of_gray(&rx_s, cw)),
            set_id("tx_prev_q", id("tx_seen_q")),
            set_id("rx_prev_q", id("rx_seen_q")),
            set_id("seen_q", Expr::one()),
            set_id("primed_q", id("seen_q")),
            set_id("net_q", Expr::and(id("net_n"), Expr::Repeat(nw, Box::new(id("primed_q"))))),
            set_id("balance_q", id("balance_n")),
        ],
    });
    let owed = gray_counter(&mut it, "owed", ow, id("pay"), &free, "Idle slots owed in total (steps at most once per free_clk edge, so its Gray code crosses).");

    it.push(Item::comment("TX domain: one Idle slot per owed step."));
    let owed_s = synchronizer(&mut it, "owed_sync", id(&owed.gray), ow, SYNC_STAGES, &tx, "The owed count seen by the TX domain.");
    wire(&mut it, "owed_seen", ow, "the synchronized owed count in binary", bin_of_gray(&owed_s, ow));
    reg(&mut it, "paid_q", ow, "Idle slots sent");
    it.push(Item::assign(id("idle"), ne(id("owed_seen"), id("paid_q"))));
    it.push(Item::AlwaysFfOn {
        domain: tx,
        reset: Some(vec![set_id("paid_q", dec(ow, 0))]),
        body: vec![Stmt::when(Expr::and(id("idle"), id("slot")), vec![set_id("paid_q", add(id("paid_q"), dec(ow, 1)))])],
    });
    it.push(super::comp_props::properties(design));
    let s = SYNC_STAGES;
    GeneratedModule {
        module: Module { name: n.comp.clone(), ports, items: it, reset: Some(design.reset) },
        latency: 2 * s + 3,
        summary: format!("RIFL clock compensation: {cw}-bit Gray cycle counters of clk and rx_clk compared on free_clk, one Idle slot owed per TX cycle gained, the owed count crossing back into clk."),
        notes: vec![
            format!("Domains: tx_cnt and paid_q on clk; rx_cnt on rx_clk; the synchronized counts, tx_seen_q/rx_seen_q, net_q, balance_q and the owed counter on free_clk. Crossings: tx_cnt_gray_q and rx_cnt_gray_q into free_clk, owed_gray_q into clk, each through a {s}-flop synchronizer."),
            format!("The free clock must tick at least once per {} cycles of clk and of rx_clk (the {cw}-bit counts wrap at {}); its frequency does not matter otherwise.", (1u32 << (cw - 2)), 1u32 << cw),
            format!("balance_q starts at BALANCE_FLOOR ({BALANCE_FLOOR}) and moves by net_q (the TX steps minus the recovered steps between the last two samples) at each free_clk edge, floored at 0: the far end being faster lowers it at most to 0, and sampling noise of a cycle or two around equal frequencies is absorbed. While it is above the floor, each free_clk edge owes one Idle slot and lowers it by one."),
            format!("Latency: a TX cycle gained is owed 4 free_clk edges after its count leaves the {s}-flop synchronizer (one register stage each: the count in binary, the net step, the balance, the owed count; staged so that no carry chain feeds another in one free_clk cycle) and shows as idle {} clk edges after that; idle stays high until a slot (tx_ready) passes. Up to {} owed slots may wait (tx_ready low that long wraps the owed count).", s + 1, (1u32 << ow) - 1),
        ],
        role: Role::ClockComp,
        origin: None,
    }
}
