//! The TX GT width converter (§5.B, Fig. 6): a lane's frame, F bits per `clk` cycle, out to the
//! transceiver as W = `gt_bits` per `tx_fast_clk` cycle, word 0 (the frame's low bits, SYN
//! first) first. The machine the RTL implements, edge by edge.
//!
//! The two TX clocks come from one source: `tx_fast_clk` runs at R = F / W times `clk` (a power
//! of two) and every rising edge of `clk` is also one of `tx_fast_clk`. The crossing is a
//! synchronous-ratio one, no FIFO: the fast side learns the slow edges' phase from a toggle the
//! `clk` side flips at each of its edges (`slow_toggle`), seen one fast cycle after the slow
//! edge (`load`, a one-fast-cycle path); its phase counter (set to 1 by `load`) then names the fast edge
//! that is also a slow edge (count R − 1), and there it takes the lane's `tx_frame` register, launched a
//! whole `clk` cycle (R fast cycles) before: the multicycle path the constraint files bound.
//! At that edge word 0 goes out and words 1..R−1 are held in a shift register that moves one
//! word down at each of the next R − 1 fast edges, its bottom word going out. Latency: a frame registered at a `clk` edge leaves at the next `clk` edge as word
//! 0, then one word per `tx_fast_clk` cycle.
//!
//! An edge of both clocks at once is [`TxGtConverter::fast_edge`] (with the values before the
//! edge) followed by [`TxGtConverter::clk_edge`].

use crate::bits::Bits;

#[derive(Debug, Clone)]
pub struct TxGtConverter {
    w: usize,
    r: usize,
    /// `clk` side: flips at every `clk` edge.
    pub slow_toggle: bool,
    /// Fast side: `slow_toggle` as of the last fast edge.
    seen: bool,
    /// Fast side: the phase of the current fast cycle, 0 right after a slow edge.
    pub phase: usize,
    /// Fast side: the words of the frame still to go, the next at the bottom (a shift register).
    hold: Bits,
    /// `tx_fast_data`: the word on the wire this fast cycle.
    pub out: Bits,
}

impl TxGtConverter {
    /// After reset (`frame_bits` F, `gt_bits` W, R = F / W at least 2).
    pub fn new(frame_bits: u32, gt_bits: u32) -> TxGtConverter {
        let (f, w) = (frame_bits as usize, gt_bits as usize);
        assert!(w > 0 && f % w == 0 && f / w >= 2, "gt_bits divides frame_bits at least twice");
        TxGtConverter { w, r: f / w, slow_toggle: false, seen: false, phase: 0, hold: Bits::zeros(f - w), out: Bits::zeros(w) }
    }

    /// Fast cycles per `clk` cycle (R).
    pub fn ratio(&self) -> usize {
        self.r
    }

    /// A rising edge of `clk`.
    pub fn clk_edge(&mut self) {
        self.slow_toggle = !self.slow_toggle;
    }

    /// A rising edge of `tx_fast_clk`; `tx_frame` is the lane's frame register before the edge.
    pub fn fast_edge(&mut self, tx_frame: &Bits) {
        let load = self.seen != self.slow_toggle;
        // A clk edge seen sets the phase even where the count says capture (out of phase after
        // reset); in phase the two never meet.
        if self.phase == self.r - 1 && !load {
            self.hold = tx_frame.slice(self.w, tx_frame.width() - self.w);
            self.out = tx_frame.slice(0, self.w);
            self.phase = 0;
        } else {
            self.out = self.hold.slice(0, self.w);
            let rest = self.hold.width() - self.w;
            self.hold = if rest == 0 { self.hold.clone() } else { self.hold.slice(self.w, rest).concat(&Bits::zeros(self.w)) };
            self.phase = if load { 1 } else { self.phase + 1 };
        }
        self.seen = self.slow_toggle;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Whatever the phase after reset, from the second slow cycle on the words on the wire are
    /// the frames of the slow side, one slow cycle late, word 0 first.
    #[test]
    fn the_words_on_the_wire_are_the_frames_one_clk_cycle_late() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for (f, w) in [(128u32, 32u32), (256, 64), (256, 32), (2048, 128), (128, 64)] {
            let r = (f / w) as usize;
            for first_fast in 0..r {
                let mut c = TxGtConverter::new(f, w);
                let mut frame = Bits::zeros(f as usize);
                let mut frames = Vec::new();
                let mut wire = Vec::new();
                // Fast edges before the first slow edge: any phase at reset.
                for _ in 0..first_fast {
                    c.fast_edge(&frame);
                }
                for _ in 0..40 {
                    // A slow edge (a fast one too): the fast side sees the old frame, then
                    // the slow side registers a new one.
                    c.fast_edge(&frame);
                    wire.push(c.out.clone());
                    c.clk_edge();
                    frame = Bits::random(f as usize, &mut rng);
                    frames.push(frame.clone());
                    for _ in 1..r {
                        c.fast_edge(&frame);
                        wire.push(c.out.clone());
                    }
                }
                // Slow edge k (from 0) puts frames[k-1] on the wire, word j at wire[k*r + j].
                for k in 2..40 {
                    for j in 0..r {
                        assert_eq!(wire[k * r + j], frames[k - 1].slice(j * w as usize, w as usize), "F={f} W={w} start {first_fast}: frame {k} word {j}");
                    }
                }
            }
        }
    }
}
