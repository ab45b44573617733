//! The t = 1 decoder `<prefix><name>_dec` of both layouts, in one pass and without ROMs.
//!
//! Per way, two syndromes come out of one XOR network over `cw`: S0 = r(α^fcr) and
//! S1 = r(α^(fcr+1)) for the generic layout, the parity and check syndromes sp and sc for pcie6.
//! A single error of value Y at degree d gives S1 = α^d·S0, so every existing position compares
//! S1 with its own constant multiple of S0 (an XOR network per position, all in parallel):
//! exactly one position can match when S0 ≠ 0. A match corrects that symbol by Y = S0·α^(−d·fcr)
//! (pcie6: sp). Nonzero syndromes that match no existing position (a shortened position, offset 83
//! of pcie6 groups 1 and 2, or none at all) mark the way uncorrectable, and its symbols pass
//! through unchanged: the early detection RXL switches rely on.
//!
//! Pipelining (`pipeline` = P ≤ 4, latency P, one word per cycle): P = 1 registers the outputs;
//! P = 2 also the syndromes, computed by the shared 6-input XOR network; P = 3 adds a stage
//! between the location (a hit per position) and the flags and the correction; P = 4 instead
//! computes the syndromes as registered partial parities of masked column groups, then the
//! syndromes. On the CXL flit (Yosys `abc -lut 6`) P = 3 and P = 4 keep every register-to-register
//! path within 5 LUT6 levels; P = 2 leaves the location and the flags (7 levels) in one stage.

use super::model::{Pcie6Fec, RsCode};
use super::{latency_note, layout_notes, Layout, RsFecBlock};
use crate::hw::module::{GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::pipe::Pipe;
use crate::hw::verilog::{Expr, Item, Module, Stmt, UnOp};
use crate::hw::xor_net::{self, Columns, XorNet, XorStyle};
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};
use crate::math::gf2m::Gf2m;

/// One position a single error can be located at.
struct Position {
    /// S1 = mult·S0 for an error here.
    mult: u16,
    /// The message symbol (flit symbol index) it corrects, with Y = scale·S0; `None` for a check
    /// symbol, which is located (the way counts as corrected) but not output.
    msg_symbol: Option<(usize, u16)>,
}

/// A way: its two syndromes as rows over the cw bits, and its existing positions.
struct Way {
    /// Rows of S0 then S1 (m each), over the cw bits.
    rows: Vec<BitVec>,
    positions: Vec<Position>,
}

fn symbol_column(rows: &mut [BitVec], f: &Gf2m, symbol: usize, coefficient: u16) {
    let m = f.m() as usize;
    for b in 0..m {
        let column = f.mul(coefficient, 1 << b);
        for (i, row) in rows.iter_mut().enumerate() {
            if column >> i & 1 == 1 {
                row.flip(symbol * m + b);
            }
        }
    }
}

fn generic_ways(b: &RsFecBlock, f: &Gf2m) -> Vec<Way> {
    let model = b.generic_model();
    let (m, ways, cw_bits) = (f.m() as usize, b.ways as usize, b.cw_bits() as usize);
    (0..ways)
        .map(|w| {
            let code: &RsCode = model.way_code(w);
            let (n, k) = (code.n(), code.k());
            let mut rows = vec![BitVec::zeros(cw_bits); 2 * m];
            let mut positions = Vec::with_capacity(n);
            for p in 0..n {
                let d = (n - 1 - p) as i64;
                let symbol = p * ways + w;
                for j in 0..2 {
                    symbol_column(&mut rows[j * m..(j + 1) * m], f, symbol, f.alpha((i64::from(b.fcr) + j as i64) * d));
                }
                let scale = f.inv(f.alpha(d * i64::from(b.fcr)));
                positions.push(Position { mult: f.alpha(d), msg_symbol: (p < k).then_some((symbol, scale)) });
            }
            Way { rows, positions }
        })
        .collect()
}

fn pcie6_ways(f: &Gf2m) -> Vec<Way> {
    (0..Pcie6Fec::GROUPS)
        .map(|g| {
            let mut rows = vec![BitVec::zeros(8 * Pcie6Fec::FLIT_BYTES); 16];
            let mut positions = Vec::new();
            for offset in 0..Pcie6Fec::GROUP_LEN {
                let Some(byte) = Pcie6Fec::flit_byte(g, offset) else { continue };
                // S0 = sp: offsets 0..83 and 85; S1 = sc: offsets 0..83 times α^(84−i), and 84.
                let (sp, sc) = match offset {
                    Pcie6Fec::CHECK_OFFSET => (0, 1),
                    Pcie6Fec::PARITY_OFFSET => (1, 0),
                    o => (1, f.alpha(84 - o as i64)),
                };
                symbol_column(&mut rows[..8], f, byte, sp);
                symbol_column(&mut rows[8..], f, byte, sc);
                if offset < Pcie6Fec::CHECK_OFFSET {
                    positions.push(Position { mult: sc, msg_symbol: Some((byte, 1)) });
                }
            }
            Way { rows, positions }
        })
        .collect()
}

/// Bit `i` of a vector `width` wide (a 1-bit vector is declared without a range).
fn bit_of(name: &str, width: usize, i: usize) -> Expr {
    if width == 1 {
        Expr::id(name)
    } else {
        Expr::bit(name, i as u32)
    }
}

fn slice_of(name: &str, m: usize, i: usize) -> Expr {
    Expr::slice(name, (m * i + m - 1) as u32, (m * i) as u32)
}

/// `{m}` copies of a bit.
fn repeat(m: usize, e: Expr) -> Expr {
    Expr::Repeat(m as u32, Box::new(e))
}

/// An XOR network mapping the m-bit wire `input` to `mults.len()` constant multiples of it, in
/// a new wire `out`.
fn multiples(pipe: &mut Pipe, f: &Gf2m, input: &str, out: &str, mults: &[u16], doc: &str) -> String {
    let m = f.m() as usize;
    let mut rows = Vec::with_capacity(mults.len() * m);
    for &c in mults {
        for row in f.mul_matrix(c) {
            rows.push(BitVec::from_u128(m, u128::from(row)));
        }
    }
    let map = AffineMap { matrix: BitMatrix::from_rows(m, rows), constant: BitVec::zeros(mults.len() * m) };
    pipe.wire(out, (mults.len() * m) as u32, doc);
    xor_net::emit(&mut pipe.items, &XorNet { name: out, input: Columns::One(input), map: &map, style: XorStyle::Masked }, out, 0);
    out.to_string()
}

/// The first `pipeline` that registers the location (a hit per position) before the flags and
/// the correction: from there on every stage is within 5 LUT6 levels on the CXL flit.
const LOCATE_CUT_FROM: u32 = 3;

/// Register stages inside the syndrome network, its output register included, for `pipeline`
/// stages: none at 0 and 1 (1 registers only the outputs), one at 2 and 3, two at 4.
fn syndrome_stages(pipeline: u32) -> u32 {
    match pipeline {
        0 | 1 => 0,
        2 | 3 => 1,
        _ => super::enc::MAX_NET_STAGES,
    }
}

pub fn module(b: &RsFecBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let f = b.field();
    let m = f.m() as usize;
    let ways_n = b.ways as usize;
    let (msg_bits, cw_bits) = (b.msg_bits(), b.cw_bits());
    let ways = match b.layout {
        Layout::Generic => generic_ways(b, &f),
        Layout::Pcie6 => pcie6_ways(&f),
    };
    let pcie6 = b.layout == Layout::Pcie6;

    let ports = super::decoder_ports(
        b,
        design,
        super::FlagTexts {
            corrected: "some way had an error and corrected it (possibly a miscorrection)",
            way_corrected: "per way: an error was located and corrected",
            way_uncorrectable: "per way: nonzero syndromes that no existing position explains",
        },
    );

    let mut pipe = Pipe::new();
    pipe.define("cw", cw_bits, 0);
    pipe.items.push(Item::comment("The message part of cw, carried to the correction stage."));
    let cw_msg = pipe.wire("cw_msg", msg_bits, "cw[msg bits]");
    pipe.items.push(Item::assign(Expr::id(&cw_msg), Expr::slice("cw", msg_bits - 1, 0)));

    // Syndromes of every way: one network over cw. Registered once (P = 2, 3) it is the shared
    // 6-input XOR network (⌈log6 w⌉ LUT levels) and its output register; P = 4 splits it into
    // registered partial parities and the syndromes. P ≥ 3 cuts again after the location.
    let syn_stages = syndrome_stages(b.pipeline);
    let locate_cut = b.pipeline >= LOCATE_CUT_FROM;
    let syn_bits = 2 * m * ways_n;
    let rows: Vec<BitVec> = ways.iter().flat_map(|w| w.rows.iter().cloned()).collect();
    let map = AffineMap { matrix: BitMatrix::from_rows(cw_bits as usize, rows), constant: BitVec::zeros(syn_bits) };
    pipe.items.push(Item::comment(if pcie6 {
        "Syndromes per group g (bits [16g+15:16g]): {sc, sp}, sp = parity syndrome, sc = check syndrome."
    } else {
        "Syndromes per way w (bits [2m·w+2m-1:2m·w]): {S1, S0}, S_j = r(α^(fcr+j))."
    }));
    pipe.items.push(Item::wire("syn", syn_bits as u32, "syndromes of all ways"));
    if syn_stages == 1 {
        pipe.items.push(Item::comment(XorStyle::SHARED.how(0)));
        pipe.items.push(Item::wire("syn_d", syn_bits as u32, "syndromes of all ways, into their register"));
        xor_net::emit(&mut pipe.items, &XorNet { name: "syn", input: Columns::One("cw"), map: &map, style: XorStyle::SHARED }, "syn_d", 0);
        pipe.items.push(Item::reg("syn_q", syn_bits as u32, "the syndromes, registered"));
        pipe.items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::set(Expr::id("syn_q"), Expr::id("syn_d"))] });
        pipe.items.push(Item::assign(Expr::id("syn"), Expr::id("syn_q")));
    } else {
        xor_net::emit(&mut pipe.items, &XorNet { name: "syn", input: Columns::One("cw"), map: &map, style: XorStyle::Masked }, "syn", syn_stages);
    }
    pipe.define("syn", syn_bits as u32, syn_stages);
    pipe.advance(syn_stages);

    // Per way: the location (hit per position) and the error values, then the flags (an OR over
    // the hits). With the location cut the flags follow it, so that the cut halves the path from
    // the syndromes to the flags, not only the one to the corrected message.
    let flags = |pipe: &mut Pipe, w: usize, hit: &str, nz0: &str, nz1: &str| {
        let (hit, nz0, nz1) = (pipe.expr(hit), pipe.expr(nz0), pipe.expr(nz1));
        let located = Expr::red(UnOp::RedOr, hit);
        let (corrected, uncorrectable) = if pcie6 {
            // Only one syndrome nonzero: the error is in the check or the parity byte itself.
            (Expr::or(located.clone(), Expr::xor(nz0.clone(), nz1.clone())), Expr::and(Expr::and(nz0, nz1), located.lnot()))
        } else {
            (located.clone(), Expr::and(Expr::or(nz0, nz1), located.lnot()))
        };
        pipe.items.push(Item::assign(bit_of("wc", ways_n, w), corrected));
        pipe.items.push(Item::assign(bit_of("wu", ways_n, w), uncorrectable));
    };
    if !locate_cut {
        pipe.wire("wc", b.ways, "way corrected");
        pipe.wire("wu", b.ways, "way uncorrectable");
    }
    let mut fixes = Vec::with_capacity(ways.len());
    for (w, way) in ways.iter().enumerate() {
        let p = format!("w{w}_");
        let syn = pipe.at("syn");
        pipe.items.push(Item::comment(&format!(
            "{} {w}: {} existing positions; a match S1 == α^d·S0 (S0 != 0) locates the error.",
            if pcie6 { "Group" } else { "Way" },
            way.positions.len()
        )));
        let s0 = pipe.wire(&format!("{p}s0"), m as u32, if pcie6 { "parity syndrome sp" } else { "S0" });
        let s1 = pipe.wire(&format!("{p}s1"), m as u32, if pcie6 { "check syndrome sc" } else { "S1" });
        pipe.items.push(Item::assign(Expr::id(&s0), slice_of(&syn, m, 2 * w)));
        pipe.items.push(Item::assign(Expr::id(&s1), slice_of(&syn, m, 2 * w + 1)));
        let nz0 = pipe.wire(&format!("{p}nz0"), 1, "");
        let nz1 = pipe.wire(&format!("{p}nz1"), 1, "");
        pipe.items.push(Item::assign(Expr::id(&nz0), Expr::red(UnOp::RedOr, Expr::id(&s0))));
        pipe.items.push(Item::assign(Expr::id(&nz1), Expr::red(UnOp::RedOr, Expr::id(&s1))));
        let npos = way.positions.len();
        let mults: Vec<u16> = way.positions.iter().map(|q| q.mult).collect();
        let t = multiples(&mut pipe, &f, &s0, &format!("{p}t"), &mults, "α^d·S0 for every existing position");
        let hit = pipe.wire(&format!("{p}hit"), npos as u32, "the error is at this position");
        for q in 0..npos {
            pipe.items.push(Item::assign(bit_of(&hit, npos, q), Expr::and(Expr::id(&nz0), Expr::eq(slice_of(&t, m, q), Expr::id(&s1)))));
        }
        // Error values of the message positions.
        let scaled: Vec<(usize, usize, u16)> = way.positions.iter().enumerate().filter_map(|(q, pos)| pos.msg_symbol.map(|(sym, scale)| (q, sym, scale))).collect();
        let values = if scaled.iter().all(|&(_, _, scale)| scale == 1) {
            s0.clone()
        } else {
            let scales: Vec<u16> = scaled.iter().map(|&(_, _, s)| s).collect();
            multiples(&mut pipe, &f, &s0, &format!("{p}v"), &scales, "error value S0·α^(−d·fcr) per message position")
        };
        if !locate_cut {
            flags(&mut pipe, w, &hit, &nz0, &nz1);
        }
        fixes.push((hit, npos, values, scaled, nz0, nz1));
    }
    if locate_cut {
        pipe.items.push(Item::comment("Register stage between location and correction."));
        pipe.cut();
        pipe.wire("wc", b.ways, "way corrected");
        pipe.wire("wu", b.ways, "way uncorrectable");
        for (w, (hit, _, _, _, nz0, nz1)) in fixes.iter().enumerate() {
            flags(&mut pipe, w, hit, nz0, nz1);
        }
    }
    let msg_c = pipe.wire("msg_c", msg_bits, "corrected message");
    let cw_msg = pipe.at("cw_msg");
    for (hit, npos, values, scaled, _, _) in fixes {
        let (hit, values) = (pipe.at(&hit), pipe.at(&values));
        let per_position = pipe.width(&values) as usize > m;
        for (j, &(q, sym, _)) in scaled.iter().enumerate() {
            let value = if per_position { slice_of(&values, m, j) } else { Expr::id(&values) };
            let fix = Expr::and(repeat(m, bit_of(&hit, npos, q)), value);
            pipe.items.push(Item::assign(slice_of(&msg_c, m, sym), Expr::xor(slice_of(&cw_msg, m, sym), fix)));
        }
    }
    // Every message symbol is an existing position of its way, so msg_c is fully driven.
    let cor = pipe.wire("cor", 1, "");
    let unc = pipe.wire("unc", 1, "");
    let (wc, wu) = (pipe.expr("wc"), pipe.expr("wu"));
    pipe.items.push(Item::assign(Expr::id(&cor), Expr::red(UnOp::RedOr, wc)));
    pipe.items.push(Item::assign(Expr::id(&unc), Expr::red(UnOp::RedOr, wu)));
    if b.pipeline > 0 {
        pipe.items.push(Item::comment("Output register."));
        pipe.cut();
    }
    for (port, sig) in [("msg", "msg_c"), ("corrected", "cor"), ("uncorrectable", "unc"), ("way_corrected", "wc"), ("way_uncorrectable", "wu")] {
        let e = pipe.expr(sig);
        pipe.items.push(Item::assign(Expr::id(port), e));
    }
    let mut items = pipe.finish();
    if b.pipeline > 0 {
        xor_net::emit_valid_pipe(&mut items, "valid_pipe", "in_valid", "out_valid", b.pipeline);
    }
    items.extend(super::props::decoder_t1(b, syn_stages));
    let mut notes = layout_notes(b);
    notes.push("Single pass, no ROM: per way the syndromes come from one XOR network; every existing position d tests S1 == α^d·S0 with S0 != 0 (constant multipliers as XOR networks) and a match XORs the error value into its symbol. Nonzero syndromes matching no existing position (a shortened, always-zero position included) flag the way uncorrectable and leave its symbols unchanged.".into());
    notes.push(latency_note(b.pipeline));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: (b.pipeline > 0).then_some(design.reset) },
        latency: b.pipeline,
        summary: format!(
            "Single-symbol-correcting Reed-Solomon decoder, {} layout, {} way(s): corrects one symbol per way and flags ways with errors it cannot explain.",
            if pcie6 { "PCIe 6.0 flit" } else { "generic interleaved" },
            b.ways
        ),
        notes,
        role: Role::FecDec,
        origin: None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::model::FlitFec;
    use super::super::test_support::{block, design, hit_symbol, message, Rng};
    use crate::hw::eval::{Bits, Sim};

    /// Compares the decoder, evaluated from its Verilog tree, with the model on `words`
    /// (pipelined: cycle by cycle with gaps in in_valid).
    pub(crate) fn run(fields: &str, words: &[Vec<u8>]) {
        let d = design(fields, "async_low");
        let b = block(&d);
        let model = b.model();
        let mods = d.blocks[0].modules(&d.info);
        let mut sim = Sim::new(&mods[1].module);
        let p = b.pipeline as usize;
        if p > 0 {
            sim.set_u64("rst_n", 0);
            sim.clock();
            sim.set_u64("rst_n", 1);
        }
        let mut pending = Vec::new();
        let check = |sim: &Sim, cw: &Vec<u8>, valid: Option<bool>| {
            let expect = model.decode(cw);
            let flags = |v: &[bool]| v.iter().enumerate().fold(0u64, |a, (i, &x)| a | u64::from(x) << i);
            assert_eq!(sim.get("msg").to_bytes(), expect.msg, "msg of {cw:02x?}");
            assert_eq!(sim.get_u64("way_corrected"), flags(&expect.status.way_corrected), "{cw:02x?}");
            assert_eq!(sim.get_u64("way_uncorrectable"), flags(&expect.status.way_uncorrectable), "{cw:02x?}");
            assert_eq!(sim.get_u64("corrected") == 1, expect.status.corrected);
            assert_eq!(sim.get_u64("uncorrectable") == 1, expect.status.uncorrectable);
            if let Some(v) = valid {
                assert_eq!(sim.get_u64("out_valid") == 1, v);
            }
        };
        for (t, cw) in words.iter().enumerate() {
            sim.set("cw", &Bits::from_bytes_width(cw, b.cw_bits() as usize));
            if p == 0 {
                sim.settle();
                check(&sim, cw, None);
                continue;
            }
            let valid = t % 7 != 2;
            sim.set_u64("in_valid", valid.into());
            sim.clock();
            pending.push((cw.clone(), valid));
            if pending.len() >= p {
                let (cw, v) = &pending[pending.len() - p];
                check(&sim, cw, Some(*v));
            }
        }
    }

    /// Clean words, every single-symbol error at a stride of positions and values, bursts, and
    /// random multi-symbol errors (miscorrections and detections alike).
    pub(crate) fn words(fields: &str, count: usize, seed: u64) -> Vec<Vec<u8>> {
        let d = design(fields, "async_low");
        let b = block(&d);
        let model = b.model();
        let m = b.symbol_bits;
        let n = b.cw_symbols() as usize;
        let mask = ((1u32 << m) - 1) as u16;
        let mut rng = Rng::new(seed);
        let mut out = Vec::new();
        for i in 0..count {
            let msg = message(&mut rng, b);
            let mut cw = model.encode(&msg);
            match i % 4 {
                0 if i % 8 == 0 => {}
                0 => hit_symbol(&mut cw, m, rng.below(n), rng.nonzero(mask)),
                1 => {
                    let len = 1 + rng.below(6.min(n));
                    let start = rng.below(n - len + 1);
                    for s in start..start + len {
                        hit_symbol(&mut cw, m, s, rng.nonzero(mask));
                    }
                }
                _ => {
                    let errors = 1 + rng.below(8);
                    for s in rng.distinct(n, errors.min(n)) {
                        hit_symbol(&mut cw, m, s, rng.nonzero(mask));
                    }
                }
            }
            out.push(cw);
        }
        out
    }

    #[test]
    fn cxl_generic_matches_the_model() {
        let f = "ways = 3\nmsg_bytes = 250";
        run(f, &words(f, 300, 1));
        run(&format!("{f}\npipeline = 4"), &words(f, 100, 2));
    }

    #[test]
    fn pcie6_matches_the_model() {
        let f = "layout = \"pcie6\"";
        run(f, &words(f, 300, 3));
        run(&format!("{f}\npipeline = 1"), &words(f, 100, 4));
        run(&format!("{f}\npipeline = 2"), &words(f, 100, 5));
        run(&format!("{f}\npipeline = 3"), &words(f, 100, 7));
    }

    /// Every single-byte error at every position, for a few values (the co-simulation does all
    /// 255), in both layouts; plus the errors that mimic offset 83 / shortened positions.
    #[test]
    fn single_errors_everywhere() {
        for f in ["ways = 3\nmsg_bytes = 250", "layout = \"pcie6\""] {
            let d = design(f, "async_low");
            let b = block(&d);
            let model = b.model();
            let mut rng = Rng::new(5);
            let msg = message(&mut rng, b);
            let cw = model.encode(&msg);
            let mut ws = Vec::new();
            for pos in 0..256 {
                for value in [1u8, 0x80, rng.nonzero(0xFF) as u8] {
                    let mut r = cw.clone();
                    r[pos] ^= value;
                    ws.push(r);
                }
            }
            run(f, &ws);
        }
    }

    /// Every single-byte error (256 positions × 255 values) in both CXL layouts: corrected, and
    /// identical to the model. Opt-in (about a minute): `cargo test -- --ignored`.
    #[test]
    #[ignore]
    fn exhaustive_single_byte_errors() {
        for f in ["ways = 3\nmsg_bytes = 250", "layout = \"pcie6\""] {
            let d = design(f, "async_low");
            let b = block(&d);
            let model = b.model();
            let msg = message(&mut Rng::new(9), b);
            let cw = model.encode(&msg);
            let mut sim = Sim::new(&d.blocks[0].modules(&d.info)[1].module);
            for pos in 0..256 {
                for value in 1..=255u8 {
                    let mut r = cw.clone();
                    r[pos] ^= value;
                    sim.set("cw", &Bits::from_bytes_width(&r, 2048));
                    sim.settle();
                    assert_eq!(sim.get("msg").to_bytes(), msg, "{f}: byte {pos} ^ {value:#x}");
                    assert!(sim.get_u64("corrected") == 1 && sim.get_u64("uncorrectable") == 0);
                    assert_eq!(sim.get_u64("way_corrected"), 1 << model.way_of(pos));
                }
            }
        }
    }

    #[test]
    fn other_codes_match_the_model() {
        for f in [
            "symbol_bits = 5\nfield_poly = 0x25\nfcr = 3\nmsg_symbols = 13\nways = 3",
            "symbol_bits = 10\nfield_poly = 0x409\nfcr = 7\nmsg_symbols = 40\nways = 2\npipeline = 3",
            "symbol_bits = 4\nfield_poly = 0x13\nmsg_symbols = 12\nways = 1",
            "msg_bytes = 1\nways = 1",
        ] {
            run(f, &words(f, 200, 6));
        }
    }
}
