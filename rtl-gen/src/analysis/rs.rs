//! Reed-Solomon post-FEC error rates from the pre-FEC BER: the codes of this project (Ethernet
//! KR4 RS(528,514) and KP4 RS(544,514) over GF(2^10), and the CXL 256-byte flit's three
//! interleaved t = 1 ways over GF(2^8)), or any RS(n, k) a user names.
//!
//! Two error models:
//! - **Random** (independent bit errors): a symbol is hit with SER = 1 − (1 − BER)^m and the
//!   symbol errors of a way are binomial.
//! - **DFE bursts**: a one-tap decision-feedback equaliser repeats an error into the next bit
//!   with probability `a`, so errors come as bursts of geometric length (mean 1 / (1 − a)), the
//!   long-run BER unchanged. The symbol errors of a way are computed exactly for that two-state
//!   chain (a programme over its bits); with a = BER it is the random model.
//!
//! A way fails (its decoder gives up or miscorrects) when it holds more than t symbol errors; a
//! codeword fails when any way does. Post-FEC SER and BER follow the usual reading that a
//! failed way keeps its errors (a miscorrection adds at most t more: the bound column).

use super::prob::{frame_error_rate, p_exactly, p_more_than};
use super::{check_range, Figure, InputError};

/// A code: the length of each interleaved way in symbols, symbol bits, correctable symbols per
/// way, message symbols in all.
#[derive(Debug, Clone, PartialEq)]
pub struct Code {
    pub name: String,
    pub ways: Vec<u64>,
    pub symbol_bits: u32,
    pub t: u64,
    pub msg_symbols: u64,
}

impl Code {
    /// IEEE 802.3 Clause 91 RS(528,514), t = 7, 10-bit symbols.
    pub fn kr4() -> Code {
        Code { name: "KR4 RS(528,514)".into(), ways: vec![528], symbol_bits: 10, t: 7, msg_symbols: 514 }
    }
    /// IEEE 802.3 Clause 91/119 RS(544,514), t = 15, 10-bit symbols.
    pub fn kp4() -> Code {
        Code { name: "KP4 RS(544,514)".into(), ways: vec![544], symbol_bits: 10, t: 15, msg_symbols: 514 }
    }
    /// The CXL 256-byte flit: 250 message bytes, three ways of 86, 85, 85 bytes, t = 1 each.
    pub fn cxl() -> Code {
        Code { name: "CXL flit FEC (3 ways, t = 1)".into(), ways: vec![86, 85, 85], symbol_bits: 8, t: 1, msg_symbols: 250 }
    }
    /// RS(n, k) over GF(2^m), one way, t = (n − k) / 2.
    pub fn custom(n: u64, k: u64, symbol_bits: u32) -> Result<Code, InputError> {
        check_range("m", symbol_bits as f64, 3.0, 16.0)?;
        check_range("n", n as f64, 3.0, ((1u64 << symbol_bits) - 1) as f64)?;
        check_range("k", k as f64, 1.0, (n - 2) as f64)?;
        Ok(Code { name: format!("RS({n},{k}) over GF(2^{symbol_bits})"), ways: vec![n], symbol_bits, t: (n - k) / 2, msg_symbols: k })
    }

    /// Codewords per second of the code's usual link: 100 Gb/s of Ethernet codewords, 5·10^8
    /// CXL flits (one per 2 ns, the RXL paper's rate); 0 for a code named by its numbers.
    pub fn default_rate(&self) -> f64 {
        match self.name.as_str() {
            n if n.starts_with("KR4") || n.starts_with("KP4") => 100e9 / (self.symbols() * self.symbol_bits as u64) as f64,
            n if n.starts_with("CXL") => 5e8,
            _ => 0.0,
        }
    }

    pub fn symbols(&self) -> u64 {
        self.ways.iter().sum()
    }
}

/// How bit errors arrive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Errors {
    Random,
    /// One-tap DFE error propagation with this probability (0 ≤ a < 1).
    Dfe(f64),
}

/// P(a way of `symbols` symbols holds exactly i symbol errors), i = 0..limit, under `errors`;
/// the last entry is P(limit or more) for the DFE model (exactly `limit` for random errors).
pub fn way_distribution(symbols: u64, m: u32, ber: f64, errors: Errors, limit: u64) -> Vec<f64> {
    match errors {
        Errors::Random => {
            let ser = frame_error_rate(ber, m as u64);
            (0..=limit).map(|i| p_exactly(symbols, i, ser)).collect()
        }
        Errors::Dfe(a) => dfe_distribution(symbols, m, ber, a, limit),
    }
}

/// The DFE model as the two-state chain it is: a bit is in error with probability `a` after an
/// error and `x` after a correct bit, `x` chosen so that the long-run BER is `ber` (x = BER ·
/// (1 − a) / (1 − BER)). A programme over the way's bits keeps, per (last bit in error, current
/// symbol hit, symbol errors so far), its probability: exact for the chain, at any a.
fn dfe_distribution(symbols: u64, m: u32, ber: f64, a: f64, limit: u64) -> Vec<f64> {
    let x = if ber >= 1.0 { 1.0 } else { ber * (1.0 - a) / (1.0 - ber) };
    let len = limit as usize + 1;
    // p[(last_err * 2 + hit) * len + count]; before the first bit the chain is stationary.
    let mut p = vec![0.0; 4 * len];
    p[0] = 1.0 - ber;
    p[2 * len] = ber;
    for _ in 0..symbols {
        for _ in 0..m {
            let mut next = vec![0.0; 4 * len];
            for last in 0..2 {
                let p_err = if last == 1 { a } else { x };
                for hit in 0..2 {
                    for c in 0..len {
                        let v = p[(last * 2 + hit) * len + c];
                        if v == 0.0 {
                            continue;
                        }
                        next[hit * len + c] += v * (1.0 - p_err);
                        next[(2 + 1) * len + c] += v * p_err;
                    }
                }
            }
            p = next;
        }
        // Close the symbol: a hit symbol counts one error; the last count holds "limit or more",
        // so the tail above t keeps all its mass.
        let mut next = vec![0.0; 4 * len];
        for last in 0..2 {
            for c in 0..len {
                next[last * 2 * len + c] += p[last * 2 * len + c];
                next[last * 2 * len + (c + 1).min(len - 1)] += p[(last * 2 + 1) * len + c];
            }
        }
        p = next;
    }
    (0..len).map(|c| p[c] + p[2 * len + c]).collect()
}

/// P(a symbol of `m` bits holds an error): 1 − (1 − BER)^m for random errors; for the DFE chain,
/// 1 − (1 − BER)(1 − x)^(m − 1) (the first bit at the long-run rate, each next one after a
/// correct bit).
pub fn symbol_error_rate(m: u32, ber: f64, errors: Errors) -> f64 {
    match errors {
        Errors::Random => frame_error_rate(ber, m as u64),
        Errors::Dfe(a) => {
            let x = if ber >= 1.0 { 1.0 } else { ber * (1.0 - a) / (1.0 - ber) };
            -((-ber).ln_1p() + (m - 1) as f64 * (-x).ln_1p()).exp_m1()
        }
    }
}

/// Symbol-error counts the DFE programme keeps for a t-error-correcting way: far enough past t
/// to hold the tail (its last count holds "that many or more").
fn dfe_limit(t: u64) -> u64 {
    (t + 1) * 4 + 64
}

/// Largest bits × counts the DFE programme runs for `rtl-gen analyze rs` (about a second).
pub const DFE_BUDGET: f64 = 2e8;

/// The figures one way contributes: P(more than t errors) and E[errors; more than t].
fn way_failure(symbols: u64, m: u32, t: u64, ber: f64, errors: Errors) -> (f64, f64) {
    if let Errors::Random = errors {
        let ser = frame_error_rate(ber, m as u64);
        // E[i; i > t] = n·s·P(at least t of the other n − 1 symbols in error), from
        // i·C(n, i) = n·C(n − 1, i − 1).
        let others = if t == 0 { 1.0 } else { p_more_than(symbols - 1, t - 1, ser) };
        return (p_more_than(symbols, t, ser), symbols as f64 * ser * others);
    }
    let limit = dfe_limit(t);
    let f = way_distribution(symbols, m, ber, errors, limit);
    let tail: f64 = f[t as usize + 1..].iter().sum();
    let mean: f64 = f.iter().enumerate().skip(t as usize + 1).map(|(i, p)| i as f64 * p).sum();
    (tail, mean)
}

/// Post-FEC figures of `code` at `ber`.
#[derive(Debug, Clone, PartialEq)]
pub struct PostFec {
    pub ser_in: f64,
    /// P(the codeword has a way with more than t symbol errors).
    pub codeword_failure: f64,
    /// Symbol errors left per symbol (failed ways keep theirs).
    pub ser_out: f64,
    /// … plus t miscorrected symbols per failed way (an upper reading).
    pub ser_out_bound: f64,
    /// Bit errors left per message bit.
    pub ber_out: f64,
}

pub fn post_fec(code: &Code, ber: f64, errors: Errors) -> PostFec {
    let m = code.symbol_bits;
    // ln P(every way decodes), summed without cancellation at tiny failure rates.
    let (mut ln_ok, mut left, mut failures) = (0.0, 0.0, 0.0);
    for &w in &code.ways {
        let (fail, mean) = way_failure(w, m, code.t, ber, errors);
        ln_ok += (-fail).ln_1p();
        left += mean;
        failures += fail;
    }
    let n = code.symbols() as f64;
    // A symbol in error carries m·BER / SER bit errors on average, under either model.
    let ser_in = symbol_error_rate(m, ber, errors);
    let bits_per_symbol_error = if ser_in > 0.0 { m as f64 * ber / ser_in } else { 1.0 };
    let ser_out = left / n;
    PostFec {
        ser_in,
        codeword_failure: -ln_ok.exp_m1(),
        ser_out,
        ser_out_bound: (left + failures * code.t as f64) / n,
        ber_out: ser_out * bits_per_symbol_error / m as f64,
    }
}

/// What `rtl-gen analyze rs` takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    pub code: Code,
    pub ber: f64,
    pub errors: Errors,
    /// Codewords per second, for the time between failed codewords (0: not printed).
    pub codewords_per_s: f64,
}

impl Inputs {
    /// KP4 at IEEE 802.3's usual pre-FEC threshold, 2.4e-4, random errors, 100 Gb/s.
    pub fn default_case() -> Inputs {
        let code = Code::kp4();
        Inputs { codewords_per_s: code.default_rate(), code, ber: 2.4e-4, errors: Errors::Random }
    }
}

pub fn analyze(i: &Inputs) -> Result<Vec<Figure>, InputError> {
    check_range("ber", i.ber, 0.0, 0.1)?;
    check_range("codewords-per-s", i.codewords_per_s, 0.0, 1e12)?;
    let c = &i.code;
    if let Errors::Dfe(a) = i.errors {
        check_range("dfe-tap", a, 0.0, 0.99)?;
        // The chain's programme visits every bit of a way once per error count it keeps.
        let steps = c.ways.iter().map(|&w| (w * c.symbol_bits as u64) as f64 * dfe_limit(c.t) as f64).sum::<f64>();
        if steps > DFE_BUDGET {
            return Err(InputError { option: "dfe-tap", problem: format!("is computed for codes of up to {DFE_BUDGET:e} bit × error-count steps; {} needs {steps:.1e} (fewer symbols or a smaller t)", c.name) });
        }
    }
    let p = post_fec(c, i.ber, i.errors);
    let model = match i.errors {
        Errors::Random => "random bit errors".to_string(),
        Errors::Dfe(a) => format!("1-tap DFE bursts, a = {a}"),
    };
    let mut out = vec![
        Figure::new("code", c.symbols() as f64, "symbols", c.name.clone()).note(format!("{} way(s), t = {} each, {}-bit symbols", c.ways.len(), c.t, c.symbol_bits)),
        Figure::new("code rate", c.msg_symbols as f64 / c.symbols() as f64, "", "k / n"),
        Figure::new("pre-FEC BER", i.ber, "", "input").note(model),
        Figure::new("pre-FEC symbol error rate", p.ser_in, "", "P(a symbol holds an error)"),
        Figure::new("codeword failure probability", p.codeword_failure, "", "P(a way holds > t symbol errors)"),
        Figure::new("post-FEC symbol error rate", p.ser_out, "", "Σ_{i>t} i·P(i) / n"),
        Figure::new("post-FEC symbol error rate, bound", p.ser_out_bound, "", "+ t miscorrected per failure"),
        Figure::new("post-FEC BER", p.ber_out, "", "SER_out × bits per symbol error / m"),
    ];
    if i.codewords_per_s > 0.0 {
        let mtbf_s = 1.0 / (p.codeword_failure * i.codewords_per_s);
        out.push(Figure::new("mean time between failed codewords", mtbf_s, "s", "1 / (P_fail × codewords/s)"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_errors_match_the_binomial_directly() {
        let c = Code::kr4();
        let ber = 1e-4;
        let ser = frame_error_rate(ber, 10);
        let direct: f64 = (8..=528).map(|i| p_exactly(528, i, ser)).sum();
        let p = post_fec(&c, ber, Errors::Random);
        assert!((p.codeword_failure / direct - 1.0).abs() < 1e-9, "{p:?} vs {direct}");
        let mean: f64 = (8..=528).map(|i| i as f64 * p_exactly(528, i, ser)).sum();
        assert!((p.ser_out * 528.0 / mean - 1.0).abs() < 1e-9, "{p:?} vs {mean}");
    }

    #[test]
    fn a_dfe_without_memory_is_the_random_model() {
        let c = Code::kp4();
        let r = post_fec(&c, 1e-4, Errors::Random);
        // a = BER: an error is as likely after an error as anywhere: independent errors.
        let d = post_fec(&c, 1e-4, Errors::Dfe(1e-4));
        assert!((d.codeword_failure / r.codeword_failure - 1.0).abs() < 1e-6, "{r:?} {d:?}");
    }

    #[test]
    fn bursts_hurt_at_the_same_ber() {
        let c = Code::kp4();
        let r = post_fec(&c, 2.4e-4, Errors::Random);
        let d = post_fec(&c, 2.4e-4, Errors::Dfe(0.75));
        // Bursts put several bit errors in one symbol (fewer symbol errors on average) but clump
        // them: the codeword fails more often.
        assert!(d.codeword_failure > r.codeword_failure * 2.0, "{r:?} {d:?}");
    }

    #[test]
    fn the_chain_without_memory_is_the_binomial() {
        // a = BER is independent errors; with other a the distribution still sums to 1.
        let r = way_distribution(20, 4, 0.05, Errors::Random, 20);
        let d = way_distribution(20, 4, 0.05, Errors::Dfe(0.05), 20);
        for (x, y) in r.iter().zip(&d) {
            assert!((x - y).abs() < 1e-12, "{r:?}\n{d:?}");
        }
        let b = way_distribution(20, 4, 0.05, Errors::Dfe(0.8), 20);
        assert!((b.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{b:?}");
    }

    #[test]
    fn cxl_code_equals_the_rxl_analysis() {
        let p = post_fec(&Code::cxl(), 1e-5, Errors::Random);
        let rxl = super::super::rxl::fer_uc_from_code(1e-5);
        assert!((p.codeword_failure / rxl - 1.0).abs() < 1e-6, "{p:?} vs {rxl}");
    }
}
