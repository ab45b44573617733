//! The Verilated RTL as link nodes, and lockstep nodes that run the RTL and the reference
//! model side by side and fail on the first cycle where any output differs.

use super::{CampaignError, EndpointNode, LinkRxNode, LinkTxNode, Nodes, SwitchPair};
use crate::{Bench, Bits, Dut, PortId, SimError, Tree};
use rtl_gen::blocks::rxl_endpoint::flit::{FlitCodec, Flit, Msg, FLIT_BYTES, MSG_BYTES, PAYLOAD_BYTES};
use rtl_gen::blocks::rxl_endpoint::model::{Counters, EndpointModel, EpInputs, EpOutputs};
use rtl_gen::blocks::rxl_endpoint::RxlEndpointBlock;
use rtl_gen::blocks::rxl_switch::model::{LinkRxModel, LinkTxModel};
use rtl_gen::blocks::rxl_switch::RxlSwitchBlock;
use rtl_gen::hw::module::Role;

fn bits_to<const N: usize>(b: &Bits, out: &mut [u8; N]) {
    for (i, w) in b.words().iter().enumerate() {
        let bytes = w.to_le_bytes();
        let lo = 8 * i;
        if lo >= N {
            break;
        }
        let n = (N - lo).min(8);
        out[lo..lo + n].copy_from_slice(&bytes[..n]);
    }
}

struct EpPorts {
    s_valid: PortId,
    s_payload: PortId,
    tx_ready: PortId,
    rx_valid: PortId,
    rx_flit: PortId,
    s_ready: PortId,
    tx_valid: PortId,
    tx_flit: PortId,
    m_valid: PortId,
    m_payload: PortId,
    counters: [PortId; 6],
}

/// An `rxl_endpoint` module in Verilator.
pub struct RtlEndpoint {
    dut: Dut,
    p: EpPorts,
    out: EpOutputs,
    flit_buf: Bits,
    payload_buf: Bits,
}

impl RtlEndpoint {
    /// Builds (or loads from the cache) `module`, resets it for two cycles.
    pub fn new(tree: &Tree, module: &str, test_name: &str) -> Result<RtlEndpoint, SimError> {
        let mut dut = Dut::build_named(tree, module, test_name)?;
        let c = Counters::PORTS;
        let p = EpPorts {
            s_valid: dut.port("s_valid")?,
            s_payload: dut.port("s_payload")?,
            tx_ready: dut.port("tx_ready")?,
            rx_valid: dut.port("rx_valid")?,
            rx_flit: dut.port("rx_flit")?,
            s_ready: dut.port("s_ready")?,
            tx_valid: dut.port("tx_valid")?,
            tx_flit: dut.port("tx_flit")?,
            m_valid: dut.port("m_valid")?,
            m_payload: dut.port("m_payload")?,
            counters: [dut.port(c[0])?, dut.port(c[1])?, dut.port(c[2])?, dut.port(c[3])?, dut.port(c[4])?, dut.port(c[5])?],
        };
        dut.set_port_u64(p.tx_ready, 1)?;
        dut.reset(2)?;
        let out = EpOutputs { s_ready: false, tx_valid: false, tx_flit: [0; FLIT_BYTES], m_valid: false, m_payload: [0; PAYLOAD_BYTES], counters: Counters::default() };
        let mut e = RtlEndpoint { dut, p, out, flit_buf: Bits::zeros(8 * FLIT_BYTES), payload_buf: Bits::zeros(8 * PAYLOAD_BYTES) };
        e.read()?;
        Ok(e)
    }

    pub fn dut(&self) -> &Dut {
        &self.dut
    }

    fn read(&mut self) -> Result<(), SimError> {
        let d = &self.dut;
        let o = &mut self.out;
        o.s_ready = d.get_port_u64(self.p.s_ready)? == 1;
        o.tx_valid = d.get_port_u64(self.p.tx_valid)? == 1;
        d.get_port_into(self.p.tx_flit, &mut self.flit_buf)?;
        bits_to(&self.flit_buf, &mut o.tx_flit);
        o.m_valid = d.get_port_u64(self.p.m_valid)? == 1;
        d.get_port_into(self.p.m_payload, &mut self.payload_buf)?;
        bits_to(&self.payload_buf, &mut o.m_payload);
        let mut v = [0u64; 6];
        for (slot, id) in v.iter_mut().zip(self.p.counters) {
            *slot = d.get_port_u64(id)?;
        }
        o.counters = Counters { flits_sent: v[0], replays: v[1], crc_fail: v[2], fec_corrected: v[3], fec_uncorrectable: v[4], nacks_sent: v[5] };
        Ok(())
    }
}

impl EndpointNode for RtlEndpoint {
    fn outputs(&self) -> &EpOutputs {
        &self.out
    }
    fn tick(&mut self, inp: &EpInputs) -> Result<(), CampaignError> {
        let d = &mut self.dut;
        d.set_port_u64(self.p.s_valid, inp.s_valid as u64)?;
        d.set_port(self.p.s_payload, &Bits::from_bytes(&inp.s_payload))?;
        d.set_port_u64(self.p.tx_ready, inp.tx_ready as u64)?;
        d.set_port_u64(self.p.rx_valid, inp.rx_valid as u64)?;
        if inp.rx_valid {
            d.set_port(self.p.rx_flit, &Bits::from_bytes(&inp.rx_flit))?;
        }
        d.tick();
        self.read()?;
        Ok(())
    }
}

/// A switch `link_rx` module in Verilator.
pub struct RtlLinkRx {
    dut: Dut,
    ports: Vec<PortId>,
    valid: bool,
    msg: Msg,
    counters: [u64; 3],
    buf: Bits,
}

impl RtlLinkRx {
    pub fn new(tree: &Tree, module: &str, test_name: &str) -> Result<RtlLinkRx, SimError> {
        let mut dut = Dut::build_named(tree, module, test_name)?;
        let ports = ["in_valid", "in_flit", "out_valid", "out_msg", "cnt_flits", "cnt_corrected", "cnt_dropped"].iter().map(|n| dut.port(n)).collect::<Result<Vec<_>, _>>()?;
        dut.reset(2)?;
        let mut r = RtlLinkRx { dut, ports, valid: false, msg: [0; MSG_BYTES], counters: [0; 3], buf: Bits::zeros(8 * MSG_BYTES) };
        r.read()?;
        Ok(r)
    }

    fn read(&mut self) -> Result<(), SimError> {
        self.valid = self.dut.get_port_u64(self.ports[2])? == 1;
        self.dut.get_port_into(self.ports[3], &mut self.buf)?;
        bits_to(&self.buf, &mut self.msg);
        for k in 0..3 {
            self.counters[k] = self.dut.get_port_u64(self.ports[4 + k])?;
        }
        Ok(())
    }
}

impl LinkRxNode for RtlLinkRx {
    fn out(&self) -> (bool, &Msg) {
        (self.valid, &self.msg)
    }
    fn counters(&self) -> [u64; 3] {
        self.counters
    }
    fn tick(&mut self, valid: bool, flit: &Flit) -> Result<(), CampaignError> {
        self.dut.set_port_u64(self.ports[0], valid as u64)?;
        if valid {
            self.dut.set_port(self.ports[1], &Bits::from_bytes(flit))?;
        }
        self.dut.tick();
        self.read()?;
        Ok(())
    }
}

/// A switch `link_tx` module in Verilator.
pub struct RtlLinkTx {
    dut: Dut,
    ports: Vec<PortId>,
    valid: bool,
    flit: Flit,
    count: u64,
    buf: Bits,
}

impl RtlLinkTx {
    pub fn new(tree: &Tree, module: &str, test_name: &str) -> Result<RtlLinkTx, SimError> {
        let mut dut = Dut::build_named(tree, module, test_name)?;
        let ports = ["in_valid", "in_msg", "out_valid", "out_flit", "cnt_flits"].iter().map(|n| dut.port(n)).collect::<Result<Vec<_>, _>>()?;
        dut.reset(2)?;
        let mut t = RtlLinkTx { dut, ports, valid: false, flit: [0; FLIT_BYTES], count: 0, buf: Bits::zeros(8 * FLIT_BYTES) };
        t.read()?;
        Ok(t)
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    fn read(&mut self) -> Result<(), SimError> {
        self.valid = self.dut.get_port_u64(self.ports[2])? == 1;
        self.dut.get_port_into(self.ports[3], &mut self.buf)?;
        bits_to(&self.buf, &mut self.flit);
        self.count = self.dut.get_port_u64(self.ports[4])?;
        Ok(())
    }
}

impl LinkTxNode for RtlLinkTx {
    fn out(&self) -> (bool, &Flit) {
        (self.valid, &self.flit)
    }
    fn tick(&mut self, valid: bool, msg: &Msg) -> Result<(), CampaignError> {
        self.dut.set_port_u64(self.ports[0], valid as u64)?;
        if valid {
            self.dut.set_port(self.ports[1], &Bits::from_bytes(msg))?;
        }
        self.dut.tick();
        self.read()?;
        Ok(())
    }
}

// ---- lockstep: RTL and model compared every cycle ----

fn hex(bytes: &[u8]) -> String {
    bytes.iter().rev().map(|b| format!("{b:02x}")).collect()
}

/// The first differing byte of two byte strings, for mismatch reports.
fn first_diff(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!("byte {i}: {:#04x} vs {:#04x}", a[i], b[i]),
        None => "equal".into(),
    }
}

/// An endpoint run as RTL and model in lockstep.
pub struct CheckedEndpoint {
    pub name: String,
    pub rtl: RtlEndpoint,
    pub model: EndpointModel,
    model_out: EpOutputs,
    cycle: u64,
}

impl CheckedEndpoint {
    pub fn new(name: &str, rtl: RtlEndpoint, model: EndpointModel) -> Result<CheckedEndpoint, CampaignError> {
        let model_out = model.outputs();
        let c = CheckedEndpoint { name: name.to_string(), rtl, model, model_out, cycle: 0 };
        c.compare()?;
        Ok(c)
    }

    fn compare(&self) -> Result<(), CampaignError> {
        let (r, m) = (self.rtl.outputs(), &self.model_out);
        let mismatch = |what: &str, rtl: String, model: String| CampaignError::Mismatch { node: self.name.clone(), cycle: self.cycle, what: what.into(), rtl, model };
        if (r.s_ready, r.tx_valid, r.m_valid) != (m.s_ready, m.tx_valid, m.m_valid) {
            return Err(mismatch("(s_ready, tx_valid, m_valid)", format!("{:?}", (r.s_ready, r.tx_valid, r.m_valid)), format!("{:?}", (m.s_ready, m.tx_valid, m.m_valid))));
        }
        if r.tx_valid && r.tx_flit != m.tx_flit {
            return Err(mismatch("tx_flit", format!("{} ({})", hex(&r.tx_flit[..16]), first_diff(&r.tx_flit, &m.tx_flit)), hex(&m.tx_flit[..16])));
        }
        if r.m_valid && r.m_payload != m.m_payload {
            return Err(mismatch("m_payload", first_diff(&r.m_payload, &m.m_payload), hex(&m.m_payload[..16])));
        }
        if r.counters != m.counters {
            return Err(mismatch("counters", format!("{:?}", r.counters), format!("{:?}", m.counters)));
        }
        Ok(())
    }
}

impl EndpointNode for CheckedEndpoint {
    fn outputs(&self) -> &EpOutputs {
        self.rtl.outputs()
    }
    fn tick(&mut self, inp: &EpInputs) -> Result<(), CampaignError> {
        self.rtl.tick(inp)?;
        self.model.tick(inp);
        self.model_out = self.model.outputs();
        self.cycle += 1;
        self.compare()
    }
    fn rx_state(&self) -> Option<(u32, bool)> {
        Some((self.model.eseq(), self.model.discarding()))
    }
}

/// A switch half run as RTL and model in lockstep.
pub struct CheckedLinkRx {
    pub name: String,
    rtl: RtlLinkRx,
    model: LinkRxModel,
    cycle: u64,
}

impl LinkRxNode for CheckedLinkRx {
    fn out(&self) -> (bool, &Msg) {
        self.rtl.out()
    }
    fn counters(&self) -> [u64; 3] {
        self.rtl.counters
    }
    fn tick(&mut self, valid: bool, flit: &Flit) -> Result<(), CampaignError> {
        self.rtl.tick(valid, flit)?;
        LinkRxModel::tick(&mut self.model, valid, flit);
        self.cycle += 1;
        let (rv, rm) = self.rtl.out();
        let mismatch = |what: &str, rtl: String, model: String| CampaignError::Mismatch { node: self.name.clone(), cycle: self.cycle, what: what.into(), rtl, model };
        if rv != self.model.out_valid() {
            return Err(mismatch("out_valid", rv.to_string(), self.model.out_valid().to_string()));
        }
        if rv && rm != self.model.out_msg() {
            return Err(mismatch("out_msg", first_diff(rm, self.model.out_msg()), String::new()));
        }
        if self.rtl.counters != self.model.counters() {
            return Err(mismatch("counters", format!("{:?}", self.rtl.counters), format!("{:?}", self.model.counters())));
        }
        Ok(())
    }
}

pub struct CheckedLinkTx {
    pub name: String,
    rtl: RtlLinkTx,
    model: LinkTxModel,
    cycle: u64,
}

impl LinkTxNode for CheckedLinkTx {
    fn out(&self) -> (bool, &Flit) {
        self.rtl.out()
    }
    fn tick(&mut self, valid: bool, msg: &Msg) -> Result<(), CampaignError> {
        self.rtl.tick(valid, msg)?;
        LinkTxModel::tick(&mut self.model, valid, msg);
        self.cycle += 1;
        let (rv, rf) = self.rtl.out();
        let mismatch = |what: &str, rtl: String, model: String| CampaignError::Mismatch { node: self.name.clone(), cycle: self.cycle, what: what.into(), rtl, model };
        if rv != self.model.out_valid() {
            return Err(mismatch("out_valid", rv.to_string(), self.model.out_valid().to_string()));
        }
        if rv && rf != self.model.out_flit() {
            return Err(mismatch("out_flit", first_diff(rf, self.model.out_flit()), String::new()));
        }
        if self.rtl.count() != self.model.counters()[0] {
            return Err(mismatch("cnt_flits", self.rtl.count().to_string(), self.model.counters()[0].to_string()));
        }
        Ok(())
    }
}

/// How the RTL campaign nodes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// RTL only (fastest).
    RtlOnly,
    /// RTL and model in lockstep, every output compared every cycle.
    Lockstep,
}

/// The nodes of a campaign on the RTL of `endpoint` (both ends) and `switch` (every level and
/// direction) from the bench's tree; the lockstep models come from the same blocks.
pub fn rtl_nodes(bench: &Bench, endpoint: &RxlEndpointBlock, switch: Option<&RxlSwitchBlock>, switches: usize, check: Check, test: &str) -> Result<Nodes, CampaignError> {
    let tree = bench.tree();
    let ep_module = bench.module(&endpoint.name, Role::Endpoint)?.name().to_string();
    let codec = FlitCodec::new(endpoint.cfg.crc, endpoint.cfg.fec);
    let mut eps: Vec<Box<dyn EndpointNode>> = Vec::new();
    for (i, side) in ["a", "b"].iter().enumerate() {
        let rtl = RtlEndpoint::new(tree, &ep_module, &format!("{test}_{side}"))?;
        eps.push(match check {
            Check::RtlOnly => Box::new(rtl),
            Check::Lockstep => Box::new(CheckedEndpoint::new(&format!("{ep_module} ({})", if i == 0 { "A" } else { "B" }), rtl, EndpointModel::with_codec(endpoint.cfg.clone(), codec.clone()))?),
        });
    }
    let mut sw: [Vec<SwitchPair>; 2] = [Vec::new(), Vec::new()];
    if switches > 0 {
        let s = switch.ok_or_else(|| CampaignError::Config("switch levels need an rxl_switch block".into()))?;
        if s.fec != endpoint.cfg.fec {
            return Err(CampaignError::Config(format!("switch `{}` and endpoint `{}` use different FEC layouts", s.name, endpoint.name)));
        }
        let rx_m = bench.module(&s.name, Role::LinkRx)?.name().to_string();
        let tx_m = bench.module(&s.name, Role::LinkTx)?.name().to_string();
        for (d, list) in sw.iter_mut().enumerate() {
            for k in 0..switches {
                let tag = format!("{test}_sw{k}_d{d}");
                let rx = RtlLinkRx::new(tree, &rx_m, &format!("{tag}_rx"))?;
                let tx = RtlLinkTx::new(tree, &tx_m, &format!("{tag}_tx"))?;
                list.push(match check {
                    Check::RtlOnly => (Box::new(rx) as Box<dyn LinkRxNode>, Box::new(tx) as Box<dyn LinkTxNode>),
                    Check::Lockstep => (
                        Box::new(CheckedLinkRx { name: format!("{rx_m} (level {k}, direction {d})"), rtl: rx, model: LinkRxModel::new(codec.clone(), s.counter_bits), cycle: 0 }) as Box<dyn LinkRxNode>,
                        Box::new(CheckedLinkTx { name: format!("{tx_m} (level {k}, direction {d})"), rtl: tx, model: LinkTxModel::new(codec.clone(), s.counter_bits), cycle: 0 }) as Box<dyn LinkTxNode>,
                    ),
                });
            }
        }
    }
    let mut it = eps.into_iter();
    Ok(Nodes { endpoints: [it.next().expect("A"), it.next().expect("B")], switches: sw })
}
