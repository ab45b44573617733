//! Every `crc_stream` module of the default design against its beat model, through the
//! co-simulation driver of `rtl-gen sim cosim` (`sim/src/cosim/crc.rs`): messages of every
//! last-beat keep pattern and of random length 1..=4096 bytes, back to back, with random idle
//! cycles (garbage on the data lines) between and inside them; each CRC checked at exactly the
//! module's latency, and no CRC where none is due.

mod common;

use common::{bench, scaled, TestResult};
use rtl_gen::blocks::crc_stream::CrcStreamBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::{self, Options};
use rtl_gen_sim::TestRng;

/// Random messages per module (the driver counts `vectors` in beats of 2,048-byte messages).
const RANDOM_MESSAGES: u64 = 300;

#[test]
fn stream_crc_matches_the_model_for_any_length_and_gap_pattern() -> TestResult {
    let bench = bench();
    let blocks = bench.blocks::<CrcStreamBlock>();
    assert!(!blocks.is_empty(), "the default design has a crc_stream block");
    for b in blocks {
        let m = bench.module(&b.name, Role::CrcStream)?;
        assert_eq!(bench.tree().module(m.name())?.latency, b.latency(), "manifest latency of {}", m.name());
        let wb = b.word_bytes as u64;
        let random = scaled(RANDOM_MESSAGES as usize) as u64;
        let seed = TestRng::for_test(&format!("crc_stream_{}", b.name))?.seed();
        let outcome = cosim::module(&bench, m, &Options { vectors: random * (2048 / wb).max(1), seed })?;
        outcome.check()?;
        // Every keep pattern twice (one beat, and past a full beat), then the random ones.
        assert!(outcome.vectors >= 2 * wb + random, "{outcome}");
    }
    Ok(())
}
