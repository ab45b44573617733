//! RIFL links: two RIFL nodes cross-connected through [`Channel`]s with a fixed delay
//! and independent random bit errors per direction, random packets in both directions, and a
//! scoreboard that checks exactly-once, in-order, bit-exact delivery and measures what §6.C
//! measures (bandwidth, latency). The nodes are anything that implements [`NodeIo`]: the model
//! [`Node`], the Verilated top ([`rtl::RtlNode`]) or both in lockstep ([`rtl::Twin`]).
//! The BER sweep (Fig. 9) runs them: `crate::campaign::rifl::sweep`.

pub mod rclk;
pub mod rtl;

pub use super::channel::{Channel, Faults};
use crate::Bits;
use rtl_gen::blocks::rifl::model::node::{Node, NodeIn, NodeOut};
use rtl_gen::blocks::rifl::model::params::Params;
use std::collections::VecDeque;

/// One node as the link drives it: a cycle is `eval(inputs)` (the outputs given this cycle's
/// inputs; only the user stream in's `tready` depends on one, `tx_ready`) then `tick(inputs)`.
pub trait NodeIo {
    fn params(&self) -> Params;
    fn eval(&mut self, i: &NodeIn) -> NodeOut;
    fn tick(&mut self, i: &NodeIn);
}

impl NodeIo for Node {
    fn params(&self) -> Params {
        self.p
    }
    fn eval(&mut self, _: &NodeIn) -> NodeOut {
        Node::outputs(self)
    }
    fn tick(&mut self, i: &NodeIn) {
        Node::tick(self, i)
    }
}

/// The link's only randomness, reproducible from the setup's seed.
pub use rtl_gen::math::splitmix::SplitMix64 as Rng;

/// One direction of the cable: a slot of lane frames per cycle (`None`: the transceiver took
/// nothing).
pub type LaneChannel = Channel<Vec<Bits>>;

/// A packet in flight.
#[derive(Debug, Clone)]
struct Sent {
    bytes: Vec<u8>,
    first_in: u64,
}

/// Random packets into one node's `s_axis`, checked at the other node's `m_axis`.
#[derive(Debug, Clone)]
pub struct Flow {
    rng: Rng,
    user_bytes: usize,
    pub min_len: usize,
    pub max_len: usize,
    /// Packets still to send.
    pub to_send: u64,
    /// Probability that the source idles in a cycle (0: saturating).
    pub idle: f64,
    /// Probability that the sink is not ready in a cycle.
    pub backpressure: f64,
    cur: Option<(Vec<u8>, usize)>,
    cur_first_in: Option<u64>,
    in_flight: VecDeque<Sent>,
    rx_cur: Vec<u8>,
    rx_first_out: Option<u64>,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    /// Head latency of each delivered packet: first beat in → first beat out, in cycles.
    pub latencies: Vec<u32>,
    /// Cycles of the first beat in and the last beat out (bandwidth window).
    pub first_cycle: Option<u64>,
    pub last_cycle: u64,
    pub errors: Vec<String>,
}

impl Flow {
    pub fn new(p: &Params, seed: u64, packets: u64, min_len: usize, max_len: usize) -> Self {
        Flow {
            rng: Rng::new(seed),
            user_bytes: p.user_bytes(),
            min_len,
            max_len,
            to_send: packets,
            idle: 0.0,
            backpressure: 0.0,
            cur: None,
            cur_first_in: None,
            in_flight: VecDeque::new(),
            rx_cur: Vec::new(),
            rx_first_out: None,
            sent_packets: 0,
            sent_bytes: 0,
            delivered_packets: 0,
            delivered_bytes: 0,
            latencies: Vec::new(),
            first_cycle: None,
            last_cycle: 0,
            errors: Vec::new(),
        }
    }

    /// The same flow with beats of `bytes` bytes at the ports (a node with temporal bonding
    /// takes beats of its clk-side width over T).
    pub fn with_beat_bytes(mut self, bytes: usize) -> Self {
        self.user_bytes = bytes;
        self
    }

    pub fn done(&self) -> bool {
        self.to_send == 0 && self.cur.is_none() && self.in_flight.is_empty()
    }

    /// The beat this source presents: (valid, data, count, last).
    fn source(&mut self) -> (bool, Vec<u8>, usize, bool) {
        if self.cur.is_none() && self.to_send > 0 {
            let n = self.rng.range(self.min_len as u64, self.max_len as u64) as usize;
            let bytes: Vec<u8> = (0..n).map(|_| self.rng.next_u64() as u8).collect();
            self.cur = Some((bytes, 0));
            self.to_send -= 1;
        }
        let u = self.user_bytes;
        match &self.cur {
            Some((bytes, pos)) if !self.rng.chance(self.idle) => {
                let n = (bytes.len() - pos).min(u);
                let mut d = bytes[*pos..pos + n].to_vec();
                // Bytes not kept carry garbage: the node must ignore them.
                d.extend((n..u).map(|k| (k as u8).wrapping_mul(37) ^ 0xA5));
                (true, d, n, pos + n == bytes.len())
            }
            _ => (false, vec![0; u], u, false),
        }
    }

    /// The source's beat was accepted at `cycle`.
    fn accepted(&mut self, cycle: u64, count: usize, last: bool) {
        self.first_cycle.get_or_insert(cycle);
        if self.cur_first_in.is_none() {
            self.cur_first_in = Some(cycle);
        }
        self.cur.as_mut().expect("a packet is being sent").1 += count;
        if last {
            let (bytes, _) = self.cur.take().expect("packet");
            self.sent_packets += 1;
            self.sent_bytes += bytes.len() as u64;
            self.in_flight.push_back(Sent { bytes, first_in: self.cur_first_in.take().expect("first beat") });
        }
    }

    /// The sink took a beat at `cycle`.
    fn delivered(&mut self, cycle: u64, data: &[u8], count: usize, last: bool) {
        if self.rx_first_out.is_none() {
            self.rx_first_out = Some(cycle);
        }
        self.rx_cur.extend_from_slice(&data[..count]);
        self.last_cycle = cycle;
        if !last {
            return;
        }
        let got = std::mem::take(&mut self.rx_cur);
        let first_out = self.rx_first_out.take().expect("first beat out");
        match self.in_flight.pop_front() {
            None => self.errors.push(format!("cycle {cycle}: a {}-byte packet delivered that was never sent (duplicate?)", got.len())),
            Some(exp) => {
                if exp.bytes != got {
                    let at = exp.bytes.iter().zip(&got).position(|(a, b)| a != b).unwrap_or(exp.bytes.len().min(got.len()));
                    self.errors.push(format!(
                        "cycle {cycle}: packet {} differs: sent {} bytes, delivered {} bytes, first difference at byte {at}",
                        self.delivered_packets,
                        exp.bytes.len(),
                        got.len()
                    ));
                }
                self.latencies.push((first_out - exp.first_in) as u32);
                self.delivered_packets += 1;
                self.delivered_bytes += got.len() as u64;
            }
        }
    }
}

/// Latency percentiles of a flow.
pub fn percentile(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let idx = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[idx] as f64
}

/// How a link test is set up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkSetup {
    /// Cable delay per direction in cycles.
    pub delay: usize,
    pub ber: f64,
    pub seed: u64,
    /// Packets per direction.
    pub packets: u64,
    pub min_len: usize,
    pub max_len: usize,
}

/// Two nodes, two channels, two flows.
pub struct Link<A: NodeIo, B: NodeIo> {
    pub a: A,
    pub b: B,
    pub ab: LaneChannel,
    pub ba: LaneChannel,
    /// Traffic a → b and b → a.
    pub flow_ab: Flow,
    pub flow_ba: Flow,
    pub cycle: u64,
    /// Probability that a transceiver does not take a frame in a cycle (`tx_ready` low).
    pub tx_stall: f64,
    stall_rng: Rng,
    rx_a: Option<Vec<Bits>>,
    rx_b: Option<Vec<Bits>>,
    pub last_out_a: Option<NodeOut>,
    pub last_out_b: Option<NodeOut>,
    /// Traffic starts once both nodes report link_up (so bring-up is not measured as latency).
    pub started: bool,
    /// Flip this bit of lane 0's frame a → b in the next cycle the transceiver takes one.
    pub inject_ab: Option<usize>,
}

impl<A: NodeIo, B: NodeIo> Link<A, B> {
    pub fn new(a: A, b: B, s: LinkSetup) -> Self {
        let mut seeds = Rng::new(s.seed);
        Link {
            ab: Channel::new(s.delay, Faults::ber(s.ber), seeds.next_u64()),
            ba: Channel::new(s.delay, Faults::ber(s.ber), seeds.next_u64()),
            flow_ab: Flow::new(&a.params(), seeds.next_u64(), s.packets, s.min_len, s.max_len),
            flow_ba: Flow::new(&b.params(), seeds.next_u64(), s.packets, s.min_len, s.max_len),
            a,
            b,
            cycle: 0,
            tx_stall: 0.0,
            stall_rng: Rng::new(seeds.next_u64()),
            rx_a: None,
            rx_b: None,
            last_out_a: None,
            last_out_b: None,
            started: false,
            inject_ab: None,
        }
    }

    pub fn done(&self) -> bool {
        self.flow_ab.done() && self.flow_ba.done()
    }

    /// One clock cycle of both nodes.
    pub fn step(&mut self) {
        let c = self.cycle;
        let ready_a = !self.stall_rng.chance(self.tx_stall);
        let ready_b = !self.stall_rng.chance(self.tx_stall);
        let idle = (false, vec![0; self.a.params().user_bytes()], 1, false);
        let (sa_valid, sa_data, sa_count, sa_last) = if self.started { self.flow_ab.source() } else { idle.clone() };
        let (sb_valid, sb_data, sb_count, sb_last) = if self.started { self.flow_ba.source() } else { idle };
        let ma_ready = !self.flow_ba.rng.chance(self.flow_ba.backpressure);
        let mb_ready = !self.flow_ab.rng.chance(self.flow_ab.backpressure);
        let lanes_a = self.a.params().lanes();
        let lanes_b = self.b.params().lanes();
        let rx_a = self.rx_a.take();
        let rx_b = self.rx_b.take();
        let zeros_a = vec![Bits::zeros(self.a.params().frame_width()); lanes_a];
        let zeros_b = vec![Bits::zeros(self.b.params().frame_width()); lanes_b];
        let va = vec![rx_a.is_some(); lanes_a];
        let vb = vec![rx_b.is_some(); lanes_b];
        let in_a = NodeIn {
            s_valid: sa_valid,
            s_data: &sa_data,
            s_count: sa_count,
            s_last: sa_last,
            m_ready: ma_ready,
            tx_ready: ready_a,
            rx_valid: &va,
            rx_frame: rx_a.as_deref().unwrap_or(&zeros_a),
        };
        let in_b = NodeIn {
            s_valid: sb_valid,
            s_data: &sb_data,
            s_count: sb_count,
            s_last: sb_last,
            m_ready: mb_ready,
            tx_ready: ready_b,
            rx_valid: &vb,
            rx_frame: rx_b.as_deref().unwrap_or(&zeros_b),
        };
        let out_a = self.a.eval(&in_a);
        let out_b = self.b.eval(&in_b);
        if sa_valid && out_a.s_ready {
            self.flow_ab.accepted(c, sa_count, sa_last);
        }
        if sb_valid && out_b.s_ready {
            self.flow_ba.accepted(c, sb_count, sb_last);
        }
        if out_b.m_valid && mb_ready {
            self.flow_ab.delivered(c, &out_b.m_data, out_b.m_count, out_b.m_last);
        }
        if out_a.m_valid && ma_ready {
            self.flow_ba.delivered(c, &out_a.m_data, out_a.m_count, out_a.m_last);
        }
        self.a.tick(&in_a);
        self.b.tick(&in_b);
        // What the transceivers took this cycle arrives `delay` cycles later.
        let mut sent_a = ready_a.then(|| out_a.tx_frame.clone());
        if let (Some(bit), Some(frames)) = (self.inject_ab, sent_a.as_mut()) {
            frames[0].flip(bit);
            self.inject_ab = None;
        }
        self.rx_b = self.ab.step(sent_a);
        self.rx_a = self.ba.step(ready_b.then(|| out_b.tx_frame.clone()));
        self.started |= out_a.link_up && out_b.link_up;
        self.last_out_a = Some(out_a);
        self.last_out_b = Some(out_b);
        self.cycle += 1;
    }

    /// Run until both flows are done or `max_cycles` pass; `Err` with the scoreboard's findings.
    pub fn run(&mut self, max_cycles: u64) -> Result<(), String> {
        while !self.done() && self.cycle < max_cycles {
            self.step();
            if !self.flow_ab.errors.is_empty() || !self.flow_ba.errors.is_empty() {
                break;
            }
        }
        let mut errs: Vec<String> = self.flow_ab.errors.iter().map(|e| format!("a→b {e}")).chain(self.flow_ba.errors.iter().map(|e| format!("b→a {e}"))).collect();
        if !self.done() && errs.is_empty() {
            errs.push(format!(
                "not done after {} cycles: a→b {}/{} packets delivered, b→a {}/{}",
                self.cycle,
                self.flow_ab.delivered_packets,
                self.flow_ab.sent_packets + self.flow_ab.to_send,
                self.flow_ba.delivered_packets,
                self.flow_ba.sent_packets + self.flow_ba.to_send
            ));
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("\n"))
        }
    }
}

/// What one direction measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowStats {
    pub packets: u64,
    pub bytes: u64,
    /// Delivered bytes per cycle between the first beat in and the last beat out.
    pub bytes_per_cycle: f64,
    pub latency_avg: f64,
    pub latency_p99: f64,
    pub latency_p999: f64,
}

impl Flow {
    pub fn stats(&self) -> FlowStats {
        let mut lat = self.latencies.clone();
        lat.sort_unstable();
        let cycles = self.last_cycle.saturating_sub(self.first_cycle.unwrap_or(0)).max(1);
        FlowStats {
            packets: self.delivered_packets,
            bytes: self.delivered_bytes,
            bytes_per_cycle: self.delivered_bytes as f64 / cycles as f64,
            latency_avg: lat.iter().map(|&x| x as f64).sum::<f64>() / lat.len().max(1) as f64,
            latency_p99: percentile(&lat, 0.99),
            latency_p999: percentile(&lat, 0.999),
        }
    }
}

#[cfg(test)]
mod tests {
    use rtl_gen::blocks::rifl::model::params::small;
    use super::*;

    #[test]
    fn model_link_delivers_everything_without_errors() {
        let p = small();
        let mut link = Link::new(Node::new(p), Node::new(p), LinkSetup { delay: 5, ber: 0.0, seed: 1, packets: 40, min_len: 1, max_len: 300 });
        link.run(200_000).unwrap();
        assert_eq!(link.flow_ab.delivered_packets, 40);
        assert_eq!(link.a.retransmissions + link.b.retransmissions, 0);
        assert_eq!(link.a.frame_errors + link.b.frame_errors, 0);
        assert!(link.a.link_up && link.b.link_up);
    }

    #[test]
    fn model_link_recovers_from_bit_errors() {
        for (ber, seed) in [(1e-4, 2u64), (3e-4, 3)] {
            let p = small();
            let mut link = Link::new(Node::new(p), Node::new(p), LinkSetup { delay: 7, ber, seed, packets: 60, min_len: 1, max_len: 400 });
            link.tx_stall = 0.05;
            link.flow_ab.backpressure = 0.3;
            link.run(3_000_000).unwrap_or_else(|e| panic!("BER {ber}: {e}"));
            assert!(link.ab.stats.frames_with_bit_errors > 0 && link.ba.stats.frames_with_bit_errors > 0);
            assert!(link.a.retransmissions + link.b.retransmissions > 0, "BER {ber}: errors must cause retransmissions");
            for f in link.a.fifo.iter().chain(&link.b.fifo) {
                assert_eq!(f.overflows, 0);
            }
        }
    }
}
