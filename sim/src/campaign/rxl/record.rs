//! The RXL campaign's records: serde-serialisable (the JSON a shard writes and `merge` reads),
//! with the tables (Markdown), CSV and the SVG plot computed from them.
//!
//! A record holds counts, not ratios, wherever records are summed (RXL segments), so merged
//! records are exact; ratios are methods.

use crate::link::channel::{ChannelStats, Faults};
use crate::link::rxl::{DirectionFigures, Report};
use rtl_gen::blocks::rxl_endpoint::model::{Counters, Mode};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

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

impl DirectionFigures for RxlDirRecord {
    fn wire_payload(&self) -> u64 {
        self.wire_payload
    }
    fn wire_payload_with_ack(&self) -> u64 {
        self.wire_payload_with_ack
    }
    fn channel_drops(&self) -> u64 {
        self.channels.drops
    }
    fn switch_drops(&self) -> u64 {
        self.switch_drops
    }
    fn window_in_order(&self) -> u64 {
        self.window_in_order
    }
    fn window_cycles(&self) -> u64 {
        self.window_cycles
    }
}

impl RxlDirRecord {
    /// The median observed retry loop.
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
        crate::link::rxl::predicted_bw_loss(self.retry_probability(), self.retry_loop as f64)
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

/// The campaign table of `reports` (one row per report and direction; see
/// [`rxl_table`]).
pub fn table(reports: &[Report]) -> String {
    rxl_table(&reports.iter().map(Report::record).collect::<Vec<_>>())
}

impl Report {
    /// The serialisable record of this run (no wall time: `seconds` is kept apart so records of
    /// the same run compare equal).
    pub fn record(&self) -> RxlRecord {
        let mode = match self.cfg.endpoint.mode {
            Mode::Rxl => "rxl",
            Mode::CxlBaseline => "cxl_baseline",
        };
        RxlRecord {
            unit: 0,
            endpoint: String::new(),
            mode: mode.into(),
            switches: self.cfg.switches,
            segments: 1,
            flits: self.cfg.traffic_cycles,
            cycles: self.cycles,
            drained: self.drained,
            retry_loop: self.cfg.retry_loop,
            faults: self.cfg.faults,
            internal: self.cfg.internal,
            dirs: [0, 1].map(|d| {
                let x = &self.dirs[d];
                let mut loops = std::collections::BTreeMap::new();
                for &l in &x.loop_samples {
                    *loops.entry(l).or_insert(0u64) += 1;
                }
                RxlDirRecord {
                    sent: x.sent,
                    delivered: x.sink.delivered,
                    in_order: x.sink.in_order,
                    ordering_failures: x.sink.ordering_failures,
                    ordering_events: x.sink.ordering_events,
                    duplicates: x.sink.duplicates,
                    skipped: x.sink.skipped,
                    data_failures: x.sink.data_failures,
                    window_in_order: x.sink.window_in_order,
                    window_cycles: x.window_cycles,
                    wire_flits: x.wire_flits,
                    wire_payload: x.wire_payload,
                    wire_payload_with_ack: x.wire_payload_with_ack,
                    channels: x.channels,
                    switch_drops: x.switch_drops,
                    switch_corrected: x.switch_corrected,
                    internal_corruptions: x.internal_corruptions,
                    rx_counters: x.rx_counters.into(),
                    tx_counters: x.tx_counters.into(),
                    loops,
                }
            }),
        }
    }
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
