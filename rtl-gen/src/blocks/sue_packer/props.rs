//! Properties of the SUE packer, at its ports and its per-queue registers (never at the RAM):
//!
//! - streams: `m_axis_pdu` keeps `tvalid` and the beat (data, last, dest, user) until `tready`,
//!   assuming the same of the `s_axis_cmd` sender;
//! - queues: per {destination, VC} queue, the commands waiting for a PDU never exceed those
//!   holding RAM, which never exceed QUEUE_DEPTH (no overflow; counts are unsigned, so an
//!   underflow would wrap above it), and the registered flags agree with the counts (`nz`,
//!   `room1`, `room2`), so `q_space` and the arbiter read the true occupancy;
//! - the status counters saturate at CNT_MAX and never wrap (the event counters step by one,
//!   the commands-sent accumulator never decreases): those properties come with the counters,
//!   from [`crate::hw::count`].

use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::build::{all, dec, eq, id, le, lt, ne, sub};
use crate::hw::props::{running, Formal};
use crate::hw::verilog::Item;
use crate::info::DesignInfo;

/// `nq` queues of `qd` commands (`cw`-bit counts), `dw`-bit beats.
pub fn properties(design: &DesignInfo, nq: u32, qd: u32, cw: u32, dw: u32) -> Item {
    let reset = design.reset;
    let mut f = Formal::clocked(reset);
    let run = running(reset);
    f.stream_in(reset, "s_axis_cmd", &[("tdata", dw), ("tlast", 1), ("tdest", XPUID_BITS), ("tuser", 4)]);
    f.stream_out(reset, "m_axis_pdu", &[("tdata", dw), ("tlast", 1), ("tdest", XPUID_BITS), ("tuser", 12)], None);
    for q in 0..nq {
        let n = |s: &str| id(&format!("q{q}_{s}"));
        let mut cond = vec![le(n("cnt"), n("used")), le(n("used"), id("QUEUE_DEPTH")), eq(n("nz"), ne(n("cnt"), dec(cw, 0))), eq(n("room1"), lt(n("used"), id("QUEUE_DEPTH")))];
        if qd > 1 {
            cond.push(eq(n("room2"), lt(n("used"), sub(id("QUEUE_DEPTH"), dec(cw, 1)))));
        }
        f.assert(
            &format!("p_q{q}_occupancy"),
            &format!("queue {q}: waiting <= holding RAM <= QUEUE_DEPTH, and its flags agree with the counts"),
            Some(run.clone()),
            all(cond),
        );
    }
    Item::Formal(f)
}
