//! Tests of the co-simulation harness itself, on hand-written fixture trees
//! (`tests/fixtures/basic`: working modules; `tests/fixtures/broken`: deliberate errors).

use std::path::PathBuf;
use std::time::Instant;

use rtl_gen_sim::{Bits, Dut, Scoreboard, ScoreboardError, SimError, TestRng, Tree};

type R = Result<(), SimError>;

fn fixture(name: &str) -> Tree {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    match Tree::open(&path) {
        Ok(t) => t,
        Err(e) => panic!("fixture {}: {e}", path.display()),
    }
}

/// Reference model of `fx_wide_fold`: 70-bit chunks of the zero-padded input, folded with a
/// rotate-left-by-one between chunks.
fn fold_model(data: &Bits) -> Bits {
    let padded = data.concat(&Bits::zeros(29 * 70 - data.width()));
    let mut fold = Bits::zeros(70);
    for i in 0..29 {
        let mut rot = Bits::zeros(70);
        rot.set_slice(1, &fold.slice(0, 69));
        rot.set(0, fold.get(69));
        fold = &rot ^ &padded.slice(70 * i, 70);
    }
    fold
}

fn fold_stimulus(rng: &mut TestRng) -> Vec<Bits> {
    let mut v = vec![Bits::zeros(1946), Bits::ones(1946)];
    for i in [
        0usize, 1, 31, 32, 63, 64, 69, 70, 1023, 1919, 1920, 1944, 1945,
    ] {
        let mut b = Bits::zeros(1946);
        b.set(i, true);
        v.push(b);
    }
    v.extend((0..300).map(|_| rng.bits(1946)));
    v
}

#[test]
fn wide_fold_matches_model_through_dependency() -> R {
    let tree = fixture("basic");
    let mut dut = Dut::build_named(&tree, "fx_wide_fold", "wide_fold_matches_model")?;
    let mut rng = TestRng::for_test("wide_fold_matches_model")?;
    let mut sb = Scoreboard::new("fx_wide_fold")
        .with_seed(rng.seed())
        .with_wave(dut.wave_path());
    let (data, fold) = (dut.port("data")?, dut.port("fold")?);
    for (n, x) in fold_stimulus(&mut rng).iter().enumerate() {
        dut.set_port(data, x)?;
        dut.eval();
        sb.push_expected(n as u64, (fold_model(x), x.count_ones() % 2 == 1))?;
        sb.push_actual(n as u64, (dut.get_port(fold)?, dut.get_u64("parity")? == 1))?;
    }
    assert_eq!(sb.finish()?, 315);
    Ok(())
}

#[test]
fn round_trip_every_width_class() -> R {
    const WIDTHS: [usize; 11] = [1, 8, 9, 16, 17, 32, 33, 64, 65, 128, 1946];
    let tree = fixture("basic");
    let mut dut = Dut::build_named(&tree, "fx_widths", "round_trip_every_width_class")?;
    let mut rng = TestRng::for_test("round_trip_every_width_class")?;
    for w in WIDTHS {
        let (a, y) = (format!("a{w}"), format!("y{w}"));
        let mut values = vec![Bits::zeros(w), Bits::ones(w), Bits::from_u64(1, w)];
        let mut top = Bits::zeros(w);
        top.set(w - 1, true);
        values.push(top);
        values.extend((0..20).map(|_| rng.bits(w)));
        for v in &values {
            dut.set(&a, v)?;
            dut.eval();
            assert_eq!(dut.get(&a)?, *v, "input a{w} reads back; {rng}");
            assert_eq!(dut.get(&y)?, !v, "y{w} = ~a{w}; {rng}");
            // The shim's 32-bit word API sees the same values as the direct storage access.
            assert_eq!(
                dut.get_words(&y)?,
                pad_words((!v).to_u32_words(), w),
                "word API of y{w}"
            );
        }
        // And writes through the word API land in the same storage.
        let v = rng.bits(w);
        dut.set_words(&a, &pad_words(v.to_u32_words(), w))?;
        dut.eval();
        assert_eq!(dut.get(&a)?, v, "set_words a{w}");
        assert_eq!(dut.get(&y)?, !&v, "set_words y{w}");
        if w <= 64 {
            let x = v.low_u64();
            dut.set_u64(&a, x)?;
            dut.eval();
            assert_eq!(
                dut.get_u64(&y)?,
                !x & (u64::MAX >> (64 - w)),
                "u64 path y{w}"
            );
        } else {
            dut.set_u64(&a, 0xdead_beef)?;
            dut.eval();
            assert_eq!(
                dut.get(&a)?,
                Bits::from_u64(0xdead_beef, w),
                "set_u64 zero-extends a{w}"
            );
        }
    }
    // Byte-slice conversion follows the byte-order convention end to end.
    let bytes: Vec<u8> = (0..16).collect();
    dut.set("a128", &Bits::from_bytes(&bytes))?;
    dut.eval();
    assert_eq!(dut.get("a128")?.to_bytes(), bytes);
    assert_eq!(
        dut.get("a128")?.to_u128(),
        Some(u128::from_le_bytes(
            bytes.clone().try_into().unwrap_or([0; 16])
        ))
    );
    Ok(())
}

/// Ports of 33..=64 bits take two words in the shim's word API.
fn pad_words(mut w: Vec<u32>, width: usize) -> Vec<u32> {
    if (33..=64).contains(&width) {
        w.resize(2, 0);
    }
    w
}

#[test]
fn counter_ticks_and_sync_reset() -> R {
    let tree = fixture("basic");
    let mut dut = Dut::build_named(&tree, "fx_counter", "counter_ticks_and_sync_reset")?;
    assert_eq!(dut.info().latency, 1);
    dut.set_u64("en", 0)?;
    dut.reset(2)?;
    assert_eq!(dut.get_u64("count")?, 0);
    assert_eq!(dut.cycle(), 2);
    dut.set_u64("en", 1)?;
    // Combinational output follows the input after eval, before any edge.
    dut.eval();
    assert_eq!(dut.get_u64("next")?, 1);
    assert_eq!(dut.get_u64("count")?, 0);
    for n in 1..=10u64 {
        dut.tick();
        assert_eq!(dut.get_u64("count")?, n, "after {n} enabled cycles");
        assert_eq!(dut.get_u64("next")?, n + 1);
    }
    dut.set_u64("en", 0)?;
    dut.ticks(3);
    assert_eq!(dut.get_u64("count")?, 10, "holds without en");
    // A synchronous reset acts on the edge, not before it.
    dut.set_u64("rst", 1)?;
    dut.eval();
    assert_eq!(dut.get_u64("count")?, 10);
    dut.tick();
    assert_eq!(dut.get_u64("count")?, 0);
    dut.set_u64("rst", 0)?;
    dut.set_u64("en", 1)?;
    dut.ticks(0x1_0005);
    assert_eq!(dut.get_u64("count")?, 5, "16-bit wrap");
    assert_eq!(dut.cycle(), 2 + 10 + 3 + 1 + 0x1_0005);
    // Starting a trace dumps the initial state and moves time on by one unit.
    let trace_start = u64::from(dut.wave_path().is_some());
    assert_eq!(
        dut.time(),
        dut.cycle() * 10 + 5 + trace_start,
        "10 time units per cycle, plus 1 per eval"
    );
    Ok(())
}

#[test]
fn counter_async_active_low_reset() -> R {
    let tree = fixture("basic");
    let mut dut = Dut::build_named(&tree, "fx_counter_n", "counter_async_active_low_reset")?;
    dut.reset(1)?;
    assert_eq!(dut.get_u64("rst_n")?, 1, "released after reset");
    dut.set_u64("en", 1)?;
    dut.ticks(7);
    assert_eq!(dut.get_u64("count")?, 7);
    // Asynchronous: clears on eval, without a clock edge.
    dut.set_u64("rst_n", 0)?;
    dut.eval();
    assert_eq!(dut.get_u64("count")?, 0);
    dut.ticks(3);
    assert_eq!(dut.get_u64("count")?, 0, "held in reset");
    dut.set_u64("rst_n", 1)?;
    dut.ticks(2);
    assert_eq!(dut.get_u64("count")?, 2);
    // reset(0) still clears an asynchronous reset.
    dut.reset(0)?;
    assert_eq!(dut.get_u64("count")?, 0);
    Ok(())
}

#[test]
fn user_errors_name_the_port() -> R {
    let tree = fixture("basic");
    let mut dut = Dut::build_named(&tree, "fx_wide_fold", "user_errors_name_the_port")?;

    let e = dut.set("nope", &Bits::zeros(1)).unwrap_err();
    assert!(matches!(e, SimError::UnknownPort { .. }), "{e}");
    assert!(
        e.to_string().contains("`nope`") && e.to_string().contains("input data[1946]"),
        "{e}"
    );

    let e = dut.set("data", &Bits::zeros(1945)).unwrap_err();
    assert!(
        matches!(e, SimError::WidthMismatch { width: 1946, .. }),
        "{e}"
    );
    assert!(
        e.to_string().contains("`data`") && e.to_string().contains("1945 bits"),
        "{e}"
    );

    let e = dut.set("fold", &Bits::zeros(70)).unwrap_err();
    assert!(matches!(e, SimError::NotAnInput { .. }), "{e}");
    assert!(
        e.to_string().contains("`fold`") && e.to_string().contains("output"),
        "{e}"
    );

    let e = dut.get_u64("fold").unwrap_err();
    assert!(
        e.to_string().contains("`fold`") && e.to_string().contains("at most 64"),
        "{e}"
    );
    let e = dut.get("missing").unwrap_err();
    assert!(e.to_string().contains("`missing`"), "{e}");

    let e = dut.reset(1).unwrap_err();
    assert!(matches!(e, SimError::NoReset { .. }), "{e}");

    let e = dut.set_words("data", &[0; 3]).unwrap_err();
    assert!(
        e.to_string().contains("3 words were given, 61 expected"),
        "{e}"
    );

    let e = Dut::build(&tree, "fx_nonexistent").unwrap_err();
    assert!(matches!(e, SimError::UnknownModule { .. }), "{e}");
    assert!(
        e.to_string().contains("fx_counter_n"),
        "lists what exists: {e}"
    );

    // set_u64 checks the value against a narrow port; PortIds belong to their Dut.
    let mut counter = Dut::build_named(&tree, "fx_counter", "user_errors_name_the_port_2")?;
    let e = counter.set_u64("en", 2).unwrap_err();
    assert!(
        e.to_string().contains("`en`") && e.to_string().contains("0x2 does not fit"),
        "{e}"
    );
    let foreign = dut.port("data")?;
    let e = counter.get_port(foreign).unwrap_err();
    assert!(matches!(e, SimError::ForeignPort { .. }), "{e}");
    Ok(())
}

#[test]
fn manifest_and_build_errors_are_reported() {
    let tree = fixture("broken");
    let e = Dut::build(&tree, "bx_syntax").unwrap_err();
    match &e {
        SimError::BuildFailed {
            stage, log, tail, ..
        } => {
            assert!(stage.contains("verilator"), "{e}");
            assert!(log.is_file(), "log kept at {}", log.display());
            assert!(
                tail.contains("%Error") && tail.contains("bx_syntax.v"),
                "{e}"
            );
        }
        other => panic!("expected BuildFailed, got {other}"),
    }

    let e = Dut::build(&tree, "bx_liar").unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, SimError::PortMismatch { .. }), "{msg}");
    assert!(
        msg.contains("port `a` is 8 bits in the manifest but 9 bits in the RTL"),
        "{msg}"
    );
    assert!(msg.contains("RTL port `extra`"), "{msg}");

    let e = Dut::build(&tree, "bx_missing_file").unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
    let e = Dut::build(&tree, "bx_bad_dep").unwrap_err();
    assert!(e.to_string().contains("`bx_nowhere`"), "{e}");
    let e = Dut::build(&tree, "bx_bad_clock").unwrap_err();
    assert!(
        e.to_string()
            .contains("clock `clk` is not one of the ports"),
        "{e}"
    );

    let e = Tree::open(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nowhere"))
        .unwrap_err();
    assert!(e.to_string().contains("manifest.json"), "{e}");
}

#[test]
fn second_build_is_a_cache_hit() -> R {
    let tree = fixture("basic");
    let first = Dut::build_named(&tree, "fx_parity", "second_build_is_a_cache_hit")?;
    let info1 = first.build_info().clone();
    let t = Instant::now();
    let second = Dut::build_named(&tree, "fx_parity", "second_build_is_a_cache_hit_2")?;
    let elapsed = t.elapsed();
    let info2 = second.build_info();
    assert!(
        info2.cache_hit,
        "second build must come from the cache: {info2:?}"
    );
    assert_eq!(info1.library, info2.library);
    assert_eq!(info1.hash, info2.hash);
    assert!(info2.library.is_file() && info2.log.is_file());
    // A hit loads the stored library: no Verilator and no compiler ran (the flag and the same
    // library path say so; its time is printed, not asserted: a loaded machine stretches it).
    eprintln!(
        "fx_parity: first build {:?} (cache hit: {}), second {:?}",
        info1.elapsed, info1.cache_hit, elapsed
    );
    // Two live instances of the same model are independent.
    let (mut a, mut b) = (first, second);
    a.set("data", &Bits::ones(1946))?;
    a.eval();
    b.set("data", &Bits::zeros(1946))?;
    b.eval();
    assert_eq!((a.get_u64("parity")?, b.get_u64("parity")?), (0, 0));
    let mut one = Bits::zeros(1946);
    one.set(1000, true);
    b.set("data", &one)?;
    b.eval();
    assert_eq!((a.get_u64("parity")?, b.get_u64("parity")?), (0, 1));
    Ok(())
}

/// Every translation unit of a model reads the precompiled runtime headers, and g++ accepted
/// them: with `-Winvalid-pch`, a precompiled header that does not fit a unit's flags (and is
/// silently parsed again from source) leaves a warning in the build log.
#[test]
fn every_unit_reads_the_precompiled_runtime_headers() -> R {
    let tree = fixture("basic");
    for dut in [Dut::build_named(&tree, "fx_parity", "precompiled_headers")?, Dut::build_traced(&tree, "fx_counter")?] {
        let log = std::fs::read_to_string(&dut.build_info().log).expect("the build log");
        let units: Vec<&str> = log.lines().filter(|l| l.starts_with("$ ") && l.contains(" -c ")).collect();
        assert!(units.len() >= 2, "a fast and a slow unit: {log}");
        for unit in &units {
            assert!(unit.contains("-Winvalid-pch -include ") && unit.contains("/rtlgen_pch.h "), "{unit}");
        }
        assert!(!log.contains("rtlgen_pch.h.gch"), "a precompiled header was refused:\n{log}");
    }
    Ok(())
}

/// A deliberately wrong model must make the comparison fail, with a precise message.
#[test]
fn scoreboard_catches_a_wrong_model() -> R {
    let tree = fixture("basic");
    let mut dut = Dut::build_named(&tree, "fx_wide_fold", "scoreboard_catches_a_wrong_model")?;
    let mut rng = TestRng::from_seed(0x5eed);
    let mut sb = Scoreboard::new("broken model")
        .with_seed(rng.seed())
        .with_wave(dut.wave_path());
    let mut failure = None;
    for cycle in 0..50u64 {
        let x = rng.bits(1946);
        dut.set("data", &x)?;
        dut.tick();
        // The "model" flips bit 0 whenever data bit 1890 is set: wrong for about half.
        let mut wrong = fold_model(&x);
        wrong.set(0, wrong.get(0) ^ x.get(1890));
        let exp = sb.push_expected(cycle, wrong);
        let act = sb.push_actual(cycle, dut.get("fold")?);
        if let Err(e) = exp.and(act) {
            failure = Some(e);
            break;
        }
    }
    let e = failure.expect("the scoreboard must reject a wrong model");
    let ScoreboardError::Mismatch(m) = &e else {
        panic!("expected a mismatch, got {e}");
    };
    let (expected, actual, expected_cycle) = (&m.expected, &m.actual, m.expected_cycle);
    assert_ne!(expected, actual);
    assert!(
        expected.starts_with("70'h") && actual.starts_with("70'h"),
        "{e}"
    );
    let msg = e.to_string();
    assert!(msg.contains(&format!("cycle {expected_cycle}")), "{msg}");
    assert!(msg.contains("RTLGEN_SEED=0x0000000000005eed"), "{msg}");
    assert!(msg.contains("waveform"), "{msg}");
    // The failure is sticky: finish reports it too.
    assert!(matches!(sb.finish(), Err(ScoreboardError::Mismatch(_))));
    Ok(())
}

/// Without RTLGEN_WAVES a model is built without tracing (much less C++ to compile); asking it
/// for a waveform is an error that says how to get one, and it is cached apart from the traced
/// build of the same module.
#[test]
fn untraced_model_refuses_a_trace_and_says_why() -> R {
    if rtl_gen_sim::waves_enabled() {
        return Ok(()); // every Dut is traced then
    }
    let tree = fixture("basic");
    let mut dut = Dut::build_named(&tree, "fx_counter", "untraced_model_refuses_a_trace")?;
    let path = rtl_gen_sim::waves_dir().join("harness_untraced.vcd");
    let err = dut.trace_to(&path).expect_err("an untraced model cannot trace").to_string();
    assert!(err.contains("built without tracing") && err.contains("RTLGEN_WAVES=1"), "{err}");
    assert_eq!(dut.wave_path(), None);
    let traced = Dut::build_traced(&tree, "fx_counter")?;
    assert_ne!(traced.build_info().hash, dut.build_info().hash, "traced and untraced builds are cached apart");
    Ok(())
}

#[test]
fn trace_writes_a_vcd() -> R {
    let tree = fixture("basic");
    let mut dut = Dut::build_traced(&tree, "fx_counter")?;
    let path = rtl_gen_sim::waves_dir().join("harness_trace_writes_a_vcd.vcd");
    let _ = std::fs::remove_file(&path);
    dut.trace_to(&path)?;
    assert_eq!(dut.wave_path(), Some(path.as_path()));
    assert!(dut.trace_to(&path).is_err(), "one trace per Dut");
    dut.reset(1)?;
    dut.set_u64("en", 1)?;
    dut.ticks(5);
    drop(dut);
    let vcd = std::fs::read_to_string(&path).map_err(|e| SimError::Io {
        context: path.display().to_string(),
        source: e,
    })?;
    assert!(vcd.contains("$enddefinitions"), "VCD header");
    assert!(
        vcd.contains(" count ") && vcd.contains(" clk "),
        "signals traced"
    );
    // Times strictly increase (Verilator warns and drops dumps otherwise).
    let times: Vec<u64> = vcd
        .lines()
        .filter_map(|l| l.strip_prefix('#')?.parse().ok())
        .collect();
    assert!(
        times.len() > 10 && times.windows(2).all(|w| w[0] < w[1]),
        "{times:?}"
    );
    Ok(())
}

/// Runs `env_probe` in a child process with `RTLGEN_WAVES=1` and `RTLGEN_SEED` set (the
/// environment of this process must not change under parallel tests).
#[test]
fn env_vars_enable_waves_and_replay_seeds() {
    let wave = rtl_gen_sim::wave_path_for("env_probe");
    let _ = std::fs::remove_file(&wave);
    let exe = std::env::current_exe().expect("test binary path");
    let out = std::process::Command::new(exe)
        .args(["env_probe", "--exact", "--nocapture"])
        .env("RTLGEN_WAVES", "1")
        .env("RTLGEN_SEED", "0x1234")
        .output()
        .expect("spawn the test binary");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child failed:\n{text}");
    assert!(text.contains("1 passed"), "child ran the probe:\n{text}");
    let vcd = std::fs::read_to_string(&wave).unwrap_or_default();
    assert!(
        vcd.contains("$enddefinitions"),
        "{} written",
        wave.display()
    );
}

/// Checks the environment it is given (see `env_vars_enable_waves_and_replay_seeds`); without
/// those variables it checks the defaults: no waveform, name-derived reproducible seed.
#[test]
fn env_probe() -> R {
    let tree = fixture("basic");
    let mut dut = Dut::build_named(&tree, "fx_counter", "env_probe")?;
    let rng = TestRng::for_test("env_probe")?;
    if std::env::var("RTLGEN_WAVES").is_ok_and(|v| v == "1") {
        assert_eq!(
            dut.wave_path(),
            Some(rtl_gen_sim::wave_path_for("env_probe").as_path())
        );
    } else {
        assert_eq!(dut.wave_path(), None);
    }
    match std::env::var("RTLGEN_SEED") {
        Ok(s) if s == "0x1234" => assert_eq!(rng.seed(), 0x1234),
        Ok(_) => {}
        Err(_) => assert_eq!(rng.seed(), TestRng::for_test("env_probe")?.seed()),
    }
    dut.reset(1)?;
    dut.set_u64("en", 1)?;
    dut.ticks(4);
    assert_eq!(dut.get_u64("count")?, 4);
    Ok(())
}

/// Opt-in (`cargo test -p rtl-gen-sim -- --ignored`): every module of the committed default
/// design builds, its manifest matches its RTL, and it survives random stimulus.
#[test]
#[ignore]
fn generated_tree_smoke() -> R {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../generated");
    let tree = Tree::open(&path)?;
    let mut rng = TestRng::for_test("generated_tree_smoke")?;
    let names: Vec<String> = tree.module_names().map(String::from).collect();
    for name in names {
        let mut dut = Dut::build_named(&tree, &name, &format!("smoke_{name}"))?;
        let b = dut.build_info();
        eprintln!("{name}: {:?} (cache hit {})", b.elapsed, b.cache_hit);
        let _ = dut.reset(2);
        let inputs: Vec<(String, usize)> = dut
            .info()
            .inputs()
            .filter(|p| Some(&p.name) != dut.info().clock.as_ref())
            .filter(|p| dut.info().reset.as_ref().map(|r| &r.name) != Some(&p.name))
            .map(|p| (p.name.clone(), p.width as usize))
            .collect();
        for _ in 0..100 {
            for (p, w) in &inputs {
                dut.set(p, &rng.bits(*w))?;
            }
            dut.tick();
            for p in dut
                .info()
                .outputs()
                .map(|p| p.name.clone())
                .collect::<Vec<_>>()
            {
                dut.get(&p)?;
            }
        }
    }
    Ok(())
}
