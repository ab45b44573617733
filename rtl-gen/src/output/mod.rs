//! Turning an elaborated design into files: banners, docs, core, constraints ([`banner`]), the
//! user's own file header ([`header`]) and the output tree with its manifest ([`tree`]).
pub mod banner;
pub mod demo;
pub mod header;
pub mod tree;
