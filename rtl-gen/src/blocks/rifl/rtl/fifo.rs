//! `<p>_fifo`: the per-lane flow-control buffer (see `model::fifo`).

use crate::hw::build::*;
use super::Names;
use crate::blocks::rifl::model::params::Params;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::verilog::{Expr, Item, Module, Port};

pub fn module(p: &Params, design: &DesignInfo, n: &Names) -> GeneratedModule {
    let r = p.raw_bits() as u32;
    let d = p.fc_buffer_frames as u64;
    let aw = clog2(d);
    let lw = bits_for(d + 1);
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("push", 1, "store din (dropped if the memory is full, which the thresholds prevent)"),
        Port::input("din", r, "raw region {payload, meta} of a delivered frame"),
        Port::input("pop", 1, "take the head (ignored unless dout_valid)"),
        Port::output("dout", r, "head entry (first word fall through)"),
        Port::output("dout_valid", 1, "dout holds an entry"),
        Port::output("high", 1, &format!("level > FC_ON_FRAMES ({}) (registered)", p.fc_on_frames)),
        Port::output("low", 1, &format!("level < FC_OFF_FRAMES ({}) (registered)", p.fc_off_frames)),
    ]);
    let wrap = |ptr: &str| {
        if d.is_power_of_two() {
            add(id(ptr), dec(aw, 1))
        } else {
            Expr::mux(Expr::eq(id(ptr), id("LAST_ADDR")), dec(aw, 0), add(id(ptr), dec(aw, 1)))
        }
    };
    let mut it: Vec<Item> = Vec::new();
    localparam(&mut it, "DEPTH", lw, d, "memory entries (fc_buffer_frames)");
    if !d.is_power_of_two() {
        localparam(&mut it, "LAST_ADDR", aw, d - 1, "the pointers wrap after this entry");
    }
    localparam(&mut it, "FC_ON_FRAMES", lw, p.fc_on_frames as u64, "above this level: ask the far end to pause");
    localparam(&mut it, "FC_OFF_FRAMES", lw, p.fc_off_frames as u64, "below this level: let the far end resume");
    // The flags are registers, each the comparison of the next level: the next level is this one
    // plus or minus at most one, so the three candidate comparisons read the level register and
    // the accepted push and pop only choose between them (the pop arrives late, from the RX
    // gearbox through the group assembly, and the flags feed the TX controller's go).
    localparam(&mut it, "HIGH_AFTER_POP", lw, p.fc_on_frames as u64 + 1, "above this level the buffer is still high after a pop");
    localparam(&mut it, "LOW_AFTER_PUSH", lw, (p.fc_off_frames as u64).saturating_sub(1), "below this level the buffer is still low after a push (fc_off_frames is at least 1)");
    it.extend([
        Item::Memory { name: "mem".into(), width: r, depth: d as u32, doc: "storage (block RAM, synchronous read)".into() },
        Item::reg("wr_ptr", aw, ""),
        Item::reg("rd_ptr", aw, ""),
        Item::reg("mem_count", lw, "entries in the memory"),
        Item::reg("head", r, "head register (the RAM read register)"),
        Item::reg("head_valid", 1, ""),
        Item::reg("level", lw, "entries held (memory + head)"),
        Item::reg("high_q", 1, "level > FC_ON_FRAMES"),
        Item::reg("low_q", 1, "level < FC_OFF_FRAMES"),
    ]);
    wire(&mut it, "pop_ok", 1, "", Expr::and(id("pop"), id("head_valid")));
    wire(&mut it, "fetch", 1, "load the head from the memory", Expr::and(ne(id("mem_count"), dec(lw, 0)), Expr::or(id("head_valid").not(), id("pop_ok"))));
    wire(&mut it, "push_ok", 1, "", Expr::and(id("push"), ne(id("mem_count"), id("DEPTH"))));
    it.push(Item::assign(id("high"), id("high_q")));
    it.push(Item::assign(id("low"), id("low_q")));
    it.push(Item::assign(id("dout"), id("head")));
    it.push(Item::assign(id("dout_valid"), id("head_valid")));
    it.push(Item::AlwaysFf { reset: None, body: vec![when(id("push_ok"), vec![set(Expr::Index("mem".into(), Box::new(id("wr_ptr"))), id("din"))])] });
    it.push(Item::AlwaysFf { reset: None, body: vec![when(id("fetch"), vec![set_id("head", Expr::Index("mem".into(), Box::new(id("rd_ptr"))))])] });
    it.push(Item::comment("Counts step by one at most: the incremented and decremented values come from the registers, the transfers only select."));
    let one = dec(lw, 1);
    let step = |reg: &str, up: Expr, down: Expr| Expr::mux(Expr::and(up.clone(), down.clone().not()), add(id(reg), one.clone()), Expr::mux(Expr::and(down, up.not()), sub(id(reg), one.clone()), id(reg)));
    wire(&mut it, "mem_count_next", lw, "", step("mem_count", id("push_ok"), id("fetch")));
    wire(&mut it, "level_up", 1, "a push is accepted and the head is not taken", Expr::and(id("push_ok"), id("pop_ok").not()));
    wire(&mut it, "level_down", 1, "the head is taken and no push is accepted", Expr::and(id("pop_ok"), id("push_ok").not()));
    wire(&mut it, "level_next", lw, "", Expr::mux(id("level_up"), add(id("level"), one.clone()), Expr::mux(id("level_down"), sub(id("level"), one), id("level"))));
    let by_step = |up: Expr, hold: Expr, down: Expr| Expr::mux(id("level_up"), up, Expr::mux(id("level_down"), down, hold));
    wire(&mut it, "high_next", 1, "level_next > FC_ON_FRAMES", by_step(ge(id("level"), id("FC_ON_FRAMES")), gt(id("level"), id("FC_ON_FRAMES")), gt(id("level"), id("HIGH_AFTER_POP"))));
    wire(&mut it, "low_next", 1, "level_next < FC_OFF_FRAMES", by_step(lt(id("level"), id("LOW_AFTER_PUSH")), lt(id("level"), id("FC_OFF_FRAMES")), le(id("level"), id("FC_OFF_FRAMES"))));
    it.push(Item::AlwaysFf {
        reset: Some(vec![
            set_id("wr_ptr", dec(aw, 0)),
            set_id("rd_ptr", dec(aw, 0)),
            set_id("mem_count", dec(lw, 0)),
            set_id("head_valid", Expr::zero()),
            set_id("level", dec(lw, 0)),
            set_id("high_q", Expr::zero()),
            set_id("low_q", Expr::one()),
        ]),
        body: vec![
            when(id("push_ok"), vec![set_id("wr_ptr", wrap("wr_ptr"))]),
            when(id("fetch"), vec![set_id("rd_ptr", wrap("rd_ptr"))]),
            set_id("mem_count", id("mem_count_next")),
            set_id("head_valid", Expr::or(id("fetch"), Expr::and(id("head_valid"), id("pop_ok").not()))),
            set_id("level", id("level_next")),
            set_id("high_q", id("high_next")),
            set_id("low_q", id("low_next")),
        ],
    });
    it.push(super::fifo_props::properties(design, r, d, aw, lw));
    GeneratedModule {
        module: Module { name: n.fifo.clone(), ports, items: it, reset: Some(design.reset) },
        latency: 2,
        summary: format!(
            "Flow-control buffer of one lane (§4.D): a first-word-fall-through FIFO of {d} x {r}-bit entries in block RAM plus a head register; high/low drive the flow-control pause/resume frames (Eq. 23-25)."
        ),
        notes: vec![
            "A push reaches dout two edges later; fetch = memory not empty and (head empty or popped). A push into a full memory is dropped (cannot happen when fc_buffer_frames - fc_on_frames covers a round trip).".into(),
            "Timing: high and low are registers holding the comparison of this cycle's level (memory + head, itself a register): the level moves by one at most per edge, so their next values are comparisons of the level register chosen by the accepted push and pop, and the flags reach the TX controller straight from flip-flops.".into(),
        ],
        role: Role::Fifo,
        origin: None,
    }
}
