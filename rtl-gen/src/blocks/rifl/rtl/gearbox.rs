//! `<p>_txgear` / `<p>_rxgear`: the AXI4-Stream width converter (see `model::gearbox`).
//!
//! The model's buffer shifts its bytes down by O on every output beat; the RTL keeps the same
//! ports cycle for cycle but never moves a held byte. It is a ring of P bytes (P ≥ I + O, chosen
//! by `ring_bytes`), with two pointers that restart at 0 with every packet: input beat n of a
//! packet is written at n·I mod P and output beat m is read at m·O mod P. Both positions take
//! few values, so each ring byte is written from a few input bytes (one when I divides P; else
//! the input beat is rotated once by its offset mod I) and
//! each output byte is read through a rotator over a few offsets, instead of a logarithmic
//! shifter placing every input at any fill level plus a 2:1 shift of the whole buffer. A byte
//! that leaves in an output beat (and a written byte that `in_keep` drops) is cleared, so the
//! ring is zero outside the packet's held bytes and the output beat is zero above `fill`, as in
//! the model.

use crate::hw::build::*;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::info::ResetStyle;
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};

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

/// The ring size: the multiple of g = gcd(I, O) in [I + O, 4·(I + O)] with the fewest estimated
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
    (ib + ob..=4 * (ib + ob)).step_by(g as usize).min_by_key(|&p| (cost(p), p)).expect("a ring size")
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

pub fn module(design: &DesignInfo, name: &str, role: Role, in_bytes: u32, out_bytes: u32, overlap: bool, what: &str) -> GeneratedModule {
    let (ib, ob) = (in_bytes, out_bytes);
    let cap = ib + ob;
    let p = ring_bytes(ib, ob);
    let gi = gcd(ib, p);
    let slots = p / gi;
    let u = gcd(ob, p);
    let r = p / u;
    let fw = bits_for(cap as u64);
    let cw = bits_for(ib as u64);
    let ww = bits_for((slots - 1) as u64);
    let rw = bits_for((r - 1) as u64);
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
    let mut it: Vec<Item> = Vec::new();
    localparam(&mut it, "OUT_BYTES", fw, ob as u64, "bytes of an output beat");
    localparam(&mut it, "IN_ROOM", fw, (cap - ib) as u64, &format!("an input beat fits while base <= this ({cap} bytes held at most - {ib}-byte input beat)"));
    localparam(&mut it, "WR_STEP", ww, (ib / gi) as u64, &format!("write position step per input beat, in {gi}-byte units"));
    localparam(&mut it, "WR_LAST", ww, (slots - 1) as u64, &format!("last write position ({p}-byte ring in {gi}-byte units)"));
    localparam(&mut it, "RD_STEP", rw, (ob / u) as u64, &format!("read position step per output beat, in {u}-byte units"));
    localparam(&mut it, "RD_LAST", rw, (r - 1) as u64, &format!("last read position ({p}-byte ring in {u}-byte units)"));
    it.extend([
        Item::reg("ring", 8 * p, &format!("{p} bytes: the packet's held bytes from ring byte rd_pos*{u} on, zero elsewhere")),
        Item::reg("wr_pos", ww, &format!("where the next input beat goes, in {gi}-byte units (0 at a packet's start)")),
        Item::reg("rd_pos", rw, &format!("where the output beat starts, in {u}-byte units (0 at a packet's start)")),
        Item::reg("fill", fw, "bytes held"),
        Item::reg("eop", 1, "the packet's last beat is in"),
    ]);
    thermo_count(&mut it, "in_count", "in_keep", ib);
    it.push(Item::comment("Output: the held bytes from rd_pos on; last when the packet ends within the beat."));
    it.push(Item::assign(id("out_valid"), Expr::or(ge(id("fill"), id("OUT_BYTES")), id("eop"))));
    it.push(Item::assign(id("out_last"), Expr::and(id("eop"), le(id("fill"), id("OUT_BYTES")))));
    for i in 0..ob {
        it.push(Item::assign(bit_of("out_keep", ob, i), lt(dec(fw, i as u64), id("fill"))));
    }
    // Rotator: the ring from byte rd_pos*u, coarse digits of rd_pos first; each stage keeps the
    // bytes the finer stages can still reach.
    let (mut src, mut src_len, mut wrap) = ("ring".to_string(), p, true);
    for (k, &(lo, bits, ways)) in rotator_stages(r).iter().enumerate() {
        let width = window_bytes(ob, u, lo);
        let name = if lo == 0 { "out_data".to_string() } else { format!("rot{k}") };
        let step = u << lo;
        let digit = if rw == 1 { id("rd_pos") } else if bits == 1 { Expr::bit("rd_pos", lo) } else { Expr::slice("rd_pos", lo + bits - 1, lo) };
        let run = |d: u32| if wrap { byte_run(&src, src_len, d * step, width) } else { Expr::slice(&src, 8 * (d * step + width) - 1, 8 * d * step) };
        let mut value = run(ways - 1);
        for d in (0..ways - 1).rev() {
            value = Expr::mux(eq(digit.clone(), dec(bits, d as u64)), run(d), value);
        }
        if lo == 0 {
            it.push(Item::assign(id("out_data"), value));
        } else {
            wire(&mut it, &name, 8 * width, &format!("ring bytes from rd_pos[{}:{lo}]*{step} on", rw - 1), value);
        }
        (src, src_len, wrap) = (name, width, false);
    }
    wire(&mut it, "do_out", 1, "", Expr::and(id("out_valid"), id("out_ready")));
    wire(&mut it, "do_in", 1, "", Expr::and(id("in_valid"), id("in_ready")));
    wire(&mut it, "flush", 1, "the packet's last beat leaves", Expr::and(id("do_out"), id("out_last")));
    wire(
        &mut it,
        "base",
        fw,
        "fill level after the output transfer",
        Expr::mux(id("flush"), dec(fw, 0), Expr::mux(id("do_out"), sub(id("fill"), id("OUT_BYTES")), id("fill"))),
    );
    let open = if overlap { Expr::or(id("eop").not(), id("flush")) } else { id("eop").not() };
    it.push(Item::assign(id("in_ready"), Expr::and(open, le(id("base"), id("IN_ROOM")))));
    wire(&mut it, "wr_at", ww, "write position of this cycle's input (a new packet starts at 0)", Expr::mux(id("flush"), dec(ww, 0), id("wr_pos")));
    it.push(Item::comment(&format!(
        "Ring writes: ring byte j takes input byte (j - wr_at*{gi}) mod {p} when that is below {ib}; cleared when it leaves in an output beat or is written but not kept."
    )));
    wire(&mut it, "wr_sel", slots, "this cycle's input beat goes to write position v", cat((0..slots).rev().map(|v| Expr::and(id("do_in"), eq(id("wr_at"), dec(ww, v as u64)))).collect()));
    let span = ob / u;
    wire(
        &mut it,
        "rd_clear",
        r,
        &format!("{u}-byte unit v leaves in this cycle's output beat"),
        cat((0..r).rev().map(|v| Expr::and(id("do_out"), any((0..span).map(|s| eq(id("rd_pos"), dec(rw, ((v + r - s) % r) as u64))).collect()))).collect()),
    );
    // Write sources. With I a multiple of the write step (k = 1) ring byte j always takes input
    // byte j mod I. Otherwise (k > 1 input bytes per ring byte) the input beat is first rotated by
    // its write offset mod I (k ways, one LUT6 level on the I-byte beat for k <= 4): ring byte j
    // then takes rotated byte j mod I, except that a beat wrapping past the ring's end lands on
    // ring bytes below I - g at another offset mod I, hence a second rotation for those bytes only.
    // That replaces a k-way multiplexer on every ring bit by two on the input beat.
    let k = ib / gi;
    let kb = bits_for((k - 1) as u64);
    let lo_bytes = ib - gi;
    if k > 1 {
        let table = |f: &dyn Fn(u32) -> u32| -> Expr {
            cat((0..kb).rev().map(|b| any((0..slots).filter(|&v| f(v) >> b & 1 == 1).map(|v| eq(id("wr_at"), dec(ww, v as u64))).collect())).collect())
        };
        let wrapped = |v: u32| v * gi + ib > p;
        wire(&mut it, "wr_rot", kb, &format!("write offset mod {ib}, in {gi}-byte units"), if k.is_power_of_two() { Expr::slice("wr_at", kb - 1, 0) } else { table(&|v| v % k) });
        wire(
            &mut it,
            "wr_rot_lo",
            kb,
            &format!("the same for ring bytes below {lo_bytes}: a beat that wraps past ring byte {} lands there one ring length ({p}) lower", p - 1),
            table(&|v| if wrapped(v) { ((v * gi + ib - p % ib) % ib) / gi } else { v % k }),
        );
        wire(&mut it, "wr_data", 8 * ib, &format!("the input beat rotated by wr_rot: ring byte j takes byte j mod {ib}"), rotated("in_data", 8, ib, ib, gi, "wr_rot", kb, k));
        wire(&mut it, "wr_keep", ib, "in_keep rotated the same way", rotated("in_keep", 1, ib, ib, gi, "wr_rot", kb, k));
        wire(&mut it, "wr_data_lo", 8 * lo_bytes, &format!("the input beat rotated by wr_rot_lo: ring byte j < {lo_bytes} takes byte j"), rotated("in_data", 8, ib, lo_bytes, gi, "wr_rot_lo", kb, k));
        wire(&mut it, "wr_keep_lo", lo_bytes, "in_keep rotated the same way", rotated("in_keep", 1, ib, lo_bytes, gi, "wr_rot_lo", kb, k));
    }
    let mut we = Vec::new();
    let mut clr = Vec::new();
    let mut body = Vec::new();
    for j in 0..p {
        // (write position, input byte) pairs that land on ring byte j.
        let srcs: Vec<(u32, u32)> = (0..slots).filter_map(|v| { let b = (j + p - v * gi) % p; (b < ib).then_some((v, b)) }).collect();
        we.push(any(srcs.iter().map(|&(v, _)| bit_of("wr_sel", slots, v)).collect()));
        let (data, kept) = if k == 1 {
            (Expr::slice("in_data", 8 * srcs[0].1 + 7, 8 * srcs[0].1), bit_of("in_keep", ib, srcs[0].1))
        } else if j < lo_bytes {
            (Expr::slice("wr_data_lo", 8 * j + 7, 8 * j), bit_of("wr_keep_lo", lo_bytes, j))
        } else {
            (Expr::slice("wr_data", 8 * (j % ib) + 7, 8 * (j % ib)), Expr::bit("wr_keep", j % ib))
        };
        let dropped = if k == 1 { Expr::and(bit_of("wr_sel", slots, srcs[0].0), kept.not()) } else { Expr::and(bit_of("ring_we", p, j), kept.not()) };
        clr.push(Expr::or(Expr::and(bit_of("rd_clear", r, j / u), bit_of("ring_we", p, j).not()), dropped));
        let lhs = Expr::slice("ring", 8 * j + 7, 8 * j);
        body.push(if_else(bit_of("ring_zero", p, j), vec![Stmt::set(lhs.clone(), dec(8, 0))], vec![when(bit_of("ring_we", p, j), vec![Stmt::set(lhs, data)])]));
    }
    we.reverse();
    clr.reverse();
    wire(&mut it, "ring_we", p, "this cycle's input beat covers ring byte j (its write position)", cat(we));
    wire(&mut it, "ring_clr", p, "ring byte j is cleared: it leaves in the output beat and is not written, or the input beat covers it but does not keep it", cat(clr));
    // The clear (and a synchronous reset) as one zeroing condition ahead of the write enable, so
    // synthesis maps them to the flip-flops' reset and enable pins (FDRE R, CE) with the input
    // byte straight on D, instead of a multiplexer per bit; the enable is the write position
    // alone (shared by its bytes), in_keep only enters the per-byte zeroing.
    let zero = id("ring_clr");
    let (zero, ring_reset) = match design.reset {
        ResetStyle::SyncHigh => (Expr::or(Expr::Repeat(p, Box::new(id("rst"))), zero), None),
        ResetStyle::AsyncLow => (zero, Some(vec![set_id("ring", dec(8 * p, 0))])),
    };
    wire(&mut it, "ring_zero", p, "ring byte j is zeroed: cleared and not written, or reset", zero);
    let count_ext = if fw > cw { cat(vec![zeros(fw - cw), id("in_count")]) } else { id("in_count") };
    wire(&mut it, "fill_next", fw, "", Expr::mux(id("do_in"), add(id("base"), count_ext), id("base")));
    let wrap_add = |pos: &str, w: u32, step: &str, last: &str| Expr::mux(le(id(pos), sub(id(last), id(step))), add(id(pos), id(step)), sub(id(pos), sub(add(id(last), dec(w, 1)), id(step))));
    wire(&mut it, "wr_next", ww, "", Expr::mux(id("do_in"), wrap_add("wr_at", ww, "WR_STEP", "WR_LAST"), id("wr_at")));
    wire(&mut it, "rd_step", rw, "", wrap_add("rd_pos", rw, "RD_STEP", "RD_LAST"));
    wire(&mut it, "rd_next", rw, "", Expr::mux(id("flush"), dec(rw, 0), Expr::mux(id("do_out"), id("rd_step"), id("rd_pos"))));
    it.push(Item::AlwaysFf {
        reset: Some(vec![set_id("fill", dec(fw, 0)), set_id("eop", Expr::zero()), set_id("wr_pos", dec(ww, 0)), set_id("rd_pos", dec(rw, 0))]),
        body: vec![
            set_id("fill", id("fill_next")),
            set_id("wr_pos", id("wr_next")),
            set_id("rd_pos", id("rd_next")),
            if_else(id("do_in"), vec![set_id("eop", id("in_last"))], vec![when(id("flush"), vec![set_id("eop", Expr::zero())])]),
        ],
    });
    it.push(Item::AlwaysFf { reset: ring_reset, body });
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: it, reset: Some(design.reset) },
        latency: 1,
        summary: format!(
            "AXI4-Stream width converter {what}: packs {ib}-byte beats into {ob}-byte beats, each packet starting at byte 0 of an output beat, through a {p}-byte ring (at most {cap} bytes held)."
        ),
        notes: vec![
            format!(
                "out_valid = fill >= O or eop; out_last = eop and fill <= O; in_ready = {} and base + I <= I + O, so in_ready looks at out_ready. At the edge an output transfer releases (clears) its O ring bytes (with out_last: a flush, both positions back to 0), then an input transfer writes its kept bytes at wr_pos. {}",
                if overlap { "(!eop or flush)" } else { "!eop" },
                if overlap {
                    "The next packet enters in the cycle the previous one's last beat leaves: the receive side loses at most one input slot per packet."
                } else {
                    "The next packet enters the cycle after the previous one's last beat left: a packet boundary costs exactly one slot, so the far receiver keeps up."
                }
            ),
            format!("Ring of {p} bytes: writes at multiples of {gi} bytes ({slots} positions, each ring byte fed by {} input byte(s)), reads at multiples of {u} bytes ({r} positions, rotator stages {:?} (digit low bit, bits, ways)).", ib / gi, rotator_stages(r)),
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
        assert_eq!(rings, [160, 240, 384, 480, 496, 496]);
    }

    #[test]
    fn the_lone_two_way_stage_is_the_finest() {
        assert_eq!(rotator_stages(31), [(3, 2, 4), (1, 2, 4), (0, 1, 2)]);
        assert_eq!(rotator_stages(15), [(2, 2, 4), (0, 2, 4)]);
        assert_eq!(rotator_stages(2), [(0, 1, 2)]);
        assert_eq!(rotator_stages(64), [(4, 2, 4), (2, 2, 4), (0, 2, 4)]);
    }
}
