//! Cycle-accurate two-clock reference model of the `async_fifo` module.
//!
//! The model is driven by the interleaved sequence of rising edges of both clocks: the caller
//! (a co-simulation with an edge scheduler, or a test) calls [`AsyncFifoModel::wr_edge`] or
//! [`AsyncFifoModel::rd_edge`] in time order. An edge updates only its own domain's registers,
//! from its own inputs and the other domain's registers as they stand before the edge: the
//! first synchronizer flop samples the other side's Gray pointer, later flops shift. Two edges
//! at the same instant are taken in the order the caller gives them (the RTL simulation must
//! apply them in the same order). Between edges the outputs are functions of the registers:
//! [`AsyncFifoModel::wr_full`], [`AsyncFifoModel::rd_empty`], the levels and `rd_data`.
//!
//! Words are little-endian byte vectors of `width` bits (byte i holds bits 8i+7..8i).

/// The Gray code of `b`.
pub fn gray(b: u32) -> u32 {
    b ^ (b >> 1)
}

/// The binary value of the Gray code `g`.
pub fn bin_of_gray(mut g: u32) -> u32 {
    let mut b = 0;
    while g != 0 {
        b ^= g;
        g >>= 1;
    }
    b
}

/// One side's registers: binary and Gray pointer, the other side's Gray pointer through the
/// synchronizer (stage 1 first).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Side {
    bin: u32,
    gray: u32,
    sync: Vec<u32>,
}

impl Side {
    fn new(stages: u32) -> Side {
        Side { bin: 0, gray: 0, sync: vec![0; stages as usize] }
    }
    /// The other side's pointer after the synchronizer.
    fn seen(&self) -> u32 {
        *self.sync.last().expect("at least two stages")
    }
    /// One edge: the synchronizer samples `other_gray` and shifts; the pointer steps by `inc`.
    fn step(&mut self, inc: bool, other_gray: u32, mask: u32) {
        self.sync.rotate_right(1);
        self.sync[0] = other_gray;
        self.bin = (self.bin + u32::from(inc)) & mask;
        self.gray = gray(self.bin);
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsyncFifoModel {
    width: u32,
    depth: u32,
    stages: u32,
    registered: bool,
    /// Pointer mask: 2·depth − 1.
    mask: u32,
    mem: Vec<Vec<u8>>,
    wr: Side,
    wr_full: bool,
    rd: Side,
    rd_empty: bool,
    rd_data_q: Vec<u8>,
    rd_valid_q: bool,
}

impl AsyncFifoModel {
    /// Both domains just reset. `depth` a power of two, `stages` >= 2 (the block checks both).
    pub fn new(width: u32, depth: u32, stages: u32, registered: bool) -> AsyncFifoModel {
        let bytes = width.div_ceil(8) as usize;
        AsyncFifoModel {
            width,
            depth,
            stages,
            registered,
            mask: 2 * depth - 1,
            mem: vec![vec![0; bytes]; depth as usize],
            wr: Side::new(stages),
            wr_full: false,
            rd: Side::new(stages),
            rd_empty: true,
            rd_data_q: vec![0; bytes],
            rd_valid_q: false,
        }
    }

    pub fn width(&self) -> u32 {
        self.width
    }
    pub fn depth(&self) -> u32 {
        self.depth
    }
    pub fn stages(&self) -> u32 {
        self.stages
    }

    /// The write domain's reset (pointer, synchronizer, full flag); the storage keeps its words.
    pub fn wr_reset(&mut self) {
        self.wr = Side::new(self.stages);
        self.wr_full = false;
    }

    /// The read domain's reset (pointer, synchronizer, empty flag, output register).
    pub fn rd_reset(&mut self) {
        self.rd = Side::new(self.stages);
        self.rd_empty = true;
        self.rd_data_q.iter_mut().for_each(|b| *b = 0);
        self.rd_valid_q = false;
    }

    /// Whether `wr_en` at the next write edge writes.
    pub fn wr_accepts(&self) -> bool {
        !self.wr_full
    }

    /// A rising edge of `wr_clk` with `wr_en` and `wr_data` applied. Returns whether a word
    /// was written.
    pub fn wr_edge(&mut self, wr_en: bool, wr_data: &[u8]) -> bool {
        let push = wr_en && !self.wr_full;
        let seen = self.wr.seen();
        if push {
            let slot = (self.wr.bin & (self.depth - 1)) as usize;
            self.mem[slot].copy_from_slice(wr_data);
        }
        let next = (self.wr.bin + u32::from(push)) & self.mask;
        // Full: the next write pointer is a whole lap ahead of the synchronized read pointer.
        self.wr_full = next == (bin_of_gray(seen) + self.depth) & self.mask;
        self.wr.step(push, self.rd.gray, self.mask);
        push
    }

    /// A rising edge of `rd_clk` with `rd_en` applied. Returns the word read, if any.
    pub fn rd_edge(&mut self, rd_en: bool) -> Option<Vec<u8>> {
        let pop = rd_en && !self.rd_empty;
        let seen = self.rd.seen();
        let word = pop.then(|| self.head().to_vec());
        let next = (self.rd.bin + u32::from(pop)) & self.mask;
        self.rd_empty = next == bin_of_gray(seen);
        if self.registered {
            if let Some(w) = &word {
                self.rd_data_q.clone_from(w);
            }
            self.rd_valid_q = pop;
        }
        self.rd.step(pop, self.wr.gray, self.mask);
        word
    }

    /// The word at the read pointer (the oldest while `!rd_empty`).
    fn head(&self) -> &[u8] {
        &self.mem[(self.rd.bin & (self.depth - 1)) as usize]
    }

    pub fn wr_full(&self) -> bool {
        self.wr_full
    }
    pub fn rd_empty(&self) -> bool {
        self.rd_empty
    }
    /// Write pointer − synchronized read pointer.
    pub fn wr_level(&self) -> u32 {
        self.wr.bin.wrapping_sub(bin_of_gray(self.wr.seen())) & self.mask
    }
    /// Synchronized write pointer − read pointer.
    pub fn rd_level(&self) -> u32 {
        bin_of_gray(self.rd.seen()).wrapping_sub(self.rd.bin) & self.mask
    }
    /// `rd_data`: the oldest word (first word fall through; meaningful while `!rd_empty`), or
    /// the output register.
    pub fn rd_data(&self) -> &[u8] {
        if self.registered {
            &self.rd_data_q
        } else {
            self.head()
        }
    }
    /// `rd_valid` (registered output only; false otherwise).
    pub fn rd_valid(&self) -> bool {
        self.rd_valid_q
    }
    /// Words written and not yet read (what neither side sees exactly).
    pub fn held(&self) -> u32 {
        self.wr.bin.wrapping_sub(self.rd.bin) & self.mask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gray_round_trips() {
        for b in 0..64 {
            assert_eq!(bin_of_gray(gray(b)), b);
        }
    }

    /// A write shows at the read side after stages + 1 read edges, a read frees a slot at the
    /// write side after stages + 1 write edges.
    #[test]
    fn flag_latency_is_stages_plus_one_edges() {
        for stages in 2..=4 {
            let mut m = AsyncFifoModel::new(8, 4, stages, false);
            m.wr_edge(true, &[0x5a]);
            let mut edges = 0;
            while m.rd_empty() {
                m.rd_edge(false);
                edges += 1;
            }
            assert_eq!(edges, stages + 1);
            assert_eq!(m.rd_data(), &[0x5a]);
            // Fill, then read one: wr_full falls stages + 1 write edges later.
            for v in 1..=3 {
                assert!(m.wr_edge(true, &[v]));
            }
            assert!(m.wr_full());
            assert!(!m.wr_edge(true, &[9]), "a write while full is ignored");
            for _ in 0..=stages {
                m.rd_edge(false);
            }
            assert_eq!(m.rd_edge(true), Some(vec![0x5a]));
            let mut edges = 0;
            while m.wr_full() {
                m.wr_edge(false, &[0]);
                edges += 1;
            }
            assert_eq!(edges, stages + 1);
        }
    }

    #[test]
    fn registered_output_holds_the_word_read() {
        let mut m = AsyncFifoModel::new(8, 2, 2, true);
        m.wr_edge(true, &[7]);
        m.wr_edge(true, &[8]);
        assert!(m.wr_full());
        for _ in 0..3 {
            m.rd_edge(false);
        }
        assert!(!m.rd_empty());
        assert_eq!(m.rd_edge(true), Some(vec![7]));
        assert!(m.rd_valid() && m.rd_data() == [7]);
        m.rd_edge(false);
        assert!(!m.rd_valid() && m.rd_data() == [7]);
    }
}
