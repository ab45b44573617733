//! `rtl-gen plan crc` and `rtl-gen plan rs`: the narrowest well-known CRC that keeps undetected
//! errors rarer than a required mean time, and the lighter Ethernet Reed-Solomon code (KR4 before
//! KP4) that brings a pre-FEC BER under a post-FEC target, each with the figures of
//! [`super::crc`] and [`super::rs`] and a design file `rtl-gen generate` accepts.

use super::crc::weights;
use super::rs::{post_fec, Code, Errors};
use super::{check_range, InputError, SECONDS_PER_YEAR};
use crate::math::lfsr::CrcRegister;

/// A catalogued CRC: its name and the block fields that define it (Rocksoft model).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedCrc {
    pub name: &'static str,
    pub width: u32,
    pub poly: u64,
    pub init: u64,
    pub reflect: bool,
    pub xorout: u64,
}

/// The CRCs `plan crc` chooses from, narrowest first; at one width the plan takes the one with
/// fewer undetected errors at the message length.
pub const CATALOGUE: [NamedCrc; 6] = [
    NamedCrc { name: "CRC-8/SMBUS", width: 8, poly: 0x07, init: 0, reflect: false, xorout: 0 },
    NamedCrc { name: "CRC-16/IBM-3740", width: 16, poly: 0x1021, init: 0xFFFF, reflect: false, xorout: 0 },
    NamedCrc { name: "CRC-16/ARC", width: 16, poly: 0x8005, init: 0, reflect: true, xorout: 0 },
    NamedCrc { name: "CRC-32/ISO-HDLC", width: 32, poly: 0x04C1_1DB7, init: 0xFFFF_FFFF, reflect: true, xorout: 0xFFFF_FFFF },
    NamedCrc { name: "CRC-32/ISCSI", width: 32, poly: 0x1EDC_6F41, init: 0xFFFF_FFFF, reflect: true, xorout: 0xFFFF_FFFF },
    NamedCrc { name: "CRC-64/XZ", width: 64, poly: 0x42F0_E1EB_A9EA_3693, init: u64::MAX, reflect: true, xorout: u64::MAX },
];

/// What `plan crc` needs.
#[derive(Debug, Clone, PartialEq)]
pub struct CrcRequirements {
    /// Message bits per check (a multiple of 8: the `crc` block takes the message in one cycle).
    pub data_bits: u64,
    pub ber: f64,
    pub messages_per_s: f64,
    /// Required mean time between undetected messages, years.
    pub mttf_years: f64,
}

/// One catalogued CRC's figures at the requirements.
#[derive(Debug, Clone, PartialEq)]
pub struct CrcCandidate {
    pub crc: NamedCrc,
    /// Hamming distance at the codeword length, if a weight up to the counted ones escapes.
    pub distance: Option<u64>,
    /// P_ud per message: exact, or the low weights counted and heavier patterns escaping one
    /// in 2^r (the estimate `analyze crc` prints).
    pub p_undetected: f64,
    /// P_ud if every heavier pattern escaped (equal to `p_undetected` when exact).
    pub p_bound: f64,
    pub mttf_years: f64,
}

/// The chosen CRC, why, and every candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct CrcPlan {
    pub req: CrcRequirements,
    pub chosen: CrcCandidate,
    pub candidates: Vec<CrcCandidate>,
    pub reason: String,
}

impl CrcRequirements {
    pub fn validate(&self) -> Result<(), InputError> {
        check_range("data-bits", self.data_bits as f64, 8.0, 4096.0)?;
        if !self.data_bits.is_multiple_of(8) {
            return Err(InputError { option: "data-bits", problem: format!("= {} is not whole bytes; allowed multiples of 8 in 8..=4096", self.data_bits) });
        }
        check_range("ber", self.ber, 1e-30, 0.1)?;
        check_range("messages-per-s", self.messages_per_s, 1.0, 1e13)?;
        check_range("mttf-years", self.mttf_years, 1e-6, 1e30)
    }
}

fn crc_candidate(req: &CrcRequirements, crc: NamedCrc) -> CrcCandidate {
    let w = weights(CrcRegister::new(crc.width, crc.poly), req.data_bits + crc.width as u64).expect("data-bits within the counted lengths");
    let (p, bound) = w.p_undetected(req.ber);
    let mttf = if p > 0.0 { 1.0 / (p * req.messages_per_s * SECONDS_PER_YEAR) } else { f64::INFINITY };
    CrcCandidate { crc, distance: w.distance(), p_undetected: p, p_bound: bound, mttf_years: mttf }
}

/// The narrowest catalogued CRC whose undetected messages are at least `mttf_years` apart.
pub fn plan_crc(req: &CrcRequirements) -> Result<CrcPlan, InputError> {
    req.validate()?;
    let candidates: Vec<CrcCandidate> = CATALOGUE.iter().map(|&c| crc_candidate(req, c)).collect();
    let meets: Vec<&CrcCandidate> = candidates.iter().filter(|c| c.mttf_years >= req.mttf_years).collect();
    let Some(width) = meets.iter().map(|c| c.crc.width).min() else {
        let best = candidates.iter().max_by(|a, b| a.mttf_years.total_cmp(&b.mttf_years)).unwrap();
        return Err(InputError { option: "mttf-years", problem: format!("= {:e} is out of reach at BER {:e}: the best catalogued CRC, {}, gives {:.3e} years between undetected messages; allowed at most that, a better BER or an FEC below the CRC", req.mttf_years, req.ber, best.crc.name, best.mttf_years) });
    };
    let chosen = meets.iter().filter(|c| c.crc.width == width).min_by(|a, b| a.p_undetected.total_cmp(&b.p_undetected)).copied().unwrap().clone();
    let reason = format!(
        "{}: the narrowest catalogued CRC with at least {:e} years between undetected messages ({:.3e} years: P_ud {:.3e} per {}-bit message at BER {:e}, {:e} messages/s; {:.3e} if every pattern heavier than those counted escaped); narrower ones give {}",
        chosen.crc.name, req.mttf_years, chosen.mttf_years, chosen.p_undetected, req.data_bits, req.ber, req.messages_per_s, chosen.p_bound,
        candidates.iter().filter(|c| c.crc.width < width).map(|c| format!("{} {:.3e} years", c.crc.name, c.mttf_years)).collect::<Vec<_>>().join(", ")
    );
    Ok(CrcPlan { req: req.clone(), chosen, candidates, reason })
}

impl CrcPlan {
    /// A design file with one `crc` block over the whole message per cycle.
    pub fn design_toml(&self, command: &str) -> String {
        let c = &self.chosen.crc;
        let hex = |v: u64| format!("{:#0w$x}", v, w = c.width.div_ceil(4) as usize + 2);
        format!(
            "# Planned by `{command}`:\n# {}: P_ud {:.3e} per message, {:.3e} years between undetected messages.\n\
             [design]\nname = \"crc_plan\"\n\n[[blocks]]\nkind = \"crc\"\nname = \"crc\"\nwidth = {}\npoly = {}\ninit = {}\nrefin = {}\nrefout = {}\nxorout = {}\ndata_bits = {}\n",
            c.name, self.chosen.p_undetected, self.chosen.mttf_years, c.width, hex(c.poly), hex(c.init), c.reflect, c.reflect, hex(c.xorout), self.req.data_bits
        )
    }
}

/// What `plan rs` needs.
#[derive(Debug, Clone, PartialEq)]
pub struct RsRequirements {
    /// Pre-FEC bit error rate.
    pub ber: f64,
    /// Required post-FEC bit error rate.
    pub target_ber: f64,
    /// DFE error propagation (`None`: independent errors).
    pub dfe_tap: Option<f64>,
    /// Line rate carried by the decoder, Gb/s, and its clock, MHz: set the symbols per clock.
    pub line_gbps: f64,
    pub clock_mhz: f64,
}

/// The chosen code and its streaming width.
#[derive(Debug, Clone, PartialEq)]
pub struct RsPlan {
    pub req: RsRequirements,
    pub code: Code,
    pub check_symbols: u64,
    pub symbols_per_cycle: u64,
    /// Post-FEC BER of every candidate, lighter first.
    pub candidates: Vec<(String, f64)>,
    pub reasons: Vec<(&'static str, String)>,
}

impl RsRequirements {
    pub fn validate(&self) -> Result<(), InputError> {
        check_range("ber", self.ber, 0.0, 0.1)?;
        check_range("target-ber", self.target_ber, 1e-30, 1e-3)?;
        if let Some(a) = self.dfe_tap {
            check_range("dfe-tap", a, 0.0, 0.99)?;
        }
        check_range("line-gbps", self.line_gbps, 0.1, 3_200.0)?;
        check_range("clock-mhz", self.clock_mhz, 1.0, 5_000.0)
    }
}

/// KR4 when it meets the target, else KP4; the fewest symbols per clock that carry the line
/// and divide the codeword (no padding).
pub fn plan_rs(req: &RsRequirements) -> Result<RsPlan, InputError> {
    req.validate()?;
    let errors = req.dfe_tap.map_or(Errors::Random, Errors::Dfe);
    let codes = [Code::kr4(), Code::kp4()];
    let candidates: Vec<(String, f64)> = codes.iter().map(|c| (c.name.clone(), post_fec(c, req.ber, errors).ber_out)).collect();
    let Some(k) = candidates.iter().position(|(_, b)| *b <= req.target_ber) else {
        return Err(InputError { option: "target-ber", problem: format!("= {:e} is out of reach at pre-FEC BER {:e}: KP4 leaves {:.3e}; allowed at least that, or a better channel", req.target_ber, req.ber, candidates[1].1) });
    };
    let code = codes[k].clone();
    let n = code.symbols();
    let need = req.line_gbps * 1e3 / (req.clock_mhz * code.symbol_bits as f64);
    let Some(p) = (1..=n).find(|&p| n.is_multiple_of(p) && p as f64 >= need) else {
        return Err(InputError { option: "line-gbps", problem: format!("= {} needs {need:.1} symbols per clock at {} MHz, more than the codeword's {n}; allowed a faster --clock-mhz", req.line_gbps, req.clock_mhz) });
    };
    let reasons = vec![
        ("code", format!("{}: {} (post-FEC BER {:.3e} against the target {:e}; {})", code.name, if k == 0 { "the lighter code meets the target" } else { "KR4 misses the target" }, candidates[k].1, req.target_ber, candidates.iter().map(|(c, b)| format!("{c} {b:.3e}")).collect::<Vec<_>>().join(", "))),
        ("symbols_per_cycle", format!("{p}: the fewest symbols per clock that divide the {n}-symbol codeword and carry {} Gb/s at {} MHz ({:.1} Gb/s)", req.line_gbps, req.clock_mhz, p as f64 * code.symbol_bits as f64 * req.clock_mhz / 1e3)),
    ];
    Ok(RsPlan { req: req.clone(), check_symbols: 2 * code.t, code, symbols_per_cycle: p, candidates, reasons })
}

impl RsPlan {
    /// A design file with one streaming `rs_fec` block.
    pub fn design_toml(&self, command: &str) -> String {
        format!(
            "# Planned by `{command}`:\n# {}: post-FEC BER {:.3e} at pre-FEC BER {:e}.\n\
             [design]\nname = \"rs_plan\"\nclock_mhz = {}\n\n[[blocks]]\nkind = \"rs_fec\"\nname = \"fec\"\nsymbol_bits = {}\nfield_poly = 0x409\ncheck_symbols = {}\nmsg_symbols = {}\nsymbols_per_cycle = {}\n",
            self.code.name, self.candidates.iter().find(|(c, _)| *c == self.code.name).map_or(0.0, |c| c.1), self.req.ber,
            self.req.clock_mhz, self.code.symbol_bits, self.check_symbols, self.code.msg_symbols, self.symbols_per_cycle
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flit_at_ber_1e_6_for_1e8_years_needs_32_bits() {
        let req = CrcRequirements { data_bits: 2048, ber: 1e-6, messages_per_s: 5e8, mttf_years: 1e8 };
        let p = plan_crc(&req).unwrap();
        assert_eq!(p.chosen.crc.width, 32, "{}", p.reason);
        assert!(p.chosen.mttf_years >= 1e8);
        // Every narrower candidate misses.
        assert!(p.candidates.iter().filter(|c| c.crc.width < 32).all(|c| c.mttf_years < 1e8));
        let toml = p.design_toml("x");
        assert!(toml.contains("width = 32\n") && toml.contains("data_bits = 2048\n"), "{toml}");
    }

    #[test]
    fn crc_requirements_out_of_reach_are_refused() {
        let e = plan_crc(&CrcRequirements { data_bits: 2048, ber: 1e-2, messages_per_s: 5e8, mttf_years: 1e30 }).unwrap_err();
        assert_eq!(e.option, "mttf-years", "{e}");
        assert_eq!(plan_crc(&CrcRequirements { data_bits: 100, ber: 1e-12, messages_per_s: 1.0, mttf_years: 1.0 }).unwrap_err().option, "data-bits");
    }

    #[test]
    fn kr4_when_it_is_enough_kp4_when_not() {
        let req = |ber| RsRequirements { ber, target_ber: 1e-15, dfe_tap: None, line_gbps: 100.0, clock_mhz: 312.5 };
        let light = plan_rs(&req(1e-6)).unwrap();
        assert_eq!(light.code.name, Code::kr4().name);
        // 100 Gb/s at 312.5 MHz: 32 symbols; 33 is the first divisor of 528 at or above it.
        assert_eq!(light.symbols_per_cycle, 33);
        let heavy = plan_rs(&req(2e-4)).unwrap();
        assert_eq!(heavy.check_symbols, 30);
        assert_eq!(heavy.symbols_per_cycle, 32);
        assert_eq!(plan_rs(&req(1e-2)).unwrap_err().option, "target-ber");
    }
}
