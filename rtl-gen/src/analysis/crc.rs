//! A CRC's undetected-error probability at a message length and BER, from its weight
//! distribution: an error pattern escapes exactly when it is a codeword of the CRC's code, so
//! under independent bit errors P_ud = Σ_w A_w · p^w · (1 − p)^(n − w), with A_w the number of
//! weight-w codewords of length n = data + check bits.
//!
//! How A_w is found depends on what is feasible:
//! - **Exact, every weight**: a dynamic programme over the syndrome (the register value an
//!   error pattern leaves) counts the patterns of each weight that leave syndrome zero. Cost
//!   n · 2^r · (n + 1) counter updates, so it runs for small CRCs and short messages.
//! - **Low weights exact, tail estimated**: for the rest, A_2, A_3 and A_4 are counted from the
//!   residues x^i mod P (equal residues, a pair's XOR equal to a third residue, equal pair XORs),
//!   O(n²) as the Hamming-distance search of [`crate::math::hd`] does. Weights above 4 are not
//!   counted: their share is estimated as 2^-r of the patterns of more than 4 errors (a CRC
//!   behaves like a random code there), and bounded above by all of them.
//!
//! At the BERs links run at (10^-12 and below) the first nonzero A_w dominates by many orders
//! of magnitude, so the estimate's tail does not move the figure; at accelerated BERs the tail
//! dominates, which is where the exact programme is used and checked against a campaign.

use super::prob::p_more_than;
use super::{check_range, Figure, InputError};
use crate::math::hd::detects_all_odd_weights;
use crate::math::lfsr::CrcRegister;
use std::collections::HashMap;

/// Largest n · 2^r · (n + 1) the exact programme runs (about a second in a release build).
pub const EXACT_BUDGET: f64 = 2e9;
/// Longest codeword whose weights 2 and 3 are counted (n²/2 lookups).
pub const MAX_COUNTED_BITS: u64 = 1 << 16;
/// Longest codeword whose weight 4 is counted (a sorted table of n²/2 pair XORs, 8 bytes each).
pub const MAX_PAIRS_BITS: u64 = 6000;

/// The weight distribution a CRC's figures come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// Codeword length in bits (data + check).
    pub n: u64,
    /// CRC width r.
    pub r: u32,
    /// A_w for w = 0..counted.len(): exact counts (as f64: exact up to 2^53, relative 1e-16
    /// beyond).
    pub counted: Vec<f64>,
    /// `counted` holds every weight 0..=n (the exact programme ran).
    pub complete: bool,
}

impl Weights {
    /// The smallest nonzero weight among those counted: the Hamming distance at this length
    /// when it is at most the last weight counted.
    pub fn distance(&self) -> Option<u64> {
        (1..self.counted.len()).find(|&w| self.counted[w] > 0.0).map(|w| w as u64)
    }

    /// P_ud at `ber`: (estimate, upper bound). Equal when the distribution is complete.
    pub fn p_undetected(&self, ber: f64) -> (f64, f64) {
        let low: f64 = (1..self.counted.len()).filter(|&w| self.counted[w] > 0.0).map(|w| self.counted[w] * one_pattern(self.n, w as u64, ber)).sum();
        if self.complete {
            return (low, low);
        }
        let last = self.counted.len() as u64 - 1;
        let more = p_more_than(self.n, last, ber);
        // Heavier patterns escape about as often as in a random code, one in 2^r; all of them
        // escaping is the bound.
        (low + more * 2f64.powi(-(self.r as i32)), low + more)
    }
}

/// The probability of one given pattern of `w` errors in `n` bits: p^w (1 − p)^(n − w).
fn one_pattern(n: u64, w: u64, p: f64) -> f64 {
    if p == 0.0 {
        return if w == 0 { 1.0 } else { 0.0 };
    }
    (w as f64 * p.ln() + (n - w) as f64 * (-p).ln_1p()).exp()
}

/// C(n, k) as f64.
fn choose(n: u64, k: u64) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// `x^i mod P` for i in 0..n: the syndrome a single error at codeword bit i leaves.
fn residues(reg: CrcRegister, n: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(n as usize);
    let mut r = 1u64;
    for _ in 0..n {
        out.push(r);
        r = reg.step(r, false);
    }
    out
}

/// Longest codeword the exact programme counts: its counts reach 2^(n − r), and beyond about
/// 2^1000 they no longer fit an f64 (an infinite A_w times a vanishing p^w is no probability).
pub const MAX_EXACT_BITS: u64 = 1000;

/// Whether the exact programme fits [`EXACT_BUDGET`] and [`MAX_EXACT_BITS`] for this width and
/// length.
pub fn exact_is_feasible(width: u32, n: u64) -> bool {
    n <= MAX_EXACT_BITS && width <= 24 && n as f64 * 2f64.powi(width as i32) * (n as f64 + 1.0) <= EXACT_BUDGET
}

/// The weight distribution of `reg`'s code at codeword length `n` bits: exact when
/// [`exact_is_feasible`], else the low weights counted (`None` past [`MAX_COUNTED_BITS`]).
pub fn weights(reg: CrcRegister, n: u64) -> Option<Weights> {
    if exact_is_feasible(reg.width, n) {
        Some(exact(reg, n))
    } else if n <= MAX_COUNTED_BITS {
        Some(low_weights(reg, n))
    } else {
        None
    }
}

/// Every A_w by a programme over (syndrome, weight): adding bit i to a pattern XORs its residue
/// into the syndrome and adds one to the weight.
fn exact(reg: CrcRegister, n: u64) -> Weights {
    let states = 1usize << reg.width;
    let len = n as usize + 1;
    // count[s * len + w]: patterns over the bits seen so far with syndrome s and weight w.
    let mut count = vec![0f64; states * len];
    count[0] = 1.0;
    for (i, r) in residues(reg, n).into_iter().enumerate() {
        let r = r as usize;
        let mut next = count.clone();
        for s in 0..states {
            let from = &count[s * len..s * len + i + 1];
            let to = (s ^ r) * len;
            for (w, &c) in from.iter().enumerate() {
                next[to + w + 1] += c;
            }
        }
        count = next;
    }
    Weights { n, r: reg.width, counted: count[..len].to_vec(), complete: true }
}

/// A_0..=A_4 from the residues (A_1 is zero: a CRC detects every single error); A_4 only up to
/// [`MAX_PAIRS_BITS`] (its pair table) and only within the polynomial's period (A_2 = 0).
fn low_weights(reg: CrcRegister, n: u64) -> Weights {
    let res = residues(reg, n);
    let mut at: HashMap<u64, Vec<usize>> = HashMap::with_capacity(res.len());
    for (i, &r) in res.iter().enumerate() {
        at.entry(r).or_default().push(i);
    }
    // A_2: pairs of equal residues.
    let a2: f64 = at.values().map(|v| choose(v.len() as u64, 2)).sum();
    // A_3: {i, j, k} with r_i ^ r_j = r_k, each triple found once per choice of its pair (3).
    // Zero without counting when (x + 1) divides P: odd weights never escape.
    let mut a3 = 0.0;
    if !detects_all_odd_weights(reg) {
        for i in 0..res.len() {
            for j in i + 1..res.len() {
                if let Some(ks) = at.get(&(res[i] ^ res[j])) {
                    a3 += ks.iter().filter(|&&k| k != i && k != j).count() as f64;
                }
            }
        }
        a3 /= 3.0;
    }
    if a2 > 0.0 || n > MAX_PAIRS_BITS {
        return Weights { n, r: reg.width, counted: vec![1.0, 0.0, a2, a3], complete: false };
    }
    // A_4: two disjoint pairs with equal XOR, each 4-set found once per pairing (3). Pairs that
    // share a position have equal XORs only when two residues are equal, excluded above.
    let mut pairs: Vec<u64> = Vec::with_capacity(res.len() * res.len() / 2);
    for i in 0..res.len() {
        pairs.extend(res[i + 1..].iter().map(|r| r ^ res[i]));
    }
    pairs.sort_unstable();
    let a4 = pairs.chunk_by(|x, y| x == y).map(|run| choose(run.len() as u64, 2)).sum::<f64>() / 3.0;
    Weights { n, r: reg.width, counted: vec![1.0, 0.0, 0.0, a3, a4], complete: false }
}

/// What `rtl-gen analyze crc` takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    /// CRC width in bits.
    pub width: u32,
    /// Generator polynomial, normal form (the x^width term implied).
    pub poly: u64,
    /// Protected message bits (the check bits are added to make n).
    pub data_bits: u64,
    pub ber: f64,
    /// Messages per second, for the rate of undetected errors (0: not printed).
    pub messages_per_s: f64,
}

impl Inputs {
    /// CRC-32 (IEEE 802.3) over a 1,518-byte Ethernet frame at BER 1e-12, 10 Gb/s of frames.
    pub fn default_case() -> Inputs {
        Inputs { width: 32, poly: 0x04C1_1DB7, data_bits: 1514 * 8, ber: 1e-12, messages_per_s: 10e9 / (1518.0 * 8.0) }
    }

    pub fn validate(&self) -> Result<(), InputError> {
        check_range("width", self.width as f64, 3.0, 64.0)?;
        check_range("data-bits", self.data_bits as f64, 1.0, (MAX_COUNTED_BITS - self.width as u64) as f64)?;
        check_range("ber", self.ber, 0.0, 0.5)?;
        check_range("messages-per-s", self.messages_per_s, 0.0, 1e13)?;
        let top = crate::math::lfsr::mask(self.width);
        if self.poly & 1 == 0 || self.poly > top {
            return Err(InputError { option: "poly", problem: format!("= {:#x} is not a {}-bit generator with a constant term; allowed odd values 0x1..={top:#x}", self.poly, self.width) });
        }
        Ok(())
    }
}

/// The figures of `rtl-gen analyze crc`.
pub fn analyze(i: &Inputs) -> Result<Vec<Figure>, InputError> {
    i.validate()?;
    let reg = CrcRegister::new(i.width, i.poly);
    let n = i.data_bits + i.width as u64;
    let w = weights(reg, n).expect("data-bits checked against MAX_COUNTED_BITS");
    let mut out = vec![Figure::new("codeword length n", n as f64, "bits", "data + check")];
    let last = w.counted.len() - 1;
    let method = if w.complete { "exact weight distribution (syndrome programme)".to_string() } else { format!("A_2..A_{last} counted, heavier weights as 2^-r of their patterns") };
    match w.distance() {
        Some(d) => out.push(Figure::new("Hamming distance at n", d as f64, "bits", "smallest A_w > 0").note(method)),
        None => {
            // No pattern up to `last` escapes; with (x + 1) the next odd weight is caught too.
            let hd = last as u64 + 1 + (detects_all_odd_weights(reg) && last.is_multiple_of(2)) as u64;
            out.push(Figure::new("Hamming distance at n, at least", hd as f64, "bits", format!("A_2..A_{last} = 0")).note(method))
        }
    }
    for (wt, &a) in w.counted.iter().enumerate().skip(2).take(6) {
        out.push(Figure::new(format!("A_{wt} (undetected patterns of weight {wt})"), a, "patterns", "weight distribution"));
    }
    let (est, bound) = w.p_undetected(i.ber);
    out.push(Figure::new("P_ud per message", est, "", "Σ A_w p^w (1-p)^(n-w)").note(if w.complete { "exact" } else { "estimate" }));
    if !w.complete {
        out.push(Figure::new("P_ud upper bound", bound, "", format!("counted weights + P(> {last} errors)")));
    }
    out.push(Figure::new("random-code P_ud (2^-r)", 2f64.powi(-(i.width as i32)), "", "for comparison"));
    if i.messages_per_s > 0.0 {
        let per_s = est * i.messages_per_s;
        out.push(Figure::new("undetected messages per year", per_s * super::SECONDS_PER_YEAR, "/year", "P_ud × messages/s"));
        out.push(Figure::new("FIT", super::fit(est, i.messages_per_s), "FIT", "P_ud × messages/s × 3.6e12"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pattern of a small code, enumerated: the reference for both methods.
    fn brute(reg: CrcRegister, n: u64) -> Vec<f64> {
        let res = residues(reg, n);
        let mut a = vec![0f64; n as usize + 1];
        for e in 0u64..1 << n {
            let s = (0..n as usize).filter(|&i| e >> i & 1 == 1).fold(0, |s, i| s ^ res[i]);
            if s == 0 {
                a[e.count_ones() as usize] += 1.0;
            }
        }
        a
    }

    #[test]
    fn exact_programme_equals_enumeration() {
        for (width, poly, n) in [(4, 0x3, 14), (4, 0x3, 18), (5, 0x15, 16), (8, 0x07, 20), (3, 0x3, 9)] {
            let reg = CrcRegister::new(width, poly);
            assert_eq!(exact(reg, n).counted, brute(reg, n), "CRC-{width} {poly:#x} at {n} bits");
        }
    }

    #[test]
    fn counted_low_weights_equal_the_exact_ones() {
        // Within the period (A_2 = 0) the counted A_3, A_4 are exact; CRC-8 0x07 has (x+1).
        for (width, poly, n) in [(8, 0x07, 60), (8, 0x07, 120), (8, 0x9B, 90), (12, 0x80F, 200), (5, 0x05, 31)] {
            let reg = CrcRegister::new(width, poly);
            let (e, l) = (exact(reg, n), low_weights(reg, n));
            assert_eq!(l.counted[..5], e.counted[..5], "CRC-{width} {poly:#x} at {n} bits");
        }
    }

    #[test]
    fn a_long_message_under_a_narrow_crc_gives_a_finite_probability() {
        // CRC-8 over 2,048 bits: the exact counts would overflow, so the low weights are
        // counted and the rest bounded.
        let w = weights(CrcRegister::new(8, 0x07), 2056).unwrap();
        assert!(!w.complete);
        let (est, bound) = w.p_undetected(1e-12);
        assert!(est.is_finite() && bound.is_finite() && est > 0.0 && est <= bound, "{est} {bound}");
    }

    #[test]
    fn distances_agree_with_the_hamming_search() {
        // CRC-8 0x07: HD 4 up to 127 bits (weight 2 at 128); CRC-32 at 4,000 bits: HD 4
        // (Koopman's table: HD 5 only up to 2,974 data bits, HD 4 up to 91,607).
        let crc8 = CrcRegister::new(8, 0x07);
        assert_eq!(weights(crc8, 100).expect("feasible").distance(), Some(4));
        assert_eq!(weights(crc8, 128).expect("feasible").distance(), Some(2));
        let w = weights(CrcRegister::new(32, 0x04C1_1DB7), 4000).expect("feasible");
        assert!(!w.complete);
        assert_eq!(w.counted[2..4], [0.0, 0.0]);
        assert!(w.counted[4] > 0.0, "CRC-32 has weight-4 codewords at 4,000 bits: {w:?}");
    }

    #[test]
    fn undetected_probability_at_the_ends() {
        let w = exact(CrcRegister::new(8, 0x07), 40);
        assert_eq!(w.p_undetected(0.0), (0.0, 0.0));
        // At BER 1/2 every pattern is equally likely: P_ud = (#codewords − 1) / 2^n = 2^-8 − 2^-40.
        let (p, _) = w.p_undetected(0.5);
        assert!((p - (2f64.powi(-8) - 2f64.powi(-40))).abs() < 1e-12, "{p}");
    }

    #[test]
    fn bad_inputs_name_the_option() {
        let mut i = Inputs::default_case();
        i.poly = 0x04C1_1DB6;
        assert_eq!(analyze(&i).unwrap_err().option, "poly");
        let mut i = Inputs::default_case();
        i.ber = 0.7;
        let e = analyze(&i).unwrap_err();
        assert_eq!(e.option, "ber");
        assert!(e.to_string().contains("out of range; allowed 0..="), "{e}");
    }
}
