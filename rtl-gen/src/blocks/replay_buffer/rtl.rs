//! The `replay_buffer` module: pointers, the flags that keep every decision shallow, and one
//! block RAM.
//!
//! Every decision of a cycle is a window test of an input sequence number against the pointers,
//! written as comparisons of the number with the pointers themselves (not of offsets computed
//! first), in parallel, with the window's wrap-around as a register (`wrap_q`): an s-bit
//! comparison, then one LUT that combines the comparisons with the flags, then the selects. The
//! sections: [`window_tests`] (the comparisons), [`pointer_update`] (head, tail, output pointer
//! and its valid flag), [`occupancy`] (count, full, wrap).

use super::ReplayBufferBlock;
use crate::hw::build::{add, and, dec, eq, ge, id, le, lt, mux, ne, or, sub, wire};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};
use crate::info::DesignInfo;

pub fn module(b: &ReplayBufferBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let (e, s, d) = (b.entry_bits, b.seq_bits, b.depth);
    let a = b.addr_bits();
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("push_valid", 1, "an entry is offered"),
        Port::output("push_ready", 1, "room for an entry (not full); push when push_valid && push_ready"),
        Port::input("push_data", e, "entry to store"),
        Port::output("push_seq", s, "sequence number the pushed entry gets"),
        Port::input("ack_valid", 1, "acknowledge: free every entry up to and including ack_seq"),
        Port::input("ack_seq", s, "last acknowledged sequence number; ignored unless an entry with it is held"),
        Port::input("replay_valid", 1, "go back: the output stream restarts from replay_seq"),
        Port::input("replay_seq", s, "first sequence number to send again; ignored unless held (or the next to be pushed)"),
        Port::output("out_valid", 1, "out_data/out_seq hold an entry"),
        Port::input("out_ready", 1, "the consumer takes the entry (transfer when out_valid && out_ready)"),
        Port::output("out_data", e, "entry, new or replayed, in sequence order"),
        Port::output("out_seq", s, "sequence number of out_data"),
        Port::output("head", s, "oldest unacknowledged sequence number (push_seq - count)"),
        Port::output("count", s, "entries held (pushed, not yet acknowledged), 0..depth"),
        Port::output("full", 1, "count == DEPTH"),
    ]);
    let mut items = vec![
        Item::Localparam { name: "DEPTH".into(), value: dec(s, d as u64), doc: "entries held at most".into() },
        Item::comment(&format!(
            "Storage: {} x {e} bits of block RAM addressed by seq[{}:0] (depth {d} rounded up to a power of two);\nwrite port for pushes, synchronous read-first port for the output.",
            b.ram_entries(),
            a - 1
        )),
        Item::Memory { name: "ram".into(), width: e, depth: b.ram_entries(), doc: "entries by sequence number".into() },
        Item::reg("ram_q", e, "RAM read register: entry rd_q when q_ok"),
        Item::reg("head_q", s, "oldest unacknowledged sequence number"),
        Item::reg("tail_q", s, "sequence number of the next push"),
        Item::reg("rd_q", s, "sequence number on the output"),
        Item::reg("q_ok", 1, "ram_q holds entry rd_q"),
        Item::reg("count_q", s, "tail_q - head_q, kept in a register so no decision waits for the subtraction"),
        Item::reg("full_q", 1, "count_q == DEPTH, kept in a register so a push does not wait for the comparison"),
        Item::reg("wrap_q", 1, "tail_q < head_q: the held window [head_q, tail_q) wraps past the largest sequence number"),
    ];
    items.extend(window_tests());
    items.extend(pointer_update(s));
    items.extend(occupancy(s));
    items.push(Item::AlwaysFf {
        reset: Some(vec![
            Stmt::set(id("head_q"), dec(s, 0)),
            Stmt::set(id("tail_q"), dec(s, 0)),
            Stmt::set(id("rd_q"), dec(s, 0)),
            Stmt::set(id("q_ok"), Expr::zero()),
            Stmt::set(id("count_q"), dec(s, 0)),
            Stmt::set(id("full_q"), Expr::zero()),
            Stmt::set(id("wrap_q"), Expr::zero()),
        ]),
        body: vec![
            Stmt::set(id("head_q"), id("head_n")),
            Stmt::set(id("tail_q"), id("tail_n")),
            Stmt::set(id("rd_q"), id("rd_n")),
            Stmt::set(id("q_ok"), id("q_ok_n")),
            Stmt::set(id("count_q"), id("count_n")),
            Stmt::set(id("full_q"), id("full_n")),
            Stmt::set(id("wrap_q"), id("wrap_n")),
        ],
    });
    let addr = |sig: &str| if a == s { id(sig) } else { Expr::slice(sig, a - 1, 0) };
    items.push(Item::comment("Block RAM inference pattern: registered read, write enable, no reset."));
    items.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            Stmt::when(id("push_fire"), vec![Stmt::set(Expr::Index("ram".into(), Box::new(addr("tail_q"))), id("push_data"))]),
            Stmt::set(id("ram_q"), Expr::Index("ram".into(), Box::new(addr("rd_n")))),
        ],
    });
    items.extend([
        Item::assign(id("push_ready"), id("full_q").not()),
        Item::assign(id("push_seq"), id("tail_q")),
        Item::assign(id("out_valid"), id("q_ok")),
        Item::assign(id("out_data"), id("ram_q")),
        Item::assign(id("out_seq"), id("rd_q")),
        Item::assign(id("head"), id("head_q")),
        Item::assign(id("count"), id("count_q")),
        Item::assign(id("full"), id("full_q")),
    ]);
    items.push(super::props::properties(b, design));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: Some(design.reset) },
        latency: 2,
        summary: format!(
            "Go-back-N replay buffer of {d} entries of {e} bits with {s}-bit sequence numbers: pushes are numbered and kept until acknowledged, the output streams them in order at one per cycle and restarts from any held sequence number on a replay."
        ),
        notes: vec![
            "Latency 2: a push reaches out_valid two cycles later when the output had caught up (the read-first RAM cannot return the entry written at the same edge).".into(),
            "ack: every entry up to and including ack_seq is freed if ack_seq is held (ack_seq - head < count); stale or future acks are ignored.".into(),
            "replay: the output restarts at replay_seq if replay_seq - head <= count, even while stalled (the presented entry is withdrawn); a replay wins over a same-cycle output transfer.".into(),
            "An ack that frees the entry the output pointer would land on moves the pointer to the new head: acknowledged entries are never sent again.".into(),
            "All decisions use the register values before the clock edge: a same-cycle ack does not make room for a push.".into(),
        ],
        role: Role::Replay,
        origin: None,
    }
}

/// Membership of `x` in a circular interval from `head_q`, given `x >= head_q` (`ge_head`), the
/// comparison with the interval's end (`to_end`) and whether the interval wraps (`wraps`): on a
/// wrapped interval either comparison suffices, otherwise both must hold.
fn in_window(wraps: Expr, ge_head: Expr, to_end: Expr) -> Expr {
    mux(wraps, or(ge_head.clone(), to_end.clone()), and(ge_head, to_end))
}

/// The comparisons every decision is made of: the acknowledged, replayed and output sequence
/// numbers against the head, the tail and the ack, each an s-bit comparison of a number with a
/// pointer, all in parallel; then the window tests, one LUT each.
fn window_tests() -> Vec<Item> {
    let mut it = vec![Item::comment(
        "Window tests as comparisons with the pointers, all in parallel. The held entries are [head_q, tail_q) in\ncircular order (wrapped when wrap_q); an accepted replay names one of [head_q, tail_q]; a taken ack frees\n[head_q, ack_seq], which wraps when ack_seq < head_q.",
    )];
    wire(&mut it, "push_fire", 1, "a push is accepted", and(id("push_valid"), id("full_q").not()));
    wire(&mut it, "out_fire", 1, "the output entry is taken", and(id("q_ok"), id("out_ready")));
    for (n, doc, v) in [
        ("ack_ge_head", "ack_seq >= head_q", ge(id("ack_seq"), id("head_q"))),
        ("ack_lt_tail", "ack_seq < tail_q", lt(id("ack_seq"), id("tail_q"))),
        ("rp_ge_head", "replay_seq >= head_q", ge(id("replay_seq"), id("head_q"))),
        ("rp_le_tail", "replay_seq <= tail_q", le(id("replay_seq"), id("tail_q"))),
        ("rp_le_ack", "replay_seq <= ack_seq", le(id("replay_seq"), id("ack_seq"))),
        ("rd_ge_head", "rd_q >= head_q", ge(id("rd_q"), id("head_q"))),
        ("rd_le_ack", "rd_q <= ack_seq", le(id("rd_q"), id("ack_seq"))),
    ] {
        wire(&mut it, n, 1, doc, v);
    }
    wire(&mut it, "ack_ok", 1, "the ack names a held entry (ack_seq - head_q < count_q)", and(id("ack_valid"), in_window(id("wrap_q"), id("ack_ge_head"), id("ack_lt_tail"))));
    wire(&mut it, "replay_ok", 1, "replay_seq - head_q <= count_q", and(id("replay_valid"), in_window(id("wrap_q"), id("rp_ge_head"), id("rp_le_tail"))));
    let freed = |ge_head: &str, le_ack: &str| in_window(id("ack_ge_head").not(), id(ge_head), id(le_ack));
    it.push(Item::comment(
        "Whether a taken ack frees the entry the output pointer lands on, one LUT each from the comparisons: the\nreplayed entry (replay_seq - head_q <= ack_seq - head_q), or without a replay rd_q's (the pointer is rd_q or\nrd_q + 1; the ack frees rd_q + 1 exactly when it frees rd_q, except when it names rd_q itself, and then\nrd_q + 1 is the new head anyway).",
    ));
    wire(&mut it, "free_rp", 1, "a taken ack frees replay_seq's entry", and(id("ack_ok"), freed("rp_ge_head", "rp_le_ack")));
    wire(&mut it, "free_rd", 1, "a taken ack frees rd_q's entry", and(id("ack_ok"), freed("rd_ge_head", "rd_le_ack")));
    it
}

/// Head, tail, the output pointer and whether the RAM's read register will hold its entry:
/// each a select among candidates computed beside the window tests.
fn pointer_update(s: u32) -> Vec<Item> {
    let mut it = vec![Item::comment("Pointers: selects among candidates computed in parallel with the window tests.")];
    wire(&mut it, "ack_next", s, "the head after a taken ack", add(id("ack_seq"), dec(s, 1)));
    wire(&mut it, "head_n", s, "", mux(id("ack_ok"), id("ack_next"), id("head_q")));
    wire(&mut it, "tail_n", s, "", add(id("tail_q"), Expr::Concat(vec![dec(s - 1, 0), id("push_fire")])));
    wire(&mut it, "rd_step", s, "output pointer without replay or ack: advanced by a transfer", mux(id("out_fire"), add(id("rd_q"), dec(s, 1)), id("rd_q")));
    let pick = |at_head: Expr, at_replay: Expr, stepped: Expr| mux(id("replay_ok"), mux(id("free_rp"), at_head.clone(), at_replay), mux(id("free_rd"), at_head, stepped));
    wire(&mut it, "rd_n", s, "output pointer after replay or transfer, moved to the new head if an ack freed its entry", pick(id("ack_next"), id("replay_seq"), id("rd_step")));
    it.push(Item::comment("The read register is valid unless it reads the old tail (empty, or written at this edge): each candidate compared\nwith tail_q beside the pointer select, then the same select."));
    wire(&mut it, "step_at_tail", 1, "rd_step == tail_q", mux(id("out_fire"), eq(add(id("rd_q"), dec(s, 1)), id("tail_q")), eq(id("rd_q"), id("tail_q"))));
    wire(&mut it, "q_ok_n", 1, "rd_n != tail_q", pick(ne(id("ack_next"), id("tail_q")), ne(id("replay_seq"), id("tail_q")), id("step_at_tail").not()));
    it
}

/// Count, full and wrap: the count from the tail and the ack directly when an ack is taken
/// (tail_n - (ack_seq + 1) = tail_q + ~ack_seq + push), the flags from the cases.
fn occupancy(s: u32) -> Vec<Item> {
    let mut it = vec![Item::comment("Occupancy: count, full and wrap from the cases, not from the new pointers.")];
    wire(&mut it, "count_n", s, "tail_n - head_n", mux(id("ack_ok"), add(add(id("tail_q"), id("ack_seq").not()), Expr::Concat(vec![dec(s - 1, 0), id("push_fire")])), add(id("count_q"), Expr::Concat(vec![dec(s - 1, 0), id("push_fire")]))));
    it.push(Item::comment("A taken ack frees at least one entry and a push adds at most one (none when full), so after an ack the buffer\nis not full."));
    wire(&mut it, "full_n", 1, "count_n == DEPTH", and(id("ack_ok").not(), mux(id("push_fire"), eq(id("count_q"), sub(id("DEPTH"), dec(s, 1))), id("full_q"))));
    wire(&mut it, "tail_wraps", 1, "a push takes the tail from the largest sequence number to 0", and(id("push_fire"), eq(id("tail_q"), dec(s, (1u64 << s) - 1))));
    it.push(Item::comment(
        "wrap_n = tail_n < head_n. Without an ack the window wraps once the tail wraps past a nonzero head. A taken ack\nleaves a wrapped window [ack_seq + 1, tail_n) when it lies in the upper part (ack_seq >= head_q, and\nack_seq + 1 does not itself wrap to 0); on an unwrapped window only a wrapping push wraps it.",
    ));
    wire(
        &mut it,
        "wrap_n",
        1,
        "tail_n < head_n",
        mux(
            id("ack_ok"),
            mux(id("wrap_q"), and(id("ack_ge_head"), ne(id("ack_seq"), dec(s, (1u64 << s) - 1))), id("tail_wraps")),
            mux(id("tail_wraps"), ne(id("head_q"), dec(s, 0)), id("wrap_q")),
        ),
    );
    it
}
