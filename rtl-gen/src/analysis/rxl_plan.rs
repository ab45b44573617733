//! `rtl-gen plan rxl`: `rxl_endpoint` parameters for a link's rate, cable, switching levels and
//! BER: the replay buffer that covers the go-back-N retry loop, and timeouts above it; the
//! predicted figures are [`super::rxl`]'s for the planned link (the retry time of Eq. 11–14 is the
//! planned loop, FER_UC comes from the code).

use super::rxl::{self, Inputs};
use super::{check_range, clock_text, Figure, InputError};
use crate::blocks::rxl_endpoint::LOOP_OVERHEAD_CYCLES;
use crate::blocks::rxl_switch::LATENCY_CYCLES;

/// Flit bits (256-byte CXL 3 / PCIe 6.0 flit).
pub const FLIT_BITS: u64 = 2048;
/// The most flits the replay buffer holds (10-bit sequence numbers).
pub const MAX_REPLAY_DEPTH: u64 = 1023;
/// Flits per piggybacked ACK: the paper's p_coalescing of 0.1 (Eq. 7). RXL piggybacks ACKs on
/// payload flits, so the value costs no bandwidth; it only sets how long a flit waits for its
/// ACK.
pub const ACK_EVERY: u64 = 10;
/// Cycles after which fewer delivered flits are acknowledged anyway (the block's default).
pub const ACK_TIMEOUT: u64 = 64;
/// The block's timer fields are 16 bits.
pub const MAX_TIMEOUT: u64 = 65_535;

/// The requirements.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirements {
    /// Line rate of one direction, Gb/s (×16 at 64 GT/s: 1,024).
    pub line_gbps: f64,
    /// Length of each link's cable, m.
    pub cable_m: f64,
    /// Switches between the endpoints.
    pub switch_levels: u32,
    pub ber: f64,
}

/// The chosen parameters, the reasons and the inputs of the predicted figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub req: Requirements,
    /// One-way delay of each link, flits.
    pub link_delay: u64,
    /// Retry loop: a flit's replay after its NACK, flits.
    pub retry_loop: u64,
    pub replay_depth: u64,
    pub nack_timeout: u64,
    pub replay_timeout: u64,
    pub reasons: Vec<(&'static str, String)>,
    /// The link as `rtl-gen analyze rxl` sees it.
    pub link: Inputs,
}

impl Requirements {
    pub fn validate(&self) -> Result<(), InputError> {
        check_range("line-gbps", self.line_gbps, 1.0, 16_000.0)?;
        check_range("cable-m", self.cable_m, 0.0, 1_000.0)?;
        check_range("switch-levels", self.switch_levels as f64, 0.0, 8.0)?;
        check_range("ber", self.ber, 0.0, 1e-3)
    }

    /// Flit time, ns: the endpoint takes one flit per cycle.
    pub fn flit_ns(&self) -> f64 {
        FLIT_BITS as f64 / self.line_gbps
    }
}

/// The replay buffer and timeouts for `req`; refuses a loop the 10-bit sequence space or the
/// 16-bit timers cannot cover.
pub fn plan_rxl(req: &Requirements) -> Result<Plan, InputError> {
    req.validate()?;
    let flit_ns = req.flit_ns();
    let link_delay = super::cable_delay_cycles(req.cable_m, flit_ns);
    let links = req.switch_levels as u64 + 1;
    let one_way = links * link_delay + req.switch_levels as u64 * LATENCY_CYCLES as u64;
    let retry_loop = LOOP_OVERHEAD_CYCLES as u64 + 2 * one_way;
    // A flit waits for the loop and for the ACK batch it belongs to.
    let replay_depth = retry_loop + ACK_EVERY + 1;
    if replay_depth > MAX_REPLAY_DEPTH {
        let per_link = (MAX_REPLAY_DEPTH - ACK_EVERY - 1 - LOOP_OVERHEAD_CYCLES as u64) / 2;
        let longest = ((per_link.saturating_sub(req.switch_levels as u64 * LATENCY_CYCLES as u64)) / links) as f64 * flit_ns / super::NS_PER_M;
        return Err(InputError { option: "cable-m", problem: format!("= {} over {links} link(s) makes a {retry_loop}-flit retry loop; with the ACK batch the replay buffer needs {replay_depth} flits, more than the {MAX_REPLAY_DEPTH} 10-bit sequence numbers allow; allowed at most {longest:.1} m per link at {} Gb/s", req.cable_m, req.line_gbps) });
    }
    let nack_timeout = 2 * retry_loop;
    let replay_timeout = 2 * (retry_loop + ACK_TIMEOUT);
    if replay_timeout > MAX_TIMEOUT {
        return Err(InputError { option: "cable-m", problem: format!("= {} needs a {replay_timeout}-cycle replay timeout, above the 16-bit field's {MAX_TIMEOUT}", req.cable_m) });
    }
    let link = Inputs {
        ber: req.ber,
        flit_bits: FLIT_BITS,
        fer_uc: None,
        crc_bits: 64,
        flits_per_s: 1e9 / flit_ns,
        p_coalescing: 1.0 / ACK_EVERY as f64,
        flit_ns,
        retry_ns: retry_loop as f64 * flit_ns,
        max_levels: req.switch_levels,
    };
    let reasons = vec![
        ("mode", "rxl: the sequence number folded into the CRC keeps ordering failures at the CRC's escape rate at every switching level (Eq. 10)".to_string()),
        ("replay_depth", format!("{replay_depth}: the {retry_loop}-flit retry loop ({LOOP_OVERHEAD_CYCLES} endpoint cycles + 2 x ({links} link(s) x {link_delay} flits + {} switch(es) x {LATENCY_CYCLES})) plus the {ACK_EVERY} flits an ACK batch waits for and the one in flight", req.switch_levels)),
        ("ack_every", format!("{ACK_EVERY}: the paper's p_coalescing = 0.1; ACKs ride on payload flits, so this only sets how long a flit waits for its ACK")),
        ("nack_timeout", format!("{nack_timeout}: twice the retry loop, so a NACK is repeated only once its replay is overdue")),
        ("replay_timeout", format!("{replay_timeout}: twice the loop plus the ACK timeout ({ACK_TIMEOUT}), so a lost ACK, not a slow one, triggers the replay")),
    ];
    Ok(Plan { req: req.clone(), link_delay, retry_loop, replay_depth, nack_timeout, replay_timeout, reasons, link })
}

impl Plan {
    /// The figures of `rtl-gen analyze rxl` for the planned link.
    pub fn figures(&self) -> Result<Vec<Figure>, InputError> {
        rxl::analyze(&self.link)
    }

    /// A design file with one `rxl_endpoint` block.
    pub fn design_toml(&self, command: &str) -> String {
        format!(
            "# Planned by `{command}`:\n# retry loop {} flits ({:.1} ns), {} switch level(s).\n\
             [design]\nname = \"rxl_plan\"\nclock_mhz = {}\n\n[[blocks]]\nkind = \"rxl_endpoint\"\nname = \"rxl_ep\"\nmode = \"rxl\"\nreplay_depth = {}\nack_every = {ACK_EVERY}\nack_timeout = {ACK_TIMEOUT}\nnack_timeout = {}\nreplay_timeout = {}\n",
            self.retry_loop, self.link.retry_ns, self.req.switch_levels, clock_text(1e3 / self.link.flit_ns), self.replay_depth, self.nack_timeout, self.replay_timeout
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_x16_link_through_one_switch_over_2_m_cables() {
        let p = plan_rxl(&Requirements { line_gbps: 1024.0, cable_m: 2.0, switch_levels: 1, ber: 1e-6 }).unwrap();
        // 2 ns flits, 10 ns per cable = 5 flits; one way 2 x 5 + 7 (the switch) = 17; loop 18 (the
        // endpoints' overhead) + 34 = 52.
        assert_eq!(LATENCY_CYCLES, 7, "the figures below assume a 7-cycle switch");
        assert_eq!(LOOP_OVERHEAD_CYCLES, 18, "the figures below assume the endpoints' 18 cycles");
        assert_eq!((p.link_delay, p.retry_loop, p.replay_depth), (5, 52, 63));
        assert_eq!((p.nack_timeout, p.replay_timeout), (104, 232));
        assert!(p.design_toml("x").contains("replay_depth = 63\n") && p.design_toml("x").contains("clock_mhz = 500\n"));
        let f = p.figures().unwrap();
        assert!(f.iter().any(|f| f.name.contains("FIT") && f.value.is_finite()));
    }

    #[test]
    fn a_loop_beyond_the_sequence_space_is_refused() {
        let e = plan_rxl(&Requirements { line_gbps: 1024.0, cable_m: 100.0, switch_levels: 2, ber: 1e-6 }).unwrap_err();
        assert_eq!(e.option, "cable-m");
        assert!(e.problem.contains("at most"), "{e}");
    }
}
