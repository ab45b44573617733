//! Block kind `genz_llr`: one interface (TX and RX of one end of a link) of Gen-Z link-level
//! reliability (LLR), after the seed `genz-link-level-reliability.txt` (Gen-Z Consortium,
//! "Gen-Z Link-level Reliability", February 2018).
//!
//! What the seed specifies (slide titles in brackets):
//! * [Link-level Reliability (LLR)] reliable delivery (uncorrupted, exactly once, in order) of
//!   end-to-end (EE) packets between the two interfaces of a link, **without adding bytes to EE
//!   packets**: each side numbers EE packets implicitly and keeps a copy until acknowledged.
//! * [LLR Initialization with Normal Exchange / with Transient Error] a 3-way exchange carries
//!   TSEQ and RSEQ: LLR Init every 8192 UI (`init_interval_ui`) until an LLR Init ACK arrives;
//!   on Init ACK the interface sends explicit flow-control packets, which enable EE packets. A
//!   lost Init ACK is recovered by the periodic Init.
//! * [LLR Error Recovery] on a packet error the receiver discards it and every later EE packet
//!   and sends LLR Discard {RSEQ, TSEQ} every 8192 UI (`discard_interval_ui`); the transmitter
//!   frees what RSEQ acknowledges, stops EE packets and answers LLR Clear Discard; the receiver
//!   answers LLR Exit Discard; the transmitter resends every EE packet after the last
//!   acknowledged one. More than 256 Discards (`discard_limit`) without a Clear Discard: retrain.
//! * [Additional LLR Requirements] LLR timer of 2^20 UI (`llrt_ui`): an LLR ACK at every
//!   expiry; no ACK received for 4 consecutive periods: retrain; an EE packet unacknowledged for
//!   3 consecutive periods: LLR retransmission. RSEQ/TSEQ count EE packets (any VC) modulo
//!   2^16; EE transmission suspends at 2^16 − 1 unacknowledged packets. LLR is triggered by any
//!   error that resynchronises the link (`phy_error`) and by ECRC errors (`ecrc_check`).
//!
//! Our choices (the seed leaves them open), documented here and in the module banner:
//! * Timers are given in UI and run in cycles: `interval_ui / ui_per_cycle` (at least 1).
//! * EE packets are whole beats of `data_bytes` bytes (`tkeep` all ones; the inputs are not
//!   looked at, the outputs drive all ones), at most `max_packet_bytes` long. With `ecrc_check`
//!   their last 4 bytes are the ECRC: CRC-32/ISO-HDLC of the preceding bytes, least significant
//!   byte first on the wire (byte n−4 = crc[7:0] … byte n−1 = crc[31:24]).
//! * Link-local (LL) packets are 16 bytes (16/`data_bytes` beats) and are told from EE packets
//!   by `tuser` = 1 on every beat of the link streams (EE beats carry 0). Byte 0 first on the
//!   wire; byte i of a beat is `tdata[8i+7:8i]`:
//!
//!   | bytes | field (MSB→LSB within a field) |
//!   |-------|-------------------------------|
//!   | 0     | opcode: 1 Init, 2 Init ACK, 3 flow control (FC), 4 ACK, 5 Discard, 6 Clear Discard, 7 Exit Discard |
//!   | 1–2   | TSEQ of the sender (next EE packet it transmits), byte 1 = TSEQ[15:8] |
//!   | 3–4   | RSEQ of the sender (EE packets it has received), byte 3 = RSEQ[15:8] |
//!   | 5–8   | credits returned: byte 5+v = EE packets of VC v the sender has delivered, modulo 256 (0 for v ≥ vcs) |
//!   | 9     | epoch of the sender: bumped whenever its EE transmission stops (Init received, link down, Discard received, timer retransmission) |
//!   | 10    | echo: the epoch of the packet answered (Init ACK: the Init's; FC: the Init ACK's; Exit Discard: the Clear Discard's), else 0 |
//!   | 11    | bit 0: the sender's EE transmission is enabled (`llr_state[2]`); bits 7–1 zero |
//!   | 12–15 | LL CRC: CRC-32/ISO-HDLC of bytes 0–11 XOR [`model::LL_CRC_XOR`], byte 12 = bits [7:0] |
//!
//!   A bit error anywhere, the marker included, is caught: the marker must be the same on every
//!   beat of a packet; an LL packet must be exactly 16 bytes, pass its CRC and carry a known
//!   opcode before it is acted on; an EE packet is delivered only after its ECRC passed. The XOR
//!   constant makes an intact LL packet fail the ECRC and an intact 16-byte EE packet fail the
//!   LL CRC, and no error of one or two bits (plus a flipped marker) turns one into the other
//!   (checked by a unit test). Without `ecrc_check`, EE payload errors are left to `phy_error`.
//!   A packet the PHY loses (framing) must be reported with `phy_error`: implicit sequence
//!   numbers cannot see a silently missing EE packet.
//! * VC: the link carries EE packets unchanged, so the VC travels inside them: bits
//!   [vc_bits−1:0] of byte 0 (the upper layer's header, covered by the ECRC) must equal
//!   `s_axis_tuser`; the receiver delivers it on `m_axis_tuser`.
//! * Flow control: `rx_credits` packets per VC (`vcs` of them, VC in `tuser`); both ends are
//!   built with the same value. The receiver keeps delivered-packet counts per VC modulo 256 and
//!   every LL packet carries them (cumulative, so a lost LL packet loses nothing); the sender
//!   consumes one credit per packet accepted into its retry buffer (never again for a resend).
//!   An LLR ACK is sent at every LLR timer expiry and after every `ack_every` packets delivered
//!   on `m_axis` (so credits return promptly; `ack_every` ≤ `rx_credits`).
//! * Retry buffer: `slots = retry_packets` slots of one maximum packet in block RAM
//!   (`retry_packets` set above `retry_bytes / max_packet_bytes` is refused; left unset it is
//!   `min(64, retry_bytes / max_packet_bytes)`); EE input suspends (`s_axis_tready` low) when every slot is
//!   used (at most 2^16 − 1) or the packet's VC has no credit.
//! * Resuming exactly once. With implicit sequence numbers a sender may only resume from an
//!   RSEQ the receiver reported *after* it saw everything sent before the stop, so every resume
//!   is a round trip answered by epoch: the sender stops EE transmission (bumping its epoch),
//!   sends a packet carrying the epoch, and resumes from the RSEQ of the answer that echoes it.
//!   Init exchange: an interface receiving an Init stops and answers Init ACK; the Init's sender
//!   resumes from that Init ACK's RSEQ if it echoes its epoch, and answers FC, from whose RSEQ
//!   the first one resumes (Init, Init ACK, FC: the seed's 3-way exchange; the FC enables EE
//!   packets). Error recovery: Discard stops the sender, its Clear Discard carries the epoch,
//!   the receiver's Exit Discard echoes it with RSEQ; a stale Exit (answering an earlier Clear)
//!   is ignored. The Clear Discard is repeated every `discard_interval_ui` while waiting (a lost
//!   Exit Discard would otherwise stall the sender), and the periodic Discard recovers a lost
//!   Clear Discard. The LLR timer's "3 periods unacknowledged" retransmission runs the same
//!   Clear/Exit handshake (a blind go-back would duplicate packets whose ACK was lost). After a
//!   retrain (`phy_up` low, then high) the Init exchange resumes delivery exactly once.
//! * Every waiting state repeats its request on the Init period, so one lost or corrupted
//!   link-local packet (reported by `phy_error` or silent) delays the exchange but never stalls
//!   it: `llr_state` init sends Init until an Init ACK arrives; up with EE transmission disabled
//!   (`llr_state[2]` clear: Init received, or the enabling Init ACK / FC lost) sends FC, which
//!   carries the sender's epoch and, in byte 11, that it waits; an interface answers every FC
//!   that says so with an FC echoing its epoch, from whose RSEQ the waiting end resumes. The
//!   repeat is an FC, not an Init: an Init stops the peer and bumps its epoch, so Inits repeated
//!   faster than the round trip (the seed's 8192 UI is shorter than a long cable's round trip)
//!   would keep invalidating the answers in flight; an FC stops nothing, and an end that is
//!   enabled (byte 11 set) is never answered, so the FCs end once both ends are enabled.
//! * The receiver accepts EE packets only while the link is up (the Init ACK answering an Init
//!   of this session arrived, so every beat the peer sent before a retrain is behind it) and
//!   it is not discarding; an intact EE packet refused while the link is in init is dropped
//!   without an error (the Init exchange's resume point lies before it). Any packet error (or
//!   `phy_error`) starts discarding.
//! * Order and ACKs: `m_axis` hands on packets in the order they arrived, across all VCs (one
//!   receive FIFO: a packet of one VC waits behind the packets of every VC ahead of it).
//!   `ack_every` counts packets delivered, i.e. whose last beat was taken on `m_axis`, not
//!   packets received: credits return as the upper layer consumes.
//! * Link output: `m_axis_link_tvalid` is the output register's valid AND `phy_up`, so no beat
//!   is presented (or taken) in a cycle `phy_up` is low, and nothing new is loaded then; the
//!   register is cleared when the link goes down. `cnt_ee_sent` counts an EE packet when the
//!   PHY takes its last beat for the first time, `cnt_ee_resent` every later time: a packet cut
//!   off by a link-down is counted once, when it is first taken whole. Every status counter
//!   shows its event one cycle after it (the increments are registered, so no counter's carry
//!   logic hangs off the control paths).
//!
//! [`model`] is the cycle-accurate reference model, [`rtl`] the generator.

pub mod model;
pub mod props;
pub mod rtl;

use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use model::{LlrConfig, LlrModel};
use serde::{Deserialize, Serialize};

pub struct GenzLlrKind;

static FIELDS: [FieldSpec; 14] = [
    FieldSpec { name: "data_bytes", ty: FieldType::UInt { min: 4, max: 8 }, default: Some("8"), doc: "bytes per beat of every stream, 4 or 8 (tdata is 8*data_bytes bits)" },
    FieldSpec { name: "max_packet_bytes", ty: FieldType::UInt { min: 4, max: 4096 }, default: Some("64"), doc: "longest EE packet (a multiple of data_bytes): one retry-buffer slot" },
    FieldSpec { name: "vcs", ty: FieldType::UInt { min: 1, max: 4 }, default: Some("2"), doc: "virtual channels, carried in tuser" },
    FieldSpec { name: "rx_credits", ty: FieldType::UInt { min: 1, max: 255 }, default: Some("4"), doc: "receive buffer per VC, in maximum packets (both ends use the same value)" },
    FieldSpec { name: "retry_bytes", ty: FieldType::UInt { min: 1, max: 1 << 24 }, default: Some("1024"), doc: "retry buffer RAM in bytes (cut into slots of max_packet_bytes)" },
    FieldSpec { name: "retry_packets", ty: FieldType::UInt { min: 1, max: 65535 }, default: Some("64"), doc: "retry-buffer slots: most EE packets kept unacknowledged (below 2^16: TSEQ/RSEQ are 16 bits); at most retry_bytes / max_packet_bytes (unset: 64, capped to that)" },
    FieldSpec { name: "ui_per_cycle", ty: FieldType::UInt { min: 1, max: 1 << 16 }, default: Some("64"), doc: "unit intervals per clock cycle (lanes x bits per lane per cycle)" },
    FieldSpec { name: "init_interval_ui", ty: FieldType::UInt { min: 1, max: 1 << 32 }, default: Some("8192"), doc: "LLR Init period until Init ACK (seed: 8192 UI)" },
    FieldSpec { name: "discard_interval_ui", ty: FieldType::UInt { min: 1, max: 1 << 32 }, default: Some("8192"), doc: "LLR Discard (and Clear Discard) period (seed: 8192 UI)" },
    FieldSpec { name: "discard_limit", ty: FieldType::UInt { min: 1, max: 65535 }, default: Some("256"), doc: "Discards without a Clear Discard before a retrain is requested (seed: 256)" },
    FieldSpec { name: "llrt_ui", ty: FieldType::UInt { min: 1, max: 1 << 40 }, default: Some("1048576"), doc: "LLR timer period (seed: 2^20 UI)" },
    FieldSpec { name: "ack_every", ty: FieldType::UInt { min: 1, max: 65535 }, default: Some("4"), doc: "an LLR ACK (returning credits) is also sent after this many EE packets delivered on m_axis; at most rx_credits" },
    FieldSpec { name: "ecrc_check", ty: FieldType::Bool, default: Some("true"), doc: "check the ECRC (last 4 bytes, CRC-32/ISO-HDLC) of every EE packet" },
    FieldSpec { name: "counter_bits", ty: FieldType::UInt { min: 1, max: 64 }, default: Some("32"), doc: "width of the saturating status counters" },
];

/// A validated `genz_llr` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenzLlrBlock {
    pub name: String,
    /// The parameters with `retry_packets` resolved (`b.vcs` reads the parameter).
    pub params: GenzLlrParams,
    /// The model's configuration the parameters resolve to: the intervals in cycles.
    pub cfg: LlrConfig,
}

impl std::ops::Deref for GenzLlrBlock {
    type Target = GenzLlrParams;
    fn deref(&self) -> &GenzLlrParams {
        &self.params
    }
}

impl GenzLlrBlock {
    pub fn model(&self) -> LlrModel {
        LlrModel::new(self.cfg.clone())
    }
}

/// The parameters of a `genz_llr` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenzLlrParams {
    pub data_bytes: u32,
    pub max_packet_bytes: u32,
    pub vcs: u32,
    pub rx_credits: u32,
    pub retry_bytes: u32,
    pub retry_packets: u32,
    pub ui_per_cycle: u64,
    pub init_interval_ui: u64,
    pub discard_interval_ui: u64,
    pub discard_limit: u32,
    pub llrt_ui: u64,
    pub ack_every: u32,
    pub ecrc_check: bool,
    pub counter_bits: u32,
}

impl KindParams for GenzLlrParams {
    const KIND: &'static str = "genz_llr";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl GenzLlrParams {
    /// The validated block named `name` (`retry_packets` counts as given: a module's own
    /// parameters carry the resolved slot count).
    pub fn block(&self, name: &str) -> ConfigResult<GenzLlrBlock> {
        self.validate(name, &|_| true)
    }

    /// The combinations the field ranges alone cannot express; `given(field)` says whether the
    /// design file set a field (an unset `retry_packets` is capped to what `retry_bytes` holds).
    pub fn validate(&self, name: &str, given: &dyn Fn(&str) -> bool) -> ConfigResult<GenzLlrBlock> {
        let error = |field: &str, problem: String| ConfigError::Field { block: name.to_string(), kind: Self::KIND, field: field.to_string(), problem };
        let p = self;
        let data_bytes = p.data_bytes;
        if data_bytes != 4 && data_bytes != 8 {
            return Err(error("data_bytes", format!("= {data_bytes}: a link-local packet is 16 bytes, whole beats of 4 or 8; allowed 4 or 8")));
        }
        let max_packet_bytes = p.max_packet_bytes;
        if !max_packet_bytes.is_multiple_of(data_bytes) {
            return Err(error("max_packet_bytes", format!("= {max_packet_bytes} is not a multiple of data_bytes = {data_bytes}; allowed multiples of {data_bytes} in 4..=4096")));
        }
        let retry_bytes = p.retry_bytes;
        if retry_bytes < max_packet_bytes {
            return Err(error("retry_bytes", format!("= {retry_bytes} is smaller than one maximum packet (max_packet_bytes = {max_packet_bytes}); allowed {max_packet_bytes}..=16777216")));
        }
        let fit = retry_bytes / max_packet_bytes;
        let retry_packets = if given("retry_packets") {
            let n = p.retry_packets;
            if n > fit {
                let need = n as u64 * max_packet_bytes as u64;
                let raise = if need <= 1 << 24 { format!(", or retry_bytes at least {need}") } else { String::new() };
                return Err(error(
                    "retry_packets",
                    format!("= {n} slots of max_packet_bytes = {max_packet_bytes} need {need} bytes, but retry_bytes = {retry_bytes} holds {fit}; allowed 1..={fit}{raise}"),
                ));
            }
            n
        } else {
            p.retry_packets.min(fit)
        };
        let upc = p.ui_per_cycle;
        let timer = |field: &str, ui: u64| -> ConfigResult<u32> {
            if ui < upc {
                return Err(error(field, format!("= {ui} UI is below one cycle (ui_per_cycle = {upc}); allowed {upc}..")));
            }
            let cycles = ui / upc;
            if cycles > u32::MAX as u64 {
                return Err(error(field, format!("= {ui} UI is {cycles} cycles; allowed at most 2^32 - 1 cycles ({} UI)", u32::MAX as u64 * upc)));
            }
            Ok(cycles as u32)
        };
        let init_cycles = timer("init_interval_ui", p.init_interval_ui)?;
        let discard_cycles = timer("discard_interval_ui", p.discard_interval_ui)?;
        let llrt_cycles = timer("llrt_ui", p.llrt_ui)?;
        if p.ack_every > p.rx_credits {
            return Err(error("ack_every", format!("= {} exceeds rx_credits = {}: a VC could wait a whole LLR timer period for its credits; allowed 1..={}", p.ack_every, p.rx_credits, p.rx_credits)));
        }
        let cfg = LlrConfig {
            data_bytes,
            max_packet_bytes,
            vcs: p.vcs,
            rx_credits: p.rx_credits,
            retry_bytes,
            retry_packets,
            ui_per_cycle: upc,
            init_interval_ui: p.init_interval_ui,
            discard_interval_ui: p.discard_interval_ui,
            llrt_ui: p.llrt_ui,
            init_cycles,
            discard_cycles,
            llrt_cycles,
            discard_limit: p.discard_limit,
            ack_every: p.ack_every,
            ecrc_check: p.ecrc_check,
            counter_bits: p.counter_bits,
        };
        Ok(GenzLlrBlock { name: name.to_string(), params: GenzLlrParams::of(&cfg), cfg })
    }

    /// The parameters of a validated configuration (its resolved `retry_packets`).
    pub fn of(c: &LlrConfig) -> GenzLlrParams {
        GenzLlrParams {
            data_bytes: c.data_bytes,
            max_packet_bytes: c.max_packet_bytes,
            vcs: c.vcs,
            rx_credits: c.rx_credits,
            retry_bytes: c.retry_bytes,
            retry_packets: c.retry_packets,
            ui_per_cycle: c.ui_per_cycle,
            init_interval_ui: c.init_interval_ui,
            discard_interval_ui: c.discard_interval_ui,
            discard_limit: c.discard_limit,
            llrt_ui: c.llrt_ui,
            ack_every: c.ack_every,
            ecrc_check: c.ecrc_check,
            counter_bits: c.counter_bits,
        }
    }
}

impl BlockKind for GenzLlrKind {
    fn kind(&self) -> &'static str {
        "genz_llr"
    }
    fn summary(&self) -> &'static str {
        "Gen-Z link-level reliability, one interface: implicit 16-bit TSEQ/RSEQ, retry buffer, Init exchange, Discard/Clear/Exit recovery, LLR timer, ECRC check, credits per VC"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        let params = read_params::<GenzLlrParams>(r)?;
        Ok(Box::new(params.validate(r.block(), &|f| r.is_set(f))?))
    }
}

impl Block for GenzLlrBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "genz_llr"
    }
    fn typed_params(&self) -> ParamList {
        self.params.to_list()
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        vec![format!("{}{}", design.prefix, self.name)]
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        vec![rtl::interface(self, design)]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
