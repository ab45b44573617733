//! Block kind `async_fifo`: a first-word-fall-through FIFO between two unrelated clocks, built
//! from the CDC kit (`hw::cdc`).
//!
//! The write side (`wr_clk`) and the read side (`rd_clk`) each keep a binary pointer and its Gray
//! code; each Gray pointer crosses into the other domain through a `sync_stages`-flop
//! synchronizer and nothing else crosses but the storage (LUT RAM written on `wr_clk`, read
//! asynchronously by the read side at an address whose word the synchronized pointers prove
//! written and stable). `wr_full` and `rd_empty` are registered from the next pointers, so they
//! are glitch-free flops of their own domain.
//!
//! Latency (S = `sync_stages`): a word written at a `wr_clk` edge makes `rd_empty` fall at the
//! (S+1)-th `rd_clk` edge after it (the write pointer needs S read edges through the
//! synchronizer, the flag one more); a read at an `rd_clk` edge that frees the last slot makes
//! `wr_full` fall at the (S+1)-th `wr_clk` edge after it. In hardware an edge of the other clock
//! that falls within the sampling window of the first stage may count or not, so each figure can
//! be one cycle more. The levels are conservative: `wr_level` counts words not yet known read,
//! `rd_level` words known written.
//!
//! The cycle-accurate two-clock reference model is [`model::AsyncFifoModel`].

pub mod model;
pub mod props;
pub mod rtl;

use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use serde::{Deserialize, Serialize};
use crate::info::DesignInfo;
use model::AsyncFifoModel;

pub struct AsyncFifoKind;

/// Largest `depth`: the storage is LUT RAM (the low-latency form), which stops being the right
/// memory beyond a thousand words.
pub const MAX_DEPTH: u64 = 1024;

static FIELDS: [FieldSpec; 6] = [
    FieldSpec { name: "width", ty: FieldType::UInt { min: 1, max: 1024 }, default: None, doc: "bits per word (wr_data, rd_data)" },
    FieldSpec { name: "depth", ty: FieldType::UInt { min: 2, max: MAX_DEPTH }, default: None, doc: "words held; a power of two (the Gray pointers wrap with the storage)" },
    FieldSpec { name: "sync_stages", ty: FieldType::UInt { min: 2, max: 4 }, default: Some("2"), doc: "flops of each pointer synchronizer (3 above about 500 MHz or for a lower failure rate)" },
    FieldSpec { name: "registered_output", ty: FieldType::Bool, default: Some("false"), doc: "false: rd_data shows the oldest word while !rd_empty (first word fall through); true: rd_data is a register loaded by a read, rd_valid one cycle after it" },
    FieldSpec { name: "wr_clk_mhz", ty: FieldType::UInt { min: 1, max: 2000 }, default: Some("250"), doc: "write clock frequency for the emitted create_clock" },
    FieldSpec { name: "rd_clk_mhz", ty: FieldType::UInt { min: 1, max: 2000 }, default: Some("250"), doc: "read clock frequency for the emitted create_clock" },
];

/// The parameters of an `async_fifo` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AsyncFifoParams {
    pub width: u32,
    pub depth: u32,
    pub sync_stages: u32,
    pub registered_output: bool,
    pub wr_clk_mhz: u32,
    pub rd_clk_mhz: u32,
}

impl KindParams for AsyncFifoParams {
    const KIND: &'static str = "async_fifo";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl AsyncFifoParams {
    /// The validated block named `name`: the combinations the field ranges cannot express.
    pub fn block(&self, name: &str) -> ConfigResult<AsyncFifoBlock> {
        let depth = self.depth;
        if !depth.is_power_of_two() {
            return Err(ConfigError::Field {
                block: name.to_string(),
                kind: Self::KIND,
                field: "depth".into(),
                problem: format!("= {depth} is not a power of two; allowed 2, 4, 8, ..., {MAX_DEPTH}"),
            });
        }
        Ok(AsyncFifoBlock { name: name.to_string(), params: self.clone() })
    }
}

/// A validated `async_fifo` block: its parameters under a name (`b.depth` reads the parameter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsyncFifoBlock {
    pub name: String,
    pub params: AsyncFifoParams,
}

impl std::ops::Deref for AsyncFifoBlock {
    type Target = AsyncFifoParams;
    fn deref(&self) -> &AsyncFifoParams {
        &self.params
    }
}

impl AsyncFifoBlock {
    /// Address bits of the storage: log2 depth.
    pub fn addr_bits(&self) -> u32 {
        self.depth.trailing_zeros()
    }

    /// Pointer bits: one more than the address, so full and empty differ.
    pub fn ptr_bits(&self) -> u32 {
        self.addr_bits() + 1
    }

    /// A fresh model (both domains in reset).
    pub fn model(&self) -> AsyncFifoModel {
        AsyncFifoModel::new(self.width, self.depth, self.sync_stages, self.registered_output)
    }

    /// `rd_clk` edges from a write edge to `rd_empty` falling (an idle FIFO, no edge in a
    /// sampling window); the same count of `wr_clk` edges from a read to `wr_full` falling.
    pub fn flag_latency(&self) -> u32 {
        self.sync_stages + 1
    }
}

impl BlockKind for AsyncFifoKind {
    fn kind(&self) -> &'static str {
        "async_fifo"
    }
    fn summary(&self) -> &'static str {
        "asynchronous FIFO between two unrelated clocks: Gray pointers through N-flop synchronizers, LUT-RAM storage, registered full/empty"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        Ok(Box::new(read_params::<AsyncFifoParams>(r)?.block(r.block())?))
    }
}

impl Block for AsyncFifoBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "async_fifo"
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
    use crate::config::Design;

    fn parse(fields: &str) -> Result<Design, String> {
        Design::parse(&format!("[design]\nname = \"d\"\n\n[[blocks]]\nkind = \"async_fifo\"\nname = \"f\"\n{fields}\n"), "d.toml").map_err(|e| e.to_string())
    }

    #[test]
    fn range_errors_name_the_field_and_what_is_allowed() {
        let e = parse("width = 8\ndepth = 12").expect_err("not a power of two");
        assert!(e.contains("field `depth` = 12 is not a power of two; allowed 2, 4, 8, ..., 1024"), "{e}");
        let e = parse("width = 8\ndepth = 2048").expect_err("too deep");
        assert!(e.contains("`depth`") && e.contains("2..=1024"), "{e}");
        let e = parse("width = 8\ndepth = 8\nsync_stages = 1").expect_err("one flop is no synchronizer");
        assert!(e.contains("`sync_stages`") && e.contains("2..=4"), "{e}");
        assert!(parse("width = 8\ndepth = 2\nsync_stages = 4\nregistered_output = true").is_ok());
    }
}

#[cfg(test)]
mod params_tests {
    use super::*;

    #[test]
    fn the_params_struct_is_the_field_table() {
        let params = AsyncFifoParams { width: 8, depth: 16, sync_stages: 3, registered_output: true, wr_clk_mhz: 100, rd_clk_mhz: 300 };
        let b = params.block("f").expect("validates");
        let list = b.typed_params();
        assert_eq!(list.iter().map(|(k, _)| *k).collect::<Vec<_>>(), FIELDS.iter().map(|f| f.name).collect::<Vec<_>>());
        assert_eq!(AsyncFifoParams::from_list(&list).expect("deserialises").block("f").expect("validates"), b);
    }
}
