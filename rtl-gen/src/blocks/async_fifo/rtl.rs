//! The `async_fifo` module: two Gray-pointer halves joined by the CDC kit's synchronizers and a
//! LUT RAM.

use super::AsyncFifoBlock;
use crate::hw::build::{and, cat, dec, eq, id, sub};
use crate::hw::cdc::{bin_of_gray, gray_counter, synchronizer};
use crate::hw::module::{GeneratedModule, Role};
use crate::hw::verilog::{ClockDomain, Expr, Item, Module, Port, Stmt};
use crate::info::DesignInfo;

pub fn module(b: &AsyncFifoBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let (w, d, s) = (b.width, b.depth, b.sync_stages);
    let (a, p) = (b.addr_bits(), b.ptr_bits());
    let wr = ClockDomain::named("wr", design.reset);
    let rd = ClockDomain::named("rd", design.reset);
    let reset_doc = |side: &str, clock: &str| crate::hw::cdc::domain_reset_doc(design.reset, &format!("{side} domain reset"), clock);
    let mut ports = vec![
        Port::input("wr_clk", 1, "write clock"),
        Port::input(&wr.reset, 1, &reset_doc("write", &wr.clock)),
        Port::input("wr_en", 1, "write wr_data at this wr_clk edge (ignored while wr_full)"),
        Port::input("wr_data", w, "word to write"),
        Port::output("wr_full", 1, "no room: a write is ignored (register of the wr_clk domain)"),
        Port::output("wr_level", p, "words held as the write side knows it (0..DEPTH; reads show late)"),
        Port::input("rd_clk", 1, "read clock"),
        Port::input(&rd.reset, 1, &reset_doc("read", &rd.clock)),
        Port::input("rd_en", 1, "read (remove the oldest word) at this rd_clk edge (ignored while rd_empty)"),
        Port::output("rd_empty", 1, "nothing to read (register of the rd_clk domain)"),
        Port::output("rd_level", p, "words held as the read side knows it (0..DEPTH; writes show late)"),
    ];
    if b.registered_output {
        ports.push(Port::output("rd_data", w, "the word removed by the read at the last rd_clk edge (register; holds until the next read)"));
        ports.push(Port::output("rd_valid", 1, "a read happened at the last rd_clk edge: rd_data is its word"));
    } else {
        ports.push(Port::output("rd_data", w, "the oldest word while !rd_empty (first word fall through)"));
    }
    let addr = |ptr: &str| Expr::slice(ptr, a - 1, 0);
    // The pointer copies each side keeps of the other's pointer (synchronizer prefix, binary value).
    let (rd_in_wr, rd_in_wr_bin) = ("rd_ptr_sync", "wr_rd_bin");
    let (wr_in_rd, wr_in_rd_bin) = ("wr_ptr_sync", "rd_wr_bin");
    // Write domain.
    let mut items = vec![
        Item::comment("Write domain (wr_clk)."),
        Item::wire("wr_push", 1, "a word is written at this edge"),
        Item::reg("wr_full_q", 1, "registered full flag"),
    ];
    items.push(Item::assign(id("wr_push"), and(id("wr_en"), id("wr_full_q").not())));
    let wp = gray_counter(&mut items, "wr_ptr", p, id("wr_push"), &wr, "Write pointer: binary addresses the storage, Gray crosses to the read side.");
    items.push(Item::comment(&format!(
        "Storage: {d} x {w} bits of LUT RAM, written on wr_clk, read asynchronously by the read side (a word is read\nonly after its write pointer update has crossed the {s}-flop synchronizer, so it is stable by then)."
    )));
    items.push(Item::LutMemory { name: "mem".into(), width: w, depth: d, doc: "words by pointer".into() });
    items.push(Item::AlwaysFfOn { domain: wr.clone(), reset: None, body: vec![Stmt::when(id("wr_push"), vec![Stmt::set(Expr::Index("mem".into(), Box::new(addr(&wp.bin))), id("wr_data"))])] });
    let rd_gray_in_wr = synchronizer(&mut items, rd_in_wr, id("rd_ptr_gray_q"), p, s, &wr, "The read pointer (Gray) seen by the write side.");
    items.push(Item::comment("Full: the next write pointer has gone round once more than the read pointer (in Gray: top two bits\ninverted, the rest equal)."));
    let full_at = if p == 2 { id(&rd_gray_in_wr).not() } else { cat(vec![Expr::slice(&rd_gray_in_wr, p - 1, p - 2).not(), Expr::slice(&rd_gray_in_wr, p - 3, 0)]) };
    items.push(Item::wire("wr_full_n", 1, "full after this edge"));
    items.push(Item::assign(id("wr_full_n"), eq(id(&wp.gray_next), full_at)));
    items.push(Item::AlwaysFfOn { domain: wr.clone(), reset: Some(vec![Stmt::set(id("wr_full_q"), Expr::zero())]), body: vec![Stmt::set(id("wr_full_q"), id("wr_full_n"))] });
    items.push(Item::wire(rd_in_wr_bin, p, "the synchronized read pointer in binary"));
    items.push(Item::assign(id(rd_in_wr_bin), bin_of_gray(&rd_gray_in_wr, p)));

    // Read domain.
    items.push(Item::comment("Read domain (rd_clk)."));
    items.push(Item::wire("rd_pop", 1, "a word is removed at this edge"));
    items.push(Item::reg("rd_empty_q", 1, "registered empty flag"));
    items.push(Item::assign(id("rd_pop"), and(id("rd_en"), id("rd_empty_q").not())));
    let rp = gray_counter(&mut items, "rd_ptr", p, id("rd_pop"), &rd, "Read pointer: binary addresses the storage, Gray crosses to the write side.");
    let wr_gray_in_rd = synchronizer(&mut items, wr_in_rd, id(&wp.gray), p, s, &rd, "The write pointer (Gray) seen by the read side.");
    items.push(Item::wire("rd_empty_n", 1, "empty after this edge: the next read pointer meets the synchronized write pointer"));
    items.push(Item::assign(id("rd_empty_n"), eq(id(&rp.gray_next), id(&wr_gray_in_rd))));
    items.push(Item::AlwaysFfOn { domain: rd.clone(), reset: Some(vec![Stmt::set(id("rd_empty_q"), Expr::one())]), body: vec![Stmt::set(id("rd_empty_q"), id("rd_empty_n"))] });
    items.push(Item::wire(wr_in_rd_bin, p, "the synchronized write pointer in binary"));
    items.push(Item::assign(id(wr_in_rd_bin), bin_of_gray(&wr_gray_in_rd, p)));
    let head = Expr::Index("mem".into(), Box::new(addr(&rp.bin)));
    if b.registered_output {
        items.push(Item::reg("rd_data_q", w, "the word removed by the last read"));
        items.push(Item::reg("rd_valid_q", 1, "a read happened at the last edge"));
        items.push(Item::AlwaysFfOn {
            domain: rd.clone(),
            reset: Some(vec![Stmt::set(id("rd_data_q"), dec(w, 0)), Stmt::set(id("rd_valid_q"), Expr::zero())]),
            body: vec![Stmt::when(id("rd_pop"), vec![Stmt::set(id("rd_data_q"), head)]), Stmt::set(id("rd_valid_q"), id("rd_pop"))],
        });
        items.push(Item::assign(id("rd_data"), id("rd_data_q")));
        items.push(Item::assign(id("rd_valid"), id("rd_valid_q")));
    } else {
        items.push(Item::assign(id("rd_data"), head));
    }
    items.extend([
        Item::assign(id("wr_full"), id("wr_full_q")),
        Item::assign(id("wr_level"), sub(id(&wp.bin), id(rd_in_wr_bin))),
        Item::assign(id("rd_empty"), id("rd_empty_q")),
        Item::assign(id("rd_level"), sub(id(wr_in_rd_bin), id(&rp.bin))),
    ]);
    let regs = super::props::Regs { wp: &wp, rp: &rp, rd_in_wr, wr_in_rd, rd_in_wr_bin, wr_in_rd_bin };
    items.push(super::props::properties(b, design, &regs));
    let l = b.flag_latency();
    let read = if b.registered_output { format!("rd_data and rd_valid show a word one rd_clk edge after the read that removes it (a word written at a wr_clk edge can be on rd_data after {} rd_clk edges at the earliest).", l + 1) } else { format!("rd_data shows the oldest word combinationally from the storage while !rd_empty, so a written word is on rd_data {l} rd_clk edges after its write edge at the earliest.") };
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: Some(design.reset) },
        latency: l,
        summary: format!(
            "Asynchronous FIFO of {d} words of {w} bits between wr_clk and rd_clk: binary/Gray pointer pairs in each domain, each Gray pointer crossing through a {s}-flop synchronizer, LUT-RAM storage, full and empty registered from the next pointers."
        ),
        notes: vec![
            format!("Latency {l} = sync_stages + 1: a word written at a wr_clk edge makes rd_empty fall at rd_clk edge {l} after it; a read that frees a slot makes wr_full fall at wr_clk edge {l} after it. An edge of the other clock inside the first synchronizer flop's sampling window may count or not: each figure can be one cycle more in hardware."),
            read,
            format!("wr_level = write pointer - synchronized read pointer and rd_level = synchronized write pointer - read pointer ({p} bits, 0..{d}): each side's view, late by the synchronizer for the other side's moves."),
            "Reset: wr_rst* clears the write pointer, its synchronizer and wr_full; rd_rst* the read pointer, its synchronizer and rd_empty (set), rd_data/rd_valid when registered. Assert both together (each for at least one edge of its clock with the synchronous reset) and release them in either order: a FIFO reset on one side only sees a stale pointer of the other.".into(),
            "Crossings: only wr_ptr_gray_q -> wr_ptr_sync_s1 (rd_clk), rd_ptr_gray_q -> rd_ptr_sync_s1 (wr_clk) and the storage read (mem -> rd_data); the emitted constraints give the pointer paths a datapath-only maximum delay of one period of the faster clock.".into(),
        ],
        role: Role::AsyncFifo,
        origin: None,
    }
}
