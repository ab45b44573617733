//! Untimed reference of the SUE reliable transport protocol (contract §4.5, seed §4.2 steps
//! 4, 4a, 4b, 8, 8a, 8b): PSN per {port, destination} (seed), cumulative ACKs piggybacked in the
//! RH or sent in 12-byte control PDUs, one NACK per gap naming the expected PSN (re-sent after
//! `nack_timeout` while the gap persists), duplicates re-ACKed, go-back-N on NACK and on a
//! retransmission timeout, `peer_down` after `max_retries` consecutive timeouts, completions
//! counted from the acknowledged PDUs. It works on real PDU bytes ([`super::wire`]), one PDU per
//! `poll` and one time step per `tick`. `psn_scope` picks the seed's PSN space per {port,
//! destination} or our extension, one space per {destination, VC} (the RH vc of an ACK/NACK
//! names the space, and control PDUs travel on that VC); it is the protocol the `sue_transport` RTL (not built
//! yet) is to implement cycle by cycle, and the reference its system scoreboards can use.

use super::wire::{build_pdu, dist, parse_pdu, Op, Rcrc, Rh};
use std::collections::VecDeque;

/// Which PSN space a PDU belongs to (the `psn_scope` field: `"dest"`, `"dest_vc"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PsnScope {
    /// One space per destination across VCs (seed §4.2 step 4).
    Dest,
    /// One space per {destination, VC} (our extension, contract §7.1).
    DestVc,
}

#[derive(Debug, Clone)]
pub struct ProtocolConfig {
    pub local_xpuid: u16,
    pub num_xpu: u16,
    pub num_vc: u8,
    pub psn_scope: PsnScope,
    pub cmd_bytes: usize,
    /// PDUs per destination stored and unacknowledged.
    pub window: u16,
    pub psn_init: u16,
    pub rto: u64,
    /// 0 = never give up.
    pub max_retries: u32,
    pub ack_coalesce: u32,
    pub ack_delay: u64,
    pub nack_timeout: u64,
    pub ack_vc: u8,
    pub partition: u16,
    pub rcrc: Rcrc,
}

#[derive(Debug, Clone)]
struct Slot {
    payload: Vec<u8>,
    vc: u8,
    /// Commands to this destination up to and including this PDU.
    cum: u64,
}

#[derive(Debug, Clone, Default)]
struct TxPeer {
    next: u16,
    hwm: u16,
    snd: u16,
    una: u16,
    slots: VecDeque<Slot>,
    timer: u64,
    retries: u32,
    down: bool,
    cum: u64,
    cmpl_acc: u64,
}

#[derive(Debug, Clone, Default)]
struct RxPeer {
    epsn: u16,
    nack_sent: bool,
    nack_pending: bool,
    ack_pending: bool,
    ack_force: bool,
    unacked: u32,
    ack_age: u64,
    nack_age: u64,
}

/// Event counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtocolStats {
    pub pdu_new: u64,
    pub pdu_retx: u64,
    pub ctrl: u64,
    pub nack_rcvd: u64,
    pub rto: u64,
    pub rx_crc_err: u64,
    pub rx_gap: u64,
    pub rx_dup: u64,
    pub rx_ok: u64,
}

/// One SUE transport endpoint (one port).
#[derive(Debug, Clone)]
pub struct Protocol {
    pub cfg: ProtocolConfig,
    tx: Vec<TxPeer>,
    rx: Vec<RxPeer>,
    rr_ctl: usize,
    rr_data: usize,
    /// (destination, commands) acknowledged since the last call of `take_completions`.
    completions: Vec<(u16, u64)>,
    pub stats: ProtocolStats,
}

impl Protocol {
    /// PSN spaces per peer.
    fn per_peer(&self) -> usize {
        match self.cfg.psn_scope {
            PsnScope::Dest => 1,
            PsnScope::DestVc => self.cfg.num_vc as usize,
        }
    }

    /// The PSN space of (peer, vc).
    fn space(&self, peer: u16, vc: u8) -> usize {
        let k = self.per_peer();
        peer as usize * k + if k > 1 { vc as usize } else { 0 }
    }

    /// The VC a control PDU of space `sp` travels on.
    fn ctl_vc(&self, sp: usize) -> u8 {
        match self.cfg.psn_scope {
            PsnScope::Dest => self.cfg.ack_vc,
            PsnScope::DestVc => (sp % self.per_peer()) as u8,
        }
    }

    pub fn new(cfg: ProtocolConfig) -> Protocol {
        let n = cfg.num_xpu as usize
            * if cfg.psn_scope == PsnScope::DestVc {
                cfg.num_vc as usize
            } else {
                1
            };
        let p = cfg.psn_init;
        let tx = vec![
            TxPeer {
                next: p,
                hwm: p,
                snd: p,
                una: p,
                ..Default::default()
            };
            n
        ];
        let rx = vec![
            RxPeer {
                epsn: p,
                ..Default::default()
            };
            n
        ];
        Protocol {
            cfg,
            tx,
            rx,
            rr_ctl: n - 1,
            rr_data: n - 1,
            completions: Vec::new(),
            stats: ProtocolStats::default(),
        }
    }

    /// Room for one more PDU to `dest` on `vc`.
    pub fn can_accept(&self, dest: u16, vc: u8) -> bool {
        let t = &self.tx[self.space(dest, vc)];
        !t.down && dist(t.una, t.next) < self.cfg.window
    }

    /// Store a packed payload (whole commands) for `dest` on `vc`; false when the window is full
    /// or the peer is down.
    pub fn offer(&mut self, dest: u16, vc: u8, payload: Vec<u8>) -> bool {
        if !self.can_accept(dest, vc)
            || payload.is_empty()
            || !payload.len().is_multiple_of(self.cfg.cmd_bytes)
        {
            return false;
        }
        let n = (payload.len() / self.cfg.cmd_bytes) as u64;
        let sp = self.space(dest, vc);
        let t = &mut self.tx[sp];
        t.cum += n;
        t.slots.push_back(Slot {
            payload,
            vc,
            cum: t.cum,
        });
        t.next = t.next.wrapping_add(1);
        true
    }

    pub fn peer_down(&self, dest: u16) -> bool {
        let k = self.per_peer();
        self.tx[dest as usize * k..(dest as usize + 1) * k]
            .iter()
            .any(|t| t.down)
    }

    /// PDUs stored and not acknowledged, over all destinations.
    pub fn unacked(&self) -> usize {
        self.tx.iter().map(|t| t.slots.len()).sum()
    }

    pub fn take_completions(&mut self) -> Vec<(u16, u64)> {
        std::mem::take(&mut self.completions)
    }

    fn ack_due(&self, s: usize) -> bool {
        let r = &self.rx[s];
        r.ack_pending
            && (r.ack_force
                || r.unacked >= self.cfg.ack_coalesce
                || r.ack_age >= self.cfg.ack_delay)
    }

    fn has_data(&self, d: usize, vc_pause: u8) -> bool {
        let t = &self.tx[d];
        if t.down || t.snd == t.next {
            return false;
        }
        let slot = &t.slots[dist(t.una, t.snd) as usize];
        (vc_pause >> slot.vc) & 1 == 0
    }

    /// The piggyback for peer `s` (and clear what it carries).
    fn piggyback(&mut self, s: usize) -> (Op, u16) {
        let r = &mut self.rx[s];
        if r.nack_pending {
            r.nack_pending = false;
            r.nack_age = 0;
            (Op::Nack, r.epsn)
        } else if r.ack_pending {
            r.ack_pending = false;
            r.ack_force = false;
            r.unacked = 0;
            r.ack_age = 0;
            (Op::Ack, r.epsn.wrapping_sub(1))
        } else {
            (Op::None, 0)
        }
    }

    /// The next PDU to send, if any: (destination, vc, bytes). Control due first (round robin),
    /// carried by a data PDU to that peer when one is ready, else data in round robin.
    pub fn poll(&mut self, vc_pause: u8) -> Option<(u16, u8, Vec<u8>)> {
        let n = self.tx.len();
        let ctl = (1..=n).map(|k| (self.rr_ctl + k) % n).find(|&s| {
            (self.rx[s].nack_pending || self.ack_due(s))
                && (self.has_data(s, vc_pause) || (vc_pause >> self.ctl_vc(s)) & 1 == 0)
        });
        let (peer, data) = if let Some(s) = ctl {
            self.rr_ctl = s;
            (s, self.has_data(s, vc_pause))
        } else if let Some(d) = (1..=n)
            .map(|k| (self.rr_data + k) % n)
            .find(|&d| self.has_data(d, vc_pause))
        {
            self.rr_data = d;
            (d, true)
        } else {
            return None;
        };
        let (op, rpsn) = self.piggyback(peer);
        let mut rh = Rh {
            ver: 0,
            op,
            xpuid: self.cfg.local_xpuid,
            psn: 0,
            vc: self.ctl_vc(peer),
            partition: self.cfg.partition,
            rpsn,
        };
        let dest = (peer / self.per_peer()) as u16;
        let t = &mut self.tx[peer];
        if !data {
            rh.psn = t.next;
            self.stats.ctrl += 1;
            return Some((dest, rh.vc, build_pdu(&rh, &[], self.cfg.rcrc)));
        }
        let p = t.snd;
        let slot = &t.slots[dist(t.una, p) as usize];
        rh.psn = p;
        rh.vc = slot.vc;
        let bytes = build_pdu(&rh, &slot.payload, self.cfg.rcrc);
        if t.una == t.hwm {
            t.timer = 0;
        }
        t.snd = p.wrapping_add(1);
        if p == t.hwm {
            t.hwm = p.wrapping_add(1);
            self.stats.pdu_new += 1;
        } else {
            self.stats.pdu_retx += 1;
        }
        Some((dest, rh.vc, bytes))
    }

    /// Free every PDU to `s` before `upto` (exclusive) and count completions.
    fn free_until(&mut self, s: usize, upto: u16) {
        let peer = (s / self.per_peer()) as u16;
        let t = &mut self.tx[s];
        let mut freed_cum = None;
        while t.una != upto {
            let slot = t.slots.pop_front().expect("held");
            freed_cum = Some(slot.cum);
            t.una = t.una.wrapping_add(1);
        }
        if let Some(cum) = freed_cum {
            self.completions.push((peer, cum - t.cmpl_acc));
            t.cmpl_acc = cum;
            t.timer = 0;
            t.retries = 0;
        }
        if dist(t.una, t.snd) > dist(t.una, t.hwm) {
            t.snd = t.una;
        }
    }

    /// A received PDU; returns the commands delivered in order: (source, vc, command bytes).
    pub fn receive(&mut self, bytes: &[u8]) -> Vec<(u16, u8, Vec<u8>)> {
        let Ok((rh, payload)) = parse_pdu(bytes, self.cfg.cmd_bytes, self.cfg.rcrc) else {
            self.stats.rx_crc_err += 1;
            return Vec::new();
        };
        if rh.op == Op::Reserved || rh.xpuid >= self.cfg.num_xpu || rh.vc >= self.cfg.num_vc {
            return Vec::new();
        }
        let src = rh.xpuid;
        let s = self.space(src, rh.vc);
        // ACK/NACK for our TX side towards s.
        let t = &self.tx[s];
        match rh.op {
            Op::Ack if dist(t.una, rh.rpsn) < dist(t.una, t.hwm) => {
                self.free_until(s, rh.rpsn.wrapping_add(1))
            }
            Op::Nack if dist(t.una, rh.rpsn) <= dist(t.una, t.hwm) => {
                self.free_until(s, rh.rpsn);
                let t = &mut self.tx[s];
                t.snd = rh.rpsn;
                t.timer = 0;
                t.retries = 0;
                self.stats.nack_rcvd += 1;
            }
            _ => {}
        }
        if payload.is_empty() {
            return Vec::new();
        }
        let r = &mut self.rx[s];
        let d = dist(r.epsn, rh.psn);
        if d == 0 {
            r.epsn = r.epsn.wrapping_add(1);
            r.nack_sent = false;
            r.ack_pending = true;
            r.unacked += 1;
            self.stats.rx_ok += 1;
            payload
                .chunks(self.cfg.cmd_bytes)
                .map(|c| (src, rh.vc, c.to_vec()))
                .collect()
        } else if d < 0x8000 {
            self.stats.rx_gap += 1;
            if !r.nack_sent {
                r.nack_pending = true;
                r.nack_sent = true;
                r.nack_age = 0;
            }
            Vec::new()
        } else {
            self.stats.rx_dup += 1;
            r.ack_pending = true;
            r.ack_force = true;
            Vec::new()
        }
    }

    /// One time step: retransmission timers, ACK delay, NACK re-arm.
    pub fn tick(&mut self) {
        for t in self.tx.iter_mut() {
            if t.una != t.hwm && !t.down {
                t.timer += 1;
                if t.timer >= self.cfg.rto {
                    t.snd = t.una;
                    t.timer = 0;
                    t.retries += 1;
                    self.stats.rto += 1;
                    if self.cfg.max_retries > 0 && t.retries > self.cfg.max_retries {
                        t.down = true;
                    }
                }
            }
        }
        for r in self.rx.iter_mut() {
            if r.ack_pending {
                r.ack_age += 1;
            }
            if r.nack_sent && !r.nack_pending {
                r.nack_age += 1;
                if r.nack_age >= self.cfg.nack_timeout {
                    r.nack_pending = true;
                    r.nack_age = 0;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::splitmix::SplitMix64;
    use std::collections::HashMap;

    fn cfg(local: u16, psn_init: u16) -> ProtocolConfig {
        ProtocolConfig {
            local_xpuid: local,
            num_xpu: 2,
            num_vc: 2,
            psn_scope: PsnScope::Dest,
            cmd_bytes: 16,
            window: 8,
            psn_init,
            rto: 400,
            max_retries: 0,
            ack_coalesce: 2,
            ack_delay: 20,
            nack_timeout: 100,
            ack_vc: 1,
            partition: 0,
            rcrc: Rcrc::Crc32,
        }
    }

    /// Two endpoints back to back through a lossy, corrupting, duplicating, delaying channel
    /// (duplicates arrive late; `jitter` > 0 also reorders PDUs, outside the seed's assumptions): every command arrives exactly once,
    /// in order per {source, vc}, bit-exact; completions add up to what was offered.
    fn link(
        drop: f64,
        corrupt: f64,
        dup: f64,
        jitter: usize,
        psn_init: u16,
        seed: u64,
    ) -> (ProtocolStats, ProtocolStats) {
        link_scoped(
            drop,
            corrupt,
            dup,
            jitter,
            0,
            PsnScope::Dest,
            psn_init,
            seed,
        )
    }

    /// `class_skew` > 0: a switch that schedules the two classes independently, VC 1 waiting
    /// up to that many extra steps, each class kept in order (PFC-style, no loss).
    #[allow(clippy::too_many_arguments)]
    fn link_scoped(
        drop: f64,
        corrupt: f64,
        dup: f64,
        jitter: usize,
        class_skew: usize,
        scope: PsnScope,
        psn_init: u16,
        seed: u64,
    ) -> (ProtocolStats, ProtocolStats) {
        let mut rng = SplitMix64::new(seed);
        let mk = |local| ProtocolConfig {
            psn_scope: scope,
            ..cfg(local, psn_init)
        };
        let mut ep = [Protocol::new(mk(0)), Protocol::new(mk(1))];
        // Last arrival step per (destination, class): classes stay FIFO.
        let mut class_tail = [[0u64; 2]; 2];
        // In flight: (arrival step, to, bytes).
        let mut wire: Vec<(u64, usize, Vec<u8>)> = Vec::new();
        let mut next_seq = [[0u32; 2]; 2]; // [src][vc]
        let mut expect = [[0u32; 2]; 2];
        let mut offered = [0u64; 2];
        let mut completed = [0u64; 2];
        let total = 1500u32;
        let mut step = 0u64;
        while step < 400_000 {
            for a in 0..2 {
                let dest = 1 - a;
                let sent: u32 = next_seq[a].iter().sum();
                let vc = rng.below(2);
                if sent < total && rng.chance(0.3) && ep[a].can_accept(dest as u16, vc as u8) {
                    let n = 1 + rng.below(3);
                    let mut payload = Vec::new();
                    for _ in 0..n {
                        let mut c = rng.bytes(16);
                        c[..4].copy_from_slice(&next_seq[a][vc].to_le_bytes());
                        next_seq[a][vc] += 1;
                        payload.extend(c);
                    }
                    assert!(ep[a].offer(dest as u16, vc as u8, payload));
                    offered[a] += n as u64;
                }
                if let Some((d, pvc, mut pdu)) = ep[a].poll(0) {
                    assert_eq!(d as usize, dest);
                    if rng.chance(drop) {
                        continue;
                    }
                    if rng.chance(corrupt) {
                        let i = rng.below(pdu.len());
                        pdu[i] ^= 1 << rng.below(8);
                    }
                    let mut delay = 5 + if jitter > 0 {
                        rng.below(jitter) as u64
                    } else {
                        0
                    };
                    if class_skew > 0 {
                        if pvc == 1 {
                            delay += rng.below(class_skew) as u64;
                        }
                        let tail = &mut class_tail[dest][pvc as usize & 1];
                        delay = delay.max(tail.saturating_sub(step));
                        *tail = step + delay;
                    }
                    if rng.chance(dup) {
                        wire.push((step + delay + 30, dest, pdu.clone()));
                    }
                    wire.push((step + delay, dest, pdu));
                }
            }
            wire.sort_by_key(|w| w.0);
            while wire.first().is_some_and(|w| w.0 <= step) {
                let (_, to, pdu) = wire.remove(0);
                for (src, vc, cmd) in ep[to].receive(&pdu) {
                    let seq = u32::from_le_bytes(cmd[..4].try_into().unwrap());
                    assert_eq!(
                        seq, expect[src as usize][vc as usize],
                        "in order, exactly once, src {src} vc {vc}"
                    );
                    expect[src as usize][vc as usize] += 1;
                }
            }
            for (a, e) in ep.iter_mut().enumerate() {
                e.tick();
                completed[a] += e.take_completions().iter().map(|c| c.1).sum::<u64>();
            }
            step += 1;
            let done = (0..2)
                .all(|a| next_seq[a].iter().sum::<u32>() == total && ep[a].unacked() == 0)
                && wire.is_empty();
            if done {
                break;
            }
        }
        for a in 0..2 {
            assert_eq!(expect[a], next_seq[a], "everything from {a} delivered");
            assert_eq!(
                completed[a], offered[a],
                "completions of {a} match the commands acknowledged"
            );
        }
        (ep[0].stats.clone(), ep[1].stats.clone())
    }

    #[test]
    fn clean_link_needs_no_retransmission() {
        let (a, b) = link(0.0, 0.0, 0.0, 0, 0, 1);
        assert_eq!(a.pdu_retx + b.pdu_retx + a.rto + b.rto, 0, "{a:?} {b:?}");
    }

    #[test]
    fn loss_corruption_and_duplicates_are_repaired_across_the_psn_wrap() {
        let (a, b) = link(0.02, 0.01, 0.02, 0, 0xFF00, 2);
        assert!(
            a.pdu_retx > 0
                && a.nack_rcvd + b.nack_rcvd > 0
                && a.rx_crc_err + b.rx_crc_err > 0
                && a.rx_dup + b.rx_dup > 0,
            "{a:?} {b:?}"
        );
    }

    #[test]
    fn heavy_loss_and_reordering_still_deliver() {
        let (a, b) = link(0.2, 0.05, 0.0, 10, 0, 3);
        assert!(a.rto + b.rto > 0, "{a:?} {b:?}");
    }

    /// Contract §1.19 / F5: with no loss, a switch reordering the two classes makes the seed's
    /// per-destination PSN look like loss (gaps, NACKs, go-back-N); one PSN space per
    /// {destination, VC} removes every needless retransmission.
    #[test]
    fn cross_vc_reordering_costs_retransmissions_only_with_a_shared_psn() {
        let (a, b) = link_scoped(0.0, 0.0, 0.0, 0, 40, PsnScope::Dest, 0, 4);
        let (c, d) = link_scoped(0.0, 0.0, 0.0, 0, 40, PsnScope::DestVc, 0, 4);
        println!(
            "psn_scope dest: {} retransmissions, {} gaps; dest_vc: {} retransmissions, {} gaps",
            a.pdu_retx + b.pdu_retx,
            a.rx_gap + b.rx_gap,
            c.pdu_retx + d.pdu_retx,
            c.rx_gap + d.rx_gap
        );
        assert!(
            a.pdu_retx + b.pdu_retx > 0 && a.rx_gap + b.rx_gap > 0,
            "{a:?} {b:?}"
        );
        assert_eq!(
            c.pdu_retx + d.pdu_retx + c.rx_gap + d.rx_gap + c.rto + d.rto,
            0,
            "{c:?} {d:?}"
        );
    }

    #[test]
    fn peer_down_after_max_retries() {
        let mut c = cfg(0, 0);
        c.max_retries = 2;
        c.rto = 10;
        let mut a = Protocol::new(c);
        assert!(a.offer(1, 0, vec![0; 16]));
        let mut map: HashMap<u16, u32> = HashMap::new();
        for _ in 0..100 {
            if let Some((d, _, _)) = a.poll(0) {
                *map.entry(d).or_default() += 1; // everything is lost
            }
            a.tick();
        }
        assert!(a.peer_down(1) && !a.can_accept(1, 0));
        assert_eq!(
            map[&1], 3,
            "first transmission + max_retries retransmissions"
        );
    }
}
