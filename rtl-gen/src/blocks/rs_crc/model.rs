//! Reference model of the `rs_crc` block: a "CRC" defined over GF(2^m), as the PCIe 6.0 / CXL 3
//! flit CRC is.
//!
//! The check symbols are the remainder of data(x)·x^count mod g(x), with
//! g(x) = (x + α^first)(x + α^(first+1))…(x + α^(first+count−1)) and α a root of the field
//! polynomial: the check symbols of a systematic Reed-Solomon code with fcr = first. The PCIe
//! flit CRC uses GF(2^8) mod x^8+x^5+x^3+x+1 (0x12B), first = 1, count = 8, over flit bytes
//! 0..=241, the 8 check bytes travelling in flit bytes 242..=249. 0x12B is primitive (α has
//! order 255; tested below), so the ordinary [`Gf2m`] field applies and data plus check
//! (250 symbols ≤ 255) form a shortened RS(255, 247) codeword: any ≤ 8 corrupted bytes are
//! detected.
//!
//! The map from data bits to check bits is GF(2)-linear, so the implicit sequence number folds
//! in exactly as for the binary ISN CRC: the seq number is XORed into the lowest `seq_bits` bits
//! of the data bit vector (data bit k = byte k/8 bit k%8) before the check is computed.
//!
//! Orientation (the normative generator matrix is not public here, so which byte is the
//! highest-degree coefficient is a parameter, to be matched to a real device):
//! - [`Orientation::MsbFirst`]: data byte 0 is the highest-degree coefficient of data(x); the
//!   highest-degree remainder coefficient is check symbol 0 (the lowest check byte, flit byte
//!   242). Data followed by check is then a codeword in transmission order.
//! - [`Orientation::LsbFirst`]: the reverse: data byte 0 is the coefficient of x^0 of data(x)
//!   and check symbol 0 is the remainder's x^0 coefficient.
//!
//! - Bit order ([`RsCrc::with_bit_map`], either orientation): which bus bit of a symbol carries
//!   the coefficient of α^b, for data and check symbols alike. The default is bus bit b;
//!   [`RsCrc::with_reflected_bits`] uses bus bit m−1−b (each byte read MSB first).
//!
//! Burst detection: any burst of ≤ 57 bits lies within 8 symbols and is always detected (the
//! code is MDS with 8 check symbols). A burst of 58..=64 bits can straddle 9 bytes. The error
//! patterns confined to 9 consecutive symbols that leave the check unchanged are exactly
//! c·x^d·g(x), c ≠ 0, whose end symbols are c (highest degree) and c·g_0 (lowest; g_0 = α^36 for
//! roots α^1..α^8): such a burst goes undetected iff some c puts both end symbols inside the
//! partial bytes the burst covers, a condition that does not depend on where the burst starts
//! ([`RsCrc::guaranteed_burst_bits`] evaluates it over the 2^m − 1 values of c). With data bit
//! k = byte k/8 bit k%8, measured over 242 bytes: every burst of ≤ 62 bits (MsbFirst), 63
//! (LsbFirst), 63 (MsbFirst, reflected bits) or 62 (LsbFirst, reflected bits) is detected, and
//! none of the four reaches 64: e.g. the 63-bit burst at data bits 7..=69 with bytes
//! 80 A7 AD 46 A7 3E 67 9D 2D (MsbFirst) leaves the check unchanged. A "64-bit burst"
//! guarantee as for a binary CRC-64 needs a less regular order of the bits inside the symbols:
//! 691 of the 40320 permutations of a byte's bits achieve it for either orientation, and
//! [`RsCrc::burst_optimal_bit_map`] picks the first of them in lexicographic order (tested
//! below against an independent rank computation).
//!
//! For symbol widths other than 8, the data bit vector is cut into m-bit symbols LSB first
//! (symbol s = data bits [m·s+m−1 : m·s], the last one zero-padded at the top) and the check
//! symbols are packed the same way into count·m bits.

use std::fmt;

use crate::math::gf2m::{get_bit, set_bit, AffineMasks, Gf2m, Gf2mError};

/// Which end of the data is the highest-degree coefficient (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Orientation {
    MsbFirst,
    LsbFirst,
}

/// Why an `rs_crc` configuration was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RsCrcError {
    Field(Gf2mError),
    /// A parameter out of range; the text names it.
    Params(String),
}

impl fmt::Display for RsCrcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RsCrcError::Field(e) => e.fmt(f),
            RsCrcError::Params(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for RsCrcError {}

impl From<Gf2mError> for RsCrcError {
    fn from(e: Gf2mError) -> Self {
        RsCrcError::Field(e)
    }
}

/// x^8 + x^5 + x^3 + x + 1, the field of the PCIe 6.0 flit CRC.
pub const PCIE6_CRC_FIELD_POLY: u32 = 0x12B;
/// Data bytes the PCIe 6.0 flit CRC covers (2 B header + 240 B payload).
pub const PCIE6_CRC_DATA_BYTES: usize = 242;

/// The GF(2^m) CRC with an optional implicit sequence number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RsCrc {
    field: Gf2m,
    first_root: u32,
    count: usize,
    data_bytes: usize,
    seq_bits: u32,
    orientation: Orientation,
    /// `bit_map[b]` is the bus bit (within its symbol) carrying symbol bit b, the coefficient
    /// of α^b, for data and check symbols alike.
    bit_map: Vec<u8>,
    /// Monic generator, highest degree first, count + 1 coefficients.
    generator: Vec<u16>,
}

impl RsCrc {
    /// Validates and builds the CRC. `seq_bits` = 0 disables the implicit sequence number.
    pub fn new(
        symbol_bits: u32,
        field_poly: u32,
        first_root: u32,
        count: usize,
        data_bytes: usize,
        seq_bits: u32,
        orientation: Orientation,
    ) -> Result<RsCrc, RsCrcError> {
        let field = Gf2m::new(symbol_bits, field_poly)?;
        if count == 0 {
            return Err(RsCrcError::Params("roots.count must be at least 1".into()));
        }
        if data_bytes == 0 {
            return Err(RsCrcError::Params("data_bytes must be at least 1".into()));
        }
        let data_symbols = (8 * data_bytes).div_ceil(symbol_bits as usize);
        if data_symbols + count > field.order() as usize {
            return Err(RsCrcError::Params(format!(
                "data_bytes = {data_bytes} makes {data_symbols} data symbols + {count} check symbols, \
                 more than the {} of a Reed-Solomon code over GF(2^{symbol_bits}): errors in two \
                 symbols could go undetected",
                field.order()
            )));
        }
        if seq_bits > 32 || seq_bits as usize > 8 * data_bytes {
            return Err(RsCrcError::Params(format!(
                "seq_bits = {seq_bits} must be at most 32 and at most the {} data bits",
                8 * data_bytes
            )));
        }
        let generator = field.roots_poly(i64::from(first_root), count);
        Ok(RsCrc {
            field,
            first_root,
            count,
            data_bytes,
            seq_bits,
            orientation,
            bit_map: (0..symbol_bits as u8).collect(),
            generator,
        })
    }

    /// The same CRC with the bits of every symbol reflected (data and check alike): symbol bit b
    /// (the coefficient of α^b) is bus bit m−1−b of its symbol, i.e. each byte is read MSB
    /// first as a field element. Off by default.
    pub fn with_reflected_bits(self, reflect: bool) -> RsCrc {
        let m = self.field.m() as u8;
        let map = if reflect { (0..m).rev().collect() } else { (0..m).collect() };
        self.with_bit_map(map)
    }

    /// The same CRC with another bit order inside the symbols: `map[b]` is the bus bit that
    /// carries symbol bit b (the coefficient of α^b), for data and check symbols alike.
    /// Panics unless `map` is a permutation of 0..m.
    pub fn with_bit_map(mut self, map: Vec<u8>) -> RsCrc {
        let m = self.field.m() as usize;
        let mut seen = vec![false; m];
        assert!(map.len() == m && map.iter().all(|&j| (j as usize) < m && !std::mem::replace(&mut seen[j as usize], true)), "bit map {map:?} is not a permutation of 0..{m}");
        self.bit_map = map;
        self
    }

    /// `bit_map()[b]` is the bus bit carrying symbol bit b.
    pub fn bit_map(&self) -> &[u8] {
        &self.bit_map
    }

    /// Whether the bit order is the reflected one (bus bit m−1−b carries α^b).
    pub fn reflect_bits(&self) -> bool {
        let m = self.bit_map.len();
        self.bit_map.iter().enumerate().all(|(b, &j)| j as usize == m - 1 - b)
    }

    /// Longest L such that every burst of ≤ L data bits (data bit k = byte k/8 bit k%8, the
    /// sequence number zero) changes the check, from the analysis in the module doc: bursts
    /// within root_count symbols are always detected; one spanning root_count + 1 symbols is
    /// missed iff it covers both end symbols of some c·x^d·g(x). Exact when the data holds at
    /// least root_count + 1 whole symbols, which is when such bursts exist at all.
    pub fn guaranteed_burst_bits(&self) -> usize {
        Self::burst_bits_for(&self.field, &self.generator, self.orientation, &self.bit_map, self.data_symbols())
    }

    fn burst_bits_for(field: &Gf2m, generator: &[u16], orientation: Orientation, map: &[u8], data_symbols: usize) -> usize {
        let m = field.m() as usize;
        let count = generator.len() - 1;
        if data_symbols <= count {
            return m * data_symbols.max(1);
        }
        let g0 = generator[count];
        let bus = |symbol: u16| (0..m).fold(0u32, |acc, b| acc | u32::from(symbol >> b & 1) << map[b]);
        let mut best = count * m;
        for c in 1..=field.mask() {
            let (first, last) = match orientation {
                Orientation::MsbFirst => (c, field.mul(c, g0)),
                Orientation::LsbFirst => (field.mul(c, g0), c),
            };
            let (f, l) = (bus(first), bus(last));
            // The shortest burst covering both: from f's lowest bus bit to l's highest.
            let span = (m - f.trailing_zeros() as usize) + (count - 1) * m + (32 - l.leading_zeros() as usize);
            best = best.min(span - 1);
        }
        best
    }

    /// The bit order (see [`RsCrc::with_bit_map`]) with the longest [`RsCrc::guaranteed_burst_bits`],
    /// the first in lexicographic order among equals, and that length. Searches all m!
    /// permutations, so m ≤ 8 (40320 orders); panics otherwise.
    pub fn burst_optimal_bit_map(&self) -> (Vec<u8>, usize) {
        let m = self.field.m() as usize;
        assert!(m <= 8, "the bit-order search covers symbol widths up to 8, not {m}");
        let mut perm: Vec<u8> = (0..m as u8).collect();
        let mut best = (perm.clone(), Self::burst_bits_for(&self.field, &self.generator, self.orientation, &perm, self.data_symbols()));
        while next_permutation(&mut perm) {
            let bits = Self::burst_bits_for(&self.field, &self.generator, self.orientation, &perm, self.data_symbols());
            if bits > best.1 {
                best = (perm.clone(), bits);
            }
        }
        best
    }

    /// Bus bit (within its symbol) that carries symbol bit `b`.
    fn bus_bit(&self, b: usize) -> usize {
        self.bit_map[b] as usize
    }

    /// The PCIe 6.0 / CXL 3 flit CRC over 242 bytes (0x12B, roots α^1..α^8), with a
    /// `seq_bits`-bit implicit sequence number (10 for the RXL flit CRC, 0 for plain CXL).
    pub fn pcie6_flit(seq_bits: u32, orientation: Orientation) -> RsCrc {
        RsCrc::new(
            8,
            PCIE6_CRC_FIELD_POLY,
            1,
            8,
            PCIE6_CRC_DATA_BYTES,
            seq_bits,
            orientation,
        )
        .expect("PCIe 6.0 flit CRC parameters are valid")
    }

    pub fn field(&self) -> &Gf2m {
        &self.field
    }

    pub fn first_root(&self) -> u32 {
        self.first_root
    }

    /// Number of check symbols (= generator degree).
    pub fn count(&self) -> usize {
        self.count
    }

    pub fn data_bytes(&self) -> usize {
        self.data_bytes
    }

    pub fn data_bits(&self) -> usize {
        8 * self.data_bytes
    }

    pub fn seq_bits(&self) -> u32 {
        self.seq_bits
    }

    pub fn orientation(&self) -> Orientation {
        self.orientation
    }

    /// Generator polynomial, monic, highest degree first.
    pub fn generator(&self) -> &[u16] {
        &self.generator
    }

    /// Data symbols after cutting the data bits into m-bit symbols.
    pub fn data_symbols(&self) -> usize {
        self.data_bits().div_ceil(self.field.m() as usize)
    }

    /// Width of the `crc` port in bits, count·m.
    pub fn crc_bits_len(&self) -> usize {
        self.count * self.field.m() as usize
    }

    /// Data symbols with the sequence number folded in, in transmission order (symbol 0 =
    /// data bits [m−1:0]). `seq` is truncated to `seq_bits` bits, like the port.
    fn data_symbols_with_seq(&self, data: &[u8], seq: u64) -> Vec<u16> {
        assert_eq!(data.len(), self.data_bytes, "rs_crc data length in bytes");
        let m = self.field.m() as usize;
        let bit = |k: usize| {
            let seq_bit = k < self.seq_bits as usize && seq >> k & 1 == 1;
            k < self.data_bits() && get_bit(data, k) != seq_bit
        };
        (0..self.data_symbols())
            .map(|s| (0..m).fold(0u16, |acc, b| acc | u16::from(bit(s * m + self.bus_bit(b))) << b))
            .collect()
    }

    /// The check symbols in port order (check symbol 0 first).
    pub fn check_symbols(&self, data: &[u8], seq: u64) -> Vec<u16> {
        let mut symbols = self.data_symbols_with_seq(data, seq);
        if self.orientation == Orientation::LsbFirst {
            symbols.reverse();
        }
        let mut remainder = self.remainder_highest_first(&symbols);
        if self.orientation == Orientation::LsbFirst {
            remainder.reverse();
        }
        remainder
    }

    /// data(x)·x^count mod g(x) for coefficients given highest degree first, by the LFSR
    /// division the hardware unrolls; the remainder comes out highest degree first.
    fn remainder_highest_first(&self, coefficients: &[u16]) -> Vec<u16> {
        let mut remainder = vec![0u16; self.count];
        let last = self.count - 1;
        for &c in coefficients {
            let feedback = c ^ remainder[0];
            remainder.copy_within(1.., 0);
            remainder[last] = 0;
            if feedback != 0 {
                for (r, &g) in remainder.iter_mut().zip(&self.generator[1..]) {
                    *r ^= self.field.mul(feedback, g);
                }
            }
        }
        remainder
    }

    /// The `crc` port value, byte-packed: bit i at byte i/8 bit i%8 (for 8-bit symbols, check
    /// symbol j is byte j, bits [8j+7:8j]).
    pub fn crc(&self, data: &[u8], seq: u64) -> Vec<u8> {
        let m = self.field.m() as usize;
        let mut bits = vec![0u8; self.crc_bits_len().div_ceil(8)];
        for (j, &symbol) in self.check_symbols(data, seq).iter().enumerate() {
            for b in 0..m {
                set_bit(&mut bits, j * m + self.bus_bit(b), symbol >> b & 1 == 1);
            }
        }
        bits
    }

    /// The `crc` port value as bits, index i = port bit i.
    pub fn crc_bits(&self, data: &[u8], seq: u64) -> Vec<bool> {
        let packed = self.crc(data, seq);
        (0..self.crc_bits_len())
            .map(|i| get_bit(&packed, i))
            .collect()
    }

    /// The checker: `ok` when the received `crc_in` (byte-packed like [`RsCrc::crc`]) matches
    /// the data under the expected sequence number.
    pub fn check(&self, data: &[u8], expected_seq: u64, crc_in: &[u8]) -> bool {
        let expected = self.crc(data, expected_seq);
        (0..self.crc_bits_len()).all(|i| get_bit(&expected, i) == get_bit(crc_in, i))
    }

    /// GF(2)-linear map to the crc bits from the inputs data bits 0..data_bits, followed by seq
    /// bits 0..seq_bits (input data_bits + b = seq bit b), probed on unit vectors. A seq bit's
    /// column equals the column of the data bit it is XORed into.
    pub fn affine_columns(&self) -> AffineMasks {
        let data_bits = self.data_bits();
        AffineMasks::probe(
            data_bits + self.seq_bits as usize,
            self.crc_bits_len(),
            |input| {
                let data: Vec<u8> = (0..self.data_bytes)
                    .map(|i| {
                        (0..8).fold(0u8, |acc, b| acc | u8::from(get_bit(input, 8 * i + b)) << b)
                    })
                    .collect();
                let seq = (0..self.seq_bits as usize).fold(0u64, |acc, b| {
                    acc | u64::from(get_bit(input, data_bits + b)) << b
                });
                self.crc(&data, seq)
            },
        )
    }
}

/// The next permutation in lexicographic order, in place; false after the last one.
fn next_permutation(p: &mut [u8]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else { return false };
    let j = (i..p.len()).rev().find(|&j| p[j] > p[i - 1]).expect("a larger element exists");
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::math::splitmix::SplitMix64 as Rng;

    #[test]
    fn pcie6_field_is_primitive_and_generator_has_the_roots() {
        let crc = RsCrc::pcie6_flit(10, Orientation::MsbFirst);
        let f = crc.field();
        assert_eq!(f.order(), 255);
        assert_eq!(crc.generator().len(), 9);
        for i in 1..=8 {
            assert_eq!(f.poly_eval(crc.generator(), f.alpha(i)), 0);
        }
        assert_ne!(f.poly_eval(crc.generator(), f.alpha(0)), 0);
    }

    /// MsbFirst: data followed by the check bytes is a codeword (zero at every root).
    #[test]
    fn msb_first_data_and_check_form_a_codeword() {
        let mut rng = Rng::new(1);
        let crc = RsCrc::pcie6_flit(0, Orientation::MsbFirst);
        let f = crc.field();
        for _ in 0..50 {
            let data = rng.bytes(242);
            let check = crc.crc(&data, 0);
            assert_eq!(check.len(), 8);
            let codeword: Vec<u16> = data.iter().chain(&check).map(|&b| u16::from(b)).collect();
            for i in 1..=8 {
                assert_eq!(f.poly_eval(&codeword, f.alpha(i)), 0);
            }
        }
    }

    /// LsbFirst: c(x) = Σ data_s·x^(8+s) + Σ check_j·x^j vanishes at every root.
    #[test]
    fn lsb_first_is_the_reversed_convention() {
        let mut rng = Rng::new(2);
        let crc = RsCrc::pcie6_flit(0, Orientation::LsbFirst);
        let f = crc.field();
        let data = rng.bytes(242);
        let check = crc.crc(&data, 0);
        let mut highest_first: Vec<u16> = data.iter().rev().map(|&b| u16::from(b)).collect();
        highest_first.extend(check.iter().rev().map(|&b| u16::from(b)));
        for i in 1..=8 {
            assert_eq!(f.poly_eval(&highest_first, f.alpha(i)), 0);
        }
        assert_ne!(
            check,
            RsCrc::pcie6_flit(0, Orientation::MsbFirst).crc(&data, 0)
        );
    }

    #[test]
    fn seq_is_xored_into_the_lowest_data_bits() {
        let mut rng = Rng::new(3);
        let crc = RsCrc::pcie6_flit(10, Orientation::MsbFirst);
        let plain = RsCrc::pcie6_flit(0, Orientation::MsbFirst);
        let data = rng.bytes(242);
        let seq = 0x2A5;
        let mut folded = data.clone();
        folded[0] ^= 0xA5;
        folded[1] ^= 0x02;
        assert_eq!(crc.crc(&data, seq), plain.crc(&folded, 0));
        // Bits above seq_bits are ignored, as on the port.
        assert_eq!(crc.crc(&data, seq | 0xFC00), crc.crc(&data, seq));
        assert!(crc.check(&data, seq, &crc.crc(&data, seq)));
        for wrong in 0..1024 {
            if wrong != seq {
                assert!(
                    !crc.check(&data, wrong, &crc.crc(&data, seq)),
                    "seq {wrong}"
                );
            }
        }
    }

    /// Rank over GF(2) of 64-bit columns.
    fn rank(mut columns: Vec<u64>) -> usize {
        let mut rank = 0;
        for bit in 0..64 {
            let Some(p) = (rank..columns.len()).find(|&i| columns[i] >> bit & 1 == 1) else {
                continue;
            };
            columns.swap(rank, p);
            let pivot = columns[rank];
            for c in columns.iter_mut().skip(rank + 1) {
                if *c >> bit & 1 == 1 {
                    *c ^= pivot;
                }
            }
            rank += 1;
        }
        rank
    }

    /// Longest L such that every burst of ≤ L bits in the data (bit order k = 8·byte + bit) is
    /// detected: every L consecutive columns of the data→crc map are linearly independent.
    fn guaranteed_burst(crc: &RsCrc) -> usize {
        let map = crc.affine_columns();
        let column = |i: usize| -> u64 {
            map.rows
                .iter()
                .enumerate()
                .fold(0, |acc, (o, row)| acc | (row[i / 64] >> (i % 64) & 1) << o)
        };
        let columns: Vec<u64> = (0..map.inputs).map(column).collect();
        (1..=64)
            .take_while(|&len| {
                (0..=columns.len() - len).all(|s| rank(columns[s..s + len].to_vec()) == len)
            })
            .last()
            .unwrap_or(0)
    }

    /// Any burst of ≤ 57 bits lies in ≤ 8 bytes, which an MDS code with 8 check bytes always
    /// detects. Longer bursts straddle 9 bytes and depend on the orientation: measured, every
    /// burst of ≤ 62 bits (MsbFirst) or ≤ 63 bits (LsbFirst) is detected, and a 63-bit
    /// (MsbFirst) or 64-bit (LsbFirst) burst exists that is not — so "all bursts ≤ 64 bits"
    /// does not hold for this code in this bit order (see the module doc).
    #[test]
    fn burst_detection_guarantee() {
        for (orientation, reflect, expected) in [
            (Orientation::MsbFirst, false, 62),
            (Orientation::LsbFirst, false, 63),
            (Orientation::MsbFirst, true, 63),
            (Orientation::LsbFirst, true, 62),
        ] {
            let crc = RsCrc::pcie6_flit(0, orientation).with_reflected_bits(reflect);
            let longest = guaranteed_burst(&crc);
            println!("{orientation:?} reflect_bits={reflect}: every burst of <= {longest} bits is detected");
            assert_eq!(longest, expected, "{orientation:?} reflect_bits={reflect}");
        }
        // The closed form agrees, and the searched bit orders reach 64 (checked by ranks).
        for (orientation, reflect, expected) in [(Orientation::MsbFirst, false, 62), (Orientation::LsbFirst, false, 63), (Orientation::MsbFirst, true, 63)] {
            assert_eq!(RsCrc::pcie6_flit(0, orientation).with_reflected_bits(reflect).guaranteed_burst_bits(), expected);
        }
        for (orientation, map) in [(Orientation::MsbFirst, vec![0, 4, 7, 6, 1, 5, 2, 3]), (Orientation::LsbFirst, vec![0, 1, 2, 3, 7, 4, 5, 6])] {
            let plain = RsCrc::pcie6_flit(0, orientation);
            assert_eq!(plain.burst_optimal_bit_map(), (map.clone(), 64), "{orientation:?}");
            let crc = plain.with_bit_map(map);
            assert_eq!(crc.guaranteed_burst_bits(), 64);
            assert_eq!(guaranteed_burst(&crc), 64, "{orientation:?}");
        }
        // The undetected 63-bit burst of MsbFirst, found by the rank search: bits 7..=69.
        let crc = RsCrc::pcie6_flit(0, Orientation::MsbFirst);
        let mut burst = vec![0u8; 242];
        burst[..9].copy_from_slice(&[0x80, 0xA7, 0xAD, 0x46, 0xA7, 0x3E, 0x67, 0x9D, 0x2D]);
        assert_eq!(crc.crc(&burst, 0), vec![0; 8]);
    }

    #[test]
    fn affine_columns_match_the_model() {
        let mut rng = Rng::new(4);
        for crc in [
            RsCrc::pcie6_flit(10, Orientation::MsbFirst),
            RsCrc::pcie6_flit(32, Orientation::LsbFirst),
            RsCrc::new(10, 0x409, 0, 6, 40, 7, Orientation::MsbFirst).unwrap(),
            RsCrc::pcie6_flit(10, Orientation::MsbFirst).with_reflected_bits(true),
            RsCrc::new(10, 0x409, 0, 6, 40, 7, Orientation::LsbFirst).unwrap().with_reflected_bits(true),
        ] {
            let map = crc.affine_columns();
            assert_eq!(map.inputs, crc.data_bits() + crc.seq_bits() as usize);
            assert!(map.constant.iter().all(|&c| !c));
            for _ in 0..20 {
                let data = rng.bytes(crc.data_bytes());
                let seq = rng.next_u64() & ((1u64 << crc.seq_bits()) - 1);
                let mut input = data.clone();
                input.extend_from_slice(&seq.to_le_bytes()[..4]);
                // Inputs: data bits then seq bits, so seq starts at bit data_bits (byte-aligned).
                assert_eq!(map.apply(&input), crc.crc(&data, seq));
            }
        }
    }

    /// Reflected bits: the same code on bytes read MSB first, data and check alike.
    #[test]
    fn reflected_bits_reverse_every_byte() {
        let mut rng = Rng::new(5);
        for orientation in [Orientation::MsbFirst, Orientation::LsbFirst] {
            let plain = RsCrc::pcie6_flit(0, orientation);
            let reflected = plain.clone().with_reflected_bits(true);
            assert!(reflected.reflect_bits() && !plain.reflect_bits());
            let data = rng.bytes(242);
            let reversed: Vec<u8> = data.iter().map(|b| b.reverse_bits()).collect();
            let expected: Vec<u8> = plain.crc(&reversed, 0).iter().map(|b| b.reverse_bits()).collect();
            assert_eq!(reflected.crc(&data, 0), expected);
        }
        // The ISN still enters data bits 0..seq_bits of the bus.
        let crc = RsCrc::pcie6_flit(10, Orientation::MsbFirst).with_reflected_bits(true);
        let data = rng.bytes(242);
        let mut folded = data.clone();
        folded[0] ^= 0x5A;
        folded[1] ^= 0x01;
        assert_eq!(crc.crc(&data, 0x15A), crc.clone().crc(&folded, 0));
    }

    #[test]
    fn non_byte_symbols() {
        let crc = RsCrc::new(10, 0x409, 0, 6, 40, 7, Orientation::MsbFirst).unwrap();
        assert_eq!(crc.data_symbols(), 32);
        assert_eq!(crc.crc_bits_len(), 60);
        let data: Vec<u8> = (0..40).map(|i| (i * 37 + 11) as u8).collect();
        let bits = crc.crc_bits(&data, 5);
        assert_eq!(bits.len(), 60);
        let check = crc.check_symbols(&data, 5);
        for (j, &s) in check.iter().enumerate() {
            for b in 0..10 {
                assert_eq!(bits[10 * j + b], s >> b & 1 == 1);
            }
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(RsCrc::new(8, 0x12B, 1, 8, 248, 0, Orientation::MsbFirst).is_err());
        assert!(RsCrc::new(8, 0x12B, 1, 8, 247, 0, Orientation::MsbFirst).is_ok());
        assert!(RsCrc::new(8, 0x12B, 1, 0, 10, 0, Orientation::MsbFirst).is_err());
        assert!(RsCrc::new(8, 0x12B, 1, 8, 10, 33, Orientation::MsbFirst).is_err());
        assert!(RsCrc::new(8, 0x12B, 1, 8, 2, 17, Orientation::MsbFirst).is_err());
        let e = RsCrc::new(8, 0x11B, 1, 8, 242, 0, Orientation::MsbFirst).unwrap_err();
        assert!(e.to_string().contains("not primitive"), "{e}");
    }
}
