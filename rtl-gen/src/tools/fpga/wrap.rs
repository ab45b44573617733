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

use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};
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
    let (ins, outs) = data_widths(m);
    ins as u64 + 2 * outs as u64
}

fn is_clock_or_reset(m: &TreeModule, p: &TreePort) -> bool {
    m.clock.as_deref() == Some(p.name.as_str()) || m.reset.as_ref().map(|r| r.name == p.name).unwrap_or(false)
}

/// Total input and output data bits (clock and reset excluded).
fn data_widths(m: &TreeModule) -> (u32, u32) {
    let data = m.ports.iter().filter(|p| !is_clock_or_reset(m, p));
    let (ins, outs): (Vec<&TreePort>, Vec<&TreePort>) = data.partition(|p| p.dir == "input");
    (ins.iter().map(|p| p.width).sum(), outs.iter().map(|p| p.width).sum())
}

/// The wrapper of `m` (ports `clk`, the module's reset if it has one, `din`, `dout`).
pub fn wrapper(m: &TreeModule) -> Module {
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

/// The wrapper's Verilog text, with a short banner saying what it is.
pub fn wrapper_text(m: &TreeModule) -> String {
    let head = format!(
        "// {}: measurement wrapper generated by rtl-gen fpga around {}.\n// Inputs come from a serial shift register loaded from din; outputs are registered and\n// folded into a rotating signature driving dout, so nothing is optimised away and Fmax is\n// register to register.\n`default_nettype none\n\n",
        wrapper_name(&m.name),
        m.name
    );
    format!("{head}{}", wrapper(m).render())
}
