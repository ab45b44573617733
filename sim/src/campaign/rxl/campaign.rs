//! The RXL campaign as `rtl-gen sim rxl` runs it: endpoint blocks × topologies × segments of a
//! [`Bench`]'s design, on the RTL, the models or both in lockstep, sharded, with progress and
//! records.

use super::record::{rxl_summary, rxl_table, RxlRecord};
use crate::link::rxl::rtl::{rtl_nodes, Check, Stop};
use crate::link::rxl::{run_config, CampaignConfig, CampaignError, Faults, Nodes};
use crate::campaign::progress::Progress;
use crate::campaign::shard::{self, Shard};
use crate::Bench;
use rtl_gen::blocks::rxl_endpoint::model::Mode;
use rtl_gen::blocks::rxl_endpoint::RxlEndpointBlock;
use rtl_gen::blocks::rxl_switch::RxlSwitchBlock;
use rtl_gen::hw::module::Role;
use serde::{Deserialize, Serialize};

/// Which nodes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Impl {
    /// The Verilated RTL of the bench's tree.
    Rtl,
    /// The Rust reference models of the bench's design (no Verilator).
    Model,
    /// RTL and models side by side, every output compared every cycle.
    Lockstep,
}

/// Which endpoint modes a campaign runs ([`endpoints_for_mode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeSel {
    Rxl,
    CxlBaseline,
    Both,
}

/// An RXL campaign. Every (endpoint, topology) pair is one run of `flits` link cycles of
/// saturating traffic, split into `segments` independent work units (each with its share of the
/// cycles, its own warm-up and drain, and the seed [`RxlOptions::segment_seed`]); a shard runs
/// a round-robin slice of the units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RxlOptions {
    pub implementation: Impl,
    /// `rxl_endpoint` blocks, one run series each (both ends are the same block).
    pub endpoints: Vec<String>,
    /// The `rxl_switch` block of the switch levels; `None`: the design's first one whose FEC
    /// layout matches the endpoint's.
    pub switch: Option<String>,
    /// Switch levels, each 0..=4.
    pub topologies: Vec<usize>,
    /// Per link and direction.
    pub faults: Faults,
    /// Per flit and switch: a bit flipped between `link_rx` and `link_tx`.
    pub internal: f64,
    /// Link cycles of traffic per (endpoint, topology), over all segments.
    pub flits: u64,
    pub segments: u32,
    /// Go-back-N retry loop in flits; `None`: [`CampaignConfig::new`]'s (50, or the shortest
    /// loop the topology's switches allow).
    pub retry_loop: Option<u32>,
    pub seed: u64,
}

impl Default for RxlOptions {
    fn default() -> RxlOptions {
        RxlOptions { implementation: Impl::Rtl, endpoints: Vec::new(), switch: None, topologies: vec![0], faults: Faults::none(), internal: 0.0, flits: 100_000, segments: 1, retry_loop: None, seed: 1 }
    }
}

/// Shortest measurement window (link cycles after the warm-up) of a segment: the bandwidth
/// loss resolves 0.1 % of it.
pub const MIN_WINDOW_CYCLES: u64 = 1_000;

/// One work unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub index: usize,
    pub endpoint: String,
    pub switches: usize,
    pub segment: u32,
}

impl RxlOptions {
    /// Segment 0 runs with the campaign seed itself (a one-segment campaign is exactly
    /// [`CampaignConfig`] with `seed`), segment s > 0 with [`shard::unit_seed`]`(seed, s)`; the
    /// same for every endpoint and topology, as a hand-written series of runs would be.
    pub fn segment_seed(&self, segment: u32) -> u64 {
        if segment == 0 {
            self.seed
        } else {
            shard::unit_seed(self.seed, segment as usize)
        }
    }

    /// Traffic cycles of segment `s`: `flits` split as evenly as possible.
    pub fn segment_flits(&self, s: u32) -> u64 {
        let n = self.segments.max(1) as u64;
        self.flits / n + ((s as u64) < self.flits % n) as u64
    }

    /// Every work unit, endpoint-major, then topology, then segment.
    pub fn units(&self) -> Vec<Unit> {
        let mut v = Vec::new();
        for ep in &self.endpoints {
            for &switches in &self.topologies {
                for segment in 0..self.segments.max(1) {
                    v.push(Unit { index: v.len(), endpoint: ep.clone(), switches, segment });
                }
            }
        }
        v
    }

    /// Fewest traffic cycles a segment may have: the bandwidth loss is measured after the
    /// warm-up ([`CampaignConfig`]'s `warmup_cycles`) over a window of at least
    /// [`MIN_WINDOW_CYCLES`]; a shorter segment has no window to measure (its loss would read
    /// 100 % with every flit delivered).
    pub fn min_segment_flits() -> u64 {
        CampaignConfig::new(Mode::Rxl, 0, 0).warmup_cycles + MIN_WINDOW_CYCLES
    }

    fn check(&self) -> Result<(), CampaignError> {
        let min = RxlOptions::min_segment_flits();
        let segments = self.segments.max(1) as u64;
        if self.flits / segments < min {
            return Err(CampaignError::Config(format!(
                "flits = {} over {segments} segment(s) leaves {} link cycles per segment; the bandwidth loss is measured after a {}-cycle warm-up over at least {MIN_WINDOW_CYCLES} cycles, so each segment needs at least {min} (flits >= {})",
                self.flits,
                self.flits / segments,
                min - MIN_WINDOW_CYCLES,
                min.saturating_mul(segments)
            )));
        }
        if self.endpoints.is_empty() {
            return Err(CampaignError::Config("no endpoint block to run (options.endpoints is empty)".into()));
        }
        if let Some(t) = self.topologies.iter().find(|&&t| t > 4) {
            return Err(CampaignError::Config(format!("topology {t}: allowed 0..=4 switch levels")));
        }
        for (what, p) in [("ber", self.faults.ber), ("drop", self.faults.drop), ("uc", self.faults.uc), ("burst", self.faults.burst), ("internal", self.internal)] {
            if !(0.0..=1.0).contains(&p) {
                return Err(CampaignError::Config(format!("{what} = {p}: allowed a probability in 0..=1")));
            }
        }
        Ok(())
    }
}

/// The first `rxl_endpoint` block of each selected mode, in design order.
pub fn endpoints_for_mode(bench: &Bench, mode: ModeSel) -> Result<Vec<String>, CampaignError> {
    let eps = bench.blocks::<RxlEndpointBlock>();
    let want: &[Mode] = match mode {
        ModeSel::Rxl => &[Mode::Rxl],
        ModeSel::CxlBaseline => &[Mode::CxlBaseline],
        ModeSel::Both => &[Mode::Rxl, Mode::CxlBaseline],
    };
    want.iter()
        .map(|m| {
            eps.iter().find(|b| b.mode == *m).map(|b| b.name.clone()).ok_or_else(|| {
                CampaignError::Config(format!(
                    "the design has no rxl_endpoint block with mode {}; its rxl_endpoint blocks: {}",
                    if *m == Mode::Rxl { "rxl" } else { "cxl_baseline" },
                    if eps.is_empty() { "none".to_string() } else { eps.iter().map(|b| format!("{} ({})", b.name, b.mode_name())).collect::<Vec<_>>().join(", ") }
                ))
            })
        })
        .collect()
}

/// The switch block for `ep`: the named one (must be an `rxl_switch`) or the first with the
/// endpoint's FEC layout.
fn switch_for<'a>(bench: &'a Bench, opts: &RxlOptions, ep: &RxlEndpointBlock) -> Result<Option<&'a RxlSwitchBlock>, CampaignError> {
    match &opts.switch {
        Some(name) => Ok(Some(bench.block::<RxlSwitchBlock>(name)?)),
        None => Ok(bench.blocks::<RxlSwitchBlock>().into_iter().find(|s| s.fec == ep.fec)),
    }
}

/// Runs the units of `shard` (all of them with [`Shard::ALL`]). Blocks must be of kind
/// `rxl_endpoint` (and `rxl_switch`); a missing or wrong block is a [`crate::SimError`] naming
/// it and the kind needed.
pub fn run(bench: &Bench, opts: &RxlOptions, shard: Shard, progress: &mut Progress) -> Result<RxlResults, CampaignError> {
    opts.check()?;
    let units = opts.units();
    let mut records = Vec::new();
    for u in units.iter().filter(|u| shard.owns(u.index)) {
        let ep = bench.block::<RxlEndpointBlock>(&u.endpoint)?;
        let sw = if u.switches > 0 { switch_for(bench, opts, ep)? } else { None };
        if u.switches > 0 && sw.is_none() {
            return Err(CampaignError::Config(format!("{} switch levels need an rxl_switch block with the FEC layout of endpoint `{}`; the design has none", u.switches, ep.name)));
        }
        let mut cfg = CampaignConfig::new(ep.mode, u.switches, opts.segment_flits(u.segment));
        cfg.endpoint = ep.params.clone();
        cfg.faults = opts.faults;
        cfg.internal = opts.internal;
        if let Some(retry_loop) = opts.retry_loop {
            cfg.retry_loop = retry_loop;
        }
        cfg.seed = opts.segment_seed(u.segment);
        let test = format!("rxl_campaign_{}_{}", ep.name, u.switches);
        let nodes = match opts.implementation {
            Impl::Model => Nodes::models(&cfg.endpoint, u.switches),
            imp => {
                progress.note(&format!("building/loading the Verilated modules of `{}`{}…", ep.name, sw.map(|s| format!(" and `{}`", s.name)).unwrap_or_default()));
                let check = if imp == Impl::Lockstep { Check::Lockstep(Stop::First) } else { Check::RtlOnly };
                rtl_nodes(bench, bench.module(&ep.name, Role::Endpoint)?, sw, u.switches, check, &Default::default(), &test)?
            }
        };
        let label = format!("{} {} sw{}", ep.mode_name(), u.switches, if opts.segments > 1 { format!(" seg {}", u.segment) } else { String::new() });
        progress.start(&label, cfg.traffic_cycles + cfg.drain_cycles, "cycles");
        let report = run_config(&cfg, nodes, &mut |c, _| progress.set(c))?;
        progress.finish(report.cycles);
        let mut rec = report.record();
        rec.unit = u.index;
        rec.endpoint = ep.name.clone();
        records.push(rec);
    }
    Ok(RxlResults { options: opts.clone(), shard, units: units.len(), records })
}

/// What a campaign or one shard of it measured: one record per work unit it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RxlResults {
    pub options: RxlOptions,
    pub shard: Shard,
    /// Work units of the whole campaign.
    pub units: usize,
    /// One per unit run, in unit order.
    pub records: Vec<RxlRecord>,
}

impl RxlResults {
    /// The shards of one campaign (same options, every shard once) as the single run.
    pub fn merge(parts: Vec<RxlResults>) -> Result<RxlResults, CampaignError> {
        let parts = parts.into_iter().map(|p| (p.shard, (p.options, p.units), p.records)).collect();
        let ((options, units), records) = shard::merge_units(parts, |c| Some(c.1), |r: &RxlRecord| r.unit)?;
        Ok(RxlResults { options, shard: Shard::ALL, units, records })
    }

    /// One row per (endpoint, topology): its segments summed, in unit order.
    pub fn rows(&self) -> Vec<RxlRecord> {
        let mut rows: Vec<RxlRecord> = Vec::new();
        for r in &self.records {
            match rows.iter_mut().find(|x| x.endpoint == r.endpoint && x.switches == r.switches) {
                Some(x) => x.add(r),
                None => rows.push(r.clone()),
            }
        }
        rows
    }

    /// The campaign table and the Eq. 7 / Eq. 11–14 summary (Markdown).
    pub fn report(&self) -> String {
        let rows = self.rows();
        let mut s = String::new();
        if !self.shard.is_all() {
            s.push_str(&format!("shard {} of the campaign: {} of {} work units\n\n", self.shard, self.records.len(), self.units));
        }
        s.push_str(&rxl_table(&rows));
        s.push('\n');
        s.push_str(&rxl_summary(&rows));
        s
    }
}
