//! TX engine: the presented beat is {slot beat low bytes, carry} (carry = RH, then the previous
//! slot beat's top 8 bytes); the tail beat is {R-CRC, carry}; the R-CRC register follows each
//! beat taken. The slot RAM is read into a register (`ram_q`) one beat ahead.

use super::crc::{last8_map, step_map};
use super::Ctx;
use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::build::{add, affine, all, cat, dec, id, mux, ne, set_id, sub, when, wire, zeros};
use crate::hw::verilog::{Expr, Item, Stmt};

/// The output register, the slot RAM read, the carry and the R-CRC; `dest_pick` is the
/// selection's destination.
pub(super) fn engine(cx: &Ctx, it: &mut Vec<Item>, dest_pick: Expr) {
    let &Ctx {
        ns,
        dw,
        db,
        sb,
        bb,
        snb,
        pbw,
        ref crc,
        ref init_e,
        ..
    } = cx;
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
        it,
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
        it,
        "fin_in",
        96,
        "{crc_q, carry_q}",
        cat(vec![id("crc_q"), id("carry_q")]),
    );
    affine(it, "crc_fin", "fin_in", &last8_map(&crc));
    it.push(Item::wire(
        "crc_nxt",
        32,
        "the R-CRC register after the presented payload beat",
    ));
    wire(
        it,
        "stp_in",
        dw + 32,
        "{crc_q, tx_mid}",
        cat(vec![id("crc_q"), id("tx_mid")]),
    );
    affine(it, "crc_nxt", "stp_in", &step_map(&crc, db as usize));
    let tail_pad = dw - 96;
    wire(
        it,
        "tx_tail",
        dw,
        "tail beat: carry, R-CRC LSB first, zeros",
        cat(vec![zeros(tail_pad), id("crc_fin"), id("carry_q")]),
    );
    wire(
        it,
        "adv",
        1,
        "the output register can take a beat",
        Expr::or(id("out_valid_q").not(), id("m_axis_tx_tready")),
    );
    wire(
        it,
        "issue_ram",
        1,
        "load the next slot beat",
        Expr::and(id("adv"), ne(id("rd_left_q"), dec(pbw, 0))),
    );
    wire(
        it,
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
        it,
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
        it,
        "decide_data",
        1,
        "",
        Expr::and(id("decide"), id("pick_data")),
    );
    wire(
        it,
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
        it,
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
            set_id("cur_psn_q", dec(cx.pw, 0)),
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
                                    set_id("cur_psn_q", cx.psn_lo("p_snd")),
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
}
