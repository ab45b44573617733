//! Block kind `recxl_logging_unit`: the ReCXL Logging Unit of one compute node ("Towards CXL
//! Resilience to CPU Failures", Psistakis et al., 2026: §IV-A messages REPL / REPL_ACK / VAL,
//! §IV-B the unit and its SRAM Log Buffer in front of a DRAM log, §IV-C logical timestamps,
//! §IV-E dumps to memory-node memory, §V-B quiesce, §V-D FetchLatestVers; contract `recxl.md`
//! §4). The buildable reading with its decisions (U1–U17) and hazards (H1–H7) is the contract;
//! this block follows its §4.3 ports, §4.4 formats and §4.5 behaviour with the simplifications
//! listed in [`model`] (one outstanding log read, one row released at a time).
//!
//! The cycle-accurate reference model is [`model::LoggingUnitModel`]; the replica map it uses for
//! dump duty is [`crate::blocks::recxl_replica_map::model`], the same function as everywhere else.

pub mod model;
mod props;
pub mod rtl;

use crate::blocks::recxl_replica_map::{Shape, ADDR_BITS_FIELD, LINE_BYTES_FIELD, NUM_NODES_FIELD, REPLICAS_FIELD};
use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use serde::{Deserialize, Serialize};
use crate::hw::build::{bits_for, clog2};

pub struct RecxlLoggingUnitKind;

static FIELDS: [FieldSpec; 18] = [
    NUM_NODES_FIELD,
    FieldSpec { name: "cores_per_node", ty: FieldType::UInt { min: 1, max: 256 }, default: Some("4"), doc: "cores per CN C (Table II: 4)" },
    REPLICAS_FIELD,
    LINE_BYTES_FIELD,
    FieldSpec { name: "word_bytes", ty: FieldType::UInt { min: 1, max: 8 }, default: Some("4"), doc: "bytes per Word Mask bit (4, inferred from §IV-D.1); one of 1, 2, 4, 8" },
    ADDR_BITS_FIELD,
    FieldSpec { name: "ts_bits", ty: FieldType::UInt { min: 8, max: 32 }, default: Some("16"), doc: "VAL logical timestamp width (§IV-C); 2^(ts_bits-1) > sram_rows" },
    FieldSpec { name: "tag_bits", ty: FieldType::UInt { min: 0, max: 16 }, default: Some("7"), doc: "transaction tag in REPL/REPL_ACK/VAL (H1); 0 = paper-exact" },
    FieldSpec { name: "csn_bits", ty: FieldType::UInt { min: 0, max: 32 }, default: Some("32"), doc: "commit sequence number in VAL and the log record (H2); 0 = paper-exact, else 16..=32" },
    FieldSpec { name: "sram_rows", ty: FieldType::UInt { min: 4, max: 1024 }, default: Some("128"), doc: "SRAM Log Buffer rows, one REPL each; a power of two" },
    FieldSpec { name: "nack_enable", ty: FieldType::Bool, default: Some("true"), doc: "head-of-store-buffer reserve with NACK (H4); false = paper-exact (REPL waits)" },
    FieldSpec { name: "head_reserve", ty: FieldType::UInt { min: 0, max: 1024 }, default: Some("derived: min(num_nodes*cores_per_node, sram_rows)"), doc: "rows kept for REPLs of stores at the SB head (H4)" },
    FieldSpec { name: "log_bytes", ty: FieldType::UInt { min: 64, max: 1 << 40 }, default: Some("18874368"), doc: "DRAM log bytes (Table II: 18 MB read as MiB); a multiple of 64" },
    FieldSpec { name: "log_high_water_pct", ty: FieldType::UInt { min: 1, max: 99 }, default: Some("75"), doc: "log occupancy (percent) that raises st_log_almost_full" },
    FieldSpec { name: "free_lag", ty: FieldType::UInt { min: 0, max: 1 }, default: Some("1"), doc: "epochs a dumped snapshot is kept (H6); 0 = the paper's \"clears its whole log\"" },
    FieldSpec { name: "fetch_queries", ty: FieldType::UInt { min: 1, max: 1024 }, default: Some("64"), doc: "FetchLatestVers query table entries per traversal" },
    FieldSpec { name: "counter_bits", ty: FieldType::UInt { min: 16, max: 64 }, default: Some("32"), doc: "width of the saturating counters (stat_sel/stat_data)" },
    FieldSpec { name: "compression", ty: FieldType::Choice(&["none", "gzip"]), default: Some("\"none\""), doc: "dump compression; only \"none\" is implemented (the paper's gzip 9 is out of RTL scope)" },
];

/// Dump compression (`compression`); only `none` is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    None,
    Gzip,
}

/// The parameters of a `recxl_logging_unit` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecxlLoggingUnitParams {
    #[serde(flatten)]
    pub shape: Shape,
    pub cores_per_node: u32,
    pub word_bytes: u32,
    pub ts_bits: u32,
    pub tag_bits: u32,
    pub csn_bits: u32,
    pub sram_rows: u32,
    pub nack_enable: bool,
    /// min(num_nodes × cores_per_node, sram_rows) when not set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_reserve: Option<u32>,
    pub log_bytes: u64,
    pub log_high_water_pct: u32,
    pub free_lag: u32,
    pub fetch_queries: u32,
    pub counter_bits: u32,
    pub compression: Compression,
}

impl KindParams for RecxlLoggingUnitParams {
    const KIND: &'static str = "recxl_logging_unit";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

/// Why `word_bytes = n` is refused.
fn word_rule(n: u64, line_bytes: u32) -> String {
    format!("= {n} must be one of 1, 2, 4, 8 and divide line_bytes = {line_bytes}")
}

/// Why `sram_rows = n` is refused.
fn rows_rule(n: u64) -> String {
    format!("= {n} must be a power of two in 4..=1024")
}

impl RecxlLoggingUnitParams {
    /// The range checks whose error says the kind's reason: run before
    /// [`crate::fields::read_params`].
    fn read_ranges(r: &mut FieldReader) -> ConfigResult<()> {
        Shape::read_ranges(r)?;
        r.u32("cores_per_node")?;
        let lb = r.u32("line_bytes")?;
        r.uint_with_reason("word_bytes", |n| word_rule(n, lb))?;
        r.uint_with_reason("sram_rows", rows_rule)?;
        Ok(())
    }

    /// The validated block named `name`: the combinations the field ranges cannot express.
    pub fn block(&self, name: &str) -> ConfigResult<RecxlLoggingUnitBlock> {
        let err = |field: &str, problem: String| ConfigError::Field { block: name.to_string(), kind: Self::KIND, field: field.to_string(), problem };
        let shape = self.shape;
        shape.check(name, Self::KIND)?;
        let RecxlLoggingUnitParams { cores_per_node, word_bytes, ts_bits, csn_bits, sram_rows, log_bytes, .. } = *self;
        let lb = shape.line_bytes;
        if ![1, 2, 4, 8].contains(&word_bytes) || !lb.is_multiple_of(word_bytes) {
            return Err(err("word_bytes", word_rule(word_bytes.into(), lb)));
        }
        if !sram_rows.is_power_of_two() || !(4..=1024).contains(&sram_rows) {
            return Err(err("sram_rows", rows_rule(sram_rows.into())));
        }
        if (1u64 << (ts_bits - 1)) <= sram_rows as u64 {
            let need = sram_rows.trailing_zeros() + 2;
            return Err(err(
                "ts_bits",
                format!("= {ts_bits} is too narrow for sram_rows = {sram_rows}: the per-source timestamp window needs 2^(ts_bits−1) > sram_rows, i.e. ts_bits >= {need}"),
            ));
        }
        if csn_bits != 0 && csn_bits < 16 {
            return Err(err("csn_bits", format!("= {csn_bits} is out of range; allowed 0 (paper-exact, H2) or 16..=32")));
        }
        let head_reserve = self.head_reserve.unwrap_or((shape.num_nodes * cores_per_node).min(sram_rows));
        if head_reserve > sram_rows {
            return Err(err("head_reserve", format!("= {head_reserve} exceeds sram_rows = {sram_rows}; allowed 0..={sram_rows}")));
        }
        if self.compression != Compression::None {
            return Err(err("compression", "= \"gzip\" is not implemented in RTL (the paper's gzip level 9, §IV-E, is out of scope); allowed: \"none\"".into()));
        }
        let b = RecxlLoggingUnitBlock { name: name.to_string(), params: RecxlLoggingUnitParams { head_reserve: Some(head_reserve), ..self.clone() } };
        let need = sram_rows as u64 * b.words() as u64;
        if log_bytes % 64 != 0 || b.lr() < need {
            let rb = b.rec() / 8;
            return Err(err(
                "log_bytes",
                format!("= {log_bytes} must be a multiple of 64 and hold at least sram_rows × words per line = {need} records ({} bytes with {rb}-byte records)", need * rb as u64),
            ));
        }
        if b.lib() > 40 {
            return Err(err("log_bytes", format!("= {log_bytes} holds more than 2^40 records; allowed up to {} bytes", (1u64 << 40) * (b.rec() as u64 / 8))));
        }
        Ok(b)
    }
}

/// A validated `recxl_logging_unit` block: its parameters under a name (`b.sram_rows` reads the
/// parameter), `head_reserve` written out; every derived width of contract §4.2 is a method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecxlLoggingUnitBlock {
    pub name: String,
    pub params: RecxlLoggingUnitParams,
}

impl std::ops::Deref for RecxlLoggingUnitBlock {
    type Target = RecxlLoggingUnitParams;
    fn deref(&self) -> &RecxlLoggingUnitParams {
        &self.params
    }
}

/// Number of saturating counters (contract §4.8).
pub const COUNTERS: usize = 23;

impl RecxlLoggingUnitBlock {
    /// Rows kept for the head of each source's queue (the default resolved when validated).
    pub fn head_reserve(&self) -> u32 {
        self.params.head_reserve.expect("resolved when the block was validated")
    }

    pub fn n(&self) -> u32 {
        self.shape.num_nodes
    }
    pub fn nb(&self) -> u32 {
        clog2(self.shape.num_nodes as u64)
    }
    pub fn cb(&self) -> u32 {
        clog2(self.cores_per_node as u64)
    }
    /// Words per line W.
    pub fn words(&self) -> u32 {
        self.shape.line_bytes / self.word_bytes
    }
    pub fn wib(&self) -> u32 {
        clog2(self.words() as u64)
    }
    pub fn dw(&self) -> u32 {
        8 * self.word_bytes
    }
    pub fn lw(&self) -> u32 {
        8 * self.shape.line_bytes
    }
    pub fn la(&self) -> u32 {
        self.shape.line_addr_bits()
    }
    /// Word address bits WA = A − log2 WB.
    pub fn wa(&self) -> u32 {
        self.shape.addr_bits - self.word_bytes.trailing_zeros()
    }
    pub fn rb(&self) -> u32 {
        self.sram_rows.trailing_zeros()
    }
    /// Record width REC: 128 or 256.
    pub fn rec(&self) -> u32 {
        if 1 + self.csn_bits + self.nb() + self.cb() + self.wa() + self.dw() <= 128 {
            128
        } else {
            256
        }
    }
    /// Records per 64-byte dump beat.
    pub fn rpb(&self) -> u32 {
        512 / self.rec()
    }
    /// Log capacity LR in records.
    pub fn lr(&self) -> u64 {
        self.log_bytes / (self.rec() as u64 / 8)
    }
    pub fn lib(&self) -> u32 {
        clog2(self.lr())
    }
    /// Width of st_log_count: ⌈log2(LR+1)⌉.
    pub fn lcb(&self) -> u32 {
        bits_for(self.lr())
    }
    pub fn qb(&self) -> u32 {
        clog2(self.fetch_queries as u64)
    }
    /// st_log_almost_full threshold: ⌈LR·pct/100⌉ records.
    pub fn high_water(&self) -> u64 {
        (self.lr() * self.log_high_water_pct as u64).div_ceil(100)
    }
    pub fn model(&self) -> model::LoggingUnitModel {
        model::LoggingUnitModel::new(self)
    }
}

impl BlockKind for RecxlLoggingUnitKind {
    fn kind(&self) -> &'static str {
        "recxl_logging_unit"
    }
    fn summary(&self) -> &'static str {
        "ReCXL Logging Unit: SRAM log-buffer rows (REPL → REPL_ACK, VAL with timestamp), release to the DRAM log in timestamp order, dump epochs, FetchLatestVers engine, quiesce, counters"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        RecxlLoggingUnitParams::read_ranges(r)?;
        Ok(Box::new(read_params::<RecxlLoggingUnitParams>(r)?.block(r.block())?))
    }
}

impl Block for RecxlLoggingUnitBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "recxl_logging_unit"
    }
    fn typed_params(&self) -> ParamList {
        self.params.to_list()
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        vec![format!("{}{}", design.prefix, self.name)]
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        vec![rtl::module(self, design, &self.module_names(design)[0], rtl::Mutation::None)]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list is the table's fields in order with `head_reserve` resolved, and it validates
    /// back into the same block; the replica map's likewise.
    #[test]
    fn the_params_struct_is_the_field_table() {
        let text = "[design]\nname = \"t\"\n[[blocks]]\nkind = \"recxl_logging_unit\"\nname = \"lu\"\nnum_nodes = 6\nsram_rows = 16\n[[blocks]]\nkind = \"recxl_replica_map\"\nname = \"map\"\npipeline = 1\n";
        let d = crate::config::Design::parse(text, "t.toml").expect("valid");
        let list = d.blocks[0].typed_params();
        assert_eq!(list.iter().map(|(k, _)| *k).collect::<Vec<_>>(), FIELDS.iter().map(|f| f.name).collect::<Vec<_>>());
        assert!(list.contains(&("head_reserve", serde_json::json!(16))) && list.contains(&("compression", serde_json::json!("none"))), "{list:?}");
        let back = RecxlLoggingUnitParams::from_list(&list).expect("deserialises").block("lu").expect("validates");
        assert_eq!(Some(&back), d.blocks[0].as_any().downcast_ref::<RecxlLoggingUnitBlock>());
        let map = d.blocks[1].typed_params();
        assert_eq!(map.iter().map(|(k, _)| *k).collect::<Vec<_>>(), ["num_nodes", "replicas", "line_bytes", "addr_bits", "pipeline"]);
        let back = crate::blocks::recxl_replica_map::RecxlReplicaMapParams::from_list(&map).expect("deserialises").block("map").expect("validates");
        assert_eq!(back.pipeline(), 1);
        assert_eq!(Some(&back), d.blocks[1].as_any().downcast_ref());
    }
}
