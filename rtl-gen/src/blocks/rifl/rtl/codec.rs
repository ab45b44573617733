//! The frame codec modules: `_crc`, `_encode`, `_check`, and the scrambler pair.

use crate::hw::build::*;
use super::Names;
use crate::blocks::rifl::model::codec::crc_algo;
use crate::blocks::rifl::model::params::Params;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::verilog::{Expr, Item, Module, Port};
use crate::hw::xor_net::{self, Columns, XorNet, XorStyle};
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};

pub const LAYOUT_NOTE: &str = "Frame layout MSB->LSB (F = frame_bits, P = F-16, S = P/8; bit 0 is sent first, so the fields go out \
in the paper's order SYN, payload, meta code, verification code): frame[F-1:F-12] vcode = CRC12 ^ frame ID; frame[F-13:F-14] meta code; \
frame[F-15:2] payload, byte i at frame[8i+9:8i+2]; frame[1:0] SYN (2'b01 data, 2'b10 control, 00/11 illegal). The line region \
{meta, payload} = frame[F-13:2] is scrambled on the line. Inside the node a frame's content is kept as the raw region {payload, meta} \
(meta at bits 1:0): retransmission buffer, flow-control buffer, lane segments.";

pub const CODES_NOTE: &str = "Meta codes (Table 1): 00 no valid payload, 01 all bytes valid (not end of packet), 10 end of packet with \
the valid-byte count in the last payload byte (format code), 11 end of packet, all bytes valid. A meta-00 data frame's last byte: 00 filler, \
01 flow-control pause, 02 flow-control resume. Control frames: meta 00, payload zero but the last byte: Idle 0x0F, Pause Request 0x33, \
Retransmit Request 0x55.";

pub const CRC_NOTE: &str = "Verification code: CRC-12 (init 0, MSB first, no reflection, no xorout) of the (P+8)-bit message \
{payload, 5'b0, syn[1], meta} as on the line (after scrambling; byte 0 = {5'b0, syn[1], meta} first), XOR {0, frame ID}. \
For a data frame that is CRC12(meta, payload); syn[1] makes a data/control SYN swap a detected error. The leading zeros do not \
change a zero-initialised CRC, so the code protects the F-1 contiguous bits {syn[1], meta, payload, vcode}.";

pub fn crc(p: &Params, design: &DesignInfo, n: &Names) -> GeneratedModule {
    let w = p.crc_msg_bits() as u32;
    let ports = vec![Port::input("data", w, "{payload, 5'b0, syn[1], meta} as on the line"), Port::output("crc", 12, "CRC-12 of data")];
    let mut items = vec![Item::comment("crc = M·data over GF(2): one masked parity per bit.")];
    let map = crc_algo(p.crc_poly).affine(p.crc_msg_bits(), 0);
    affine(&mut items, "crc", "data", &map);
    items.push(super::codec_props::crc(p));
    let _ = design;
    GeneratedModule {
        module: Module { name: n.crc.clone(), ports, items, reset: None },
        latency: 0,
        summary: format!("CRC-12 (poly 0x{:03X}) of the {w}-bit RIFL verification message, combinational.", p.crc_poly),
        notes: vec![CRC_NOTE.into()],
        role: Role::FrameCrc,
        origin: None,
    }
}

/// `data` of the CRC module from a frame's SYN and line region `{meta, payload}`:
/// `{payload, 5'b0, syn[1], meta}`.
pub(super) fn crc_feed(p: &Params, syn1: Expr, line: &str) -> Expr {
    let pb = p.payload_bits() as u32;
    cat(vec![Expr::slice(line, pb - 1, 0), zeros(5), syn1, Expr::slice(line, pb + 1, pb)])
}

pub fn encode(p: &Params, n: &Names) -> GeneratedModule {
    let (f, r, ib) = (p.frame_bits, p.raw_bits() as u32, p.frame_id_bits);
    let ports = vec![
        Port::input("syn", 2, "2'b01 data frame, 2'b10 control frame"),
        Port::input("line", r, "{meta, payload} as sent (scrambled)"),
        Port::input("id", ib, "frame ID folded into the verification code"),
        Port::output("frame", f, "{vcode, line, syn}"),
    ];
    let mut items = Vec::new();
    items.push(Item::wire("crc", 12, "CRC-12 of {payload, 5'b0, syn[1], meta}"));
    items.push(Item::Instance { module: n.crc.clone(), name: "u_crc".into(), conns: vec![("data".into(), crc_feed(p, Expr::bit("syn", 1), "line")), ("crc".into(), id("crc"))] });
    let idx = if ib == 12 { id("id") } else { cat(vec![zeros(12 - ib), id("id")]) };
    items.push(Item::assign(id("frame"), cat(vec![Expr::xor(id("crc"), idx), id("line"), id("syn")])));
    items.push(super::codec_props::encode(p));
    GeneratedModule {
        module: Module { name: n.encode.clone(), ports, items, reset: None },
        latency: 0,
        summary: "Assembles a RIFL frame: SYN, the (scrambled) raw region and the verification code CRC12 ^ frame ID.".into(),
        notes: vec![LAYOUT_NOTE.into(), CRC_NOTE.into()],
        role: Role::FrameEncode,
        origin: None,
    }
}

pub fn check(p: &Params, n: &Names) -> GeneratedModule {
    let (f, ib) = (p.frame_bits, p.frame_id_bits);
    let pb = p.payload_bits() as u32;
    let ports = vec![
        Port::input("frame", f, "received frame"),
        Port::input("id", ib, "the receiver's expected frame ID"),
        Port::output("legal", 1, "SYN is 01 or 10"),
        Port::output("ok", 1, "legal SYN and vcode == CRC12 ^ id"),
    ];
    let mut items = Vec::new();
    wire(&mut items, "line", pb + 2, "{payload, meta} as received", Expr::slice("frame", pb + 3, 2));
    items.push(Item::wire("crc", 12, "CRC-12 of {payload, 5'b0, syn[1], meta}"));
    items.push(Item::Instance { module: n.crc.clone(), name: "u_crc".into(), conns: vec![("data".into(), crc_feed(p, Expr::bit("frame", 1), "line")), ("crc".into(), id("crc"))] });
    let idx = if ib == 12 { id("id") } else { cat(vec![zeros(12 - ib), id("id")]) };
    items.push(Item::assign(id("legal"), Expr::xor(Expr::bit("frame", 1), Expr::bit("frame", 0))));
    items.push(Item::assign(id("ok"), Expr::and(id("legal"), Expr::eq(Expr::slice("frame", f - 1, f - 12), Expr::xor(id("crc"), idx)))));
    items.push(super::codec_props::check(p));
    GeneratedModule {
        module: Module { name: n.check.clone(), ports, items, reset: None },
        latency: 0,
        summary: "Checks a received RIFL frame: SYN legality and the verification code against the expected frame ID.".into(),
        notes: vec![LAYOUT_NOTE.into(), CRC_NOTE.into()],
        role: Role::FrameCheck,
        origin: None,
    }
}

/// Symbolic unrolling of the scrambler (`descramble = false`) or descrambler over one raw
/// region: rows over the columns `{state (33), din (R)}` (din first, as the Verilog vector
/// `{state, din}`), giving `dout` and the next state.
pub fn scrambler_maps(raw_bits: usize, descramble: bool) -> (AffineMap, AffineMap) {
    let cols = raw_bits + 33;
    let state_col = |k: usize| raw_bits + k;
    // y[j] for j >= 0: the line bits (outputs when scrambling, inputs when descrambling).
    let mut y: Vec<BitVec> = Vec::with_capacity(raw_bits);
    let mut out: Vec<BitVec> = Vec::with_capacity(raw_bits);
    let line = |y: &Vec<BitVec>, j: isize| -> BitVec { if j >= 0 { y[j as usize].clone() } else { BitVec::unit(cols, state_col((-1 - j) as usize)) } };
    for j in 0..raw_bits {
        let mut taps = line(&y, j as isize - 13);
        taps.xor_assign(&line(&y, j as isize - 33));
        let x = BitVec::unit(cols, j);
        if descramble {
            let mut o = taps;
            o.xor_assign(&x);
            out.push(o);
            y.push(x);
        } else {
            let mut o = taps;
            o.xor_assign(&x);
            y.push(o.clone());
            out.push(o);
        }
    }
    let next: Vec<BitVec> = (0..33).map(|k| y[raw_bits - 1 - k].clone()).collect();
    let z = |n: usize| BitVec::zeros(n);
    (AffineMap { matrix: BitMatrix::from_rows(cols, out), constant: z(raw_bits) }, AffineMap { matrix: BitMatrix::from_rows(cols, next), constant: z(33) })
}

pub fn scrambler(p: &Params, design: &DesignInfo, n: &Names, descramble: bool) -> GeneratedModule {
    let r = p.raw_bits() as u32;
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("en", 1, "a frame passes: the state advances"),
        Port::input("din", r, if descramble { "line region {meta, payload} as received" } else { "line region {meta, payload}, unscrambled" }),
        Port::output("dout", r, if descramble { "descrambled line region" } else { "scrambled line region, as sent" }),
    ]);
    let mut items = vec![Item::reg("state", 33, "the last 33 line bits: state[k] = y[-1-k]")];
    let state_next: Vec<Expr> = if descramble {
        // x[j] = y[j] ^ y[j-13] ^ y[j-33]: with hist = {din, state[0], .., state[32]} (hist[j+33]
        // = y[j]), three shifted copies of the line XORed as vectors.
        let mut h = vec![Expr::slice("din", r - 14, 0)];
        h.extend((0..33).map(|k| Expr::bit("state", k)));
        wire(&mut items, "hist", r + 20, "{din[R-14:0], state[0], .., state[32]}: hist[j+33] = y[j]", cat(h));
        items.push(Item::comment("dout[j] = y[j] ^ y[j-13] ^ y[j-33]."));
        items.push(Item::assign(id("dout"), Expr::xor(Expr::xor(id("din"), Expr::slice("hist", r + 19, 20)), Expr::slice("hist", r - 1, 0))));
        (0..33).map(|k| Expr::bit("din", r - 1 - k)).collect()
    } else {
        // y[j] = x[j] ^ y[j-13] ^ y[j-33] unrolled over the frame (scrambler_maps): every line
        // bit is a parity of din and the state, at most 57 terms for 242 bits, so shared
        // 6-input XOR trees reach it in ⌈log6 57⌉ = 3 LUT levels. The recurrence written as a
        // chain of 3-input XORs maps to 7 levels in 315 LUT6; the unrolled network takes 745
        // LUT6 with its nodes shared over the whole 275-column input (953 at the default
        // sharing window, which only matters for wiring on flit-wide CRCs).
        let (out_map, _) = scrambler_maps(r as usize, false);
        wire(&mut items, "scr_in", r + 33, "{state, din}: the columns of the unrolled recurrence", cat(vec![id("state"), id("din")]));
        items.push(Item::comment("dout[j] = y[j], a parity of din and the state: 6-input XOR nodes shared between the bits."));
        xor_net::emit(&mut items, &XorNet { name: "scr", input: Columns::One("scr_in"), map: &out_map, style: XorStyle::Lut6Shared { window: usize::MAX } }, "dout", 0);
        (0..33).map(|k| Expr::bit("dout", r - 1 - k)).collect()
    };
    // state_next[k] = y[r-1-k]: bit 32 first in the concatenation.
    items.push(Item::wire("state_next", 33, "the frame's last 33 line bits"));
    items.push(Item::assign(id("state_next"), cat(state_next.into_iter().rev().collect())));
    items.push(Item::AlwaysFf { reset: Some(vec![set_id("state", dec(33, 0))]), body: vec![when(id("en"), vec![set_id("state", id("state_next"))])] });
    items.push(super::codec_props::scrambler(p, descramble));
    let name = if descramble { n.descrambler.clone() } else { n.scrambler.clone() };
    GeneratedModule {
        module: Module { name, ports, items, reset: Some(design.reset) },
        latency: 0,
        summary: if descramble {
            format!("Self-synchronous descrambler 1 + x^13 + x^33 over the {r}-bit line region {{meta, payload}} of each frame: x[j] = y[j] ^ y[j-13] ^ y[j-33].")
        } else {
            format!("Self-synchronous scrambler 1 + x^13 + x^33 over the {r}-bit line region {{meta, payload}} of each frame: y[j] = x[j] ^ y[j-13] ^ y[j-33].")
        },
        notes: vec![
            "Serial order: the wire order, line bit 0 (payload bit 0, frame bit 2) first, ascending, frame after frame; the SYN and the verification code are not scrambled. dout is combinational in din and the state register; the state (the last 33 line bits, reset 0) advances with en.".into(),
        ],
        role: if descramble { Role::Descrambler } else { Role::Scrambler },
        origin: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::rifl::model::scrambler::{descramble_serial, scramble_serial};
    use crate::bits::Bits;

    #[test]
    fn scrambler_matrices_match_the_serial_definition() {
        let r = 114;
        for descramble in [false, true] {
            let (out_map, next_map) = scrambler_maps(r, descramble);
            let mut s = 0x1_5A5A_0F0Fu64;
            for t in 0..20u64 {
                let mut x = Bits::zeros(r);
                for k in 0..r {
                    x.set(k, (t.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(k as u32) >> 7) & 1 == 1);
                }
                let (y, s2) = if descramble { descramble_serial(s, &x) } else { scramble_serial(s, &x) };
                let mut feed = BitVec::zeros(r + 33);
                for k in 0..r {
                    feed.set(k, x.get(k));
                }
                for k in 0..33 {
                    feed.set(r + k, (s >> k) & 1 == 1);
                }
                let o = out_map.apply(&feed);
                for k in 0..r {
                    assert_eq!(o.get(k), y.get(k), "bit {k}");
                }
                assert_eq!(next_map.apply(&feed).to_u128() as u64, s2);
                s = s2;
            }
        }
    }
}
