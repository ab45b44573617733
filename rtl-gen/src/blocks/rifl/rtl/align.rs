//! `<p>_align`: one lane's Lane Aligner on its recovered clock (see `model::align`, the machine
//! it implements): the transceiver's `gt_bits`-wide words in, whole frames out, the frame
//! boundary found by the Syncword. Two mux levels: a log-depth shifter picks the aligned word
//! out of the word in and the one before it; the word phase collects R aligned words into the
//! frame (the RX width converter).

use super::Names;
use crate::blocks::rifl::model::params::Params;
use crate::hw::build::*;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};
use crate::info::DesignInfo;

pub fn module(p: &Params, gt_bits: u32, design: &DesignInfo, n: &Names) -> GeneratedModule {
    let (f, w, c) = (p.frame_bits, gt_bits, p.control_repeat);
    let r = f / w;
    let sw = clog2(w as u64);
    let pw = bits_for((r - 1) as u64);
    let cw = bits_for(c as u64);
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("gt_data", w, "the transceiver's word at this edge, bit 0 first on the wire"),
        Port::output("frame", f, "the last frame assembled (registered)"),
        Port::output("frame_valid", 1, &format!("frame is new this cycle: one cycle in {r}")),
        Port::output("aligned", 1, &format!("the boundary is locked ({c} legal SYNs in a row; registered)")),
    ]);
    let mut it: Vec<Item> = Vec::new();
    localparam(&mut it, "REPEAT", cw, c as u64, "legal SYNs in a row that lock; illegal SYNs while locked that unlock");
    localparam(&mut it, "LAST_WORD", pw, (r - 1) as u64, "word phase of a frame's last word");
    localparam(&mut it, "LAST_SHIFT", sw, (w - 1) as u64, "largest bit shift: one more slip drops a word");

    it.push(Item::comment("First mux level: the aligned word, window[shift+W-1:shift] of {gt_data, prev}, by a log-depth shifter."));
    reg(&mut it, "prev_q", w, "the word before gt_data");
    reg(&mut it, "shift_q", sw, "bit offset of the frame boundary within a word");
    // The top bit of gt_data never reaches the aligned word (the largest shift is W - 1).
    wire(&mut it, "window", 2 * w - 1, "{gt_data, prev}: the stream from prev's first bit", cat(vec![Expr::slice("gt_data", w - 2, 0), id("prev_q")]));
    let mut cur = "window".to_string();
    for s in (0..sw).rev() {
        let by = 1u32 << s;
        let out_w = w + by - 1;
        let next = if s == 0 { "aligned_word".to_string() } else { format!("win_{s}") };
        let doc = if s == 0 { "the next W bits of the stream from the boundary".to_string() } else { format!("shifted by shift_q[{}:{s}]", sw - 1) };
        wire(&mut it, &next, out_w, &doc, Expr::mux(Expr::bit("shift_q", s), Expr::slice(&cur, by + out_w - 1, by), Expr::slice(&cur, out_w - 1, 0)));
        cur = next;
    }

    it.push(Item::comment("Second mux level: R aligned words make a frame, word 0 lowest."));
    reg(&mut it, "phase_q", pw, "word phase of aligned_word in its frame");
    reg(&mut it, "skip_q", 1, "drop this word: the last slip wrapped the shift");
    reg(&mut it, "words_q", (r - 1) * w, "the frame's words so far, word k at [(k+1)W-1:kW]");
    reg(&mut it, "frame_q", f, "");
    reg(&mut it, "frame_valid_q", 1, "");
    wire(&mut it, "take", 1, "aligned_word belongs to a frame", id("skip_q").not());
    wire(&mut it, "complete", 1, "aligned_word is the frame's last", Expr::and(id("take"), eq(id("phase_q"), id("LAST_WORD"))));
    wire(&mut it, "frame_n", f, "the frame aligned_word completes", cat(vec![id("aligned_word"), id("words_q")]));
    let word_writes: Vec<Stmt> = (0..r - 1)
        .map(|k| Stmt::when(eq(id("phase_q"), dec(pw, k as u64)), vec![set(Expr::slice("words_q", (k + 1) * w - 1, k * w), id("aligned_word"))]))
        .collect();
    it.push(Item::AlwaysFf { reset: None, body: vec![Stmt::when(Expr::and(id("take"), id("complete").not()), word_writes), Stmt::when(id("complete"), vec![set_id("frame_q", id("frame_n"))])] });

    it.push(Item::comment("Alignment: the SYN of each frame; searching, an illegal one slips the boundary a bit later."));
    reg(&mut it, "locked_q", 1, "");
    reg(&mut it, "good_q", cw, "legal SYNs in a row (saturating at REPEAT)");
    reg(&mut it, "bad_q", cw, "illegal SYNs while locked since the last run of REPEAT legal ones");
    wire(&mut it, "legal", 1, "the completed frame's SYN is 01 or 10", Expr::xor(Expr::bit("frame_n", 0), Expr::bit("frame_n", 1)));
    wire(&mut it, "good_n", cw, "good_q counting this legal SYN", Expr::mux(eq(id("good_q"), id("REPEAT")), id("REPEAT"), add(id("good_q"), dec(cw, 1))));
    wire(&mut it, "unlock", 1, "this illegal SYN is the REPEAT-th while locked", Expr::and(id("locked_q"), eq(id("bad_q"), sub(id("REPEAT"), dec(cw, 1)))));
    wire(&mut it, "slip", 1, "move the boundary one bit later", all(vec![id("complete"), id("legal").not(), Expr::or(id("locked_q").not(), id("unlock"))]));
    let last = add(id("phase_q"), dec(pw, 1));
    it.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id("shift_q", dec(sw, 0)),
            set_id("phase_q", dec(pw, 0)),
            set_id("skip_q", Expr::zero()),
            set_id("frame_valid_q", Expr::zero()),
            set_id("locked_q", Expr::zero()),
            set_id("good_q", dec(cw, 0)),
            set_id("bad_q", dec(cw, 0)),
            set_id("prev_q", dec(w, 0)),
        ]),
        body: vec![
            set_id("prev_q", id("gt_data")),
            set_id("frame_valid_q", id("complete")),
            set_id("skip_q", Expr::and(id("slip"), eq(id("shift_q"), id("LAST_SHIFT")))),
            Stmt::when(id("take"), vec![set_id("phase_q", Expr::mux(id("complete"), dec(pw, 0), last))]),
            Stmt::when(id("slip"), vec![set_id("shift_q", add(id("shift_q"), dec(sw, 1)))]),
            Stmt::when(
                id("complete"),
                vec![if_else(
                    id("legal"),
                    vec![set_id("good_q", id("good_n")), when(eq(id("good_n"), id("REPEAT")), vec![set_id("locked_q", Expr::one()), set_id("bad_q", dec(cw, 0))])],
                    vec![
                        set_id("good_q", dec(cw, 0)),
                        when(id("locked_q"), vec![if_else(id("unlock"), vec![set_id("locked_q", Expr::zero()), set_id("bad_q", dec(cw, 0))], vec![set_id("bad_q", add(id("bad_q"), dec(cw, 1)))])]),
                    ],
                )],
            ),
        ],
    });
    it.push(Item::assign(id("frame"), id("frame_q")));
    it.push(Item::assign(id("frame_valid"), id("frame_valid_q")));
    it.push(Item::assign(id("aligned"), id("locked_q")));
    it.push(super::align_props::properties(design, f, w, c));
    GeneratedModule {
        module: Module { name: n.align.clone(), ports, items: it, reset: Some(design.reset) },
        latency: r,
        summary: format!("RIFL Lane Aligner: {w}-bit transceiver words to {f}-bit frames ({r} words each), the frame boundary found by the Syncword (lock after {c} legal SYNs, slip one bit per illegal SYN while searching)."),
        notes: vec![
            format!("Stream order: bit 0 of a word is the first on the wire, so frame bit 0 (the SYN's low bit) leaves first and word k of a frame carries frame[{w}k+{}:{w}k]. The aligned word is bits [shift+{}:shift] of the stream window {{gt_data, prev}}, taken through {sw} shifter stages (the largest shift first); R = {r} aligned words make a frame.", w - 1, w - 1),
            format!("Alignment: each frame's SYN is checked. Searching (aligned low, after reset), an illegal SYN (00 or 11) slips the boundary one bit later (shift_q + 1; past {} the shift wraps to 0 and the next word is dropped), so {f} slips visit every bit offset. {c} legal SYNs in a row lock (aligned). Locked, illegal SYNs are counted and a run of {c} legal ones clears the count; {c} illegal SYNs before such a run unlock, and the search resumes with a slip. A SYN bit error never costs the lock; a false lock on a payload look-alike is left after about {} frames.", w - 1, 2 * c),
            format!("Every assembled frame leaves on frame with frame_valid, locked or not: the receiver's out-of-sync rule decides what to take. Latency: frame_valid rises at the edge after the frame's last word was on gt_data; the first bit of a frame arrives at most {r} cycles (+ one word while a shift is being applied) before it leaves, all in the clock this module runs on (the lane's recovered clock rx_clk[j] in the node)."),
        ],
        role: Role::LaneAligner,
        origin: None,
    }
}
