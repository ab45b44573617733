//! Block kind `sue_packer`: the SUE mapping and packing layer (seed §1.2, §3.3, §4.2 steps 2–3,
//! §4.4). Commands (fixed `cmd_bytes`, `tlast` on the last beat) are queued per {destination,
//! VC} in one inferred block RAM; a two-level round robin (VCs, then destinations within the
//! VC, seed §4.2 step 3) picks an eligible queue and packs up to `max_pack_bytes` of its
//! commands (≤ 4096, seed §3.3) into one PDU payload. With the default `hold_cycles = 0` the
//! packer never waits to pack: "If a destination queue has a single transaction, the
//! transaction is sent. SUE does not delay transactions for reasons of packing" (seed §4.4).
//! `hold_cycles > 0` is our extension (contract §4.4): a queue short of a full PDU may wait that
//! many cycles unless a command with the flush bit (the seed's "transmit without waiting",
//! §4.2 step 2) is queued.
//!
//! Timing: a command committed in cycle T to an idle packer starts its PDU in T+3 (commit event,
//! grant, PDU start and RAM read: one pipeline stage each, so no register-to-register path
//! crosses more than one of them); the next queue is granted while the current PDU is sent, so
//! PDUs follow each other with no idle cycle; one beat per cycle in and out.
//! The cycle-accurate reference model is [`model::PackerModel`].

pub mod model;
mod props;
pub(crate) mod rtl;

use crate::blocks::protocol::sue::{field_error, SueCommon, COMMON_FIELDS, DATA_BYTES, MAX_STORAGE_BYTES};
use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::ConfigResult;
use crate::fields::{concat_fields, read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use model::PackerModel;
use serde::{Deserialize, Serialize};

pub struct SuePackerKind;

/// The packer's own fields (the endpoint lists them too, after the shared ones).
pub const PACKER_FIELDS: [FieldSpec; 2] = [
    FieldSpec { name: "queue_depth", ty: FieldType::UInt { min: 1, max: 1024 }, default: Some("32"), doc: "commands per {destination, VC} queue (RAM rounded up to a power of two)" },
    FieldSpec {
        name: "hold_cycles",
        ty: FieldType::UInt { min: 0, max: 65535 },
        default: Some("0"),
        doc: "0 = never wait to pack (seed §4.4); > 0 = our extension: a queue short of a full PDU may wait this many cycles for more commands unless flushed",
    },
];

static FIELDS: [FieldSpec; 8] = concat_fields(COMMON_FIELDS, PACKER_FIELDS);

/// The packer's own parameters, [`PACKER_FIELDS`] (part of the endpoint's struct too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackerFields {
    pub queue_depth: u32,
    pub hold_cycles: u32,
}

impl PackerFields {
    /// The storage bound over the shared fields, for block `block` of kind `kind`.
    pub fn check(&self, block: &str, kind: &'static str, common: &SueCommon) -> ConfigResult<()> {
        let queue_depth = self.queue_depth;
        let storage = u64::from(common.num_queues()) * u64::from(queue_depth) * u64::from(common.cmd_bytes);
        if storage > MAX_STORAGE_BYTES {
            return Err(field_error(
                block,
                kind,
                "queue_depth",
                format!(
                    "= {queue_depth} makes the packer storage num_xpu × num_vc × queue_depth × cmd_bytes = {storage} bytes, over the 16 MiB limit; allowed 1..={}",
                    (MAX_STORAGE_BYTES / (u64::from(common.num_queues()) * u64::from(common.cmd_bytes))).max(1)
                ),
            ));
        }
        Ok(())
    }
}

/// The parameters of a `sue_packer` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuePackerParams {
    #[serde(flatten)]
    pub common: SueCommon,
    #[serde(flatten)]
    pub packer: PackerFields,
}

impl KindParams for SuePackerParams {
    const KIND: &'static str = "sue_packer";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl SuePackerParams {
    /// The validated block named `name`: the combinations the field ranges cannot express.
    pub fn block(&self, name: &str) -> ConfigResult<SuePackerBlock> {
        self.common.check(name, Self::KIND, &DATA_BYTES)?;
        self.packer.check(name, Self::KIND, &self.common)?;
        Ok(SuePackerBlock { name: name.to_string(), params: self.clone() })
    }
}

/// A validated `sue_packer` block: its parameters under a name (`b.common.num_vc`,
/// `b.packer.queue_depth` read the parameters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuePackerBlock {
    pub name: String,
    pub params: SuePackerParams,
}

impl std::ops::Deref for SuePackerBlock {
    type Target = SuePackerParams;
    fn deref(&self) -> &SuePackerParams {
        &self.params
    }
}

impl SuePackerBlock {
    pub fn model(&self) -> PackerModel {
        PackerModel::new(self)
    }

    /// The module's `latency`: from the cycle a command's last beat is taken on `s_axis_cmd`
    /// (an idle packer, `dest_ok` set and the VC not paused, `m_axis_pdu_tready` high) to the
    /// cycle its PDU's first beat is valid on `m_axis_pdu`: the command is committed in T
    /// (registered as an event), its queue granted in T + 1, its PDU started (commands counted
    /// out) and first beat read out of the RAM in T + 2, presented in T + 3. Measured on the RTL
    /// by `sim/tests/sue_latency.rs`.
    pub fn latency(&self) -> u32 {
        3
    }

    /// The module, named `name` (the endpoint embeds it as `<name>_packer`).
    pub fn module(&self, design: &DesignInfo, name: &str) -> GeneratedModule {
        rtl::module(self, design, name)
    }
}

impl BlockKind for SuePackerKind {
    fn kind(&self) -> &'static str {
        "sue_packer"
    }
    fn summary(&self) -> &'static str {
        "SUE packer: per-{destination, VC} command queues in block RAM, two-level round robin, packs up to max_pack_bytes per PDU, never waits by default"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        SueCommon::read_ranges(r, &DATA_BYTES)?;
        Ok(Box::new(read_params::<SuePackerParams>(r)?.block(r.block())?))
    }
}

impl Block for SuePackerBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "sue_packer"
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

    #[test]
    fn the_params_struct_is_the_field_table() {
        let d = crate::config::Design::parse("[design]\nname = \"t\"\n[[blocks]]\nkind = \"sue_packer\"\nname = \"pk\"\nhold_cycles = 5\n", "t.toml").expect("valid");
        let list = d.blocks[0].typed_params();
        assert_eq!(list.iter().map(|(k, _)| *k).collect::<Vec<_>>(), FIELDS.iter().map(|f| f.name).collect::<Vec<_>>());
        assert!(list.contains(&("hold_cycles", serde_json::json!(5))), "{list:?}");
        let back = SuePackerParams::from_list(&list).expect("deserialises").block("pk").expect("validates");
        assert_eq!(Some(&back), d.blocks[0].as_any().downcast_ref::<SuePackerBlock>());
    }
}
