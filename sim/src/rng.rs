//! Seeded, replayable stimulus.
//!
//! Every random test draws from a [`TestRng`] whose 64-bit seed is
//! - the value of `RTLGEN_SEED` when set (decimal or `0x` hex), to replay a failure;
//! - a fresh random seed when `RTLGEN_SEED=random` (to explore beyond the default runs);
//! - otherwise derived from the test name (sha256), so the default run is reproducible and
//!   different tests get different streams.
//!
//! The generator is SplitMix64 (`rtl_gen::math::splitmix`), the workspace's one RNG family: the
//! models' channels, the link campaigns and the tests all draw from it, a fixed, portable
//! algorithm, so the same seed gives the same stimulus on every machine and every `rand`
//! release (`TestRng` implements `RngCore`; the `rand::Rng` methods on top of it are rand's).
//! Failure messages include [`TestRng::replay_hint`] so a failing seed can be replayed exactly.

use std::env;
use std::fmt;

use rand::{Rng, RngCore};
use rtl_gen::math::splitmix::SplitMix64;
use sha2::{Digest, Sha256};

use crate::env_vars::SEED_ENV;
use crate::SimError;
use rtl_gen::bits::Bits;

/// A seeded RNG that remembers its seed. Implements [`RngCore`], so all of `rand::Rng` works.
#[derive(Clone)]
pub struct TestRng {
    seed: u64,
    inner: SplitMix64,
}

impl TestRng {
    /// The RNG of the test `test_name`: seed from `RTLGEN_SEED` or derived from the name (see
    /// module docs). Fails only when `RTLGEN_SEED` is set to something unparsable.
    pub fn for_test(test_name: &str) -> Result<TestRng, SimError> {
        match env::var(SEED_ENV) {
            Ok(v) if !v.trim().is_empty() => Ok(TestRng::from_seed(parse_seed(v.trim())?)),
            _ => Ok(TestRng::from_seed(seed_from_name(test_name))),
        }
    }

    /// An RNG with an explicit seed (ignores the environment).
    pub fn from_seed(seed: u64) -> TestRng {
        TestRng {
            seed,
            inner: SplitMix64::new(seed),
        }
    }

    /// The seed this RNG started from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// `RTLGEN_SEED=0x...`: what to set to replay this stream.
    pub fn replay_hint(&self) -> String {
        format!("{SEED_ENV}={:#018x}", self.seed)
    }

    /// The underlying SplitMix64 stream (its helpers draw from the same sequence).
    pub fn splitmix(&mut self) -> &mut SplitMix64 {
        &mut self.inner
    }

    /// A uniformly random `width`-bit vector.
    pub fn bits(&mut self, width: usize) -> Bits {
        Bits::random(width, self)
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0; n];
        self.fill_bytes(&mut v);
        v
    }

    /// A uniform value in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        self.random_range(lo..=hi)
    }

    /// `true` with probability `p` (clamped to 0..=1).
    pub fn chance(&mut self, p: f64) -> bool {
        self.random_bool(p.clamp(0.0, 1.0))
    }
}

impl RngCore for TestRng {
    fn next_u32(&mut self) -> u32 {
        RngCore::next_u32(&mut self.inner)
    }
    fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        RngCore::fill_bytes(&mut self.inner, dst)
    }
}

/// `seed 0x... (replay with RTLGEN_SEED=0x...)`, ready for assertion messages.
impl fmt::Display for TestRng {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "seed {:#018x} (replay with {})",
            self.seed,
            self.replay_hint()
        )
    }
}

impl fmt::Debug for TestRng {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TestRng {{ seed: {:#018x} }}", self.seed)
    }
}

fn seed_from_name(name: &str) -> u64 {
    let d = Sha256::digest(name.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_le_bytes(b)
}

fn parse_seed(v: &str) -> Result<u64, SimError> {
    if v.eq_ignore_ascii_case("random") {
        return Ok(rand::rng().random());
    }
    let parsed = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16),
        None => v.replace('_', "").parse::<u64>(),
    };
    parsed.map_err(|e| SimError::BadEnv {
        var: SEED_ENV.into(),
        value: v.into(),
        reason: format!("expected a decimal or 0x-hex u64, or `random` ({e})"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = TestRng::from_seed(42);
        let mut b = TestRng::from_seed(42);
        assert_eq!(a.bits(1946), b.bits(1946));
        assert_eq!(a.next_u64(), b.next_u64());
        assert_ne!(seed_from_name("a"), seed_from_name("b"));
        // The stream is SplitMix64's: the published outputs for seed 0.
        assert_eq!(TestRng::from_seed(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn seed_parsing() {
        assert_eq!(parse_seed("0x10").ok(), Some(16));
        assert_eq!(parse_seed("1_000").ok(), Some(1000));
        assert!(parse_seed("zz").is_err());
        let hint = TestRng::from_seed(255).replay_hint();
        assert_eq!(hint, "RTLGEN_SEED=0x00000000000000ff");
        assert_eq!(
            parse_seed(hint.split('=').nth(1).unwrap_or("")).ok(),
            Some(255)
        );
    }
}
