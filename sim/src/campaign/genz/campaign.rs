//! The Gen-Z LLR campaign behind `rtl-gen sim genz --figures`: two interfaces (Verilated RTL,
//! each in lockstep with its model, or the models alone) on the shared [`super::run_link`] link,
//! as a fixed list of work units sharded and merged like the RXL and RIFL campaigns
//! ([`crate::campaign::shard`], [`crate::results::ResultFile::Genz`]):
//!
//! - **faults** (per cable): random EE traffic on both VCs, backpressure on every stream, random
//!   bit errors (data and the link-local marker), bursts, dropped beats (reported as
//!   `phy_error`), link-local packets lost without a trace, link-down periods and the retrains
//!   the interfaces request; the scoreboard
//!   (every EE packet exactly once, in order per VC, bit exact) across all of them;
//! - **init** (per cable, with and without the first LLR Init ACK corrupted): cycles from
//!   `phy_up` to the first EE packet delivered at each end;
//! - **goodput** (per packet size × cable × BER, BER 0 included): saturating fixed-size EE
//!   packets both ways, random bit errors only; goodput = EE bytes delivered per cycle over both
//!   directions ÷ (2 × `data_bytes`) in the window after Init, recovery time per error, and
//!   retry-buffer occupancy (every BER-0 point, and further cable lengths at BER 0).
//!
//! Every unit's randomness is the campaign seed and the unit number ([`shard::unit_seed`]).
//! The block is [`FIGURES_DESIGN`]'s `genz_fig` (256-byte slots, credits and retry slots for a
//! 100 m cable), not the default design's small interface (32-byte packets, 16 slots).

use crate::link::channel::Faults;
use crate::link::genz::{run_link, Beat, Fate, LinkOptions, LinkReport};
use crate::campaign::progress::Progress;
use crate::campaign::shard::{self, Shard};
use crate::campaign::CampaignError;
use crate::Bench;
use rtl_gen::blocks::genz_llr::model::*;
use rtl_gen::blocks::genz_llr::GenzLlrBlock;
use rtl_gen::hw::module::Role;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::time::Instant;

/// The interface the figures are measured on: 8-byte beats (64 bits per cycle: 64 Gb/s at the
/// default 1 ns cycle, `ui_per_cycle` = 64 so the seed's timers are 128 cycles for Init and
/// Discard and 16,384 cycles for the LLR timer), packets up to 256 bytes, 2 VCs of 255 credits
/// and 255 retry slots: a 100 m cable (≈1,000-cycle round trip) stays busy with 64-byte packets.
pub const FIGURES_DESIGN: &str = r#"[design]
name = "genz_figures"

[[blocks]]
kind = "genz_llr"
name = "genz_fig"
data_bytes = 8
max_packet_bytes = 256
vcs = 2
rx_credits = 255
retry_packets = 255
retry_bytes = 65280
ui_per_cycle = 64
ack_every = 16
counter_bits = 32
"#;
pub const FIGURES_BLOCK: &str = "genz_fig";

/// Model alone, or the Verilated RTL of both ends with the models in lockstep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenzImpl {
    Rtl,
    Model,
}

/// The campaign's options (plain data; the CLI fills them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenzOptions {
    pub implementation: GenzImpl,
    /// EE packet sizes of the goodput sweep (bytes, multiples of 8, at most 256).
    pub sizes: Vec<u32>,
    /// Cables of the fault, Init and goodput units (metres, 5 ns/m one way).
    pub cables_m: Vec<f64>,
    /// Further cables measured at BER 0 for the retry-buffer occupancy.
    pub occupancy_cables_m: Vec<f64>,
    /// BERs of the goodput sweep (BER 0 always runs too).
    pub bers: Vec<f64>,
    /// Traffic cycles per goodput unit (then the link drains with the faults off).
    pub cycles: u64,
    /// Traffic cycles per fault unit.
    pub fault_cycles: u64,
    /// Clock period in ns (channel delay = ⌈cable × 5 / cycle_ns⌉ cycles).
    pub cycle_ns: f64,
    pub seed: u64,
}

/// 1e-12 … 1e-5 in steps of 10^0.25 (29 points).
pub fn default_bers() -> Vec<f64> {
    (0..=28).map(|k| 10f64.powf(-12.0 + 0.25 * k as f64)).collect()
}

impl Default for GenzOptions {
    fn default() -> GenzOptions {
        GenzOptions {
            implementation: GenzImpl::Rtl,
            sizes: vec![64, 256],
            cables_m: vec![10.0, 100.0],
            occupancy_cables_m: vec![1.0, 2.0, 5.0, 20.0, 50.0],
            bers: default_bers(),
            cycles: 100_000,
            fault_cycles: 50_000,
            cycle_ns: 1.0,
            seed: 12,
        }
    }
}

/// One work unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Unit {
    Faults { cable_m: f64 },
    Init { cable_m: f64, lost_init_ack: bool },
    Goodput { size: u32, cable_m: f64, ber: f64 },
}

impl Unit {
    pub fn cable_m(&self) -> f64 {
        match *self {
            Unit::Faults { cable_m } | Unit::Init { cable_m, .. } | Unit::Goodput { cable_m, .. } => cable_m,
        }
    }
}

/// The units of a campaign, in unit order.
pub fn units(o: &GenzOptions) -> Vec<Unit> {
    let mut u = Vec::new();
    for &c in &o.cables_m {
        u.push(Unit::Faults { cable_m: c });
        u.push(Unit::Init { cable_m: c, lost_init_ack: false });
        u.push(Unit::Init { cable_m: c, lost_init_ack: true });
    }
    for &size in &o.sizes {
        for &c in &o.cables_m {
            for ber in std::iter::once(0.0).chain(o.bers.iter().copied()) {
                u.push(Unit::Goodput { size, cable_m: c, ber });
            }
        }
        for &c in o.occupancy_cables_m.iter().filter(|c| !o.cables_m.contains(c)) {
            u.push(Unit::Goodput { size, cable_m: c, ber: 0.0 });
        }
    }
    u
}

/// What one unit measured (counts, so records merge exactly).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenzRecord {
    pub unit: usize,
    pub test: Unit,
    /// One-way channel delay in cycles.
    pub delay: u64,
    pub cycles: u64,
    /// Cycles of the measurement window (goodput, occupancy, recoveries).
    pub window_cycles: u64,
    /// EE packets accepted / delivered, both ends.
    pub sent: u64,
    pub delivered: u64,
    /// Scoreboard: delivered out of order, duplicated or corrupted; never delivered.
    pub errors: u64,
    pub missing: u64,
    pub window_bytes: u64,
    pub bit_errors: u64,
    pub beats_hit: u64,
    pub bursts: u64,
    pub drops: u64,
    pub down_periods: u64,
    pub retrains: u64,
    /// Both ends' counters (port order of [`COUNTERS`]).
    pub counters: [[u64; 13]; 2],
    /// Recovery times in cycles (Discard → first delivery after Exit Discard).
    pub recoveries: Vec<u64>,
    pub occupancy_sum: u64,
    pub occupancy_max: u64,
    /// Of the occupancy, packets sent and not yet acknowledged (absent in older result files).
    #[serde(default)]
    pub in_flight_sum: u64,
    #[serde(default)]
    pub in_flight_max: u64,
    pub first_delivery: [Option<u64>; 2],
    /// RTL/model output differences (0 for the model).
    pub mismatches: u64,
    pub first_mismatch: Option<String>,
}

impl GenzRecord {
    /// Exactly once, in order, bit exact, and RTL = model.
    pub fn clean(&self) -> bool {
        self.errors == 0 && self.missing == 0 && self.mismatches == 0
    }
    /// EE bytes per cycle over both directions ÷ (2 × data_bytes).
    pub fn goodput(&self, data_bytes: u32) -> f64 {
        self.window_bytes as f64 / (2.0 * data_bytes as f64 * self.window_cycles.max(1) as f64)
    }
    /// Mean unacknowledged packets per end.
    pub fn occupancy_mean(&self) -> f64 {
        self.occupancy_sum as f64 / (2.0 * self.window_cycles.max(1) as f64)
    }
    /// Mean sent-and-unacknowledged packets per end.
    pub fn in_flight_mean(&self) -> f64 {
        self.in_flight_sum as f64 / (2.0 * self.window_cycles.max(1) as f64)
    }
    pub fn sum(&self, c: usize) -> u64 {
        self.counters[0][c] + self.counters[1][c]
    }
}

/// The block's parameters as the results record them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenzParams {
    pub block: String,
    pub data_bytes: u32,
    pub max_packet_bytes: u32,
    pub vcs: u32,
    pub rx_credits: u32,
    pub slots: u32,
    pub init_cycles: u32,
    pub discard_cycles: u32,
    pub llrt_cycles: u32,
}

/// A campaign or one shard of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenzResults {
    pub options: GenzOptions,
    pub params: GenzParams,
    pub shard: Shard,
    pub units: usize,
    /// In unit order.
    pub records: Vec<GenzRecord>,
}

/// The figures design generated (under target/bench/) and opened.
pub fn figures_bench() -> Result<Bench, CampaignError> {
    Ok(Bench::from_toml(FIGURES_DESIGN, "genz figures design")?)
}

/// Options that cannot run, named with what is allowed.
pub fn check(o: &GenzOptions, cfg: &LlrConfig) -> Result<(), CampaignError> {
    let bad = |m: String| Err(CampaignError::Config(m));
    if let Some(s) = o.sizes.iter().find(|&&s| s < 8 || s % cfg.data_bytes != 0 || s > cfg.max_packet_bytes) {
        return bad(format!("packet size {s}: allowed multiples of {} in 8..={}", cfg.data_bytes, cfg.max_packet_bytes));
    }
    if let Some(c) = o.cables_m.iter().chain(&o.occupancy_cables_m).find(|c| !(c.is_finite() && **c >= 0.0 && **c <= 10_000.0)) {
        return bad(format!("cable {c} m: allowed 0..=10000 m"));
    }
    if let Some(b) = o.bers.iter().find(|b| !(**b > 0.0 && **b < 1.0)) {
        return bad(format!("BER {b}: allowed 0 < BER < 1 (BER 0 always runs)"));
    }
    if !(o.cycle_ns.is_finite() && o.cycle_ns > 0.0) {
        return bad(format!("cycle_ns {}: allowed > 0", o.cycle_ns));
    }
    if o.cycles < 5_000 || o.fault_cycles < 5_000 {
        return bad("cycles and fault_cycles: allowed at least 5000".into());
    }
    Ok(())
}

pub use rtl_gen::analysis::cable_delay_cycles as delay_cycles;

/// Runs one unit.
pub fn run_unit(bench: &Bench, o: &GenzOptions, unit: usize, test: &Unit) -> Result<GenzRecord, CampaignError> {
    let cfg = bench.block::<GenzLlrBlock>(FIGURES_BLOCK)?.cfg.clone();
    let delay = delay_cycles(test.cable_m(), o.cycle_ns);
    let seed = shard::unit_seed(o.seed, unit);
    let warmup = 2_000 + 4 * delay;
    let drain = 20_000 + 40 * delay;
    let mut lo = LinkOptions { delay: delay as usize, seed, drain_cycles: drain, ..LinkOptions::default() };
    let mut lost = false;
    let lose_ack = matches!(test, Unit::Init { lost_init_ack: true, .. });
    match *test {
        Unit::Faults { .. } => {
            lo.cycles = o.fault_cycles;
            lo.faults = Faults { ber: 1e-5, burst: 5e-4, burst_bits: 12, drop: 5e-4, uc: 0.0 };
            lo.down = 6e-5;
            lo.down_cycles = 300;
            lo.ll_loss = 2e-3;
            lo.m_ready = 0.8;
            lo.link_ready = 0.9;
        }
        Unit::Init { .. } => {
            lo.cycles = 4 * cfg.init_cycles as u64 + 8 * delay + 2_000;
            lo.drain_cycles = 4 * delay + 5_000;
            lo.load = 1.0;
        }
        Unit::Goodput { size, ber, .. } => {
            lo.cycles = o.cycles.max(warmup + 1_000);
            lo.window_from = warmup;
            lo.faults = Faults::ber(ber);
            lo.load = 1.0;
            lo.offer = 1.0;
            lo.packet_bytes = Some(size as usize);
        }
    }
    // The first LLR Init ACK from A toward B corrupted (its CRC fails: B must not act on it).
    let mut hook = |_: u64, dir: usize, bt: &mut Beat| {
        if lose_ack && dir == 0 && !lost && bt.user && bt.data[0] == OP_INIT_ACK && !bt.last {
            lost = true;
            bt.data[3] ^= 0x10;
        }
        Fate::Keep
    };
    let (rep, mismatches, first): (LinkReport, u64, Option<String>) = match o.implementation {
        GenzImpl::Model => {
            let (mut x, mut y) = (LlrModel::new(cfg.clone()), LlrModel::new(cfg.clone()));
            (run_link(&mut x, &mut y, &cfg, &lo, &mut hook)?, 0, None)
        }
        GenzImpl::Rtl => {
            let m = bench.module(FIGURES_BLOCK, Role::Interface)?;
            let (r, t) = crate::cosim::genz::twin_link(bench, m, &lo, &mut hook)?;
            let first = t.first.as_ref().map(|f| format!("cycle {} `{}`: model {}, RTL {}", f.cycle, f.port, f.expected, f.actual));
            (r, t.mismatches, first)
        }
    };
    Ok(GenzRecord {
        unit,
        test: test.clone(),
        delay,
        cycles: rep.cycles,
        window_cycles: lo.cycles.saturating_sub(lo.window_from),
        sent: rep.sent.iter().sum(),
        delivered: rep.delivered.iter().sum(),
        errors: rep.errors,
        missing: rep.missing,
        window_bytes: rep.window_bytes.iter().sum(),
        bit_errors: rep.channels.iter().map(|c| c.bit_errors).sum(),
        beats_hit: rep.channels.iter().map(|c| c.frames_with_bit_errors).sum(),
        bursts: rep.channels.iter().map(|c| c.bursts).sum(),
        drops: rep.channels.iter().map(|c| c.drops).sum(),
        down_periods: rep.down_periods,
        retrains: rep.retrains,
        counters: rep.counters,
        recoveries: rep.recoveries,
        occupancy_sum: rep.occupancy_sum.iter().sum(),
        occupancy_max: rep.occupancy_max.into_iter().max().unwrap_or(0),
        in_flight_sum: rep.in_flight_sum.iter().sum(),
        in_flight_max: rep.in_flight_max.into_iter().max().unwrap_or(0),
        first_delivery: rep.first_delivery,
        mismatches,
        first_mismatch: first,
    })
}

/// Runs the shard's units (one after the other: a Verilated model is not shared across threads;
/// run shards as separate processes to use more cores).
pub fn run(bench: &Bench, o: &GenzOptions, sh: Shard, progress: &mut Progress) -> Result<GenzResults, CampaignError> {
    let block = bench.block::<GenzLlrBlock>(FIGURES_BLOCK)?;
    let cfg = block.cfg.clone();
    check(o, &cfg)?;
    let all = units(o);
    let mine = sh.units(all.len());
    progress.start(&format!("Gen-Z LLR campaign (shard {sh})"), mine.len() as u64, "units");
    let mut records = Vec::new();
    for (k, &u) in mine.iter().enumerate() {
        let t = Instant::now();
        let r = run_unit(bench, o, u, &all[u])?;
        progress.note(&format!("  unit {u} {:?}: {} cycles in {:.1} s{}", all[u], r.cycles, t.elapsed().as_secs_f64(), if r.clean() { "" } else { " NOT CLEAN" }));
        progress.set(k as u64 + 1);
        records.push(r);
    }
    progress.finish(records.len() as u64);
    Ok(GenzResults {
        options: o.clone(),
        params: GenzParams {
            block: FIGURES_BLOCK.into(),
            data_bytes: cfg.data_bytes,
            max_packet_bytes: cfg.max_packet_bytes,
            vcs: cfg.vcs,
            rx_credits: cfg.rx_credits,
            slots: cfg.slots(),
            init_cycles: cfg.init_cycles,
            discard_cycles: cfg.discard_cycles,
            llrt_cycles: cfg.llrt_cycles,
        },
        shard: sh,
        units: all.len(),
        records,
    })
}

fn percentile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize] as f64
}

impl GenzResults {
    pub fn merge(parts: Vec<GenzResults>) -> Result<GenzResults, CampaignError> {
        let parts = parts.into_iter().map(|p| (p.shard, (p.options, p.params, p.units), p.records)).collect();
        let ((options, params, units), records) = shard::merge_units(parts, |c| Some(c.2), |r: &GenzRecord| r.unit)?;
        Ok(GenzResults { options, params, shard: Shard::ALL, units, records })
    }

    pub fn clean(&self) -> bool {
        self.records.iter().all(|r| r.clean())
    }

    fn goodput_points(&self, size: u32, cable: f64) -> Vec<(f64, &GenzRecord)> {
        self.records
            .iter()
            .filter_map(|r| match r.test {
                Unit::Goodput { size: s, cable_m, ber } if s == size && cable_m == cable && self.options.cables_m.contains(&cable_m) => Some((ber, r)),
                _ => None,
            })
            .collect()
    }

    /// The Markdown report.
    pub fn report(&self) -> String {
        let p = &self.params;
        let db = p.data_bytes;
        let mut s = String::new();
        if !self.shard.is_all() {
            let _ = writeln!(s, "shard {} of the campaign: {} of {} units\n", self.shard, self.records.len(), self.units);
        }
        let _ = writeln!(
            s,
            "Gen-Z LLR `{}` ({}): {}-byte beats, packets up to {} bytes, {} VCs × {} credits, {} retry slots; Init interval {} cycles, Discard interval {} cycles, LLR timer {} cycles; cycle {} ns; seed {}\n",
            p.block,
            match self.options.implementation {
                GenzImpl::Rtl => "Verilated RTL of both ends, each in lockstep with its model",
                GenzImpl::Model => "cycle-accurate models",
            },
            db,
            p.max_packet_bytes,
            p.vcs,
            p.rx_credits,
            p.slots,
            p.init_cycles,
            p.discard_cycles,
            p.llrt_cycles,
            self.options.cycle_ns,
            self.options.seed
        );
        // Fault runs.
        s.push_str("**Faults** (BER 1e-5 on data and marker, 12-bit bursts 5e-4 / beat, drops 5e-4 / beat, link down 6e-5 / cycle for 300 cycles, backpressure on every stream):\n\n");
        s.push_str("| cable | cycles | EE sent | delivered | scoreboard errors | missing | bit errors | bursts | drops | link-down periods | retrains | Discards | resent | RTL/model mismatches | exactly once |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for r in self.records.iter().filter(|r| matches!(r.test, Unit::Faults { .. })) {
            let _ = writeln!(
                s,
                "| {} m | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.test.cable_m(),
                r.cycles,
                r.sent,
                r.delivered,
                r.errors,
                r.missing,
                r.bit_errors,
                r.bursts,
                r.drops,
                r.down_periods,
                r.retrains,
                r.sum(C_DISC_SENT),
                r.sum(C_RESENT),
                r.mismatches,
                if r.clean() { "yes" } else { "NO" }
            );
        }
        // Init.
        s.push_str("\n**Init time** (cycles from phy_up to the first EE packet delivered at A / B; includes the one-way delay and one packet):\n\n| cable | delay | Init ACK | first delivery A | first delivery B | Inits sent A / B | in round trips (B) |\n|---:|---:|---|---:|---:|---:|---:|\n");
        for r in self.records.iter() {
            if let Unit::Init { cable_m, lost_init_ack } = r.test {
                let f = |x: Option<u64>| x.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
                let _ = writeln!(
                    s,
                    "| {cable_m} m | {} | {} | {} | {} | {} / {} | {:.2} |",
                    r.delay,
                    if lost_init_ack { "first one lost" } else { "delivered" },
                    f(r.first_delivery[0]),
                    f(r.first_delivery[1]),
                    r.counters[0][C_INIT_SENT],
                    r.counters[1][C_INIT_SENT],
                    r.first_delivery[1].unwrap_or(0) as f64 / (2 * r.delay) as f64
                );
            }
        }
        // Goodput.
        let series = self.series();
        s.push_str("\n**Goodput vs BER** (EE bytes delivered per cycle, both directions, ÷ 2 × data bytes; saturating traffic; in brackets: beats hit by bit errors / recoveries completed):\n\n| BER |");
        for (size, cable) in &series {
            let _ = write!(s, " {size} B, {cable} m |");
        }
        s.push_str("\n|---:|");
        for _ in &series {
            s.push_str("---:|");
        }
        s.push('\n');
        for ber in std::iter::once(0.0).chain(self.options.bers.iter().copied()) {
            let _ = write!(s, "| {ber:.2e} |");
            for (size, cable) in &series {
                match self.goodput_points(*size, *cable).into_iter().find(|(b, _)| *b == ber) {
                    Some((_, r)) => {
                        let _ = write!(s, " {:.4} ({} / {}){} |", r.goodput(db), r.beats_hit, r.recoveries.len(), if r.clean() { "" } else { " NOT CLEAN" });
                    }
                    None => s.push_str(" - |"),
                }
            }
            s.push('\n');
        }
        // Recovery.
        s.push_str("\n**Recovery time per error** (Discard sent → first EE packet delivered after the Exit Discard, all BERs pooled; a round trip = 2 × one-way delay):\n\n| packet | cable | delay | recoveries | mean cycles | median | p99 | max | mean round trips |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (size, cable) in &series {
            let pts = self.goodput_points(*size, *cable);
            let mut all: Vec<u64> = pts.iter().flat_map(|(_, r)| r.recoveries.iter().copied()).collect();
            all.sort_unstable();
            let delay = pts.first().map(|(_, r)| r.delay).unwrap_or(1);
            let mean = all.iter().sum::<u64>() as f64 / all.len().max(1) as f64;
            let _ = writeln!(
                s,
                "| {size} B | {cable} m | {delay} | {} | {mean:.0} | {:.0} | {:.0} | {} | {:.2} |",
                all.len(),
                percentile(&all, 0.5),
                percentile(&all, 0.99),
                all.last().copied().unwrap_or(0),
                mean / (2 * delay) as f64
            );
        }
        // Occupancy.
        s.push_str("\n**Retry-buffer occupancy vs cable length** (BER 0, saturating; EE packets per end held in the retry buffer: written and not yet acknowledged, and of them sent at least once):\n\n| packet | cable | delay | held mean | held max | max bytes | sent, unacknowledged: mean | max | goodput |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        let mut occ: Vec<&GenzRecord> = self.records.iter().filter(|r| matches!(r.test, Unit::Goodput { ber, .. } if ber == 0.0)).collect();
        occ.sort_by(|a, b| {
            let key = |r: &GenzRecord| match r.test {
                Unit::Goodput { size, cable_m, .. } => (size, cable_m),
                _ => (0, 0.0),
            };
            let (ka, kb) = (key(a), key(b));
            ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
        });
        for r in occ {
            if let Unit::Goodput { size, cable_m, .. } = r.test {
                let _ = writeln!(s, "| {size} B | {cable_m} m | {} | {:.1} | {} | {} | {:.1} | {} | {:.4} |", r.delay, r.occupancy_mean(), r.occupancy_max, r.occupancy_max * size as u64, r.in_flight_mean(), r.in_flight_max, r.goodput(db));
            }
        }
        let bad = self.records.iter().filter(|r| !r.clean()).count();
        let _ = writeln!(s, "\n{} units, {} not clean (scoreboard errors, missing packets or RTL/model mismatches)", self.records.len(), bad);
        s
    }

    /// (size, cable) of every goodput series.
    pub fn series(&self) -> Vec<(u32, f64)> {
        let mut v = Vec::new();
        for &size in &self.options.sizes {
            for &c in &self.options.cables_m {
                v.push((size, c));
            }
        }
        v
    }

    pub fn csv(&self) -> String {
        let db = self.params.data_bytes;
        let mut s = String::from("unit,kind,size,cable_m,delay,ber,lost_init_ack,cycles,window_cycles,sent,delivered,errors,missing,goodput,bit_errors,beats_hit,bursts,drops,down_periods,retrains,discards_sent,clears_sent,exits_sent,resent,timer_retransmissions,recoveries,recovery_mean,recovery_max,occupancy_mean,occupancy_max,in_flight_mean,in_flight_max,first_delivery_a,first_delivery_b,mismatches\n");
        for r in &self.records {
            let (kind, size, ber, lost) = match r.test {
                Unit::Faults { .. } => ("faults", 0, 0.0, false),
                Unit::Init { lost_init_ack, .. } => ("init", 0, 0.0, lost_init_ack),
                Unit::Goodput { size, ber, .. } => ("goodput", size, ber, false),
            };
            let mean = r.recoveries.iter().sum::<u64>() as f64 / r.recoveries.len().max(1) as f64;
            let f = |x: Option<u64>| x.map(|v| v.to_string()).unwrap_or_default();
            let _ = writeln!(
                s,
                "{},{kind},{size},{},{},{ber:e},{lost},{},{},{},{},{},{},{:.6},{},{},{},{},{},{},{},{},{},{},{},{},{:.1},{},{:.2},{},{:.2},{},{},{},{}",
                r.unit,
                r.test.cable_m(),
                r.delay,
                r.cycles,
                r.window_cycles,
                r.sent,
                r.delivered,
                r.errors,
                r.missing,
                r.goodput(db),
                r.bit_errors,
                r.beats_hit,
                r.bursts,
                r.drops,
                r.down_periods,
                r.retrains,
                r.sum(C_DISC_SENT),
                r.sum(C_CLEAR_SENT),
                r.sum(C_EXIT_SENT),
                r.sum(C_RESENT),
                r.sum(C_TIMER_RTX),
                r.recoveries.len(),
                mean,
                r.recoveries.iter().max().copied().unwrap_or(0),
                r.occupancy_mean(),
                r.occupancy_max,
                r.in_flight_mean(),
                r.in_flight_max,
                f(r.first_delivery[0]),
                f(r.first_delivery[1]),
                r.mismatches
            );
        }
        s
    }

    /// Goodput vs BER, one line per (size, cable); the BER-0 goodput as a dotted level.
    pub fn svg(&self) -> String {
        let db = self.params.data_bytes;
        let series: Vec<(String, Vec<(f64, f64)>)> = self
            .series()
            .into_iter()
            .map(|(size, cable)| {
                let pts = self.goodput_points(size, cable).into_iter().filter(|(b, _)| *b > 0.0).map(|(b, r)| (b, r.goodput(db))).collect();
                (format!("Gen-Z LLR {size} B, {cable} m"), pts)
            })
            .collect();
        goodput_svg(&format!("Gen-Z LLR goodput vs BER ({}, block {})", if self.options.implementation == GenzImpl::Rtl { "RTL" } else { "model" }, self.params.block), &series)
    }
}

/// A hand-written SVG: goodput (0..1) against BER 1e-12 … 1e-5 on a log axis, one line per
/// series (also used by the comparison of the retry schemes).
pub fn goodput_svg(title: &str, series: &[(String, Vec<(f64, f64)>)]) -> String {
    let (w, h) = (900.0, 460.0);
    let (x0, x1, t0, t1) = (80.0, 860.0, 50.0, 380.0);
    let lx = |ber: f64| x0 + (ber.log10() + 12.0) / 7.0 * (x1 - x0);
    let y = |g: f64| t1 - g.clamp(0.0, 1.0) * (t1 - t0);
    let colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];
    let mut s = String::new();
    let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#);
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/><text x="{}" y="25" text-anchor="middle" font-size="15">{title}</text>"#, w / 2.0);
    for k in 0..=5 {
        let g = k as f64 * 0.2;
        let _ = writeln!(s, r##"<line x1="{x0}" x2="{x1}" y1="{yy:.1}" y2="{yy:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{g:.1}</text>"##, x0 - 6.0, y(g) + 4.0, yy = y(g));
    }
    let _ = writeln!(s, r#"<line x1="{x0}" x2="{x1}" y1="{t1}" y2="{t1}" stroke="black"/><line x1="{x0}" x2="{x0}" y1="{t0}" y2="{t1}" stroke="black"/>"#);
    for e in -12..=-5 {
        let x = lx(10f64.powi(e));
        let _ = writeln!(s, r#"<line x1="{x:.1}" x2="{x:.1}" y1="{t1}" y2="{:.1}" stroke="black"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">1e{e}</text>"#, t1 + 5.0, t1 + 18.0);
    }
    let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">bit error ratio (both directions)</text><text x="20" y="{:.1}" transform="rotate(-90 20 {:.1})" text-anchor="middle">goodput (fraction of the line)</text>"#, (x0 + x1) / 2.0, t1 + 40.0, (t0 + t1) / 2.0, (t0 + t1) / 2.0);
    for (i, (name, pts)) in series.iter().enumerate() {
        let c = colors[i % colors.len()];
        let d: Vec<String> = pts.iter().enumerate().map(|(k, (b, g))| format!("{}{:.1},{:.1}", if k == 0 { "M" } else { "L" }, lx(*b), y(*g))).collect();
        let _ = writeln!(s, r#"<path d="{}" fill="none" stroke="{c}" stroke-width="2"/>"#, d.join(" "));
        for (b, g) in pts {
            let _ = write!(s, r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{c}"/>"#, lx(*b), y(*g));
        }
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" fill="{c}">{name}</text>"#, x0 + 10.0, t1 - 60.0 - 14.0 * (series.len() - 1 - i) as f64);
    }
    s.push_str("</svg>\n");
    s
}
