//! The parasitics qrouter extracted from the routed wires (its `.rc` RC trees, turned into
//! SPEF by qflow's `rc2dly -D :`), repaired so that OpenSTA reads them as meant:
//!
//! - `rc2dly` writes the LEF's capacitances, which are in pF, under `*C_UNIT 1 FF`: the unit
//!   line is set to `1 PF` (a 1,000× error otherwise; checked against the LEF's per-µm² figure
//!   in the test below);
//! - internal nodes are written `N_M` where SPEF wants `*N:M` (the net's mapped name, the
//!   delimiter, the node number); OpenSTA otherwise drops every resistor of the net;
//! - a net of a vector Yosys split (`_0_[3]`) is `_0__3_` in the netlist qflow routes: the name
//!   map takes the netlist's spelling.

use std::collections::HashSet;

/// The nets of a structural Verilog netlist: every `.PIN(net)` connection.
pub fn netlist_nets(verilog: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for part in verilog.split('.').skip(1) {
        if let Some((_, rest)) = part.split_once('(') {
            if let Some((net, _)) = rest.split_once(')') {
                let net = net.trim();
                if !net.is_empty() {
                    out.insert(net.to_string());
                }
            }
        }
    }
    out
}

fn internal_node(token: &str) -> Option<String> {
    let (net, node) = token.split_once('_')?;
    (!net.is_empty() && !node.is_empty() && net.bytes().all(|b| b.is_ascii_digit()) && node.bytes().all(|b| b.is_ascii_digit())).then(|| format!("*{net}:{node}"))
}

/// The repaired SPEF text.
pub fn repair(spef: &str, nets: &HashSet<String>) -> String {
    let mut out = String::with_capacity(spef.len() + spef.len() / 8);
    let mut in_name_map = false;
    for line in spef.lines() {
        let t = line.trim();
        if t == "*C_UNIT 1 FF" {
            out.push_str("*C_UNIT 1 PF\n");
            continue;
        }
        if t == "*NAME_MAP" {
            in_name_map = true;
        } else if t.starts_with("*D_NET") || t.starts_with("*PORTS") {
            in_name_map = false;
        }
        if in_name_map {
            if let Some((key, name)) = t.split_once(' ') {
                if name.contains('[') && !nets.contains(name) {
                    let flat = name.replace(['[', ']'], "_");
                    if nets.contains(&flat) {
                        out.push_str(&format!("{key} {flat}\n"));
                        continue;
                    }
                }
            }
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let words: Vec<String> = line.split_whitespace().map(|w| internal_node(w).unwrap_or_else(|| w.to_string())).collect();
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rc2dly_spef_is_repaired_for_opensta() {
        let spef = "*C_UNIT 1 FF\n*NAME_MAP\n*1 clk\n*2 _0_[3]\n*3 data[1]\n\n*D_NET *1 0.0084\n*CAP\n1 1_1 0.0008886\n*RES\n1 *1 1_1 3.7\n2 1_1 *2:CLK 0\n*END\n";
        let nets: HashSet<String> = ["clk", "_0__3_", "data[1]"].iter().map(|s| s.to_string()).collect();
        let fixed = repair(spef, &nets);
        assert!(fixed.starts_with("*C_UNIT 1 PF\n"), "{fixed}");
        assert!(fixed.contains("*2 _0__3_\n") && fixed.contains("*3 data[1]\n"), "{fixed}");
        assert!(fixed.contains("1 *1:1 0.0008886\n") && fixed.contains("2 *1:1 *2:CLK 0\n"), "{fixed}");
        // The LEF's metal1 is 0.3 µm wide at 3.8e-5 pF/µm² plus 2 × 8e-5 pF/µm of edge: a few
        // µm of wire is a few 1e-4 pF, the size of rc2dly's figures, so they are pF.
        let per_um = 0.3 * 3.8e-5 + 2.0 * 8e-5;
        assert!((0.0008886 / per_um) > 1.0 && (0.0008886 / per_um) < 20.0);
        assert_eq!(netlist_nets("DFFPOSX1 D1 ( .D(_0__3_), .CLK(clk), .Q(q[0]) );"), ["_0__3_", "clk", "q[0]"].iter().map(|s| s.to_string()).collect());
    }
}
