//! The Verilated RIFL top as a link node ([`RtlNode`]), and [`Twin`]: RTL and model fed the same
//! inputs, every output compared every cycle.

use super::NodeIo;
use crate::{Bench, Bits, Dut, SimError, Tree};
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

/// The top's ports the model's `NodeIn`/`NodeOut` map to (issue-fixed names); checked to exist
/// when the node is built, so reading and writing them by name cannot fail afterwards.
const PORTS: [&str; 18] = [
    "s_axis_tdata", "s_axis_tkeep", "s_axis_tlast", "s_axis_tvalid", "s_axis_tready",
    "m_axis_tdata", "m_axis_tkeep", "m_axis_tlast", "m_axis_tvalid", "m_axis_tready",
    "tx_frame", "tx_ready", "rx_frame", "rx_valid", "link_up", "frame_errors", "retransmissions", "pause_events",
];

/// A Verilated RIFL top, driven like the model node.
pub struct RtlNode {
    pub dut: Dut,
    p: Params,
    /// tkeep values seen that were not contiguous (must stay 0).
    pub bad_keep: u64,
}

impl RtlNode {
    /// The top (role `Node`) of the bench's `rifl` block `block`, with that block's parameters.
    pub fn from_bench(bench: &Bench, block: &str, test_name: &str) -> Result<RtlNode, SimError> {
        let p = bench.block::<RiflBlock>(block)?.params;
        let module = bench.module(block, Role::Node)?.name().to_string();
        RtlNode::new(bench.tree(), &module, test_name, p)
    }

    /// `module` of `tree`, a RIFL top with parameters `p`.
    pub fn new(tree: &Tree, module: &str, test_name: &str, p: Params) -> Result<RtlNode, SimError> {
        let mut dut = Dut::build_named(tree, module, test_name)?;
        for name in PORTS {
            dut.port(name)?;
        }
        dut.reset(2)?;
        Ok(RtlNode { dut, p, bad_keep: 0 })
    }

    // Ports in `PORTS` exist (checked in `new`) and Bits values are sized by the port: these
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
        self.get("m_axis_tkeep")
    }
}

impl RtlNode {
    fn set_inputs(&mut self, i: &NodeIn) {
        let u = self.p.user_bytes();
        let f = self.p.frame_width();
        let l = self.p.lanes();
        self.set("s_axis_tdata", &Bits::from_bytes_width(&i.s_data[..u], 8 * u));
        self.set("s_axis_tkeep", &thermo(i.s_count, u));
        self.set_u64("s_axis_tlast", i.s_last as u64);
        self.set_u64("s_axis_tvalid", i.s_valid as u64);
        self.set_u64("m_axis_tready", i.m_ready as u64);
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
        let keep = self.get("m_axis_tkeep");
        let m_valid = self.get_u64("m_axis_tvalid") == 1;
        let m_count = match thermo_count(&keep) {
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
            s_ready: self.get_u64("s_axis_tready") == 1,
            m_valid,
            m_data: self.get("m_axis_tdata").to_bytes(),
            m_count,
            m_last: self.get_u64("m_axis_tlast") == 1,
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
        d.push(format!("s_axis_tready rtl {} model {}", a.s_ready, b.s_ready));
    }
    if a.m_valid != b.m_valid {
        d.push(format!("m_axis_tvalid rtl {} model {}", a.m_valid, b.m_valid));
    } else if a.m_valid && (a.m_count != b.m_count || a.m_last != b.m_last || a.m_data != b.m_data) {
        d.push(format!("m_axis beat rtl (keep {} last {}) model (keep {} last {}), data equal: {}", a.m_count, a.m_last, b.m_count, b.m_last, a.m_data == b.m_data));
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
        let m = self.model.outputs(i.tx_ready);
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
