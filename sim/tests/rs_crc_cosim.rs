//! Every `rs_crc` module of the default design (the PCIe 6.0 / CXL 3 flit CRC over GF(2^8) with
//! the Implicit Sequence Number) in Verilator against the model: random flits and seqs, every
//! seq value with the checker rejecting every wrong expected seq, and every burst length
//! 1..=64 at every start position detected by the checker.

mod common;

use common::{bench, scaled, TestResult};
use rtl_gen::blocks::rs_crc::RsCrcBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::{Bits, Dut, Scoreboard, TestRng};

#[test]
fn flit_crc_matches_the_model_and_catches_bursts_and_wrong_seqs() -> TestResult {
    let bench = bench();
    let blocks = bench.blocks::<RsCrcBlock>();
    assert!(!blocks.is_empty(), "the default design has a flit CRC");
    for b in blocks.into_iter().filter(|b| b.pipeline == 0 && b.checker) {
        let test = format!("rs_crc_{}", b.name);
        let mut rng = TestRng::for_test(&test)?;
        let model = b.model();
        let (data_bits, crc_bits) = (b.data_bits() as usize, b.crc_bits() as usize);
        let seq_mask = if b.seq_bits == 0 { 0 } else { (1u64 << b.seq_bits) - 1 };
        let mut dut = bench.dut(&b.name, Role::Crc, &test)?;
        let mut chk = bench.dut(&b.name, Role::CrcCheck, &format!("{test}_check"))?;
        let set_seq = |d: &mut Dut, seq: u64| -> TestResult {
            if b.seq_bits > 0 {
                d.set_u64("seq", seq)?;
            }
            Ok(())
        };

        // Random flits: generator and checker (half of the CRCs corrupted in one bit).
        let mut sb: Scoreboard<Vec<u8>> = Scoreboard::new(format!("{} crc", b.name)).with_seed(rng.seed()).with_wave(dut.wave_path());
        for i in 0..scaled(100_000) as u64 {
            let data = rng.bytes(data_bits / 8);
            let seq = rng.range(0, seq_mask);
            let crc = model.crc(&data, seq);
            dut.set("data", &Bits::from_bytes(&data))?;
            set_seq(&mut dut, seq)?;
            dut.eval();
            sb.push_expected(i, crc.clone())?;
            sb.push_actual(i, dut.get("crc")?.to_bytes())?;
            let mut crc_in = Bits::from_bytes_width(&crc, crc_bits);
            let corrupt = rng.chance(0.5);
            if corrupt {
                let k = rng.range(0, crc_bits as u64 - 1) as usize;
                crc_in.set(k, !crc_in.get(k));
            }
            chk.set("data", &Bits::from_bytes(&data))?;
            set_seq(&mut chk, seq)?;
            chk.set("crc_in", &crc_in)?;
            chk.eval();
            assert_eq!(chk.get_u64("ok")? == 1, !corrupt, "{}: checker verdict on flit {i} (seed {:#x})", b.name, rng.seed());
        }
        sb.finish()?;

        // Every seq: the generator matches, the checker accepts only the sender's seq.
        if b.seq_bits > 0 {
            let data = rng.bytes(data_bits / 8);
            chk.set("data", &Bits::from_bytes(&data))?;
            dut.set("data", &Bits::from_bytes(&data))?;
            let true_seq = rng.range(0, seq_mask);
            chk.set("crc_in", &Bits::from_bytes_width(&model.crc(&data, true_seq), crc_bits))?;
            let mut rejected = 0;
            for seq in 0..=seq_mask {
                set_seq(&mut dut, seq)?;
                dut.eval();
                assert_eq!(dut.get("crc")?.to_bytes(), model.crc(&data, seq), "{}: seq {seq}", b.name);
                set_seq(&mut chk, seq)?;
                chk.eval();
                let ok = chk.get_u64("ok")? == 1;
                assert_eq!(ok, seq == true_seq, "{}: sent with seq {true_seq}, checked against {seq}", b.name);
                rejected += !ok as u64;
            }
            assert_eq!(rejected, seq_mask, "every wrong expected seq rejected");
        }

        // Every burst of 1..=64 bits at every start in the data: one random burst pattern each
        // (first and last bit flipped), always detected.
        let data = rng.bytes(data_bits / 8);
        let seq = rng.range(0, seq_mask);
        let crc = Bits::from_bytes_width(&model.crc(&data, seq), crc_bits);
        set_seq(&mut chk, seq)?;
        chk.set("crc_in", &crc)?;
        let clean = Bits::from_bytes(&data);
        let mut bursts = 0u64;
        for len in 1..=64usize {
            for start in 0..=data_bits - len {
                let mut hit = clean.clone();
                for k in 0..len {
                    let flip = k == 0 || k + 1 == len || rng.chance(0.5);
                    if flip {
                        hit.set(start + k, !hit.get(start + k));
                    }
                }
                chk.set("data", &hit)?;
                chk.eval();
                assert_eq!(chk.get_u64("ok")?, 0, "{}: a {len}-bit burst at data bit {start} escaped (seed {:#x})", b.name, rng.seed());
                bursts += 1;
            }
        }
        println!("{}: {} random flits, {} seqs, {bursts} bursts of 1..=64 bits all detected in RTL", b.name, scaled(100_000), seq_mask + 1);
    }
    Ok(())
}
