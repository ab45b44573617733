//! Cycle-accurate reference model of one `genz_llr` interface. Every register of the RTL is a
//! field of [`Regs`]; [`LlrModel::tick`] computes the next values from the current ones and the
//! inputs in the same order as the generated `always @*` block, so the two agree cycle for cycle.
//! The RAMs are modelled as read-first block RAM (a read at the edge of a write returns the old
//! word), which is why packets become visible to the readers one cycle after their last write.

/// Link-local opcodes (byte 0 of an LL packet).
pub const OP_INIT: u8 = 1;
pub const OP_INIT_ACK: u8 = 2;
pub const OP_FC: u8 = 3;
pub const OP_ACK: u8 = 4;
pub const OP_DISCARD: u8 = 5;
pub const OP_CLEAR: u8 = 6;
pub const OP_EXIT: u8 = 7;

/// XORed into the CRC of LL packets so no LL packet passes as an EE packet or back.
pub const LL_CRC_XOR: u32 = 0x4C4C_5231;
/// Bytes of a link-local packet.
pub const LL_BYTES: usize = 16;

/// `llr_state[1:0]`.
pub const LINK_DOWN: u8 = 0;
pub const LINK_INIT: u8 = 1;
pub const LINK_UP: u8 = 2;

/// Counter outputs, in port order.
pub const COUNTERS: [&str; 13] = [
    "cnt_ee_sent",
    "cnt_ee_resent",
    "cnt_ee_delivered",
    "cnt_ecrc_errors",
    "cnt_discards_sent",
    "cnt_discards_received",
    "cnt_clear_discards_sent",
    "cnt_exit_discards_sent",
    "cnt_acks_sent",
    "cnt_acks_received",
    "cnt_inits_sent",
    "cnt_retrains",
    "cnt_timer_retransmissions",
];
pub const C_SENT: usize = 0;
pub const C_RESENT: usize = 1;
pub const C_DELIVERED: usize = 2;
pub const C_ECRC: usize = 3;
pub const C_DISC_SENT: usize = 4;
pub const C_DISC_RCVD: usize = 5;
pub const C_CLEAR_SENT: usize = 6;
pub const C_EXIT_SENT: usize = 7;
pub const C_ACK_SENT: usize = 8;
pub const C_ACK_RCVD: usize = 9;
pub const C_INIT_SENT: usize = 10;
pub const C_RETRAIN: usize = 11;
pub const C_TIMER_RTX: usize = 12;

/// Validated parameters (timers already in cycles).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlrConfig {
    pub data_bytes: u32,
    pub max_packet_bytes: u32,
    pub vcs: u32,
    pub rx_credits: u32,
    pub retry_bytes: u32,
    pub retry_packets: u32,
    pub ui_per_cycle: u64,
    pub init_interval_ui: u64,
    pub discard_interval_ui: u64,
    pub llrt_ui: u64,
    pub init_cycles: u32,
    pub discard_cycles: u32,
    pub llrt_cycles: u32,
    pub discard_limit: u32,
    pub ack_every: u32,
    pub ecrc_check: bool,
    pub counter_bits: u32,
}

/// `⌈log2 n⌉`, at least 1.
pub fn clog2(n: u64) -> u32 {
    (64 - (n.max(2) - 1).leading_zeros()).max(1)
}

impl LlrConfig {
    /// Beats of a maximum EE packet.
    pub fn max_beats(&self) -> u32 {
        self.max_packet_bytes / self.data_bytes
    }
    /// Beats of an LL packet.
    pub fn ll_beats(&self) -> u32 {
        LL_BYTES as u32 / self.data_bytes
    }
    /// Retry-buffer slots (each one maximum packet).
    pub fn slots(&self) -> u32 {
        self.retry_packets.min(self.retry_bytes / self.max_packet_bytes)
    }
    /// Address bits of a beat within a slot.
    pub fn beat_bits(&self) -> u32 {
        clog2(self.max_beats() as u64)
    }
    pub fn slot_bits(&self) -> u32 {
        clog2(self.slots() as u64)
    }
    /// Retry RAM words: slot s, beat b at `s << beat_bits | b`.
    pub fn retry_words(&self) -> u32 {
        self.slots() << self.beat_bits()
    }
    /// Address bits of the receive FIFO (a power of two holding every credit plus one packet of
    /// headroom for a packet that is still being checked).
    pub fn rx_addr_bits(&self) -> u32 {
        clog2(((self.vcs * self.rx_credits + 1) * self.max_beats()) as u64)
    }
    pub fn vc_bits(&self) -> u32 {
        clog2(self.vcs as u64)
    }
    /// Width of the receive beat counter (saturates at max(max_beats, ll_beats)).
    pub fn rx_beat_max(&self) -> u32 {
        self.max_beats().max(self.ll_beats())
    }
    pub fn counter_max(&self) -> u64 {
        if self.counter_bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.counter_bits) - 1
        }
    }
}

/// One step of the reflected CRC-32 register (polynomial 0x04C11DB7) over `bytes`.
pub fn crc32_step(mut reg: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        reg ^= b as u32;
        for _ in 0..8 {
            reg = if reg & 1 != 0 { (reg >> 1) ^ 0xEDB8_8320 } else { reg >> 1 };
        }
    }
    reg
}

/// CRC-32/ISO-HDLC of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    !crc32_step(0xFFFF_FFFF, bytes)
}

/// Appends the ECRC to an EE packet body (the upper layer's job; for tests and campaigns).
pub fn with_ecrc(mut body: Vec<u8>) -> Vec<u8> {
    let c = crc32(&body);
    body.extend_from_slice(&c.to_le_bytes());
    body
}

/// Fields of a link-local packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LlPacket {
    pub op: u8,
    pub tseq: u16,
    pub rseq: u16,
    pub freed: [u8; 4],
    /// The sender's stop epoch (bumped whenever its EE transmission stops for an Init).
    pub epoch: u8,
    /// The epoch of the packet this one answers (Init ACK: the Init's; FC: the Init ACK's or
    /// the answered FC's; Exit Discard: the Clear Discard's).
    pub echo: u8,
    /// The sender's EE transmission is enabled (`llr_state[2]`): byte 11 bit 0.
    pub tx_en: bool,
}

impl LlPacket {
    pub fn encode(&self) -> [u8; LL_BYTES] {
        let mut b = [0u8; LL_BYTES];
        b[0] = self.op;
        b[1..3].copy_from_slice(&self.tseq.to_be_bytes());
        b[3..5].copy_from_slice(&self.rseq.to_be_bytes());
        b[5..9].copy_from_slice(&self.freed);
        b[9] = self.epoch;
        b[10] = self.echo;
        b[11] = self.tx_en as u8;
        let c = crc32(&b[..12]) ^ LL_CRC_XOR;
        b[12..16].copy_from_slice(&c.to_le_bytes());
        b
    }
    /// The packet if its CRC and opcode are good.
    pub fn decode(b: &[u8]) -> Option<LlPacket> {
        if b.len() != LL_BYTES {
            return None;
        }
        let c = u32::from_le_bytes([b[12], b[13], b[14], b[15]]);
        if crc32(&b[..12]) ^ LL_CRC_XOR != c || !(OP_INIT..=OP_EXIT).contains(&b[0]) {
            return None;
        }
        Some(LlPacket { op: b[0], tseq: u16::from_be_bytes([b[1], b[2]]), rseq: u16::from_be_bytes([b[3], b[4]]), freed: [b[5], b[6], b[7], b[8]], epoch: b[9], echo: b[10], tx_en: b[11] & 1 != 0 })
    }
}

/// One word of either RAM: a beat, its last flag and its VC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub data: Vec<u8>,
    pub last: bool,
    pub vc: u8,
}

/// Inputs sampled at a clock edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlrInputs {
    pub s_valid: bool,
    pub s_data: Vec<u8>,
    pub s_last: bool,
    pub s_user: u8,
    pub m_ready: bool,
    pub ltx_ready: bool,
    pub lrx_valid: bool,
    pub lrx_data: Vec<u8>,
    pub lrx_last: bool,
    pub lrx_user: bool,
    pub phy_up: bool,
    pub phy_error: bool,
}

impl LlrInputs {
    pub fn idle(data_bytes: u32) -> LlrInputs {
        let d = vec![0u8; data_bytes as usize];
        LlrInputs { s_valid: false, s_data: d.clone(), s_last: false, s_user: 0, m_ready: true, ltx_ready: true, lrx_valid: false, lrx_data: d, lrx_last: false, lrx_user: false, phy_up: true, phy_error: false }
    }
}

/// Outputs during a cycle (`s_ready` depends on the offered `s_user`, see [`LlrModel::s_ready`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlrOutputs {
    pub m_valid: bool,
    pub m_data: Vec<u8>,
    pub m_last: bool,
    pub m_user: u8,
    /// The link output register's valid: `m_axis_link_tvalid` is it AND `phy_up`.
    pub ltx_valid: bool,
    pub ltx_data: Vec<u8>,
    pub ltx_last: bool,
    pub ltx_user: bool,
    pub retrain: bool,
    pub llr_state: u8,
    pub counters: [u64; 13],
}

/// The receive input register: one link beat and the PHY status as sampled at the last edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxIn {
    pub valid: bool,
    pub data: Vec<u8>,
    pub last: bool,
    pub user: bool,
    pub phy_error: bool,
    /// `phy_error` or `phy_up` low: the packet being received is dropped.
    pub drop: bool,
}

/// Every register of the interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Regs {
    // link state
    pub link: u8,
    pub tx_en: bool,
    pub rx_disc: bool,
    pub tx_stop: bool,
    pub retrain_q: bool,
    pub epoch: u8,
    pub iack_echo: u8,
    pub fc_echo: u8,
    pub exit_echo: u8,
    // timers
    pub init_cnt: u32,
    pub disc_cnt: u32,
    pub clr_cnt: u32,
    pub llrt_cnt: u32,
    pub noack: u8,
    pub stall: u8,
    pub ack_prog: bool,
    /// The acknowledged point moved in the previous cycle (the LLR timer's progress test).
    pub progressed_q: bool,
    pub dsc: u32,
    pub since_ack: u32,
    // pending link-local packets
    pub p_init: bool,
    pub p_iack: bool,
    pub p_fc: bool,
    pub p_ack: bool,
    pub p_disc: bool,
    pub p_clr: bool,
    pub p_exit: bool,
    // TX write side
    pub head_seq: u16,
    pub head_slot: u32,
    pub head_vis: u16,
    pub wr_beat: u32,
    pub wr_act: bool,
    pub consumed: [u8; 4],
    pub returned: [u8; 4],
    // TX send side
    pub ack_seq: u16,
    pub ack_slot: u32,
    pub send_seq: u16,
    pub send_slot: u32,
    pub send_beat: u32,
    pub snd_ee: bool,
    pub sent_max: u16,
    /// The beat in the link output register is the last beat of a packet never taken before.
    pub lk_new: bool,
    pub rewind: bool,
    pub snd_ll: bool,
    pub ll_beat: u32,
    pub ll_buf: Vec<u8>,
    pub lk_valid: bool,
    pub lk_data: Vec<u8>,
    pub lk_last: bool,
    pub lk_user: bool,
    pub tx_q: Word,
    // RX input register: the link beat and the PHY status of the previous cycle (the receiver
    // checks the registered beat against CRCs computed on its way in)
    pub rx_in: RxIn,
    // RX
    pub rx_beat: u32,
    pub rx_mark: bool,
    pub rx_bad: bool,
    pub rx_crc: u32,
    pub rx_vc: u8,
    pub rx_wr: u32,
    pub rx_cm: u32,
    pub rx_cm_vis: u32,
    pub rx_rd: u32,
    pub rseq: u16,
    pub ll_rx: Vec<u8>,
    pub llg: bool,
    pub ll: LlPacket,
    pub freed: [u8; 4],
    pub rx_q: Word,
    /// The events of the previous cycle: a status counter counts its event one cycle late
    /// (the increments are registered, so the counters' carry logic starts from a flip-flop).
    pub inc_q: [bool; 13],
    pub counters: [u64; 13],
}

/// The interface.
#[derive(Debug, Clone)]
pub struct LlrModel {
    pub cfg: LlrConfig,
    pub r: Regs,
    pub tx_ram: Vec<Word>,
    pub rx_ram: Vec<Word>,
}

impl LlrModel {
    pub fn new(cfg: LlrConfig) -> LlrModel {
        let d = cfg.data_bytes as usize;
        let word = Word { data: vec![0; d], last: false, vc: 0 };
        let r = Regs {
            link: LINK_DOWN,
            tx_en: false,
            rx_disc: false,
            tx_stop: false,
            retrain_q: false,
            epoch: 0,
            iack_echo: 0,
            fc_echo: 0,
            exit_echo: 0,
            init_cnt: 0,
            disc_cnt: 0,
            clr_cnt: 0,
            llrt_cnt: 0,
            noack: 0,
            stall: 0,
            ack_prog: false,
            progressed_q: false,
            dsc: 0,
            since_ack: 0,
            p_init: false,
            p_iack: false,
            p_fc: false,
            p_ack: false,
            p_disc: false,
            p_clr: false,
            p_exit: false,
            head_seq: 0,
            head_slot: 0,
            head_vis: 0,
            wr_beat: 0,
            wr_act: false,
            consumed: [0; 4],
            returned: [0; 4],
            ack_seq: 0,
            ack_slot: 0,
            send_seq: 0,
            send_slot: 0,
            send_beat: 0,
            snd_ee: false,
            sent_max: 0,
            lk_new: false,
            rewind: false,
            snd_ll: false,
            ll_beat: 0,
            ll_buf: vec![0; LL_BYTES - d],
            lk_valid: false,
            lk_data: vec![0; d],
            lk_last: false,
            lk_user: false,
            tx_q: word.clone(),
            rx_in: RxIn { valid: false, data: vec![0; d], last: false, user: false, phy_error: false, drop: false },
            rx_beat: 0,
            rx_mark: false,
            rx_bad: false,
            rx_crc: 0,
            rx_vc: 0,
            rx_wr: 0,
            rx_cm: 0,
            rx_cm_vis: 0,
            rx_rd: 0,
            rseq: 0,
            ll_rx: vec![0; LL_BYTES],
            llg: false,
            ll: LlPacket::default(),
            freed: [0; 4],
            rx_q: word.clone(),
            inc_q: [false; 13],
            counters: [0; 13],
        };
        let tx_ram = vec![word.clone(); cfg.retry_words() as usize];
        let rx_ram = vec![word; 1usize << cfg.rx_addr_bits()];
        LlrModel { cfg, r, tx_ram, rx_ram }
    }

    /// Packets in the retry buffer (written, not yet acknowledged).
    pub fn outstanding(&self) -> u16 {
        self.r.head_seq.wrapping_sub(self.r.ack_seq)
    }

    /// `s_axis_tready` for a beat offered on VC `user`: mid-packet always, else a free slot and
    /// a credit for the VC.
    pub fn s_ready(&self, user: u8) -> bool {
        let c = &self.r;
        if c.wr_act {
            return true;
        }
        let room = (self.outstanding() as u32) < self.cfg.slots();
        let v = user as usize;
        let credit = (user as u32) < self.cfg.vcs && (c.consumed[v.min(3)].wrapping_sub(c.returned[v.min(3)]) as u32) < self.cfg.rx_credits;
        room && credit
    }

    pub fn llr_state(&self) -> u8 {
        let c = &self.r;
        c.link | (c.tx_en as u8) << 2 | (c.rx_disc as u8) << 3 | (c.tx_stop as u8) << 4
    }

    pub fn outputs(&self) -> LlrOutputs {
        let c = &self.r;
        LlrOutputs {
            m_valid: c.rx_rd != c.rx_cm_vis,
            m_data: c.rx_q.data.clone(),
            m_last: c.rx_q.last,
            m_user: c.rx_q.vc,
            ltx_valid: c.lk_valid,
            ltx_data: c.lk_data.clone(),
            ltx_last: c.lk_last,
            ltx_user: c.lk_user,
            retrain: c.retrain_q,
            llr_state: self.llr_state(),
            counters: c.counters,
        }
    }

    fn slot_add(&self, slot: u32, d: u32) -> u32 {
        let s = slot + d;
        if s >= self.cfg.slots() {
            s - self.cfg.slots()
        } else {
            s
        }
    }

    fn rx_wrap(&self, p: u32) -> u32 {
        (p + 1) & ((2u32 << self.cfg.rx_addr_bits()) - 1)
    }

    /// One clock edge.
    pub fn tick(&mut self, i: &LlrInputs) {
        let cfg = self.cfg.clone();
        let d = cfg.data_bytes as usize;
        let c = self.r.clone();
        let mut n = c.clone();
        let mut inc = [false; 13];
        let mut retrain_req = false;
        let mb = cfg.max_beats();
        let llb = cfg.ll_beats();
        let rx_mask = (1u32 << cfg.rx_addr_bits()) - 1;

        // ---------------- RX: one beat from the link (the input register) ----------------
        let rin = &c.rx_in;
        let beat = rin.valid;
        let first = c.rx_beat == 0;
        let mark = if first { rin.user } else { c.rx_mark };
        let bad = c.rx_bad || (!first && rin.user != c.rx_mark);
        let last = beat && rin.last;
        let crc_in = if first { 0xFFFF_FFFF } else { c.rx_crc };
        let crc_full = crc32_step(crc_in, &rin.data);
        let ecrc = !crc32_step(crc_in, &rin.data[..d - 4]);
        let ecrc_ok = ecrc == u32::from_le_bytes([rin.data[d - 4], rin.data[d - 3], rin.data[d - 2], rin.data[d - 1]]);
        let rx_fill = c.rx_wr.wrapping_sub(c.rx_rd) & ((2u32 << cfg.rx_addr_bits()) - 1);
        let room = c.rx_beat < mb && rx_fill < (1u32 << cfg.rx_addr_bits());
        let ee_beat = beat && !mark;
        let ee_end = ee_beat && last;
        let ecrc_fail = cfg.ecrc_check && !ecrc_ok;
        // The link carries EE packets unchanged, so their VC travels inside them: bits
        // [vc_bits-1:0] of byte 0 (the upper layer's header), covered by the ECRC.
        let vc_mask = ((1u32 << cfg.vc_bits()) - 1) as u8;
        let vc = if first { rin.data[0] & vc_mask } else { c.rx_vc };
        let vc_ok = (vc as u32) < cfg.vcs;
        let ee_good = ee_end && !bad && room && !ecrc_fail && vc_ok;
        // EE packets count only once the Init exchange brought the link up: an Init ACK answers
        // an Init of this session, so every beat the peer sent before the retrain is behind us.
        let accept = c.link == LINK_UP && !c.rx_disc && !rin.drop;
        let commit = ee_good && accept;
        let mut ll_bytes = c.ll_rx[d..].to_vec();
        ll_bytes.extend_from_slice(&rin.data);
        let ll_end = beat && mark && last;
        let ll_dec = LlPacket::decode(&ll_bytes);
        let ll_ok = ll_end && !bad && c.rx_beat == llb - 1 && ll_dec.is_some();
        let pkt_err = (ee_end && !ee_good) || (ll_end && !ll_ok);
        let err = pkt_err || rin.phy_error;
        inc[C_ECRC] = ee_end && ecrc_fail;
        let ee_write = ee_beat && room;
        let mut rx_write: Option<(u32, Word)> = None;
        if beat {
            n.rx_beat = if last { 0 } else { (c.rx_beat + 1).min(cfg.rx_beat_max()) };
            n.rx_mark = mark;
            n.rx_bad = !last && bad;
            n.rx_crc = crc_full;
            n.rx_vc = vc;
            n.ll_rx = ll_bytes.clone();
            if ee_write {
                rx_write = Some((c.rx_wr & rx_mask, Word { data: rin.data.clone(), last: rin.last, vc }));
                n.rx_wr = self.rx_wrap(c.rx_wr);
            }
            if ee_end {
                if commit {
                    n.rx_cm = n.rx_wr;
                } else {
                    n.rx_wr = c.rx_cm;
                }
            }
        }
        n.llg = ll_ok && i.phy_up;
        if let Some(p) = ll_dec {
            if ll_ok {
                n.ll = p;
            }
        }
        if commit {
            n.rseq = c.rseq.wrapping_add(1);
        }

        // ---------------- RX: delivery ----------------
        let m_valid = c.rx_rd != c.rx_cm_vis;
        let m_fire = m_valid && i.m_ready;
        if m_fire {
            n.rx_rd = self.rx_wrap(c.rx_rd);
            if c.rx_q.last {
                let v = c.rx_q.vc as usize;
                n.freed[v] = c.freed[v].wrapping_add(1);
                inc[C_DELIVERED] = true;
                // ACK after ack_every packets handed on: their credits return promptly.
                if c.since_ack + 1 >= cfg.ack_every {
                    n.p_ack = true;
                    n.since_ack = 0;
                } else {
                    n.since_ack = c.since_ack + 1;
                }
            }
        }
        n.rx_cm_vis = c.rx_cm;

        // ---------------- LL packet received last cycle ----------------
        let got = |op: u8| c.llg && c.ll.op == op;
        let mut progressed = false;
        // Move the acknowledged point to `r` if it lies between it and the send point.
        let ack_to = |n: &mut Regs, r: u16, progressed: &mut bool| {
            let dist = r.wrapping_sub(c.ack_seq);
            if dist <= c.send_seq.wrapping_sub(c.ack_seq) {
                n.ack_seq = r;
                n.ack_slot = self.slot_add(c.ack_slot, dist as u32);
                if dist != 0 {
                    *progressed = true;
                }
            }
        };
        if c.llg {
            for v in 0..cfg.vcs as usize {
                n.returned[v] = c.ll.freed[v];
            }
        }
        if got(OP_INIT) {
            // Stop EE transmission: the peer's answer (Init ACK, or FC after ours) to a packet
            // sent after this stop carries the RSEQ to resume from.
            n.p_iack = true;
            n.iack_echo = c.ll.epoch;
            n.epoch = c.epoch.wrapping_add(1);
            n.tx_en = false;
            n.tx_stop = false;
            n.rx_disc = false;
            if c.link == LINK_UP {
                // The FC repeat (below) waits a whole Init period for the peer's answer first.
                n.init_cnt = cfg.init_cycles - 1;
            }
        }
        let enable = (got(OP_INIT_ACK) || got(OP_FC)) && c.ll.echo == c.epoch && !c.tx_en;
        if got(OP_INIT_ACK) {
            n.p_fc = true;
            n.fc_echo = c.ll.epoch;
            if c.link == LINK_INIT {
                // Up: an Init still pending would stop the peer again for nothing.
                n.link = LINK_UP;
                n.p_init = false;
                n.init_cnt = cfg.init_cycles - 1;
            }
        }
        if got(OP_FC) && !c.ll.tx_en {
            // The peer waits for an answer to resume from: an FC echoing its epoch.
            n.p_fc = true;
            n.fc_echo = c.ll.epoch;
        }
        if enable {
            ack_to(&mut n, c.ll.rseq, &mut progressed);
            n.rewind = true;
            n.tx_en = true;
            n.tx_stop = false;
        }
        if got(OP_ACK) {
            inc[C_ACK_RCVD] = true;
            ack_to(&mut n, c.ll.rseq, &mut progressed);
        }
        if got(OP_DISCARD) {
            inc[C_DISC_RCVD] = true;
            if c.link != LINK_DOWN {
                ack_to(&mut n, c.ll.rseq, &mut progressed);
                if !c.tx_stop {
                    // A new stop: only an Exit Discard answering a Clear sent from now on counts.
                    n.epoch = c.epoch.wrapping_add(1);
                }
                n.tx_stop = true;
                n.p_clr = true;
                n.clr_cnt = cfg.discard_cycles - 1;
            }
        }
        if got(OP_CLEAR) && c.link != LINK_DOWN {
            n.p_exit = true;
            n.exit_echo = c.ll.epoch;
            n.p_disc = false;
            n.rx_disc = false;
            n.dsc = 0;
        }
        if got(OP_EXIT) && c.link != LINK_DOWN && c.tx_stop && c.ll.echo == c.epoch {
            ack_to(&mut n, c.ll.rseq, &mut progressed);
            n.rewind = true;
            n.tx_stop = false;
            n.tx_en = true;
        }

        // ---------------- RX error: start discarding ----------------
        if err && c.link != LINK_DOWN && !c.rx_disc {
            n.rx_disc = true;
            n.disc_cnt = 0;
        }

        // ---------------- timers ----------------
        // Init period: an Init until an Init ACK arrives, then an FC until EE transmission is
        // enabled (the peer answers an FC from a disabled end with an FC echoing its epoch).
        if c.link == LINK_INIT && !got(OP_INIT_ACK) {
            if c.init_cnt == 0 {
                n.p_init = true;
                n.init_cnt = cfg.init_cycles - 1;
            } else {
                n.init_cnt = c.init_cnt - 1;
            }
        } else if c.link == LINK_UP && !c.tx_en && !got(OP_INIT) {
            if c.init_cnt == 0 {
                n.p_fc = true;
                n.init_cnt = cfg.init_cycles - 1;
            } else {
                n.init_cnt = c.init_cnt - 1;
            }
        }
        if c.link != LINK_DOWN && c.rx_disc {
            if c.disc_cnt == 0 {
                n.p_disc = true;
                n.disc_cnt = cfg.discard_cycles - 1;
            } else {
                n.disc_cnt = c.disc_cnt - 1;
            }
        }
        if c.link != LINK_DOWN && c.tx_stop {
            if c.clr_cnt == 0 {
                n.p_clr = true;
                n.clr_cnt = cfg.discard_cycles - 1;
            } else {
                n.clr_cnt = c.clr_cnt - 1;
            }
        }
        let expiry = c.link == LINK_UP && c.llrt_cnt == 0;
        if c.link == LINK_UP {
            n.llrt_cnt = if expiry { cfg.llrt_cycles - 1 } else { c.llrt_cnt - 1 };
        }
        if got(OP_ACK) {
            n.noack = 0;
        } else if expiry {
            if c.noack == 3 {
                n.noack = 0;
                retrain_req = true;
            } else {
                n.noack = c.noack + 1;
            }
        }
        // Progress is seen one cycle after the acknowledged point moved.
        n.progressed_q = progressed;
        n.ack_prog = if expiry { c.progressed_q } else { c.ack_prog || c.progressed_q };
        if expiry {
            n.p_ack = true;
            if c.send_seq != c.ack_seq && !c.ack_prog && !c.progressed_q && !c.tx_stop {
                if c.stall == 2 {
                    n.stall = 0;
                    n.epoch = c.epoch.wrapping_add(1);
                    n.tx_stop = true;
                    n.p_clr = true;
                    n.clr_cnt = cfg.discard_cycles - 1;
                    inc[C_TIMER_RTX] = true;
                } else {
                    n.stall = c.stall + 1;
                }
            } else {
                n.stall = 0;
            }
        }
        if got(OP_INIT_ACK) && c.link == LINK_INIT {
            n.llrt_cnt = cfg.llrt_cycles - 1;
            n.noack = 0;
            n.stall = 0;
            n.ack_prog = false;
        }

        // ---------------- TX write side (s_axis into the retry buffer) ----------------
        let s_ready = self.s_ready(i.s_user);
        let s_fire = i.s_valid && s_ready;
        let mut tx_write: Option<(u32, Word)> = None;
        if s_fire {
            let vc = i.s_user;
            let wlast = i.s_last || c.wr_beat == mb - 1;
            tx_write = Some(((c.head_slot << cfg.beat_bits()) | c.wr_beat, Word { data: i.s_data.clone(), last: wlast, vc: 0 }));
            if !c.wr_act {
                n.consumed[vc as usize] = c.consumed[vc as usize].wrapping_add(1);
            }
            if wlast {
                n.wr_act = false;
                n.wr_beat = 0;
                n.head_seq = c.head_seq.wrapping_add(1);
                n.head_slot = self.slot_add(c.head_slot, 1);
            } else {
                n.wr_act = true;
                n.wr_beat = c.wr_beat + 1;
            }
        }
        n.head_vis = c.head_seq;

        // ---------------- TX send side (link output) ----------------
        // An EE packet counts as transmitted when the PHY takes its last beat
        // (m_axis_link_tvalid is the output register's valid while phy_up is high).
        let taken = c.lk_valid && i.ltx_ready && i.phy_up;
        let ee_done = taken && c.lk_last && !c.lk_user;
        if ee_done {
            if c.lk_new {
                inc[C_SENT] = true;
                n.sent_max = c.sent_max.wrapping_add(1);
            } else {
                inc[C_RESENT] = true;
            }
        }
        let sent_now = n.sent_max;
        // Nothing is loaded while phy_up is low (the link goes down with this edge).
        let load = i.phy_up && (!c.lk_valid || i.ltx_ready);
        let finish_ee = |n: &mut Regs| {
            n.send_seq = c.send_seq.wrapping_add(1);
            n.send_slot = self.slot_add(c.send_slot, 1);
            n.send_beat = 0;
            n.snd_ee = false;
            n.lk_new = c.send_seq == sent_now;
        };
        if load {
            if c.snd_ll {
                n.lk_valid = true;
                n.lk_data = c.ll_buf[..d].to_vec();
                n.lk_user = true;
                let l = c.ll_beat == llb - 1;
                n.lk_last = l;
                let mut rest = c.ll_buf[d..].to_vec();
                rest.extend(std::iter::repeat_n(0u8, d));
                n.ll_buf = rest;
                if l {
                    n.snd_ll = false;
                    n.ll_beat = 0;
                } else {
                    n.ll_beat = c.ll_beat + 1;
                }
            } else if c.snd_ee {
                n.lk_valid = true;
                n.lk_data = c.tx_q.data.clone();
                n.lk_user = false;
                n.lk_last = c.tx_q.last;
                if c.tx_q.last {
                    finish_ee(&mut n);
                } else {
                    n.send_beat = c.send_beat + 1;
                }
            } else if c.p_iack || c.p_fc || c.p_init || c.p_exit || c.p_disc || c.p_clr || c.p_ack {
                let op = if c.p_iack {
                    n.p_iack = false;
                    OP_INIT_ACK
                } else if c.p_fc {
                    n.p_fc = false;
                    OP_FC
                } else if c.p_init {
                    n.p_init = false;
                    inc[C_INIT_SENT] = true;
                    OP_INIT
                } else if c.p_exit {
                    n.p_exit = false;
                    inc[C_EXIT_SENT] = true;
                    OP_EXIT
                } else if c.p_disc {
                    n.p_disc = false;
                    inc[C_DISC_SENT] = true;
                    if c.dsc >= cfg.discard_limit {
                        n.dsc = 0;
                        retrain_req = true;
                    } else {
                        n.dsc = c.dsc + 1;
                    }
                    OP_DISCARD
                } else if c.p_clr {
                    n.p_clr = false;
                    inc[C_CLEAR_SENT] = true;
                    OP_CLEAR
                } else {
                    n.p_ack = false;
                    inc[C_ACK_SENT] = true;
                    OP_ACK
                };
                let mut freed = [0u8; 4];
                freed[..cfg.vcs as usize].copy_from_slice(&c.freed[..cfg.vcs as usize]);
                let echo = match op {
                    OP_INIT_ACK => c.iack_echo,
                    OP_FC => c.fc_echo,
                    OP_EXIT => c.exit_echo,
                    _ => 0,
                };
                let bytes = LlPacket { op, tseq: c.send_seq, rseq: c.rseq, freed, epoch: c.epoch, echo, tx_en: c.tx_en }.encode();
                n.lk_valid = true;
                n.lk_data = bytes[..d].to_vec();
                n.lk_user = true;
                n.lk_last = false;
                n.snd_ll = true;
                n.ll_beat = 1;
                n.ll_buf = bytes[d..].to_vec();
            } else if c.rewind {
                // The rewind waits out a cycle in which a link-local packet may move the
                // acknowledged point, so it reads the acknowledged point of the registers.
                n.lk_valid = false;
                if !c.llg {
                    n.rewind = false;
                    n.send_seq = c.ack_seq;
                    n.send_slot = c.ack_slot;
                    n.send_beat = 0;
                }
            } else if c.link == LINK_UP && c.tx_en && !c.tx_stop && c.send_seq != c.head_vis {
                n.lk_valid = true;
                n.lk_data = c.tx_q.data.clone();
                n.lk_user = false;
                n.lk_last = c.tx_q.last;
                if c.tx_q.last {
                    finish_ee(&mut n);
                } else {
                    n.snd_ee = true;
                    n.send_beat = 1;
                }
            } else {
                n.lk_valid = false;
            }
        }

        // ---------------- physical layer ----------------
        if c.rx_in.drop {
            n.rx_beat = 0;
            n.rx_bad = false;
            n.rx_wr = c.rx_cm;
        }
        if !i.phy_up {
            n.link = LINK_DOWN;
            n.tx_en = false;
            n.rx_disc = false;
            n.tx_stop = false;
            n.p_init = false;
            n.p_iack = false;
            n.p_fc = false;
            n.p_ack = false;
            n.p_disc = false;
            n.p_clr = false;
            n.p_exit = false;
            n.lk_valid = false;
            n.snd_ll = false;
            n.ll_beat = 0;
            n.snd_ee = false;
            n.send_beat = 0;
            n.rewind = false;
            n.noack = 0;
            n.stall = 0;
            n.dsc = 0;
            if c.link != LINK_DOWN {
                n.epoch = c.epoch.wrapping_add(1);
            }
        } else if c.link == LINK_DOWN {
            n.link = LINK_INIT;
            n.init_cnt = 0;
        }
        if retrain_req {
            inc[C_RETRAIN] = true;
        }
        n.retrain_q = retrain_req;
        n.rx_in = RxIn { valid: i.lrx_valid, data: i.lrx_data.clone(), last: i.lrx_last, user: i.lrx_user, phy_error: i.phy_error, drop: i.phy_error || !i.phy_up };

        // ---------------- RAMs (read-first) and counters ----------------
        n.tx_q = self.tx_ram[((n.send_slot << cfg.beat_bits()) | n.send_beat) as usize].clone();
        n.rx_q = self.rx_ram[(n.rx_rd & rx_mask) as usize].clone();
        if let Some((a, w)) = tx_write {
            self.tx_ram[a as usize] = w;
        }
        if let Some((a, w)) = rx_write {
            self.rx_ram[a as usize] = w;
        }
        let max = cfg.counter_max();
        for (k, &b) in c.inc_q.iter().enumerate() {
            if b && n.counters[k] != max {
                n.counters[k] += 1;
            }
        }
        n.inc_q = inc;
        self.r = n;
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn ll_packet_round_trip_and_ecrc_separation() {
        let p = LlPacket { op: OP_DISCARD, tseq: 0x1234, rseq: 0xFFFE, freed: [1, 2, 3, 4], epoch: 7, echo: 6, tx_en: true };
        let b = p.encode();
        assert_eq!(LlPacket::decode(&b), Some(p));
        // An intact LL packet fails the ECRC check; an intact 16-byte EE packet fails the LL CRC.
        assert_ne!(crc32(&b[..12]), u32::from_le_bytes([b[12], b[13], b[14], b[15]]));
        let ee = with_ecrc(vec![OP_ACK, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(LlPacket::decode(&ee), None);
    }

    /// No error of one or two bits turns an LL packet into a passing EE packet or back: the
    /// syndrome of such an error is never the XOR constant.
    #[test]
    fn no_two_bit_error_crosses_between_ll_and_ee() {
        let syndrome = |bits: &[usize]| {
            let mut m = [0u8; 16];
            for &k in bits {
                m[k / 8] ^= 1 << (k % 8);
            }
            // CRC-32 is affine: the change of the check relation is linear in the error.
            let lin = !crc32_step(0xFFFF_FFFF, &m[..12]) ^ !crc32_step(0xFFFF_FFFF, &[0u8; 12]);
            lin ^ u32::from_le_bytes([m[12], m[13], m[14], m[15]])
        };
        for a in 0..128 {
            assert_ne!(syndrome(&[a]), LL_CRC_XOR, "bit {a}");
            assert_ne!(syndrome(&[a]), 0, "bit {a}");
            for b in a + 1..128 {
                assert_ne!(syndrome(&[a, b]), LL_CRC_XOR, "bits {a} {b}");
            }
        }
    }
}
