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
    LogicAnd,
    LogicOr,
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
            BinOp::LogicAnd => "&&",
            BinOp::LogicOr => "||",
        }
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
            Expr::Ident(_) | Expr::Bit(..) | Expr::Slice(..) | Expr::Index(..) | Expr::Const(_) | Expr::Dec(..) | Expr::Concat(_) | Expr::Repeat(..)
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
            Expr::Bin(op, a, b) => {
                a.write_operand(out);
                let _ = write!(out, " {} ", op.token());
                b.write_operand(out);
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
    Comment(String),
    Blank,
    Wire { name: String, width: u32, doc: String },
    /// A wire synthesis must keep (`(* keep *)`): pins a LUT boundary in explicit XOR trees.
    KeptWire { name: String, width: u32 },
    Reg { name: String, width: u32, doc: String },
    /// `reg [width-1:0] name [0:depth-1];` in the inference pattern for block RAM.
    Memory { name: String, width: u32, depth: u32, doc: String },
    Localparam { name: String, value: Expr, doc: String },
    Assign(Expr, Expr),
    /// `always @(posedge clk)`; with `reset` the design's reset style wraps `reset_body`.
    AlwaysFf { reset: Option<Vec<Stmt>>, body: Vec<Stmt> },
    AlwaysComb(Vec<Stmt>),
    Instance { module: String, name: String, conns: Vec<(String, Expr)> },
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
            let _ = writeln!(out, "{} {op} {};", l.render(), r.render());
        }
        Stmt::Comment(c) => {
            indent(out, level);
            let _ = writeln!(out, "// {c}");
        }
        Stmt::If(c, then, els) => {
            indent(out, level);
            let _ = writeln!(out, "if ({}) begin", c.render());
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
        let name_w = self.ports.iter().map(|p| p.name.len()).max().unwrap_or(0);
        let decl_w = self.ports.iter().map(|p| port_decl(p).len()).max().unwrap_or(0);
        for (i, p) in self.ports.iter().enumerate() {
            let comma = if i + 1 < self.ports.len() { "," } else { " " };
            let decl = format!("{}{}", port_decl(p), p.name);
            let _ = writeln!(out, "    {decl:<w$}{comma} // {}", p.doc, w = decl_w + name_w);
        }
        out.push_str(");\n");
        for item in &self.items {
            self.write_item(&mut out, item);
        }
        out.push_str("\nendmodule\n");
        out
    }

    fn write_item(&self, out: &mut String, item: &Item) {
        match item {
            Item::Blank => out.push('\n'),
            Item::Comment(c) => {
                out.push('\n');
                for line in c.lines() {
                    let _ = writeln!(out, "    // {line}");
                }
            }
            Item::Wire { name, width, doc } => decl(out, "wire", name, *width, doc),
            Item::KeptWire { name, width } => decl(out, "(* keep *) wire", name, *width, ""),
            Item::Reg { name, width, doc } => decl(out, "reg", name, *width, doc),
            Item::Memory { name, width, depth, doc } => {
                let _ = writeln!(out, "    reg {}{name} [0:{}]; // {doc}", range(*width), depth - 1);
            }
            Item::Localparam { name, value, doc } => {
                let _ = writeln!(out, "    localparam {name} = {}; // {doc}", value.render());
            }
            Item::Assign(l, r) => {
                let _ = writeln!(out, "    assign {} = {};", l.render(), r.render());
            }
            Item::AlwaysComb(body) => {
                out.push_str("    always @* begin\n");
                write_stmts(out, body, 2, "=");
                out.push_str("    end\n");
            }
            Item::AlwaysFf { reset, body } => match (reset, self.reset) {
                (Some(rbody), Some(ResetStyle::SyncHigh)) => {
                    out.push_str("    always @(posedge clk) begin\n        if (rst) begin\n");
                    write_stmts(out, rbody, 3, "<=");
                    out.push_str("        end else begin\n");
                    write_stmts(out, body, 3, "<=");
                    out.push_str("        end\n    end\n");
                }
                (Some(rbody), Some(ResetStyle::AsyncLow)) => {
                    out.push_str("    always @(posedge clk or negedge rst_n) begin\n        if (!rst_n) begin\n");
                    write_stmts(out, rbody, 3, "<=");
                    out.push_str("        end else begin\n");
                    write_stmts(out, body, 3, "<=");
                    out.push_str("        end\n    end\n");
                }
                (Some(_), None) => panic!("module {}: reset register group in a module without a reset", self.name),
                (None, _) => {
                    out.push_str("    always @(posedge clk) begin\n");
                    write_stmts(out, body, 2, "<=");
                    out.push_str("    end\n");
                }
            },
            Item::Instance { module, name, conns } => {
                let _ = writeln!(out, "    {module} {name} (");
                let w = conns.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
                for (i, (port, e)) in conns.iter().enumerate() {
                    let comma = if i + 1 < conns.len() { "," } else { "" };
                    let _ = writeln!(out, "        .{port:<w$} ({}){comma}", e.render());
                }
                out.push_str("    );\n");
            }
        }
    }
}

fn port_decl(p: &Port) -> String {
    let dir = match p.dir {
        Dir::Input => "input  wire ",
        Dir::Output => "output wire ",
    };
    format!("{dir}{}", range(p.width))
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
}
