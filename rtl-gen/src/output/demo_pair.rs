//! The two-clock FPGA demo of a design's recovered-clock RIFL node: `demo/<node>_demo_pair.v`,
//! two copies of the node (`a` and `b`) on unrelated clocks linked by a looped cable, and
//! `demo/<node>_demo_pair_tb.v`, its self-checking testbench.
//!
//! Each node's TX clock is its own pin (`a_clk`, `b_clk`: two oscillators or two PLL outputs,
//! which may differ by ppm); every lane of a node receives on the far node's TX clock, as a
//! transceiver would recover it from a cable with no delay; both nodes' clock compensation runs
//! on a third pin, `free_clk`. Per direction (`ab`: a to b, `ba`: b to a) an LFSR packet
//! generator in the sending node's domain and a checker in the receiving node's; the cable of
//! each direction is one register in the sending node's domain. The only crossings are inside
//! the nodes (their CDC FIFOs and compensation) and the buttons' synchronizers.

use super::demo::{beat, flip_bit, lfsr_step, line_error, COUNT_BITS, PACKET_BEATS};
use crate::blocks::rifl::rtl as rifl_rtl;
use crate::hw::axis::Signal;
use crate::hw::build::{add, and, cat, dec, eq, gt, id, if_else, localparam, mux, ones, sat_inc, set_id, when, wire};
use crate::hw::cdc::synchronizer;
use crate::hw::verilog::{ClockDomain, Expr, Item, Module, Port, Stmt, UnOp};
use crate::info::ResetStyle;

/// What the demo needs to know about the recovered-clock node it doubles.
pub struct PairNode<'a> {
    pub design: &'a str,
    pub regenerate: &'a str,
    /// The node module (`rtlgen_rifl_rclk`), its block and that block's parameters as the
    /// banner shows them.
    pub node: &'a str,
    pub block: &'a str,
    pub params: &'a [(&'static str, String)],
    /// `s_axis_tdata` width.
    pub user_bits: u32,
    /// `tx_frame` / `rx_frame` width (lanes × frame bits).
    pub line_bits: u32,
    pub lanes: u32,
    /// Bits of one lane's field of `rx_cdc_level`.
    pub level_bits: u32,
    /// The node's reset style (every domain's reset port has it).
    pub reset: ResetStyle,
}

pub fn top_name(node: &str) -> String {
    crate::blocks::rifl::demo_pair_top_name(node)
}

pub fn tb_name(node: &str) -> String {
    crate::blocks::rifl::demo_pair_tb_name(node)
}

/// Target of both TX clocks in the demo's FPGA build (`rtl-gen fpga --demo --two-clock`), MHz:
/// the one-clock demo's.
pub const FREQ_MHZ: u32 = super::demo::FREQ_MHZ;

/// Target of `free_clk` in the FPGA build, MHz (the node needs at least 1/32 of its clocks).
pub const FREE_MHZ: u32 = 25;

/// Width of the data error counters (few are expected; the pins are counted).
const ERROR_BITS: u32 = 16;

/// Start states of the two directions' LFSRs: different, so beats of one direction delivered
/// to the other's checker are errors.
const SEED_AB: u64 = 0x0000_0001;
const SEED_BA: u64 = 0x5EED_0BA5;

/// The clock domains: node a's TX clock, node b's, the compensation's free-running clock.
fn domains(style: ResetStyle) -> [ClockDomain; 3] {
    ["a", "b", "free"].map(|r| ClockDomain::named(r, style))
}

/// The top's ports (the same for every node: counters and levels have fixed widths).
pub fn top_ports(reset: ResetStyle, level_bits: u32, line_bits: u32) -> Vec<Port> {
    let [a, b, free] = domains(reset);
    let rst_doc = |d: &ClockDomain, what: &str| crate::hw::cdc::domain_reset_doc(reset, what, &d.clock);
    let c = COUNT_BITS;
    vec![
        Port::input(&a.clock, 1, "node a's TX clock (and every lane's recovered clock at node b)"),
        Port::input(&a.reset, 1, &rst_doc(&a, "reset of the a_clk domain")),
        Port::input(&b.clock, 1, "node b's TX clock (and every lane's recovered clock at node a), unrelated to a_clk"),
        Port::input(&b.reset, 1, &rst_doc(&b, "reset of the b_clk domain")),
        Port::input(&free.clock, 1, "free-running clock of both nodes' clock compensation"),
        Port::input(&free.reset, 1, &rst_doc(&free, "reset of the free_clk domain")),
        Port::input("inject_line", 1, &format!("rising edge: flip line bit {} of the next frame on the a-to-b cable", flip_bit(line_bits))),
        Port::input("inject_data", 1, "rising edge: flip bit 0 of the next beat a's generator sends"),
        Port::output("a_link_up", 1, "node a transfers data on every lane (a_clk register)"),
        Port::output("b_link_up", 1, "node b transfers data on every lane (b_clk register)"),
        Port::output("ab_beats_ok", c, "beats b delivered equal to the expected ones of a's stream (saturating, b_clk)"),
        Port::output("ab_data_errors", ERROR_BITS, "beats b delivered that differ from them (saturating, b_clk)"),
        Port::output("ba_beats_ok", c, "beats a delivered equal to the expected ones of b's stream (saturating, a_clk)"),
        Port::output("ba_data_errors", ERROR_BITS, "beats a delivered that differ from them (saturating, a_clk)"),
        Port::output("a_frame_errors", 32, "node a's frames detected in error (frames from b)"),
        Port::output("b_frame_errors", 32, "node b's frames detected in error (frames from a)"),
        Port::output("a_retrans_seen", 1, "node a has started a retransmission procedure"),
        Port::output("b_retrans_seen", 1, "node b has started a retransmission procedure"),
        Port::output("a_pause_seen", 1, "node a has left data transfer for a pause at least once"),
        Port::output("b_pause_seen", 1, "node b has left data transfer for a pause at least once"),
        Port::output("ab_cdc_peak", level_bits, "deepest CDC FIFO level node b's lanes reported (the a-to-b stream's; a_clk register)"),
        Port::output("ba_cdc_peak", level_bits, "deepest CDC FIFO level node a's lanes reported (the b-to-a stream's; b_clk register)"),
        Port::output("ab_cdc_overflow", 1, "a CDC FIFO of node b refused an entry (sticky, a_clk)"),
        Port::output("ba_cdc_overflow", 1, "a CDC FIFO of node a refused an entry (sticky, b_clk)"),
    ]
}

/// What the top's banner says it does.
pub fn top_summary(n: &PairNode) -> String {
    format!(
        "Two-clock FPGA demo: two copies (a, b) of the recovered-clock RIFL node {} on unrelated TX clocks a_clk and b_clk, each node's frames looped to the other through a one-register cable in the sender's clock, so each lane of a node receives on the far node's TX clock as a transceiver recovers it; both nodes' clock compensation on free_clk. \
         An LFSR packet generator and a checker per direction (a to b, b to a), the counters on pins. \
         A rising edge on inject_line flips line bit {} of one frame on the a-to-b cable (b detects it, a retransmits, no delivered beat is wrong); \
         a rising edge on inject_data flips bit 0 of one beat of a's stream after the checker's reference (ab_data_errors counts it).",
        n.node,
        flip_bit(n.line_bits)
    )
}

/// The banner notes of the top.
pub fn top_notes() -> Vec<String> {
    vec![
        format!("Packets of {PACKET_BEATS} full beats; beat data = the sending generator's 32-bit LFSR (x^32+x^22+x^2+x+1, advanced once per accepted beat; a to b starts at 0x{SEED_AB:08X}, b to a at 0x{SEED_BA:08X}) in every 32-bit word, word i XORed with i * 0x9E3779B9."),
        "Resets: a_rst, b_rst and free_rst reset their own domains (a node's lanes receive in the far node's domain and take its reset): assert them together, release in any order.".into(),
        "The buttons pass a two-flop synchronizer each into a_clk; their rising edges arm one injection.".into(),
    ]
}

/// One direction of traffic: its name (`ab`), the sending and receiving node and their domains.
struct Direction<'a> {
    name: &'a str,
    from: &'a str,
    to: &'a str,
    seed: &'a str,
    tx: &'a ClockDomain,
    rx: &'a ClockDomain,
}

/// The generator of direction `d` on the sending node's `s_axis` (`<from>_s_axis_*`), always
/// valid after reset; with `flip`, bit 0 of the next accepted beat is flipped while that
/// register (of the sending domain, set by the caller's register group) holds.
fn generator(items: &mut Vec<Item>, d: &Direction, w: u32, flip: Option<(&str, Stmt)>) -> Expr {
    let k = w / 8;
    let [user_in, _] = rifl_rtl::streams(k);
    let port = |s: Signal| format!("{}_{}", d.from, user_in.port(s));
    let [lfsr, beat_i, valid, take] = ["gen_lfsr", "gen_beat", "gen_valid", "gen_take"].map(|r| format!("{}_{r}", d.name));
    items.push(Item::comment(&format!("Generator of the {} stream: LFSR beats into node {}, always valid after reset.", d.name, d.from)));
    items.push(Item::reg(&lfsr, 32, "LFSR state of the beat on s_axis"));
    items.push(Item::reg(&beat_i, 4, "beat index inside the packet"));
    items.push(Item::reg(&valid, 1, "the generated beat's tvalid (low only in reset)"));
    items.push(Item::wire(&port(Signal::Ready), 1, "the node takes the beat"));
    wire(items, &port(Signal::Valid), 1, "the generated beat is offered", id(&valid));
    wire(items, &take, 1, "a generated beat is accepted", and(id(&valid), id(&port(Signal::Ready))));
    let data = format!("{}_gen_data", d.name);
    beat(items, &data, &lfsr, w, "the generated beat");
    let mut reset = vec![set_id(&lfsr, id(d.seed)), set_id(&beat_i, dec(4, 0)), set_id(&valid, Expr::zero())];
    let mut body = vec![set_id(&valid, Expr::one()), when(id(&take), vec![set_id(&lfsr, lfsr_step(&lfsr)), set_id(&beat_i, add(id(&beat_i), dec(4, 1)))])];
    match flip {
        Some((pending, stmt)) => {
            items.push(Item::reg(pending, 1, "flip bit 0 of the next accepted generated beat"));
            let flipped = if w == 1 { id(pending) } else { cat(vec![dec(w - 1, 0), id(pending)]) };
            wire(items, &port(Signal::Data), w, "the beat, bit 0 flipped while a data error is pending", Expr::xor(id(&data), flipped));
            reset.push(set_id(pending, Expr::zero()));
            body.push(stmt);
        }
        None => wire(items, &port(Signal::Data), w, "the beat", id(&data)),
    }
    items.push(Item::AlwaysFfOn { domain: d.tx.clone(), reset: Some(reset), body });
    eq(id(&beat_i), id("LAST_BEAT"))
}

/// The cable of direction `d`: every frame the sending node puts on `<from>_tx_frame` is on the
/// receiving node's `rx_frame` one sending-clock cycle later; with `error`, XORed with it.
fn cable(items: &mut Vec<Item>, d: &Direction, lines: u32, error: Option<(Expr, &str)>) {
    let (q, v) = (format!("{}_cable_q", d.name), format!("{}_cable_v", d.name));
    items.push(Item::comment(&format!("The {} cable: node {}'s frames on node {}'s rx_frame one {} cycle later.", d.name, d.from, d.to, d.tx.clock)));
    items.push(Item::wire(&format!("{}_tx_frame", d.from), lines, &format!("node {}'s line frames", d.from)));
    items.push(Item::reg(&q, lines, &format!("frame on its way to node {}", d.to)));
    items.push(Item::reg(&v, 1, &format!("{q} holds a frame (low only in reset)")));
    let frame = id(&format!("{}_tx_frame", d.from));
    let (value, mut reset, mut body) = match &error {
        Some((pattern, pending)) => {
            items.push(Item::reg(pending, 1, "flip a bit of the next frame on the cable"));
            (Expr::xor(frame, pattern.clone()), vec![set_id(pending, Expr::zero())], vec![set_id(pending, id("line_edge"))])
        }
        None => (frame, vec![], vec![]),
    };
    reset.insert(0, set_id(&q, dec(lines, 0)));
    reset.insert(1, set_id(&v, Expr::zero()));
    body.insert(0, set_id(&q, value));
    body.insert(1, set_id(&v, Expr::one()));
    items.push(Item::AlwaysFfOn { domain: d.tx.clone(), reset: Some(reset), body });
}

/// The checker of direction `d` on the receiving node's `m_axis`: the same LFSR, advanced per
/// delivered beat; saturating counters of good and bad beats.
fn checker(items: &mut Vec<Item>, d: &Direction, w: u32) {
    let k = w / 8;
    let [_, user_out] = rifl_rtl::streams(k);
    let port = |s: Signal| format!("{}_{}", d.to, user_out.port(s));
    let [lfsr, beat_i, exp, good] = ["exp_lfsr", "exp_beat", "exp_data", "beat_good"].map(|r| format!("{}_{r}", d.name));
    items.push(Item::comment(&format!("Checker of the {} stream at node {}: the same LFSR, advanced per delivered beat.", d.name, d.to)));
    items.push(Item::reg(&lfsr, 32, "LFSR state of the next expected beat"));
    items.push(Item::reg(&beat_i, 4, "its index inside the packet"));
    beat(items, &exp, &lfsr, w, "the expected beat");
    let is_good = and(and(eq(id(&port(Signal::Data)), id(&exp)), eq(id(&port(Signal::Keep)), id("ALL_BYTES"))), eq(id(&port(Signal::Last)), eq(id(&beat_i), id("LAST_BEAT"))));
    wire(items, &good, 1, "the delivered beat is the expected one", is_good);
    let valid = id(&port(Signal::Valid));
    let (ok, bad) = (format!("{}_beats_ok_q", d.name), format!("{}_data_errors_q", d.name));
    items.push(Item::reg(&ok, COUNT_BITS, &format!("{}_beats_ok", d.name)));
    items.push(Item::reg(&bad, ERROR_BITS, &format!("{}_data_errors", d.name)));
    items.push(Item::AlwaysFfOn {
        domain: d.rx.clone(),
        reset: Some(vec![set_id(&lfsr, id(d.seed)), set_id(&beat_i, dec(4, 0)), set_id(&ok, dec(COUNT_BITS, 0)), set_id(&bad, dec(ERROR_BITS, 0))]),
        body: vec![
            when(valid.clone(), vec![set_id(&lfsr, lfsr_step(&lfsr)), set_id(&beat_i, add(id(&beat_i), dec(4, 1)))]),
            sat_inc(&ok, COUNT_BITS, ones(COUNT_BITS), Some(and(valid.clone(), id(&good)))),
            sat_inc(&bad, ERROR_BITS, ones(ERROR_BITS), Some(and(valid, id(&good).not()))),
        ],
    });
    items.push(Item::assign(id(&format!("{}_beats_ok", d.name)), id(&ok)));
    items.push(Item::assign(id(&format!("{}_data_errors", d.name)), id(&bad)));
}

/// Node `x` (`a` or `b`) on `tx`, its lanes receiving `cable` on the far node's clock `rx`; its
/// user streams, line and status wires named `<x>_<port>`.
fn node(items: &mut Vec<Item>, n: &PairNode, x: &str, tx: &ClockDomain, rx: &ClockDomain, free: &ClockDomain, cable: &str) {
    let (w, l) = (n.user_bits, n.lanes);
    let [user_in, user_out] = rifl_rtl::streams(w / 8);
    let rst = n.reset.port();
    items.push(Item::comment(&format!("Node {x}: TX on {}, every lane receiving on {} (the far node's TX clock).", tx.clock, rx.clock)));
    let wires: [(Signal, u32, &str); 4] = [(Signal::Data, w, "delivered beat"), (Signal::Keep, w / 8, "its byte enables"), (Signal::Last, 1, "its packet end"), (Signal::Valid, 1, "a beat is delivered (always taken)")];
    for (s, width, doc) in wires {
        items.push(Item::wire(&format!("{x}_{}", user_out.port(s)), width, doc));
    }
    for (name, width, doc) in [("frame_errors", 32, "the node's frames detected in error"), ("retransmissions", 32, "the node's retransmission procedures"), ("pause_events", 32, "the node's pauses"), ("rx_cdc_level", l * n.level_bits, "each lane's CDC FIFO level"), ("rx_cdc_overflow", l, "each lane's CDC FIFO overflow flag")] {
        if name != "frame_errors" {
            items.push(Item::wire(&format!("{x}_{name}"), width, doc));
        }
    }
    let mut conns: Vec<(String, Expr)> = vec![("clk".into(), id(&tx.clock)), (rst.into(), id(&tx.reset))];
    for s in Signal::ALL.into_iter().filter(|&s| user_in.has(s)) {
        let value = match s {
            Signal::Keep => id("ALL_BYTES"),
            _ => id(&format!("{x}_{}", user_in.port(s))),
        };
        conns.push((user_in.port(s), value));
    }
    for s in Signal::ALL.into_iter().filter(|&s| user_out.has(s)) {
        conns.push((user_out.port(s), if s == Signal::Ready { Expr::one() } else { id(&format!("{x}_{}", user_out.port(s))) }));
    }
    let lanes = |e: Expr| if l == 1 { e } else { Expr::Repeat(l, Box::new(e)) };
    let (rx_rst, free_rst) = (format!("rx_{rst}"), format!("free_{rst}"));
    let rest = [
        ("tx_frame", id(&format!("{x}_tx_frame"))),
        ("tx_ready", Expr::one()),
        ("rx_frame", id(&format!("{cable}_cable_q"))),
        ("rx_valid", lanes(id(&format!("{cable}_cable_v")))),
        ("link_up", id(&format!("{x}_link_up"))),
        ("frame_errors", id(&format!("{x}_frame_errors"))),
        ("retransmissions", id(&format!("{x}_retransmissions"))),
        ("pause_events", id(&format!("{x}_pause_events"))),
        ("rx_clk", lanes(id(&rx.clock))),
        (rx_rst.as_str(), lanes(id(&rx.reset))),
        ("rx_cdc_level", id(&format!("{x}_rx_cdc_level"))),
        ("rx_cdc_overflow", id(&format!("{x}_rx_cdc_overflow"))),
        ("free_clk", id(&free.clock)),
        (free_rst.as_str(), id(&free.reset)),
    ];
    conns.extend(rest.map(|(p, e)| (p.to_string(), e)));
    items.push(Item::Instance { module: n.node.into(), name: format!("node_{x}"), conns });
    for (out, from) in [("retrans_seen", "retransmissions"), ("pause_seen", "pause_events")] {
        items.push(Item::assign(id(&format!("{x}_{out}")), Expr::red(UnOp::RedOr, id(&format!("{x}_{from}")))));
    }
    // The levels and overflow flags are registers of the receive clock: named after the stream
    // the lanes receive, like the checker's counters in the same clock.
    items.push(Item::assign(id(&format!("{cable}_cdc_overflow")), Expr::red(UnOp::RedOr, id(&format!("{x}_rx_cdc_overflow")))));
    // The deepest level over the lanes (all in the receive clock here), kept as a peak.
    let lb = n.level_bits;
    let level = |j: u32| Expr::slice(&format!("{x}_rx_cdc_level"), lb * j + lb - 1, lb * j);
    let mut deepest = level(0);
    for j in 1..l {
        let name = format!("{x}_level_max{j}");
        wire(items, &name, lb, &format!("deepest level of lanes 0..={j}"), mux(gt(level(j), deepest.clone()), level(j), deepest));
        deepest = id(&name);
    }
    let peak = format!("{cable}_cdc_peak_q");
    items.push(Item::reg(&peak, lb, &format!("{cable}_cdc_peak")));
    items.push(Item::AlwaysFfOn { domain: rx.clone(), reset: Some(vec![set_id(&peak, dec(lb, 0))]), body: vec![when(gt(deepest.clone(), id(&peak)), vec![set_id(&peak, deepest)])] });
    items.push(Item::assign(id(&format!("{cable}_cdc_peak")), id(&peak)));
}

/// The two-clock demo top as a module of the typed Verilog tree.
pub fn top_module(n: &PairNode) -> Module {
    let (w, lines) = (n.user_bits, n.line_bits);
    let [a, b, free] = domains(n.reset);
    let mut items = Vec::new();
    items.push(Item::Localparam { name: "SEED_AB".into(), value: Expr::konst(32, SEED_AB as u128), doc: "the a-to-b generator and checker start here".into() });
    items.push(Item::Localparam { name: "SEED_BA".into(), value: Expr::konst(32, SEED_BA as u128), doc: "the b-to-a generator and checker start here".into() });
    items.push(Item::Localparam { name: "LFSR_TAPS".into(), value: Expr::konst(32, 0x8020_0003), doc: "Galois taps of x^32+x^22+x^2+x+1".into() });
    localparam(&mut items, "LAST_BEAT", 4, (PACKET_BEATS - 1) as u64, "beat index of tlast in a packet");
    items.push(Item::Localparam { name: "ALL_BYTES".into(), value: ones(w / 8), doc: "tkeep of a full beat".into() });

    items.push(Item::comment("Buttons: a two-flop synchronizer each into a_clk, then the previous value for the rising edge."));
    let line_now = synchronizer(&mut items, "line_sync", id("inject_line"), 1, 2, &a, "inject_line, asynchronous to a_clk.");
    let data_now = synchronizer(&mut items, "data_sync", id("inject_data"), 1, 2, &a, "inject_data, likewise.");
    items.push(Item::reg("line_prev", 1, "the synchronized inject_line one cycle before"));
    items.push(Item::reg("data_prev", 1, "the synchronized inject_data one cycle before"));
    items.push(Item::AlwaysFfOn { domain: a.clone(), reset: None, body: vec![set_id("line_prev", id(&line_now)), set_id("data_prev", id(&data_now))] });
    wire(&mut items, "line_edge", 1, "inject_line rose", and(id(&line_now), id("line_prev").not()));
    wire(&mut items, "data_edge", 1, "inject_data rose", and(id(&data_now), id("data_prev").not()));

    let ab = Direction { name: "ab", from: "a", to: "b", seed: "SEED_AB", tx: &a, rx: &b };
    let ba = Direction { name: "ba", from: "b", to: "a", seed: "SEED_BA", tx: &b, rx: &a };
    let pending = if_else(id("data_edge"), vec![set_id("data_pending", Expr::one())], vec![when(id("ab_gen_take"), vec![set_id("data_pending", Expr::zero())])]);
    let ab_last = generator(&mut items, &ab, w, Some(("data_pending", pending)));
    let ba_last = generator(&mut items, &ba, w, None);
    wire(&mut items, "a_s_axis_tlast", 1, "the a-to-b beat ends a packet", ab_last);
    wire(&mut items, "b_s_axis_tlast", 1, "the b-to-a beat ends a packet", ba_last);
    cable(&mut items, &ab, lines, Some((line_error(lines, flip_bit(lines)), "line_pending")));
    cable(&mut items, &ba, lines, None);
    node(&mut items, n, "a", &a, &b, &free, "ba");
    node(&mut items, n, "b", &b, &a, &free, "ab");
    checker(&mut items, &ab, w);
    checker(&mut items, &ba, w);
    let mut module = Module { name: top_name(n.node), ports: top_ports(n.reset, n.level_bits, lines), items, reset: Some(n.reset) };
    crate::hw::tidy::tidy(&mut module);
    module
}

/// The demo top's file: the shared module banner (the node's block and parameters), then the
/// module.
pub fn top_text(n: &PairNode) -> String {
    let prov = super::banner::Provenance { design: n.design, block: n.block, block_kind: "rifl", kind: "rifl", params: n.params, shared_by: &[], regenerate: n.regenerate };
    super::banner::module_file(&top_module(n), None, &top_summary(n), &top_notes(), &prov)
}

/// The deepest CDC FIFO level the testbench accepts: what the compensation guarantees at these
/// clocks (a write and a read in flight through the synchronizers, the compensation's reaction,
/// sampling noise).
pub const PEAK_LIMIT: u32 = 10;

/// a_clk cycles of each testbench phase.
pub const TB_WARMUP: u32 = 4000;
pub const TB_PHASE: u32 = 3000;

/// The self-checking testbench (`--binary --timing` in Verilator): a_clk of period 10000 time
/// units, b_clk 100 ppm slower (10001), free_clk 16000; three phases, each line `DEMO phase=…
/// key=value …`, then `DEMO PASS` or `$fatal` with the failed expectation.
pub fn tb_text(n: &PairNode) -> String {
    let top = top_name(n.node);
    let tb = tb_name(n.node);
    let [a, b, free] = domains(n.reset);
    let (on, off) = if n.reset.active_low() { ("1'b0", "1'b1") } else { ("1'b1", "1'b0") };
    let lb = n.level_bits;
    let mut s = String::from("// =============================================================================\n");
    s += &format!("// {tb}\n// Generated by {} -- generated file: do not edit.\n// Regenerate with: {}\n//\n", crate::GENERATOR, n.regenerate);
    s += &format!("// Design : {}\n// Demo of: {} (two copies on unrelated clocks)\n//\n", n.design, n.node);
    for l in [
        format!("Self-checking testbench of {top} (Verilator --binary --timing, or any simulator with"),
        "delays): a_clk of period 10000 time units, b_clk 100 ppm slower (10001), free_clk 16000.".into(),
        "A clean run (both directions deliver, no error, CDC FIFOs shallow), one line error on the".into(),
        "a-to-b cable that b must detect and a repair (no delivered beat wrong), one data error in".into(),
        "a's stream the b checker must count. One DEMO line per phase, then DEMO PASS.".into(),
    ] {
        s += &format!("// {l}\n");
    }
    s += "// =============================================================================\n`default_nettype none\n\n";
    s += &format!(
        "module {tb};

    localparam integer WARMUP     = {warm}; // a_clk cycles of the clean run
    localparam integer PHASE      = {phase}; // a_clk cycles after each injection
    localparam [{lh}:0] PEAK_LIMIT = {lb}'d{peak}; // deepest CDC FIFO level the compensation allows

    reg          {ac} = 1'b0;
    reg          {bc} = 1'b0;
    reg          {fc} = 1'b0;
    reg          {ar} = {on};
    reg          {br} = {on};
    reg          {fr} = {on};
    reg          inject_line = 1'b0;
    reg          inject_data = 1'b0;
    wire         a_link_up;
    wire         b_link_up;
    wire [31:0]  ab_beats_ok;
    wire [15:0]  ab_data_errors;
    wire [31:0]  ba_beats_ok;
    wire [15:0]  ba_data_errors;
    wire [31:0]  a_frame_errors;
    wire [31:0]  b_frame_errors;
    wire         a_retrans_seen;
    wire         b_retrans_seen;
    wire         a_pause_seen;
    wire         b_pause_seen;
    wire [{lh}:0]   ab_cdc_peak;
    wire [{lh}:0]   ba_cdc_peak;
    wire         ab_cdc_overflow;
    wire         ba_cdc_overflow;
    reg  [31:0]  ab_before; // ab_beats_ok at the start of a phase

    {top} dut (
        .{ac:<14} ({ac}),
        .{ar:<14} ({ar}),
        .{bc:<14} ({bc}),
        .{br:<14} ({br}),
        .{fc:<14} ({fc}),
        .{fr:<14} ({fr}),
        .inject_line    (inject_line),
        .inject_data    (inject_data),
        .a_link_up      (a_link_up),
        .b_link_up      (b_link_up),
        .ab_beats_ok    (ab_beats_ok),
        .ab_data_errors (ab_data_errors),
        .ba_beats_ok    (ba_beats_ok),
        .ba_data_errors (ba_data_errors),
        .a_frame_errors (a_frame_errors),
        .b_frame_errors (b_frame_errors),
        .a_retrans_seen (a_retrans_seen),
        .b_retrans_seen (b_retrans_seen),
        .a_pause_seen   (a_pause_seen),
        .b_pause_seen   (b_pause_seen),
        .ab_cdc_peak     (ab_cdc_peak),
        .ba_cdc_peak     (ba_cdc_peak),
        .ab_cdc_overflow (ab_cdc_overflow),
        .ba_cdc_overflow (ba_cdc_overflow)
    );

    // Unrelated clocks: b_clk 100 ppm slower than a_clk, free_clk their own.
    always #5000 {ac} <= ~{ac};
    always begin
        #5000 {bc} <= 1'b1;
        #5001 {bc} <= 1'b0;
    end
    always #8000 {fc} <= ~{fc};

    task automatic cycles(input integer n);
        repeat (n) @(posedge {ac});
    endtask

    task automatic report(input [8*6-1:0] phase);
        $display(\"DEMO phase=%0s a_link_up=%0d b_link_up=%0d ab_beats_ok=%0d ba_beats_ok=%0d ab_data_errors=%0d ba_data_errors=%0d a_frame_errors=%0d b_frame_errors=%0d a_retrans_seen=%0d b_retrans_seen=%0d ab_cdc_peak=%0d ba_cdc_peak=%0d overflow=%0d\",
                 phase, a_link_up, b_link_up, ab_beats_ok, ba_beats_ok, ab_data_errors, ba_data_errors, a_frame_errors, b_frame_errors,
                 a_retrans_seen, b_retrans_seen, ab_cdc_peak, ba_cdc_peak, ab_cdc_overflow | ba_cdc_overflow);
    endtask

    // inputs change on the falling edge of a_clk, away from its sampling edge
    task automatic press_line;
        @(negedge {ac}) inject_line = 1'b1;
        cycles(4);
        @(negedge {ac}) inject_line = 1'b0;
    endtask

    task automatic press_data;
        @(negedge {ac}) inject_data = 1'b1;
        cycles(4);
        @(negedge {ac}) inject_data = 1'b0;
    endtask

    // both links up, no data error either way, the CDC FIFOs shallow and never overflowed
    wire healthy = a_link_up && b_link_up && ab_data_errors == 16'd0 && ba_data_errors == 16'd0
                   && ab_cdc_peak <= PEAK_LIMIT && ba_cdc_peak <= PEAK_LIMIT && !ab_cdc_overflow && !ba_cdc_overflow;

    initial begin
        cycles(8);
        @(negedge {ac}) begin {ar} = {off}; {br} = {off}; {fr} = {off}; end
        cycles(WARMUP);
        report(\"clean\");
        if (!healthy || ab_beats_ok < 32'd1000 || ba_beats_ok < 32'd1000 || a_frame_errors != 32'd0 || b_frame_errors != 32'd0)
            $fatal(1, \"DEMO FAIL: clean run\");
        ab_before = ab_beats_ok;
        press_line;
        cycles(PHASE);
        report(\"line\");
        if (!healthy || b_frame_errors == 32'd0 || !a_retrans_seen || ab_beats_ok <= ab_before + 32'd100)
            $fatal(1, \"DEMO FAIL: the line error must be detected and repaired\");
        press_data;
        cycles(PHASE);
        report(\"data\");
        if (ab_data_errors != 16'd1 || ba_data_errors != 16'd0) $fatal(1, \"DEMO FAIL: the data error must be counted once\");
        $display(\"DEMO PASS\");
        $finish;
    end

endmodule

`default_nettype wire
",
        warm = TB_WARMUP,
        phase = TB_PHASE,
        peak = PEAK_LIMIT,
        ac = a.clock,
        bc = b.clock,
        fc = free.clock,
        ar = a.reset,
        br = b.reset,
        fr = free.reset,
        lh = lb - 1,
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(lanes: u32, reset: ResetStyle) -> PairNode<'static> {
        PairNode { design: "d", regenerate: "rtl-gen generate", node: "d_r", block: "r", params: &[], user_bits: 256 * lanes, line_bits: 256 * lanes, lanes, level_bits: 5, reset }
    }

    /// No signal passes between the top's three domains other than through the buttons'
    /// synchronizers (the nodes keep their own crossings).
    #[test]
    fn the_top_crosses_clock_domains_only_through_kit_cells() {
        for (lanes, reset) in [(1, ResetStyle::SyncHigh), (4, ResetStyle::AsyncLow)] {
            let m = top_module(&node(lanes, reset));
            assert_eq!(crate::hw::cdc::raw_crossings(&m), vec![], "{lanes} lanes, {reset:?}");
        }
    }

    /// Each node's lanes receive on the far node's clock and take its reset; each cable is
    /// clocked by its sender.
    #[test]
    fn each_node_receives_on_the_far_node_s_clock() {
        let text = top_module(&node(4, ResetStyle::SyncHigh)).render();
        let inst = |x: &str| text.split(&format!("node_{x} (")).nth(1).and_then(|t| t.split(");").next()).expect("instance").to_string();
        let (a, b) = (inst("a"), inst("b"));
        assert!(a.contains(".clk             (a_clk)") && a.contains(".rx_clk          ({4{b_clk}})") && a.contains(".rx_rst          ({4{b_rst}})") && a.contains("(ba_cable_q)"), "{a}");
        assert!(b.contains(".clk             (b_clk)") && b.contains(".rx_clk          ({4{a_clk}})") && b.contains(".rx_rst          ({4{a_rst}})") && b.contains("(ab_cable_q)"), "{b}");
        let cable = |q: &str| text.split(&format!("{q} <=")).next().and_then(|t| t.rsplit("always @(posedge ").next()).map(|t| t.split(')').next().unwrap_or("").to_string());
        assert_eq!(cable("ab_cable_q").as_deref(), Some("a_clk"));
        assert_eq!(cable("ba_cable_q").as_deref(), Some("b_clk"));
    }
}
