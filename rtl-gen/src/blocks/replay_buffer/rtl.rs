//! The `replay_buffer` module: three pointers, a valid flag and one block RAM.

use super::ReplayBufferBlock;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::build::{add, le, lt, sub};
use crate::hw::verilog::{BinOp, Expr, Item, Module, Port, Stmt};

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
    let seq = |v: u64| Expr::dec(s, v);
    let mut items = vec![
        Item::Localparam { name: "DEPTH".into(), value: seq(d as u64), doc: "entries held at most".into() },
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
        Item::comment("Offsets from head_q stay below 2^seq_bits (depth <= 2^seq_bits - 1), so wrapping subtraction orders them."),
        Item::wire("full_w", 1, ""),
        Item::assign(Expr::id("full_w"), Expr::eq(Expr::id("count_q"), Expr::id("DEPTH"))),
        Item::wire("push_fire", 1, "a push is accepted"),
        Item::assign(Expr::id("push_fire"), Expr::and(Expr::id("push_valid"), Expr::id("full_w").not())),
        Item::wire("out_fire", 1, "the output entry is taken"),
        Item::assign(Expr::id("out_fire"), Expr::and(Expr::id("q_ok"), Expr::id("out_ready"))),
        Item::wire("ack_off", s, "ack_seq - head_q"),
        Item::assign(Expr::id("ack_off"), sub(Expr::id("ack_seq"), Expr::id("head_q"))),
        Item::wire("ack_ok", 1, "the ack names a held entry"),
        Item::assign(Expr::id("ack_ok"), Expr::and(Expr::id("ack_valid"), lt(Expr::id("ack_off"), Expr::id("count_q")))),
        Item::wire("ack_next", s, "the head after a taken ack"),
        Item::assign(Expr::id("ack_next"), add(Expr::id("ack_seq"), seq(1))),
        Item::wire("head_n", s, ""),
        Item::assign(Expr::id("head_n"), Expr::mux(Expr::id("ack_ok"), Expr::id("ack_next"), Expr::id("head_q"))),
        Item::wire("replay_off", s, "replay_seq - head_q"),
        Item::assign(Expr::id("replay_off"), sub(Expr::id("replay_seq"), Expr::id("head_q"))),
        Item::wire("replay_ok", 1, "replay_seq - head_q <= count"),
        Item::assign(Expr::id("replay_ok"), Expr::and(Expr::id("replay_valid"), le(Expr::id("replay_off"), Expr::id("count_q")))),
        Item::wire("rd_a", s, "output pointer after replay or transfer"),
        Item::assign(
            Expr::id("rd_a"),
            Expr::mux(Expr::id("replay_ok"), Expr::id("replay_seq"), Expr::mux(Expr::id("out_fire"), add(Expr::id("rd_q"), seq(1)), Expr::id("rd_q"))),
        ),
        Item::comment(
            "Whether the ack frees the entry at rd_a (rd_a - head_q <= ack_off) is decided from replay_seq and rd_q in\nparallel with the choice of rd_a, not after it: the RAM read address does not wait for a subtraction and\na comparison behind that choice. (A taken ack has ack_off < count <= 2^seq_bits - 1, so the model's\n\"offset < ack_off + 1\" is \"offset <= ack_off\" without the adder.)",
        ),
        Item::wire("rd_off", s, "rd_q - head_q"),
        Item::assign(Expr::id("rd_off"), sub(Expr::id("rd_q"), Expr::id("head_q"))),
        Item::wire("freed_replay", 1, "the ack frees replay_seq's entry"),
        Item::assign(Expr::id("freed_replay"), le(Expr::id("replay_off"), Expr::id("ack_off"))),
        Item::wire("freed_rd", 1, "the ack frees rd_q's entry"),
        Item::assign(Expr::id("freed_rd"), le(Expr::id("rd_off"), Expr::id("ack_off"))),
        Item::comment(
            "Without a replay rd_a is rd_q or rd_q + 1. The ack frees rd_q + 1 exactly when it frees rd_q, except when it\nnames rd_q itself, and then rd_q + 1 is the new head anyway: freed_rd decides every case without a replay.",
        ),
        Item::wire("freed_a", 1, "the ack frees rd_a's entry, or rd_a is the new head"),
        Item::assign(Expr::id("freed_a"), Expr::mux(Expr::id("replay_ok"), Expr::id("freed_replay"), Expr::id("freed_rd"))),
        Item::wire("rd_n", s, "output pointer, moved to the new head if an ack freed its entry"),
        Item::assign(Expr::id("rd_n"), Expr::mux(Expr::and(Expr::id("ack_ok"), Expr::id("freed_a")), Expr::id("ack_next"), Expr::id("rd_a"))),
        Item::wire("tail_n", s, ""),
        Item::assign(Expr::id("tail_n"), add(Expr::id("tail_q"), Expr::Concat(vec![Expr::dec(s - 1, 0), Expr::id("push_fire")]))),
        Item::AlwaysFf {
            reset: Some(vec![
                Stmt::set(Expr::id("head_q"), seq(0)),
                Stmt::set(Expr::id("tail_q"), seq(0)),
                Stmt::set(Expr::id("rd_q"), seq(0)),
                Stmt::set(Expr::id("q_ok"), Expr::zero()),
                Stmt::set(Expr::id("count_q"), seq(0)),
            ]),
            body: vec![
                Stmt::set(Expr::id("head_q"), Expr::id("head_n")),
                Stmt::set(Expr::id("tail_q"), Expr::id("tail_n")),
                Stmt::set(Expr::id("rd_q"), Expr::id("rd_n")),
                Stmt::Comment("The read register is valid unless it reads the old tail (empty, or written at this edge).".into()),
                Stmt::set(Expr::id("q_ok"), Expr::bin(BinOp::Ne, Expr::id("rd_n"), Expr::id("tail_q"))),
                Stmt::set(Expr::id("count_q"), sub(Expr::id("tail_n"), Expr::id("head_n"))),
            ],
        },
    ];
    let addr = |sig: &str| if a == s { Expr::id(sig) } else { Expr::slice(sig, a - 1, 0) };
    items.push(Item::comment("Block RAM inference pattern: registered read, write enable, no reset."));
    items.push(Item::AlwaysFf {
        reset: None,
        body: vec![
            Stmt::when(Expr::id("push_fire"), vec![Stmt::set(Expr::Index("ram".into(), Box::new(addr("tail_q"))), Expr::id("push_data"))]),
            Stmt::set(Expr::id("ram_q"), Expr::Index("ram".into(), Box::new(addr("rd_n")))),
        ],
    });
    items.extend([
        Item::assign(Expr::id("push_ready"), Expr::id("full_w").not()),
        Item::assign(Expr::id("push_seq"), Expr::id("tail_q")),
        Item::assign(Expr::id("out_valid"), Expr::id("q_ok")),
        Item::assign(Expr::id("out_data"), Expr::id("ram_q")),
        Item::assign(Expr::id("out_seq"), Expr::id("rd_q")),
        Item::assign(Expr::id("head"), Expr::id("head_q")),
        Item::assign(Expr::id("count"), Expr::id("count_q")),
        Item::assign(Expr::id("full"), Expr::id("full_w")),
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
