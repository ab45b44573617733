//! The one link channel of every campaign: a fixed delay line that drops, flips bits, bursts and
//! injects uncorrectable symbol errors into what passes through it.
//!
//! What travels is a [`Frame`]: an RXL flit (`Box<Flit>`, one unit of 2048 bits) or a RIFL
//! slot (`Vec<Bits>`, one frame per lane). Bit errors, bursts and symbol errors hit each unit
//! (lane) of a slot; a drop loses the whole slot.
//!
//! Randomness: one SplitMix64 stream per channel, seeded with the channel's seed.
//! A fault whose probability is 0 draws nothing, so a BER-only channel draws exactly what the
//! RIFL model channel drew before the campaigns were unified: the committed RIFL sweep
//! (`sim/results/rifl_sweep.csv`) stays reproducible.

use crate::Bits;
use rtl_gen::math::splitmix::SplitMix64;
use rtl_gen::blocks::rxl_endpoint::flit::{Flit, Header, TYPE_PAYLOAD};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What a channel does to each frame. Probabilities are per frame except `ber` (per bit).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Faults {
    /// Independent random bit errors, per bit (most are corrected by an FEC, if there is one).
    pub ber: f64,
    /// Probability that a unit is hit by a burst of `burst_bits` bits (first and last bit
    /// flipped, the ones between with probability 1/2).
    pub burst: f64,
    pub burst_bits: u32,
    /// Probability that a frame is silently dropped (forced drop: it never arrives).
    pub drop: f64,
    /// Symbol error rate beyond the FEC (FER_UC for RXL): probability that a unit gets two
    /// corrupted bytes in one of the channel's interleaved FEC groups
    /// ([`Channel::with_fec_ways`], 3 for the CXL/PCIe 6 flit), which the FEC detects or
    /// miscorrects.
    pub uc: f64,
}

impl Faults {
    pub fn none() -> Faults {
        Faults::default()
    }
    /// Independent bit errors only.
    pub fn ber(ber: f64) -> Faults {
        Faults { ber, ..Faults::default() }
    }
}

/// What a channel did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelStats {
    /// Units that entered (flits; lane frames of a RIFL slot).
    pub frames: u64,
    /// Of them, payload-carrying ones (RXL payload flits; 0 where the frame cannot tell).
    pub payload_frames: u64,
    pub bit_errors: u64,
    /// Units that carried at least one random bit error.
    pub frames_with_bit_errors: u64,
    pub bursts: u64,
    pub uc_injected: u64,
    /// Frames (whole slots) dropped.
    pub drops: u64,
    pub payload_drops: u64,
}

impl std::ops::AddAssign for ChannelStats {
    fn add_assign(&mut self, o: ChannelStats) {
        self.frames += o.frames;
        self.payload_frames += o.payload_frames;
        self.bit_errors += o.bit_errors;
        self.frames_with_bit_errors += o.frames_with_bit_errors;
        self.bursts += o.bursts;
        self.uc_injected += o.uc_injected;
        self.drops += o.drops;
        self.payload_drops += o.payload_drops;
    }
}

/// Something a channel carries: one or more units (lanes) of bits.
pub trait Frame {
    /// Units in this frame (lanes of a slot); each is hit by errors independently.
    fn units(&self) -> usize {
        1
    }
    fn unit_bits(&self, unit: usize) -> usize;
    fn flip(&mut self, unit: usize, bit: usize);
    /// Whether the frame carries payload (counted in `payload_frames` / `payload_drops`).
    fn is_payload(&self) -> bool {
        false
    }
}

/// An RXL / CXL flit, byte `i` = bits `[8i+7:8i]`.
impl Frame for Box<Flit> {
    fn unit_bits(&self, _: usize) -> usize {
        8 * self.len()
    }
    fn flip(&mut self, _: usize, bit: usize) {
        self[bit / 8] ^= 1 << (bit % 8);
    }
    fn is_payload(&self) -> bool {
        Header::of(&self[..]).ftype == TYPE_PAYLOAD
    }
}

/// A RIFL slot: one frame per lane.
impl Frame for Vec<Bits> {
    fn units(&self) -> usize {
        self.len()
    }
    fn unit_bits(&self, unit: usize) -> usize {
        self[unit].width()
    }
    fn flip(&mut self, unit: usize, bit: usize) {
        self[unit].flip(bit);
    }
}

/// A delay line of `delay` cycles with faults.
#[derive(Debug, Clone)]
pub struct Channel<T> {
    /// Frames in flight, one entry per cycle (`None`: nothing was sent that cycle).
    line: VecDeque<Option<T>>,
    faults: Faults,
    rng: SplitMix64,
    /// Bits until the next random bit error (geometric gaps, continued across frames).
    gap: u64,
    /// Interleaved FEC groups for `uc` (byte i is in group i mod ways).
    fec_ways: usize,
    pub stats: ChannelStats,
}

impl<T: Frame> Channel<T> {
    /// A channel whose frame entering at cycle c leaves at c + `delay`.
    pub fn new(delay: usize, faults: Faults, seed: u64) -> Channel<T> {
        let mut rng = SplitMix64::new(seed);
        let gap = geometric(&mut rng, faults.ber);
        Channel { line: (0..delay).map(|_| None).collect(), faults, rng, gap, fec_ways: 3, stats: ChannelStats::default() }
    }

    /// Interleaved FEC groups the `uc` faults aim at (default 3: the CXL/PCIe 6 flit).
    pub fn with_fec_ways(mut self, ways: usize) -> Channel<T> {
        self.fec_ways = ways.max(1);
        self
    }

    pub fn delay(&self) -> usize {
        self.line.len()
    }

    pub fn faults(&self) -> Faults {
        self.faults
    }

    /// Changes the faults from now on (e.g. none while a campaign drains).
    pub fn set_faults(&mut self, faults: Faults) {
        self.faults = faults;
        self.gap = geometric(&mut self.rng, faults.ber);
    }

    /// One cycle: `input` enters (after the faults), the frame `delay` cycles old leaves.
    pub fn step(&mut self, input: Option<T>) -> Option<T> {
        let entering = input.and_then(|f| self.corrupt(f));
        self.line.push_back(entering);
        self.line.pop_front().flatten()
    }

    fn corrupt(&mut self, mut f: T) -> Option<T> {
        let fl = self.faults;
        let payload = f.is_payload();
        let units = f.units();
        self.stats.frames += units as u64;
        self.stats.payload_frames += units as u64 * payload as u64;
        if fl.drop > 0.0 && self.rng.chance(fl.drop) {
            self.stats.drops += 1;
            self.stats.payload_drops += payload as u64;
            return None;
        }
        for u in 0..units {
            let len = f.unit_bits(u) as u64;
            if fl.ber > 0.0 {
                let mut pos = 0u64;
                let mut hit = false;
                while self.gap < len - pos {
                    pos += self.gap;
                    f.flip(u, pos as usize);
                    self.stats.bit_errors += 1;
                    hit = true;
                    pos += 1;
                    self.gap = geometric(&mut self.rng, fl.ber);
                }
                self.gap -= len - pos;
                self.stats.frames_with_bit_errors += hit as u64;
            }
            if fl.burst > 0.0 && fl.burst_bits > 0 && self.rng.chance(fl.burst) {
                let n = (fl.burst_bits as u64).min(len);
                let start = self.rng.range(0, len - n);
                for k in 0..n {
                    if k == 0 || k == n - 1 || self.rng.chance(0.5) {
                        f.flip(u, (start + k) as usize);
                    }
                }
                self.stats.bursts += 1;
            }
            if fl.uc > 0.0 && self.rng.chance(fl.uc) {
                // Two distinct bytes of one FEC group, each XORed with a nonzero value.
                let bytes = (len / 8) as usize;
                let ways = self.fec_ways.min(bytes).max(1);
                let group = self.rng.range(0, ways as u64 - 1) as usize;
                let count = (bytes - group).div_ceil(ways) as u64;
                if count >= 2 {
                    let a = self.rng.range(0, count - 1);
                    let mut b = self.rng.range(0, count - 2);
                    if b >= a {
                        b += 1;
                    }
                    for k in [a, b] {
                        let byte = group + ways * k as usize;
                        let v = self.rng.range(1, 255);
                        for i in 0..8 {
                            if v >> i & 1 == 1 {
                                f.flip(u, 8 * byte + i);
                            }
                        }
                    }
                    self.stats.uc_injected += 1;
                }
            }
        }
        Some(f)
    }
}

/// Bits before the next error of a Bernoulli(p) bit stream (0 = the very next bit); draws
/// nothing when `p` ≤ 0.
fn geometric(rng: &mut SplitMix64, p: f64) -> u64 {
    if p <= 0.0 {
        return u64::MAX / 2;
    }
    if p >= 1.0 {
        return 0;
    }
    let u = 1.0 - rng.unit();
    (u.ln() / (1.0 - p).ln()).floor().min(u64::MAX as f64 / 2.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtl_gen::blocks::rxl_endpoint::flit::FLIT_BYTES;

    const FLIT_BITS: f64 = 8.0 * FLIT_BYTES as f64;

    #[test]
    fn delay_and_faults_on_flits() {
        let mut ch: Channel<Box<Flit>> = Channel::new(3, Faults::none(), 1);
        let f = Box::new([7u8; FLIT_BYTES]);
        assert!(ch.step(Some(f.clone())).is_none());
        assert!(ch.step(None).is_none());
        assert!(ch.step(None).is_none());
        assert_eq!(ch.step(None), Some(f.clone()));
        let mut ch: Channel<Box<Flit>> = Channel::new(0, Faults::ber(1e-3), 2);
        for _ in 0..10_000 {
            ch.step(Some(f.clone()));
        }
        let rate = ch.stats.bit_errors as f64 / (10_000.0 * FLIT_BITS);
        assert!((rate - 1e-3).abs() < 1e-4, "measured BER {rate}");
        let mut ch: Channel<Box<Flit>> = Channel::new(0, Faults { drop: 0.1, uc: 0.2, ..Faults::none() }, 3);
        let mut lost = 0;
        for _ in 0..10_000 {
            let out = ch.step(Some(f.clone()));
            lost += out.is_none() as u32;
            if let Some(o) = out {
                // A symbol error: exactly two bytes of one group of three differ.
                let diff: Vec<usize> = (0..FLIT_BYTES).filter(|&i| o[i] != f[i]).collect();
                assert!(diff.is_empty() || (diff.len() == 2 && diff[0] % 3 == diff[1] % 3), "{diff:?}");
            }
        }
        assert!((900..1100).contains(&lost), "{lost} drops");
        assert!((1600..2000).contains(&ch.stats.uc_injected), "{:?}", ch.stats);
        let mut ch: Channel<Box<Flit>> = Channel::new(0, Faults { burst: 1.0, burst_bits: 40, ..Faults::none() }, 4);
        let o = ch.step(Some(Box::new([0u8; FLIT_BYTES]))).expect("not dropped");
        let ones: Vec<usize> = (0..8 * FLIT_BYTES).filter(|&b| o[b / 8] >> (b % 8) & 1 == 1).collect();
        assert_eq!(ones.last().expect("burst") - ones[0], 39, "a 40-bit burst spans first to last bit");
    }

    #[test]
    fn lanes_flip_at_the_requested_rate() {
        let mut ch: Channel<Vec<Bits>> = Channel::new(3, Faults::ber(1e-3), 5);
        let mut got = 0;
        for _ in 0..20_000 {
            if ch.step(Some(vec![Bits::zeros(256)])).is_some() {
                got += 1;
            }
        }
        assert_eq!(got, 20_000 - 3);
        let rate = ch.stats.bit_errors as f64 / (20_000.0 * 256.0);
        assert!((rate - 1e-3).abs() < 1.5e-4, "{rate}");
        assert_eq!(ch.stats.frames, 20_000);
    }
}
