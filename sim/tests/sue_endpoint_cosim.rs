//! Two SUE endpoints (`sue_endpoint`: packer + transport) back to back, both in Verilator in
//! lockstep with their models, both the ONE generated module (the XPU id on its `local_xpuid`
//! input: 0 and 1), through a channel that drops, corrupts and flags PDUs: random
//! commands both ways on both VCs, backpressure on every output, VC pause both sides.
//! Scoreboards: exactly once, in order per {src, dst, VC}, bit-exact; no PDU over
//! max_pack_bytes; completions equal to the commands accepted once everything is acknowledged.

mod common;

use common::{scaled, TestResult};
use rtl_gen::blocks::sue_endpoint::SueEndpointBlock;
use rtl_gen::blocks::sue_transport::model::k;
use rtl_gen_sim::cosim::sue_endpoint::EndpointLink;
use rtl_gen_sim::cosim::sue_link::LinkFaults;
use rtl_gen_sim::{Bench, TestRng};

fn ep(name: &str) -> String {
    format!(
        "[[blocks]]\nkind = \"sue_endpoint\"\nname = \"{name}\"\ndata_bytes = 16\ncmd_bytes = 32\nnum_xpu = 2\nnum_vc = 2\nmax_pack_bytes = 128\nqueue_depth = 8\nwindow = 4\npsn_init = 65530\nrto_cycles = 500\nack_coalesce = 2\nack_delay_cycles = 32\nnack_timeout_cycles = 150\n"
    )
}

const CYCLES: usize = 20_000;

#[test]
fn two_sue_endpoints_back_to_back_over_a_lossy_link() -> TestResult {
    let text = format!("[design]\nname = \"sue_ep_test\"\n{}", ep("ep"));
    let bench = Bench::from_toml(&text, "sue_endpoint_cosim")?;
    let ep = bench.block::<SueEndpointBlock>("ep")?.clone();
    assert!(ep.transport_block.resolved.xpuid_port, "the id is a port by default");
    let blocks = vec![ep.clone(), ep];
    let mut rng = TestRng::for_test("sue_endpoint_link")?;
    let mut link = EndpointLink::new(&bench, &blocks, "sue_endpoint_link")?;
    link.chan.faults = LinkFaults { drop: 0.02, corrupt: 0.02, frame_err: 0.01, ..LinkFaults::default() };
    for cyc in 0..scaled(CYCLES) as u64 {
        let load = [0.05, 0.3, 0.15][((cyc / 4000) % 3) as usize];
        for src in 0..2 {
            if link.queued(src) < 4 && rng.chance(load) {
                let vc = rng.range(0, 1) as usize;
                link.command(&mut rng, src, 1 - src, vc);
            }
        }
        let (txr, outr) = [(1.0, 1.0), (0.7, 0.5), (0.9, 0.3)][((cyc / 2500) % 3) as usize];
        link.step(&mut rng, txr, outr, 0.05)?;
    }
    let mut n = 0;
    while !link.quiet() && n < 200_000 {
        link.step(&mut rng, 1.0, 1.0, 0.0)?;
        n += 1;
    }
    for _ in 0..2 {
        link.step(&mut rng, 1.0, 1.0, 0.0)?;
    }
    let c = link.cycle;
    link.tally.compare(
        c,
        "scoreboard: everything delivered and acknowledged after draining",
        true,
        link.quiet(),
    );
    for src in 0..2 {
        link.tally.compare(
            c,
            "scoreboard: completions = commands accepted",
            link.sb.accepted[src][1 - src],
            link.completed(src, 1 - src),
        );
    }
    assert_eq!(
        link.tally.mismatches,
        0,
        "first mismatch {:?} (seed {:#x})",
        link.tally.first,
        rng.seed()
    );
    let a = &link.model(0).tp;
    println!(
        "sue_endpoint x2: {} cycles, {} commands delivered in {} data PDUs ({:.2} commands/PDU, largest payload {} bytes); endpoint 0: retx {}, NACKs {}, RTO {}, crc err {}, frame err {}",
        link.cycle,
        link.sb.delivered,
        link.pdus,
        link.cmds_in_pdus as f64 / link.pdus.max(1) as f64,
        link.max_pdu_payload,
        a.counter(k::TX_RETX),
        a.counter(k::TX_NACK_RCVD),
        a.counter(k::TX_RTO),
        a.counter(k::RX_CRC_ERR),
        a.counter(k::RX_FRAME_ERR)
    );
    assert!(
        link.sb.delivered > 2000 && link.cmds_in_pdus > link.pdus,
        "traffic flowed and packed"
    );
    assert!(a.counter(k::TX_RETX) > 0 && a.counter(k::RX_CRC_ERR) > 0);
    Ok(())
}
