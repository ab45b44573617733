//! `<p>_rxcdc`: one lane's receiver on the lane's recovered clock and the crossing of what it
//! delivers into the node clock (see `model::rxcdc`). The receiver (`<p>_rx`: verification,
//! descrambler, Listing 1, control and flow-control monitors) runs on `rx_clk`; each received
//! frame that delivers data or changes a flag writes one entry into the asynchronous FIFO
//! (`<p>_cdc`, the CDC kit's low-latency first-word-fall-through form), and the clk side replays
//! the entries as the receiver's outputs, in order, one per clk cycle.

use super::comp::reset_doc;
use super::Names;
use crate::blocks::rifl::model::params::Params;
use crate::blocks::rifl::model::rxcdc::{Entry, CDC_DEPTH, FLAGS, FLAGS_RESET};
use crate::hw::build::*;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{ClockDomain, Expr, Item, Module, Port, Stmt};
use crate::info::DesignInfo;

/// Pointer bits of the CDC FIFO (its levels' width).
pub fn level_bits() -> u32 {
    CDC_DEPTH.trailing_zeros() + 1
}

pub fn module(p: &Params, design: &DesignInfo, n: &Names) -> GeneratedModule {
    let r = p.raw_bits() as u32;
    let f = p.frame_bits;
    let w = Entry::bits(r);
    let lb = level_bits();
    let rx = ClockDomain::named("rx", design.reset);
    let nf = FLAGS.len() as u32;
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input(&rx.clock, 1, "the lane's recovered clock"),
        Port::input(&rx.reset, 1, &reset_doc(design, &rx.clock)),
        Port::input("rx_valid", 1, "a frame from the transceiver at this rx_clk edge"),
        Port::input("rx_frame", f, "the frame (rx_clk domain)"),
        Port::output("rx_cdc_level", lb, &format!("entries in the CDC FIFO as the rx_clk side knows it (0..{CDC_DEPTH})")),
        Port::output("rx_cdc_overflow", 1, "an entry was lost because the CDC FIFO was full (sticky until reset; rx_clk register)"),
        Port::output("out_valid", 1, "a delivered data frame this clk cycle: push out_raw into the flow-control buffer"),
        Port::output("out_raw", r, "descrambled {payload, meta} of the last delivered frame"),
        Port::output("out_of_sync", 1, "the receiver's out_of_sync, as of the last entry taken (set at reset)"),
        Port::output("pause_req", 1, "the receiver's pause_req, as of the last entry taken"),
        Port::output("retrans_req", 1, "the receiver's retrans_req, as of the last entry taken"),
        Port::output("frame_error", 1, "the receiver's frame_error, as of the last entry taken"),
        Port::output("remote_fc", 1, "the receiver's remote_fc, as of the last entry taken"),
        Port::output("err_pulse", 1, "one clk cycle per receiver err_pulse"),
    ]);
    let mut it: Vec<Item> = Vec::new();
    localparam(&mut it, "FLAGS_RESET", nf, FLAGS_RESET as u64, &format!("flags after reset {{{}}}: out of sync", FLAGS.iter().rev().copied().collect::<Vec<_>>().join(", ")));

    it.push(Item::comment("Recovered clock domain: the receiver and the FIFO's write side."));
    let outs: [(&str, u32); 8] = [("rx_out_valid", 1), ("rx_out_raw", r), ("rx_oos", 1), ("rx_preq", 1), ("rx_rreq", 1), ("rx_ferr", 1), ("rx_rfc", 1), ("rx_errp", 1)];
    for (name, width) in outs {
        it.push(Item::wire(name, width, ""));
    }
    it.push(instance(
        &n.rx,
        "u_rx",
        vec![
            ("clk", id(&rx.clock)),
            (design.reset.port(), id(&rx.reset)),
            ("in_valid", id("rx_valid")),
            ("in_frame", id("rx_frame")),
            ("out_valid", id("rx_out_valid")),
            ("out_raw", id("rx_out_raw")),
            ("out_of_sync", id("rx_oos")),
            ("pause_req", id("rx_preq")),
            ("retrans_req", id("rx_rreq")),
            ("frame_error", id("rx_ferr")),
            ("remote_fc", id("rx_rfc")),
            ("err_pulse", id("rx_errp")),
        ],
    ));
    // Flags in FLAGS order, bit 0 first.
    wire(&mut it, "rx_flags", nf, "the receiver's flags {remote_fc, frame_error, retrans_req, pause_req, out_of_sync}", cat(["rx_rfc", "rx_ferr", "rx_rreq", "rx_preq", "rx_oos"].iter().map(|s| id(s)).collect()));
    reg(&mut it, "rx_flags_sent_q", nf, "the flags as the last entry written carries them");
    reg(&mut it, "rx_overflow_q", 1, "an entry was lost");
    for (name, width, doc) in [("rx_wr_full", 1, ""), ("rx_wr_level", lb, "")] {
        it.push(Item::wire(name, width, doc));
    }
    wire(&mut it, "rx_wr_en", 1, "an entry is due: data delivered, an error pulse, or a flag changed", any(vec![id("rx_out_valid"), id("rx_errp"), ne(id("rx_flags"), id("rx_flags_sent_q"))]));
    wire(&mut it, "rx_entry", w, "{err_pulse, flags, out_valid, out_raw}", cat(vec![id("rx_errp"), id("rx_flags"), id("rx_out_valid"), id("rx_out_raw")]));
    it.push(Item::AlwaysFfOn {
        domain: rx.clone(),
        reset: Some(vec![set_id("rx_flags_sent_q", id("FLAGS_RESET")), set_id("rx_overflow_q", Expr::zero())]),
        body: vec![
            Stmt::when(Expr::and(id("rx_wr_en"), id("rx_wr_full").not()), vec![set_id("rx_flags_sent_q", id("rx_flags"))]),
            Stmt::when(Expr::and(id("rx_wr_en"), id("rx_wr_full")), vec![set_id("rx_overflow_q", Expr::one())]),
        ],
    });
    it.push(Item::assign(id("rx_cdc_level"), id("rx_wr_level")));
    it.push(Item::assign(id("rx_cdc_overflow"), id("rx_overflow_q")));

    it.push(Item::comment(&format!("The crossing: {CDC_DEPTH} entries, Gray pointers through the kit's synchronizers.")));
    for (name, width) in [("cdc_empty", 1), ("cdc_entry", w)] {
        it.push(Item::wire(name, width, ""));
    }
    unused_wires(&mut it, &[("cdc_rd_level", lb, "the read side's level (the write side's is the one that bounds)")]);
    let (wr_reset, rd_reset) = (format!("wr_{}", design.reset.port()), format!("rd_{}", design.reset.port()));
    it.push(instance(
        &n.cdc,
        "u_cdc",
        vec![
            ("wr_clk", id(&rx.clock)),
            (wr_reset.as_str(), id(&rx.reset)),
            ("wr_en", id("rx_wr_en")),
            ("wr_data", id("rx_entry")),
            ("wr_full", id("rx_wr_full")),
            ("wr_level", id("rx_wr_level")),
            ("rd_clk", id("clk")),
            (rd_reset.as_str(), id(design.reset.port())),
            ("rd_en", id("pop")),
            ("rd_empty", id("cdc_empty")),
            ("rd_level", id("cdc_rd_level")),
            ("rd_data", id("cdc_entry")),
        ],
    ));

    it.push(Item::comment("Node clock domain: one entry per cycle replayed as the receiver's outputs."));
    wire(&mut it, "pop", 1, "take the head entry at this edge", id("cdc_empty").not());
    reg(&mut it, "out_valid_q", 1, "");
    reg(&mut it, "err_pulse_q", 1, "");
    reg(&mut it, "flags_q", nf, "");
    reg(&mut it, "out_raw_q", r, "");
    let field = |hi: u32, lo: u32| if hi == lo { Expr::bit("cdc_entry", lo) } else { Expr::slice("cdc_entry", hi, lo) };
    it.push(Item::AlwaysFf {
        reset: Some(vec![set_id("out_valid_q", Expr::zero()), set_id("err_pulse_q", Expr::zero()), set_id("flags_q", id("FLAGS_RESET"))]),
        body: vec![
            set_id("out_valid_q", Expr::and(id("pop"), field(r, r))),
            set_id("err_pulse_q", Expr::and(id("pop"), field(w - 1, w - 1))),
            Stmt::when(id("pop"), vec![set_id("flags_q", field(w - 2, r + 1))]),
        ],
    });
    it.push(Item::AlwaysFf { reset: None, body: vec![Stmt::when(Expr::and(id("pop"), field(r, r)), vec![set_id("out_raw_q", field(r - 1, 0))])] });
    it.push(Item::assign(id("out_valid"), id("out_valid_q")));
    it.push(Item::assign(id("out_raw"), id("out_raw_q")));
    it.push(Item::assign(id("err_pulse"), id("err_pulse_q")));
    for (i, name) in FLAGS.iter().enumerate() {
        it.push(Item::assign(id(name), Expr::bit("flags_q", i as u32)));
    }
    it.push(super::rxcdc_props::properties(design, r));
    GeneratedModule {
        module: Module { name: n.rxcdc.clone(), ports, items: it, reset: Some(design.reset) },
        latency: 4,
        summary: format!("One RIFL lane's receiver on its recovered clock rx_clk and a {CDC_DEPTH}-entry asynchronous FIFO carrying what it delivers (data, flag changes, error pulses) into clk."),
        notes: vec![
            format!("Domains: u_rx, rx_flags_sent_q and rx_overflow_q on rx_clk; out_*, flags_q and err_pulse_q on clk. The only crossing is u_cdc ({}: Gray pointers through 2-flop synchronizers, storage read at synchronized pointers).", n.cdc),
            format!("Entry ({w} bits): {{err_pulse, flags[{}:0], out_valid, out_raw[{}:0]}}, flags = {{remote_fc, frame_error, retrans_req, pause_req, out_of_sync}}. An entry is written at the rx_clk edge after a frame that delivered data, pulsed err_pulse or changed a flag; frames that change nothing (idle, filler, control frames once a request stands) write none, so the FIFO's write rate is the far end's data rate.", nf - 1, r - 1),
            "Latency: the receiver's outputs change at the second rx_clk edge after the one that takes the frame (its two stages); the entry is written at the next rx_clk edge; the FIFO's rd_empty falls 3 clk edges after the write, and the clk edge after that takes it onto out_valid/out_raw/flags: 1 rx_clk cycle + 4 clk cycles from the receiver to the node (one clk cycle more when an rx_clk edge falls in the synchronizer's sampling window).".into(),
            format!("The FIFO is popped at every clk edge it holds an entry: it stays shallow as long as the far end sends data no faster than clk (clock compensation in the far end's node). rx_cdc_level is the write side's level (late by the read pointer's synchronizer); rx_cdc_overflow records an entry refused while full, which breaks the link's guarantees and is what compensation prevents."),
        ],
        role: Role::RxCdc,
        origin: None,
    }
}
