//! Packing efficiency vs offered load (contract §5.6 F1), measured on the RTL packer.
//!
//! The XPU side offers commands to uniformly random {destination, VC} queues at a fraction of
//! the Ethernet link rate; the link is slower than the command bus (seed §4.4: "the XPU to SUE
//! interface is at higher speed than the SUE to Ethernet interface"), modelled as a byte token
//! bucket on the PDU stream's tready that also charges every PDU its fixed overhead (RH + R-CRC
//! 12 B plus Ethernet/IPv4/UDP 66 B incl. preamble, IFG and FCS, the contract's §3 table). Each
//! point reports commands per PDU, the wire efficiency it gives, and the packing latency
//! (command tlast → its PDU's first beat) in cycles.

use crate::cosim::sue::{Cmd, PackerLockstep};
use crate::{Bench, SimError, TestRng};
use rtl_gen::blocks::sue_packer::model::PkInputs;
use rtl_gen::blocks::sue_packer::SuePackerBlock;
use serde::Serialize;

/// Bytes of wire overhead per PDU besides its commands: RH 8 + R-CRC 4 + Eth/IPv4/UDP 66.
pub const PDU_OVERHEAD: u64 = rtl_gen::analysis::sue::PDU_OVERHEAD_BYTES as u64;

/// Wire overhead per PDU besides its commands for each encapsulation of the contract's derived
/// efficiency table (§5.6 F1; preamble/SFD 8 + IFG 12 + MAC 14 + FCS 4, the network headers,
/// RH 8 + R-CRC 4). This version sends no encapsulation; the packing it reaches is what decides.
pub const HEADER_OPTIONS: [(&str, u64); 3] =
    [("Eth/IPv4/UDP", PDU_OVERHEAD), ("Eth/IPv6/UDP", 98), ("AFH Gen 1 + VLAN", 54)];

/// Share of the wire carrying command bytes at `cmds_per_pdu` commands of `cmd_bytes` per PDU
/// and `overhead` bytes per PDU.
pub fn wire_efficiency(cmds_per_pdu: f64, cmd_bytes: u64, overhead: u64) -> f64 {
    let payload = cmds_per_pdu * cmd_bytes as f64;
    if payload <= 0.0 {
        0.0
    } else {
        payload / (payload + overhead as f64)
    }
}

#[derive(Debug, Clone)]
pub struct PackingOptions {
    /// The `sue_packer` block.
    pub block: String,
    /// Offered command bytes as fractions of the link rate.
    pub loads: Vec<f64>,
    /// Cycles per load point.
    pub cycles: u64,
    /// Link rate as a fraction of the command bus (data_bytes per cycle).
    pub link_ratio: f64,
    pub seed: u64,
}

impl Default for PackingOptions {
    fn default() -> Self {
        PackingOptions {
            block: "sue_pk".into(),
            loads: vec![0.1, 0.3, 0.5, 0.7, 0.9, 1.1, 1.5],
            cycles: 20_000,
            link_ratio: 0.5,
            seed: 1,
        }
    }
}

/// One load point.
#[derive(Debug, Clone, Serialize)]
pub struct PackingPoint {
    pub load: f64,
    /// Command bytes accepted per cycle / link bytes per cycle.
    pub accepted_load: f64,
    pub pdus: u64,
    pub cmds: u64,
    pub cmds_per_pdu: f64,
    /// Command bytes / wire bytes.
    pub wire_efficiency: f64,
    pub latency_p50: u64,
    pub latency_p99: u64,
    pub latency_max: u64,
    /// Lockstep and scoreboard mismatches (must be 0).
    pub mismatches: u64,
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Run every load point on its own freshly reset DUT.
pub fn run(bench: &Bench, opts: &PackingOptions) -> Result<Vec<PackingPoint>, SimError> {
    let b = bench.block::<SuePackerBlock>(&opts.block)?;
    let c = b.common.clone();
    let link = opts.link_ratio * f64::from(c.data_bytes);
    let mut out = Vec::new();
    for (k, &load) in opts.loads.iter().enumerate() {
        let mut t = PackerLockstep::new(bench, b, &format!("sue_packing_{}", opts.block))?;
        let mut rng = TestRng::from_seed(opts.seed.wrapping_add(k as u64));
        let p_cmd = (load * link / f64::from(c.cmd_bytes)).min(1.0);
        let mut bucket = 0.0f64;
        let mut seq = 0u32;
        let mut waiting: u64 = 0;
        for _ in 0..opts.cycles {
            if rng.chance(p_cmd) {
                waiting += 1;
            }
            // The source keeps one command on the bus; backlog beyond is the offered excess.
            if t.pending.is_empty() && waiting > 0 {
                waiting -= 1;
                let d = rng.range(0, c.num_xpu as u64 - 1) as u32;
                let v = rng.range(0, c.num_vc as u64 - 1) as u32;
                let cmd: Cmd = t.command(&mut rng, seq, d, v);
                seq += 1;
                t.pending.push_back(cmd);
            }
            bucket = (bucket + link).min(4.0 * f64::from(c.data_bytes) + PDU_OVERHEAD as f64);
            let o = t.model.outputs(&PkInputs::default());
            let first_beat = o.pdu_valid && t.pdus_in_progress() == 0;
            let cost = f64::from(c.data_bytes) + if first_beat { PDU_OVERHEAD as f64 } else { 0.0 };
            let ready = bucket >= cost;
            if ready && o.pdu_valid {
                bucket -= cost;
            }
            t.step(PkInputs {
                pdu_ready: ready,
                ..Default::default()
            })?;
        }
        let pdus = t.pdus.len() as u64;
        let cmds: u64 = t.pdus.iter().map(|p| u64::from(p.ncmds)).sum();
        let mut lat = t.latencies.clone();
        lat.sort_unstable();
        let cmd_bytes = cmds * u64::from(c.cmd_bytes);
        out.push(PackingPoint {
            load,
            accepted_load: cmd_bytes as f64 / opts.cycles as f64 / link,
            pdus,
            cmds,
            cmds_per_pdu: if pdus == 0 {
                0.0
            } else {
                cmds as f64 / pdus as f64
            },
            wire_efficiency: if pdus == 0 {
                0.0
            } else {
                wire_efficiency(cmds as f64 / pdus as f64, u64::from(c.cmd_bytes), PDU_OVERHEAD)
            },
            latency_p50: percentile(&lat, 0.5),
            latency_p99: percentile(&lat, 0.99),
            latency_max: lat.last().copied().unwrap_or(0),
            mismatches: t.tally.mismatches,
        });
    }
    Ok(out)
}

/// Markdown table of the points.
pub fn table(points: &[PackingPoint]) -> String {
    let mut s = String::from("| offered load | sent load | PDUs | commands | commands/PDU | wire efficiency | packing latency p50 / p99 / max (cycles) | mismatches |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for p in points {
        s += &format!(
            "| {:.2} | {:.3} | {} | {} | {:.2} | {:.1} % | {} / {} / {} | {} |\n",
            p.load,
            p.accepted_load,
            p.pdus,
            p.cmds,
            p.cmds_per_pdu,
            100.0 * p.wire_efficiency,
            p.latency_p50,
            p.latency_p99,
            p.latency_max,
            p.mismatches
        );
    }
    s
}

/// CSV of the points.
pub fn csv(points: &[PackingPoint]) -> String {
    let mut s = String::from("load,sent_load,pdus,cmds,cmds_per_pdu,wire_efficiency,latency_p50,latency_p99,latency_max,mismatches\n");
    for p in points {
        s += &format!(
            "{},{:.4},{},{},{:.4},{:.4},{},{},{},{}\n",
            p.load,
            p.accepted_load,
            p.pdus,
            p.cmds,
            p.cmds_per_pdu,
            p.wire_efficiency,
            p.latency_p50,
            p.latency_p99,
            p.latency_max,
            p.mismatches
        );
    }
    s
}

/// The wire efficiency of full PDUs of block `block` (its most commands per PDU) and that number
/// of commands: the level the packing approaches at saturation.
pub fn full_pdu_efficiency(bench: &Bench, block: &str) -> Result<(f64, u64), SimError> {
    let c = &bench.block::<SuePackerBlock>(block)?.common;
    let n = u64::from(c.max_cmds());
    Ok((wire_efficiency(n as f64, u64::from(c.cmd_bytes), PDU_OVERHEAD), n))
}

/// The plot of the points: wire efficiency (%) with the full-PDU level `full` (efficiency,
/// commands per PDU) dashed, and packing latency p50 / p99 (cycles) against offered load,
/// `title` on top.
pub fn svg(points: &[PackingPoint], full: Option<(f64, u64)>, title: &str) -> String {
    use crate::plot::{Axis, Panel, Plot, Scale, Series, Style};
    let load: Vec<f64> = points.iter().map(|p| p.load).collect();
    let eff: Vec<(f64, f64)> = points.iter().map(|p| (p.load, 100.0 * p.wire_efficiency)).collect();
    let p50: Vec<(f64, f64)> = points.iter().map(|p| (p.load, p.latency_p50 as f64)).collect();
    let p99: Vec<(f64, f64)> = points.iter().map(|p| (p.load, p.latency_p99 as f64)).collect();
    let lat: Vec<f64> = p99.iter().chain(&p50).map(|&(_, v)| v).collect();
    let x = Scale::linear_fit(&load);
    let mut efficiency = vec![Series::new("command bytes / wire bytes", eff, Style::Line)];
    if let (Some((e, n)), Scale::Linear { min, max, .. }) = (full, &x) {
        efficiency.push(Series::new(format!("{n} commands per PDU: {:.1} %", 100.0 * e), vec![(*min, 100.0 * e), (*max, 100.0 * e)], Style::Curve));
    }
    Plot {
        title: title.into(),
        x: Axis { label: "offered load (fraction of the link rate)".into(), scale: x },
        panels: vec![
            Panel { y: Axis { label: "wire efficiency (%)".into(), scale: Scale::Linear { min: 0.0, max: 100.0, step: 20.0 } }, series: efficiency },
            Panel {
                y: Axis { label: "packing latency (cycles)".into(), scale: Scale::linear_fit(&lat) },
                series: vec![Series::new("p50 (tlast to first PDU beat)", p50, Style::Line), Series::new("p99", p99, Style::Dashed)],
            },
        ],
    }
    .svg()
}

/// `bench`'s `sue_packer` block `block` with `hold_cycles` replaced, as a one-block design
/// (block `pk_h<hold>`), for the packing-vs-hold_cycles figure.
pub fn with_hold(bench: &Bench, block: &str, hold: u32) -> Result<Bench, SimError> {
    use rtl_gen::fields::KindParams;
    let b = bench.block::<SuePackerBlock>(block)?;
    let mut text = format!("[design]\nname = \"sue_hold_{hold}\"\n[[blocks]]\nkind = \"sue_packer\"\nname = \"pk_h{hold}\"\nhold_cycles = {hold}\n");
    // JSON integers, booleans and (simple) strings are TOML values as written.
    for (f, v) in b.params.to_list() {
        if f == "hold_cycles" {
            continue;
        }
        text += &format!("{f} = {v}\n");
    }
    Bench::from_toml(&text, "sue packer hold_cycles")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The contract's derived table (64-byte commands, 1 / 2 / 64 per PDU), to 0.1 %.
    #[test]
    fn wire_efficiency_reproduces_the_contract_table() {
        let want = [[45.1, 62.1, 98.1], [39.5, 56.6, 97.7], [54.2, 70.3, 98.7]];
        for ((name, ovh), row) in HEADER_OPTIONS.iter().zip(want) {
            for (n, w) in [1.0, 2.0, 64.0].into_iter().zip(row) {
                let got = 100.0 * wire_efficiency(n, 64, *ovh);
                assert!((got - w).abs() < 0.05, "{name}, {n} commands: {got:.2} % against {w} %");
            }
        }
        assert_eq!(wire_efficiency(0.0, 64, 78), 0.0);
    }

    /// Two points: one dot per point and series, the efficiency in percent, the axis labels.
    #[test]
    fn svg_draws_efficiency_and_latency() {
        let pt = |load: f64, eff: f64, p50: u64, p99: u64| PackingPoint { load, accepted_load: load, pdus: 1, cmds: 1, cmds_per_pdu: 1.0, wire_efficiency: eff, latency_p50: p50, latency_p99: p99, latency_max: p99, mismatches: 0 };
        let s = svg(&[pt(0.5, 0.25, 10, 40), pt(1.0, 0.75, 20, 80)], Some((0.8, 8)), "SUE packing");
        // x 0..1 over 90..640; efficiency 25 % / 75 % of 0..100 over 305..55.
        assert!(s.contains(r#"points="365.0,242.5 640.0,117.5""#), "{s}");
        // Latency axis 0..80 (step 10) over 615..365: p50 10 → 583.8, 20 → 552.5.
        assert!(s.contains(r#"points="365.0,583.8 640.0,552.5""#), "{s}");
        assert_eq!(s.matches("<circle").count(), 6 + 3);
        // The full-PDU level, 80 %, across the axis.
        assert!(s.contains(r#"stroke-dasharray="6 4" points="90.0,105.0 640.0,105.0""#), "{s}");
        for l in ["8 commands per PDU: 80.0 %", "wire efficiency (%)", "packing latency (cycles)", "offered load (fraction of the link rate)", ">p99<", "SUE packing"] {
            assert!(s.contains(l), "{l}");
        }
    }
}
