//! Properties of a RIFL gearbox (`_txgear`, `_rxgear`), at its ports and its fill level, from
//! the contract of [`super::gearbox`]: the kept bytes of the input packets leave, in order and
//! unchanged, as the kept bytes of the output packets.
//!
//! - stream: the output keeps `out_valid` and the beat (data, keep, last) until `out_ready`, and
//!   `out_keep` is contiguous from byte 0 with at least one byte;
//! - no byte created or lost: the fill level (`held`, a thermometer code) is the bytes taken in
//!   minus the bytes sent out, at most I + O; the packets taken in minus those sent out are the
//!   `eop` flag (a packet is whole inside or not at all);
//! - integrity: one tagged byte of the stream (a free constant position the solver picks) leaves
//!   at its position with the value it came in with, and ends an output packet exactly when it
//!   ended its input packet.
//!
//! The input is assumed to follow the port's rule (`in_keep` contiguous from byte 0, at least one
//! byte, all bytes unless `in_last`); it is not assumed to hold its beat until `in_ready`: the
//! gearbox writes the offered beat every cycle and reads it only when it takes it.

use crate::hw::build::{add, all, and, bit_of, bits_for, dec, eq, id, le, lt, ones, sub, thermo_count, zeros, zext};
use crate::hw::props::{running, Formal};
use crate::hw::verilog::{Expr, Item, Stmt};
use crate::info::DesignInfo;

/// `value` is a thermometer code (`width` bits): contiguous ones from bit 0, or none.
fn thermometer(value: &str, width: u32) -> Expr {
    eq(and(id(value), add(id(value), dec(width, 1))), zeros(width))
}

/// Byte `at` of the `bytes`-byte vector `data`: a multiplexer over the byte positions.
fn byte_at(data: &str, bytes: u32, at: Expr, w: u32) -> Expr {
    let byte = |k: u32| Expr::slice(data, 8 * k + 7, 8 * k);
    (0..bytes - 1).rev().fold(byte(bytes - 1), |rest, k| Expr::mux(eq(at.clone(), dec(w, k as u64)), byte(k), rest))
}

/// `ib` input bytes, `ob` output bytes per beat (a one-byte side's keep is a scalar).
pub fn properties(design: &DesignInfo, ib: u32, ob: u32) -> Item {
    let reset = design.reset;
    let cap = ib + ob;
    let mut f = Formal::clocked(reset);
    let run = running(reset);
    // Byte counts modulo 2^w with 2^w above the most the gearbox holds plus a beat, so a tagged
    // position names one byte of the stream in the gearbox at a time.
    let w = bits_for((cap + ib) as u64);
    f.assume(
        "a_in_keep",
        "in_keep is contiguous from byte 0 with at least one byte, all bytes unless in_last",
        Some(id("in_valid")),
        all(vec![bit_of("in_keep", ib, 0), thermometer("in_keep", ib), Expr::or(id("in_last"), eq(id("in_keep"), ones(ib)))]),
    );
    f.handshake_out(reset, "out", "out_valid", "out_ready", &[("out_data", 8 * ob), ("out_keep", ob), ("out_last", 1)]);
    f.assert("p_out_keep", "out_keep is contiguous from byte 0 with at least one byte", Some(and(run.clone(), id("out_valid"))), and(bit_of("out_keep", ob, 0), thermometer("out_keep", ob)));
    f.items.push(Item::wire("f_in", 1, "an input beat is taken"));
    f.items.push(Item::assign(id("f_in"), and(id("in_valid"), id("in_ready"))));
    f.items.push(Item::wire("f_out", 1, "an output beat is taken"));
    f.items.push(Item::assign(id("f_out"), and(id("out_valid"), id("out_ready"))));
    thermo_count(&mut f.items, "f_in_n", "in_keep", ib);
    thermo_count(&mut f.items, "f_out_n", "out_keep", ob);
    thermo_count(&mut f.items, "f_fill", "held", cap);
    let count = |name: &str, n: u32| zext(id(name), bits_for(n as u64), w);
    for (name, doc) in [("f_bytes_in", "kept bytes taken in since reset, mod 2^w"), ("f_bytes_out", "kept bytes sent out since reset, mod 2^w")] {
        f.items.push(Item::reg(name, w, doc));
    }
    for (name, doc) in [("f_packets_in", "last beats taken in since reset, mod 4"), ("f_packets_out", "last beats sent out since reset, mod 4")] {
        f.items.push(Item::reg(name, 2, doc));
    }
    f.anyconst.push(("f_tag".into(), w, "the tagged byte's position in the stream (mod 2^w)".into()));
    f.items.push(Item::wire("f_in_at", w, "the tagged byte's place in the input beat (when below f_in_n)"));
    f.items.push(Item::assign(id("f_in_at"), sub(id("f_tag"), id("f_bytes_in"))));
    f.items.push(Item::wire("f_out_at", w, "the tagged byte's place in the output beat (when below f_out_n)"));
    f.items.push(Item::assign(id("f_out_at"), sub(id("f_tag"), id("f_bytes_out"))));
    f.items.push(Item::wire("f_in_byte", 8, "the input beat's byte at f_in_at"));
    f.items.push(Item::assign(id("f_in_byte"), byte_at("in_data", ib, id("f_in_at"), w)));
    f.items.push(Item::wire("f_out_byte", 8, "the output beat's byte at f_out_at"));
    f.items.push(Item::assign(id("f_out_byte"), byte_at("out_data", ob, id("f_out_at"), w)));
    f.items.push(Item::reg("f_tag_in", 1, "the tagged byte has been taken in"));
    f.items.push(Item::reg("f_tag_byte", 8, "the tagged byte's value"));
    f.items.push(Item::reg("f_tag_last", 1, "the tagged byte ended its input packet"));
    let tag_in = and(id("f_in"), lt(id("f_in_at"), count("f_in_n", ib)));
    let last_of = |n: &str, bytes: u32, at: &str, last: &str| and(id(last), eq(id(at), sub(count(n, bytes), dec(w, 1))));
    let step = |reg: &str, by: Expr, on: &str| Stmt::when(id(on), vec![Stmt::set(id(reg), add(id(reg), by))]);
    f.items.push(Item::AlwaysFf {
        reset: Some(vec![
            Stmt::set(id("f_bytes_in"), dec(w, 0)),
            Stmt::set(id("f_bytes_out"), dec(w, 0)),
            Stmt::set(id("f_packets_in"), dec(2, 0)),
            Stmt::set(id("f_packets_out"), dec(2, 0)),
            Stmt::set(id("f_tag_in"), Expr::zero()),
        ]),
        body: vec![
            step("f_bytes_in", count("f_in_n", ib), "f_in"),
            step("f_bytes_out", count("f_out_n", ob), "f_out"),
            Stmt::when(and(id("f_in"), id("in_last")), vec![Stmt::set(id("f_packets_in"), add(id("f_packets_in"), dec(2, 1)))]),
            Stmt::when(and(id("f_out"), id("out_last")), vec![Stmt::set(id("f_packets_out"), add(id("f_packets_out"), dec(2, 1)))]),
            Stmt::when(
                tag_in,
                vec![Stmt::set(id("f_tag_in"), Expr::one()), Stmt::set(id("f_tag_byte"), id("f_in_byte")), Stmt::set(id("f_tag_last"), last_of("f_in_n", ib, "f_in_at", "in_last"))],
            ),
        ],
    });
    f.assert(
        "p_fill",
        "the fill level is a thermometer code of the bytes taken in minus those sent out, at most I + O",
        Some(run.clone()),
        all(vec![thermometer("held", cap), eq(count("f_fill", cap), sub(id("f_bytes_in"), id("f_bytes_out"))), le(sub(id("f_bytes_in"), id("f_bytes_out")), dec(w, cap as u64))]),
    );
    f.assert("p_packets", "the packets taken in minus those sent out: the last beat's flag (one packet inside at most, and whole)", Some(run.clone()), eq(sub(id("f_packets_in"), id("f_packets_out")), zext(id("eop"), 1, 2)));
    f.assert(
        "p_tag_byte",
        "the tagged byte leaves at its position with its value, ending an output packet exactly when it ended its input packet",
        Some(and(run, and(id("f_out"), lt(id("f_out_at"), count("f_out_n", ob))))),
        all(vec![id("f_tag_in"), eq(id("f_out_byte"), id("f_tag_byte")), eq(last_of("f_out_n", ob, "f_out_at", "out_last"), id("f_tag_last"))]),
    );
    Item::Formal(f)
}
