//! Block kind `sue_endpoint`: one SUE instance port, the packer ([`crate::blocks::sue_packer`])
//! and the transport ([`crate::blocks::sue_transport`]) wired together (contract §4.6): the
//! packer's PDU stream feeds the transport, the transport's `tx_dest_ready` is the packer's
//! `dest_ok`, and the link partner's `tx_vc_pause` pauses both. Modules `<name>_packer`,
//! `<name>_transport` and the top `<name>`. The reference model is [`model::EndpointModel`].

pub mod model;
mod rtl;

use crate::blocks::protocol::sue::{SueCommon, TRANSPORT_COMMON_FIELDS, TRANSPORT_DATA_BYTES};
use crate::blocks::sue_packer::{PackerFields, SuePackerBlock, SuePackerParams, PACKER_FIELDS};
use crate::blocks::sue_transport::{SueTransportBlock, TransportFields, TRANSPORT_FIELDS};
use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::ConfigResult;
use crate::fields::{concat_fields, read_params, FieldReader, FieldSpec, KindParams, ParamList};
use model::EndpointModel;
use serde::{Deserialize, Serialize};

pub struct SueEndpointKind;

/// The shared fields, the packer's, then the transport's.
static FIELDS: [FieldSpec; 25] = concat_fields(concat_fields::<6, 2, 8>(TRANSPORT_COMMON_FIELDS, PACKER_FIELDS), TRANSPORT_FIELDS);

/// The parameters of a `sue_endpoint` block: the packer's and the transport's, sharing the
/// common SUE fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SueEndpointParams {
    #[serde(flatten)]
    pub common: SueCommon,
    #[serde(flatten)]
    pub packer: PackerFields,
    #[serde(flatten)]
    pub transport: TransportFields,
}

impl KindParams for SueEndpointParams {
    const KIND: &'static str = "sue_endpoint";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl SueEndpointParams {
    /// The validated block named `name` (its parts `<name>_packer`, `<name>_transport`).
    pub fn block(&self, name: &str) -> ConfigResult<SueEndpointBlock> {
        let common = &self.common;
        common.check(name, Self::KIND, &TRANSPORT_DATA_BYTES)?;
        self.packer.check(name, Self::KIND, common)?;
        let p = self.transport.resolve(name, Self::KIND, common)?;
        Ok(SueEndpointBlock {
            name: name.to_string(),
            params: SueEndpointParams { common: common.clone(), packer: self.packer.clone(), transport: p.fields() },
            packer_block: SuePackerBlock { name: format!("{name}_packer"), params: SuePackerParams { common: common.clone(), packer: self.packer.clone() } },
            transport_block: SueTransportBlock::new(&format!("{name}_transport"), common, p),
        })
    }
}

/// A validated `sue_endpoint` block: its parameters (`b.common` reads the shared fields; the
/// transport's as it resolves them) and, beside them, its two parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SueEndpointBlock {
    pub name: String,
    pub params: SueEndpointParams,
    /// `<name>_packer`, built from the common and the packer fields (beside `params.packer`,
    /// the fields as given).
    pub packer_block: SuePackerBlock,
    /// `<name>_transport`, built from the common and the transport fields (its automatic
    /// sizes resolved).
    pub transport_block: SueTransportBlock,
}

impl std::ops::Deref for SueEndpointBlock {
    type Target = SueEndpointParams;
    fn deref(&self) -> &SueEndpointParams {
        &self.params
    }
}

/// The packer's counters as the endpoint exposes them (`cnt_pk_*`).
pub const PACKER_COUNTERS: [(&str, &str); 7] = [
    ("cnt_cmd_in", "cnt_pk_cmd_in"),
    ("cnt_cmd_drop_framing", "cnt_pk_cmd_drop_framing"),
    ("cnt_cmd_drop_dest", "cnt_pk_cmd_drop_dest"),
    ("cnt_cmd_drop_vc", "cnt_pk_cmd_drop_vc"),
    ("cnt_cmd_drop_err", "cnt_pk_cmd_drop_err"),
    ("cnt_pdu_out", "cnt_pk_pdu_out"),
    ("cnt_cmd_out", "cnt_pk_cmd_out"),
];

impl SueEndpointBlock {
    pub fn model(&self) -> EndpointModel {
        EndpointModel::new(self)
    }

    /// TX latency, the module's `latency`: from the cycle a command's last beat is taken on
    /// `s_axis_cmd` (an idle endpoint, `m_axis_tx_tready` high, the VC not paused) to the cycle
    /// its PDU's first beat is valid on `m_axis_tx`: the packer's latency to the PDU's first
    /// beat, its other cmd_bytes / data_bytes − 1 beats (the transport stores a PDU whole),
    /// then the transport's latency from the PDU's last beat. Measured on the RTL by
    /// `sim/tests/sue_latency.rs`.
    pub fn tx_latency(&self) -> u32 {
        self.packer_block.latency() + self.common.cmd_beats() - 1 + self.transport_block.tx_latency()
    }

    /// RX latency: the transport's (received PDU's last beat taken → first command beat).
    pub fn rx_latency(&self) -> u32 {
        self.transport_block.rx_latency()
    }

    /// The module-doc lines: the endpoint's latencies, then the transport's notes but its
    /// latencies (the XPU id, the give-up rule and the wire format apply as they are).
    pub(crate) fn notes(&self) -> Vec<String> {
        let (pk, cb, tx) = (self.packer_block.latency(), self.common.cmd_beats(), self.transport_block.tx_latency());
        let mut n = vec![
            format!("TX latency {}: a command whose last beat is taken on s_axis_cmd in cycle T reaches an idle endpoint's m_axis_tx as the first beat of its PDU in T+{} = packer {pk} (the PDU's first beat leaves the packer in T+{pk}) + {} more PDU beat(s) of a one-command PDU (cmd_bytes / data_bytes = {cb}; the transport stores a PDU whole) + transport {tx} (from the PDU's last beat to its first beat on m_axis_tx). A longer PDU adds its extra beats.", self.tx_latency(), self.tx_latency(), cb - 1),
            format!("RX latency {}: as the transport's, from the last beat of a good in-order PDU taken on s_axis_rx to its first command beat on m_axis_cmd.", self.rx_latency()),
            "tx_vc_pause pauses both the packer's VC selection and the transport's PDU starts.".into(),
        ];
        n.extend(self.transport_block.notes().into_iter().skip(2));
        n
    }
}

impl BlockKind for SueEndpointKind {
    fn kind(&self) -> &'static str {
        "sue_endpoint"
    }
    fn summary(&self) -> &'static str {
        "SUE endpoint: sue_packer + sue_transport wired together (one port)"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        SueCommon::read_ranges(r, &TRANSPORT_DATA_BYTES)?;
        Ok(Box::new(read_params::<SueEndpointParams>(r)?.block(r.block())?))
    }
}

impl Block for SueEndpointBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "sue_endpoint"
    }
    fn typed_params(&self) -> ParamList {
        self.params.to_list()
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        vec![
            format!("{}{}_packer", design.prefix, self.name),
            format!("{}{}_transport", design.prefix, self.name),
            format!("{}{}", design.prefix, self.name),
        ]
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        let names = self.module_names(design);
        let mut out = self.packer_block.elaborate(design);
        out.extend(self.transport_block.elaborate(design));
        out.push(rtl::module(self, design, &names[0], &names[1], &names[2]));
        out
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(fields: &str) -> (SueEndpointBlock, ParamList) {
        let text = format!("[design]\nname = \"t\"\n[[blocks]]\nkind = \"sue_endpoint\"\nname = \"ep\"\n{fields}\n");
        let d = crate::config::Design::parse(&text, "t.toml").expect("valid");
        (d.blocks[0].as_any().downcast_ref::<SueEndpointBlock>().expect("an endpoint").clone(), d.blocks[0].typed_params())
    }

    /// The list is the table's fields in order (the id only with a constant source), typed as
    /// JSON, and it validates back into the same block, parts included.
    #[test]
    fn the_params_struct_is_the_field_table() {
        for (fields, has_id) in [("", false), ("xpuid_source = \"constant\"\nlocal_xpuid = 3\nnum_vc = 3\npsn_scope = \"dest_vc\"\nrcrc = \"crc32c\"\npartition_check = true", true)] {
            let (b, list) = endpoint(fields);
            let names: Vec<&str> = FIELDS.iter().map(|f| f.name).filter(|n| has_id || *n != "local_xpuid").collect();
            assert_eq!(list.iter().map(|(k, _)| *k).collect::<Vec<_>>(), names, "{fields}");
            let back = SueEndpointParams::from_list(&list).expect("deserialises").block("ep").expect("validates");
            assert_eq!(back, b, "{fields}");
            assert_eq!(back.packer_block.typed_params().len(), 8);
        }
        let (_, list) = endpoint("xpuid_source = \"constant\"\nlocal_xpuid = 3\nnum_vc = 3\npsn_scope = \"dest_vc\"\nrcrc = \"crc32c\"\npartition_check = true");
        for want in [("local_xpuid", serde_json::json!(3)), ("ack_vc", serde_json::json!(2)), ("psn_scope", serde_json::json!("dest_vc")), ("rcrc", serde_json::json!("crc32c")), ("partition_check", serde_json::json!(true)), ("rx_buf_bytes_per_vc", serde_json::json!(8192))] {
            assert!(list.contains(&want), "{want:?} in {list:?}");
        }
    }
}
