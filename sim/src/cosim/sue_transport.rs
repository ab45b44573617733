//! SUE transport (`sue_transport`) in lockstep with its cycle-accurate model, linked to peer
//! transports (models of the other XPUs) through a lossy, corrupting channel: node 0 is the RTL,
//! every output compared every cycle (tready, tx_dest_ready, the TX beats, rx tready and pause,
//! the command output, completions, peer_down, all 24 counters). Independently of the model,
//! scoreboards check that every command arrives exactly once, in order per {source,
//! destination, VC}, bit-exact, that no PDU exceeds max_pack_bytes, and that completions add up
//! to the commands offered once everything is acknowledged.

pub use super::sue_link::LinkFaults;
use super::sue_link::{CmdScoreboard, PduChannel, RxPdu};
use super::Tally;
use crate::axis::Axis;
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::hw::axis::Signal::{Data, Dest, Id, Keep, Last, Ready, User, Valid};
use rtl_gen::blocks::sue_transport::model::{TpInputs, TpOutputs, TransportModel, COUNTER_NAMES};
use rtl_gen::blocks::sue_transport::{SueTransportBlock, SueTransportParams};
use std::collections::VecDeque;

/// A PDU offered to a transport's s_axis_pdu.
#[derive(Debug, Clone)]
struct Offer {
    dest: u32,
    user: u32,
    beats: Vec<Vec<u8>>,
    /// tlast after this many beats (beats.len() when well formed).
    last_at: usize,
    /// Commands it carries, when the transport must take it.
    cmds: Option<Vec<Vec<u8>>>,
}

/// One XPU: its transport model (and the RTL for node 0) and its traffic.
struct Node {
    model: TransportModel,
    /// Node 0's RTL and its streams.
    dut: Option<(Dut, TransportPorts)>,
    offers: VecDeque<Offer>,
    beat: usize,
    tx_pdu: Vec<u8>,
    tx_meta: (u32, u32),
    rx_cur: Option<RxPdu>,
    cmd_cur: Vec<u8>,
    completed: Vec<u64>,
}

/// Node 0 in RTL and its peers as models, with channels and scoreboards.
pub struct TransportLink {
    pub b: SueTransportBlock,
    nodes: Vec<Node>,
    /// The wire between the XPUs, with its faults and counts.
    pub chan: PduChannel,
    /// Commands in good PDUs the transports took, against what they deliver.
    pub sb: CmdScoreboard,
    pub tally: Tally,
    pub cycle: u64,
}

/// Drive the `local_xpuid` input of a DUT that has one (`xpuid_source = "port"`); a DUT with a
/// constant id has no such port and is left alone.
pub fn drive_xpuid(d: &mut Dut, xpuid: u32) -> Result<(), SimError> {
    if d.info().ports.iter().any(|p| p.name == "local_xpuid") {
        d.set_u64("local_xpuid", u64::from(xpuid))?;
    }
    Ok(())
}

/// Build module `module` and reset it with `local_xpuid` (if it has the port) already at
/// `xpuid`: the id is a strap, set before reset is released.
pub fn build_with_xpuid(tree: &crate::Tree, module: &str, name: &str, xpuid: u32) -> Result<Dut, SimError> {
    let mut d = Dut::build_named(tree, module, name)?;
    drive_xpuid(&mut d, xpuid)?;
    d.reset(2)?;
    Ok(d)
}

/// The streams a transport shares with the endpoint around it, found from the module's ports:
/// the PDU stream in (`s_axis_pdu`, a standalone transport's only: an endpoint packs its own),
/// the link (`m_axis_tx` out, `s_axis_rx` in) and the commands out (`m_axis_cmd`).
#[derive(Debug, Clone)]
pub struct TransportPorts {
    pub pdu: Option<Axis>,
    pub tx: Axis,
    pub rx: Axis,
    pub cmd: Axis,
}

impl TransportPorts {
    /// `ingest`: the module takes PDUs on `s_axis_pdu` (a transport, not an endpoint).
    pub fn of(d: &Dut, ingest: bool) -> Result<TransportPorts, SimError> {
        Ok(TransportPorts {
            pdu: if ingest { Some(Axis::of(d, "s_axis_pdu")?) } else { None },
            tx: Axis::of(d, "m_axis_tx")?,
            rx: Axis::of(d, "s_axis_rx")?,
            cmd: Axis::of(d, "m_axis_cmd")?,
        })
    }
}

pub(crate) fn keep_bits(keep: u128, db: usize) -> Bits {
    Bits::from_bytes_width(&keep.to_le_bytes()[..db.div_ceil(8).max(1)], db)
}

impl TransportLink {
    /// `peers` are the blocks of XPUs 1.. (the same fields, their own local_xpuid).
    pub fn new(
        bench: &Bench,
        b: &SueTransportBlock,
        peers: &[SueTransportBlock],
        faults: LinkFaults,
        dut_name: &str,
    ) -> Result<TransportLink, SimError> {
        let m = bench.module(&b.name, rtl_gen::hw::module::Role::SueTransport)?;
        TransportLink::with_module(bench, b, m, peers, faults, dut_name)
    }

    /// As [`TransportLink::new`] for module `m` (a design block's, or one inside an endpoint).
    pub fn with_module(
        bench: &Bench,
        b: &SueTransportBlock,
        m: &rtl_gen::elab::ElabModule,
        peers: &[SueTransportBlock],
        faults: LinkFaults,
        dut_name: &str,
    ) -> Result<TransportLink, SimError> {
        // Node k is XPU k: the DUT is XPU 0.
        let dut = build_with_xpuid(bench.tree(), m.name(), dut_name, 0)?;
        let x = b.common.num_xpu as usize;
        let v = b.common.num_vc as usize;
        let mk = |blk: &SueTransportBlock, dut: Option<(Dut, TransportPorts)>| Node {
            model: blk.model(),
            dut,
            offers: VecDeque::new(),
            beat: 0,
            tx_pdu: Vec::new(),
            tx_meta: (0, 0),
            rx_cur: None,
            cmd_cur: Vec::new(),
            completed: vec![0; x],
        };
        let ports = TransportPorts::of(&dut, true)?;
        let mut nodes = vec![mk(b, Some((dut, ports)))];
        for p in peers {
            nodes.push(mk(p, None));
        }
        let n = nodes.len();
        Ok(TransportLink {
            b: b.clone(),
            nodes,
            chan: PduChannel::new(n, faults),
            sb: CmdScoreboard::new(n, v),
            tally: Tally::default(),
            cycle: 0,
        })
    }

    /// Replace node `node`'s model (a broken model must make the comparison fail).
    pub fn set_model(&mut self, node: usize, model: TransportModel) {
        self.nodes[node].model = model;
    }

    pub fn model(&self, node: usize) -> &TransportModel {
        &self.nodes[node].model
    }

    /// Queue a PDU from `src` to `dst` on `vc` with `n` commands (well formed).
    pub fn offer(&mut self, rng: &mut TestRng, src: usize, dst: usize, vc: usize, n: usize) {
        let c = &self.b.common;
        let cmds: Vec<Vec<u8>> = (0..n)
            .map(|_| self.sb.make(rng, c.cmd_bytes as usize, src, dst, vc))
            .collect();
        let beats: Vec<Vec<u8>> = cmds
            .concat()
            .chunks(c.data_bytes as usize)
            .map(|b| b.to_vec())
            .collect();
        let last_at = beats.len();
        self.nodes[src].offers.push_back(Offer {
            dest: dst as u32,
            user: ((n as u32) << 2) | vc as u32,
            beats,
            last_at,
            cmds: Some(cmds),
        });
    }

    /// Queue a malformed PDU from `src` (bad sideband or beat count): taken and dropped.
    pub fn offer_bad(&mut self, rng: &mut TestRng, src: usize) {
        let c = &self.b.common;
        let db = c.data_bytes as usize;
        let cbt = c.cmd_beats() as usize;
        let (dest, user, nb, last_at) = match rng.range(0, 2) {
            0 => (c.num_xpu + rng.range(0, 3) as u32, (1 << 2), cbt, cbt),
            1 => (((src + 1) % self.nodes.len()) as u32, 0, cbt, cbt),
            _ => (
                ((src + 1) % self.nodes.len()) as u32,
                (2 << 2),
                2 * cbt,
                cbt,
            ),
        };
        let beats = (0..nb).map(|_| rng.bytes(db)).collect();
        self.nodes[src].offers.push_back(Offer {
            dest,
            user,
            beats,
            last_at,
            cmds: None,
        });
    }

    pub fn pending_offers(&self, node: usize) -> usize {
        self.nodes[node].offers.len()
    }

    /// Everything delivered, acknowledged and off the wire.
    pub fn quiet(&self) -> bool {
        self.sb.outstanding() == 0
            && self
                .nodes
                .iter()
                .all(|n| n.offers.is_empty() && n.model.unacked() == 0 && n.rx_cur.is_none())
            && self.chan.is_empty()
    }

    /// One cycle: every node's m_axis_tx taken with probability `tx_ready`, m_axis_cmd with
    /// `cmd_ready`, and random tx/xpu VC pause patterns in a `pause` share of cycles.
    pub fn step(
        &mut self,
        rng: &mut TestRng,
        tx_ready: f64,
        cmd_ready: f64,
        pause: f64,
    ) -> Result<(), SimError> {
        let c = self.b.common.clone();
        let db = c.data_bytes as usize;
        let cyc = self.cycle;
        let n = self.nodes.len();
        for k in 0..n {
            // Inputs.
            let mut i = TpInputs {
                tx_ready: rng.chance(tx_ready),
                cmd_ready: rng.chance(cmd_ready),
                rx_data: vec![0; db],
                pdu_data: vec![0; db],
                local_xpuid: k as u32,
                ..Default::default()
            };
            if rng.chance(pause) {
                i.tx_vc_pause = rng.range(0, (1 << c.num_vc) - 1) as u32;
            }
            if rng.chance(pause) {
                i.xpu_vc_pause = rng.range(0, (1 << c.num_vc) - 1) as u32;
            }
            let node = &mut self.nodes[k];
            if let Some(o) = node.offers.front() {
                i.pdu_valid = true;
                i.pdu_data = o.beats[node.beat].clone();
                i.pdu_last = node.beat + 1 == o.last_at;
                i.pdu_dest = o.dest;
                i.pdu_user = o.user;
            }
            if node.rx_cur.is_none() {
                node.rx_cur = self.chan.arrive(k, cyc, db);
            }
            if let Some(rx) = &node.rx_cur {
                if rng.chance(0.9) {
                    let b = rx.beat();
                    i.rx_valid = true;
                    i.rx_data = b.data.to_vec();
                    i.rx_keep = b.keep;
                    i.rx_last = b.last;
                    i.rx_user = b.user;
                }
            }
            let o = node.model.outputs(&i);
            if let Some((d, ports)) = node.dut.as_mut() {
                Self::drive(d, ports, &i, db)?;
                d.eval();
                compare_transport(&mut self.tally, cyc, d, ports, &o, db)?;
                self.tally.vectors += 1;
            }
            // Handshakes, from the (compared) model outputs.
            if i.pdu_valid && o.pdu_ready {
                if i.pdu_last {
                    let off = node.offers.pop_front().expect("offered");
                    node.beat = 0;
                    for cmd in off.cmds.into_iter().flatten() {
                        self.sb.accepted(k, off.dest as usize, (off.user & 3) as usize, cmd);
                    }
                } else {
                    node.beat += 1;
                }
            }
            if o.tx_valid && i.tx_ready {
                if node.tx_pdu.is_empty() {
                    node.tx_meta = (o.tx_dest, o.tx_user);
                }
                let nb = if o.tx_last { 12 } else { db };
                node.tx_pdu.extend_from_slice(&o.tx_data[..nb]);
                if o.tx_last {
                    let pdu = std::mem::take(&mut node.tx_pdu);
                    let payload = pdu.len() - 12;
                    self.tally.compare(
                        cyc,
                        "scoreboard: PDU within max_pack_bytes",
                        true,
                        payload <= c.max_pack_bytes as usize,
                    );
                    self.tally.compare(
                        cyc,
                        "scoreboard: PDU as sent parses (R-CRC, whole commands)",
                        true,
                        rtl_gen::blocks::protocol::sue::wire::parse_pdu(
                            &pdu,
                            c.cmd_bytes as usize,
                            self.b.resolved.rcrc,
                        )
                        .is_ok(),
                    );
                    self.chan.send(rng, cyc, node.tx_meta.0 as usize, pdu);
                }
            }
            if i.rx_valid && o.rx_ready && node.rx_cur.as_mut().expect("delivering").taken() {
                node.rx_cur = None;
            }
            if o.cmd_valid && i.cmd_ready {
                node.cmd_cur.extend_from_slice(&o.cmd_data);
                if o.cmd_last {
                    let cmd = std::mem::take(&mut node.cmd_cur);
                    let (src, vc) = (o.cmd_tid as usize, o.cmd_user as usize);
                    self.sb.delivered(&mut self.tally, cyc, k, src, vc, &cmd);
                }
            }
            if o.cmpl_valid {
                node.completed[o.cmpl_dest as usize] += u64::from(o.cmpl_cmds);
            }
            node.model.clock(&i);
            if let Some((d, _)) = node.dut.as_mut() {
                d.tick();
            }
        }
        self.cycle += 1;
        Ok(())
    }

    /// Completions reported by `node` for commands to `dest`.
    pub fn completed(&self, node: usize, dest: usize) -> u64 {
        self.nodes[node].completed[dest]
    }

    fn drive(d: &mut Dut, ports: &TransportPorts, i: &TpInputs, db: usize) -> Result<(), SimError> {
        if let Some(pdu) = &ports.pdu {
            pdu.set_u64(d, Valid, i.pdu_valid as u64)?;
            pdu.set(d, Data, &Bits::from_bytes_width(&i.pdu_data, 8 * db))?;
            pdu.set_u64(d, Last, i.pdu_last as u64)?;
            pdu.set_u64(d, Dest, u64::from(i.pdu_dest))?;
            pdu.set_u64(d, User, u64::from(i.pdu_user))?;
        }
        ports.tx.set_u64(d, Ready, i.tx_ready as u64)?;
        d.set_u64("tx_vc_pause", u64::from(i.tx_vc_pause))?;
        ports.rx.set_u64(d, Valid, i.rx_valid as u64)?;
        ports.rx.set(d, Data, &Bits::from_bytes_width(&i.rx_data, 8 * db))?;
        ports.rx.set(d, Keep, &keep_bits(i.rx_keep, db))?;
        ports.rx.set_u64(d, Last, i.rx_last as u64)?;
        ports.rx.set_u64(d, User, i.rx_user as u64)?;
        ports.cmd.set_u64(d, Ready, i.cmd_ready as u64)?;
        d.set_u64("xpu_vc_pause", u64::from(i.xpu_vc_pause))?;
        drive_xpuid(d, i.local_xpuid)?;
        Ok(())
    }
}

/// Compare a transport's outputs with the model's (with a PDU stream in, `ports.pdu`: also its
/// tready and tx_dest_ready, which an endpoint keeps inside).
pub fn compare_transport(t: &mut Tally, c: u64, d: &Dut, ports: &TransportPorts, o: &TpOutputs, db: usize) -> Result<(), SimError> {
    let vec_bits = |v: &[bool]| {
        let mut b = Bits::zeros(v.len());
        for (i, &x) in v.iter().enumerate() {
            b.set(i, x);
        }
        b
    };
    let TransportPorts { pdu, tx, rx, cmd } = ports;
    if let Some(pdu) = pdu {
        t.compare(c, pdu.label(Ready), o.pdu_ready as u64, pdu.get_u64(d, Ready)?);
        t.compare_bits(c, "tx_dest_ready", &vec_bits(&o.tx_dest_ready), &d.get("tx_dest_ready")?);
    }
    t.compare(c, tx.label(Valid), o.tx_valid as u64, tx.get_u64(d, Valid)?);
    if o.tx_valid {
        t.compare_bits(c, tx.label(Data), &Bits::from_bytes_width(&o.tx_data, 8 * db), &tx.get(d, Data)?);
        t.compare_bits(c, tx.label(Keep), &keep_bits(o.tx_keep, db), &tx.get(d, Keep)?);
        t.compare(c, tx.label(Last), o.tx_last as u64, tx.get_u64(d, Last)?);
        t.compare(c, tx.label(Dest), u64::from(o.tx_dest), tx.get_u64(d, Dest)?);
        t.compare(c, tx.label(User), u64::from(o.tx_user), tx.get_u64(d, User)?);
    }
    t.compare(c, rx.label(Ready), o.rx_ready as u64, rx.get_u64(d, Ready)?);
    t.compare(c, "rx_vc_pause", u64::from(o.rx_vc_pause), d.get_u64("rx_vc_pause")?);
    t.compare(c, cmd.label(Valid), o.cmd_valid as u64, cmd.get_u64(d, Valid)?);
    if o.cmd_valid {
        t.compare_bits(c, cmd.label(Data), &Bits::from_bytes_width(&o.cmd_data, 8 * db), &cmd.get(d, Data)?);
        t.compare(c, cmd.label(Last), o.cmd_last as u64, cmd.get_u64(d, Last)?);
        t.compare(c, cmd.label(Id), u64::from(o.cmd_tid), cmd.get_u64(d, Id)?);
        t.compare(c, cmd.label(User), u64::from(o.cmd_user), cmd.get_u64(d, User)?);
    }
    t.compare(
        c,
        "cmpl_valid",
        o.cmpl_valid as u64,
        d.get_u64("cmpl_valid")?,
    );
    if o.cmpl_valid {
        t.compare(
            c,
            "cmpl_dest",
            u64::from(o.cmpl_dest),
            d.get_u64("cmpl_dest")?,
        );
        t.compare(
            c,
            "cmpl_cmds",
            u64::from(o.cmpl_cmds),
            d.get_u64("cmpl_cmds")?,
        );
    }
    t.compare_bits(
        c,
        "peer_down",
        &vec_bits(&o.peer_down),
        &d.get("peer_down")?,
    );
    for (k, name) in COUNTER_NAMES.iter().enumerate() {
        t.compare(c, name, o.counters[k], d.get_u64(name)?);
    }
    Ok(())
}

/// Random traffic between every pair of nodes for `cycles` (PDUs of 1..=max_cmds commands on
/// random VCs, 2 % malformed, three backpressure phases, 5 % pause), then a drain until every
/// command is delivered and acknowledged; the scoreboards compare completions at the end.
pub fn random_traffic(
    link: &mut TransportLink,
    rng: &mut TestRng,
    cycles: u64,
) -> Result<(), SimError> {
    let m = u64::from(link.b.common.max_cmds());
    let v = u64::from(link.b.common.num_vc);
    let x = link.nodes.len();
    for cyc in 0..cycles {
        let phase = (cyc / 3000) % 3;
        for src in 0..x {
            if link.pending_offers(src) < 2 && rng.chance(0.08) {
                if rng.chance(0.02) {
                    link.offer_bad(rng, src);
                } else {
                    let (vc, n) = (rng.range(0, v - 1) as usize, rng.range(1, m) as usize);
                    let dst = (src + 1 + rng.range(0, x as u64 - 2) as usize) % x;
                    link.offer(rng, src, dst, vc, n);
                }
            }
        }
        let (txr, cmdr) = [(1.0, 1.0), (0.6, 0.5), (0.9, 0.2)][phase as usize];
        link.step(rng, txr, cmdr, 0.05)?;
    }
    let mut n = 0;
    while !link.quiet() && n < 200_000 {
        link.step(rng, 1.0, 1.0, 0.0)?;
        n += 1;
    }
    // The last completion pulse shows the cycle after the ACK that made the link quiet.
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
                "scoreboard: completions = commands offered",
                link.sb.accepted[src][dst],
                link.completed(src, dst),
            );
        }
    }
    Ok(())
}

/// The peers of `b`: the same block as XPUs other than its own (models only).
pub fn peers_of(b: &SueTransportBlock) -> Vec<SueTransportBlock> {
    (0..b.common.num_xpu)
        .filter(|&x| x != b.resolved.local_xpuid)
        .map(|x| {
            let mut p = b.clone();
            if !p.resolved.xpuid_port {
                p.resolved.local_xpuid = x;
            }
            p.name = format!("{}_peer{x}", b.name);
            p
        })
        .collect()
}

/// `rtl-gen cosim` driver: the transport against its model, linked to model peers for every
/// other XPU through a lossy channel (2 % drop, 1 % corruption, 1 % frame errors).
pub fn transport(
    bench: &Bench,
    m: &rtl_gen::elab::ElabModule,
    opts: &super::Options,
    rng: &mut TestRng,
) -> Result<Tally, SimError> {
    let b = &super::kind_params::<SueTransportParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    let faults = LinkFaults {
        drop: 0.02,
        corrupt: 0.01,
        frame_err: 0.01,
        latency: 12,
    };
    let mut link = TransportLink::with_module(
        bench,
        b,
        m,
        &peers_of(b),
        faults,
        &format!("cosim_{}", m.name()),
    )?;
    random_traffic(&mut link, rng, opts.vectors)?;
    let mut tally = link.tally;
    tally.cycles = link.cycle;
    Ok(tally)
}
