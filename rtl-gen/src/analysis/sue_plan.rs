//! `rtl-gen plan sue`: `sue_endpoint` transport parameters for a port's requirements, each with
//! its reason, the predicted figures of [`super::sue`] and a design file `rtl-gen generate`
//! accepts.

use super::sue::{self, Inputs, MAX_STORAGE_BYTES, MAX_WINDOW};
use super::{check_range, InputError};
use crate::blocks::protocol::sue::TRANSPORT_DATA_BYTES;

/// The transport's timer ranges (`sue_transport` fields).
pub const RTO_CYCLES: (u64, u64) = (64, 16_777_215);
pub const NACK_TIMEOUT_CYCLES: (u64, u64) = (16, 65_535);
/// Margin of the retransmission timeout over the shortest safe one: a timeout is the slow
/// path, a spurious one resends a whole window.
pub const RTO_MARGIN: f64 = 2.0;

/// The requirements.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirements {
    pub port_gbps: f64,
    pub rtt_ns: f64,
    /// Packing limit, bytes per PDU (`max_pack_bytes`).
    pub max_pack_bytes: u32,
    pub cmd_bytes: u32,
    pub num_xpu: u32,
    pub num_vc: u32,
    pub drop: f64,
    pub ber: f64,
    /// Clock of the endpoint, MHz.
    pub clock_mhz: f64,
}

/// The chosen parameters, the reasons and the predicted figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub req: Requirements,
    /// The port as the chosen transport sees it.
    pub link: Inputs,
    pub data_bytes: u64,
    pub window: u64,
    pub rto_cycles: u64,
    pub nack_timeout_cycles: u64,
    pub reasons: Vec<(&'static str, String)>,
}

impl Requirements {
    pub fn validate(&self) -> Result<(), InputError> {
        check_range("port-gbps", self.port_gbps, 0.1, 3_200.0)?;
        check_range("rtt-ns", self.rtt_ns, 1.0, 1e7)?;
        check_range("max-pack-bytes", self.max_pack_bytes as f64, 8.0, 4096.0)?;
        check_range("cmd-bytes", self.cmd_bytes as f64, 8.0, self.max_pack_bytes as f64)?;
        if !self.max_pack_bytes.is_multiple_of(self.cmd_bytes) {
            return Err(InputError { option: "max-pack-bytes", problem: format!("= {} is not whole commands of --cmd-bytes {}; allowed multiples of {}", self.max_pack_bytes, self.cmd_bytes, self.cmd_bytes) });
        }
        check_range("num-xpu", self.num_xpu as f64, 2.0, 1024.0)?;
        check_range("num-vc", self.num_vc as f64, 1.0, 4.0)?;
        check_range("drop", self.drop, 0.0, 0.5)?;
        check_range("ber", self.ber, 0.0, 1e-2)?;
        check_range("clock-mhz", self.clock_mhz, 1.0, 5_000.0)
    }
}

/// Chooses the beat, the window, the timeouts; refuses with the figure that makes a
/// requirement impossible.
pub fn plan_sue(req: &Requirements) -> Result<Plan, InputError> {
    req.validate()?;
    let carries = |beat: u64| beat as f64 * 8.0 * req.clock_mhz / 1e3;
    // The command bus is faster than the port (seed §4.4), and a command is whole beats.
    let Some(&data_bytes) = TRANSPORT_DATA_BYTES.iter().find(|&&b| carries(b) >= req.port_gbps && (req.cmd_bytes as u64).is_multiple_of(b)) else {
        let widest = TRANSPORT_DATA_BYTES[TRANSPORT_DATA_BYTES.len() - 1];
        return Err(InputError { option: "port-gbps", problem: format!("= {} is more than the widest beat carries at {} MHz ({widest} bytes: {:.1} Gb/s) with commands of {} bytes; allowed at most {:.1}, or a faster --clock-mhz", req.port_gbps, req.clock_mhz, carries(widest), req.cmd_bytes, carries(widest)) });
    };
    let mut link = Inputs { port_gbps: req.port_gbps, rtt_ns: req.rtt_ns, payload_bytes: req.max_pack_bytes, ack_coalesce: 1, drop: req.drop, ber: req.ber, window: None, psn_spaces: req.num_xpu as u64 };
    link.validate()?;
    let full = sue::window_for_full_rate(&link);
    // The largest window within the full-rate need, the field's range and the storage limit.
    let fits = |w: u64| sue::storage_bytes(&link, w) <= MAX_STORAGE_BYTES;
    let Some(window) = (1..=full.min(MAX_WINDOW)).rev().find(|&w| fits(w)) else {
        return Err(InputError { option: "num-xpu", problem: format!("= {}: even a window of 1 needs {} bytes of retransmission storage (num_xpu x 2 slots x {} bytes), above the transport's 16 MiB; allowed fewer XPUs or a smaller --max-pack-bytes", req.num_xpu, sue::storage_bytes(&link, 1), req.max_pack_bytes) });
    };
    link.window = Some(window);
    let cycle_ns = 1e3 / req.clock_mhz;
    let rto_cycles = ((RTO_MARGIN * sue::min_rto_ns(&link) / cycle_ns).ceil() as u64).max(RTO_CYCLES.0);
    if rto_cycles > RTO_CYCLES.1 {
        return Err(InputError { option: "rtt-ns", problem: format!("= {} needs a retransmission timeout of {rto_cycles} cycles at {} MHz, above the transport's {}; allowed a round trip below {:.0} ns", req.rtt_ns, req.clock_mhz, RTO_CYCLES.1, RTO_CYCLES.1 as f64 * cycle_ns / RTO_MARGIN) });
    }
    let nack_timeout_cycles = ((req.rtt_ns / cycle_ns).ceil() as u64).clamp(NACK_TIMEOUT_CYCLES.0, NACK_TIMEOUT_CYCLES.1);
    let share = sue::window_share(&link);
    let window_why = if window == full {
        format!("{window}: one destination at the full port rate needs the round trip's {} PDUs of {} wire bytes plus the one an ACK waits for", sue::pdus_per_rtt(&link), req.max_pack_bytes + sue::PDU_OVERHEAD_BYTES)
    } else {
        format!("{window}: the largest window whose storage ({} PSN spaces x {} slots x {} bytes = {} bytes) fits 16 MiB; full rate to one destination needs {full}, so one destination reaches {:.1} % of the port (several together fill it)", req.num_xpu, sue::slots(window), req.max_pack_bytes, sue::storage_bytes(&link, window), share * 100.0)
    };
    let reasons = vec![
        ("data_bytes", format!("{data_bytes}: the narrowest beat that carries {} Gb/s at {} MHz ({:.1} Gb/s) and divides a command", req.port_gbps, req.clock_mhz, carries(data_bytes))),
        ("window", window_why),
        ("rto_cycles", format!("{rto_cycles}: {RTO_MARGIN} x the shortest safe timeout ({:.0} ns: round trip + one PDU)", sue::min_rto_ns(&link))),
        ("nack_timeout_cycles", format!("{nack_timeout_cycles}: one round trip, so a lost NACK is repeated once its answer is overdue")),
        ("ack_coalesce", "1: an ACK per PDU keeps the window's need at one round trip + 1".into()),
        ("max_pack_bytes / cmd_bytes / num_xpu / num_vc", format!("{} / {} / {} / {} (given)", req.max_pack_bytes, req.cmd_bytes, req.num_xpu, req.num_vc)),
    ];
    Ok(Plan { req: req.clone(), link, data_bytes, window, rto_cycles, nack_timeout_cycles, reasons })
}

impl Plan {
    /// A design file with one `sue_endpoint` block (the other fields at their defaults).
    pub fn design_toml(&self, command: &str) -> String {
        let r = &self.req;
        format!(
            "# Planned by `{command}`:\n\
             # predicted goodput {:.4} of the port to one destination ({:.2} Gb/s), PDU loss {:.3e} per path,\n\
             # retransmission storage {} bytes.\n\
             [design]\nname = \"sue_plan\"\nclock_mhz = {}\n\n\
             [[blocks]]\nkind = \"sue_endpoint\"\nname = \"sue_ep\"\ndata_bytes = {}\ncmd_bytes = {}\nnum_xpu = {}\nnum_vc = {}\nmax_pack_bytes = {}\nwindow = {}\nrto_cycles = {}\nack_coalesce = 1\nnack_timeout_cycles = {}\n",
            sue::goodput(&self.link), sue::goodput(&self.link) * r.port_gbps, sue::pdu_loss(&self.link), sue::storage_bytes(&self.link, self.window),
            r.clock_mhz, self.data_bytes, r.cmd_bytes, r.num_xpu, r.num_vc, r.max_pack_bytes, self.window, self.rto_cycles, self.nack_timeout_cycles
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> Requirements {
        Requirements { port_gbps: 200.0, rtt_ns: 2000.0, max_pack_bytes: 2048, cmd_bytes: 64, num_xpu: 64, num_vc: 2, drop: 1e-6, ber: 0.0, clock_mhz: 500.0 }
    }

    #[test]
    fn the_seeds_port_at_64_xpus_gets_the_full_window() {
        let p = plan_sue(&req()).unwrap();
        // 200 Gb/s at 500 MHz: 50 bytes per cycle, so 64-byte beats.
        assert_eq!(p.data_bytes, 64);
        assert_eq!(p.window, 25);
        // 2 x (2,000 + 85.04) ns at 2 ns per cycle.
        assert_eq!(p.rto_cycles, 2086);
        assert_eq!(p.nack_timeout_cycles, 1000);
        assert!(p.design_toml("x").contains("window = 25\n"));
    }

    #[test]
    fn at_1024_xpus_the_storage_limit_sets_the_window() {
        let p = plan_sue(&Requirements { num_xpu: 1024, ..req() }).unwrap();
        // 1,024 x 8 slots x 2 KiB = 16 MiB: window 8 (slots are powers of two).
        assert_eq!(p.window, 8);
        assert!(p.reasons.iter().any(|(f, why)| *f == "window" && why.contains("32.0 %")), "{:?}", p.reasons);
    }

    #[test]
    fn impossible_requirements_are_refused_with_the_figure() {
        assert_eq!(plan_sue(&Requirements { port_gbps: 1600.0, ..req() }).unwrap_err().option, "port-gbps");
        assert_eq!(plan_sue(&Requirements { rtt_ns: 9e6, clock_mhz: 2000.0, ..req() }).unwrap_err().option, "rtt-ns");
        assert_eq!(plan_sue(&Requirements { max_pack_bytes: 100, ..req() }).unwrap_err().option, "max-pack-bytes");
    }
}
