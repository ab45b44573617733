//! Block kind `rxl_switch`: one direction of a FEC-only RXL switch port. It keeps no sequence
//! state and never looks at the CRC: `<prefix><name>_link_rx` decodes and corrects the flit
//! (an uncorrectable one is dropped and counted), `<prefix><name>_link_tx` re-encodes it for
//! the next link. They are two modules so a campaign can corrupt a flit between them (an error
//! inside the switch, which only the endpoints' end-to-end CRC can catch). See [`model`].

/// Cycles a switch port adds per direction (`link_rx` and `link_tx` registers).
pub const LATENCY_CYCLES: u32 = 2;

pub mod model;
mod rtl;

use crate::blocks::rxl_endpoint::flit::FecChoice;
use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::ConfigResult;
use crate::fields::{FieldReader, FieldSpec, FieldType};

pub struct RxlSwitchKind;

static FIELDS: [FieldSpec; 2] = [
    FieldSpec { name: "fec", ty: FieldType::Choice(&["pcie6", "generic"]), default: Some("\"pcie6\""), doc: "FEC layout of the flits (rs_fec), as the endpoints'" },
    FieldSpec { name: "counter_bits", ty: FieldType::UInt { min: 1, max: 64 }, default: Some("32"), doc: "width of the saturating status counters" },
];

/// A validated `rxl_switch` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxlSwitchBlock {
    pub name: String,
    pub fec: FecChoice,
    pub counter_bits: u32,
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
        let fec = if r.choice("fec")? == "pcie6" { FecChoice::Pcie6 } else { FecChoice::Generic };
        let counter_bits = r.u32("counter_bits")?;
        Ok(Box::new(RxlSwitchBlock { name: r.block().to_string(), fec, counter_bits }))
    }
}

impl Block for RxlSwitchBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "rxl_switch"
    }
    fn params(&self) -> Vec<(&'static str, String)> {
        vec![
            ("fec", match self.fec {
                FecChoice::Pcie6 => "pcie6",
                FecChoice::Generic => "generic",
            }
            .to_string()),
            ("counter_bits", self.counter_bits.to_string()),
        ]
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
