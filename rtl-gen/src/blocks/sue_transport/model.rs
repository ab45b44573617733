//! Cycle-accurate reference model of `sue_transport`: every register of the RTL, the same
//! decision rules (contract §4.5 with the protocol rules of [`crate::blocks::protocol::sue::transport`]) and
//! the same same-edge precedence, evaluated on the state before the clock edge. The R-CRC
//! functions here ([`crc_step`], [`crc_last8`]) are the ones the RTL's XOR networks are derived
//! from.

use super::SueTransportBlock;
use crate::blocks::crc::model::CrcModel;
use crate::blocks::protocol::sue::transport::PsnScope;
use crate::blocks::protocol::sue::wire::dist;

/// The CRC register (32 bits, not reflected, not inverted) after feeding `bytes`.
pub fn crc_step(m: &CrcModel, reg: u32, bytes: &[u8]) -> u32 {
    (m.update(u64::from(reg) << 32, bytes) >> 32) as u32
}

/// The R-CRC after feeding the last eight bytes `bytes` into `reg`.
pub fn crc_last8(m: &CrcModel, reg: u32, bytes: &[u8]) -> u32 {
    m.finish(m.update(u64::from(reg) << 32, bytes)) as u32
}

/// The register before the first byte.
pub fn crc_init(m: &CrcModel) -> u32 {
    (m.start() >> 32) as u32
}

/// The inputs of one cycle.
#[derive(Debug, Clone, Default)]
pub struct TpInputs {
    pub pdu_valid: bool,
    pub pdu_data: Vec<u8>,
    pub pdu_last: bool,
    pub pdu_dest: u32,
    /// {ncmds[9:0], vc[1:0]}.
    pub pdu_user: u32,
    pub tx_ready: bool,
    pub tx_vc_pause: u32,
    pub rx_valid: bool,
    pub rx_data: Vec<u8>,
    /// Bit i: byte i valid.
    pub rx_keep: u128,
    pub rx_last: bool,
    pub rx_user: bool,
    pub cmd_ready: bool,
    pub xpu_vc_pause: u32,
    /// The `local_xpuid` input (`xpuid_source = "port"`; ignored with a constant id).
    pub local_xpuid: u32,
}

/// The saturating counters, in port order.
pub const COUNTER_NAMES: [&str; 24] = [
    "cnt_tx_pdu_new",
    "cnt_tx_pdu_retx",
    "cnt_tx_ctrl_ack",
    "cnt_tx_ctrl_nack",
    "cnt_tx_piggy_ack",
    "cnt_tx_piggy_nack",
    "cnt_tx_nack_rcvd",
    "cnt_tx_rto",
    "cnt_tx_ack_ignored",
    "cnt_tx_pdu_err",
    "cnt_tx_peer_down_drop",
    "cnt_tx_win_stall",
    "cnt_rx_pdu",
    "cnt_rx_frame_err",
    "cnt_rx_len_err",
    "cnt_rx_crc_err",
    "cnt_rx_hdr_err",
    "cnt_rx_partition_err",
    "cnt_rx_ctrl",
    "cnt_rx_data_ok",
    "cnt_rx_gap",
    "cnt_rx_dup",
    "cnt_rx_cmd_out",
    "cnt_rx_stall",
];

/// Counter indices.
pub mod k {
    pub const TX_NEW: usize = 0;
    pub const TX_RETX: usize = 1;
    pub const TX_CTRL_ACK: usize = 2;
    pub const TX_CTRL_NACK: usize = 3;
    pub const TX_PIGGY_ACK: usize = 4;
    pub const TX_PIGGY_NACK: usize = 5;
    pub const TX_NACK_RCVD: usize = 6;
    pub const TX_RTO: usize = 7;
    pub const TX_ACK_IGNORED: usize = 8;
    pub const TX_PDU_ERR: usize = 9;
    pub const TX_DOWN_DROP: usize = 10;
    pub const TX_WIN_STALL: usize = 11;
    pub const RX_PDU: usize = 12;
    pub const RX_FRAME_ERR: usize = 13;
    pub const RX_LEN_ERR: usize = 14;
    pub const RX_CRC_ERR: usize = 15;
    pub const RX_HDR_ERR: usize = 16;
    pub const RX_PART_ERR: usize = 17;
    pub const RX_CTRL: usize = 18;
    pub const RX_DATA_OK: usize = 19;
    pub const RX_GAP: usize = 20;
    pub const RX_DUP: usize = 21;
    pub const RX_CMD_OUT: usize = 22;
    pub const RX_STALL: usize = 23;
}

/// What the module shows in a cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TpOutputs {
    pub pdu_ready: bool,
    pub tx_dest_ready: Vec<bool>,
    pub tx_valid: bool,
    pub tx_data: Vec<u8>,
    pub tx_keep: u128,
    pub tx_last: bool,
    pub tx_dest: u32,
    pub tx_user: u32,
    pub rx_ready: bool,
    pub rx_vc_pause: u32,
    pub cmd_valid: bool,
    pub cmd_data: Vec<u8>,
    pub cmd_last: bool,
    pub cmd_tid: u32,
    pub cmd_user: u32,
    pub cmpl_valid: bool,
    pub cmpl_dest: u32,
    pub cmpl_cmds: u32,
    pub peer_down: Vec<bool>,
    pub counters: [u64; 24],
}

#[derive(Debug, Clone, Copy, Default)]
struct Meta {
    cum: u16,
    n: u32,
    vc: u32,
}

#[derive(Debug, Clone, Copy, Default)]
struct TxSpace {
    next: u16,
    hwm: u16,
    snd: u16,
    una: u16,
    timer: u32,
    retries: u32,
    down: bool,
    cum: u16,
    cmpl_acc: u16,
}

#[derive(Debug, Clone, Copy, Default)]
struct RxSpace {
    epsn: u16,
    nack_sent: bool,
    nack_pending: bool,
    ack_pending: bool,
    ack_force: bool,
    unacked: u32,
    ack_age: u32,
    nack_age: u32,
}

/// A received PDU between its tlast and its verdict a cycle later: the checks taken at tlast.
#[derive(Debug, Clone)]
struct RxEnd {
    ferr: bool,
    lenerr: bool,
    crc_ok: bool,
    rh: Vec<u8>,
    /// Payload beats (0: a control PDU) and whole commands.
    beats: u32,
    ncmds: u32,
}

/// Output stage of the TX engine: what the presented beat is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum TxKind {
    #[default]
    Mid,
    Tail,
}

#[derive(Debug, Clone)]
pub struct TransportModel {
    b: SueTransportBlock,
    crc: CrcModel,
    // TX storage.
    txram: Vec<Vec<u8>>,
    meta: Vec<Meta>,
    tx: Vec<TxSpace>,
    rx: Vec<RxSpace>,
    // TX ingest.
    in_busy: bool,
    in_good: bool,
    in_s: u32,
    in_beat: u32,
    in_exp: u32,
    in_n: u32,
    in_vc: u32,
    /// Oldest slot in use per space a cycle ago: the free-slot check is registered, so a
    /// first beat compares `next` now against it (a freed slot is seen a cycle later).
    win_base: Vec<u16>,
    // TX engine.
    rr_ctl: u32,
    rr_data: u32,
    out_valid: bool,
    out_kind: TxKind,
    ram_q: Vec<u8>,
    carry: Vec<u8>,
    crc_q: u32,
    rd_left: u32,
    tail_due: bool,
    rd_s: u32,
    cur_psn: u16,
    rd_slot: u32,
    rd_beat: u32,
    out_dest: u32,
    out_vc: u32,
    // RX input.
    rx_busy: bool,
    rx_rh: Vec<u8>,
    rx_hold: Vec<u8>,
    rx_beat: u32,
    rx_crc: u32,
    rx_ferr: bool,
    rx_kerr: bool,
    rx_cb: u32,
    rx_nc: u32,
    rx_vc: u32,
    rx_end: Option<RxEnd>,
    // RX buffers.
    rxram: Vec<Vec<u8>>,
    rx_wp: Vec<u32>,
    rx_used: Vec<u32>,
    rx_rp: Vec<u32>,
    mq: Vec<(u32, u32)>,
    mq_head: Vec<u32>,
    mq_tail: Vec<u32>,
    mq_cnt: Vec<u32>,
    hdone: Vec<u32>,
    // Output engine.
    o_rr: u32,
    o_valid: bool,
    o_last: bool,
    o_data: Vec<u8>,
    o_left: u32,
    o_v: u32,
    o_src: u32,
    // Completion register.
    cmpl: Option<(u32, u32)>,
    cnt: [u64; 24],
}

impl TransportModel {
    pub fn new(b: &SueTransportBlock) -> TransportModel {
        let c = &b.common;
        let db = c.data_bytes as usize;
        let ns = b.spaces() as usize;
        let nv = c.num_vc as usize;
        let p = b.resolved.psn_init as u16;
        let crc = b.resolved.rcrc.model();
        TransportModel {
            b: b.clone(),
            crc_q: crc_init(&crc),
            rx_crc: crc_init(&crc),
            crc,
            txram: vec![vec![0; db]; ns * (b.slots() * b.slot_beats()) as usize],
            meta: vec![Meta::default(); ns * b.slots() as usize],
            tx: vec![
                TxSpace {
                    next: p,
                    hwm: p,
                    snd: p,
                    una: p,
                    ..Default::default()
                };
                ns
            ],
            rx: vec![
                RxSpace {
                    epsn: p,
                    ..Default::default()
                };
                ns
            ],
            in_busy: false,
            in_good: false,
            in_s: 0,
            in_beat: 0,
            in_exp: 0,
            in_n: 0,
            in_vc: 0,
            win_base: vec![p; ns],
            rr_ctl: ns as u32 - 1,
            rr_data: ns as u32 - 1,
            out_valid: false,
            out_kind: TxKind::Mid,
            ram_q: vec![0; db],
            carry: vec![0; 8],
            rd_left: 0,
            tail_due: false,
            rd_s: 0,
            cur_psn: 0,
            rd_slot: 0,
            rd_beat: 0,
            out_dest: 0,
            out_vc: 0,
            rx_busy: false,
            rx_rh: vec![0; 8],
            rx_hold: vec![0; db - 8],
            rx_beat: 0,
            rx_ferr: false,
            rx_kerr: false,
            rx_cb: 0,
            rx_nc: 0,
            rx_vc: 0,
            rx_end: None,
            rxram: vec![vec![0; db]; nv * b.rx_ram_beats() as usize],
            rx_wp: vec![0; nv],
            rx_used: vec![0; nv],
            rx_rp: vec![0; nv],
            mq: vec![(0, 0); nv * b.rx_meta_depth() as usize],
            mq_head: vec![0; nv],
            mq_tail: vec![0; nv],
            mq_cnt: vec![0; nv],
            hdone: vec![0; nv],
            o_rr: nv as u32 - 1,
            o_valid: false,
            o_last: false,
            o_data: vec![0; db],
            o_left: 0,
            o_v: 0,
            o_src: 0,
            cmpl: None,
            cnt: [0; 24],
        }
    }

    pub fn reset(&mut self) {
        *self = TransportModel::new(&self.b);
    }

    pub fn counter(&self, i: usize) -> u64 {
        self.cnt[i]
    }

    /// PDUs stored and not acknowledged, over all spaces.
    pub fn unacked(&self) -> u32 {
        self.tx.iter().map(|t| u32::from(dist(t.una, t.next))).sum()
    }

    /// RX commands waiting in the buffers (beats not yet read out).
    pub fn rx_held_beats(&self) -> u32 {
        self.rx_used.iter().sum()
    }

    fn db(&self) -> usize {
        self.b.common.data_bytes as usize
    }

    fn space(&self, dest: u32, vc: u32) -> u32 {
        dest * self.b.per_peer() + if self.b.per_peer() > 1 { vc } else { 0 }
    }

    fn ctl_vc(&self, s: u32) -> u32 {
        if self.b.resolved.psn_scope == PsnScope::DestVc {
            s % self.b.per_peer()
        } else {
            self.b.resolved.ack_vc
        }
    }

    fn slot_idx(&self, s: u32, psn: u16) -> usize {
        (s * self.b.slots() + u32::from(psn) % self.b.slots()) as usize
    }

    fn meta_at(&self, s: u32, psn: u16) -> Meta {
        self.meta[self.slot_idx(s, psn)]
    }

    /// Oldest slot still in use: una, or the PSN being read if the engine streams an older one.
    fn base(&self, s: u32) -> u16 {
        let t = &self.tx[s as usize];
        if self.engine_reading(s) {
            let cur = self.cur_psn;
            if dist(cur, t.next) > dist(t.una, t.next) {
                return cur;
            }
        }
        t.una
    }

    /// The engine still has beats of space `s`'s slot `cur_psn` to read from the RAM.
    fn engine_reading(&self, s: u32) -> bool {
        self.rd_left > 0 && self.rd_s == s
    }

    /// A first beat of space `s` finds a free slot: `next` against the oldest slot in use a
    /// cycle ago (a commit since counts, a slot freed since does not yet).
    fn free_slot(&self, s: u32) -> bool {
        u32::from(dist(self.win_base[s as usize], self.tx[s as usize].next)) < self.b.resolved.window
    }

    fn ack_due(&self, s: usize) -> bool {
        let r = &self.rx[s];
        r.ack_pending
            && (r.ack_force
                || r.unacked >= self.b.resolved.ack_coalesce
                || r.ack_age >= self.b.resolved.ack_delay_cycles)
    }

    fn has_data(&self, s: u32, pause: u32) -> bool {
        let t = &self.tx[s as usize];
        !t.down && t.snd != t.next && (pause >> self.meta_at(s, t.snd).vc) & 1 == 0
    }

    fn rx_free(&self, v: usize) -> u32 {
        self.b.rx_beats() - self.rx_used[v]
    }

    fn pack_beats(&self) -> u32 {
        self.b.common.max_pack_bytes / self.b.common.data_bytes
    }

    /// TX ingest view of the current input beat: (first, bad, down, s, n, vc, exp).
    fn ingest(&self, i: &TpInputs) -> (bool, bool, bool, u32, u32, u32, u32) {
        let c = &self.b.common;
        let first = !self.in_busy;
        if !first {
            return (
                false,
                false,
                false,
                self.in_s,
                self.in_n,
                self.in_vc,
                self.in_exp,
            );
        }
        let vc = i.pdu_user & 3;
        let n = (i.pdu_user >> 2) & 0x3FF;
        let bad = i.pdu_dest >= c.num_xpu || vc >= c.num_vc || n == 0 || n > c.max_cmds();
        let s = if bad { 0 } else { self.space(i.pdu_dest, vc) };
        let down = !bad && self.tx[s as usize].down;
        (true, bad, down, s, n, vc, n * c.cmd_beats())
    }

    fn pdu_ready(&self, i: &TpInputs) -> bool {
        let (first, bad, down, s, ..) = self.ingest(i);
        !first || bad || down || self.free_slot(s)
    }

    /// Beats a PDU awaiting its verdict may commit to VC `v` (counted as held by the room
    /// check, accepted or not).
    fn rx_pending(&self, v: usize) -> u32 {
        match &self.rx_end {
            Some(e) if usize::from(e.rh[4] >> 6) == v => e.beats,
            _ => 0,
        }
    }

    fn rx_ready(&self) -> bool {
        self.rx_busy
            || (0..self.b.common.num_vc as usize)
                .all(|v| self.rx_used[v] + self.rx_pending(v) + self.pack_beats() <= self.b.rx_beats())
    }

    /// The presented TX beat.
    fn tx_beat(&self) -> (Vec<u8>, u128, bool) {
        let db = self.db();
        let mut d = self.carry.clone();
        match self.out_kind {
            TxKind::Mid => {
                d.extend_from_slice(&self.ram_q[..db - 8]);
                let keep = if db == 128 {
                    u128::MAX
                } else {
                    (1u128 << db) - 1
                };
                (d, keep, false)
            }
            TxKind::Tail => {
                let crc = crc_last8(&self.crc, self.crc_q, &self.carry);
                d.extend_from_slice(&crc.to_le_bytes());
                d.resize(db, 0);
                (d, 0xFFF, true)
            }
        }
    }

    pub fn outputs(&self, i: &TpInputs) -> TpOutputs {
        let c = &self.b.common;
        let x = c.num_xpu as usize;
        let k = self.b.per_peer() as usize;
        let tx_dest_ready = (0..x)
            .map(|d| {
                (0..k).all(|v| {
                    let s = (d * k + v) as u32;
                    let t = &self.tx[s as usize];
                    let ingesting = u32::from(self.in_busy && self.in_good && self.in_s == s);
                    !t.down && u32::from(dist(self.base(s), t.next)) + ingesting < self.b.resolved.window
                })
            })
            .collect();
        let peer_down = (0..x)
            .map(|d| (0..k).any(|v| self.tx[d * k + v].down))
            .collect();
        let (tx_data, tx_keep, tx_last) = self.tx_beat();
        let pause = (0..c.num_vc)
            .filter(|&v| self.rx_free(v as usize) < self.b.resolved.rx_pause_bytes / c.data_bytes)
            .fold(0, |a, v| a | 1 << v);
        TpOutputs {
            pdu_ready: self.pdu_ready(i),
            tx_dest_ready,
            tx_valid: self.out_valid,
            tx_data,
            tx_keep,
            tx_last,
            tx_dest: self.out_dest,
            tx_user: self.out_vc,
            rx_ready: self.rx_ready(),
            rx_vc_pause: pause,
            cmd_valid: self.o_valid,
            cmd_data: self.o_data.clone(),
            cmd_last: self.o_last,
            cmd_tid: self.o_src,
            cmd_user: self.o_v,
            cmpl_valid: self.cmpl.is_some(),
            cmpl_dest: self.cmpl.map_or(0, |c| c.0),
            cmpl_cmds: self.cmpl.map_or(0, |c| c.1),
            peer_down,
            counters: self.cnt,
        }
    }
}

/// One counter increment, saturating.
fn bump(cnt: &mut [u64; 24], i: usize, max: u64) {
    if cnt[i] < max {
        cnt[i] += 1;
    }
}

impl TransportModel {
    /// Round robin over `n` requests after `ptr`: the first set one above it, else the lowest.
    fn rr(n: u32, ptr: u32, req: impl Fn(u32) -> bool) -> Option<u32> {
        (ptr + 1..n).chain(0..=ptr.min(n - 1)).find(|&j| req(j))
    }

    /// The TX engine's pick among spaces: (space, data PDU, picked by the control arbiter).
    fn pick(&self, pause: u32) -> Option<(u32, bool, bool)> {
        let ns = self.b.spaces();
        let ctl = Self::rr(ns, self.rr_ctl, |s| {
            let r = &self.rx[s as usize];
            (r.nack_pending || self.ack_due(s as usize))
                && (self.has_data(s, pause) || (pause >> self.ctl_vc(s)) & 1 == 0)
        });
        if let Some(s) = ctl {
            return Some((s, self.has_data(s, pause), true));
        }
        Self::rr(ns, self.rr_data, |s| self.has_data(s, pause)).map(|s| (s, true, false))
    }

    /// Clock edge.
    pub fn clock(&mut self, i: &TpInputs) {
        let o = self.outputs(i);
        let c = self.b.common.clone();
        let p = self.b.resolved.clone();
        let db = self.db();
        let max = c.counter_max();
        let slots = self.b.slots();
        let sbeats = self.b.slot_beats();
        let pb = self.pack_beats();
        let nv = c.num_vc as usize;
        let old = self.clone();
        let mut cnt = self.cnt;

        // ---------------- TX ingest.
        let (first, bad, down, s_in, n_in, vc_in, exp_in) = old.ingest(i);
        let mut commit: Option<(u32, u32, u32)> = None;
        if i.pdu_valid && !o.pdu_ready {
            bump(&mut cnt, k::TX_WIN_STALL, max);
        }
        if i.pdu_valid && o.pdu_ready {
            let good = if first { !bad && !down } else { old.in_good };
            let beat = if first { 0 } else { old.in_beat };
            if good && beat < exp_in {
                let a = (old.slot_idx(s_in, old.tx[s_in as usize].next) as u32 * sbeats + beat)
                    as usize;
                self.txram[a] = i.pdu_data.clone();
            }
            if first && bad {
                bump(&mut cnt, k::TX_PDU_ERR, max);
            }
            if first && down {
                bump(&mut cnt, k::TX_DOWN_DROP, max);
            }
            if first {
                self.in_good = good;
                self.in_s = s_in;
                self.in_n = n_in;
                self.in_vc = vc_in;
                self.in_exp = exp_in;
            }
            if i.pdu_last {
                self.in_busy = false;
                if good && beat + 1 == exp_in {
                    commit = Some((s_in, n_in, vc_in));
                } else if good {
                    bump(&mut cnt, k::TX_PDU_ERR, max);
                }
            } else {
                self.in_busy = true;
                self.in_beat = if beat < exp_in { beat + 1 } else { exp_in };
            }
        }
        if let Some((s, n, vc)) = commit {
            let t = &mut self.tx[s as usize];
            let cum = t.cum.wrapping_add(n as u16);
            let idx = old.slot_idx(s, t.next);
            self.meta[idx] = Meta { cum, n, vc };
            t.cum = cum;
            t.next = t.next.wrapping_add(1);
        }

        // ---------------- RX input: the checks at tlast, the verdict a cycle later.
        let rx_fire = i.rx_valid && o.rx_ready;
        self.rx_end = None;
        if i.rx_valid && !o.rx_ready {
            bump(&mut cnt, k::RX_STALL, max);
        }
        // (space, kind) of an accepted ACK/NACK: Some((s, new una, nack)) and RX space events.
        let mut ackev: Option<(u32, u16, Option<u16>)> = None;
        let mut rxev: Option<(u32, u8)> = None; // 0 accept, 1 gap, 2 dup
        let mut rx_commit: Option<(usize, u32, u32, u32)> = None; // vc, beats, src, ncmds
        if rx_fire {
            let first = !old.rx_busy;
            let beat = if first { 0 } else { old.rx_beat };
            let d = &i.rx_data;
            let rh: Vec<u8> = if first {
                d[..8].to_vec()
            } else {
                old.rx_rh.clone()
            };
            let vc_w = if first {
                u32::from(d[4] >> 6)
            } else {
                old.rx_vc
            };
            let crc_cur = if first {
                crc_init(&self.crc)
            } else {
                old.rx_crc
            };
            let full = if db == 128 {
                u128::MAX
            } else {
                (1u128 << db) - 1
            };
            let keep_ok = if i.rx_last {
                i.rx_keep == 0xFFF
            } else {
                i.rx_keep == full
            };
            let kerr = (!first && old.rx_kerr) || !keep_ok;
            let ferr = (!first && old.rx_ferr) || i.rx_user;
            let (cb, nc) = if first {
                (0, 0)
            } else {
                (old.rx_cb, old.rx_nc)
            };
            let (cb2, nc2) = if first {
                (0, 0)
            } else if cb + 1 == c.cmd_beats() {
                (0, nc + 1)
            } else {
                (cb + 1, nc)
            };
            if !first && vc_w < c.num_vc && beat - 1 < pb {
                let rb = self.b.rx_ram_beats();
                let a = (vc_w * rb + (old.rx_wp[vc_w as usize] + beat - 1) % rb) as usize;
                let mut w = old.rx_hold.clone();
                w.extend_from_slice(&d[..8]);
                self.rxram[a] = w;
            }
            self.rx_hold = d[8..db].to_vec();
            if !i.rx_last {
                self.rx_busy = true;
                self.rx_beat = (beat + 1).min(pb + 1);
                self.rx_crc = crc_step(&self.crc, crc_cur, d);
                self.rx_ferr = ferr;
                self.rx_kerr = kerr;
                self.rx_cb = cb2;
                self.rx_nc = nc2;
                if first {
                    self.rx_rh = rh.clone();
                    self.rx_vc = vc_w;
                }
            } else {
                self.rx_busy = false;
                self.rx_end = Some(RxEnd {
                    ferr,
                    lenerr: kerr || beat > pb || cb2 != 0,
                    crc_ok: crc_last8(&self.crc, crc_cur, &d[..8])
                        == u32::from_le_bytes([d[8], d[9], d[10], d[11]]),
                    rh,
                    beats: beat,
                    ncmds: nc2,
                });
            }
        }
        // The verdict on the PDU that ended last cycle, its checks in order.
        if let Some(e) = &old.rx_end {
            bump(&mut cnt, k::RX_PDU, max);
            let rh = &e.rh;
            let ver = u32::from(rh[0] >> 6);
            let op = (rh[0] >> 4) & 3;
            let xpuid = (u32::from(rh[0] & 3) << 8) | u32::from(rh[1]);
            let psn = u16::from_be_bytes([rh[2], rh[3]]);
            let vc = u32::from(rh[4] >> 6);
            let part = (u32::from(rh[4] & 3) << 8) | u32::from(rh[5]);
            let rpsn = u16::from_be_bytes([rh[6], rh[7]]);
            let hdr_bad = ver != p.version || op == 3 || xpuid >= c.num_xpu || vc >= c.num_vc;
            if e.ferr {
                bump(&mut cnt, k::RX_FRAME_ERR, max);
            } else if e.lenerr {
                bump(&mut cnt, k::RX_LEN_ERR, max);
            } else if !e.crc_ok {
                bump(&mut cnt, k::RX_CRC_ERR, max);
            } else if hdr_bad {
                bump(&mut cnt, k::RX_HDR_ERR, max);
            } else if p.partition_check && part != p.partition {
                bump(&mut cnt, k::RX_PART_ERR, max);
            } else {
                let s = old.space(xpuid, vc);
                let t = &old.tx[s as usize];
                match op {
                    1 if dist(t.una, rpsn) < dist(t.una, t.hwm) => {
                        ackev = Some((s, rpsn.wrapping_add(1), None))
                    }
                    2 if dist(t.una, rpsn) <= dist(t.una, t.hwm) => {
                        ackev = Some((s, rpsn, Some(rpsn)));
                        bump(&mut cnt, k::TX_NACK_RCVD, max);
                    }
                    1 | 2 => bump(&mut cnt, k::TX_ACK_IGNORED, max),
                    _ => {}
                }
                if e.beats == 0 {
                    bump(&mut cnt, k::RX_CTRL, max);
                } else {
                    let delta = dist(old.rx[s as usize].epsn, psn);
                    if delta == 0 {
                        bump(&mut cnt, k::RX_DATA_OK, max);
                        rxev = Some((s, 0));
                        rx_commit = Some((vc as usize, e.beats, xpuid, e.ncmds));
                    } else if delta < 0x8000 {
                        bump(&mut cnt, k::RX_GAP, max);
                        rxev = Some((s, 1));
                    } else {
                        bump(&mut cnt, k::RX_DUP, max);
                        rxev = Some((s, 2));
                    }
                }
            }
        }

        // ---------------- TX engine.
        let tx_fire = old.out_valid && i.tx_ready;
        let adv = !old.out_valid || i.tx_ready;
        if tx_fire && old.out_kind == TxKind::Mid {
            let (data, _, _) = old.tx_beat();
            self.crc_q = crc_step(&self.crc, old.crc_q, &data);
            self.carry = old.ram_q[db - 8..].to_vec();
        }
        let mut decided: Option<(u32, bool, u16)> = None; // space, data, psn
        let mut clear: Option<(u32, u8)> = None; // space, op cleared (1 ACK, 2 NACK)
        if adv && old.rd_left > 0 {
            let a = ((old.rd_s * slots + old.rd_slot) * sbeats + old.rd_beat) as usize;
            self.ram_q = old.txram[a].clone();
            self.rd_beat = old.rd_beat + 1;
            self.rd_left = old.rd_left - 1;
            self.out_valid = true;
            self.out_kind = TxKind::Mid;
        } else if adv && old.tail_due {
            self.out_kind = TxKind::Tail;
            self.out_valid = true;
            self.tail_due = false;
        } else if let (true, Some((s, data, by_ctl))) = (adv, old.pick(i.tx_vc_pause)) {
            let r = &old.rx[s as usize];
            let (op, rpsn) = if r.nack_pending {
                (2u64, r.epsn)
            } else if r.ack_pending {
                (1, r.epsn.wrapping_sub(1))
            } else {
                (0, 0)
            };
            if op != 0 {
                clear = Some((s, op as u8));
            }
            let t = &old.tx[s as usize];
            let psn = if data { t.snd } else { t.next };
            let m = old.meta_at(s, t.snd);
            let vc = if data { m.vc } else { old.ctl_vc(s) };
            let rh = (u64::from(p.version) << 62)
                | (op << 60)
                | (u64::from(if p.xpuid_port { i.local_xpuid & 0x3FF } else { p.local_xpuid }) << 48)
                | (u64::from(psn) << 32)
                | (u64::from(vc) << 30)
                | (u64::from(p.partition) << 16)
                | u64::from(rpsn);
            self.carry = rh.to_be_bytes().to_vec();
            self.crc_q = crc_init(&self.crc);
            self.out_dest = s / self.b.per_peer();
            self.out_vc = vc;
            self.out_valid = true;
            if by_ctl {
                self.rr_ctl = s;
            } else {
                self.rr_data = s;
            }
            let ci = match (data, op) {
                (true, 1) => Some(k::TX_PIGGY_ACK),
                (true, 2) => Some(k::TX_PIGGY_NACK),
                (false, 1) => Some(k::TX_CTRL_ACK),
                (false, 2) => Some(k::TX_CTRL_NACK),
                _ => None,
            };
            if let Some(ci) = ci {
                bump(&mut cnt, ci, max);
            }
            if data {
                let a = (old.slot_idx(s, t.snd) as u32 * sbeats) as usize;
                self.ram_q = old.txram[a].clone();
                self.rd_s = s;
                self.cur_psn = t.snd;
                self.rd_slot = u32::from(t.snd) % slots;
                self.rd_beat = 1;
                self.rd_left = m.n * c.cmd_beats() - 1;
                self.tail_due = true;
                self.out_kind = TxKind::Mid;
                bump(
                    &mut cnt,
                    if t.snd == t.hwm {
                        k::TX_NEW
                    } else {
                        k::TX_RETX
                    },
                    max,
                );
            } else {
                self.out_kind = TxKind::Tail;
                self.tail_due = false;
                self.rd_left = 0;
            }
            decided = Some((s, data, psn));
        } else if adv {
            self.out_valid = false;
        }

        // ---------------- TX space state: decide, then timeout, then ACK/NACK (later wins).
        let mut any_rto = false;
        self.cmpl = None;
        for s in 0..self.b.spaces() {
            let su = s as usize;
            let ot = old.tx[su];
            let mut t = self.tx[su];
            if let Some((ds, true, psn)) = decided {
                if ds == s {
                    t.snd = psn.wrapping_add(1);
                    if psn == ot.hwm {
                        t.hwm = psn.wrapping_add(1);
                    }
                    if ot.una == ot.hwm {
                        t.timer = 0;
                    }
                }
            }
            let touched = ackev.is_some_and(|e| e.0 == s);
            if ot.una != ot.hwm && !ot.down {
                if ot.timer + 1 >= p.rto_cycles && !touched {
                    t.snd = ot.una;
                    t.timer = 0;
                    t.retries = (ot.retries + 1).min(255);
                    any_rto = true;
                    if p.max_retries > 0 && ot.retries + 1 > p.max_retries {
                        t.down = true;
                    }
                } else if ot.timer + 1 < p.rto_cycles {
                    t.timer = ot.timer + 1;
                }
            }
            if let Some((_, una2, nack)) = ackev.filter(|e| e.0 == s) {
                if una2 != ot.una {
                    let cum = old.meta_at(s, una2.wrapping_sub(1)).cum;
                    self.cmpl = Some((
                        s / self.b.per_peer(),
                        u32::from(cum.wrapping_sub(ot.cmpl_acc)),
                    ));
                    t.cmpl_acc = cum;
                    t.una = una2;
                }
                t.timer = 0;
                t.retries = 0;
                t.snd = match nack {
                    Some(r) => r,
                    None if dist(una2, t.snd) > dist(una2, t.hwm) => una2,
                    None => t.snd,
                };
            }
            self.tx[su] = t;
        }
        if any_rto {
            bump(&mut cnt, k::TX_RTO, max);
        }

        // ---------------- RX space state: timers, then the TX clear, then RX events (later wins).
        for s in 0..self.b.spaces() {
            let su = s as usize;
            let or = old.rx[su];
            let mut r = or;
            if or.ack_pending {
                r.ack_age = (or.ack_age + 1).min(p.ack_delay_cycles);
            }
            if or.nack_sent && !or.nack_pending {
                if or.nack_age + 1 >= p.nack_timeout_cycles {
                    r.nack_pending = true;
                    r.nack_age = 0;
                } else {
                    r.nack_age = or.nack_age + 1;
                }
            }
            match clear {
                Some((cs, 2)) if cs == s => {
                    r.nack_pending = false;
                    r.nack_age = 0;
                }
                Some((cs, 1)) if cs == s => {
                    r.ack_pending = false;
                    r.ack_force = false;
                    r.unacked = 0;
                    r.ack_age = 0;
                }
                _ => {}
            }
            match rxev {
                Some((es, 0)) if es == s => {
                    r.epsn = or.epsn.wrapping_add(1);
                    r.nack_sent = false;
                    r.ack_pending = true;
                    r.unacked = (r.unacked + 1).min(p.ack_coalesce);
                }
                Some((es, 1)) if es == s && !or.nack_sent => {
                    r.nack_pending = true;
                    r.nack_sent = true;
                    r.nack_age = 0;
                }
                Some((es, 2)) if es == s => {
                    r.ack_pending = true;
                    r.ack_force = true;
                }
                _ => {}
            }
            self.rx[su] = r;
        }

        // ---------------- RX output engine.
        let adv_o = !old.o_valid || i.cmd_ready;
        let mut read: Option<usize> = None;
        let mut pop: Option<usize> = None;
        let rb = self.b.rx_ram_beats();
        let md = self.b.rx_meta_depth();
        if adv_o && old.o_left > 0 {
            let v = old.o_v as usize;
            self.o_data = old.rxram[v * rb as usize + old.rx_rp[v] as usize].clone();
            self.o_left = old.o_left - 1;
            self.o_last = old.o_left == 1;
            self.o_valid = true;
            read = Some(v);
        } else if let (true, Some(v)) = (
            adv_o,
            Self::rr(c.num_vc, old.o_rr, |v| {
                old.mq_cnt[v as usize] > 0 && (i.xpu_vc_pause >> v) & 1 == 0
            }),
        ) {
            let vu = v as usize;
            let (src, n) = old.mq[vu * md as usize + old.mq_head[vu] as usize];
            self.o_data = old.rxram[vu * rb as usize + old.rx_rp[vu] as usize].clone();
            self.o_left = c.cmd_beats() - 1;
            self.o_last = c.cmd_beats() == 1;
            self.o_valid = true;
            self.o_v = v;
            self.o_src = src;
            self.o_rr = v;
            bump(&mut cnt, k::RX_CMD_OUT, max);
            read = Some(vu);
            if old.hdone[vu] + 1 == n {
                pop = Some(vu);
                self.hdone[vu] = 0;
            } else {
                self.hdone[vu] = old.hdone[vu] + 1;
            }
        } else if adv_o {
            self.o_valid = false;
        }
        for v in 0..nv {
            let rd = u32::from(read == Some(v));
            let (cb, push) = match rx_commit {
                Some((cv, beats, src, n)) if cv == v => {
                    self.mq[v * md as usize + old.mq_tail[v] as usize] = (src, n);
                    (beats, 1)
                }
                _ => (0, 0),
            };
            self.rx_rp[v] = (old.rx_rp[v] + rd) % rb;
            self.rx_wp[v] = (old.rx_wp[v] + cb) % rb;
            self.rx_used[v] = old.rx_used[v] + cb - rd;
            let pp = u32::from(pop == Some(v));
            self.mq_head[v] = (old.mq_head[v] + pp) % md;
            self.mq_tail[v] = (old.mq_tail[v] + push) % md;
            self.mq_cnt[v] = old.mq_cnt[v] + push - pp;
        }
        for s in 0..self.b.spaces() {
            self.win_base[s as usize] = old.base(s);
        }
        self.cnt = cnt;
    }
}
