//! ReCXL drivers: the replica map (every line value class against `MapShape::map`, the one Rust
//! function every model uses) and the logging unit (lockstep with its cycle-accurate model).

use super::{Options, Tally};
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::blocks::recxl_replica_map::map::NodeMask;
use rtl_gen::blocks::recxl_replica_map::RecxlReplicaMapBlock;
use rtl_gen::elab::ElabModule;

/// The replica map: every 16-bit fold value (lines 0..2^16, or all lines when LA < 16) with a
/// random failed mask, every failed mask (N <= 12) for a few lines, then `opts.vectors` random
/// full-width lines with masks of 0, 1, R−1, R and random failures.
pub fn replica_map(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let own = super::own_block(m)?;
    let b = super::downcast::<RecxlReplicaMapBlock>(&own, m)?;
    let mut dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    let mut tally = Tally::default();
    check_map(&mut dut, b, opts.vectors, rng, &mut tally)?;
    Ok(tally)
}

/// The stimulus and comparison of [`replica_map`] on an already built `dut`.
pub fn check_map(dut: &mut Dut, b: &RecxlReplicaMapBlock, random: u64, rng: &mut TestRng, tally: &mut Tally) -> Result<(), SimError> {
    let shape = b.shape();
    let (n, r) = (shape.num_nodes, shape.replicas);
    let nb = shape.node_bits() as usize;
    let la = b.line_addr_bits();
    let line_mask = if la >= 64 { u64::MAX } else { (1u64 << la) - 1 };
    let random_mask = |rng: &mut TestRng, p: f64| {
        let mut m = NodeMask::empty();
        for i in 0..n {
            if rng.chance(p) {
                m.set(i);
            }
        }
        m
    };
    let mut vectors: Vec<(u64, NodeMask)> = Vec::new();
    let folds = 1u64 << la.min(16);
    for line in 0..folds {
        let p = if line % 4 == 0 { 0.0 } else { 0.3 };
        vectors.push((line, random_mask(rng, p)));
    }
    if n <= 12 {
        for line in [0u64, 1, 0x1234 & line_mask, line_mask] {
            for mask in 0..(1u64 << n) {
                vectors.push((line, NodeMask::from_u64(mask)));
            }
        }
    }
    for i in 0..random {
        let line = rng.range(0, u64::MAX) & line_mask;
        let mask = match i % 4 {
            0 => NodeMask::empty(),
            1 => NodeMask::empty().with(rng.range(0, n as u64 - 1) as u32),
            2 => {
                // Every member of the group but one (R − 1 failures), or all of them.
                let set = shape.map(line, &NodeMask::empty());
                let keep = if rng.chance(0.5) { Some(rng.range(0, r as u64 - 1) as usize) } else { None };
                let mut m = NodeMask::empty();
                for (j, c) in set.nodes.iter().enumerate() {
                    if Some(j) != keep {
                        m.set(*c);
                    }
                }
                m
            }
            _ => random_mask(rng, 0.5),
        };
        vectors.push((line, mask));
    }
    for (i, (line, mask)) in vectors.iter().enumerate() {
        dut.set("line", &Bits::from_u64(*line, la as usize))?;
        dut.set("failed_mask", &Bits::from_bytes_width(&mask.to_bytes(n), n as usize))?;
        dut.eval();
        let want = shape.map(*line, mask);
        let mut nodes = Bits::zeros(r as usize * nb);
        for (j, c) in want.nodes.iter().enumerate() {
            nodes.set_field(j * nb, nb, *c as u64);
        }
        let c = i as u64;
        tally.compare_bits(c, "replica_nodes", &nodes, &dut.get("replica_nodes")?);
        tally.compare(c, "dump_slot", want.dump_slot as u64, dut.get_u64("dump_slot")?);
        tally.compare(c, "dump_node_valid", want.dump_node.is_some() as u64, dut.get_u64("dump_node_valid")?);
        if let Some(d) = want.dump_node {
            tally.compare(c, "dump_node", d as u64, dut.get_u64("dump_node")?);
        }
        tally.vectors += 1;
    }
    Ok(())
}
