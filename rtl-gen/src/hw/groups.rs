//! Register groups written from one next-state description: a generator states the next value
//! of every register once, in its reference model's order (`x_n = ...` with later writes
//! winning, as the model's assignments do), and each group is printed as its own
//! `always @*` (the projection of that description onto the group's registers: the other
//! groups' assignments and the branches left empty dropped) and its own `always @(posedge clk)`.
//! So the RTL reads group by group while it keeps the model's order, and a group's block holds
//! exactly the conditions that move its registers.
//!
//! A *pulse* is a combinational variable of a group (default 0 every cycle, no register): an
//! event the next-state description raises where it happens (`inc_acks_sent = 1'b1`) and a
//! register group, a RAM write or an output reads.

use super::build::{dec, id, set_id};
use super::verilog::{Expr, Item, Stmt};

struct Reg {
    name: String,
    width: u32,
    reset: Expr,
    doc: String,
}

struct Group {
    title: String,
    regs: Vec<Reg>,
    pulses: Vec<(String, u32, String)>,
}

/// The register groups of one module.
#[derive(Default)]
pub struct RegGroups {
    groups: Vec<Group>,
}

/// A group, as [`RegGroups::group`] returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupId(usize);

/// The next-value variable of register `x`: `x_n`.
pub fn next(x: &str) -> Expr {
    id(&format!("{x}_n"))
}

/// `x_n = value;`
pub fn set_next(x: &str, value: Expr) -> Stmt {
    set_id(&format!("{x}_n"), value)
}

impl RegGroups {
    pub fn new() -> RegGroups {
        RegGroups::default()
    }

    /// A new group; `title` is the comment printed above its blocks.
    pub fn group(&mut self, title: &str) -> GroupId {
        self.groups.push(Group { title: title.to_string(), regs: vec![], pulses: vec![] });
        GroupId(self.groups.len() - 1)
    }

    /// Register `name` of `width` bits in group `g`, reset to zero.
    pub fn reg(&mut self, g: GroupId, name: &str, width: u32, doc: &str) {
        self.reg_reset(g, name, width, dec(width, 0), doc);
    }

    /// Register `name` reset to `reset` (a named state, all ones).
    pub fn reg_reset(&mut self, g: GroupId, name: &str, width: u32, reset: Expr, doc: &str) {
        assert!(!self.has(name), "register {name} declared twice");
        self.groups[g.0].regs.push(Reg { name: name.to_string(), width, reset, doc: doc.to_string() });
    }

    /// Pulse `name` of group `g` (0 unless the description raises it).
    pub fn pulse(&mut self, g: GroupId, name: &str, width: u32, doc: &str) {
        assert!(!self.has(name), "pulse {name} declared twice");
        self.groups[g.0].pulses.push((name.to_string(), width, doc.to_string()));
    }

    fn has(&self, name: &str) -> bool {
        self.groups.iter().any(|g| g.regs.iter().any(|r| r.name == name) || g.pulses.iter().any(|p| p.0 == name))
    }

    /// Every register and pulse declaration (`x` and `x_n`), group by group: they go before
    /// the wires that read them.
    pub fn declarations(&self) -> Vec<Item> {
        let mut items = vec![];
        for g in &self.groups {
            items.push(Item::comment(&format!("{}: registers x and their next values x_n.", g.title)));
            for r in &g.regs {
                items.push(Item::reg(&r.name, r.width, &r.doc));
                items.push(Item::reg(&format!("{}_n", r.name), r.width, ""));
            }
            for (p, w, doc) in &g.pulses {
                items.push(Item::reg(p, *w, doc));
            }
        }
        items
    }

    /// Per group: its `always @*` (hold, pulses low, then the projection of `description`) and its
    /// `always @(posedge clk)` loading `x <= x_n` (reset values under the design's reset);
    /// `description` is the next-state description in the model's order.
    pub fn blocks(&self, description: &[Stmt]) -> Vec<Item> {
        let mut items = vec![];
        for g in &self.groups {
            let mut targets: Vec<String> = g.regs.iter().map(|r| format!("{}_n", r.name)).collect();
            targets.extend(g.pulses.iter().map(|p| p.0.clone()));
            let mut comb: Vec<Stmt> = g.regs.iter().map(|r| set_next(&r.name, id(&r.name))).collect();
            comb.extend(g.pulses.iter().map(|(p, w, _)| set_id(p, dec(*w, 0))));
            comb.extend(project(description, &targets));
            items.push(Item::comment(&format!("{}: next state.", g.title)));
            items.push(Item::AlwaysComb(comb));
            if !g.regs.is_empty() {
                let reset = g.regs.iter().map(|r| set_id(&r.name, r.reset.clone())).collect();
                let body = g.regs.iter().map(|r| set_id(&r.name, next(&r.name))).collect();
                items.push(Item::AlwaysFf { reset: Some(reset), body });
            }
        }
        items
    }
}

/// The name a left-hand side assigns (`x_n`, `x_n[3]`).
fn target(lhs: &Expr) -> Option<&str> {
    match lhs {
        Expr::Ident(n) | Expr::Bit(n, _) | Expr::Slice(n, ..) | Expr::Index(n, _) => Some(n),
        _ => None,
    }
}

/// `stmts` with only the assignments to `targets`; a branch left empty is dropped, and a comment
/// is kept before the first statement kept after it (dropped when none is, before the next
/// comment).
pub fn project(stmts: &[Stmt], targets: &[String]) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = vec![];
    let mut comment: Option<Stmt> = None;
    for s in stmts {
        let kept = match s {
            Stmt::Comment(_) => {
                comment = Some(s.clone());
                continue;
            }
            Stmt::Assign(l, _) => target(l).is_some_and(|t| targets.iter().any(|x| x == t)).then(|| s.clone()),
            Stmt::If(c, a, b) => {
                let (a, b) = (project(a, targets), project(b, targets));
                match (a.is_empty(), b.is_empty()) {
                    (true, true) => None,
                    (true, false) => Some(Stmt::If(c.clone().not(), b, vec![])),
                    _ => Some(Stmt::If(c.clone(), a, b)),
                }
            }
            Stmt::Case(sel, arms, default) => {
                let arms: Vec<(Vec<Expr>, Vec<Stmt>)> = arms.iter().map(|(l, b)| (l.clone(), project(b, targets))).collect();
                let default = project(default, targets);
                (arms.iter().any(|(_, b)| !b.is_empty()) || !default.is_empty()).then(|| Stmt::Case(sel.clone(), arms, default))
            }
        };
        if let Some(k) = kept {
            out.extend(comment.take());
            out.push(k);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::build::{when, if_else};

    #[test]
    fn a_projection_keeps_the_order_and_drops_empty_branches() {
        let stmts = vec![
            Stmt::Comment("go".into()),
            when(id("go"), vec![set_next("a", dec(2, 1)), set_next("b", dec(2, 2))]),
            Stmt::Comment("stop or back".into()),
            if_else(id("stop"), vec![set_next("b", dec(2, 0))], vec![]),
            if_else(id("back"), vec![set_next("b", dec(2, 3))], vec![set_next("a", dec(2, 0))]),
            Stmt::Comment("only b".into()),
            set_next("b", dec(2, 1)),
        ];
        let a = project(&stmts, &["a_n".to_string()]);
        assert_eq!(a.len(), 4);
        assert_eq!(a[1], when(id("go"), vec![set_next("a", dec(2, 1))]));
        assert_eq!(a[2], Stmt::Comment("stop or back".into()));
        assert_eq!(a[3], Stmt::If(id("back").not(), vec![set_next("a", dec(2, 0))], vec![]));
        let b = project(&stmts, &["b_n".to_string()]);
        assert_eq!(b.len(), 7);
        assert_eq!(b[5], Stmt::Comment("only b".into()));
    }
}
