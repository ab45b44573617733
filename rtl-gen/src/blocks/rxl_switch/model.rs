//! Cycle-accurate reference models of the two halves of an `rxl_switch` port: `…_link_rx`
//! (FEC decode and correct; an uncorrectable flit is dropped and counted) and `…_link_tx` (FEC
//! re-encode). Both have one register stage; their outputs depend on registers only. The
//! switch keeps no sequence state: between the two halves a flit is a bare 250-byte message
//! (header, payload, end-to-end CRC) that nothing in the switch checks, which is where a
//! campaign injects switch-internal corruption.

use crate::blocks::rxl_endpoint::flit::{FlitCodec, Flit, Msg, FLIT_BYTES, MSG_BYTES};

fn sat(v: u64, bits: u32) -> u64 {
    let max = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    (v + 1).min(max)
}

/// `…_link_rx`: in_valid/in_flit → out_valid/out_msg one cycle later.
#[derive(Debug, Clone)]
pub struct LinkRxModel {
    codec: FlitCodec,
    counter_bits: u32,
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
        LinkRxModel { codec, counter_bits, out_valid: false, out_msg: [0; MSG_BYTES], cnt_flits: 0, cnt_corrected: 0, cnt_dropped: 0 }
    }

    pub fn reset(&mut self) {
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
        if !in_valid {
            self.out_valid = false;
            return;
        }
        let d = self.codec.decode(in_flit);
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

/// `…_link_tx`: in_valid/in_msg → out_valid/out_flit one cycle later.
#[derive(Debug, Clone)]
pub struct LinkTxModel {
    codec: FlitCodec,
    counter_bits: u32,
    out_valid: bool,
    out_flit: Flit,
    /// Flits forwarded.
    pub cnt_flits: u64,
}

impl LinkTxModel {
    pub const COUNTERS: [&'static str; 1] = ["cnt_flits"];

    pub fn new(codec: FlitCodec, counter_bits: u32) -> LinkTxModel {
        let out_flit = codec.encode(&[0; MSG_BYTES]);
        LinkTxModel { codec, counter_bits, out_valid: false, out_flit, cnt_flits: 0 }
    }

    pub fn reset(&mut self) {
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
        self.out_valid = in_valid;
        if in_valid {
            self.out_flit = self.codec.encode(in_msg);
            self.cnt_flits = sat(self.cnt_flits, self.counter_bits);
        }
    }
}

const _: () = assert!(FLIT_BYTES == 256);
