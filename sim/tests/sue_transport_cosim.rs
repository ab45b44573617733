//! SUE transport (`sue_transport`) in Verilator against its cycle-accurate model, every output
//! every cycle, linked to a peer transport (the model of XPU 1) through a channel that drops,
//! corrupts and flags PDUs; random PDUs both ways (some malformed), random backpressure on
//! every output, VC pause both sides, PSNs crossing the 16-bit wrap. Scoreboards: exactly once,
//! in order per {src, dst, VC}, bit-exact, no PDU over max_pack_bytes, completions equal to the
//! commands offered after draining. A broken model must be caught.

mod common;

use common::{scaled, TestResult};
use rtl_gen::blocks::sue_transport::model::k;
use rtl_gen::blocks::sue_transport::SueTransportBlock;
use rtl_gen_sim::cosim::sue_transport::{LinkFaults, TransportLink};
use rtl_gen_sim::{Bench, TestRng};

const DESIGN: &str = r#"
[design]
name = "sue_tp_test"

[[blocks]]
kind = "sue_transport"
name = "tp0"
data_bytes = 16
cmd_bytes = 32
num_xpu = 2
num_vc = 2
max_pack_bytes = 128
window = 4
psn_init = 65500
rto_cycles = 400
ack_coalesce = 2
ack_delay_cycles = 24
nack_timeout_cycles = 120

[[blocks]]
kind = "sue_transport"
name = "tp1"
local_xpuid = 1
data_bytes = 16
cmd_bytes = 32
num_xpu = 2
num_vc = 2
max_pack_bytes = 128
window = 4
psn_init = 65500
rto_cycles = 400
ack_coalesce = 2
ack_delay_cycles = 24
nack_timeout_cycles = 120
"#;

const CYCLES: usize = 24_000;

fn run(link: &mut TransportLink, rng: &mut TestRng, cycles: u64) -> TestResult {
    let m = link.b.common.max_cmds() as u64;
    let v = link.b.common.num_vc as u64;
    for cyc in 0..cycles {
        let phase = (cyc / 3000) % 3;
        for src in 0..2 {
            if link.pending_offers(src) < 2 && rng.chance(0.08) {
                if rng.chance(0.02) {
                    link.offer_bad(rng, src);
                } else {
                    let (vc, n) = (rng.range(0, v - 1) as usize, rng.range(1, m) as usize);
                    link.offer(rng, src, 1 - src, vc, n);
                }
            }
        }
        let (txr, cmdr) = [(1.0, 1.0), (0.6, 0.5), (0.9, 0.2)][phase as usize];
        link.step(rng, txr, cmdr, 0.05)?;
    }
    // Drain: no new work, outputs open, the channel still lossy.
    let mut n = 0;
    while !link.quiet() && n < 200_000 {
        link.step(rng, 1.0, 1.0, 0.0)?;
        n += 1;
    }
    let c = link.cycle;
    link.tally.compare(c, "scoreboard: everything delivered and acknowledged after draining", true, link.quiet());
    for src in 0..2 {
        let dst = 1 - src;
        link.tally.compare(c, "scoreboard: completions = commands offered", link.offered[src][dst], link.completed(src, dst));
    }
    Ok(())
}

#[test]
fn sue_transport_lossy_link_matches_the_model() -> TestResult {
    let bench = Bench::from_toml(DESIGN, "sue_transport_cosim")?;
    let b = bench.block::<SueTransportBlock>("tp0")?;
    let peer = bench.block::<SueTransportBlock>("tp1")?.clone();
    let faults = LinkFaults { drop: 0.02, corrupt: 0.02, frame_err: 0.01, latency: 12 };
    let mut rng = TestRng::for_test("sue_transport_lossy")?;
    let mut link = TransportLink::new(&bench, b, &[peer], faults, "sue_transport_lossy")?;
    run(&mut link, &mut rng, scaled(CYCLES) as u64)?;
    assert_eq!(link.tally.mismatches, 0, "first mismatch {:?} (seed {:#x})", link.tally.first, rng.seed());
    let m = link.model(0);
    let kc = |i| m.counter(i);
    println!(
        "sue_transport: {} cycles, {} commands delivered, {} PDUs on the wire, {} dropped, {} corrupted; RTL side: new {}, retx {}, NACKs rcvd {}, RTO {}, crc err {}, frame err {}, gaps {}, dups {}, ctrl ack {}, piggy ack {}",
        link.cycle,
        link.delivered,
        link.pdus_on_wire,
        link.dropped,
        link.corrupted,
        kc(k::TX_NEW),
        kc(k::TX_RETX),
        kc(k::TX_NACK_RCVD),
        kc(k::TX_RTO),
        kc(k::RX_CRC_ERR),
        kc(k::RX_FRAME_ERR),
        kc(k::RX_GAP),
        kc(k::RX_DUP),
        kc(k::TX_CTRL_ACK),
        kc(k::TX_PIGGY_ACK),
    );
    assert!(link.delivered > 1000, "traffic flowed");
    for (name, i) in [("retx", k::TX_RETX), ("nack", k::TX_NACK_RCVD), ("crc", k::RX_CRC_ERR), ("frame", k::RX_FRAME_ERR), ("gap", k::RX_GAP), ("pdu_err", k::TX_PDU_ERR), ("piggy ack", k::TX_PIGGY_ACK), ("ctrl ack", k::TX_CTRL_ACK)] {
        assert!(kc(i) > 0, "stimulus reached {name}");
    }
    Ok(())
}

/// A model that ACKs every PDU (ack_coalesce 1 instead of 2) must be caught on the TX stream.
#[test]
fn a_broken_transport_model_is_caught() -> TestResult {
    let bench = Bench::from_toml(DESIGN, "sue_transport_cosim")?;
    let b = bench.block::<SueTransportBlock>("tp0")?;
    let peer = bench.block::<SueTransportBlock>("tp1")?.clone();
    let faults = LinkFaults { drop: 0.0, corrupt: 0.0, frame_err: 0.0, latency: 12 };
    let mut rng = TestRng::from_seed(7);
    let mut link = TransportLink::new(&bench, b, &[peer], faults, "sue_transport_broken")?;
    let mut wrong = b.clone();
    wrong.p.ack_coalesce = 1;
    link.set_model(0, wrong.model());
    for _ in 0..2000 {
        if link.pending_offers(1) < 2 && rng.chance(0.1) {
            link.offer(&mut rng, 1, 0, 0, 1);
        }
        link.step(&mut rng, 1.0, 1.0, 0.0)?;
    }
    let first = link.tally.first.clone().expect("a model ACKing every PDU was accepted");
    println!("broken model caught: {first:?}");
    assert!(link.tally.mismatches > 0 && (first.port.starts_with("m_axis_tx") || first.port.starts_with("cnt_tx")), "{first:?}");
    Ok(())
}
