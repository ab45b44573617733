//! RXL (`rxl_endpoint`, `rxl_switch`): the endpoint and the switch halves against their
//! cycle-accurate models.
//!
//! * `endpoint`: a link campaign (`campaign::rxl`) between two Verilated endpoints, each with its
//!   model in lockstep, optionally through levels of Verilated switch halves (also in lockstep):
//!   every output (`s_ready`, `tx_valid`, `tx_flit`, `m_valid`, `m_payload`, every counter) every
//!   cycle, under random bit errors, bursts, uncorrectable flits, forced drops, switch-internal
//!   corruption, link backpressure (`tx_ready` low), partial load and a short retry loop. The
//!   campaign's scoreboard checks exactly-once, in-order, intact delivery on top.
//! * `link_rx`: random flits with 0..=3 corrupted bytes (after corner flits: all-zero and
//!   all-ones messages, one corrupted byte at every position) and idle cycles: the FEC verdict,
//!   the corrected message and the counters every cycle.
//! * `link_tx`: re-encoding of random messages (after all-zero and all-ones ones), the flit and
//!   the counter every cycle.

use super::{Options, Tally};
use crate::campaign::rxl::{self as campaign, CampaignConfig, EndpointNode, Faults, LinkError, LinkRxNode, LinkTxNode, Nodes, Report, SwitchPair};
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::blocks::rxl_endpoint::flit::{Flit, FlitCodec, Msg, FLIT_BYTES, MSG_BYTES, PAYLOAD_BYTES};
use rtl_gen::blocks::rxl_endpoint::model::{Counters, EndpointModel, EpInputs, EpOutputs};
use rtl_gen::blocks::rxl_endpoint::RxlEndpointBlock;
use rtl_gen::blocks::rxl_switch::model::{LinkRxModel, LinkTxModel};
use rtl_gen::blocks::rxl_switch::RxlSwitchBlock;
use rtl_gen::elab::ElabModule;
use rtl_gen::hw::module::Role;
use std::cell::RefCell;
use std::rc::Rc;

type Shared = Rc<RefCell<Tally>>;

fn build(bench: &Bench, m: &ElabModule, tag: &str) -> Result<Dut, SimError> {
    Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}{tag}", m.name()))
}

fn bit(dut: &Dut, port: &str) -> Result<bool, SimError> {
    Ok(dut.get_u64(port)? == 1)
}

fn bytes<const N: usize>(b: &Bits) -> [u8; N] {
    let mut out = [0u8; N];
    let v = b.to_bytes();
    let n = v.len().min(N);
    out[..n].copy_from_slice(&v[..n]);
    out
}

/// The counter outputs of a module (`cnt_*`), in port order: the order the models count in.
fn counter_ports(m: &ElabModule) -> Vec<String> {
    m.ports().iter().filter(|p| p.name.starts_with("cnt_")).map(|p| p.name.clone()).collect()
}

fn endpoint_block(m: &ElabModule) -> Result<RxlEndpointBlock, SimError> {
    let own = super::own_block(m)?;
    Ok(super::downcast::<RxlEndpointBlock>(&own, m)?.clone())
}

fn switch_block(m: &ElabModule) -> Result<RxlSwitchBlock, SimError> {
    let own = super::own_block(m)?;
    Ok(super::downcast::<RxlSwitchBlock>(&own, m)?.clone())
}

// ---- endpoint: RTL and model in lockstep inside a link campaign ----

/// A Verilated endpoint whose model runs beside it; the campaign sees the RTL's outputs.
struct TwinEndpoint {
    name: String,
    dut: Dut,
    model: EndpointModel,
    out: EpOutputs,
    tally: Shared,
    cycle: u64,
}

impl TwinEndpoint {
    fn new(name: String, mut dut: Dut, model: EndpointModel, tally: Shared) -> Result<TwinEndpoint, SimError> {
        dut.set_u64("tx_ready", 1)?;
        dut.reset(2)?;
        let out = model.outputs();
        let mut e = TwinEndpoint { name, dut, model, out, tally, cycle: 0 };
        e.read_and_compare()?;
        Ok(e)
    }

    fn read_and_compare(&mut self) -> Result<(), SimError> {
        let d = &self.dut;
        let mut c = [0u64; 6];
        for (v, port) in c.iter_mut().zip(Counters::PORTS) {
            *v = d.get_u64(port)?;
        }
        self.out = EpOutputs {
            s_ready: bit(d, "s_ready")?,
            tx_valid: bit(d, "tx_valid")?,
            tx_flit: bytes::<FLIT_BYTES>(&d.get("tx_flit")?),
            m_valid: bit(d, "m_valid")?,
            m_payload: bytes::<PAYLOAD_BYTES>(&d.get("m_payload")?),
            counters: Counters { flits_sent: c[0], replays: c[1], crc_fail: c[2], fec_corrected: c[3], fec_uncorrectable: c[4], nacks_sent: c[5] },
        };
        let want = self.model.outputs();
        let (r, n, cy) = (&self.out, &self.name, self.cycle);
        let mut t = self.tally.borrow_mut();
        t.compare(cy, &format!("{n}.s_ready"), want.s_ready, r.s_ready);
        t.compare(cy, &format!("{n}.tx_valid"), want.tx_valid, r.tx_valid);
        t.compare(cy, &format!("{n}.m_valid"), want.m_valid, r.m_valid);
        if want.tx_valid {
            t.compare_bits(cy, &format!("{n}.tx_flit"), &Bits::from_bytes(&want.tx_flit), &Bits::from_bytes(&r.tx_flit));
        }
        if want.m_valid {
            t.compare_bits(cy, &format!("{n}.m_payload"), &Bits::from_bytes(&want.m_payload), &Bits::from_bytes(&r.m_payload));
        }
        for ((port, w), g) in Counters::PORTS.iter().zip(want.counters.values()).zip(r.counters.values()) {
            t.compare(cy, &format!("{n}.{port}"), w, g);
        }
        t.vectors += 1;
        Ok(())
    }
}

impl EndpointNode for TwinEndpoint {
    fn outputs(&self) -> &EpOutputs {
        &self.out
    }
    fn tick(&mut self, inp: &EpInputs) -> Result<(), LinkError> {
        let d = &mut self.dut;
        d.set_u64("s_valid", inp.s_valid as u64)?;
        d.set("s_payload", &Bits::from_bytes(&inp.s_payload))?;
        d.set_u64("tx_ready", inp.tx_ready as u64)?;
        d.set_u64("rx_valid", inp.rx_valid as u64)?;
        if inp.rx_valid {
            d.set("rx_flit", &Bits::from_bytes(&inp.rx_flit))?;
        }
        d.tick();
        self.model.tick(inp);
        self.cycle += 1;
        self.read_and_compare()?;
        Ok(())
    }
    fn rx_state(&self) -> Option<(u32, bool)> {
        Some((self.model.eseq(), self.model.discarding()))
    }
}

/// A Verilated `link_rx` with its model beside it.
struct TwinLinkRx {
    name: String,
    dut: Dut,
    model: LinkRxModel,
    counters: Vec<String>,
    valid: bool,
    msg: Msg,
    count: [u64; 3],
    tally: Shared,
    cycle: u64,
}

impl TwinLinkRx {
    fn new(name: String, m: &ElabModule, mut dut: Dut, model: LinkRxModel, tally: Shared) -> Result<TwinLinkRx, SimError> {
        dut.reset(2)?;
        let mut r = TwinLinkRx { name, dut, model, counters: counter_ports(m), valid: false, msg: [0; MSG_BYTES], count: [0; 3], tally, cycle: 0 };
        r.read_and_compare()?;
        Ok(r)
    }

    fn read_and_compare(&mut self) -> Result<(), SimError> {
        self.valid = bit(&self.dut, "out_valid")?;
        self.msg = bytes::<MSG_BYTES>(&self.dut.get("out_msg")?);
        for (k, port) in self.counters.iter().enumerate().take(3) {
            self.count[k] = self.dut.get_u64(port)?;
        }
        let (n, cy) = (&self.name, self.cycle);
        let mut t = self.tally.borrow_mut();
        t.compare(cy, &format!("{n}.out_valid"), self.model.out_valid(), self.valid);
        if self.model.out_valid() {
            t.compare_bits(cy, &format!("{n}.out_msg"), &Bits::from_bytes(self.model.out_msg()), &Bits::from_bytes(&self.msg));
        }
        for (k, port) in self.counters.iter().enumerate().take(3) {
            t.compare(cy, &format!("{n}.{port}"), self.model.counters()[k], self.count[k]);
        }
        t.vectors += 1;
        Ok(())
    }
}

impl LinkRxNode for TwinLinkRx {
    fn out(&self) -> (bool, &Msg) {
        (self.valid, &self.msg)
    }
    fn counters(&self) -> [u64; 3] {
        self.count
    }
    fn tick(&mut self, valid: bool, flit: &Flit) -> Result<(), LinkError> {
        self.dut.set_u64("in_valid", valid as u64)?;
        if valid {
            self.dut.set("in_flit", &Bits::from_bytes(flit))?;
        }
        self.dut.tick();
        self.model.tick(valid, flit);
        self.cycle += 1;
        self.read_and_compare()?;
        Ok(())
    }
}

/// A Verilated `link_tx` with its model beside it.
struct TwinLinkTx {
    name: String,
    dut: Dut,
    model: LinkTxModel,
    counter: String,
    valid: bool,
    flit: Flit,
    count: u64,
    tally: Shared,
    cycle: u64,
}

impl TwinLinkTx {
    fn new(name: String, m: &ElabModule, mut dut: Dut, model: LinkTxModel, tally: Shared) -> Result<TwinLinkTx, SimError> {
        dut.reset(2)?;
        let counter = counter_ports(m).into_iter().next().ok_or_else(|| SimError::Design { message: format!("{} has no counter output", m.name()) })?;
        let mut x = TwinLinkTx { name, dut, model, counter, valid: false, flit: [0; FLIT_BYTES], count: 0, tally, cycle: 0 };
        x.read_and_compare()?;
        Ok(x)
    }

    fn read_and_compare(&mut self) -> Result<(), SimError> {
        self.valid = bit(&self.dut, "out_valid")?;
        self.flit = bytes::<FLIT_BYTES>(&self.dut.get("out_flit")?);
        self.count = self.dut.get_u64(&self.counter)?;
        let (n, cy) = (&self.name, self.cycle);
        let mut t = self.tally.borrow_mut();
        t.compare(cy, &format!("{n}.out_valid"), self.model.out_valid(), self.valid);
        if self.model.out_valid() {
            t.compare_bits(cy, &format!("{n}.out_flit"), &Bits::from_bytes(self.model.out_flit()), &Bits::from_bytes(&self.flit));
        }
        t.compare(cy, &format!("{n}.{}", self.counter), self.model.counters()[0], self.count);
        t.vectors += 1;
        Ok(())
    }
}

impl LinkTxNode for TwinLinkTx {
    fn out(&self) -> (bool, &Flit) {
        (self.valid, &self.flit)
    }
    fn tick(&mut self, valid: bool, msg: &Msg) -> Result<(), LinkError> {
        self.dut.set_u64("in_valid", valid as u64)?;
        if valid {
            self.dut.set("in_msg", &Bits::from_bytes(msg))?;
        }
        self.dut.tick();
        self.model.tick(valid, msg);
        self.cycle += 1;
        self.read_and_compare()?;
        Ok(())
    }
}

/// Faults that keep the protocol busy: a retry every few hundred flits of every kind.
pub fn busy_faults() -> Faults {
    Faults { drop: 3e-3, ber: 1e-5, uc: 2e-3, burst: 1e-3, burst_bits: 30 }
}

/// The campaign the `endpoint` driver runs for endpoint module `m`: its block's configuration,
/// [`busy_faults`], `tx_ready` low 5 % of the time, 90 % offered load, a 20-flit retry loop,
/// `traffic_cycles` of traffic, `switches` switch levels (with 1e-3 internal corruption when
/// there are any).
pub fn campaign_config(m: &ElabModule, switches: usize, traffic_cycles: u64) -> Result<CampaignConfig, SimError> {
    let ep = endpoint_block(m)?;
    let mut c = CampaignConfig::new(ep.cfg.mode, switches, traffic_cycles);
    c.endpoint = ep.cfg.clone();
    c.faults = busy_faults();
    c.tx_stall = 0.05;
    c.offered_load = 0.9;
    // 20 flits, or what the switch levels need plus 20.
    c.retry_loop = 20 + 2 * campaign::SWITCH_LATENCY * switches as u32;
    c.internal = if switches > 0 { 1e-3 } else { 0.0 };
    Ok(c)
}

/// The switch block whose halves sit between endpoints of module `m` (the same FEC layout).
fn switch_for<'a>(bench: &'a Bench, cfg: &CampaignConfig) -> Result<(&'a ElabModule, &'a ElabModule, RxlSwitchBlock), SimError> {
    let sw = bench
        .blocks::<RxlSwitchBlock>()
        .into_iter()
        .find(|s| s.fec == cfg.endpoint.fec)
        .ok_or_else(|| SimError::Design { message: format!("switch levels need an rxl_switch block with the endpoint's FEC layout ({:?})", cfg.endpoint.fec) })?;
    Ok((bench.module(&sw.name, Role::LinkRx)?, bench.module(&sw.name, Role::LinkTx)?, sw.clone()))
}

/// `endpoint`: the campaign `cfg` with both endpoints (module `m`) and every switch half as RTL
/// and model in lockstep. The campaign's seed is drawn from `rng`. Mismatches are counted (ports
/// named `A.`/`B.` for the endpoints, `sw<level>.d<direction>.rx/tx.` for switch halves);
/// scoreboard failures (data or ordering failures where the mode promises none, undelivered
/// payloads) are the test's to judge from the [`Report`].
pub fn endpoint_run(bench: &Bench, m: &ElabModule, cfg: &CampaignConfig, rng: &mut TestRng) -> Result<(Tally, Report), SimError> {
    let mut cfg = cfg.clone();
    cfg.seed = rng.range(0, u64::MAX);
    let ep = endpoint_block(m)?;
    let codec = FlitCodec::new(ep.cfg.crc, ep.cfg.fec);
    let tally: Shared = Rc::new(RefCell::new(Tally::default()));
    let mut eps: Vec<Box<dyn EndpointNode>> = Vec::new();
    for side in ["A", "B"] {
        let dut = build(bench, m, &format!("_{side}"))?;
        eps.push(Box::new(TwinEndpoint::new(side.to_string(), dut, EndpointModel::with_codec(cfg.endpoint.clone(), codec.clone()), tally.clone())?));
    }
    let mut sw: [Vec<SwitchPair>; 2] = [Vec::new(), Vec::new()];
    if cfg.switches > 0 {
        let (rx_m, tx_m, s) = switch_for(bench, &cfg)?;
        for (d, list) in sw.iter_mut().enumerate() {
            for k in 0..cfg.switches {
                let tag = format!("sw{k}.d{d}");
                let rx = TwinLinkRx::new(format!("{tag}.rx"), rx_m, build(bench, rx_m, &format!("_{k}_{d}"))?, LinkRxModel::new(codec.clone(), s.counter_bits), tally.clone())?;
                let tx = TwinLinkTx::new(format!("{tag}.tx"), tx_m, build(bench, tx_m, &format!("_{k}_{d}"))?, LinkTxModel::new(codec.clone(), s.counter_bits), tally.clone())?;
                list.push((Box::new(rx) as Box<dyn LinkRxNode>, Box::new(tx) as Box<dyn LinkTxNode>));
            }
        }
    }
    let mut it = eps.into_iter();
    let nodes = Nodes { endpoints: [it.next().expect("A"), it.next().expect("B")], switches: sw };
    let report = campaign::run_config(&cfg, nodes, &mut |_, _| {}).map_err(|e| match e {
        LinkError::Sim(e) => e,
        other => SimError::Design { message: format!("{}: {other}", m.name()) },
    })?;
    let mut t = Rc::try_unwrap(tally).map(RefCell::into_inner).unwrap_or_default();
    t.cycles = report.cycles;
    Ok((t, report))
}

/// `endpoint` with [`campaign_config`] (no switches) for `opts.vectors` traffic cycles; a
/// payload lost, duplicated, reordered or corrupted counts as a mismatch too (the baseline
/// CXL mode may reorder after silent drops: only data failures and undelivered payloads count
/// there).
pub fn endpoint(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let cfg = campaign_config(m, 0, opts.vectors)?;
    let (mut t, r) = endpoint_run(bench, m, &cfg, rng)?;
    let strict = cfg.endpoint.mode == rtl_gen::blocks::rxl_endpoint::model::Mode::Rxl;
    for (d, x) in r.dirs.iter().enumerate() {
        let port = format!("scoreboard direction {}", if d == 0 { "A→B" } else { "B→A" });
        t.compare(r.cycles, &port, (0u64, 0u64), (x.sink.data_failures, if strict { x.sink.ordering_failures } else { 0 }));
        if strict {
            t.compare(r.cycles, &format!("{port} (drained, undelivered)"), (true, 0u64), (r.drained, x.undelivered()));
        }
    }
    Ok(t)
}

// ---- switch halves on random traffic ----

/// `link_rx` with its final counters `[flits, corrected, dropped]`: `opts.vectors` random
/// flits with 0..=3 corrupted bytes after the corner flits, 10 % idle cycles.
pub fn link_rx_run(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<(Tally, [u64; 3]), SimError> {
    let sw = switch_block(m)?;
    let codec = sw.codec();
    let tally: Shared = Rc::new(RefCell::new(Tally::default()));
    let mut node = TwinLinkRx::new("link_rx".into(), m, build(bench, m, "")?, LinkRxModel::new(codec.clone(), sw.counter_bits), tally.clone())?;
    let corners = 2 + FLIT_BYTES as u64;
    for i in 0..corners + opts.vectors {
        let (valid, flit) = if i < corners {
            let msg = if i == 1 { [0xFF; MSG_BYTES] } else { [0; MSG_BYTES] };
            let mut flit = codec.encode(&msg);
            if i >= 2 {
                flit[(i - 2) as usize] ^= 1 + (i as u8 % 255);
            }
            (true, flit)
        } else {
            let msg: [u8; MSG_BYTES] = rng.bytes(MSG_BYTES).try_into().expect("message bytes");
            let mut flit = codec.encode(&msg);
            for _ in 0..rng.range(0, 3) {
                flit[rng.range(0, FLIT_BYTES as u64 - 1) as usize] ^= rng.range(1, 255) as u8;
            }
            (rng.chance(0.9), flit)
        };
        node.tick(valid, &flit).map_err(link_error)?;
    }
    let counters = node.model.counters();
    drop(node);
    let mut t = Rc::try_unwrap(tally).map(RefCell::into_inner).unwrap_or_default();
    t.cycles = corners + opts.vectors;
    Ok((t, counters))
}

pub fn link_rx(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    link_rx_run(bench, m, opts, rng).map(|(t, _)| t)
}

/// `link_tx` with its final flit counter: all-zero and all-ones messages, then `opts.vectors`
/// random ones, each cycle valid with probability `valid`.
pub fn link_tx_run(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng, valid: f64) -> Result<(Tally, u64), SimError> {
    let sw = switch_block(m)?;
    let tally: Shared = Rc::new(RefCell::new(Tally::default()));
    let mut node = TwinLinkTx::new("link_tx".into(), m, build(bench, m, "")?, LinkTxModel::new(sw.codec(), sw.counter_bits), tally.clone())?;
    for i in 0..2 + opts.vectors {
        let msg: [u8; MSG_BYTES] = match i {
            0 => [0; MSG_BYTES],
            1 => [0xFF; MSG_BYTES],
            _ => rng.bytes(MSG_BYTES).try_into().expect("message bytes"),
        };
        let v = i < 2 || rng.chance(valid);
        node.tick(v, &msg).map_err(link_error)?;
    }
    let count = node.model.counters()[0];
    drop(node);
    let mut t = Rc::try_unwrap(tally).map(RefCell::into_inner).unwrap_or_default();
    t.cycles = 2 + opts.vectors;
    Ok((t, count))
}

pub fn link_tx(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    link_tx_run(bench, m, opts, rng, 0.9).map(|(t, _)| t)
}

fn link_error(e: LinkError) -> SimError {
    match e {
        LinkError::Sim(e) => e,
        other => SimError::Design { message: other.to_string() },
    }
}
