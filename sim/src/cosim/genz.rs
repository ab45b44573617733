//! Gen-Z LLR (`genz_llr`): two Verilated interfaces, each with its cycle-accurate model in
//! lockstep, joined by the shared campaign channel ([`crate::link::genz`]). Every output
//! (`s_axis_tready` for the offered beat, every `m_axis_*` and `m_axis_link_*` signal while
//! valid, `retrain`, `llr_state`, every counter) is compared every cycle under random traffic on
//! every VC, backpressure on every stream, bit errors (marker included), bursts, dropped beats
//! and link-down periods; the campaign's scoreboard checks exactly-once, in-order, bit-exact
//! delivery on top.

use super::{Options, Tally};
use crate::axis::Axis;
use crate::link::genz::{keep, run_link, LinkOptions, LinkReport, LlrNode};
use crate::link::channel::Faults;
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::blocks::genz_llr::model::{LlrConfig, LlrInputs, LlrModel, LlrOutputs, COUNTERS};
use rtl_gen::blocks::genz_llr::rtl::ports;
use rtl_gen::blocks::genz_llr::{GenzLlrBlock, GenzLlrParams};
use rtl_gen::hw::axis::Signal;
use rtl_gen::elab::ElabModule;
use std::cell::RefCell;
use std::rc::Rc;

/// A Verilated interface with its model beside it; the campaign sees the RTL's outputs.
pub struct TwinInterface {
    name: String,
    dut: Dut,
    /// The four stream bundles, found by the names the generator gives them.
    ee_in: Axis,
    ee_out: Axis,
    link_out: Axis,
    link_in: Axis,
    pub model: LlrModel,
    out: LlrOutputs,
    tally: Rc<RefCell<Tally>>,
    cycle: u64,
    /// The `phy_up` driven on the RTL (`m_axis_link_tvalid` is the output register's valid
    /// AND `phy_up`).
    phy_up: bool,
}

fn bytes(b: &Bits, n: usize) -> Vec<u8> {
    let mut v = b.to_bytes();
    v.resize(n, 0);
    v
}

impl TwinInterface {
    pub fn new(name: &str, mut dut: Dut, model: LlrModel, tally: Rc<RefCell<Tally>>) -> Result<TwinInterface, SimError> {
        let ee_in = Axis::of(&dut, ports::EE_IN)?;
        let ee_out = Axis::of(&dut, ports::EE_OUT)?;
        let link_out = Axis::of(&dut, ports::LINK_OUT)?;
        let link_in = Axis::of(&dut, ports::LINK_IN)?;
        dut.set_u64("phy_up", 0)?;
        ee_out.set_u64(&mut dut, Signal::Ready, 0)?;
        link_out.set_u64(&mut dut, Signal::Ready, 0)?;
        dut.reset(2)?;
        let out = model.outputs();
        let mut t = TwinInterface { name: name.to_string(), dut, ee_in, ee_out, link_out, link_in, model, out, tally, cycle: 0, phy_up: false };
        t.read_and_compare()?;
        Ok(t)
    }

    fn read_and_compare(&mut self) -> Result<(), SimError> {
        let d = &self.dut;
        let db = self.model.cfg.data_bytes as usize;
        let mut counters = [0u64; 13];
        for (v, p) in counters.iter_mut().zip(COUNTERS) {
            *v = d.get_u64(p)?;
        }
        let (m, l) = (&self.ee_out, &self.link_out);
        self.out = LlrOutputs {
            m_valid: m.get_u64(d, Signal::Valid)? == 1,
            m_data: bytes(&m.get(d, Signal::Data)?, db),
            m_last: m.get_u64(d, Signal::Last)? == 1,
            m_user: m.get_u64(d, Signal::User)? as u8,
            ltx_valid: l.get_u64(d, Signal::Valid)? == 1,
            ltx_data: bytes(&l.get(d, Signal::Data)?, db),
            ltx_last: l.get_u64(d, Signal::Last)? == 1,
            ltx_user: l.get_u64(d, Signal::User)? == 1,
            retrain: d.get_u64("retrain")? == 1,
            llr_state: d.get_u64("llr_state")? as u8,
            counters,
        };
        let w = self.model.outputs();
        let (r, n, cy) = (&self.out, &self.name, self.cycle);
        let mut t = self.tally.borrow_mut();
        let (m, l) = (|s| format!("{n}.{}", self.ee_out.label(s)), |s| format!("{n}.{}", self.link_out.label(s)));
        t.compare(cy, &m(Signal::Valid), w.m_valid, r.m_valid);
        if w.m_valid {
            t.compare(cy, &m(Signal::Data), &w.m_data, &r.m_data);
            t.compare(cy, &m(Signal::Last), w.m_last, r.m_last);
            t.compare(cy, &m(Signal::User), w.m_user, r.m_user);
        }
        t.compare(cy, &l(Signal::Valid), w.ltx_valid && self.phy_up, r.ltx_valid);
        if w.ltx_valid && self.phy_up {
            t.compare(cy, &l(Signal::Data), &w.ltx_data, &r.ltx_data);
            t.compare(cy, &l(Signal::Last), w.ltx_last, r.ltx_last);
            t.compare(cy, &l(Signal::User), w.ltx_user, r.ltx_user);
        }
        t.compare(cy, &format!("{n}.retrain"), w.retrain, r.retrain);
        t.compare(cy, &format!("{n}.llr_state"), w.llr_state, r.llr_state);
        for ((p, a), b) in COUNTERS.iter().zip(w.counters).zip(r.counters) {
            t.compare(cy, &format!("{n}.{p}"), a, b);
        }
        t.vectors += 1;
        t.cycles = t.cycles.max(cy);
        Ok(())
    }
}

impl LlrNode for TwinInterface {
    fn outputs(&self) -> LlrOutputs {
        self.out.clone()
    }
    fn tick(&mut self, i: &LlrInputs) -> Result<bool, SimError> {
        let d = &mut self.dut;
        let (s, l) = (&self.ee_in, &self.link_in);
        s.set_u64(d, Signal::Valid, i.s_valid as u64)?;
        s.set(d, Signal::Data, &Bits::from_bytes(&i.s_data))?;
        s.set_u64(d, Signal::Last, i.s_last as u64)?;
        s.set_u64(d, Signal::User, i.s_user as u64)?;
        self.ee_out.set_u64(d, Signal::Ready, i.m_ready as u64)?;
        self.link_out.set_u64(d, Signal::Ready, i.ltx_ready as u64)?;
        l.set_u64(d, Signal::Valid, i.lrx_valid as u64)?;
        l.set(d, Signal::Data, &Bits::from_bytes(&i.lrx_data))?;
        l.set_u64(d, Signal::Last, i.lrx_last as u64)?;
        l.set_u64(d, Signal::User, i.lrx_user as u64)?;
        d.set_u64("phy_up", i.phy_up as u64)?;
        d.set_u64("phy_error", i.phy_error as u64)?;
        d.eval();
        self.phy_up = i.phy_up;
        let ready = s.get_u64(d, Signal::Ready)? == 1;
        let want = self.model.s_ready(i.s_user);
        let link_valid = self.link_out.get_u64(d, Signal::Valid)? == 1;
        let mut t = self.tally.borrow_mut();
        t.compare(self.cycle, &format!("{}.{}", self.name, s.label(Signal::Ready)), want, ready);
        t.compare(self.cycle, &format!("{}.{} (phy_up {})", self.name, self.link_out.label(Signal::Valid), i.phy_up as u8), self.model.r.lk_valid && i.phy_up, link_valid);
        drop(t);
        d.tick();
        self.model.tick(i);
        self.cycle += 1;
        self.read_and_compare()?;
        Ok(ready)
    }
    fn outstanding(&self) -> u64 {
        self.model.outstanding() as u64
    }
    fn in_flight(&self) -> u64 {
        self.model.r.sent_max.wrapping_sub(self.model.r.ack_seq) as u64
    }
}

/// The block a module was generated from.
pub fn block_of(m: &ElabModule) -> Result<GenzLlrBlock, SimError> {
    super::kind_params::<GenzLlrParams>(m)?.block("model").map_err(|e| super::design_error(m, e))
}

/// Two Verilated interfaces of module `m` in lockstep with their models, over a link with
/// `o`'s faults; `hook` sees every beat entering the channels.
pub fn twin_link(bench: &Bench, m: &ElabModule, o: &LinkOptions, hook: &mut crate::link::genz::Hook) -> Result<(LinkReport, Tally), SimError> {
    let cfg: LlrConfig = block_of(m)?.cfg;
    let tally = Rc::new(RefCell::new(Tally::default()));
    let mk = |side: &str| -> Result<TwinInterface, SimError> {
        let dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}_{side}", m.name()))?;
        TwinInterface::new(side, dut, LlrModel::new(cfg.clone()), tally.clone())
    };
    let (mut a, mut b) = (mk("a")?, mk("b")?);
    let rep = run_link(&mut a, &mut b, &cfg, o, hook)?;
    drop((a, b));
    let t = Rc::try_unwrap(tally).map_err(|_| SimError::Design { message: "tally still shared".into() })?.into_inner();
    Ok((rep, t))
}

/// The `rtl-gen sim cosim` driver: a faulty link for `opts.vectors` cycles (then drained); a
/// scoreboard failure counts as a mismatch.
pub fn interface(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    // Without `ecrc_check` the block leaves EE payload errors to the PHY (`phy_error`, module
    // doc): silent bit errors would be delivered as the design intends, so that link has drops,
    // link-local loss and link-down periods but no silent corruption.
    let silent = if block_of(m)?.cfg.ecrc_check { 1.0 } else { 0.0 };
    let o = LinkOptions {
        cycles: opts.vectors.max(2000),
        drain_cycles: 20_000,
        faults: Faults { ber: 1e-5 * silent, burst: 5e-4 * silent, burst_bits: 12, drop: 5e-4, uc: 0.0 },
        ll_loss: 1e-3,
        down: 1e-5,
        m_ready: 0.7,
        link_ready: 0.8,
        seed: rng.splitmix().next_u64(),
        ..LinkOptions::default()
    };
    let (rep, mut t) = twin_link(bench, m, &o, &mut keep)?;
    if !rep.clean() {
        t.compare(rep.cycles, "scoreboard (errors, missing)", (0u64, 0u64), (rep.errors, rep.missing));
    }
    Ok(t)
}
