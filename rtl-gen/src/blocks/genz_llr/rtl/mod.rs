//! The `genz_llr` interface module, in sections over the `hw` kit: [`ports`], the CRC maps
//! ([`crc`]), the receiver ([`rx`]: input stage with the CRC syndromes, packet checks, receive
//! FIFO and delivery, the received link-local packet), acknowledgement and replay control
//! ([`control`]: what a received link-local packet does, the link state, timers and the
//! physical layer) and the transmitter ([`tx`]: retry-buffer write side with credits, send
//! side with the link output register and the link-local packet builder).
//!
//! Every section states the next values of its registers in the reference model's order
//! ([`super::model::LlrModel::tick`]), into one description that [`RegGroups`] prints as one
//! `always @*` and one `always @(posedge clk)` per register group. What would be a long path
//! is computed a cycle ahead from registered operands (comparisons of sequence numbers and
//! epochs, the receive beat's first/fits flags), the CRC networks run on the arriving beat and
//! register their syndromes, and the link-local packet's CRC is computed from its registered
//! body while its first beat is on the link, so no path has more than five LUT6 levels.

mod control;
mod crc;
pub mod ports;
mod rx;
mod tx;

use super::model::{LlrConfig, COUNTERS, LINK_DOWN, LINK_INIT, LINK_UP, OP_ACK, OP_CLEAR, OP_DISCARD, OP_EXIT, OP_FC, OP_INIT, OP_INIT_ACK};
use super::GenzLlrBlock;
use crate::hw::build::{bits_for, cat, counter, id, localparam, set, wire};
use crate::hw::groups::{next, GroupId, RegGroups};
use crate::hw::module::{GeneratedModule, Role};
use crate::hw::verilog::{Expr, Item, Module, Stmt, UnOp};
use crate::info::DesignInfo;
use crate::math::gf2::BitVec;

/// The link-local opcodes: localparam name, value, doc.
pub(super) const OPCODES: [(&str, u8, &str); 7] = [
    ("OP_INIT", OP_INIT, "LL opcode: LLR Init"),
    ("OP_INIT_ACK", OP_INIT_ACK, "LL opcode: LLR Init ACK"),
    ("OP_FC", OP_FC, "LL opcode: flow control"),
    ("OP_ACK", OP_ACK, "LL opcode: LLR ACK"),
    ("OP_DISCARD", OP_DISCARD, "LL opcode: LLR Discard"),
    ("OP_CLEAR", OP_CLEAR, "LL opcode: LLR Clear Discard"),
    ("OP_EXIT", OP_EXIT, "LL opcode: LLR Exit Discard"),
];

/// The register groups, in the order they are printed.
pub(super) struct Groups {
    pub link: GroupId,
    pub timers: GroupId,
    pub pending: GroupId,
    pub write: GroupId,
    pub seq: GroupId,
    pub out: GroupId,
    pub rx_in: GroupId,
    pub rx: GroupId,
    pub rx_ll: GroupId,
    pub events: GroupId,
}

/// What every section shares: the configuration's widths, the register groups, the wires and
/// the next-state description.
pub(super) struct Ctx<'a> {
    pub cfg: &'a LlrConfig,
    /// Bytes and bits of a beat.
    pub d: u32,
    pub dw: u32,
    /// VC bits, VCs.
    pub vb: u32,
    pub vcs: u32,
    /// Beats of a maximum EE packet and of an LL packet; beat-index bits of each.
    pub mb: u32,
    pub llb: u32,
    pub bb: u32,
    pub llbw: u32,
    /// Slot bits and slots of the retry buffer; whether slots are the low sequence bits.
    pub sb: u32,
    pub slots: u32,
    pub seq_slots: bool,
    /// The retry RAM keeps each beat's last flag; otherwise the packet's end comes from
    /// `slot_last` (at most [`tx::SLOT_LAST_MAX`] slots) or every packet is one beat, so no
    /// control path starts at the RAM's data output.
    pub ram_last: bool,
    /// Receive FIFO address bits, the width of a word's flags {vc, last}, the receive beat
    /// counter's width.
    pub ra: u32,
    pub fw: u32,
    pub rbw: u32,
    /// Timer widths: Init, Discard, LLR timer; Discard count; ACK count.
    pub w_init: u32,
    pub w_disc: u32,
    pub w_llrt: u32,
    pub w_dsc: u32,
    pub w_sa: u32,
    pub g: Groups,
    pub regs: RegGroups,
    pub wires: Vec<Item>,
    pub next: Vec<Stmt>,
}

impl Ctx<'_> {
    pub fn wire(&mut self, name: &str, width: u32, doc: &str, value: Expr) {
        wire(&mut self.wires, name, width, doc, value);
    }
    pub fn comment(&mut self, text: &str) {
        self.wires.push(Item::comment(text));
    }
    pub fn step(&mut self, s: Stmt) {
        self.next.push(s);
    }
    pub fn section(&mut self, text: &str) {
        self.next.push(Stmt::Comment(text.into()));
    }
    /// The received link-local packet with opcode `op` is acted on this cycle.
    pub fn got(&self, op: u8) -> Expr {
        crate::hw::build::and(id("rx_ll_valid"), Expr::bit("rx_ll_op_hot", op as u32 - 1))
    }
    /// Width of a retry RAM word.
    pub fn tx_word(&self) -> u32 {
        self.dw + self.ram_last as u32
    }
    /// `name` of VC `v`.
    pub fn vc(name: &str, v: u32) -> String {
        format!("{name}{v}")
    }
}

fn localparams(c: &Ctx) -> Vec<Item> {
    let cfg = c.cfg;
    let mut it = vec![];
    localparam(&mut it, "LINK_DOWN", 2, LINK_DOWN as u64, "llr_state[1:0]: phy_up low");
    localparam(&mut it, "LINK_INIT", 2, LINK_INIT as u64, "llr_state[1:0]: sending LLR Init until Init ACK");
    localparam(&mut it, "LINK_UP", 2, LINK_UP as u64, "llr_state[1:0]: Init exchange done");
    localparam(&mut it, "NOACK_LAST", 2, 3, "LLR timer expiries without an ACK before a retrain, minus 1");
    localparam(&mut it, "STALL_LAST", 2, 2, "expiries without progress before a timer retransmission, minus 1");
    for (name, v, doc) in OPCODES {
        localparam(&mut it, name, 8, v as u64, doc);
    }
    if !c.seq_slots {
        // Power-of-two slot counts index slots by sequence-number bits and need no modulus.
        localparam(&mut it, "SLOTS", 17, c.slots as u64, "retry-buffer slots (one maximum packet each)");
    }
    localparam(&mut it, "BEAT_LAST", c.bb, (c.mb - 1) as u64, "beat index of the last beat of a maximum EE packet");
    localparam(&mut it, "LL_LAST", c.rbw, (c.llb - 1) as u64, "beat index of the last beat of a link-local packet");
    localparam(&mut it, "INIT_RELOAD", c.w_init, (cfg.init_cycles - 1) as u64, "init_interval_ui / ui_per_cycle - 1");
    localparam(&mut it, "DISC_RELOAD", c.w_disc, (cfg.discard_cycles - 1) as u64, "discard_interval_ui / ui_per_cycle - 1");
    localparam(&mut it, "LLRT_RELOAD", c.w_llrt, (cfg.llrt_cycles - 1) as u64, "llrt_ui / ui_per_cycle - 1");
    localparam(&mut it, "DISCARD_LIMIT", c.w_dsc, cfg.discard_limit as u64, "Discards without Clear Discard before a retrain");
    localparam(&mut it, "ACK_LAST", c.w_sa, (cfg.ack_every - 1) as u64, "ack_every - 1");
    localparam(&mut it, "RX_BEAT_MAX", c.rbw, cfg.rx_beat_max() as u64, "saturation of the receive beat counter");
    if !c.vcs.is_power_of_two() {
        localparam(&mut it, "VC_LIMIT", 3, c.vcs as u64, "VCs");
    }
    localparam(&mut it, "RX_CREDITS", 8, cfg.rx_credits as u64, "receive credits per VC");
    let cb = cfg.counter_bits;
    let cnt_max = Expr::Const(BitVec::from_u128(cb as usize, if cb >= 128 { u128::MAX } else { (1u128 << cb) - 1 }));
    it.push(Item::Localparam { name: "CNT_MAX".into(), value: cnt_max, doc: "counter saturation".into() });
    it
}

/// The pulse that raises status counter `name` (`cnt_acks_sent` -> `inc_acks_sent`).
pub(super) fn inc(counter: &str) -> String {
    format!("inc_{}", &counter[4..])
}

pub fn interface(b: &GenzLlrBlock, design: &DesignInfo) -> GeneratedModule {
    let cfg = &b.cfg;
    let d = cfg.data_bytes;
    let mut regs = RegGroups::new();
    let g = Groups {
        link: regs.group("Link state and epochs"),
        timers: regs.group("Timers and acknowledgement progress"),
        pending: regs.group("Link-local packets waiting to be sent"),
        write: regs.group("Retry buffer write side and credits"),
        seq: regs.group("Sequence numbers: head, acknowledged point, send point"),
        out: regs.group("Link output register and the link-local packet being sent"),
        rx_in: regs.group("Receive input stage: the arriving beat with its CRC state and syndromes"),
        rx: regs.group("Receive checks, receive FIFO and delivery"),
        rx_ll: regs.group("The received link-local packet, with its compares for the next cycle"),
        events: regs.group("Events of this cycle (status counter increments, registered for the counters; retrain request)"),
    };
    let mut c = Ctx {
        cfg,
        d,
        dw: 8 * d,
        vb: cfg.vc_bits(),
        vcs: cfg.vcs,
        mb: cfg.max_beats(),
        llb: cfg.ll_beats(),
        bb: cfg.beat_bits(),
        llbw: bits_for((cfg.ll_beats() - 1) as u64),
        sb: cfg.slot_bits(),
        slots: cfg.slots(),
        seq_slots: cfg.slots().is_power_of_two() && cfg.slots() >= 2,
        ram_last: cfg.beat_bits() > 0 && cfg.slots() > tx::SLOT_LAST_MAX,
        ra: cfg.rx_addr_bits(),
        fw: 1 + cfg.vc_bits(),
        rbw: bits_for(cfg.rx_beat_max() as u64),
        w_init: bits_for((cfg.init_cycles - 1) as u64),
        w_disc: bits_for((cfg.discard_cycles - 1) as u64),
        w_llrt: bits_for((cfg.llrt_cycles - 1) as u64),
        w_dsc: bits_for(cfg.discard_limit as u64),
        w_sa: bits_for((cfg.ack_every - 1) as u64),
        g,
        regs,
        wires: vec![],
        next: vec![],
    };
    for cn in COUNTERS {
        c.regs.pulse(c.g.events, &inc(cn), 1, "");
        c.regs.reg(c.g.events, &format!("{}_q", inc(cn)), 1, "");
    }
    c.regs.pulse(c.g.events, "retrain_req", 1, "a retrain is requested this cycle");

    control::declare(&mut c);
    tx::declare(&mut c);
    rx::declare(&mut c);

    // The sections, in the reference model's order.
    rx::input_stage(&mut c);
    rx::checks(&mut c);
    rx::delivery(&mut c);
    control::received_ll(&mut c);
    control::timers(&mut c);
    tx::write_side(&mut c);
    tx::send_side(&mut c);
    control::physical_layer(&mut c);
    c.section("The status counters count this cycle's events at the next edge (registered increments).");
    for cn in COUNTERS {
        c.step(crate::hw::groups::set_next(&format!("{}_q", inc(cn)), id(&inc(cn))));
    }

    let mut items = localparams(&c);
    items.extend(c.regs.declarations());
    items.extend(rams(&c));
    let mut cregs = vec![];
    let (mut creset, mut cbody) = (vec![], vec![]);
    for cn in COUNTERS {
        counter(&mut cregs, &mut creset, &mut cbody, &format!("{cn}_q"), cfg.counter_bits, id(&format!("{}_q", inc(cn))), id("CNT_MAX"), "");
    }
    items.extend(cregs);
    items.append(&mut c.wires);
    items.extend(c.regs.blocks(&c.next));
    items.push(Item::comment("Status counters (saturating)."));
    items.push(Item::AlwaysFf { reset: Some(creset), body: cbody });
    items.extend(ram_blocks(&c));
    items.extend(outputs(&c));
    items.push(super::props::properties(b, design));

    GeneratedModule {
        module: Module { name: format!("{}{}", design.prefix, b.name), ports: ports::ports(cfg, design), items, reset: Some(design.reset) },
        latency: 3,
        summary: format!(
            "Gen-Z link-level reliability, one interface ({} VCs, {}-byte beats): EE packets numbered implicitly (16-bit TSEQ/RSEQ) and kept in a {}-slot retry buffer until acknowledged, LLR Init exchange, Discard / Clear Discard / Exit Discard recovery, LLR timer ACKs, {}receive credits per VC.",
            cfg.vcs,
            d,
            c.slots,
            if cfg.ecrc_check { "ECRC check, " } else { "" }
        ),
        notes: notes(cfg),
        role: Role::Interface,
        origin: None,
    }
}

/// The retry buffer and the receive FIFO, with their read registers. The receive FIFO keeps a
/// word's flags {vc, last} beside the block RAM, in a small array read at registered addresses:
/// the delivery logic (credits, ACK count) reads them from a register, never from the block
/// RAM's output, whose clock-to-out (5.8 ns on ECP5 without its output register) leaves no time
/// for logic at 125 MHz. Only the beat itself comes from the RAM, straight to `m_axis_tdata`.
fn rams(c: &Ctx) -> Vec<Item> {
    vec![
        Item::comment("Retry buffer and receive FIFO (block RAM, registered read)."),
        Item::Memory { name: "tx_ram".into(), width: c.tx_word(), depth: c.cfg.retry_words(), doc: if c.ram_last { "retry buffer: {last, beat} at {slot, beat}" } else { "retry buffer: the beat at {slot, beat}" }.into() },
        Item::reg("tx_q", c.tx_word(), "retry RAM read register: word {send_slot, send_beat}"),
        Item::Memory { name: "rx_ram".into(), width: c.dw, depth: 1 << c.ra, doc: "receive FIFO: the beat".into() },
        Item::reg("rx_q", c.dw, "receive RAM read register: the beat of word rx_rd"),
        Item::comment("Receive FIFO flags (read at the registered pointer and the one after it: no block RAM)."),
        Item::Memory { name: "rx_flags".into(), width: c.fw, depth: 1 << c.ra, doc: "receive FIFO: {vc, last} of each word".into() },
        Item::reg("rx_q_flags", c.fw, "{vc, last} of word rx_rd, registered with rx_q"),
    ]
}

fn ram_blocks(c: &Ctx) -> Vec<Item> {
    // One slot: the RAM holds one packet and its index is the beat alone.
    let slot_addr = |slot: Expr, beat: Expr| if c.slots == 1 { beat } else { cat(vec![slot, beat]) };
    let tx_addr = slot_addr(next("send_slot"), next("send_beat"));
    let rx_addr = Expr::slice("rx_rd_n", c.ra - 1, 0);
    let body = vec![
        Stmt::Comment("Block RAM inference pattern: registered read (read-first), write enable, no reset.".into()),
        crate::hw::build::when(id("tx_we"), vec![set(Expr::Index("tx_ram".into(), Box::new(slot_addr(id("head_slot"), id("wr_beat")))), if c.ram_last { cat(vec![id("tx_wlast"), id("s_axis_tdata")]) } else { id("s_axis_tdata") })]),
        set(id("tx_q"), Expr::Index("tx_ram".into(), Box::new(tx_addr))),
        crate::hw::build::when(id("rx_write"), vec![set(Expr::Index("rx_ram".into(), Box::new(Expr::slice("rx_wr", c.ra - 1, 0))), id("rx_in_data"))]),
        set(id("rx_q"), Expr::Index("rx_ram".into(), Box::new(rx_addr))),
    ];
    // The flags of word rx_rd_n as the RAM would read them (read-first): rx_rd_n is rx_rd or,
    // when m_axis takes a beat, the word after it.
    let flags = vec![
        Stmt::Comment("Receive FIFO flags: the same write, and word rx_rd_n's flags into rx_q_flags (read-first, like the RAM).".into()),
        crate::hw::build::when(id("rx_write"), vec![set(Expr::Index("rx_flags".into(), Box::new(Expr::slice("rx_wr", c.ra - 1, 0))), cat(vec![id("rx_vc_now"), id("rx_in_last")]))]),
        set(id("rx_q_flags"), crate::hw::build::mux(id("m_fire"), id("rx_flags_after"), id("rx_flags_at"))),
    ];
    vec![
        Item::comment("Retry buffer and receive FIFO: writes and registered reads."),
        Item::AlwaysFf { reset: None, body },
        Item::wire("rx_rd_after", c.ra, "the receive FIFO word after rx_rd"),
        Item::assign(id("rx_rd_after"), crate::hw::build::add(Expr::slice("rx_rd", c.ra - 1, 0), crate::hw::build::dec(c.ra, 1))),
        Item::wire("rx_flags_at", c.fw, "flags of word rx_rd"),
        Item::assign(id("rx_flags_at"), Expr::Index("rx_flags".into(), Box::new(Expr::slice("rx_rd", c.ra - 1, 0)))),
        Item::wire("rx_flags_after", c.fw, "flags of the word after it"),
        Item::assign(id("rx_flags_after"), Expr::Index("rx_flags".into(), Box::new(id("rx_rd_after")))),
        Item::AlwaysFf { reset: None, body: flags },
    ]
}

fn outputs(c: &Ctx) -> Vec<Item> {
    let (d, vb, fw) = (c.d, c.vb, c.fw);
    let mut items = vec![Item::comment("Outputs.")];
    items.push(Item::pragma("verilator lint_off UNUSED"));
    wire(&mut items, "tkeep_unused", 1, "tkeep inputs are not looked at (whole beats)", Expr::red(UnOp::RedXor, cat(vec![id("s_axis_tkeep"), id("s_axis_link_tkeep")])));
    items.push(Item::pragma("verilator lint_on UNUSED"));
    let ones = Expr::Const(BitVec::from_u128(d as usize, (1u128 << d) - 1));
    for (p, e) in [
        ("s_axis_tready", id("s_ready")),
        ("m_axis_tdata", id("rx_q")),
        ("m_axis_tkeep", ones.clone()),
        ("m_axis_tlast", Expr::bit("rx_q_flags", 0)),
        ("m_axis_tuser", if vb == 1 { Expr::bit("rx_q_flags", 1) } else { Expr::slice("rx_q_flags", fw - 1, 1) }),
        ("m_axis_tvalid", id("m_valid")),
        ("m_axis_link_tdata", id("out_data")),
        ("m_axis_link_tkeep", ones),
        ("m_axis_link_tlast", id("out_last")),
        ("m_axis_link_tuser", id("out_user")),
        ("m_axis_link_tvalid", id("link_valid")),
        ("s_axis_link_tready", Expr::one()),
        ("retrain", id("retrain_pulse")),
        ("llr_state", cat(vec![id("tx_stop"), id("rx_disc"), id("tx_en"), id("link")])),
    ] {
        items.push(Item::assign(id(p), e));
    }
    for cn in COUNTERS {
        items.push(Item::assign(id(cn), id(&format!("{cn}_q"))));
    }
    items
}

fn notes(cfg: &LlrConfig) -> Vec<String> {
    vec![
        format!("Timers in cycles (UI / ui_per_cycle = {}): Init every {}, Discard and Clear Discard every {}, LLR timer {} cycles.", cfg.ui_per_cycle, cfg.init_cycles, cfg.discard_cycles, cfg.llrt_cycles),
        "Link-local packet, 16 bytes, byte 0 first, tuser = 1 on every beat: [0] opcode (1 Init, 2 Init ACK, 3 FC, 4 ACK, 5 Discard, 6 Clear Discard, 7 Exit Discard), [1:2] TSEQ MSB first, [3:4] RSEQ MSB first, [5:8] delivered packets per VC mod 256 (credits), [9] epoch of the sender, [10] echo (the epoch an Init ACK / FC / Exit Discard answers), [11] bit 0: the sender's EE transmission is enabled, [12:15] CRC-32/ISO-HDLC of bytes 0-11 XOR 0x4C4C5231, LSB first.".into(),
        "EE packets: whole beats, unchanged on the link (tuser = 0), last 4 bytes the ECRC (CRC-32/ISO-HDLC of the rest, LSB first); VC = byte 0 [vc_bits-1:0] at the receiver.".into(),
        "llr_state: [1:0] 0 down / 1 init / 2 up, [2] EE transmission enabled, [3] receiver discarding, [4] transmitter stopped awaiting Exit Discard.".into(),
        "Latency: an EE packet's last beat on s_axis reaches the link 3 cycles later at the earliest (retry RAM write, visibility register, RAM read); a received EE packet is presented on m_axis 3 cycles after its last beat (receive input register with the CRC syndromes, commit, visibility; RAM read-first), and a received link-local packet is acted on 2 cycles after its last beat. The status counters show an event one cycle after it (registered increments).".into(),
    ]
}
