//! The Gen-Z LLR campaigns over the links of [`crate::link::genz`]: [`campaign`] the figures
//! campaign (`rtl-gen sim genz --figures`), [`compare`] RIFL vs RXL vs Gen-Z LLR on one channel.

pub mod campaign;
pub mod compare;
