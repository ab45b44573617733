//! `rtl-gen plan genz`: `genz_llr` parameters for a link's requirements, each with its reason,
//! the predicted figures of [`super::genz`] and a design file `rtl-gen generate` accepts.

use super::genz::{self, Inputs};
use super::{check_range, clock_text, InputError};

/// The block's beat widths, narrowest first (fewer wires, faster clock).
pub const BEATS: [u32; 2] = [4, 8];
/// Credits per VC the block carries (credits travel modulo 256).
pub const MAX_CREDITS: u64 = 255;
/// The ACK overhead the plan accepts at BER 0.
pub const ACK_OVERHEAD: f64 = 0.01;

/// The requirements.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirements {
    pub line_gbps: f64,
    pub lanes: u32,
    pub cable_m: f64,
    pub ber: f64,
    /// Largest EE packet, bytes.
    pub packet_bytes: u32,
    pub vcs: u32,
    /// Fastest clock the implementation runs at, MHz.
    pub max_clock_mhz: f64,
    /// Goodput (fraction of the line) required at `ber` with packets of `packet_bytes`.
    pub min_goodput: f64,
}

/// The chosen parameters, the reasons and the predicted figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub req: Requirements,
    /// The link as the chosen block sees it (beat, ACK batching).
    pub link: Inputs,
    pub slots: u64,
    pub rx_credits: u64,
    pub reasons: Vec<(&'static str, String)>,
}

impl Requirements {
    pub fn validate(&self) -> Result<(), InputError> {
        check_range("line-gbps", self.line_gbps, 0.1, 16_000.0)?;
        check_range("lanes", self.lanes as f64, 1.0, 64.0)?;
        check_range("cable-m", self.cable_m, 0.0, 10_000.0)?;
        check_range("ber", self.ber, 0.0, 1e-2)?;
        check_range("packet-bytes", self.packet_bytes as f64, 8.0, 4096.0)?;
        check_range("vcs", self.vcs as f64, 1.0, 4.0)?;
        check_range("max-clock-mhz", self.max_clock_mhz, 1.0, 5_000.0)?;
        check_range("min-goodput", self.min_goodput, 0.0, 0.99)
    }
}

/// Chooses beat, ACK batching, retry slots and credits; refuses with the figure that makes a
/// requirement impossible.
pub fn plan_genz(req: &Requirements) -> Result<Plan, InputError> {
    req.validate()?;
    let clock = |beat: u32| req.line_gbps * 1e3 / (8.0 * beat as f64);
    let Some(&beat) = BEATS.iter().find(|&&b| clock(b) <= req.max_clock_mhz) else {
        return Err(InputError { option: "line-gbps", problem: format!("= {} needs a {:.1} MHz clock even with 8-byte beats, above --max-clock-mhz {}; allowed at most {} Gb/s", req.line_gbps, clock(8), req.max_clock_mhz, req.max_clock_mhz * 64.0 / 1e3) });
    };
    if !req.packet_bytes.is_multiple_of(beat) {
        return Err(InputError { option: "packet-bytes", problem: format!("= {} is not whole {beat}-byte beats (the beat the clock needs); allowed multiples of {beat}", req.packet_bytes) });
    }
    let mut link = Inputs { line_gbps: req.line_gbps, lanes: req.lanes, cable_m: req.cable_m, data_bytes: beat, packet_bytes: req.packet_bytes, ack_every: 1, ber: req.ber };
    // The fewest packets per ACK that keep the ACK overhead within 1 %.
    let ll = link.ll_beats() as f64;
    let p = link.packet_beats() as f64;
    link.ack_every = ((ll * (1.0 - ACK_OVERHEAD) / (ACK_OVERHEAD * p)).ceil() as u32).clamp(1, MAX_CREDITS as u32);
    link.validate()?;
    let slots = genz::slots_for_full_rate(&link);
    if slots > MAX_CREDITS {
        let longest = longest_cable(&link);
        return Err(InputError { option: "cable-m", problem: format!("= {} needs {slots} packets of {} bytes in the acknowledgement loop, more than the {MAX_CREDITS} credits a VC carries (credits travel modulo 256); allowed at most {longest:.1} m at these packets, or larger --packet-bytes", req.cable_m, req.packet_bytes) });
    }
    let per_recovery = genz::errors_per_recovery(&link);
    if per_recovery >= 1.0 {
        return Err(InputError { option: "ber", problem: format!("= {:e} puts {per_recovery:.2} errors into one {}-cycle recovery (at 1 or more recoveries chain without end); allowed a BER below {:.2e} at this cable and packet size", req.ber, genz::recovery_cycles(&link), req.ber / per_recovery) });
    }
    let g = genz::goodput(&link);
    if g < req.min_goodput {
        return Err(InputError { option: "min-goodput", problem: format!("= {} is out of reach: at BER {:e} the link keeps {g:.4} of the line (each error costs a {}-cycle recovery); allowed at most {:.4}, or a better BER, a shorter cable or smaller packets", req.min_goodput, req.ber, genz::recovery_cycles(&link), g) });
    }
    let rx_credits = slots;
    let reasons = vec![
        ("data_bytes", format!("{beat}: the narrowest beat whose clock ({:.1} MHz for {} Gb/s) is within {} MHz", clock(beat), req.line_gbps, req.max_clock_mhz)),
        ("ui_per_cycle", format!("{}: {}-bit beats over {} lane(s), so the seed's 8192-UI and 2^20-UI periods become cycles", link.ui_per_cycle(), 8 * beat, req.lanes)),
        ("ack_every", format!("{}: the fewest packets per LLR ACK that keep the ACK overhead within {} % ({} LL beats per {} packets of {} beats: efficiency {:.4})", link.ack_every, ACK_OVERHEAD * 100.0, link.ll_beats(), link.ack_every, link.packet_beats(), genz::ack_efficiency(&link))),
        ("retry_packets", format!("{slots}: the acknowledgement loop at {} m ({} cycles one way) in {}-byte packets, plus the {} packets an ACK waits for and the one in progress", req.cable_m, link.delay_cycles(), req.packet_bytes, link.ack_every)),
        ("retry_bytes", format!("{}: {slots} slots of max_packet_bytes = {}", slots * req.packet_bytes as u64, req.packet_bytes)),
        ("rx_credits", format!("{rx_credits}: credits return in the same LLR ACKs, so one VC at full rate needs as many credits as slots (at most {MAX_CREDITS})")),
        ("vcs", format!("{} (given)", req.vcs)),
    ];
    Ok(Plan { req: req.clone(), link, slots, rx_credits, reasons })
}

/// The longest cable whose acknowledgement loop fits the credits a VC carries.
fn longest_cable(link: &Inputs) -> f64 {
    let budget_beats = (MAX_CREDITS - link.ack_every as u64 - 1) * link.packet_beats() - link.ll_beats();
    (budget_beats / 2) as f64 * link.cycle_ns() / super::NS_PER_M
}

impl Plan {
    /// A design file with one `genz_llr` block (the other fields at their defaults).
    pub fn design_toml(&self, command: &str) -> String {
        let l = &self.link;
        format!(
            "# Planned by `{command}`:\n\
             # predicted goodput {:.4} of the line ({:.2} Gb/s) at BER {:e}, recovery {} cycles,\n\
             # {} retry slots for the {}-cycle one-way delay.\n\
             [design]\nname = \"genz_plan\"\nclock_mhz = {}\n\n\
             [[blocks]]\nkind = \"genz_llr\"\nname = \"genz_llr\"\ndata_bytes = {}\nmax_packet_bytes = {}\nvcs = {}\nrx_credits = {}\nretry_bytes = {}\nretry_packets = {}\nui_per_cycle = {}\nack_every = {}\n",
            genz::goodput(l), genz::goodput(l) * l.line_gbps, l.ber, genz::recovery_cycles(l), self.slots, l.delay_cycles(),
            clock_text(1e3 / l.cycle_ns()), l.data_bytes, l.packet_bytes, self.req.vcs, self.rx_credits, self.slots * l.packet_bytes as u64, self.slots, l.ui_per_cycle(), l.ack_every
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> Requirements {
        Requirements { line_gbps: 64.0, lanes: 1, cable_m: 10.0, ber: 1e-7, packet_bytes: 256, vcs: 2, max_clock_mhz: 1000.0, min_goodput: 0.9 }
    }

    #[test]
    fn a_64_gbps_link_gets_8_byte_beats_at_1_ghz_and_slots_for_its_loop() {
        let p = plan_genz(&req()).unwrap();
        assert_eq!(p.link.data_bytes, 8);
        assert_eq!(p.link.ui_per_cycle(), 64);
        // 2 LL beats against 32-beat packets: 7 packets per ACK keep the overhead within 1 %.
        assert_eq!(p.link.ack_every, 7);
        assert_eq!(p.slots, genz::slots_for_full_rate(&p.link));
        assert!(p.design_toml("x").contains("retry_packets = 12\n"), "{}", p.design_toml("x"));
    }

    #[test]
    fn impossible_requirements_are_refused_with_the_figure() {
        let e = plan_genz(&Requirements { cable_m: 500.0, packet_bytes: 64, ..req() }).unwrap_err();
        assert_eq!(e.option, "cable-m");
        assert!(e.problem.contains("credits"), "{e}");
        let e = plan_genz(&Requirements { ber: 1e-4, ..req() }).unwrap_err();
        assert_eq!(e.option, "ber", "{e}");
        let e = plan_genz(&Requirements { ber: 1e-6, cable_m: 100.0, ..req() }).unwrap_err();
        assert_eq!(e.option, "min-goodput", "{e}");
        let e = plan_genz(&Requirements { line_gbps: 400.0, ..req() }).unwrap_err();
        assert_eq!(e.option, "line-gbps", "{e}");
    }
}
