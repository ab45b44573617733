//! The R-CRC as affine maps over GF(2), probed from the reference model's byte steps: a whole
//! beat into the register, and the last eight bytes that finish it.

use crate::blocks::crc::model::CrcModel;
use crate::blocks::sue_transport::model::{crc_last8, crc_step};
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};

/// The affine map of `f` over `n_in` input bits (bit j of the Verilog vector `{reg, data}`):
/// probed with unit vectors, since a CRC step is affine over GF(2).
fn probe(n_in: usize, f: impl Fn(&BitVec) -> u32) -> AffineMap {
    let c = f(&BitVec::zeros(n_in));
    let cols: Vec<u32> = (0..n_in)
        .map(|j| {
            let mut e = BitVec::zeros(n_in);
            e.set(j, true);
            f(&e) ^ c
        })
        .collect();
    let rows: Vec<BitVec> = (0..32)
        .map(|r| {
            let mut row = BitVec::zeros(n_in);
            for (j, col) in cols.iter().enumerate() {
                if (col >> r) & 1 == 1 {
                    row.set(j, true);
                }
            }
            row
        })
        .collect();
    let mut constant = BitVec::zeros(32);
    for r in 0..32 {
        constant.set(r, (c >> r) & 1 == 1);
    }
    AffineMap {
        matrix: BitMatrix::from_rows(n_in, rows),
        constant,
    }
}

/// Split `{reg[31:0], data[8·nbytes-1:0]}` into (reg, data bytes).
fn split(x: &BitVec, nbytes: usize) -> (u32, Vec<u8>) {
    let mut bytes = vec![0u8; nbytes];
    for (i, b) in bytes.iter_mut().enumerate() {
        for j in 0..8 {
            if x.get(8 * i + j) {
                *b |= 1 << j;
            }
        }
    }
    let mut reg = 0u32;
    for j in 0..32 {
        if x.get(8 * nbytes + j) {
            reg |= 1 << j;
        }
    }
    (reg, bytes)
}

/// The CRC register after one whole beat of `nbytes` bytes.
pub(super) fn step_map(m: &CrcModel, nbytes: usize) -> AffineMap {
    probe(8 * nbytes + 32, |x| {
        let (r, d) = split(x, nbytes);
        crc_step(m, r, &d)
    })
}

/// The R-CRC after the last eight bytes.
pub(super) fn last8_map(m: &CrcModel) -> AffineMap {
    probe(96, |x| {
        let (r, d) = split(x, 8);
        crc_last8(m, r, &d)
    })
}
