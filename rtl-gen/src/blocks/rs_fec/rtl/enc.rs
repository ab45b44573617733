//! The encoder `<prefix><name>_enc`: cw = {check, msg}, the check symbols one XOR network
//! probed from the model ([`FlitFec::affine_columns`]), so it is the model's map by construction.

use super::model::FlitFec;
use super::{latency_note, layout_notes, RsFecBlock};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::gf_net::affine_of_masks;
use crate::hw::pipe::Pipe;
use crate::hw::verilog::{Expr, Item, Module, Port};
use crate::hw::xor_net::{self, Columns, XorNet, XorStyle};

/// Register stages inside an XOR network: enough to halve its depth twice without the line
/// count of finer partial parities.
pub const MAX_NET_STAGES: u32 = 2;

pub fn module(b: &RsFecBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let stages = b.enc_stages;
    let (msg_bits, cw_bits) = (b.msg_bits(), b.cw_bits());
    let check_bits = cw_bits - msg_bits;
    let unit = if b.symbol_bits == 8 { "byte i at [8i+7:8i]".to_string() } else { format!("symbol i at [{m}i+{}:{m}i]", b.symbol_bits - 1, m = b.symbol_bits) };
    let mut ports = Vec::new();
    if stages > 0 {
        ports.extend(clock_ports(design));
        ports.push(Port::input("in_valid", 1, "msg valid this cycle"));
    }
    ports.push(Port::input("msg", msg_bits, &format!("message; {unit}, symbol 0 first on the wire")));
    ports.push(Port::output("cw", cw_bits, &format!("codeword: msg unchanged in [{}:0], check symbols above", msg_bits - 1)));
    if stages > 0 {
        ports.push(Port::output("out_valid", 1, "cw valid; in_valid delayed by the latency"));
    }
    let map = affine_of_masks(&b.model().affine_columns());
    let mut pipe = Pipe::new();
    pipe.define("msg", msg_bits, 0);
    pipe.items.push(Item::comment("check = M·msg over GF(2): the model's encoder probed on unit vectors, one masked parity per check bit."));
    pipe.items.push(Item::wire("check", check_bits, "check symbols, cw bits above the message"));
    // At most two stages inside the network (partial parities, then the check bits); further
    // stages only delay the codeword.
    let net_stages = stages.min(MAX_NET_STAGES);
    xor_net::emit(&mut pipe.items, &XorNet { name: "check", input: Columns::One("msg"), map: &map, style: XorStyle::Masked }, "check", net_stages);
    pipe.define("check", check_bits, net_stages);
    pipe.advance(stages);
    let (check, msg) = (pipe.expr("check"), pipe.expr("msg"));
    pipe.items.push(Item::assign(Expr::id("cw"), Expr::Concat(vec![check, msg])));
    let mut items = pipe.finish();
    if stages > 0 {
        xor_net::emit_valid_pipe(&mut items, "valid_pipe", "in_valid", "out_valid", stages);
    }
    items.extend(super::props::encoder(b));
    let mut notes = layout_notes(b);
    notes.push(latency_note(stages));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: (stages > 0).then_some(design.reset) },
        latency: stages,
        summary: format!(
            "Reed-Solomon encoder, {} layout: {} message symbols of {} bits → {}-symbol codeword ({} way(s), {} check symbols each, t = {}).",
            if b.layout == super::Layout::Pcie6 { "PCIe 6.0 flit" } else { "generic interleaved" },
            b.flit_msg_symbols,
            b.symbol_bits,
            b.cw_symbols(),
            b.ways,
            b.check_symbols,
            b.t()
        ),
        notes,
        role: Role::FecEnc,
        origin: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::FlitFec;
    use super::super::test_support::{block, design, message, Rng};
    use crate::hw::eval::{Bits, Sim};

    fn check(fields: &str, trials: usize) {
        let d = design(fields, "sync_high");
        let b = block(&d);
        let model = b.model();
        let mods = d.blocks[0].modules(&d.info);
        assert_eq!(mods[0].name(), "t_f_enc");
        let mut sim = Sim::new(&mods[0].module);
        let mut rng = Rng::new(u64::from(b.flit_msg_symbols));
        let p = b.enc_stages as usize;
        let mut expected = Vec::new();
        if p > 0 {
            sim.set_u64("rst", 1);
            sim.clock();
            sim.set_u64("rst", 0);
        }
        for t in 0..trials {
            let msg = message(&mut rng, b);
            let cw = model.encode(&msg);
            sim.set("msg", &Bits::from_bytes_width(&msg, b.msg_bits() as usize));
            if p == 0 {
                sim.settle();
                assert_eq!(sim.get("cw").to_bytes(), cw, "trial {t}");
                continue;
            }
            sim.set_u64("in_valid", (t % 4 != 1).into());
            sim.clock();
            expected.push((cw, t % 4 != 1));
            if expected.len() >= p {
                let (cw, v) = &expected[expected.len() - p];
                assert_eq!(&sim.get("cw").to_bytes(), cw, "trial {t}");
                assert_eq!(sim.get_u64("out_valid") == 1, *v);
            }
        }
    }

    #[test]
    fn cxl_encoders_match_the_models() {
        check("ways = 3\nmsg_bytes = 250", 20);
        check("layout = \"pcie6\"", 20);
        check("layout = \"pcie6\"\npipeline = 3", 20);
    }

    #[test]
    fn other_codes_match_the_models() {
        check("symbol_bits = 10\nfield_poly = 0x409\ncheck_symbols = 4\nways = 2\nmsg_symbols = 30\npipeline = 1", 20);
        check("symbol_bits = 5\nfield_poly = 0x25\nfcr = 3\ncheck_symbols = 4\nmsg_symbols = 13\nways = 3", 20);
        check("symbol_bits = 10\nfield_poly = 0x409\ncheck_symbols = 14\nmsg_symbols = 514\npipeline = 4", 8);
    }

    #[test]
    fn encoder_depth_is_its_own_when_asked() {
        // A KR4 block whose decoder takes 8 stages, the encoder 1 or none.
        let kr4 = "symbol_bits = 10\nfield_poly = 0x409\ncheck_symbols = 14\nmsg_symbols = 514\npipeline = 8";
        check(&format!("{kr4}\nenc_pipeline = 1"), 8);
        check(&format!("{kr4}\nenc_pipeline = 0"), 4);
        check(&format!("{kr4}\nenc_pipeline = 3"), 8);
        let d = design(&format!("{kr4}\nenc_pipeline = 2"), "sync_high");
        let mods = d.blocks[0].modules(&d.info);
        assert_eq!((mods[0].latency, mods[1].latency), (2, 8), "encoder, decoder latency");
        assert!(d.blocks[0].typed_params().contains(&("enc_pipeline", 2.into())), "the header names the override");
        // Without the field the encoder follows `pipeline`, as before, and the header is unchanged.
        let d = design(kr4, "sync_high");
        assert_eq!(d.blocks[0].modules(&d.info)[0].latency, 8);
        assert!(d.blocks[0].typed_params().iter().all(|(k, _)| *k != "enc_pipeline"));
    }
}
