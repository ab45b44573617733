//! Block kind `crc`: a whole message per cycle, optionally with an Implicit Sequence Number.
//!
//! Emits `<prefix><name>` (data [+ seq] → crc) and, unless `checker = false`,
//! `<prefix><name>_check` (data [+ seq] + crc_in → ok). Both are affine maps over GF(2),
//! computed in Rust and emitted as masked parity reductions.

pub mod model;
mod props;
mod rtl;

use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::hw::xor_net::XorStyle;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use model::{CrcAlgo, CrcModel};
use serde::{Deserialize, Serialize};

pub struct CrcKind;

/// The CRC model fields, shared with `crc_stream`.
pub const ALGO_FIELDS: [FieldSpec; 6] = [
    FieldSpec { name: "width", ty: FieldType::UInt { min: 1, max: 64 }, default: None, doc: "CRC width in bits" },
    FieldSpec { name: "poly", ty: FieldType::Bits { width_field: "width" }, default: None, doc: "generator polynomial, normal form, x^width term implied" },
    FieldSpec { name: "init", ty: FieldType::Bits { width_field: "width" }, default: Some("0"), doc: "register value before the first bit (Rocksoft model)" },
    FieldSpec { name: "refin", ty: FieldType::Bool, default: Some("false"), doc: "bytes enter LSB first" },
    FieldSpec { name: "refout", ty: FieldType::Bool, default: Some("false"), doc: "register reflected before xorout" },
    FieldSpec { name: "xorout", ty: FieldType::Bits { width_field: "width" }, default: Some("0"), doc: "XORed into the result" },
];

static FIELDS: [FieldSpec; 12] = [
    ALGO_FIELDS[0],
    ALGO_FIELDS[1],
    ALGO_FIELDS[2],
    ALGO_FIELDS[3],
    ALGO_FIELDS[4],
    ALGO_FIELDS[5],
    FieldSpec { name: "data_bits", ty: FieldType::UInt { min: 8, max: 16384 }, default: None, doc: "message bits per cycle, a multiple of 8; byte i at data[8i+7:8i]" },
    FieldSpec { name: "seq_bits", ty: FieldType::UInt { min: 0, max: 32 }, default: Some("0"), doc: "0 = plain CRC; else ISN: seq XORed into data[seq_bits-1:0]" },
    FieldSpec { name: "pipeline", ty: FieldType::UInt { min: 0, max: 8 }, default: Some("0"), doc: "register stages (0 = combinational); latency in cycles" },
    FieldSpec { name: "checker", ty: FieldType::Bool, default: Some("true"), doc: "also emit <name>_check (crc_in → ok)" },
    FieldSpec {
        name: "xor_style",
        ty: FieldType::Choice(&["lut6_shared", "masked", "lut6_tree"]),
        default: Some("\"lut6_shared\""),
        doc: "combinational XOR network: 6-input XOR nodes shared between output bits within windows of the input (⌈log6 w⌉ LUT levels, fewest LUTs; see xor_window), masked reductions, or private 6-input XOR trees; pipelined networks are masked",
    },
    FieldSpec {
        name: "xor_window",
        ty: FieldType::UInt { min: 0, max: 16384 },
        default: Some("64"),
        doc: "lut6_shared only: least input columns of a first-level sharing window (×6 per level); 64 routes a flit-wide CRC on ECP5, 0 shares over the whole input (about 40 % fewer LUTs on wide CRCs, wires spanning the input: for ASICs); 0 or 6..=16384",
    },
];

/// The six Rocksoft fields ([`ALGO_FIELDS`]), as `crc` and `crc_stream` read them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlgoParams {
    pub width: u32,
    pub poly: u64,
    pub init: u64,
    pub refin: bool,
    pub refout: bool,
    pub xorout: u64,
}

impl AlgoParams {
    /// The validated algorithm; `error(field, problem)` names the block.
    pub fn algo(&self, error: impl Fn(&str, String) -> ConfigError) -> ConfigResult<CrcAlgo> {
        if self.poly == 0 {
            return Err(error("poly", format!("= 0x0 is not a generator polynomial; allowed 0x1..=0x{:X}", crate::math::lfsr::mask(self.width))));
        }
        let AlgoParams { width, poly, init, refin, refout, xorout } = *self;
        Ok(CrcAlgo { width, poly, init, refin, refout, xorout })
    }

    pub fn of(a: &CrcAlgo) -> AlgoParams {
        AlgoParams { width: a.width, poly: a.poly, init: a.init, refin: a.refin, refout: a.refout, xorout: a.xorout }
    }
}

/// The design-file spelling of an XOR network style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum XorStyleName {
    Lut6Shared,
    Masked,
    Lut6Tree,
}

impl XorStyleName {
    pub fn as_str(self) -> &'static str {
        match self {
            XorStyleName::Lut6Shared => "lut6_shared",
            XorStyleName::Masked => "masked",
            XorStyleName::Lut6Tree => "lut6_tree",
        }
    }
}

/// The parameters of a `crc` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrcParams {
    #[serde(flatten)]
    pub algo: AlgoParams,
    pub data_bits: u32,
    pub seq_bits: u32,
    pub pipeline: u32,
    pub checker: bool,
    pub xor_style: XorStyleName,
    /// Only where a shared network is built (`lut6_shared`, `pipeline = 0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xor_window: Option<u32>,
}

impl KindParams for CrcParams {
    const KIND: &'static str = "crc";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl CrcParams {
    /// The validated block named `name`. `xor_window` counts as given when it is set (a
    /// module's own parameters set it only where it applies).
    pub fn block(&self, name: &str) -> ConfigResult<CrcBlock> {
        self.validate(name, &|f| f == "xor_window" && self.xor_window.is_some())
    }

    /// The combinations the field ranges alone cannot express; `given(field)` says whether the
    /// design file set a field (setting `xor_window` where it does not apply is an error).
    pub fn validate(&self, name: &str, given: &dyn Fn(&str) -> bool) -> ConfigResult<CrcBlock> {
        let error = |field: &str, problem: String| ConfigError::Field { block: name.to_string(), kind: "crc", field: field.to_string(), problem };
        let algo = self.algo.algo(error)?;
        let CrcParams { data_bits, seq_bits, pipeline, xor_style: style, .. } = *self;
        if data_bits % 8 != 0 {
            return Err(error("data_bits", format!("= {data_bits} is not a multiple of 8; allowed 8, 16, …, 16384")));
        }
        if seq_bits > data_bits {
            return Err(error("seq_bits", format!("= {seq_bits} exceeds data_bits = {data_bits}; allowed 0..={}", data_bits.min(32))));
        }
        let window = self.window(given, &error)?;
        let xor_style = match style {
            XorStyleName::Lut6Tree => XorStyle::Lut6Tree,
            XorStyleName::Masked => XorStyle::Masked,
            // Pipelined networks register masked partial parities whatever the style.
            _ if pipeline > 0 => XorStyle::Masked,
            XorStyleName::Lut6Shared => XorStyle::Lut6Shared { window },
        };
        if xor_style == XorStyle::Lut6Tree && pipeline > 0 {
            return Err(error("xor_style", format!("= \"lut6_tree\" needs pipeline = 0 (got {pipeline}); pipelined networks register masked partial parities")));
        }
        Ok(CrcBlock { name: name.to_string(), params: self.as_built(xor_style), algorithm: algo, network: xor_style })
    }

    /// These parameters as the block builds them: the style of `network`, the window only
    /// where a shared network is built (so a module's own parameters rebuild the same block).
    fn as_built(&self, network: XorStyle) -> CrcParams {
        let (xor_style, xor_window) = match network {
            XorStyle::Masked => (XorStyleName::Masked, None),
            XorStyle::Lut6Tree => (XorStyleName::Lut6Tree, None),
            XorStyle::Lut6Shared { window } => (XorStyleName::Lut6Shared, Some(if window == usize::MAX { 0 } else { window as u32 })),
        };
        CrcParams { xor_style, xor_window, ..self.clone() }
    }

    /// `xor_window` as a planner window (0 → the whole input). Setting it where no shared
    /// network is built is an error rather than a silently ignored field.
    fn window(&self, given: &dyn Fn(&str) -> bool, error: &dyn Fn(&str, String) -> ConfigError) -> ConfigResult<usize> {
        let given = given("xor_window");
        let (style, pipeline) = (self.xor_style, self.pipeline);
        if given && style != XorStyleName::Lut6Shared {
            return Err(error("xor_window", format!("applies only to xor_style = \"lut6_shared\" (got \"{}\"); remove it", style.as_str())));
        }
        if given && pipeline > 0 {
            return Err(error("xor_window", format!("needs pipeline = 0 (got {pipeline}); pipelined networks register masked partial parities")));
        }
        match self.xor_window.unwrap_or(DEFAULT_XOR_WINDOW) {
            0 => Ok(usize::MAX),
            w if w < MIN_XOR_WINDOW => Err(error("xor_window", format!("= {w} is narrower than one LUT6's {MIN_XOR_WINDOW} inputs and shares nothing; allowed 0 (whole input) or {MIN_XOR_WINDOW}..=16384"))),
            w => Ok(w as usize),
        }
    }
}

/// `xor_window` when not given (as [`FIELDS`] says).
const DEFAULT_XOR_WINDOW: u32 = 64;

/// Narrowest useful sharing window: one LUT6's inputs.
const MIN_XOR_WINDOW: u32 = 6;

/// A validated `crc` block: its parameters as it builds them (`b.data_bits` reads the
/// parameter; the XOR style it builds, the window only where a shared network is built), and
/// the algorithm and XOR network they resolve to.
#[derive(Debug, Clone)]
pub struct CrcBlock {
    pub name: String,
    pub params: CrcParams,
    /// The Rocksoft algorithm of the `width`..`xorout` fields.
    pub algorithm: CrcAlgo,
    /// The XOR network `xor_style`, `xor_window` and `pipeline` resolve to.
    pub network: XorStyle,
}

impl std::ops::Deref for CrcBlock {
    type Target = CrcParams;
    fn deref(&self) -> &CrcParams {
        &self.params
    }
}

impl BlockKind for CrcKind {
    fn kind(&self) -> &'static str {
        "crc"
    }
    fn summary(&self) -> &'static str {
        "CRC of a whole message per cycle (any Rocksoft/reveng CRC), optionally with an Implicit Sequence Number, plus a checker"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        let p: CrcParams = read_params(r)?;
        Ok(Box::new(p.validate(r.block(), &|f| r.is_set(f))?))
    }
    fn value_note(&self, field: &str, value: &str) -> Option<&'static str> {
        (field == "xor_window" && value == "0").then_some("whole input")
    }
}

impl CrcBlock {
    pub fn model(&self) -> CrcModel {
        CrcModel::new(self.algorithm)
    }
}

impl Block for CrcBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "crc"
    }
    fn typed_params(&self) -> ParamList {
        self.params.to_list()
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        let base = format!("{}{}", design.prefix, self.name);
        if self.checker {
            vec![base.clone(), format!("{base}_check")]
        } else {
            vec![base]
        }
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        let names = self.module_names(design);
        let mut out = vec![rtl::generator(self, design, &names[0])];
        if self.checker {
            out.push(rtl::checker(self, design, &names[1]));
        }
        out
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Design;

    /// The struct and the field table name the same fields, and a block's parameters rebuild
    /// the same block (the whole-input window included).
    #[test]
    fn the_params_struct_is_the_field_table() {
        let text = "[design]\nname = \"d\"\n[[blocks]]\nkind = \"crc\"\nname = \"c\"\nwidth = 64\npoly = \"0x42F0E1EBA9EA3693\"\nxorout = \"0xFFFFFFFFFFFFFFFF\"\ndata_bits = 72\nxor_window = 0\n";
        let d = Design::parse(text, "test").expect("valid");
        let list = d.blocks[0].typed_params();
        let keys: Vec<&str> = list.iter().map(|(k, _)| *k).collect();
        let names: Vec<&str> = FIELDS.iter().map(|f| f.name).collect();
        assert_eq!(keys, names);
        assert_eq!(list.iter().find(|(k, _)| *k == "xor_window").map(|(_, v)| v.clone()), Some(serde_json::json!(0)));
        let p = CrcParams::from_list(&list).expect("deserialises");
        let b = p.block("c").expect("validates");
        assert_eq!(b.network, XorStyle::Lut6Shared { window: usize::MAX });
        assert_eq!(b.algorithm.xorout, u64::MAX);
        assert_eq!(b.params, p);
    }
}
