//! The clean-up every module gets before it is printed, so the emitted text reads as a careful
//! engineer would write it whatever shortcuts a generator took while building the tree:
//!
//! - constants folded: `{N{1'd0}}` is `N'd0`, `x & 1'd0` is `1'd0`, `x & ~1'd0` and `x | 1'd0`
//!   are `x`, a parity over an all-ones mask is a plain reduction, `if (1'd0)` disappears;
//! - identity wires dropped: an internal wire driven by exactly another whole signal of the same
//!   width (`assign a = b;`) is replaced by that signal at every use;
//! - every declaration before its first use: a declaration a generator placed after a use moves
//!   up to just before it (with its `lint_off` bracket, if it had one);
//! - one formal block: the kind's properties and those its helpers emitted, merged and last
//!   ([`super::props::gather`]).
//!
//! Folding relies on the operands of `&`, `|` and `^` having the same width, which is what
//! `verilator -Wall` enforces for every emitted module; an operand whose width is not known from
//! the module's declarations is left alone.

use super::verilog::{BinOp, Expr, Item, Module, Stmt, UnOp};
use crate::math::gf2::BitVec;
use std::collections::{HashMap, HashSet};

/// Tidy `m` in place (see the module docs).
pub fn tidy(m: &mut Module) {
    let widths = Widths::of(m);
    for item in &mut m.items {
        for_each_expr_in_item(item, &mut |e| *e = fold(std::mem::replace(e, Expr::zero()), &widths));
        fold_item_stmts(item);
    }
    drop_identity_wires(m);
    declare_before_use(m);
    super::props::gather(&mut m.items);
}

/// Signal widths from the module's declarations: ports, wires, regs, memories (by word),
/// localparams and functions.
struct Widths {
    of: HashMap<String, u32>,
    memories: HashSet<String>,
}

impl Widths {
    fn of(m: &Module) -> Widths {
        let mut of: HashMap<String, u32> = m.ports.iter().map(|p| (p.name.clone(), p.width)).collect();
        let mut memories = HashSet::new();
        for item in &m.items {
            match item {
                Item::Wire { name, width, .. } | Item::KeptWire { name, width } | Item::Reg { name, width, .. } | Item::SyncReg { name, width, .. } => {
                    of.insert(name.clone(), *width);
                }
                Item::Memory { name, width, .. } | Item::LutMemory { name, width, .. } | Item::UncheckedMemory { name, width, .. } => {
                    of.insert(name.clone(), *width);
                    memories.insert(name.clone());
                }
                Item::Localparam { name, value, .. } => {
                    if let Some(w) = const_width(value) {
                        of.insert(name.clone(), w);
                    }
                }
                Item::Function { name, width, .. } => {
                    of.insert(name.clone(), *width);
                }
                _ => {}
            }
        }
        Widths { of, memories }
    }

    /// The self-determined width of `e`, when every name in it is declared.
    fn width(&self, e: &Expr) -> Option<u32> {
        Some(match e {
            Expr::Ident(n) => *self.of.get(n)?,
            Expr::Bit(..) => 1,
            Expr::Slice(_, hi, lo) => hi - lo + 1,
            Expr::Index(n, _) => {
                if self.memories.contains(n) {
                    *self.of.get(n)?
                } else {
                    1
                }
            }
            Expr::Const(v) => v.len() as u32,
            Expr::Dec(w, _) => *w,
            Expr::Un(UnOp::Not, x) => self.width(x)?,
            Expr::Un(..) => 1,
            Expr::Bin(op, a, b) => match op {
                BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Add | BinOp::Sub | BinOp::Mod => self.width(a)?.max(self.width(b)?),
                _ => 1,
            },
            Expr::Ternary(_, a, b) => self.width(a)?.max(self.width(b)?),
            Expr::Concat(parts) => parts.iter().map(|p| self.width(p)).sum::<Option<u32>>()?,
            Expr::Repeat(n, x) => n * self.width(x)?,
            Expr::Call(n, _) => *self.of.get(n)?,
            Expr::XorAll(terms) => terms.iter().map(|t| self.width(t)).collect::<Option<Vec<u32>>>()?.into_iter().max()?,
            Expr::Parity { .. } => 1,
        })
    }
}

fn const_width(e: &Expr) -> Option<u32> {
    match e {
        Expr::Const(v) => Some(v.len() as u32),
        Expr::Dec(w, _) => Some(*w),
        _ => None,
    }
}

/// A literal constant as bits, LSB first.
fn const_bits(e: &Expr) -> Option<BitVec> {
    match e {
        Expr::Const(v) => Some(v.clone()),
        Expr::Dec(w, v) => {
            let mut b = BitVec::zeros(*w as usize);
            for i in 0..(*w).min(64) {
                b.set(i as usize, (v >> i) & 1 == 1);
            }
            Some(b)
        }
        _ => None,
    }
}

fn is_zero(e: &Expr) -> bool {
    const_bits(e).is_some_and(|b| b.is_zero())
}

fn is_ones(e: &Expr) -> bool {
    const_bits(e).is_some_and(|b| (0..b.len()).all(|i| b.get(i)))
}

/// The constant `bits` in the form the printer writes it: decimal up to 64 bits (zero at any
/// width), hexadecimal beyond.
fn literal(bits: &BitVec) -> Expr {
    let w = bits.len() as u32;
    if bits.is_zero() {
        return Expr::Dec(w, 0);
    }
    if w <= 64 {
        let v = (0..bits.len()).fold(0u64, |acc, i| acc | ((bits.get(i) as u64) << i));
        return Expr::Dec(w, v);
    }
    Expr::Const(bits.clone())
}

/// Fold constants bottom-up (see the module docs).
fn fold(e: Expr, w: &Widths) -> Expr {
    match e {
        Expr::Index(n, idx) => Expr::Index(n, Box::new(fold(*idx, w))),
        Expr::Un(op, x) => {
            let x = fold(*x, w);
            match (op, const_bits(&x)) {
                (UnOp::Not, Some(mut b)) => {
                    for i in 0..b.len() {
                        let v = b.get(i);
                        b.set(i, !v);
                    }
                    literal(&b)
                }
                _ => Expr::Un(op, Box::new(x)),
            }
        }
        Expr::Bin(op, a, b) => fold_bin(op, fold(*a, w), fold(*b, w), w),
        Expr::Ternary(c, a, b) => {
            let (c, a, b) = (fold(*c, w), fold(*a, w), fold(*b, w));
            match const_bits(&c) {
                Some(bits) if w.width(&a).is_some() && w.width(&a) == w.width(&b) => {
                    if bits.is_zero() {
                        b
                    } else {
                        a
                    }
                }
                _ => Expr::Ternary(Box::new(c), Box::new(a), Box::new(b)),
            }
        }
        Expr::Concat(parts) => {
            // A zero-width part (`{0{1'd0}}`, which Verilog-2005 does not allow) is dropped.
            let parts: Vec<Expr> = parts.into_iter().map(|p| fold(p, w)).filter(|p| const_width(p) != Some(0)).collect();
            // A concatenation of constants is one constant: `{1'd0, 2'd1}` is `3'd1`.
            match parts.iter().map(const_bits).collect::<Option<Vec<BitVec>>>() {
                Some(bits) if parts.len() > 1 => {
                    let mut all = BitVec::zeros(bits.iter().map(BitVec::len).sum());
                    let mut at = 0;
                    for b in bits.iter().rev() {
                        for i in 0..b.len() {
                            all.set(at + i, b.get(i));
                        }
                        at += b.len();
                    }
                    literal(&all)
                }
                _ => Expr::Concat(parts),
            }
        }
        Expr::Repeat(n, x) => {
            let x = fold(*x, w);
            match const_bits(&x) {
                Some(bits) => {
                    let mut all = BitVec::zeros(bits.len() * n as usize);
                    for r in 0..n as usize {
                        for i in 0..bits.len() {
                            all.set(r * bits.len() + i, bits.get(i));
                        }
                    }
                    literal(&all)
                }
                None if n == 1 => x,
                None => Expr::Repeat(n, Box::new(x)),
            }
        }
        Expr::Call(n, args) => Expr::Call(n, args.into_iter().map(|a| fold(a, w)).collect()),
        Expr::XorAll(terms) => Expr::XorAll(terms.into_iter().map(|t| fold(t, w)).collect()),
        Expr::Parity { of, mask, invert } => {
            let of = fold(*of, w);
            let full = (0..mask.len()).all(|i| mask.get(i)) && w.width(&of) == Some(mask.len() as u32);
            if full {
                Expr::red(if invert { UnOp::RedXnor } else { UnOp::RedXor }, of)
            } else {
                Expr::Parity { of: Box::new(of), mask, invert }
            }
        }
        leaf => leaf,
    }
}

/// `a op b` with a constant operand folded where the result is the other operand or a constant
/// of the same width (`x & 1'd0`, `x | 1'd0`, `x + 3'd0`, `x - 3'd0`).
fn fold_bin(op: BinOp, a: Expr, b: Expr, w: &Widths) -> Expr {
    let same = |x: &Expr, c: &Expr| w.width(x).is_some() && w.width(x) == const_width(c);
    for (x, c) in [(&a, &b), (&b, &a)] {
        if !same(x, c) {
            continue;
        }
        let folded = match op {
            BinOp::And if is_zero(c) => Some(c),
            BinOp::And if is_ones(c) => Some(x),
            BinOp::Or if is_zero(c) => Some(x),
            BinOp::Or if is_ones(c) => Some(c),
            BinOp::Xor | BinOp::Add if is_zero(c) => Some(x),
            BinOp::Sub if is_zero(c) && std::ptr::eq(c, &b) => Some(x),
            BinOp::LogicAnd if is_zero(c) => Some(c),
            BinOp::LogicAnd if const_width(c) == Some(1) => Some(x),
            BinOp::LogicOr if is_zero(c) && const_width(c) == Some(1) => Some(x),
            BinOp::LogicOr if const_width(c) == Some(1) => Some(c),
            _ => None,
        };
        if let Some(f) = folded {
            return f.clone();
        }
    }
    Expr::Bin(op, Box::new(a), Box::new(b))
}

/// Statements under a constant condition: `if (1'd0) a else b` is `b`.
fn fold_stmts(stmts: Vec<Stmt>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s {
            Stmt::If(c, then, els) => {
                let (then, els) = (fold_stmts(then), fold_stmts(els));
                match const_bits(&c) {
                    Some(b) if b.is_zero() => out.extend(els),
                    Some(_) => out.extend(then),
                    None => out.push(Stmt::If(c, then, els)),
                }
            }
            Stmt::Case(sel, arms, default) => {
                let arms = arms.into_iter().map(|(l, body)| (l, fold_stmts(body))).collect();
                out.push(Stmt::Case(sel, arms, fold_stmts(default)));
            }
            other => out.push(other),
        }
    }
    out
}

fn fold_item_stmts(item: &mut Item) {
    match item {
        Item::AlwaysFf { reset, body } | Item::AlwaysFfOn { reset, body, .. } => {
            if let Some(r) = reset {
                *r = fold_stmts(std::mem::take(r));
            }
            *body = fold_stmts(std::mem::take(body));
        }
        Item::AlwaysComb(body) | Item::Function { body, .. } => *body = fold_stmts(std::mem::take(body)),
        _ => {}
    }
}

/// Every expression of an item (right- and left-hand sides, conditions, case labels,
/// connections, localparam values), outermost first.
pub(crate) fn for_each_expr_in_item(item: &mut Item, f: &mut impl FnMut(&mut Expr)) {
    match item {
        Item::Localparam { value, .. } => f(value),
        Item::Assign(l, r) => {
            f(l);
            f(r);
        }
        Item::AlwaysFf { reset, body } | Item::AlwaysFfOn { reset, body, .. } => {
            if let Some(r) = reset {
                for_each_expr_in_stmts(r, f);
            }
            for_each_expr_in_stmts(body, f);
        }
        Item::AlwaysComb(body) | Item::Function { body, .. } => for_each_expr_in_stmts(body, f),
        Item::Instance { conns, .. } => conns.iter_mut().for_each(|(_, e)| f(e)),
        // The properties read the module's signals: they are folded and renamed with it.
        Item::Formal(formal) => {
            formal.items.iter_mut().for_each(|i| for_each_expr_in_item(i, f));
            formal.init.iter_mut().for_each(|(_, v)| f(v));
            for check in &mut formal.checks {
                if let Some(g) = &mut check.guard {
                    f(g);
                }
                f(&mut check.cond);
            }
        }
        _ => {}
    }
}

fn for_each_expr_in_stmts(stmts: &mut [Stmt], f: &mut impl FnMut(&mut Expr)) {
    for s in stmts {
        match s {
            Stmt::Assign(l, r) => {
                f(l);
                f(r);
            }
            Stmt::If(c, then, els) => {
                f(c);
                for_each_expr_in_stmts(then, f);
                for_each_expr_in_stmts(els, f);
            }
            Stmt::Case(sel, arms, default) => {
                f(sel);
                for (labels, body) in arms {
                    labels.iter_mut().for_each(&mut *f);
                    for_each_expr_in_stmts(body, f);
                }
                for_each_expr_in_stmts(default, f);
            }
            Stmt::Comment(_) => {}
        }
    }
}

/// The signal names an expression refers to, in every node kind that carries one.
fn names_in(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Ident(n) | Expr::Bit(n, _) | Expr::Slice(n, ..) => out.push(n.clone()),
        Expr::Index(n, idx) => {
            out.push(n.clone());
            names_in(idx, out);
        }
        Expr::Const(_) | Expr::Dec(..) => {}
        Expr::Un(_, x) | Expr::Repeat(_, x) => names_in(x, out),
        Expr::Bin(_, a, b) => {
            names_in(a, out);
            names_in(b, out);
        }
        Expr::Ternary(c, a, b) => {
            names_in(c, out);
            names_in(a, out);
            names_in(b, out);
        }
        Expr::Concat(xs) | Expr::XorAll(xs) => xs.iter().for_each(|x| names_in(x, out)),
        Expr::Call(n, args) => {
            out.push(n.clone());
            args.iter().for_each(|x| names_in(x, out));
        }
        Expr::Parity { of, .. } => names_in(of, out),
    }
}

/// Rename signal `from` to `to` throughout `e`.
fn rename(e: &mut Expr, from: &str, to: &str) {
    match e {
        Expr::Ident(n) | Expr::Bit(n, _) | Expr::Slice(n, ..) if n == from => *n = to.to_string(),
        Expr::Index(n, idx) => {
            if n == from {
                *n = to.to_string();
            }
            rename(idx, from, to);
        }
        Expr::Un(_, x) | Expr::Repeat(_, x) => rename(x, from, to),
        Expr::Bin(_, a, b) => {
            rename(a, from, to);
            rename(b, from, to);
        }
        Expr::Ternary(c, a, b) => {
            rename(c, from, to);
            rename(a, from, to);
            rename(b, from, to);
        }
        Expr::Concat(xs) | Expr::XorAll(xs) => xs.iter_mut().for_each(|x| rename(x, from, to)),
        Expr::Call(_, args) => args.iter_mut().for_each(|x| rename(x, from, to)),
        Expr::Parity { of, .. } => rename(of, from, to),
        _ => {}
    }
}

/// An internal wire driven by one whole other signal of the same width (`assign a = b;`) is
/// merged with it. The merged signal keeps the driver's name `b`, unless `b` is an internal
/// wire without a comment and `a` has one (then `a`'s name and comment say what it is).
fn drop_identity_wires(m: &mut Module) {
    loop {
        let widths = Widths::of(m);
        let wires: HashMap<&str, (u32, &str)> = m.items.iter().filter_map(|i| if let Item::Wire { name, width, doc } = i { Some((name.as_str(), (*width, doc.as_str()))) } else { None }).collect();
        let found = m.items.iter().enumerate().find_map(|(i, item)| match item {
            Item::Assign(Expr::Ident(a), Expr::Ident(b)) if a != b && wires.get(a.as_str()).is_some_and(|(w, _)| widths.of.get(b) == Some(w)) && !widths.memories.contains(b) => Some((i, a.clone(), b.clone())),
            _ => None,
        });
        let Some((at, a, b)) = found else { return };
        let a_doc = wires[a.as_str()].1.to_string();
        // `b` takes `a`'s name only if `b` is an internal wire driven by one whole assignment.
        let b_single_wire = wires.get(b.as_str()).is_some_and(|(_, doc)| doc.is_empty() && !a_doc.is_empty())
            && m.items.iter().filter(|i| matches!(i, Item::Assign(Expr::Ident(l), _) if *l == b)).count() == 1
            && !m.items.iter().any(|i| match i {
                Item::Instance { conns, .. } => conns.iter().any(|(_, e)| matches!(e, Expr::Ident(n) if *n == b)),
                _ => false,
            });
        m.items.remove(at);
        m.items.retain(|i| !matches!(i, Item::Wire { name, .. } if *name == a));
        let (from, to) = if b_single_wire { (b, a) } else { (a, b) };
        for item in &mut m.items {
            if let Item::Wire { name, doc, .. } = item {
                if *name == from {
                    // `b`'s declaration, now under `a`'s name; it keeps a comment if either had one.
                    *name = to.clone();
                    if doc.is_empty() {
                        *doc = a_doc.clone();
                    }
                }
            }
            if let Item::Formal(formal) = item {
                // Cut points and free registers name signals as text.
                formal.cut_points.iter_mut().chain(formal.free_registers.iter_mut()).filter(|n| **n == from).for_each(|n| *n = to.clone());
            }
            for_each_expr_in_item(item, &mut |e| rename(e, &from, &to));
        }
    }
}

/// The names declared by an item.
fn declared(item: &Item) -> Option<&str> {
    match item {
        Item::Wire { name, .. } | Item::KeptWire { name, .. } | Item::Reg { name, .. } | Item::SyncReg { name, .. } | Item::Memory { name, .. } | Item::LutMemory { name, .. } | Item::UncheckedMemory { name, .. } | Item::Localparam { name, .. } | Item::Function { name, .. } => Some(name),
        _ => None,
    }
}

/// Every expression of an item, read-only (the order of [`for_each_expr_in_item`]).
pub(crate) fn exprs_of(item: &Item) -> Vec<&Expr> {
    fn stmts<'a>(ss: &'a [Stmt], out: &mut Vec<&'a Expr>) {
        for s in ss {
            match s {
                Stmt::Assign(l, r) => out.extend([l, r]),
                Stmt::If(c, then, els) => {
                    out.push(c);
                    stmts(then, out);
                    stmts(els, out);
                }
                Stmt::Case(sel, arms, default) => {
                    out.push(sel);
                    for (labels, body) in arms {
                        out.extend(labels.iter());
                        stmts(body, out);
                    }
                    stmts(default, out);
                }
                Stmt::Comment(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    match item {
        Item::Localparam { value, .. } => out.push(value),
        Item::Assign(l, r) => out.extend([l, r]),
        Item::AlwaysFf { reset, body } | Item::AlwaysFfOn { reset, body, .. } => {
            if let Some(r) = reset {
                stmts(r, &mut out);
            }
            stmts(body, &mut out);
        }
        Item::AlwaysComb(body) | Item::Function { body, .. } => stmts(body, &mut out),
        Item::Instance { conns, .. } => out.extend(conns.iter().map(|(_, e)| e)),
        Item::Formal(formal) => {
            formal.items.iter().for_each(|i| out.extend(exprs_of(i)));
            out.extend(formal.init.iter().map(|(_, v)| v));
            for check in &formal.checks {
                out.extend(check.guard.iter());
                out.push(&check.cond);
            }
        }
        _ => {}
    }
    out
}

/// The names an item reads or drives (a function's own name and argument are local to it).
fn used(item: &Item) -> Vec<String> {
    let mut out = Vec::new();
    for e in exprs_of(item) {
        names_in(e, &mut out);
    }
    if let Item::Function { name, arg, .. } = item {
        out.retain(|n| n != name && n != arg);
    }
    out
}

/// Moves every declaration that follows a use of its name to just before that use.
fn declare_before_use(m: &mut Module) {
    for _ in 0..m.items.len() {
        let decl_at: HashMap<String, usize> = m.items.iter().enumerate().filter_map(|(i, it)| declared(it).map(|n| (n.to_string(), i))).collect();
        let late = m.items.iter().enumerate().find_map(|(i, it)| used(it).into_iter().find_map(|n| decl_at.get(&n).filter(|&&d| d > i).map(|&d| (i, d))));
        let Some((first_use, at)) = late else { return };
        // The pragma bracket the declaration sat in (`lint_off X` … `lint_on X`) goes with it.
        let bracket = m.items[..at].iter().rev().find_map(|it| match it {
            Item::Pragma(p) => Some(p.clone()),
            _ => None,
        });
        let off = bracket.filter(|p| p.contains("lint_off"));
        let item = m.items.remove(at);
        let mut moved = Vec::new();
        if let Some(p) = &off {
            moved.push(Item::Pragma(p.clone()));
        }
        moved.push(item);
        if let Some(p) = &off {
            moved.push(Item::Pragma(p.replace("lint_off", "lint_on")));
        }
        m.items.splice(first_use..first_use, moved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::verilog::Port;

    fn module(items: Vec<Item>) -> Module {
        let ports = vec![Port::input("a", 1, ""), Port::input("v", 4, ""), Port::output("y", 1, ""), Port::output("z", 4, "")];
        Module { name: "m".into(), ports, items, reset: None }
    }

    #[test]
    fn the_read_only_walk_visits_what_the_mutable_walk_visits() {
        // A formal block with every part that holds expressions: a shadow item, an initial
        // value and a guarded check.
        let mut formal = crate::hw::props::Formal::default();
        formal.items.push(Item::assign(Expr::id("y"), Expr::id("a")));
        formal.init.push(("s".into(), Expr::zero()));
        formal.assert("p_y", "y follows a", Some(Expr::id("a")), Expr::id("y"));
        let items = [Item::assign(Expr::id("z"), Expr::id("v")), Item::Formal(formal)];
        for item in items {
            let read: Vec<String> = exprs_of(&item).into_iter().map(|e| format!("{e:?}")).collect();
            let mut walked = Vec::new();
            for_each_expr_in_item(&mut item.clone(), &mut |e| walked.push(format!("{e:?}")));
            assert_eq!(read, walked);
        }
    }

    #[test]
    fn constant_operands_and_replications_fold() {
        let mut m = module(vec![
            Item::assign(Expr::id("y"), Expr::and(Expr::and(Expr::id("a"), Expr::id("a").not()), Expr::zero())),
            Item::assign(Expr::id("z"), Expr::and(Expr::id("v"), Expr::Repeat(4, Box::new(Expr::one())))),
            Item::assign(Expr::id("z"), Expr::Concat(vec![Expr::Repeat(3, Box::new(Expr::zero())), Expr::and(Expr::id("a"), Expr::zero().not())])),
            Item::assign(Expr::id("z"), Expr::or(Expr::id("v"), Expr::Repeat(4, Box::new(Expr::zero())))),
            Item::assign(Expr::id("y"), Expr::parity(Expr::id("v"), BitVec::from_u128(4, 0xf), false)),
            Item::assign(Expr::id("z"), Expr::Concat(vec![Expr::Repeat(3, Box::new(Expr::zero())), Expr::Concat(vec![Expr::Repeat(0, Box::new(Expr::zero())), Expr::id("a")])])),
            Item::assign(Expr::id("z"), Expr::bin(BinOp::Add, Expr::bin(BinOp::Sub, Expr::id("v"), Expr::dec(4, 0)), Expr::Concat(vec![Expr::Repeat(2, Box::new(Expr::zero())), Expr::dec(2, 1)]))),
        ]);
        tidy(&mut m);
        let text = m.render();
        assert!(text.contains("assign y = 1'd0;"), "{text}");
        assert!(text.contains("assign z = v;"), "{text}");
        assert!(text.contains("assign z = {3'd0, a};"), "{text}");
        assert!(text.contains("assign y = ^v;"), "{text}");
        assert!(text.contains("assign z = v + 4'd1;"), "{text}");
        assert!(text.contains("assign z = {3'd0, {a}};"), "{text}");
    }

    #[test]
    fn a_wider_operand_is_not_folded_against_a_narrow_constant() {
        let mut m = module(vec![Item::assign(Expr::id("z"), Expr::and(Expr::id("v"), Expr::one()))]);
        tidy(&mut m);
        assert!(m.render().contains("assign z = v & 1'd1;"));
    }

    #[test]
    fn identity_wires_are_replaced_by_their_driver() {
        let mut m = module(vec![
            Item::wire("f", 4, "the source"),
            Item::assign(Expr::id("f"), Expr::Un(UnOp::Not, Box::new(Expr::id("v")))),
            Item::wire("g", 4, ""),
            Item::assign(Expr::id("g"), Expr::id("f")),
            Item::assign(Expr::id("z"), Expr::slice("g", 3, 0)),
        ]);
        tidy(&mut m);
        let text = m.render();
        assert!(!text.contains(" g"), "{text}");
        assert!(text.contains("wire [3:0] f; // the source\n    assign f = ~v;"), "{text}");
        assert!(text.contains("assign z = f[3:0];"), "{text}");
        // A commented copy of an uncommented wire gives the pair its name and comment.
        let mut m = module(vec![
            Item::wire("p", 4, ""),
            Item::assign(Expr::id("p"), Expr::Un(UnOp::Not, Box::new(Expr::id("v")))),
            Item::wire("q", 4, "what it is"),
            Item::assign(Expr::id("q"), Expr::id("p")),
            Item::assign(Expr::id("z"), Expr::id("q")),
        ]);
        tidy(&mut m);
        let text = m.render();
        assert!(text.contains("wire [3:0] q; // what it is\n    assign q = ~v;\n    assign z = q;"), "{text}");
    }

    #[test]
    fn a_late_declaration_moves_before_its_first_use_with_its_lint_bracket() {
        let mut m = module(vec![
            Item::wire("h", 1, ""),
            Item::assign(Expr::id("h"), Expr::bit("w", 0)),
            Item::pragma("verilator lint_off UNUSED"),
            Item::wire("w", 4, "late"),
            Item::pragma("verilator lint_on UNUSED"),
            Item::assign(Expr::id("w"), Expr::id("v").not()),
            Item::assign(Expr::id("y"), Expr::id("h")),
        ]);
        tidy(&mut m);
        let text = m.render();
        let decl = text.find("wire [3:0] w;").expect("declared");
        let usage = text.find("assign h = w[0];").expect("used");
        assert!(decl < usage, "{text}");
        assert!(text[..decl].ends_with("// verilator lint_off UNUSED\n    "), "{text}");
    }
}
