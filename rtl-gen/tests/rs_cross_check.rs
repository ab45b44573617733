//! Cross-check of the Reed-Solomon reference models against an independent implementation:
//! the Python package `reedsolo`, driven through scripts/rs_reference.py on the same field
//! polynomial, generator (α = 2, i.e. x) and fcr.
//!
//! When python3 or reedsolo is missing the test prints a notice and passes, unless the
//! environment variable CI is set: under CI it must run (install with
//! `python3 -m pip install reedsolo==1.7.0`).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use rtl_gen::blocks::rs_crc::model::{Orientation, RsCrc};
use rtl_gen::blocks::rs_fec::model::{
    unpack_symbols, FlitFec, InterleavedFec, Outcome, Pcie6Fec, RsCode,
};
use rtl_gen::blocks::rs_fec::model::stream::StreamCode;
use rtl_gen::math::gf2m::Gf2m;

const PIP_INSTALL: &str = "python3 -m pip install reedsolo==1.7.0";

use rtl_gen::math::splitmix::SplitMix64 as Rng;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/rs_reference.py")
}

/// Whether python3 with reedsolo is usable; without it, skip with a notice in a bare `cargo
/// test`, but fail under `scripts/test` (which installs it and sets RTLGEN_REQUIRE_REFERENCE)
/// or CI, so the cross-check can never be skipped silently where it is promised.
fn reference_available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import reedsolo"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        if std::env::var_os("CI").is_some() || std::env::var_os("RTLGEN_REQUIRE_REFERENCE").is_some() {
            panic!("python3 with reedsolo is required here (CI / scripts/test): {PIP_INSTALL}");
        }
        eprintln!("NOTICE: skipping the reedsolo cross-check: python3 or reedsolo is missing ({PIP_INSTALL})");
    }
    ok
}

/// A batch of requests to scripts/rs_reference.py, answered in one process run.
#[derive(Default)]
struct Batch {
    lines: Vec<String>,
}

fn join(symbols: &[u16]) -> String {
    symbols
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

impl Batch {
    fn encode(&mut self, field: &Gf2m, fcr: u32, nsym: usize, msg: &[u16]) {
        self.lines.push(format!(
            "encode {} {} {fcr} {nsym} {}",
            field.m(),
            field.poly(),
            join(msg)
        ));
    }

    fn decode(&mut self, field: &Gf2m, fcr: u32, nsym: usize, cw: &[u16]) {
        self.lines.push(format!(
            "decode {} {} {fcr} {nsym} {}",
            field.m(),
            field.poly(),
            join(cw)
        ));
    }

    fn eval(&mut self, field: &Gf2m, x: u16, poly: &[u16]) {
        self.lines.push(format!(
            "eval {} {} {x} {}",
            field.m(),
            field.poly(),
            join(poly)
        ));
    }

    /// Runs the script; answer i belongs to request i.
    fn run(&self) -> Vec<String> {
        let mut child = Command::new("python3")
            .arg(script())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 starts");
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let input = self.lines.join("\n") + "\n";
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let output = child.wait_with_output().expect("rs_reference.py runs");
        writer
            .join()
            .expect("writer thread")
            .expect("requests written");
        assert!(output.status.success(), "rs_reference.py failed");
        let answers: Vec<String> = String::from_utf8(output.stdout)
            .expect("utf-8")
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(answers.len(), self.lines.len(), "one answer per request");
        answers
    }
}

fn parse(answer: &str) -> Vec<u16> {
    answer
        .split_whitespace()
        .map(|w| {
            w.parse()
                .unwrap_or_else(|_| panic!("not a symbol: {answer:?}"))
        })
        .collect()
}

/// Codes to compare: the CXL ways, textbook codes, KR4/KP4, and random codes on every width.
fn codes(rng: &mut Rng) -> Vec<RsCode> {
    let gf = |m, poly| Gf2m::new(m, poly).expect("primitive");
    let mut codes = vec![
        RsCode::new(gf(8, 0x11D), 86, 84, 0).unwrap(),
        RsCode::new(gf(8, 0x11D), 85, 83, 0).unwrap(),
        RsCode::new(gf(8, 0x11D), 255, 223, 1).unwrap(),
        RsCode::new(gf(8, 0x12B), 250, 242, 1).unwrap(),
        RsCode::new(gf(4, 0x13), 15, 9, 3).unwrap(),
        RsCode::ethernet_kr4(),
        RsCode::ethernet_kp4(),
    ];
    let fields = [
        (3, 0xB),
        (4, 0x19),
        (5, 0x25),
        (6, 0x43),
        (7, 0x89),
        (8, 0x187),
        (9, 0x211),
        (10, 0x409),
        (11, 0x805),
        (12, 0x1053),
    ];
    for (m, poly) in fields {
        let field = gf(m, poly);
        for _ in 0..2 {
            let n = 3 + rng.below((field.order() as usize).min(400) - 2);
            let nroots = 1 + rng.below((n - 1).min(20));
            let fcr = rng.below(field.order() as usize) as u32;
            codes.push(RsCode::new(field.clone(), n, n - nroots, fcr).unwrap());
        }
    }
    codes
}

#[test]
fn rs_codes_agree_with_reedsolo() {
    if !reference_available() {
        return;
    }
    let mut rng = Rng::new(0x5EED);
    let codes = codes(&mut rng);
    let mut encodings = Batch::default();
    let mut decodings = Batch::default();
    let mut encoded = Vec::new();
    let mut decoded = Vec::new();
    for (c, code) in codes.iter().enumerate() {
        let mask = code.field().mask();
        let slow = code.n() > 300;
        for _ in 0..if slow { 4 } else { 10 } {
            let msg = rng.symbols(code.k(), mask);
            encodings.encode(code.field(), code.fcr(), code.nroots(), &msg);
            encoded.push((c, code.encode(&msg)));
        }
        for trial in 0..if slow { 12 } else { 100 } {
            let msg = rng.symbols(code.k(), mask);
            let cw = code.encode(&msg);
            // Mostly ≤ t + 1 errors, sometimes many more.
            let errors = if trial % 5 == 4 {
                rng.below(code.n() + 1)
            } else {
                rng.below(code.t() + 2)
            };
            let mut received = cw.clone();
            for pos in rng.distinct(code.n(), errors) {
                received[pos] ^= rng.nonzero(mask);
            }
            let mut ours = received.clone();
            let outcome = code.decode(&mut ours);
            // The streaming decoder's arithmetic (even check-symbol counts, as the
            // block requires) at a P that usually pads the last beat.
            if code.nroots() % 2 == 0 {
                let p = (code.n() / 5).max(1);
                let streamed = StreamCode::new(code.clone(), p).decode(&received);
                assert_eq!((&streamed.cw, streamed.uncorrectable), (&ours, outcome == Outcome::Uncorrectable), "streaming decoder at P = {p}");
            }
            decodings.decode(code.field(), code.fcr(), code.nroots(), &received);
            decoded.push((c, errors, outcome, ours));
        }
    }
    for ((c, cw), answer) in encoded.iter().zip(&encodings.run()) {
        let code = &codes[*c];
        assert_eq!(
            &cw[code.k()..],
            parse(answer).as_slice(),
            "check symbols of {code:?}"
        );
    }
    let (mut corrected, mut failed, mut miscorrected) = (0, 0, 0);
    for ((c, errors, outcome, ours), answer) in decoded.iter().zip(&decodings.run()) {
        let code = &codes[*c];
        let context = format!(
            "RS({}, {}) m={} fcr={} with {errors} errors",
            code.n(),
            code.k(),
            code.field().m(),
            code.fcr()
        );
        if answer == "fail" {
            failed += 1;
            assert_eq!(
                *outcome,
                Outcome::Uncorrectable,
                "{context}: reedsolo fails, we did not"
            );
        } else {
            corrected += 1;
            miscorrected += usize::from(*errors > code.t());
            let theirs = parse(answer.strip_prefix("ok ").unwrap_or(""));
            assert_ne!(
                *outcome,
                Outcome::Uncorrectable,
                "{context}: reedsolo decodes, we did not"
            );
            assert_eq!(ours, &theirs, "{context}: different corrections");
        }
    }
    println!(
        "reedsolo agreed on {} encodings and {} decodings ({corrected} decoded of which {miscorrected} beyond t, {failed} failed)",
        encoded.len(),
        decoded.len()
    );
}

/// The CXL generic layout: each way of a flit, taken in increasing flit index, is a reedsolo
/// codeword of the shortened RS(255, 253); likewise the Ethernet layouts with 10-bit symbols.
#[test]
fn interleaved_layouts_agree_with_reedsolo() {
    if !reference_available() {
        return;
    }
    let mut rng = Rng::new(0xC0DE);
    let layouts = [
        InterleavedFec::cxl(),
        InterleavedFec::ethernet_kr4(),
        InterleavedFec::ethernet_kp4(),
    ];
    let mut batch = Batch::default();
    let mut expected = Vec::new();
    for fec in &layouts {
        let m = fec.symbol_bits();
        for _ in 0..4 {
            let msg_bytes: Vec<u8> = (0..fec.msg_bits().div_ceil(8))
                .map(|_| rng.next_u64() as u8)
                .collect();
            let cw = unpack_symbols(&fec.encode(&msg_bytes), m, fec.cw_symbols());
            for way in 0..fec.ways() {
                let way_cw: Vec<u16> = cw.iter().skip(way).step_by(fec.ways()).copied().collect();
                let k = way_cw.len() - fec.check_symbols();
                let field = fec.way_code(way).field();
                batch.encode(field, 0, fec.check_symbols(), &way_cw[..k]);
                expected.push(way_cw[k..].to_vec());
            }
        }
    }
    for (answer, check) in batch.run().iter().zip(&expected) {
        assert_eq!(&parse(answer), check);
    }
}

/// The pcie6 layout: check byte C = Σ B_i·α^(84−i) is reedsolo's evaluation of
/// [B_0 … B_83, 0] at α, and the parity P its evaluation at 1.
#[test]
fn pcie6_layout_agrees_with_reedsolo_polynomial_evaluation() {
    if !reference_available() {
        return;
    }
    let mut rng = Rng::new(0xF11);
    let fec = Pcie6Fec::new();
    let field = Gf2m::new(8, 0x11D).unwrap();
    let mut batch = Batch::default();
    let mut expected = Vec::new();
    for _ in 0..20 {
        let msg: Vec<u8> = (0..250).map(|_| rng.next_u64() as u8).collect();
        let flit = fec.encode(&msg);
        for group in 0..3 {
            let mut poly: Vec<u16> = (0..84)
                .map(|offset| Pcie6Fec::flit_byte(group, offset).map_or(0, |i| u16::from(flit[i])))
                .collect();
            poly.push(0);
            batch.eval(&field, 2, &poly);
            expected.push(flit[Pcie6Fec::flit_byte(group, 84).unwrap()]);
            poly.pop();
            batch.eval(&field, 1, &poly);
            expected.push(flit[Pcie6Fec::flit_byte(group, 85).unwrap()]);
        }
    }
    for (answer, byte) in batch.run().iter().zip(&expected) {
        assert_eq!(answer.parse::<u16>().unwrap(), u16::from(*byte));
    }
}

/// The PCIe 6.0 flit CRC (MsbFirst) is reedsolo's check of RS(250, 242) over 0x12B with
/// fcr = 1, computed on the data with the sequence number XORed into its low bits.
#[test]
fn flit_crc_agrees_with_reedsolo() {
    if !reference_available() {
        return;
    }
    let mut rng = Rng::new(0xC2C);
    let crc = RsCrc::pcie6_flit(10, Orientation::MsbFirst);
    let mut batch = Batch::default();
    let mut expected = Vec::new();
    for _ in 0..30 {
        let data: Vec<u8> = (0..242).map(|_| rng.next_u64() as u8).collect();
        let seq = rng.next_u64() & 0x3FF;
        let mut folded: Vec<u16> = data.iter().map(|&b| u16::from(b)).collect();
        folded[0] ^= (seq & 0xFF) as u16;
        folded[1] ^= (seq >> 8) as u16;
        batch.encode(crc.field(), 1, 8, &folded);
        expected.push(crc.crc(&data, seq));
    }
    for (answer, check) in batch.run().iter().zip(&expected) {
        let theirs: Vec<u8> = parse(answer).iter().map(|&s| s as u8).collect();
        assert_eq!(&theirs, check);
    }
}
