//! The interface's ports: the four AXI4-Stream bundles (EE packets from and to the upper
//! layer, link beats to and from the PHY framing layer), the PHY status, `retrain`,
//! `llr_state` and the saturating status counters.

use super::super::model::{LlrConfig, COUNTERS};
use crate::hw::axis::Axis;
use crate::hw::module::clock_ports;
use crate::hw::verilog::Port;
use crate::info::DesignInfo;

/// EE packets from the upper layer into the retry buffer.
pub const EE_IN: &str = "s_axis";
/// Delivered EE packets to the upper layer.
pub const EE_OUT: &str = "m_axis";
/// Beats to the PHY framing layer.
pub const LINK_OUT: &str = "m_axis_link";
/// Beats from the PHY framing layer.
pub const LINK_IN: &str = "s_axis_link";

/// The four stream bundles, in port order.
pub fn streams(cfg: &LlrConfig) -> [Axis; 4] {
    let dw = 8 * cfg.data_bytes;
    let vb = cfg.vc_bits();
    [
        Axis::sink(EE_IN, dw, "EE packet beat from the upper layer; byte i at [8i+7:8i], byte 0 first", "a beat is offered", "taken: mid-packet always; a new packet needs a free retry slot and a credit for its VC")
            .keep("must be all ones (EE packets are whole beats); not looked at")
            .last("last beat of the EE packet (its last 4 bytes are the ECRC)")
            .user(vb, "VC of the packet (sampled on its first beat; must equal byte 0 [vc_bits-1:0])"),
        Axis::source(EE_OUT, dw, "delivered EE beat (only packets whose ECRC passed, exactly once, in order)", "a delivered beat is presented", "the upper layer takes it")
            .keep("all ones")
            .last("last beat of the EE packet")
            .user(vb, "VC of the packet (byte 0 [vc_bits-1:0])"),
        Axis::source(
            LINK_OUT,
            dw,
            "beat to the PHY framing layer",
            "a beat is presented: the output register's valid AND phy_up (combinational in phy_up, so low in every cycle phy_up is low; no beat is taken then)",
            "the PHY takes it",
        )
        .keep("all ones")
        .last("last beat of an EE or link-local packet")
        .user(1, "1 on every beat of a link-local packet, 0 on EE beats"),
        Axis::sink(LINK_IN, dw, "beat from the PHY framing layer", "a beat arrives", "always 1: the receiver never stalls the link")
            .keep("must be all ones; not looked at")
            .last("last beat of a packet")
            .user(1, "link-local marker (checked: the same on every beat of a packet)"),
    ]
}

/// What each status counter counts, in [`COUNTERS`] order.
const COUNTER_DOCS: [&str; 13] = [
    "EE packets transmitted the first time (counted when the PHY first takes the last beat)",
    "EE packets retransmitted (their last beat taken again)",
    "EE packets delivered on m_axis",
    "EE packets failing the ECRC",
    "LLR Discards sent",
    "LLR Discards received",
    "LLR Clear Discards sent",
    "LLR Exit Discards sent",
    "LLR ACKs sent",
    "LLR ACKs received",
    "LLR Inits sent",
    "retrains requested",
    "timer-driven retransmissions (3 LLR timer periods unacknowledged)",
];

pub fn ports(cfg: &LlrConfig, design: &DesignInfo) -> Vec<Port> {
    let mut ports = clock_ports(design);
    for s in streams(cfg) {
        ports.extend(s.ports());
    }
    ports.extend([
        Port::input("phy_up", 1, "the physical layer is trained; low: link down, Init again when high"),
        Port::input("phy_error", 1, "pulse: an error that resynchronises the link (or a lost packet): LLR error recovery"),
        Port::output("retrain", 1, "pulse: request a physical retrain (Discard limit, or 4 LLR timer periods without ACK)"),
        Port::output("llr_state", 5, "[1:0] 0 down / 1 init / 2 up, [2] EE transmission enabled (FC received), [3] receiver discarding, [4] transmitter stopped (awaiting Exit Discard)"),
    ]);
    for (name, doc) in COUNTERS.iter().zip(COUNTER_DOCS) {
        ports.push(Port::output(name, cfg.counter_bits, &format!("{doc} (saturating)")));
    }
    ports
}
