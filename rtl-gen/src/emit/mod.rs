//! Everything that turns modules into files: the Verilog tree and printer, XOR-network emission,
//! the banner/docs/core/constraint templates and the output tree with its manifest.
pub mod banner;
pub mod build;
pub mod eval;
pub mod gf_net;
pub mod pipe;
pub mod tree;
pub mod verilog;
pub mod xor_net;
