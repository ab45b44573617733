//! Bad design files: each must be refused with an error naming the block, the field, the value
//! and the allowed range, never a panic or silently wrong RTL.

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;

const HEADER: &str = "[design]\nname = \"t\"\n";

fn block(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{fields}\n")
}

fn stream(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"crc_stream\"\nname = \"s\"\n{fields}\n")
}

const GOOD: &str = "width = 32\npoly = 0x04C11DB7\ndata_bits = 72";

#[test]
fn a_good_design_parses() {
    let d = Design::parse(&block(GOOD), "good.toml").expect("valid");
    assert_eq!(d.info.prefix, "t_");
    assert_eq!(d.blocks.len(), 1);
}

#[test]
fn width_out_of_range() {
    refused(&block("width = 65\npoly = 1\ndata_bits = 8"), &["block `c`", "`width`", "65", "1..=64"]);
}

#[test]
fn width_zero() {
    refused(&block("width = 0\npoly = 1\ndata_bits = 8"), &["`width`", "= 0", "1..=64"]);
}

#[test]
fn poly_wider_than_width() {
    refused(&block("width = 8\npoly = 0x1D5\ndata_bits = 8"), &["block `c`", "`poly`", "0x1D5", "0..=0xFF (8 bits)"]);
}

#[test]
fn poly_not_a_number() {
    refused(&block("width = 8\npoly = \"0xG7\"\ndata_bits = 8"), &["`poly`", "\"0xG7\"", "not a number"]);
}

#[test]
fn poly_zero() {
    refused(&block("width = 8\npoly = 0\ndata_bits = 8"), &["`poly`", "0x0", "0x1..=0xFF"]);
}

#[test]
fn data_bits_not_byte_multiple() {
    refused(&block("width = 32\npoly = 0x04C11DB7\ndata_bits = 70"), &["`data_bits`", "70", "multiple of 8"]);
}

#[test]
fn data_bits_too_large() {
    refused(&block("width = 32\npoly = 0x04C11DB7\ndata_bits = 16392"), &["`data_bits`", "16392", "8..=16384"]);
}

#[test]
fn seq_bits_out_of_range() {
    refused(&block(&format!("{GOOD}\nseq_bits = 33")), &["`seq_bits`", "33", "0..=32"]);
}

#[test]
fn seq_bits_wider_than_message() {
    refused(&block("width = 8\npoly = 7\ndata_bits = 8\nseq_bits = 10"), &["`seq_bits`", "10", "data_bits = 8", "0..=8"]);
}

#[test]
fn unknown_field() {
    refused(&block(&format!("{GOOD}\npolynomial = 5")), &["block `c`", "`polynomial`", "not a field of kind crc", "poly"]);
}

#[test]
fn missing_required_field() {
    refused(&block("width = 32\npoly = 0x04C11DB7"), &["block `c`", "`data_bits`", "required", "8..=16384"]);
}

#[test]
fn wrong_type_for_bool() {
    refused(&block(&format!("{GOOD}\nrefin = \"yes\"")), &["`refin`", "\"yes\"", "true or false"]);
}

#[test]
fn negative_init() {
    refused(&block(&format!("{GOOD}\ninit = -1")), &["`init`", "-1", "negative"]);
}

#[test]
fn pipeline_too_deep() {
    refused(&block(&format!("{GOOD}\npipeline = 9")), &["`pipeline`", "9", "0..=8"]);
}

#[test]
fn unknown_kind() {
    refused(&format!("{HEADER}[[blocks]]\nkind = \"crc9000\"\nname = \"x\"\n"), &["block `x`", "`kind`", "crc9000", "crc, crc_stream"]);
}

#[test]
fn duplicate_block_names() {
    let one = format!("[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\n");
    refused(&format!("{HEADER}{one}{one}"), &["block `c`", "already used by block #0"]);
}

#[test]
fn module_names_collide_through_suffix() {
    let a = format!("[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\n");
    let b = format!("[[blocks]]\nkind = \"crc\"\nname = \"c_check\"\n{GOOD}\n");
    refused(&format!("{HEADER}{a}{b}"), &["t_c_check", "collides"]);
}

#[test]
fn bad_block_name() {
    refused(&format!("{HEADER}[[blocks]]\nkind = \"crc\"\nname = \"My-CRC\"\n{GOOD}\n"), &["block #0", "`name`", "My-CRC", "lower snake case"]);
}

#[test]
fn bad_design_name() {
    refused("[design]\nname = \"9lives\"\n[[blocks]]\nkind = \"crc\"\nname = \"c\"\nwidth = 8\npoly = 7\ndata_bits = 8\n", &["[design]", "`name`", "9lives"]);
}

#[test]
fn bad_block_reset_style() {
    refused(&block(&format!("{GOOD}\nreset = \"async_high\"")), &["block `c`", "(kind crc)", "field `reset`", "async_high", "\"sync_high\"", "\"async_low\""]);
    refused(&block(&format!("{GOOD}\nreset = 1")), &["block `c`", "field `reset`", "not a string", "\"sync_high\"", "\"async_low\""]);
}

#[test]
fn a_block_reset_overrides_the_design_default() {
    let d = Design::parse(&format!("{HEADER}reset = \"async_low\"\n[[blocks]]\nkind = \"crc\"\nname = \"a\"\n{GOOD}\n[[blocks]]\nkind = \"crc\"\nname = \"b\"\nreset = \"sync_high\"\n{GOOD}\n"), "good.toml").expect("valid");
    use rtl_gen::config::ResetStyle;
    assert_eq!(d.resets, [ResetStyle::AsyncLow, ResetStyle::SyncHigh]);
    assert_eq!(d.block_info(1).reset, ResetStyle::SyncHigh);
}

#[test]
fn bad_reset_style() {
    refused(&format!("[design]\nname = \"t\"\nreset = \"async_high\"\n[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\n"), &["`reset`", "async_high", "sync_high", "async_low"]);
}

#[test]
fn clock_out_of_range() {
    refused(&format!("[design]\nname = \"t\"\nclock_mhz = 0.0\n[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\n"), &["`clock_mhz`", "0", "1..=2000"]);
}

#[test]
fn unknown_design_field() {
    refused(&format!("[design]\nname = \"t\"\nclk = 5\n[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\n"), &["bad.toml", "clk"]);
}

#[test]
fn no_blocks() {
    refused(HEADER, &["no [[blocks]]"]);
}

#[test]
fn toml_syntax_error() {
    refused("[design\nname = 1", &["bad.toml"]);
}

#[test]
fn stream_word_bytes_out_of_range() {
    refused(&stream("width = 32\npoly = 0x04C11DB7\nword_bytes = 129"), &["block `s`", "`word_bytes`", "129", "1..=128"]);
}

#[test]
fn stream_even_polynomial() {
    refused(&stream("width = 8\npoly = 0x06\nword_bytes = 4"), &["block `s`", "`poly`", "0x6", "x^0"]);
}

fn replay(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"replay_buffer\"\nname = \"rb\"\n{fields}\n")
}

#[test]
fn replay_buffer_good() {
    let d = Design::parse(&replay("entry_bits = 64\nseq_bits = 4\ndepth = 15"), "good.toml").expect("valid");
    assert_eq!(d.blocks[0].kind(), "replay_buffer");
}

#[test]
fn replay_depth_exceeds_sequence_space() {
    refused(&replay("entry_bits = 64\nseq_bits = 4\ndepth = 16"), &["block `rb`", "`depth`", "16", "2^seq_bits - 1 = 15", "2..=15"]);
}

#[test]
fn replay_depth_out_of_range() {
    refused(&replay("entry_bits = 64\nseq_bits = 16\ndepth = 5000"), &["block `rb`", "`depth`", "5000", "2..=4096"]);
    refused(&replay("entry_bits = 64\nseq_bits = 4\ndepth = 1"), &["`depth`", "= 1", "2..=4096"]);
}

#[test]
fn replay_seq_bits_out_of_range() {
    refused(&replay("entry_bits = 64\nseq_bits = 1\ndepth = 2"), &["block `rb`", "`seq_bits`", "= 1", "2..=16"]);
}

#[test]
fn replay_entry_bits_missing_or_zero() {
    refused(&replay("seq_bits = 4\ndepth = 8"), &["block `rb`", "`entry_bits`", "required", "1..=16384"]);
    refused(&replay("entry_bits = 0\nseq_bits = 4\ndepth = 8"), &["`entry_bits`", "= 0", "1..=16384"]);
}

#[test]
fn lut6_tree_with_pipeline() {
    refused(&block(&format!("{GOOD}\nxor_style = \"lut6_tree\"\npipeline = 2")), &["block `c`", "`xor_style`", "lut6_tree", "pipeline = 0"]);
}

#[test]
fn xor_window_narrower_than_a_lut() {
    refused(&block(&format!("{GOOD}\nxor_window = 5")), &["block `c`", "`xor_window`", "= 5", "0 (whole input) or 6..=16384"]);
}

#[test]
fn xor_window_too_wide() {
    refused(&block(&format!("{GOOD}\nxor_window = 16385")), &["`xor_window`", "16385", "0..=16384"]);
}

#[test]
fn xor_window_without_a_shared_network() {
    refused(&block(&format!("{GOOD}\nxor_style = \"masked\"\nxor_window = 0")), &["`xor_window`", "lut6_shared", "\"masked\""]);
    refused(&block(&format!("{GOOD}\npipeline = 1\nxor_window = 128")), &["`xor_window`", "pipeline = 0", "got 1"]);
}

#[test]
fn unknown_xor_style() {
    refused(&block(&format!("{GOOD}\nxor_style = \"wallace\"")), &["`xor_style`", "wallace", "\"masked\", \"lut6_tree\""]);
}

// --- rifl ---

fn rifl(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"rifl\"\nname = \"r\"\n{fields}\n")
}

fn rifl_params(fields: &str) -> rtl_gen::blocks::rifl::model::Params {
    let d = Design::parse(&rifl(fields), "rifl.toml").expect("valid rifl block");
    d.blocks[0].as_any().downcast_ref::<rtl_gen::blocks::rifl::RiflBlock>().expect("a rifl block").params
}

#[test]
fn rifl_defaults_and_derivations() {
    let p = rifl_params("");
    assert_eq!((p.frame_bits, p.frame_id_bits, p.crc_poly, p.user_bits, p.lanes), (256, 8, 0x80F, 256, 1));
    assert_eq!((p.fc_buffer_frames, p.fc_on_frames, p.fc_off_frames), (256, 170, 85));
    assert_eq!((p.retrans_threshold, p.control_repeat, p.scrambler), (16, 8, true));
    // Table 2 for each frame size.
    for (f, n) in [(128, 9), (512, 7), (1024, 6), (2048, 5)] {
        assert_eq!(rifl_params(&format!("frame_bits = {f}")).frame_id_bits, n);
    }
    // 10 m at 28 Gb/s: 2 x (100 + 50) ns = 33 frames of 256 bits; clog2(32 + 33) = 7.
    assert_eq!(rifl_params("cable_m = 10\nlane_gbps = 28").frame_id_bits, 7);
}

#[test]
fn rifl_frame_bits_not_a_frame_size() {
    refused(&rifl("frame_bits = 384"), &["block `r`", "`frame_bits`", "384", "128, 256, 512, 1024, 2048"]);
    refused(&rifl("frame_bits = 4096"), &["`frame_bits`", "4096", "128..=2048"]);
}

#[test]
fn rifl_crc_poly_without_hd4() {
    // x^12 + 1 misses the weight-2 pattern x^12 + 1 itself.
    refused(&rifl("crc_poly = 0x001"), &["block `r`", "`crc_poly`", "0x001", "weight 2", "HD", "0x80F"]);
    refused(&rifl("crc_poly = 0x1000"), &["`crc_poly`", "4096", "1..=4095"]);
}

#[test]
fn rifl_frame_id_space_too_small() {
    refused(&rifl("frame_id_bits = 4"), &["`frame_id_bits`", "= 4", "2 x retrans_threshold = 32", "5..=12"]);
    refused(&rifl("frame_id_bits = 6\ncable_m = 100\nlane_gbps = 100"), &["`frame_id_bits`", "= 6", "100 m at 100 Gb/s", "9..=12"]);
    refused(&rifl("cable_m = 500\nlane_gbps = 400\nframe_bits = 128"), &["`cable_m`", "500", "frames in flight"]);
}

#[test]
fn rifl_cable_needs_a_rate() {
    refused(&rifl("cable_m = 10"), &["`lane_gbps`", "is required when cable_m is given"]);
    refused(&rifl("lane_gbps = 25"), &["`cable_m`", "is required when lane_gbps is given"]);
}

#[test]
fn rifl_user_bits_and_lanes() {
    refused(&rifl("user_bits = 48"), &["`user_bits`", "48", "power of two"]);
    refused(&rifl("lanes = 17"), &["`lanes`", "17", "1..=16"]);
}

#[test]
fn rifl_flow_control_thresholds() {
    refused(&rifl("fc_buffer_frames = 64\nfc_on_frames = 20\nfc_off_frames = 30"), &["`fc_off_frames`", "30", "1..=19"]);
    refused(&rifl("fc_buffer_frames = 64\nfc_on_frames = 64"), &["`fc_on_frames`", "64", "1..=63"]);
    refused(&rifl("fc_buffer_frames = 2"), &["`fc_buffer_frames`", "= 2", "4..=65536"]);
    // 10 m at 100 Gb/s brings 118 frames per round trip: 300 - 200 = 100 frames above ON is short.
    refused(&rifl("cable_m = 10\nlane_gbps = 100\nfc_buffer_frames = 300\nfc_on_frames = 200\nfc_off_frames = 100"), &["`fc_buffer_frames`", "Eq. 20", "318"]);
}

#[test]
fn rifl_unknown_field() {
    refused(&rifl("retrans_treshold = 16"), &["block `r`", "`retrans_treshold`", "not a field of kind rifl", "retrans_threshold"]);
}

// --- rs_fec and rs_crc ---

fn rs_fec(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"rs_fec\"\nname = \"f\"\n{fields}\n")
}

fn rs_crc(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"rs_crc\"\nname = \"rc\"\n{fields}\n")
}

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
fn rs_crc_non_primitive_field_poly() {
    refused(&rs_crc("field_poly = 0x11B\ndata_bytes = 242"), &["block `rc`", "`field_poly`", "0x11B", "not primitive"]);
}

#[test]
fn rs_crc_data_too_long_for_the_field() {
    refused(&rs_crc("data_bytes = 248"), &["block `rc`", "`data_bytes`", "248", "255", "1..=247"]);
    refused(&rs_crc("data_bytes = 242\nfirst_root = 255"), &["`first_root`", "255", "0..=254"]);
}

#[test]
fn rs_crc_orientation_and_seq_bits() {
    refused(&rs_crc("data_bytes = 242\norientation = \"middle\""), &["`orientation`", "middle", "\"msb_first\", \"lsb_first\""]);
    refused(&rs_crc("data_bytes = 1\nseq_bits = 10"), &["`seq_bits`", "10", "0..=8"]);
    refused(&rs_crc("seq_bits = 10"), &["`data_bytes`", "required"]);
    refused(&rs_crc("symbol_bits = 10\nfield_poly = 0x409\ndata_bytes = 100\nbit_order = \"burst_optimal\""), &["`bit_order`", "burst_optimal", "symbol_bits = 8", "\"lsb0\", \"msb0\""]);
}

fn endpoint(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"rxl_endpoint\"\nname = \"ep\"\n{fields}\n")
}

#[test]
fn rxl_endpoint_defaults_parse() {
    let d = Design::parse(&endpoint(""), "good.toml").expect("every field has a default");
    assert_eq!(d.blocks[0].kind(), "rxl_endpoint");
    assert!(texts(&*d.blocks[0]).contains(&("mode", "rxl".to_string())));
}

#[test]
fn rxl_endpoint_bad_mode() {
    refused(&endpoint("mode = \"cxl\""), &["block `ep`", "`mode`", "\"cxl\"", "\"rxl\", \"cxl_baseline\""]);
}

#[test]
fn rxl_endpoint_bad_crc_and_fec() {
    refused(&endpoint("crc = \"crc32\""), &["block `ep`", "`crc`", "\"crc32\"", "\"rs_crc\", \"crc64\""]);
    refused(&endpoint("fec = \"kr4\""), &["`fec`", "\"kr4\"", "\"pcie6\", \"generic\""]);
}

#[test]
fn rxl_endpoint_replay_depth_beyond_sequence_space() {
    refused(&endpoint("replay_depth = 1024"), &["block `ep`", "`replay_depth`", "1024", "2..=1023"]);
}

#[test]
fn rxl_endpoint_ack_every_not_below_depth() {
    refused(&endpoint("replay_depth = 8\nack_every = 8"), &["block `ep`", "`ack_every`", "= 8", "replay_depth = 8", "1..=7"]);
}

#[test]
fn rxl_endpoint_replay_timeout_not_above_ack_timeout() {
    refused(&endpoint("ack_timeout = 100\nreplay_timeout = 100"), &["block `ep`", "`replay_timeout`", "= 100", "ack_timeout = 100", "101..=65535"]);
}

#[test]
fn rxl_switch_bad_fields() {
    let sw = |f: &str| format!("{HEADER}[[blocks]]\nkind = \"rxl_switch\"\nname = \"sw\"\n{f}\n");
    refused(&sw("fec = \"rs\""), &["block `sw`", "`fec`", "\"rs\"", "\"pcie6\", \"generic\""]);
    refused(&sw("counter_bits = 0"), &["block `sw`", "`counter_bits`", "= 0", "1..=64"]);
    refused(&sw("seq_bits = 10"), &["block `sw`", "`seq_bits`", "not a field of kind rxl_switch"]);
}

#[test]
fn rxl_module_names_collide_through_sub_modules() {
    // An endpoint `e` builds `t_e_crc`; a crc block named `e_crc` would overwrite it.
    let text = format!("{HEADER}[[blocks]]\nkind = \"rxl_endpoint\"\nname = \"e\"\n[[blocks]]\nkind = \"crc\"\nname = \"e_crc\"\n{GOOD}\n");
    refused(&text, &["t_e_crc", "collides"]);
}

// --- rs_fec streaming form ---

const KP4: &str = "symbol_bits = 10\nfield_poly = 0x409\ncheck_symbols = 30\nmsg_symbols = 514";

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
    assert_eq!(mods[1].latency, 57, "KP4 at P = 32: 2·17 + 15 + 5 + 3 popcount stages, within Intel's 57");
    let ports: Vec<&str> = mods[1].ports().iter().map(|p| p.name.as_str()).collect();
    for p in ["in_tvalid", "in_tready", "in_tdata", "in_tlast", "out_tvalid", "out_tready", "out_tdata", "out_tlast", "bypass_correction", "bypass_indication", "out_corrected", "out_uncorrectable", "corrected_symbols", "corrected_bits", "uncorrectable_codewords", "ser_alarm"] {
        assert!(ports.contains(&p), "{p} in {ports:?}");
    }
}

#[test]
fn vivado_part_defaults_and_is_validated() {
    let d = Design::parse(&block(GOOD), "good.toml").expect("valid");
    assert_eq!(d.info.vivado_part, "xcvu9p-flga2104-2L-e");
    let text = block(GOOD).replace("name = \"t\"\n", "name = \"t\"\nvivado_part = \"xc7a35tcpg236-1\"\n");
    assert_eq!(Design::parse(&text, "good.toml").expect("valid").info.vivado_part, "xc7a35tcpg236-1");
    for bad in ["", "lfe5u-85f", "xc7a35t", "xc7a35t cpg236-1", "xc7a35tcpg236-"] {
        let text = block(GOOD).replace("name = \"t\"\n", &format!("name = \"t\"\nvivado_part = \"{bad}\"\n"));
        refused(&text, &["`vivado_part`", &format!("\"{bad}\""), "xcvu9p-flga2104-2L-e"]);
    }
}

/// A round trip no frame ID width covers is refused on `cable_m` with what to change, never as
/// an empty range ("allowed 15..=12"), whether `frame_id_bits` is given or derived.
#[test]
fn rifl_round_trip_beyond_12_id_bits_names_what_to_change() {
    for fields in ["cable_m = 500\nlane_gbps = 1000\nframe_id_bits = 5", "cable_m = 500\nlane_gbps = 1000"] {
        let err = Design::parse(&rifl(fields), "rifl.toml").expect_err("no frame ID width covers it").to_string();
        assert!(err.contains("`cable_m`") && err.contains("change instead") && err.contains("cable_m at most") && err.contains("lane_gbps at most"), "{err}");
        assert!(!err.contains("15..=12"), "{err}");
        if fields.contains("frame_id_bits") {
            continue;
        }
        // The limits it names are the legal ends: each alone makes the design parse.
        let number_after = |what: &str| -> u32 { err.split(what).nth(1).and_then(|r| r.trim_start().split(|c: char| !c.is_ascii_digit()).next()).and_then(|n| n.parse().ok()).expect(what) };
        let (cable, rate) = (number_after("cable_m at most"), number_after("lane_gbps at most"));
        // (Other limits may still apply there, e.g. the flow-control buffer's Eq. 20.)
        let round_trip_refused = |f: String| Design::parse(&rifl(&f), "r").err().is_some_and(|e| e.to_string().contains("frame ID bits can name"));
        assert!(!round_trip_refused(fields.replace("cable_m = 500", &format!("cable_m = {cable}"))), "cable_m = {cable} still too long");
        assert!(!round_trip_refused(fields.replace("lane_gbps = 1000", &format!("lane_gbps = {rate}"))), "lane_gbps = {rate} still too fast");
        assert!(round_trip_refused(fields.replace("cable_m = 500", &format!("cable_m = {}", cable + 1))), "cable_m = {} fits too", cable + 1);
    }
}

/// The RIFL demo's top and testbench (`<node>_demo`, `<node>_demo_tb`) are module names of the
/// tree too: a block named so is refused instead of a second `module` of the same name.
#[test]
fn block_names_colliding_with_the_rifl_demo_are_refused() {
    let r = "[[blocks]]\nkind = \"rifl\"\nname = \"r\"\n";
    for name in ["r_demo", "r_demo_tb"] {
        let other = format!("[[blocks]]\nkind = \"crc\"\nname = \"{name}\"\n{GOOD}\nchecker = false\n");
        refused(&format!("{HEADER}{r}{other}"), &[&format!("t_{name}"), "collides", "FPGA demo", "block `r`"]);
        // Before the RIFL block as well.
        refused(&format!("{HEADER}{other}{r}"), &[&format!("t_{name}"), "collides"]);
    }
    // The demo belongs to the first RIFL block only: a second one's `_demo` name is free.
    let r2 = "[[blocks]]\nkind = \"rifl\"\nname = \"q\"\n";
    let free = format!("[[blocks]]\nkind = \"crc\"\nname = \"q_demo\"\n{GOOD}\nchecker = false\n");
    Design::parse(&format!("{HEADER}{r}{r2}{free}"), "ok.toml").expect("q_demo is no module of the tree");
}

/// Every module name the tree emits is distinct from every other, over designs where a
/// collision could only come from the demo or the FPGA wrapper.
#[test]
fn block_names_colliding_with_an_fpga_wrapper_are_refused() {
    let a = format!("[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{GOOD}\nchecker = false\n");
    let b = format!("[[blocks]]\nkind = \"crc\"\nname = \"c_fpga_wrap\"\n{GOOD}\nchecker = false\n");
    refused(&format!("{HEADER}{a}{b}"), &["t_c_fpga_wrap", "collides", "rtl-gen fpga"]);
}

/// Which RAM wrappers a design emits is known only once its modules are built, so every name of
/// a wrapper's form is refused as a block's module, whatever the shapes the design uses. Before
/// the check a CRC named `ram_1r1w_64x16` beside a replay buffer of 64-bit entries silently
/// replaced the buffer's RAM wrapper in the tree.
#[test]
fn block_names_of_the_ram_wrapper_form_are_refused() {
    let rb = "[[blocks]]\nkind = \"replay_buffer\"\nname = \"rb\"\nentry_bits = 64\nseq_bits = 4\ndepth = 15\n";
    for name in ["ram_1r1w_64x16", "ram_1r1w_async_8x4", "lutram_1r1w_1x2", "lutram_1r1w_async_640x1024"] {
        let c = format!("[[blocks]]\nkind = \"crc\"\nname = \"{name}\"\n{GOOD}\nchecker = false\n");
        refused(&format!("{HEADER}{rb}{c}"), &[&format!("t_{name}"), "RAM wrappers", "rename the block"]);
        refused(&format!("{HEADER}{c}"), &[&format!("t_{name}"), "RAM wrappers"]);
    }
    // Names that only look alike stay free.
    for name in ["ram_1r1w", "ram_1r1w_64x", "ram_1r1w_x16", "ram_1r1w_64x16_b", "myram_1r1w_8x8", "ram_2r1w_8x8"] {
        let c = format!("[[blocks]]\nkind = \"crc\"\nname = \"{name}\"\n{GOOD}\nchecker = false\n");
        Design::parse(&format!("{HEADER}{rb}{c}"), "ok.toml").unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// A `crc_stream` of one-byte beats has no padding to undo, so any polynomial works, even ones
/// without the x^0 term (which word_bytes > 1 refuses); its 1-bit `in_keep` is a scalar.
#[test]
fn stream_of_single_bytes_takes_an_even_polynomial() {
    let d = Design::parse(&stream("width = 8\npoly = 0x06\nword_bytes = 1"), "s.toml").expect("valid");
    let e = d.elaborate();
    let text = e.modules[0].module.render();
    assert!(!text.contains("in_keep["), "a 1-bit in_keep indexed:\n{text}");
}

/// A block's parameters as banners print them.
fn texts(b: &dyn rtl_gen::blocks::Block) -> Vec<(&'static str, String)> {
    rtl_gen::blocks::param_texts(b.kind(), &b.typed_params())
}
