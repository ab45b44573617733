//! Shared by the co-simulation tests: the committed default tree (kept identical to the
//! generator's output by `rtl-gen check`) and the design it came from, for the models, and the
//! RXL and RIFL link helpers more than one test file uses.
#![allow(dead_code)]

use rtl_gen_sim::Bench;
use std::path::{Path, PathBuf};

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// The built-in default design (the models) and its committed tree (the RTL).
pub fn bench() -> Bench {
    Bench::default_design().expect("generated/ exists: run `rtl-gen generate`")
}

/// The built-in default design and its committed tree.
pub fn default_design() -> (rtl_gen::config::Design, rtl_gen_sim::Tree) {
    let tree = rtl_gen_sim::Tree::open(workspace().join("generated")).expect("generated/ exists: run `rtl-gen generate`");
    (rtl_gen::config::Design::builtin_default(), tree)
}

/// The default design's `rifl` block called `name`.
pub fn rifl_block<'a>(design: &'a rtl_gen::config::Design, name: &str) -> &'a rtl_gen::blocks::rifl::RiflBlock {
    design
        .blocks
        .iter()
        .filter_map(|b| b.as_any().downcast_ref::<rtl_gen::blocks::rifl::RiflBlock>())
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("the default design has a rifl block `{name}`"))
}

/// How many random vectors (or cycles) a test drives: the default run, or ten times that with
/// `RTLGEN_LONG=1`.
pub fn scaled<N: From<u8> + std::ops::Mul<Output = N>>(n: N) -> N {
    if std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1") {
        N::from(10) * n
    } else {
        n
    }
}

/// Asserts a co-simulation tally compared something and found no mismatch, printing what it saw.
pub fn clean(t: &rtl_gen_sim::cosim::Tally, what: &str, rng: &rtl_gen_sim::TestRng) {
    println!("{what}: {} compared outputs, {} cycles, {} mismatches", t.vectors, t.cycles, t.mismatches);
    assert!(t.mismatches == 0 && t.vectors > 0, "{what}: {} mismatches; first: {:?}; {}", t.mismatches, t.first, rng.replay_hint());
}

/// A link between two endpoints of block `ep` through `switches` levels, everything in
/// lockstep: busy faults (a retry every few hundred flits of every kind), tx_ready low 5 % of
/// the time, 90 % load, a 20-flit retry loop (`cosim::rxl::campaign_config`), then `tweak`.
pub fn rxl_lockstep(ep: &str, switches: usize, cycles: u64, tweak: impl FnOnce(&mut rtl_gen_sim::link::rxl::CampaignConfig)) -> rtl_gen_sim::link::rxl::Report {
    use rtl_gen::hw::module::Role;
    use rtl_gen_sim::campaign::rxl::record::table;
    use rtl_gen_sim::cosim::rxl;
    use rtl_gen_sim::{Bench, TestRng};
    let bench = Bench::default_design().expect("default design");
    let m = bench.module(ep, Role::Endpoint).expect("endpoint module");
    let mut cfg = rxl::campaign_config(m, switches, cycles).expect("campaign");
    tweak(&mut cfg);
    let mut rng = TestRng::for_test(&format!("cosim_{ep}_{switches}")).expect("rng");
    let (t, r) = rxl::endpoint_run(&bench, m, &cfg, &mut rng).unwrap_or_else(|e| panic!("{ep}, {switches} switches: {e}"));
    print!("{}", table(std::slice::from_ref(&r)));
    clean(&t, &format!("{ep}, {switches} switches"), &rng);
    r
}

/// Runs a link campaign between two instances of the default design's endpoint block `ep_name`
/// through `switches` levels of its switch with the same FEC layout, as RTL only or RTL and
/// models in lockstep (`check`), and prints the campaign table.
pub fn rxl_campaign(
    ep_name: &str,
    switches: usize,
    cycles: u64,
    faults: rtl_gen_sim::campaign::Faults,
    check: rtl_gen_sim::link::rxl::rtl::Check,
    test: &str,
    tweak: impl FnOnce(&mut rtl_gen_sim::link::rxl::CampaignConfig),
) -> rtl_gen_sim::link::rxl::Report {
    use rtl_gen::blocks::rxl_endpoint::RxlEndpointBlock;
    use rtl_gen::blocks::rxl_switch::RxlSwitchBlock;
    use rtl_gen_sim::campaign::rxl::record::table;
    use rtl_gen_sim::link::rxl::{self, rtl::rtl_nodes, CampaignConfig};
    let bench = rtl_gen_sim::Bench::default_design().expect("the default design and generated/");
    let ep = bench.block::<RxlEndpointBlock>(ep_name).expect("endpoint block");
    let sw = bench.blocks::<RxlSwitchBlock>().into_iter().find(|s| s.fec == ep.fec);
    let mut cfg = CampaignConfig::new(ep.mode, switches, cycles);
    cfg.endpoint = ep.params.clone();
    cfg.faults = faults;
    tweak(&mut cfg);
    let ep_module = bench.module(ep_name, rtl_gen::hw::module::Role::Endpoint).expect("endpoint module");
    let nodes = rtl_nodes(&bench, ep_module, sw, switches, check, &Default::default(), test).expect("RTL nodes build");
    let r = rxl::run_config(&cfg, nodes, &mut |_, _| {}).unwrap_or_else(|e| panic!("{ep_name}, {switches} switches: {e}"));
    print!("{}", table(std::slice::from_ref(&r)));
    r
}

/// Copies a generated tree (every file under `from`) to `to`.
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in walk(from)? {
        let rel = entry.strip_prefix(from).expect("under the root");
        let dst = to.join(rel);
        std::fs::create_dir_all(dst.parent().expect("parent"))?;
        std::fs::copy(&entry, dst)?;
    }
    Ok(())
}

/// Every file under `dir`, recursively.
pub fn walk(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            out.extend(walk(&p)?);
        } else {
            out.push(p);
        }
    }
    Ok(out)
}

/// Yosys `synth -flatten` of `module` from `tree`, then the passes in `mapping` (each ending in
/// `;`, e.g. `abc -lut 6; opt_clean; stat;`), and `write_verilog` of the netlist over the
/// module's file; returns Yosys's log (for `stat`/`ltp` figures).
pub fn synthesize_in_place(tree: &Path, module: &str, mapping: &str) -> Result<String, Box<dyn std::error::Error>> {
    let file = tree.join(format!("rtl/{module}.v"));
    let deps: Vec<String> = walk(&tree.join("rtl"))?.iter().filter(|p| p.extension().is_some_and(|e| e == "v")).map(|p| format!("read_verilog {}", p.display())).collect();
    let script = format!("{}; synth -flatten -top {module}; {mapping} write_verilog -noattr {}", deps.join("; "), file.display());
    let out = std::process::Command::new("yosys").args(["-p", &script]).output()?;
    if !out.status.success() {
        return Err(format!("yosys on {module}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
