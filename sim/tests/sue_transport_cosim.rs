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
use rtl_gen_sim::cosim::sue_transport::{random_traffic, LinkFaults, TransportLink};
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
    random_traffic(link, rng, cycles)?;
    Ok(())
}

#[test]
fn sue_transport_lossy_link_matches_the_model() -> TestResult {
    let bench = Bench::from_toml(DESIGN, "sue_transport_cosim")?;
    let b = bench.block::<SueTransportBlock>("tp0")?;
    let peer = bench.block::<SueTransportBlock>("tp1")?.clone();
    let faults = LinkFaults {
        drop: 0.02,
        corrupt: 0.02,
        frame_err: 0.01,
        latency: 12,
    };
    let mut rng = TestRng::for_test("sue_transport_lossy")?;
    let mut link = TransportLink::new(&bench, b, &[peer], faults, "sue_transport_lossy")?;
    run(&mut link, &mut rng, scaled(CYCLES) as u64)?;
    assert_eq!(
        link.tally.mismatches,
        0,
        "first mismatch {:?} (seed {:#x})",
        link.tally.first,
        rng.seed()
    );
    let m = link.model(0);
    let kc = |i| m.counter(i);
    println!(
        "sue_transport: {} cycles, {} commands delivered, {} PDUs on the wire, {} dropped, {} corrupted; RTL side: new {}, retx {}, NACKs rcvd {}, RTO {}, crc err {}, frame err {}, gaps {}, dups {}, ctrl ack {}, piggy ack {}",
        link.cycle,
        link.sb.delivered,
        link.chan.sent,
        link.chan.dropped,
        link.chan.corrupted,
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
    assert!(link.sb.delivered > 1000, "traffic flowed");
    for (name, i) in [
        ("retx", k::TX_RETX),
        ("nack", k::TX_NACK_RCVD),
        ("crc", k::RX_CRC_ERR),
        ("frame", k::RX_FRAME_ERR),
        ("gap", k::RX_GAP),
        ("pdu_err", k::TX_PDU_ERR),
        ("piggy ack", k::TX_PIGGY_ACK),
        ("ctrl ack", k::TX_CTRL_ACK),
    ] {
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
    let faults = LinkFaults {
        drop: 0.0,
        corrupt: 0.0,
        frame_err: 0.0,
        latency: 12,
    };
    let mut rng = TestRng::from_seed(7);
    let mut link = TransportLink::new(&bench, b, &[peer], faults, "sue_transport_broken")?;
    let mut wrong = b.clone();
    wrong.resolved.ack_coalesce = 1;
    link.set_model(0, wrong.model());
    for _ in 0..2000 {
        if link.pending_offers(1) < 2 && rng.chance(0.1) {
            link.offer(&mut rng, 1, 0, 0, 1);
        }
        link.step(&mut rng, 1.0, 1.0, 0.0)?;
    }
    let first = link
        .tally
        .first
        .clone()
        .expect("a model ACKing every PDU was accepted");
    println!("broken model caught: {first:?}");
    assert!(
        link.tally.mismatches > 0
            && (first.port.starts_with("m_axis_tx") || first.port.starts_with("cnt_tx")),
        "{first:?}"
    );
    Ok(())
}

/// Three XPUs, three VCs, PSN spaces per {destination, VC}, 32-byte beats, three-beat commands,
/// CRC-32C, partition check, max_retries 2, ids fixed at generation (`xpuid_source =
/// "constant"`, one block per XPU): lockstep under the same lossy traffic; then the link
/// dies and XPU 0 declares its peers down after three timeouts in a row.
const DESIGN_VC: &str = r#"
[design]
name = "sue_tpv_test"
"#;

fn tpv(name: &str, local: u32) -> String {
    format!(
        "[[blocks]]\nkind = \"sue_transport\"\nname = \"{name}\"\nxpuid_source = \"constant\"\nlocal_xpuid = {local}\ndata_bytes = 32\ncmd_bytes = 96\nnum_xpu = 3\nnum_vc = 3\nmax_pack_bytes = 384\nwindow = 3\npsn_scope = \"dest_vc\"\nrto_cycles = 500\nmax_retries = 2\nack_coalesce = 1\nnack_timeout_cycles = 200\nrcrc = \"crc32c\"\npartition = 5\npartition_check = true\nrx_buf_bytes_per_vc = 1152\n"
    )
}

#[test]
fn sue_transport_dest_vc_three_xpus_matches_the_model() -> TestResult {
    let text = format!(
        "{DESIGN_VC}\n{}\n{}\n{}",
        tpv("tv0", 0),
        tpv("tv1", 1),
        tpv("tv2", 2)
    );
    let bench = Bench::from_toml(&text, "sue_transport_cosim_vc")?;
    let b = bench.block::<SueTransportBlock>("tv0")?;
    let peers = vec![
        bench.block::<SueTransportBlock>("tv1")?.clone(),
        bench.block::<SueTransportBlock>("tv2")?.clone(),
    ];
    let faults = LinkFaults {
        drop: 0.01,
        corrupt: 0.01,
        frame_err: 0.005,
        latency: 20,
    };
    let mut rng = TestRng::for_test("sue_transport_dest_vc")?;
    let mut link = TransportLink::new(&bench, b, &peers, faults, "sue_transport_dest_vc")?;
    run(&mut link, &mut rng, scaled(CYCLES / 2) as u64)?;
    assert_eq!(
        link.tally.mismatches,
        0,
        "first mismatch {:?} (seed {:#x})",
        link.tally.first,
        rng.seed()
    );
    println!(
        "dest_vc: {} cycles, {} commands delivered, {} dropped, {} corrupted, retx {}",
        link.cycle,
        link.sb.delivered,
        link.chan.dropped,
        link.chan.corrupted,
        link.model(0).counter(k::TX_RETX)
    );
    assert!(link.sb.delivered > 500 && link.model(0).counter(k::TX_RETX) > 0);
    // The link dies: XPU 0 gives up on XPU 2 after max_retries + 1 timeouts.
    link.chan.faults.drop = 1.0;
    link.offer(&mut rng, 0, 2, 1, 1);
    for _ in 0..3000 {
        link.step(&mut rng, 1.0, 1.0, 0.0)?;
    }
    assert_eq!(
        link.tally.mismatches, 0,
        "first mismatch {:?}",
        link.tally.first
    );
    let o = link.model(0).outputs(&Default::default());
    assert!(
        o.peer_down[2] && !o.peer_down[0],
        "peer_down {:?}",
        o.peer_down
    );
    assert!(link.model(0).counter(k::TX_RTO) >= 3);
    Ok(())
}
