//! `<p>_txgear` / `<p>_rxgear`: the AXI4-Stream width converter (see `model::gearbox`).
//!
//! The model's buffer shifts its bytes down by O on every output beat; the RTL keeps the same
//! ports cycle for cycle but never moves a held byte. It is a ring of P bytes (P ≥ I + O, chosen
//! by `ring_bytes`), with two pointers that restart at 0 with every packet: input beat n of a
//! packet is written at n·I mod P and output beat m is read at m·O mod P. Both positions take
//! few values, so each ring byte is written from a few input bytes (one when I divides P; else
//! the input beat is rotated once by its offset mod I) and
//! each output byte is read through a rotator over a few offsets, instead of a logarithmic
//! shifter placing every input at any fill level plus a 2:1 shift of the whole buffer.
//!
//! No ring byte is ever cleared and no write waits for the transfer decision: every cycle the
//! input beat is written at the write position, taken or not. The ring holds at least 2·I + O
//! bytes, so that write area lies outside the held bytes (which with the gap a partial last beat
//! leaves span at most I + O bytes from the read position) and an untaken beat only fills bytes
//! nobody reads. The output beat is masked by the registered fill level (`out_keep`), so it is
//! zero above `fill` as in the model. The ring's enables are thus one LUT from the registered
//! write position and the flush (`out_ready` with the registered last-beat flag), instead of the
//! transfer decision fanned out to every ring byte's clear and enable.
//!
//! The read position selects every output bit's rotator multiplexer, so it is held in one copy per
//! 16 bytes of the rotator's widest window (`rd_pos_0`, `rd_pos_1`, ...; plain `rd_pos` when one
//! suffices), each stepping from its own value: Yosys merges flip-flops with one D input even when
//! `(* keep *)`, and copies that share no input stay apart, each driving one region of the die.

use crate::hw::build::*;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};
use crate::math::gf2::BitVec;

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// LUT6 levels of an n-way multiplexer per output bit (a 4:1 fits one LUT6, 8:1 two and a MUXF7).
fn mux_luts(n: u32) -> u32 {
    match n {
        0 | 1 => 0,
        2..=4 => 1,
        5..=8 => 2,
        9..=16 => 4,
        17..=32 => 8,
        _ => 16,
    }
}

/// The rotator's stages for a read offset in units of u bytes over R values: per stage (low bit
/// of its digit, digit bits, ways used), from the coarsest down; radix 4 so a stage is one LUT6.
/// With an odd number of digit bits the lone 2:1 stage is the finest, where the window is
/// narrowest (the output beat itself), rather than the coarsest, where it is widest.
fn rotator_stages(r: u32) -> Vec<(u32, u32, u32)> {
    let rb = bits_for((r - 1) as u64);
    let odd = rb % 2;
    let mut stages = Vec::new();
    let mut hi = rb;
    while hi > odd {
        hi -= 2;
        stages.push((hi, 2));
    }
    if odd == 1 {
        stages.push((0, 1));
    }
    stages.into_iter().map(|(lo, bits)| (lo, bits, (1u32 << bits).min(((r - 1) >> lo) + 1))).collect()
}

/// Bytes held by the output window after the stage whose digit starts at bit `lo`.
fn window_bytes(ob: u32, u: u32, lo: u32) -> u32 {
    ob + u * ((1u32 << lo) - 1)
}

/// Window bytes whose rotator multiplexers share one copy of the read position: its select bits
/// then drive 128 multiplexers each, in one region of the die, rather than every output bit.
const SELECT_REGION_BYTES: u32 = 16;

/// The read position's copy serving byte `b` of a rotator window.
fn rd_copy(copies: u32, b: u32) -> String {
    if copies == 1 {
        "rd_pos".to_string()
    } else {
        format!("rd_pos_{}", b / SELECT_REGION_BYTES)
    }
}

/// The ring size: the multiple of g = gcd(I, O) in [2·I + O, 4·(I + O)] with the fewest estimated
/// LUTs (the two input rotations when a ring byte has several sources, rotator stages per window
/// bit, per-byte controls), flip-flops weighted a quarter of a LUT.
pub fn ring_bytes(ib: u32, ob: u32) -> u32 {
    let g = gcd(ib, ob);
    let cost = |p: u32| {
        let (u, gi) = (gcd(ob, p), gcd(ib, p));
        let rot: u32 = rotator_stages(p / u).iter().map(|&(lo, _, ways)| 8 * window_bytes(ob, u, lo) * mux_luts(ways)).sum();
        let write = if gi == ib { 0 } else { 8 * (2 * ib - gi) * mux_luts(ib / gi) };
        4 * (write + rot + 2 * p) + 8 * p
    };
    // At least 2I + O: the held bytes with a partial last beat's gap (I + O) and the write area
    // (I) beside them, so an untaken beat's write never lands on a held byte.
    (2 * ib + ob..=4 * (ib + ob)).step_by(g as usize).min_by_key(|&p| (cost(p), p)).expect("a ring size")
}

/// Bytes `start .. start + len` of the `src_len`-byte vector `src`, wrapping at `src_len`, as a
/// concatenation (highest byte first).
fn byte_run(src: &str, src_len: u32, start: u32, len: u32) -> Expr {
    unit_run(src, 8, src_len, start, len)
}

/// Units of `w` bits `start .. start + len` of the `src_len`-unit vector `src`, wrapping.
fn unit_run(src: &str, w: u32, src_len: u32, start: u32, len: u32) -> Expr {
    let mut parts = Vec::new();
    let (mut at, mut left) = (start % src_len, len);
    while left > 0 {
        let n = left.min(src_len - at);
        parts.push(if w * n == 1 && src_len == 1 { id(src) } else { Expr::slice(src, w * (at + n) - 1, w * at) });
        left -= n;
        at = 0;
    }
    parts.reverse();
    cat(parts)
}

/// `rot` as a 1-bit or wider select equal to `d`.
fn sel_is(rot: &str, bits: u32, d: u32) -> Expr {
    if bits == 1 && d == 1 {
        id(rot)
    } else if bits == 1 {
        id(rot).not()
    } else {
        eq(id(rot), dec(bits, d as u64))
    }
}

/// Units 0 .. len of the `n`-unit vector `src` (units of `w` bits) rotated up by `g`·`rot` units
/// (unit t of the result is unit (t - g·rot) mod n of `src`), `rot` in 0..ways: one multiplexer
/// level.
#[allow(clippy::too_many_arguments)]
fn rotated(src: &str, w: u32, n: u32, len: u32, g: u32, rot: &str, bits: u32, ways: u32) -> Expr {
    let run = |d: u32| unit_run(src, w, n, (n - (g * d) % n) % n, len);
    let mut value = run(ways - 1);
    for d in (0..ways - 1).rev() {
        value = Expr::mux(sel_is(rot, bits, d), run(d), value);
    }
    value
}

/// `src` (`width` bits) moved up by `n` bits within `width` bits, zeros below.
fn shifted_up(src: &str, width: u32, n: u32) -> Expr {
    if n == 0 {
        id(src)
    } else if n >= width {
        zeros(width)
    } else {
        cat(vec![Expr::slice(src, width - 1 - n, 0), zeros(n)])
    }
}

/// `name` = `keep_wide` moved up by `g`·`at` bytes (`at` a `bits`-bit register), `width` bits: a
/// shifter in radix-4 stages of `at`'s digits, finest first (one LUT6 level each).
fn placed(it: &mut Vec<Item>, name: &str, at: &str, bits: u32, g: u32, width: u32, doc: &str) {
    // `at` is a register (at_a or at_b): the output transfer picks between the two placements
    // after the shifter.
    let mut src = "keep_wide".to_string();
    let mut lo = 0;
    while lo < bits {
        let db = (bits - lo).min(2);
        let digit = if bits == 1 { id(at) } else if db == 1 { Expr::bit(at, lo) } else { Expr::slice(at, lo + 1, lo) };
        let ways = 1u32 << db;
        let mut value = shifted_up(&src, width, g * (ways - 1) << lo);
        for d in (0..ways - 1).rev() {
            value = Expr::mux(eq(digit.clone(), dec(db, d as u64)), shifted_up(&src, width, g * d << lo), value);
        }
        lo += db;
        let out = if lo >= bits { name.to_string() } else { format!("{name}_{lo}") };
        let what = if lo >= bits { doc.to_string() } else { format!("keep_wide moved up by {g}*{at}[{}:0] bytes", lo - 1) };
        wire(it, &out, width, &what, value);
        src = out;
    }
}

/// `v` rotated up by `n` bits (`width` bits): bit i of the result is bit (i - n) mod width.
fn rotated_up(v: &str, width: u32, n: u32) -> Expr {
    let n = n % width;
    if n == 0 {
        id(v)
    } else {
        let part = |hi: u32, lo: u32| if hi == lo { Expr::bit(v, lo) } else { Expr::slice(v, hi, lo) };
        cat(vec![part(width - 1 - n, 0), part(width - 1, width - n)])
    }
}

/// The `units`-bit mask with bits `start .. start + count` set, wrapping.
fn cover_mask(units: u32, start: u32, count: u32) -> Expr {
    let mut m = BitVec::zeros(units as usize);
    for t in 0..count {
        m.set(((start + t) % units) as usize, true);
    }
    Expr::Const(m)
}

pub fn module(design: &DesignInfo, name: &str, role: Role, in_bytes: u32, out_bytes: u32, overlap: bool, what: &str) -> GeneratedModule {
    let (ib, ob) = (in_bytes, out_bytes);
    let cap = ib + ob;
    let p = ring_bytes(ib, ob);
    let gi = gcd(ib, p);
    let slots = p / gi;
    let u = gcd(ob, p);
    let r = p / u;
    let g = gcd(ib, ob);
    let rw = bits_for((r - 1) as u64);
    // Within a packet the fill level is a multiple of g and an input beat is taken only while the
    // level after the output transfer is at most O: the kept bytes are placed at g·at_a (no
    // output transfer), g·at_b (after one: fill - O) or 0 (after a flush), all at most O/g.
    let aw = bits_for((ob / g) as u64);
    let k = ib / gi;
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("in_valid", 1, "input beat offered"),
        Port::output("in_ready", 1, "input beat taken (looks at this cycle's output transfer)"),
        Port::input("in_data", 8 * ib, "byte i at [8i+7:8i]; bytes not kept are ignored"),
        Port::input("in_keep", ib, "kept bytes, contiguous from byte 0, at least one; all unless in_last"),
        Port::input("in_last", 1, "last beat of a packet"),
        Port::output("out_valid", 1, "output beat offered"),
        Port::input("out_ready", 1, "output beat taken"),
        Port::output("out_data", 8 * ob, "byte i at [8i+7:8i]; bytes not kept are zero"),
        Port::output("out_keep", ob, "kept bytes, contiguous from byte 0"),
        Port::output("out_last", 1, "last beat of a packet"),
    ]);
    let stages = rotator_stages(r);
    let copies = window_bytes(ob, u, stages[0].0).div_ceil(SELECT_REGION_BYTES);
    // How the docs name the read position: the register, or its first copy (all copies are equal).
    let rp = if copies == 1 { "rd_pos" } else { "rd_pos_0" };
    let mut it: Vec<Item> = Vec::new();
    localparam(&mut it, "RD_STEP", rw, (ob / u) as u64, &format!("read position step per output beat, in {u}-byte units"));
    localparam(&mut it, "RD_LAST", rw, (r - 1) as u64, &format!("last read position ({p}-byte ring in {u}-byte units)"));
    localparam(&mut it, "IN_UNITS", aw, ((ib / g) % (1 << aw)) as u64, &format!("an input beat in {g}-byte units (mod 2^{aw})"));
    localparam(&mut it, "OUT_UNITS", aw, ((ob / g) % (1 << aw)) as u64, &format!("an output beat in {g}-byte units (mod 2^{aw})"));
    it.push(Item::Localparam { name: "WR_FIRST".into(), value: cover_mask(slots, 0, 1), doc: format!("write position of a packet's first input beat (one-hot over {slots} positions of {gi} bytes)") });
    it.extend([
        Item::reg("ring", 8 * p, &format!("{p} bytes: the packet's held bytes from ring byte {rp}*{u} on (other bytes: whatever was last written, never read out)")),
        Item::reg("wr_hot", slots, &format!("where the next input beat of the packet goes: one-hot over the ring's {slots} write positions (multiples of {gi} bytes)")),
        Item::reg("held", cap, "thermometer code of the bytes held: bit i is set while fill > i"),
        Item::reg("at_a", aw, &format!("fill / {g} mod 2^{aw} (within a packet the fill level is a multiple of {g})")),
        Item::reg("at_b", aw, &format!("(fill - {ob}) / {g} mod 2^{aw}: the same after an output beat")),
        Item::reg("eop", 1, "the packet's last beat is in"),
    ]);
    // The read position selects every output bit's rotator multiplexer. One register would fan out
    // across the whole ring, so it is held in one copy per 16 window bytes, each copy stepping
    // from its own value: no two copies share a D input, so synthesis cannot merge them.
    for q in 0..copies {
        let doc = if copies == 1 {
            format!("where the output beat starts, in {u}-byte units (0 at a packet's start)")
        } else {
            format!("where the output beat starts, in {u}-byte units (0 at a packet's start): the copy selecting rotator window bytes {}..{}", q * SELECT_REGION_BYTES, (q + 1) * SELECT_REGION_BYTES - 1)
        };
        it.push(Item::reg(&rd_copy(copies, q * SELECT_REGION_BYTES), rw, &doc));
    }
    it.push(Item::comment(&format!(
        "Flow control from registers alone: fill >= {ob} is held[{}], fill > {ob} is held[{ob}], fill > {} is {}.",
        ob - 1,
        2 * ob,
        if 2 * ob < cap { format!("held[{}]", 2 * ob) } else { "never".into() }
    )));
    it.push(Item::assign(id("out_valid"), Expr::or(Expr::bit("held", ob - 1), id("eop"))));
    it.push(Item::assign(id("out_last"), Expr::and(id("eop"), Expr::bit("held", ob).not())));
    it.push(Item::assign(id("out_keep"), Expr::slice("held", ob - 1, 0)));
    wire(&mut it, "do_out", 1, "", Expr::and(id("out_valid"), id("out_ready")));
    wire(&mut it, "flush", 1, "the packet's last beat leaves", Expr::and(id("out_ready"), id("out_last")));
    // Every next state is computed twice from registers and the input beat, for a cycle without
    // (`_hold`) and with (`_move`) an output transfer, and do_out only picks one: out_ready (the
    // consumer's decision, late in a node) is one LUT level from every register.
    let fits_out = if 2 * ob < cap { Expr::bit("held", 2 * ob).not() } else { Expr::one() };
    wire(&mut it, "in_ready_hold", 1, &format!("an input beat fits without an output transfer: fill at most {ob}"), Expr::and(id("eop").not(), Expr::bit("held", ob).not()));
    let open = Expr::and(id("eop").not(), fits_out);
    wire(&mut it, "in_ready_move", 1, &format!("an input beat fits with an output transfer: fill - {ob} at most {ob}{}", if overlap { ", or the packet's last beat leaves" } else { "" }), if overlap { Expr::or(open, id("out_last")) } else { open });
    it.push(Item::assign(id("in_ready"), Expr::mux(id("do_out"), id("in_ready_move"), id("in_ready_hold"))));
    wire(&mut it, "take_hold", 1, "an input beat is taken, if no output transfer", Expr::and(id("in_valid"), id("in_ready_hold")));
    wire(&mut it, "take_move", 1, "an input beat is taken, if an output transfer", Expr::and(id("in_valid"), id("in_ready_move")));
    let by_transfer = |hold: Expr, moved: Expr| Expr::mux(id("do_out"), moved, hold);
    // Rotator: the ring from byte rd_pos*u, coarse digits of rd_pos first; each stage keeps the
    // bytes the finer stages can still reach.
    let (mut src, mut src_len, mut wrap) = ("ring".to_string(), p, true);
    for (k, &(lo, bits, ways)) in stages.iter().enumerate() {
        let width = window_bytes(ob, u, lo);
        let name = if lo == 0 { "rd_data".to_string() } else { format!("rot{k}") };
        let step = u << lo;
        // One multiplexer per region of the window, selected by that region's copy of rd_pos.
        let mut regions = Vec::new();
        for first in (0..width).step_by(SELECT_REGION_BYTES as usize) {
            let len = SELECT_REGION_BYTES.min(width - first);
            let pos = rd_copy(copies, first);
            let digit = if rw == 1 { id(&pos) } else if bits == 1 { Expr::bit(&pos, lo) } else { Expr::slice(&pos, lo + bits - 1, lo) };
            let run = |d: u32| if wrap { byte_run(&src, src_len, d * step + first, len) } else { Expr::slice(&src, 8 * (d * step + first + len) - 1, 8 * (d * step + first)) };
            let mut value = run(ways - 1);
            for d in (0..ways - 1).rev() {
                value = Expr::mux(eq(digit.clone(), dec(bits, d as u64)), run(d), value);
            }
            regions.push(value);
        }
        regions.reverse();
        let doc = if lo == 0 { format!("the output beat's ring bytes, from {rp}*{u} on") } else { format!("ring bytes from {rp}[{}:{lo}]*{step} on", rw - 1) };
        wire(&mut it, &name, 8 * width, &doc, cat(regions));
        (src, src_len, wrap) = (name, width, false);
    }
    it.push(Item::comment("Ring bytes outside the held ones are never cleared: the output beat is masked by the fill level."));
    wire(&mut it, "keep_mask", 8 * ob, "out_keep, one bit per data bit", cat((0..ob).rev().map(|i| Expr::Repeat(8, Box::new(Expr::bit("held", i)))).collect()));
    it.push(Item::assign(id("out_data"), Expr::and(id("rd_data"), id("keep_mask"))));
    it.push(Item::comment(&format!(
        "Ring writes: every cycle, taken or not, ring byte j takes input byte (j - w*{gi}) mod {p} when that is below {ib},\nw the write position (wr_hot, or 0 at a flush):\nthe write area lies beyond the held bytes, so an untaken beat is never read, and the enables need no transfer decision."
    )));
    // Write sources. With I a multiple of the write step (k = 1) ring byte j always takes input
    // byte j mod I. Otherwise (k > 1 input bytes per ring byte) the input beat is first rotated by
    // its write offset mod I (k ways, one LUT6 level on the I-byte beat for k <= 4): ring byte j
    // then takes rotated byte j mod I, except that a beat wrapping past the ring's end lands on
    // ring bytes below I - g at another offset mod I, hence a second rotation for those bytes only.
    // That replaces a k-way multiplexer on every ring bit by two on the input beat.
    let kb = bits_for((k - 1) as u64);
    let lo_bytes = ib - gi;
    if k > 1 {
        let table = |f: &dyn Fn(u32) -> u32| -> Expr {
            // From wr_hot; a flush writes at position 0, where both offsets are 0.
            let hot = cat((0..kb).rev().map(|b| any((0..slots).filter(|&v| f(v) >> b & 1 == 1).map(|v| bit_of("wr_hot", slots, v)).collect())).collect());
            Expr::mux(id("flush"), dec(kb, 0), hot)
        };
        let wrapped = |v: u32| v * gi + ib > p;
        wire(&mut it, "wr_rot", kb, &format!("write offset mod {ib}, in {gi}-byte units"), table(&|v| v % k));
        wire(
            &mut it,
            "wr_rot_lo",
            kb,
            &format!("the same for ring bytes below {lo_bytes}: a beat that wraps past ring byte {} lands there one ring length ({p}) lower", p - 1),
            table(&|v| if wrapped(v) { ((v * gi + ib - p % ib) % ib) / gi } else { v % k }),
        );
        wire(&mut it, "wr_data", 8 * ib, &format!("the input beat rotated by wr_rot: ring byte j takes byte j mod {ib}"), rotated("in_data", 8, ib, ib, gi, "wr_rot", kb, k));
        wire(&mut it, "wr_data_lo", 8 * lo_bytes, &format!("the input beat rotated by wr_rot_lo: ring byte j < {lo_bytes} takes byte j"), rotated("in_data", 8, ib, lo_bytes, gi, "wr_rot_lo", kb, k));
    }
    let mut we = Vec::new();
    let mut body = Vec::new();
    for j in 0..p {
        // The write positions whose beat covers ring byte j.
        let srcs: Vec<u32> = (0..slots).filter(|&v| (j + p - v * gi) % p < ib).collect();
        we.push(any(srcs.iter().map(|&v| bit_of("wr_hot", slots, v)).collect()));
        let data = if k == 1 {
            Expr::slice("in_data", 8 * (j % ib) + 7, 8 * (j % ib))
        } else if j < lo_bytes {
            Expr::slice("wr_data_lo", 8 * j + 7, 8 * j)
        } else {
            Expr::slice("wr_data", 8 * (j % ib) + 7, 8 * (j % ib))
        };
        body.push(when(bit_of("ring_we", p, j), vec![Stmt::set(Expr::slice("ring", 8 * j + 7, 8 * j), data)]));
    }
    we.reverse();
    wire(&mut it, "we_hot", p, "the write area at wr_hot covers ring byte j", cat(we));
    wire(&mut it, "ring_we", p, &format!("this cycle's write area covers ring byte j (at wr_hot, or bytes 0..{} after a flush; whether the beat is taken or not)", ib - 1), Expr::mux(id("flush"), cover_mask(p, 0, ib), id("we_hot")));
    it.push(Item::comment(&format!(
        "Fill level: the held bytes after the output transfer (none after a flush, shifted down by {ob} after another transfer), with the kept input bytes placed above them."
    )));
    let high = |n: u32| if n >= cap { zeros(cap) } else { cat(vec![zeros(n), Expr::slice("held", cap - 1, n)]) };
    let taken = |take: &str, v: &str| Expr::and(Expr::Repeat(cap, Box::new(id(take))), id(v));
    wire(&mut it, "keep_wide", cap, "in_keep, zero above", cat(vec![zeros(cap - ib), id("in_keep")]));
    placed(&mut it, "keep_at_a", "at_a", aw, g, cap, "the kept input bytes above the held ones");
    placed(&mut it, "keep_at_b", "at_b", aw, g, cap, &format!("the kept input bytes above the held ones less {ob}"));
    wire(&mut it, "held_hold", cap, "held after no output transfer", Expr::or(id("held"), taken("take_hold", "keep_at_a")));
    wire(&mut it, "held_move", cap, &format!("held after an output transfer: empty after a flush, else down by {ob}"), Expr::mux(id("out_last"), taken("take_move", "keep_wide"), Expr::or(high(ob), taken("take_move", "keep_at_b"))));
    wire(&mut it, "held_next", cap, "", by_transfer(id("held_hold"), id("held_move")));
    it.push(Item::comment(&format!("The fill level in {g}-byte units (modulo 2^{aw}; only read within a packet); after a flush it starts from 0 (at_b from -O/g).")));
    let units = |reg: &str, origin: Expr| {
        let hold = Expr::mux(id("take_hold"), add(id(reg), id("IN_UNITS")), id(reg));
        let moved = Expr::mux(
            id("out_last"),
            Expr::mux(id("take_move"), add(origin.clone(), id("IN_UNITS")), origin),
            Expr::mux(id("take_move"), add(id(reg), sub(id("IN_UNITS"), id("OUT_UNITS"))), sub(id(reg), id("OUT_UNITS"))),
        );
        by_transfer(hold, moved)
    };
    wire(&mut it, "at_a_next", aw, "", units("at_a", dec(aw, 0)));
    wire(&mut it, "at_b_next", aw, "", units("at_b", sub(dec(aw, 0), id("OUT_UNITS"))));
    wire(&mut it, "wr_hot_on", slots, &format!("wr_hot {ib} bytes on"), rotated_up("wr_hot", slots, ib / gi));
    let first_on = cover_mask(slots, (ib / gi) % slots, 1);
    let wr_move = Expr::mux(id("out_last"), Expr::mux(id("take_move"), first_on, id("WR_FIRST")), Expr::mux(id("take_move"), id("wr_hot_on"), id("wr_hot")));
    wire(&mut it, "wr_next", slots, &format!("the write position after an input transfer: {ib} bytes on (from 0 after a flush)"), by_transfer(Expr::mux(id("take_hold"), id("wr_hot_on"), id("wr_hot")), wr_move));
    let eop_move = Expr::mux(id("take_move"), id("in_last"), Expr::and(id("eop"), id("out_last").not()));
    wire(&mut it, "eop_next", 1, "", by_transfer(Expr::mux(id("take_hold"), id("in_last"), id("eop")), eop_move));
    for q in 0..copies {
        let pos = rd_copy(copies, q * SELECT_REGION_BYTES);
        let suffix = if copies == 1 { String::new() } else { format!("_{q}") };
        let rd_wrap = Expr::mux(le(id(&pos), sub(id("RD_LAST"), id("RD_STEP"))), add(id(&pos), id("RD_STEP")), sub(id(&pos), sub(add(id("RD_LAST"), dec(rw, 1)), id("RD_STEP"))));
        wire(&mut it, &format!("rd_step{suffix}"), rw, "", rd_wrap);
        wire(&mut it, &format!("rd_next{suffix}"), rw, "", Expr::mux(id("flush"), dec(rw, 0), Expr::mux(id("do_out"), id(&format!("rd_step{suffix}")), id(&pos))));
    }
    let mut reset = vec![set_id("held", zeros(cap)), set_id("at_a", dec(aw, 0)), set_id("at_b", sub(dec(aw, 0), id("OUT_UNITS"))), set_id("eop", Expr::zero())];
    let mut regs = vec![set_id("held", id("held_next")), set_id("at_a", id("at_a_next")), set_id("at_b", id("at_b_next"))];
    for q in 0..copies {
        let pos = rd_copy(copies, q * SELECT_REGION_BYTES);
        let suffix = if copies == 1 { String::new() } else { format!("_{q}") };
        reset.push(set_id(&pos, dec(rw, 0)));
        regs.push(set_id(&pos, id(&format!("rd_next{suffix}"))));
    }
    reset.push(set_id("wr_hot", id("WR_FIRST")));
    regs.extend([set_id("wr_hot", id("wr_next")), set_id("eop", id("eop_next"))]);
    it.push(Item::AlwaysFf { reset: Some(reset), body: regs });
    // No reset and no clear: the ring's flip-flops have only an enable, the write position (shared
    // by its bytes), with the input byte straight on D; the reset empties the ring through held.
    it.push(Item::AlwaysFf { reset: None, body });
    it.push(super::gear_props::properties(design, ib, ob));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: it, reset: Some(design.reset) },
        latency: 1,
        summary: format!(
            "AXI4-Stream width converter {what}: packs {ib}-byte beats into {ob}-byte beats, each packet starting at byte 0 of an output beat, through a {p}-byte ring (at most {cap} bytes held)."
        ),
        notes: vec![
            format!(
                "out_valid = fill >= O or eop; out_last = eop and fill <= O; in_ready = {} and base + I <= I + O, so in_ready looks at out_ready. At the edge an output transfer releases its O ring bytes (with out_last: a flush, both positions back to 0), then an input transfer places its kept bytes at the write position. {}",
                if overlap { "(!eop or flush)" } else { "!eop" },
                if overlap {
                    "The next packet enters in the cycle the previous one's last beat leaves: the receive side loses at most one input slot per packet."
                } else {
                    "The next packet enters the cycle after the previous one's last beat left: a packet boundary costs exactly one slot, so the far receiver keeps up."
                }
            ),
            format!("Ring of {p} bytes: writes at multiples of {gi} bytes ({slots} positions, each ring byte fed by {} input byte(s)), reads at multiples of {u} bytes ({r} positions, rotator stages {:?} (digit low bit, bits, ways)).", ib / gi, rotator_stages(r)),
            format!("Timing: the fill level is held as a thermometer code (held), so out_valid, out_last, out_keep and in_ready are one LUT from registers; the ring is written every cycle at the registered one-hot write position (wr_hot, or 0 at a flush), taken or not, into bytes outside the held ones (ring of at least 2*I + O bytes), and never cleared: its enables wait for no transfer decision, and out_data is the read-out masked by out_keep; the read position is held in {copies} copies (one per {SELECT_REGION_BYTES} bytes of the rotator's widest window, each stepping from its own value so synthesis keeps them apart), so no select net spans the whole ring; the kept input bytes are placed by shifters over the fill level in {g}-byte units (at_a, at_b); every next state is computed for both outcomes of the output transfer (held_hold / held_move, ...) and do_out picks one, so out_ready is one LUT level from every register."),
        ],
        role,
        origin: None,
    }
}

#[cfg(test)]
mod tests {
    use super::{ring_bytes, rotator_stages};

    #[test]
    fn ring_sizes_of_the_table_4_nodes() {
        // (I, O) of the gearboxes of RIFL(256,256), RIFL(256,1024) and RIFL(512,512) on four lanes.
        let rings: Vec<u32> = [(32, 120), (120, 32), (128, 120), (120, 128), (64, 248), (248, 64)].iter().map(|&(i, o)| ring_bytes(i, o)).collect();
        assert_eq!(rings, [240, 480, 384, 480, 496, 744]);
    }

    #[test]
    fn the_lone_two_way_stage_is_the_finest() {
        assert_eq!(rotator_stages(31), [(3, 2, 4), (1, 2, 4), (0, 1, 2)]);
        assert_eq!(rotator_stages(15), [(2, 2, 4), (0, 2, 4)]);
        assert_eq!(rotator_stages(2), [(0, 1, 2)]);
        assert_eq!(rotator_stages(64), [(4, 2, 4), (2, 2, 4), (0, 2, 4)]);
    }
}
