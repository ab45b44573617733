//! RIFL reliability sweep (§6.C, Fig. 9): two nodes linked through channels with independent
//! random bit errors, saturating random traffic (packets of 1..8192 bytes) both ways, at BERs
//! from 1e-12 to 1e-5 in steps of 10^0.25. Prints the bandwidth ratio (throughput relative to
//! the error-free link with the same traffic) and the average / 99th / 99.9th-percentile packet
//! latency per BER, and writes a CSV and an SVG plot.
//!
//! The nodes are the cycle-accurate model (`rtl_gen::blocks::rifl::model::Node`), which the
//! co-simulation tests (sim/tests/rifl_link.rs, rifl_units.rs) prove equal to the generated RTL
//! cycle by cycle; it runs a few hundred thousand node-cycles per second.
//!
//! ```text
//! cargo run --release -p rtl-gen-sim --example rifl_sweep -- [--block rifl] [--packets 2000]
//!     [--delay 8] [--lane-gbps 28] [--threads 2] [--out target/rifl_sweep] [--max-cycles N]
//!     [--frame-id-bits N] [--seed 6]
//! ```
//! `--help` lists the allowed range of every option; an unknown option or a bad value prints
//! `error: --flag: ...` with the allowed form and exits with status 2 before anything runs.
//! `--block` picks a `rifl` block of the default design; `--delay` is the cable plus transceiver
//! delay per direction in cycles (8 cycles = 73 ns at 28 Gb/s: 10 m of fibre and two
//! transceivers); `--lane-gbps` only converts cycles to nanoseconds (one frame per lane per cycle: a cycle is frame_bits / lane rate; the paper's
//! RIFL256 at 28 Gb/s per lane runs its frame clock at 109.4 MHz, 9.14 ns).

use rtl_gen::blocks::rifl::model::link::{Link, LinkSetup};
use rtl_gen::blocks::rifl::model::{Node, Params};
use rtl_gen::blocks::rifl::RiflBlock;
use rtl_gen::config::Design;
use std::fmt::Write as _;
use std::sync::Mutex;
use clap::Parser;
use std::time::Instant;

#[derive(Debug, Clone)]
struct Point {
    ber: f64,
    cycles: u64,
    bytes: u64,
    packets: u64,
    bits_flipped: u64,
    frames_hit: u64,
    frame_errors: u64,
    retransmissions: u64,
    pause_events: u64,
    /// Delivered bytes per cycle per direction, averaged over both.
    bw: f64,
    lat_avg: f64,
    lat_p99: f64,
    lat_p999: f64,
    seconds: f64,
}

#[derive(Parser, Debug)]
#[command(about = "RIFL BER sweep (§6.C, Fig. 9): bandwidth ratio and average/p99/p99.9 latency per BER from 1e-12 to 1e-5 in steps of 10^0.25, written as CSV, SVG and a Markdown table")]
struct Opts {
    /// A rifl block of the default design (rifl, rifl4).
    #[arg(long, default_value = "rifl")]
    block: String,
    /// Packets per direction per BER point.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    packets: u64,
    /// Cable + transceiver delay per direction in cycles.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    delay: u32,
    /// Line rate per lane in Gb/s, for the nanosecond columns (> 0, ≤ 10000).
    #[arg(long, default_value_t = 28.0, value_parser = lane_rate)]
    lane_gbps: f64,
    /// BER points simulated in parallel.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Output prefix: PATH.csv, PATH.svg, PATH.md.
    #[arg(long, default_value = "target/rifl_sweep", value_parser = out_prefix)]
    out: String,
    /// Traffic and bit-error seed.
    #[arg(long, default_value_t = 6)]
    seed: u64,
    /// Cycle cap per point (a point stopped by it reports what was delivered).
    #[arg(long, default_value_t = 20_000_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000_000_000))]
    max_cycles: u64,
    /// Override of the block's frame ID width, with 2^N ≥ 2 × retrans_threshold (the paper's
    /// RIFL256 at 4 × 28 Gb/s over 10 m needs clog2(16 + 16 + 33) = 7 bits, not Table 2's 8).
    #[arg(long, value_parser = clap::value_parser!(u32).range(5..=12))]
    frame_id_bits: Option<u32>,
}

fn lane_rate(v: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 && r <= 10_000.0 => Ok(r),
        Ok(r) if !r.is_nan() => Err(format!("{r} is out of range; allowed a rate in Gb/s > 0 and <= 10000")),
        _ => Err(format!("{v:?} is not a number (Gb/s, e.g. 28 or 25.78)")),
    }
}

fn out_prefix(v: &str) -> Result<String, String> {
    if v.is_empty() || v.ends_with('/') {
        return Err(format!("{v:?} is not a file prefix; allowed e.g. target/rifl_sweep (writes .csv, .svg, .md)"));
    }
    Ok(v.to_string())
}

/// Cycles from a frame entering a node's receive side to the node's transmit side answering
/// it over a zero-delay cable (first beat in to first beat out: sim/RIFL.md).
const NODE_PASS_CYCLES: u32 = 9;

/// An error found after parsing (the block, the frame ID width against it, the output folder):
/// printed as `error: ...` with exit status 2, like clap's own.
fn usage_error(msg: &str) -> ! {
    eprintln!("error: {msg}");
    eprintln!("(rifl_sweep --help lists the options)");
    std::process::exit(2);
}

fn run_point(p: Params, o: &Opts, ber: f64) -> Point {
    let t = Instant::now();
    // The same seeds at every BER: the same packets and error positions up to the first error.
    // After it the traffic differs (the link's flows draw their idle/backpressure chances from
    // the packet generator's stream every cycle, so a point that runs longer draws other packet
    // sizes); the bandwidth ratio therefore carries the packet-mix noise of a run this long
    // (about 0.1 % at 1000 packets, 0.03 % at 10000, per direction).
    let mut link = Link::new(Node::new(p), Node::new(p), LinkSetup { delay: o.delay as usize, ber, seed: o.seed, packets: o.packets, min_len: 1, max_len: 8192 });
    // A point that does not finish within max_cycles is reported with what was delivered
    // (its bandwidth is then an upper bound); a scoreboard error is fatal.
    if let Err(e) = link.run(o.max_cycles) {
        if !e.contains("not done") {
            panic!("BER {ber:e}: {e}");
        }
        eprintln!("  BER {ber:.2e}: stopped after {} cycles ({e})", link.cycle);
    }
    let (a, b) = (link.flow_ab.stats(), link.flow_ba.stats());
    let mut lat: Vec<u32> = link.flow_ab.latencies.iter().chain(&link.flow_ba.latencies).copied().collect();
    lat.sort_unstable();
    let pct = |q: f64| rtl_gen::blocks::rifl::model::link::percentile(&lat, q);
    Point {
        ber,
        cycles: link.cycle,
        bytes: a.bytes + b.bytes,
        packets: a.packets + b.packets,
        bits_flipped: link.ab.bits_flipped + link.ba.bits_flipped,
        frames_hit: link.ab.frames_hit + link.ba.frames_hit,
        frame_errors: (link.a.frame_errors + link.b.frame_errors) as u64,
        retransmissions: (link.a.retransmissions + link.b.retransmissions) as u64,
        pause_events: (link.a.pause_events + link.b.pause_events) as u64,
        bw: (a.bytes_per_cycle + b.bytes_per_cycle) / 2.0,
        lat_avg: (a.latency_avg + b.latency_avg) / 2.0,
        lat_p99: pct(0.99),
        lat_p999: pct(0.999),
        seconds: t.elapsed().as_secs_f64(),
    }
}

/// The probability that a slot of one direction (one frame per lane) carries a bit error.
fn slot_fer(p: Params, ber: f64) -> f64 {
    1.0 - (1.0 - ber).powf((p.frame_bits * p.lanes) as f64)
}

/// Eq. 8 as ratio = 1 / (1 + N_stall * FER) with FER per slot of one direction: an error event
/// stalls its own direction (the far end's retransmission procedure) and the other one (the
/// local TX sends Retransmit Requests until its receiver is back in step), so N_stall is the
/// slots both directions lose per event together. Fitted (weighted by the frames hit) where
/// events are counted by the dozen but rarely overlap (1e-8..1e-7), it extrapolates to the BERs
/// where a run this short sees no error at all. Returns (N_stall, points used).
fn eq8_fit(points: &[Point], base: &Point, p: Params) -> (f64, usize) {
    let used: Vec<&Point> = points.iter().filter(|pt| pt.ber >= 0.99e-8 && pt.ber <= 1.01e-7 && pt.frames_hit >= 2).collect();
    let hits: f64 = used.iter().map(|pt| pt.frames_hit as f64).sum();
    if used.is_empty() {
        return (f64::NAN, 0);
    }
    let n = used.iter().map(|pt| pt.frames_hit as f64 * (base.bw / pt.bw - 1.0) / slot_fer(p, pt.ber)).sum::<f64>() / hits;
    (n, used.len())
}

/// A hand-written SVG: bandwidth ratio and latency against BER (log axis), with the paper's
/// two reference points marked.
fn svg(points: &[Point], base: &Point, cycle_ns: f64, title: &str, fit: Option<(Params, f64)>) -> String {
    let (w, h) = (900.0, 640.0);
    let (x0, x1) = (90.0, 860.0);
    let panels = [(60.0, 280.0), (360.0, 580.0)];
    let lx = |ber: f64| x0 + (ber.log10() + 12.0) / 7.0 * (x1 - x0);
    let mut s = String::new();
    let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#);
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/><text x="{}" y="25" text-anchor="middle" font-size="15">{title}</text>"#, w / 2.0);
    // Bandwidth ratio panel: 0..1.02.
    let (t0, t1) = panels[0];
    let ybw = |r: f64| t1 - (r.clamp(0.0, 1.02) / 1.02) * (t1 - t0);
    for k in 0..=5 {
        let r = k as f64 * 0.2;
        let _ = writeln!(s, r##"<line x1="{x0}" x2="{x1}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{r:.1}</text>"##, x0 - 6.0, ybw(r) + 4.0, y = ybw(r));
    }
    let _ = writeln!(s, r#"<text x="20" y="{:.1}" transform="rotate(-90 20 {:.1})" text-anchor="middle">bandwidth ratio</text>"#, (t0 + t1) / 2.0, (t0 + t1) / 2.0);
    let line = |pts: Vec<(f64, f64)>, color: &str, dash: &str| -> String {
        let d: Vec<String> = pts.iter().enumerate().map(|(i, (x, y))| format!("{}{x:.1},{y:.1}", if i == 0 { "M" } else { "L" })).collect();
        let mut o = format!(r#"<path d="{}" fill="none" stroke="{color}" stroke-width="2" {dash}/>"#, d.join(" "));
        for (x, y) in pts {
            let _ = write!(o, r#"<circle cx="{x:.1}" cy="{y:.1}" r="2.5" fill="{color}"/>"#);
        }
        o
    };
    let _ = writeln!(s, "{}", line(points.iter().map(|p| (lx(p.ber), ybw(p.bw / base.bw))).collect(), "#1f77b4", ""));
    let _ = writeln!(s, r##"<text x="{:.1}" y="{:.1}" fill="#1f77b4">measured</text>"##, x0 + 10.0, t1 - 40.0);
    if let Some((p, n)) = fit.filter(|(_, n)| n.is_finite()) {
        let d: Vec<String> = (0..=280)
            .map(|k| {
                let ber = 10f64.powf(-12.0 + k as f64 / 40.0);
                format!("{}{:.1},{:.1}", if k == 0 { "M" } else { "L" }, lx(ber), ybw(1.0 / (1.0 + n * slot_fer(p, ber))))
            })
            .collect();
        let _ = writeln!(s, r##"<path d="{}" fill="none" stroke="#7f7f7f" stroke-width="1.5" stroke-dasharray="5 4"/><text x="{:.1}" y="{:.1}" fill="#7f7f7f">Eq. 8 fit, N_stall = {n:.0} slots per error</text>"##, d.join(" "), x0 + 10.0, t1 - 24.0);
    }
    // The paper's points: the ratio starts to drop at 5.6e-10, 96.3 % at 1e-7.
    for (ber, r, label) in [(5.6e-10, 1.0, "paper: drop starts 5.6e-10"), (1e-7, 0.963, "paper: 96.3 % at 1e-7")] {
        let _ = writeln!(s, r##"<rect x="{:.1}" y="{:.1}" width="8" height="8" fill="none" stroke="#d62728" stroke-width="2"/><text x="{:.1}" y="{:.1}" fill="#d62728">{label}</text>"##, lx(ber) - 4.0, ybw(r) - 4.0, lx(ber) + 8.0, ybw(r) + 18.0);
    }
    // Latency panel: log scale in ns.
    let (t0, t1) = panels[1];
    let all: Vec<f64> = points.iter().flat_map(|p| [p.lat_avg, p.lat_p99, p.lat_p999]).map(|c| c * cycle_ns).filter(|v| v.is_finite() && *v > 0.0).collect();
    let lo = all.iter().cloned().fold(100.0, f64::min).max(1.0).log10().floor();
    let hi = all.iter().cloned().fold(0.0, f64::max).max(10.0).log10().ceil().max(lo + 1.0);
    let ylat = |ns: f64| t1 - ((ns.max(1.0).log10() - lo) / (hi - lo)) * (t1 - t0);
    for e in lo as i32..=hi as i32 {
        let v = 10f64.powi(e);
        let _ = writeln!(s, r##"<line x1="{x0}" x2="{x1}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">1e{e}</text>"##, x0 - 6.0, ylat(v) + 4.0, y = ylat(v));
    }
    let _ = writeln!(s, r#"<text x="20" y="{:.1}" transform="rotate(-90 20 {:.1})" text-anchor="middle">packet latency (ns)</text>"#, (t0 + t1) / 2.0, (t0 + t1) / 2.0);
    for (f, color, dash, name) in [
        (Box::new(|p: &Point| p.lat_avg) as Box<dyn Fn(&Point) -> f64>, "#2ca02c", "", "average"),
        (Box::new(|p: &Point| p.lat_p99), "#ff7f0e", r#"stroke-dasharray="6 3""#, "99th percentile"),
        (Box::new(|p: &Point| p.lat_p999), "#9467bd", r#"stroke-dasharray="2 3""#, "99.9th percentile"),
    ] {
        let _ = writeln!(s, "{}", line(points.iter().map(|p| (lx(p.ber), ylat(f(p) * cycle_ns))).collect(), color, dash));
        let i = ["average", "99th percentile", "99.9th percentile"].iter().position(|n| *n == name).unwrap_or(0) as f64;
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" fill="{color}">{name}</text>"#, x0 + 10.0, t0 + 14.0 + 14.0 * i);
    }
    // The paper: average and tail latencies within 107 ns for BER better than 1e-7.
    let y107 = ylat(107.0);
    let _ = writeln!(s, r##"<line x1="{x0}" x2="{:.1}" y1="{y107:.1}" y2="{y107:.1}" stroke="#d62728" stroke-dasharray="4 3"/><text x="{:.1}" y="{:.1}" fill="#d62728">paper: average and tails within 107 ns below 1e-7 (dashed)</text>"##, lx(1e-7), x0 + 10.0, t0 + 14.0 + 14.0 * 3.0);
    // The BER axis under both panels.
    for (pt0, pt1) in panels {
        let _ = writeln!(s, r#"<line x1="{x0}" x2="{x1}" y1="{pt1}" y2="{pt1}" stroke="black"/><line x1="{x0}" x2="{x0}" y1="{pt0}" y2="{pt1}" stroke="black"/>"#);
        for e in -12..=-5 {
            let x = lx(10f64.powi(e));
            let _ = writeln!(s, r#"<line x1="{x:.1}" x2="{x:.1}" y1="{pt1}" y2="{:.1}" stroke="black"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">1e{e}</text>"#, pt1 + 5.0, pt1 + 18.0);
        }
    }
    let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">bit error ratio (both directions)</text>"#, (x0 + x1) / 2.0, h - 20.0);
    s.push_str("</svg>\n");
    s
}

fn main() {
    let o = Opts::parse();
    let design = Design::builtin_default();
    let block = design
        .blocks
        .iter()
        .filter_map(|b| b.as_any().downcast_ref::<RiflBlock>())
        .find(|b| b.name == o.block)
        .unwrap_or_else(|| {
            let names: Vec<&str> = design.blocks.iter().filter_map(|b| b.as_any().downcast_ref::<RiflBlock>()).map(|b| b.name.as_str()).collect();
            usage_error(&format!("--block: {:?} is not a rifl block of the default design; allowed: {}", o.block, names.join(", ")))
        });
    let mut p = block.params;
    if let Some(n) = o.frame_id_bits {
        if (1u32 << n) < 2 * p.retrans_threshold {
            usage_error(&format!("--frame-id-bits: {n} gives {} frame IDs, fewer than 2 x retrans_threshold = {} of block {}; allowed {}..=12", 1u32 << n, 2 * p.retrans_threshold, o.block, 32 - (2 * p.retrans_threshold - 1).leading_zeros()));
        }
        p.frame_id_bits = n;
    }
    // Frame IDs must outnumber the frames in flight around the retransmission loop plus the
    // rollback and request margins (the block's rule for a given cable: 2^n >= 16 + 16 + RTT
    // frames), or a retransmitted frame aliases a newer one with the same ID and is accepted
    // in its place: with 32 IDs over an 8-cycle channel this sweep delivered corrupted packets
    // from BER 3e-6. Here RTT = 2 x (channel delay + the node's 9-cycle pass-through).
    let rtt = 2 * (o.delay + NODE_PASS_CYCLES);
    let need = 32 + rtt;
    if (1u32 << p.frame_id_bits) < need {
        let min_bits = 32 - (need - 1).leading_zeros();
        usage_error(&format!(
            "--frame-id-bits: 2^{} frame IDs cannot cover a {rtt}-frame round trip (--delay {} per direction) + 32; allowed {min_bits}..=12 (or a shorter --delay)",
            p.frame_id_bits, o.delay
        ));
    }
    // The output folder is checked before the (long) sweep, not after it.
    let out_dir = std::path::Path::new(&o.out).parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if let Err(e) = std::fs::create_dir_all(out_dir) {
        usage_error(&format!("--out: cannot create the folder {}: {e}", out_dir.display()));
    }
    let cycle_ns = p.frame_bits as f64 / o.lane_gbps;
    let bers: Vec<f64> = (0..=28).map(|k| 10f64.powf(-12.0 + 0.25 * k as f64)).collect();
    println!(
        "RIFL sweep: block {} ({}-bit frames, {} lane(s), {}-bit user, 2^{} frame IDs, procedure {} frames), {} packets of 1..8192 bytes each way, cable delay {} cycles, {:.2} ns per cycle at {} Gb/s per lane",
        o.block,
        p.frame_bits,
        p.lanes,
        p.user_bits,
        p.frame_id_bits,
        p.retrans_frames(),
        o.packets,
        o.delay,
        cycle_ns,
        o.lane_gbps
    );
    let t = Instant::now();
    let base = run_point(p, &o, 0.0);
    let queue = Mutex::new(bers.iter().copied().enumerate().collect::<Vec<_>>());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..o.threads.max(1) {
            s.spawn(|| loop {
                let Some((i, ber)) = queue.lock().expect("queue").pop() else { break };
                let pt = run_point(p, &o, ber);
                eprintln!("  BER {:.2e}: {} cycles in {:.1} s", ber, pt.cycles, pt.seconds);
                results.lock().expect("results").push((i, pt));
            });
        }
    });
    let mut pts: Vec<(usize, Point)> = results.into_inner().expect("results");
    pts.sort_by_key(|(i, _)| *i);
    let points: Vec<Point> = pts.into_iter().map(|(_, p)| p).collect();
    let mut table = String::new();
    let _ = writeln!(table, "| BER | bandwidth ratio | avg latency (cycles / ns) | p99 (ns) | p99.9 (ns) | frames hit | frame errors | retransmissions | pause events | cycles |");
    let _ = writeln!(table, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut csv = String::from("ber,bandwidth_ratio,bytes_per_cycle,lat_avg_cycles,lat_p99_cycles,lat_p999_cycles,lat_avg_ns,lat_p99_ns,lat_p999_ns,frames_hit,bits_flipped,frame_errors,retransmissions,pause_events,cycles,packets,bytes\n");
    for pt in std::iter::once(&base).chain(&points) {
        let ratio = pt.bw / base.bw;
        let _ = writeln!(
            table,
            "| {:.2e} | {:.4} | {:.1} / {:.0} | {:.0} | {:.0} | {} | {} | {} | {} | {} |",
            pt.ber,
            ratio,
            pt.lat_avg,
            pt.lat_avg * cycle_ns,
            pt.lat_p99 * cycle_ns,
            pt.lat_p999 * cycle_ns,
            pt.frames_hit,
            pt.frame_errors,
            pt.retransmissions,
            pt.pause_events,
            pt.cycles
        );
        let _ = writeln!(
            csv,
            "{:e},{ratio:.6},{:.4},{:.2},{},{},{:.1},{:.1},{:.1},{},{},{},{},{},{},{},{}",
            pt.ber,
            pt.bw,
            pt.lat_avg,
            pt.lat_p99,
            pt.lat_p999,
            pt.lat_avg * cycle_ns,
            pt.lat_p99 * cycle_ns,
            pt.lat_p999 * cycle_ns,
            pt.frames_hit,
            pt.bits_flipped,
            pt.frame_errors,
            pt.retransmissions,
            pt.pause_events,
            pt.cycles,
            pt.packets,
            pt.bytes
        );
    }
    print!("{table}");
    let (n_stall, n_fit) = eq8_fit(&points, &base, p);
    let predicted = |ber: f64| 1.0 / (1.0 + n_stall * slot_fer(p, ber));
    let pred_start = bers.iter().copied().find(|&b| predicted(b) < 0.9998);
    println!(
        "Eq. 8 fit: N_stall = {:.0} slots lost per error event (both directions together; FER per slot of {} x {} bits per direction; from {} points in 1e-8..1e-7); predicted ratio {:.5} at 5.6e-10, {:.4} at 1e-7, first below 0.9998 at BER {}",
        n_stall,
        p.lanes,
        p.frame_bits,
        n_fit,
        predicted(5.6e-10),
        predicted(1e-7),
        pred_start.map(|b| format!("{b:.2e}")).unwrap_or_else(|| "-".into())
    );
    let first_drop = points.iter().find(|pt| pt.bw / base.bw < 0.999).map(|pt| pt.ber);
    let at_1e7 = points.iter().min_by(|a, b| (a.ber.log10() + 7.0).abs().total_cmp(&(b.ber.log10() + 7.0).abs())).map(|pt| pt.bw / base.bw);
    println!(
        "ratio first below 0.999 at BER {}; ratio at 1e-7: {:.3} (paper, RIFL256 4 x 28 Gb/s, 10 GB per point: drop starts at 5.6e-10, 96.3 % at 1e-7); {:.0} s",
        first_drop.map(|b| format!("{b:.2e}")).unwrap_or_else(|| "none".into()),
        at_1e7.unwrap_or(f64::NAN),
        t.elapsed().as_secs_f64()
    );
    let title = format!(
        "RIFL {} ({}-bit frames, {} lane(s), 2^{} frame IDs, delay {} cycles): {} packets each way per BER",
        o.block, p.frame_bits, p.lanes, p.frame_id_bits, o.delay, o.packets
    );
    for (ext, text) in [("svg", svg(&points, &base, cycle_ns, &title, Some((p, n_stall)))), ("csv", csv), ("md", table)] {
        let path = format!("{}.{ext}", o.out);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: --out: cannot write {path}: {e}");
            std::process::exit(1);
        }
    }
    println!("wrote {0}.svg, {0}.csv, {0}.md", o.out);
}
