//! A whole RIFL node, cycle by cycle: the top `<prefix><name>` with its TX gearbox, channel
//! bonding, `lanes` × (TX lane, RX lane, flow-control buffer), RX group assembly, RX gearbox
//! and status counters, wired exactly as the RTL.
//!
//! Channel bonding (§4.F): the TX gearbox cuts the user stream into groups of `lanes` payloads
//! (G = lanes·S bytes) that never span two packets; payload j goes out on lane j, all of a
//! group's payloads in one frame slot unless a lane stalls (see the skid buffers below). A
//! packet's last group may leave its upper lanes empty: they send filler frames, which the
//! receivers do not buffer. At the receiver each lane's flow-control buffer absorbs
//! the skew; a group is complete when lanes 0..j all have a head and lane j's is the end of a
//! packet (or j is the last lane); it is popped from those lanes only, and the next packet
//! starts again at lane 0.
//!
//! Two skid buffers ([`crate::hw::skid`]) decouple the glue: the segmented group waits in one
//! between the TX gearbox and the lanes (the gearbox sees its registered ready, the lanes take a
//! registered group), the assembled group in the other between the flow-control buffers and the
//! RX gearbox (the buffers pop on its registered ready). Each adds one cycle and keeps one group
//! per cycle.
//!
//! With more than one lane each lane has two skid buffers more, so no register sees an AND over
//! the lanes' combinational state: the TX skid buffer hands a group to the lanes' own skid
//! buffers when each has room (their registered readies), and each lane takes its segment from
//! its own buffer in its own next slot that carries user data; on the receive side each lane's
//! head passes through its own skid buffer (the flow-control buffer pops on that buffer's
//! registered ready) and the group is assembled from those registered heads. When no lane
//! stalls the lanes still send a group's segments in one slot; a lane that stalls (recovery,
//! flow control) lets the others run up to two groups ahead, which the receivers' flow-control
//! buffers absorb like any skew. Each adds one cycle (TX and RX) and keeps one group per cycle.

use crate::bits::Bits;
use super::codec::{Codec, META_BODY, META_EOP_FULL, META_EOP_PARTIAL, META_INVALID};
use super::fifo::Fifo;
use super::gearbox::Gearbox;
use super::params::Params;
use super::rx::RxLane;
use super::tx::{TxComb, TxIn, TxLane, TxState};
use crate::hw::skid::SkidModel;

/// The top's inputs in one cycle.
#[derive(Debug, Clone)]
pub struct NodeIn<'a> {
    pub s_valid: bool,
    /// `user_bits/8` bytes, byte i = tdata[8i+7:8i].
    pub s_data: &'a [u8],
    /// tkeep as a count of bytes kept from byte 0.
    pub s_count: usize,
    pub s_last: bool,
    pub m_ready: bool,
    pub tx_ready: bool,
    pub rx_valid: &'a [bool],
    pub rx_frame: &'a [Bits],
}

/// The top's outputs in one cycle (before the edge, given that cycle's inputs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeOut {
    pub s_ready: bool,
    pub m_valid: bool,
    pub m_data: Vec<u8>,
    pub m_count: usize,
    pub m_last: bool,
    pub tx_frame: Vec<Bits>,
    pub link_up: bool,
    pub frame_errors: u32,
    pub retransmissions: u32,
    pub pause_events: u32,
}

/// A group presented to the RX gearbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub data: Vec<u8>,
    pub count: usize,
    pub last: bool,
    /// Lanes 0..=last_lane are popped.
    pub last_lane: usize,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub p: Params,
    codec: Codec,
    pub txg: Gearbox,
    pub rxg: Gearbox,
    pub tx: Vec<TxLane>,
    pub rx: Vec<RxLane>,
    pub fifo: Vec<Fifo>,
    /// The segmented group on its way from the TX gearbox to the lanes.
    pub txs: SkidModel<Vec<Bits>>,
    /// The assembled group on its way from the flow-control buffers to the RX gearbox.
    pub rxs: SkidModel<Group>,
    /// With more than one lane: lane j's segment on its way from the TX skid buffer to the lane.
    pub lane_txs: Vec<SkidModel<Bits>>,
    /// With more than one lane: lane j's head on its way from its flow-control buffer to the
    /// group assembly.
    pub lane_rxs: Vec<SkidModel<Bits>>,
    pub link_up: bool,
    pub frame_errors: u32,
    pub retransmissions: u32,
    pub pause_events: u32,
    /// The lanes' events of the last cycle (error pulses, retransmissions, pauses), which the
    /// status counters add at this edge: the RTL registers the events before counting them.
    events: [u32; 3],
}

impl Node {
    pub fn new(p: Params) -> Self {
        let l = p.lanes();
        Node {
            txg: Gearbox::new(p.user_bytes(), p.group_bytes(), false),
            rxg: Gearbox::new(p.group_bytes(), p.user_bytes(), true),
            tx: (0..l).map(|_| TxLane::new(p)).collect(),
            rx: (0..l).map(|_| RxLane::new(p)).collect(),
            fifo: (0..l).map(|_| Fifo::new(&p)).collect(),
            txs: SkidModel::new(),
            rxs: SkidModel::new(),
            lane_txs: if l > 1 { vec![SkidModel::new(); l] } else { Vec::new() },
            lane_rxs: if l > 1 { vec![SkidModel::new(); l] } else { Vec::new() },
            link_up: false,
            frame_errors: 0,
            retransmissions: 0,
            pause_events: 0,
            events: [0; 3],
            codec: Codec::new(p),
            p,
        }
    }

    /// The TX gearbox's group (the TX skid buffer's input) cut into one raw region per lane (meta
    /// per Table 1, format code in the last byte of a partial end-of-packet payload, empty lanes
    /// as fillers).
    pub fn segments(&self) -> Vec<Bits> {
        let s = self.p.payload_bytes();
        let out = self.txg.out();
        (0..self.p.lanes())
            .map(|j| {
                let c = out.count.saturating_sub(j * s).min(s);
                let ends_here = out.last && out.count <= (j + 1) * s;
                let meta = match (c, ends_here) {
                    (0, _) => META_INVALID,
                    (_, false) => META_BODY,
                    (c, true) if c == s => META_EOP_FULL,
                    _ => META_EOP_PARTIAL,
                };
                let mut raw = self.codec.data_raw(meta, &out.data[j * s..(j + 1) * s]);
                if meta == META_EOP_PARTIAL {
                    raw.set_field(2 + 8 * (s - 1), 8, c as u64);
                }
                raw
            })
            .collect()
    }

    /// Lane j's head as the group assembly sees it: the flow-control buffer's head (one lane)
    /// or lane j's RX skid buffer's registered head (more lanes).
    fn head(&self, j: usize) -> Option<&Bits> {
        if self.lane_rxs.is_empty() {
            let f = &self.fifo[j];
            f.head_valid.then_some(&f.head)
        } else {
            self.lane_rxs[j].out.as_ref()
        }
    }

    /// The group the heads form (see [`Node::head`]), if complete.
    pub fn group(&self) -> Option<Group> {
        let s = self.p.payload_bytes();
        let l = self.p.lanes();
        let mut data = vec![0u8; self.p.group_bytes()];
        for j in 0..l {
            let head = self.head(j)?;
            for (k, d) in data[j * s..(j + 1) * s].iter_mut().enumerate() {
                *d = self.codec.payload_byte(head, k);
            }
            let meta = head.field(0, 2) as u8;
            if meta == META_EOP_PARTIAL || meta == META_EOP_FULL || j + 1 == l {
                let count = j * s + self.codec.valid_bytes(head);
                // Bytes after the valid ones are not part of the group (the gearbox masks them).
                for d in data[count..].iter_mut() {
                    *d = 0;
                }
                return Some(Group { data, count, last: meta >= META_EOP_PARTIAL, last_lane: j });
            }
        }
        None
    }

    fn tx_in<'a>(&self, j: usize, tx_ready: bool, seg_take: bool, seg: &'a Bits) -> TxIn<'a> {
        let rx = &self.rx[j];
        TxIn {
            en: tx_ready,
            out_of_sync: rx.out_of_sync,
            pause_req: rx.pause_req,
            retrans_req: rx.retrans_req,
            frame_error: rx.frame_error,
            remote_fc: rx.remote_fc,
            fc_high: self.fifo[j].high(),
            fc_low: self.fifo[j].low(),
            seg_take,
            seg_raw: seg,
        }
    }

    /// The segments the lanes are offered: the TX skid buffer's registered group (one lane) or
    /// each lane's skid buffer's registered segment (more lanes); zeros where there is none (no
    /// lane takes them then).
    fn offered(&self) -> Vec<Bits> {
        let zero = || Bits::zeros(self.p.raw_bits());
        if self.lane_txs.is_empty() {
            match &self.txs.out {
                Some(segs) => segs.clone(),
                None => vec![zero(); self.p.lanes()],
            }
        } else {
            self.lane_txs.iter().map(|b| b.out.clone().unwrap_or_else(zero)).collect()
        }
    }

    /// Whether lane j has a segment offered (see [`Node::offered`]).
    fn has_segment(&self, j: usize) -> bool {
        if self.lane_txs.is_empty() {
            self.txs.out.is_some()
        } else {
            self.lane_txs[j].out.is_some()
        }
    }

    fn lane_combs(&self, tx_ready: bool, segs: &[Bits]) -> Vec<TxComb> {
        (0..self.p.lanes()).map(|j| self.tx[j].comb(&self.tx_in(j, tx_ready, false, &segs[j]))).collect()
    }

    /// The outputs in this cycle: registers, except `s_axis_tready`, which looks at the TX
    /// gearbox's output transfer into the TX skid buffer (whose ready is a register; `tx_ready`
    /// no longer reaches it).
    pub fn outputs(&self) -> NodeOut {
        let m = self.rxg.out();
        NodeOut {
            s_ready: self.txg.in_ready(self.txs.in_ready()),
            m_valid: m.valid,
            m_data: m.data.to_vec(),
            m_count: m.count,
            m_last: m.last,
            tx_frame: self.tx.iter().map(|t| t.frame.clone()).collect(),
            link_up: self.link_up,
            frame_errors: self.frame_errors,
            retransmissions: self.retransmissions,
            pause_events: self.pause_events,
        }
    }

    /// The TX states (combinational) with the transceivers ready, the lanes offered the TX skid
    /// buffer's group.
    pub fn tx_states(&self) -> Vec<TxState> {
        self.lane_combs(true, &self.offered()).iter().map(|c| c.state).collect()
    }

    pub fn tick(&mut self, i: &NodeIn) {
        let l = self.p.lanes();
        let segs = self.offered();
        let combs = self.lane_combs(i.tx_ready, &segs);
        let per_lane = !self.lane_txs.is_empty();
        // Lane j takes user data in this slot.
        let lane_take: Vec<bool> = combs.iter().map(|c| i.tx_ready && c.seg_ready).collect();
        // One lane: it takes the TX skid buffer's group. More lanes: the lanes' skid buffers take
        // it together when each has room (registered), and each lane takes its own segment.
        let txs_take = if per_lane { self.lane_txs.iter().all(|b| b.in_ready()) } else { lane_take[0] };
        // The lane's seg_take: the terms of its seg_ready the lane checks itself (Normal, no
        // flow-control frame due) are left out, as in the RTL.
        let go: Vec<bool> = (0..l).map(|j| i.tx_ready && !self.rx[j].remote_fc && self.has_segment(j)).collect();
        let txs_ready = self.txs.in_ready();
        let new_segs = self.txg.out().valid.then(|| self.segments());
        let handed = if per_lane && txs_take { self.txs.out.clone() } else { None };
        let group = self.group();
        let take_group = group.is_some() && self.rxs.in_ready();
        let rxg_ready = self.rxg.in_ready(i.m_ready);
        let rx_group = self.rxs.out.clone();
        let pushes: Vec<(bool, Bits)> = self.rx.iter().map(|r| (r.out_valid, r.out_raw.clone())).collect();
        let err_pulses = self.rx.iter().filter(|r| r.err_pulse).count() as u32;
        let tx_ins: Vec<TxIn> = (0..l).map(|j| self.tx_in(j, i.tx_ready, go[j], &segs[j])).collect();
        // The group assembly's lanes: lane j pops when it is in the group taken at this edge.
        let grp_pop: Vec<bool> = (0..l).map(|j| take_group && group.as_ref().is_some_and(|g| j <= g.last_lane)).collect();
        // Registers.
        self.txg.tick(i.s_valid, i.s_data, i.s_count, i.s_last, txs_ready);
        self.txs.tick(new_segs.as_ref(), txs_take);
        for (j, b) in self.lane_txs.iter_mut().enumerate() {
            b.tick(handed.as_ref().map(|g| &g[j]), lane_take[j]);
        }
        for (t, ti) in self.tx.iter_mut().zip(&tx_ins) {
            t.tick(ti);
        }
        for (j, r) in self.rx.iter_mut().enumerate() {
            r.tick(i.rx_valid[j], &i.rx_frame[j]);
        }
        for (j, (f, (push, din))) in self.fifo.iter_mut().zip(&pushes).enumerate() {
            // More lanes: the flow-control buffer pops into its lane's skid buffer when that has
            // room (registered).
            let pop = if per_lane { self.lane_rxs[j].in_ready() } else { grp_pop[j] };
            if per_lane {
                self.lane_rxs[j].tick(f.head_valid.then_some(&f.head), grp_pop[j]);
            }
            f.tick(*push, din, pop);
        }
        self.rxs.tick(group.as_ref(), rxg_ready);
        match &rx_group {
            Some(g) => self.rxg.tick(true, &g.data, g.count, g.last, i.m_ready),
            None => self.rxg.tick(false, &[], 0, false, i.m_ready),
        }
        let [errors, retrans, pauses] = self.events;
        self.frame_errors = self.frame_errors.saturating_add(errors);
        self.retransmissions = self.retransmissions.saturating_add(retrans);
        self.pause_events = self.pause_events.saturating_add(pauses);
        self.events = [err_pulses, combs.iter().filter(|c| c.retrans_start).count() as u32, combs.iter().filter(|c| c.pause_event).count() as u32];
        self.link_up = combs.iter().all(|c| c.state.transferring());
    }
}
