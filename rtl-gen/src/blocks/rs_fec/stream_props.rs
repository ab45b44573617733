//! Properties of the streaming `rs_fec` modules (`symbols_per_cycle` < N).
//!
//! Both modules: the AXI4-Stream hold rule on the output port (`p_out_stable`: once `out_tvalid`
//! is high and `out_tready` low, the next cycle keeps `out_tvalid` and the payload, the
//! decoder's per-codeword `out_corrected` and `out_uncorrectable` with it), assumed of the
//! sender on the input port (`a_in_stable`). Proven by SymbiYosys (k-induction).
//!
//! Encoder: the divider's step against the generator's roots, not the LFSR division the
//! generator probes (the model's `encode_step`). A remainder R of degree < 2t is fixed by its
//! values at the 2t roots r_j = α^(fcr+j) (their Vandermonde matrix is invertible), and the
//! remainder after a beat b of L message symbols, R' = (R·x^L + b·x^2t) mod g, takes the values
//! R'(r_j) = R(r_j)·r_j^L + b(r_j)·r_j^2t there (g(r_j) = 0). The RTL computes R' in two stages,
//! so the step is stated as two assertions, with the state `state` and the input stage's
//! registered contribution `s1_part` free registers (every value, reachable or not):
//!
//! - `p_part_ref` (and `p_part_end_ref` for the last message beat's L < P lanes): the input
//!   stage's network, from a zero state: part(r_j) = b(r_j)·r_j^2t;
//! - `p_step_ref` (and `p_step_end_ref`): the register loop: rem(r_j) = state(r_j)·r_j^L +
//!   s1_part(r_j).
//!
//! `s1_part` loads the contribution of the beat `s1_data` loads, both on `accept`, so the two
//! compose to R'(r_j) = R(r_j)·r_j^L + b(r_j)·r_j^2t: the state after every message beat is the
//! model's. All four are affine in the free registers and `in_tdata`: GF(2) evaluation, with
//! the hold rule left to SymbiYosys ([`Formal::sequential`]).

use super::model::pack_symbols;
use super::model::stream::last_message_beat;
use super::RsFecBlock;
use crate::hw::props::Formal;
use crate::hw::verilog::{Expr, Item};
use crate::info::ResetStyle;
use crate::math::gf2::BitVec;
use crate::math::gf2m::get_bit;

/// Rows (one per output bit, over the `ins`·m input bits) of the GF(2)-linear map `f` between
/// symbol vectors, probed on unit vectors.
fn linear_rows(m: u32, ins: usize, outs: usize, f: impl Fn(&[u16]) -> Vec<u16>) -> Vec<BitVec> {
    let mut rows = vec![BitVec::zeros(ins * m as usize); outs * m as usize];
    for k in 0..ins * m as usize {
        let mut x = vec![0u16; ins];
        x[k / m as usize] = 1 << (k % m as usize);
        let y = pack_symbols(&f(&x), m);
        for (o, row) in rows.iter_mut().enumerate() {
            if get_bit(&y, o) {
                row.set(k, true);
            }
        }
    }
    rows
}

/// One flat masked parity of `of` per row, the last row the MSB.
fn parities(of: &str, rows: &[BitVec]) -> Expr {
    Expr::Concat(rows.iter().rev().map(|r| if r.is_zero() { Expr::dec(1, 0) } else { Expr::parity(Expr::id(of), r.clone(), false) }).collect())
}

/// The encoder's properties; `None` for a whole-codeword encoder.
pub fn encoder(b: &RsFecBlock, reset: ResetStyle) -> Option<Item> {
    b.stream?;
    let code = b.stream_code();
    let f = code.field().clone();
    let (p, k, m) = (code.p, code.code.k(), b.symbol_bits);
    let nr = 2 * code.t();
    let roots: Vec<u16> = (0..nr).map(|j| f.alpha(i64::from(b.fcr) + j as i64)).collect();
    // A polynomial of `len` coefficients (highest degree first) at every root, times r_j^shift.
    let at_roots = move |v: &[u16], shift: usize| -> Vec<u16> { roots.iter().map(|&r| f.mul(f.poly_eval(v, r), f.pow(r, shift as i64))).collect() };
    let end_lanes = k - last_message_beat(&code) * p;
    let mut fm = Formal::clocked(reset);
    fm.free_registers.extend(["state".into(), "s1_part".into()]);
    let mut lanes = vec![("", p)];
    if end_lanes < p {
        lanes.push(("_end", end_lanes));
    }
    for (suffix, l) in lanes {
        // The input stage: the beat's first l lanes from a zero state.
        let at = at_roots.clone();
        let beat = linear_rows(m, p, nr, move |x| at(&x[..l], nr));
        let part = linear_rows(m, nr, nr, |x| at_roots(x, 0));
        let wire = if suffix.is_empty() { "part_full" } else { "part_end" };
        fm.assert(
            &format!("p_part{suffix}_ref"),
            &format!("{wire} at the generator's roots is the beat's first {l} symbols times x^{nr} there"),
            None,
            Expr::eq(parities(wire, &part), parities("in_tdata", &beat)),
        );
        // The loop: {state, s1_part} (s1_part the low symbols).
        let at = at_roots.clone();
        let step = linear_rows(m, 2 * nr, nr, move |x| at(&x[nr..], l).iter().zip(at(&x[..nr], 0)).map(|(a, b)| a ^ b).collect());
        let rem = if suffix.is_empty() { "rem_full" } else { "rem_end" };
        fm.assert(
            &format!("p_step{suffix}_ref"),
            &format!("{rem} at the generator's roots is the state there times x^{l} plus s1_part there"),
            None,
            Expr::eq(parities(rem, &part), parities("loop_in", &step)),
        );
    }
    let dw = p as u32 * m;
    fm.stream_in(reset, "in", &[("tdata", dw), ("tlast", 1)]);
    fm.stream_out(reset, "out", &[("tdata", dw), ("tlast", 1)], None);
    fm.sequential.push("p_out_stable".into());
    Some(Item::Formal(fm))
}

/// The decoder's properties: the hold rule on its output port.
pub fn decoder(b: &RsFecBlock, reset: ResetStyle, count_bits: u32) -> Item {
    let dw = b.stream.map_or(0, |s| s.symbols_per_cycle) * b.symbol_bits;
    let mut fm = Formal::clocked(reset);
    fm.stream_in(reset, "in", &[("tdata", dw), ("tlast", 1)]);
    fm.stream_out(reset, "out", &[("tdata", dw), ("tlast", 1), ("corrected", count_bits), ("uncorrectable", 1)], None);
    Item::Formal(fm)
}
