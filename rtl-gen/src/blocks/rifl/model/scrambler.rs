//! The self-synchronous scrambler 1 + x^13 + x^33 (§5.B) over the line region `{meta, payload}`
//! of every frame, data or control (the SYN and the verification code are not scrambled).
//!
//! Serial order: the wire order, line bit 0 (payload bit 0, frame bit 2) first, ascending,
//! frame after frame. Scrambler:
//! `y[j] = x[j] ^ y[j-13] ^ y[j-33]`; descrambler: `x[j] = y[j] ^ y[j-13] ^ y[j-33]`, both with
//! the last 33 line bits as state, so the receiver resynchronises 33 bits after any error.
//! The state register of the RTL, `state[k] = y[-1-k]` (bit 0 the most recent line bit), resets
//! to zero on both sides.

use crate::bits::Bits;

const TAP_A: usize = 13;
const TAP_B: usize = 33;
/// Bits processed per step: all taps reach back at least 13 bits.
const CHUNK: usize = 13;

/// History of line bits: bit 63 is the most recent, bit 63 − k is `y[-1-k]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct History(u64);

impl History {
    /// `y[j-13] ^ y[j-33]` for the next `c` positions, bit i for position j + i.
    fn taps(self) -> u64 {
        (self.0 >> (64 - TAP_A)) ^ (self.0 >> (64 - TAP_B))
    }
    fn push(&mut self, bits: u64, c: usize) {
        self.0 = (self.0 >> c) | (bits << (64 - c));
    }
    /// The RTL's 33-bit state: bit k = y[-1-k].
    fn state33(self) -> u64 {
        (self.0 >> 31).reverse_bits() >> 31
    }
    fn from_state33(s: u64) -> History {
        History((s & ((1 << 33) - 1)).reverse_bits() >> 31 << 31)
    }
}

/// The transmit side: `y = x ^ (taps of earlier y)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scrambler {
    h: History,
}

/// The receive side: `x = y ^ (taps of earlier y)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Descrambler {
    h: History,
}

fn mask(c: usize) -> u64 {
    (1u64 << c) - 1
}

impl Scrambler {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn state(&self) -> u64 {
        self.h.state33()
    }
    pub fn with_state(s: u64) -> Self {
        Scrambler { h: History::from_state33(s) }
    }
    /// Scramble one frame's raw region and advance the state.
    pub fn scramble(&mut self, x: &Bits) -> Bits {
        let mut y = Bits::zeros(x.width());
        let mut j = 0;
        while j < x.width() {
            let c = CHUNK.min(x.width() - j);
            let out = (x.field(j, c) ^ self.h.taps()) & mask(c);
            y.set_field(j, c, out);
            self.h.push(out, c);
            j += c;
        }
        y
    }
}

impl Descrambler {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn state(&self) -> u64 {
        self.h.state33()
    }
    pub fn with_state(s: u64) -> Self {
        Descrambler { h: History::from_state33(s) }
    }
    pub fn descramble(&mut self, y: &Bits) -> Bits {
        let mut x = Bits::zeros(y.width());
        let mut j = 0;
        while j < y.width() {
            let c = CHUNK.min(y.width() - j);
            let inb = y.field(j, c);
            x.set_field(j, c, (inb ^ self.h.taps()) & mask(c));
            self.h.push(inb, c);
            j += c;
        }
        x
    }
}

/// The bit-serial definition, for the tests of the chunked form and of the RTL matrices.
pub fn scramble_serial(state: u64, x: &Bits) -> (Bits, u64) {
    let mut s = state;
    let mut y = Bits::zeros(x.width());
    for j in 0..x.width() {
        let b = x.get(j) ^ ((s >> (TAP_A - 1)) & 1 == 1) ^ ((s >> (TAP_B - 1)) & 1 == 1);
        y.set(j, b);
        s = ((s << 1) | b as u64) & ((1 << 33) - 1);
    }
    (y, s)
}

pub fn descramble_serial(state: u64, y: &Bits) -> (Bits, u64) {
    let mut s = state;
    let mut x = Bits::zeros(y.width());
    for j in 0..y.width() {
        let b = y.get(j);
        x.set(j, b ^ ((s >> (TAP_A - 1)) & 1 == 1) ^ ((s >> (TAP_B - 1)) & 1 == 1));
        s = ((s << 1) | b as u64) & ((1 << 33) - 1);
    }
    (x, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pseudo(len: usize, seed: u64) -> Bits {
        let mut w = Bits::zeros(len);
        let mut s = seed;
        for k in 0..len {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            w.set(k, (s >> 40) & 1 == 1);
        }
        w
    }

    #[test]
    fn chunked_equals_serial_and_round_trips() {
        let mut tx = Scrambler::new();
        let mut rx = Descrambler::new();
        let (mut s_tx, mut s_rx) = (0u64, 0u64);
        for f in 0..40 {
            let x = pseudo(114 + (f % 3) * 128, f as u64);
            let y = tx.scramble(&x);
            let (y2, s2) = scramble_serial(s_tx, &x);
            assert_eq!(y, y2);
            s_tx = s2;
            assert_eq!(tx.state(), s_tx);
            let back = rx.descramble(&y);
            let (b2, r2) = descramble_serial(s_rx, &y);
            assert_eq!(back, b2);
            s_rx = r2;
            assert_eq!(back, x, "frame {f}");
            assert_eq!(rx.state(), tx.state());
        }
        assert_eq!(Scrambler::with_state(tx.state()).state(), tx.state());
    }

    #[test]
    fn descrambler_resynchronises_after_33_bits() {
        let mut tx = Scrambler::new();
        let mut rx = Descrambler::with_state(0x1_2345_6789);
        let x = pseudo(242, 7);
        let y = tx.scramble(&x);
        let back = rx.descramble(&y);
        assert_ne!(back.slice(0, 33), x.slice(0, 33));
        assert_eq!(back.slice(33, 242 - 33), x.slice(33, 242 - 33));
    }

    #[test]
    fn one_line_error_becomes_three() {
        let mut tx = Scrambler::new();
        let mut rx = Descrambler::new();
        let x = pseudo(242, 9);
        let mut y = tx.scramble(&x);
        y.flip(100);
        let mut diff = rx.descramble(&y);
        diff.xor_assign(&x);
        assert_eq!(diff.count_ones(), 3);
        assert!(diff.get(100) && diff.get(113) && diff.get(133));
    }
}
