//! Evaluations per second of a wide combinational module driven from Rust, and clock cycles per
//! second of a small clocked one. Not a test: run with
//!
//! ```text
//! cargo bench -p rtl-gen-sim --bench evals                      # fixture fx_wide_fold (1946-bit input)
//! cargo bench -p rtl-gen-sim --bench evals -- <tree> <module> <input port> <output port>
//! ```
//!
//! Each measurement cycles through 1024 pre-generated random inputs so the RNG is not timed.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rtl_gen_sim::{Bits, Dut, SimError, TestRng, Tree};

const RUN: Duration = Duration::from_secs(2);

fn main() {
    if let Err(e) = run() {
        eprintln!("benchmark failed: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), SimError> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/basic");
    let (tree, module, input, output) = match args.as_slice() {
        // cargo runs benches inside sim/: a relative tree path is also tried from the workspace.
        [t, m, i, o, ..] => {
            let t = PathBuf::from(t);
            let t = if t.exists() {
                t
            } else {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(t)
            };
            (t, m.clone(), i.clone(), o.clone())
        }
        _ => (
            fixtures.clone(),
            "fx_wide_fold".into(),
            "data".into(),
            "fold".into(),
        ),
    };
    let tree = Tree::open(&tree)?;

    let t = Instant::now();
    let mut dut = Dut::build(&tree, &module)?;
    let info = dut.build_info().clone();
    println!(
        "{module}: build {:.2?} (cache hit: {}, total with load {:.2?}) -> {}",
        info.elapsed,
        info.cache_hit,
        t.elapsed(),
        info.library.display()
    );

    let t = Instant::now();
    let again = Dut::build(&tree, &module)?;
    println!(
        "{module}: second build in the same process {:.2?} (cache hit: {})",
        t.elapsed(),
        again.build_info().cache_hit
    );
    drop(again);

    let (i, o) = (dut.port(&input)?, dut.port(&output)?);
    let width = dut
        .info()
        .port(&input)
        .map(|p| p.width as usize)
        .unwrap_or(1);
    let mut rng = TestRng::from_seed(1);
    let inputs: Vec<Bits> = (0..1024).map(|_| rng.bits(width)).collect();
    let mut out = dut.get_port(o)?;

    let rate = measure(|n| {
        dut.set_port(i, &inputs[n % inputs.len()])?;
        dut.eval();
        dut.get_port_into(o, &mut out)?;
        black_box(&out);
        Ok(())
    })?;
    println!("{module}: set {input}[{width}] + eval + get {output}: {rate:.0} evals/s");

    let rate = measure(|n| {
        dut.set(&input, &inputs[n % inputs.len()])?;
        dut.eval();
        black_box(dut.get(&output)?);
        Ok(())
    })?;
    println!("{module}: same through port names and allocating get: {rate:.0} evals/s");

    let rate = measure(|_| {
        dut.eval();
        Ok(())
    })?;
    println!("{module}: eval alone (inputs unchanged): {rate:.0} evals/s");

    let fixtures = Tree::open(&fixtures)?;
    let mut counter = Dut::build(&fixtures, "fx_counter")?;
    counter.reset(1)?;
    counter.set_u64("en", 1)?;
    let rate = measure(|_| {
        counter.tick();
        Ok(())
    })?;
    println!("fx_counter: tick (3 evals, clock edge): {rate:.0} cycles/s");
    Ok(())
}

/// Calls `f(n)` for n = 0.. in batches until `RUN` has elapsed; returns calls per second.
fn measure(mut f: impl FnMut(usize) -> Result<(), SimError>) -> Result<f64, SimError> {
    let start = Instant::now();
    let mut n = 0usize;
    while start.elapsed() < RUN {
        for _ in 0..1000 {
            f(n)?;
            n += 1;
        }
    }
    Ok(n as f64 / start.elapsed().as_secs_f64())
}
