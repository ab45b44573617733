//! Properties of the SUE transport, at its ports and its per-space and per-VC registers (never
//! at the RAMs):
//!
//! - streams: `m_axis_tx` and `m_axis_cmd` keep `tvalid` and the beat until `tready`, assuming
//!   the same of the `s_axis_pdu` and `s_axis_rx` senders (`m_axis_tx_tdata` through the
//!   registers it is a function of, `ram_q`, `carry_q` and the R-CRC register `crc_q`);
//! - the go-back-N window of every PSN space, on the full 16-bit PSNs (so the RTL's compares
//!   on the window's low bits are checked to read the true distances): `una <= snd <= hwm <=
//!   next` and `next - una <= WINDOW` (`p_s<s>_window`); from one cycle to the next `una` moves
//!   forward, at most to the last cycle's `hwm` (`p_s<s>_una_moves`: never backwards, never past
//!   what was sent); a data PDU is sent only at a stored, unacknowledged PSN
//!   (`p_s<s>_send_unacked`: an acknowledged PDU is never sent again); after a timeout or a NACK
//!   acted on, `snd = una` (`p_s<s>_goback`: the retransmission starts at the oldest
//!   unacknowledged PDU);
//! - the retransmission slots: while a PDU's later beats are read, its PSN is one of the
//!   `WINDOW` stored below `next` and `rd_slot_q` is its slot (`p_s<s>_read_held`), so the
//!   store, which writes slot `next`, never overwrites the slot being read
//!   (`p_tx_read_not_overwritten`);
//! - the receive buffers and PDU queues, per VC: beats held at most the buffer, the pointers
//!   `wp - rp` equal to the beats held, PDUs queued at most the queue's depth and `mt - mh`
//!   equal to them (`p_v<v>_occupancy`); a PDU accepted fits (`p_v<v>_no_overflow`); no beat
//!   read from an empty buffer and no pop of an empty queue (`p_v<v>_no_underflow`). The
//!   buffers' flags (`rx_room`, `rx_vc_pause`, the output's requests) are combinational of
//!   these counts, so they agree with them by construction;
//! - legal encodings of the control registers: the ingest's space one-hot (none for a dropped
//!   PDU) and its beat index within the expected count (`p_ingest_legal`), the verdict's space
//!   one-hot or none (`p_rx_space_onehot`), the RX beat index within `PACK_BEATS + 1`
//!   (`p_rx_frame_legal`), the TX engine's read count, tail and valid flags consistent
//!   (`p_tx_engine_legal`), the command output's beat count and flags (`p_cmd_out_legal`);
//! - the status counters saturate at all ones and never wrap: those properties come with the
//!   counters, from [`crate::hw::count`].
//!
//! Not here: data integrity of the slots and buffers (a tagged PDU read back unchanged), the
//! R-CRC (its XOR maps come from the CRC model and are checked by the co-simulation), and induction: the
//! properties are checked by bounded model checking.

use super::rtl::{sp, Ctx};
use crate::hw::build::{add, all, and, dec, eq, id, le, lt, ne, sub, zext};
use crate::hw::props::{running, Formal};
use crate::hw::verilog::{Expr, Item};
use crate::info::ResetStyle;

/// The transport's properties.
pub(super) fn properties(cx: &Ctx, reset: ResetStyle) -> Item {
    let mut f = Formal::clocked(reset);
    streams(&mut f, cx, reset);
    for s in 0..cx.ns {
        window(&mut f, cx, reset, s);
    }
    slots(&mut f, cx, reset);
    for vv in 0..cx.v {
        queues(&mut f, cx, reset, vv);
    }
    encodings(&mut f, cx, reset);
    Item::Formal(f)
}

/// A wire `name` of `width` bits holding `a - b` (modulo `2^width`: the compares read the
/// distance, not an extended difference).
fn diff(f: &mut Formal, name: &str, width: u32, a: Expr, b: Expr, doc: &str) -> Expr {
    f.items.push(Item::wire(name, width, doc));
    f.items.push(Item::assign(id(name), sub(a, b)));
    id(name)
}

/// At most one bit of `x` (`width` bits) set.
fn onehot0(x: &str, width: u32) -> Expr {
    if width == 1 {
        return Expr::one();
    }
    eq(Expr::and(id(x), sub(id(x), dec(width, 1))), dec(width, 0))
}

fn streams(f: &mut Formal, cx: &Ctx, reset: ResetStyle) {
    let (dw, db) = (cx.dw, cx.db);
    let xb = crate::blocks::protocol::sue::XPUID_BITS;
    f.stream_in(
        reset,
        "s_axis_pdu",
        &[("tdata", dw), ("tlast", 1), ("tdest", xb), ("tuser", 12)],
    );
    f.stream_in(
        reset,
        "s_axis_rx",
        &[("tdata", dw), ("tkeep", db), ("tlast", 1), ("tuser", 1)],
    );
    // tdata is {ram_q, carry_q} or, on the tail, {R-CRC of crc_q and carry_q}: its stability is
    // checked on those registers, which a stalled beat must hold, since comparing two cycles'
    // R-CRC networks output for output is an XOR equivalence the solver cannot close.
    f.handshake_out(
        reset,
        "m_axis_tx",
        "m_axis_tx_tvalid",
        "m_axis_tx_tready",
        &[
            ("m_axis_tx_tkeep", db),
            ("m_axis_tx_tlast", 1),
            ("m_axis_tx_tdest", xb),
            ("m_axis_tx_tuser", 2),
            ("ram_q", dw),
            ("carry_q", 64),
            ("crc_q", 32),
        ],
    );
    f.stream_out(
        reset,
        "m_axis_cmd",
        &[("tdata", dw), ("tlast", 1), ("tid", xb), ("tuser", 2)],
        None,
    );
}

/// The go-back-N rules of PSN space `s` (see the module docs).
fn window(f: &mut Formal, cx: &Ctx, reset: ResetStyle, s: u32) {
    let n = |x: &str| id(&sp(s, x));
    let run = running(reset);
    let prev = f.prev_run(reset);
    let d_next = diff(
        f,
        &format!("f_s{s}_d_next"),
        16,
        n("next"),
        n("una"),
        "next - una: PDUs stored and unacknowledged",
    );
    let d_hwm = diff(
        f,
        &format!("f_s{s}_d_hwm"),
        16,
        n("hwm"),
        n("una"),
        "hwm - una: PDUs sent and unacknowledged",
    );
    let d_snd = diff(
        f,
        &format!("f_s{s}_d_snd"),
        16,
        n("snd"),
        n("una"),
        "snd - una: where the sender stands",
    );
    f.assert(
        &format!("p_s{s}_window"),
        &format!("space {s}: una <= snd <= hwm <= next and next - una <= WINDOW (16-bit PSNs)"),
        Some(run.clone()),
        all(vec![
            le(d_snd.clone(), d_hwm.clone()),
            le(d_hwm, d_next.clone()),
            le(d_next.clone(), dec(16, cx.p.window as u64)),
        ]),
    );
    let una_was = f.past(
        &format!("f_s{s}_una_was"),
        16,
        n("una"),
        &format!("space {s}: una one cycle ago"),
    );
    let sent_was = f.past(
        &format!("f_s{s}_sent_was"),
        16,
        sub(n("hwm"), n("una")),
        &format!("space {s}: hwm - una one cycle ago"),
    );
    let moved = diff(
        f,
        &format!("f_s{s}_una_step"),
        16,
        n("una"),
        una_was,
        "how far una moved since last cycle",
    );
    f.assert(
        &format!("p_s{s}_una_moves"),
        &format!("space {s}: una moves forward, at most to last cycle's hwm (never backwards, never past what was sent)"),
        Some(and(run.clone(), prev.clone())),
        le(moved, sent_was),
    );
    f.assert(
        &format!("p_s{s}_send_unacked"),
        &format!("space {s}: a data PDU goes out only at a stored, unacknowledged PSN (an acknowledged PDU is never sent again)"),
        Some(and(run.clone(), n("dd"))),
        lt(d_snd.clone(), d_next),
    );
    let goback = Expr::or(n("to"), all(vec![id("nack_ok"), Expr::bit("sr_oh", s)]));
    let went_back = f.past(
        &format!("f_s{s}_goback"),
        1,
        goback,
        &format!("space {s}: a timeout fired or a NACK was acted on one cycle ago"),
    );
    f.assert(
        &format!("p_s{s}_goback"),
        &format!("space {s}: after a timeout or a NACK the sender resumes at una, the oldest unacknowledged PDU"),
        Some(all(vec![run, prev, went_back])),
        eq(d_snd, dec(16, 0)),
    );
}

/// The slot being read is held (see the module docs).
fn slots(f: &mut Formal, cx: &Ctx, reset: ResetStyle) {
    let (pw, sb, snb, pbw) = (cx.pw, cx.sb, cx.snb, cx.pbw);
    let run = running(reset);
    let reading = ne(id("rd_left_q"), dec(pbw, 0));
    let cur_slot = if sb == pw {
        id("cur_psn_q")
    } else {
        Expr::slice("cur_psn_q", sb - 1, 0)
    };
    for s in 0..cx.ns {
        let d = diff(
            f,
            &format!("f_s{s}_d_read"),
            pw,
            cx.psn_lo(&sp(s, "next")),
            id("cur_psn_q"),
            "next - the PSN being read",
        );
        f.assert(
            &format!("p_s{s}_read_held"),
            &format!("space {s}: the PDU being read is one of the WINDOW stored below next, in slot rd_slot_q"),
            Some(all(vec![run.clone(), reading.clone(), eq(id("rd_s_q"), dec(snb, s as u64))])),
            all(vec![ne(d.clone(), dec(pw, 0)), le(d, dec(pw, cx.p.window as u64)), eq(id("rd_slot_q"), cur_slot.clone())]),
        );
    }
    let next_slot = Expr::slice("next_cur", sb - 1, 0);
    f.assert(
        "p_tx_read_not_overwritten",
        "the store never writes the slot being read",
        Some(all(vec![
            run,
            reading,
            id("tx_we"),
            eq(id("s_cur"), id("rd_s_q")),
        ])),
        ne(next_slot, id("rd_slot_q")),
    );
}

/// The receive buffer and PDU queue of VC `vv`.
fn queues(f: &mut Formal, cx: &Ctx, reset: ResetStyle, vv: u32) {
    let (rpw, ubw, mdw, mcw) = (cx.rpw, cx.ubw, cx.mdw, cx.mcw);
    let n = |x: &str| id(&format!("v{vv}_{x}"));
    let run = running(reset);
    let rb = cx.p.rx_buf_bytes_per_vc / cx.db;
    let low = |name: &str, w: u32, keep: u32| {
        if w == keep {
            id(name)
        } else {
            Expr::slice(name, keep - 1, 0)
        }
    };
    let held = diff(
        f,
        &format!("f_v{vv}_ptrs"),
        rpw,
        n("wp"),
        n("rp"),
        "write pointer - read pointer",
    );
    let queued = diff(
        f,
        &format!("f_v{vv}_qptrs"),
        mdw,
        n("mt"),
        n("mh"),
        "queue tail - head",
    );
    f.assert(
        &format!("p_v{vv}_occupancy"),
        &format!(
            "VC {vv}: beats held <= the buffer's {rb} = wp - rp; PDUs queued <= {} = mt - mh",
            cx.md
        ),
        Some(run.clone()),
        all(vec![
            le(n("used"), dec(ubw, rb as u64)),
            eq(held, low(&format!("v{vv}_used"), ubw, rpw)),
            le(n("mc"), dec(mcw, cx.md as u64)),
            eq(queued, low(&format!("v{vv}_mc"), mcw, mdw)),
        ]),
    );
    let sum = add(
        zext(n("used"), ubw, ubw + 1),
        zext(id("acc_beats"), ubw, ubw + 1),
    );
    f.assert(
        &format!("p_v{vv}_no_overflow"),
        &format!("VC {vv}: an accepted PDU fits the buffer and the queue"),
        Some(and(run.clone(), n("acc"))),
        and(
            le(sum, dec(ubw + 1, rb as u64)),
            lt(n("mc"), dec(mcw, cx.md as u64)),
        ),
    );
    let no_read = Expr::or(n("rd").lnot(), ne(n("used"), dec(ubw, 0)));
    let no_pop = Expr::or(n("pop").lnot(), ne(n("mc"), dec(mcw, 0)));
    f.assert(
        &format!("p_v{vv}_no_underflow"),
        &format!("VC {vv}: no beat read from an empty buffer, no pop of an empty queue"),
        Some(run),
        and(no_read, no_pop),
    );
}

/// Legal values of the control registers (see the module docs).
fn encodings(f: &mut Formal, cx: &Ctx, reset: ResetStyle) {
    let (ns, pbw, olw, snb) = (cx.ns, cx.pbw, cx.olw, cx.snb);
    let run = running(reset);
    let pack_beats = cx.pb;
    f.assert(
        "p_ingest_legal",
        "ingest: its space one-hot or none; inside a PDU its beat index within the expected count; inside a PDU being stored a space named and at most PACK_BEATS expected",
        Some(run.clone()),
        all(vec![
            onehot0("in_s_q", ns),
            Expr::or(id("in_busy_q").lnot(), le(id("in_beat_q"), id("in_exp_q"))),
            Expr::or(
                all(vec![id("in_busy_q"), id("in_good_q")]).lnot(),
                and(ne(id("in_s_q"), dec(ns, 0)), le(id("in_exp_q"), dec(pbw, pack_beats as u64))),
            ),
        ]),
    );
    f.assert(
        "p_rx_space_onehot",
        "verdict: the space the RH named is one-hot or none",
        Some(run.clone()),
        onehot0("sr_sel_q", ns),
    );
    f.assert(
        "p_rx_frame_legal",
        "RX framing: the beat index saturates at PACK_BEATS + 1",
        Some(run.clone()),
        le(id("rx_beat_q"), dec(pbw, pack_beats as u64 + 1)),
    );
    let mut engine = vec![
        lt(id("rd_left_q"), dec(pbw, pack_beats as u64)),
        Expr::or(ne(id("rd_left_q"), dec(pbw, 0)).lnot(), id("tail_due_q")),
        Expr::or(
            id("tail_due_q").lnot(),
            and(id("out_valid_q"), id("out_tail_q").lnot()),
        ),
    ];
    if !ns.is_power_of_two() {
        engine.push(lt(id("rd_s_q"), dec(snb, ns as u64)));
    }
    f.assert(
        "p_tx_engine_legal",
        "TX engine: beats left to read below PACK_BEATS; while beats are left the tail is due; while the tail is due a payload beat is presented",
        Some(run.clone()),
        all(engine),
    );
    f.assert(
        "p_cmd_out_legal",
        "command output: beats left below cmd_beats; while beats are left a beat is presented and it is not the last",
        Some(run),
        and(
            le(id("o_left_q"), dec(olw, (cx.cbt - 1) as u64)),
            Expr::or(ne(id("o_left_q"), dec(olw, 0)).lnot(), and(id("o_valid_q"), id("o_last_q").lnot())),
        ),
    );
}
