//! The generators of an `rs_fec` block: the whole-codeword encoder ([`enc`]) and decoders
//! ([`dec_t1`] for t = 1, [`dec_bm`] for any t), and the streaming pair ([`enc_stream`],
//! [`dec_stream`] with its key-equation solvers [`dec_ribm`], sharing [`stream_common`]).

mod dec_bm;
mod dec_ribm;
mod dec_stream;
mod dec_t1;
mod enc;
mod enc_stream;
mod stream_common;

use super::{latency_note, layout_notes, model, props, stream_props, Layout, RsFecBlock, RsFecEncParams, RsFecParams};
#[cfg(test)]
use super::test_support;
use crate::blocks::GeneratedModule;
use crate::fields::KindParams;
use crate::hw::module::Origin;
use crate::hw::module::clock_ports;
use crate::hw::verilog::Port;
use crate::info::DesignInfo;

/// The encoder `enc` and the decoder `dec` of block `b`, each carrying only the parameters it
/// is built from, so the encoder of a block is shared with a block that differs only in the
/// decoder (the RXL switch's pipelined codec and a standalone pcie6 block) and vice versa.
pub fn modules(b: &RsFecBlock, design: &DesignInfo, enc: &str, dec: &str) -> Vec<GeneratedModule> {
    let (mut encoder, mut decoder) = if b.stream.is_some() {
        (enc_stream::module(b, design, enc), dec_stream::module(b, design, dec))
    } else if b.t() == 1 {
        (enc::module(b, design, enc), dec_t1::module(b, design, dec))
    } else {
        (enc::module(b, design, enc), dec_bm::module(b, design, dec))
    };
    encoder.origin = Some(Origin { kind: "rs_fec", params: RsFecEncParams::of(b).to_list() });
    decoder.origin = Some(Origin { kind: "rs_fec", params: RsFecParams::decoder_of(b).to_list() });
    vec![encoder, decoder]
}

/// What a whole-codeword decoder's flag ports say: the t = 1 and the Berlekamp–Massey decoder
/// detect differently.
pub struct FlagTexts {
    pub corrected: &'static str,
    pub way_corrected: &'static str,
    pub way_uncorrectable: &'static str,
}

/// The ports of a whole-codeword decoder (t = 1 or Berlekamp–Massey): `cw` in; `msg`, the
/// summary and per-way flags out; clock, reset and the valid pair when it has register stages.
pub fn decoder_ports(b: &RsFecBlock, design: &DesignInfo, texts: FlagTexts) -> Vec<Port> {
    let mut ports = Vec::new();
    if b.pipeline > 0 {
        ports.extend(clock_ports(design));
        ports.push(Port::input("in_valid", 1, "cw valid this cycle"));
    }
    ports.push(Port::input("cw", b.cw_bits(), "received codeword, laid out as the encoder's cw"));
    ports.extend([
        Port::output("msg", b.msg_bits(), "message, corrected where a way was correctable"),
        Port::output("corrected", 1, texts.corrected),
        Port::output("uncorrectable", 1, "some way is uncorrectable; its symbols passed through unchanged"),
        Port::output("way_corrected", b.ways, texts.way_corrected),
        Port::output("way_uncorrectable", b.ways, texts.way_uncorrectable),
    ]);
    if b.pipeline > 0 {
        ports.push(Port::output("out_valid", 1, "outputs valid; in_valid delayed by the latency"));
    }
    ports
}

/// The places a t > 1 decoder has for register stages.
pub fn decoder_steps(b: &RsFecBlock) -> u32 {
    dec_bm::steps(b).len() as u32
}
