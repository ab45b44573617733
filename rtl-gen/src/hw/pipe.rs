//! A datapath builder that places pipeline registers by itself.
//!
//! A generator declares each signal at the current *stage* and reads signals through
//! [`Pipe::at`]; [`Pipe::cut`] moves to the next stage. Reading a signal defined in an earlier
//! stage creates the chain of delay registers `<name>_p<stage>` it needs, once, so only values
//! that are live across a cut are registered and every register is used (what `verilator
//! -Wall` demands). Delay registers have no reset: the valid flag alone is reset.

use super::verilog::{Expr, Item, Stmt};
use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Default)]
pub struct Pipe {
    pub items: Vec<Item>,
    stage: u32,
    /// Signal → (width, stage it is valid in).
    defs: HashMap<String, (u32, u32)>,
    /// Register assignments per stage boundary (the stage they feed).
    regs: BTreeMap<u32, Vec<Stmt>>,
}

impl Pipe {
    pub fn new() -> Pipe {
        Pipe::default()
    }

    /// The current stage (number of cuts so far).
    pub fn stage(&self) -> u32 {
        self.stage
    }

    /// Registers a signal declared elsewhere (a port, or a wire another emitter drives) as valid
    /// in `stage`.
    pub fn define(&mut self, name: &str, width: u32, stage: u32) {
        let old = self.defs.insert(name.to_string(), (width, stage));
        assert!(old.is_none(), "signal `{name}` defined twice");
    }

    /// Declares a wire valid in the current stage and returns its name.
    pub fn wire(&mut self, name: &str, width: u32, doc: &str) -> String {
        self.items.push(Item::wire(name, width, doc));
        self.define(name, width, self.stage);
        name.to_string()
    }

    /// Width of a defined signal.
    pub fn width(&self, name: &str) -> u32 {
        self.defs.get(name).unwrap_or_else(|| panic!("signal `{name}` is not defined")).0
    }

    /// The name under which `name` is valid in the current stage, creating delay registers.
    pub fn at(&mut self, name: &str) -> String {
        let (width, def) = *self.defs.get(name).unwrap_or_else(|| panic!("signal `{name}` is not defined"));
        assert!(def <= self.stage, "signal `{name}` is read in stage {} before its stage {def}", self.stage);
        let mut prev = name.to_string();
        for s in def + 1..=self.stage {
            let reg = format!("{name}_p{s}");
            if !self.defs.contains_key(&reg) {
                self.items.push(Item::reg(&reg, width, ""));
                self.defs.insert(reg.clone(), (width, s));
                self.regs.entry(s).or_default().push(Stmt::set(Expr::id(&reg), Expr::id(&prev)));
            }
            prev = reg;
        }
        prev
    }

    /// `name` in the current stage as an expression.
    pub fn expr(&mut self, name: &str) -> Expr {
        Expr::id(&self.at(name))
    }

    /// Next stage: values read from now on come through a register.
    pub fn cut(&mut self) {
        self.stage += 1;
    }

    /// Moves forward `n` stages at once (after an emitter that pipelines internally).
    pub fn advance(&mut self, n: u32) {
        self.stage += n;
    }

    /// The items, followed by one clocked block per stage boundary.
    pub fn finish(mut self) -> Vec<Item> {
        for (stage, body) in std::mem::take(&mut self.regs) {
            self.items.push(Item::comment(&format!("pipeline registers into stage {stage}")));
            self.items.push(Item::AlwaysFf { reset: None, body });
        }
        self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::info::ResetStyle;
    use crate::hw::eval::Sim;
    use crate::hw::verilog::{Module, Port};

    #[test]
    fn reads_across_cuts_are_delayed_once() {
        let mut p = Pipe::new();
        p.define("a", 4, 0);
        p.define("b", 4, 0);
        let s = p.wire("s", 4, "");
        let e = Expr::xor(p.expr("a"), p.expr("b"));
        p.items.push(Item::assign(Expr::id(&s), e));
        p.cut();
        p.cut();
        // s and a are both needed two stages later; a twice, registered once.
        let t = p.wire("t", 4, "");
        let e = Expr::and(p.expr("s"), p.expr("a"));
        p.items.push(Item::assign(Expr::id(&t), e));
        let e2 = p.expr("a");
        assert_eq!(e2, Expr::id("a_p2"));
        p.items.push(Item::assign(Expr::id("y"), Expr::or(Expr::id(&t), e2)));
        let items = p.finish();
        let regs = items.iter().filter(|i| matches!(i, Item::Reg { .. })).count();
        assert_eq!(regs, 4, "s_p1, s_p2, a_p1, a_p2");
        let ports = vec![Port::input("clk", 1, ""), Port::input("rst", 1, ""), Port::input("a", 4, ""), Port::input("b", 4, ""), Port::output("y", 4, "")];
        let mut sim = Sim::new(&Module { name: "p".into(), ports, items, reset: Some(ResetStyle::SyncHigh) });
        sim.set_u64("a", 0b1100);
        sim.set_u64("b", 0b1010);
        sim.clock();
        sim.set_u64("a", 0);
        sim.set_u64("b", 0);
        sim.clock();
        // ((a^b) & a) | a = a for the sample two cycles ago.
        assert_eq!(sim.get_u64("y"), 0b1100);
        sim.clock();
        assert_eq!(sim.get_u64("y"), 0);
    }
}
