//! One lane's transmitter (§4.A, §4.C, Fig. 4): the six-state controller, the retransmission
//! buffer of 2^n frames, the flow-control frame insertion, the scrambler and the encoder.
//!
//! Cycle behaviour (the RTL module `<prefix><name>_tx` is the same machine). Everything advances
//! only on a clock edge with `en` (the transceiver takes a frame, `tx_ready`) and holds otherwise.
//!
//! * The state is a priority function of the flags, evaluated every slot (Fig. 4):
//!   Init while the buffer fill runs; else Send Pause while the local RX is out of sync; else
//!   Pause while the far end requests a pause; else Retrans while a retransmit request is
//!   flagged or a procedure is under way (the counter is not 0); else Send Retrans while the
//!   local RX has a frame error; else Normal. A procedure interrupted by a higher-priority state
//!   resumes where it stopped.
//! * Stage 1 (decision, registered `s1_*`): Init writes an invalid frame (meta 00) into buffer
//!   entry `init_cnt` and sends a Pause Request; Send Pause sends Pause Requests; Pause sends
//!   Idles; Retrans runs the counter `r` over 0..2.5·2^n−1 (§4.C): at r = 0 it increments
//!   `tx_id`, skipping the oldest entry; for odd r < 2·2^n − 2 it resends buffer entry `tx_id`
//!   and increments `tx_id` (2^n − 1 resends, oldest first, `tx_id` back where it started);
//!   every other slot sends a Retransmit Request if the local RX has a frame error, else an
//!   Idle. The oldest entry is skipped because its ID is the one a receiver that is in step
//!   expects next: should a procedure run while the far end is not in error (a request flag
//!   that outlived the 0.5·2^n idle tail), resending it would be taken as a new frame (a
//!   duplicate); without it every resent frame fails there, and the receiver merely rolls
//!   back and catches up again. Send Retrans sends Retransmit
//!   Requests; Normal sends a new data frame with ID `tx_id`, writes it into buffer entry `tx_id`
//!   and increments `tx_id`. The new frame is, by priority: a flow-control pause (the local
//!   flow-control buffer is above ON and the far end was not told) or resume (below OFF after a
//!   pause); the user segment (when the top hands one: `seg_take`); else a filler. User data
//!   waits while the far end has paused us (flow control).
//! * Stage 2 (`tx_frame`): the stage-1 frame's raw region (or the buffer's read data for a
//!   resend) is scrambled and encoded with the stage-1 frame ID. (The RTL reads the buffer one
//!   slot ahead, into a register stage 1 takes the resent entry from; the slot before a resend
//!   is Retrans, Send Pause or Pause and writes nothing, so the entry read is the same.) Control frames carry `tx_id` at
//!   their decision, so they verify at a receiver that is in step.
//!
//! Latency: a decision reaches `tx_frame` two enabled edges later. After reset `tx_frame` is
//! all zeros (an illegal SYN: the far end starts out of sync anyway).

use crate::bits::Bits;
use super::codec::{Codec, Ctrl, FC_PAUSE, FC_RESUME, META_INVALID, SYN_CTRL, SYN_DATA};
use super::params::Params;
use super::scrambler::Scrambler;

/// The six TX states, numbered as the RTL's `state` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxState {
    Init = 0,
    SendPause = 1,
    Pause = 2,
    Retrans = 3,
    SendRetrans = 4,
    Normal = 5,
}

impl TxState {
    pub fn from_code(c: u64) -> Option<TxState> {
        use TxState::*;
        [Init, SendPause, Pause, Retrans, SendRetrans, Normal].into_iter().find(|s| *s as u64 == c)
    }
    /// Data transfer (incl. recovery by retransmission), as opposed to bring-up and pauses.
    pub fn transferring(self) -> bool {
        matches!(self, TxState::Normal | TxState::Retrans | TxState::SendRetrans)
    }
}

/// The TX lane's inputs in one cycle.
#[derive(Debug, Clone)]
pub struct TxIn<'a> {
    /// The transceiver takes `tx_frame` at this edge.
    pub en: bool,
    /// Flags of the local receiver (registered there).
    pub out_of_sync: bool,
    pub pause_req: bool,
    pub retrans_req: bool,
    pub frame_error: bool,
    /// The far end sent a flow-control pause (and no resume since).
    pub remote_fc: bool,
    /// The local flow-control buffer is above ON / below OFF.
    pub fc_high: bool,
    pub fc_low: bool,
    /// The top hands the user segment `seg_raw` to this lane at this edge (implies `en`).
    pub seg_take: bool,
    pub seg_raw: &'a Bits,
}

/// Combinational outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxComb {
    pub state: TxState,
    /// This lane would send a user segment at this slot.
    pub seg_ready: bool,
    /// A retransmission procedure (of 2.5·2^n frames) starts at this edge.
    pub retrans_start: bool,
    /// The lane leaves data transfer for Send Pause or Pause at this edge.
    pub pause_event: bool,
}

#[derive(Debug, Clone)]
pub struct TxLane {
    codec: Codec,
    /// Buffer fill counter 0..=2^n; Init while < 2^n.
    pub init_cnt: u32,
    pub tx_id: u32,
    /// Retransmission procedure counter, 0 when none is under way.
    pub rcnt: u32,
    /// The far end was sent a flow-control pause and no resume yet.
    pub fc_asked: bool,
    /// The previous enabled slot's state was a transferring one.
    pub prev_transfer: bool,
    // Stage 1.
    pub s1_resend: bool,
    pub s1_ctrl: bool,
    pub s1_raw: Bits,
    pub s1_id: u32,
    /// The buffer's registered read data (a resend's raw region).
    pub rbuf: Bits,
    pub mem: Vec<Bits>,
    pub scr: Scrambler,
    /// The output register.
    pub frame: Bits,
}

impl TxLane {
    pub fn new(p: Params) -> Self {
        let codec = Codec::new(p);
        let s1_raw = codec.control_raw(Ctrl::PauseRequest);
        TxLane {
            init_cnt: 0,
            tx_id: 0,
            rcnt: 0,
            fc_asked: false,
            prev_transfer: false,
            s1_resend: false,
            s1_ctrl: true,
            s1_raw,
            s1_id: 0,
            rbuf: Bits::zeros(p.raw_bits()),
            mem: vec![Bits::zeros(p.raw_bits()); p.ids() as usize],
            scr: Scrambler::new(),
            frame: Bits::zeros(p.frame_width()),
            codec,
        }
    }

    pub fn params(&self) -> &Params {
        &self.codec.p
    }

    pub fn init_done(&self) -> bool {
        self.init_cnt >= self.codec.p.ids()
    }

    /// The Fig. 4 priority function.
    pub fn state(&self, i: &TxIn) -> TxState {
        if !self.init_done() {
            TxState::Init
        } else if i.out_of_sync {
            TxState::SendPause
        } else if i.pause_req {
            TxState::Pause
        } else if i.retrans_req || self.rcnt != 0 {
            TxState::Retrans
        } else if i.frame_error {
            TxState::SendRetrans
        } else {
            TxState::Normal
        }
    }

    fn fc_need(&self, i: &TxIn) -> Option<u8> {
        if i.fc_high && !self.fc_asked {
            Some(FC_PAUSE)
        } else if i.fc_low && self.fc_asked {
            Some(FC_RESUME)
        } else {
            None
        }
    }

    pub fn comb(&self, i: &TxIn) -> TxComb {
        let state = self.state(i);
        let seg_ready = state == TxState::Normal && !i.remote_fc && self.fc_need(i).is_none();
        TxComb {
            state,
            seg_ready,
            retrans_start: i.en && state == TxState::Retrans && self.rcnt == 0,
            pause_event: i.en && matches!(state, TxState::SendPause | TxState::Pause) && self.prev_transfer,
        }
    }

    fn control(&mut self, c: Ctrl) {
        self.s1_resend = false;
        self.s1_ctrl = true;
        self.s1_raw = self.codec.control_raw(c);
        self.s1_id = self.tx_id;
    }

    pub fn tick(&mut self, i: &TxIn) {
        if !i.en {
            return;
        }
        let p = self.codec.p;
        let state = self.state(i);
        // Stage 2: encode the decided frame.
        let raw = if self.s1_resend { &self.rbuf } else { &self.s1_raw };
        let unscrambled = self.codec.to_line(raw);
        let line = if p.scrambler { self.scr.scramble(&unscrambled) } else { unscrambled };
        self.frame = self.codec.encode(if self.s1_ctrl { SYN_CTRL } else { SYN_DATA }, &line, self.s1_id);
        // Stage 1: decide the next frame.
        let mask = p.id_mask();
        match state {
            TxState::Init => {
                self.mem[(self.init_cnt & mask) as usize] = Bits::zeros(p.raw_bits());
                self.init_cnt += 1;
                self.control(Ctrl::PauseRequest);
            }
            TxState::SendPause => self.control(Ctrl::PauseRequest),
            TxState::Pause => self.control(Ctrl::Idle),
            TxState::SendRetrans => self.control(Ctrl::RetransmitRequest),
            TxState::Retrans => {
                let req = if i.frame_error { Ctrl::RetransmitRequest } else { Ctrl::Idle };
                if self.rcnt == 0 {
                    // Skip the oldest entry: its ID is the one a receiver in step expects next.
                    self.tx_id = (self.tx_id + 1) & mask;
                    self.control(req);
                } else if self.rcnt % 2 == 1 && self.rcnt < 2 * p.ids() - 2 {
                    self.rbuf = self.mem[self.tx_id as usize].clone();
                    self.s1_resend = true;
                    self.s1_ctrl = false;
                    self.s1_id = self.tx_id;
                    self.tx_id = (self.tx_id + 1) & mask;
                } else {
                    self.control(req);
                }
                self.rcnt = if self.rcnt + 1 == p.retrans_frames() { 0 } else { self.rcnt + 1 };
            }
            TxState::Normal => {
                let raw = match self.fc_need(i) {
                    Some(code) => {
                        self.fc_asked = code == FC_PAUSE;
                        self.codec.raw_with_last_byte(META_INVALID, code)
                    }
                    None if i.seg_take => i.seg_raw.clone(),
                    None => Bits::zeros(p.raw_bits()),
                };
                self.mem[self.tx_id as usize] = raw.clone();
                self.s1_resend = false;
                self.s1_ctrl = false;
                self.s1_raw = raw;
                self.s1_id = self.tx_id;
                self.tx_id = (self.tx_id + 1) & mask;
            }
        }
        self.prev_transfer = state.transferring();
    }
}
