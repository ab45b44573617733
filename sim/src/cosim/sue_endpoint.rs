//! SUE endpoints (`sue_endpoint`: packer + transport) back to back in Verilator, each in
//! lockstep with its model (every top-level output every cycle), through a channel that drops,
//! corrupts and flags PDUs. Commands go in at s_axis_cmd and come out of the other endpoint's
//! m_axis_cmd; scoreboards check exactly once, in order per {src, dst, VC}, bit-exact, no PDU
//! over max_pack_bytes and completions equal to the commands accepted once all is quiet.

use super::sue_link::{CmdScoreboard, LinkFaults, PduChannel, RxPdu};
use super::sue_transport::{build_with_xpuid, compare_transport, drive_xpuid, keep_bits, TransportPorts};
use super::Tally;
use crate::axis::Axis;
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::hw::axis::Signal::{Data, Dest, Keep, Last, Ready, User, Valid};
use rtl_gen::blocks::protocol::sue::wire::parse_pdu;
use rtl_gen::blocks::sue_endpoint::model::{EndpointModel, EpInputs};
use rtl_gen::blocks::sue_packer::model::PkOutputs;
use rtl_gen::blocks::sue_transport::model::TpOutputs;
use rtl_gen::blocks::sue_endpoint::{SueEndpointBlock, SueEndpointParams, PACKER_COUNTERS};
use std::collections::VecDeque;

struct Ep {
    b: SueEndpointBlock,
    model: EndpointModel,
    dut: Option<EndpointDut>,
    /// Commands to offer: (dest, vc, bytes).
    cmds: VecDeque<(u32, u32, Vec<u8>)>,
    beat: usize,
    tx_pdu: Vec<u8>,
    tx_dest: u32,
    rx_cur: Option<RxPdu>,
    out_cur: Vec<u8>,
    completed: Vec<u64>,
}

/// Endpoints 0..n (RTL where built), a channel per receiver, scoreboards.
pub struct EndpointLink {
    eps: Vec<Ep>,
    /// The wire between the XPUs (a clean 16-cycle wire until the faults are set).
    pub chan: PduChannel,
    /// Commands the endpoints accepted, against what they deliver.
    pub sb: CmdScoreboard,
    pub tally: Tally,
    pub cycle: u64,
    /// Data PDUs sent and the commands they carried.
    pub pdus: u64,
    pub cmds_in_pdus: u64,
    pub max_pdu_payload: usize,
}

impl EndpointLink {
    /// `blocks[k]` is XPU k's endpoint (its `local_xpuid` input driven with k, or a constant
    /// `local_xpuid = k`); each is built in Verilator.
    pub fn new(
        bench: &Bench,
        blocks: &[SueEndpointBlock],
        test: &str,
    ) -> Result<EndpointLink, SimError> {
        let mods = blocks
            .iter()
            .map(|b| {
                bench
                    .module(&b.name, rtl_gen::hw::module::Role::Endpoint)
                    .map(Some)
            })
            .collect::<Result<Vec<_>, _>>()?;
        EndpointLink::with_modules(bench, blocks, &mods, test)
    }

    /// `mods[k]`: XPU k's module in Verilator, or None for a model-only peer.
    pub fn with_modules(
        bench: &Bench,
        blocks: &[SueEndpointBlock],
        mods: &[Option<&rtl_gen::elab::ElabModule>],
        test: &str,
    ) -> Result<EndpointLink, SimError> {
        let n = blocks.len();
        let x = blocks[0].common.num_xpu as usize;
        let v = blocks[0].common.num_vc as usize;
        let mut eps = Vec::new();
        for (k, (b, m)) in blocks.iter().zip(mods).enumerate() {
            let dut = match m {
                Some(m) => Some(EndpointDut::new(build_with_xpuid(bench.tree(), m.name(), &format!("{test}_{}_x{k}", b.name), k as u32)?)?),
                None => None,
            };
            eps.push(Ep {
                b: b.clone(),
                model: b.model(),
                dut,
                cmds: VecDeque::new(),
                beat: 0,
                tx_pdu: Vec::new(),
                tx_dest: 0,
                rx_cur: None,
                out_cur: Vec::new(),
                completed: vec![0; x],
            });
        }
        Ok(EndpointLink {
            eps,
            chan: PduChannel::new(n, LinkFaults::default()),
            sb: CmdScoreboard::new(n, v),
            tally: Tally::default(),
            cycle: 0,
            pdus: 0,
            cmds_in_pdus: 0,
            max_pdu_payload: 0,
        })
    }

    /// Queue one command from `src` to `dst` on `vc`.
    pub fn command(&mut self, rng: &mut TestRng, src: usize, dst: usize, vc: usize) {
        let cb = self.eps[0].b.common.cmd_bytes as usize;
        let cmd = self.sb.make(rng, cb, src, dst, vc);
        self.eps[src].cmds.push_back((dst as u32, vc as u32, cmd));
    }

    pub fn queued(&self, src: usize) -> usize {
        self.eps[src].cmds.len()
    }

    pub fn quiet(&self) -> bool {
        self.sb.outstanding() == 0
            && self.eps.iter().all(|e| {
                e.cmds.is_empty()
                    && e.model.tp.unacked() == 0
                    && e.rx_cur.is_none()
                    && e.model.pk.outputs(&Default::default()).queued_cmds == 0
            })
            && self.chan.is_empty()
    }

    pub fn completed(&self, src: usize, dst: usize) -> u64 {
        self.eps[src].completed[dst]
    }

    pub fn model(&self, k: usize) -> &EndpointModel {
        &self.eps[k].model
    }

    pub fn step(
        &mut self,
        rng: &mut TestRng,
        tx_ready: f64,
        out_ready: f64,
        pause: f64,
    ) -> Result<(), SimError> {
        let cyc = self.cycle;
        let n = self.eps.len();
        for k in 0..n {
            let c = self.eps[k].b.common.clone();
            let db = c.data_bytes as usize;
            let cbt = c.cmd_beats() as usize;
            let mut i = EpInputs {
                tx_ready: rng.chance(tx_ready),
                out_ready: rng.chance(out_ready),
                cmd_data: vec![0; db],
                rx_data: vec![0; db],
                local_xpuid: k as u32,
                ..Default::default()
            };
            if rng.chance(pause) {
                i.tx_vc_pause = rng.range(0, (1 << c.num_vc) - 1) as u32;
            }
            if rng.chance(pause) {
                i.xpu_vc_pause = rng.range(0, (1 << c.num_vc) - 1) as u32;
            }
            let ep = &mut self.eps[k];
            if let Some((dst, vc, cmd)) = ep.cmds.front() {
                i.cmd_valid = true;
                i.cmd_data = cmd[ep.beat * db..(ep.beat + 1) * db].to_vec();
                i.cmd_last = ep.beat + 1 == cbt;
                i.cmd_dest = *dst;
                i.cmd_user = *vc as u8;
            }
            if ep.rx_cur.is_none() {
                ep.rx_cur = self.chan.arrive(k, cyc, db);
            }
            if let Some(rx) = &ep.rx_cur {
                if rng.chance(0.9) {
                    let b = rx.beat();
                    i.rx_valid = true;
                    i.rx_data = b.data.to_vec();
                    i.rx_keep = b.keep;
                    i.rx_last = b.last;
                    i.rx_user = b.user;
                }
            }
            let (po, o) = ep.model.outputs(&i);
            if let Some(d) = ep.dut.as_mut() {
                d.drive(&i, db)?;
                d.compare(&mut self.tally, cyc, &po, &o, db)?;
            }
            // Handshakes from the compared model outputs.
            if i.cmd_valid && po.cmd_ready {
                if i.cmd_last {
                    let (dst, vc, cmd) = ep.cmds.pop_front().expect("offered");
                    ep.beat = 0;
                    self.sb.accepted(k, dst as usize, vc as usize, cmd);
                } else {
                    ep.beat += 1;
                }
            }
            if o.tx_valid && i.tx_ready {
                if ep.tx_pdu.is_empty() {
                    ep.tx_dest = o.tx_dest;
                }
                ep.tx_pdu
                    .extend_from_slice(&o.tx_data[..if o.tx_last { 12 } else { db }]);
                if o.tx_last {
                    let pdu = std::mem::take(&mut ep.tx_pdu);
                    let payload = pdu.len() - 12;
                    self.max_pdu_payload = self.max_pdu_payload.max(payload);
                    self.tally.compare(
                        cyc,
                        "scoreboard: PDU within max_pack_bytes and well formed",
                        true,
                        payload <= c.max_pack_bytes as usize
                            && parse_pdu(&pdu, c.cmd_bytes as usize, ep.b.transport_block.resolved.rcrc).is_ok(),
                    );
                    if payload > 0 {
                        self.pdus += 1;
                        self.cmds_in_pdus += (payload / c.cmd_bytes as usize) as u64;
                    }
                    self.chan.send(rng, cyc, ep.tx_dest as usize, pdu);
                }
            }
            if i.rx_valid && o.rx_ready && ep.rx_cur.as_mut().expect("delivering").taken() {
                ep.rx_cur = None;
            }
            if o.cmd_valid && i.out_ready {
                ep.out_cur.extend_from_slice(&o.cmd_data);
                if o.cmd_last {
                    let cmd = std::mem::take(&mut ep.out_cur);
                    let (src, vc) = (o.cmd_tid as usize, o.cmd_user as usize);
                    self.sb.delivered(&mut self.tally, cyc, k, src, vc, &cmd);
                }
            }
            if o.cmpl_valid {
                ep.completed[o.cmpl_dest as usize] += u64::from(o.cmpl_cmds);
            }
            ep.model.clock(&i);
            if let Some(d) = ep.dut.as_mut() {
                d.dut.tick();
            }
        }
        self.cycle += 1;
        Ok(())
    }
}

/// An endpoint in Verilator with its streams, found once from its ports: the commands in
/// (`s_axis_cmd`) and the transport's streams.
pub struct EndpointDut {
    pub dut: Dut,
    cmd_in: Axis,
    transport: TransportPorts,
}

impl EndpointDut {
    pub fn new(dut: Dut) -> Result<EndpointDut, SimError> {
        let (cmd_in, transport) = (Axis::of(&dut, "s_axis_cmd")?, TransportPorts::of(&dut, false)?);
        Ok(EndpointDut { dut, cmd_in, transport })
    }

    /// Set every input for this cycle and evaluate.
    pub fn drive(&mut self, i: &EpInputs, db: usize) -> Result<(), SimError> {
        let (d, cmd_in, TransportPorts { tx, rx, cmd, .. }) = (&mut self.dut, &self.cmd_in, &self.transport);
        cmd_in.set_u64(d, Valid, i.cmd_valid as u64)?;
        cmd_in.set(d, Data, &Bits::from_bytes_width(&i.cmd_data, 8 * db))?;
        cmd_in.set_u64(d, Last, i.cmd_last as u64)?;
        cmd_in.set_u64(d, Dest, u64::from(i.cmd_dest))?;
        cmd_in.set_u64(d, User, u64::from(i.cmd_user))?;
        tx.set_u64(d, Ready, i.tx_ready as u64)?;
        d.set_u64("tx_vc_pause", u64::from(i.tx_vc_pause))?;
        rx.set_u64(d, Valid, i.rx_valid as u64)?;
        rx.set(d, Data, &Bits::from_bytes_width(&i.rx_data, 8 * db))?;
        rx.set(d, Keep, &keep_bits(i.rx_keep, db))?;
        rx.set_u64(d, Last, i.rx_last as u64)?;
        rx.set_u64(d, User, i.rx_user as u64)?;
        cmd.set_u64(d, Ready, i.out_ready as u64)?;
        d.set_u64("xpu_vc_pause", u64::from(i.xpu_vc_pause))?;
        drive_xpuid(d, i.local_xpuid)?;
        d.eval();
        Ok(())
    }

    /// Compare every top-level output with the model's (packer side `po`, transport side `o`)
    /// in this cycle.
    pub fn compare(&self, t: &mut Tally, cyc: u64, po: &PkOutputs, o: &TpOutputs, db: usize) -> Result<(), SimError> {
        let d = &self.dut;
        t.compare(cyc, self.cmd_in.label(Ready), po.cmd_ready as u64, self.cmd_in.get_u64(d, Ready)?);
        let mut qs = Bits::zeros(po.q_space.len());
        for (j, &b) in po.q_space.iter().enumerate() {
            qs.set(j, b);
        }
        t.compare_bits(cyc, "q_space", &qs, &d.get("q_space")?);
        t.compare(cyc, "queued_cmds", u64::from(po.queued_cmds), d.get_u64("queued_cmds")?);
        for ((_, outer), val) in PACKER_COUNTERS.iter().zip(po.counters.values()) {
            t.compare(cyc, outer, val, d.get_u64(outer)?);
        }
        compare_transport(t, cyc, d, &self.transport, o, db)?;
        t.vectors += 1;
        Ok(())
    }
}

/// `rtl-gen cosim` driver: the endpoint in Verilator against its model, linked to model
/// endpoints for every other XPU through a lossy channel; commands to random peers and VCs.
pub fn endpoint(
    bench: &Bench,
    m: &rtl_gen::elab::ElabModule,
    opts: &super::Options,
    rng: &mut TestRng,
) -> Result<Tally, SimError> {
    let b = &super::kind_params::<SueEndpointParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    let x = b.common.num_xpu as usize;
    // With the id on a port the RTL plays the highest XPU, so a nonzero id is exercised.
    let me = if b.transport_block.resolved.xpuid_port { x - 1 } else { b.transport_block.resolved.local_xpuid as usize };
    let blocks: Vec<SueEndpointBlock> = (0..x)
        .map(|k| {
            let mut p = b.clone();
            if !p.transport_block.resolved.xpuid_port {
                p.transport_block.resolved.local_xpuid = k as u32;
            }
            p
        })
        .collect();
    let mods: Vec<Option<&rtl_gen::elab::ElabModule>> = (0..x)
        .map(|k| if k == me { Some(m) } else { None })
        .collect();
    let mut link =
        EndpointLink::with_modules(bench, &blocks, &mods, &format!("cosim_{}", m.name()))?;
    link.chan.faults = LinkFaults { drop: 0.02, corrupt: 0.01, frame_err: 0.01, ..LinkFaults::default() };
    let v = b.common.num_vc as u64;
    for cyc in 0..opts.vectors {
        for src in 0..x {
            if link.queued(src) < 4 && rng.chance(0.15) {
                let dst = (src + 1 + rng.range(0, x as u64 - 2) as usize) % x;
                let vc = rng.range(0, v - 1) as usize;
                link.command(rng, src, dst, vc);
            }
        }
        let (txr, outr) = [(1.0, 1.0), (0.7, 0.5), (0.9, 0.3)][((cyc / 2500) % 3) as usize];
        link.step(rng, txr, outr, 0.05)?;
    }
    let mut n = 0;
    while !link.quiet() && n < 200_000 {
        link.step(rng, 1.0, 1.0, 0.0)?;
        n += 1;
    }
    for _ in 0..2 {
        link.step(rng, 1.0, 1.0, 0.0)?;
    }
    let c = link.cycle;
    link.tally.compare(
        c,
        "scoreboard: everything delivered and acknowledged after draining",
        true,
        link.quiet(),
    );
    for src in 0..x {
        for dst in (0..x).filter(|&d| d != src) {
            link.tally.compare(
                c,
                "scoreboard: completions = commands accepted",
                link.sb.accepted[src][dst],
                link.completed(src, dst),
            );
        }
    }
    let mut tally = link.tally;
    tally.cycles = link.cycle;
    Ok(tally)
}
