//! The streaming encoder `<prefix><name>_enc` (`symbols_per_cycle` = P < N): P symbols per
//! beat in and out, two register stages (latency 2 clocks), one codeword every B = ⌈N/P⌉ beats.
//!
//! The input is codeword-shaped: B beats, message symbols in lanes of positions < K, the check
//! and padding lanes ignored. The output carries the message unchanged, the check symbols in
//! positions K..N−1 and zeros in the padding lanes. The divider state (the running remainder of
//! msg(x)·x^2t mod g(x), 2t symbols) advances by P message symbols per beat. The step is
//! linear in (state, beat), so it is split where the register loop is: the input stage
//! registers the beat's own contribution (`s1_part`, a network over the beat's message lanes
//! only, no feedback), and the loop is the state's contribution plus that register (about half
//! the columns of the state per output bit instead of half of state and beat). The beat
//! holding the last message symbols uses networks over its message lanes only; its remainder is
//! both output (check lanes of that beat) and kept for later beats' check lanes. Both stages
//! move together on `fire` (the output register empty or being taken), so one beat per clock
//! streams through.

use super::model::stream::{last_message_beat, StreamCode};
use super::stream_common::{beat_ports, emit_linear, symbol, Linear};
use super::RsFecBlock;
use crate::info::DesignInfo;
use crate::hw::build::{add, and, cat, clog2, dec, eq, id, if_else, localparam, mux, ne, or, set_id, when, wire, zeros};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{BinOp, Expr, Item, Module, Port};
use crate::hw::xor_net::XorStyle;

pub fn module(b: &RsFecBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let code = b.stream_code();
    let (p, n, k) = (code.p, code.code.n(), code.code.k());
    let m = b.symbol_bits;
    let nroots = 2 * code.t();
    let beats = code.beats();
    let mb = last_message_beat(&code);
    let end_lanes = k - mb * p;
    let bw = clog2(beats as u64);
    let dw = p as u32 * m;
    let sw = nroots as u32 * m;
    let mut ports = clock_ports(design);
    ports.extend(beat_ports(b, "message"));
    ports.push(Port::output("frame_error", 1, "pulse: an accepted beat's in_tlast disagreed with the beat count (the count wins)"));
    let mut items = Vec::new();
    let last_beat = localparam(&mut items, "LAST_BEAT", bw, (beats - 1) as u64, "beat index of tlast");
    let msg_beat = localparam(&mut items, "MSG_END_BEAT", bw, mb as u64, "beat holding the last message symbol");
    for (r, w, doc) in [
        ("beat", bw, "beat index of the next input beat"),
        ("s1_valid", 1, "input stage full"),
        ("s1_beat", bw, "the input stage's beat index"),
        ("s1_data", dw, "the input stage's beat"),
        ("s1_part", sw, "the input stage's message lanes divided into the remainder from a zero state"),
        ("state", sw, "divider remainder, check symbol j (highest degree first) at symbol j"),
        ("out_tvalid_r", 1, "output register full"),
        ("out_tlast_r", 1, ""),
        ("out_tdata_r", dw, ""),
        ("frame_error_r", 1, ""),
    ] {
        items.push(Item::reg(r, w, doc));
    }
    wire(&mut items, "fire", 1, "both stages move: the output register is empty or being taken", or(Expr::id("out_tvalid_r").lnot(), id("out_tready")));
    wire(&mut items, "accept", 1, "an input beat is taken", and(id("in_tvalid"), id("fire")));
    wire(&mut items, "is_last", 1, "the input beat is the codeword's last", eq(id("beat"), last_beat.clone()));
    wire(&mut items, "s1_last", 1, "the input stage holds the codeword's last beat", eq(id("s1_beat"), last_beat));

    // Input stage: the beat's contribution, over all lanes or (last message beat) its message lanes.
    items.push(Item::comment("The input beat's message lanes divided from a zero state (no feedback: registered in s1_part)."));
    let part = |lanes: usize| {
        let code: StreamCode = code.clone();
        move |x: &[u16]| code.encode_step(&vec![0; 2 * code.t()], &x[..lanes])
    };
    emit_linear(&mut items, m, &Linear { out: "part_full", doc: "a full message beat's contribution", input: "in_tdata", ins: p, outs: nroots, style: XorStyle::Masked }, part(p));
    let part_next = if end_lanes == p {
        id("part_full")
    } else {
        emit_linear(&mut items, m, &Linear { out: "part_end", doc: "the last message beat's contribution", input: "in_tdata", ins: p, outs: nroots, style: XorStyle::Masked }, part(end_lanes));
        mux(eq(id("beat"), msg_beat.clone()), id("part_end"), id("part_full"))
    };

    // Output stage: the register loop, state advanced over the beat's lanes plus s1_part.
    items.push(Item::comment("The state advanced over a beat of zeros, plus the registered contribution: the divider's register loop."));
    wire(&mut items, "loop_in", 2 * sw, "{state, s1_part}: the loop networks' input", cat(vec![id("state"), id("s1_part")]));
    let step = |lanes: usize| {
        let code: StreamCode = code.clone();
        move |x: &[u16]| {
            let nr = 2 * code.t();
            let mut r = code.encode_step(&x[nr..], &vec![0; lanes]);
            r.iter_mut().zip(&x[..nr]).for_each(|(a, b)| *a ^= b);
            r
        }
    };
    emit_linear(&mut items, m, &Linear { out: "rem_full", doc: "remainder after a full message beat", input: "loop_in", ins: 2 * nroots, outs: nroots, style: XorStyle::Masked }, step(p));
    let rem_end = if end_lanes == p {
        "rem_full"
    } else {
        emit_linear(&mut items, m, &Linear { out: "rem_end", doc: "remainder after the last message beat", input: "loop_in", ins: 2 * nroots, outs: nroots, style: XorStyle::Masked }, step(end_lanes));
        "rem_end"
    };
    // Output lanes: message, check (from rem_end in beat mb, from state later) or padding.
    let mut lanes = Vec::new();
    for lane in 0..p {
        let mut e = symbol("s1_data", m, lane);
        for bt in (0..beats).rev() {
            let pos = bt * p + lane;
            if pos < k {
                continue;
            }
            let src = if pos >= n {
                zeros(m)
            } else if bt == mb {
                symbol(rem_end, m, pos - k)
            } else {
                symbol("state", m, pos - k)
            };
            // The last beat is `s1_last` (s1_beat == LAST_BEAT), the others by their index.
            let at = if bt == beats - 1 { id("s1_last") } else { eq(id("s1_beat"), dec(bw, bt as u64)) };
            e = mux(at, src, e);
        }
        lanes.push(e);
    }
    lanes.reverse();
    wire(&mut items, "enc_beat", dw, "the encoded beat", cat(lanes));
    let state_next = if_else(
        id("s1_last"),
        vec![set_id("state", zeros(sw))],
        vec![if_else(
            eq(id("s1_beat"), msg_beat.clone()),
            vec![set_id("state", id(rem_end))],
            vec![when(Expr::bin(BinOp::Lt, id("s1_beat"), msg_beat), vec![set_id("state", id("rem_full"))])],
        )],
    );
    items.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id("beat", dec(bw, 0)),
            set_id("state", zeros(sw)),
            set_id("s1_valid", dec(1, 0)),
            set_id("out_tvalid_r", dec(1, 0)),
            set_id("frame_error_r", dec(1, 0)),
        ]),
        body: vec![
            set_id("frame_error_r", and(id("accept"), ne(id("in_tlast"), id("is_last")))),
            when(id("fire"), vec![set_id("s1_valid", id("in_tvalid")), set_id("out_tvalid_r", id("s1_valid"))]),
            when(id("accept"), vec![set_id("beat", mux(id("is_last"), dec(bw, 0), add(id("beat"), dec(bw, 1))))]),
            when(and(id("fire"), id("s1_valid")), vec![state_next]),
        ],
    });
    items.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            when(id("accept"), vec![set_id("s1_data", id("in_tdata")), set_id("s1_beat", id("beat")), set_id("s1_part", part_next)]),
            when(and(id("fire"), id("s1_valid")), vec![set_id("out_tdata_r", id("enc_beat")), set_id("out_tlast_r", id("s1_last"))]),
        ],
    });
    for (port, reg) in [("in_tready", "fire"), ("out_tvalid", "out_tvalid_r"), ("out_tlast", "out_tlast_r"), ("out_tdata", "out_tdata_r"), ("frame_error", "frame_error_r")] {
        items.push(Item::assign(id(port), id(reg)));
    }
    items.extend(super::stream_props::encoder(b, design.reset));
    let notes = super::stream_common::beat_notes(b, &code);
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: Some(design.reset) },
        latency: 2,
        summary: format!(
            "Streaming Reed-Solomon encoder RS({n},{k}) over GF(2^{m}), t = {}: {p} symbols per beat, {beats} beats per codeword, an input stage (the beat's contribution to the remainder registered) and an output register (latency 2 clocks), AXI4-Stream-style ready/valid.",
            code.t()
        ),
        notes,
        role: Role::FecEnc,
        origin: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::pack_symbols;
    use super::super::model::stream::EncIn;
    use super::super::test_support::{block, design, Rng};
    use crate::hw::eval::{Bits, Sim};

    /// The encoder's Verilog tree in the evaluator against the cycle model, with idle input
    /// cycles and output backpressure.
    fn check(fields: &str, words: usize) {
        let d = design(fields, "sync_high");
        let b = block(&d);
        let module = super::module(b, &d.info, "t_f_enc");
        let mut sim = Sim::new(&module.module);
        let mut model = b.stream_encoder();
        let code = b.stream_code();
        let (p, m) = (code.p, b.symbol_bits);
        let mask = code.field().mask();
        let mut rng = Rng::new(5);
        sim.set_u64("rst", 1);
        sim.clock();
        sim.set_u64("rst", 0);
        let beats: Vec<Vec<u16>> = (0..words * code.beats()).map(|_| (0..p).map(|_| rng.symbol(mask)).collect()).collect();
        let mut next = 0;
        let mut cycle = 0;
        while next < beats.len() && cycle < 100_000 {
            cycle += 1;
            let valid = rng.below(4) != 0;
            let ready = rng.below(3) != 0;
            let data = &beats[next];
            let tlast = (next + 1) % code.beats() == 0;
            sim.set("in_tdata", &Bits::from_bytes_width(&pack_symbols(data, m), p * m as usize));
            sim.set_u64("in_tvalid", valid.into());
            sim.set_u64("in_tlast", tlast.into());
            sim.set_u64("out_tready", ready.into());
            sim.settle();
            assert_eq!(sim.get_u64("in_tready") == 1, model.ready(ready), "cycle {cycle}");
            assert_eq!(sim.get_u64("out_tvalid") == 1, model.out_tvalid);
            if model.out_tvalid {
                assert_eq!(sim.get("out_tdata").to_bytes(), pack_symbols(&model.out_tdata, m), "cycle {cycle}");
                assert_eq!(sim.get_u64("out_tlast") == 1, model.out_tlast);
            }
            assert_eq!(sim.get_u64("frame_error") == 1, model.frame_error);
            if valid && model.ready(ready) {
                next += 1;
            }
            model.clock(&EncIn { tvalid: valid, tdata: data, tlast, out_tready: ready });
            sim.clock();
        }
        assert_eq!(next, beats.len());
    }

    #[test]
    fn streaming_encoders_match_the_model() {
        let kp4 = "symbol_bits = 10\nfield_poly = 0x409\ncheck_symbols = 30\nmsg_symbols = 514";
        check(&format!("{kp4}\nsymbols_per_cycle = 32"), 3);
        check(&format!("{kp4}\nsymbols_per_cycle = 8"), 2);
        check("symbol_bits = 8\ncheck_symbols = 8\nmsg_symbols = 30\nfcr = 1\nsymbols_per_cycle = 3", 4);
        check("symbol_bits = 8\ncheck_symbols = 8\nmsg_symbols = 32\nsymbols_per_cycle = 5", 4);
    }
}
