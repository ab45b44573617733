//! OpenSTA (`sta`, Debian package `qflow`) over a mapped netlist with the SDC the generator
//! emitted: the Tcl script and what is read back from its report.
//!
//! The script prints markers around each report so that each is parsed from its own section:
//! `check_setup -verbose` (clocks, unconstrained endpoints, ports without input or output
//! delay, combinational loops; silent when every check passes), the worst setup path in full,
//! and `report_power` (with OpenSTA's default switching activity: no simulation activity is
//! annotated, so the figure is an estimate for comparing modules, not a sign-off number).

use serde::Serialize;

pub const SDC_MARK: &str = "RTLGEN-READ-SDC";
pub const CHECK_MARK: &str = "RTLGEN-CHECK-SETUP";
pub const PATH_MARK: &str = "RTLGEN-WORST-PATH";
pub const POWER_MARK: &str = "RTLGEN-POWER";
pub const END_MARK: &str = "RTLGEN-END";
pub const TIED_MARK: &str = "RTLGEN-MACRO-CONSTANTS";

/// The Tcl script. Paths are quoted words from [`crate::tools::yosys_word`] (no `$`, `[`, `\`,
/// `"` inside, so Tcl substitutes nothing in them); `top` is a checked identifier. With
/// `period_ns`, the clock `clk` is redefined after the SDC (its input/output delays and
/// uncertainty stay as emitted).
pub fn script(liberty: &str, netlist: &str, top: &str, sdc: &str, period_ns: Option<f64>) -> String {
    let clock = period_ns.map(|p| format!("create_clock -name clk -period {p:.3} [get_ports -quiet clk]\n")).unwrap_or_default();
    format!(
        "read_liberty {liberty}\nread_verilog {netlist}\nlink_design {top}\nputs {SDC_MARK}\nread_sdc {sdc}\n{clock}\
         puts {CHECK_MARK}\ncheck_setup -verbose\n\
         puts {PATH_MARK}\nreport_checks -path_delay max -format full -digits 3\n\
         puts {POWER_MARK}\nreport_power -digits 6\nputs {END_MARK}\nexit\n"
    )
}

/// `script` with a second Liberty library read after the first (the RAM macros' timing
/// models, a quoted word).
pub fn with_library(script: &str, liberty: &str) -> String {
    script.replacen("\nread_verilog ", &format!("\nread_liberty {liberty}\nread_verilog "), 1)
}

/// `script` listing, before `check_setup`, every pin of an instance of the `macros` (checked
/// identifiers) that the netlist ties to a constant (OpenSTA's nets `one_` and `zero_`): such
/// a pin (a read enable tied high) has no arrival, so `check_setup` counts it as an
/// unconstrained endpoint although no path can reach it ([`without_tied`]).
pub fn with_tied_macro_pins(script: &str, macros: &[String]) -> String {
    let list = macros.join(" ");
    script.replacen(
        &format!("puts {CHECK_MARK}\n"),
        &format!(
            "puts {TIED_MARK}\nset rtlgen_macros {{{list}}}\nforeach c [get_cells *] {{\n  if {{[lsearch -exact $rtlgen_macros [get_property $c ref_name]] >= 0}} {{\n    \
             foreach p [get_pins -of_objects $c] {{\n      set n [get_nets -quiet -of_objects $p]\n      \
             if {{[llength $n] == 1 && [lsearch -exact {{one_ zero_}} [get_full_name $n]] >= 0}} {{ puts \"[get_full_name $p] [get_full_name $n]\" }}\n    }}\n  }}\n}}\nputs {CHECK_MARK}\n"
        ),
        1,
    )
}

/// The macro pins tied to a constant, `pin = 0|1`, as listed by [`with_tied_macro_pins`].
pub fn tied_pins(log: &str) -> Vec<String> {
    if !log.contains(&format!("{TIED_MARK}\n")) {
        return Vec::new();
    }
    section(log, TIED_MARK, CHECK_MARK)
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            [pin, "one_"] => Some(format!("{pin} = 1")),
            [pin, "zero_"] => Some(format!("{pin} = 0")),
            _ => None,
        })
        .collect()
}

/// `check_setup` findings without the `tied` pins (`pin = v`) among the unconstrained
/// endpoints; a warning whose every listed endpoint is tied goes with them.
pub fn without_tied(problems: &[String], tied: &[String]) -> Vec<String> {
    let tied: Vec<&str> = tied.iter().filter_map(|t| t.split(" = ").next()).collect();
    let mut out = Vec::new();
    // One warning and its listed items; `dropped` when a tied pin was taken out of it.
    let mut group: Vec<String> = Vec::new();
    let mut dropped = false;
    let mut close = |group: &mut Vec<String>, dropped: bool| {
        if dropped && group.len() > 1 && group[0].contains("unconstrained endpoint") {
            // OpenSTA's count included the tied pins.
            group[0] = format!("Warning: There are {} unconstrained endpoints (macro pins tied to a constant not counted).", group.len() - 1);
        }
        if !(dropped && group.len() == 1) {
            out.append(group);
        }
        group.clear();
    };
    for line in problems {
        if line.starts_with("Warning") || line.starts_with("Error") {
            close(&mut group, dropped);
            dropped = false;
            group.push(line.clone());
        } else if tied.contains(&line.as_str()) {
            dropped = true;
        } else {
            group.push(line.clone());
        }
    }
    close(&mut group, dropped);
    out
}

/// The script for a routed netlist: [`script`] with the wire parasitics read after linking
/// (`spef`, a quoted word) and the clock propagated through the clock buffers the flow
/// inserted (no ideal clock once the clock net is routed); paths sorted by slack so that the
/// first one reported is the worst of every path group (the recovery checks of an
/// asynchronous reset form a group of their own).
pub fn post_route_script(liberty: &str, netlist: &str, top: &str, sdc: &str, spef: &str, period_ns: Option<f64>) -> String {
    script(liberty, netlist, top, sdc, period_ns)
        .replacen(&format!("link_design {top}\n"), &format!("link_design {top}\nread_spef {spef}\n"), 1)
        .replacen(&format!("puts {CHECK_MARK}\n"), &format!("set_propagated_clock [all_clocks]\nputs {CHECK_MARK}\n"), 1)
        .replacen("report_checks -path_delay max -format full", "report_checks -path_delay max -sort_by_slack -format full", 1)
}

/// The worst setup path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CriticalPath {
    /// Start point: a flip-flop instance or an input port.
    pub start: String,
    /// End point: a flip-flop instance or an output port.
    pub end: String,
    /// Cells the data passes through between them (start and end flip-flops not counted).
    pub depth: u64,
    pub arrival_ns: f64,
    pub slack_ns: f64,
}

/// What OpenSTA reported.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StaReport {
    /// `check_setup -verbose` output: empty when every path is constrained.
    pub setup_problems: Vec<String>,
    /// `Error:` and `Warning:` lines anywhere in the log.
    pub errors: Vec<String>,
    /// The `Warning:` lines while reading the SDC: a constraint OpenSTA dropped in part (a
    /// pattern that matched no cell), so the design is not timed as the SDC says.
    pub sdc_warnings: Vec<String>,
    pub warnings: Vec<String>,
    /// `None` when no constrained path exists.
    pub worst: Option<CriticalPath>,
    /// Total power in mW.
    pub power_mw: Option<f64>,
}

fn section<'a>(log: &'a str, from: &str, to: &str) -> &'a str {
    let start = log.find(&format!("{from}\n")).map(|i| i + from.len() + 1).unwrap_or(log.len());
    let rest = &log[start..];
    rest.find(&format!("{to}\n")).map(|i| &rest[..i]).unwrap_or(rest)
}

pub fn parse(log: &str) -> StaReport {
    let lines_with = |prefix: &str| log.lines().map(str::trim).filter(|l| l.starts_with(prefix)).map(String::from).collect::<Vec<_>>();
    StaReport {
        setup_problems: section(log, CHECK_MARK, PATH_MARK).lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect(),
        errors: lines_with("Error"),
        sdc_warnings: section(log, SDC_MARK, CHECK_MARK).lines().map(str::trim).filter(|l| l.starts_with("Warning")).map(String::from).collect(),
        warnings: lines_with("Warning"),
        worst: worst_path(section(log, PATH_MARK, POWER_MARK)),
        power_mw: section(log, POWER_MARK, END_MARK)
            .lines()
            .find_map(|l| l.trim().strip_prefix("Total").and_then(|r| r.split_whitespace().nth(3)).and_then(|w| w.parse::<f64>().ok()))
            .map(|w| w * 1e3),
    }
}

/// The path of least slack among those `report_checks` printed: one per path group, so a
/// module with an asynchronous reset gets its recovery check (`asynchronous` group) beside the
/// clock's setup path, in an order that says nothing about which is worse.
pub fn worst_path(report: &str) -> Option<CriticalPath> {
    let mut starts = report.match_indices("Startpoint:").map(|(i, _)| i).peekable();
    let mut paths = Vec::new();
    while let Some(from) = starts.next() {
        let to = starts.peek().copied().unwrap_or(report.len());
        paths.extend(parse_path(&report[from..to]));
    }
    paths.into_iter().min_by(|a, b| a.slack_ns.total_cmp(&b.slack_ns))
}

/// One `report_checks -format full` path: `Startpoint:`/`Endpoint:` lines, then the arrival
/// table (`delay time edge instance/pin (cell)`) up to `data arrival time`, then the slack.
pub fn parse_path(report: &str) -> Option<CriticalPath> {
    let field = |key: &str| report.lines().find_map(|l| l.trim().strip_prefix(key)).map(|v| v.split(" (").next().unwrap_or(v).trim().to_string());
    let start = field("Startpoint:")?;
    let end = field("Endpoint:")?;
    let slack_ns = report.lines().find(|l| l.contains("slack (")).and_then(|l| l.split_whitespace().next()).and_then(|v| v.parse().ok())?;
    let arrival_part = report.split("data arrival time").next()?;
    let arrival_ns = arrival_part.lines().rev().find_map(|l| l.split_whitespace().nth(1).and_then(|t| t.parse::<f64>().ok())).unwrap_or(0.0);
    let mut cells: Vec<&str> = Vec::new();
    for line in arrival_part.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        // `0.207 0.502 ^ _4269_/Y (INVX1)`: an instance pin with its cell; ports read `(in)`/`(out)`.
        if let [_, _, "^" | "v", pin, cell] = words[..] {
            if cell.starts_with('(') && cell != "(in)" && cell != "(out)" {
                let instance = pin.rsplit_once('/').map(|(i, _)| i).unwrap_or(pin);
                if instance != start && instance != end && !cells.contains(&instance) {
                    cells.push(instance);
                }
            }
        }
    }
    Some(CriticalPath { start, end, depth: cells.len() as u64, arrival_ns, slack_ns })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OpenSTA 2.0.17's log for the script (paths abridged).
    const LOG: &str = "RTLGEN-CHECK-SETUP
RTLGEN-WORST-PATH
Startpoint: _8895_ (rising edge-triggered flip-flop clocked by clk)
Endpoint: _7868_ (rising edge-triggered flip-flop clocked by clk)
Path Group: clk
Path Type: max

   Delay     Time   Description
-----------------------------------------------------------
   0.000    0.000   clock clk (rise edge)
   0.000    0.000   clock network delay (ideal)
   0.000    0.000 ^ _8895_/CLK (DFFPOSX1)
   0.295    0.295 v _8895_/Q (DFFPOSX1)
   0.207    0.502 ^ _4269_/Y (INVX1)
   0.095    0.597 v _4453_/Y (OAI21X1)
   0.203    0.800 ^ _4594_/Y (OAI22X1)
   0.000    0.800 ^ _7868_/D (DFFPOSX1)
            0.800   data arrival time

   2.000    2.000   clock clk (rise edge)
  -0.100    1.900   clock uncertainty
            1.900 ^ _7868_/CLK (DFFPOSX1)
  -0.144    1.756   library setup time
            1.756   data required time
-----------------------------------------------------------
            1.756   data required time
           -0.800   data arrival time
-----------------------------------------------------------
            0.956   slack (MET)


RTLGEN-POWER
Group                    Internal    Switching      Leakage        Total
                            Power        Power        Power        Power
------------------------------------------------------------------------
Sequential           2.701784e-02 5.862985e-04 1.776009e-07 2.760431e-02  67.7%
Total                3.681966e-02 3.980356e-03 3.968234e-07 4.080041e-02 100.0%
RTLGEN-END
";

    #[test]
    fn the_worst_path_power_and_checks_are_read() {
        let r = parse(LOG);
        assert!(r.setup_problems.is_empty() && r.errors.is_empty() && r.warnings.is_empty(), "{r:?}");
        let p = r.worst.expect("a path");
        assert_eq!((p.start.as_str(), p.end.as_str(), p.depth), ("_8895_", "_7868_", 3));
        assert_eq!((p.arrival_ns, p.slack_ns), (0.8, 0.956));
        assert!((r.power_mw.expect("power") - 40.80041).abs() < 1e-9);
    }

    /// An asynchronous reset's recovery check printed before the clock's setup path: the
    /// setup path, of less slack, is the worst (OpenSTA 2.0.17, abridged).
    #[test]
    fn the_worst_path_is_the_least_slack_of_every_group() {
        let log = "RTLGEN-WORST-PATH\nStartpoint: rst_n (input port clocked by clk)\n\
                   Endpoint: ack_ge_head_q_reg (recovery check against rising-edge clock clk)\n\
                   \x20  0.400    0.400 ^ rst_n (in)\n   0.000    0.400 ^ ack_ge_head_q_reg/R (DFFSR)\n            0.400   data arrival time\n\
                   \x20           1.516   slack (MET)\n\n\
                   Startpoint: ack_next_q[2]_reg (rising edge-triggered flip-flop clocked by clk)\n\
                   Endpoint: rd_inc_q[9]_reg (rising edge-triggered flip-flop clocked by clk)\n\
                   \x20  0.300    0.300 ^ ack_next_q[2]_reg/Q (DFFPOSX1)\n   0.500    0.800 v _1_/Y (NAND2X1)\n   0.900    1.700 ^ _2_/Y (OAI21X1)\n            1.700   data arrival time\n\
                   \x20          -0.707   slack (VIOLATED)\n\nRTLGEN-POWER\nRTLGEN-END\n";
        let p = parse(log).worst.expect("a path");
        assert_eq!((p.start.as_str(), p.end.as_str(), p.depth, p.slack_ns), ("ack_next_q[2]_reg", "rd_inc_q[9]_reg", 2, -0.707));
        assert_eq!(worst_path("No paths found.\n"), None);
    }

    #[test]
    fn port_paths_problems_and_errors_are_reported() {
        let log = "RTLGEN-CHECK-SETUP\nWarning: There are 3 input ports missing set_input_delay.\n  data[0]\nRTLGEN-WORST-PATH\n\
                   Startpoint: data[70] (input port clocked by clk)\nEndpoint: crc[22] (output port clocked by clk)\n\
                   \x20  0.400    0.400 v data[70] (in)\n   0.300    0.700 ^ _1_/Y (XOR2X1)\n   0.000    0.700 ^ crc[22] (out)\n            0.700   data arrival time\n\
                   \x20          -0.148   slack (VIOLATED)\nRTLGEN-POWER\nError: t.tcl, 9 report_power: no library\nRTLGEN-END\n";
        let r = parse(log);
        assert_eq!(r.setup_problems, ["Warning: There are 3 input ports missing set_input_delay.", "data[0]"]);
        assert_eq!(r.errors.len(), 1);
        let p = r.worst.expect("a path");
        assert_eq!((p.start.as_str(), p.end.as_str(), p.depth, p.slack_ns), ("data[70]", "crc[22]", 1, -0.148));
        assert_eq!(r.power_mw, None);
        assert_eq!(parse_path("No paths found.\n"), None);
        assert!(r.sdc_warnings.is_empty(), "{:?}", r.sdc_warnings);
    }

    /// OpenSTA 2.0.17 on a multicycle path whose `-to` pattern matches no cell: the line is
    /// refused (an error) and its pattern reported as a warning while the SDC is read.
    #[test]
    fn warnings_while_reading_the_sdc_are_kept_apart() {
        let log = "Warning: osu018_stdcells.lib line 1, library has no units.\nRTLGEN-READ-SDC\n\
                   Warning: d.sdc, 18 instance '*gt_word_q*' not found.\nError: d.sdc, 18 set_multicycle_path command failed.\nRTLGEN-CHECK-SETUP\nRTLGEN-END\n";
        let r = parse(log);
        assert_eq!(r.sdc_warnings, ["Warning: d.sdc, 18 instance '*gt_word_q*' not found."]);
        assert_eq!((r.warnings.len(), r.errors.len()), (2, 1));
    }

    #[test]
    fn macro_pins_tied_to_a_constant_are_not_unconstrained_endpoints() {
        let log = "RTLGEN-MACRO-CONSTANTS\nu_ram/rd_en one_\nu_b/wr_addr[3] zero_\nRTLGEN-CHECK-SETUP\n";
        let tied = tied_pins(log);
        assert_eq!(tied, ["u_ram/rd_en = 1", "u_b/wr_addr[3] = 0"]);
        assert!(tied_pins("RTLGEN-CHECK-SETUP\n").is_empty());
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(without_tied(&p(&["Warning: There is 1 unconstrained endpoint.", "u_ram/rd_en"]), &tied).is_empty());
        assert_eq!(
            without_tied(&p(&["Warning: There are 2 input ports missing set_input_delay.", "a", "Warning: There are 2 unconstrained endpoints.", "u_ram/rd_en", "_5_/D"]), &tied),
            p(&["Warning: There are 2 input ports missing set_input_delay.", "a", "Warning: There are 1 unconstrained endpoints (macro pins tied to a constant not counted).", "_5_/D"])
        );
        assert_eq!(without_tied(&p(&["Warning: loops."]), &tied), p(&["Warning: loops."]));
    }

    #[test]
    fn the_clock_is_redefined_after_the_sdc_only_when_asked() {
        let s = script("\"l.lib\"", "\"n.v\"", "top", "\"d.sdc\"", None);
        assert!(s.contains("link_design top\nputs RTLGEN-READ-SDC\nread_sdc \"d.sdc\"\nputs RTLGEN-CHECK-SETUP") && !s.contains("create_clock"), "{s}");
        let s = script("\"l.lib\"", "\"n.v\"", "top", "\"d.sdc\"", Some(4.0));
        assert!(s.contains("read_sdc \"d.sdc\"\ncreate_clock -name clk -period 4.000 [get_ports -quiet clk]\n"), "{s}");
        let s = post_route_script("\"l.lib\"", "\"n.v\"", "top", "\"d.sdc\"", "\"r.spef\"", None);
        assert!(s.contains("link_design top\nread_spef \"r.spef\"\nputs RTLGEN-READ-SDC\nread_sdc") && s.contains("set_propagated_clock [all_clocks]\nputs RTLGEN-CHECK-SETUP"), "{s}");
        assert!(s.contains("report_checks -path_delay max -sort_by_slack -format full"), "{s}");
        let s = with_tied_macro_pins(&script("\"l.lib\"", "\"n.v\"", "top", "\"d.sdc\"", None), &["x_ram".into()]);
        assert!(s.contains("puts RTLGEN-MACRO-CONSTANTS\nset rtlgen_macros {x_ram}\n") && s.contains("}\nputs RTLGEN-CHECK-SETUP\ncheck_setup"), "{s}");
        let s = with_library(&script("\"l.lib\"", "\"n.v\"", "top", "\"d.sdc\"", None), "\"m.lib\"");
        assert!(s.starts_with("read_liberty \"l.lib\"\nread_liberty \"m.lib\"\nread_verilog \"n.v\"\n"), "{s}");
    }
}
