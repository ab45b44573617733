//! RIFL temporal channel bonding (`user_clk_ratio` 2 and 4) in Verilator: `clk` and `user_clk`
//! of one source driven edge by edge, an edge both clocks share one evaluation with both rising
//! (one eval per edge, as the GT width converter's co-simulation; the two clocks are related, so
//! one schedule of user_clk edges with clk on every T-th is the whole timing). The bonding
//! stages against their models at every phase of user_clk against clk (random packets, gaps,
//! backpressure both ways, full rate without bubbles); then two whole nodes back to back,
//! packets both ways with gaps and backpressure on user_clk: every packet delivered exactly
//! once, in order, bit-exact. `RTLGEN_LONG=1` runs ten times the traffic.

mod common;

use common::{scaled, TestResult};
use rtl_gen::hw::module::Role;
use rtl_gen_sim::cosim::{rifl_bond, Options, Tally};
use rtl_gen_sim::{Bench, Dut, TestRng};
use std::collections::VecDeque;

/// A two-lane node of 128-bit frames at T = 2 (64-bit user beats, 128 bits on clk) and at
/// T = 4 (64-bit user beats, 256 bits on clk), the second with asynchronous active-low resets.
const DESIGN: &str = r#"
[design]
name = "bond"
prefix = "bond_"
reset = "sync_high"
clock_mhz = 109.4

[[blocks]]
kind = "rifl"
name = "t2"
frame_bits = 128
user_bits = 64
lanes = 2
user_clk_ratio = 2

[[blocks]]
kind = "rifl"
name = "t4"
frame_bits = 128
user_bits = 64
lanes = 2
user_clk_ratio = 4
reset = "async_low"
"#;

/// The design's generated tree, or with `RTLGEN_BOND_TREE` the tree in that folder as it is
/// (a copy with a planted bug shows what the tests catch).
fn bench() -> Bench {
    match std::env::var("RTLGEN_BOND_TREE") {
        Ok(dir) if !dir.is_empty() => Bench::from_tree(dir).expect("the tree in RTLGEN_BOND_TREE"),
        _ => Bench::from_toml(DESIGN, "bond.toml").expect("the bonding design"),
    }
}

fn clean(t: &Tally, what: &str, rng: &TestRng) -> TestResult {
    println!("{what}: {} vectors, {} cycles, {} mismatches", t.vectors, t.cycles, t.mismatches);
    if t.mismatches == 0 && t.vectors > 0 {
        return Ok(());
    }
    Err(format!("{what}: {} mismatches in {} vectors; first: {:?}; {}", t.mismatches, t.vectors, t.first, rng.replay_hint()).into())
}

#[test]
fn the_bonding_stages_match_their_models_at_every_phase() -> TestResult {
    let bench = bench();
    for block in ["t2", "t4"] {
        let mut rng = TestRng::for_test(&format!("rifl_bond_stages_{block}"))?;
        let opts = Options { vectors: scaled(6_000), ..Options::default() };
        let t = rifl_bond::bond_tx(&bench, bench.module(block, Role::TemporalBondTx)?, &opts, &mut rng)?;
        clean(&t, &format!("{block} TX bonding"), &rng)?;
        let t = rifl_bond::bond_rx(&bench, bench.module(block, Role::TemporalBondRx)?, &opts, &mut rng)?;
        clean(&t, &format!("{block} RX bonding"), &rng)?;
    }
    Ok(())
}

/// One node's ports by name, the resets by style.
struct Node {
    dut: Dut,
    low: bool,
}

impl Node {
    fn set_resets(&mut self, on: bool) -> TestResult {
        let level = u64::from(on != self.low);
        for r in ["rst", "user_rst"] {
            let name = if self.low { format!("{r}_n") } else { r.to_string() };
            self.dut.set_u64(&name, level)?;
        }
        Ok(())
    }
}

/// Random packets of 1..=max_bytes bytes.
fn packets(n: usize, max_bytes: u64, rng: &mut TestRng) -> VecDeque<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = rng.range(1, max_bytes) as usize;
            rng.bytes(len)
        })
        .collect()
}

/// The user-side sender of one node: the packet being sent and its next beat.
struct Sender {
    queue: VecDeque<Vec<u8>>,
    at: usize,
    offered: bool,
}

impl Sender {
    /// Drive s_axis with the current beat (held until taken), or nothing.
    fn drive(&mut self, dut: &mut Dut, w: usize, offer: bool) -> TestResult {
        self.offered |= offer && !self.queue.is_empty();
        let Some(p) = self.queue.front().filter(|_| self.offered) else {
            dut.set_u64("s_axis_tvalid", 0)?;
            return Ok(());
        };
        let end = (self.at + w).min(p.len());
        let mut bytes = p[self.at..end].to_vec();
        let kept = bytes.len();
        bytes.resize(w, 0);
        let mut keep = rtl_gen::bits::Bits::zeros(w);
        for i in 0..kept {
            keep.set(i, true);
        }
        dut.set("s_axis_tdata", &rtl_gen::bits::Bits::from_bytes(&bytes))?;
        dut.set("s_axis_tkeep", &keep)?;
        dut.set_u64("s_axis_tlast", u64::from(end == p.len()))?;
        dut.set_u64("s_axis_tvalid", 1)?;
        Ok(())
    }

    /// The beat offered was taken (s_axis_tready before the edge).
    fn taken(&mut self, w: usize) {
        let len = self.queue.front().map_or(0, Vec::len);
        self.at += w;
        self.offered = false;
        if self.at >= len {
            self.queue.pop_front();
            self.at = 0;
        }
    }
}

/// The receiving side: the packet being assembled and the packets delivered.
#[derive(Default)]
struct Receiver {
    partial: Vec<u8>,
    packets: Vec<Vec<u8>>,
}

impl Receiver {
    fn take(&mut self, dut: &Dut) -> TestResult {
        let data = dut.get("m_axis_tdata")?;
        let keep = dut.get("m_axis_tkeep")?;
        for i in 0..keep.width() {
            if keep.get(i) {
                self.partial.push(data.byte(i));
            }
        }
        if dut.get_u64("m_axis_tlast")? == 1 {
            self.packets.push(std::mem::take(&mut self.partial));
        }
        Ok(())
    }
}

/// Two nodes of block `block` back to back (each node's tx_frame the other's rx_frame one clk
/// cycle later, tx_ready high): `n` packets each way with gaps and backpressure on user_clk.
fn link(bench: &Bench, block: &str, n: usize, rng: &mut TestRng) -> TestResult {
    let m = bench.module(block, Role::Node)?;
    let t = if block == "t2" { 2 } else { 4 };
    let w = m.module.ports.iter().find(|p| p.name == "s_axis_tdata").map(|p| p.width as usize / 8).expect("s_axis_tdata");
    let lanes = m.module.ports.iter().find(|p| p.name == "rx_valid").map(|p| p.width).expect("rx_valid");
    let mut nodes = Vec::new();
    for side in ["a", "b"] {
        let dut = Dut::build_named(bench.tree(), m.name(), &format!("rifl_bond_{block}_{side}"))?;
        let low = dut.port("rst_n").is_ok();
        nodes.push(Node { dut, low });
    }
    let mut senders: Vec<Sender> = (0..2).map(|_| Sender { queue: packets(n, 5 * w as u64, rng), at: 0, offered: false }).collect();
    let sent: Vec<Vec<Vec<u8>>> = senders.iter().map(|s| s.queue.iter().cloned().collect()).collect();
    let mut receivers: Vec<Receiver> = (0..2).map(|_| Receiver::default()).collect();
    for node in &mut nodes {
        node.set_resets(true)?;
        node.dut.set_u64("tx_ready", 1)?;
        node.dut.set_u64("rx_valid", (1 << lanes) - 1)?;
        node.dut.set_u64("s_axis_tvalid", 0)?;
        node.dut.set_u64("m_axis_tready", 0)?;
    }
    let edge = |dut: &mut Dut, shared: bool| -> TestResult {
        if shared {
            dut.set_u64("clk", 1)?;
        }
        dut.set_u64("user_clk", 1)?;
        dut.eval();
        dut.set_u64("clk", 0)?;
        dut.set_u64("user_clk", 0)?;
        dut.eval();
        Ok(())
    };
    for e in 0..4 * t {
        for node in &mut nodes {
            edge(&mut node.dut, e % t == 0)?;
        }
    }
    for node in &mut nodes {
        node.set_resets(false)?;
    }
    // Traffic phases: bursts at full rate, then gaps and backpressure.
    let limit = 400 * n * t + 20_000;
    let mut e = 0;
    while receivers.iter().zip(&sent).any(|(r, s)| r.packets.len() < s.len()) && e < limit {
        let shared = e % t == 0;
        let calm = (e / 3000) % 2 == 0;
        for k in 0..2 {
            let offer = calm || rng.chance(0.6);
            senders[k].drive(&mut nodes[k].dut, w, offer)?;
            let ready = calm || rng.chance(0.5);
            nodes[k].dut.set_u64("m_axis_tready", u64::from(ready))?;
            nodes[k].dut.eval();
        }
        for k in 0..2 {
            let dut = &nodes[k].dut;
            if dut.get_u64("s_axis_tvalid")? == 1 && dut.get_u64("s_axis_tready")? == 1 {
                senders[k].taken(w);
            }
            if dut.get_u64("m_axis_tvalid")? == 1 && dut.get_u64("m_axis_tready")? == 1 {
                receivers[k].take(dut)?;
            }
        }
        for node in &mut nodes {
            edge(&mut node.dut, shared)?;
        }
        if shared {
            // The frames registered at this clk edge reach the far end before the next one.
            let frames = [nodes[0].dut.get("tx_frame")?, nodes[1].dut.get("tx_frame")?];
            nodes[0].dut.set("rx_frame", &frames[1])?;
            nodes[1].dut.set("rx_frame", &frames[0])?;
        }
        e += 1;
    }
    for k in 0..2 {
        let (got, want) = (&receivers[1 - k].packets, &sent[k]);
        assert_eq!(got.len(), want.len(), "{block}: node {k}'s packets delivered after {e} user_clk edges");
        for (i, (g, s)) in got.iter().zip(want).enumerate() {
            assert_eq!(g, s, "{block}: node {k}'s packet {i} ({} bytes) arrived as {} bytes or different; {}", s.len(), g.len(), rng.replay_hint());
        }
    }
    println!("{block}: {} packets each way in {e} user_clk edges", sent[0].len());
    Ok(())
}

#[test]
fn two_bonded_nodes_pass_every_packet_exactly_once_in_order() -> TestResult {
    let bench = bench();
    for block in ["t2", "t4"] {
        let mut rng = TestRng::for_test(&format!("rifl_bond_link_{block}"))?;
        link(&bench, block, scaled(150), &mut rng)?;
    }
    Ok(())
}
