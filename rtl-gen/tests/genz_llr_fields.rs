//! `genz_llr` design fields: bad values are refused with an error naming the block, the field,
//! the value and the allowed range.

use rtl_gen::blocks::genz_llr::GenzLlrBlock;
use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;

fn design(fields: &str) -> String {
    format!("[design]\nname = \"t\"\n[[blocks]]\nkind = \"genz_llr\"\nname = \"g\"\n{fields}\n")
}

fn refused_fields(fields: &str, fragments: &[&str]) {
    refused(&design(fields), fragments);
}

#[test]
fn defaults_are_the_seed_timers() {
    let d = Design::parse(&design(""), "good.toml").expect("valid");
    let b = d.blocks[0].as_any().downcast_ref::<GenzLlrBlock>().expect("genz_llr");
    assert_eq!(b.cfg.init_interval_ui, 8192);
    assert_eq!(b.cfg.discard_interval_ui, 8192);
    assert_eq!(b.cfg.llrt_ui, 1 << 20);
    assert_eq!(b.cfg.discard_limit, 256);
    assert_eq!(b.cfg.init_cycles, 8192 / 64);
    assert!(b.cfg.ecrc_check);
}

#[test]
fn timers_below_one_cycle() {
    refused_fields("ui_per_cycle = 256\ninit_interval_ui = 100", &["block `g`", "`init_interval_ui`", "100", "below one cycle", "256.."]);
    refused_fields("ui_per_cycle = 256\ndiscard_interval_ui = 255", &["`discard_interval_ui`", "255"]);
    refused_fields("ui_per_cycle = 4096\nllrt_ui = 4095", &["`llrt_ui`", "4095"]);
}

#[test]
fn retry_buffer_smaller_than_one_packet() {
    refused_fields("max_packet_bytes = 256\nretry_bytes = 255", &["block `g`", "`retry_bytes`", "255", "one maximum packet", "256..="]);
}

#[test]
fn retry_packets_at_or_above_2_16() {
    refused_fields("retry_packets = 65536", &["`retry_packets`", "65536", "1..=65535"]);
}

#[test]
fn vcs_outside_1_to_4() {
    refused_fields("vcs = 0", &["`vcs`", "1..=4"]);
    refused_fields("vcs = 5", &["`vcs`", "5", "1..=4"]);
}

#[test]
fn packet_not_whole_beats() {
    refused_fields("data_bytes = 8\nmax_packet_bytes = 20", &["`max_packet_bytes`", "20", "multiples of 8"]);
    refused_fields("data_bytes = 6", &["`data_bytes`", "= 6", "allowed 4 or 8"]);
}

#[test]
fn ack_every_above_credits() {
    refused_fields("rx_credits = 4\nack_every = 5", &["`ack_every`", "5", "rx_credits = 4", "1..=4"]);
}

/// More slots than the retry buffer holds is refused, naming both fields (not capped silently).
#[test]
fn retry_packets_beyond_retry_bytes() {
    refused_fields("retry_bytes = 128\nmax_packet_bytes = 64\nretry_packets = 1000", &["block `g`", "`retry_packets`", "1000", "retry_bytes = 128", "max_packet_bytes = 64", "allowed 1..=2", "retry_bytes at least 64000"]);
    refused_fields("retry_bytes = 4096\nmax_packet_bytes = 4096\nretry_packets = 65535", &["`retry_packets`", "allowed 1..=1"]);
    // Left unset, retry_packets is 64 capped to what retry_bytes holds.
    let d = Design::parse(&design("retry_bytes = 128\nmax_packet_bytes = 64"), "good.toml").expect("valid");
    let b = d.blocks[0].as_any().downcast_ref::<GenzLlrBlock>().expect("genz_llr");
    assert_eq!((b.cfg.retry_packets, b.cfg.slots()), (2, 2));
}
