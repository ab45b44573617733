//! GF(2^m) arithmetic for Reed-Solomon codes and the GF(2^8) flit CRC, m = 3..=12.
//!
//! An element is a `u16` whose bit `i` is the coefficient of α^i in the polynomial basis
//! {1, α, …, α^(m−1)}, α being a root of the field polynomial. The field polynomial is given in
//! full form: bit m set (0x11D = x^8+x^4+x^3+x^2+1). Only *primitive* polynomials are accepted,
//! so α generates every nonzero element and exp/log tables cover the whole field: that is what
//! Reed-Solomon codes of length up to 2^m − 1 and the error-location-by-logarithm of the t = 1
//! decoders need.
//!
//! Besides scalar arithmetic this module gives
//! - polynomials over GF(2^m) as slices, **highest-degree coefficient first** (the order in which
//!   codeword symbols are transmitted): [`Gf2m::poly_mul`], [`Gf2m::poly_eval`],
//!   [`Gf2m::poly_rem`];
//! - the GF(2)-linear form of "multiply by a constant" as a bit matrix ([`Gf2m::mul_matrix`]),
//!   which is what the Verilog generator turns into XOR networks;
//! - [`AffineMasks`]: the GF(2)-affine map of a whole encoder, probed from a reference model on
//!   unit vectors, so the emitted XOR network is by construction the model's map.

use std::fmt;

/// Smallest supported symbol width.
pub const MIN_M: u32 = 3;
/// Largest supported symbol width.
pub const MAX_M: u32 = 12;

/// Why a field definition was rejected. The text names m, the polynomial in hex and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gf2mError {
    /// m outside `MIN_M..=MAX_M`.
    SymbolBitsOutOfRange { m: u32 },
    /// The polynomial's degree is not m (typically the x^m term was left out).
    WrongDegree {
        m: u32,
        poly: u32,
        degree: Option<u32>,
    },
    /// The polynomial has a proper factor, so the quotient ring is not a field.
    Reducible { m: u32, poly: u32, factor: u32 },
    /// Irreducible, but α does not generate the multiplicative group.
    NotPrimitive { m: u32, poly: u32, order: u32 },
}

impl fmt::Display for Gf2mError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Gf2mError::SymbolBitsOutOfRange { m } => {
                write!(f, "symbol width m = {m} is out of range {MIN_M}..={MAX_M}")
            }
            Gf2mError::WrongDegree { m, poly, degree } => {
                let degree = degree.map_or("none (zero polynomial)".to_string(), |d| d.to_string());
                write!(
                    f,
                    "field_poly {poly:#X} has degree {degree}, but m = {m} needs degree {m} \
                     (write the polynomial in full form, including the x^{m} term)"
                )
            }
            Gf2mError::Reducible { m, poly, factor } => write!(
                f,
                "field_poly {poly:#X} is reducible for m = {m} (divisible by {factor:#X}), \
                 so it does not define GF(2^{m})"
            ),
            Gf2mError::NotPrimitive { m, poly, order } => write!(
                f,
                "field_poly {poly:#X} is not primitive for m = {m} (α has order {order}, \
                 not {})",
                (1u32 << m) - 1
            ),
        }
    }
}

impl std::error::Error for Gf2mError {}

/// The field GF(2^m) built from a primitive polynomial, with exp/log tables.
#[derive(Clone, PartialEq, Eq)]
pub struct Gf2m {
    m: u32,
    poly: u32,
    /// `exp[i] = α^i` for i in 0..2·order, doubled so a sum of two logs needs no reduction.
    exp: Vec<u16>,
    /// `log[a]` for a ≠ 0; `log[0]` is unused (0).
    log: Vec<u16>,
}

impl fmt::Debug for Gf2m {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GF(2^{}) mod {:#X}", self.m, self.poly)
    }
}

/// Degree of a nonzero GF(2)[x] polynomial held in bits.
fn degree(p: u32) -> Option<u32> {
    (p != 0).then(|| 31 - p.leading_zeros())
}

/// Remainder of `a` divided by `b` in GF(2)[x] (b ≠ 0).
fn gf2_poly_rem(mut a: u32, b: u32) -> u32 {
    let db = degree(b).expect("division by the zero polynomial");
    while let Some(da) = degree(a) {
        if da < db {
            break;
        }
        a ^= b << (da - db);
    }
    a
}

/// The smallest factor of degree 1..=deg/2 of `poly` in GF(2)[x], if any (trial division).
fn smallest_factor(poly: u32) -> Option<u32> {
    let d = degree(poly)?;
    (1..=d / 2).find_map(|fd| {
        // Candidates of degree fd: the x^fd bit set, any lower bits.
        ((1u32 << fd)..(1u32 << (fd + 1))).find(|&f| gf2_poly_rem(poly, f) == 0)
    })
}

impl Gf2m {
    /// Builds GF(2^m) from a primitive polynomial in full form (bit m set).
    ///
    /// Rejects m outside 3..=12, a polynomial whose degree is not m, a reducible polynomial and an
    /// irreducible but non-primitive one (e.g. the AES polynomial 0x11B, where α has order 51).
    pub fn new(m: u32, poly: u32) -> Result<Gf2m, Gf2mError> {
        if !(MIN_M..=MAX_M).contains(&m) {
            return Err(Gf2mError::SymbolBitsOutOfRange { m });
        }
        if degree(poly) != Some(m) {
            return Err(Gf2mError::WrongDegree {
                m,
                poly,
                degree: degree(poly),
            });
        }
        if let Some(factor) = smallest_factor(poly) {
            return Err(Gf2mError::Reducible { m, poly, factor });
        }
        let order = (1u32 << m) - 1;
        let alpha_order = Self::order_of_x(m, poly);
        if alpha_order != order {
            return Err(Gf2mError::NotPrimitive {
                m,
                poly,
                order: alpha_order,
            });
        }
        let mut exp = vec![0u16; 2 * order as usize];
        let mut log = vec![0u16; 1usize << m];
        let mut x: u32 = 1;
        for i in 0..order as usize {
            exp[i] = x as u16;
            exp[i + order as usize] = x as u16;
            log[x as usize] = i as u16;
            x = Self::times_x(x, m, poly);
        }
        debug_assert_eq!(x, 1);
        Ok(Gf2m { m, poly, exp, log })
    }

    /// `a·x mod poly` on bit-polynomials.
    fn times_x(a: u32, m: u32, poly: u32) -> u32 {
        let shifted = a << 1;
        if shifted >> m & 1 == 1 {
            shifted ^ poly
        } else {
            shifted
        }
    }

    /// Multiplicative order of x modulo an irreducible `poly` of degree m.
    fn order_of_x(m: u32, poly: u32) -> u32 {
        let mut x = Self::times_x(1, m, poly);
        let mut order = 1;
        while x != 1 {
            x = Self::times_x(x, m, poly);
            order += 1;
        }
        order
    }

    /// Symbol width in bits.
    pub fn m(&self) -> u32 {
        self.m
    }

    /// The field polynomial in full form.
    pub fn poly(&self) -> u32 {
        self.poly
    }

    /// Number of field elements, 2^m.
    pub fn size(&self) -> usize {
        1 << self.m
    }

    /// Order of α = number of nonzero elements = 2^m − 1 (the full RS code length).
    pub fn order(&self) -> u32 {
        (1 << self.m) - 1
    }

    /// Largest element value, 2^m − 1 (also the mask of an m-bit symbol).
    pub fn mask(&self) -> u16 {
        ((1u32 << self.m) - 1) as u16
    }

    fn check(&self, a: u16) {
        debug_assert!(a <= self.mask(), "{a:#X} is not an element of {self:?}");
    }

    /// Addition (= subtraction) is XOR.
    #[inline]
    pub fn add(&self, a: u16, b: u16) -> u16 {
        a ^ b
    }

    #[inline]
    pub fn mul(&self, a: u16, b: u16) -> u16 {
        self.check(a);
        self.check(b);
        if a == 0 || b == 0 {
            0
        } else {
            self.exp[self.log[a as usize] as usize + self.log[b as usize] as usize]
        }
    }

    /// `a · α^e` for 0 ≤ e < order: the inner step of syndrome and Chien evaluation.
    #[inline]
    pub fn mul_alpha_pow(&self, a: u16, e: u32) -> u16 {
        debug_assert!(e < self.order());
        if a == 0 {
            0
        } else {
            self.exp[self.log[a as usize] as usize + e as usize]
        }
    }

    /// `a / b`. Panics when b = 0 (a caller's invariant: divisors are known to be nonzero).
    #[inline]
    pub fn div(&self, a: u16, b: u16) -> u16 {
        assert!(b != 0, "division by zero in {self:?}");
        if a == 0 {
            0
        } else {
            let order = self.order() as usize;
            self.exp[self.log[a as usize] as usize + order - self.log[b as usize] as usize]
        }
    }

    /// Multiplicative inverse. Panics when a = 0.
    #[inline]
    pub fn inv(&self, a: u16) -> u16 {
        self.div(1, a)
    }

    /// `a^e` for any integer e; 0^0 = 1, 0^e = 0 for e > 0. Panics for 0 to a negative power.
    pub fn pow(&self, a: u16, e: i64) -> u16 {
        if a == 0 {
            assert!(e >= 0, "0 has no negative power");
            return u16::from(e == 0);
        }
        let e = e.rem_euclid(i64::from(self.order()));
        self.alpha(i64::from(self.log[a as usize]) * e)
    }

    /// α^i for any integer i (reduced mod 2^m − 1).
    #[inline]
    pub fn alpha(&self, i: i64) -> u16 {
        self.exp[i.rem_euclid(i64::from(self.order())) as usize]
    }

    /// Discrete logarithm base α: `Some(i)` with α^i = a and 0 ≤ i < 2^m − 1, `None` for 0.
    #[inline]
    pub fn log(&self, a: u16) -> Option<u32> {
        self.check(a);
        (a != 0).then(|| u32::from(self.log[a as usize]))
    }

    /// GF(2) matrix of "multiply by the constant c": row i is a mask over the input bits, and
    /// output bit i = parity(row[i] & input). This is the XOR network the RTL emits for a
    /// constant multiplier. Column j is c·α^j in the polynomial basis.
    pub fn mul_matrix(&self, c: u16) -> Vec<u32> {
        let m = self.m as usize;
        let mut rows = vec![0u32; m];
        for j in 0..m {
            let column = self.mul(c, 1 << j);
            for (i, row) in rows.iter_mut().enumerate() {
                if column >> i & 1 == 1 {
                    *row |= 1 << j;
                }
            }
        }
        rows
    }

    /// Applies a matrix from [`Gf2m::mul_matrix`] to an element (for tests and the emitter's
    /// self-checks).
    pub fn apply_matrix(rows: &[u32], a: u16) -> u16 {
        rows.iter().enumerate().fold(0, |acc, (i, row)| {
            acc | (((row & u32::from(a)).count_ones() & 1) << i) as u16
        })
    }

    /// Product of two polynomials (coefficients highest degree first).
    pub fn poly_mul(&self, a: &[u16], b: &[u16]) -> Vec<u16> {
        if a.is_empty() || b.is_empty() {
            return Vec::new();
        }
        let mut out = vec![0u16; a.len() + b.len() - 1];
        for (i, &ai) in a.iter().enumerate() {
            if ai == 0 {
                continue;
            }
            for (j, &bj) in b.iter().enumerate() {
                out[i + j] ^= self.mul(ai, bj);
            }
        }
        out
    }

    /// Value of a polynomial (highest degree first) at x, by Horner's rule.
    pub fn poly_eval(&self, p: &[u16], x: u16) -> u16 {
        p.iter().fold(0, |acc, &c| self.mul(acc, x) ^ c)
    }

    /// Remainder of `a` divided by `b` (both highest degree first), `b.len() − 1` coefficients
    /// long (leading zeros kept so the result lines up with check symbols). Panics if b's leading
    /// coefficient is zero.
    pub fn poly_rem(&self, a: &[u16], b: &[u16]) -> Vec<u16> {
        assert!(
            b.first().is_some_and(|&c| c != 0),
            "divisor must have a nonzero leading coefficient"
        );
        let rem_len = b.len() - 1;
        if a.len() <= rem_len {
            let mut out = vec![0u16; rem_len - a.len()];
            out.extend_from_slice(a);
            return out;
        }
        let mut work = a.to_vec();
        let lead_inv = self.inv(b[0]);
        for i in 0..=(a.len() - b.len()) {
            let q = self.mul(work[i], lead_inv);
            if q == 0 {
                continue;
            }
            for (j, &bj) in b.iter().enumerate() {
                work[i + j] ^= self.mul(q, bj);
            }
        }
        work.split_off(a.len() - rem_len)
    }

    /// The monic polynomial Π_{i=0}^{count−1} (x − α^(first+i)), highest degree first: the
    /// generator of a Reed-Solomon code (and of the GF(2^m) flit CRC).
    pub fn roots_poly(&self, first: i64, count: usize) -> Vec<u16> {
        (0..count as i64).fold(vec![1u16], |g, i| {
            self.poly_mul(&g, &[1, self.alpha(first + i)])
        })
    }
}

/// A GF(2)-affine map `y = M·x ⊕ c` from `inputs` bits to `outputs` bits, as the Verilog emitter
/// wants it: for each output bit, the mask of input bits it XORs (`rows[o][w]` bit b ↔ input
/// 64·w + b), plus a constant. Bit vectors outside this type are packed in bytes, bit k at byte
/// k/8 bit k%8 (byte i at bits [8i+7:8i], the bus convention of the design).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AffineMasks {
    pub inputs: usize,
    pub outputs: usize,
    pub rows: Vec<Vec<u64>>,
    pub constant: Vec<bool>,
}

/// Bit k of a byte-packed bit vector.
pub fn get_bit(bits: &[u8], k: usize) -> bool {
    bits[k / 8] >> (k % 8) & 1 == 1
}

/// Sets bit k of a byte-packed bit vector to `value`.
pub fn set_bit(bits: &mut [u8], k: usize, value: bool) {
    if value {
        bits[k / 8] |= 1 << (k % 8);
    } else {
        bits[k / 8] &= !(1 << (k % 8));
    }
}

impl AffineMasks {
    /// Probes a model `f` (byte-packed `inputs` bits → byte-packed ≥ `outputs` bits) on the
    /// zero vector (the constant) and on every unit vector (the columns). Correct whenever `f`
    /// is affine over GF(2), which every encoder here is; [`AffineMasks::apply`] lets tests confirm
    /// it on random inputs.
    pub fn probe(
        inputs: usize,
        outputs: usize,
        mut f: impl FnMut(&[u8]) -> Vec<u8>,
    ) -> AffineMasks {
        let words = inputs.div_ceil(64);
        let mut input = vec![0u8; inputs.div_ceil(8)];
        let base = f(&input);
        assert!(
            base.len() * 8 >= outputs,
            "model returned {} bits, expected {outputs}",
            base.len() * 8
        );
        let constant: Vec<bool> = (0..outputs).map(|o| get_bit(&base, o)).collect();
        let mut rows = vec![vec![0u64; words]; outputs];
        for i in 0..inputs {
            set_bit(&mut input, i, true);
            let out = f(&input);
            set_bit(&mut input, i, false);
            for (o, row) in rows.iter_mut().enumerate() {
                if get_bit(&out, o) != constant[o] {
                    row[i / 64] |= 1 << (i % 64);
                }
            }
        }
        AffineMasks {
            inputs,
            outputs,
            rows,
            constant,
        }
    }

    /// Evaluates the map on a byte-packed input, returning byte-packed outputs.
    pub fn apply(&self, input: &[u8]) -> Vec<u8> {
        let mut words = vec![0u64; self.inputs.div_ceil(64)];
        for i in 0..self.inputs {
            if get_bit(input, i) {
                words[i / 64] |= 1 << (i % 64);
            }
        }
        let mut out = vec![0u8; self.outputs.div_ceil(8)];
        for (o, row) in self.rows.iter().enumerate() {
            let parity = row
                .iter()
                .zip(&words)
                .map(|(r, w)| (r & w).count_ones())
                .sum::<u32>()
                & 1;
            set_bit(&mut out, o, (parity == 1) ^ self.constant[o]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One primitive polynomial per supported m (from the usual tables).
    pub const PRIMITIVE: [(u32, u32); 10] = [
        (3, 0xB),
        (4, 0x13),
        (5, 0x25),
        (6, 0x43),
        (7, 0x89),
        (8, 0x11D),
        (9, 0x211),
        (10, 0x409),
        (11, 0x805),
        (12, 0x1053),
    ];

    #[test]
    fn builds_every_width() {
        for (m, poly) in PRIMITIVE {
            let f = Gf2m::new(m, poly).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(f.order(), (1 << m) - 1);
            // log and exp are inverse bijections.
            for a in 1..=f.mask() {
                assert_eq!(f.alpha(i64::from(f.log(a).unwrap())), a);
            }
        }
    }

    #[test]
    fn rejects_bad_fields_with_clear_text() {
        let e = Gf2m::new(8, 0x11B).unwrap_err();
        assert_eq!(
            e,
            Gf2mError::NotPrimitive {
                m: 8,
                poly: 0x11B,
                order: 51
            }
        );
        assert_eq!(
            e.to_string(),
            "field_poly 0x11B is not primitive for m = 8 (α has order 51, not 255)"
        );
        let e = Gf2m::new(8, 0x1D).unwrap_err();
        assert!(
            matches!(
                e,
                Gf2mError::WrongDegree {
                    degree: Some(4),
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string().contains("0x1D") && e.to_string().contains("m = 8"),
            "{e}"
        );
        // x^8 + 1 = (x+1)^8.
        let e = Gf2m::new(8, 0x101).unwrap_err();
        assert_eq!(
            e,
            Gf2mError::Reducible {
                m: 8,
                poly: 0x101,
                factor: 0x3
            }
        );
        assert!(e.to_string().contains("reducible"), "{e}");
        // x^4 + x^2 + 1 = (x^2+x+1)^2.
        assert_eq!(
            Gf2m::new(4, 0x15).unwrap_err(),
            Gf2mError::Reducible {
                m: 4,
                poly: 0x15,
                factor: 0x7
            }
        );
        // x^4+x^3+x^2+x+1 is irreducible with order 5.
        assert_eq!(
            Gf2m::new(4, 0x1F).unwrap_err(),
            Gf2mError::NotPrimitive {
                m: 4,
                poly: 0x1F,
                order: 5
            }
        );
        assert!(matches!(
            Gf2m::new(2, 0x7),
            Err(Gf2mError::SymbolBitsOutOfRange { m: 2 })
        ));
        assert!(matches!(
            Gf2m::new(13, 0x201B),
            Err(Gf2mError::SymbolBitsOutOfRange { m: 13 })
        ));
        assert!(matches!(
            Gf2m::new(8, 0),
            Err(Gf2mError::WrongDegree { degree: None, .. })
        ));
    }

    #[test]
    fn pcie_flit_crc_polynomial_is_primitive() {
        // x^8+x^5+x^3+x+1, the field of the PCIe 6.0 flit CRC.
        assert!(Gf2m::new(8, 0x12B).is_ok());
    }

    #[test]
    fn primitive_count_matches_theory() {
        // Number of primitive polynomials of degree m is φ(2^m − 1)/m.
        for (m, expected) in [
            (3, 2),
            (4, 2),
            (5, 6),
            (6, 6),
            (7, 18),
            (8, 16),
            (9, 48),
            (10, 60),
        ] {
            let count = ((1u32 << m)..(1u32 << (m + 1)))
                .filter(|&p| Gf2m::new(m, p).is_ok())
                .count();
            assert_eq!(count, expected, "m = {m}");
        }
    }

    /// Carry-less multiply then reduce: an implementation independent of the tables.
    fn slow_mul(a: u16, b: u16, m: u32, poly: u32) -> u16 {
        let mut product = 0u32;
        for i in 0..m {
            if b >> i & 1 == 1 {
                product ^= u32::from(a) << i;
            }
        }
        gf2_poly_rem(product, poly) as u16
    }

    #[test]
    fn arithmetic_agrees_with_carryless_reference() {
        for (m, poly) in PRIMITIVE.into_iter().filter(|&(m, _)| m <= 8) {
            let f = Gf2m::new(m, poly).unwrap();
            for a in 0..=f.mask() {
                for b in 0..=f.mask() {
                    let p = f.mul(a, b);
                    assert_eq!(p, slow_mul(a, b, m, poly));
                    if b != 0 {
                        assert_eq!(f.mul(f.div(a, b), b), a);
                    }
                }
            }
        }
        let f = Gf2m::new(12, 0x1053).unwrap();
        for a in (0..=f.mask()).step_by(7) {
            for b in (0..=f.mask()).step_by(13) {
                assert_eq!(f.mul(a, b), slow_mul(a, b, 12, 0x1053));
            }
        }
    }

    #[test]
    fn powers_and_inverses() {
        let f = Gf2m::new(8, 0x11D).unwrap();
        assert_eq!(f.alpha(0), 1);
        assert_eq!(f.alpha(1), 2);
        assert_eq!(f.alpha(8), 0x1D);
        assert_eq!(f.alpha(255), 1);
        assert_eq!(f.alpha(-1), f.inv(2));
        assert_eq!(f.pow(0, 0), 1);
        assert_eq!(f.pow(0, 5), 0);
        assert_eq!(f.pow(3, 255), 1);
        assert_eq!(f.pow(3, -2), f.inv(f.mul(3, 3)));
        for a in 1..=255u16 {
            assert_eq!(f.mul(a, f.inv(a)), 1);
            assert_eq!(f.mul_alpha_pow(a, 17), f.mul(a, f.alpha(17)));
        }
    }

    #[test]
    fn mul_matrix_matches_mul() {
        for (m, poly) in PRIMITIVE {
            let f = Gf2m::new(m, poly).unwrap();
            for c in [0, 1, 2, 3, f.mask(), f.alpha(5)] {
                let rows = f.mul_matrix(c);
                assert_eq!(rows.len(), m as usize);
                for a in (0..=f.mask()).step_by(1 + f.mask() as usize / 200) {
                    assert_eq!(
                        Gf2m::apply_matrix(&rows, a),
                        f.mul(c, a),
                        "m={m} c={c} a={a}"
                    );
                }
            }
        }
    }

    #[test]
    fn polynomial_helpers() {
        let f = Gf2m::new(8, 0x11D).unwrap();
        // (x + 1)(x + 2) = x^2 + 3x + 2.
        assert_eq!(f.poly_mul(&[1, 1], &[1, 2]), vec![1, 3, 2]);
        assert_eq!(f.poly_eval(&[1, 3, 2], 1), 0);
        assert_eq!(f.poly_eval(&[1, 3, 2], 2), 0);
        assert_eq!(f.poly_eval(&[1, 3, 2], 0), 2);
        // The generator of the RS(255,253) code with fcr = 0.
        assert_eq!(f.roots_poly(0, 2), vec![1, 3, 2]);
        // a = q·b + r must hold for the remainder.
        let a = [7u16, 0, 33, 200, 5, 1, 99];
        let b = [3u16, 8, 1];
        let r = f.poly_rem(&a, &b);
        assert_eq!(r.len(), 2);
        // a − r is divisible by b: its remainder is zero.
        let mut a_minus_r = a.to_vec();
        a_minus_r[5] ^= r[0];
        a_minus_r[6] ^= r[1];
        assert_eq!(f.poly_rem(&a_minus_r, &b), vec![0, 0]);
        // Short dividends are their own remainder, left-padded.
        assert_eq!(f.poly_rem(&[5], &b), vec![0, 5]);
    }

    #[test]
    fn affine_probe_recovers_a_known_map() {
        // y = (x rotated by 3) ^ 0b1010 over 12 bits, in bytes.
        let model = |x: &[u8]| {
            let v = u16::from(x[0]) | u16::from(x[1]) << 8;
            let y = ((v << 3 | v >> 9) & 0xFFF) ^ 0b1010;
            vec![y as u8, (y >> 8) as u8]
        };
        let map = AffineMasks::probe(12, 12, model);
        assert_eq!(map.constant.iter().filter(|&&c| c).count(), 2);
        for v in [0u16, 1, 0x5A5, 0xFFF, 0x800] {
            let x = [v as u8, (v >> 8) as u8];
            assert_eq!(map.apply(&x), model(&x));
        }
    }
}
