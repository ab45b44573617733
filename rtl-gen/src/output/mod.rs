//! Turning an elaborated design into files: banners, docs, core, constraints ([`banner`]; a multi-clock module's own in [`cdc_constraints`]), the
//! FPGA demos ([`demo`]; the two-clock one of a recovered-clock node in [`demo_pair`]) and the output tree with its manifest ([`tree`]), every file under the
//! user's own file header ([`crate::header`]).
pub mod banner;
pub mod cdc_constraints;
pub mod demo;
pub mod demo_pair;
pub mod reference;
pub mod tree;
