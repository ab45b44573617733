//! The `rtl-gen sim sue --figures` campaign on the shared result-file layer: its work units are
//! the seven figures in a fixed order (F5, F3, F4, F1/F2, F1 hold, F7, F6), `--shard K/N` runs
//! the units `u % N == K`, each fabric run seeds itself from the campaign seed and its own run
//! number alone ([`super::figures::Runner::run`]), so `rtl-gen sim merge` of every shard's JSON
//! gives exactly the records, the report and the CSV of the single run.

use super::figures::{self as fig, Figure, FigureOptions, Runner};
use super::packing::{run as packing, with_hold, PackingOptions};
use crate::campaign::shard::{self, Shard};
use crate::campaign::{CampaignError, Progress};
use crate::Bench;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The figures' names in unit order.
pub const UNITS: [&str; 7] = ["F5", "F3", "F4", "F1/F2", "F1 hold", "F7", "F6"];

/// What the campaign runs: the blocks, the run lengths and every figure's sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SueOptions {
    /// The `sue_endpoint` block the fabrics are made of.
    pub endpoint: String,
    /// The `sue_packer` block of the hold figure.
    pub packer: String,
    /// Cycles of traffic per fabric point (then drained).
    pub fabric_cycles: u64,
    /// Cycles per packer point, and the packer's link rate as a fraction of its bus.
    pub packer_cycles: u64,
    pub link_ratio: f64,
    pub seed: u64,
    /// Verilated RTL endpoints in lockstep with their models (else the models alone).
    pub rtl: bool,
    /// F5 offered load.
    pub psn_load: f64,
    /// F3 per-link drop probabilities.
    pub drops: Vec<f64>,
    /// F3 extra (`window`, `rto_cycles`) variants at the same drops (opt-in; empty by default).
    #[serde(default)]
    pub drop_variants: Vec<(u32, u32)>,
    /// F4 incast senders (the incast fabric has senders + 1 XPUs).
    pub incast_senders: usize,
    /// F1/F2 offered loads.
    pub loads: Vec<f64>,
    /// F1 hold: `hold_cycles` values and offered loads of the packer (RTL only; empty: skipped).
    pub hold_cycles: Vec<u32>,
    pub hold_loads: Vec<f64>,
    /// F7 offered load.
    pub stall_load: f64,
    /// F6 offered load per sending direction and (`ack_coalesce`, `ack_delay_cycles`) points.
    pub ack_load: f64,
    pub ack_points: Vec<(u32, u32)>,
}

impl Default for SueOptions {
    fn default() -> Self {
        SueOptions {
            endpoint: "sue_ep".into(),
            packer: "sue_pk".into(),
            fabric_cycles: 20_000,
            packer_cycles: 20_000,
            link_ratio: 0.5,
            seed: 1,
            rtl: true,
            psn_load: 0.8,
            drops: vec![1e-6, 1e-5, 1e-4, 1e-3, 1e-2],
            drop_variants: Vec::new(),
            incast_senders: 8,
            loads: vec![0.1, 0.3, 0.5, 0.7, 0.9, 1.2],
            hold_cycles: vec![0, 16, 64, 256],
            hold_loads: vec![0.1, 0.5, 0.9, 1.5],
            stall_load: 0.5,
            ack_load: 0.5,
            ack_points: fig::ACK_POINTS.to_vec(),
        }
    }
}

/// One figure (work unit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SueRecord {
    pub unit: usize,
    pub figure: Figure,
    /// Packer lockstep / scoreboard mismatches of the hold figure (fabric points count theirs).
    pub packer_mismatches: u64,
}

impl SueRecord {
    /// Scoreboard, lockstep and RTL = model violations of the figure.
    pub fn violations(&self) -> u64 {
        self.packer_mismatches + self.figure.points.iter().map(|p| p.violations).sum::<u64>()
    }
}

/// A run of the campaign, or one shard of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SueResults {
    pub options: SueOptions,
    pub shard: Shard,
    pub units: usize,
    /// In unit order.
    pub records: Vec<SueRecord>,
}

fn hold_figure(bench: &Bench, o: &SueOptions) -> Result<(Figure, u64), CampaignError> {
    let mut t = String::from("| hold_cycles | offered load | commands/PDU | wire efficiency | packing latency p50 / p99 / max (cycles) | mismatches |\n|---:|---:|---:|---:|---:|---:|\n");
    let mut bad = 0;
    for &hold in &o.hold_cycles {
        let hb = with_hold(bench, &o.packer, hold)?;
        let po = PackingOptions { block: format!("pk_h{hold}"), cycles: o.packer_cycles, link_ratio: o.link_ratio, seed: o.seed, loads: o.hold_loads.clone() };
        for p in packing(&hb, &po)? {
            bad += p.mismatches;
            let _ = writeln!(t, "| {hold} | {:.1} | {:.2} | {:.1} % | {} / {} / {} | {} |", p.load, p.cmds_per_pdu, 100.0 * p.wire_efficiency, p.latency_p50, p.latency_p99, p.latency_max, p.mismatches);
        }
    }
    let title = format!("F1: packing vs hold_cycles (packer `{}` alone on the RTL, link at {} of the bus, uniform over its queues)", o.packer, o.link_ratio);
    Ok((Figure { title, table: t, points: Vec::new() }, bad))
}

/// Runs the units of `shard` (each figure whole).
pub fn run(bench: &Bench, o: &SueOptions, shard: Shard, progress: &mut Progress) -> Result<SueResults, CampaignError> {
    let fo = FigureOptions { block: o.endpoint.clone(), cycles: o.fabric_cycles, seed: o.seed, rtl: o.rtl };
    let mut r = Runner::new(bench, fo)?;
    let mut records = Vec::new();
    for u in shard.units(UNITS.len()) {
        progress.note(&format!("sue figures: {}…", UNITS[u]));
        let (figure, packer_mismatches) = match u {
            0 => (fig::psn_scope(&mut r, o.psn_load)?, 0),
            1 => (fig::goodput_vs_drop(&mut r, &o.drops, &o.drop_variants)?, 0),
            2 => (fig::incast(&mut r, o.incast_senders)?, 0),
            3 => (fig::load_sweep(&mut r, &o.loads)?, 0),
            4 => hold_figure(bench, o)?,
            5 => (fig::deadlock(&mut r, o.stall_load)?, 0),
            _ => (fig::ack_overhead(&mut r, o.ack_load, &o.ack_points)?, 0),
        };
        records.push(SueRecord { unit: u, figure, packer_mismatches });
    }
    Ok(SueResults { options: o.clone(), shard, units: UNITS.len(), records })
}

impl SueResults {
    /// The shards of one campaign as the single run.
    pub fn merge(parts: Vec<SueResults>) -> Result<SueResults, CampaignError> {
        let parts = parts.into_iter().map(|p| (p.shard, (p.options, p.units), p.records)).collect();
        let ((options, units), records) = shard::merge_units(parts, |c| Some(c.1), |r: &SueRecord| r.unit)?;
        Ok(SueResults { options, shard: Shard::ALL, units, records })
    }

    pub fn violations(&self) -> u64 {
        self.records.iter().map(|r| r.violations()).sum()
    }

    /// The Markdown report: every figure's title and table, in unit order.
    pub fn report(&self) -> String {
        let o = &self.options;
        let mut s = format!(
            "<!-- rtl-gen sim sue --figures --seed {} --fabric-cycles {}{} -->\n",
            o.seed,
            o.fabric_cycles,
            if o.rtl { "" } else { " --models" }
        );
        if !self.shard.is_all() {
            let _ = writeln!(s, "\nshard {} of the campaign: {} of {} figures", self.shard, self.records.len(), self.units);
        }
        for r in &self.records {
            let _ = write!(s, "\n## {}\n\n{}", r.figure.title, r.figure.table);
        }
        s
    }

    /// Every fabric point of every figure, one CSV line each.
    pub fn csv(&self) -> String {
        let mut s = String::from("figure,label,xpus,rtl_xpus,cycles,total_cycles,accepted,delivered,goodput,data_pdus,cmds_per_pdu,wire_efficiency,lat_p50,lat_p99,lat_p999,lat_max,cmpl_p50,cmpl_p99,new_pdus,retx,nacks,rtos,gaps,dups,crc_errs,link_drops,overflow,overtakes,ctrl_ack,ctrl_nack,piggy_ack,piggy_nack,violations\n");
        for r in &self.records {
            for p in &r.figure.points {
                let l = &p.link;
                let _ = writeln!(
                    s,
                    "{},\"{}\",{},{},{},{},{},{},{:.6},{},{:.4},{:.6},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    UNITS[r.unit], p.label, p.xpus, p.rtl_xpus, p.cycles, p.total_cycles, p.accepted, p.delivered, p.goodput, p.data_pdus, p.cmds_per_pdu, p.wire_efficiency,
                    p.lat_p50, p.lat_p99, p.lat_p999, p.lat_max, p.cmpl_p50, p.cmpl_p99, p.new_pdus, p.retx, p.nacks, p.rtos, p.gaps, p.dups, p.crc_errs, p.drops, p.overflow,
                    p.overtakes, l.ctrl_ack, l.ctrl_nack, l.piggy_ack, l.piggy_nack, p.violations
                );
            }
        }
        s
    }
}
