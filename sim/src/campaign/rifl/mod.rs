//! The RIFL campaign: [`sweep`], the BER sweep (Fig. 9) over the links of [`crate::link::rifl`],
//! with its records, CSV and SVG.

pub mod sweep;
