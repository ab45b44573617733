//! The RXL / CXL 256-byte flit and its two codes, as the endpoint and switch models use them.
//!
//! Layout (byte 0 first on the wire, byte i at bus bits [8i+7:8i]):
//!
//! | bytes    | what |
//! |----------|------|
//! | 0–1      | header, a 16-bit little-endian word: [9:0] FSN, [11:10] ReplayCmd, [15:12] flit type |
//! | 2–241    | payload (240 bytes = `s_payload[1919:0]`, payload byte j at flit byte 2+j) |
//! | 242–249  | CRC over bytes 0–241 (the ISN folds the sequence number into bits [9:0]) |
//! | 250–255  | FEC check bytes over bytes 0–249 |
//!
//! The CRC is either the PCIe 6.0 flit CRC over GF(2^8) (`rs_crc` model, 8 check bytes, check
//! symbol j in byte 242+j) or the binary CRC-64/ECMA-182 (`crc` model, CRC bit k at flit bit
//! 1936+k). The FEC is the `rs_fec` model in the `pcie6` or the `generic` layout.
//!
//! [`FlitCodec`] computes both codes through GF(2)-linear tables probed from those models (one
//! table lookup per byte instead of a Galois-field multiply per byte), and decodes through the
//! model itself whenever a flit is not a clean codeword; `tests` checks the tables against the
//! models.

use crate::blocks::crc::model::{CrcAlgo, CrcModel};
use crate::blocks::rs_crc::model::{Orientation, RsCrc};
use crate::blocks::rs_fec::model::{FlitFec, InterleavedFec, Pcie6Fec};

pub const FLIT_BYTES: usize = 256;
pub const HEADER_BYTES: usize = 2;
pub const PAYLOAD_BYTES: usize = 240;
/// Bytes the CRC covers: header and payload.
pub const CRC_DATA_BYTES: usize = HEADER_BYTES + PAYLOAD_BYTES;
pub const CRC_BYTES: usize = 8;
/// Bytes the FEC covers: header, payload and CRC.
pub const MSG_BYTES: usize = CRC_DATA_BYTES + CRC_BYTES;
pub const FEC_BYTES: usize = FLIT_BYTES - MSG_BYTES;
pub const SEQ_BITS: u32 = 10;
pub const SEQ_MASK: u32 = (1 << SEQ_BITS) - 1;

pub type Flit = [u8; FLIT_BYTES];
pub type Msg = [u8; MSG_BYTES];
pub type Payload = [u8; PAYLOAD_BYTES];

/// ReplayCmd values (header bits [11:10]).
pub const CMD_NONE: u8 = 0;
pub const CMD_ACK: u8 = 1;
pub const CMD_NACK: u8 = 2;
/// Flit types (header bits [15:12]).
pub const TYPE_IDLE: u8 = 0;
pub const TYPE_PAYLOAD: u8 = 1;

/// The 2-byte header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    pub fsn: u32,
    pub cmd: u8,
    pub ftype: u8,
}

impl Header {
    pub fn word(self) -> u16 {
        (self.fsn & SEQ_MASK) as u16 | u16::from(self.cmd & 3) << 10 | u16::from(self.ftype & 15) << 12
    }
    pub fn from_word(w: u16) -> Header {
        Header { fsn: u32::from(w) & SEQ_MASK, cmd: (w >> 10) as u8 & 3, ftype: (w >> 12) as u8 }
    }
    pub fn of(bytes: &[u8]) -> Header {
        Header::from_word(u16::from_le_bytes([bytes[0], bytes[1]]))
    }
}

/// Which CRC the flit carries (`crc = "rs_crc" | "crc64"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrcChoice {
    /// The PCIe 6.0 flit CRC over GF(2^8) (`rs_crc`), orientation msb_first.
    RsCrc,
    /// CRC-64/ECMA-182 (`crc`, poly 0x42F0E1EBA9EA3693, init 0, no reflection).
    Crc64,
}

/// Which FEC layout the flit uses (`fec = "pcie6" | "generic"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FecChoice {
    Pcie6,
    Generic,
}

/// CRC-64/ECMA-182 as the binary option's algorithm (the default design's `isn_crc64`).
pub const CRC64_ALGO: CrcAlgo = CrcAlgo { width: 64, poly: 0x42F0_E1EB_A9EA_3693, init: 0, refin: false, refout: false, xorout: 0 };

/// The FEC decoder's verdict on one flit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub msg: Msg,
    pub corrected: bool,
    pub uncorrectable: bool,
}

/// An affine map from bytes to up to 64 bits: `out = c ⊕ XOR_i table[i][byte_i]`.
#[derive(Clone)]
struct ByteTable {
    constant: u64,
    table: Vec<[u64; 256]>,
}

impl ByteTable {
    /// Probes a function affine over GF(2) (`f(0)` is the constant, unit bytes give the columns).
    fn probe(len: usize, f: impl Fn(&[u8]) -> u64) -> ByteTable {
        let mut buf = vec![0u8; len];
        let constant = f(&buf);
        let mut table = vec![[0u64; 256]; len];
        for (i, row) in table.iter_mut().enumerate() {
            let mut bit_cols = [0u64; 8];
            for (b, col) in bit_cols.iter_mut().enumerate() {
                buf[i] = 1 << b;
                *col = f(&buf) ^ constant;
            }
            buf[i] = 0;
            for (v, entry) in row.iter_mut().enumerate() {
                *entry = (0..8).filter(|b| v >> b & 1 == 1).fold(0, |acc, b| acc ^ bit_cols[b]);
            }
        }
        ByteTable { constant, table }
    }

    fn apply(&self, bytes: &[u8]) -> u64 {
        bytes.iter().zip(&self.table).fold(self.constant, |acc, (&b, row)| acc ^ row[b as usize])
    }
}

/// CRC and FEC of the flit, fast and bit-identical to the `rs_crc`/`crc` and `rs_fec` models.
#[derive(Clone)]
pub struct FlitCodec {
    pub crc_choice: CrcChoice,
    pub fec_choice: FecChoice,
    crc: ByteTable,
    fec: ByteTable,
    pcie6: Pcie6Fec,
    generic: InterleavedFec,
}

impl std::fmt::Debug for FlitCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FlitCodec({:?}, {:?})", self.crc_choice, self.fec_choice)
    }
}

fn le_u64(bytes: &[u8]) -> u64 {
    bytes.iter().enumerate().fold(0, |acc, (i, &b)| acc | u64::from(b) << (8 * i))
}

impl FlitCodec {
    pub fn new(crc_choice: CrcChoice, fec_choice: FecChoice) -> FlitCodec {
        let crc = match crc_choice {
            CrcChoice::RsCrc => {
                let m = Self::rs_crc_model();
                ByteTable::probe(CRC_DATA_BYTES, |d| le_u64(&m.crc(d, 0)))
            }
            CrcChoice::Crc64 => {
                let m = CrcModel::new(CRC64_ALGO);
                ByteTable::probe(CRC_DATA_BYTES, |d| m.checksum(d))
            }
        };
        let pcie6 = Pcie6Fec::new();
        let generic = InterleavedFec::cxl();
        let fec = match fec_choice {
            FecChoice::Pcie6 => ByteTable::probe(MSG_BYTES, |m| le_u64(&pcie6.encode(m)[MSG_BYTES..])),
            FecChoice::Generic => ByteTable::probe(MSG_BYTES, |m| le_u64(&generic.encode(m)[MSG_BYTES..])),
        };
        FlitCodec { crc_choice, fec_choice, crc, fec, pcie6, generic }
    }

    /// The ISN's columns of the flit CRC: entry k is what sequence-number bit k XORs into the
    /// CRC (bit j of the CRC at bit 8j' + b as in the flit's bytes 242..249). The CRC is affine in
    /// (data, seq), so `crc(data, seq) = crc(data, 0) ^ XOR of the columns of seq's set bits`.
    pub fn isn_columns(crc_choice: CrcChoice) -> Vec<u64> {
        let crc_of: Box<dyn Fn(&[u8]) -> u64> = match crc_choice {
            CrcChoice::RsCrc => {
                let m = Self::rs_crc_model();
                Box::new(move |d| le_u64(&m.crc(d, 0)))
            }
            CrcChoice::Crc64 => {
                let m = CrcModel::new(CRC64_ALGO);
                Box::new(move |d| m.checksum(d))
            }
        };
        let mut data = [0u8; CRC_DATA_BYTES];
        let constant = crc_of(&data);
        (0..SEQ_BITS as usize)
            .map(|k| {
                data[k / 8] = 1 << (k % 8);
                let column = crc_of(&data) ^ constant;
                data[k / 8] = 0;
                column
            })
            .collect()
    }

    /// The `rs_crc` model of the flit CRC (10-bit ISN, msb_first).
    pub fn rs_crc_model() -> RsCrc {
        RsCrc::pcie6_flit(SEQ_BITS, Orientation::MsbFirst)
    }

    /// The FEC model of the chosen layout.
    pub fn fec_model(&self) -> &dyn FlitFec {
        match self.fec_choice {
            FecChoice::Pcie6 => &self.pcie6,
            FecChoice::Generic => &self.generic,
        }
    }

    /// CRC bytes (flit bytes 242..249) of header + payload with `seq` folded into bits [9:0].
    pub fn crc(&self, data: &[u8], seq: u32) -> [u8; CRC_BYTES] {
        debug_assert_eq!(data.len(), CRC_DATA_BYTES);
        let seq = seq & SEQ_MASK;
        let r = self.crc.apply(data) ^ self.crc.table[0][(seq & 0xFF) as usize] ^ self.crc.table[1][(seq >> 8) as usize];
        r.to_le_bytes()
    }

    /// The checker: the CRC in msg bytes 242..249 matches bytes 0..241 under `seq`.
    pub fn check(&self, msg: &[u8], seq: u32) -> bool {
        self.crc(&msg[..CRC_DATA_BYTES], seq)[..] == msg[CRC_DATA_BYTES..MSG_BYTES]
    }

    /// The FEC check bytes of a 250-byte message.
    pub fn fec_bytes(&self, msg: &[u8]) -> [u8; FEC_BYTES] {
        let v = self.fec.apply(msg).to_le_bytes();
        let mut out = [0u8; FEC_BYTES];
        out.copy_from_slice(&v[..FEC_BYTES]);
        out
    }

    pub fn encode(&self, msg: &Msg) -> Flit {
        let mut flit = [0u8; FLIT_BYTES];
        flit[..MSG_BYTES].copy_from_slice(msg);
        flit[MSG_BYTES..].copy_from_slice(&self.fec_bytes(msg));
        flit
    }

    /// FEC decode: a clean codeword is recognised by re-encoding; anything else goes through
    /// the model's decoder.
    pub fn decode(&self, flit: &[u8]) -> Decoded {
        let mut msg = [0u8; MSG_BYTES];
        if self.fec_bytes(&flit[..MSG_BYTES])[..] == flit[MSG_BYTES..FLIT_BYTES] {
            msg.copy_from_slice(&flit[..MSG_BYTES]);
            return Decoded { msg, corrected: false, uncorrectable: false };
        }
        let d = self.fec_model().decode(flit);
        msg.copy_from_slice(&d.msg);
        Decoded { msg, corrected: d.status.corrected, uncorrectable: d.status.uncorrectable }
    }

    /// The 250-byte message of a flit: header, payload and CRC.
    pub fn message(&self, header: Header, payload: Option<&[u8]>, crc_seq: u32) -> Msg {
        let mut msg = [0u8; MSG_BYTES];
        msg[..HEADER_BYTES].copy_from_slice(&header.word().to_le_bytes());
        if let Some(p) = payload {
            msg[HEADER_BYTES..CRC_DATA_BYTES].copy_from_slice(p);
        }
        let crc = self.crc(&msg[..CRC_DATA_BYTES], crc_seq);
        msg[CRC_DATA_BYTES..].copy_from_slice(&crc);
        msg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::math::splitmix::SplitMix64 as Rng;

    #[test]
    fn header_bits() {
        let h = Header { fsn: 0x2A5, cmd: CMD_NACK, ftype: TYPE_PAYLOAD };
        assert_eq!(h.word(), 0x1AA5);
        assert_eq!(Header::of(&h.word().to_le_bytes()), h);
    }

    #[test]
    fn isn_columns_add_the_sequence_number() {
        let mut rng = Rng::new(11);
        for crc in [CrcChoice::RsCrc, CrcChoice::Crc64] {
            let codec = FlitCodec::new(crc, FecChoice::Pcie6);
            let columns = FlitCodec::isn_columns(crc);
            for _ in 0..50 {
                let data = rng.bytes(CRC_DATA_BYTES);
                let seq = rng.next_u64() as u32 & SEQ_MASK;
                let isn = (0..SEQ_BITS as usize).filter(|&k| seq >> k & 1 == 1).fold(0, |acc, k| acc ^ columns[k]);
                assert_eq!(le_u64(&codec.crc(&data, seq)), le_u64(&codec.crc(&data, 0)) ^ isn, "{crc:?}, seq {seq}");
            }
        }
    }

    #[test]
    fn tables_match_the_models() {
        let mut rng = Rng::new(7);
        let rs = FlitCodec::rs_crc_model();
        let c64 = CrcModel::new(CRC64_ALGO);
        for (crc, fec) in [(CrcChoice::RsCrc, FecChoice::Pcie6), (CrcChoice::Crc64, FecChoice::Generic)] {
            let codec = FlitCodec::new(crc, fec);
            for _ in 0..200 {
                let data = rng.bytes(CRC_DATA_BYTES);
                let seq = rng.next_u64() as u32 & SEQ_MASK;
                let want: Vec<u8> = match crc {
                    CrcChoice::RsCrc => rs.crc(&data, u64::from(seq)),
                    CrcChoice::Crc64 => c64.isn_checksum(&data, u64::from(seq), SEQ_BITS).to_le_bytes().to_vec(),
                };
                assert_eq!(codec.crc(&data, seq).to_vec(), want);
                let msg: Msg = rng.bytes(MSG_BYTES).try_into().expect("250");
                let flit = codec.encode(&msg);
                assert_eq!(flit.to_vec(), codec.fec_model().encode(&msg));
                // Clean, one corrupted byte, two corrupted bytes: the same verdict as the model.
                let mut bad = flit;
                for k in 0..3 {
                    let d = codec.decode(&bad);
                    let m = codec.fec_model().decode(&bad);
                    assert_eq!((d.msg.to_vec(), d.corrected, d.uncorrectable), (m.msg, m.status.corrected, m.status.uncorrectable), "{k} errors");
                    bad[rng.next_u64() as usize % FLIT_BYTES] ^= 1 + (rng.next_u64() % 255) as u8;
                }
            }
        }
    }
}
