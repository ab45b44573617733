//! Block kind `recxl_replica_map`: which R compute nodes log every update of a line, and which
//! live member of that replica group dumps it (ReCXL, "Towards CXL Resilience to CPU Failures",
//! §III-A replica groups by address hash, §IV-E dump duty by address range; contract
//! `recxl.md` §4.9, U1/U2/U5/U12). Combinational, or pipelined by `pipeline` register stages
//! (one line per cycle, latency `pipeline`); the Rust function [`model::MapShape::map`] is the
//! one every model (logging unit, system simulation) uses, and the RTL is checked against it.

pub mod model;
mod props;
pub mod rtl;

use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use model::MapShape;
use serde::{Deserialize, Serialize};

pub struct RecxlReplicaMapKind;

/// The [`Shape`] fields, which the replica map shares with `recxl_logging_unit` (same names,
/// same checks; the logging unit lists its own fields between them).
pub const NUM_NODES_FIELD: FieldSpec = FieldSpec { name: "num_nodes", ty: FieldType::UInt { min: 2, max: 256 }, default: Some("16"), doc: "compute nodes N (paper Table II: 16); ReCXL needs at least 2" };
pub const REPLICAS_FIELD: FieldSpec = FieldSpec { name: "replicas", ty: FieldType::UInt { min: 2, max: 8 }, default: Some("3"), doc: "replication factor R (paper Table II: 3; \"2–4\" §III-A); at most num_nodes" };
pub const LINE_BYTES_FIELD: FieldSpec = FieldSpec { name: "line_bytes", ty: FieldType::UInt { min: 32, max: 128 }, default: Some("64"), doc: "cache line bytes (Table II: 64); 32, 64 or 128" };
pub const ADDR_BITS_FIELD: FieldSpec = FieldSpec { name: "addr_bits", ty: FieldType::UInt { min: 6, max: 64 }, default: Some("52"), doc: "physical byte-address bits; at least log2(line_bytes)+1" };

/// Most register stages of the module ([`rtl::module`] has two places to cut).
pub const MAX_PIPELINE: u64 = 2;

static FIELDS: [FieldSpec; 5] = [
    NUM_NODES_FIELD,
    REPLICAS_FIELD,
    LINE_BYTES_FIELD,
    ADDR_BITS_FIELD,
    FieldSpec {
        name: "pipeline",
        ty: FieldType::UInt { min: 0, max: MAX_PIPELINE },
        default: Some("2"),
        doc: "register stages, the latency in cycles (one line per cycle at any setting): 0 combinational; 1 after the group members; 2 also after the hash. LUT6 levels between registers (Yosys abc -lut 6) for N = 6, R = 3: 6 / 4 / 3; for N = 200, R = 8: 9 at 1, 7 at 2",
    },
];

/// The shape fields, part of both ReCXL kinds' parameter structs (flattened: the design-file
/// names are these).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    pub num_nodes: u32,
    pub replicas: u32,
    pub line_bytes: u32,
    pub addr_bits: u32,
}

fn shape_error(block: &str, kind: &'static str, field: &str, problem: String) -> ConfigError {
    ConfigError::Field { block: block.to_string(), kind, field: field.to_string(), problem }
}

/// Why `replicas = n` is refused (allowed 2..=`max`).
fn replicas_rule(n: u64, max: u32) -> String {
    if n < 2 {
        format!("= {n} tolerates no CN failure (ReCXL tolerates replicas − 1 failures, paper §IV-B); allowed 2..=min(8, num_nodes) = 2..={max}")
    } else {
        format!("= {n} is out of range; allowed 2..=min(8, num_nodes) = 2..={max}")
    }
}

/// Why `addr_bits = n` leaves no line address.
fn no_line_address(n: u64, line_bytes: u32) -> String {
    format!("= {n} leaves no line-address bits (allowed {}..=64 for line_bytes = {line_bytes})", line_bytes.trailing_zeros() + 1)
}

impl Shape {
    /// The range checks of the shape fields whose error says ReCXL's reason (contract §6
    /// texts; the other ranges are the field reader's): run before
    /// [`crate::fields::read_params`].
    pub fn read_ranges(r: &mut FieldReader) -> ConfigResult<()> {
        // The range 2..=256 is the field's own (ReCXL needs 2 nodes to replicate anything; node
        // IDs are at most 8 bits), so `rtl-gen list` and the range error show the one real range.
        let num_nodes = r.u32("num_nodes").map_err(|e| match e {
            ConfigError::Field { block, kind, field, problem } => {
                ConfigError::Field { block, kind, field, problem: format!("{problem} (ReCXL needs at least 2 compute nodes; at most 256)") }
            }
            other => other,
        })?;
        // The field's range is 2..=8; the kind's reason says why, and the bound by num_nodes.
        r.uint_with_reason("replicas", |n| replicas_rule(n, num_nodes.min(8)))?;
        let line_bytes = r.u32("line_bytes")?;
        let lb = line_bytes.trailing_zeros();
        r.uint_with_reason("addr_bits", |n| if n <= lb.into() { no_line_address(n, line_bytes) } else { format!("= {n} is out of range; allowed {}..=64 for line_bytes = {line_bytes}", lb + 1) })?;
        Ok(())
    }

    /// The combinations of the shape fields, for block `block` of kind `kind`.
    pub fn check(&self, block: &str, kind: &'static str) -> ConfigResult<()> {
        let Shape { num_nodes, replicas, line_bytes, addr_bits } = *self;
        if replicas > num_nodes {
            let max = num_nodes.min(8);
            return Err(shape_error(block, kind, "replicas", format!("= {replicas} exceeds num_nodes = {num_nodes}; a replica group is replicas distinct CNs (allowed 2..=min(8, num_nodes) = 2..={max})")));
        }
        if ![32, 64, 128].contains(&line_bytes) {
            return Err(shape_error(block, kind, "line_bytes", format!("= {line_bytes} must be 32, 64 or 128")));
        }
        if addr_bits <= line_bytes.trailing_zeros() {
            return Err(shape_error(block, kind, "addr_bits", no_line_address(addr_bits.into(), line_bytes)));
        }
        Ok(())
    }
}

/// The parameters of a `recxl_replica_map` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecxlReplicaMapParams {
    #[serde(flatten)]
    pub shape: Shape,
    /// Register stages (the latency), 0..=[`MAX_PIPELINE`].
    pub pipeline: u32,
}

impl KindParams for RecxlReplicaMapParams {
    const KIND: &'static str = "recxl_replica_map";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl RecxlReplicaMapParams {
    /// The validated block named `name`.
    pub fn block(&self, name: &str) -> ConfigResult<RecxlReplicaMapBlock> {
        self.shape.check(name, Self::KIND)?;
        Ok(RecxlReplicaMapBlock { name: name.to_string(), params: self.clone() })
    }
}

impl Shape {
    pub fn map(&self) -> MapShape {
        MapShape { num_nodes: self.num_nodes, replicas: self.replicas }
    }
    /// LA = addr_bits − log2 line_bytes.
    pub fn line_addr_bits(&self) -> u32 {
        self.addr_bits - self.line_bytes.trailing_zeros()
    }
}

/// A validated `recxl_replica_map` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecxlReplicaMapBlock {
    pub name: String,
    pub params: RecxlReplicaMapParams,
}

impl RecxlReplicaMapBlock {
    pub fn shape(&self) -> MapShape {
        self.params.shape.map()
    }
    pub fn line_addr_bits(&self) -> u32 {
        self.params.shape.line_addr_bits()
    }
    /// Register stages (the latency).
    pub fn pipeline(&self) -> u32 {
        self.params.pipeline
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
        Shape::read_ranges(r)?;
        Ok(Box::new(read_params::<RecxlReplicaMapParams>(r)?.block(r.block())?))
    }
}

impl Block for RecxlReplicaMapBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "recxl_replica_map"
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
