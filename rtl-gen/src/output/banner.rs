//! The text around modules: Verilog banners, per-module docs, the FuseSoC core and the timing
//! constraints, each rendered from one askama template in `templates/`.

use crate::elab::ElabModule;
use crate::hw::verilog::{Dir, Module};
use askama::Template;

/// What every banner and doc says about where a module came from.
pub struct Provenance<'a> {
    pub design: &'a str,
    pub block: &'a str,
    /// Kind of the design block that owns the module.
    pub block_kind: &'a str,
    /// Kind of the generator that built the module; its parameters follow.
    pub kind: &'a str,
    pub params: &'a [(&'static str, String)],
    /// Other blocks that instantiate the same (deduplicated) module.
    pub shared_by: &'a [&'a str],
    pub regenerate: &'a str,
}

#[derive(Template)]
#[template(path = "banner.v", escape = "none")]
struct Banner<'a> {
    module: &'a str,
    generator: &'a str,
    regenerate: &'a str,
    design: &'a str,
    block: &'a str,
    block_kind: &'a str,
    kind: &'a str,
    shared_by: &'a [&'a str],
    /// Whether the module has one input-to-output latency (not the FPGA demo top).
    has_latency: bool,
    latency: u32,
    /// The module's own reset port and style (none for a combinational or multi-clock module).
    reset: Option<&'static str>,
    summary: Vec<String>,
    params: &'a [(&'static str, String)],
    notes: Vec<String>,
}

struct PortRow {
    name: String,
    dir: &'static str,
    width: u32,
    doc: String,
}

#[derive(Template)]
#[template(path = "module.md", escape = "none")]
struct ModuleDoc<'a> {
    module: &'a str,
    generator: &'a str,
    regenerate: &'a str,
    design: &'a str,
    block: &'a str,
    block_kind: &'a str,
    kind: &'a str,
    shared_by: &'a [&'a str],
    latency: u32,
    summary: &'a str,
    params: &'a [(&'static str, String)],
    ports: Vec<PortRow>,
    notes: &'a [String],
}

#[derive(Template)]
#[template(path = "design.core", escape = "none")]
struct Core<'a> {
    generator: &'a str,
    regenerate: &'a str,
    design: &'a str,
    version: &'a str,
    files: &'a [String],
    modules: &'a [String],
    core_name: String,
    demo: Option<&'a CoreDemo>,
    vivado_part: &'a str,
}

/// The demo's files and names for the core's `sim` and synthesis targets.
pub struct CoreDemo {
    pub node: String,
    /// The node's files and those of every module under it, dependencies first.
    pub node_files: Vec<String>,
    pub top: String,
    pub tb: String,
    pub top_file: String,
    pub tb_file: String,
    /// Target clock of the FPGA builds, MHz.
    pub freq_mhz: u32,
}

#[derive(Template)]
#[template(path = "design.xdc", escape = "none")]
struct Xdc<'a> {
    generator: &'a str,
    regenerate: &'a str,
    design: &'a str,
    period_ns: String,
}

#[derive(Template)]
#[template(path = "design.sdc", escape = "none")]
struct Sdc<'a> {
    generator: &'a str,
    regenerate: &'a str,
    design: &'a str,
    period_ns: String,
    uncertainty_pct: u32,
    uncertainty_ns: String,
    io_pct: u32,
    io_ns: String,
}

/// Clock uncertainty in the SDC, in percent of the period.
pub const SDC_UNCERTAINTY_PCT: u32 = 5;
/// Input and output delay in the SDC, each in percent of the period: the share of the cycle
/// the logic around a module is given.
pub const SDC_IO_DELAY_PCT: u32 = 20;

/// Break prose into comment lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

fn render<T: Template>(t: &T) -> String {
    t.render().expect("templates render from plain data")
}

/// The complete text of a module file: banner then module.
pub fn verilog_file(m: &ElabModule, p: &Provenance) -> String {
    module_file(&m.module, Some(m.latency), &m.summary, &m.notes, p)
}

/// The banner and text of `module`, a design module's or one around it (the FPGA demo top,
/// `latency` `None`: it has no single input-to-output latency).
pub fn module_file(module: &Module, latency: Option<u32>, summary: &str, notes: &[String], p: &Provenance) -> String {
    let notes = notes.iter().flat_map(|n| wrap(n, 90)).collect();
    let banner = Banner {
        module: &module.name,
        generator: crate::GENERATOR,
        regenerate: p.regenerate,
        design: p.design,
        block: p.block,
        block_kind: p.block_kind,
        kind: p.kind,
        shared_by: p.shared_by,
        has_latency: latency.is_some(),
        latency: latency.unwrap_or_default(),
        reset: module.reset.filter(|r| module.ports.iter().any(|port| port.name == r.port())).map(|r| r.describe()),
        summary: wrap(summary, 92),
        params: p.params,
        notes,
    };
    format!("{}\n`default_nettype none\n\n{}\n`default_nettype wire\n", render(&banner), module.render())
}

pub fn module_doc(m: &ElabModule, p: &Provenance) -> String {
    let ports = m
        .ports()
        .iter()
        .map(|port| PortRow {
            name: port.name.clone(),
            dir: if port.dir == Dir::Input { "in" } else { "out" },
            width: port.width,
            doc: port.doc.clone(),
        })
        .collect();
    render(&ModuleDoc {
        module: m.name(),
        generator: crate::GENERATOR,
        regenerate: p.regenerate,
        design: p.design,
        block: p.block,
        block_kind: p.block_kind,
        kind: p.kind,
        shared_by: p.shared_by,
        latency: m.latency,
        summary: &m.summary,
        params: p.params,
        ports,
        notes: &m.notes,
    })
}

pub fn core_file(design: &str, regenerate: &str, files: &[String], modules: &[String], demo: Option<&CoreDemo>, vivado_part: &str) -> String {
    let version = env!("CARGO_PKG_VERSION");
    let core_name = format!("rtl-gen:designs:{design}:{version}");
    render(&Core { generator: crate::GENERATOR, regenerate, design, version, files, modules, core_name, demo, vivado_part })
}

/// Clock period in ns with three decimals: what Vivado and SDC tools both accept.
fn period(clock_mhz: f64) -> String {
    format!("{:.3}", 1000.0 / clock_mhz)
}

pub fn xdc_file(design: &str, regenerate: &str, clock_mhz: f64) -> String {
    render(&Xdc { generator: crate::GENERATOR, regenerate, design, period_ns: period(clock_mhz) })
}

pub fn sdc_file(design: &str, regenerate: &str, clock_mhz: f64) -> String {
    let share = |pct: u32| format!("{:.3}", 1000.0 / clock_mhz * f64::from(pct) / 100.0);
    render(&Sdc {
        generator: crate::GENERATOR,
        regenerate,
        design,
        period_ns: period(clock_mhz),
        uncertainty_pct: SDC_UNCERTAINTY_PCT,
        uncertainty_ns: share(SDC_UNCERTAINTY_PCT),
        io_pct: SDC_IO_DELAY_PCT,
        io_ns: share(SDC_IO_DELAY_PCT),
    })
}

#[cfg(test)]
mod tests {
    /// The SDC constrains every port for a timing tool: the clock, its uncertainty, input delays
    /// on the data inputs (not on the clock) and output delays, from the design's clock.
    #[test]
    fn the_sdc_sets_clock_uncertainty_and_port_delays_from_the_clock() {
        let sdc = super::sdc_file("d", "rtl-gen generate", 250.0);
        for line in [
            "create_clock -name clk -period 4.000 [get_ports -quiet clk]",
            "set_clock_uncertainty 0.200 [get_clocks clk]",
            "set_input_delay -clock clk 0.800 $rtlgen_data_inputs",
            "set_output_delay -clock clk 0.800 [all_outputs]",
            "[delete_from_list [all_inputs] $rtlgen_clock_ports]",
        ] {
            assert!(sdc.contains(line), "`{line}` missing from\n{sdc}");
        }
    }
}
