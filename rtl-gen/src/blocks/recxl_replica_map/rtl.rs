//! `recxl_replica_map` as combinational logic, and the same network emitted inside the logging
//! unit (its dump engine needs the in-charge node of every record it traverses).

use super::model::MapShape;
use super::RecxlReplicaMapBlock;
use crate::info::DesignInfo;
use crate::hw::build::{add, bits_for, dec, ge, id, mux, sub, zext};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::pipe::Pipe;
use crate::hw::xor_net::emit_valid_pipe;
use crate::hw::verilog::{Expr, Item, Module, Port};
use crate::math::gf2::BitVec;

/// Wire names of one emitted map, all prefixed.
pub struct MapWires {
    /// Slot j's node, NB bits each.
    pub nodes: Vec<String>,
    /// Dump slot (SB bits).
    pub slot: String,
    /// In-charge live node (NB bits) and whether there is one.
    pub dump_node: String,
    pub dump_valid: String,
}

/// Bits of the residue chunks of [`mod_const`]: a 6-bit chunk's residue is one LUT6 per bit.
const RESIDUE_CHUNK: u32 = 6;

/// `x mod m` for a constant `m` in residue form: x = Σ c_j·2^(6j) over 6-bit chunks c_j, so
/// x mod m = (Σ t_j(c_j)) mod m with t_j(c) = c·2^(6j) mod m a table of one chunk (one LUT level),
/// then the small sum reduced by restoring subtraction. A subtraction chain over all of x instead
/// is what `synth_ecp5` maps to carry chains that ABC cannot collapse (1,952 LUT4, 16 MHz for
/// the default map). A power-of-two `m` is the low bits. Wires `<name>_*`; returns the name of
/// an `xw`-bit wire whose value is below m.
fn mod_const(items: &mut Vec<Item>, name: &str, x: Expr, xw: u32, m: u32) -> String {
    let xn = format!("{name}_x");
    items.push(Item::wire(&xn, xw, ""));
    items.push(Item::assign(id(&xn), x));
    let mb = bits_for(u64::from(m) - 1);
    if xw <= mb {
        return xn;
    }
    let out = format!("{name}_m");
    items.push(Item::wire(&out, xw, &format!("{name} mod {m}")));
    if m.is_power_of_two() {
        items.push(Item::assign(id(&out), zext(Expr::slice(&xn, mb - 1, 0), mb, xw)));
        return out;
    }
    let chunks = xw.div_ceil(RESIDUE_CHUNK);
    let sw = bits_for(u64::from(chunks) * u64::from(m - 1));
    let mut terms = Vec::new();
    for j in 0..chunks {
        let lo = RESIDUE_CHUNK * j;
        let cw = RESIDUE_CHUNK.min(xw - lo);
        let weight = (1u64 << lo) % u64::from(m);
        let t = format!("{name}_t{j}");
        let mut bits = Vec::new();
        for b in (0..mb).rev() {
            let mut table = BitVec::zeros(1 << cw);
            for c in 0..(1u64 << cw) {
                table.set(c as usize, (c * weight % u64::from(m)) >> b & 1 == 1);
            }
            let lp = format!("{}_T{j}_B{b}", name.to_uppercase());
            items.push(Item::Localparam { name: lp.clone(), value: Expr::Const(table), doc: format!("bit {b} of c·2^{lo} mod {m} by chunk c") });
            bits.push(Expr::Index(lp, Box::new(Expr::slice(&xn, lo + cw - 1, lo))));
        }
        items.push(Item::wire(&t, mb, &format!("x[{}:{lo}]·2^{lo} mod {m}", lo + cw - 1)));
        items.push(Item::assign(id(&t), Expr::Concat(bits)));
        terms.push(zext(id(&t), mb, sw));
    }
    let sum = format!("{name}_s");
    items.push(Item::wire(&sum, sw, "sum of the chunk residues"));
    items.push(Item::assign(id(&sum), terms.into_iter().reduce(add).expect("a chunk")));
    let r = mod_restoring(items, name, &sum, sw, m);
    items.push(Item::assign(id(&out), zext(id(&r), sw, xw)));
    out
}

/// Wire `x` (xw bits) mod m by restoring subtraction of m·2^k, k from the top: wires
/// `<name>_r<k>` (xw bits); returns the name of the last one (its value is below m). Used on the
/// small residue sum.
fn mod_restoring(items: &mut Vec<Item>, name: &str, x: &str, xw: u32, m: u32) -> String {
    let mbits = bits_for(m as u64);
    let mut prev = x.to_string();
    if xw < mbits {
        return prev;
    }
    for k in (0..=xw - mbits).rev() {
        let c = (m as u64) << k;
        let w = format!("{name}_r{k}");
        items.push(Item::wire(&w, xw, ""));
        items.push(Item::assign(id(&w), mux(ge(id(&prev), dec(xw, c)), sub(id(&prev), dec(xw, c)), id(&prev))));
        prev = w;
    }
    prev
}

/// `(a + b) mod m` with a, b < m: one conditional subtraction in `w + 1` bits, where `w` is the
/// width of a and b; returns the name of the (w + 1)-bit wire.
fn add_mod(items: &mut Vec<Item>, name: &str, a: Expr, b: Expr, w: u32, m: u32) -> String {
    let s = format!("{name}_s");
    items.push(Item::wire(&s, w + 1, ""));
    items.push(Item::assign(id(&s), add(zext(a, w, w + 1), zext(b, w, w + 1))));
    items.push(Item::wire(name, w + 1, ""));
    items.push(Item::assign(id(name), mux(ge(id(&s), dec(w + 1, m as u64)), sub(id(&s), dec(w + 1, m as u64)), id(&s))));
    name.to_string()
}

/// The low `w` bits of wire `name`.
fn low(name: &str, w: u32) -> Expr {
    Expr::slice(name, w - 1, 0)
}

/// Emits the map of `line` (a `la`-bit expression) under the failed mask `mask` (an N-bit
/// vector name) into `items`, every wire prefixed with `p`. The modulo reductions leave high
/// bits that are always zero; those wires sit between one lint_off/lint_on UNUSED pair.
pub fn emit(items: &mut Vec<Item>, p: &str, shape: MapShape, line: Expr, la: u32, mask: &str) -> MapWires {
    let w = shape.node_bits().max(shape.slot_bits());
    let mut body = Vec::new();
    let (g, k) = emit_hash(&mut body, p, shape, line, la);
    let (nodes, live, slot) = emit_members(&mut body, p, shape, low(&g, w), low(&k, w), &k, 16);
    items.push(Item::pragma("verilator lint_off UNUSED"));
    items.extend(body);
    items.push(Item::pragma("verilator lint_on UNUSED"));
    let nb = shape.node_bits();
    let live: Vec<Expr> = live.iter().map(|l| low(l, nb)).collect();
    let (dump_node, dump_valid) = emit_dump(items, p, nb, &live, mask);
    MapWires { nodes, slot, dump_node, dump_valid }
}

/// The hash: f (XOR of the 16-bit chunks of `line`), g = f mod N and k = (f >> NB) mod R.
/// Returns the names of the 16-bit wires g and k (values below N and R).
fn emit_hash(body: &mut Vec<Item>, p: &str, shape: MapShape, line: Expr, la: u32) -> (String, String) {
    let (n, r) = (shape.num_nodes, shape.replicas);
    let nb = shape.node_bits();
    let chunks = la.div_ceil(16);
    let parts: Vec<Expr> = (0..chunks)
        .map(|c| {
            let lo = 16 * c;
            let hi = (lo + 15).min(la - 1);
            let e = if la == 1 { line.clone() } else { slice_expr(&line, hi, lo) };
            zext(e, hi - lo + 1, 16)
        })
        .collect();
    let f = format!("{p}f");
    body.push(Item::wire(&f, 16, "XOR of the 16-bit chunks of the line address"));
    body.push(Item::assign(id(&f), parts.into_iter().reduce(Expr::xor).expect("a chunk")));
    let g = mod_const(body, &format!("{p}g"), id(&f), 16, n);
    let k = mod_const(body, &format!("{p}k"), Expr::Concat(vec![dec(nb, 0), Expr::slice(&f, 15, nb)]), 16, r);
    (g, k)
}

/// The group from g and k (both `w` bits, w = max(NB, SB)): slot j's node (g + j) mod N, the
/// node of the i-th slot from the dump slot, (g + (k + i) mod R) mod N, and the dump slot
/// (the low SB bits of the `k_bits`-bit wire `k_name`). Returns the (w + 1)-bit node and live-candidate wires
/// and the SB-bit dump-slot wire.
fn emit_members(body: &mut Vec<Item>, p: &str, shape: MapShape, g: Expr, k: Expr, k_name: &str, k_bits: u32) -> (Vec<String>, Vec<String>, String) {
    let (n, r) = (shape.num_nodes, shape.replicas);
    let sb = shape.slot_bits();
    // Both operands of every modular sum are held in `w` bits (nodes and slots alike).
    let w = shape.node_bits().max(sb);
    let mut nodes = Vec::new();
    for j in 0..r {
        nodes.push(add_mod(body, &format!("{p}node{j}"), g.clone(), dec(w, j as u64), w, n));
    }
    let mut live = Vec::new();
    for i in 0..r {
        let s = add_mod(body, &format!("{p}dslot{i}"), k.clone(), dec(w, i as u64), w, r);
        live.push(add_mod(body, &format!("{p}dnode{i}"), g.clone(), low(&s, w), w, n));
    }
    let slot = format!("{p}slot");
    body.push(Item::wire(&slot, sb, "dump slot of the line"));
    body.push(Item::assign(id(&slot), if k_bits == sb { id(k_name) } else { low(k_name, sb) }));
    (nodes, live, slot)
}

/// The dump duty: the first live member from the dump slot on, a priority chain from the last
/// candidate back over the NB-bit candidates `live` (in slot order from the dump slot), and
/// whether any is alive under the failed mask `mask` (a vector name). Returns the two wire names.
fn emit_dump(items: &mut Vec<Item>, p: &str, nb: u32, live: &[Expr], mask: &str) -> (String, String) {
    let dump_node = format!("{p}dump_node");
    let dump_valid = format!("{p}dump_valid");
    let alive = |i: usize| Expr::Index(mask.to_string(), Box::new(live[i].clone())).not();
    let mut node_e = live[live.len() - 1].clone();
    for i in (0..live.len() - 1).rev() {
        node_e = mux(alive(i), live[i].clone(), node_e);
    }
    let valid_e = (0..live.len()).map(alive).reduce(Expr::or).expect("r >= 1");
    items.push(Item::wire(&dump_node, nb, "first live member from the dump slot on"));
    items.push(Item::assign(id(&dump_node), node_e));
    items.push(Item::wire(&dump_valid, 1, "some member is alive"));
    items.push(Item::assign(id(&dump_valid), valid_e));
    (dump_node, dump_valid)
}

/// `e[hi:lo]` where `e` is an identifier or a slice of one.
fn slice_expr(e: &Expr, hi: u32, lo: u32) -> Expr {
    match e {
        Expr::Ident(n) => Expr::slice(n, hi, lo),
        Expr::Slice(n, _, base) => Expr::slice(n, base + hi, base + lo),
        other => panic!("replica map: line must be a name or a slice, not {}", other.render()),
    }
}

/// Wraps items whose modulo wires carry always-zero high bits in one lint_off/lint_on UNUSED pair.
fn push_unused_ok(items: &mut Vec<Item>, body: Vec<Item>) {
    items.push(Item::pragma("verilator lint_off UNUSED"));
    items.extend(body);
    items.push(Item::pragma("verilator lint_on UNUSED"));
}

pub fn module(b: &RecxlReplicaMapBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let shape = b.shape();
    let (n, r) = (shape.num_nodes, shape.replicas);
    let nb = shape.node_bits();
    let sb = shape.slot_bits();
    let w = nb.max(sb);
    let la = b.line_addr_bits();
    let stages = b.params.pipeline;
    let mut ports = Vec::new();
    if stages > 0 {
        ports.extend(clock_ports(design));
        ports.push(Port::input("in_valid", 1, "line and failed_mask valid this cycle"));
    }
    ports.extend([
        Port::input("line", la, "physical line address (byte address >> log2 line_bytes)"),
        Port::input("failed_mask", n, "bit n = CN n has failed"),
        Port::output("replica_nodes", r * nb, "slot j's CN at [NB*j+NB-1 : NB*j]: (f mod N + j) mod N"),
        Port::output("dump_slot", sb, "slot in charge of dumping the line: (f >> NB) mod R"),
        Port::output("dump_node", nb, "first live member from dump_slot on (mod R)"),
        Port::output("dump_node_valid", 1, "0 when every member of the group has failed"),
    ]);
    if stages > 0 {
        ports.push(Port::output("out_valid", 1, &format!("the outputs belong to the line of {stages} cycle(s) ago: in_valid delayed by the latency")));
    }
    let mut pipe = Pipe::new();
    pipe.define("failed_mask", n, 0);
    pipe.items.push(Item::comment(&format!(
        "f = XOR of the 16-bit chunks of line; group = {r} rotating slots from f mod {n}; dump slot (f >> {nb}) mod {r}."
    )));
    // Stage 0: the hash (XOR fold, then both residues).
    let mut body = Vec::new();
    let (g, k) = emit_hash(&mut body, "m_", shape, Expr::id("line"), la);
    push_unused_ok(&mut pipe.items, body);
    let g_lo = pipe.wire("m_g_lo", w, &format!("g = f mod {n}"));
    pipe.items.push(Item::assign(id(&g_lo), low(&g, w)));
    // k < R fits the slot width: held (and registered) in SB bits, widened to W after the cut.
    let k_lo = pipe.wire("m_k_lo", sb, &format!("k = (f >> {nb}) mod {r}"));
    pipe.items.push(Item::assign(id(&k_lo), low(&k, sb)));
    if stages >= 2 {
        pipe.cut();
    }
    // The group members and the dump candidates from g and k.
    let (gq, kq) = (pipe.expr(&g_lo), pipe.at(&k_lo));
    let mut body = Vec::new();
    let (nodes, live, slot) = emit_members(&mut body, "m_", shape, gq, zext(id(&kq), sb, w), &kq, sb);
    push_unused_ok(&mut pipe.items, body);
    pipe.define(&slot, sb, pipe.stage());
    for (j, node) in nodes.iter().enumerate() {
        let rn = pipe.wire(&format!("m_rn{j}"), nb, &format!("slot {j}'s node"));
        pipe.items.push(Item::assign(id(&rn), low(node, nb)));
    }
    for (i, cand) in live.iter().enumerate() {
        let lv = pipe.wire(&format!("m_live{i}"), nb, &format!("dump candidate {i} slots from the dump slot"));
        pipe.items.push(Item::assign(id(&lv), low(cand, nb)));
    }
    if stages >= 1 {
        pipe.cut();
    }
    // The dump duty under the failed mask.
    let live_e: Vec<Expr> = (0..r).map(|i| pipe.expr(&format!("m_live{i}"))).collect();
    let mask = pipe.at("failed_mask");
    let (dump_node, dump_valid) = emit_dump(&mut pipe.items, "m_", nb, &live_e, &mask);
    let rn: Vec<Expr> = (0..r).rev().map(|j| pipe.expr(&format!("m_rn{j}"))).collect();
    let slot_e = pipe.expr(&slot);
    pipe.items.push(Item::assign(id("replica_nodes"), if rn.len() == 1 { rn[0].clone() } else { Expr::Concat(rn) }));
    pipe.items.push(Item::assign(id("dump_slot"), slot_e));
    pipe.items.push(Item::assign(id("dump_node"), id(&dump_node)));
    pipe.items.push(Item::assign(id("dump_node_valid"), id(&dump_valid)));
    let mut items = pipe.finish();
    if stages > 0 {
        emit_valid_pipe(&mut items, "valid_pipe", "in_valid", "out_valid", stages);
    }
    items.push(super::props::map(b));
    let timing = match stages {
        0 => "Combinational (pipeline = 0).".to_string(),
        1 => "Latency 1 cycle (pipeline = 1): one register stage after the group members and dump candidates; the dump choice under failed_mask (delayed with them) follows it. One line per cycle.".to_string(),
        _ => "Latency 2 cycles (pipeline = 2): register stages after the hash (g, k) and after the group members and dump candidates; failed_mask is delayed to the dump choice. One line per cycle.".to_string(),
    };
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: (stages > 0).then_some(design.reset) },
        role: Role::ReplicaMap,
        latency: stages,
        summary: format!(
            "ReCXL replica map (contract §4.9): the {r} CNs of {n} that log every update of a line (rotating groups from an XOR-fold hash of the line address, paper §III-A), and the live member in charge of dumping it (paper §IV-E)."
        ),
        notes: vec![
            timing,
            "The identical Rust function is rtl_gen::blocks::recxl_replica_map::model::MapShape::map.".into(),
            "The writer logs in its own unit when it is a member of the line's group (U2): the set depends on the address only.".into(),
        ],
        origin: None,
    }
}
