//! RXL against CXL 3.0: flit error rates, FEC and CRC escape probabilities, ordering failures,
//! FIT and bandwidth loss (Jung et al., "RXL: … Implicit Sequence Numbers", §7.1–7.2,
//! Eq. 1–14, Fig. 8). Equation numbers below are the paper's.

use super::prob::frame_error_rate;
use super::{check_range, fit, Figure, InputError};

/// The CXL 3.0 / PCIe 6.0 256-byte flit's FEC: three interleaved ways of a t = 1 Reed-Solomon
/// code over GF(2^8) (2 check symbols per way), 86 + 85 + 85 symbols.
pub const FEC_WAY_SYMBOLS: [u64; 3] = [86, 85, 85];
/// Bits per FEC symbol.
pub const FEC_SYMBOL_BITS: u32 = 8;

/// The analysis inputs; [`Inputs::paper`] is the paper's case (§7.1).
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    /// Raw bit error rate (§7.1.1: 10^-6, CXL 3.0's allowance at 64 GT/s).
    pub ber: f64,
    /// Flit size in bits (2048: the 256-byte flit).
    pub flit_bits: u64,
    /// Uncorrectable flit error rate after FEC; `None` = from the code under independent errors
    /// ([`fer_uc_from_code`]). The paper uses PCIe 6.0's 3·10^-5 (Eq. 2).
    pub fer_uc: Option<f64>,
    /// CRC width: undetected fraction 2^-crc_bits of the uncorrectable flits (Eq. 4).
    pub crc_bits: u32,
    /// Flits per second of the device (×16 at 64 GT/s: 5·10^8).
    pub flits_per_s: f64,
    /// Fraction of flits carrying an AckNum instead of a SeqNum (Eq. 7: 0.1).
    pub p_coalescing: f64,
    /// Channel time of one flit and of a retried flit (Eq. 11: 2 ns, 102 ns).
    pub flit_ns: f64,
    pub retry_ns: f64,
    /// Switching levels of the Fig. 8 table (0 = direct).
    pub max_levels: u32,
}

/// The uncorrectable flit error rate of PCIe 6.0 the paper uses (Eq. 2).
pub const PAPER_FER_UC: f64 = 3.0e-5;

impl Inputs {
    pub fn paper() -> Inputs {
        Inputs {
            ber: 1e-6,
            flit_bits: 2048,
            fer_uc: Some(PAPER_FER_UC),
            crc_bits: 64,
            flits_per_s: 5e8,
            p_coalescing: 0.1,
            flit_ns: 2.0,
            retry_ns: 102.0,
            max_levels: 3,
        }
    }

    /// Every input in its range (each error names the option).
    pub fn validate(&self) -> Result<(), InputError> {
        check_range("ber", self.ber, 0.0, 0.5)?;
        check_range("flit-bits", self.flit_bits as f64, 8.0, 65536.0)?;
        check_range("crc-bits", self.crc_bits as f64, 1.0, 64.0)?;
        check_range("flits-per-s", self.flits_per_s, 1.0, 1e13)?;
        check_range("p-coalescing", self.p_coalescing, 0.0, 1.0)?;
        check_range("flit-ns", self.flit_ns, 1e-3, 1e6)?;
        check_range("retry-ns", self.retry_ns, self.flit_ns, 1e9).map_err(|e| InputError {
            problem: format!("{} (at least --flit-ns)", e.problem),
            ..e
        })?;
        check_range("max-levels", self.max_levels as f64, 0.0, 8.0)?;
        if let Some(uc) = self.fer_uc {
            let fer = frame_error_rate(self.ber, self.flit_bits);
            check_range("fer-uc", uc, 0.0, fer).map_err(|_| InputError {
                option: "fer-uc",
                problem: format!("= {uc} is out of range; allowed 0..={fer:e} (the FER of Eq. 1: FEC cannot leave more flits uncorrectable than are hit)"),
            })?;
        }
        Ok(())
    }
}

/// Symbol error rate: a symbol of `bits` bits is hit by at least one bit error.
pub fn symbol_error_rate(ber: f64, bits: u32) -> f64 {
    frame_error_rate(ber, bits as u64)
}

/// FER_UC from the code (Eq. 2's quantity computed, not quoted): a flit is uncorrectable when a
/// way of the t = 1 code holds two or more symbol errors, under independent bit errors.
/// (The paper quotes PCIe 6.0's 3·10^-5 instead, which allows for DFE burst errors.)
pub fn fer_uc_from_code(ber: f64) -> f64 {
    let ser = symbol_error_rate(ber, FEC_SYMBOL_BITS);
    if ser == 0.0 {
        return 0.0;
    }
    // P(way ≤ 1 error) = (1−s)^n + n·s·(1−s)^(n−1); the flit survives when every way does.
    let ln_ok: f64 = FEC_WAY_SYMBOLS
        .iter()
        .map(|&n| {
            let n = n as f64;
            let none = n * (-ser).ln_1p();
            let one = n.ln() + ser.ln() + (n - 1.0) * (-ser).ln_1p();
            let p_ok = none.exp() + one.exp();
            p_ok.min(1.0).ln()
        })
        .sum();
    -ln_ok.exp_m1()
}

/// The fraction of two-symbol errors in one way of `way_symbols` symbols that the t = 1
/// decoder miscorrects: the syndrome pair (S0, S1) of a double error is uniform over the
/// 2^16 − 1 nonzero pairs, and n·(2^8 − 1) of them look like a single error at an existing
/// position.
pub fn miscorrect_fraction(way_symbols: u64) -> f64 {
    let q = (1u64 << FEC_SYMBOL_BITS) as f64;
    way_symbols as f64 * (q - 1.0) / (q * q - 1.0)
}

/// Detected fraction of a burst of `bytes` consecutive bytes (4, 5 or 6: one, two or three ways
/// hit twice): detected unless every doubly hit way miscorrects.
pub fn burst_detect_fraction(bytes: u32) -> f64 {
    let doubled = bytes.saturating_sub(3).min(3) as i32;
    // The burst's doubly hit ways are the first ones of the flit's order; the average way
    // miscorrects 256/3 · 255 / 65535 of the time.
    let q = miscorrect_fraction(FEC_WAY_SYMBOLS.iter().sum::<u64>()) / FEC_WAY_SYMBOLS.len() as f64;
    1.0 - q.powi(doubled)
}

/// Eq. 3: the share of erroneous flits the FEC corrects, 1 − FER_UC / FER.
pub fn p_correct(fer: f64, fer_uc: f64) -> f64 {
    if fer > 0.0 {
        1.0 - fer_uc / fer
    } else {
        1.0
    }
}

/// Eq. 4: undetected flit error rate after a `crc_bits` CRC, FER_UC · 2^-crc_bits (an upper
/// bound: bursts up to the CRC width are always detected).
pub fn fer_ud(fer_uc: f64, crc_bits: u32) -> f64 {
    fer_uc * 2f64.powi(-(crc_bits as i32))
}

/// Eq. 6 generalised to `levels` switches: each of the first `levels` links drops its
/// uncorrectable flits silently.
pub fn fer_drop(fer_uc: f64, levels: u32) -> f64 {
    levels as f64 * fer_uc
}

/// Eq. 7: ordering failures, the drops whose next flit carries an AckNum.
pub fn fer_order(fer_drop: f64, p_coalescing: f64) -> f64 {
    fer_drop * p_coalescing
}

/// Eq. 9 generalised to `levels` switches: RXL retries every dropped flit, so only the CRC's
/// escapes remain, over the flits sent including the retries:
/// FER_UD = FER_UC · (1 + levels · FER_UC) · 2^-crc_bits. (The paper prints (1 + FER_UC) · 2^-64;
/// its value 1.6·10^-24 carries the FER_UC factor this formula has.)
pub fn rxl_fer_ud(fer_uc: f64, levels: u32, crc_bits: u32) -> f64 {
    fer_ud(fer_uc, crc_bits) * (1.0 + levels as f64 * fer_uc)
}

/// Eq. 11, 12 and 14: bandwidth lost to retries when `retry_rate` of the flits occupy the
/// channel for `retry_ns` instead of `flit_ns`.
pub fn bw_loss(retry_rate: f64, flit_ns: f64, retry_ns: f64) -> f64 {
    1.0 - flit_ns / ((1.0 - retry_rate) * flit_ns + retry_rate * retry_ns)
}

/// CXL's and RXL's device FIT at `levels` switching levels (Fig. 8): CXL fails by ordering once
/// a switch can drop (Eq. 8), by CRC escapes when direct (Eq. 5); RXL by CRC escapes (Eq. 10).
pub fn fit_pair(i: &Inputs, fer_uc: f64, levels: u32) -> (f64, f64) {
    let cxl = if levels == 0 {
        fit(fer_ud(fer_uc, i.crc_bits), i.flits_per_s)
    } else {
        fit(
            fer_order(fer_drop(fer_uc, levels), i.p_coalescing),
            i.flits_per_s,
        ) + fit(fer_ud(fer_uc, i.crc_bits), i.flits_per_s)
    };
    let rxl = fit(rxl_fer_ud(fer_uc, levels, i.crc_bits), i.flits_per_s);
    (cxl, rxl)
}

/// Every figure of §7.1–7.2 for `i` (validated first).
pub fn analyze(i: &Inputs) -> Result<Vec<Figure>, InputError> {
    i.validate()?;
    let paper = *i == Inputs::paper();
    let pv = |f: Figure, v: f64| if paper { f.paper(v) } else { f };
    let fer = frame_error_rate(i.ber, i.flit_bits);
    let uc_code = fer_uc_from_code(i.ber);
    let fer_uc = i.fer_uc.unwrap_or(uc_code);
    let uc_source = match i.fer_uc {
        Some(v) if v == PAPER_FER_UC => "PCIe 6.0's bound, as the paper (with DFE bursts); --fer-uc code computes it from the code",
        Some(_) => "given (--fer-uc)",
        None => "from the code, independent bit errors (--fer-uc code)",
    };
    let mut out = vec![
        pv(
            Figure::new("FER (flit error rate)", fer, "per flit", "Eq. 1"),
            2.0e-3,
        ),
        pv(
            Figure::new(
                "FER_UC (uncorrectable after FEC)",
                fer_uc,
                "per flit",
                "Eq. 2",
            ),
            3.0e-5,
        )
        .note(uc_source),
        Figure::new(
            "FER_UC from the code (3-way t = 1 RS, independent errors)",
            uc_code,
            "per flit",
            "Eq. 2",
        )
        .note(
            "two symbol errors in one way; far below PCIe 6.0's figure, which covers burst errors",
        ),
        pv(
            Figure::new(
                "p_correct (FEC corrects)",
                p_correct(fer, fer_uc),
                "fraction",
                "Eq. 3",
            ),
            0.985,
        ),
        Figure::new(
            "FEC detects a double error in one way (86-symbol way)",
            1.0 - miscorrect_fraction(86),
            "fraction",
            "code",
        )
        .note("docs/results/rs-fec.md: 0.6695 / 0.6714 measured on the RTL"),
        Figure::new(
            "FEC detects a 4-byte burst",
            burst_detect_fraction(4),
            "fraction",
            "code",
        )
        .note("measured 0.6733 / 0.6712"),
        Figure::new(
            "FEC detects a 5-byte burst",
            burst_detect_fraction(5),
            "fraction",
            "code",
        )
        .note("measured 0.8952 / 0.8944"),
        Figure::new(
            "FEC detects a 6-byte burst",
            burst_detect_fraction(6),
            "fraction",
            "code",
        )
        .note("measured 0.9653 / 0.9667"),
        pv(
            Figure::new(
                "FER_UD (CRC escapes)",
                fer_ud(fer_uc, i.crc_bits),
                "per flit",
                "Eq. 4",
            ),
            1.6e-24,
        ),
        pv(
            Figure::new(
                "FIT, CXL direct",
                fit(fer_ud(fer_uc, i.crc_bits), i.flits_per_s),
                "FIT",
                "Eq. 5",
            ),
            2.9e-3,
        ),
        pv(
            Figure::new(
                "FER_drop, one switch",
                fer_drop(fer_uc, 1),
                "per flit",
                "Eq. 6",
            ),
            3.0e-5,
        ),
        pv(
            Figure::new(
                "FER_order, one switch",
                fer_order(fer_drop(fer_uc, 1), i.p_coalescing),
                "per flit",
                "Eq. 7",
            ),
            3.0e-6,
        ),
        pv(
            Figure::new(
                "FIT, CXL one switch (ordering)",
                fit(
                    fer_order(fer_drop(fer_uc, 1), i.p_coalescing),
                    i.flits_per_s,
                ),
                "FIT",
                "Eq. 8",
            ),
            5.4e15,
        ),
        pv(
            Figure::new(
                "FER_UD, RXL one switch",
                rxl_fer_ud(fer_uc, 1, i.crc_bits),
                "per flit",
                "Eq. 9",
            ),
            1.6e-24,
        )
        .note("the paper prints (1 + FER_UC)·2^-64; its value needs FER_UC·(1 + FER_UC)·2^-64"),
        pv(
            Figure::new(
                "FIT, RXL one switch",
                fit(rxl_fer_ud(fer_uc, 1, i.crc_bits), i.flits_per_s),
                "FIT",
                "Eq. 10",
            ),
            2.9e-3,
        ),
    ];
    let (c1, r1) = fit_pair(i, fer_uc, 1);
    if r1 > 0.0 {
        out.push(
            pv(
                Figure::new(
                    "FIT ratio CXL / RXL, one switch",
                    c1 / r1,
                    "x",
                    "Eq. 8 / Eq. 10",
                ),
                1e18,
            )
            .note("the paper: \"exceeding 10^18 times\""),
        );
    }
    for levels in 0..=i.max_levels {
        let (c, r) = fit_pair(i, fer_uc, levels);
        out.push(Figure::new(
            format!("FIT, CXL, {levels} switching levels"),
            c,
            "FIT",
            "Fig. 8",
        ));
        out.push(Figure::new(
            format!("FIT, RXL, {levels} switching levels"),
            r,
            "FIT",
            "Fig. 8",
        ));
    }
    out.extend([
        pv(
            Figure::new(
                "BW loss, direct",
                bw_loss(fer_uc, i.flit_ns, i.retry_ns),
                "fraction",
                "Eq. 11",
            ),
            0.0015,
        ),
        pv(
            Figure::new(
                "BW loss, CXL one switch, ACK piggybacking",
                bw_loss(2.0 * fer_uc, i.flit_ns, i.retry_ns),
                "fraction",
                "Eq. 12",
            ),
            0.0030,
        ),
        pv(
            Figure::new(
                "BW loss, CXL one switch, separate ACK flits",
                i.p_coalescing,
                "fraction",
                "Eq. 13",
            ),
            0.1,
        )
        .note("= p_coalescing"),
        pv(
            Figure::new(
                "BW loss, RXL one switch",
                bw_loss(2.0 * fer_uc, i.flit_ns, i.retry_ns),
                "fraction",
                "Eq. 14",
            ),
            0.0030,
        ),
    ]);
    Ok(out)
}
