//! Cycle-accurate reference model of the `rxl_endpoint` module (both modes).
//!
//! Every output depends on registers only, so a link of several endpoints and switches is
//! simulated by reading every node's outputs, moving flits through the channels, applying the
//! inputs and clocking every node.
//!
//! ## Registers and what happens at each clock edge (from the values before it)
//!
//! **TX.** `s_*` push payloads into the replay buffer (depth `replay_depth`, 10-bit sequence
//! numbers). The flit register `t1` (valid + the 250-byte message: header, payload, CRC) drives
//! `tx_valid` and, through the FEC encoder, `tx_flit`. It loads when `tx_ready || !tx_valid`:
//! - the replay buffer's output entry if it has one (a payload flit, type 1, its sequence number
//!   SeqNum; the buffer's output is taken), else an idle/control flit (type 0, no payload);
//! - ReplayCmd: 2 (NACK) if a NACK is pending, else 1 (ACK) if an ACK is due, else 0. In
//!   `rxl` a pending NACK always goes out in a control flit of its own (the payload waits a
//!   cycle): piggybacked, its CRC would be checked against the peer's ESeqNum, which a peer
//!   recovering from an error in its own direction cannot do, so the NACK would be lost. In
//!   `cxl_baseline` the first payload flit after a replay never piggybacks (it carries its
//!   SeqNum explicitly so the receiver can resynchronise), the command waits one flit;
//! - FSN: AckNum = ESeqNum − 1 (the last good SeqNum received) when ReplayCmd ≠ 0; otherwise
//!   `rxl`: 0, `cxl_baseline`: SeqNum on payload flits, 0 on idle flits;
//! - CRC over header + payload with, in `rxl` mode on payload flits, SeqNum folded into
//!   bits [9:0] (ISN); idle/control flits and every `cxl_baseline` flit use 0.
//!
//! **RX.** The FEC-decoded message of `rx_flit` with the decoder's flags travels through
//! [`RX_STAGES`] registers (the FEC decoder's stages, the CRC register, the check register: a
//! pure delay here, the model decodes it on entry); the decision takes the oldest:
//! - the CRC is checked with ESeqNum if the header says payload and the mode is `rxl`, else 0;
//!   good = valid, FEC-correctable and CRC ok;
//! - `rxl`: a good payload flit is delivered (its CRC proved SeqNum = ESeqNum) and ESeqNum
//!   advances; any bad flit (corrupted, or the successor of a silently dropped flit) starts
//!   discarding: every flit is dropped until the expected one passes, and a NACK is scheduled;
//! - `cxl_baseline`: a good payload flit with ReplayCmd = 0 is delivered if FSN = ESeqNum, else
//!   it is a sequence error (discard + NACK); one with ReplayCmd ≠ 0 carries an AckNum instead
//!   of its SeqNum and is delivered unchecked unless discarding — the weakness of Fig. 4;
//! - a good flit's ReplayCmd/FSN (ACK or NACK of our own transmissions) goes to the `ctl`
//!   register and, one cycle later, to the replay buffer, which judges it the cycle after: ACK
//!   frees up to FSN, NACK frees up to FSN and replays from FSN + 1 (a replay is counted, and
//!   in `cxl_baseline` marks the next payload flit, when the buffer takes it);
//! - delivered payloads appear on `m_valid`/`m_payload` the next cycle.
//!
//! ACK coalescing: an ACK is due once `ack_every` flits were delivered since the last ACK or
//! NACK sent, or when at least one was and `ack_timeout` cycles passed. While discarding, the
//! NACK is sent again every `nack_timeout` cycles (a lost NACK, or a lost first flit of the
//! replay). The sender replays from the oldest unacknowledged flit after `replay_timeout`
//! cycles without any ACK/NACK while the buffer holds flits (a lost last flit).
//!
//! Counters saturate at 2^counter_bits − 1.

use super::flit::{self, Decoded, FlitCodec, Flit, Header, Msg, Payload, CMD_ACK, CMD_NACK, CMD_NONE, SEQ_MASK, TYPE_IDLE, TYPE_PAYLOAD};
use super::RX_STAGES;
use crate::blocks::replay_buffer::model::{RbInputs, ReplayBufferModel};
use std::collections::VecDeque;

/// Sequence-tracking mode (the design file's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Implicit sequence numbers: FSN carries only AckNums, SeqNum is folded into the CRC.
    Rxl,
    /// CXL 3.0: FSN carries SeqNum or AckNum; the CRC has no sequence number.
    CxlBaseline,
}

/// The parameters of an endpoint (the `rxl_endpoint` block's fields).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EndpointConfig {
    pub mode: Mode,
    pub crc: flit::CrcChoice,
    pub fec: flit::FecChoice,
    pub replay_depth: u32,
    pub ack_every: u32,
    pub ack_timeout: u32,
    pub nack_timeout: u32,
    pub replay_timeout: u32,
    pub counter_bits: u32,
}

impl Default for EndpointConfig {
    fn default() -> Self {
        EndpointConfig {
            mode: Mode::Rxl,
            crc: flit::CrcChoice::RsCrc,
            fec: flit::FecChoice::Pcie6,
            replay_depth: 256,
            ack_every: 10,
            ack_timeout: 64,
            nack_timeout: 512,
            replay_timeout: 1024,
            counter_bits: 32,
        }
    }
}

/// Inputs during one cycle.
#[derive(Debug, Clone)]
pub struct EpInputs {
    pub s_valid: bool,
    pub s_payload: Payload,
    pub tx_ready: bool,
    pub rx_valid: bool,
    pub rx_flit: Flit,
}

impl Default for EpInputs {
    fn default() -> Self {
        EpInputs { s_valid: false, s_payload: [0; flit::PAYLOAD_BYTES], tx_ready: true, rx_valid: false, rx_flit: [0; flit::FLIT_BYTES] }
    }
}

/// The saturating status counters, in port order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub flits_sent: u64,
    pub replays: u64,
    pub crc_fail: u64,
    pub fec_corrected: u64,
    pub fec_uncorrectable: u64,
    pub nacks_sent: u64,
}

impl Counters {
    pub const PORTS: [&'static str; 6] = ["cnt_flits_sent", "cnt_replays", "cnt_crc_fail", "cnt_fec_corrected", "cnt_fec_uncorrectable", "cnt_nacks_sent"];

    pub fn values(&self) -> [u64; 6] {
        [self.flits_sent, self.replays, self.crc_fail, self.fec_corrected, self.fec_uncorrectable, self.nacks_sent]
    }
}

/// Outputs during a cycle.
#[derive(Debug, Clone)]
pub struct EpOutputs {
    pub s_ready: bool,
    pub tx_valid: bool,
    pub tx_flit: Flit,
    pub m_valid: bool,
    pub m_payload: Payload,
    pub counters: Counters,
}

#[derive(Debug, Clone)]
pub struct EndpointModel {
    cfg: EndpointConfig,
    codec: FlitCodec,
    rb: ReplayBufferModel,
    // TX
    t1_valid: bool,
    t1_msg: Msg,
    tx_flit: Flit,
    replay_start: bool,
    /// The replay request given to the buffer last cycle: the buffer judges it this cycle.
    replay_req: (bool, u32),
    ctl_valid: bool,
    ctl_cmd: u8,
    ctl_fsn: u32,
    stall_timer: u32,
    // RX
    /// The receive stages, the flit the decision takes first; `None` where no flit was received.
    rx_pipe: VecDeque<Option<Decoded>>,
    eseq: u32,
    discard: bool,
    nack_pending: bool,
    since_ack: u32,
    ack_timer: u32,
    nack_timer: u32,
    m_valid: bool,
    m_payload: Payload,
    counters: Counters,
}

fn sat(v: u64, bits: u32) -> u64 {
    let max = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    (v + 1).min(max)
}

impl EndpointModel {
    pub fn new(cfg: EndpointConfig) -> EndpointModel {
        let codec = FlitCodec::new(cfg.crc, cfg.fec);
        EndpointModel::with_codec(cfg, codec)
    }

    /// With a codec built once and shared (building one probes the models: ~50 ms).
    pub fn with_codec(cfg: EndpointConfig, codec: FlitCodec) -> EndpointModel {
        assert_eq!((codec.crc_choice, codec.fec_choice), (cfg.crc, cfg.fec), "codec of another configuration");
        let rb = ReplayBufferModel::new(8 * flit::PAYLOAD_BYTES as u32, flit::SEQ_BITS, cfg.replay_depth);
        let zero_msg = [0u8; flit::MSG_BYTES];
        let tx_flit = codec.encode(&zero_msg);
        EndpointModel {
            cfg,
            rb,
            t1_valid: false,
            t1_msg: zero_msg,
            tx_flit,
            replay_start: false,
            replay_req: (false, 0),
            ctl_valid: false,
            ctl_cmd: 0,
            ctl_fsn: 0,
            stall_timer: 0,
            rx_pipe: (0..RX_STAGES).map(|_| None).collect(),
            eseq: 0,
            discard: false,
            nack_pending: false,
            since_ack: 0,
            ack_timer: 0,
            nack_timer: 0,
            m_valid: false,
            m_payload: [0; flit::PAYLOAD_BYTES],
            counters: Counters::default(),
            codec,
        }
    }

    pub fn config(&self) -> &EndpointConfig {
        &self.cfg
    }

    pub fn codec(&self) -> &FlitCodec {
        &self.codec
    }

    /// Synchronous reset: every register except the RAMs and pure data registers (the receive
    /// stages' valid flags are cleared, so their data is never looked at again).
    pub fn reset(&mut self) {
        let fresh = EndpointModel::with_codec(self.cfg.clone(), self.codec.clone());
        let (rb_ram, t1_msg, tx_flit, m_payload) = (self.rb.clone(), self.t1_msg, self.tx_flit, self.m_payload);
        *self = fresh;
        self.rb = rb_ram;
        self.rb.reset();
        self.t1_msg = t1_msg;
        self.tx_flit = tx_flit;
        self.m_payload = m_payload;
    }

    pub fn outputs(&self) -> EpOutputs {
        EpOutputs {
            s_ready: self.rb.outputs().push_ready,
            tx_valid: self.t1_valid,
            tx_flit: self.tx_flit,
            m_valid: self.m_valid,
            m_payload: self.m_payload,
            counters: self.counters,
        }
    }

    /// ESeqNum: the sequence number the receiver expects next.
    pub fn eseq(&self) -> u32 {
        self.eseq
    }

    /// Whether the receiver is discarding flits while waiting for a replay.
    pub fn discarding(&self) -> bool {
        self.discard
    }

    /// Entries held by the replay buffer.
    pub fn replay_count(&self) -> u32 {
        self.rb.outputs().count
    }

    fn ack_due(&self) -> bool {
        self.since_ack >= self.cfg.ack_every || (self.since_ack > 0 && self.ack_timer >= self.cfg.ack_timeout)
    }

    /// One rising clock edge with `inp` applied during the cycle before it.
    pub fn tick(&mut self, inp: &EpInputs) {
        let cfg = &self.cfg;
        let rxl = cfg.mode == Mode::Rxl;
        let bits = cfg.counter_bits;
        let rbo = self.rb.outputs();

        // ---- RX decision on the oldest receive stage ----
        let zero_msg = [0u8; flit::MSG_BYTES];
        let d_valid = self.rx_pipe[0].is_some();
        let (msg, corrected, uncorrectable) = self.rx_pipe[0].as_ref().map_or((&zero_msg, false, false), |d| (&d.msg, d.corrected, d.uncorrectable));
        let h = Header::of(msg);
        let is_payload = h.ftype == TYPE_PAYLOAD;
        let chk_seq = if rxl && is_payload { self.eseq } else { 0 };
        let crc_ok = d_valid && self.codec.check(msg, chk_seq);
        let good = d_valid && !uncorrectable && crc_ok;
        let bad = d_valid && !good;
        let (deliver, seq_error) = if rxl {
            (good && is_payload, false)
        } else if good && is_payload && h.cmd == CMD_NONE {
            (h.fsn == self.eseq, h.fsn != self.eseq)
        } else {
            (good && is_payload && !self.discard, false)
        };
        let trigger_nack = (bad || seq_error) && !self.discard;
        let renack = self.discard && !deliver && self.nack_timer + 1 >= cfg.nack_timeout;
        let nack_timer_n = if !self.discard || deliver || renack { 0 } else { self.nack_timer + 1 };
        let discard_n = if deliver { false } else { self.discard || trigger_nack };
        let ctl_n = (good && (h.cmd == CMD_ACK || h.cmd == CMD_NACK), h.cmd, h.fsn);

        // ---- TX: replay-buffer control from the ctl register and the replay timer ----
        let head = rbo.push_seq.wrapping_sub(rbo.count) & SEQ_MASK;
        let ctl_ack = self.ctl_valid && (self.ctl_cmd == CMD_ACK || self.ctl_cmd == CMD_NACK);
        let ctl_nack = self.ctl_valid && self.ctl_cmd == CMD_NACK;
        let timeout = !ctl_ack && rbo.count > 0 && self.stall_timer + 1 >= cfg.replay_timeout;
        let replay_seq = if ctl_nack { (self.ctl_fsn + 1) & SEQ_MASK } else { head };
        let replay_valid = ctl_nack || timeout;
        // The buffer judges a replay the cycle after it is requested, against that cycle's window.
        let (req_valid, req_seq) = self.replay_req;
        let replay_taken = req_valid && (req_seq.wrapping_sub(head) & SEQ_MASK) <= rbo.count;
        let stall_timer_n = if ctl_ack || timeout || rbo.count == 0 { 0 } else { self.stall_timer + 1 };

        // ---- TX: load the flit register ----
        let load = inp.tx_ready || !self.t1_valid;
        // rxl: a NACK always travels in a control flit of its own. Piggybacked on a payload flit
        // it would be checked against the peer's ESeqNum, and a peer that is itself discarding
        // (recovering its own direction) could not read it.
        let nack_flit = rxl && self.nack_pending;
        let payload = load && rbo.out_valid && !nack_flit;
        let ack_due = self.ack_due();
        let mut cmd = if self.nack_pending {
            CMD_NACK
        } else if ack_due {
            CMD_ACK
        } else {
            CMD_NONE
        };
        if !rxl && payload && self.replay_start {
            cmd = CMD_NONE;
        }
        let ack_sent = load && cmd != CMD_NONE;
        let nack_sent = load && cmd == CMD_NACK;
        if load {
            let seq = rbo.out_seq;
            let fsn = if cmd != CMD_NONE {
                self.eseq.wrapping_sub(1) & SEQ_MASK
            } else if !rxl && payload {
                seq
            } else {
                0
            };
            let header = Header { fsn, cmd, ftype: if payload { TYPE_PAYLOAD } else { TYPE_IDLE } };
            let crc_seq = if rxl && payload { seq } else { 0 };
            self.t1_msg = self.codec.message(header, payload.then(|| self.rb.out_data()), crc_seq);
            self.tx_flit = self.codec.encode(&self.t1_msg);
        }
        let flit_sent = self.t1_valid && inp.tx_ready;
        self.t1_valid = self.t1_valid || load;

        // ---- ACK/NACK bookkeeping ----
        let since_n = if ack_sent { deliver as u32 } else { (self.since_ack + deliver as u32).min(cfg.ack_every) };
        let ack_timer_n = if ack_sent || since_n == 0 { 0 } else { (self.ack_timer + 1).min(cfg.ack_timeout) };
        let nack_pending_n = trigger_nack || renack || (self.nack_pending && !nack_sent && !deliver);
        let replay_start_n = if replay_taken {
            true
        } else if payload {
            false
        } else {
            self.replay_start
        };

        // ---- counters ----
        let c = &mut self.counters;
        if flit_sent {
            c.flits_sent = sat(c.flits_sent, bits);
        }
        if replay_taken {
            c.replays = sat(c.replays, bits);
        }
        if d_valid && !crc_ok {
            c.crc_fail = sat(c.crc_fail, bits);
        }
        if d_valid && corrected {
            c.fec_corrected = sat(c.fec_corrected, bits);
        }
        if d_valid && uncorrectable {
            c.fec_uncorrectable = sat(c.fec_uncorrectable, bits);
        }
        if nack_sent {
            c.nacks_sent = sat(c.nacks_sent, bits);
        }

        // ---- delivery register ----
        self.m_valid = deliver;
        if deliver {
            self.m_payload.copy_from_slice(&msg[flit::HEADER_BYTES..flit::CRC_DATA_BYTES]);
        }

        // ---- the replay buffer's edge ----
        let rb_in = RbInputs {
            push_valid: inp.s_valid,
            push_data: inp.s_payload.to_vec(),
            ack_valid: ctl_ack,
            ack_seq: self.ctl_fsn,
            replay_valid,
            replay_seq,
            out_ready: payload,
        };
        self.rb.tick(&rb_in);

        // ---- RX: the receive stages advance, the received flit decoded into the first ----
        self.rx_pipe.pop_front();
        self.rx_pipe.push_back(inp.rx_valid.then(|| self.codec.decode(&inp.rx_flit)));

        self.eseq = (self.eseq + deliver as u32) & SEQ_MASK;
        self.discard = discard_n;
        self.nack_timer = nack_timer_n;
        self.nack_pending = nack_pending_n;
        self.since_ack = since_n;
        self.ack_timer = ack_timer_n;
        (self.ctl_valid, self.ctl_cmd, self.ctl_fsn) = ctl_n;
        self.stall_timer = stall_timer_n;
        self.replay_start = replay_start_n;
        self.replay_req = (replay_valid, replay_seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    fn payload(serial: u64) -> Payload {
        let mut p = [0u8; flit::PAYLOAD_BYTES];
        p[..8].copy_from_slice(&serial.to_le_bytes());
        p[100] = serial as u8 ^ 0x5A;
        p
    }

    /// Two endpoints back to back through channels of `delay` cycles, saturating traffic in
    /// both directions for `traffic` cycles, then idle until `cycles`; `tamper(cycle, line)`
    /// may remove A → B flits from the channel right after A's flit of the cycle entered it.
    /// Returns the serials B delivered, in order of delivery, and the number A sent.
    fn link(mode: Mode, cycles: u64, traffic: u64, delay: usize, mut tamper: impl FnMut(u64, &mut VecDeque<Option<Flit>>)) -> (Vec<u64>, u64) {
        let cfg = EndpointConfig { mode, ..EndpointConfig::default() };
        let codec = FlitCodec::new(cfg.crc, cfg.fec);
        let mut ep = [EndpointModel::with_codec(cfg.clone(), codec.clone()), EndpointModel::with_codec(cfg, codec)];
        let mut ch: [VecDeque<Option<Flit>>; 2] = [(0..=delay).map(|_| None).collect(), (0..=delay).map(|_| None).collect()];
        let mut serial = [0u64; 2];
        let mut delivered = vec![];
        for c in 0..cycles {
            let out = [ep[0].outputs(), ep[1].outputs()];
            if out[1].m_valid {
                delivered.push(u64::from_le_bytes(out[1].m_payload[..8].try_into().unwrap()));
            }
            let mut inp = [EpInputs::default(), EpInputs::default()];
            for d in 0..2 {
                inp[d].s_valid = c < traffic;
                inp[d].s_payload = payload(serial[d]);
                serial[d] += (c < traffic && out[d].s_ready) as u64;
                ch[d].push_back(out[d].tx_valid.then_some(out[d].tx_flit));
                if d == 0 {
                    tamper(c, &mut ch[0]);
                }
                if let Some(f) = ch[d].pop_front().flatten() {
                    inp[1 - d].rx_valid = true;
                    inp[1 - d].rx_flit = f;
                }
            }
            ep[0].tick(&inp[0]);
            ep[1].tick(&inp[1]);
        }
        (delivered, serial[0])
    }

    fn serial_of(f: &Flit) -> u64 {
        u64::from_le_bytes(f[2..10].try_into().unwrap())
    }

    /// Fig. 4: the payload flit after a silently dropped one carries an AckNum instead of its
    /// SeqNum. The CXL baseline delivers it out of order; RXL's ISN catches it and replays.
    #[test]
    fn fig4_dropped_flit_before_an_ack_carrying_flit() {
        for mode in [Mode::CxlBaseline, Mode::Rxl] {
            let mut victim = None;
            let (delivered, sent) = link(mode, 4000, 3000, 20, |c, line| {
                let n = line.len();
                let (Some(Some(last)), Some(Some(prev))) = (line.get(n - 1), line.get(n - 2)) else { return };
                let (h, hp) = (Header::of(last), Header::of(prev));
                if victim.is_none() && c > 300 && h.ftype == TYPE_PAYLOAD && h.cmd != CMD_NONE && hp.ftype == TYPE_PAYLOAD {
                    victim = Some(serial_of(prev));
                    line[n - 2] = None;
                }
            });
            let victim = victim.expect("found an ACK-carrying flit");
            let out_of_order = delivered.windows(2).filter(|w| w[1] != w[0] + 1).count();
            match mode {
                Mode::CxlBaseline => {
                    let pos = delivered.iter().position(|&s| s == victim + 1).expect("delivered the successor");
                    assert_eq!(delivered[pos - 1], victim - 1, "cxl_baseline delivers flit {} right after {}, skipping the dropped {victim}", victim + 1, victim - 1);
                    assert!(out_of_order > 0);
                }
                Mode::Rxl => {
                    assert_eq!(out_of_order, 0, "rxl delivered out of order");
                    assert_eq!(delivered, (0..sent).collect::<Vec<_>>(), "rxl delivered everything exactly once, the dropped {victim} included");
                }
            }
        }
    }

    #[test]
    fn every_flit_delivered_once_in_order_despite_drops() {
        let mut n = 0u64;
        let (delivered, sent) = link(Mode::Rxl, 22_000, 20_000, 7, |_, line| {
            n += 1;
            if n.is_multiple_of(97) {
                *line.back_mut().unwrap() = None;
            }
        });
        // About 200 drops, each costing a retry loop (the endpoints' 18 cycles and two 7-cycle
        // channels) of the 20,000 cycles: some 13,000 flits get through.
        assert!(sent > 12_500, "sent {sent}");
        assert_eq!(delivered, (0..sent).collect::<Vec<_>>());
    }
}
