//! Event-driven simulation of the shared LUT6 CRC networks in Icarus. By default the default
//! design's CRC modules (shared style) give the model's CRC on a few vectors each. The speed
//! comparison is opt-in (`RTLGEN_LONG=1 … -- --ignored`: speed is a benchmark figure, not a
//! unit-test verdict): each network and a 2,048-bit CRC-32C against a `masked` twin of the same
//! CRC on the same vectors, the shared network taking at most [`RATIO`] times the twin's
//! simulation time (a network that woke every reader of a level on any node change, one kept
//! vector per level, took about 4,000 times as long). Needs `iverilog`/`vvp` (`scripts/setup`).

use rtl_gen::blocks::crc::CrcBlock;
use rtl_gen::blocks::Block;
use rtl_gen::config::Design;
use rtl_gen::math::splitmix::SplitMix64;
use rtl_gen::output::tree::{self, Layout};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Vectors per module in the speed comparison.
const VECTORS: usize = 300;

/// Vectors per module in the default value check (the widest network takes about 50 ms each).
const CHECK_VECTORS: usize = 24;

/// Most simulation time of a shared network per unit of its masked twin's. Generous: measured
/// 1.7 (CRC-32 over 72 bits) to 10 (CRC-64 over 1,936 bits), where Icarus evaluates one
/// functor per node against 64 vector reductions; with a vector wire per level it was about
/// 4,000.
const RATIO: f64 = 40.0;

/// The CRC-32C over 2,048 bits: the widest network docs/results/crc.md names.
const CRC32C_2048: &str = "width = 32\npoly = 0x1EDC6F41\ninit = \"0xFFFFFFFF\"\nrefin = true\nrefout = true\nxorout = \"0xFFFFFFFF\"\ndata_bits = 2048\nchecker = false";

/// `[[blocks]]` text of a default-design block with its parameters, and of its masked twin.
fn block_texts(b: &CrcBlock) -> (String, String) {
    let fields: Vec<String> = b
        .typed_params()
        .into_iter()
        .filter(|(k, _)| !matches!(*k, "xor_style" | "xor_window" | "checker"))
        // Wide constants as "0x…" strings: TOML integers stop at 2^63.
        .map(|(k, v)| match v.as_u64() {
            Some(n) if n > i64::MAX as u64 => format!("{k} = \"0x{n:X}\""),
            _ => format!("{k} = {v}"),
        })
        .collect();
    let shared = format!("[[blocks]]\nkind = \"crc\"\nname = \"{}\"\n{}\nchecker = false\n", b.name, fields.join("\n"));
    let masked = format!("[[blocks]]\nkind = \"crc\"\nname = \"{}_masked\"\n{}\nchecker = false\nxor_style = \"masked\"\n", b.name, fields.join("\n"));
    (shared, masked)
}

/// Hex of a little-endian byte string as `$readmemh` reads a vector (most significant first).
fn hex(bytes: &[u8]) -> String {
    bytes.iter().rev().map(|b| format!("{b:02x}")).collect()
}

/// Simulate `module` (ports data[, seq] → crc) on `vectors` random vectors in Icarus, checking
/// each CRC against the model; returns the `vvp` time.
fn simulate(root: &Path, work: &Path, module: &str, b: &CrcBlock, vectors: usize) -> Duration {
    let mut rng = SplitMix64::new(0x1CA2_u64 ^ b.data_bits as u64);
    let model = b.model();
    let (n, w, s) = (b.data_bits as usize, b.algorithm.width as usize, b.seq_bits as usize);
    let (mut data, mut seqs, mut crcs) = (String::new(), String::new(), String::new());
    for _ in 0..vectors {
        let bytes = rng.bytes(n / 8);
        let seq = if s == 0 { 0 } else { rng.range(0, (1u64 << s) - 1) };
        let crc = model.isn_checksum(&bytes, seq, b.seq_bits);
        data += &format!("{}\n", hex(&bytes));
        seqs += &format!("{seq:x}\n");
        crcs += &format!("{crc:x}\n");
    }
    for (f, text) in [("data.hex", &data), ("seq.hex", &seqs), ("crc.hex", &crcs)] {
        std::fs::write(work.join(format!("{module}_{f}")), text).expect("vectors");
    }
    let seq_decl = if s == 0 { String::new() } else { format!("    reg [{}:0] seq;\n    reg [{}:0] seqs [0:{}];\n", s - 1, s - 1, vectors - 1) };
    let seq_port = if s == 0 { "" } else { ", .seq(seq)" };
    let seq_load = if s == 0 { String::new() } else { format!("        $readmemh(\"{module}_seq.hex\", seqs);\n") };
    let seq_set = if s == 0 { "" } else { " seq = seqs[i];" };
    let tb = format!(
        "`timescale 1ns/1ps\nmodule tb;\n    reg [{n1}:0] data;\n    wire [{w1}:0] crc;\n    reg [{n1}:0] datas [0:{v1}];\n    reg [{w1}:0] crcs [0:{v1}];\n{seq_decl}    integer i, errors;\n    {module} dut (.data(data){seq_port}, .crc(crc));\n    initial begin\n        $readmemh(\"{module}_data.hex\", datas);\n        $readmemh(\"{module}_crc.hex\", crcs);\n{seq_load}        errors = 0;\n        for (i = 0; i < {vectors}; i = i + 1) begin\n            data = datas[i];{seq_set}\n            #1;\n            if (crc !== crcs[i]) errors = errors + 1;\n        end\n        $display(\"vectors {vectors} errors %0d\", errors);\n        $finish;\n    end\nendmodule\n",
        n1 = n - 1,
        w1 = w - 1,
        v1 = vectors - 1,
    );
    let tb_path = work.join(format!("{module}_tb.v"));
    std::fs::write(&tb_path, tb).expect("bench");
    let exe = work.join(format!("{module}.vvp"));
    let build = Command::new("iverilog").args(["-g2005", "-o"]).arg(&exe).arg(&tb_path).arg(root.join(format!("rtl/{module}.v"))).output().expect("iverilog installed (scripts/setup)");
    assert!(build.status.success(), "iverilog {module}: {}", String::from_utf8_lossy(&build.stderr));
    let start = Instant::now();
    let run = Command::new("vvp").arg("-n").arg(&exe).current_dir(work).output().expect("vvp");
    let took = start.elapsed();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(out.contains(&format!("vectors {vectors} errors 0")), "{module} differs from the model in Icarus:\n{out}{}", String::from_utf8_lossy(&run.stderr));
    took
}

/// `[[blocks]]` text of the default design's unpipelined shared-style CRCs (with their masked
/// twins when `twins`), and their names.
fn default_shared_crcs(twins: bool) -> (String, Vec<String>) {
    let default = Design::builtin_default();
    let mut text = String::new();
    let mut names = Vec::new();
    for b in default.blocks.iter().filter_map(|b| b.as_any().downcast_ref::<CrcBlock>()) {
        if b.pipeline == 0 && matches!(b.network, rtl_gen::hw::xor_net::XorStyle::Lut6Shared { .. }) {
            let (shared, masked) = block_texts(b);
            text += &shared;
            if twins {
                text += &masked;
            }
            names.push(b.name.clone());
        }
    }
    assert!(names.len() >= 3, "the default design's shared CRCs: {names:?}");
    (text, names)
}

/// The design's tree in a fresh folder: (folder, tree root, design).
fn write_tree(text: &str) -> (tempfile::TempDir, std::path::PathBuf, Design) {
    let design = Design::parse(text, "speed").expect("design");
    let dir = tempfile::tempdir().expect("temp dir");
    let layout = Layout::for_design_file(dir.path(), &design);
    let root = layout.root.clone();
    tree::build(&Design::parse(text, "speed").expect("design").elaborate(), layout).write().expect("tree");
    (dir, root, design)
}

fn crc_block(design: &Design, name: &str) -> CrcBlock {
    design.block(name).and_then(|b| b.as_any().downcast_ref::<CrcBlock>()).cloned().expect("crc block")
}

#[test]
fn shared_crc_networks_give_the_model_crc_in_icarus() {
    let (blocks, names) = default_shared_crcs(false);
    let (dir, root, design) = write_tree(&format!("[design]\nname = \"speed\"\n\n{blocks}"));
    for name in &names {
        simulate(&root, dir.path(), &format!("speed_{name}"), &crc_block(&design, name), CHECK_VECTORS);
    }
}

#[test]
#[ignore = "a speed comparison (benchmark figure): RTLGEN_LONG=1"]
fn shared_crc_networks_simulate_in_icarus_about_as_fast_as_masked_ones() {
    assert!(std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1"), "set RTLGEN_LONG=1");
    let (blocks, mut names) = default_shared_crcs(true);
    let mut text = format!("[design]\nname = \"speed\"\n\n{blocks}");
    text += &format!("[[blocks]]\nkind = \"crc\"\nname = \"crc32c_2048\"\n{CRC32C_2048}\n[[blocks]]\nkind = \"crc\"\nname = \"crc32c_2048_masked\"\n{CRC32C_2048}\nxor_style = \"masked\"\n");
    names.push("crc32c_2048".into());
    let (dir, root, design) = write_tree(&text);
    let mut report = Vec::new();
    let mut slow = Vec::new();
    for name in &names {
        let shared = simulate(&root, dir.path(), &format!("speed_{name}"), &crc_block(&design, name), VECTORS);
        let masked = simulate(&root, dir.path(), &format!("speed_{name}_masked"), &crc_block(&design, &format!("{name}_masked")), VECTORS);
        let ratio = shared.as_secs_f64() / masked.as_secs_f64();
        report.push(format!("{name}: shared {shared:.2?}, masked {masked:.2?}, ratio {ratio:.2}"));
        if ratio > RATIO {
            slow.push(name.clone());
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(slow.is_empty(), "shared networks over {RATIO} x their masked twin's Icarus time: {slow:?}\n{}", report.join("\n"));
}
