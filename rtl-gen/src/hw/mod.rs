//! The hardware-construction kit every block kind builds with: the typed Verilog tree and its
//! printer ([`verilog`]), short-hand builders ([`build`]), AXI4-Stream port bundles ([`axis`]), register groups
//! printed from one next-state description ([`groups`]), carry-free saturating counters
//! ([`count`]), XOR / GF(2^m) networks ([`xor_net`], [`gf_net`]), pipelines ([`pipe`]), one-hot
//! selects and round-robin arbiters ([`select`]), the clock-domain-crossing kit ([`cdc`]), formal
//! properties ([`props`]), the generated-module record ([`module`]) and a cycle evaluator of the
//! tree for unit tests ([`eval`]). It imports nothing from `config`, `blocks` or `output`, so
//! those can all depend on it without a cycle.
pub mod axis;
pub mod build;
pub mod cdc;
pub mod count;
pub mod eval;
pub mod groups;
pub mod gf_net;
pub mod module;
pub mod pipe;
pub mod props;
pub mod ram;
pub mod select;
pub mod skid;
pub mod tidy;
pub mod verilog;
pub mod xor_net;
pub mod xor_share;
