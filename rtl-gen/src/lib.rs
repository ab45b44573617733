//! rtl-gen: parameterized link-reliability hardware (CRC, ISN CRC, Reed-Solomon FEC, replay,
//! RIFL) as Verilog, with the Rust reference model each block is verified against.
//!
//! Flow: a design file ([`config::Design`]) → validated blocks ([`blocks::Block`]) → modules
//! built as a typed Verilog tree ([`hw::verilog`]) → an output tree on disk ([`output::tree`]).

pub mod analysis;
pub mod blocks;
pub mod config;
pub mod elab;
pub mod bits;
pub mod hw;
pub mod header;
pub mod info;
pub mod keywords;
pub mod output;
pub mod error;
pub mod fields;
pub mod math;
pub mod tools;

/// Name and version written into every generated file.
pub const GENERATOR: &str = concat!("rtl-gen ", env!("CARGO_PKG_VERSION"));
