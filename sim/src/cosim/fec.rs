//! Reed-Solomon encoders and decoders (`rs_fec`, and the ones inside endpoints and switches).
//! Encoder: corner messages (zeros, ones) and random ones; `cw` compared with the model.
//! Decoder, the faults it exists for: codewords from the model's encoder with 0..=t+1 symbol
//! errors in random ways and positions (beyond t the model's miscorrection or detection is
//! the expected behaviour, bit for bit), plus corner codewords (all zeros, all ones); `msg`,
//! `corrected`, `uncorrectable` and the per-way flags compared.

use super::vectors::{run, Vector};
use super::{Options, Tally};
use crate::{Bench, Bits, SimError, TestRng};
use rtl_gen::blocks::rs_fec::model::FlitFec;
use rtl_gen::blocks::rs_fec::{RsFecBlock, RsFecEncParams, RsFecParams};
use rtl_gen::elab::ElabModule;
use rtl_gen::hw::module::Role;

fn random_message(rng: &mut TestRng, b: &RsFecBlock) -> Vec<u8> {
    rng.bits(b.msg_bits() as usize).to_bytes()
}

/// XOR a nonzero `m`-bit error into symbol `index` of a packed codeword.
fn hit(cw: &mut [u8], m: u32, index: usize, error: u64) {
    for bit in 0..m as usize {
        if error >> bit & 1 == 1 {
            let k = index * m as usize + bit;
            cw[k / 8] ^= 1 << (k % 8);
        }
    }
}

fn flags(v: &[bool]) -> Bits {
    let mut b = Bits::zeros(v.len());
    for (i, f) in v.iter().enumerate() {
        b.set(i, *f);
    }
    b
}

/// An `rs_fec` block whose encoder or decoder (by `m`'s role) is module `m`, built from the
/// parameters the module carries: an encoder's code and stages, a decoder's code, stages and
/// streaming settings (for an endpoint's or a switch's FEC the sub-block's).
pub fn block(m: &ElabModule) -> Result<RsFecBlock, SimError> {
    let block = match m.role {
        Role::FecEnc => super::kind_params::<RsFecEncParams>(m)?.block("model"),
        _ => super::kind_params::<RsFecParams>(m)?.block("model"),
    };
    block.map_err(|e| super::design_error(m, e))
}

pub fn encoder(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = &super::fec::block(m)?;
    if b.stream.is_some() {
        return super::fec_stream::encoder(bench, m, opts, rng);
    }
    let model = b.model();
    let (mb, cb) = (b.msg_bits() as usize, b.cw_bits() as usize);
    let mut msgs = vec![Bits::zeros(mb).to_bytes(), Bits::ones(mb).to_bytes()];
    msgs.extend((0..opts.vectors).map(|_| random_message(rng, b)));
    let vectors = msgs.into_iter().map(|msg| Vector {
        outputs: vec![("cw", Bits::from_bytes_width(&model.encode(&msg), cb))],
        inputs: vec![("msg", Bits::from_bytes_width(&msg, mb))],
    });
    run(bench, m, vectors, rng)
}

pub fn decoder(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = &super::fec::block(m)?;
    if b.stream.is_some() {
        return super::fec_stream::decoder(bench, m, opts, rng);
    }
    let model = b.model();
    let (mb, cb) = (b.msg_bits() as usize, b.cw_bits() as usize);
    let sym = b.symbol_bits;
    let symbols = b.cw_symbols() as usize;
    let ways = b.ways as usize;
    let t = b.t() as u64;
    let mut cws = vec![Bits::zeros(cb).to_bytes(), Bits::ones(cb).to_bytes(), model.encode(&Bits::zeros(mb).to_bytes())];
    let by_way: Vec<Vec<usize>> = (0..ways).map(|w| (0..symbols).filter(|&i| model.way_of(i) == w).collect()).collect();
    for _ in 0..opts.vectors {
        let mut cw = model.encode(&random_message(rng, b));
        // Per codeword: errors in 0..=t+1 symbols of one random way (sometimes more ways).
        let errors = rng.range(0, t + 1);
        let way = rng.range(0, ways as u64 - 1) as usize;
        for _ in 0..errors {
            // Mostly inside the chosen way (up to t + 1 there), now and then anywhere.
            let i = if rng.chance(0.9) {
                let in_way = &by_way[way];
                in_way[rng.range(0, in_way.len() as u64 - 1) as usize]
            } else {
                rng.range(0, symbols as u64 - 1) as usize
            };
            hit(&mut cw, sym, i, rng.range(1, (1u64 << sym) - 1));
        }
        cws.push(cw);
    }
    let vectors = cws.into_iter().map(|cw| {
        let d = model.decode(&cw);
        Vector {
            inputs: vec![("cw", Bits::from_bytes_width(&cw, cb))],
            outputs: vec![
                ("msg", Bits::from_bytes_width(&d.msg, mb)),
                ("corrected", Bits::from_u64(d.status.corrected as u64, 1)),
                ("uncorrectable", Bits::from_u64(d.status.uncorrectable as u64, 1)),
                ("way_corrected", flags(&d.status.way_corrected)),
                ("way_uncorrectable", flags(&d.status.way_uncorrectable)),
            ],
        }
    });
    run(bench, m, vectors, rng)
}
