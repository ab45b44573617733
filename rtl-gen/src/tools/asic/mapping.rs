//! Yosys standard-cell mapping of one module: generic synthesis, flip-flops to the library's
//! cells (`dfflibmap`), combinational logic to its gates with ABC against a delay target from the
//! clock (`abc -liberty -D`), then the mapped netlist as structural Verilog.
//!
//! ABC's own liberty script (`&nf`) maps for delay but never buffers: a net driving a thousand
//! flip-flop enables through one minimum-size gate then dominates every path (the 15-entry
//! replay buffer: 13.9 ns on one NOR2 at 2 ns, −16.9 ns of slack). [`ABC_SCRIPT`] is that
//! script followed by ABC's buffering and gate sizing against the same target (`buffer -p;
//! upsize; dnsize`, as OpenLane's synthesis scripts do): −1.0 ns on the same buffer for 10 %
//! more cells.
//!
//! The flip-flops keep the names of the registers they implement: after `synth` each is a
//! one-bit `$_*DFF*` cell with a private name, which `splitnets; rename -wire -suffix _reg`
//! turns into `<register>[<bit>]_reg` (the one-bit wire it drives, [`FLOP_SUFFIX`]) before
//! `dfflibmap` maps it. The emitted SDC names registers (a multicycle path into the RIFL GT
//! converter's frame registers, `*gt_word_q*`); with the `_NNN_` names of a plain mapping
//! OpenSTA finds no such cell and refuses the line. Constraining by the ports instead cannot
//! say it: the path starts and ends at registers inside the module.

use std::collections::BTreeMap;

/// Marks the log line after which the `stat` of the mapped netlist follows.
pub const STAT_MARK: &str = "RTLGEN-ASIC-STAT";

/// What `rename -wire` appends to a register bit's name to name its flip-flop.
pub const FLOP_SUFFIX: &str = "_reg";

/// Yosys 0.23's `abc -liberty -D` script (`&nf` delay mapping) plus buffering and sizing, in
/// `abc -script +…` form (commas for blanks; Yosys substitutes `{D}`, the delay target in ps).
pub const ABC_SCRIPT: &str = "+strash;&get,-n;&fraig,-x;&put;scorr;dc2;dretime;strash;&get,-n;&dch,-f;&nf,{D};&put;buffer,-p;upsize,{D};dnsize,{D}";

/// The Yosys script mapping `top` from `files` to the library `liberty` and writing the netlist
/// to `netlist`. `files`, `liberty` and `netlist` are quoted script words
/// ([`crate::tools::yosys_words`]); `top` a checked identifier; `delay_ps` ABC's target;
/// `macros` the modules kept as black boxes (checked identifiers: RAM wrappers, emptied by
/// `blackbox` before `synth -flatten`, which then keeps their instances). Flip-flops are named
/// after their register bits.
pub fn script(files: &str, top: &str, liberty: &str, delay_ps: u64, netlist: &str, macros: &[String]) -> String {
    let blackbox = if macros.is_empty() { String::new() } else { format!(" blackbox {};", macros.join(" ")) };
    format!(
        "read_verilog {files};{blackbox} synth -flatten -top {top}; splitnets; rename -wire -suffix {FLOP_SUFFIX} t:$_*DFF*; dfflibmap -liberty {liberty}; abc -liberty {liberty} -D {delay_ps} -script {ABC_SCRIPT}; splitnets; opt_clean -purge; \
         log {STAT_MARK}; stat -liberty {liberty}; write_verilog -noattr -noexpr -simple-lhs {netlist}"
    )
}

/// What `stat -liberty` says of the mapped netlist.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MappedStat {
    pub cells: u64,
    /// Instances per library cell.
    pub cell_counts: BTreeMap<String, u64>,
    /// Sum of the cells' Liberty `area` (µm² for the OSU libraries).
    pub area: f64,
}

/// The statistics after [`STAT_MARK`] in a Yosys log; `None` when the log has no mapped
/// statistics (a failed run).
pub fn parse_stat(log: &str) -> Option<MappedStat> {
    let (_, after) = log.split_once(&format!("\n{STAT_MARK}"))?;
    let mut stat = MappedStat::default();
    let mut in_cells = false;
    let mut seen_area = false;
    for line in after.lines() {
        let t = line.trim();
        if let Some(n) = t.strip_prefix("Number of cells:") {
            stat.cells = n.trim().parse().ok()?;
            in_cells = true;
            continue;
        }
        if let Some(rest) = t.strip_prefix("Chip area for module") {
            stat.area = rest.rsplit(':').next()?.trim().parse().ok()?;
            seen_area = true;
            break;
        }
        if in_cells {
            let mut parts = t.split_whitespace();
            match (parts.next(), parts.next(), parts.next()) {
                (Some(cell), Some(n), None) => {
                    if let Ok(n) = n.parse() {
                        stat.cell_counts.insert(cell.to_string(), n);
                    }
                }
                _ if t.is_empty() => in_cells = false,
                _ => {}
            }
        }
    }
    // A netlist with no cell at all has no area line; anything else must have one.
    (seen_area || stat.cells == 0).then_some(stat)
}

/// Instances of the `sequential` cells in `stat`.
pub fn flip_flops(stat: &MappedStat, sequential: &[String]) -> u64 {
    sequential.iter().filter_map(|c| stat.cell_counts.get(c)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end of Yosys 0.23's log for a mapped module (abridged).
    const LOG: &str = "   Number of cells:               9999
     $_DFF_P_                      5

RTLGEN-ASIC-STAT

8. Printing statistics.

=== rtlgen_x ===

   Number of wires:                 12
   Number of cells:                 7
     DFFPOSX1                        2
     INVX1                           1
     XOR2X1                          4

   Chip area for module '\\rtlgen_x': 416.000000

";

    #[test]
    fn the_mapped_statistics_are_read_after_the_mark() {
        let s = parse_stat(LOG).expect("statistics");
        assert_eq!(s.cells, 7);
        assert_eq!(s.area, 416.0);
        assert_eq!(s.cell_counts.get("XOR2X1"), Some(&4));
        assert!(!s.cell_counts.contains_key("$_DFF_P_"), "synth's own stat precedes the mark");
        assert_eq!(flip_flops(&s, &["DFFPOSX1".into(), "DFFSR".into()]), 2);
        assert_eq!(parse_stat("ERROR: syntax error\n"), None);
    }

    #[test]
    fn the_script_maps_to_the_library_with_the_delay_target() {
        let s = script("\"a.v\"", "top", "\"l.lib\"", 2000, "\"n.v\"", &[]);
        assert!(s.contains("dfflibmap -liberty \"l.lib\"") && s.contains("abc -liberty \"l.lib\" -D 2000 -script +strash;"), "{s}");
        assert!(s.ends_with("write_verilog -noattr -noexpr -simple-lhs \"n.v\""), "OpenSTA reads no concatenation on the left of an assign: {s}");
        assert!(!ABC_SCRIPT.contains(' '), "blanks are commas in an `abc -script +…` argument");
        assert!(s.starts_with("read_verilog \"a.v\"; synth -flatten"), "{s}");
        assert!(s.contains("synth -flatten -top top; splitnets; rename -wire -suffix _reg t:$_*DFF*; dfflibmap"), "flip-flops named after their registers before mapping: {s}");
        let s = script("\"a.v\"", "top", "\"l.lib\"", 2000, "\"n.v\"", &["x_ram_1r1w_8x4".into(), "x_ram_1r1w_9x4".into()]);
        assert!(s.starts_with("read_verilog \"a.v\"; blackbox x_ram_1r1w_8x4 x_ram_1r1w_9x4; synth -flatten -top top;"), "{s}");
    }
}
