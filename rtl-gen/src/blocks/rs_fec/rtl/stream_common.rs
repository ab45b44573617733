//! What the streaming encoder and decoder share: the beat ports and their documentation, symbol
//! slices, and linear maps over symbol vectors probed from the model.

use super::model::{pack_symbols, unpack_symbols};
use super::model::stream::StreamCode;
use super::RsFecBlock;
use crate::hw::gf_net::affine_of_masks;
use crate::hw::axis::Axis;
use crate::hw::verilog::{Expr, Item, Port};
use crate::hw::xor_net::{self, Columns, XorNet, XorStyle};
use crate::math::gf2m::AffineMasks;

/// Symbol `i` (m bits) of the vector `name`.
pub fn symbol(name: &str, m: u32, i: usize) -> Expr {
    let lo = m * i as u32;
    Expr::slice(name, lo + m - 1, lo)
}

/// The AXI4-Stream-style beat ports of a streaming module, input side then output side.
pub fn beat_ports(b: &RsFecBlock, what: &str) -> Vec<Port> {
    let st = b.stream.expect("streaming block");
    let (m, p) = (b.symbol_bits, st.symbols_per_cycle);
    let lanes = format!("{p} symbols, symbol i of the beat at [{m}i+{}:{m}i]", m - 1);
    let input = Axis::sink("in", p * m, &format!("{what} beat: {lanes}"), "input beat valid", "the module takes the input beat this cycle").last("last beat of a codeword (checked against the beat count)");
    let output = Axis::source("out", p * m, &format!("codeword beat: {lanes}; padding lanes zero"), "output beat valid", "the sink takes the output beat").last("last beat of a codeword");
    [input.ports(), output.ports()].concat()
}

/// A GF(2)-linear map between symbol vectors, written as the wire `out`.
pub struct Linear<'a> {
    /// The declared wire: `outs` symbols.
    pub out: &'a str,
    pub doc: &'a str,
    /// The vector read: `ins` symbols.
    pub input: &'a str,
    pub ins: usize,
    pub outs: usize,
    pub style: XorStyle,
}

/// Declares `net.out`, driven by the map `f` of `net.input`'s m-bit symbols, probed on unit
/// vectors.
pub fn emit_linear(items: &mut Vec<Item>, m: u32, net: &Linear, f: impl Fn(&[u16]) -> Vec<u16>) {
    let masks = AffineMasks::probe(net.ins * m as usize, net.outs * m as usize, |bits| pack_symbols(&f(&unpack_symbols(bits, m, net.ins)), m));
    let map = affine_of_masks(&masks);
    items.push(Item::wire(net.out, net.outs as u32 * m, net.doc));
    xor_net::emit(items, &XorNet { name: net.out, input: Columns::One(net.input), map: &map, style: net.style }, net.out, 0);
}

/// The beat layout sentences of the banner and docs.
pub fn beat_notes(b: &RsFecBlock, code: &StreamCode) -> Vec<String> {
    let (n, k, p, m) = (code.code.n(), code.code.k(), code.p, b.symbol_bits);
    let beats = code.beats();
    vec![
        format!(
            "Beats: a codeword of {n} symbols takes {beats} beats of {p} symbols; beat b carries codeword symbols bP..bP+{} (P = {p}), symbol i of the beat at bits [{m}i+{}:{m}i]; symbol 0 is the first on the wire and the highest-degree coefficient. Messages are symbols 0..{}, check symbols {k}..{}.",
            p - 1,
            m - 1,
            k - 1,
            n - 1
        ),
        if code.pad() == 0 {
            "P divides N: no padding.".to_string()
        } else {
            format!("Padding: the last beat carries {} symbols; its upper {} lanes are ignored on input and zero on output.", p - code.pad(), code.pad())
        },
        "Handshake: a beat moves when tvalid and tready are both high; tvalid may drop between and inside codewords (idle gaps); tlast marks beat B−1 of each codeword.".to_string(),
        format!(
            "Field GF(2^{m}) mod 0x{:X}, generator roots α^{}..α^{}, t = {}.",
            b.field_poly,
            b.fcr,
            b.fcr + b.check_symbols - 1,
            b.t()
        ),
    ]
}
