//! The RXL campaign: [`campaign`] runs the links of [`crate::link::rxl`] over a design's endpoint
//! blocks, topologies and segments; [`record`] holds its records and their tables, CSV and SVG.

pub mod campaign;
pub mod record;

pub use campaign::{endpoints_for_mode, run, Impl, ModeSel, RxlOptions, RxlResults};
