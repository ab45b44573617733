//! The analytic CRC and RS figures (`rtl_gen::analysis::{crc, rs}`) against campaigns on the
//! blocks' reference models at accelerated error rates, where a failure rate is measurable in
//! a second: the prediction must fall inside the measurement's 4-sigma interval. The campaigns
//! use the models' own encoders, checkers and decoders, not the analysis's arithmetic.

use rtl_gen::analysis::crc;
use rtl_gen::analysis::rs::{self, Errors};
use rtl_gen::blocks::crc::model::{CrcAlgo, CrcModel};
use rtl_gen::blocks::rs_fec::model::RsCode;
use rtl_gen::math::lfsr::CrcRegister;
use rtl_gen::math::splitmix::SplitMix64;

/// `hits` of `trials` agree with probability `p` within 4 standard deviations (binomial).
fn inside(hits: u64, trials: u64, p: f64) -> bool {
    let sigma = (trials as f64 * p * (1.0 - p)).sqrt();
    (hits as f64 - trials as f64 * p).abs() <= 4.0 * sigma.max(1.0)
}

/// Bit errors on `bits` bits: independent at `ber`, or the DFE chain (an error repeats with
/// probability `a`, the long-run rate `ber`). Bit i of the result is an error at bit i.
fn error_bits(rng: &mut SplitMix64, bits: usize, ber: f64, errors: Errors) -> Vec<bool> {
    let (after_error, after_ok) = match errors {
        Errors::Random => (ber, ber),
        Errors::Dfe(a) => (a, ber * (1.0 - a) / (1.0 - ber)),
    };
    let mut last = rng.chance(ber);
    let mut out = Vec::with_capacity(bits);
    for _ in 0..bits {
        let e = rng.chance(if last { after_error } else { after_ok });
        out.push(e);
        last = e;
    }
    out
}

#[test]
fn crc8_undetected_rate_matches_the_weight_distribution() {
    // CRC-8 0x07 over 4 message bytes, BER 0.1: about one frame in 370 escapes.
    let algo = CrcAlgo { width: 8, poly: 0x07, init: 0, refin: false, refout: false, xorout: 0 };
    let model = CrcModel::new(algo);
    let (ber, trials) = (0.1, 300_000u64);
    let weights = crc::weights(CrcRegister::new(8, 0x07), 40).expect("small code");
    assert!(weights.complete, "the exact programme runs at 40 bits");
    let (p, _) = weights.p_undetected(ber);
    let mut rng = SplitMix64::new(0xC0DE);
    let mut escaped = 0;
    for _ in 0..trials {
        let msg = rng.bytes(4);
        let crc = model.checksum(&msg) as u8;
        let e = error_bits(&mut rng, 40, ber, Errors::Random);
        let mut got = msg.clone();
        for (i, b) in got.iter_mut().enumerate() {
            *b ^= (0..8).fold(0u8, |acc, k| acc | (e[i * 8 + k] as u8) << (7 - k));
        }
        let got_crc = crc ^ (0..8).fold(0u8, |acc, k| acc | (e[32 + k] as u8) << (7 - k));
        if e.iter().any(|&x| x) && model.checksum(&got) as u8 == got_crc {
            escaped += 1;
        }
    }
    eprintln!("CRC-8: {escaped} of {trials} escaped ({:.3e}), predicted {p:.3e}", escaped as f64 / trials as f64);
    assert!(inside(escaped, trials, p), "{escaped} of {trials} escaped, predicted {p:.3e} per frame");
}

/// Codewords of `code` the decoder does not restore, under `errors` at `ber`.
fn rs_failures(code: &RsCode, ber: f64, errors: Errors, trials: u64, seed: u64) -> u64 {
    let mut rng = SplitMix64::new(seed);
    let m = code.field().m() as usize;
    let mask = ((1u32 << m) - 1) as u16;
    let mut failed = 0;
    for _ in 0..trials {
        let cw = code.encode(&rng.symbols(code.k(), mask));
        let e = error_bits(&mut rng, code.n() * m, ber, errors);
        let mut rx: Vec<u16> = cw.iter().enumerate().map(|(i, &s)| s ^ (0..m).fold(0u16, |acc, b| acc | (e[i * m + b] as u16) << b)).collect();
        code.decode(&mut rx);
        failed += (rx != cw) as u64;
    }
    failed
}

#[test]
fn kr4_codeword_failures_match_the_binomial_model() {
    // BER 8e-4: about 4.2 symbol errors per codeword, t = 7: one codeword in sixteen fails.
    let code = RsCode::ethernet_kr4();
    let (ber, trials) = (8e-4, 3000);
    let p = rs::post_fec(&rs::Code::kr4(), ber, Errors::Random).codeword_failure;
    assert!((0.03..0.3).contains(&p), "{p}");
    let failed = rs_failures(&code, ber, Errors::Random, trials, 0xFEC);
    eprintln!("KR4 random: {failed} of {trials} failed ({:.4}), predicted {p:.4}", failed as f64 / trials as f64);
    assert!(inside(failed, trials, p), "{failed} of {trials} failed, predicted {p:.4}");
}

#[test]
fn kr4_codeword_failures_under_dfe_bursts_match_the_chain_model() {
    // a = 0.8 (bursts of 5 bits on average) at BER 3e-3: one codeword in eight fails, where
    // independent errors at that BER would fail almost every one.
    let code = RsCode::ethernet_kr4();
    let (ber, trials, errors) = (3e-3, 3000, Errors::Dfe(0.8));
    let p = rs::post_fec(&rs::Code::kr4(), ber, errors).codeword_failure;
    let random = rs::post_fec(&rs::Code::kr4(), ber, Errors::Random).codeword_failure;
    assert!((0.03..0.5).contains(&p) && (p / random - 1.0).abs() > 0.3, "chain {p}, random {random}");
    let failed = rs_failures(&code, ber, errors, trials, 0xDFE);
    eprintln!("KR4 DFE: {failed} of {trials} failed ({:.4}), predicted {p:.4}, random model {random:.4}", failed as f64 / trials as f64);
    assert!(inside(failed, trials, p), "{failed} of {trials} failed, predicted {p:.4} (random model {random:.4})");
}
