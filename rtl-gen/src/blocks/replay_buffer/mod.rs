//! Block kind `replay_buffer`: a go-back-N retransmission buffer.
//!
//! Entries are pushed in order and numbered with consecutive `seq_bits`-bit sequence numbers
//! (`push_seq`). They stay stored until acknowledged (`ack_seq` frees every entry up to and
//! including it) and stream out in order (`out_*`); `replay_seq` rewinds that stream so the
//! entries from `replay_seq` on are sent again. Storage is one block RAM (write port + a
//! synchronous, registered read port), addressed by the low bits of the sequence number.
//!
//! The cycle-accurate reference model is [`model::ReplayBufferModel`].

pub mod model;
mod props;
mod rtl;

use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use serde::{Deserialize, Serialize};
use model::ReplayBufferModel;

pub struct ReplayBufferKind;

/// Largest `depth`: 4096 entries (a 2048-bit flit buffer of that depth is 8 Mbit of RAM).
pub const MAX_DEPTH: u64 = 4096;

static FIELDS: [FieldSpec; 3] = [
    FieldSpec { name: "entry_bits", ty: FieldType::UInt { min: 1, max: 16384 }, default: None, doc: "bits per entry (push_data, out_data)" },
    FieldSpec { name: "seq_bits", ty: FieldType::UInt { min: 2, max: 16 }, default: None, doc: "sequence number width; sequence numbers wrap modulo 2^seq_bits" },
    FieldSpec { name: "depth", ty: FieldType::UInt { min: 2, max: MAX_DEPTH }, default: None, doc: "entries held until acknowledged; at most 2^seq_bits - 1 so a window never wraps" },
];

/// The parameters of a `replay_buffer` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayBufferParams {
    pub entry_bits: u32,
    pub seq_bits: u32,
    pub depth: u32,
}

impl KindParams for ReplayBufferParams {
    const KIND: &'static str = "replay_buffer";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl ReplayBufferParams {
    /// The validated block named `name`: the combinations the field ranges cannot express.
    pub fn block(&self, name: &str) -> ConfigResult<ReplayBufferBlock> {
        let ReplayBufferParams { seq_bits, depth, .. } = *self;
        let max = (1u64 << seq_bits) - 1;
        if u64::from(depth) > max {
            return Err(ConfigError::Field {
                block: name.to_string(),
                kind: Self::KIND,
                field: "depth".into(),
                problem: format!("= {depth} exceeds 2^seq_bits - 1 = {max} (seq_bits = {seq_bits}): the sequence numbers of the stored entries would wrap; allowed 2..={}", max.min(MAX_DEPTH)),
            });
        }
        Ok(ReplayBufferBlock { name: name.to_string(), params: self.clone() })
    }
}

/// A validated `replay_buffer` block: its parameters under a name (`b.depth` reads the
/// parameter); nothing is derived beyond the RAM shape its methods compute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayBufferBlock {
    pub name: String,
    pub params: ReplayBufferParams,
}

impl std::ops::Deref for ReplayBufferBlock {
    type Target = ReplayBufferParams;
    fn deref(&self) -> &ReplayBufferParams {
        &self.params
    }
}

impl ReplayBufferBlock {
    /// Address bits of the RAM: ⌈log2 depth⌉.
    pub fn addr_bits(&self) -> u32 {
        u32::BITS - (self.depth - 1).leading_zeros()
    }

    /// RAM entries: depth rounded up to a power of two, so the low sequence-number bits address
    /// it directly (the entries in flight have `depth` consecutive numbers, hence distinct
    /// addresses).
    pub fn ram_entries(&self) -> u32 {
        1 << self.addr_bits()
    }

    pub fn model(&self) -> ReplayBufferModel {
        ReplayBufferModel::new(self.entry_bits, self.seq_bits, self.depth)
    }

    /// The module, named `name`, for blocks that embed a replay buffer in their own design.
    pub fn module(&self, design: &DesignInfo, name: &str) -> GeneratedModule {
        rtl::module(self, design, name)
    }
}

impl BlockKind for ReplayBufferKind {
    fn kind(&self) -> &'static str {
        "replay_buffer"
    }
    fn summary(&self) -> &'static str {
        "go-back-N retransmission buffer: numbered pushes, cumulative acks, replay from a sequence number, block-RAM storage"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        Ok(Box::new(read_params::<ReplayBufferParams>(r)?.block(r.block())?))
    }
}

impl Block for ReplayBufferBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "replay_buffer"
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
        let b = ReplayBufferBlock { name: "r".into(), params: ReplayBufferParams { entry_bits: 72, seq_bits: 8, depth: 100 } };
        let list = b.typed_params();
        assert_eq!(list.iter().map(|(k, _)| *k).collect::<Vec<_>>(), FIELDS.iter().map(|f| f.name).collect::<Vec<_>>());
        assert_eq!(ReplayBufferParams::from_list(&list).expect("deserialises").block("r").expect("validates"), b);
    }
}
