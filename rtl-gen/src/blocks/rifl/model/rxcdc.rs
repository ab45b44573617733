//! One lane's receiver on its recovered clock and the asynchronous FIFO that carries what it
//! delivers into the node clock, edge by edge: the machine `<p>_rxcdc` implements. `rx_edge`
//! is a rising edge of the lane's recovered clock, `clk_edge` one of the node clock; each
//! updates only its domain's registers from the values before the edge, as the RTL's one
//! evaluation per edge does (the FIFO is [`AsyncFifoModel`], the kit's cell).

use super::params::Params;
use super::rx::RxLane;
use crate::bits::Bits;
use crate::blocks::async_fifo::model::AsyncFifoModel;

/// Entries of the CDC FIFO: the low-latency form's few words (the far end's compensation keeps
/// its level at a few entries; see the node docs).
pub const CDC_DEPTH: u32 = 16;
/// Synchronizer flops of the CDC FIFO's pointers.
pub const CDC_SYNC_STAGES: u32 = 2;
/// The receiver flags an entry carries, bit 0 first (the RTL's output names).
pub const FLAGS: [&str; 5] = ["out_of_sync", "pause_req", "retrans_req", "frame_error", "remote_fc"];
/// The flags after reset: out of sync.
pub const FLAGS_RESET: u8 = 0b00001;

/// A CDC FIFO entry: `{err_pulse, flags, out_valid, out_raw}` from bit `r + 6` down to bit 0.
pub struct Entry;

impl Entry {
    /// Bits of an entry for a raw region of `r` bits.
    pub fn bits(r: u32) -> u32 {
        r + 2 + FLAGS.len() as u32
    }
}

fn flags_of(rx: &RxLane) -> u8 {
    [rx.out_of_sync, rx.pause_req, rx.retrans_req, rx.frame_error, rx.remote_fc].iter().enumerate().fold(0, |a, (i, &b)| a | (u8::from(b) << i))
}

/// The lane: receiver, write-side registers, FIFO, node-clock registers.
#[derive(Debug, Clone)]
pub struct RxCdcLane {
    pub rx: RxLane,
    pub fifo: AsyncFifoModel,
    r: usize,
    flags_sent: u8,
    /// An entry was refused while the FIFO was full (sticky).
    pub overflow: bool,
    /// Largest write-side level seen after an rx edge.
    pub max_level: u32,
    pub out_valid: bool,
    pub out_raw: Bits,
    pub flags: u8,
    pub err_pulse: bool,
}

impl RxCdcLane {
    /// Both domains in reset (`p`: the lane's parameters).
    pub fn new(p: Params) -> RxCdcLane {
        let r = p.raw_bits();
        RxCdcLane {
            rx: RxLane::new(p),
            fifo: AsyncFifoModel::new(Entry::bits(r as u32), CDC_DEPTH, CDC_SYNC_STAGES, false),
            r,
            flags_sent: FLAGS_RESET,
            overflow: false,
            max_level: 0,
            out_valid: false,
            out_raw: Bits::zeros(r),
            flags: FLAGS_RESET,
            err_pulse: false,
        }
    }

    /// A rising edge of the recovered clock with `rx_valid`, `rx_frame`.
    pub fn rx_edge(&mut self, valid: bool, frame: &Bits) {
        let flags = flags_of(&self.rx);
        let wr_en = self.rx.out_valid || self.rx.err_pulse || flags != self.flags_sent;
        let entry = self.rx.out_raw.concat(&Bits::from_u64(u64::from(self.rx.out_valid) | (u64::from(flags) << 1) | (u64::from(self.rx.err_pulse) << 6), 7));
        let full = self.fifo.wr_full();
        self.fifo.wr_edge(wr_en, &entry.to_bytes());
        if wr_en && !full {
            self.flags_sent = flags;
        }
        self.overflow |= wr_en && full;
        self.rx.tick(valid, frame);
        self.max_level = self.max_level.max(self.fifo.wr_level());
    }

    /// A rising edge of the node clock.
    pub fn clk_edge(&mut self) {
        let pop = !self.fifo.rd_empty();
        let head = pop.then(|| Bits::from_bytes_width(self.fifo.rd_data(), self.r + 7));
        self.fifo.rd_edge(pop);
        self.out_valid = false;
        self.err_pulse = false;
        if let Some(e) = head {
            self.out_valid = e.get(self.r);
            self.err_pulse = e.get(self.r + 6);
            self.flags = e.field(self.r + 1, 5) as u8;
            if self.out_valid {
                self.out_raw = e.slice(0, self.r);
            }
        }
    }

    /// Flag `i` of [`FLAGS`] as the node clock sees it.
    pub fn flag(&self, i: usize) -> bool {
        self.flags >> i & 1 == 1
    }
}
