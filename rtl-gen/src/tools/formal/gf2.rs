//! Proofs of combinational properties over XOR networks by symbolic evaluation over GF(2).
//!
//! Yosys reads the module with its `` `ifdef FORMAL `` block, flattens it and lowers it to
//! single-bit gates (`proc; flatten; techmap; opt -fast`), and writes the netlist as JSON. Every
//! wire bit is then evaluated as an affine form over the input port bits (`x_0 … x_{n-1}` and a
//! constant): XOR, XNOR, NOT and buffers of affine forms are affine; AND, OR and MUX are affine
//! when one operand (the select) is a constant. An assertion whose condition evaluates to the
//! constant 1 holds on every input: that is the proof, exact and linear in the netlist size.
//!
//! Why not SAT: the CRC networks are wide parities, the classic hard case for CDCL solvers.
//! Measured on the 32-bit CRC over 72 bits: SymbiYosys with z3 had not finished after 5 minutes,
//! Yosys's `equiv_simple` not after 2; this evaluation takes well under a second.
//!
//! When an affine condition is not the constant 1 the module is evaluated concretely on the
//! all-zero input and every unit input: an affine difference that is not identically zero is 1
//! on one of them, so a wrong network always yields a counterexample. A condition that depends
//! on a gate outside the affine fragment is reported as not proven, never as proven, with the
//! names of the assertions that were proven: `rtl-gen formal` hands the rest to Yosys `sat`.

use crate::math::gf2::BitVec;
use serde_json::Value;
use std::collections::HashMap;

/// A bit of the netlist: an affine form over the inputs (bit `n` is the constant), or unknown.
type Form = Option<BitVec>;

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every assertion's condition is the constant 1.
    Proven,
    /// An input on which an assertion fails: `(port, value bits LSB first)` for every input port,
    /// and the values of the output ports there.
    /// `property` names the failing assertion where the proof knows it.
    Counterexample { property: Option<String>, inputs: Vec<(String, Vec<bool>)>, outputs: Vec<(String, Vec<bool>)> },
    /// Neither: a non-affine gate on the path and no counterexample among the probes. `proven`
    /// names the assertions (cell names: their labels) whose condition is the constant 1.
    NotProven { reason: String, proven: Vec<String> },
}

struct Cell {
    kind: String,
    conns: HashMap<String, Vec<Bit>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bit {
    Net(u64),
    Zero,
    One,
    Undef,
}

struct Netlist {
    inputs: Vec<(String, Vec<Bit>)>,
    outputs: Vec<(String, Vec<Bit>)>,
    cells: Vec<Cell>,
    /// Net → (cell, output port, bit index).
    driver: HashMap<u64, (usize, String, usize)>,
    asserts: Vec<usize>,
    /// Cell name of each assertion (the check's label).
    assert_names: Vec<String>,
    /// Named wires (Yosys `netnames`): name → bits, for the cut points.
    netnames: HashMap<String, Vec<Bit>>,
}

fn bits(v: &Value) -> Vec<Bit> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|b| match b {
                    Value::Number(n) => Bit::Net(n.as_u64().unwrap_or(0)),
                    Value::String(s) if s == "0" => Bit::Zero,
                    Value::String(s) if s == "1" => Bit::One,
                    _ => Bit::Undef,
                })
                .collect()
        })
        .unwrap_or_default()
}

fn parse(json: &str, top: &str) -> Result<Netlist, String> {
    let v: Value = serde_json::from_str(json).map_err(|e| format!("Yosys JSON: {e}"))?;
    let m = v.get("modules").and_then(|m| m.get(top)).ok_or_else(|| format!("Yosys JSON has no module {top}"))?;
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    if let Some(ports) = m.get("ports").and_then(Value::as_object) {
        for (name, p) in ports {
            let b = bits(&p["bits"]);
            match p["direction"].as_str() {
                Some("input") => inputs.push((name.clone(), b)),
                _ => outputs.push((name.clone(), b)),
            }
        }
    }
    let mut cells = Vec::new();
    let mut driver = HashMap::new();
    let mut asserts = Vec::new();
    let mut assert_names = Vec::new();
    if let Some(cs) = m.get("cells").and_then(Value::as_object) {
        for (cell_name, c) in cs {
            let kind = c["type"].as_str().unwrap_or("").to_string();
            let mut conns = HashMap::new();
            if let Some(cc) = c.get("connections").and_then(Value::as_object) {
                for (port, b) in cc {
                    conns.insert(port.clone(), bits(b));
                }
            }
            let i = cells.len();
            if kind == "$assert" {
                asserts.push(i);
                assert_names.push(cell_name.clone());
            }
            // Gate outputs are Y (and Q of flip-flops, which make the module not combinational).
            for out in ["Y", "Q"] {
                if let Some(bs) = conns.get(out) {
                    for (k, b) in bs.iter().enumerate() {
                        if let Bit::Net(n) = b {
                            driver.insert(*n, (i, out.to_string(), k));
                        }
                    }
                }
            }
            cells.push(Cell { kind, conns });
        }
    }
    let netnames = m
        .get("netnames")
        .and_then(Value::as_object)
        .map(|ns| ns.iter().map(|(name, n)| (name.clone(), bits(&n["bits"]))).collect())
        .unwrap_or_default();
    Ok(Netlist { inputs, outputs, cells, driver, asserts, assert_names, netnames })
}

impl Netlist {
    fn width(&self) -> usize {
        self.inputs.iter().map(|(_, b)| b.len()).sum()
    }

    /// Net → input variable index.
    fn variables(&self) -> HashMap<u64, usize> {
        let mut vars = HashMap::new();
        for b in self.inputs.iter().flat_map(|(_, b)| b) {
            if let Bit::Net(n) = b {
                let k = vars.len();
                vars.entry(*n).or_insert(k);
            }
        }
        vars
    }
}

/// Symbolic evaluation with memo; iterative so deep chains cannot overflow the stack.
struct Symbolic<'a> {
    net: &'a Netlist,
    vars: HashMap<u64, usize>,
    n: usize,
    memo: HashMap<u64, Form>,
}

impl Symbolic<'_> {
    fn constant(&self, one: bool) -> BitVec {
        let mut v = BitVec::zeros(self.n + 1);
        v.set(self.n, one);
        v
    }

    fn is_const(&self, f: &BitVec) -> Option<bool> {
        (f.count_ones() - usize::from(f.get(self.n)) == 0).then(|| f.get(self.n))
    }

    fn bit(&mut self, b: Bit) -> Form {
        match b {
            Bit::Zero => Some(self.constant(false)),
            Bit::One => Some(self.constant(true)),
            Bit::Undef => None,
            Bit::Net(n) => self.net_form(n),
        }
    }

    fn net_form(&mut self, root: u64) -> Form {
        let mut stack = vec![root];
        while let Some(&n) = stack.last() {
            if self.memo.contains_key(&n) {
                stack.pop();
                continue;
            }
            if let Some(&k) = self.vars.get(&n) {
                let mut v = BitVec::zeros(self.n + 1);
                v.set(k, true);
                self.memo.insert(n, Some(v));
                stack.pop();
                continue;
            }
            let Some((ci, _, _)) = self.net.driver.get(&n).cloned() else {
                self.memo.insert(n, None);
                stack.pop();
                continue;
            };
            let cell = &self.net.cells[ci];
            let pending: Vec<u64> = ["A", "B", "S", "D"]
                .iter()
                .filter_map(|p| cell.conns.get(*p))
                .flatten()
                .filter_map(|b| if let Bit::Net(m) = b { Some(*m) } else { None })
                .filter(|m| !self.memo.contains_key(m))
                .collect();
            if !pending.is_empty() {
                stack.extend(pending);
                continue;
            }
            let f = self.gate(ci);
            self.memo.insert(n, f);
            stack.pop();
        }
        self.memo[&root].clone()
    }

    fn input(&mut self, ci: usize, port: &str) -> Form {
        let b = *self.net.cells[ci].conns.get(port)?.first()?;
        self.bit(b)
    }

    fn gate(&mut self, ci: usize) -> Form {
        let kind = self.net.cells[ci].kind.clone();
        let a = self.input(ci, "A");
        let b = self.input(ci, "B");
        let xor = |a: Form, b: Form| -> Form {
            let (mut a, b) = (a?, b?);
            a.xor_assign(&b);
            Some(a)
        };
        let not = |a: Form, n: usize| -> Form {
            let mut a = a?;
            a.flip(n);
            Some(a)
        };
        let n = self.n;
        match kind.as_str() {
            "$_BUF_" => a,
            // A feed-forward register: the value of its input some cycles earlier ([`stages`]).
            REGISTER => self.input(ci, "D"),
            "$_NOT_" => not(a, n),
            "$_XOR_" => xor(a, b),
            "$_XNOR_" => not(xor(a, b), n),
            "$_AND_" | "$_NAND_" | "$_OR_" | "$_NOR_" | "$_ANDNOT_" | "$_ORNOT_" => {
                let b = if matches!(kind.as_str(), "$_ANDNOT_" | "$_ORNOT_") { not(b, n) } else { b };
                let (a, b) = (a?, b?);
                let is_and = matches!(kind.as_str(), "$_AND_" | "$_NAND_" | "$_ANDNOT_");
                let r = match (self.is_const(&a), self.is_const(&b)) {
                    (Some(x), _) => Some(if x == is_and { b } else { a }),
                    (_, Some(y)) => Some(if y == is_and { a } else { b }),
                    _ if a == b => Some(a),
                    _ => None,
                }?;
                if matches!(kind.as_str(), "$_NAND_" | "$_NOR_") {
                    not(Some(r), n)
                } else {
                    Some(r)
                }
            }
            "$_MUX_" => {
                let s = self.input(ci, "S")?;
                match self.is_const(&s) {
                    Some(true) => b,
                    Some(false) => a,
                    None if a.is_some() && a == b => a,
                    None => None,
                }
            }
            _ => None,
        }
    }
}

/// The one register cell the evaluation reads through: a plain flip-flop (no reset, no enable),
/// as the pipelines' delay registers are.
const REGISTER: &str = "$_DFF_P_";

/// Register stages between the module inputs and the cones of `roots`, checked to be a
/// feed-forward pipeline the evaluation may read through: every register a plain
/// [`REGISTER`], no loop through one, and every gate combining values of the same cycle (its
/// inputs that depend on the module inputs are the same number of stages after them). Then a
/// net carrying form `f` at stage `d` carries `f` of the inputs of `d` cycles earlier, in every
/// cycle from the `d`-th on, for every input sequence: the evaluation with registers as wires
/// proves the pipeline for all input sequences once it has filled. Returns the deepest stage
/// (`None`: the cones read no input).
fn stages(net: &Netlist, roots: &[Bit]) -> Result<Option<u32>, String> {
    let vars = net.variables();
    // Absent: not visited; None: on the search path; Some(d): done, d its stage (None: no input).
    let mut stage: HashMap<u64, Option<Option<u32>>> = HashMap::new();
    let mut deepest = None;
    for root in roots {
        let Bit::Net(root) = *root else { continue };
        let mut stack = vec![root];
        while let Some(&n) = stack.last() {
            if matches!(stage.get(&n), Some(Some(_))) {
                stack.pop();
                continue;
            }
            if vars.contains_key(&n) {
                stage.insert(n, Some(Some(0)));
                stack.pop();
                continue;
            }
            let Some(&(ci, _, _)) = net.driver.get(&n) else {
                stage.insert(n, Some(None));
                stack.pop();
                continue;
            };
            let cell = &net.cells[ci];
            if cell.conns.contains_key("Q") && cell.kind != REGISTER {
                return Err(format!("a {} register (with reset or enable) is in an assertion's cone: only plain delay registers are read through", cell.kind));
            }
            let ins: Vec<u64> = ["A", "B", "S", "D"].iter().filter_map(|p| cell.conns.get(*p).and_then(|b| b.first().copied())).filter_map(|b| if let Bit::Net(m) = b { Some(m) } else { None }).collect();
            stage.entry(n).or_insert(None);
            let pending: Vec<u64> = ins.iter().copied().filter(|m| !matches!(stage.get(m), Some(Some(_)))).collect();
            if pending.iter().any(|m| stage.contains_key(m)) {
                return Err("a loop through a register reaches an assertion: the network is not feed-forward".into());
            }
            if !pending.is_empty() {
                stack.extend(pending);
                continue;
            }
            let mut d: Option<u32> = None;
            for m in &ins {
                if let Some(Some(Some(x))) = stage.get(m) {
                    match d {
                        Some(y) if y != *x => return Err(format!("a {} gate combines values of {y} and {x} register stages after the inputs: the pipeline is not balanced", cell.kind)),
                        _ => d = Some(*x),
                    }
                }
            }
            let d = if cell.kind == REGISTER { d.map(|x| x + 1) } else { d };
            deepest = deepest.max(d);
            stage.insert(n, Some(d));
            stack.pop();
        }
    }
    Ok(deepest)
}

/// The deepest register stage in the cones of `top`'s assertions (0 for a combinational module).
pub fn register_stages(json: &str, top: &str) -> Result<u32, String> {
    let net = parse(json, top)?;
    let roots: Vec<Bit> = net.asserts.iter().flat_map(|&ai| ["A", "EN"].map(|p| net.cells[ai].conns.get(p).and_then(|b| b.first().copied()).unwrap_or(Bit::One))).collect();
    Ok(stages(&net, &roots)?.unwrap_or(0))
}

/// Concrete evaluation of the netlist on one input assignment (variables by index).
fn concrete(net: &Netlist, vars: &HashMap<u64, usize>, x: &[bool]) -> HashMap<u64, Option<bool>> {
    let mut val: HashMap<u64, Option<bool>> = HashMap::new();
    let get = |val: &HashMap<u64, Option<bool>>, b: Bit| -> Option<Option<bool>> {
        match b {
            Bit::Zero => Some(Some(false)),
            Bit::One => Some(Some(true)),
            Bit::Undef => Some(None),
            Bit::Net(n) => vars.get(&n).map(|&k| Some(x[k])).or_else(|| val.get(&n).copied()),
        }
    };
    // Relax until nothing changes: the netlist is acyclic, so this ends after its depth.
    loop {
        let mut changed = false;
        for c in &net.cells {
            let Some(ys) = c.conns.get("Y").or_else(|| c.conns.get("Q").filter(|_| c.kind == REGISTER)) else { continue };
            let Some(Bit::Net(y)) = ys.first().copied() else { continue };
            if val.contains_key(&y) {
                continue;
            }
            let pin = |p: &str| c.conns.get(p).and_then(|b| b.first().copied()).map(|b| get(&val, b));
            let (a, b, s, d) = (pin("A"), pin("B"), pin("S"), pin("D"));
            if [a, b, s, d].iter().any(|p| matches!(p, Some(None))) {
                continue;
            }
            let (a, b, s, d) = (a.flatten().flatten(), b.flatten().flatten(), s.flatten().flatten(), d.flatten().flatten());
            let v = match c.kind.as_str() {
                "$_BUF_" => a,
                // Inputs held for the pipeline's latency: a register holds its input's value.
                REGISTER => d,
                "$_NOT_" => a.map(|a| !a),
                "$_XOR_" => a.zip(b).map(|(a, b)| a ^ b),
                "$_XNOR_" => a.zip(b).map(|(a, b)| !(a ^ b)),
                "$_AND_" => a.zip(b).map(|(a, b)| a & b),
                "$_NAND_" => a.zip(b).map(|(a, b)| !(a & b)),
                "$_OR_" => a.zip(b).map(|(a, b)| a | b),
                "$_NOR_" => a.zip(b).map(|(a, b)| !(a | b)),
                "$_ANDNOT_" => a.zip(b).map(|(a, b)| a & !b),
                "$_ORNOT_" => a.zip(b).map(|(a, b)| a | !b),
                "$_MUX_" => s.and_then(|s| if s { b } else { a }),
                _ => None,
            };
            val.insert(y, v);
            changed = true;
        }
        if !changed {
            return val;
        }
    }
}

/// Most input bits for which the probes run on assertions outside the XOR fragment.
const PROBE_INPUTS: usize = 1024;

/// Prove every `$assert` of `top` in the Yosys JSON netlist `json`.
pub fn prove(json: &str, top: &str) -> Result<Outcome, String> {
    prove_free(json, top, &Free::default())
}

/// What the evaluation reads as free inputs besides the module's ports: registers (their
/// flip-flops cut off) and wires (their driving logic cut off).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Free {
    pub registers: Vec<String>,
    pub wires: Vec<String>,
}

impl Free {
    pub fn contains(&self, name: &str) -> bool {
        self.registers.iter().chain(&self.wires).any(|n| n == name)
    }

    pub fn is_empty(&self) -> bool {
        self.registers.is_empty() && self.wires.is_empty()
    }
}

/// [`parse`], with the registers and wires named in `free` read as free inputs: their drivers
/// are cut off and their bits become variables after the module inputs (named by the register
/// or wire in a counterexample). An assertion proven so holds for every value of them,
/// reachable or not: the combinational logic around a state register (a scrambler's output
/// and next state from its state and input) is proven for every state, a loop's step for every
/// value it is fed. A free register must be one (every bit a flip-flop's output).
fn parse_free(json: &str, top: &str, free: &Free) -> Result<Netlist, String> {
    let mut net = parse(json, top)?;
    for name in &free.registers {
        let bits = net.netnames.get(name).cloned().ok_or_else(|| format!("{top}: the free register {name} is not a wire of the gate netlist"))?;
        for b in &bits {
            match b {
                Bit::Net(m) if net.driver.get(m).is_some_and(|(ci, port, _)| port == "Q" && net.cells[*ci].kind.contains("DFF")) => {
                    net.driver.remove(m);
                }
                _ => return Err(format!("{top}: {name} is not a register (a bit is not a flip-flop's output)")),
            }
        }
        net.inputs.push((name.clone(), bits));
    }
    for name in &free.wires {
        let bits = net.netnames.get(name).cloned().ok_or_else(|| format!("{top}: the free wire {name} is not a wire of the gate netlist"))?;
        for b in &bits {
            match b {
                Bit::Net(m) if net.driver.contains_key(m) => {
                    net.driver.remove(m);
                }
                _ => return Err(format!("{top}: a bit of the free wire {name} is a module input or a constant, not driven by logic")),
            }
        }
        net.inputs.push((name.clone(), bits));
    }
    Ok(net)
}

/// [`prove`] with the registers and wires `free` read as free inputs ([`parse_free`]).
pub fn prove_free(json: &str, top: &str, free: &Free) -> Result<Outcome, String> {
    let net = parse_free(json, top, free)?;
    if net.asserts.is_empty() {
        return Err(format!("{top}: the netlist has no assertion"));
    }
    if net.cells.iter().any(|c| c.kind.contains("mem")) {
        return Err(format!("{top}: the module holds memories; its properties are proven with SymbiYosys, not by GF(2) evaluation"));
    }
    let roots: Vec<Bit> = net.asserts.iter().flat_map(|&ai| ["A", "EN"].map(|p| net.cells[ai].conns.get(p).and_then(|b| b.first().copied()).unwrap_or(Bit::One))).collect();
    stages(&net, &roots).map_err(|e| format!("{top}: {e}"))?;
    let n = net.width();
    let vars = net.variables();
    let mut sym = Symbolic { net: &net, vars: vars.clone(), n, memo: HashMap::new() };
    let mut open = Vec::new();
    let mut proven = Vec::new();
    for (&ai, name) in net.asserts.iter().zip(&net.assert_names) {
        let en = sym.input(ai, "EN");
        let a = sym.input(ai, "A");
        // Disabled for good, or enabled and the constant 1.
        let holds = matches!((en.as_ref().and_then(|e| sym.is_const(e)), a.as_ref().and_then(|a| sym.is_const(a))), (Some(false), _) | (Some(true), Some(true)));
        if holds {
            proven.push(name.clone());
        } else {
            open.push(ai);
        }
    }
    if open.is_empty() {
        return Ok(Outcome::Proven);
    }
    // Only assertions outside the XOR fragment are open: the probes below cannot prove them and
    // cost a full evaluation per input bit, so on a wide module they are left to the caller's
    // SAT stage. On a narrower one they still run: an equality of two XOR networks that differ
    // in several bits is an OR of affine forms (outside the fragment), and a differing bit is 1
    // on the zero input or a unit input, so the probes find the counterexample SAT would hunt.
    let affine_open = open.iter().any(|&ai| matches!((sym.input(ai, "EN"), sym.input(ai, "A")), (Some(_), Some(_))));
    if !affine_open && n > PROBE_INPUTS {
        return Ok(Outcome::NotProven { reason: format!("{} assertion(s) depend on gates outside the XOR fragment", open.len()), proven });
    }
    // Probe the all-zero input and every unit input.
    let probes = std::iter::once(None).chain((0..n).map(Some));
    for probe in probes {
        let mut x = vec![false; n];
        if let Some(k) = probe {
            x[k] = true;
        }
        let (fails, inputs, outputs) = run(&net, &vars, &x, &open);
        if fails {
            return Ok(Outcome::Counterexample { property: None, inputs, outputs });
        }
    }
    Ok(Outcome::NotProven { reason: format!("{} assertion(s) depend on gates outside the XOR fragment and hold on the {} probe inputs", open.len(), n + 1), proven })
}

/// Most cut bits one assertion may read for [`prove_cut`]: its cone is evaluated on every value
/// of them (2^20 values are 16,384 passes of 64 lanes).
pub const MAX_CUT_BITS: usize = 20;

/// A pin of a gate in an assertion's cone: a constant or the slot of a net.
#[derive(Clone, Copy)]
enum Src {
    Const(bool),
    Slot(usize),
}

/// A net of an assertion's cone: a module input, a cut bit (its index among the cone's cut
/// bits), or a gate.
enum Node {
    Input(usize),
    Cut(usize),
    Gate { kind: String, a: Src, b: Src, s: Src },
}

/// An assertion's cone: its nodes leaves first, the slot of each net, and the cut bits it reads
/// (indices into the cut nets, in the order of their `Node::Cut` numbers).
type Cone = (Vec<Node>, HashMap<u64, usize>, Vec<usize>);

/// Values of ports, LSB first.
type PortValues = Vec<(String, Vec<bool>)>;

/// The cone of `roots` in topological order (leaves first), stopping at inputs and cut nets;
/// `None` when it reaches an undriven net or a gate without a Y output.
fn cone(net: &Netlist, vars: &HashMap<u64, usize>, cut: &HashMap<u64, usize>, roots: &[Bit]) -> Option<Cone> {
    let mut slot: HashMap<u64, usize> = HashMap::new();
    let mut nodes = Vec::new();
    let mut cut_bits: Vec<usize> = Vec::new();
    let pin = |slot: &HashMap<u64, usize>, cell: &Cell, p: &str| -> Option<Src> {
        match cell.conns.get(p).and_then(|b| b.first().copied()) {
            None | Some(Bit::Zero) => Some(Src::Const(false)),
            Some(Bit::One) => Some(Src::Const(true)),
            Some(Bit::Undef) => None,
            Some(Bit::Net(m)) => slot.get(&m).map(|&i| Src::Slot(i)),
        }
    };
    for root in roots {
        let Bit::Net(root) = *root else { continue };
        let mut stack = vec![root];
        while let Some(&n) = stack.last() {
            if slot.contains_key(&n) {
                stack.pop();
                continue;
            }
            let node = if let Some(&j) = cut.get(&n) {
                let k = cut_bits.iter().position(|&c| c == j).unwrap_or_else(|| {
                    cut_bits.push(j);
                    cut_bits.len() - 1
                });
                Node::Cut(k)
            } else if let Some(&k) = vars.get(&n) {
                Node::Input(k)
            } else {
                let &(ci, _, _) = net.driver.get(&n)?;
                let cell = &net.cells[ci];
                // A plain register is read as a delay (its D pin), as the GF(2) evaluation
                // reads it once `stages` has found the pipeline feed-forward and balanced.
                let register = cell.kind == REGISTER;
                let pins: &[&str] = if register { &["D"] } else { &["A", "B", "S"] };
                let pending: Vec<u64> = pins
                    .iter()
                    .filter_map(|p| cell.conns.get(*p).and_then(|b| b.first().copied()))
                    .filter_map(|b| if let Bit::Net(m) = b { Some(m) } else { None })
                    .filter(|m| !slot.contains_key(m))
                    .collect();
                if !pending.is_empty() {
                    stack.extend(pending);
                    continue;
                }
                if register {
                    Node::Gate { kind: "$_BUF_".into(), a: pin(&slot, cell, "D")?, b: Src::Const(false), s: Src::Const(false) }
                } else {
                    Node::Gate { kind: cell.kind.clone(), a: pin(&slot, cell, "A")?, b: pin(&slot, cell, "B")?, s: pin(&slot, cell, "S")? }
                }
            };
            slot.insert(n, nodes.len());
            nodes.push(node);
            stack.pop();
        }
    }
    Some((nodes, slot, cut_bits))
}

/// Most cut bits an assertion outside the [`linear_parts`] fragment may read: its cone is
/// evaluated once per value of them.
pub const MAX_VALUE_BITS: usize = 12;

/// An assertion whose cone selects among different linear maps by the cut (a multiplication by
/// one of several matrices, chosen by a pad count), decided one cut value at a time: with the
/// cut bits `cut_bits` set to the value, every net of the cone is an affine form over the
/// inputs, so the assertion is the constant 1 (or disabled) for every input, or an affine form
/// that is 0 for some input. `Ok(None)`: it holds for every cut value; `Ok(Some(x))`: an input
/// reaching a failing cut value and failing there (the cut's affine forms and the assertion's
/// form solved together); `Err`: outside the fragment even with the cut fixed, or failing only
/// at a cut value no input reaches.
fn per_cut_value(net: &Netlist, vars: &HashMap<u64, usize>, n: usize, cut_bits: &[u64], ai: usize) -> Result<Option<Vec<bool>>, String> {
    let mut free = Symbolic { net, vars: vars.clone(), n, memo: HashMap::new() };
    for value in 0..1u64 << cut_bits.len() {
        let mut sym = Symbolic { net, vars: vars.clone(), n, memo: HashMap::new() };
        for (k, &m) in cut_bits.iter().enumerate() {
            let c = sym.constant(value >> k & 1 == 1);
            sym.memo.insert(m, Some(c));
        }
        let en = sym.input(ai, "EN").ok_or("its enable is outside the XOR fragment with the cut fixed")?;
        match sym.is_const(&en) {
            Some(false) => continue,
            Some(true) => {}
            None => return Err("its enable depends on the module inputs".into()),
        }
        let a = sym.input(ai, "A").ok_or_else(|| format!("outside the XOR fragment with the cut fixed at {value}"))?;
        if sym.is_const(&a) == Some(true) {
            continue;
        }
        // Fails where the cut takes the value and the assertion's form is 0.
        let mut rows = vec![a];
        for (k, &m) in cut_bits.iter().enumerate() {
            let mut f = free.net_form(m).ok_or("fails at a cut value, and the cut is not affine in the inputs")?;
            if value >> k & 1 == 1 {
                f.flip(n);
            }
            rows.push(f);
        }
        return solve(rows, n).map(Some).ok_or_else(|| format!("fails only at the cut value {value}, which no input reaches"));
    }
    Ok(None)
}

/// The linear part over the inputs of every node of a cone (`None`: it depends on the cut bits
/// only), or the reason the cone leaves the fragment [`prove_cut`] decides: a gate other than
/// XOR, XNOR, NOT and buffers with an input that depends on the module inputs (a MUX may, when
/// both data inputs have the same linear part and the select does not).
fn linear_parts(nodes: &[Node], n: usize) -> Result<Vec<Option<BitVec>>, String> {
    let mut lin: Vec<Option<BitVec>> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let l = match node {
            Node::Input(k) => Some(BitVec::unit(n, *k)),
            Node::Cut(_) => None,
            Node::Gate { kind, a, b, s } => {
                let of = |p: &Src| match p {
                    Src::Const(_) => None,
                    Src::Slot(i) => lin[*i].clone(),
                };
                let (la, lb, ls) = (of(a), of(b), of(s));
                match kind.as_str() {
                    "$_BUF_" | "$_NOT_" => la,
                    "$_XOR_" | "$_XNOR_" => match (la, lb) {
                        (None, x) | (x, None) => x,
                        (Some(mut x), Some(y)) => {
                            x.xor_assign(&y);
                            (!x.is_zero()).then_some(x)
                        }
                    },
                    "$_AND_" | "$_NAND_" | "$_OR_" | "$_NOR_" | "$_ANDNOT_" | "$_ORNOT_" if la.is_none() && lb.is_none() => None,
                    "$_MUX_" if ls.is_none() && la == lb => la,
                    "$_AND_" | "$_NAND_" | "$_OR_" | "$_NOR_" | "$_ANDNOT_" | "$_ORNOT_" | "$_MUX_" => return Err(format!("a {kind} gate reads the module inputs, not only the cut")),
                    other => return Err(format!("a {other} cell is not a gate this evaluation knows")),
                }
            }
        };
        lin.push(l);
    }
    Ok(lin)
}

/// One pass over the cone for 64 values of the cut bits (lane l of `chunk` is the cut value
/// `64·chunk + l`): the part of every node that depends on the cut (inputs contribute 0).
fn cut_words(nodes: &[Node], chunk: u64, words: &mut [u64]) {
    const LANES: [u64; 6] = [0xAAAA_AAAA_AAAA_AAAA, 0xCCCC_CCCC_CCCC_CCCC, 0xF0F0_F0F0_F0F0_F0F0, 0xFF00_FF00_FF00_FF00, 0xFFFF_0000_FFFF_0000, 0xFFFF_FFFF_0000_0000];
    for (i, node) in nodes.iter().enumerate() {
        let w = match node {
            Node::Input(_) => 0,
            Node::Cut(j) if *j < 6 => LANES[*j],
            Node::Cut(j) => 0u64.wrapping_sub((chunk >> (j - 6)) & 1),
            Node::Gate { kind, a, b, s } => {
                let v = |p: &Src| match p {
                    Src::Const(c) => 0u64.wrapping_sub(u64::from(*c)),
                    Src::Slot(k) => words[*k],
                };
                let (a, b, s) = (v(a), v(b), v(s));
                match kind.as_str() {
                    "$_BUF_" => a,
                    "$_NOT_" => !a,
                    "$_XOR_" => a ^ b,
                    "$_XNOR_" => !(a ^ b),
                    "$_AND_" => a & b,
                    "$_NAND_" => !(a & b),
                    "$_OR_" => a | b,
                    "$_NOR_" => !(a | b),
                    "$_ANDNOT_" => a & !b,
                    "$_ORNOT_" => a | !b,
                    _ => (a & !s) | (b & s),
                }
            }
        };
        words[i] = w;
    }
}

/// An input `x` with `rows[j](x) = 0` for every j (each row an affine form: bit `n` its
/// constant, the wanted value already folded in), or `None` when the system has no solution.
fn solve(rows: Vec<BitVec>, n: usize) -> Option<Vec<bool>> {
    let mut pivots: Vec<(usize, BitVec)> = Vec::new();
    for mut r in rows {
        for (p, pr) in &pivots {
            if r.get(*p) {
                r.xor_assign(pr);
            }
        }
        let lead = r.iter_ones().find(|&c| c < n);
        match lead {
            Some(p) => pivots.push((p, r)),
            // 1 = 0 left: no solution; 0 = 0: the row was implied.
            None if r.get(n) => return None,
            None => {}
        }
    }
    let mut x = BitVec::zeros(n + 1);
    for (p, r) in pivots.iter().rev() {
        let mut v = r.clone();
        v.set(*p, false);
        v.set(n, false);
        // r·(x, 1) = 0 with x[p] unknown: x[p] = const ^ (the rest of the row)·x.
        x.set(*p, r.get(n) ^ v.dot(&x));
    }
    Some((0..n).map(|k| x.get(k)).collect())
}

/// The inputs and outputs of `net` on input `x`, and whether an open assertion fails there.
fn run(net: &Netlist, vars: &HashMap<u64, usize>, x: &[bool], open: &[usize]) -> (bool, PortValues, PortValues) {
    let val = concrete(net, vars, x);
    let value = |b: Bit| match b {
        Bit::Zero => Some(false),
        Bit::One => Some(true),
        Bit::Undef => None,
        Bit::Net(m) => vars.get(&m).map(|&k| x[k]).or_else(|| val.get(&m).copied().flatten()),
    };
    let fails = open.iter().any(|&ai| {
        let pin = |p: &str| net.cells[ai].conns.get(p).and_then(|b| b.first().copied()).and_then(value);
        pin("EN") == Some(true) && pin("A") == Some(false)
    });
    let port_values = |ports: &[(String, Vec<Bit>)]| ports.iter().map(|(name, bs)| (name.clone(), bs.iter().map(|&b| value(b).unwrap_or(false)).collect())).collect();
    (fails, port_values(&net.inputs), port_values(&net.outputs))
}

/// Prove the assertions of `top` not in `skip` over the cut points `cuts` (wires of the
/// module): each assertion's cone is evaluated from the module inputs and the cut wires' bits,
/// the cut bits free (so the proof covers every value they could take). A node is an affine
/// form over the inputs plus a function of the cut bits; AND, OR and MUX selects may only read
/// functions of the cut. For every value of the cut bits the cone reads (at most
/// [`MAX_CUT_BITS`], 64 values per pass) the assertion must be the constant 1. This is the
/// decoder's shape: its syndromes (the cut) feed the decision, and `cw` reaches the outputs only
/// through XORs. A failure is turned into a module input by solving the cut's affine forms for
/// the failing cut value (the cut is then reached by a real input), and confirmed by concrete
/// evaluation. An assertion outside this fragment, with more cut bits, or failing only at a cut
/// value no input reaches is left open (`NotProven`), never reported proven. The registers and
/// wires `free` are free inputs as in [`prove_free`] (a free register may also be a cut: its
/// bits are then enumerated).
pub fn prove_cut(json: &str, top: &str, free: &Free, cuts: &[String], skip: &[String]) -> Result<Outcome, String> {
    let net = parse_free(json, top, free)?;
    let n = net.width();
    let vars = net.variables();
    let mut cut: HashMap<u64, usize> = HashMap::new();
    let mut cut_nets: Vec<u64> = Vec::new();
    for c in cuts {
        let bits = net.netnames.get(c).ok_or_else(|| format!("{top}: the cut point {c} is not a wire of the gate netlist"))?;
        for b in bits {
            if let Bit::Net(m) = b {
                cut.entry(*m).or_insert_with(|| {
                    cut_nets.push(*m);
                    cut_nets.len() - 1
                });
            }
        }
    }
    let mut sym = Symbolic { net: &net, vars: vars.clone(), n, memo: HashMap::new() };
    let mut proven: Vec<String> = skip.to_vec();
    let mut open_reasons = Vec::new();
    for (&ai, name) in net.asserts.iter().zip(&net.assert_names) {
        if skip.contains(name) {
            continue;
        }
        let pins: Vec<Bit> = ["A", "EN"].iter().map(|p| net.cells[ai].conns.get(*p).and_then(|b| b.first().copied()).unwrap_or(Bit::One)).collect();
        let Some((nodes, slot, cut_bits)) = cone(&net, &vars, &cut, &pins) else {
            open_reasons.push(format!("{name}: its cone reaches an undriven net"));
            continue;
        };
        if cut_bits.len() > MAX_CUT_BITS {
            open_reasons.push(format!("{name}: it reads {} cut bits (at most {MAX_CUT_BITS} are enumerated)", cut_bits.len()));
            continue;
        }
        let lin = match linear_parts(&nodes, n) {
            Ok(l) => l,
            Err(e) if cut_bits.len() > MAX_VALUE_BITS => {
                open_reasons.push(format!("{name}: {e}, and it reads {} cut bits (at most {MAX_VALUE_BITS} are evaluated one value at a time)", cut_bits.len()));
                continue;
            }
            Err(_) => {
                let bits: Vec<u64> = cut_bits.iter().map(|&j| cut_nets[j]).collect();
                match per_cut_value(&net, &vars, n, &bits, ai) {
                    Ok(None) => proven.push(name.clone()),
                    Ok(Some(x)) => {
                        let (fails, inputs, outputs) = run(&net, &vars, &x, &[ai]);
                        if fails {
                            return Ok(Outcome::Counterexample { property: Some(name.clone()), inputs, outputs });
                        }
                        open_reasons.push(format!("{name}: fails at a cut value; the input solved for it does not fail"));
                    }
                    Err(e) => open_reasons.push(format!("{name}: {e}")),
                }
                continue;
            }
        };
        let src = |b: Bit| match b {
            Bit::Net(m) => Src::Slot(slot[&m]),
            other => Src::Const(other == Bit::One),
        };
        let (a, en) = (src(pins[0]), src(pins[1]));
        let lin_of = |p: Src| if let Src::Slot(i) = p { lin[i].clone() } else { None };
        if lin_of(en).is_some() {
            open_reasons.push(format!("{name}: its enable depends on the module inputs"));
            continue;
        }
        let values = 1u64 << cut_bits.len();
        let valid = if values >= 64 { u64::MAX } else { (1u64 << values) - 1 };
        let mut words = vec![0u64; nodes.len()];
        let word = |words: &[u64], p: Src| match p {
            Src::Const(c) => 0u64.wrapping_sub(u64::from(c)),
            Src::Slot(i) => words[i],
        };
        let mut failing = None;
        for chunk in 0..values.div_ceil(64) {
            cut_words(&nodes, chunk, &mut words);
            // An assertion with a linear part fails for some input wherever it is enabled.
            let fail = if lin_of(a).is_some() { word(&words, en) } else { word(&words, en) & !word(&words, a) } & valid;
            if fail != 0 {
                let lane = u64::from(fail.trailing_zeros());
                failing = Some((chunk * 64 + lane, word(&words, a) >> lane & 1 == 1));
                break;
            }
        }
        let Some((value, a_word)) = failing else {
            proven.push(name.clone());
            continue;
        };
        // An input reaching that cut value (and, with a linear part, making the assertion 0).
        let mut rows = Vec::new();
        for (k, &j) in cut_bits.iter().enumerate() {
            let Some(mut f) = sym.net_form(cut_nets[j]) else {
                open_reasons.push(format!("{name}: fails with the cut free, and the cut is not affine in the inputs"));
                rows.clear();
                break;
            };
            // f(x) = bit k of the value: f(x) ^ value_k = 0.
            if value >> k & 1 == 1 {
                f.flip(n);
            }
            rows.push(f);
        }
        if rows.len() != cut_bits.len() {
            continue;
        }
        if let Some(l) = lin_of(a) {
            // The assertion l·x ^ a_word is 0.
            let mut f = BitVec::zeros(n + 1);
            for k in l.iter_ones() {
                f.set(k, true);
            }
            f.set(n, a_word);
            rows.push(f);
        }
        let Some(x) = solve(rows, n) else {
            open_reasons.push(format!("{name}: fails only at a cut value no input reaches"));
            continue;
        };
        let (fails, inputs, outputs) = run(&net, &vars, &x, &[ai]);
        if !fails {
            open_reasons.push(format!("{name}: fails with the cut free; the input solved for it does not fail"));
            continue;
        }
        return Ok(Outcome::Counterexample { property: Some(name.clone()), inputs, outputs });
    }
    if open_reasons.is_empty() {
        Ok(Outcome::Proven)
    } else {
        Ok(Outcome::NotProven { reason: open_reasons.join("; "), proven })
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    /// y = a ^ b built from XORs; the assertion compares it with a reference.
    fn netlist(reference_gate: &str) -> String {
        format!(
            r#"{{"modules": {{"m": {{
            "ports": {{"a": {{"direction": "input", "bits": [2]}}, "b": {{"direction": "input", "bits": [3]}}, "y": {{"direction": "output", "bits": [4]}}}},
            "cells": {{
              "x": {{"type": "$_XOR_", "connections": {{"A": [2], "B": [3], "Y": [4]}}}},
              "r": {{"type": "{reference_gate}", "connections": {{"A": [2], "B": [3], "Y": [5]}}}},
              "d": {{"type": "$_XOR_", "connections": {{"A": [4], "B": [5], "Y": [6]}}}},
              "n": {{"type": "$_NOT_", "connections": {{"A": [6], "Y": [7]}}}},
              "c": {{"type": "$assert", "connections": {{"A": [7], "EN": ["1"]}}}}
            }}}}}}}}"#
        )
    }

    #[test]
    fn an_equal_xor_is_proven_and_a_wrong_one_gives_a_counterexample() {
        assert_eq!(prove(&netlist("$_XOR_"), "m"), Ok(Outcome::Proven));
        match prove(&netlist("$_XNOR_"), "m").expect("parses") {
            Outcome::Counterexample { inputs, .. } => assert_eq!(inputs.len(), 2),
            other => panic!("{other:?}"),
        }
        // Outside the affine fragment the result is never "proven": a counterexample among the
        // zero and unit inputs (a ^ b against a & b differ at a = 1, b = 0), else "not proven"
        // (left to SAT; a ^ b against a | b differ only at a = b = 1).
        match prove(&netlist("$_AND_"), "m") {
            Ok(Outcome::Counterexample { inputs, .. }) => assert_eq!(inputs, [("a".to_string(), vec![true]), ("b".to_string(), vec![false])]),
            other => panic!("$_AND_: {other:?}"),
        }
        match prove(&netlist("$_OR_"), "m") {
            Ok(Outcome::NotProven { proven, .. }) => assert!(proven.is_empty()),
            other => panic!("$_OR_: {other:?}"),
        }
    }
    /// y = s ? x0 ^ x1 : x0 (two linear maps selected by the cut wire s = x2), against the
    /// reference x0 ^ (s & `term`).
    fn select_netlist(term: u32) -> String {
        format!(
            r#"{{"modules": {{"m": {{
            "ports": {{"x": {{"direction": "input", "bits": [2, 3, 4]}}, "y": {{"direction": "output", "bits": [6]}}}},
            "cells": {{
              "s": {{"type": "$_BUF_", "connections": {{"A": [4], "Y": [9]}}}},
              "t": {{"type": "$_XOR_", "connections": {{"A": [2], "B": [3], "Y": [5]}}}},
              "y": {{"type": "$_MUX_", "connections": {{"A": [2], "B": [5], "S": [9], "Y": [6]}}}},
              "g": {{"type": "$_AND_", "connections": {{"A": [9], "B": [{term}], "Y": [7]}}}},
              "r": {{"type": "$_XOR_", "connections": {{"A": [2], "B": [7], "Y": [8]}}}},
              "d": {{"type": "$_XNOR_", "connections": {{"A": [6], "B": [8], "Y": [10]}}}},
              "p_y": {{"type": "$assert", "connections": {{"A": [10], "EN": ["1"]}}}}
            }},
            "netnames": {{"s": {{"bits": [9]}}}}}}}}}}"#
        )
    }

    #[test]
    fn maps_selected_by_the_cut_are_proven_one_value_at_a_time_and_a_wrong_one_gives_an_input() {
        let cuts = ["s".to_string()];
        assert_eq!(prove_cut(&select_netlist(3), "m", &Free::default(), &cuts, &[]), Ok(Outcome::Proven));
        match prove_cut(&select_netlist(4), "m", &Free::default(), &cuts, &[]).expect("parses") {
            // x0 ^ x1 against x0 ^ x2 with s = x2 = 1: differ where x1 = 0.
            Outcome::Counterexample { inputs, .. } => assert_eq!(inputs[0].1[1..], [false, true], "{inputs:?}"),
            other => panic!("{other:?}"),
        }
    }

    /// y = g ^ c with the wire g = a & b, against the reference g ^ `other` (a second read of g).
    fn free_wire_netlist(other: u32) -> String {
        format!(
            r#"{{"modules": {{"m": {{
            "ports": {{"a": {{"direction": "input", "bits": [2]}}, "b": {{"direction": "input", "bits": [3]}}, "c": {{"direction": "input", "bits": [4]}}, "y": {{"direction": "output", "bits": [6]}}}},
            "cells": {{
              "g": {{"type": "$_AND_", "connections": {{"A": [2], "B": [3], "Y": [5]}}}},
              "y": {{"type": "$_XOR_", "connections": {{"A": [5], "B": [4], "Y": [6]}}}},
              "r": {{"type": "$_XOR_", "connections": {{"A": [{other}], "B": [5], "Y": [7]}}}},
              "d": {{"type": "$_XNOR_", "connections": {{"A": [6], "B": [7], "Y": [8]}}}},
              "p_y": {{"type": "$assert", "connections": {{"A": [8], "EN": ["1"]}}}}
            }},
            "netnames": {{"g": {{"bits": [5]}}, "a": {{"bits": [2]}}}}}}}}}}"#
        )
    }

    #[test]
    fn a_step_over_a_free_wire_is_proven_for_every_value_of_it_and_a_wrong_one_names_it() {
        let free = Free { registers: vec![], wires: vec!["g".into()] };
        // g = a & b is outside the XOR fragment; with g free the XOR around it is affine.
        assert!(matches!(prove(&free_wire_netlist(4), "m"), Ok(Outcome::NotProven { .. })));
        assert_eq!(prove_free(&free_wire_netlist(4), "m", &free), Ok(Outcome::Proven));
        match prove_free(&free_wire_netlist(2), "m", &free).expect("parses") {
            Outcome::Counterexample { inputs, .. } => assert!(inputs.iter().any(|(n, _)| n == "g"), "{inputs:?}"),
            other => panic!("{other:?}"),
        }
        // A module input is no wire to cut.
        let input = Free { registers: vec![], wires: vec!["a".into()] };
        assert!(prove_free(&free_wire_netlist(4), "m", &input).is_err());
    }

    /// y = x2 ^ (s & t) over the cut wires s = x0 ^ x1 and t = x1 ^ x2, against a reference
    /// built with `gate` in place of the AND (operands swapped).
    fn cut_netlist(gate: &str) -> String {
        format!(
            r#"{{"modules": {{"m": {{
            "ports": {{"x": {{"direction": "input", "bits": [2, 3, 4]}}, "y": {{"direction": "output", "bits": [8]}}}},
            "cells": {{
              "s": {{"type": "$_XOR_", "connections": {{"A": [2], "B": [3], "Y": [5]}}}},
              "t": {{"type": "$_XOR_", "connections": {{"A": [3], "B": [4], "Y": [6]}}}},
              "g": {{"type": "$_AND_", "connections": {{"A": [5], "B": [6], "Y": [7]}}}},
              "y": {{"type": "$_XOR_", "connections": {{"A": [4], "B": [7], "Y": [8]}}}},
              "rg": {{"type": "{gate}", "connections": {{"A": [6], "B": [5], "Y": [9]}}}},
              "ry": {{"type": "$_XOR_", "connections": {{"A": [9], "B": [4], "Y": [10]}}}},
              "d": {{"type": "$_XNOR_", "connections": {{"A": [8], "B": [10], "Y": [11]}}}},
              "p_y": {{"type": "$assert", "connections": {{"A": [11], "EN": ["1"]}}}}
            }},
            "netnames": {{"s": {{"bits": [5]}}, "t": {{"bits": [6]}}}}}}}}}}"#
        )
    }

    #[test]
    fn a_decision_after_a_cut_is_proven_by_enumerating_the_cut_and_a_wrong_one_gives_an_input() {
        let cuts = ["s".to_string(), "t".to_string()];
        // The AND of two non-constant forms is outside the XOR fragment: GF(2) alone leaves it.
        assert!(matches!(prove(&cut_netlist("$_AND_"), "m"), Ok(Outcome::NotProven { .. })));
        assert_eq!(prove_cut(&cut_netlist("$_AND_"), "m", &Free::default(), &cuts, &[]), Ok(Outcome::Proven));
        match prove_cut(&cut_netlist("$_OR_"), "m", &Free::default(), &cuts, &[]).expect("parses") {
            Outcome::Counterexample { property, inputs, .. } => {
                assert_eq!(property.as_deref(), Some("p_y"));
                // The input reaches a cut value where AND and OR differ: s != t.
                let x = &inputs[0].1;
                assert_ne!(x[0] ^ x[1], x[1] ^ x[2], "{inputs:?}");
            }
            other => panic!("{other:?}"),
        }
        // A wire that is no cut point of the netlist is an error, not a proof.
        assert!(prove_cut(&cut_netlist("$_AND_"), "m", &Free::default(), &["nope".to_string()], &[]).is_err());
    }

    /// y = a ^ b registered once; the reference XORs the inputs delayed by `ra` and `rb`
    /// registers (`loop_back`: the first delay register of `a` reads its own output instead).
    fn pipe_netlist(ra: usize, rb: usize, loop_back: bool) -> String {
        let mut cells = vec![
            r#""x": {"type": "$_XOR_", "connections": {"A": [2], "B": [3], "Y": [4]}}"#.to_string(),
            r#""q": {"type": "$_DFF_P_", "connections": {"C": [1], "D": [4], "Q": [5]}}"#.to_string(),
        ];
        let mut next = 10;
        let mut chain = |from: u64, n: usize, cells: &mut Vec<String>, first_loops: bool| -> u64 {
            let mut at = from;
            for k in 0..n {
                let d = if k == 0 && first_loops { next } else { at };
                cells.push(format!(r#""r{next}": {{"type": "$_DFF_P_", "connections": {{"C": [1], "D": [{d}], "Q": [{next}]}}}}"#));
                at = next;
                next += 1;
            }
            at
        };
        let da = chain(2, ra, &mut cells, loop_back);
        let db = chain(3, rb, &mut cells, false);
        cells.push(format!(r#""r": {{"type": "$_XOR_", "connections": {{"A": [{da}], "B": [{db}], "Y": [6]}}}}"#));
        cells.push(r#""d": {"type": "$_XNOR_", "connections": {"A": [5], "B": [6], "Y": [7]}}"#.to_string());
        cells.push(r#""p_y": {"type": "$assert", "connections": {"A": [7], "EN": ["1"]}}"#.to_string());
        format!(
            r#"{{"modules": {{"m": {{"ports": {{"clk": {{"direction": "input", "bits": [1]}}, "a": {{"direction": "input", "bits": [2]}}, "b": {{"direction": "input", "bits": [3]}}, "y": {{"direction": "output", "bits": [5]}}}}, "cells": {{{}}}}}}}}}"#,
            cells.join(", ")
        )
    }

    #[test]
    fn a_balanced_pipeline_is_read_through_and_unbalanced_or_looping_ones_are_refused() {
        assert_eq!(prove(&pipe_netlist(1, 1, false), "m"), Ok(Outcome::Proven));
        assert_eq!(register_stages(&pipe_netlist(1, 1, false), "m"), Ok(1));
        // One input taken a cycle late: with held inputs it agrees, so only the stage count shows it.
        let e = prove(&pipe_netlist(1, 2, false), "m").expect_err("unbalanced");
        assert!(e.contains("not balanced"), "{e}");
        let e = prove(&pipe_netlist(1, 1, true), "m").expect_err("a loop");
        assert!(e.contains("not feed-forward"), "{e}");
    }

    #[test]
    fn linear_systems_are_solved_and_inconsistent_ones_refused() {
        // x0 ^ x1 = 1, x1 = 1 (rows: bits 0..2 the variables, bit 2 the constant).
        let row = |bits: &[usize]| {
            let mut v = BitVec::zeros(3);
            for &b in bits {
                v.set(b, true);
            }
            v
        };
        assert_eq!(solve(vec![row(&[0, 1, 2]), row(&[1, 2])], 2), Some(vec![false, true]));
        assert_eq!(solve(vec![row(&[0]), row(&[0, 2])], 2), None);
    }
}
