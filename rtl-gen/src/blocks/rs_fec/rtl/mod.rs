//! The generators of an `rs_fec` block: the whole-codeword encoder ([`enc`]) and decoders
//! ([`dec_t1`] for t = 1, [`dec_bm`] for any t), and the streaming pair ([`enc_stream`],
//! [`dec_stream`], sharing [`stream_common`]).

mod dec_bm;
mod dec_stream;
mod dec_t1;
mod enc;
mod enc_stream;
mod stream_common;

use super::{latency_note, layout_notes, model, props, Layout, RsFecBlock};
#[cfg(test)]
use super::test_support;
use crate::blocks::GeneratedModule;
use crate::info::DesignInfo;

/// The encoder `enc` and the decoder `dec` of block `b`.
pub fn modules(b: &RsFecBlock, design: &DesignInfo, enc: &str, dec: &str) -> Vec<GeneratedModule> {
    if b.stream.is_some() {
        return vec![enc_stream::module(b, design, enc), dec_stream::module(b, design, dec)];
    }
    let decoder = if b.t() == 1 { dec_t1::module(b, design, dec) } else { dec_bm::module(b, design, dec) };
    vec![enc::module(b, design, enc), decoder]
}

/// The places a t > 1 decoder has for register stages.
pub fn decoder_steps(b: &RsFecBlock) -> u32 {
    dec_bm::steps(b).len() as u32
}
