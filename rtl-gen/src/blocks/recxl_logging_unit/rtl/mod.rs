//! The logging unit as RTL: per-row header registers and a row-data RAM (the SRAM Log Buffer),
//! per-source timestamp registers, a 4-deep REPL_ACK FIFO, the release engine, the dump and fetch
//! engines over one log read port, and the counters. Register for register the structure of
//! [`super::model::LoggingUnitModel`]; every choice it documents is made the same way here.
//!
//! One section per job, called in the order the module prints: [`ports`], the register file
//! ([`regs`]), the row table ([`rows`]: per-row decode, row updates and counts), admission
//! ([`admission`]: REPL, the ACK FIFO, VAL), the release engine with its picks and log records
//! ([`release`]), the shared log read port with the dump and fetch engines ([`dump`], [`fetch`]),
//! the counters ([`counters`]) and the output assignments with the module's documentation
//! ([`outputs`]). [`Lu`] carries the widths, the named constants and the items under
//! construction from one section to the next.

mod admission;
mod counters;
mod dump;
mod fetch;
mod kit;
mod outputs;
mod ports;
mod regs;
mod release;
mod rows;

use super::model::{D_DONE, D_FLUSH, D_IDLE, D_TRAV, FREE, F_IDLE, F_LAST, F_TRAV, PENDING, VALID};
use super::RecxlLoggingUnitBlock;
use crate::hw::build::{add, bits_for, dec, eq, ge, id, localparam, mux, sub, zext};
use crate::hw::module::{GeneratedModule, Role};
use crate::hw::verilog::{Expr, Item, Module, Stmt};
use crate::info::{DesignInfo, ResetStyle};
use kit::{by_index, sl, w};

/// Deliberate defects for the mutation checks of contract §5.2: each must make the lockstep
/// co-simulation against the (correct) model fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    None,
    /// Release rows in VAL arrival order (the timestamp check is dropped).
    ArrivalOrder,
    /// Free a row when its REPL_ACK leaves instead of after its records are logged.
    FreeOnAck,
    /// Free the whole snapshot at commit whatever `free_lag` says.
    IgnoreFreeLag,
}

/// The module under construction: the block's derived widths (contract §4.2), its named
/// constants, and the declarations (`it`), reset assignments (`rst`) and clocked statements
/// (`body`) the sections append to.
struct Lu<'a> {
    b: &'a RecxlLoggingUnitBlock,
    mutation: Mutation,
    /// The design's reset style (the carry-free counters' properties follow it).
    reset: ResetStyle,
    /// SRAM rows, sources (CNs).
    rows: u32,
    n: u32,
    nb: u32,
    cb: u32,
    /// Tag, CSN and timestamp widths, line address bits.
    tg: u32,
    cs: u32,
    ts: u32,
    la: u32,
    /// Words per line, word index bits, word width, line width.
    wd: u32,
    wib: u32,
    dw: u32,
    lw: u32,
    /// Record width and records per dump beat.
    rec: u32,
    rpb: u32,
    /// Log capacity in records, its index and count widths.
    lr: u64,
    lib: u32,
    lcb: u32,
    /// Fetch queries, their index width and count width.
    q: u32,
    qb: u32,
    qnb: u32,
    /// Counter width, byte address width.
    cnt: u32,
    a: u32,
    /// Row index and row count widths, beat record count width.
    rb: u32,
    rcb: u32,
    bnb: u32,
    st_free: Expr,
    st_pend: Expr,
    st_valid: Expr,
    d_idle: Expr,
    d_trav: Expr,
    d_flush: Expr,
    d_done: Expr,
    f_idle: Expr,
    f_trav: Expr,
    f_last: Expr,
    n_rows: Expr,
    lr_c: Expr,
    it: Vec<Item>,
    rst: Vec<Stmt>,
    body: Vec<Stmt>,
}

impl<'a> Lu<'a> {
    fn new(b: &'a RecxlLoggingUnitBlock, mutation: Mutation, reset: ResetStyle) -> Lu<'a> {
        let mut it = Vec::new();
        let rb = b.rb();
        let rcb = rb + 1;
        let lcb = b.lcb();
        let st_free = localparam(&mut it, "ROW_FREE", 2, FREE as u64, "row states");
        let st_pend = localparam(&mut it, "ROW_PENDING", 2, PENDING as u64, "REPL logged, waiting for VAL");
        let st_valid = localparam(&mut it, "ROW_VALID", 2, VALID as u64, "validated, waiting for release in TS order");
        let d_idle = localparam(&mut it, "D_IDLE", 2, D_IDLE as u64, "dump engine states");
        let d_trav = localparam(&mut it, "D_TRAV", 2, D_TRAV as u64, "traversing [dumped, T)");
        let d_flush = localparam(&mut it, "D_FLUSH", 2, D_FLUSH as u64, "last data beat and trailer");
        let d_done = localparam(&mut it, "D_DONE", 2, D_DONE as u64, "waiting for ctl_dump_commit");
        let f_idle = localparam(&mut it, "F_IDLE", 2, F_IDLE as u64, "fetch engine states");
        let f_trav = localparam(&mut it, "F_TRAV", 2, F_TRAV as u64, "newest-to-oldest traversal");
        let f_last = localparam(&mut it, "F_LAST", 2, F_LAST as u64, "terminating beat");
        let n_rows = localparam(&mut it, "ROWS", rcb, b.sram_rows as u64, "SRAM Log Buffer rows");
        let lr_c = localparam(&mut it, "LOG_RECORDS", lcb, b.lr(), "DRAM log capacity in records");
        Lu {
            b,
            mutation,
            reset,
            rows: b.sram_rows,
            n: b.n(),
            nb: b.nb(),
            cb: b.cb(),
            tg: b.tag_bits,
            cs: b.csn_bits,
            ts: b.ts_bits,
            la: b.la(),
            wd: b.words(),
            wib: b.wib(),
            dw: b.dw(),
            lw: b.lw(),
            rec: b.rec(),
            rpb: b.rpb(),
            lr: b.lr(),
            lib: b.lib(),
            lcb,
            q: b.fetch_queries,
            qb: b.qb(),
            qnb: bits_for(b.fetch_queries as u64),
            cnt: b.counter_bits,
            a: b.shape.addr_bits,
            rb,
            rcb,
            bnb: bits_for(b.rpb() as u64),
            st_free,
            st_pend,
            st_valid,
            d_idle,
            d_trav,
            d_flush,
            d_done,
            f_idle,
            f_trav,
            f_last,
            n_rows,
            lr_c,
            it,
            rst: Vec::new(),
            body: Vec::new(),
        }
    }

    /// The wire `name` of `width` bits driven by `value`.
    fn w(&mut self, name: &str, width: u32, value: Expr) -> Expr {
        w(&mut self.it, name, width, value)
    }

    /// Field `f` of row `i`'s header register.
    fn r(&self, i: u32, f: &str) -> Expr {
        id(&format!("r{i}_{f}"))
    }

    /// Row number `i` as a row index.
    fn rowc(&self, i: u32) -> Expr {
        dec(self.rb, i as u64)
    }

    /// `val(s)` of the source whose number is in the wire or register `sel`.
    fn src_mux(&self, sel: &str, f: &dyn Fn(u32) -> Expr) -> Expr {
        by_index(sel, self.nb, self.n, f)
    }

    /// Whether the source `sel` is marked failed in `cfg_failed_mask`.
    fn failed(&self, sel: Expr) -> Expr {
        Expr::Index("cfg_failed_mask".into(), Box::new(sel))
    }

    /// A log index plus one, modulo LR.
    fn inc_mod(&self, x: Expr) -> Expr {
        mux(eq(x.clone(), dec(self.lib, self.lr - 1)), dec(self.lib, 0), add(x, dec(self.lib, 1)))
    }

    /// A log index minus one, modulo LR.
    fn dec_mod(&self, x: Expr) -> Expr {
        mux(eq(x.clone(), dec(self.lib, 0)), dec(self.lib, self.lr - 1), sub(x, dec(self.lib, 1)))
    }

    /// Index `a_` plus count `n_` modulo LR, as the wires `{name}_s` (the sum in lcb + 1 bits)
    /// and `{name}_m` (reduced); the low lib bits are the index.
    fn add_mod(&mut self, name: &str, a_: Expr, n_: Expr) -> Expr {
        let (lib, lcb) = (self.lib, self.lcb);
        let s_ = format!("{name}_s");
        let m_ = format!("{name}_m");
        let lr_wide = zext(self.lr_c.clone(), lcb, lcb + 1);
        self.it.push(Item::pragma("verilator lint_off UNUSED"));
        self.w(&s_, lcb + 1, add(zext(a_, lib, lcb + 1), zext(n_, lcb, lcb + 1)));
        self.w(&m_, lcb + 1, mux(ge(id(&s_), lr_wide.clone()), sub(id(&s_), lr_wide), id(&s_)));
        self.it.push(Item::pragma("verilator lint_on UNUSED"));
        sl(&m_, lib - 1, 0)
    }
}

pub fn module(b: &RecxlLoggingUnitBlock, design: &DesignInfo, name: &str, mutation: Mutation) -> GeneratedModule {
    let ports = ports::ports(b, design);
    let mut lu = Lu::new(b, mutation, design.reset);
    regs::declare(&mut lu);
    release::declare_candidates(&mut lu);
    rows::decode(&mut lu);
    let picks = release::picks(&mut lu);
    let adm = admission::comb(&mut lu);
    let rel = release::comb(&mut lu, &picks);
    let disc = rows::discard(&mut lu);
    let eng = dump::comb(&mut lu, &rel);
    let fe = fetch::comb(&mut lu, &picks, &rel, &disc, &eng);
    rows::update(&mut lu, &adm, &rel, &disc);
    release::source_update(&mut lu, &picks, &rel);
    release::candidate_update(&mut lu, &picks, &rel);
    admission::ack_update(&mut lu, &adm);
    release::update(&mut lu, &picks, &rel);
    dump::update(&mut lu, &rel, &eng);
    fetch::update(&mut lu, &eng, &fe);
    counters::update(&mut lu, &adm, &rel, &disc, &eng, &fe);
    let (rst, body) = (std::mem::take(&mut lu.rst), std::mem::take(&mut lu.body));
    lu.it.push(Item::comment("All registers with a reset."));
    lu.it.push(Item::AlwaysFf { reset: Some(rst), body });
    release::row_ram(&mut lu, &adm, &picks, &rel);
    outputs::assign(&mut lu, &adm, &rel, &eng, &fe);
    lu.it.push(super::props::properties(design, lu.rows, lu.rcb));
    let doc = outputs::docs(b);
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: lu.it, reset: Some(design.reset) },
        role: Role::LoggingUnit,
        latency: 1,
        summary: doc.summary,
        notes: doc.notes,
        origin: None,
    }
}
