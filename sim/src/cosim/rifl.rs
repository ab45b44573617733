//! RIFL (`rifl`): every module of a node against the block's model, cycle by cycle.
//!
//! * `frame_crc`, `frame_encode`, `frame_check` (combinational): corner lines (all zeros, all
//!   ones, every control frame, a walking one through the line region, frame IDs 0 and the
//!   largest), then random lines; the checker also gets the faults it exists to catch: 1..3
//!   flipped bits, an illegal SYN, a frame checked against another frame ID.
//! * `scrambler`, `descrambler`: runs of zeros and ones, random data, `en` low (the state must
//!   hold), a reset in the middle.
//! * `tx`: one lane's transmitter under slowly toggling random flags (every state of Fig. 4, the
//!   retransmission procedure, flow-control frames) and a consumer that takes segments at random.
//! * `rx`: one lane's receiver fed by a model transmitter that retransmits when this receiver
//!   flags an error, with flipped bits, illegal SYNs, garbage frames and stray pause requests
//!   injected on the way.
//! * `fifo`: the flow-control buffer in phases that fill it past full and drain it to empty.
//! * `tx_gear`, `rx_gear`: random packets with idle beats and output backpressure.
//! * `node`: two Verilated nodes, each with a model in lockstep, in a link with bit errors,
//!   transceiver stalls, idle sources and backpressure; the link's scoreboard checks
//!   exactly-once in-order delivery on top.
//!
//! Every output is compared every cycle and counted into the [`Tally`]. The `*_run` functions
//! also return what the stimulus reached (states visited, frames corrupted, …), which the tests
//! assert so that a quiet run cannot pass for a thorough one.

use super::{Options, Tally};
use crate::link::rifl::rtl::UserStreams;
use crate::link::rifl::{Link, LinkSetup, NodeIo};
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::blocks::rifl::model::codec::{Codec, Ctrl, SYN_CTRL, SYN_DATA};
use rtl_gen::blocks::rifl::model::fifo::Fifo;
use rtl_gen::blocks::rifl::model::gearbox::Gearbox;
use rtl_gen::blocks::rifl::model::node::{Node, NodeIn, NodeOut};
use rtl_gen::blocks::rifl::model::rx::RxLane;
use rtl_gen::blocks::rifl::model::scrambler::{Descrambler, Scrambler};
use rtl_gen::blocks::rifl::model::tx::{TxIn, TxLane, TxState};
use rtl_gen::blocks::rifl::model::Params;
use rtl_gen::blocks::rifl::{RiflGearParams, RiflLaneParams, RiflParams};
use rtl_gen::elab::ElabModule;
use rtl_gen::hw::axis::Signal;
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

/// The parameters of the `rifl` node module `m`.
pub fn params(m: &ElabModule) -> Result<Params, SimError> {
    Ok(super::kind_params::<RiflParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?.model_params)
}

/// The model parameters of a lane module `m` (`_tx`, `_rx`, `_fifo`, the codec and the
/// scramblers), from the lane parameters it was built from.
pub fn lane_params(m: &ElabModule) -> Result<Params, SimError> {
    Ok(super::kind_params::<RiflLaneParams>(m)?.params())
}

fn build(bench: &Bench, m: &ElabModule, tag: &str) -> Result<Dut, SimError> {
    Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}{tag}", m.name()))
}

fn bit(dut: &Dut, port: &str) -> Result<bool, SimError> {
    Ok(dut.get_u64(port)? == 1)
}

/// `count` ones from bit 0 (AXI4-Stream tkeep of `count` bytes).
pub fn thermo(count: usize, width: usize) -> Bits {
    let mut b = Bits::zeros(width);
    for i in 0..count.min(width) {
        b.set(i, true);
    }
    b
}

/// The count of a thermometer code; `None` if the ones are not contiguous from bit 0.
pub fn thermo_count(b: &Bits) -> Option<usize> {
    let n = b.count_ones() as usize;
    (0..b.width()).all(|i| b.get(i) == (i < n)).then_some(n)
}

/// A raw region as a user segment could be: meta 01/10/11 with payload bytes (the partial one
/// with its format code), or a filler.
pub(crate) fn random_raw(rng: &mut TestRng, c: &Codec) -> Bits {
    let s = c.p.payload_bytes();
    let bytes = rng.bytes(s);
    match rng.range(0, 3) {
        0 => c.data_raw(1, &bytes),
        1 => c.data_raw(3, &bytes),
        2 => {
            let k = rng.range(1, s as u64 - 1) as usize;
            let mut b = bytes[..k].to_vec();
            b.resize(s - 1, 0);
            b.push(k as u8);
            c.data_raw(2, &b)
        }
        _ => Bits::zeros(c.p.raw_bits()),
    }
}

// ---- frame codec: CRC, encoder, checker ----

/// One codec vector: SYN, line region `{meta, payload}`, frame ID.
struct Line {
    syn: u8,
    line: Bits,
    id: u32,
}

/// Corner lines (both SYNs each), then `random` random ones.
fn codec_lines(c: &Codec, random: u64, rng: &mut TestRng) -> Vec<Line> {
    let p = c.p;
    let w = p.raw_bits();
    let mut lines = vec![Bits::zeros(w), Bits::ones(w)];
    for k in [Ctrl::Idle, Ctrl::PauseRequest, Ctrl::RetransmitRequest] {
        lines.push(c.to_line(&c.control_raw(k)));
    }
    for i in 0..w {
        let mut b = Bits::zeros(w);
        b.set(i, true);
        lines.push(b);
    }
    let mut out = Vec::new();
    for (k, line) in lines.into_iter().enumerate() {
        for syn in [SYN_DATA, SYN_CTRL] {
            let id = if k % 2 == 0 { 0 } else { p.id_mask() };
            out.push(Line { syn, line: line.clone(), id });
        }
    }
    for _ in 0..random {
        let line = rng.bits(w);
        let syn = if rng.chance(0.5) { SYN_DATA } else { SYN_CTRL };
        let id = rng.range(0, p.id_mask() as u64) as u32;
        out.push(Line { syn, line, id });
    }
    out
}

/// `frame_crc`: `data` = `{payload, 5'b0, syn[1], meta}` of a line `{meta, payload}`.
pub fn frame_crc(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let p = lane_params(m)?;
    let c = Codec::new(p);
    let mut dut = build(bench, m, "")?;
    let mut t = Tally::default();
    for (i, v) in codec_lines(&c, opts.vectors, rng).into_iter().enumerate() {
        let mut msg = Bits::zeros(p.crc_msg_bits());
        msg.set_slice(0, &v.line.slice(p.payload_bits(), 2));
        msg.set(2, v.syn == SYN_CTRL);
        msg.set_slice(8, &v.line.slice(0, p.payload_bits()));
        dut.set("data", &msg)?;
        dut.eval();
        t.compare(i as u64, "crc", c.crc(v.syn == SYN_CTRL, &v.line) as u64, dut.get_u64("crc")?);
        t.vectors += 1;
    }
    Ok(t)
}

/// `frame_encode`: the whole frame `{vcode, line, syn}`.
pub fn frame_encode(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let p = lane_params(m)?;
    let c = Codec::new(p);
    let mut dut = build(bench, m, "")?;
    let mut t = Tally::default();
    for (i, v) in codec_lines(&c, opts.vectors, rng).into_iter().enumerate() {
        dut.set_u64("syn", v.syn as u64)?;
        dut.set("line", &v.line)?;
        dut.set_u64("id", v.id as u64)?;
        dut.eval();
        t.compare_bits(i as u64, "frame", &c.encode(v.syn, &v.line, v.id), &dut.get("frame")?);
        t.vectors += 1;
    }
    Ok(t)
}

/// What the checker's stimulus reached.
#[derive(Debug, Clone, Default)]
pub struct CheckStats {
    /// Random vectors the model accepted / rejected (corner vectors not counted).
    pub accepted: u64,
    pub rejected: u64,
    pub random: u64,
}

/// `frame_check` with its statistics.
pub fn frame_check_run(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<(Tally, CheckStats), SimError> {
    let p = lane_params(m)?;
    let c = Codec::new(p);
    let mut dut = build(bench, m, "")?;
    let mut t = Tally::default();
    let mut s = CheckStats::default();
    let lines = codec_lines(&c, opts.vectors, rng);
    let corners = lines.len() as u64 - opts.vectors;
    let f = p.frame_width();
    let mut i = 0u64;
    let mut check = |dut: &mut Dut, frame: &Bits, id: u32, t: &mut Tally| -> Result<bool, SimError> {
        dut.set("frame", frame)?;
        dut.set_u64("id", id as u64)?;
        dut.eval();
        let m = c.check(frame, id);
        t.compare(i, "legal", m.legal, bit(dut, "legal")?);
        t.compare(i, "ok", m.ok, bit(dut, "ok")?);
        t.vectors += 1;
        i += 1;
        Ok(m.ok)
    };
    for (k, v) in lines.into_iter().enumerate() {
        let sent = c.encode(v.syn, &v.line, v.id);
        if (k as u64) < corners {
            // Each corner frame as sent, with a flipped bit in the verification code, with an
            // illegal SYN (00 and 11) and against the next frame ID.
            check(&mut dut, &sent, v.id, &mut t)?;
            let mut bad = sent.clone();
            bad.flip(f - 1 - k % 12);
            check(&mut dut, &bad, v.id, &mut t)?;
            let mut bad = sent.clone();
            bad.set_field(0, 2, if k % 2 == 0 { 0 } else { 3 });
            check(&mut dut, &bad, v.id, &mut t)?;
            check(&mut dut, &sent, (v.id + 1) & p.id_mask(), &mut t)?;
            continue;
        }
        let mut rx = sent;
        let mut rx_id = v.id;
        match rng.range(0, 5) {
            0 | 1 => {}
            2 => {
                for _ in 0..rng.range(1, 3) {
                    rx.flip(rng.range(0, f as u64 - 1) as usize);
                }
            }
            3 => rx.set_field(0, 2, if rng.chance(0.5) { 0 } else { 3 }),
            _ => rx_id = (v.id + rng.range(1, p.id_mask() as u64) as u32) & p.id_mask(),
        }
        let ok = check(&mut dut, &rx, rx_id, &mut t)?;
        s.random += 1;
        if ok {
            s.accepted += 1;
        } else {
            s.rejected += 1;
        }
    }
    Ok((t, s))
}

pub fn frame_check(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    frame_check_run(bench, m, opts, rng).map(|(t, _)| t)
}

// ---- scrambler pair ----

fn scrambler_pair(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng, descramble: bool) -> Result<Tally, SimError> {
    let p = lane_params(m)?;
    let w = p.raw_bits();
    let mut dut = build(bench, m, "")?;
    dut.reset(1)?;
    let mut tx = Scrambler::new();
    let mut rx = Descrambler::new();
    let mut t = Tally::default();
    let n = opts.vectors + 200;
    for cyc in 0..n {
        // 64 cycles of zeros, 64 of ones, 72 with `en` toggling on all-ones data, then random.
        let (en, din) = match cyc {
            0..=63 => (true, Bits::zeros(w)),
            64..=127 => (true, Bits::ones(w)),
            128..=199 => (cyc % 3 != 0, Bits::ones(w)),
            _ => (rng.chance(0.8), rng.bits(w)),
        };
        if cyc == 200 + opts.vectors / 2 {
            // A reset in the middle: both back to the initial state.
            dut.reset(1)?;
            tx = Scrambler::new();
            rx = Descrambler::new();
        }
        dut.set_u64("en", en as u64)?;
        dut.set("din", &din)?;
        dut.eval();
        // The output is combinational in din and the state: the model on a copy when the state
        // must not advance.
        let expected = match (descramble, en) {
            (false, true) => tx.scramble(&din),
            (false, false) => tx.clone().scramble(&din),
            (true, true) => rx.descramble(&din),
            (true, false) => rx.clone().descramble(&din),
        };
        t.compare_bits(cyc, "dout", &expected, &dut.get("dout")?);
        dut.tick();
        t.vectors += 1;
        t.cycles += 1;
    }
    Ok(t)
}

pub fn scrambler(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    scrambler_pair(bench, m, opts, rng, false)
}

pub fn descrambler(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    scrambler_pair(bench, m, opts, rng, true)
}

// ---- TX lane ----

/// A slowly changing random flag: toggles with probability `p_on` when low, `p_off` when high.
struct Flag {
    v: bool,
    p_on: f64,
    p_off: f64,
}

impl Flag {
    fn new(p_on: f64, p_off: f64) -> Flag {
        Flag { v: false, p_on, p_off }
    }
    fn step(&mut self, rng: &mut TestRng) -> bool {
        if rng.chance(if self.v { self.p_off } else { self.p_on }) {
            self.v = !self.v;
        }
        self.v
    }
}

/// What the TX stimulus reached.
#[derive(Debug, Clone, Default)]
pub struct TxStats {
    /// Distinct states of the model's controller seen (of 6).
    pub states: usize,
    /// Retransmission procedures started.
    pub retrans_starts: u64,
    /// User segments taken.
    pub user_segments: u64,
}

/// `tx` with its statistics: `opts.vectors` cycles.
pub fn tx_run(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<(Tally, TxStats), SimError> {
    let p = lane_params(m)?;
    let c = Codec::new(p);
    let mut dut = build(bench, m, "")?;
    dut.reset(2)?;
    let mut model = TxLane::new(p);
    let mut oos = Flag::new(0.0005, 0.05);
    let mut pause = Flag::new(0.0005, 0.02);
    let mut retr = Flag::new(0.002, 0.01);
    let mut ferr = Flag::new(0.002, 0.02);
    let mut rfc = Flag::new(0.003, 0.01);
    let mut high = Flag::new(0.003, 0.01);
    let mut low = Flag::new(0.01, 0.01);
    let mut seen = HashSet::new();
    let mut s = TxStats::default();
    let mut t = Tally::default();
    for cyc in 0..opts.vectors {
        let seg = random_raw(rng, &c);
        let mut i = TxIn {
            en: rng.chance(0.9),
            out_of_sync: oos.step(rng),
            pause_req: pause.step(rng),
            retrans_req: retr.step(rng),
            frame_error: ferr.step(rng),
            remote_fc: rfc.step(rng),
            fc_high: high.step(rng),
            fc_low: low.step(rng),
            seg_take: false,
            seg_raw: &seg,
        };
        for (port, v) in [
            ("en", i.en),
            ("out_of_sync", i.out_of_sync),
            ("pause_req", i.pause_req),
            ("retrans_req", i.retrans_req),
            ("frame_error", i.frame_error),
            ("remote_fc", i.remote_fc),
            ("fc_high", i.fc_high),
            ("fc_low", i.fc_low),
            ("seg_take", false),
        ] {
            dut.set_u64(port, v as u64)?;
        }
        dut.set("seg_raw", &seg)?;
        dut.eval();
        let comb = model.comb(&i);
        seen.insert(comb.state);
        let code = dut.get_u64("state")?;
        t.compare(cyc, "state", format!("{:?}", comb.state), TxState::from_code(code).map(|s| format!("{s:?}")).unwrap_or_else(|| format!("illegal code {code}")));
        t.compare(cyc, "seg_ready", comb.seg_ready, bit(&dut, "seg_ready")?);
        t.compare(cyc, "retrans_start", comb.retrans_start, bit(&dut, "retrans_start")?);
        t.compare(cyc, "pause_event", comb.pause_event, bit(&dut, "pause_event")?);
        // The consumer takes what the model offers (a mismatch there is already counted).
        i.seg_take = i.en && comb.seg_ready && rng.chance(0.7);
        dut.set_u64("seg_take", i.seg_take as u64)?;
        s.retrans_starts += comb.retrans_start as u64;
        s.user_segments += i.seg_take as u64;
        dut.tick();
        model.tick(&i);
        t.compare_bits(cyc, "tx_frame", &model.frame, &dut.get("tx_frame")?);
        t.vectors += 1;
        t.cycles += 1;
    }
    s.states = seen.len();
    Ok((t, s))
}

pub fn tx(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    tx_run(bench, m, opts, rng).map(|(t, _)| t)
}

// ---- RX lane ----

/// What the RX stimulus reached.
#[derive(Debug, Clone, Default)]
pub struct RxStats {
    /// Raw regions the receiver delivered.
    pub delivered: u64,
    /// Frames corrupted on the way (flipped bit, illegal SYN, garbage).
    pub corrupted: u64,
    /// Frames the model's receiver failed (Listing 1).
    pub failed: u64,
}

/// `rx` with its statistics: `opts.vectors` cycles.
pub fn rx_run(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<(Tally, RxStats), SimError> {
    let p = lane_params(m)?;
    let c = Codec::new(p);
    let mut dut = build(bench, m, "")?;
    dut.reset(2)?;
    let mut model = RxLane::new(p);
    // The frames come from a model transmitter that retransmits while this receiver has a frame
    // error, corrupted on the way.
    let mut src = TxLane::new(p);
    let mut s = RxStats::default();
    let mut t = Tally::default();
    for cyc in 0..opts.vectors {
        let seg = random_raw(rng, &c);
        let en = rng.chance(0.9);
        let ti = TxIn {
            en,
            out_of_sync: false,
            pause_req: false,
            retrans_req: model.frame_error,
            frame_error: false,
            remote_fc: false,
            fc_high: false,
            fc_low: false,
            seg_take: false,
            seg_raw: &seg,
        };
        let take = src.comb(&ti).seg_ready && rng.chance(0.8);
        let ti = TxIn { seg_take: take, ..ti };
        let mut frame = src.frame.clone();
        src.tick(&ti);
        match rng.range(0, 3999) {
            0..=4 => {
                frame.flip(rng.range(0, p.frame_width() as u64 - 1) as usize);
                s.corrupted += 1;
            }
            5 => {
                frame.set_field(0, 2, 0);
                s.corrupted += 1;
            }
            6 => {
                frame = rng.bits(p.frame_width());
                s.corrupted += 1;
            }
            7 => frame = c.encode(SYN_CTRL, &c.to_line(&c.control_raw(Ctrl::PauseRequest)), rng.range(0, p.id_mask() as u64) as u32),
            _ => {}
        }
        dut.set_u64("in_valid", en as u64)?;
        dut.set("in_frame", &frame)?;
        dut.tick();
        model.tick(en, &frame);
        s.delivered += model.out_valid as u64;
        t.compare(cyc, "out_valid", model.out_valid, bit(&dut, "out_valid")?);
        if model.out_valid {
            t.compare_bits(cyc, "out_raw", &model.out_raw, &dut.get("out_raw")?);
        }
        t.compare(cyc, "out_of_sync", model.out_of_sync, bit(&dut, "out_of_sync")?);
        t.compare(cyc, "pause_req", model.pause_req, bit(&dut, "pause_req")?);
        t.compare(cyc, "retrans_req", model.retrans_req, bit(&dut, "retrans_req")?);
        t.compare(cyc, "frame_error", model.frame_error, bit(&dut, "frame_error")?);
        t.compare(cyc, "remote_fc", model.remote_fc, bit(&dut, "remote_fc")?);
        t.compare(cyc, "err_pulse", model.err_pulse, bit(&dut, "err_pulse")?);
        t.vectors += 1;
        t.cycles += 1;
    }
    s.failed = model.failed;
    Ok((t, s))
}

pub fn rx(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    rx_run(bench, m, opts, rng).map(|(t, _)| t)
}

// ---- flow-control buffer ----

/// What the FIFO stimulus reached.
#[derive(Debug, Clone, Default)]
pub struct FifoStats {
    /// Pushes into a full buffer (dropped, as the model counts them).
    pub overflows: u64,
    /// Cycles above the ON threshold / below the OFF threshold.
    pub high_cycles: u64,
    pub low_cycles: u64,
    pub max_level: u32,
}

/// `fifo` with its statistics: `opts.vectors` cycles.
pub fn fifo_run(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<(Tally, FifoStats), SimError> {
    let p = lane_params(m)?;
    let mut dut = build(bench, m, "")?;
    dut.reset(2)?;
    let mut model = Fifo::new(&p);
    let mut s = FifoStats::default();
    let mut t = Tally::default();
    for cyc in 0..opts.vectors {
        // Phases that fill up to full and drain to empty.
        let phase = (cyc / 1500) % 4;
        let (pp, pq) = [(0.9, 0.3), (0.5, 0.5), (0.2, 0.9), (1.0, 0.0)][phase as usize];
        let push = rng.chance(pp);
        let pop = rng.chance(pq);
        let din = rng.bits(p.raw_bits());
        dut.set_u64("push", push as u64)?;
        dut.set_u64("pop", pop as u64)?;
        dut.set("din", &din)?;
        dut.eval();
        t.compare(cyc, "dout_valid", model.head_valid, bit(&dut, "dout_valid")?);
        if model.head_valid {
            t.compare_bits(cyc, "dout", &model.head, &dut.get("dout")?);
        }
        t.compare(cyc, "high", model.high(), bit(&dut, "high")?);
        t.compare(cyc, "low", model.low(), bit(&dut, "low")?);
        s.high_cycles += model.high() as u64;
        s.low_cycles += model.low() as u64;
        dut.tick();
        model.tick(push, &din, pop);
        t.vectors += 1;
        t.cycles += 1;
    }
    s.overflows = model.overflows;
    s.max_level = model.max_level;
    Ok((t, s))
}

pub fn fifo(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    fifo_run(bench, m, opts, rng).map(|(t, _)| t)
}

// ---- gearboxes ----

/// What a gearbox's stimulus reached.
#[derive(Debug, Clone, Default)]
pub struct GearStats {
    /// Output beats and packets (last beats) taken.
    pub beats: u64,
    pub packets: u64,
}

/// `tx_gear` (user → group bytes) or `rx_gear` (group → user bytes, overlapping) with random
/// packets, idle input beats and output backpressure: `opts.vectors` cycles.
pub fn gear_run(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<(Tally, GearStats), SimError> {
    let p = super::kind_params::<RiflGearParams>(m)?;
    let (u, g) = (p.user_bytes(), p.group_bytes());
    let (i_bytes, o_bytes, overlap) = match m.role {
        rtl_gen::hw::module::Role::RxGear => (g, u, true),
        _ => (u, g, false),
    };
    let mut dut = build(bench, m, "")?;
    dut.reset(2)?;
    let mut model = Gearbox::new(i_bytes, o_bytes, overlap);
    let mut pkt: Vec<u8> = Vec::new();
    let mut pos = 0usize;
    let mut s = GearStats::default();
    let mut t = Tally::default();
    for cyc in 0..opts.vectors {
        if pos >= pkt.len() {
            let len = if rng.chance(0.3) { rng.range(1, 2 * o_bytes as u64) } else { rng.range(1, 20 * i_bytes as u64) } as usize;
            pkt = rng.bytes(len);
            pos = 0;
        }
        let valid = rng.chance(0.85);
        let n = (pkt.len() - pos).min(i_bytes);
        let mut data = pkt[pos..pos + n].to_vec();
        data.extend(rng.bytes(i_bytes - n));
        let last = pos + n == pkt.len();
        let ready = rng.chance(0.8);
        dut.set_u64("in_valid", valid as u64)?;
        dut.set("in_data", &Bits::from_bytes_width(&data, 8 * i_bytes))?;
        dut.set("in_keep", &thermo(n, i_bytes))?;
        dut.set_u64("in_last", last as u64)?;
        dut.set_u64("out_ready", ready as u64)?;
        dut.eval();
        let o = model.out();
        t.compare(cyc, "in_ready", model.in_ready(ready), bit(&dut, "in_ready")?);
        t.compare(cyc, "out_valid", o.valid, bit(&dut, "out_valid")?);
        if o.valid {
            let keep = dut.get("out_keep")?;
            t.compare(cyc, "out_keep", Some(o.count), thermo_count(&keep));
            t.compare(cyc, "out_data", o.data.to_vec(), dut.get("out_data")?.to_bytes());
            t.compare(cyc, "out_last", o.last, bit(&dut, "out_last")?);
            if ready {
                s.beats += 1;
                s.packets += o.last as u64;
            }
        }
        if valid && model.in_ready(ready) {
            pos += n;
        }
        dut.tick();
        model.tick(valid, &data, n, last, ready);
        t.vectors += 1;
        t.cycles += 1;
    }
    Ok((t, s))
}

pub fn gear(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    gear_run(bench, m, opts, rng).map(|(t, _)| t)
}

// ---- whole node ----

/// A Verilated RIFL node driven as the link drives a model node, with a model node in lockstep:
/// every output compared every cycle into the shared tally (ports prefixed with the side).
struct TwinNode {
    dut: Dut,
    user: UserStreams,
    model: Node,
    p: Params,
    side: &'static str,
    tally: Rc<RefCell<Tally>>,
    cycle: u64,
    /// Set when the Verilated model reports an error (a port name wrong for this module).
    error: Rc<RefCell<Option<SimError>>>,
}

impl TwinNode {
    fn set_inputs(&mut self, i: &NodeIn) -> Result<(), SimError> {
        let (u, f, l) = (self.p.user_bytes(), self.p.frame_width(), self.p.lanes());
        let d = &mut self.dut;
        self.user.drive(d, &i.s_data[..u], i.s_count, i.s_last, i.s_valid, i.m_ready)?;
        d.set_u64("tx_ready", i.tx_ready as u64)?;
        let mut rx = Bits::zeros(l * f);
        let mut valid = Bits::zeros(l);
        for j in 0..l {
            rx.set_slice(j * f, &i.rx_frame[j]);
            valid.set(j, i.rx_valid[j]);
        }
        d.set("rx_frame", &rx)?;
        d.set("rx_valid", &valid)
    }

    /// The RTL's outputs (after the last evaluation), compared with the model's.
    fn read_and_compare(&mut self, want: &NodeOut) -> Result<NodeOut, SimError> {
        let d = &self.dut;
        let f = self.p.frame_width();
        let user = self.user.read(d)?;
        let frames = d.get("tx_frame")?;
        let got = NodeOut {
            s_ready: user.s_ready,
            m_valid: user.m_valid,
            m_data: user.m_data,
            m_count: thermo_count(&user.m_keep).unwrap_or(usize::MAX),
            m_last: user.m_last,
            tx_frame: (0..self.p.lanes()).map(|j| frames.slice(j * f, f)).collect(),
            link_up: bit(d, "link_up")?,
            frame_errors: d.get_u64("frame_errors")? as u32,
            retransmissions: d.get_u64("retransmissions")? as u32,
            pause_events: d.get_u64("pause_events")? as u32,
        };
        let side = self.side;
        let c = self.cycle;
        let mut t = self.tally.borrow_mut();
        let port = |n: &str| format!("{side}.{n}");
        let (user_in, user_out) = (&self.user.user_in, &self.user.user_out);
        t.compare(c, &port(user_in.label(Signal::Ready)), want.s_ready, got.s_ready);
        t.compare(c, &port(user_out.label(Signal::Valid)), want.m_valid, got.m_valid);
        if want.m_valid {
            // tkeep as a count (`usize::MAX`: not contiguous); the data bytes after the kept
            // ones too, as the model defines them.
            t.compare(c, &port(user_out.label(Signal::Keep)), want.m_count, got.m_count);
            t.compare(c, &port(user_out.label(Signal::Last)), want.m_last, got.m_last);
            t.compare(c, &port(user_out.label(Signal::Data)), &want.m_data, &got.m_data);
        }
        for j in 0..self.p.lanes() {
            t.compare_bits(c, &port(&format!("tx_frame[lane {j}]")), &want.tx_frame[j], &got.tx_frame[j]);
        }
        t.compare(c, &port("link_up"), want.link_up, got.link_up);
        t.compare(c, &port("frame_errors"), want.frame_errors, got.frame_errors);
        t.compare(c, &port("retransmissions"), want.retransmissions, got.retransmissions);
        t.compare(c, &port("pause_events"), want.pause_events, got.pause_events);
        t.vectors += 1;
        Ok(got)
    }

    fn fail(&self, e: SimError) {
        self.error.borrow_mut().get_or_insert(e);
    }
}

impl NodeIo for TwinNode {
    fn params(&self) -> Params {
        self.p
    }

    /// The link sees the RTL's outputs; the model's are compared with them.
    fn eval(&mut self, i: &NodeIn) -> NodeOut {
        let want = self.model.outputs();
        let r = self.set_inputs(i).and_then(|_| {
            self.dut.eval();
            self.read_and_compare(&want)
        });
        r.unwrap_or_else(|e| {
            self.fail(e);
            want
        })
    }

    fn tick(&mut self, i: &NodeIn) {
        if let Err(e) = self.set_inputs(i) {
            self.fail(e);
        }
        self.dut.tick();
        self.model.tick(i);
        self.cycle += 1;
    }
}

/// How the node link runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeLink {
    /// Bit error rate of both channels.
    pub ber: f64,
    /// Channel delay in cycles per direction.
    pub delay: usize,
    /// Packets per direction, and their length range in bytes.
    pub packets: u64,
    pub min_len: usize,
    pub max_len: usize,
    /// Probability that a transceiver does not take the frames in a cycle.
    pub tx_stall: f64,
    /// Probability that the a → b sink is not ready in a cycle.
    pub backpressure: f64,
    /// Probability that the b → a source idles in a cycle.
    pub idle: f64,
    /// Sources stop starting packets after this many cycles (0: only `packets` limits them).
    pub traffic_cycles: u64,
    /// Give up (and count it) after this many cycles.
    pub max_cycles: u64,
}

impl NodeLink {
    /// Faults and backpressure sized for `p`; traffic for `cycles` cycles, then drained.
    pub fn busy(p: &Params, cycles: u64) -> NodeLink {
        let max_len = 10 * p.user_bytes();
        // A retransmission procedure lasts 2.5·2^n slots; a frame error on any lane during it
        // starts another, so past about one error per procedure the link livelocks (the model
        // and the RTL alike: RIFL(256,1024) with 8-bit IDs delivers 13 of 99 packets in 300k
        // cycles at 1e-5). 0.3 errors per procedure keeps it busy but progressing.
        let per_procedure = p.lanes() as f64 * p.frame_width() as f64 * 2.5 * p.ids() as f64;
        NodeLink { ber: (0.3 / per_procedure).min(1e-5), delay: 9, packets: u64::MAX / 4, min_len: 1, max_len, tx_stall: 0.05, backpressure: 0.6, idle: 0.3, traffic_cycles: cycles.max(1), max_cycles: cycles + 200_000 }
    }
}

/// What the node link measured (model side, both nodes).
#[derive(Debug, Clone, Default)]
pub struct NodeStats {
    pub cycles: u64,
    pub packets: [u64; 2],
    pub bits_flipped: [u64; 2],
    pub frame_errors: [u32; 2],
    pub retransmissions: [u32; 2],
    /// Highest flow-control buffer level of any lane of either node.
    pub max_fifo_level: u32,
    pub fifo_overflows: u64,
    /// Whether every packet was delivered, in order and intact (the link's scoreboard).
    pub delivered: bool,
    /// The scoreboard's findings when not.
    pub errors: String,
}

/// `node`: two RTL nodes with their models in lockstep in a link set up by `setup`.
pub fn node_run(bench: &Bench, m: &ElabModule, setup: &NodeLink, rng: &mut TestRng) -> Result<(Tally, NodeStats), SimError> {
    let p = params(m)?;
    let tally = Rc::new(RefCell::new(Tally::default()));
    let error = Rc::new(RefCell::new(None));
    let twin = |side: &'static str| -> Result<TwinNode, SimError> {
        let mut dut = build(bench, m, &format!("_{side}"))?;
        dut.reset(2)?;
        Ok(TwinNode { user: UserStreams::of(&dut)?, dut, model: Node::new(p), p, side, tally: tally.clone(), cycle: 0, error: error.clone() })
    };
    let (a, b) = (twin("a")?, twin("b")?);
    let seed = rng.range(0, u64::MAX);
    let mut link = Link::new(a, b, LinkSetup { delay: setup.delay, ber: setup.ber, seed, packets: setup.packets, min_len: setup.min_len, max_len: setup.max_len });
    link.tx_stall = setup.tx_stall;
    link.flow_ab.backpressure = setup.backpressure;
    link.flow_ba.idle = setup.idle;
    if setup.traffic_cycles > 0 {
        while !link.done() && link.cycle < setup.traffic_cycles.min(setup.max_cycles) {
            link.step();
            if !link.flow_ab.errors.is_empty() || !link.flow_ba.errors.is_empty() {
                break;
            }
        }
        link.flow_ab.to_send = 0;
        link.flow_ba.to_send = 0;
    }
    let result = link.run(setup.max_cycles);
    if let Some(e) = error.borrow_mut().take() {
        return Err(e);
    }
    let (a, b) = (&link.a.model, &link.b.model);
    let fifos = || a.fifo.iter().chain(&b.fifo);
    let stats = NodeStats {
        cycles: link.cycle,
        packets: [link.flow_ab.delivered_packets, link.flow_ba.delivered_packets],
        bits_flipped: [link.ab.stats.bit_errors, link.ba.stats.bit_errors],
        frame_errors: [a.frame_errors, b.frame_errors],
        retransmissions: [a.retransmissions, b.retransmissions],
        max_fifo_level: fifos().map(|f| f.max_level).max().unwrap_or(0),
        fifo_overflows: fifos().map(|f| f.overflows).sum(),
        delivered: result.is_ok(),
        errors: result.err().unwrap_or_default(),
    };
    drop(link);
    let mut t = Rc::try_unwrap(tally).map(RefCell::into_inner).unwrap_or_default();
    t.cycles = stats.cycles;
    // Lost, duplicated or corrupted packets are a failure even if both nodes agree with their
    // models (then the model is wrong too).
    t.compare(stats.cycles, "scoreboard (every packet delivered once, in order, intact)", String::new(), stats.errors.clone());
    Ok((t, stats))
}

/// `node` with [`NodeLink::busy`] traffic for about `opts.vectors` cycles.
pub fn node(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    if super::kind_params::<RiflParams>(m)?.clocking == rtl_gen::blocks::rifl::Clocking::Recovered {
        return super::rifl_rclk::node(bench, m, opts, rng);
    }
    let setup = NodeLink::busy(&params(m)?, opts.vectors);
    node_run(bench, m, &setup, rng).map(|(t, _)| t)
}
