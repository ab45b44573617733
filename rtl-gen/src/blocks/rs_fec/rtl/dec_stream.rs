//! The streaming decoder `<prefix><name>_dec` (`symbols_per_cycle` = P < N), cycle for cycle
//! the model [`StreamDecoder`](super::model::stream::StreamDecoder):
//!
//! 1. **Input**: a beat is taken while a codeword slot is free (`in_tready`); it is written to
//!    the received-word RAM (`data_ram`, block-RAM inference pattern: one write port, a
//!    registered read with enable) at {slot, beat}, and the 2t syndromes advance by one
//!    P-parallel Horner step (one XOR network probed from the model).
//! 2. **Key equation**: the reformulated inversionless Berlekamp–Massey (RiBM, Sarwate and
//!    Shanbhag 2001) with 3t+1 identical processing elements, u iterations per clock for 2t/u
//!    clocks, in S solvers (one, or two taking codewords in turn when that lets u drop: KP4 at
//!    P = 32 runs one iteration per clock in each of two, where one solver would need two
//!    multiply-adds in a chain per clock), each free again before its next codeword's
//!    syndromes arrive ([`dec_ribm`]). RiBM because its iteration is one multiply-add deep
//!    whatever t (no discrepancy sum, no inversion) and it leaves the error evaluator in its
//!    registers, so Forney needs no second polynomial product.
//! 3. **Chien + Forney**, P lanes, one beat per clock: Λ_even(X⁻¹), Λ_odd(X⁻¹) and
//!    Ω^h(X⁻¹) by constant multipliers on registers that step by α^(kP) per beat (stage 1);
//!    the roots (Λ_even = Λ_odd) and the inverse of the odd part by a table (stage 2); the
//!    inverses registered out of the table (stage 3); the error values, to the error RAM
//!    (stage 4); then the beat's root and error-bit counts
//!    by pipelined popcount trees ([`count_stages`] stages), so every register stage stays
//!    within about six LUT levels.
//! 4. **Decision** after the last beat: correctable iff L ≤ t (RiBM's k ≥ 0), exactly L roots
//!    in existing positions (the last beat's count against a registered remainder) and no
//!    root with a zero derivative or value; the slot's flags are written at once, the
//!    counters and SER window two clocks later (increments registered, then the low sums and
//!    their carries), with saturation from a registered near-full flag.
//! 5. **Output**: the oldest decided slot is read beat by beat (read enable = the output
//!    register is free), XORed with its error values when it is corrected and correction is
//!    not bypassed.

use super::model::stream::{count_stages, DecTiming, StreamCode, COUNT_FANIN, COUNT_LEAF};
use super::dec_ribm;
use super::stream_common::{beat_ports, emit_linear, symbol, Linear};
use super::RsFecBlock;
use crate::blocks::rs_fec::Stream;
use crate::hw::build::{add, and, bit_of, bits_for, cat, clog2, dec, eq, gt, id, if_else, localparam, mux, ne, or, set, set_id, sub, when, wire, zeros, zext};
use crate::info::DesignInfo;
use crate::hw::gf_net::{emit_sum, Term};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{BinOp, Expr, Item, Module, Port, Stmt, UnOp};
use crate::hw::xor_net::XorStyle;
use crate::math::gf2m::Gf2m;

/// Σ of (value, width, largest value) as a balanced tree of additions, each as wide as its
/// largest sum needs (a popcount is the sum of its bits, each a 1-bit value of at most 1).
fn sum_tree(vals: &[(Expr, u32, u64)]) -> (Expr, u32, u64) {
    if vals.len() == 1 {
        return vals[0].clone();
    }
    let mid = vals.len() / 2;
    let ((a, aw, am), (b, bw, bm)) = (sum_tree(&vals[..mid]), sum_tree(&vals[mid..]));
    let ow = bits_for(am + bm);
    (add(zext(a, aw, ow), zext(b, bw, ow)), ow, am + bm)
}

/// The popcount of `input` (`width` bits) pipelined over `stages` register stages, numbered
/// from `first`: `s<first>_<name><g>` holds the sum of bits 16g..16g+15
/// ([`COUNT_LEAF`]), every later stage the sums of [`COUNT_FANIN`] registers of the stage
/// before, until one is left (then passed on). A 320-bit popcount in one stage maps to 11
/// LUT levels; a stage of this tree to about five. Returns the last register and its width;
/// `body` gets the assignments (every clock).
fn count_pipe(items: &mut Vec<Item>, body: &mut Vec<Stmt>, name: &str, input: &str, width: u32, first: u32, stages: u32) -> (String, u32) {
    let mut regs: Vec<(String, u32, u64)> = Vec::new();
    for s in 0..stages {
        let sums: Vec<(Expr, u32, u64)> = if s == 0 {
            (0..width)
                .step_by(COUNT_LEAF)
                .map(|lo| {
                    let hi = (lo + COUNT_LEAF as u32).min(width);
                    sum_tree(&(lo..hi).map(|b| (bit_of(input, width, b), 1, 1)).collect::<Vec<_>>())
                })
                .collect()
        } else {
            regs.chunks(COUNT_FANIN).map(|c| sum_tree(&c.iter().map(|(r, w, mx)| (id(r), *w, *mx)).collect::<Vec<_>>())).collect()
        };
        regs = sums
            .into_iter()
            .enumerate()
            .map(|(g, (e, w, mx))| {
                let r = format!("s{}_{name}{g}", first + s);
                items.push(Item::reg(&r, w, ""));
                body.push(set_id(&r, e));
                (r, w, mx)
            })
            .collect();
    }
    assert_eq!(regs.len(), 1, "count_stages sizes the tree");
    (regs[0].0.clone(), regs[0].1)
}

/// A saturating accumulate `x <= min(x + inc, MAX)` of a `cb`-bit counter by an `iw`-bit
/// value over two clocks, each a few LUT levels: on `upd` the low h = iw + 1 bits of the sum
/// and their carry are registered (`<x>_lo`, `<x>_c`), on `upd2` (the next clock) the upper
/// bits take the carry by an incrementer whose carries are AND reductions. The upper bits can
/// only overflow when they are all ones (an increment below 2^iw cannot cross from below
/// 2^cb − 2^h to past MAX), so the overflow is the registered near-full flag `<x>_nf` AND the
/// carry, never a 32-bit compare. Narrow counters register the sum and compare.
/// Returns (the `upd` statement, the `upd2` statement, the near-full flag's statement).
fn sat_add(items: &mut Vec<Item>, x: &str, cb: u32, inc: Expr, iw: u32) -> (Stmt, Stmt, Option<Stmt>) {
    let h = iw + 1;
    let max = (1u64 << cb) - 1;
    if h >= cb {
        let sw = cb.max(iw) + 1;
        let sum = format!("{x}_sum");
        items.push(Item::reg(&sum, sw, "the sum, registered the clock before it is saturated"));
        let first = set_id(&sum, add(zext(id(x), cb, sw), zext(inc, iw, sw)));
        return (first, set_id(x, mux(gt(id(&sum), dec(sw, max)), dec(cb, max), Expr::slice(&sum, cb - 1, 0))), None);
    }
    let (lo, c, nf) = (format!("{x}_lo"), format!("{x}_c"), format!("{x}_nf"));
    items.push(Item::reg(&nf, 1, &format!("{x}[{}:{h}] are all ones", cb - 1)));
    items.push(Item::reg(&lo, h, "low part of the sum"));
    items.push(Item::reg(&c, 1, "its carry into the upper bits"));
    let first = Stmt::Assign(cat(vec![id(&c), id(&lo)]), add(zext(Expr::slice(x, h - 1, 0), h, h + 1), zext(inc, iw, h + 1)));
    let cy = format!("{x}_cy");
    let carries = (h..cb).rev().map(|j| if j == h { id(&c) } else { and(id(&c), Expr::red(UnOp::RedAnd, Expr::slice(x, j - 1, h))) }).collect();
    wire(items, &cy, cb - h, "carry into each upper bit", cat(carries));
    let hi = Expr::xor(Expr::slice(x, cb - 1, h), id(&cy));
    let sum = cat(vec![hi, id(&lo)]);
    let ovf = and(id(&nf), id(&c));
    (first, set_id(x, or(sum, Expr::Repeat(cb, Box::new(ovf)))), Some(set_id(&nf, Expr::red(UnOp::RedAnd, Expr::slice(x, cb - 1, h)))))
}

fn lin(f: &Gf2m, x: &str, e: i64) -> Term {
    Term::scaled(f, x, f.alpha(e))
}

/// What every section of the decoder reads: the code, its timing and the widths derived from
/// them.
struct Dec<'a> {
    b: &'a RsFecBlock,
    st: Stream,
    code: StreamCode,
    tm: DecTiming,
    f: Gf2m,
    /// P, N, t.
    p: usize,
    n: usize,
    t: usize,
    /// Symbol bits m.
    m: u32,
    beats: usize,
    /// Padding lanes of the last beat.
    pad: usize,
    /// Beat-index, slot-index, beat-data, L and counter widths.
    bw: u32,
    slots: u64,
    sb: u32,
    dw: u32,
    /// 2t.
    nr: usize,
    /// RiBM's k register width.
    kw: u32,
    lw: u32,
    cb: u32,
    /// fcr + 2t: the exponent offset of Ω^h's coefficients.
    shift: i64,
    /// Symbols of the padded codeword, B·P.
    bp: i64,
}

impl<'a> Dec<'a> {
    fn new(b: &'a RsFecBlock) -> Self {
        let st = b.stream.expect("streaming block");
        let code = b.stream_code();
        let tm = DecTiming::new(&code);
        let f = code.field().clone();
        let (p, n, t) = (code.p, code.code.n(), code.t());
        let m = b.symbol_bits;
        let beats = code.beats();
        let pad = code.pad();
        let slots = tm.slots as u64;
        let nr = 2 * t;
        Dec {
            b,
            st,
            tm,
            f,
            p,
            n,
            t,
            m,
            beats,
            pad,
            bw: clog2(beats as u64),
            slots,
            sb: clog2(slots),
            dw: p as u32 * m,
            nr,
            kw: bits_for(2 * t as u64 + 1) + 1,
            lw: bits_for(t as u64),
            cb: st.counter_bits,
            shift: i64::from(b.fcr) + nr as i64,
            bp: (beats * p) as i64,
            code,
        }
    }
}

/// The SER window's limits as named values.
struct Ser {
    last: Expr,
    width: u32,
    threshold: Expr,
}

/// The Chien/Forney pipeline's outputs the decision reads.
struct Pipe {
    /// Register stage of the decision's inputs (`s<ls>_…`).
    ls: u32,
    /// The beat's root count and its width; the beat's error-bit count and its width.
    cnt_r: String,
    pw: u32,
    bits_r: String,
    beat_bits_w: u32,
}

/// The decision's counter statements: (low sums on `upd`, upper bits on `upd2`, near-full
/// flags) of the three saturating counters.
struct Counters {
    low: [Stmt; 3],
    high: [Stmt; 3],
    near_full: Vec<Stmt>,
}

pub fn module(b: &RsFecBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let d = Dec::new(b);
    let ports = ports(&d, design);
    let mut it = Vec::new();
    let items = &mut it;
    let last = localparam(items, "LAST_BEAT", d.bw, (d.beats - 1) as u64, "beat index of tlast");
    let slots_p = localparam(items, "SLOTS", bits_for(d.slots), d.slots, "codeword slots of the RAMs");
    let ser_last = localparam(items, "SER_LAST", bits_for(d.st.ser_window - 1), d.st.ser_window - 1, "last codeword of an SER window");
    let ser_w = bits_for(d.st.ser_window * d.t as u64 + d.t as u64);
    let ser_thr = localparam(items, "SER_THRESHOLD", ser_w.max(bits_for(d.st.ser_threshold)), d.st.ser_threshold, "degraded-SER threshold");
    let ser = Ser { last: ser_last, width: ser_w.max(bits_for(d.st.ser_threshold)), threshold: ser_thr };

    input(items, &d, &last, slots_p);
    dec_ribm::emit(items, &dec_ribm::Ribm { f: &d.f, t: d.t, kw: d.kw, tm: &d.tm, start: "bm_start", syndromes: "syn_next" });
    chien_registers(items, &d, &last);
    let pipe = chien_pipeline(items, &d, &last);
    let counters = decision(items, &d, &last, &ser, &pipe);
    output(items, &d, &last, &ser, &pipe, counters);
    items.push(super::stream_props::decoder(b, design.reset, d.lw));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: it, reset: Some(design.reset) },
        latency: d.tm.latency(),
        summary: format!(
            "Streaming Reed-Solomon decoder RS({},{}) over GF(2^{}), t = {}: {} symbols per beat, one codeword every {} clocks; P-parallel syndromes, {} RiBM key-equation solver(s) at {} iteration(s) per clock, P-parallel Chien/Forney, received words in block RAM; bypass controls, counters, degraded-SER alarm.",
            d.n,
            d.code.code.k(),
            d.m,
            d.t,
            d.p,
            d.beats,
            d.tm.solvers,
            d.tm.iters_per_clock
        ),
        notes: notes(&d),
        role: Role::FecDec,
        origin: None,
    }
}

fn ports(d: &Dec, design: &DesignInfo) -> Vec<Port> {
    let st = d.st;
    let mut ports = clock_ports(design);
    ports.extend(beat_ports(d.b, "received codeword"));
    ports.push(Port::input("bypass_correction", 1, "detect only: codewords pass uncorrected (flags and counters as usual); sampled at each codeword's decision"));
    ports.push(Port::input("bypass_indication", 1, "never flag a codeword uncorrectable on out_uncorrectable (the counters still count it)"));
    ports.push(Port::output("out_corrected", d.lw, "symbols corrected in this codeword, on its tlast beat (0 on other beats)"));
    ports.push(Port::output("out_uncorrectable", 1, "this codeword is uncorrectable (passed unchanged), on its tlast beat"));
    ports.push(Port::output("frame_error", 1, "pulse: an accepted beat's in_tlast disagreed with the beat count (the count wins)"));
    ports.push(Port::output("corrected_symbols", d.cb, "saturating count of corrected symbols"));
    ports.push(Port::output("corrected_bits", d.cb, "saturating count of corrected bits"));
    ports.push(Port::output("uncorrectable_codewords", d.cb, "saturating count of uncorrectable codewords"));
    ports.push(Port::output("ser_alarm", 1, &format!("degraded SER: more than {} corrected symbols in the last window of {} codewords", st.ser_threshold, st.ser_window)));
    ports
}

fn notes(d: &Dec) -> Vec<String> {
    let (beats, tm) = (d.beats, &d.tm);
    let mut notes = super::stream_common::beat_notes(d.b, &d.code);
    notes.push(format!(
        "Latency {} clocks from the edge taking a codeword's first beat (back to back) to its first corrected beat on the output: {beats} beats in, RiBM {} clocks ({} iteration(s) per clock, {} solver(s) on alternate codewords), {beats} beats through the {}-stage Chien/Forney pipeline and the decision, the RAM read. Intel's bound N/P + 2t + 10 = {}.",
        tm.latency(),
        tm.bm_clocks,
        tm.iters_per_clock,
        tm.solvers,
        tm.chien_stages,
        beats + d.nr + 10
    ));
    notes.push(format!("Slots: {} codewords in the received-word and error RAMs ({} × {} bits each); in_tready falls only when the output is held back long enough to fill them.", d.slots, d.slots << d.bw, d.dw));
    notes.push("Per codeword on its tlast beat: out_corrected (symbols corrected, 0 when uncorrectable) and out_uncorrectable. Counters saturate; they and the SER window take a decision two clocks after it (the increments registered, then the low sums with their carries, out of the decision's path), and ser_alarm is re-evaluated at the end of every window.".into());
    notes
}

/// `count` symbol wires `<prefix><i>` of the packed vector `vec`.
fn sym_wires(items: &mut Vec<Item>, m: u32, vec: &str, prefix: &str, count: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            let w = format!("{prefix}{i}");
            wire(items, &w, m, "", symbol(vec, m, i));
            w
        })
        .collect()
}

/// The wires packed with the first one in the low bits.
fn rev(v: &[String]) -> Expr {
    cat(v.iter().rev().map(|s| id(s)).collect())
}

impl Dec<'_> {
    /// Width of the remaining-roots register `rem` (two's complement over N).
    fn rem_width(&self) -> u32 {
        bits_for(self.n as u64) + 1
    }

    /// Width of a codeword's error-bit count (at most t·m).
    fn bits_width(&self) -> u32 {
        bits_for((self.t as u64) * u64::from(self.m))
    }
}

/// Register `r` of pipeline stage `s` (`s<s>_<r>`).
fn stage(s: u32, r: &str) -> String {
    format!("s{s}_{r}")
}

/// Input: slots, beat count, masked beat, received-word RAM, syndromes.
fn input(items: &mut Vec<Item>, d: &Dec, last: &Expr, slots_p: Expr) {
    let (p, m, bw, sb, dw, nr, pad) = (d.p, d.m, d.bw, d.sb, d.dw, d.nr, d.pad);
    let uw = bits_for(d.slots);
    items.push(Item::comment("Input: slots, beat count, masked beat, received-word RAM, syndromes."));
    for (r, w, doc) in [("used", uw, "slots received and not yet sent"), ("tail", sb, "slot being received"), ("head", sb, "slot being sent"), ("in_beat", bw, "beat of the codeword being received"), ("frame_error_r", 1, "")] {
        items.push(Item::reg(r, w, doc));
    }
    wire(items, "in_ready", 1, "a slot is free", ne(id("used"), slots_p));
    wire(items, "accept", 1, "", and(id("in_tvalid"), id("in_ready")));
    wire(items, "in_last", 1, "", eq(id("in_beat"), last.clone()));
    let masked = if pad == 0 {
        id("in_tdata")
    } else {
        mux(id("in_last"), cat(vec![zeros(pad as u32 * m), Expr::slice("in_tdata", (p - pad) as u32 * m - 1, 0)]), id("in_tdata"))
    };
    wire(items, "in_beat_data", dw, "the beat, padding lanes zeroed", masked);
    items.push(Item::Memory { name: "data_ram".into(), width: dw, depth: (d.slots as u32) << bw, doc: "received beats by {slot, beat}".into() });
    items.push(Item::reg("acc", nr as u32 * m, "syndrome accumulators S_0..S_2t-1"));
    wire(items, "syn_in", (nr + p) as u32 * m, "{running syndromes (zero on beat 0), beat}", cat(vec![mux(eq(id("in_beat"), dec(bw, 0)), zeros(nr as u32 * m), id("acc")), id("in_beat_data")]));
    // The syndromes of one beat are one network of 2t·m outputs over (P + 2t)·m columns with
    // XOR nodes shared between the syndromes (KP4: 5.5 k fewer ECP5 LUT4 than masked parities).
    let c = d.code.clone();
    emit_linear(items, m, &Linear { out: "syn_next", doc: "S_j after this beat", input: "syn_in", ins: p + nr, outs: nr, style: XorStyle::SHARED }, move |x| c.syndrome_step(&x[p..], &x[..p]));
    wire(items, "bm_start", 1, "the last beat is in: the syndromes are complete", and(id("accept"), id("in_last")));
}

/// Chien search and Forney's registers: Λ and Ω^h loaded from the solver's key, then stepped by
/// α^(kP) per beat.
fn chien_registers(items: &mut Vec<Item>, d: &Dec, last: &Expr) {
    let (p, t, m, bw, kw, lw, shift, bp, f) = (d.p, d.t, d.m, d.bw, d.kw, d.lw, d.shift, d.bp, &d.f);
    items.push(Item::comment("Chien search and Forney, P lanes: Λ_k·α^(−k·d'), Ω^h_k·α^(−(k+fcr+2t)·d') for the beat's first degree d'."));
    for (r, w, doc) in [
        ("ch_lam", (t as u32 + 1) * m, "Λ_k·α^(−k·d'0) for the beat in the Chien search"),
        ("ch_om", t as u32 * m, "Ω^h_k·α^(−(k+fcr+2t)·d'0)"),
        ("ch_busy", 1, ""),
        ("ch_beat", bw, ""),
        ("ch_len", lw, "L"),
        ("ch_ok", 1, "L ≤ t"),
    ] {
        items.push(Item::reg(r, w, doc));
    }
    let bm_d_sym = sym_wires(items, m, "bm_key", "key_", 2 * t + 1);
    let t_p = localparam(items, "T", lw, t as u64, "t");
    wire(items, "key_len", lw, "L = t − k/2 (k = 2t − 2L is even when L ≤ t)", Expr::bin(BinOp::Sub, t_p, Expr::slice("bm_khalf", lw - 1, 0)));
    let lam: Vec<String> = sym_wires(items, m, "ch_lam", "lam_", t + 1);
    let om: Vec<String> = sym_wires(items, m, "ch_om", "om_", t);
    let mut lam_load = Vec::new();
    let mut lam_step = Vec::new();
    for kk in 0..=t {
        let (lo, stp) = (format!("lam_load{kk}"), format!("lam_step{kk}"));
        items.push(Item::wire(&lo, m, ""));
        emit_sum(items, f, &lo, &[lin(f, &bm_d_sym[t + kk], -(kk as i64) * (bp - 1))], &lo);
        items.push(Item::wire(&stp, m, ""));
        emit_sum(items, f, &stp, &[lin(f, &lam[kk], kk as i64 * p as i64)], &stp);
        lam_load.push(lo);
        lam_step.push(stp);
    }
    let mut om_load = Vec::new();
    let mut om_step = Vec::new();
    for kk in 0..t {
        let e = kk as i64 + shift;
        let (lo, stp) = (format!("om_load{kk}"), format!("om_step{kk}"));
        items.push(Item::wire(&lo, m, ""));
        emit_sum(items, f, &lo, &[lin(f, &bm_d_sym[kk], -e * (bp - 1))], &lo);
        items.push(Item::wire(&stp, m, ""));
        emit_sum(items, f, &stp, &[lin(f, &om[kk], e * p as i64)], &stp);
        om_load.push(lo);
        om_step.push(stp);
    }
    items.push(Item::AlwaysFf {
        reset: Some(vec![set_id("ch_busy", dec(1, 0)), set_id("ch_beat", dec(bw, 0))]),
        body: vec![if_else(
            id("bm_done"),
            vec![set_id("ch_busy", dec(1, 1)), set_id("ch_beat", dec(bw, 0))],
            vec![when(id("ch_busy"), vec![set_id("ch_beat", add(id("ch_beat"), dec(bw, 1))), when(eq(id("ch_beat"), last.clone()), vec![set_id("ch_busy", dec(1, 0))])])],
        )],
    });
    items.push(Item::AlwaysFf {
        reset: None,
        body: vec![if_else(
            id("bm_done"),
            vec![
                set_id("ch_lam", rev(&lam_load)),
                set_id("ch_om", rev(&om_load)),
                set_id("ch_len", id("key_len")),
                set_id("ch_ok", Expr::bit("bm_khalf", kw - 2).not()),
            ],
            vec![when(id("ch_busy"), vec![set_id("ch_lam", rev(&lam_step)), set_id("ch_om", rev(&om_step))])],
        )],
    });
}

/// The Chien/Forney pipeline, one beat per clock: the evaluations (stage 1), roots and
/// inverses (2), the inverses registered (3), the error values (4), then the beat's root and
/// error-bit counts by pipelined trees.
fn chien_pipeline(items: &mut Vec<Item>, d: &Dec, last: &Expr) -> Pipe {
    let (p, t, m, bw, dw, lw, pad, shift, f) = (d.p, d.t, d.m, d.bw, d.dw, d.lw, d.pad, d.shift, &d.f);
    // Stage 1: evaluations per lane. Λ_even and Λ_odd are registered and compared in stage 2:
    // the compare and its zero test after the sums of t+1 products took 7–9 LUT levels. Each
    // evaluation is one linear map of all lanes, written as masked parities: shared XOR nodes
    // saved nothing here (KP4 decoder: 63,678 against 63,729 ECP5 LUT4) for 1.48 MB of
    // Verilog against 1.00 MB, unlike the syndromes above.
    // Lane i of an evaluation: Σ c_k·α^((k + offset)·i) over the coefficients k of the parity.
    let eval = |parity: Option<usize>, coef: &[u16], offset: i64| -> Vec<u16> {
        (0..p)
            .map(|i| {
                let terms = coef.iter().enumerate().filter(|(kk, _)| parity.is_none_or(|q| kk % 2 == q));
                terms.fold(0, |s, (kk, &c)| s ^ f.mul(c, f.alpha((kk as i64 + offset) * i as i64)))
            })
            .collect()
    };
    emit_linear(items, m, &Linear { out: "ch_even", doc: "Λ_even(X⁻¹) per lane", input: "ch_lam", ins: t + 1, outs: p, style: XorStyle::Masked }, |lam| eval(Some(0), lam, 0));
    emit_linear(items, m, &Linear { out: "ch_odd", doc: "Λ_odd(X⁻¹) per lane", input: "ch_lam", ins: t + 1, outs: p, style: XorStyle::Masked }, |lam| eval(Some(1), lam, 0));
    emit_linear(items, m, &Linear { out: "ch_num", doc: "X^(−fcr−2t)·Ω^h(X⁻¹) per lane", input: "ch_om", ins: t, outs: p, style: XorStyle::Masked }, |om| eval(None, om, shift));
    let cs = count_stages(dw as usize);
    let ls = 4 + cs;
    let stage_regs: [(&str, u32); 4] = [("valid", 1), ("beat", bw), ("len", lw), ("ok", 1)];
    let beat_bits_w = bits_for(u64::from(dw));
    for s in 1..=ls {
        for (r, w) in stage_regs {
            items.push(Item::reg(&format!("s{s}_{r}"), w, ""));
        }
    }
    for (r, w) in [("s1_even", dw), ("s1_odd", dw), ("s1_num", dw), ("s2_root", p as u32), ("s2_num", dw), ("s2_inv", dw), ("s2_bad", p as u32), ("s3_root", p as u32), ("s3_num", dw), ("s3_inv", dw), ("s3_bad", 1), ("s4_root", p as u32), ("s4_err", dw)] {
        items.push(Item::reg(r, w, ""));
    }
    for s in 4..=ls {
        items.push(Item::reg(&format!("s{s}_bad"), 1, ""));
    }
    // Stage 2: roots, inverses by table. Bit j of a⁻¹ is a function of m ≤ 12 inputs that
    // maps to three LUT6 levels (a 64-entry leaf per 6 low bits, then a 4:1 and a 4:1 or 8:1
    // mux), where Itoh–Tsujii's chain of variable products took 14–17. The table is one
    // function read by every lane: a case table is what synthesis turns into a ROM cheaply
    // (Yosys 0.23, one GF(2^10) lane: 0.8 s and 24 MB, against 29 s and 298 MB for the same
    // table indexed as 1024-bit constants). A root's value is zero iff its numerator or
    // Λ_odd is (the product of nonzero field elements is not), so the "bad root" flag comes
    // from stage 1 without waiting for the product.
    let arms = (1..(1u32 << m)).map(|a| (vec![dec(m, u64::from(a))], vec![set_id("gf_inv", dec(m, u64::from(f.inv(a as u16))))])).collect();
    items.push(Item::Function {
        name: "gf_inv".into(),
        width: m,
        arg: "a".into(),
        arg_width: m,
        doc: format!("a⁻¹ in GF(2^{m}) (0⁻¹ = 0): the Forney inverse of Λ_odd, one table for all {p} lanes."),
        body: vec![Stmt::Case(id("a"), arms, vec![set_id("gf_inv", dec(m, 0))])],
    });
    let mut invs = Vec::new();
    let mut bads = Vec::new();
    let mut roots = Vec::new();
    for i in 0..p {
        let (a, nu, ev, rt) = (format!("s1_odd{i}"), format!("s1_num{i}"), format!("s1_even{i}"), format!("root{i}"));
        wire(items, &a, m, "", symbol("s1_odd", m, i));
        wire(items, &nu, m, "", symbol("s1_num", m, i));
        wire(items, &ev, m, "", symbol("s1_even", m, i));
        let exists = if i >= p - pad { and(eq(id(&ev), id(&a)), ne(id("s1_beat"), last.clone())) } else { eq(id(&ev), id(&a)) };
        wire(items, &rt, 1, "Λ(X⁻¹) = 0 at an existing position", exists);
        let o = format!("inv{i}");
        wire(items, &o, m, "Λ_odd⁻¹", Expr::Call("gf_inv".into(), vec![id(&a)]));
        invs.push(id(&o));
        bads.push(and(id(&rt), or(Expr::red(UnOp::RedNor, id(&a)), Expr::red(UnOp::RedNor, id(&nu)))));
        roots.push(id(&rt));
    }
    invs.reverse();
    bads.reverse();
    roots.reverse();
    // Stage 3: the inverses registered again as they leave the table. In block RAM the
    // table's read is its address register, and the data arrive 5.6 ns after the edge
    // (DP16KD on an LFE5U-85F); a Forney product behind them was the KR4 decoder's critical
    // path (77.3 MHz).
    // Stage 4: values.
    let mut errs = Vec::new();
    for i in 0..p {
        let (nu, iv, v) = (format!("s3_num{i}"), format!("s3_inv{i}"), format!("val{i}"));
        wire(items, &nu, m, "", symbol("s3_num", m, i));
        wire(items, &iv, m, "", symbol("s3_inv", m, i));
        items.push(Item::wire(&v, m, "Forney value"));
        emit_sum(items, &f, &v, &[Term::Prod(nu, iv)], &v);
        errs.push(and(id(&v), Expr::Repeat(m, Box::new(bit_of("s3_root", p as u32, i as u32)))));
    }
    errs.reverse();
    let mut stage_body = Vec::new();
    for s in 1..=ls {
        let src = |r: &str| if s == 1 { if r == "valid" { "ch_busy".to_string() } else { format!("ch_{r}") } } else { format!("s{}_{r}", s - 1) };
        for (r, _) in stage_regs {
            stage_body.push(set_id(&format!("s{s}_{r}"), id(&src(r))));
        }
    }
    stage_body.extend([
        set_id("s1_even", id("ch_even")),
        set_id("s1_odd", id("ch_odd")),
        set_id("s1_num", id("ch_num")),
        set_id("s2_root", cat(roots)),
        set_id("s2_num", id("s1_num")),
        set_id("s2_inv", cat(invs)),
        set_id("s2_bad", cat(bads)),
        set_id("s3_root", id("s2_root")),
        set_id("s3_num", id("s2_num")),
        set_id("s3_inv", id("s2_inv")),
        set_id("s3_bad", Expr::red(UnOp::RedOr, id("s2_bad"))),
        set_id("s4_root", id("s3_root")),
        set_id("s4_err", cat(errs)),
    ]);
    for s in 4..=ls {
        stage_body.push(set_id(&format!("s{s}_bad"), id(&format!("s{}_bad", s - 1))));
    }
    // Stages 5..: the beat's roots and error bits counted by pipelined trees.
    let (cnt_r, pw) = count_pipe(items, &mut stage_body, "cnt", "s4_root", p as u32, 5, cs);
    let (bits_r, bits_rw) = count_pipe(items, &mut stage_body, "bits", "s4_err", dw, 5, cs);
    debug_assert_eq!(bits_rw, beat_bits_w);
    let (valid_regs, data_body): (Vec<Stmt>, Vec<Stmt>) = stage_body.into_iter().partition(|s| matches!(s, Stmt::Assign(Expr::Ident(n), _) if n.ends_with("_valid")));
    items.push(Item::AlwaysFf { reset: Some((1..=ls).map(|s| set_id(&format!("s{s}_valid"), dec(1, 0))).collect()), body: valid_regs });
    items.push(Item::AlwaysFf { reset: None, body: data_body });
    Pipe { ls, cnt_r, pw, bits_r, beat_bits_w }
}

/// The decision after a codeword's last beat: roots still expected, bits and bad roots
/// accumulated over the beats; the per-slot flag RAMs; the counters' and SER window's
/// registers.
fn decision(items: &mut Vec<Item>, d: &Dec, last: &Expr, ser: &Ser, pipe: &Pipe) -> Counters {
    let (m, n, bw, sb, dw, lw, cb, slots, st) = (d.m, d.n, d.bw, d.sb, d.dw, d.lw, d.cb, d.slots, d.st);
    let Pipe { ls, cnt_r, pw, bits_r, beat_bits_w } = pipe;
    let (ls, pw, beat_bits_w, ser_w) = (*ls, *pw, *beat_bits_w, ser.width);
    items.push(Item::comment("Decision: roots still expected, bits and bad roots accumulated over the beats; flags per slot; counters; SER window."));
    let (rw, bits_w) = (d.rem_width(), d.bits_width());
    let abw = beat_bits_w.max(bits_for((n as u64) * u64::from(m)));
    for (r, w, doc) in [("rem", rw, "L minus the roots of the earlier beats (two's complement)"), ("acc_bits", abw, ""), ("acc_bad", 1, "")] {
        items.push(Item::reg(r, w, doc));
    }
    wire(items, "first_beat", 1, "", eq(id(&stage(ls, "beat")), dec(bw, 0)));
    wire(items, "rem_now", rw, "roots expected from this beat on", mux(id("first_beat"), zext(id(&stage(ls, "len")), lw, rw), id("rem")));
    wire(items, "tot_bits", abw, "", add(mux(id("first_beat"), dec(abw, 0), id("acc_bits")), zext(id(&bits_r), beat_bits_w, abw)));
    wire(items, "tot_bad", 1, "", or(and(id("first_beat").lnot(), id("acc_bad")), id(&stage(ls, "bad"))));
    wire(items, "decide", 1, "the codeword's last beat leaves the Chien pipeline", and(id(&stage(ls, "valid")), eq(id(&stage(ls, "beat")), last.clone())));
    // P < N, so the last beat is never the first: the compare reads the register `rem`, not
    // the adder; and a correctable word has exactly L roots, so it corrects L symbols.
    wire(items, "correctable", 1, "L ≤ t, no bad root, exactly L roots", and(and(id(&stage(ls, "ok")), id("tot_bad").lnot()), eq(zext(id(&cnt_r), pw, rw), id("rem"))));
    wire(items, "cnt_add", lw, "symbols corrected in the decided codeword", mux(id("correctable"), id(&stage(ls, "len")), dec(lw, 0)));
    items.push(Item::Memory { name: "err_ram".into(), width: dw, depth: (slots as u32) << bw, doc: "error values by {slot, beat}".into() });
    items.push(Item::Memory { name: "st_count".into(), width: lw, depth: slots as u32, doc: "corrected symbols per slot".into() });
    for (r, w, doc) in [
        ("dec_slot", sb, "slot of the codeword being decided"),
        ("err_slot", sb, "slot whose error values stage 4 writes (ahead of dec_slot)"),
        ("st_done", slots as u32, "slot decided"),
        ("st_apply", slots as u32, "slot's corrections are applied"),
        ("st_unc", slots as u32, "slot flagged uncorrectable"),
        ("corrected_symbols_r", cb, ""),
        ("corrected_bits_r", cb, ""),
        ("uncorrectable_r", cb, ""),
        ("ser_cnt", ser_w, "corrected symbols in the current window"),
        ("ser_cw", bits_for(st.ser_window - 1), "codewords in the current window"),
        ("ser_alarm_r", 1, ""),
        ("upd", 1, "a decision was taken on the previous clock: the low sums take it"),
        ("upd2", 1, "the counters take the decision of two clocks ago"),
        ("upd_sym", lw, "its corrected symbols"),
        ("upd_bits", bits_w, "its error bits (counted only when upd_ok)"),
        ("upd_ok", 1, "it was correctable"),
        ("upd_unc", 1, "it was uncorrectable"),
        ("ser_total", ser_w, "the window's count with the decision"),
        ("ser_end", 1, "the decision ends the window"),
    ] {
        items.push(Item::reg(r, w, doc));
    }
    let (l_sym, s_sym, nf_sym) = sat_add(items, "corrected_symbols_r", cb, id("upd_sym"), lw);
    let (l_bits, s_bits, nf_bits) = sat_add(items, "corrected_bits_r", cb, and(id("upd_bits"), Expr::Repeat(bits_w, Box::new(id("upd_ok")))), bits_w);
    let (l_unc, s_unc, nf_unc) = sat_add(items, "uncorrectable_r", cb, id("upd_unc"), 1);
    let near_full: Vec<Stmt> = [nf_sym, nf_bits, nf_unc].into_iter().flatten().collect();
    Counters { low: [l_sym, l_bits, l_unc], high: [s_sym, s_bits, s_unc], near_full }
}

/// The slots' bookkeeping and the output: the oldest decided slot read beat by beat, XORed
/// with its error values when corrected; the registers of every section's counters.
fn output(items: &mut Vec<Item>, d: &Dec, last: &Expr, ser: &Ser, pipe: &Pipe, counters: Counters) {
    let (bw, sb, dw, lw, cb, slots) = (d.bw, d.sb, d.dw, d.lw, d.cb, d.slots);
    let (uw, aw, rw, bits_w) = (bits_for(slots), sb + bw, d.rem_width(), d.bits_width());
    let (ls, pw, cnt_r) = (pipe.ls, pipe.pw, &pipe.cnt_r);
    let (ser_w, sw_) = (ser.width, bits_for(d.st.ser_window - 1));
    let Counters { low: [l_sym, l_bits, l_unc], high: [s_sym, s_bits, s_unc], near_full } = counters;
    for (r, w) in [("out_beat", bw), ("out_tvalid_r", 1), ("out_tlast_r", 1), ("apply_r", 1), ("out_unc_r", 1), ("out_cnt_r", lw), ("rd_data", dw), ("rd_err", dw)] {
        items.push(Item::reg(r, w, ""));
    }
    wire(items, "fire", 1, "the output register takes a beat (or empties)", or(id("out_tvalid_r").lnot(), id("out_tready")));
    wire(items, "have", 1, "the head slot is decided", Expr::Index("st_done".into(), Box::new(id("head"))));
    wire(items, "rd", 1, "read a beat of the head slot", and(id("fire"), id("have")));
    wire(items, "out_last", 1, "", eq(id("out_beat"), last.clone()));
    wire(items, "rd_addr", aw, "", cat(vec![id("head"), id("out_beat")]));
    wire(items, "wr_addr", aw, "", cat(vec![id("tail"), id("in_beat")]));
    wire(items, "err_addr", aw, "", cat(vec![id("err_slot"), id("s4_beat")]));
    let idx = |v: &str, i: &str| Expr::Index(v.into(), Box::new(id(i)));
    let inc_w = |r: &str, w: u32| set_id(r, add(id(r), dec(w, 1)));
    wire(items, "used_inc", 1, "", id("bm_start"));
    wire(items, "used_dec", 1, "", and(id("rd"), id("out_last")));
    items.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id("used", dec(uw, 0)),
            set_id("tail", dec(sb, 0)),
            set_id("head", dec(sb, 0)),
            set_id("in_beat", dec(bw, 0)),
            set_id("frame_error_r", dec(1, 0)),
            set_id("dec_slot", dec(sb, 0)),
            set_id("err_slot", dec(sb, 0)),
            set_id("st_done", dec(slots as u32, 0)),
            set_id("out_beat", dec(bw, 0)),
            set_id("out_tvalid_r", dec(1, 0)),
            set_id("corrected_symbols_r", dec(cb, 0)),
            set_id("corrected_bits_r", dec(cb, 0)),
            set_id("uncorrectable_r", dec(cb, 0)),
            set_id("ser_cnt", dec(ser_w, 0)),
            set_id("ser_cw", dec(sw_, 0)),
            set_id("ser_alarm_r", dec(1, 0)),
            set_id("upd", dec(1, 0)),
            set_id("upd2", dec(1, 0)),
        ]
        .into_iter()
        .chain(near_full.iter().map(|s| match s {
            Stmt::Assign(l, _) => Stmt::Assign(l.clone(), dec(1, 0)),
            other => other.clone(),
        }))
        .collect()),
        body: vec![
            set_id("frame_error_r", and(id("accept"), ne(id("in_tlast"), id("in_last")))),
            when(and(id("s4_valid"), eq(id("s4_beat"), last.clone())), vec![inc_w("err_slot", sb)]),
            when(id("accept"), vec![if_else(id("in_last"), vec![set_id("in_beat", dec(bw, 0)), inc_w("tail", sb)], vec![inc_w("in_beat", bw)])]),
            if_else(
                and(id("used_inc"), id("used_dec").lnot()),
                vec![inc_w("used", uw)],
                vec![when(and(id("used_dec"), id("used_inc").lnot()), vec![set_id("used", Expr::bin(BinOp::Sub, id("used"), dec(uw, 1)))])],
            ),
            when(id("fire"), vec![set_id("out_tvalid_r", id("have"))]),
            when(
                id("rd"),
                vec![if_else(
                    id("out_last"),
                    vec![set_id("out_beat", dec(bw, 0)), inc_w("head", sb), set(idx("st_done", "head"), dec(1, 0))],
                    vec![inc_w("out_beat", bw)],
                )],
            ),
            when(
                id("decide"),
                vec![set(idx("st_done", "dec_slot"), dec(1, 1)), inc_w("dec_slot", sb)],
            ),
            set_id("upd", id("decide")),
            set_id("upd2", id("upd")),
            when(
                id("upd2"),
                vec![
                    s_sym,
                    s_bits,
                    s_unc,
                    if_else(
                        id("ser_end"),
                        vec![set_id("ser_alarm_r", gt(id("ser_total"), ser.threshold.clone())), set_id("ser_cnt", dec(ser_w, 0)), set_id("ser_cw", dec(sw_, 0))],
                        vec![set_id("ser_cnt", id("ser_total")), inc_w("ser_cw", sw_)],
                    ),
                ],
            ),
        ]
        .into_iter()
        .chain(near_full.iter().cloned())
        .collect(),
    });
    // Registers without reset: RAMs, slot flags, output data.
    items.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            when(id("accept"), vec![set(idx("data_ram", "wr_addr"), id("in_beat_data")), set_id("acc", id("syn_next"))]),
            when(id("s4_valid"), vec![set(idx("err_ram", "err_addr"), id("s4_err"))]),
            when(id(&stage(ls, "valid")), vec![set_id("rem", sub(id("rem_now"), zext(id(&cnt_r), pw, rw))), set_id("acc_bits", id("tot_bits")), set_id("acc_bad", id("tot_bad"))]),
            when(
                id("decide"),
                vec![
                    set(idx("st_apply", "dec_slot"), and(id("correctable"), id("bypass_correction").lnot())),
                    set(idx("st_unc", "dec_slot"), and(id("correctable").lnot(), id("bypass_indication").lnot())),
                    set(idx("st_count", "dec_slot"), id("cnt_add")),
                    set_id("upd_sym", id("cnt_add")),
                    set_id("upd_bits", Expr::slice("tot_bits", bits_w - 1, 0)),
                    set_id("upd_ok", id("correctable")),
                    set_id("upd_unc", id("correctable").lnot()),
                ],
            ),
            // The low sums of the counters and the SER window's sum, on the clock after the
            // decision; the counters take them on the next (`upd2`).
            when(
                id("upd"),
                vec![l_sym, l_bits, l_unc, set_id("ser_total", add(id("ser_cnt"), zext(id("upd_sym"), lw, ser_w))), set_id("ser_end", eq(id("ser_cw"), ser.last.clone()))],
            ),
            when(
                id("rd"),
                vec![
                    set_id("rd_data", idx("data_ram", "rd_addr")),
                    set_id("rd_err", idx("err_ram", "rd_addr")),
                    set_id("out_tlast_r", id("out_last")),
                    set_id("apply_r", idx("st_apply", "head")),
                    set_id("out_unc_r", and(id("out_last"), idx("st_unc", "head"))),
                    set_id("out_cnt_r", mux(id("out_last"), idx("st_count", "head"), dec(lw, 0))),
                ],
            ),
        ],
    });
    for (port, e) in [
        ("in_tready", id("in_ready")),
        ("out_tvalid", id("out_tvalid_r")),
        ("out_tlast", id("out_tlast_r")),
        ("out_tdata", Expr::xor(id("rd_data"), and(id("rd_err"), Expr::Repeat(dw, Box::new(id("apply_r")))))),
        ("out_corrected", id("out_cnt_r")),
        ("out_uncorrectable", id("out_unc_r")),
        ("frame_error", id("frame_error_r")),
        ("corrected_symbols", id("corrected_symbols_r")),
        ("corrected_bits", id("corrected_bits_r")),
        ("uncorrectable_codewords", id("uncorrectable_r")),
        ("ser_alarm", id("ser_alarm_r")),
    ] {
        items.push(Item::assign(id(port), e));
    }
}
