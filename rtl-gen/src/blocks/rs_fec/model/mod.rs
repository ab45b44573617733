//! Reference models of the `rs_fec` block: Reed-Solomon codes over GF(2^m) and the two flit
//! layouts built from them.
//!
//! - [`RsCode`]: a (possibly shortened) RS(n, k) code with generator
//!   g(x) = Π_{i=0}^{nroots−1} (x − α^(fcr+i)) (prim = 1: consecutive powers of α), systematic
//!   encoding, syndromes, the single-pass t = 1 decoder and a Berlekamp–Massey + Chien + Forney
//!   decoder for any t.
//! - [`InterleavedFec`]: the `layout = "generic"` flit — message symbols unchanged, then
//!   `ways·check_symbols` check symbols; symbol i belongs to way i mod ways. CXL: 250 message
//!   bytes, 3 ways of RS(255,253) shortened to 86/85/85 bytes.
//! - [`Pcie6Fec`]: the `layout = "pcie6"` flit — the PCIe 6.0 / CXL 3 256-byte flit with a
//!   parity byte and a check byte per group of 3.
//!
//! Both layouts implement [`FlitFec`], so tests and the co-simulation drive them the same way.
//!
//! Codeword convention everywhere: index 0 is the first symbol on the wire and the
//! highest-degree coefficient; in a code of length n, index p carries degree n − 1 − p. A
//! shortened code (n < 2^m − 1) is the full code with its leading (highest-degree) symbols fixed
//! to zero and not transmitted; a decoder that locates an error at degree ≥ n has therefore
//! found an impossible error and reports the word uncorrectable — the "early detection" RXL
//! switches rely on.

/// The streaming form: its arithmetic and cycle models.
pub mod stream;

use std::fmt;

use crate::math::gf2m::{get_bit, set_bit, AffineMasks, Gf2m, Gf2mError};

/// Why an RS code or a flit layout was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RsError {
    /// The field definition (symbol_bits, field_poly) is invalid.
    Field(Gf2mError),
    /// n, k do not satisfy 0 < k < n ≤ 2^m − 1.
    CodeLength { m: u32, n: usize, k: usize },
    /// The interleaved layout is inconsistent (the text says which field and why).
    Layout(String),
}

impl fmt::Display for RsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RsError::Field(e) => e.fmt(f),
            RsError::CodeLength { m, n, k } => write!(
                f,
                "RS({n}, {k}) over GF(2^{m}) needs 0 < k < n ≤ 2^{m} − 1 = {}",
                (1u32 << m) - 1
            ),
            RsError::Layout(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for RsError {}

impl From<Gf2mError> for RsError {
    fn from(e: Gf2mError) -> Self {
        RsError::Field(e)
    }
}

/// One corrected symbol: `value` was XORed into codeword index `pos`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Correction {
    pub pos: usize,
    pub value: u16,
}

/// Result of the single-pass t = 1 decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum T1Outcome {
    /// Both syndromes zero.
    Clean,
    /// One symbol error, located at codeword index `pos`, fixed by XORing `value`.
    Corrected { pos: usize, value: u16 },
    /// One syndrome zero and the other not, or the error location lies in a shortened
    /// (non-existent) position: more than one symbol is in error.
    Uncorrectable,
}

/// Result of the general (Berlekamp–Massey) decoder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Clean,
    /// Errors fixed, in increasing codeword index.
    Corrected(Vec<Correction>),
    /// The locator has degree > t or fewer roots in the existing positions than its degree.
    Uncorrectable,
}

/// A Reed-Solomon code RS(n, k) over GF(2^m), shortened when n < 2^m − 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RsCode {
    field: Gf2m,
    n: usize,
    k: usize,
    fcr: u32,
    /// Monic generator, highest degree first, nroots + 1 coefficients.
    generator: Vec<u16>,
}

impl RsCode {
    /// RS(n, k) with generator roots α^fcr … α^(fcr+n−k−1).
    pub fn new(field: Gf2m, n: usize, k: usize, fcr: u32) -> Result<RsCode, RsError> {
        if k == 0 || k >= n || n > field.order() as usize {
            return Err(RsError::CodeLength { m: field.m(), n, k });
        }
        let generator = field.roots_poly(i64::from(fcr), n - k);
        Ok(RsCode {
            field,
            n,
            k,
            fcr,
            generator,
        })
    }

    /// IEEE 802.3 Clause 91 "KR4" RS(528,514), t = 7, GF(2^10) mod x^10+x^3+1, fcr 0.
    pub fn ethernet_kr4() -> RsCode {
        Self::ethernet(528)
    }

    /// IEEE 802.3 "KP4" RS(544,514), t = 15, GF(2^10) mod x^10+x^3+1, fcr 0.
    pub fn ethernet_kp4() -> RsCode {
        Self::ethernet(544)
    }

    fn ethernet(n: usize) -> RsCode {
        let field = Gf2m::new(10, ETHERNET_FIELD_POLY).expect("x^10+x^3+1 is primitive");
        RsCode::new(field, n, 514, 0).expect("Ethernet RS parameters are valid")
    }

    pub fn field(&self) -> &Gf2m {
        &self.field
    }

    /// Codeword length in symbols (after shortening).
    pub fn n(&self) -> usize {
        self.n
    }

    /// Message length in symbols.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Number of check symbols n − k (= 2t for even values).
    pub fn nroots(&self) -> usize {
        self.n - self.k
    }

    /// Number of correctable symbol errors, ⌊nroots / 2⌋.
    pub fn t(&self) -> usize {
        self.nroots() / 2
    }

    /// First consecutive root exponent.
    pub fn fcr(&self) -> u32 {
        self.fcr
    }

    /// Generator polynomial, monic, highest degree first.
    pub fn generator(&self) -> &[u16] {
        &self.generator
    }

    /// Exponent of the j-th generator root, reduced mod 2^m − 1.
    fn root_exponent(&self, j: usize) -> u32 {
        ((u64::from(self.fcr) + j as u64) % u64::from(self.field.order())) as u32
    }

    /// Check symbols of a k-symbol message: the remainder of msg(x)·x^nroots mod g(x), highest
    /// degree first, written to `parity` (nroots symbols). This is the LFSR division the
    /// encoder hardware performs.
    pub fn parity_into(&self, msg: &[u16], parity: &mut [u16]) {
        assert_eq!(
            msg.len(),
            self.k,
            "RS({}, {}) message length",
            self.n,
            self.k
        );
        assert_eq!(
            parity.len(),
            self.nroots(),
            "RS({}, {}) parity length",
            self.n,
            self.k
        );
        parity.fill(0);
        let last = parity.len() - 1;
        for &symbol in msg {
            let feedback = symbol ^ parity[0];
            parity.copy_within(1.., 0);
            parity[last] = 0;
            if feedback != 0 {
                for (p, &g) in parity.iter_mut().zip(&self.generator[1..]) {
                    *p ^= self.field.mul(feedback, g);
                }
            }
        }
    }

    /// The systematic codeword: message followed by check symbols.
    pub fn encode(&self, msg: &[u16]) -> Vec<u16> {
        let mut cw = msg.to_vec();
        cw.resize(self.n, 0);
        let (msg_part, parity) = cw.split_at_mut(self.k);
        self.parity_into(msg_part, parity);
        cw
    }

    /// Syndromes S_j = r(α^(fcr+j)), j = 0..nroots, by Horner's rule.
    pub fn syndromes_into(&self, cw: &[u16], syndromes: &mut [u16]) {
        assert_eq!(
            cw.len(),
            self.n,
            "RS({}, {}) codeword length",
            self.n,
            self.k
        );
        for (j, s) in syndromes.iter_mut().enumerate() {
            let e = self.root_exponent(j);
            *s = cw
                .iter()
                .fold(0, |acc, &c| self.field.mul_alpha_pow(acc, e) ^ c);
        }
    }

    pub fn syndromes(&self, cw: &[u16]) -> Vec<u16> {
        let mut s = vec![0; self.nroots()];
        self.syndromes_into(cw, &mut s);
        s
    }

    /// Whether `cw` is a codeword (all syndromes zero).
    pub fn is_codeword(&self, cw: &[u16]) -> bool {
        self.syndromes(cw).iter().all(|&s| s == 0)
    }

    /// Codeword index of the symbol of degree `degree`, or `None` for a shortened position.
    fn index_of_degree(&self, degree: u32) -> Option<usize> {
        ((degree as usize) < self.n).then(|| self.n - 1 - degree as usize)
    }

    /// Single-pass t = 1 decoding (nroots = 2), correcting `cw` in place.
    ///
    /// A single error of value Y at degree d gives S0 = Y·α^(d·fcr) and S1 = S0·α^d, so the
    /// location is log(S1/S0) and Y = S0 / α^(d·fcr). Exactly one zero syndrome, or a location
    /// d ≥ n (a shortened position, where no symbol exists), means ≥ 2 errors.
    ///
    /// Panics if the code does not have exactly 2 check symbols.
    pub fn decode_t1(&self, cw: &mut [u16]) -> T1Outcome {
        assert_eq!(
            self.nroots(),
            2,
            "decode_t1 needs a code with 2 check symbols"
        );
        let mut s = [0u16; 2];
        self.syndromes_into(cw, &mut s);
        let outcome = self.locate_t1(s[0], s[1]);
        if let T1Outcome::Corrected { pos, value } = outcome {
            cw[pos] ^= value;
        }
        outcome
    }

    /// The t = 1 decision from the two syndromes (no side effects).
    pub fn locate_t1(&self, s0: u16, s1: u16) -> T1Outcome {
        let field = &self.field;
        match (field.log(s0), field.log(s1)) {
            (None, None) => T1Outcome::Clean,
            (Some(l0), Some(l1)) => {
                let order = field.order();
                let degree = (l1 + order - l0) % order;
                match self.index_of_degree(degree) {
                    Some(pos) => {
                        let value =
                            field.div(s0, field.alpha(i64::from(degree) * i64::from(self.fcr)));
                        T1Outcome::Corrected { pos, value }
                    }
                    None => T1Outcome::Uncorrectable,
                }
            }
            _ => T1Outcome::Uncorrectable,
        }
    }

    /// General decoding for any t, correcting `cw` in place: Berlekamp–Massey for the error
    /// locator Λ(x) = Π(1 − X_l·x), Chien search over the existing positions only, Forney for
    /// the values, Y_l = X_l^(1−fcr)·Ω(X_l⁻¹)/Λ'(X_l⁻¹) with Ω = S·Λ mod x^nroots.
    ///
    /// The word is uncorrectable when the locator length L exceeds t, or when fewer than L
    /// distinct roots fall on existing positions (roots in shortened positions count as
    /// failures, as in the t = 1 decoder). `cw` is left unchanged then.
    pub fn decode(&self, cw: &mut [u16]) -> Outcome {
        let nroots = self.nroots();
        let mut syndromes = vec![0u16; nroots];
        self.syndromes_into(cw, &mut syndromes);
        if syndromes.iter().all(|&s| s == 0) {
            return Outcome::Clean;
        }
        let (locator, len) = self.berlekamp_massey(&syndromes);
        if len > self.t() {
            return Outcome::Uncorrectable;
        }
        let Some(degrees) = self.chien_search(&locator[..=len]) else {
            return Outcome::Uncorrectable;
        };
        let Some(corrections) = self.forney(&syndromes, &locator[..=len], &degrees) else {
            return Outcome::Uncorrectable;
        };
        for c in &corrections {
            cw[c.pos] ^= c.value;
        }
        Outcome::Corrected(corrections)
    }

    /// Shortest LFSR generating the syndromes: returns Λ (lowest degree first, nroots + 1
    /// coefficients) and its length L.
    fn berlekamp_massey(&self, s: &[u16]) -> (Vec<u16>, usize) {
        let field = &self.field;
        let size = s.len() + 1;
        let mut lambda = vec![0u16; size];
        let mut prev = vec![0u16; size]; // B(x): Λ before the last length change
        lambda[0] = 1;
        prev[0] = 1;
        let mut len = 0usize;
        let mut shift = 1usize; // power of x multiplying B(x)
        let mut prev_discrepancy = 1u16;
        for r in 0..s.len() {
            let discrepancy = (1..=len).fold(s[r], |d, i| d ^ field.mul(lambda[i], s[r - i]));
            if discrepancy == 0 {
                shift += 1;
                continue;
            }
            let scale = field.div(discrepancy, prev_discrepancy);
            let before = (2 * len <= r).then(|| lambda.clone());
            for i in 0..size - shift {
                lambda[i + shift] ^= field.mul(scale, prev[i]);
            }
            match before {
                Some(before) => {
                    len = r + 1 - len;
                    prev = before;
                    prev_discrepancy = discrepancy;
                    shift = 1;
                }
                None => shift += 1,
            }
        }
        (lambda, len)
    }

    /// Degrees d < n with Λ(α^−d) = 0, or `None` unless there are exactly deg Λ of them
    /// (a locator whose roots are not all at existing positions belongs to no correctable
    /// error pattern).
    fn chien_search(&self, locator: &[u16]) -> Option<Vec<u32>> {
        let field = &self.field;
        let order = field.order();
        let expected = locator.len() - 1;
        if locator[expected] == 0 {
            return None; // degree below L: not the locator of L errors
        }
        // terms[i] = λ_i·α^(−d·i), stepped from d to d + 1 by multiplying with α^(−i).
        let mut terms = locator.to_vec();
        let steps: Vec<u32> = (0..locator.len())
            .map(|i| (order - (i as u32 % order)) % order)
            .collect();
        let mut degrees = Vec::with_capacity(expected);
        for d in 0..self.n as u32 {
            if terms.iter().fold(0, |acc, &t| acc ^ t) == 0 {
                degrees.push(d);
                if degrees.len() > expected {
                    return None;
                }
            }
            for (t, &step) in terms.iter_mut().zip(&steps) {
                *t = field.mul_alpha_pow(*t, step);
            }
        }
        (degrees.len() == expected).then_some(degrees)
    }

    /// Error values at the located degrees, as codeword corrections in increasing index.
    fn forney(
        &self,
        syndromes: &[u16],
        locator: &[u16],
        degrees: &[u32],
    ) -> Option<Vec<Correction>> {
        let field = &self.field;
        let nroots = syndromes.len();
        // Ω(x) = S(x)·Λ(x) mod x^nroots, lowest degree first.
        let mut omega = vec![0u16; nroots];
        for (i, &l) in locator.iter().enumerate() {
            for (j, o) in omega.iter_mut().enumerate().skip(i) {
                *o ^= field.mul(l, syndromes[j - i]);
            }
        }
        let eval = |p: &[u16], x: u16| p.iter().rev().fold(0, |acc, &c| field.mul(acc, x) ^ c);
        // Λ'(x): in characteristic 2 only the odd-degree terms survive.
        let derivative: Vec<u16> = (1..locator.len())
            .map(|i| if i % 2 == 1 { locator[i] } else { 0 })
            .collect();
        let mut corrections = Vec::with_capacity(degrees.len());
        for &d in degrees {
            let x = field.alpha(i64::from(d));
            let x_inv = field.inv(x);
            let denominator = eval(&derivative, x_inv);
            if denominator == 0 {
                return None; // repeated root: not a valid locator
            }
            let value = field.mul(
                field.pow(x, 1 - i64::from(self.fcr)),
                field.div(eval(&omega, x_inv), denominator),
            );
            if value == 0 {
                return None;
            }
            let pos = self
                .index_of_degree(d)
                .expect("Chien search visits existing positions only");
            corrections.push(Correction { pos, value });
        }
        corrections.sort_by_key(|c| c.pos);
        Some(corrections)
    }

    /// GF(2)-linear map from message bits (k·m, symbol i at bits [m·i+m−1 : m·i]) to check
    /// bits (nroots·m, check symbol j at bits [m·j+m−1 : m·j]), probed on unit vectors.
    pub fn affine_columns(&self) -> AffineMasks {
        let m = self.field.m();
        let mut parity = vec![0u16; self.nroots()];
        AffineMasks::probe(self.k * m as usize, self.nroots() * m as usize, |bits| {
            let msg = unpack_symbols(bits, m, self.k);
            self.parity_into(&msg, &mut parity);
            pack_symbols(&parity, m)
        })
    }
}

/// x^10 + x^3 + 1, the GF(2^10) polynomial of IEEE 802.3 RS-FEC.
pub const ETHERNET_FIELD_POLY: u32 = 0x409;
/// x^8 + x^4 + x^3 + x^2 + 1, the GF(2^8) polynomial of the CXL / PCIe 6.0 flit FEC.
pub const FLIT_FEC_FIELD_POLY: u32 = 0x11D;

/// Splits a byte-packed bit vector into `count` m-bit symbols, LSB first: symbol s is bits
/// [m·s+m−1 : m·s], bit k being byte k/8 bit k%8. For m = 8 symbols are the bytes.
pub fn unpack_symbols(bits: &[u8], m: u32, count: usize) -> Vec<u16> {
    if m == 8 {
        return bits[..count].iter().map(|&b| u16::from(b)).collect();
    }
    let m = m as usize;
    (0..count)
        .map(|s| {
            (0..m).fold(0u16, |acc, b| {
                acc | u16::from(get_bit(bits, s * m + b)) << b
            })
        })
        .collect()
}

/// Inverse of [`unpack_symbols`]: packs m-bit symbols LSB first into ⌈len·m/8⌉ bytes.
pub fn pack_symbols(symbols: &[u16], m: u32) -> Vec<u8> {
    if m == 8 {
        return symbols.iter().map(|&s| s as u8).collect();
    }
    let m = m as usize;
    let mut bits = vec![0u8; (symbols.len() * m).div_ceil(8)];
    for (s, &symbol) in symbols.iter().enumerate() {
        for b in 0..m {
            set_bit(&mut bits, s * m + b, symbol >> b & 1 == 1);
        }
    }
    bits
}

/// Per-way and overall decoder flags, as on the decoder's output ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FecStatus {
    /// Way w had an error that was corrected (possibly a miscorrection).
    pub way_corrected: Vec<bool>,
    /// Way w was found uncorrectable; its symbols pass through unchanged.
    pub way_uncorrectable: Vec<bool>,
    /// OR of `way_corrected`.
    pub corrected: bool,
    /// OR of `way_uncorrectable`: the flit must not be trusted.
    pub uncorrectable: bool,
}

impl FecStatus {
    fn new(ways: usize) -> FecStatus {
        FecStatus {
            way_corrected: vec![false; ways],
            way_uncorrectable: vec![false; ways],
            corrected: false,
            uncorrectable: false,
        }
    }

    fn mark(&mut self, way: usize, corrected: bool, uncorrectable: bool) {
        self.way_corrected[way] = corrected;
        self.way_uncorrectable[way] = uncorrectable;
        self.corrected |= corrected;
        self.uncorrectable |= uncorrectable;
    }
}

/// A decoded flit: the (corrected) message bits and the flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FecDecoded {
    /// Byte-packed message bits (for 8-bit symbols: the message bytes).
    pub msg: Vec<u8>,
    pub status: FecStatus,
}

/// A flit FEC as the `rs_fec` block sees it: `msg` bits in, `cw` bits out, and back.
/// Bit vectors are byte-packed, bit k at byte k/8 bit k%8 (byte i = bus bits [8i+7:8i]).
pub trait FlitFec {
    /// Bits of one symbol.
    fn symbol_bits(&self) -> u32;
    /// Message width in bits.
    fn msg_bits(&self) -> usize;
    /// Codeword (flit) width in bits.
    fn cw_bits(&self) -> usize;
    /// Number of interleaved ways (groups).
    fn ways(&self) -> usize;
    /// Way of codeword symbol `index`.
    fn way_of(&self, index: usize) -> usize;
    /// Message → codeword; panics unless `msg` holds ⌈msg_bits/8⌉ bytes.
    fn encode(&self, msg: &[u8]) -> Vec<u8>;
    /// Codeword → corrected message and flags; panics unless `cw` holds ⌈cw_bits/8⌉ bytes.
    fn decode(&self, cw: &[u8]) -> FecDecoded;

    /// The syndromes of every way of a received word, way after way (`cw` holds ⌈cw_bits/8⌉
    /// bytes): generic, S_j = r(α^(fcr+j)) for j = 0..check_symbols; pcie6, the parity then the
    /// check syndrome of each group. All zero exactly on codewords.
    fn syndromes(&self, cw: &[u8]) -> Vec<Vec<u16>>;

    /// Codeword width in symbols.
    fn cw_symbols(&self) -> usize {
        self.cw_bits() / self.symbol_bits() as usize
    }

    /// GF(2)-linear map from message bits to the check bits (codeword bits msg_bits..cw_bits),
    /// probed from [`FlitFec::encode`] on unit vectors: the encoder's XOR network.
    fn affine_columns(&self) -> AffineMasks {
        let (msg_bits, cw_bits) = (self.msg_bits(), self.cw_bits());
        AffineMasks::probe(msg_bits, cw_bits - msg_bits, |msg| {
            let cw = self.encode(msg);
            let mut check = vec![0u8; (cw_bits - msg_bits).div_ceil(8)];
            for k in msg_bits..cw_bits {
                set_bit(&mut check, k - msg_bits, get_bit(&cw, k));
            }
            check
        })
    }
}

/// The `layout = "generic"` interleaved RS flit FEC.
///
/// The codeword holds msg_symbols + ways·check_symbols symbols: the message unchanged, then the
/// check symbols. Symbol i belongs to way i mod ways; a way's codeword is its symbols in
/// increasing index, the first one the highest-degree coefficient. Since the check region is
/// ways·check_symbols consecutive symbols at the end, every way ends with exactly
/// check_symbols check symbols: each way is a systematic, shortened RS code of its own length.
/// CXL: 250 bytes, 3 ways, 2 check bytes → 256 bytes, ways of 86, 85, 85 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterleavedFec {
    msg_symbols: usize,
    ways: usize,
    check_symbols: usize,
    /// One code per way (ways differ in length by at most one symbol).
    way_codes: Vec<RsCode>,
}

impl InterleavedFec {
    /// Validates and builds the layout; errors name the offending field.
    pub fn new(
        symbol_bits: u32,
        field_poly: u32,
        fcr: u32,
        msg_symbols: usize,
        ways: usize,
        check_symbols: usize,
    ) -> Result<InterleavedFec, RsError> {
        let field = Gf2m::new(symbol_bits, field_poly)?;
        if ways == 0 {
            return Err(RsError::Layout("ways must be at least 1".into()));
        }
        if check_symbols == 0 {
            return Err(RsError::Layout("check_symbols must be at least 1".into()));
        }
        if msg_symbols < ways {
            return Err(RsError::Layout(format!(
                "msg_symbols = {msg_symbols} is smaller than ways = {ways}: every way needs a message symbol"
            )));
        }
        let total = msg_symbols + ways * check_symbols;
        let mut way_codes = Vec::with_capacity(ways);
        for way in 0..ways {
            let n = (total - way).div_ceil(ways);
            let k = n - check_symbols;
            if n > field.order() as usize {
                return Err(RsError::Layout(format!(
                    "way {way} holds {n} symbols, more than the {} a code over GF(2^{symbol_bits}) \
                     allows: raise ways or symbol_bits, or lower msg_symbols",
                    field.order()
                )));
            }
            way_codes.push(RsCode::new(field.clone(), n, k, fcr)?);
        }
        Ok(InterleavedFec {
            msg_symbols,
            ways,
            check_symbols,
            way_codes,
        })
    }

    /// The CXL 256-byte flit FEC in the generic layout: 250 message bytes, 3 ways, 2 check
    /// bytes per way, GF(2^8) mod 0x11D, fcr 0.
    pub fn cxl() -> InterleavedFec {
        InterleavedFec::new(8, FLIT_FEC_FIELD_POLY, 0, 250, 3, 2).expect("CXL parameters are valid")
    }

    /// Ethernet KR4 RS(528,514) as a one-way layout of 10-bit symbols.
    pub fn ethernet_kr4() -> InterleavedFec {
        InterleavedFec::new(10, ETHERNET_FIELD_POLY, 0, 514, 1, 14)
            .expect("KR4 parameters are valid")
    }

    /// Ethernet KP4 RS(544,514) as a one-way layout of 10-bit symbols.
    pub fn ethernet_kp4() -> InterleavedFec {
        InterleavedFec::new(10, ETHERNET_FIELD_POLY, 0, 514, 1, 30)
            .expect("KP4 parameters are valid")
    }

    pub fn msg_symbols(&self) -> usize {
        self.msg_symbols
    }

    pub fn check_symbols(&self) -> usize {
        self.check_symbols
    }

    /// The code of way `way` (its n is the way's length).
    pub fn way_code(&self, way: usize) -> &RsCode {
        &self.way_codes[way]
    }

    fn field(&self) -> &Gf2m {
        self.way_codes[0].field()
    }

    /// Encodes message symbols into the full codeword.
    pub fn encode_symbols(&self, msg: &[u16]) -> Vec<u16> {
        assert_eq!(msg.len(), self.msg_symbols, "message length in symbols");
        let mut cw = msg.to_vec();
        cw.resize(self.cw_symbols(), 0);
        let mut way_msg = Vec::new();
        let mut parity = vec![0u16; self.check_symbols];
        for (way, code) in self.way_codes.iter().enumerate() {
            way_msg.clear();
            way_msg.extend(msg.iter().skip(way).step_by(self.ways));
            code.parity_into(&way_msg, &mut parity);
            for (slot, &p) in cw
                .iter_mut()
                .skip(way)
                .step_by(self.ways)
                .skip(code.k())
                .zip(&parity)
            {
                *slot = p;
            }
        }
        cw
    }

    /// Decodes and corrects `cw` in place; a way found uncorrectable is left untouched.
    pub fn decode_symbols_in_place(&self, cw: &mut [u16]) -> FecStatus {
        assert_eq!(cw.len(), self.cw_symbols(), "codeword length in symbols");
        let mut status = FecStatus::new(self.ways);
        let mut way_cw = Vec::with_capacity(self.way_codes[0].n());
        for (way, code) in self.way_codes.iter().enumerate() {
            way_cw.clear();
            way_cw.extend(cw.iter().skip(way).step_by(self.ways));
            let (corrected, uncorrectable) = if self.check_symbols == 2 {
                match code.decode_t1(&mut way_cw) {
                    T1Outcome::Clean => (false, false),
                    T1Outcome::Corrected { .. } => (true, false),
                    T1Outcome::Uncorrectable => (false, true),
                }
            } else {
                match code.decode(&mut way_cw) {
                    Outcome::Clean => (false, false),
                    Outcome::Corrected(_) => (true, false),
                    Outcome::Uncorrectable => (false, true),
                }
            };
            if corrected {
                for (slot, &s) in cw.iter_mut().skip(way).step_by(self.ways).zip(&way_cw) {
                    *slot = s;
                }
            }
            status.mark(way, corrected, uncorrectable);
        }
        status
    }
}

impl FlitFec for InterleavedFec {
    fn symbol_bits(&self) -> u32 {
        self.field().m()
    }

    fn msg_bits(&self) -> usize {
        self.msg_symbols * self.symbol_bits() as usize
    }

    fn cw_bits(&self) -> usize {
        self.cw_symbols() * self.symbol_bits() as usize
    }

    fn cw_symbols(&self) -> usize {
        self.msg_symbols + self.ways * self.check_symbols
    }

    fn ways(&self) -> usize {
        self.ways
    }

    fn way_of(&self, index: usize) -> usize {
        index % self.ways
    }

    fn encode(&self, msg: &[u8]) -> Vec<u8> {
        assert_eq!(
            msg.len(),
            self.msg_bits().div_ceil(8),
            "message length in bytes"
        );
        let m = self.symbol_bits();
        pack_symbols(
            &self.encode_symbols(&unpack_symbols(msg, m, self.msg_symbols)),
            m,
        )
    }

    fn syndromes(&self, cw: &[u8]) -> Vec<Vec<u16>> {
        let symbols = unpack_symbols(cw, self.symbol_bits(), self.cw_symbols());
        let mut way_cw = Vec::new();
        (0..self.ways)
            .map(|way| {
                way_cw.clear();
                way_cw.extend(symbols.iter().skip(way).step_by(self.ways));
                self.way_codes[way].syndromes(&way_cw)
            })
            .collect()
    }

    fn decode(&self, cw: &[u8]) -> FecDecoded {
        assert_eq!(
            cw.len(),
            self.cw_bits().div_ceil(8),
            "codeword length in bytes"
        );
        let m = self.symbol_bits();
        let mut symbols = unpack_symbols(cw, m, self.cw_symbols());
        let status = self.decode_symbols_in_place(&mut symbols);
        FecDecoded {
            msg: pack_symbols(&symbols[..self.msg_symbols], m),
            status,
        }
    }
}

/// The `layout = "pcie6"` FEC of the PCIe 6.0 / CXL 3 256-byte flit.
///
/// Flit byte i < 250 goes to group i mod 3 at offset ⌊i/3⌋, so group 0 holds offsets 0..=83 of
/// message and groups 1 and 2 offsets 0..=82, their offset 83 being a constant zero that is not
/// transmitted. Each group has a check byte at offset 84, C = Σ_{i=0..83} B_i·α^(84−i), and a
/// parity byte at offset 85, P = XOR of offsets 0..83. ECC flit bytes: 250/253 = offsets 84/85
/// of group 1, 251/254 of group 2, 252/255 of group 0 (every flit byte i is in group i mod 3).
///
/// Decoding a group: parity syndrome sp = XOR of offsets 0..83 and 85; check syndrome
/// sc = C(received 0..83) XOR received 84. A single error e at offset i ≤ 83 gives sp = e and
/// sc = e·α^(84−i), so i = 84 − ((log sc − log sp) mod 255).
/// - both zero: clean;
/// - only sp nonzero: the error is in offset 85 (P); only sc nonzero: in offset 84 (C);
/// - both nonzero: offset i as above, corrected by XORing sp. It is uncorrectable when i does
///   not exist: negative (the difference exceeds 84), offset 83 of groups 1 and 2 (the constant
///   zero), and also i = 84 (difference 0): offset 84 is not covered by the parity, so no
///   single error there makes both syndromes nonzero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pcie6Fec {
    field: Gf2m,
}

impl Default for Pcie6Fec {
    fn default() -> Self {
        Self::new()
    }
}

impl Pcie6Fec {
    /// Flit size in bytes.
    pub const FLIT_BYTES: usize = 256;
    /// Message bytes (2 B header + 240 B payload + 8 B CRC).
    pub const MSG_BYTES: usize = 250;
    /// Number of groups (the interleave).
    pub const GROUPS: usize = 3;
    /// Offset of the check byte C in a group.
    pub const CHECK_OFFSET: usize = 84;
    /// Offset of the parity byte P in a group.
    pub const PARITY_OFFSET: usize = 85;
    /// Offsets per group, including the constant zero of groups 1 and 2.
    pub const GROUP_LEN: usize = 86;

    pub fn new() -> Pcie6Fec {
        Pcie6Fec {
            field: Gf2m::new(8, FLIT_FEC_FIELD_POLY).expect("0x11D is primitive"),
        }
    }

    /// (group, offset) of flit byte `i` (0..256).
    pub fn group_offset(i: usize) -> (usize, usize) {
        assert!(i < Self::FLIT_BYTES, "flit byte {i} out of range");
        let offset = match i {
            0..=249 => i / 3,
            250..=252 => Self::CHECK_OFFSET,
            _ => Self::PARITY_OFFSET,
        };
        (i % 3, offset)
    }

    /// Flit byte at (group, offset), `None` for the constant-zero offset 83 of groups 1 and 2.
    pub fn flit_byte(group: usize, offset: usize) -> Option<usize> {
        assert!(
            group < Self::GROUPS && offset < Self::GROUP_LEN,
            "group {group} offset {offset}"
        );
        match offset {
            Self::CHECK_OFFSET => Some(250 + (group + 2) % 3),
            Self::PARITY_OFFSET => Some(253 + (group + 2) % 3),
            _ => Some(3 * offset + group).filter(|&i| i < Self::MSG_BYTES),
        }
    }

    /// Gathers the 86 offsets of a group (the constant zero included). Bytes beyond the end of
    /// `flit` read as zero, so a bare 250-byte message can be gathered for encoding.
    fn gather(flit: &[u8], group: usize, out: &mut [u8; Self::GROUP_LEN]) {
        for (offset, slot) in out.iter_mut().enumerate() {
            *slot = Self::flit_byte(group, offset)
                .and_then(|i| flit.get(i))
                .copied()
                .unwrap_or(0);
        }
    }

    /// (C, P) over data offsets 0..=83.
    fn check_and_parity(&self, data: &[u8]) -> (u8, u8) {
        data[..Self::CHECK_OFFSET]
            .iter()
            .fold((0u8, 0u8), |(c, p), &b| {
                // Horner: after all 84 steps byte i has been multiplied by α^(84−i).
                (self.field.mul_alpha_pow(u16::from(c ^ b), 1) as u8, p ^ b)
            })
    }

    /// The t = 1 decision for one group from its two syndromes.
    pub fn locate(&self, group: usize, parity_syndrome: u8, check_syndrome: u8) -> T1Outcome {
        let field = &self.field;
        let sp = u16::from(parity_syndrome);
        match (field.log(u16::from(check_syndrome)), field.log(sp)) {
            (None, None) => T1Outcome::Clean,
            (None, Some(_)) => T1Outcome::Corrected {
                pos: Self::PARITY_OFFSET,
                value: sp,
            },
            (Some(_), None) => T1Outcome::Corrected {
                pos: Self::CHECK_OFFSET,
                value: u16::from(check_syndrome),
            },
            (Some(lc), Some(lp)) => {
                let difference = ((lc + 255 - lp) % 255) as usize;
                let offset = Self::CHECK_OFFSET.checked_sub(difference);
                match offset
                    .filter(|&o| o < Self::CHECK_OFFSET && Self::flit_byte(group, o).is_some())
                {
                    Some(pos) => T1Outcome::Corrected { pos, value: sp },
                    None => T1Outcome::Uncorrectable,
                }
            }
        }
    }

    /// ECC bytes 250..255 for a 250-byte message.
    pub fn ecc(&self, msg: &[u8]) -> [u8; 6] {
        assert_eq!(msg.len(), Self::MSG_BYTES, "pcie6 message length");
        let mut ecc = [0u8; 6];
        let mut group_bytes = [0u8; Self::GROUP_LEN];
        for group in 0..Self::GROUPS {
            Self::gather(msg, group, &mut group_bytes);
            let (c, p) = self.check_and_parity(&group_bytes);
            ecc[(group + 2) % 3] = c;
            ecc[3 + (group + 2) % 3] = p;
        }
        ecc
    }
}

impl FlitFec for Pcie6Fec {
    fn symbol_bits(&self) -> u32 {
        8
    }

    fn msg_bits(&self) -> usize {
        8 * Self::MSG_BYTES
    }

    fn cw_bits(&self) -> usize {
        8 * Self::FLIT_BYTES
    }

    fn ways(&self) -> usize {
        Self::GROUPS
    }

    fn way_of(&self, index: usize) -> usize {
        index % 3
    }

    fn encode(&self, msg: &[u8]) -> Vec<u8> {
        let mut flit = msg.to_vec();
        flit.extend_from_slice(&self.ecc(msg));
        flit
    }

    fn syndromes(&self, flit: &[u8]) -> Vec<Vec<u16>> {
        let mut group_bytes = [0u8; Self::GROUP_LEN];
        (0..Self::GROUPS)
            .map(|group| {
                Self::gather(flit, group, &mut group_bytes);
                let (c, p) = self.check_and_parity(&group_bytes);
                vec![u16::from(p ^ group_bytes[Self::PARITY_OFFSET]), u16::from(c ^ group_bytes[Self::CHECK_OFFSET])]
            })
            .collect()
    }

    fn decode(&self, flit: &[u8]) -> FecDecoded {
        assert_eq!(flit.len(), Self::FLIT_BYTES, "pcie6 flit length");
        let mut msg = flit[..Self::MSG_BYTES].to_vec();
        let mut status = FecStatus::new(Self::GROUPS);
        let mut group_bytes = [0u8; Self::GROUP_LEN];
        for group in 0..Self::GROUPS {
            Self::gather(flit, group, &mut group_bytes);
            let (c, p) = self.check_and_parity(&group_bytes);
            let parity_syndrome = p ^ group_bytes[Self::PARITY_OFFSET];
            let check_syndrome = c ^ group_bytes[Self::CHECK_OFFSET];
            match self.locate(group, parity_syndrome, check_syndrome) {
                T1Outcome::Clean => status.mark(group, false, false),
                T1Outcome::Corrected { pos, value } => {
                    if let Some(i) = Self::flit_byte(group, pos).filter(|&i| i < Self::MSG_BYTES) {
                        msg[i] ^= value as u8;
                    }
                    status.mark(group, true, false);
                }
                T1Outcome::Uncorrectable => status.mark(group, false, true),
            }
        }
        FecDecoded { msg, status }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::math::splitmix::SplitMix64 as Rng;

    fn gf256() -> Gf2m {
        Gf2m::new(8, 0x11D).unwrap()
    }

    #[test]
    fn generator_of_rs255_253() {
        let code = RsCode::new(gf256(), 255, 253, 0).unwrap();
        assert_eq!(code.generator(), &[1, 3, 2]);
        let code = RsCode::new(gf256(), 255, 253, 1).unwrap();
        // (x + α)(x + α²) = x² + (α + α²)x + α³.
        assert_eq!(code.generator(), &[1, 6, 8]);
    }

    #[test]
    fn rejects_bad_lengths() {
        assert_eq!(
            RsCode::new(gf256(), 256, 250, 0).unwrap_err(),
            RsError::CodeLength {
                m: 8,
                n: 256,
                k: 250
            }
        );
        assert!(RsCode::new(gf256(), 10, 10, 0).is_err());
        assert!(RsCode::new(gf256(), 10, 0, 0).is_err());
        let e = InterleavedFec::new(8, 0x11D, 0, 600, 2, 2).unwrap_err();
        assert!(e.to_string().contains("way 0 holds 302 symbols"), "{e}");
        assert!(InterleavedFec::new(8, 0x11B, 0, 250, 3, 2)
            .unwrap_err()
            .to_string()
            .contains("not primitive"));
        assert!(InterleavedFec::new(8, 0x11D, 0, 2, 3, 2).is_err());
        assert!(InterleavedFec::new(8, 0x11D, 0, 250, 0, 2).is_err());
    }

    #[test]
    fn encoding_gives_codewords_and_is_systematic() {
        let mut rng = Rng::new(1);
        for (m, poly, n, k, fcr) in [
            (8, 0x11D, 86, 84, 0),
            (8, 0x11D, 255, 223, 1),
            (4, 0x13, 15, 9, 3),
            (10, 0x409, 528, 514, 0),
        ] {
            let code = RsCode::new(Gf2m::new(m, poly).unwrap(), n, k, fcr).unwrap();
            for _ in 0..20 {
                let msg: Vec<u16> = (0..k).map(|_| rng.symbol(code.field().mask())).collect();
                let cw = code.encode(&msg);
                assert_eq!(&cw[..k], &msg[..]);
                assert!(code.is_codeword(&cw));
                // The codeword polynomial is a multiple of g(x).
                assert!(code
                    .field()
                    .poly_rem(&cw, code.generator())
                    .iter()
                    .all(|&r| r == 0));
            }
        }
    }

    #[test]
    fn t1_decoder_corrects_every_single_error() {
        for fcr in [0, 1, 7] {
            let code = RsCode::new(gf256(), 86, 84, fcr).unwrap();
            let mut rng = Rng::new(2);
            let msg: Vec<u16> = (0..84).map(|_| rng.symbol(0xFF)).collect();
            let cw = code.encode(&msg);
            for pos in 0..86 {
                for value in 1..=255 {
                    let mut r = cw.clone();
                    r[pos] ^= value;
                    assert_eq!(code.decode_t1(&mut r), T1Outcome::Corrected { pos, value });
                    assert_eq!(r, cw);
                }
            }
        }
    }

    /// Two errors in the last positions of a shortened code that look like one error at
    /// degree 200: the full-length code corrects "it", the shortened one must flag it.
    #[test]
    fn t1_location_in_shortened_region_is_uncorrectable() {
        let f = gf256();
        // S0 = 1, S1 = α^200 from errors a (degree 0) and b (degree 1): a + b = 1, a + bα = α^200.
        let b = f.div(1 ^ f.alpha(200), 1 ^ f.alpha(1));
        let a = 1 ^ b;
        let shortened = RsCode::new(f.clone(), 86, 84, 0).unwrap();
        let mut r = vec![0u16; 86];
        r[84] = b;
        r[85] = a;
        assert_eq!(shortened.decode_t1(&mut r), T1Outcome::Uncorrectable);
        assert_eq!(shortened.decode(&mut r.clone()), Outcome::Uncorrectable);
        let full = RsCode::new(f, 255, 253, 0).unwrap();
        let mut r = vec![0u16; 255];
        r[253] = b;
        r[254] = a;
        assert_eq!(
            full.decode_t1(&mut r),
            T1Outcome::Corrected {
                pos: 254 - 200,
                value: 1
            }
        );
    }

    #[test]
    fn general_decoder_agrees_with_t1_decoder() {
        let mut rng = Rng::new(3);
        for fcr in [0, 1, 200] {
            let code = RsCode::new(gf256(), 85, 83, fcr).unwrap();
            for _ in 0..20_000 {
                let msg: Vec<u16> = (0..83).map(|_| rng.symbol(0xFF)).collect();
                let mut r = code.encode(&msg);
                let errors = rng.below(4);
                for pos in rng.distinct(85, errors) {
                    r[pos] ^= rng.nonzero(0xFF);
                }
                let mut r1 = r.clone();
                let t1 = code.decode_t1(&mut r1);
                let general = code.decode(&mut r);
                let expected = match t1 {
                    T1Outcome::Clean => Outcome::Clean,
                    T1Outcome::Corrected { pos, value } => {
                        Outcome::Corrected(vec![Correction { pos, value }])
                    }
                    T1Outcome::Uncorrectable => Outcome::Uncorrectable,
                };
                assert_eq!(general, expected);
                assert_eq!(r, r1);
            }
        }
    }

    /// Random codes over every width: ≤ t errors are corrected; t + 1 errors are either flagged
    /// or "corrected" to a codeword within distance t (a miscorrection, never garbage).
    #[test]
    fn general_decoder_on_many_codes() {
        let mut rng = Rng::new(4);
        let fields = [
            (3, 0xB),
            (4, 0x13),
            (5, 0x25),
            (6, 0x43),
            (7, 0x89),
            (8, 0x11D),
            (8, 0x12B),
            (9, 0x211),
            (10, 0x409),
            (11, 0x805),
            (12, 0x1053),
        ];
        for (m, poly) in fields {
            let field = Gf2m::new(m, poly).unwrap();
            for _ in 0..6 {
                let max_n = (field.order() as usize).min(300);
                let n = 3 + rng.below(max_n - 2);
                let nroots = 1 + rng.below((n - 1).min(16));
                let fcr = rng.below(field.order() as usize) as u32;
                let code = RsCode::new(field.clone(), n, n - nroots, fcr).unwrap();
                for _ in 0..200 {
                    let msg: Vec<u16> = (0..code.k()).map(|_| rng.symbol(field.mask())).collect();
                    let cw = code.encode(&msg);
                    let errors = rng.below(code.t() + 2).min(n);
                    let mut r = cw.clone();
                    for pos in rng.distinct(n, errors) {
                        r[pos] ^= rng.nonzero(field.mask());
                    }
                    let received = r.clone();
                    let outcome = code.decode(&mut r);
                    if errors <= code.t() {
                        assert_eq!(
                            r, cw,
                            "m={m} n={n} nroots={nroots} fcr={fcr} errors={errors}"
                        );
                        assert_eq!(outcome == Outcome::Clean, errors == 0);
                    } else {
                        match outcome {
                            Outcome::Uncorrectable => assert_eq!(r, received),
                            Outcome::Corrected(c) => {
                                assert!(code.is_codeword(&r) && c.len() <= code.t());
                            }
                            Outcome::Clean => assert!(code.is_codeword(&r)),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn kr4_and_kp4_correct_up_to_t_and_flag_or_miscorrect_beyond() {
        let mut rng = Rng::new(5);
        for code in [RsCode::ethernet_kr4(), RsCode::ethernet_kp4()] {
            let mask = code.field().mask();
            let mut flagged = 0;
            let trials_beyond = 300;
            for trial in 0..2000 + trials_beyond {
                let msg: Vec<u16> = (0..code.k()).map(|_| rng.symbol(mask)).collect();
                let cw = code.encode(&msg);
                let errors = if trial < 2000 {
                    1 + rng.below(code.t())
                } else {
                    code.t() + 1
                };
                let mut r = cw.clone();
                for pos in rng.distinct(code.n(), errors) {
                    r[pos] ^= rng.nonzero(mask);
                }
                let outcome = code.decode(&mut r);
                if errors <= code.t() {
                    assert_eq!(r, cw);
                    assert!(matches!(outcome, Outcome::Corrected(ref c) if c.len() == errors));
                } else if outcome == Outcome::Uncorrectable {
                    flagged += 1;
                } else {
                    assert!(code.is_codeword(&r));
                }
            }
            println!(
                "RS({}, {}): {flagged}/{trials_beyond} of t+1 errors flagged",
                code.n(),
                code.k()
            );
            // A miscorrection of t+1 random errors is rare (≈ 1/t! of the ball volume ratio).
            assert!(flagged >= trials_beyond * 95 / 100);
        }
    }

    #[test]
    fn cxl_generic_layout_shape() {
        let fec = InterleavedFec::cxl();
        assert_eq!((fec.msg_bits(), fec.cw_bits(), fec.ways()), (2000, 2048, 3));
        let lengths: Vec<usize> = (0..3).map(|w| fec.way_code(w).n()).collect();
        assert_eq!(lengths, vec![86, 85, 85]);
        let mut rng = Rng::new(6);
        let msg = rng.bytes(250);
        let cw = fec.encode(&msg);
        assert_eq!(&cw[..250], &msg[..]);
        // Way 1 = bytes 1, 4, …, 247 then check bytes 250, 253; an RS(255,253) codeword.
        let way1: Vec<u16> = cw
            .iter()
            .skip(1)
            .step_by(3)
            .map(|&b| u16::from(b))
            .collect();
        assert_eq!(way1.len(), 85);
        let full = RsCode::new(gf256(), 255, 253, 0).unwrap();
        let mut padded = vec![0u16; 170];
        padded.extend(way1);
        assert!(full.is_codeword(&padded));
    }

    #[test]
    fn pcie6_layout_matches_its_definition() {
        let f = gf256();
        let fec = Pcie6Fec::new();
        let mut rng = Rng::new(7);
        let msg = rng.bytes(250);
        let flit = fec.encode(&msg);
        assert_eq!(&flit[..250], &msg[..]);
        for group in 0..3 {
            // B_i straight from the issue text: byte i → group i mod 3, offset i / 3.
            let b = |i: usize| {
                (0..250)
                    .find(|&j| j % 3 == group && j / 3 == i)
                    .map_or(0, |j| msg[j])
            };
            let p = (0..84).fold(0u8, |acc, i| acc ^ b(i));
            let c = (0..84).fold(0u16, |acc, i| {
                acc ^ f.mul(u16::from(b(i)), f.alpha(84 - i as i64))
            });
            let (c_byte, p_byte) = [(252, 255), (250, 253), (251, 254)][group];
            assert_eq!(flit[c_byte], c as u8, "group {group} check");
            assert_eq!(flit[p_byte], p, "group {group} parity");
        }
        for i in 0..256 {
            let (g, o) = Pcie6Fec::group_offset(i);
            assert_eq!(Pcie6Fec::flit_byte(g, o), Some(i));
        }
        assert_eq!(Pcie6Fec::flit_byte(1, 83), None);
        assert_eq!(Pcie6Fec::flit_byte(2, 83), None);
        assert_eq!(Pcie6Fec::flit_byte(0, 83), Some(249));
    }

    /// Errors that mimic a single error at offset 83 (bytes 84 and 85 hit with e·α and e): group
    /// 0 "corrects" byte 249, groups 1 and 2 flag the constant-zero position.
    #[test]
    fn pcie6_offset_83_of_groups_1_and_2_is_uncorrectable() {
        let f = gf256();
        let fec = Pcie6Fec::new();
        let msg = vec![0x5Au8; 250];
        let flit = fec.encode(&msg);
        let e = 0x37u8;
        for group in 0..3 {
            let mut r = flit.clone();
            r[Pcie6Fec::flit_byte(group, 84).unwrap()] ^= f.mul(u16::from(e), 2) as u8;
            r[Pcie6Fec::flit_byte(group, 85).unwrap()] ^= e;
            let d = fec.decode(&r);
            if group == 0 {
                assert!(d.status.way_corrected[0] && !d.status.uncorrectable);
                assert_eq!(d.msg[249], msg[249] ^ e);
            } else {
                assert!(d.status.way_uncorrectable[group] && !d.status.corrected);
                assert_eq!(d.msg, msg);
            }
        }
        // A difference of 0 (offset 84 with both syndromes nonzero) is uncorrectable too.
        assert_eq!(fec.locate(0, 5, 5), T1Outcome::Uncorrectable);
        assert_eq!(
            fec.locate(0, 5, f.mul(5, 2) as u8),
            T1Outcome::Corrected { pos: 83, value: 5 }
        );
        assert_eq!(
            fec.locate(0, 5, f.mul(5, f.alpha(84)) as u8),
            T1Outcome::Corrected { pos: 0, value: 5 }
        );
        assert_eq!(
            fec.locate(0, 5, f.mul(5, f.alpha(85)) as u8),
            T1Outcome::Uncorrectable
        );
    }

    fn layouts() -> Vec<(&'static str, Box<dyn FlitFec>)> {
        vec![
            ("generic", Box::new(InterleavedFec::cxl())),
            ("pcie6", Box::new(Pcie6Fec::new())),
        ]
    }

    #[test]
    fn every_single_byte_error_is_corrected() {
        let mut rng = Rng::new(8);
        for (name, fec) in layouts() {
            let msg = rng.bytes(250);
            let cw = fec.encode(&msg);
            for pos in 0..256 {
                for value in 1..=255u8 {
                    let mut r = cw.clone();
                    r[pos] ^= value;
                    let d = fec.decode(&r);
                    assert_eq!(d.msg, msg, "{name}: byte {pos} ^ {value:#x}");
                    assert!(
                        d.status.corrected && !d.status.uncorrectable,
                        "{name}: byte {pos}"
                    );
                    let way = fec.way_of(pos);
                    assert!((0..3).all(|w| d.status.way_corrected[w] == (w == way)));
                }
            }
            let d = fec.decode(&cw);
            assert!(!d.status.corrected && !d.status.uncorrectable && d.msg == msg);
        }
    }

    #[test]
    fn every_two_and_three_byte_burst_is_corrected() {
        let mut rng = Rng::new(9);
        for (name, fec) in layouts() {
            for len in [2, 3] {
                for start in 0..=256 - len {
                    for _ in 0..64 {
                        let msg = rng.bytes(250);
                        let mut r = fec.encode(&msg);
                        for b in &mut r[start..start + len] {
                            *b ^= rng.nonzero(0xFF) as u8;
                        }
                        let d = fec.decode(&r);
                        assert_eq!(d.msg, msg, "{name}: burst of {len} at {start}");
                        assert!(d.status.corrected && !d.status.uncorrectable);
                    }
                }
            }
        }
    }

    /// Fraction of error patterns the FEC flags as uncorrectable (the rest are miscorrected:
    /// with ≥ 2 errors in a way, no way is corrected right).
    fn detected_fraction(
        fec: &dyn FlitFec,
        rng: &mut Rng,
        trials: usize,
        mut inject: impl FnMut(&mut Rng, &mut [u8]),
    ) -> f64 {
        let msg = rng.bytes(fec.msg_bits() / 8);
        let cw = fec.encode(&msg);
        let mut detected = 0;
        for _ in 0..trials {
            let mut r = cw.clone();
            inject(rng, &mut r);
            if fec.decode(&r).status.uncorrectable {
                detected += 1;
            }
        }
        detected as f64 / trials as f64
    }

    /// The paper: 3-way interleaved SSC over shortened codes detects ≈ 2/3, 8/9, 26/27 of 4-,
    /// 5-, 6-byte bursts. Measured here for both layouts, with bounds loose enough for the
    /// sampling noise and tight enough to catch a broken decoder.
    #[test]
    fn detection_of_longer_bursts_and_double_errors() {
        let mut rng = Rng::new(10);
        let trials = 60_000;
        for (name, fec) in layouts() {
            for (len, low, high) in [(4, 0.65, 0.69), (5, 0.875, 0.91), (6, 0.955, 0.975)] {
                let fraction = detected_fraction(fec.as_ref(), &mut rng, trials, |rng, r| {
                    let start = rng.below(256 - len + 1);
                    for b in &mut r[start..start + len] {
                        *b ^= rng.nonzero(0xFF) as u8;
                    }
                });
                println!("{name}: {len}-byte bursts detected: {fraction:.4}");
                assert!(
                    (low..=high).contains(&fraction),
                    "{name} {len}-byte bursts: {fraction}"
                );
            }
            let fraction = detected_fraction(fec.as_ref(), &mut rng, trials, |rng, r| {
                let way = rng.below(3);
                let positions: Vec<usize> = (way..256).step_by(3).collect();
                for i in rng.distinct(positions.len(), 2) {
                    r[positions[i]] ^= rng.nonzero(0xFF) as u8;
                }
            });
            println!("{name}: double errors in one way detected: {fraction:.4}");
            assert!(
                (0.65..=0.69).contains(&fraction),
                "{name} double errors: {fraction}"
            );
        }
    }

    #[test]
    fn encoder_affine_maps_match_the_models() {
        let mut rng = Rng::new(11);
        let fecs: Vec<Box<dyn FlitFec>> = vec![
            Box::new(InterleavedFec::cxl()),
            Box::new(Pcie6Fec::new()),
            Box::new(InterleavedFec::new(10, 0x409, 0, 30, 2, 4).unwrap()),
            Box::new(InterleavedFec::new(5, 0x25, 3, 13, 1, 3).unwrap()),
        ];
        for fec in fecs {
            let map = fec.affine_columns();
            assert!(map.constant.iter().all(|&c| !c), "encoders are linear");
            for _ in 0..20 {
                let mut msg = rng.bytes(fec.msg_bits().div_ceil(8));
                let spare = msg.len() * 8 - fec.msg_bits();
                if spare > 0 {
                    *msg.last_mut().unwrap() &= 0xFF >> spare;
                }
                let cw = fec.encode(&msg);
                let check = map.apply(&msg);
                for k in 0..cw.len() * 8 - fec.msg_bits() {
                    let bit = fec.msg_bits() + k;
                    if bit < fec.cw_bits() {
                        assert_eq!(get_bit(&check, k), get_bit(&cw, bit));
                    }
                }
            }
        }
        let code = RsCode::new(gf256(), 20, 16, 1).unwrap();
        let map = code.affine_columns();
        let msg: Vec<u16> = (0..16).map(|_| rng.symbol(0xFF)).collect();
        assert_eq!(
            unpack_symbols(&map.apply(&pack_symbols(&msg, 8)), 8, 4),
            code.encode(&msg)[16..]
        );
    }

    #[test]
    fn non_byte_symbols_pack_lsb_first() {
        let fec = InterleavedFec::new(10, 0x409, 0, 30, 2, 4).unwrap();
        assert_eq!(fec.msg_bits(), 300);
        assert_eq!(fec.cw_bits(), 380);
        let mut rng = Rng::new(12);
        let msg: Vec<u16> = (0..30).map(|_| rng.symbol(0x3FF)).collect();
        let packed = pack_symbols(&msg, 10);
        assert_eq!(packed.len(), 38);
        assert_eq!(u16::from(packed[0]) | u16::from(packed[1] & 3) << 8, msg[0]);
        assert_eq!(unpack_symbols(&packed, 10, 30), msg);
        let cw = fec.encode(&packed);
        let mut r = unpack_symbols(&cw, 10, 38);
        r[5] ^= 0x155;
        r[6] ^= 0x2AA;
        let d = fec.decode(&pack_symbols(&r, 10));
        assert_eq!(d.msg, packed);
        assert_eq!(d.status.way_corrected, vec![true, true]);
    }

    #[test]
    fn ethernet_layouts_round_trip() {
        let mut rng = Rng::new(13);
        for fec in [
            InterleavedFec::ethernet_kr4(),
            InterleavedFec::ethernet_kp4(),
        ] {
            let t = fec.way_code(0).t();
            let msg: Vec<u16> = (0..514).map(|_| rng.symbol(0x3FF)).collect();
            let mut cw = fec.encode_symbols(&msg);
            for pos in rng.distinct(cw.len(), t) {
                cw[pos] ^= rng.nonzero(0x3FF);
            }
            let status = fec.decode_symbols_in_place(&mut cw);
            assert!(status.corrected && !status.uncorrectable);
            assert_eq!(&cw[..514], &msg[..]);
        }
    }
}
