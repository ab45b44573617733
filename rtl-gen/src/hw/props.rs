//! Formal properties emitted beside the RTL they describe, inside `` `ifdef FORMAL `` at the end
//! of the module: Verilator, Icarus, Yosys synthesis and every FPGA/ASIC flow read the file
//! without `FORMAL` defined and see exactly the synthesizable module, while `rtl-gen formal`
//! reads it with `read_verilog -formal -DFORMAL` and SymbiYosys proves the checks.
//!
//! Properties live inside the module rather than in a bound `<module>_props.v` because they
//! talk about internal registers (occupancy counters, pointers, FSM state), which Verilog-2005
//! can only reach from inside the module (there is no `bind`); and one file per module keeps the
//! properties and the RTL from drifting apart. Every check is an immediate `assert`/`assume` in
//! an `always @*` block (Yosys's formal subset of SystemVerilog, not seen by other tools); values
//! of the previous cycle are plain shadow registers updated in an `always @(posedge clk)`, so the
//! block reads as ordinary Verilog. Each check carries a label (`p_…` for assertions, `a_…` for
//! assumptions) that the SymbiYosys log names on failure and `rtl-gen formal` counts.
//!
//! A kind's generator builds its block with the helpers here in `blocks/<kind>/props.rs` and
//! pushes it as one [`Item::Formal`] item, last in the module.

use super::build::{add, all, and, dec, eq, ge, id, ne, or};
use super::verilog::{ClockDomain, Expr, Item, Stmt};
use crate::info::ResetStyle;
use std::collections::HashSet;
use std::fmt::Write;

/// Assertion (proven) or assumption (constrains the inputs the proof considers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    Assert,
    Assume,
}

/// One labelled immediate check: `if (guard) label: assert (cond);` inside `always @*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub kind: CheckKind,
    /// A Verilog identifier, unique in the module; `p_` for assertions, `a_` for assumptions.
    pub label: String,
    /// What the check says, one line.
    pub doc: String,
    pub guard: Option<Expr>,
    pub cond: Expr,
}

/// The `` `ifdef FORMAL `` block of one module.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Formal {
    /// Free constants the solver picks once per trace (`(* anyconst *) reg`): the tagged entry
    /// of a data-integrity argument.
    pub anyconst: Vec<(String, u32, String)>,
    /// Shadow registers, wires, assigns and the clocked blocks that update them.
    pub items: Vec<Item>,
    /// `initial name = value;` for shadow registers the proof starts from.
    pub init: Vec<(String, Expr)>,
    pub checks: Vec<Check>,
    /// Wires of the module a SAT proof of a combinational module treats as free inputs, printed
    /// as `// cut point: <wire>` lines. Sound only when an assertion the GF(2) evaluation proves
    /// pins the wire to its reference (the decoder's syndromes): the SAT proof then covers the
    /// logic after the cut, the GF(2) proof the network before it.
    pub cut_points: Vec<String>,
    /// Instances a clocked proof removes, their outputs driven by free values every cycle
    /// (Yosys `cutpoint`), printed as `// free instance: <instance>` lines. Always sound: the
    /// free outputs include every value the sub-module could produce, so what holds with them
    /// holds with it; a sub-module proven on its own (a CRC network, an FEC decoder) need not be
    /// carried through every cycle of its user's proof.
    pub free_instances: Vec<String>,
    /// A pipelined network proven by GF(2) evaluation with its registers read as delays (printed
    /// as `// registers: feed-forward delays`): its assertions compare the outputs with a
    /// reference over the inputs delayed by shadow registers ([`Formal::delayed`]), and the
    /// evaluation checks the pipeline is feed-forward and balanced before it reads through them.
    pub retimed: bool,
    /// Registers the GF(2) evaluation reads as free inputs (printed as `// free register:
    /// <reg>` lines): the assertions are about the combinational logic around them (output and
    /// next state from the state and the inputs) and hold for every state, reachable or not, so
    /// the clocked module is proven like a combinational one.
    pub free_registers: Vec<String>,
    /// Wires the GF(2) evaluation reads as free inputs, their driving logic cut off (printed as
    /// `// free wire: <wire>` lines): an assertion proven so holds for every value of the wire,
    /// so for the one its logic gives. A loop's step is stated so over the value it is fed (a
    /// streaming CRC's `feed`, the masked beat and the selected start register) when the logic
    /// that selects it (a byte mask, a start-of-message mux) is not affine in the ports.
    pub free_wires: Vec<String>,
    /// Assertions of a module otherwise proven by GF(2) evaluation (free registers or wires)
    /// that speak of more than one cycle, such as a stream's hold rule (printed as
    /// `// sequential: <label>` lines): the evaluation leaves them out and SymbiYosys proves
    /// them by k-induction, with the assertions the evaluation proved removed.
    pub sequential: Vec<String>,
}

/// The register that is 0 in the first cycle of a trace and 1 afterwards.
pub const PAST_VALID: &str = "f_past_valid";

impl Formal {
    /// An empty block for a combinational module.
    pub fn combinational() -> Formal {
        Formal::default()
    }

    /// An empty block for a pipelined network ([`Formal::retimed`]).
    pub fn retimed() -> Formal {
        Formal { retimed: true, ..Formal::default() }
    }

    /// `value` (`width` bits) delayed by `stages` cycles through plain shadow registers
    /// `f_<name>_d1` … (no reset: a pipeline's delay registers); `value` itself for 0 stages.
    pub fn delayed(&mut self, name: &str, width: u32, value: Expr, stages: u32) -> Expr {
        let mut prev = value;
        for k in 1..=stages {
            let reg = format!("f_{name}_d{k}");
            self.items.push(Item::reg(&reg, width, &format!("{name} {k} cycle(s) ago")));
            self.items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::set(id(&reg), prev)] });
            prev = id(&reg);
        }
        prev
    }

    /// A block for a clocked module: [`PAST_VALID`] and the assumption that the design's reset is
    /// asserted in the first cycle, so every trace starts from the reset state.
    pub fn clocked(reset: ResetStyle) -> Formal {
        let mut f = Formal::default();
        f.items.push(Item::reg(PAST_VALID, 1, "0 in the first cycle of a trace, then 1"));
        f.init.push((PAST_VALID.into(), Expr::zero()));
        f.items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::set(Expr::id(PAST_VALID), Expr::one())] });
        f.assume("a_reset_first", "every trace starts in reset", Some(Expr::id(PAST_VALID).lnot()), in_reset(reset));
        f
    }

    /// A shadow register `name` holding `value` of the previous cycle (X before the first edge,
    /// so checks that read it are guarded by [`PAST_VALID`]).
    pub fn past(&mut self, name: &str, width: u32, value: Expr, doc: &str) -> Expr {
        self.items.push(Item::reg(name, width, doc));
        self.items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::set(Expr::id(name), value)] });
        Expr::id(name)
    }

    /// `f_prev_run`: the previous cycle ran out of reset after the first cycle, so the shadow
    /// registers of [`Formal::past`] hold values of a running design (created once).
    pub fn prev_run(&mut self, reset: ResetStyle) -> Expr {
        const NAME: &str = "f_prev_run";
        if !self.init.iter().any(|(n, _)| n == NAME) {
            self.items.push(Item::reg(NAME, 1, "the previous cycle ran out of reset after the first"));
            self.items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::set(id(NAME), running(reset))] });
            self.init.push((NAME.into(), Expr::zero()));
        }
        id(NAME)
    }

    /// The beat held since last cycle on the AXI4-Stream port `name` (`name_tvalid`,
    /// `name_tready`, payload ports `name_<field>` in order).
    fn stream_rule(&mut self, reset: ResetStyle, name: &str, fields: &[(&str, u32)]) -> (Expr, Expr) {
        let payload: Vec<(String, u32)> = fields.iter().map(|(f, w)| (format!("{name}_{f}"), *w)).collect();
        self.handshake_rule(reset, name, &format!("{name}_tvalid"), &format!("{name}_tready"), &payload)
    }

    /// The beat held since last cycle on a valid/ready port whose signals are named freely
    /// (`valid`, `ready`, the payload signals in order; `label` names the shadows `f_<label>_…`):
    /// shadows of the last cycle's stall and payload; returns (guard: running, last cycle running
    /// and stalled; the rule).
    fn handshake_rule(&mut self, reset: ResetStyle, label: &str, valid: &str, ready: &str, payload: &[(String, u32)]) -> (Expr, Expr) {
        let parts: Vec<Expr> = payload.iter().map(|(f, _)| id(f)).collect();
        let width = payload.iter().map(|(_, w)| w).sum();
        let payload = if parts.len() == 1 { parts.into_iter().next().expect("one field") } else { Expr::Concat(parts) };
        let stalled = and(id(valid), id(ready).not());
        let held = self.past(&format!("f_{label}_stall"), 1, stalled, &format!("{label}: a beat presented and not taken one cycle ago"));
        let was = self.past(&format!("f_{label}_pay"), width, payload.clone(), &format!("{label}: the payload one cycle ago"));
        let prev = self.prev_run(reset);
        (and(and(running(reset), prev), held), and(id(valid), eq(payload, was)))
    }

    /// The AXI4-Stream rule on an output port: once `tvalid` is high and `tready` low, the next
    /// cycle keeps `tvalid` high and the payload unchanged (`p_<name>_stable`). `hold` restricts
    /// the cycles it is checked in (a port the module withdraws while its PHY is down), `None`
    /// for the plain rule.
    pub fn stream_out(&mut self, reset: ResetStyle, name: &str, fields: &[(&str, u32)], hold: Option<Expr>) {
        let (mut guard, rule) = self.stream_rule(reset, name, fields);
        if let Some(h) = hold {
            guard = and(guard, h);
        }
        self.assert(&format!("p_{name}_stable"), &format!("{name}: tvalid and the payload stay until tready"), Some(guard), rule);
    }

    /// The same rule on an output port whose signals are not `<name>_t…` (`valid`, `ready`,
    /// payload signals; `p_<label>_stable`): a module-internal stream such as a gearbox's.
    pub fn handshake_out(&mut self, reset: ResetStyle, label: &str, valid: &str, ready: &str, payload: &[(&str, u32)]) {
        let payload: Vec<(String, u32)> = payload.iter().map(|(f, w)| (f.to_string(), *w)).collect();
        let (guard, rule) = self.handshake_rule(reset, label, valid, ready, &payload);
        self.assert(&format!("p_{label}_stable"), &format!("{label}: {valid} and the payload stay until {ready}"), Some(guard), rule);
    }

    /// The same rule assumed of an input port (`a_<name>_stable`): the proof considers only
    /// senders that keep a beat until it is taken.
    pub fn stream_in(&mut self, reset: ResetStyle, name: &str, fields: &[(&str, u32)]) {
        let (guard, rule) = self.stream_rule(reset, name, fields);
        self.assume(&format!("a_{name}_stable"), &format!("{name}: the sender keeps tvalid and the payload until tready"), Some(guard), rule);
    }

    /// A saturating counter `name` (`width` bits, saturating at `max`) never wraps: from one
    /// cycle to the next it holds or steps up by one, and never steps from `max`
    /// (`p_<label>_sat`).
    pub fn saturating(&mut self, reset: ResetStyle, name: &str, label: &str, width: u32, max: Expr) {
        let was = self.past(&format!("f_{label}_was"), width, id(name), &format!("{name} one cycle ago"));
        let prev = self.prev_run(reset);
        let step = and(eq(id(name), add(was.clone(), dec(width, 1))), ne(was.clone(), max));
        self.assert(&format!("p_{label}_sat"), &format!("{name} holds or counts up by one, never past its saturation value"), Some(and(settled(reset), prev)), or(eq(id(name), was), step));
    }

    /// A value that never decreases (a saturating accumulator: it adds, and holds at its
    /// maximum instead of wrapping; `p_<label>_sat`).
    pub fn never_decreases(&mut self, reset: ResetStyle, name: &str, label: &str, width: u32) {
        let was = self.past(&format!("f_{label}_was"), width, id(name), &format!("{name} one cycle ago"));
        let prev = self.prev_run(reset);
        self.assert(&format!("p_{label}_sat"), &format!("{name} never decreases: it saturates, never wraps"), Some(and(settled(reset), prev)), ge(id(name), was));
    }

    /// A block that only names the instances a clocked proof leaves free ([`Formal::free_instances`]),
    /// for a module whose properties come from the helpers it is built with; [`gather`] merges it.
    pub fn free(instances: &[&str]) -> Formal {
        Formal { free_instances: instances.iter().map(|i| i.to_string()).collect(), ..Formal::default() }
    }

    /// Adds `other`'s declarations and checks to this block; the shadow registers both declare
    /// ([`PAST_VALID`], `f_prev_run`), their updates and initial values, and checks of a label
    /// already here (the reset assumption) are kept once.
    pub fn merge(&mut self, other: Formal) {
        let declared: HashSet<String> = self.items.iter().filter_map(declared_name).collect();
        for item in other.items {
            let known = match &item {
                Item::AlwaysFf { reset: None, body } => body.iter().all(|st| matches!(st, Stmt::Assign(Expr::Ident(n), _) if declared.contains(n))),
                other => declared_name(other).is_some_and(|n| declared.contains(&n)),
            };
            if !known {
                self.items.push(item);
            }
        }
        for (name, value) in other.init {
            if !self.init.iter().any(|(n, _)| *n == name) {
                self.init.push((name, value));
            }
        }
        for c in other.checks {
            if !self.checks.iter().any(|h| h.label == c.label) {
                self.checks.push(c);
            }
        }
        self.anyconst.extend(other.anyconst);
        self.cut_points.extend(other.cut_points);
        self.free_instances.extend(other.free_instances);
        self.retimed |= other.retimed;
        self.free_registers.extend(other.free_registers);
        self.free_wires.extend(other.free_wires);
        self.sequential.extend(other.sequential);
    }

    pub fn assert(&mut self, label: &str, doc: &str, guard: Option<Expr>, cond: Expr) {
        self.checks.push(Check { kind: CheckKind::Assert, label: label.into(), doc: doc.into(), guard, cond });
    }

    pub fn assume(&mut self, label: &str, doc: &str, guard: Option<Expr>, cond: Expr) {
        self.checks.push(Check { kind: CheckKind::Assume, label: label.into(), doc: doc.into(), guard, cond });
    }

    /// Number of assertions.
    pub fn properties(&self) -> usize {
        self.checks.iter().filter(|c| c.kind == CheckKind::Assert).count()
    }

    /// The text after the shadow items: `initial`s and one `always @*` with every check.
    pub fn render_checks(&self) -> String {
        let mut out = String::new();
        for c in &self.cut_points {
            let _ = writeln!(out, "    // cut point: {c}");
        }
        for i in &self.free_instances {
            let _ = writeln!(out, "    // free instance: {i}");
        }
        if self.retimed {
            out.push_str("    // registers: feed-forward delays\n");
        }
        for r in &self.free_registers {
            let _ = writeln!(out, "    // free register: {r}");
        }
        for w in &self.free_wires {
            let _ = writeln!(out, "    // free wire: {w}");
        }
        for l in &self.sequential {
            let _ = writeln!(out, "    // sequential: {l}");
        }
        for (name, value) in &self.init {
            let _ = writeln!(out, "    initial {name} = {};", value.render());
        }
        if self.checks.is_empty() {
            return out;
        }
        out.push_str("    always @* begin\n");
        for c in &self.checks {
            let verb = match c.kind {
                CheckKind::Assert => "assert",
                CheckKind::Assume => "assume",
            };
            let _ = writeln!(out, "        // {}", c.doc);
            match &c.guard {
                Some(g) => {
                    let _ = writeln!(out, "        if ({}) begin", g.render_at(12, 8));
                    let _ = writeln!(out, "            {}: {verb} ({});", c.label, c.cond.render_at(22 + c.label.len(), 12));
                    out.push_str("        end\n");
                }
                None => {
                    let _ = writeln!(out, "        {}: {verb} ({});", c.label, c.cond.render_at(18 + c.label.len(), 8));
                }
            }
        }
        out.push_str("    end\n");
        out
    }

    /// The `(* anyconst *)` declarations.
    pub fn render_anyconst(&self) -> String {
        let mut out = String::new();
        for (name, width, doc) in &self.anyconst {
            let range = if *width == 1 { String::new() } else { format!("[{}:0] ", width - 1) };
            let _ = writeln!(out, "    (* anyconst *) reg {range}{name}; // {doc}");
        }
        out
    }
}

fn declared_name(item: &Item) -> Option<String> {
    match item {
        Item::Reg { name, .. } | Item::Wire { name, .. } => Some(name.clone()),
        _ => None,
    }
}

/// Merges every formal block of a module (a kind's own properties and those the helpers it is
/// built with emitted, such as [`super::count`]'s saturating counters) into one, last in the
/// module, so the module has one `` `ifdef FORMAL `` block.
pub fn gather(items: &mut Vec<Item>) {
    let blocks = items.iter().filter(|i| matches!(i, Item::Formal(_))).count();
    if blocks == 0 || (blocks == 1 && matches!(items.last(), Some(Item::Formal(_)))) {
        return;
    }
    let mut merged: Option<Formal> = None;
    items.retain_mut(|i| match i {
        Item::Formal(f) => {
            let f = std::mem::take(f);
            match &mut merged {
                Some(m) => m.merge(f),
                None => merged = Some(f),
            }
            false
        }
        _ => true,
    });
    if let Some(f) = merged {
        items.push(Item::Formal(f));
    }
}

/// The design's reset asserted.
pub fn in_reset(reset: ResetStyle) -> Expr {
    match reset {
        ResetStyle::SyncHigh => Expr::id("rst"),
        ResetStyle::AsyncLow => Expr::id("rst_n").lnot(),
    }
}

/// A cycle of a running design: after the first cycle of the trace, out of reset.
pub fn running(reset: ResetStyle) -> Expr {
    and(id(PAST_VALID), out_of_reset(reset))
}

/// The cycles a register's step since the last edge can be checked in: after the first cycle
/// of the trace, and out of an asynchronous reset (which clears the register at once). A
/// synchronous reset changes nothing until the next edge, so its cycles are checked too: a
/// multiclock proof may hold reset over steps without a clock edge, and a property skipped
/// there would let an induction start from a state no reset edge reached.
pub fn settled(reset: ResetStyle) -> Expr {
    match reset {
        ResetStyle::SyncHigh => id(PAST_VALID),
        ResetStyle::AsyncLow => running(reset),
    }
}

/// The design's reset released.
pub fn out_of_reset(reset: ResetStyle) -> Expr {
    match reset {
        ResetStyle::SyncHigh => Expr::id("rst").lnot(),
        ResetStyle::AsyncLow => Expr::id("rst_n"),
    }
}

/// `name` = 1 from the first edge of `domain`'s clock on (a shadow register of a multiclock
/// proof, 0 in the first step of a trace).
pub fn started(f: &mut Formal, name: &str, domain: &ClockDomain) {
    f.items.push(Item::reg(name, 1, &format!("{} has had an edge", domain.clock)));
    f.items.push(Item::AlwaysFfOn { domain: domain.clone(), reset: None, body: vec![Stmt::set(id(name), Expr::one())] });
    f.init.push((name.into(), Expr::zero()));
}

/// `domain`'s reset asserted (its own port, in the design's style).
pub fn domain_in_reset(domain: &ClockDomain, style: ResetStyle) -> Expr {
    match style {
        ResetStyle::SyncHigh => id(&domain.reset),
        ResetStyle::AsyncLow => id(&domain.reset).not(),
    }
}

/// The reset rule of a multiclock proof: every domain of `domains` is in reset until each of
/// their clocks has had an edge (so every register saw its reset), and out of reset afterwards.
/// Adds one `f_<clock>_started` register per domain and an assumption `a_<clock>_reset` each;
/// returns the condition "all started" (the design runs), the guard of the assertions.
pub fn resets_released_together(f: &mut Formal, domains: &[&ClockDomain], style: ResetStyle) -> Expr {
    let names: Vec<String> = domains.iter().map(|d| format!("f_{}_started", d.clock)).collect();
    for (d, n) in domains.iter().zip(&names) {
        started(f, n, d);
    }
    let run = all(names.iter().map(|n| id(n)).collect());
    for d in domains {
        f.assume(
            &format!("a_{}_reset", d.clock),
            &format!("the {} domain is in reset until every clock has had an edge, then out of reset", d.clock),
            None,
            eq(domain_in_reset(d, style), run.clone().not()),
        );
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::verilog::Module;

    #[test]
    fn the_block_is_hidden_behind_ifdef_formal_with_labelled_checks() {
        let mut f = Formal::clocked(ResetStyle::SyncHigh);
        let prev = f.past("f_prev_q", 4, Expr::id("q"), "q one cycle ago");
        f.assert("p_q_moves", "q never holds", Some(Expr::id(PAST_VALID)), Expr::bin(crate::hw::verilog::BinOp::Ne, Expr::id("q"), prev));
        let m = Module { name: "m".into(), ports: vec![], items: vec![Item::Formal(f)], reset: Some(ResetStyle::SyncHigh) };
        let text = m.render();
        let block = text.split_once("`ifdef FORMAL\n").expect("ifdef").1.split_once("`endif").expect("endif").0;
        assert!(block.contains("reg f_past_valid;") && block.contains("initial f_past_valid = 1'd0;"), "{text}");
        assert!(block.contains("a_reset_first: assume (rst);"), "{text}");
        assert!(block.contains("p_q_moves: assert (q != f_prev_q);"), "{text}");
        assert!(block.contains("f_prev_q <= q;"), "{text}");
    }

    #[test]
    fn the_blocks_of_a_module_merge_into_one_last_with_the_shared_shadows_once() {
        let counter = |name: &str| {
            let mut f = Formal::clocked(ResetStyle::SyncHigh);
            f.saturating(ResetStyle::SyncHigh, name, name, 2, Expr::id("MAX"));
            Item::Formal(f)
        };
        let mut items = vec![counter("a"), Item::Formal(Formal::free(&["u_sub"])), Item::wire("w", 1, ""), counter("b")];
        gather(&mut items);
        assert_eq!(items.iter().filter(|i| matches!(i, Item::Formal(_))).count(), 1);
        let Some(Item::Formal(f)) = items.last() else { panic!("the block is last: {items:?}") };
        assert_eq!(f.properties(), 2);
        assert_eq!(f.free_instances, ["u_sub"]);
        let m = Module { name: "m".into(), ports: vec![], items, reset: Some(ResetStyle::SyncHigh) };
        let text = m.render();
        for once in ["reg f_past_valid;", "reg f_prev_run;", "a_reset_first: assume", "initial f_prev_run", "f_past_valid <= 1'd1;", "// free instance: u_sub"] {
            assert_eq!(text.matches(once).count(), 1, "{once}:\n{text}");
        }
        assert!(text.contains("p_a_sat: assert") && text.contains("p_b_sat: assert"), "{text}");
    }

    #[test]
    fn stream_and_counter_rules_read_the_ports_and_last_cycles_shadows() {
        let mut f = Formal::clocked(ResetStyle::SyncHigh);
        f.stream_in(ResetStyle::SyncHigh, "s", &[("tdata", 8)]);
        f.stream_out(ResetStyle::SyncHigh, "m", &[("tdata", 8), ("tlast", 1)], Some(Expr::id("up")));
        f.saturating(ResetStyle::SyncHigh, "cnt", "cnt", 2, Expr::id("CNT_MAX"));
        assert_eq!(f.properties(), 2);
        let m = Module { name: "m".into(), ports: vec![], items: vec![Item::Formal(f)], reset: Some(ResetStyle::SyncHigh) };
        let text = m.render();
        assert_eq!(text.matches("reg f_prev_run;").count(), 1, "one shared previous-cycle flag:\n{text}");
        assert!(text.contains("a_s_stable: assume (s_tvalid & (s_tdata == f_s_pay));"), "{text}");
        assert!(text.contains("f_m_stall & up) begin"), "{text}");
        assert!(text.contains("p_m_stable: assert (m_tvalid & ({m_tdata, m_tlast} == f_m_pay));"), "{text}");
        assert!(text.contains("p_cnt_sat: assert ((cnt == f_cnt_was)"), "{text}");
        assert!(text.contains("(f_cnt_was != CNT_MAX)"), "{text}");
    }
}
