//! Streaming Reed-Solomon encoders and decoders (`rs_fec` with `symbols_per_cycle` < N, issue
//! 15) in Verilator, lockstep with the cycle models on every port every clock: the default
//! design's KR4 (P = 33) and KP4 (P = 32), and a small RS(38,30) over GF(2^8) at P = 3 with
//! padding, a short SER window and narrow counters (saturation, alarm).

mod common;

use common::{bench, copy_tree, scaled, TestResult};
use rtl_gen::blocks::rs_fec::RsFecBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::fec_stream::{codewords, DecLockstep, Traffic};
use rtl_gen_sim::cosim::{self, Options};
use rtl_gen_sim::{Bench, TestRng};

/// Default-run size, or the issue's full size with `RTLGEN_LONG=1`.
fn sized(default: usize, long: usize) -> usize {
    if std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1") {
        long
    } else {
        default
    }
}

const SMALL: &str = r#"
[design]
name = "fs"
reset = "sync_high"

[[blocks]]
kind = "rs_fec"
name = "small"
symbol_bits = 8
check_symbols = 8
msg_symbols = 30
fcr = 1
symbols_per_cycle = 3
ser_window = 8
ser_threshold = 12
counter_bits = 8
"#;

fn lockstep(bench: &Bench, block: &str, test: &str) -> Result<(DecLockstep, RsFecBlock), Box<dyn std::error::Error>> {
    let b = bench.block::<RsFecBlock>(block)?.clone();
    let dut = bench.dut(block, Role::FecDec, test)?;
    assert_eq!(dut.info().latency, b.stream_decoder().timing.latency(), "manifest latency");
    Ok((DecLockstep::new(dut, &b)?, b))
}

fn check(ls: &DecLockstep, what: &str) {
    assert_eq!(ls.tally.mismatches, 0, "{what}: first mismatch {:?}", ls.tally.first);
}

/// The small code: random errors 0..=2t+1, gaps and backpressure, both bypasses, narrow
/// counters that saturate, an SER window of 8 codewords; every port every clock vs the model.
#[test]
fn small_code_every_port_every_clock() -> TestResult {
    let bench = Bench::from_toml(SMALL, "fs.toml")?;
    let mut rng = TestRng::for_test("rs_stream_small")?;
    let (mut ls, b) = lockstep(&bench, "small", "rs_stream_small")?;
    let t = b.t() as usize;
    let count = scaled(600);
    let errors: Vec<usize> = (0..count).map(|_| rng.range(0, 2 * t as u64 + 1) as usize).collect();
    let (sent, clean) = codewords(&b, &errors, &mut rng);
    let mut phases = [Traffic::default(); 4];
    phases[1] = Traffic { idle: 0.3, stall: 0.4, ..Traffic::default() };
    phases[2] = Traffic { idle: 0.1, stall: 0.1, bypass_correction: true, ..Traffic::default() };
    phases[3] = Traffic { idle: 0.2, stall: 0.5, bypass_indication: true, ..Traffic::default() };
    let chunk = count / 4;
    for (i, tr) in phases.iter().enumerate() {
        let range = i * chunk..(i + 1) * chunk;
        let got = ls.run(&sent[range.clone()], tr, &mut rng)?;
        assert_eq!(got.len(), chunk, "phase {i}: every codeword comes out");
        for ((g, r), (c, &e)) in got.iter().zip(&sent[range.clone()]).zip(clean[range.clone()].iter().zip(&errors[range])) {
            if e <= t {
                let want = if tr.bypass_correction { r } else { c };
                assert_eq!(&g.cw, want, "phase {i}: ≤ t errors");
                assert_eq!((g.corrected, g.uncorrectable), (e as u32, false));
            }
            if tr.bypass_indication {
                assert!(!g.uncorrectable);
            }
        }
    }
    check(&ls, "small");
    let o = ls.model.outputs();
    assert_eq!((o.corrected_symbols, o.corrected_bits, o.uncorrectable_codewords), (255, 255, 255), "8-bit counters saturate");
    assert!(ls.alarm_rises > 0 && ls.alarm_clocks < ls.cycle, "the SER alarm rose {} times, high {} of {} clocks", ls.alarm_rises, ls.alarm_clocks, ls.cycle);
    println!("small: {} clocks, {count} codewords, {} mismatches; SER alarm rose {} times, high {} clocks", ls.cycle, ls.tally.mismatches, ls.alarm_rises, ls.alarm_clocks);
    Ok(())
}

/// One symbol per clock (P = 1, where the decoder's per-lane vectors are single bits): random
/// 0..=t+1 errors with gaps and backpressure, every port every clock against the model.
#[test]
fn one_symbol_per_clock_decoder_matches_the_model() -> TestResult {
    let text = SMALL.replace("symbols_per_cycle = 3", "symbols_per_cycle = 1");
    let bench = Bench::from_toml(&text, "fs.toml")?;
    let mut rng = TestRng::for_test("rs_stream_p1")?;
    let (mut ls, b) = lockstep(&bench, "small", "rs_stream_p1")?;
    let t = b.t() as usize;
    let errors: Vec<usize> = (0..scaled(60)).map(|_| rng.range(0, t as u64 + 1) as usize).collect();
    let (sent, clean) = codewords(&b, &errors, &mut rng);
    let got = ls.run(&sent, &Traffic { idle: 0.2, stall: 0.3, ..Traffic::default() }, &mut rng)?;
    assert_eq!(got.len(), sent.len(), "every codeword comes out");
    for ((g, c), &e) in got.iter().zip(&clean).zip(&errors) {
        if e <= t {
            assert_eq!((&g.cw, g.corrected, g.uncorrectable), (c, e as u32, false), "≤ t errors corrected");
        }
    }
    check(&ls, "P = 1");
    Ok(())
}

/// Eight symbols per clock (5 beats for 2t = 8 iterations): two RiBM solvers on alternate
/// codewords at one iteration per clock, back to back (each solver's next codeword arrives
/// while the other works) and with gaps and backpressure, every port every clock.
#[test]
fn two_solver_decoder_matches_the_model() -> TestResult {
    let text = SMALL.replace("symbols_per_cycle = 3", "symbols_per_cycle = 8");
    let bench = Bench::from_toml(&text, "fs.toml")?;
    let mut rng = TestRng::for_test("rs_stream_p8")?;
    let (mut ls, b) = lockstep(&bench, "small", "rs_stream_p8")?;
    let timing = b.stream_decoder().timing;
    assert_eq!((timing.solvers, timing.iters_per_clock), (2, 1), "{timing:?}");
    let t = b.t() as usize;
    let errors: Vec<usize> = (0..scaled(200)).map(|_| rng.range(0, t as u64 + 2) as usize).collect();
    let (sent, clean) = codewords(&b, &errors, &mut rng);
    let half = sent.len() / 2;
    for (range, tr) in [(0..half, Traffic::default()), (half..sent.len(), Traffic { idle: 0.2, stall: 0.3, ..Traffic::default() })] {
        let got = ls.run(&sent[range.clone()], &tr, &mut rng)?;
        assert_eq!(got.len(), range.len(), "every codeword comes out");
        for ((g, c), &e) in got.iter().zip(&clean[range.clone()]).zip(&errors[range]) {
            if e <= t {
                assert_eq!((&g.cw, g.corrected, g.uncorrectable), (c, e as u32, false), "≤ t errors corrected");
            }
        }
    }
    check(&ls, "P = 8, two solvers");
    Ok(())
}

/// One broken line of the emitted decoder (a check lane's syndrome weight) is caught.
#[test]
fn a_broken_decoder_is_caught() -> TestResult {
    let bench = Bench::from_toml(SMALL, "fs.toml")?;
    let module = bench.module("small", Role::FecDec)?.name().to_string();
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().to_path_buf();
    copy_tree(bench.tree().root(), &dir)?;
    let path = dir.join("rtl").join(format!("{module}.v"));
    let text = std::fs::read_to_string(&path)?;
    let line = text.lines().find(|l| l.contains("assign syn_next[0] =")).expect("syndrome network line").to_string();
    // `~a ^ b …` inverts the bit's parity, whatever form the network writes.
    let broken = line.replacen(" = ", " = ~", 1);
    std::fs::write(&path, text.replacen(&line, &broken, 1))?;
    let broken_bench = Bench::with_tree(rtl_gen::config::Design::parse(SMALL, "fs.toml")?, &dir)?;
    assert_eq!(broken_bench.differing_modules(), [module.as_str()], "only the edited file differs");
    let b = broken_bench.block::<RsFecBlock>("small")?.clone();
    let dut = broken_bench.dut("small", Role::FecDec, "rs_stream_broken")?;
    let mut ls = DecLockstep::new(dut, &b)?;
    let mut rng = TestRng::for_test("rs_stream_broken")?;
    let (sent, _) = codewords(&b, &[1, 2, 0, 3], &mut rng);
    ls.run(&sent, &Traffic::default(), &mut rng)?;
    assert!(ls.tally.mismatches > 0, "the mutated syndrome network must differ from the model");
    Ok(())
}

/// The default design's KR4 (P = 33) and KP4 (P = 32) decoders: ≤ t errors in random positions
/// all corrected, t + 1 errors flagged exactly as the model says, random 1..=2t errors bit exact,
/// back to back then with random idle gaps and backpressure, then both bypasses; every port
/// every clock against the model (default 400 + 100 + 400 codewords per code; RTLGEN_LONG=1:
/// 10,000 + 1,000 + 100,000).
#[test]
fn ethernet_streaming_decoders_match_the_model() -> TestResult {
    let bench = bench();
    for name in ["kr4_fec", "kp4_fec"] {
        let test = format!("rs_stream_{name}");
        let mut rng = TestRng::for_test(&test)?;
        let (mut ls, b) = lockstep(&bench, name, &test)?;
        let t = b.t() as usize;
        let (within, beyond, random) = (sized(400, 10_000), sized(100, 1_000), sized(400, 100_000));
        // ≤ t errors, back to back, no stalls: all corrected, one codeword every B clocks.
        let errors: Vec<usize> = (0..within).map(|_| rng.range(1, t as u64) as usize).collect();
        let (sent, clean) = codewords(&b, &errors, &mut rng);
        let start = ls.cycle;
        let got = ls.run(&sent, &Traffic::default(), &mut rng)?;
        let clocks = ls.cycle - start;
        let beats = b.stream_code().beats() as u64;
        assert!(clocks <= within as u64 * beats + u64::from(ls.model.timing.latency()) + beats, "{name}: {clocks} clocks for {within} codewords back to back");
        for (i, (g, c)) in got.iter().zip(&clean).enumerate() {
            assert_eq!(&g.cw, c, "{name}: codeword {i} with {} errors", errors[i]);
            assert_eq!((g.corrected as usize, g.uncorrectable), (errors[i], false));
        }
        // t + 1 errors: as the model says (flagged, or a miscorrection to a codeword).
        let (sent, _) = codewords(&b, &vec![t + 1; beyond], &mut rng);
        let got = ls.run(&sent, &Traffic { idle: 0.2, stall: 0.2, ..Traffic::default() }, &mut rng)?;
        let flagged = got.iter().filter(|g| g.uncorrectable).count();
        // Random 1..=2t errors with gaps and backpressure, then the bypasses.
        let errors: Vec<usize> = (0..random).map(|_| rng.range(1, 2 * t as u64) as usize).collect();
        let (sent, _) = codewords(&b, &errors, &mut rng);
        let q = random / 4;
        ls.run(&sent[..2 * q], &Traffic { idle: 0.3, stall: 0.3, ..Traffic::default() }, &mut rng)?;
        ls.run(&sent[2 * q..3 * q], &Traffic { idle: 0.1, stall: 0.1, bypass_correction: true, ..Traffic::default() }, &mut rng)?;
        let got = ls.run(&sent[3 * q..], &Traffic { idle: 0.1, stall: 0.1, bypass_indication: true, ..Traffic::default() }, &mut rng)?;
        assert!(got.iter().all(|g| !g.uncorrectable), "{name}: indication bypassed");
        check(&ls, name);
        let o = ls.model.outputs();
        println!(
            "{name}: {within} codewords of 1..={t} errors corrected in {clocks} clocks; {beyond} of {} errors: {flagged} flagged; {random} of 1..={} errors; {} clocks, 0 mismatches; counters: {} symbols, {} bits, {} uncorrectable",
            t + 1,
            2 * t,
            ls.cycle,
            o.corrected_symbols,
            o.corrected_bits,
            o.uncorrectable_codewords
        );
    }
    Ok(())
}

/// The default design's streaming encoders through the registered co-simulation driver
/// (random gaps and backpressure, every port every clock).
#[test]
fn ethernet_streaming_encoders_match_the_model() -> TestResult {
    let bench = bench();
    for name in ["kr4_fec", "kp4_fec"] {
        let m = bench.module(name, Role::FecEnc)?;
        let o = cosim::module(&bench, m, &Options { vectors: sized(300, 10_000) as u64, seed: 15 })?;
        println!("{o}");
        o.check()?;
    }
    Ok(())
}

/// A streaming decoder of the variants design against the model: random 0..=2t+1 errors with
/// gaps and stalls, every port every clock.
fn variant_decoder_matches_the_model(block: &str) -> TestResult {
    let bench = Bench::from_design_file(common::workspace().join("rtl-gen/designs/rs_fec_variants.toml"))?;
    let tag = format!("rs_stream_{block}");
    let mut rng = TestRng::for_test(&tag)?;
    let (mut ls, b) = lockstep(&bench, block, &tag)?;
    let t = b.t() as usize;
    let errors: Vec<usize> = (0..sized(300, 10_000)).map(|i| if i % 3 == 0 { rng.range(0, t as u64) as usize } else { rng.range(0, 2 * t as u64 + 1) as usize }).collect();
    let (sent, clean) = codewords(&b, &errors, &mut rng);
    let got = ls.run(&sent, &Traffic { idle: 0.2, stall: 0.2, ..Traffic::default() }, &mut rng)?;
    assert_eq!(got.len(), sent.len());
    for ((g, c), &e) in got.iter().zip(&clean).zip(&errors) {
        if e <= t {
            assert_eq!(&g.cw, c);
        }
    }
    check(&ls, block);
    println!("{block}: {} codewords, {} clocks, 0 mismatches", sent.len(), ls.cycle);
    Ok(())
}

/// The 400G KP4 (P = 128, 5 beats, the last one 32 symbols and 96 padding lanes, two RiBM
/// solvers at 5 iterations per clock): opt-in, its 3.9 MB decoder takes minutes to Verilate.
#[test]
#[ignore]
fn kp4_400g_decoder_matches_the_model() -> TestResult {
    variant_decoder_matches_the_model("kp4_400g")
}

/// The KP4 at P = 16 (34 beats, RiBM one iteration per clock), the width that the default ECP5
/// flow routes: opt-in, like every variant.
#[test]
#[ignore]
fn kp4_p16_decoder_matches_the_model() -> TestResult {
    variant_decoder_matches_the_model("kp4_p16")
}
