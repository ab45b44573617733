//! What the SUE co-simulation links (transports or endpoints back to back, [`super::sue_transport`]
//! and [`super::sue_endpoint`]) share: the lossy PDU channel between XPUs, an arrived PDU handed
//! to a receiver beat by beat, and the command scoreboard that checks every command arrives
//! exactly once, in order per {source, destination, VC}, bit-exact.

use super::Tally;
use crate::TestRng;
use rtl_gen::blocks::protocol::sue::wire::beats;
use std::collections::VecDeque;

/// Channel faults and the wire latency.
#[derive(Debug, Clone)]
pub struct LinkFaults {
    /// Per PDU: dropped.
    pub drop: f64,
    /// Per PDU: one bit flipped (caught only by the R-CRC).
    pub corrupt: f64,
    /// Per PDU: delivered with the frame-error flag (a bad Ethernet FCS).
    pub frame_err: f64,
    /// Cycles on the wire.
    pub latency: u64,
}

impl Default for LinkFaults {
    /// A clean wire of 16 cycles.
    fn default() -> Self {
        LinkFaults { drop: 0.0, corrupt: 0.0, frame_err: 0.0, latency: 16 }
    }
}

/// One queue of PDUs in flight per receiving XPU, with the faults applied as they are sent.
#[derive(Debug)]
pub struct PduChannel {
    /// Per receiver: (arrival cycle, PDU bytes, frame error) in order.
    queues: Vec<VecDeque<(u64, Vec<u8>, bool)>>,
    pub faults: LinkFaults,
    /// PDUs put on the wire, dropped ones included.
    pub sent: u64,
    pub dropped: u64,
    pub corrupted: u64,
}

impl PduChannel {
    pub fn new(receivers: usize, faults: LinkFaults) -> PduChannel {
        PduChannel {
            queues: vec![VecDeque::new(); receivers],
            faults,
            sent: 0,
            dropped: 0,
            corrupted: 0,
        }
    }

    /// Send `pdu` to XPU `to` in cycle `cyc`: dropped, one bit flipped, or flagged with a frame
    /// error as the faults draw. A PDU to an XPU outside the link is lost.
    pub fn send(&mut self, rng: &mut TestRng, cyc: u64, to: usize, mut pdu: Vec<u8>) {
        self.sent += 1;
        if rng.chance(self.faults.drop) {
            self.dropped += 1;
            return;
        }
        if rng.chance(self.faults.corrupt) {
            let at = rng.range(0, pdu.len() as u64 - 1) as usize;
            pdu[at] ^= 1 << rng.range(0, 7);
            self.corrupted += 1;
        }
        let frame_err = rng.chance(self.faults.frame_err);
        if let Some(q) = self.queues.get_mut(to) {
            q.push_back((cyc + self.faults.latency, pdu, frame_err));
        }
    }

    /// Nothing in flight.
    pub fn is_empty(&self) -> bool {
        self.queues.iter().all(|q| q.is_empty())
    }

    /// The next PDU for XPU `k` if it has arrived by cycle `cyc`, cut into beats of `db` bytes.
    pub fn arrive(&mut self, k: usize, cyc: u64, db: usize) -> Option<RxPdu> {
        let q = &mut self.queues[k];
        if q.front().is_none_or(|w| w.0 > cyc) {
            return None;
        }
        let (_, bytes, frame_err) = q.pop_front().expect("front");
        let bs = beats(&bytes, db);
        Some(RxPdu {
            data: bs.iter().map(|b| b.data.clone()).collect(),
            keep: bs.iter().map(|b| b.keep).collect(),
            at: 0,
            frame_err,
        })
    }
}

/// An arrived PDU being handed to a receiver's s_axis_rx, one beat per handshake.
#[derive(Debug)]
pub struct RxPdu {
    data: Vec<Vec<u8>>,
    keep: Vec<u128>,
    at: usize,
    frame_err: bool,
}

/// The beat on offer: tdata, tkeep, tlast and tuser (the frame error, on the last beat).
pub struct RxBeat<'a> {
    pub data: &'a [u8],
    pub keep: u128,
    pub last: bool,
    pub user: bool,
}

impl RxPdu {
    pub fn beat(&self) -> RxBeat<'_> {
        let last = self.at + 1 == self.data.len();
        RxBeat {
            data: &self.data[self.at],
            keep: self.keep[self.at],
            last,
            user: self.frame_err && last,
        }
    }

    /// The beat was taken; true when it was the last.
    pub fn taken(&mut self) -> bool {
        self.at += 1;
        self.at == self.data.len()
    }
}

/// Commands sent and not yet delivered, per {src, dst, VC}, and the numbering that makes a
/// loss, a duplicate or a reorder show as a mismatch.
#[derive(Debug)]
pub struct CmdScoreboard {
    expect: Vec<Vec<Vec<VecDeque<Vec<u8>>>>>,
    next_seq: Vec<Vec<Vec<u32>>>,
    /// Commands handed to the sender per [src][dst].
    pub accepted: Vec<Vec<u64>>,
    pub delivered: u64,
}

impl CmdScoreboard {
    pub fn new(xpus: usize, vcs: usize) -> CmdScoreboard {
        CmdScoreboard {
            expect: vec![vec![vec![VecDeque::new(); vcs]; xpus]; xpus],
            next_seq: vec![vec![vec![0; vcs]; xpus]; xpus],
            accepted: vec![vec![0; xpus]; xpus],
            delivered: 0,
        }
    }

    /// A random command of `bytes` from `src` to `dst` on `vc`, carrying its route in bytes
    /// 0..3 and its number in the {src, dst, vc} stream in bytes 4..8.
    pub fn make(&mut self, rng: &mut TestRng, bytes: usize, src: usize, dst: usize, vc: usize) -> Vec<u8> {
        let mut cmd = rng.bytes(bytes);
        cmd[0] = src as u8;
        cmd[1] = dst as u8;
        cmd[2] = vc as u8;
        cmd[4..8].copy_from_slice(&self.next_seq[src][dst][vc].to_le_bytes());
        self.next_seq[src][dst][vc] += 1;
        cmd
    }

    /// The sender took `cmd`: it must now arrive at `dst` exactly once, after the ones before.
    pub fn accepted(&mut self, src: usize, dst: usize, vc: usize, cmd: Vec<u8>) {
        self.accepted[src][dst] += 1;
        self.expect[src][dst][vc].push_back(cmd);
    }

    /// Commands accepted and not yet delivered, over all streams.
    pub fn outstanding(&self) -> usize {
        self.expect.iter().flatten().flatten().map(|q| q.len()).sum()
    }

    /// XPU `dst` delivered `cmd` as coming from `src` on `vc` in cycle `cyc`.
    pub fn delivered(&mut self, t: &mut Tally, cyc: u64, dst: usize, src: usize, vc: usize, cmd: &[u8]) {
        let want = self
            .expect
            .get_mut(src)
            .and_then(|e| e[dst].get_mut(vc))
            .and_then(|q| q.pop_front());
        t.compare(
            cyc,
            "scoreboard: command exactly once, in order per {src, dst, vc}, bit-exact",
            want.as_deref(),
            Some(cmd),
        );
        self.delivered += 1;
    }
}
