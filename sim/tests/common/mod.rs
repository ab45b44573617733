//! Shared by the co-simulation tests: the committed default tree (kept identical to the
//! generator's output by `rtl-gen check`) and the design it came from, for the models.
#![allow(dead_code)]

use rtl_gen_sim::Bench;
use std::path::PathBuf;

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// The built-in default design (the models) and its committed tree (the RTL).
pub fn bench() -> Bench {
    Bench::default_design().expect("generated/ exists: run `rtl-gen generate`")
}

/// How many random vectors a test drives: the default run, or ten times that with
/// `RTLGEN_LONG=1`.
pub fn scaled(n: usize) -> usize {
    if std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1") {
        10 * n
    } else {
        n
    }
}

/// Runs a link campaign between two instances of the default design's endpoint block `ep_name`
/// through `switches` levels of its switch with the same FEC layout, as RTL only or RTL and
/// models in lockstep (`check`), and prints the campaign table.
pub fn rxl_campaign(
    ep_name: &str,
    switches: usize,
    cycles: u64,
    faults: rtl_gen_sim::campaign::Faults,
    check: rtl_gen_sim::campaign::rxl::rtl::Check,
    test: &str,
    tweak: impl FnOnce(&mut rtl_gen_sim::campaign::rxl::CampaignConfig),
) -> rtl_gen_sim::campaign::rxl::Report {
    use rtl_gen::blocks::rxl_endpoint::RxlEndpointBlock;
    use rtl_gen::blocks::rxl_switch::RxlSwitchBlock;
    use rtl_gen_sim::campaign::rxl::{self, rtl::rtl_nodes, CampaignConfig};
    let bench = rtl_gen_sim::Bench::default_design().expect("the default design and generated/");
    let ep = bench.block::<RxlEndpointBlock>(ep_name).expect("endpoint block");
    let sw = bench.blocks::<RxlSwitchBlock>().into_iter().find(|s| s.fec == ep.cfg.fec);
    let mut cfg = CampaignConfig::new(ep.cfg.mode, switches, cycles);
    cfg.endpoint = ep.cfg.clone();
    cfg.faults = faults;
    tweak(&mut cfg);
    let ep_module = bench.module(ep_name, rtl_gen::hw::module::Role::Endpoint).expect("endpoint module");
    let nodes = rtl_nodes(&bench, ep_module, sw, switches, check, &Default::default(), test).expect("RTL nodes build");
    let r = rxl::run_config(&cfg, nodes, &mut |_, _| {}).unwrap_or_else(|e| panic!("{ep_name}, {switches} switches: {e}"));
    print!("{}", rxl::table(std::slice::from_ref(&r)));
    r
}
