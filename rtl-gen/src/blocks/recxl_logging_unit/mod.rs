//! Block kind `recxl_logging_unit`: the ReCXL Logging Unit of one compute node ("Towards CXL
//! Resilience to CPU Failures", Psistakis et al., 2026: §IV-A messages REPL / REPL_ACK / VAL,
//! §IV-B the unit and its SRAM Log Buffer in front of a DRAM log, §IV-C logical timestamps,
//! §IV-E dumps to memory-node memory, §V-B quiesce, §V-D FetchLatestVers; contract `recxl.md`
//! §4). The buildable reading with its decisions (U1–U17) and hazards (H1–H7) is the contract;
//! this block follows its §4.3 ports, §4.4 formats and §4.5 behaviour with the simplifications
//! listed in [`model`] (one outstanding log read, one row released at a time).
//!
//! The cycle-accurate reference model is [`model::LoggingUnitModel`]; the replica map it uses for
//! dump duty is [`crate::blocks::recxl_replica_map::map`], the same function as everywhere else.

pub mod model;
mod props;
pub mod rtl;

use crate::blocks::recxl_replica_map::{read_shape, Shape, SHAPE_FIELDS};
use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::ConfigResult;
use crate::fields::{FieldReader, FieldSpec, FieldType};
use crate::hw::build::{bits_for, clog2};

pub struct RecxlLoggingUnitKind;

static FIELDS: [FieldSpec; 18] = [
    SHAPE_FIELDS[0],
    FieldSpec { name: "cores_per_node", ty: FieldType::UInt { min: 1, max: 256 }, default: Some("4"), doc: "cores per CN C (Table II: 4)" },
    SHAPE_FIELDS[1],
    SHAPE_FIELDS[2],
    FieldSpec { name: "word_bytes", ty: FieldType::UInt { min: 1, max: 8 }, default: Some("4"), doc: "bytes per Word Mask bit (4, inferred from §IV-D.1); one of 1, 2, 4, 8" },
    SHAPE_FIELDS[3],
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

/// A validated `recxl_logging_unit` block; every derived width of contract §4.2 is a method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecxlLoggingUnitBlock {
    pub name: String,
    pub shape: Shape,
    pub cores_per_node: u32,
    pub word_bytes: u32,
    pub ts_bits: u32,
    pub tag_bits: u32,
    pub csn_bits: u32,
    pub sram_rows: u32,
    pub nack_enable: bool,
    pub head_reserve: u32,
    pub log_bytes: u64,
    pub log_high_water_pct: u32,
    pub free_lag: u32,
    pub fetch_queries: u32,
    pub counter_bits: u32,
}

/// Number of saturating counters (contract §4.8).
pub const COUNTERS: usize = 23;

impl RecxlLoggingUnitBlock {
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
        let shape = read_shape(r)?;
        let cores_per_node = r.u32("cores_per_node")?;
        let lb = shape.line_bytes;
        let word_rule = |n: u64| format!("= {n} must be one of 1, 2, 4, 8 and divide line_bytes = {lb}");
        let word_bytes = r.uint_with_reason("word_bytes", word_rule)? as u32;
        if ![1, 2, 4, 8].contains(&word_bytes) || lb % word_bytes != 0 {
            return Err(r.error("word_bytes", word_rule(word_bytes.into())));
        }
        let rows_rule = |n: u64| format!("= {n} must be a power of two in 4..=1024");
        let sram_rows = r.uint_with_reason("sram_rows", rows_rule)? as u32;
        if !sram_rows.is_power_of_two() || !(4..=1024).contains(&sram_rows) {
            return Err(r.error("sram_rows", rows_rule(sram_rows.into())));
        }
        let ts_bits = r.u32("ts_bits")?;
        if (1u64 << (ts_bits - 1)) <= sram_rows as u64 {
            let need = sram_rows.trailing_zeros() + 2;
            return Err(r.error(
                "ts_bits",
                format!("= {ts_bits} is too narrow for sram_rows = {sram_rows}: the per-source timestamp window needs 2^(ts_bits−1) > sram_rows, i.e. ts_bits >= {need}"),
            ));
        }
        let tag_bits = r.u32("tag_bits")?;
        let csn_bits = r.u32("csn_bits")?;
        if csn_bits != 0 && csn_bits < 16 {
            return Err(r.error("csn_bits", format!("= {csn_bits} is out of range; allowed 0 (paper-exact, H2) or 16..=32")));
        }
        let nack_enable = r.bool("nack_enable")?;
        let n = shape.num_nodes;
        let head_reserve = if r.is_set("head_reserve") { r.u32("head_reserve")? } else { (n * cores_per_node).min(sram_rows) };
        if head_reserve > sram_rows {
            return Err(r.error("head_reserve", format!("= {head_reserve} exceeds sram_rows = {sram_rows}; allowed 0..={sram_rows}")));
        }
        let log_bytes = r.uint("log_bytes")?;
        let log_high_water_pct = r.u32("log_high_water_pct")?;
        let free_lag = r.u32("free_lag")?;
        let fetch_queries = r.u32("fetch_queries")?;
        let counter_bits = r.u32("counter_bits")?;
        if r.choice("compression")? != "none" {
            return Err(r.error("compression", "= \"gzip\" is not implemented in RTL (the paper's gzip level 9, §IV-E, is out of scope); allowed: \"none\""));
        }
        let b = RecxlLoggingUnitBlock {
            name: r.block().to_string(),
            shape,
            cores_per_node,
            word_bytes,
            ts_bits,
            tag_bits,
            csn_bits,
            sram_rows,
            nack_enable,
            head_reserve,
            log_bytes,
            log_high_water_pct,
            free_lag,
            fetch_queries,
            counter_bits,
        };
        let need = sram_rows as u64 * b.words() as u64;
        if log_bytes % 64 != 0 || b.lr() < need {
            let rb = b.rec() / 8;
            return Err(r.error(
                "log_bytes",
                format!("= {log_bytes} must be a multiple of 64 and hold at least sram_rows × words per line = {need} records ({} bytes with {rb}-byte records)", need * rb as u64),
            ));
        }
        if b.lib() > 40 {
            return Err(r.error("log_bytes", format!("= {log_bytes} holds more than 2^40 records; allowed up to {} bytes", (1u64 << 40) * (b.rec() as u64 / 8))));
        }
        Ok(Box::new(b))
    }
}

impl Block for RecxlLoggingUnitBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "recxl_logging_unit"
    }
    fn params(&self) -> Vec<(&'static str, String)> {
        let mut p = self.shape.params();
        p.insert(1, ("cores_per_node", self.cores_per_node.to_string()));
        p.insert(4, ("word_bytes", self.word_bytes.to_string()));
        p.extend([
            ("ts_bits", self.ts_bits.to_string()),
            ("tag_bits", self.tag_bits.to_string()),
            ("csn_bits", self.csn_bits.to_string()),
            ("sram_rows", self.sram_rows.to_string()),
            ("nack_enable", self.nack_enable.to_string()),
            ("head_reserve", self.head_reserve.to_string()),
            ("log_bytes", self.log_bytes.to_string()),
            ("log_high_water_pct", self.log_high_water_pct.to_string()),
            ("free_lag", self.free_lag.to_string()),
            ("fetch_queries", self.fetch_queries.to_string()),
            ("counter_bits", self.counter_bits.to_string()),
            ("compression", "none".to_string()),
        ]);
        p
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
