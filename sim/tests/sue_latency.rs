//! The latency every SUE module documents, measured on its RTL in Verilator and compared with
//! the elaborated module's `latency` and the manifest's (the figure the banner and the docs
//! print), over geometries with one, two and three beats per command:
//!
//! - `sue_packer`: from the cycle a command's last beat is taken on `s_axis_cmd` (tlast
//!   handshake) to the cycle its PDU's first beat is valid on `m_axis_pdu`, packer idle;
//! - `sue_transport` TX: from the cycle a PDU's last beat is taken on `s_axis_pdu` to the cycle
//!   its first beat is valid on `m_axis_tx`, transport idle (the PDU is stored whole first);
//! - `sue_transport` RX: from the cycle a received PDU's last beat is taken on `s_axis_rx` to
//!   the cycle its first command beat is valid on `m_axis_cmd`;
//! - `sue_endpoint`: from the cycle a command's last beat is taken on `s_axis_cmd` to the cycle
//!   the first beat of its PDU is valid on `m_axis_tx`, endpoint idle (and RX as the transport).
//!
//! Every output is always ready; each sample starts from an idle module.

mod common;

use common::TestResult;
use rtl_gen::blocks::protocol::sue::wire::{beats, build_pdu, Op, Rh};
use rtl_gen::blocks::sue_endpoint::SueEndpointBlock;
use rtl_gen::blocks::sue_packer::SuePackerBlock;
use rtl_gen::blocks::sue_transport::SueTransportBlock;
use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::sue_transport::build_with_xpuid;
use rtl_gen_sim::{Bench, Bits, Dut};

/// Small geometries: the default design's (16-byte beats, 32-byte commands: two beats), one
/// beat per command, and three beats per command on 32-byte beats with one VC.
const DESIGN: &str = r#"
[design]
name = "sue_latency"

[[blocks]]
kind = "sue_packer"
name = "pk2"
data_bytes = 16
cmd_bytes = 32
num_xpu = 4
num_vc = 2
max_pack_bytes = 256
queue_depth = 16

[[blocks]]
kind = "sue_packer"
name = "pk1"
data_bytes = 16
cmd_bytes = 16
num_xpu = 3
num_vc = 1
max_pack_bytes = 64
queue_depth = 4

[[blocks]]
kind = "sue_transport"
name = "tp2"
data_bytes = 16
cmd_bytes = 32
num_xpu = 4
num_vc = 2
max_pack_bytes = 256
window = 16
rto_cycles = 1000000
ack_coalesce = 2
ack_delay_cycles = 64

[[blocks]]
kind = "sue_endpoint"
name = "ep2"
data_bytes = 16
cmd_bytes = 32
num_xpu = 4
num_vc = 2
max_pack_bytes = 256
queue_depth = 16
window = 16
rto_cycles = 1000000
ack_coalesce = 2
ack_delay_cycles = 64

[[blocks]]
kind = "sue_endpoint"
name = "ep3"
data_bytes = 32
cmd_bytes = 96
num_xpu = 3
num_vc = 1
max_pack_bytes = 384
queue_depth = 8
window = 16
rto_cycles = 1000000
"#;

fn bench() -> Bench {
    Bench::from_toml(DESIGN, "sue_latency").expect("the latency design generates")
}

/// The documented latency of `module`: the elaborated module's and the manifest's must agree.
fn documented(bench: &Bench, block: &str, role: Role) -> u32 {
    let m = bench.module(block, role).expect("module");
    let manifest = bench.tree().module(m.name()).expect("in the manifest").latency;
    assert_eq!(m.latency, manifest, "{}: elaborated and manifest latency", m.name());
    m.latency
}

/// Ticks until `port` is 1 (at most `limit` cycles), returning the cycles waited.
fn until_high(d: &mut Dut, port: &str, limit: u32) -> u32 {
    for n in 0..limit {
        d.eval();
        if d.get_u64(port).expect("port") == 1 {
            return n;
        }
        d.tick();
    }
    panic!("{port} never rose within {limit} cycles");
}

/// Offers `nbeats` beats on `pfx` (tvalid, zero data, tlast on the last) with `side` set before
/// each beat; returns once the last beat has been taken (the clock edge that takes it has
/// not yet happened: the caller's next tick is cycle T's edge).
fn offer(d: &mut Dut, pfx: &str, width: usize, nbeats: usize, side: &dyn Fn(&mut Dut)) {
    for beat in 0..nbeats {
        side(d);
        d.set(&format!("{pfx}_tdata"), &Bits::zeros(width)).unwrap();
        d.set_u64(&format!("{pfx}_tvalid"), 1).unwrap();
        d.set_u64(&format!("{pfx}_tlast"), (beat + 1 == nbeats) as u64).unwrap();
        let mut waited = 0;
        loop {
            d.eval();
            if d.get_u64(&format!("{pfx}_tready")).unwrap() == 1 {
                break;
            }
            d.tick();
            waited += 1;
            assert!(waited < 1000, "{pfx} never ready");
        }
        if beat + 1 < nbeats {
            d.tick();
        }
    }
}

/// Cycles from the edge that takes the last beat (cycle T) to the first cycle `out` is valid:
/// T's edge, then ticks until valid; valid in cycle T + L.
fn measure(d: &mut Dut, pfx: &str, out: &str) -> u32 {
    d.tick();
    d.set_u64(&format!("{pfx}_tvalid"), 0).unwrap();
    d.set_u64(&format!("{pfx}_tlast"), 0).unwrap();
    1 + until_high(d, out, 100)
}

/// Waits until `valid` has been low for 8 cycles in a row (the module is idle again).
fn settle(d: &mut Dut, valid: &str) {
    let mut low = 0;
    for _ in 0..10_000 {
        d.eval();
        low = if d.get_u64(valid).unwrap() == 0 { low + 1 } else { 0 };
        if low == 8 {
            return;
        }
        d.tick();
    }
    panic!("{valid} never settled");
}

#[test]
fn sue_packer_latency_is_the_documented_one() -> TestResult {
    let bench = bench();
    for name in ["pk2", "pk1"] {
        let b = bench.block::<SuePackerBlock>(name)?;
        let c = &b.common;
        let want = documented(&bench, name, Role::SuePacker);
        let mut d = bench.dut(name, Role::SuePacker, &format!("sue_latency_{name}"))?;
        d.reset(2)?;
        d.set_u64("m_axis_pdu_tready", 1)?;
        d.set_u64("dest_ok", (1 << c.num_xpu) - 1)?;
        d.set_u64("vc_pause", 0)?;
        let mut seen = Vec::new();
        for s in 0..24u32 {
            let (dest, vc) = (s % c.num_xpu, (s / c.num_xpu) % c.num_vc);
            offer(&mut d, "s_axis_cmd", 8 * c.data_bytes as usize, c.cmd_beats() as usize, &|d: &mut Dut| {
                d.set_u64("s_axis_cmd_tdest", u64::from(dest)).unwrap();
                d.set_u64("s_axis_cmd_tuser", u64::from(vc)).unwrap();
            });
            seen.push(measure(&mut d, "s_axis_cmd", "m_axis_pdu_tvalid"));
            settle(&mut d, "m_axis_pdu_tvalid");
        }
        println!("{name}: documented {want}, measured {seen:?}");
        assert!(seen.iter().all(|&l| l == want), "{name}: documented {want}, measured {seen:?}");
    }
    Ok(())
}

/// Offers one data PDU of `ncmds` commands to `dest` on the transport's `s_axis_pdu`.
fn offer_pdu(d: &mut Dut, c: &rtl_gen::blocks::protocol::sue::SueCommon, dest: u32, vc: u32, ncmds: u32) {
    offer(d, "s_axis_pdu", 8 * c.data_bytes as usize, (ncmds * c.cmd_beats()) as usize, &|d: &mut Dut| {
        d.set_u64("s_axis_pdu_tdest", u64::from(dest)).unwrap();
        d.set_u64("s_axis_pdu_tuser", u64::from((ncmds << 2) | vc)).unwrap();
    });
}

/// Offers the received PDU `pdu` on `s_axis_rx` and measures tlast taken → `m_axis_cmd_tvalid`.
fn rx_sample(d: &mut Dut, db: usize, pdu: &[u8]) -> u32 {
    let bs = beats(pdu, db);
    for (k, b) in bs.iter().enumerate() {
        d.set("s_axis_rx_tdata", &Bits::from_bytes_width(&b.data, 8 * db)).unwrap();
        d.set("s_axis_rx_tkeep", &Bits::from_bytes_width(&b.keep.to_le_bytes()[..db / 8], db)).unwrap();
        d.set_u64("s_axis_rx_tvalid", 1).unwrap();
        d.set_u64("s_axis_rx_tlast", b.last as u64).unwrap();
        d.set_u64("s_axis_rx_tuser", 0).unwrap();
        d.eval();
        assert_eq!(d.get_u64("s_axis_rx_tready").unwrap(), 1, "an idle transport takes every beat");
        if k + 1 < bs.len() {
            d.tick();
        }
    }
    measure(d, "s_axis_rx", "m_axis_cmd_tvalid")
}

/// RX samples: data PDUs in order from XPU 1 (PSN psn_init, +1, …), one command each on VC 0.
fn rx_samples(d: &mut Dut, c: &rtl_gen::blocks::protocol::sue::SueCommon, t: &SueTransportBlock, n: u16) -> Vec<u32> {
    d.set_u64("m_axis_cmd_tready", 1).unwrap();
    (0..n)
        .map(|k| {
            let rh = Rh { ver: t.resolved.version as u8, op: Op::None, xpuid: 1, psn: (t.resolved.psn_init as u16).wrapping_add(k), vc: 0, partition: t.resolved.partition as u16, rpsn: 0 };
            let pdu = build_pdu(&rh, &vec![k as u8; c.cmd_bytes as usize], t.resolved.rcrc);
            let l = rx_sample(d, c.data_bytes as usize, &pdu);
            settle(d, "m_axis_cmd_tvalid");
            l
        })
        .collect()
}

#[test]
fn sue_transport_latency_is_the_documented_one() -> TestResult {
    let bench = bench();
    let b = bench.block::<SueTransportBlock>("tp2")?;
    let c = &b.common;
    let want = documented(&bench, "tp2", Role::SueTransport);
    assert_eq!(want, b.tx_latency());
    let m = bench.module("tp2", Role::SueTransport)?;
    let mut d = build_with_xpuid(bench.tree(), m.name(), "sue_latency_tp2", 0)?;
    d.set_u64("m_axis_tx_tready", 1)?;
    d.set_u64("tx_vc_pause", 0)?;
    d.set_u64("xpu_vc_pause", 0)?;
    d.set_u64("m_axis_cmd_tready", 1)?;
    let mut seen = Vec::new();
    for s in 0..24u32 {
        let (dest, vc, ncmds) = (1 + s % (c.num_xpu - 1), s % c.num_vc, 1 + s % 3);
        offer_pdu(&mut d, c, dest, vc, ncmds);
        seen.push(measure(&mut d, "s_axis_pdu", "m_axis_tx_tvalid"));
        settle(&mut d, "m_axis_tx_tvalid");
    }
    println!("tp2 TX: documented {want}, measured {seen:?}");
    assert!(seen.iter().all(|&l| l == want), "TX: documented {want}, measured {seen:?}");
    let rx = rx_samples(&mut d, c, b, 8);
    println!("tp2 RX: documented {}, measured {rx:?}", b.rx_latency());
    assert!(rx.iter().all(|&l| l == b.rx_latency()), "RX: documented {}, measured {rx:?}", b.rx_latency());
    Ok(())
}

#[test]
fn sue_endpoint_latency_is_the_documented_one() -> TestResult {
    let bench = bench();
    for name in ["ep2", "ep3"] {
        let b = bench.block::<SueEndpointBlock>(name)?;
        let c = &b.common;
        let want = documented(&bench, name, Role::Endpoint);
        assert_eq!(want, b.tx_latency());
        let m = bench.module(name, Role::Endpoint)?;
        let mut d = build_with_xpuid(bench.tree(), m.name(), &format!("sue_latency_{name}"), 0)?;
        d.set_u64("m_axis_tx_tready", 1)?;
        d.set_u64("tx_vc_pause", 0)?;
        d.set_u64("xpu_vc_pause", 0)?;
        d.set_u64("m_axis_cmd_tready", 1)?;
        let mut seen = Vec::new();
        for s in 0..24u32 {
            let (dest, vc) = (1 + s % (c.num_xpu - 1), s % c.num_vc);
            offer(&mut d, "s_axis_cmd", 8 * c.data_bytes as usize, c.cmd_beats() as usize, &|d: &mut Dut| {
                d.set_u64("s_axis_cmd_tdest", u64::from(dest)).unwrap();
                d.set_u64("s_axis_cmd_tuser", u64::from(vc)).unwrap();
            });
            seen.push(measure(&mut d, "s_axis_cmd", "m_axis_tx_tvalid"));
            settle(&mut d, "m_axis_tx_tvalid");
        }
        println!("{name} TX: documented {want}, measured {seen:?}");
        assert!(seen.iter().all(|&l| l == want), "{name} TX: documented {want}, measured {seen:?}");
        let rx = rx_samples(&mut d, c, &b.transport_block, 8);
        println!("{name} RX: documented {}, measured {rx:?}", b.rx_latency());
        assert!(rx.iter().all(|&l| l == b.rx_latency()), "{name} RX: documented {}, measured {rx:?}", b.rx_latency());
    }
    Ok(())
}
