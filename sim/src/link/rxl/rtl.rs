//! The Verilated RXL RTL as link nodes ([`RtlEndpoint`], [`RtlLinkRx`], [`RtlLinkTx`]), and
//! their lockstep twins ([`CheckedEndpoint`], [`CheckedLinkRx`], [`CheckedLinkTx`]): RTL and
//! model fed the same inputs, every output compared every cycle into a shared [`Tally`]. A
//! campaign stops at the first mismatch ([`Stop::First`]); `rtl-gen sim cosim` counts them all
//! ([`Stop::Never`]). Ports are read by the names the elaborated module declares; the counter
//! outputs are the module's `cnt_*` ports in declaration order, which is the order the models
//! count in.

use super::{CampaignError, EndpointNode, LinkRxNode, LinkTxNode, Nodes, SwitchPair};
use crate::module_params::{design_error, kind_params};
use crate::link::Tally;
use crate::{Bench, Bits, Dut, SimError};
use rtl_gen::blocks::rxl_endpoint::flit::{Flit, FlitCodec, Msg, FLIT_BYTES, MSG_BYTES, PAYLOAD_BYTES};
use rtl_gen::blocks::rxl_endpoint::model::{Counters, EndpointModel, EpInputs, EpOutputs};
use rtl_gen::blocks::rxl_endpoint::{RxlEndpointBlock, RxlEndpointParams};
use rtl_gen::blocks::rxl_switch::model::{LinkRxModel, LinkTxModel};
use rtl_gen::blocks::rxl_switch::RxlSwitchBlock;
use rtl_gen::elab::ElabModule;
use rtl_gen::hw::module::Role;
use std::cell::RefCell;
use std::rc::Rc;

/// One tally shared by every lockstep node of a run.
pub type SharedTally = Rc<RefCell<Tally>>;

fn bytes<const N: usize>(b: &Bits) -> [u8; N] {
    let mut out = [0u8; N];
    let v = b.to_bytes();
    let n = v.len().min(N);
    out[..n].copy_from_slice(&v[..n]);
    out
}

fn bit(dut: &Dut, port: &str) -> Result<bool, SimError> {
    Ok(dut.get_u64(port)? == 1)
}

/// The counter outputs of a module (`cnt_*`), in port order.
pub fn counter_ports(m: &ElabModule) -> Vec<String> {
    m.ports().iter().filter(|p| p.name.starts_with("cnt_")).map(|p| p.name.clone()).collect()
}

/// Builds (or loads from the cache) module `m` of the bench's tree under `test_name`.
fn build(bench: &Bench, m: &ElabModule, test_name: &str) -> Result<Dut, SimError> {
    Dut::build_named(bench.tree(), m.name(), test_name)
}

/// An `rxl_endpoint` module in Verilator.
pub struct RtlEndpoint {
    dut: Dut,
    counters: Vec<String>,
    out: EpOutputs,
}

impl RtlEndpoint {
    /// Builds (or loads from the cache) endpoint module `m`, resets it for two cycles.
    pub fn new(bench: &Bench, m: &ElabModule, test_name: &str) -> Result<RtlEndpoint, SimError> {
        let mut dut = build(bench, m, test_name)?;
        let counters = counter_ports(m);
        if counters != Counters::PORTS {
            return Err(SimError::Design { message: format!("{}: counter outputs {counters:?}, the model counts {:?}", m.name(), Counters::PORTS) });
        }
        dut.set_u64("tx_ready", 1)?;
        dut.reset(2)?;
        let out = EpOutputs { s_ready: false, tx_valid: false, tx_flit: [0; FLIT_BYTES], m_valid: false, m_payload: [0; PAYLOAD_BYTES], counters: Counters::default() };
        let mut e = RtlEndpoint { dut, counters, out };
        e.read()?;
        Ok(e)
    }

    pub fn dut(&self) -> &Dut {
        &self.dut
    }

    fn read(&mut self) -> Result<(), SimError> {
        let d = &self.dut;
        let mut c = [0u64; 6];
        for (v, port) in c.iter_mut().zip(&self.counters) {
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
        Ok(())
    }
}

impl EndpointNode for RtlEndpoint {
    fn outputs(&self) -> &EpOutputs {
        &self.out
    }
    fn tick(&mut self, inp: &EpInputs) -> Result<(), CampaignError> {
        let d = &mut self.dut;
        d.set_u64("s_valid", inp.s_valid as u64)?;
        d.set("s_payload", &Bits::from_bytes(&inp.s_payload))?;
        d.set_u64("tx_ready", inp.tx_ready as u64)?;
        d.set_u64("rx_valid", inp.rx_valid as u64)?;
        if inp.rx_valid {
            d.set("rx_flit", &Bits::from_bytes(&inp.rx_flit))?;
        }
        d.tick();
        self.read()?;
        Ok(())
    }
}

/// A switch `link_rx` module in Verilator.
pub struct RtlLinkRx {
    dut: Dut,
    counters: Vec<String>,
    valid: bool,
    msg: Msg,
    count: [u64; 3],
}

impl RtlLinkRx {
    pub fn new(bench: &Bench, m: &ElabModule, test_name: &str) -> Result<RtlLinkRx, SimError> {
        let mut dut = build(bench, m, test_name)?;
        let counters = counter_ports(m);
        if counters.len() != 3 {
            return Err(SimError::Design { message: format!("{}: expected 3 counter outputs (flits, corrected, dropped), found {counters:?}", m.name()) });
        }
        dut.reset(2)?;
        let mut r = RtlLinkRx { dut, counters, valid: false, msg: [0; MSG_BYTES], count: [0; 3] };
        r.read()?;
        Ok(r)
    }

    fn read(&mut self) -> Result<(), SimError> {
        self.valid = bit(&self.dut, "out_valid")?;
        self.msg = bytes::<MSG_BYTES>(&self.dut.get("out_msg")?);
        for (v, port) in self.count.iter_mut().zip(&self.counters) {
            *v = self.dut.get_u64(port)?;
        }
        Ok(())
    }
}

impl LinkRxNode for RtlLinkRx {
    fn out(&self) -> (bool, &Msg) {
        (self.valid, &self.msg)
    }
    fn counters(&self) -> [u64; 3] {
        self.count
    }
    fn tick(&mut self, valid: bool, flit: &Flit) -> Result<(), CampaignError> {
        self.dut.set_u64("in_valid", valid as u64)?;
        if valid {
            self.dut.set("in_flit", &Bits::from_bytes(flit))?;
        }
        self.dut.tick();
        self.read()?;
        Ok(())
    }
}

/// A switch `link_tx` module in Verilator.
pub struct RtlLinkTx {
    dut: Dut,
    counter: String,
    valid: bool,
    flit: Flit,
    count: u64,
}

impl RtlLinkTx {
    pub fn new(bench: &Bench, m: &ElabModule, test_name: &str) -> Result<RtlLinkTx, SimError> {
        let mut dut = build(bench, m, test_name)?;
        let counter = counter_ports(m).into_iter().next().ok_or_else(|| SimError::Design { message: format!("{} has no counter output", m.name()) })?;
        dut.reset(2)?;
        let mut t = RtlLinkTx { dut, counter, valid: false, flit: [0; FLIT_BYTES], count: 0 };
        t.read()?;
        Ok(t)
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    fn read(&mut self) -> Result<(), SimError> {
        self.valid = bit(&self.dut, "out_valid")?;
        self.flit = bytes::<FLIT_BYTES>(&self.dut.get("out_flit")?);
        self.count = self.dut.get_u64(&self.counter)?;
        Ok(())
    }
}

impl LinkTxNode for RtlLinkTx {
    fn out(&self) -> (bool, &Flit) {
        (self.valid, &self.flit)
    }
    fn tick(&mut self, valid: bool, msg: &Msg) -> Result<(), CampaignError> {
        self.dut.set_u64("in_valid", valid as u64)?;
        if valid {
            self.dut.set("in_msg", &Bits::from_bytes(msg))?;
        }
        self.dut.tick();
        self.read()?;
        Ok(())
    }
}

// ---- lockstep: RTL and model compared every cycle ----

/// What a lockstep node does when the RTL and the model disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Stop the campaign with [`CampaignError::Mismatch`] at the first difference.
    First,
    /// Count every difference in the tally and go on (co-simulation reports).
    Never,
}

/// The comparison state every lockstep node shares: its name (prefix of the port names in the
/// tally), the cycle, the tally and the stop rule.
struct Lockstep {
    name: String,
    cycle: u64,
    tally: SharedTally,
    stop: Stop,
}

impl Lockstep {
    fn new(name: String, tally: SharedTally, stop: Stop) -> Lockstep {
        Lockstep { name, cycle: 0, tally, stop }
    }

    /// Compares the outputs of one cycle through `f`, then applies the stop rule.
    fn check(&mut self, f: impl FnOnce(&mut Tally, u64, &str)) -> Result<(), CampaignError> {
        let mut t = self.tally.borrow_mut();
        let before = t.mismatches;
        f(&mut t, self.cycle, &self.name);
        t.vectors += 1;
        if self.stop == Stop::First && t.mismatches > before {
            let first = t.first.clone().expect("a mismatch records the first");
            return Err(CampaignError::Mismatch { node: self.name.clone(), cycle: first.cycle, what: first.port, rtl: first.actual, model: first.expected });
        }
        Ok(())
    }
}

/// An endpoint run as RTL and model in lockstep; the campaign sees the RTL's outputs.
pub struct CheckedEndpoint {
    pub rtl: RtlEndpoint,
    pub model: EndpointModel,
    ls: Lockstep,
}

impl CheckedEndpoint {
    pub fn new(name: &str, rtl: RtlEndpoint, model: EndpointModel, tally: SharedTally, stop: Stop) -> Result<CheckedEndpoint, CampaignError> {
        let mut c = CheckedEndpoint { rtl, model, ls: Lockstep::new(name.to_string(), tally, stop) };
        c.compare()?;
        Ok(c)
    }

    fn compare(&mut self) -> Result<(), CampaignError> {
        let (r, want) = (self.rtl.outputs(), self.model.outputs());
        self.ls.check(|t, cy, n| {
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
        })
    }
}

impl EndpointNode for CheckedEndpoint {
    fn outputs(&self) -> &EpOutputs {
        self.rtl.outputs()
    }
    fn tick(&mut self, inp: &EpInputs) -> Result<(), CampaignError> {
        self.rtl.tick(inp)?;
        self.model.tick(inp);
        self.ls.cycle += 1;
        self.compare()
    }
    fn rx_state(&self) -> Option<(u32, bool)> {
        Some((self.model.eseq(), self.model.discarding()))
    }
}

/// A switch `link_rx` run as RTL and model in lockstep.
pub struct CheckedLinkRx {
    rtl: RtlLinkRx,
    pub model: LinkRxModel,
    ls: Lockstep,
}

impl CheckedLinkRx {
    pub fn new(name: &str, rtl: RtlLinkRx, model: LinkRxModel, tally: SharedTally, stop: Stop) -> Result<CheckedLinkRx, CampaignError> {
        let mut c = CheckedLinkRx { rtl, model, ls: Lockstep::new(name.to_string(), tally, stop) };
        c.compare()?;
        Ok(c)
    }

    fn compare(&mut self) -> Result<(), CampaignError> {
        let (rtl, model, counters) = (&self.rtl, &self.model, &self.rtl.counters);
        self.ls.check(|t, cy, n| {
            t.compare(cy, &format!("{n}.out_valid"), model.out_valid(), rtl.valid);
            if model.out_valid() {
                t.compare_bits(cy, &format!("{n}.out_msg"), &Bits::from_bytes(model.out_msg()), &Bits::from_bytes(&rtl.msg));
            }
            for (k, port) in counters.iter().enumerate() {
                t.compare(cy, &format!("{n}.{port}"), model.counters()[k], rtl.count[k]);
            }
        })
    }
}

impl LinkRxNode for CheckedLinkRx {
    fn out(&self) -> (bool, &Msg) {
        self.rtl.out()
    }
    fn counters(&self) -> [u64; 3] {
        self.rtl.count
    }
    fn tick(&mut self, valid: bool, flit: &Flit) -> Result<(), CampaignError> {
        self.rtl.tick(valid, flit)?;
        LinkRxModel::tick(&mut self.model, valid, flit);
        self.ls.cycle += 1;
        self.compare()
    }
}

/// A switch `link_tx` run as RTL and model in lockstep.
pub struct CheckedLinkTx {
    rtl: RtlLinkTx,
    pub model: LinkTxModel,
    ls: Lockstep,
}

impl CheckedLinkTx {
    pub fn new(name: &str, rtl: RtlLinkTx, model: LinkTxModel, tally: SharedTally, stop: Stop) -> Result<CheckedLinkTx, CampaignError> {
        let mut c = CheckedLinkTx { rtl, model, ls: Lockstep::new(name.to_string(), tally, stop) };
        c.compare()?;
        Ok(c)
    }

    fn compare(&mut self) -> Result<(), CampaignError> {
        let (rtl, model) = (&self.rtl, &self.model);
        self.ls.check(|t, cy, n| {
            t.compare(cy, &format!("{n}.out_valid"), model.out_valid(), rtl.valid);
            if model.out_valid() {
                t.compare_bits(cy, &format!("{n}.out_flit"), &Bits::from_bytes(model.out_flit()), &Bits::from_bytes(&rtl.flit));
            }
            t.compare(cy, &format!("{n}.{}", rtl.counter), model.counters()[0], rtl.count);
        })
    }
}

impl LinkTxNode for CheckedLinkTx {
    fn out(&self) -> (bool, &Flit) {
        self.rtl.out()
    }
    fn tick(&mut self, valid: bool, msg: &Msg) -> Result<(), CampaignError> {
        self.rtl.tick(valid, msg)?;
        LinkTxModel::tick(&mut self.model, valid, msg);
        self.ls.cycle += 1;
        self.compare()
    }
}

/// How the RTL campaign nodes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// RTL only (fastest).
    RtlOnly,
    /// RTL and model in lockstep, every output compared every cycle.
    Lockstep(Stop),
}

/// The switch block whose halves sit between endpoints of block `endpoint`: `switch` when given
/// (its FEC layout must match), else the first in the design with the endpoint's FEC layout.
fn switch_for<'a>(bench: &'a Bench, endpoint: &RxlEndpointBlock, switch: Option<&'a RxlSwitchBlock>) -> Result<&'a RxlSwitchBlock, CampaignError> {
    let s = match switch {
        Some(s) => s,
        None => bench
            .blocks::<RxlSwitchBlock>()
            .into_iter()
            .find(|s| s.fec == endpoint.fec)
            .ok_or_else(|| CampaignError::Config(format!("switch levels need an rxl_switch block with the FEC layout of endpoint `{}`", endpoint.name)))?,
    };
    if s.fec != endpoint.fec {
        return Err(CampaignError::Config(format!("switch `{}` and endpoint `{}` use different FEC layouts", s.name, endpoint.name)));
    }
    Ok(s)
}

/// The nodes of a campaign on the RTL of endpoint module `ep` (both ends, named `A` and `B`)
/// and the halves of `switch` (or the design's switch with the endpoint's FEC layout) at every
/// level and direction (named `sw<level>.d<direction>.rx/tx`); lockstep models come from the
/// modules' own blocks, and every lockstep node reports into `tally`.
pub fn rtl_nodes(bench: &Bench, ep: &ElabModule, switch: Option<&RxlSwitchBlock>, switches: usize, check: Check, tally: &SharedTally, test: &str) -> Result<Nodes, CampaignError> {
    let endpoint = &kind_params::<RxlEndpointParams>(ep)?.block("model").map_err(|e| design_error(ep, e))?;
    let codec = FlitCodec::new(endpoint.crc, endpoint.fec);
    let mut eps: Vec<Box<dyn EndpointNode>> = Vec::new();
    for side in ["A", "B"] {
        let rtl = RtlEndpoint::new(bench, ep, &format!("{test}_{side}"))?;
        eps.push(match check {
            Check::RtlOnly => Box::new(rtl),
            Check::Lockstep(stop) => Box::new(CheckedEndpoint::new(side, rtl, EndpointModel::with_codec(endpoint.params.clone(), codec.clone()), tally.clone(), stop)?),
        });
    }
    let mut sw: [Vec<SwitchPair>; 2] = [Vec::new(), Vec::new()];
    if switches > 0 {
        let s = switch_for(bench, endpoint, switch)?;
        let rx_m = bench.module(&s.name, Role::LinkRx)?;
        let tx_m = bench.module(&s.name, Role::LinkTx)?;
        for (d, list) in sw.iter_mut().enumerate() {
            for k in 0..switches {
                let tag = format!("sw{k}.d{d}");
                let rx = RtlLinkRx::new(bench, rx_m, &format!("{test}_sw{k}_d{d}_rx"))?;
                let tx = RtlLinkTx::new(bench, tx_m, &format!("{test}_sw{k}_d{d}_tx"))?;
                list.push(match check {
                    Check::RtlOnly => (Box::new(rx) as Box<dyn LinkRxNode>, Box::new(tx) as Box<dyn LinkTxNode>),
                    Check::Lockstep(stop) => (
                        Box::new(CheckedLinkRx::new(&format!("{tag}.rx"), rx, LinkRxModel::new(codec.clone(), s.counter_bits), tally.clone(), stop)?) as Box<dyn LinkRxNode>,
                        Box::new(CheckedLinkTx::new(&format!("{tag}.tx"), tx, LinkTxModel::new(codec.clone(), s.counter_bits), tally.clone(), stop)?) as Box<dyn LinkTxNode>,
                    ),
                });
            }
        }
    }
    let mut it = eps.into_iter();
    Ok(Nodes { endpoints: [it.next().expect("A"), it.next().expect("B")], switches: sw })
}
