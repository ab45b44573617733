//! Turning an elaborated design into files: banners, docs, core, constraints ([`banner`]; a multi-clock module's own in [`cdc_constraints`]), the
//! FPGA demo ([`demo`]) and the output tree with its manifest ([`tree`]), every file under the
//! user's own file header ([`crate::header`]).
pub mod banner;
pub mod cdc_constraints;
pub mod demo;
pub mod reference;
pub mod tree;
