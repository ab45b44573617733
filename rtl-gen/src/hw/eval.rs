//! A cycle-based evaluator of the typed Verilog tree, for unit tests: the generator's own modules
//! run in Rust against their reference models without a simulator.
//!
//! It covers the subset the generators emit: wires, regs, localparams, continuous assignments
//! (whole vectors, bits or constant slices), `always @(posedge clk)` blocks with optional reset
//! (non-blocking: every right-hand side reads the values before the edge), `if`/`case`, and the
//! expression nodes of [`Expr`]. Widths follow Verilog's rules for width-matched operands (which
//! is what `verilator -Wall` insists on): bitwise and arithmetic results are as wide as the wider
//! operand (the narrower zero-extended, arithmetic modulo 2^width), comparisons and reductions
//! are one bit, and an assignment truncates or zero-extends to its target. Memories, instances
//! and `always @*` are not supported (the evaluator panics naming the item).
//!
//! Continuous assignments are ordered once, topologically over whole signals, so a signal must
//! not feed its own driver (the same rule Verilator's UNOPTFLAT warning enforces). Reset is
//! applied at clock edges for both reset styles.

use super::verilog::{BinOp, Expr, Item, Module, Stmt, UnOp};
pub use crate::bits::Bits;
use crate::info::ResetStyle;
use std::collections::HashMap;

/// The operations of Verilog's width rules on [`Bits`], private to the evaluator.
trait Ops: Sized {
    fn resize(&self, width: usize) -> Self;
    fn zip(&self, other: &Self, f: impl Fn(u64, u64) -> u64) -> Self;
    fn invert(&self) -> Self;
    fn parity(&self) -> bool;
    fn add(&self, other: &Self, subtract: bool) -> Self;
    fn less_than(&self, other: &Self) -> bool;
    fn modulo(&self, other: &Self) -> Self;
    fn bool(v: bool) -> Self;
    fn cat(parts: &[Self]) -> Self;
}

impl Ops for Bits {
    /// Zero-extended or truncated.
    fn resize(&self, width: usize) -> Bits {
        Bits::from_words(self.words(), width)
    }

    fn zip(&self, other: &Bits, f: impl Fn(u64, u64) -> u64) -> Bits {
        let width = self.width().max(other.width());
        let (a, b) = (self.resize(width), other.resize(width));
        let words: Vec<u64> = a.words().iter().zip(b.words()).map(|(x, y)| f(*x, *y)).collect();
        Bits::from_words(&words, width)
    }

    fn invert(&self) -> Bits {
        let words: Vec<u64> = self.words().iter().map(|w| !w).collect();
        Bits::from_words(&words, self.width())
    }

    fn parity(&self) -> bool {
        self.count_ones() & 1 == 1
    }

    /// Sum or difference modulo 2^width of the wider operand.
    fn add(&self, other: &Bits, subtract: bool) -> Bits {
        let width = self.width().max(other.width());
        let a = self.resize(width);
        let b = if subtract { other.resize(width).invert() } else { other.resize(width) };
        let mut carry = u64::from(subtract);
        let words: Vec<u64> = a
            .words()
            .iter()
            .zip(b.words())
            .map(|(x, y)| {
                let (s1, c1) = x.overflowing_add(*y);
                let (s2, c2) = s1.overflowing_add(carry);
                carry = u64::from(c1 || c2);
                s2
            })
            .collect();
        Bits::from_words(&words, width)
    }

    /// The remainder, in the wider operand's width, for a divisor of at most 64 bits (the
    /// formal references divide by small constants); zero for a zero divisor (Verilog: X).
    fn modulo(&self, other: &Bits) -> Bits {
        let width = self.width().max(other.width());
        let m = other.words().iter().skip(1).all(|w| *w == 0).then(|| other.words().first().copied().unwrap_or(0)).filter(|m| *m != 0);
        let Some(m) = m else { return Bits::zeros(width) };
        let r = self.words().iter().rev().fold(0u128, |r, w| ((r << 64) | u128::from(*w)) % u128::from(m));
        Bits::from_words(&[r as u64], width)
    }

    fn less_than(&self, other: &Bits) -> bool {
        let width = self.width().max(other.width());
        let (a, b) = (self.resize(width), other.resize(width));
        for (x, y) in a.words().iter().zip(b.words()).rev() {
            if x != y {
                return x < y;
            }
        }
        false
    }

    fn bool(v: bool) -> Bits {
        Bits::from_u64(u64::from(v), 1)
    }

    /// `{parts[0], parts[1], …}`: `parts[0]` is the most significant.
    fn cat(parts: &[Bits]) -> Bits {
        let width = parts.iter().map(Bits::width).sum();
        let mut out = Bits::zeros(width);
        let mut lo = 0;
        for p in parts.iter().rev() {
            out.set_slice(lo, p);
            lo += p.width();
        }
        out
    }
}

/// An expression with its signal names resolved to indices.
#[derive(Debug, Clone)]
enum CExpr {
    Sig(usize),
    Bit(usize, usize),
    Slice(usize, usize, usize),
    Index(usize, Box<CExpr>),
    Const(Bits),
    Un(UnOp, Box<CExpr>),
    Bin(BinOp, Box<CExpr>, Box<CExpr>),
    Ternary(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    Concat(Vec<CExpr>),
    Repeat(usize, Box<CExpr>),
    XorAll(Vec<CExpr>),
    /// Parity of `of & mask`, inverted when the flag is set.
    Parity(Box<CExpr>, Bits, bool),
}

/// An assignment target: signal, low bit, width.
#[derive(Debug, Clone, Copy)]
struct Target {
    sig: usize,
    lo: usize,
    len: usize,
}

#[derive(Debug, Clone)]
enum CStmt {
    Assign(Target, CExpr),
    If(CExpr, Vec<CStmt>, Vec<CStmt>),
    Case(CExpr, Vec<(Vec<CExpr>, Vec<CStmt>)>, Vec<CStmt>),
}

#[derive(Debug, Clone)]
struct FfBlock {
    reset: Option<Vec<CStmt>>,
    body: Vec<CStmt>,
}

/// A module ready to run: set inputs, [`Sim::settle`] or [`Sim::clock`], read any signal.
#[derive(Debug, Clone)]
pub struct Sim {
    names: HashMap<String, usize>,
    widths: Vec<usize>,
    values: Vec<Bits>,
    /// Continuous assignments in evaluation order.
    comb: Vec<(Target, CExpr)>,
    ffs: Vec<FfBlock>,
    /// The reset port and whether it is active low.
    reset: Option<(usize, bool)>,
}

struct Compiler<'a> {
    module: &'a Module,
    names: HashMap<String, usize>,
    widths: Vec<usize>,
    values: Vec<Bits>,
}

impl Compiler<'_> {
    fn declare(&mut self, name: &str, width: u32) {
        assert!(!self.names.contains_key(name), "module {}: `{name}` declared twice", self.module.name);
        self.names.insert(name.to_string(), self.widths.len());
        self.widths.push(width as usize);
        self.values.push(Bits::zeros(width as usize));
    }

    fn sig(&self, name: &str) -> usize {
        *self.names.get(name).unwrap_or_else(|| panic!("module {}: `{name}` is not declared", self.module.name))
    }

    fn expr(&self, e: &Expr) -> CExpr {
        match e {
            Expr::Ident(n) => CExpr::Sig(self.sig(n)),
            Expr::Bit(n, i) => {
                let s = self.sig(n);
                assert!((*i as usize) < self.widths[s], "module {}: {n}[{i}] out of range", self.module.name);
                CExpr::Bit(s, *i as usize)
            }
            Expr::Slice(n, hi, lo) => {
                let s = self.sig(n);
                assert!(hi >= lo && (*hi as usize) < self.widths[s], "module {}: {n}[{hi}:{lo}] out of range", self.module.name);
                CExpr::Slice(s, *hi as usize, *lo as usize)
            }
            Expr::Index(n, idx) => CExpr::Index(self.sig(n), Box::new(self.expr(idx))),
            Expr::Const(v) => CExpr::Const(Bits::from(v)),
            Expr::Dec(w, v) => {
                assert!(*w >= 64 || *v < 1u64 << w, "{w}'d{v} does not fit");
                CExpr::Const(Bits::from_u64(*v, *w as usize))
            }
            Expr::Un(op, a) => CExpr::Un(*op, Box::new(self.expr(a))),
            Expr::Bin(op, a, b) => CExpr::Bin(*op, Box::new(self.expr(a)), Box::new(self.expr(b))),
            Expr::Ternary(c, a, b) => CExpr::Ternary(Box::new(self.expr(c)), Box::new(self.expr(a)), Box::new(self.expr(b))),
            Expr::Concat(parts) => CExpr::Concat(parts.iter().map(|p| self.expr(p)).collect()),
            Expr::Repeat(n, a) => CExpr::Repeat(*n as usize, Box::new(self.expr(a))),
            Expr::Call(name, _) => panic!("module {}: function call `{name}` is not supported by the evaluator", self.module.name),
            Expr::XorAll(terms) => CExpr::XorAll(terms.iter().map(|t| self.expr(t)).collect()),
            Expr::Parity { of, mask, invert } => CExpr::Parity(Box::new(self.expr(of)), Bits::from(mask), *invert),
        }
    }

    fn target(&self, e: &Expr) -> Target {
        match e {
            Expr::Ident(n) => {
                let sig = self.sig(n);
                Target { sig, lo: 0, len: self.widths[sig] }
            }
            Expr::Bit(n, i) => Target { sig: self.sig(n), lo: *i as usize, len: 1 },
            Expr::Slice(n, hi, lo) => Target { sig: self.sig(n), lo: *lo as usize, len: (hi - lo + 1) as usize },
            other => panic!("module {}: unsupported assignment target {}", self.module.name, other.render()),
        }
    }

    fn stmts(&self, stmts: &[Stmt]) -> Vec<CStmt> {
        stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Assign(l, r) => Some(CStmt::Assign(self.target(l), self.expr(r))),
                Stmt::If(c, a, b) => Some(CStmt::If(self.expr(c), self.stmts(a), self.stmts(b))),
                Stmt::Case(sel, arms, default) => Some(CStmt::Case(
                    self.expr(sel),
                    arms.iter().map(|(labels, body)| (labels.iter().map(|l| self.expr(l)).collect(), self.stmts(body))).collect(),
                    self.stmts(default),
                )),
                Stmt::Comment(_) => None,
            })
            .collect()
    }
}

fn reads(e: &CExpr, out: &mut Vec<usize>) {
    match e {
        CExpr::Sig(s) | CExpr::Bit(s, _) | CExpr::Slice(s, _, _) => out.push(*s),
        CExpr::Index(s, i) => {
            out.push(*s);
            reads(i, out);
        }
        CExpr::Const(_) => {}
        CExpr::Un(_, a) | CExpr::Repeat(_, a) | CExpr::Parity(a, _, _) => reads(a, out),
        CExpr::Bin(_, a, b) => {
            reads(a, out);
            reads(b, out);
        }
        CExpr::Ternary(c, a, b) => {
            reads(c, out);
            reads(a, out);
            reads(b, out);
        }
        CExpr::Concat(parts) | CExpr::XorAll(parts) => parts.iter().for_each(|p| reads(p, out)),
    }
}

impl Sim {
    /// Compiles a module. Panics on unsupported items, undeclared names and combinational loops.
    pub fn new(module: &Module) -> Sim {
        let mut c = Compiler { module, names: HashMap::new(), widths: Vec::new(), values: Vec::new() };
        for p in &module.ports {
            c.declare(&p.name, p.width);
        }
        let mut assigns = Vec::new();
        let mut ffs = Vec::new();
        for item in &module.items {
            match item {
                Item::Comment(_) | Item::Pragma(_) | Item::Blank | Item::Formal(_) => {}
                Item::Wire { name, width, .. } | Item::Reg { name, width, .. } | Item::SyncReg { name, width, .. } | Item::KeptWire { name, width } => c.declare(name, *width),
                Item::Localparam { name, value, .. } => {
                    let v = eval(&c.expr(value), &c.values, &c.widths);
                    c.declare(name, v.width() as u32);
                    let s = c.sig(name);
                    c.values[s] = v;
                }
                Item::Assign(l, r) => assigns.push((c.target(l), c.expr(r))),
                Item::AlwaysFf { reset, body } => ffs.push(FfBlock { reset: reset.as_ref().map(|r| c.stmts(r)), body: c.stmts(body) }),
                Item::Memory { name, .. } | Item::LutMemory { name, .. } | Item::UncheckedMemory { name, .. } => panic!("module {}: memory `{name}` is not supported by the evaluator", module.name),
                Item::AlwaysFfOn { domain, .. } => panic!("module {}: the evaluator has one clock, not `{}`", module.name, domain.clock),
                Item::AlwaysComb(_) => panic!("module {}: always @* is not supported by the evaluator", module.name),
                Item::Instance { name, .. } => panic!("module {}: instance `{name}` is not supported by the evaluator", module.name),
                Item::Function { name, .. } => panic!("module {}: function `{name}` is not supported by the evaluator", module.name),
            }
        }
        let comb = order(&assigns, c.widths.len()).unwrap_or_else(|sig| {
            let name = c.names.iter().find(|(_, &i)| i == sig).map(|(n, _)| n.clone()).unwrap_or_default();
            panic!("module {}: combinational loop through `{name}`", module.name)
        });
        let reset = module.reset.and_then(|style| {
            let port = style.port();
            c.names.get(port).map(|&i| (i, style == ResetStyle::AsyncLow))
        });
        let mut sim = Sim { names: c.names, widths: c.widths, values: c.values, comb: comb.into_iter().map(|i| assigns[i].clone()).collect(), ffs, reset };
        sim.settle();
        sim
    }

    fn index(&self, name: &str) -> usize {
        *self.names.get(name).unwrap_or_else(|| panic!("no signal `{name}`"))
    }

    /// Width of a signal.
    pub fn width(&self, name: &str) -> usize {
        self.widths[self.index(name)]
    }

    /// Drives an input (or forces any signal); the value is resized to the signal's width.
    /// Call [`Sim::settle`] (or [`Sim::clock`]) before reading outputs.
    pub fn set(&mut self, name: &str, value: &Bits) {
        let i = self.index(name);
        self.values[i] = value.resize(self.widths[i]);
    }

    pub fn set_u64(&mut self, name: &str, value: u64) {
        let w = self.width(name);
        self.set(name, &Bits::from_u64(value, w));
    }

    pub fn get(&self, name: &str) -> &Bits {
        &self.values[self.index(name)]
    }

    pub fn get_u64(&self, name: &str) -> u64 {
        self.get(name).low_u64()
    }

    pub fn has(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// Re-evaluates every continuous assignment.
    pub fn settle(&mut self) {
        for (t, e) in &self.comb {
            let v = eval(e, &self.values, &self.widths);
            write_target(&mut self.values, t, &v);
        }
    }

    /// One rising clock edge (after settling the inputs), then settles again.
    pub fn clock(&mut self) {
        self.settle();
        let in_reset = self.reset.is_some_and(|(sig, low)| self.values[sig].get(0) != low);
        let mut next = self.values.clone();
        for ff in &self.ffs {
            let stmts = match (&ff.reset, in_reset) {
                (Some(r), true) => r,
                _ => &ff.body,
            };
            exec(stmts, &self.values, &self.widths, &mut next);
        }
        self.values = next;
        self.settle();
    }

    /// Evaluates a combinational module on `inputs` and returns the named outputs.
    pub fn eval_comb(&mut self, inputs: &[(&str, &Bits)], outputs: &[&str]) -> Vec<Bits> {
        for (n, v) in inputs {
            self.set(n, v);
        }
        self.settle();
        outputs.iter().map(|o| self.get(o).clone()).collect()
    }
}

/// Topological order of the assignments over whole signals; `Err(signal)` on a loop.
fn order(assigns: &[(Target, CExpr)], signals: usize) -> Result<Vec<usize>, usize> {
    let mut drivers: Vec<Vec<usize>> = vec![Vec::new(); signals];
    for (i, (t, _)) in assigns.iter().enumerate() {
        drivers[t.sig].push(i);
    }
    // Dependencies of each assignment: the assignments driving the signals it reads.
    let mut pending = vec![0usize; assigns.len()];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); assigns.len()];
    for (i, (_, e)) in assigns.iter().enumerate() {
        let mut r = Vec::new();
        reads(e, &mut r);
        r.sort_unstable();
        r.dedup();
        for s in r {
            for &d in &drivers[s] {
                users[d].push(i);
                pending[i] += 1;
            }
        }
    }
    let mut ready: Vec<usize> = (0..assigns.len()).filter(|&i| pending[i] == 0).collect();
    ready.reverse();
    let mut out = Vec::with_capacity(assigns.len());
    while let Some(i) = ready.pop() {
        out.push(i);
        for &u in &users[i] {
            pending[u] -= 1;
            if pending[u] == 0 {
                ready.push(u);
            }
        }
    }
    match (0..assigns.len()).find(|&i| pending[i] > 0) {
        Some(i) => Err(assigns[i].0.sig),
        None => Ok(out),
    }
}

fn write_target(values: &mut [Bits], t: &Target, v: &Bits) {
    let v = v.resize(t.len);
    if t.lo == 0 && t.len == values[t.sig].width() {
        values[t.sig] = v;
    } else {
        values[t.sig].set_slice(t.lo, &v);
    }
}

fn exec(stmts: &[CStmt], old: &[Bits], widths: &[usize], next: &mut [Bits]) {
    for s in stmts {
        match s {
            CStmt::Assign(t, e) => write_target(next, t, &eval(e, old, widths)),
            CStmt::If(c, a, b) => {
                if !eval(c, old, widths).is_zero() {
                    exec(a, old, widths, next);
                } else {
                    exec(b, old, widths, next);
                }
            }
            CStmt::Case(sel, arms, default) => {
                let v = eval(sel, old, widths);
                let arm = arms.iter().find(|(labels, _)| {
                    labels.iter().any(|l| {
                        let w = v.width().max(width(l, widths));
                        eval(l, old, widths).resize(w) == v.resize(w)
                    })
                });
                exec(arm.map_or(default.as_slice(), |(_, body)| body.as_slice()), old, widths, next);
            }
        }
    }
}

/// Self-determined width of an expression.
fn width(e: &CExpr, widths: &[usize]) -> usize {
    match e {
        CExpr::Sig(s) => widths[*s],
        CExpr::Bit(..) | CExpr::Index(..) | CExpr::Parity(..) => 1,
        CExpr::Slice(_, hi, lo) => hi - lo + 1,
        CExpr::Const(b) => b.width(),
        CExpr::Un(op, a) => match op {
            UnOp::Not => width(a, widths),
            _ => 1,
        },
        CExpr::Bin(op, a, b) => match op {
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::LogicAnd | BinOp::LogicOr => 1,
            _ => width(a, widths).max(width(b, widths)),
        },
        CExpr::Ternary(_, a, b) => width(a, widths).max(width(b, widths)),
        CExpr::Concat(parts) => parts.iter().map(|p| width(p, widths)).sum(),
        CExpr::XorAll(parts) => parts.iter().map(|p| width(p, widths)).max().unwrap_or(1),
        CExpr::Repeat(n, a) => n * width(a, widths),
    }
}

fn eval(e: &CExpr, v: &[Bits], widths: &[usize]) -> Bits {
    match e {
        CExpr::Sig(s) => v[*s].clone(),
        CExpr::Bit(s, i) => Bits::bool(v[*s].get(*i)),
        CExpr::Slice(s, hi, lo) => v[*s].slice(*lo, hi - lo + 1),
        CExpr::Index(s, i) => {
            let idx = eval(i, v, widths);
            let k = if idx.words().iter().skip(1).any(|&w| w != 0) { usize::MAX } else { idx.low_u64() as usize };
            Bits::bool(k < v[*s].width() && v[*s].get(k))
        }
        CExpr::Const(b) => b.clone(),
        CExpr::Un(op, a) => {
            let x = eval(a, v, widths);
            match op {
                UnOp::Not => x.invert(),
                UnOp::LogicNot | UnOp::RedNor => Bits::bool(x.is_zero()),
                UnOp::RedAnd => Bits::bool(x.invert().is_zero()),
                UnOp::RedOr => Bits::bool(!x.is_zero()),
                UnOp::RedXor => Bits::bool(x.parity()),
                UnOp::RedXnor => Bits::bool(!x.parity()),
            }
        }
        CExpr::Bin(op, a, b) => {
            let (x, y) = (eval(a, v, widths), eval(b, v, widths));
            match op {
                BinOp::And => x.zip(&y, |p, q| p & q),
                BinOp::Or => x.zip(&y, |p, q| p | q),
                BinOp::Xor => x.zip(&y, |p, q| p ^ q),
                BinOp::Eq => Bits::bool(x.resize(x.width().max(y.width())) == y.resize(x.width().max(y.width()))),
                BinOp::Ne => Bits::bool(x.resize(x.width().max(y.width())) != y.resize(x.width().max(y.width()))),
                BinOp::Lt => Bits::bool(x.less_than(&y)),
                BinOp::Le => Bits::bool(!y.less_than(&x)),
                BinOp::Gt => Bits::bool(y.less_than(&x)),
                BinOp::Ge => Bits::bool(!x.less_than(&y)),
                BinOp::Add => x.add(&y, false),
                BinOp::Sub => x.add(&y, true),
                BinOp::LogicAnd => Bits::bool(!x.is_zero() && !y.is_zero()),
                BinOp::LogicOr => Bits::bool(!x.is_zero() || !y.is_zero()),
                BinOp::Mod => x.modulo(&y),
            }
        }
        CExpr::Ternary(c, a, b) => {
            let w = width(a, widths).max(width(b, widths));
            if eval(c, v, widths).is_zero() {
                eval(b, v, widths).resize(w)
            } else {
                eval(a, v, widths).resize(w)
            }
        }
        CExpr::Concat(parts) => Bits::cat(&parts.iter().map(|p| eval(p, v, widths)).collect::<Vec<_>>()),
        CExpr::XorAll(parts) => parts.iter().map(|p| eval(p, v, widths)).reduce(|a, b| a.zip(&b, |p, q| p ^ q)).unwrap_or_else(|| Bits::zeros(1)),
        CExpr::Repeat(n, a) => {
            let x = eval(a, v, widths);
            Bits::cat(&vec![x; *n])
        }
        CExpr::Parity(of, mask, invert) => {
            let parity = match of.as_ref() {
                // The common case without a temporary: a masked parity of a named vector.
                CExpr::Sig(s) => v[*s].words().iter().zip(mask.words()).fold(0, |acc, (a, m)| acc ^ (a & m).count_ones()) & 1 == 1,
                other => eval(other, v, widths).zip(mask, |a, m| a & m).parity(),
            };
            Bits::bool(parity != *invert)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::verilog::Port;
    use crate::math::gf2::BitVec;

    fn module(ports: Vec<Port>, items: Vec<Item>, reset: Option<ResetStyle>) -> Module {
        Module { name: "m".into(), ports, items, reset }
    }

    #[test]
    fn width_rules_on_bits() {
        let x = Bits::from_u64(3, 4);
        let y = Bits::from_u64(5, 4);
        assert_eq!(x.add(&y, true).low_u64(), 14); // 3 - 5 mod 16
        assert_eq!(x.add(&y, false).low_u64(), 8);
        assert!(x.less_than(&y) && !y.less_than(&x));
        let wide = Bits::from_u64(u64::MAX, 128);
        assert_eq!(wide.add(&Bits::from_u64(1, 128), false).slice(64, 64).low_u64(), 1);
        assert_eq!(Bits::from_u64(0x1F, 5).resize(3).low_u64(), 7);
        assert_eq!(Bits::from_u64(5, 3).invert().low_u64(), 2);
        assert_eq!(Bits::cat(&[Bits::from_u64(1, 1), Bits::from_u64(2, 3)]).low_u64(), 0b1010);
    }

    #[test]
    fn combinational_assigns_run_in_dependency_order() {
        // Declared and assigned out of order: y depends on t, which is assigned later.
        let m = module(
            vec![Port::input("a", 8, ""), Port::input("b", 8, ""), Port::output("y", 9, "")],
            vec![
                Item::wire("t", 8, ""),
                Item::assign(Expr::id("y"), Expr::Concat(vec![Expr::parity(Expr::id("t"), BitVec::from_u128(8, 0x0F), true), Expr::id("t")])),
                Item::assign(Expr::slice("t", 3, 0), Expr::slice("a", 3, 0)),
                Item::assign(Expr::slice("t", 7, 4), Expr::xor(Expr::slice("a", 7, 4), Expr::slice("b", 3, 0))),
            ],
            None,
        );
        let mut sim = Sim::new(&m);
        let out = sim.eval_comb(&[("a", &Bits::from_u64(0x37, 8)), ("b", &Bits::from_u64(0x05, 8))], &["y"]);
        // t = {3^5, 7} = 0x67; parity of 0x7 is 1, inverted 0.
        assert_eq!(out[0].low_u64(), 0x067);
        sim.set_u64("a", 0x36);
        sim.settle();
        assert_eq!(sim.get_u64("y"), 0x166);
    }

    #[test]
    fn registers_are_non_blocking_and_reset() {
        let mut items = vec![Item::reg("q1", 4, ""), Item::reg("q2", 4, "")];
        items.push(Item::AlwaysFf {
            reset: Some(vec![Stmt::set(Expr::id("q1"), Expr::dec(4, 0)), Stmt::set(Expr::id("q2"), Expr::dec(4, 0))]),
            body: vec![
                Stmt::set(Expr::id("q1"), Expr::id("d")),
                Stmt::set(Expr::id("q2"), Expr::id("q1")),
                Stmt::when(Expr::eq(Expr::id("d"), Expr::dec(4, 9)), vec![Stmt::set(Expr::bit("q2", 3), Expr::one())]),
            ],
        });
        items.push(Item::assign(Expr::id("y"), Expr::id("q2")));
        let m = module(
            vec![Port::input("clk", 1, ""), Port::input("rst_n", 1, ""), Port::input("d", 4, ""), Port::output("y", 4, "")],
            items,
            Some(ResetStyle::AsyncLow),
        );
        let mut sim = Sim::new(&m);
        sim.set_u64("rst_n", 0);
        sim.clock();
        sim.set_u64("rst_n", 1);
        sim.set_u64("d", 5);
        sim.clock();
        assert_eq!(sim.get_u64("y"), 0);
        sim.set_u64("d", 9);
        sim.clock();
        // q2 took q1 = 5 (the old value), and bit 3 was then set.
        assert_eq!(sim.get_u64("y"), 0xD);
        sim.clock();
        assert_eq!(sim.get_u64("y"), 0x9 | 0x8);
        sim.set_u64("rst_n", 0);
        sim.clock();
        assert_eq!(sim.get_u64("y"), 0);
    }

    #[test]
    #[should_panic(expected = "combinational loop")]
    fn loops_are_refused() {
        let m = module(
            vec![Port::output("y", 2, "")],
            vec![Item::assign(Expr::bit("y", 0), Expr::bit("y", 1)), Item::assign(Expr::bit("y", 1), Expr::one())],
            None,
        );
        Sim::new(&m);
    }

    #[test]
    fn ternary_repeat_reductions_and_compares() {
        let m = module(
            vec![Port::input("s", 1, ""), Port::input("a", 3, ""), Port::output("y", 8, "")],
            vec![Item::assign(
                Expr::id("y"),
                Expr::Concat(vec![
                    Expr::mux(Expr::id("s"), Expr::Repeat(2, Box::new(Expr::id("a"))), Expr::konst(6, 0x2A)),
                    Expr::bin(BinOp::Lt, Expr::id("a"), Expr::dec(3, 4)),
                    Expr::red(UnOp::RedAnd, Expr::XorAll(vec![Expr::id("a"), Expr::bit("a", 0), Expr::dec(3, 6)])),
                ]),
            )],
            None,
        );
        let mut sim = Sim::new(&m);
        let y = |sim: &mut Sim, s, a| sim.eval_comb(&[("s", &Bits::from_u64(s, 1)), ("a", &Bits::from_u64(a, 3))], &["y"])[0].low_u64();
        assert_eq!(y(&mut sim, 1, 7), 0b1111_1100);
        assert_eq!(y(&mut sim, 0, 3), 0b1010_1010);
    }
}
