//! The figures of `rtl-gen sim sue --figures` (contract §5.6), each measured on a [`Fabric`] of
//! `sue_endpoint`s built from one base block (the default design's `sue_ep`: 4 XPUs × 2 VCs,
//! 16-byte beats, 32-byte commands, PDUs ≤ 256 bytes, window 4), every XPU Verilated RTL in
//! lockstep with its model unless `rtl` is off, through the [`super::switch::Switch`]. Every
//! point runs the fabric scoreboards; a point with a violation is reported, never hidden.
//!
//! | function | figure |
//! |---|---|
//! | [`psn_scope`] | F5: the seed's per-{port, destination} PSN vs `psn_scope = "dest_vc"` when the switch reorders classes, no loss: needless retransmissions |
//! | [`goodput_vs_drop`] | F3: goodput vs per-link drop probability 1e-6…1e-2, beside the go-back-N estimate |
//! | [`incast`] | F4: 8:1 incast through PFC: losses, receiver goodput, per-sender share (Jain), pause |
//! | [`deadlock`] | F7: XPU 0 stops consuming VC 0; ACKs on a dedicated VC (1) vs sharing VC 0: VC 1 progress |
//! | [`ack_overhead`] | F6: control PDUs per data PDU and the piggyback ratio vs `ack_coalesce` × `ack_delay_cycles`, one-way and two-way traffic between 2 XPUs |
//! | [`load_sweep`] | F1/F2 on the fabric: commands per PDU, wire efficiency, latency percentiles (cycles, ns) vs offered load |
//!
//! Packing vs `hold_cycles` is measured on the packer alone ([`super::packing`]).

use super::fabric::{fabric_bench, fabric_blocks, Fabric, LinkAcks, Pattern, Traffic};
use super::packing::{wire_efficiency, HEADER_OPTIONS, PDU_OVERHEAD};
use super::switch::{LinkFaults, SwitchConfig};
use crate::campaign::CampaignError;
use crate::Bench;
use rtl_gen::analysis::sue::{self, go_back_n_share};
use rtl_gen::blocks::sue_endpoint::SueEndpointBlock;
use rtl_gen::blocks::sue_transport::model::k;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Options shared by the figures.
#[derive(Debug, Clone)]
pub struct FigureOptions {
    /// The base `sue_endpoint` block.
    pub block: String,
    /// Cycles of traffic per point (then drained).
    pub cycles: u64,
    pub seed: u64,
    /// Verilated RTL endpoints (else the models alone).
    pub rtl: bool,
}

impl Default for FigureOptions {
    fn default() -> Self {
        FigureOptions { block: "sue_ep".into(), cycles: 20_000, seed: 1, rtl: true }
    }
}

/// What one fabric run measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub label: String,
    pub xpus: usize,
    pub rtl_xpus: usize,
    pub cycles: u64,
    /// Traffic window plus drain.
    pub total_cycles: u64,
    pub accepted: u64,
    pub delivered: u64,
    /// Command bytes delivered per cycle during the traffic window / (senders × link rate).
    pub goodput: f64,
    pub data_pdus: u64,
    pub cmds_per_pdu: f64,
    pub wire_efficiency: f64,
    pub lat_p50: u64,
    pub lat_p99: u64,
    pub lat_p999: u64,
    pub lat_max: u64,
    pub cmpl_p50: u64,
    pub cmpl_p99: u64,
    pub new_pdus: u64,
    pub retx: u64,
    pub nacks: u64,
    pub rtos: u64,
    pub gaps: u64,
    pub dups: u64,
    pub crc_errs: u64,
    pub drops: u64,
    pub overflow: u64,
    pub overtakes: u64,
    pub pause_cycles: Vec<u64>,
    /// ACKs / NACKs as counted on the XPU → switch links from the RH of every PDU sent.
    pub link: LinkAcks,
    /// The same from the transports' counters (control ACK + NACK PDUs, piggybacked ACK +
    /// NACK): must equal the link counts.
    pub tx_ctrl: u64,
    pub tx_piggy: u64,
    /// Commands delivered per source in the traffic window.
    pub per_source: Vec<u64>,
    /// Commands delivered per VC in the traffic window.
    pub per_vc: Vec<u64>,
    pub violations: u64,
    pub first_violation: Option<String>,
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Builds fabrics of one base block, caching the design per override set (generated and
/// written only when the endpoints run their RTL; models need the blocks alone).
pub struct Runner<'a> {
    bench: &'a Bench,
    base: SueEndpointBlock,
    pub clock_mhz: f64,
    pub opts: FigureOptions,
    benches: HashMap<(usize, String), (Option<Bench>, Vec<SueEndpointBlock>)>,
}

impl<'a> Runner<'a> {
    pub fn new(bench: &'a Bench, opts: FigureOptions) -> Result<Runner<'a>, CampaignError> {
        let base = bench.block::<SueEndpointBlock>(&opts.block)?.clone();
        Ok(Runner { bench, base, clock_mhz: bench.design().info.clock_mhz, opts, benches: HashMap::new() })
    }

    pub fn base(&self) -> &SueEndpointBlock {
        &self.base
    }

    /// A switch for `n` ports of the base geometry: lossless PFC, link at half the bus rate.
    pub fn switch(&self, n: usize) -> SwitchConfig {
        let c = &self.base.common;
        SwitchConfig::new(n, c.num_vc as usize, c.data_bytes as usize, c.max_pack_bytes as usize + 12)
    }

    /// One run of `n` XPUs with block field `overrides`, switch `sw` and `traffic`.
    pub fn run(&mut self, label: &str, n: usize, overrides: &str, mut sw: SwitchConfig, traffic: Traffic, unit: u64) -> Result<Point, CampaignError> {
        let key = (n, overrides.to_string());
        if !self.benches.contains_key(&key) {
            let b = if self.opts.rtl {
                let (bench, blocks) = fabric_bench(&self.base, n, overrides)?;
                (Some(bench), blocks)
            } else {
                (None, fabric_blocks(&self.base, n, overrides)?)
            };
            self.benches.insert(key.clone(), b);
        }
        let (bench, blocks) = &self.benches[&key];
        // Models only: the base bench is never asked for a module.
        let bench = bench.as_ref().unwrap_or(self.bench);
        let seed = crate::campaign::shard::unit_seed(self.opts.seed, unit as usize);
        sw.seed = seed ^ 0x5eed;
        let link = sw.link_bytes_per_cycle;
        let senders: Vec<usize> = match &traffic.pattern {
            Pattern::Uniform => (0..n).collect(),
            Pattern::Incast { senders, .. } => senders.clone(),
        };
        let rtl = vec![self.opts.rtl; n];
        let mut f = Fabric::new(bench, blocks, &rtl, sw, traffic, seed, "sue_figures")?;
        for _ in 0..self.opts.cycles {
            f.step()?;
        }
        let window = f.cycle;
        f.drain(200_000)?;
        let c = &self.base.common;
        let cb = u64::from(c.cmd_bytes);
        let per_source: Vec<u64> = (0..n).map(|s| f.delivered_in_window[s].iter().sum()).collect();
        let in_window: u64 = per_source.iter().sum();
        let mut lat = f.latency.clone();
        lat.sort_unstable();
        let mut cl = f.cmpl_latency.clone();
        cl.sort_unstable();
        let cmds = f.cmds_in_pdus;
        let st = &f.switch.stats;
        Ok(Point {
            label: label.to_string(),
            xpus: n,
            rtl_xpus: f.rtl_count(),
            cycles: window,
            total_cycles: f.cycle,
            accepted: f.accepted.iter().flatten().sum(),
            delivered: f.delivered.iter().flatten().sum(),
            goodput: (in_window * cb) as f64 / window as f64 / (senders.len() as f64 * link),
            data_pdus: f.data_pdus,
            cmds_per_pdu: cmds as f64 / f.data_pdus.max(1) as f64,
            wire_efficiency: if f.data_pdus == 0 {
                0.0
            } else {
                wire_efficiency(cmds as f64 / f.data_pdus as f64, cb, PDU_OVERHEAD)
            },
            lat_p50: percentile(&lat, 0.5),
            lat_p99: percentile(&lat, 0.99),
            lat_p999: percentile(&lat, 0.999),
            lat_max: lat.last().copied().unwrap_or(0),
            cmpl_p50: percentile(&cl, 0.5),
            cmpl_p99: percentile(&cl, 0.99),
            new_pdus: f.counter(k::TX_NEW),
            retx: f.counter(k::TX_RETX),
            nacks: f.counter(k::TX_NACK_RCVD),
            rtos: f.counter(k::TX_RTO),
            gaps: f.counter(k::RX_GAP),
            dups: f.counter(k::RX_DUP),
            crc_errs: f.counter(k::RX_CRC_ERR),
            drops: st.uplink_drops + st.downlink_drops,
            overflow: st.overflow_drops,
            overtakes: st.class_overtakes,
            pause_cycles: st.pause_cycles.clone(),
            link: f.link,
            tx_ctrl: f.counter(k::TX_CTRL_ACK) + f.counter(k::TX_CTRL_NACK),
            tx_piggy: f.counter(k::TX_PIGGY_ACK) + f.counter(k::TX_PIGGY_NACK),
            per_source,
            per_vc: f.delivered_vc_in_window.clone(),
            violations: f.tally.mismatches,
            first_violation: f.tally.first.as_ref().map(|m| format!("cycle {}: {} (expected {}, got {})", m.cycle, m.port, m.expected, m.actual)),
        })
    }

    fn ns(&self, cycles: u64) -> f64 {
        cycles as f64 * 1000.0 / self.clock_mhz
    }
}

/// A figure: its Markdown table and the points behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub title: String,
    pub table: String,
    pub points: Vec<Point>,
}

fn violations(points: &[Point]) -> String {
    let bad: Vec<String> = points.iter().filter(|p| p.violations > 0).map(|p| format!("{}: {} violations, first {}", p.label, p.violations, p.first_violation.as_deref().unwrap_or("?"))).collect();
    if bad.is_empty() {
        format!("\nScoreboards (exactly once, in order per {{src, dst, VC}}, bit-exact, PDU ≤ max_pack_bytes, completions = accepted, RTL = model): 0 violations over {} runs.\n", points.len())
    } else {
        format!("\nSCOREBOARD VIOLATIONS: {}\n", bad.join("; "))
    }
}

/// F5: cross-VC PSN (seed) vs `psn_scope = "dest_vc"`, no injected loss, the switch reordering
/// classes (random class stalls) and not, uniform traffic on both VCs.
pub fn psn_scope(r: &mut Runner, load: f64) -> Result<Figure, CampaignError> {
    let n = r.base().common.num_xpu as usize;
    let mut pts = Vec::new();
    for (u, (scope, stall)) in [("dest", 0.0), ("dest_vc", 0.0), ("dest", 0.002), ("dest_vc", 0.002)].into_iter().enumerate() {
        let mut sw = r.switch(n);
        sw.class_stall = stall;
        sw.class_stall_cycles = 150;
        let t = Traffic { load, ..Default::default() };
        let label = format!("{scope}, {}", if stall > 0.0 { "classes reordered" } else { "round robin only" });
        pts.push(r.run(&label, n, &format!("psn_scope = \"{scope}\""), sw, t, u as u64)?);
    }
    let mut s = String::from("| psn_scope | switch | class overtakes | commands delivered | goodput | new PDUs | retransmitted PDUs (all needless: no loss) | NACKs | RTOs | gap drops | duplicate drops |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for p in &pts {
        let (scope, sw) = p.label.split_once(", ").unwrap_or((&p.label, ""));
        let _ = writeln!(s, "| {scope} | {sw} | {} | {} | {:.3} | {} | {} ({:.1} %) | {} | {} | {} | {} |", p.overtakes, p.delivered, p.goodput, p.new_pdus, p.retx, 100.0 * p.retx as f64 / p.new_pdus.max(1) as f64, p.nacks, p.rtos, p.gaps, p.dups);
    }
    s += &violations(&pts);
    Ok(Figure { title: format!("F5: cross-VC PSN vs dest_vc ({n} XPUs, offered load {load} of the link per source, no loss)"), table: s, points: pts })
}

/// F3: goodput vs per-link drop probability (both directions), saturating offered load; then
/// the same drops for each (`window`, `rto_cycles`) of `variants` (opt-in: each variant is a
/// further fabric design, Verilated when the endpoints run their RTL).
pub fn goodput_vs_drop(r: &mut Runner, drops: &[f64], variants: &[(u32, u32)]) -> Result<Figure, CampaignError> {
    let n = r.base().common.num_xpu as usize;
    let window = r.base().transport_block.resolved.window;
    let mut pts = Vec::new();
    for (u, &p) in drops.iter().enumerate() {
        let mut sw = r.switch(n);
        sw.faults(LinkFaults { drop: p, ..Default::default() });
        let t = Traffic { load: 1.2, ..Default::default() };
        pts.push(r.run(&format!("{p:e}"), n, "psn_scope = \"dest_vc\"", sw, t, 100 + u as u64)?);
    }
    let g0 = pts.first().map(|p| p.goodput).unwrap_or(1.0).max(1e-9);
    let mut s = format!("| drop per link | PDUs lost | goodput | vs lowest p | GBN estimate 1/(1+p'·N), p' = 1-(1-p)², N = window {window} | retx / new | NACKs | RTOs |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (p, &d) in pts.iter().zip(drops) {
        let est = go_back_n_share(sue::path_loss(d), u64::from(window));
        let _ = writeln!(s, "| {d:e} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} |", p.drops, p.goodput, p.goodput / g0, est, p.retx as f64 / p.new_pdus.max(1) as f64, p.nacks, p.rtos);
    }
    if !variants.is_empty() {
        s += "\n| window | rto_cycles | drop per link | PDUs lost | goodput | vs lowest p (same variant) | GBN estimate 1/(1+p'·window) | retx / new | NACKs | RTOs |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    }
    for (v, &(w, rto)) in variants.iter().enumerate() {
        let mut vp = Vec::new();
        for (u, &p) in drops.iter().enumerate() {
            let mut sw = r.switch(n);
            sw.faults(LinkFaults { drop: p, ..Default::default() });
            let t = Traffic { load: 1.2, ..Default::default() };
            let over = format!("psn_scope = \"dest_vc\"\nwindow = {w}\nrto_cycles = {rto}");
            vp.push(r.run(&format!("window {w}, rto {rto}, {p:e}"), n, &over, sw, t, 1000 + 100 * v as u64 + u as u64)?);
        }
        let g0 = vp.first().map(|p| p.goodput).unwrap_or(1.0).max(1e-9);
        for (p, &d) in vp.iter().zip(drops) {
            let est = go_back_n_share(sue::path_loss(d), u64::from(w));
            let _ = writeln!(s, "| {w} | {rto} | {d:e} | {} | {:.3} | {:.3} | {est:.3} | {:.3} | {} | {} |", p.drops, p.goodput, p.goodput / g0, p.retx as f64 / p.new_pdus.max(1) as f64, p.nacks, p.rtos);
        }
        pts.extend(vp);
    }
    s += &violations(&pts);
    Ok(Figure { title: format!("F3: goodput vs drop probability ({n} XPUs, uniform, offered 1.2 × link per source, psn_scope dest_vc, no class reordering)"), table: s, points: pts })
}


/// F4: `senders`:1 incast through PFC (num_xpu = senders + 1), every sender saturating, with
/// the seed's PSN scope and with `dest_vc`.
pub fn incast(r: &mut Runner, senders: usize) -> Result<Figure, CampaignError> {
    let n = senders + 1;
    let sw0 = r.switch(n);
    let (xoff, qcap, lat) = (sw0.xoff_bytes, sw0.queue_bytes, sw0.pause_latency);
    let mut s = String::from("| incast | psn_scope | PDUs dropped (overflow + link) | receiver goodput (of its link) | per-sender commands (min / max) | Jain index | latency p50 / p99 / max (cycles) | sender pause (mean % of cycles, drain included) | retransmitted / new PDUs | NACKs | RTOs | class overtakes |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    let mut pts = Vec::new();
    for (u, (scope, over)) in [("dest", ""), ("dest_vc", "psn_scope = \"dest_vc\"")].into_iter().enumerate() {
        let t = Traffic { load: 1.0, pattern: Pattern::Incast { dst: 0, senders: (1..n).collect() }, ..Default::default() };
        let p = r.run(&format!("{senders}:1"), n, over, r.switch(n), t, 200 + u as u64)?;
        let shares: Vec<f64> = p.per_source[1..].iter().map(|&x| x as f64).collect();
        let sum: f64 = shares.iter().sum();
        let jain = sum * sum / (shares.len() as f64 * shares.iter().map(|x| x * x).sum::<f64>()).max(1e-9);
        let recv_goodput = p.goodput * senders as f64;
        let mn = p.per_source[1..].iter().min().copied().unwrap_or(0);
        let mx = p.per_source[1..].iter().max().copied().unwrap_or(0);
        let pause = p.pause_cycles[1..].iter().sum::<u64>() as f64 / senders as f64 / p.total_cycles.max(1) as f64;
        let _ = writeln!(s, "| {} | {scope} | {} + {} | {:.3} | {mn} / {mx} | {jain:.4} | {} / {} / {} | {:.1} % | {} / {} | {} | {} | {} |", p.label, p.overflow, p.drops, recv_goodput, p.lat_p50, p.lat_p99, p.lat_max, 100.0 * pause, p.retx, p.new_pdus, p.nacks, p.rtos, p.overtakes);
        pts.push(p);
    }
    let _ = writeln!(s, "\nPFC: xoff {xoff} B per {{ingress, class}}, queue {qcap} B per {{egress, class}}, pause latency {lat} cycles.");
    s += &violations(&pts);
    Ok(Figure { title: format!("F4: {senders}:1 incast with PFC ({n} XPUs)"), table: s, points: pts })
}

/// F1/F2 on the fabric: packing and latency vs offered load (uniform, no loss, no class
/// reordering), latency also in ns beside the seed's < 2 µs RTT budget.
pub fn load_sweep(r: &mut Runner, loads: &[f64]) -> Result<Figure, CampaignError> {
    let n = r.base().common.num_xpu as usize;
    let cb = u64::from(r.base().common.cmd_bytes);
    let mut pts = Vec::new();
    for (u, &l) in loads.iter().enumerate() {
        let sw = r.switch(n);
        let t = Traffic { load: l, ..Default::default() };
        pts.push(r.run(&format!("{l}"), n, "", sw, t, 300 + u as u64)?);
    }
    let mut s = format!("| offered load | goodput | commands/PDU | wire efficiency Eth/IPv4/UDP · Eth/IPv6/UDP · AFH Gen 1 + VLAN | accept → delivery p50 / p99 / p99.9 / max, cycles | same in ns at {} MHz | accept → completion (ACK) p50 / p99, cycles (ns) | p99 completion vs 2 µs RTT |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n", r.clock_mhz);
    for p in &pts {
        let _ = writeln!(
            s,
            "| {} | {:.3} | {:.2} | {} | {} / {} / {} / {} | {:.0} / {:.0} / {:.0} / {:.0} | {} / {} ({:.0} / {:.0}) | {:.0} % |",
            p.label,
            p.goodput,
            p.cmds_per_pdu,
            HEADER_OPTIONS
                .iter()
                .map(|(_, ovh)| format!("{:.1} %", 100.0 * wire_efficiency(p.cmds_per_pdu, cb, *ovh)))
                .collect::<Vec<_>>()
                .join(" · "),
            p.lat_p50,
            p.lat_p99,
            p.lat_p999,
            p.lat_max,
            r.ns(p.lat_p50),
            r.ns(p.lat_p99),
            r.ns(p.lat_p999),
            r.ns(p.lat_max),
            p.cmpl_p50,
            p.cmpl_p99,
            r.ns(p.cmpl_p50),
            r.ns(p.cmpl_p99),
            100.0 * r.ns(p.cmpl_p99) / 2000.0
        );
    }
    s += &violations(&pts);
    Ok(Figure { title: format!("F1/F2: packing and latency vs offered load ({n} XPUs, uniform over destinations and VCs, no loss)"), table: s, points: pts })
}

/// F7: XPU 0 holds `xpu_vc_pause[0]` for the whole traffic window (a stalled request consumer),
/// uniform traffic on both VCs, no loss; `ack_vc = 1` (the seed's separate acknowledgement class)
/// vs `ack_vc = 0` (ACKs share the stalled request class). Reports VC 1 progress in the window;
/// the consumer resumes for the drain, so the scoreboards still close.
pub fn deadlock(r: &mut Runner, load: f64) -> Result<Figure, CampaignError> {
    let n = r.base().common.num_xpu as usize;
    let mut pts = Vec::new();
    for (u, ack_vc) in [1u32, 0].into_iter().enumerate() {
        let mut stall = vec![0u32; n];
        stall[0] = 1;
        let t = Traffic { load, xpu_vc_pause: stall, ..Default::default() };
        pts.push(r.run(&format!("ack_vc {ack_vc}"), n, &format!("ack_vc = {ack_vc}"), r.switch(n), t, 400 + u as u64)?);
    }
    let mut s = String::from("| ACKs on | VC 0 commands delivered (window) | VC 1 commands delivered (window) | commands sent by XPU 0 and delivered (window) | RTOs | retransmitted PDUs | drain cycles to quiet |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for p in &pts {
        let _ = writeln!(s, "| {} | {} | {} | {} | {} | {} | {} |", p.label, p.per_vc[0], p.per_vc.get(1).copied().unwrap_or(0), p.per_source[0], p.rtos, p.retx, p.total_cycles - p.cycles);
    }
    s += &violations(&pts);
    Ok(Figure { title: format!("F7: XPU 0 stalls VC 0 consumption for the whole window ({n} XPUs, offered load {load}, no loss)"), table: s, points: pts })
}

/// The (`ack_coalesce`, `ack_delay_cycles`) points of F6.
pub const ACK_POINTS: [(u32, u32); 6] = [(1, 64), (2, 8), (2, 64), (2, 512), (4, 64), (4, 512)];

/// F6: acknowledgement overhead on 2 XPUs (no loss, no reordering) at `load` per sending
/// direction, one-way (XPU 0 → 1: every ACK must travel alone) and two-way (both send: ACKs can
/// ride on data), for each (`ack_coalesce`, `ack_delay_cycles`) of `points`. Counted on the
/// links from the RH of every PDU the endpoints sent; 1/`ack_coalesce` is the one-way ratio
/// when the delay timer never fires first.
pub fn ack_overhead(r: &mut Runner, load: f64, points: &[(u32, u32)]) -> Result<Figure, CampaignError> {
    let mut pts = Vec::new();
    for (u, &(c, d)) in points.iter().enumerate() {
        for (v, two_way) in [false, true].into_iter().enumerate() {
            let pattern = if two_way { Pattern::Uniform } else { Pattern::Incast { dst: 1, senders: vec![0] } };
            let t = Traffic { load, pattern, ..Default::default() };
            let label = format!("{c}, {d}, {}", if two_way { "two-way" } else { "one-way" });
            pts.push(r.run(&label, 2, &format!("ack_coalesce = {c}\nack_delay_cycles = {d}"), r.switch(2), t, 500 + 2 * u as u64 + v as u64)?);
        }
    }
    let mut s = String::from("| ack_coalesce | ack_delay_cycles | traffic | data PDUs | commands/PDU | control ACK (NACK) PDUs | control PDUs per data PDU | 1/ack_coalesce | ACKs piggybacked | piggyback ratio (of all ACKs) | ACK-carrying data PDUs | goodput | accept → completion p50 / p99 (cycles) |\n|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for p in &pts {
        let mut it = p.label.split(", ");
        let (c, d, traffic) = (it.next().unwrap_or(""), it.next().unwrap_or(""), it.next().unwrap_or(""));
        let l = &p.link;
        let ctrl = l.ctrl_ack + l.ctrl_nack;
        let acks = l.ctrl_ack + l.piggy_ack;
        let pred = if traffic == "one-way" { format!("{:.3}", 1.0 / c.parse::<f64>().unwrap_or(1.0)) } else { "—".into() };
        let _ = writeln!(
            s,
            "| {c} | {d} | {traffic} | {} | {:.2} | {} ({}) | {:.3} | {pred} | {} | {:.3} | {:.1} % | {:.3} | {} / {} |",
            p.data_pdus,
            p.cmds_per_pdu,
            ctrl,
            l.ctrl_nack,
            ctrl as f64 / p.data_pdus.max(1) as f64,
            l.piggy_ack,
            l.piggy_ack as f64 / acks.max(1) as f64,
            100.0 * (l.piggy_ack + l.piggy_nack) as f64 / p.data_pdus.max(1) as f64,
            p.goodput,
            p.cmpl_p50,
            p.cmpl_p99
        );
    }
    s += &violations(&pts);
    Ok(Figure { title: format!("F6: ACK overhead vs ack_coalesce and ack_delay_cycles (2 XPUs, offered load {load} of the link per sending direction, no loss)"), table: s, points: pts })
}
