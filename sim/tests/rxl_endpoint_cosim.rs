//! The `rxl_endpoint` and `rxl_switch` modules of the default design in Verilator against their
//! cycle-accurate models.
//!
//! Endpoints: every node of a link runs as RTL and model in lockstep and every output
//! (tx_flit, m_payload, s_ready/tx_valid/m_valid, every counter) is compared every cycle, under
//! traffic that exercises the whole protocol: random bit errors, bursts, uncorrectable flits,
//! forced drops, switch-internal corruption, link backpressure (tx_ready low), partial load,
//! a short retry loop (many replays). Switch halves: the same in switched topologies, plus
//! random flits with 0..=3 corrupted bytes through `link_rx` (every FEC verdict and corrected
//! message compared) and saturating counters on a small custom design.

mod common;

use common::{blocks_of, default_design, scaled};
use rtl_gen::blocks::rxl_endpoint::flit::{FlitCodec, FLIT_BYTES, MSG_BYTES};
use rtl_gen::blocks::rxl_switch::model::{LinkRxModel, LinkTxModel};
use rtl_gen::blocks::rxl_switch::RxlSwitchBlock;
use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use rtl_gen_sim::link::rtl::{Check, RtlLinkRx, RtlLinkTx};
use rtl_gen_sim::link::{CampaignConfig, Faults, LinkRxNode, LinkTxNode, Report};
use rtl_gen_sim::rand::Rng;
use rtl_gen_sim::{TestRng, Tree};

fn lockstep(ep_name: &str, switches: usize, cycles: u64, faults: Faults, tweak: impl FnOnce(&mut CampaignConfig)) -> Report {
    common::rxl_campaign(ep_name, switches, cycles, faults, Check::Lockstep, &format!("cosim_{ep_name}_{switches}"), tweak)
}

/// Faults that keep the protocol busy: a retry every few hundred flits of every kind.
fn busy() -> Faults {
    Faults { drop: 3e-3, ber: 1e-5, uc: 2e-3, burst: 1e-3, burst_bits: 30 }
}

fn stressed(c: &mut CampaignConfig) {
    c.tx_stall = 0.05;
    c.offered_load = 0.9;
    c.retry_loop = 20;
}

fn assert_busy(r: &Report, what: &str) {
    for x in &r.dirs {
        let c = &x.rx_counters;
        assert!(x.tx_counters.replays > 5 && c.nacks_sent > 5 && c.crc_fail > 5 && c.fec_corrected > 5 && c.fec_uncorrectable > 0, "{what}: the traffic must exercise replays and both FEC outcomes: {c:?}");
    }
}

#[test]
fn rxl_endpoint_matches_the_model_in_a_faulty_link() {
    let r = lockstep("rxl_ep", 0, scaled(20_000) as u64, busy(), stressed);
    assert_busy(&r, "rxl_ep");
    assert!(r.drained && r.dirs.iter().all(|x| x.sink.ordering_failures == 0 && x.sink.data_failures == 0 && x.undelivered() == 0));
}

#[test]
fn cxl_baseline_endpoint_matches_the_model_in_a_faulty_link() {
    let r = lockstep("cxl_ep", 0, scaled(20_000) as u64, busy(), stressed);
    assert_busy(&r, "cxl_ep");
    assert!(r.dirs.iter().all(|x| x.sink.data_failures == 0));
}

/// The field options: CRC-64 and the generic FEC layout, a 96-deep buffer, ACK every 4 flits,
/// 16-bit counters; a long loop with a small buffer also fills it (s_ready low).
#[test]
fn alternative_endpoint_matches_the_model() {
    let r = lockstep("rxl_ep_alt", 0, scaled(20_000) as u64, busy(), |c| {
        stressed(c);
        c.retry_loop = 120;
    });
    assert_busy(&r, "rxl_ep_alt");
    assert!(r.drained && r.dirs.iter().all(|x| x.sink.ordering_failures == 0 && x.sink.data_failures == 0 && x.undelivered() == 0));
}

/// Two switch levels: both endpoints and all eight switch halves in lockstep, with corruption
/// inside the switches.
#[test]
fn switched_link_matches_the_models() {
    let r = lockstep("rxl_ep", 2, scaled(10_000) as u64, busy(), |c| {
        stressed(c);
        c.retry_loop = 40;
        c.internal = 1e-3;
    });
    assert!(r.drained && r.dirs.iter().all(|x| x.sink.ordering_failures == 0 && x.sink.data_failures == 0 && x.undelivered() == 0));
    assert!(r.dirs.iter().all(|x| x.switch_drops > 0 && x.switch_corrected > 0 && x.internal_corruptions > 0), "switch drops, corrections and internal corruption all happened");
}

/// link_rx on random flits with 0..=3 random corrupted bytes and idle cycles: the FEC verdict,
/// the corrected message and the counters every cycle; link_tx re-encoding random messages.
#[test]
fn switch_halves_match_the_models_on_random_flits() -> Result<(), Box<dyn std::error::Error>> {
    let (design, tree) = default_design();
    let sw = blocks_of::<RxlSwitchBlock>(&design).into_iter().next().expect("a switch block").clone();
    let codec = FlitCodec::new(rtl_gen::blocks::rxl_endpoint::flit::CrcChoice::RsCrc, sw.fec);
    let mut rng = TestRng::for_test("rxl_switch_random")?;
    let mut rx = RtlLinkRx::new(&tree, &design.module_name(&sw.name, "_link_rx"), "rxl_switch_random_rx")?;
    let mut tx = RtlLinkTx::new(&tree, &design.module_name(&sw.name, "_link_tx"), "rxl_switch_random_tx")?;
    let mut rx_m = LinkRxModel::new(codec.clone(), sw.counter_bits);
    let mut tx_m = LinkTxModel::new(codec.clone(), sw.counter_bits);
    let n = scaled(20_000);
    for i in 0..n {
        let valid = rng.chance(0.9);
        let msg: [u8; MSG_BYTES] = rng.bytes(MSG_BYTES).try_into().expect("250");
        let mut flit = codec.encode(&msg);
        for _ in 0..rng.range(0, 3) {
            flit[rng.random_range(0..FLIT_BYTES)] ^= rng.random_range(1..=255u8);
        }
        rx.tick(valid, &flit)?;
        rx_m.tick(valid, &flit);
        tx.tick(valid, &msg)?;
        tx_m.tick(valid, &msg);
        let (rv, rmsg) = rx.out();
        assert_eq!(rv, rx_m.out_valid(), "link_rx out_valid, flit {i} (seed {:#x})", rng.seed());
        if rv {
            assert_eq!(rmsg.as_slice(), rx_m.out_msg().as_slice(), "link_rx out_msg, flit {i}");
        }
        assert_eq!(rx.counters(), rx_m.counters(), "link_rx counters, flit {i}");
        let (tv, tf) = tx.out();
        assert_eq!(tv, tx_m.out_valid());
        if tv {
            assert_eq!(tf.as_slice(), tx_m.out_flit().as_slice(), "link_tx out_flit, flit {i}");
        }
    }
    let c = rx_m.counters();
    assert!(c[1] > n as u64 / 5 && c[2] > n as u64 / 20, "corrected {} dropped {}", c[1], c[2]);
    Ok(())
}

/// Saturating counters: a design with 3-bit counters; link_tx counts 20 flits and stops at 7,
/// exactly as the model. The endpoint's and link_rx's counters come from the same generator.
#[test]
fn counters_saturate() -> Result<(), Box<dyn std::error::Error>> {
    let text = "[design]\nname = \"sat\"\n[[blocks]]\nkind = \"rxl_switch\"\nname = \"sw\"\ncounter_bits = 3\n";
    let design = Design::parse(text, "sat.toml")?;
    let dir = tempfile::tempdir()?;
    let layout = Layout::for_design_file(dir.path(), &design);
    let root = layout.root.clone();
    let elab = design.elaborate();
    tree::build(&elab, layout).write()?;
    let design = elab.design;
    let tree = Tree::open(&root)?;
    let sw = design.blocks[0].as_any().downcast_ref::<RxlSwitchBlock>().expect("switch");
    let mut tx = RtlLinkTx::new(&tree, "sat_sw_link_tx", "rxl_counters_saturate")?;
    let mut model = LinkTxModel::new(sw.codec(), 3);
    for i in 0..20u8 {
        let msg = [i; MSG_BYTES];
        tx.tick(true, &msg)?;
        model.tick(true, &msg);
        assert_eq!(tx.count(), model.counters()[0]);
    }
    assert_eq!(tx.count(), 7, "a 3-bit counter saturates at 7");
    Ok(())
}
