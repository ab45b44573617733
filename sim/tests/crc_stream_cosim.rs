//! Every `crc_stream` module of the default design against the model: messages of random
//! length 1..=4096 bytes (and every in_keep pattern of the last beat), back to back, with random
//! idle cycles between and inside messages; each CRC checked at exactly the module's latency.

mod common;

use common::{bench, scaled, TestResult};
use rtl_gen::blocks::crc_stream::CrcStreamBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::{Bits, Dut, Scoreboard, TestRng};

#[test]
fn stream_crc_matches_the_model_for_any_length_and_gap_pattern() -> TestResult {
    let bench = bench();
    let blocks = bench.blocks::<CrcStreamBlock>();
    assert!(!blocks.is_empty(), "the default design has a crc_stream block");
    for b in blocks {
        let name = bench.module(&b.name, Role::CrcStream)?.name().to_string();
        let test = format!("crc_stream_{}", b.name);
        let mut rng = TestRng::for_test(&test)?;
        let model = b.model();
        let wb = b.word_bytes as usize;
        let latency = b.latency() as u64;
        assert_eq!(bench.tree().module(&name)?.latency as u64, latency);
        let mut dut = bench.dut(&b.name, Role::CrcStream, &test)?;
        dut.reset(2)?;

        // Every last-beat keep pattern (lengths 1..=wb, and the same past one full beat), then
        // random lengths up to 4096 bytes.
        let mut lengths: Vec<usize> = (1..=wb).chain((1..=wb).map(|r| wb + r)).collect();
        lengths.extend((0..scaled(300)).map(|_| rng.range(1, 4096) as usize));
        let messages: Vec<Vec<u8>> = lengths.iter().map(|&n| rng.bytes(n)).collect();

        let mut sb: Scoreboard<(u64, u64)> = Scoreboard::new(format!("{name} (cycle, crc)")).with_seed(rng.seed()).with_wave(dut.wave_path());
        let gap = 0.15; // probability of an idle cycle before any beat
        let mut cycle = 0u64;
        let step = |dut: &mut Dut, sb: &mut Scoreboard<(u64, u64)>, cycle: &mut u64| -> TestResult {
            dut.eval();
            if dut.get_u64("crc_valid")? == 1 {
                sb.push_actual(*cycle, (*cycle, dut.get_u64("crc")?))?;
            }
            dut.tick();
            *cycle += 1;
            Ok(())
        };
        for msg in &messages {
            let beats = msg.len().div_ceil(wb);
            for beat in 0..beats {
                while rng.chance(gap) {
                    // Idle: garbage on the data lines must be ignored.
                    dut.set_u64("in_valid", 0)?;
                    dut.set("in_data", &rng.bits(8 * wb))?;
                    dut.set("in_keep", &rng.bits(wb))?;
                    dut.set_u64("in_first", rng.chance(0.5) as u64)?;
                    dut.set_u64("in_last", rng.chance(0.5) as u64)?;
                    step(&mut dut, &mut sb, &mut cycle)?;
                }
                let chunk = &msg[beat * wb..msg.len().min((beat + 1) * wb)];
                let mut data = rng.bits(8 * wb); // bytes beyond the keep are random, not zero
                data.set_slice(0, &Bits::from_bytes(chunk));
                let mut keep = Bits::zeros(wb);
                for i in 0..chunk.len() {
                    keep.set(i, true);
                }
                let last = beat + 1 == beats;
                dut.set_u64("in_valid", 1)?;
                dut.set_u64("in_first", (beat == 0) as u64)?;
                dut.set_u64("in_last", last as u64)?;
                dut.set("in_keep", &keep)?;
                dut.set("in_data", &data)?;
                if last {
                    sb.push_expected(cycle + latency, (cycle + latency, model.checksum(msg)))?;
                }
                step(&mut dut, &mut sb, &mut cycle)?;
            }
        }
        dut.set_u64("in_valid", 0)?;
        for _ in 0..latency + 2 {
            step(&mut dut, &mut sb, &mut cycle)?;
        }
        let n = sb.finish()?;
        assert_eq!(n, messages.len() as u64);
    }
    Ok(())
}
