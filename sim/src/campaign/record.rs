//! Result records of every campaign: serde-serialisable (the JSON a shard writes and
//! `merge` reads), with the tables (Markdown), CSV and the SVG plot computed from them.
//!
//! A record holds counts, not ratios, wherever records are summed (RXL segments), so merged
//! records are exact; ratios are methods.

use super::channel::{ChannelStats, Faults};
use super::rifl::sweep::{SweepResults, PointRecord};
use super::genz::campaign::GenzResults;
use super::rxl::RxlResults;
use super::recxl::campaign::RecxlResults;
use super::sue::campaign::SueResults;
use super::CampaignError;
use rtl_gen::blocks::rxl_endpoint::model::Counters;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

// ---- RXL ----

/// An endpoint's saturating counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpCounters {
    pub flits_sent: u64,
    pub replays: u64,
    pub crc_fail: u64,
    pub fec_corrected: u64,
    pub fec_uncorrectable: u64,
    pub nacks_sent: u64,
}

impl From<Counters> for EpCounters {
    fn from(c: Counters) -> EpCounters {
        EpCounters { flits_sent: c.flits_sent, replays: c.replays, crc_fail: c.crc_fail, fec_corrected: c.fec_corrected, fec_uncorrectable: c.fec_uncorrectable, nacks_sent: c.nacks_sent }
    }
}

impl std::ops::AddAssign for EpCounters {
    fn add_assign(&mut self, o: EpCounters) {
        self.flits_sent += o.flits_sent;
        self.replays += o.replays;
        self.crc_fail += o.crc_fail;
        self.fec_corrected += o.fec_corrected;
        self.fec_uncorrectable += o.fec_uncorrectable;
        self.nacks_sent += o.nacks_sent;
    }
}

/// One direction of an RXL run: what the scoreboard and the wire saw.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RxlDirRecord {
    /// Payloads the sending application handed over.
    pub sent: u64,
    pub delivered: u64,
    pub in_order: u64,
    /// Deliveries out of order or duplicated (Fail_order), and the times the in-order stream
    /// broke.
    pub ordering_failures: u64,
    pub ordering_events: u64,
    pub duplicates: u64,
    pub skipped: u64,
    /// Deliveries whose content matches no payload (Fail_data).
    pub data_failures: u64,
    pub window_in_order: u64,
    pub window_cycles: u64,
    pub wire_flits: u64,
    pub wire_payload: u64,
    pub wire_payload_with_ack: u64,
    pub channels: ChannelStats,
    pub switch_drops: u64,
    pub switch_corrected: u64,
    pub internal_corruptions: u64,
    pub rx_counters: EpCounters,
    pub tx_counters: EpCounters,
    /// Observed retry loops (cycles from a payload's first transmission to its replay): value →
    /// count (as `[value, count]` pairs in JSON).
    #[serde(with = "pairs")]
    pub loops: BTreeMap<u64, u64>,
}

/// A `BTreeMap<u64, u64>` as a list of `[key, value]` pairs: JSON object keys are strings, which
/// the tagged [`ResultFile`] cannot read back as integers.
mod pairs {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(m: &BTreeMap<u64, u64>, s: S) -> Result<S::Ok, S::Error> {
        m.iter().map(|(&k, &v)| [k, v]).collect::<Vec<_>>().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<u64, u64>, D::Error> {
        Ok(Vec::<[u64; 2]>::deserialize(d)?.into_iter().map(|[k, v]| (k, v)).collect())
    }
}

impl RxlDirRecord {
    /// Fraction of payload flits carrying an AckNum (p_coalescing of Eq. 7).
    pub fn p_ack(&self) -> f64 {
        self.wire_payload_with_ack as f64 / self.wire_payload.max(1) as f64
    }
    /// Forced channel drops plus switch drops.
    pub fn silent_drops(&self) -> u64 {
        self.channels.drops + self.switch_drops
    }
    /// Eq. 7: ordering failure events expected from the silent drops.
    pub fn predicted_ordering_events(&self) -> f64 {
        self.silent_drops() as f64 * self.p_ack()
    }
    /// 1 − in-order deliveries per cycle over the measurement window.
    pub fn bw_loss(&self) -> f64 {
        1.0 - self.window_in_order as f64 / self.window_cycles.max(1) as f64
    }
    pub fn loop_median(&self) -> Option<u64> {
        let n: u64 = self.loops.values().sum();
        let mut seen = 0;
        for (&l, &c) in &self.loops {
            seen += c;
            if seen > n / 2 {
                return Some(l);
            }
        }
        None
    }
    pub fn undelivered(&self) -> u64 {
        self.sent - self.in_order
    }

    fn add(&mut self, o: &RxlDirRecord) {
        self.sent += o.sent;
        self.delivered += o.delivered;
        self.in_order += o.in_order;
        self.ordering_failures += o.ordering_failures;
        self.ordering_events += o.ordering_events;
        self.duplicates += o.duplicates;
        self.skipped += o.skipped;
        self.data_failures += o.data_failures;
        self.window_in_order += o.window_in_order;
        self.window_cycles += o.window_cycles;
        self.wire_flits += o.wire_flits;
        self.wire_payload += o.wire_payload;
        self.wire_payload_with_ack += o.wire_payload_with_ack;
        self.channels += o.channels;
        self.switch_drops += o.switch_drops;
        self.switch_corrected += o.switch_corrected;
        self.internal_corruptions += o.internal_corruptions;
        self.rx_counters += o.rx_counters;
        self.tx_counters += o.tx_counters;
        for (&l, &c) in &o.loops {
            *self.loops.entry(l).or_insert(0) += c;
        }
    }
}

/// One RXL run (a work unit), or several segments of one (endpoint, topology) summed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RxlRecord {
    /// Work unit (the first unit of a summed row).
    pub unit: usize,
    /// Endpoint block (empty when the run was configured by hand).
    pub endpoint: String,
    /// `rxl` or `cxl_baseline`.
    pub mode: String,
    pub switches: usize,
    /// Segments summed in this record.
    pub segments: u32,
    /// Link cycles of traffic (flits per direction offered), summed over segments.
    pub flits: u64,
    pub cycles: u64,
    /// Everything sent was delivered after the drain (every segment).
    pub drained: bool,
    pub retry_loop: u32,
    pub faults: Faults,
    pub internal: f64,
    pub dirs: [RxlDirRecord; 2],
}

impl RxlRecord {
    /// Per-flit probability of an event that costs a retry on the path, as Eq. 12 counts it:
    /// links × (FER_UC + forced drops).
    pub fn retry_probability(&self) -> f64 {
        (self.switches + 1) as f64 * (self.faults.uc + self.faults.drop)
    }
    /// Eq. 11–14.
    pub fn predicted_bw_loss(&self) -> f64 {
        super::rxl::predicted_bw_loss(self.retry_probability(), self.retry_loop as f64)
    }
    /// Zero ordering and data failures, nothing undelivered, drained.
    pub fn exactly_once(&self) -> bool {
        self.drained && self.dirs.iter().all(|d| d.ordering_failures == 0 && d.data_failures == 0 && d.undelivered() == 0)
    }
    /// Adds another segment of the same (endpoint, topology).
    pub fn add(&mut self, o: &RxlRecord) {
        self.segments += o.segments;
        self.flits += o.flits;
        self.cycles += o.cycles;
        self.drained &= o.drained;
        for d in 0..2 {
            self.dirs[d].add(&o.dirs[d]);
        }
    }
}

/// The campaign table: one row per record and direction.
pub fn rxl_table(records: &[RxlRecord]) -> String {
    let mut s = String::new();
    s.push_str("| mode | switches | dir | flits on wire | delivered in order | silent drops | replays | ordering failures (events) | Eq. 7 predicted | data failures | undelivered | BW loss | Eq. 11–14 predicted | retry loop |\n");
    s.push_str("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in records {
        for (d, x) in r.dirs.iter().enumerate() {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} ({}) | {:.1} | {} | {} | {:.4} % | {:.4} % | {} |",
                r.mode,
                r.switches,
                if d == 0 { "A→B" } else { "B→A" },
                x.wire_flits,
                x.in_order,
                x.silent_drops(),
                x.tx_counters.replays,
                x.ordering_failures,
                x.ordering_events,
                x.predicted_ordering_events(),
                x.data_failures,
                x.undelivered(),
                100.0 * x.bw_loss(),
                100.0 * r.predicted_bw_loss(),
                x.loop_median().map(|l| l.to_string()).unwrap_or_else(|| "-".into()),
            );
        }
    }
    s
}

/// One line per record: Eq. 7 and Eq. 11–14 against the measurement, both directions.
pub fn rxl_summary(records: &[RxlRecord]) -> String {
    let mut s = String::new();
    s.push_str("| mode | switches | ordering failure events | Eq. 7 predicted (drops × p_ack) | outside discard windows | p_ack | BW loss measured | Eq. 11–14 predicted | exactly once, in order |\n");
    s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for r in records {
        let ev: u64 = r.dirs.iter().map(|d| d.ordering_events).sum();
        let pred: f64 = r.dirs.iter().map(|d| d.predicted_ordering_events()).sum();
        let shadowed: f64 = r.dirs.iter().map(|d| d.predicted_ordering_events() * (1.0 - d.bw_loss())).sum();
        let p_ack = r.dirs.iter().map(|d| d.p_ack()).sum::<f64>() / 2.0;
        let loss = r.dirs.iter().map(|d| d.bw_loss()).sum::<f64>() / 2.0;
        let _ = writeln!(
            s,
            "| {} | {} | {ev} | {pred:.1} | {shadowed:.1} | {p_ack:.3} | {:.4} % | {:.4} % | {} |",
            r.mode,
            r.switches,
            100.0 * loss,
            100.0 * r.predicted_bw_loss(),
            if r.exactly_once() { "yes" } else { "NO" }
        );
    }
    s
}

/// The plot: bandwidth loss (%) per mode and direction against the switching levels, with
/// Eq. 11–14's prediction.
pub fn rxl_svg(records: &[RxlRecord]) -> String {
    use crate::plot::{Axis, Panel, Plot, Scale, Series, Style};
    let mut series: Vec<Series> = Vec::new();
    let mut predicted = Series::new("Eq. 11–14 predicted", Vec::new(), Style::Curve);
    for r in records {
        for (d, x) in r.dirs.iter().enumerate() {
            let name = format!("{} {}", r.mode, if d == 0 { "A→B" } else { "B→A" });
            let style = if r.mode == "rxl" { Style::Line } else { Style::Dashed };
            let p = (r.switches as f64, 100.0 * x.bw_loss());
            match series.iter_mut().find(|s| s.name == name) {
                Some(s) => s.points.push(p),
                None => series.push(Series::new(name, vec![p], style)),
            }
        }
        if !predicted.points.iter().any(|p| p.0 == r.switches as f64) {
            predicted.points.push((r.switches as f64, 100.0 * r.predicted_bw_loss()));
        }
    }
    predicted.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let ys: Vec<f64> = series.iter().chain([&predicted]).flat_map(|s| s.points.iter().map(|p| p.1)).collect();
    let max_sw = records.iter().map(|r| r.switches).max().unwrap_or(1).max(1) as f64;
    series.push(predicted);
    let fer = records.first().map(|r| r.faults.uc).unwrap_or(0.0);
    Plot {
        title: format!("RXL and CXL 3.0 bandwidth loss per direction vs switches (FER_UC {fer:.0e} per link)"),
        x: Axis { label: "switches on the path".into(), scale: Scale::Linear { min: 0.0, max: max_sw, step: 1.0 } },
        panels: vec![Panel { y: Axis { label: "bandwidth loss (% of link cycles)".into(), scale: Scale::linear_fit(&ys) }, series }],
    }
    .svg()
}

/// CSV: one line per record and direction.
pub fn rxl_csv(records: &[RxlRecord]) -> String {
    let mut s = String::from("endpoint,mode,switches,dir,segments,flits,cycles,drained,sent,wire_flits,in_order,silent_drops,channel_drops,switch_drops,bit_errors,bursts,uc_injected,internal_corruptions,replays,crc_fail,ordering_failures,ordering_events,eq7_predicted,data_failures,undelivered,p_ack,bw_loss,eq11_14_predicted,retry_loop_median\n");
    for r in records {
        for (d, x) in r.dirs.iter().enumerate() {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3},{},{},{:.6},{:.8},{:.8},{}",
                r.endpoint,
                r.mode,
                r.switches,
                if d == 0 { "AB" } else { "BA" },
                r.segments,
                r.flits,
                r.cycles,
                r.drained,
                x.sent,
                x.wire_flits,
                x.in_order,
                x.silent_drops(),
                x.channels.drops,
                x.switch_drops,
                x.channels.bit_errors,
                x.channels.bursts,
                x.channels.uc_injected,
                x.internal_corruptions,
                x.tx_counters.replays,
                x.rx_counters.crc_fail,
                x.ordering_failures,
                x.ordering_events,
                x.predicted_ordering_events(),
                x.data_failures,
                x.undelivered(),
                x.p_ack(),
                x.bw_loss(),
                r.predicted_bw_loss(),
                x.loop_median().map(|l| l.to_string()).unwrap_or_default()
            );
        }
    }
    s
}

// ---- result files ----

/// What a campaign (or one shard of it) writes as JSON, and `merge` reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "campaign", rename_all = "snake_case")]
pub enum ResultFile {
    Rxl(RxlResults),
    RiflSweep(SweepResults),
    Genz(GenzResults),
    Recxl(RecxlResults),
    Sue(SueResults),
}

impl ResultFile {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("records serialise")
    }

    pub fn from_json(text: &str, origin: &str) -> Result<ResultFile, CampaignError> {
        serde_json::from_str(text).map_err(|e| CampaignError::Config(format!("{origin}: not a campaign result file ({e})")))
    }

    pub fn read(path: &Path) -> Result<ResultFile, CampaignError> {
        let text = std::fs::read_to_string(path).map_err(|e| crate::SimError::io(format!("reading {}", path.display()), e))?;
        ResultFile::from_json(&text, &path.display().to_string())
    }

    pub fn write_json(&self, path: &Path) -> Result<(), CampaignError> {
        write_file(path, &self.to_json())
    }

    /// Merges the shards of one campaign (all of the same kind, options and seed, every shard
    /// exactly once) into the result of the single run.
    pub fn merge(files: Vec<ResultFile>) -> Result<ResultFile, CampaignError> {
        let mut rxl = Vec::new();
        let mut rifl = Vec::new();
        let mut genz = Vec::new();
        let mut recxl = Vec::new();
        let mut sue = Vec::new();
        for f in files {
            match f {
                ResultFile::Rxl(r) => rxl.push(r),
                ResultFile::RiflSweep(r) => rifl.push(r),
                ResultFile::Genz(r) => genz.push(r),
                ResultFile::Recxl(r) => recxl.push(r),
                ResultFile::Sue(r) => sue.push(r),
            }
        }
        let kinds = [!rxl.is_empty(), !rifl.is_empty(), !genz.is_empty(), !recxl.is_empty(), !sue.is_empty()];
        if kinds.iter().filter(|&&k| k).count() > 1 {
            return Err(CampaignError::Config("cannot merge results of different campaigns (RXL, RIFL sweep, Gen-Z, ReCXL, SUE) into one".into()));
        }
        if !genz.is_empty() {
            return Ok(ResultFile::Genz(GenzResults::merge(genz)?));
        }
        if !recxl.is_empty() {
            return Ok(ResultFile::Recxl(RecxlResults::merge(recxl)?));
        }
        if !sue.is_empty() {
            return Ok(ResultFile::Sue(SueResults::merge(sue)?));
        }
        match (rxl.is_empty(), rifl.is_empty()) {
            (false, _) => Ok(ResultFile::Rxl(RxlResults::merge(rxl)?)),
            (true, false) => Ok(ResultFile::RiflSweep(SweepResults::merge(rifl)?)),
            (true, true) => Err(CampaignError::Config("nothing to merge: no result files".into())),
        }
    }

    /// Reads and merges result files.
    pub fn merge_files<P: AsRef<Path>>(paths: &[P]) -> Result<ResultFile, CampaignError> {
        ResultFile::merge(paths.iter().map(|p| ResultFile::read(p.as_ref())).collect::<Result<Vec<_>, _>>()?)
    }

    /// The campaign's Markdown report (tables as a single run prints them).
    pub fn report(&self) -> String {
        match self {
            ResultFile::Rxl(r) => r.report(),
            ResultFile::RiflSweep(r) => r.report(),
            ResultFile::Genz(r) => r.report(),
            ResultFile::Recxl(r) => r.report(),
            ResultFile::Sue(r) => r.report(),
        }
    }

    /// Writes `PREFIX.json`, `PREFIX.csv`, `PREFIX.md` (and `PREFIX.svg` for the sweep); returns
    /// the paths written.
    pub fn write_all(&self, prefix: &str) -> Result<Vec<String>, CampaignError> {
        let mut files = vec![(format!("{prefix}.json"), self.to_json()), (format!("{prefix}.md"), self.report())];
        match self {
            ResultFile::Rxl(r) => files.push((format!("{prefix}.csv"), rxl_csv(&r.rows()))),
            ResultFile::Recxl(r) => files.push((format!("{prefix}.csv"), r.csv())),
            ResultFile::Sue(r) => files.push((format!("{prefix}.csv"), r.csv())),
            ResultFile::RiflSweep(r) => {
                files.push((format!("{prefix}.csv"), r.csv()));
                if r.reference().is_some() {
                    files.push((format!("{prefix}.svg"), r.svg()));
                }
            }
            ResultFile::Genz(r) => {
                files.push((format!("{prefix}.csv"), r.csv()));
                if r.shard.is_all() {
                    files.push((format!("{prefix}.svg"), r.svg()));
                }
            }
        }
        for (path, text) in &files {
            write_file(Path::new(path), text)?;
        }
        Ok(files.into_iter().map(|(p, _)| p).collect())
    }
}

/// Writes `text` to `path`, creating the folder.
pub fn write_file(path: &Path, text: &str) -> Result<(), CampaignError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| crate::SimError::io(format!("creating {}", dir.display()), e))?;
    }
    std::fs::write(path, text).map_err(|e| crate::SimError::io(format!("writing {}", path.display()), e))?;
    Ok(())
}

// ---- RIFL sweep plot ----

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

#[cfg(test)]
mod tests {
    use super::*;

    /// One line per mode and direction over the switches, the prediction dashed, the labels.
    #[test]
    fn rxl_svg_draws_each_direction() {
        let rec = |switches: usize, a: u64, b: u64| {
            let mut r = RxlRecord { mode: "rxl".into(), switches, ..RxlRecord::default() };
            for (d, ok) in r.dirs.iter_mut().zip([a, b]) {
                d.window_in_order = ok;
                d.window_cycles = 1000;
            }
            r
        };
        let s = rxl_svg(&[rec(0, 990, 980), rec(1, 970, 960)]);
        // x 0..1 over 90..640; y 0..4 % (step 0.5) over 305..55.
        assert!(s.contains(r#"points="90.0,242.5 640.0,117.5""#), "{s}");
        assert!(s.contains(r#"points="90.0,180.0 640.0,55.0""#), "{s}");
        assert!(s.contains(r#"stroke-dasharray="6 4" points="90.0,305.0 640.0,305.0""#), "{s}");
        assert_eq!(s.matches("<circle").count(), 4 + 2);
        for l in [">rxl A→B<", ">rxl B→A<", "Eq. 11–14 predicted", "bandwidth loss (% of link cycles)", "switches on the path"] {
            assert!(s.contains(l), "{l}");
        }
    }
}
