//! Throughput of the ISN CRC-64 of the default design: Verilator evaluations per second driven
//! from Rust (data + seq in, crc out) and the Rust reference model in bytes per second. Not a
//! test: `cargo bench -p rtl-gen-sim --bench crc_throughput`.

use rtl_gen::blocks::crc::CrcBlock;
use rtl_gen::config::Design;
use rtl_gen_sim::{Bits, Dut, TestRng, Tree};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const RUN: Duration = Duration::from_secs(3);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../generated");
    let tree = Tree::open(&root)?;
    let design = Design::builtin_default();
    let block = design.block("isn_crc64").and_then(|b| b.as_any().downcast_ref::<CrcBlock>()).ok_or("default design lacks isn_crc64")?;
    let module = design.module_name("isn_crc64", "");
    let mut dut = Dut::build(&tree, &module)?;
    let (data, seq, crc) = (dut.port("data")?, dut.port("seq")?, dut.port("crc")?);
    let mut rng = TestRng::from_seed(7);
    let flits: Vec<Bits> = (0..1024).map(|_| rng.bits(block.data_bits as usize)).collect();

    let start = Instant::now();
    let mut evals = 0u64;
    let mut acc = 0u64;
    while start.elapsed() < RUN {
        for (i, f) in flits.iter().enumerate() {
            dut.set_port(data, f)?;
            dut.set_port_u64(seq, i as u64 & 0x3ff)?;
            dut.eval();
            acc ^= dut.get_port_u64(crc)?;
        }
        evals += flits.len() as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(acc);
    println!("{module}: {:.3} M evaluations/s ({} bits in, 64 out) over {secs:.1} s", evals as f64 / secs / 1e6, block.data_bits + block.seq_bits);

    let model = block.model();
    let bytes: Vec<Vec<u8>> = flits.iter().map(Bits::to_bytes).collect();
    let start = Instant::now();
    let mut done = 0u64;
    while start.elapsed() < RUN {
        for (i, b) in bytes.iter().enumerate() {
            acc ^= model.isn_checksum(black_box(b), i as u64, block.seq_bits);
        }
        done += (bytes.len() * bytes[0].len()) as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(acc);
    println!("reference model (table-driven, ISN): {:.1} MB/s = {:.2} M flits/s", done as f64 / secs / 1e6, done as f64 / secs / bytes[0].len() as f64 / 1e6);
    Ok(())
}
