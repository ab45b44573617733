//! A behavioural Ethernet switch for SUE fabrics (contract §5.5): one port per XPU,
//! store-and-forward per-{egress, class} queues with a byte capacity, PFC toward the senders,
//! per-link loss / silent corruption / FCS-flagged errors, links slower than the XPU bus, and
//! optional reordering **between** classes (never within one). Everything random comes from
//! one seeded SplitMix64, so a run is a function of its seed.
//!
//! PFC is accounted per {ingress port, class}, as switches do it: the bytes of class c received
//! on port i and still queued. Above `xoff_bytes` the switch pauses class c of port i (the
//! endpoint's `tx_vc_pause[c]`), below `xon_bytes` it releases it; the pause reaches the
//! endpoint `pause_latency` cycles later. An endpoint only checks pause when it starts a PDU, so
//! the headroom a lossless queue needs per port and class is one maximum PDU plus what the link
//! carries during the pause latency ([`SwitchConfig::lossless_queue_bytes`]). The switch in turn
//! honours each endpoint's `rx_vc_pause` (seen `pause_latency` cycles late) at PDU boundaries.
//!
//! Reordering between classes: each egress schedules its classes round robin among those whose
//! head has arrived and is not paused; with `class_stall > 0` a class additionally stalls for
//! `class_stall_cycles` at random, so PDUs of one class overtake older PDUs of another (seed
//! §3.4.6 / contract §1.19: a PSN space spanning VCs sees that as a gap).

use crate::TestRng;
use rtl_gen::blocks::protocol::sue::wire::{beats, Beat, Rcrc};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Faults of one link direction, per PDU.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LinkFaults {
    /// Probability the PDU is lost.
    pub drop: f64,
    /// Probability one bit of the PDU flips after the FCS check (only the R-CRC can see it).
    pub corrupt: f64,
    /// Probability the PDU arrives with the lower layer's frame-error flag (tuser of the s_axis_rx stream).
    pub fcs_err: f64,
}

/// A deliberate switch bug, for showing that the fabric scoreboards catch what the transport
/// cannot: a PDU corrupted *before* a fresh R-CRC is computed is accepted by the receiver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SwitchBug {
    /// With this probability per PDU, flip one payload bit and recompute the R-CRC.
    CorruptWithFreshCrc { prob: f64, rcrc: Rcrc },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwitchConfig {
    pub ports: usize,
    pub num_vc: usize,
    /// Bus width of the endpoints (bytes per beat).
    pub data_bytes: usize,
    /// Capacity of each {egress, class} queue in bytes; a PDU that does not fit is dropped
    /// (`overflow_drops`, zero when PFC is configured with enough headroom).
    pub queue_bytes: usize,
    /// PFC thresholds per {ingress port, class} in queued bytes.
    pub xoff_bytes: usize,
    pub xon_bytes: usize,
    /// Cycles for a pause change to reach the other side (both directions).
    pub pause_latency: u64,
    /// Cycles from a PDU's last byte in to its first byte being eligible out (switch + cables).
    pub latency: u64,
    /// Link rate in bytes per cycle (≤ data_bytes: the XPU bus is faster than Ethernet, seed §4.4).
    pub link_bytes_per_cycle: f64,
    /// Bytes each PDU costs on a link besides its own (Ethernet/IPv4/UDP, preamble, IFG, FCS).
    pub frame_overhead: usize,
    /// Faults on the link from endpoint i into the switch, and from the switch to endpoint i.
    pub uplink: Vec<LinkFaults>,
    pub downlink: Vec<LinkFaults>,
    /// Per {egress, class} and cycle: probability an idle class starts a stall.
    pub class_stall: f64,
    pub class_stall_cycles: u64,
    #[serde(skip)]
    pub bug: Option<SwitchBug>,
    pub seed: u64,
}

impl SwitchConfig {
    /// A lossless switch for `ports` endpoints of `data_bytes` beats and `max_pdu` bytes per PDU.
    pub fn new(ports: usize, num_vc: usize, data_bytes: usize, max_pdu: usize) -> SwitchConfig {
        let mut c = SwitchConfig {
            ports,
            num_vc,
            data_bytes,
            queue_bytes: 0,
            xoff_bytes: 2 * max_pdu,
            xon_bytes: max_pdu,
            pause_latency: 8,
            latency: 20,
            link_bytes_per_cycle: data_bytes as f64 / 2.0,
            frame_overhead: 66,
            uplink: vec![LinkFaults::default(); ports],
            downlink: vec![LinkFaults::default(); ports],
            class_stall: 0.0,
            class_stall_cycles: 0,
            bug: None,
            seed: 1,
        };
        c.queue_bytes = c.lossless_queue_bytes(max_pdu);
        c
    }

    /// Queue bytes per {egress, class} that no PDU can overflow while PFC works: every ingress
    /// port may hold xoff + one PDU in flight + what its link carries in the pause latency.
    pub fn lossless_queue_bytes(&self, max_pdu: usize) -> usize {
        let per_port = self.xoff_bytes
            + max_pdu
            + (self.pause_latency as f64 * self.data_bytes as f64).ceil() as usize;
        self.ports * per_port
    }

    /// The same faults on every link in both directions.
    pub fn faults(&mut self, f: LinkFaults) {
        self.uplink = vec![f; self.ports];
        self.downlink = vec![f; self.ports];
    }

    /// Errors name the field and the allowed range.
    pub fn check(&self) -> Result<(), String> {
        let p = |name: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("switch: `{name}` = {v} is out of range; allowed 0..=1"))
            }
        };
        if self.ports < 2 {
            return Err(format!("switch: `ports` = {} is out of range; allowed 2..=1024", self.ports));
        }
        if self.uplink.len() != self.ports || self.downlink.len() != self.ports {
            return Err(format!(
                "switch: `uplink`/`downlink` hold {}/{} links; allowed exactly `ports` = {}",
                self.uplink.len(),
                self.downlink.len(),
                self.ports
            ));
        }
        for f in self.uplink.iter().chain(&self.downlink) {
            p("drop", f.drop)?;
            p("corrupt", f.corrupt)?;
            p("fcs_err", f.fcs_err)?;
        }
        p("class_stall", self.class_stall)?;
        if !(self.link_bytes_per_cycle > 0.0 && self.link_bytes_per_cycle <= self.data_bytes as f64) {
            return Err(format!(
                "switch: `link_bytes_per_cycle` = {} is out of range; allowed above 0 up to data_bytes ({})",
                self.link_bytes_per_cycle, self.data_bytes
            ));
        }
        if self.xon_bytes > self.xoff_bytes {
            return Err(format!(
                "switch: `xon_bytes` = {} exceeds `xoff_bytes` ({}); allowed 0..={}",
                self.xon_bytes, self.xoff_bytes, self.xoff_bytes
            ));
        }
        Ok(())
    }
}

/// What the switch saw (all counts are PDUs unless named otherwise).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SwitchStats {
    pub pdus_in: u64,
    pub pdus_out: u64,
    pub uplink_drops: u64,
    pub downlink_drops: u64,
    pub overflow_drops: u64,
    pub corrupted: u64,
    pub fcs_flagged: u64,
    pub bug_corrupted: u64,
    /// Per ingress port: cycles with any class paused toward it.
    pub pause_cycles: Vec<u64>,
    /// Highest bytes seen in one {egress, class} queue.
    pub max_queue_bytes: usize,
    /// PDUs that left an egress before an older PDU (by arrival) of another class there.
    pub class_overtakes: u64,
}

struct Queued {
    bytes: Vec<u8>,
    src: usize,
    ready_at: u64,
    arrival: u64,
}

struct Egress {
    queues: Vec<VecDeque<Queued>>,
    queued: Vec<usize>,
    stall_until: Vec<u64>,
    rr: usize,
    /// The PDU being sent: its beats, the next one, the frame-error flag.
    cur: Option<(Vec<Beat>, usize, bool)>,
    bucket: f64,
    /// The endpoint's rx_vc_pause as the switch sees it (oldest first).
    rx_pause: VecDeque<u32>,
}

/// The switch. Per cycle: [`Switch::tx_ready`], [`Switch::tx_pause`], [`Switch::rx_offer`]
/// to make the endpoints' inputs; [`Switch::ingress`], [`Switch::rx_accept`],
/// [`Switch::set_rx_pause`] from their outputs; then [`Switch::tick`].
pub struct Switch {
    pub cfg: SwitchConfig,
    rng: TestRng,
    now: u64,
    egress: Vec<Egress>,
    /// Bytes queued per {ingress port, class}.
    ingress_bytes: Vec<Vec<usize>>,
    paused: Vec<u32>,
    /// The pause each endpoint sees (oldest first, `pause_latency + 1` long).
    tx_pause_line: Vec<VecDeque<u32>>,
    up_bucket: Vec<f64>,
    up_first: Vec<bool>,
    pub stats: SwitchStats,
}

impl Switch {
    pub fn new(cfg: SwitchConfig) -> Result<Switch, String> {
        cfg.check()?;
        let n = cfg.ports;
        let v = cfg.num_vc;
        let line = |l: u64| VecDeque::from(vec![0u32; l as usize + 1]);
        Ok(Switch {
            rng: TestRng::from_seed(cfg.seed),
            now: 0,
            egress: (0..n)
                .map(|_| Egress {
                    queues: (0..v).map(|_| VecDeque::new()).collect(),
                    queued: vec![0; v],
                    stall_until: vec![0; v],
                    rr: v - 1,
                    cur: None,
                    bucket: 0.0,
                    rx_pause: line(cfg.pause_latency),
                })
                .collect(),
            ingress_bytes: vec![vec![0; v]; n],
            paused: vec![0; n],
            tx_pause_line: (0..n).map(|_| line(cfg.pause_latency)).collect(),
            up_bucket: vec![0.0; n],
            up_first: vec![true; n],
            stats: SwitchStats {
                pause_cycles: vec![0; n],
                ..Default::default()
            },
            cfg,
        })
    }

    fn beat_cost(&self, first: bool) -> f64 {
        self.cfg.data_bytes as f64 + if first { self.cfg.frame_overhead as f64 } else { 0.0 }
    }

    /// tready of endpoint `port`'s m_axis_tx stream: its uplink has the bytes for the next beat.
    pub fn tx_ready(&self, port: usize) -> bool {
        self.up_bucket[port] >= self.beat_cost(self.up_first[port])
    }

    /// Endpoint `port` sent a beat (`last`: the PDU's last).
    pub fn tx_beat(&mut self, port: usize, last: bool) {
        self.up_bucket[port] -= self.beat_cost(self.up_first[port]);
        self.up_first[port] = last;
    }

    /// `tx_vc_pause` of endpoint `port`.
    pub fn tx_pause(&self, port: usize) -> u32 {
        self.tx_pause_line[port][0]
    }

    /// A whole PDU from endpoint `src` (its last beat was taken this cycle).
    pub fn ingress(&mut self, src: usize, mut bytes: Vec<u8>, dest: usize, vc: usize) {
        self.stats.pdus_in += 1;
        let f = self.cfg.uplink[src];
        if self.rng.chance(f.drop) {
            self.stats.uplink_drops += 1;
            return;
        }
        let ferr = self.fault_bits(&mut bytes, f);
        if dest >= self.cfg.ports || vc >= self.cfg.num_vc {
            self.stats.overflow_drops += 1;
            return;
        }
        if let Some(SwitchBug::CorruptWithFreshCrc { prob, rcrc }) = self.cfg.bug {
            if bytes.len() > 12 && self.rng.chance(prob) {
                let body = bytes.len() - 4;
                let at = 8 + self.rng.range(0, body as u64 - 9) as usize;
                bytes[at] ^= 1 << self.rng.range(0, 7);
                let crc = rcrc.model().checksum(&bytes[..body]) as u32;
                bytes[body..].copy_from_slice(&crc.to_le_bytes());
                self.stats.bug_corrupted += 1;
            }
        }
        // The frame-error flag travels with the frame (an LLR-less hop forwards it).
        if ferr {
            bytes.push(1);
        } else {
            bytes.push(0);
        }
        let e = &mut self.egress[dest];
        if e.queued[vc] + bytes.len() - 1 > self.cfg.queue_bytes {
            self.stats.overflow_drops += 1;
            return;
        }
        let len = bytes.len() - 1;
        e.queued[vc] += len;
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(e.queued[vc]);
        self.ingress_bytes[src][vc] += len;
        e.queues[vc].push_back(Queued {
            bytes,
            src,
            ready_at: self.now + self.cfg.latency,
            arrival: self.now,
        });
    }

    /// Silent corruption (one bit) and the FCS flag of one link; returns the flag.
    fn fault_bits(&mut self, bytes: &mut [u8], f: LinkFaults) -> bool {
        if self.rng.chance(f.corrupt) {
            let at = self.rng.range(0, bytes.len() as u64 - 1) as usize;
            bytes[at] ^= 1 << self.rng.range(0, 7);
            self.stats.corrupted += 1;
        }
        let ferr = self.rng.chance(f.fcs_err);
        if ferr {
            self.stats.fcs_flagged += 1;
        }
        ferr
    }

    /// The beat egress `port` offers endpoint `port` this cycle, with its frame-error flag.
    pub fn rx_offer(&self, port: usize) -> Option<(&Beat, bool)> {
        let e = &self.egress[port];
        let (bs, at, ferr) = e.cur.as_ref()?;
        (e.bucket >= self.beat_cost(*at == 0)).then(|| (&bs[*at], *ferr && bs[*at].last))
    }

    /// Endpoint `port` took the offered beat.
    pub fn rx_accept(&mut self, port: usize) {
        let cost = {
            let (_, at, _) = self.egress[port].cur.as_ref().expect("a beat was offered");
            self.beat_cost(*at == 0)
        };
        let e = &mut self.egress[port];
        e.bucket -= cost;
        let (bs, at, _) = e.cur.as_mut().expect("offered");
        *at += 1;
        if *at == bs.len() {
            e.cur = None;
            self.stats.pdus_out += 1;
        }
    }

    /// Endpoint `port`'s `rx_vc_pause` this cycle.
    pub fn set_rx_pause(&mut self, port: usize, mask: u32) {
        let e = &mut self.egress[port];
        if let Some(b) = e.rx_pause.back_mut() {
            *b = mask;
        }
    }

    /// Bytes queued per {ingress, class} (PFC accounting).
    pub fn ingress_bytes(&self, port: usize, vc: usize) -> usize {
        self.ingress_bytes[port][vc]
    }

    /// Nothing queued or in flight anywhere.
    pub fn empty(&self) -> bool {
        self.egress
            .iter()
            .all(|e| e.cur.is_none() && e.queues.iter().all(|q| q.is_empty()))
    }

    /// End of the cycle: schedule egress PDUs, refill the link buckets, update PFC.
    pub fn tick(&mut self) {
        let rate = self.cfg.link_bytes_per_cycle;
        let cap = 2.0 * (self.cfg.data_bytes + self.cfg.frame_overhead) as f64;
        let nv = self.cfg.num_vc;
        let now = self.now;
        for p in 0..self.cfg.ports {
            self.up_bucket[p] = (self.up_bucket[p] + rate).min(cap);
            // Class stalls (reordering between classes).
            if self.cfg.class_stall > 0.0 {
                for c in 0..nv {
                    if self.egress[p].stall_until[c] <= self.now && self.rng.chance(self.cfg.class_stall) {
                        self.egress[p].stall_until[c] = self.now + self.cfg.class_stall_cycles;
                    }
                }
            }
            let e = &mut self.egress[p];
            e.bucket = (e.bucket + rate).min(cap);
            let seen_pause = e.rx_pause[0];
            if e.cur.is_none() {
                let pick = (1..=nv).map(|k| (e.rr + k) % nv).find(|&c| {
                    e.queues[c].front().is_some_and(|q| q.ready_at <= now)
                        && seen_pause >> c & 1 == 0
                        && e.stall_until[c] <= now
                });
                if let Some(c) = pick {
                    e.rr = c;
                    let q = e.queues[c].pop_front().expect("non-empty");
                    let mut bytes = q.bytes;
                    let ferr_in = bytes.pop() == Some(1);
                    let len = bytes.len();
                    e.queued[c] -= len;
                    self.ingress_bytes[q.src][c] -= len;
                    let overtakes = (0..nv)
                        .filter(|&o| o != c)
                        .filter(|&o| e.queues[o].front().is_some_and(|h| h.arrival < q.arrival))
                        .count() as u64;
                    self.stats.class_overtakes += overtakes;
                    let f = self.cfg.downlink[p];
                    if self.rng.chance(f.drop) {
                        self.stats.downlink_drops += 1;
                    } else {
                        let ferr = self.fault_bits(&mut bytes, f) | ferr_in;
                        let e = &mut self.egress[p];
                        e.cur = Some((beats(&bytes, self.cfg.data_bytes), 0, ferr));
                    }
                }
            }
            let e = &mut self.egress[p];
            e.rx_pause.pop_front();
            let last = e.rx_pause.back().copied().unwrap_or(0);
            e.rx_pause.push_back(last);
        }
        // PFC per {ingress, class} with hysteresis.
        for p in 0..self.cfg.ports {
            for c in 0..nv {
                let b = self.ingress_bytes[p][c];
                if b >= self.cfg.xoff_bytes.max(1) {
                    self.paused[p] |= 1 << c;
                } else if b <= self.cfg.xon_bytes {
                    self.paused[p] &= !(1 << c);
                }
            }
            let line = &mut self.tx_pause_line[p];
            line.pop_front();
            line.push_back(self.paused[p]);
            if line[0] != 0 {
                self.stats.pause_cycles[p] += 1;
            }
        }
        self.now += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pdu(n: usize, tag: u8) -> Vec<u8> {
        let mut v = vec![tag; n];
        v[0] = tag;
        v
    }

    /// Drain egress `port` with the endpoint always ready; returns the PDUs' first bytes.
    fn drain(sw: &mut Switch, port: usize, cycles: usize) -> Vec<u8> {
        let mut got = Vec::new();
        let mut first = true;
        for _ in 0..cycles {
            sw.set_rx_pause(port, 0);
            if let Some((b, _)) = sw.rx_offer(port) {
                if first {
                    got.push(b.data[0]);
                }
                first = b.last;
                sw.rx_accept(port);
            }
            sw.tick();
        }
        got
    }

    #[test]
    fn order_within_a_class_holds_and_classes_can_overtake() {
        let mut c = SwitchConfig::new(3, 2, 16, 64);
        c.class_stall = 0.05;
        c.class_stall_cycles = 200;
        c.seed = 7;
        let mut sw = Switch::new(c).unwrap();
        // Interleave classes: tags 0..40, even tags class 0, odd class 1.
        for t in 0..40u8 {
            sw.ingress(0, pdu(44, t), 2, (t % 2) as usize);
            sw.tick();
        }
        let got = drain(&mut sw, 2, 20_000);
        assert_eq!(got.len(), 40);
        for class in 0..2u8 {
            let seq: Vec<u8> = got.iter().copied().filter(|t| t % 2 == class).collect();
            assert!(seq.windows(2).all(|w| w[0] < w[1]), "class {class} in order: {seq:?}");
        }
        assert_ne!(got, (0..40).collect::<Vec<u8>>(), "the stalls reorder between classes");
        assert!(sw.stats.class_overtakes > 0);
    }

    #[test]
    fn pfc_pauses_the_sender_and_releases_it() {
        let c = SwitchConfig::new(2, 2, 16, 64);
        let lat = c.pause_latency as usize;
        let mut sw = Switch::new(c).unwrap();
        // Endpoint 1 pauses class 0 toward the switch: queue grows, sender 0 gets paused.
        sw.set_rx_pause(1, 1);
        for _ in 0..4 {
            sw.ingress(0, pdu(76, 1), 1, 0);
            sw.set_rx_pause(1, 1);
            sw.tick();
        }
        for _ in 0..=lat {
            sw.set_rx_pause(1, 1);
            sw.tick();
        }
        assert_eq!(sw.tx_pause(0), 1, "class 0 of port 0 paused at xoff");
        assert_eq!(sw.tx_pause(1), 0);
        assert_eq!(sw.ingress_bytes(0, 0), 4 * 76);
        assert!(sw.rx_offer(1).is_none(), "the switch honours the receiver's pause");
        let got = drain(&mut sw, 1, 2000);
        assert_eq!(got.len(), 4);
        assert_eq!(sw.tx_pause(0), 0, "released below xon");
        assert_eq!(sw.stats.overflow_drops, 0);
    }

    #[test]
    fn faults_are_seeded_and_bad_fields_named() {
        let run = |seed| {
            let mut c = SwitchConfig::new(2, 1, 16, 64);
            c.faults(LinkFaults { drop: 0.3, corrupt: 0.2, fcs_err: 0.1 });
            c.seed = seed;
            let mut sw = Switch::new(c).unwrap();
            for _ in 0..200 {
                sw.ingress(0, pdu(44, 3), 1, 0);
                drain(&mut sw, 1, 8);
            }
            sw.stats.clone()
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
        let s = run(5);
        assert!(s.uplink_drops > 20 && s.downlink_drops > 10 && s.corrupted > 20 && s.fcs_flagged > 10);
        let mut c = SwitchConfig::new(2, 1, 16, 64);
        c.class_stall = 2.0;
        assert!(Switch::new(c).err().unwrap().contains("`class_stall` = 2"));
        let mut c = SwitchConfig::new(2, 1, 16, 64);
        c.link_bytes_per_cycle = 32.0;
        assert!(Switch::new(c).err().unwrap().contains("`link_bytes_per_cycle` = 32"));
    }
}
