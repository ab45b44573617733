//! The RIFL frame codec (§3): SYN, meta code, payload, format code, control codes, and the
//! verification code `CRC12(meta, payload) ^ frame ID`.
//!
//! Frame layout, MSB → LSB (F = frame_bits, P = F − 16), transmitted LSB first (bit 0 is the
//! first bit on the wire): the fields in the order the paper lists them, SYN first, then the
//! payload, the meta code and the verification code.
//!
//! ```text
//! [F-1  : F-12]  vcode    verification code = CRC12(msg) ^ {0, frame_id}
//! [F-13 : F-14]  meta     meta code (Table 1)                             (scrambled on the line)
//! [F-15 : 2]     payload  P bits; payload byte i at frame[8i+9 : 8i+2]   (scrambled on the line)
//! [1    : 0]     syn      2'b01 data frame, 2'b10 control frame, 00/11 illegal (never scrambled)
//! ```
//!
//! The *line* region `frame[P+3:2] = {meta, payload}` (P + 2 bits) is what the scrambler works
//! on, in wire order (payload bit 0 first). Inside the node the same bits are kept as the *raw*
//! region `{payload, meta}` (meta at bits 1:0), the form of the retransmission buffer, the
//! flow-control buffer and the lane segments; [`Codec::to_line`] and [`Codec::from_line`] turn
//! one into the other (wiring only).
//!
//! Meta codes (Table 1): `00` no valid payload, `01` all bytes valid (not end of packet), `10`
//! end of packet with the valid-byte count (1..S−1) in the last payload byte (the format code),
//! `11` end of packet, all bytes valid. A meta-`00` data frame's last payload byte says what it
//! is: `00` filler, `01` flow-control pause, `02` flow-control resume (§4.D).
//!
//! Control frames: meta `00`, payload zero except the last byte, the control code: Idle `0x0F`,
//! Pause Request `0x33`, Retransmit Request `0x55` (pairwise Hamming distance 4).
//!
//! The CRC message is the (P + 8)-bit vector `{payload, 5'b0, syn[1], meta}` as it is on the
//! line (after scrambling): byte 0 = `{5'b0, syn[1], meta}`, then payload bytes 0..S−1, fed
//! byte 0 first, MSB first, register init 0, no reflection, no xorout. Because the register
//! starts at 0 the five leading zeros have no effect, so the code protects the contiguous
//! F − 1 bits `{syn[1], meta, payload, vcode}`: the polynomial's Hamming distance at F − 1 bits
//! is what the block validation proves. For a data frame (syn[1] = 0) the message is exactly
//! `{meta, payload}`; covering syn[1] makes a data↔control SYN swap (2 bit errors) a detected
//! error instead of a silently dropped or invented frame. The CRC is taken over the line bits
//! so the receiver verifies before descrambling: the self-synchronous descrambler triples each
//! channel error, which would otherwise eat into the Hamming distance.

use crate::bits::Bits;
use super::params::Params;
use crate::blocks::crc::model::{CrcAlgo, CrcModel};

pub const SYN_DATA: u8 = 0b01;
pub const SYN_CTRL: u8 = 0b10;

pub const META_INVALID: u8 = 0b00;
pub const META_BODY: u8 = 0b01;
pub const META_EOP_PARTIAL: u8 = 0b10;
pub const META_EOP_FULL: u8 = 0b11;

/// Last payload byte of a meta-00 data frame.
pub const FC_FILLER: u8 = 0x00;
pub const FC_PAUSE: u8 = 0x01;
pub const FC_RESUME: u8 = 0x02;

/// Control codes (last payload byte of a control frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ctrl {
    Idle,
    PauseRequest,
    RetransmitRequest,
}

impl Ctrl {
    pub const fn code(self) -> u8 {
        match self {
            Ctrl::Idle => 0x0F,
            Ctrl::PauseRequest => 0x33,
            Ctrl::RetransmitRequest => 0x55,
        }
    }
    pub fn from_code(c: u8) -> Option<Ctrl> {
        [Ctrl::Idle, Ctrl::PauseRequest, Ctrl::RetransmitRequest].into_iter().find(|k| k.code() == c)
    }
}

/// The codec of one parameter set: the CRC table and the field positions.
#[derive(Debug, Clone)]
pub struct Codec {
    pub p: Params,
    crc: CrcModel,
}

/// What the receiver's check of one frame yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub syn: u8,
    /// SYN is 01 or 10.
    pub legal: bool,
    /// Legal SYN and the verification code matches the expected frame ID.
    pub ok: bool,
    /// `{meta, payload}` as received (still scrambled).
    pub line: Bits,
}

impl Codec {
    pub fn new(p: Params) -> Self {
        Codec { p, crc: CrcModel::new(crc_algo(p.crc_poly)) }
    }

    /// CRC-12 of the line region `{meta, payload}` with the control bit:
    /// `CRC({payload, 5'b0, ctrl, meta})`.
    pub fn crc(&self, ctrl: bool, line: &Bits) -> u16 {
        let s = self.p.payload_bytes();
        let meta = line.field(self.p.payload_bits(), 2) as u8;
        let mut reg = self.crc.update(self.crc.start(), &[((ctrl as u8) << 2) | meta]);
        let mut buf = [0u8; 256];
        for (i, b) in buf.iter_mut().enumerate().take(s) {
            *b = line.field(8 * i, 8) as u8;
        }
        reg = self.crc.update(reg, &buf[..s]);
        self.crc.finish(reg) as u16
    }

    /// The verification code of a frame with this SYN and line region, sent as frame `id`.
    pub fn vcode(&self, syn: u8, line: &Bits, id: u32) -> u16 {
        self.crc(syn & 2 != 0, line) ^ id as u16
    }

    /// The whole frame `{vcode, line, syn}` (`line` = `{meta, payload}` as sent).
    pub fn encode(&self, syn: u8, line: &Bits, id: u32) -> Bits {
        let f = self.p.frame_width();
        let mut frame = Bits::zeros(f);
        frame.set_field(0, 2, syn as u64);
        frame.set_slice(2, line);
        frame.set_field(f - 12, 12, self.vcode(syn, line, id) as u64);
        frame
    }

    /// Check a received frame against the receiver's expected frame ID.
    pub fn check(&self, frame: &Bits, id: u32) -> Checked {
        let f = self.p.frame_width();
        let syn = frame.field(0, 2) as u8;
        let line = frame.slice(2, self.p.raw_bits());
        let legal = syn == SYN_DATA || syn == SYN_CTRL;
        let ok = legal && frame.field(f - 12, 12) as u16 == self.vcode(syn, &line, id);
        Checked { syn, legal, ok, line }
    }

    /// The line (wire) order `{meta, payload}` of a raw region `{payload, meta}`.
    pub fn to_line(&self, raw: &Bits) -> Bits {
        let p = self.p.payload_bits();
        let mut w = Bits::zeros(p + 2);
        w.set_slice(0, &raw.slice(2, p));
        w.set_field(p, 2, raw.field(0, 2));
        w
    }

    /// The raw region `{payload, meta}` of a line region `{meta, payload}`.
    pub fn from_line(&self, line: &Bits) -> Bits {
        let p = self.p.payload_bits();
        let mut r = Bits::zeros(p + 2);
        r.set_field(0, 2, line.field(p, 2));
        r.set_slice(2, &line.slice(0, p));
        r
    }

    /// A raw region `{payload, meta}` with the payload all zero except its last byte.
    pub fn raw_with_last_byte(&self, meta: u8, last: u8) -> Bits {
        let mut raw = Bits::zeros(self.p.raw_bits());
        raw.set_field(0, 2, meta as u64);
        raw.set_field(2 + 8 * (self.p.payload_bytes() - 1), 8, last as u64);
        raw
    }

    pub fn control_raw(&self, c: Ctrl) -> Bits {
        self.raw_with_last_byte(META_INVALID, c.code())
    }

    /// `{payload, meta}` of a data frame from payload bytes (at most S; the rest zero).
    pub fn data_raw(&self, meta: u8, payload: &[u8]) -> Bits {
        let mut raw = Bits::zeros(self.p.raw_bits());
        raw.set_field(0, 2, meta as u64);
        for (i, b) in payload.iter().enumerate().take(self.p.payload_bytes()) {
            raw.set_field(2 + 8 * i, 8, *b as u64);
        }
        raw
    }

    /// The last payload byte of a raw region (format code, flow-control or control code).
    pub fn last_byte(&self, raw: &Bits) -> u8 {
        raw.field(2 + 8 * (self.p.payload_bytes() - 1), 8) as u8
    }

    /// Valid payload bytes of a data frame's raw region per its meta code (Table 1).
    pub fn valid_bytes(&self, raw: &Bits) -> usize {
        match raw.field(0, 2) as u8 {
            META_INVALID => 0,
            META_EOP_PARTIAL => self.last_byte(raw) as usize,
            _ => self.p.payload_bytes(),
        }
    }

    /// Payload byte `i` of a raw region.
    pub fn payload_byte(&self, raw: &Bits, i: usize) -> u8 {
        raw.field(2 + 8 * i, 8) as u8
    }
}

/// The CRC-12 algorithm of the verification code.
pub fn crc_algo(poly: u16) -> CrcAlgo {
    CrcAlgo { width: 12, poly: poly as u64, init: 0, refin: false, refout: false, xorout: 0 }
}

#[cfg(test)]
mod tests {
    use super::super::params::small;
    use super::*;
    use crate::math::gf2::BitVec;

    #[test]
    fn data_frame_vcode_is_crc_of_meta_and_payload_xor_id() {
        let p = Params { frame_bits: 256, frame_id_bits: 8, ..small() };
        let c = Codec::new(p);
        let payload: Vec<u8> = (0..30).map(|i| (i * 7 + 3) as u8).collect();
        let raw = c.data_raw(META_BODY, &payload);
        let frame = c.encode(SYN_DATA, &c.to_line(&raw), 0x5A);
        // The message bytes: meta, then the payload bytes.
        let mut msg = vec![META_BODY];
        msg.extend_from_slice(&payload);
        let crc = CrcModel::new(crc_algo(0x80F)).checksum(&msg) as u16;
        assert_eq!(frame.field(244, 12) as u16, crc ^ 0x5A);
        assert_eq!(frame.field(0, 2), 0b01, "SYN at frame[1:0]");
        assert_eq!(frame.field(242, 2), 0b01, "meta at frame[243:242]");
        assert_eq!(frame.field(2, 8), 3, "payload byte 0 at frame[9:2]");
        assert_eq!(frame.field(2 + 8 * 29, 8), (29 * 7 + 3) as u64 & 0xFF, "last payload byte at frame[241:234]");
        assert_eq!(c.from_line(&c.to_line(&raw)), raw);
        let chk = c.check(&frame, 0x5A);
        assert!(chk.ok && chk.legal);
        assert!(!c.check(&frame, 0x5B).ok, "wrong frame ID must fail");
    }

    #[test]
    fn crc_matches_the_affine_map_the_rtl_uses() {
        let p = Params { frame_bits: 128, ..small() };
        let c = Codec::new(p);
        let map = crc_algo(p.crc_poly).affine(p.crc_msg_bits(), 0);
        for t in 0..50u64 {
            let mut line = Bits::zeros(p.raw_bits());
            for k in 0..p.raw_bits() {
                line.set(k, (t.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (k % 61)) & 1 == 1 || k as u64 == t);
            }
            let ctrl = t % 2 == 1;
            // {payload, 5'b0, ctrl, meta} from the line {meta, payload}
            let pb = p.payload_bits();
            let mut msg = BitVec::zeros(p.crc_msg_bits());
            msg.set(0, line.get(pb));
            msg.set(1, line.get(pb + 1));
            msg.set(2, ctrl);
            for k in 0..pb {
                msg.set(8 + k, line.get(k));
            }
            assert_eq!(map.apply(&msg).to_u128() as u16, c.crc(ctrl, &line));
        }
    }

    #[test]
    fn syn_swap_is_detected() {
        let c = Codec::new(small());
        let raw = c.control_raw(Ctrl::Idle);
        let mut frame = c.encode(SYN_CTRL, &c.to_line(&raw), 3);
        frame.set_field(0, 2, SYN_DATA as u64);
        assert!(!c.check(&frame, 3).ok);
    }

    #[test]
    fn valid_bytes_per_meta() {
        let c = Codec::new(small());
        assert_eq!(c.valid_bytes(&c.data_raw(META_BODY, &[1; 14])), 14);
        assert_eq!(c.valid_bytes(&c.data_raw(META_EOP_FULL, &[1; 14])), 14);
        let mut partial = vec![9u8; 5];
        partial.resize(13, 0);
        partial.push(5);
        assert_eq!(c.valid_bytes(&c.data_raw(META_EOP_PARTIAL, &partial)), 5);
        assert_eq!(c.valid_bytes(&c.raw_with_last_byte(META_INVALID, FC_PAUSE)), 0);
    }
}
