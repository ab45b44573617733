//! Reference models of the streaming form of `rs_fec` (`symbols_per_cycle` = P < N).
//!
//! - [`StreamCode`]: the decoder's arithmetic, beat by beat, as the RTL does it: P-parallel
//!   Horner syndromes, the reformulated inversionless Berlekamp–Massey (RiBM, Sarwate and
//!   Shanbhag, IEEE Trans. VLSI 9(5), 2001), a P-parallel Chien search and Forney's formula on
//!   the high-order evaluator RiBM leaves behind. A property test holds it equal to the
//!   whole-codeword model [`RsCode::decode`] (corrected word, flags and counts).
//! - [`StreamEncoder`] and [`StreamDecoder`]: the modules cycle by cycle (ready/valid, slots,
//!   counters, alarm), what the co-simulation compares the Verilog with on every clock.
//!
//! Beat format: beat b carries codeword symbols bP … bP+P−1, symbol i of the beat in bits
//! [m·i+m−1 : m·i]; when P does not divide N the last beat carries N − (B−1)·P symbols and its
//! upper lanes are padding (ignored on input, zero on output). Padding lanes are treated as
//! zero symbols appended after the codeword: the syndromes are then those of e(x)·x^pad, whose
//! locations are the codeword's shifted by pad degrees, so the Chien search evaluates degree
//! d' = B·P − 1 − p for codeword position p and no scaling step is needed.

use super::RsCode;
use crate::math::gf2m::Gf2m;
use std::collections::VecDeque;

/// Shape and timing of a streaming codec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamCode {
    pub code: RsCode,
    /// P: symbols per beat.
    pub p: usize,
}

/// What the decoder found in one codeword.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamDecoded {
    /// The codeword after correction (unchanged when uncorrectable).
    pub cw: Vec<u16>,
    pub uncorrectable: bool,
    /// Symbols corrected (0 when uncorrectable or clean).
    pub corrected_symbols: u32,
    /// Bits flipped by the corrections.
    pub corrected_bits: u32,
}

/// The RiBM result: Λ (t+1 coefficients, lowest first), the high-order evaluator Ω^h (t
/// coefficients) and the final k = 2t − 2L (negative: L > t).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyEquation {
    pub lambda: Vec<u16>,
    pub omega: Vec<u16>,
    pub k: i32,
}

impl StreamCode {
    pub fn new(code: RsCode, p: usize) -> StreamCode {
        assert!(p >= 1 && p < code.n(), "1 <= P < N");
        assert!(code.nroots().is_multiple_of(2), "2t check symbols");
        StreamCode { code, p }
    }

    pub fn field(&self) -> &Gf2m {
        self.code.field()
    }

    pub fn t(&self) -> usize {
        self.code.t()
    }

    /// B = ⌈N/P⌉ beats per codeword.
    pub fn beats(&self) -> usize {
        self.code.n().div_ceil(self.p)
    }

    /// Padding lanes of the last beat.
    pub fn pad(&self) -> usize {
        self.beats() * self.p - self.code.n()
    }

    /// Exponent e_j = fcr + j of syndrome j.
    fn root(&self, j: usize) -> i64 {
        i64::from(self.code.fcr()) + j as i64
    }

    /// Splits a codeword into beats (the last one zero-padded).
    pub fn to_beats(&self, cw: &[u16]) -> Vec<Vec<u16>> {
        (0..self.beats()).map(|b| (0..self.p).map(|i| cw.get(b * self.p + i).copied().unwrap_or(0)).collect()).collect()
    }

    /// One Horner step of the syndromes over a beat: S_j ← S_j·α^(e_j·P) + Σ_i x_i·α^(e_j·(P−1−i)).
    pub fn syndrome_step(&self, acc: &[u16], beat: &[u16]) -> Vec<u16> {
        let f = self.field();
        let p = self.p as i64;
        (0..2 * self.t())
            .map(|j| {
                let e = self.root(j);
                let mut s = f.mul(acc[j], f.alpha(e * p));
                for (i, &x) in beat.iter().enumerate() {
                    s ^= f.mul(x, f.alpha(e * (p - 1 - i as i64)));
                }
                s
            })
            .collect()
    }

    pub fn syndromes(&self, beats: &[Vec<u16>]) -> Vec<u16> {
        beats.iter().fold(vec![0; 2 * self.t()], |acc, beat| self.syndrome_step(&acc, beat))
    }

    /// Initial RiBM registers: δ = θ = (S_0 … S_(2t−1), 0 … 0, 1), 3t+1 entries.
    pub fn ribm_init(&self, s: &[u16]) -> (Vec<u16>, Vec<u16>, u16, i32) {
        let t = self.t();
        let mut delta = vec![0u16; 3 * t + 1];
        delta[..2 * t].copy_from_slice(s);
        delta[3 * t] = 1;
        (delta.clone(), delta, 1, 0)
    }

    /// One RiBM iteration: δ_i ← γ·δ_(i+1) + δ_0·θ_i; if δ_0 ≠ 0 and k ≥ 0 then θ_i ← δ_(i+1),
    /// γ ← δ_0, k ← −k−1, else k ← k+1. Every processing element does the same two products,
    /// so an iteration is one multiply-add deep, whatever t.
    pub fn ribm_step(&self, delta: &mut Vec<u16>, theta: &mut Vec<u16>, gamma: &mut u16, k: &mut i32) {
        let f = self.field();
        let d0 = delta[0];
        let shifted: Vec<u16> = (0..delta.len()).map(|i| delta.get(i + 1).copied().unwrap_or(0)).collect();
        let next: Vec<u16> = (0..delta.len()).map(|i| f.mul(*gamma, shifted[i]) ^ f.mul(d0, theta[i])).collect();
        if d0 != 0 && *k >= 0 {
            *theta = shifted;
            *gamma = d0;
            *k = -*k - 1;
        } else {
            *k += 1;
        }
        *delta = next;
    }

    pub fn ribm(&self, s: &[u16]) -> KeyEquation {
        let t = self.t();
        let (mut delta, mut theta, mut gamma, mut k) = self.ribm_init(s);
        for _ in 0..2 * t {
            self.ribm_step(&mut delta, &mut theta, &mut gamma, &mut k);
        }
        KeyEquation { lambda: delta[t..=2 * t].to_vec(), omega: delta[..t].to_vec(), k }
    }

    /// Degree d' = B·P − 1 − p of codeword position p (padding appended after the codeword).
    pub fn degree(&self, pos: usize) -> i64 {
        (self.beats() * self.p - 1 - pos) as i64
    }

    /// Error value per codeword position from the Chien search and Forney's formula
    /// Y = X^(−fcr−2t)·Ω^h(X^−1) / Λ_odd(X^−1) (X = α^d', Λ_odd the odd-degree terms of Λ,
    /// X·Λ'(X^−1) = Λ_odd(X^−1)); with the number of roots and whether a root had a zero
    /// derivative or a zero value (a locator no correctable error pattern has).
    pub fn chien_forney(&self, key: &KeyEquation) -> (Vec<u16>, u32, bool) {
        let f = self.field();
        let shift = i64::from(self.code.fcr()) + 2 * self.t() as i64;
        let mut errors = vec![0u16; self.code.n()];
        let (mut roots, mut bad) = (0u32, false);
        for (pos, e) in errors.iter_mut().enumerate() {
            let d = self.degree(pos);
            let x_inv = f.alpha(-d);
            let mut lam = 0u16;
            let mut odd = 0u16;
            for (i, &c) in key.lambda.iter().enumerate() {
                let term = f.mul(c, f.pow(x_inv, i as i64));
                lam ^= term;
                if i % 2 == 1 {
                    odd ^= term;
                }
            }
            if lam != 0 {
                continue;
            }
            let mut num = 0u16;
            for (i, &c) in key.omega.iter().enumerate() {
                num ^= f.mul(c, f.alpha(-d * (i as i64 + shift)));
            }
            let value = if odd == 0 { 0 } else { f.mul(num, f.inv(odd)) };
            roots += 1;
            bad |= value == 0;
            *e = value;
        }
        (errors, roots, bad)
    }

    /// Decodes one codeword the way the streaming decoder does.
    pub fn decode(&self, cw: &[u16]) -> StreamDecoded {
        assert_eq!(cw.len(), self.code.n());
        let s = self.syndromes(&self.to_beats(cw));
        let key = self.ribm(&s);
        let (errors, roots, bad) = self.chien_forney(&key);
        let len = (2 * self.t() as i32 - key.k) / 2;
        let correctable = key.k >= 0 && !bad && roots as i32 == len;
        if !correctable {
            return StreamDecoded { cw: cw.to_vec(), uncorrectable: true, corrected_symbols: 0, corrected_bits: 0 };
        }
        let corrected: Vec<u16> = cw.iter().zip(&errors).map(|(&r, &e)| r ^ e).collect();
        let bits = errors.iter().map(|e| e.count_ones()).sum();
        StreamDecoded { cw: corrected, uncorrectable: false, corrected_symbols: roots, corrected_bits: bits }
    }

    /// The LFSR remainder after feeding `msg` into a divider holding `state` (2t symbols,
    /// highest degree first): the encoder's state update over one beat.
    pub fn encode_step(&self, state: &[u16], msg: &[u16]) -> Vec<u16> {
        let f = self.field();
        let g = self.code.generator();
        let mut parity = state.to_vec();
        let last = parity.len() - 1;
        for &symbol in msg {
            let feedback = symbol ^ parity[0];
            parity.copy_within(1.., 0);
            parity[last] = 0;
            if feedback != 0 {
                for (p, &gc) in parity.iter_mut().zip(&g[1..]) {
                    *p ^= f.mul(feedback, gc);
                }
            }
        }
        parity
    }
}

/// Beat of the encoder in which the last message symbol arrives.
pub fn last_message_beat(code: &StreamCode) -> usize {
    (code.code.k() - 1) / code.p
}

/// The streaming encoder cycle by cycle: two register stages moving together (latency 2), the
/// input stage (where the RTL registers the beat's own contribution to the remainder) and the
/// output register; `in_tready` = the output register is empty or being taken. A beat's
/// message lanes pass unchanged, its check lanes carry the check symbols (whatever the input
/// held there), padding lanes are zero.
#[derive(Debug, Clone)]
pub struct StreamEncoder {
    code: StreamCode,
    /// Beat index of the next input beat.
    beat: usize,
    /// The input stage: a beat's index and data.
    held: Option<(usize, Vec<u16>)>,
    state: Vec<u16>,
    pub out_tvalid: bool,
    pub out_tlast: bool,
    pub out_tdata: Vec<u16>,
    pub frame_error: bool,
}

/// Inputs of one encoder clock.
#[derive(Debug, Clone)]
pub struct EncIn<'a> {
    pub tvalid: bool,
    pub tdata: &'a [u16],
    pub tlast: bool,
    pub out_tready: bool,
}

impl StreamEncoder {
    pub fn new(code: StreamCode) -> StreamEncoder {
        let p = code.p;
        let nroots = 2 * code.t();
        StreamEncoder { code, beat: 0, held: None, state: vec![0; nroots], out_tvalid: false, out_tlast: false, out_tdata: vec![0; p], frame_error: false }
    }

    /// `in_tready` given this cycle's `out_tready`.
    pub fn ready(&self, out_tready: bool) -> bool {
        !self.out_tvalid || out_tready
    }

    /// One rising edge.
    pub fn clock(&mut self, i: &EncIn) {
        let fire = self.ready(i.out_tready);
        let last = self.beat + 1 == self.code.beats();
        self.frame_error = fire && i.tvalid && i.tlast != last;
        if !fire {
            return;
        }
        self.out_tvalid = self.held.is_some();
        if let Some((b, data)) = self.held.take() {
            self.encode(b, &data);
        }
        if i.tvalid {
            self.held = Some((self.beat, i.tdata.to_vec()));
            self.beat = if last { 0 } else { self.beat + 1 };
        }
    }

    /// The output stage takes beat `b` of a codeword.
    fn encode(&mut self, b: usize, data: &[u16]) {
        let (p, k, n) = (self.code.p, self.code.code.k(), self.code.code.n());
        let base = b * p;
        let msg_end = k.saturating_sub(base).min(p);
        let parity = if base < k { self.code.encode_step(&self.state, &data[..msg_end]) } else { self.state.clone() };
        for lane in 0..p {
            let pos = base + lane;
            self.out_tdata[lane] = if pos < k {
                data[lane]
            } else if pos < n {
                parity[pos - k]
            } else {
                0
            };
        }
        self.state = parity;
        self.out_tlast = b + 1 == self.code.beats();
        if self.out_tlast {
            self.state.fill(0);
        }
    }
}

/// Timing of the streaming decoder, shared by the model and the generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecTiming {
    /// B: beats per codeword.
    pub beats: u32,
    /// RiBM iterations per clock: the smallest divisor u of 2t with 2t/u ≤ S·B − 1 for S
    /// solvers taking codewords in turn (S ≤ [`MAX_SOLVERS`], the fewest that allow that u),
    /// so a solver is free again before the syndromes of its next codeword are ready. Every
    /// iteration unrolled in one clock adds a multiply-add to the solver's register-to-register
    /// path; a second solver adds only its registers.
    pub iters_per_clock: u32,
    /// S: key-equation solvers, each taking every S-th codeword.
    pub solvers: u32,
    /// Clocks of the key-equation solver: 2t/u.
    pub bm_clocks: u32,
    /// Codeword slots of the received-word and error RAMs (a power of two): codewords between
    /// the first input beat and the last output beat.
    pub slots: u32,
    /// Register stages of the Chien/Forney pipeline between the solver and the decision:
    /// the loaded evaluator, evaluations, inverses (the table's read), the inverses registered
    /// out of the table, values, then [`count_stages`] for the beat's root and error-bit counts.
    pub chien_stages: u32,
}

/// Key-equation solvers at most: two on alternate codewords let KP4 at P = 32 (2t = 30 in
/// 17 beats) run one RiBM iteration per clock, the one multiply-add that fits in five LUT6
/// levels; more would multiply the solver registers for the widest buses only.
pub const MAX_SOLVERS: u32 = 2;

/// Bits a first-stage counter of the beat's popcounts takes (a sum of 16 bits maps to about
/// four LUT6 levels).
pub const COUNT_LEAF: usize = 16;
/// Values a later stage of the popcounts adds (five sums of up to 7 bits: about five levels).
pub const COUNT_FANIN: usize = 5;

/// Register stages of the pipelined popcount of `width` bits: groups of [`COUNT_LEAF`] bits,
/// then groups of [`COUNT_FANIN`] partial sums per stage until one sum is left, so no stage is
/// a whole 320-bit popcount (11 LUT levels mapped).
pub fn count_stages(width: usize) -> u32 {
    let mut values = width.div_ceil(COUNT_LEAF);
    let mut stages = 1;
    while values > 1 {
        values = values.div_ceil(COUNT_FANIN);
        stages += 1;
    }
    stages
}

/// Clocks from a decision to the counters and SER window taking it: the increments are
/// registered, then the low parts of the sums with their carries, then the counters.
pub const COUNT_DELAY: usize = 2;

impl DecTiming {
    pub fn new(code: &StreamCode) -> DecTiming {
        let beats = code.beats() as u32;
        let two_t = 2 * code.t() as u32;
        let fits = |u: u32, s: u32| two_t.is_multiple_of(u) && two_t / u < s * beats.max(2);
        let (iters_per_clock, solvers) = (1..=two_t).find_map(|u| (1..=MAX_SOLVERS).find(|&s| fits(u, s)).map(|s| (u, s))).unwrap_or((two_t, 1));
        let bm_clocks = two_t / iters_per_clock;
        let chien_stages = 5 + count_stages(code.p * code.field().m() as usize);
        let mut t = DecTiming { beats, iters_per_clock, solvers, bm_clocks, slots: 1, chien_stages };
        let lifetime = t.latency() + beats;
        t.slots = (lifetime.div_ceil(beats) + 1).next_power_of_two();
        t
    }

    /// Clocks from the edge that accepts a codeword's first beat (back to back) to the edge
    /// after which its first corrected beat is valid on the output: B beats in, the solver,
    /// B beats through the Chien/Forney pipeline, the decision, the RAM read.
    pub fn latency(&self) -> u32 {
        2 * self.beats + self.bm_clocks + self.chien_stages
    }

    /// From the edge accepting the last beat to the edge of the decision.
    fn decision_delay(&self) -> u64 {
        u64::from(self.bm_clocks + 1 + self.beats + self.chien_stages - 1)
    }
}

/// Controls and settings of the decoder model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecSettings {
    pub counter_bits: u32,
    pub ser_threshold: u64,
    pub ser_window: u64,
}

/// Inputs of one decoder clock.
#[derive(Debug, Clone)]
pub struct DecIn<'a> {
    pub tvalid: bool,
    pub tdata: &'a [u16],
    pub tlast: bool,
    pub out_tready: bool,
    pub bypass_correction: bool,
    pub bypass_indication: bool,
}

/// Per-slot result of the decision.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct SlotStatus {
    done: bool,
    apply: bool,
    uncorrectable: bool,
    count: u32,
}

/// The outputs of the decoder in one cycle (registers, except `in_tready`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecOut {
    pub in_tready: bool,
    pub out_tvalid: bool,
    pub out_tlast: bool,
    pub out_tdata: Vec<u16>,
    /// Symbols corrected in the codeword, on its tlast beat (0 on other beats).
    pub out_corrected: u32,
    /// The codeword is uncorrectable, on its tlast beat.
    pub out_uncorrectable: bool,
    pub frame_error: bool,
    pub corrected_symbols: u64,
    pub corrected_bits: u64,
    pub uncorrectable_codewords: u64,
    pub ser_alarm: bool,
}

/// The streaming decoder cycle by cycle.
#[derive(Debug, Clone)]
pub struct StreamDecoder {
    pub code: StreamCode,
    pub timing: DecTiming,
    settings: DecSettings,
    edge: u64,
    in_beat: usize,
    tail: usize,
    head: usize,
    used: usize,
    out_beat: usize,
    /// Beats of the codeword being received.
    partial: Vec<Vec<u16>>,
    /// Received beats per slot.
    data: Vec<Vec<Vec<u16>>>,
    /// Error values per slot (by beat), written by the decision.
    errors: Vec<Vec<Vec<u16>>>,
    status: Vec<SlotStatus>,
    dec_slot: usize,
    /// Decisions in flight: (edge, result).
    pending: VecDeque<(u64, StreamDecoded, Vec<u16>)>,
    /// The decisions of the last [`COUNT_DELAY`] edges, oldest first: the counters and the SER
    /// window take a decision that many edges after it (the RTL registers the increments, then
    /// the low parts of the sums and their carries, so no 32-bit adder follows the decision).
    counted: VecDeque<Option<StreamDecoded>>,
    // Output registers.
    out_tvalid: bool,
    out_tlast: bool,
    rd_data: Vec<u16>,
    rd_err: Vec<u16>,
    apply_r: bool,
    out_corrected: u32,
    out_uncorrectable: bool,
    frame_error: bool,
    corrected_symbols: u64,
    corrected_bits: u64,
    uncorrectable_codewords: u64,
    ser_count: u64,
    ser_codewords: u64,
    ser_alarm: bool,
}

impl StreamDecoder {
    pub fn new(code: StreamCode, settings: DecSettings) -> StreamDecoder {
        let timing = DecTiming::new(&code);
        let (p, b, k) = (code.p, timing.beats as usize, timing.slots as usize);
        StreamDecoder {
            code,
            timing,
            settings,
            edge: 0,
            in_beat: 0,
            tail: 0,
            head: 0,
            used: 0,
            out_beat: 0,
            partial: Vec::new(),
            data: vec![vec![vec![0; p]; b]; k],
            errors: vec![vec![vec![0; p]; b]; k],
            status: vec![SlotStatus::default(); k],
            dec_slot: 0,
            pending: VecDeque::new(),
            counted: std::iter::repeat_n(None, COUNT_DELAY).collect(),
            out_tvalid: false,
            out_tlast: false,
            rd_data: vec![0; p],
            rd_err: vec![0; p],
            apply_r: false,
            out_corrected: 0,
            out_uncorrectable: false,
            frame_error: false,
            corrected_symbols: 0,
            corrected_bits: 0,
            uncorrectable_codewords: 0,
            ser_count: 0,
            ser_codewords: 0,
            ser_alarm: false,
        }
    }

    fn counter_max(&self) -> u64 {
        (1u64 << self.settings.counter_bits) - 1
    }

    /// The outputs in the current cycle.
    pub fn outputs(&self) -> DecOut {
        let data = if self.apply_r { self.rd_data.iter().zip(&self.rd_err).map(|(d, e)| d ^ e).collect() } else { self.rd_data.clone() };
        DecOut {
            in_tready: self.used != self.timing.slots as usize,
            out_tvalid: self.out_tvalid,
            out_tlast: self.out_tlast,
            out_tdata: data,
            out_corrected: self.out_corrected,
            out_uncorrectable: self.out_uncorrectable,
            frame_error: self.frame_error,
            corrected_symbols: self.corrected_symbols,
            corrected_bits: self.corrected_bits,
            uncorrectable_codewords: self.uncorrectable_codewords,
            ser_alarm: self.ser_alarm,
        }
    }

    /// One rising edge.
    pub fn clock(&mut self, i: &DecIn) {
        let (p, b) = (self.code.p, self.timing.beats as usize);
        let n = self.code.code.n();
        self.edge += 1;
        let mut used = self.used;
        // Decision (before the output unit reads, which sees the old flags: the slots differ).
        let decided = match self.pending.front() {
            Some((due, _, _)) if *due == self.edge => self.pending.pop_front(),
            _ => None,
        };
        // Output unit.
        let fire = !self.out_tvalid || i.out_tready;
        if fire {
            let have = self.status[self.head].done;
            self.out_tvalid = have;
            if have {
                let st = self.status[self.head].clone();
                let last = self.out_beat + 1 == b;
                self.rd_data = self.data[self.head][self.out_beat].clone();
                self.rd_err = self.errors[self.head][self.out_beat].clone();
                self.apply_r = st.apply;
                self.out_tlast = last;
                self.out_uncorrectable = last && st.uncorrectable;
                self.out_corrected = if last { st.count } else { 0 };
                if last {
                    self.status[self.head].done = false;
                    self.head = (self.head + 1) % self.status.len();
                    self.out_beat = 0;
                    used -= 1;
                } else {
                    self.out_beat += 1;
                }
            }
        }
        let counted_next = decided.as_ref().map(|(_, r, _)| r.clone());
        if let Some((_, result, errors)) = decided {
            let correctable = !result.uncorrectable;
            let slot = self.dec_slot;
            let err_beats = self.code.to_beats(&errors);
            self.errors[slot] = err_beats;
            self.status[slot] = SlotStatus {
                done: true,
                apply: correctable && !i.bypass_correction,
                uncorrectable: !correctable && !i.bypass_indication,
                count: result.corrected_symbols,
            };
            self.dec_slot = (slot + 1) % self.status.len();
        }
        // Counters and SER window: the decision of COUNT_DELAY edges ago.
        self.counted.push_back(counted_next);
        if let Some(result) = self.counted.pop_front().flatten() {
            let max = self.counter_max();
            self.corrected_symbols = (self.corrected_symbols + u64::from(result.corrected_symbols)).min(max);
            self.corrected_bits = (self.corrected_bits + u64::from(result.corrected_bits)).min(max);
            self.uncorrectable_codewords = (self.uncorrectable_codewords + u64::from(result.uncorrectable)).min(max);
            let count = self.ser_count + u64::from(result.corrected_symbols);
            if self.ser_codewords + 1 == self.settings.ser_window {
                self.ser_alarm = count > self.settings.ser_threshold;
                self.ser_count = 0;
                self.ser_codewords = 0;
            } else {
                self.ser_count = count;
                self.ser_codewords += 1;
            }
        }
        // Input unit.
        let accept = i.tvalid && self.used != self.timing.slots as usize;
        let last = self.in_beat + 1 == b;
        self.frame_error = accept && i.tlast != last;
        if accept {
            let mut beat = i.tdata[..p].to_vec();
            for (lane, s) in beat.iter_mut().enumerate() {
                if self.in_beat * p + lane >= n {
                    *s = 0;
                }
            }
            self.data[self.tail][self.in_beat] = beat.clone();
            self.partial.push(beat);
            if last {
                let cw: Vec<u16> = self.partial.concat()[..n].to_vec();
                let decoded = self.code.decode(&cw);
                let errors: Vec<u16> = cw.iter().zip(&decoded.cw).map(|(a, b)| a ^ b).collect();
                // The error RAM holds the Chien/Forney values even when the word is
                // uncorrectable; they are not applied then, so the model keeps zeros.
                self.pending.push_back((self.edge + self.timing.decision_delay(), decoded, errors));
                self.partial.clear();
                self.tail = (self.tail + 1) % self.status.len();
                self.in_beat = 0;
                used += 1;
            } else {
                self.in_beat += 1;
            }
        }
        self.used = used;
    }
}

/// A helper for tests: the decoder settings of a block's defaults.
pub fn default_settings(n: usize, k: usize) -> DecSettings {
    DecSettings { counter_bits: 32, ser_threshold: default_ser_threshold(n, k, 8192), ser_window: 8192 }
}

/// The degraded-SER threshold default: IEEE 802.3 clause 91's 417 symbol errors in 8192
/// codewords for RS(528,514), clause 134's 6380 for RS(544,514); other codes ⌊window·n/10⁴⌋
/// (a symbol error ratio of 10⁻⁴).
pub fn default_ser_threshold(n: usize, k: usize, window: u64) -> u64 {
    match (n, k, window) {
        (528, 514, 8192) => 417,
        (544, 514, 8192) => 6380,
        _ => window * n as u64 / 10_000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::rs_fec::model::Outcome;
    use crate::math::splitmix::SplitMix64 as Rng;

    fn codes() -> Vec<(RsCode, usize)> {
        let f10 = Gf2m::new(10, 0x409).unwrap();
        let f8 = Gf2m::new(8, 0x11D).unwrap();
        vec![
            (RsCode::ethernet_kr4(), 33),
            (RsCode::ethernet_kp4(), 32),
            (RsCode::ethernet_kp4(), 128),
            (RsCode::ethernet_kp4(), 7),
            (RsCode::new(f8.clone(), 40, 32, 1).unwrap(), 6),
            (RsCode::new(f8, 255, 223, 0).unwrap(), 16),
            (RsCode::new(f10, 1023, 1013, 3).unwrap(), 2),
        ]
    }

    /// The streaming arithmetic equals the whole-codeword model on every input: corrected
    /// word, uncorrectable flag and count, for 0..=2t+1 random symbol errors.
    #[test]
    fn streaming_decoder_equals_the_whole_codeword_model() {
        let mut rng = Rng::new(21);
        for (code, p) in codes() {
            let s = StreamCode::new(code.clone(), p);
            let mask = code.field().mask();
            let (mut flagged, mut miscorrected) = (0, 0);
            for trial in 0..400 {
                let msg: Vec<u16> = (0..code.k()).map(|_| rng.symbol(mask)).collect();
                let cw = code.encode(&msg);
                let errors = if trial < 20 { 0 } else { rng.below(2 * code.t() + 2) };
                let mut r = cw.clone();
                for pos in rng.distinct(code.n(), errors) {
                    r[pos] ^= rng.nonzero(mask);
                }
                let mut whole = r.clone();
                let outcome = code.decode(&mut whole);
                let got = s.decode(&r);
                assert_eq!(got.cw, whole, "n={} p={p} errors={errors}", code.n());
                match outcome {
                    Outcome::Clean => assert!(!got.uncorrectable && got.corrected_symbols == 0),
                    Outcome::Uncorrectable => {
                        flagged += 1;
                        assert!(got.uncorrectable)
                    }
                    Outcome::Corrected(c) => {
                        miscorrected += usize::from(errors > code.t());
                        assert!(!got.uncorrectable);
                        assert_eq!(got.corrected_symbols as usize, c.len());
                        let bits: u32 = c.iter().map(|c| c.value.count_ones()).sum();
                        assert_eq!(got.corrected_bits, bits);
                    }
                }
            }
            assert!(flagged > 0, "n={} p={p}: beyond-t words were flagged ({miscorrected} miscorrected)", code.n());
        }
    }

    /// The solver plan of the Ethernet codes: KP4 at P = 32 with two solvers at one RiBM
    /// iteration per clock (15 clocks over Intel's bound of 57, the price of one multiply-add
    /// per clock), KR4 with one.
    #[test]
    fn timing_of_the_ethernet_codes() {
        let kp4 = DecTiming::new(&StreamCode::new(RsCode::ethernet_kp4(), 32));
        assert_eq!((kp4.beats, kp4.iters_per_clock, kp4.solvers, kp4.bm_clocks), (17, 1, 2, 30));
        assert_eq!(kp4.chien_stages, 8, "320 error bits: 20 sums of 16, 4 of 5, 1");
        assert_eq!(kp4.latency(), 72);
        let kr4 = DecTiming::new(&StreamCode::new(RsCode::ethernet_kr4(), 33));
        assert_eq!((kr4.beats, kr4.iters_per_clock, kr4.solvers, kr4.bm_clocks), (16, 1, 1, 14));
        let kp4_400 = DecTiming::new(&StreamCode::new(RsCode::ethernet_kp4(), 128));
        assert_eq!((kp4_400.beats, kp4_400.iters_per_clock, kp4_400.solvers, kp4_400.bm_clocks), (5, 5, 2, 6));
        assert_eq!((kr4.latency(), kp4_400.latency()), (54, 25), "1,280 error bits: four count stages");
    }

    #[test]
    fn encoder_model_streams_the_codeword() {
        let mut rng = Rng::new(22);
        for (code, p) in codes() {
            let s = StreamCode::new(code.clone(), p);
            let mut enc = StreamEncoder::new(s.clone());
            let mask = code.field().mask();
            let (mut input, mut expect) = (Vec::new(), Vec::new());
            for _ in 0..3 {
                let msg: Vec<u16> = (0..code.k()).map(|_| rng.symbol(mask)).collect();
                expect.extend(code.encode(&msg));
                expect.resize(expect.len() + s.beats() * p - code.n(), 0);
                // Garbage in the check and padding lanes of the input.
                input.extend(msg);
                input.extend((0..s.beats() * p - code.k()).map(|_| rng.symbol(mask)));
            }
            // Back to back, then one idle clock: beat b leaves on the clock after the next.
            let beats = input.len() / p;
            let mut out = Vec::new();
            for b in 0..=beats {
                let tdata = if b < beats { &input[b * p..(b + 1) * p] } else { &input[..p] };
                enc.clock(&EncIn { tvalid: b < beats, tdata, tlast: (b + 1) % s.beats() == 0, out_tready: true });
                assert!(!enc.frame_error);
                assert_eq!(enc.out_tvalid, b > 0, "beat {b}");
                if enc.out_tvalid {
                    assert_eq!(enc.out_tlast, b % s.beats() == 0);
                    out.extend(enc.out_tdata.clone());
                }
            }
            assert_eq!(out, expect);
        }
    }

    #[test]
    fn decoder_model_back_to_back_latency_and_order() {
        let mut rng = Rng::new(23);
        let code = RsCode::ethernet_kp4();
        let s = StreamCode::new(code.clone(), 32);
        let mut dec = StreamDecoder::new(s.clone(), default_settings(544, 514));
        let lat = dec.timing.latency() as u64;
        let mut sent = Vec::new();
        let mut got: Vec<u16> = Vec::new();
        let mut first_out = None;
        let words = 6;
        let mut beats: Vec<(Vec<u16>, bool)> = Vec::new();
        for _ in 0..words {
            let msg: Vec<u16> = (0..code.k()).map(|_| rng.symbol(0x3FF)).collect();
            let cw = code.encode(&msg);
            let mut r = cw.clone();
            for pos in rng.distinct(code.n(), 15) {
                r[pos] ^= rng.nonzero(0x3FF);
            }
            sent.push(cw);
            for (b, beat) in s.to_beats(&r).into_iter().enumerate() {
                beats.push((beat, b + 1 == s.beats()));
            }
        }
        let mut next = 0;
        for edge in 1..400u64 {
            let o = dec.outputs();
            if o.out_tvalid {
                first_out.get_or_insert(edge - 2);
                got.extend(o.out_tdata.clone());
            }
            let (data, last) = beats.get(next).cloned().unwrap_or((vec![0; 32], false));
            let valid = next < beats.len();
            assert!(o.in_tready || !valid || next > 0, "ready at start");
            if valid && o.in_tready {
                next += 1;
            }
            dec.clock(&DecIn { tvalid: valid, tdata: &data, tlast: last, out_tready: true, bypass_correction: false, bypass_indication: false });
        }
        assert_eq!(first_out, Some(lat));
        let want: Vec<u16> = sent.iter().flat_map(|cw| s.to_beats(cw).concat()).collect();
        assert_eq!(got, want);
        assert_eq!(dec.outputs().corrected_symbols, 15 * words as u64);
    }
}
