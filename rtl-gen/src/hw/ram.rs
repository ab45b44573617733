//! RAM wrappers: every memory array of a module that has one write port and one read port
//! becomes an instance of a generic RAM module, one module per shape (style × read port ×
//! width × depth), so an ASIC team swaps the wrapper for its SRAM compiler's macro and an FPGA
//! flow still infers block RAM or LUT RAM from the wrapper's body exactly as it did inline.
//!
//! [`wrap`] rewrites a module after its generator built it: it finds, for each
//! [`Item::Memory`] / [`Item::LutMemory`], the one write (`if (en) mem[a] <= d;` in a reset-free
//! clocked block, its enable the conjunction of the `if`s around it) and the one read, either
//! registered (`q <= mem[a];` alone in a reset-free clocked block, its enable the `if`s around
//! it; `q` is assigned nowhere else) or asynchronous (`mem[a]` anywhere else, read combinationally).
//! The array, the write and the read are replaced by an instance `u_<mem>`; a registered read's
//! `q` becomes a wire the wrapper's read register drives, an asynchronous read becomes the wire
//! `<mem>_rd`. Arrays outside that pattern stay registers in their module: several read ports
//! (the SUE transport's per-slot metadata, read by every space at once), a read folded into other
//! logic in the same register (the FEC decoder's per-slot symbol counts), writes on a clock
//! other than `clk` (the asynchronous FIFO's storage, which the CDC constraints name).

use super::module::{GeneratedModule, Origin, Role};
use super::verilog::{Expr, Item, Module, Port, Stmt};

/// The kind every RAM wrapper records as its origin (not a block kind: wrappers are built by
/// [`wrap`], not by a block).
pub const KIND: &str = "ram";

/// What a RAM wrapper is: width, depth, read port and inference style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub width: u32,
    pub depth: u32,
    /// Registered read (`rd_data` one cycle after `rd_en`/`rd_addr`); else asynchronous.
    pub sync_read: bool,
    /// `(* ram_style = "distributed" *)`: LUT RAM on an FPGA.
    pub lut: bool,
}

impl Shape {
    pub fn addr_bits(&self) -> u32 {
        (32 - (self.depth.max(2) - 1).leading_zeros()).max(1)
    }

    /// `<prefix>ram_1r1w_<W>x<D>`, `<prefix>ram_1r1w_async_<W>x<D>`, `lutram` for LUT RAM.
    pub fn module_name(&self, prefix: &str) -> String {
        let style = if self.lut { "lutram" } else { "ram" };
        let read = if self.sync_read { "" } else { "async_" };
        format!("{prefix}{style}_1r1w_{read}{}x{}", self.width, self.depth)
    }

    /// The wrapper's own parameters, as the manifest and banner list them.
    pub fn params(&self) -> Vec<(&'static str, serde_json::Value)> {
        vec![
            ("width", self.width.into()),
            ("depth", self.depth.into()),
            ("read", if self.sync_read { "sync" } else { "async" }.into()),
            ("style", if self.lut { "distributed" } else { "block" }.into()),
        ]
    }

    /// Read latency in cycles: 1 for a registered read, 0 for an asynchronous one.
    pub fn latency(&self) -> u32 {
        u32::from(self.sync_read)
    }

    /// The wrapper module: write port and read port on `clk`, no reset (RAM contents and the
    /// read register are not reset, as an SRAM macro's are not).
    pub fn module(&self, prefix: &str) -> GeneratedModule {
        let (w, d, a) = (self.width, self.depth, self.addr_bits());
        let mut ports = vec![
            Port::input("clk", 1, "clock of both ports"),
            Port::input("wr_en", 1, "write wr_data at wr_addr at this edge"),
            Port::input("wr_addr", a, "write address"),
            Port::input("wr_data", w, "word to write"),
        ];
        if self.sync_read {
            ports.push(Port::input("rd_en", 1, "load the read register at this edge (it holds otherwise)"));
        }
        ports.push(Port::input("rd_addr", a, "read address"));
        ports.push(if self.sync_read {
            Port::output("rd_data", w, "the word at rd_addr of the previous edge at which rd_en was high (read-first: a same-edge write is not seen)")
        } else {
            Port::output("rd_data", w, "the word at rd_addr, combinationally (a write shows after its edge)")
        });
        let store = if self.lut {
            Item::LutMemory { name: "mem".into(), width: w, depth: d, doc: "words by address (LUT RAM)".into() }
        } else {
            Item::Memory { name: "mem".into(), width: w, depth: d, doc: "words by address".into() }
        };
        let mem_at = |sig: &str| Expr::Index("mem".into(), Box::new(Expr::id(sig)));
        let mut items = vec![store];
        let write = Stmt::when(Expr::id("wr_en"), vec![Stmt::set(mem_at("wr_addr"), Expr::id("wr_data"))]);
        if self.sync_read {
            items.push(Item::reg("rd_q", w, "read register"));
            items.push(Item::comment(if self.lut { "LUT RAM inference pattern: write enable, registered read, no reset." } else { "Block RAM inference pattern: write enable, registered read-first read, no reset." }));
            items.push(Item::AlwaysFf { reset: None, body: vec![write, Stmt::when(Expr::id("rd_en"), vec![Stmt::set(Expr::id("rd_q"), mem_at("rd_addr"))])] });
            items.push(Item::assign(Expr::id("rd_data"), Expr::id("rd_q")));
        } else {
            items.push(Item::comment("LUT RAM inference pattern: write enable, asynchronous read, no reset."));
            items.push(Item::AlwaysFf { reset: None, body: vec![write] });
            items.push(Item::assign(Expr::id("rd_data"), mem_at("rd_addr")));
        }
        let style = if self.lut { "LUT RAM (ram_style = \"distributed\")" } else if self.sync_read { "block RAM" } else { "RAM with an asynchronous read (LUT RAM on an FPGA)" };
        GeneratedModule {
            module: Module { name: self.module_name(prefix), ports, items, reset: None },
            role: Role::Ram,
            latency: self.latency(),
            summary: format!(
                "Generic RAM of {d} words of {w} bits, one write port and one {} read port, inferred as {style}: the one place an ASIC flow swaps in an SRAM macro of this shape.",
                if self.sync_read { "registered" } else { "asynchronous" }
            ),
            notes: vec![
                if self.sync_read {
                    "Read latency 1: rd_data is the word at rd_addr of the last edge with rd_en high; a write and a read of one address at one edge return the old word (read-first).".into()
                } else {
                    "Read latency 0: rd_data follows rd_addr combinationally; a word written at an edge is read after it.".into()
                },
                "No reset: neither the words nor the read register have a reset value; the instantiating module uses no word it has not written.".into(),
            ],
            origin: Some(Origin { kind: KIND, params: self.params() }),
        }
    }
}

/// One write or registered read found in a clocked block: where it is and its enable.
struct Site {
    /// Index of the `AlwaysFf` item.
    item: usize,
    /// Path of statement indices from the block body to the assignment.
    path: Vec<usize>,
    enable: Option<Expr>,
    addr: Expr,
    /// Write data, or the read register's name.
    value: Expr,
}

/// Rewrites every memory of `m` that has one write and one read port into an instance of its
/// shape's wrapper; returns the wrapper modules (one per shape used, in order of the arrays).
pub fn wrap(m: &mut Module, prefix: &str) -> Vec<GeneratedModule> {
    let memories: Vec<(String, u32, u32, bool)> = m
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Memory { name, width, depth, .. } => Some((name.clone(), *width, *depth, false)),
            Item::LutMemory { name, width, depth, .. } => Some((name.clone(), *width, *depth, true)),
            _ => None,
        })
        .collect();
    let mut out: Vec<GeneratedModule> = Vec::new();
    for (name, width, depth, lut) in memories {
        if let Some(shape) = wrap_one(m, &name, width, depth, lut, prefix) {
            if !out.iter().any(|g| g.module.name == shape.module_name(prefix)) {
                out.push(shape.module(prefix));
            }
        }
    }
    out
}

fn and_all(conds: &[Expr]) -> Option<Expr> {
    conds.iter().cloned().reduce(Expr::and)
}

/// Every `mem[a] <= v` (or `q <= mem[a]` when `reads`) in the reset-free clocked blocks, with
/// the conjunction of the conditions around it.
fn sites(m: &Module, mem: &str, reads: bool) -> Vec<Site> {
    fn walk(stmts: &[Stmt], mem: &str, reads: bool, conds: &mut Vec<Expr>, path: &mut Vec<usize>, item: usize, out: &mut Vec<Site>) {
        for (k, s) in stmts.iter().enumerate() {
            path.push(k);
            match s {
                Stmt::Assign(Expr::Index(n, a), v) if !reads && n == mem => out.push(Site { item, path: path.clone(), enable: and_all(conds), addr: (**a).clone(), value: v.clone() }),
                Stmt::Assign(q @ Expr::Ident(_), Expr::Index(n, a)) if reads && n == mem => out.push(Site { item, path: path.clone(), enable: and_all(conds), addr: (**a).clone(), value: q.clone() }),
                Stmt::If(c, then, els) => {
                    conds.push(c.clone());
                    path.push(0);
                    walk(then, mem, reads, conds, path, item, out);
                    path.pop();
                    conds.pop();
                    conds.push(c.clone().lnot());
                    path.push(1);
                    walk(els, mem, reads, conds, path, item, out);
                    path.pop();
                    conds.pop();
                }
                _ => {}
            }
            path.pop();
        }
    }
    let mut out = Vec::new();
    for (i, item) in m.items.iter().enumerate() {
        if let Item::AlwaysFf { reset: None, body } = item {
            walk(body, mem, reads, &mut Vec::new(), &mut Vec::new(), i, &mut out);
        }
    }
    out
}

/// How often `name` is read as `name[..]` (memories) or assigned (registers) anywhere in the
/// module, counting `Index` nodes and left-hand sides.
fn count_index(m: &Module, mem: &str) -> usize {
    let mut n = 0;
    for item in &m.items {
        for e in super::tidy::exprs_of(item) {
            count_in(e, mem, &mut n);
        }
    }
    n
}

fn count_in(e: &Expr, mem: &str, n: &mut usize) {
    match e {
        Expr::Index(x, idx) => {
            if x == mem {
                *n += 1;
            }
            count_in(idx, mem, n);
        }
        Expr::Ident(_) | Expr::Bit(..) | Expr::Slice(..) | Expr::Const(_) | Expr::Dec(..) => {}
        Expr::Un(_, x) | Expr::Repeat(_, x) => count_in(x, mem, n),
        Expr::Bin(_, a, b) => {
            count_in(a, mem, n);
            count_in(b, mem, n);
        }
        Expr::Ternary(c, a, b) => {
            count_in(c, mem, n);
            count_in(a, mem, n);
            count_in(b, mem, n);
        }
        Expr::Concat(xs) | Expr::XorAll(xs) => xs.iter().for_each(|x| count_in(x, mem, n)),
        Expr::Call(_, args) => args.iter().for_each(|x| count_in(x, mem, n)),
        Expr::Parity { of, .. } => count_in(of, mem, n),
    }
}

/// Whether register `q` is assigned anywhere (reset lists included) other than once.
fn assigned_once(m: &Module, q: &str) -> bool {
    fn count(stmts: &[Stmt], q: &str) -> usize {
        stmts
            .iter()
            .map(|s| match s {
                Stmt::Assign(l, _) => usize::from(matches!(l, Expr::Ident(n) | Expr::Bit(n, _) | Expr::Slice(n, ..) | Expr::Index(n, _) if n == q)),
                Stmt::If(_, a, b) => count(a, q) + count(b, q),
                Stmt::Case(_, arms, d) => arms.iter().map(|(_, b)| count(b, q)).sum::<usize>() + count(d, q),
                Stmt::Comment(_) => 0,
            })
            .sum()
    }
    let mut n = 0;
    for item in &m.items {
        match item {
            Item::AlwaysFf { reset, body } | Item::AlwaysFfOn { reset, body, .. } => {
                n += count(body, q) + reset.as_deref().map_or(0, |r| count(r, q));
            }
            Item::AlwaysComb(body) => n += count(body, q),
            Item::Assign(Expr::Ident(l), _) if l == q => n += 1,
            _ => {}
        }
    }
    n == 1
}

fn remove_at(m: &mut Module, site: &Site) {
    let Item::AlwaysFf { body, .. } = &mut m.items[site.item] else { unreachable!("sites are found in AlwaysFf items") };
    let mut stmts = body;
    let (last, dirs) = site.path.split_last().expect("a site has a path");
    let mut it = dirs.iter();
    while let Some(&k) = it.next() {
        let branch = *it.next().expect("an if step is followed by its branch");
        let Stmt::If(_, then, els) = &mut stmts[k] else { unreachable!("path steps through ifs") };
        stmts = if branch == 0 { then } else { els };
    }
    stmts.remove(*last);
}

/// Drops `if`s left empty by the removals (and always blocks with nothing left).
fn prune(m: &mut Module) {
    fn prune_stmts(stmts: &mut Vec<Stmt>) {
        for s in stmts.iter_mut() {
            if let Stmt::If(_, a, b) = s {
                prune_stmts(a);
                prune_stmts(b);
            }
        }
        stmts.retain(|s| !matches!(s, Stmt::If(_, a, b) if a.iter().chain(b.iter()).all(|x| matches!(x, Stmt::Comment(_)))));
        if stmts.iter().all(|s| matches!(s, Stmt::Comment(_))) {
            stmts.clear();
        }
    }
    for item in &mut m.items {
        if let Item::AlwaysFf { reset: None, body } = item {
            prune_stmts(body);
        }
    }
    // An emptied block goes, and with it the comment paragraph that introduced it (the
    // inference pattern now lives in the wrapper).
    let mut k = 0;
    while k < m.items.len() {
        if matches!(&m.items[k], Item::AlwaysFf { reset: None, body } if body.is_empty()) {
            m.items.remove(k);
            if k > 0 && matches!(m.items[k - 1], Item::Comment(_)) {
                m.items.remove(k - 1);
                k -= 1;
            }
        } else {
            k += 1;
        }
    }
}

fn wrap_one(m: &mut Module, mem: &str, width: u32, depth: u32, lut: bool, prefix: &str) -> Option<Shape> {
    let writes = sites(m, mem, false);
    let [write] = &writes[..] else { return None };
    let reads = sites(m, mem, true);
    let total_reads = count_index(m, mem) - 1; // the write's left-hand side is an Index too
    let (read, sync) = match &reads[..] {
        [r] if total_reads == 1 => {
            let Expr::Ident(q) = &r.value else { return None };
            let declared_width = m.items.iter().find_map(|i| match i {
                Item::Reg { name, width, .. } if name == q => Some(*width),
                _ => None,
            });
            if declared_width != Some(width) || !assigned_once(m, q) {
                return None;
            }
            (Some(r), true)
        }
        [] if total_reads == 1 => (None, false),
        _ => return None,
    };
    let shape = Shape { width, depth, sync_read: sync, lut };
    let inst = format!("u_{mem}");
    let one = Expr::one();
    let mut conns = vec![
        ("clk".to_string(), Expr::id("clk")),
        ("wr_en".to_string(), write.enable.clone().unwrap_or_else(|| one.clone())),
        ("wr_addr".to_string(), write.addr.clone()),
        ("wr_data".to_string(), write.value.clone()),
    ];
    let (write, read) = (Site { enable: None, ..clone_site(write) }, read.map(clone_site));
    let decl_at = m.items.iter().position(|i| matches!(i, Item::Memory { name, .. } | Item::LutMemory { name, .. } if name == mem)).expect("the array is declared");
    let doc = match &m.items[decl_at] {
        Item::Memory { doc, .. } | Item::LutMemory { doc, .. } => doc.clone(),
        _ => unreachable!(),
    };
    let mut new_items = Vec::new();
    if let Some(r) = &read {
        let Expr::Ident(q) = &r.value else { unreachable!() };
        conns.push(("rd_en".into(), r.enable.clone().unwrap_or_else(|| one.clone())));
        conns.push(("rd_addr".into(), r.addr.clone()));
        conns.push(("rd_data".into(), Expr::id(q)));
        // The read register lives in the wrapper: `q` becomes the wire it drives.
        for item in &mut m.items {
            if let Item::Reg { name, width, doc } = item {
                if name == q {
                    *item = Item::Wire { name: name.clone(), width: *width, doc: doc.clone() };
                }
            }
        }
        // Remove the later site first so the earlier path stays valid.
        let (first, second) = if (r.item, &r.path) > (write.item, &write.path) { (r, &write) } else { (&write, r) };
        remove_at(m, first);
        remove_at(m, second);
    } else {
        remove_at(m, &write);
        let rd = format!("{mem}_rd");
        let mut addr = None;
        for item in &mut m.items {
            if matches!(item, Item::Formal(_)) {
                continue;
            }
            super::tidy::for_each_expr_in_item(item, &mut |e| replace_read(e, mem, &rd, &mut addr));
        }
        conns.push(("rd_addr".into(), addr.expect("one asynchronous read")));
        conns.push(("rd_data".into(), Expr::id(&rd)));
        new_items.push(Item::wire(&rd, width, &format!("{doc}: the word at the read address")));
    }
    prune(m);
    new_items.insert(0, Item::comment(&format!("{doc}: {} ({}).", shape.module_name(prefix), if sync { "registered read" } else { "asynchronous read" })));
    new_items.push(Item::Instance { module: shape.module_name(prefix), name: inst, conns });
    let decl_at = m.items.iter().position(|i| matches!(i, Item::Memory { name, .. } | Item::LutMemory { name, .. } if name == mem)).expect("the array is declared");
    m.items.splice(decl_at..=decl_at, new_items);
    Some(shape)
}

fn clone_site(s: &Site) -> Site {
    Site { item: s.item, path: s.path.clone(), enable: s.enable.clone(), addr: s.addr.clone(), value: s.value.clone() }
}

fn replace_read(e: &mut Expr, mem: &str, rd: &str, addr: &mut Option<Expr>) {
    if let Expr::Index(n, a) = e {
        if n == mem {
            *addr = Some((**a).clone());
            *e = Expr::id(rd);
            return;
        }
    }
    match e {
        Expr::Index(_, x) | Expr::Un(_, x) | Expr::Repeat(_, x) => replace_read(x, mem, rd, addr),
        Expr::Bin(_, a, b) => {
            replace_read(a, mem, rd, addr);
            replace_read(b, mem, rd, addr);
        }
        Expr::Ternary(c, a, b) => {
            replace_read(c, mem, rd, addr);
            replace_read(a, mem, rd, addr);
            replace_read(b, mem, rd, addr);
        }
        Expr::Concat(xs) | Expr::XorAll(xs) | Expr::Call(_, xs) => xs.iter_mut().for_each(|x| replace_read(x, mem, rd, addr)),
        Expr::Parity { of, .. } => replace_read(of, mem, rd, addr),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::info::ResetStyle;

    fn module(items: Vec<Item>) -> Module {
        let ports = vec![Port::input("clk", 1, ""), Port::input("a", 4, ""), Port::input("d", 8, ""), Port::input("we", 1, ""), Port::output("q", 8, "")];
        Module { name: "t".into(), ports, items, reset: Some(ResetStyle::SyncHigh) }
    }
    /// Every wrapper name has the form the design check reserves (`keywords::ram_wrapper_form`),
    /// so no block's module can take it.
    #[test]
    fn wrapper_names_have_the_reserved_form() {
        for (width, depth) in [(1, 2), (64, 16), (1920, 256), (33, 20)] {
            for (sync_read, lut) in [(true, false), (false, false), (true, true), (false, true)] {
                let name = Shape { width, depth, sync_read, lut }.module_name("p_");
                assert!(crate::keywords::ram_wrapper_form(&name, "p_"), "{name}");
                assert!(!crate::keywords::ram_wrapper_form(&name, "q_"), "{name} under another prefix");
            }
        }
    }

    fn write() -> Stmt {
        Stmt::when(Expr::id("we"), vec![Stmt::set(Expr::Index("m".into(), Box::new(Expr::id("a"))), Expr::id("d"))])
    }
    fn read(at: &str) -> Expr {
        Expr::Index("m".into(), Box::new(Expr::id(at)))
    }

    #[test]
    fn a_registered_read_becomes_the_wrappers_read_register() {
        let mut m = module(vec![
            Item::Memory { name: "m".into(), width: 8, depth: 16, doc: "words".into() },
            Item::reg("r", 8, ""),
            Item::AlwaysFf { reset: None, body: vec![write(), Stmt::when(Expr::id("we").lnot(), vec![Stmt::set(Expr::id("r"), read("a"))])] },
            Item::assign(Expr::id("q"), Expr::id("r")),
        ]);
        let w = wrap(&mut m, "p_");
        crate::hw::tidy::tidy(&mut m); // as elaboration does: declarations move before their use
        assert_eq!(w.iter().map(|g| g.module.name.as_str()).collect::<Vec<_>>(), ["p_ram_1r1w_8x16"]);
        assert_eq!(w[0].latency, 1);
        let text = m.render();
        assert!(!text.contains("reg [7:0] m ["), "{text}");
        assert!(text.contains("wire [7:0] r;") && text.contains("p_ram_1r1w_8x16 u_m ("), "{text}");
        assert!(text.find("wire [7:0] r;") < text.find("u_m ("), "{text}");
        assert!(text.contains(".rd_en   (!we)") && text.contains(".wr_en   (we)"), "{text}");
        assert!(!text.contains("always"), "the emptied block goes: {text}");
        assert!(w[0].module.render().contains("rd_q <= mem[rd_addr];"));
    }

    #[test]
    fn an_asynchronous_read_and_lut_style_are_kept_in_the_shape() {
        let mut m = module(vec![
            Item::LutMemory { name: "m".into(), width: 8, depth: 16, doc: "words".into() },
            Item::AlwaysFf { reset: None, body: vec![write()] },
            Item::assign(Expr::id("q"), Expr::bin(crate::hw::verilog::BinOp::Xor, read("a"), Expr::id("d"))),
        ]);
        let w = wrap(&mut m, "p_");
        assert_eq!(w[0].module.name, "p_lutram_1r1w_async_8x16");
        assert_eq!(w[0].latency, 0);
        assert!(w[0].module.render().contains("(* ram_style = \"distributed\" *) reg [7:0] mem [0:15];"));
        assert!(m.render().contains("assign q = m_rd ^ d;"), "{}", m.render());
    }

    #[test]
    fn arrays_outside_the_pattern_stay_registers() {
        // Two read ports.
        let two_reads = vec![
            Item::Memory { name: "m".into(), width: 8, depth: 16, doc: "words".into() },
            Item::AlwaysFf { reset: None, body: vec![write()] },
            Item::assign(Expr::id("q"), Expr::bin(crate::hw::verilog::BinOp::Xor, read("a"), read("d"))),
        ];
        // A read register assigned elsewhere too.
        let shared_reg = vec![
            Item::Memory { name: "m".into(), width: 8, depth: 16, doc: "words".into() },
            Item::reg("r", 8, ""),
            Item::AlwaysFf { reset: None, body: vec![write(), Stmt::set(Expr::id("r"), read("a"))] },
            Item::AlwaysFf { reset: Some(vec![Stmt::set(Expr::id("r"), Expr::dec(8, 0))]), body: vec![] },
            Item::assign(Expr::id("q"), Expr::id("r")),
        ];
        for items in [two_reads, shared_reg] {
            let mut m = module(items);
            let before = m.clone();
            assert!(wrap(&mut m, "p_").is_empty());
            assert_eq!(m, before);
        }
    }
}
