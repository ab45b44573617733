//! `rxl_endpoint` fields: the defaults, and bad fields refused with an error naming the block,
//! the field, the value and the allowed range.

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;
#[path = "support/param_texts.rs"]
mod param_texts;
use param_texts::texts;

const HEADER: &str = "[design]\nname = \"t\"\n";

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
