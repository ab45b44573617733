//! The transport's ports: the packer's PDU stream in, the SUE PDU stream out and in, the
//! command stream out, pauses, completions, peer-down and the status counters.

use super::super::SueTransportBlock;
use crate::blocks::protocol::sue::XPUID_BITS;
use crate::blocks::sue_transport::model::COUNTER_NAMES;
use crate::hw::axis::{Axis, Signal};
use crate::hw::module::clock_ports;
use crate::hw::verilog::Port;
use crate::info::DesignInfo;

/// The ports in their documented order.
pub(super) fn ports(b: &SueTransportBlock, design: &DesignInfo) -> Vec<Port> {
    let c = &b.common;
    let p = &b.resolved;
    let (x, v) = (c.num_xpu, c.num_vc);
    let dw = 8 * c.data_bytes;
    let db = c.data_bytes;
    let kb = c.counter_bits;
    let mut ports = clock_ports(design);
    if p.xpuid_port {
        ports.push(Port::input(
            "local_xpuid",
            XPUID_BITS,
            "this XPU's id, sent as the RH xpuid (below num_xpu); a strap or register, changed only while in reset",
        ));
    }
    let pdu = Axis::sink(
        "s_axis_pdu",
        dw,
        "packed payload beats from the packer",
        "a payload beat is offered",
        "beat taken; on a first beat = a free slot for its PSN space (bad or peer-down PDUs are taken and dropped)",
    )
    .last("last beat of the PDU")
    .dest(XPUID_BITS, "destination xpuid (first beat)")
    .user(12, "{ncmds[9:0], vc[1:0]} (first beat)");
    let tx = Axis::source(
        "m_axis_tx",
        dw,
        "SUE PDU beats: RH, payload, R-CRC; byte 0 first",
        "a PDU beat is presented",
        "the beat is taken",
    )
    .keep("all ones, last beat the low 12 bytes")
    .last("last beat of the PDU")
    .dest(XPUID_BITS, "destination XPU of the PDU")
    .user(2, "vc of the PDU (traffic class)");
    let rx = Axis::sink(
        "s_axis_rx",
        dw,
        "received SUE PDU beats",
        "a received beat is offered",
        "1 inside a PDU; between PDUs iff every VC buffer has room for a maximum PDU",
    )
    .keep("byte enables (all ones, last beat the low 12 bytes)")
    .last("last beat of a received PDU")
    .user(1, "frame error from the lower layer (any beat)");
    let cmd = Axis::source(
        "m_axis_cmd",
        dw,
        "unpacked command beats",
        "a command beat is presented",
        "the beat is taken",
    )
    .last("last beat of a command")
    .id(XPUID_BITS, "source xpuid of the command")
    .user(2, "vc of the command");
    debug_assert_eq!(
        tx.width(Signal::Keep),
        db,
        "tkeep: a bit per byte of the beat"
    );
    ports.extend(pdu.ports());
    ports.push(Port::output("tx_dest_ready", x, "a slot is free for this destination (every VC's space with dest_vc) and the peer is not down (to the packer's dest_ok)"));
    ports.extend(tx.ports());
    ports.push(Port::input(
        "tx_vc_pause",
        v,
        "link partner's pause per class: do not start PDUs of a paused VC",
    ));
    ports.extend(rx.ports());
    ports.push(Port::output("rx_vc_pause", v, "pause towards the link partner per class: that VC buffer's free space is below rx_pause_bytes"));
    ports.extend(cmd.ports());
    ports.extend([
        Port::input("xpu_vc_pause", v, "the XPU cannot take this VC now: the output skips it"),
        Port::output("cmpl_valid", 1, "one-cycle pulse: cmpl_cmds more commands to cmpl_dest acknowledged"),
        Port::output("cmpl_dest", XPUID_BITS, "destination of the acknowledged commands"),
        Port::output("cmpl_cmds", 16, "commands newly acknowledged"),
        Port::output("peer_down", x, "sticky: a PSN space to this destination timed out more than max_retries times in a row"),
    ]);
    let docs = [
        "data PDUs sent for the first time",
        "data PDUs retransmitted",
        "control PDUs carrying an ACK",
        "control PDUs carrying a NACK",
        "data PDUs carrying an ACK",
        "data PDUs carrying a NACK",
        "NACKs received and acted on",
        "cycles in which a retransmission timeout fired",
        "ACKs/NACKs out of range, ignored",
        "PDUs from the packer dropped: bad sideband or beat count",
        "PDUs from the packer dropped: peer down",
        "cycles a first beat waited for a free slot",
        "received PDUs (every tlast)",
        "received PDUs dropped: frame error flagged",
        "received PDUs dropped: bad shape (tkeep, length)",
        "received PDUs dropped: R-CRC mismatch",
        "received PDUs dropped: bad header (ver, op 3, xpuid, vc)",
        "received PDUs dropped: partition",
        "control PDUs received",
        "data PDUs accepted in order",
        "data PDUs dropped: ahead of the expected PSN",
        "data PDUs dropped: duplicates",
        "commands delivered",
        "cycles with s_axis_rx_tvalid and not tready",
    ];
    for (n, doc) in COUNTER_NAMES.iter().zip(docs) {
        ports.push(Port::output(n, kb, doc));
    }
    ports
}
