//! The seeds' reliability arithmetic as functions: frame error rates, code detection and
//! correction probabilities, FIT and MTBF, buffer sizes and bandwidth, each named in its paper's
//! terms and documented with the equation it implements. Pure arithmetic (no EDA tools); the
//! `rtl-gen analyze` and `rtl-gen plan` commands print it.
//!
//! - [`prob`]: the binomial error model shared by the families (independent bit errors).
//! - [`rxl`]: RXL against CXL 3.0 (Jung et al., §7.1–7.2, Eq. 1–14, Fig. 8).
//! - [`rifl`]: RIFL (Shen, Zheng, Chow; Eq. 1–4, 8–16, 26, Tables 2 and 5).
//! - [`crc`]: a CRC's undetected-error probability from its weight distribution.
//! - [`rs`]: Reed-Solomon post-FEC error rates (KR4, KP4, the CXL flit code, any RS(n, k)).
//! - [`genz`]: Gen-Z LLR retry-buffer, credit and recovery sizing and goodput against BER.
//! - [`sue`]: SUE transport window, retransmission storage and timeout sizing and goodput
//!   against loss.
//! - [`plan`], [`genz_plan`], [`sue_plan`]: RIFL, Gen-Z LLR and SUE parameters chosen from a
//!   link's requirements; [`rxl_plan`]: the RXL replay buffer and timeouts for a link;
//!   [`code_plan`]: the CRC and the RS code for an error budget.

pub mod code_plan;
pub mod crc;
pub mod genz;
pub mod genz_plan;
pub mod plan;
pub mod prob;
pub mod rifl;
pub mod rs;
pub mod rxl;
pub mod rxl_plan;
pub mod sue;
pub mod sue_plan;

use std::fmt;

/// One printed figure: what it is, its value and unit, the equation it comes from, and the
/// paper's value where the paper states one.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub name: String,
    pub value: f64,
    pub unit: &'static str,
    /// "Eq. 5", "Table 2", … (of the family's paper).
    pub source: String,
    pub paper: Option<f64>,
    /// Why ours differs from the paper, or where an input comes from.
    pub note: String,
}

impl Figure {
    pub fn new(
        name: impl Into<String>,
        value: f64,
        unit: &'static str,
        source: impl Into<String>,
    ) -> Figure {
        Figure {
            name: name.into(),
            value,
            unit,
            source: source.into(),
            paper: None,
            note: String::new(),
        }
    }
    pub fn paper(mut self, v: f64) -> Figure {
        self.paper = Some(v);
        self
    }
    pub fn note(mut self, n: impl Into<String>) -> Figure {
        self.note = n.into();
        self
    }
}

/// A bad input: the option, the value given and the allowed range.
#[derive(Debug, Clone, PartialEq)]
pub struct InputError {
    pub option: &'static str,
    pub problem: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--{} {}", self.option, self.problem)
    }
}

impl std::error::Error for InputError {}

/// `value` must be finite and within `lo..=hi`, else an error naming `option` and the range.
pub fn check_range(option: &'static str, value: f64, lo: f64, hi: f64) -> Result<(), InputError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(InputError {
            option,
            problem: format!(
                "= {value} is out of range; allowed {}..={}",
                bound(lo),
                bound(hi)
            ),
        })
    }
}

/// A range bound as a user types it: integers plainly, others in e-notation.
fn bound(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e6 {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A clock in MHz as a design file takes it: at most three decimals, no trailing zeros.
pub fn clock_text(mhz: f64) -> String {
    let s = format!("{mhz:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Signal propagation in a cable, ns per metre one way (2e8 m/s): every link loop of the
/// analyses and the campaigns.
pub const NS_PER_M: f64 = 5.0;

/// One-way cable delay in whole clock cycles (at least one: the far end's input register).
pub fn cable_delay_cycles(cable_m: f64, cycle_ns: f64) -> u64 {
    ((cable_m * NS_PER_M / cycle_ns).ceil() as u64).max(1)
}

/// Seconds per (Julian) year, for MTBF in years.
pub const SECONDS_PER_YEAR: f64 = 365.25 * 24.0 * 3600.0;

/// FIT: failures expected in 10^9 device-hours from a failure probability per event and the
/// events per second (RXL Eq. 5, 8, 10: FER × flits/s × 3,600 × 10^9).
pub fn fit(fail_per_event: f64, events_per_s: f64) -> f64 {
    fail_per_event * events_per_s * 3600.0 * 1e9
}
