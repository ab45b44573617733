//! Properties of one RIFL lane's transmitter, at its registers and the retransmission buffer's
//! port (`we`, `waddr`, `new_raw`, the read register `rbuf`), never at the storage, which the
//! elaboration moves into a RAM wrapper:
//!
//! - legal states: the Fig. 4 state is one of the six, Init exactly while the buffer fill runs
//!   (`init_cnt` stops at 2^n), no procedure before the fill ends, the procedure counter within
//!   its 2.5·2^n slots, its registered decisions (`rbusy`, `r_last`, `resend_slot`) equal to
//!   the compares they stand for;
//! - go-back-N window: a procedure that starts with `tx_id` = S (the oldest entry, whose ID a
//!   receiver in step expects next, so it holds a frame that receiver already took) resends
//!   S+1 .. S+2^n−1 oldest first: in every slot `tx_id` = S + 1 + (resends so far), a resend
//!   never sends entry S (`p_resend_window`: the resent IDs stay inside the window, the taken
//!   frame is never resent), the first resend is S+1 (the oldest frame the receiver may lack),
//!   and after the last slot `tx_id` is S again (`p_resume`: new frames continue with the next
//!   ID, none skipped or repeated);
//! - retransmission buffer data integrity, one tagged entry: a new frame is stored at the
//!   entry of its own ID with its raw region, and a resend of the tagged entry sends the data
//!   last stored there, with its ID, as a data frame;
//! - bounded liveness: in enabled slots with every RX flag low (`out_of_sync`, `pause_req`,
//!   `retrans_req`, `frame_error`: the fair inputs), the lane is back in Normal within
//!   RETRANS_LAST = 2.5·2^n − 1 slots (the longest run: a procedure resumed at its second
//!   slot; the buffer fill takes 2^n).

use crate::hw::build::{add, all, and, any, bits_for, dec, eq, id, le, lt, mux, ne, or};
use crate::hw::props::{in_reset, running, Formal};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::info::DesignInfo;

/// `ib`: frame ID bits; `rw`: procedure counter bits; `r`: raw region bits; `ids`: 2^n.
pub fn properties(design: &DesignInfo, ib: u32, rw: u32, r: u32, ids: u64) -> Item {
    let reset = design.reset;
    let mut f = Formal::clocked(reset);
    let run = running(reset);

    f.assert("p_state_legal", "the state is one of the six of Fig. 4", Some(run.clone()), le(id("st"), id("ST_NORMAL")));
    f.assert(
        "p_init_fill",
        "the buffer fill counter stops at 2^n; while it fills (Init) no procedure is under way and tx_id is 0",
        Some(run.clone()),
        and(
            or(Expr::bit("init_cnt", ib).not(), eq(Expr::slice("init_cnt", ib - 1, 0), dec(ib, 0))),
            or(Expr::bit("init_cnt", ib), and(eq(id("rcnt"), dec(rw, 0)), eq(id("tx_id"), dec(ib, 0)))),
        ),
    );
    f.assert("p_rcnt_range", "the procedure counter stays within its 2.5*2^n slots", Some(run.clone()), le(id("rcnt"), id("RETRANS_LAST")));
    f.assert(
        "p_rcnt_flags",
        "the counter's registered decisions match it: rbusy is rcnt != 0, r_last is rcnt == RETRANS_LAST, resend_slot is rcnt odd and below RESEND_END",
        Some(run.clone()),
        all(vec![
            eq(id("rbusy"), ne(id("rcnt"), dec(rw, 0))),
            eq(id("r_last"), eq(id("rcnt"), id("RETRANS_LAST"))),
            eq(id("resend_slot"), and(Expr::bit("rcnt", 0), lt(id("rcnt"), id("RESEND_END")))),
        ]),
    );

    // The procedure: S = tx_id at its first slot; tx_id = S + 1 + resends so far, where the
    // resends before slot k are floor(min(k, RESEND_END) / 2).
    f.items.push(Item::reg("f_start", ib, "tx_id at the first slot of the current procedure (the oldest entry, skipped)"));
    f.items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::when(id("retrans_start"), vec![Stmt::set(id("f_start"), id("tx_id"))])] });
    f.items.push(Item::wire("f_done", rw, "slots of the procedure that could resend, so far: min(rcnt, RESEND_END)"));
    f.items.push(Item::assign(id("f_done"), mux(lt(id("rcnt"), id("RESEND_END")), id("rcnt"), id("RESEND_END"))));
    f.items.push(Item::wire("f_proc_id", ib, "the entry the procedure is at: f_start + 1 + resends so far (mod 2^n)"));
    f.items.push(Item::assign(id("f_proc_id"), add(add(id("f_start"), dec(ib, 1)), Expr::slice("f_done", ib, 1))));
    let busy = and(run.clone(), id("rbusy"));
    f.assert("p_proc_id", "during a procedure tx_id is its first entry + 1 + the resends so far (oldest first, starting after the skipped entry)", Some(busy.clone()), eq(id("tx_id"), id("f_proc_id")));
    f.assert(
        "p_resend_window",
        "a resend sends an entry inside the window S+1 .. S+2^n-1, never S (the frame a receiver in step already took)",
        Some(and(busy, id("resend"))),
        ne(id("tx_id"), id("f_start")),
    );
    let ended = f.past("f_ended", 1, all(vec![id("en"), id("is_retr"), id("r_last")]), "the last slot of a procedure one cycle ago");
    let prev = f.prev_run(reset);
    f.assert("p_resume", "after a procedure's last slot tx_id is back at its first entry: no ID skipped or repeated", Some(all(vec![run.clone(), prev.clone(), ended])), eq(id("tx_id"), id("f_start")));

    // Data integrity of the retransmission buffer, one tagged entry.
    f.assert(
        "p_store",
        "a new frame (Normal) is stored at the entry of its own ID with the raw region stage 1 sends",
        Some(and(run.clone(), and(id("en"), id("is_norm")))),
        all(vec![id("we"), eq(id("waddr"), id("tx_id")), eq(id("new_raw"), id("s1_next"))]),
    );
    f.anyconst.push(("f_tag".into(), ib, "the tagged buffer entry".into()));
    f.items.push(Item::reg("f_tag_full", 1, "the tagged entry has been written since reset"));
    f.items.push(Item::reg("f_tag_data", r, "the data last written into the tagged entry"));
    let tag_write = and(id("we"), eq(id("waddr"), id("f_tag")));
    f.items.push(Item::AlwaysFf {
        reset: Some(vec![Stmt::set(id("f_tag_full"), Expr::zero())]),
        body: vec![Stmt::when(tag_write, vec![Stmt::set(id("f_tag_full"), Expr::one()), Stmt::set(id("f_tag_data"), id("new_raw"))])],
    });
    let resent = f.past(
        "f_tag_resent",
        1,
        all(vec![id("en"), id("resend"), eq(id("tx_id"), id("f_tag")), id("f_tag_full")]),
        "the tagged entry was resent one cycle ago",
    );
    f.assert(
        "p_resend_data",
        "a resend of the tagged entry sends the data last stored there, with its ID, as a data frame",
        Some(all(vec![run.clone(), prev, resent])),
        all(vec![eq(id("s1_raw"), id("f_tag_data")), eq(id("s1_id"), id("f_tag")), id("s1_ctrl").not()]),
    );

    // Bounded return to Normal under fair inputs.
    let bound = 5 * ids / 2 - 1;
    let qw = bits_for(bound + 1);
    f.items.push(Item::reg("f_quiet", qw, "enabled slots in a row outside Normal with every RX flag low (saturating)"));
    let flags = any(vec![id("out_of_sync"), id("pause_req"), id("retrans_req"), id("frame_error")]);
    f.items.push(Item::AlwaysFf {
        reset: None,
        body: vec![Stmt::If(
            any(vec![in_reset(reset), flags, id("is_norm")]),
            vec![Stmt::set(id("f_quiet"), dec(qw, 0))],
            vec![Stmt::when(and(id("en"), ne(id("f_quiet"), dec(qw, bound + 1))), vec![Stmt::set(id("f_quiet"), add(id("f_quiet"), dec(qw, 1)))])],
        )],
    });
    f.init.push(("f_quiet".into(), dec(qw, 0)));
    f.assert(
        "p_normal_bound",
        &format!("with every RX flag low, the lane is back in Normal within RETRANS_LAST = {bound} enabled slots"),
        Some(run),
        le(id("f_quiet"), dec(qw, bound)),
    );
    Item::Formal(f)
}
