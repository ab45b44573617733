//! RXL links: two RXL/CXL endpoints, 0..=4 levels of FEC-only switches between them,
//! traffic in both directions through fault-injecting channels, and scoreboards that check
//! exactly-once, in-order, uncorrupted delivery and measure what the RXL paper measures
//! (ordering failures against Eq. 7, bandwidth loss against Eq. 11–14).
//!
//! The nodes are traits, so the same link runs on the Rust reference models
//! ([`Nodes::models`]), on the Verilated RTL ([`rtl::rtl_nodes`]), or on both in lockstep
//! (every output of every node compared every cycle).
//!
//! Topology with `s` switches (direction 0 is A → B, direction 1 is B → A; each switch has
//! one `link_rx`/`link_tx` pair per direction):
//!
//! ```text
//! A.tx → ch[0][0] → sw1.rx → (internal corruption) → sw1.tx → ch[0][1] → … → ch[0][s] → B.rx
//! A.rx ← ch[1][s] ← … ← sw1.tx ← sw1.rx ← ch[1][0] ← B.tx
//! ```
//!
//! Every node's outputs depend on its registers only; a cycle reads all outputs, moves flits
//! through the channels, applies the inputs and clocks every node.

pub mod rtl;

pub use super::channel::{Channel, ChannelStats, Faults};
pub use super::CampaignError;

use crate::TestRng;
use rand::Rng;
use rtl_gen::blocks::rxl_endpoint::flit::{FlitCodec, Flit, Header, Msg, Payload, CMD_NONE, FLIT_BYTES, MSG_BYTES, PAYLOAD_BYTES, TYPE_PAYLOAD};
use rtl_gen::blocks::rxl_endpoint::model::{Counters, EndpointConfig, EndpointModel, EpInputs, EpOutputs, Mode};
use rtl_gen::blocks::rxl_switch::model::{LinkRxModel, LinkTxModel};
use rtl_gen::math::splitmix::SplitMix64;

/// The endpoint's own part of the retry loop ([`rtl_gen::blocks::rxl_endpoint::LOOP_OVERHEAD_CYCLES`]).
pub const ENDPOINT_LOOP_OVERHEAD: u32 = rtl_gen::blocks::rxl_endpoint::LOOP_OVERHEAD_CYCLES;
/// Cycles a switch adds per direction ([`rtl_gen::blocks::rxl_switch::LATENCY_CYCLES`]).
pub const SWITCH_LATENCY: u32 = rtl_gen::blocks::rxl_switch::LATENCY_CYCLES;

const ZERO_FLIT: Flit = [0; FLIT_BYTES];

/// An endpoint, model or RTL: outputs (valid during the current cycle) and a clock edge.
pub trait EndpointNode {
    fn outputs(&self) -> &EpOutputs;
    fn tick(&mut self, inp: &EpInputs) -> Result<(), CampaignError>;
    /// ESeqNum and the discard state, if the node can show them (models can).
    fn rx_state(&self) -> Option<(u32, bool)> {
        None
    }
}

/// A switch's `link_rx`: (valid, corrected message) one cycle after the flit.
pub trait LinkRxNode {
    fn out(&self) -> (bool, &Msg);
    fn counters(&self) -> [u64; 3];
    fn tick(&mut self, valid: bool, flit: &Flit) -> Result<(), CampaignError>;
}

/// A switch's `link_tx`: (valid, re-encoded flit) one cycle after the message.
pub trait LinkTxNode {
    fn out(&self) -> (bool, &Flit);
    fn tick(&mut self, valid: bool, msg: &Msg) -> Result<(), CampaignError>;
}

// ---- the reference models as nodes ----

pub struct ModelEndpoint {
    pub model: EndpointModel,
    out: EpOutputs,
}

impl ModelEndpoint {
    pub fn new(cfg: EndpointConfig, codec: FlitCodec) -> ModelEndpoint {
        let model = EndpointModel::with_codec(cfg, codec);
        let out = model.outputs();
        ModelEndpoint { model, out }
    }
}

impl EndpointNode for ModelEndpoint {
    fn outputs(&self) -> &EpOutputs {
        &self.out
    }
    fn tick(&mut self, inp: &EpInputs) -> Result<(), CampaignError> {
        self.model.tick(inp);
        self.out = self.model.outputs();
        Ok(())
    }
    fn rx_state(&self) -> Option<(u32, bool)> {
        Some((self.model.eseq(), self.model.discarding()))
    }
}

impl LinkRxNode for LinkRxModel {
    fn out(&self) -> (bool, &Msg) {
        (self.out_valid(), self.out_msg())
    }
    fn counters(&self) -> [u64; 3] {
        LinkRxModel::counters(self)
    }
    fn tick(&mut self, valid: bool, flit: &Flit) -> Result<(), CampaignError> {
        LinkRxModel::tick(self, valid, flit);
        Ok(())
    }
}

impl LinkTxNode for LinkTxModel {
    fn out(&self) -> (bool, &Flit) {
        (self.out_valid(), self.out_flit())
    }
    fn tick(&mut self, valid: bool, msg: &Msg) -> Result<(), CampaignError> {
        LinkTxModel::tick(self, valid, msg);
        Ok(())
    }
}

/// The two halves of one switch in one direction.
pub type SwitchPair = (Box<dyn LinkRxNode>, Box<dyn LinkTxNode>);

/// Every node of a topology.
pub struct Nodes {
    pub endpoints: [Box<dyn EndpointNode>; 2],
    /// `switches[d][k]`: the halves of switch k (counted from the sender) in direction d.
    pub switches: [Vec<SwitchPair>; 2],
}

impl Nodes {
    /// The reference models of `switches` levels.
    pub fn models(ep: &EndpointConfig, switches: usize) -> Nodes {
        let codec = FlitCodec::new(ep.crc, ep.fec);
        let sw = |_| -> Vec<SwitchPair> {
            (0..switches)
                .map(|_| {
                    (Box::new(LinkRxModel::new(codec.clone(), ep.counter_bits)) as Box<dyn LinkRxNode>, Box::new(LinkTxModel::new(codec.clone(), ep.counter_bits)) as Box<dyn LinkTxNode>)
                })
                .collect()
        };
        Nodes {
            endpoints: [Box::new(ModelEndpoint::new(ep.clone(), codec.clone())), Box::new(ModelEndpoint::new(ep.clone(), codec.clone()))],
            switches: [sw(0), sw(1)],
        }
    }
}

// ---- traffic and scoreboard ----

/// The payload with serial number `serial` in direction `dir`: the serial in bytes 0..8, the
/// direction in byte 8, a keystream of both after it, so any corruption is recognised.
pub fn payload(serial: u64, dir: usize) -> Payload {
    let mut p = [0u8; PAYLOAD_BYTES];
    p[..8].copy_from_slice(&serial.to_le_bytes());
    p[8] = dir as u8;
    let mut keystream = SplitMix64::new(serial ^ (dir as u64) << 62 ^ 0x5DEE_CE66_D1CE_5EED);
    for chunk in p[9..].chunks_mut(8) {
        chunk.copy_from_slice(&keystream.next_u64().to_le_bytes()[..chunk.len()]);
    }
    p
}

/// The receiving application of one direction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sink {
    /// The serial the next in-order delivery must carry.
    pub expected: u64,
    in_sync: bool,
    pub delivered: u64,
    pub in_order: u64,
    /// Deliveries out of order or duplicated (Fail_order).
    pub ordering_failures: u64,
    /// Times the in-order stream broke (the first bad delivery after a good one).
    pub ordering_events: u64,
    pub duplicates: u64,
    /// Serials skipped by an out-of-order delivery (never delivered in order).
    pub skipped: u64,
    /// Deliveries whose content does not match any payload (Fail_data).
    pub data_failures: u64,
    /// In-order deliveries inside the measurement window.
    pub window_in_order: u64,
}

impl Sink {
    fn new() -> Sink {
        Sink { in_sync: true, ..Sink::default() }
    }

    fn deliver(&mut self, p: &Payload, dir: usize, in_window: bool) {
        self.delivered += 1;
        let serial = u64::from_le_bytes(p[..8].try_into().expect("8 bytes"));
        if *p != payload(serial, dir) {
            self.data_failures += 1;
            return;
        }
        if serial == self.expected {
            self.in_order += 1;
            self.window_in_order += in_window as u64;
            self.expected += 1;
            self.in_sync = true;
            return;
        }
        self.ordering_failures += 1;
        if self.in_sync {
            self.ordering_events += 1;
            self.in_sync = false;
        }
        if serial < self.expected {
            self.duplicates += 1;
        } else {
            self.skipped += serial - self.expected;
            self.expected = serial + 1;
        }
    }
}

/// A campaign: topology, traffic, faults.
#[derive(Debug, Clone)]
pub struct CampaignConfig {
    pub endpoint: EndpointConfig,
    pub switches: usize,
    /// Cycles of saturating traffic in both directions with the faults on.
    pub traffic_cycles: u64,
    /// Cycles at the start not counted in the bandwidth (pipelines filling).
    pub warmup_cycles: u64,
    /// Most cycles to wait, traffic and faults off, for everything sent to be delivered.
    pub drain_cycles: u64,
    /// Go-back-N retry loop in flits (from a flit's first transmission to its replay); the
    /// channel delays are chosen to make it so. Default 50 (100 ns at 2 ns per flit), or
    /// [`CampaignConfig::shortest_retry_loop`] where the switches alone take longer.
    pub retry_loop: u32,
    /// Per link, per direction.
    pub faults: Faults,
    /// Per flit and switch: probability that a bit of the message flips inside the switch,
    /// between its `link_rx` and `link_tx` (after the FEC, unseen by it).
    pub internal: f64,
    /// Probability that an endpoint's link does not take its flit in a cycle (tx_ready low).
    pub tx_stall: f64,
    /// Probability that the sending application offers a payload in a cycle (1 = saturating).
    pub offered_load: f64,
    pub seed: u64,
}

impl CampaignConfig {
    pub fn new(mode: Mode, switches: usize, traffic_cycles: u64) -> CampaignConfig {
        CampaignConfig {
            endpoint: EndpointConfig { mode, ..EndpointConfig::default() },
            switches,
            traffic_cycles,
            warmup_cycles: 200,
            drain_cycles: 20_000,
            retry_loop: 50.max(Self::shortest_retry_loop(switches)),
            faults: Faults::none(),
            internal: 0.0,
            tx_stall: 0.0,
            offered_load: 1.0,
            seed: 1,
        }
    }

    /// The shortest retry loop `switches` switch levels allow with every link at least one
    /// cycle long in each direction: the endpoints' loop overhead, each switch twice, and the
    /// links (four switches: 74 + 10 = 84 flits).
    pub fn shortest_retry_loop(switches: usize) -> u32 {
        let links = switches as u32 + 1;
        ENDPOINT_LOOP_OVERHEAD + 2 * SWITCH_LATENCY * switches as u32 + 2 * links
    }

    /// Channel delays of each link, per direction, that make the retry loop `retry_loop`.
    pub fn link_delays(&self) -> Result<[Vec<usize>; 2], String> {
        let fixed = ENDPOINT_LOOP_OVERHEAD + 2 * SWITCH_LATENCY * self.switches as u32;
        if self.retry_loop < fixed {
            return Err(format!("retry loop {} is shorter than the {fixed} cycles of the endpoints and {} switch levels", self.retry_loop, self.switches));
        }
        let total = (self.retry_loop - fixed) as usize;
        let links = self.switches + 1;
        let split = |sum: usize| -> Vec<usize> { (0..links).map(|k| sum / links + (k < sum % links) as usize).collect() };
        Ok([split(total.div_ceil(2)), split(total / 2)])
    }
}

/// Measurements of one direction.
#[derive(Debug, Clone, Default)]
pub struct DirectionReport {
    pub sink: Sink,
    /// Payloads the sending application handed over (accepted by s_ready).
    pub sent: u64,
    /// Flits the sending endpoint put on the wire, payload flits among them, and payload flits
    /// whose FSN carried an AckNum (ReplayCmd ≠ 0) instead of a SeqNum.
    pub wire_flits: u64,
    pub wire_payload: u64,
    pub wire_payload_with_ack: u64,
    pub channels: ChannelStats,
    /// Flits the switches dropped as uncorrectable (link_rx cnt_dropped).
    pub switch_drops: u64,
    pub switch_corrected: u64,
    pub internal_corruptions: u64,
    /// The receiving endpoint's counters and the sending endpoint's.
    pub rx_counters: Counters,
    pub tx_counters: Counters,
    /// Retry loops observed: cycles from a payload's first transmission to the start of its
    /// replay.
    pub loop_samples: Vec<u64>,
    pub window_cycles: u64,
}

/// The figures of one direction that Eq. 7 and the bandwidth loss read, defined once for every
/// form that holds a direction's counts (the live [`DirectionReport`], the campaign's stored
/// record): an implementor gives the six counts, the figures come with the trait.
pub trait DirectionFigures {
    /// Payload flits on the wire, and those whose FSN carried an AckNum instead of a SeqNum.
    fn wire_payload(&self) -> u64;
    fn wire_payload_with_ack(&self) -> u64;
    /// Forced channel drops, and flits the switches dropped as uncorrectable.
    fn channel_drops(&self) -> u64;
    fn switch_drops(&self) -> u64;
    /// In-order payload deliveries over the measurement window, and the window's cycles.
    fn window_in_order(&self) -> u64;
    fn window_cycles(&self) -> u64;

    /// Fraction of payload flits carrying an AckNum (p_coalescing of Eq. 7).
    fn p_ack(&self) -> f64 {
        self.wire_payload_with_ack() as f64 / self.wire_payload().max(1) as f64
    }
    /// Flits silently lost on the way: forced channel drops plus switch drops.
    fn silent_drops(&self) -> u64 {
        self.channel_drops() + self.switch_drops()
    }
    /// Eq. 7: ordering failure events expected from the silent drops.
    fn predicted_ordering_events(&self) -> f64 {
        self.silent_drops() as f64 * self.p_ack()
    }
    /// 1 − in-order payload deliveries per cycle over the measurement window.
    fn bw_loss(&self) -> f64 {
        1.0 - self.window_in_order() as f64 / self.window_cycles().max(1) as f64
    }
}

impl DirectionFigures for DirectionReport {
    fn wire_payload(&self) -> u64 {
        self.wire_payload
    }
    fn wire_payload_with_ack(&self) -> u64 {
        self.wire_payload_with_ack
    }
    fn channel_drops(&self) -> u64 {
        self.channels.drops
    }
    fn switch_drops(&self) -> u64 {
        self.switch_drops
    }
    fn window_in_order(&self) -> u64 {
        self.sink.window_in_order
    }
    fn window_cycles(&self) -> u64 {
        self.window_cycles
    }
}

impl DirectionReport {
    /// The median observed retry loop.
    pub fn loop_median(&self) -> Option<u64> {
        let mut v = self.loop_samples.clone();
        v.sort_unstable();
        v.get(v.len() / 2).copied()
    }
    /// Payloads sent but never delivered in order.
    pub fn undelivered(&self) -> u64 {
        self.sent - self.sink.in_order
    }
}

/// Eq. 11–14: bandwidth loss of go-back-N with per-flit retry probability `p` and a retry
/// loop of `loop_flits` flits: 1 − 1 / ((1 − p) + p·(1 + loop)).
pub fn predicted_bw_loss(p: f64, loop_flits: f64) -> f64 {
    1.0 - 1.0 / ((1.0 - p) + p * (1.0 + loop_flits))
}

#[derive(Debug, Clone)]
pub struct Report {
    pub cfg: CampaignConfig,
    pub dirs: [DirectionReport; 2],
    pub cycles: u64,
    pub drained: bool,
    pub seconds: f64,
}

impl Report {
    /// Per-flit probability of an event that costs a retry on the path, as Eq. 12 counts it:
    /// links × (FER_UC + forced drops).
    pub fn retry_probability(&self) -> f64 {
        (self.cfg.switches + 1) as f64 * (self.cfg.faults.uc + self.cfg.faults.drop)
    }
    pub fn predicted_bw_loss(&self) -> f64 {
        predicted_bw_loss(self.retry_probability(), self.cfg.retry_loop as f64)
    }
}

/// Wire observation of one sender: loop measurement from payload serials.
#[derive(Default)]
struct WireWatch {
    first_sent: std::collections::HashMap<u64, u64>,
    last_serial: Option<u64>,
    max_serial: Option<u64>,
}

/// Runs one campaign configuration on `nodes`. `progress(cycle, total)` is called every 1024
/// cycles.
pub fn run_config(cfg: &CampaignConfig, mut nodes: Nodes, progress: &mut dyn FnMut(u64, u64)) -> Result<Report, CampaignError> {
    let started = std::time::Instant::now();
    let s = cfg.switches;
    assert!(nodes.switches.iter().all(|v| v.len() == s), "nodes for {s} switch levels");
    let delays = cfg.link_delays().map_err(CampaignError::Config)?;
    let mut rng = TestRng::from_seed(cfg.seed);
    let mut channels: [Vec<Channel<Box<Flit>>>; 2] = [0, 1].map(|d| delays[d].iter().enumerate().map(|(k, &dl)| Channel::new(dl, cfg.faults, cfg.seed ^ ((((d as u64) << 32) | (k as u64 + 1)) * 0x9E37_79B9))).collect());
    let mut dirs: [DirectionReport; 2] = Default::default();
    let mut sinks = [Sink::new(), Sink::new()];
    let mut serial = [0u64; 2];
    let mut watch: [WireWatch; 2] = Default::default();
    let mut inputs: [EpInputs; 2] = Default::default();
    let total = cfg.traffic_cycles + cfg.drain_cycles;
    let mut cycle = 0u64;
    let mut drained = false;
    let mut sw_tx_out: Vec<(bool, Flit)> = Vec::with_capacity(s);
    let mut sw_rx_out: Vec<(bool, Msg)> = Vec::with_capacity(s);
    let mut sw_rx_in: Vec<Option<Box<Flit>>> = Vec::with_capacity(s);
    while cycle < total {
        let traffic = cycle < cfg.traffic_cycles;
        if cycle == cfg.traffic_cycles {
            for ch in channels.iter_mut().flatten() {
                ch.set_faults(Faults::none());
            }
        }
        if !traffic && (0..2).all(|d| sinks[d].in_order == serial[d]) {
            drained = true;
            break;
        }
        if cycle.is_multiple_of(1024) {
            progress(cycle, total);
        }
        let in_window = traffic && cycle >= cfg.warmup_cycles;
        for d in 0..2 {
            // Source endpoint d sends direction d; the other endpoint receives it.
            let out = nodes.endpoints[d].outputs();
            // Traffic in both directions (saturating unless offered_load < 1), and the link's
            // readiness.
            let offer = traffic && (cfg.offered_load >= 1.0 || rng.random_bool(cfg.offered_load.max(0.0)));
            inputs[d].s_valid = offer;
            if offer {
                inputs[d].s_payload = payload(serial[d], d);
                if out.s_ready {
                    serial[d] += 1;
                }
            }
            inputs[d].tx_ready = !(cfg.tx_stall > 0.0 && rng.random_bool(cfg.tx_stall));
            // Wire observation of the sender.
            let r = &mut dirs[d];
            if out.tx_valid && inputs[d].tx_ready {
                r.wire_flits += 1;
                let h = Header::of(&out.tx_flit);
                if h.ftype == TYPE_PAYLOAD {
                    r.wire_payload += 1;
                    r.wire_payload_with_ack += (h.cmd != CMD_NONE) as u64;
                    let sn = u64::from_le_bytes(out.tx_flit[2..10].try_into().expect("8 bytes"));
                    let w = &mut watch[d];
                    if w.max_serial.is_some_and(|m| sn <= m) {
                        if w.last_serial != Some(sn.wrapping_sub(1)) {
                            if let Some(&t0) = w.first_sent.get(&sn) {
                                r.loop_samples.push(cycle - t0);
                            }
                        }
                    } else {
                        w.first_sent.insert(sn, cycle);
                        w.max_serial = Some(sn);
                        if sn % 4096 == 0 {
                            let keep = sn.saturating_sub(4096);
                            w.first_sent.retain(|&k, _| k >= keep);
                        }
                    }
                    w.last_serial = Some(sn);
                }
            }
            // Deliveries of the other direction at this endpoint.
            if out.m_valid {
                sinks[1 - d].deliver(&out.m_payload, 1 - d, in_window);
            }
        }
        // Channels and switches, direction by direction: every output read before any tick.
        for d in 0..2 {
            let (ep_valid, ep_flit) = {
                let out = nodes.endpoints[d].outputs();
                (out.tx_valid && inputs[d].tx_ready, out.tx_flit)
            };
            sw_tx_out.clear();
            sw_rx_out.clear();
            for (rx, tx) in &nodes.switches[d] {
                let (v, f) = tx.out();
                sw_tx_out.push((v, *f));
                let (v, m) = rx.out();
                sw_rx_out.push((v, *m));
            }
            sw_rx_in.clear();
            let mut arriving = None;
            for k in 0..=s {
                let input = if k == 0 { ep_valid.then(|| Box::new(ep_flit)) } else { sw_tx_out[k - 1].0.then(|| Box::new(sw_tx_out[k - 1].1)) };
                let out = channels[d][k].step(input);
                if k < s {
                    sw_rx_in.push(out);
                } else {
                    arriving = out;
                }
            }
            for k in 0..s {
                let (rx_valid, mut msg) = sw_rx_out[k];
                if rx_valid && cfg.internal > 0.0 && rng.random_bool(cfg.internal) {
                    let bit = rng.random_range(0..8 * MSG_BYTES);
                    msg[bit / 8] ^= 1 << (bit % 8);
                    dirs[d].internal_corruptions += 1;
                }
                let (sw_rx, sw_tx) = &mut nodes.switches[d][k];
                sw_tx.tick(rx_valid, &msg)?;
                match sw_rx_in[k].take() {
                    Some(fl) => sw_rx.tick(true, &fl)?,
                    None => sw_rx.tick(false, &ZERO_FLIT)?,
                }
            }
            let rx = &mut inputs[1 - d];
            match arriving {
                Some(f) => {
                    rx.rx_valid = true;
                    rx.rx_flit = *f;
                }
                None => rx.rx_valid = false,
            }
        }
        for (node, inp) in nodes.endpoints.iter_mut().zip(inputs.iter()) {
            node.tick(inp)?;
        }
        dirs[0].window_cycles += in_window as u64;
        dirs[1].window_cycles += in_window as u64;
        cycle += 1;
    }
    progress(cycle, total);
    for d in 0..2 {
        let r = &mut dirs[d];
        r.sink = sinks[d].clone();
        r.sent = serial[d];
        for ch in &channels[d] {
            r.channels += ch.stats;
        }
        for (rx, _) in &nodes.switches[d] {
            let c = rx.counters();
            r.switch_corrected += c[1];
            r.switch_drops += c[2];
        }
        r.tx_counters = nodes.endpoints[d].outputs().counters;
        r.rx_counters = nodes.endpoints[1 - d].outputs().counters;
    }
    Ok(Report { cfg: cfg.clone(), dirs, cycles: cycle, drained, seconds: started.elapsed().as_secs_f64() })
}
