//! RAM wrappers as SRAM macros (`rtl-gen asic --ram macro`, the default): each
//! synchronous-read RAM wrapper under the mapped module (`<prefix>ram_1r1w_<W>x<D>`,
//! `<prefix>lutram_1r1w_<W>x<D>`, role `ram` in the manifest) is kept as a black box, one
//! instance per array, while the rest of the module is flattened and mapped to standard cells
//! — the netlist an ASIC team gets once its SRAM compiler's macro stands in for the wrapper.
//! Asynchronous-read wrappers (`ram_1r1w_async_*`, a few words read combinationally) stay
//! flip-flops: an SRAM compiler makes no asynchronous read port, a register file is what such an
//! array becomes.
//!
//! OpenSTA times the paths to and from the macro pins with a Liberty model of each shape,
//! [`liberty`]: the wrapper's ports treated as a register boundary, as its RTL describes them
//! (every input sampled at the rising edge of `clk`, `rd_data` launched by it): setup
//! [`MacroTiming::setup_ns`] and hold [`MacroTiming::hold_ns`] on every input,
//! clock-to-output [`MacroTiming::clk_to_out_ns`] on `rd_data`. The defaults are about the OSU
//! 0.18 µm `DFFPOSX1` flip-flop's, the cell the wrapper's read register maps
//! to in `--ram flops`, so the two modes time the logic around the array alike; a real
//! macro's access time is longer, and a team replaces this model with its compiler's Liberty
//! file. The model has no area: the table's area is the standard cells', the macros are
//! listed by shape and bits.

use crate::tools::TreeManifest;
use serde::Serialize;

/// How RAM wrappers are synthesized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RamMode {
    /// Synchronous-read wrappers kept as black boxes (SRAM macros).
    Macro,
    /// Every wrapper flattened into flip-flops and read multiplexers.
    Flops,
}

impl RamMode {
    pub fn parse(s: &str) -> Result<RamMode, String> {
        match s {
            "macro" => Ok(RamMode::Macro),
            "flops" => Ok(RamMode::Flops),
            other => Err(format!("`{}` is neither macro nor flops", other.escape_debug())),
        }
    }
}

/// The assumed timing of every macro pin, ns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MacroTiming {
    /// `clk` rising to `rd_data` valid.
    pub clk_to_out_ns: f64,
    /// Every input before the rising edge of `clk`.
    pub setup_ns: f64,
    /// Every input after it.
    pub hold_ns: f64,
}

/// About the OSU 0.18 µm `DFFPOSX1`'s clock-to-Q and setup (OpenSTA on mapped modules of the
/// default design: clock-to-Q 0.295 ns at a light load, setup 0.14 to 0.18 ns with the input's
/// slew).
pub const DEFAULT_TIMING: MacroTiming = MacroTiming { clk_to_out_ns: 0.30, setup_ns: 0.15, hold_ns: 0.05 };

/// A RAM wrapper kept as a macro: its module and ports (from the manifest).
#[derive(Debug, Clone, PartialEq)]
pub struct Wrapper {
    pub module: String,
    pub width: u32,
    pub depth: u32,
    /// `(name, input?, width)` in the manifest's order.
    pub ports: Vec<(String, bool, u32)>,
}

/// A macro of the mapped netlist: its shape and how many instances.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RamMacro {
    pub module: String,
    pub width: u32,
    pub depth: u32,
    pub count: u64,
    /// `width × depth × count`.
    pub bits: u64,
}

fn param_u32(m: &crate::tools::TreeModule, key: &str) -> Option<u32> {
    m.params.get(key).and_then(|v| v.as_u64()).and_then(|v| u32::try_from(v).ok())
}

/// The synchronous-read RAM wrappers in the hierarchy under `module` (not `module` itself:
/// a wrapper mapped on its own is mapped to flip-flops).
pub fn wrappers(manifest: &TreeManifest, module: &str) -> Vec<Wrapper> {
    let mut names: Vec<String> = Vec::new();
    let mut stack = vec![module.to_string()];
    while let Some(n) = stack.pop() {
        if let Some(m) = manifest.modules.iter().find(|m| m.name == n) {
            for d in &m.depends {
                if !names.contains(d) {
                    names.push(d.clone());
                    stack.push(d.clone());
                }
            }
        }
    }
    names.sort();
    names
        .iter()
        .filter_map(|n| manifest.modules.iter().find(|m| &m.name == n))
        .filter(|m| m.role.as_deref() == Some("ram") && m.params.get("read").and_then(|v| v.as_str()) == Some("sync"))
        .filter_map(|m| {
            Some(Wrapper {
                module: m.name.clone(),
                width: param_u32(m, "width")?,
                depth: param_u32(m, "depth")?,
                ports: m.ports.iter().map(|p| (p.name.clone(), p.dir == "input", p.width)).collect(),
            })
        })
        .collect()
}

/// The macros of a mapped netlist: each wrapper with its instance count (`cell_counts` from
/// Yosys's `stat`); wrappers the netlist does not instantiate are left out.
pub fn used(wrappers: &[Wrapper], cell_counts: &std::collections::BTreeMap<String, u64>) -> Vec<RamMacro> {
    wrappers
        .iter()
        .filter_map(|w| {
            let count = *cell_counts.get(&w.module)?;
            Some(RamMacro { module: w.module.clone(), width: w.width, depth: w.depth, count, bits: u64::from(w.width) * u64::from(w.depth) * count })
        })
        .collect()
}

/// A Liberty library with one cell per wrapper: the pins of its ports, the timing of
/// [`MacroTiming`] (setup/hold checks against `clk` on every input, a rising-edge arc to every
/// output), no area, `dont_use` (a mapper never picks it). Units as the OSU libraries'.
pub fn liberty(wrappers: &[Wrapper], t: &MacroTiming) -> String {
    let scalar = |name: &str, v: f64| format!("{name} (scalar) {{ values (\"{v:.3}\"); }} ");
    let mut widths: Vec<u32> = wrappers.iter().flat_map(|w| w.ports.iter().map(|p| p.2)).filter(|&w| w > 1).collect();
    widths.sort_unstable();
    widths.dedup();
    let mut s = String::from(
        "/* RAM macro timing models written by rtl-gen asic --ram macro: the wrapper's ports as a register\n   \
         boundary (setup/hold on every input, clock-to-output on rd_data, against clk). Replace with the\n   \
         SRAM compiler's Liberty file. */\nlibrary (rtlgen_ram_macros) {\n  delay_model : table_lookup;\n  time_unit : \"1ns\";\n  voltage_unit : \"1V\";\n  \
         current_unit : \"1uA\";\n  pulling_resistance_unit : \"1kohm\";\n  leakage_power_unit : \"1nW\";\n  capacitive_load_unit (1,pf);\n  \
         nom_process : 1;\n  nom_temperature : 25;\n  nom_voltage : 1.8;\n  default_max_transition : 2.0;\n  \
         input_threshold_pct_rise : 50;\n  input_threshold_pct_fall : 50;\n  output_threshold_pct_rise : 50;\n  output_threshold_pct_fall : 50;\n  \
         slew_lower_threshold_pct_rise : 20;\n  slew_lower_threshold_pct_fall : 20;\n  slew_upper_threshold_pct_rise : 80;\n  slew_upper_threshold_pct_fall : 80;\n",
    );
    for w in &widths {
        s.push_str(&format!("  type (rtlgen_bus_{w}) {{ base_type : array; data_type : bit; bit_width : {w}; bit_from : {}; bit_to : 0; downto : true; }}\n", w - 1));
    }
    for w in wrappers {
        s.push_str(&format!("  cell ({}) {{\n    area : 0;\n    dont_use : true;\n    dont_touch : true;\n", w.module));
        for (name, input, width) in &w.ports {
            let (group, bus_type) = if *width > 1 { ("bus", format!(" bus_type : rtlgen_bus_{width};")) } else { ("pin", String::new()) };
            if name == "clk" {
                s.push_str("    pin (clk) { direction : input; clock : true; capacitance : 0.01; }\n");
            } else if *input {
                let check = |kind: &str, v: f64| format!("timing () {{ related_pin : \"clk\"; timing_type : {kind}_rising; {}{}}} ", scalar("rise_constraint", v), scalar("fall_constraint", v));
                s.push_str(&format!("    {group} ({name}) {{{bus_type} direction : input; capacitance : 0.005; {}{}}}\n", check("setup", t.setup_ns), check("hold", t.hold_ns)));
            } else {
                let arc = format!(
                    "timing () {{ related_pin : \"clk\"; timing_type : rising_edge; {}{}{}{}}} ",
                    scalar("cell_rise", t.clk_to_out_ns),
                    scalar("cell_fall", t.clk_to_out_ns),
                    scalar("rise_transition", 0.1),
                    scalar("fall_transition", 0.1)
                );
                s.push_str(&format!("    {group} ({name}) {{{bus_type} direction : output; max_capacitance : 1.0; {arc}}}\n"));
            }
        }
        s.push_str("  }\n");
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrapper() -> Wrapper {
        Wrapper {
            module: "x_ram_1r1w_64x16".into(),
            width: 64,
            depth: 16,
            ports: [("clk", true, 1), ("wr_en", true, 1), ("wr_addr", true, 4), ("wr_data", true, 64), ("rd_en", true, 1), ("rd_addr", true, 4), ("rd_data", false, 64)]
                .map(|(n, i, w)| (n.to_string(), i, w))
                .to_vec(),
        }
    }

    #[test]
    fn each_shape_is_a_cell_with_checks_on_inputs_and_an_arc_to_the_output() {
        let lib = liberty(&[wrapper()], &DEFAULT_TIMING);
        assert!(lib.contains("cell (x_ram_1r1w_64x16)") && lib.contains("pin (clk) { direction : input; clock : true;"), "{lib}");
        assert!(lib.contains("type (rtlgen_bus_4)") && lib.contains("type (rtlgen_bus_64)") && !lib.contains("rtlgen_bus_1)"), "{lib}");
        assert!(lib.contains("bus (wr_addr) { bus_type : rtlgen_bus_4; direction : input;"), "{lib}");
        assert_eq!(lib.matches("timing_type : setup_rising").count(), 5, "wr_en, wr_addr, wr_data, rd_en, rd_addr");
        assert_eq!(lib.matches("timing_type : hold_rising").count(), 5);
        assert!(lib.contains("bus (rd_data) { bus_type : rtlgen_bus_64; direction : output;") && lib.contains("cell_rise (scalar) { values (\"0.300\"); }"), "{lib}");
        assert_eq!(lib.matches('{').count(), lib.matches('}').count());
    }

    #[test]
    fn macros_are_counted_by_shape() {
        let counts = [("x_ram_1r1w_64x16".to_string(), 2u64), ("AND2X1".into(), 9)].into_iter().collect();
        let used = used(&[wrapper()], &counts);
        assert_eq!(used, [RamMacro { module: "x_ram_1r1w_64x16".into(), width: 64, depth: 16, count: 2, bits: 2048 }]);
        assert!(super::used(&[wrapper()], &Default::default()).is_empty());
        assert_eq!(RamMode::parse("flops"), Ok(RamMode::Flops));
        assert!(RamMode::parse("sram").expect_err("bad").contains("macro nor flops"));
    }
}
