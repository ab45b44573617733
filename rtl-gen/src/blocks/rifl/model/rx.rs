//! One lane's receiver (§4.B, §4.C, Listing 1): verification, the frame ID and threshold
//! counters, the control event monitor, out-of-sync detection and the flow-control detector.
//!
//! Cycle behaviour (the RTL module `<prefix><name>_rx`): a frame taken at a clock edge with
//! `in_valid` (its CRC and descrambling registered: stage 1) is processed at the next edge
//! (stage 2); every output is a register, two edges after the frame.
//!
//! * Verification (Listing 1, the text's order: compare, then increment): the frame is *ok*
//!   when its SYN is legal and its verification code equals `CRC12 ^ frame_id`. An ok data
//!   frame is accepted when `frame_id == threshold` (then `threshold += 1`), and `frame_id += 1`
//!   either way (reset: both 0; see below); the frame error flag clears when `frame_id` then equals `threshold` (on an
//!   accepted frame, as in Listing 1, and also when the rolled-back count catches up with the
//!   threshold, as the authors' RTL does: the sender may have nothing newer to resend, e.g. when
//!   the error hit a control frame); an ok control frame changes nothing; a frame
//!   that is not ok rolls `frame_id` back to `threshold − retrans_threshold` and raises the
//!   frame error flag. Frames that arrive while the lane is out of sync are not verified at
//!   all (bring-up garbage loses no frame; after a loss of sync the illegal-SYN frame itself,
//!   seen in sync, has already rolled back and raised the flag). All counters are modulo 2^n; reset: `frame_id = 0`,
//!   `threshold = retrans_threshold`.
//! * An accepted frame with meta ≠ 00 is delivered (`out_valid` with its descrambled raw
//!   region) to the flow-control buffer; a meta-00 one with last byte 01/02 sets/clears
//!   `remote_fc` (the far end's flow-control pause).
//! * Out of sync: set by an illegal SYN (00/11), which also clears the control monitor; cleared
//!   after `control_repeat` consecutive legal SYNs. Set at reset.
//! * Control event monitor, over frames with a legal SYN (no verification needed: the repeat
//!   count is the protection, §4.B): the Pause flag is raised when the last `control_repeat`
//!   control frames were all Pause Requests (data frames in between do not count), and
//!   lowered after `control_repeat` consecutive frames (data or control) that are not Pause
//!   Requests; the same for Retransmit Requests and the Retransmit flag.
//! * `err_pulse`: a frame failed verification while the lane was in step (frame error flag
//!   clear): a detected error that starts a recovery (the status counter).
//!
//! The descrambler consumes every received frame, legal or not.

use crate::bits::Bits;
use super::codec::{Codec, Ctrl, FC_PAUSE, FC_RESUME, META_INVALID, SYN_CTRL, SYN_DATA};
use super::params::Params;
use super::scrambler::Descrambler;

#[derive(Debug, Clone)]
pub struct RxLane {
    codec: Codec,
    pub frame_id: u32,
    pub threshold: u32,
    pub frame_error: bool,
    pub out_of_sync: bool,
    pub sync_cnt: u32,
    pub pause_cnt: u32,
    pub retr_cnt: u32,
    pub pause_quiet: u32,
    pub retr_quiet: u32,
    pub pause_req: bool,
    pub retrans_req: bool,
    pub remote_fc: bool,
    pub desc: Descrambler,
    pub out_valid: bool,
    pub out_raw: Bits,
    pub err_pulse: bool,
    /// The frame in stage 1 (taken at the last edge, processed at the next), if any.
    stage1: Option<Bits>,
    /// Statistics (not in the RTL): data frames accepted, frames failing verification.
    pub accepted: u64,
    pub failed: u64,
}

impl RxLane {
    pub fn new(p: Params) -> Self {
        RxLane {
            frame_id: 0,
            threshold: 0,
            frame_error: false,
            out_of_sync: true,
            sync_cnt: 0,
            pause_cnt: 0,
            retr_cnt: 0,
            pause_quiet: 0,
            retr_quiet: 0,
            pause_req: false,
            retrans_req: false,
            remote_fc: false,
            desc: Descrambler::new(),
            out_valid: false,
            out_raw: Bits::zeros(p.raw_bits()),
            err_pulse: false,
            stage1: None,
            accepted: 0,
            failed: 0,
            codec: Codec::new(p),
        }
    }

    pub fn params(&self) -> &Params {
        &self.codec.p
    }

    /// A clock edge: the frame in stage 1 is processed, and `frame` (with `valid`) enters it.
    pub fn tick(&mut self, valid: bool, frame: &Bits) {
        let taken = if valid { Some(frame.clone()) } else { None };
        match std::mem::replace(&mut self.stage1, taken) {
            Some(f) => self.process(&f),
            None => {
                self.out_valid = false;
                self.err_pulse = false;
            }
        }
    }

    /// Stage 2 on one frame: the check against frame_id, Listing 1 and the monitors. The
    /// descrambler advances here too: it sees the frames in their order, as stage 1 does.
    fn process(&mut self, frame: &Bits) {
        self.out_valid = false;
        self.err_pulse = false;
        let p = self.codec.p;
        let r = p.control_repeat;
        let mask = p.id_mask();
        let chk = self.codec.check(frame, self.frame_id);
        let line = if p.scrambler { self.desc.descramble(&chk.line) } else { chk.line.clone() };
        let raw = self.codec.from_line(&line);
        // The RTL loads the output data register with every frame; out_valid says when it counts.
        self.out_raw = raw.clone();
        if self.out_of_sync {
            // Garbage during bring-up or while the link resynchronises: not verified.
        } else if chk.ok {
            if chk.syn == SYN_DATA {
                if self.frame_id == self.threshold {
                    self.threshold = (self.threshold + 1) & mask;
                    self.accepted += 1;
                    let meta = raw.field(0, 2) as u8;
                    if meta != META_INVALID {
                        self.out_valid = true;
                    } else {
                        match self.codec.last_byte(&raw) {
                            FC_PAUSE => self.remote_fc = true,
                            FC_RESUME => self.remote_fc = false,
                            _ => {}
                        }
                    }
                }
                self.frame_id = (self.frame_id + 1) & mask;
                if self.frame_id == self.threshold {
                    self.frame_error = false;
                }
            }
        } else {
            self.frame_id = self.threshold.wrapping_sub(p.retrans_threshold) & mask;
            // Counted when it starts a recovery; frames failing while rolled back are not new
            // errors (most fail only because their IDs are not the expected ones).
            self.err_pulse = !self.frame_error;
            self.frame_error = true;
            self.failed += 1;
        }
        if !chk.legal {
            self.out_of_sync = true;
            self.sync_cnt = 0;
            self.pause_cnt = 0;
            self.retr_cnt = 0;
            self.pause_quiet = 0;
            self.retr_quiet = 0;
            self.pause_req = false;
            self.retrans_req = false;
            return;
        }
        self.sync_cnt = (self.sync_cnt + 1).min(r);
        if self.sync_cnt == r {
            self.out_of_sync = false;
        }
        let code = if chk.syn == SYN_CTRL { Ctrl::from_code(self.codec.last_byte(&raw)) } else { None };
        let is_pause = code == Some(Ctrl::PauseRequest);
        let is_retr = code == Some(Ctrl::RetransmitRequest);
        if chk.syn == SYN_CTRL {
            self.pause_cnt = if is_pause { (self.pause_cnt + 1).min(r) } else { 0 };
            self.retr_cnt = if is_retr { (self.retr_cnt + 1).min(r) } else { 0 };
        }
        self.pause_quiet = if is_pause { 0 } else { (self.pause_quiet + 1).min(r) };
        self.retr_quiet = if is_retr { 0 } else { (self.retr_quiet + 1).min(r) };
        if is_pause && self.pause_cnt == r {
            self.pause_req = true;
        } else if self.pause_quiet == r {
            self.pause_req = false;
        }
        if is_retr && self.retr_cnt == r {
            self.retrans_req = true;
        } else if self.retr_quiet == r {
            self.retrans_req = false;
        }
    }
}
