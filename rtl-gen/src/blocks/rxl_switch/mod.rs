//! Block kind `rxl_switch`: one direction of a FEC-only RXL switch port. It keeps no sequence
//! state and never looks at the CRC: `<prefix><name>_link_rx` decodes and corrects the flit
//! (an uncorrectable one is dropped and counted), `<prefix><name>_link_tx` re-encodes it for
//! the next link. They are two modules so a campaign can corrupt a flit between them (an error
//! inside the switch, which only the endpoints' end-to-end CRC can catch). See [`model`].

/// Register stages of the switch's FEC decoder (`rs_fec` `pipeline`): partial parities inside
/// the syndrome network, the syndromes, the located error, the corrected outputs. With two
/// stages the syndrome network and the location each take 7 LUT6 levels in one cycle.
pub const DEC_STAGES: u32 = 4;
/// Register stages of the switch's FEC encoder (`rs_fec` `enc_pipeline`): partial parities,
/// then the check bytes. One stage leaves 7 LUT6 levels before the flit output.
pub const ENC_STAGES: u32 = 2;
/// Cycles of `link_rx`, in_flit to out_msg and its counters: the decoder, then its register.
pub const LINK_RX_CYCLES: u32 = DEC_STAGES + 1;
/// Cycles of `link_tx`, in_msg to out_flit and its counter: the encoder.
pub const LINK_TX_CYCLES: u32 = ENC_STAGES;
/// Cycles a switch port adds per direction (`link_rx` then `link_tx`).
pub const LATENCY_CYCLES: u32 = LINK_RX_CYCLES + LINK_TX_CYCLES;

pub mod model;
mod props;
mod rtl;

use crate::blocks::rxl_endpoint::flit::FecChoice;
use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::ConfigResult;
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use serde::{Deserialize, Serialize};

pub struct RxlSwitchKind;

static FIELDS: [FieldSpec; 2] = [
    FieldSpec { name: "fec", ty: FieldType::Choice(&["pcie6", "generic"]), default: Some("\"pcie6\""), doc: "FEC layout of the flits (rs_fec), as the endpoints'" },
    FieldSpec { name: "counter_bits", ty: FieldType::UInt { min: 1, max: 64 }, default: Some("32"), doc: "width of the saturating status counters" },
];

/// The parameters of an `rxl_switch` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RxlSwitchParams {
    pub fec: FecChoice,
    pub counter_bits: u32,
}

impl KindParams for RxlSwitchParams {
    const KIND: &'static str = "rxl_switch";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl RxlSwitchParams {
    /// The block named `name` (every combination of the fields is valid).
    pub fn block(&self, name: &str) -> RxlSwitchBlock {
        RxlSwitchBlock { name: name.to_string(), params: self.clone() }
    }
}

/// A validated `rxl_switch` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxlSwitchBlock {
    pub name: String,
    pub params: RxlSwitchParams,
}

/// The block is its parameters under a name: `b.fec` reads the parameter.
impl std::ops::Deref for RxlSwitchBlock {
    type Target = RxlSwitchParams;
    fn deref(&self) -> &RxlSwitchParams {
        &self.params
    }
}

impl RxlSwitchBlock {
    pub fn codec(&self) -> crate::blocks::rxl_endpoint::flit::FlitCodec {
        // The CRC choice does not matter to a switch.
        crate::blocks::rxl_endpoint::flit::FlitCodec::new(crate::blocks::rxl_endpoint::flit::CrcChoice::RsCrc, self.fec)
    }
}

impl BlockKind for RxlSwitchKind {
    fn kind(&self) -> &'static str {
        "rxl_switch"
    }
    fn summary(&self) -> &'static str {
        "FEC-only RXL switch port (no sequence state): link_rx decodes/corrects and drops uncorrectable flits, link_tx re-encodes"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        Ok(Box::new(read_params::<RxlSwitchParams>(r)?.block(r.block())))
    }
}

impl Block for RxlSwitchBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "rxl_switch"
    }
    fn typed_params(&self) -> ParamList {
        self.params.to_list()
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        rtl::module_names(self, design)
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        rtl::modules(self, design)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod params_tests {
    use super::*;

    #[test]
    fn the_params_struct_is_the_field_table() {
        let b = RxlSwitchParams { fec: FecChoice::Generic, counter_bits: 16 }.block("s");
        let list = b.typed_params();
        assert_eq!(list, vec![("fec", serde_json::json!("generic")), ("counter_bits", serde_json::json!(16))]);
        assert_eq!(list.iter().map(|(k, _)| *k).collect::<Vec<_>>(), FIELDS.iter().map(|f| f.name).collect::<Vec<_>>());
        assert_eq!(RxlSwitchParams::from_list(&list).expect("deserialises").block("s"), b);
    }
}
