//! A link channel: a fixed delay line that drops, flips bits, bursts and injects uncorrectable
//! symbol errors into the flits passing through it.

use crate::TestRng;
use rand::Rng;
use rtl_gen::blocks::rxl_endpoint::flit::{Flit, Header, FLIT_BYTES, TYPE_PAYLOAD};
use std::collections::VecDeque;

/// What a channel does to each flit. Probabilities are per flit except `ber` (per bit).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Faults {
    /// Independent random bit errors, per bit (most are corrected by the FEC).
    pub ber: f64,
    /// Probability that a flit is hit by a burst of `burst_bits` bits (first and last bit
    /// flipped, the ones between with probability 1/2).
    pub burst: f64,
    pub burst_bits: u32,
    /// Probability that a flit is silently dropped (forced drop: it never arrives).
    pub drop: f64,
    /// Flit error rate after FEC (FER_UC): probability that a flit gets two corrupted bytes in
    /// one FEC group, beyond what the FEC corrects (it detects it, or miscorrects and the CRC
    /// catches it).
    pub uc: f64,
}

impl Faults {
    pub fn none() -> Faults {
        Faults::default()
    }
}

/// What a channel did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelStats {
    pub flits: u64,
    pub payload_flits: u64,
    pub bit_errors: u64,
    pub flits_with_bit_errors: u64,
    pub bursts: u64,
    pub uc_injected: u64,
    pub drops: u64,
    pub payload_drops: u64,
}

impl std::ops::AddAssign for ChannelStats {
    fn add_assign(&mut self, o: ChannelStats) {
        self.flits += o.flits;
        self.payload_flits += o.payload_flits;
        self.bit_errors += o.bit_errors;
        self.flits_with_bit_errors += o.flits_with_bit_errors;
        self.bursts += o.bursts;
        self.uc_injected += o.uc_injected;
        self.drops += o.drops;
        self.payload_drops += o.payload_drops;
    }
}

pub struct Channel {
    /// Flits in flight; `delay` entries, so a flit entering at cycle c leaves at c + delay.
    line: VecDeque<Option<Box<Flit>>>,
    pub faults: Faults,
    rng: TestRng,
    /// Bits until the next random bit error (geometric gaps).
    gap: u64,
    pub stats: ChannelStats,
}

const FLIT_BITS: u64 = 8 * FLIT_BYTES as u64;

impl Channel {
    pub fn new(delay: usize, faults: Faults, seed: u64) -> Channel {
        let mut rng = TestRng::from_seed(seed);
        let gap = geometric(&mut rng, faults.ber);
        Channel { line: (0..delay).map(|_| None).collect(), faults, rng, gap, stats: ChannelStats::default() }
    }

    pub fn delay(&self) -> usize {
        self.line.len()
    }

    /// Changes the faults from now on (e.g. none while a campaign drains).
    pub fn set_faults(&mut self, faults: Faults) {
        self.faults = faults;
        self.gap = geometric(&mut self.rng, faults.ber);
    }

    /// One cycle: `input` enters (after the faults), the flit `delay` cycles old leaves.
    pub fn step(&mut self, input: Option<&Flit>) -> Option<Box<Flit>> {
        let entering = input.and_then(|f| self.corrupt(f));
        match self.line.pop_front() {
            Some(out) => {
                self.line.push_back(entering);
                out
            }
            None => entering,
        }
    }

    fn corrupt(&mut self, f: &Flit) -> Option<Box<Flit>> {
        let s = &mut self.stats;
        s.flits += 1;
        let payload = Header::of(f).ftype == TYPE_PAYLOAD;
        s.payload_flits += payload as u64;
        let fl = self.faults;
        if fl.drop > 0.0 && self.rng.random_bool(fl.drop) {
            s.drops += 1;
            s.payload_drops += payload as u64;
            return None;
        }
        let mut out = Box::new(*f);
        if fl.ber > 0.0 {
            let mut hit = false;
            while self.gap < FLIT_BITS {
                let bit = self.gap as usize;
                out[bit / 8] ^= 1 << (bit % 8);
                s.bit_errors += 1;
                hit = true;
                self.gap += 1 + geometric(&mut self.rng, fl.ber);
            }
            self.gap -= FLIT_BITS;
            s.flits_with_bit_errors += hit as u64;
        }
        if fl.burst > 0.0 && fl.burst_bits > 0 && self.rng.random_bool(fl.burst) {
            let len = (fl.burst_bits as usize).min(FLIT_BITS as usize);
            let start = self.rng.random_range(0..=FLIT_BITS as usize - len);
            for k in 0..len {
                if k == 0 || k == len - 1 || self.rng.random_bool(0.5) {
                    let bit = start + k;
                    out[bit / 8] ^= 1 << (bit % 8);
                }
            }
            s.bursts += 1;
        }
        if fl.uc > 0.0 && self.rng.random_bool(fl.uc) {
            // Two distinct bytes of one FEC group (byte i is in group i mod 3 in both layouts),
            // each XORed with a nonzero value.
            let group = self.rng.random_range(0..3usize);
            let count = (FLIT_BYTES - group).div_ceil(3);
            let a = self.rng.random_range(0..count);
            let mut b = self.rng.random_range(0..count - 1);
            if b >= a {
                b += 1;
            }
            for k in [a, b] {
                out[group + 3 * k] ^= self.rng.random_range(1..=255u8);
            }
            s.uc_injected += 1;
        }
        Some(out)
    }
}

/// Bits before the next error of a Bernoulli(p) bit stream (0 = the very next bit).
fn geometric(rng: &mut TestRng, p: f64) -> u64 {
    if p <= 0.0 {
        return u64::MAX / 2;
    }
    if p >= 1.0 {
        return 0;
    }
    let u: f64 = rng.random::<f64>();
    ((1.0 - u).ln() / (1.0 - p).ln()).floor().min(1e18) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_and_faults() {
        let mut ch = Channel::new(3, Faults::none(), 1);
        let f = [7u8; FLIT_BYTES];
        assert!(ch.step(Some(&f)).is_none());
        assert!(ch.step(None).is_none());
        assert!(ch.step(None).is_none());
        assert_eq!(ch.step(None).as_deref(), Some(&f));
        let mut ch = Channel::new(0, Faults { ber: 1e-3, ..Faults::none() }, 2);
        for _ in 0..10_000 {
            ch.step(Some(&f));
        }
        let rate = ch.stats.bit_errors as f64 / (10_000.0 * FLIT_BITS as f64);
        assert!((rate - 1e-3).abs() < 1e-4, "measured BER {rate}");
        let mut ch = Channel::new(0, Faults { drop: 0.1, uc: 0.2, ..Faults::none() }, 3);
        let mut lost = 0;
        for _ in 0..10_000 {
            lost += ch.step(Some(&f)).is_none() as u32;
        }
        assert!((900..1100).contains(&lost), "{lost} drops");
        assert!((1600..2000).contains(&ch.stats.uc_injected), "{:?}", ch.stats);
    }
}
