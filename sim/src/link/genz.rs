//! Gen-Z LLR links: two `genz_llr` interfaces (models, or Verilated RTL with the model
//! in lockstep: [`crate::cosim::genz`]) joined by two shared [`Channel`]s carrying link beats,
//! with random EE traffic on every VC, backpressure on every stream, bit errors (data and the
//! link-local marker), bursts, dropped beats (reported by the receiving PHY as `phy_error`),
//! link-local packets lost without a trace (`ll_loss`),
//! link-down periods and the retrains the interfaces request. The scoreboard checks every EE
//! packet is delivered exactly once, in order per VC, bit exact.

use super::channel::{Channel, ChannelStats, Faults, Frame};
use crate::SimError;
use rtl_gen::blocks::genz_llr::model::{with_ecrc, LlrConfig, LlrInputs, LlrModel, LlrOutputs, C_DISC_SENT, C_EXIT_SENT, C_RETRAIN, LINK_UP};
use rtl_gen::math::splitmix::SplitMix64;
use std::collections::VecDeque;

/// One beat on the link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beat {
    pub data: Vec<u8>,
    pub last: bool,
    /// Link-local marker (`tuser`).
    pub user: bool,
}

/// Bit errors hit the data and the marker alike (`tlast` is the PHY framing's, not corrupted).
impl Frame for Beat {
    fn unit_bits(&self, _: usize) -> usize {
        8 * self.data.len() + 1
    }
    fn flip(&mut self, _: usize, bit: usize) {
        if bit == 8 * self.data.len() {
            self.user = !self.user;
        } else {
            self.data[bit / 8] ^= 1 << (bit % 8);
        }
    }
    fn is_payload(&self) -> bool {
        !self.user
    }
}

/// An interface the campaign drives: the model alone or RTL + model.
pub trait LlrNode {
    /// Outputs during the current cycle (registered).
    fn outputs(&self) -> LlrOutputs;
    /// `s_axis_tready` for these inputs, then the clock edge.
    fn tick(&mut self, i: &LlrInputs) -> Result<bool, SimError>;
    /// EE packets in the retry buffer, unacknowledged (the RTL has no port for it: a twin
    /// reports its lockstep model's, which the comparison of every output holds to the RTL).
    fn outstanding(&self) -> u64;
    /// Of them, packets sent on the link at least once and not yet acknowledged (the rest wait
    /// in the buffer for their first transmission).
    fn in_flight(&self) -> u64;
}

impl LlrNode for LlrModel {
    fn outputs(&self) -> LlrOutputs {
        LlrModel::outputs(self)
    }
    fn tick(&mut self, i: &LlrInputs) -> Result<bool, SimError> {
        let r = self.s_ready(i.s_user);
        LlrModel::tick(self, i);
        Ok(r)
    }
    fn outstanding(&self) -> u64 {
        LlrModel::outstanding(self) as u64
    }
    fn in_flight(&self) -> u64 {
        self.r.sent_max.wrapping_sub(self.r.ack_seq) as u64
    }
}

/// What the link does besides random faults.
#[derive(Debug, Clone)]
pub struct LinkOptions {
    /// Cycles of the run with traffic; then the faults stop and the link drains.
    pub cycles: u64,
    pub drain_cycles: u64,
    /// One-way channel delay in cycles (cable length × 5 ns/m ÷ cycle time).
    pub delay: usize,
    pub faults: Faults,
    /// Per-cycle probability that the link goes down (both phy_up low) for `down_cycles`.
    pub down: f64,
    pub down_cycles: u64,
    /// One more link-down period (of `down_cycles`) starting at this cycle.
    pub down_at: Option<u64>,
    /// Cycles phy_up stays low when an interface requests a retrain.
    pub retrain_cycles: u64,
    /// Probability of an EE beat offered per cycle (per end) while traffic runs.
    pub load: f64,
    /// Probabilities that m_axis_tready / m_axis_link_tready are high.
    pub m_ready: f64,
    pub link_ready: f64,
    /// Probability that a source holds `s_axis_tvalid` high on a beat it has (1.0: saturating).
    pub offer: f64,
    /// Every EE packet this many bytes (a multiple of `data_bytes`, at most `max_packet_bytes`);
    /// `None`: 1..max beats at random.
    pub packet_bytes: Option<usize>,
    /// Goodput, occupancy and recovery are measured from this cycle to `cycles`.
    pub window_from: u64,
    /// A silent transmitter: beats entering the channel of direction `.0` (0: A→B) in cycles
    /// `.1..` `.2` vanish without a `phy_error` (the PHY sees an idle link, not a loss).
    pub silent: Option<(usize, u64, u64)>,
    /// Probability that a link-local packet (all its beats) vanishes without a `phy_error`.
    pub ll_loss: f64,
    /// Link-down periods last `down_cycles` even below the channel delay, and the PHY does not
    /// flush the link: beats sent before a retrain arrive after `phy_up` rises again.
    pub keep_in_flight: bool,
    /// End the drain early once the link is quiet: every packet delivered, nothing
    /// unacknowledged, both ends up with EE transmission enabled, nothing discarding or stopped.
    pub stop_when_quiet: bool,
    pub seed: u64,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions { cycles: 20_000, drain_cycles: 60_000, delay: 10, faults: Faults::none(), down: 0.0, down_cycles: 200, down_at: None, retrain_cycles: 100, load: 0.5, m_ready: 1.0, link_ready: 1.0, offer: 0.9, packet_bytes: None, window_from: 0, silent: None, ll_loss: 0.0, keep_in_flight: false, stop_when_quiet: false, seed: 1 }
    }
}

/// What a directed fault does with a beat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// The beat enters the channel (possibly changed by the hook).
    Keep,
    /// Dropped; the receiving PHY reports the loss with `phy_error`.
    Drop,
    /// Lost without a trace (the receiver sees an idle link).
    Lose,
}

/// A directed fault: called for every beat entering a channel (direction 0: A→B, 1: B→A);
/// may change the beat and says what becomes of it.
pub type Hook<'a> = dyn FnMut(u64, usize, &mut Beat) -> Fate + 'a;

/// The hook that leaves every beat alone.
pub fn keep(_: u64, _: usize, _: &mut Beat) -> Fate {
    Fate::Keep
}

/// What a link run found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkReport {
    pub cycles: u64,
    /// EE packets offered and accepted, per end.
    pub sent: [u64; 2],
    /// EE packets delivered, per end (received from the peer).
    pub delivered: [u64; 2],
    /// Delivered packets that were not the next expected one of their VC (lost, duplicated,
    /// reordered or corrupted).
    pub errors: u64,
    /// Packets accepted but never delivered at the end.
    pub missing: u64,
    pub retrains: u64,
    pub down_periods: u64,
    pub counters: [[u64; 13]; 2],
    /// `llr_state` of each end at the end of the run.
    pub final_state: [u8; 2],
    /// Cycle the first EE packet was delivered (Init time), per end.
    pub first_delivery: [Option<u64>; 2],
    /// EE bytes delivered per end within the measurement window (`window_from..cycles`).
    pub window_bytes: [u64; 2],
    /// Recoveries that completed in the window, in cycles: from the first LLR Discard an end
    /// sends (it saw an error) to the first EE packet it delivers after its Exit Discard.
    pub recoveries: Vec<u64>,
    /// Unacknowledged EE packets per end, summed over the window's cycles, and the maximum.
    pub occupancy_sum: [u64; 2],
    pub occupancy_max: [u64; 2],
    /// Sent-and-unacknowledged packets per end, summed over the window's cycles, and the maximum.
    pub in_flight_sum: [u64; 2],
    pub in_flight_max: [u64; 2],
    /// Channels A→B and B→A.
    pub channels: [ChannelStats; 2],
}

impl LinkReport {
    pub fn clean(&self) -> bool {
        self.errors == 0 && self.missing == 0
    }
}

/// Random EE packets of one end: byte 0 carries the VC in its low bits, the last 4 bytes are
/// the ECRC.
struct Source {
    queue: VecDeque<(u8, Vec<u8>)>,
    cur: Option<(u8, Vec<u8>, usize)>,
}

fn packet(rng: &mut SplitMix64, cfg: &LlrConfig, vc: u8, bytes: Option<usize>) -> Vec<u8> {
    let d = cfg.data_bytes as usize;
    let beats = match bytes {
        Some(n) => n / d,
        None => rng.range(1, cfg.max_beats() as u64) as usize,
    };
    let mut body: Vec<u8> = (0..beats * d - 4).map(|_| rng.next_u64() as u8).collect();
    let mask = (1u8 << cfg.vc_bits()) - 1;
    body[0] = (body[0] & !mask) | vc;
    with_ecrc(body)
}

/// Run a link between `a` and `b`.
pub fn run_link(a: &mut dyn LlrNode, b: &mut dyn LlrNode, cfg: &LlrConfig, o: &LinkOptions, hook: &mut Hook) -> Result<LinkReport, SimError> {
    let d = cfg.data_bytes as usize;
    let mut rng = SplitMix64::new(o.seed);
    let mut ch: [Channel<Beat>; 2] = [Channel::new(o.delay, o.faults, o.seed ^ 0xA5A5), Channel::new(o.delay, o.faults, o.seed ^ 0x5A5A)];
    // Drop notices travel with the beats: the receiving PHY reports the loss on arrival.
    let mut drops: [VecDeque<bool>; 2] = [(0..o.delay).map(|_| false).collect(), (0..o.delay).map(|_| false).collect()];
    let mut src = [Source { queue: VecDeque::new(), cur: None }, Source { queue: VecDeque::new(), cur: None }];
    let mut expect: [Vec<VecDeque<Vec<u8>>>; 2] = [vec![VecDeque::new(); cfg.vcs as usize], vec![VecDeque::new(); cfg.vcs as usize]];
    let mut rx_pkt: [Vec<u8>; 2] = [vec![], vec![]];
    let mut rep = LinkReport::default();
    let mut down_left = 0u64;
    let floor = if o.keep_in_flight { 1 } else { o.delay as u64 + 2 };
    let down_cycles = o.down_cycles.max(floor);
    let retrain_cycles = o.retrain_cycles.max(floor);
    // Silent loss of link-local packets: whether the next beat into each channel starts a
    // packet, and whether the packet it belongs to is being lost.
    let mut at_start = [true, true];
    let mut losing = [false, false];
    let mut arriving: [Option<Beat>; 2] = [None, None];
    let mut drop_now = [false, false];
    let total = o.cycles + o.drain_cycles;
    let mut retrain_seen = [0u64; 2];
    // Recovery episodes per end: (cycle of the first Discard, Exit Discard sent since).
    let mut episode: [Option<(u64, bool)>; 2] = [None, None];
    let mut disc_seen = [0u64; 2];
    let mut exit_seen = [0u64; 2];
    for cycle in 0..total {
        let traffic = cycle < o.cycles;
        if o.stop_when_quiet && !traffic && down_left == 0 {
            let settled = |n: &dyn LlrNode| n.outputs().llr_state == LINK_UP | 4 && n.outstanding() == 0;
            let drained = src.iter().all(|s| s.cur.is_none() && s.queue.is_empty()) && expect.iter().flatten().all(|q| q.is_empty());
            if drained && settled(&*a) && settled(&*b) {
                break;
            }
        }
        if cycle == o.cycles {
            ch[0].set_faults(Faults::none());
            ch[1].set_faults(Faults::none());
        }
        let outs = [a.outputs(), b.outputs()];
        let window = traffic && cycle >= o.window_from;
        for (e, n) in [&*a, &*b].into_iter().enumerate() {
            let c = &outs[e].counters;
            if c[C_DISC_SENT] != disc_seen[e] {
                disc_seen[e] = c[C_DISC_SENT];
                episode[e].get_or_insert((cycle, false));
            }
            if c[C_EXIT_SENT] != exit_seen[e] {
                exit_seen[e] = c[C_EXIT_SENT];
                if let Some(ep) = &mut episode[e] {
                    ep.1 = true;
                }
            }
            if window {
                let k = n.outstanding();
                rep.occupancy_sum[e] += k;
                rep.occupancy_max[e] = rep.occupancy_max[e].max(k);
                let f = n.in_flight();
                rep.in_flight_sum[e] += f;
                rep.in_flight_max[e] = rep.in_flight_max[e].max(f);
            }
        }
        // Retrain requests and random link-down periods.
        for e in 0..2 {
            if outs[e].counters[C_RETRAIN] != retrain_seen[e] {
                retrain_seen[e] = outs[e].counters[C_RETRAIN];
                // A retrain ends every recovery episode (the Init exchange resumes instead).
                episode = [None, None];
                rep.retrains += 1;
                down_left = down_left.max(retrain_cycles);
                rep.down_periods += 1;
            }
        }
        if o.down_at == Some(cycle) {
            down_left = down_left.max(down_cycles);
            rep.down_periods += 1;
        }
        if traffic && down_left == 0 && o.down > 0.0 && rng.chance(o.down) {
            down_left = down_cycles;
            rep.down_periods += 1;
        }
        let phy_up = down_left == 0;
        down_left = down_left.saturating_sub(1);
        let mut inputs = [LlrInputs::idle(cfg.data_bytes), LlrInputs::idle(cfg.data_bytes)];
        for e in 0..2 {
            let i = &mut inputs[e];
            i.phy_up = phy_up;
            i.m_ready = rng.chance(o.m_ready);
            i.ltx_ready = rng.chance(o.link_ready);
            // Link TX into the channel toward the other end (one channel step per cycle).
            let mut dropped = false;
            let muted = o.silent.is_some_and(|(d, from, to)| d == e && (from..to).contains(&cycle));
            let sent = if outs[e].ltx_valid && i.ltx_ready && phy_up && !muted {
                let mut beat = Beat { data: outs[e].ltx_data.clone(), last: outs[e].ltx_last, user: outs[e].ltx_user };
                if o.ll_loss > 0.0 && at_start[e] {
                    losing[e] = beat.user && rng.chance(o.ll_loss);
                }
                at_start[e] = beat.last;
                match hook(cycle, e, &mut beat) {
                    Fate::Keep if !losing[e] => Some(beat),
                    Fate::Keep | Fate::Lose => None,
                    Fate::Drop => {
                        dropped = true;
                        None
                    }
                }
            } else {
                None
            };
            let before = ch[e].stats.drops;
            arriving[e] = ch[e].step(sent);
            dropped |= ch[e].stats.drops != before;
            drops[e].push_back(dropped);
            drop_now[e] = drops[e].pop_front().unwrap_or(false);
            if !phy_up {
                // The PHY drops what arrives while it is down (and, unless `keep_in_flight`,
                // down periods outlast the delay: the link is flushed).
                arriving[e] = None;
                drop_now[e] = false;
                at_start[e] = true;
            }
            // Source: offer the current packet's next beat.
            if traffic && src[e].cur.is_none() && src[e].queue.is_empty() && rng.chance(o.load) {
                let vc = rng.range(0, cfg.vcs as u64 - 1) as u8;
                let p = packet(&mut rng, cfg, vc, o.packet_bytes);
                src[e].queue.push_back((vc, p));
            }
            if src[e].cur.is_none() {
                if let Some((vc, p)) = src[e].queue.pop_front() {
                    src[e].cur = Some((vc, p, 0));
                }
            }
            if let Some((vc, p, k)) = &src[e].cur {
                i.s_valid = rng.chance(o.offer);
                i.s_data = p[k * d..(k + 1) * d].to_vec();
                i.s_last = (k + 1) * d == p.len();
                i.s_user = *vc;
            }
        }
        // Receive side: beats from the channel toward each end.
        for e in 0..2 {
            let from = 1 - e;
            let i = &mut inputs[e];
            if let Some(beat) = arriving[from].take() {
                i.lrx_valid = true;
                i.lrx_data = beat.data;
                i.lrx_last = beat.last;
                i.lrx_user = beat.user;
            }
            i.phy_error = drop_now[from];
            // Delivery on m_axis.
            if outs[e].m_valid && i.m_ready {
                rx_pkt[e].extend_from_slice(&outs[e].m_data);
                if outs[e].m_last {
                    let p = std::mem::take(&mut rx_pkt[e]);
                    let vc = outs[e].m_user as usize;
                    rep.delivered[e] += 1;
                    rep.first_delivery[e].get_or_insert(cycle);
                    if window {
                        rep.window_bytes[e] += p.len() as u64;
                    }
                    if let Some((since, true)) = episode[e] {
                        episode[e] = None;
                        if window && since >= o.window_from {
                            rep.recoveries.push(cycle - since);
                        }
                    }
                    match expect[from].get_mut(vc).and_then(|q| q.pop_front()) {
                        Some(want) if want == p => {}
                        _ => rep.errors += 1,
                    }
                }
            }
        }
        let ready = [a.tick(&inputs[0])?, b.tick(&inputs[1])?];
        for e in 0..2 {
            let i = &inputs[e];
            if i.s_valid && ready[e] {
                let (vc, p, k) = src[e].cur.take().expect("offered");
                if (k + 1) * d == p.len() {
                    expect[e][vc as usize].push_back(p);
                    rep.sent[e] += 1;
                } else {
                    src[e].cur = Some((vc, p, k + 1));
                }
            }
        }
        rep.cycles = cycle + 1;
    }
    rep.missing = expect.iter().flatten().map(|q| q.len() as u64).sum();
    rep.counters = [a.outputs().counters, b.outputs().counters];
    rep.final_state = [a.outputs().llr_state, b.outputs().llr_state];
    rep.channels = [ch[0].stats, ch[1].stats];
    Ok(rep)
}
