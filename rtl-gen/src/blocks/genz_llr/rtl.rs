//! The `genz_llr` interface module: every register of [`super::model::Regs`] as a register
//! `x` with its next value `x_n`, computed in one `always @*` block in the model's order (so
//! the two read alike), the two RAMs in the block-RAM inference pattern, the CRC-32 networks as
//! masked parities derived from the model's CRC step.

use super::model::{crc32_step, LlrConfig, LINK_DOWN, LINK_INIT, LINK_UP, LL_BYTES, LL_CRC_XOR, OP_ACK, OP_CLEAR, OP_DISCARD, OP_EXIT, OP_FC, OP_INIT, OP_INIT_ACK};
use super::GenzLlrBlock;
use crate::info::DesignInfo;
use crate::hw::build::{add, all, and, any, bits_for, cat, counter, dec, eq, ge, id, if_else, le, localparam, lt, mux, ne, or, set_id, sub, when, wire, zeros};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};
use crate::hw::xor_net::{self, XorNet, XorStyle};
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};

/// The affine map of `f` over `inputs` bits (probed: f is affine over GF(2)).
fn probe(inputs: usize, f: impl Fn(&BitVec) -> u32) -> AffineMap {
    let c = f(&BitVec::zeros(inputs));
    let mut rows = vec![BitVec::zeros(inputs); 32];
    for k in 0..inputs {
        let v = f(&BitVec::unit(inputs, k)) ^ c;
        for (r, row) in rows.iter_mut().enumerate() {
            if v >> r & 1 == 1 {
                row.set(k, true);
            }
        }
    }
    AffineMap { matrix: BitMatrix::from_rows(inputs, rows), constant: BitVec::from_u128(32, c as u128) }
}

fn bytes_of(v: &BitVec, lo_bit: usize, n: usize) -> Vec<u8> {
    (0..n).map(|i| (0..8).fold(0u8, |b, j| b | (v.get(lo_bit + 8 * i + j) as u8) << j)).collect()
}

/// `{data (bytes bytes), reg (32 bits)}` -> the CRC register after the bytes (`finish`: inverted).
fn crc_map(bytes: usize, finish: bool) -> AffineMap {
    probe(32 + 8 * bytes, |v| {
        let reg = (0..32).fold(0u32, |r, k| r | (v.get(k) as u32) << k);
        let s = crc32_step(reg, &bytes_of(v, 32, bytes));
        if finish {
            !s
        } else {
            s
        }
    })
}

/// 12 bytes -> their LL CRC.
fn ll_crc_map() -> AffineMap {
    probe(96, |v| !crc32_step(0xFFFF_FFFF, &bytes_of(v, 0, 12)) ^ LL_CRC_XOR)
}

/// `{beat (bytes bytes), crc register before it (32 bits)}` -> the ECRC syndrome of a last
/// beat: the CRC of the packet up to its last 4 bytes XOR those 4 bytes (zero: the ECRC passes).
fn ecrc_syndrome_map(bytes: usize) -> AffineMap {
    probe(32 + 8 * bytes, |v| {
        let reg = (0..32).fold(0u32, |r, k| r | (v.get(k) as u32) << k);
        let b = bytes_of(v, 32, bytes);
        !crc32_step(reg, &b[..bytes - 4]) ^ u32::from_le_bytes([b[bytes - 4], b[bytes - 3], b[bytes - 2], b[bytes - 1]])
    })
}

/// 16 bytes -> the LL CRC syndrome: the LL CRC of bytes 0-11 XOR bytes 12-15 (zero: it passes).
fn ll_syndrome_map() -> AffineMap {
    probe(128, |v| {
        let b = bytes_of(v, 0, 16);
        !crc32_step(0xFFFF_FFFF, &b[..12]) ^ LL_CRC_XOR ^ u32::from_le_bytes([b[12], b[13], b[14], b[15]])
    })
}

/// Syndrome bits OR-ed in groups of six (one LUT each): the registered difference flags.
const SYN_GROUP: u32 = 6;
fn syn_groups() -> u32 {
    32_u32.div_ceil(SYN_GROUP)
}
fn group_or(syn: &str) -> Expr {
    let mut parts = vec![];
    for g in (0..syn_groups()).rev() {
        let lo = g * SYN_GROUP;
        let hi = (lo + SYN_GROUP - 1).min(31);
        parts.push(Expr::red(crate::hw::verilog::UnOp::RedOr, Expr::slice(syn, hi, lo)));
    }
    cat(parts)
}

/// Registers: name, width, what it holds. Each gets `name_n` and is loaded from it every cycle.
struct Regs {
    list: Vec<(String, u32, String)>,
}

impl Regs {
    fn add(&mut self, name: &str, w: u32, doc: &str) {
        self.list.push((name.to_string(), w, doc.to_string()));
    }
}

fn n(x: &str) -> Expr {
    id(&format!("{x}_n"))
}
fn setn(x: &str, e: Expr) -> Stmt {
    set_id(&format!("{x}_n"), e)
}

pub fn interface(b: &GenzLlrBlock, design: &DesignInfo) -> GeneratedModule {
    let cfg = &b.cfg;
    let d = cfg.data_bytes;
    let dw = 8 * d;
    let vb = cfg.vc_bits();
    let vcs = cfg.vcs;
    let mb = cfg.max_beats();
    let llb = cfg.ll_beats();
    let bb = cfg.beat_bits();
    let sb = cfg.slot_bits();
    let slots = cfg.slots();
    let ra = cfg.rx_addr_bits();
    let cb = cfg.counter_bits;
    let ww = dw + 1 + vb; // RAM word {vc, last, data}
    let llbw = bits_for((llb - 1) as u64);
    let rbw = bits_for(cfg.rx_beat_max() as u64);
    let w_init = bits_for((cfg.init_cycles - 1) as u64);
    let w_disc = bits_for((cfg.discard_cycles - 1) as u64);
    let w_llrt = bits_for((cfg.llrt_cycles - 1) as u64);
    let w_dsc = bits_for(cfg.discard_limit as u64);
    let w_sa = bits_for((cfg.ack_every - 1) as u64);
    let llbuf_w = 8 * LL_BYTES as u32 - dw;
    // Power-of-two slot counts (two or more): a slot index is the low bits of its sequence number.
    let seq_slots = slots.is_power_of_two() && slots >= 2;

    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("s_axis_tdata", dw, "EE packet beat from the upper layer; byte i at [8i+7:8i], byte 0 first"),
        Port::input("s_axis_tkeep", d, "must be all ones (EE packets are whole beats); not looked at"),
        Port::input("s_axis_tlast", 1, "last beat of the EE packet (its last 4 bytes are the ECRC)"),
        Port::input("s_axis_tuser", vb, "VC of the packet (sampled on its first beat; must equal byte 0 [vc_bits-1:0])"),
        Port::input("s_axis_tvalid", 1, "a beat is offered"),
        Port::output("s_axis_tready", 1, "taken: mid-packet always; a new packet needs a free retry slot and a credit for its VC"),
        Port::output("m_axis_tdata", dw, "delivered EE beat (only packets whose ECRC passed, exactly once, in order)"),
        Port::output("m_axis_tkeep", d, "all ones"),
        Port::output("m_axis_tlast", 1, "last beat of the EE packet"),
        Port::output("m_axis_tuser", vb, "VC of the packet (byte 0 [vc_bits-1:0])"),
        Port::output("m_axis_tvalid", 1, "a delivered beat is presented"),
        Port::input("m_axis_tready", 1, "the upper layer takes it"),
        Port::output("m_axis_link_tdata", dw, "beat to the PHY framing layer"),
        Port::output("m_axis_link_tkeep", d, "all ones"),
        Port::output("m_axis_link_tlast", 1, "last beat of an EE or link-local packet"),
        Port::output("m_axis_link_tuser", 1, "1 on every beat of a link-local packet, 0 on EE beats"),
        Port::output("m_axis_link_tvalid", 1, "a beat is presented: the output register's valid AND phy_up (combinational in phy_up, so low in every cycle phy_up is low; no beat is taken then)"),
        Port::input("m_axis_link_tready", 1, "the PHY takes it"),
        Port::input("s_axis_link_tdata", dw, "beat from the PHY framing layer"),
        Port::input("s_axis_link_tkeep", d, "must be all ones; not looked at"),
        Port::input("s_axis_link_tlast", 1, "last beat of a packet"),
        Port::input("s_axis_link_tuser", 1, "link-local marker (checked: the same on every beat of a packet)"),
        Port::input("s_axis_link_tvalid", 1, "a beat arrives"),
        Port::output("s_axis_link_tready", 1, "always 1: the receiver never stalls the link"),
        Port::input("phy_up", 1, "the physical layer is trained; low: link down, Init again when high"),
        Port::input("phy_error", 1, "pulse: an error that resynchronises the link (or a lost packet): LLR error recovery"),
        Port::output("retrain", 1, "pulse: request a physical retrain (Discard limit, or 4 LLR timer periods without ACK)"),
        Port::output("llr_state", 5, "[1:0] 0 down / 1 init / 2 up, [2] EE transmission enabled (FC received), [3] receiver discarding, [4] transmitter stopped (awaiting Exit Discard)"),
    ]);
    let counter_docs = [
        "EE packets transmitted the first time (counted when the PHY first takes the last beat)",
        "EE packets retransmitted (their last beat taken again)",
        "EE packets delivered on m_axis",
        "EE packets failing the ECRC",
        "LLR Discards sent",
        "LLR Discards received",
        "LLR Clear Discards sent",
        "LLR Exit Discards sent",
        "LLR ACKs sent",
        "LLR ACKs received",
        "LLR Inits sent",
        "retrains requested",
        "timer-driven retransmissions (3 LLR timer periods unacknowledged)",
    ];
    for (name, doc) in super::model::COUNTERS.iter().zip(counter_docs) {
        ports.push(Port::output(name, cb, &format!("{doc} (saturating)")));
    }

    let mut it: Vec<Item> = vec![];
    let link_down = localparam(&mut it, "LINK_DOWN", 2, LINK_DOWN as u64, "llr_state[1:0]: phy_up low");
    let link_init = localparam(&mut it, "LINK_INIT", 2, LINK_INIT as u64, "llr_state[1:0]: sending LLR Init until Init ACK");
    let link_up = localparam(&mut it, "LINK_UP", 2, LINK_UP as u64, "llr_state[1:0]: Init exchange done");
    let noack_last = localparam(&mut it, "NOACK_LAST", 2, 3, "LLR timer expiries without an ACK before a retrain, minus 1");
    let stall_last = localparam(&mut it, "STALL_LAST", 2, 2, "expiries without progress before a timer retransmission, minus 1");
    let ops: Vec<(&str, u8, &str)> = vec![
        ("OP_INIT", OP_INIT, "LL opcode: LLR Init"),
        ("OP_INIT_ACK", OP_INIT_ACK, "LL opcode: LLR Init ACK"),
        ("OP_FC", OP_FC, "LL opcode: flow control"),
        ("OP_ACK", OP_ACK, "LL opcode: LLR ACK"),
        ("OP_DISCARD", OP_DISCARD, "LL opcode: LLR Discard"),
        ("OP_CLEAR", OP_CLEAR, "LL opcode: LLR Clear Discard"),
        ("OP_EXIT", OP_EXIT, "LL opcode: LLR Exit Discard"),
    ];
    for (nm, v, doc) in &ops {
        localparam(&mut it, nm, 8, *v as u64, doc);
    }
    if !seq_slots {
        // Power-of-two slot counts index slots by sequence-number bits and need no modulus.
        localparam(&mut it, "SLOTS", 17, slots as u64, "retry-buffer slots (one maximum packet each)");
    }
    localparam(&mut it, "BEAT_LAST", bb, (mb - 1) as u64, "beat index of the last beat of a maximum EE packet");
    localparam(&mut it, "MAX_BEATS", rbw, mb as u64, "beats of a maximum EE packet");
    localparam(&mut it, "LL_LAST", rbw, (llb - 1) as u64, "beat index of the last beat of a link-local packet");
    localparam(&mut it, "INIT_RELOAD", w_init, (cfg.init_cycles - 1) as u64, "init_interval_ui / ui_per_cycle - 1");
    localparam(&mut it, "DISC_RELOAD", w_disc, (cfg.discard_cycles - 1) as u64, "discard_interval_ui / ui_per_cycle - 1");
    localparam(&mut it, "LLRT_RELOAD", w_llrt, (cfg.llrt_cycles - 1) as u64, "llrt_ui / ui_per_cycle - 1");
    localparam(&mut it, "DISCARD_LIMIT", w_dsc, cfg.discard_limit as u64, "Discards without Clear Discard before a retrain");
    localparam(&mut it, "ACK_LAST", w_sa, (cfg.ack_every - 1) as u64, "ack_every - 1");
    localparam(&mut it, "RX_BEAT_MAX", rbw, cfg.rx_beat_max() as u64, "saturation of the receive beat counter");
    if !vcs.is_power_of_two() {
        localparam(&mut it, "VC_LIMIT", 3, vcs as u64, "VCs");
    }
    localparam(&mut it, "RX_CREDITS", 8, cfg.rx_credits as u64, "receive credits per VC");
    let cnt_max = Expr::Const(BitVec::from_u128(cb as usize, if cb >= 128 { u128::MAX } else { (1u128 << cb) - 1 }));
    it.push(Item::Localparam { name: "CNT_MAX".into(), value: cnt_max, doc: "counter saturation".into() });

    let mut r = Regs { list: vec![] };
    let syn_w = syn_groups();
    let table: Vec<(&str, u32, &str)> = vec![
        ("link", 2, "link state: LINK_DOWN / LINK_INIT / LINK_UP (llr_state[1:0])"),
        ("tx_en", 1, "EE transmission enabled (llr_state[2])"),
        ("rx_disc", 1, "receiver discarding after an error (llr_state[3])"),
        ("tx_stop", 1, "transmitter stopped, awaiting Exit Discard (llr_state[4])"),
        ("retrain_q", 1, "the retrain output pulse"),
        ("epoch", 8, "stop epoch: bumped whenever EE transmission stops"),
        ("iack_echo", 8, "epoch of the Init the pending Init ACK answers"),
        ("fc_echo", 8, "epoch the pending FC answers"),
        ("exit_echo", 8, "epoch of the Clear Discard the pending Exit Discard answers"),
        ("ll_epoch", 8, "received LL packet: the sender's epoch"),
        ("ll_echo", 8, "received LL packet: the epoch it answers"),
        ("init_cnt", w_init, "Init / FC repeat timer (cycles to the next)"),
        ("disc_cnt", w_disc, "Discard repeat timer"),
        ("clr_cnt", w_disc, "Clear Discard repeat timer"),
        ("llrt_cnt", w_llrt, "LLR timer (cycles to the next expiry)"),
        ("llrt_nonzero", 1, "llrt_cnt is not zero (kept beside it, so the expiry test is one LUT)"),
        ("noack", 2, "LLR timer expiries without an ACK received"),
        ("stall", 2, "LLR timer expiries without acknowledgement progress"),
        ("ack_prog", 1, "the acknowledged point moved in this LLR timer period"),
        ("progressed_q", 1, "the acknowledged point moved in the previous cycle"),
        ("dsc", w_dsc, "Discards sent without a Clear Discard received"),
        ("since_ack", w_sa, "EE packets delivered since the last ACK was queued"),
        ("p_init", 1, "pending LL packet: Init"),
        ("p_iack", 1, "pending LL packet: Init ACK"),
        ("p_fc", 1, "pending LL packet: flow control"),
        ("p_ack", 1, "pending LL packet: ACK"),
        ("p_disc", 1, "pending LL packet: Discard"),
        ("p_clr", 1, "pending LL packet: Clear Discard"),
        ("p_exit", 1, "pending LL packet: Exit Discard"),
        ("head_seq", 16, "sequence number of the next EE packet written into the retry buffer"),
        ("head_slot", sb, "its retry slot"),
        ("wr_beat", bb, "beat index of the packet being written"),
        ("wr_act", 1, "a packet is being written (past its first beat)"),
        ("ack_seq", 16, "acknowledged point: oldest EE packet not acknowledged"),
        ("ack_slot", sb, "its retry slot"),
        ("send_seq", 16, "TSEQ: next EE packet to put on the link"),
        ("send_slot", sb, "its retry slot"),
        ("send_beat", bb, "beat index of the packet being sent"),
        ("snd_ee", 1, "an EE packet is being sent (past its first beat)"),
        ("sent_max", 16, "EE packets ever sent whole (for counting resends)"),
        ("lk_new", 1, "the link output beat ends a packet not sent before"),
        ("rewind", 1, "a go-back to the acknowledged point is due"),
        ("snd_ll", 1, "an LL packet is being sent (past its first beat)"),
        ("ll_beat", llbw, "beat index of the LL packet being sent"),
        ("ll_buf", llbuf_w, "the LL packet's remaining beats"),
        ("lk_valid", 1, "link output register: valid"),
        ("lk_data", dw, "link output register: beat"),
        ("lk_last", 1, "link output register: last"),
        ("lk_user", 1, "link output register: LL marker"),
        ("rxin_valid", 1, "receive input register: a link beat"),
        ("rxin_last", 1, "receive input register: its tlast"),
        ("rxin_user", 1, "receive input register: its LL marker"),
        ("rxin_phy_error", 1, "receive input register: phy_error"),
        ("rxin_drop", 1, "receive input register: phy_error or phy_up low (drop the packet in progress)"),
        ("rx_window", 8 * LL_BYTES as u32, "the last 16 bytes received (the registered beat in the top bits)"),
        ("rx_crc_start", 32, "CRC register the next link beat starts from (all ones at a packet start)"),
        ("ll_crc_diff", syn_w, "LL CRC syndrome of rx_window, OR-ed in groups (zero: the LL CRC passes)"),
        ("rx_beat", rbw, "beat index of the packet being received (saturating)"),
        ("rx_mark", 1, "its LL marker"),
        ("rx_bad", 1, "its marker changed between beats"),
        ("rx_vc", vb, "its VC (byte 0)"),
        ("rx_wr", ra + 1, "receive FIFO write pointer (the packet being checked)"),
        ("rx_cm", ra + 1, "receive FIFO commit pointer (end of the last intact packet)"),
        ("rx_cm_vis", ra + 1, "rx_cm one cycle late: words m_axis may read"),
        ("rx_rd", ra + 1, "receive FIFO read pointer"),
        ("rseq", 16, "RSEQ: EE packets received intact"),
        ("llg", 1, "an intact LL packet was received last cycle: act on ll_*"),
        ("ll_op", 8, "received LL packet: opcode"),
        ("ll_op_hot", 7, "received LL packet: opcode one-hot (bit k: opcode k+1)"),
        ("ll_rseq", 16, "received LL packet: RSEQ"),
        ("ll_tx_en", 1, "received LL packet: the sender's EE transmission is enabled"),
        ("ll_ack_dist", 16, "received RSEQ minus ack_seq (the acknowledgement's advance)"),
        ("ll_ack_zero", 1, "received RSEQ equals ack_seq"),
        ("ll_gap", 16, "send_seq minus received RSEQ, without this cycle's send step"),
        ("send_stepped", 1, "send_seq stepped by one at the last edge"),
        ("send_rewound", 1, "send_seq went back to ack_seq at the last edge"),
        ("head_ne_send", 1, "head_seq differed from send_seq before the last edge"),
        ("head_ne_send1", 1, "head_seq differed from send_seq + 1 before the last edge"),
        ("head_ne_ack", 1, "head_seq differed from ack_seq before the last edge"),
        ("ll_echo_eq0", 1, "received echo equals epoch as it was"),
        ("ll_echo_eq1", 1, "received echo equals epoch + 1"),
        ("ll_epoch_lsb", 1, "epoch[0] when the two above were computed"),
    ];
    for (nm, w, doc) in table {
        r.add(nm, w, doc);
    }
    if cfg.ecrc_check {
        r.add("ecrc_diff", syn_w, "ECRC syndrome of the registered beat, OR-ed in groups (zero: the ECRC passes)");
    }
    for v in 0..vcs {
        r.add(&format!("consumed{v}"), 8, &format!("credits of VC {v} used (mod 256)"));
        r.add(&format!("returned{v}"), 8, &format!("credits of VC {v} returned by the peer (mod 256)"));
        r.add(&format!("freed{v}"), 8, &format!("EE packets of VC {v} delivered on m_axis (mod 256)"));
        r.add(&format!("ll_freed{v}"), 8, &format!("received LL packet: credits of VC {v}"));
        r.add(&format!("credit_short{v}"), 1, &format!("VC {v} has no credit (without a packet started last cycle)"));
        r.add(&format!("credit_short1_{v}"), 1, &format!("VC {v} would have no credit after one more packet"));
        r.add(&format!("started{v}"), 1, &format!("a packet of VC {v} started last cycle"));
    }
    let mut regs = vec![Item::comment("Registers x and their next values x_n (computed in the always @* block below).")];
    for (nm, w, doc) in &r.list {
        regs.push(Item::reg(nm, *w, doc));
        regs.push(Item::reg(&format!("{nm}_n"), *w, ""));
    }
    regs.push(Item::Memory { name: "tx_ram".into(), width: dw + 1, depth: cfg.retry_words(), doc: "retry buffer: {last, beat} at {slot, beat}".into() });
    regs.push(Item::reg("tx_q", dw + 1, "retry RAM read register: word {send_slot, send_beat}"));
    regs.push(Item::Memory { name: "rx_ram".into(), width: ww, depth: 1 << ra, doc: "receive FIFO: {vc, last, beat}".into() });
    regs.push(Item::reg("rx_q", ww, "receive RAM read register: word rx_rd"));
    let incs: Vec<String> = super::model::COUNTERS.iter().map(|c| format!("inc_{}", &c[4..])).collect();
    for i in &incs {
        regs.push(Item::reg(i, 1, ""));
    }
    regs.push(Item::reg("retrain_req", 1, "a retrain is requested this cycle"));
    regs.push(Item::reg("progressed", 1, "the acknowledged point moved this cycle"));
    regs.push(Item::reg("tx_we", 1, "write the s_axis beat into the retry RAM"));
    regs.push(Item::reg("tx_wlast", 1, "its last flag"));

    // ---------------- receive input stage: CRCs of the arriving beat ----------------
    // The link beat is registered (rxin_*, rx_window); the CRC networks run on the arriving
    // beat and register their syndromes, so the packet checks below read flags.
    let mut c: Vec<Item> = vec![Item::comment("Receive input stage: the CRCs of the beat arriving on s_axis_link, registered with it.")];
    wire(&mut c, "rx_drop_now", 1, "the packet in progress is dropped (PHY error or PHY down)", or(id("phy_error"), id("phy_up").not()));
    wire(&mut c, "crc_beat_in", 32 + dw, "{arriving beat, CRC register before it}", cat(vec![id("s_axis_link_tdata"), id("rx_crc_start")]));
    c.push(Item::wire("crc_beat", 32, "CRC register after the arriving beat"));
    let crc_beat_map = crc_map(d as usize, false);
    xor_net::emit(&mut c, &XorNet { name: "crc_beat_x", input: "crc_beat_in", map: &crc_beat_map, style: XorStyle::SHARED }, "crc_beat", 0);
    if cfg.ecrc_check {
        c.push(Item::wire("ecrc_syn", 32, "ECRC syndrome if the arriving beat ends an EE packet"));
        let ecrc_map = ecrc_syndrome_map(d as usize);
        xor_net::emit(&mut c, &XorNet { name: "ecrc_syn_x", input: "crc_beat_in", map: &ecrc_map, style: XorStyle::SHARED }, "ecrc_syn", 0);
    }
    wire(&mut c, "rx_window_now", 8 * LL_BYTES as u32, "the last 16 bytes including the arriving beat", cat(vec![id("s_axis_link_tdata"), Expr::slice("rx_window", 8 * LL_BYTES as u32 - 1, dw)]));
    c.push(Item::wire("ll_syn", 32, "LL CRC syndrome if the arriving beat ends an LL packet"));
    let ll_syn_map = ll_syndrome_map();
    xor_net::emit(&mut c, &XorNet { name: "ll_syn_x", input: "rx_window_now", map: &ll_syn_map, style: XorStyle::SHARED }, "ll_syn", 0);

    // ---------------- receive: the registered beat ----------------
    c.push(Item::comment("RX: the registered beat from the link."));
    wire(&mut c, "rxin_data", dw, "the registered beat", Expr::slice("rx_window", 8 * LL_BYTES as u32 - 1, 8 * LL_BYTES as u32 - dw));
    wire(&mut c, "rx_first", 1, "first beat of a packet", eq(id("rx_beat"), dec(rbw, 0)));
    wire(&mut c, "rx_mark_now", 1, "the packet's link-local marker (first beat's tuser)", mux(id("rx_first"), id("rxin_user"), id("rx_mark")));
    wire(
        &mut c,
        "rx_bad_now",
        1,
        "marker differs between beats",
        or(id("rx_bad"), and(id("rx_first").not(), ne(id("rxin_user"), id("rx_mark")))),
    );
    wire(&mut c, "ecrc_fail", 1, "the ECRC in the last 4 bytes differs", if cfg.ecrc_check { Expr::red(crate::hw::verilog::UnOp::RedOr, id("ecrc_diff")) } else { Expr::zero() });
    let vc_first = if vb == 1 { Expr::bit("rxin_data", 0) } else { Expr::slice("rxin_data", vb - 1, 0) };
    wire(&mut c, "rx_vc_now", vb, "VC of the packet: byte 0 [vc_bits-1:0] of its first beat", mux(id("rx_first"), vc_first, id("rx_vc")));
    let vc_ok = if vcs.is_power_of_two() { Expr::one() } else { lt(cat(vec![dec(3 - vb, 0), id("rx_vc_now")]), id("VC_LIMIT")) };
    wire(&mut c, "rx_vc_ok", 1, "the VC exists", vc_ok);
    // The pointers are one bit wider than the address: the FIFO is full when they differ in
    // that bit only.
    let rx_full = and(ne(Expr::bit("rx_wr", ra), Expr::bit("rx_rd", ra)), eq(Expr::slice("rx_wr", ra - 1, 0), Expr::slice("rx_rd", ra - 1, 0)));
    wire(&mut c, "rx_full", 1, "the receive FIFO is full (committed words, or of the packet being checked)", rx_full);
    wire(&mut c, "rx_room", 1, "the beat fits: within a maximum packet and the FIFO", and(lt(id("rx_beat"), id("MAX_BEATS")), id("rx_full").not()));
    wire(&mut c, "ee_beat", 1, "an EE beat arrives", and(id("rxin_valid"), id("rx_mark_now").not()));
    wire(&mut c, "ee_end", 1, "", and(id("ee_beat"), id("rxin_last")));
    wire(&mut c, "ee_good", 1, "a whole, intact EE packet", all(vec![id("ee_end"), id("rx_bad_now").not(), id("rx_room"), id("ecrc_fail").not(), id("rx_vc_ok")]));
    wire(&mut c, "rx_accept", 1, "EE packets are accepted: link up (Init exchange done), not discarding, no PHY error", all(vec![eq(id("link"), link_up.clone()), id("rx_disc").not(), id("rxin_drop").not()]));
    wire(&mut c, "commit", 1, "deliver the packet", and(id("ee_good"), id("rx_accept")));
    wire(&mut c, "ll_end", 1, "", all(vec![id("rxin_valid"), id("rx_mark_now"), id("rxin_last")]));
    wire(&mut c, "ll_op_now", 8, "", Expr::slice("rx_window", 7, 0));
    wire(
        &mut c,
        "ll_ok",
        1,
        "a whole, intact link-local packet with a known opcode",
        all(vec![
            id("ll_end"),
            id("rx_bad_now").not(),
            eq(id("rx_beat"), id("LL_LAST")),
            Expr::red(crate::hw::verilog::UnOp::RedOr, id("ll_crc_diff")).not(),
            ge(id("ll_op_now"), id("OP_INIT")),
            le(id("ll_op_now"), id("OP_EXIT")),
        ]),
    );
    wire(&mut c, "rx_err", 1, "a packet error or a PHY error", or(or(and(id("ee_end"), id("ee_good").not()), and(id("ll_end"), id("ll_ok").not())), id("rxin_phy_error")));
    wire(&mut c, "m_valid", 1, "committed words not yet delivered", ne(id("rx_rd"), id("rx_cm_vis")));
    wire(&mut c, "m_fire", 1, "", and(id("m_valid"), id("m_axis_tready")));

    c.push(Item::comment("LL packet received last cycle: moving the acknowledged point to its RSEQ."));
    let op_code = |op: &str| -> u32 {
        u32::from(match op {
            "OP_INIT" => OP_INIT,
            "OP_INIT_ACK" => OP_INIT_ACK,
            "OP_FC" => OP_FC,
            "OP_ACK" => OP_ACK,
            "OP_DISCARD" => OP_DISCARD,
            "OP_CLEAR" => OP_CLEAR,
            _ => OP_EXIT,
        })
    };
    let got = |op: &str| and(id("llg"), Expr::bit("ll_op_hot", op_code(op) - 1));
    wire(&mut c, "echo_ok", 1, "the received echo equals epoch (which moved by at most one since the compares)", mux(ne(Expr::bit("epoch", 0), id("ll_epoch_lsb")), id("ll_echo_eq1"), id("ll_echo_eq0")));
    wire(
        &mut c,
        "enable",
        1,
        "an Init ACK or FC answering a packet sent since our last stop: resume EE from its RSEQ",
        all(vec![or(got("OP_INIT_ACK"), got("OP_FC")), id("echo_ok"), id("tx_en").not()]),
    );
    wire(
        &mut c,
        "exit_ok",
        1,
        "an Exit Discard answering a Clear Discard sent since our stop: resume from its RSEQ",
        all(vec![got("OP_EXIT"), ne(id("link"), link_down.clone()), id("tx_stop"), id("echo_ok")]),
    );
    // RSEQ lies in [ack_seq, send_seq] iff (RSEQ - ack_seq) + (send_seq - RSEQ) does not carry
    // out of 16 bits (the two distances add up to send_seq - ack_seq, below 2^16).
    c.push(Item::pragma("verilator lint_off UNUSED"));
    wire(
        &mut c,
        "window_sum",
        17,
        "(RSEQ - ack_seq) + (send_seq - RSEQ), from the registered distances",
        add(add(cat(vec![Expr::zero(), id("ll_ack_dist")]), cat(vec![Expr::zero(), id("ll_gap")])), cat(vec![dec(16, 0), id("send_stepped")])),
    );
    c.push(Item::pragma("verilator lint_on UNUSED"));
    wire(&mut c, "ack_ok", 1, "RSEQ lies between the acknowledged point and the send point", mux(id("send_rewound"), id("ll_ack_zero"), Expr::bit("window_sum", 16).not()));
    if seq_slots {
        wire(&mut c, "ack_slot_new", sb, "the slot of RSEQ (slots are the low bits of the sequence number)", Expr::slice("ll_rseq", sb - 1, 0));
    } else {
        slot_add(&mut c, "ack_slot_new", "ack_slot", id("ll_ack_dist"), 16, sb);
    }
    wire(
        &mut c,
        "do_ack",
        1,
        "an enabling Init ACK / FC, ACK, Discard, Exit Discard (stopped) carry an acknowledgement",
        any(vec![
            id("enable"),
            got("OP_ACK"),
            and(got("OP_DISCARD"), ne(id("link"), link_down.clone())),
            id("exit_ok"),
        ]),
    );
    wire(&mut c, "ack_move", 1, "the acknowledged point moves to RSEQ", and(id("do_ack"), id("ack_ok")));
    wire(&mut c, "expiry", 1, "the LLR timer expires", and(eq(id("link"), link_up.clone()), id("llrt_nonzero").not()));

    c.push(Item::comment("TX write side: credits and room for a new packet."));
    let credit_terms: Vec<Expr> = (0..vcs)
        .map(|v| {
            let sel = eq(id("s_axis_tuser"), dec(vb, v as u64));
            let short = mux(id(&format!("started{v}")), id(&format!("credit_short1_{v}")), id(&format!("credit_short{v}")));
            and(sel, short.not())
        })
        .collect();
    wire(&mut c, "credit_ok", 1, "the offered VC has a credit", any(credit_terms));
    for v in 0..vcs {
        // Credits in use next cycle, before this cycle's start: consumed minus returned as it
        // will be (a received LL packet's count loads now).
        let ret_n = mux(id("llg"), id(&format!("ll_freed{v}")), id(&format!("returned{v}")));
        wire(&mut c, &format!("credit_used{v}"), 8, &format!("credits of VC {v} in use after this cycle, without a packet started now"), sub(id(&format!("consumed{v}")), ret_n));
    }
    if slots.is_power_of_two() {
        // At most SLOTS (a power of two) packets are held: the low k+1 bits of the sequence
        // numbers tell a full buffer (head_seq - ack_seq = SLOTS) from an empty one.
        let k = slots.trailing_zeros();
        let hi_differs = ne(Expr::bit("head_seq", k), Expr::bit("ack_seq", k));
        let full = if k == 0 { hi_differs } else { and(eq(Expr::slice("head_seq", k - 1, 0), Expr::slice("ack_seq", k - 1, 0)), hi_differs) };
        wire(&mut c, "slot_free", 1, "a retry slot is free (fewer than SLOTS packets held)", full.not());
    } else {
        wire(&mut c, "outstanding", 16, "packets in the retry buffer", sub(id("head_seq"), id("ack_seq")));
        wire(&mut c, "slot_free", 1, "a retry slot is free", lt(cat(vec![Expr::zero(), id("outstanding")]), id("SLOTS")));
    }
    wire(&mut c, "s_ready", 1, "", or(id("wr_act"), and(id("slot_free"), id("credit_ok"))));
    wire(&mut c, "s_fire", 1, "", and(id("s_axis_tvalid"), id("s_ready")));
    if seq_slots {
        wire(&mut c, "head_slot_inc", sb, "the next slot", add(id("head_slot"), dec(sb, 1)));
        wire(&mut c, "send_slot_inc", sb, "the next slot", add(id("send_slot"), dec(sb, 1)));
    } else {
        slot_add(&mut c, "head_slot_inc", "head_slot", dec(16, 1), 16, sb);
        slot_add(&mut c, "send_slot_inc", "send_slot", dec(16, 1), 16, sb);
    }

    c.push(Item::comment("TX send side: the link-local packet to start (priority Init ACK, FC, Init, Exit, Discard, Clear, ACK)."));
    wire(&mut c, "ll_pending", 1, "", any(["p_iack", "p_fc", "p_init", "p_exit", "p_disc", "p_clr", "p_ack"].iter().map(|p| id(p)).collect()));
    wire(
        &mut c,
        "tx_op",
        8,
        "",
        mux(
            id("p_iack"),
            id("OP_INIT_ACK"),
            mux(id("p_fc"), id("OP_FC"), mux(id("p_init"), id("OP_INIT"), mux(id("p_exit"), id("OP_EXIT"), mux(id("p_disc"), id("OP_DISCARD"), mux(id("p_clr"), id("OP_CLEAR"), id("OP_ACK")))))),
        ),
    );
    let mut freed_parts = vec![];
    for v in (0..4).rev() {
        freed_parts.push(if v < vcs { id(&format!("freed{v}")) } else { dec(8, 0) });
    }
    wire(&mut c, "tx_echo", 8, "the epoch an Init ACK / FC / Exit Discard answers", mux(id("p_iack"), id("iack_echo"), mux(id("p_fc"), id("fc_echo"), mux(id("p_init"), dec(8, 0), mux(id("p_exit"), id("exit_echo"), dec(8, 0))))));
    let mut body_parts = vec![cat(vec![dec(7, 0), id("tx_en")]), id("tx_echo"), id("epoch")];
    body_parts.extend(freed_parts);
    body_parts.extend([Expr::slice("rseq", 7, 0), Expr::slice("rseq", 15, 8), Expr::slice("send_seq", 7, 0), Expr::slice("send_seq", 15, 8), id("tx_op")]);
    wire(&mut c, "tx_ll_body", 96, "bytes 0-11: opcode, TSEQ, RSEQ, credits, epoch, echo, EE enabled", cat(body_parts));
    c.push(Item::wire("tx_ll_crc", 32, "bytes 12-15"));
    let tx_crc_map = ll_crc_map();
    xor_net::emit(&mut c, &XorNet { name: "tx_ll_crc_x", input: "tx_ll_body", map: &tx_crc_map, style: XorStyle::SHARED }, "tx_ll_crc", 0);
    wire(&mut c, "tx_ll", 128, "the whole link-local packet", cat(vec![id("tx_ll_crc"), id("tx_ll_body")]));
    wire(&mut c, "link_valid", 1, "a beat is presented: the output register's, while phy_up is high", and(id("lk_valid"), id("phy_up")));
    wire(&mut c, "ee_done", 1, "the PHY takes the last beat of an EE packet", all(vec![id("link_valid"), id("m_axis_link_tready"), id("lk_last"), id("lk_user").not()]));
    wire(&mut c, "load", 1, "the link output register takes a new beat (never while phy_up is low)", and(id("phy_up"), or(id("lk_valid").not(), id("m_axis_link_tready"))));
    // head_vis is head_seq one edge late; send_seq moved at that edge by a step, a rewind to
    // ack_seq (which a rewind waits to be still), or not at all: compare all three beforehand.
    wire(
        &mut c,
        "ee_unsent",
        1,
        "send_seq differs from head_vis: a written packet waits to be sent",
        mux(id("send_rewound"), id("head_ne_ack"), mux(id("send_stepped"), id("head_ne_send1"), id("head_ne_send"))),
    );
    wire(&mut c, "tq_data", dw, "", Expr::slice("tx_q", dw - 1, 0));
    wire(&mut c, "tq_last", 1, "", Expr::bit("tx_q", dw));
    wire(&mut c, "ee_ready", 1, "an EE packet may start", all(vec![eq(id("link"), link_up.clone()), id("tx_en"), id("tx_stop").not(), id("ee_unsent")]));
    wire(&mut c, "idle_slot", 1, "the link output register may start a packet", all(vec![id("load"), id("snd_ll").not(), id("snd_ee").not(), id("ll_pending").not()]));
    wire(&mut c, "rewind_go", 1, "the send point goes back to the acknowledged point", all(vec![id("idle_slot"), id("rewind"), id("llg").not()]));
    wire(&mut c, "ee_start", 1, "an EE packet starts", all(vec![id("idle_slot"), id("rewind").not(), id("ee_ready")]));
    wire(&mut c, "send_step", 1, "the send point steps past a packet", all(vec![id("load"), id("snd_ll").not(), id("tq_last"), or(id("snd_ee"), id("ee_start"))]));
    let rseq_f = cat(vec![Expr::slice("rx_window", 31, 24), Expr::slice("rx_window", 39, 32)]);
    wire(&mut c, "ll_rseq_now", 16, "RSEQ field of the registered LL packet", rseq_f);

    // ---------------- next state ----------------
    let mut s: Vec<Stmt> = vec![Stmt::Comment("Defaults: hold.".into())];
    for (nm, _, _) in &r.list {
        s.push(setn(nm, id(nm)));
    }
    for i in &incs {
        s.push(set_id(i, Expr::zero()));
    }
    for x in ["retrain_req", "progressed", "tx_we", "tx_wlast"] {
        s.push(set_id(x, Expr::zero()));
    }
    s.push(set_id("inc_ecrc_errors", and(id("ee_end"), id("ecrc_fail"))));
    s.push(Stmt::Comment("Receive input stage: register the arriving beat, its CRC state and syndromes.".into()));
    let all_ones = Expr::konst(32, 0xFFFF_FFFF);
    s.push(setn("rxin_valid", id("s_axis_link_tvalid")));
    s.push(setn("rxin_last", id("s_axis_link_tlast")));
    s.push(setn("rxin_user", id("s_axis_link_tuser")));
    s.push(setn("rxin_phy_error", id("phy_error")));
    s.push(setn("rxin_drop", id("rx_drop_now")));
    s.push(when(id("s_axis_link_tvalid"), vec![setn("rx_window", id("rx_window_now")), setn("rx_crc_start", mux(id("s_axis_link_tlast"), all_ones.clone(), id("crc_beat")))]));
    s.push(when(id("rx_drop_now"), vec![setn("rx_crc_start", all_ones)]));
    if cfg.ecrc_check {
        s.push(setn("ecrc_diff", group_or("ecrc_syn")));
    }
    s.push(setn("ll_crc_diff", group_or("ll_syn")));
    s.push(Stmt::Comment("RX: the registered beat.".into()));
    let rx_inc = mux(id("rxin_last"), dec(rbw, 0), mux(eq(id("rx_beat"), id("RX_BEAT_MAX")), id("rx_beat"), add(id("rx_beat"), dec(rbw, 1))));
    s.push(when(
        id("rxin_valid"),
        vec![
            setn("rx_beat", rx_inc),
            setn("rx_mark", id("rx_mark_now")),
            setn("rx_bad", and(id("rxin_last").not(), id("rx_bad_now"))),
            setn("rx_vc", id("rx_vc_now")),
            when(and(id("ee_beat"), id("rx_room")), vec![setn("rx_wr", add(id("rx_wr"), dec(ra + 1, 1)))]),
            // An intact packet's last beat fitted (ee_good includes rx_room): it ends at rx_wr + 1.
            when(id("ee_end"), vec![if_else(id("commit"), vec![setn("rx_cm", add(id("rx_wr"), dec(ra + 1, 1)))], vec![setn("rx_wr", id("rx_cm"))])]),
        ],
    ));
    s.push(setn("llg", and(id("ll_ok"), id("phy_up"))));
    let ll_hot = cat((1..=7u64).rev().map(|k| eq(id("ll_op_now"), dec(8, k))).collect());
    let mut ll_load = vec![
        setn("ll_op", id("ll_op_now")),
        setn("ll_op_hot", ll_hot),
        setn("ll_epoch", Expr::slice("rx_window", 79, 72)),
        setn("ll_echo", Expr::slice("rx_window", 87, 80)),
        setn("ll_rseq", id("ll_rseq_now")),
        setn("ll_tx_en", Expr::bit("rx_window", 88)),
    ];
    for v in 0..vcs {
        ll_load.push(setn(&format!("ll_freed{v}"), Expr::slice("rx_window", 47 + 8 * v, 40 + 8 * v)));
    }
    s.push(when(id("ll_ok"), ll_load));
    s.push(Stmt::Comment("Distances and compares for the LL packet acted on next cycle (ack_seq cannot move in between: LL packets are two beats or more).".into()));
    s.push(setn("ll_ack_dist", sub(id("ll_rseq_now"), id("ack_seq"))));
    s.push(setn("ll_ack_zero", eq(id("ll_rseq_now"), id("ack_seq"))));
    s.push(setn("ll_gap", sub(id("send_seq"), id("ll_rseq_now"))));
    s.push(setn("send_stepped", id("send_step")));
    s.push(setn("send_rewound", id("rewind_go")));
    s.push(setn("head_ne_send", ne(id("head_seq"), id("send_seq"))));
    s.push(setn("head_ne_send1", ne(id("head_seq"), add(id("send_seq"), dec(16, 1)))));
    s.push(setn("head_ne_ack", ne(id("head_seq"), id("ack_seq"))));
    s.push(setn("ll_echo_eq0", eq(Expr::slice("rx_window", 87, 80), id("epoch"))));
    s.push(setn("ll_echo_eq1", eq(Expr::slice("rx_window", 87, 80), add(id("epoch"), dec(8, 1)))));
    s.push(setn("ll_epoch_lsb", Expr::bit("epoch", 0)));
    s.push(when(id("commit"), vec![setn("rseq", add(id("rseq"), dec(16, 1)))]));
    s.push(Stmt::Comment("RX: delivery; credits return as delivered-packet counts per VC.".into()));
    let mut freed_inc = vec![
        set_id("inc_ee_delivered", Expr::one()),
        if_else(eq(id("since_ack"), id("ACK_LAST")), vec![setn("p_ack", Expr::one()), setn("since_ack", dec(w_sa, 0))], vec![setn("since_ack", add(id("since_ack"), dec(w_sa, 1)))]),
    ];
    for v in 0..vcs {
        let sel = if vcs == 1 { Expr::one() } else { eq(Expr::slice("rx_q", ww - 1, dw + 1), dec(vb, v as u64)) };
        freed_inc.push(when(sel, vec![setn(&format!("freed{v}"), add(id(&format!("freed{v}")), dec(8, 1)))]));
    }
    s.push(when(id("m_fire"), vec![setn("rx_rd", add(id("rx_rd"), dec(ra + 1, 1))), when(Expr::bit("rx_q", dw), freed_inc)]));
    s.push(setn("rx_cm_vis", id("rx_cm")));

    s.push(Stmt::Comment("LL packet received last cycle.".into()));
    let mut ret = vec![];
    for v in 0..vcs {
        ret.push(setn(&format!("returned{v}"), id(&format!("ll_freed{v}"))));
    }
    s.push(when(id("llg"), ret));
    s.push(when(id("ack_move"), vec![setn("ack_seq", id("ll_rseq")), setn("ack_slot", id("ack_slot_new")), set_id("progressed", id("ll_ack_zero").not())]));
    s.push(setn("progressed_q", id("progressed")));
    s.push(when(
        got("OP_INIT"),
        vec![
            setn("p_iack", Expr::one()),
            setn("iack_echo", id("ll_epoch")),
            setn("epoch", add(id("epoch"), dec(8, 1))),
            setn("tx_en", Expr::zero()),
            setn("tx_stop", Expr::zero()),
            setn("rx_disc", Expr::zero()),
            when(eq(id("link"), link_up.clone()), vec![setn("init_cnt", id("INIT_RELOAD"))]),
        ],
    ));
    s.push(when(
        got("OP_INIT_ACK"),
        vec![
            setn("p_fc", Expr::one()),
            setn("fc_echo", id("ll_epoch")),
            when(eq(id("link"), link_init.clone()), vec![setn("link", link_up.clone()), setn("p_init", Expr::zero()), setn("init_cnt", id("INIT_RELOAD"))]),
        ],
    ));
    s.push(when(and(got("OP_FC"), id("ll_tx_en").not()), vec![setn("p_fc", Expr::one()), setn("fc_echo", id("ll_epoch"))]));
    s.push(when(id("enable"), vec![setn("rewind", Expr::one()), setn("tx_en", Expr::one()), setn("tx_stop", Expr::zero())]));
    s.push(when(got("OP_ACK"), vec![set_id("inc_acks_received", Expr::one())]));
    s.push(when(
        got("OP_DISCARD"),
        vec![
            set_id("inc_discards_received", Expr::one()),
            when(
                ne(id("link"), link_down.clone()),
                vec![
                    when(id("tx_stop").not(), vec![setn("epoch", add(id("epoch"), dec(8, 1)))]),
                    setn("tx_stop", Expr::one()),
                    setn("p_clr", Expr::one()),
                    setn("clr_cnt", id("DISC_RELOAD")),
                ],
            ),
        ],
    ));
    s.push(when(and(got("OP_CLEAR"), ne(id("link"), link_down.clone())), vec![setn("p_exit", Expr::one()), setn("exit_echo", id("ll_epoch")), setn("p_disc", Expr::zero()), setn("rx_disc", Expr::zero()), setn("dsc", dec(w_dsc, 0))]));
    s.push(when(id("exit_ok"), vec![setn("rewind", Expr::one()), setn("tx_stop", Expr::zero()), setn("tx_en", Expr::one())]));
    s.push(Stmt::Comment("RX error: start discarding (a Discard goes out next cycle).".into()));
    s.push(when(all(vec![id("rx_err"), ne(id("link"), link_down.clone()), id("rx_disc").not()]), vec![setn("rx_disc", Expr::one()), setn("disc_cnt", dec(w_disc, 0))]));

    s.push(Stmt::Comment("Timers.".into()));
    let periodic = |cnt: &str, w: u32, reload: &str, flag: &str| {
        if_else(eq(id(cnt), dec(w, 0)), vec![setn(flag, Expr::one()), setn(cnt, id(reload))], vec![setn(cnt, sub(id(cnt), dec(w, 1)))])
    };
    s.push(if_else(
        and(eq(id("link"), link_init.clone()), got("OP_INIT_ACK").not()),
        vec![periodic("init_cnt", w_init, "INIT_RELOAD", "p_init")],
        vec![when(all(vec![eq(id("link"), link_up.clone()), id("tx_en").not(), got("OP_INIT").not()]), vec![periodic("init_cnt", w_init, "INIT_RELOAD", "p_fc")])],
    ));
    s.push(when(and(ne(id("link"), link_down.clone()), id("rx_disc")), vec![periodic("disc_cnt", w_disc, "DISC_RELOAD", "p_disc")]));
    s.push(when(and(ne(id("link"), link_down.clone()), id("tx_stop")), vec![periodic("clr_cnt", w_disc, "DISC_RELOAD", "p_clr")]));
    s.push(when(
        eq(id("link"), link_up.clone()),
        vec![
            setn("llrt_cnt", mux(id("expiry"), id("LLRT_RELOAD"), sub(id("llrt_cnt"), dec(w_llrt, 1)))),
            setn("llrt_nonzero", mux(id("expiry"), ne(id("LLRT_RELOAD"), dec(w_llrt, 0)), ne(id("llrt_cnt"), dec(w_llrt, 1)))),
        ],
    ));
    s.push(if_else(
        got("OP_ACK"),
        vec![setn("noack", dec(2, 0))],
        vec![when(
            id("expiry"),
            vec![if_else(eq(id("noack"), noack_last), vec![setn("noack", dec(2, 0)), set_id("retrain_req", Expr::one())], vec![setn("noack", add(id("noack"), dec(2, 1)))])],
        )],
    ));
    s.push(setn("ack_prog", mux(id("expiry"), id("progressed_q"), or(id("ack_prog"), id("progressed_q")))));
    s.push(when(
        id("expiry"),
        vec![
            setn("p_ack", Expr::one()),
            if_else(
                all(vec![ne(id("send_seq"), id("ack_seq")), id("ack_prog").not(), id("progressed_q").not(), id("tx_stop").not()]),
                vec![if_else(
                    eq(id("stall"), stall_last),
                    vec![
                        setn("stall", dec(2, 0)),
                        setn("epoch", add(id("epoch"), dec(8, 1))),
                        setn("tx_stop", Expr::one()),
                        setn("p_clr", Expr::one()),
                        setn("clr_cnt", id("DISC_RELOAD")),
                        set_id("inc_timer_retransmissions", Expr::one()),
                    ],
                    vec![setn("stall", add(id("stall"), dec(2, 1)))],
                )],
                vec![setn("stall", dec(2, 0))],
            ),
        ],
    ));
    s.push(when(
        and(got("OP_INIT_ACK"), eq(id("link"), link_init.clone())),
        vec![setn("llrt_cnt", id("LLRT_RELOAD")), setn("llrt_nonzero", ne(id("LLRT_RELOAD"), dec(w_llrt, 0))), setn("noack", dec(2, 0)), setn("stall", dec(2, 0)), setn("ack_prog", Expr::zero())],
    ));

    s.push(Stmt::Comment("TX write side: s_axis into the retry buffer slot head_slot.".into()));
    let mut consume = vec![];
    for v in 0..vcs {
        let sel = eq(id("s_axis_tuser"), dec(vb, v as u64));
        consume.push(when(sel, vec![setn(&format!("consumed{v}"), add(id(&format!("consumed{v}")), dec(8, 1)))]));
    }
    let first_beat = consume;
    s.push(when(
        id("s_fire"),
        vec![
            set_id("tx_we", Expr::one()),
            set_id("tx_wlast", or(id("s_axis_tlast"), eq(id("wr_beat"), id("BEAT_LAST")))),
            when(id("wr_act").not(), first_beat),
            if_else(
                id("tx_wlast"),
                vec![
                    setn("wr_act", Expr::zero()),
                    setn("wr_beat", dec(bb, 0)),
                    setn("head_seq", add(id("head_seq"), dec(16, 1))),
                    setn("head_slot", id("head_slot_inc")),
                ],
                vec![setn("wr_act", Expr::one()), setn("wr_beat", add(id("wr_beat"), dec(bb, 1)))],
            ),
        ],
    ));
    s.push(Stmt::Comment("Credit flags for next cycle: in use after this cycle, with or without one more packet.".into()));
    for v in 0..vcs {
        let used = id(&format!("credit_used{v}"));
        s.push(setn(&format!("credit_short{v}"), ge(used.clone(), id("RX_CREDITS"))));
        let short1 = if cfg.rx_credits >= 2 { ge(used, dec(8, cfg.rx_credits as u64 - 1)) } else { Expr::one() };
        s.push(setn(&format!("credit_short1_{v}"), short1));
        let sel = eq(id("s_axis_tuser"), dec(vb, v as u64));
        s.push(setn(&format!("started{v}"), all(vec![id("s_fire"), id("wr_act").not(), sel])));
    }

    s.push(Stmt::Comment("TX send side: an EE packet counts as transmitted when the PHY takes its last beat.".into()));
    s.push(when(id("ee_done"), vec![if_else(id("lk_new"), vec![set_id("inc_ee_sent", Expr::one()), setn("sent_max", add(id("sent_max"), dec(16, 1)))], vec![set_id("inc_ee_resent", Expr::one())])]));
    s.push(Stmt::Comment("TX send side: the link output register.".into()));
    let finish_ee = vec![
        setn("send_seq", add(id("send_seq"), dec(16, 1))),
        setn("send_slot", id("send_slot_inc")),
        setn("send_beat", dec(bb, 0)),
        setn("snd_ee", Expr::zero()),
        setn("lk_new", eq(id("send_seq"), n("sent_max"))),
    ];
    let ll_shift = if llbuf_w > dw { cat(vec![zeros(dw), Expr::slice("ll_buf", llbuf_w - 1, dw)]) } else { dec(llbuf_w, 0) };
    let mid_ll = vec![
        setn("lk_valid", Expr::one()),
        setn("lk_data", Expr::slice("ll_buf", dw - 1, 0)),
        setn("lk_user", Expr::one()),
        setn("lk_last", eq(id("ll_beat"), dec(llbw, (llb - 1) as u64))),
        setn("ll_buf", ll_shift),
        if_else(eq(id("ll_beat"), dec(llbw, (llb - 1) as u64)), vec![setn("snd_ll", Expr::zero()), setn("ll_beat", dec(llbw, 0))], vec![setn("ll_beat", add(id("ll_beat"), dec(llbw, 1)))]),
    ];
    let mid_ee = vec![
        setn("lk_valid", Expr::one()),
        setn("lk_data", id("tq_data")),
        setn("lk_user", Expr::zero()),
        setn("lk_last", id("tq_last")),
        if_else(id("tq_last"), finish_ee.clone(), vec![setn("send_beat", add(id("send_beat"), dec(bb, 1)))]),
    ];
    let start_ll = vec![
        if_else(
            id("p_iack"),
            vec![setn("p_iack", Expr::zero())],
            vec![if_else(
                id("p_fc"),
                vec![setn("p_fc", Expr::zero())],
                vec![if_else(
                    id("p_init"),
                    vec![setn("p_init", Expr::zero()), set_id("inc_inits_sent", Expr::one())],
                    vec![if_else(
                        id("p_exit"),
                        vec![setn("p_exit", Expr::zero()), set_id("inc_exit_discards_sent", Expr::one())],
                        vec![if_else(
                            id("p_disc"),
                            vec![
                                setn("p_disc", Expr::zero()),
                                set_id("inc_discards_sent", Expr::one()),
                                if_else(ge(id("dsc"), id("DISCARD_LIMIT")), vec![setn("dsc", dec(w_dsc, 0)), set_id("retrain_req", Expr::one())], vec![setn("dsc", add(id("dsc"), dec(w_dsc, 1)))]),
                            ],
                            vec![if_else(
                                id("p_clr"),
                                vec![setn("p_clr", Expr::zero()), set_id("inc_clear_discards_sent", Expr::one())],
                                vec![setn("p_ack", Expr::zero()), set_id("inc_acks_sent", Expr::one())],
                            )],
                        )],
                    )],
                )],
            )],
        ),
        setn("lk_valid", Expr::one()),
        setn("lk_data", Expr::slice("tx_ll", dw - 1, 0)),
        setn("lk_user", Expr::one()),
        setn("lk_last", Expr::zero()),
        setn("snd_ll", Expr::one()),
        setn("ll_beat", dec(llbw, 1)),
        setn("ll_buf", Expr::slice("tx_ll", 127, dw)),
    ];
    // The rewind waits out a cycle in which a received LL packet may move the acknowledged
    // point (llg), so it reads ack_seq / ack_slot from the registers.
    let rewind = vec![
        setn("lk_valid", Expr::zero()),
        when(id("llg").not(), vec![setn("rewind", Expr::zero()), setn("send_seq", id("ack_seq")), setn("send_slot", id("ack_slot")), setn("send_beat", dec(bb, 0))]),
    ];
    let start_ee = vec![
        setn("lk_valid", Expr::one()),
        setn("lk_data", id("tq_data")),
        setn("lk_user", Expr::zero()),
        setn("lk_last", id("tq_last")),
        if_else(id("tq_last"), finish_ee, vec![setn("snd_ee", Expr::one()), setn("send_beat", dec(bb, 1))]),
    ];
    s.push(when(
        id("load"),
        vec![if_else(
            id("snd_ll"),
            mid_ll,
            vec![if_else(
                id("snd_ee"),
                mid_ee,
                vec![if_else(id("ll_pending"), start_ll, vec![if_else(id("rewind"), rewind, vec![if_else(id("ee_ready"), start_ee, vec![setn("lk_valid", Expr::zero())])])])],
            )],
        )],
    ));

    s.push(Stmt::Comment("Physical layer: a PHY error (registered with the beat) drops the packet being received; phy_up low takes the link down.".into()));
    s.push(when(id("rxin_drop"), vec![setn("rx_beat", dec(rbw, 0)), setn("rx_bad", Expr::zero()), setn("rx_wr", id("rx_cm"))]));
    let mut down = vec![setn("link", link_down.clone())];
    for x in ["tx_en", "rx_disc", "tx_stop", "p_init", "p_iack", "p_fc", "p_ack", "p_disc", "p_clr", "p_exit", "lk_valid", "snd_ll", "snd_ee", "rewind"] {
        down.push(setn(x, Expr::zero()));
    }
    down.push(when(ne(id("link"), link_down.clone()), vec![setn("epoch", add(id("epoch"), dec(8, 1)))]));
    down.extend([setn("ll_beat", dec(llbw, 0)), setn("send_beat", dec(bb, 0)), setn("noack", dec(2, 0)), setn("stall", dec(2, 0)), setn("dsc", dec(w_dsc, 0))]);
    s.push(if_else(id("phy_up").not(), down, vec![when(eq(id("link"), link_down.clone()), vec![setn("link", link_init.clone()), setn("init_cnt", dec(w_init, 0))])]));
    s.push(set_id("inc_retrains", id("retrain_req")));
    s.push(setn("retrain_q", id("retrain_req")));

    // ---------------- registers ----------------
    let mut reset = vec![];
    let mut body = vec![];
    for (nm, w, _) in &r.list {
        // The link state resets to its named state, the receive CRC to all ones (a packet
        // start), every other register to zero.
        let value = match nm.as_str() {
            "link" => link_down.clone(),
            "rx_crc_start" => Expr::konst(32, 0xFFFF_FFFF),
            _ => dec(*w, 0),
        };
        reset.push(set_id(nm, value));
        body.push(set_id(nm, n(nm)));
    }
    let mut cregs = vec![];
    for (cn, i) in super::model::COUNTERS.iter().zip(&incs) {
        counter(&mut cregs, &mut reset, &mut body, &format!("{cn}_q"), cb, id(i), id("CNT_MAX"), "");
    }
    // One slot: the RAM holds one packet and its index is the beat alone.
    let slot_addr = |slot: Expr, beat: Expr| if slots == 1 { beat } else { cat(vec![slot, beat]) };
    let tx_addr = slot_addr(n("send_slot"), n("send_beat"));
    let rx_addr = Expr::slice("rx_rd_n", ra - 1, 0);
    let ram = vec![
        Stmt::Comment("Block RAM inference pattern: registered read (read-first), write enable, no reset.".into()),
        when(id("tx_we"), vec![Stmt::set(Expr::Index("tx_ram".into(), Box::new(slot_addr(id("head_slot"), id("wr_beat")))), cat(vec![id("tx_wlast"), id("s_axis_tdata")]))]),
        Stmt::set(id("tx_q"), Expr::Index("tx_ram".into(), Box::new(tx_addr))),
        when(
            and(id("ee_beat"), id("rx_room")),
            vec![Stmt::set(Expr::Index("rx_ram".into(), Box::new(Expr::slice("rx_wr", ra - 1, 0))), cat(vec![id("rx_vc_now"), id("rxin_last"), id("rxin_data")]))],
        ),
        Stmt::set(id("rx_q"), Expr::Index("rx_ram".into(), Box::new(rx_addr))),
    ];

    let mut items = it;
    items.extend(regs);
    items.extend(cregs);
    items.extend(c);
    items.push(Item::comment("Next state, in the reference model's order."));
    items.push(Item::AlwaysComb(s));
    items.push(Item::comment("State registers."));
    items.push(Item::AlwaysFf { reset: Some(reset), body });
    items.push(Item::AlwaysFf { reset: None, body: ram });
    items.push(Item::comment("Outputs."));
    items.push(Item::pragma("verilator lint_off UNUSED"));
    wire(&mut items, "tkeep_unused", 1, "tkeep inputs are not looked at (whole beats)", Expr::red(crate::hw::verilog::UnOp::RedXor, cat(vec![id("s_axis_tkeep"), id("s_axis_link_tkeep")])));
    items.push(Item::pragma("verilator lint_on UNUSED"));
    let ones = Expr::Const(BitVec::from_u128(d as usize, (1u128 << d) - 1));
    for (p, e) in [
        ("s_axis_tready", id("s_ready")),
        ("m_axis_tdata", Expr::slice("rx_q", dw - 1, 0)),
        ("m_axis_tkeep", ones.clone()),
        ("m_axis_tlast", Expr::bit("rx_q", dw)),
        ("m_axis_tuser", if vb == 1 { Expr::bit("rx_q", dw + 1) } else { Expr::slice("rx_q", ww - 1, dw + 1) }),
        ("m_axis_tvalid", id("m_valid")),
        ("m_axis_link_tdata", id("lk_data")),
        ("m_axis_link_tkeep", ones),
        ("m_axis_link_tlast", id("lk_last")),
        ("m_axis_link_tuser", id("lk_user")),
        ("m_axis_link_tvalid", id("link_valid")),
        ("s_axis_link_tready", Expr::one()),
        ("retrain", id("retrain_q")),
        ("llr_state", cat(vec![id("tx_stop"), id("rx_disc"), id("tx_en"), id("link")])),
    ] {
        items.push(Item::assign(id(p), e));
    }
    for cn in super::model::COUNTERS {
        items.push(Item::assign(id(cn), id(&format!("{cn}_q"))));
    }
    items.push(super::props::properties(b, design));

    GeneratedModule {
        module: Module { name: format!("{}{}", design.prefix, b.name), ports, items, reset: Some(design.reset) },
        latency: 3,
        summary: format!(
            "Gen-Z link-level reliability, one interface ({} VCs, {}-byte beats): EE packets numbered implicitly (16-bit TSEQ/RSEQ) and kept in a {}-slot retry buffer until acknowledged, LLR Init exchange, Discard / Clear Discard / Exit Discard recovery, LLR timer ACKs, {}receive credits per VC.",
            vcs,
            d,
            slots,
            if cfg.ecrc_check { "ECRC check, " } else { "" }
        ),
        notes: notes(cfg),
        role: Role::Interface,
        origin: None,
    }
}

/// `out = (base + d) mod SLOTS` for d <= SLOTS (`dw` bits wide).
fn slot_add(items: &mut Vec<Item>, out: &str, base: &str, d: Expr, dw: u32, sb: u32) {
    let sum = format!("{out}_sum");
    wire(items, &sum, dw + 1, "", add(cat(vec![dec(dw + 1 - sb, 0), id(base)]), cat(vec![Expr::zero(), d])));
    let wrapped = sub(id(&sum), id("SLOTS"));
    let sel = ge(id(&sum), id("SLOTS"));
    wire(items, &format!("{out}_mod"), dw + 1, "", mux(sel, wrapped, id(&sum)));
    wire(items, out, sb, &format!("({base} + d) mod SLOTS"), Expr::slice(&format!("{out}_mod"), sb - 1, 0));
    items.push(Item::pragma("verilator lint_off UNUSED"));
    wire(items, &format!("{out}_hi"), dw + 1 - sb, "upper bits, zero", Expr::slice(&format!("{out}_mod"), dw, sb));
    items.push(Item::pragma("verilator lint_on UNUSED"));
}

fn notes(cfg: &LlrConfig) -> Vec<String> {
    vec![
        format!("Timers in cycles (UI / ui_per_cycle = {}): Init every {}, Discard and Clear Discard every {}, LLR timer {} cycles.", cfg.ui_per_cycle, cfg.init_cycles, cfg.discard_cycles, cfg.llrt_cycles),
        "Link-local packet, 16 bytes, byte 0 first, tuser = 1 on every beat: [0] opcode (1 Init, 2 Init ACK, 3 FC, 4 ACK, 5 Discard, 6 Clear Discard, 7 Exit Discard), [1:2] TSEQ MSB first, [3:4] RSEQ MSB first, [5:8] delivered packets per VC mod 256 (credits), [9] epoch of the sender, [10] echo (the epoch an Init ACK / FC / Exit Discard answers), [11] zero, [12:15] CRC-32/ISO-HDLC of bytes 0-11 XOR 0x4C4C5231, LSB first.".into(),
        "EE packets: whole beats, unchanged on the link (tuser = 0), last 4 bytes the ECRC (CRC-32/ISO-HDLC of the rest, LSB first); VC = byte 0 [vc_bits-1:0] at the receiver.".into(),
        "llr_state: [1:0] 0 down / 1 init / 2 up, [2] EE transmission enabled, [3] receiver discarding, [4] transmitter stopped awaiting Exit Discard.".into(),
        "Latency: an EE packet's last beat on s_axis reaches the link 3 cycles later at the earliest (retry RAM write, visibility register, RAM read); a received EE packet is presented on m_axis 3 cycles after its last beat (receive input register with the CRC syndromes, commit, visibility; RAM read-first), and a received link-local packet is acted on 2 cycles after its last beat.".into(),
    ]
}
