//! Properties of the `crc` generator: the emitted network equals a reference netlist built
//! independently of it, from the table-driven model ([`CrcModel`]) rather than from the GF(2)
//! matrix the generator shares and splits into XOR nodes. Column `k` of the reference is
//! `CRC(e_k) ^ CRC(0)` for the unit message `e_k`, the constant is `CRC(0)`: a CRC is affine over
//! GF(2), so these `n + 1` model evaluations define it on every message. Each reference bit is
//! one flat masked parity; `rtl-gen formal` proves `crc == f_ref_crc` for every input, and the
//! checker's syndrome equal to `f_ref_crc ^ crc_in` with `ok` its zero test. A pipelined
//! generator is proven the same way with its delay registers read as delays, against the
//! reference of the input its latency earlier (the checker's zero test after its registered
//! syndrome with that register as the cut).

use super::model::CrcModel;
use super::CrcBlock;
use crate::hw::props::Formal;
use crate::hw::verilog::{Expr, Item};
use crate::math::gf2::BitVec;

/// The reference columns and constant: `(rows[j]` = mask of the inputs output bit `j` reads,
/// `constant)`, inputs ordered as the Verilog vector `{seq, data}`.
pub fn reference(b: &CrcBlock) -> (Vec<BitVec>, u64) {
    let model = CrcModel::new(b.algorithm);
    let (n, s) = (b.data_bits as usize, b.seq_bits);
    let zero = BitVec::zeros(n);
    let c0 = model.of_bits(&zero, 0, s);
    let mut rows = vec![BitVec::zeros(n + s as usize); b.algorithm.width as usize];
    let columns = (0..n).map(|k| model.of_bits(&BitVec::unit(n, k), 0, s)).chain((0..s).map(|j| model.of_bits(&zero, 1 << j, s)));
    for (k, crc) in columns.enumerate() {
        let col = crc ^ c0;
        for (j, row) in rows.iter_mut().enumerate() {
            if (col >> j) & 1 == 1 {
                row.set(k, true);
            }
        }
    }
    (rows, c0)
}

/// A property block holding `f_ref_crc`: the reference CRC of the module's input (`{seq, data}`
/// with an ISN), one flat masked parity per CRC bit from the table-driven model. Pipelined, the
/// input is delayed by the latency through shadow registers and the registers of the network
/// are read as delays ([`Formal::retimed`]).
fn with_reference_crc(b: &CrcBlock) -> Formal {
    let (rows, c0) = reference(b);
    let input = if b.seq_bits > 0 { Expr::Concat(vec![Expr::id("seq"), Expr::id("data")]) } else { Expr::id("data") };
    let mut f = if b.pipeline > 0 { Formal::retimed() } else { Formal::combinational() };
    let input = f.delayed("in", b.data_bits + b.seq_bits, input, b.pipeline);
    f.items.push(Item::wire("f_ref_crc", b.algorithm.width, "reference: one flat masked parity per CRC bit, from the table-driven model"));
    let bits = (0..b.algorithm.width as usize).rev().map(|j| Expr::parity(input.clone(), rows[j].clone(), (c0 >> j) & 1 == 1)).collect();
    f.items.push(Item::assign(Expr::id("f_ref_crc"), Expr::Concat(bits)));
    f
}

/// The generator's properties: `crc` is the reference CRC of the message (pipelined: of the
/// message `pipeline` cycles earlier, in every cycle once the pipeline has filled).
pub fn generator(b: &CrcBlock) -> Option<Item> {
    let mut f = with_reference_crc(b);
    let doc = if b.pipeline > 0 { "the pipelined XOR network computes the model's CRC of every message, its latency later" } else { "the shared XOR network computes the model's CRC of every message" };
    f.assert("p_crc_ref", doc, None, Expr::eq(Expr::id("crc"), Expr::id("f_ref_crc")));
    Some(Item::Formal(f))
}

/// The checker's properties: `p_syndrome_ref` (GF(2)): the checker's syndrome is the
/// reference CRC of the message XOR `crc_in`; `p_ok`: `ok` is 1 exactly when that syndrome is
/// zero, proven with the syndrome as a cut point (SAT never sees the XOR network). Together:
/// `ok` = 1 iff `crc_in` equals the model's CRC of the message. Pipelined, the syndrome is the
/// network's output register `syndrome_q`, compared with the reference of the inputs its
/// latency earlier, and the zero test after it is proven with that register as the cut.
pub fn checker(b: &CrcBlock) -> Option<Item> {
    let mut f = with_reference_crc(b);
    let syndrome = if b.pipeline > 0 { "syndrome_q" } else { "syndrome" };
    let crc_in = f.delayed("crc_in", b.algorithm.width, Expr::id("crc_in"), b.pipeline);
    f.assert("p_syndrome_ref", "the syndrome is the model's CRC of the message XOR crc_in", None, Expr::eq(Expr::id(syndrome), Expr::xor(Expr::id("f_ref_crc"), crc_in)));
    f.cut_points.push(syndrome.into());
    f.assert("p_ok", "ok is 1 exactly when the syndrome is zero", None, Expr::eq(Expr::id("ok"), Expr::eq(Expr::id(syndrome), Expr::dec(b.algorithm.width, 0))));
    Some(Item::Formal(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::lfsr::mask;

    #[test]
    fn the_reference_matrix_is_the_generators_affine_map() {
        // Two derivations of one function must agree; the proof then checks the emitted netlist.
        let algo = super::super::model::CrcAlgo { width: 32, poly: 0x04C1_1DB7, init: 0xFFFF_FFFF, refin: true, refout: true, xorout: 0xFFFF_FFFF };
        let params = super::super::CrcParams { algo: super::super::AlgoParams::of(&algo), data_bits: 72, seq_bits: 0, pipeline: 0, checker: false, xor_style: super::super::XorStyleName::Masked, xor_window: None };
        let b = params.block("c").expect("a valid crc block");
        let (rows, c0) = reference(&b);
        let map = algo.affine(72, 0);
        for (j, row) in rows.iter().enumerate() {
            assert_eq!(row, map.matrix.row(j), "bit {j}");
        }
        assert_eq!(c0 & mask(32), map.constant.to_u128() as u64);
    }
}
