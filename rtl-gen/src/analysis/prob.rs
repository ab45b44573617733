//! Independent bit errors at a fixed BER: the probability model both papers use (RXL Eq. 1,
//! RIFL Eq. 9 and 16). Computed without cancellation, so 1e-24 is as exact as 1e-3.

/// Probability that `bits` bits carry at least one error: FER = 1 − (1 − BER)^bits
/// (RXL Eq. 1, RIFL Eq. 9), as −expm1(bits · ln(1 − BER)).
pub fn frame_error_rate(ber: f64, bits: u64) -> f64 {
    -((bits as f64) * (-ber).ln_1p()).exp_m1()
}

/// ln C(n, k).
fn ln_choose(n: u64, k: u64) -> f64 {
    (0..k)
        .map(|i| ((n - i) as f64).ln() - ((i + 1) as f64).ln())
        .sum()
}

/// P(i) of RIFL Eq. 16: exactly `i` of `n` bits in error.
pub fn p_exactly(n: u64, i: u64, ber: f64) -> f64 {
    if i > n {
        return 0.0;
    }
    if ber == 0.0 {
        return if i == 0 { 1.0 } else { 0.0 };
    }
    (ln_choose(n, i) + i as f64 * ber.ln() + (n - i) as f64 * (-ber).ln_1p()).exp()
}

/// 1 − Σ_{i=0..=k} P(i) of RIFL Eq. 15: more than `k` of `n` bits in error, summed from the
/// tail (i = k+1 upward until the terms no longer count), never as 1 minus a sum near 1.
pub fn p_more_than(n: u64, k: u64, ber: f64) -> f64 {
    let mut sum = 0.0;
    for i in k + 1..=n {
        let t = p_exactly(n, i, ber);
        sum += t;
        // Terms fall by about n·BER/i each step past the mode; stop when they cannot matter.
        if i as f64 > n as f64 * ber + 1.0 && t < sum * 1e-17 {
            break;
        }
    }
    sum.min(1.0)
}
