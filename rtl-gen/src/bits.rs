//! `Bits`: an arbitrary-width bit vector, the value type of every port.
//!
//! Ports range from 1 to 16384 bits (the ISN CRC-64 has a 1946-bit input, the RS FEC 2048-bit
//! ports), so values are stored as little-endian `u64` words: bit `i` is bit `i % 64` of word
//! `i / 64`. The bits above `width` are always zero; every constructor and mutator keeps that
//! invariant, which is what lets equality be plain word comparison and lets the bridge copy
//! words straight into Verilator's port storage (Verilator requires unused high bits to be 0).
//!
//! Byte order follows the project convention: byte `i` of a byte slice is bits `[8i+7:8i]`.
//!
//! Indexing out of range (`get`, `set`, `slice`, `set_slice`) panics like slice indexing does:
//! it is a bug in the calling test, not a runtime condition. Everything that can fail because of
//! data (values that do not fit a width) returns `Option`/`Result` instead.

use std::fmt;
use std::ops::{BitAnd, BitOr, BitXor, Not};

use rand::Rng;

/// An arbitrary-width bit vector. See the module docs for the representation.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Bits {
    width: usize,
    words: Vec<u64>,
}

fn words_for(width: usize) -> usize {
    width.div_ceil(64)
}

impl Bits {
    /// All-zero vector of `width` bits. A width of 0 is allowed (an empty vector).
    pub fn zeros(width: usize) -> Self {
        Bits {
            width,
            words: vec![0; words_for(width)],
        }
    }

    /// All-one vector of `width` bits.
    pub fn ones(width: usize) -> Self {
        let mut b = Bits {
            width,
            words: vec![u64::MAX; words_for(width)],
        };
        b.mask_top();
        b
    }

    /// `value` truncated to `width` bits (bits of `value` at or above `width` are dropped).
    /// Use [`Bits::try_from_u64`] to get `None` instead of silent truncation.
    pub fn from_u64(value: u64, width: usize) -> Self {
        let mut b = Bits::zeros(width);
        if let Some(w) = b.words.first_mut() {
            *w = value;
        }
        b.mask_top();
        b
    }

    /// `value` as a `width`-bit vector, or `None` if it does not fit.
    pub fn try_from_u64(value: u64, width: usize) -> Option<Self> {
        let b = Bits::from_u64(value, width);
        (b.low_u64() == value).then_some(b)
    }

    /// `value` truncated to `width` bits.
    pub fn from_u128(value: u128, width: usize) -> Self {
        let mut b = Bits::zeros(width);
        for (i, w) in b.words.iter_mut().take(2).enumerate() {
            *w = (value >> (64 * i)) as u64;
        }
        b.mask_top();
        b
    }

    /// `value` as a `width`-bit vector, or `None` if it does not fit.
    pub fn try_from_u128(value: u128, width: usize) -> Option<Self> {
        let b = Bits::from_u128(value, width);
        (b.low_u128() == value).then_some(b)
    }

    /// Vector of `8 * bytes.len()` bits; byte `i` becomes bits `[8i+7:8i]`.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Bits::from_bytes_width(bytes, bytes.len() * 8)
    }

    /// Vector of `width` bits from a byte slice (byte `i` = bits `[8i+7:8i]`). Missing bytes are
    /// zero; bytes or bits beyond `width` are dropped.
    pub fn from_bytes_width(bytes: &[u8], width: usize) -> Self {
        let mut b = Bits::zeros(width);
        for (i, chunk) in bytes.chunks(8).take(b.words.len()).enumerate() {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            b.words[i] = u64::from_le_bytes(buf);
        }
        b.mask_top();
        b
    }

    /// Vector of `width` bits from little-endian 64-bit words (word 0 = bits `[63:0]`).
    /// Missing words are zero; anything beyond `width` is dropped.
    pub fn from_words(words: &[u64], width: usize) -> Self {
        let mut b = Bits::zeros(width);
        let n = b.words.len().min(words.len());
        b.words[..n].copy_from_slice(&words[..n]);
        b.mask_top();
        b
    }

    /// Uniformly random vector of `width` bits.
    pub fn random<R: Rng + ?Sized>(width: usize, rng: &mut R) -> Self {
        let mut b = Bits::zeros(width);
        for w in &mut b.words {
            *w = rng.random();
        }
        b.mask_top();
        b
    }

    /// Number of bits.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The little-endian 64-bit words (bits above `width` are zero).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// `ceil(width / 8)` bytes, byte `i` = bits `[8i+7:8i]`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.width.div_ceil(8);
        let mut out = Vec::with_capacity(n + 8);
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.truncate(n);
        out
    }

    /// Bits `[63:0]` (zero-extended when narrower); higher bits are ignored.
    pub fn low_u64(&self) -> u64 {
        self.words.first().copied().unwrap_or(0)
    }

    /// Bits `[127:0]` (zero-extended when narrower); higher bits are ignored.
    pub fn low_u128(&self) -> u128 {
        let lo = self.low_u64() as u128;
        let hi = self.words.get(1).copied().unwrap_or(0) as u128;
        lo | (hi << 64)
    }

    /// The value as `u64`, or `None` if a bit at or above 64 is set.
    pub fn to_u64(&self) -> Option<u64> {
        self.words
            .iter()
            .skip(1)
            .all(|&w| w == 0)
            .then(|| self.low_u64())
    }

    /// The value as `u128`, or `None` if a bit at or above 128 is set.
    pub fn to_u128(&self) -> Option<u128> {
        self.words
            .iter()
            .skip(2)
            .all(|&w| w == 0)
            .then(|| self.low_u128())
    }

    /// Bit `i`. Panics if `i >= width`.
    pub fn get(&self, i: usize) -> bool {
        assert!(
            i < self.width,
            "bit {i} out of range for a {}-bit vector",
            self.width
        );
        (self.words[i / 64] >> (i % 64)) & 1 == 1
    }

    /// Sets bit `i` to `v`. Panics if `i >= width`.
    pub fn set(&mut self, i: usize, v: bool) {
        assert!(
            i < self.width,
            "bit {i} out of range for a {}-bit vector",
            self.width
        );
        let m = 1u64 << (i % 64);
        if v {
            self.words[i / 64] |= m;
        } else {
            self.words[i / 64] &= !m;
        }
    }

    /// Bits `[lo+width-1:lo]` as a new `width`-bit vector. Panics if it runs past the end.
    pub fn slice(&self, lo: usize, width: usize) -> Bits {
        assert!(
            lo + width <= self.width,
            "slice [{}:{lo}] out of range for a {}-bit vector",
            (lo + width).wrapping_sub(1),
            self.width
        );
        let mut out = Bits::zeros(width);
        let (shift_w, shift_b) = (lo / 64, lo % 64);
        for (i, o) in out.words.iter_mut().enumerate() {
            let a = self.words.get(shift_w + i).copied().unwrap_or(0);
            let b = self.words.get(shift_w + i + 1).copied().unwrap_or(0);
            *o = if shift_b == 0 {
                a
            } else {
                (a >> shift_b) | (b << (64 - shift_b))
            };
        }
        out.mask_top();
        out
    }

    /// Overwrites bits `[lo+v.width-1:lo]` with `v`. Panics if it runs past the end.
    pub fn set_slice(&mut self, lo: usize, v: &Bits) {
        assert!(
            lo + v.width <= self.width,
            "set_slice of {} bits at {lo} out of range for a {}-bit vector",
            v.width,
            self.width
        );
        // Word-at-a-time: clear the destination field, then OR the shifted source in.
        let mut done = 0;
        while done < v.width {
            let dst = lo + done;
            let (wi, bi) = (dst / 64, dst % 64);
            let n = (64 - bi).min(v.width - done);
            let chunk = v.slice_word(done, n);
            let mask = if n == 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1) << bi
            };
            self.words[wi] = (self.words[wi] & !mask) | (chunk << bi);
            done += n;
        }
    }

    /// Up to 64 bits starting at `lo` (caller guarantees range), right-aligned.
    fn slice_word(&self, lo: usize, n: usize) -> u64 {
        let (wi, bi) = (lo / 64, lo % 64);
        let a = self.words[wi] >> bi;
        let b = if bi != 0 {
            self.words.get(wi + 1).copied().unwrap_or(0) << (64 - bi)
        } else {
            0
        };
        let v = a | b;
        if n == 64 {
            v
        } else {
            v & ((1u64 << n) - 1)
        }
    }

    /// Flips bit `i`. Panics if `i >= width`.
    pub fn flip(&mut self, i: usize) {
        assert!(i < self.width, "bit {i} out of range for a {}-bit vector", self.width);
        self.words[i / 64] ^= 1u64 << (i % 64);
    }

    /// Bits `[lo+w-1:lo]` as an integer, `w` ≤ 64 (the frame codec's and gearboxes' fields).
    /// Panics if the field runs past the end.
    pub fn field(&self, lo: usize, w: usize) -> u64 {
        assert!(w <= 64 && lo + w <= self.width, "field [{}:{lo}] out of range for a {}-bit vector", (lo + w).wrapping_sub(1), self.width);
        if w == 0 {
            return 0;
        }
        self.slice_word(lo, w)
    }

    /// Sets bits `[lo+w-1:lo]` to the low `w` bits of `v`, `w` ≤ 64. Panics if the field runs
    /// past the end.
    pub fn set_field(&mut self, lo: usize, w: usize, v: u64) {
        assert!(w <= 64 && lo + w <= self.width, "field [{}:{lo}] out of range for a {}-bit vector", (lo + w).wrapping_sub(1), self.width);
        if w == 0 {
            return;
        }
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let v = v & mask;
        let (wi, sh) = (lo / 64, lo % 64);
        self.words[wi] = (self.words[wi] & !(mask << sh)) | (v << sh);
        if sh != 0 && sh + w > 64 {
            let hm = (1u64 << (sh + w - 64)) - 1;
            self.words[wi + 1] = (self.words[wi + 1] & !hm) | (v >> (64 - sh));
        }
    }

    /// Byte `i`: bits `[8i+7:8i]` (a partial top byte is zero-extended).
    pub fn byte(&self, i: usize) -> u8 {
        self.field(8 * i, 8.min(self.width.saturating_sub(8 * i))) as u8
    }

    /// Sets byte `i` (bits `[8i+7:8i]`).
    pub fn set_byte(&mut self, i: usize, b: u8) {
        self.set_field(8 * i, 8, b as u64);
    }

    /// `self ^= other` in place; widths must match.
    pub fn xor_assign(&mut self, other: &Bits) {
        assert_eq!(self.width, other.width, "xor of a {}-bit and a {}-bit vector: widths must match", self.width, other.width);
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a ^= b;
        }
    }

    /// Concatenation `{high, self}`: `self` keeps bits `[w-1:0]`, `high` goes above it.
    pub fn concat(&self, high: &Bits) -> Bits {
        let mut out = Bits::zeros(self.width + high.width);
        out.set_slice(0, self);
        out.set_slice(self.width, high);
        out
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// True when every bit is zero.
    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The index of the lowest set bit, `None` when every bit is zero.
    pub fn lowest_set(&self) -> Option<usize> {
        self.words.iter().enumerate().find(|(_, &w)| w != 0).map(|(i, w)| 64 * i + w.trailing_zeros() as usize)
    }

    /// Clears the bits above `width` in the top word (the representation invariant).
    fn mask_top(&mut self) {
        let r = self.width % 64;
        if r != 0 {
            if let Some(top) = self.words.last_mut() {
                *top &= (1u64 << r) - 1;
            }
        }
    }

    /// The value as `ceil(width/32)` 32-bit words, word 0 = bits `[31:0]`: the layout of
    /// Verilator's `VlWide` and of the simulator's `Dut::get_words`.
    pub fn to_u32_words(&self) -> Vec<u32> {
        (0..self.width.div_ceil(32))
            .map(|i| (self.words[i / 2] >> (32 * (i % 2))) as u32)
            .collect()
    }

    /// Vector of `width` bits from 32-bit words (word 0 = bits `[31:0]`); missing words are
    /// zero, anything beyond `width` is dropped.
    pub fn from_u32_words(src: &[u32], width: usize) -> Self {
        let mut b = Bits::zeros(width);
        for (i, w) in b.words.iter_mut().enumerate() {
            let lo = src.get(2 * i).copied().unwrap_or(0) as u64;
            let hi = src.get(2 * i + 1).copied().unwrap_or(0) as u64;
            *w = lo | (hi << 32);
        }
        b.mask_top();
        b
    }

    /// Lets `fill` write the raw little-endian words (the simulator's bulk copy out of
    /// Verilator's port storage), then restores the invariant that bits above `width` are zero.
    pub fn fill_words(&mut self, fill: impl FnOnce(&mut [u64])) {
        fill(&mut self.words);
        self.mask_top();
    }

    fn zip_with(&self, rhs: &Bits, op: &str, f: impl Fn(u64, u64) -> u64) -> Bits {
        assert_eq!(
            self.width, rhs.width,
            "{op} of a {}-bit and a {}-bit vector: widths must match",
            self.width, rhs.width
        );
        let words = self
            .words
            .iter()
            .zip(&rhs.words)
            .map(|(&a, &b)| f(a, b))
            .collect();
        Bits {
            width: self.width,
            words,
        }
    }
}

/// `a ^ b`: widths must match (panics otherwise, like a shape mismatch).
impl BitXor for &Bits {
    type Output = Bits;
    fn bitxor(self, rhs: &Bits) -> Bits {
        self.zip_with(rhs, "xor", |a, b| a ^ b)
    }
}

/// `a & b`: widths must match.
impl BitAnd for &Bits {
    type Output = Bits;
    fn bitand(self, rhs: &Bits) -> Bits {
        self.zip_with(rhs, "and", |a, b| a & b)
    }
}

/// `a | b`: widths must match.
impl BitOr for &Bits {
    type Output = Bits;
    fn bitor(self, rhs: &Bits) -> Bits {
        self.zip_with(rhs, "or", |a, b| a | b)
    }
}

/// `!a`: bitwise complement within the width.
impl Not for &Bits {
    type Output = Bits;
    fn not(self) -> Bits {
        let mut b = Bits {
            width: self.width,
            words: self.words.iter().map(|w| !w).collect(),
        };
        b.mask_top();
        b
    }
}

/// Verilog-like sized hex literal such as `70'h3f0000000000000001`: exactly `ceil(width/4)`
/// digits, so values of equal width line up under each other in failure messages.
impl fmt::Display for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}'h", self.width)?;
        let digits = self.width.div_ceil(4).max(1);
        let mut s = String::with_capacity(digits);
        for d in (0..digits).rev() {
            let bit = 4 * d;
            let nib = if bit < self.width {
                self.slice_word(bit, 4.min(self.width - bit))
            } else {
                0
            };
            s.push(char::from_digit(nib as u32, 16).unwrap_or('?'));
        }
        f.write_str(&s)
    }
}

/// Same as `Display`: test failure output (`assert_eq!`, scoreboards) shows sized hex.
impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::LowerHex for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.to_string();
        let hex = s.split_once("'h").map(|(_, h)| h).unwrap_or("");
        f.write_str(hex)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_order() {
        let b = Bits::from_bytes(&[0x01, 0x80, 0xff]);
        assert_eq!(b.width(), 24);
        assert!(b.get(0));
        assert!(b.get(15));
        assert_eq!(b.low_u64(), 0xff8001);
        assert_eq!(b.to_bytes(), vec![0x01, 0x80, 0xff]);
        let n = Bits::from_bytes_width(&[0xff, 0xff], 9);
        assert_eq!(n.low_u64(), 0x1ff);
        assert_eq!(n.to_bytes(), vec![0xff, 0x01]);
    }

    #[test]
    fn ints_and_fit_checks() {
        assert_eq!(Bits::from_u64(0x1ff, 8).low_u64(), 0xff);
        assert!(Bits::try_from_u64(0x100, 8).is_none());
        assert!(Bits::try_from_u64(0xff, 8).is_some());
        let v = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        assert_eq!(Bits::from_u128(v, 128).to_u128(), Some(v));
        assert_eq!(Bits::from_u128(v, 200).to_u128(), Some(v));
        assert_eq!(Bits::from_u128(v, 128).to_u64(), None);
        assert_eq!(Bits::ones(65).count_ones(), 65);
        assert_eq!(Bits::ones(64).to_u64(), Some(u64::MAX));
    }

    #[test]
    fn display_is_sized_hex() {
        assert_eq!(Bits::from_u64(0xab, 8).to_string(), "8'hab");
        assert_eq!(Bits::from_u64(1, 9).to_string(), "9'h001");
        assert_eq!(Bits::ones(70).to_string(), "70'h3fffffffffffffffff");
        assert_eq!(Bits::zeros(1).to_string(), "1'h0");
        assert_eq!(format!("{:x}", Bits::from_u64(0xab, 12)), "0ab");
    }

    #[test]
    fn slices_match_bitwise_reference() {
        let mut rng = crate::math::splitmix::SplitMix64::new(1);
        for &w in &[1usize, 63, 64, 65, 130, 1946] {
            let v = Bits::random(w, &mut rng);
            for lo in [0, 1, 31, 63, 64, 65].into_iter().filter(|&l| l < w) {
                for n in [1, 5, 64, 65, 100].into_iter().filter(|&n| lo + n <= w) {
                    let s = v.slice(lo, n);
                    for i in 0..n {
                        assert_eq!(s.get(i), v.get(lo + i), "w={w} lo={lo} n={n} i={i}");
                    }
                    let mut d = Bits::ones(w);
                    d.set_slice(lo, &s);
                    for i in 0..w {
                        let want = if i >= lo && i < lo + n {
                            v.get(i)
                        } else {
                            true
                        };
                        assert_eq!(d.get(i), want, "set_slice w={w} lo={lo} n={n} i={i}");
                    }
                }
            }
        }
    }

    #[test]
    fn fields_bytes_and_flips_across_word_boundaries() {
        let mut w = Bits::zeros(200);
        w.set_field(60, 12, 0xABC);
        assert_eq!(w.field(60, 12), 0xABC);
        assert_eq!(w.field(64, 8), 0xAB);
        w.set_field(120, 64, 0x0123_4567_89AB_CDEF);
        assert_eq!(w.field(120, 64), 0x0123_4567_89AB_CDEF);
        assert_eq!(w.byte(8), 0xAB);
        w.set_byte(0, 0x5A);
        assert_eq!(w.field(0, 8), 0x5A);
        w.flip(199);
        assert!(w.get(199));
        let mut x = w.clone();
        x.xor_assign(&w);
        assert!(x.is_zero());
        let n = Bits::from_bytes_width(&[0x12, 0x34, 0xFF], 20);
        assert_eq!(n.byte(2), 0x0F);
        assert_eq!(format!("{n:x}"), "f3412");
    }

    #[test]
    fn ops_and_u32_words() {
        let a = Bits::from_u64(0b1100, 4);
        let b = Bits::from_u64(0b1010, 4);
        assert_eq!((&a ^ &b).low_u64(), 0b0110);
        assert_eq!((&a & &b).low_u64(), 0b1000);
        assert_eq!((&a | &b).low_u64(), 0b1110);
        assert_eq!((!&a).low_u64(), 0b0011);
        let v = Bits::from_u128(0x1_2222_2222_3333_3333, 65);
        assert_eq!(v.to_u32_words(), vec![0x3333_3333, 0x2222_2222, 1]);
        let r = Bits::from_u32_words(&[0x3333_3333, 0x2222_2222, 0xffff_ffff], 65);
        assert_eq!(r, v, "top word re-masked");
        assert_eq!(Bits::from_u64(5, 3).to_u32_words(), vec![5]);
        assert_eq!(
            Bits::from_u64(1, 3).concat(&Bits::from_u64(1, 2)).low_u64(),
            0b01001
        );
    }
}
