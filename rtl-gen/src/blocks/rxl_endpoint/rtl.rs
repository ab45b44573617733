//! The `rxl_endpoint` module and the sub-modules it builds through the other kinds' generators:
//! `<name>_replay` (replay_buffer), `<name>_crc` (rs_crc, or crc for the CRC-64 option: the
//! generator, used by the transmitter and, without sequence number, by the receiver) and
//! `<name>_fec_enc` + `<name>_fec_dec` (rs_fec, the decoder pipelined). The behaviour is the
//! cycle-accurate model's ([`super::model`]), register for register.
//!
//! The receive path is pipelined so that no path crosses more than 5 LUT6 levels while a flit
//! is taken every cycle: the FEC decoder's [`RX_FEC_STAGES`] stages, then a register for the
//! CRC of the corrected flit computed without sequence number, then a register for the check.
//! The ISN makes the check depend on ESeqNum, which the decision one stage later may still
//! advance: the check stage compares against both ESeqNum and ESeqNum + 1 (the CRC is affine
//! in the sequence number, so each is the CRC register XOR the sequence number's columns), and
//! the decision takes the second exactly when it delivered a flit the cycle before.

use super::flit::{CrcChoice, FecChoice, CRC64_ALGO, SEQ_BITS};
use super::model::Mode;
use super::{RxlEndpointBlock, RX_FEC_STAGES};
use super::flit::FlitCodec;
use crate::blocks::crc::{AlgoParams, CrcParams, XorStyleName};
use crate::blocks::replay_buffer::{ReplayBufferBlock, ReplayBufferParams};
use crate::blocks::rs_crc::model::{Orientation, PCIE6_CRC_FIELD_POLY};
use crate::blocks::rs_crc::{BitOrder, RsCrcParams};
use crate::blocks::rs_fec::model::FLIT_FEC_FIELD_POLY;
use crate::blocks::rs_fec::{Layout, RsFecCode, RsFecParams};
use crate::blocks::Block;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::build::{add, and, bits_for, clocked_instance, counter, dec, eq, id, instance, le, localparam, mux, ne, or, sub, unused_wires, wire, zext};
use crate::hw::verilog::{BinOp, Expr, Item, Module, Port, Stmt, UnOp};

pub const PAYLOAD_BITS: u32 = 1920;
pub const FLIT_BITS: u32 = 2048;
pub const MSG_BITS: u32 = 2000;
pub const CRC_DATA_BITS: u32 = 1936;

/// The FEC sub-block's parameters (combinational) for the chosen layout.
pub fn fec_params(fec: FecChoice) -> RsFecParams {
    let layout = match fec {
        FecChoice::Pcie6 => Layout::Pcie6,
        FecChoice::Generic => Layout::Generic,
    };
    let code = RsFecCode { symbol_bits: 8, field_poly: FLIT_FEC_FIELD_POLY, fcr: 0, check_symbols: 2, ways: 3, msg_bytes: Some(MSG_BITS / 8), msg_symbols: None, layout, symbols_per_cycle: None };
    RsFecParams { code, pipeline: 0, enc_pipeline: None, ser_threshold: None, ser_window: None, counter_bits: None }
}

/// The CRC sub-block (the generator, combinational, 10-bit ISN) named `name`: the receiver
/// checks with it too (the CRC of the received data against the received CRC, the sequence
/// number added after a register), so no checker module is built.
fn crc_modules(b: &RxlEndpointBlock, design: &DesignInfo, name: &str) -> Vec<GeneratedModule> {
    match b.crc {
        CrcChoice::RsCrc => RsCrcParams {
            symbol_bits: 8,
            field_poly: PCIE6_CRC_FIELD_POLY,
            first_root: 1,
            root_count: 8,
            data_bytes: CRC_DATA_BITS / 8,
            seq_bits: SEQ_BITS,
            pipeline: 0,
            checker: false,
            orientation: Orientation::MsbFirst,
            bit_order: BitOrder::Lsb0,
        }
        .block(name)
        .expect("the PCIe 6.0 flit CRC is a valid rs_crc block")
        .elaborate(design),
        CrcChoice::Crc64 => CrcParams {
            algo: AlgoParams::of(&CRC64_ALGO),
            data_bits: CRC_DATA_BITS,
            seq_bits: SEQ_BITS,
            pipeline: 0,
            checker: false,
            xor_style: XorStyleName::Lut6Shared,
            xor_window: None,
        }
        .block(name)
        .expect("the RXL CRC-64 is a valid crc block")
        .elaborate(design),
    }
}

/// Names of the endpoint's modules: the sub-modules, then the endpoint itself.
pub fn module_names(b: &RxlEndpointBlock, design: &DesignInfo) -> Vec<String> {
    let base = format!("{}{}", design.prefix, b.name);
    ["_replay", "_crc", "_fec_enc", "_fec_dec", ""].iter().map(|s| format!("{base}{s}")).collect()
}

pub fn modules(b: &RxlEndpointBlock, design: &DesignInfo) -> Vec<GeneratedModule> {
    let names = module_names(b, design);
    let rb = ReplayBufferBlock { name: format!("{}_replay", b.name), params: ReplayBufferParams { entry_bits: PAYLOAD_BITS, seq_bits: SEQ_BITS, depth: b.replay_depth } };
    let mut out = rb.elaborate(design);
    assert_eq!(out[0].name(), names[0], "replay module name");
    let crc = crc_modules(b, design, &format!("{}_crc", b.name));
    assert_eq!(crc.iter().map(|m| m.name()).collect::<Vec<_>>(), [names[1].as_str()], "CRC module names");
    out.extend(crc);
    // The decoder pipelined (its syndromes, the error location, its output register), the
    // encoder combinational after the flit register.
    let fec = RsFecParams { pipeline: RX_FEC_STAGES, enc_pipeline: Some(0), ..fec_params(b.fec) }
        .block(&format!("{}_fec", b.name))
        .expect("the endpoint's pipelined flit FEC is a valid rs_fec block")
        .elaborate(design);
    assert_eq!((fec[0].name(), fec[1].name()), (names[2].as_str(), names[3].as_str()), "FEC module names");
    out.extend(fec);
    out.push(endpoint(b, design, &names));
    out
}

fn endpoint(b: &RxlEndpointBlock, design: &DesignInfo, names: &[String]) -> GeneratedModule {
    let cfg = &b.params;
    let rxl = cfg.mode == Mode::Rxl;
    let cb = cfg.counter_bits;
    let s = SEQ_BITS;
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("s_valid", 1, "a payload is offered for transmission"),
        Port::output("s_ready", 1, "the replay buffer has room: the payload is taken when s_valid && s_ready"),
        Port::input("s_payload", PAYLOAD_BITS, "240-byte payload; byte j at [8j+7:8j], flit byte 2+j"),
        Port::output("tx_valid", 1, "tx_flit holds a flit (always, after the first cycle out of reset)"),
        Port::input("tx_ready", 1, "the link takes tx_flit this cycle"),
        Port::output("tx_flit", FLIT_BITS, "256-byte flit to the link; byte i at [8i+7:8i], byte 0 first on the wire"),
        Port::input("rx_valid", 1, "rx_flit holds a flit from the link"),
        Port::input("rx_flit", FLIT_BITS, "256-byte flit from the link"),
        Port::output("m_valid", 1, "m_payload is the next payload, in order (no backpressure)"),
        Port::output("m_payload", PAYLOAD_BITS, "delivered 240-byte payload"),
        Port::output("cnt_flits_sent", cb, "flits transferred on tx_flit (saturating)"),
        Port::output("cnt_replays", cb, "go-back-N replays started (NACK or replay timeout; saturating)"),
        Port::output("cnt_crc_fail", cb, "received flits failing the CRC check (saturating)"),
        Port::output("cnt_fec_corrected", cb, "received flits the FEC corrected (saturating)"),
        Port::output("cnt_fec_uncorrectable", cb, "received flits the FEC found uncorrectable (saturating)"),
        Port::output("cnt_nacks_sent", cb, "NACKs sent (saturating)"),
    ]);
    let [n_replay, n_crc, n_enc, n_dec, _] = names else { panic!("five module names") };
    let w_ae = bits_for(cfg.ack_every as u64);
    let w_at = bits_for(cfg.ack_timeout as u64);
    let w_nt = bits_for(cfg.nack_timeout as u64);
    let w_rt = bits_for(cfg.replay_timeout as u64);
    let mut it: Vec<Item> = Vec::new();
    it.push(Item::comment(&format!(
        "Flit: bytes 0-1 header {{type[15:12], ReplayCmd[11:10], FSN[9:0]}}, 2-241 payload, 242-249 CRC, 250-255 FEC.\nMode {}: {}",
        b.mode_name(),
        if rxl { "FSN = AckNum when ReplayCmd != 0, else 0; SeqNum folded into the CRC (ISN) of payload flits." } else { "FSN = SeqNum on payload flits, or AckNum when ReplayCmd != 0; CRC without sequence number." }
    )));
    localparam(&mut it, "REPLAY_CMD_NONE", 2, 0, "ReplayCmd: no AckNum in the FSN field");
    localparam(&mut it, "REPLAY_CMD_ACK", 2, 1, "ReplayCmd: ACK, FSN = AckNum");
    localparam(&mut it, "REPLAY_CMD_NACK", 2, 2, "ReplayCmd: NACK, FSN = AckNum (last good SeqNum)");
    localparam(&mut it, "FLIT_TYPE_PAYLOAD", 4, 1, "header type of a payload flit (0: control flit)");
    localparam(&mut it, "ACK_EVERY", w_ae, cfg.ack_every as u64, "payloads delivered per coalesced ACK");
    localparam(&mut it, "ACK_TIMEOUT", w_at, cfg.ack_timeout as u64, "cycles an ACK for fewer payloads may wait");
    localparam(&mut it, "NACK_TIMEOUT", w_nt, cfg.nack_timeout as u64, "cycles of discarding before the NACK is sent again");
    localparam(&mut it, "REPLAY_TIMEOUT", w_rt, cfg.replay_timeout as u64, "cycles without ACK/NACK before the oldest flit is replayed");
    let cnt_max = if cb >= 64 { u64::MAX } else { (1u64 << cb) - 1 };
    localparam(&mut it, "CNT_MAX", cb, cnt_max, "status counters saturate here");
    if rxl {
        for (k, column) in FlitCodec::isn_columns(cfg.crc).into_iter().enumerate() {
            localparam(&mut it, &format!("ISN_COLUMN_{k}"), 64, column, &format!("what sequence-number bit {k} XORs into the CRC"));
        }
    }

    // ---------------- registers ----------------
    let mut regs = vec![
        Item::reg("t1_valid", 1, "tx_flit holds a flit"),
        Item::reg("t1_msg", MSG_BITS, "flit bytes 0-249 (header, payload, CRC); the FEC encoder makes tx_flit of it"),
        Item::reg("ctl_valid", 1, "a good received flit carried an ACK/NACK, applied to the replay buffer now"),
        Item::reg("ctl_cmd", 2, "its ReplayCmd"),
        Item::reg("ctl_fsn", s, "its FSN (AckNum)"),
        Item::reg("stall_timer", w_rt, "cycles without ACK/NACK while the replay buffer holds flits"),
        Item::reg("rq_valid", 1, "a replay was requested last cycle: the buffer judges it now"),
        Item::reg("rq_seq", s, "its first sequence number"),
        Item::reg("rc_valid", 1, "RX CRC stage: a decoded flit"),
        Item::reg("rc_msg", MSG_BITS, "its FEC-corrected bytes 0-249"),
        Item::reg("rc_corrected", 1, "the FEC corrected it"),
        Item::reg("rc_uncorrectable", 1, "the FEC found it uncorrectable"),
        Item::reg("rc_crc", 64, "the CRC of its bytes 0-241 without sequence number"),
        Item::reg("rd_valid", 1, "RX check stage: the flit the decision takes"),
        Item::reg("rd_msg", CRC_DATA_BITS, "its FEC-corrected header and payload (bytes 0-241)"),
        Item::reg("rd_corrected", 1, "the FEC corrected it"),
        Item::reg("rd_uncorrectable", 1, "the FEC found it uncorrectable"),
        Item::reg("eseq", s, "ESeqNum: SeqNum of the next payload flit to deliver"),
        Item::reg("discard", 1, "a flit was lost: discard until the expected flit arrives"),
        Item::reg("nack_pending", 1, "a NACK waits for the next transmitted flit"),
        Item::reg("since_ack", w_ae, "payloads delivered since the last ACK/NACK sent (saturates at ack_every)"),
        Item::reg("ack_timer", w_at, "cycles since then while since_ack > 0 (saturates at ack_timeout)"),
        Item::reg("nack_timer", w_nt, "cycles spent discarding since the last NACK"),
        Item::reg("m_valid_q", 1, ""),
        Item::reg("m_payload_q", PAYLOAD_BITS, ""),
    ];
    if rxl {
        regs.push(Item::reg("rc_payload", 1, "the flit's type is payload: its CRC carries the ISN"));
        regs.push(Item::reg("rd_crc_ok_now", 1, "its CRC checks against ESeqNum as it was last cycle (0 for a control flit)"));
        regs.push(Item::reg("rd_crc_ok_next", 1, "its CRC checks against that ESeqNum + 1 (0 for a control flit)"));
        regs.push(Item::reg("eseq_next", s, "ESeqNum + 1"));
    } else {
        regs.push(Item::reg("rd_crc_ok", 1, "its CRC checks"));
        regs.push(Item::reg("replay_start", 1, "the next payload flit starts a replay: it carries its SeqNum, no AckNum"));
    }
    let mut reset = vec![];
    for (n, w) in [
        ("t1_valid", 1),
        ("ctl_valid", 1),
        ("stall_timer", w_rt),
        ("rq_valid", 1),
        ("rc_valid", 1),
        ("rd_valid", 1),
        ("eseq", s),
        ("discard", 1),
        ("nack_pending", 1),
        ("since_ack", w_ae),
        ("ack_timer", w_at),
        ("nack_timer", w_nt),
        ("m_valid_q", 1),
    ] {
        reset.push(Stmt::set(id(n), dec(w, 0)));
    }
    if rxl {
        reset.push(Stmt::set(id("eseq_next"), dec(s, 1)));
    } else {
        reset.push(Stmt::set(id("replay_start"), Expr::zero()));
    }

    // ---------------- RX: FEC decoder stages ----------------
    let mut rx1 = vec![Item::comment(&format!("RX stages 1-{RX_FEC_STAGES}: the FEC decoder, pipelined; its outputs are registered."))];
    rx1.push(Item::wire("dec_valid", 1, "a decoded flit"));
    rx1.push(Item::wire("dec_msg", MSG_BITS, "its corrected bytes 0-249"));
    rx1.push(Item::wire("dec_corrected", 1, ""));
    rx1.push(Item::wire("dec_uncorrectable", 1, ""));
    unused_wires(&mut rx1, &[("dec_way_corrected", 3, "per-way flags, not needed here"), ("dec_way_uncorrectable", 3, "")]);
    rx1.push(clocked_instance(
        n_dec,
        "u_fec_dec",
        design.reset,
        vec![
            ("in_valid", id("rx_valid")),
            ("cw", id("rx_flit")),
            ("msg", id("dec_msg")),
            ("corrected", id("dec_corrected")),
            ("uncorrectable", id("dec_uncorrectable")),
            ("way_corrected", id("dec_way_corrected")),
            ("way_uncorrectable", id("dec_way_uncorrectable")),
            ("out_valid", id("dec_valid")),
        ],
    ));

    // ---------------- RX: CRC and check stages ----------------
    rx1.push(Item::comment("RX CRC stage: the CRC of the corrected header and payload without sequence number (the generator's network)."));
    rx1.push(Item::wire("dec_crc", 64, ""));
    rx1.push(instance(n_crc, "u_crc_rx", vec![("data", Expr::slice("dec_msg", CRC_DATA_BITS - 1, 0)), ("seq", dec(s, 0)), ("crc", id("dec_crc"))]));
    rx1.push(Item::comment("RX check stage: the received CRC against the computed one, the sequence number's columns added."));
    wire(&mut rx1, "rc_syndrome", 64, "CRC(data, 0) ^ received CRC: zero iff a flit without ISN checks", Expr::bin(BinOp::Xor, id("rc_crc"), Expr::slice("rc_msg", MSG_BITS - 1, CRC_DATA_BITS)));
    if rxl {
        let isn = |seq: &str| {
            let column = |k: u32| and(Expr::Repeat(64, Box::new(Expr::bit(seq, k))), id(&format!("ISN_COLUMN_{k}")));
            (1..s).fold(column(0), |acc, k| Expr::bin(BinOp::Xor, acc, column(k)))
        };
        wire(&mut rx1, "isn_now", 64, "what ESeqNum XORs into a payload flit's CRC", isn("eseq"));
        wire(&mut rx1, "isn_next", 64, "what ESeqNum + 1 XORs into it", isn("eseq_next"));
    }

    // ---------------- RX decision ----------------
    let mut c = vec![Item::comment("RX decision: on the checked flit (against ESeqNum for rxl payload flits).")];
    wire(&mut c, "h_fsn", s, "received FSN", Expr::slice("rd_msg", 9, 0));
    wire(&mut c, "h_cmd", 2, "received ReplayCmd", Expr::slice("rd_msg", 11, 10));
    wire(&mut c, "h_payload", 1, "received flit type is payload (1)", eq(Expr::slice("rd_msg", 15, 12), id("FLIT_TYPE_PAYLOAD")));
    if rxl {
        wire(
            &mut c,
            "crc_ok",
            1,
            "the CRC matches: a delivery last cycle advanced ESeqNum after the check stage compared",
            mux(id("m_valid_q"), id("rd_crc_ok_next"), id("rd_crc_ok_now")),
        );
    } else {
        wire(&mut c, "crc_ok", 1, "the CRC matches", id("rd_crc_ok"));
    }
    wire(&mut c, "good", 1, "a correctable flit whose CRC checks", and(and(id("rd_valid"), id("rd_uncorrectable").not()), id("crc_ok")));
    wire(&mut c, "bad", 1, "corrupted, or (rxl) out of sequence", and(id("rd_valid"), id("good").not()));
    wire(&mut c, "h_has_ack", 1, "ReplayCmd is ACK or NACK", or(eq(id("h_cmd"), id("REPLAY_CMD_ACK")), eq(id("h_cmd"), id("REPLAY_CMD_NACK"))));
    if rxl {
        wire(&mut c, "deliver", 1, "the ISN proved SeqNum == ESeqNum", and(id("good"), id("h_payload")));
    } else {
        wire(&mut c, "explicit", 1, "a good payload flit whose FSN is its SeqNum", and(and(id("good"), id("h_payload")), eq(id("h_cmd"), id("REPLAY_CMD_NONE"))));
        wire(
            &mut c,
            "deliver",
            1,
            "explicit: FSN == ESeqNum; with an AckNum: unchecked unless discarding (Fig. 4)",
            mux(id("explicit"), eq(id("h_fsn"), id("eseq")), and(and(id("good"), id("h_payload")), id("discard").not())),
        );
        wire(&mut c, "seq_error", 1, "explicit FSN != ESeqNum", and(id("explicit"), ne(id("h_fsn"), id("eseq"))));
    }
    // rxl: the ISN makes an out-of-sequence flit fail the CRC, so `bad` is every error.
    let error = if rxl { id("bad") } else { or(id("bad"), id("seq_error")) };
    wire(&mut c, "trigger_nack", 1, "first error: start discarding, schedule a NACK", and(error, id("discard").not()));
    wire(
        &mut c,
        "renack",
        1,
        "discarding for nack_timeout cycles: send the NACK again",
        and(and(id("discard"), id("deliver").not()), eq(id("nack_timer"), sub(id("NACK_TIMEOUT"), dec(w_nt, 1)))),
    );

    // ---------------- TX ----------------
    c.push(Item::comment("TX: replay-buffer control from the received ACK/NACK (ctl) and the replay timer."));
    c.push(Item::wire("rb_push_ready", 1, ""));
    c.push(Item::wire("rb_out_valid", 1, ""));
    c.push(Item::wire("rb_out_data", PAYLOAD_BITS, ""));
    c.push(Item::wire("rb_out_seq", s, ""));
    c.push(Item::wire("rb_head", s, "oldest unacknowledged SeqNum"));
    c.push(Item::wire("rb_count", s, ""));
    unused_wires(&mut c, &[("rb_push_seq", s, "SeqNum of the next push: the flit carries rb_out_seq"), ("rb_full", 1, "same as !rb_push_ready")]);
    wire(&mut c, "ctl_ack", 1, "", and(id("ctl_valid"), or(eq(id("ctl_cmd"), id("REPLAY_CMD_ACK")), eq(id("ctl_cmd"), id("REPLAY_CMD_NACK")))));
    wire(&mut c, "ctl_nack", 1, "", and(id("ctl_valid"), eq(id("ctl_cmd"), id("REPLAY_CMD_NACK"))));
    wire(
        &mut c,
        "timeout",
        1,
        "no ACK/NACK for replay_timeout cycles while flits are held",
        and(and(id("ctl_ack").not(), ne(id("rb_count"), dec(s, 0))), eq(id("stall_timer"), sub(id("REPLAY_TIMEOUT"), dec(w_rt, 1)))),
    );
    wire(&mut c, "replay_seq", s, "NACK: after the last good SeqNum; timeout: the oldest", mux(id("ctl_nack"), add(id("ctl_fsn"), dec(s, 1)), id("rb_head")));
    wire(&mut c, "replay_valid", 1, "", or(id("ctl_nack"), id("timeout")));
    wire(&mut c, "replay_taken", 1, "the buffer takes last cycle's request now (rq_seq - head <= count)", and(id("rq_valid"), le(sub(id("rq_seq"), id("rb_head")), id("rb_count"))));
    c.push(Item::comment("TX: the flit register loads when the link takes the current flit (or holds none)."));
    wire(&mut c, "load", 1, "", or(id("tx_ready"), id("t1_valid").not()));
    let payload_cond = if rxl { and(and(id("load"), id("rb_out_valid")), id("nack_pending").not()) } else { and(id("load"), id("rb_out_valid")) };
    wire(&mut c, "payload", 1, if rxl { "send the buffer's flit (a pending NACK goes first, in a control flit of its own)" } else { "send the buffer's flit" }, payload_cond);
    wire(
        &mut c,
        "ack_due",
        1,
        "ack_every payloads delivered, or some and ack_timeout cycles",
        or(eq(id("since_ack"), id("ACK_EVERY")), and(ne(id("since_ack"), dec(w_ae, 0)), eq(id("ack_timer"), id("ACK_TIMEOUT")))),
    );
    let cmd = mux(id("nack_pending"), id("REPLAY_CMD_NACK"), mux(id("ack_due"), id("REPLAY_CMD_ACK"), id("REPLAY_CMD_NONE")));
    let cmd = if rxl { cmd } else { mux(and(id("payload"), id("replay_start")), id("REPLAY_CMD_NONE"), cmd) };
    wire(&mut c, "tx_cmd", 2, if rxl { "ReplayCmd to send" } else { "ReplayCmd to send; none on the first flit of a replay" }, cmd);
    wire(&mut c, "ack_sent", 1, "", and(id("load"), ne(id("tx_cmd"), id("REPLAY_CMD_NONE"))));
    wire(&mut c, "nack_sent", 1, "", and(id("load"), eq(id("tx_cmd"), id("REPLAY_CMD_NACK"))));
    let fsn_else = if rxl { dec(s, 0) } else { mux(id("payload"), id("rb_out_seq"), dec(s, 0)) };
    wire(&mut c, "tx_fsn", s, "AckNum = ESeqNum - 1 when ReplayCmd != 0", mux(ne(id("tx_cmd"), id("REPLAY_CMD_NONE")), sub(id("eseq"), dec(s, 1)), fsn_else));
    wire(&mut c, "tx_header", 16, "{type, ReplayCmd, FSN}", Expr::Concat(vec![dec(3, 0), id("payload"), id("tx_cmd"), id("tx_fsn")]));
    wire(
        &mut c,
        "tx_data",
        CRC_DATA_BITS,
        "header and payload (zero in control flits)",
        Expr::Concat(vec![mux(id("payload"), id("rb_out_data"), dec(PAYLOAD_BITS, 0)), id("tx_header")]),
    );
    let crc_seq = if rxl {
        wire(&mut c, "crc_seq", s, "ISN: SeqNum of payload flits", mux(id("payload"), id("rb_out_seq"), dec(s, 0)));
        id("crc_seq")
    } else {
        dec(s, 0) // no sequence number in the CRC
    };
    c.push(Item::wire("tx_crc", 64, ""));
    c.push(instance(n_crc, "u_crc", vec![("data", id("tx_data")), ("seq", crc_seq), ("crc", id("tx_crc"))]));
    c.push(instance(n_enc, "u_fec_enc", vec![("msg", id("t1_msg")), ("cw", id("tx_flit"))]));
    c.push(instance(
        n_replay,
        "u_replay",
        vec![
            ("clk", id("clk")),
            (design.reset.port(), id(design.reset.port())),
            ("push_valid", id("s_valid")),
            ("push_ready", id("rb_push_ready")),
            ("push_data", id("s_payload")),
            ("push_seq", id("rb_push_seq")),
            ("ack_valid", id("ctl_ack")),
            ("ack_seq", id("ctl_fsn")),
            ("replay_valid", id("replay_valid")),
            ("replay_seq", id("replay_seq")),
            ("out_valid", id("rb_out_valid")),
            ("out_ready", id("payload")),
            ("out_data", id("rb_out_data")),
            ("out_seq", id("rb_out_seq")),
            ("head", id("rb_head")),
            ("count", id("rb_count")),
            ("full", id("rb_full")),
        ],
    ));

    // ---------------- next-state ----------------
    c.push(Item::comment("ACK coalescing and NACK bookkeeping."));
    wire(
        &mut c,
        "since_n",
        w_ae,
        "",
        mux(
            id("ack_sent"),
            zext(id("deliver"), 1, w_ae),
            mux(eq(id("since_ack"), id("ACK_EVERY")), id("since_ack"), add(id("since_ack"), zext(id("deliver"), 1, w_ae))),
        ),
    );

    let mut body = vec![
        Stmt::Comment("TX".into()),
        Stmt::when(id("load"), vec![Stmt::set(id("t1_valid"), Expr::one())]),
        Stmt::set(id("ctl_valid"), and(id("good"), id("h_has_ack"))),
        Stmt::set(id("rq_valid"), id("replay_valid")),
        Stmt::set(id("stall_timer"), mux(or(or(id("ctl_ack"), id("timeout")), eq(id("rb_count"), dec(s, 0))), dec(w_rt, 0), add(id("stall_timer"), dec(w_rt, 1)))),
    ];
    if !rxl {
        body.push(Stmt::If(id("replay_taken"), vec![Stmt::set(id("replay_start"), Expr::one())], vec![Stmt::when(id("payload"), vec![Stmt::set(id("replay_start"), Expr::zero())])]));
    }
    body.push(Stmt::Comment("RX".into()));
    body.push(Stmt::set(id("rc_valid"), id("dec_valid")));
    body.push(Stmt::set(id("rd_valid"), id("rc_valid")));
    if rxl {
        body.push(Stmt::when(id("deliver"), vec![Stmt::set(id("eseq"), id("eseq_next")), Stmt::set(id("eseq_next"), add(id("eseq_next"), dec(s, 1)))]));
    } else {
        body.push(Stmt::when(id("deliver"), vec![Stmt::set(id("eseq"), add(id("eseq"), dec(s, 1)))]));
    }
    body.push(Stmt::set(id("discard"), mux(id("deliver"), dec(1, 0), or(id("discard"), id("trigger_nack")))));
    body.push(Stmt::set(id("nack_timer"), mux(or(or(id("discard").not(), id("deliver")), id("renack")), dec(w_nt, 0), add(id("nack_timer"), dec(w_nt, 1)))));
    body.push(Stmt::set(id("nack_pending"), or(or(id("trigger_nack"), id("renack")), and(and(id("nack_pending"), id("nack_sent").not()), id("deliver").not()))));
    body.push(Stmt::set(id("since_ack"), id("since_n")));
    body.push(Stmt::set(
        id("ack_timer"),
        mux(or(id("ack_sent"), eq(id("since_n"), dec(w_ae, 0))), dec(w_at, 0), mux(eq(id("ack_timer"), id("ACK_TIMEOUT")), id("ack_timer"), add(id("ack_timer"), dec(w_at, 1)))),
    ));
    body.push(Stmt::set(id("m_valid_q"), id("deliver")));
    let mut counters_regs = vec![];
    let mut counters_reset = vec![];
    let mut counters_body = vec![];
    for (n, inc, doc) in [
        ("cnt_flits_sent_q", and(id("t1_valid"), id("tx_ready")), "flits transferred"),
        ("cnt_replays_q", id("replay_taken"), "replays started"),
        ("cnt_crc_fail_q", and(id("rd_valid"), id("crc_ok").not()), "CRC failures"),
        ("cnt_fec_corrected_q", and(id("rd_valid"), id("rd_corrected")), "FEC corrections"),
        ("cnt_fec_uncorrectable_q", and(id("rd_valid"), id("rd_uncorrectable")), "FEC uncorrectable flits"),
        ("cnt_nacks_sent_q", id("nack_sent"), "NACKs sent"),
    ] {
        counter(&mut counters_regs, &mut counters_reset, &mut counters_body, n, cb, inc, id("CNT_MAX"), doc);
    }
    reset.extend(counters_reset);
    body.extend(counters_body);

    let mut items = it;
    items.extend(regs);
    items.extend(counters_regs);
    items.extend(rx1);
    items.extend(c);
    items.push(Item::comment("Control registers (reset)."));
    items.push(Item::AlwaysFf { reset: Some(reset), body });
    items.push(Item::comment("Data registers (no reset)."));
    items.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            Stmt::when(id("load"), vec![Stmt::set(id("t1_msg"), Expr::Concat(vec![id("tx_crc"), id("tx_data")]))]),
            Stmt::set(id("ctl_cmd"), id("h_cmd")),
            Stmt::set(id("ctl_fsn"), id("h_fsn")),
            Stmt::set(id("rq_seq"), id("replay_seq")),
            Stmt::when(id("deliver"), vec![Stmt::set(id("m_payload_q"), Expr::slice("rd_msg", CRC_DATA_BITS - 1, 16))]),
        ],
    });
    items.push(Item::comment("RX pipeline data registers (no reset; the valid flags above qualify them)."));
    let mut rx_data = vec![
        Stmt::set(id("rc_msg"), id("dec_msg")),
        Stmt::set(id("rc_corrected"), id("dec_corrected")),
        Stmt::set(id("rc_uncorrectable"), id("dec_uncorrectable")),
        Stmt::set(id("rc_crc"), id("dec_crc")),
        Stmt::set(id("rd_msg"), Expr::slice("rc_msg", CRC_DATA_BITS - 1, 0)),
        Stmt::set(id("rd_corrected"), id("rc_corrected")),
        Stmt::set(id("rd_uncorrectable"), id("rc_uncorrectable")),
    ];
    if rxl {
        let checks = |isn: &str| Expr::red(UnOp::RedNor, Expr::bin(BinOp::Xor, id("rc_syndrome"), mux(id("rc_payload"), id(isn), dec(64, 0))));
        rx_data.push(Stmt::set(id("rc_payload"), eq(Expr::slice("dec_msg", 15, 12), id("FLIT_TYPE_PAYLOAD"))));
        rx_data.push(Stmt::set(id("rd_crc_ok_now"), checks("isn_now")));
        rx_data.push(Stmt::set(id("rd_crc_ok_next"), checks("isn_next")));
    } else {
        rx_data.push(Stmt::set(id("rd_crc_ok"), Expr::red(UnOp::RedNor, id("rc_syndrome"))));
    }
    items.push(Item::AlwaysFf { reset: None, body: rx_data });
    for (p, r) in [
        ("s_ready", "rb_push_ready"),
        ("tx_valid", "t1_valid"),
        ("m_valid", "m_valid_q"),
        ("m_payload", "m_payload_q"),
        ("cnt_flits_sent", "cnt_flits_sent_q"),
        ("cnt_replays", "cnt_replays_q"),
        ("cnt_crc_fail", "cnt_crc_fail_q"),
        ("cnt_fec_corrected", "cnt_fec_corrected_q"),
        ("cnt_fec_uncorrectable", "cnt_fec_uncorrectable_q"),
        ("cnt_nacks_sent", "cnt_nacks_sent_q"),
    ] {
        items.push(Item::assign(id(p), id(r)));
    }
    items.push(super::props::properties(b, design, s));

    GeneratedModule {
        module: Module { name: names[4].clone(), ports, items, reset: Some(design.reset) },
        latency: super::RX_LATENCY,
        summary: format!(
            "Full-duplex {} link endpoint for 256-byte flits: payloads numbered and kept in a {}-entry go-back-N replay buffer, {} CRC with {} FEC on the wire, in-order delivery with NACK on any lost or corrupted flit, ACKs coalesced every {} flits.",
            if rxl { "RXL (implicit sequence number)" } else { "CXL 3.0 baseline (explicit FSN)" },
            cfg.replay_depth,
            match cfg.crc {
                CrcChoice::RsCrc => "PCIe 6.0 GF(2^8) flit",
                CrcChoice::Crc64 => "CRC-64/ECMA-182",
            },
            match cfg.fec {
                FecChoice::Pcie6 => "pcie6-layout",
                FecChoice::Generic => "generic-layout",
            },
            cfg.ack_every
        ),
        notes: b.notes(),
        role: Role::Endpoint,
        origin: None,
    }
}
