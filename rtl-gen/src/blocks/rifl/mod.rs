//! Block kind `rifl`: the RIFL reliable link layer (Shen, Zheng, Chow; §2–§5) as one node:
//! AXI4-Stream in and out, `lanes` frame lanes to the transceivers, in-band retransmission with
//! NACKs, flow control, scrambling and channel bonding.
//!
//! Modules (`<p>` = design prefix + block name):
//! `<p>` (top), `<p>_tx` (TX controller, retransmission buffer, scrambler, encoder),
//! `<p>_rx` (descrambler, verification, control monitor), `<p>_fifo` (flow-control buffer),
//! `<p>_txgear` / `<p>_rxgear` (AXI4-Stream width conversion), `<p>_encode` / `<p>_check`
//! (frame codec), `<p>_crc` (CRC-12), and with `scrambler = true` `<p>_scrambler` /
//! `<p>_descrambler`. The reference model is [`model`]; [`RiflBlock::model`] builds it.

pub mod model;
pub mod rtl;

use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use crate::math::hd;
use serde::{Deserialize, Serialize};
use crate::math::lfsr::CrcRegister;
use model::params::{derived_frame_id_bits, rtt_frames, table2_frame_id_bits, Params};

pub struct RiflKind;

/// The default CRC-12: x^12+x^11+x^3+x^2+x+1 (0x80F, CRC-12/3GPP; 0xC07 in Koopman's
/// notation), HD 4 up to 2035 data bits in Koopman's tables, so for every frame size here; the
/// block validation proves the HD at the actual frame length.
pub const DEFAULT_CRC_POLY: u16 = 0x80F;

static FIELDS: [FieldSpec; 19] = [
    FieldSpec { name: "frame_bits", ty: FieldType::UInt { min: 128, max: 2048 }, default: Some("256"), doc: "frame size F: 128, 256, 512, 1024 or 2048 (payload F-16 bits)" },
    FieldSpec {
        name: "frame_id_bits",
        ty: FieldType::UInt { min: 0, max: 12 },
        default: Some("0"),
        doc: "frame ID width n (retransmission buffer 2^n frames); 0 = derived: from cable_m and lane_gbps when given, else Table 2. An explicit n is checked against the round trip only when cable_m is given: 2^n must cover 32 + the frames in flight per round trip, or retransmitted frames alias newer ones",
    },
    FieldSpec { name: "cable_m", ty: FieldType::UInt { min: 0, max: 500 }, default: Some("0"), doc: "cable length in metres (with lane_gbps: sizes frame_id_bits for the round trip); 0 = not given" },
    FieldSpec { name: "lane_gbps", ty: FieldType::UInt { min: 0, max: 1000 }, default: Some("0"), doc: "line rate per lane in Gb/s (with cable_m); 0 = not given" },
    FieldSpec { name: "crc_poly", ty: FieldType::UInt { min: 1, max: 0xFFF }, default: Some("0x80F"), doc: "CRC-12 generator, normal form (x^12 implied); must have HD >= 4 over the F-1 protected bits" },
    FieldSpec { name: "user_bits", ty: FieldType::UInt { min: 8, max: 4096 }, default: Some("256"), doc: "AXI4-Stream data width, a power of two" },
    FieldSpec { name: "lanes", ty: FieldType::UInt { min: 1, max: 16 }, default: Some("1"), doc: "bonded lanes (one frame each per slot)" },
    FieldSpec { name: "fc_buffer_frames", ty: FieldType::UInt { min: 0, max: 65536 }, default: Some("0"), doc: "flow-control buffer per lane in frames; 0 = 2^frame_id_bits (Eq. 23: >= 1.5 round trips)" },
    FieldSpec { name: "fc_on_frames", ty: FieldType::UInt { min: 0, max: 65536 }, default: Some("0"), doc: "pause the far end above this level; 0 = 2/3 of the buffer (Eq. 24)" },
    FieldSpec { name: "fc_off_frames", ty: FieldType::UInt { min: 0, max: 65536 }, default: Some("0"), doc: "resume it below this level; 0 = 1/3 of the buffer (Eq. 25)" },
    FieldSpec { name: "scrambler", ty: FieldType::Bool, default: Some("true"), doc: "scramble meta and payload with 1 + x^13 + x^33 (SYN and verification code are not)" },
    FieldSpec { name: "retrans_threshold", ty: FieldType::UInt { min: 1, max: 2048 }, default: Some("16"), doc: "Listing 1 rollback: good frames in sequence needed before delivery resumes" },
    FieldSpec { name: "control_repeat", ty: FieldType::UInt { min: 1, max: 255 }, default: Some("8"), doc: "consecutive requests that raise a control flag (and legal SYNs that end out-of-sync)" },
    FieldSpec {
        name: "clocking",
        ty: FieldType::Choice(&["single", "recovered"]),
        default: Some("\"single\""),
        doc: "\"single\": one clock clk, rx_frame taken in it; \"recovered\": each lane's receiver on its recovered clock rx_clk[k], an asynchronous FIFO per lane into clk, clock compensation on free_clk",
    },
    FieldSpec { name: "compensation", ty: FieldType::Bool, default: Some("derived: true with clocking = \"recovered\" (only then allowed)"), doc: "insert one Idle slot per TX clock cycle gained on the far end's clock (false only to show the CDC FIFO overflow it prevents)" },
    FieldSpec { name: "rx_clk_mhz", ty: FieldType::UInt { min: 1, max: 2000 }, default: Some("derived: the design clock with clocking = \"recovered\" (only then allowed); with gt_bits frame_bits/gt_bits times it, the far end's tx_fast_clk"), doc: "recovered RX clock frequency for the emitted create_clock" },
    FieldSpec {
        name: "gt_bits",
        ty: FieldType::UInt { min: 32, max: 128 },
        default: Some("derived: none, frames whole on rx_frame/tx_frame (only with clocking = \"recovered\")"),
        doc: "transceiver width W: 32, 64 or 128, below frame_bits: each lane's words on rx_gt_data (rx_clk[k], the Lane Aligner finds the frames) and tx_fast_gt_data (tx_fast_clk = frame_bits/W x clk, same source)",
    },
    FieldSpec {
        name: "user_clk_ratio",
        ty: FieldType::UInt { min: 1, max: 4 },
        default: Some("derived: 1, the user streams on clk"),
        doc: "temporal channel bonding T: 1, 2 or 4. With 2 or 4 s_axis and m_axis run on user_clk = T x clk (same source, every clk rising edge one of its own), user_bits per beat, and the node carries T user beats per clk cycle; T x user_bits at most lanes x (frame_bits - 16) rounded up to a power of two",
    },
    FieldSpec { name: "free_clk_mhz", ty: FieldType::UInt { min: 1, max: 2000 }, default: Some("derived: 100 with clocking = \"recovered\" and compensation (only then allowed)"), doc: "free-running clock of the compensation counters, for the emitted create_clock; at least 1/32 of clk and rx_clk" },
];

/// The widest user stream a node has (`user_bits`' range), also on `clk` with temporal bonding.
fn most_user_bits() -> u32 {
    match FIELDS.iter().find(|f| f.name == "user_bits").map(|f| f.ty) {
        Some(FieldType::UInt { max, .. }) => max as u32,
        _ => 4096,
    }
}

/// Lowest `free_clk_mhz` without `free_clk_mhz` given.
pub const DEFAULT_FREE_CLK_MHZ: u32 = 100;

/// How a node's receivers are clocked (`clocking`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clocking {
    /// Everything on `clk`.
    #[default]
    Single,
    /// Each lane's receiver on its recovered clock.
    Recovered,
}

impl Clocking {
    pub fn is_single(&self) -> bool {
        *self == Clocking::Single
    }
}

/// The settings of a node with `clocking = "recovered"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recovered {
    /// Idle slots inserted for the cycles the TX clock gains on the far end's.
    pub compensation: bool,
    /// `rx_clk_mhz` when given (else the design clock).
    pub rx_clk_mhz: Option<u32>,
    /// `free_clk_mhz` resolved (with compensation).
    pub free_clk_mhz: u32,
    /// `gt_bits` when given: the transceiver-width form (Lane Aligner, GT width converters).
    pub gt_bits: Option<u32>,
}

/// A validated `rifl` block: its fields with the derived values resolved, and what they derive
/// beside them.
#[derive(Debug, Clone)]
pub struct RiflBlock {
    pub name: String,
    /// The fields, `frame_id_bits` and the flow-control levels resolved.
    pub params: RiflParams,
    /// The node's model parameters, derived from [`RiflBlock::params`].
    pub model_params: Params,
    /// `Some` with `clocking = "recovered"`.
    pub recovered: Option<Recovered>,
    /// `Some(T)` with temporal bonding (`user_clk_ratio` 2 or 4): the user streams on
    /// `user_clk`, `user_bits` wide; `model_params.user_bits` is the `clk` side's T x `user_bits`.
    pub temporal: Option<u32>,
}

impl std::ops::Deref for RiflBlock {
    type Target = RiflParams;
    fn deref(&self) -> &RiflParams {
        &self.params
    }
}

fn is_pow2(v: u64) -> bool {
    v != 0 && v & (v - 1) == 0
}

/// Smallest undetected error weight (≤ 3 matters) of a CRC-12 over the F − 1 protected bits.
pub fn crc_weakness(poly: u16, frame_bits: u32) -> Option<u32> {
    hd::min_undetected_weight(CrcRegister::new(12, poly as u64), frame_bits as usize - 1).filter(|&w| w < 4)
}

impl BlockKind for RiflKind {
    fn kind(&self) -> &'static str {
        "rifl"
    }
    fn summary(&self) -> &'static str {
        "RIFL reliable link layer node: frames with CRC-12^frame-ID, in-band NACK retransmission, flow control, scrambler, AXI4-Stream, channel bonding"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        Ok(Box::new(read_params::<RiflParams>(r)?.block(r.block())?))
    }
}

/// The parameters of a `rifl` block, named and typed as [`FIELDS`] lists them. A block's own
/// parameters carry the derived values resolved (`frame_id_bits`, the flow-control levels), so
/// they rebuild the same node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiflParams {
    pub frame_bits: u32,
    pub frame_id_bits: u32,
    pub cable_m: u32,
    pub lane_gbps: u32,
    pub crc_poly: u32,
    pub user_bits: u32,
    pub lanes: u32,
    pub fc_buffer_frames: u32,
    pub fc_on_frames: u32,
    pub fc_off_frames: u32,
    pub scrambler: bool,
    pub retrans_threshold: u32,
    pub control_repeat: u32,
    #[serde(default, skip_serializing_if = "Clocking::is_single")]
    pub clocking: Clocking,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compensation: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_clk_mhz: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_clk_mhz: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gt_bits: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_clk_ratio: Option<u32>,
}

impl KindParams for RiflParams {
    const KIND: &'static str = "rifl";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

/// What the per-lane modules of a node (`_tx`, `_rx`, `_fifo`, `_encode`, `_check`, `_crc`,
/// `_scrambler`, `_descrambler`) are built from: the node's parameters without its user width,
/// lane count and link (`cable_m`, `lane_gbps` only size the fields below), so the lanes of two
/// nodes that differ only there are the same modules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiflLaneParams {
    pub frame_bits: u32,
    pub frame_id_bits: u32,
    pub crc_poly: u32,
    pub fc_buffer_frames: u32,
    pub fc_on_frames: u32,
    pub fc_off_frames: u32,
    pub scrambler: bool,
    pub retrans_threshold: u32,
    pub control_repeat: u32,
}

impl KindParams for RiflLaneParams {
    const KIND: &'static str = "rifl";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl RiflLaneParams {
    pub fn of(p: &Params) -> RiflLaneParams {
        RiflLaneParams {
            frame_bits: p.frame_bits,
            frame_id_bits: p.frame_id_bits,
            crc_poly: p.crc_poly as u32,
            fc_buffer_frames: p.fc_buffer_frames,
            fc_on_frames: p.fc_on_frames,
            fc_off_frames: p.fc_off_frames,
            scrambler: p.scrambler,
            retrans_threshold: p.retrans_threshold,
            control_repeat: p.control_repeat,
        }
    }

    /// The model parameters of one lane: a single lane whose user width is its payload rounded
    /// up to a power of two (no lane model reads either).
    pub fn params(&self) -> Params {
        let payload = self.frame_bits - 16;
        Params {
            frame_bits: self.frame_bits,
            frame_id_bits: self.frame_id_bits,
            crc_poly: self.crc_poly as u16,
            user_bits: payload.next_power_of_two(),
            lanes: 1,
            fc_buffer_frames: self.fc_buffer_frames,
            fc_on_frames: self.fc_on_frames,
            fc_off_frames: self.fc_off_frames,
            scrambler: self.scrambler,
            retrans_threshold: self.retrans_threshold,
            control_repeat: self.control_repeat,
        }
    }
}

/// What the recovered-clock modules of a node (`_rxcdc`, `_comp`) are built from: the lane's
/// receiver parameters and the clocks (so the emitted constraints find each clock's frequency).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiflClockParams {
    pub frame_bits: u32,
    pub frame_id_bits: u32,
    pub crc_poly: u32,
    pub scrambler: bool,
    pub retrans_threshold: u32,
    pub control_repeat: u32,
    pub clocking: Clocking,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_clk_mhz: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_clk_mhz: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gt_bits: Option<u32>,
}

impl KindParams for RiflClockParams {
    const KIND: &'static str = "rifl";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl RiflClockParams {
    pub fn of(p: &Params, rec: &Recovered) -> RiflClockParams {
        RiflClockParams {
            frame_bits: p.frame_bits,
            frame_id_bits: p.frame_id_bits,
            crc_poly: p.crc_poly as u32,
            scrambler: p.scrambler,
            retrans_threshold: p.retrans_threshold,
            control_repeat: p.control_repeat,
            clocking: Clocking::Recovered,
            rx_clk_mhz: rec.rx_clk_mhz,
            free_clk_mhz: rec.compensation.then_some(rec.free_clk_mhz),
            gt_bits: rec.gt_bits,
        }
    }
}

/// What a node's gearboxes (`_txgear`, `_rxgear`) are built from: user beats of `user_bits`
/// against groups of `lanes` payloads of a `frame_bits` frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiflGearParams {
    pub frame_bits: u32,
    pub user_bits: u32,
    pub lanes: u32,
}

impl KindParams for RiflGearParams {
    const KIND: &'static str = "rifl";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl RiflGearParams {
    pub fn of(p: &Params) -> RiflGearParams {
        RiflGearParams { frame_bits: p.frame_bits, user_bits: p.user_bits, lanes: p.lanes }
    }

    /// Bytes of one user beat.
    pub fn user_bytes(&self) -> usize {
        self.user_bits as usize / 8
    }

    /// Bytes of one lane group: a payload per lane.
    pub fn group_bytes(&self) -> usize {
        self.lanes as usize * (self.frame_bits as usize - 16) / 8
    }
}

/// What a node's temporal bonding stages (`_tbond_tx`, `_tbond_rx`) are built from: the user
/// beat width and the ratio of `user_clk` to `clk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiflBondParams {
    pub user_bits: u32,
    pub user_clk_ratio: u32,
}

impl KindParams for RiflBondParams {
    const KIND: &'static str = "rifl";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl RiflParams {
    /// The recovered-clock settings: `None` with `clocking = "single"`, which allows none of them.
    fn recovered(&self, error: &dyn Fn(&str, String) -> ConfigError) -> ConfigResult<Option<Recovered>> {
        if self.clocking.is_single() {
            for (field, given) in [("compensation", self.compensation.is_some()), ("rx_clk_mhz", self.rx_clk_mhz.is_some()), ("free_clk_mhz", self.free_clk_mhz.is_some()), ("gt_bits", self.gt_bits.is_some())] {
                if given {
                    return Err(error(field, "applies only with clocking = \"recovered\"; allowed: leave it out, or set clocking = \"recovered\"".into()));
                }
            }
            return Ok(None);
        }
        let compensation = self.compensation.unwrap_or(true);
        if !compensation && self.free_clk_mhz.is_some() {
            return Err(error("free_clk_mhz", "applies only with compensation = true (without it there is no free_clk); allowed: leave it out".into()));
        }
        if let Some(w) = self.gt_bits {
            if !matches!(w, 32 | 64 | 128) || w >= self.frame_bits {
                let allowed: Vec<String> = [32u32, 64, 128].into_iter().filter(|&a| a < self.frame_bits).map(|a| a.to_string()).collect();
                return Err(error("gt_bits", format!("= {w} is not allowed with frame_bits = {}; allowed {} (a transceiver width below the frame, so the frame is 2 or more words)", self.frame_bits, allowed.join(", "))));
            }
        }
        Ok(Some(Recovered { compensation, rx_clk_mhz: self.rx_clk_mhz, free_clk_mhz: self.free_clk_mhz.unwrap_or(DEFAULT_FREE_CLK_MHZ), gt_bits: self.gt_bits }))
    }

    /// The temporal bonding ratio: `None` for 1 (the user streams on `clk`, as without the
    /// field), else 2 or 4 with T x `user_bits` within what the lanes carry.
    fn temporal(&self, error: &dyn Fn(&str, String) -> ConfigError) -> ConfigResult<Option<u32>> {
        let t = match self.user_clk_ratio {
            None | Some(1) => return Ok(None),
            Some(t) => t,
        };
        if !matches!(t, 2 | 4) {
            return Err(error("user_clk_ratio", format!("= {t} is not allowed; allowed 1, 2 or 4 (user_clk a power of two times clk)")));
        }
        let group = self.lanes * (self.frame_bits - 16);
        let widest = group.next_power_of_two();
        if t * self.user_bits > widest {
            let most = widest / t;
            return Err(error(
                "user_clk_ratio",
                format!(
                    "= {t} with user_bits = {} makes the clk-side stream {} bits, wider than the {} lane(s) carry ({} x {} = {group} payload bits per clk cycle, {widest} rounded up); allowed: user_bits at most {most} with user_clk_ratio = {t}, or a lower ratio",
                    self.user_bits,
                    t * self.user_bits,
                    self.lanes,
                    self.lanes,
                    self.frame_bits - 16,
                ),
            ));
        }
        if most_user_bits() < t * self.user_bits {
            return Err(error("user_clk_ratio", format!("= {t} with user_bits = {} makes the clk-side stream wider than 4096 bits; allowed: user_bits at most {}", self.user_bits, most_user_bits() / t)));
        }
        Ok(Some(t))
    }

    /// The validated block named `name`: the combinations the field ranges cannot express, and
    /// the derived values (0 = derive) resolved.
    pub fn block(&self, name: &str) -> ConfigResult<RiflBlock> {
        let error = |field: &str, problem: String| ConfigError::Field { block: name.to_string(), kind: Self::KIND, field: field.to_string(), problem };
        let RiflParams { frame_bits, cable_m, lane_gbps, retrans_threshold, user_bits, lanes, scrambler, control_repeat, .. } = *self;
        if !is_pow2(frame_bits as u64) {
            return Err(error("frame_bits", format!("= {frame_bits} is not allowed; allowed 128, 256, 512, 1024, 2048 (the format code limits the payload to 256 bytes)")));
        }
        if (cable_m == 0) != (lane_gbps == 0) {
            let (given, missing) = if cable_m == 0 { ("lane_gbps", "cable_m") } else { ("cable_m", "lane_gbps") };
            return Err(error(missing, format!("is required when {given} is given (the round trip needs both); allowed 1..={}", if missing == "cable_m" { 500 } else { 1000 })));
        }
        let explicit_id = self.frame_id_bits;
        let frame_id_bits = if explicit_id != 0 {
            explicit_id
        } else if cable_m != 0 {
            round_trip_fits(&error, cable_m, lane_gbps, frame_bits)?;
            derived_frame_id_bits(cable_m, lane_gbps, frame_bits)
        } else {
            table2_frame_id_bits(frame_bits)
        };
        if (1u32 << frame_id_bits) < 2 * retrans_threshold {
            return Err(error(
                "frame_id_bits",
                format!("= {frame_id_bits} gives {} frame IDs, fewer than 2 x retrans_threshold = {}; allowed {}..=12", 1u32 << frame_id_bits, 2 * retrans_threshold, 32 - (2 * retrans_threshold - 1).leading_zeros()),
            ));
        }
        if explicit_id != 0 && cable_m != 0 && explicit_id < derived_frame_id_bits(cable_m, lane_gbps, frame_bits) {
            // No frame_id_bits covers a round trip beyond 12 bits: name what to change instead.
            round_trip_fits(&error, cable_m, lane_gbps, frame_bits)?;
            return Err(error(
                "frame_id_bits",
                format!(
                    "= {explicit_id} is too small for {cable_m} m at {lane_gbps} Gb/s ({} frames per round trip + 32); allowed {}..=12",
                    rtt_frames(cable_m, lane_gbps, frame_bits),
                    derived_frame_id_bits(cable_m, lane_gbps, frame_bits)
                ),
            ));
        }
        let crc_poly = self.crc_poly as u16;
        if let Some(w) = crc_weakness(crc_poly, frame_bits) {
            return Err(error(
                "crc_poly",
                format!("= 0x{crc_poly:03X} misses an error of weight {w} within the {} protected bits of a {frame_bits}-bit frame (HD < 4); allowed: a CRC-12 with HD >= 4 at this length, e.g. 0x{DEFAULT_CRC_POLY:03X}", frame_bits - 1),
            ));
        }
        if !is_pow2(user_bits as u64) {
            return Err(error("user_bits", format!("= {user_bits} is not a power of two; allowed 8, 16, 32, …, 4096")));
        }
        let temporal = self.temporal(&error)?;
        let fc_given = self.fc_buffer_frames;
        let fc_buffer_frames = if fc_given == 0 {
            let base = 1u32 << frame_id_bits;
            if cable_m != 0 {
                base.max((3 * rtt_frames(cable_m, lane_gbps, frame_bits)).div_ceil(2))
            } else {
                base
            }
        } else {
            fc_given
        };
        if fc_buffer_frames < 4 {
            return Err(error("fc_buffer_frames", format!("= {fc_buffer_frames} is too small; allowed 0 (derived) or 4..=65536")));
        }
        let (on_given, off_given) = (self.fc_on_frames, self.fc_off_frames);
        let fc_on_frames = if on_given == 0 { 2 * fc_buffer_frames / 3 } else { on_given };
        let fc_off_frames = if off_given == 0 { fc_buffer_frames / 3 } else { off_given };
        if fc_on_frames >= fc_buffer_frames {
            return Err(error("fc_on_frames", format!("= {fc_on_frames} must be below fc_buffer_frames = {fc_buffer_frames}; allowed 1..={}", fc_buffer_frames - 1)));
        }
        if fc_off_frames == 0 || fc_off_frames >= fc_on_frames {
            return Err(error("fc_off_frames", format!("= {fc_off_frames} must be between 1 and fc_on_frames - 1 = {}; allowed 1..={}", fc_on_frames.saturating_sub(1), fc_on_frames.saturating_sub(1))));
        }
        if cable_m != 0 {
            let rtt = rtt_frames(cable_m, lane_gbps, frame_bits);
            if fc_buffer_frames - fc_on_frames < rtt {
                return Err(error(
                    "fc_buffer_frames",
                    format!("= {fc_buffer_frames} with fc_on_frames = {fc_on_frames} leaves {} frames above ON, fewer than the {rtt} frames one round trip brings (Eq. 20); allowed: at least {}", fc_buffer_frames - fc_on_frames, fc_on_frames + rtt),
                ));
            }
        }
        let params = Params {
            frame_bits,
            frame_id_bits,
            crc_poly,
            user_bits: user_bits * temporal.unwrap_or(1),
            lanes,
            fc_buffer_frames,
            fc_on_frames,
            fc_off_frames,
            scrambler,
            retrans_threshold,
            control_repeat,
        };
        let recovered = self.recovered(&error)?;
        let resolved = RiflParams {
            frame_id_bits,
            fc_buffer_frames,
            fc_on_frames,
            fc_off_frames,
            compensation: recovered.map(|r| r.compensation),
            free_clk_mhz: recovered.filter(|r| r.compensation).map(|r| r.free_clk_mhz),
            user_clk_ratio: temporal,
            ..*self
        };
        Ok(RiflBlock { name: name.to_string(), params: resolved, model_params: params, recovered, temporal })
    }
}

impl RiflBlock {
    pub fn model(&self) -> model::Node {
        model::Node::new(self.model_params)
    }
}

impl Block for RiflBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "rifl"
    }
    fn typed_params(&self) -> ParamList {
        self.params.to_list()
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        rtl::module_names(self, design)
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        rtl::modules(self, design)
    }
    fn companion_module_names(&self, design: &DesignInfo) -> Vec<String> {
        let node = rtl::Names::new(self, design).top;
        vec![demo_top_name(&node), demo_tb_name(&node)]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Most frame ID bits a node has (the format's 12-bit frame ID).
const MAX_FRAME_ID_BITS: u32 = 12;

/// The round trip of `cable_m` at `lane_gbps` fits 12 frame ID bits; else an error on `cable_m`
/// naming the longest cable, the highest rate and the frame sizes that fit, each with the other
/// settings kept.
fn round_trip_fits(error: &dyn Fn(&str, String) -> ConfigError, cable_m: u32, lane_gbps: u32, frame_bits: u32) -> ConfigResult<()> {
    let fits = |c: u32, g: u32, f: u32| derived_frame_id_bits(c, g, f) <= MAX_FRAME_ID_BITS;
    if fits(cable_m, lane_gbps, frame_bits) {
        return Ok(());
    }
    let mut fixes = Vec::new();
    if let Some(c) = (1..cable_m).rev().find(|&c| fits(c, lane_gbps, frame_bits)) {
        fixes.push(format!("cable_m at most {c}"));
    }
    if let Some(g) = (1..lane_gbps).rev().find(|&g| fits(cable_m, g, frame_bits)) {
        fixes.push(format!("lane_gbps at most {g}"));
    }
    if let Some(f) = [256u32, 512, 1024, 2048].into_iter().find(|&f| f > frame_bits && fits(cable_m, lane_gbps, f)) {
        fixes.push(format!("frame_bits = {f} or more"));
    }
    let fixes = if fixes.is_empty() { "a shorter cable, a lower rate or larger frames".to_string() } else { fixes.join(", or ") };
    Err(error(
        "cable_m",
        format!(
            "= {cable_m} at lane_gbps = {lane_gbps} with {frame_bits}-bit frames needs {} frames in flight per round trip + 32, more than {MAX_FRAME_ID_BITS} frame ID bits can name (no frame_id_bits fits); change instead: {fixes}",
            rtt_frames(cable_m, lane_gbps, frame_bits)
        ),
    ))
}

/// The FPGA demo top the generated tree builds around the RIFL node `node` (`demo/<node>_demo.v`).
pub fn demo_top_name(node: &str) -> String {
    format!("{node}_demo")
}

/// The demo's self-checking testbench (`demo/<node>_demo_tb.v`).
pub fn demo_tb_name(node: &str) -> String {
    format!("{node}_demo_tb")
}

/// The two-clock FPGA demo top the generated tree builds around the recovered-clock RIFL node
/// `node` (`demo/<node>_demo_pair.v`: two copies of it on unrelated clocks).
pub fn demo_pair_top_name(node: &str) -> String {
    format!("{node}_demo_pair")
}

/// The two-clock demo's self-checking testbench (`demo/<node>_demo_pair_tb.v`).
pub fn demo_pair_tb_name(node: &str) -> String {
    format!("{node}_demo_pair_tb")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authors_crc_poly_has_hd4_too_and_a_weak_one_is_refused() {
        // The authors' RTL uses 0x02F (x^12+x^5+x^3+x^2+x+1): also HD >= 4 at every size here.
        for f in [128u32, 256, 512, 1024, 2048] {
            assert_eq!(crc_weakness(0x02F, f), None, "0x02F at {f}-bit frames");
        }
        // x^12 + x^11 + 1 (odd weight, not divisible by x+1) misses a weight-3 error at 2048.
        assert!(crc_weakness(0x800, 2048).is_some());
    }

    #[test]
    fn default_crc_has_hd4_at_every_frame_size() {
        for f in [128, 256, 512, 1024, 2048] {
            assert_eq!(crc_weakness(DEFAULT_CRC_POLY, f), None, "0x80F at {f}-bit frames");
        }
    }
}
