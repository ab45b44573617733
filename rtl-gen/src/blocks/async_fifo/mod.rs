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
mod rtl;

use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::error::ConfigResult;
use crate::fields::{FieldReader, FieldSpec, FieldType};
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

/// A validated `async_fifo` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsyncFifoBlock {
    pub name: String,
    pub width: u32,
    pub depth: u32,
    pub sync_stages: u32,
    pub registered_output: bool,
    pub wr_clk_mhz: u32,
    pub rd_clk_mhz: u32,
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
        let width = r.u32("width")?;
        let depth = r.u32("depth")?;
        if !depth.is_power_of_two() {
            return Err(r.error("depth", format!("= {depth} is not a power of two; allowed 2, 4, 8, ..., {MAX_DEPTH}")));
        }
        let sync_stages = r.u32("sync_stages")?;
        let registered_output = r.bool("registered_output")?;
        let wr_clk_mhz = r.u32("wr_clk_mhz")?;
        let rd_clk_mhz = r.u32("rd_clk_mhz")?;
        Ok(Box::new(AsyncFifoBlock { name: r.block().to_string(), width, depth, sync_stages, registered_output, wr_clk_mhz, rd_clk_mhz }))
    }
}

impl Block for AsyncFifoBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "async_fifo"
    }
    fn params(&self) -> Vec<(&'static str, String)> {
        vec![
            ("width", self.width.to_string()),
            ("depth", self.depth.to_string()),
            ("sync_stages", self.sync_stages.to_string()),
            ("registered_output", self.registered_output.to_string()),
            ("wr_clk_mhz", self.wr_clk_mhz.to_string()),
            ("rd_clk_mhz", self.rd_clk_mhz.to_string()),
        ]
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
