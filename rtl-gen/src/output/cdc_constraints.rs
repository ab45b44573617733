//! Timing constraints of a module with several clocks (`<module>.xdc`, `<module>.sdc`, beside the
//! design's own files): one `create_clock` per clock port at the frequency of the block's
//! `<clock>_mhz` field, and every clock-domain crossing the module makes, read from its tree:
//! a crossing is a CDC-kit synchronizer (`hw::cdc`), whose first flop `<name>_s1` is loaded from
//! a register of another domain. Nothing else crosses in a generated module (the structural CDC
//! check in the test suite holds the generators to that), except an asynchronous FIFO's storage,
//! which is written in one domain and read in the other.

use crate::elab::ElabModule;
use crate::hw::verilog::{Expr, Item, Stmt};
use std::fmt::Write;

/// A crossing: register `from` (in some other domain) sampled by synchronizer flop `to` on
/// `clock`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crossing {
    pub from: String,
    pub to: String,
    pub clock: String,
}

/// The clock ports of `m`: `clk` and every `*_clk` input.
pub fn clock_ports(m: &ElabModule) -> Vec<String> {
    m.ports().iter().filter(|p| p.dir == crate::hw::verilog::Dir::Input && p.width == 1 && (p.name == "clk" || p.name.ends_with("_clk"))).map(|p| p.name.clone()).collect()
}

/// Whether the module gets constraint files of its own (it has more than one clock).
pub fn multi_clock(m: &ElabModule) -> bool {
    clock_ports(m).len() > 1
}

/// A clock of the constraint files: its name there, the port (or bit of a port) it enters on,
/// its frequency.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstraintClock {
    pub name: String,
    pub port: String,
    pub mhz: f64,
}

/// How many times `clk` a `<side>_fast_clk` of `m` runs (see [`crate::hw::cdc::same_source`]):
/// RIFL's fast TX clock carries a frame of `frame_bits` as words of `gt_bits`, one per cycle.
pub fn fast_ratio(m: &ElabModule) -> Option<u32> {
    let param = |key: &str| m.params.iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.as_u64());
    Some((param("frame_bits")? / param("gt_bits")?) as u32)
}

/// How many times `clk` the related clock `port` of `m` runs: `user_clk` at the block's
/// `user_clk_ratio`, a `<side>_fast_clk` at [`fast_ratio`].
pub fn related_ratio(m: &ElabModule, port: &str) -> Option<u32> {
    if port == "user_clk" {
        return m.params.iter().find(|(k, _)| *k == "user_clk_ratio").and_then(|(_, v)| v.as_u64()).map(|r| r as u32);
    }
    fast_ratio(m)
}

/// The registers a related clock's multicycle paths end at (from `clk`) and start from (to
/// `clk`), as name patterns: the GT width converter's frame registers; the temporal bonding
/// stages' `bond_*` registers, of which `bond_out_*` and `bond_ready_q` are read by `clk`.
fn multicycle_cells(fast: &str) -> (&'static [&'static str], &'static [&'static str]) {
    if fast == "user_clk" {
        (&["bond_*_q"], &["bond_out_*_q", "bond_ready_q"])
    } else {
        (&["gt_hold_q", "gt_word_q"], &[])
    }
}

/// Vivado's and OpenSTA's forms of a cell list by name patterns.
fn xdc_cells(patterns: &[&str]) -> String {
    format!("[get_cells -hier -filter {{{}}}]", patterns.iter().map(|p| format!("NAME =~ *{p}_reg*")).collect::<Vec<_>>().join(" || "))
}
fn sdc_cells(patterns: &[&str]) -> String {
    format!("[get_cells -hierarchical {{{}}}]", patterns.iter().map(|p| format!("*{p}*")).collect::<Vec<_>>().join(" "))
}

/// Every clock the constraint files of `m` create: `clk`, each 1-bit `*_clk` input and each bit
/// of a vector `*_clk` input (a recovered clock per lane: bit k is clock `<port>_<k>`), at the
/// block's `<port>_mhz` field, else the design's clock; a `<side>_fast_clk` at its ratio times
/// `clk`, and with one the other clocks without a field of their own at that ratio too.
pub fn constraint_clocks(m: &ElabModule, design_mhz: f64) -> Vec<ConstraintClock> {
    let mut out = Vec::new();
    // With a fast clock (a transceiver-width RIFL node) a recovered clock without a frequency
    // of its own is the far end's fast clock.
    let mhz_of = |port: &str| {
        let key = format!("{port}_mhz");
        let own = if port == "clk" { design_mhz } else { design_mhz * f64::from(fast_ratio(m).unwrap_or(1)) };
        m.params.iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.as_f64()).unwrap_or(own)
    };
    for p in m.ports().iter().filter(|p| p.dir == crate::hw::verilog::Dir::Input && (p.name == "clk" || p.name.ends_with("_clk"))) {
        let mhz = match related_ratio(m, &p.name).filter(|_| crate::hw::cdc::same_source("clk", &p.name)) {
            Some(r) => design_mhz * f64::from(r),
            None => mhz_of(&p.name),
        };
        if p.width == 1 {
            out.push(ConstraintClock { name: p.name.clone(), port: p.name.clone(), mhz });
        } else {
            out.extend((0..p.width).map(|k| ConstraintClock { name: format!("{}_{k}", p.name), port: format!("{{{}[{k}]}}", p.name), mhz }));
        }
    }
    out
}

/// Whether `m` gets constraint files of its own: more than one clock, counting each bit of a
/// vector clock port.
pub fn needs_constraints(m: &ElabModule) -> bool {
    constraint_clocks(m, 1.0).len() > 1
}

/// The crossings of `m` and of every module under it (`hierarchy`: `m` first): a constraint file
/// read with `m` as top must bound the sub-modules' crossings too.
fn hierarchy_crossings(hierarchy: &[&ElabModule]) -> Vec<Crossing> {
    hierarchy.iter().flat_map(|h| crossings(h)).collect()
}

/// The synchronizer flops of `m` and every module under it.
fn hierarchy_sync_regs<'a>(hierarchy: &[&'a ElabModule]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for h in hierarchy {
        for i in &h.module.items {
            if let Item::SyncReg { name, .. } = i {
                if !out.contains(&name.as_str()) {
                    out.push(name.as_str());
                }
            }
        }
    }
    out
}

/// Whether storage written on one clock and read on another sits in the hierarchy (an
/// asynchronous FIFO's memory).
fn hierarchy_has_storage(hierarchy: &[&ElabModule]) -> bool {
    hierarchy.iter().any(|h| h.module.items.iter().any(|i| matches!(i, Item::LutMemory { .. } | Item::Memory { .. } | Item::UncheckedMemory { .. })))
}

/// The reset port of each clock domain of `m` (the register groups on that clock name it).
pub fn domain_resets(m: &ElabModule) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for item in &m.module.items {
        if let Item::AlwaysFfOn { domain, .. } = item {
            if !out.iter().any(|(c, _)| *c == domain.clock) {
                out.push((domain.clock.clone(), domain.reset.clone()));
            }
        }
    }
    out
}

/// The synchronizer inputs of `m`: every `*_s1` [`Item::SyncReg`] loaded from a plain register.
pub fn crossings(m: &ElabModule) -> Vec<Crossing> {
    let sync1: Vec<&str> = m.module.items.iter().filter_map(|i| if let Item::SyncReg { name, .. } = i { name.ends_with("_s1").then_some(name.as_str()) } else { None }).collect();
    let mut out = Vec::new();
    for item in &m.module.items {
        if let Item::AlwaysFfOn { domain, body, .. } = item {
            for s in body {
                if let Stmt::Assign(Expr::Ident(to), Expr::Ident(from)) = s {
                    if sync1.contains(&to.as_str()) {
                        out.push(Crossing { from: from.clone(), to: to.clone(), clock: domain.clock.clone() });
                    }
                }
            }
        }
    }
    out
}

/// MHz of each clock port: the block's `<clock>_mhz` parameter, else the design's clock.
pub fn clocks(m: &ElabModule, design_mhz: f64) -> Vec<(String, f64)> {
    clock_ports(m)
        .into_iter()
        .map(|c| {
            let key = format!("{c}_mhz");
            let mhz = m.params.iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.as_f64()).unwrap_or(design_mhz);
            (c, mhz)
        })
        .collect()
}

fn period(mhz: f64) -> f64 {
    1000.0 / mhz
}

/// The bound on every crossing: one period of the fastest clock, so a Gray pointer's bits arrive
/// within one sample of each other whichever side samples them.
fn crossing_ns(clocks: &[ConstraintClock]) -> f64 {
    clocks.iter().map(|c| period(c.mhz)).fold(f64::INFINITY, f64::min)
}

/// Vivado constraints of `m` (as top, or scoped to it with `SCOPED_TO_REF`); `hierarchy` is `m`
/// and every module under it.
pub fn xdc(m: &ElabModule, hierarchy: &[&ElabModule], design: &str, regenerate: &str, design_mhz: f64) -> String {
    let clocks = constraint_clocks(m, design_mhz);
    let bound = crossing_ns(&clocks);
    let mut s = String::new();
    let _ = writeln!(s, "# Generated by {} -- generated file: do not edit.", crate::GENERATOR);
    let _ = writeln!(s, "# Regenerate with: {regenerate}");
    let _ = writeln!(s, "# Vivado timing constraints for module {} of design {design}: {} clocks.", m.name(), clocks.len());
    let _ = writeln!(s, "# With the module as top, read as is; inside a larger design, scope it to the module:");
    let _ = writeln!(s, "#   set_property SCOPED_TO_REF {} [get_files {}.xdc]", m.name(), m.name());
    s.push('\n');
    for c in &clocks {
        let _ = writeln!(s, "create_clock -period {:.3} -name {} [get_ports {}]", period(c.mhz), c.name, c.port);
    }
    let related = related_pairs(&clocks);
    for (slow, fast) in &related {
        let r = (fast.mhz / slow.mhz).round() as u32;
        let (into_fast, out_of_fast) = multicycle_cells(&fast.port);
        let what = if out_of_fast.is_empty() {
            format!("The fast side takes the {} frame registers at the edge the two share, a whole\n# {} cycle after they are launched", slow.name, slow.name)
        } else {
            format!("The {} side samples {} signals only at the edges the two share, and its registers that {} reads\n# change only there, each way", fast.name, slow.name, slow.name)
        };
        let _ = writeln!(
            s,
            "\n# {} and {} come from one source ({} = {r} x {}, every {} rising edge one of its own): related\n\
             # clocks, timed as such. {what}: a multicycle path of {r} {} cycles. Its phase toggle is a\n\
             # one-cycle path and keeps the default timing.",
            slow.name, fast.name, fast.name, slow.name, slow.name, fast.name
        );
        let cells = xdc_cells(into_fast);
        let _ = writeln!(s, "set_multicycle_path {r} -setup -end -from [get_clocks {}] -to {cells}", slow.name);
        let _ = writeln!(s, "set_multicycle_path {} -hold -end -from [get_clocks {}] -to {cells}", r - 1, slow.name);
        if !out_of_fast.is_empty() {
            let cells = xdc_cells(out_of_fast);
            let _ = writeln!(s, "set_multicycle_path {r} -setup -start -from {cells} -to [get_clocks {}]", slow.name);
            let _ = writeln!(s, "set_multicycle_path {} -hold -start -from {cells} -to [get_clocks {}]", r - 1, slow.name);
        }
    }
    let _ = writeln!(
        s,
        "\n# The {}clocks are unrelated. Every path between them is one of the crossings below, each with a\n\
         # datapath-only maximum delay of one period of the fastest clock ({bound:.3} ns). No\n\
         # set_clock_groups -asynchronous: it would take precedence over these maximum delays and leave\n\
         # the skew between the bits of a Gray pointer unbounded.",
        if related.is_empty() { "" } else { "other " }
    );
    for x in hierarchy_crossings(hierarchy) {
        let _ = writeln!(s, "set_max_delay -datapath_only -from [get_cells -hier -filter {{NAME =~ *{}_reg*}}] -to [get_cells -hier -filter {{NAME =~ *{}_reg*}}] {bound:.3}", x.from, x.to);
        let _ = writeln!(s, "set_bus_skew -from [get_cells -hier -filter {{NAME =~ *{}_reg*}}] -to [get_cells -hier -filter {{NAME =~ *{}_reg*}}] {bound:.3}", x.from, x.to);
    }
    if hierarchy_has_storage(hierarchy) {
        let _ = writeln!(s, "# The storage: written on one clock, read by the other side's logic.");
        for (a, b) in unrelated_pairs(&clocks) {
            let _ = writeln!(s, "set_max_delay -datapath_only -from [get_clocks {}] -to [get_clocks {}] {bound:.3}", a.name, b.name);
        }
    }
    let _ = writeln!(s, "\n# Synchronizer flops (the RTL marks them too): one slice per chain, never a shift-register LUT.");
    for name in hierarchy_sync_regs(hierarchy) {
        let _ = writeln!(s, "set_property ASYNC_REG TRUE [get_cells -hier -filter {{NAME =~ *{name}_reg*}}]");
    }
    s
}

/// SDC of `m` for the ASIC flow (OpenSTA): its clocks, the design's uncertainty and I/O budget
/// per clock domain (a port belongs to the domain whose prefix it carries), and the crossings as
/// maximum delays between the clocks.
pub fn sdc(m: &ElabModule, hierarchy: &[&ElabModule], design: &str, regenerate: &str, design_mhz: f64) -> String {
    let clocks = constraint_clocks(m, design_mhz);
    let bound = crossing_ns(&clocks);
    let (unc, io) = (super::banner::SDC_UNCERTAINTY_PCT, super::banner::SDC_IO_DELAY_PCT);
    let mut s = String::new();
    let _ = writeln!(s, "# Generated by {} -- generated file: do not edit.", crate::GENERATOR);
    let _ = writeln!(s, "# Regenerate with: {regenerate}");
    let _ = writeln!(s, "# SDC timing constraints for module {} of design {design} (OpenSTA/OpenROAD): {} clocks.", m.name(), clocks.len());
    let _ = writeln!(s, "# Uncertainty {unc} % of each period; ports of a domain (named by its prefix) get {io} % of its period");
    let _ = writeln!(s, "# as input and output delay against their own clock.\n");
    for ConstraintClock { name: c, port, mhz } in &clocks {
        let p = period(*mhz);
        let _ = writeln!(s, "create_clock -name {c} -period {p:.3} [get_ports {port}]");
        let _ = writeln!(s, "set_clock_uncertainty {:.3} [get_clocks {c}]", p * f64::from(unc) / 100.0);
    }
    // A vector clock's ports carry one lane per clock bit in layouts only the module's docs give:
    // their I/O budget is left to the integrator, and said so.
    let vector: Vec<&str> = clocks.iter().filter(|c| c.port != c.name).map(|c| c.name.as_str()).collect();
    if !vector.is_empty() {
        let _ = writeln!(s, "# No input or output delays for the ports of the per-lane clocks ({}): each lane's slice of", vector.join(", "));
        let _ = writeln!(s, "# those ports is timed against its own clock by the surrounding design (the module's docs give the slices).");
    }
    // Each port belongs to the clock port with the longest prefix it carries (`clk`: no prefix).
    let clock_port_names: Vec<&str> = m.ports().iter().filter(|p| p.dir == crate::hw::verilog::Dir::Input && (p.name == "clk" || p.name.ends_with("_clk"))).map(|p| p.name.as_str()).collect();
    // A temporally bonded node's user streams (`s_axis_*`, `m_axis_*`) are `user_clk`'s.
    let user_stream = |port: &str| clock_port_names.contains(&"user_clk") && (port.starts_with("s_axis_") || port.starts_with("m_axis_"));
    let owner = |port: &str| if user_stream(port) { Some("user_clk") } else { clock_port_names.iter().copied().filter(|c| port.starts_with(c.strip_suffix("clk").unwrap_or(c))).max_by_key(|c| c.len()) };
    for ConstraintClock { name: c, mhz, .. } in clocks.iter().filter(|c| c.port == c.name) {
        let d = period(*mhz) * f64::from(io) / 100.0;
        let mine = |p: &&crate::hw::verilog::Port| !clock_port_names.contains(&p.name.as_str()) && owner(&p.name) == Some(c.as_str());
        let ins: Vec<&str> = m.ports().iter().filter(|p| p.dir == crate::hw::verilog::Dir::Input).filter(mine).map(|p| p.name.as_str()).collect();
        let outs: Vec<&str> = m.ports().iter().filter(|p| p.dir == crate::hw::verilog::Dir::Output).filter(mine).map(|p| p.name.as_str()).collect();
        if !ins.is_empty() {
            let _ = writeln!(s, "set_input_delay -clock {c} {d:.3} [get_ports {{{}}}]", ins.join(" "));
        }
        if !outs.is_empty() {
            let _ = writeln!(s, "set_output_delay -clock {c} {d:.3} [get_ports {{{}}}]", outs.join(" "));
        }
    }
    if !unrelated_pairs(&clocks).is_empty() {
        let _ = writeln!(
            s,
            "\n# The {}clocks are unrelated; every path between them is a CDC-kit crossing, bounded to one period\n# of the fastest clock ({bound:.3} ns) rather than timed as a synchronous path:{}{}",
            if related_pairs(&clocks).is_empty() { "" } else { "other " },
            hierarchy_crossings(hierarchy).iter().map(|x| format!("\n#   {} -> {} ({})", x.from, x.to, x.clock)).collect::<String>(),
            if hierarchy_has_storage(hierarchy) { "\n#   the storage, written on one clock and read by the other side" } else { "" }
        );
    }
    for (a, b) in unrelated_pairs(&clocks) {
        let _ = writeln!(s, "set_max_delay {bound:.3} -from [get_clocks {}] -to [get_clocks {}]", a.name, b.name);
    }
    for (slow, fast) in related_pairs(&clocks) {
        let r = (fast.mhz / slow.mhz).round() as u32;
        let (into_fast, out_of_fast) = multicycle_cells(&fast.port);
        let what = if out_of_fast.is_empty() { "the frame registers are taken" } else { "each side takes the other's registers" };
        let _ = writeln!(s, "\n# {} = {r} x {} from one source: related; {what} a whole {} cycle after launch.", fast.name, slow.name, slow.name);
        let _ = writeln!(s, "# The flip-flops are found by the registers' names: the mapping must keep them (rtl-gen asic names each\n# flip-flop <register>[<bit>]_reg, as `rename -wire` does in Yosys).");
        let cells = sdc_cells(into_fast);
        let _ = writeln!(s, "set_multicycle_path {r} -setup -end -from [get_clocks {}] -to {cells}", slow.name);
        let _ = writeln!(s, "set_multicycle_path {} -hold -end -from [get_clocks {}] -to {cells}", r - 1, slow.name);
        if !out_of_fast.is_empty() {
            let cells = sdc_cells(out_of_fast);
            let _ = writeln!(s, "set_multicycle_path {r} -setup -start -from {cells} -to [get_clocks {}]", slow.name);
            let _ = writeln!(s, "set_multicycle_path {} -hold -start -from {cells} -to [get_clocks {}]", r - 1, slow.name);
        }
    }
    s
}

/// Every ordered pair of distinct clocks that are unrelated (not of one source).
fn unrelated_pairs(clocks: &[ConstraintClock]) -> Vec<(&ConstraintClock, &ConstraintClock)> {
    clocks.iter().flat_map(|a| clocks.iter().filter(move |b| b.name != a.name && !crate::hw::cdc::same_source(&a.port, &b.port)).map(move |b| (a, b))).collect()
}

/// The (clk, fast clock) pairs of one source.
fn related_pairs(clocks: &[ConstraintClock]) -> Vec<(&ConstraintClock, &ConstraintClock)> {
    clocks.iter().filter(|a| a.name == "clk").flat_map(|a| clocks.iter().filter(move |b| crate::hw::cdc::same_source(&a.port, &b.port) && b.name != a.name).map(move |b| (a, b))).collect()
}

#[cfg(test)]
mod tests {
    use crate::config::Design;

    const DESIGN: &str = "[design]\nname = \"d\"\nreset = \"async_low\"\n\n[[blocks]]\nkind = \"async_fifo\"\nname = \"f\"\nwidth = 8\ndepth = 4\nsync_stages = 3\nwr_clk_mhz = 400\nrd_clk_mhz = 125\n";

    /// A recovered-clock RIFL node as top: one clock per bit of `rx_clk`, the crossings of its
    /// sub-modules, no I/O budget on the per-lane ports against `clk`.
    #[test]
    fn a_recovered_rifl_top_constrains_every_lane_clock_and_its_sub_modules_crossings() {
        let text = "[design]\nname = \"d\"\n\n[[blocks]]\nkind = \"rifl\"\nname = \"r\"\nframe_bits = 128\nuser_bits = 128\nlanes = 2\nclocking = \"recovered\"\nrx_clk_mhz = 250\n";
        let elab = Design::parse(text, "d.toml").expect("design").elaborate();
        let top = elab.modules.iter().find(|m| m.name() == "d_r").expect("top");
        assert!(super::needs_constraints(top));
        let names: Vec<String> = super::constraint_clocks(top, 500.0).into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["clk", "rx_clk_0", "rx_clk_1", "free_clk"]);
        let under = elab.hierarchy(top);
        let xdc = super::xdc(top, &under, "d", "rtl-gen generate d.toml", 500.0);
        for line in ["create_clock -period 4.000 -name rx_clk_1 [get_ports {rx_clk[1]}]", "*wr_ptr_gray_q_reg*", "*owed_sync_s1_reg*", "set_max_delay -datapath_only -from [get_clocks rx_clk_0] -to [get_clocks clk] 2.000"] {
            assert!(xdc.contains(line), "`{line}` missing from\n{xdc}");
        }
        let sdc = super::sdc(top, &under, "d", "rtl-gen generate d.toml", 500.0);
        let clk_inputs = sdc.lines().find(|l| l.starts_with("set_input_delay -clock clk ")).expect("clk inputs");
        assert!(!clk_inputs.contains("rx_") && !clk_inputs.contains("free_"), "{clk_inputs}");
    }

    /// The transceiver-width form: tx_fast_clk at R x clk, timed as related to clk (multicycle
    /// into the converter's frame registers), unrelated to every other clock.
    #[test]
    fn the_fast_tx_clock_is_related_to_clk_and_its_frame_path_is_a_multicycle_path() {
        let text = "[design]\nname = \"d\"\nclock_mhz = 250.0\n\n[[blocks]]\nkind = \"rifl\"\nname = \"r\"\nframe_bits = 256\nuser_bits = 256\nclocking = \"recovered\"\ngt_bits = 64\n";
        let elab = Design::parse(text, "d.toml").expect("design").elaborate();
        let top = elab.modules.iter().find(|m| m.name() == "d_r").expect("top");
        let names: Vec<(String, f64)> = super::constraint_clocks(top, 250.0).into_iter().map(|c| (c.name, c.mhz)).collect();
        assert_eq!(names, [("clk".to_string(), 250.0), ("rx_clk".to_string(), 1000.0), ("tx_fast_clk".to_string(), 1000.0), ("free_clk".to_string(), 100.0)]);
        let under = elab.hierarchy(top);
        let xdc = super::xdc(top, &under, "d", "rtl-gen generate d.toml", 250.0);
        for line in ["create_clock -period 1.000 -name tx_fast_clk [get_ports tx_fast_clk]", "set_multicycle_path 4 -setup -end -from [get_clocks clk]", "set_multicycle_path 3 -hold -end -from [get_clocks clk]", "# The other clocks are unrelated."] {
            assert!(xdc.contains(line), "`{line}` missing from\n{xdc}");
        }
        for pair in ["[get_clocks clk] -to [get_clocks tx_fast_clk]", "[get_clocks tx_fast_clk] -to [get_clocks clk]"] {
            assert!(!xdc.contains(pair) && !super::sdc(top, &under, "d", "r", 250.0).contains(pair), "{pair} bounded as unrelated");
        }
        assert!(xdc.contains("-from [get_clocks rx_clk] -to [get_clocks tx_fast_clk]"), "{xdc}");
    }

    /// Temporal bonding beside the transceiver-width form: user_clk at user_clk_ratio x clk and
    /// tx_fast_clk at R x clk, each related to clk with its own multicycle paths (both ways for
    /// the bonding stages), the user streams' I/O budget on user_clk.
    #[test]
    fn the_user_clock_is_related_to_clk_with_multicycle_paths_both_ways() {
        let text = "[design]\nname = \"d\"\nclock_mhz = 250.0\n\n[[blocks]]\nkind = \"rifl\"\nname = \"r\"\nframe_bits = 256\nuser_bits = 128\nlanes = 2\nuser_clk_ratio = 4\nclocking = \"recovered\"\ngt_bits = 64\n";
        let elab = Design::parse(text, "d.toml").expect("design").elaborate();
        let top = elab.modules.iter().find(|m| m.name() == "d_r").expect("top");
        let clocks: Vec<(String, f64)> = super::constraint_clocks(top, 250.0).into_iter().map(|c| (c.name, c.mhz)).collect();
        assert!(clocks.contains(&("user_clk".to_string(), 1000.0)) && clocks.contains(&("tx_fast_clk".to_string(), 1000.0)), "{clocks:?}");
        let under = elab.hierarchy(top);
        let (xdc, sdc) = (super::xdc(top, &under, "d", "r", 250.0), super::sdc(top, &under, "d", "r", 250.0));
        for line in [
            "set_multicycle_path 4 -setup -end -from [get_clocks clk] -to [get_cells -hier -filter {NAME =~ *bond_*_q_reg*}]",
            "set_multicycle_path 3 -hold -start -from [get_cells -hier -filter {NAME =~ *bond_out_*_q_reg* || NAME =~ *bond_ready_q_reg*}] -to [get_clocks clk]",
            "-to [get_cells -hier -filter {NAME =~ *gt_hold_q_reg* || NAME =~ *gt_word_q_reg*}]",
        ] {
            assert!(xdc.contains(line), "`{line}` missing from\n{xdc}");
        }
        assert!(sdc.contains("set_multicycle_path 4 -setup -start -from [get_cells -hierarchical {*bond_out_*_q* *bond_ready_q*}] -to [get_clocks clk]"), "{sdc}");
        assert!(sdc.lines().any(|l| l.starts_with("set_input_delay -clock user_clk") && l.contains("s_axis_tdata")), "{sdc}");
        for pair in ["[get_clocks clk] -to [get_clocks user_clk]", "[get_clocks user_clk] -to [get_clocks clk]"] {
            assert!(!xdc.contains(pair) && !sdc.contains(pair), "{pair} bounded as unrelated");
        }
        assert!(xdc.contains("-from [get_clocks rx_clk_0] -to [get_clocks user_clk]"), "{xdc}");
    }

    #[test]
    fn an_async_fifo_gets_both_clocks_and_exactly_its_two_pointer_crossings() {
        let elab = Design::parse(DESIGN, "d.toml").expect("design").elaborate();
        let m = &elab.modules[0];
        assert!(super::multi_clock(m));
        let x = super::crossings(m);
        let pairs: Vec<(&str, &str, &str)> = x.iter().map(|c| (c.from.as_str(), c.to.as_str(), c.clock.as_str())).collect();
        assert_eq!(pairs, [("rd_ptr_gray_q", "rd_ptr_sync_s1", "wr_clk"), ("wr_ptr_gray_q", "wr_ptr_sync_s1", "rd_clk")]);
        let xdc = super::xdc(m, &[m], "d", "rtl-gen generate d.toml", 500.0);
        for line in [
            "create_clock -period 2.500 -name wr_clk [get_ports wr_clk]",
            "create_clock -period 8.000 -name rd_clk [get_ports rd_clk]",
            "set_max_delay -datapath_only -from [get_cells -hier -filter {NAME =~ *wr_ptr_gray_q_reg*}] -to [get_cells -hier -filter {NAME =~ *wr_ptr_sync_s1_reg*}] 2.500",
            "set_property ASYNC_REG TRUE [get_cells -hier -filter {NAME =~ *rd_ptr_sync_s3_reg*}]",
        ] {
            assert!(xdc.contains(line), "`{line}` missing from\n{xdc}");
        }
        let sdc = super::sdc(m, &[m], "d", "rtl-gen generate d.toml", 500.0);
        for line in [
            "create_clock -name rd_clk -period 8.000 [get_ports rd_clk]",
            "set_input_delay -clock wr_clk 0.500 [get_ports {wr_rst_n wr_en wr_data}]",
            "set_output_delay -clock rd_clk 1.600 [get_ports {rd_empty rd_level rd_data}]",
            "set_max_delay 2.500 -from [get_clocks rd_clk] -to [get_clocks wr_clk]",
        ] {
            assert!(sdc.contains(line), "`{line}` missing from\n{sdc}");
        }
    }
}
