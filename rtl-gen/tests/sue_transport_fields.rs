//! Bad `sue_transport` fields (the contract's bad-input list, specs/sue.md §6, the rows that
//! apply to the transport, plus the per-field range checks): each refused with an error naming
//! the block, the field, the value and what is allowed, never a panic.

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;

fn transport(fields: &str) -> String {
    format!(
        "[design]\nname = \"t\"\n[[blocks]]\nkind = \"sue_transport\"\nname = \"tp\"\n{fields}\n"
    )
}

#[test]
fn defaults_parse() {
    let d = Design::parse(&transport(""), "good.toml").expect("the defaults are valid");
    assert_eq!(d.blocks.len(), 1);
    Design::parse(
        &transport("psn_scope = \"dest_vc\"\nrcrc = \"crc32c\"\npartition_check = true"),
        "good.toml",
    )
    .expect("options are valid");
}

#[test]
fn row4_local_xpuid_not_below_num_xpu() {
    refused(
        &transport("num_xpu = 4\nxpuid_source = \"constant\"\nlocal_xpuid = 4"),
        &[
            "block `tp`",
            "(kind sue_transport)",
            "field `local_xpuid` = 4 must be below num_xpu (4); allowed 0..=3",
        ],
    );
}

/// The id comes from the port by default: a constant id beside it is a contradiction, refused
/// with both fields named; with `xpuid_source = "constant"` it is the id.
#[test]
fn local_xpuid_needs_a_constant_id_source() {
    refused(
        &transport("local_xpuid = 1"),
        &["field `local_xpuid` is set, but xpuid_source = \"port\" (the default) takes the id from the local_xpuid input port; remove local_xpuid, or set xpuid_source = \"constant\""],
    );
    refused(&transport("xpuid_source = \"strap\""), &["field `xpuid_source`"]);
    let d = Design::parse(&transport("xpuid_source = \"constant\"\nlocal_xpuid = 3"), "good.toml").expect("a constant id");
    let b = d.blocks[0].as_any().downcast_ref::<rtl_gen::blocks::sue_transport::SueTransportBlock>().expect("transport");
    assert!(!b.resolved.xpuid_port && b.resolved.local_xpuid == 3);
    let d = Design::parse(&transport(""), "good.toml").expect("the default");
    let b = d.blocks[0].as_any().downcast_ref::<rtl_gen::blocks::sue_transport::SueTransportBlock>().expect("transport");
    assert!(b.resolved.xpuid_port, "the id is a port by default");
    // The transport itself, not the RAM wrappers elaborated beside it.
    let elab = d.elaborate();
    let m = elab.modules.iter().find(|m| m.role != rtl_gen::hw::module::Role::Ram).expect("the transport module");
    let port = m.module.ports.iter().find(|p| p.name == "local_xpuid").expect("a local_xpuid input");
    assert_eq!(port.width, 10);
}

#[test]
fn row5_ack_coalesce_over_window() {
    refused(&transport("window = 8\nack_coalesce = 16"), &["field `ack_coalesce` = 16 exceeds window (8): the sender would stall until ack_delay_cycles; allowed 1..=8"]);
}

#[test]
fn row6_ack_delay_not_below_rto() {
    refused(
        &transport("rto_cycles = 8192\nack_delay_cycles = 10000"),
        &["field `ack_delay_cycles` = 10000 must be below rto_cycles (8192), else every delayed ACK arrives after a spurious timeout; allowed 0..=8191"],
    );
}

#[test]
fn row7_ack_vc_not_a_vc() {
    refused(
        &transport("num_vc = 2\nack_vc = 2"),
        &["field `ack_vc` = 2 must name an existing VC; allowed 0..=1"],
    );
}

#[test]
fn row8_rx_buffer_too_small() {
    refused(
        &transport("max_pack_bytes = 2048\nrx_buf_bytes_per_vc = 2048"),
        &["field `rx_buf_bytes_per_vc` = 2048 is too small; allowed 0 (auto) or 4096..=1048576 in multiples of data_bytes (two maximum PDUs, so one can drain while the next arrives)"],
    );
}

#[test]
fn row9_retransmission_storage_over_16_mib() {
    refused(
        &transport("num_xpu = 1024\nwindow = 1024\nmax_pack_bytes = 4096"),
        &["field `window` = 1024", "retransmission storage num_xpu × slots × max_pack_bytes = 4 GiB exceeds the 16 MiB limit; reduce num_xpu, window or max_pack_bytes"],
    );
}

#[test]
fn shared_rows_apply_to_the_transport() {
    refused(
        &transport("num_xpu = 2048"),
        &[
            "field `num_xpu` = 2048 is out of range",
            "allowed 2..=1024 (the RH xpuid is 10 bits)",
        ],
    );
    refused(
        &transport("data_bytes = 24"),
        &[
            "field `data_bytes` = 24 is not allowed",
            "allowed 16, 32, 64, 128",
        ],
    );
    refused(
        &transport("max_pack_bytes = 8192"),
        &["field `max_pack_bytes` = 8192 is out of range"],
    );
    refused(
        &transport("num_vc = 5"),
        &["field `num_vc` = 5 is out of range", "allowed 1..=4"],
    );
}

#[test]
fn data_bytes_8_not_supported_by_this_version() {
    refused(&transport("data_bytes = 8\ncmd_bytes = 64"), &["field `data_bytes` = 8 is not supported by sue_transport in this version; allowed 16, 32, 64, 128"]);
}

#[test]
fn field_ranges() {
    refused(
        &transport("rto_cycles = 10"),
        &["field `rto_cycles` = 10 is out of range", "64..=16777215"],
    );
    refused(
        &transport("version = 4"),
        &["field `version` = 4 is out of range", "0..=3"],
    );
    refused(
        &transport("partition = 1024"),
        &["field `partition` = 1024 is out of range", "0..=1023"],
    );
    refused(
        &transport("rcrc = \"crc16\""),
        &["field `rcrc` = \"crc16\" is not allowed", "crc32"],
    );
    refused(
        &transport("psn_scope = \"vc\""),
        &["field `psn_scope` = \"vc\" is not allowed", "dest_vc"],
    );
    refused(
        &transport("window = 0"),
        &["field `window` = 0 is out of range", "1..=1024"],
    );
    refused(
        &transport("max_retries = 256"),
        &["field `max_retries` = 256 is out of range", "0..=255"],
    );
    refused(
        &transport("nack_timeout_cycles = 3"),
        &[
            "field `nack_timeout_cycles` = 3 is out of range",
            "16..=65535",
        ],
    );
}

#[test]
fn rx_pause_bytes_over_the_buffer() {
    refused(
        &transport("max_pack_bytes = 1024\nrx_buf_bytes_per_vc = 4096\nrx_pause_bytes = 8192"),
        &[
            "field `rx_pause_bytes` = 8192 is out of range",
            "allowed 0 (auto) or 1024..=4096 (max_pack_bytes..=rx_buf_bytes_per_vc)",
        ],
    );
}
