//! SUE (Scale-Up Ethernet) campaigns:
//!
//! | module | what |
//! |---|---|
//! | [`packing`] | the packer alone on the RTL: commands per PDU, wire efficiency and packing latency vs offered load |
//! | [`switch`] | the behavioural switch: per-{egress, class} queues, PFC, per-link loss / corruption, reordering between classes |
//! | [`fabric`] | N `sue_endpoint`s (Verilated RTL in lockstep with their models, or models) through the switch, with scoreboards |
//! | [`figures`] | the figures of `rtl-gen sim sue --figures`, measured on the fabric |
//! | [`campaign`] | those figures as a campaign of seven units on the shared result files: `--shard K/N`, `rtl-gen sim merge` |

pub mod campaign;
pub mod fabric;
pub mod figures;
pub mod packing;
pub mod switch;
