//! Bit-accurate reference model of a CRC in the Rocksoft/reveng parameter model (width, poly,
//! init, refin, refout, xorout), so any catalogue CRC is one instance, plus the Implicit
//! Sequence Number variant of the RXL paper (§7.3): the sequence number is XORed into the low
//! bits of the message before the CRC is computed, so the receiver's expected number enters
//! the check without ever being sent.

use crate::math::gf2::{AffineMap, BitMatrix, BitVec};
use crate::math::lfsr::{mask, reflect, CrcRegister};

/// A CRC algorithm in the Rocksoft model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrcAlgo {
    pub width: u32,
    /// Normal (MSB-first) form, the `x^width` term implied.
    pub poly: u64,
    pub init: u64,
    pub refin: bool,
    pub refout: bool,
    pub xorout: u64,
}

/// A table-driven evaluator of one algorithm: fast enough to check millions of messages.
#[derive(Clone, Debug)]
pub struct CrcModel {
    pub algo: CrcAlgo,
    /// The register left-aligned in 64 bits, stepped a byte at a time.
    table: Box<[u64; 256]>,
}

impl CrcAlgo {
    pub fn register(&self) -> CrcRegister {
        CrcRegister::new(self.width, self.poly)
    }

    /// The output transformation of a final register value: reflection and xorout.
    pub fn finish(&self, reg: u64) -> u64 {
        let r = if self.refout { reflect(reg, self.width) } else { reg };
        (r ^ self.xorout) & mask(self.width)
    }

    /// The feed position of message bit `k` (byte `k/8`, bit `k%8`): bytes go in order, each
    /// MSB first unless `refin`.
    pub fn feed_position(&self, k: usize) -> usize {
        let (byte, bit) = (k / 8, k % 8);
        8 * byte + if self.refin { bit } else { 7 - bit }
    }

    /// `crc = M·[data | seq] ⊕ c` for a message of `data_bits` bits with `seq_bits` of
    /// sequence number XORed into data bits `0..seq_bits`. Input column `k < data_bits` is
    /// `data[k]`, column `data_bits + j` is `seq[j]`, i.e. the Verilog vector `{seq, data}`.
    pub fn affine(&self, data_bits: usize, seq_bits: usize) -> AffineMap {
        let w = self.width as usize;
        let unrolled = self.register().unroll(data_bits);
        let init = BitVec::from_u128(w, self.init as u128);
        let reg_const = unrolled.state.mul_vec(&init);
        // Register bit r as a function of data bit k (reordered from feed order).
        let mut reg_rows: Vec<BitVec> = Vec::with_capacity(w);
        for r in 0..w {
            let fed = unrolled.input.row(r);
            let mut row = BitVec::zeros(data_bits + seq_bits);
            for k in 0..data_bits {
                if fed.get(self.feed_position(k)) {
                    row.set(k, true);
                }
            }
            // A seq bit is the data bit it is XORed into: the same column, repeated.
            for j in 0..seq_bits {
                if row.get(j) {
                    row.set(data_bits + j, true);
                }
            }
            reg_rows.push(row);
        }
        // Output bit i is register bit i, or bit w-1-i when refout.
        let out_rows: Vec<BitVec> = (0..w).map(|i| reg_rows[if self.refout { w - 1 - i } else { i }].clone()).collect();
        let mut constant = BitVec::zeros(w);
        for i in 0..w {
            let reg_bit = if self.refout { w - 1 - i } else { i };
            constant.set(i, reg_const.get(reg_bit) ^ ((self.xorout >> i) & 1 == 1));
        }
        AffineMap { matrix: BitMatrix::from_rows(data_bits + seq_bits, out_rows), constant }
    }
}

impl CrcModel {
    pub fn new(algo: CrcAlgo) -> Self {
        let w = algo.width;
        let top_poly = algo.poly << (64 - w);
        let mut table = Box::new([0u64; 256]);
        for (b, entry) in table.iter_mut().enumerate() {
            let mut r = (b as u64) << 56;
            for _ in 0..8 {
                r = if r >> 63 == 1 { (r << 1) ^ top_poly } else { r << 1 };
            }
            *entry = r;
        }
        CrcModel { algo, table }
    }

    /// The register (left-aligned) before any byte.
    pub fn start(&self) -> u64 {
        self.algo.init << (64 - self.algo.width)
    }

    /// Feed whole bytes into a left-aligned register.
    pub fn update(&self, mut reg: u64, bytes: &[u8]) -> u64 {
        for &b in bytes {
            let b = if self.algo.refin { b.reverse_bits() } else { b };
            reg = (reg << 8) ^ self.table[((reg >> 56) as u8 ^ b) as usize];
        }
        reg
    }

    /// The CRC of a left-aligned register after the last byte.
    pub fn finish(&self, reg: u64) -> u64 {
        self.algo.finish(reg >> (64 - self.algo.width))
    }

    /// The catalogue CRC of a byte string.
    pub fn checksum(&self, bytes: &[u8]) -> u64 {
        self.finish(self.update(self.start(), bytes))
    }

    /// The ISN CRC: `seq` (its low `seq_bits` bits) XORed into message bits `0..seq_bits`
    /// (byte 0 bit 0 upward) before the CRC. The receiver computes it with its expected number.
    pub fn isn_checksum(&self, bytes: &[u8], seq: u64, seq_bits: u32) -> u64 {
        if seq_bits == 0 {
            return self.checksum(bytes);
        }
        let mut head = [0u8; 4];
        let n = (seq_bits as usize).div_ceil(8);
        head[..n].copy_from_slice(&bytes[..n]);
        let seq = seq & mask(seq_bits);
        for (i, h) in head.iter_mut().take(n).enumerate() {
            *h ^= (seq >> (8 * i)) as u8;
        }
        let reg = self.update(self.start(), &head[..n]);
        self.finish(self.update(reg, &bytes[n..]))
    }

    /// The CRC of a message of `data_bits` bits (a multiple of 8) as the RTL sees it.
    pub fn of_bits(&self, data: &BitVec, seq: u64, seq_bits: u32) -> u64 {
        self.isn_checksum(&data.to_bytes(), seq, seq_bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const CRC32_ISO_HDLC: CrcAlgo = CrcAlgo { width: 32, poly: 0x04C1_1DB7, init: 0xFFFF_FFFF, refin: true, refout: true, xorout: 0xFFFF_FFFF };

    #[test]
    fn crc32_check_value() {
        assert_eq!(CrcModel::new(CRC32_ISO_HDLC).checksum(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn affine_map_matches_table_model() {
        let algos = [
            CRC32_ISO_HDLC,
            CrcAlgo { width: 64, poly: 0x42F0_E1EB_A9EA_3693, init: 0, refin: false, refout: false, xorout: 0 },
            CrcAlgo { width: 12, poly: 0x80F, init: 0, refin: false, refout: true, xorout: 0 },
            CrcAlgo { width: 5, poly: 0x09, init: 0x09, refin: false, refout: false, xorout: 0 },
            CrcAlgo { width: 16, poly: 0x8005, init: 0xB2AA, refin: true, refout: false, xorout: 0x1234 },
        ];
        for algo in algos {
            let model = CrcModel::new(algo);
            for &(bytes, seq_bits) in &[(9usize, 0u32), (9, 10), (3, 1), (30, 17)] {
                let map = algo.affine(8 * bytes, seq_bits as usize);
                for t in 0..20u64 {
                    let data: Vec<u8> = (0..bytes).map(|i| (i as u64 * 37 + t * 101 + 7) as u8).collect();
                    let seq = (t * 0x9E37_79B9) & mask(seq_bits.max(1));
                    let seq = if seq_bits == 0 { 0 } else { seq };
                    let input = BitVec::from_bytes(8 * bytes, &data).concat_above(&BitVec::from_u128(seq_bits as usize, seq as u128));
                    let hw = map.apply(&input).to_u128() as u64;
                    assert_eq!(hw, model.isn_checksum(&data, seq, seq_bits), "{algo:?} {bytes} bytes seq_bits {seq_bits}");
                }
            }
        }
    }

    #[test]
    fn isn_equals_crc_of_data_xor_seq() {
        let m = CrcModel::new(CRC32_ISO_HDLC);
        let data = [0x5Au8; 12];
        let mut xored = data;
        xored[0] ^= 0x34;
        xored[1] ^= 0x02;
        assert_eq!(m.isn_checksum(&data, 0x234, 10), m.checksum(&xored));
        assert_eq!(m.isn_checksum(&data, 0, 10), m.checksum(&data));
    }
}
