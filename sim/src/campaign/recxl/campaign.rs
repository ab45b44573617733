//! Random-crash campaigns and the figures of contract §5.4.
//!
//! A campaign is a list of work units (geometry × variant × trial), each a [`System`] trial with a
//! random node crashing at a random time, its seed a function of the campaign seed and the unit
//! only ([`unit_seed`]), so `--shard K/N` runs and merges exactly like the other campaigns. Every
//! trial's scoreboards S1–S8 must hold; the records keep the counts the figures are made from.

use super::node::LuNode;
use super::system::{Crash, SysOptions, System, Trial, Variant};
use crate::campaign::progress::Progress;
use crate::campaign::shard::{merge_units, unit_seed, Shard};
use crate::campaign::CampaignError;
use rtl_gen::blocks::recxl_logging_unit::model::{LuInputs, LoggingUnitModel};
use rtl_gen::blocks::recxl_logging_unit::RecxlLoggingUnitBlock;
use rtl_gen::bits::Bits;
use rtl_gen::blocks::recxl_replica_map::model::NodeMask;
use rtl_gen::config::Design;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One system geometry: N nodes, C cores, R replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    pub n: u32,
    pub c: u32,
    pub r: u32,
}

/// Options of a campaign (plain struct; the CLI fills it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecxlOptions {
    pub geometries: Vec<Geometry>,
    pub variants: Vec<Variant>,
    /// Random crashes per geometry and variant.
    pub trials: usize,
    pub seed: u64,
    /// Cycles of traffic per trial (the crash falls in [warmup, cycles)).
    pub cycles: u64,
    pub dump_period: u64,
    pub store_rate: f64,
    /// Logging-unit fields besides the geometry (TOML lines, e.g. `free_lag = 0`).
    pub lu_extra: String,
}

impl Default for RecxlOptions {
    fn default() -> Self {
        RecxlOptions {
            geometries: vec![Geometry { n: 4, c: 2, r: 2 }, Geometry { n: 6, c: 2, r: 3 }],
            variants: Variant::RECXL.to_vec(),
            trials: 10,
            seed: 1,
            cycles: 6_000,
            dump_period: 2_000,
            store_rate: 0.02,
            lu_extra: String::new(),
        }
    }
}

/// SRAM rows of the campaign's logging units (small, so that heavy load exhausts them and NACKs).
pub const SYSTEM_SRAM_ROWS: u64 = 32;

/// The logging unit of a system geometry: small SRAM and log so that the campaign exercises
/// wraps, NACKs and dumps, `head_reserve = N·C` (H4's deadlock-freedom bound).
pub fn lu_block(g: Geometry, extra: &str) -> Result<RecxlLoggingUnitBlock, CampaignError> {
    let text = format!(
        "[design]\nname = \"recxl_sys\"\n[[blocks]]\nkind = \"recxl_logging_unit\"\nname = \"lu\"\nnum_nodes = {}\ncores_per_node = {}\nreplicas = {}\naddr_bits = 32\nts_bits = 8\nsram_rows = {SYSTEM_SRAM_ROWS}\nhead_reserve = {}\nlog_bytes = 65536\nfetch_queries = 8\ncounter_bits = 32\n{extra}\n",
        g.n,
        g.c,
        g.r,
        (g.n * g.c).min(32)
    );
    let d = Design::parse(&text, "recxl system").map_err(|e| CampaignError::Config(format!("recxl system logging unit: {e}")))?;
    Ok(d.blocks[0].as_any().downcast_ref::<RecxlLoggingUnitBlock>().expect("a recxl_logging_unit").clone())
}

/// Model logging units for every node.
pub fn models(b: &RecxlLoggingUnitBlock) -> Vec<Box<dyn LuNode>> {
    (0..b.n()).map(|_| Box::new(b.model()) as Box<dyn LuNode>).collect()
}

/// One trial's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    pub unit: usize,
    pub geometry: Geometry,
    pub variant: Variant,
    pub seed: u64,
    pub trial: Trial,
}

/// A campaign's (or shard's) results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecxlResults {
    pub options: RecxlOptions,
    pub shard: Shard,
    pub records: Vec<TrialRecord>,
}

/// The work units: (geometry, variant, trial) in a fixed order.
fn units(o: &RecxlOptions) -> Vec<(Geometry, Variant, usize)> {
    let mut v = Vec::new();
    for g in &o.geometries {
        for var in &o.variants {
            for t in 0..o.trials {
                v.push((*g, *var, t));
            }
        }
    }
    v
}

/// Runs the units of `shard`.
pub fn run(o: &RecxlOptions, shard: Shard, progress: &mut Progress) -> Result<RecxlResults, CampaignError> {
    let all = units(o);
    let mine = shard.units(all.len());
    let mut records = Vec::new();
    progress.start("recxl trials", mine.len() as u64, "trials");
    for (i, u) in mine.iter().enumerate() {
        let (g, variant, _) = all[*u];
        let b = lu_block(g, &o.lu_extra)?;
        let seed = unit_seed(o.seed, *u);
        let so = SysOptions { variant, seed, cycles: o.cycles, dump_period: o.dump_period, store_rate: o.store_rate, crash: Crash::Random, ..SysOptions::default() };
        let trial = System::new(&b, &so, models(&b))?.run()?;
        progress.set((i + 1) as u64);
        records.push(TrialRecord { unit: *u, geometry: g, variant, seed, trial });
    }
    progress.finish(mine.len() as u64);
    Ok(RecxlResults { options: o.clone(), shard, records })
}

impl RecxlResults {
    /// Merges the shards of one campaign into the single run's records.
    pub fn merge(parts: Vec<RecxlResults>) -> Result<RecxlResults, CampaignError> {
        let parts = parts.into_iter().map(|p| (p.shard, p.options, p.records)).collect();
        let (options, records) = merge_units(parts, |_| None, |r: &TrialRecord| r.unit)?;
        Ok(RecxlResults { options, shard: Shard::ALL, records })
    }

    /// Trials whose scoreboards failed.
    pub fn failures(&self) -> Vec<&TrialRecord> {
        self.records.iter().filter(|r| !r.trial.ok()).collect()
    }

    /// Markdown: one row per geometry and variant.
    pub fn report(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "ReCXL system campaign: {} trials (seed {}), each a random fail-stop crash, scoreboards S1–S8\n", self.records.len(), self.options.seed);
        let _ = writeln!(s, "| N | C | R | variant | trials | failed | commits | owned lines recovered | words from logs / dumps | partial stores applied | recovery cycles (mean) | msgs per replicated store | NACK retries | row HWM | ambiguous VALs | undecidable merges |");
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for g in &self.options.geometries {
            for v in &self.options.variants {
                let rs: Vec<&Trial> = self.records.iter().filter(|r| r.geometry == *g && r.variant == *v).map(|r| &r.trial).collect();
                if rs.is_empty() {
                    continue;
                }
                let sum = |f: &dyn Fn(&Trial) -> u64| rs.iter().map(|t| f(t)).sum::<u64>();
                let failed = rs.iter().filter(|t| !t.ok()).count();
                let rec: Vec<u64> = rs.iter().filter(|t| t.recovery_cycles > 0).map(|t| t.recovery_cycles).collect();
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} of {} | {:.0} | {:.2} | {} | {} | {} | {} |",
                    g.n,
                    g.c,
                    g.r,
                    v.name(),
                    rs.len(),
                    failed,
                    sum(&|t| t.commits),
                    sum(&|t| t.owned_lines),
                    sum(&|t| t.words_from_logs),
                    sum(&|t| t.words_from_dumps),
                    sum(&|t| t.partial_applied as u64),
                    sum(&|t| t.partial as u64),
                    rec.iter().sum::<u64>() as f64 / rec.len().max(1) as f64,
                    sum(&|t| t.repl_msgs) as f64 / sum(&|t| t.repl_stores).max(1) as f64,
                    sum(&|t| t.nack_retries),
                    rs.iter().map(|t| t.row_hwm).max().unwrap_or(0),
                    sum(&|t| t.ambiguous),
                    sum(&|t| t.undecidable),
                );
            }
        }
        let all = |f: &dyn Fn(&Trial) -> u64| self.records.iter().map(|r| f(&r.trial)).sum::<u64>();
        let _ = writeln!(
            s,
            "\nCoherence over all trials: {} loads (GetS), {} S grants, {} invalidations, {} silent S evictions, {} M writebacks; the failed CN was a sharer of {} lines at InitRecov (S2 removed it).",
            all(&|t| t.loads),
            all(&|t| t.shared_grants),
            all(&|t| t.invalidations),
            all(&|t| t.clean_evictions),
            all(&|t| t.writebacks),
            all(&|t| t.failed_shared_lines),
        );
        for f in self.failures().iter().take(5) {
            let _ = writeln!(s, "\nFAILED unit {} (N={} R={} {} seed {:#x}): {:?}", f.unit, f.geometry.n, f.geometry.r, f.variant.name(), f.seed, f.trial.violations);
        }
        s
    }

    pub fn csv(&self) -> String {
        let mut s = String::from("unit,n,c,r,variant,seed,ok,commits,crashed,crash_cycle,owned_lines,words_from_logs,words_from_dumps,partial,partial_applied,recovery_cycles,repl_stores,repl_msgs,nack_retries,row_hwm,log_hwm,ambiguous,undecidable,violations\n");
        for r in &self.records {
            let t = &r.trial;
            let _ = writeln!(
                s,
                "{},{},{},{},{},{:#x},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.unit,
                r.geometry.n,
                r.geometry.c,
                r.geometry.r,
                r.variant.name(),
                r.seed,
                t.ok(),
                t.commits,
                t.crashed.map(|c| c.to_string()).unwrap_or_default(),
                t.crash_cycle,
                t.owned_lines,
                t.words_from_logs,
                t.words_from_dumps,
                t.partial,
                t.partial_applied,
                t.recovery_cycles,
                t.repl_stores,
                t.repl_msgs,
                t.nack_retries,
                t.row_hwm,
                t.log_hwm,
                t.ambiguous,
                t.undecidable,
                t.violations.len()
            );
        }
        s
    }
}

// ---- figures (contract §5.4) ------------------------------------------------------------------

/// A no-crash trial of geometry `g` with the given options changed.
pub fn steady(g: Geometry, extra: &str, so: SysOptions) -> Result<Trial, CampaignError> {
    let b = lu_block(g, extra)?;
    System::new(&b, &SysOptions { crash: Crash::None, ..so }, models(&b))?.run()
}

/// Replication messages and field bits per replicated store vs R (N = 6): the 3·R rule.
pub fn traffic_vs_r(seed: u64) -> Result<String, CampaignError> {
    let mut s = String::from("| R | replicated stores | messages per store | 3·R | field bytes per store (1-word store) | coherence messages per store |\n|---|---|---|---|---|---|\n");
    for r in [2u32, 3, 4] {
        let g = Geometry { n: 6, c: 2, r };
        let t = steady(g, "", SysOptions { variant: Variant::Proactive, seed, max_words: 1, cycles: 4_000, ..SysOptions::default() })?;
        let _ = writeln!(s, "| {r} | {} | {:.3} | {} | {:.1} | {:.2} |", t.repl_stores, t.repl_msgs as f64 / t.repl_stores.max(1) as f64, 3 * r, t.repl_bits as f64 / 8.0 / t.repl_stores.max(1) as f64, t.coh_msgs as f64 / t.commits.max(1) as f64);
    }
    Ok(s)
}

/// SRAM row high-water mark vs store rate and variant (N = 4, C = 2, R = 2; 64-byte rows):
/// `(stores per core per cycle, variant, rows)`.
pub fn rows_vs_load_points(seed: u64) -> Result<Vec<(f64, Variant, u64)>, CampaignError> {
    let mut out = Vec::new();
    for rate in [0.005, 0.02, 0.05] {
        for v in Variant::RECXL {
            let t = steady(Geometry { n: 4, c: 2, r: 2 }, "", SysOptions { variant: v, seed, store_rate: rate, sb_cap: 16, cycles: 5_000, ..SysOptions::default() })?;
            out.push((rate, v, t.row_hwm));
        }
    }
    Ok(out)
}

/// [`rows_vs_load_points`] as a table.
pub fn rows_vs_load_table(points: &[(f64, Variant, u64)]) -> String {
    let mut s = String::from("| stores per core per cycle (500 MHz) | variant | row high-water mark | bytes of line data (64 B/row) | within 4 KB (64 rows)? |\n|---|---|---|---|---|\n");
    for &(rate, v, rows) in points {
        let _ = writeln!(s, "| {rate} | {} | {rows} | {} | {} |", v.name(), 64 * rows, if rows <= 64 { "yes" } else { "no" });
    }
    s
}

/// [`rows_vs_load_points`] as a plot: one line per variant, the paper's 4 KB (64 rows) dashed.
pub fn rows_vs_load_svg(points: &[(f64, Variant, u64)], title: &str) -> String {
    use crate::plot::{Axis, Panel, Plot, Scale, Series, Style};
    let mut series: Vec<Series> = Vec::new();
    for &(rate, v, rows) in points {
        match series.iter_mut().find(|s| s.name == v.name()) {
            Some(s) => s.points.push((rate, rows as f64)),
            None => series.push(Series::new(v.name(), vec![(rate, rows as f64)], Style::Line)),
        }
    }
    let rates: Vec<f64> = points.iter().map(|p| p.0).collect();
    let x = Scale::linear_fit(&rates);
    let (lo, hi) = match x {
        Scale::Linear { min, max, .. } => (min, max),
        Scale::Log { .. } => (0.0, 1.0),
    };
    let rows_of_unit = SYSTEM_SRAM_ROWS as f64;
    series.push(Series::new(format!("the simulated unit's {SYSTEM_SRAM_ROWS} rows"), vec![(lo, rows_of_unit), (hi, rows_of_unit)], Style::Curve));
    series.push(Series::new("4 KB of 64-byte rows (paper)", vec![(lo, 64.0), (hi, 64.0)], Style::Curve));
    let rows: Vec<f64> = points.iter().map(|p| p.2 as f64).chain([64.0]).collect();
    Plot {
        title: title.into(),
        x: Axis { label: "stores per core per cycle (2 ns cycles)".into(), scale: x },
        panels: vec![Panel { y: Axis { label: "row high-water mark (64-byte rows)".into(), scale: Scale::linear_fit(&rows) }, series }],
    }
    .svg()
}

/// DRAM log high-water mark vs dump period (Fig. 13's method), with the derived expectation
/// rate × ((1 + free_lag)·P + D).
pub fn log_vs_period(seed: u64) -> Result<String, CampaignError> {
    let mut s = String::from("| dump period (cycles) | records logged per unit per cycle | log high-water mark (records) | rate × 2P (free_lag = 1) |\n|---|---|---|---|\n");
    for p in [1_000u64, 2_000, 4_000] {
        let t = steady(Geometry { n: 4, c: 2, r: 2 }, "", SysOptions { variant: Variant::Proactive, seed, dump_period: p, cycles: 16_000, ..SysOptions::default() })?;
        let words: u64 = t.records_logged;
        let rate = words as f64 / 4.0 / t.cycles as f64;
        let _ = writeln!(s, "| {p} | {rate:.4} | {} | {:.0} |", t.log_hwm, rate * 2.0 * p as f64);
    }
    Ok(s)
}

/// Dump bandwidth per unit, raw and ÷ 5.8 (gzip 9 of §IV-E), at 500 MHz.
pub fn dump_bandwidth(seed: u64) -> Result<String, CampaignError> {
    let mut s = String::from("| stores per core per cycle | beats dumped per unit | cycles | raw dump GB/s per unit | ÷ 5.8 | paper: < 5 GB/s (whole system, Fig. 14) |\n|---|---|---|---|---|---|\n");
    for rate in [0.02, 0.05] {
        let t = steady(Geometry { n: 4, c: 2, r: 2 }, "", SysOptions { variant: Variant::Proactive, seed, store_rate: rate, sb_cap: 16, cycles: 12_000, ..SysOptions::default() })?;
        let per = t.dump_beats as f64 / 4.0;
        let gbs = per * 64.0 / (t.cycles as f64 * 2e-9) / 1e9;
        let _ = writeln!(s, "| {rate} | {per:.0} | {} | {gbs:.3} | {:.3} | system of 4 units: raw {:.2}, ÷ 5.8 {:.2} |", t.cycles, gbs / 5.8, 4.0 * gbs, 4.0 * gbs / 5.8);
    }
    Ok(s)
}

/// Store-drain proxy (NOT execution time): cycles for every core to drain its stores, normalised
/// to WB, per configuration; the prefetch-hit case makes parallel ≈ baseline.
pub fn drain_proxy(seed: u64) -> Result<String, CampaignError> {
    let mut s = String::from("| configuration | cycles per store (mean SB wait) | normalised to WB |\n|---|---|---|\n");
    let mut rows = Vec::new();
    for v in [Variant::Wt, Variant::Baseline, Variant::Parallel, Variant::Proactive, Variant::Wb] {
        let t = steady(Geometry { n: 4, c: 2, r: 2 }, "", SysOptions { variant: v, seed, store_rate: 0.05, sb_cap: 16, lines: 64, load_rate: 0.0, cycles: 6_000, dump_period: 0, ..SysOptions::default() })?;
        rows.push((v, t.store_wait_cycles as f64 / t.commits.max(1) as f64));
    }
    let wb = rows.iter().find(|r| r.0 == Variant::Wb).map(|r| r.1).unwrap_or(1.0);
    for (v, c) in rows {
        let _ = writeln!(s, "| {} | {c:.1} | {:.2} |", v.name(), c / wb);
    }
    Ok(s)
}

/// Cycles one logging unit (the model) needs for FetchLatestVers over `queries` lines when its
/// log holds `records` records, in batches of the block's `fetch_queries`: the whole traversal
/// is run for the first batch and every batch traverses the same log, so the total is exact
/// batches × that.
pub fn fetch_cycles(b: &RecxlLoggingUnitBlock, records: u64, queries: u64) -> (u64, u64) {
    let mut m: LoggingUnitModel = b.model();
    let lr = b.lr();
    let records = records.min(lr);
    let mut log = vec![Bits::zeros(b.rec() as usize); lr as usize];
    let mut inp = idle(b);
    // Fill: one-word REPLs from node 1 with their VALs.
    let mut ts = 0u32;
    let mut filled = 0u64;
    let mut guard = 0;
    let mut sent = 0u64;
    while filled < records && guard < 20 * records + 1000 {
        guard += 1;
        let mut i = inp.clone();
        let o = m.outputs(&i);
        if sent < records && o.repl_ready && m.rows_used() < b.sram_rows / 2 {
            i.repl_valid = true;
            i.repl_node = 1;
            i.repl_line = 1 + sent % 997;
            i.repl_mask = 1;
            i.repl_at_head = true;
            i.repl_tag = (sent as u32) & ((1u32 << b.tag_bits) - 1);
            sent += 1;
        }
        // Validate the oldest pending row.
        if let Some(r) = m.rows.iter().find(|r| r.state == rtl_gen::blocks::recxl_logging_unit::model::PENDING) {
            ts = ts.wrapping_add(1) & ((1 << b.ts_bits) - 1);
            i.val_valid = true;
            i.val_node = r.node;
            i.val_core = r.core;
            i.val_tag = r.tag;
            i.val_line = r.line;
            i.val_ts = ts;
        }
        if o.logw_valid {
            log[o.logw_idx as usize] = o.logw_data.clone();
            filled += 1;
        }
        m.tick(&i);
    }
    // Quiesce, then one batch.
    inp.quiesce = true;
    let q = b.fetch_queries as u64;
    let mut loaded = 0u64;
    let mut read: Option<(u64, Bits)> = None;
    let mut cycles = 0u64;
    loop {
        let mut i = inp.clone();
        if let Some((t, d)) = &read {
            if *t <= cycles {
                i.logr_rsp_valid = true;
                i.logr_rsp_data = d.clone();
            }
        }
        if loaded < q {
            i.fq_valid = true;
            i.fq_line = 1 + loaded % 997;
            i.fq_last = loaded + 1 == q;
        }
        i.logr_req_ready = read.is_none();
        let o = m.outputs(&i);
        if i.fq_valid && o.fq_ready {
            loaded += 1;
        }
        if i.logr_rsp_valid && o.logr_rsp_ready {
            read = None;
        }
        if o.logr_req_valid && i.logr_req_ready {
            read = Some((cycles + 2, log[o.logr_req_idx as usize].clone()));
        }
        let done = o.fr_valid && o.fr_last;
        m.tick(&i);
        cycles += 1;
        if done || cycles > 100 * records + 10_000 {
            break;
        }
    }
    let batches = queries.div_ceil(q);
    (cycles, batches * cycles)
}

fn idle(b: &RecxlLoggingUnitBlock) -> LuInputs {
    LuInputs {
        node_id: 0,
        failed: NodeMask::empty(),
        dump_base: 1 << 20,
        dump_limit: 1 << 21,
        dump_start: false,
        dump_commit: false,
        quiesce: false,
        stat_sel: 0,
        repl_valid: false,
        repl_node: 0,
        repl_core: 0,
        repl_tag: 0,
        repl_at_head: false,
        repl_line: 0,
        repl_mask: 0,
        repl_data: Bits::zeros(b.lw() as usize),
        ack_ready: true,
        val_valid: false,
        val_node: 0,
        val_core: 0,
        val_tag: 0,
        val_line: 0,
        val_ts: 0,
        val_csn: 0,
        logw_ready: true,
        logr_req_ready: true,
        logr_rsp_valid: false,
        logr_rsp_data: Bits::zeros(b.rec() as usize),
        dump_wr_ready: true,
        fq_valid: false,
        fq_line: 0,
        fq_last: false,
        fr_ready: true,
    }
}

/// Recovery time for the Fig. 15 sizes (30K, 100K, 163K owned lines), N = 16, R = 3: each owned
/// line is queried at its R − 1 live members; the failed node's lines have their groups among
/// the 2(R − 1) nodes around it, so one unit answers about lines·(R − 1)/(2(R − 1)) = lines/2
/// queries; the units work in parallel. Message hops of Table I add 7 × (L_min + J/2).
pub fn recovery_time(log_records: &[u64], fetch_queries: &[u32]) -> Result<String, CampaignError> {
    let mut s = String::from("| owned lines | log records per unit | fetch_queries | cycles per batch (measured, model) | batches per unit | recovery time |\n|---|---|---|---|---|---|\n");
    for &fq in fetch_queries {
        for &recs in log_records {
            let log_bytes = (recs * 16).next_power_of_two().max(65536);
            let g = Geometry { n: 16, c: 4, r: 3 };
            let b = lu_block_custom(g, fq, log_bytes)?;
            let (per, _) = fetch_cycles(&b, recs, fq as u64);
            for lines in [30_000u64, 100_000, 163_000] {
                let q = lines / 2;
                let batches = q.div_ceil(fq as u64);
                let cycles = batches * per + 7 * 70;
                let _ = writeln!(s, "| {lines} | {recs} | {fq} | {per} | {batches} | {} cycles = {:.2} ms |", cycles, cycles as f64 * 2e-6);
            }
        }
    }
    Ok(s)
}

fn lu_block_custom(g: Geometry, fq: u32, log_bytes: u64) -> Result<RecxlLoggingUnitBlock, CampaignError> {
    let text = format!(
        "[design]\nname = \"recxl_rec\"\n[[blocks]]\nkind = \"recxl_logging_unit\"\nname = \"lu\"\nnum_nodes = {}\ncores_per_node = {}\nreplicas = {}\naddr_bits = 32\nts_bits = 16\nsram_rows = 128\nlog_bytes = {log_bytes}\nfetch_queries = {fq}\n",
        g.n, g.c, g.r
    );
    let d = Design::parse(&text, "recxl recovery").map_err(|e| CampaignError::Config(format!("recxl recovery logging unit: {e}")))?;
    Ok(d.blocks[0].as_any().downcast_ref::<RecxlLoggingUnitBlock>().expect("a recxl_logging_unit").clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One line per variant in the order met, the 64-row level dashed, the axes labelled.
    #[test]
    fn rows_vs_load_svg_draws_one_line_per_variant() {
        let pts = [(0.01, Variant::Baseline, 5), (0.05, Variant::Baseline, 10), (0.01, Variant::Proactive, 20), (0.05, Variant::Proactive, 40)];
        let s = rows_vs_load_svg(&pts, "rows");
        // x 0..0.05 (step 0.01) over 90..640, y 0..70 (step 10) over 305..55.
        assert!(s.contains(r#"points="200.0,287.1 640.0,269.3""#), "{s}");
        assert!(s.contains(r#"points="200.0,233.6 640.0,162.1""#), "{s}");
        assert!(s.contains(r#"stroke-dasharray="6 4" points="90.0,76.4 640.0,76.4""#), "{s}");
        assert!(s.contains(r#"stroke-dasharray="6 4" points="90.0,190.7 640.0,190.7""#), "{s}");
        assert_eq!(s.matches("<circle").count(), 4 + 2);
        for l in [">baseline<", ">proactive<", "4 KB of 64-byte rows (paper)", "row high-water mark (64-byte rows)", "stores per core per cycle (2 ns cycles)"] {
            assert!(s.contains(l), "{l}");
        }
        let t = rows_vs_load_table(&pts);
        assert!(t.contains("| 0.05 | proactive | 40 | 2560 | yes |"), "{t}");
    }
}
