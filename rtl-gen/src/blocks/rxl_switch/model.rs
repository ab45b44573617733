//! Cycle-accurate reference models of the two halves of an `rxl_switch` port: `…_link_rx`
//! (FEC decode and correct; an uncorrectable flit is dropped and counted) and `…_link_tx` (FEC
//! re-encode). Both take a flit per cycle through a pipelined FEC codec ([`LINK_RX_CYCLES`] and
//! [`LINK_TX_CYCLES`] cycles); their outputs depend on registers only. Each model is the
//! one-stage behaviour applied to its input delayed by the extra stages. The switch keeps no sequence state: between the two halves a flit is a bare 250-byte message
//! (header, payload, end-to-end CRC) that nothing in the switch checks, which is where a
//! campaign injects switch-internal corruption.

use super::{LINK_RX_CYCLES, LINK_TX_CYCLES};
use crate::blocks::rxl_endpoint::flit::{FlitCodec, Flit, Msg, FLIT_BYTES, MSG_BYTES};
use std::collections::VecDeque;

/// The inputs of the last `cycles - 1` ticks (`None`: not valid), oldest first.
fn delay_line<T>(cycles: u32) -> VecDeque<Option<T>> {
    (1..cycles).map(|_| None).collect()
}

/// Push this tick's input, return the one `cycles - 1` ticks old.
fn delayed<T: Copy>(line: &mut VecDeque<Option<T>>, valid: bool, value: &T) -> Option<T> {
    line.push_back(valid.then_some(*value));
    line.pop_front().flatten()
}

fn sat(v: u64, bits: u32) -> u64 {
    let max = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    (v + 1).min(max)
}

/// `…_link_rx`: in_valid/in_flit → out_valid/out_msg and the counters [`LINK_RX_CYCLES`] cycles later.
#[derive(Debug, Clone)]
pub struct LinkRxModel {
    codec: FlitCodec,
    counter_bits: u32,
    /// Flits inside the decoder pipeline.
    pipe: VecDeque<Option<Flit>>,
    out_valid: bool,
    out_msg: Msg,
    /// Flits received, corrected by the FEC, dropped as uncorrectable.
    pub cnt_flits: u64,
    pub cnt_corrected: u64,
    pub cnt_dropped: u64,
}

impl LinkRxModel {
    pub const COUNTERS: [&'static str; 3] = ["cnt_flits", "cnt_corrected", "cnt_dropped"];

    pub fn new(codec: FlitCodec, counter_bits: u32) -> LinkRxModel {
        LinkRxModel { codec, counter_bits, pipe: delay_line(LINK_RX_CYCLES), out_valid: false, out_msg: [0; MSG_BYTES], cnt_flits: 0, cnt_corrected: 0, cnt_dropped: 0 }
    }

    pub fn reset(&mut self) {
        self.pipe = delay_line(LINK_RX_CYCLES);
        self.out_valid = false;
        self.cnt_flits = 0;
        self.cnt_corrected = 0;
        self.cnt_dropped = 0;
    }

    pub fn out_valid(&self) -> bool {
        self.out_valid
    }

    pub fn out_msg(&self) -> &Msg {
        &self.out_msg
    }

    pub fn counters(&self) -> [u64; 3] {
        [self.cnt_flits, self.cnt_corrected, self.cnt_dropped]
    }

    pub fn tick(&mut self, in_valid: bool, in_flit: &Flit) {
        let Some(flit) = delayed(&mut self.pipe, in_valid, in_flit) else {
            self.out_valid = false;
            return;
        };
        let d = self.codec.decode(&flit);
        self.cnt_flits = sat(self.cnt_flits, self.counter_bits);
        if d.corrected {
            self.cnt_corrected = sat(self.cnt_corrected, self.counter_bits);
        }
        if d.uncorrectable {
            self.cnt_dropped = sat(self.cnt_dropped, self.counter_bits);
        }
        self.out_valid = !d.uncorrectable;
        self.out_msg = d.msg;
    }
}

/// `…_link_tx`: in_valid/in_msg → out_valid/out_flit and the counter [`LINK_TX_CYCLES`] cycles
/// later; out_flit is defined while out_valid.
#[derive(Debug, Clone)]
pub struct LinkTxModel {
    codec: FlitCodec,
    counter_bits: u32,
    /// Messages inside the encoder pipeline.
    pipe: VecDeque<Option<Msg>>,
    out_valid: bool,
    out_flit: Flit,
    /// Flits forwarded.
    pub cnt_flits: u64,
}

impl LinkTxModel {
    pub const COUNTERS: [&'static str; 1] = ["cnt_flits"];

    pub fn new(codec: FlitCodec, counter_bits: u32) -> LinkTxModel {
        let out_flit = codec.encode(&[0; MSG_BYTES]);
        LinkTxModel { codec, counter_bits, pipe: delay_line(LINK_TX_CYCLES), out_valid: false, out_flit, cnt_flits: 0 }
    }

    pub fn reset(&mut self) {
        self.pipe = delay_line(LINK_TX_CYCLES);
        self.out_valid = false;
        self.cnt_flits = 0;
    }

    pub fn out_valid(&self) -> bool {
        self.out_valid
    }

    pub fn out_flit(&self) -> &Flit {
        &self.out_flit
    }

    pub fn counters(&self) -> [u64; 1] {
        [self.cnt_flits]
    }

    pub fn tick(&mut self, in_valid: bool, in_msg: &Msg) {
        let msg = delayed(&mut self.pipe, in_valid, in_msg);
        self.out_valid = msg.is_some();
        if let Some(msg) = msg {
            self.out_flit = self.codec.encode(&msg);
            self.cnt_flits = sat(self.cnt_flits, self.counter_bits);
        }
    }
}

const _: () = assert!(FLIT_BYTES == 256);
