//! `<p>_tbond_tx` / `<p>_tbond_rx`: temporal channel bonding (see `model::tbond`, the machines
//! they implement): the user streams on `user_clk` at T = `user_clk_ratio` times `clk`, W bits
//! per beat, against the node's streams on `clk`, T x W bits per beat. The two clocks come from
//! one source with every `clk` rising edge also one of `user_clk`: the crossing is phase-known
//! (no FIFO, no synchronizer). The `user_clk` side samples `clk` signals only at the edges the
//! clocks share, and the registers `clk` reads change only there: the constraint files time
//! those paths as multicycle paths of T `user_clk` cycles (every `bond_*` register from `clk`;
//! `bond_out_*` and `bond_ready_q` to `clk`), the phase toggle as a one-cycle path.

use super::Names;
use crate::hw::build::*;
use crate::hw::cdc::domain_reset_doc;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::hw::verilog::{ClockDomain, Expr, Item, Module, Port, Stmt};
use crate::info::DesignInfo;

/// The user domain: `user_clk` and its reset.
pub fn user_domain(design: &DesignInfo) -> ClockDomain {
    ClockDomain::named("user", design.reset)
}

/// The ports of the user clock: `user_clk` and its reset.
pub fn user_clock_ports(design: &DesignInfo, t: u32) -> [Port; 2] {
    let user = user_domain(design);
    [
        Port::input(&user.clock, 1, &format!("user clock, {t} x clk from the same source; every clk rising edge is one of its rising edges")),
        Port::input(&user.reset, 1, &domain_reset_doc(design.reset, &format!("reset of the {} domain", user.clock), &user.clock)),
    ]
}

/// The phase of `clk` as the user side learns it: `slow_toggle_q` on clk, `seen_q`, `phase_q`,
/// `locked_q` on user_clk, and the wire `shared` (the coming user_clk edge is a clk edge too).
fn phase_learner(it: &mut Vec<Item>, user: &ClockDomain, t: u32) {
    let pw = bits_for((t - 1) as u64);
    localparam(it, "LAST_PHASE", pw, (t - 1) as u64, "the user_clk phase that ends at a clk edge");
    it.push(Item::comment("clk side: a toggle the user side sees one user_clk cycle after each clk edge."));
    reg(it, "slow_toggle_q", 1, "flips at every clk edge");
    it.push(Item::AlwaysFf { reset: Some(vec![set_id("slow_toggle_q", Expr::zero())]), body: vec![set_id("slow_toggle_q", id("slow_toggle_q").not())] });
    it.push(Item::comment("user_clk side: the phase counter, set to 1 one user_clk edge after each clk edge."));
    reg(it, "seen_q", 1, "slow_toggle_q as of the last user_clk edge");
    reg(it, "phase_q", pw, "user_clk cycles since the last clk edge");
    reg(it, "locked_q", 1, "a clk edge has been seen since reset: the phase is known");
    wire(it, "load", 1, "a clk edge was the last user_clk edge (a one-user_clk-cycle path)", ne(id("seen_q"), id("slow_toggle_q")));
    wire(it, "shared", 1, "the coming user_clk edge is also a clk edge: the only edge clk signals are sampled and clk-read registers change", all(vec![id("locked_q"), eq(id("phase_q"), id("LAST_PHASE")), id("load").not()]));
    it.push(Item::AlwaysFfOn {
        domain: user.clone(),
        reset: Some(vec![set_id("seen_q", Expr::zero()), set_id("phase_q", dec(pw, 0)), set_id("locked_q", Expr::zero())]),
        body: vec![
            set_id("seen_q", id("slow_toggle_q")),
            set_id("phase_q", Expr::mux(id("load"), dec(pw, 1), add(id("phase_q"), dec(pw, 1)))),
            when(id("load"), vec![set_id("locked_q", Expr::one())]),
        ],
    });
}

fn clock_note(t: u32, user_regs: &str) -> String {
    format!("Clocks: user_clk = {t} x clk from one source, every clk rising edge also a user_clk rising edge. slow_toggle_q is on clk; seen_q, phase_q, locked_q and {user_regs} on user_clk. Reset both domains together; nothing passes before the user side has seen the first clk edge (locked_q).")
}

/// `<p>_tbond_tx`: user beats of `w` bits on user_clk into clk beats of `t` x `w` bits.
pub fn tx_module(w: u32, t: u32, design: &DesignInfo, n: &Names) -> GeneratedModule {
    let (kw, g, gk) = (w / 8, t * w, t * w / 8);
    let cw = bits_for((t - 1) as u64);
    let user = user_domain(design);
    let mut ports = clock_ports(design);
    ports.extend(user_clock_ports(design, t));
    ports.extend([
        Port::input("in_valid", 1, "a user beat is offered (user_clk)"),
        Port::output("in_ready", 1, "the beat is taken at this user_clk edge (registered state only)"),
        Port::input("in_data", w, "user beat; byte i at [8i+7:8i]"),
        Port::input("in_keep", kw, "kept bytes, contiguous from byte 0; all ones except on the in_last beat"),
        Port::input("in_last", 1, "last beat of a packet"),
        Port::output("out_valid", 1, "a group is offered to clk (user_clk register, changes only at edges shared with clk)"),
        Port::input("out_ready", 1, "clk takes the group at this clk edge (sampled at shared edges only)"),
        Port::output("out_data", g, &format!("group: user beat k of it at [{w}(k+1)-1:{w}k], the first at the bottom")),
        Port::output("out_keep", gk, "kept bytes of the group: each beat's in_keep at its place, zero above the last beat"),
        Port::output("out_last", 1, "the group ends the packet"),
    ]);
    let mut it: Vec<Item> = Vec::new();
    phase_learner(&mut it, &user, t);
    localparam(&mut it, "LAST_SLOT", cw, (t - 1) as u64, "the beat that completes a group");

    it.push(Item::comment("A group moves accumulator -> wait (any user_clk edge) -> out (a shared edge where clk takes or out is empty)."));
    reg(&mut it, "bond_acc_data_q", g, "beats of the group being collected, beat k at its place");
    reg(&mut it, "bond_acc_keep_q", gk, "their keeps, zero above the last beat written");
    reg(&mut it, "bond_acc_last_q", 1, "the group's last beat ends the packet");
    reg(&mut it, "bond_acc_count_q", cw, "beats collected (the slot of the next one)");
    reg(&mut it, "bond_acc_done_q", 1, "the group is complete: T beats or in_last");
    reg(&mut it, "bond_wait_valid_q", 1, "a complete group waits for a shared edge");
    reg(&mut it, "bond_wait_data_q", g, "");
    reg(&mut it, "bond_wait_keep_q", gk, "");
    reg(&mut it, "bond_wait_last_q", 1, "");
    reg(&mut it, "bond_out_valid_q", 1, "the group clk sees this clk cycle");
    reg(&mut it, "bond_out_data_q", g, "");
    reg(&mut it, "bond_out_keep_q", gk, "");
    reg(&mut it, "bond_out_last_q", 1, "");
    wire(&mut it, "out_free", 1, "at this shared edge out is empty or clk takes it", Expr::and(id("shared"), Expr::or(id("bond_out_valid_q").not(), id("out_ready"))));
    wire(&mut it, "wait_free", 1, "wait is empty or moves to out at this edge", Expr::or(id("bond_wait_valid_q").not(), id("out_free")));
    wire(&mut it, "acc_move", 1, "the complete group moves to wait at this edge", Expr::and(id("bond_acc_done_q"), id("wait_free")));
    wire(&mut it, "take", 1, "a user beat is taken at this edge", Expr::and(id("in_valid"), id("in_ready")));
    wire(&mut it, "slot", cw, "where a taken beat goes: 0 when the complete group leaves the accumulator", Expr::mux(id("bond_acc_done_q"), dec(cw, 0), id("bond_acc_count_q")));
    it.push(Item::assign(id("in_ready"), Expr::or(id("bond_acc_done_q").not(), id("bond_wait_valid_q").not())));

    it.push(Item::AlwaysFfOn {
        domain: user.clone(),
        reset: Some(vec![
            set_id("bond_acc_count_q", dec(cw, 0)),
            set_id("bond_acc_done_q", Expr::zero()),
            set_id("bond_wait_valid_q", Expr::zero()),
            set_id("bond_out_valid_q", Expr::zero()),
        ]),
        body: vec![
            if_else(
                id("take"),
                vec![set_id("bond_acc_count_q", add(id("slot"), dec(cw, 1))), set_id("bond_acc_done_q", Expr::or(id("in_last"), eq(id("slot"), id("LAST_SLOT"))))],
                vec![when(id("acc_move"), vec![set_id("bond_acc_count_q", dec(cw, 0)), set_id("bond_acc_done_q", Expr::zero())])],
            ),
            set_id("bond_wait_valid_q", Expr::or(id("acc_move"), Expr::and(id("bond_wait_valid_q"), id("out_free").not()))),
            when(id("out_free"), vec![set_id("bond_out_valid_q", id("bond_wait_valid_q"))]),
        ],
    });
    let mut slots = Vec::new();
    for k in 0..t {
        let keep = if k == 0 { cat(vec![zeros(gk - kw), id("in_keep")]) } else { id("in_keep") };
        let keep_lhs = if k == 0 { id("bond_acc_keep_q") } else { Expr::slice("bond_acc_keep_q", (k + 1) * kw - 1, k * kw) };
        slots.push(when(eq(id("slot"), dec(cw, k as u64)), vec![set(Expr::slice("bond_acc_data_q", (k + 1) * w - 1, k * w), id("in_data")), set(keep_lhs, keep)]));
    }
    let mut take_body = vec![set_id("bond_acc_last_q", id("in_last"))];
    take_body.extend(slots);
    it.push(Item::AlwaysFfOn { domain: user.clone(), reset: None, body: vec![when(id("take"), take_body)] });
    let moves = |from: &str, to: &str| -> Vec<Stmt> { ["data", "keep", "last"].iter().map(|f| set_id(&format!("bond_{to}_{f}_q"), id(&format!("bond_{from}_{f}_q")))).collect() };
    it.push(Item::AlwaysFfOn { domain: user, reset: None, body: vec![when(id("acc_move"), moves("acc", "wait")), when(id("out_free"), moves("wait", "out"))] });
    for f in ["valid", "data", "keep", "last"] {
        it.push(Item::assign(id(&format!("out_{f}")), id(&format!("bond_out_{f}_q"))));
    }
    GeneratedModule {
        module: Module { name: n.tbond_tx.clone(), ports, items: it, reset: Some(design.reset) },
        latency: 2,
        summary: format!("RIFL temporal channel bonding, TX: {w}-bit user beats on user_clk ({t} x clk, same source) into {g}-bit groups of up to {t} beats on clk."),
        notes: vec![
            clock_note(t, "every bond_* register"),
            format!("A group is up to {t} beats of one packet: beat k at out_data[{w}(k+1)-1:{w}k] and its keep at out_keep[{kw}(k+1)-1:{kw}k]; it is complete at its {t}-th beat or at in_last (then out_keep is zero above the last beat and out_last is set). Bytes above the last beat of a short group hold stale data (out_keep says which are kept)."),
            "Phase rule: out_valid, out_data, out_keep and out_last change only at user_clk edges that are also clk edges, and out_ready is sampled only there (by the wire shared: phase_q = LAST_PHASE once locked); clk therefore sees registers launched a whole clk cycle earlier, and a group leaves exactly when clk takes it (out_valid and out_ready at the shared edge). in_ready is registered state only: low only while a complete group waits in the accumulator behind a full wait register.".into(),
            format!("Latency: a group completed at a user_clk edge moves to wait at the next one and is offered to clk from the first shared edge after that: 2 to {} user_clk cycles, then taken at the next clk edge when out_ready. At full rate within a packet in_ready stays high (one group per clk cycle, whatever the packet's phase against clk); a packet that ends mid-group costs the sender the rest of that clk cycle at most.", t + 1),
        ],
        role: Role::TemporalBondTx,
        origin: None,
    }
}

/// `<p>_tbond_rx`: clk beats of `t` x `w` bits out as user beats of `w` bits on user_clk.
pub fn rx_module(w: u32, t: u32, design: &DesignInfo, n: &Names) -> GeneratedModule {
    let (kw, g, gk) = (w / 8, t * w, t * w / 8);
    let user = user_domain(design);
    let mut ports = clock_ports(design);
    ports.extend(user_clock_ports(design, t));
    ports.extend([
        Port::input("in_valid", 1, "a group is offered by clk (sampled at shared edges only)"),
        Port::output("in_ready", 1, "the group is taken at this clk edge (user_clk register, changes only at edges shared with clk)"),
        Port::input("in_data", g, &format!("group: user beat k at [{w}(k+1)-1:{w}k], the first at the bottom"), ),
        Port::input("in_keep", gk, "kept bytes, contiguous from byte 0; all ones unless in_last"),
        Port::input("in_last", 1, "the group ends the packet"),
        Port::output("out_valid", 1, "a user beat is presented (user_clk register)"),
        Port::input("out_ready", 1, "the user takes the beat at this user_clk edge"),
        Port::output("out_data", w, "user beat; bytes not kept are zero"),
        Port::output("out_keep", kw, "kept bytes, contiguous from byte 0"),
        Port::output("out_last", 1, "last beat of a packet"),
    ]);
    let mut it: Vec<Item> = Vec::new();
    phase_learner(&mut it, &user, t);
    it.push(Item::comment("Two groups: cur (shifted down one beat per user transfer) and next; ready for a group when at most one is held."));
    for (name, width, doc) in [
        ("bond_cur_valid_q", 1, "cur holds beats to send"),
        ("bond_cur_data_q", g, "cur's beats still to send, the next at the bottom"),
        ("bond_cur_keep_q", gk, "their keeps"),
        ("bond_cur_last_q", 1, "cur ends the packet"),
        ("bond_next_valid_q", 1, "a second group waits behind cur"),
        ("bond_next_data_q", g, ""),
        ("bond_next_keep_q", gk, ""),
        ("bond_next_last_q", 1, ""),
        ("bond_ready_q", 1, "in_ready for the clk cycle after the last shared edge"),
    ] {
        reg(&mut it, name, width, doc);
    }
    wire(&mut it, "take", 1, "clk hands over a group at this shared edge", all(vec![id("shared"), id("bond_ready_q"), id("in_valid")]));
    wire(&mut it, "sent", 1, "the user takes cur's bottom beat", Expr::and(id("bond_cur_valid_q"), id("out_ready")));
    wire(&mut it, "cur_end", 1, "that beat is cur's last: the next beat's first byte is not kept", Expr::and(id("sent"), Expr::bit("bond_cur_keep_q", kw).not()));
    wire(&mut it, "cur_free", 1, "cur is empty or sends its last beat", Expr::or(id("bond_cur_valid_q").not(), id("cur_end")));
    wire(&mut it, "cur_valid_next", 1, "", Expr::or(Expr::and(id("cur_free"), Expr::or(id("bond_next_valid_q"), id("take"))), id("cur_free").not()));
    wire(&mut it, "next_valid_next", 1, "", Expr::mux(id("cur_free"), Expr::and(id("bond_next_valid_q"), id("take")), Expr::or(id("bond_next_valid_q"), id("take"))));
    it.push(Item::AlwaysFfOn {
        domain: user.clone(),
        reset: Some(vec![set_id("bond_cur_valid_q", Expr::zero()), set_id("bond_next_valid_q", Expr::zero()), set_id("bond_ready_q", Expr::zero())]),
        body: vec![
            set_id("bond_cur_valid_q", id("cur_valid_next")),
            set_id("bond_next_valid_q", id("next_valid_next")),
            when(id("shared"), vec![set_id("bond_ready_q", Expr::and(id("cur_valid_next"), id("next_valid_next")).not())]),
        ],
    });
    let from_next_or_in = |f: &str| Expr::mux(id("bond_next_valid_q"), id(&format!("bond_next_{f}_q")), id(&format!("in_{f}")));
    let shifted = |reg: &str, width: u32, step: u32| cat(vec![zeros(step), Expr::slice(reg, width - 1, step)]);
    it.push(Item::AlwaysFfOn {
        domain: user.clone(),
        reset: None,
        body: vec![if_else(
            id("cur_free"),
            vec![set_id("bond_cur_data_q", from_next_or_in("data")), set_id("bond_cur_keep_q", from_next_or_in("keep")), set_id("bond_cur_last_q", from_next_or_in("last"))],
            vec![when(id("sent"), vec![set_id("bond_cur_data_q", shifted("bond_cur_data_q", g, w)), set_id("bond_cur_keep_q", shifted("bond_cur_keep_q", gk, kw))])],
        )],
    });
    it.push(Item::AlwaysFfOn {
        domain: user,
        reset: None,
        body: vec![when(id("take"), vec![set_id("bond_next_data_q", id("in_data")), set_id("bond_next_keep_q", id("in_keep")), set_id("bond_next_last_q", id("in_last"))])],
    });
    it.push(Item::assign(id("in_ready"), id("bond_ready_q")));
    it.push(Item::assign(id("out_valid"), id("bond_cur_valid_q")));
    it.push(Item::assign(id("out_data"), Expr::slice("bond_cur_data_q", w - 1, 0)));
    it.push(Item::assign(id("out_keep"), Expr::slice("bond_cur_keep_q", kw - 1, 0)));
    it.push(Item::assign(id("out_last"), Expr::and(id("bond_cur_last_q"), Expr::bit("bond_cur_keep_q", kw).not())));
    GeneratedModule {
        module: Module { name: n.tbond_rx.clone(), ports, items: it, reset: Some(design.reset) },
        latency: 0,
        summary: format!("RIFL temporal channel bonding, RX: {g}-bit groups on clk out as up to {t} {w}-bit user beats each on user_clk ({t} x clk, same source)."),
        notes: vec![
            clock_note(t, "every bond_* register"),
            format!("A group (in_data) is up to {t} user beats, beat k at [{w}(k+1)-1:{w}k]; its beats go out from the bottom, one per user transfer, and its last one is the highest whose first keep bit is set (out_last with the group's in_last)."),
            "Phase rule: in_valid, in_data, in_keep and in_last are sampled only at user_clk edges that are also clk edges, and in_ready (bond_ready_q) changes only there: a group passes exactly when in_valid and in_ready meet at a clk edge. bond_ready_q is set at each shared edge to whether at most one group is held after it, so a group can always enter at the next shared edge.".into(),
            format!("Latency: a group taken at a clk edge presents its first beat right after that edge (0 user_clk cycles; taken by the user at the next user_clk edge). At full rate (out_ready high, a group per clk cycle) the next group enters at the edge the previous one's last beat leaves: no bubble, {t} user beats per clk cycle."),
        ],
        role: Role::TemporalBondRx,
        origin: None,
    }
}
