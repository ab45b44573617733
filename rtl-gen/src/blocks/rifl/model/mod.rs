//! The bit-accurate, cycle-accurate reference model of a RIFL node (the RIFL paper, §2–§5), one
//! small file per part; each part is the exact machine its RTL module implements, so a whole
//! node (and a whole link) can be compared with the Verilated RTL cycle by cycle.
//!
//! * [`codec`]: frame layout, meta/format/control codes, the verification code.
//! * [`scrambler`]: 1 + x^13 + x^33, self-synchronous.
//! * [`tx`]: the TX controller (six states, retransmission buffer and procedure).
//! * [`rx`]: Listing 1's verification, control event monitor, out-of-sync, flow-control flag.
//! * [`fifo`]: the flow-control buffer.
//! * [`gearbox`]: AXI4-Stream width conversion.
//! * [`node`]: the top with channel bonding and status counters.
//! * [`rxcdc`]: a lane's receiver on its recovered clock and the FIFO into the node clock.
//! * [`comp`]: clock compensation (TX and recovered cycle counts compared on a free clock).
//! * [`align`]: the Lane Aligner on the transceiver-width stream (with `gt_bits`).
//! * [`gtwidth`]: the TX GT width converter, frame-wide on clk to `gt_bits` on the fast clock.
//! * [`tbond`]: temporal channel bonding, user streams on `user_clk` (T x clk) to T-beat groups on clk.
//!
//! Bit vectors are the workspace's one type, [`crate::bits::Bits`]. The link harness (two
//! nodes, channels, traffic, scoreboard) is the simulator's `rtl_gen_sim::campaign::rifl`.

pub mod align;
pub mod codec;
pub mod comp;
pub mod fifo;
pub mod gearbox;
pub mod gtwidth;
pub mod node;
pub mod params;
pub mod rx;
pub mod rxcdc;
pub mod scrambler;
pub mod tbond;
pub mod tx;

pub use node::Node;
pub use params::Params;
