//! The `genz_llr` interface module: every register of [`super::model::Regs`] as a register
//! `x` with its next value `x_n`, computed in one `always @*` block in the model's order (so
//! the two read alike), the two RAMs in the block-RAM inference pattern, the CRC-32 networks as
//! masked parities derived from the model's CRC step.

use super::model::{crc32_step, LlrConfig, LINK_DOWN, LINK_INIT, LINK_UP, LL_BYTES, LL_CRC_XOR, OP_ACK, OP_CLEAR, OP_DISCARD, OP_EXIT, OP_FC, OP_INIT, OP_INIT_ACK};
use super::GenzLlrBlock;
use crate::info::DesignInfo;
use crate::hw::build::{add, affine, all, and, any, bits_for, cat, counter, dec, eq, ge, id, if_else, le, localparam, lt, mux, ne, or, set_id, sub, when, wire, zeros};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};
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

/// Registers: name, width. Each gets `name_n` and is loaded from it every cycle.
struct Regs {
    list: Vec<(String, u32)>,
}

impl Regs {
    fn add(&mut self, name: &str, w: u32) {
        self.list.push((name.to_string(), w));
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
    localparam(&mut it, "SLOTS", 17, slots as u64, "retry-buffer slots (one maximum packet each)");
    localparam(&mut it, "BEAT_LAST", bb, (mb - 1) as u64, "beat index of the last beat of a maximum EE packet");
    localparam(&mut it, "MAX_BEATS", rbw, mb as u64, "beats of a maximum EE packet");
    localparam(&mut it, "LL_LAST", rbw, (llb - 1) as u64, "beat index of the last beat of a link-local packet");
    localparam(&mut it, "INIT_RELOAD", w_init, (cfg.init_cycles - 1) as u64, "init_interval_ui / ui_per_cycle - 1");
    localparam(&mut it, "DISC_RELOAD", w_disc, (cfg.discard_cycles - 1) as u64, "discard_interval_ui / ui_per_cycle - 1");
    localparam(&mut it, "LLRT_RELOAD", w_llrt, (cfg.llrt_cycles - 1) as u64, "llrt_ui / ui_per_cycle - 1");
    localparam(&mut it, "DISCARD_LIMIT", w_dsc, cfg.discard_limit as u64, "Discards without Clear Discard before a retrain");
    localparam(&mut it, "ACK_LAST", w_sa, (cfg.ack_every - 1) as u64, "ack_every - 1");
    localparam(&mut it, "RX_CAP", ra + 1, 1u64 << ra, "receive FIFO words");
    localparam(&mut it, "RX_BEAT_MAX", rbw, cfg.rx_beat_max() as u64, "saturation of the receive beat counter");
    if !vcs.is_power_of_two() {
        localparam(&mut it, "VC_LIMIT", 3, vcs as u64, "VCs");
    }
    localparam(&mut it, "RX_CREDITS", 8, cfg.rx_credits as u64, "receive credits per VC");
    let cnt_max = Expr::Const(BitVec::from_u128(cb as usize, if cb >= 128 { u128::MAX } else { (1u128 << cb) - 1 }));
    it.push(Item::Localparam { name: "CNT_MAX".into(), value: cnt_max, doc: "counter saturation".into() });

    let mut r = Regs { list: vec![] };
    for (nm, w) in [
        ("link", 2),
        ("tx_en", 1),
        ("rx_disc", 1),
        ("tx_stop", 1),
        ("retrain_q", 1),
        ("epoch", 8),
        ("iack_echo", 8),
        ("fc_echo", 8),
        ("exit_echo", 8),
        ("ll_epoch", 8),
        ("ll_echo", 8),
        ("init_cnt", w_init),
        ("disc_cnt", w_disc),
        ("clr_cnt", w_disc),
        ("llrt_cnt", w_llrt),
        ("noack", 2),
        ("stall", 2),
        ("ack_prog", 1),
        ("dsc", w_dsc),
        ("since_ack", w_sa),
        ("p_init", 1),
        ("p_iack", 1),
        ("p_fc", 1),
        ("p_ack", 1),
        ("p_disc", 1),
        ("p_clr", 1),
        ("p_exit", 1),
        ("head_seq", 16),
        ("head_slot", sb),
        ("head_vis", 16),
        ("wr_beat", bb),
        ("wr_act", 1),
        ("ack_seq", 16),
        ("ack_slot", sb),
        ("send_seq", 16),
        ("send_slot", sb),
        ("send_beat", bb),
        ("snd_ee", 1),
        ("sent_max", 16),
        ("lk_new", 1),
        ("rewind", 1),
        ("snd_ll", 1),
        ("ll_beat", llbw),
        ("ll_buf", llbuf_w),
        ("lk_valid", 1),
        ("lk_data", dw),
        ("lk_last", 1),
        ("lk_user", 1),
        ("rx_beat", rbw),
        ("rx_mark", 1),
        ("rx_bad", 1),
        ("rx_crc", 32),
        ("rx_vc", vb),
        ("rx_wr", ra + 1),
        ("rx_cm", ra + 1),
        ("rx_cm_vis", ra + 1),
        ("rx_rd", ra + 1),
        ("rseq", 16),
        ("ll_rx", 8 * LL_BYTES as u32),
        ("llg", 1),
        ("ll_op", 8),
        ("ll_rseq", 16),
        ("ll_tx_en", 1),
    ] {
        r.add(nm, w);
    }
    for v in 0..vcs {
        r.add(&format!("consumed{v}"), 8);
        r.add(&format!("returned{v}"), 8);
        r.add(&format!("freed{v}"), 8);
        r.add(&format!("ll_freed{v}"), 8);
    }
    let mut regs = vec![Item::comment("Registers x and their next values x_n (computed in the always @* block below).")];
    for (nm, w) in &r.list {
        regs.push(Item::reg(nm, *w, ""));
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

    // ---------------- combinational decode (continuous assigns) ----------------
    let mut c: Vec<Item> = vec![Item::comment("RX: the beat from the link.")];
    wire(&mut c, "rx_first", 1, "first beat of a packet", eq(id("rx_beat"), dec(rbw, 0)));
    wire(&mut c, "rx_mark_now", 1, "the packet's link-local marker (first beat's tuser)", mux(id("rx_first"), id("s_axis_link_tuser"), id("rx_mark")));
    wire(
        &mut c,
        "rx_bad_now",
        1,
        "marker differs between beats",
        or(id("rx_bad"), and(id("rx_first").not(), ne(id("s_axis_link_tuser"), id("rx_mark")))),
    );
    wire(&mut c, "crc_in", 32, "CRC register before this beat", mux(id("rx_first"), Expr::konst(32, 0xFFFF_FFFF), id("rx_crc")));
    wire(&mut c, "crc_full_in", 32 + dw, "", cat(vec![id("s_axis_link_tdata"), id("crc_in")]));
    c.push(Item::wire("crc_full", 32, "CRC register after the whole beat"));
    affine(&mut c, "crc_full", "crc_full_in", &crc_map(d as usize, false));
    let part_in = if d > 4 { cat(vec![Expr::slice("s_axis_link_tdata", 8 * (d - 4) - 1, 0), id("crc_in")]) } else { id("crc_in") };
    wire(&mut c, "crc_part_in", 32 + 8 * (d - 4), "", part_in);
    c.push(Item::wire("ecrc_calc", 32, "CRC-32/ISO-HDLC of the packet up to its last 4 bytes"));
    affine(&mut c, "ecrc_calc", "crc_part_in", &crc_map(d as usize - 4, true));
    wire(&mut c, "ecrc_fail", 1, "the ECRC in the last 4 bytes differs", if cfg.ecrc_check { ne(id("ecrc_calc"), Expr::slice("s_axis_link_tdata", dw - 1, dw - 32)) } else { Expr::zero() });
    if !cfg.ecrc_check {
        c.push(Item::pragma("verilator lint_off UNUSED"));
        wire(&mut c, "ecrc_unused", 1, "ecrc_check = false: the ECRC is not compared", Expr::red(crate::hw::verilog::UnOp::RedXor, id("ecrc_calc")));
        c.push(Item::pragma("verilator lint_on UNUSED"));
    }
    let vc_first = if vb == 1 { Expr::bit("s_axis_link_tdata", 0) } else { Expr::slice("s_axis_link_tdata", vb - 1, 0) };
    wire(&mut c, "rx_vc_now", vb, "VC of the packet: byte 0 [vc_bits-1:0] of its first beat", mux(id("rx_first"), vc_first, id("rx_vc")));
    let vc_ok = if vcs.is_power_of_two() { Expr::one() } else { lt(cat(vec![dec(3 - vb, 0), id("rx_vc_now")]), id("VC_LIMIT")) };
    wire(&mut c, "rx_vc_ok", 1, "the VC exists", vc_ok);
    wire(&mut c, "rx_fill", ra + 1, "receive FIFO words in use (committed, or of the packet being checked)", sub(id("rx_wr"), id("rx_rd")));
    wire(&mut c, "rx_room", 1, "the beat fits: within a maximum packet and the FIFO", and(lt(id("rx_beat"), id("MAX_BEATS")), lt(id("rx_fill"), id("RX_CAP"))));
    wire(&mut c, "ee_beat", 1, "an EE beat arrives", and(id("s_axis_link_tvalid"), id("rx_mark_now").not()));
    wire(&mut c, "ee_end", 1, "", and(id("ee_beat"), id("s_axis_link_tlast")));
    wire(&mut c, "ee_good", 1, "a whole, intact EE packet", all(vec![id("ee_end"), id("rx_bad_now").not(), id("rx_room"), id("ecrc_fail").not(), id("rx_vc_ok")]));
    wire(&mut c, "rx_accept", 1, "EE packets are accepted: link up (Init exchange done), not discarding, no PHY error", all(vec![eq(id("link"), link_up.clone()), id("rx_disc").not(), id("phy_up"), id("phy_error").not()]));
    wire(&mut c, "commit", 1, "deliver the packet", and(id("ee_good"), id("rx_accept")));
    wire(&mut c, "ll_bytes", 8 * LL_BYTES as u32, "the link-local packet ending with this beat", cat(vec![id("s_axis_link_tdata"), Expr::slice("ll_rx", 8 * LL_BYTES as u32 - 1, dw)]));
    wire(&mut c, "ll_body", 96, "bytes 0-11", Expr::slice("ll_bytes", 95, 0));
    c.push(Item::wire("ll_crc_calc", 32, "their LL CRC"));
    affine(&mut c, "ll_crc_calc", "ll_body", &ll_crc_map());
    wire(&mut c, "ll_end", 1, "", all(vec![id("s_axis_link_tvalid"), id("rx_mark_now"), id("s_axis_link_tlast")]));
    wire(&mut c, "ll_op_now", 8, "", Expr::slice("ll_bytes", 7, 0));
    wire(
        &mut c,
        "ll_ok",
        1,
        "a whole, intact link-local packet with a known opcode",
        all(vec![
            id("ll_end"),
            id("rx_bad_now").not(),
            eq(id("rx_beat"), id("LL_LAST")),
            eq(id("ll_crc_calc"), Expr::slice("ll_bytes", 127, 96)),
            ge(id("ll_op_now"), id("OP_INIT")),
            le(id("ll_op_now"), id("OP_EXIT")),
        ]),
    );
    wire(&mut c, "rx_err", 1, "a packet error or a PHY error", or(or(and(id("ee_end"), id("ee_good").not()), and(id("ll_end"), id("ll_ok").not())), id("phy_error")));
    wire(&mut c, "m_valid", 1, "committed words not yet delivered", ne(id("rx_rd"), id("rx_cm_vis")));
    wire(&mut c, "m_fire", 1, "", and(id("m_valid"), id("m_axis_tready")));

    c.push(Item::comment("LL packet received last cycle: moving the acknowledged point to its RSEQ."));
    let got = |op: &str| and(id("llg"), eq(id("ll_op"), id(op)));
    wire(
        &mut c,
        "enable",
        1,
        "an Init ACK or FC answering a packet sent since our last stop: resume EE from its RSEQ",
        all(vec![or(got("OP_INIT_ACK"), got("OP_FC")), eq(id("ll_echo"), id("epoch")), id("tx_en").not()]),
    );
    wire(
        &mut c,
        "exit_ok",
        1,
        "an Exit Discard answering a Clear Discard sent since our stop: resume from its RSEQ",
        all(vec![got("OP_EXIT"), ne(id("link"), link_down.clone()), id("tx_stop"), eq(id("ll_echo"), id("epoch"))]),
    );
    wire(&mut c, "ack_dist", 16, "", sub(id("ll_rseq"), id("ack_seq")));
    wire(&mut c, "ack_ok", 1, "RSEQ lies between the acknowledged point and the send point", le(id("ack_dist"), sub(id("send_seq"), id("ack_seq"))));
    slot_add(&mut c, "ack_slot_new", "ack_slot", id("ack_dist"), 16, sb);
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
    wire(&mut c, "expiry", 1, "the LLR timer expires", and(eq(id("link"), link_up.clone()), eq(id("llrt_cnt"), dec(w_llrt, 0))));

    c.push(Item::comment("TX write side: credits and room for a new packet."));
    wire(&mut c, "outstanding", 16, "packets in the retry buffer", sub(id("head_seq"), id("ack_seq")));
    let credit_terms: Vec<Expr> = (0..vcs)
        .map(|v| {
            let sel = eq(id("s_axis_tuser"), dec(vb, v as u64));
            and(sel, lt(sub(id(&format!("consumed{v}")), id(&format!("returned{v}"))), id("RX_CREDITS")))
        })
        .collect();
    wire(&mut c, "credit_ok", 1, "the offered VC has a credit", any(credit_terms));
    wire(&mut c, "slot_free", 1, "a retry slot is free", lt(cat(vec![Expr::zero(), id("outstanding")]), id("SLOTS")));
    wire(&mut c, "s_ready", 1, "", or(id("wr_act"), and(id("slot_free"), id("credit_ok"))));
    wire(&mut c, "s_fire", 1, "", and(id("s_axis_tvalid"), id("s_ready")));
    slot_add(&mut c, "head_slot_inc", "head_slot", dec(16, 1), 16, sb);
    slot_add(&mut c, "send_slot_inc", "send_slot", dec(16, 1), 16, sb);

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
    affine(&mut c, "tx_ll_crc", "tx_ll_body", &ll_crc_map());
    wire(&mut c, "tx_ll", 128, "the whole link-local packet", cat(vec![id("tx_ll_crc"), id("tx_ll_body")]));
    wire(&mut c, "link_valid", 1, "a beat is presented: the output register's, while phy_up is high", and(id("lk_valid"), id("phy_up")));
    wire(&mut c, "ee_done", 1, "the PHY takes the last beat of an EE packet", all(vec![id("link_valid"), id("m_axis_link_tready"), id("lk_last"), id("lk_user").not()]));
    wire(&mut c, "load", 1, "the link output register takes a new beat (never while phy_up is low)", and(id("phy_up"), or(id("lk_valid").not(), id("m_axis_link_tready"))));
    wire(&mut c, "tq_data", dw, "", Expr::slice("tx_q", dw - 1, 0));
    wire(&mut c, "tq_last", 1, "", Expr::bit("tx_q", dw));
    wire(&mut c, "ee_ready", 1, "an EE packet may start", all(vec![eq(id("link"), link_up.clone()), id("tx_en"), id("tx_stop").not(), ne(id("send_seq"), id("head_vis"))]));

    // ---------------- next state ----------------
    let mut s: Vec<Stmt> = vec![Stmt::Comment("Defaults: hold.".into())];
    for (nm, _) in &r.list {
        s.push(setn(nm, id(nm)));
    }
    for i in &incs {
        s.push(set_id(i, Expr::zero()));
    }
    for x in ["retrain_req", "progressed", "tx_we", "tx_wlast"] {
        s.push(set_id(x, Expr::zero()));
    }
    s.push(set_id("inc_ecrc_errors", and(id("ee_end"), id("ecrc_fail"))));
    s.push(Stmt::Comment("RX: one beat from the link.".into()));
    let rx_inc = mux(id("s_axis_link_tlast"), dec(rbw, 0), mux(eq(id("rx_beat"), id("RX_BEAT_MAX")), id("rx_beat"), add(id("rx_beat"), dec(rbw, 1))));
    s.push(when(
        id("s_axis_link_tvalid"),
        vec![
            setn("rx_beat", rx_inc),
            setn("rx_mark", id("rx_mark_now")),
            setn("rx_bad", and(id("s_axis_link_tlast").not(), id("rx_bad_now"))),
            setn("rx_crc", id("crc_full")),
            setn("rx_vc", id("rx_vc_now")),
            setn("ll_rx", id("ll_bytes")),
            when(and(id("ee_beat"), id("rx_room")), vec![setn("rx_wr", add(id("rx_wr"), dec(ra + 1, 1)))]),
            when(id("ee_end"), vec![if_else(id("commit"), vec![setn("rx_cm", n("rx_wr"))], vec![setn("rx_wr", id("rx_cm"))])]),
        ],
    ));
    s.push(setn("llg", and(id("ll_ok"), id("phy_up"))));
    let mut ll_load = vec![setn("ll_op", id("ll_op_now")), setn("ll_epoch", Expr::slice("ll_bytes", 79, 72)), setn("ll_echo", Expr::slice("ll_bytes", 87, 80)), setn("ll_rseq", cat(vec![Expr::slice("ll_bytes", 31, 24), Expr::slice("ll_bytes", 39, 32)])), setn("ll_tx_en", Expr::bit("ll_bytes", 88))];
    for v in 0..vcs {
        ll_load.push(setn(&format!("ll_freed{v}"), Expr::slice("ll_bytes", 47 + 8 * v, 40 + 8 * v)));
    }
    s.push(when(id("ll_ok"), ll_load));
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
    s.push(when(
        and(id("do_ack"), id("ack_ok")),
        vec![setn("ack_seq", id("ll_rseq")), setn("ack_slot", id("ack_slot_new")), set_id("progressed", ne(id("ack_dist"), dec(16, 0)))],
    ));
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
    s.push(when(eq(id("link"), link_up.clone()), vec![setn("llrt_cnt", mux(id("expiry"), id("LLRT_RELOAD"), sub(id("llrt_cnt"), dec(w_llrt, 1))))]));
    s.push(if_else(
        got("OP_ACK"),
        vec![setn("noack", dec(2, 0))],
        vec![when(
            id("expiry"),
            vec![if_else(eq(id("noack"), noack_last), vec![setn("noack", dec(2, 0)), set_id("retrain_req", Expr::one())], vec![setn("noack", add(id("noack"), dec(2, 1)))])],
        )],
    ));
    s.push(setn("ack_prog", mux(id("expiry"), id("progressed"), or(id("ack_prog"), id("progressed")))));
    s.push(when(
        id("expiry"),
        vec![
            setn("p_ack", Expr::one()),
            if_else(
                all(vec![ne(id("send_seq"), id("ack_seq")), id("ack_prog").not(), id("progressed").not(), id("tx_stop").not()]),
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
        vec![setn("llrt_cnt", id("LLRT_RELOAD")), setn("noack", dec(2, 0)), setn("stall", dec(2, 0)), setn("ack_prog", Expr::zero())],
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
    s.push(setn("head_vis", id("head_seq")));

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
    let rewind = vec![setn("rewind", Expr::zero()), setn("lk_valid", Expr::zero()), setn("send_seq", n("ack_seq")), setn("send_slot", n("ack_slot")), setn("send_beat", dec(bb, 0))];
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

    s.push(Stmt::Comment("Physical layer: a PHY error drops the packet being received; phy_up low takes the link down.".into()));
    s.push(when(or(id("phy_error"), id("phy_up").not()), vec![setn("rx_beat", dec(rbw, 0)), setn("rx_bad", Expr::zero()), setn("rx_wr", id("rx_cm"))]));
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
    for (nm, w) in &r.list {
        // The link state resets to its named state, every other register to zero.
        let value = if *nm == "link" { link_down.clone() } else { dec(*w, 0) };
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
            vec![Stmt::set(Expr::Index("rx_ram".into(), Box::new(Expr::slice("rx_wr", ra - 1, 0))), cat(vec![id("rx_vc_now"), id("s_axis_link_tlast"), id("s_axis_link_tdata")]))],
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
        "Latency: an EE packet's last beat on s_axis reaches the link 3 cycles later at the earliest (retry RAM write, visibility register, RAM read); a received EE packet is presented on m_axis 2 cycles after its last beat (commit, visibility; RAM read-first).".into(),
    ]
}
