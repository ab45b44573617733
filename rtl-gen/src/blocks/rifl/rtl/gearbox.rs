//! `<p>_txgear` / `<p>_rxgear`: the AXI4-Stream width converter (see `model::gearbox`).

use crate::hw::build::*;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::config::DesignInfo;
use crate::hw::verilog::{Expr, Item, Module, Port};

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

pub fn module(design: &DesignInfo, name: &str, role: Role, in_bytes: u32, out_bytes: u32, overlap: bool, what: &str) -> GeneratedModule {
    let (ib, ob) = (in_bytes, out_bytes);
    let cap = ib + ob;
    let g = gcd(ib, ob);
    let fw = bits_for(cap as u64);
    let cw = bits_for(ib as u64);
    let bits = 8 * cap;
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("in_valid", 1, "input beat offered"),
        Port::output("in_ready", 1, "input beat taken (looks at this cycle's output transfer)"),
        Port::input("in_data", 8 * ib, "byte i at [8i+7:8i]; bytes not kept are ignored"),
        Port::input("in_keep", ib, "kept bytes, contiguous from byte 0, at least one; all unless in_last"),
        Port::input("in_last", 1, "last beat of a packet"),
        Port::output("out_valid", 1, "output beat offered"),
        Port::input("out_ready", 1, "output beat taken"),
        Port::output("out_data", 8 * ob, "byte i at [8i+7:8i]; bytes not kept are zero"),
        Port::output("out_keep", ob, "kept bytes, contiguous from byte 0"),
        Port::output("out_last", 1, "last beat of a packet"),
    ]);
    let mut it: Vec<Item> = Vec::new();
    localparam(&mut it, "OUT_BYTES", fw, ob as u64, "bytes of an output beat");
    localparam(&mut it, "IN_ROOM", fw, (cap - ib) as u64, &format!("an input beat fits while base <= this ({cap}-byte buffer - {ib}-byte input beat)"));
    it.extend([
        Item::reg("buf_q", bits, &format!("{cap} bytes: the packet's bytes at the bottom, zero above fill")),
        Item::reg("fill", fw, "bytes held"),
        Item::reg("eop", 1, "the packet's last beat is in"),
    ]);
    thermo_count(&mut it, "in_count", "in_keep", ib);
    let keep_bytes = cat((0..ib).rev().map(|i| Expr::Repeat(8, Box::new(bit_of("in_keep", ib, i)))).collect());
    wire(&mut it, "in_masked", 8 * ib, "in_data with the bytes not kept zeroed", Expr::and(id("in_data"), keep_bytes));
    it.push(Item::comment("Output: the bottom beat; last when the packet ends within it."));
    it.push(Item::assign(id("out_valid"), Expr::or(ge(id("fill"), id("OUT_BYTES")), id("eop"))));
    it.push(Item::assign(id("out_last"), Expr::and(id("eop"), le(id("fill"), id("OUT_BYTES")))));
    it.push(Item::assign(id("out_data"), Expr::slice("buf_q", 8 * ob - 1, 0)));
    for i in 0..ob {
        it.push(Item::assign(bit_of("out_keep", ob, i), lt(dec(fw, i as u64), id("fill"))));
    }
    wire(&mut it, "do_out", 1, "", Expr::and(id("out_valid"), id("out_ready")));
    wire(&mut it, "do_in", 1, "", Expr::and(id("in_valid"), id("in_ready")));
    wire(&mut it, "flush", 1, "the packet's last beat leaves", Expr::and(id("do_out"), id("out_last")));
    wire(
        &mut it,
        "kept",
        bits,
        "buffer after the output transfer",
        Expr::mux(id("flush"), dec(bits, 0), Expr::mux(id("do_out"), cat(vec![zeros(8 * ob), Expr::slice("buf_q", bits - 1, 8 * ob)]), id("buf_q"))),
    );
    wire(
        &mut it,
        "base",
        fw,
        "fill level after the output transfer: where the input bytes go",
        Expr::mux(id("flush"), dec(fw, 0), Expr::mux(id("do_out"), sub(id("fill"), id("OUT_BYTES")), id("fill"))),
    );
    let open = if overlap { Expr::or(id("eop").not(), id("flush")) } else { id("eop").not() };
    it.push(Item::assign(id("in_ready"), Expr::and(open, le(id("base"), id("IN_ROOM")))));
    // base is a multiple of g = gcd(I, O) whenever an input is placed: shift in g-byte units,
    // over the base bits that can be set below C - I.
    let gb = g.trailing_zeros();
    let top = clog2((cap - ib) as u64 + 1);
    it.push(Item::comment(&format!("Place the input bytes at byte offset base (a multiple of {g} when used): a logarithmic shifter over base[{}:{gb}].", top.max(gb + 1) - 1)));
    wire(&mut it, "sh0", bits, "", cat(vec![zeros(bits - 8 * ib), id("in_masked")]));
    let mut last = "sh0".to_string();
    for b in gb..top.min(fw) {
        let amount = 8u64 << b;
        let next = format!("sh{}", b + 1);
        let shifted = if amount >= bits as u64 { dec(bits, 0) } else { cat(vec![Expr::slice(&last, bits - 1 - amount as u32, 0), zeros(amount as u32)]) };
        wire(&mut it, &next, bits, "", Expr::mux(bit_of("base", fw, b), shifted, id(&last)));
        last = next;
    }
    let placed = last;
    wire(&mut it, "buf_next", bits, "", Expr::mux(id("do_in"), Expr::or(id("kept"), id(&placed)), id("kept")));
    let count_ext = if fw > cw { cat(vec![zeros(fw - cw), id("in_count")]) } else { id("in_count") };
    wire(&mut it, "fill_next", fw, "", Expr::mux(id("do_in"), add(id("base"), count_ext), id("base")));
    it.push(Item::AlwaysFf {
        reset: Some(vec![set_id("buf_q", dec(bits, 0)), set_id("fill", dec(fw, 0)), set_id("eop", Expr::zero())]),
        body: vec![
            set_id("buf_q", id("buf_next")),
            set_id("fill", id("fill_next")),
            if_else(id("do_in"), vec![set_id("eop", id("in_last"))], vec![when(id("flush"), vec![set_id("eop", Expr::zero())])]),
        ],
    });
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: it, reset: Some(design.reset) },
        latency: 1,
        summary: format!(
            "AXI4-Stream width converter {what}: packs {ib}-byte beats into {ob}-byte beats, each packet starting at byte 0 of an output beat, through a {cap}-byte buffer."
        ),
        notes: vec![
            format!(
                "out_valid = fill >= O or eop; out_last = eop and fill <= O; in_ready = {} and base + I <= C, so in_ready looks at out_ready. At the edge an output transfer drops the bottom O bytes (all with out_last: a flush), then an input transfer places its kept bytes at the new fill level base. {}",
                if overlap { "(!eop or flush)" } else { "!eop" },
                if overlap {
                    "The next packet enters in the cycle the previous one's last beat leaves: the receive side loses at most one input slot per packet."
                } else {
                    "The next packet enters the cycle after the previous one's last beat left: a packet boundary costs exactly one slot, so the far receiver keeps up."
                }
            ),
        ],
        role,
        origin: None,
    }
}
