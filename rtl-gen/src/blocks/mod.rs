//! Block kinds. Each kind lives in its own folder (params and validation, reference model,
//! generator) and is known to the rest of the tool only through the registry line below.

use crate::config::DesignInfo;
use crate::emit::verilog::{Module, Port};
use crate::error::ConfigResult;
use crate::fields::{FieldReader, FieldSpec};
use std::any::Any;

pub mod crc;
pub mod crc_stream;
pub mod replay_buffer;
pub mod rifl;
pub mod rs_crc;
pub mod rs_fec;
pub mod rxl_endpoint;
pub mod rxl_switch;

/// Every block kind the tool knows; adding a kind means adding one line here.
pub static KINDS: &[&dyn BlockKind] = &[
    &crc::CrcKind,
    &crc_stream::CrcStreamKind,
    &rs_crc::RsCrcKind,
    &replay_buffer::ReplayBufferKind,
    &rs_fec::RsFecKind,
    &rifl::RiflKind,
    &rxl_endpoint::RxlEndpointKind,
    &rxl_switch::RxlSwitchKind,
];

pub fn kind(name: &str) -> Option<&'static dyn BlockKind> {
    KINDS.iter().copied().find(|k| k.kind() == name)
}

/// A kind of block: its fields and how to build a validated block from a design-file table.
pub trait BlockKind: Sync {
    fn kind(&self) -> &'static str;
    fn summary(&self) -> &'static str;
    fn fields(&self) -> &'static [FieldSpec];
    /// Read every field through `r` (which reports leftovers afterwards) and check the
    /// combinations the field ranges alone cannot express.
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>>;
}

/// One validated block of a design.
pub trait Block: std::fmt::Debug + Any {
    fn name(&self) -> &str;
    fn kind(&self) -> &'static str;
    /// Every parameter and its value (defaults resolved), for banners, docs and the manifest.
    fn params(&self) -> Vec<(&'static str, String)>;
    /// Names of the modules `modules` will produce, without building them (collision checks).
    fn module_names(&self, design: &DesignInfo) -> Vec<String>;
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule>;
    /// For tests and the simulator: reach the concrete block (and so its reference model).
    fn as_any(&self) -> &dyn Any;
}

/// A module ready to emit, with what its banner and docs say about it.
#[derive(Debug, Clone)]
pub struct GeneratedModule {
    pub module: Module,
    /// Cycles from an input sample to the matching output (0 = combinational).
    pub latency: u32,
    /// What the module does, a few sentences for the banner and docs.
    pub summary: String,
    /// Further documentation lines (bit layouts, orientation notes) for the banner and docs.
    pub notes: Vec<String>,
    /// Module names this module instantiates.
    pub depends: Vec<String>,
}

impl GeneratedModule {
    pub fn name(&self) -> &str {
        &self.module.name
    }
    pub fn ports(&self) -> &[Port] {
        &self.module.ports
    }
}

/// `clk` and the design's reset port, first in the port list of every clocked module.
pub fn clock_ports(design: &DesignInfo) -> Vec<Port> {
    let reset_doc = if design.reset.active_low() { "asynchronous reset, active low" } else { "synchronous reset, active high" };
    vec![Port::input("clk", 1, "clock"), Port::input(design.reset.port(), 1, reset_doc)]
}
