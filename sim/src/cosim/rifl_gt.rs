//! The transceiver-width parts of a RIFL node (`gt_bits`) against their models:
//!
//! * `lane_aligner` ([`lane_aligner`]): the unaligned word stream of legal frames cut at every
//!   bit offset of the frame boundary (each from reset until locked and some frames past it),
//!   then one long stream with faults: SYN bit errors, bursts of illegal SYNs that unlock,
//!   bit errors anywhere, a Syncword look-alike in the payload, runs of garbage words. Every
//!   output compared after every edge.
//! * `gt_tx_width` ([`gt_tx_width`]): `clk` and `tx_fast_clk` of one source driven edge by edge
//!   (an edge both share is one evaluation with both clocks rising), the fast clock started at
//!   every phase against `clk`, random frames; `tx_fast_data` compared after every edge.

use super::{Options, Tally};
use crate::{Bench, Dut, SimError, TestRng};
use rtl_gen::bits::Bits;
use rtl_gen::blocks::rifl::model::align::{words_of, LaneAligner};
use rtl_gen::blocks::rifl::model::codec::{SYN_CTRL, SYN_DATA};
use rtl_gen::blocks::rifl::model::gtwidth::TxGtConverter;
use rtl_gen::blocks::rifl::RiflClockParams;
use rtl_gen::elab::ElabModule;

fn shape(m: &ElabModule) -> Result<(RiflClockParams, u32), SimError> {
    let cp = super::kind_params::<RiflClockParams>(m)?;
    let w = cp.gt_bits.ok_or_else(|| SimError::Design { message: format!("module {}: no gt_bits", m.name()) })?;
    Ok((cp, w))
}

/// Frames with a legal SYN (one control frame in three) and random other bits.
fn frames(f: usize, n: usize, rng: &mut TestRng) -> Vec<Bits> {
    (0..n)
        .map(|k| {
            let mut fr = rng.bits(f);
            fr.set_field(0, 2, if k % 3 == 0 { SYN_CTRL } else { SYN_DATA } as u64);
            fr
        })
        .collect()
}

/// One edge with `word`; every output compared.
fn aligner_edge(dut: &mut Dut, model: &mut LaneAligner, word: &Bits, t: &mut Tally) -> Result<(), SimError> {
    dut.set("gt_data", word)?;
    dut.tick();
    model.edge(word);
    let c = t.cycles;
    t.compare(c, "frame_valid", model.out_valid, dut.get_u64("frame_valid")? == 1);
    t.compare(c, "aligned", model.locked, dut.get_u64("aligned")? == 1);
    if model.out_valid {
        t.compare_bits(c, "frame", &model.out_frame, &dut.get("frame")?);
    }
    t.vectors += 1;
    t.cycles += 1;
    Ok(())
}

/// `lane_aligner`: every bit offset, then faults.
pub fn lane_aligner(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let (cp, w) = shape(m)?;
    let f = cp.frame_bits as usize;
    let mut dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    let mut t = Tally::default();
    let sent = frames(f, 4 * f + 200, rng);
    for offset in 0..f {
        dut.reset(2)?;
        let mut model = LaneAligner::new(cp.frame_bits, w, cp.control_repeat);
        let mut past_lock = 0;
        for word in words_of(&sent, w, offset, false) {
            aligner_edge(&mut dut, &mut model, &word, &mut t)?;
            past_lock += usize::from(model.locked && model.out_valid);
            if past_lock > 12 {
                break;
            }
        }
        t.compare(t.cycles, &format!("locked from bit offset {offset}"), true, model.locked);
    }
    // Faults on one long stream.
    dut.reset(2)?;
    let mut model = LaneAligner::new(cp.frame_bits, w, cp.control_repeat);
    let n = (opts.vectors as usize / (f / w as usize)).clamp(2000, 50_000);
    let mut stream = frames(f, n, rng);
    let mut k = 0;
    while k < n {
        match rng.range(0, 99) {
            0..=5 => stream[k].flip(rng.range(0, 1) as usize),
            6 => {
                // A burst of illegal SYNs long enough to unlock.
                for fr in stream.iter_mut().skip(k).take(cp.control_repeat as usize + 1) {
                    fr.set_field(0, 2, 0b11);
                }
                k += cp.control_repeat as usize;
            }
            7..=12 => stream[k].flip(rng.range(2, f as u64 - 1) as usize),
            13..=15 => {
                // A Syncword look-alike in the payload for a while.
                let at = rng.range(2, f as u64 - 3) as usize;
                for fr in stream.iter_mut().skip(k).take(40) {
                    fr.set_field(at, 2, SYN_DATA as u64);
                }
            }
            16 => stream[k] = rng.bits(f),
            _ => {}
        }
        k += 1;
    }
    let offset = rng.range(0, f as u64 - 1) as usize;
    for word in words_of(&stream, w, offset, true) {
        aligner_edge(&mut dut, &mut model, &word, &mut t)?;
    }
    t.compare(t.cycles, "slips taken in the fault run", true, model.slips > 0);
    Ok(t)
}

/// `gt_tx_width`: both clocks edge by edge; every phase of the fast clock at the start.
pub fn gt_tx_width(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let (cp, w) = shape(m)?;
    let f = cp.frame_bits as usize;
    let r = f / w as usize;
    let mut dut = Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))?;
    let low = dut.port("rst_n").is_ok();
    let (clk, fast) = (dut.port("clk")?, dut.port("tx_fast_clk")?);
    let rsts = if low { [dut.port("rst_n")?, dut.port("tx_fast_rst_n")?] } else { [dut.port("rst")?, dut.port("tx_fast_rst")?] };
    let mut t = Tally::default();
    let cycles = (opts.vectors as usize / r).max(200);
    for start in 0..r {
        // Both domains in reset for two clk cycles, then released.
        for &p in &rsts {
            dut.set_port_u64(p, u64::from(!low))?;
        }
        for _ in 0..2 * r {
            dut.set_port_u64(fast, 1)?;
            dut.eval();
            dut.set_port_u64(fast, 0)?;
            dut.eval();
        }
        dut.clock_edge(clk, true)?;
        dut.clock_edge(clk, false)?;
        for &p in &rsts {
            dut.set_port_u64(p, u64::from(low))?;
        }
        dut.eval();
        let mut model = TxGtConverter::new(cp.frame_bits, w);
        let mut frame = rng.bits(f);
        dut.set("frame", &frame)?;
        let compare = |dut: &Dut, model: &TxGtConverter, t: &mut Tally| -> Result<(), SimError> {
            let c = t.cycles;
            t.compare_bits(c, "tx_fast_data", &model.out, &dut.get("tx_fast_data")?);
            t.vectors += 1;
            t.cycles += 1;
            Ok(())
        };
        // `start` fast cycles before the first clk edge: any phase out of reset.
        for _ in 0..start {
            dut.clock_edge(fast, true)?;
            model.fast_edge(&frame);
            compare(&dut, &model, &mut t)?;
            dut.clock_edge(fast, false)?;
        }
        for _ in 0..cycles {
            // The edge both clocks share: one evaluation, both rising.
            dut.set_port_u64(clk, 1)?;
            dut.set_port_u64(fast, 1)?;
            dut.eval();
            model.fast_edge(&frame);
            model.clk_edge();
            compare(&dut, &model, &mut t)?;
            // The clk register takes a new frame at its edge.
            frame = rng.bits(f);
            dut.set("frame", &frame)?;
            dut.eval();
            for k in 1..2 * r {
                // Half fast periods: falling at odd k, rising at even; clk falls half way.
                if k == r {
                    dut.set_port_u64(clk, 0)?;
                }
                let rising = k % 2 == 0;
                dut.clock_edge(fast, rising)?;
                if rising {
                    model.fast_edge(&frame);
                    compare(&dut, &model, &mut t)?;
                }
            }
        }
    }
    Ok(t)
}
