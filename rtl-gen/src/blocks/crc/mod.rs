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
use crate::error::ConfigResult;
use crate::fields::{FieldReader, FieldSpec, FieldType};
use model::{CrcAlgo, CrcModel};

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

/// Narrowest useful sharing window: one LUT6's inputs.
const MIN_XOR_WINDOW: u32 = 6;

/// Read and validate the six Rocksoft fields.
pub fn read_algo(r: &mut FieldReader) -> ConfigResult<CrcAlgo> {
    let width = r.u32("width")?;
    let poly = r.bits("poly", width)? as u64;
    if poly == 0 {
        return Err(r.error("poly", format!("= 0x0 is not a generator polynomial; allowed 0x1..=0x{:X}", crate::math::lfsr::mask(width))));
    }
    let init = r.bits("init", width)? as u64;
    let refin = r.bool("refin")?;
    let refout = r.bool("refout")?;
    let xorout = r.bits("xorout", width)? as u64;
    Ok(CrcAlgo { width, poly, init, refin, refout, xorout })
}

/// The Rocksoft parameters as banner/doc lines.
pub fn algo_params(a: &CrcAlgo) -> Vec<(&'static str, String)> {
    let digits = (a.width as usize).div_ceil(4);
    vec![
        ("width", a.width.to_string()),
        ("poly", format!("0x{:0digits$X}", a.poly)),
        ("init", format!("0x{:0digits$X}", a.init)),
        ("refin", a.refin.to_string()),
        ("refout", a.refout.to_string()),
        ("xorout", format!("0x{:0digits$X}", a.xorout)),
    ]
}

/// A validated `crc` block.
#[derive(Debug, Clone)]
pub struct CrcBlock {
    pub name: String,
    pub algo: CrcAlgo,
    pub data_bits: u32,
    pub seq_bits: u32,
    pub pipeline: u32,
    pub checker: bool,
    pub xor_style: XorStyle,
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
        let algo = read_algo(r)?;
        let data_bits = r.u32("data_bits")?;
        if data_bits % 8 != 0 {
            return Err(r.error("data_bits", format!("= {data_bits} is not a multiple of 8; allowed 8, 16, …, 16384")));
        }
        let seq_bits = r.u32("seq_bits")?;
        if seq_bits > data_bits {
            return Err(r.error("seq_bits", format!("= {seq_bits} exceeds data_bits = {data_bits}; allowed 0..={}", data_bits.min(32))));
        }
        let pipeline = r.u32("pipeline")?;
        let checker = r.bool("checker")?;
        let style = r.choice("xor_style")?;
        let window = read_window(r, style, pipeline)?;
        let xor_style = match style {
            "lut6_tree" => XorStyle::Lut6Tree,
            "masked" => XorStyle::Masked,
            // Pipelined networks register masked partial parities whatever the style.
            _ if pipeline > 0 => XorStyle::Masked,
            _ => XorStyle::Lut6Shared { window },
        };
        if xor_style == XorStyle::Lut6Tree && pipeline > 0 {
            return Err(r.error("xor_style", format!("= \"lut6_tree\" needs pipeline = 0 (got {pipeline}); pipelined networks register masked partial parities")));
        }
        Ok(Box::new(CrcBlock { name: r.block().to_string(), algo, data_bits, seq_bits, pipeline, checker, xor_style }))
    }
    fn value_note(&self, field: &str, value: &str) -> Option<&'static str> {
        (field == "xor_window" && value == "0").then_some("whole input")
    }
}

/// `xor_window` as a planner window (0 → the whole input). Setting it where no shared network
/// is built is an error rather than a silently ignored field.
fn read_window(r: &mut FieldReader, style: &str, pipeline: u32) -> ConfigResult<usize> {
    let given = r.is_set("xor_window");
    let window = r.u32("xor_window")?;
    if given && style != "lut6_shared" {
        return Err(r.error("xor_window", format!("applies only to xor_style = \"lut6_shared\" (got \"{style}\"); remove it")));
    }
    if given && pipeline > 0 {
        return Err(r.error("xor_window", format!("needs pipeline = 0 (got {pipeline}); pipelined networks register masked partial parities")));
    }
    match window {
        0 => Ok(usize::MAX),
        w if w < MIN_XOR_WINDOW => Err(r.error("xor_window", format!("= {w} is narrower than one LUT6's {MIN_XOR_WINDOW} inputs and shares nothing; allowed 0 (whole input) or {MIN_XOR_WINDOW}..=16384"))),
        w => Ok(w as usize),
    }
}

/// The design-file spelling of a style.
fn style_name(style: XorStyle) -> &'static str {
    match style {
        XorStyle::Masked => "masked",
        XorStyle::Lut6Tree => "lut6_tree",
        XorStyle::Lut6Shared { .. } => "lut6_shared",
    }
}

impl CrcBlock {
    pub fn model(&self) -> CrcModel {
        CrcModel::new(self.algo)
    }
}

impl Block for CrcBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "crc"
    }
    fn params(&self) -> Vec<(&'static str, String)> {
        let mut p = algo_params(&self.algo);
        p.push(("data_bits", self.data_bits.to_string()));
        p.push(("seq_bits", self.seq_bits.to_string()));
        p.push(("pipeline", self.pipeline.to_string()));
        p.push(("checker", self.checker.to_string()));
        p.push(("xor_style", style_name(self.xor_style).to_string()));
        if let XorStyle::Lut6Shared { window } = self.xor_style {
            p.push(("xor_window", if window == usize::MAX { "0".to_string() } else { window.to_string() }));
        }
        p
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
