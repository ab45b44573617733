//! Block kind `sue_transport`: the SUE reliable transport of one port (seed §3.3, §4.2 steps 4,
//! 4a, 4b, 8, 8a, 8b; contract `specs/sue.md` §4.5). Packed payloads from the packer are stored in
//! per-{destination} retransmission slots in block RAM, sent with the 64-bit reliability header
//! (seed Table 3 widths, contract §4.2 layout) and an R-CRC (CRC-32 over RH + payload) computed
//! by XOR networks of the project's CRC model; cumulative ACKs ride in the RH of data PDUs or in
//! 12-byte control PDUs; one NACK per gap names the expected PSN and is re-sent after
//! `nack_timeout_cycles` while the gap persists; duplicates are re-ACKed; go-back-N on a NACK and
//! on a retransmission timeout; `peer_down` after `max_retries` consecutive timeouts. Received
//! PDUs are checked (frame error, shape, R-CRC, header, partition), delivered in order exactly
//! once per {source, VC} into per-VC receive buffers with pause outputs, and unpacked into
//! commands. `psn_scope = "dest_vc"` (our extension) keeps one PSN space per {destination, VC}.
//! The protocol rules are those of the untimed reference [`crate::blocks::protocol::sue::transport`]; the
//! cycle-accurate model is [`model::TransportModel`].

pub mod model;
mod props;
mod rtl;

use crate::blocks::protocol::sue::transport::PsnScope;
use crate::blocks::protocol::sue::wire::Rcrc;
use crate::blocks::protocol::sue::{field_error, SueCommon, MAX_STORAGE_BYTES, TRANSPORT_COMMON_FIELDS, TRANSPORT_DATA_BYTES};
use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::ConfigResult;
use crate::fields::{concat_fields, read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use model::TransportModel;
use serde::{Deserialize, Serialize};

pub struct SueTransportKind;

/// The transport's own fields, after the shared ones (the endpoint lists them too).
pub const TRANSPORT_FIELDS: [FieldSpec; 17] = [
    FieldSpec { name: "xpuid_source", ty: FieldType::Choice(&["port", "constant"]), default: Some("\"port\""), doc: "where this XPU's id (the RH xpuid sent) comes from: port = the local_xpuid input (a strap or register, so one module serves every XPU of a fabric; hold it while out of reset); constant = the local_xpuid field, fixed at generation" },
    FieldSpec { name: "local_xpuid", ty: FieldType::UInt { min: 0, max: 1023 }, default: Some("derived: xpuid_source: 0 with \"constant\", not set with \"port\""), doc: "this XPU's id with xpuid_source = \"constant\", sent as the RH xpuid; below num_xpu (not allowed with xpuid_source = \"port\")" },
    FieldSpec { name: "window", ty: FieldType::UInt { min: 1, max: 1024 }, default: Some("4"), doc: "PDUs per PSN space stored and unacknowledged (slots = next power of two, at least 2)" },
    FieldSpec { name: "psn_init", ty: FieldType::UInt { min: 0, max: 65535 }, default: Some("0"), doc: "PSN of the first PDU after reset, on both sides" },
    FieldSpec { name: "psn_scope", ty: FieldType::Choice(&["dest", "dest_vc"]), default: Some("\"dest\""), doc: "dest: one PSN space per {port, destination} (seed §4.2 step 4); dest_vc: one per {destination, VC} (our extension)" },
    FieldSpec { name: "rto_cycles", ty: FieldType::UInt { min: 64, max: 16_777_215 }, default: Some("8192"), doc: "retransmission timeout in cycles (our choice; the seed names no timer)" },
    FieldSpec { name: "max_retries", ty: FieldType::UInt { min: 0, max: 255 }, default: Some("0"), doc: "consecutive timeouts before peer_down; 0 = never give up" },
    FieldSpec { name: "ack_coalesce", ty: FieldType::UInt { min: 1, max: 1024 }, default: Some("1"), doc: "accepted PDUs from a peer that make an ACK due, 1..=window" },
    FieldSpec { name: "ack_delay_cycles", ty: FieldType::UInt { min: 0, max: 65535 }, default: Some("0"), doc: "cycles a pending ACK may wait for a piggyback before it is due; below rto_cycles" },
    FieldSpec { name: "nack_timeout_cycles", ty: FieldType::UInt { min: 16, max: 65535 }, default: Some("1024"), doc: "a NACK is re-sent after this many cycles while its gap persists (our choice)" },
    FieldSpec { name: "ack_vc", ty: FieldType::UInt { min: 0, max: 255 }, default: Some("derived: num_vc - 1"), doc: "VC of control PDUs (the acknowledgement class, seed §3.4.6)" },
    FieldSpec { name: "rcrc", ty: FieldType::Choice(&["crc32", "crc32c"]), default: Some("\"crc32\""), doc: "R-CRC model: CRC-32/ISO-HDLC or CRC-32/ISCSI" },
    FieldSpec { name: "version", ty: FieldType::UInt { min: 0, max: 3 }, default: Some("0"), doc: "RH ver sent and required" },
    FieldSpec { name: "partition", ty: FieldType::UInt { min: 0, max: 1023 }, default: Some("0"), doc: "RH partition sent" },
    FieldSpec { name: "partition_check", ty: FieldType::Bool, default: Some("false"), doc: "drop received PDUs whose partition differs" },
    FieldSpec { name: "rx_buf_bytes_per_vc", ty: FieldType::UInt { min: 0, max: 1_048_576 }, default: Some("0"), doc: "receive buffer per VC in payload bytes; 0 = 4 x max_pack_bytes" },
    FieldSpec { name: "rx_pause_bytes", ty: FieldType::UInt { min: 0, max: 1_048_576 }, default: Some("0"), doc: "rx_vc_pause while a VC's free space is below this; 0 = 2 x max_pack_bytes" },
];

static FIELDS: [FieldSpec; 23] = concat_fields(TRANSPORT_COMMON_FIELDS, TRANSPORT_FIELDS);

/// Where this XPU's id comes from (`xpuid_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum XpuidSource {
    /// The `local_xpuid` input port.
    Port,
    /// The `local_xpuid` field, fixed at generation.
    Constant,
}

/// The transport's own parameters as a design file gives them, [`TRANSPORT_FIELDS`] (part of
/// the endpoint's struct too); [`TransportFields::resolve`] validates them into
/// [`TransportParams`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransportFields {
    pub xpuid_source: XpuidSource,
    /// Only with `xpuid_source = "constant"` (0 when not set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_xpuid: Option<u32>,
    pub window: u32,
    pub psn_init: u32,
    pub psn_scope: PsnScope,
    pub rto_cycles: u32,
    pub max_retries: u32,
    pub ack_coalesce: u32,
    pub ack_delay_cycles: u32,
    pub nack_timeout_cycles: u32,
    /// `num_vc - 1` when not set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_vc: Option<u32>,
    pub rcrc: Rcrc,
    pub version: u32,
    pub partition: u32,
    pub partition_check: bool,
    /// 0 = 4 × max_pack_bytes.
    pub rx_buf_bytes_per_vc: u32,
    /// 0 = 2 × max_pack_bytes (at most the buffer).
    pub rx_pause_bytes: u32,
}

/// The parameters of a `sue_transport` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SueTransportParams {
    #[serde(flatten)]
    pub common: SueCommon,
    #[serde(flatten)]
    pub transport: TransportFields,
}

impl KindParams for SueTransportParams {
    const KIND: &'static str = "sue_transport";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl SueTransportParams {
    /// The validated block named `name`: the combinations the field ranges cannot express.
    pub fn block(&self, name: &str) -> ConfigResult<SueTransportBlock> {
        self.common.check(name, Self::KIND, &TRANSPORT_DATA_BYTES)?;
        let resolved = self.transport.resolve(name, Self::KIND, &self.common)?;
        Ok(SueTransportBlock::new(name, &self.common, resolved))
    }
}

/// The transport's validated own fields, defaults resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportParams {
    /// The id is the `local_xpuid` input port (`xpuid_source = "port"`), not a constant.
    pub xpuid_port: bool,
    /// The constant id (`xpuid_source = "constant"`); 0 and unused with the port.
    pub local_xpuid: u32,
    pub window: u32,
    pub psn_init: u32,
    pub psn_scope: PsnScope,
    pub rto_cycles: u32,
    pub max_retries: u32,
    pub ack_coalesce: u32,
    pub ack_delay_cycles: u32,
    pub nack_timeout_cycles: u32,
    pub ack_vc: u32,
    pub rcrc: Rcrc,
    pub version: u32,
    pub partition: u32,
    pub partition_check: bool,
    /// Resolved (0 = auto replaced).
    pub rx_buf_bytes_per_vc: u32,
    pub rx_pause_bytes: u32,
}

impl TransportFields {
    /// Cross-check the transport's own fields against the shared ones `c`, for block `block`
    /// of kind `kind` (the endpoint's too), and resolve the automatic values.
    pub fn resolve(&self, block: &str, kind: &'static str, c: &SueCommon) -> ConfigResult<TransportParams> {
        let err = |field: &str, problem: String| field_error(block, kind, field, problem);
        let xpuid_port = self.xpuid_source == XpuidSource::Port;
        if xpuid_port && self.local_xpuid.is_some() {
            return Err(err(
                "local_xpuid",
                "is set, but xpuid_source = \"port\" (the default) takes the id from the local_xpuid input port; remove local_xpuid, or set xpuid_source = \"constant\" to fix the id at generation".to_string(),
            ));
        }
        let local_xpuid = self.local_xpuid.unwrap_or(0);
        if local_xpuid >= c.num_xpu {
            return Err(err("local_xpuid", format!("= {local_xpuid} must be below num_xpu ({}); allowed 0..={}", c.num_xpu, c.num_xpu - 1)));
        }
        let TransportFields { window, psn_scope, rto_cycles, ack_coalesce, ack_delay_cycles, .. } = *self;
        let spaces = u64::from(c.num_xpu) * if psn_scope == PsnScope::DestVc { u64::from(c.num_vc) } else { 1 };
        let slots = u64::from(window).next_power_of_two().max(2);
        let storage = spaces * slots * u64::from(c.max_pack_bytes);
        if storage > MAX_STORAGE_BYTES {
            return Err(err(
                "window",
                format!(
                    "= {window}: retransmission storage num_xpu × slots × max_pack_bytes = {} exceeds the 16 MiB limit; reduce num_xpu, window or max_pack_bytes",
                    human_bytes(storage)
                ),
            ));
        }
        if ack_coalesce > window {
            return Err(err("ack_coalesce", format!("= {ack_coalesce} exceeds window ({window}): the sender would stall until ack_delay_cycles; allowed 1..={window}")));
        }
        if ack_delay_cycles >= rto_cycles {
            return Err(err(
                "ack_delay_cycles",
                format!("= {ack_delay_cycles} must be below rto_cycles ({rto_cycles}), else every delayed ACK arrives after a spurious timeout; allowed 0..={}", rto_cycles - 1),
            ));
        }
        let ack_vc = self.ack_vc.unwrap_or(c.num_vc - 1);
        if ack_vc >= c.num_vc {
            return Err(err("ack_vc", format!("= {ack_vc} must name an existing VC; allowed 0..={}", c.num_vc - 1)));
        }
        let mut rx_buf = self.rx_buf_bytes_per_vc;
        let min_buf = 2 * c.max_pack_bytes;
        if rx_buf != 0 && (rx_buf < min_buf || !rx_buf.is_multiple_of(c.data_bytes)) {
            return Err(err(
                "rx_buf_bytes_per_vc",
                format!("= {rx_buf} is too small; allowed 0 (auto) or {min_buf}..=1048576 in multiples of data_bytes (two maximum PDUs, so one can drain while the next arrives)"),
            ));
        }
        if rx_buf == 0 {
            rx_buf = 4 * c.max_pack_bytes;
        }
        let mut rx_pause = self.rx_pause_bytes;
        if rx_pause != 0 && (rx_pause < c.max_pack_bytes || rx_pause > rx_buf) {
            return Err(err("rx_pause_bytes", format!("= {rx_pause} is out of range; allowed 0 (auto) or {}..={rx_buf} (max_pack_bytes..=rx_buf_bytes_per_vc)", c.max_pack_bytes)));
        }
        if rx_pause == 0 {
            rx_pause = (2 * c.max_pack_bytes).min(rx_buf);
        }
        Ok(TransportParams {
            xpuid_port,
            local_xpuid,
            window,
            psn_init: self.psn_init,
            psn_scope,
            rto_cycles,
            max_retries: self.max_retries,
            ack_coalesce,
            ack_delay_cycles,
            nack_timeout_cycles: self.nack_timeout_cycles,
            ack_vc,
            rcrc: self.rcrc,
            version: self.version,
            partition: self.partition,
            partition_check: self.partition_check,
            rx_buf_bytes_per_vc: rx_buf,
            rx_pause_bytes: rx_pause,
        })
    }
}

fn human_bytes(n: u64) -> String {
    if n >= 1 << 30 && n.is_multiple_of(1 << 30) {
        format!("{} GiB", n >> 30)
    } else if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

impl TransportParams {
    /// The resolved values as a design file gives them (the id only with `"constant"`, the
    /// automatic values written out), which [`TransportFields::resolve`] takes back unchanged.
    pub fn fields(&self) -> TransportFields {
        TransportFields {
            xpuid_source: if self.xpuid_port { XpuidSource::Port } else { XpuidSource::Constant },
            local_xpuid: (!self.xpuid_port).then_some(self.local_xpuid),
            window: self.window,
            psn_init: self.psn_init,
            psn_scope: self.psn_scope,
            rto_cycles: self.rto_cycles,
            max_retries: self.max_retries,
            ack_coalesce: self.ack_coalesce,
            ack_delay_cycles: self.ack_delay_cycles,
            nack_timeout_cycles: self.nack_timeout_cycles,
            ack_vc: Some(self.ack_vc),
            rcrc: self.rcrc,
            version: self.version,
            partition: self.partition,
            partition_check: self.partition_check,
            rx_buf_bytes_per_vc: self.rx_buf_bytes_per_vc,
            rx_pause_bytes: self.rx_pause_bytes,
        }
    }
}

/// A validated `sue_transport` block: its parameters with the automatic values resolved
/// (`b.common` reads the shared fields), and the transport's own fields as validation resolved
/// them, typed for the generator and the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SueTransportBlock {
    pub name: String,
    pub params: SueTransportParams,
    /// The transport's own fields, defaults and automatic sizes resolved.
    pub resolved: TransportParams,
}

impl std::ops::Deref for SueTransportBlock {
    type Target = SueTransportParams;
    fn deref(&self) -> &SueTransportParams {
        &self.params
    }
}

impl SueTransportBlock {
    /// The block named `name` of the shared fields `common` and the resolved own fields (the
    /// endpoint builds its transport part so).
    pub fn new(name: &str, common: &SueCommon, resolved: TransportParams) -> SueTransportBlock {
        SueTransportBlock { name: name.to_string(), params: SueTransportParams { common: common.clone(), transport: resolved.fields() }, resolved }
    }

    pub fn model(&self) -> TransportModel {
        TransportModel::new(self)
    }

    /// The module, named `name` (the endpoint embeds it as `<name>_transport`).
    pub fn module(&self, design: &DesignInfo, name: &str) -> GeneratedModule {
        rtl::module(self, design, name)
    }

    /// TX latency, the module's `latency`: from the cycle the last beat of a PDU is taken on
    /// `s_axis_pdu` (an idle transport: nothing being sent or due, a free slot, the VC not
    /// paused, `m_axis_tx_tready` high) to the cycle its first beat is valid on `m_axis_tx`.
    /// The PDU is stored whole before it is decided: the tail is taken in T, the PDU is
    /// decided in T + 1 and its first beat presented in T + 2. Measured on the RTL by
    /// `sim/tests/sue_latency.rs`.
    pub fn tx_latency(&self) -> u32 {
        2
    }

    /// RX latency: from the cycle the last beat of a good in-order data PDU is taken on
    /// `s_axis_rx` to the cycle its first command beat is valid on `m_axis_cmd` (output idle
    /// and ready, the VC not paused). The checks are registered at tlast (T), the PDU is
    /// committed by the verdict in T + 1 and its first command beat read in T + 2, valid in
    /// T + 3. Measured with [`Self::tx_latency`].
    pub fn rx_latency(&self) -> u32 {
        3
    }

    /// What the RH xpuid carries, for the docs.
    pub fn xpuid_doc(&self) -> String {
        if self.resolved.xpuid_port {
            "the local_xpuid input".into()
        } else {
            format!("{} (local_xpuid, fixed at generation)", self.resolved.local_xpuid)
        }
    }

    /// The module-doc lines of the transport (the endpoint repeats them): latencies, the XPU
    /// id, give-up rule, wire format.
    pub fn notes(&self) -> Vec<String> {
        let p = &self.resolved;
        let mut n = vec![
            format!("TX latency {}: the last beat of a PDU taken on s_axis_pdu in cycle T reaches an idle transport's m_axis_tx as the PDU's first beat in T+{} (the PDU is stored whole in its slot in T, decided in T+1, its first beat presented in T+2); the next PDU is decided in the cycle its predecessor's tail is taken, so PDUs leave back to back.", self.tx_latency(), self.tx_latency()),
            "Window: a first beat on s_axis_pdu is taken when its PSN space has a free slot by a registered check (the slots in use a cycle ago, plus a PDU stored since): a slot freed by an ACK, or by the end of its read for a retransmission, is offered a cycle later; PDUs into a window with room are still taken back to back.".into(),
            format!("RX latency {}: the last beat of a good in-order data PDU taken on s_axis_rx in cycle T (the PDU's checks are registered at its tlast, its verdict commits it in T+1) gives its first command beat on m_axis_cmd in T+{} when that output is idle and its VC not paused.", self.rx_latency(), self.rx_latency()),
            if p.xpuid_port {
                "local_xpuid (input, 10 bits): this XPU's id, sent as the RH xpuid of every PDU and read when each PDU's RH is built; it must be below num_xpu (peers drop PDUs from an id >= num_xpu as header errors). Tie it to a strap or a register and change it only while rst is asserted: the peers keep their PSN state per source id.".into()
            } else {
                format!("The XPU id is fixed at generation (xpuid_source = \"constant\"): every RH carries xpuid {}.", p.local_xpuid)
            },
            if p.max_retries == 0 {
                "max_retries = 0: a PSN space never gives up. PDUs to an XPU that never answers are retransmitted every rto_cycles forever (go-back-N over the window, counted in cnt_tx_rto and cnt_tx_pdu_retx) and peer_down never rises; this is intended for a fabric that is lossless apart from bit errors, where a slow or paused peer must not be declared down. Set max_retries > 0 to bound it.".into()
            } else {
                format!("peer_down[d] rises after {} retransmission timeouts in a row on a PSN space to d (an ACK or NACK from d restarts the count); an acknowledgement acted on restarts the count; it is sticky until reset, tx_dest_ready[d] then stays low and PDUs offered to d are taken and dropped (cnt_tx_peer_down_drop).", p.max_retries + 1)
            },
        ];
        n.extend(crate::blocks::protocol::sue::wire::wire_notes(&crate::blocks::protocol::sue::wire::RhDoc {
            version: p.version,
            xpuid: &self.xpuid_doc(),
            ack_vc: p.ack_vc,
            partition: p.partition,
            partition_check: p.partition_check,
            rcrc: p.rcrc,
        }));
        n.push("The R-CRC is computed by XOR networks probed from the project's CRC model.".into());
        n.push("Same-edge precedence: a received ACK/NACK overrides the TX side's snd and suppresses a timeout; an RX accept stays pending over a TX clear.".into());
        n
    }

    /// PSN spaces per peer: 1 (seed) or num_vc (`psn_scope = "dest_vc"`).
    pub fn per_peer(&self) -> u32 {
        if self.resolved.psn_scope == PsnScope::DestVc {
            self.common.num_vc
        } else {
            1
        }
    }

    /// PSN spaces in all.
    pub fn spaces(&self) -> u32 {
        self.common.num_xpu * self.per_peer()
    }

    /// Retransmission slots per space: the window rounded up to a power of two, at least 2.
    pub fn slots(&self) -> u32 {
        self.resolved.window.next_power_of_two().max(2)
    }

    /// Beats per retransmission slot: max_pack_bytes / data_bytes rounded up to a power of two.
    pub fn slot_beats(&self) -> u32 {
        (self.common.max_pack_bytes / self.common.data_bytes)
            .next_power_of_two()
            .max(2)
    }

    /// Receive buffer beats per VC (accounted) and the RAM's per-VC size (a power of two).
    pub fn rx_beats(&self) -> u32 {
        self.resolved.rx_buf_bytes_per_vc / self.common.data_bytes
    }

    pub fn rx_ram_beats(&self) -> u32 {
        self.rx_beats().next_power_of_two()
    }

    /// PDUs a VC buffer can hold at most (one command each), rounded up to a power of two.
    pub fn rx_meta_depth(&self) -> u32 {
        (self.resolved.rx_buf_bytes_per_vc / self.common.cmd_bytes)
            .next_power_of_two()
            .max(2)
    }
}

/// Bits of slot metadata per retransmission slot: {cum[15:0], ncmds[9:0], vc[1:0]}.
pub const META_BITS: u32 = 28;

/// The state one PSN space keeps (the seed's claim that go-back-N keeps per-peer state small,
/// §4.2 4a): the registers the RTL declares per space, the slot metadata (a small memory) and
/// the payload slots (block RAM). [`SueTransportBlock::space_state`] computes it from the
/// elaborated fields; a unit test checks it against the registers of the generated module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpaceState {
    /// RX registers: expected PSN, four flags, `unacked`, ACK age (if `ack_delay_cycles` > 0),
    /// NACK age.
    pub rx_bits: u32,
    /// TX registers: next, hwm, snd, una, two 16-bit command counts, the RTO timer, retries,
    /// down.
    pub tx_bits: u32,
    /// Retransmission slots and their metadata bits ([`META_BITS`] each).
    pub slots: u32,
    pub meta_bits: u32,
    /// Payload bytes of the slots (block RAM).
    pub slot_bytes: u32,
}

impl SpaceState {
    /// Registers plus slot metadata, in bits (the payload RAM apart).
    pub fn bits(&self) -> u32 {
        self.rx_bits + self.tx_bits + self.meta_bits
    }
}

impl SueTransportBlock {
    /// The state of one PSN space (see [`SpaceState`]); a peer has [`Self::per_peer`] of them.
    pub fn space_state(&self) -> SpaceState {
        let p = &self.resolved;
        let bits_for = crate::hw::build::bits_for;
        let delay = if p.ack_delay_cycles > 0 { bits_for(u64::from(p.ack_delay_cycles)) } else { 0 };
        let slots = self.slots();
        SpaceState {
            // epsn, nsent, npend, apend (and aforce with an ACK delay), unacked, aage, nage.
            rx_bits: 16 + (if delay > 0 { 4 } else { 3 }) + bits_for(u64::from(p.ack_coalesce)) + delay + bits_for(u64::from(p.nack_timeout_cycles)),
            tx_bits: 6 * 16 + bits_for(u64::from(p.rto_cycles)) + 8 + 1,
            slots,
            meta_bits: slots * META_BITS,
            slot_bytes: slots * self.slot_beats() * self.common.data_bytes,
        }
    }
}

/// The F8 state table (Markdown): one row per transport, per PSN space and per endpoint
/// (`spaces()` of them): register bits, slot metadata bits, payload slot RAM.
pub fn state_table<'a>(rows: impl IntoIterator<Item = (&'a str, &'a SueTransportBlock)>) -> String {
    let mut s = String::from("| block | num_xpu | window | PSN spaces | RX bits / space | TX bits / space | slot metadata bits / space | state bits / peer (registers + metadata) | registers, whole transport (bits) | metadata, whole transport (bits) | payload slot RAM (KiB) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (name, b) in rows {
        let st = b.space_state();
        let ns = b.spaces();
        s += &format!(
            "| {name} | {} | {} | {ns} | {} | {} | {} ({} × {META_BITS}) | {} | {} | {} | {} |\n",
            b.common.num_xpu,
            b.resolved.window,
            st.rx_bits,
            st.tx_bits,
            st.meta_bits,
            st.slots,
            st.bits() * b.per_peer(),
            ns * (st.rx_bits + st.tx_bits),
            ns * st.meta_bits,
            ns * st.slot_bytes / 1024
        );
    }
    s
}

impl BlockKind for SueTransportKind {
    fn kind(&self) -> &'static str {
        "sue_transport"
    }
    fn summary(&self) -> &'static str {
        "SUE reliable transport: 64-bit RH, PSN per {port, destination} (or per {destination, VC}), R-CRC, retransmission slots in block RAM, go-back-N on NACK and timeout, cumulative ACKs, per-VC receive buffers with pause, in-order exactly-once unpacking, completions, peer_down"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        SueCommon::read_ranges(r, &TRANSPORT_DATA_BYTES)?;
        Ok(Box::new(read_params::<SueTransportParams>(r)?.block(r.block())?))
    }
}

impl Block for SueTransportBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "sue_transport"
    }
    fn typed_params(&self) -> ParamList {
        self.params.to_list()
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        vec![format!("{}{}", design.prefix, self.name)]
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        vec![self.module(design, &self.module_names(design)[0])]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::verilog::Item;

    fn block(fields: &str) -> (SueTransportBlock, DesignInfo) {
        let text = format!("[design]\nname = \"t\"\n[[blocks]]\nkind = \"sue_transport\"\nname = \"tp\"\n{fields}\n");
        let d = crate::config::Design::parse(&text, "state.toml").expect("valid");
        (d.blocks[0].as_any().downcast_ref::<SueTransportBlock>().expect("a transport").clone(), d.info)
    }

    /// `space_state` = the registers the generated module declares for space 0 (RX and TX
    /// apart) and its slice of the `meta` memory, over windows, XPU counts, PSN scopes and
    /// timers; the default `sue_ep` geometry gives the 39 + 117 bits + 4 × 28 of docs/protocol/sue.md.
    #[test]
    fn space_state_matches_the_declared_registers() {
        let base = "data_bytes = 16\ncmd_bytes = 32\nnum_vc = 2\nmax_pack_bytes = 256\nrto_cycles = 2048\nnack_timeout_cycles = 512";
        let rx = ["epsn", "nsent", "npend", "apend", "aforce", "unacked", "aage", "nage"];
        let mut seen = Vec::new();
        for (x, w, c, d, scope) in [(4, 4, 2, 64, "dest"), (8, 4, 2, 64, "dest"), (16, 4, 2, 64, "dest"), (4, 8, 2, 64, "dest"), (4, 16, 4, 64, "dest"), (4, 4, 1, 0, "dest_vc"), (3, 5, 5, 1000, "dest")] {
            let (b, design) = block(&format!("{base}\nnum_xpu = {x}\nwindow = {w}\nack_coalesce = {c}\nack_delay_cycles = {d}\npsn_scope = \"{scope}\""));
            let m = b.module(&design, "tp");
            let (mut rx_bits, mut tx_bits, mut meta) = (0, 0, 0);
            for item in &m.module.items {
                match item {
                    Item::Reg { name, width, .. } => {
                        if let Some(f) = name.strip_prefix("s0_") {
                            if rx.contains(&f) {
                                rx_bits += width;
                            } else {
                                tx_bits += width;
                            }
                        }
                    }
                    Item::Memory { name, width, depth, .. } if name == "meta" => meta = width * depth / b.spaces(),
                    _ => {}
                }
            }
            let st = b.space_state();
            assert_eq!((st.rx_bits, st.tx_bits, st.meta_bits), (rx_bits, tx_bits, meta), "num_xpu {x}, window {w}, coalesce {c}, delay {d}, {scope}");
            seen.push(st);
        }
        assert_eq!(seen[0], SpaceState { rx_bits: 39, tx_bits: 117, slots: 4, meta_bits: 112, slot_bytes: 1024 });
        assert_eq!(seen[4].slots, 16, "window 16: 16 slots");
        assert_eq!(seen[5].rx_bits, 16 + 3 + 1 + 10, "no ACK age or force register without a delay");
    }

    /// The state table (F8, docs/results/sue.md) of `designs/sue_variants.toml`:
    /// `cargo test -p rtl-gen --lib sue_variants_state_table -- --nocapture` prints it.
    #[test]
    fn sue_variants_state_table() {
        let d = crate::config::Design::parse(include_str!("../../../designs/sue_variants.toml"), "sue_variants.toml").expect("valid");
        let eps: Vec<&crate::blocks::sue_endpoint::SueEndpointBlock> = d.blocks.iter().map(|b| b.as_any().downcast_ref().expect("sue_endpoint blocks")).collect();
        let t = state_table(eps.iter().map(|e| (e.name.as_str(), &e.transport_block)));
        print!("{t}");
        assert_eq!(eps.len(), 5);
        assert!(t.contains("| x4_w4 | 4 | 4 | 4 | 39 | 117 | 112 (4 × 28) | 268 | 624 | 448 | 4 |"), "{t}");
        assert!(t.contains("| x4_w16 | 4 | 16 | 4 | 39 | 117 | 448 (16 × 28) | 604 | 624 | 1792 | 16 |"), "{t}");
        assert!(t.contains("| x16_w4 | 16 | 4 | 16 | 39 | 117 | 112 (4 × 28) | 268 | 2496 | 1792 | 16 |"), "{t}");
    }
}
