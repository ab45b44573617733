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
    /// With `sync_read`: an output register behind the read register (`rd_data` two cycles
    /// after `rd_en`/`rd_addr`, the second edge enabled by `rd_out_en`), the block RAM's own
    /// (ECP5 DP16KD `REGMODE = "OUTREG"`, a 7-series BRAM's `DOA_REG`), so the RAM's
    /// clock-to-out ends at a register rather than starting a path into logic.
    pub out_reg: bool,
    /// `(* ram_style = "distributed" *)`: LUT RAM on an FPGA.
    pub lut: bool,
}

impl Shape {
    pub fn addr_bits(&self) -> u32 {
        (32 - (self.depth.max(2) - 1).leading_zeros()).max(1)
    }

    /// `<prefix>ram_1r1w_<W>x<D>`, `<prefix>ram_1r1w_async_<W>x<D>`,
    /// `<prefix>ram_1r1w_outreg_<W>x<D>` (with the output register), `lutram` for LUT RAM.
    pub fn module_name(&self, prefix: &str) -> String {
        let style = if self.lut { "lutram" } else { "ram" };
        let read = match (self.sync_read, self.out_reg) {
            (false, _) => "async_",
            (true, false) => "",
            (true, true) => "outreg_",
        };
        format!("{prefix}{style}_1r1w_{read}{}x{}", self.width, self.depth)
    }

    /// The wrapper's own parameters, as the manifest and banner list them.
    pub fn params(&self) -> Vec<(&'static str, serde_json::Value)> {
        vec![
            ("width", self.width.into()),
            ("depth", self.depth.into()),
            ("read", if self.sync_read { "sync" } else { "async" }.into()),
            ("output_register", self.out_reg.into()),
            ("style", if self.lut { "distributed" } else { "block" }.into()),
        ]
    }

    /// Read latency in cycles: 2 with the output register, 1 for a registered read, 0 for an
    /// asynchronous one.
    pub fn latency(&self) -> u32 {
        u32::from(self.sync_read) + u32::from(self.sync_read && self.out_reg)
    }

    /// The wrapper module: write port and read port on `clk`, no reset (RAM contents and the
    /// read registers are not reset, as an SRAM macro's are not).
    pub fn module(&self, prefix: &str) -> GeneratedModule {
        let (w, d, a) = (self.width, self.depth, self.addr_bits());
        let out_reg = self.sync_read && self.out_reg;
        let mut ports = vec![
            Port::input("clk", 1, "clock of both ports"),
            Port::input("wr_en", 1, "write wr_data at wr_addr at this edge"),
            Port::input("wr_addr", a, "write address"),
            Port::input("wr_data", w, "word to write"),
        ];
        if self.sync_read {
            ports.push(Port::input("rd_en", 1, "load the read register from rd_addr at this edge (it holds otherwise)"));
        }
        if out_reg {
            ports.push(Port::input("rd_out_en", 1, "load the output register from the read register at this edge (it holds otherwise)"));
        }
        ports.push(Port::input("rd_addr", a, "read address"));
        ports.push(if out_reg {
            Port::output("rd_data", w, "the output register: the read register's word at the last edge with rd_out_en high (undefined if it read the address written at its edge)")
        } else if self.sync_read {
            Port::output("rd_data", w, "the word at rd_addr of the previous edge at which rd_en was high (read-first: a same-edge write is not seen)")
        } else {
            Port::output("rd_data", w, "the word at rd_addr, combinationally (a write shows after its edge)")
        });
        let store = if out_reg {
            Item::UncheckedMemory { name: "mem".into(), width: w, depth: d, distributed: self.lut, doc: if self.lut { "words by address (LUT RAM)" } else { "words by address" }.into() }
        } else if self.lut {
            Item::LutMemory { name: "mem".into(), width: w, depth: d, doc: "words by address (LUT RAM)".into() }
        } else {
            Item::Memory { name: "mem".into(), width: w, depth: d, doc: "words by address".into() }
        };
        let mem_at = |sig: &str| Expr::Index("mem".into(), Box::new(Expr::id(sig)));
        let mut items = vec![store];
        let write = Stmt::when(Expr::id("wr_en"), vec![Stmt::set(mem_at("wr_addr"), Expr::id("wr_data"))]);
        let ram = if self.lut { "LUT RAM" } else { "Block RAM" };
        if self.sync_read {
            items.push(Item::reg("rd_q", w, "read register"));
            if out_reg {
                items.push(Item::reg("rd_out_q", w, "output register"));
            }
            items.push(Item::comment(&if out_reg {
                format!("{ram} inference pattern: write enable, registered read with enable, no reset; no_rw_check: a read of\nthe address written at the same edge is never used, so the RAM's ports need no bypass logic.")
            } else if self.lut {
                "LUT RAM inference pattern: write enable, registered read, no reset.".into()
            } else {
                "Block RAM inference pattern: write enable, registered read-first read, no reset.".into()
            }));
            items.push(Item::AlwaysFf { reset: None, body: vec![write, Stmt::when(Expr::id("rd_en"), vec![Stmt::set(Expr::id("rd_q"), mem_at("rd_addr"))])] });
            if out_reg {
                items.push(Item::comment("The RAM's output register (DP16KD REGMODE = \"OUTREG\", a BRAM's DOA_REG): the RAM's clock-to-out ends here."));
                items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::when(Expr::id("rd_out_en"), vec![Stmt::set(Expr::id("rd_out_q"), Expr::id("rd_q"))])] });
            }
            items.push(Item::assign(Expr::id("rd_data"), Expr::id(if out_reg { "rd_out_q" } else { "rd_q" })));
        } else {
            items.push(Item::comment("LUT RAM inference pattern: write enable, asynchronous read, no reset."));
            items.push(Item::AlwaysFf { reset: None, body: vec![write] });
            items.push(Item::assign(Expr::id("rd_data"), mem_at("rd_addr")));
        }
        let style = if self.lut { "LUT RAM (ram_style = \"distributed\")" } else if self.sync_read { "block RAM" } else { "RAM with an asynchronous read (LUT RAM on an FPGA)" };
        let read = match (self.sync_read, out_reg) {
            (true, true) => "registered read port with an output register",
            (true, false) => "registered read port",
            (false, _) => "asynchronous read port",
        };
        GeneratedModule {
            module: Module { name: self.module_name(prefix), ports, items, reset: None },
            role: Role::Ram,
            latency: self.latency(),
            summary: format!("Generic RAM of {d} words of {w} bits, one write port and one {read}, inferred as {style}: the one place an ASIC flow swaps in an SRAM macro of this shape."),
            notes: vec![
                if out_reg {
                    "Read latency 2: the read register loads the word at rd_addr at an edge with rd_en high, the output register loads the read register at an edge with rd_out_en high, rd_data is the output register. A read of the address written at the same edge is undefined (block RAM ports collide; simulation returns the old word): the instantiating module never uses it.".into()
                } else if self.sync_read {
                    "Read latency 1: rd_data is the word at rd_addr of the last edge with rd_en high; a write and a read of one address at one edge return the old word (read-first).".into()
                } else {
                    "Read latency 0: rd_data follows rd_addr combinationally; a word written at an edge is read after it.".into()
                },
                "No reset: neither the words nor the read registers have a reset value; the instantiating module uses no word it has not written.".into(),
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

/// The register `q` of a registered read feeds, when it feeds exactly one thing: another register
/// of its width, alone (`q2 <= q;` in a reset-free clocked block, its enable the `if`s around
/// it, `q2` assigned nowhere else), and `q` is read nowhere else (properties included). That
/// register is the RAM's output register.
fn output_register(m: &Module, q: &str, width: u32) -> Option<Site> {
    fn walk(stmts: &[Stmt], q: &str, conds: &mut Vec<Expr>, path: &mut Vec<usize>, item: usize, out: &mut Vec<Site>) {
        for (k, s) in stmts.iter().enumerate() {
            path.push(k);
            match s {
                Stmt::Assign(q2 @ Expr::Ident(_), Expr::Ident(src)) if src == q => out.push(Site { item, path: path.clone(), enable: and_all(conds), addr: Expr::zero(), value: q2.clone() }),
                Stmt::If(c, then, els) => {
                    for (branch, body, cond) in [(0, then, c.clone()), (1, els, c.clone().lnot())] {
                        conds.push(cond);
                        path.push(branch);
                        walk(body, q, conds, path, item, out);
                        path.pop();
                        conds.pop();
                    }
                }
                _ => {}
            }
            path.pop();
        }
    }
    let mut found = Vec::new();
    for (i, item) in m.items.iter().enumerate() {
        if let Item::AlwaysFf { reset: None, body } = item {
            walk(body, q, &mut Vec::new(), &mut Vec::new(), i, &mut found);
        }
    }
    let [site] = <[Site; 1]>::try_from(found).ok()?;
    let Expr::Ident(q2) = &site.value else { return None };
    // `q` twice: its read from the array and this copy.
    let uses: usize = m.items.iter().flat_map(super::tidy::exprs_of).map(|e| count_ident(e, q)).sum();
    (uses == 2 && reg_width(m, q2) == Some(width) && assigned_once(m, q2)).then_some(site)
}

/// How often the name `x` appears in `e` (as an identifier or an indexed or sliced name).
fn count_ident(e: &Expr, x: &str) -> usize {
    match e {
        Expr::Ident(n) | Expr::Bit(n, _) | Expr::Slice(n, ..) => usize::from(n == x),
        Expr::Index(n, idx) => usize::from(n == x) + count_ident(idx, x),
        Expr::Const(_) | Expr::Dec(..) => 0,
        Expr::Un(_, y) | Expr::Repeat(_, y) => count_ident(y, x),
        Expr::Bin(_, a, b) => count_ident(a, x) + count_ident(b, x),
        Expr::Ternary(c, a, b) => count_ident(c, x) + count_ident(a, x) + count_ident(b, x),
        Expr::Concat(xs) | Expr::XorAll(xs) | Expr::Call(_, xs) => xs.iter().map(|y| count_ident(y, x)).sum(),
        Expr::Parity { of, .. } => count_ident(of, x),
    }
}

fn reg_width(m: &Module, q: &str) -> Option<u32> {
    m.items.iter().find_map(|i| match i {
        Item::Reg { name, width, .. } if name == q => Some(*width),
        _ => None,
    })
}

fn wrap_one(m: &mut Module, mem: &str, width: u32, depth: u32, lut: bool, prefix: &str) -> Option<Shape> {
    let writes = sites(m, mem, false);
    let [write] = &writes[..] else { return None };
    let reads = sites(m, mem, true);
    let total_reads = count_index(m, mem) - 1; // the write's left-hand side is an Index too
    let (read, sync) = match &reads[..] {
        [r] if total_reads == 1 => {
            let Expr::Ident(q) = &r.value else { return None };
            if reg_width(m, q) != Some(width) || !assigned_once(m, q) {
                return None;
            }
            (Some(r), true)
        }
        [] if total_reads == 1 => (None, false),
        _ => return None,
    };
    let out = read.and_then(|r| match &r.value {
        Expr::Ident(q) => output_register(m, q, width),
        _ => None,
    });
    let shape = Shape { width, depth, sync_read: sync, out_reg: out.is_some(), lut };
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
        if let Some(o) = &out {
            conns.push(("rd_out_en".into(), o.enable.clone().unwrap_or_else(|| one.clone())));
        }
        conns.push(("rd_addr".into(), r.addr.clone()));
        // The read registers live in the wrapper: the last one's name becomes the wire it
        // drives; a read register behind which the output register sits goes altogether.
        let data = out.as_ref().map_or_else(|| Expr::id(q), |o| o.value.clone());
        let Expr::Ident(data_name) = &data else { unreachable!("registers are identifiers") };
        for item in &mut m.items {
            if let Item::Reg { name, width, doc } = item {
                if name == data_name {
                    *item = Item::Wire { name: name.clone(), width: *width, doc: doc.clone() };
                }
            }
        }
        conns.push(("rd_data".into(), data));
        // Remove the later sites first so the earlier paths stay valid.
        let mut gone: Vec<Site> = [Some(clone_site(r)), Some(write), out].into_iter().flatten().collect();
        gone.sort_by(|x, y| (y.item, &y.path).cmp(&(x.item, &x.path)));
        for site in &gone {
            remove_at(m, site);
        }
        if shape.out_reg {
            m.items.retain(|i| !matches!(i, Item::Reg { name, .. } if name == q));
        }
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
    let read = if shape.out_reg { "registered read, output register" } else if sync { "registered read" } else { "asynchronous read" };
    new_items.insert(0, Item::comment(&format!("{doc}: {} ({read}).", shape.module_name(prefix))));
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
            for (sync_read, out_reg, lut) in [(true, false, false), (false, false, false), (true, false, true), (false, false, true), (true, true, false), (true, true, true)] {
                let name = Shape { width, depth, sync_read, out_reg, lut }.module_name("p_");
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
    fn a_register_behind_the_read_register_becomes_the_output_register() {
        let mut m = module(vec![
            Item::Memory { name: "m".into(), width: 8, depth: 16, doc: "words".into() },
            Item::reg("r", 8, "read"),
            Item::reg("r2", 8, "out"),
            Item::AlwaysFf { reset: None, body: vec![write(), Stmt::when(Expr::id("we").lnot(), vec![Stmt::set(Expr::id("r"), read("a"))])] },
            Item::AlwaysFf { reset: None, body: vec![Stmt::when(Expr::bit("d", 0), vec![Stmt::set(Expr::id("r2"), Expr::id("r"))])] },
            Item::assign(Expr::id("q"), Expr::id("r2")),
        ]);
        let w = wrap(&mut m, "p_");
        crate::hw::tidy::tidy(&mut m);
        assert_eq!(w.iter().map(|g| g.module.name.as_str()).collect::<Vec<_>>(), ["p_ram_1r1w_outreg_8x16"]);
        assert_eq!(w[0].latency, 2);
        let text = m.render();
        assert!(text.contains("wire [7:0] r2;") && !text.contains(" r;") && !text.contains("always"), "{text}");
        assert!(text.contains(".rd_en     (!we)") && text.contains(".rd_out_en (d[0])") && text.contains(".rd_data   (r2)"), "{text}");
        let body = w[0].module.render();
        assert!(body.contains("(* no_rw_check *) reg [7:0] mem [0:15];") && body.contains("rd_out_q <= rd_q;") && body.contains("assign rd_data = rd_out_q;"), "{body}");
        // A read register read elsewhere too keeps the one-register shape.
        let mut m = module(vec![
            Item::Memory { name: "m".into(), width: 8, depth: 16, doc: "words".into() },
            Item::reg("r", 8, ""),
            Item::reg("r2", 8, ""),
            Item::AlwaysFf { reset: None, body: vec![write(), Stmt::set(Expr::id("r"), read("a")), Stmt::set(Expr::id("r2"), Expr::id("r"))] },
            Item::assign(Expr::id("q"), Expr::bin(crate::hw::verilog::BinOp::Xor, Expr::id("r2"), Expr::id("r"))),
        ]);
        assert_eq!(wrap(&mut m, "p_")[0].module.name, "p_ram_1r1w_8x16");
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
