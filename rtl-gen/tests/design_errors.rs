//! Bad design files at the design level (names, resets, clock, TOML syntax, unknown kinds, module
//! names that collide): each must be refused with an error naming what to fix, never a panic or
//! silently wrong RTL. Each kind's own fields are checked in `<kind>_fields.rs`.

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;

const HEADER: &str = "[design]\nname = \"t\"\n";

fn block(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"crc\"\nname = \"c\"\n{fields}\n")
}

const GOOD: &str = "width = 32\npoly = 0x04C11DB7\ndata_bits = 72";

#[test]
fn a_good_design_parses() {
    let d = Design::parse(&block(GOOD), "good.toml").expect("valid");
    assert_eq!(d.info.prefix, "t_");
    assert_eq!(d.blocks.len(), 1);
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
fn rxl_module_names_collide_through_sub_modules() {
    // An endpoint `e` builds `t_e_crc`; a crc block named `e_crc` would overwrite it.
    let text = format!("{HEADER}[[blocks]]\nkind = \"rxl_endpoint\"\nname = \"e\"\n[[blocks]]\nkind = \"crc\"\nname = \"e_crc\"\n{GOOD}\n");
    refused(&text, &["t_e_crc", "collides"]);
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

/// The two-clock demo's top and testbench (`<node>_demo_pair`, `<node>_demo_pair_tb`) belong to
/// the first recovered-clock node that compensates, beside the one-clock demo of the first
/// single-clock node, whichever comes first.
#[test]
fn block_names_colliding_with_the_two_clock_demo_are_refused() {
    let single = "[[blocks]]\nkind = \"rifl\"\nname = \"r\"\n";
    let rec = "[[blocks]]\nkind = \"rifl\"\nname = \"p\"\nclocking = \"recovered\"\n";
    for name in ["p_demo_pair", "p_demo_pair_tb"] {
        let other = format!("[[blocks]]\nkind = \"crc\"\nname = \"{name}\"\n{GOOD}\nchecker = false\n");
        refused(&format!("{HEADER}{rec}{other}"), &[&format!("t_{name}"), "collides", "two-clock FPGA demo", "block `p`"]);
        refused(&format!("{HEADER}{rec}{single}{other}"), &[&format!("t_{name}"), "collides"]);
    }
    // A recovered node first does not take the one-clock demo from the single-clock node after it.
    let clash = format!("[[blocks]]\nkind = \"crc\"\nname = \"r_demo\"\n{GOOD}\nchecker = false\n");
    refused(&format!("{HEADER}{rec}{single}{clash}"), &["t_r_demo", "collides", "one-clock FPGA demo", "block `r`"]);
    // A recovered node's `_demo` name is free (it has no one-clock demo), and so is a second
    // recovered node's `_demo_pair`.
    let free = format!("[[blocks]]\nkind = \"crc\"\nname = \"p_demo\"\n{GOOD}\nchecker = false\n");
    Design::parse(&format!("{HEADER}{rec}{free}"), "ok.toml").expect("p_demo is no module of the tree");
    let rec2 = rec.replace("name = \"p\"", "name = \"q\"");
    let free2 = format!("[[blocks]]\nkind = \"crc\"\nname = \"q_demo_pair\"\n{GOOD}\nchecker = false\n");
    Design::parse(&format!("{HEADER}{rec}{rec2}{free2}"), "ok.toml").expect("q_demo_pair is no module of the tree");
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
