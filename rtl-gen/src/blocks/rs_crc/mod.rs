//! Block kind `rs_crc`: a CRC defined over GF(2^m), such as the PCIe 6.0 / CXL 3 flit CRC,
//! with the Implicit Sequence Number folded in.
//!
//! The check symbols are the remainder of data(x)·x^root_count mod
//! g(x) = (x + α^first_root)…(x + α^(first_root+root_count−1)), α a root of `field_poly`
//! (see [`model`]). That map is GF(2)-linear, so the generator `<prefix><name>` (data [+ seq] →
//! crc) and the checker `<prefix><name>_check` (data [+ seq] + crc_in → ok) are XOR networks
//! probed from the model ([`model::RsCrc::affine_columns`]), with the ports and the ISN
//! definition of the `crc` kind: seq is XORed into data[seq_bits−1:0].
//!
//! The roots are two fields, `first_root` and `root_count` (PCIe: α^1..α^8 → 1 and 8). Which
//! byte is the highest-degree coefficient is the `orientation` field and which bus bit carries
//! which coefficient of a symbol the `bit_order` field, so the code can be matched to a real
//! device (the normative PCIe generator matrix is not public here). No byte order with the bit
//! order lsb0 or msb0 detects every burst of ≤ 64 bits over 242 bytes (62 or 63 at most, see
//! [`model`]); `bit_order = "burst_optimal"` picks the first of the bit permutations that do.

pub mod model;
mod props;
mod rtl;

use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use crate::math::gf2m::Gf2m;
use model::{Orientation, RsCrc};
use serde::{Deserialize, Serialize};

pub struct RsCrcKind;

static FIELDS: [FieldSpec; 10] = [
    FieldSpec { name: "symbol_bits", ty: FieldType::UInt { min: 3, max: 12 }, default: Some("8"), doc: "m: bits per symbol of GF(2^m); data bits are cut into m-bit symbols LSB first" },
    FieldSpec { name: "field_poly", ty: FieldType::UInt { min: 0, max: 0x1FFF }, default: Some("0x12B"), doc: "primitive field polynomial in full form, x^m term included (0x12B = x^8+x^5+x^3+x+1, PCIe 6.0)" },
    FieldSpec { name: "first_root", ty: FieldType::UInt { min: 0, max: 4094 }, default: Some("1"), doc: "exponent of the first generator root α^first_root (below 2^m − 1)" },
    FieldSpec { name: "root_count", ty: FieldType::UInt { min: 1, max: 32 }, default: Some("8"), doc: "number of consecutive roots = check symbols; crc is root_count*m bits" },
    FieldSpec { name: "data_bytes", ty: FieldType::UInt { min: 1, max: 2048 }, default: None, doc: "message bytes per cycle; byte i at data[8i+7:8i]" },
    FieldSpec { name: "seq_bits", ty: FieldType::UInt { min: 0, max: 32 }, default: Some("0"), doc: "0 = plain; else ISN: seq XORed into data[seq_bits-1:0]" },
    FieldSpec { name: "pipeline", ty: FieldType::UInt { min: 0, max: 8 }, default: Some("0"), doc: "register stages (0 = combinational); latency in cycles" },
    FieldSpec { name: "checker", ty: FieldType::Bool, default: Some("true"), doc: "also emit <name>_check (crc_in → ok)" },
    FieldSpec {
        name: "orientation",
        ty: FieldType::Choice(&["msb_first", "lsb_first"]),
        default: Some("\"msb_first\""),
        doc: "msb_first: data byte 0 is the highest-degree coefficient and crc symbol 0 the highest remainder coefficient; lsb_first: both are the x^0 coefficients",
    },
    FieldSpec {
        name: "bit_order",
        ty: FieldType::Choice(&["lsb0", "msb0", "burst_optimal"]),
        default: Some("\"lsb0\""),
        doc: "which bus bit of a symbol carries α^b (data and crc alike): lsb0 bit b; msb0 bit m-1-b; burst_optimal the permutation (m <= 8) with the longest guaranteed burst detection",
    },
];

/// A validated `rs_crc` block: its parameters under a name (`b.symbol_bits` reads the
/// parameter) and the bit map `bit_order` resolves to.
#[derive(Debug, Clone)]
pub struct RsCrcBlock {
    pub name: String,
    pub params: RsCrcParams,
    /// `bit_map[b]`: the bus bit of a symbol carrying α^b (resolved from `bit_order`).
    pub bit_map: Vec<u8>,
}

impl std::ops::Deref for RsCrcBlock {
    type Target = RsCrcParams;
    fn deref(&self) -> &RsCrcParams {
        &self.params
    }
}

/// The `bit_order` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BitOrder {
    Lsb0,
    Msb0,
    BurstOptimal,
}

impl BitOrder {
    pub fn as_str(self) -> &'static str {
        match self {
            BitOrder::Lsb0 => "lsb0",
            BitOrder::Msb0 => "msb0",
            BitOrder::BurstOptimal => "burst_optimal",
        }
    }
}

impl RsCrcBlock {
    /// The reference model of this block (the same parameters, validated at parse time).
    pub fn model(&self) -> RsCrc {
        RsCrc::new(self.symbol_bits, self.field_poly, self.first_root, self.root_count as usize, self.data_bytes as usize, self.seq_bits, self.orientation)
            .expect("validated when the design was parsed")
            .with_bit_map(self.bit_map.clone())
    }

    pub fn data_bits(&self) -> u32 {
        8 * self.data_bytes
    }

    pub fn crc_bits(&self) -> u32 {
        self.root_count * self.symbol_bits
    }

    pub fn data_symbols(&self) -> u32 {
        self.data_bits().div_ceil(self.symbol_bits)
    }
}

impl BlockKind for RsCrcKind {
    fn kind(&self) -> &'static str {
        "rs_crc"
    }
    fn summary(&self) -> &'static str {
        "CRC over GF(2^m) (Reed-Solomon check symbols, e.g. the PCIe 6.0 / CXL 3 flit CRC), optionally with an Implicit Sequence Number, plus a checker"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        Ok(Box::new(read_params::<RsCrcParams>(r)?.block(r.block())?))
    }
}

/// The parameters of an `rs_crc` block, named and typed as [`FIELDS`] lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RsCrcParams {
    pub symbol_bits: u32,
    pub field_poly: u32,
    pub first_root: u32,
    pub root_count: u32,
    pub data_bytes: u32,
    pub seq_bits: u32,
    pub pipeline: u32,
    pub checker: bool,
    pub orientation: Orientation,
    pub bit_order: BitOrder,
}

impl KindParams for RsCrcParams {
    const KIND: &'static str = "rs_crc";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl RsCrcParams {
    /// The validated block named `name`: the combinations the field ranges cannot express, and
    /// the bit map `bit_order` resolves to.
    pub fn block(&self, name: &str) -> ConfigResult<RsCrcBlock> {
        let error = |field: &str, problem: String| ConfigError::Field { block: name.to_string(), kind: Self::KIND, field: field.to_string(), problem };
        let RsCrcParams { symbol_bits, field_poly, first_root, root_count, data_bytes, seq_bits, orientation, bit_order, .. } = *self;
        let field = Gf2m::new(symbol_bits, field_poly).map_err(|e| error("field_poly", format!("= {field_poly:#X}: {e}; allowed a primitive polynomial of degree {symbol_bits}")))?;
        let order = field.order();
        if first_root >= order {
            return Err(error("first_root", format!("= {first_root} is out of range for GF(2^{symbol_bits}); allowed 0..={}", order - 1)));
        }
        if root_count >= order {
            return Err(error("root_count", format!("= {root_count} is out of range for GF(2^{symbol_bits}); allowed 1..={}", (order - 2).min(32))));
        }
        let data_symbols = (8 * data_bytes).div_ceil(symbol_bits);
        if data_symbols + root_count > order {
            let max_bytes = (order - root_count) * symbol_bits / 8;
            return Err(error(
                "data_bytes",
                format!(
                    "= {data_bytes} makes {data_symbols} data symbols + {root_count} check symbols, more than the {order} of a Reed-Solomon code over GF(2^{symbol_bits}); allowed 1..={max_bytes}"
                ),
            ));
        }
        if seq_bits > 8 * data_bytes {
            return Err(error("seq_bits", format!("= {seq_bits} exceeds the {} data bits; allowed 0..={}", 8 * data_bytes, (8 * data_bytes).min(32))));
        }
        // Every rule of the model is checked above; this only guards against drift.
        let model = RsCrc::new(symbol_bits, field_poly, first_root, root_count as usize, data_bytes as usize, seq_bits, orientation).map_err(|e| error("data_bytes", e.to_string()))?;
        let bit_map = match bit_order {
            BitOrder::Lsb0 => (0..symbol_bits as u8).collect(),
            BitOrder::Msb0 => (0..symbol_bits as u8).rev().collect(),
            BitOrder::BurstOptimal if symbol_bits > 8 => {
                return Err(error("bit_order", format!("= \"burst_optimal\" searches all m! bit orders, up to symbol_bits = 8 (here {symbol_bits}); allowed \"lsb0\", \"msb0\"")))
            }
            BitOrder::BurstOptimal => model.burst_optimal_bit_map().0,
        };
        Ok(RsCrcBlock { name: name.to_string(), params: self.clone(), bit_map })
    }
}

impl Block for RsCrcBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "rs_crc"
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
        let model = self.model();
        let mut out = vec![rtl::generator(self, &model, design, &names[0])];
        if self.checker {
            out.push(rtl::checker(self, &model, design, &names[1]));
        }
        out
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
