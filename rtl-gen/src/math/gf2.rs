//! GF(2) bit vectors and matrices: every CRC, scrambler and linear encoder the generator emits is
//! an affine map over GF(2), `y = M·x ⊕ c`, built and composed here before it becomes XOR
//! networks.

use crate::bits::Bits;
use std::fmt;

/// A fixed-length vector over GF(2), bit `i` at word `i / 64`, bit `i % 64`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BitVec {
    len: usize,
    words: Vec<u64>,
}

impl BitVec {
    pub fn zeros(len: usize) -> Self {
        BitVec { len, words: vec![0; len.div_ceil(64)] }
    }

    /// The unit vector `e_i` of length `len`.
    pub fn unit(len: usize, i: usize) -> Self {
        let mut v = Self::zeros(len);
        v.set(i, true);
        v
    }

    /// The low `len` bits of `value` (len ≤ 128).
    pub fn from_u128(len: usize, value: u128) -> Self {
        let mut v = Self::zeros(len);
        for i in 0..len.min(128) {
            v.set(i, (value >> i) & 1 == 1);
        }
        v
    }

    /// Bits of a byte string: byte `i` at bits `[8i+7:8i]`.
    pub fn from_bytes(len: usize, bytes: &[u8]) -> Self {
        let mut v = Self::zeros(len);
        for (i, b) in bytes.iter().enumerate() {
            for k in 0..8 {
                let bit = 8 * i + k;
                if bit < len {
                    v.set(bit, (b >> k) & 1 == 1);
                }
            }
        }
        v
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> bool {
        debug_assert!(i < self.len, "bit {i} out of a {}-bit vector", self.len);
        (self.words[i / 64] >> (i % 64)) & 1 == 1
    }

    pub fn set(&mut self, i: usize, value: bool) {
        debug_assert!(i < self.len, "bit {i} out of a {}-bit vector", self.len);
        let mask = 1u64 << (i % 64);
        if value {
            self.words[i / 64] |= mask;
        } else {
            self.words[i / 64] &= !mask;
        }
    }

    pub fn flip(&mut self, i: usize) {
        self.words[i / 64] ^= 1u64 << (i % 64);
    }

    pub fn xor_assign(&mut self, other: &BitVec) {
        assert_eq!(self.len, other.len, "xor of vectors of different lengths");
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a ^= b;
        }
    }

    /// Inner product over GF(2): the parity of `self & other`.
    pub fn dot(&self, other: &BitVec) -> bool {
        assert_eq!(self.len, other.len, "dot of vectors of different lengths");
        self.words.iter().zip(&other.words).fold(0u32, |acc, (a, b)| acc ^ (a & b).count_ones()) & 1 == 1
    }

    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    pub fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn iter_ones(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len).filter(move |&i| self.get(i))
    }

    /// The low 128 bits as an integer.
    pub fn to_u128(&self) -> u128 {
        let mut v = 0u128;
        for i in 0..self.len.min(128) {
            if self.get(i) {
                v |= 1 << i;
            }
        }
        v
    }

    /// Bytes, byte `i` holding bits `[8i+7:8i]` (the last one zero-padded).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.len.div_ceil(8)];
        for i in self.iter_ones() {
            out[i / 8] |= 1 << (i % 8);
        }
        out
    }

    /// `[lo, lo + len)` as a new vector.
    pub fn slice(&self, lo: usize, len: usize) -> BitVec {
        let mut v = BitVec::zeros(len);
        for i in 0..len {
            v.set(i, self.get(lo + i));
        }
        v
    }

    /// `other` placed above `self`: the Verilog concatenation `{other, self}`.
    pub fn concat_above(&self, other: &BitVec) -> BitVec {
        let mut v = BitVec::zeros(self.len + other.len);
        for i in self.iter_ones() {
            v.set(i, true);
        }
        for i in other.iter_ones() {
            v.set(self.len + i, true);
        }
        v
    }

    /// Lower-case hexadecimal, most significant digit first, exactly ⌈len/4⌉ digits.
    pub fn to_hex(&self) -> String {
        let digits = self.len.div_ceil(4).max(1);
        let mut s = String::with_capacity(digits);
        for d in (0..digits).rev() {
            let mut nibble = 0u32;
            for k in 0..4 {
                let i = 4 * d + k;
                if i < self.len && self.get(i) {
                    nibble |= 1 << k;
                }
            }
            s.push(char::from_digit(nibble, 16).expect("nibble < 16"));
        }
        s
    }

    fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }
}

impl fmt::Debug for BitVec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}'h{}", self.len, self.to_hex())
    }
}

/// A `rows × cols` matrix over GF(2), stored as one [`BitVec`] per row: row `i` is the mask of
/// inputs that output bit `i` depends on, which is exactly what a masked XOR reduction needs.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BitMatrix {
    cols: usize,
    rows: Vec<BitVec>,
}

impl BitMatrix {
    pub fn zeros(rows: usize, cols: usize) -> Self {
        BitMatrix { cols, rows: vec![BitVec::zeros(cols); rows] }
    }

    pub fn identity(n: usize) -> Self {
        BitMatrix { cols: n, rows: (0..n).map(|i| BitVec::unit(n, i)).collect() }
    }

    pub fn from_rows(cols: usize, rows: Vec<BitVec>) -> Self {
        assert!(rows.iter().all(|r| r.len() == cols), "row length differs from the column count");
        BitMatrix { cols, rows }
    }

    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn row(&self, i: usize) -> &BitVec {
        &self.rows[i]
    }

    pub fn row_iter(&self) -> impl Iterator<Item = &BitVec> {
        self.rows.iter()
    }

    pub fn get(&self, r: usize, c: usize) -> bool {
        self.rows[r].get(c)
    }

    pub fn set(&mut self, r: usize, c: usize, v: bool) {
        self.rows[r].set(c, v);
    }

    /// Column `c` as a vector.
    pub fn column(&self, c: usize) -> BitVec {
        let mut v = BitVec::zeros(self.rows());
        for (r, row) in self.rows.iter().enumerate() {
            v.set(r, row.get(c));
        }
        v
    }

    /// `M·x`.
    pub fn mul_vec(&self, x: &BitVec) -> BitVec {
        assert_eq!(x.len(), self.cols, "matrix-vector dimension mismatch");
        let mut y = BitVec::zeros(self.rows());
        for (r, row) in self.rows.iter().enumerate() {
            y.set(r, row.dot(x));
        }
        y
    }

    /// `self · other`: row `r` of the product is the XOR of the rows of `other` selected by
    /// row `r` of `self`.
    pub fn mul(&self, other: &BitMatrix) -> BitMatrix {
        assert_eq!(self.cols, other.rows(), "matrix product dimension mismatch");
        let rows = self
            .rows
            .iter()
            .map(|row| {
                let mut acc = BitVec::zeros(other.cols);
                for k in row.iter_ones() {
                    acc.xor_assign(&other.rows[k]);
                }
                acc
            })
            .collect();
        BitMatrix { cols: other.cols, rows }
    }

    /// `self^k` for a square matrix, by repeated squaring.
    pub fn pow(&self, mut k: u64) -> BitMatrix {
        assert_eq!(self.rows(), self.cols, "power of a non-square matrix");
        let mut result = BitMatrix::identity(self.cols);
        let mut base = self.clone();
        while k > 0 {
            if k & 1 == 1 {
                result = result.mul(&base);
            }
            k >>= 1;
            if k > 0 {
                base = base.mul(&base);
            }
        }
        result
    }

    /// `[self | other]`: columns of `other` appended after those of `self`.
    pub fn hconcat(&self, other: &BitMatrix) -> BitMatrix {
        assert_eq!(self.rows(), other.rows(), "hconcat of matrices with different row counts");
        let rows = self.rows.iter().zip(&other.rows).map(|(a, b)| a.concat_above(b)).collect();
        BitMatrix { cols: self.cols + other.cols, rows }
    }

    /// The inverse of a square matrix by Gauss–Jordan elimination, `None` when singular.
    pub fn inverse(&self) -> Option<BitMatrix> {
        let n = self.rows();
        assert_eq!(n, self.cols, "inverse of a non-square matrix");
        let mut a = self.rows.clone();
        let mut inv: Vec<BitVec> = (0..n).map(|i| BitVec::unit(n, i)).collect();
        for col in 0..n {
            let pivot = (col..n).find(|&r| a[r].get(col))?;
            a.swap(col, pivot);
            inv.swap(col, pivot);
            for r in 0..n {
                if r != col && a[r].get(col) {
                    let (src_a, src_i) = (a[col].clone(), inv[col].clone());
                    a[r].xor_assign(&src_a);
                    inv[r].xor_assign(&src_i);
                }
            }
        }
        Some(BitMatrix { cols: n, rows: inv })
    }
}

/// An affine map over GF(2): `y = M·x ⊕ c`. CRCs with init and xorout are affine, not linear;
/// keeping the constant separate lets the emitter fold it into XNOR reductions.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AffineMap {
    pub matrix: BitMatrix,
    pub constant: BitVec,
}

impl AffineMap {
    pub fn apply(&self, x: &BitVec) -> BitVec {
        let mut y = self.matrix.mul_vec(x);
        y.xor_assign(&self.constant);
        y
    }

    pub fn outputs(&self) -> usize {
        self.matrix.rows()
    }

    pub fn inputs(&self) -> usize {
        self.matrix.cols()
    }
}

/// XOR `src` into `dst` word by word (both the same length); used by the LFSR unroller's hot loop.
pub(crate) fn xor_words(dst: &mut BitVec, src: &BitVec) {
    for (a, b) in dst.words_mut().iter_mut().zip(&src.words) {
        *a ^= b;
    }
}

/// The one conversion between the GF(2) vector and the value type of ports, models, the
/// evaluator and the simulator ([`Bits`]): both keep bit `i` at word `i / 64`, bit `i % 64`,
/// with the bits above the length zero, so the words carry over unchanged.
impl From<&BitVec> for Bits {
    fn from(v: &BitVec) -> Bits {
        Bits::from_words(&v.words, v.len)
    }
}

impl From<&Bits> for BitVec {
    fn from(b: &Bits) -> BitVec {
        BitVec { len: b.width(), words: b.words().to_vec() }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn converts_to_and_from_bits() {
        let v = BitVec::from_bytes(70, &[0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 0x3F]);
        let b = Bits::from(&v);
        assert_eq!(b.width(), 70);
        assert!((0..70).all(|i| b.get(i) == v.get(i)));
        assert_eq!(BitVec::from(&b), v);
    }

    use super::*;

    fn pseudo_random_matrix(rows: usize, cols: usize, seed: u64) -> BitMatrix {
        let mut s = seed;
        let mut m = BitMatrix::zeros(rows, cols);
        for r in 0..rows {
            for c in 0..cols {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                m.set(r, c, (s >> 33) & 1 == 1);
            }
        }
        m
    }

    #[test]
    fn hex_is_msb_first_and_padded() {
        let v = BitVec::from_u128(10, 0x2f5);
        assert_eq!(v.to_hex(), "2f5");
        assert_eq!(BitVec::from_u128(8, 0x0a).to_hex(), "0a");
        assert_eq!(format!("{:?}", BitVec::from_u128(5, 0x11)), "5'h11");
    }

    #[test]
    fn bytes_round_trip_in_wire_order() {
        let v = BitVec::from_bytes(24, &[0x12, 0x34, 0x56]);
        assert_eq!(v.to_u128(), 0x563412);
        assert_eq!(v.to_bytes(), vec![0x12, 0x34, 0x56]);
    }

    #[test]
    fn product_is_associative_and_matches_vector_product() {
        let a = pseudo_random_matrix(7, 9, 1);
        let b = pseudo_random_matrix(9, 5, 2);
        let c = pseudo_random_matrix(5, 4, 3);
        assert_eq!(a.mul(&b).mul(&c), a.mul(&b.mul(&c)));
        let x = BitVec::from_u128(5, 0b10110);
        assert_eq!(a.mul(&b).mul_vec(&x), a.mul_vec(&b.mul_vec(&x)));
    }

    #[test]
    fn power_matches_repeated_product() {
        let a = pseudo_random_matrix(6, 6, 9);
        let mut p = BitMatrix::identity(6);
        for k in 0..12 {
            assert_eq!(a.pow(k), p, "A^{k}");
            p = p.mul(&a);
        }
    }

    #[test]
    fn inverse_inverts_and_singular_is_none() {
        for seed in 0..20 {
            let a = pseudo_random_matrix(8, 8, seed);
            match a.inverse() {
                Some(inv) => assert_eq!(a.mul(&inv), BitMatrix::identity(8)),
                None => assert!(a.rows.iter().any(|r| r.is_zero()) || seed < 20),
            }
        }
        assert!(BitMatrix::zeros(3, 3).inverse().is_none());
    }
}
