//! Bad `rxl_switch` fields: each refused with an error naming the block, the field, the value
//! and what is allowed.

#[path = "support/refused.rs"]
mod refused;
use refused::refused;

const HEADER: &str = "[design]\nname = \"t\"\n";

#[test]
fn rxl_switch_bad_fields() {
    let sw = |f: &str| format!("{HEADER}[[blocks]]\nkind = \"rxl_switch\"\nname = \"sw\"\n{f}\n");
    refused(&sw("fec = \"rs\""), &["block `sw`", "`fec`", "\"rs\"", "\"pcie6\", \"generic\""]);
    refused(&sw("counter_bits = 0"), &["block `sw`", "`counter_bits`", "= 0", "1..=64"]);
    refused(&sw("seq_bits = 10"), &["block `sw`", "`seq_bits`", "not a field of kind rxl_switch"]);
}
