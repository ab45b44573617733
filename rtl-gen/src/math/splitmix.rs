//! SplitMix64 (Steele, Lea and Flood; the seeding generator of xoshiro): the one RNG family of
//! the workspace. The models' fault channels, the unit tests' stimulus, the simulator's
//! `TestRng` (a seeded wrapper over this) and every link campaign draw from it, so a run is
//! reproducible from one `u64` seed on every machine and every `rand` release.
//!
//! It implements `rand::RngCore`, so all of `rand::Rng` works on it (`random::<f64>()` is the
//! top 53 bits of one output, exactly [`SplitMix64::unit`]). The inherent helpers below each
//! draw whole 64-bit outputs; `next_u32` takes the low half of one output.

/// A SplitMix64 stream. Every helper draws whole 64-bit outputs, so a given seed always yields
/// the same sequence of values whatever mix of helpers consumes it.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// In `lo..=hi` (modulo bias is negligible for the small ranges drawn here).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// In `0..n`; `n` must be nonzero.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }

    /// A symbol of `mask`'s width (mask = 2^m − 1), possibly zero.
    pub fn symbol(&mut self, mask: u16) -> u16 {
        self.next_u64() as u16 & mask
    }

    pub fn symbols(&mut self, len: usize, mask: u16) -> Vec<u16> {
        (0..len).map(|_| self.symbol(mask)).collect()
    }

    /// A nonzero symbol of `mask`'s width: an error value.
    pub fn nonzero(&mut self, mask: u16) -> u16 {
        loop {
            let s = self.symbol(mask);
            if s != 0 {
                return s;
            }
        }
    }

    /// `count` distinct indices in `0..n` (count ≤ n), in the order drawn.
    pub fn distinct(&mut self, n: usize, count: usize) -> Vec<usize> {
        assert!(count <= n, "distinct: {count} indices cannot be drawn from 0..{n}");
        let mut picked = Vec::with_capacity(count);
        while picked.len() < count {
            let i = self.below(n);
            if !picked.contains(&i) {
                picked.push(i);
            }
        }
        picked
    }
}

impl rand::RngCore for SplitMix64 {
    fn next_u32(&mut self) -> u32 {
        SplitMix64::next_u64(self) as u32
    }
    fn next_u64(&mut self) -> u64 {
        SplitMix64::next_u64(self)
    }
    /// Little-endian bytes of successive outputs (the last one truncated).
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let v = SplitMix64::next_u64(self).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// Seed of the `index`-th independent stream derived from `seed` (sub-streams of a campaign:
/// one per work unit). Two SplitMix64 steps over `seed` mixed with `index`, so neighbouring
/// indices and seeds give unrelated streams.
pub fn derive_seed(seed: u64, index: u64) -> u64 {
    let mut r = SplitMix64::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    r.next_u64();
    r.next_u64()
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    #[test]
    fn rand_traits_draw_from_the_same_stream() {
        use rand::{Rng, RngCore};
        let mut a = SplitMix64::new(9);
        let mut b = SplitMix64::new(9);
        let u: f64 = a.random();
        assert_eq!(u, b.unit());
        assert_eq!(RngCore::next_u32(&mut a), b.next_u64() as u32);
        let mut bytes = [0u8; 11];
        a.fill_bytes(&mut bytes);
        let (x, y) = (b.next_u64().to_le_bytes(), b.next_u64().to_le_bytes());
        assert_eq!(bytes[..8], x);
        assert_eq!(bytes[8..], y[..3]);
        assert_ne!(super::derive_seed(1, 0), super::derive_seed(1, 1));
        assert_ne!(super::derive_seed(1, 0), super::derive_seed(2, 0));
    }

    #[test]
    fn reference_sequence_from_seed_zero() {
        // The published SplitMix64 outputs for seed 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn helpers_stay_in_range() {
        let mut r = SplitMix64::new(7);
        for _ in 0..1000 {
            assert!(r.below(5) < 5);
            assert!((3..=9).contains(&r.range(3, 9)));
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            assert_ne!(r.nonzero(0x3FF), 0);
        }
        let d = r.distinct(10, 10);
        let mut sorted = d.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>());
        assert!(!r.chance(0.0));
        assert!(r.chance(1.0));
    }
}
