//! Properties of the replica map: its outputs equal a reference written from the model
//! ([`super::model::MapShape::map`]) as the model states it, not as the generator builds it:
//! the fold as one flat masked parity per bit of f, the residues with Verilog's `%` (the
//! generator reduces by chunk-residue tables and restoring subtraction), the group slot by slot
//! as (g + j) mod N, the dump candidates as (g + (k + i) mod R) mod N and the first live one by
//! a priority chain over the failed mask. Pipelined, the reference reads the inputs its latency
//! earlier (plain shadow delay registers), checked once the pipeline has filled: the registers
//! are feed-forward, so k-induction at a depth above the latency closes.

use super::RecxlReplicaMapBlock;
use crate::hw::build::{add, and, dec, eq, id, mux, or};
use crate::hw::props::Formal;
use crate::hw::verilog::{BinOp, Expr, Item};
use crate::math::gf2::BitVec;

/// Width of the reference's hash wires (f is the XOR of 16-bit chunks).
const F_BITS: u32 = 16;

/// Width of the reference's node and slot sums: g + j < N + R ≤ 264 (smaller dividers for the
/// solver than the hash's 16 bits).
const S_BITS: u32 = 9;

/// `x % m`, the constant `width` bits wide.
fn modulo(x: Expr, m: u32, width: u32) -> Expr {
    Expr::bin(BinOp::Mod, x, dec(width, m.into()))
}

fn modulo_s(x: Expr, m: u32) -> Expr {
    modulo(x, m, S_BITS)
}

fn low(name: &str, w: u32) -> Expr {
    Expr::slice(name, w - 1, 0)
}

/// A reference wire `name` (`width` bits) = `value`.
fn wire(f: &mut Formal, name: &str, width: u32, value: Expr, doc: &str) -> Expr {
    f.items.push(Item::wire(name, width, doc));
    f.items.push(Item::assign(id(name), value));
    id(name)
}

/// The `ifdef FORMAL` block of the map: `p_replica_nodes`, `p_dump_slot`, `p_dump_valid`,
/// `p_dump_node` (the in-charge node when some member is alive).
pub fn map(b: &RecxlReplicaMapBlock) -> Item {
    let shape = b.shape();
    let (n, r) = (shape.num_nodes, shape.replicas);
    let (nb, sb) = (shape.node_bits(), shape.slot_bits());
    let la = b.line_addr_bits();
    let stages = b.pipeline();
    let mut f = Formal::default();
    let line = f.delayed("line", la, id("line"), stages);
    let mask = f.delayed("mask", n, id("failed_mask"), stages);
    let mask_name = match &mask {
        Expr::Ident(s) => s.clone(),
        _ => "failed_mask".to_string(),
    };
    // f bit j: the parity of line bits j, j + 16, j + 32, …
    // f has at most as many bits as the line (its bits above are zero): the residues are taken
    // over `hw` bits, small dividers for a short line.
    let fw = F_BITS.min(la);
    let hw = fw.max(S_BITS);
    let fold: Vec<Expr> = (0..fw)
        .rev()
        .map(|j| {
            let mut m = BitVec::zeros(la as usize);
            (j..la).step_by(F_BITS as usize).for_each(|i| m.set(i as usize, true));
            Expr::parity(line.clone(), m, false)
        })
        .collect();
    let fv = wire(&mut f, "f_ref_f", fw, Expr::Concat(fold), "reference: XOR of the 16-bit chunks of the line, one masked parity per bit");
    wire(&mut f, "f_ref_g_mod", hw, modulo(fv, n, hw), &format!("reference: g = f mod {n}"));
    let g = wire(&mut f, "f_ref_g", S_BITS, Expr::slice("f_ref_g_mod", S_BITS - 1, 0), "g (below N)");
    let shifted = if fw > nb { Expr::Concat(vec![dec(nb, 0), Expr::slice("f_ref_f", fw - 1, nb)]) } else { dec(fw, 0) };
    wire(&mut f, "f_ref_k_mod", hw, modulo(shifted, r, hw), &format!("reference: the dump slot k = (f >> {nb}) mod {r}"));
    let k = wire(&mut f, "f_ref_k", S_BITS, Expr::slice("f_ref_k_mod", S_BITS - 1, 0), "k (below R)");
    let nodes: Vec<Expr> = (0..r).map(|j| wire(&mut f, &format!("f_ref_node{j}"), S_BITS, modulo_s(add(g.clone(), dec(S_BITS, j.into())), n), &format!("reference: slot {j}'s node (g + {j}) mod {n}"))).collect();
    let cands: Vec<Expr> = (0..r)
        .map(|i| {
            let slot = modulo_s(add(k.clone(), dec(S_BITS, i.into())), r);
            wire(&mut f, &format!("f_ref_cand{i}"), S_BITS, modulo_s(add(g.clone(), slot), n), &format!("reference: the member {i} slots after the dump slot"))
        })
        .collect();
    let alive = |c: &Expr| Expr::Index(mask_name.clone(), Box::new(c.clone())).not();
    let mut node = cands[cands.len() - 1].clone();
    for c in cands.iter().rev().skip(1) {
        node = mux(alive(c), c.clone(), node);
    }
    let valid = cands.iter().map(alive).reduce(or).expect("R >= 2");
    let node = wire(&mut f, "f_ref_dump", S_BITS, node, "reference: the first live member from the dump slot on");
    let filled = if stages > 0 {
        let fill = f.delayed("fill", 1, Expr::one(), stages);
        (1..=stages).for_each(|s| f.init.push((format!("f_fill_d{s}"), Expr::zero())));
        Some(fill)
    } else {
        None
    };
    let low16 = |e: &Expr, w: u32| match e {
        Expr::Ident(s) => low(s, w),
        other => other.clone(),
    };
    let ref_nodes: Vec<Expr> = nodes.iter().rev().map(|e| low16(e, nb)).collect();
    f.assert("p_replica_nodes", "every slot's node is the model's (f mod N + j) mod N", filled.clone(), eq(id("replica_nodes"), Expr::Concat(ref_nodes)));
    f.assert("p_dump_slot", "the dump slot is the model's (f >> NB) mod R", filled.clone(), eq(id("dump_slot"), low16(&k, sb)));
    f.assert("p_dump_valid", "dump_node_valid is 1 exactly when some member of the group is alive", filled.clone(), eq(id("dump_node_valid"), valid.clone()));
    let guard = match filled {
        Some(fl) => and(fl, valid),
        None => valid,
    };
    f.assert("p_dump_node", "with a member alive, dump_node is the model's first live member from the dump slot on", Some(guard), eq(id("dump_node"), low16(&node, nb)));
    Item::Formal(f)
}
