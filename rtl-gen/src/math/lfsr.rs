//! Unrolling the CRC shift register over many input bits into one GF(2) matrix.
//!
//! The register is the MSB-first ("Galois", remainder-holding) form: each input bit `d` computes
//! `fb = r[w-1] ^ d`, shifts left, and XORs the polynomial in when `fb` is set. After `n` bits
//! `r_n = A·r_0 ⊕ B·d`, where `A = S^n` for the one-bit step matrix `S` and column `j` of `B` is
//! the effect of the `j`-th fed bit.

use super::gf2::{xor_words, BitMatrix, BitVec};

/// A CRC register of `width` bits (1..=64) with generator `x^width + poly`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrcRegister {
    pub width: u32,
    /// Normal form, the `x^width` term implied.
    pub poly: u64,
}

/// `r_n = state · r_0 ⊕ input · d`, with `d` the bits in the order they are fed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unrolled {
    pub state: BitMatrix,
    pub input: BitMatrix,
}

impl CrcRegister {
    pub fn new(width: u32, poly: u64) -> Self {
        assert!((1..=64).contains(&width), "CRC width {width} outside 1..=64");
        CrcRegister { width, poly: poly & mask(width) }
    }

    /// The step with a zero input bit: multiplication of the register polynomial by `x`.
    pub fn step_matrix(&self) -> BitMatrix {
        let w = self.width as usize;
        let mut s = BitMatrix::zeros(w, w);
        for i in 1..w {
            s.set(i, i - 1, true);
        }
        for i in 0..w {
            if (self.poly >> i) & 1 == 1 {
                let cur = s.get(i, w - 1);
                s.set(i, w - 1, !cur);
            }
        }
        s
    }

    /// One concrete bit step, the definition the matrices are checked against.
    pub fn step(&self, reg: u64, bit: bool) -> u64 {
        let w = self.width;
        let fb = ((reg >> (w - 1)) & 1 == 1) ^ bit;
        let shifted = (reg << 1) & mask(w);
        if fb {
            shifted ^ self.poly
        } else {
            shifted
        }
    }

    /// Unroll over `n` fed bits by symbolic simulation: every register bit is tracked as a row
    /// over `[r_0 | d]`. The register is kept as a ring of rows so a shift moves an index, not
    /// data: the cost is one row XOR per polynomial tap per bit.
    pub fn unroll(&self, n: usize) -> Unrolled {
        let w = self.width as usize;
        let cols = w + n;
        // ring[(head + i) % w] holds register bit i.
        let mut ring: Vec<BitVec> = (0..w).map(|i| BitVec::unit(cols, i)).collect();
        let mut head = 0usize;
        let taps: Vec<usize> = (0..w).filter(|i| (self.poly >> i) & 1 == 1).collect();
        for j in 0..n {
            // The top bit leaves; it becomes the feedback, stored in the slot that turns into bit 0.
            let top = (head + w - 1) % w;
            let mut fb = std::mem::replace(&mut ring[top], BitVec::zeros(0));
            fb.flip(w + j);
            head = top; // old bit i is now bit i+1; slot `top` is bit 0 (shifted-in zero)
            ring[head] = BitVec::zeros(cols);
            for &t in &taps {
                let slot = (head + t) % w;
                xor_words(&mut ring[slot], &fb);
            }
        }
        let rows: Vec<BitVec> = (0..w).map(|i| ring[(head + i) % w].clone()).collect();
        let state = BitMatrix::from_rows(w, rows.iter().map(|r| r.slice(0, w)).collect());
        let input = BitMatrix::from_rows(n, rows.iter().map(|r| r.slice(w, n)).collect());
        Unrolled { state, input }
    }
}

impl Unrolled {
    /// The unrolling of `self` followed by `next`: `r = A2(A1 r0 ⊕ B1 d1) ⊕ B2 d2`.
    pub fn then(&self, next: &Unrolled) -> Unrolled {
        Unrolled { state: next.state.mul(&self.state), input: next.state.mul(&self.input).hconcat(&next.input) }
    }
}

/// The low `width` bits set.
pub fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The low `width` bits of `v` in reverse order.
pub fn reflect(v: u64, width: u32) -> u64 {
    v.reverse_bits() >> (64 - width)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRC32: CrcRegister = CrcRegister { width: 32, poly: 0x04C1_1DB7 };
    const CRC5: CrcRegister = CrcRegister { width: 5, poly: 0x05 };

    fn bits_of(seed: u64, n: usize) -> Vec<bool> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s & 1 == 1
            })
            .collect()
    }

    #[test]
    fn unrolled_matrices_match_bit_serial_register() {
        for reg in [CRC32, CRC5, CrcRegister::new(64, 0x42F0_E1EB_A9EA_3693), CrcRegister::new(1, 1)] {
            let n = 77;
            let u = reg.unroll(n);
            for seed in 1..20 {
                let d = bits_of(seed, n);
                let r0 = bits_of(seed * 31, 64).iter().enumerate().fold(0u64, |a, (i, b)| a | ((*b as u64) << i))
                    & mask(reg.width);
                let serial = d.iter().fold(r0, |r, b| reg.step(r, *b));
                let mut dv = BitVec::zeros(n);
                for (i, b) in d.iter().enumerate() {
                    dv.set(i, *b);
                }
                let mut got = u.state.mul_vec(&BitVec::from_u128(reg.width as usize, r0 as u128));
                got.xor_assign(&u.input.mul_vec(&dv));
                assert_eq!(got.to_u128() as u64, serial, "width {} seed {seed}", reg.width);
            }
        }
    }

    #[test]
    fn two_unrolled_steps_equal_one_double_step() {
        for (a, b) in [(1, 1), (8, 8), (13, 51), (64, 0), (0, 9)] {
            assert_eq!(CRC32.unroll(a).then(&CRC32.unroll(b)), CRC32.unroll(a + b), "{a}+{b}");
        }
    }

    #[test]
    fn state_matrix_is_power_of_step_matrix() {
        let s = CRC32.step_matrix();
        for n in [0usize, 1, 2, 8, 72, 1946] {
            assert_eq!(CRC32.unroll(n).state, s.pow(n as u64), "n = {n}");
        }
    }

    #[test]
    fn unrolled_map_is_linear() {
        let n = 100;
        let u = CRC32.unroll(n);
        let x = BitVec::from_u128(n, 0x1234_5678_9abc_def0_1122_3344_5566);
        let y = BitVec::from_u128(n, 0x0fed_cba9_8765_4321_99aa_bbcc_ddee);
        let mut xy = x.clone();
        xy.xor_assign(&y);
        let mut sum = u.input.mul_vec(&x);
        sum.xor_assign(&u.input.mul_vec(&y));
        assert_eq!(u.input.mul_vec(&xy), sum);
    }

    #[test]
    fn reflect_reverses_low_bits() {
        assert_eq!(reflect(0b0001, 4), 0b1000);
        assert_eq!(reflect(0x04C1_1DB7, 32), 0xEDB8_8320);
    }
}
