//! XOR networks (affine maps over GF(2)) as masked parity reductions, optionally pipelined.
//!
//! Each output bit is `^(in & MASK)` (or `~^` when its constant is 1): one line per bit that
//! every tool elaborates in linear time and that synthesis balances into a LUT tree itself.
//! With `stages` register stages the input columns are cut into groups whose partial parities
//! are registered, so each stage reduces about `N^(1/stages)` inputs per output bit.

use super::verilog::{Expr, Item, Stmt, UnOp};
use super::xor_share::{Term, XorPlan, WINDOW};
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};

/// How each output parity of a combinational network is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XorStyle {
    /// One `^(in & MASK)` per output bit: fastest to elaborate everywhere; ABC maps it a level
    /// deeper than the ⌈log6 w⌉ bound on wide rows.
    Masked,
    /// Explicit trees of 6-input XORs on `(* keep *)` wires: each node is one LUT6, so the depth
    /// is ⌈log6 w⌉ (measured on the 1946-input CRC-64: depth 4 and 8 % fewer LUTs than
    /// `Masked`), at the price of slower Verilator elaboration.
    Lut6Tree,
    /// The default ([`XorStyle::SHARED`]). One network for all outputs with 6-input XOR nodes
    /// shared between them within windows of the input ([`xor_share`](super::xor_share)), each
    /// node one kept scalar wire: every output at ⌈log6 w⌉ LUT levels and, on CRCs from 512 bits
    /// up, about 60 % of the LUT6 of `Lut6Tree`, with wiring local enough to route a flit-wide
    /// CRC on an ECP5 at the default window.
    Lut6Shared {
        /// Least columns of a level-1 sharing window; `usize::MAX` shares over the whole input
        /// (fewest LUT6, wires that span it).
        window: usize,
    },
}

impl Default for XorStyle {
    fn default() -> Self {
        XorStyle::SHARED
    }
}

impl XorStyle {
    /// The shared network at the default window ([`WINDOW`] columns).
    pub const SHARED: XorStyle = XorStyle::Lut6Shared { window: WINDOW };

    /// How the network of this style is written, for the comment above it in the RTL.
    pub fn how(self, stages: u32) -> &'static str {
        match self {
            _ if stages > 0 => "registered partial parities of masked column groups",
            XorStyle::Masked => "one masked parity per output bit",
            XorStyle::Lut6Tree => "a private tree of 6-input XORs per output bit on kept wires",
            XorStyle::Lut6Shared { .. } => "6-input XOR nodes shared between the output bits, one kept wire per node",
        }
    }
}

/// The input columns of a network: named vectors (ports or wires) laid end to end, the first
/// part holding columns `0..`, the next the columns after it, and so on.
///
/// A network over several sources (a CRC over `{seq, data}`, a checker over
/// `{crc_in, seq, data}`) reads each column straight from its source rather than from one
/// concatenated wire: where the module is inlined into a parent that ties `seq` to a constant
/// and drives `data` from a wide expression, Verilator 5.006 substitutes the concatenation into
/// every column read and builds a wide temporary per column (the RXL endpoint's 1,946-column
/// CRC: 66 s and 15 GB to elaborate; reading the ports, 9 s and 0.3 GB).
#[derive(Debug, Clone, Copy)]
pub enum Columns<'a> {
    /// Every column in one named vector (as wide as the map has inputs).
    One(&'a str),
    /// (name, width) of each part, the lowest columns first; a part of width 0 is skipped.
    Parts(&'a [(&'a str, usize)]),
}

/// An affine map to emit: `out = M·in ⊕ c` over the input columns `in`.
pub struct XorNet<'a> {
    /// Prefix of the internal register names.
    pub name: &'a str,
    /// Where the input columns come from.
    pub input: Columns<'a>,
    pub map: &'a AffineMap,
    /// Applies to combinational networks (`stages == 0`); pipelined ones register partial
    /// parities of masked groups.
    pub style: XorStyle,
}

impl XorNet<'_> {
    /// (name, width) of each input part, the lowest columns first.
    fn parts(&self) -> Vec<(&str, usize)> {
        match self.input {
            Columns::One(name) => vec![(name, self.map.inputs())],
            Columns::Parts(parts) => parts.iter().copied().filter(|p| p.1 > 0).collect(),
        }
    }

    /// Input column `k`: a bit-select of its part (the part itself when it is one bit wide).
    fn column(&self, k: usize) -> Expr {
        let mut lo = 0;
        for (name, w) in self.parts() {
            if k < lo + w {
                return vector_bit(name, w, k - lo);
            }
            lo += w;
        }
        panic!("column {k} beyond the {} input columns of {}", self.map.inputs(), self.name)
    }

    /// Input columns `lo..=hi`: a select of each part they cover, the highest part first.
    fn columns(&self, hi: usize, lo: usize) -> Expr {
        let mut pieces = Vec::new();
        let mut base = 0;
        for (name, w) in self.parts() {
            let (from, to) = (lo.max(base), hi.min(base + w - 1));
            if from <= to {
                pieces.push(if from == base && to == base + w - 1 {
                    Expr::id(name)
                } else if from == to {
                    Expr::bit(name, (from - base) as u32)
                } else {
                    Expr::slice(name, (to - base) as u32, (from - base) as u32)
                });
            }
            base += w;
        }
        pieces.reverse();
        if pieces.len() == 1 {
            pieces.pop().expect("one piece")
        } else {
            Expr::Concat(pieces)
        }
    }

    /// Every input column as one vector expression.
    fn all_columns(&self) -> Expr {
        self.columns(self.map.inputs() - 1, 0)
    }
}

/// Emit the network driving the existing wire or output port `out`. `stages` = 0 is
/// combinational; otherwise the result appears `stages` clock edges after the input.
pub fn emit(items: &mut Vec<Item>, net: &XorNet, out: &str, stages: u32) {
    let rows = net.map.outputs();
    if let (0, XorStyle::Lut6Shared { window }) = (stages, net.style) {
        shared_network(items, net, window, out);
        return;
    }
    if stages == 0 {
        for r in 0..rows {
            let (mask, invert) = (net.map.matrix.row(r), net.map.constant.get(r));
            let rhs = match net.style {
                XorStyle::Masked => final_parity(net.all_columns(), mask, invert),
                XorStyle::Lut6Tree => lut6_tree(items, net, r),
                XorStyle::Lut6Shared { .. } => unreachable!("planned as one network above"),
            };
            items.push(Item::assign(vector_bit(out, rows, r), rhs));
        }
        return;
    }
    let fan_in = group_size(net.map.inputs(), stages);
    // Per output row, what the next stage reduces: the input itself at first.
    let mut level: Vec<Level> = (0..rows).map(|r| Level::Input(net.map.matrix.row(r).clone())).collect();
    for stage in 1..stages {
        items.push(Item::comment(&format!("stage {stage}: registered partial parities over groups of up to {fan_in} columns")));
        let mut body = Vec::new();
        for (r, lv) in level.iter_mut().enumerate() {
            let parts = lv.partials(net, fan_in);
            if parts.is_empty() {
                *lv = Level::Empty;
                continue;
            }
            let reg = format!("{}_s{stage}_r{r}", net.name);
            let width = parts.len();
            items.push(Item::reg(&reg, width as u32, ""));
            for (j, p) in parts.into_iter().enumerate() {
                body.push(Stmt::set(vector_bit(&reg, width, j), p));
            }
            *lv = Level::Partials(reg, width);
        }
        items.push(Item::AlwaysFf { reset: None, body });
    }
    items.push(Item::comment(&format!("stage {stages}: output register")));
    let q = format!("{}_q", net.name);
    items.push(Item::reg(&q, rows as u32, "output register of the network"));
    let body: Vec<Stmt> = level
        .iter()
        .enumerate()
        .map(|(r, lv)| {
            let invert = net.map.constant.get(r);
            let rhs = match lv {
                Level::Input(mask) => final_parity(net.all_columns(), mask, invert),
                Level::Partials(reg, 1) => if invert { Expr::id(reg).not() } else { Expr::id(reg) },
                Level::Partials(reg, _) => Expr::red(if invert { UnOp::RedXnor } else { UnOp::RedXor }, Expr::id(reg)),
                Level::Empty => Expr::dec(1, invert as u64),
            };
            Stmt::set(vector_bit(&q, rows, r), rhs)
        })
        .collect();
    items.push(Item::AlwaysFf { reset: None, body });
    items.push(Item::assign(Expr::id(out), Expr::id(&q)));
}

/// The input columns of a CRC generator over `data` with a `seq_bits`-bit implicit sequence
/// number (ISN: seq is XORed into data[seq_bits-1:0]): `data`, then `seq` as extra columns, so
/// the sequence number costs fan-in, not an extra XOR level; with how they read in the network's
/// comment.
pub fn isn_columns(data_bits: u32, seq_bits: u32) -> ([(&'static str, usize); 2], &'static str) {
    let doc = if seq_bits > 0 { "{seq, data} (ISN: seq enters as extra columns)" } else { "data" };
    ([("data", data_bits as usize), ("seq", seq_bits as usize)], doc)
}

/// The body of a CRC checker (binary or over GF(2^m)): the syndrome `M·{seq, data} ⊕ c ⊕ crc_in`
/// computed with `crc_in` as extra identity columns of the CRC's own network, so checking costs
/// no comparator level of its own, then `ok = ~|syndrome` and the valid pipe. Expects the ports
/// `data`, `seq` (when `seq_bits` > 0), `crc_in`, `ok` and, pipelined, `in_valid`/`out_valid`.
pub fn emit_crc_checker(items: &mut Vec<Item>, crc: &AffineMap, data_bits: u32, seq_bits: u32, style: XorStyle, stages: u32, how: &str) {
    let w = crc.outputs();
    let map = AffineMap { matrix: crc.matrix.hconcat(&BitMatrix::identity(w)), constant: crc.constant.clone() };
    items.push(Item::wire("syndrome", w as u32, "CRC(data, seq) ^ crc_in: zero iff the flit checks"));
    items.push(Item::comment(how));
    let parts = [("data", data_bits as usize), ("seq", seq_bits as usize), ("crc_in", w)];
    emit(items, &XorNet { name: "syndrome", input: Columns::Parts(&parts), map: &map, style }, "syndrome", stages);
    items.push(Item::assign(Expr::id("ok"), Expr::red(UnOp::RedNor, Expr::id("syndrome"))));
    if stages > 0 {
        emit_valid_pipe(items, "valid_pipe", "in_valid", "out_valid", stages);
    }
}

/// Emit a chain of `stages` valid flags, cleared by reset, from `input` to the wire `out`.
pub fn emit_valid_pipe(items: &mut Vec<Item>, name: &str, input: &str, out: &str, stages: u32) {
    if stages == 0 {
        items.push(Item::assign(Expr::id(out), Expr::id(input)));
        return;
    }
    items.push(Item::reg(name, stages, "valid flag of each pipeline stage"));
    let next = if stages == 1 { Expr::id(input) } else { Expr::Concat(vec![Expr::slice(name, stages - 2, 0), Expr::id(input)]) };
    items.push(Item::AlwaysFf { reset: Some(vec![Stmt::set(Expr::id(name), Expr::dec(stages, 0))]), body: vec![Stmt::set(Expr::id(name), next)] });
    let last = if stages == 1 { Expr::id(name) } else { Expr::bit(name, stages - 1) };
    items.push(Item::assign(Expr::id(out), last));
}

enum Level {
    /// Still the input vector, with this row's mask.
    Input(BitVec),
    /// A register of partial parities (name, width).
    Partials(String, usize),
    /// The row depends on no input: a constant.
    Empty,
}

impl Level {
    /// The parities of consecutive groups of `fan_in` columns this row depends on.
    fn partials(&self, net: &XorNet, fan_in: usize) -> Vec<Expr> {
        match self {
            Level::Input(mask) => (0..mask.len())
                .step_by(fan_in)
                .filter_map(|lo| {
                    let len = fan_in.min(mask.len() - lo);
                    let part = mask.slice(lo, len);
                    if part.is_zero() {
                        return None;
                    }
                    Some(Expr::parity(net.columns(lo + len - 1, lo), part, false))
                })
                .collect(),
            Level::Partials(reg, width) => (0..*width)
                .step_by(fan_in)
                .map(|lo| {
                    let len = fan_in.min(width - lo);
                    match (*width, len) {
                        (1, _) => Expr::id(reg),
                        (_, 1) => Expr::bit(reg, lo as u32),
                        _ => Expr::red(UnOp::RedXor, Expr::slice(reg, (lo + len - 1) as u32, lo as u32)),
                    }
                })
                .collect(),
            Level::Empty => Vec::new(),
        }
    }
}

/// Row `r` as a tree of 6-input XORs: every full level is one kept vector wire (one bit per
/// 6-input node), the root is the returned expression (inverted when the row's constant is 1).
///
/// One vector per level rather than one scalar wire per node: the scalar form (≈6,500 kept
/// wires for a CRC-32 over 2,048 bits) took Verilator 5.006 over ten minutes to elaborate and
/// the model it built computed wrong CRCs (Icarus and the Yosys netlist agree with the model).
fn lut6_tree(items: &mut Vec<Item>, net: &XorNet, r: usize) -> Expr {
    const FAN_IN: usize = 6;
    let mask = net.map.matrix.row(r);
    let mut terms: Vec<Expr> = mask.iter_ones().map(|k| net.column(k)).collect();
    if terms.is_empty() {
        return Expr::dec(1, net.map.constant.get(r) as u64);
    }
    let mut level = 0;
    while terms.len() > FAN_IN {
        let name = format!("{}_r{r}_l{level}", net.name);
        let nodes = terms.chunks(FAN_IN).filter(|c| c.len() > 1).count();
        let mut assigns = Vec::new();
        let mut node = 0;
        terms = terms
            .chunks(FAN_IN)
            .map(|chunk| {
                if chunk.len() == 1 {
                    return chunk[0].clone();
                }
                let bit = vector_bit(&name, nodes, node);
                node += 1;
                assigns.push(Item::assign(bit.clone(), Expr::XorAll(chunk.to_vec())));
                bit
            })
            .collect();
        items.push(Item::KeptWire { name, width: nodes as u32 });
        items.extend(assigns);
        level += 1;
    }
    let root = if terms.len() == 1 { terms.pop().expect("one term") } else { Expr::XorAll(terms) };
    if net.map.constant.get(r) {
        root.not()
    } else {
        root
    }
}

/// The whole map as a [`XorPlan`]: node `i` of level `l` is the scalar kept wire
/// `<name>_n<l>_<i>` (kept so that ABC maps each node to one LUT instead of re-deriving private
/// trees), and output bit `r` XORs its root operands.
///
/// One wire per node rather than one vector per level: an event-driven simulator (Icarus)
/// wakes every reader of a vector when any bit of it changes, so a level written as one
/// 726-bit vector made each input change cost (nodes × readers) evaluations; scalar nodes cost
/// only their own readers.
///
/// Each input column the network reads is first a scalar wire `<name>_x<k>` for the same
/// reason, and because Icarus elaborates a vector read through thousands of bit-selects in
/// quadratic time (a CRC-64 over 1,936 bits: minutes; through the scalar columns: seconds).
fn shared_network(items: &mut Vec<Item>, net: &XorNet, window: usize, out: &str) {
    let plan = XorPlan::windowed(&net.map.matrix, window);
    let node_name = |level: usize, index: usize| format!("{}_n{level}_{index}", net.name);
    let column_name = |k: usize| format!("{}_x{k}", net.name);
    let expr = |t: &Term| match *t {
        Term::Input(k) => Expr::id(&column_name(k)),
        Term::Node { level, index } => Expr::id(&node_name(level, index)),
    };
    let mut columns: Vec<usize> = plan.levels.iter().flatten().chain(plan.roots.iter()).flatten().filter_map(|t| if let Term::Input(k) = *t { Some(k) } else { None }).collect();
    columns.sort_unstable();
    columns.dedup();
    items.push(Item::comment(&format!("the {} input columns the network reads, one wire each", columns.len())));
    items.extend(columns.iter().map(|&k| Item::wire(&column_name(k), 1, "")));
    items.extend(columns.iter().map(|&k| Item::assign(Expr::id(&column_name(k)), net.column(k))));
    for (l, nodes) in plan.levels.iter().enumerate() {
        if nodes.is_empty() {
            continue;
        }
        items.push(Item::comment(&format!("level {}: {} shared 6-input XOR nodes", l + 1, nodes.len())));
        items.extend((0..nodes.len()).map(|i| Item::KeptWire { name: node_name(l + 1, i), width: 1 }));
        for (i, ops) in nodes.iter().enumerate() {
            items.push(Item::assign(Expr::id(&node_name(l + 1, i)), Expr::XorAll(ops.iter().map(expr).collect())));
        }
    }
    let rows = plan.roots.len();
    for (r, ops) in plan.roots.iter().enumerate() {
        let invert = net.map.constant.get(r);
        let rhs = match ops.len() {
            0 => Expr::dec(1, invert as u64),
            1 if invert => expr(&ops[0]).not(),
            1 => expr(&ops[0]),
            _ if invert => Expr::XorAll(ops.iter().map(expr).collect()).not(),
            _ => Expr::XorAll(ops.iter().map(expr).collect()),
        };
        items.push(Item::assign(vector_bit(out, rows, r), rhs));
    }
}

fn final_parity(input: Expr, mask: &BitVec, invert: bool) -> Expr {
    if mask.is_zero() {
        return Expr::dec(1, invert as u64);
    }
    Expr::parity(input, mask.clone(), invert)
}

/// Bit `i` of a vector `width` wide; a 1-bit vector is declared without a range.
fn vector_bit(out: &str, width: usize, i: usize) -> Expr {
    if width == 1 {
        Expr::id(out)
    } else {
        Expr::bit(out, i as u32)
    }
}

/// Columns per group so that `stages` levels of grouping cover `n` inputs: ⌈n^(1/stages)⌉.
fn group_size(n: usize, stages: u32) -> usize {
    let mut f = (n as f64).powf(1.0 / stages as f64).ceil() as usize;
    while f.saturating_pow(stages) < n {
        f += 1;
    }
    f.max(2)
}
