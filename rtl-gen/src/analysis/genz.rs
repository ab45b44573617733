//! Gen-Z link-level reliability sizing and goodput (the Gen-Z Consortium's "Gen-Z Link-level
//! Reliability" slides; the seed gives the protocol, not the arithmetic, so the sources below
//! name the slide a rule comes from and the `genz_llr` block's own choices).
//!
//! One direction of a link carries beats of `data_bytes` at one beat per cycle. Three loops set
//! the sizes:
//! * the **acknowledgement loop**: a retry-buffer slot is held from the packet's first beat
//!   until an LLR ACK naming it returns: the packet, the one-way delay, up to `ack_every`
//!   packets delivered before the ACK is due, the ACK itself and the way back. Full rate needs
//!   that many slots ([`slots_for_full_rate`]);
//! * the **credit loop**: credits return in the same LLR ACKs, so one VC at full rate needs as
//!   many receive credits as slots;
//! * the **recovery**: after an error the receiver sends Discard, the sender answers Clear
//!   Discard, the receiver Exit Discard, and the sender resends from the oldest unacknowledged
//!   packet (slide "LLR Error Recovery"): two round trips, plus four packet times (the
//!   corrupted packet, the packet in progress at the receiver when its Discard is queued, the
//!   packet the sender finishes before it stops, the resent packet) and two link-local packets
//!   ([`recovery_cycles`]). The RTL campaign measures 237 / 2,034 cycles for 64-byte packets at
//!   10 / 100 m against 236 / 2,036 here, 323 / 2,111 for 256-byte packets against 332 / 2,132.
//!
//! Goodput: the ACK overhead (one link-local packet per `ack_every` packets) and one recovery's
//! line time lost per error event, events arriving at the rate a beat is hit:
//! g = g₀ / (1 + ε · T_rec).

use super::prob::frame_error_rate;
use super::{check_range, Figure, InputError};

/// Bytes of a link-local packet (the block's LL format: opcode, TSEQ, RSEQ, credits, epoch,
/// echo, flags, LL CRC).
pub const LL_PACKET_BYTES: u32 = 16;
/// Packet times a recovery costs besides its two round trips (see the module doc).
pub const RECOVERY_PACKETS: u32 = 4;
/// Link-local packets a recovery puts on the sender's line (Clear Discard, and the Exit
/// Discard's turn on the receiver's line delays the resend by as much).
pub const RECOVERY_LL_PACKETS: u32 = 2;
/// The seed's Init and Discard period (slides "LLR Initialization", "LLR Error Recovery").
pub const SEED_INTERVAL_UI: u64 = 8192;
/// The seed's LLR timer period (slide "Additional LLR Requirements").
pub const SEED_LLRT_UI: u64 = 1 << 20;
/// The most unacknowledged EE packets (TSEQ/RSEQ are 16 bits; slide "Additional LLR
/// Requirements").
pub const MAX_UNACKNOWLEDGED: u64 = (1 << 16) - 1;

/// One direction of a Gen-Z link.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    /// Line rate of one direction over all lanes, Gb/s.
    pub line_gbps: f64,
    pub lanes: u32,
    pub cable_m: f64,
    /// Beat width of the block (4 or 8 bytes).
    pub data_bytes: u32,
    /// EE packet size (fixed-size traffic), a multiple of `data_bytes`.
    pub packet_bytes: u32,
    /// Packets delivered per LLR ACK.
    pub ack_every: u32,
    /// Bit error rate (independent errors, data and link-local marker alike).
    pub ber: f64,
}

impl Inputs {
    /// The project's measured case (`docs/results/genz.md`): 64 Gb/s of 8-byte beats (1 ns cycles),
    /// 64-byte packets, an ACK every 16, 100 m, BER 1e-6.
    pub fn measured_case() -> Inputs {
        Inputs { line_gbps: 64.0, lanes: 1, cable_m: 100.0, data_bytes: 8, packet_bytes: 64, ack_every: 16, ber: 1e-6 }
    }

    pub fn validate(&self) -> Result<(), InputError> {
        check_range("line-gbps", self.line_gbps, 0.1, 16_000.0)?;
        check_range("lanes", self.lanes as f64, 1.0, 64.0)?;
        check_range("cable-m", self.cable_m, 0.0, 10_000.0)?;
        if self.data_bytes != 4 && self.data_bytes != 8 {
            return Err(InputError { option: "data-bytes", problem: format!("= {} is not a beat of the block; allowed 4 or 8", self.data_bytes) });
        }
        if !(self.data_bytes * 8).is_multiple_of(self.lanes) {
            return Err(InputError { option: "lanes", problem: format!("= {} does not divide a {}-bit beat into whole UIs; allowed a divisor of {}", self.lanes, self.data_bytes * 8, self.data_bytes * 8) });
        }
        check_range("packet-bytes", self.packet_bytes as f64, self.data_bytes as f64, 4096.0)?;
        if !self.packet_bytes.is_multiple_of(self.data_bytes) {
            return Err(InputError { option: "packet-bytes", problem: format!("= {} is not whole beats; allowed multiples of {} in {}..=4096", self.packet_bytes, self.data_bytes, self.data_bytes) });
        }
        check_range("ack-every", self.ack_every as f64, 1.0, 255.0)?;
        check_range("ber", self.ber, 0.0, 1e-2)
    }

    /// Clock period: one beat per cycle.
    pub fn cycle_ns(&self) -> f64 {
        8.0 * self.data_bytes as f64 / self.line_gbps
    }
    /// One-way delay in cycles (rounded up, at least 1), as the campaign's channel.
    pub fn delay_cycles(&self) -> u64 {
        super::cable_delay_cycles(self.cable_m, self.cycle_ns())
    }
    pub fn packet_beats(&self) -> u64 {
        (self.packet_bytes / self.data_bytes) as u64
    }
    pub fn ll_beats(&self) -> u64 {
        (LL_PACKET_BYTES / self.data_bytes) as u64
    }
    /// UI per cycle (the block's `ui_per_cycle`): bits of a beat per lane.
    pub fn ui_per_cycle(&self) -> u32 {
        self.data_bytes * 8 / self.lanes
    }
}

/// Fraction of the line carrying EE packets with no errors: one LLR ACK per `ack_every`
/// packets.
pub fn ack_efficiency(i: &Inputs) -> f64 {
    let ee = (i.ack_every as u64 * i.packet_beats()) as f64;
    ee / (ee + i.ll_beats() as f64)
}

/// Retry-buffer slots (and credits per VC) that keep one direction at full rate: the
/// acknowledgement loop of the module doc, in packets, rounded up.
pub fn slots_for_full_rate(i: &Inputs) -> u64 {
    let loop_beats = 2 * i.delay_cycles() + i.ll_beats();
    loop_beats.div_ceil(i.packet_beats()) + i.ack_every as u64 + 1
}

/// Cycles from an error to the first resent packet delivered: 2 round trips, 4 packet times
/// and 2 link-local packets.
pub fn recovery_cycles(i: &Inputs) -> u64 {
    4 * i.delay_cycles() + RECOVERY_PACKETS as u64 * i.packet_beats() + RECOVERY_LL_PACKETS as u64 * i.ll_beats()
}

/// Probability that a beat is hit: its data bits and its link-local marker bit.
pub fn beat_error_rate(i: &Inputs) -> f64 {
    frame_error_rate(i.ber, 8 * i.data_bytes as u64 + 1)
}

/// Error events expected within one recovery (at 1 or more, recoveries chain without end).
pub fn errors_per_recovery(i: &Inputs) -> f64 {
    beat_error_rate(i) * recovery_cycles(i) as f64
}

/// Goodput of one direction as a fraction of the line: g₀ / (1 + ε · T_rec).
pub fn goodput(i: &Inputs) -> f64 {
    ack_efficiency(i) / (1.0 + errors_per_recovery(i))
}

/// Every figure of `rtl-gen analyze genz`.
pub fn analyze(i: &Inputs) -> Result<Vec<Figure>, InputError> {
    i.validate()?;
    let slots = slots_for_full_rate(i);
    let mut v = vec![
        Figure::new("clock (one beat per cycle)", 1e3 / i.cycle_ns(), "MHz", "line rate / beat"),
        Figure::new("one-way delay", i.delay_cycles() as f64, "cycles", "cable x 5 ns/m"),
        Figure::new("UI per cycle (ui_per_cycle)", i.ui_per_cycle() as f64, "UI", "beat bits / lanes"),
        Figure::new("Init and Discard period", (SEED_INTERVAL_UI / i.ui_per_cycle() as u64).max(1) as f64, "cycles", "slides: Init, Error Recovery (8192 UI)"),
        Figure::new("LLR timer period", (SEED_LLRT_UI / i.ui_per_cycle() as u64).max(1) as f64, "cycles", "slide: Additional LLR Requirements (2^20 UI)"),
        Figure::new("retry slots for full rate", slots as f64, "packets", "acknowledgement loop"),
        Figure::new("retry buffer for full rate", (slots * i.packet_bytes as u64) as f64, "bytes", "slots x packet"),
        Figure::new("credits per VC for full rate", slots as f64, "packets", "credit loop (= ACK loop)"),
        Figure::new("recovery time", recovery_cycles(i) as f64, "cycles", "slide: Error Recovery; 2 RTT + 4 packets + 2 LL"),
        Figure::new("recovery time", recovery_cycles(i) as f64 * i.cycle_ns(), "ns", "recovery x cycle"),
        Figure::new("ACK efficiency (BER 0)", ack_efficiency(i), "", "1 LL packet per ack_every"),
        Figure::new("beat error rate", beat_error_rate(i), "", "1 - (1 - BER)^(beat bits + marker)"),
        Figure::new("errors per recovery", errors_per_recovery(i), "", "beat error rate x recovery"),
        Figure::new("goodput", goodput(i), "of line", "g0 / (1 + errors per recovery)"),
        Figure::new("goodput", goodput(i) * i.line_gbps, "Gb/s", "goodput x line"),
    ];
    if slots > MAX_UNACKNOWLEDGED {
        v.push(Figure::new("slots above the protocol's limit", (slots - MAX_UNACKNOWLEDGED) as f64, "packets", "slide: Additional LLR Requirements (2^16 - 1)")
            .note("full rate is out of reach: larger packets or a shorter cable"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(packet_bytes: u32, cable_m: f64) -> Inputs {
        Inputs { packet_bytes, cable_m, ..Inputs::measured_case() }
    }

    #[test]
    fn recovery_time_matches_the_rtl_campaign_within_three_percent() {
        // Mean recovery cycles measured on the RTL of both ends (docs/results/genz.md).
        for (bytes, cable, measured) in [(64, 10.0, 237.0), (64, 100.0, 2034.0), (256, 10.0, 323.0), (256, 100.0, 2111.0)] {
            let predicted = recovery_cycles(&case(bytes, cable)) as f64;
            assert!((predicted / measured - 1.0).abs() < 0.03, "{bytes} B {cable} m: {predicted} vs {measured}");
        }
    }

    #[test]
    fn slots_cover_the_measured_in_flight_maximum_with_little_to_spare() {
        // Sent-and-unacknowledged maxima measured on the RTL (docs/results/genz.md, occupancy table).
        for (bytes, cable, measured) in [(64, 1.0, 17), (64, 10.0, 29), (64, 100.0, 139), (256, 10.0, 19), (256, 100.0, 47)] {
            let s = slots_for_full_rate(&case(bytes, cable));
            assert!(s >= measured && s <= measured + 4, "{bytes} B {cable} m: {s} slots vs {measured} measured");
        }
    }

    #[test]
    fn goodput_follows_the_measured_curve() {
        // 64 B at 100 m, BER 1.78e-6 and 1e-5: 0.7903 and 0.4324 measured.
        let g = |ber| goodput(&Inputs { ber, ..Inputs::measured_case() });
        assert!((g(1.78e-6) - 0.7903).abs() < 0.02, "{}", g(1.78e-6));
        assert!((g(1e-5) - 0.4324).abs() < 0.02, "{}", g(1e-5));
        assert!((g(0.0) - 0.9845).abs() < 1e-3);
    }

    #[test]
    fn bad_inputs_name_the_option() {
        let e = analyze(&Inputs { data_bytes: 6, ..Inputs::measured_case() }).unwrap_err();
        assert_eq!(e.option, "data-bytes");
        let e = analyze(&Inputs { packet_bytes: 60, ..Inputs::measured_case() }).unwrap_err();
        assert!(e.to_string().contains("multiples of 8"), "{e}");
        let e = analyze(&Inputs { lanes: 3, ..Inputs::measured_case() }).unwrap_err();
        assert_eq!(e.option, "lanes");
    }
}
