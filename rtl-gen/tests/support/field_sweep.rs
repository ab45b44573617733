//! One-field variations of a small block of every kind, shared by the lint sweep
//! (`rtl-gen/tests/field_sweep.rs`) and the co-simulation of every enumerated value
//! (`sim/tests/field_values_cosim.rs`, which includes this file by path).
//!
//! The fields and their ranges come from the kind registry (`blocks::KINDS`, `FieldSpec`); only
//! the small base block of each kind and the caps below are written here. A variant changes one
//! field of the base: to each end of a `UInt` range, to both booleans, to every choice, and a
//! `Bits` constant to zero and to all ones.

#![allow(dead_code)] // each including test uses its own part

use rtl_gen::blocks::{self, BlockKind};
use rtl_gen::fields::{FieldSpec, FieldType};

/// A small block of each kind: the fields a base needs (required ones) and sizes that keep the
/// modules quick to lint and simulate; every other field at its default.
pub const BASES: &[(&str, &str)] = &[
    ("crc", "width = 16\npoly = 0x1021\ndata_bits = 32"),
    ("crc_stream", "width = 16\npoly = 0x1021\nword_bytes = 4"),
    ("rs_crc", "data_bytes = 16"),
    ("replay_buffer", "entry_bits = 16\nseq_bits = 4\ndepth = 8"),
    ("rs_fec", "msg_bytes = 16"),
    ("rifl", "frame_bits = 128\nuser_bits = 64"),
    ("rxl_endpoint", ""),
    ("rxl_switch", ""),
    ("sue_packer", "data_bytes = 8\ncmd_bytes = 16\nmax_pack_bytes = 64\nnum_xpu = 2\nqueue_depth = 8"),
    ("sue_transport", "data_bytes = 16\ncmd_bytes = 16\nmax_pack_bytes = 64\nnum_xpu = 2"),
    ("sue_endpoint", "data_bytes = 16\ncmd_bytes = 16\nmax_pack_bytes = 64\nnum_xpu = 2\nqueue_depth = 8"),
    ("recxl_replica_map", "num_nodes = 4\nreplicas = 2\naddr_bits = 16"),
    ("recxl_logging_unit", "num_nodes = 4\ncores_per_node = 2\nreplicas = 2\naddr_bits = 16\nsram_rows = 16\nfetch_queries = 4\nlog_bytes = 65536"),
    ("genz_llr", "retry_bytes = 512\nretry_packets = 8"),
    ("async_fifo", "width = 8\ndepth = 8"),
];

/// Fields that apply only beside other fields than their kind's small base has, each swept on a
/// base of its own: RIFL's recovered-clock numbers on a recovered node in the transceiver-width
/// form (the base itself has `gt_bits = 64`, the sweep's ends 32 and 128, so every legal
/// transceiver width is linted; 128 needs frames of 256 bits); its temporal bonding ratio on two
/// lanes of narrow user beats, where the top ratio (4 x 32 bits on clk) fits what the lanes carry.
pub const OTHER_BASES: &[(&str, &[&str], &str)] = &[
    ("rifl", &["rx_clk_mhz", "free_clk_mhz", "gt_bits"], "frame_bits = 256\nuser_bits = 64\nclocking = \"recovered\"\ngt_bits = 64"),
    ("rifl", &["user_clk_ratio"], "frame_bits = 128\nuser_bits = 32\nlanes = 2"),
];

/// Top ends of ranges swept at a smaller value in the default run, because the top end makes
/// one module large enough that linting or simulating it alone takes minutes: the CRC and
/// GF(2^m) networks grow with the square of their input width, an RS decoder with its check
/// symbols, the SUE packer with its destinations. `RTLGEN_LONG=1` sweeps the full ranges.
pub const CAPS: &[(&str, &str, u64)] = &[
    ("crc", "data_bits", 512),
    ("crc", "xor_window", 512),
    ("rs_crc", "data_bytes", 64),
    ("crc_stream", "word_bytes", 16),
    ("rs_fec", "check_symbols", 16),
    ("rs_fec", "msg_bytes", 64),
    ("rs_fec", "msg_symbols", 64),
    ("rs_fec", "symbols_per_cycle", 64),
    ("recxl_logging_unit", "num_nodes", 16),
    ("recxl_logging_unit", "cores_per_node", 16),
    ("recxl_logging_unit", "sram_rows", 64),
    ("recxl_logging_unit", "fetch_queries", 16),
    ("replay_buffer", "entry_bits", 2048),
    // The self-synchronising scrambler unrolled over a 2,048-bit frame is 107,000 shared XOR
    // nodes (7 MB of Verilog) that Verilator lints in two to four minutes; 512 builds the same
    // network from the same code.
    ("rifl", "frame_bits", 512),
    // A 1,024-destination packer is 4.5 MB of Verilog (a queue, counters and arbiter terms per
    // destination and VC) and takes Icarus a minute and a half; 64 keeps every structure.
    ("sue_packer", "num_xpu", 64),
];

/// One design of the sweep: `kind`'s base block with `field` set to `value` (TOML text).
#[derive(Debug, Clone)]
pub struct Variant {
    pub kind: &'static str,
    pub field: &'static str,
    pub value: String,
    pub design: String,
}

impl Variant {
    pub fn label(&self) -> String {
        format!("{}.{} = {}", self.kind, self.field, self.value)
    }
}

pub fn base(kind: &str) -> &'static str {
    BASES.iter().find(|(k, _)| *k == kind).map(|(_, b)| *b).unwrap_or_else(|| panic!("no sweep base for kind {kind}: add one to BASES"))
}

fn cap(kind: &str, field: &str) -> Option<u64> {
    if std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1") {
        return None;
    }
    CAPS.iter().find(|(k, f, _)| *k == kind && *f == field).map(|(_, _, c)| *c)
}

/// The base `field` of `kind` is swept on: its own one in [`OTHER_BASES`], else the kind's.
fn base_for(kind: &str, field: &str) -> &'static str {
    OTHER_BASES.iter().find(|(k, fields, _)| *k == kind && fields.contains(&field)).map_or_else(|| base(kind), |(_, _, b)| *b)
}

/// The design text of `kind`'s base block with `field` set to `value` (or unchanged).
pub fn design(kind: &str, set: Option<(&str, &str)>) -> String {
    let base = set.map_or_else(|| base(kind), |(field, _)| base_for(kind, field));
    let mut lines: Vec<String> = base.lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
    if let Some((field, value)) = set {
        lines.retain(|l| l.split('=').next().map(str::trim) != Some(field));
        lines.push(format!("{field} = {value}"));
    }
    format!("[design]\nname = \"sweep\"\n\n[[blocks]]\nkind = \"{kind}\"\nname = \"b\"\n{}\n", lines.join("\n"))
}

/// One design holding every kind's base block (each named after its kind), with the design's
/// reset style `reset` (`"sync_high"` or `"async_low"`); the kinds whose base is combinational
/// (CRC and RS networks) are pipelined one stage, so every kind has registers to reset.
pub fn every_kind_design(reset: &str) -> String {
    let mut text = format!("[design]\nname = \"kinds\"\nreset = \"{reset}\"\n");
    for (kind, fields) in BASES {
        let pipeline = if ["crc", "rs_crc", "rs_fec"].contains(kind) { "pipeline = 1\n" } else { "" };
        text.push_str(&format!("\n[[blocks]]\nkind = \"{kind}\"\nname = \"{kind}\"\n{fields}\n{pipeline}"));
    }
    text
}

/// The values a field is swept to, as TOML text.
fn values(kind: &str, spec: &FieldSpec) -> Vec<String> {
    match spec.ty {
        FieldType::UInt { min, max } => {
            let top = cap(kind, spec.name).map_or(max, |c| c.min(max));
            let mut v = vec![min.to_string()];
            if top != min {
                v.push(top.to_string());
            }
            v
        }
        FieldType::Bool => vec!["true".into(), "false".into()],
        FieldType::Choice(options) => options.iter().map(|o| format!("\"{o}\"")).collect(),
        FieldType::Bits { width_field } => {
            let width: u32 = base(kind)
                .lines()
                .find_map(|l| l.strip_prefix(width_field).and_then(|r| r.trim().strip_prefix('=')).map(|v| v.trim().parse().expect("width")))
                .unwrap_or(64);
            let ones = if width >= 128 { u128::MAX } else { (1u128 << width) - 1 };
            vec!["\"0x0\"".into(), format!("\"0x{ones:X}\"")]
        }
    }
}

fn kinds() -> impl Iterator<Item = &'static dyn BlockKind> {
    blocks::KINDS.iter().copied()
}

/// Every one-field variant of every kind's base, the base itself first for each kind
/// (`field` = "", `value` = "").
pub fn all() -> Vec<Variant> {
    select(|_| true)
}

/// The variants of the enumerated fields (choices and booleans) only: each at every value.
pub fn enumerated() -> Vec<Variant> {
    select(|s| matches!(s.ty, FieldType::Bool | FieldType::Choice(_)))
}

fn select(keep: impl Fn(&FieldSpec) -> bool) -> Vec<Variant> {
    let mut out = Vec::new();
    for k in kinds() {
        out.push(Variant { kind: k.kind(), field: "", value: String::new(), design: design(k.kind(), None) });
        for spec in k.fields().iter().filter(|s| keep(s)) {
            for value in values(k.kind(), spec) {
                out.push(Variant { kind: k.kind(), field: spec.name, value: value.clone(), design: design(k.kind(), Some((spec.name, &value))) });
            }
        }
    }
    out
}

/// A module's text without its banner (the comment block before `` `default_nettype``), so
/// modules that differ only in the parameters their banner lists count once.
pub fn body(text: &str) -> &str {
    text.find("`default_nettype").map_or(text, |i| &text[i..])
}

/// A RAM wrapper's shape class: one template whose only variables are the width and the depth,
/// so the sweeps check one wrapper per read style and RAM style, plus the degenerate ends of the
/// template (a 1-bit word, a 1-bit address), which print differently.
pub fn ram_shape_class(read: &str, output_register: bool, style: &str, width: u64, depth: u64) -> String {
    format!("ram wrapper: read {read}, output register {output_register}, style {style}, 1-bit word {}, 1-bit address {}", width == 1, depth <= 2)
}
