//! Block kind `recxl_replica_map`: which R compute nodes log every update of a line, and which
//! live member of that replica group dumps it (ReCXL, "Towards CXL Resilience to CPU Failures",
//! §III-A replica groups by address hash, §IV-E dump duty by address range; contract
//! `recxl.md` §4.9, U1/U2/U5/U12). Combinational, or pipelined by `pipeline` register stages
//! (one line per cycle, latency `pipeline`); the Rust function [`map::MapShape::map`] is the
//! one every model (logging unit, system simulation) uses, and the RTL is checked against it.

pub mod map;
pub mod rtl;

use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{FieldReader, FieldSpec, FieldType};
use map::MapShape;

pub struct RecxlReplicaMapKind;

/// The fields the replica map shares with `recxl_logging_unit` (same names, same checks).
pub const SHAPE_FIELDS: [FieldSpec; 4] = [
    FieldSpec { name: "num_nodes", ty: FieldType::UInt { min: 2, max: 256 }, default: Some("16"), doc: "compute nodes N (paper Table II: 16); ReCXL needs at least 2" },
    FieldSpec { name: "replicas", ty: FieldType::UInt { min: 2, max: 8 }, default: Some("3"), doc: "replication factor R (paper Table II: 3; \"2–4\" §III-A); at most num_nodes" },
    FieldSpec { name: "line_bytes", ty: FieldType::UInt { min: 32, max: 128 }, default: Some("64"), doc: "cache line bytes (Table II: 64); 32, 64 or 128" },
    FieldSpec { name: "addr_bits", ty: FieldType::UInt { min: 6, max: 64 }, default: Some("52"), doc: "physical byte-address bits; at least log2(line_bytes)+1" },
];

/// Most register stages of the module ([`rtl::module`] has two places to cut).
pub const MAX_PIPELINE: u64 = 2;

static FIELDS: [FieldSpec; 5] = [
    SHAPE_FIELDS[0],
    SHAPE_FIELDS[1],
    SHAPE_FIELDS[2],
    SHAPE_FIELDS[3],
    FieldSpec {
        name: "pipeline",
        ty: FieldType::UInt { min: 0, max: MAX_PIPELINE },
        default: Some("2"),
        doc: "register stages, the latency in cycles (one line per cycle at any setting): 0 combinational; 1 after the group members; 2 also after the hash. LUT6 levels between registers (Yosys abc -lut 6) for N = 6, R = 3: 6 / 4 / 3; for N = 200, R = 8: 9 at 1, 7 at 2",
    },
];

/// The validated shape fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub num_nodes: u32,
    pub replicas: u32,
    pub line_bytes: u32,
    pub addr_bits: u32,
}

/// Read and check `num_nodes`, `replicas`, `line_bytes`, `addr_bits` (contract §6 texts).
pub fn read_shape(r: &mut FieldReader) -> ConfigResult<Shape> {
    // The range 2..=256 is the field's own (ReCXL needs 2 nodes to replicate anything; node IDs
    // are at most 8 bits), so `rtl-gen list` and the range error show the one real range.
    let num_nodes = r.u32("num_nodes").map_err(|e| match e {
        ConfigError::Field { block, kind, field, problem } => {
            ConfigError::Field { block, kind, field, problem: format!("{problem} (ReCXL needs at least 2 compute nodes; at most 256)") }
        }
        other => other,
    })?;
    // The field's range is 2..=8; the kind's reason says why, and the bound by num_nodes.
    let max = num_nodes.min(8);
    let replicas = r.uint_with_reason("replicas", |n| {
        if n < 2 {
            format!("= {n} tolerates no CN failure (ReCXL tolerates replicas − 1 failures, paper §IV-B); allowed 2..=min(8, num_nodes) = 2..={max}")
        } else {
            format!("= {n} is out of range; allowed 2..=min(8, num_nodes) = 2..={max}")
        }
    })? as u32;
    if replicas > num_nodes {
        return Err(r.error(
            "replicas",
            format!("= {replicas} exceeds num_nodes = {num_nodes}; a replica group is replicas distinct CNs (allowed 2..=min(8, num_nodes) = 2..={max})"),
        ));
    }
    let line_bytes = r.u32("line_bytes")?;
    if ![32, 64, 128].contains(&line_bytes) {
        return Err(r.error("line_bytes", format!("= {line_bytes} must be 32, 64 or 128")));
    }
    let lb = line_bytes.trailing_zeros();
    let no_line_address = |n: u64| format!("= {n} leaves no line-address bits (allowed {}..=64 for line_bytes = {line_bytes})", lb + 1);
    let addr_bits = r.uint_with_reason("addr_bits", |n| if n <= lb.into() { no_line_address(n) } else { format!("= {n} is out of range; allowed {}..=64 for line_bytes = {line_bytes}", lb + 1) })? as u32;
    if addr_bits <= lb {
        return Err(r.error("addr_bits", no_line_address(addr_bits.into())));
    }
    Ok(Shape { num_nodes, replicas, line_bytes, addr_bits })
}

impl Shape {
    pub fn map(&self) -> MapShape {
        MapShape { num_nodes: self.num_nodes, replicas: self.replicas }
    }
    /// LA = addr_bits − log2 line_bytes.
    pub fn line_addr_bits(&self) -> u32 {
        self.addr_bits - self.line_bytes.trailing_zeros()
    }
    pub fn params(&self) -> Vec<(&'static str, String)> {
        vec![
            ("num_nodes", self.num_nodes.to_string()),
            ("replicas", self.replicas.to_string()),
            ("line_bytes", self.line_bytes.to_string()),
            ("addr_bits", self.addr_bits.to_string()),
        ]
    }
}

/// A validated `recxl_replica_map` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecxlReplicaMapBlock {
    pub name: String,
    pub shape: Shape,
    /// Register stages (the latency), 0..=[`MAX_PIPELINE`].
    pub pipeline: u32,
}

impl RecxlReplicaMapBlock {
    pub fn shape(&self) -> MapShape {
        self.shape.map()
    }
    pub fn line_addr_bits(&self) -> u32 {
        self.shape.line_addr_bits()
    }
}

impl BlockKind for RecxlReplicaMapKind {
    fn kind(&self) -> &'static str {
        "recxl_replica_map"
    }
    fn summary(&self) -> &'static str {
        "ReCXL replica map: the R rotating replica CNs of a line address and the live member in charge of dumping it (combinational or pipelined)"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        let shape = read_shape(r)?;
        let pipeline = r.u32("pipeline")?;
        Ok(Box::new(RecxlReplicaMapBlock { name: r.block().to_string(), shape, pipeline }))
    }
}

impl Block for RecxlReplicaMapBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "recxl_replica_map"
    }
    fn params(&self) -> Vec<(&'static str, String)> {
        let mut p = self.shape.params();
        p.push(("pipeline", self.pipeline.to_string()));
        p
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
