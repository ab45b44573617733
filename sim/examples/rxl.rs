//! RXL / CXL link campaigns from the command line, on the Verilated RTL of the default design
//! (or the reference models), with a progress bar, printing the campaign table.
//!
//! ```text
//! cargo run --release -p rtl-gen-sim --example rxl -- --topology all --drop 1e-3 --ber 1e-6 --flits 1000000
//! cargo run --release -p rtl-gen-sim --example rxl -- --mode cxl_baseline --topology 1 --drop 1e-3 --flits 1000000
//! cargo run --release -p rtl-gen-sim --example rxl -- --mode both --topology 0,1 --uc 3e-5 --flits 2000000
//! ```
//!
//! `--flits N` is the number of link cycles with saturating traffic (one flit per cycle per
//! direction); after it the campaign drains with the faults off until everything sent is
//! delivered. `--impl model` runs the Rust reference models (fast), `--impl lockstep` runs the
//! RTL and the models side by side and stops at the first differing output.

use clap::{Parser, ValueEnum};
use rtl_gen::blocks::rxl_endpoint::model::Mode;
use rtl_gen::blocks::rxl_endpoint::RxlEndpointBlock;
use rtl_gen::blocks::rxl_switch::RxlSwitchBlock;
use rtl_gen::config::Design;
use rtl_gen_sim::link::rtl::{rtl_nodes, Check};
use rtl_gen_sim::link::{self, CampaignConfig, Faults, Nodes, Report};
use rtl_gen_sim::Tree;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Debug)]
enum Impl {
    Rtl,
    Model,
    Lockstep,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Debug)]
enum ModeArg {
    Rxl,
    #[value(name = "cxl_baseline")]
    CxlBaseline,
    Both,
}

#[derive(Parser, Debug)]
#[command(about = "RXL / CXL 3.0 link campaigns on the generated RTL: scoreboards, ordering failures (Eq. 7) and bandwidth loss (Eq. 11-14)")]
struct Args {
    /// Switch levels between the endpoints: a number 0..=4, a list (0,1,4) or `all`.
    #[arg(long, default_value = "0")]
    topology: String,
    #[arg(long, value_enum, default_value = "rxl")]
    mode: ModeArg,
    #[arg(long = "impl", value_enum, default_value = "rtl")]
    implementation: Impl,
    /// Random bit error rate per bit, per link.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    ber: f64,
    /// Forced (silent) flit drop probability per link.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    drop: f64,
    /// Uncorrectable flit error rate (FER_UC) per link: two corrupted bytes in one FEC group.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    uc: f64,
    /// Burst probability per flit and link.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    burst: f64,
    /// Burst length in bits.
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..=2048))]
    burst_bits: u32,
    /// Probability per flit and switch of a bit flip inside the switch (between link_rx and link_tx).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    internal: f64,
    /// Link cycles of saturating traffic (flits per direction).
    #[arg(long, default_value_t = 100_000)]
    flits: u64,
    /// Go-back-N retry loop in flits (100 ns at 2 ns per flit = 50).
    #[arg(long = "loop", default_value_t = 50)]
    retry_loop: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Generated tree holding the RTL (the default design's `generated/`).
    #[arg(long, default_value = "generated")]
    tree: PathBuf,
    /// Endpoint blocks of the default design to use per mode.
    #[arg(long, default_value = "rxl_ep")]
    rxl_block: String,
    #[arg(long, default_value = "cxl_ep")]
    cxl_block: String,
    #[arg(long, default_value = "rxl_sw")]
    switch_block: String,
}

/// A probability argument: a number in 0..=1 (the channels draw with it per bit or per flit).
fn probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        Ok(p) => Err(format!("{p} is out of range; allowed 0..=1")),
        Err(_) => Err(format!("`{s}` is not a number; allowed 0..=1 (e.g. 1e-6)")),
    }
}

fn topologies(s: &str) -> Result<Vec<usize>, String> {
    if s == "all" {
        return Ok((0..=4).collect());
    }
    s.split(',').map(|t| t.trim().parse::<usize>().map_err(|e| format!("--topology {t}: {e}")).and_then(|n| if n <= 4 { Ok(n) } else { Err(format!("--topology {n}: at most 4 switch levels")) })).collect()
}

fn progress_bar(label: &str) -> impl FnMut(u64, u64) {
    let start = Instant::now();
    let label = label.to_string();
    move |cycle, total| {
        let frac = cycle as f64 / total.max(1) as f64;
        let width = 30;
        let filled = ((frac * width as f64) as usize).min(width);
        let secs = start.elapsed().as_secs_f64();
        let rate = cycle as f64 / secs.max(1e-9);
        let eta = if cycle > 0 { (total - cycle) as f64 / rate } else { 0.0 };
        eprint!("\r{label} [{}{}] {:5.1} % {cycle}/{total} cycles, {:.1} k cycles/s, ETA {:.0} s   ", "#".repeat(filled), ".".repeat(width - filled), 100.0 * frac, rate / 1e3, eta);
        let _ = std::io::stderr().flush();
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a = Args::parse();
    let design = Design::builtin_default();
    let modes = match a.mode {
        ModeArg::Rxl => vec![Mode::Rxl],
        ModeArg::CxlBaseline => vec![Mode::CxlBaseline],
        ModeArg::Both => vec![Mode::Rxl, Mode::CxlBaseline],
    };
    let tree = if a.implementation == Impl::Model { None } else { Some(Tree::open(&a.tree)?) };
    let find_ep = |name: &str| -> Result<RxlEndpointBlock, String> {
        design.block(name).and_then(|b| b.as_any().downcast_ref::<RxlEndpointBlock>()).cloned().ok_or_else(|| format!("no rxl_endpoint block `{name}` in the default design"))
    };
    let switch = design.block(&a.switch_block).and_then(|b| b.as_any().downcast_ref::<RxlSwitchBlock>()).cloned();
    let mut reports: Vec<Report> = Vec::new();
    for mode in modes {
        let ep = find_ep(if mode == Mode::Rxl { &a.rxl_block } else { &a.cxl_block })?;
        for switches in topologies(&a.topology)? {
            let mut cfg = CampaignConfig::new(mode, switches, a.flits);
            cfg.endpoint = ep.cfg.clone();
            cfg.faults = Faults { ber: a.ber, burst: a.burst, burst_bits: a.burst_bits, drop: a.drop, uc: a.uc };
            cfg.internal = a.internal;
            cfg.retry_loop = a.retry_loop;
            cfg.seed = a.seed;
            let nodes = match (&tree, a.implementation) {
                (_, Impl::Model) => Nodes::models(&cfg.endpoint, switches),
                (Some(t), imp) => {
                    eprintln!("building/loading the Verilated modules of `{}` and `{}`…", ep.name, a.switch_block);
                    rtl_nodes(&design, t, &ep, switch.as_ref(), switches, if imp == Impl::Lockstep { Check::Lockstep } else { Check::RtlOnly }, &format!("rxl_example_{}_{switches}", ep.name))?
                }
                (None, _) => unreachable!("a tree is opened for the RTL"),
            };
            let label = format!("{} {switches} sw", ep.mode_name());
            let r = link::run(&cfg, nodes, &mut progress_bar(&label))?;
            eprintln!();
            eprintln!("{label}: {:.1} s, {:.1} k cycles/s", r.seconds, r.cycles as f64 / r.seconds / 1e3);
            reports.push(r);
        }
    }
    println!("{}", link::table(&reports));
    println!("| mode | switches | ordering failure events | Eq. 7 predicted (drops × p_ack) | outside discard windows | p_ack | BW loss measured | Eq. 11–14 predicted | exactly once, in order |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in &reports {
        let ev: u64 = r.dirs.iter().map(|d| d.sink.ordering_events).sum();
        let pred: f64 = r.dirs.iter().map(|d| d.predicted_ordering_events()).sum();
        let shadowed: f64 = r.dirs.iter().map(|d| d.predicted_ordering_events() * (1.0 - d.bw_loss())).sum();
        let p_ack = r.dirs.iter().map(|d| d.p_ack()).sum::<f64>() / 2.0;
        let loss = r.dirs.iter().map(|d| d.bw_loss()).sum::<f64>() / 2.0;
        let ok = r.drained && r.dirs.iter().all(|d| d.sink.ordering_failures == 0 && d.sink.data_failures == 0 && d.undelivered() == 0);
        println!(
            "| {} | {} | {ev} | {pred:.1} | {shadowed:.1} | {p_ack:.3} | {:.4} % | {:.4} % | {} |",
            if r.cfg.endpoint.mode == Mode::Rxl { "rxl" } else { "cxl_baseline" },
            r.cfg.switches,
            100.0 * loss,
            100.0 * r.predicted_bw_loss(),
            if ok { "yes" } else { "NO" }
        );
    }
    Ok(())
}
