//! The saturating status counters and the port assignments.

use super::{counted, sp, Ctx};
use crate::blocks::sue_transport::model::COUNTER_NAMES;
use crate::hw::build::{add, all, any, cat, counter, dec, id, lt, mux, zext};
use crate::hw::verilog::{Expr, Item};

/// One saturating counter per event of the model's counter list.
pub(super) fn counters(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        ns,
        kb,
        p,
        ref cnt_max,
        ..
    } = cx;
    let mut regs = Vec::new();
    let mut c_reset = Vec::new();
    let mut c_body = Vec::new();
    let incs: [Expr; 24] = [
        any((0..ns)
            .map(|s| Expr::and(id(&sp(s, "dd")), id(&sp(s, "dnew"))))
            .collect()),
        any((0..ns)
            .map(|s| Expr::and(id(&sp(s, "dd")), id(&sp(s, "dnew")).not()))
            .collect()),
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
        id("rv_end_q"),
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
}

/// The ports: stream handshakes, the per-destination readiness and peer-down, the counters.
pub(super) fn outputs(cx: &Ctx, it: &mut Vec<Item>) {
    let &Ctx {
        x,
        kpp,
        db,
        kb,
        p,
        pw,
        ref window_e,
        ..
    } = cx;
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
                        pw,
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
        let value = if counted(p, n) {
            id(&format!("{n}_q"))
        } else {
            dec(kb, 0)
        };
        it.push(Item::assign(id(n), value));
    }
}
