//! The `replay_buffer` module: pointers, registered requests, the flags that keep every decision
//! shallow, and one block RAM read from registers through its read and output registers.
//!
//! An ack or a replay is registered on entry and judged the next cycle, against the pointers of
//! that cycle. Its window comparisons are made on entry, against the pointers the next cycle
//! will hold (each a select between the pointer and its successor, so the comparison is of the
//! input with registers), and registered beside it: the decisions of a cycle are then one or two
//! LUTs of registered flags, and the pointers' selects follow. The RAM is read two stages deep:
//! its read register holds the entry after the presented one, its output register (the block
//! RAM's own) the presented one, so the RAM's clock-to-out ends at a register. The read address
//! is a select among three registers (the presented entry and the two after it) by two
//! registers, so no decision reaches the RAM: a replay, or an ack that frees the presented
//! entry, moves the pointer and withdraws the output for two cycles while the RAM reads the new
//! entry into both stages. The
//! sections: [`requests`] (the registered requests and their comparisons), [`decisions`],
//! [`ram_read`], [`pointer_update`] (head, tail, output pointer and its valid flag),
//! [`occupancy`] (count, full, wrap).

use super::ReplayBufferBlock;
use crate::hw::build::{add, and, dec, eq, ge, id, le, lt, mux, ne, or, sub, wire};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};
use crate::info::DesignInfo;

/// The registers of the module (name, width, doc, reset value); all in one reset group.
fn registers(s: u32) -> Vec<(&'static str, u32, &'static str, u64)> {
    vec![
        ("head_q", s, "oldest unacknowledged sequence number", 0),
        ("tail_q", s, "sequence number of the next push", 0),
        ("tail_inc_q", s, "tail_q + 1, kept in a register so comparisons with the next tail are with registers", 1),
        ("rd_q", s, "sequence number on the output", 0),
        ("rd_inc_q", s, "rd_q + 1, kept in a register so the RAM's read address is a select between registers", 1),
        ("rd_inc2_q", s, "rd_q + 2, likewise", 2),
        ("q_ok", 1, "the output register out_q holds entry rd_q", 0),
        ("s1_ok", 1, "the read register ram_q holds entry rd_q + q_ok (the one after the presented entry, or rd_q's own)", 0),
        ("count_q", s, "tail_q - head_q, kept in a register so no decision waits for the subtraction", 0),
        ("full_q", 1, "count_q == DEPTH, kept in a register so a push does not wait for the comparison", 0),
        ("wrap_q", 1, "tail_q < head_q: the held window [head_q, tail_q) wraps past the largest sequence number", 0),
        ("rd_ge_head_q", 1, "rd_q >= head_q", 1),
        ("ack_v_q", 1, "an ack was presented last cycle: judged now", 0),
        ("ack_seq_q", s, "its sequence number", 0),
        ("ack_next_q", s, "ack_seq_q + 1: the head after it is taken", 1),
        ("ack_ge_head_q", 1, "ack_seq_q >= head_q (compared on entry with the head this cycle holds)", 1),
        ("ack_lt_tail_q", 1, "ack_seq_q < tail_q (compared on entry)", 0),
        ("rd_le_ack_q", 1, "rd_q <= ack_seq_q (compared on entry)", 1),
        ("rp_v_q", 1, "a replay was presented last cycle: judged now", 0),
        ("rp_seq_q", s, "its sequence number", 0),
        ("rp_inc_q", s, "rp_seq_q + 1", 1),
        ("rp_ge_head_q", 1, "rp_seq_q >= head_q (compared on entry)", 1),
        ("rp_le_tail_q", 1, "rp_seq_q <= tail_q (compared on entry)", 1),
        ("rp_le_ack_q", 1, "rp_seq_q <= ack_seq_q (compared on entry)", 1),
    ]
}

/// What register `q` loads: the request ports themselves, or the wire `<name>_n`.
fn next_value(q: &str) -> Expr {
    match q {
        "ack_v_q" => id("ack_valid"),
        "ack_seq_q" => id("ack_seq"),
        "rp_v_q" => id("replay_valid"),
        "rp_seq_q" => id("replay_seq"),
        _ => id(&format!("{}_n", q.trim_end_matches("_q"))),
    }
}

pub fn module(b: &ReplayBufferBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let (e, s, d) = (b.entry_bits, b.seq_bits, b.depth);
    let a = b.addr_bits();
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("push_valid", 1, "an entry is offered"),
        Port::output("push_ready", 1, "room for an entry (not full); push when push_valid && push_ready"),
        Port::input("push_data", e, "entry to store"),
        Port::output("push_seq", s, "sequence number the pushed entry gets"),
        Port::input("ack_valid", 1, "acknowledge: free every entry up to and including ack_seq (judged and applied the next cycle)"),
        Port::input("ack_seq", s, "last acknowledged sequence number; ignored unless an entry with it is held the next cycle"),
        Port::input("replay_valid", 1, "go back: the output stream restarts from replay_seq (judged and applied the next cycle)"),
        Port::input("replay_seq", s, "first sequence number to send again; ignored unless held (or the next to be pushed) the next cycle"),
        Port::output("out_valid", 1, "out_data/out_seq hold an entry"),
        Port::input("out_ready", 1, "the consumer takes the entry (transfer when out_valid && out_ready)"),
        Port::output("out_data", e, "entry, new or replayed, in sequence order"),
        Port::output("out_seq", s, "sequence number of out_data"),
        Port::output("head", s, "oldest unacknowledged sequence number (push_seq - count)"),
        Port::output("count", s, "entries held (pushed, not yet acknowledged), 0..depth"),
        Port::output("full", 1, "count == DEPTH"),
    ]);
    let regs = registers(s);
    let mut items = vec![
        Item::Localparam { name: "DEPTH".into(), value: dec(s, d as u64), doc: "entries held at most".into() },
        Item::comment(&format!(
            "Storage: {} x {e} bits of block RAM addressed by seq[{}:0] (depth {d} rounded up to a power of two);\nwrite port for pushes, read port with a read register and an output register, each with its enable.",
            b.ram_entries(),
            a - 1
        )),
        Item::Memory { name: "ram".into(), width: e, depth: b.ram_entries(), doc: "entries by sequence number".into() },
        Item::reg("ram_q", e, "RAM read register: entry rd_q + q_ok when s1_ok"),
        Item::reg("out_q", e, "RAM output register: entry rd_q when q_ok"),
    ];
    items.extend(regs.iter().map(|(n, w, doc, _)| Item::reg(n, *w, doc)));
    items.extend(decisions());
    items.extend(ram_read(s, a));
    items.extend(pointer_update(s));
    items.extend(occupancy(s));
    items.extend(requests(s));
    items.push(Item::AlwaysFf {
        reset: Some(regs.iter().map(|(n, w, _, v)| Stmt::set(id(n), dec(*w, *v))).collect()),
        body: regs.iter().map(|(n, _, _, _)| Stmt::set(id(n), next_value(n))).collect(),
    });
    let addr = |sig: &str| if a == s { id(sig) } else { Expr::slice(sig, a - 1, 0) };
    items.push(Item::comment(
        "Block RAM inference pattern: registered read with enable, write enable, no reset. A read of the entry written\nat the same edge (rd_addr == tail_q) is never used (s1_ok_n), so the RAM needs no bypass for it.",
    ));
    items.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            Stmt::when(id("push_fire"), vec![Stmt::set(Expr::Index("ram".into(), Box::new(addr("tail_q"))), id("push_data"))]),
            Stmt::when(id("rd_en"), vec![Stmt::set(id("ram_q"), Expr::Index("ram".into(), Box::new(id("rd_addr"))))]),
        ],
    });
    items.push(Item::comment("The RAM's output register: it holds while it presents an entry the consumer does not take."));
    items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::when(id("out_en"), vec![Stmt::set(id("out_q"), id("ram_q"))])] });
    items.extend([
        Item::assign(id("push_ready"), id("full_q").not()),
        Item::assign(id("push_seq"), id("tail_q")),
        Item::assign(id("out_valid"), id("q_ok")),
        Item::assign(id("out_data"), id("out_q")),
        Item::assign(id("out_seq"), id("rd_q")),
        Item::assign(id("head"), id("head_q")),
        Item::assign(id("count"), id("count_q")),
        Item::assign(id("full"), id("full_q")),
    ]);
    items.push(super::props::properties(b, design));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: Some(design.reset) },
        latency: 3,
        summary: format!(
            "Go-back-N replay buffer of {d} entries of {e} bits with {s}-bit sequence numbers: pushes are numbered and kept until acknowledged, the output streams them in order at one per cycle and restarts from any held sequence number on a replay."
        ),
        notes: vec![
            "Latency 3: a push reaches out_valid three cycles later when the output had caught up (the RAM is read after the edge that writes the entry, through its read and output registers).".into(),
            "Acks and replays are registered: one presented in cycle t is judged against the pointers of cycle t + 1 and applied at the edge that ends it. Replay latency 4: the replayed entry is on the output four cycles after the replay is presented (out_seq names it two cycles after, with out_valid low for two cycles while the RAM reads it into its read and output registers).".into(),
            "ack: every entry up to and including ack_seq is freed if ack_seq is held (ack_seq - head < count); stale or future acks are ignored.".into(),
            "replay: the output restarts at replay_seq if replay_seq - head <= count, even while stalled (the presented entry is withdrawn for two cycles); a replay wins over a same-cycle output transfer.".into(),
            "An ack that frees the entry the output pointer would land on moves the pointer to the new head (out_valid low for two cycles while the RAM reads it): acknowledged entries are never sent again.".into(),
            "A stream of held entries leaves at one per cycle while out_ready is high: the RAM's read register holds the next entry behind the presented one.".into(),
            "All decisions use the register values before the clock edge: an ack does not make room for a push judged in the same cycle.".into(),
        ],
        role: Role::Replay,
        origin: None,
    }
}

/// Membership of `x` in a circular interval from the head, given `x >= head` (`ge_head`), the
/// comparison with the interval's end (`to_end`) and whether the interval wraps (`wraps`): on a
/// wrapped interval either comparison suffices, otherwise both must hold.
fn in_window(wraps: Expr, ge_head: Expr, to_end: Expr) -> Expr {
    mux(wraps, or(ge_head.clone(), to_end.clone()), and(ge_head, to_end))
}

/// The decisions of a cycle, from the registered requests and their registered comparisons: one
/// LUT each for the window tests, one more for whether a taken ack frees the replayed or the
/// presented entry.
fn decisions() -> Vec<Item> {
    let mut it = vec![Item::comment(
        "Decisions from registered flags. The held entries are [head_q, tail_q) in circular order (wrapped when wrap_q);\nan accepted replay names one of [head_q, tail_q]; a taken ack frees [head_q, ack_seq_q], which wraps when\nack_seq_q < head_q.",
    )];
    wire(&mut it, "push_fire", 1, "a push is accepted", and(id("push_valid"), id("full_q").not()));
    wire(&mut it, "out_fire", 1, "the output entry is taken", and(id("q_ok"), id("out_ready")));
    wire(&mut it, "ack_ok", 1, "the ack names a held entry (ack_seq_q - head_q < count_q)", and(id("ack_v_q"), in_window(id("wrap_q"), id("ack_ge_head_q"), id("ack_lt_tail_q"))));
    wire(&mut it, "replay_ok", 1, "replay_seq_q - head_q <= count_q", and(id("rp_v_q"), in_window(id("wrap_q"), id("rp_ge_head_q"), id("rp_le_tail_q"))));
    let freed = |ge_head: &str, le_ack: &str| in_window(id("ack_ge_head_q").not(), id(ge_head), id(le_ack));
    wire(&mut it, "free_rp", 1, "a taken ack frees the replayed entry", and(id("ack_ok"), freed("rp_ge_head_q", "rp_le_ack_q")));
    wire(&mut it, "free_rd", 1, "a taken ack frees the presented entry rd_q", and(id("ack_ok"), freed("rd_ge_head_q", "rd_le_ack_q")));
    wire(&mut it, "jump", 1, "a replay, or an ack that frees rd_q's entry, moves the output pointer", or(id("replay_ok"), id("free_rd")));
    it
}

/// The RAM's read port, from registers only. The output register presents entry rd_q (when
/// q_ok), the read register holds the entry after it (rd_q + q_ok, when s1_ok); the address is
/// the entry after that, rd_q + q_ok + s1_ok. Both registers hold while the output presents an
/// entry the consumer does not take, but a read register without its entry reads it meanwhile.
fn ram_read(s: u32, a: u32) -> Vec<Item> {
    let mut it = vec![Item::comment("RAM read: address from registers, enables from out_ready; no decision on the way.")];
    wire(&mut it, "stall", 1, "the output presents an entry the consumer does not take", and(id("q_ok"), id("out_ready").not()));
    wire(&mut it, "out_en", 1, "load the output register from the read register", id("stall").not());
    wire(&mut it, "rd_en", 1, "load the read register unless it holds the next entry during a stall", or(id("stall").not(), id("s1_ok").not()));
    let addr = |sig: &str| if a == s { id(sig) } else { Expr::slice(sig, a - 1, 0) };
    wire(
        &mut it,
        "rd_addr",
        a,
        "rd_q + q_ok + s1_ok: the entry after the ones the two registers hold",
        mux(id("q_ok"), mux(id("s1_ok"), addr("rd_inc2_q"), addr("rd_inc_q")), mux(id("s1_ok"), addr("rd_inc_q"), addr("rd_q"))),
    );
    it
}

/// The select of the output pointer's next value (or a function of it) among its candidates: the
/// new head when a taken ack freed the entry it lands on, the replayed entry, else a step.
fn pick(at_head: Expr, at_replay: Expr, stepped: Expr) -> Expr {
    mux(id("replay_ok"), mux(id("free_rp"), at_head.clone(), at_replay), mux(id("free_rd"), at_head, stepped))
}

/// Head, tail, the output pointer (with their `+1` copies) and whether the RAM's read register
/// will hold its entry: each a select among registered candidates.
fn pointer_update(s: u32) -> Vec<Item> {
    let mut it = vec![Item::comment("Pointers: selects among registered candidates.")];
    let one = || dec(s, 1);
    wire(&mut it, "head_n", s, "", mux(id("ack_ok"), id("ack_next_q"), id("head_q")));
    wire(&mut it, "tail_n", s, "", mux(id("push_fire"), id("tail_inc_q"), id("tail_q")));
    wire(&mut it, "tail_inc_n", s, "tail_n + 1", mux(id("push_fire"), add(id("tail_inc_q"), one()), id("tail_inc_q")));
    wire(&mut it, "rd_n", s, "output pointer after replay or transfer, moved to the new head if an ack freed its entry", pick(id("ack_next_q"), id("rp_seq_q"), mux(id("out_fire"), id("rd_inc_q"), id("rd_q"))));
    wire(&mut it, "rd_inc_n", s, "rd_n + 1, from the same select", pick(add(id("ack_next_q"), one()), id("rp_inc_q"), mux(id("out_fire"), id("rd_inc2_q"), id("rd_inc_q"))));
    wire(&mut it, "rd_inc2_n", s, "rd_n + 2, from the same select", pick(add(id("ack_next_q"), dec(s, 2)), add(id("rp_inc_q"), one()), mux(id("out_fire"), add(id("rd_inc2_q"), one()), id("rd_inc2_q"))));
    it.push(Item::comment(
        "Next cycle the output register holds rd_n's entry if it holds now during a stall, or takes a valid read register;\nthe read register holds its entry if it holds now, or read an address other than the old tail (empty, or\nwritten at this edge: that read is not used). Neither does when the pointer jumps (they hold the old stream's).",
    ));
    wire(
        &mut it,
        "rd_addr_at_tail",
        1,
        "rd_addr == tail_q, compared per candidate",
        mux(id("q_ok"), mux(id("s1_ok"), eq(id("rd_inc2_q"), id("tail_q")), eq(id("rd_inc_q"), id("tail_q"))), mux(id("s1_ok"), eq(id("rd_inc_q"), id("tail_q")), eq(id("rd_q"), id("tail_q")))),
    );
    wire(&mut it, "q_ok_n", 1, "", and(id("jump").not(), or(id("stall"), id("s1_ok"))));
    wire(&mut it, "s1_ok_n", 1, "", and(id("jump").not(), or(and(id("stall"), id("s1_ok")), id("rd_addr_at_tail").not())));
    it.push(Item::comment("rd_n >= head_n, per candidate: the new head itself, or a candidate against the head that holds next cycle."));
    let vs_head = |x: &str, ge_head: Expr| mux(id("ack_ok"), ge(id(x), id("ack_next_q")), ge_head);
    wire(&mut it, "step_ge_head", 1, "the stepped pointer >= head_n", mux(id("out_fire"), vs_head("rd_inc_q", ge(id("rd_inc_q"), id("head_q"))), vs_head("rd_q", id("rd_ge_head_q"))));
    wire(&mut it, "rd_ge_head_n", 1, "", pick(Expr::one(), vs_head("rp_seq_q", id("rp_ge_head_q")), id("step_ge_head")));
    it
}

/// Count, full and wrap: the count from the tail and the ack directly when an ack is taken
/// (tail_n - (ack_seq_q + 1) = tail_q + ~ack_seq_q + push), the flags from the cases.
fn occupancy(s: u32) -> Vec<Item> {
    let mut it = vec![Item::comment("Occupancy: count, full and wrap from the cases, not from the new pointers.")];
    let push = || Expr::Concat(vec![dec(s - 1, 0), id("push_fire")]);
    wire(&mut it, "count_n", s, "tail_n - head_n", mux(id("ack_ok"), add(add(id("tail_q"), id("ack_seq_q").not()), push()), add(id("count_q"), push())));
    it.push(Item::comment("A taken ack frees at least one entry and a push adds at most one (none when full), so after an ack the buffer\nis not full."));
    wire(&mut it, "full_n", 1, "count_n == DEPTH", and(id("ack_ok").not(), mux(id("push_fire"), eq(id("count_q"), sub(id("DEPTH"), dec(s, 1))), id("full_q"))));
    wire(&mut it, "tail_wraps", 1, "a push takes the tail from the largest sequence number to 0", and(id("push_fire"), eq(id("tail_inc_q"), dec(s, 0))));
    it.push(Item::comment(
        "wrap_n = tail_n < head_n. Without an ack the window wraps once the tail wraps past a nonzero head. A taken ack\nleaves a wrapped window [ack_seq_q + 1, tail_n) when it lies in the upper part (ack_seq_q >= head_q, and\nack_seq_q + 1 does not itself wrap to 0); on an unwrapped window only a wrapping push wraps it.",
    ));
    wire(
        &mut it,
        "wrap_n",
        1,
        "tail_n < head_n",
        mux(
            id("ack_ok"),
            mux(id("wrap_q"), and(id("ack_ge_head_q"), ne(id("ack_next_q"), dec(s, 0))), id("tail_wraps")),
            mux(id("tail_wraps"), ne(id("head_q"), dec(s, 0)), id("wrap_q")),
        ),
    );
    it
}

/// The requests registered on entry, with their comparisons against the pointers the next cycle
/// holds: the head (ack_next_q after a taken ack), the tail (tail_inc_q after a push), the
/// output pointer (a candidate of [`pick`], each compared, then the same select).
fn requests(s: u32) -> Vec<Item> {
    let mut it = vec![Item::comment(
        "Requests: registered on entry with their comparisons against the next cycle's pointers, each a select\nbetween comparisons of the input with registers.",
    )];
    let one = || dec(s, 1);
    let vs_head_n = |x: &str| mux(id("ack_ok"), ge(id(x), id("ack_next_q")), ge(id(x), id("head_q")));
    wire(&mut it, "ack_next_n", s, "", add(id("ack_seq"), one()));
    wire(&mut it, "ack_ge_head_n", 1, "ack_seq >= head_n", vs_head_n("ack_seq"));
    wire(&mut it, "ack_lt_tail_n", 1, "ack_seq < tail_n", mux(id("push_fire"), lt(id("ack_seq"), id("tail_inc_q")), lt(id("ack_seq"), id("tail_q"))));
    wire(&mut it, "rd_le_ack_n", 1, "rd_n <= ack_seq", pick(le(id("ack_next_q"), id("ack_seq")), le(id("rp_seq_q"), id("ack_seq")), mux(id("out_fire"), le(id("rd_inc_q"), id("ack_seq")), le(id("rd_q"), id("ack_seq")))));
    wire(&mut it, "rp_inc_n", s, "", add(id("replay_seq"), one()));
    wire(&mut it, "rp_ge_head_n", 1, "replay_seq >= head_n", vs_head_n("replay_seq"));
    wire(&mut it, "rp_le_tail_n", 1, "replay_seq <= tail_n", mux(id("push_fire"), le(id("replay_seq"), id("tail_inc_q")), le(id("replay_seq"), id("tail_q"))));
    wire(&mut it, "rp_le_ack_n", 1, "replay_seq <= ack_seq", le(id("replay_seq"), id("ack_seq")));
    it
}
