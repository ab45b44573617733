//! Temporal channel bonding (§5.A, Fig. 5): the user streams on `user_clk`, T = `user_clk_ratio`
//! times `clk` from the same source, `user_bits` per beat, against the node's streams on `clk`
//! of T × `user_bits` per beat (the spatial path: the gearboxes and the lanes). The machines the
//! RTL implements, edge by edge.
//!
//! Both directions learn the phase of `clk` as the TX GT width converter does ([`super::gtwidth`]):
//! the `clk` side flips `slow_toggle` at each of its edges; the fast side sees it changed one
//! `user_clk` edge after the `clk` edge (`load`, a one-fast-cycle path), sets its phase counter
//! to 1 there, and the edge where the count is T − 1 without `load` is the next edge the two
//! clocks share (`shared`). No handover happens before the first `load` (`locked`). The fast
//! side samples `clk`-side signals only at shared edges, and the registers the `clk` side reads
//! change only at shared edges: every path between the clocks but the toggle's is a whole `clk`
//! cycle (T `user_clk` cycles), the multicycle paths the constraint files declare.
//!
//! * [`BondTx`] (user beats → `clk` beats): an accumulator collects up to T beats of a packet
//!   (beat k at bits [(k+1)W−1:kW]); a group is complete at its T-th beat or at `tlast`. A
//!   complete group moves at the next edge into `wait`, and from `wait` into `out` (what `clk`
//!   reads) at a shared edge where `out` is free (empty, or taken by `clk` at that edge). The
//!   accumulator takes beats while it is not complete or `wait` is empty (registered state only),
//!   so at full rate within a packet no beat waits, whatever the packet's phase.
//! * [`BondRx`] (`clk` beats → user beats): a `clk` beat taken at a shared edge is a group of up
//!   to T user beats (`cur`, the one being sent, and `next`); `cur` shifts down one beat per
//!   user transfer, and its beat is the group's last when the next beat's first keep bit is
//!   clear. `clk` sees `in_ready` = `ready`, set at each shared edge to whether at most one group
//!   is held: at full rate a group arrives at the edge the previous one's last beat leaves.
//!
//! An edge of both clocks at once is `fast_edge` (with the values before the edge) followed by
//! `clk_edge`.

use crate::bits::Bits;

/// The fast side's knowledge of `clk`'s phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseLearner {
    t: usize,
    /// `clk` side: flips at every `clk` edge.
    pub slow_toggle: bool,
    seen: bool,
    /// Fast cycles since the last shared edge (mod T).
    pub phase: usize,
    /// A `clk` edge has been seen since reset.
    pub locked: bool,
}

impl PhaseLearner {
    pub fn new(t: usize) -> PhaseLearner {
        assert!(t >= 2 && t.is_power_of_two(), "user_clk_ratio is 2 or 4");
        PhaseLearner { t, slow_toggle: false, seen: false, phase: 0, locked: false }
    }

    /// Whether the coming fast edge is also a `clk` edge (by the registers before it).
    pub fn shared(&self) -> bool {
        self.locked && self.phase == self.t - 1 && self.seen == self.slow_toggle
    }

    /// The fast edge's update of the phase registers.
    pub fn fast_edge(&mut self) {
        let load = self.seen != self.slow_toggle;
        self.phase = if load {
            1
        } else if self.phase == self.t - 1 {
            0
        } else {
            self.phase + 1
        };
        self.locked |= load;
        self.seen = self.slow_toggle;
    }

    pub fn clk_edge(&mut self) {
        self.slow_toggle = !self.slow_toggle;
    }
}

/// One beat of a stream: data, keep (one bit per byte), last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beat {
    pub data: Bits,
    pub keep: Bits,
    pub last: bool,
}

impl Beat {
    pub fn empty(bits: usize) -> Beat {
        Beat { data: Bits::zeros(bits), keep: Bits::zeros(bits / 8), last: false }
    }
}

/// User beats on `user_clk` into `clk` beats of T times their width.
#[derive(Debug, Clone)]
pub struct BondTx {
    t: usize,
    w: usize,
    pub phase: PhaseLearner,
    /// The group being collected: its beats, their keeps, how many, complete, ends the packet.
    acc: Beat,
    acc_count: usize,
    acc_done: bool,
    /// A complete group waiting for a shared edge.
    wait: Option<Beat>,
    /// What `clk` reads: `out_valid`, `out_data`, `out_keep`, `out_last`.
    pub out: Option<Beat>,
}

impl BondTx {
    /// After reset: `user_bits` W, ratio T.
    pub fn new(user_bits: u32, t: u32) -> BondTx {
        let (w, t) = (user_bits as usize, t as usize);
        BondTx { t, w, phase: PhaseLearner::new(t), acc: Beat::empty(t * w), acc_count: 0, acc_done: false, wait: None, out: None }
    }

    /// `s_axis_tready` (registered state only).
    pub fn in_ready(&self) -> bool {
        !self.acc_done || self.wait.is_none()
    }

    /// The beat `clk` sees this cycle, or an empty one when `out_valid` is low.
    pub fn out_beat(&self) -> Beat {
        self.out.clone().unwrap_or_else(|| Beat::empty(self.t * self.w))
    }

    /// A rising edge of `user_clk`: `beat` offered on `s_axis` (None: `tvalid` low) and
    /// `out_ready` from the `clk` side, all as before the edge.
    pub fn fast_edge(&mut self, beat: Option<&Beat>, out_ready: bool) {
        let out_free = self.phase.shared() && (self.out.is_none() || out_ready);
        let wait_free = self.wait.is_none() || out_free;
        let acc_move = self.acc_done && wait_free;
        let take = beat.is_some() && self.in_ready();
        if out_free {
            self.out = self.wait.take();
        }
        if acc_move {
            self.wait = Some(self.acc.clone());
        }
        if acc_move {
            self.acc_count = 0;
            self.acc_done = false;
        }
        if let (true, Some(b)) = (take, beat) {
            let (k, w) = (self.acc_count, self.w);
            self.acc.data.set_slice(k * w, &b.data);
            if k == 0 {
                self.acc.keep = Bits::zeros(self.t * w / 8);
            }
            self.acc.keep.set_slice(k * w / 8, &b.keep);
            self.acc.last = b.last;
            self.acc_count = k + 1;
            self.acc_done = b.last || k + 1 == self.t;
        }
        self.phase.fast_edge();
    }

    pub fn clk_edge(&mut self) {
        self.phase.clk_edge();
    }
}

/// `clk` beats of T user beats out as user beats on `user_clk`.
#[derive(Debug, Clone)]
pub struct BondRx {
    w: usize,
    pub phase: PhaseLearner,
    /// The group being sent, shifted down one beat per transfer.
    cur: Option<Beat>,
    /// The group after it.
    next: Option<Beat>,
    /// `in_ready` to the `clk` side, set at shared edges.
    pub ready: bool,
}

impl BondRx {
    pub fn new(user_bits: u32, t: u32) -> BondRx {
        BondRx { w: user_bits as usize, phase: PhaseLearner::new(t as usize), cur: None, next: None, ready: false }
    }

    /// `m_axis`: the beat presented (None: `tvalid` low).
    pub fn out(&self) -> Option<Beat> {
        let c = self.cur.as_ref()?;
        let w = self.w;
        let end = !c.keep.get(w / 8);
        Some(Beat { data: c.data.slice(0, w), keep: c.keep.slice(0, w / 8), last: c.last && end })
    }

    /// A rising edge of `user_clk`: `group` offered by the `clk` side (None: `in_valid` low) and
    /// `m_axis_tready`, as before the edge.
    pub fn fast_edge(&mut self, group: Option<&Beat>, out_ready: bool) {
        let shared = self.phase.shared();
        let take = shared && self.ready && group.is_some();
        let w = self.w;
        let sent = self.cur.is_some() && out_ready;
        let cur_end = sent && !self.cur.as_ref().is_some_and(|c| c.keep.get(w / 8));
        let cur_free = self.cur.is_none() || cur_end;
        let incoming = if take { group.cloned() } else { None };
        if cur_free {
            if self.next.is_some() {
                self.cur = self.next.take();
                self.next = incoming;
            } else {
                self.cur = incoming;
            }
        } else {
            if sent {
                let c = self.cur.as_mut().expect("cur holds a group");
                let (dw, kw) = (c.data.width(), c.keep.width());
                c.data = c.data.slice(w, dw - w).concat(&Bits::zeros(w));
                c.keep = c.keep.slice(w / 8, kw - w / 8).concat(&Bits::zeros(w / 8));
            }
            if incoming.is_some() {
                self.next = incoming;
            }
        }
        if shared {
            self.ready = !(self.cur.is_some() && self.next.is_some());
        }
        self.phase.fast_edge();
    }

    pub fn clk_edge(&mut self) {
        self.phase.clk_edge();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Random packets of `n` beats each (keep contiguous, all ones but on the last beat).
    /// With `group` the beat counts are multiples of it.
    fn packets(w: usize, count: usize, group: Option<usize>, rng: &mut rand::rngs::StdRng) -> Vec<Vec<Beat>> {
        (0..count)
            .map(|_| {
                let n = match group {
                    Some(t) => t * rng.random_range(1..=3),
                    None => rng.random_range(1..=9),
                };
                (0..n)
                    .map(|k| {
                        let last = k + 1 == n;
                        let kept = if last { rng.random_range(1..=w / 8) } else { w / 8 };
                        let mut keep = Bits::zeros(w / 8);
                        for i in 0..kept {
                            keep.set(i, true);
                        }
                        Beat { data: Bits::random(w, rng), keep, last }
                    })
                    .collect()
            })
            .collect()
    }

    /// The kept bytes of a stream of beats, cut into packets.
    fn bytes_of(beats: &[Beat]) -> Vec<Vec<u8>> {
        let mut out = vec![Vec::new()];
        for b in beats {
            for i in 0..b.keep.width() {
                if b.keep.get(i) {
                    out.last_mut().expect("a packet").push(b.data.byte(i));
                }
            }
            if b.last {
                out.push(Vec::new());
            }
        }
        out.pop();
        out
    }

    /// TX then RX back to back over `clk` (the clk side a wire with random backpressure):
    /// every packet out as it went in; at full rate in both directions, with packets of whole
    /// groups, no user beat waits on either side once the first clk edges have passed (no
    /// handover before the phase is known), whatever the phase.
    #[test]
    fn packets_pass_both_stages_exactly_and_full_rate_has_no_bubble() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(38);
        for (w, t) in [(64usize, 2usize), (32, 4), (256, 2), (8, 4)] {
            for full_rate in [true, false] {
                for start in 0..t {
                    let pk = packets(w, 60, full_rate.then_some(t), &mut rng);
                    let sent: Vec<Beat> = pk.iter().flatten().cloned().collect();
                    let (mut tx, mut rx) = (BondTx::new(w as u32, t as u32), BondRx::new(w as u32, t as u32));
                    let (mut next, mut got, mut stalls_in, mut stalls_out) = (0usize, Vec::new(), 0usize, 0usize);
                    let mut edge = 0usize;
                    while got.len() < sent.len() && edge < 100_000 {
                        let is_shared = edge % t == (start % t);
                        // The clk side is a wire: the RX stage takes what TX offers.
                        let valid_in = full_rate || rng.random_bool(0.7);
                        let ready_out = full_rate || rng.random_bool(0.7);
                        let clk_ready = full_rate || rng.random_bool(0.8);
                        let beat = (valid_in && next < sent.len()).then(|| sent[next].clone());
                        let taken = beat.is_some() && tx.in_ready();
                        let o = rx.out();
                        if let Some(o) = &o {
                            if ready_out {
                                got.push(o.clone());
                            }
                        }
                        if full_rate && edge >= 4 * t && next < sent.len() && !taken {
                            stalls_in += 1;
                        }
                        if full_rate && !got.is_empty() && o.is_none() {
                            stalls_out += 1;
                        }
                        let group = tx.out.clone();
                        tx.fast_edge(beat.as_ref(), rx.ready && clk_ready);
                        rx.fast_edge(if clk_ready { group.as_ref() } else { None }, ready_out);
                        if is_shared {
                            tx.clk_edge();
                            rx.clk_edge();
                        }
                        next += usize::from(taken);
                        edge += 1;
                    }
                    assert_eq!(bytes_of(&got), bytes_of(&sent), "W={w} T={t} full={full_rate} start={start}");
                    assert_eq!(got.len(), sent.len());
                    if full_rate {
                        assert_eq!((stalls_in, stalls_out), (0, 0), "W={w} T={t} start={start}: bubbles at full rate (in, out)");
                    }
                }
            }
        }
    }
}
