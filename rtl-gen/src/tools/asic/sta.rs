//! OpenSTA (`sta`, Debian package `qflow`) over a mapped netlist with the SDC the generator
//! emitted: the Tcl script and what is read back from its report.
//!
//! The script prints markers around each report so that each is parsed from its own section:
//! `check_setup -verbose` (clocks, unconstrained endpoints, ports without input or output
//! delay, combinational loops; silent when every check passes), the worst setup path in full,
//! and `report_power` (with OpenSTA's default switching activity: no simulation activity is
//! annotated, so the figure is an estimate for comparing modules, not a sign-off number).

use serde::Serialize;

pub const CHECK_MARK: &str = "RTLGEN-CHECK-SETUP";
pub const PATH_MARK: &str = "RTLGEN-WORST-PATH";
pub const POWER_MARK: &str = "RTLGEN-POWER";
pub const END_MARK: &str = "RTLGEN-END";

/// The Tcl script. Paths are quoted words from [`crate::tools::yosys_word`] (no `$`, `[`, `\`,
/// `"` inside, so Tcl substitutes nothing in them); `top` is a checked identifier. With
/// `period_ns`, the clock `clk` is redefined after the SDC (its input/output delays and
/// uncertainty stay as emitted).
pub fn script(liberty: &str, netlist: &str, top: &str, sdc: &str, period_ns: Option<f64>) -> String {
    let clock = period_ns.map(|p| format!("create_clock -name clk -period {p:.3} [get_ports -quiet clk]\n")).unwrap_or_default();
    format!(
        "read_liberty {liberty}\nread_verilog {netlist}\nlink_design {top}\nread_sdc {sdc}\n{clock}\
         puts {CHECK_MARK}\ncheck_setup -verbose\n\
         puts {PATH_MARK}\nreport_checks -path_delay max -format full -digits 3\n\
         puts {POWER_MARK}\nreport_power -digits 6\nputs {END_MARK}\nexit\n"
    )
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
        warnings: lines_with("Warning"),
        worst: parse_path(section(log, PATH_MARK, POWER_MARK)),
        power_mw: section(log, POWER_MARK, END_MARK)
            .lines()
            .find_map(|l| l.trim().strip_prefix("Total").and_then(|r| r.split_whitespace().nth(3)).and_then(|w| w.parse::<f64>().ok()))
            .map(|w| w * 1e3),
    }
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
    }

    #[test]
    fn the_clock_is_redefined_after_the_sdc_only_when_asked() {
        let s = script("\"l.lib\"", "\"n.v\"", "top", "\"d.sdc\"", None);
        assert!(s.contains("read_sdc \"d.sdc\"\nputs RTLGEN-CHECK-SETUP") && !s.contains("create_clock"), "{s}");
        let s = script("\"l.lib\"", "\"n.v\"", "top", "\"d.sdc\"", Some(4.0));
        assert!(s.contains("read_sdc \"d.sdc\"\ncreate_clock -name clk -period 4.000 [get_ports -quiet clk]\n"), "{s}");
        let s = post_route_script("\"l.lib\"", "\"n.v\"", "top", "\"d.sdc\"", "\"r.spef\"", None);
        assert!(s.contains("link_design top\nread_spef \"r.spef\"\nread_sdc") && s.contains("set_propagated_clock [all_clocks]\nputs RTLGEN-CHECK-SETUP"), "{s}");
        assert!(s.contains("report_checks -path_delay max -sort_by_slack -format full"), "{s}");
    }
}
