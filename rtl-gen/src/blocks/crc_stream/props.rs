//! Properties of the `crc_stream` module against the table-driven CRC model ([`CrcModel`]),
//! never the register matrices the generator unrolls and inverts:
//!
//! - `p_step_ref`: the loop's next register is the model's register after the beat, started
//!   from the register the beat continues from: `state_next` equals one flat masked parity per
//!   bit over `feed` = {beat, state_in}, column k the model's `update` of the unit vector e_k
//!   (the step is linear: a zero register fed zero bytes stays zero). `feed` is a free wire of
//!   the evaluation: the byte mask (`in_data` AND `in_keep`) and the start-of-message select
//!   (`in_first ? INIT : state`) are not affine in the ports, so the step is proven for every
//!   value fed, which covers the one the mask and the select give;
//! - `p_crc_ref`: the output stages turn the finished register back into the message's CRC:
//!   the model's `update` of the CRC's register (un-reflected, xorout removed) by `pad` zero
//!   bytes gives back the padded register stage 1 captured, its latency − 1 cycles earlier.
//!   The model runs forwards only (feeding zero bytes, one conditional multiplication by
//!   x^(8·2^j) per pad bit j), where the generator divides by x^(8·2^j) with inverted matrices;
//!   x^8 is invertible modulo the polynomial, so the register that gives back the padded one is
//!   unique and `crc` is the model's CRC of the message without its pad. Stage 1's registers are
//!   free (they load only with the last beat, so they are no plain delays) and the pad bits are
//!   the cut, enumerated: the stages after it are plain registers, read as delays.
//!
//! - `p_pad`: for every legal `in_keep`, `pad` is the number of bytes not kept (by SAT: a
//!   comparison with a sum of the keep bits is not affine).
//!
//! Together with the loop register loading `state_next` on every valid beat, `state_in`
//! selecting `INIT` on a first beat and stage 1 capturing `state_next` and `pad` with the last,
//! the two say `crc` is the model's CRC of every message.

use super::CrcStreamBlock;
use crate::blocks::crc::model::CrcModel;
use crate::hw::build::{add, and, bits_for, dec, eq, id, sub};
use crate::hw::props::Formal;
use crate::hw::verilog::{Expr, Item};
use crate::math::gf2::BitVec;
use crate::math::lfsr::mask;

/// Bit `i` of a `width`-bit signal (the signal itself when it is one bit wide).
fn bit(name: &str, width: u32, i: u32) -> Expr {
    if width == 1 {
        Expr::id(name)
    } else {
        Expr::bit(name, i)
    }
}

/// The `w`-bit register (right-aligned) after the model feeds `bytes` into register `reg`.
fn update(model: &CrcModel, w: u32, reg: u64, bytes: &[u8]) -> u64 {
    (model.update(reg << (64 - w), bytes) >> (64 - w)) & mask(w)
}

/// Rows of the linear map `columns` gives (column k = the image of input bit k): row i masks
/// the inputs output bit i reads.
fn rows_of(w: u32, columns: &[u64]) -> Vec<BitVec> {
    (0..w).map(|i| {
        let mut row = BitVec::zeros(columns.len());
        for (k, col) in columns.iter().enumerate() {
            if (col >> i) & 1 == 1 {
                row.set(k, true);
            }
        }
        row
    }).collect()
}

/// The step reference: register after one beat as a function of `feed` = {beat, state_in}
/// (columns 0..w the register, then the beat's bits, byte i at w + 8i).
pub fn step_rows(b: &CrcStreamBlock) -> Vec<BitVec> {
    let model = CrcModel::new(b.algo);
    let (w, wb) = (b.algo.width, b.word_bytes as usize);
    let zeros = vec![0u8; wb];
    let mut columns: Vec<u64> = (0..w).map(|k| update(&model, w, 1 << k, &zeros)).collect();
    for k in 0..8 * wb {
        let mut beat = zeros.clone();
        beat[k / 8] = 1 << (k % 8);
        columns.push(update(&model, w, 0, &beat));
    }
    rows_of(w, &columns)
}

/// Rows of the model's register after `n` zero bytes as a function of the register before.
pub fn zero_bytes_rows(b: &CrcStreamBlock, n: usize) -> Vec<BitVec> {
    let model = CrcModel::new(b.algo);
    let w = b.algo.width;
    let columns: Vec<u64> = (0..w).map(|k| update(&model, w, 1 << k, &vec![0u8; n])).collect();
    rows_of(w, &columns)
}

/// `rows` applied to `input`, one flat masked parity per bit (MSB first).
fn apply(input: &str, rows: &[BitVec]) -> Expr {
    let bits: Vec<Expr> = rows.iter().rev().map(|r| Expr::parity(Expr::id(input), r.clone(), false)).collect();
    if bits.len() == 1 {
        bits.into_iter().next().expect("one bit")
    } else {
        Expr::Concat(bits)
    }
}

/// `p_pad`: for every legal `in_keep` (contiguous from byte 0, at least byte 0), `pad` is the
/// number of bytes not kept: word_bytes minus the kept bytes counted one by one (the generator
/// reads it as parities of the thermometer code).
fn pad_count(f: &mut Formal, b: &CrcStreamBlock) {
    let wb = b.word_bytes;
    let keep_bit = |i: u32| bit("in_keep", wb, i);
    let legal = and(keep_bit(0), eq(Expr::and(id("in_keep"), add(id("in_keep"), dec(wb, 1))), dec(wb, 0)));
    let kept = (1..wb).fold(keep_bit(0), |sum, i| add(sum, keep_bit(i)));
    let count_bits = bits_for(wb as u64);
    f.assert("p_pad", "for a legal in_keep, pad is the number of bytes not kept", Some(legal), eq(id("pad"), sub(dec(count_bits, wb as u64), kept)));
}

/// The module's properties, pushed last.
pub fn properties(b: &CrcStreamBlock) -> Item {
    let (w, steps) = (b.algo.width, b.unshift_steps());
    let mut f = Formal::retimed();
    f.free_wires.push("feed".into());
    f.items.push(Item::wire("f_ref_step", w, "reference: the model's register after the beat, from feed"));
    f.items.push(Item::assign(Expr::id("f_ref_step"), apply("feed", &step_rows(b))));
    f.assert("p_step_ref", "the loop steps the register as the model feeds the masked beat to the register it continues from", None, Expr::eq(Expr::id("state_next"), Expr::id("f_ref_step")));

    // The output stages: from the CRC back to the register, then forwards by the pad.
    f.free_registers.push("s1_state".into());
    let behind = b.latency() - 1;
    let captured = f.delayed("s1_state", w, Expr::id("s1_state"), behind);
    f.items.push(Item::wire("f_crc_reg", w, "the register the CRC finishes (xorout removed, reflection undone)"));
    let out = if b.algo.xorout != 0 { Expr::xor(Expr::id("crc"), Expr::Const(BitVec::from_u128(w as usize, b.algo.xorout as u128))) } else { Expr::id("crc") };
    f.items.push(Item::wire("f_crc_out", w, "crc without xorout"));
    f.items.push(Item::assign(Expr::id("f_crc_out"), out));
    let reg_bits: Vec<Expr> = (0..w).rev().map(|i| bit("f_crc_out", w, if b.algo.refout { w - 1 - i } else { i })).collect();
    f.items.push(Item::assign(Expr::id("f_crc_reg"), if w == 1 { Expr::id("f_crc_out") } else { Expr::Concat(reg_bits) }));
    let mut value = "f_crc_reg".to_string();
    if steps > 0 {
        pad_count(&mut f, b);
        f.free_registers.push("s1_pad".into());
        f.cut_points.push("s1_pad".into());
        let pad = f.delayed("s1_pad", steps, Expr::id("s1_pad"), behind);
        let Expr::Ident(pad) = pad else { unreachable!("a delay is a register") };
        for j in 0..steps {
            let next = format!("f_repad{j}");
            f.items.push(Item::wire(&next, w, &format!("the model's register after {} more zero bytes where pad[{j}] is set", 1u64 << j)));
            let fed = apply(&value, &zero_bytes_rows(b, 1 << j));
            f.items.push(Item::assign(Expr::id(&next), Expr::mux(bit(&pad, steps, j), fed, Expr::id(&value))));
            value = next;
        }
    }
    f.assert(
        "p_crc_ref",
        "the CRC's register fed the pad's zero bytes by the model is the padded register of the message, its latency - 1 cycles earlier",
        None,
        Expr::eq(Expr::id(&value), captured),
    );
    Item::Formal(f)
}
