//! `<p>_rx`: one lane's receiver (see `model::rx` for the cycle behaviour it implements), in two
//! stages: the frame's CRC and descrambling, then the check against the expected frame ID with
//! Listing 1 (the frame-ID loop alone in its cycle).

use crate::hw::build::*;
use super::Names;
use crate::blocks::rifl::model::codec::{Ctrl, FC_PAUSE, FC_RESUME};
use crate::blocks::rifl::model::params::Params;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};

/// `x >= CONTROL_REPEAT - 1` for a run-length counter `x` of width `w`: this frame makes the
/// run `control_repeat` long (constant true when control_repeat is 1).
fn run_complete(x: &str, w: u32, rep: u64) -> Expr {
    if rep == 1 {
        Expr::one()
    } else {
        ge(id(x), sub(id("CONTROL_REPEAT"), dec(w, 1)))
    }
}

pub fn module(p: &Params, design: &DesignInfo, n: &Names) -> GeneratedModule {
    let (f, r, ib) = (p.frame_bits, p.raw_bits() as u32, p.frame_id_bits);
    let rep = p.control_repeat as u64;
    let cw = bits_for(rep);
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("in_valid", 1, "a frame from the transceiver this cycle (rx_valid)"),
        Port::input("in_frame", f, "the frame"),
        Port::output("out_valid", 1, "a verified, new data frame with payload: push out_raw into the flow-control buffer"),
        Port::output("out_raw", r, "descrambled {payload, meta} of the last received frame"),
        Port::output("out_of_sync", 1, "illegal SYN seen, fewer than control_repeat legal SYNs since (set at reset)"),
        Port::output("pause_req", 1, "the last control_repeat control frames were Pause Requests (cleared by control_repeat other frames)"),
        Port::output("retrans_req", 1, "the same for Retransmit Requests"),
        Port::output("frame_error", 1, "a frame failed verification; clears when the frame ID count is back at the threshold"),
        Port::output("remote_fc", 1, "the far end sent a flow-control pause (and no resume since)"),
        Port::output("err_pulse", 1, "the previous frame failed verification while in sync and in step (frame_error was clear): a new error"),
    ]);
    let mut it: Vec<Item> = Vec::new();
    for c in [Ctrl::PauseRequest, Ctrl::RetransmitRequest] {
        localparam(&mut it, super::tx::ctrl_name(c), 8, c.code() as u64, "control frame code (last payload byte)");
    }
    localparam(&mut it, "FC_PAUSE", 8, FC_PAUSE as u64, "flow-control pause (last byte of a meta-00 data frame)");
    localparam(&mut it, "FC_RESUME", 8, FC_RESUME as u64, "flow-control resume");
    localparam(&mut it, "META_NONE", 2, 0, "meta code: no valid payload");
    localparam(&mut it, "CONTROL_REPEAT", cw, rep, "control frames in a row that raise a request, legal SYNs that end out-of-sync");
    let t = p.retrans_threshold as u64 & p.id_mask() as u64;
    localparam(&mut it, "RETRANS_THRESHOLD", ib, t, &format!("frame ID rollback on a failed frame (retrans_threshold {} mod 2^{ib})", p.retrans_threshold));
    reg(&mut it, "frame_id", ib, "Listing 1 FrameID: the ID the next data frame must carry");
    reg(&mut it, "threshold", ib, "Listing 1 Threshold_FrameID: the next frame to deliver");
    reg(&mut it, "frame_error_q", 1, "");
    reg(&mut it, "oos", 1, "out of sync");
    reg(&mut it, "sync_cnt", cw, "legal SYNs in a row (saturating)");
    reg(&mut it, "pause_cnt", cw, "Pause Requests in a row among control frames");
    reg(&mut it, "retr_cnt", cw, "Retransmit Requests in a row among control frames");
    reg(&mut it, "pause_quiet", cw, "frames in a row that are not Pause Requests");
    reg(&mut it, "retr_quiet", cw, "frames in a row that are not Retransmit Requests");
    reg(&mut it, "pause_req_q", 1, "");
    reg(&mut it, "retrans_req_q", 1, "");
    reg(&mut it, "remote_fc_q", 1, "");
    reg(&mut it, "out_valid_q", 1, "");
    reg(&mut it, "err_pulse_q", 1, "");
    reg(&mut it, "out_raw_q", r, "");

    it.push(Item::comment("Stage 1, at every received frame: the verification code's syndrome (vcode ^ CRC12: the frame ID of an intact frame) and the descrambled raw region, registered."));
    reg(&mut it, "frame_valid_q", 1, "a frame is in stage 2 this cycle");
    reg(&mut it, "legal_q", 1, "its SYN is 01 or 10");
    reg(&mut it, "frame_ctrl_q", 1, "its SYN's bit 1: a control frame when legal");
    reg(&mut it, "syndrome_q", 12, "its vcode ^ CRC12: the frame ID it carries when intact");
    reg(&mut it, "raw_q", r, "its descrambled {payload, meta}");
    wire(&mut it, "line", r, "{meta, payload} as received (scrambled)", Expr::slice("in_frame", r + 1, 2));
    it.push(Item::wire("crc", 12, "CRC-12 of {payload, 5'b0, syn[1], meta}"));
    it.push(instance(&n.crc, "u_crc", vec![("data", super::codec::crc_feed(p, Expr::bit("in_frame", 1), "line")), ("crc", id("crc"))]));
    it.push(Item::wire("dline", r, "descrambled line region {meta, payload}"));
    if p.scrambler {
        it.push(clocked_instance(&n.descrambler, "u_descrambler", design.reset, vec![("en", id("in_valid")), ("din", id("line")), ("dout", id("dline"))]));
    } else {
        it.push(Item::assign(id("dline"), id("line")));
    }
    it.push(Item::AlwaysFf { reset: Some(vec![set_id("frame_valid_q", Expr::zero())]), body: vec![set_id("frame_valid_q", id("in_valid"))] });
    it.push(Item::AlwaysFf {
        reset: None,
        body: vec![when(
            id("in_valid"),
            vec![
                set_id("legal_q", Expr::xor(Expr::bit("in_frame", 1), Expr::bit("in_frame", 0))),
                set_id("frame_ctrl_q", Expr::bit("in_frame", 1)),
                set_id("syndrome_q", Expr::xor(Expr::slice("in_frame", f - 1, f - 12), id("crc"))),
                set_id("raw_q", cat(vec![Expr::slice("dline", r - 3, 0), Expr::slice("dline", r - 1, r - 2)])),
            ],
        )],
    });

    it.push(Item::comment("Stage 2: the check against the expected frame ID, Listing 1 and the monitors."));
    let idx = if ib == 12 { id("frame_id") } else { cat(vec![zeros(12 - ib), id("frame_id")]) };
    wire(&mut it, "ok", 1, "legal and the verification code matches frame_id", Expr::and(id("legal_q"), Expr::eq(id("syndrome_q"), idx)));
    wire(&mut it, "is_data", 1, "", Expr::and(id("legal_q"), id("frame_ctrl_q").not()));
    wire(&mut it, "is_ctrl", 1, "", Expr::and(id("legal_q"), id("frame_ctrl_q")));
    wire(&mut it, "code", 8, "last payload byte: format, flow-control or control code", Expr::slice("raw_q", r - 1, r - 8));
    wire(&mut it, "meta_zero", 1, "", Expr::eq(Expr::slice("raw_q", 1, 0), id("META_NONE")));
    wire(&mut it, "is_pause", 1, "", Expr::and(id("is_ctrl"), Expr::eq(id("code"), id("CTRL_PAUSE_REQUEST"))));
    wire(&mut it, "is_retr", 1, "", Expr::and(id("is_ctrl"), Expr::eq(id("code"), id("CTRL_RETRANSMIT_REQUEST"))));
    wire(&mut it, "hit", 1, "frame_id == threshold: an ok data frame is new", Expr::eq(id("frame_id"), id("threshold")));
    wire(&mut it, "deliver", 1, "", all(vec![id("oos").not(), id("ok"), id("is_data"), id("hit")]));
    wire(&mut it, "fid_inc", ib, "", add(id("frame_id"), dec(ib, 1)));
    wire(&mut it, "thr_inc", ib, "", add(id("threshold"), dec(ib, 1)));
    wire(&mut it, "thr_roll", ib, "threshold - RETRANS_THRESHOLD", sub(id("threshold"), id("RETRANS_THRESHOLD")));

    for (o, q) in [
        ("out_valid", "out_valid_q"),
        ("out_raw", "out_raw_q"),
        ("out_of_sync", "oos"),
        ("pause_req", "pause_req_q"),
        ("retrans_req", "retrans_req_q"),
        ("frame_error", "frame_error_q"),
        ("remote_fc", "remote_fc_q"),
        ("err_pulse", "err_pulse_q"),
    ] {
        it.push(Item::assign(id(o), id(q)));
    }

    it.push(Item::comment("Listing 1, the control event monitor and out-of-sync, at every received frame."));
    let verify = if_else(
        id("ok"),
        vec![when(
            id("is_data"),
            vec![
                set_id("frame_id", id("fid_inc")),
                when(
                    id("hit"),
                    vec![
                        set_id("threshold", id("thr_inc")),
                        when(
                            id("meta_zero"),
                            vec![Stmt::If(
                                Expr::eq(id("code"), id("FC_PAUSE")),
                                vec![set_id("remote_fc_q", Expr::one())],
                                vec![when(Expr::eq(id("code"), id("FC_RESUME")), vec![set_id("remote_fc_q", Expr::zero())])],
                            )],
                        ),
                    ],
                ),
                when(Expr::or(id("hit"), Expr::eq(id("fid_inc"), id("threshold"))), vec![set_id("frame_error_q", Expr::zero())]),
            ],
        )],
        vec![set_id("frame_id", id("thr_roll")), set_id("frame_error_q", Expr::one())],
    );
    let clear_all = vec![
        set_id("oos", Expr::one()),
        set_id("sync_cnt", dec(cw, 0)),
        set_id("pause_cnt", dec(cw, 0)),
        set_id("retr_cnt", dec(cw, 0)),
        set_id("pause_quiet", dec(cw, 0)),
        set_id("retr_quiet", dec(cw, 0)),
        set_id("pause_req_q", Expr::zero()),
        set_id("retrans_req_q", Expr::zero()),
    ];
    let inc = |x: &str| sat_inc(x, cw, id("CONTROL_REPEAT"), None);
    let monitor = vec![
        inc("sync_cnt"),
        when(run_complete("sync_cnt", cw, rep), vec![set_id("oos", Expr::zero())]),
        when(
            id("is_ctrl"),
            vec![
                if_else(id("is_pause"), vec![inc("pause_cnt")], vec![set_id("pause_cnt", dec(cw, 0))]),
                if_else(id("is_retr"), vec![inc("retr_cnt")], vec![set_id("retr_cnt", dec(cw, 0))]),
            ],
        ),
        if_else(id("is_pause"), vec![set_id("pause_quiet", dec(cw, 0))], vec![inc("pause_quiet")]),
        if_else(id("is_retr"), vec![set_id("retr_quiet", dec(cw, 0))], vec![inc("retr_quiet")]),
        Stmt::If(
            Expr::and(id("is_pause"), run_complete("pause_cnt", cw, rep)),
            vec![set_id("pause_req_q", Expr::one())],
            vec![when(Expr::and(id("is_pause").not(), run_complete("pause_quiet", cw, rep)), vec![set_id("pause_req_q", Expr::zero())])],
        ),
        Stmt::If(
            Expr::and(id("is_retr"), run_complete("retr_cnt", cw, rep)),
            vec![set_id("retrans_req_q", Expr::one())],
            vec![when(Expr::and(id("is_retr").not(), run_complete("retr_quiet", cw, rep)), vec![set_id("retrans_req_q", Expr::zero())])],
        ),
    ];
    let reset = vec![
        set_id("frame_id", dec(ib, 0)),
        set_id("threshold", dec(ib, 0)),
        set_id("frame_error_q", Expr::zero()),
        set_id("oos", Expr::one()),
        set_id("sync_cnt", dec(cw, 0)),
        set_id("pause_cnt", dec(cw, 0)),
        set_id("retr_cnt", dec(cw, 0)),
        set_id("pause_quiet", dec(cw, 0)),
        set_id("retr_quiet", dec(cw, 0)),
        set_id("pause_req_q", Expr::zero()),
        set_id("retrans_req_q", Expr::zero()),
        set_id("remote_fc_q", Expr::zero()),
        set_id("out_valid_q", Expr::zero()),
        set_id("err_pulse_q", Expr::zero()),
    ];
    let body = vec![
        set_id("out_valid_q", all(vec![id("frame_valid_q"), id("deliver"), id("meta_zero").not()])),
        set_id("err_pulse_q", all(vec![id("frame_valid_q"), id("oos").not(), id("ok").not(), id("frame_error_q").not()])),
        when(id("frame_valid_q"), vec![when(id("oos").not(), vec![verify]), if_else(id("legal_q").not(), clear_all, monitor)]),
    ];
    it.push(Item::AlwaysFf { reset: Some(reset), body });
    it.push(Item::AlwaysFf { reset: None, body: vec![when(id("frame_valid_q"), vec![set_id("out_raw_q", id("raw_q"))])] });
    it.push(super::rx_props::properties(design, ib));

    GeneratedModule {
        module: Module { name: n.rx.clone(), ports, items: it, reset: Some(design.reset) },
        latency: 2,
        summary: "One RIFL lane's receiver: verification code check, Listing 1's frame ID and threshold counters with rollback, descrambling, delivery of new data frames, flow-control frame detection, the control event monitor and out-of-sync detection. Two register stages: every output is a register updated two edges after the frame.".into(),
        notes: vec![
            "Pipeline: stage 1 registers, at the edge that takes a frame (in_valid), its syndrome vcode ^ CRC12 (the frame ID an intact frame carries), its SYN and its descrambled raw region; stage 2, at the next edge, compares the syndrome with frame_id and updates Listing 1's counters, the monitors and every output. Only stage 2 holds the frame-ID loop, so a frame per cycle still passes; latency 2 cycles from in_frame to the outputs.".into(),
            format!(
                "Listing 1: an ok data frame with frame_id == threshold is new (delivered if its meta code is not 00, else its flow-control code is taken), frame_id += 1 for every ok data frame, a frame that fails rolls frame_id back to threshold - {} and raises frame_error. frame_error clears when frame_id is back at threshold. Both counters reset to 0 and count modulo 2^{}.",
                p.retrans_threshold, ib
            ),
            format!(
                "Frames received while out of sync are not verified. Out of sync: set by an illegal SYN (which also clears the monitor), cleared by {rep} legal SYNs in a row. Request flags: raised when the last {rep} control frames all carried that request, lowered after {rep} frames in a row without it."
            ),
        ],
        role: Role::Rx,
        origin: None,
    }
}
