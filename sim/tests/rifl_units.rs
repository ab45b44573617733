//! Every sub-module of the default design's RIFL blocks in Verilator against the model, cycle by
//! cycle: the CRC, the frame encoder and checker, the scrambler pair, one lane's transmitter
//! (all six states, the retransmission procedure, flow-control frames), one lane's receiver
//! (Listing 1, the control monitor, out of sync), the flow-control buffer and both gearboxes.

mod rifl_common;

use rifl_common::*;
use rtl_gen::blocks::rifl::model::codec::{Codec, Ctrl, SYN_CTRL, SYN_DATA};
use rtl_gen::blocks::rifl::model::fifo::Fifo;
use rtl_gen::blocks::rifl::model::gearbox::Gearbox;
use rtl_gen::blocks::rifl::model::rx::RxLane;
use rtl_gen::blocks::rifl::model::scrambler::{Descrambler, Scrambler};
use rtl_gen::blocks::rifl::model::tx::{TxIn, TxLane, TxState};
use rtl_gen::blocks::rifl::model::{Params, Wide};
use rtl_gen_sim::{Bits, Dut, Scoreboard, TestRng};

fn random_wide(rng: &mut TestRng, len: usize) -> Wide {
    wide(&rng.bits(len))
}

/// A raw region as a user segment could be: meta 01/10/11 with payload bytes (the partial one
/// with its format code), or a filler.
fn random_raw(rng: &mut TestRng, c: &Codec) -> Wide {
    let s = c.p.payload_bytes();
    let bytes = rng.bytes(s);
    match rng.range(0, 3) {
        0 => c.data_raw(1, &bytes),
        1 => c.data_raw(3, &bytes),
        2 => {
            let k = rng.range(1, s as u64 - 1) as usize;
            let mut b = bytes[..k].to_vec();
            b.resize(s - 1, 0);
            b.push(k as u8);
            c.data_raw(2, &b)
        }
        _ => Wide::zeros(c.p.raw_bits()),
    }
}

#[test]
fn codec_modules_match_the_model() -> TestResult {
    let (design, tree) = default_design();
    for name in ["rifl", "rifl4"] {
        let b = rifl_block(&design, name);
        let p = b.params;
        let c = Codec::new(p);
        let test = format!("rifl_codec_{name}");
        let mut rng = TestRng::for_test(&test)?;
        let mut crc = Dut::build_named(&tree, &design.module_name(name, "_crc"), &format!("{test}_crc"))?;
        let mut enc = Dut::build_named(&tree, &design.module_name(name, "_encode"), &format!("{test}_encode"))?;
        let mut chk = Dut::build_named(&tree, &design.module_name(name, "_check"), &format!("{test}_check"))?;
        let mut sb = Scoreboard::new(format!("{name} codec")).with_seed(rng.seed());
        let (mut rejected, mut accepted) = (0u64, 0u64);
        let n = scaled(20_000);
        for i in 0..n {
            let line = random_wide(&mut rng, p.raw_bits());
            let syn = if rng.chance(0.5) { SYN_DATA } else { SYN_CTRL };
            let fid = rng.range(0, p.id_mask() as u64) as u32;
            // CRC module: {payload, 5'b0, syn[1], meta} from the line {meta, payload}.
            let mut msg = Bits::zeros(p.crc_msg_bits());
            msg.set_slice(0, &bits(&line.slice(p.payload_bits(), 2)));
            msg.set(2, syn == SYN_CTRL);
            msg.set_slice(8, &bits(&line.slice(0, p.payload_bits())));
            crc.set("data", &msg)?;
            crc.eval();
            sb.push_expected(i, ("crc", c.crc(syn == SYN_CTRL, &line) as u64))?;
            sb.push_actual(i, ("crc", crc.get_u64("crc")?))?;
            // Encoder.
            enc.set_u64("syn", syn as u64)?;
            enc.set("line", &bits(&line))?;
            enc.set_u64("id", fid as u64)?;
            enc.eval();
            let frame = enc.get("frame")?;
            let expected = c.encode(syn, &line, fid);
            assert_eq!(wide(&frame), expected, "{name}: encode vector {i} (seed {:#x})", rng.seed());
            // Checker: the frame as sent, with 0..3 flipped bits, an illegal SYN, or checked
            // against another frame ID.
            let mut rx = expected.clone();
            let mut rx_id = fid;
            match rng.range(0, 5) {
                0 | 1 => {}
                2 => {
                    for _ in 0..rng.range(1, 3) {
                        rx.flip(rng.range(0, p.frame_width() as u64 - 1) as usize);
                    }
                }
                3 => rx.set_field(0, 2, if rng.chance(0.5) { 0 } else { 3 }),
                _ => rx_id = (fid + rng.range(1, p.id_mask() as u64) as u32) & p.id_mask(),
            }
            chk.set("frame", &bits(&rx))?;
            chk.set_u64("id", rx_id as u64)?;
            chk.eval();
            let m = c.check(&rx, rx_id);
            sb.push_expected(i, ("legal", m.legal as u64))?;
            sb.push_actual(i, ("legal", chk.get_u64("legal")?))?;
            sb.push_expected(i, ("ok", m.ok as u64))?;
            sb.push_actual(i, ("ok", chk.get_u64("ok")?))?;
            if m.ok {
                accepted += 1;
            } else {
                rejected += 1;
            }
        }
        sb.finish()?;
        assert!(accepted > n / 4 && rejected > n / 4, "{name}: {accepted} accepted, {rejected} rejected");
    }
    Ok(())
}

#[test]
fn scramblers_match_the_model() -> TestResult {
    let (design, tree) = default_design();
    let p = rifl_block(&design, "rifl").params;
    let mut rng = TestRng::for_test("rifl_scramblers")?;
    for descramble in [false, true] {
        let suffix = if descramble { "_descrambler" } else { "_scrambler" };
        let mut dut = Dut::build_named(&tree, &design.module_name("rifl", suffix), &format!("rifl{suffix}"))?;
        dut.reset(1)?;
        let mut tx = Scrambler::new();
        let mut rx = Descrambler::new();
        let mut sb = Scoreboard::new(format!("rifl{suffix}")).with_seed(rng.seed());
        for c in 0..scaled(20_000) {
            let en = rng.chance(0.8);
            let din = random_wide(&mut rng, p.raw_bits());
            dut.set_u64("en", en as u64)?;
            dut.set("din", &bits(&din))?;
            dut.eval();
            // The output is combinational in din and the state: the model on a copy when the
            // state must not advance.
            let expected = match (descramble, en) {
                (false, true) => tx.scramble(&din),
                (false, false) => tx.clone().scramble(&din),
                (true, true) => rx.descramble(&din),
                (true, false) => rx.clone().descramble(&din),
            };
            sb.push_expected(c, expected)?;
            sb.push_actual(c, wide(&dut.get("dout")?))?;
            dut.tick();
        }
        sb.finish()?;
    }
    Ok(())
}

/// A slowly changing random flag: toggles with probability `p_on` when low, `p_off` when high.
struct Flag {
    v: bool,
    p_on: f64,
    p_off: f64,
}

impl Flag {
    fn new(p_on: f64, p_off: f64) -> Flag {
        Flag { v: false, p_on, p_off }
    }
    fn step(&mut self, rng: &mut TestRng) -> bool {
        if rng.chance(if self.v { self.p_off } else { self.p_on }) {
            self.v = !self.v;
        }
        self.v
    }
}

#[test]
fn tx_lane_matches_the_model() -> TestResult {
    let (design, tree) = default_design();
    let p = rifl_block(&design, "rifl").params;
    let c = Codec::new(p);
    let test = "rifl_tx_lane";
    let mut rng = TestRng::for_test(test)?;
    let mut dut = Dut::build_named(&tree, &design.module_name("rifl", "_tx"), test)?;
    dut.reset(2)?;
    let mut m = TxLane::new(p);
    let mut oos = Flag::new(0.0005, 0.05);
    let mut pause = Flag::new(0.0005, 0.02);
    let mut retr = Flag::new(0.002, 0.01);
    let mut ferr = Flag::new(0.002, 0.02);
    let mut rfc = Flag::new(0.003, 0.01);
    let mut high = Flag::new(0.003, 0.01);
    let mut low = Flag::new(0.01, 0.01);
    let mut seen = std::collections::HashSet::new();
    let (mut starts, mut user) = (0u64, 0u64);
    let mut sb = Scoreboard::new("rifl_tx").with_seed(rng.seed()).with_wave(dut.wave_path());
    for cyc in 0..scaled(60_000) {
        let seg = random_raw(&mut rng, &c);
        let mut i = TxIn {
            en: rng.chance(0.9),
            out_of_sync: oos.step(&mut rng),
            pause_req: pause.step(&mut rng),
            retrans_req: retr.step(&mut rng),
            frame_error: ferr.step(&mut rng),
            remote_fc: rfc.step(&mut rng),
            fc_high: high.step(&mut rng),
            fc_low: low.step(&mut rng),
            seg_take: false,
            seg_raw: &seg,
        };
        for (port, v) in [
            ("en", i.en),
            ("out_of_sync", i.out_of_sync),
            ("pause_req", i.pause_req),
            ("retrans_req", i.retrans_req),
            ("frame_error", i.frame_error),
            ("remote_fc", i.remote_fc),
            ("fc_high", i.fc_high),
            ("fc_low", i.fc_low),
            ("seg_take", false),
        ] {
            dut.set_u64(port, v as u64)?;
        }
        dut.set("seg_raw", &bits(&seg))?;
        dut.eval();
        let comb = m.comb(&i);
        seen.insert(comb.state);
        sb.push_expected(cyc, format!("state {:?} seg_ready {} start {} pause_ev {}", comb.state, comb.seg_ready, comb.retrans_start, comb.pause_event))?;
        let st = TxState::from_code(dut.get_u64("state")?).expect("state code 0..5");
        sb.push_actual(
            cyc,
            format!("state {st:?} seg_ready {} start {} pause_ev {}", dut.get_u64("seg_ready")? == 1, dut.get_u64("retrans_start")? == 1, dut.get_u64("pause_event")? == 1),
        )?;
        i.seg_take = i.en && comb.seg_ready && rng.chance(0.7);
        dut.set_u64("seg_take", i.seg_take as u64)?;
        starts += comb.retrans_start as u64;
        user += i.seg_take as u64;
        dut.tick();
        m.tick(&i);
        sb.push_expected(cyc, format!("frame {:?}", m.frame))?;
        sb.push_actual(cyc, format!("frame {:?}", wide(&dut.get("tx_frame")?)))?;
    }
    sb.finish()?;
    assert_eq!(seen.len(), 6, "every TX state visited: {seen:?}");
    assert!(starts >= 5 && user > 1000, "{starts} procedures, {user} user segments");
    Ok(())
}

#[test]
fn rx_lane_matches_the_model() -> TestResult {
    let (design, tree) = default_design();
    let p = rifl_block(&design, "rifl").params;
    let c = Codec::new(p);
    let test = "rifl_rx_lane";
    let mut rng = TestRng::for_test(test)?;
    let mut dut = Dut::build_named(&tree, &design.module_name("rifl", "_rx"), test)?;
    dut.reset(2)?;
    let mut m = RxLane::new(p);
    // The frames come from a model transmitter whose flags follow this receiver's (so it
    // retransmits when told), corrupted on the way.
    let mut src = TxLane::new(p);
    let mut far_retr = Flag::new(0.0, 0.0);
    let mut sb = Scoreboard::new("rifl_rx").with_seed(rng.seed()).with_wave(dut.wave_path());
    let (mut delivered, mut corrupted) = (0u64, 0u64);
    for cyc in 0..scaled(80_000) {
        // The far transmitter retransmits while this receiver has a frame error.
        far_retr.v = m.frame_error;
        let seg = random_raw(&mut rng, &c);
        let en = rng.chance(0.9);
        let ti = TxIn {
            en,
            out_of_sync: false,
            pause_req: false,
            retrans_req: far_retr.v,
            frame_error: false,
            remote_fc: false,
            fc_high: false,
            fc_low: false,
            seg_take: false,
            seg_raw: &seg,
        };
        let take = src.comb(&ti).seg_ready && rng.chance(0.8);
        let ti = TxIn { seg_take: take, ..ti };
        let mut frame = src.frame.clone();
        src.tick(&ti);
        match rng.range(0, 3999) {
            0..=4 => {
                frame.flip(rng.range(0, p.frame_width() as u64 - 1) as usize);
                corrupted += 1;
            }
            5 => {
                frame.set_field(0, 2, 0);
                corrupted += 1;
            }
            6 => {
                frame = random_wide(&mut rng, p.frame_width());
                corrupted += 1;
            }
            7 => frame = c.encode(SYN_CTRL, &c.to_line(&c.control_raw(Ctrl::PauseRequest)), rng.range(0, 255) as u32),
            _ => {}
        }
        dut.set_u64("in_valid", en as u64)?;
        dut.set("in_frame", &bits(&frame))?;
        dut.tick();
        m.tick(en, &frame);
        delivered += m.out_valid as u64;
        let expect = format!(
            "out_valid {} raw {:?} oos {} preq {} rreq {} ferr {} rfc {} err {}",
            m.out_valid, m.out_raw, m.out_of_sync, m.pause_req, m.retrans_req, m.frame_error, m.remote_fc, m.err_pulse
        );
        let g = |n: &str| dut.get_u64(n).map(|v| v == 1);
        let got = format!(
            "out_valid {} raw {:?} oos {} preq {} rreq {} ferr {} rfc {} err {}",
            g("out_valid")?,
            wide(&dut.get("out_raw")?),
            g("out_of_sync")?,
            g("pause_req")?,
            g("retrans_req")?,
            g("frame_error")?,
            g("remote_fc")?,
            g("err_pulse")?
        );
        sb.push_expected(cyc, expect)?;
        sb.push_actual(cyc, got)?;
    }
    sb.finish()?;
    assert!(delivered > 5000 && corrupted > 50 && m.failed > 500, "{delivered} delivered, {corrupted} corrupted, {} failed", m.failed);
    Ok(())
}

#[test]
fn fifo_matches_the_model() -> TestResult {
    let (design, tree) = default_design();
    let p = rifl_block(&design, "rifl").params;
    let test = "rifl_fifo";
    let mut rng = TestRng::for_test(test)?;
    let mut dut = Dut::build_named(&tree, &design.module_name("rifl", "_fifo"), test)?;
    dut.reset(2)?;
    let mut m = Fifo::new(&p);
    let mut sb = Scoreboard::new("rifl_fifo").with_seed(rng.seed()).with_wave(dut.wave_path());
    let (mut highs, mut lows) = (0u64, 0u64);
    for cyc in 0..scaled(60_000) {
        // Phases that fill up to full and drain to empty.
        let phase = (cyc / 1500) % 4;
        let (pp, pq) = [(0.9, 0.3), (0.5, 0.5), (0.2, 0.9), (1.0, 0.0)][phase as usize];
        let push = rng.chance(pp);
        let pop = rng.chance(pq);
        let din = random_wide(&mut rng, p.raw_bits());
        dut.set_u64("push", push as u64)?;
        dut.set_u64("pop", pop as u64)?;
        dut.set("din", &bits(&din))?;
        dut.eval();
        let head = if m.head_valid { format!("{:?}", m.head) } else { "-".into() };
        sb.push_expected(cyc, format!("valid {} head {head} high {} low {}", m.head_valid, m.high(), m.low()))?;
        let dv = dut.get_u64("dout_valid")? == 1;
        let dh = if dv { format!("{:?}", wide(&dut.get("dout")?)) } else { "-".into() };
        sb.push_actual(cyc, format!("valid {dv} head {dh} high {} low {}", dut.get_u64("high")? == 1, dut.get_u64("low")? == 1))?;
        highs += m.high() as u64;
        lows += m.low() as u64;
        dut.tick();
        m.tick(push, &din, pop);
    }
    sb.finish()?;
    assert!(m.overflows > 0, "the test must reach a full buffer");
    assert!(highs > 1000 && lows > 1000);
    Ok(())
}

/// One converter against the model with random packets, gaps and backpressure.
fn gearbox_case(tree: &rtl_gen_sim::Tree, module: &str, i_bytes: usize, o_bytes: usize, overlap: bool, rng: &mut TestRng, cycles: u64) -> TestResult {
    let mut dut = Dut::build_named(tree, module, module)?;
    dut.reset(2)?;
    let mut m = Gearbox::new(i_bytes, o_bytes, overlap);
    let mut sb = Scoreboard::new(module.to_string()).with_seed(rng.seed()).with_wave(dut.wave_path());
    let mut pkt: Vec<u8> = Vec::new();
    let mut pos = 0usize;
    let (mut lasts, mut beats) = (0u64, 0u64);
    for cyc in 0..cycles {
        if pos >= pkt.len() {
            let len = if rng.chance(0.3) { rng.range(1, 2 * o_bytes as u64) } else { rng.range(1, 20 * i_bytes as u64) } as usize;
            pkt = rng.bytes(len);
            pos = 0;
        }
        let valid = rng.chance(0.85);
        let n = (pkt.len() - pos).min(i_bytes);
        let mut data = pkt[pos..pos + n].to_vec();
        data.extend(rng.bytes(i_bytes - n));
        let last = pos + n == pkt.len();
        let ready = rng.chance(0.8);
        dut.set_u64("in_valid", valid as u64)?;
        dut.set("in_data", &Bits::from_bytes_width(&data, 8 * i_bytes))?;
        dut.set("in_keep", &thermo(n, i_bytes))?;
        dut.set_u64("in_last", last as u64)?;
        dut.set_u64("out_ready", ready as u64)?;
        dut.eval();
        let o = m.out();
        let exp = if o.valid { format!("in_ready {} out {:?} keep {} last {}", m.in_ready(ready), o.data, o.count, o.last) } else { format!("in_ready {} idle", m.in_ready(ready)) };
        let ov = dut.get_u64("out_valid")? == 1;
        let got = if ov {
            let keep = thermo_count(&dut.get("out_keep")?).map(|k| k.to_string()).unwrap_or_else(|| "not contiguous".into());
            format!("in_ready {} out {:?} keep {keep} last {}", dut.get_u64("in_ready")? == 1, dut.get("out_data")?.to_bytes(), dut.get_u64("out_last")? == 1)
        } else {
            format!("in_ready {} idle", dut.get_u64("in_ready")? == 1)
        };
        sb.push_expected(cyc, exp)?;
        sb.push_actual(cyc, got)?;
        if o.valid && ready {
            beats += 1;
            lasts += o.last as u64;
        }
        if valid && m.in_ready(ready) {
            pos += n;
        }
        dut.tick();
        m.tick(valid, &data, n, last, ready);
    }
    sb.finish()?;
    assert!(lasts > 100 && beats > 1000, "{module}: {beats} beats, {lasts} packets");
    Ok(())
}

#[test]
fn gearboxes_match_the_model() -> TestResult {
    let (design, tree) = default_design();
    let mut rng = TestRng::for_test("rifl_gearboxes")?;
    for name in ["rifl", "rifl4"] {
        let p: Params = rifl_block(&design, name).params;
        let (u, g) = (p.user_bytes(), p.group_bytes());
        gearbox_case(&tree, &design.module_name(name, "_txgear"), u, g, false, &mut rng, scaled(20_000))?;
        gearbox_case(&tree, &design.module_name(name, "_rxgear"), g, u, true, &mut rng, scaled(20_000))?;
    }
    Ok(())
}
