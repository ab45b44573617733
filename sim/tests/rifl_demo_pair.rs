//! The two-clock FPGA demo (`demo/<node>_demo_pair.v`: two copies of a recovered-clock RIFL node
//! on unrelated TX clocks, each one's lanes receiving on the other's clock, generators and
//! checkers per direction) in Verilator, driven from Rust with one evaluation per edge of its
//! three independent clocks (`rtl_gen_sim::clocks`): a_clk, b_clk 100 ppm slower, free_clk, each
//! at a random phase. The same phases as its Verilog testbench: a clean run (both directions
//! deliver thousands of beats, every one as generated: exactly once, in order, bit-exact, since
//! the checkers' LFSRs advance once per delivered beat), a line error b must detect and a repair,
//! a data error the b checker counts once; the CDC FIFOs stay as shallow as the compensation
//! guarantees. One lane in the default run; `RTLGEN_LONG=1` adds the default design's four-lane
//! node (`rifl_rclk`).

mod common;

use common::TestResult;
use rtl_gen::hw::verilog::Dir as HwDir;
use rtl_gen::output::demo_pair;
use rtl_gen_sim::clocks::{ClockSpec, Edges};
use rtl_gen_sim::{Bench, Dir, Dut, Module, Port, PortId, TestRng};
use std::time::Instant;

const ONE_LANE: &str = r#"
[design]
name = "pair"
prefix = "pair_"
reset = "sync_high"
clock_mhz = 100.0

[[blocks]]
kind = "rifl"
name = "rclk"
frame_bits = 256
user_bits = 256
clocking = "recovered"
"#;

/// The demo top of the bench's recovered-clock node `block`, Verilated.
fn demo(bench: &Bench, block: &str, test: &str) -> Result<Dut, Box<dyn std::error::Error>> {
    let node = bench.module(block, rtl_gen::hw::module::Role::Node)?;
    let lanes = node.port("rx_clk").ok_or("a recovered-clock node")?.width;
    let level_bits = node.port("rx_cdc_level").ok_or("rx_cdc_level")?.width / lanes;
    let line_bits = node.port("tx_frame").ok_or("tx_frame")?.width;
    let name = demo_pair::top_name(node.name());
    let ports = demo_pair::top_ports(node.module.reset.ok_or("a reset")?, level_bits, line_bits)
        .into_iter()
        .map(|p| Port { name: p.name, dir: if p.dir == HwDir::Input { Dir::Input } else { Dir::Output }, width: p.width })
        .collect();
    let entry = Module { name: name.clone(), block: None, kind: None, file: format!("demo/{name}.v"), latency: 0, clock: None, reset: None, depends: vec![node.name().to_string()], ports };
    let tree = bench.tree().with_module(entry);
    Ok(Dut::build_named(&tree, &name, test)?)
}

/// The demo running: its clocks' edges, and the reset and button ports.
struct Pair {
    dut: Dut,
    edges: Edges,
    clocks: [PortId; 3],
    a_cycles: u64,
}

impl Pair {
    fn new(dut: Dut, rng: &mut TestRng) -> Result<Pair, Box<dyn std::error::Error>> {
        // 100 MHz against 100 ppm slower; free_clk 62.5 MHz (at least 1/32 of both).
        let specs = [ClockSpec::mhz(100.0, 0.0, 0), ClockSpec::mhz(100.0, 100.0, 0), ClockSpec::mhz(62.5, 0.0, 0)].map(|c| c.random_phase(rng));
        let clocks = [dut.port("a_clk")?, dut.port("b_clk")?, dut.port("free_clk")?];
        let edges = Edges::new(&specs, TestRng::from_seed(rng.range(0, u64::MAX - 1)));
        Ok(Pair { dut, edges, clocks, a_cycles: 0 })
    }

    /// Until `n` more rising edges of a_clk have been evaluated.
    fn run(&mut self, n: u64) -> TestResult {
        let end = self.a_cycles + n;
        while self.a_cycles < end {
            let e = self.edges.next().ok_or("clocks never stop")?;
            self.dut.clock_edge(self.clocks[e.clock], e.rising)?;
            if e.clock == 0 && e.rising {
                self.a_cycles += 1;
            }
        }
        Ok(())
    }

    fn set(&mut self, port: &str, v: u64) -> TestResult {
        self.dut.set_u64(port, v)?;
        Ok(())
    }

    fn get(&self, port: &str) -> u64 {
        self.dut.get_u64(port).unwrap_or_else(|e| panic!("{port}: {e}"))
    }

    /// A button held for a few a_clk cycles, then released.
    fn press(&mut self, button: &str) -> TestResult {
        self.set(button, 1)?;
        self.run(6)?;
        self.set(button, 0)
    }

    fn report(&self, phase: &str) -> String {
        let keys = ["a_link_up", "b_link_up", "ab_beats_ok", "ba_beats_ok", "ab_data_errors", "ba_data_errors", "a_frame_errors", "b_frame_errors", "a_retrans_seen", "b_retrans_seen", "ab_cdc_peak", "ba_cdc_peak", "ab_cdc_overflow", "ba_cdc_overflow"];
        let line = keys.iter().map(|k| format!("{k}={}", self.get(k))).collect::<Vec<_>>().join(" ");
        println!("DEMO phase={phase} {line}");
        line
    }

    /// Both links up, no data error either way, the CDC FIFOs shallow and never overflowed.
    fn healthy(&self, phase: &str, line: &str) {
        for k in ["a_link_up", "b_link_up"] {
            assert_eq!(self.get(k), 1, "{phase}: {k} ({line})");
        }
        for k in ["ba_data_errors", "ab_cdc_overflow", "ba_cdc_overflow"] {
            assert_eq!(self.get(k), 0, "{phase}: {k} ({line})");
        }
        for k in ["ab_cdc_peak", "ba_cdc_peak"] {
            assert!(self.get(k) <= demo_pair::PEAK_LIMIT as u64, "{phase}: {k} above what the compensation allows ({line})");
        }
    }
}

fn runs_the_demo(bench: &Bench, block: &str, test: &str) -> TestResult {
    let mut rng = TestRng::for_test(test)?;
    let t = Instant::now();
    let dut = demo(bench, block, test)?;
    let built = t.elapsed().as_secs_f64();
    let mut p = Pair::new(dut, &mut rng)?;
    let resets = ["a_rst", "b_rst", "free_rst"];
    for r in resets {
        p.set(r, 1)?;
    }
    p.run(8)?;
    for r in resets {
        p.set(r, 0)?;
    }
    p.run(demo_pair::TB_WARMUP as u64)?;
    let line = p.report("clean");
    p.healthy("clean", &line);
    assert_eq!(p.get("ab_data_errors"), 0, "clean: {line}");
    assert!(p.get("ab_beats_ok") > 1000 && p.get("ba_beats_ok") > 1000, "both directions carry thousands of beats: {line}");
    assert_eq!(p.get("a_frame_errors") + p.get("b_frame_errors"), 0, "clean: {line}");
    assert_eq!(p.get("a_retrans_seen") + p.get("b_retrans_seen"), 0, "clean: {line}");

    let (ab, ba) = (p.get("ab_beats_ok"), p.get("ba_beats_ok"));
    p.press("inject_line")?;
    p.run(demo_pair::TB_PHASE as u64)?;
    let line = p.report("line");
    p.healthy("line", &line);
    assert_eq!(p.get("ab_data_errors"), 0, "the repaired frame's beats are intact: {line}");
    assert_eq!(p.get("b_frame_errors"), 1, "b detects the flipped frame once: {line}");
    assert_eq!(p.get("a_frame_errors"), 0, "nothing wrong on the b-to-a cable: {line}");
    assert_eq!(p.get("a_retrans_seen"), 1, "a retransmits: {line}");
    assert!(p.get("ab_beats_ok") > ab + 1000 && p.get("ba_beats_ok") > ba + 1000, "both directions go on: {line}");

    p.press("inject_data")?;
    p.run(demo_pair::TB_PHASE as u64)?;
    let line = p.report("data");
    p.healthy("data", &line);
    assert_eq!(p.get("ab_data_errors"), 1, "the b checker counts the flipped beat once: {line}");
    println!("{test}: model built in {built:.1} s, {} a_clk cycles in {:.1} s", p.a_cycles, t.elapsed().as_secs_f64() - built);
    Ok(())
}

/// The one-lane node: the whole demo, every check.
#[test]
fn one_lane_pair_delivers_both_ways_across_100_ppm_and_repairs_a_line_error() -> TestResult {
    let bench = Bench::from_toml(ONE_LANE, "pair.toml")?;
    runs_the_demo(&bench, "rclk", "rifl_demo_pair_one")
}

/// The default design's four-lane recovered-clock node: a bigger model (minutes to build).
#[test]
fn default_design_pair_delivers_both_ways() -> TestResult {
    if common::scaled(1u64) == 1 {
        println!("skipped: RTLGEN_LONG=1 runs the default design's four-lane pair");
        return Ok(());
    }
    let bench = Bench::default_design()?;
    runs_the_demo(&bench, "rifl_rclk", "rifl_demo_pair_four")
}

/// The demo top over its node: Verilator `-Wall` lint-clean, parsed by Icarus `-g2005`, and the
/// testbench parsed by Verilator too (`--timing`).
#[test]
fn the_demo_is_lint_clean_in_verilator_and_icarus() -> TestResult {
    let bench = Bench::from_toml(ONE_LANE, "pair.toml")?;
    let node = bench.module("rclk", rtl_gen::hw::module::Role::Node)?.name().to_string();
    let root = bench.tree().root().to_path_buf();
    let mut files = bench.tree().sources(&node)?;
    let top = demo_pair::top_name(&node);
    files.push(root.join(format!("demo/{top}.v")));
    let run = |cmd: &mut std::process::Command| -> Result<(), Box<dyn std::error::Error>> {
        let out = cmd.output()?;
        let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && !log.contains("%Warning"), "{cmd:?}:\n{log}");
        Ok(())
    };
    run(std::process::Command::new("verilator").args(["--lint-only", "-Wall", "--top-module", &top]).args(&files))?;
    run(std::process::Command::new("iverilog").args(["-g2005", "-o", "/dev/null", "-s", &top]).args(&files))?;
    let tb = demo_pair::tb_name(&node);
    files.push(root.join(format!("demo/{tb}.v")));
    run(std::process::Command::new("verilator").args(["--lint-only", "--timing", "--top-module", &tb]).args(&files))?;
    Ok(())
}
