//! The CRC-32 maps of the interface, as affine maps over GF(2) probed from the model's CRC
//! step (so the networks and the model cannot disagree): the receive CRC register after a beat,
//! the ECRC and LL CRC syndromes of a packet's last beat, and the LL CRC of a packet to send.

use super::super::model::{crc32_step, LL_CRC_XOR};
use crate::hw::build::cat;
use crate::hw::verilog::{Expr, UnOp};
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};

/// The affine map of `f` over `inputs` bits (probed: f is affine over GF(2)).
fn probe(inputs: usize, f: impl Fn(&BitVec) -> u32) -> AffineMap {
    let c = f(&BitVec::zeros(inputs));
    let mut rows = vec![BitVec::zeros(inputs); 32];
    for k in 0..inputs {
        let v = f(&BitVec::unit(inputs, k)) ^ c;
        for (r, row) in rows.iter_mut().enumerate() {
            if v >> r & 1 == 1 {
                row.set(k, true);
            }
        }
    }
    AffineMap { matrix: BitMatrix::from_rows(inputs, rows), constant: BitVec::from_u128(32, c as u128) }
}

fn bytes_of(v: &BitVec, lo_bit: usize, n: usize) -> Vec<u8> {
    (0..n).map(|i| (0..8).fold(0u8, |b, j| b | (v.get(lo_bit + 8 * i + j) as u8) << j)).collect()
}

fn reg_of(v: &BitVec) -> u32 {
    (0..32).fold(0u32, |r, k| r | (v.get(k) as u32) << k)
}

/// `{beat (bytes bytes), CRC register (32 bits)}` -> the CRC register after the beat.
pub fn beat_map(bytes: usize) -> AffineMap {
    probe(32 + 8 * bytes, |v| crc32_step(reg_of(v), &bytes_of(v, 32, bytes)))
}

/// 12 bytes -> their LL CRC (bytes 12-15 of a link-local packet).
pub fn ll_crc_map() -> AffineMap {
    probe(96, |v| !crc32_step(0xFFFF_FFFF, &bytes_of(v, 0, 12)) ^ LL_CRC_XOR)
}

/// `{beat (bytes bytes), CRC register before it (32 bits)}` -> the ECRC syndrome of a last
/// beat: the CRC of the packet up to its last 4 bytes XOR those 4 bytes (zero: the ECRC passes).
pub fn ecrc_syndrome_map(bytes: usize) -> AffineMap {
    probe(32 + 8 * bytes, |v| {
        let b = bytes_of(v, 32, bytes);
        !crc32_step(reg_of(v), &b[..bytes - 4]) ^ u32::from_le_bytes([b[bytes - 4], b[bytes - 3], b[bytes - 2], b[bytes - 1]])
    })
}

/// 16 bytes -> the LL CRC syndrome: the LL CRC of bytes 0-11 XOR bytes 12-15 (zero: it passes).
pub fn ll_syndrome_map() -> AffineMap {
    probe(128, |v| {
        let b = bytes_of(v, 0, 16);
        !crc32_step(0xFFFF_FFFF, &b[..12]) ^ LL_CRC_XOR ^ u32::from_le_bytes([b[12], b[13], b[14], b[15]])
    })
}

/// Syndrome bits OR-ed in groups of six (one LUT each) before they are registered.
const SYN_GROUP: u32 = 6;

/// Width of a registered syndrome flag vector.
pub fn syndrome_groups() -> u32 {
    32_u32.div_ceil(SYN_GROUP)
}

/// The 32-bit syndrome `syn` OR-ed in groups of six: zero iff the syndrome is.
pub fn group_or(syn: &str) -> Expr {
    let parts = (0..syndrome_groups())
        .rev()
        .map(|g| {
            let lo = g * SYN_GROUP;
            Expr::red(UnOp::RedOr, Expr::slice(syn, (lo + SYN_GROUP - 1).min(31), lo))
        })
        .collect();
    cat(parts)
}
