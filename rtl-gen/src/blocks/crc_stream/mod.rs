//! Block kind `crc_stream`: the CRC of messages of any length arriving as beats of
//! `word_bytes` bytes, one beat per cycle, back to back.
//!
//! The loop handles a whole beat every cycle: `state' = A·(first ? init : state) ⊕ B·beat`, with
//! the invalid bytes of a partial last beat zeroed. Zero bytes fed after the message multiply the
//! register by `x^(8·pad)` mod P, so the pipeline behind the loop divides it back out with
//! `⌈log2 word_bytes⌉` conditional multiplications by `x^(-8·2^j)`: one loop network instead of
//! one per `in_keep` pattern. `x` is invertible mod P exactly when P has its `x^0` term, which is
//! therefore required for word_bytes > 1 (every published CRC has it).

pub mod model;
pub mod props;
mod rtl;

use crate::blocks::crc::model::CrcAlgo;
use crate::blocks::crc::{AlgoParams, ALGO_FIELDS};
use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use serde::{Deserialize, Serialize};

pub struct CrcStreamKind;

static FIELDS: [FieldSpec; 7] = [
    ALGO_FIELDS[0],
    ALGO_FIELDS[1],
    ALGO_FIELDS[2],
    ALGO_FIELDS[3],
    ALGO_FIELDS[4],
    ALGO_FIELDS[5],
    FieldSpec { name: "word_bytes", ty: FieldType::UInt { min: 1, max: 128 }, default: None, doc: "bytes per beat; in_data is 8*word_bytes bits" },
];

/// The parameters of a `crc_stream` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrcStreamParams {
    #[serde(flatten)]
    pub algo: AlgoParams,
    pub word_bytes: u32,
}

impl KindParams for CrcStreamParams {
    const KIND: &'static str = "crc_stream";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl CrcStreamParams {
    /// The validated block named `name`: the combinations the field ranges cannot express.
    pub fn block(&self, name: &str) -> ConfigResult<CrcStreamBlock> {
        let error = |field: &str, problem: String| ConfigError::Field { block: name.to_string(), kind: "crc_stream", field: field.to_string(), problem };
        let algo = self.algo.algo(error)?;
        let word_bytes = self.word_bytes;
        if word_bytes > 1 && algo.poly & 1 == 0 {
            return Err(error(
                "poly",
                format!("= 0x{:X} has no x^0 term; crc_stream with word_bytes > 1 needs an odd polynomial (bit 0 set) to undo the zero padding of a partial last beat", algo.poly),
            ));
        }
        Ok(CrcStreamBlock { name: name.to_string(), params: self.clone(), algo })
    }
}

/// A validated `crc_stream` block: its parameters under a name (`b.word_bytes` reads the
/// parameter) and the algorithm they give.
#[derive(Debug, Clone)]
pub struct CrcStreamBlock {
    pub name: String,
    pub params: CrcStreamParams,
    /// The validated algorithm of `params.algo`.
    pub algo: CrcAlgo,
}

impl std::ops::Deref for CrcStreamBlock {
    type Target = CrcStreamParams;
    fn deref(&self) -> &CrcStreamParams {
        &self.params
    }
}

impl CrcStreamBlock {
    /// The beat-level reference model.
    pub fn model(&self) -> model::CrcStreamModel {
        model::CrcStreamModel::new(self.algo, self.word_bytes)
    }

    /// Conditional un-shift steps behind the loop: ⌈log2 word_bytes⌉.
    pub fn unshift_steps(&self) -> u32 {
        u32::BITS - (self.word_bytes - 1).leading_zeros()
    }

    /// Cycles from the beat with `in_last` to `crc_valid`: the loop register plus one register
    /// per two un-shift steps.
    pub fn latency(&self) -> u32 {
        1 + self.unshift_steps().div_ceil(2)
    }
}

impl BlockKind for CrcStreamKind {
    fn kind(&self) -> &'static str {
        "crc_stream"
    }
    fn summary(&self) -> &'static str {
        "CRC of messages of any length over beats of word_bytes bytes (in_keep on the last beat), back to back"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        Ok(Box::new(read_params::<CrcStreamParams>(r)?.block(r.block())?))
    }
}

impl Block for CrcStreamBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "crc_stream"
    }
    fn typed_params(&self) -> ParamList {
        self.params.to_list()
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        vec![format!("{}{}", design.prefix, self.name)]
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        vec![rtl::module(self, design, &self.module_names(design)[0])]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Design;

    #[test]
    fn the_params_struct_is_the_field_table() {
        let text = "[design]\nname = \"d\"\n[[blocks]]\nkind = \"crc_stream\"\nname = \"s\"\nwidth = 32\npoly = 0x04C11DB7\nword_bytes = 8\n";
        let d = Design::parse(text, "test").expect("valid");
        let list = d.blocks[0].typed_params();
        let keys: Vec<&str> = list.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, FIELDS.iter().map(|f| f.name).collect::<Vec<_>>());
        let b = CrcStreamParams::from_list(&list).expect("deserialises").block("s").expect("validates");
        assert_eq!((b.algo.poly, b.word_bytes), (0x04C1_1DB7, 8));
    }
}
