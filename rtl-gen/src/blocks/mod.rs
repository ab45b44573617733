//! Block kinds. Each kind lives in its own folder (params and validation, reference model,
//! generator) and is known to the rest of the tool only through the registry line below.

use crate::info::DesignInfo;
pub use crate::hw::module::{clock_ports, fpga_wrapper_name, GeneratedModule, Origin, Role};
use crate::error::ConfigResult;
use crate::fields::{FieldReader, FieldSpec, ParamList};
use std::any::Any;

pub mod async_fifo;
pub mod crc;
pub mod crc_stream;
pub mod genz_llr;
pub mod replay_buffer;
pub mod rifl;
pub mod rs_crc;
pub mod rs_fec;
pub mod rxl_endpoint;
pub mod rxl_switch;
pub mod protocol;
pub mod sue_packer;
pub mod sue_endpoint;
pub mod sue_transport;
pub mod recxl_replica_map;
pub mod recxl_logging_unit;

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
    &sue_packer::SuePackerKind,
    &sue_transport::SueTransportKind,
    &sue_endpoint::SueEndpointKind,
    &recxl_replica_map::RecxlReplicaMapKind,
    &recxl_logging_unit::RecxlLoggingUnitKind,
    &genz_llr::GenzLlrKind,
    &async_fifo::AsyncFifoKind,
];

pub fn kind(name: &str) -> Option<&'static dyn BlockKind> {
    KINDS.iter().copied().find(|k| k.kind() == name)
}

/// The modules a block offers to emit outside `rtl/`: `demo` names which companion they are
/// (the tree emits each `demo` once, for the first block offering it), `names` their modules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Companions {
    pub demo: &'static str,
    pub names: Vec<String>,
}

/// A kind of block: its fields and how to build a validated block from a design-file table.
pub trait BlockKind: Sync {
    fn kind(&self) -> &'static str;
    fn summary(&self) -> &'static str;
    fn fields(&self) -> &'static [FieldSpec];
    /// Read every field through `r` (which reports leftovers afterwards) and check the
    /// combinations the field ranges alone cannot express.
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>>;
    /// What a parameter value means where the number alone does not say it (`xor_window = 0`:
    /// the whole input), shown beside the value in banners and docs. [`Block::typed_params`]
    /// carries only the design-file value, so the manifest and the simulator read it back unchanged.
    fn value_note(&self, _field: &str, _value: &str) -> Option<&'static str> {
        None
    }
}

/// `params` as banners and docs show them: each value with its kind's note, if any.
pub fn annotated_params(kind: &str, params: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
    let k = self::kind(kind);
    params
        .iter()
        .map(|(name, value)| match k.and_then(|k| k.value_note(name, value)) {
            Some(note) => (*name, format!("{value} ({note})")),
            None => (*name, value.clone()),
        })
        .collect()
}

/// A module's typed parameters as banners, docs and header templates print them (see
/// [`crate::fields::value_text`]).
pub fn param_texts(kind: &str, params: &[(&'static str, serde_json::Value)]) -> Vec<(&'static str, String)> {
    let specs = self::kind(kind).map(|k| k.fields()).unwrap_or(&[]);
    params.iter().map(|(name, v)| (*name, crate::fields::value_text(specs, params, name, v))).collect()
}

/// One validated block of a design.
pub trait Block: std::fmt::Debug + Any {
    fn name(&self) -> &str;
    fn kind(&self) -> &'static str;
    /// Every parameter and its typed value (defaults resolved), for banners, docs and the
    /// manifest: the kind's parameter struct serialised ([`crate::fields::KindParams::to_list`]).
    fn typed_params(&self) -> ParamList;
    /// Names of the modules `modules` will produce, without building them (collision checks).
    fn module_names(&self, design: &DesignInfo) -> Vec<String>;
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule>;
    /// Modules the generated tree emits for this block outside `rtl/` (a RIFL node's FPGA demo
    /// top and its testbench): the tree emits each demo for the first block of the design that
    /// offers it, and the collision check reserves those names.
    fn companion_modules(&self, _design: &DesignInfo) -> Option<Companions> {
        None
    }
    /// [`Block::modules`] with each module's [`Origin`] (kind, own parameters) filled in where the
    /// generator did not set one: what the design elaboration and sub-block users call.
    fn elaborate(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        let mut out = self.modules(design);
        for m in &mut out {
            if m.origin.is_none() {
                m.origin = Some(Origin { kind: self.kind(), params: self.typed_params() });
            }
        }
        out
    }
    /// For tests and the simulator: reach the concrete block (and so its reference model).
    fn as_any(&self) -> &dyn Any;
}

