//! SUE wire formats (contract §4.2): the 64-bit reliability header (field widths from the seed's
//! Table 3, positions our choice), the R-CRC over RH + payload (seed §3.3, §4.2 step 4; CRC-32 by
//! default), the PDU byte layout and its beats on an AXI4-Stream bus, and the modulo-2^16 PSN
//! arithmetic.

use crate::blocks::crc::model::{CrcAlgo, CrcModel};

/// RH `op`: what `rpsn` means (seed Table 3: "ACK, NACK or invalid").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// No acknowledgement information ("invalid").
    None = 0,
    /// Cumulative: every PSN up to and including rpsn was received in order.
    Ack = 1,
    /// rpsn is the expected (first missing) PSN.
    Nack = 2,
    /// Never sent; a receiver drops it as a header error.
    Reserved = 3,
}

impl Op {
    pub fn from_bits(b: u8) -> Op {
        match b & 3 {
            0 => Op::None,
            1 => Op::Ack,
            2 => Op::Nack,
            _ => Op::Reserved,
        }
    }
}

/// The reliability header, MSB→LSB: ver 63:62, op 61:60, rsv 59:58, xpuid 57:48, psn 47:32,
/// vc 31:30, rsvd 29:26, partition 25:16, rpsn 15:0; sent most significant byte first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rh {
    pub ver: u8,
    pub op: Op,
    pub xpuid: u16,
    pub psn: u16,
    pub vc: u8,
    pub partition: u16,
    pub rpsn: u16,
}

/// Bytes of the RH and of the R-CRC.
pub const RH_BYTES: usize = 8;
pub const RCRC_BYTES: usize = 4;

impl Rh {
    /// The 64-bit word (reserved bits 0).
    pub fn word(&self) -> u64 {
        (u64::from(self.ver & 3) << 62)
            | ((self.op as u64) << 60)
            | (u64::from(self.xpuid & 0x3FF) << 48)
            | (u64::from(self.psn) << 32)
            | (u64::from(self.vc & 3) << 30)
            | (u64::from(self.partition & 0x3FF) << 16)
            | u64::from(self.rpsn)
    }

    /// Network order: PDU byte k = rh[63-8k : 56-8k].
    pub fn bytes(&self) -> [u8; RH_BYTES] {
        self.word().to_be_bytes()
    }

    /// Decode (reserved bits ignored).
    pub fn from_word(w: u64) -> Rh {
        Rh {
            ver: (w >> 62) as u8 & 3,
            op: Op::from_bits((w >> 60) as u8),
            xpuid: (w >> 48) as u16 & 0x3FF,
            psn: (w >> 32) as u16,
            vc: (w >> 30) as u8 & 3,
            partition: (w >> 16) as u16 & 0x3FF,
            rpsn: w as u16,
        }
    }

    pub fn from_bytes(b: &[u8; RH_BYTES]) -> Rh {
        Rh::from_word(u64::from_be_bytes(*b))
    }
}

/// The R-CRC model (`rcrc` field: `"crc32"`, `"crc32c"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rcrc {
    /// CRC-32/ISO-HDLC (the Ethernet FCS polynomial), the default.
    Crc32,
    /// CRC-32/ISCSI (Castagnoli).
    Crc32c,
}

impl Rcrc {
    pub fn algo(self) -> CrcAlgo {
        let poly = match self {
            Rcrc::Crc32 => 0x04C1_1DB7,
            Rcrc::Crc32c => 0x1EDC_6F41,
        };
        CrcAlgo {
            width: 32,
            poly,
            init: 0xFFFF_FFFF,
            refin: true,
            refout: true,
            xorout: 0xFFFF_FFFF,
        }
    }

    pub fn model(self) -> CrcModel {
        CrcModel::new(self.algo())
    }

    /// CRC of a whole PDU with its R-CRC appended LSB first: the same for every PDU.
    pub fn residue(self) -> u32 {
        match self {
            Rcrc::Crc32 => 0x2144_DF1C,
            Rcrc::Crc32c => 0x4867_4BC7,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rcrc::Crc32 => "crc32",
            Rcrc::Crc32c => "crc32c",
        }
    }
}

/// A PDU's bytes: RH, payload, R-CRC over both appended least significant byte first.
pub fn build_pdu(rh: &Rh, payload: &[u8], rcrc: Rcrc) -> Vec<u8> {
    let mut out = Vec::with_capacity(RH_BYTES + payload.len() + RCRC_BYTES);
    out.extend_from_slice(&rh.bytes());
    out.extend_from_slice(payload);
    let crc = rcrc.model().checksum(&out) as u32;
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Why a received byte string is not a PDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PduError {
    /// Shorter than RH + R-CRC, or the payload is not whole commands.
    Length,
    /// The R-CRC does not match.
    Crc,
}

/// Check and split a PDU into its RH and payload.
pub fn parse_pdu(bytes: &[u8], cmd_bytes: usize, rcrc: Rcrc) -> Result<(Rh, &[u8]), PduError> {
    if bytes.len() < RH_BYTES + RCRC_BYTES || !(bytes.len() - RH_BYTES - RCRC_BYTES).is_multiple_of(cmd_bytes)
    {
        return Err(PduError::Length);
    }
    if rcrc.model().checksum(bytes) as u32 != rcrc.residue() {
        return Err(PduError::Crc);
    }
    let rh = Rh::from_bytes(bytes[..RH_BYTES].try_into().expect("8 bytes"));
    Ok((rh, &bytes[RH_BYTES..bytes.len() - RCRC_BYTES]))
}

/// One beat of a PDU on a `data_bytes`-wide bus: byte i of the beat is `tdata[8i+7:8i]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beat {
    /// `data_bytes` bytes, unused tail bytes zero.
    pub data: Vec<u8>,
    /// Bit i = byte i valid.
    pub keep: u128,
    pub last: bool,
}

/// The beats of a PDU (contract §4.2: every beat full except the last).
pub fn beats(pdu: &[u8], data_bytes: usize) -> Vec<Beat> {
    let n = pdu.len().div_ceil(data_bytes);
    (0..n)
        .map(|k| {
            let chunk = &pdu[k * data_bytes..pdu.len().min((k + 1) * data_bytes)];
            let mut data = chunk.to_vec();
            data.resize(data_bytes, 0);
            let keep = if chunk.len() == 128 {
                u128::MAX
            } else {
                (1u128 << chunk.len()) - 1
            };
            Beat {
                data,
                keep,
                last: k + 1 == n,
            }
        })
        .collect()
}

/// The RH fields MSB→LSB: (name, msb, lsb). [`Rh::word`] packs them there (a unit test
/// checks it field by field) and the module docs print this table.
pub const RH_FIELDS: [(&str, u32, u32); 9] = [
    ("ver", 63, 62),
    ("op", 61, 60),
    ("rsv", 59, 58),
    ("xpuid", 57, 48),
    ("psn", 47, 32),
    ("vc", 31, 30),
    ("rsvd", 29, 26),
    ("partition", 25, 16),
    ("rpsn", 15, 0),
];

/// What a transport sends in the RH fields and checks on receipt.
pub struct RhDoc<'a> {
    pub version: u32,
    /// What xpuid carries, e.g. "the local_xpuid input" or "3".
    pub xpuid: &'a str,
    pub ack_vc: u32,
    pub partition: u32,
    pub partition_check: bool,
    pub rcrc: Rcrc,
}

/// The module-doc lines for the wire format (RH layout, op codes, PDU and beat layout, R-CRC,
/// receive checks), exactly as the transport builds and checks PDUs.
pub fn wire_notes(d: &RhDoc) -> Vec<String> {
    let what = |f: &str| -> String {
        match f {
            "ver" => format!("version = {}", d.version),
            "op" => "op code, below".into(),
            "rsv" | "rsvd" => "0, ignored on receipt".into(),
            "xpuid" => format!("source XPU: {}", d.xpuid),
            "psn" => "data PDU: its PSN; control PDU: the next new PSN to that peer (ignored on receipt)".into(),
            "vc" => format!("the PDU's VC; control PDU: ack_vc = {}", d.ack_vc),
            "partition" => format!("{}{}", d.partition, if d.partition_check { ", must match on receipt" } else { ", not checked on receipt" }),
            _ => "ACK: the last PSN received in order from that peer (cumulative); NACK: the expected (first missing) PSN; NONE: 0".into(),
        }
    };
    let fields: Vec<String> = RH_FIELDS
        .iter()
        .map(|&(f, hi, lo)| format!("{f} [{hi}:{lo}] = {}", what(f)))
        .collect();
    let a = d.rcrc.algo();
    let check = d.rcrc.model().checksum(b"123456789");
    vec![
        format!("RH (reliability header), 64 bits MSB→LSB, sent most significant byte first (PDU byte k = rh[63-8k:56-8k]): {}.", fields.join("; ")),
        format!("RH op: {} NONE (no acknowledgement), {} ACK (cumulative), {} NACK, 3 reserved (never sent; a received op 3 is a header error).", Op::None as u8, Op::Ack as u8, Op::Nack as u8),
        format!("PDU bytes: RH (0..7), payload (8..8+L-1: L = ncmds x cmd_bytes, the commands in queue order, each as received), R-CRC (4 bytes, least significant byte first); L = 0 is a control PDU ({} bytes). On a bus of DB = data_bytes bytes PDU byte i is beat i / DB at tdata[8(i mod DB)+7 : 8(i mod DB)]; every beat is full except the last, which carries the last 8 payload bytes (the RH in a control PDU) and the R-CRC: tkeep = the low 12 bits.", RH_BYTES + RCRC_BYTES),
        format!("R-CRC ({}): CRC-{} poly 0x{:08X}, init 0x{:08X}, reflected in and out, xorout 0x{:08X} (check value 0x{check:08X} over \"123456789\") over RH + payload (bytes 0..8+L-1); over a whole PDU, R-CRC included, the CRC is the constant 0x{:08X}. The receiver recomputes it and compares.", d.rcrc.name(), a.width, a.poly, a.init, a.xorout, d.rcrc.residue()),
        "Receive checks, first failure counted, the PDU dropped: frame error (s_axis_rx_tuser on any beat), shape (tkeep, length in whole commands), R-CRC, header (ver != version, op 3, xpuid >= num_xpu, vc >= num_vc), partition.".into(),
    ]
}

/// PSN distance (b − a) mod 2^16.
pub fn dist(a: u16, b: u16) -> u16 {
    b.wrapping_sub(a)
}

/// b ∈ [a, c) in sequence order.
pub fn in_range(a: u16, b: u16, c: u16) -> bool {
    dist(a, b) < dist(a, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden1() -> Rh {
        Rh {
            ver: 0,
            op: Op::Ack,
            xpuid: 5,
            psn: 0x1234,
            vc: 1,
            partition: 0x02A,
            rpsn: 0x00FF,
        }
    }

    #[test]
    fn rh_golden_vectors() {
        let rh = golden1();
        assert_eq!(rh.word(), 0x1005_1234_402A_00FF);
        assert_eq!(rh.bytes(), [0x10, 0x05, 0x12, 0x34, 0x40, 0x2A, 0x00, 0xFF]);
        assert_eq!(Rh::from_word(rh.word()), rh);
        // On a DB = 8 bus byte 0 is tdata[7:0].
        assert_eq!(u64::from_le_bytes(rh.bytes()), 0xFF00_2A40_3412_0510);
        let ctl = Rh {
            ver: 0,
            op: Op::Ack,
            xpuid: 3,
            psn: 7,
            vc: 1,
            partition: 0,
            rpsn: 0x0010,
        };
        assert_eq!(
            ctl.bytes(),
            [0x10, 0x03, 0x00, 0x07, 0x40, 0x00, 0x00, 0x10]
        );
        let nack = Rh {
            ver: 0,
            op: Op::Nack,
            xpuid: 1023,
            psn: 0xFFFF,
            vc: 3,
            partition: 1023,
            rpsn: 0xFFFE,
        };
        assert_eq!(
            nack.bytes(),
            [0x23, 0xFF, 0xFF, 0xFF, 0xC3, 0xFF, 0xFF, 0xFE]
        );
        assert_eq!(Rh::from_bytes(&nack.bytes()), nack);
    }

    #[test]
    fn rcrc_catalogue_and_golden_values() {
        assert_eq!(Rcrc::Crc32.model().checksum(b"123456789"), 0xCBF4_3926);
        assert_eq!(Rcrc::Crc32c.model().checksum(b"123456789"), 0xE306_9283);
        let payload: Vec<u8> = (0u8..0x40).collect();
        let pdu = build_pdu(&golden1(), &payload, Rcrc::Crc32);
        assert_eq!(pdu.len(), 76);
        assert_eq!(&pdu[72..], &[0x75, 0xCD, 0x09, 0x46]);
        assert_eq!(Rcrc::Crc32.model().checksum(&pdu), 0x2144_DF1C);
        let pdu_c = build_pdu(&golden1(), &payload, Rcrc::Crc32c);
        assert_eq!(
            u32::from_le_bytes(pdu_c[72..].try_into().unwrap()),
            0x3903_CF4D
        );
        assert_eq!(Rcrc::Crc32c.model().checksum(&pdu_c), 0x4867_4BC7);

        let ctl = Rh {
            ver: 0,
            op: Op::Ack,
            xpuid: 3,
            psn: 7,
            vc: 1,
            partition: 0,
            rpsn: 0x0010,
        };
        assert_eq!(
            build_pdu(&ctl, &[], Rcrc::Crc32),
            vec![0x10, 0x03, 0x00, 0x07, 0x40, 0x00, 0x00, 0x10, 0x96, 0x60, 0xF2, 0x1C]
        );
        assert_eq!(
            u32::from_le_bytes(build_pdu(&ctl, &[], Rcrc::Crc32c)[8..].try_into().unwrap()),
            0xA3D5_58AA
        );
        let nack = Rh {
            ver: 0,
            op: Op::Nack,
            xpuid: 1023,
            psn: 0xFFFF,
            vc: 3,
            partition: 1023,
            rpsn: 0xFFFE,
        };
        assert_eq!(Rcrc::Crc32.model().checksum(&nack.bytes()), 0xBD0C_CBC0);
        assert_eq!(Rcrc::Crc32c.model().checksum(&nack.bytes()), 0xC07A_ED32);
    }

    #[test]
    fn residue_is_constant_and_parse_checks_it() {
        let mut rng = crate::math::splitmix::SplitMix64::new(5);
        for rcrc in [Rcrc::Crc32, Rcrc::Crc32c] {
            for n in 0..6 {
                let payload: Vec<u8> = (0..n * 32).map(|_| rng.next_u64() as u8).collect();
                let rh = Rh::from_word(rng.next_u64() & !(0x3 << 58) & !(0xF << 26));
                let pdu = build_pdu(&rh, &payload, rcrc);
                assert_eq!(rcrc.model().checksum(&pdu) as u32, rcrc.residue());
                let (got, pl) = parse_pdu(&pdu, 32, rcrc).expect("good PDU");
                assert_eq!((got, pl), (rh, &payload[..]));
                let mut bad = pdu.clone();
                bad[rng.next_u64() as usize % pdu.len()] ^= 1 << (rng.next_u64() % 8);
                assert_eq!(parse_pdu(&bad, 32, rcrc), Err(PduError::Crc));
                assert_eq!(parse_pdu(&pdu[1..], 32, rcrc), Err(PduError::Length));
            }
        }
    }

    #[test]
    fn beats_and_tkeep_follow_the_contract() {
        let payload = vec![0xAB; 64];
        let pdu = build_pdu(&golden1(), &payload, Rcrc::Crc32);
        // DB = 8: L/8 + 2 beats, the last only the R-CRC.
        let b8 = beats(&pdu, 8);
        assert_eq!(b8.len(), 64 / 8 + 2);
        assert_eq!(b8.last().unwrap().keep, 0x0F);
        assert!(b8[..b8.len() - 1].iter().all(|b| b.keep == 0xFF && !b.last));
        for db in [16usize, 32, 64, 128] {
            let p = build_pdu(&golden1(), &vec![1; 2 * 128], Rcrc::Crc32);
            let b = beats(&p, db);
            assert_eq!(b.len(), 256 / db + 1, "db {db}");
            assert_eq!(b.last().unwrap().keep, 0xFFF, "db {db}");
            assert!(b.last().unwrap().last);
        }
    }

    /// Every field of [`RH_FIELDS`] (the documented layout) is where [`Rh::word`] puts it, the
    /// fields tile the 64 bits MSB→LSB, and the notes print them in that order.
    #[test]
    fn documented_rh_layout_is_the_packed_one() {
        let zero = Rh { ver: 0, op: Op::None, xpuid: 0, psn: 0, vc: 0, partition: 0, rpsn: 0 };
        let mut next = 63i32;
        for &(f, hi, lo) in &RH_FIELDS {
            assert_eq!(hi as i32, next, "{f} starts where the previous field ended");
            next = lo as i32 - 1;
            let mask = ((1u128 << (hi + 1)) - (1u128 << lo)) as u64;
            let mut r = zero;
            match f {
                "ver" => r.ver = 3,
                "op" => r.op = Op::Reserved,
                "xpuid" => r.xpuid = 0x3FF,
                "psn" => r.psn = 0xFFFF,
                "vc" => r.vc = 3,
                "partition" => r.partition = 0x3FF,
                "rpsn" => r.rpsn = 0xFFFF,
                _ => {
                    // Reserved: no field reaches it, and a decoded word ignores it.
                    assert_eq!(Rh::from_word(mask), zero, "{f} is ignored");
                    continue;
                }
            }
            assert_eq!(r.word(), mask, "{f} [{hi}:{lo}]");
            assert_eq!(Rh::from_word(mask), r, "{f} decodes from [{hi}:{lo}]");
        }
        assert_eq!(next, -1, "the fields cover 64 bits");
        let n = wire_notes(&RhDoc { version: 1, xpuid: "the local_xpuid input", ack_vc: 1, partition: 5, partition_check: false, rcrc: Rcrc::Crc32 });
        assert!(n[0].contains("ver [63:62] = version = 1; op [61:60]") && n[0].contains("xpuid [57:48] = source XPU: the local_xpuid input") && n[0].contains("rpsn [15:0] = ACK"), "{}", n[0]);
        assert!(n[1].starts_with("RH op: 0 NONE (no acknowledgement), 1 ACK (cumulative), 2 NACK, 3 reserved"), "{}", n[1]);
        assert!(n[3].contains("poly 0x04C11DB7, init 0xFFFFFFFF, reflected in and out, xorout 0xFFFFFFFF (check value 0xCBF43926") && n[3].contains("constant 0x2144DF1C"), "{}", n[3]);
        let c = wire_notes(&RhDoc { version: 0, xpuid: "2", ack_vc: 0, partition: 0, partition_check: true, rcrc: Rcrc::Crc32c });
        assert!(c[3].contains("poly 0x1EDC6F41") && c[3].contains("0xE3069283") && c[3].contains("0x48674BC7"), "{}", c[3]);
    }

    #[test]
    fn sequence_arithmetic_wraps() {
        assert_eq!(dist(0xFFF0, 0x0005), 0x15);
        assert!(in_range(0xFFF0, 0xFFFF, 0x0002));
        assert!(in_range(0xFFF0, 0x0001, 0x0002));
        assert!(!in_range(0xFFF0, 0x0002, 0x0002));
        assert!(!in_range(0xFFF0, 0xFFEF, 0x0002));
    }
}
