//! Turning an elaborated design into files: banners, docs, core, constraints ([`banner`]) and
//! the output tree with its manifest ([`tree`]).
pub mod banner;
pub mod tree;
