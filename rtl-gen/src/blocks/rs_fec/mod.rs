//! Block kind `rs_fec`: interleaved Reed-Solomon FEC for flits (CXL/PCIe 6 generic and pcie6
//! layouts, Ethernet KR4/KP4).
//!
//! Emits `<prefix><name>_enc` (msg → cw, the model's encoder as one XOR network) and
//! `<prefix><name>_dec` (cw → corrected msg and per-way flags). Decoders:
//! - t = 1 (`check_symbols = 2`, both layouts), `rtl/dec_t1.rs`: syndromes as XOR networks, then for
//!   every existing position of a way in parallel the test S1 == α^d·S0 (constant multipliers,
//!   no ROM); a nonzero syndrome pair that matches no existing position (shortened positions
//!   included) marks the way uncorrectable and its symbols pass through unchanged.
//! - t > 1, `rtl/dec_bm.rs`: syndromes, an unrolled inversionless Berlekamp–Massey, a Chien search
//!   over the existing positions, compaction of the located message positions into t slots and
//!   Forney's formula per slot, with register stages placed by `pipeline`.
//!
//! Both decoders agree bit for bit with the reference models in [`model`]
//! ([`model::InterleavedFec`], [`model::Pcie6Fec`]), miscorrections included.
//!
//! `symbols_per_cycle` = P < N selects the streaming form (issue 15; generic layout, one way):
//! `rtl/enc_stream.rs` and `rtl/dec_stream.rs` move P symbols per beat over tvalid/tready/tlast, one
//! codeword every ⌈N/P⌉ clocks, the decoder with P-parallel syndromes, a shared RiBM solver,
//! P-parallel Chien/Forney, the received words in block RAM, bypass controls, saturating
//! counters and a degraded-SER alarm (IEEE 802.3 clause 91 / 134 defaults). Its models are in
//! [`model::stream`]: the arithmetic equal to [`model::RsCode::decode`], and the cycle behaviour.

pub mod model;
pub mod props;
pub mod stream_props;
mod rtl;


use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::{ConfigError, ConfigResult};
use crate::fields::{read_params, FieldReader, FieldSpec, FieldType, KindParams, ParamList};
use serde::{Deserialize, Serialize};
use crate::math::gf2m::{AffineMasks, Gf2m};
use model::{FecDecoded, FlitFec, InterleavedFec, Pcie6Fec, FLIT_FEC_FIELD_POLY};

pub struct RsFecKind;

static FIELDS: [FieldSpec; 14] = [
    FieldSpec { name: "symbol_bits", ty: FieldType::UInt { min: 3, max: 12 }, default: Some("8"), doc: "m: bits per symbol of GF(2^m)" },
    FieldSpec { name: "field_poly", ty: FieldType::UInt { min: 0, max: 0x1FFF }, default: Some("0x11D"), doc: "primitive field polynomial in full form, x^m term included (0x11D = x^8+x^4+x^3+x^2+1)" },
    FieldSpec { name: "fcr", ty: FieldType::UInt { min: 0, max: 4094 }, default: Some("0"), doc: "first consecutive root: generator roots α^fcr … α^(fcr+check_symbols-1)" },
    FieldSpec { name: "check_symbols", ty: FieldType::UInt { min: 2, max: 64 }, default: Some("2"), doc: "check symbols per way, 2t (even): corrects t symbol errors per way" },
    FieldSpec { name: "ways", ty: FieldType::UInt { min: 1, max: 64 }, default: Some("1"), doc: "interleave factor: flit symbol i belongs to way i mod ways" },
    FieldSpec {
        name: "msg_bytes",
        ty: FieldType::UInt { min: 1, max: 8192 },
        default: Some("derived: layout = \"pcie6\" (250); otherwise this or msg_symbols is required"),
        doc: "message bytes of the whole flit (symbol_bits = 8; else give msg_symbols)",
    },
    FieldSpec {
        name: "msg_symbols",
        ty: FieldType::UInt { min: 1, max: 16384 },
        default: Some("derived: msg_bytes (one of the two is required)"),
        doc: "message symbols of the whole flit, packed LSB first (instead of msg_bytes)",
    },
    FieldSpec { name: "pipeline", ty: FieldType::UInt { min: 0, max: 80 }, default: Some("0"), doc: "register stages of each module (0 = combinational); latency in cycles" },
    FieldSpec {
        name: "enc_pipeline",
        ty: FieldType::UInt { min: 0, max: 80 },
        default: Some("derived: pipeline"),
        doc: "register stages of the encoder alone; its XOR network uses at most 2, more only delay the codeword",
    },
    FieldSpec {
        name: "layout",
        ty: FieldType::Choice(&["generic", "pcie6"]),
        default: Some("\"generic\""),
        doc: "generic: message then check symbols, way = index mod ways; pcie6: the PCIe 6.0 / CXL 3 256-byte flit FEC",
    },
    FieldSpec {
        name: "symbols_per_cycle",
        ty: FieldType::UInt { min: 1, max: 16384 },
        default: Some("derived: N, the codeword's symbols (the whole-codeword form)"),
        doc: "P: codeword symbols per clock, 1..=N; N (the default) is the whole-codeword form, P < N the streaming form (ways = 1, generic layout)",
    },
    FieldSpec {
        name: "ser_threshold",
        ty: FieldType::UInt { min: 0, max: 0xFFFF_FFFF },
        default: Some("derived: the code and ser_window (417 for RS(528,514) and 6380 for RS(544,514) at 8192 codewords, else floor(ser_window*N/10^4))"),
        doc: "streaming decoder: degraded-SER alarm when more corrected symbols than this fall in a window",
    },
    FieldSpec { name: "ser_window", ty: FieldType::UInt { min: 1, max: 1 << 24 }, default: Some("8192"), doc: "streaming decoder: codewords per degraded-SER window" },
    FieldSpec { name: "counter_bits", ty: FieldType::UInt { min: 4, max: 48 }, default: Some("32"), doc: "streaming decoder: width of the saturating corrected-symbol, corrected-bit and uncorrectable-codeword counters" },
];

/// The streaming form's settings (`symbols_per_cycle` < N).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    /// P: symbols per beat.
    pub symbols_per_cycle: u32,
    pub ser_threshold: u64,
    pub ser_window: u64,
    pub counter_bits: u32,
}

/// Which flit layout a block uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    Generic,
    Pcie6,
}

/// Largest codeword the generator accepts, in bits (KP4 is 5440).
const MAX_CW_BITS: u32 = 65536;
/// Largest `pipeline` of a t = 1 decoder: two stages in the syndrome network, one after the
/// location, the output register.
const MAX_T1_PIPELINE: u32 = 4;

/// A validated `rs_fec` block: its parameters as validation normalised them (`b.ways` reads
/// the parameter; the pcie6 layout's fixed code values filled in, the message field the block
/// uses, `enc_pipeline` only where it overrides `pipeline`, the streaming settings only for the
/// streaming form) and, beside them, the values they resolve to.
#[derive(Debug, Clone)]
pub struct RsFecBlock {
    pub name: String,
    pub params: RsFecParams,
    /// Message symbols of the flit, whichever of `msg_bytes`/`msg_symbols` gave them.
    pub flit_msg_symbols: u32,
    /// Register stages of the encoder: its latency (`enc_pipeline`, else `pipeline`). A KR4/KP4
    /// decoder needs 8–12 stages, an encoder's XOR network only 2; carrying the message through
    /// the rest costs flip-flops.
    pub enc_stages: u32,
    /// The streaming form, or `None` for the whole-codeword form (P = N).
    pub stream: Option<Stream>,
}

impl std::ops::Deref for RsFecBlock {
    type Target = RsFecParams;
    fn deref(&self) -> &RsFecParams {
        &self.params
    }
}

/// The code's fields read through the parameters (`p.symbol_bits`).
impl std::ops::Deref for RsFecParams {
    type Target = RsFecCode;
    fn deref(&self) -> &RsFecCode {
        &self.code
    }
}

/// The reference model of a block: either layout, driven through [`FlitFec`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RsFecModel {
    Generic(InterleavedFec),
    Pcie6(Pcie6Fec),
}

impl RsFecModel {
    pub fn as_flit_fec(&self) -> &dyn FlitFec {
        match self {
            RsFecModel::Generic(f) => f,
            RsFecModel::Pcie6(f) => f,
        }
    }
}

impl FlitFec for RsFecModel {
    fn symbol_bits(&self) -> u32 {
        self.as_flit_fec().symbol_bits()
    }
    fn msg_bits(&self) -> usize {
        self.as_flit_fec().msg_bits()
    }
    fn cw_bits(&self) -> usize {
        self.as_flit_fec().cw_bits()
    }
    fn ways(&self) -> usize {
        self.as_flit_fec().ways()
    }
    fn way_of(&self, index: usize) -> usize {
        self.as_flit_fec().way_of(index)
    }
    fn encode(&self, msg: &[u8]) -> Vec<u8> {
        self.as_flit_fec().encode(msg)
    }
    fn decode(&self, cw: &[u8]) -> FecDecoded {
        self.as_flit_fec().decode(cw)
    }
    fn syndromes(&self, cw: &[u8]) -> Vec<Vec<u16>> {
        self.as_flit_fec().syndromes(cw)
    }
    fn affine_columns(&self) -> AffineMasks {
        self.as_flit_fec().affine_columns()
    }
}

impl RsFecBlock {
    /// The block of a validated code: `code` with the message field it uses and without a beat
    /// width, `msg_symbols` its message symbols (the block's `flit_msg_symbols`); the parameters are normalised here.
    fn resolved(name: &str, code: RsFecCode, msg_symbols: u32, pipeline: u32, enc_pipeline: u32, stream: Option<Stream>) -> RsFecBlock {
        let (msg_bytes, message_symbols) = if code.symbol_bits == 8 { (Some(msg_symbols), None) } else { (None, Some(msg_symbols)) };
        let code = RsFecCode { msg_bytes, msg_symbols: message_symbols, symbols_per_cycle: stream.map(|s| s.symbols_per_cycle), ..code };
        let params = RsFecParams {
            code,
            pipeline,
            enc_pipeline: (enc_pipeline != pipeline).then_some(enc_pipeline),
            ser_threshold: stream.map(|s| s.ser_threshold),
            ser_window: stream.map(|s| s.ser_window),
            counter_bits: stream.map(|s| s.counter_bits),
        };
        RsFecBlock { name: name.to_string(), params, flit_msg_symbols: msg_symbols, enc_stages: enc_pipeline, stream }
    }

    /// Correctable symbol errors per way.
    pub fn t(&self) -> u32 {
        self.check_symbols / 2
    }

    pub fn msg_bits(&self) -> u32 {
        self.flit_msg_symbols * self.symbol_bits
    }

    pub fn cw_symbols(&self) -> u32 {
        self.flit_msg_symbols + self.ways * self.check_symbols
    }

    pub fn cw_bits(&self) -> u32 {
        self.cw_symbols() * self.symbol_bits
    }

    pub fn field(&self) -> Gf2m {
        Gf2m::new(self.symbol_bits, self.field_poly).expect("validated when the design was parsed")
    }

    /// The reference model (the same parameters, validated at parse time).
    pub fn model(&self) -> RsFecModel {
        match self.layout {
            Layout::Pcie6 => RsFecModel::Pcie6(Pcie6Fec::new()),
            Layout::Generic => RsFecModel::Generic(self.generic_model()),
        }
    }

    fn generic_model(&self) -> InterleavedFec {
        InterleavedFec::new(self.symbol_bits, self.field_poly, self.fcr, self.flit_msg_symbols as usize, self.ways as usize, self.check_symbols as usize)
            .expect("validated when the design was parsed")
    }

    /// The streaming form's codec (panics for a whole-codeword block).
    pub fn stream_code(&self) -> model::stream::StreamCode {
        let st = self.stream.expect("streaming block");
        model::stream::StreamCode::new(self.generic_model().way_code(0).clone(), st.symbols_per_cycle as usize)
    }

    /// The streaming encoder's cycle model.
    pub fn stream_encoder(&self) -> model::stream::StreamEncoder {
        model::stream::StreamEncoder::new(self.stream_code())
    }

    /// The streaming decoder's cycle model.
    pub fn stream_decoder(&self) -> model::stream::StreamDecoder {
        let st = self.stream.expect("streaming block");
        let settings = model::stream::DecSettings { counter_bits: st.counter_bits, ser_threshold: st.ser_threshold, ser_window: st.ser_window };
        model::stream::StreamDecoder::new(self.stream_code(), settings)
    }

    /// The largest `pipeline` the decoder takes (the encoder takes any up to the field's max).
    pub fn max_pipeline(&self) -> u32 {
        if self.t() == 1 {
            MAX_T1_PIPELINE
        } else {
            rtl::decoder_steps(self)
        }
    }

}

/// What the encoder and the decoder of a block share: the code, its place in the flit and the
/// beat width. One of `msg_bytes`/`msg_symbols` is set, `symbols_per_cycle` only for the
/// streaming form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RsFecCode {
    pub symbol_bits: u32,
    pub field_poly: u32,
    pub fcr: u32,
    pub check_symbols: u32,
    pub ways: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg_symbols: Option<u32>,
    pub layout: Layout,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbols_per_cycle: Option<u32>,
}

/// The parameters of an `rs_fec` block, named and typed as [`FIELDS`] lists them: the code and
/// the stages and counters of the decoder and the encoder. Fields that only some blocks have
/// (the override `enc_pipeline`, the streaming decoder's settings) are `None` where a block
/// has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RsFecParams {
    #[serde(flatten)]
    pub code: RsFecCode,
    pub pipeline: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enc_pipeline: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ser_threshold: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ser_window: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter_bits: Option<u32>,
}

impl KindParams for RsFecParams {
    const KIND: &'static str = "rs_fec";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

/// `ser_window` and `counter_bits` when not given (as [`FIELDS`] says).
const DEFAULT_SER_WINDOW: u64 = 8192;
const DEFAULT_COUNTER_BITS: u32 = 32;

/// The PCIe 6.0 flit FEC's fixed values, checked against what the user wrote.
const PCIE6_FIXED: [(&str, u32); 6] = [("symbol_bits", 8), ("field_poly", FLIT_FEC_FIELD_POLY), ("fcr", 0), ("check_symbols", 2), ("ways", 3), ("msg_bytes", 250)];

impl RsFecParams {
    /// The validated block named `name`; a field counts as given when the struct lists it.
    pub fn block(&self, name: &str) -> ConfigResult<RsFecBlock> {
        let listed: Vec<&str> = self.to_list().iter().map(|(k, _)| *k).collect();
        self.validate(name, &|f| listed.contains(&f))
    }

    /// The combinations the field ranges alone cannot express; `given(field)` says whether the
    /// design file set a field (the pcie6 layout refuses values other than its own, a
    /// whole-codeword block the streaming settings).
    pub fn validate(&self, name: &str, given: &dyn Fn(&str) -> bool) -> ConfigResult<RsFecBlock> {
        let error = |field: &str, problem: String| ConfigError::Field { block: name.to_string(), kind: Self::KIND, field: field.to_string(), problem };
        match self.code.layout {
            Layout::Pcie6 => self.pcie6(name, given, &error),
            Layout::Generic => self.generic(name, given, &error),
        }
    }

    fn value(&self, field: &str) -> Option<u64> {
        self.to_list().into_iter().find(|(k, _)| *k == field).and_then(|(_, v)| v.as_u64())
    }

    fn pcie6(&self, name: &str, given: &dyn Fn(&str) -> bool, error: &dyn Fn(&str, String) -> ConfigError) -> ConfigResult<RsFecBlock> {
        for (field, value) in PCIE6_FIXED {
            if given(field) {
                let v = self.value(field).unwrap_or_default() as u32;
                if v != value {
                    let shown = if field == "field_poly" { format!("{v:#X}") } else { v.to_string() };
                    let allowed = if field == "field_poly" { format!("{value:#X}") } else { value.to_string() };
                    return Err(error(
                        field,
                        format!("= {shown} does not fit layout = \"pcie6\" (the PCIe 6.0 / CXL 3 flit FEC: 250 message bytes in 3 groups with a check and a parity byte each, GF(2^8) mod 0x11D); allowed {allowed}, or leave it out"),
                    ));
                }
            }
        }
        if let Some(v) = self.code.msg_symbols {
            return Err(error("msg_symbols", format!("= {v} does not fit layout = \"pcie6\", which has 250 message bytes; leave it out")));
        }
        let pipeline = self.pipeline;
        if pipeline > MAX_T1_PIPELINE {
            return Err(error("pipeline", format!("= {pipeline} is more than a t = 1 decoder can use; allowed 0..={MAX_T1_PIPELINE}")));
        }
        let enc_pipeline = self.enc_pipeline.unwrap_or(pipeline);
        if let Some(v) = self.code.symbols_per_cycle {
            if v != 256 {
                return Err(error("symbols_per_cycle", format!("= {v}: the streaming form needs layout = \"generic\" with ways = 1; allowed 256 (the whole flit) with layout = \"pcie6\"")));
            }
        }
        self.reject_stream_fields(given, error)?;
        let code = RsFecCode { symbol_bits: 8, field_poly: FLIT_FEC_FIELD_POLY, fcr: 0, check_symbols: 2, ways: 3, msg_bytes: None, msg_symbols: None, layout: Layout::Pcie6, symbols_per_cycle: None };
        Ok(RsFecBlock::resolved(name, code, 250, pipeline, enc_pipeline, None))
    }

    /// The streaming-only fields given to a whole-codeword block.
    fn reject_stream_fields(&self, given: &dyn Fn(&str) -> bool, error: &dyn Fn(&str, String) -> ConfigError) -> ConfigResult<()> {
        for field in ["ser_threshold", "ser_window", "counter_bits"] {
            if given(field) {
                let v = self.value(field).unwrap_or_default();
                return Err(error(field, format!("= {v} applies to the streaming decoder only; set symbols_per_cycle below the codeword's symbols, or leave it out")));
            }
        }
        Ok(())
    }

    /// `symbols_per_cycle` and the streaming decoder's settings; `None` for the whole-codeword form.
    fn stream(&self, b: &RsFecBlock, given: &dyn Fn(&str) -> bool, error: &dyn Fn(&str, String) -> ConfigError) -> ConfigResult<Option<Stream>> {
        let n = b.cw_symbols();
        let Some(p) = self.code.symbols_per_cycle else {
            self.reject_stream_fields(given, error)?;
            return Ok(None);
        };
        if p > n {
            return Err(error("symbols_per_cycle", format!("= {p} is more than the codeword's {n} symbols; allowed 1..={n}")));
        }
        if p == n {
            self.reject_stream_fields(given, error)?;
            return Ok(None);
        }
        if b.ways != 1 {
            return Err(error("symbols_per_cycle", format!("= {p} (streaming) needs ways = 1 (here {}); allowed {n} (the whole codeword) with ways > 1", b.ways)));
        }
        let ser_window = self.ser_window.unwrap_or(DEFAULT_SER_WINDOW);
        let ser_threshold = self.ser_threshold.unwrap_or_else(|| model::stream::default_ser_threshold(n as usize, b.flit_msg_symbols as usize, ser_window));
        let counter_bits = self.counter_bits.unwrap_or(DEFAULT_COUNTER_BITS);
        Ok(Some(Stream { symbols_per_cycle: p, ser_threshold, ser_window, counter_bits }))
    }

    fn generic(&self, name: &str, given: &dyn Fn(&str) -> bool, error: &dyn Fn(&str, String) -> ConfigError) -> ConfigResult<RsFecBlock> {
        let RsFecCode { symbol_bits, field_poly, fcr, check_symbols, ways, .. } = self.code;
        let pipeline = self.pipeline;
        let field = Gf2m::new(symbol_bits, field_poly).map_err(|e| error("field_poly", format!("= {field_poly:#X}: {e}; allowed a primitive polynomial of degree {symbol_bits}")))?;
        let order = field.order();
        if fcr >= order {
            return Err(error("fcr", format!("= {fcr} is out of range for GF(2^{symbol_bits}); allowed 0..={}", order - 1)));
        }
        if check_symbols % 2 != 0 {
            return Err(error("check_symbols", format!("= {check_symbols} is odd; allowed an even number 2..=64 (2t check symbols correct t errors per way)")));
        }
        if check_symbols >= order {
            return Err(error("check_symbols", format!("= {check_symbols} leaves no message symbol in a code over GF(2^{symbol_bits}); allowed 2..={}", (order - 2) & !1)));
        }
        let (msg_field, msg_symbols) = match (self.code.msg_bytes, self.code.msg_symbols) {
            (Some(_), Some(v)) => return Err(error("msg_symbols", format!("= {v} given together with msg_bytes; allowed only one of them"))),
            (Some(v), None) if symbol_bits != 8 => return Err(error("msg_bytes", format!("= {v} needs symbol_bits = 8 (here {symbol_bits}); give msg_symbols instead"))),
            (Some(v), None) => ("msg_bytes", v),
            (None, Some(v)) => ("msg_symbols", v),
            (None, None) => {
                let which = if symbol_bits == 8 { "msg_bytes" } else { "msg_symbols" };
                return Err(error(which, "is required; allowed 1..=8192 (msg_bytes, symbol_bits = 8) or 1..=16384 (msg_symbols)".into()));
            }
        };
        if msg_symbols < ways {
            return Err(error(msg_field, format!("= {msg_symbols} is smaller than ways = {ways}: every way needs a message symbol; allowed {ways}..")));
        }
        let max_msg = ways * (order - check_symbols);
        if msg_symbols > max_msg {
            let longest = (msg_symbols + ways * check_symbols).div_ceil(ways);
            return Err(error(
                msg_field,
                format!(
                    "= {msg_symbols} makes way 0 a codeword of {longest} symbols, more than the {order} of a Reed-Solomon code over GF(2^{symbol_bits}); allowed {ways}..={max_msg} with ways = {ways} and check_symbols = {check_symbols}"
                ),
            ));
        }
        let cw_bits = (msg_symbols + ways * check_symbols) * symbol_bits;
        if cw_bits > MAX_CW_BITS {
            let max = MAX_CW_BITS / symbol_bits - ways * check_symbols;
            return Err(error(msg_field, format!("= {msg_symbols} makes a {cw_bits}-bit codeword, more than the generator's {MAX_CW_BITS}; allowed {ways}..={max}")));
        }
        let enc_pipeline = self.enc_pipeline.unwrap_or(pipeline);
        let stream = self.stream(&RsFecBlock::resolved(name, self.code.clone(), msg_symbols, pipeline, enc_pipeline, None), given, error)?;
        let block = RsFecBlock::resolved(name, self.code.clone(), msg_symbols, pipeline, enc_pipeline, stream);
        if pipeline > block.max_pipeline() {
            return Err(error("pipeline", format!("= {pipeline} is more stages than the t = {} decoder has places for; allowed 0..={}", block.t(), block.max_pipeline())));
        }
        // Every rule of the model is checked above; this only guards against drift.
        InterleavedFec::new(symbol_bits, field_poly, fcr, msg_symbols as usize, ways as usize, check_symbols as usize).map_err(|e| error(msg_field, e.to_string()))?;
        Ok(block)
    }

}

/// What an encoder is built from: the code, the encoder's own register stages (as `pipeline`,
/// its latency), without the decoder's stages and counters, so the encoders of blocks that
/// differ only in their decoders are one module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RsFecEncParams {
    #[serde(flatten)]
    pub code: RsFecCode,
    /// The encoder's register stages (the block's `enc_pipeline`).
    pub pipeline: u32,
}

impl KindParams for RsFecEncParams {
    const KIND: &'static str = "rs_fec";
    fn fields() -> &'static [FieldSpec] {
        &FIELDS
    }
}

impl RsFecEncParams {
    pub fn of(b: &RsFecBlock) -> RsFecEncParams {
        RsFecEncParams { code: b.code.clone(), pipeline: b.enc_stages }
    }

    /// A block whose encoder is this one (its decoder combinational, the streaming decoder's
    /// settings their defaults): what the encoder's reference model is built from.
    pub fn block(&self, name: &str) -> ConfigResult<RsFecBlock> {
        let p = RsFecParams { code: self.code.clone(), pipeline: 0, enc_pipeline: Some(self.pipeline), ser_threshold: None, ser_window: None, counter_bits: None };
        p.block(name)
    }
}

impl RsFecParams {
    /// What a decoder is built from: the block's parameters without the encoder's stages.
    pub fn decoder_of(b: &RsFecBlock) -> RsFecParams {
        RsFecParams { enc_pipeline: None, ..b.params.clone() }
    }
}

impl BlockKind for RsFecKind {
    fn kind(&self) -> &'static str {
        "rs_fec"
    }
    fn summary(&self) -> &'static str {
        "Interleaved Reed-Solomon flit FEC over GF(2^m): encoder and decoder (t = 1 single pass with early detection; any t by Berlekamp-Massey, Chien and Forney), generic or PCIe 6.0 layout"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        let params = read_params::<RsFecParams>(r)?;
        Ok(Box::new(params.validate(r.block(), &|f| r.is_set(f))?))
    }
}

impl Block for RsFecBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "rs_fec"
    }
    fn typed_params(&self) -> ParamList {
        self.params.to_list()
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        let base = format!("{}{}", design.prefix, self.name);
        vec![format!("{base}_enc"), format!("{base}_dec")]
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        let names = self.module_names(design);
        rtl::modules(self, design, &names[0], &names[1])
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Layout notes shared by the encoder and decoder docs.
fn layout_notes(b: &RsFecBlock) -> Vec<String> {
    let m = b.symbol_bits;
    let unit = if m == 8 { "byte" } else { "symbol" };
    let packing = if m == 8 { "byte i at [8i+7:8i]".to_string() } else { format!("{m}-bit symbol i at [{m}i+{}:{m}i], packed LSB first", m - 1) };
    match b.layout {
        Layout::Pcie6 => vec![
            "Layout pcie6 (PCIe 6.0 / CXL 3 256-byte flit FEC, GF(2^8) mod x^8+x^4+x^3+x^2+1): flit byte i (0..249) is group i mod 3, offset i/3; offset 83 of groups 1 and 2 is a constant zero that is not sent.".into(),
            "Each group's offset 84 is the check byte C = Σ_{i=0..83} B_i·α^(84−i) and offset 85 the parity byte P = XOR of offsets 0..83. ECC flit bytes: 250/253 = C/P of group 1, 251/254 of group 2, 252/255 of group 0.".into(),
            "Decoding a group: parity syndrome sp = XOR of offsets 0..83 and 85, check syndrome sc = C(received 0..83) ^ received 84. Only sp nonzero: byte 85 was hit; only sc: byte 84; both: the error offset is 84 − (log sc − log sp) mod 255, corrected by XOR with sp if it exists (offset 84 itself, offset 83 of groups 1 and 2 and negative offsets are uncorrectable).".into(),
        ],
        Layout::Generic => {
            let model = b.generic_model();
            let lengths: Vec<String> = (0..b.ways as usize).map(|w| model.way_code(w).n().to_string()).collect();
            let total = b.field().order();
            vec![
                format!(
                    "Layout generic: cw holds {} {unit}s ({packing}): {unit}s 0..{} are the message unchanged, the {} check {unit}s follow. Flit {unit} i belongs to way i mod {}; a way's codeword is its {unit}s in increasing index, the first the highest-degree coefficient.",
                    b.cw_symbols(),
                    b.flit_msg_symbols - 1,
                    b.ways * b.check_symbols,
                    b.ways
                ),
                format!(
                    "{} {} {unit}s: {} Reed-Solomon RS({total}, {}) codeword over GF(2^{m}) mod 0x{:X} shortened by leading zeros, generator roots α^{}..α^{}; t = {} per way.",
                    if b.ways == 1 { "The way holds" } else { "Ways hold" },
                    lengths.join(", "),
                    if b.ways == 1 { "a" } else { "each a" },
                    total - b.check_symbols,
                    b.field_poly,
                    b.fcr,
                    b.fcr + b.check_symbols - 1,
                    b.t()
                ),
            ]
        }
    }
}

/// The latency sentence of a module's doc (`stages` = its register stages).
fn latency_note(stages: u32) -> String {
    if stages == 0 {
        "Combinational (latency 0).".into()
    } else {
        format!("Latency {stages} cycles: out_valid is in_valid delayed by {stages}; a new word can enter every cycle.")
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Shared by the encoder and decoder tests: a deterministic generator and designs.
    use super::RsFecBlock;
    use crate::config::Design;

    pub use crate::math::splitmix::SplitMix64 as Rng;

    pub fn design(fields: &str, reset: &str) -> Design {
        let text = format!("[design]\nname = \"t\"\nreset = \"{reset}\"\n[[blocks]]\nkind = \"rs_fec\"\nname = \"f\"\n{fields}\n");
        Design::parse(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn block(d: &Design) -> &RsFecBlock {
        d.blocks[0].as_any().downcast_ref::<RsFecBlock>().expect("rs_fec block")
    }

    /// A random message of the block's width (spare top bits clear).
    pub fn message(rng: &mut Rng, b: &RsFecBlock) -> Vec<u8> {
        let bits = b.msg_bits() as usize;
        let mut msg = rng.bytes(bits.div_ceil(8));
        let spare = msg.len() * 8 - bits;
        *msg.last_mut().expect("non-empty") &= 0xFF >> spare;
        msg
    }

    /// XOR a nonzero error into symbol `index` of a packed word.
    pub fn hit_symbol(word: &mut [u8], m: u32, index: usize, error: u16) {
        for bit in 0..m as usize {
            if error >> bit & 1 == 1 {
                let k = index * m as usize + bit;
                word[k / 8] ^= 1 << (k % 8);
            }
        }
    }
}
