//! `Wide`: a fixed-width bit vector in 64-bit words, bit `i` at word `i / 64` bit `i % 64`, the
//! layout of a Verilog vector `[len-1:0]` (and of the simulator's `Bits`), with the field
//! accessors the frame codec and the gearboxes need. Bits above `len` are always zero.

#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Wide {
    len: usize,
    words: Vec<u64>,
}

impl Wide {
    pub fn zeros(len: usize) -> Self {
        Wide { len, words: vec![0; len.div_ceil(64)] }
    }

    /// `words` little-endian (word 0 = bits 63..0); bits above `len` are dropped.
    pub fn from_words(words: &[u64], len: usize) -> Self {
        let mut w = Wide::zeros(len);
        for (d, s) in w.words.iter_mut().zip(words) {
            *d = *s;
        }
        w.trim();
        w
    }

    /// Byte `i` at bits `[8i+7:8i]`; bytes beyond `len` are dropped.
    pub fn from_bytes(bytes: &[u8], len: usize) -> Self {
        let mut w = Wide::zeros(len);
        for (i, b) in bytes.iter().enumerate() {
            if 8 * i >= len {
                break;
            }
            w.words[i / 8] |= (*b as u64) << (8 * (i % 8));
        }
        w.trim();
        w
    }

    pub fn from_u64(v: u64, len: usize) -> Self {
        Wide::from_words(&[v], len)
    }

    fn trim(&mut self) {
        let r = self.len % 64;
        if r != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << r) - 1;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn words(&self) -> &[u64] {
        &self.words
    }

    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    pub fn get(&self, i: usize) -> bool {
        debug_assert!(i < self.len, "bit {i} of a {}-bit vector", self.len);
        (self.words[i / 64] >> (i % 64)) & 1 == 1
    }

    pub fn set(&mut self, i: usize, v: bool) {
        debug_assert!(i < self.len, "bit {i} of a {}-bit vector", self.len);
        let m = 1u64 << (i % 64);
        if v {
            self.words[i / 64] |= m;
        } else {
            self.words[i / 64] &= !m;
        }
    }

    pub fn flip(&mut self, i: usize) {
        self.words[i / 64] ^= 1u64 << (i % 64);
    }

    /// Bits `[lo+w-1:lo]` as an integer, `w` ≤ 64.
    pub fn field(&self, lo: usize, w: usize) -> u64 {
        debug_assert!(w <= 64 && lo + w <= self.len, "field [{}:{lo}] of a {}-bit vector", lo + w, self.len);
        if w == 0 {
            return 0;
        }
        let (wi, sh) = (lo / 64, lo % 64);
        let mut v = self.words[wi] >> sh;
        if sh != 0 && sh + w > 64 {
            v |= self.words[wi + 1] << (64 - sh);
        }
        if w < 64 {
            v &= (1u64 << w) - 1;
        }
        v
    }

    /// Set bits `[lo+w-1:lo]` to the low `w` bits of `v`, `w` ≤ 64.
    pub fn set_field(&mut self, lo: usize, w: usize, v: u64) {
        debug_assert!(w <= 64 && lo + w <= self.len, "field [{}:{lo}] of a {}-bit vector", lo + w, self.len);
        if w == 0 {
            return;
        }
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let v = v & mask;
        let (wi, sh) = (lo / 64, lo % 64);
        self.words[wi] = (self.words[wi] & !(mask << sh)) | (v << sh);
        if sh != 0 && sh + w > 64 {
            let hi_bits = sh + w - 64;
            let hm = (1u64 << hi_bits) - 1;
            self.words[wi + 1] = (self.words[wi + 1] & !hm) | (v >> (64 - sh));
        }
    }

    /// Bits `[lo+len-1:lo]` as a new vector.
    pub fn slice(&self, lo: usize, len: usize) -> Wide {
        let mut out = Wide::zeros(len);
        let mut k = 0;
        while k < len {
            let w = (len - k).min(64);
            out.set_field(k, w, self.field(lo + k, w));
            k += w;
        }
        out
    }

    /// Overwrite bits `[lo+v.len()-1:lo]` with `v`.
    pub fn set_slice(&mut self, lo: usize, v: &Wide) {
        let mut k = 0;
        while k < v.len {
            let w = (v.len - k).min(64);
            self.set_field(lo + k, w, v.field(k, w));
            k += w;
        }
    }

    /// Byte `i`: bits `[8i+7:8i]`.
    pub fn byte(&self, i: usize) -> u8 {
        self.field(8 * i, 8) as u8
    }

    pub fn set_byte(&mut self, i: usize, b: u8) {
        self.set_field(8 * i, 8, b as u64);
    }

    /// Bytes `[0, ⌈len/8⌉)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        (0..self.len.div_ceil(8)).map(|i| self.field(8 * i, 8.min(self.len - 8 * i)) as u8).collect()
    }

    pub fn xor_assign(&mut self, other: &Wide) {
        assert_eq!(self.len, other.len, "xor of vectors of different widths");
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a ^= b;
        }
    }

    pub fn count_ones(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Lower-case hexadecimal, most significant digit first.
    pub fn to_hex(&self) -> String {
        let digits = self.len.div_ceil(4).max(1);
        (0..digits).rev().map(|d| char::from_digit(self.field(4 * d, 4.min(self.len - 4 * d)) as u32, 16).expect("nibble")).collect()
    }
}

impl std::fmt::Debug for Wide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}'h{}", self.len, self.to_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_across_word_boundaries() {
        let mut w = Wide::zeros(200);
        w.set_field(60, 12, 0xABC);
        assert_eq!(w.field(60, 12), 0xABC);
        assert_eq!(w.field(64, 8), 0xAB);
        w.set_field(120, 64, 0x0123_4567_89AB_CDEF);
        assert_eq!(w.field(120, 64), 0x0123_4567_89AB_CDEF);
        let s = w.slice(60, 140);
        assert_eq!(s.field(0, 12), 0xABC);
        assert_eq!(s.field(60, 64), 0x0123_4567_89AB_CDEF);
        let mut t = Wide::zeros(300);
        t.set_slice(7, &s);
        assert_eq!(t.slice(7, 140), s);
        assert_eq!(t.field(0, 7), 0);
    }

    #[test]
    fn bytes_are_little_endian_and_trimmed() {
        let w = Wide::from_bytes(&[0x12, 0x34, 0xFF], 20);
        assert_eq!(w.field(0, 20), 0xF3412);
        assert_eq!(w.to_bytes(), vec![0x12, 0x34, 0x0F]);
        assert_eq!(w.to_hex(), "f3412");
    }
}
