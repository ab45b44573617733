//! The temporal bonding stages of a RIFL node (`user_clk_ratio` 2 or 4) against their models
//! (`model::tbond`): `clk` and `user_clk` of one source driven edge by edge, an edge both share
//! one evaluation with both clocks rising (as the GT width converter's co-simulation does), the
//! user clock started at every phase against `clk`. The `clk` side's signals change only right
//! after a `clk` edge (they are `clk` registers in the node); the user side's at every
//! `user_clk` edge. Random packets, gaps on both sides, backpressure on both sides, and runs at
//! full rate. Every output compared after every edge (data on its kept bytes); a scoreboard checks that what crosses
//! between the clocks is the packets sent, each byte once, in order.

use super::{Options, Tally};
use crate::{Bench, Dut, PortId, SimError, TestRng};
use rtl_gen::bits::Bits;
use rtl_gen::blocks::rifl::model::tbond::{Beat, BondRx, BondTx};
use rtl_gen::blocks::rifl::RiflBondParams;
use rtl_gen::elab::ElabModule;

/// The two clocks and both resets of a stage.
struct Clocks {
    clk: PortId,
    user: PortId,
    resets: [PortId; 2],
    low: bool,
    /// user_clk edges per clk edge (`user_clk_ratio`).
    ratio: usize,
}

impl Clocks {
    fn of(dut: &Dut, ratio: usize) -> Result<Clocks, SimError> {
        let low = dut.port("rst_n").is_ok();
        let resets = if low { [dut.port("rst_n")?, dut.port("user_rst_n")?] } else { [dut.port("rst")?, dut.port("user_rst")?] };
        Ok(Clocks { clk: dut.port("clk")?, user: dut.port("user_clk")?, resets, low, ratio })
    }

    /// Both domains in reset for a few clk cycles, then `start` user_clk edges before the first
    /// clk edge after release (any phase out of reset).
    fn reset(&self, dut: &mut Dut) -> Result<(), SimError> {
        for &p in &self.resets {
            dut.set_port_u64(p, u64::from(!self.low))?;
        }
        for _ in 0..3 {
            self.shared_edge(dut)?;
            self.fall(dut)?;
            for _ in 1..self.ratio {
                self.user_edge(dut)?;
                self.fall(dut)?;
            }
        }
        for &p in &self.resets {
            dut.set_port_u64(p, u64::from(self.low))?;
        }
        dut.eval();
        Ok(())
    }

    /// The start of one run: reset, nothing offered and nothing accepted, then `start` user_clk
    /// edges alone (the model's `user_edge` with them) before the first clk edge, so every phase
    /// of user_clk against clk is tried.
    fn start_run(&self, dut: &mut Dut, empty: &Beat, start: usize, mut user_edge: impl FnMut()) -> Result<(), SimError> {
        self.reset(dut)?;
        set_beat(dut, "in", None, empty)?;
        dut.set_u64("out_ready", 0)?;
        for _ in 0..start {
            user_edge();
            self.user_edge(dut)?;
            self.fall(dut)?;
        }
        Ok(())
    }

    /// A rising edge of both clocks in one evaluation, then both fall.
    fn shared_edge(&self, dut: &mut Dut) -> Result<(), SimError> {
        dut.set_port_u64(self.clk, 1)?;
        dut.set_port_u64(self.user, 1)?;
        dut.eval();
        Ok(())
    }

    /// A rising edge of user_clk alone.
    fn user_edge(&self, dut: &mut Dut) -> Result<(), SimError> {
        dut.clock_edge(self.user, true)
    }

    /// The falling half: user_clk falls, clk too (mid clk cycle is where its level does not
    /// matter: only rising edges are used).
    fn fall(&self, dut: &mut Dut) -> Result<(), SimError> {
        dut.set_port_u64(self.clk, 0)?;
        dut.clock_edge(self.user, false)
    }
}

/// A packet as beats of `bytes` each: all kept but the last, which keeps 1..=bytes (all with
/// `whole`).
fn packet(bytes: usize, beats: usize, whole: bool, rng: &mut TestRng) -> Vec<Beat> {
    (0..beats)
        .map(|k| {
            let last = k + 1 == beats;
            let kept = if last && !whole { rng.range(1, bytes as u64) as usize } else { bytes };
            let mut keep = Bits::zeros(bytes);
            for i in 0..kept {
                keep.set(i, true);
            }
            let mut data = rng.bits(8 * bytes);
            // Bytes not kept are zero, as the node's streams give them.
            for i in kept..bytes {
                data.set_byte(i, 0);
            }
            Beat { data, keep, last }
        })
        .collect()
}

/// The kept bytes of beats, a packet ending at each `last`.
fn stream_bytes(beats: &[Beat]) -> Vec<u8> {
    let mut out = Vec::new();
    for b in beats {
        out.extend((0..b.keep.width()).filter(|&i| b.keep.get(i)).map(|i| b.data.byte(i)));
        if b.last {
            out.push(0xA5);
            out.push(0x5A);
        }
    }
    out
}

fn set_beat(dut: &mut Dut, prefix: &str, beat: Option<&Beat>, empty: &Beat) -> Result<(), SimError> {
    let b = beat.unwrap_or(empty);
    dut.set_u64(&format!("{prefix}_valid"), u64::from(beat.is_some()))?;
    dut.set(&format!("{prefix}_data"), &b.data)?;
    dut.set(&format!("{prefix}_keep"), &b.keep)?;
    dut.set_u64(&format!("{prefix}_last"), u64::from(b.last))
}

fn get_beat(dut: &Dut, prefix: &str) -> Result<Option<Beat>, SimError> {
    if dut.get_u64(&format!("{prefix}_valid"))? == 0 {
        return Ok(None);
    }
    Ok(Some(Beat { data: dut.get(&format!("{prefix}_data"))?, keep: dut.get(&format!("{prefix}_keep"))?, last: dut.get_u64(&format!("{prefix}_last"))? == 1 }))
}

/// The kept bytes of a beat, the others zero: a short group's bytes above its last beat are
/// whatever the data registers (not reset) last held, in the RTL as its documentation says.
fn kept(b: &Beat) -> Bits {
    let mut d = b.data.clone();
    for i in 0..b.keep.width() {
        if !b.keep.get(i) {
            d.set_byte(i, 0);
        }
    }
    d
}

fn compare_beat(t: &mut Tally, what: &str, model: Option<Beat>, rtl: Option<Beat>) {
    let c = t.cycles;
    t.compare(c, &format!("{what}_valid"), model.is_some(), rtl.is_some());
    if let (Some(m), Some(r)) = (model, rtl) {
        t.compare_bits(c, &format!("{what}_data (kept bytes)"), &kept(&m), &kept(&r));
        t.compare_bits(c, &format!("{what}_keep"), &m.keep, &r.keep);
        t.compare(c, &format!("{what}_last"), m.last, r.last);
    }
}

/// The traffic of one run: probabilities of offering (valid) and accepting (ready) per cycle.
#[derive(Debug, Clone, Copy)]
struct Traffic {
    offer: f64,
    accept: f64,
}

const TRAFFIC: [Traffic; 3] = [Traffic { offer: 1.0, accept: 1.0 }, Traffic { offer: 0.6, accept: 1.0 }, Traffic { offer: 0.8, accept: 0.5 }];

/// What a stage takes in: user beats (the TX stage) or clk groups of `user_clk_ratio` beats (RX).
#[derive(Debug, Clone, Copy)]
enum Input {
    UserBeats,
    ClkGroups,
}

/// A stage under test: its simulation, its clocks, user beat width `w`, ratio `t`, edges per
/// run, and an idle input beat.
struct Stage {
    dut: Dut,
    clocks: Clocks,
    w: usize,
    t: usize,
    edges: usize,
    empty: Beat,
}

impl Stage {
    fn build(bench: &Bench, m: &ElabModule, opts: &Options, input: Input) -> Result<Stage, SimError> {
        let bp = super::kind_params::<RiflBondParams>(m)?;
        let (w, t) = (bp.user_bits as usize, bp.user_clk_ratio as usize);
        let dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
        let clocks = Clocks::of(&dut, t)?;
        let edges = (opts.vectors as usize / (t * TRAFFIC.len())).max(400);
        let empty = Beat::empty(match input {
            Input::UserBeats => w,
            Input::ClkGroups => t * w,
        });
        Ok(Stage { dut, clocks, w, t, edges, empty })
    }
}

/// Every run of a stage: each phase of user_clk against clk, under each traffic.
fn runs(t: usize) -> impl Iterator<Item = (usize, Traffic)> {
    (0..t).flat_map(|start| TRAFFIC.into_iter().map(move |traffic| (start, traffic)))
}

/// `temporal_bond_tx`: user beats in, groups out to clk.
pub fn bond_tx(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let Stage { mut dut, clocks, w, t, edges, empty } = Stage::build(bench, m, opts, Input::UserBeats)?;
    let mut tally = Tally::default();
    for (start, traffic) in runs(t) {
        let mut model = BondTx::new(w as u32, t as u32);
        clocks.start_run(&mut dut, &empty, start, || model.fast_edge(None, false))?;
        let (mut sent, mut crossed) = (Vec::new(), Vec::new());
        let mut pending: std::collections::VecDeque<Beat> = Default::default();
        let mut offered: Option<Beat> = None;
        let mut out_ready = false;
        for e in 0..edges {
            let shared = e % t == 0;
            if pending.is_empty() {
                let beats = rng.range(1, 3 * t as u64 + 1) as usize;
                pending.extend(packet(w / 8, beats, false, rng));
            }
            // AXI: an offered beat stays until taken.
            if offered.is_none() && rng.chance(traffic.offer) {
                offered = pending.pop_front();
            }
            set_beat(&mut dut, "in", offered.as_ref(), &empty)?;
            dut.eval();
            tally.compare(tally.cycles, "in_ready", model.in_ready(), dut.get_u64("in_ready")? == 1);
            let taken = offered.is_some() && model.in_ready();
            if shared && model.out.is_some() && out_ready {
                crossed.push(model.out_beat());
            }
            model.fast_edge(offered.as_ref(), out_ready);
            if shared {
                model.clk_edge();
                clocks.shared_edge(&mut dut)?;
                // The clk side's ready is a clk register: it changes after clk edges only.
                out_ready = rng.chance(traffic.accept);
                dut.set_u64("out_ready", u64::from(out_ready))?;
            } else {
                clocks.user_edge(&mut dut)?;
            }
            if taken {
                sent.push(offered.take().expect("the taken beat"));
            }
            compare_beat(&mut tally, "out", model.out.clone(), get_beat(&dut, "out")?);
            tally.compare(tally.cycles, "in_ready", model.in_ready(), dut.get_u64("in_ready")? == 1);
            clocks.fall(&mut dut)?;
            tally.vectors += 1;
            tally.cycles += 1;
        }
        // Every group that crossed is the next bytes of the packets sent, in order.
        let (s, c) = (stream_bytes(&sent), stream_bytes(&crossed));
        tally.compare(tally.cycles, "groups crossed are the beats sent, in order", true, !c.is_empty() && s.starts_with(&c));
    }
    Ok(tally)
}

/// `temporal_bond_rx`: groups in from clk, user beats out.
pub fn bond_rx(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let Stage { mut dut, clocks, w, t, edges, empty } = Stage::build(bench, m, opts, Input::ClkGroups)?;
    let mut tally = Tally::default();
    for (start, traffic) in runs(t) {
        let mut model = BondRx::new(w as u32, t as u32);
        clocks.start_run(&mut dut, &empty, start, || model.fast_edge(None, false))?;
        let (mut sent, mut got) = (Vec::new(), Vec::new());
        let mut pending: std::collections::VecDeque<Beat> = Default::default();
        let mut offered: Option<Beat> = None;
        let (mut full_rate_gaps, mut busy) = (0usize, false);
        // At full rate groups are whole (T beats each), so the beats never stop once they flow.
        let full_rate = traffic.offer == 1.0 && traffic.accept == 1.0;
        for e in 0..edges {
            let shared = e % t == 0;
            let out_ready = rng.chance(traffic.accept);
            dut.set_u64("out_ready", u64::from(out_ready))?;
            dut.eval();
            tally.compare(tally.cycles, "in_ready", model.ready, dut.get_u64("in_ready")? == 1);
            compare_beat(&mut tally, "out", model.out(), get_beat(&dut, "out")?);
            let out = model.out();
            if let (Some(b), true) = (&out, out_ready) {
                got.push(b.clone());
            }
            if full_rate {
                full_rate_gaps += usize::from(busy && out.is_none());
                busy |= out.is_some();
            }
            let taken = shared && offered.is_some() && model.ready;
            model.fast_edge(offered.as_ref(), out_ready);
            if shared {
                model.clk_edge();
                clocks.shared_edge(&mut dut)?;
                if taken {
                    sent.push(offered.take().expect("the taken group"));
                }
                // The clk side's offer is a clk register: it changes after clk edges only.
                if pending.is_empty() {
                    let groups = rng.range(1, 3) as usize;
                    pending.extend(packet(t * w / 8, groups, full_rate, rng));
                }
                if offered.is_none() && rng.chance(traffic.offer) {
                    offered = pending.pop_front();
                }
                set_beat(&mut dut, "in", offered.as_ref(), &empty)?;
            } else {
                clocks.user_edge(&mut dut)?;
            }
            compare_beat(&mut tally, "out", model.out(), get_beat(&dut, "out")?);
            clocks.fall(&mut dut)?;
            tally.vectors += 1;
            tally.cycles += 1;
        }
        let (s, g) = (stream_bytes(&sent), stream_bytes(&got));
        tally.compare(tally.cycles, "user beats are the groups sent, in order", true, !g.is_empty() && s.starts_with(&g));
        tally.compare(tally.cycles, "no bubble at full rate", 0, full_rate_gaps);
    }
    Ok(tally)
}
