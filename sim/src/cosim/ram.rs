//! RAM wrappers ([`rtl_gen::hw::ram`]), cycle by cycle against an array model: random writes
//! and reads (reads mostly of written addresses, with and without the read enable and the
//! output register's enable, same-edge write and read of one address), `rd_data` compared
//! whenever the model knows the word (a word never written has no value: the wrapper has no
//! reset, as an SRAM macro has none; with the output register, a read of the address written
//! at its edge has none either: the contract leaves it undefined).

use super::{Options, Tally};
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::elab::ElabModule;

/// The wrapper's model: the words written so far, the read register and the output register.
struct RamModel {
    words: Vec<Option<Bits>>,
    rd_q: Option<Bits>,
    rd_out_q: Option<Bits>,
}

pub fn ram(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let param = |k: &str| m.params.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone()).unwrap_or_default();
    let number = |k: &str| param(k).as_u64().ok_or_else(|| SimError::Design { message: format!("{}: no {k} parameter", m.name()) });
    let width = number("width")? as usize;
    let depth = number("depth")?;
    let sync = param("read").as_str() == Some("sync");
    let out_reg = sync && param("output_register").as_bool() == Some(true);
    let mut dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    let (wr_en, wr_addr, wr_data, rd_addr, rd_data) = (dut.port("wr_en")?, dut.port("wr_addr")?, dut.port("wr_data")?, dut.port("rd_addr")?, dut.port("rd_data")?);
    let rd_en = if sync { Some(dut.port("rd_en")?) } else { None };
    let rd_out_en = if out_reg { Some(dut.port("rd_out_en")?) } else { None };
    let mut model = RamModel { words: vec![None; depth as usize], rd_q: None, rd_out_q: None };
    let mut tally = Tally::default();
    let mut written: Vec<u64> = Vec::new();
    let cycles = opts.vectors.max(64);
    for _ in 0..cycles {
        let we = rng.chance(0.5) || written.is_empty();
        let wa = rng.range(0, depth - 1);
        let wd = rng.bits(width);
        let re = rng.chance(0.8);
        let oe = rng.chance(0.8);
        let ra = match written.len() {
            0 => rng.range(0, depth - 1),
            n if rng.chance(0.8) => written[rng.range(0, n as u64 - 1) as usize],
            _ => if rng.chance(0.5) { wa } else { rng.range(0, depth - 1) },
        };
        dut.set_port_u64(wr_en, u64::from(we))?;
        dut.set_port_u64(wr_addr, wa)?;
        dut.set_port(wr_data, &wd)?;
        dut.set_port_u64(rd_addr, ra)?;
        if let Some(p) = rd_en {
            dut.set_port_u64(p, u64::from(re))?;
        }
        if let Some(p) = rd_out_en {
            dut.set_port_u64(p, u64::from(oe))?;
        }
        if !sync {
            dut.eval();
            if let Some(w) = &model.words[ra as usize] {
                tally.compare_bits(dut.cycle(), "rd_data", w, &dut.get_port(rd_data)?);
            }
        }
        dut.tick();
        if out_reg && oe {
            model.rd_out_q = model.rd_q.clone();
        }
        // Read-first: the read register takes the word before this edge's write (with the
        // output register, a read of the address written at its edge is undefined).
        if sync && re {
            model.rd_q = if out_reg && we && wa == ra { None } else { model.words[ra as usize].clone() };
        }
        if we {
            model.words[wa as usize] = Some(wd);
            if !written.contains(&wa) {
                written.push(wa);
            }
        }
        if sync {
            if let Some(q) = if out_reg { &model.rd_out_q } else { &model.rd_q } {
                tally.compare_bits(dut.cycle(), "rd_data", q, &dut.get_port(rd_data)?);
            }
        }
        tally.cycles += 1;
        tally.vectors += 1;
    }
    Ok(tally)
}
