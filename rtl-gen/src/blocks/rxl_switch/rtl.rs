//! `…_link_rx` and `…_link_tx`, with the FEC decoder and encoder built by the rs_fec kind's
//! generator as `<name>_fec_dec` / `<name>_fec_enc`.

use super::{RxlSwitchBlock, DEC_STAGES, ENC_STAGES, LINK_RX_CYCLES, LINK_TX_CYCLES};
use crate::blocks::rs_fec::RsFecParams;
use crate::blocks::rxl_endpoint::rtl::{fec_params, FLIT_BITS, MSG_BITS};
use crate::hw::build::{and, clocked_instance, id, unused_wires};
use crate::hw::count::sat_counter;
use crate::hw::props::Formal;
use crate::hw::xor_net::emit_valid_pipe;
use crate::blocks::Block;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::{DesignInfo, ResetStyle};
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};

pub fn module_names(b: &RxlSwitchBlock, design: &DesignInfo) -> Vec<String> {
    let base = format!("{}{}", design.prefix, b.name);
    ["_fec_enc", "_fec_dec", "_link_rx", "_link_tx"].iter().map(|s| format!("{base}{s}")).collect()
}

pub fn modules(b: &RxlSwitchBlock, design: &DesignInfo) -> Vec<GeneratedModule> {
    let names = module_names(b, design);
    // The flit codec pipelined so that no path crosses more than 5 LUT6 levels: the switch takes a
    // flit every cycle, the stages only add latency.
    let fec = RsFecParams { pipeline: DEC_STAGES, enc_pipeline: Some(ENC_STAGES), ..fec_params(b.fec) }.block(&format!("{}_fec", b.name)).expect("the switch's pipelined flit FEC is a valid rs_fec block");
    let mut out = fec.elaborate(design);
    assert_eq!((out[0].name(), out[1].name()), (names[0].as_str(), names[1].as_str()), "FEC module names");
    out.push(link_rx(b, design, &names[2], &names[1]));
    out.push(link_tx(b, design, &names[3], &names[0]));
    out
}

fn layout(b: &RxlSwitchBlock) -> &'static str {
    match b.fec {
        crate::blocks::rxl_endpoint::flit::FecChoice::Pcie6 => "pcie6",
        crate::blocks::rxl_endpoint::flit::FecChoice::Generic => "generic",
    }
}

fn link_rx(b: &RxlSwitchBlock, design: &DesignInfo, name: &str, dec_name: &str) -> GeneratedModule {
    let cb = b.counter_bits;
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("in_valid", 1, "in_flit holds a flit from the link"),
        Port::input("in_flit", FLIT_BITS, "256-byte flit; byte i at [8i+7:8i]"),
        Port::output("out_valid", 1, "out_msg holds a correctable flit (uncorrectable ones are dropped)"),
        Port::output("out_msg", MSG_BITS, "its corrected bytes 0-249 (header, payload, CRC), unchecked"),
        Port::output("cnt_flits", cb, "flits received (saturating)"),
        Port::output("cnt_corrected", cb, "flits the FEC corrected (saturating)"),
        Port::output("cnt_dropped", cb, "uncorrectable flits dropped (saturating)"),
    ]);
    let mut items = Vec::new();
    items.extend([
        Item::wire("dec_valid", 1, &format!("the decoder's outputs hold the flit of {DEC_STAGES} cycles ago")),
        Item::wire("dec_msg", MSG_BITS, ""),
        Item::wire("dec_corrected", 1, ""),
        Item::wire("dec_uncorrectable", 1, ""),
    ]);
    unused_wires(&mut items, &[("dec_way_corrected", 3, "per-way flags, not needed here"), ("dec_way_uncorrectable", 3, "")]);
    items.push(clocked_instance(
        dec_name,
        "u_fec_dec",
        design.reset,
        vec![
            ("in_valid", id("in_valid")),
            ("cw", id("in_flit")),
            ("msg", id("dec_msg")),
            ("corrected", id("dec_corrected")),
            ("uncorrectable", id("dec_uncorrectable")),
            ("way_corrected", id("dec_way_corrected")),
            ("way_uncorrectable", id("dec_way_uncorrectable")),
            ("out_valid", id("dec_valid")),
        ],
    ));
    items.push(Item::reg("out_valid_q", 1, ""));
    items.push(Item::reg("out_msg_q", MSG_BITS, ""));
    let valid = (Stmt::set(id("out_valid_q"), Expr::zero()), Stmt::set(id("out_valid_q"), and(id("dec_valid"), id("dec_uncorrectable").not())));
    let events = [("flits", id("dec_valid")), ("corrected", and(id("dec_valid"), id("dec_corrected"))), ("dropped", and(id("dec_valid"), id("dec_uncorrectable")))];
    counters(&mut items, cb, design.reset, vec![valid], &events);
    items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::when(id("dec_valid"), vec![Stmt::set(id("out_msg_q"), id("dec_msg"))])] });
    // The counters' properties hold whatever the decoder outputs: its proof is its own.
    items.push(Item::Formal(Formal::free(&["u_fec_dec"])));
    items.push(super::props::link_rx(design, cb));
    for (p, r) in [("out_valid", "out_valid_q"), ("out_msg", "out_msg_q")] {
        items.push(Item::assign(id(p), id(r)));
    }
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: Some(design.reset) },
        latency: LINK_RX_CYCLES,
        summary: format!("RXL switch ingress: {} FEC decode and correct of a 256-byte flit, registered; uncorrectable flits are dropped (out_valid stays low) and counted. No sequence state, no CRC check.", layout(b)),
        notes: vec![
            format!("Latency {LINK_RX_CYCLES} cycles, one flit per cycle: the {DEC_STAGES}-stage pipelined decoder (partial syndrome parities, syndromes, located error, corrected message), then the output and counter registers. out_valid, out_msg and the three counters all reflect the flit of {LINK_RX_CYCLES} edges before."),
            "The end-to-end CRC in bytes 242-249 passes through unchecked: RXL moves the CRC to the endpoints (transport layer), switches only run the link-layer FEC.".into(),
            "Between link_rx and link_tx a flit is a bare 250-byte message; corruption there (an error inside the switch) is invisible to the FEC of the next link and caught by the endpoint's CRC.".into(),
        ],
        role: Role::LinkRx,
        origin: None,
    }
}

fn link_tx(b: &RxlSwitchBlock, design: &DesignInfo, name: &str, enc_name: &str) -> GeneratedModule {
    let cb = b.counter_bits;
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("in_valid", 1, "in_msg holds a flit's bytes 0-249"),
        Port::input("in_msg", MSG_BITS, "header, payload, CRC"),
        Port::output("out_valid", 1, "out_flit holds a flit for the next link"),
        Port::output("out_flit", FLIT_BITS, "in_msg with fresh FEC bytes 250-255 (defined while out_valid)"),
        Port::output("cnt_flits", cb, "flits forwarded (saturating)"),
    ]);
    let mut items = Vec::new();
    items.push(clocked_instance(enc_name, "u_fec_enc", design.reset, vec![("in_valid", id("in_valid")), ("msg", id("in_msg")), ("cw", id("out_flit")), ("out_valid", id("out_valid"))]));
    // The counter sees a flit in the cycle before the encoder outputs it, so that it steps at
    // the same edge as out_valid.
    items.push(Item::wire("count_valid", 1, &format!("in_valid of {} cycle(s) ago", ENC_STAGES - 1)));
    emit_valid_pipe(&mut items, "count_pipe", "in_valid", "count_valid", ENC_STAGES - 1);
    counters(&mut items, cb, design.reset, vec![], &[("flits", id("count_valid"))]);
    items.push(Item::Formal(Formal::free(&["u_fec_enc"])));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: Some(design.reset) },
        latency: LINK_TX_CYCLES,
        summary: format!("RXL switch egress: re-encodes the {} FEC bytes 250-255 of a flit's bytes 0-249 for the next link.", layout(b)),
        notes: vec![format!(
            "Latency {LINK_TX_CYCLES} cycles, one flit per cycle: the {ENC_STAGES}-stage pipelined encoder (partial parities, then the check bytes); out_valid and the counter step at the same edge."
        )],
        role: Role::LinkTx,
        origin: None,
    }
}

/// The link module's statistics: for each `(what, event)` a saturating counter register
/// `cnt_<what>_q` (`bits` wide) counting the cycles where `event` holds, driving port
/// `cnt_<what>`, in one register group with the caller's other registers `regs` (reset, update).
fn counters(items: &mut Vec<Item>, bits: u32, reset_style: ResetStyle, regs: Vec<(Stmt, Stmt)>, events: &[(&str, Expr)]) {
    // A 32-bit `x + 1` with its `x != MAX` test maps to 7 LUT6 levels, these to 3.
    items.push(Item::comment("Statistics: carry-free saturating counters (hw::count), 3 LUT6 levels at any width."));
    let (mut reset, mut body): (Vec<Stmt>, Vec<Stmt>) = regs.into_iter().unzip();
    for (what, event) in events {
        sat_counter(items, &mut reset, &mut body, &format!("cnt_{what}_q"), bits, event.clone(), "", reset_style);
    }
    items.push(Item::AlwaysFf { reset: Some(reset), body });
    for (what, _) in events {
        items.push(Item::assign(id(&format!("cnt_{what}")), id(&format!("cnt_{what}_q"))));
    }
}
