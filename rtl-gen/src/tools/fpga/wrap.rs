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
//! `wr_clk`), the rule the CDC kit names its ports by and the structural CDC check reads.

use crate::hw::verilog::{ClockDomain, Expr, Item, Module, Port, Stmt};
use crate::tools::{TreeModule, TreePort};

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

fn is_clock_or_reset(m: &TreeModule, p: &TreePort) -> bool {
    m.clock.as_deref() == Some(p.name.as_str())
        || m.reset.as_ref().map(|r| r.name == p.name).unwrap_or(false)
        || m.clocks.iter().any(|c| c.name == p.name || c.reset.as_ref().is_some_and(|r| r.name == p.name))
}

/// One clock domain of a multi-clock module: its clock, reset and data ports.
struct Domain<'a> {
    clock: &'a str,
    /// The domain's name prefix (`wr_` of `wr_clk`): the wrapper's own names for it start so.
    prefix: &'a str,
    reset: Option<&'a str>,
    ports: Vec<&'a TreePort>,
}

impl Domain<'_> {
    fn in_bits(&self) -> u32 {
        self.ports.iter().filter(|p| p.dir == "input").map(|p| p.width).sum()
    }
    fn out_bits(&self) -> u32 {
        self.ports.iter().filter(|p| p.dir != "input").map(|p| p.width).sum()
    }
}

/// The clock domains of a multi-clock module, every data port in exactly one; the name of a port
/// no clock's prefix claims, if there is one.
fn domains(m: &TreeModule) -> Result<Vec<Domain<'_>>, String> {
    let mut out: Vec<Domain> = m
        .clocks
        .iter()
        .map(|c| Domain { clock: &c.name, prefix: c.name.strip_suffix("clk").unwrap_or(&c.name), reset: c.reset.as_ref().map(|r| r.name.as_str()), ports: Vec::new() })
        .collect();
    // A port belongs to the clock with the longest prefix it carries; `clk` (no prefix) takes
    // the ports no other clock claims.
    for p in m.ports.iter().filter(|p| !is_clock_or_reset(m, p)) {
        match out.iter_mut().filter(|d| p.name.starts_with(d.prefix)).max_by_key(|d| d.prefix.len()) {
            Some(d) => d.ports.push(p),
            None => return Err(p.name.clone()),
        }
    }
    Ok(out)
}

/// A clock port of several bits (a recovered clock per lane, `rx_clk[k]`), if `m` has one.
fn vector_clock(m: &TreeModule) -> Option<&TreePort> {
    m.ports.iter().find(|p| p.dir == "input" && p.width > 1 && (p.name == "clk" || p.name.ends_with("_clk")))
}

/// Why `m` cannot be wrapped, if it cannot: a clock port of several bits (the wrapper drives each
/// clock from a pin of its own and would otherwise feed those bits from a data chain), or a
/// multi-clock module's port that belongs to no clock.
pub fn unwrappable(m: &TreeModule) -> Option<String> {
    if let Some(p) = vector_clock(m) {
        return Some(format!(
            "module {}: clock port `{}` has {} bits (one clock per lane); the measurement wrapper drives 1-bit clocks only: measure its per-lane parts (the modules under it) instead",
            m.name, p.name, p.width
        ));
    }
    if m.clocks.len() < 2 {
        return None;
    }
    domains(m).err().map(|port| {
        let clocks: Vec<&str> = m.clocks.iter().map(|c| c.name.as_str()).collect();
        format!("module {}: port `{port}` carries the prefix of none of its clocks ({}), so the measurement wrapper cannot tell which clock drives it", m.name, clocks.join(", "))
    })
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
/// pin pair per domain, on that domain's clock.
fn multi_clock_wrapper(m: &TreeModule) -> Module {
    let domains = domains(m).unwrap_or_default();
    let mut ports = Vec::new();
    for d in &domains {
        ports.push(Port::input(d.clock, 1, &format!("measurement clock of the {} domain (the module's {})", d.prefix.trim_end_matches('_'), d.clock)));
        if let Some(r) = d.reset {
            ports.push(Port::input(r, 1, "the domain's reset, straight from a pin"));
        }
        ports.push(Port::input(&format!("{}din", d.prefix), 1, &format!("serial data shifted into {}in_sr", d.prefix)));
        ports.push(Port::output(&format!("{}dout", d.prefix), 1, &format!("top bit of {}sig", d.prefix)));
    }
    // The module's own reset, when no domain lists it (the `clk` side's registers of a module
    // whose other domains name theirs), comes from a pin too.
    if let Some(r) = m.reset.as_ref().filter(|r| !domains.iter().any(|d| d.reset == Some(r.name.as_str()))) {
        ports.push(Port::input(&r.name, 1, "the module's reset, straight from a pin"));
    }
    let mut items = Vec::new();
    let mut conns: Vec<(String, Expr)> = Vec::new();
    let mut per_domain: Vec<Vec<Expr>> = Vec::new();
    for d in &domains {
        let (n_in, n_out) = (d.in_bits(), d.out_bits().max(1));
        if n_in > 0 {
            items.push(Item::reg(&format!("{}in_sr", d.prefix), n_in, &format!("every {} input bit, loaded serially from {}din", d.clock, d.prefix)));
        }
        items.push(Item::reg(&format!("{}out_q", d.prefix), n_out, &format!("every {} output bit, registered", d.clock)));
        items.push(Item::reg(&format!("{}sig", d.prefix), n_out, &format!("rotating signature of {}out_q", d.prefix)));
    }
    for p in &m.ports {
        if is_clock_or_reset(m, p) {
            conns.push((p.name.clone(), Expr::id(&p.name)));
        }
    }
    for d in &domains {
        let (in_sr, n_in) = (format!("{}in_sr", d.prefix), d.in_bits());
        let mut lo = 0;
        let mut outs = Vec::new();
        for p in &d.ports {
            if p.dir == "input" {
                conns.push((p.name.clone(), bit_or_all(&in_sr, n_in, lo + p.width - 1, lo)));
                lo += p.width;
            } else {
                let w = format!("dut_{}", p.name);
                items.push(Item::wire(&w, p.width, &format!("module output {}", p.name)));
                conns.push((p.name.clone(), Expr::id(&w)));
                outs.push(Expr::id(&w));
            }
        }
        per_domain.push(outs);
    }
    // Instance connections in the module's port order.
    conns.sort_by_key(|(name, _)| m.ports.iter().position(|p| p.name == *name));
    items.push(Item::comment("the module under measurement"));
    items.push(Item::Instance { module: m.name.clone(), name: "dut".into(), conns });
    for (d, mut outs) in domains.iter().zip(per_domain) {
        let domain = ClockDomain { clock: d.clock.to_string(), reset: d.reset.unwrap_or_default().to_string() };
        let (n_in, n_out) = (d.in_bits(), d.out_bits().max(1));
        let (in_sr, out_q, sig, din) = (format!("{}in_sr", d.prefix), format!("{}out_q", d.prefix), format!("{}sig", d.prefix), format!("{}din", d.prefix));
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
        items.push(Item::assign(Expr::id(&format!("{}dout", d.prefix)), bit_or_all(&sig, n_out, n_out - 1, n_out - 1)));
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
    fn a_per_lane_clock_vector_is_refused_and_its_two_clock_parts_are_wrapped_per_domain() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (_, manifest) = recovered_tree(dir.path());
        let module = |n: &str| manifest.modules.iter().find(|m| m.name == n).unwrap_or_else(|| panic!("{n}"));
        let why = unwrappable(module("d_r")).expect("the node's rx_clk vector is refused");
        assert!(why.contains("`rx_clk` has 2 bits"), "{why}");
        let lane = module("d_r_rxcdc");
        assert_eq!(unwrappable(lane), None);
        let domains = domains(lane).expect("every port in a domain");
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
