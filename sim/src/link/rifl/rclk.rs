//! Two Verilated RIFL nodes with `clocking = "recovered"` on unrelated clocks: each node's `clk`
//! and `free_clk` are independent clocks (`crate::clocks`: their own ppm offset and phase), and
//! each lane's `rx_clk` is the far end's `clk` as a transceiver recovers it: every edge of the far
//! end's clock arrives after the lane's channel delay (lane skew included) plus a bounded
//! random jitter of its own, carrying the frame the far end's transceiver took at that edge
//! (with random bit errors). One evaluation per edge, in time order; the scoreboard ([`Flow`])
//! checks every packet arrives exactly once, in order and bit-exact, and the run records each
//! CDC FIFO's deepest level and whether one refused an entry.
//!
//! A node with `gt_bits` (the transceiver-width form) is driven the same way at the word rate:
//! its `tx_fast_clk` is scheduled (R = frame_bits / gt_bits times `clk`, from one source) and
//! `clk` derived from it, rising with every R-th fast rising edge in the same evaluation; each
//! fast edge's `tx_fast_gt_data` word goes through the lane's channel, a bit stream delayed by
//! a whole number of *bits* of its own (so the far end's Lane Aligner must find a boundary that
//! sits anywhere in its words), and arrives on a recovered edge of the far end's lane clock.
//!
//! A node with temporal bonding (`user_clk_ratio` T) has its user streams on `user_clk`, T
//! times `clk` from the same source: the schedule then runs at the fastest of a node's related
//! clocks (`tx_fast_clk` or `user_clk`, both powers of two times `clk`), every slower one rising
//! on its own share of those edges in the same evaluation, and the flows offer and take one
//! user beat at every `user_clk` rising edge.

use super::rtl::UserStreams;
use super::{Flow, Rng};
use crate::clocks::{ClockSpec, Edges};
use crate::{Bench, Bits, Dut, PortId, SimError, TestRng};
use rtl_gen::blocks::rifl::model::rxcdc::CDC_DEPTH;
use rtl_gen::blocks::rifl::model::Params;
use rtl_gen::blocks::rifl::RiflBlock;
use rtl_gen::hw::axis::Signal;
use rtl_gen::hw::module::Role;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// A Verilated recovered-clock node and the state of its multi-bit clock and RX inputs.
pub struct RclkNode {
    pub dut: Dut,
    pub p: Params,
    user: UserStreams,
    clk: PortId,
    rst: PortId,
    rx_clk: PortId,
    rx_rst: PortId,
    free: Option<(PortId, PortId)>,
    active_low: bool,
    rx_clk_bits: u64,
    rx_valid_bits: u64,
    rx_frame: Bits,
    lb: usize,
    /// Deepest CDC FIFO level seen on each lane (write side).
    pub max_level: Vec<u64>,
    /// With `gt_bits`: the fast TX clock and its reset, and the word width.
    gt: Option<(PortId, PortId, usize)>,
    rx_gt_data: Bits,
    /// With temporal bonding: the user clock and its reset.
    user_clk: Option<(PortId, PortId)>,
}

impl RclkNode {
    /// The top of the bench's `rifl` block `block` (which has `clocking = "recovered"`).
    pub fn from_bench(bench: &Bench, block: &str, test: &str) -> Result<RclkNode, SimError> {
        let b = bench.block::<RiflBlock>(block)?;
        if b.recovered.is_none() {
            return Err(SimError::Design { message: format!("rifl block {block} has clocking = \"single\"") });
        }
        RclkNode::new(bench.dut(block, Role::Node, test)?, b.model_params)
    }

    /// A Verilated recovered-clock top with parameters `p`.
    pub fn new(dut: Dut, p: Params) -> Result<RclkNode, SimError> {
        let active_low = dut.port("rst_n").is_ok();
        let r = if active_low { "rst_n" } else { "rst" };
        let clk = dut.port("clk")?;
        let rst = dut.port(r)?;
        let rx_clk = dut.port("rx_clk")?;
        let rx_rst = dut.port(&format!("rx_{r}"))?;
        let free = match dut.port("free_clk") {
            Ok(c) => Some((c, dut.port(&format!("free_{r}"))?)),
            Err(_) => None,
        };
        let l = p.lanes();
        let lb = CDC_DEPTH.trailing_zeros() as usize + 1;
        let gt = match dut.port("tx_fast_clk") {
            Ok(c) => Some((c, dut.port(&format!("tx_fast_{r}"))?, dut.get("rx_gt_data")?.width() / l)),
            Err(_) => None,
        };
        let rx_gt_data = Bits::zeros(gt.map_or(0, |g| g.2 * l));
        let user_clk = match dut.port("user_clk") {
            Ok(c) => Some((c, dut.port(&format!("user_{r}"))?)),
            Err(_) => None,
        };
        let user = UserStreams::of(&dut)?;
        Ok(RclkNode { dut, p, user, clk, rst, rx_clk, rx_rst, free, active_low, rx_clk_bits: 0, rx_valid_bits: 0, rx_frame: Bits::zeros(l * p.frame_width()), lb, max_level: vec![0; l], gt, rx_gt_data, user_clk })
    }

    /// Frame bits per transceiver word (R; 1 for a node that takes whole frames).
    pub fn ratio(&self) -> usize {
        self.gt.map_or(1, |g| self.p.frame_width() / g.2)
    }

    /// Bytes of one user beat at the ports (the clk side's beat over T with temporal bonding).
    pub fn beat_bytes(&self) -> usize {
        self.user.user_in.width(Signal::Keep)
    }

    /// User beats per clk cycle (T; 1 without temporal bonding).
    pub fn user_ratio(&self) -> usize {
        self.p.user_bytes() / self.beat_bytes()
    }

    /// The node's clocks related to clk, as (port, times clk): tx_fast_clk (R) and user_clk (T).
    fn related(&self) -> Vec<(PortId, u64)> {
        let fast = self.gt.map(|(c, _, _)| (c, self.ratio() as u64));
        let user = self.user_clk.map(|(c, _)| (c, self.user_ratio() as u64));
        fast.into_iter().chain(user).collect()
    }

    /// Lanes whose Lane Aligner has locked (all of them for a node that takes whole frames).
    pub fn aligned(&self) -> Result<bool, SimError> {
        match self.gt {
            Some(_) => Ok(self.dut.get("rx_aligned")?.count_ones() as usize == self.p.lanes()),
            None => Ok(true),
        }
    }

    /// Every reset port asserted (`on`) or released.
    fn resets(&mut self, on: bool) -> Result<(), SimError> {
        let v = u64::from(on != self.active_low);
        let all = if v == 1 { (1u64 << self.p.lanes()) - 1 } else { 0 };
        self.dut.set_port_u64(self.rst, v)?;
        self.dut.set_port_u64(self.rx_rst, all)?;
        if let Some((_, r)) = self.free {
            self.dut.set_port_u64(r, v)?;
        }
        if let Some((_, r, _)) = self.gt {
            self.dut.set_port_u64(r, v)?;
        }
        if let Some((_, r)) = self.user_clk {
            self.dut.set_port_u64(r, v)?;
        }
        self.dut.eval();
        Ok(())
    }

    /// An edge of lane `k`'s recovered clock; a rising edge carries the frame (if any).
    fn rx_edge(&mut self, k: usize, rising: bool, frame: Option<&Bits>) -> Result<(), SimError> {
        if let (true, Some((_, _, w))) = (rising, self.gt) {
            if let Some(word) = frame {
                self.rx_gt_data.set_slice(k * w, word);
            }
            self.dut.set("rx_gt_data", &self.rx_gt_data)?;
            self.rx_clk_bits |= 1 << k;
        } else if rising {
            let f = self.p.frame_width();
            match frame {
                Some(fr) => {
                    self.rx_valid_bits |= 1 << k;
                    self.rx_frame.set_slice(k * f, fr);
                }
                None => self.rx_valid_bits &= !(1 << k),
            }
            self.dut.set("rx_valid", &Bits::from_u64(self.rx_valid_bits, self.p.lanes()))?;
            self.dut.set("rx_frame", &self.rx_frame)?;
            self.rx_clk_bits |= 1 << k;
        } else {
            self.rx_clk_bits &= !(1 << k);
        }
        self.dut.set_port_u64(self.rx_clk, self.rx_clk_bits)?;
        self.dut.eval();
        if rising {
            let level = self.dut.get("rx_cdc_level")?.field(k * self.lb, self.lb);
            self.max_level[k] = self.max_level[k].max(level);
        }
        Ok(())
    }

    /// Whether a lane's CDC FIFO refused an entry.
    pub fn overflowed(&self) -> Result<bool, SimError> {
        Ok(self.dut.get_u64("rx_cdc_overflow")? != 0)
    }
}

/// How the two nodes' clocks and channels are set up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RclkSetup {
    /// clk of both nodes.
    pub mhz: f64,
    /// Offsets of node a's and node b's clk in ppm (positive: slower).
    pub ppm: [f64; 2],
    pub free_mhz: f64,
    /// Channel delay in clk cycles (plus a random fraction of one, drawn per lane).
    pub delay: u64,
    /// An exact channel delay of lane 0 in femtoseconds in place of `delay` (a cable's length:
    /// 10 m at 5 ns/m is 50 ns); the other lanes add their skew to it.
    pub delay_fs: Option<u64>,
    /// Most extra delay of a lane over lane 0, in cycles (each lane draws its own).
    pub skew: u64,
    /// With `gt_bits`: most delay of a lane's bit stream in bits (each lane draws its own, so
    /// the frame boundary sits at any bit of the far end's words).
    pub skew_bits: u64,
    /// Peak jitter of each recovered edge, in femtoseconds.
    pub jitter_fs: u64,
    pub ber: f64,
    /// Packets per direction, and their lengths.
    pub packets: u64,
    pub min_len: usize,
    pub max_len: usize,
}

/// A recovered edge in flight: node, lane, rising, frame (rising edges only).
type RxEvent = (usize, usize, bool, Option<Bits>);

/// Bit errors at a rate: the distance to the next flipped bit drawn from the geometric law.
struct BitErrors {
    ber: f64,
    rng: Rng,
    next: u64,
    pub flipped: u64,
}

impl BitErrors {
    fn new(ber: f64, seed: u64) -> BitErrors {
        let mut e = BitErrors { ber, rng: Rng::new(seed), next: 0, flipped: 0 };
        e.next = e.gap();
        e
    }
    fn gap(&mut self) -> u64 {
        if self.ber <= 0.0 {
            return u64::MAX;
        }
        let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        ((1.0 - u).ln() / (1.0 - self.ber).ln()) as u64
    }
    fn apply(&mut self, frame: &mut Bits) {
        let w = frame.width() as u64;
        while self.next < w {
            frame.flip(self.next as usize);
            self.flipped += 1;
            let g = self.gap();
            self.next = self.next.saturating_add(1).saturating_add(g);
        }
        self.next -= w;
    }
}

/// Two recovered-clock nodes and their traffic.
pub struct RclkLink {
    pub nodes: [RclkNode; 2],
    /// Traffic a → b and b → a.
    pub flows: [Flow; 2],
    edges: std::iter::Peekable<Edges>,
    /// Recovered edges in flight by (time, order of scheduling).
    rx: BinaryHeap<Reverse<(u64, u64)>>,
    rx_events: HashMap<u64, RxEvent>,
    seq: u64,
    /// Per direction (a → b, b → a), per lane: delay in femtoseconds.
    lane_delay: [Vec<u64>; 2],
    jitter_fs: u64,
    errors: [BitErrors; 2],
    rng: Rng,
    /// clk cycles of each node.
    pub cycles: [u64; 2],
    /// Traffic flows once both nodes report link_up.
    pub started: bool,
    /// The scoreboard's time unit (the cycles of [`Flow`]'s latencies and windows): node a's
    /// clk period unless set (1000 gives latencies in picoseconds).
    pub tick_fs: u64,
    period_fs: [u64; 2],
    now_fs: u64,
    /// Per node: the scheduled clock in multiples of clk (M: the largest of R and T, 1 when the
    /// node has neither), and its rising edges so far.
    base: [u64; 2],
    base_rises: [u64; 2],
    /// Per direction, per lane: the bits in flight on the channel (the GT-width form).
    channel: [Vec<VecDeque<bool>>; 2],
}

/// A node's scheduled clock in multiples of clk: the fastest of its related clocks (R, T), each
/// of which must divide it (both are powers of two).
fn base_ratio(node: &RclkNode) -> Result<u64, SimError> {
    let related = node.related();
    let m = related.iter().map(|&(_, q)| q).max().unwrap_or(1).max(1);
    match related.iter().find(|&&(_, q)| q == 0 || m % q != 0) {
        Some(&(_, q)) => Err(SimError::Design { message: format!("a RIFL node's clocks at {q} and {m} times clk are not one schedule (each must divide the fastest)") }),
        None => Ok(m),
    }
}

/// Clock order in the edge schedule: node a's clk, node b's clk, node a's free_clk, node b's.
const CLK: [usize; 2] = [0, 1];
const FREE: [usize; 2] = [2, 3];

impl RclkLink {
    pub fn new(a: RclkNode, b: RclkNode, s: RclkSetup, rng: &mut TestRng) -> Result<RclkLink, SimError> {
        let mut seeds = Rng::new(rng.range(0, u64::MAX - 1));
        let base = [base_ratio(&a)?, base_ratio(&b)?];
        // A node's scheduled clock is the fastest of its clocks from clk's source (clk itself
        // without tx_fast_clk or user_clk); clk's period is exactly M of its periods.
        let fast = |k: usize| ClockSpec::mhz(s.mhz * base[k] as f64, s.ppm[k], 0);
        let specs: Vec<ClockSpec> = [fast(0), fast(1), ClockSpec::mhz(s.free_mhz, 0.0, 0), ClockSpec::mhz(s.free_mhz, 37.0, 0)].into_iter().map(|c| c.random_phase(rng)).collect();
        let period_fs = [specs[0].period_fs * base[0], specs[1].period_fs * base[1]];
        let delays = |seeds: &mut Rng, lanes: usize, far_period: u64| -> Vec<u64> {
            (0..lanes)
                .map(|k| {
                    let skew = if k == 0 { 0 } else { seeds.range(0, s.skew) } * far_period;
                    let fraction = seeds.range(0, far_period - 1);
                    skew + s.delay_fs.unwrap_or(s.delay * far_period + fraction)
                })
                .collect()
        };
        let lane_delay = [delays(&mut seeds, b.p.lanes(), period_fs[0]), delays(&mut seeds, a.p.lanes(), period_fs[1])];
        let channel = |seeds: &mut Rng, lanes: usize| -> Vec<VecDeque<bool>> { (0..lanes).map(|_| (0..seeds.range(0, s.skew_bits)).map(|_| seeds.next_u64() & 1 == 1).collect()).collect() };
        let channel = [channel(&mut seeds, b.p.lanes()), channel(&mut seeds, a.p.lanes())];
        let flows = [Flow::new(&a.p, seeds.next_u64(), s.packets, s.min_len, s.max_len).with_beat_bytes(a.beat_bytes()), Flow::new(&b.p, seeds.next_u64(), s.packets, s.min_len, s.max_len).with_beat_bytes(b.beat_bytes())];
        let mut link = RclkLink {
            edges: Edges::new(&specs, TestRng::from_seed(seeds.next_u64())).peekable(),
            nodes: [a, b],
            flows,
            rx: BinaryHeap::new(),
            rx_events: HashMap::new(),
            seq: 0,
            lane_delay,
            jitter_fs: s.jitter_fs,
            errors: [BitErrors::new(s.ber, seeds.next_u64()), BitErrors::new(s.ber, seeds.next_u64())],
            rng: Rng::new(seeds.next_u64()),
            cycles: [0, 0],
            started: false,
            tick_fs: period_fs[0],
            period_fs,
            now_fs: 0,
            base,
            base_rises: [0, 0],
            channel,
        };
        for n in &mut link.nodes {
            n.resets(true)?;
            if n.gt.is_none() {
                n.dut.set_u64("tx_ready", 1)?;
            }
        }
        // Reset: a few edges of every clock (the recovered ones included) with every reset held.
        let until = 10 * period_fs[0].max(period_fs[1]) + link.lane_delay.iter().flatten().max().copied().unwrap_or(0) + 4 * specs[2].period_fs.max(specs[3].period_fs);
        while link.now_fs < until {
            link.step()?;
        }
        for n in &mut link.nodes {
            n.resets(false)?;
        }
        Ok(link)
    }

    pub fn done(&self) -> bool {
        self.flows.iter().all(Flow::done)
    }

    /// The next edge of any clock.
    pub fn step(&mut self) -> Result<(), SimError> {
        let next_rx = self.rx.peek().map(|Reverse(e)| e.0);
        let next = self.edges.peek().expect("clocks never stop").time_fs;
        if next_rx.is_some_and(|t| t <= next) {
            let Reverse((t, seq)) = self.rx.pop().expect("peeked");
            let (node, lane, rising, frame) = self.rx_events.remove(&seq).expect("scheduled");
            self.now_fs = t;
            return self.nodes[node].rx_edge(lane, rising, frame.as_ref());
        }
        let e = self.edges.next().expect("clocks never stop");
        self.now_fs = e.time_fs;
        if let Some(n) = FREE.iter().position(|&c| c == e.clock) {
            // A node without compensation has no free_clk.
            return match self.nodes[n].free {
                Some((free, _)) => self.nodes[n].dut.clock_edge(free, e.rising),
                None => Ok(()),
            };
        }
        let n = CLK.iter().position(|&c| c == e.clock).expect("a clk edge");
        if self.base[n] > 1 {
            return self.related_edge(n, e.rising);
        }
        if e.rising {
            self.clk_rising(n)?;
        } else {
            let clk = self.nodes[n].clk;
            self.nodes[n].dut.clock_edge(clk, false)?;
        }
        Ok(())
    }

    /// A rising edge of node `n`'s clk: the flows' beats, the edge, the frames the transceiver
    /// took sent towards the far end.
    fn clk_rising(&mut self, n: usize) -> Result<(), SimError> {
        self.user_side(n)?;
        let node = &mut self.nodes[n];
        let frames = node.dut.get("tx_frame")?;
        let clk = node.clk;
        node.dut.clock_edge(clk, true)?;
        self.cycles[n] += 1;
        self.started |= self.nodes.iter().all(|x| x.dut.get_u64("link_up").unwrap_or(0) == 1);
        self.send_frames(n, &frames);
        Ok(())
    }

    /// Node `n`'s `tx_frame` of one `clk` edge onto its lanes, one frame per lane with the
    /// channel's bit errors, each rising at the far end after the lane's delay.
    fn send_frames(&mut self, n: usize, frames: &Bits) {
        // tx_ready is always high: the transceiver takes every frame.
        let p = self.nodes[n].p;
        let (f, half) = (p.frame_width(), self.period_fs[n] / 2);
        for k in 0..p.lanes() {
            let mut frame = frames.slice(k * f, f);
            self.errors[n].apply(&mut frame);
            self.send(n, k, frame, half);
        }
    }

    /// A recovered edge pair of lane `k` of the far end of node `n`: rising with `data` after
    /// the lane's delay (and jitter), falling `half` later.
    fn send(&mut self, n: usize, k: usize, data: Bits, half: u64) {
        let j = self.jitter_fs;
        let base = self.now_fs + self.lane_delay[n][k];
        let rise = base + self.rng.range(0, 2 * j) - j;
        let fall = base + half + self.rng.range(0, 2 * j) - j;
        for (t, rising, d) in [(rise, true, Some(data)), (fall, false, None)] {
            self.seq += 1;
            self.rx.push(Reverse((t, self.seq)));
            self.rx_events.insert(self.seq, (1 - n, k, rising, d));
        }
    }

    /// An edge of node `n`'s scheduled clock, M times clk (the GT-width form, temporal bonding):
    /// a clock at Q times clk rises on every (M/Q)-th rising edge and falls on the rising edge
    /// half way (one at M times clk falls with the scheduled falling edge), all in one
    /// evaluation. The user side acts before every user_clk rising edge (every clk rising edge
    /// without one); a clk rising edge sends the lanes' frames through their channels (the
    /// node takes whole frames), a tx_fast_clk rising edge every lane's word.
    fn related_edge(&mut self, n: usize, rising: bool) -> Result<(), SimError> {
        let m = self.base[n];
        let related = self.nodes[n].related();
        let node = &mut self.nodes[n];
        if !rising {
            for &(port, _) in related.iter().filter(|&&(_, q)| q == m) {
                node.dut.set_port_u64(port, 0)?;
            }
            node.dut.eval();
            return Ok(());
        }
        let i = self.base_rises[n];
        self.base_rises[n] += 1;
        // (rises, falls) at this scheduled rising edge for a clock at q times clk.
        let at = |q: u64| {
            let every = m / q;
            (i.is_multiple_of(every), every > 1 && i % every == every / 2)
        };
        let clk_rise = at(1).0;
        let fast = node.gt.map(|(port, _, w)| (port, w));
        let fast_rise = fast.is_some_and(|_| at(self.nodes[n].ratio() as u64).0);
        let user_rise = match self.nodes[n].user_clk {
            Some(_) => at(self.nodes[n].user_ratio() as u64).0,
            None => clk_rise,
        };
        if user_rise {
            self.user_side(n)?;
        }
        let node = &mut self.nodes[n];
        let frames = if clk_rise && fast.is_none() { Some(node.dut.get("tx_frame")?) } else { None };
        let words = if fast_rise { Some(node.dut.get("tx_fast_gt_data")?) } else { None };
        for (port, q) in std::iter::once((node.clk, 1)).chain(related) {
            match at(q) {
                (true, _) => node.dut.set_port_u64(port, 1)?,
                (false, true) => node.dut.set_port_u64(port, 0)?,
                _ => {}
            }
        }
        node.dut.eval();
        if clk_rise {
            self.cycles[n] += 1;
            self.started |= self.nodes.iter().all(|x| x.dut.get_u64("link_up").unwrap_or(0) == 1 && x.aligned().unwrap_or(false));
        }
        if let Some(frames) = frames {
            self.send_frames(n, &frames);
        }
        let p = self.nodes[n].p;
        if let (Some(words), Some((_, w))) = (words, fast) {
            let half = self.period_fs[n] / self.nodes[n].ratio() as u64 / 2;
            for k in 0..p.lanes() {
                let mut word = words.slice(k * w, w);
                self.errors[n].apply(&mut word);
                let ch = &mut self.channel[n][k];
                ch.extend((0..w).map(|i| word.get(i)));
                let mut out = Bits::zeros(w);
                for i in 0..w {
                    out.set(i, ch.pop_front().expect("a word in, a word out"));
                }
                self.send(n, k, out, half);
            }
        }
        Ok(())
    }

    /// The user side of node `n` before a rising edge of its user streams' clock (user_clk, or
    /// clk): the flows' beats in, delivered beats out.
    fn user_side(&mut self, n: usize) -> Result<(), SimError> {
        let u = self.nodes[n].beat_bytes();
        let far = 1 - n;
        let (valid, data, count, last) = if self.started { self.flows[n].source() } else { (false, vec![0; u], u, false) };
        let node = &mut self.nodes[n];
        node.user.drive(&mut node.dut, &data, count, last, valid, true)?;
        node.dut.eval();
        // The scoreboard's cycle: one time base for both ends (node a's clock period unless
        // `tick_fs` says otherwise), so a packet's latency never compares two nodes' cycle
        // counts that drift apart at the ppm.
        let c = self.now_fs / self.tick_fs;
        let out = node.user.read(&node.dut)?;
        if valid && out.s_ready {
            self.flows[n].accepted(c, count, last);
        }
        if out.m_valid {
            self.flows[far].delivered(c, &out.m_data, out.m_keep.count_ones() as usize, out.m_last);
        }
        Ok(())
    }

    /// Runs until both flows are done or `max_cycles` clk cycles of node a pass; `Err` with the
    /// scoreboard's findings.
    pub fn run(&mut self, max_cycles: u64) -> Result<(), String> {
        while !self.done() && self.cycles[0] < max_cycles {
            self.step().map_err(|e| e.to_string())?;
            if self.flows.iter().any(|f| !f.errors.is_empty()) {
                break;
            }
        }
        let mut errs: Vec<String> = self.flows[0].errors.iter().map(|e| format!("a→b {e}")).chain(self.flows[1].errors.iter().map(|e| format!("b→a {e}"))).collect();
        if !self.done() && errs.is_empty() {
            errs.push(format!("not done after {} cycles: a→b {}/{} packets delivered, b→a {}/{}", self.cycles[0], self.flows[0].delivered_packets, self.flows[0].sent_packets + self.flows[0].to_send, self.flows[1].delivered_packets, self.flows[1].sent_packets + self.flows[1].to_send));
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("\n"))
        }
    }

    /// Bits flipped a → b and b → a.
    pub fn flipped(&self) -> [u64; 2] {
        [self.errors[0].flipped, self.errors[1].flipped]
    }
}
