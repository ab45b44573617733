//! Block kind `rxl_endpoint`: a full-duplex RXL (implicit sequence number) or CXL 3.0 baseline
//! link endpoint for 256-byte flits: flit assembly with CRC and FEC, go-back-N replay, ACK
//! coalescing, in-order delivery.
//!
//! [`flit`] describes the flit and its codes, [`model`] the cycle-accurate behaviour, [`rtl`]
//! the module `<prefix><name>` and the sub-modules it instantiates, built through the other
//! kinds' generators: `<name>_replay` (replay_buffer), `<name>_crc` (rs_crc,
//! or crc for `crc = "crc64"`), `<name>_fec_enc`/`<name>_fec_dec` (rs_fec).

/// Register stages of the FEC decoder on the receive path: its syndromes, the error location,
/// its output register (at most 5 LUT6 levels each, both layouts).
pub const RX_FEC_STAGES: u32 = 3;

/// Receive stages ahead of the decision: the FEC decoder's, the CRC register, the check
/// register. A flit on `rx_flit` is decided on `RX_STAGES` cycles later.
pub const RX_STAGES: u32 = RX_FEC_STAGES + 2;

/// Cycles from `rx_flit` to `m_payload`: the receive stages and the delivery register.
pub const RX_LATENCY: u32 = RX_STAGES + 1;

/// Cycles from an endpoint's flit register to its own replay of that flit, beyond the channel
/// and switch latencies of the NACK's round trip: (the peer's) receive stages, decision, NACK
/// flit register, (our) receive stages, decision, control register, the replay buffer's
/// request register, its pointer jump, its RAM read, its RAM's output register.
pub const LOOP_OVERHEAD_CYCLES: u32 = 2 * RX_STAGES + 8;

pub mod flit;
pub mod model;
pub mod props;
pub mod rtl;

use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use model::{EndpointConfig, EndpointModel, Mode};

pub struct RxlEndpointKind;

static FIELDS: [FieldSpec; 9] = [
    FieldSpec {
        name: "mode",
        ty: FieldType::Choice(&["rxl", "cxl_baseline"]),
        default: Some("\"rxl\""),
        doc: "rxl: SeqNum folded into the CRC (ISN), FSN only carries AckNums; cxl_baseline: FSN carries SeqNum or AckNum, CRC without SeqNum",
    },
    FieldSpec {
        name: "crc",
        ty: FieldType::Choice(&["rs_crc", "crc64"]),
        default: Some("\"rs_crc\""),
        doc: "flit CRC in bytes 242-249: the PCIe 6.0 GF(2^8) flit CRC (rs_crc) or CRC-64/ECMA-182 (crc)",
    },
    FieldSpec { name: "fec", ty: FieldType::Choice(&["pcie6", "generic"]), default: Some("\"pcie6\""), doc: "FEC layout of bytes 250-255 (rs_fec)" },
    FieldSpec { name: "replay_depth", ty: FieldType::UInt { min: 2, max: 1023 }, default: Some("256"), doc: "flits kept for go-back-N replay until acknowledged (10-bit sequence numbers)" },
    FieldSpec { name: "ack_every", ty: FieldType::UInt { min: 1, max: 255 }, default: Some("10"), doc: "an ACK is piggybacked after this many delivered flits (p_coalescing = 1/ack_every)" },
    FieldSpec { name: "ack_timeout", ty: FieldType::UInt { min: 1, max: 65535 }, default: Some("64"), doc: "cycles after which fewer delivered flits are acknowledged anyway" },
    FieldSpec { name: "nack_timeout", ty: FieldType::UInt { min: 1, max: 65535 }, default: Some("512"), doc: "cycles of discarding after which the NACK is sent again (should exceed the retry loop)" },
    FieldSpec { name: "replay_timeout", ty: FieldType::UInt { min: 1, max: 65535 }, default: Some("1024"), doc: "cycles without ACK/NACK, flits held, after which the sender replays from the oldest" },
    FieldSpec { name: "counter_bits", ty: FieldType::UInt { min: 1, max: 64 }, default: Some("32"), doc: "width of the saturating status counters" },
];

/// A validated `rxl_endpoint` block: its parameters, read through it (`b.mode`, `b.replay_depth`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxlEndpointBlock {
    pub name: String,
    pub params: RxlEndpointParams,
}

impl std::ops::Deref for RxlEndpointBlock {
    type Target = RxlEndpointParams;
    fn deref(&self) -> &RxlEndpointParams {
        &self.params
    }
}

impl RxlEndpointBlock {
    pub fn model(&self) -> EndpointModel {
        EndpointModel::new(self.params.clone())
    }

    pub fn mode_name(&self) -> &'static str {
        match self.mode {
            Mode::Rxl => "rxl",
            Mode::CxlBaseline => "cxl_baseline",
        }
    }

    /// Banner/doc lines: the header layout and the protocol in brief.
    pub fn notes(&self) -> Vec<String> {
        let rxl = self.mode == Mode::Rxl;
        let mut n = vec![
            "Flit, byte 0 first: bytes 0-1 header (little-endian word: [9:0] FSN, [11:10] ReplayCmd 0 none / 1 ACK / 2 NACK, [15:12] type 0 idle-control / 1 payload), 2-241 payload, 242-249 CRC over bytes 0-241, 250-255 FEC over bytes 0-249.".into(),
            format!("Latency: rx_flit to m_payload {RX_LATENCY} cycles (the FEC decoder's {RX_FEC_STAGES} stages, the CRC register, the check register, the delivery register); s_payload to tx_flit 4 cycles when the link was idle (replay-buffer RAM read, its output register, flit register)."),
            "TX: one flit per cycle whenever tx_ready; payload flits from the replay buffer in SeqNum order, otherwise idle/control flits (type 0, no SeqNum, CRC with sequence number 0). A NACK (ReplayCmd 2, FSN = last good SeqNum) makes the peer free up to FSN and replay from FSN + 1; an ACK frees up to FSN.".into(),
        ];
        if rxl {
            n.push("rxl: the check stage compares the received CRC against the CRC with ESeqNum and with ESeqNum + 1 (the sequence number's contribution is XORed onto the CRC register), and the decision uses the second when it delivered a flit the cycle before: ESeqNum advanced after the comparison. Every path stays within 5 LUT6 levels while a flit is taken every cycle.".into());
            n.push("rxl: FSN = AckNum (ESeqNum - 1) when ReplayCmd != 0, else 0; the CRC of a payload flit has its SeqNum XORed into data[9:0] (ISN), so a receiver checking with ESeqNum sees a dropped predecessor as a CRC failure. A NACK goes out in a control flit of its own (piggybacked it would need the peer's ESeqNum to be checked).".into());
            n.push("RX (rxl): good = FEC correctable and CRC ok; a good payload flit is delivered and ESeqNum advances; any other flit starts discarding: every flit is dropped until the expected one passes, one NACK is sent (again every nack_timeout cycles while discarding).".into());
        } else {
            n.push("cxl_baseline: FSN = SeqNum on payload flits with ReplayCmd 0, AckNum (ESeqNum - 1) when ReplayCmd != 0; CRC without sequence number. The first payload flit of a replay never piggybacks, so it always carries its SeqNum.".into());
            n.push("RX (cxl_baseline): a good payload flit with ReplayCmd 0 is delivered if FSN == ESeqNum, otherwise discarding starts and a NACK is sent; one with ReplayCmd != 0 carries no SeqNum and is delivered unchecked unless discarding (the weakness of Fig. 4 of the RXL paper: after a silent drop it is delivered out of order).".into());
        }
        n.push(format!(
            "ACK coalescing: an ACK is piggybacked once ack_every = {} flits were delivered since the last ACK/NACK, or when some were and ack_timeout = {} cycles passed. Replay timeout: {} cycles without ACK/NACK while flits are held replays from the oldest.",
            self.ack_every, self.ack_timeout, self.replay_timeout
        ));
        n.push("A received ACK/NACK reaches the replay buffer one cycle after the decision (ctl register), which judges it the cycle after (its request register); a NACK's first replayed flit is in the flit register five cycles after the NACK's decision. Counters saturate at 2^counter_bits - 1.".into());
        n
    }
}

impl BlockKind for RxlEndpointKind {
    fn kind(&self) -> &'static str {
        "rxl_endpoint"
    }
    fn summary(&self) -> &'static str {
        "RXL (implicit sequence number) or CXL 3.0 baseline link endpoint for 256-byte flits: CRC + FEC, go-back-N replay, ACK coalescing, in-order delivery"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        Ok(Box::new(read_params::<RxlEndpointParams>(r)?.block(r.block())?))
    }
}

/// The parameters of an `rxl_endpoint` block, named and typed as [`FIELDS`] lists them: the
/// endpoint's configuration itself (every field is one of the model's settings).
pub type RxlEndpointParams = EndpointConfig;

impl KindParams for EndpointConfig {
    const KIND: &'static str = "rxl_endpoint";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl EndpointConfig {
    /// The validated block named `name`: the combinations the field ranges cannot express.
    pub fn block(&self, name: &str) -> ConfigResult<RxlEndpointBlock> {
        let error = |field: &str, problem: String| ConfigError::Field { block: name.to_string(), kind: Self::KIND, field: field.to_string(), problem };
        let EndpointConfig { replay_depth, ack_every, ack_timeout, replay_timeout, .. } = *self;
        if ack_every >= replay_depth {
            return Err(error("ack_every", format!("= {ack_every} is not below replay_depth = {replay_depth}: the buffer would fill before an ACK is due; allowed 1..={}", (replay_depth - 1).min(255))));
        }
        if replay_timeout <= ack_timeout {
            return Err(error(
                "replay_timeout",
                format!("= {replay_timeout} is not above ack_timeout = {ack_timeout}: the sender would replay before the receiver acknowledges; allowed {}..=65535", ack_timeout + 1),
            ));
        }
        Ok(RxlEndpointBlock { name: name.to_string(), params: self.clone() })
    }
}

impl Block for RxlEndpointBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "rxl_endpoint"
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
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
