//! The generator and checker modules of an `rs_crc` block: the model's affine map as XOR
//! networks, exactly as the `crc` kind emits a binary CRC.

use super::model::{Orientation, RsCrc};
use super::RsCrcBlock;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::gf_net::affine_of_masks;
use crate::hw::verilog::{Item, Module, Port};
use crate::hw::xor_net::{self, Columns, XorNet, XorStyle};
use crate::math::gf2::AffineMap;

fn input_ports(b: &RsCrcBlock, design: &DesignInfo, seq_doc: &str) -> Vec<Port> {
    let mut ports = Vec::new();
    if b.pipeline > 0 {
        ports.extend(clock_ports(design));
        ports.push(Port::input("in_valid", 1, "data (and seq) valid this cycle"));
    }
    ports.push(Port::input("data", b.data_bits(), "message; byte i at [8i+7:8i], byte 0 first on the wire"));
    if b.seq_bits > 0 {
        ports.push(Port::input("seq", b.seq_bits, seq_doc));
    }
    ports
}

/// The network input: `data`, or `{seq, data}` (the model's column order: data bits, then seq).
fn reset_of(b: &RsCrcBlock, design: &DesignInfo) -> Option<crate::info::ResetStyle> {
    (b.pipeline > 0).then_some(design.reset)
}

/// Where each coefficient sits: the documentation the issue asks for.
pub fn notes(b: &RsCrcBlock, model: &RsCrc) -> Vec<String> {
    let m = b.symbol_bits;
    let (k, c) = (b.data_symbols(), b.root_count);
    let f = model.field();
    let roots = if c == 1 { format!("α^{}", b.first_root) } else { format!("α^{}..α^{}", b.first_root, b.first_root + c - 1) };
    let mut n = vec![format!(
        "crc = remainder of data(x)·x^{c} mod g(x), g(x) = Π (x + α^i) over the {c} roots {roots}, α a root of the field polynomial 0x{:X} (GF(2^{m})); the map is linear over GF(2) and emitted as an XOR network.",
        f.poly()
    )];
    let symbols = if m == 8 { "data byte i is symbol i".to_string() } else { format!("data is cut into {k} symbols of {m} bits LSB first (symbol s = data[{m}s+{}:{m}s], the last zero-padded at the top)", m - 1) };
    n.push(format!("Symbols: {symbols}; crc symbol j is crc[{m}j+{}:{m}j].", m - 1));
    n.push(match b.orientation {
        Orientation::MsbFirst => format!(
            "Orientation msb_first: data symbol 0 is the highest-degree coefficient (x^{}) and data symbol {} the coefficient of x^{c}; crc symbol 0 is the highest remainder coefficient (x^{}) and crc symbol {} the coefficient of x^0. Sent as flit bytes 0..{} followed by crc symbol j at flit byte {}+j, the whole is a codeword of the shortened RS code in transmission order, highest degree first.",
            k + c - 1,
            k - 1,
            c - 1,
            c - 1,
            b.data_bytes - 1,
            b.data_bytes
        ),
        Orientation::LsbFirst => format!(
            "Orientation lsb_first: data symbol 0 is the coefficient of x^{c} and data symbol {} the highest (x^{}); crc symbol j is the remainder coefficient of x^j. With crc symbol j at flit byte {}+j, the codeword read from the highest degree down is flit bytes {}, …, 0, then {}, …, {}.",
            k - 1,
            k + c - 1,
            b.data_bytes,
            b.data_bytes - 1,
            b.data_bytes + c - 1,
            b.data_bytes
        ),
    });
    let map: Vec<String> = b.bit_map.iter().map(u8::to_string).collect();
    n.push(match b.bit_order {
        super::BitOrder::Lsb0 => "Bit order lsb0: bus bit b of every symbol is the coefficient of α^b.".to_string(),
        super::BitOrder::Msb0 => format!("Bit order msb0: bus bit {}-b of every symbol (data and crc alike) is the coefficient of α^b: each byte is read MSB first.", m - 1),
        super::BitOrder::BurstOptimal => format!(
            "Bit order burst_optimal: the coefficient of α^b is bus bit bit_map[b] = [{}][b] of every symbol (data and crc alike), the first bit permutation in lexicographic order with the longest guaranteed burst detection.",
            map.join(", ")
        ),
    });
    if b.seq_bits > 0 {
        n.push(format!(
            "ISN (RXL paper §7.3): crc = CRC(data ^ {{{}'b0, seq}}); the sender's sequence number is never transmitted, and a receiver checking with its expected number sees a dropped or replayed flit as a CRC error.",
            b.data_bits() - b.seq_bits
        ));
    }
    n.push(format!(
        "Detection: data plus crc form a shortened RS codeword ({} of at most {} symbols), so any error confined to ≤ {c} symbols is detected; with this orientation and bit order so is every burst of ≤ {} data bits (data bit k = byte k/8 bit k%8).",
        k + c,
        f.order(),
        model.guaranteed_burst_bits()
    ));
    n
}

fn crc_map(model: &RsCrc) -> AffineMap {
    affine_of_masks(&model.affine_columns())
}

pub fn generator(b: &RsCrcBlock, model: &RsCrc, design: &DesignInfo, name: &str) -> GeneratedModule {
    let w = b.crc_bits();
    let mut ports = input_ports(b, design, "sequence number XORed into data[seq_bits-1:0] (ISN)");
    ports.push(Port::output("crc", w, "check symbols; symbol j at [m*j+m-1:m*j]"));
    if b.pipeline > 0 {
        ports.push(Port::output("out_valid", 1, "crc valid; in_valid delayed by the latency"));
    }
    let mut items = Vec::new();
    let map = crc_map(model);
    let (parts, input) = xor_net::isn_columns(b.data_bits(), b.seq_bits);
    items.push(Item::comment(&format!("crc = M·{input} over GF(2): {}.", XorStyle::SHARED.how(b.pipeline))));
    xor_net::emit(&mut items, &XorNet { name: "crc", input: Columns::Parts(&parts), map: &map, style: XorStyle::SHARED }, "crc", b.pipeline);
    if b.pipeline > 0 {
        xor_net::emit_valid_pipe(&mut items, "valid_pipe", "in_valid", "out_valid", b.pipeline);
    }
    items.extend(super::props::generator(b, model));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: reset_of(b, design) },
        latency: b.pipeline,
        summary: format!(
            "{}-symbol CRC over GF(2^{}) ({} bits) of a {}-byte message in one cycle{}.",
            b.root_count,
            b.symbol_bits,
            w,
            b.data_bytes,
            if b.seq_bits > 0 { format!(", with a {}-bit implicit sequence number", b.seq_bits) } else { String::new() }
        ),
        notes: notes(b, model),
        role: Role::Crc,
        origin: None,
    }
}

/// Syndrome `CRC(data, seq) ^ crc_in` with `crc_in` as extra identity columns; ok = ~|syndrome.
pub fn checker(b: &RsCrcBlock, model: &RsCrc, design: &DesignInfo, name: &str) -> GeneratedModule {
    let w = b.crc_bits();
    let mut ports = input_ports(b, design, "the receiver's expected sequence number (ISN)");
    ports.push(Port::input("crc_in", w, "received check symbols"));
    ports.push(Port::output("ok", 1, "1 iff crc_in equals the CRC of data (with seq)"));
    if b.pipeline > 0 {
        ports.push(Port::output("out_valid", 1, "ok valid; in_valid delayed by the latency"));
    }
    let mut items = Vec::new();
    xor_net::emit_crc_checker(&mut items, &crc_map(model), b.data_bits(), b.seq_bits, XorStyle::SHARED, b.pipeline, &format!("syndrome = M·{{seq, data}} ^ crc_in: {}.", XorStyle::SHARED.how(b.pipeline)));
    items.extend(super::props::checker(b, model));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: reset_of(b, design) },
        latency: b.pipeline,
        summary: format!(
            "Checks a {}-symbol CRC over GF(2^{}) of a {}-byte message{}: ok = 1 iff crc_in matches.",
            b.root_count,
            b.symbol_bits,
            b.data_bytes,
            if b.seq_bits > 0 { " against the expected sequence number" } else { "" }
        ),
        notes: notes(b, model),
        role: Role::CrcCheck,
        origin: None,
    }
}

#[cfg(test)]
mod tests {
    use crate::blocks::rs_crc::{model::RsCrc, RsCrcBlock};
    use crate::config::Design;
    use crate::hw::eval::{Bits, Sim};

    use crate::math::splitmix::SplitMix64 as Rng;

    fn design(fields: &str) -> Design {
        let text = format!("[design]\nname = \"t\"\nreset = \"async_low\"\n[[blocks]]\nkind = \"rs_crc\"\nname = \"c\"\n{fields}\n");
        Design::parse(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"))
    }

    fn block(d: &Design) -> &RsCrcBlock {
        d.blocks[0].as_any().downcast_ref::<RsCrcBlock>().expect("rs_crc block")
    }

    /// Drive the generated generator and checker (evaluated from the Verilog tree) with random
    /// messages, pipelined cycle by cycle, and compare with the model.
    fn check_against_model(fields: &str, trials: usize) {
        let d = design(fields);
        let b = block(&d);
        let model: RsCrc = b.model();
        let mods = d.blocks[0].modules(&d.info);
        assert_eq!(mods.len(), if b.checker { 2 } else { 1 });
        let mut rng = Rng::new(u64::from(b.data_bytes) * 31 + u64::from(b.seq_bits));
        let mut gen = Sim::new(&mods[0].module);
        let mut chk = mods.get(1).map(|m| Sim::new(&m.module));
        let p = b.pipeline as usize;
        let mut history: Vec<(Vec<u8>, bool, bool)> = Vec::new();
        if p > 0 {
            gen.set_u64("rst_n", 0);
            gen.clock();
            gen.set_u64("rst_n", 1);
            if let Some(c) = chk.as_mut() {
                c.set_u64("rst_n", 0);
                c.clock();
                c.set_u64("rst_n", 1);
            }
        }
        for t in 0..trials {
            let data = rng.bytes(b.data_bytes as usize);
            let seq = if b.seq_bits == 0 { 0 } else { rng.next_u64() & ((1u64 << b.seq_bits) - 1) };
            let expected = model.crc(&data, seq);
            let valid = t % 5 != 3;
            gen.set("data", &Bits::from_bytes_width(&data, b.data_bits() as usize));
            if b.seq_bits > 0 {
                gen.set_u64("seq", seq);
            }
            // The checker gets the right crc, or one with a flipped bit, or a wrong seq.
            let mut crc_in = expected.clone();
            let mut chk_seq = seq;
            let should_pass = match t % 3 {
                0 => true,
                1 => {
                    let bit = t % b.crc_bits() as usize;
                    crc_in[bit / 8] ^= 1 << (bit % 8);
                    crc_in == expected
                }
                _ => {
                    if b.seq_bits > 0 {
                        chk_seq ^= 1 << (t % b.seq_bits as usize);
                        false
                    } else {
                        true
                    }
                }
            };
            if let Some(c) = chk.as_mut() {
                c.set("data", &Bits::from_bytes_width(&data, b.data_bits() as usize));
                if b.seq_bits > 0 {
                    c.set_u64("seq", chk_seq);
                }
                c.set("crc_in", &Bits::from_bytes_width(&crc_in, b.crc_bits() as usize));
            }
            if p == 0 {
                gen.settle();
                assert_eq!(gen.get("crc").to_bytes(), expected, "trial {t}");
                if let Some(c) = chk.as_mut() {
                    c.settle();
                    assert_eq!(c.get_u64("ok") == 1, should_pass, "trial {t}");
                }
                continue;
            }
            gen.set_u64("in_valid", valid.into());
            gen.clock();
            if let Some(c) = chk.as_mut() {
                c.set_u64("in_valid", valid.into());
                c.clock();
            }
            history.push((expected, should_pass, valid));
            if history.len() >= p {
                let (exp, pass, v) = &history[history.len() - p];
                assert_eq!(gen.get_u64("out_valid") == 1, *v, "trial {t}");
                assert_eq!(&gen.get("crc").to_bytes(), exp, "trial {t}");
                if let Some(c) = chk.as_ref() {
                    assert_eq!(c.get_u64("ok") == 1, *pass, "trial {t}");
                }
            }
        }
    }

    #[test]
    fn pcie6_flit_crc_matches_the_model() {
        check_against_model("data_bytes = 242\nseq_bits = 10", 40);
        check_against_model("data_bytes = 242\nseq_bits = 10\norientation = \"lsb_first\"\nbit_order = \"msb0\"\npipeline = 2", 40);
        check_against_model("data_bytes = 242\nseq_bits = 10\nbit_order = \"burst_optimal\"", 40);
    }

    #[test]
    fn other_fields_and_widths_match_the_model() {
        check_against_model("symbol_bits = 10\nfield_poly = 0x409\nfirst_root = 0\nroot_count = 6\ndata_bytes = 40\nseq_bits = 7\npipeline = 1", 30);
        check_against_model("symbol_bits = 5\nfield_poly = 0x25\nfirst_root = 3\nroot_count = 3\ndata_bytes = 9\nchecker = false\nbit_order = \"burst_optimal\"", 30);
        check_against_model("data_bytes = 16\nroot_count = 4\nseq_bits = 32\norientation = \"lsb_first\"", 30);
    }

    #[test]
    fn modules_and_docs() {
        let d = design("data_bytes = 242\nseq_bits = 10");
        let mods = d.blocks[0].modules(&d.info);
        let names: Vec<&str> = mods.iter().map(|m| m.name()).collect();
        assert_eq!(names, ["t_c", "t_c_check"]);
        let ports: Vec<(&str, u32)> = mods[1].ports().iter().map(|p| (p.name.as_str(), p.width)).collect();
        assert_eq!(ports, [("data", 1936), ("seq", 10), ("crc_in", 64), ("ok", 1)]);
        let notes = mods[0].notes.join("\n");
        assert!(notes.contains("data symbol 0 is the highest-degree coefficient (x^249)"), "{notes}");
        assert!(notes.contains("crc symbol j at flit byte 242+j"), "{notes}");
        let text = mods[0].module.render();
        assert!(!text.contains(" ^ data"), "no XOR chains");
        assert!(notes.contains("so is every burst of ≤ 62 data bits"), "{notes}");
        let d = design("data_bytes = 242\nseq_bits = 10\nbit_order = \"burst_optimal\"");
        assert_eq!(block(&d).bit_map, [0, 4, 7, 6, 1, 5, 2, 3]);
        let notes = d.blocks[0].modules(&d.info)[0].notes.join("\n");
        assert!(notes.contains("every burst of ≤ 64 data bits") && notes.contains("[0, 4, 7, 6, 1, 5, 2, 3]"), "{notes}");
    }
}
