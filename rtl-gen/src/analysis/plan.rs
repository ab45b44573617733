//! `rtl-gen plan rifl`: RIFL parameters for a link's requirements, each with its reason, the
//! predicted figures (RIFL Eq. 8, 11, 13, 14/26) and a design file `rtl-gen generate` accepts.
//! The frame ID width is the `rifl` block's own derivation from `cable_m` and `lane_gbps`
//! ([`derived_frame_id_bits`]), so the plan and the generated block agree by construction.

use super::prob::frame_error_rate;
use super::rifl::{bandwidth_ratio, ffr, frame_efficiency, mtbf_years, n_stall, FRAME_SIZES};
use super::{check_range, InputError};
use crate::blocks::rifl::model::params::{derived_frame_id_bits, rtt_frames, VCODE_BITS};

/// The largest frame ID width the `rifl` block generates.
pub const MAX_FRAME_ID_BITS: u32 = 12;
/// Expected bit errors per retransmission procedure from which a RIFL link livelocks (a new
/// error restarts the procedure; `docs/results/rifl.md`, BER sweep): the plan refuses at 1.
pub const LIVELOCK_ERRORS_PER_PROCEDURE: f64 = 1.0;

/// The requirements.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirements {
    /// Total line rate over all lanes, Gb/s.
    pub line_gbps: u32,
    pub cable_m: u32,
    pub ber: f64,
    pub mtbf_years: f64,
    pub lanes: u32,
}

/// The predicted figures of one frame size.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub frame_bits: u32,
    pub frame_id_bits: u32,
    pub rtt_frames: u32,
    pub mtbf_years: f64,
    pub bandwidth_ratio: f64,
    pub efficiency: f64,
    pub goodput_gbps: f64,
    pub errors_per_procedure: f64,
}

/// The chosen parameters, the reasons, and every candidate considered.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub req: Requirements,
    pub lane_gbps: u32,
    pub user_bits: u32,
    pub chosen: Candidate,
    pub candidates: Vec<Candidate>,
    pub reasons: Vec<(&'static str, String)>,
}

impl Requirements {
    pub fn validate(&self) -> Result<(), InputError> {
        check_range("line-gbps", self.line_gbps as f64, 1.0, 16_000.0)?;
        check_range("lanes", self.lanes as f64, 1.0, 16.0)?;
        check_range("cable-m", self.cable_m as f64, 1.0, 500.0)?;
        check_range("ber", self.ber, 1e-30, 1e-2)?;
        check_range("mtbf-years", self.mtbf_years, 1e-6, 1e30)?;
        let lane = self.lane_gbps();
        if lane > 1000 {
            return Err(InputError { option: "line-gbps", problem: format!("= {} over {} lanes is {lane} Gb/s per lane; allowed at most 1000 per lane (more --lanes)", self.line_gbps, self.lanes) });
        }
        Ok(())
    }

    /// Per-lane rate, rounded up (a faster lane needs more frame IDs: the safe side).
    pub fn lane_gbps(&self) -> u32 {
        self.line_gbps.div_ceil(self.lanes)
    }

    /// The predicted figures of `frame_bits`-bit frames.
    pub fn candidate(&self, frame_bits: u32) -> Candidate {
        let lane = self.lane_gbps();
        let n = derived_frame_id_bits(self.cable_m, lane, frame_bits);
        // The lanes are bonded in lock step: an error in any lane's frame stalls the slot.
        let slot_bits = (frame_bits * self.lanes) as u64;
        let fer = frame_error_rate(self.ber, slot_bits);
        let stall = n_stall(n.min(MAX_FRAME_ID_BITS));
        let ratio = bandwidth_ratio(stall, fer);
        let eff = frame_efficiency(frame_bits, VCODE_BITS);
        let line = (lane * self.lanes) as f64;
        let per_lane_ffr = ffr(frame_bits, VCODE_BITS, self.ber);
        // Every lane's frames count: the link sends lanes × the frames of one lane.
        let mtbf = mtbf_years(per_lane_ffr, frame_bits, line * ratio);
        Candidate {
            frame_bits,
            frame_id_bits: n,
            rtt_frames: rtt_frames(self.cable_m, lane, frame_bits),
            mtbf_years: mtbf,
            bandwidth_ratio: ratio,
            efficiency: eff,
            goodput_gbps: line * eff * ratio,
            errors_per_procedure: 2.5
                * (1u64 << n.min(MAX_FRAME_ID_BITS)) as f64
                * slot_bits as f64
                * self.ber,
        }
    }
}

/// Chooses the frame size of the highest predicted goodput among those that meet the MTBF,
/// fit the frame ID width and do not livelock; refuses with the figure that rules each out.
pub fn plan_rifl(req: &Requirements) -> Result<Plan, InputError> {
    req.validate()?;
    let candidates: Vec<Candidate> = FRAME_SIZES.iter().map(|&f| req.candidate(f)).collect();
    let fits: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.frame_id_bits <= MAX_FRAME_ID_BITS)
        .collect();
    if fits.is_empty() {
        let c = &candidates[candidates.len() - 1];
        return Err(InputError {
            option: "cable-m",
            problem: format!(
                "= {} at {} Gb/s per lane needs {} frames in flight per round trip + 32 even with 2048-bit frames, more than the 2^{MAX_FRAME_ID_BITS} frame IDs (retransmission buffer) RIFL can hold; allowed: a shorter cable or a lower lane rate",
                req.cable_m, req.lane_gbps(), c.rtt_frames
            ),
        });
    }
    let live: Vec<&Candidate> = fits
        .iter()
        .copied()
        .filter(|c| c.errors_per_procedure < LIVELOCK_ERRORS_PER_PROCEDURE)
        .collect();
    if live.is_empty() {
        let best = fits
            .iter()
            .min_by(|a, b| a.errors_per_procedure.total_cmp(&b.errors_per_procedure))
            .unwrap();
        return Err(InputError {
            option: "ber",
            problem: format!(
                "= {:e} puts {:.2} bit errors into one retransmission procedure even at {}-bit frames (at 1 or more the link livelocks); allowed: a better BER (the paper's Constraint B: at most 1e-7, or an FEC below RIFL), or fewer frames per round trip (shorter cable, lower lane rate)",
                req.ber, best.errors_per_procedure, best.frame_bits
            ),
        });
    }
    let reliable: Vec<&Candidate> = live
        .iter()
        .copied()
        .filter(|c| c.mtbf_years >= req.mtbf_years)
        .collect();
    let Some(chosen) = reliable
        .iter()
        .copied()
        .max_by(|a, b| a.goodput_gbps.total_cmp(&b.goodput_gbps))
    else {
        let best = live
            .iter()
            .max_by(|a, b| a.mtbf_years.total_cmp(&b.mtbf_years))
            .unwrap();
        return Err(InputError {
            option: "mtbf-years",
            problem: format!(
                "= {:e} is impossible at BER {:e}: the best MTBF (Eq. 14/26, 12-bit CRC of HD 4) is {:.3e} years, at {}-bit frames; allowed at most that, or a better BER",
                req.mtbf_years, req.ber, best.mtbf_years, best.frame_bits
            ),
        });
    };
    let chosen = chosen.clone();
    let payload_bits = req.lanes * (chosen.frame_bits - 16);
    let user_bits = payload_bits.next_power_of_two().min(4096);
    let reasons = vec![
        ("frame_bits", format!(
            "{}: the highest predicted goodput ({:.2} Gb/s = {} Gb/s x {:.4} frame efficiency (Eq. 11) x {:.4} bandwidth ratio (Eq. 8)) among the frame sizes meeting MTBF >= {:e} years; rejected: {}",
            chosen.frame_bits, chosen.goodput_gbps, req.lane_gbps() * req.lanes, chosen.efficiency, chosen.bandwidth_ratio, req.mtbf_years,
            rejected(&candidates, &chosen, req)
        )),
        ("lanes", format!("{} (given); {} Gb/s per lane{}", req.lanes, req.lane_gbps(),
            if req.lane_gbps() * req.lanes != req.line_gbps { " (rounded up: a faster lane needs more frame IDs, the safe side)" } else { "" })),
        ("cable_m / lane_gbps", format!("{} m / {} Gb/s: the block derives frame_id_bits = {} from them ({} frames per round trip at 2e8 m/s and 100 ns circuit per direction, + 32 for rollback and requests)", req.cable_m, req.lane_gbps(), chosen.frame_id_bits, chosen.rtt_frames)),
        ("user_bits", format!("{user_bits}: the power of two that carries the {} lanes' {payload_bits} payload bits per slot at one clock (at most 4096)", req.lanes)),
        ("crc_poly", "0x80F (default): a 12-bit CRC of HD 4 over every frame size, as the FFR of Eq. 15 assumes".into()),
    ];
    Ok(Plan {
        req: req.clone(),
        lane_gbps: req.lane_gbps(),
        user_bits,
        chosen,
        candidates,
        reasons,
    })
}

fn rejected(all: &[Candidate], chosen: &Candidate, req: &Requirements) -> String {
    let v: Vec<String> = all
        .iter()
        .filter(|c| c.frame_bits != chosen.frame_bits)
        .map(|c| {
            if c.frame_id_bits > MAX_FRAME_ID_BITS {
                format!("{} (needs {} frame ID bits)", c.frame_bits, c.frame_id_bits)
            } else if c.errors_per_procedure >= LIVELOCK_ERRORS_PER_PROCEDURE {
                format!(
                    "{} (livelock: {:.2} errors per procedure)",
                    c.frame_bits, c.errors_per_procedure
                )
            } else if c.mtbf_years < req.mtbf_years {
                format!("{} (MTBF {:.2e} years)", c.frame_bits, c.mtbf_years)
            } else {
                format!("{} ({:.2} Gb/s)", c.frame_bits, c.goodput_gbps)
            }
        })
        .collect();
    v.join(", ")
}

impl Plan {
    /// A design file with one `rifl` block that `rtl-gen generate` accepts; frame_id_bits is
    /// left to the block's derivation from cable_m and lane_gbps.
    pub fn design_toml(&self, command: &str) -> String {
        let r = &self.req;
        let c = &self.chosen;
        format!(
            "# Planned by `{command}`:\n\
             # predicted goodput {:.2} Gb/s, bandwidth ratio {:.4} (RIFL Eq. 8), MTBF {:.3e} years (Eq. 14/26),\n\
             # frame_id_bits = {} (derived by the block from cable_m and lane_gbps).\n\
             [design]\nname = \"rifl_plan\"\n\n\
             [[blocks]]\nkind = \"rifl\"\nname = \"rifl\"\nframe_bits = {}\nlanes = {}\nuser_bits = {}\ncable_m = {}\nlane_gbps = {}\n",
            c.goodput_gbps, c.bandwidth_ratio, c.mtbf_years, c.frame_id_bits, c.frame_bits, r.lanes, self.user_bits, r.cable_m, self.lane_gbps
        )
    }
}
