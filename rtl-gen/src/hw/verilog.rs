//! Verilog-2005 as a typed tree. Blocks build modules from these nodes and the printer alone
//! decides the text, so every emitted file has the same layout, reset style and constant format.

use crate::info::ResetStyle;
use crate::math::gf2::BitVec;
use std::fmt::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    Input,
    Output,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub width: u32,
    /// One line for the port list comment and the docs table.
    pub doc: String,
}

impl Port {
    pub fn input(name: &str, width: u32, doc: &str) -> Self {
        Port { name: name.into(), dir: Dir::Input, width, doc: doc.into() }
    }
    pub fn output(name: &str, width: u32, doc: &str) -> Self {
        Port { name: name.into(), dir: Dir::Output, width, doc: doc.into() }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Add,
    Sub,
    Lt,
    Le,
    Gt,
    Ge,
    LogicAnd,
    LogicOr,
    /// `a % b`: only the formal references use it (a residue written as the model states it,
    /// next to the generator's own reduction network).
    Mod,
}

impl BinOp {
    fn token(self) -> &'static str {
        match self {
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::LogicAnd => "&&",
            BinOp::LogicOr => "||",
            BinOp::Mod => "%",
        }
    }

    /// Operators whose left-nested chains print without inner parentheses: `a & b & c` for
    /// `(a & b) & c` (Verilog parses a chain left to right, so the text means the same tree).
    fn associative(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Add | BinOp::LogicAnd | BinOp::LogicOr)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Not,
    LogicNot,
    RedAnd,
    RedOr,
    RedXor,
    RedXnor,
    RedNor,
}

impl UnOp {
    fn token(self) -> &'static str {
        match self {
            UnOp::Not => "~",
            UnOp::LogicNot => "!",
            UnOp::RedAnd => "&",
            UnOp::RedOr => "|",
            UnOp::RedXor => "^",
            UnOp::RedXnor => "~^",
            UnOp::RedNor => "~|",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Ident(String),
    /// `name[i]`
    Bit(String, u32),
    /// `name[hi:lo]`
    Slice(String, u32, u32),
    /// `name[idx]` with a computed index (memory read, variable bit select).
    Index(String, Box<Expr>),
    /// A sized hexadecimal constant.
    Const(BitVec),
    /// An unsized decimal for loop bounds and small compares, printed as `W'dN`.
    Dec(u32, u64),
    Un(UnOp, Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Concat(Vec<Expr>),
    Repeat(u32, Box<Expr>),
    /// `name(args…)`: a call of a function the module declares with [`Item::Function`].
    Call(String, Vec<Expr>),
    /// `a ^ b ^ …` over a short list (a 6-input LUT's worth): the node of explicit XOR trees.
    XorAll(Vec<Expr>),
    /// The parity of the bits of `of` selected by `mask`, inverted when `invert`:
    /// `^(of & W'hMASK)` or `~^(of & W'hMASK)`. The form every XOR network is emitted in: it
    /// elaborates in linear time in every tool, unlike long `a ^ b ^ …` chains.
    Parity { of: Box<Expr>, mask: BitVec, invert: bool },
}

impl Expr {
    pub fn id(name: &str) -> Expr {
        Expr::Ident(name.into())
    }
    pub fn bit(name: &str, i: u32) -> Expr {
        Expr::Bit(name.into(), i)
    }
    pub fn slice(name: &str, hi: u32, lo: u32) -> Expr {
        Expr::Slice(name.into(), hi, lo)
    }
    pub fn konst(width: u32, value: u128) -> Expr {
        Expr::Const(BitVec::from_u128(width as usize, value))
    }
    pub fn dec(width: u32, value: u64) -> Expr {
        Expr::Dec(width, value)
    }
    pub fn one() -> Expr {
        Expr::Dec(1, 1)
    }
    pub fn zero() -> Expr {
        Expr::Dec(1, 0)
    }
    #[allow(clippy::should_implement_trait)] // a builder name like `lnot`, not an operator overload
    pub fn not(self) -> Expr {
        Expr::Un(UnOp::Not, Box::new(self))
    }
    pub fn lnot(self) -> Expr {
        Expr::Un(UnOp::LogicNot, Box::new(self))
    }
    pub fn red(op: UnOp, e: Expr) -> Expr {
        Expr::Un(op, Box::new(e))
    }
    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }
    pub fn and(a: Expr, b: Expr) -> Expr {
        Self::bin(BinOp::And, a, b)
    }
    pub fn or(a: Expr, b: Expr) -> Expr {
        Self::bin(BinOp::Or, a, b)
    }
    pub fn xor(a: Expr, b: Expr) -> Expr {
        Self::bin(BinOp::Xor, a, b)
    }
    pub fn eq(a: Expr, b: Expr) -> Expr {
        Self::bin(BinOp::Eq, a, b)
    }
    pub fn mux(sel: Expr, a: Expr, b: Expr) -> Expr {
        Expr::Ternary(Box::new(sel), Box::new(a), Box::new(b))
    }
    pub fn parity(of: Expr, mask: BitVec, invert: bool) -> Expr {
        Expr::Parity { of: Box::new(of), mask, invert }
    }

    fn is_atom(&self) -> bool {
        matches!(
            self,
            Expr::Ident(_) | Expr::Bit(..) | Expr::Slice(..) | Expr::Index(..) | Expr::Const(_) | Expr::Dec(..) | Expr::Concat(_) | Expr::Repeat(..) | Expr::Call(..)
        )
    }

    fn write(&self, out: &mut String) {
        match self {
            Expr::Ident(n) => out.push_str(n),
            Expr::Bit(n, i) => {
                let _ = write!(out, "{n}[{i}]");
            }
            Expr::Slice(n, hi, lo) => {
                let _ = write!(out, "{n}[{hi}:{lo}]");
            }
            Expr::Index(n, idx) => {
                let _ = write!(out, "{n}[");
                idx.write(out);
                out.push(']');
            }
            Expr::Const(v) => {
                let _ = write!(out, "{}'h{}", v.len(), v.to_hex());
            }
            Expr::Dec(w, v) => {
                let _ = write!(out, "{w}'d{v}");
            }
            Expr::Un(op, e) => {
                out.push_str(op.token());
                e.write_operand(out);
            }
            Expr::Bin(op, ..) => {
                for (i, t) in self.chain().iter().enumerate() {
                    if i > 0 {
                        let _ = write!(out, " {} ", op.token());
                    }
                    t.write_operand(out);
                }
            }
            Expr::Ternary(c, a, b) => {
                c.write_operand(out);
                out.push_str(" ? ");
                a.write_operand(out);
                out.push_str(" : ");
                b.write_operand(out);
            }
            Expr::Concat(parts) => {
                out.push('{');
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    p.write(out);
                }
                out.push('}');
            }
            Expr::Repeat(n, e) => {
                let _ = write!(out, "{{{n}{{");
                e.write(out);
                out.push_str("}}");
            }
            Expr::Call(name, args) => {
                let _ = write!(out, "{name}(");
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    a.write(out);
                }
                out.push(')');
            }
            Expr::XorAll(terms) => {
                for (i, t) in terms.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" ^ ");
                    }
                    t.write_operand(out);
                }
            }
            Expr::Parity { of, mask, invert } => {
                out.push_str(if *invert { "~^(" } else { "^(" });
                of.write_operand(out);
                let _ = write!(out, " & {}'h{})", mask.len(), mask.to_hex());
            }
        }
    }

    /// Operands of operators are parenthesised unless atomic: no reader has to remember
    /// Verilog's precedence table.
    fn write_operand(&self, out: &mut String) {
        if self.is_atom() || matches!(self, Expr::Parity { .. }) {
            self.write(out);
        } else {
            out.push('(');
            self.write(out);
            out.push(')');
        }
    }

    pub fn render(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    /// The operands of a binary operator, a left-nested chain of one associative operator
    /// flattened: `(a & b) & c` gives `[a, b, c]`.
    fn chain(&self) -> Vec<&Expr> {
        match self {
            Expr::Bin(op, a, b) => {
                let mut terms = match a.as_ref() {
                    Expr::Bin(inner, ..) if inner == op && op.associative() => a.chain(),
                    _ => vec![a.as_ref()],
                };
                terms.push(b);
                terms
            }
            other => vec![other],
        }
    }

    /// Writes the expression starting at column `col`; an expression that would run past
    /// [`WRAP`] breaks across lines indented from column `ind`: concatenations pack their
    /// parts into lines, operator chains put one operand per line, a ternary puts `?` and `:`
    /// on lines of their own. Masked parities are never broken (their mask is one constant).
    fn layout(&self, col: usize, ind: usize, out: &mut String) {
        let flat = self.render();
        if col + flat.len() <= WRAP {
            out.push_str(&flat);
            return;
        }
        let next = ind + 4;
        match self {
            Expr::Concat(parts) if parts.len() > 1 => {
                out.push_str("{\n");
                let mut line = 0usize; // length of the current packed line, 0 when empty
                for (i, p) in parts.iter().enumerate() {
                    let text = p.render();
                    let last = i + 1 == parts.len();
                    let sep = if last { "" } else { "," };
                    if next + text.len() + 1 > WRAP {
                        // Too long for any line: on lines of its own.
                        if line > 0 {
                            out.push('\n');
                        }
                        pad(out, next);
                        p.layout(next, next, out);
                        out.push_str(sep);
                        out.push('\n');
                        line = 0;
                        continue;
                    }
                    if line > 0 && next + line + 1 + text.len() + 1 > WRAP {
                        out.push('\n');
                        line = 0;
                    }
                    if line == 0 {
                        pad(out, next);
                    } else {
                        out.push(' ');
                        line += 1;
                    }
                    out.push_str(&text);
                    out.push_str(sep);
                    line += text.len() + sep.len();
                }
                if line > 0 {
                    out.push('\n');
                }
                pad(out, ind);
                out.push('}');
            }
            Expr::Bin(op, ..) => {
                for (i, t) in self.chain().iter().enumerate() {
                    if i == 0 {
                        t.layout_operand(col, ind, out);
                    } else {
                        out.push('\n');
                        pad(out, next);
                        out.push_str(op.token());
                        out.push(' ');
                        t.layout_operand(next + op.token().len() + 1, next, out);
                    }
                }
            }
            Expr::XorAll(terms) => {
                for (i, t) in terms.iter().enumerate() {
                    if i == 0 {
                        t.layout_operand(col, ind, out);
                    } else {
                        out.push('\n');
                        pad(out, next);
                        out.push_str("^ ");
                        t.layout_operand(next + 2, next, out);
                    }
                }
            }
            Expr::Ternary(c, a, b) => {
                c.layout_operand(col, ind, out);
                out.push('\n');
                pad(out, next);
                out.push_str("? ");
                a.layout_operand(next + 2, next, out);
                out.push('\n');
                pad(out, next);
                out.push_str(": ");
                b.layout_operand(next + 2, next, out);
            }
            Expr::Un(op, e) => {
                out.push_str(op.token());
                e.layout_operand(col + op.token().len(), ind, out);
            }
            Expr::Repeat(n, e) => {
                let head = format!("{{{n}{{");
                out.push_str(&head);
                e.layout(col + head.len(), ind, out);
                out.push_str("}}");
            }
            _ => out.push_str(&flat),
        }
    }

    fn layout_operand(&self, col: usize, ind: usize, out: &mut String) {
        if self.is_atom() || matches!(self, Expr::Parity { .. }) {
            self.layout(col, ind, out);
        } else {
            out.push('(');
            self.layout(col + 1, ind, out);
            out.push(')');
        }
    }

    /// The expression as it appears at column `col` of a statement indented `ind`.
    pub fn render_at(&self, col: usize, ind: usize) -> String {
        let mut s = String::new();
        self.layout(col, ind, &mut s);
        s
    }
}

/// Expressions that would make a line longer than this break across lines (masked parities,
/// whose masks are single constants, excepted).
pub const WRAP: usize = 150;

fn pad(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

/// A statement inside an `always` block. In clocked blocks assignments are non-blocking, in
/// combinational ones blocking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    Assign(Expr, Expr),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    Case(Expr, Vec<(Vec<Expr>, Vec<Stmt>)>, Vec<Stmt>),
    Comment(String),
}

impl Stmt {
    pub fn set(lhs: Expr, rhs: Expr) -> Stmt {
        Stmt::Assign(lhs, rhs)
    }
    pub fn when(cond: Expr, then: Vec<Stmt>) -> Stmt {
        Stmt::If(cond, then, vec![])
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A comment paragraph, printed after a blank line.
    Comment(String),
    /// A one-line tool directive comment (`// verilator lint_off UNUSED`), printed tight
    /// against the declarations it brackets.
    Pragma(String),
    Blank,
    Wire { name: String, width: u32, doc: String },
    /// A wire synthesis must keep (`(* keep *)`): pins a LUT boundary in explicit XOR trees.
    KeptWire { name: String, width: u32 },
    Reg { name: String, width: u32, doc: String },
    /// A synchronizer flop of the CDC kit ([`super::cdc`]): `(* ASYNC_REG = "TRUE" *)` places the
    /// stages of one chain in one slice and keeps them out of shift-register LUTs in Vivado;
    /// `keep` stops Yosys (and so nextpnr) from merging or retiming them away.
    SyncReg { name: String, width: u32, doc: String },
    /// `reg [width-1:0] name [0:depth-1];` in the inference pattern for block RAM.
    Memory { name: String, width: u32, depth: u32, doc: String },
    /// The same memory marked `(* ram_style = "distributed" *)`: LUT RAM, for a buffer whose
    /// block RAM would be bandwidth-bound and half empty (a 256-deep one uses half a RAMB18).
    LutMemory { name: String, width: u32, depth: u32, doc: String },
    /// A RAM wrapper's array marked `(* no_rw_check *)` (with `ram_style = "distributed"` when
    /// `distributed`): its module never uses a word read at the edge that writes that address,
    /// so synthesis maps it to the RAM's ports without the bypass logic that would make such a
    /// read return the old word (logic between the RAM's output and the first register).
    UncheckedMemory { name: String, width: u32, depth: u32, distributed: bool, doc: String },
    /// `localparam [W-1:0] NAME = value;`: the range is the width of a sized constant `value`
    /// (none for 1 bit), so comparisons against the name stay width-matched.
    Localparam { name: String, value: Expr, doc: String },
    Assign(Expr, Expr),
    /// `always @(posedge clk)`; with `reset` the design's reset style wraps `reset_body`.
    AlwaysFf { reset: Option<Vec<Stmt>>, body: Vec<Stmt> },
    /// A register group of a module with several clocks: `always @(posedge <clock>)` with the
    /// design's reset style on the domain's own reset port ([`ClockDomain`]).
    AlwaysFfOn { domain: ClockDomain, reset: Option<Vec<Stmt>>, body: Vec<Stmt> },
    AlwaysComb(Vec<Stmt>),
    Instance { module: String, name: String, conns: Vec<(String, Expr)> },
    /// `function [width-1:0] name; input [arg_width-1:0] arg; begin body end endfunction`: a
    /// combinational function (the body assigns `name` with `=`), for a table read by many
    /// lanes that would otherwise be printed once per lane.
    Function { name: String, width: u32, arg: String, arg_width: u32, doc: String, body: Vec<Stmt> },
    /// Formal properties inside `` `ifdef FORMAL ``, last in the module ([`super::props`]).
    Formal(super::props::Formal),
}

/// One clock domain of a module with several clocks: its clock port and its reset port (whose
/// polarity and synchronism follow the module's [`ResetStyle`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockDomain {
    pub clock: String,
    pub reset: String,
}

impl ClockDomain {
    /// The domain `<role>_clk` / `<role>_` + the design's reset port (`wr_clk`, `wr_rst_n`).
    pub fn named(role: &str, style: ResetStyle) -> ClockDomain {
        ClockDomain { clock: format!("{role}_clk"), reset: format!("{role}_{}", style.port()) }
    }
}

impl Item {
    pub fn wire(name: &str, width: u32, doc: &str) -> Item {
        Item::Wire { name: name.into(), width, doc: doc.into() }
    }
    pub fn reg(name: &str, width: u32, doc: &str) -> Item {
        Item::Reg { name: name.into(), width, doc: doc.into() }
    }
    pub fn assign(lhs: Expr, rhs: Expr) -> Item {
        Item::Assign(lhs, rhs)
    }
    pub fn comment(text: &str) -> Item {
        Item::Comment(text.into())
    }
    pub fn pragma(text: &str) -> Item {
        Item::Pragma(text.into())
    }
}

/// A whole module: the banner comes from the emitter, everything else from here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    pub name: String,
    pub ports: Vec<Port>,
    pub items: Vec<Item>,
    /// The reset style `AlwaysFf` items with a reset use; `None` for combinational modules.
    pub reset: Option<ResetStyle>,
}

fn range(width: u32) -> String {
    if width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("    ");
    }
}

fn write_stmts(out: &mut String, stmts: &[Stmt], level: usize, op: &str) {
    for s in stmts {
        write_stmt(out, s, level, op);
    }
}

fn write_stmt(out: &mut String, stmt: &Stmt, level: usize, op: &str) {
    match stmt {
        Stmt::Assign(l, r) => {
            indent(out, level);
            let lhs = l.render();
            let col = 4 * level + lhs.len() + op.len() + 2;
            let _ = writeln!(out, "{lhs} {op} {};", r.render_at(col, 4 * level));
        }
        Stmt::Comment(c) => {
            indent(out, level);
            let _ = writeln!(out, "// {c}");
        }
        Stmt::If(c, then, els) => {
            indent(out, level);
            let _ = writeln!(out, "if ({}) begin", c.render_at(4 * level + 4, 4 * level));
            write_stmts(out, then, level + 1, op);
            indent(out, level);
            if els.is_empty() {
                out.push_str("end\n");
            } else if els.len() == 1 && matches!(els[0], Stmt::If(..)) {
                // `else if` chains read as a priority list, which is what they are.
                out.push_str("end else ");
                let mut nested = String::new();
                write_stmt(&mut nested, &els[0], level, op);
                out.push_str(nested.trim_start());
            } else {
                out.push_str("end else begin\n");
                write_stmts(out, els, level + 1, op);
                indent(out, level);
                out.push_str("end\n");
            }
        }
        Stmt::Case(sel, arms, default) => {
            indent(out, level);
            let _ = writeln!(out, "case ({})", sel.render());
            for (labels, body) in arms {
                indent(out, level + 1);
                let l: Vec<String> = labels.iter().map(Expr::render).collect();
                if let [Stmt::Assign(lhs, rhs)] = body.as_slice() {
                    // A one-assignment arm (a table row) stays on one line.
                    let _ = writeln!(out, "{}: {} {op} {};", l.join(", "), lhs.render(), rhs.render());
                    continue;
                }
                let _ = writeln!(out, "{}: begin", l.join(", "));
                write_stmts(out, body, level + 2, op);
                indent(out, level + 1);
                out.push_str("end\n");
            }
            indent(out, level + 1);
            out.push_str("default: begin\n");
            write_stmts(out, default, level + 2, op);
            indent(out, level + 1);
            out.push_str("end\n");
            indent(out, level);
            out.push_str("endcase\n");
        }
    }
}

impl Module {
    /// The module text after the banner.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "module {} (", self.name);
        // Columns: direction, range, name (with its comma), comment.
        let range_w = self.ports.iter().map(|p| range(p.width).len()).max().unwrap_or(0);
        let name_w = self.ports.iter().map(|p| p.name.len() + 1).max().unwrap_or(0);
        for (i, p) in self.ports.iter().enumerate() {
            let dir = match p.dir {
                Dir::Input => "input ",
                Dir::Output => "output",
            };
            let comma = if i + 1 < self.ports.len() { "," } else { "" };
            let name = format!("{}{comma}", p.name);
            let decl = format!("{dir} wire {:<range_w$}{name:<name_w$}", range(p.width));
            if p.doc.is_empty() {
                let _ = writeln!(out, "    {}", decl.trim_end());
            } else {
                let _ = writeln!(out, "    {decl} // {}", p.doc);
            }
        }
        out.push_str(");\n");
        let localparam = |name: &str, value: &Expr| format!("{} = {};", localparam_decl(name, value), value.render());
        let lp_w = self.items.iter().filter_map(|i| if let Item::Localparam { name, value, .. } = i { Some(localparam(name, value).len()) } else { None }).max().unwrap_or(0);
        for (i, item) in self.items.iter().enumerate() {
            let after_localparams = i > 0 && matches!(self.items[i - 1], Item::Localparam { .. });
            if after_localparams && !matches!(item, Item::Localparam { .. } | Item::Comment(_) | Item::Blank) {
                out.push('\n');
            }
            if let Item::Localparam { name, value, doc } = item {
                // The comments of all localparams in one column.
                let head = localparam(name, value);
                if doc.is_empty() {
                    let _ = writeln!(out, "    {head}");
                } else {
                    let _ = writeln!(out, "    {head:<lp_w$} // {doc}");
                }
                continue;
            }
            self.write_item(&mut out, item);
        }
        out.push_str("\nendmodule\n");
        out
    }

    fn write_item(&self, out: &mut String, item: &Item) {
        match item {
            Item::Blank => out.push('\n'),
            Item::Comment(c) => {
                if !out.ends_with("\n\n") {
                    out.push('\n');
                }
                for line in c.lines() {
                    let _ = writeln!(out, "    // {line}");
                }
            }
            Item::Pragma(p) => {
                let _ = writeln!(out, "    // {p}");
            }
            Item::Wire { name, width, doc } => decl(out, "wire", name, *width, doc),
            Item::KeptWire { name, width } => decl(out, "(* keep *) wire", name, *width, ""),
            Item::Reg { name, width, doc } => decl(out, "reg", name, *width, doc),
            Item::SyncReg { name, width, doc } => decl(out, "(* ASYNC_REG = \"TRUE\", keep = \"true\" *) reg", name, *width, doc),
            Item::Memory { name, width, depth, doc } => {
                let _ = writeln!(out, "    reg {}{name} [0:{}]; // {doc}", range(*width), depth - 1);
            }
            Item::LutMemory { name, width, depth, doc } => {
                let _ = writeln!(out, "    (* ram_style = \"distributed\" *) reg {}{name} [0:{}]; // {doc}", range(*width), depth - 1);
            }
            Item::UncheckedMemory { name, width, depth, distributed, doc } => {
                let attrs = if *distributed { "ram_style = \"distributed\", no_rw_check" } else { "no_rw_check" };
                let _ = writeln!(out, "    (* {attrs} *) reg {}{name} [0:{}]; // {doc}", range(*width), depth - 1);
            }
            Item::Localparam { .. } => unreachable!("printed by Module::render"),
            Item::Assign(l, r) => {
                let lhs = l.render();
                let _ = writeln!(out, "    assign {lhs} = {};", r.render_at(14 + lhs.len(), 4));
            }
            Item::AlwaysComb(body) => {
                out.push_str("    always @* begin\n");
                write_stmts(out, body, 2, "=");
                out.push_str("    end\n");
            }
            Item::AlwaysFf { reset, body } => self.write_always_ff(out, "clk", self.reset.map(ResetStyle::port), reset.as_deref(), body),
            Item::AlwaysFfOn { domain, reset, body } => self.write_always_ff(out, &domain.clock, Some(&domain.reset), reset.as_deref(), body),
            Item::Function { name, width, arg, arg_width, doc, body } => {
                if !out.ends_with("\n\n") {
                    out.push('\n');
                }
                for line in doc.lines() {
                    let _ = writeln!(out, "    // {line}");
                }
                let _ = writeln!(out, "    function {}{name};", range(*width));
                let _ = writeln!(out, "        input {}{arg};", range(*arg_width));
                out.push_str("        begin\n");
                write_stmts(out, body, 3, "=");
                out.push_str("        end\n    endfunction\n");
            }
            Item::Formal(f) => {
                out.push_str("\n`ifdef FORMAL\n");
                out.push_str(&f.render_anyconst());
                for i in &f.items {
                    self.write_item(out, i);
                }
                out.push_str(&f.render_checks());
                out.push_str("`endif\n");
            }
            Item::Instance { module, name, conns } => {
                let _ = writeln!(out, "    {module} {name} (");
                let w = conns.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
                for (i, (port, e)) in conns.iter().enumerate() {
                    let comma = if i + 1 < conns.len() { "," } else { "" };
                    let _ = writeln!(out, "        .{port:<w$} ({}){comma}", e.render_at(11 + w, 8));
                }
                out.push_str("    );\n");
            }
        }
    }
}

impl Module {
    /// `always @(posedge clock)`, with `reset` (the reset register values) under the module's
    /// reset style on port `reset_port`.
    fn write_always_ff(&self, out: &mut String, clock: &str, reset_port: Option<&str>, reset: Option<&[Stmt]>, body: &[Stmt]) {
        match (reset, self.reset, reset_port) {
            (Some(rbody), Some(ResetStyle::SyncHigh), Some(rst)) => {
                let _ = write!(out, "    always @(posedge {clock}) begin\n        if ({rst}) begin\n");
                write_stmts(out, rbody, 3, "<=");
                out.push_str("        end else begin\n");
                write_stmts(out, body, 3, "<=");
                out.push_str("        end\n    end\n");
            }
            (Some(rbody), Some(ResetStyle::AsyncLow), Some(rst)) => {
                let _ = write!(out, "    always @(posedge {clock} or negedge {rst}) begin\n        if (!{rst}) begin\n");
                write_stmts(out, rbody, 3, "<=");
                out.push_str("        end else begin\n");
                write_stmts(out, body, 3, "<=");
                out.push_str("        end\n    end\n");
            }
            (Some(_), _, _) => panic!("module {}: reset register group in a module without a reset", self.name),
            (None, _, _) => {
                let _ = writeln!(out, "    always @(posedge {clock}) begin");
                write_stmts(out, body, 2, "<=");
                out.push_str("    end\n");
            }
        }
    }
}

/// `localparam [W-1:0] NAME`, the range from the width of a sized constant.
fn localparam_decl(name: &str, value: &Expr) -> String {
    let width = match value {
        Expr::Dec(w, _) => *w,
        Expr::Const(v) => v.len() as u32,
        _ => 1,
    };
    format!("localparam {}{name}", range(width))
}

fn decl(out: &mut String, kind: &str, name: &str, width: u32, doc: &str) {
    if doc.is_empty() {
        let _ = writeln!(out, "    {kind} {}{name};", range(width));
    } else {
        let _ = writeln!(out, "    {kind} {}{name}; // {doc}", range(width));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parity_prints_as_masked_reduction() {
        let e = Expr::parity(Expr::id("data"), BitVec::from_u128(12, 0x80f), true);
        assert_eq!(e.render(), "~^(data & 12'h80f)");
        let x = Expr::xor(Expr::bit("a", 3), Expr::and(Expr::id("b"), Expr::id("c")));
        assert_eq!(x.render(), "a[3] ^ (b & c)");
    }

    #[test]
    fn xor_all_prints_a_flat_short_chain() {
        let e = Expr::XorAll(vec![Expr::bit("d", 0), Expr::bit("d", 5), Expr::id("t")]);
        assert_eq!(e.render(), "d[0] ^ d[5] ^ t");
        assert_eq!(e.not().render(), "~(d[0] ^ d[5] ^ t)");
    }

    #[test]
    fn clocked_block_uses_the_design_reset_style() {
        let mut m = Module { name: "m".into(), ports: vec![], items: vec![], reset: Some(ResetStyle::AsyncLow) };
        m.items.push(Item::AlwaysFf { reset: Some(vec![Stmt::set(Expr::id("q"), Expr::zero())]), body: vec![Stmt::set(Expr::id("q"), Expr::id("d"))] });
        let text = m.render();
        assert!(text.contains("always @(posedge clk or negedge rst_n)"), "{text}");
        assert!(text.contains("q <= 1'd0;") && text.contains("q <= d;"), "{text}");
    }

    #[test]
    fn a_table_function_prints_one_row_per_line_and_is_called_by_name() {
        let arms = (1..4).map(|a| (vec![Expr::Dec(2, a)], vec![Stmt::set(Expr::id("f"), Expr::Dec(2, 3 - a))])).collect();
        let mut m = Module { name: "m".into(), ports: vec![], items: vec![], reset: None };
        m.items.push(Item::Function { name: "f".into(), width: 2, arg: "a".into(), arg_width: 2, doc: "a table".into(), body: vec![Stmt::Case(Expr::id("a"), arms, vec![Stmt::set(Expr::id("f"), Expr::Dec(2, 0))])] });
        m.items.push(Item::assign(Expr::id("y"), Expr::Call("f".into(), vec![Expr::id("x")])));
        let text = m.render();
        assert!(text.contains("    // a table\n    function [1:0] f;\n        input [1:0] a;\n        begin\n            case (a)\n"), "{text}");
        assert!(text.contains("                2'd1: f = 2'd2;\n"), "{text}");
        assert!(text.contains("        end\n    endfunction\n"), "{text}");
        assert!(text.contains("assign y = f(x);"), "{text}");
    }
}
