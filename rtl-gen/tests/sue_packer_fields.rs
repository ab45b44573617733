//! Bad `sue_packer` fields (the contract's bad-input list, specs/sue.md §6, the rows that apply
//! to the packer): each refused with an error naming the block, the field, the value and what is
//! allowed, never a panic.

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;

fn packer(fields: &str) -> String {
    format!("[design]\nname = \"t\"\n[[blocks]]\nkind = \"sue_packer\"\nname = \"pk\"\n{fields}\n")
}

#[test]
fn defaults_parse() {
    let d = Design::parse(&packer(""), "good.toml").expect("the defaults are valid");
    assert_eq!(d.blocks.len(), 1);
}

#[test]
fn max_pack_bytes_over_4096() {
    refused(
        &packer("max_pack_bytes = 8192"),
        &[
            "block `pk`",
            "(kind sue_packer)",
            "field `max_pack_bytes` = 8192 is out of range",
            "allowed cmd_bytes..=4096 (64..=4096) in multiples of cmd_bytes",
            "SUE §3.3",
        ],
    );
}

#[test]
fn max_pack_bytes_not_a_multiple_of_cmd_bytes() {
    refused(
        &packer("max_pack_bytes = 1000"),
        &["field `max_pack_bytes` = 1000", "in multiples of cmd_bytes"],
    );
}

#[test]
fn cmd_bytes_not_a_multiple_of_data_bytes() {
    refused(
        &packer("data_bytes = 32\ncmd_bytes = 100"),
        &[
            "field `cmd_bytes` = 100 is not a multiple of data_bytes (32)",
            "allowed 32, 64, 96, … up to max_pack_bytes",
        ],
    );
}

#[test]
fn num_xpu_over_1024() {
    refused(
        &packer("num_xpu = 2048"),
        &[
            "field `num_xpu` = 2048 is out of range",
            "allowed 2..=1024 (the RH xpuid is 10 bits)",
        ],
    );
}

#[test]
fn data_bytes_not_a_bus_width() {
    refused(
        &packer("data_bytes = 24"),
        &[
            "field `data_bytes` = 24 is not allowed",
            "allowed 8, 16, 32, 64, 128",
        ],
    );
}

#[test]
fn num_vc_over_4() {
    refused(
        &packer("num_vc = 5"),
        &[
            "field `num_vc` = 5 is out of range",
            "allowed 1..=4 (the RH vc is 2 bits)",
        ],
    );
}

#[test]
fn queue_depth_out_of_range() {
    refused(
        &packer("queue_depth = 0"),
        &["field `queue_depth` = 0 is out of range", "1..=1024"],
    );
    refused(
        &packer("queue_depth = 2000"),
        &["field `queue_depth` = 2000 is out of range", "1..=1024"],
    );
}

#[test]
fn hold_cycles_out_of_range() {
    refused(
        &packer("hold_cycles = 70000"),
        &["field `hold_cycles` = 70000 is out of range", "0..=65535"],
    );
}

#[test]
fn packer_storage_over_16_mib() {
    refused(
        &packer(
            "num_xpu = 1024\nnum_vc = 4\ncmd_bytes = 256\nmax_pack_bytes = 4096\nqueue_depth = 64",
        ),
        &[
            "field `queue_depth` = 64",
            "num_xpu × num_vc × queue_depth × cmd_bytes = 67108864 bytes, over the 16 MiB limit",
            "allowed 1..=16",
        ],
    );
}

#[test]
fn counter_bits_out_of_range() {
    refused(
        &packer("counter_bits = 0"),
        &["field `counter_bits` = 0 is out of range", "1..=64"],
    );
}

#[test]
fn unknown_field() {
    refused(
        &packer("window = 4"),
        &["field `window` is not a field of kind sue_packer"],
    );
}
