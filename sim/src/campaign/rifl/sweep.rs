//! RIFL reliability sweep (§6.C, Fig. 9): two model nodes of a `rifl` block linked through
//! channels with independent random bit errors, saturating random traffic (packets of
//! 1..8192 bytes) both ways, one run per BER (default 1e-12 … 1e-5 in steps of 10^0.25) plus an
//! error-free reference. Per point: bandwidth ratio (throughput relative to the reference),
//! average / p99 / p99.9 packet latency, error counts; the Eq. 8 fit; CSV, Markdown, SVG.
//!
//! Every point is also a scoreboard run: a packet lost, duplicated, reordered or corrupted is a
//! [`CampaignError::Scoreboard`]. The nodes are the cycle-accurate model, which the
//! co-simulation tests hold equal to the RTL cycle by cycle.
//!
//! Work units: unit 0 is the reference (BER 0), unit k the k-th BER. Every point runs with the
//! campaign seed itself (the same packets and error positions up to the first error at every
//! BER), so a shard's points are exactly the single run's.

use crate::link::rifl::{percentile, Link, LinkSetup};
use crate::campaign::progress::Progress;
use crate::link::CampaignError;
use crate::campaign::shard::{self, Shard};
use crate::Bench;
use rtl_gen::blocks::rifl::model::{Node, Params};
use rtl_gen::blocks::rifl::RiflBlock;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Instant;

/// A sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepOptions {
    /// A `rifl` block of the bench's design.
    pub block: String,
    /// Packets per direction per point.
    pub packets: u64,
    /// Cable + transceiver delay per direction in cycles.
    pub delay: u32,
    /// Line rate per lane in Gb/s (only for the nanosecond columns).
    pub lane_gbps: f64,
    /// Points simulated in parallel (does not change any result).
    pub threads: u32,
    pub seed: u64,
    /// Cycle cap per point (a point stopped by it reports what was delivered).
    pub max_cycles: u64,
    /// Override of the block's frame ID width.
    pub frame_id_bits: Option<u32>,
    /// The BERs (besides the reference).
    pub bers: Vec<f64>,
}

/// 1e-12 … 1e-5 in steps of 10^0.25 (29 points).
pub fn default_bers() -> Vec<f64> {
    (0..=28).map(|k| 10f64.powf(-12.0 + 0.25 * k as f64)).collect()
}

impl Default for SweepOptions {
    fn default() -> SweepOptions {
        SweepOptions { block: "rifl".into(), packets: 2000, delay: 8, lane_gbps: 28.0, threads: 2, seed: 6, max_cycles: 20_000_000, frame_id_bits: None, bers: default_bers() }
    }
}

/// One BER point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointRecord {
    pub unit: usize,
    pub ber: f64,
    pub cycles: u64,
    pub bytes: u64,
    pub packets: u64,
    pub bits_flipped: u64,
    pub frames_hit: u64,
    pub frame_errors: u64,
    pub retransmissions: u64,
    pub pause_events: u64,
    /// Delivered bytes per cycle per direction, averaged over both.
    pub bw: f64,
    pub lat_avg: f64,
    pub lat_p99: f64,
    pub lat_p999: f64,
    /// False when the point stopped at `max_cycles` (its bandwidth is then an upper bound).
    pub completed: bool,
}

/// The parameters the sweep ran with (the block's, with the frame ID override).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepParams {
    pub frame_bits: u32,
    pub lanes: u32,
    pub user_bits: u32,
    pub frame_id_bits: u32,
    pub procedure_frames: u32,
}

/// A sweep or one shard of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepResults {
    pub options: SweepOptions,
    pub params: SweepParams,
    pub shard: Shard,
    pub units: usize,
    /// In unit order.
    pub points: Vec<PointRecord>,
}

/// The block's parameters with the options applied, or why they cannot run.
pub fn sweep_params(bench: &Bench, o: &SweepOptions) -> Result<Params, CampaignError> {
    let block = bench.block::<RiflBlock>(&o.block)?;
    let mut p = block.model_params;
    if let Some(n) = o.frame_id_bits {
        if !(5..=12).contains(&n) || (1u32 << n) < 2 * p.retrans_threshold {
            return Err(CampaignError::Config(format!(
                "frame_id_bits {n} gives {} frame IDs, fewer than 2 x retrans_threshold = {} of block {} (or outside 5..=12); allowed {}..=12",
                1u64 << n.min(40),
                2 * p.retrans_threshold,
                o.block,
                (32 - (2 * p.retrans_threshold - 1).leading_zeros()).max(5)
            )));
        }
        p.frame_id_bits = n;
    }
    // Frame IDs must outnumber the frames in flight around the retransmission loop plus the
    // rollback and request margins (the block's rule for a given cable: 2^n >= 16 + 16 + RTT
    // frames), or a retransmitted frame aliases a newer one with the same ID and is accepted in
    // its place: with 32 IDs over an 8-cycle channel the sweep delivered corrupted packets from
    // BER 3e-6. Here RTT = 2 x (channel delay + the node's pass-through, 12 or 14 cycles).
    let rtt = 2 * (o.delay + p.node_pass_cycles());
    let need = 32 + rtt;
    if (1u64 << p.frame_id_bits) < need as u64 {
        let min_bits = 32 - (need - 1).leading_zeros();
        return Err(CampaignError::Config(format!(
            "frame_id_bits: 2^{} frame IDs cannot cover a {rtt}-frame round trip (delay {} per direction) + 32; allowed {min_bits}..=12 (or a shorter delay)",
            p.frame_id_bits, o.delay
        )));
    }
    if !(o.lane_gbps.is_finite() && o.lane_gbps > 0.0 && o.lane_gbps <= 10_000.0) {
        return Err(CampaignError::Config(format!("lane_gbps {}: allowed a rate in Gb/s > 0 and <= 10000", o.lane_gbps)));
    }
    if o.packets == 0 || o.max_cycles == 0 {
        return Err(CampaignError::Config("packets and max_cycles must be at least 1".into()));
    }
    if let Some(b) = o.bers.iter().find(|b| !(**b > 0.0 && **b < 1.0)) {
        return Err(CampaignError::Config(format!("BER {b}: allowed 0 < BER < 1 (the reference point at 0 is always run)")));
    }
    Ok(p)
}

/// One point: two model nodes, `packets` each way at `ber`.
pub fn run_point(p: Params, o: &SweepOptions, unit: usize, ber: f64) -> Result<PointRecord, CampaignError> {
    // The same seed at every BER: the same packets and error positions up to the first error.
    // After it the traffic differs (the link's flows draw their idle/backpressure chances from
    // the packet generator's stream every cycle, so a point that runs longer draws other packet
    // sizes); the bandwidth ratio therefore carries the packet-mix noise of a run this long
    // (about 0.1 % at 1000 packets, 0.03 % at 10000, per direction).
    let mut link = Link::new(Node::new(p), Node::new(p), LinkSetup { delay: o.delay as usize, ber, seed: o.seed, packets: o.packets, min_len: 1, max_len: 8192 });
    let completed = match link.run(o.max_cycles) {
        Ok(()) => true,
        Err(e) if e.contains("not done") && link.flow_ab.errors.is_empty() && link.flow_ba.errors.is_empty() => false,
        Err(e) => return Err(CampaignError::Scoreboard(format!("BER {ber:e}: {e} (seed {})", o.seed))),
    };
    let (a, b) = (link.flow_ab.stats(), link.flow_ba.stats());
    let mut lat: Vec<u32> = link.flow_ab.latencies.iter().chain(&link.flow_ba.latencies).copied().collect();
    lat.sort_unstable();
    Ok(PointRecord {
        unit,
        ber,
        cycles: link.cycle,
        bytes: a.bytes + b.bytes,
        packets: a.packets + b.packets,
        bits_flipped: link.ab.stats.bit_errors + link.ba.stats.bit_errors,
        frames_hit: link.ab.stats.frames_with_bit_errors + link.ba.stats.frames_with_bit_errors,
        frame_errors: (link.a.frame_errors + link.b.frame_errors) as u64,
        retransmissions: (link.a.retransmissions + link.b.retransmissions) as u64,
        pause_events: (link.a.pause_events + link.b.pause_events) as u64,
        bw: (a.bytes_per_cycle + b.bytes_per_cycle) / 2.0,
        lat_avg: (a.latency_avg + b.latency_avg) / 2.0,
        lat_p99: percentile(&lat, 0.99),
        lat_p999: percentile(&lat, 0.999),
        completed,
    })
}

/// Runs the points of `shard` (all of them with [`Shard::ALL`]), `threads` at a time.
pub fn sweep(bench: &Bench, o: &SweepOptions, shard: Shard, progress: &mut Progress) -> Result<SweepResults, CampaignError> {
    let p = sweep_params(bench, o)?;
    let bers: Vec<f64> = std::iter::once(0.0).chain(o.bers.iter().copied()).collect();
    let todo: Vec<(usize, f64)> = bers.iter().copied().enumerate().filter(|(u, _)| shard.owns(*u)).collect();
    let total = todo.len() as u64;
    progress.start(&format!("RIFL sweep {} (shard {shard})", o.block), total, "points");
    let queue = Mutex::new(todo.into_iter().rev().collect::<Vec<_>>());
    let results: Mutex<Vec<Result<PointRecord, CampaignError>>> = Mutex::new(Vec::new());
    let progress_m = Mutex::new(&mut *progress);
    std::thread::scope(|s| {
        for _ in 0..o.threads.max(1) {
            s.spawn(|| loop {
                let Some((unit, ber)) = queue.lock().expect("queue").pop() else { break };
                let t = Instant::now();
                let r = run_point(p, o, unit, ber);
                let mut done = results.lock().expect("results");
                if let Ok(pt) = &r {
                    let mut pg = progress_m.lock().expect("progress");
                    pg.note(&format!("  BER {:.2e}: {} cycles in {:.1} s{}", ber, pt.cycles, t.elapsed().as_secs_f64(), if pt.completed { "" } else { " (stopped at max_cycles)" }));
                    pg.set(done.len() as u64 + 1);
                }
                let failed = r.is_err();
                done.push(r);
                if failed {
                    queue.lock().expect("queue").clear();
                }
            });
        }
    });
    let mut points = Vec::new();
    for r in results.into_inner().expect("results") {
        points.push(r?);
    }
    points.sort_by_key(|pt| pt.unit);
    progress.finish(points.len() as u64);
    Ok(SweepResults {
        options: o.clone(),
        params: SweepParams { frame_bits: p.frame_bits, lanes: p.lanes, user_bits: p.user_bits, frame_id_bits: p.frame_id_bits, procedure_frames: p.retrans_frames() },
        shard,
        units: bers.len(),
        points,
    })
}

impl SweepResults {
    /// The shards of one sweep (same options, every shard once) as the single run.
    pub fn merge(parts: Vec<SweepResults>) -> Result<SweepResults, CampaignError> {
        let parts = parts.into_iter().map(|p| (p.shard, (p.options, p.params, p.units), p.points)).collect();
        let ((options, params, units), points) = shard::merge_units(parts, |c| Some(c.2), |pt: &PointRecord| pt.unit)?;
        Ok(SweepResults { options, params, shard: Shard::ALL, units, points })
    }

    /// The error-free reference point (unit 0), if this result holds it.
    pub fn reference(&self) -> Option<&PointRecord> {
        self.points.iter().find(|pt| pt.unit == 0)
    }

    /// The BER points (without the reference).
    pub fn ber_points(&self) -> Vec<&PointRecord> {
        self.points.iter().filter(|pt| pt.unit != 0).collect()
    }

    pub fn cycle_ns(&self) -> f64 {
        self.params.frame_bits as f64 / self.options.lane_gbps
    }

    /// The probability that a slot of one direction (one frame per lane) carries a bit error.
    pub fn slot_fer(&self, ber: f64) -> f64 {
        1.0 - (1.0 - ber).powf((self.params.frame_bits * self.params.lanes) as f64)
    }

    /// Eq. 8 as ratio = 1 / (1 + N_stall · FER) with FER per slot of one direction, fitted
    /// (weighted by the frames hit) over 1e-8 … 1e-7: (N_stall, points used).
    pub fn eq8_fit(&self) -> (f64, usize) {
        let Some(base) = self.reference() else { return (f64::NAN, 0) };
        let used: Vec<&PointRecord> = self.ber_points().into_iter().filter(|pt| pt.ber >= 0.99e-8 && pt.ber <= 1.01e-7 && pt.frames_hit >= 2).collect();
        let hits: f64 = used.iter().map(|pt| pt.frames_hit as f64).sum();
        if used.is_empty() {
            return (f64::NAN, 0);
        }
        let n = used.iter().map(|pt| pt.frames_hit as f64 * (base.bw / pt.bw - 1.0) / self.slot_fer(pt.ber)).sum::<f64>() / hits;
        (n, used.len())
    }

    fn base_bw(&self) -> f64 {
        self.reference().map(|b| b.bw).unwrap_or(f64::NAN)
    }

    /// The Markdown table (ratios need the reference point; NaN in a shard without it).
    pub fn table(&self) -> String {
        let cycle_ns = self.cycle_ns();
        let base = self.base_bw();
        let mut t = String::new();
        let _ = writeln!(t, "| BER | bandwidth ratio | avg latency (cycles / ns) | p99 (ns) | p99.9 (ns) | frames hit | frame errors | retransmissions | pause events | cycles |");
        let _ = writeln!(t, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for pt in &self.points {
            let _ = writeln!(
                t,
                "| {:.2e} | {:.4} | {:.1} / {:.0} | {:.0} | {:.0} | {} | {} | {} | {} | {}{} |",
                pt.ber,
                pt.bw / base,
                pt.lat_avg,
                pt.lat_avg * cycle_ns,
                pt.lat_p99 * cycle_ns,
                pt.lat_p999 * cycle_ns,
                pt.frames_hit,
                pt.frame_errors,
                pt.retransmissions,
                pt.pause_events,
                pt.cycles,
                if pt.completed { "" } else { " (cap)" }
            );
        }
        t
    }

    /// The CSV of `sim/results/rifl_sweep.csv` (same columns and number formats).
    pub fn csv(&self) -> String {
        let cycle_ns = self.cycle_ns();
        let base = self.base_bw();
        let mut csv = String::from("ber,bandwidth_ratio,bytes_per_cycle,lat_avg_cycles,lat_p99_cycles,lat_p999_cycles,lat_avg_ns,lat_p99_ns,lat_p999_ns,frames_hit,bits_flipped,frame_errors,retransmissions,pause_events,cycles,packets,bytes\n");
        for pt in &self.points {
            let ratio = pt.bw / base;
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
        csv
    }

    /// The fit and the paper comparison lines.
    pub fn summary(&self) -> String {
        let (n_stall, n_fit) = self.eq8_fit();
        let predicted = |ber: f64| 1.0 / (1.0 + n_stall * self.slot_fer(ber));
        let pred_start = self.options.bers.iter().copied().find(|&b| predicted(b) < 0.9998);
        let base = self.base_bw();
        let pts = self.ber_points();
        let first_drop = pts.iter().find(|pt| pt.bw / base < 0.999).map(|pt| pt.ber);
        let at_1e7 = pts.iter().min_by(|a, b| (a.ber.log10() + 7.0).abs().total_cmp(&(b.ber.log10() + 7.0).abs())).map(|pt| pt.bw / base);
        format!(
            "Eq. 8 fit: N_stall = {:.0} slots lost per error event (both directions together; FER per slot of {} x {} bits per direction; from {} points in 1e-8..1e-7); predicted ratio {:.5} at 5.6e-10, {:.4} at 1e-7, first below 0.9998 at BER {}\nratio first below 0.999 at BER {}; ratio at 1e-7: {:.3} (paper, RIFL256 4 x 28 Gb/s, 10 GB per point: drop starts at 5.6e-10, 96.3 % at 1e-7)\n",
            n_stall,
            self.params.lanes,
            self.params.frame_bits,
            n_fit,
            predicted(5.6e-10),
            predicted(1e-7),
            pred_start.map(|b| format!("{b:.2e}")).unwrap_or_else(|| "-".into()),
            first_drop.map(|b| format!("{b:.2e}")).unwrap_or_else(|| "none".into()),
            at_1e7.unwrap_or(f64::NAN),
        )
    }

    pub fn title(&self) -> String {
        let (o, p) = (&self.options, &self.params);
        format!("RIFL {} ({}-bit frames, {} lane(s), 2^{} frame IDs, delay {} cycles): {} packets each way per BER", o.block, p.frame_bits, p.lanes, p.frame_id_bits, o.delay, o.packets)
    }

    /// Table and summary.
    pub fn report(&self) -> String {
        let mut s = String::new();
        if !self.shard.is_all() {
            s.push_str(&format!("shard {} of the sweep: {} of {} points\n\n", self.shard, self.points.len(), self.units));
        }
        s.push_str(&self.table());
        s.push_str(&self.summary());
        s
    }

    /// Bandwidth ratio and latency against BER, with the Eq. 8 fit (needs the reference point).
    pub fn svg(&self) -> String {
        let Some(base) = self.reference() else { return String::new() };
        let pts: Vec<PointRecord> = self.ber_points().into_iter().cloned().collect();
        let (n, _) = self.eq8_fit();
        let fer = |ber: f64| self.slot_fer(ber);
        sweep_svg(&pts, base, self.cycle_ns(), &self.title(), Some((n, &fer)))
    }
}

/// A hand-written SVG: bandwidth ratio and latency against BER (log axis), with the paper's
/// two reference points marked and the Eq. 8 fit `(N_stall, slot FER)` if given.
pub fn sweep_svg(points: &[PointRecord], base: &PointRecord, cycle_ns: f64, title: &str, fit: Option<(f64, &dyn Fn(f64) -> f64)>) -> String {
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
    if let Some((n, slot_fer)) = fit.filter(|(n, _)| n.is_finite()) {
        let d: Vec<String> = (0..=280)
            .map(|k| {
                let ber = 10f64.powf(-12.0 + k as f64 / 40.0);
                format!("{}{:.1},{:.1}", if k == 0 { "M" } else { "L" }, lx(ber), ybw(1.0 / (1.0 + n * slot_fer(ber))))
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
    // (value of a point, colour, extra SVG attributes, legend)
    type Series = (fn(&PointRecord) -> f64, &'static str, &'static str, &'static str);
    let series: [Series; 3] = [
        (|p| p.lat_avg, "#2ca02c", "", "average"),
        (|p| p.lat_p99, "#ff7f0e", r#"stroke-dasharray="6 3""#, "99th percentile"),
        (|p| p.lat_p999, "#9467bd", r#"stroke-dasharray="2 3""#, "99.9th percentile"),
    ];
    for (i, (f, color, dash, name)) in series.iter().enumerate() {
        let _ = writeln!(s, "{}", line(points.iter().map(|p| (lx(p.ber), ylat(f(p) * cycle_ns))).collect(), color, dash));
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" fill="{color}">{name}</text>"#, x0 + 10.0, t0 + 14.0 + 14.0 * i as f64);
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
