//! Cycle-accurate model of the logging unit: the same registers as the RTL, outputs a function
//! of the registers (and the static configuration inputs) only, next state computed from the
//! registers before the edge. Choices where the contract leaves freedom (written down so model
//! and RTL agree): the lowest free row is allocated; the lowest PENDING row matches a VAL; the
//! release engine takes the releasable row with the smallest (E, source) and writes one record
//! per cycle in ascending word index, then frees the row one cycle after its last record; the
//! pick is made among per-source candidates registered from per-row eligibility registered the
//! cycle before, so a row is picked three cycles after its VAL at the earliest (the pick never
//! waits on those stages while the engine is busy: back-to-back releases keep their spacing);
//! counters count their events one cycle late (registered events); one log
//! read is outstanding at a time (dump and fetch traverse one record per read round trip); the
//! lowest PENDING row of a failed source is discarded each cycle; a gap skip happens only when no
//! row is releasable; the dump engine's beat is written before the next read is issued.
//!
//! Dump region overflow (the contract leaves the exit open): the epoch stops where its next beat
//! would pass `cfg_dump_limit`, its beats are abandoned (no trailer), the write offset returns to
//! the epoch's start and the engine goes idle with `st_dump_overflow` set. The next accepted
//! `ctl_dump_start` clears it and dumps the epoch again with a fresh snapshot, at offset 0 of a
//! new region when `cfg_dump_base` changed, else from the same offset (room from a raised
//! `cfg_dump_limit`). `records dumped` (counter 12) counts records as their beat is written.

use super::{RecxlLoggingUnitBlock, COUNTERS};
use crate::bits::Bits;
use crate::blocks::recxl_replica_map::model::{MapShape, NodeMask};

/// Row states.
pub const FREE: u8 = 0;
pub const PENDING: u8 = 1;
pub const VALID: u8 = 2;

/// Dump engine states.
pub const D_IDLE: u8 = 0;
pub const D_TRAV: u8 = 1;
pub const D_FLUSH: u8 = 2;
pub const D_DONE: u8 = 3;

/// Fetch engine states.
pub const F_IDLE: u8 = 0;
pub const F_TRAV: u8 = 1;
pub const F_LAST: u8 = 2;

/// Counter indices (contract §4.8).
pub mod ctr {
    /// REPLs that allocated a row (NACKed REPLs and REPLs of failed sources take none).
    pub const ROWS_ALLOCATED: usize = 0;
    pub const WORDS: usize = 1;
    pub const NACKED: usize = 2;
    pub const REPL_STALL: usize = 3;
    pub const ACK_STALL: usize = 4;
    pub const VAL_MATCHED: usize = 5;
    pub const VAL_ORPHAN: usize = 6;
    pub const VAL_AMBIGUOUS: usize = 7;
    pub const VAL_WINDOW: usize = 8;
    pub const LOGGED: usize = 9;
    pub const LOG_FULL_STALL: usize = 10;
    pub const EPOCHS: usize = 11;
    /// Records in data beats the dump region took (a record re-dumped after an abandoned or
    /// overflowed epoch counts each time it is written).
    pub const DUMPED: usize = 12;
    pub const BEATS: usize = 13;
    pub const IGNORED: usize = 14;
    pub const FAILED_DROPPED: usize = 15;
    pub const DISCARDED: usize = 16;
    pub const GAP_SKIPS: usize = 17;
    pub const FETCH_BATCHES: usize = 18;
    pub const FETCH_MATCHES: usize = 19;
    pub const ROW_HWM: usize = 20;
    pub const LOG_HWM: usize = 21;
    pub const EMPTY_MASK: usize = 22;
}

/// Magic of the dump trailer beat: "RCXL".
pub const TRAILER_MAGIC: u32 = 0x5243_584C;

/// Every input in one cycle (widths as the ports; `repl_data` is LW bits).
#[derive(Debug, Clone, Default)]
pub struct LuInputs {
    pub node_id: u32,
    pub failed: NodeMask,
    pub dump_base: u64,
    pub dump_limit: u64,
    pub dump_start: bool,
    pub dump_commit: bool,
    pub quiesce: bool,
    pub stat_sel: u32,
    pub repl_valid: bool,
    pub repl_node: u32,
    pub repl_core: u32,
    pub repl_tag: u32,
    pub repl_at_head: bool,
    pub repl_line: u64,
    pub repl_mask: u32,
    pub repl_data: Bits,
    pub ack_ready: bool,
    pub val_valid: bool,
    pub val_node: u32,
    pub val_core: u32,
    pub val_tag: u32,
    pub val_line: u64,
    pub val_ts: u32,
    pub val_csn: u32,
    pub logw_ready: bool,
    pub logr_req_ready: bool,
    pub logr_rsp_valid: bool,
    pub logr_rsp_data: Bits,
    pub dump_wr_ready: bool,
    pub fq_valid: bool,
    pub fq_line: u64,
    pub fq_last: bool,
    pub fr_ready: bool,
}

/// Every output in one cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LuOutputs {
    pub st_quiesced: bool,
    pub st_dump_busy: bool,
    pub st_dump_done: bool,
    pub st_dump_overflow: bool,
    pub st_log_almost_full: bool,
    pub st_log_count: u64,
    pub st_rows_used: u32,
    pub st_epoch: u32,
    pub stat_data: u64,
    pub repl_ready: bool,
    pub ack_valid: bool,
    pub ack_node: u32,
    pub ack_core: u32,
    pub ack_tag: u32,
    pub ack_line: u64,
    pub ack_nack: bool,
    pub val_ready: bool,
    pub logw_valid: bool,
    pub logw_idx: u64,
    pub logw_data: Bits,
    pub logr_req_valid: bool,
    pub logr_req_idx: u64,
    pub logr_rsp_ready: bool,
    pub dump_wr_valid: bool,
    pub dump_wr_addr: u64,
    pub dump_wr_data: Bits,
    pub dump_wr_last: bool,
    pub fq_ready: bool,
    pub fr_valid: bool,
    pub fr_match: bool,
    pub fr_qidx: u32,
    pub fr_line: u64,
    pub fr_word: u32,
    pub fr_node: u32,
    pub fr_core: u32,
    pub fr_csn: u32,
    pub fr_data: u64,
    pub fr_age: u64,
    pub fr_last: bool,
}

/// One SRAM Log Buffer row (header; the data is in `LoggingUnitModel::data`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Row {
    pub state: u8,
    pub node: u32,
    pub core: u32,
    pub tag: u32,
    pub line: u64,
    pub mask: u32,
    pub at_head: bool,
    pub ts: u32,
    pub csn: u32,
    pub stamp: u32,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct AckEntry {
    node: u32,
    core: u32,
    tag: u32,
    line: u64,
    nack: bool,
}

/// A decoded log record (contract §4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub value: u64,
    pub line: u64,
    pub word: u32,
    pub core: u32,
    pub node: u32,
    pub csn: u32,
    pub valid: bool,
}

/// Deliberate defects for the mutation checks of contract §5.2 (tests only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    None,
    /// Release in arrival (VAL) order: the TS check of the release engine is dropped.
    ArrivalOrder,
    /// Free a row when its REPL_ACK leaves (instead of after its records are logged).
    FreeOnAck,
    /// Free the whole snapshot at commit whatever `free_lag` says.
    IgnoreFreeLag,
}

#[derive(Debug, Clone)]
pub struct LoggingUnitModel {
    p: RecxlLoggingUnitBlock,
    shape: MapShape,
    pub mutation: Mutation,
    now: u32,
    pub rows: Vec<Row>,
    data: Vec<Bits>,
    next_ts: Vec<u32>,
    elig_last: Vec<u32>,
    /// Per row, whether it was releasable in the previous cycle (cleared when it was picked):
    /// the release pick's registered eligibility.
    rel_q: Vec<bool>,
    /// Per source, its lowest row of `rel_q` as it was in the previous cycle (the release pick's
    /// registered candidate stage).
    rel_cand: Vec<Option<usize>>,
    rows_used: u32,
    head_used: u32,
    ack: [AckEntry; 4],
    ack_rd: u32,
    ack_wr: u32,
    ack_cnt: u32,
    rel_busy: bool,
    rel_row: u32,
    rel_mask: u32,
    rel_data: Bits,
    rel: Row,
    head: u64,
    tail: u64,
    count: u64,
    /// Records from head to the end of the last committed snapshot, and to the previous
    /// epoch's boundary (counts, not indices: a full log has head == tail).
    dumped_n: u64,
    prev_n: u64,
    dstate: u8,
    /// ctl_quiesce of the previous cycle: a done epoch is abandoned when quiesce rises.
    quiesce_prev: bool,
    trav_idx: u64,
    trav_left: u64,
    resc_left: u64,
    snap_n: u64,
    rd_pend: bool,
    beat: Bits,
    beat_n: u32,
    woff: u64,
    /// Write offset at the start of this epoch (an overflow rewinds to it) and the region base
    /// the offsets belong to (a start that sees another `cfg_dump_base` begins at offset 0).
    estart: u64,
    rbase: u64,
    epoch_recs: u32,
    overflow: bool,
    mask_seen: NodeMask,
    epoch_mask: NodeMask,
    epoch: u32,
    fstate: u8,
    q_line: Vec<u64>,
    q_n: u32,
    fidx: u64,
    fleft: u64,
    fage: u64,
    /// Records responded so far in this traversal (the age of the next one).
    fnext: u64,
    frec: Bits,
    /// One bit per query of the table (`fetch_queries` of them): the current record matches it.
    fmatch: Bits,
    ctr: [u64; COUNTERS],
    /// Each counter's increment of the previous cycle: counters count from registered events,
    /// one cycle late.
    ctr_inc: [u64; COUNTERS],
    stat_q: u64,
}

fn mask_bits(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

impl LoggingUnitModel {
    pub fn new(b: &RecxlLoggingUnitBlock) -> Self {
        let rows = b.sram_rows as usize;
        let n = b.n() as usize;
        let mut m = LoggingUnitModel {
            p: b.clone(),
            shape: b.shape.map(),
            mutation: Mutation::None,
            now: 0,
            rows: vec![Row::default(); rows],
            data: vec![Bits::zeros(b.lw() as usize); rows],
            next_ts: vec![1; n],
            elig_last: vec![0; n],
            rel_q: vec![false; b.sram_rows as usize],
            rel_cand: vec![None; n],
            rows_used: 0,
            head_used: 0,
            ack: [AckEntry::default(); 4],
            ack_rd: 0,
            ack_wr: 0,
            ack_cnt: 0,
            rel_busy: false,
            rel_row: 0,
            rel_mask: 0,
            rel_data: Bits::zeros(b.lw() as usize),
            rel: Row::default(),
            head: 0,
            tail: 0,
            count: 0,
            dumped_n: 0,
            prev_n: 0,
            dstate: D_IDLE,
            quiesce_prev: false,
            trav_idx: 0,
            trav_left: 0,
            resc_left: 0,
            snap_n: 0,
            rd_pend: false,
            beat: Bits::zeros(512),
            beat_n: 0,
            woff: 0,
            estart: 0,
            rbase: 0,
            epoch_recs: 0,
            overflow: false,
            mask_seen: NodeMask::empty(),
            epoch_mask: NodeMask::empty(),
            epoch: 0,
            fstate: F_IDLE,
            q_line: vec![0; b.fetch_queries as usize],
            q_n: 0,
            fidx: 0,
            fleft: 0,
            fage: 0,
            fnext: 0,
            frec: Bits::zeros(b.rec() as usize),
            fmatch: Bits::zeros(b.fetch_queries as usize),
            ctr: [0; COUNTERS],
            ctr_inc: [0; COUNTERS],
            stat_q: 0,
        };
        m.reset();
        m
    }

    pub fn with_mutation(mut self, m: Mutation) -> Self {
        self.mutation = m;
        self
    }

    pub fn reset(&mut self) {
        let mutation = self.mutation;
        let p = self.p.clone();
        let fresh = LoggingUnitModel { mutation, ..Self::blank(&p) };
        *self = fresh;
    }

    fn blank(b: &RecxlLoggingUnitBlock) -> Self {
        let rows = b.sram_rows as usize;
        let n = b.n() as usize;
        LoggingUnitModel {
            p: b.clone(),
            shape: b.shape.map(),
            mutation: Mutation::None,
            now: 0,
            rows: vec![Row::default(); rows],
            data: vec![Bits::zeros(b.lw() as usize); rows],
            next_ts: vec![1; n],
            elig_last: vec![0; n],
            rel_q: vec![false; b.sram_rows as usize],
            rel_cand: vec![None; n],
            rows_used: 0,
            head_used: 0,
            ack: [AckEntry::default(); 4],
            ack_rd: 0,
            ack_wr: 0,
            ack_cnt: 0,
            rel_busy: false,
            rel_row: 0,
            rel_mask: 0,
            rel_data: Bits::zeros(b.lw() as usize),
            rel: Row::default(),
            head: 0,
            tail: 0,
            count: 0,
            dumped_n: 0,
            prev_n: 0,
            dstate: D_IDLE,
            quiesce_prev: false,
            trav_idx: 0,
            trav_left: 0,
            resc_left: 0,
            snap_n: 0,
            rd_pend: false,
            beat: Bits::zeros(512),
            beat_n: 0,
            woff: 0,
            estart: 0,
            rbase: 0,
            epoch_recs: 0,
            overflow: false,
            mask_seen: NodeMask::empty(),
            epoch_mask: NodeMask::empty(),
            epoch: 0,
            fstate: F_IDLE,
            q_line: vec![0; b.fetch_queries as usize],
            q_n: 0,
            fidx: 0,
            fleft: 0,
            fage: 0,
            fnext: 0,
            frec: Bits::zeros(b.rec() as usize),
            fmatch: Bits::zeros(b.fetch_queries as usize),
            ctr: [0; COUNTERS],
            ctr_inc: [0; COUNTERS],
            stat_q: 0,
        }
    }

    pub fn block(&self) -> &RecxlLoggingUnitBlock {
        &self.p
    }

    // ---- record format -------------------------------------------------------------------

    /// Pack a record: value | {line, word} | core | node | csn | 0 | Valid.
    pub fn pack(&self, r: &Record) -> Bits {
        let p = &self.p;
        let mut b = Bits::zeros(p.rec() as usize);
        let (dw, wib, la, cb, nb) = (p.dw() as usize, p.wib() as usize, p.la() as usize, p.cb() as usize, p.nb() as usize);
        b.set_field(0, dw, r.value);
        // Word address = {line, word index}: word index in the low WA − LA bits.
        let wlo = dw;
        let wbits = (p.wa() - p.la()) as usize;
        if wbits > 0 {
            b.set_field(wlo, wbits, r.word as u64);
        }
        let _ = wib;
        b.set_field(wlo + wbits, la, r.line);
        let c0 = dw + p.wa() as usize;
        b.set_field(c0, cb, r.core as u64);
        b.set_field(c0 + cb, nb, r.node as u64);
        if p.csn_bits > 0 {
            b.set_field(c0 + cb + nb, p.csn_bits as usize, r.csn as u64);
        }
        b.set(p.rec() as usize - 1, r.valid);
        b
    }

    pub fn unpack(&self, b: &Bits) -> Record {
        let p = &self.p;
        let (dw, la, cb, nb) = (p.dw() as usize, p.la() as usize, p.cb() as usize, p.nb() as usize);
        let wbits = (p.wa() - p.la()) as usize;
        let c0 = dw + p.wa() as usize;
        Record {
            value: b.field(0, dw),
            word: if wbits > 0 { b.field(dw, wbits) as u32 } else { 0 },
            line: b.field(dw + wbits, la),
            core: b.field(c0, cb) as u32,
            node: b.field(c0 + cb, nb) as u32,
            csn: if p.csn_bits > 0 { b.field(c0 + cb + nb, p.csn_bits as usize) as u32 } else { 0 },
            valid: b.get(p.rec() as usize - 1),
        }
    }

    // ---- helpers -------------------------------------------------------------------------

    fn inc_mod(&self, x: u64) -> u64 {
        if x == self.p.lr() - 1 {
            0
        } else {
            x + 1
        }
    }
    fn dec_mod(&self, x: u64) -> u64 {
        if x == 0 {
            self.p.lr() - 1
        } else {
            x - 1
        }
    }
    fn add_mod(&self, a: u64, n: u64) -> u64 {
        if a + n >= self.p.lr() {
            a + n - self.p.lr()
        } else {
            a + n
        }
    }
    fn ts_mask(&self) -> u32 {
        mask_bits(self.p.ts_bits) as u32
    }
    fn cnt_max(&self) -> u64 {
        mask_bits(self.p.counter_bits)
    }

    /// Row i can be released now: VALID and carrying its source's next timestamp (under the
    /// ArrivalOrder defect: any VALID row but the one being released).
    fn releasable(&self, i: usize) -> bool {
        let r = &self.rows[i];
        let in_turn = match self.mutation {
            Mutation::ArrivalOrder => !(self.rel_busy && self.rel_row as usize == i),
            _ => r.ts == self.next_ts[r.node as usize],
        };
        r.state == VALID && in_turn
    }
    fn elig(&self, i: usize) -> u32 {
        let r = &self.rows[i];
        r.stamp.max(self.elig_last[r.node as usize])
    }
    /// Whether some row is releasable now.
    fn any_releasable(&self) -> bool {
        (0..self.rows.len()).any(|i| self.releasable(i))
    }
    /// Per source, its lowest row that was releasable in the previous cycle (one row per
    /// source is releasable, except under the ArrivalOrder defect): the release pick's candidate
    /// stage, registered.
    fn candidates(&self) -> Vec<Option<usize>> {
        (0..self.p.n()).map(|s| (0..self.rows.len()).find(|&i| self.rows[i].node == s && self.rel_q[i])).collect()
    }
    /// The release pick's second stage: among the previous cycle's candidates, the one with the
    /// smallest (E, source), E from the source's current eligibility time. A candidate is still
    /// releasable when the engine can pick (a pick in the previous cycle keeps it busy), so the
    /// pick differs from one on the current rows only in seeing a row that became releasable
    /// one cycle later.
    fn pick(&self) -> Option<usize> {
        let mut best: Option<(u32, u32, usize)> = None;
        for (s, c) in self.rel_cand.iter().enumerate() {
            if let Some(i) = *c {
                let k = (self.elig(i), s as u32, i);
                if best.is_none_or(|b| (k.0, k.1) < (b.0, b.1)) {
                    best = Some(k);
                }
            }
        }
        best.map(|b| b.2)
    }
    fn any_failed_row(&self, failed: &NodeMask) -> bool {
        self.rows.iter().any(|r| r.state != FREE && failed.has(r.node))
    }
    fn dump_traversing(&self) -> bool {
        self.dstate == D_TRAV || self.dstate == D_FLUSH
    }
    fn quiesced(&self, inp: &LuInputs) -> bool {
        inp.quiesce && !self.any_releasable() && !self.rel_busy && !self.dump_traversing() && !self.any_failed_row(&inp.failed)
    }
    /// Beat write wanted by the dump engine, and whether it would pass the region's end.
    fn dump_write(&self, inp: &LuInputs) -> (bool, bool) {
        let want = (self.dstate == D_TRAV && self.beat_n == self.p.rpb()) || self.dstate == D_FLUSH;
        let room = inp.dump_limit.wrapping_sub(inp.dump_base) & mask_bits(self.p.shape.addr_bits);
        let over = self.woff as u128 + 64 > room as u128;
        (want, over)
    }
    fn trailer(&self, inp: &LuInputs) -> Bits {
        let mut t = Bits::zeros(512);
        t.set_field(0, 32, TRAILER_MAGIC as u64);
        t.set_field(32, 32, self.epoch.wrapping_add(1) as u64);
        t.set_field(64, 32, self.epoch_recs as u64);
        t.set_field(96, 16, inp.node_id as u64);
        t
    }
    /// The current release record (lowest remaining word of the row being released).
    fn rel_record(&self) -> Bits {
        let w = if self.rel_mask == 0 { 0 } else { self.rel_mask.trailing_zeros() };
        let dw = self.p.dw() as usize;
        self.pack(&Record {
            value: self.rel_data.field(w as usize * dw, dw),
            line: self.rel.line,
            word: w,
            core: self.rel.core,
            node: self.rel.node,
            csn: self.rel.csn,
            valid: true,
        })
    }
    fn fr_q(&self) -> u32 {
        self.fmatch.lowest_set().map_or(0, |q| q as u32)
    }

    // ---- outputs -------------------------------------------------------------------------

    pub fn outputs(&self, inp: &LuInputs) -> LuOutputs {
        let p = &self.p;
        let (dwant, dover) = self.dump_write(inp);
        let last = self.dstate == D_FLUSH && self.beat_n == 0;
        let frec = self.unpack(&self.frec);
        let dump_traversal_read = self.dstate == D_TRAV && !self.rd_pend && self.trav_left != 0 && self.beat_n != p.rpb();
        let fetch_read = self.fstate == F_TRAV && !self.rd_pend && self.fleft != 0 && self.fmatch.is_zero();
        let a = self.ack[self.ack_rd as usize];
        LuOutputs {
            st_quiesced: self.quiesced(inp),
            st_dump_busy: self.dump_traversing(),
            st_dump_done: self.dstate == D_DONE,
            st_dump_overflow: self.overflow,
            st_log_almost_full: self.count >= p.high_water(),
            st_log_count: self.count,
            st_rows_used: self.rows_used,
            st_epoch: self.epoch,
            stat_data: self.stat_q,
            repl_ready: self.rows_used < p.sram_rows && self.ack_cnt < 4,
            ack_valid: self.ack_cnt != 0,
            ack_node: a.node,
            ack_core: a.core,
            ack_tag: a.tag,
            ack_line: a.line,
            ack_nack: a.nack,
            val_ready: true,
            logw_valid: self.rel_busy && self.rel_mask != 0 && self.count != p.lr(),
            logw_idx: self.tail,
            logw_data: self.rel_record(),
            logr_req_valid: dump_traversal_read || fetch_read,
            logr_req_idx: if self.dstate == D_TRAV { self.trav_idx } else { self.fidx },
            logr_rsp_ready: self.rd_pend,
            dump_wr_valid: dwant && !dover,
            dump_wr_addr: inp.dump_base.wrapping_add(self.woff) & mask_bits(p.shape.addr_bits),
            dump_wr_data: if last { self.trailer(inp) } else { self.beat.clone() },
            dump_wr_last: last,
            fq_ready: self.quiesced(inp) && self.fstate == F_IDLE,
            fr_valid: (self.fstate == F_TRAV && !self.fmatch.is_zero()) || self.fstate == F_LAST,
            fr_match: self.fstate == F_TRAV,
            fr_qidx: self.fr_q(),
            fr_line: frec.line,
            fr_word: frec.word,
            fr_node: frec.node,
            fr_core: frec.core,
            fr_csn: frec.csn,
            fr_data: frec.value,
            fr_age: self.fage,
            fr_last: self.fstate == F_LAST,
        }
    }

    // ---- the clock edge ------------------------------------------------------------------

    pub fn tick(&mut self, inp: &LuInputs) {
        let p = self.p.clone();
        let o = self.outputs(inp);
        let old = self.clone();
        let tsm = self.ts_mask();
        let mut inc = [0u64; COUNTERS];
        let mut rows_up = 0u32;
        let mut rows_down = 0u32;
        let mut head_up = 0u32;
        let mut head_down = 0u32;

        // REPL.
        let repl_fire = inp.repl_valid && o.repl_ready;
        let mut push: Option<AckEntry> = None;
        if inp.repl_valid && !o.repl_ready {
            inc[ctr::REPL_STALL] += 1;
        }
        if repl_fire {
            let entry = AckEntry { node: inp.repl_node, core: inp.repl_core, tag: inp.repl_tag, line: inp.repl_line, nack: false };
            if inp.failed.has(inp.repl_node) {
                inc[ctr::FAILED_DROPPED] += 1;
            } else {
                let free = p.sram_rows - old.rows_used;
                let reserve = p.head_reserve().saturating_sub(old.head_used);
                if p.nack_enable && !inp.repl_at_head && free <= reserve {
                    push = Some(AckEntry { nack: true, ..entry });
                    inc[ctr::NACKED] += 1;
                } else {
                    let i = old.rows.iter().position(|r| r.state == FREE).expect("repl_ready means a free row");
                    self.rows[i] = Row {
                        state: PENDING,
                        node: inp.repl_node,
                        core: inp.repl_core,
                        tag: inp.repl_tag,
                        line: inp.repl_line,
                        mask: inp.repl_mask,
                        at_head: inp.repl_at_head,
                        ts: 0,
                        csn: 0,
                        stamp: 0,
                    };
                    self.data[i] = inp.repl_data.clone();
                    push = Some(entry);
                    rows_up += 1;
                    head_up += inp.repl_at_head as u32;
                    inc[ctr::ROWS_ALLOCATED] += 1;
                    inc[ctr::WORDS] += inp.repl_mask.count_ones() as u64;
                    if inp.repl_mask == 0 {
                        inc[ctr::EMPTY_MASK] += 1;
                    }
                }
            }
        }
        // ACK FIFO.
        let pop = o.ack_valid && inp.ack_ready;
        if o.ack_valid && !inp.ack_ready {
            inc[ctr::ACK_STALL] += 1;
        }
        if pop {
            self.ack_rd = (old.ack_rd + 1) % 4;
        }
        if let Some(e) = push {
            self.ack[old.ack_wr as usize] = e;
            self.ack_wr = (old.ack_wr + 1) % 4;
        }
        self.ack_cnt = old.ack_cnt + push.is_some() as u32 - pop as u32;
        if pop && self.mutation == Mutation::FreeOnAck {
            // Defect: the row acknowledged is taken to be done with.
            let a = old.ack[old.ack_rd as usize];
            if !a.nack {
                if let Some(i) = old.rows.iter().position(|r| r.state == PENDING && r.node == a.node && r.core == a.core && r.line == a.line) {
                    self.rows[i].state = FREE;
                    rows_down += 1;
                    head_down += old.rows[i].at_head as u32;
                }
            }
        }

        // VAL.
        if inp.val_valid {
            if inp.failed.has(inp.val_node) {
                inc[ctr::FAILED_DROPPED] += 1;
            } else {
                let cands: Vec<usize> = (0..old.rows.len())
                    .filter(|&i| {
                        let r = &old.rows[i];
                        r.state == PENDING && r.node == inp.val_node && r.core == inp.val_core && r.line == inp.val_line && (p.tag_bits == 0 || r.tag == inp.val_tag)
                    })
                    .collect();
                if cands.len() > 1 {
                    inc[ctr::VAL_AMBIGUOUS] += 1;
                }
                match cands.first() {
                    None => inc[ctr::VAL_ORPHAN] += 1,
                    Some(&i) => {
                        let d = inp.val_ts.wrapping_sub(old.next_ts[inp.val_node as usize]) & tsm;
                        let dup = old.rows.iter().any(|r| r.state == VALID && r.node == inp.val_node && r.ts == inp.val_ts);
                        if d >= p.sram_rows || dup {
                            inc[ctr::VAL_WINDOW] += 1;
                        } else {
                            let r = &mut self.rows[i];
                            r.state = VALID;
                            r.ts = inp.val_ts;
                            r.csn = inp.val_csn;
                            r.stamp = old.now;
                            inc[ctr::VAL_MATCHED] += 1;
                        }
                    }
                }
            }
        }

        // Release engine.
        let fetch_idle = old.fstate == F_IDLE;
        if old.rel_busy {
            if old.rel_mask == 0 {
                let i = old.rel_row as usize;
                self.rows[i].state = FREE;
                rows_down += 1;
                head_down += old.rows[i].at_head as u32;
                self.rel_busy = false;
            } else if o.logw_valid && inp.logw_ready {
                let w = old.rel_mask.trailing_zeros();
                self.rel_mask = old.rel_mask & !(1 << w);
                self.tail = old.inc_mod(old.tail);
                inc[ctr::LOGGED] += 1;
            } else if old.count == p.lr() {
                inc[ctr::LOG_FULL_STALL] += 1;
            }
        } else if let (Some(i), true) = (old.pick(), fetch_idle) {
            debug_assert!(old.mutation != Mutation::None || old.releasable(i), "a registered release candidate is still releasable when picked");
            let r = old.rows[i];
            let e = old.elig(i);
            self.elig_last[r.node as usize] = e;
            self.next_ts[r.node as usize] = old.next_ts[r.node as usize].wrapping_add(1) & tsm;
            self.rel_busy = true;
            self.rel_row = i as u32;
            self.rel_mask = r.mask;
            self.rel_data = old.data[i].clone();
            self.rel = r;
        } else if fetch_idle && !old.any_releasable() {
            // Failed-source gap skip: the VALID row of a failed source nearest its next TS.
            let mut best: Option<(u32, u32, usize)> = None;
            for (i, r) in old.rows.iter().enumerate() {
                if r.state == VALID && inp.failed.has(r.node) {
                    let k = (r.node, r.ts.wrapping_sub(old.next_ts[r.node as usize]) & tsm, i);
                    if best.is_none_or(|b| (k.0, k.1) < (b.0, b.1)) {
                        best = Some(k);
                    }
                }
            }
            if let Some((_, _, i)) = best {
                let r = old.rows[i];
                self.next_ts[r.node as usize] = r.ts;
                inc[ctr::GAP_SKIPS] += 1;
            }
        }

        // Discard the lowest PENDING row of a failed source.
        if let Some(i) = old.rows.iter().position(|r| r.state == PENDING && inp.failed.has(r.node)) {
            self.rows[i].state = FREE;
            rows_down += 1;
            head_down += old.rows[i].at_head as u32;
            inc[ctr::DISCARDED] += 1;
        }
        self.rows_used = old.rows_used + rows_up - rows_down;
        self.head_used = old.head_used + head_up - head_down;

        // Log read port (one outstanding read, shared by dump and fetch).
        let req_fire = o.logr_req_valid && inp.logr_req_ready;
        let rsp_fire = old.rd_pend && inp.logr_rsp_valid;
        if req_fire {
            self.rd_pend = true;
        }
        if rsp_fire {
            self.rd_pend = false;
        }

        // Dump engine.
        let (dwant, dover) = old.dump_write(inp);
        let mut freed = 0u64;
        match old.dstate {
            D_IDLE => {
                if inp.dump_start {
                    if !fetch_idle {
                        inc[ctr::IGNORED] += 1;
                    } else {
                        let rescan = inp.failed.gained_over(&old.mask_seen);
                        // A new cfg_dump_base is a new region, written from its start; in the
                        // same region the epoch continues at the write offset (after an
                        // overflow: at the overflowed epoch's start, rewound to then).
                        let woff = if inp.dump_base != old.rbase { 0 } else { old.woff };
                        self.woff = woff;
                        self.estart = woff;
                        self.rbase = inp.dump_base;
                        self.overflow = false;
                        self.snap_n = old.count;
                        self.epoch_mask = inp.failed;
                        self.epoch_recs = 0;
                        self.beat_n = 0;
                        self.beat = Bits::zeros(512);
                        if rescan {
                            self.trav_idx = old.head;
                            self.trav_left = old.count;
                            self.resc_left = old.dumped_n;
                        } else {
                            self.trav_idx = old.add_mod(old.head, old.dumped_n);
                            self.trav_left = old.count - old.dumped_n;
                            self.resc_left = 0;
                        }
                        self.dstate = D_TRAV;
                    }
                }
            }
            D_TRAV | D_FLUSH => {
                if inp.dump_start {
                    inc[ctr::IGNORED] += 1;
                }
                if dwant && dover {
                    // The epoch stops, uncommittable: its beats are abandoned (no trailer) and
                    // the write offset returns to the epoch's start; the unit is idle again, and
                    // the next accepted start re-dumps the epoch (into a new region, when
                    // cfg_dump_base changed meanwhile).
                    self.overflow = true;
                    self.woff = old.estart;
                    self.dstate = D_IDLE;
                } else if dwant {
                    if inp.dump_wr_ready {
                        inc[ctr::BEATS] += 1;
                        inc[ctr::DUMPED] += old.beat_n as u64;
                        self.woff = (old.woff + 64) & mask_bits(p.shape.addr_bits);
                        self.beat_n = 0;
                        self.beat = Bits::zeros(512);
                        if old.dstate == D_FLUSH && old.beat_n == 0 {
                            self.dstate = D_DONE;
                        }
                    }
                } else if old.dstate == D_TRAV {
                    if req_fire {
                        self.trav_idx = old.inc_mod(old.trav_idx);
                        self.trav_left = old.trav_left - 1;
                    }
                    if rsp_fire {
                        let rec = old.unpack(&inp.logr_rsp_data);
                        let now_map = self.shape.map(rec.line, &inp.failed);
                        let mine = now_map.dump_node == Some(inp.node_id);
                        let take = if old.resc_left != 0 {
                            let was = self.shape.map(rec.line, &old.mask_seen).dump_node;
                            mine && was.is_some_and(|w| inp.failed.has(w))
                        } else {
                            mine
                        };
                        if old.resc_left != 0 {
                            self.resc_left = old.resc_left - 1;
                        }
                        if take {
                            let rec_bits = p.rec() as usize;
                            self.beat.set_slice(old.beat_n as usize * rec_bits, &inp.logr_rsp_data);
                            self.beat_n = old.beat_n + 1;
                            self.epoch_recs = old.epoch_recs.wrapping_add(1);
                        }
                    }
                    if old.trav_left == 0 && !old.rd_pend {
                        self.dstate = D_FLUSH;
                    }
                }
            }
            _ => {
                // D_DONE.
                if inp.dump_start {
                    inc[ctr::IGNORED] += 1;
                }
                // A failure after the epoch started voids it (its snapshot may hold records whose
                // in-charge unit died before dumping them): abandoned, never committed.
                let gained = inp.failed.gained_over(&old.epoch_mask);
                if inp.dump_commit && !gained {
                    let lag = if self.mutation == Mutation::IgnoreFreeLag { 0 } else { p.free_lag };
                    freed = if lag == 1 { old.prev_n } else { old.snap_n };
                    self.head = old.add_mod(old.head, freed);
                    self.prev_n = old.snap_n - freed;
                    self.dumped_n = old.snap_n - freed;
                    self.mask_seen = old.epoch_mask;
                    self.epoch = old.epoch.wrapping_add(1);
                    self.dstate = D_IDLE;
                    inc[ctr::EPOCHS] += 1;
                } else if (inp.quiesce && !old.quiesce_prev) || gained {
                    // Abandoned when quiesce rises: the barrier cannot complete (a participant
                    // failed); the next epoch re-dumps under the same epoch number.
                    self.dstate = D_IDLE;
                    if inp.dump_commit {
                        inc[ctr::IGNORED] += 1;
                    }
                } else if inp.dump_commit {
                    inc[ctr::IGNORED] += 1;
                }
            }
        }
        if inp.dump_commit && old.dstate != D_DONE {
            inc[ctr::IGNORED] += 1;
        }
        let appended = (o.logw_valid && inp.logw_ready && old.rel_busy && old.rel_mask != 0) as u64;
        self.count = old.count + appended - freed;

        // Fetch engine.
        match old.fstate {
            F_IDLE => {
                if inp.fq_valid && o.fq_ready {
                    self.q_line[old.q_n as usize] = inp.fq_line;
                    self.q_n = old.q_n + 1;
                    if inp.fq_last || old.q_n + 1 == p.fetch_queries {
                        self.fstate = F_TRAV;
                        self.fidx = old.dec_mod(old.tail);
                        self.fleft = old.count;
                        self.fage = 0;
                        self.fnext = 0;
                        self.fmatch = Bits::zeros(p.fetch_queries as usize);
                    }
                }
            }
            F_TRAV => {
                let fire = o.fr_valid && inp.fr_ready;
                let mut fm = old.fmatch.clone();
                if fire {
                    fm.set(old.fr_q() as usize, false);
                    inc[ctr::FETCH_MATCHES] += 1;
                }
                if req_fire {
                    self.fidx = old.dec_mod(old.fidx);
                    self.fleft = old.fleft - 1;
                }
                if rsp_fire {
                    let rec = old.unpack(&inp.logr_rsp_data);
                    let mut m = Bits::zeros(p.fetch_queries as usize);
                    for q in 0..old.q_n as usize {
                        m.set(q, old.q_line[q] == rec.line);
                    }
                    fm = m;
                    self.frec = inp.logr_rsp_data.clone();
                    self.fage = old.fnext;
                    self.fnext = old.fnext + 1;
                }
                self.fmatch = fm;
                if old.fleft == 0 && !old.rd_pend && old.fmatch.is_zero() {
                    self.fstate = F_LAST;
                }
            }
            _ => {
                if inp.fr_ready {
                    self.fstate = F_IDLE;
                    self.q_n = 0;
                    inc[ctr::FETCH_BATCHES] += 1;
                }
            }
        }

        // Counters, high-water marks, the stat read register, the clock.
        let max = self.cnt_max();
        for (c, add) in self.ctr.iter_mut().zip(old.ctr_inc.iter()) {
            *c = (*c as u128 + *add as u128).min(max as u128) as u64;
        }
        self.ctr_inc = inc;
        if old.rows_used as u64 > old.ctr[ctr::ROW_HWM] {
            self.ctr[ctr::ROW_HWM] = old.rows_used as u64;
        }
        if old.count > old.ctr[ctr::LOG_HWM] {
            self.ctr[ctr::LOG_HWM] = old.count.min(max);
        }
        self.stat_q = if (inp.stat_sel as usize) < COUNTERS { old.ctr[inp.stat_sel as usize] } else { 0 };
        self.now = old.now.wrapping_add(1);
        self.quiesce_prev = inp.quiesce;
        self.rel_cand = old.candidates();
        // A picked row's eligibility is cleared at once: its source's next timestamp moves on in
        // the same edge, so the row is no longer releasable, and the stale bit would make it a
        // candidate again.
        let picked = if self.rel_busy && !old.rel_busy { Some(self.rel_row as usize) } else { None };
        self.rel_q = (0..old.rows.len()).map(|i| old.releasable(i) && picked != Some(i)).collect();
    }

    // ---- inspection (tests, system simulation) -------------------------------------------

    /// A one-line summary of the engines (for failure messages).
    pub fn describe(&self) -> String {
        let rows: Vec<String> = self.rows.iter().filter(|r| r.state != FREE).map(|r| format!("{}:{}@{}", r.node, r.state, r.ts)).collect();
        format!(
            "rows [{}] next_ts {:?} rel_busy {} rel_mask {:#x} count {} dstate {} fstate {} q_n {} rd_pend {}",
            rows.join(" "),
            self.next_ts,
            self.rel_busy,
            self.rel_mask,
            self.count,
            self.dstate,
            self.fstate,
            self.q_n,
            self.rd_pend
        )
    }

    /// Counter `i` with the events of the last cycle counted (what `stat_sel` reads two
    /// cycles later).
    pub fn counter(&self, i: usize) -> u64 {
        (self.ctr[i] as u128 + self.ctr_inc[i] as u128).min(self.cnt_max() as u128) as u64
    }
    pub fn log_count(&self) -> u64 {
        self.count
    }
    pub fn rows_used(&self) -> u32 {
        self.rows_used
    }
    pub fn epoch(&self) -> u32 {
        self.epoch
    }
    pub fn next_ts(&self, src: u32) -> u32 {
        self.next_ts[src as usize]
    }
    pub fn head_tail(&self) -> (u64, u64) {
        (self.head, self.tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Design;

    /// The test unit's fields, `extra` (`key = value` lines) overriding or adding to them.
    fn block(extra: &str) -> RecxlLoggingUnitBlock {
        let base = ["num_nodes = 4", "cores_per_node = 2", "replicas = 2", "addr_bits = 32", "ts_bits = 8", "sram_rows = 16", "head_reserve = 4", "log_bytes = 4096", "fetch_queries = 4", "counter_bits = 16"];
        let key = |l: &str| l.split('=').next().unwrap_or("").trim().to_string();
        let overridden: Vec<String> = extra.lines().map(key).collect();
        let fields: Vec<&str> = base.into_iter().filter(|l| !overridden.contains(&key(l))).collect();
        let text = format!("[design]\nname = \"t\"\n[[blocks]]\nkind = \"recxl_logging_unit\"\nname = \"lu\"\n{}\n{extra}\n", fields.join("\n"));
        let d = Design::parse(&text, "t.toml").expect("valid");
        d.blocks[0].as_any().downcast_ref::<RecxlLoggingUnitBlock>().expect("lu").clone()
    }

    /// A tiny environment: the log memory answers reads the next cycle, everything is ready.
    struct Env {
        m: LoggingUnitModel,
        log: Vec<Bits>,
        rsp: Option<Bits>,
        logged: Vec<Record>,
        dumped: Vec<Bits>,
        /// Address of every dumped beat, and the dump region (base, limit) driven.
        dumped_at: Vec<u64>,
        region: (u64, u64),
        fetched: Vec<(u32, Record, u64)>,
        acks: Vec<(u32, bool)>,
    }

    impl Env {
        fn new(b: &RecxlLoggingUnitBlock) -> Env {
            Env { m: b.model(), log: vec![Bits::zeros(b.rec() as usize); b.lr() as usize], rsp: None, logged: vec![], dumped: vec![], dumped_at: vec![], region: (0, 1 << 20), fetched: vec![], acks: vec![] }
        }
        fn base(&self) -> LuInputs {
            LuInputs {
                node_id: 1,
                dump_base: self.region.0,
                dump_limit: self.region.1,
                ack_ready: true,
                logw_ready: true,
                logr_req_ready: true,
                dump_wr_ready: true,
                fr_ready: true,
                repl_data: Bits::zeros(self.m.p.lw() as usize),
                logr_rsp_data: Bits::zeros(self.m.p.rec() as usize),
                ..Default::default()
            }
        }
        fn step(&mut self, mut i: LuInputs) -> LuOutputs {
            if let Some(r) = self.rsp.take() {
                i.logr_rsp_valid = true;
                i.logr_rsp_data = r;
            }
            let o = self.m.outputs(&i);
            if o.logw_valid {
                self.log[o.logw_idx as usize] = o.logw_data.clone();
                self.logged.push(self.m.unpack(&o.logw_data));
            }
            if o.logr_req_valid {
                self.rsp = Some(self.log[o.logr_req_idx as usize].clone());
            } else if i.logr_rsp_valid && !o.logr_rsp_ready {
                self.rsp = Some(i.logr_rsp_data.clone());
            }
            if o.dump_wr_valid {
                self.dumped.push(o.dump_wr_data.clone());
                self.dumped_at.push(o.dump_wr_addr);
            }
            if o.fr_valid && o.fr_match {
                self.fetched.push((o.fr_qidx, Record { value: o.fr_data, line: o.fr_line, word: o.fr_word, core: o.fr_core, node: o.fr_node, csn: o.fr_csn, valid: true }, o.fr_age));
            }
            if o.ack_valid {
                self.acks.push((o.ack_tag, o.ack_nack));
            }
            self.m.tick(&i);
            o
        }
        fn idle(&mut self, n: usize) {
            for _ in 0..n {
                let i = self.base();
                self.step(i);
            }
        }
        fn repl(&mut self, node: u32, tag: u32, line: u64, mask: u32, words: &[(u32, u64)]) {
            let mut i = self.base();
            i.repl_valid = true;
            i.repl_node = node;
            i.repl_tag = tag;
            i.repl_line = line;
            i.repl_mask = mask;
            i.repl_at_head = true;
            let dw = self.m.p.dw() as usize;
            for (w, v) in words {
                i.repl_data.set_field(*w as usize * dw, dw, *v);
            }
            let o = self.step(i);
            assert!(o.repl_ready);
        }
        fn val(&mut self, node: u32, tag: u32, line: u64, ts: u32, csn: u32) {
            let mut i = self.base();
            i.val_valid = true;
            i.val_node = node;
            i.val_tag = tag;
            i.val_line = line;
            i.val_ts = ts;
            i.val_csn = csn;
            self.step(i);
        }
    }

    /// Fig. 3: REPL → REPL_ACK (the cycle after) → VAL → Valid → released to the log.
    #[test]
    fn fig3_repl_ack_val_release() {
        let b = block("");
        let mut e = Env::new(&b);
        e.repl(2, 5, 0x40, 0b1, &[(0, 0xAB)]);
        e.idle(1);
        assert_eq!(e.acks, vec![(5, false)]);
        assert_eq!(e.m.rows_used(), 1);
        e.val(2, 5, 0x40, 1, 1);
        e.idle(5);
        assert_eq!(e.logged.len(), 1);
        assert_eq!((e.logged[0].value, e.logged[0].line, e.logged[0].node, e.logged[0].csn), (0xAB, 0x40, 2, 1));
        assert_eq!(e.m.rows_used(), 0);
    }

    /// §IV-C: two updates of one word from one CN, the VALs swapped by the fabric: the log holds
    /// them in program (TS) order. §IV-D.1: a coalesced REPL of B, B+4, B+8 gives 3 records.
    #[test]
    fn swapped_vals_log_in_ts_order_and_coalesced_repl_splits() {
        let b = block("");
        let mut e = Env::new(&b);
        e.repl(0, 1, 0x80, 0b1, &[(0, 111)]);
        e.repl(0, 2, 0x80, 0b1, &[(0, 222)]);
        e.idle(2);
        e.val(0, 2, 0x80, 2, 2);
        e.idle(3);
        assert!(e.logged.is_empty(), "TS 2 must wait for TS 1");
        e.val(0, 1, 0x80, 1, 1);
        e.idle(7);
        let v: Vec<u64> = e.logged.iter().map(|r| r.value).collect();
        assert_eq!(v, vec![111, 222]);
        e.repl(3, 0, 0x90, 0b111, &[(0, 1), (1, 2), (2, 3)]);
        e.idle(1);
        e.val(3, 0, 0x90, 1, 1);
        e.idle(6);
        let w: Vec<(u32, u64)> = e.logged[2..].iter().map(|r| (r.word, r.value)).collect();
        assert_eq!(w, vec![(0, 1), (1, 2), (2, 3)]);
    }

    /// H1: two outstanding REPLs of one core to one line. With tags each VAL finds its own row;
    /// without (paper-exact) the match is ambiguous and counted, and the values swap.
    #[test]
    fn h1_tags_resolve_what_paper_exact_counts_as_ambiguous() {
        for (extra, want, ambiguous) in [("", vec![10, 20], 0), ("tag_bits = 0", vec![20, 10], 1)] {
            let b = block(extra);
            let mut e = Env::new(&b);
            e.repl(1, 1, 0x44, 0b1, &[(0, 10)]);
            e.repl(1, 2, 0x44, 0b1, &[(0, 20)]);
            e.idle(2);
            // VAL of the second store arrives first (both carry their own TS).
            e.val(1, 2, 0x44, 2, 2);
            e.val(1, 1, 0x44, 1, 1);
            e.idle(8);
            let v: Vec<u64> = e.logged.iter().map(|r| r.value).collect();
            assert_eq!(v, want, "{extra}");
            assert_eq!(e.m.counter(ctr::VAL_AMBIGUOUS), ambiguous, "{extra}");
        }
    }

    /// Dump epoch: in-charge records in 64-byte beats and a trailer; commit frees the previous
    /// snapshot (free_lag = 1) or its own (free_lag = 0). §V-D: one fetch traversal lists a
    /// line's updates newest first.
    #[test]
    fn dump_commit_free_lag_and_fetch_newest_first() {
        for lag in [1u64, 0] {
            let b = block(&format!("free_lag = {lag}"));
            let mut e = Env::new(&b);
            let shape = b.shape.map();
            // Lines whose in-charge node is this unit (node 1).
            let mine: Vec<u64> = (0..4096u64).filter(|l| shape.map(*l, &NodeMask::empty()).dump_node == Some(1)).take(3).collect();
            for (k, l) in mine.iter().enumerate() {
                e.repl(0, k as u32, *l, 0b1, &[(0, 100 + k as u64)]);
                e.idle(1);
                e.val(0, k as u32, *l, k as u32 + 1, k as u32 + 1);
                e.idle(4);
            }
            assert_eq!(e.m.log_count(), 3);
            for epoch in 0..2 {
                let mut i = e.base();
                i.dump_start = true;
                e.step(i);
                e.idle(40);
                let mut i = e.base();
                i.dump_commit = true;
                e.step(i);
                e.idle(1);
                let expect = if lag == 1 && epoch == 0 { 3 } else { 0 };
                assert_eq!(e.m.log_count(), expect, "free_lag {lag}, epoch {epoch}");
            }
            // Epoch 1: one data beat of 3 records then the trailer; epoch 2: just a trailer.
            let t = &e.dumped[1];
            assert_eq!(t.field(0, 32), TRAILER_MAGIC as u64);
            assert_eq!((t.field(32, 32), t.field(64, 32)), (1, 3));
            assert_eq!(e.dumped.len(), 3);
        }
        // Fetch: two updates of one line, newest first, during quiesce.
        let b = block("");
        let mut e = Env::new(&b);
        for k in 0..2u32 {
            e.repl(2, k, 0x55, 0b1, &[(0, 7 + k as u64)]);
            e.idle(1);
            e.val(2, k, 0x55, k + 1, k + 1);
            e.idle(5);
        }
        let mut i = e.base();
        i.quiesce = true;
        i.fq_valid = true;
        i.fq_line = 0x55;
        i.fq_last = true;
        e.step(i);
        for _ in 0..20 {
            let mut i = e.base();
            i.quiesce = true;
            e.step(i);
        }
        let v: Vec<(u64, u64)> = e.fetched.iter().map(|(_, r, age)| (r.value, *age)).collect();
        assert_eq!(v, vec![(8, 0), (7, 1)]);
        assert_eq!(e.m.counter(ctr::FETCH_BATCHES), 1);
    }

    /// A query table wider than a machine word: the record matching query 70 of 80 is returned
    /// under index 70 (the match vector has one bit per query, as the RTL's does).
    #[test]
    fn fetch_matches_queries_beyond_the_sixty_fourth() {
        let b = block("fetch_queries = 80");
        let mut e = Env::new(&b);
        e.repl(2, 0, 0x55, 0b1, &[(0, 9)]);
        e.idle(1);
        e.val(2, 0, 0x55, 1, 1);
        e.idle(5);
        for q in 0..80u64 {
            let mut i = e.base();
            i.quiesce = true;
            i.fq_valid = true;
            i.fq_line = if q == 70 { 0x55 } else { 0x1000 + q };
            i.fq_last = q == 79;
            e.step(i);
        }
        for _ in 0..20 {
            let mut i = e.base();
            i.quiesce = true;
            e.step(i);
        }
        let v: Vec<(u32, u64)> = e.fetched.iter().map(|(q, r, _)| (*q, r.value)).collect();
        assert_eq!(v, vec![(70, 9)]);
    }

    /// C9 / H6 at unit level: record v of line X is logged by the member A that is not in
    /// charge of X; A's epoch boundary falls after v, B (in charge) has not dumped v yet and
    /// crashes. With free_lag = 0 A freed v at its commit: the recovery finds v nowhere (the
    /// check fails, as it must). With free_lag = 1 A still holds v: the fetch returns it and
    /// A's next epoch re-dumps it under the failure rescan.
    #[test]
    fn c9_free_lag_0_loses_a_value_free_lag_1_recovers() {
        for lag in [0u64, 1] {
            let b = block(&format!("free_lag = {lag}"));
            let shape = b.shape.map();
            // A = node 1 (the unit), B = the other member of X's group, in charge of X.
            let (x, bnode) = (0..4096u64)
                .find_map(|l| {
                    let set = shape.map(l, &NodeMask::empty());
                    (set.nodes.contains(&1) && set.dump_node != Some(1)).then(|| (l, set.dump_node.expect("live")))
                })
                .expect("a line of a group {1, B} with B in charge");
            let mut e = Env::new(&b);
            e.repl(0, 0, x, 0b1, &[(0, 0xBEEF)]);
            e.idle(1);
            e.val(0, 0, x, 1, 1);
            e.idle(4);
            // A's epoch: nothing of X is A's to dump; the commit frees per free_lag.
            let mut i = e.base();
            i.dump_start = true;
            e.step(i);
            e.idle(30);
            let mut i = e.base();
            i.dump_commit = true;
            e.step(i);
            e.idle(2);
            assert!(e.dumped.iter().all(|beat| (0..4).all(|j| !beat.get(128 * j + 127) || e.m.unpack(&beat.slice(128 * j, 128)).line != x)));
            // B crashes before dumping v. Recovery asks A (FetchLatestVers), then A's rescan epoch.
            let failed = NodeMask::empty().with(bnode);
            let mut i = e.base();
            i.failed = failed;
            i.quiesce = true;
            i.fq_valid = true;
            i.fq_line = x;
            i.fq_last = true;
            e.step(i);
            for _ in 0..20 {
                let mut i = e.base();
                i.failed = failed;
                i.quiesce = true;
                e.step(i);
            }
            let fetched: Option<u64> = e.fetched.first().map(|(_, r, _)| r.value);
            let before = e.dumped.len();
            let mut i = e.base();
            i.failed = failed;
            i.dump_start = true;
            e.step(i);
            for _ in 0..30 {
                let mut i = e.base();
                i.failed = failed;
                e.step(i);
            }
            let redumped = e.dumped[before..].iter().any(|beat| (0..4).any(|j| beat.get(128 * j + 127) && e.m.unpack(&beat.slice(128 * j, 128)).value == 0xBEEF));
            // S1: the recovered value must be the committed 0xBEEF.
            let recovered = fetched.or(if redumped { Some(0xBEEF) } else { None });
            if lag == 0 {
                assert_eq!(recovered, None, "free_lag = 0 must lose v (H6)");
            } else {
                assert_eq!(fetched, Some(0xBEEF), "free_lag = 1: the fetch returns v");
                assert!(redumped, "free_lag = 1: the rescan epoch re-dumps v");
            }
        }
    }

    /// Lines of the test block whose in-charge node (no failures) is node 1, the unit's own ID.
    fn mine(b: &RecxlLoggingUnitBlock, k: usize) -> Vec<u64> {
        let shape = b.shape.map();
        (0..1u64 << 16).filter(|l| shape.map(*l, &NodeMask::empty()).dump_node == Some(1)).take(k).collect()
    }

    /// Log `lines.len()` one-word records of lines this unit is in charge of, from source 0.
    fn log_mine(e: &mut Env, lines: &[u64], first_ts: u32) {
        for (k, l) in lines.iter().enumerate() {
            let ts = first_ts + k as u32;
            e.repl(0, ts & 7, *l, 0b1, &[(0, 0x100 + ts as u64)]);
            e.idle(1);
            e.val(0, ts & 7, *l, ts, ts);
            e.idle(4);
        }
    }

    fn pulse(e: &mut Env, start: bool, commit: bool) {
        let mut i = e.base();
        i.dump_start = start;
        i.dump_commit = commit;
        e.step(i);
    }

    /// A dump region that overflows: the epoch stops (no trailer, not committable, the unit idle
    /// again), `records dumped` counts only the records of beats written, and the unit leaves the
    /// state when software supplies a new region and pulses `ctl_dump_start`: the epoch is dumped
    /// again from the region's start under the same number, commits and frees the log. A restart in
    /// the same full region overflows again without writing over the earlier beats.
    #[test]
    fn dump_overflow_then_a_new_region_restarts_the_epoch() {
        let b = block("free_lag = 0");
        let mut e = Env::new(&b);
        let lines = mine(&b, 9);
        // Room for one beat: 4 of the 7 records fit, the second beat overflows.
        e.region = (0x400, 0x440);
        log_mine(&mut e, &lines[..7], 1);
        pulse(&mut e, true, false);
        e.idle(60);
        let o = e.m.outputs(&e.base());
        assert!(o.st_dump_overflow && !o.st_dump_done && !o.st_dump_busy, "overflowed and idle: {o:?}");
        assert_eq!(e.dumped_at, vec![0x400], "one data beat, no trailer");
        assert_eq!(e.m.counter(ctr::DUMPED), 4, "records dumped = records in beats written");
        assert_eq!(e.m.counter(ctr::BEATS), 1);
        // The commit of an overflowed epoch is refused (and counted); nothing is freed.
        let ignored = e.m.counter(ctr::IGNORED);
        pulse(&mut e, false, true);
        e.idle(2);
        assert_eq!((e.m.epoch(), e.m.log_count(), e.m.counter(ctr::IGNORED)), (0, 7, ignored + 1));
        // More traffic, then a restart in the same (still full) region: it overflows again at the
        // same place, rewriting the abandoned beat, and never writes past the limit.
        log_mine(&mut e, &lines[7..9], 8);
        pulse(&mut e, true, false);
        e.idle(60);
        assert!(e.m.outputs(&e.base()).st_dump_overflow);
        assert_eq!(e.dumped_at, vec![0x400, 0x400]);
        // Software supplies a new region of 8 beats and restarts: 9 records in 3 beats + trailer.
        e.region = (0x1000, 0x1200);
        pulse(&mut e, true, false);
        e.idle(80);
        let o = e.m.outputs(&e.base());
        assert!(!o.st_dump_overflow && o.st_dump_done, "{o:?}");
        assert_eq!(&e.dumped_at[2..], &[0x1000, 0x1040, 0x1080, 0x10C0]);
        let t = e.dumped.last().expect("trailer");
        assert_eq!((t.field(0, 32), t.field(32, 32), t.field(64, 32)), (TRAILER_MAGIC as u64, 1, 9));
        assert_eq!(e.m.counter(ctr::DUMPED), 4 + 4 + 9);
        pulse(&mut e, false, true);
        e.idle(2);
        assert_eq!((e.m.epoch(), e.m.log_count()), (1, 0), "committed and freed (free_lag = 0)");
        // The next epoch continues in the new region after the trailer.
        log_mine(&mut e, &lines[..1], 10);
        pulse(&mut e, true, false);
        e.idle(40);
        assert_eq!(&e.dumped_at[6..], &[0x1100, 0x1140]);
    }

    /// A record written to the log in the cycle `ctl_dump_start` is taken is outside that
    /// epoch's snapshot: it is dumped by the next epoch.
    #[test]
    fn a_record_logged_with_the_start_pulse_goes_to_the_next_epoch() {
        let b = block("free_lag = 0");
        let mut e = Env::new(&b);
        let lines = mine(&b, 2);
        log_mine(&mut e, &lines[..1], 1);
        e.repl(0, 2, lines[1], 0b1, &[(0, 0x777)]);
        e.idle(1);
        e.val(0, 2, lines[1], 2, 2);
        let mut guard = 0;
        loop {
            let mut i = e.base();
            i.dump_start = e.m.outputs(&i).logw_valid;
            let start = i.dump_start;
            e.step(i);
            if start {
                break;
            }
            guard += 1;
            assert!(guard < 10, "the record was never written");
        }
        e.idle(40);
        let t = e.dumped.last().expect("trailer");
        assert_eq!(t.field(64, 32), 1, "the epoch holds only the earlier record");
        pulse(&mut e, false, true);
        e.idle(2);
        assert_eq!(e.m.log_count(), 1);
        pulse(&mut e, true, false);
        e.idle(40);
        let t = e.dumped.last().expect("trailer");
        assert_eq!((t.field(32, 32), t.field(64, 32)), (2, 1));
        assert_eq!(e.m.unpack(&e.dumped[e.dumped.len() - 2].slice(0, 128)).value, 0x777);
    }
}
