//! N XPUs, each a `sue_endpoint` (Verilated RTL in lockstep with its model, or the model
//! alone), connected through the behavioural [`Switch`] (contract §5.5). Random commands go to
//! random {destination, VC}; the scoreboards check, on every command and PDU:
//!
//! - exactly once and in order per {src, dst, VC}, bit-exact (each command carries src, dst, VC
//!   and a per-{src, dst, VC} sequence number, the rest random bytes);
//! - no PDU payload above `max_pack_bytes`, every PDU well formed with a good R-CRC as sent;
//! - completions never exceed the commands accepted, and equal them once the fabric is quiet;
//! - RTL and model outputs identical every cycle (the endpoint's every top-level output).
//!
//! Violations are counted in a [`Tally`] (first one kept with its cycle), so a campaign can
//! report them and a test can assert zero.

use super::switch::{Switch, SwitchConfig};
use crate::campaign::CampaignError;
use crate::cosim::sue_endpoint::EndpointDut;
use crate::cosim::sue_transport::build_with_xpuid;
use crate::link::Tally;
use crate::{Bench, TestRng};
use rtl_gen::blocks::protocol::sue::wire::{parse_pdu, Op};
use rtl_gen::blocks::sue_endpoint::model::{EndpointModel, EpInputs};
use rtl_gen::blocks::sue_endpoint::SueEndpointBlock;
use std::collections::VecDeque;

/// Where sources send.
#[derive(Debug, Clone, PartialEq)]
pub enum Pattern {
    /// Every XPU to uniformly random other XPUs.
    Uniform,
    /// `senders` all to `dst`; the other XPUs are idle.
    Incast { dst: usize, senders: Vec<usize> },
}

/// Traffic of a run.
#[derive(Debug, Clone)]
pub struct Traffic {
    /// Offered command bytes per source as a fraction of the link rate.
    pub load: f64,
    pub pattern: Pattern,
    /// Relative weight of each VC (empty: uniform).
    pub vc_weights: Vec<f64>,
    /// Commands a source holds before it stops generating (the excess is counted as refused).
    pub backlog: usize,
    /// Per cycle probability an XPU takes a command beat (tready of its m_axis_cmd stream).
    pub out_ready: f64,
    /// Per XPU: `xpu_vc_pause` held while traffic is generated (a stalled consumer, F7).
    pub xpu_vc_pause: Vec<u32>,
}

impl Default for Traffic {
    fn default() -> Self {
        Traffic {
            load: 0.5,
            pattern: Pattern::Uniform,
            vc_weights: Vec::new(),
            backlog: 8,
            out_ready: 1.0,
            xpu_vc_pause: Vec::new(),
        }
    }
}

struct Xpu {
    model: EndpointModel,
    dut: Option<EndpointDut>,
    /// Commands to offer: (dest, vc, bytes).
    cmds: VecDeque<(usize, usize, Vec<u8>)>,
    beat: usize,
    tx_pdu: Vec<u8>,
    tx_dest: usize,
    tx_vc: usize,
    out_cur: Vec<u8>,
}

/// The endpoint blocks of an N-XPU fabric, in XPU order: `base`'s fields with `num_xpu = n` and
/// `overrides` (TOML `field = value` lines). With the id on a port (`xpuid_source = "port"`,
/// the default) the design has ONE endpoint block and every XPU is that module, its
/// `local_xpuid` input driven with k; with a constant id it has one block per XPU,
/// `local_xpuid = k`.
///
/// The design and block names carry `n` and a hash of the overrides: a [`Bench`] writes its tree
/// to `target/bench/<design name>/`, so two fabric designs under one name would overwrite each
/// other's Verilog and a later Verilator build would compile the other design's RTL (seen as
/// RTL/model mismatches from cycle 28 in a figures run).
pub fn fabric_bench(base: &SueEndpointBlock, n: usize, overrides: &str) -> Result<(Bench, Vec<SueEndpointBlock>), CampaignError> {
    let (text, prefix) = fabric_design(base, n, overrides);
    let bench = Bench::from_toml(&text, "sue fabric")?;
    let blocks = (0..n)
        .map(|k| bench.block::<SueEndpointBlock>(&block_name(&prefix, k, port_ids(base, overrides))).cloned())
        .collect::<Result<Vec<_>, _>>()?;
    Ok((bench, blocks))
}

/// The blocks of [`fabric_bench`] without generating or writing their Verilog: for fabrics of
/// models only.
pub fn fabric_blocks(base: &SueEndpointBlock, n: usize, overrides: &str) -> Result<Vec<SueEndpointBlock>, CampaignError> {
    let (text, _) = fabric_design(base, n, overrides);
    let d = rtl_gen::config::Design::parse(&text, "sue fabric").map_err(|e| CampaignError::Config(e.to_string()))?;
    let blocks: Vec<SueEndpointBlock> = d.blocks.iter().filter_map(|b| b.as_any().downcast_ref::<SueEndpointBlock>().cloned()).collect();
    Ok(if blocks.len() == 1 { vec![blocks[0].clone(); n] } else { blocks })
}

/// The fabric's ids come from the `local_xpuid` port: `base`'s choice unless `overrides` sets
/// `xpuid_source`.
fn port_ids(base: &SueEndpointBlock, overrides: &str) -> bool {
    match overrides.lines().find_map(|l| l.split_once('=').filter(|(k, _)| k.trim() == "xpuid_source")) {
        Some((_, v)) => v.trim().trim_matches('"') == "port",
        None => base.transport_block.resolved.xpuid_port,
    }
}

/// XPU k's block: the one shared block with port ids, else its own.
fn block_name(prefix: &str, k: usize, port: bool) -> String {
    if port {
        format!("{prefix}_ep")
    } else {
        format!("{prefix}_x{k}")
    }
}

/// The design text of an N-XPU fabric and its name prefix.
fn fabric_design(base: &SueEndpointBlock, n: usize, overrides: &str) -> (String, String) {
    let tag = overrides.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let prefix = format!("{}_f{n}_{:06x}", base.name, tag & 0xff_ffff);
    let mut text = format!("[design]\nname = \"{prefix}\"\n");
    let skip: Vec<&str> = overrides
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.trim()))
        .collect();
    let port = port_ids(base, overrides);
    for k in 0..if port { 1 } else { n } {
        text += &format!("[[blocks]]\nkind = \"sue_endpoint\"\nname = \"{}\"\nnum_xpu = {n}\n", block_name(&prefix, k, port));
        if !port {
            text += &format!("local_xpuid = {k}\n");
        }
        // JSON integers, booleans and (simple) strings are TOML values as written.
        for (f, v) in rtl_gen::fields::KindParams::to_list(&base.params) {
            if ["num_xpu", "local_xpuid"].contains(&f) || skip.contains(&f) {
                continue;
            }
            text += &format!("{f} = {v}\n");
        }
        text += overrides;
        text += "\n";
    }
    (text, prefix)
}

/// Commands accepted for one {src, dst, VC} and not yet delivered: (bytes, accept cycle).
type Expected = VecDeque<(Vec<u8>, u64)>;

/// The running fabric.
pub struct Fabric {
    xpus: Vec<Xpu>,
    blocks: Vec<SueEndpointBlock>,
    pub switch: Switch,
    pub traffic: Traffic,
    rng: TestRng,
    pub tally: Tally,
    pub cycle: u64,
    /// Generate no new commands from this cycle on.
    pub generating: bool,
    expect: Vec<Vec<Vec<Expected>>>,
    seq: Vec<Vec<Vec<u64>>>,
    /// Accept cycles of commands not yet completed, per {src, dst}.
    uncompleted: Vec<Vec<VecDeque<u64>>>,
    pub accepted: Vec<Vec<u64>>,
    pub delivered: Vec<Vec<u64>>,
    pub completed: Vec<Vec<u64>>,
    /// Commands delivered while traffic was generated, per {src, dst}.
    pub delivered_in_window: Vec<Vec<u64>>,
    /// Commands delivered while traffic was generated, per VC.
    pub delivered_vc_in_window: Vec<u64>,
    pub refused: u64,
    /// Accept (tlast in) → delivery (tlast out), cycles.
    pub latency: Vec<u64>,
    /// Accept → completion pulse at the sender, cycles.
    pub cmpl_latency: Vec<u64>,
    pub data_pdus: u64,
    pub cmds_in_pdus: u64,
    pub max_payload: usize,
    /// PDUs on the XPU → switch links, classified from their RH as sent (F6): control PDUs
    /// (no payload) carrying an ACK or a NACK, and data PDUs carrying an ACK/NACK (piggyback).
    pub link: LinkAcks,
}

/// Acknowledgements as counted on the XPU → switch links (every PDU every XPU sent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LinkAcks {
    pub ctrl_ack: u64,
    pub ctrl_nack: u64,
    pub piggy_ack: u64,
    pub piggy_nack: u64,
}

impl Fabric {
    /// `blocks[k]` is XPU k (its `local_xpuid` input driven with k, or a constant id k); `rtl[k]`
    /// builds it in Verilator from `bench`.
    pub fn new(
        bench: &Bench,
        blocks: &[SueEndpointBlock],
        rtl: &[bool],
        mut sw: SwitchConfig,
        traffic: Traffic,
        seed: u64,
        test: &str,
    ) -> Result<Fabric, CampaignError> {
        let n = blocks.len();
        let c = &blocks[0].common;
        if n < 2 || n != c.num_xpu as usize {
            return Err(CampaignError::Config(format!(
                "sue fabric: {n} endpoints for num_xpu = {}; allowed exactly num_xpu (2..=1024)",
                c.num_xpu
            )));
        }
        for (k, b) in blocks.iter().enumerate() {
            let id_ok = b.transport_block.resolved.xpuid_port || b.transport_block.resolved.local_xpuid as usize == k;
            if !id_ok || b.common != *c {
                return Err(CampaignError::Config(format!(
                    "sue fabric: block `{}` must take its id from the local_xpuid port or have local_xpuid = {k}, and the same shared fields as `{}`",
                    b.name, blocks[0].name
                )));
            }
        }
        sw.ports = n;
        sw.num_vc = c.num_vc as usize;
        sw.data_bytes = c.data_bytes as usize;
        sw.uplink.resize(n, Default::default());
        sw.downlink.resize(n, Default::default());
        let switch = Switch::new(sw).map_err(CampaignError::Config)?;
        let mut xpus = Vec::new();
        for (k, b) in blocks.iter().enumerate() {
            let dut = if rtl.get(k).copied().unwrap_or(false) {
                let m = bench.module(&b.name, rtl_gen::hw::module::Role::Endpoint)?;
                Some(EndpointDut::new(build_with_xpuid(bench.tree(), m.name(), &format!("{test}_{}_x{k}", b.name), k as u32)?)?)
            } else {
                None
            };
            xpus.push(Xpu {
                model: b.model(),
                dut,
                cmds: VecDeque::new(),
                beat: 0,
                tx_pdu: Vec::new(),
                tx_dest: 0,
                tx_vc: 0,
                out_cur: Vec::new(),
            });
        }
        let v = c.num_vc as usize;
        Ok(Fabric {
            xpus,
            blocks: blocks.to_vec(),
            switch,
            traffic,
            rng: TestRng::from_seed(seed),
            tally: Tally::default(),
            cycle: 0,
            generating: true,
            expect: vec![vec![vec![VecDeque::new(); v]; n]; n],
            seq: vec![vec![vec![0; v]; n]; n],
            uncompleted: vec![vec![VecDeque::new(); n]; n],
            accepted: vec![vec![0; n]; n],
            delivered: vec![vec![0; n]; n],
            completed: vec![vec![0; n]; n],
            delivered_in_window: vec![vec![0; n]; n],
            delivered_vc_in_window: vec![0; v],
            refused: 0,
            latency: Vec::new(),
            cmpl_latency: Vec::new(),
            data_pdus: 0,
            cmds_in_pdus: 0,
            max_payload: 0,
            link: LinkAcks::default(),
        })
    }

    pub fn n(&self) -> usize {
        self.xpus.len()
    }

    pub fn model(&self, k: usize) -> &EndpointModel {
        &self.xpus[k].model
    }

    /// How many XPUs run their RTL.
    pub fn rtl_count(&self) -> usize {
        self.xpus.iter().filter(|x| x.dut.is_some()).count()
    }

    /// The Verilated module of each RTL XPU, in XPU order.
    pub fn rtl_modules(&self) -> Vec<String> {
        self.xpus.iter().filter_map(|x| x.dut.as_ref().map(|d| d.dut.info().name.clone())).collect()
    }

    /// Sum of one transport counter over every XPU.
    pub fn counter(&self, idx: usize) -> u64 {
        self.xpus.iter().map(|x| x.model.tp.counter(idx)).sum()
    }

    /// Queue one command from `src` to `dst` on `vc` (contract §5.5 contents).
    pub fn command(&mut self, src: usize, dst: usize, vc: usize) {
        let cb = self.blocks[0].common.cmd_bytes as usize;
        let mut cmd = self.rng.bytes(cb);
        cmd[0..2].copy_from_slice(&(src as u16).to_le_bytes());
        cmd[2..4].copy_from_slice(&(dst as u16).to_le_bytes());
        cmd[4] = vc as u8;
        if cb >= 16 {
            cmd[8..16].copy_from_slice(&self.seq[src][dst][vc].to_le_bytes());
        }
        self.seq[src][dst][vc] += 1;
        self.xpus[src].cmds.push_back((dst, vc, cmd));
    }

    fn pick_vc(&mut self) -> usize {
        let v = self.blocks[0].common.num_vc as usize;
        let w = &self.traffic.vc_weights;
        if w.len() != v {
            return self.rng.range(0, v as u64 - 1) as usize;
        }
        let total: f64 = w.iter().sum();
        let mut x = self.rng.splitmix().unit() * total;
        for (k, &wk) in w.iter().enumerate() {
            if x < wk {
                return k;
            }
            x -= wk;
        }
        v - 1
    }

    fn generate(&mut self) {
        let n = self.n();
        let cb = f64::from(self.blocks[0].common.cmd_bytes);
        let p = (self.traffic.load * self.switch.cfg.link_bytes_per_cycle / cb).min(1.0);
        for src in 0..n {
            let dst = match &self.traffic.pattern {
                Pattern::Uniform => None,
                Pattern::Incast { dst, senders } => {
                    if !senders.contains(&src) {
                        continue;
                    }
                    Some(*dst)
                }
            };
            if !self.rng.chance(p) {
                continue;
            }
            if self.xpus[src].cmds.len() >= self.traffic.backlog {
                self.refused += 1;
                continue;
            }
            let dst = dst.unwrap_or_else(|| (src + 1 + self.rng.range(0, n as u64 - 2) as usize) % n);
            let vc = self.pick_vc();
            self.command(src, dst, vc);
        }
    }

    /// Commands accepted and not yet delivered.
    pub fn outstanding(&self) -> usize {
        self.expect.iter().flatten().flatten().map(|q| q.len()).sum()
    }

    /// Nothing left anywhere: no command queued, in flight, unacknowledged or undelivered.
    pub fn quiet(&self) -> bool {
        self.outstanding() == 0
            && self.switch.empty()
            && self.xpus.iter().all(|x| {
                x.cmds.is_empty()
                    && x.tx_pdu.is_empty()
                    && x.model.tp.unacked() == 0
                    && x.model.pk.outputs(&Default::default()).queued_cmds == 0
            })
    }

    /// One clock cycle of every XPU and the switch.
    pub fn step(&mut self) -> Result<(), CampaignError> {
        if self.generating {
            self.generate();
        }
        let cyc = self.cycle;
        let c = self.blocks[0].common.clone();
        let db = c.data_bytes as usize;
        let cbt = c.cmd_beats() as usize;
        let rcrc = self.blocks[0].transport_block.resolved.rcrc;
        for k in 0..self.n() {
            let mut i = EpInputs {
                tx_ready: self.switch.tx_ready(k),
                tx_vc_pause: self.switch.tx_pause(k),
                out_ready: self.rng.chance(self.traffic.out_ready),
                xpu_vc_pause: if self.generating { self.traffic.xpu_vc_pause.get(k).copied().unwrap_or(0) } else { 0 },
                cmd_data: vec![0; db],
                rx_data: vec![0; db],
                local_xpuid: k as u32,
                ..Default::default()
            };
            let x = &mut self.xpus[k];
            if let Some((dst, vc, cmd)) = x.cmds.front() {
                i.cmd_valid = true;
                i.cmd_data = cmd[x.beat * db..(x.beat + 1) * db].to_vec();
                i.cmd_last = x.beat + 1 == cbt;
                i.cmd_dest = *dst as u32;
                i.cmd_user = *vc as u8;
            }
            if let Some((b, ferr)) = self.switch.rx_offer(k) {
                i.rx_valid = true;
                i.rx_data = b.data.clone();
                i.rx_keep = b.keep;
                i.rx_last = b.last;
                i.rx_user = ferr;
            }
            let (po, o) = x.model.outputs(&i);
            if let Some(d) = x.dut.as_mut() {
                d.drive(&i, db)?;
                d.compare(&mut self.tally, cyc, &po, &o, db)?;
            }
            if i.cmd_valid && po.cmd_ready {
                if i.cmd_last {
                    let (dst, vc, cmd) = x.cmds.pop_front().expect("offered");
                    x.beat = 0;
                    self.accepted[k][dst] += 1;
                    self.expect[k][dst][vc].push_back((cmd, cyc));
                    self.uncompleted[k][dst].push_back(cyc);
                } else {
                    x.beat += 1;
                }
            }
            if o.tx_valid && i.tx_ready {
                if x.tx_pdu.is_empty() {
                    x.tx_dest = o.tx_dest as usize;
                    x.tx_vc = o.tx_user as usize;
                }
                x.tx_pdu.extend_from_slice(&o.tx_data[..o.tx_keep.count_ones() as usize]);
                self.switch.tx_beat(k, o.tx_last);
                if o.tx_last {
                    let pdu = std::mem::take(&mut x.tx_pdu);
                    let payload = pdu.len().saturating_sub(12);
                    self.max_payload = self.max_payload.max(payload);
                    let parsed = parse_pdu(&pdu, c.cmd_bytes as usize, rcrc);
                    self.tally.compare(
                        cyc,
                        "scoreboard: PDU within max_pack_bytes, well formed, good R-CRC",
                        true,
                        payload <= c.max_pack_bytes as usize && parsed.is_ok(),
                    );
                    if let Ok((rh, _)) = parsed {
                        self.tally.compare(cyc, "scoreboard: RH xpuid = the sending XPU", k as u64, u64::from(rh.xpuid));
                        let l = &mut self.link;
                        match (payload > 0, rh.op) {
                            (false, Op::Ack) => l.ctrl_ack += 1,
                            (false, Op::Nack) => l.ctrl_nack += 1,
                            (true, Op::Ack) => l.piggy_ack += 1,
                            (true, Op::Nack) => l.piggy_nack += 1,
                            _ => {}
                        }
                    }
                    if payload > 0 {
                        self.data_pdus += 1;
                        self.cmds_in_pdus += (payload / c.cmd_bytes as usize) as u64;
                    }
                    self.switch.ingress(k, pdu, x.tx_dest, x.tx_vc);
                }
            }
            if i.rx_valid && o.rx_ready {
                self.switch.rx_accept(k);
            }
            self.switch.set_rx_pause(k, o.rx_vc_pause);
            if o.cmd_valid && i.out_ready {
                x.out_cur.extend_from_slice(&o.cmd_data);
                if o.cmd_last {
                    let cmd = std::mem::take(&mut x.out_cur);
                    let (src, vc) = (o.cmd_tid as usize, o.cmd_user as usize);
                    let want = self
                        .expect
                        .get_mut(src)
                        .and_then(|e| e[k].get_mut(vc))
                        .and_then(|q| q.pop_front());
                    self.tally.compare(
                        cyc,
                        "scoreboard: command exactly once, in order per {src, dst, vc}, bit-exact",
                        want.as_ref().map(|w| &w.0[..]),
                        Some(&cmd[..]),
                    );
                    if let Some((_, at)) = want {
                        self.latency.push(cyc - at);
                        self.delivered[src][k] += 1;
                        if self.generating {
                            self.delivered_in_window[src][k] += 1;
                            self.delivered_vc_in_window[vc] += 1;
                        }
                    }
                }
            }
            if o.cmpl_valid {
                let dst = o.cmpl_dest as usize;
                for _ in 0..o.cmpl_cmds {
                    match self.uncompleted[k].get_mut(dst).and_then(|q| q.pop_front()) {
                        Some(at) => self.cmpl_latency.push(cyc - at),
                        None => self.tally.compare(
                            cyc,
                            "scoreboard: completions never exceed the commands accepted",
                            self.accepted[k].get(dst).copied(),
                            self.completed[k].get(dst).map(|c| c + 1),
                        ),
                    }
                    if let Some(c) = self.completed[k].get_mut(dst) {
                        *c += 1;
                    }
                }
            }
            x.model.clock(&i);
            if let Some(d) = x.dut.as_mut() {
                d.dut.tick();
            }
        }
        self.switch.tick();
        self.cycle += 1;
        Ok(())
    }

    /// Stop generating, run until quiet (at most `limit` cycles), then the end-of-run checks:
    /// quiet, and completions equal to the commands accepted per {src, dst}. Returns the cycles
    /// the drain took.
    pub fn drain(&mut self, limit: u64) -> Result<u64, CampaignError> {
        self.generating = false;
        let start = self.cycle;
        // Quiet must hold for longer than a delayed ACK can wait: a receiver may still owe a
        // cumulative ACK (duplicates re-ACKed) after the last completion.
        let settle = u64::from(self.blocks[0].transport_block.resolved.ack_delay_cycles) + 64;
        let mut calm = 0;
        while calm < settle && self.cycle - start < limit {
            self.step()?;
            calm = if self.quiet() { calm + 1 } else { 0 };
        }
        let c = self.cycle;
        let q = self.quiet();
        self.tally.compare(c, "scoreboard: everything delivered and acknowledged after draining", true, q);
        for s in 0..self.n() {
            for d in 0..self.n() {
                self.tally.compare(
                    c,
                    "scoreboard: completions = commands accepted",
                    self.accepted[s][d],
                    self.completed[s][d],
                );
            }
        }
        Ok(self.cycle - start)
    }
}
