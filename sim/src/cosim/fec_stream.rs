//! Streaming Reed-Solomon encoders and decoders (`rs_fec` with `symbols_per_cycle` < N): the
//! Verilated module and the cycle model run in lockstep and every output is compared every
//! clock (ready, valid, data when valid, per-codeword flags, counters, alarm).
//! Stimulus: codewords from the model's encoder with 0, ≤ t, t + 1 and 1..=2t random symbol
//! errors, random idle input cycles and output backpressure, both bypass controls.

use super::{Options, Tally};
use crate::axis::Axis;
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::hw::axis::Signal::{Data, Last, Ready, Valid};
use rtl_gen::blocks::rs_fec::model::{pack_symbols, unpack_symbols};
use rtl_gen::blocks::rs_fec::model::stream::{DecIn, DecOut, EncIn, StreamDecoder, StreamEncoder};
use rtl_gen::blocks::rs_fec::RsFecBlock;
use rtl_gen::elab::ElabModule;

/// How a run drives the handshakes and controls.
#[derive(Debug, Clone, Copy, Default)]
pub struct Traffic {
    /// Probability of an idle input cycle (tvalid low).
    pub idle: f64,
    /// Probability of out_tready low.
    pub stall: f64,
    pub bypass_correction: bool,
    pub bypass_indication: bool,
}

/// A decoded codeword as the RTL delivered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    pub cw: Vec<u16>,
    pub corrected: u32,
    pub uncorrectable: bool,
}

/// The decoder DUT and its model in lockstep.
pub struct DecLockstep {
    pub dut: Dut,
    pub model: StreamDecoder,
    pub tally: Tally,
    pub cycle: u64,
    /// The codeword beats in and the corrected beats out.
    input: Axis,
    output: Axis,
    m: u32,
    p: usize,
    n: usize,
    beat_bits: usize,
    /// Output beats of the codeword being delivered.
    partial: Vec<u16>,
    /// Clocks with ser_alarm high, and its rising edges (the alarm is exercised, not idle).
    pub alarm_clocks: u64,
    pub alarm_rises: u64,
    alarm: bool,
}

fn symbols_bits(s: &[u16], m: u32, width: usize) -> Bits {
    Bits::from_bytes_width(&pack_symbols(s, m), width)
}

impl DecLockstep {
    pub fn new(mut dut: Dut, b: &RsFecBlock) -> Result<DecLockstep, SimError> {
        let (input, output) = (Axis::of(&dut, "in")?, Axis::of(&dut, "out")?);
        input.set_u64(&mut dut, Valid, 0)?;
        output.set_u64(&mut dut, Ready, 1)?;
        dut.reset(2)?;
        let model = b.stream_decoder();
        let p = model.code.p;
        let n = model.code.code.n();
        Ok(DecLockstep { dut, model, tally: Tally::default(), cycle: 0, input, output, m: b.symbol_bits, p, n, beat_bits: p * b.symbol_bits as usize, partial: Vec::new(), alarm_clocks: 0, alarm_rises: 0, alarm: false })
    }

    /// One clock; returns whether the input beat was taken and a codeword if its last beat left.
    pub fn step(&mut self, valid: bool, data: &[u16], tlast: bool, out_tready: bool, tr: &Traffic) -> Result<(bool, Option<Delivered>), SimError> {
        let (d, i, out) = (&mut self.dut, &self.input, &self.output);
        i.set_u64(d, Valid, valid as u64)?;
        i.set(d, Data, &symbols_bits(data, self.m, self.beat_bits))?;
        i.set_u64(d, Last, tlast as u64)?;
        out.set_u64(d, Ready, out_tready as u64)?;
        d.set_u64("bypass_correction", tr.bypass_correction as u64)?;
        d.set_u64("bypass_indication", tr.bypass_indication as u64)?;
        d.eval();
        let o: DecOut = self.model.outputs();
        let (c, t) = (self.cycle, &mut self.tally);
        t.compare(c, i.label(Ready), o.in_tready as u64, i.get_u64(d, Ready)?);
        t.compare(c, out.label(Valid), o.out_tvalid as u64, out.get_u64(d, Valid)?);
        t.compare(c, "frame_error", o.frame_error as u64, d.get_u64("frame_error")?);
        t.compare(c, "corrected_symbols", o.corrected_symbols, d.get_u64("corrected_symbols")?);
        t.compare(c, "corrected_bits", o.corrected_bits, d.get_u64("corrected_bits")?);
        t.compare(c, "uncorrectable_codewords", o.uncorrectable_codewords, d.get_u64("uncorrectable_codewords")?);
        t.compare(c, "ser_alarm", o.ser_alarm as u64, d.get_u64("ser_alarm")?);
        let mut delivered = None;
        if o.out_tvalid {
            t.compare_bits(c, out.label(Data), &symbols_bits(&o.out_tdata, self.m, self.beat_bits), &out.get(d, Data)?);
            t.compare(c, out.label(Last), o.out_tlast as u64, out.get_u64(d, Last)?);
            t.compare(c, "out_corrected", u64::from(o.out_corrected), d.get_u64("out_corrected")?);
            t.compare(c, "out_uncorrectable", o.out_uncorrectable as u64, d.get_u64("out_uncorrectable")?);
            if out_tready {
                // What the RTL gave (the model's beat when they agree; a mismatch is tallied above).
                let rtl = unpack_symbols(&out.get(d, Data)?.to_bytes(), self.m, self.p);
                self.partial.extend(rtl);
                if o.out_tlast {
                    let mut cw = std::mem::take(&mut self.partial);
                    cw.truncate(self.n);
                    delivered = Some(Delivered { cw, corrected: d.get_u64("out_corrected")? as u32, uncorrectable: d.get_u64("out_uncorrectable")? == 1 });
                }
            }
        }
        t.vectors += 1;
        t.cycles += 1;
        self.alarm_clocks += o.ser_alarm as u64;
        self.alarm_rises += (o.ser_alarm && !self.alarm) as u64;
        self.alarm = o.ser_alarm;
        let taken = valid && o.in_tready;
        self.model.clock(&DecIn { tvalid: valid, tdata: data, tlast, out_tready, bypass_correction: tr.bypass_correction, bypass_indication: tr.bypass_indication });
        self.dut.tick();
        self.cycle += 1;
        Ok((taken, delivered))
    }

    /// Sends `cws` (N symbols each) with the traffic's gaps and stalls, drains the decoder and
    /// returns what came out, in order.
    pub fn run(&mut self, cws: &[Vec<u16>], tr: &Traffic, rng: &mut TestRng) -> Result<Vec<Delivered>, SimError> {
        let code = self.model.code.clone();
        let beats: Vec<(Vec<u16>, bool)> = cws.iter().flat_map(|cw| code.to_beats(cw).into_iter().enumerate().map(|(b, x)| (x, b + 1 == code.beats()))).collect();
        let mut next = 0;
        let mut out = Vec::new();
        let idle_limit = 4 * u64::from(self.model.timing.latency()) + 64;
        let mut idle = 0;
        while out.len() < cws.len() {
            let valid = next < beats.len() && !rng.chance(tr.idle);
            let ready = !rng.chance(tr.stall);
            let (data, last) = beats.get(next).cloned().unwrap_or_else(|| (vec![0; self.p], false));
            let (taken, got) = self.step(valid, &data, last, ready, tr)?;
            if taken {
                next += 1;
            }
            match got {
                Some(g) => {
                    out.push(g);
                    idle = 0;
                }
                None => idle += 1,
            }
            if idle > idle_limit * (1 + (tr.stall * 20.0) as u64) {
                break; // a hung decoder: the tally holds the mismatches that say why
            }
        }
        Ok(out)
    }
}

/// Random codewords of `b`'s code with the given error counts (one per codeword).
pub fn codewords(b: &RsFecBlock, errors: &[usize], rng: &mut TestRng) -> (Vec<Vec<u16>>, Vec<Vec<u16>>) {
    let code = b.stream_code().code;
    let mask = code.field().mask();
    let mut sent = Vec::new();
    let mut clean = Vec::new();
    for &e in errors {
        let msg: Vec<u16> = (0..code.k()).map(|_| rng.range(0, u64::from(mask)) as u16).collect();
        let cw = code.encode(&msg);
        let mut r = cw.clone();
        let mut hit = std::collections::BTreeSet::new();
        while hit.len() < e.min(code.n()) {
            hit.insert(rng.range(0, code.n() as u64 - 1) as usize);
        }
        for pos in hit {
            r[pos] ^= rng.range(1, u64::from(mask)) as u16;
        }
        sent.push(r);
        clean.push(cw);
    }
    (sent, clean)
}

pub fn decoder(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = &super::fec::block(m)?;
    let dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    let mut ls = DecLockstep::new(dut, b)?;
    let t = b.t() as usize;
    let errors: Vec<usize> = (0..opts.vectors.max(4)).map(|i| match i % 4 {
        0 => rng.range(0, t as u64) as usize,
        1 => t + 1,
        _ => rng.range(1, 2 * t as u64) as usize,
    }).collect();
    let (cws, _) = codewords(b, &errors, rng);
    let half = cws.len() / 2;
    ls.run(&cws[..half], &Traffic { idle: 0.1, stall: 0.1, ..Traffic::default() }, rng)?;
    ls.run(&cws[half..], &Traffic { idle: 0.3, stall: 0.3, bypass_correction: rng.chance(0.5), bypass_indication: rng.chance(0.5) }, rng)?;
    Ok(ls.tally)
}

/// The encoder DUT and its model in lockstep.
pub fn encoder(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let b = &super::fec::block(m)?;
    let mut dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    let (input, output) = (Axis::of(&dut, "in")?, Axis::of(&dut, "out")?);
    input.set_u64(&mut dut, Valid, 0)?;
    dut.reset(2)?;
    let mut model: StreamEncoder = b.stream_encoder();
    let code = b.stream_code();
    let (p, mm) = (code.p, b.symbol_bits);
    let width = p * mm as usize;
    let mask = code.field().mask();
    let mut tally = Tally::default();
    let total = opts.vectors.max(2) as usize * code.beats();
    let mut next = 0;
    let mut cycle = 0u64;
    let mut data: Vec<u16> = (0..p).map(|_| rng.range(0, u64::from(mask)) as u16).collect();
    while next < total {
        let valid = !rng.chance(0.2);
        let ready = !rng.chance(0.2);
        let tlast = (next + 1) % code.beats() == 0;
        input.set_u64(&mut dut, Valid, valid as u64)?;
        input.set(&mut dut, Data, &symbols_bits(&data, mm, width))?;
        input.set_u64(&mut dut, Last, tlast as u64)?;
        output.set_u64(&mut dut, Ready, ready as u64)?;
        dut.eval();
        tally.compare(cycle, input.label(Ready), model.ready(ready) as u64, input.get_u64(&dut, Ready)?);
        tally.compare(cycle, output.label(Valid), model.out_tvalid as u64, output.get_u64(&dut, Valid)?);
        tally.compare(cycle, "frame_error", model.frame_error as u64, dut.get_u64("frame_error")?);
        if model.out_tvalid {
            tally.compare_bits(cycle, output.label(Data), &symbols_bits(&model.out_tdata, mm, width), &output.get(&dut, Data)?);
            tally.compare(cycle, output.label(Last), model.out_tlast as u64, output.get_u64(&dut, Last)?);
        }
        let taken = valid && model.ready(ready);
        model.clock(&EncIn { tvalid: valid, tdata: &data, tlast, out_tready: ready });
        dut.tick();
        tally.vectors += 1;
        tally.cycles += 1;
        cycle += 1;
        if taken {
            next += 1;
            data = (0..p).map(|_| rng.range(0, u64::from(mask)) as u16).collect();
        }
    }
    Ok(tally)
}
