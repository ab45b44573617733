//! CRC generators and checkers (`crc`, `rs_crc`) and the streaming CRC (`crc_stream`).
//! Stimulus: corner messages (all zeros, all ones, a walking one over every bit, the
//! catalogue message "123456789" where it fits), random messages and sequence numbers, for
//! checkers a CRC with one flipped bit half of the time (the fault a checker exists to catch),
//! and for a CRC with a short sequence number every value of it, the checker rejecting every
//! wrong expected one.

use super::vectors::{run, Vector};
use super::{Options, Tally};
use crate::{Bench, Bits, SimError, TestRng};
use rtl_gen::blocks::crc::{CrcBlock, CrcParams};
use rtl_gen::blocks::crc_stream::CrcStreamParams;
use rtl_gen::blocks::rs_crc::{RsCrcBlock, RsCrcParams};
use rtl_gen::elab::ElabModule;

/// Corner messages of `bits` bits, then `random` random ones.
fn messages(bits: usize, random: u64, rng: &mut TestRng) -> Vec<Bits> {
    let mut v = vec![Bits::zeros(bits), Bits::ones(bits)];
    for i in 0..bits {
        let mut w = Bits::zeros(bits);
        w.set(i, true);
        v.push(w);
    }
    if bits == 72 {
        v.push(Bits::from_bytes(b"123456789"));
    }
    v.extend((0..random).map(|_| rng.bits(bits)));
    v
}

fn seq_of(seq_bits: u32, rng: &mut TestRng) -> u64 {
    if seq_bits == 0 {
        0
    } else {
        rng.range(0, (1u64 << seq_bits) - 1)
    }
}

/// Flip one random bit of `v` with probability 1/2; returns whether it did.
fn maybe_flip(v: &mut Bits, rng: &mut TestRng) -> bool {
    let flip = rng.chance(0.5);
    if flip {
        let k = rng.range(0, v.width() as u64 - 1) as usize;
        v.set(k, !v.get(k));
    }
    flip
}

/// Sequence numbers of at most this many bits are swept exhaustively.
const SWEPT_SEQ_BITS: u32 = 10;

/// Every sequence number on two fixed payloads (all zeros, all ones) and two random ones: the
/// generator's CRC of each; the checker given each payload's CRC under one random sequence
/// number must accept exactly that one and reject every other expected seq (the fault ISN
/// exists to catch: a flit replayed or skipped).
fn isn_sweep(b: &CrcBlock, checker: bool, rng: &mut TestRng) -> Vec<Vector> {
    if b.seq_bits == 0 || b.seq_bits > SWEPT_SEQ_BITS {
        return Vec::new();
    }
    let model = b.model();
    let (bits, w, seqs) = (b.data_bits as usize, b.algo.width as usize, 1u64 << b.seq_bits);
    let payloads = [Bits::zeros(bits), Bits::ones(bits), rng.bits(bits), rng.bits(bits)];
    let mut out = Vec::new();
    for data in payloads {
        let sent = rng.range(0, seqs - 1);
        let sent_crc = Bits::from_u64(model.isn_checksum(&data.to_bytes(), sent, b.seq_bits), w);
        for seq in 0..seqs {
            let mut inputs = vec![("data", data.clone()), ("seq", Bits::from_u64(seq, b.seq_bits as usize))];
            let outputs = if checker {
                inputs.push(("crc_in", sent_crc.clone()));
                vec![("ok", Bits::from_u64((seq == sent) as u64, 1))]
            } else {
                vec![("crc", Bits::from_u64(model.isn_checksum(&data.to_bytes(), seq, b.seq_bits), w))]
            };
            out.push(Vector { inputs, outputs });
        }
    }
    out
}

fn crc_vectors(b: &CrcBlock, checker: bool, opts: &Options, rng: &mut TestRng) -> Vec<Vector> {
    let model = b.model();
    let w = b.algo.width as usize;
    let msgs = messages(b.data_bits as usize, opts.vectors, rng);
    let sweep = isn_sweep(b, checker, rng);
    msgs.into_iter()
        .map(|data| {
            let seq = seq_of(b.seq_bits, rng);
            let crc = model.isn_checksum(&data.to_bytes(), seq, b.seq_bits);
            let mut inputs = vec![("data", data)];
            if b.seq_bits > 0 {
                inputs.push(("seq", Bits::from_u64(seq, b.seq_bits as usize)));
            }
            if checker {
                let mut crc_in = Bits::from_u64(crc, w);
                let bad = maybe_flip(&mut crc_in, rng);
                inputs.push(("crc_in", crc_in));
                Vector { inputs, outputs: vec![("ok", Bits::from_u64(!bad as u64, 1))] }
            } else {
                Vector { inputs, outputs: vec![("crc", Bits::from_u64(crc, w))] }
            }
        })
        .chain(sweep)
        .collect()
}

pub fn crc_generator(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = super::kind_params::<CrcParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    run(bench, m, crc_vectors(&b, false, opts, rng).into_iter(), rng)
}

pub fn crc_checker(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = super::kind_params::<CrcParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    run(bench, m, crc_vectors(&b, true, opts, rng).into_iter(), rng)
}

fn rs_crc_vectors(b: &RsCrcBlock, checker: bool, opts: &Options, rng: &mut TestRng) -> Vec<Vector> {
    let model = b.model();
    let (data_bits, crc_bits) = (b.data_bits() as usize, b.crc_bits() as usize);
    messages(data_bits, opts.vectors, rng)
        .into_iter()
        .map(|data| {
            let seq = seq_of(b.seq_bits, rng);
            let crc = Bits::from_bytes_width(&model.crc(&data.to_bytes(), seq), crc_bits);
            let mut inputs = vec![("data", data)];
            if b.seq_bits > 0 {
                inputs.push(("seq", Bits::from_u64(seq, b.seq_bits as usize)));
            }
            if checker {
                let mut crc_in = crc;
                let bad = maybe_flip(&mut crc_in, rng);
                inputs.push(("crc_in", crc_in));
                Vector { inputs, outputs: vec![("ok", Bits::from_u64(!bad as u64, 1))] }
            } else {
                Vector { inputs, outputs: vec![("crc", crc)] }
            }
        })
        .collect()
}

pub fn rs_crc_generator(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = &super::kind_params::<RsCrcParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    run(bench, m, rs_crc_vectors(b, false, opts, rng).into_iter(), rng)
}

pub fn rs_crc_checker(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = &super::kind_params::<RsCrcParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    run(bench, m, rs_crc_vectors(b, true, opts, rng).into_iter(), rng)
}

/// Messages of 1..=2 beats covering every last-beat keep pattern, then random lengths up to
/// 4096 bytes, back to back with random idle cycles (garbage on the data lines) between and
/// inside them; each CRC must appear exactly `latency` cycles after its last beat.
pub fn crc_stream(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = super::kind_params::<CrcStreamParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    let mut model = b.model();
    let wb = b.word_bytes as usize;
    let latency = m.latency as u64;
    let mut dut = crate::Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    dut.reset(2)?;
    let mut lengths: Vec<usize> = (1..=wb).chain((1..=wb).map(|r| wb + r)).collect();
    // `vectors` counts beats: random messages average 2048 bytes.
    let random = (opts.vectors / (2048 / wb as u64).max(1)).max(1);
    lengths.extend((0..random).map(|_| rng.range(1, 4096) as usize));
    let mut tally = Tally::default();
    let mut due: std::collections::VecDeque<(u64, u64)> = Default::default();
    let mut cycle = 0u64;
    let step = |dut: &mut crate::Dut, due: &mut std::collections::VecDeque<(u64, u64)>, cycle: &mut u64, tally: &mut Tally| -> Result<(), SimError> {
        dut.eval();
        let now = due.front().is_some_and(|(c, _)| *c == *cycle);
        let valid = dut.get_u64("crc_valid")? == 1;
        tally.compare(*cycle, "crc_valid", now, valid);
        if now {
            let (_, crc) = due.pop_front().expect("due");
            if valid {
                tally.compare(*cycle, "crc", crc, dut.get_u64("crc")?);
            }
        }
        dut.tick();
        *cycle += 1;
        Ok(())
    };
    for n in lengths {
        let msg = rng.bytes(n);
        let beats = n.div_ceil(wb);
        for beat in 0..beats {
            while rng.chance(0.15) {
                dut.set_u64("in_valid", 0)?;
                dut.set("in_data", &rng.bits(8 * wb))?;
                dut.set("in_keep", &rng.bits(wb))?;
                dut.set_u64("in_first", rng.chance(0.5) as u64)?;
                dut.set_u64("in_last", rng.chance(0.5) as u64)?;
                step(&mut dut, &mut due, &mut cycle, &mut tally)?;
            }
            let chunk = &msg[beat * wb..n.min((beat + 1) * wb)];
            let mut data = rng.bits(8 * wb);
            data.set_slice(0, &Bits::from_bytes(chunk));
            let mut keep = Bits::zeros(wb);
            for i in 0..chunk.len() {
                keep.set(i, true);
            }
            let (first, last) = (beat == 0, beat + 1 == beats);
            dut.set_u64("in_valid", 1)?;
            dut.set_u64("in_first", first as u64)?;
            dut.set_u64("in_last", last as u64)?;
            dut.set("in_keep", &keep)?;
            dut.set("in_data", &data)?;
            if let Some(crc) = model.beat(&data.to_bytes(), chunk.len(), first, last) {
                due.push_back((cycle + latency, crc));
                tally.vectors += 1;
            }
            step(&mut dut, &mut due, &mut cycle, &mut tally)?;
        }
    }
    dut.set_u64("in_valid", 0)?;
    for _ in 0..latency + 2 {
        step(&mut dut, &mut due, &mut cycle, &mut tally)?;
    }
    tally.cycles = cycle;
    Ok(tally)
}
