//! Properties of the Lane Aligner (`<p>_align`), stated at its ports and its boundary register
//! where they can be, against shadow registers that record the stream and the frames as they
//! leave:
//!
//! - the frame stream: the first frame leaves R cycles after reset, then one every R cycles, or
//!   R + 1 when a slip past the last bit offset drops a word (`p_frame_due`, `p_frame_spacing`);
//! - the data: every frame is F consecutive bits of the transceiver stream, starting at the bit
//!   offset the boundary had when its last word came (`p_frame_stream`, one tagged bit of the
//!   frame against a shadow of the last R + 1 words: the standard argument for a wide datapath);
//! - the lock rule: `aligned` rises only with a frame whose SYN is legal, the REPEAT-th legal one
//!   in a row, and falls only with an illegal one, at least REPEAT frames after it rose; locked,
//!   the boundary never moves; searching, it moves only after an illegal SYN, one bit later
//!   (`p_lock_rise`, `p_unlock`, `p_locked_shift`, `p_slip`);
//! - the counters: `good_q` within 0..REPEAT, `bad_q` below REPEAT and 0 while searching, a
//!   dropped word only right after the slip that wrapped the offset to 0.

use crate::hw::build::{add, and, bits_for, cat, clog2, dec, eq, ge, id, le, lt, ne, or, sat_inc};
use crate::hw::props::{running, Formal};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::info::DesignInfo;

/// `f`: frame bits; `w`: transceiver word bits; `repeat`: the lock and unlock run length.
pub fn properties(design: &DesignInfo, f: u32, w: u32, repeat: u32) -> Item {
    let reset = design.reset;
    let r = f / w;
    let (sw, cw) = (clog2(w as u64), bits_for(repeat as u64));
    let mut fm = Formal::clocked(reset);
    let prev = fm.prev_run(reset);
    let run = and(running(reset), prev);
    let legal = Expr::xor(Expr::bit("frame", 0), Expr::bit("frame", 1));

    // The stream as it arrived: the last R + 1 words, the newest on top (zero in reset, as the
    // aligner's own word register).
    let hw = (r + 1) * w;
    fm.items.push(Item::reg("f_hist", hw, "the last R + 1 transceiver words, gt_data of the last edge on top"));
    fm.items.push(Item::AlwaysFf { reset: Some(vec![Stmt::set(id("f_hist"), dec(hw, 0))]), body: vec![Stmt::set(id("f_hist"), cat(vec![id("gt_data"), Expr::slice("f_hist", hw - 1, w)]))] });
    let shift_was = fm.past("f_shift_was", sw, id("shift_q"), "shift_q one cycle ago (when the frame leaving now completed)");
    let aligned_was = fm.past("f_aligned_was", 1, id("aligned"), "aligned one cycle ago");

    // Cycles since the last frame left (saturating one past the longest legal gap).
    let gw = bits_for((r + 1) as u64);
    fm.items.push(Item::reg("f_gap", gw, "cycles since the last frame_valid (saturating at R + 1)"));
    fm.items.push(Item::reg("f_seen", 1, "a frame has left since reset"));
    // Legal frames in a row before this one, and frames since the lock rose.
    fm.items.push(Item::reg("f_run", cw, "legal SYNs in a row among the frames that left (saturating at REPEAT)"));
    fm.items.push(Item::reg("f_lock_frames", cw, "frames that left while aligned, from the one that locked (saturating at REPEAT)"));
    fm.items.push(Item::AlwaysFf {
        reset: Some(vec![
            Stmt::set(id("f_gap"), dec(gw, 0)),
            Stmt::set(id("f_seen"), Expr::zero()),
            Stmt::set(id("f_run"), dec(cw, 0)),
            Stmt::set(id("f_lock_frames"), dec(cw, 0)),
        ]),
        body: vec![
            Stmt::If(id("frame_valid"), vec![Stmt::set(id("f_gap"), dec(gw, 0)), Stmt::set(id("f_seen"), Expr::one())], vec![sat_inc("f_gap", gw, dec(gw, (r + 1) as u64), None)]),
            Stmt::when(id("frame_valid"), vec![Stmt::If(legal.clone(), vec![sat_inc("f_run", cw, id("REPEAT"), None)], vec![Stmt::set(id("f_run"), dec(cw, 0))])]),
            Stmt::If(id("aligned"), vec![sat_inc("f_lock_frames", cw, id("REPEAT"), Some(id("frame_valid")))], vec![Stmt::set(id("f_lock_frames"), dec(cw, 0))]),
        ],
    });

    fm.assert("p_frame_due", "a frame leaves at most R + 1 cycles after the last (the first R cycles after reset)", Some(run.clone()), le(id("f_gap"), dec(gw, r as u64)));
    fm.assert("p_frame_spacing", "frames leave at least R cycles apart (one word each per cycle)", Some(and(run.clone(), and(id("frame_valid"), id("f_seen")))), ge(id("f_gap"), dec(gw, (r - 1) as u64)));

    // One tagged bit of the frame against the stream: frame bit i is stream bit shift + i, the
    // stream counted from the oldest word of the shadow.
    let bw = bits_for((f - 1) as u64);
    let pw = bits_for((hw - 1) as u64);
    fm.anyconst.push(("f_bit".into(), bw, "the tagged bit of the frame".into()));
    if !f.is_power_of_two() {
        fm.assume("a_bit_range", "the tagged bit is one of the frame's", None, lt(id("f_bit"), dec(bw, f as u64)));
    }
    fm.items.push(Item::wire("f_pos", pw, "the tagged bit's position in the shadowed stream"));
    let widen = |x: Expr, from: u32| if from < pw { cat(vec![dec(pw - from, 0), x]) } else { x };
    fm.items.push(Item::assign(id("f_pos"), add(widen(shift_was.clone(), sw), widen(id("f_bit"), bw))));
    fm.assert(
        "p_frame_stream",
        "every frame is F consecutive bits of the stream from the boundary its last word was aligned at",
        Some(and(run.clone(), id("frame_valid"))),
        eq(Expr::Index("frame".into(), Box::new(id("f_bit"))), Expr::Index("f_hist".into(), Box::new(id("f_pos")))),
    );

    fm.assert(
        "p_lock_rise",
        "aligned rises only with a legal SYN, the REPEAT-th in a row",
        Some(and(run.clone(), and(id("aligned"), aligned_was.clone().not()))),
        and(and(id("frame_valid"), legal.clone()), ge(id("f_run"), dec(cw, (repeat - 1) as u64))),
    );
    fm.assert(
        "p_unlock",
        "aligned falls only with an illegal SYN, at least REPEAT frames after it rose",
        Some(and(run.clone(), and(id("aligned").not(), aligned_was.clone()))),
        and(and(id("frame_valid"), legal.clone().not()), ge(id("f_lock_frames"), id("REPEAT"))),
    );
    fm.assert("p_locked_shift", "locked, the boundary never moves", Some(and(run.clone(), and(id("aligned"), aligned_was))), eq(id("shift_q"), shift_was.clone()));
    fm.assert(
        "p_slip",
        "searching, the boundary moves only after an illegal SYN, one bit later",
        Some(and(run.clone(), ne(id("shift_q"), shift_was.clone()))),
        and(and(id("frame_valid"), legal.not()), and(id("aligned").not(), eq(id("shift_q"), add(shift_was, dec(sw, 1))))),
    );

    fm.assert("p_good_range", "good_q counts at most REPEAT legal SYNs", Some(run.clone()), le(id("good_q"), id("REPEAT")));
    fm.assert("p_bad_range", "bad_q stays below REPEAT, and 0 while searching", Some(run.clone()), and(lt(id("bad_q"), id("REPEAT")), or(id("locked_q"), eq(id("bad_q"), dec(cw, 0)))));
    fm.assert("p_skip", "a word is dropped only right after the slip that wrapped the offset to 0, searching", Some(and(run, id("skip_q"))), and(and(id("frame_valid"), id("aligned").not()), eq(id("shift_q"), dec(sw, 0))));
    Item::Formal(fm)
}
