//! Driving a module that is a function of its inputs, combinational or pipelined: the shape of
//! every CRC, checker, encoder and decoder the generator emits. Each vector names its input
//! values and the outputs the model expects for them.

use super::Tally;
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::elab::ElabModule;
use std::collections::VecDeque;

/// One input vector and the model's outputs for it.
pub struct Vector {
    pub inputs: Vec<(&'static str, Bits)>,
    pub outputs: Vec<(&'static str, Bits)>,
}

/// Drive `vectors` through `dut`. With `latency` 0 each vector is applied and the outputs read
/// after one evaluation. Otherwise the module is reset and clocked: a vector enters with
/// `in_valid` high (with probability `idle` an idle cycle with random inputs comes first) and its
/// outputs must appear with `out_valid` exactly `latency` cycles later; `out_valid` is compared
/// every cycle, so spurious or missing outputs count too.
pub fn drive(dut: &mut Dut, latency: u64, vectors: impl Iterator<Item = Vector>, idle: f64, rng: &mut TestRng, tally: &mut Tally) -> Result<(), SimError> {
    if latency == 0 {
        for (i, v) in vectors.enumerate() {
            for (p, value) in &v.inputs {
                dut.set(p, value)?;
            }
            dut.eval();
            for (p, want) in &v.outputs {
                tally.compare_bits(i as u64, p, want, &dut.get(p)?);
            }
            tally.vectors += 1;
        }
        return Ok(());
    }
    // Garbage in flight before reset must not come out after it.
    dut.set_u64("in_valid", 1)?;
    dut.ticks(2);
    dut.reset(2)?;
    let mut pending: VecDeque<(u64, Vec<(&'static str, Bits)>)> = VecDeque::new();
    let mut cycle = 0u64;
    let mut vectors = vectors.peekable();
    let mut widths: Vec<(&'static str, usize)> = Vec::new();
    loop {
        let next = if vectors.peek().is_some() && !rng.chance(idle) { vectors.next() } else { None };
        if next.is_none() && vectors.peek().is_none() && pending.is_empty() {
            break;
        }
        match next {
            Some(v) => {
                if widths.is_empty() {
                    widths = v.inputs.iter().map(|(p, b)| (*p, b.width())).collect();
                }
                for (p, value) in &v.inputs {
                    dut.set(p, value)?;
                }
                dut.set_u64("in_valid", 1)?;
                pending.push_back((cycle + latency, v.outputs));
                tally.vectors += 1;
            }
            None => {
                dut.set_u64("in_valid", 0)?;
                for (p, w) in &widths {
                    dut.set(p, &rng.bits(*w))?;
                }
            }
        }
        dut.eval();
        let due = pending.front().is_some_and(|(c, _)| *c == cycle);
        let valid = dut.get_u64("out_valid")? == 1;
        tally.compare(cycle, "out_valid", due, valid);
        if due {
            let (_, outs) = pending.pop_front().expect("due");
            if valid {
                for (p, want) in &outs {
                    tally.compare_bits(cycle, p, want, &dut.get(p)?);
                }
            }
        }
        dut.tick();
        cycle += 1;
    }
    tally.cycles += cycle;
    Ok(())
}

/// Build module `m` of `bench` and drive `vectors` through it at its latency, with idle cycles
/// one time in five when it is pipelined.
pub fn run(bench: &Bench, m: &ElabModule, vectors: impl Iterator<Item = Vector>, rng: &mut TestRng) -> Result<Tally, SimError> {
    let mut dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    let mut tally = Tally::default();
    drive(&mut dut, m.latency as u64, vectors, 0.2, rng, &mut tally)?;
    Ok(tally)
}
