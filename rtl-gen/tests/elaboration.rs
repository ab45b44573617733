//! The elaborated design: typed roles, own parameters, derived dependencies, shared modules, and
//! a manifest that describes its tree well enough to rebuild the design without the TOML.

use rtl_gen::config::Design;
use rtl_gen::error::ConfigError;
use rtl_gen::hw::module::Role;
use rtl_gen::output::tree::{self, Layout};
use std::path::{Path, PathBuf};

fn variants() -> Design {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("designs/rifl_variants.toml");
    Design::from_file(&path).expect("rifl_variants.toml is valid")
}

fn manifest_of(design: Design) -> (String, rtl_gen::elab::Elaborated) {
    let elab = design.elaborate();
    let set = tree::build(&elab, Layout::default_design(Path::new("x")));
    let json = set.files.get(&PathBuf::from("x/generated/manifest.json")).expect("manifest in the file set");
    (String::from_utf8(json.clone()).expect("utf-8"), elab)
}

#[test]
fn a_tree_rebuilds_its_design_from_the_manifest() {
    for design in [Design::builtin_default(), variants()] {
        let name = design.info.name.clone();
        let (json, elab) = manifest_of(design);
        let back = Design::from_manifest(&json, "manifest.json").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back.info, elab.design.info, "{name}: [design]");
        assert_eq!(back.hash, elab.design.hash, "{name}: hash");
        assert_eq!(back.blocks.len(), elab.design.blocks.len());
        for (a, b) in back.blocks.iter().zip(&elab.design.blocks) {
            assert_eq!((a.name(), a.kind(), a.typed_params()), (b.name(), b.kind(), b.typed_params()), "{name}: block {}", b.name());
        }
        // And the rebuilt design generates the same tree, byte for byte.
        let (again, _) = manifest_of(back);
        assert_eq!(again, json, "{name}: manifest of the rebuilt design");
    }
}

#[test]
fn identical_internal_modules_are_emitted_once_and_tops_keep_their_names() {
    let elab = Design::builtin_default().elaborate();
    let dec = elab.module("rxl_ep", Role::FecDec).expect("rxl_ep has a FEC decoder");
    // The pcie6 t = 1 decoder is one module for both endpoints; the switch pipelines its own.
    assert_eq!(elab.module("cxl_ep", Role::FecDec).map(|m| m.name()), Some(dec.name()));
    assert_eq!(elab.module("rxl_sw", Role::FecDec).map(|m| m.name()), Some("rtlgen_rxl_sw_fec_dec"));
    let names: Vec<&str> = elab.modules.iter().map(|m| m.name()).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "module names are unique");
    // The generic-layout decoder inside rxl_ep_alt has the endpoint's receive stages, so it is
    // its own module, not the standalone (combinational) cxl_fec block's decoder.
    assert_eq!(elab.module("rxl_ep_alt", Role::FecDec).map(|m| m.name()), Some("rtlgen_rxl_ep_alt_fec_dec"));
    // Tops keep their names and are not merged away.
    for top in ["rtlgen_rifl", "rtlgen_rifl4", "rtlgen_rxl_ep", "rtlgen_cxl_ep", "rtlgen_rxl_sw_link_rx", "rtlgen_rxl_sw_link_tx", "rtlgen_cxl_fec_dec", "rtlgen_crc32"] {
        assert!(names.contains(&top), "{top} is emitted");
    }
    // The RIFL frame encoder is a top (the transmitter computes its function in its own
    // network) but only a part of a node: both nodes' lanes have the same parameters, so one
    // encoder file serves both blocks.
    let enc = elab.module("rifl", Role::FrameEncode).expect("rifl has a frame encoder");
    assert!(enc.top, "nothing instantiates the frame encoder");
    assert_eq!(elab.module("rifl4", Role::FrameEncode).map(|m| m.name()), Some(enc.name()));
    assert!(!names.contains(&"rtlgen_rifl4_encode"));
    // No two remaining modules have the same kind, role, parameters and body.
    for (i, a) in elab.modules.iter().enumerate() {
        for b in &elab.modules[i + 1..] {
            let mergeable = |m: &rtl_gen::elab::ElabModule| !m.top || m.role.is_node_part();
            if a.kind == b.kind && a.role == b.role && a.params == b.params && mergeable(a) && mergeable(b) {
                let (mut x, mut y) = (a.module.clone(), b.module.clone());
                x.name.clear();
                y.name.clear();
                assert_ne!(x.render(), y.render(), "{} and {} are identical", a.name(), b.name());
            }
        }
    }
}

#[test]
fn fec_encoders_and_decoders_carry_only_their_own_parameters_and_are_shared() {
    use rtl_gen::blocks::rs_fec::{RsFecEncParams, RsFecParams};
    let elab = Design::builtin_default().elaborate();
    // The switch's encoder (2 stages, its decoder 4) is the standalone pcie6 block's (2 and 3).
    let enc = elab.module("cxl_fec_pcie6", Role::FecEnc).expect("pcie6 encoder");
    assert_eq!(elab.module("rxl_sw", Role::FecEnc).map(|m| m.name()), Some(enc.name()), "the switch uses the standalone encoder");
    assert!(!elab.modules.iter().any(|m| m.name() == "rtlgen_rxl_sw_fec_enc"), "no second copy");
    let p: RsFecEncParams = enc.params().expect("encoder parameters");
    assert_eq!(p.pipeline, 2);
    let keys: Vec<&str> = enc.params.iter().map(|(k, _)| *k).collect();
    assert!(!keys.contains(&"enc_pipeline"), "an encoder lists its stages as pipeline: {keys:?}");
    assert_eq!(p.block("model").expect("valid").enc_stages, 2, "the model's encoder has the module's stages");
    // The decoders differ in their stages and stay two modules, without the encoder's stages.
    let dec = elab.module("rxl_sw", Role::FecDec).expect("switch decoder");
    assert_ne!(elab.module("cxl_fec_pcie6", Role::FecDec).map(|m| m.name()), Some(dec.name()));
    let d: RsFecParams = dec.params().expect("decoder parameters");
    assert_eq!((d.pipeline, d.enc_pipeline), (4, None));
    // A streaming encoder carries its beat width, not the decoder's counters.
    let kr4: RsFecEncParams = elab.module("kr4_fec", Role::FecEnc).expect("kr4 encoder").params().expect("encoder parameters");
    assert_eq!(kr4.code.symbols_per_cycle, Some(33));
    assert!(elab.module("kr4_fec", Role::FecEnc).expect("kr4").params.iter().all(|(k, _)| !k.starts_with("ser_") && *k != "counter_bits"));
}

#[test]
fn a_sub_block_lists_its_own_parameters_and_dependencies_come_from_instances() {
    let elab = Design::builtin_default().elaborate();
    let dec = elab.module("cxl_ep", Role::FecDec).expect("decoder");
    assert_eq!(dec.kind, "rs_fec");
    let keys: Vec<&str> = dec.params.iter().map(|(k, _)| *k).collect();
    assert!(keys.contains(&"check_symbols") && !keys.contains(&"ack_every"), "decoder parameters: {keys:?}");
    let ep = elab.module("cxl_ep", Role::Endpoint).expect("endpoint");
    assert_eq!(ep.kind, "rxl_endpoint");
    assert!(ep.params.iter().any(|(k, _)| *k == "ack_every"));
    let instanced: Vec<String> = ep
        .module
        .items
        .iter()
        .filter_map(|i| match i {
            rtl_gen::hw::verilog::Item::Instance { module, .. } => Some(module.clone()),
            _ => None,
        })
        .collect();
    for d in &ep.depends {
        assert!(instanced.contains(d), "{d} is instantiated");
    }
    assert!(ep.depends.contains(&dec.name().to_string()));
    // The received flit's CRC check is the endpoint's own register stage, not a checker module.
    assert_eq!(ep.depends.len(), 4, "replay, crc, fec enc, fec dec: {:?}", ep.depends);
}

#[test]
fn integer_fields_take_hex_strings_like_wide_fields() {
    let text = r#"
[design]
name = "hex"
[[blocks]]
kind = "rs_fec"
name = "fec"
symbol_bits = 10
field_poly = "0x409"
check_symbols = "0xE"
msg_symbols = 514
"#;
    let d = Design::parse(text, "hex.toml").expect("hex strings accepted");
    let p = rtl_gen::blocks::param_texts("rs_fec", &d.blocks[0].typed_params());
    assert!(p.contains(&("field_poly", "0x409".to_string())), "{p:?}");
    assert!(p.contains(&("check_symbols", "14".to_string())), "{p:?}");
    let bad = Design::parse(&text.replace("\"0xE\"", "\"0xZZ\""), "hex.toml").expect_err("not a number");
    assert!(bad.to_string().contains("check_symbols") && bad.to_string().contains("2..=64"), "{bad}");
}

#[test]
fn a_module_named_like_a_keyword_is_rejected() {
    for (name, standard) in [("module", "Verilog-2005"), ("logic", "SystemVerilog")] {
        let text = format!("[design]\nname = \"k\"\nprefix = \"\"\n[[blocks]]\nkind = \"replay_buffer\"\nname = \"{name}\"\nentry_bits = 8\nseq_bits = 4\ndepth = 8\n");
        match Design::parse(&text, "k.toml") {
            Err(e @ ConfigError::ReservedName { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains(&format!("`{name}`")) && msg.contains(standard) && msg.contains("prefix"), "{msg}");
            }
            other => panic!("{name}: expected a reserved-name error, got {other:?}"),
        }
    }
    // With the default prefix the same block is fine.
    let ok = "[design]\nname = \"k\"\n[[blocks]]\nkind = \"replay_buffer\"\nname = \"module\"\nentry_bits = 8\nseq_bits = 4\ndepth = 8\n";
    Design::parse(ok, "k.toml").expect("k_module is a fine name");
}

/// Every memory array of the default design is an instance of a RAM wrapper, one module per
/// shape however many blocks use it, except the two arrays outside the one-write-one-read
/// pattern (the SUE transport's per-slot metadata, five read ports; the asynchronous FIFO's
/// storage, written on another clock).
#[test]
fn memories_are_ram_wrappers_one_module_per_shape() {
    use rtl_gen::hw::verilog::Item;
    let elab = Design::builtin_default().elaborate();
    let mut arrays: Vec<String> = Vec::new();
    for m in &elab.modules {
        for i in &m.module.items {
            if let Item::Memory { name, .. } | Item::LutMemory { name, .. } = i {
                arrays.push(format!("{}.{name}", m.name()));
            }
        }
    }
    let rams: Vec<&rtl_gen::elab::ElabModule> = elab.modules.iter().filter(|m| m.role == Role::Ram).collect();
    arrays.retain(|a| !rams.iter().any(|r| a.starts_with(&format!("{}.", r.name()))));
    // The asynchronous FIFOs' storage (the async_fifo block's and the recovered-clock RIFL
    // nodes' CDC FIFO, one module for both nodes: only their clocks' frequencies differ) stays
    // in the module: its two sides are on two clocks. The SUE transport's slot metadata (read by
    // every space) and committed-PDU queues (each VC reads the entry after its head) and the
    // Gen-Z receive FIFO's flags (read at the pointer and the one after it) have more read
    // ports than a one-write-one-read wrapper.
    assert_eq!(arrays, ["rtlgen_rifl_rclk_cdc.mem", "rtlgen_sue_ep_transport.meta", "rtlgen_sue_ep_transport.mq", "rtlgen_genz_llr.rx_flags", "rtlgen_cdc_fifo.mem"]);
    let mut names: Vec<&str> = rams.iter().map(|m| m.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), rams.len(), "one module per shape");
    // KR4's data and error stores share a shape, and so one module.
    let kr4 = elab.modules.iter().find(|m| m.name() == "rtlgen_kr4_fec_dec").expect("KR4 decoder");
    let users = kr4.module.items.iter().filter(|i| matches!(i, Item::Instance { module, .. } if module == "rtlgen_ram_1r1w_330x128")).count();
    assert_eq!(users, 2);
    let shape = rams.iter().find(|m| m.name() == "rtlgen_ram_1r1w_330x128").expect("the KR4 store's wrapper");
    assert_eq!(shape.params, [("width", serde_json::json!(330)), ("depth", serde_json::json!(128)), ("read", serde_json::json!("sync")), ("output_register", serde_json::json!(false)), ("style", serde_json::json!("block"))]);
    assert_eq!(shape.latency, 1);
}

/// One kind three times, the middle block with its own reset style: every module (sub-modules
/// included) gets its block's style, modules of different styles never merge (the reset port
/// is part of the body) and keep distinct names, same-style copies and reset-free RAM wrappers
/// still merge, and the manifest carries each block's style back into the design.
#[test]
fn a_block_reset_style_reaches_its_sub_modules_and_never_merges_across_styles() {
    use rtl_gen::config::ResetStyle;
    let text = "[design]\nname = \"mix\"\n\n[[blocks]]\nkind = \"rxl_endpoint\"\nname = \"a\"\n\n[[blocks]]\nkind = \"rxl_endpoint\"\nname = \"b\"\nreset = \"async_low\"\n\n[[blocks]]\nkind = \"rxl_endpoint\"\nname = \"c\"\n";
    let design = Design::parse(text, "mix.toml").expect("valid");
    let resets = design.resets.clone();
    assert_eq!(resets, [ResetStyle::SyncHigh, ResetStyle::AsyncLow, ResetStyle::SyncHigh]);
    let (json, elab) = manifest_of(design);
    let names: Vec<&str> = elab.modules.iter().map(|m| m.name()).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "module names are unique: {names:?}");
    let mut clocked = 0;
    for m in &elab.modules {
        // Every block using a module has the module's style.
        for &b in std::iter::once(&m.block).chain(&m.shared_by) {
            if let Some(style) = m.module.reset {
                clocked += 1;
                assert_eq!(style, resets[b], "{} used by block {}", m.name(), elab.design.blocks[b].name());
            }
        }
        let text = m.module.render();
        if let Some(style) = m.module.reset.filter(|r| m.port(r.port()).is_some()) {
            let other = if style == ResetStyle::AsyncLow { "input  wire        rst," } else { "rst_n" };
            assert!(!text.contains(other), "{} ({}) mentions `{other}`", m.name(), style.as_str());
        }
    }
    assert_eq!(clocked, 9, "(clocked module, user) pairs: endpoints a, b, c; replay buffer and pipelined FEC decoder of a, used by c too; of b");
    for role in [Role::Endpoint, Role::Replay, Role::FecDec, Role::FecEnc, Role::Crc] {
        let [a, b, c] = ["a", "b", "c"].map(|blk| elab.module(blk, role).unwrap_or_else(|| panic!("{blk} has a {role}")));
        if let Some(r) = a.module.reset {
            assert_eq!(r, ResetStyle::SyncHigh, "{role} of a");
        }
        if a.module.reset.is_some() {
            assert_ne!(b.name(), a.name(), "{role}: the async_low block has its own module");
        } else {
            assert_eq!(b.name(), a.name(), "{role}: a module without reset (combinational) serves both styles");
        }
        if role != Role::Endpoint {
            assert_eq!(c.name(), a.name(), "{role}: same style, same parameters: one module");
        }
        if let Some(r) = b.module.reset {
            assert_eq!(r, ResetStyle::AsyncLow, "{role} of b");
        }
    }
    // The replay buffer's RAM has no reset: one wrapper serves both styles.
    let rams: Vec<&str> = names.iter().copied().filter(|n| n.starts_with("mix_ram_")).collect();
    let ram_users: Vec<usize> = elab.modules.iter().filter(|m| m.role == Role::Ram).map(|m| 1 + m.shared_by.len()).collect();
    assert!(!rams.is_empty() && ram_users.iter().all(|&u| u == 3), "RAM wrappers shared by all three blocks: {rams:?} {ram_users:?}");
    // The manifest gives each block its style, and the design rebuilt from it has them.
    let back = Design::from_manifest(&json, "manifest.json").expect("manifest rebuilds the design");
    assert_eq!(back.resets, resets);
    let (again, _) = manifest_of(back);
    assert_eq!(again, json);
}

#[test]
fn rifl_lanes_are_shared_by_nodes_that_differ_only_in_width_lanes_and_link() {
    use rtl_gen::blocks::rifl::{RiflGearParams, RiflLaneParams, RiflParams};
    // Node b is wider, has two lanes and a given link, but the same frames, IDs and buffers.
    let text = r#"
[design]
name = "lanes"
[[blocks]]
kind = "rifl"
name = "a"
frame_bits = 256
user_bits = 256
[[blocks]]
kind = "rifl"
name = "b"
frame_bits = 256
user_bits = 512
lanes = 2
cable_m = 1
lane_gbps = 10
frame_id_bits = 8
"#;
    let elab = Design::parse(text, "lanes.toml").expect("valid").elaborate();
    for role in [Role::Tx, Role::Rx, Role::Fifo, Role::FrameEncode, Role::FrameCheck, Role::FrameCrc, Role::Scrambler, Role::Descrambler] {
        let a = elab.module("a", role).unwrap_or_else(|| panic!("a has a {role:?}"));
        assert_eq!(elab.module("b", role).map(|m| m.name()), Some(a.name()), "{role:?} is shared");
        let lane: RiflLaneParams = a.params().expect("a lane module carries the lane parameters");
        assert_eq!((lane.frame_bits, lane.frame_id_bits, lane.fc_buffer_frames), (256, 8, 256));
        assert!(a.params::<RiflParams>().is_err(), "{role:?}: no node parameters");
    }
    for role in [Role::TxGear, Role::RxGear] {
        let (a, b) = (elab.module("a", role).expect("gearbox"), elab.module("b", role).expect("gearbox"));
        assert_ne!(a.name(), b.name(), "different widths");
        let keys: Vec<&str> = b.params.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["frame_bits", "user_bits", "lanes"]);
        assert_eq!(b.params::<RiflGearParams>().expect("gear parameters").group_bytes(), 60);
    }
    let node = elab.module("b", Role::Node).expect("node");
    assert_eq!(node.params::<RiflParams>().expect("node parameters").cable_m, 1);
}

/// The manifest lists every clock the constraint files create, each with its domain's reset:
/// a recovered-clock RIFL node's `clk` with the node's reset, one clock per bit of its per-lane
/// `rx_clk` (named `rx_clk_<k>` as the XDC names it) at `rx_clk_mhz` with that lane's reset bit,
/// `free_clk` with `free_rst`; its lane receiver's `clk` with the module's reset; an
/// asynchronous FIFO's active-low side resets as active low.
#[test]
fn the_manifest_lists_every_clock_with_its_frequency_and_reset() {
    let text = "[design]\nname = \"d\"\nreset = \"async_low\"\nclock_mhz = 300.0\n\n[[blocks]]\nkind = \"rifl\"\nname = \"r\"\nframe_bits = 128\nuser_bits = 128\nlanes = 2\nclocking = \"recovered\"\nrx_clk_mhz = 250\nfree_clk_mhz = 80\n";
    let (json, _) = manifest_of(Design::parse(text, "d.toml").expect("design"));
    let manifest: serde_json::Value = serde_json::from_str(&json).expect("json");
    let clocks = |module: &str| -> Vec<(String, Option<String>, f64, Option<String>, bool)> {
        let m = manifest["modules"].as_array().expect("modules").iter().find(|m| m["name"] == module).unwrap_or_else(|| panic!("{module}"));
        m["clocks"]
            .as_array()
            .expect("clocks")
            .iter()
            .map(|c| (c["name"].as_str().expect("name").to_string(), c["port"].as_str().map(str::to_string), c["mhz"].as_f64().expect("mhz"), c["reset"]["name"].as_str().map(str::to_string), c["reset"]["active_low"].as_bool().unwrap_or(false)))
            .collect()
    };
    let c = |name: &str, port: Option<&str>, mhz: f64, reset: &str| (name.to_string(), port.map(str::to_string), mhz, Some(reset.to_string()), true);
    assert_eq!(
        clocks("d_r"),
        [c("clk", None, 300.0, "rst_n"), c("rx_clk_0", Some("rx_clk[0]"), 250.0, "rx_rst_n[0]"), c("rx_clk_1", Some("rx_clk[1]"), 250.0, "rx_rst_n[1]"), c("free_clk", None, 80.0, "free_rst_n")]
    );
    assert_eq!(clocks("d_r_rxcdc"), [c("clk", None, 300.0, "rst_n"), c("rx_clk", None, 250.0, "rx_rst_n")]);
    assert_eq!(clocks("d_r_cdc"), [c("wr_clk", None, 250.0, "wr_rst_n"), c("rd_clk", None, 300.0, "rd_rst_n")]);
    assert_eq!(clocks("d_r_comp"), [c("clk", None, 300.0, "rst_n"), c("rx_clk", None, 250.0, "rx_rst_n"), c("free_clk", None, 80.0, "free_rst_n")]);
}

/// Two recovered-clock RIFL nodes whose CDC FIFOs differ only in their clocks' frequencies emit
/// one FIFO module, timed alone at the faster write clock; each node's constraint files name
/// its own recovered clock and bound the shared FIFO's crossings at it. A top async_fifo block
/// keeps the frequencies it sets.
#[test]
fn cdc_fifos_that_differ_only_in_clock_frequencies_are_one_module() {
    let node = |name: &str, mhz: u32| format!("\n[[blocks]]\nkind = \"rifl\"\nname = \"{name}\"\nframe_bits = 128\nuser_bits = 128\nlanes = 2\nclocking = \"recovered\"\nrx_clk_mhz = {mhz}\n");
    let text = format!("[design]\nname = \"d\"\nclock_mhz = 300.0\n{}{}", node("a", 250), node("b", 310));
    let (json, elab) = manifest_of(Design::parse(&text, "d.toml").expect("design"));
    let fifos: Vec<&rtl_gen::elab::ElabModule> = elab.modules.iter().filter(|m| m.role == Role::AsyncFifo).collect();
    assert_eq!(fifos.iter().map(|m| m.name()).collect::<Vec<_>>(), ["d_a_cdc"], "one FIFO module");
    let fifo = fifos[0];
    assert_eq!(fifo.shared_by, [1], "used by block b too");
    let mhz = |key: &str| fifo.params.iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.as_u64());
    assert_eq!((mhz("wr_clk_mhz"), mhz("rd_clk_mhz")), (Some(310), Some(300)), "timed alone at the faster write clock");
    assert!(fifo.notes.iter().any(|n| n.contains("the fastest its users give that clock")), "{:?}", fifo.notes);
    for (top, period) in [("d_a", "4.000"), ("d_b", "3.226")] {
        let m = elab.modules.iter().find(|m| m.name() == top).expect("node");
        assert!(elab.hierarchy(m).iter().any(|h| h.name() == "d_a_cdc"), "{top} instances the shared FIFO");
        let xdc = rtl_gen::output::cdc_constraints::xdc(m, &elab.hierarchy(m), "d", "r", 300.0);
        assert!(xdc.contains(&format!("create_clock -period {period} -name rx_clk_0 [get_ports {{rx_clk[0]}}]")), "{top}: its own recovered clock\n{xdc}");
        assert!(xdc.contains("*wr_ptr_gray_q_reg*}] -to [get_cells -hier -filter {NAME =~ *wr_ptr_sync_s1_reg*}]"), "{top}: the FIFO's crossings\n{xdc}");
    }
    let manifest: serde_json::Value = serde_json::from_str(&json).expect("json");
    let entry = manifest["modules"].as_array().expect("modules").iter().find(|m| m["name"] == "d_a_cdc").expect("the FIFO");
    assert_eq!(entry["clocks"][0]["mhz"].as_f64(), Some(310.0), "{entry}");
    // Differing in more than the clocks (the FIFO's width) keeps them apart.
    let text = format!("[design]\nname = \"d\"\nclock_mhz = 300.0\n{}{}", node("a", 250), node("b", 310).replace("frame_bits = 128\nuser_bits = 128", "frame_bits = 256\nuser_bits = 256"));
    let elab = Design::parse(&text, "d.toml").expect("design").elaborate();
    assert_eq!(elab.modules.iter().filter(|m| m.role == Role::AsyncFifo).count(), 2);
}
