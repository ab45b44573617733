//! The recovered-clock parts of a RIFL node against their edge-by-edge models, on unrelated
//! clocks ([`crate::clocks`], one evaluation per edge; the model takes the same edges in the
//! same order):
//!
//! * `clock_comp` ([`comp`]): the TX, recovered and free clocks at random ppm offsets and free
//!   clock ratios, `slot` (tx_ready) random; `idle` compared after every edge, and the owed
//!   Idle slots counted (a TX clock that is faster must pay, one that is slower must not).
//! * `rx_cdc` ([`rxcdc`]): the lane's receiver fed on its recovered clock by a model transmitter
//!   (with flipped bits, illegal SYNs, garbage and stray control frames), the node clock slower,
//!   equal within ppm, or faster; every output (the replayed receiver outputs on clk, the write
//!   side's level and overflow flag on rx_clk) compared after every edge.
//! * the node (`node` with `clocking = "recovered"`): two Verilated nodes on unrelated clocks
//!   ([`crate::link::rifl::rclk`]) with the link's scoreboard.

use super::{Options, Tally};
use crate::link::rifl::rclk::{RclkLink, RclkNode, RclkSetup};
use crate::clocks::{ClockSpec, Edges};
use crate::{Bench, Dut, PortId, SimError, TestRng};
use rtl_gen::blocks::rifl::model::codec::{Codec, Ctrl, SYN_CTRL};
use rtl_gen::blocks::rifl::model::comp::Compensation;
use rtl_gen::blocks::rifl::model::rxcdc::{RxCdcLane, FLAGS};
use rtl_gen::blocks::rifl::model::tx::{TxIn, TxLane};
use rtl_gen::blocks::rifl::RiflClockParams;
use rtl_gen::elab::ElabModule;

fn build(bench: &Bench, m: &ElabModule) -> Result<Dut, SimError> {
    Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}", m.name()))
}

/// The reset ports of `clocks` (`clk` → `rst`, `rx_clk` → `rx_rst`, ...) and the active level.
fn resets(dut: &Dut, clocks: &[&str]) -> Result<(Vec<PortId>, u64), SimError> {
    let low = dut.port("rst_n").is_ok();
    let r = if low { "rst_n" } else { "rst" };
    let ports = clocks.iter().map(|c| dut.port(&format!("{}{r}", c.strip_suffix("clk").unwrap_or("")))).collect::<Result<Vec<_>, _>>()?;
    Ok((ports, u64::from(!low)))
}

/// Every domain in reset for two edges of each clock, then released.
fn reset_all(dut: &mut Dut, clocks: &[PortId], resets: &[PortId], on: u64) -> Result<(), SimError> {
    for &r in resets {
        dut.set_port_u64(r, on)?;
    }
    dut.eval();
    for _ in 0..2 {
        for &c in clocks {
            dut.clock_edge(c, true)?;
            dut.clock_edge(c, false)?;
        }
    }
    for &r in resets {
        dut.set_port_u64(r, 1 - on)?;
    }
    dut.eval();
    Ok(())
}

/// `clock_comp`: three unrelated clocks per run; `idle` compared after every edge.
pub fn comp(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let mut dut = build(bench, m)?;
    let names = ["clk", "rx_clk", "free_clk"];
    let clocks = names.iter().map(|n| dut.port(n)).collect::<Result<Vec<_>, _>>()?;
    let (rsts, on) = resets(&dut, &names)?;
    let (slot, idle) = (dut.port("slot")?, dut.port("idle")?);
    // With gt_bits the recovered clock runs at the transceiver's word rate and rx_tick marks
    // one edge in RX_WORDS (a frame): the recovered clock then runs that much faster.
    const RX_WORDS: u64 = 4;
    let tick = dut.port("rx_tick").ok();
    let rx_mul = if tick.is_some() { RX_WORDS as f64 } else { 1.0 };
    let mut rx_edges = 0u64;
    let mut t = Tally::default();
    // (TX ppm, RX ppm, free MHz): TX faster, TX slower, equal, a slow free clock, a fast one.
    let runs: [(f64, f64, f64); 5] = [(-300.0, 300.0, 100.0), (300.0, -300.0, 100.0), (0.0, 0.0, 77.0), (-2000.0, 2000.0, 9.0), (-150.0, 50.0, 700.0)];
    let edges_per_run = (opts.vectors * 6).max(60_000);
    for (tx_ppm, rx_ppm, free_mhz) in runs {
        reset_all(&mut dut, &clocks, &rsts, on)?;
        let mut model = Compensation::new();
        let mut tx_cycles = 0u64;
        let specs = [ClockSpec::mhz(250.0, tx_ppm, 0), ClockSpec::mhz(250.0 * rx_mul, rx_ppm, 0), ClockSpec::mhz(free_mhz, 0.0, 0)].map(|c| c.random_phase(rng));
        let mut edges = Edges::new(&specs, TestRng::from_seed(rng.range(0, u64::MAX - 1)));
        for _ in 0..edges_per_run {
            let e = edges.next().expect("clocks never stop");
            if e.rising {
                match e.clock {
                    0 => {
                        tx_cycles += 1;
                        let s = rng.chance(0.9);
                        dut.set_port_u64(slot, u64::from(s))?;
                        model.clk_edge(s);
                    }
                    1 => match tick {
                        Some(port) => {
                            rx_edges += 1;
                            let on = rx_edges % RX_WORDS == 0;
                            dut.set_port_u64(port, u64::from(on))?;
                            model.rx_tick_edge(on);
                        }
                        None => model.rx_edge(),
                    },
                    _ => model.free_edge(),
                }
            }
            dut.clock_edge(clocks[e.clock], e.rising)?;
            let c = t.cycles;
            t.compare(c, "idle", model.idle(), dut.get_port_u64(idle)? == 1);
            t.vectors += 1;
            t.cycles += 1;
        }
        // The TX clock gains its cycles times the ppm difference.
        let gained = (tx_cycles as f64 * (rx_ppm - tx_ppm) * 1e-6).max(0.0);
        if gained >= 10.0 {
            t.compare(t.cycles, "idles paid by the faster TX clock (at least 80 % of the gain)", true, model.idles as f64 >= 0.8 * gained - 3.0);
        } else if rx_ppm < tx_ppm {
            t.compare(t.cycles, "idles paid by the slower TX clock (at most 2)", true, model.idles <= 2);
        }
    }
    Ok(t)
}

/// `rx_cdc`: the lane's receiver on rx_clk fed by a model transmitter; every output compared
/// after every edge.
pub fn rxcdc(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let cp = super::kind_params::<RiflClockParams>(m)?;
    let p = rtl_gen::blocks::rifl::RiflLaneParams {
        frame_bits: cp.frame_bits,
        frame_id_bits: cp.frame_id_bits,
        crc_poly: cp.crc_poly,
        fc_buffer_frames: 1 << cp.frame_id_bits,
        fc_on_frames: 2 * (1 << cp.frame_id_bits) / 3,
        fc_off_frames: (1 << cp.frame_id_bits) / 3,
        scrambler: cp.scrambler,
        retrans_threshold: cp.retrans_threshold,
        control_repeat: cp.control_repeat,
    }
    .params();
    let c = Codec::new(p);
    let mut dut = build(bench, m)?;
    let names = ["clk", "rx_clk"];
    let clocks = names.iter().map(|n| dut.port(n)).collect::<Result<Vec<_>, _>>()?;
    let (rsts, on) = resets(&dut, &names)?;
    let mut t = Tally::default();
    // (clk ppm, rx_clk MHz ratio): clk slower than the frames by 200 ppm, 1.3x faster, 1.3x
    // slower, and half the frame rate (the FIFO fills and refuses entries: overflow handling).
    let runs: [(f64, f64); 4] = [(200.0, 1.0), (0.0, 1.0 / 1.3), (0.0, 1.3), (0.0, 2.0)];
    for (ppm, ratio) in runs {
        reset_all(&mut dut, &clocks, &rsts, on)?;
        let mut model = RxCdcLane::new(p);
        let mut src = TxLane::new(p);
        let specs = [ClockSpec::mhz(250.0, ppm, 0), ClockSpec::mhz(250.0 * ratio, 0.0, 0)].map(|c| c.random_phase(rng));
        let mut edges = Edges::new(&specs, TestRng::from_seed(rng.range(0, u64::MAX - 1)));
        for _ in 0..(opts.vectors * 4).max(20_000) {
            let e = edges.next().expect("clocks never stop");
            if e.rising && e.clock == 1 {
                let seg = super::rifl::random_raw(rng, &c);
                let en = rng.chance(0.95);
                let ti = TxIn { en, out_of_sync: false, pause_req: false, retrans_req: model.rx.frame_error, frame_error: false, remote_fc: false, fc_high: false, fc_low: false, seg_take: false, seg_raw: &seg };
                let take = src.comb(&ti).seg_ready && rng.chance(if ratio > 1.5 { 0.98 } else { 0.8 });
                let ti = TxIn { seg_take: take, ..ti };
                let mut frame = src.frame.clone();
                src.tick(&ti);
                match rng.range(0, 1999) {
                    0..=4 => frame.flip(rng.range(0, p.frame_width() as u64 - 1) as usize),
                    5 => frame.set_field(0, 2, 0),
                    6 => frame = rng.bits(p.frame_width()),
                    7..=9 => frame = c.encode(SYN_CTRL, &c.to_line(&c.control_raw(Ctrl::PauseRequest)), rng.range(0, p.id_mask() as u64) as u32),
                    _ => {}
                }
                dut.set_u64("rx_valid", u64::from(en))?;
                dut.set("rx_frame", &frame)?;
                model.rx_edge(en, &frame);
            } else if e.rising {
                model.clk_edge();
            }
            dut.clock_edge(clocks[e.clock], e.rising)?;
            let cyc = t.cycles;
            t.compare(cyc, "out_valid", model.out_valid, dut.get_u64("out_valid")? == 1);
            if model.out_valid {
                t.compare_bits(cyc, "out_raw", &model.out_raw, &dut.get("out_raw")?);
            }
            for (i, name) in FLAGS.iter().enumerate() {
                t.compare(cyc, name, model.flag(i), dut.get_u64(name)? == 1);
            }
            t.compare(cyc, "err_pulse", model.err_pulse, dut.get_u64("err_pulse")? == 1);
            t.compare(cyc, "rx_cdc_level", u64::from(model.fifo.wr_level()), dut.get_u64("rx_cdc_level")?);
            t.compare(cyc, "rx_cdc_overflow", model.overflow, dut.get_u64("rx_cdc_overflow")? == 1);
            t.vectors += 1;
            t.cycles += 1;
        }
        if ratio > 1.5 {
            t.compare(t.cycles, "rx_cdc_overflow reached with rx_clk at twice clk", true, model.overflow);
        }
    }
    Ok(t)
}

/// `node` with `clocking = "recovered"`: two Verilated nodes on clocks 200 ppm apart with
/// channel delay, lane skew, jitter and bit errors; the scoreboard must pass and no CDC FIFO may
/// refuse an entry.
pub fn node(bench: &Bench, m: &ElabModule, opts: &Options, rng: &mut TestRng) -> Result<Tally, SimError> {
    let p = super::rifl::params(m)?;
    let side = |tag: &str| -> Result<RclkNode, SimError> { RclkNode::new(Dut::build_named(bench.tree(), m.name(), &format!("cosim_{}_{tag}", m.name()))?, p) };
    let setup = RclkSetup { mhz: 250.0, ppm: [-100.0, 100.0], free_mhz: 100.0, delay: 20, delay_fs: None, skew: 6, skew_bits: 777, jitter_fs: 100_000, ber: 1e-6, packets: (opts.vectors / 100).max(20), min_len: 1, max_len: 4 * p.user_bytes() };
    let mut link = RclkLink::new(side("a")?, side("b")?, setup, rng)?;
    let result = link.run(opts.vectors.max(20_000) * 20);
    let mut t = Tally { cycles: link.cycles[0], vectors: link.cycles[0], ..Tally::default() };
    t.compare(link.cycles[0], "scoreboard (every packet delivered once, in order, intact)", String::new(), result.err().unwrap_or_default());
    for (side, n) in ["a", "b"].iter().zip(&link.nodes) {
        t.compare(link.cycles[0], &format!("node {side}: no CDC FIFO overflow"), false, n.overflowed()?);
    }
    Ok(t)
}
