//! `rs_fec` fields: the CXL and streaming forms' defaults, and bad fields refused with an error
//! naming the block, the field, the value and the allowed range.

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;
#[path = "support/param_texts.rs"]
mod param_texts;
use param_texts::texts;

const HEADER: &str = "[design]\nname = \"t\"\n";

fn rs_fec(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"rs_fec\"\nname = \"f\"\n{fields}\n")
}

const KP4: &str = "symbol_bits = 10\nfield_poly = 0x409\ncheck_symbols = 30\nmsg_symbols = 514";

#[test]
fn rs_fec_cxl_layouts_parse() {
    for fields in ["ways = 3\nmsg_bytes = 250", "layout = \"pcie6\"", "layout = \"pcie6\"\nways = 3\nmsg_bytes = 250\nfield_poly = 0x11D"] {
        let d = Design::parse(&rs_fec(fields), "good.toml").expect("valid");
        let names = d.blocks[0].module_names(&d.info);
        assert_eq!(names, ["t_f_enc", "t_f_dec"]);
        let mods = d.blocks[0].modules(&d.info);
        let widths: Vec<(&str, u32)> = mods[1].ports().iter().map(|p| (p.name.as_str(), p.width)).collect();
        assert_eq!(widths, [("cw", 2048), ("msg", 2000), ("corrected", 1), ("uncorrectable", 1), ("way_corrected", 3), ("way_uncorrectable", 3)]);
    }
}

#[test]
fn rs_fec_non_primitive_field_poly() {
    refused(&rs_fec("field_poly = 0x11B\nways = 3\nmsg_bytes = 250"), &["block `f`", "`field_poly`", "0x11B", "not primitive"]);
    refused(&rs_fec("symbol_bits = 10\nfield_poly = 0x11D\nmsg_symbols = 20"), &["`field_poly`", "0x11D", "degree"]);
}

#[test]
fn rs_fec_message_too_long_for_the_field() {
    refused(&rs_fec("msg_bytes = 254"), &["block `f`", "`msg_bytes`", "254", "255", "1..=253"]);
    refused(&rs_fec("ways = 3\ncheck_symbols = 4\nmsg_bytes = 760"), &["`msg_bytes`", "760", "3..=753"]);
    refused(&rs_fec("symbol_bits = 4\nfield_poly = 0x13\nmsg_symbols = 14"), &["`msg_symbols`", "14", "15", "1..=13"]);
}

#[test]
fn rs_fec_pcie6_with_incompatible_fields() {
    refused(&rs_fec("layout = \"pcie6\"\nways = 4"), &["block `f`", "`ways`", "= 4", "pcie6", "allowed 3"]);
    refused(&rs_fec("layout = \"pcie6\"\nmsg_bytes = 242"), &["`msg_bytes`", "242", "allowed 250"]);
    refused(&rs_fec("layout = \"pcie6\"\nfield_poly = 0x12B"), &["`field_poly`", "0x12B", "allowed 0x11D"]);
    refused(&rs_fec("layout = \"pcie6\"\ncheck_symbols = 4"), &["`check_symbols`", "= 4", "allowed 2"]);
}

#[test]
fn rs_fec_check_symbols_and_message_fields() {
    refused(&rs_fec("check_symbols = 3\nmsg_bytes = 10"), &["`check_symbols`", "= 3", "even"]);
    refused(&rs_fec("symbol_bits = 10\nfield_poly = 0x409\nmsg_bytes = 100"), &["`msg_bytes`", "symbol_bits = 8", "msg_symbols"]);
    refused(&rs_fec("ways = 3"), &["`msg_bytes`", "required"]);
    refused(&rs_fec("ways = 4\nmsg_bytes = 3"), &["`msg_bytes`", "= 3", "ways = 4"]);
    refused(&rs_fec("layout = \"interleaved\"\nmsg_bytes = 3"), &["`layout`", "interleaved", "\"generic\", \"pcie6\""]);
}

#[test]
fn rs_fec_pipeline_beyond_the_decoder() {
    refused(&rs_fec("msg_bytes = 10\npipeline = 5"), &["block `f`", "`pipeline`", "= 5", "0..=4"]);
    refused(&rs_fec("layout = \"pcie6\"\npipeline = 6"), &["`pipeline`", "= 6", "0..=4"]);
    refused(&rs_fec("check_symbols = 4\nmsg_bytes = 10\npipeline = 13"), &["`pipeline`", "= 13", "t = 2", "0..=12"]);
}

#[test]
fn rs_fec_symbols_per_cycle_range() {
    refused(&rs_fec(&format!("{KP4}\nsymbols_per_cycle = 545")), &["block `f`", "`symbols_per_cycle`", "545", "1..=544"]);
    refused(&rs_fec(&format!("{KP4}\nsymbols_per_cycle = 0")), &["block `f`", "`symbols_per_cycle`", "0", "1..="]);
    refused(&rs_fec("ways = 3\nmsg_bytes = 250\nsymbols_per_cycle = 32"), &["block `f`", "`symbols_per_cycle`", "32", "ways = 1", "256"]);
    refused(&rs_fec("layout = \"pcie6\"\nsymbols_per_cycle = 32"), &["block `f`", "`symbols_per_cycle`", "32", "generic", "256"]);
    refused(&rs_fec(&format!("{KP4}\nser_window = 100")), &["block `f`", "`ser_window`", "100", "streaming", "symbols_per_cycle"]);
    refused(&rs_fec(&format!("{KP4}\nsymbols_per_cycle = 32\ncounter_bits = 2")), &["block `f`", "`counter_bits`", "2", "4..=48"]);
    refused(&rs_fec(&format!("{KP4}\nsymbols_per_cycle = 32\nser_window = 0")), &["block `f`", "`ser_window`", "1..="]);
}

#[test]
fn rs_fec_streaming_defaults_and_whole_codeword_equivalence() {
    // P = N is the whole-codeword form, byte for byte.
    let whole = Design::parse(&rs_fec(KP4), "a.toml").expect("valid");
    let same = Design::parse(&rs_fec(&format!("{KP4}\nsymbols_per_cycle = 544")), "b.toml").expect("valid");
    assert_eq!(whole.blocks[0].typed_params(), same.blocks[0].typed_params());
    let d = Design::parse(&rs_fec(&format!("{KP4}\nsymbols_per_cycle = 32")), "c.toml").expect("valid");
    let params = texts(&*d.blocks[0]);
    for (k, v) in [("symbols_per_cycle", "32"), ("ser_threshold", "6380"), ("ser_window", "8192"), ("counter_bits", "32")] {
        assert!(params.contains(&(k, v.to_string())), "{k} = {v} in {params:?}");
    }
    let kr4 = Design::parse(&rs_fec("symbol_bits = 10\nfield_poly = 0x409\ncheck_symbols = 14\nmsg_symbols = 514\nsymbols_per_cycle = 33"), "d.toml").expect("valid");
    assert!(texts(&*kr4.blocks[0]).contains(&("ser_threshold", "417".to_string())));
    let mods = d.blocks[0].modules(&d.info);
    assert_eq!(mods[0].latency, 2, "the streaming encoder: input stage and output register");
    assert_eq!(mods[1].latency, 72, "KP4 at P = 32: 2·17 + 30 (two RiBM solvers at one iteration per clock) + 8 Chien/Forney stages; Intel's bound is 57");
    let ports: Vec<&str> = mods[1].ports().iter().map(|p| p.name.as_str()).collect();
    for p in ["in_tvalid", "in_tready", "in_tdata", "in_tlast", "out_tvalid", "out_tready", "out_tdata", "out_tlast", "bypass_correction", "bypass_indication", "out_corrected", "out_uncorrectable", "corrected_symbols", "corrected_bits", "uncorrectable_codewords", "ser_alarm"] {
        assert!(ports.contains(&p), "{p} in {ports:?}");
    }
}
