//! The Lane Aligner (§5.B, Fig. 6): one lane's unaligned transceiver stream, `gt_bits` per
//! recovered-clock cycle, turned into whole frames by finding the Syncword. The machine the
//! RTL implements, one [`LaneAligner::edge`] per rising edge of the lane's recovered clock.
//!
//! The stream is the transceiver's parallel words in arrival order, bit 0 of a word first on
//! the wire (the frame's own order: frame bit 0, the SYN's low bit, leaves first). With
//! W = `gt_bits` and R = F / W words per frame, the aligner is the paper's two-level mux chain:
//!
//! 1. **Bit level**: the word in and the word before it form a 2W-bit window
//!    `{word, prev}`; the aligned word is `window[b+W-1 : b]`, the shift `b` in 0..W.
//! 2. **Word level** (the RX width converter): R aligned words, the first at word phase 0,
//!    make the frame `{a[R-1], ..., a[0]}`; a frame leaves on `out_frame` with `out_valid` at
//!    the edge after its last word arrived, one frame per R cycles.
//!
//! Alignment: every frame's SYN (`frame[1:0]`) is checked. Searching (`locked` clear, the
//! state after reset), an illegal SYN (00/11) slips the boundary one bit later: `b + 1`, and
//! past W − 1 the shift wraps to 0 and the next word is dropped (word phase held), so F slips
//! visit every bit offset of the frame boundary. `control_repeat` consecutive legal SYNs lock
//! (the receiver's own out-of-sync rule). Locked, illegal SYNs are counted and a run of
//! `control_repeat` consecutive legal ones clears the count; `control_repeat` illegal SYNs
//! before such a run unlock and the search resumes. A SYN hit by a bit error therefore never
//! costs the alignment (the receiver sees the illegal SYN and handles it as it always does),
//! while a false lock on a payload look-alike (a wrong offset shows a legal SYN half the time)
//! is left after about 2 × `control_repeat` frames. Every assembled frame is delivered, locked
//! or not: the receiver's out-of-sync rule decides what to take.

use crate::bits::Bits;
use super::codec::{SYN_CTRL, SYN_DATA};

/// One lane's aligner: `frame_bits` F, `gt_bits` W (W divides F), `control_repeat`.
#[derive(Debug, Clone)]
pub struct LaneAligner {
    f: usize,
    w: usize,
    repeat: u32,
    /// The word before the one at the input (zero after reset).
    prev: Bits,
    /// Bit shift of the first mux level, 0..W.
    pub shift: usize,
    /// Aligned words of the frame so far (word phase = their count).
    words: Vec<Bits>,
    /// The next word is dropped (a slip wrapped the shift).
    skip: bool,
    pub locked: bool,
    /// Consecutive legal SYNs.
    pub good: u32,
    /// Illegal SYNs while locked since the last run of `control_repeat` legal ones.
    pub bad: u32,
    pub out_valid: bool,
    pub out_frame: Bits,
    /// Statistics (not in the RTL): slips taken.
    pub slips: u64,
}

impl LaneAligner {
    /// After reset: searching at shift 0, word phase 0.
    pub fn new(frame_bits: u32, gt_bits: u32, control_repeat: u32) -> LaneAligner {
        let (f, w) = (frame_bits as usize, gt_bits as usize);
        assert!(w > 0 && f % w == 0, "gt_bits divides frame_bits");
        LaneAligner { f, w, repeat: control_repeat, prev: Bits::zeros(w), shift: 0, words: Vec::new(), skip: false, locked: false, good: 0, bad: 0, out_valid: false, out_frame: Bits::zeros(f), slips: 0 }
    }

    /// Words per frame (R).
    pub fn ratio(&self) -> usize {
        self.f / self.w
    }

    /// One rising edge of the recovered clock with `word` (W bits) at the input.
    pub fn edge(&mut self, word: &Bits) {
        assert_eq!(word.width(), self.w);
        let window = self.prev.concat(word);
        let aligned = window.slice(self.shift, self.w);
        self.prev = word.clone();
        self.out_valid = false;
        if self.skip {
            self.skip = false;
            return;
        }
        self.words.push(aligned);
        if self.words.len() < self.ratio() {
            return;
        }
        let mut frame = Bits::zeros(self.f);
        for (i, a) in self.words.drain(..).enumerate() {
            frame.set_slice(i * self.w, &a);
        }
        let syn = frame.field(0, 2) as u8;
        self.out_frame = frame;
        self.out_valid = true;
        self.judge(syn == SYN_DATA || syn == SYN_CTRL);
    }

    /// The alignment rule on one frame's SYN.
    fn judge(&mut self, legal: bool) {
        if legal {
            self.good = (self.good + 1).min(self.repeat);
            if self.good == self.repeat {
                self.locked = true;
                self.bad = 0;
            }
            return;
        }
        self.good = 0;
        if self.locked {
            self.bad += 1;
            if self.bad < self.repeat {
                return;
            }
            self.locked = false;
            self.bad = 0;
        }
        self.slip();
    }

    /// The boundary one bit later.
    fn slip(&mut self) {
        self.slips += 1;
        if self.shift + 1 == self.w {
            self.shift = 0;
            self.skip = true;
        } else {
            self.shift += 1;
        }
    }
}

/// The transceiver stream of `frames` sent back to back, `gt_bits` per word, starting `offset`
/// bits into the first frame (the bits before it are lost), padded with `fill` to whole words.
pub fn words_of(frames: &[Bits], gt_bits: u32, offset: usize, fill: bool) -> Vec<Bits> {
    let w = gt_bits as usize;
    let bits: Vec<bool> = frames.iter().flat_map(|fr| (0..fr.width()).map(move |i| fr.get(i))).skip(offset).collect();
    bits.chunks(w)
        .map(|c| {
            let mut word = if fill { Bits::ones(w) } else { Bits::zeros(w) };
            for (i, &b) in c.iter().enumerate() {
                word.set(i, b);
            }
            word
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A frame with a legal SYN (alternating data/control) and random other bits.
    fn frame(f: usize, k: usize, rng: &mut impl Rng) -> Bits {
        let mut fr = Bits::random(f, rng);
        fr.set_field(0, 2, if k % 3 == 0 { SYN_CTRL } else { SYN_DATA } as u64);
        fr
    }

    /// Runs the aligner over `words`; the delivered frames.
    fn run(al: &mut LaneAligner, words: &[Bits]) -> Vec<(bool, Bits)> {
        let mut out = Vec::new();
        for w in words {
            al.edge(w);
            if al.out_valid {
                out.push((al.locked, al.out_frame.clone()));
            }
        }
        out
    }

    /// The frame index in `sent` from which the delivered frames, from the last unlocked one
    /// on, are `sent` in order and bit-exact.
    fn locked_tail_matches(out: &[(bool, Bits)], sent: &[Bits]) -> Option<usize> {
        let first = out.iter().rposition(|(l, _)| !*l).map_or(0, |i| i + 1);
        let head = &out.get(first)?.1;
        let start = sent.iter().position(|s| s == head)?;
        out[first..].iter().zip(&sent[start..]).all(|((_, o), s)| o == s).then_some(start)
    }

    #[test]
    fn every_bit_offset_of_the_boundary_locks_and_then_delivers_the_frames_bit_exact() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        for (f, w) in [(128u32, 32u32), (256, 64), (256, 128)] {
            let sent: Vec<Bits> = (0..(2 * f as usize + 200)).map(|k| frame(f as usize, k, &mut rng)).collect();
            for offset in 0..f as usize {
                let mut al = LaneAligner::new(f, w, 8);
                let out = run(&mut al, &words_of(&sent, w, offset, false));
                let start = locked_tail_matches(&out, &sent).unwrap_or_else(|| panic!("F={f} W={w} offset {offset}: no bit-exact locked tail"));
                assert!(al.locked && start < sent.len() - 100, "F={f} W={w} offset {offset}: locked only at frame {start}");
            }
        }
    }

    /// The frames `al` delivers from `words`, with its lock and slip count after each.
    fn trace(al: &mut LaneAligner, words: &[Bits]) -> Vec<(Bits, bool, u64)> {
        let mut out = Vec::new();
        for w in words {
            al.edge(w);
            if al.out_valid {
                out.push((al.out_frame.clone(), al.locked, al.slips));
            }
        }
        out
    }

    #[test]
    fn syn_bit_errors_while_locked_are_passed_on_and_a_run_of_illegal_syns_unlocks() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        let (f, w) = (256u32, 64u32);
        let mut sent: Vec<Bits> = (0..400).map(|k| frame(f as usize, k, &mut rng)).collect();
        // One SYN bit error every 9th frame and a burst of 7 illegal SYNs: never 8 illegal
        // before a run of 8 legal. Then 8 illegal in a row.
        for k in (100..300).step_by(9) {
            sent[k].flip(k % 2);
        }
        for fr in &mut sent[320..327] {
            fr.set_field(0, 2, 0b11);
        }
        for fr in &mut sent[340..348] {
            fr.set_field(0, 2, 0b00);
        }
        let mut al = LaneAligner::new(f, w, 8);
        let out = trace(&mut al, &words_of(&sent, w, 37, false));
        let at = |k: usize| out.iter().find(|(fr, ..)| *fr == sent[k]).unwrap_or_else(|| panic!("frame {k} delivered"));
        let (_, locked, slips) = at(99).clone();
        assert!(locked);
        for k in 100..347 {
            assert_eq!((at(k).1, at(k).2), (true, slips), "frame {k}: lock kept, no slip");
        }
        assert_eq!((at(347).1, at(347).2), (false, slips + 1), "the 8th illegal SYN in a row unlocks and slips");
    }

    #[test]
    fn a_syncword_look_alike_in_the_payload_holds_the_lock_only_while_it_lasts() {
        // For 100 frames every frame carries a legal SYN pattern at bit 64 as well: a boundary 64
        // bits late shows legal SYNs there. The search starting 60 bits late reaches it first and
        // locks on it; once the look-alike goes, that offset shows illegal SYNs half the time,
        // the lock is left and the search ends on the true boundary.
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let (f, w) = (128u32, 32u32);
        let mut sent: Vec<Bits> = (0..600).map(|k| frame(f as usize, k, &mut rng)).collect();
        for fr in &mut sent[..100] {
            fr.set_field(64, 2, SYN_DATA as u64);
        }
        let mut al = LaneAligner::new(f, w, 8);
        let out = run(&mut al, &words_of(&sent, w, 60, false));
        let first = out.iter().position(|(l, _)| *l).expect("locks");
        assert!(first < 90, "locks on the look-alike first (frame {first})");
        assert!(al.locked && locked_tail_matches(&out, &sent).is_some(), "ends on the true boundary once the look-alike goes");
    }
}
