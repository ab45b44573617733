//! The measurement wrapper around one module for place and route.
//!
//! A module's ports rarely fit a package (the CRC-64 has 1,946 input bits) and unconnected
//! inputs or unused outputs would be optimised away, so every module is placed inside a wrapper
//! with three pins plus the module's reset:
//! - `din` feeds a shift register `in_sr` holding every input bit of the module (one serial
//!   chain: each register bit drives one module input, so no input is constant);
//! - every output bit is registered in `out_q`, and `out_q` is folded into a rotating signature
//!   register `sig` (`sig <= rotate(sig) ^ out_q`, one 2-input XOR per bit) whose top bit drives
//!   `dout`, so every output bit reaches a pin and none can be removed;
//! - a combinational module is thereby measured between `in_sr` and `out_q`, a clocked one
//!   register to register inside itself and from/to the wrapper registers.
//!
//! A module with several clocks (the manifest's `clocks`: `wr_clk`, `rd_clk`) gets one such set
//! per clock domain, each on its own clock pin and named after the domain (`wr_din`, `wr_in_sr`,
//! `wr_out_q`, `wr_sig`, `wr_dout`), so no wrapper path crosses between clocks and each clock's
//! Fmax is that domain's own. A port belongs to the clock whose prefix it carries (`wr_en` to
//! `wr_clk`), the rule the CDC kit names its ports by and the structural CDC check reads. A
//! per-lane clock vector (`rx_clk[k]`, the manifest's clocks `rx_clk_k`) is driven from a pin per
//! lane, and each lane's domain owns its slice of every port that vector's prefix claims
//! (`rx_frame`, `rx_valid`: lanes of equal width, lane 0 at the bottom).

use crate::hw::verilog::{ClockDomain, Expr, Item, Module, Port, Stmt};
use crate::tools::{TreeClock, TreeModule, TreePort};

/// The wrapper's module name for `module`.
pub fn wrapper_name(module: &str) -> String {
    crate::hw::module::fpga_wrapper_name(module)
}

fn bit_or_all(name: &str, width: u32, hi: u32, lo: u32) -> Expr {
    if width == 1 {
        Expr::id(name)
    } else if hi == lo {
        Expr::bit(name, hi)
    } else {
        Expr::slice(name, hi, lo)
    }
}

/// Registers the wrapper adds around the module: the input chain, the output register and the
/// signature register.
pub fn wrapper_ffs(m: &TreeModule) -> u64 {
    if m.clocks.len() > 1 {
        return domains(m).map(|ds| ds.iter().map(|d| d.in_bits() as u64 + 2 * d.out_bits().max(1) as u64).sum()).unwrap_or(0);
    }
    let (ins, outs) = data_widths(m);
    ins as u64 + 2 * outs as u64
}

/// A port name and the bit it names, if it names one (`rx_rst[0]`: `rx_rst`, 0).
fn port_bit(name: &str) -> (&str, Option<u32>) {
    match name.strip_suffix(']').and_then(|n| n.split_once('[')) {
        Some((base, bit)) => (base, bit.parse().ok()),
        None => (name, None),
    }
}

/// The module port a clock drives: its own name, or the vector `rx_clk` of `rx_clk[0]`.
fn clock_port(c: &TreeClock) -> &str {
    c.port.as_deref().map_or(c.name.as_str(), |p| port_bit(p).0)
}

fn is_clock_or_reset(m: &TreeModule, p: &TreePort) -> bool {
    m.clock.as_deref() == Some(p.name.as_str())
        || m.reset.as_ref().map(|r| r.name == p.name).unwrap_or(false)
        || m.clocks.iter().any(|c| clock_port(c) == p.name || c.reset.as_ref().is_some_and(|r| port_bit(&r.name).0 == p.name))
}

/// One clock domain of a multi-clock module: its clock, reset and data ports. A clock that is
/// one bit of a per-lane vector (`rx_clk[k]`) is a domain of its own, owning lane k's slice of
/// every port its prefix claims (`rx_frame[k*F +: F]`).
struct Domain<'a> {
    /// The wrapper's clock pin: the manifest's clock name (`rx_clk_0` for `rx_clk[0]`).
    clock: &'a str,
    /// The prefix of the module ports the domain owns (`wr_` of `wr_clk`, `rx_` of `rx_clk[k]`).
    prefix: &'a str,
    /// The prefix of the wrapper's own names for it (`wr_`; `rx_0_` for lane 0).
    own: String,
    /// The module's reset port of the domain (`rx_rst[0]` for lane 0).
    reset: Option<&'a str>,
    /// Lane k of a per-lane clock vector of `lanes` bits.
    lane: Option<(u32, u32)>,
    ports: Vec<&'a TreePort>,
}

impl Domain<'_> {
    /// Bits of `p` this domain owns: all of them, or its lane's slice.
    fn share(&self, p: &TreePort) -> u32 {
        self.lane.map_or(p.width, |(_, lanes)| p.width / lanes)
    }
    fn in_bits(&self) -> u32 {
        self.ports.iter().filter(|p| p.dir == "input").map(|p| self.share(p)).sum()
    }
    fn out_bits(&self) -> u32 {
        self.ports.iter().filter(|p| p.dir != "input").map(|p| self.share(p)).sum()
    }
    /// The wrapper's pin for the domain's reset (`rx_rst_0` for `rx_rst[0]`).
    fn reset_pin(&self) -> Option<String> {
        self.reset.map(|r| match port_bit(r) {
            (base, Some(bit)) => format!("{base}_{bit}"),
            (name, None) => name.to_string(),
        })
    }
}

/// The clock domains of a multi-clock module, every data port in exactly one (or sliced over the
/// lanes of a per-lane clock); why not, naming the port, if a port fits none.
fn domains(m: &TreeModule) -> Result<Vec<Domain<'_>>, String> {
    let mut out: Vec<Domain> = m
        .clocks
        .iter()
        .map(|c| {
            let port = clock_port(c);
            let prefix = port.strip_suffix("clk").unwrap_or(port);
            let lanes = m.clocks.iter().filter(|o| clock_port(o) == port).count() as u32;
            let lane = c.port.as_deref().and_then(|p| port_bit(p).1).map(|k| (k, lanes));
            let own = lane.map_or_else(|| prefix.to_string(), |(k, _)| format!("{prefix}{k}_"));
            Domain { clock: &c.name, prefix, own, reset: c.reset.as_ref().map(|r| r.name.as_str()), lane, ports: Vec::new() }
        })
        .collect();
    // A port belongs to the clock with the longest prefix it carries (to every lane's clock of a
    // per-lane vector, a slice each); `clk` (no prefix) takes the ports no other clock claims.
    for p in m.ports.iter().filter(|p| !is_clock_or_reset(m, p)) {
        let Some(longest) = out.iter().filter(|d| p.name.starts_with(d.prefix)).map(|d| d.prefix.len()).max() else {
            let clocks: Vec<&str> = m.clocks.iter().map(|c| c.name.as_str()).collect();
            return Err(format!("port `{}` carries the prefix of none of its clocks ({}), so the measurement wrapper cannot tell which clock drives it", p.name, clocks.join(", ")));
        };
        for d in out.iter_mut().filter(|d| d.prefix.len() == longest && p.name.starts_with(d.prefix)) {
            if let Some((_, lanes)) = d.lane.filter(|&(_, lanes)| p.width % lanes != 0) {
                return Err(format!("port `{}` ({} bits) belongs to the per-lane clock `{}` but does not split into {lanes} lanes", p.name, p.width, d.clock));
            }
            d.ports.push(p);
        }
    }
    Ok(out)
}

/// Why `m` cannot be wrapped, if it cannot: a multi-clock module's port that belongs to no
/// clock, or to a per-lane clock without a slice per lane.
pub fn unwrappable(m: &TreeModule) -> Option<String> {
    if m.clocks.len() < 2 {
        return None;
    }
    domains(m).err().map(|why| format!("module {}: {why}", m.name))
}

/// Total input and output data bits (clock and reset excluded).
fn data_widths(m: &TreeModule) -> (u32, u32) {
    let data = m.ports.iter().filter(|p| !is_clock_or_reset(m, p));
    let (ins, outs): (Vec<&TreePort>, Vec<&TreePort>) = data.partition(|p| p.dir == "input");
    (ins.iter().map(|p| p.width).sum(), outs.iter().map(|p| p.width).sum())
}

/// The wrapper of `m` (ports `clk`, the module's reset if it has one, `din`, `dout`; per domain
/// for a module with several clocks). Call [`unwrappable`] first.
pub fn wrapper(m: &TreeModule) -> Module {
    if m.clocks.len() > 1 {
        return multi_clock_wrapper(m);
    }
    let (n_in, n_out) = data_widths(m);
    let mut ports = vec![Port::input("clk", 1, "measurement clock (the module's clock)")];
    if let Some(r) = &m.reset {
        ports.push(Port::input(&r.name, 1, "the module's reset, straight from a pin"));
    }
    ports.push(Port::input("din", 1, "serial data shifted into the input register chain"));
    ports.push(Port::output("dout", 1, "top bit of the output signature register"));
    let mut items = Vec::new();
    let mut conns: Vec<(String, Expr)> = Vec::new();
    if n_in > 0 {
        items.push(Item::reg("in_sr", n_in, "every module input bit, loaded serially from din"));
    }
    items.push(Item::reg("out_q", n_out.max(1), "every module output bit, registered"));
    items.push(Item::reg("sig", n_out.max(1), "rotating signature of out_q; its top bit drives dout"));
    let mut lo = 0;
    let mut outs = Vec::new();
    for p in &m.ports {
        if m.clock.as_deref() == Some(p.name.as_str()) {
            conns.push((p.name.clone(), Expr::id("clk")));
        } else if is_clock_or_reset(m, p) {
            conns.push((p.name.clone(), Expr::id(&p.name)));
        } else if p.dir == "input" {
            conns.push((p.name.clone(), bit_or_all("in_sr", n_in, lo + p.width - 1, lo)));
            lo += p.width;
        } else {
            let w = format!("dut_{}", p.name);
            items.push(Item::wire(&w, p.width, &format!("module output {}", p.name)));
            conns.push((p.name.clone(), Expr::id(&w)));
            outs.push(Expr::id(&w));
        }
    }
    items.push(Item::comment("the module under measurement"));
    items.push(Item::Instance { module: m.name.clone(), name: "dut".into(), conns });
    if n_in > 0 {
        items.push(Item::comment("input chain: one shift register, one bit per cycle from din"));
        let next = if n_in == 1 { Expr::id("din") } else { Expr::Concat(vec![Expr::slice("in_sr", n_in - 2, 0), Expr::id("din")]) };
        items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::set(Expr::id("in_sr"), next)] });
    }
    items.push(Item::comment("outputs registered, then folded into the rotating signature"));
    outs.reverse();
    let captured = if outs.is_empty() { Expr::dec(1, 0) } else if outs.len() == 1 { outs.pop().expect("one output") } else { Expr::Concat(outs) };
    items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::set(Expr::id("out_q"), captured)] });
    let rotated = if n_out <= 1 { Expr::id("sig") } else { Expr::Concat(vec![Expr::slice("sig", n_out - 2, 0), Expr::bit("sig", n_out - 1)]) };
    items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::set(Expr::id("sig"), Expr::xor(rotated, Expr::id("out_q")))] });
    items.push(Item::assign(Expr::id("dout"), bit_or_all("sig", n_out.max(1), n_out.max(1) - 1, n_out.max(1) - 1)));
    // No register of the wrapper needs a reset: the chains hold whatever din shifted in.
    Module { name: wrapper_name(&m.name), ports, items, reset: None }
}

/// The wrapper of a module with several clocks: one input chain, output register, signature and
/// pin pair per domain, on that domain's clock; a per-lane clock vector is driven bit by bit
/// from a pin per lane.
fn multi_clock_wrapper(m: &TreeModule) -> Module {
    let domains = domains(m).unwrap_or_default();
    let mut ports = Vec::new();
    for d in &domains {
        let side = d.own.trim_end_matches('_');
        ports.push(Port::input(d.clock, 1, &format!("measurement clock of the {side} domain (the module's {})", m.clocks.iter().find(|c| c.name == d.clock).and_then(|c| c.port.as_deref()).unwrap_or(d.clock))));
        if let Some(r) = d.reset_pin() {
            ports.push(Port::input(&r, 1, "the domain's reset, straight from a pin"));
        }
        ports.push(Port::input(&format!("{}din", d.own), 1, &format!("serial data shifted into {}in_sr", d.own)));
        ports.push(Port::output(&format!("{}dout", d.own), 1, &format!("top bit of {}sig", d.own)));
    }
    // The module's own reset, when no domain lists it (the `clk` side's registers of a module
    // whose other domains name theirs), comes from a pin too.
    if let Some(r) = m.reset.as_ref().filter(|r| !domains.iter().any(|d| d.reset == Some(r.name.as_str()))) {
        ports.push(Port::input(&r.name, 1, "the module's reset, straight from a pin"));
    }
    let mut items = Vec::new();
    // Each module port's connection in parts: (lane, expression), one part unless the port is
    // a per-lane vector (clock, reset or data) fed lane by lane.
    let mut parts: std::collections::BTreeMap<&str, Vec<(u32, Expr)>> = std::collections::BTreeMap::new();
    let mut per_domain: Vec<Vec<Expr>> = Vec::new();
    for d in &domains {
        let (n_in, n_out) = (d.in_bits(), d.out_bits().max(1));
        if n_in > 0 {
            items.push(Item::reg(&format!("{}in_sr", d.own), n_in, &format!("every {} input bit, loaded serially from {}din", d.clock, d.own)));
        }
        items.push(Item::reg(&format!("{}out_q", d.own), n_out, &format!("every {} output bit, registered", d.clock)));
        items.push(Item::reg(&format!("{}sig", d.own), n_out, &format!("rotating signature of {}out_q", d.own)));
    }
    for d in &domains {
        let k = d.lane.map_or(0, |(k, _)| k);
        let clock = m.clocks.iter().find(|c| c.name == d.clock).map_or(d.clock, clock_port);
        parts.entry(clock).or_default().push((k, Expr::id(d.clock)));
        if let (Some(r), Some(pin)) = (d.reset, d.reset_pin()) {
            parts.entry(port_bit(r).0).or_default().push((k, Expr::id(&pin)));
        }
        let (in_sr, n_in) = (format!("{}in_sr", d.own), d.in_bits());
        let mut lo = 0;
        let mut outs = Vec::new();
        for p in &d.ports {
            let w = d.share(p);
            if p.dir == "input" {
                parts.entry(&p.name).or_default().push((k, bit_or_all(&in_sr, n_in, lo + w - 1, lo)));
                lo += w;
            } else {
                let wire = format!("dut_{}", p.name);
                if k == 0 {
                    items.push(Item::wire(&wire, p.width, &format!("module output {}", p.name)));
                    parts.entry(&p.name).or_default().push((0, Expr::id(&wire)));
                }
                outs.push(match d.lane {
                    Some(_) => bit_or_all(&wire, p.width, k * w + w - 1, k * w),
                    None => Expr::id(&wire),
                });
            }
        }
        per_domain.push(outs);
    }
    for p in m.ports.iter().filter(|p| is_clock_or_reset(m, p)) {
        parts.entry(&p.name).or_insert_with(|| vec![(0, Expr::id(&p.name))]);
    }
    // Instance connections in the module's port order; a vector's lanes high to low.
    let mut conns: Vec<(String, Expr)> = parts
        .into_iter()
        .map(|(name, mut lanes)| {
            lanes.sort_by_key(|(k, _)| std::cmp::Reverse(*k));
            let e = if lanes.len() == 1 { lanes.pop().expect("one part").1 } else { Expr::Concat(lanes.into_iter().map(|(_, e)| e).collect()) };
            (name.to_string(), e)
        })
        .collect();
    conns.sort_by_key(|(name, _)| m.ports.iter().position(|p| p.name == *name));
    items.push(Item::comment("the module under measurement"));
    items.push(Item::Instance { module: m.name.clone(), name: "dut".into(), conns });
    for (d, mut outs) in domains.iter().zip(per_domain) {
        let domain = ClockDomain { clock: d.clock.to_string(), reset: d.reset_pin().unwrap_or_default() };
        let (n_in, n_out) = (d.in_bits(), d.out_bits().max(1));
        let (in_sr, out_q, sig, din) = (format!("{}in_sr", d.own), format!("{}out_q", d.own), format!("{}sig", d.own), format!("{}din", d.own));
        if n_in > 0 {
            items.push(Item::comment(&format!("{} input chain: one shift register, one bit per {} cycle", d.clock, d.clock)));
            let next = if n_in == 1 { Expr::id(&din) } else { Expr::Concat(vec![Expr::slice(&in_sr, n_in - 2, 0), Expr::id(&din)]) };
            items.push(Item::AlwaysFfOn { domain: domain.clone(), reset: None, body: vec![Stmt::set(Expr::id(&in_sr), next)] });
        }
        items.push(Item::comment(&format!("{} outputs registered, then folded into the rotating signature", d.clock)));
        outs.reverse();
        let captured = if outs.is_empty() { Expr::dec(1, 0) } else if outs.len() == 1 { outs.pop().expect("one output") } else { Expr::Concat(outs) };
        items.push(Item::AlwaysFfOn { domain: domain.clone(), reset: None, body: vec![Stmt::set(Expr::id(&out_q), captured)] });
        let rotated = if n_out <= 1 { Expr::id(&sig) } else { Expr::Concat(vec![Expr::slice(&sig, n_out - 2, 0), Expr::bit(&sig, n_out - 1)]) };
        items.push(Item::AlwaysFfOn { domain, reset: None, body: vec![Stmt::set(Expr::id(&sig), Expr::xor(rotated, Expr::id(&out_q)))] });
        items.push(Item::assign(Expr::id(&format!("{}dout", d.own)), bit_or_all(&sig, n_out, n_out - 1, n_out - 1)));
    }
    Module { name: wrapper_name(&m.name), ports, items, reset: None }
}

/// The wrapper's Verilog text, with a short banner saying what it is.
pub fn wrapper_text(m: &TreeModule) -> String {
    let head = format!(
        "// {}: measurement wrapper generated by rtl-gen fpga around {}.\n// Inputs come from a serial shift register loaded from din; outputs are registered and\n// folded into a rotating signature driving dout, so nothing is optimised away and Fmax is\n// register to register. A module with several clocks has one such set per clock domain\n// (<side>_din, <side>_dout), each on that domain's clock.\n`default_nettype none\n\n",
        wrapper_name(&m.name),
        m.name
    );
    format!("{head}{}", wrapper(m).render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Design;
    use crate::output::tree::{self, Layout};
    use crate::tools::TreeManifest;

    /// A two-lane recovered-clock RIFL node written as a tree, with its manifest.
    fn recovered_tree(dir: &std::path::Path) -> (std::path::PathBuf, TreeManifest) {
        let text = "[design]\nname = \"d\"\n\n[[blocks]]\nkind = \"rifl\"\nname = \"r\"\nframe_bits = 128\nuser_bits = 128\nlanes = 2\nclocking = \"recovered\"\n";
        let design = Design::parse(text, "d.toml").expect("design");
        let layout = Layout::for_design_file(dir, &design);
        let root = layout.root.clone();
        tree::build(&design.elaborate(), layout).write().expect("write tree");
        let manifest = TreeManifest::load(&root).expect("manifest");
        (root, manifest)
    }

    #[test]
    fn a_per_lane_clock_vector_is_driven_lane_by_lane_and_two_clock_parts_per_domain() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (_, manifest) = recovered_tree(dir.path());
        let module = |n: &str| manifest.modules.iter().find(|m| m.name == n).unwrap_or_else(|| panic!("{n}"));
        let node = module("d_r");
        assert_eq!(unwrappable(node), None);
        let domains = domains(node).expect("every port in a domain");
        let owned = |clock: &str| -> Vec<(&str, u32)> { domains.iter().find(|d| d.clock == clock).map(|d| d.ports.iter().map(|p| (p.name.as_str(), d.share(p))).collect()).expect("domain") };
        // Each lane's clock owns its half of the per-lane ports (128-bit frames, two lanes).
        for lane in ["rx_clk_0", "rx_clk_1"] {
            assert!(owned(lane).contains(&("rx_frame", 128)) && owned(lane).contains(&("rx_valid", 1)), "{lane}: {:?}", owned(lane));
        }
        assert!(owned("clk").contains(&("s_axis_tdata", 128)) && !owned("clk").iter().any(|(p, _)| p.starts_with("rx_")), "{:?}", owned("clk"));
        let text = wrapper_text(node);
        for wanted in ["{rx_clk_1, rx_clk_0}", "{rx_rst_1, rx_rst_0}", "posedge rx_clk_1", "rx_1_din", "posedge free_clk"] {
            assert!(text.contains(wanted), "{wanted} not in\n{text}");
        }
        let lane = module("d_r_rxcdc");
        assert_eq!(unwrappable(lane), None);
        let domains = super::domains(lane).expect("every port in a domain");
        let names = |clock: &str| -> Vec<&str> { domains.iter().find(|d| d.clock == clock).expect("domain").ports.iter().map(|p| p.name.as_str()).collect() };
        assert!(names("clk").contains(&"out_valid") && !names("clk").iter().any(|p| p.starts_with("rx_")), "{:?}", names("clk"));
        assert!(names("rx_clk").contains(&"rx_frame") && names("rx_clk").contains(&"rx_cdc_overflow"), "{:?}", names("rx_clk"));
        let text = wrapper_text(lane);
        assert!(text.contains("rx_din") && text.contains("posedge rx_clk") && text.contains("posedge clk"), "{text}");
        // Every port the instance connects is declared: the clk side's reset comes from a pin.
        for reset in ["rst", "rx_rst"] {
            assert!(text.contains(&format!("input  wire {reset}")) || text.contains(&format!("input wire {reset}")) || text.contains(&format!(" {reset},")), "{reset} not a port of\n{text}");
        }
    }
}
