//! Beyond the seeds: the three link-level retry schemes of the project — RIFL, RXL (implicit
//! sequence number, go-back-N, with its FEC) and Gen-Z LLR — on one channel: the same line rate
//! (bits per second on the wire), cable, random BER (both directions) and traffic (saturating,
//! both ways). Each scheme runs at its own clock: one beat / frame / flit per cycle, so a cycle
//! is its word width ÷ the line rate and the cable delay is converted to its cycles. All three
//! are the cycle-accurate models (which their co-simulation tests hold equal to the RTL cycle
//! by cycle), run with the existing campaigns' links: [`super::run_link`] (Gen-Z),
//! [`crate::link::rifl::Link`] (RIFL) and [`crate::link::rxl::run_config`] (RXL).
//!
//! Per point: goodput = payload bytes delivered in order ÷ line bytes in the same time, and the
//! error events each scheme recovered from (Gen-Z: Discard episodes; RIFL: frame errors; RXL:
//! replays, i.e. flits its FEC could not correct). The cost per error is the line time lost
//! per event, (g₀ − g) / g₀ × measured time ÷ events, from the points with enough events.
//!
//! Payload size: Gen-Z and RIFL carry packets of `packet_bytes`; an RXL flit carries 240
//! payload bytes in 256 (its framing, the flit CRC and the FEC are its overhead).

use super::campaign::{figures_bench, goodput_svg, FIGURES_BLOCK};
use crate::link::channel::Faults;
use crate::link::genz::{keep, run_link, LinkOptions};
use crate::link::rifl::{Link as RiflLink, LinkSetup};
use crate::link::rxl::{run_config, CampaignConfig, Nodes, ENDPOINT_LOOP_OVERHEAD};
use crate::campaign::CampaignError;
use crate::Bench;
use rtl_gen::blocks::genz_llr::model::LlrModel;
use rtl_gen::blocks::genz_llr::GenzLlrBlock;
use rtl_gen::blocks::rifl::model::Node;
use rtl_gen::blocks::rifl::RiflBlock;
use rtl_gen::blocks::rxl_endpoint::flit::{FLIT_BYTES, PAYLOAD_BYTES};
use rtl_gen::blocks::rxl_endpoint::model::Mode;
use rtl_gen::blocks::rxl_endpoint::RxlEndpointBlock;
use std::fmt::Write as _;

#[derive(Debug, Clone)]
pub struct CompareOptions {
    pub line_gbps: f64,
    pub cable_m: f64,
    pub packet_bytes: u32,
    pub bers: Vec<f64>,
    /// Line time per point in µs (each scheme runs as many of its cycles).
    pub line_us: f64,
    pub seed: u64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions { line_gbps: 64.0, cable_m: 10.0, packet_bytes: 256, bers: (0..=14).map(|k| 10f64.powf(-12.0 + 0.5 * k as f64)).collect(), line_us: 400.0, seed: 3 }
    }
}

/// One scheme at one BER.
#[derive(Debug, Clone)]
pub struct ComparePoint {
    pub scheme: &'static str,
    pub ber: f64,
    pub goodput: f64,
    pub events: u64,
    /// Measured line time in ns.
    pub time_ns: f64,
    pub clean: bool,
}

fn genz(bench: &Bench, o: &CompareOptions, ber: f64) -> Result<ComparePoint, CampaignError> {
    let cfg = bench.block::<GenzLlrBlock>(FIGURES_BLOCK)?.cfg.clone();
    let cycle_ns = 8.0 * cfg.data_bytes as f64 / o.line_gbps;
    let delay = ((o.cable_m * 5.0 / cycle_ns).ceil() as usize).max(1);
    let cycles = (o.line_us * 1000.0 / cycle_ns) as u64;
    let warm = 2_000 + 4 * delay as u64;
    let lo = LinkOptions { cycles: cycles + warm, window_from: warm, drain_cycles: 20_000 + 40 * delay as u64, delay, faults: Faults::ber(ber), load: 1.0, offer: 1.0, packet_bytes: Some(o.packet_bytes as usize), seed: o.seed, ..LinkOptions::default() };
    let (mut a, mut b) = (LlrModel::new(cfg.clone()), LlrModel::new(cfg.clone()));
    let r = run_link(&mut a, &mut b, &cfg, &lo, &mut keep)?;
    let bytes: u64 = r.window_bytes.iter().sum();
    Ok(ComparePoint { scheme: "Gen-Z LLR", ber, goodput: bytes as f64 / (2.0 * cfg.data_bytes as f64 * cycles as f64), events: r.recoveries.len() as u64, time_ns: cycles as f64 * cycle_ns, clean: r.clean() })
}

fn rifl(bench: &Bench, o: &CompareOptions, ber: f64) -> Result<ComparePoint, CampaignError> {
    let mut p = bench.block::<RiflBlock>("rifl")?.model_params;
    let line_bits = (p.frame_bits * p.lanes) as f64;
    let cycle_ns = line_bits / o.line_gbps;
    let delay = ((o.cable_m * 5.0 / cycle_ns).ceil() as u32).max(1);
    // Frame IDs for the round trip, as the sweep requires (2^n >= 32 + 2 (delay + node pass)).
    let need = 32 + 2 * (delay + p.node_pass_cycles());
    p.frame_id_bits = p.frame_id_bits.max(32 - (need - 1).leading_zeros());
    let frames_per_packet = (8 * o.packet_bytes as u64).div_ceil(p.user_bits as u64).max(1);
    let packets = ((o.line_us * 1000.0 / cycle_ns) as u64 / frames_per_packet).max(10);
    let mut link = RiflLink::new(Node::new(p), Node::new(p), LinkSetup { delay: delay as usize, ber, seed: o.seed, packets, min_len: o.packet_bytes as usize, max_len: o.packet_bytes as usize });
    let done = link.run(packets * frames_per_packet * 20 + 100_000);
    let (a, b) = (link.flow_ab.stats(), link.flow_ba.stats());
    let bw = (a.bytes_per_cycle + b.bytes_per_cycle) / 2.0;
    let events = (link.a.frame_errors + link.b.frame_errors) as u64;
    Ok(ComparePoint { scheme: "RIFL", ber, goodput: bw / (line_bits / 8.0), events, time_ns: link.cycle as f64 * cycle_ns, clean: done.is_ok() })
}

fn rxl(bench: &Bench, o: &CompareOptions, ber: f64) -> Result<ComparePoint, CampaignError> {
    let ep = bench.blocks::<RxlEndpointBlock>().into_iter().find(|b| b.mode == Mode::Rxl).ok_or_else(|| CampaignError::Config("the default design has no rxl_endpoint in rxl mode".into()))?;
    let cycle_ns = 8.0 * FLIT_BYTES as f64 / o.line_gbps;
    let delay = ((o.cable_m * 5.0 / cycle_ns).ceil() as u32).max(1);
    let flits = (o.line_us * 1000.0 / cycle_ns) as u64;
    let mut c = CampaignConfig::new(Mode::Rxl, 0, flits);
    c.endpoint = ep.params.clone();
    c.retry_loop = ENDPOINT_LOOP_OVERHEAD + 2 * delay;
    c.faults = Faults::ber(ber);
    c.seed = o.seed;
    let r = run_config(&c, Nodes::models(&c.endpoint, 0), &mut |_, _| {})?;
    let in_order: u64 = r.dirs.iter().map(|d| d.sink.window_in_order).sum();
    let window: u64 = r.dirs.iter().map(|d| d.window_cycles).sum();
    let events: u64 = r.dirs.iter().map(|d| d.tx_counters.replays).sum();
    let clean = r.drained && r.dirs.iter().all(|d| d.sink.ordering_failures == 0 && d.undelivered() == 0);
    Ok(ComparePoint { scheme: "RXL", ber, goodput: in_order as f64 * PAYLOAD_BYTES as f64 / (window.max(1) as f64 * FLIT_BYTES as f64), events, time_ns: window as f64 / 2.0 * cycle_ns, clean })
}

/// Every scheme at BER 0 and at every BER of `o`.
pub fn compare(o: &CompareOptions, note: &mut dyn FnMut(&ComparePoint)) -> Result<Vec<ComparePoint>, CampaignError> {
    let figures = figures_bench()?;
    let default = Bench::default_design()?;
    let mut out = Vec::new();
    for ber in std::iter::once(0.0).chain(o.bers.iter().copied()) {
        for p in [genz(&figures, o, ber)?, rifl(&default, o, ber)?, rxl(&default, o, ber)?] {
            note(&p);
            out.push(p);
        }
    }
    Ok(out)
}

pub const SCHEMES: [&str; 3] = ["Gen-Z LLR", "RIFL", "RXL"];

/// Line time lost per error event in ns, pooled over the points with BER > 0 (and the event
/// count it is based on).
pub fn cost_per_error(points: &[ComparePoint], scheme: &str) -> (f64, u64) {
    let base = points.iter().find(|p| p.scheme == scheme && p.ber == 0.0).map(|p| p.goodput).unwrap_or(f64::NAN);
    let (mut lost, mut n) = (0.0, 0);
    for p in points.iter().filter(|p| p.scheme == scheme && p.ber > 0.0 && p.events > 0) {
        lost += (base - p.goodput).max(0.0) / base * p.time_ns;
        n += p.events;
    }
    (if n > 0 { lost / n as f64 } else { f64::NAN }, n)
}

pub fn table(o: &CompareOptions, points: &[ComparePoint]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Line {} Gb/s, cable {} m, {}-byte packets (RXL: 240 payload bytes per 256-byte flit), {} µs of line time per point, models\n", o.line_gbps, o.cable_m, o.packet_bytes, o.line_us);
    s.push_str("| BER | Gen-Z LLR goodput (Discard episodes) | RIFL goodput (frame errors) | RXL goodput (replays) |\n|---:|---:|---:|---:|\n");
    for ber in std::iter::once(0.0).chain(o.bers.iter().copied()) {
        let _ = write!(s, "| {ber:.2e} |");
        for sc in SCHEMES {
            if let Some(p) = points.iter().find(|p| p.scheme == sc && p.ber == ber) {
                let _ = write!(s, " {:.4} ({}){} |", p.goodput, p.events, if p.clean { "" } else { " NOT CLEAN" });
            }
        }
        s.push('\n');
    }
    s.push_str("\n| scheme | line time lost per error event (ns) | events pooled |\n|---|---:|---:|\n");
    for sc in SCHEMES {
        let (c, n) = cost_per_error(points, sc);
        let _ = writeln!(s, "| {sc} | {c:.0} | {n} |");
    }
    s
}

pub fn csv(points: &[ComparePoint]) -> String {
    let mut s = String::from("scheme,ber,goodput,events,time_ns,clean\n");
    for p in points {
        let _ = writeln!(s, "{},{:e},{:.6},{},{:.0},{}", p.scheme, p.ber, p.goodput, p.events, p.time_ns, p.clean);
    }
    s
}

pub fn svg(o: &CompareOptions, points: &[ComparePoint]) -> String {
    let series: Vec<(String, Vec<(f64, f64)>)> = SCHEMES.iter().map(|sc| (sc.to_string(), points.iter().filter(|p| p.scheme == *sc && p.ber > 0.0).map(|p| (p.ber, p.goodput)).collect())).collect();
    goodput_svg(&format!("RIFL vs RXL vs Gen-Z LLR: goodput vs BER ({} Gb/s, {} m, {} B packets; models)", o.line_gbps, o.cable_m, o.packet_bytes), &series)
}
