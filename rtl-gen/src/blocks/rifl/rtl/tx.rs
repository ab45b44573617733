//! `<p>_tx`: one lane's transmitter (see `model::tx` for the cycle behaviour it implements).

use crate::hw::build::*;
use super::Names;
use crate::blocks::rifl::model::codec::{Ctrl, FC_PAUSE, FC_RESUME};
use crate::blocks::rifl::model::params::Params;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};
use crate::hw::xor_net::{self, Columns, XorNet, XorStyle};
use crate::blocks::rifl::model::codec::crc_algo;
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};
use super::codec::scrambler_maps;

// The flow-control codes as the last payload byte's bits 0 and 1 (fc_p, fc_r below).
const _: () = assert!(FC_PAUSE == 1 && FC_RESUME == 2);

/// `{code, zeros, meta 00}`: a raw region whose last payload byte is `code`.
fn last_byte_raw(p: &Params, code: Expr) -> Expr {
    cat(vec![code, zeros(p.payload_bits() as u32 - 8), dec(2, 0)])
}

pub fn module(p: &Params, design: &DesignInfo, n: &Names) -> GeneratedModule {
    let (f, r, ib) = (p.frame_bits, p.raw_bits() as u32, p.frame_id_bits);
    let ids = p.ids() as u64;
    let rw = ib + 2; // retransmission counter: 0..2.5·2^n − 1
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("en", 1, "the transceiver takes tx_frame at this edge (tx_ready); nothing advances otherwise"),
        Port::input("out_of_sync", 1, "local RX: illegal SYN seen, not yet resynchronised"),
        Port::input("pause_req", 1, "local RX: the far end requests a pause"),
        Port::input("retrans_req", 1, "local RX: the far end requests a retransmission"),
        Port::input("frame_error", 1, "local RX: a frame failed verification and was not yet recovered"),
        Port::input("remote_fc", 1, "local RX: the far end sent a flow-control pause"),
        Port::input("fc_high", 1, "local flow-control buffer above its ON threshold"),
        Port::input("fc_low", 1, "local flow-control buffer below its OFF threshold"),
        Port::input("seg_take", 1, "the top hands seg_raw to this lane at this edge (with en, the far end not pausing); taken in Normal with no flow-control frame due"),
        Port::input("seg_raw", r, "user segment {payload, meta}"),
        Port::output("seg_ready", 1, "this slot would carry a user segment (Normal, no flow-control frame due, far end not paused)"),
        Port::output("state", 3, "TX state: 0 Init, 1 Send Pause, 2 Pause, 3 Retrans, 4 Send Retrans, 5 Normal"),
        Port::output("retrans_start", 1, "a retransmission procedure starts at this edge"),
        Port::output("pause_event", 1, "the lane leaves Normal/Retrans/Send Retrans for Send Pause or Pause at this edge"),
        Port::output("tx_frame", f, "frame to the transceiver (registered)"),
    ]);
    let mut it: Vec<Item> = Vec::new();
    // The states of Fig. 4 in priority order, the control codes and the procedure's limits.
    let states = ["ST_INIT", "ST_SEND_PAUSE", "ST_PAUSE", "ST_RETRANS", "ST_SEND_RETRANS", "ST_NORMAL"];
    for (k, name) in states.iter().enumerate() {
        localparam(&mut it, name, 3, k as u64, "TX state");
    }
    let code = |c: Ctrl| id(ctrl_name(c));
    for c in [Ctrl::Idle, Ctrl::PauseRequest, Ctrl::RetransmitRequest] {
        localparam(&mut it, ctrl_name(c), 8, c.code() as u64, "control frame code (last payload byte)");
    }
    localparam(&mut it, "SYN_DATA", 2, 1, "SYN of a data frame");
    localparam(&mut it, "SYN_CTRL", 2, 2, "SYN of a control frame");
    localparam(&mut it, "RESEND_END", rw, 2 * ids - 2, "slots r below this with r odd resend (2*2^n-2)");
    localparam(&mut it, "RETRANS_LAST", rw, p.retrans_frames() as u64 - 1, "last slot of the procedure (2.5*2^n-1)");
    let st = |k: usize| Expr::eq(id("st"), id(states[k]));
    it.push(Item::comment("Registers."));
    reg(&mut it, "init_cnt", ib + 1, "buffer fill counter; Init while init_cnt < 2^n");
    reg(&mut it, "tx_id", ib, "frame ID of the next new data frame (= oldest buffer entry)");
    reg(&mut it, "rcnt", rw, "retransmission procedure counter, 0 when none is under way");
    // The counter's decisions, registered with it (each computed from rcnt + 1 as rcnt steps):
    // the slot decision and the read address then start at flip-flops, not at a compare.
    reg(&mut it, "rbusy", 1, "a retransmission procedure is under way (rcnt != 0)");
    reg(&mut it, "r_last", 1, "last slot of the procedure (rcnt == RETRANS_LAST)");
    reg(&mut it, "resend_slot", 1, "rcnt is a resend slot: odd and below RESEND_END");
    reg(&mut it, "fc_asked", 1, "the far end was sent a flow-control pause and no resume yet");
    reg(&mut it, "prev_transfer", 1, "the previous slot's state was Normal, Retrans or Send Retrans");
    reg(&mut it, "s1_ctrl", 1, "stage 1: control frame");
    reg(&mut it, "s1_raw", r, "stage 1: raw region of the frame (a resend's from the buffer's read register)");
    reg(&mut it, "s1_id", ib, "stage 1: frame ID for the verification code");
    // With more than two entries the buffer is read two slots ahead of a resend, through the
    // RAM's read register and its output register; with two, an entry a resend needs may be
    // written two slots before it, so the buffer is read one slot ahead, through the read
    // register alone.
    let two_ahead = p.ids() > 2;
    if two_ahead {
        reg(&mut it, "rbuf_rd", r, "retransmission buffer read register: the entry a resend two slots on sends");
        reg(&mut it, "rbuf", r, "retransmission buffer output register: the entry a resend in the next slot sends");
    } else {
        reg(&mut it, "rbuf", r, "retransmission buffer read register: the entry a resend in the next slot sends");
    }
    reg(&mut it, "frame_q", f, "output register");
    // LUT RAM: a block RAM would need ceil(r/36) RAMB18s for the write bandwidth and leave
    // half of each empty (2^n <= 256 entries of 512). Read one slot ahead, writes (Init,
    // Normal) and reads (Retrans) never share a slot, so one address serves both; read two
    // slots ahead, the read of a slot after a write has its own address.
    // The hint is for 7-series (64-deep LUT RAM); ECP5's is 16 deep, and `rtl-gen fpga` clears
    // the hint there, so the buffer goes to 7 DP16KD per lane (docs/results/fpga.md).
    let port = if two_ahead { "LUT RAM" } else { "single-port LUT RAM" };
    it.push(Item::LutMemory { name: "mem".into(), width: r, depth: p.ids(), doc: format!("retransmission buffer: raw region of frame ID i at entry i ({port})") });

    it.push(Item::comment("The state: Fig. 4's priority function of the flags."));
    wire(&mut it, "init_done", 1, "", Expr::bit("init_cnt", ib));
    let st_expr = Expr::mux(
        id("init_done").not(),
        id("ST_INIT"),
        Expr::mux(
            id("out_of_sync"),
            id("ST_SEND_PAUSE"),
            Expr::mux(
                id("pause_req"),
                id("ST_PAUSE"),
                Expr::mux(Expr::or(id("retrans_req"), id("rbusy")), id("ST_RETRANS"), Expr::mux(id("frame_error"), id("ST_SEND_RETRANS"), id("ST_NORMAL"))),
            ),
        ),
    );
    wire(&mut it, "st", 3, "current state", st_expr);
    it.push(Item::assign(id("state"), id("st")));
    wire(&mut it, "is_init", 1, "", st(0));
    wire(&mut it, "is_spause", 1, "", st(1));
    wire(&mut it, "is_pause", 1, "", st(2));
    wire(&mut it, "is_retr", 1, "", st(3));
    wire(&mut it, "is_sretr", 1, "", st(4));
    wire(&mut it, "is_norm", 1, "", st(5));
    wire(&mut it, "need_pause", 1, "flow control: tell the far end to pause", Expr::and(id("fc_high"), id("fc_asked").not()));
    wire(&mut it, "need_resume", 1, "flow control: tell the far end to resume", Expr::and(id("fc_low"), id("fc_asked")));
    it.push(Item::assign(id("seg_ready"), all(vec![id("is_norm"), id("remote_fc").not(), id("need_pause").not(), id("need_resume").not()])));
    it.push(Item::assign(id("retrans_start"), all(vec![id("en"), id("is_retr"), id("rbusy").not()])));
    it.push(Item::assign(id("pause_event"), all(vec![id("en"), Expr::or(id("is_spause"), id("is_pause")), id("prev_transfer")])));

    it.push(Item::comment(&format!(
        "Retransmission procedure (2.5*2^n = {} slots): r = 0 skips the oldest entry; odd r < 2*2^n-2 resend; other slots Idle or Retransmit Request.",
        p.retrans_frames()
    )));
    wire(&mut it, "resend", 1, "this slot resends buffer entry tx_id", Expr::and(id("is_retr"), id("resend_slot")));
    wire(&mut it, "rcnt_inc", rw, "the counter's next value unless this is the last slot (never more than RETRANS_LAST + 1)", add(id("rcnt"), dec(rw, 1)));
    wire(&mut it, "tx_id_inc", ib, "", add(id("tx_id"), dec(ib, 1)));
    let req = Expr::mux(id("frame_error"), code(Ctrl::RetransmitRequest), code(Ctrl::Idle));
    let ctrl_code = Expr::mux(id("is_pause"), code(Ctrl::Idle), Expr::mux(id("is_sretr"), code(Ctrl::RetransmitRequest), Expr::mux(id("is_retr"), req, code(Ctrl::PauseRequest))));
    wire(&mut it, "ctrl_code", 8, "control code of this slot's control frame", ctrl_code);
    wire(&mut it, "ctrl_id", ib, "frame ID a control frame carries", Expr::mux(Expr::and(id("is_retr"), id("rbusy").not()), id("tx_id_inc"), id("tx_id")));
    // LUT-lean forms: everything but the last payload byte is the user segment gated by one
    // shared enable; the flow-control and control codes only touch the last byte.
    wire(&mut it, "take_seg", 1, "Normal, no flow-control frame due, the top hands a segment", all(vec![id("is_norm"), id("seg_take"), id("need_pause").not(), id("need_resume").not()]));
    wire(&mut it, "fc_p", 1, "Normal: send the flow-control pause frame", Expr::and(id("is_norm"), id("need_pause")));
    wire(&mut it, "fc_r", 1, "Normal: send the flow-control resume frame", Expr::and(id("is_norm"), id("need_resume")));
    let fc_byte = cat(vec![zeros(6), id("fc_r"), id("fc_p")]);
    let new_raw = Expr::or(Expr::and(id("seg_raw"), Expr::Repeat(r, Box::new(id("take_seg")))), cat(vec![fc_byte, zeros(r - 8)]));
    wire(&mut it, "new_raw", r, "Normal: flow-control frame, user segment or filler (zero outside Normal)", new_raw);
    wire(&mut it, "s1_next", r, "stage-1 raw region of a new data or control frame", Expr::or(id("new_raw"), cat(vec![Expr::and(id("ctrl_code"), Expr::Repeat(8, Box::new(id("is_norm").not()))), zeros(r - 8)])));

    it.extend(if two_ahead { buffer_two_ahead(ib, r) } else { buffer_one_ahead(ib, r) });
    it.extend(stage2(p, design, n));

    it.push(Item::comment("Stage 1 and the controller registers advance with en."));
    let reset = vec![
        set_id("init_cnt", dec(ib + 1, 0)),
        set_id("tx_id", dec(ib, 0)),
        set_id("rcnt", dec(rw, 0)),
        set_id("rbusy", Expr::zero()),
        set_id("r_last", Expr::zero()),
        set_id("resend_slot", Expr::zero()),
        set_id("fc_asked", Expr::zero()),
        set_id("prev_transfer", Expr::zero()),
        set_id("s1_ctrl", Expr::one()),
        set_id("s1_raw", last_byte_raw(p, code(Ctrl::PauseRequest))),
        set_id("s1_id", dec(ib, 0)),
        set_id("frame_q", dec(f, 0)),
    ];
    let body = vec![when(
        id("en"),
        vec![
            set_id("frame_q", id("frame_next")),
            set_id("prev_transfer", any(vec![id("is_retr"), id("is_sretr"), id("is_norm")])),
            when(id("is_init"), vec![set_id("init_cnt", add(id("init_cnt"), dec(ib + 1, 1)))]),
            set_id("s1_ctrl", Expr::and(id("resend").not(), id("is_norm").not())),
            set_id("s1_id", Expr::mux(Expr::or(id("resend"), id("is_norm")), id("tx_id"), id("ctrl_id"))),
            set_id("s1_raw", Expr::mux(id("resend"), id("rbuf"), id("s1_next"))),
            when(any(vec![id("is_norm"), id("resend"), Expr::and(id("is_retr"), id("rbusy").not())]), vec![set_id("tx_id", id("tx_id_inc"))]),
            // After the last slot rcnt_inc is RETRANS_LAST + 1: neither the last slot nor a
            // resend slot, so the flags clear with the counter.
            when(
                id("is_retr"),
                vec![
                    set_id("rcnt", Expr::mux(id("r_last"), dec(rw, 0), id("rcnt_inc"))),
                    set_id("rbusy", id("r_last").not()),
                    set_id("r_last", Expr::eq(id("rcnt_inc"), id("RETRANS_LAST"))),
                    set_id("resend_slot", Expr::and(Expr::bit("rcnt_inc", 0), lt(id("rcnt_inc"), id("RESEND_END")))),
                ],
            ),
            when(
                id("is_norm"),
                vec![Stmt::If(id("need_pause"), vec![set_id("fc_asked", Expr::one())], vec![when(id("need_resume"), vec![set_id("fc_asked", Expr::zero())])])],
            ),
        ],
    )];
    it.push(Item::AlwaysFf { reset: Some(reset), body });
    it.push(super::tx_props::properties(design, ib, rw, r, ids));

    GeneratedModule {
        module: Module { name: n.tx.clone(), ports, items: it, reset: Some(design.reset) },
        latency: 2,
        summary: format!(
            "One RIFL lane's transmitter: the six-state controller of Fig. 4, a {}-frame retransmission buffer in single-port LUT RAM, the retransmission procedure of {} frames, flow-control frame insertion, {}the frame encoding (the verification code computed beside the scrambler, not behind it). A slot's frame appears on tx_frame two enabled edges after its decision.",
            p.ids(),
            p.retrans_frames(),
            if p.scrambler { "the scrambler and " } else { "" }
        ),
        notes: vec![
            "Priorities (Fig. 4): Init (fill the buffer with fillers, send Pause Requests) > Send Pause (local RX out of sync) > Pause (far end requests it: send Idles) > Retrans (request flagged or procedure under way) > Send Retrans (local frame error: send Retransmit Requests) > Normal (new data frames: flow-control frame, user segment or filler, each written to buffer entry tx_id). An interrupted procedure resumes where it stopped.".into(),
            "Retrans: slot r = 0 skips the oldest buffer entry (its ID is the one a receiver in step expects next, so resending it could duplicate a frame if a request flag outlived the procedure); odd r < 2*2^n-2 resend the other 2^n-1 entries oldest first with their own IDs; all other slots send a Retransmit Request while the local RX has a frame error, else an Idle; the last 0.5*2^n slots let the far end's request flag fall. The procedure repeats while the request flag stays up.".into(),
            "Control frames carry the ID of the next data frame, so they verify at a receiver that is in step.".into(),
            super::codec::LAYOUT_NOTE.into(),
        ],
        role: Role::Tx,
        origin: None,
    }
}

/// The buffer's write port: Init writes fillers (new_raw is zero there) at init_cnt, Normal every
/// new frame at tx_id.
fn buffer_write(it: &mut Vec<Item>, ib: u32, r: u32) -> Expr {
    wire(it, "we", 1, "", Expr::and(id("en"), Expr::or(id("is_init"), id("is_norm"))));
    wire(it, "skip_oldest", 1, "Retrans slot r = 0: tx_id skips the oldest entry", Expr::and(id("is_retr"), id("rbusy").not()));
    wire(it, "wdata", r, "a filler in Init (new_raw is zero there)", id("new_raw"));
    Expr::slice("init_cnt", ib - 1, 0)
}

/// One slot ahead (two entries): every slot that writes nothing reads entry tx_id as it will be
/// after this edge into the read register `rbuf`, through the write's own address.
fn buffer_one_ahead(ib: u32, r: u32) -> Vec<Item> {
    let mut it = vec![Item::comment(
        "Retransmission buffer: written in Init (fillers) and Normal (every new frame), read one slot ahead of a resend:\nevery other slot reads entry tx_id as it will be after this edge, so a resend finds its entry in rbuf, a register,\nand stage 1 takes it from there (a block RAM's clock-to-out then ends at a register). A slot before a resend is\nRetrans, Send Pause or Pause (never Init or Normal, which leave no procedure under way), so it writes nothing\nand one address serves both.",
    )];
    let init_addr = buffer_write(&mut it, ib, r);
    wire(
        &mut it,
        "waddr",
        ib,
        "the port's address: write entry in Init and Normal, else the entry tx_id names after this edge (read)",
        Expr::mux(id("is_init"), init_addr, Expr::mux(id("skip_oldest"), id("tx_id_inc"), id("tx_id"))),
    );
    it.push(Item::AlwaysFf { reset: None, body: vec![when(id("we"), vec![set(Expr::Index("mem".into(), Box::new(id("waddr"))), id("wdata"))])] });
    it.push(Item::AlwaysFf { reset: None, body: vec![when(id("en"), vec![set_id("rbuf", Expr::Index("mem".into(), Box::new(id("waddr"))))])] });
    it
}

/// Two slots ahead: every slot reads the entry a resend two slots on would send into the read
/// register, and the output register `rbuf` takes it the slot after. A slot before a resend is
/// Retrans (its counter even: r = 0 skips the oldest entry, others leave tx_id), Send Pause or
/// Pause (which leave tx_id and the counter), so a resend two slots on sends tx_id as it will be
/// after this edge, plus one if the counter will then be 0. Read at a write (Normal, or the last
/// Init slot before a procedure starts), that entry is two past the written one, never it (more
/// than two entries); a read that names the entry written at its edge is never sent.
fn buffer_two_ahead(ib: u32, r: u32) -> Vec<Item> {
    let mut it = vec![Item::comment(
        "Retransmission buffer: written in Init (fillers) and Normal (every new frame), read two slots ahead of a resend\nthrough the RAM's read and output registers, so a resend finds its entry in rbuf, a register, and the block RAM's\nclock-to-out ends at the output register. The read address is tx_id after this edge plus one if the procedure\ncounter will be 0 (the coming slot is a procedure's first, which skips the oldest entry).",
    )];
    let init_addr = buffer_write(&mut it, ib, r);
    wire(&mut it, "waddr", ib, "write address: the fill position in Init, else the new frame's entry", Expr::mux(id("is_init"), init_addr, id("tx_id")));
    wire(&mut it, "tx_id_step", 1, "tx_id moves on at this edge (a new frame, a resend, or the skip of the oldest entry)", any(vec![id("is_norm"), id("resend"), id("skip_oldest")]));
    wire(&mut it, "rcnt_zero_n", 1, "the procedure counter is 0 after this edge", Expr::mux(id("is_retr"), id("r_last"), id("rbusy").not()));
    wire(&mut it, "tx_id_inc2", ib, "", add(id("tx_id"), dec(ib, 2)));
    wire(
        &mut it,
        "raddr",
        ib,
        "read address: tx_id + tx_id_step + rcnt_zero_n, the entry a resend two slots on sends",
        Expr::mux(
            Expr::and(id("tx_id_step"), id("rcnt_zero_n")),
            id("tx_id_inc2"),
            Expr::mux(Expr::or(id("tx_id_step"), id("rcnt_zero_n")), id("tx_id_inc"), id("tx_id")),
        ),
    );
    it.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            when(id("we"), vec![set(Expr::Index("mem".into(), Box::new(id("waddr"))), id("wdata"))]),
            when(id("en"), vec![set_id("rbuf_rd", Expr::Index("mem".into(), Box::new(id("raddr"))))]),
        ],
    });
    it.push(Item::comment("The RAM's output register: the entry a resend in the next slot sends."));
    it.push(Item::AlwaysFf { reset: None, body: vec![when(id("en"), vec![set_id("rbuf", id("rbuf_rd"))])] });
    it
}

/// The localparam name of a control code.
pub(super) fn ctrl_name(c: Ctrl) -> &'static str {
    match c {
        Ctrl::Idle => "CTRL_IDLE",
        Ctrl::PauseRequest => "CTRL_PAUSE_REQUEST",
        Ctrl::RetransmitRequest => "CTRL_RETRANSMIT_REQUEST",
    }
}

/// Stage 2: scramble the stage-1 frame and compute its verification code in parallel. The code
/// is the CRC-12 of the scrambled line, and the scrambled line is a parity of the unscrambled
/// one and the scrambler state, so the code is one parity network over both (the composed map
/// [`vcode_map`]) beside the scrambler, not a second network behind it. The scrambler state
/// (the last 33 line bits sent) is read from `frame_q`, which holds those bits: both reset to
/// zero and advance with `en`.
fn stage2(p: &Params, design: &DesignInfo, n: &Names) -> Vec<Item> {
    let (f, r, ib) = (p.frame_bits, p.raw_bits() as u32, p.frame_id_bits);
    let mut it = vec![Item::comment("Stage 2: scramble the stage-1 frame; its verification code from the same inputs, in parallel.")];
    wire(&mut it, "line_in", r, "s1_raw in line order {meta, payload}", cat(vec![Expr::slice("s1_raw", 1, 0), Expr::slice("s1_raw", r - 1, 2)]));
    it.push(Item::wire("line2", r, "line region as sent"));
    let mut vin = vec![id("s1_ctrl")];
    if p.scrambler {
        it.push(clocked_instance(&n.scrambler, "u_scrambler", design.reset, vec![("en", id("en")), ("din", id("line_in")), ("dout", id("line2"))]));
        // state[k] = y[-1-k], the previous frame's line bit r-1-k = frame_q[2 + r-1-k].
        let state: Vec<Expr> = (0..33).rev().map(|k| Expr::bit("frame_q", r + 1 - k)).collect();
        wire(&mut it, "scr_state", 33, "the scrambler's state: the last 33 line bits sent, from frame_q", cat(state));
        vin.push(id("scr_state"));
    } else {
        it.push(Item::assign(id("line2"), id("line_in")));
    }
    vin.push(id("line_in"));
    let width = r + 1 + if p.scrambler { 33 } else { 0 };
    wire(&mut it, "vcode_in", width, "{syn[1] (control frame), scrambler state, unscrambled line}: the columns of the code", cat(vin));
    it.push(Item::wire("vcrc", 12, "CRC-12 of {payload, 5'b0, syn[1], meta} as sent (scrambled)"));
    it.push(Item::comment("vcrc = CRC12(scramble(line_in, state), syn[1]) as one parity per bit of vcode_in: 6-input XOR nodes shared between the bits."));
    let map = vcode_map(p);
    xor_net::emit(&mut it, &XorNet { name: "vc", input: Columns::One("vcode_in"), map: &map, style: XorStyle::Lut6Shared { window: usize::MAX } }, "vcrc", 0);
    let idx = if ib == 12 { id("s1_id") } else { cat(vec![zeros(12 - ib), id("s1_id")]) };
    wire(&mut it, "frame_next", f, "encoded stage-1 frame {vcode, line, syn}", cat(vec![Expr::xor(id("vcrc"), idx), id("line2"), Expr::mux(id("s1_ctrl"), id("SYN_CTRL"), id("SYN_DATA"))]));
    it.push(Item::assign(id("tx_frame"), id("frame_q")));
    it
}

/// The verification code's CRC-12 (without the frame ID) as a linear map of the columns
/// `{syn[1], state (33, with the scrambler), line_in (R)}`: the CRC of the message
/// `{payload, 5'b0, syn[1], meta}` (see `codec::CRC_NOTE`) of the scrambled line.
pub(super) fn vcode_map(p: &Params) -> AffineMap {
    let r = p.raw_bits();
    let pb = p.payload_bits();
    let state_cols = if p.scrambler { 33 } else { 0 };
    let cols = r + state_cols + 1;
    let syn_col = r + state_cols;
    // The sent line bits as rows over the columns (the scrambler's map has {state, din}).
    let line: Vec<BitVec> = if p.scrambler {
        let (out_map, _) = scrambler_maps(r, false);
        (0..r).map(|j| out_map.matrix.row(j).concat_above(&BitVec::zeros(1))).collect()
    } else {
        (0..r).map(|j| BitVec::unit(cols, j)).collect()
    };
    // The CRC message bit i: data[1:0] = meta = line[pb+1:pb], data[2] = syn[1], data[7:3] = 0,
    // data[8 + k] = payload bit k = line[k].
    let msg_bits = p.crc_msg_bits();
    let msg: Vec<BitVec> = (0..msg_bits)
        .map(|i| match i {
            0 | 1 => line[pb + i].clone(),
            2 => BitVec::unit(cols, syn_col),
            3..=7 => BitVec::zeros(cols),
            _ => line[i - 8].clone(),
        })
        .collect();
    let crc = crc_algo(p.crc_poly).affine(msg_bits, 0);
    let rows = (0..crc.outputs())
        .map(|o| {
            let mut row = BitVec::zeros(cols);
            for i in crc.matrix.row(o).iter_ones() {
                row.xor_assign(&msg[i]);
            }
            row
        })
        .collect();
    AffineMap { matrix: BitMatrix::from_rows(cols, rows), constant: crc.constant.clone() }
}
