//! The `sue_transport` module: TX ingest into retransmission slots, the TX engine (selection,
//! RH, R-CRC, beats), the RX checker and per-VC receive buffers, the per-space protocol state
//! (PSNs, timers, ACK/NACK flags) and the command output. Every rule mirrors
//! [`super::model::TransportModel`].

use super::model::{crc_init, crc_last8, crc_step, COUNTER_NAMES};
use super::{SueTransportBlock, TransportParams};
use crate::blocks::crc::model::CrcModel;
use crate::blocks::protocol::sue::transport::PsnScope;
use crate::blocks::protocol::sue::wire::Op;
use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::select::{encode, onehot_mux, rep, round_robin};
use crate::info::DesignInfo;
use crate::hw::build::{
    add, affine, all, any, bit_of, bits_for, cat, clog2, counter, dec, id, localparam, lt, mux, ne,
    set_id, sub, when, wire, zeros, zext,
};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::axis::{Axis, Signal};
use crate::hw::verilog::{BinOp, Expr, Item, Module, Port, Stmt, UnOp};
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};

/// The affine map of `f` over `n_in` input bits (bit j of the Verilog vector `{reg, data}`):
/// probed with unit vectors, since a CRC step is affine over GF(2).
fn probe(n_in: usize, f: impl Fn(&BitVec) -> u32) -> AffineMap {
    let c = f(&BitVec::zeros(n_in));
    let cols: Vec<u32> = (0..n_in)
        .map(|j| {
            let mut e = BitVec::zeros(n_in);
            e.set(j, true);
            f(&e) ^ c
        })
        .collect();
    let rows: Vec<BitVec> = (0..32)
        .map(|r| {
            let mut row = BitVec::zeros(n_in);
            for (j, col) in cols.iter().enumerate() {
                if (col >> r) & 1 == 1 {
                    row.set(j, true);
                }
            }
            row
        })
        .collect();
    let mut constant = BitVec::zeros(32);
    for r in 0..32 {
        constant.set(r, (c >> r) & 1 == 1);
    }
    AffineMap {
        matrix: BitMatrix::from_rows(n_in, rows),
        constant,
    }
}

/// Split `{reg[31:0], data[8·nbytes-1:0]}` into (reg, data bytes).
fn split(x: &BitVec, nbytes: usize) -> (u32, Vec<u8>) {
    let mut bytes = vec![0u8; nbytes];
    for (i, b) in bytes.iter_mut().enumerate() {
        for j in 0..8 {
            if x.get(8 * i + j) {
                *b |= 1 << j;
            }
        }
    }
    let mut reg = 0u32;
    for j in 0..32 {
        if x.get(8 * nbytes + j) {
            reg |= 1 << j;
        }
    }
    (reg, bytes)
}

/// The CRC register after one whole beat of `nbytes` bytes.
fn step_map(m: &CrcModel, nbytes: usize) -> AffineMap {
    probe(8 * nbytes + 32, |x| {
        let (r, d) = split(x, nbytes);
        crc_step(m, r, &d)
    })
}

/// The R-CRC after the last eight bytes.
fn last8_map(m: &CrcModel) -> AffineMap {
    probe(96, |x| {
        let (r, d) = split(x, 8);
        crc_last8(m, r, &d)
    })
}

/// `a · k` for a constant `k`, as a sum of shifted copies (`w` bits wide, `a` is `aw` bits).
fn mul_const(a: &str, aw: u32, k: u32, w: u32) -> Expr {
    let mut terms = Vec::new();
    for j in 0..32 {
        if (k >> j) & 1 == 1 {
            if j >= w {
                continue;
            }
            let keep = aw.min(w - j);
            let src = if keep == aw {
                id(a)
            } else {
                Expr::slice(a, keep - 1, 0)
            };
            let shifted = if j == 0 {
                src
            } else {
                cat(vec![src, zeros(j)])
            };
            terms.push(zext(shifted, keep + j, w));
        }
    }
    terms.into_iter().reduce(add).expect("k > 0")
}

/// A wire of which only some bits are used, between lint pragmas (its other bits are part of
/// a shared word such as a slot's meta or a PSN).
fn partly_used(items: &mut Vec<Item>, name: &str, width: u32, doc: &str, value: Expr) {
    items.push(Item::pragma("verilator lint_off UNUSED"));
    wire(items, name, width, doc, value);
    items.push(Item::pragma("verilator lint_on UNUSED"));
}

fn ge(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Ge, a, b)
}

fn gt(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Gt, a, b)
}

/// Bit `vc` (an expression of 2 bits) of the `v`-bit vector `vec`: an AND-OR over the VCs.
fn vc_bit(vec: &str, v: u32, vc: Expr) -> Expr {
    any((0..v)
        .map(|j| Expr::and(Expr::eq(vc.clone(), dec(2, j as u64)), bit_of(vec, v, j)))
        .collect())
}

/// Whether counter `name` has a register: without the partition check no PDU is dropped for
/// its partition, so that counter is a constant zero.
fn counted(p: &TransportParams, name: &str) -> bool {
    p.partition_check || name != "cnt_rx_partition_err"
}

pub fn module(b: &SueTransportBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let c = &b.common;
    let p = &b.resolved;
    let (x, v) = (c.num_xpu, c.num_vc);
    let kpp = b.per_peer();
    let ns = b.spaces();
    let dw = 8 * c.data_bytes;
    let db = c.data_bytes;
    let cbt = c.cmd_beats();
    let m = c.max_cmds();
    let pb = c.max_pack_bytes / c.data_bytes;
    let slots = b.slots();
    let sb = clog2(slots as u64);
    let sbeats = b.slot_beats();
    let bb = clog2(sbeats as u64);
    let snb = clog2(ns as u64);
    let xb = clog2(x as u64);
    let vb = clog2(v as u64);
    let pbw = bits_for(pb as u64 + 1);
    let nw = bits_for(m as u64);
    let kb = c.counter_bits;
    let tw = bits_for(p.rto_cycles as u64);
    let uw = bits_for(p.ack_coalesce as u64);
    let aw = bits_for(p.ack_delay_cycles as u64);
    let nkw = bits_for(p.nack_timeout_cycles as u64);
    let rb = b.rx_beats();
    let rrb = b.rx_ram_beats();
    let rpw = clog2(rrb as u64);
    let ubw = bits_for(rb as u64);
    let md = b.rx_meta_depth();
    let mdw = clog2(md as u64);
    let mcw = bits_for(md as u64);
    let cbw = clog2(cbt as u64);
    let olw = bits_for(cbt as u64);
    let crc = p.rcrc.model();
    let sp = |s: u32, f: &str| format!("s{s}_{f}");
    let dest_of = |s: u32| s / kpp;
    let vc_of = |s: u32| s % kpp;

    let mut ports = clock_ports(design);
    if p.xpuid_port {
        ports.push(Port::input(
            "local_xpuid",
            XPUID_BITS,
            "this XPU's id, sent as the RH xpuid (below num_xpu); a strap or register, changed only while in reset",
        ));
    }
    let pdu = Axis::sink(
        "s_axis_pdu",
        dw,
        "packed payload beats from the packer",
        "a payload beat is offered",
        "beat taken; on a first beat = a free slot for its PSN space (bad or peer-down PDUs are taken and dropped)",
    )
    .last("last beat of the PDU")
    .dest(XPUID_BITS, "destination xpuid (first beat)")
    .user(12, "{ncmds[9:0], vc[1:0]} (first beat)");
    let tx = Axis::source("m_axis_tx", dw, "SUE PDU beats: RH, payload, R-CRC; byte 0 first", "a PDU beat is presented", "the beat is taken")
        .keep("all ones, last beat the low 12 bytes")
        .last("last beat of the PDU")
        .dest(XPUID_BITS, "destination XPU of the PDU")
        .user(2, "vc of the PDU (traffic class)");
    let rx = Axis::sink("s_axis_rx", dw, "received SUE PDU beats", "a received beat is offered", "1 inside a PDU; between PDUs iff every VC buffer has room for a maximum PDU")
        .keep("byte enables (all ones, last beat the low 12 bytes)")
        .last("last beat of a received PDU")
        .user(1, "frame error from the lower layer (any beat)");
    let cmd = Axis::source("m_axis_cmd", dw, "unpacked command beats", "a command beat is presented", "the beat is taken")
        .last("last beat of a command")
        .id(XPUID_BITS, "source xpuid of the command")
        .user(2, "vc of the command");
    debug_assert_eq!(tx.width(Signal::Keep), db, "tkeep: a bit per byte of the beat");
    ports.extend(pdu.ports());
    ports.push(Port::output("tx_dest_ready", x, "a slot is free for this destination (every VC's space with dest_vc) and the peer is not down (to the packer's dest_ok)"));
    ports.extend(tx.ports());
    ports.push(Port::input("tx_vc_pause", v, "link partner's pause per class: do not start PDUs of a paused VC"));
    ports.extend(rx.ports());
    ports.push(Port::output("rx_vc_pause", v, "pause towards the link partner per class: that VC buffer's free space is below rx_pause_bytes"));
    ports.extend(cmd.ports());
    ports.extend([
        Port::input("xpu_vc_pause", v, "the XPU cannot take this VC now: the output skips it"),
        Port::output("cmpl_valid", 1, "one-cycle pulse: cmpl_cmds more commands to cmpl_dest acknowledged"),
        Port::output("cmpl_dest", XPUID_BITS, "destination of the acknowledged commands"),
        Port::output("cmpl_cmds", 16, "commands newly acknowledged"),
        Port::output("peer_down", x, "sticky: a PSN space to this destination timed out more than max_retries times in a row"),
    ]);
    let docs = [
        "data PDUs sent for the first time",
        "data PDUs retransmitted",
        "control PDUs carrying an ACK",
        "control PDUs carrying a NACK",
        "data PDUs carrying an ACK",
        "data PDUs carrying a NACK",
        "NACKs received and acted on",
        "cycles in which a retransmission timeout fired",
        "ACKs/NACKs out of range, ignored",
        "PDUs from the packer dropped: bad sideband or beat count",
        "PDUs from the packer dropped: peer down",
        "cycles a first beat waited for a free slot",
        "received PDUs (every tlast)",
        "received PDUs dropped: frame error flagged",
        "received PDUs dropped: bad shape (tkeep, length)",
        "received PDUs dropped: R-CRC mismatch",
        "received PDUs dropped: bad header (ver, op 3, xpuid, vc)",
        "received PDUs dropped: partition",
        "control PDUs received",
        "data PDUs accepted in order",
        "data PDUs dropped: ahead of the expected PSN",
        "data PDUs dropped: duplicates",
        "commands delivered",
        "cycles with s_axis_rx_tvalid and not tready",
    ];
    for (n, doc) in COUNTER_NAMES.iter().zip(docs) {
        ports.push(Port::output(n, kb, doc));
    }

    let mut it: Vec<Item> = Vec::new();
    let window_e = localparam(
        &mut it,
        "WINDOW",
        16,
        p.window as u64,
        "PDUs per PSN space stored and unacknowledged",
    );
    let m_e = localparam(
        &mut it,
        "MAX_CMDS",
        nw,
        m as u64,
        "commands per PDU at most",
    );
    let pb_e = localparam(
        &mut it,
        "PACK_BEATS",
        pbw,
        pb as u64,
        "payload beats of a maximum PDU",
    );
    let rto_last = localparam(
        &mut it,
        "RTO_LAST",
        tw,
        (p.rto_cycles - 1) as u64,
        "timer value at which the retransmission timeout fires (rto_cycles - 1)",
    );
    let coal_e = localparam(
        &mut it,
        "ACK_COALESCE",
        uw,
        p.ack_coalesce as u64,
        "accepted PDUs that make an ACK due",
    );
    let delay_e = if p.ack_delay_cycles > 0 {
        Some(localparam(
            &mut it,
            "ACK_DELAY",
            aw,
            p.ack_delay_cycles as u64,
            "cycles a pending ACK may wait",
        ))
    } else {
        None
    };
    let nto_last = localparam(
        &mut it,
        "NACK_LAST",
        nkw,
        (p.nack_timeout_cycles - 1) as u64,
        "NACK re-arm: age at which a persisting gap is NACKed again",
    );
    let room_e = localparam(
        &mut it,
        "RX_ROOM",
        ubw,
        (rb - pb) as u64,
        "most beats held with room for a maximum PDU",
    );
    let pause_e = localparam(
        &mut it,
        "RX_PAUSE_AT",
        ubw,
        (rb - p.rx_pause_bytes / db) as u64,
        "beats held above which the VC is paused",
    );
    let cmax = if kb >= 64 { u64::MAX } else { (1u64 << kb) - 1 };
    let cnt_max = localparam(
        &mut it,
        "CNT_MAX",
        kb,
        cmax,
        "status counters saturate here",
    );
    let crc_init_v = crc_init(&crc) as u64;
    let init_e = localparam(
        &mut it,
        "CRC_INIT",
        32,
        crc_init_v,
        "R-CRC register before the first byte",
    );

    // RH op codes compared on receipt (the model's `Op`), and the sideband limits checked on
    // ingest where they are below the field's range.
    let op_ack = localparam(&mut it, "OP_ACK", 2, Op::Ack as u64, "RH op: cumulative ACK up to rpsn");
    let op_nack = localparam(&mut it, "OP_NACK", 2, Op::Nack as u64, "RH op: NACK, rpsn is the first missing PSN");
    let op_reserved = localparam(&mut it, "OP_RESERVED", 2, Op::Reserved as u64, "RH op: never sent, a header error on receipt");
    let num_xpu = (x < 1024).then(|| localparam(&mut it, "NUM_XPU", XPUID_BITS, x as u64, "xpuids below this are valid destinations"));
    let num_vc = (v < 4).then(|| localparam(&mut it, "NUM_VC", 2, v as u64, "virtual channels"));

    // ================= TX ingest.
    it.push(Item::comment("TX ingest: a PDU from the packer is stored in slot next mod SLOTS of its PSN space; the first beat needs a free slot (window), bad sideband and peer-down PDUs are taken and dropped."));
    let (tdest, tuser) = ("s_axis_pdu_tdest", "s_axis_pdu_tuser");
    wire(
        &mut it,
        "in_vc_w",
        2,
        "vc of a first beat",
        Expr::slice(tuser, 1, 0),
    );
    wire(
        &mut it,
        "in_n_w",
        10,
        "ncmds of a first beat",
        Expr::slice(tuser, 11, 2),
    );
    // A check against a limit equal to the field's range is dropped: it cannot fail.
    let mut bad = Vec::new();
    if let Some(n) = &num_xpu {
        bad.push(ge(id(tdest), n.clone()));
    }
    if let Some(n) = &num_vc {
        bad.push(ge(id("in_vc_w"), n.clone()));
    }
    bad.push(Expr::or(
        Expr::eq(id("in_n_w"), dec(10, 0)),
        gt(id("in_n_w"), zext(m_e.clone(), nw, 10)),
    ));
    wire(
        &mut it,
        "in_bad_w",
        1,
        "dest >= num_xpu, vc >= num_vc, ncmds 0 or above MAX_CMDS",
        any(bad),
    );
    let sf: Vec<Expr> = (0..ns)
        .rev()
        .map(|s| {
            let mut t = vec![
                id("in_bad_w").not(),
                Expr::eq(id(tdest), dec(XPUID_BITS, dest_of(s) as u64)),
            ];
            if kpp > 1 {
                t.push(Expr::eq(id("in_vc_w"), dec(2, vc_of(s) as u64)));
            }
            all(t)
        })
        .collect();
    wire(
        &mut it,
        "sf_oh",
        ns,
        "PSN space of a good first beat, one-hot",
        cat(sf),
    );
    // Per-space TX registers.
    for s in 0..ns {
        for (f, w, doc) in [
            ("next", 16, "PSN of the next PDU to store"),
            ("hwm", 16, "one past the highest PSN sent"),
            ("snd", 16, "next PSN to (re)send"),
            ("una", 16, "oldest unacknowledged PSN"),
            ("cum", 16, "commands stored so far (mod 2^16)"),
            ("cacc", 16, "commands acknowledged so far (mod 2^16)"),
        ] {
            it.push(Item::reg(
                &sp(s, f),
                w,
                &format!("space {s} (dest {}, vc {}): {doc}", dest_of(s), vc_of(s)),
            ));
        }
        it.push(Item::reg(&sp(s, "timer"), tw, "retransmission timer"));
        it.push(Item::reg(&sp(s, "retries"), 8, "consecutive timeouts"));
        it.push(Item::reg(&sp(s, "down"), 1, "peer down (sticky)"));
        for (f, w, doc) in [
            ("epsn", 16, "RX: next expected PSN"),
            ("nsent", 1, "RX: a NACK was sent for the current gap"),
            ("npend", 1, "RX: a NACK is to be sent"),
            ("apend", 1, "RX: an ACK is pending"),
            (
                "aforce",
                1,
                "RX: the pending ACK is due now (duplicate seen)",
            ),
        ] {
            // Without an ACK delay a pending ACK is always due: no flag to force it.
            if f != "aforce" || delay_e.is_some() {
                it.push(Item::reg(&sp(s, f), w, doc));
            }
        }
        it.push(Item::reg(
            &sp(s, "unacked"),
            uw,
            "RX: accepted PDUs since the last ACK (saturating)",
        ));
        if p.ack_delay_cycles > 0 {
            it.push(Item::reg(
                &sp(s, "aage"),
                aw,
                "RX: cycles the ACK has been pending (saturating)",
            ));
        }
        it.push(Item::reg(
            &sp(s, "nage"),
            nkw,
            "RX: cycles since the NACK was sent",
        ));
    }
    it.push(Item::Memory {
        name: "meta".into(),
        width: 28,
        depth: ns * slots,
        doc: "per slot {cum[15:0], ncmds[9:0], vc[1:0]}".into(),
    });
    let meta_at = |sidx: Expr, psn: &str| {
        Expr::Index(
            "meta".into(),
            Box::new(cat(vec![sidx, Expr::slice(psn, sb - 1, 0)])),
        )
    };
    it.push(Item::reg(
        "rd_left_q",
        pbw,
        "payload beats still to read from the slot RAM (0 = none)",
    ));
    it.push(Item::reg("rd_s_q", snb, "space of the slot being read"));
    it.push(Item::reg("cur_psn_q", 16, "PSN of the slot being read"));
    for s in 0..ns {
        wire(
            &mut it,
            &sp(s, "m"),
            28,
            "slot meta at snd",
            meta_at(dec(snb, s as u64), &sp(s, "snd")),
        );
        wire(
            &mut it,
            &sp(s, "dn"),
            16,
            "next - una",
            sub(id(&sp(s, "next")), id(&sp(s, "una"))),
        );
        wire(
            &mut it,
            &sp(s, "dc"),
            16,
            "next - PSN being read",
            sub(id(&sp(s, "next")), id("cur_psn_q")),
        );
        wire(
            &mut it,
            &sp(s, "used"),
            16,
            "slots in use: from una, or from the PSN being read if older",
            mux(
                all(vec![
                    ne(id("rd_left_q"), dec(pbw, 0)),
                    Expr::eq(id("rd_s_q"), dec(snb, s as u64)),
                    gt(id(&sp(s, "dc")), id(&sp(s, "dn"))),
                ]),
                id(&sp(s, "dc")),
                id(&sp(s, "dn")),
            ),
        );
    }
    let free: Vec<Expr> = (0..ns)
        .rev()
        .map(|s| lt(id(&sp(s, "used")), window_e.clone()))
        .collect();
    wire(
        &mut it,
        "free_vec",
        ns,
        "a slot is free per space",
        cat(free),
    );
    let downs: Vec<Expr> = (0..ns).rev().map(|s| id(&sp(s, "down"))).collect();
    wire(&mut it, "down_vec", ns, "peer down per space", cat(downs));
    wire(
        &mut it,
        "down_first",
        1,
        "the first beat's space is down",
        Expr::red(UnOp::RedOr, Expr::and(id("sf_oh"), id("down_vec"))),
    );
    wire(
        &mut it,
        "free_first",
        1,
        "the first beat's space has a free slot",
        Expr::red(UnOp::RedOr, Expr::and(id("sf_oh"), id("free_vec"))),
    );
    it.push(Item::reg(
        "in_busy_q",
        1,
        "inside a PDU (past its first beat)",
    ));
    it.push(Item::reg("in_good_q", 1, "the PDU is being stored"));
    it.push(Item::reg("in_s_q", ns, "its space, one-hot"));
    it.push(Item::reg(
        "in_beat_q",
        pbw,
        "beat index (saturates at the expected count)",
    ));
    it.push(Item::reg(
        "in_exp_q",
        pbw,
        "beats expected: ncmds x cmd_beats",
    ));
    it.push(Item::reg("in_n_q", 10, "ncmds"));
    it.push(Item::reg("in_vc_q", 2, "vc"));
    wire(
        &mut it,
        "in_first",
        1,
        "a first beat",
        id("in_busy_q").not(),
    );
    wire(
        &mut it,
        "pdu_ready",
        1,
        "",
        any(vec![
            id("in_busy_q"),
            id("in_bad_w"),
            id("down_first"),
            id("free_first"),
        ]),
    );
    wire(
        &mut it,
        "pdu_fire",
        1,
        "a beat is taken",
        Expr::and(id("s_axis_pdu_tvalid"), id("pdu_ready")),
    );
    wire(
        &mut it,
        "in_nx",
        nw,
        "ncmds of a first beat (its low bits: meaningful when at most MAX_CMDS)",
        if nw == 10 {
            id("in_n_w")
        } else {
            Expr::slice("in_n_w", nw - 1, 0)
        },
    );
    wire(
        &mut it,
        "exp_first",
        pbw,
        "beats a first beat's PDU must have",
        mul_const("in_nx", nw, cbt, pbw),
    );
    wire(
        &mut it,
        "good_cur",
        1,
        "this beat belongs to a PDU being stored",
        mux(
            id("in_first"),
            Expr::and(id("in_bad_w").not(), id("down_first").not()),
            id("in_good_q"),
        ),
    );
    wire(
        &mut it,
        "beat_cur",
        pbw,
        "",
        mux(id("in_first"), dec(pbw, 0), id("in_beat_q")),
    );
    wire(
        &mut it,
        "exp_cur",
        pbw,
        "",
        mux(id("in_first"), id("exp_first"), id("in_exp_q")),
    );
    wire(
        &mut it,
        "s_cur_oh",
        ns,
        "",
        mux(id("in_first"), id("sf_oh"), id("in_s_q")),
    );
    encode(&mut it, "s_cur", "s_cur_oh", ns, snb, "space of this beat");
    wire(
        &mut it,
        "n_cur",
        10,
        "",
        mux(id("in_first"), id("in_n_w"), id("in_n_q")),
    );
    wire(
        &mut it,
        "vc_cur",
        2,
        "",
        mux(id("in_first"), id("in_vc_w"), id("in_vc_q")),
    );
    partly_used(
        &mut it,
        "next_cur",
        16,
        "next of this beat's space (its slot bits)",
        onehot_mux("s_cur_oh", ns, |s| sp(s, "next"), 16),
    );
    wire(
        &mut it,
        "cum_cur",
        16,
        "",
        onehot_mux("s_cur_oh", ns, |s| sp(s, "cum"), 16),
    );
    wire(
        &mut it,
        "beat_end_ok",
        1,
        "this beat is the expected last one",
        Expr::eq(add(id("beat_cur"), dec(pbw, 1)), id("exp_cur")),
    );
    wire(
        &mut it,
        "tx_we",
        1,
        "store this beat",
        all(vec![
            id("pdu_fire"),
            id("good_cur"),
            lt(id("beat_cur"), id("exp_cur")),
        ]),
    );
    wire(
        &mut it,
        "commit",
        1,
        "a whole PDU stored",
        all(vec![
            id("pdu_fire"),
            id("s_axis_pdu_tlast"),
            id("good_cur"),
            id("beat_end_ok"),
        ]),
    );
    wire(
        &mut it,
        "commit_oh",
        ns,
        "",
        Expr::and(id("s_cur_oh"), rep(ns, id("commit"))),
    );
    wire(
        &mut it,
        "in_err",
        1,
        "a PDU dropped: bad sideband or beat count",
        Expr::or(
            all(vec![id("pdu_fire"), id("in_first"), id("in_bad_w")]),
            all(vec![
                id("pdu_fire"),
                id("s_axis_pdu_tlast"),
                id("good_cur"),
                id("beat_end_ok").not(),
            ]),
        ),
    );
    wire(
        &mut it,
        "in_down",
        1,
        "a PDU dropped: peer down",
        all(vec![
            id("pdu_fire"),
            id("in_first"),
            id("in_bad_w").not(),
            id("down_first"),
        ]),
    );
    wire(
        &mut it,
        "cum_new",
        16,
        "cum after this PDU",
        add(id("cum_cur"), zext(id("n_cur"), 10, 16)),
    );
    let bslice = |e: &str| {
        if pbw > bb {
            Expr::slice(e, bb - 1, 0)
        } else {
            zext(id(e), pbw, bb)
        }
    };
    wire(
        &mut it,
        "tx_waddr",
        snb + sb + bb,
        "{space, slot, beat}",
        cat(vec![
            id("s_cur"),
            Expr::slice("next_cur", sb - 1, 0),
            bslice("beat_cur"),
        ]),
    );
    it.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id("in_busy_q", dec(1, 0)),
            set_id("in_good_q", dec(1, 0)),
            set_id("in_s_q", dec(ns, 0)),
            set_id("in_beat_q", dec(pbw, 0)),
            set_id("in_exp_q", dec(pbw, 0)),
            set_id("in_n_q", dec(10, 0)),
            set_id("in_vc_q", dec(2, 0)),
        ]),
        body: vec![when(
            id("pdu_fire"),
            vec![
                when(
                    id("in_first"),
                    vec![
                        set_id("in_good_q", id("good_cur")),
                        set_id("in_s_q", id("sf_oh")),
                        set_id("in_n_q", id("in_n_w")),
                        set_id("in_vc_q", id("in_vc_w")),
                        set_id("in_exp_q", id("exp_first")),
                    ],
                ),
                Stmt::If(
                    id("s_axis_pdu_tlast"),
                    vec![set_id("in_busy_q", dec(1, 0))],
                    vec![
                        set_id("in_busy_q", dec(1, 1)),
                        set_id(
                            "in_beat_q",
                            mux(
                                lt(id("beat_cur"), id("exp_cur")),
                                add(id("beat_cur"), dec(pbw, 1)),
                                id("exp_cur"),
                            ),
                        ),
                    ],
                ),
            ],
        )],
    });
    it.push(Item::Memory {
        name: "txram".into(),
        width: dw,
        depth: ns * slots * sbeats,
        doc: "retransmission slots: payload beats by {space, slot, beat}".into(),
    });
    it.push(Item::AlwaysFf {
        reset: None,
        body: vec![when(
            id("commit"),
            vec![Stmt::set(
                Expr::Index(
                    "meta".into(),
                    Box::new(cat(vec![id("s_cur"), Expr::slice("next_cur", sb - 1, 0)])),
                ),
                cat(vec![id("cum_new"), id("n_cur"), id("vc_cur")]),
            )],
        )],
    });

    // ================= TX selection.
    it.push(Item::comment("TX selection: a due ACK/NACK first (round robin; carried by a data PDU to that peer when one is ready, else a control PDU), else data (round robin)."));
    let mut dvec = Vec::new();
    let mut cvec = Vec::new();
    for s in (0..ns).rev() {
        wire(
            &mut it,
            &sp(s, "vcs"),
            2,
            "vc of the slot at snd",
            Expr::slice(&sp(s, "m"), 1, 0),
        );
        let d = all(vec![
            ne(id(&sp(s, "snd")), id(&sp(s, "next"))),
            id(&sp(s, "down")).not(),
            vc_bit("tx_vc_pause", v, id(&sp(s, "vcs"))).not(),
        ]);
        wire(&mut it, &sp(s, "data"), 1, "a data PDU is ready", d);
        let aged = match &delay_e {
            Some(d) => ge(id(&sp(s, "aage")), d.clone()),
            None => dec(1, 1),
        };
        // Without an ACK delay (`aged` constant true) a pending ACK is due at once.
        let due = match &delay_e {
            Some(_) => Expr::and(
                id(&sp(s, "apend")),
                any(vec![
                    id(&sp(s, "aforce")),
                    ge(id(&sp(s, "unacked")), coal_e.clone()),
                    aged,
                ]),
            ),
            None => id(&sp(s, "apend")),
        };
        wire(&mut it, &sp(s, "adue"), 1, "the pending ACK is due", due);
        let cvc = if p.psn_scope == PsnScope::DestVc {
            vc_of(s)
        } else {
            p.ack_vc
        };
        wire(
            &mut it,
            &sp(s, "ctl"),
            1,
            "an ACK/NACK is due and can go (by data or on its control VC)",
            Expr::and(
                Expr::or(id(&sp(s, "npend")), id(&sp(s, "adue"))),
                Expr::or(id(&sp(s, "data")), bit_of("tx_vc_pause", v, cvc).not()),
            ),
        );
        dvec.push(id(&sp(s, "data")));
        cvec.push(id(&sp(s, "ctl")));
    }
    wire(&mut it, "d_req", ns, "", cat(dvec));
    wire(&mut it, "c_req", ns, "", cat(cvec));
    it.push(Item::reg(
        "rr_ctl_q",
        snb,
        "last space served by the control arbiter",
    ));
    it.push(Item::reg(
        "rr_data_q",
        snb,
        "last space served by the data arbiter",
    ));
    round_robin(&mut it, "ca", "c_req", ns, id("rr_ctl_q"));
    round_robin(&mut it, "da", "d_req", ns, id("rr_data_q"));
    wire(&mut it, "any_c", 1, "", Expr::red(UnOp::RedOr, id("c_req")));
    wire(
        &mut it,
        "any_pick",
        1,
        "",
        Expr::or(id("any_c"), Expr::red(UnOp::RedOr, id("d_req"))),
    );
    wire(
        &mut it,
        "pick_oh",
        ns,
        "space picked",
        mux(id("any_c"), id("ca_oh"), id("da_oh")),
    );
    wire(
        &mut it,
        "pick_s",
        snb,
        "space picked",
        mux(id("any_c"), id("ca_idx"), id("da_idx")),
    );
    wire(
        &mut it,
        "pick_data",
        1,
        "a data PDU (else control)",
        Expr::red(UnOp::RedOr, Expr::and(id("pick_oh"), id("d_req"))),
    );
    let npv: Vec<Expr> = (0..ns).rev().map(|s| id(&sp(s, "npend"))).collect();
    let apv: Vec<Expr> = (0..ns).rev().map(|s| id(&sp(s, "apend"))).collect();
    wire(&mut it, "np_vec", ns, "", cat(npv));
    wire(&mut it, "ap_vec", ns, "", cat(apv));
    wire(
        &mut it,
        "p_nack",
        1,
        "piggyback a NACK",
        Expr::red(UnOp::RedOr, Expr::and(id("pick_oh"), id("np_vec"))),
    );
    wire(
        &mut it,
        "p_ack",
        1,
        "piggyback an ACK",
        Expr::and(
            id("p_nack").not(),
            Expr::red(UnOp::RedOr, Expr::and(id("pick_oh"), id("ap_vec"))),
        ),
    );
    wire(
        &mut it,
        "p_epsn",
        16,
        "",
        onehot_mux("pick_oh", ns, |s| sp(s, "epsn"), 16),
    );
    wire(
        &mut it,
        "p_snd",
        16,
        "",
        onehot_mux("pick_oh", ns, |s| sp(s, "snd"), 16),
    );
    wire(
        &mut it,
        "p_next",
        16,
        "",
        onehot_mux("pick_oh", ns, |s| sp(s, "next"), 16),
    );
    partly_used(
        &mut it,
        "p_m",
        28,
        "slot meta at snd of the pick (vc, ncmds)",
        onehot_mux("pick_oh", ns, |s| sp(s, "m"), 28),
    );
    wire(
        &mut it,
        "p_rpsn",
        16,
        "",
        mux(
            id("p_nack"),
            id("p_epsn"),
            mux(id("p_ack"), sub(id("p_epsn"), dec(16, 1)), dec(16, 0)),
        ),
    );
    wire(
        &mut it,
        "p_op",
        2,
        "RH op: 0 none, 1 ACK, 2 NACK",
        cat(vec![id("p_nack"), id("p_ack")]),
    );
    let ctl_vc = if p.psn_scope == PsnScope::DestVc {
        let bits: Vec<Expr> = (0..2)
            .rev()
            .map(|j| {
                any((0..ns)
                    .filter(|s| (vc_of(*s) >> j) & 1 == 1)
                    .map(|s| Expr::bit("pick_oh", s))
                    .collect::<Vec<_>>()
                    .into_iter()
                    .chain([dec(1, 0)])
                    .collect())
            })
            .collect();
        cat(bits)
    } else {
        dec(2, p.ack_vc as u64)
    };
    wire(
        &mut it,
        "p_vc",
        2,
        "RH vc",
        mux(id("pick_data"), Expr::slice("p_m", 1, 0), ctl_vc),
    );
    wire(
        &mut it,
        "p_psn",
        16,
        "RH psn: the PDU's, or next for a control PDU",
        mux(id("pick_data"), id("p_snd"), id("p_next")),
    );
    let rh = cat(vec![
        dec(2, p.version as u64),
        id("p_op"),
        dec(2, 0),
        if p.xpuid_port {
            id("local_xpuid")
        } else {
            dec(XPUID_BITS, p.local_xpuid as u64)
        },
        id("p_psn"),
        id("p_vc"),
        dec(4, 0),
        dec(10, p.partition as u64),
        id("p_rpsn"),
    ]);
    wire(
        &mut it,
        "p_rh",
        64,
        "reliability header, MSB first on the wire",
        rh,
    );
    wire(
        &mut it,
        "p_rh_bytes",
        64,
        "RH in beat byte order (byte 0 = rh[63:56])",
        cat((0..8)
            .map(|j| Expr::slice("p_rh", 8 * j + 7, 8 * j))
            .collect()),
    );
    let dest_pick = if kpp == 1 {
        zext(id("pick_s"), snb, XPUID_BITS)
    } else {
        let doh: Vec<Expr> = (0..x)
            .rev()
            .map(|d| {
                any((0..kpp)
                    .map(|vv| Expr::bit("pick_oh", d * kpp + vv))
                    .collect())
            })
            .collect();
        wire(&mut it, "pick_d_oh", x, "destination picked", cat(doh));
        encode(&mut it, "pick_d", "pick_d_oh", x, xb, "destination picked");
        zext(id("pick_d"), xb, XPUID_BITS)
    };
    wire(
        &mut it,
        "p_nx",
        nw,
        "ncmds of the picked slot",
        Expr::slice("p_m", nw + 1, 2),
    );
    wire(
        &mut it,
        "p_beats",
        pbw,
        "payload beats of the picked slot",
        mul_const("p_nx", nw, cbt, pbw),
    );

    // ================= TX engine.
    it.push(Item::comment("TX engine: the presented beat is {slot beat low bytes, carry} (carry = RH, then the previous slot beat's top 8 bytes); the tail beat is {R-CRC, carry}; the R-CRC register follows each beat taken."));
    it.push(Item::reg("out_valid_q", 1, "m_axis_tx_tvalid"));
    it.push(Item::reg(
        "out_tail_q",
        1,
        "the presented beat is the tail (R-CRC, tlast)",
    ));
    it.push(Item::reg(
        "tail_due_q",
        1,
        "the tail follows the slot beats still to read",
    ));
    it.push(Item::reg("ram_q", dw, "slot RAM read register"));
    it.push(Item::reg(
        "carry_q",
        64,
        "the 8 bytes carried into the next beat",
    ));
    it.push(Item::reg(
        "crc_q",
        32,
        "R-CRC register over the beats taken",
    ));
    it.push(Item::reg("rd_slot_q", sb, "slot being read"));
    it.push(Item::reg("rd_beat_q", bb, "next beat to read"));
    it.push(Item::reg(
        "out_dest_q",
        XPUID_BITS,
        "destination of the PDU",
    ));
    it.push(Item::reg("out_vc_q", 2, "vc of the PDU"));
    wire(
        &mut it,
        "tx_mid",
        dw,
        "a payload beat as presented",
        cat(vec![Expr::slice("ram_q", dw - 65, 0), id("carry_q")]),
    );
    it.push(Item::wire(
        "crc_fin",
        32,
        "the R-CRC: register after the carry's 8 bytes, finished",
    ));
    wire(
        &mut it,
        "fin_in",
        96,
        "{crc_q, carry_q}",
        cat(vec![id("crc_q"), id("carry_q")]),
    );
    affine(&mut it, "crc_fin", "fin_in", &last8_map(&crc));
    it.push(Item::wire(
        "crc_nxt",
        32,
        "the R-CRC register after the presented payload beat",
    ));
    wire(
        &mut it,
        "stp_in",
        dw + 32,
        "{crc_q, tx_mid}",
        cat(vec![id("crc_q"), id("tx_mid")]),
    );
    affine(&mut it, "crc_nxt", "stp_in", &step_map(&crc, db as usize));
    let tail_pad = dw - 96;
    wire(
        &mut it,
        "tx_tail",
        dw,
        "tail beat: carry, R-CRC LSB first, zeros",
        cat(vec![zeros(tail_pad), id("crc_fin"), id("carry_q")]),
    );
    wire(
        &mut it,
        "adv",
        1,
        "the output register can take a beat",
        Expr::or(id("out_valid_q").not(), id("m_axis_tx_tready")),
    );
    wire(
        &mut it,
        "issue_ram",
        1,
        "load the next slot beat",
        Expr::and(id("adv"), ne(id("rd_left_q"), dec(pbw, 0))),
    );
    wire(
        &mut it,
        "issue_tail",
        1,
        "present the tail",
        all(vec![
            id("adv"),
            Expr::eq(id("rd_left_q"), dec(pbw, 0)),
            id("tail_due_q"),
        ]),
    );
    wire(
        &mut it,
        "decide",
        1,
        "start a PDU",
        all(vec![
            id("adv"),
            Expr::eq(id("rd_left_q"), dec(pbw, 0)),
            id("tail_due_q").not(),
            id("any_pick"),
        ]),
    );
    wire(
        &mut it,
        "decide_data",
        1,
        "",
        Expr::and(id("decide"), id("pick_data")),
    );
    wire(
        &mut it,
        "mid_taken",
        1,
        "a payload beat is taken",
        all(vec![
            id("out_valid_q"),
            id("m_axis_tx_tready"),
            id("out_tail_q").not(),
        ]),
    );
    let rd_addr = mux(
        id("issue_ram"),
        cat(vec![id("rd_s_q"), id("rd_slot_q"), id("rd_beat_q")]),
        cat(vec![
            id("pick_s"),
            Expr::slice("p_snd", sb - 1, 0),
            dec(bb, 0),
        ]),
    );
    wire(
        &mut it,
        "tx_raddr",
        snb + sb + bb,
        "slot RAM read address",
        rd_addr,
    );
    it.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            when(
                id("tx_we"),
                vec![Stmt::set(
                    Expr::Index("txram".into(), Box::new(id("tx_waddr"))),
                    id("s_axis_pdu_tdata"),
                )],
            ),
            when(
                Expr::or(id("issue_ram"), id("decide_data")),
                vec![set_id(
                    "ram_q",
                    Expr::Index("txram".into(), Box::new(id("tx_raddr"))),
                )],
            ),
        ],
    });
    it.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id("out_valid_q", dec(1, 0)),
            set_id("out_tail_q", dec(1, 0)),
            set_id("tail_due_q", dec(1, 0)),
            set_id("carry_q", dec(64, 0)),
            set_id("crc_q", init_e.clone()),
            set_id("rd_left_q", dec(pbw, 0)),
            set_id("rd_s_q", dec(snb, 0)),
            set_id("cur_psn_q", dec(16, 0)),
            set_id("rd_slot_q", dec(sb, 0)),
            set_id("rd_beat_q", dec(bb, 0)),
            set_id("out_dest_q", dec(XPUID_BITS, 0)),
            set_id("out_vc_q", dec(2, 0)),
            set_id("rr_ctl_q", dec(snb, (ns - 1) as u64)),
            set_id("rr_data_q", dec(snb, (ns - 1) as u64)),
        ]),
        body: vec![
            when(
                id("mid_taken"),
                vec![
                    set_id("crc_q", id("crc_nxt")),
                    set_id("carry_q", Expr::slice("ram_q", dw - 1, dw - 64)),
                ],
            ),
            Stmt::If(
                id("issue_ram"),
                vec![
                    set_id("rd_beat_q", add(id("rd_beat_q"), dec(bb, 1))),
                    set_id("rd_left_q", sub(id("rd_left_q"), dec(pbw, 1))),
                    set_id("out_valid_q", dec(1, 1)),
                    set_id("out_tail_q", dec(1, 0)),
                ],
                vec![Stmt::If(
                    id("issue_tail"),
                    vec![
                        set_id("out_valid_q", dec(1, 1)),
                        set_id("out_tail_q", dec(1, 1)),
                        set_id("tail_due_q", dec(1, 0)),
                    ],
                    vec![Stmt::If(
                        id("decide"),
                        vec![
                            set_id("carry_q", id("p_rh_bytes")),
                            set_id("crc_q", init_e.clone()),
                            set_id("out_dest_q", dest_pick),
                            set_id("out_vc_q", id("p_vc")),
                            set_id("out_valid_q", dec(1, 1)),
                            Stmt::If(
                                id("any_c"),
                                vec![set_id("rr_ctl_q", id("pick_s"))],
                                vec![set_id("rr_data_q", id("pick_s"))],
                            ),
                            Stmt::If(
                                id("pick_data"),
                                vec![
                                    set_id("rd_s_q", id("pick_s")),
                                    set_id("cur_psn_q", id("p_snd")),
                                    set_id("rd_slot_q", Expr::slice("p_snd", sb - 1, 0)),
                                    set_id("rd_beat_q", dec(bb, 1)),
                                    set_id("rd_left_q", sub(id("p_beats"), dec(pbw, 1))),
                                    set_id("tail_due_q", dec(1, 1)),
                                    set_id("out_tail_q", dec(1, 0)),
                                ],
                                vec![
                                    set_id("out_tail_q", dec(1, 1)),
                                    set_id("tail_due_q", dec(1, 0)),
                                    set_id("rd_left_q", dec(pbw, 0)),
                                ],
                            ),
                        ],
                        vec![when(id("adv"), vec![set_id("out_valid_q", dec(1, 0))])],
                    )],
                )],
            ),
        ],
    });

    // ================= RX input and decision.
    it.push(Item::comment("RX: beat 0 holds the RH; each later beat completes one payload beat {its low 8 bytes, the previous beat's top bytes}, written tentatively into its VC buffer; at tlast the checks run in order (frame, shape, R-CRC, header, partition) and an in-order PDU is committed."));
    it.push(Item::reg("rx_busy_q", 1, "inside a received PDU"));
    it.push(Item::reg("rx_rh_q", 64, "RH bytes of the PDU"));
    it.push(Item::reg(
        "rx_hold_q",
        dw - 64,
        "top bytes of the previous beat",
    ));
    it.push(Item::reg(
        "rx_beat_q",
        pbw,
        "beat index (saturates at PACK_BEATS + 1)",
    ));
    it.push(Item::reg(
        "rx_crc_q",
        32,
        "R-CRC register over the beats so far",
    ));
    it.push(Item::reg("rx_ferr_q", 1, "frame error seen"));
    it.push(Item::reg("rx_kerr_q", 1, "bad tkeep seen"));
    if cbt > 1 {
        it.push(Item::reg("rx_cb_q", cbw, "payload beat within the command"));
    }
    it.push(Item::reg("rx_nc_q", pbw, "whole commands so far"));
    it.push(Item::reg("rx_vc_q", 2, "vc of the PDU"));
    for vv in 0..v {
        it.push(Item::reg(
            &format!("v{vv}_wp"),
            rpw,
            &format!("VC {vv}: committed write pointer"),
        ));
        it.push(Item::reg(&format!("v{vv}_rp"), rpw, "read pointer"));
        it.push(Item::reg(
            &format!("v{vv}_used"),
            ubw,
            "beats held (committed, not read)",
        ));
        it.push(Item::reg(&format!("v{vv}_mh"), mdw, "PDU queue head"));
        it.push(Item::reg(&format!("v{vv}_mt"), mdw, "PDU queue tail"));
        it.push(Item::reg(&format!("v{vv}_mc"), mcw, "PDUs queued"));
        it.push(Item::reg(
            &format!("v{vv}_hd"),
            pbw,
            "commands of the head PDU delivered",
        ));
    }
    let room: Vec<Expr> = (0..v)
        .map(|vv| Expr::bin(BinOp::Le, id(&format!("v{vv}_used")), room_e.clone()))
        .collect();
    wire(
        &mut it,
        "rx_room",
        1,
        "every VC buffer can take a maximum PDU",
        all(room),
    );
    wire(
        &mut it,
        "rx_ready",
        1,
        "",
        Expr::or(id("rx_busy_q"), id("rx_room")),
    );
    wire(
        &mut it,
        "rx_fire",
        1,
        "",
        Expr::and(id("s_axis_rx_tvalid"), id("rx_ready")),
    );
    wire(&mut it, "rx_first", 1, "", id("rx_busy_q").not());
    wire(
        &mut it,
        "rx_beat",
        pbw,
        "",
        mux(id("rx_first"), dec(pbw, 0), id("rx_beat_q")),
    );
    wire(
        &mut it,
        "rh_w",
        64,
        "RH bytes (byte 0 in [7:0])",
        mux(
            id("rx_first"),
            Expr::slice("s_axis_rx_tdata", 63, 0),
            id("rx_rh_q"),
        ),
    );
    wire(
        &mut it,
        "rx_vc_w",
        2,
        "",
        mux(
            id("rx_first"),
            Expr::slice("s_axis_rx_tdata", 39, 38),
            id("rx_vc_q"),
        ),
    );
    wire(
        &mut it,
        "rx_crc_cur",
        32,
        "",
        mux(id("rx_first"), init_e.clone(), id("rx_crc_q")),
    );
    let full_keep = Expr::Repeat(db, Box::new(dec(1, 1)));
    wire(
        &mut it,
        "keep_ok",
        1,
        "tkeep as the shape requires",
        mux(
            id("s_axis_rx_tlast"),
            Expr::eq(id("s_axis_rx_tkeep"), zext(dec(12, 0xFFF), 12, db)),
            Expr::eq(id("s_axis_rx_tkeep"), full_keep),
        ),
    );
    wire(
        &mut it,
        "rx_kerr",
        1,
        "",
        Expr::or(
            Expr::and(id("rx_first").not(), id("rx_kerr_q")),
            id("keep_ok").not(),
        ),
    );
    wire(
        &mut it,
        "rx_ferr",
        1,
        "",
        Expr::or(
            Expr::and(id("rx_first").not(), id("rx_ferr_q")),
            id("s_axis_rx_tuser"),
        ),
    );
    let cb_wrap = if cbt > 1 {
        Expr::eq(id("rx_cb_q"), dec(cbw, (cbt - 1) as u64))
    } else {
        dec(1, 1)
    };
    wire(
        &mut it,
        "cb_wrap",
        1,
        "this payload beat ends a command",
        Expr::and(id("rx_first").not(), cb_wrap),
    );
    wire(
        &mut it,
        "nc2",
        pbw,
        "whole commands after this beat",
        mux(
            id("rx_first"),
            dec(pbw, 0),
            add(id("rx_nc_q"), zext(id("cb_wrap"), 1, pbw)),
        ),
    );
    let cb_ok = if cbt > 1 {
        wire(
            &mut it,
            "cb2",
            cbw,
            "beat within the command after this beat",
            mux(
                Expr::or(id("rx_first"), id("cb_wrap")),
                dec(cbw, 0),
                add(id("rx_cb_q"), dec(cbw, 1)),
            ),
        );
        Expr::eq(id("cb2"), dec(cbw, 0))
    } else {
        dec(1, 1)
    };
    wire(
        &mut it,
        "rx_lenerr",
        1,
        "bad tkeep, too long, or not whole commands",
        any(vec![
            id("rx_kerr"),
            gt(id("rx_beat"), pb_e.clone()),
            cb_ok.not(),
        ]),
    );
    wire(
        &mut it,
        "rx_bm1",
        pbw,
        "payload beat index written by this beat",
        sub(id("rx_beat"), dec(pbw, 1)),
    );
    let vc_ok = if v == 4 {
        dec(1, 1)
    } else {
        lt(id("rx_vc_w"), dec(2, v as u64))
    };
    wire(
        &mut it,
        "rx_we",
        1,
        "write a payload beat",
        all(vec![
            id("rx_fire"),
            id("rx_first").not(),
            vc_ok,
            lt(id("rx_bm1"), pb_e.clone()),
        ]),
    );
    let vsel = |name: &str, w: u32, sel: Expr| {
        any((0..v)
            .map(|vv| {
                Expr::and(
                    rep(w, Expr::eq(sel.clone(), dec(2, vv as u64))),
                    id(&format!("v{vv}_{name}")),
                )
            })
            .collect())
    };
    wire(
        &mut it,
        "rx_wp_sel",
        rpw,
        "committed write pointer of the PDU's VC",
        vsel("wp", rpw, id("rx_vc_w")),
    );
    let bm1 = if pbw > rpw {
        Expr::slice("rx_bm1", rpw - 1, 0)
    } else {
        zext(id("rx_bm1"), pbw, rpw)
    };
    wire(&mut it, "rx_wptr", rpw, "", add(id("rx_wp_sel"), bm1));
    let rx_waddr = if v > 1 {
        cat(vec![Expr::slice("rx_vc_w", vb - 1, 0), id("rx_wptr")])
    } else {
        id("rx_wptr")
    };
    wire(
        &mut it,
        "rx_waddr",
        if v > 1 { vb + rpw } else { rpw },
        "{vc, pointer}",
        rx_waddr,
    );
    it.push(Item::wire(
        "rx_fin",
        32,
        "R-CRC over everything before the last beat's bytes 8..11",
    ));
    wire(
        &mut it,
        "rfin_in",
        96,
        "",
        cat(vec![
            id("rx_crc_cur"),
            Expr::slice("s_axis_rx_tdata", 63, 0),
        ]),
    );
    affine(&mut it, "rx_fin", "rfin_in", &last8_map(&crc));
    it.push(Item::wire(
        "rx_crc_nxt",
        32,
        "R-CRC register after this beat",
    ));
    wire(
        &mut it,
        "rstp_in",
        dw + 32,
        "",
        cat(vec![id("rx_crc_cur"), id("s_axis_rx_tdata")]),
    );
    affine(
        &mut it,
        "rx_crc_nxt",
        "rstp_in",
        &step_map(&crc, db as usize),
    );
    wire(
        &mut it,
        "rx_end",
        1,
        "a PDU ends",
        Expr::and(id("rx_fire"), id("s_axis_rx_tlast")),
    );
    wire(
        &mut it,
        "crc_ok",
        1,
        "",
        Expr::eq(id("rx_fin"), Expr::slice("s_axis_rx_tdata", 95, 64)),
    );
    wire(&mut it, "r_op", 2, "", Expr::slice("rh_w", 5, 4));
    wire(
        &mut it,
        "r_xpu",
        XPUID_BITS,
        "source xpuid",
        cat(vec![Expr::slice("rh_w", 1, 0), Expr::slice("rh_w", 15, 8)]),
    );
    wire(
        &mut it,
        "r_psn",
        16,
        "",
        cat(vec![
            Expr::slice("rh_w", 23, 16),
            Expr::slice("rh_w", 31, 24),
        ]),
    );
    wire(&mut it, "r_vc", 2, "", Expr::slice("rh_w", 39, 38));
    wire(
        &mut it,
        "r_part",
        10,
        "",
        cat(vec![
            Expr::slice("rh_w", 33, 32),
            Expr::slice("rh_w", 47, 40),
        ]),
    );
    wire(
        &mut it,
        "r_rpsn",
        16,
        "",
        cat(vec![
            Expr::slice("rh_w", 55, 48),
            Expr::slice("rh_w", 63, 56),
        ]),
    );
    let xbad = if x == 1024 {
        dec(1, 0)
    } else {
        ge(id("r_xpu"), dec(XPUID_BITS, x as u64))
    };
    let vbad = if v == 4 {
        dec(1, 0)
    } else {
        ge(id("r_vc"), dec(2, v as u64))
    };
    wire(
        &mut it,
        "hdr_bad",
        1,
        "ver, op 3, xpuid or vc",
        any(vec![
            ne(Expr::slice("rh_w", 7, 6), dec(2, p.version as u64)),
            Expr::eq(id("r_op"), op_reserved.clone()),
            xbad,
            vbad,
        ]),
    );
    // Without the partition check no PDU is dropped for its partition: no `e_part` term, and
    // the partition-error counter is a constant zero (see the counters below).
    let part_bad = p.partition_check.then(|| ne(id("r_part"), dec(10, p.partition as u64)));
    if !p.partition_check {
        it.push(Item::pragma("verilator lint_off UNUSED"));
        wire(
            &mut it,
            "part_unused",
            10,
            "partition is not checked",
            id("r_part"),
        );
        it.push(Item::pragma("verilator lint_on UNUSED"));
    }
    wire(
        &mut it,
        "e_frame",
        1,
        "",
        Expr::and(id("rx_end"), id("rx_ferr")),
    );
    wire(
        &mut it,
        "e_len",
        1,
        "",
        all(vec![id("rx_end"), id("rx_ferr").not(), id("rx_lenerr")]),
    );
    wire(
        &mut it,
        "e_crc",
        1,
        "",
        all(vec![
            id("rx_end"),
            id("rx_ferr").not(),
            id("rx_lenerr").not(),
            id("crc_ok").not(),
        ]),
    );
    wire(
        &mut it,
        "pre_ok",
        1,
        "frame, shape and R-CRC good",
        all(vec![
            id("rx_end"),
            id("rx_ferr").not(),
            id("rx_lenerr").not(),
            id("crc_ok"),
        ]),
    );
    wire(
        &mut it,
        "e_hdr",
        1,
        "",
        Expr::and(id("pre_ok"), id("hdr_bad")),
    );
    let mut ok_terms = vec![id("pre_ok"), id("hdr_bad").not()];
    if let Some(bad) = &part_bad {
        wire(
            &mut it,
            "e_part",
            1,
            "",
            all(vec![id("pre_ok"), id("hdr_bad").not(), bad.clone()]),
        );
        ok_terms.push(bad.clone().not());
    }
    wire(&mut it, "r_ok", 1, "the PDU passed every check", all(ok_terms));
    let sr: Vec<Expr> = (0..ns)
        .rev()
        .map(|s| {
            let mut t = vec![
                id("r_ok"),
                Expr::eq(id("r_xpu"), dec(XPUID_BITS, dest_of(s) as u64)),
            ];
            if kpp > 1 {
                t.push(Expr::eq(id("r_vc"), dec(2, vc_of(s) as u64)));
            }
            all(t)
        })
        .collect();
    wire(
        &mut it,
        "sr_oh",
        ns,
        "space of a good received PDU, one-hot",
        cat(sr),
    );
    encode(&mut it, "sr_i", "sr_oh", ns, snb, "");
    wire(
        &mut it,
        "r_una",
        16,
        "",
        onehot_mux("sr_oh", ns, |s| sp(s, "una"), 16),
    );
    wire(
        &mut it,
        "r_hwm",
        16,
        "",
        onehot_mux("sr_oh", ns, |s| sp(s, "hwm"), 16),
    );
    wire(
        &mut it,
        "r_cacc",
        16,
        "",
        onehot_mux("sr_oh", ns, |s| sp(s, "cacc"), 16),
    );
    wire(
        &mut it,
        "r_epsn",
        16,
        "",
        onehot_mux("sr_oh", ns, |s| sp(s, "epsn"), 16),
    );
    wire(
        &mut it,
        "r_du",
        16,
        "rpsn - una",
        sub(id("r_rpsn"), id("r_una")),
    );
    wire(
        &mut it,
        "r_dh",
        16,
        "hwm - una",
        sub(id("r_hwm"), id("r_una")),
    );
    wire(
        &mut it,
        "ack_ok",
        1,
        "ACK in [una, hwm)",
        all(vec![
            id("r_ok"),
            Expr::eq(id("r_op"), op_ack.clone()),
            lt(id("r_du"), id("r_dh")),
        ]),
    );
    wire(
        &mut it,
        "nack_ok",
        1,
        "NACK in [una, hwm]",
        all(vec![
            id("r_ok"),
            Expr::eq(id("r_op"), op_nack.clone()),
            Expr::bin(BinOp::Le, id("r_du"), id("r_dh")),
        ]),
    );
    wire(
        &mut it,
        "ackev",
        1,
        "",
        Expr::or(id("ack_ok"), id("nack_ok")),
    );
    wire(
        &mut it,
        "ack_ign",
        1,
        "",
        all(vec![
            id("r_ok"),
            Expr::or(
                Expr::eq(id("r_op"), op_ack.clone()),
                Expr::eq(id("r_op"), op_nack.clone()),
            ),
            id("ackev").not(),
        ]),
    );
    wire(
        &mut it,
        "una2",
        16,
        "una after the ACK/NACK",
        mux(
            Expr::eq(id("r_op"), op_ack.clone()),
            add(id("r_rpsn"), dec(16, 1)),
            id("r_rpsn"),
        ),
    );
    partly_used(
        &mut it,
        "una2m1",
        16,
        "una2 - 1 (its slot bits)",
        sub(id("una2"), dec(16, 1)),
    );
    partly_used(
        &mut it,
        "r_meta",
        28,
        "slot meta at una2 - 1 (its cum)",
        meta_at(id("sr_i"), "una2m1"),
    );
    wire(
        &mut it,
        "r_cum",
        16,
        "commands up to una2 - 1",
        Expr::slice("r_meta", 27, 12),
    );
    wire(
        &mut it,
        "moved",
        1,
        "the ACK/NACK frees slots",
        Expr::and(id("ackev"), ne(id("una2"), id("r_una"))),
    );
    wire(
        &mut it,
        "r_ctrl",
        1,
        "a good control PDU",
        Expr::and(id("r_ok"), Expr::eq(id("rx_beat"), dec(pbw, 0))),
    );
    wire(
        &mut it,
        "r_delta",
        16,
        "psn - epsn",
        sub(id("r_psn"), id("r_epsn")),
    );
    wire(
        &mut it,
        "r_data",
        1,
        "",
        Expr::and(id("r_ok"), ne(id("rx_beat"), dec(pbw, 0))),
    );
    wire(
        &mut it,
        "r_accept",
        1,
        "expected PSN: commit",
        Expr::and(id("r_data"), Expr::eq(id("r_delta"), dec(16, 0))),
    );
    wire(
        &mut it,
        "r_gap",
        1,
        "ahead: drop, NACK once",
        all(vec![
            id("r_data"),
            ne(id("r_delta"), dec(16, 0)),
            Expr::bit("r_delta", 15).not(),
        ]),
    );
    wire(
        &mut it,
        "r_dup",
        1,
        "behind: drop, re-ACK",
        Expr::and(id("r_data"), Expr::bit("r_delta", 15)),
    );
    it.push(Item::AlwaysFf {
        reset: Some({
            let mut r = vec![
                set_id("rx_busy_q", dec(1, 0)),
                set_id("rx_rh_q", dec(64, 0)),
                set_id("rx_hold_q", dec(dw - 64, 0)),
                set_id("rx_beat_q", dec(pbw, 0)),
                set_id("rx_crc_q", init_e.clone()),
                set_id("rx_ferr_q", dec(1, 0)),
                set_id("rx_kerr_q", dec(1, 0)),
                set_id("rx_nc_q", dec(pbw, 0)),
                set_id("rx_vc_q", dec(2, 0)),
            ];
            if cbt > 1 {
                r.push(set_id("rx_cb_q", dec(cbw, 0)));
            }
            r
        }),
        body: vec![when(
            id("rx_fire"),
            vec![
                set_id("rx_hold_q", Expr::slice("s_axis_rx_tdata", dw - 1, 64)),
                Stmt::If(
                    id("s_axis_rx_tlast"),
                    vec![set_id("rx_busy_q", dec(1, 0))],
                    {
                        let mut s = vec![
                            set_id("rx_busy_q", dec(1, 1)),
                            set_id(
                                "rx_beat_q",
                                mux(
                                    gt(id("rx_beat"), pb_e.clone()),
                                    id("rx_beat"),
                                    add(id("rx_beat"), dec(pbw, 1)),
                                ),
                            ),
                            set_id("rx_crc_q", id("rx_crc_nxt")),
                            set_id("rx_ferr_q", id("rx_ferr")),
                            set_id("rx_kerr_q", id("rx_kerr")),
                            set_id("rx_nc_q", id("nc2")),
                            when(
                                id("rx_first"),
                                vec![
                                    set_id("rx_rh_q", id("rh_w")),
                                    set_id("rx_vc_q", id("rx_vc_w")),
                                ],
                            ),
                        ];
                        if cbt > 1 {
                            s.push(set_id("rx_cb_q", id("cb2")));
                        }
                        s
                    },
                ),
            ],
        )],
    });

    // ================= Per-space protocol state.
    it.push(Item::comment("Per PSN space: a data PDU sent, then the retransmission timeout, then a received ACK/NACK (later wins: an ACK/NACK suppresses a same-cycle timeout and overrides snd); RX flags: timers, then the TX clear, then RX events (an accept stays pending)."));
    wire(
        &mut it,
        "clr_nack",
        1,
        "the decided PDU carries a NACK",
        Expr::and(id("decide"), id("p_nack")),
    );
    wire(
        &mut it,
        "clr_ack",
        1,
        "the decided PDU carries an ACK",
        Expr::and(id("decide"), id("p_ack")),
    );
    let mut rto_any = Vec::new();
    for s in 0..ns {
        let f = |n: &str| sp(s, n);
        let me = Expr::bit("pick_oh", s);
        let mine_rx = Expr::bit("sr_oh", s);
        wire(
            &mut it,
            &f("dd"),
            1,
            "a data PDU of this space is decided",
            Expr::and(id("decide_data"), me.clone()),
        );
        wire(
            &mut it,
            &f("cen"),
            1,
            "the timer runs",
            Expr::and(ne(id(&f("una")), id(&f("hwm"))), id(&f("down")).not()),
        );
        wire(
            &mut it,
            &f("tch"),
            1,
            "an ACK/NACK for this space",
            Expr::and(id("ackev"), mine_rx.clone()),
        );
        wire(
            &mut it,
            &f("to"),
            1,
            "timeout",
            all(vec![
                id(&f("cen")),
                ge(id(&f("timer")), rto_last.clone()),
                id(&f("tch")).not(),
            ]),
        );
        rto_any.push(id(&f("to")));
        wire(
            &mut it,
            &f("snd1"),
            16,
            "snd after the TX side",
            mux(
                id(&f("to")),
                id(&f("una")),
                mux(id(&f("dd")), add(id(&f("snd")), dec(16, 1)), id(&f("snd"))),
            ),
        );
        wire(
            &mut it,
            &f("hwm1"),
            16,
            "hwm after the TX side",
            mux(
                Expr::and(id(&f("dd")), Expr::eq(id(&f("snd")), id(&f("hwm")))),
                add(id(&f("hwm")), dec(16, 1)),
                id(&f("hwm")),
            ),
        );
        wire(
            &mut it,
            &f("behind"),
            1,
            "snd before the new una",
            gt(
                sub(id(&f("snd1")), id("una2")),
                sub(id(&f("hwm1")), id("una2")),
            ),
        );
        let retr_down = if p.max_retries > 0 {
            Some(ge(id(&f("retries")), dec(8, p.max_retries as u64)))
        } else {
            None
        };
        let mut to_body = vec![
            set_id(&f("timer"), dec(tw, 0)),
            set_id(
                &f("retries"),
                mux(
                    Expr::eq(id(&f("retries")), dec(8, 255)),
                    id(&f("retries")),
                    add(id(&f("retries")), dec(8, 1)),
                ),
            ),
        ];
        if let Some(rd) = retr_down {
            to_body.push(when(rd, vec![set_id(&f("down"), dec(1, 1))]));
        }
        let p0 = p.psn_init as u64;
        it.push(Item::AlwaysFf {
            reset: Some(vec![
                set_id(&f("next"), dec(16, p0)),
                set_id(&f("hwm"), dec(16, p0)),
                set_id(&f("snd"), dec(16, p0)),
                set_id(&f("una"), dec(16, p0)),
                set_id(&f("cum"), dec(16, 0)),
                set_id(&f("cacc"), dec(16, 0)),
                set_id(&f("timer"), dec(tw, 0)),
                set_id(&f("retries"), dec(8, 0)),
                set_id(&f("down"), dec(1, 0)),
            ]),
            body: vec![
                when(
                    Expr::bit("commit_oh", s),
                    vec![
                        set_id(&f("next"), add(id(&f("next")), dec(16, 1))),
                        set_id(&f("cum"), id("cum_new")),
                    ],
                ),
                set_id(&f("snd"), id(&f("snd1"))),
                set_id(&f("hwm"), id(&f("hwm1"))),
                when(
                    Expr::and(id(&f("dd")), Expr::eq(id(&f("una")), id(&f("hwm")))),
                    vec![set_id(&f("timer"), dec(tw, 0))],
                ),
                when(
                    id(&f("cen")),
                    vec![Stmt::If(
                        ge(id(&f("timer")), rto_last.clone()),
                        vec![when(id(&f("to")), to_body)],
                        vec![set_id(&f("timer"), add(id(&f("timer")), dec(tw, 1)))],
                    )],
                ),
                when(
                    id(&f("tch")),
                    vec![
                        when(
                            id("moved"),
                            vec![
                                set_id(&f("cacc"), id("r_cum")),
                                set_id(&f("una"), id("una2")),
                            ],
                        ),
                        set_id(&f("timer"), dec(tw, 0)),
                        set_id(&f("retries"), dec(8, 0)),
                        Stmt::If(
                            id("nack_ok"),
                            vec![set_id(&f("snd"), id("r_rpsn"))],
                            vec![when(id(&f("behind")), vec![set_id(&f("snd"), id("una2"))])],
                        ),
                    ],
                ),
            ],
        });
        // RX flags.
        let cn = Expr::and(id("clr_nack"), me.clone());
        let ca = Expr::and(id("clr_ack"), me.clone());
        let acc = Expr::and(id("r_accept"), mine_rx.clone());
        let gap = Expr::and(id("r_gap"), mine_rx.clone());
        let dup = Expr::and(id("r_dup"), mine_rx.clone());
        wire(
            &mut it,
            &f("ub"),
            uw,
            "unacked after the TX clear",
            mux(ca.clone(), dec(uw, 0), id(&f("unacked"))),
        );
        let mut rx_reset = vec![
            set_id(&f("epsn"), dec(16, p0)),
            set_id(&f("nsent"), dec(1, 0)),
            set_id(&f("npend"), dec(1, 0)),
            set_id(&f("apend"), dec(1, 0)),
            set_id(&f("unacked"), dec(uw, 0)),
            set_id(&f("nage"), dec(nkw, 0)),
        ];
        let mut age_tick = Vec::new();
        let mut age_clear = Vec::new();
        if let Some(d) = &delay_e {
            rx_reset.push(set_id(&f("aforce"), dec(1, 0)));
            rx_reset.push(set_id(&f("aage"), dec(aw, 0)));
            age_tick.push(when(
                Expr::and(id(&f("apend")), lt(id(&f("aage")), d.clone())),
                vec![set_id(&f("aage"), add(id(&f("aage")), dec(aw, 1)))],
            ));
            age_clear.push(set_id(&f("aage"), dec(aw, 0)));
        }
        let mut ack_clear = vec![set_id(&f("apend"), dec(1, 0)), set_id(&f("unacked"), dec(uw, 0))];
        if delay_e.is_some() {
            ack_clear.push(set_id(&f("aforce"), dec(1, 0)));
        }
        ack_clear.extend(age_clear);
        it.push(Item::AlwaysFf {
            reset: Some(rx_reset),
            body: age_tick
                .into_iter()
                .chain([
                    when(
                        Expr::and(id(&f("nsent")), id(&f("npend")).not()),
                        vec![Stmt::If(
                            ge(id(&f("nage")), nto_last.clone()),
                            vec![
                                set_id(&f("npend"), dec(1, 1)),
                                set_id(&f("nage"), dec(nkw, 0)),
                            ],
                            vec![set_id(&f("nage"), add(id(&f("nage")), dec(nkw, 1)))],
                        )],
                    ),
                    when(
                        cn,
                        vec![
                            set_id(&f("npend"), dec(1, 0)),
                            set_id(&f("nage"), dec(nkw, 0)),
                        ],
                    ),
                    when(ca, ack_clear),
                    when(
                        acc,
                        vec![
                            set_id(&f("epsn"), add(id(&f("epsn")), dec(16, 1))),
                            set_id(&f("nsent"), dec(1, 0)),
                            set_id(&f("apend"), dec(1, 1)),
                            set_id(
                                &f("unacked"),
                                mux(
                                    lt(id(&f("ub")), coal_e.clone()),
                                    add(id(&f("ub")), dec(uw, 1)),
                                    coal_e.clone(),
                                ),
                            ),
                        ],
                    ),
                    when(
                        Expr::and(gap, id(&f("nsent")).not()),
                        vec![
                            set_id(&f("npend"), dec(1, 1)),
                            set_id(&f("nsent"), dec(1, 1)),
                            set_id(&f("nage"), dec(nkw, 0)),
                        ],
                    ),
                    when(
                        dup,
                        std::iter::once(set_id(&f("apend"), dec(1, 1)))
                            .chain(delay_e.is_some().then(|| set_id(&f("aforce"), dec(1, 1))))
                            .collect(),
                    ),
                ])
                .collect(),
        });
    }
    wire(&mut it, "rto_any", 1, "a timeout fires", any(rto_any));
    it.push(Item::reg("cmpl_valid_q", 1, ""));
    it.push(Item::reg("cmpl_dest_q", XPUID_BITS, ""));
    it.push(Item::reg("cmpl_cmds_q", 16, ""));
    it.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id("cmpl_valid_q", dec(1, 0)),
            set_id("cmpl_dest_q", dec(XPUID_BITS, 0)),
            set_id("cmpl_cmds_q", dec(16, 0)),
        ]),
        body: vec![
            set_id("cmpl_valid_q", id("moved")),
            when(
                id("moved"),
                vec![
                    set_id("cmpl_dest_q", id("r_xpu")),
                    set_id("cmpl_cmds_q", sub(id("r_cum"), id("r_cacc"))),
                ],
            ),
        ],
    });

    // ================= RX buffers and the command output.
    it.push(Item::comment("Command output: at a command boundary, round robin over VCs with a queued PDU and no xpu_vc_pause; each command is cmd_beats beats with tlast on the last, tid = source, tuser = vc."));
    it.push(Item::Memory {
        name: "rxram".into(),
        width: dw,
        depth: v * rrb,
        doc: "receive buffers: payload beats by {vc, pointer}".into(),
    });
    it.push(Item::Memory {
        name: "mq".into(),
        width: 20,
        depth: v * md,
        doc: "per VC queue of committed PDUs {src[9:0], ncmds[9:0]}".into(),
    });
    it.push(Item::reg("o_valid_q", 1, "m_axis_cmd_tvalid"));
    it.push(Item::reg("o_last_q", 1, "m_axis_cmd_tlast"));
    it.push(Item::reg("o_data_q", dw, "receive buffer read register"));
    it.push(Item::reg(
        "o_left_q",
        olw,
        "beats of the command still to load",
    ));
    it.push(Item::reg("o_v_q", 2, "vc of the command"));
    it.push(Item::reg("o_src_q", XPUID_BITS, "source of the command"));
    let oreq: Vec<Expr> = (0..v)
        .rev()
        .map(|vv| {
            Expr::and(
                ne(id(&format!("v{vv}_mc")), dec(mcw, 0)),
                bit_of("xpu_vc_pause", v, vv).not(),
            )
        })
        .collect();
    wire(
        &mut it,
        "o_req",
        v,
        "VCs with a command to deliver",
        cat(oreq),
    );
    if v > 1 {
        it.push(Item::reg("o_rr_q", vb, "last VC served"));
        round_robin(&mut it, "ov", "o_req", v, id("o_rr_q"));
    }
    let ovx = if v > 1 {
        zext(id("ov_idx"), vb, 2)
    } else {
        dec(2, 0)
    };
    wire(&mut it, "ov2", 2, "VC picked", ovx);
    wire(
        &mut it,
        "adv_o",
        1,
        "",
        Expr::or(id("o_valid_q").not(), id("m_axis_cmd_tready")),
    );
    wire(
        &mut it,
        "issue_o",
        1,
        "load the next beat of the command",
        Expr::and(id("adv_o"), ne(id("o_left_q"), dec(olw, 0))),
    );
    wire(
        &mut it,
        "decide_o",
        1,
        "start a command",
        all(vec![
            id("adv_o"),
            Expr::eq(id("o_left_q"), dec(olw, 0)),
            Expr::red(UnOp::RedOr, id("o_req")),
        ]),
    );
    wire(
        &mut it,
        "o_vr",
        2,
        "VC read this cycle",
        mux(id("issue_o"), id("o_v_q"), id("ov2")),
    );
    wire(
        &mut it,
        "o_rp",
        rpw,
        "its read pointer",
        vsel("rp", rpw, id("o_vr")),
    );
    wire(
        &mut it,
        "o_mh",
        mdw,
        "PDU queue head of the picked VC",
        vsel("mh", mdw, id("ov2")),
    );
    wire(&mut it, "o_hd", pbw, "", vsel("hd", pbw, id("ov2")));
    let mq_addr = if v > 1 {
        cat(vec![Expr::slice("ov2", vb - 1, 0), id("o_mh")])
    } else {
        id("o_mh")
    };
    it.push(Item::wire("o_meta", 20, "head PDU {src, ncmds}"));
    it.push(Item::assign(
        id("o_meta"),
        Expr::Index("mq".into(), Box::new(mq_addr)),
    ));
    wire(
        &mut it,
        "o_pop",
        1,
        "the head PDU's last command starts",
        Expr::and(
            id("decide_o"),
            Expr::eq(
                zext(add(id("o_hd"), dec(pbw, 1)), pbw, pbw.max(10)),
                zext(Expr::slice("o_meta", 9, 0), 10, pbw.max(10)),
            ),
        ),
    );
    let raddr_o = if v > 1 {
        cat(vec![Expr::slice("o_vr", vb - 1, 0), id("o_rp")])
    } else {
        id("o_rp")
    };
    wire(
        &mut it,
        "o_raddr",
        if v > 1 { vb + rpw } else { rpw },
        "",
        raddr_o,
    );
    wire(
        &mut it,
        "o_read",
        1,
        "a buffer beat is read",
        Expr::or(id("issue_o"), id("decide_o")),
    );
    let mq_waddr = if v > 1 {
        cat(vec![
            Expr::slice("r_vc", vb - 1, 0),
            vsel("mt", mdw, id("r_vc")),
        ])
    } else {
        id("v0_mt")
    };
    wire(
        &mut it,
        "mq_waddr",
        if v > 1 { vb + mdw } else { mdw },
        "",
        mq_waddr,
    );
    let ncx = if pbw >= 10 {
        Expr::slice("nc2", 9, 0)
    } else {
        zext(id("nc2"), pbw, 10)
    };
    it.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            when(
                id("rx_we"),
                vec![Stmt::set(
                    Expr::Index("rxram".into(), Box::new(id("rx_waddr"))),
                    cat(vec![Expr::slice("s_axis_rx_tdata", 63, 0), id("rx_hold_q")]),
                )],
            ),
            when(
                id("r_accept"),
                vec![Stmt::set(
                    Expr::Index("mq".into(), Box::new(id("mq_waddr"))),
                    cat(vec![id("r_xpu"), ncx]),
                )],
            ),
            when(
                id("o_read"),
                vec![set_id(
                    "o_data_q",
                    Expr::Index("rxram".into(), Box::new(id("o_raddr"))),
                )],
            ),
        ],
    });
    let mut o_reset = vec![
        set_id("o_valid_q", dec(1, 0)),
        set_id("o_last_q", dec(1, 0)),
        set_id("o_left_q", dec(olw, 0)),
        set_id("o_v_q", dec(2, 0)),
        set_id("o_src_q", dec(XPUID_BITS, 0)),
    ];
    let mut on_dec = vec![
        set_id("o_valid_q", dec(1, 1)),
        set_id("o_left_q", dec(olw, (cbt - 1) as u64)),
        set_id("o_last_q", dec(1, (cbt == 1) as u64)),
        set_id("o_v_q", id("ov2")),
        set_id("o_src_q", Expr::slice("o_meta", 19, 10)),
    ];
    if v > 1 {
        o_reset.push(set_id("o_rr_q", dec(vb, (v - 1) as u64)));
        on_dec.push(set_id("o_rr_q", id("ov_idx")));
    }
    it.push(Item::AlwaysFf {
        reset: Some(o_reset),
        body: vec![Stmt::If(
            id("issue_o"),
            vec![
                set_id("o_valid_q", dec(1, 1)),
                set_id("o_left_q", sub(id("o_left_q"), dec(olw, 1))),
                set_id("o_last_q", Expr::eq(id("o_left_q"), dec(olw, 1))),
            ],
            vec![Stmt::If(
                id("decide_o"),
                on_dec,
                vec![when(id("adv_o"), vec![set_id("o_valid_q", dec(1, 0))])],
            )],
        )],
    });
    let beats_c = if pbw > ubw {
        Expr::slice("rx_beat", ubw - 1, 0)
    } else {
        zext(id("rx_beat"), pbw, ubw)
    };
    wire(
        &mut it,
        "acc_beats",
        ubw,
        "payload beats of an accepted PDU",
        beats_c,
    );
    let acc_rp = if pbw > rpw {
        Expr::slice("rx_beat", rpw - 1, 0)
    } else {
        zext(id("rx_beat"), pbw, rpw)
    };
    wire(&mut it, "acc_ptr", rpw, "", acc_rp);
    for vv in 0..v {
        let f = |n: &str| format!("v{vv}_{n}");
        let mine_acc = Expr::and(id("r_accept"), Expr::eq(id("r_vc"), dec(2, vv as u64)));
        let mine_rd = Expr::and(id("o_read"), Expr::eq(id("o_vr"), dec(2, vv as u64)));
        let mine_pop = Expr::and(id("o_pop"), Expr::eq(id("ov2"), dec(2, vv as u64)));
        let mine_dec = Expr::and(id("decide_o"), Expr::eq(id("ov2"), dec(2, vv as u64)));
        wire(&mut it, &f("acc"), 1, "", mine_acc);
        wire(&mut it, &f("rd"), 1, "", mine_rd);
        wire(&mut it, &f("pop"), 1, "", mine_pop);
        wire(&mut it, &f("dec"), 1, "", mine_dec);
        it.push(Item::AlwaysFf {
            reset: Some(vec![
                set_id(&f("wp"), dec(rpw, 0)),
                set_id(&f("rp"), dec(rpw, 0)),
                set_id(&f("used"), dec(ubw, 0)),
                set_id(&f("mh"), dec(mdw, 0)),
                set_id(&f("mt"), dec(mdw, 0)),
                set_id(&f("mc"), dec(mcw, 0)),
                set_id(&f("hd"), dec(pbw, 0)),
            ]),
            body: vec![
                when(
                    id(&f("acc")),
                    vec![
                        set_id(&f("wp"), add(id(&f("wp")), id("acc_ptr"))),
                        set_id(&f("mt"), add(id(&f("mt")), dec(mdw, 1))),
                    ],
                ),
                when(
                    id(&f("rd")),
                    vec![set_id(&f("rp"), add(id(&f("rp")), dec(rpw, 1)))],
                ),
                set_id(
                    &f("used"),
                    sub(
                        add(
                            id(&f("used")),
                            mux(id(&f("acc")), id("acc_beats"), dec(ubw, 0)),
                        ),
                        zext(id(&f("rd")), 1, ubw),
                    ),
                ),
                set_id(
                    &f("mc"),
                    sub(
                        add(id(&f("mc")), zext(id(&f("acc")), 1, mcw)),
                        zext(id(&f("pop")), 1, mcw),
                    ),
                ),
                when(
                    id(&f("pop")),
                    vec![set_id(&f("mh"), add(id(&f("mh")), dec(mdw, 1)))],
                ),
                when(
                    id(&f("dec")),
                    vec![set_id(
                        &f("hd"),
                        mux(id(&f("pop")), dec(pbw, 0), add(id(&f("hd")), dec(pbw, 1))),
                    )],
                ),
            ],
        });
    }
    let pz: Vec<Expr> = (0..v)
        .rev()
        .map(|vv| gt(id(&format!("v{vv}_used")), pause_e.clone()))
        .collect();
    wire(&mut it, "pause_w", v, "", cat(pz));

    // ================= Counters.
    let mut regs = Vec::new();
    let mut c_reset = Vec::new();
    let mut c_body = Vec::new();
    let incs: [Expr; 24] = [
        all(vec![
            id("decide_data"),
            Expr::eq(id("p_snd"), onehot_mux("pick_oh", ns, |s| sp(s, "hwm"), 16)),
        ]),
        all(vec![
            id("decide_data"),
            ne(id("p_snd"), onehot_mux("pick_oh", ns, |s| sp(s, "hwm"), 16)),
        ]),
        all(vec![id("decide"), id("pick_data").not(), id("p_ack")]),
        all(vec![id("decide"), id("pick_data").not(), id("p_nack")]),
        all(vec![id("decide_data"), id("p_ack")]),
        all(vec![id("decide_data"), id("p_nack")]),
        id("nack_ok"),
        id("rto_any"),
        id("ack_ign"),
        id("in_err"),
        id("in_down"),
        Expr::and(id("s_axis_pdu_tvalid"), id("pdu_ready").not()),
        id("rx_end"),
        id("e_frame"),
        id("e_len"),
        id("e_crc"),
        id("e_hdr"),
        id("e_part"),
        id("r_ctrl"),
        id("r_accept"),
        id("r_gap"),
        id("r_dup"),
        id("decide_o"),
        Expr::and(id("s_axis_rx_tvalid"), id("rx_ready").not()),
    ];
    for (n, inc) in COUNTER_NAMES.iter().zip(incs) {
        if !counted(p, n) {
            continue;
        }
        counter(
            &mut regs,
            &mut c_reset,
            &mut c_body,
            &format!("{n}_q"),
            kb,
            inc,
            cnt_max.clone(),
            "",
        );
    }
    it.extend(regs);
    it.push(Item::AlwaysFf {
        reset: Some(c_reset),
        body: c_body,
    });

    // ================= Outputs.
    let tdr: Vec<Expr> = (0..x)
        .rev()
        .map(|d| {
            all((0..kpp)
                .map(|vv| {
                    let s = d * kpp + vv;
                    let ing = zext(
                        all(vec![
                            id("in_busy_q"),
                            id("in_good_q"),
                            Expr::bit("in_s_q", s),
                        ]),
                        1,
                        16,
                    );
                    Expr::and(
                        id(&sp(s, "down")).not(),
                        lt(add(id(&sp(s, "used")), ing), window_e.clone()),
                    )
                })
                .collect())
        })
        .collect();
    let pdn: Vec<Expr> = (0..x)
        .rev()
        .map(|d| any((0..kpp).map(|vv| id(&sp(d * kpp + vv, "down"))).collect()))
        .collect();
    it.extend([
        Item::assign(id("s_axis_pdu_tready"), id("pdu_ready")),
        Item::assign(id("tx_dest_ready"), cat(tdr)),
        Item::assign(
            id("m_axis_tx_tdata"),
            mux(id("out_tail_q"), id("tx_tail"), id("tx_mid")),
        ),
        Item::assign(
            id("m_axis_tx_tkeep"),
            mux(
                id("out_tail_q"),
                zext(dec(12, 0xFFF), 12, db),
                Expr::Repeat(db, Box::new(dec(1, 1))),
            ),
        ),
        Item::assign(id("m_axis_tx_tvalid"), id("out_valid_q")),
        Item::assign(id("m_axis_tx_tlast"), id("out_tail_q")),
        Item::assign(id("m_axis_tx_tdest"), id("out_dest_q")),
        Item::assign(id("m_axis_tx_tuser"), id("out_vc_q")),
        Item::assign(id("s_axis_rx_tready"), id("rx_ready")),
        Item::assign(id("rx_vc_pause"), id("pause_w")),
        Item::assign(id("m_axis_cmd_tdata"), id("o_data_q")),
        Item::assign(id("m_axis_cmd_tvalid"), id("o_valid_q")),
        Item::assign(id("m_axis_cmd_tlast"), id("o_last_q")),
        Item::assign(id("m_axis_cmd_tid"), id("o_src_q")),
        Item::assign(id("m_axis_cmd_tuser"), id("o_v_q")),
        Item::assign(id("cmpl_valid"), id("cmpl_valid_q")),
        Item::assign(id("cmpl_dest"), id("cmpl_dest_q")),
        Item::assign(id("cmpl_cmds"), id("cmpl_cmds_q")),
        Item::assign(id("peer_down"), cat(pdn)),
    ]);
    for n in COUNTER_NAMES {
        let value = if counted(p, n) { id(&format!("{n}_q")) } else { dec(kb, 0) };
        it.push(Item::assign(id(n), value));
    }

    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: it, reset: Some(design.reset) },
        latency: b.tx_latency(),
        summary: format!(
            "SUE transport: {ns} PSN spaces ({}), window {} in {slots} slots of {} bytes each; R-CRC {}; go-back-N on NACK and after {} cycles; receive buffers of {} bytes per VC ({v} VCs).",
            if kpp > 1 { "per {destination, VC}" } else { "per destination" },
            p.window,
            c.max_pack_bytes,
            p.rcrc.name(),
            p.rto_cycles,
            p.rx_buf_bytes_per_vc
        ),
        notes: b.notes(),
        role: Role::SueTransport,
        origin: None,
    }
}
