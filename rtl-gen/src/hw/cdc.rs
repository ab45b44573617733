//! The clock-domain-crossing kit: the only cells through which a generated module lets a signal
//! pass from one clock domain into another. Each is a section (declarations and register groups)
//! a multi-clock module pushes into its item list, clocked by [`ClockDomain`]s:
//! - [`synchronizer`]: an N-flop chain (`stages` >= 2) of [`Item::SyncReg`] flops, for a
//!   signal of which at most one bit changes between two samples (a Gray pointer, a level, a
//!   toggle);
//! - [`pulse_toggle`] + [`pulse_detect`]: a pulse synchronizer (toggle flop in the source domain,
//!   synchronizer and edge detector in the destination domain);
//! - [`gray_counter`], [`gray_of`] and [`bin_of_gray`]: a binary counter with its registered
//!   Gray code, the pointers that cross (one bit changes per increment).
//!
//! The synchronizer flops are named `<name>_s1` … `<name>_s<stages>`: the emitted XDC/SDC find
//! the crossings by these names (`*_s1` is the first flop after a crossing) and the structural
//! CDC check accepts a path between domains only into a `_s1` flop (or, for the asynchronous
//! FIFO's storage, from its memory into its read port).

use super::build::{add, cat, dec, id};
use super::verilog::{ClockDomain, Expr, Item, Stmt, UnOp};

/// Name of synchronizer `name`'s stage `i` (1 = the flop that samples the other domain).
pub fn stage_name(name: &str, i: u32) -> String {
    format!("{name}_s{i}")
}

/// The doc of a clock domain's reset port, `what` naming it ("write domain reset"): asynchronous
/// active low, or synchronous to `clock` active high, as the design's reset style says.
pub fn domain_reset_doc(style: crate::info::ResetStyle, what: &str, clock: &str) -> String {
    if style.active_low() {
        format!("{what}, asynchronous, active low")
    } else {
        format!("{what}, synchronous to {clock}, active high")
    }
}

/// An N-flop synchronizer of `width` bits: `d` (registers of another clock domain, at most one
/// bit changing between two edges of `domain`'s clock) sampled into `domain` through `stages`
/// flops. Returns the declarations and the register group, and the name of the last stage (the
/// synchronized value, `stages` edges of `domain` after `d` changed). Every stage resets to 0.
pub fn synchronizer(items: &mut Vec<Item>, name: &str, d: Expr, width: u32, stages: u32, domain: &ClockDomain, doc: &str) -> String {
    assert!(stages >= 2, "synchronizer {name}: {stages} stages (at least 2)");
    items.push(Item::comment(&format!("{doc}\n{stages}-flop synchronizer into the {} domain (ASYNC_REG: one slice, no shift-register LUT).", domain.clock)));
    for i in 1..=stages {
        let what = if i == 1 { "samples the other clock domain (may go metastable)".to_string() } else { format!("stage {i} of {stages}") };
        items.push(Item::SyncReg { name: stage_name(name, i), width, doc: what });
    }
    let reset = (1..=stages).map(|i| Stmt::set(id(&stage_name(name, i)), dec(width, 0))).collect();
    let body = (1..=stages).map(|i| Stmt::set(id(&stage_name(name, i)), if i == 1 { d.clone() } else { id(&stage_name(name, i - 1)) })).collect();
    items.push(Item::AlwaysFfOn { domain: domain.clone(), reset: Some(reset), body });
    stage_name(name, stages)
}

/// The Gray code of the `width`-bit binary signal `bin`: `bin ^ (bin >> 1)`.
pub fn gray_of(bin: &str, width: u32) -> Expr {
    if width == 1 {
        return id(bin);
    }
    Expr::xor(id(bin), cat(vec![dec(1, 0), Expr::slice(bin, width - 1, 1)]))
}

/// The binary value of the `width`-bit Gray code `gray`: bit i is the parity of `gray[width-1:i]`.
pub fn bin_of_gray(gray: &str, width: u32) -> Expr {
    let bits = (0..width)
        .rev()
        .map(|i| if i == width - 1 { Expr::bit(gray, i) } else { Expr::red(UnOp::RedXor, Expr::slice(gray, width - 1, i)) })
        .collect();
    cat(bits)
}

/// Names of a [`gray_counter`]'s signals.
#[derive(Debug, Clone)]
pub struct GrayCounter {
    /// Binary count (register).
    pub bin: String,
    /// Its Gray code (register): the value that crosses.
    pub gray: String,
    /// Binary count after this edge (wire).
    pub bin_next: String,
    /// Gray code after this edge (wire), for flags registered from the next pointer.
    pub gray_next: String,
}

/// A `width`-bit binary counter stepping by the 1-bit `inc` at each edge of `domain`, kept with
/// its Gray code in registers (one register group): the Gray register changes one bit per
/// increment, so it can cross domains through a [`synchronizer`]. Both reset to 0.
pub fn gray_counter(items: &mut Vec<Item>, prefix: &str, width: u32, inc: Expr, domain: &ClockDomain, doc: &str) -> GrayCounter {
    let c = GrayCounter { bin: format!("{prefix}_bin_q"), gray: format!("{prefix}_gray_q"), bin_next: format!("{prefix}_bin_n"), gray_next: format!("{prefix}_gray_n") };
    items.push(Item::comment(doc));
    items.push(Item::reg(&c.bin, width, "binary count"));
    items.push(Item::reg(&c.gray, width, "Gray code of the count: the value that crosses"));
    items.push(Item::wire(&c.bin_next, width, "count after this edge"));
    let step = if width == 1 { inc } else { cat(vec![dec(width - 1, 0), inc]) };
    items.push(Item::assign(id(&c.bin_next), add(id(&c.bin), step)));
    items.push(Item::wire(&c.gray_next, width, "its Gray code"));
    items.push(Item::assign(id(&c.gray_next), gray_of(&c.bin_next, width)));
    items.push(Item::AlwaysFfOn {
        domain: domain.clone(),
        reset: Some(vec![Stmt::set(id(&c.bin), dec(width, 0)), Stmt::set(id(&c.gray), dec(width, 0))]),
        body: vec![Stmt::set(id(&c.bin), id(&c.bin_next)), Stmt::set(id(&c.gray), id(&c.gray_next))],
    });
    c
}

/// Source half of a pulse synchronizer: a toggle flop `<name>_toggle_q` in `domain` that flips
/// at each edge where `pulse` is high. Returns the toggle register's name (what crosses).
pub fn pulse_toggle(items: &mut Vec<Item>, name: &str, pulse: Expr, domain: &ClockDomain) -> String {
    let t = format!("{name}_toggle_q");
    items.push(Item::comment(&format!("Pulse synchronizer {name}, source half: a level that flips once per pulse crosses, never the pulse.")));
    items.push(Item::reg(&t, 1, "flips at every source pulse"));
    items.push(Item::AlwaysFfOn { domain: domain.clone(), reset: Some(vec![Stmt::set(id(&t), Expr::zero())]), body: vec![Stmt::when(pulse, vec![Stmt::set(id(&t), id(&t).not())])] });
    t
}

/// Destination half of a pulse synchronizer: the toggle `toggle` (from [`pulse_toggle`])
/// through a `stages`-flop synchronizer into `domain`, and an edge detector: the wire
/// `<name>_pulse` is high for one destination cycle per source pulse, `stages` destination
/// edges after the toggle flipped. Source pulses must be at least `stages + 1` destination
/// cycles apart (two flips inside one sample would cancel).
pub fn pulse_detect(items: &mut Vec<Item>, name: &str, toggle: &str, stages: u32, domain: &ClockDomain) -> String {
    let synced = synchronizer(items, &format!("{name}_sync"), id(toggle), 1, stages, domain, &format!("Pulse synchronizer {name}, destination half."));
    let seen = format!("{name}_seen_q");
    let pulse = format!("{name}_pulse");
    items.push(Item::reg(&seen, 1, "the synchronized toggle one edge earlier"));
    items.push(Item::AlwaysFfOn { domain: domain.clone(), reset: Some(vec![Stmt::set(id(&seen), Expr::zero())]), body: vec![Stmt::set(id(&seen), id(&synced))] });
    items.push(Item::wire(&pulse, 1, "one destination cycle per source pulse"));
    items.push(Item::assign(id(&pulse), Expr::xor(id(&synced), id(&seen))));
    pulse
}

/// Whether clock ports `a` and `b` come from one source: `clk` and a `<side>_fast_clk` or
/// `user_clk`, which run at a power of two times `clk` with every `clk` rising edge one of their
/// own (the module's docs give the ratio; RIFL's fast TX clock and its temporally bonded user
/// clock). Paths between the two are synchronous, phase-known transfers that the constraint
/// files time (the clocks related, multicycle paths where one side takes the other's registers
/// at the edges the two clocks share), not crossings.
pub fn same_source(a: &str, b: &str) -> bool {
    let fast = |c: &str| c.ends_with("_fast_clk") || c == "user_clk";
    (a == "clk" && fast(b)) || (b == "clk" && fast(a))
}

/// A signal that passes from one clock domain into another other than through a kit cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCrossing {
    /// The register or input of the source domain.
    pub from: String,
    pub from_clock: String,
    /// The register or output port it reaches.
    pub to: String,
    pub to_clock: String,
}

impl std::fmt::Display for RawCrossing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}) reaches {} ({}) without a synchronizer", self.from, self.from_clock, self.to, self.to_clock)
    }
}

fn idents(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Ident(n) | Expr::Bit(n, _) | Expr::Slice(n, ..) => out.push(n.clone()),
        Expr::Index(n, i) => {
            out.push(n.clone());
            idents(i, out);
        }
        Expr::Const(_) | Expr::Dec(..) => {}
        Expr::Un(_, a) | Expr::Repeat(_, a) | Expr::Parity { of: a, .. } => idents(a, out),
        Expr::Bin(_, a, b) => {
            idents(a, out);
            idents(b, out);
        }
        Expr::Ternary(c, a, b) => {
            idents(c, out);
            idents(a, out);
            idents(b, out);
        }
        Expr::Concat(v) | Expr::Call(_, v) | Expr::XorAll(v) => v.iter().for_each(|x| idents(x, out)),
    }
}

/// The register a left-hand side assigns (`q`, `q[3]`, `mem[addr]`) and the names its index reads.
fn target(lhs: &Expr, reads: &mut Vec<String>) -> Option<String> {
    match lhs {
        Expr::Ident(n) | Expr::Bit(n, _) | Expr::Slice(n, ..) => Some(n.clone()),
        Expr::Index(n, i) => {
            idents(i, reads);
            Some(n.clone())
        }
        _ => None,
    }
}

/// Every (register, names its next value reads, the right-hand side when it is a plain name)
/// of a register group: conditions count as read by every assignment under them.
fn assignments(stmts: &[Stmt], conds: &[String], out: &mut Vec<(String, Vec<String>, Option<String>)>) {
    for s in stmts {
        match s {
            Stmt::Assign(l, r) => {
                let mut reads = conds.to_vec();
                idents(r, &mut reads);
                if let Some(t) = target(l, &mut reads) {
                    let plain = if let Expr::Ident(n) = r { Some(n.clone()) } else { None };
                    out.push((t, reads, plain));
                }
            }
            Stmt::If(c, a, b) => {
                let mut cs = conds.to_vec();
                idents(c, &mut cs);
                assignments(a, &cs, out);
                assignments(b, &cs, out);
            }
            Stmt::Case(sel, arms, default) => {
                let mut cs = conds.to_vec();
                idents(sel, &mut cs);
                for (labels, body) in arms {
                    labels.iter().for_each(|l| idents(l, &mut cs));
                    assignments(body, &cs, out);
                }
                assignments(default, &cs, out);
            }
            Stmt::Comment(_) => {}
        }
    }
}

/// `b ^ {1'd0, b[W-1:1]}`: the form [`gray_of`] prints.
fn is_gray_code(e: &Expr) -> bool {
    match e {
        Expr::Bin(crate::hw::verilog::BinOp::Xor, a, b) => match (a.as_ref(), b.as_ref()) {
            (Expr::Ident(x), Expr::Concat(parts)) => matches!(parts.as_slice(), [Expr::Dec(1, 0), Expr::Slice(y, _, 1)] if y == x),
            _ => false,
        },
        _ => false,
    }
}

/// The structural CDC check of a module: every register's clock (from its register group), every
/// input's (the clock whose prefix it carries: `wr_en` is `wr_clk`'s), and every path from a
/// register or input of one clock to a register or output of another, through any wires. A
/// path is allowed only into the first flop of a kit synchronizer (an [`Item::SyncReg`] named
/// `*_s1` loaded directly from the source, no logic between; a source of several bits must be a
/// register loaded only with Gray codes, as [`gray_counter`] keeps them), or out of a memory (an
/// asynchronous FIFO's storage, read by the other side at pointers the synchronizers proved
/// written). Paths between two clocks of one source ([`same_source`]) are synchronous, not
/// crossings. Returns every other path. A single-clock module has none by construction.
pub fn raw_crossings(m: &crate::hw::verilog::Module) -> Vec<RawCrossing> {
    clock_paths(m, &|a, b| !same_source(a, b))
}

/// The paths between two clocks of one source ([`same_source`]), by the same analysis as
/// [`raw_crossings`]: what the constraint files' multicycle paths must cover.
pub fn related_paths(m: &crate::hw::verilog::Module) -> Vec<RawCrossing> {
    clock_paths(m, &|a, b| same_source(a, b))
}

/// The paths from a register or input of one clock to a register or output of another whose
/// clock pair `pair` selects (synchronizer inputs and memory reads excepted).
fn clock_paths(m: &crate::hw::verilog::Module, pair: &dyn Fn(&str, &str) -> bool) -> Vec<RawCrossing> {
    use crate::hw::verilog::Dir;
    use std::collections::{BTreeMap, BTreeSet, HashMap};
    let mut clock_of: HashMap<String, String> = HashMap::new();
    let mut regs: Vec<(String, String, Vec<String>, Option<String>)> = Vec::new();
    for item in &m.items {
        let (clock, body) = match item {
            Item::AlwaysFf { body, reset } => ("clk".to_string(), body.iter().chain(reset.iter().flatten()).cloned().collect::<Vec<_>>()),
            Item::AlwaysFfOn { domain, body, reset } => (domain.clock.clone(), body.iter().chain(reset.iter().flatten()).cloned().collect()),
            _ => continue,
        };
        let mut a = Vec::new();
        assignments(&body, &[], &mut a);
        for (t, reads, plain) in a {
            clock_of.insert(t.clone(), clock.clone());
            regs.push((t, clock.clone(), reads, plain));
        }
    }
    let clocks: BTreeSet<String> = clock_of.values().cloned().collect();
    for p in m.ports.iter().filter(|p| p.dir == Dir::Input) {
        if let Some(c) = clocks.iter().find(|c| c.strip_suffix("clk").is_some_and(|pre| !pre.is_empty() && p.name.starts_with(pre))) {
            clock_of.entry(p.name.clone()).or_insert_with(|| c.clone());
        } else if clocks.len() == 1 && !clocks.contains(&p.name) {
            clock_of.entry(p.name.clone()).or_insert_with(|| clocks.iter().next().cloned().unwrap_or_default());
        }
    }
    let memories: BTreeSet<&str> = m.items.iter().filter_map(|i| if let Item::Memory { name, .. } | Item::LutMemory { name, .. } | Item::UncheckedMemory { name, .. } = i { Some(name.as_str()) } else { None }).collect();
    let sync1: BTreeSet<&str> = m.items.iter().filter_map(|i| if let Item::SyncReg { name, .. } = i { name.ends_with("_s1").then_some(name.as_str()) } else { None }).collect();
    let mut wires: HashMap<String, Vec<String>> = HashMap::new();
    let mut gray_wires: BTreeSet<String> = BTreeSet::new();
    for item in &m.items {
        if let Item::Assign(Expr::Ident(w), r) = item {
            if is_gray_code(r) {
                gray_wires.insert(w.clone());
            }
        }
        if let Item::Assign(l, r) = item {
            let mut reads = Vec::new();
            if let Some(t) = target(l, &mut reads) {
                idents(r, &mut reads);
                wires.entry(t).or_default().extend(reads);
            }
        }
    }
    // The registers and inputs a set of names reads through wires.
    let sources = |start: &[String]| -> BTreeSet<String> {
        let (mut seen, mut todo, mut out) = (BTreeSet::new(), start.to_vec(), BTreeSet::new());
        while let Some(n) = todo.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            if clock_of.contains_key(&n) {
                out.insert(n);
            } else if let Some(r) = wires.get(&n) {
                todo.extend(r.iter().cloned());
            }
        }
        out
    };
    let mut found = BTreeMap::new();
    let mut flag = |from: &str, to: &str, to_clock: &str| {
        let from_clock = &clock_of[from];
        if from_clock != to_clock && pair(from_clock, to_clock) && !memories.contains(from) {
            found.insert((from.to_string(), to.to_string()), RawCrossing { from: from.into(), from_clock: from_clock.clone(), to: to.into(), to_clock: to_clock.into() });
        }
    };
    let widths: HashMap<&str, u32> = m.items.iter().filter_map(|i| if let Item::SyncReg { name, width, .. } = i { Some((name.as_str(), *width)) } else { None }).collect();
    // A register loaded only with Gray codes: one bit changes per step, so a synchronizer can take it.
    let gray_reg = |r: &str| {
        // Constant loads (the reset value) aside.
        let loads: Vec<&Option<String>> = regs.iter().filter(|(t, _, reads, plain)| t == r && (plain.is_some() || !reads.is_empty())).map(|(.., plain)| plain).collect();
        !loads.is_empty() && loads.iter().all(|p| p.as_ref().is_some_and(|w| gray_wires.contains(w)))
    };
    for (t, clock, reads, plain) in &regs {
        let direct_sync = sync1.contains(t.as_str()) && plain.as_deref().is_some_and(|src| widths.get(t.as_str()).copied().unwrap_or(1) == 1 || gray_reg(src));
        for s in sources(reads) {
            if direct_sync && plain.as_deref() == Some(s.as_str()) {
                continue;
            }
            flag(&s, t, clock);
        }
    }
    for p in m.ports.iter().filter(|p| p.dir == Dir::Output) {
        let srcs = sources(std::slice::from_ref(&p.name).iter().flat_map(|n| wires.get(n).cloned().unwrap_or_default()).collect::<Vec<_>>().as_slice());
        let own = clocks.iter().find(|c| c.strip_suffix("clk").is_some_and(|pre| !pre.is_empty() && p.name.starts_with(pre))).cloned();
        let Some(own) = own.or_else(|| srcs.iter().find(|s| !memories.contains(s.as_str())).map(|s| clock_of[s].clone())) else { continue };
        for s in srcs {
            flag(&s, &p.name, &own);
        }
    }
    found.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::verilog::{Module, Port};
    use crate::info::ResetStyle;

    fn gray(b: u32) -> u32 {
        b ^ (b >> 1)
    }

    #[test]
    fn gray_code_helpers_print_the_textbook_forms() {
        assert_eq!(gray_of("b", 4).render(), "b ^ {1'd0, b[3:1]}");
        assert_eq!(bin_of_gray("g", 3).render(), "{g[2], ^g[2:1], ^g[2:0]}");
        // Adjacent Gray codes differ in one bit, around the wrap too.
        for b in 0..16u32 {
            assert_eq!((gray(b) ^ gray((b + 1) % 16)).count_ones(), 1);
        }
    }

    #[test]
    fn a_synchronizer_is_a_chain_of_async_reg_flops_in_its_own_domain() {
        let wr = ClockDomain::named("wr", ResetStyle::AsyncLow);
        let mut items = Vec::new();
        let out = synchronizer(&mut items, "ptr_sync", id("ptr_q"), 4, 3, &wr, "A pointer.");
        assert_eq!(out, "ptr_sync_s3");
        let m = Module {
            name: "m".into(),
            ports: vec![Port::input("wr_clk", 1, ""), Port::input("wr_rst_n", 1, ""), Port::input("ptr_q", 4, "")],
            items,
            reset: Some(ResetStyle::AsyncLow),
        };
        let text = m.render();
        assert!(text.contains("(* ASYNC_REG = \"TRUE\", keep = \"true\" *) reg [3:0] ptr_sync_s1;"), "{text}");
        assert!(text.contains("always @(posedge wr_clk or negedge wr_rst_n) begin\n        if (!wr_rst_n) begin"), "{text}");
        assert!(text.contains("ptr_sync_s1 <= ptr_q;\n            ptr_sync_s2 <= ptr_sync_s1;\n            ptr_sync_s3 <= ptr_sync_s2;"), "{text}");
    }

    #[test]
    fn a_pulse_synchronizer_crosses_only_through_its_toggle() {
        let (src, dst) = (ClockDomain::named("src", ResetStyle::SyncHigh), ClockDomain::named("dst", ResetStyle::SyncHigh));
        let mut items = Vec::new();
        let toggle = pulse_toggle(&mut items, "ev", id("src_pulse"), &src);
        let pulse = pulse_detect(&mut items, "ev", &toggle, 2, &dst);
        items.push(Item::assign(id("dst_pulse"), id(&pulse)));
        let m = Module {
            name: "m".into(),
            ports: vec![
                Port::input("src_clk", 1, ""),
                Port::input("src_rst", 1, ""),
                Port::input("src_pulse", 1, ""),
                Port::input("dst_clk", 1, ""),
                Port::input("dst_rst", 1, ""),
                Port::output("dst_pulse", 1, ""),
            ],
            items,
            reset: Some(ResetStyle::SyncHigh),
        };
        assert!(raw_crossings(&m).is_empty(), "{:?}", raw_crossings(&m));
        let text = m.render();
        assert!(text.contains("always @(posedge src_clk) begin\n        if (src_rst) begin\n            ev_toggle_q <= 1'd0;"), "{text}");
        assert!(text.contains("ev_sync_s1 <= ev_toggle_q;") && text.contains("assign ev_pulse = ev_sync_s2 ^ ev_seen_q;"), "{text}");
        // The pulse itself taken across instead of the toggle: a raw crossing.
        let mut raw = m.clone();
        raw.items.push(Item::reg("late_q", 1, ""));
        raw.items.push(Item::AlwaysFfOn { domain: dst.clone(), reset: None, body: vec![Stmt::set(id("late_q"), id("src_pulse"))] });
        assert_eq!(raw_crossings(&raw).len(), 1);
    }
}
