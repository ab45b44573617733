//! The Verilated RIFL top as a link node ([`RtlNode`]), and [`Twin`]: RTL and model fed the same
//! inputs, every output compared every cycle.

use super::NodeIo;
use crate::axis::Axis;
use crate::{Bench, Bits, Dut, SimError, Tree};
use rtl_gen::blocks::rifl::rtl::{USER_IN, USER_OUT};
use rtl_gen::hw::axis::{signal_name, Signal};
use rtl_gen::blocks::rifl::model::node::{NodeIn, NodeOut};
use rtl_gen::blocks::rifl::model::{Node, Params};
use rtl_gen::blocks::rifl::RiflBlock;
use rtl_gen::hw::module::Role;

/// `count` ones from bit 0.
pub fn thermo(count: usize, width: usize) -> Bits {
    let mut b = Bits::zeros(width);
    for i in 0..count.min(width) {
        b.set(i, true);
    }
    b
}

/// The count of a thermometer code; `None` if the ones are not contiguous from bit 0.
pub fn thermo_count(b: &Bits) -> Option<usize> {
    let n = b.count_ones() as usize;
    (0..b.width()).all(|i| b.get(i) == (i < n)).then_some(n)
}

/// A node's user streams ([`USER_IN`], [`USER_OUT`]), found from its ports.
#[derive(Debug, Clone)]
pub struct UserStreams {
    pub user_in: Axis,
    pub user_out: Axis,
}

/// One look at a node's user side after an evaluation.
#[derive(Debug, Clone)]
pub struct UserOut {
    /// `tready` of the user stream in.
    pub s_ready: bool,
    pub m_valid: bool,
    pub m_data: Vec<u8>,
    /// The raw `tkeep` of the user stream out.
    pub m_keep: Bits,
    pub m_last: bool,
}

impl UserStreams {
    /// The streams of a RIFL top; every signal the node has must be there.
    pub fn of(dut: &Dut) -> Result<UserStreams, SimError> {
        let s = UserStreams { user_in: Axis::of(dut, USER_IN)?, user_out: Axis::of(dut, USER_OUT)? };
        for a in [&s.user_in, &s.user_out] {
            for signal in [Signal::Keep, Signal::Last] {
                if !a.has(signal) {
                    return Err(SimError::Design { message: format!("RIFL top: stream {} has no {}", a.name, signal.suffix()) });
                }
            }
        }
        Ok(s)
    }

    /// Offers a beat of `count` bytes of `data` (at least a beat's width) on the user stream in
    /// and sets `tready` of the user stream out.
    pub fn drive(&self, dut: &mut Dut, data: &[u8], count: usize, last: bool, valid: bool, m_ready: bool) -> Result<(), SimError> {
        let (i, u) = (&self.user_in, self.user_in.width(Signal::Keep));
        i.set(dut, Signal::Data, &Bits::from_bytes_width(&data[..u], 8 * u))?;
        i.set(dut, Signal::Keep, &thermo(count, u))?;
        i.set_u64(dut, Signal::Last, u64::from(last))?;
        i.set_u64(dut, Signal::Valid, u64::from(valid))?;
        self.user_out.set_u64(dut, Signal::Ready, u64::from(m_ready))
    }

    /// The user side as it is now (after the last evaluation).
    pub fn read(&self, dut: &Dut) -> Result<UserOut, SimError> {
        let o = &self.user_out;
        Ok(UserOut {
            s_ready: self.user_in.get_u64(dut, Signal::Ready)? == 1,
            m_valid: o.get_u64(dut, Signal::Valid)? == 1,
            m_data: o.get(dut, Signal::Data)?.to_bytes(),
            m_keep: o.get(dut, Signal::Keep)?,
            m_last: o.get_u64(dut, Signal::Last)? == 1,
        })
    }
}

/// The top's other ports the model's `NodeIn`/`NodeOut` map to; checked to exist when the node
/// is built, so reading and writing them by name cannot fail afterwards.
const PORTS: [&str; 8] = ["tx_frame", "tx_ready", "rx_frame", "rx_valid", "link_up", "frame_errors", "retransmissions", "pause_events"];

/// A Verilated RIFL top, driven like the model node.
pub struct RtlNode {
    pub dut: Dut,
    p: Params,
    user: UserStreams,
    /// tkeep values seen that were not contiguous (must stay 0).
    pub bad_keep: u64,
}

impl RtlNode {
    /// The top (role `Node`) of the bench's `rifl` block `block`, with that block's parameters.
    pub fn from_bench(bench: &Bench, block: &str, test_name: &str) -> Result<RtlNode, SimError> {
        let p = bench.block::<RiflBlock>(block)?.model_params;
        let module = bench.module(block, Role::Node)?.name().to_string();
        RtlNode::new(bench.tree(), &module, test_name, p)
    }

    /// `module` of `tree`, a RIFL top with parameters `p`.
    pub fn new(tree: &Tree, module: &str, test_name: &str, p: Params) -> Result<RtlNode, SimError> {
        let mut dut = Dut::build_named(tree, module, test_name)?;
        for name in PORTS {
            dut.port(name)?;
        }
        let user = UserStreams::of(&dut)?;
        dut.reset(2)?;
        Ok(RtlNode { dut, p, user, bad_keep: 0 })
    }

    // Ports in `PORTS` and the user streams exist (checked in `new`) and Bits values are sized by the port: these
    // accesses cannot fail.
    fn get(&self, port: &str) -> Bits {
        self.dut.get(port).expect("a port checked in RtlNode::new")
    }
    fn get_u64(&self, port: &str) -> u64 {
        self.dut.get_u64(port).expect("a port checked in RtlNode::new")
    }
    fn set(&mut self, port: &str, value: &Bits) {
        self.dut.set(port, value).expect("a port checked in RtlNode::new");
    }
    fn set_u64(&mut self, port: &str, value: u64) {
        self.dut.set_u64(port, value).expect("a port checked in RtlNode::new");
    }
    /// The raw tkeep of the output beat.
    pub fn m_tkeep(&self) -> Bits {
        self.user.user_out.get(&self.dut, Signal::Keep).expect("a port checked in RtlNode::new")
    }
}

impl RtlNode {
    fn set_inputs(&mut self, i: &NodeIn) {
        let u = self.p.user_bytes();
        let f = self.p.frame_width();
        let l = self.p.lanes();
        self.user.drive(&mut self.dut, &i.s_data[..u], i.s_count, i.s_last, i.s_valid, i.m_ready).expect("a port checked in RtlNode::new");
        self.set_u64("tx_ready", i.tx_ready as u64);
        let mut rx = Bits::zeros(l * f);
        let mut valid = 0u64;
        for j in 0..l {
            rx.set_slice(j * f, &i.rx_frame[j]);
            valid |= (i.rx_valid[j] as u64) << j;
        }
        self.set("rx_frame", &rx);
        self.set_u64("rx_valid", valid);
    }

    /// The outputs as they are now (after the last eval).
    pub fn read(&mut self) -> NodeOut {
        let user = self.user.read(&self.dut).expect("a port checked in RtlNode::new");
        let (keep, m_valid) = (&user.m_keep, user.m_valid);
        let m_count = match thermo_count(keep) {
            Some(n) => n,
            None => {
                if m_valid {
                    self.bad_keep += 1;
                }
                keep.count_ones() as usize
            }
        };
        let frames = self.get("tx_frame");
        let f = self.p.frame_width();
        NodeOut {
            s_ready: user.s_ready,
            m_valid,
            m_data: user.m_data,
            m_count,
            m_last: user.m_last,
            tx_frame: (0..self.p.lanes()).map(|j| frames.slice(j * f, f)).collect(),
            link_up: self.get_u64("link_up") == 1,
            frame_errors: self.get_u64("frame_errors") as u32,
            retransmissions: self.get_u64("retransmissions") as u32,
            pause_events: self.get_u64("pause_events") as u32,
        }
    }
}

impl NodeIo for RtlNode {
    fn params(&self) -> Params {
        self.p
    }

    fn eval(&mut self, i: &NodeIn) -> NodeOut {
        self.set_inputs(i);
        self.dut.eval();
        self.read()
    }

    fn tick(&mut self, i: &NodeIn) {
        self.set_inputs(i);
        self.dut.tick();
    }
}

/// A model node and an RTL node fed the same inputs, compared every cycle.
pub struct Twin {
    pub rtl: RtlNode,
    pub model: Node,
    pub cycles: u64,
    pub mismatch: Option<String>,
}

impl Twin {
    pub fn new(rtl: RtlNode) -> Twin {
        let p = rtl.params();
        Twin { rtl, model: Node::new(p), cycles: 0, mismatch: None }
    }
}

/// Compare two cycles' outputs; `m_data` only when a beat is offered.
pub fn diff_outputs(a: &NodeOut, b: &NodeOut) -> Option<String> {
    let mut d = Vec::new();
    if a.s_ready != b.s_ready {
        d.push(format!("{} rtl {} model {}", signal_name(USER_IN, Signal::Ready), a.s_ready, b.s_ready));
    }
    if a.m_valid != b.m_valid {
        d.push(format!("{} rtl {} model {}", signal_name(USER_OUT, Signal::Valid), a.m_valid, b.m_valid));
    } else if a.m_valid && (a.m_count != b.m_count || a.m_last != b.m_last || a.m_data != b.m_data) {
        d.push(format!("{USER_OUT} beat rtl (keep {} last {}) model (keep {} last {}), data equal: {}", a.m_count, a.m_last, b.m_count, b.m_last, a.m_data == b.m_data));
    }
    for (j, (x, y)) in a.tx_frame.iter().zip(&b.tx_frame).enumerate() {
        if x != y {
            d.push(format!("tx_frame lane {j}: rtl {x:?} model {y:?}"));
        }
    }
    if a.link_up != b.link_up {
        d.push(format!("link_up rtl {} model {}", a.link_up, b.link_up));
    }
    if (a.frame_errors, a.retransmissions, a.pause_events) != (b.frame_errors, b.retransmissions, b.pause_events) {
        d.push(format!(
            "counters rtl ({}, {}, {}) model ({}, {}, {})",
            a.frame_errors, a.retransmissions, a.pause_events, b.frame_errors, b.retransmissions, b.pause_events
        ));
    }
    (!d.is_empty()).then(|| d.join("; "))
}

impl NodeIo for Twin {
    fn params(&self) -> Params {
        self.rtl.params()
    }
    fn eval(&mut self, i: &NodeIn) -> NodeOut {
        let r = self.rtl.eval(i);
        let m = self.model.outputs();
        if self.mismatch.is_none() {
            if let Some(d) = diff_outputs(&r, &m) {
                self.mismatch = Some(format!("cycle {}: {d}", self.cycles));
            }
        }
        r
    }
    fn tick(&mut self, i: &NodeIn) {
        self.rtl.tick(i);
        self.model.tick(i);
        self.cycles += 1;
    }
}
