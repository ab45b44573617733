//! Finite-field arithmetic the generators compute hardware from.
pub mod gf2;
pub mod hd;
pub mod lfsr;
pub mod gf2m;
pub mod splitmix;
