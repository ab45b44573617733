//! The multi-node ReCXL system of contract `recxl.md` §5.3, in 2 ns logging-unit cycles: N compute
//! nodes (C cores with store buffers, a per-node M/S/I line cache, per-destination TS counters, a
//! CSN counter, tags, NACK retry at the SB head), N homes with MESI directories (home(line) =
//! line mod N), a fabric with latency L_min + U[0, J] that reorders, one logging unit per node
//! ([`LuNode`]: model or RTL twin) with its DRAM log and MN dump region as Rust memories, the dump
//! coordinator, a fail-stop crash, detection, and the recovery of Table I message by message.
//! Scoreboards S1–S8 are checked at the end of every trial ([`Trial::violations`]).
//!
//! Simplifications (said in the results page): no random evictions (an owner keeps its dirty line
//! until snooped); a coalesced store is one SB entry with several mask bits; proactive issues
//! REPLs at deposit (the §IV-D.5 coalescing rule is not modelled); loads only create sharers.

use super::node::LuNode;
use crate::campaign::CampaignError;
use crate::SimError;
use rtl_gen::bits::Bits;
use rtl_gen::blocks::recxl_logging_unit::model::{ctr, LuInputs, LuOutputs, Record, TRAILER_MAGIC};
use rtl_gen::blocks::recxl_logging_unit::RecxlLoggingUnitBlock;
use rtl_gen::blocks::recxl_replica_map::model::{MapShape, NodeMask};
use rtl_gen::math::splitmix::SplitMix64;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// Store-commit discipline of a core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Write-back, no replication (commit when the line is owned).
    Wb,
    /// Write-through to persistent memory: each store waits RTT + PMem (100 + 250 cycles).
    Wt,
    Baseline,
    Parallel,
    Proactive,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Wb => "WB",
            Variant::Wt => "WT",
            Variant::Baseline => "baseline",
            Variant::Parallel => "parallel",
            Variant::Proactive => "proactive",
        }
    }
    pub fn replicated(self) -> bool {
        matches!(self, Variant::Baseline | Variant::Parallel | Variant::Proactive)
    }
    pub const RECXL: [Variant; 3] = [Variant::Baseline, Variant::Parallel, Variant::Proactive];
}

/// When the crash happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crash {
    None,
    /// Node `node` stops at `cycle`.
    At { node: u32, cycle: u64 },
    /// A random node at a random cycle in [warmup, cycles).
    Random,
    /// Node `node` stops at the first cycle ≥ `after` at which the condition holds.
    When { node: u32, after: u64, cond: CrashWhen },
}

/// Targeted crash conditions (contract §5.3, C1–C7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashWhen {
    /// C1: the node sent the VAL of a store to some but not all replicas, one of them live.
    PartialVal,
    /// C2: the node's dump traversal is running.
    DumpBusy,
    /// C3: the node has just committed a dump epoch.
    AfterEpochCommit,
    /// C4: a store of the node has REPL_ACKs outstanding and no VAL sent.
    AcksOutstanding,
    /// C5: a live writer's REPL to the node is not yet acknowledged.
    ReplicaOfInFlight,
    /// C6: a home waits for the node's snoop response (a pending RdX from another CN).
    PendingRdX,
    /// C7: the node has just committed a store to a line of its own group.
    OwnGroupCommit,
}

/// A scripted store (directed scenarios): at `cycle`, core `core` of `node` deposits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptStore {
    pub cycle: u64,
    pub node: u32,
    pub core: u32,
    pub line: u64,
    pub mask: u32,
    pub value: u64,
}

/// Options of one trial.
#[derive(Debug, Clone)]
pub struct SysOptions {
    pub variant: Variant,
    /// Shared lines (line addresses 1..=lines).
    pub lines: u64,
    /// Per core and cycle: probability that a store is deposited (SB not full).
    pub store_rate: f64,
    /// Per core and cycle: probability of a load of a line the CN does not cache (GetS → the
    /// home grants S and adds the CN to the sharer mask; a later RdX invalidates it).
    pub load_rate: f64,
    /// Per CN and cycle (while traffic runs, not during recovery): probability of evicting one
    /// random cached line that no store-buffer entry, pending request or deferred snoop uses.
    /// S lines are dropped silently (the home keeps a stale sharer bit; a later Inv is ACKed);
    /// M lines are written back (PutM → home writes memory, entry → I, WbAck). A CN sends no
    /// request for a line whose writeback is not yet acknowledged.
    pub evict_rate: f64,
    /// Words per store: 1..=max_words mask bits (coalesced stores).
    pub max_words: u32,
    pub sb_cap: usize,
    pub prefetch: bool,
    pub l_min: u64,
    pub jitter: u64,
    /// Latency of a CN's messages to itself (its own logging unit, U2).
    pub local_latency: u64,
    /// Dump period in cycles (0: no dumps).
    pub dump_period: u64,
    /// Size of the first dump region of every unit in 64-byte beats. A unit whose epoch
    /// overflows its region gets a new one twice as large right after it, and a restart.
    pub dump_region_beats: u64,
    /// Extra latency of the dump start message per node (None: random U[0, J] per epoch).
    pub dump_skew: Option<Vec<u64>>,
    pub detect_delay: u64,
    /// Cycles with new stores (the crash happens inside them).
    pub cycles: u64,
    pub warmup: u64,
    pub crash: Crash,
    /// S7: stores each live node commits after RecovEnd.
    pub after_stores: u64,
    /// S7 watchdog: a trial fails when no store commits for this many cycles while stores wait.
    pub watchdog: u64,
    pub script: Vec<ScriptStore>,
    pub seed: u64,
    /// Record the Table I message flow.
    pub trace: bool,
    /// Test hook: the system-model defect a scoreboard must catch.
    pub defect: Defect,
}

/// Deliberate system-model defects (tests show a scoreboard catches them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defect {
    None,
    /// Recovery applies only the newest record of a line (the paper's per-line reading, H5).
    PerLineRecovery,
}

impl Default for SysOptions {
    fn default() -> Self {
        SysOptions {
            variant: Variant::Proactive,
            lines: 24,
            store_rate: 0.02,
            load_rate: 0.002,
            evict_rate: 0.002,
            max_words: 3,
            sb_cap: 8,
            prefetch: true,
            l_min: 50,
            jitter: 40,
            local_latency: 50,
            dump_period: 2_000,
            dump_region_beats: 1 << 18,
            dump_skew: None,
            detect_delay: 200,
            cycles: 6_000,
            warmup: 1_000,
            crash: Crash::Random,
            after_stores: 4,
            watchdog: 20_000,
            script: Vec::new(),
            seed: 1,
            trace: false,
            defect: Defect::None,
        }
    }
}

/// Everything one trial measured and checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)] // result files written before a counter existed still load (counter 0)
pub struct Trial {
    pub cycles: u64,
    pub commits: u64,
    pub crashed: Option<u32>,
    pub crash_cycle: u64,
    /// Lines owned by the crashed node at InitRecov, and words recovered from logs / dumps.
    pub owned_lines: u64,
    pub words_from_logs: u64,
    pub words_from_dumps: u64,
    /// The crashed node's partially validated store: present, and applied (logged somewhere live).
    pub partial: bool,
    pub partial_applied: bool,
    /// Detection (Viral_Status + MSI) → RecovEndResp at the CM, cycles.
    pub recovery_cycles: u64,
    pub fetch_batches: u64,
    /// Replication messages and their field bits, over stores fully before or after the crash.
    pub repl_stores: u64,
    pub repl_msgs: u64,
    pub repl_bits: u64,
    pub nack_retries: u64,
    pub coh_msgs: u64,
    /// Loads sent (GetS), S grants, invalidations sent, silent S evictions, M writebacks.
    pub loads: u64,
    pub shared_grants: u64,
    pub invalidations: u64,
    pub clean_evictions: u64,
    pub writebacks: u64,
    /// Lines whose sharer mask held the failed CN at InitRecov (S2 then removes it).
    pub failed_shared_lines: u64,
    /// Stores by live nodes whose replica group held the crashed node, started after Interrupt.
    pub degraded_stores: u64,
    pub degraded_msgs: u64,
    /// Hazards counted, not asserted: ambiguous VAL matches (LU counter 7), undecidable merges
    /// (csn_bits = 0), cross-writer log inversions (adversarial fabric, H3).
    pub ambiguous: u64,
    /// Records logged with another update's data because of an ambiguous match (tag_bits = 0).
    pub mislogged: u64,
    pub undecidable: u64,
    pub inversions: u64,
    pub row_hwm: u64,
    pub log_hwm: u64,
    pub dump_beats: u64,
    pub records_dumped: u64,
    /// Dump epochs that overflowed their region (each then restarted in a new region).
    pub dump_overflows: u64,
    pub records_logged: u64,
    /// PENDING rows of the failed CN discarded by live units (LU counter 16).
    pub discarded: u64,
    /// REPL_ACKs of the failed replica treated as received at Interrupt (U10).
    pub forced_acks: u64,
    /// Home transactions waiting on the failed owner's snoop, aborted and retried (U10).
    pub retried_rdx: u64,
    pub rescan_records: u64,
    pub epochs: u64,
    pub store_wait_cycles: u64,
    pub stores_after_recovery: u64,
    pub rtl_mismatches: u64,
    /// Scoreboard violations, "Sx: what".
    pub violations: Vec<String>,
    /// Table I, one line per message (when `trace`).
    pub trace: Vec<String>,
}

impl Trial {
    pub fn ok(&self) -> bool {
        self.violations.is_empty() && self.rtl_mismatches == 0
    }
    pub fn has(&self, board: &str) -> bool {
        self.violations.iter().any(|v| v.starts_with(board))
    }
}

// ---- messages ------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Dst {
    Cn(u32),
    Home(u32),
}

#[derive(Debug, Clone)]
enum Msg {
    RdX { line: u64, node: u32 },
    GetS { line: u64, node: u32 },
    Inv { line: u64 },
    InvAck { line: u64, node: u32 },
    Snoop { line: u64, excl: bool },
    SnoopResp { line: u64, node: u32, data: Vec<u64> },
    PutM { line: u64, node: u32, data: Vec<u64> },
    /// `snooped`: the PutM answered a snoop of the home, which may still reach the CN.
    WbAck { line: u64, snooped: bool },
    Grant { line: u64, data: Vec<u64>, excl: bool },
    Repl { node: u32, core: u32, tag: u32, at_head: bool, line: u64, mask: u32, data: Bits },
    Ack { from: u32, core: u32, tag: u32, line: u64, nack: bool },
    Val { node: u32, core: u32, tag: u32, line: u64, ts: u32, csn: u32 },
    DumpStart,
    DumpCommit,
    Interrupt,
    InterruptResp { node: u32 },
    InitRecov,
    Fetch { home: u32, lines: Vec<u64> },
    FetchResp { node: u32, recs: Vec<(u64, Record)> },
    InitRecovResp { home: u32 },
    RecovEnd,
    RecovEndResp { node: u32 },
}

// ---- compute nodes ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AckSt {
    NotSent,
    Pending,
    Acked,
}

#[derive(Debug, Clone)]
struct Entry {
    id: usize,
    line: u64,
    mask: u32,
    vals: Vec<u64>,
    tag: u32,
    dests: Vec<u32>,
    acks: Vec<AckSt>,
    /// VALs sent so far (index into dests); the store commits after the last.
    vals_sent: usize,
    csn: u32,
    holding: bool,
    wt_wait: u64,
    enter: u64,
}

#[derive(Debug, Clone, Default)]
struct Core {
    sb: VecDeque<Entry>,
    next_tag: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    M,
    S,
}

struct Cn {
    alive: bool,
    cores: Vec<Core>,
    cache: HashMap<u64, (Line, Vec<u64>)>,
    rdx_pending: HashSet<u64>,
    /// Lines written back (PutM sent) whose WbAck has not arrived: no new request for them.
    wb_pending: HashSet<u64>,
    /// Per line: snoops answered by a writeback still to arrive (> 0, dropped when they do), or
    /// dropped before the WbAck told they were answered (< 0).
    stale_snoops: HashMap<u64, i64>,
    deferred: Vec<(u64, bool)>,
    ts: Vec<u32>,
    csn: u32,
    lu: Box<dyn LuNode>,
    repl_in: VecDeque<Msg>,
    val_in: VecDeque<Msg>,
    log: Vec<Bits>,
    reads: VecDeque<(u64, Bits)>,
    region: BTreeMap<u64, Bits>,
    /// The dump regions the unit was given, (base, bytes), oldest first (the last is in use).
    regions: Vec<(u64, u64)>,
    /// A new region was supplied after an overflow and the restart has not cleared
    /// st_dump_overflow yet (the region may change again only after that).
    restarting: bool,
    dump_start: bool,
    dump_commit: bool,
    failed: NodeMask,
    quiesce: bool,
    paused: bool,
    interrupted: bool,
    fq: VecDeque<(u64, bool, u32)>,
    fetch_homes: VecDeque<u32>,
    fr: Vec<(u64, Record)>,
    outs: Option<LuOutputs>,
    commits: u64,
    commits_at_end_of_recovery: u64,
}

// ---- homes -----------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
enum Dir {
    I,
    S(u64),
    M(u32),
}

#[derive(Debug, Clone)]
struct Txn {
    excl: bool,
    req: u32,
    acks: u64,
    snoop: Option<u32>,
}

#[derive(Default)]
struct Home {
    dir: HashMap<u64, Dir>,
    busy: HashMap<u64, Txn>,
    queue: HashMap<u64, VecDeque<(bool, u32)>>,
    recovering: bool,
    /// Recovery: lines owned by the failed node, and the fetch responses per line per member.
    owned: Vec<u64>,
    expect: usize,
    got: HashMap<u64, Vec<(u32, Vec<Record>)>>,
}

/// The whole system.
pub struct System {
    b: RecxlLoggingUnitBlock,
    o: SysOptions,
    shape: MapShape,
    words: usize,
    n: u32,
    cn: Vec<Cn>,
    homes: Vec<Home>,
    mem: HashMap<u64, Vec<u64>>,
    fabric: BTreeMap<(u64, u64), (Dst, Msg)>,
    seq: u64,
    now: u64,
    rng: SplitMix64,
    failed: NodeMask,
    // Golden model and bookkeeping.
    golden: HashMap<u64, Vec<u64>>,
    stores: Vec<StoreInfo>,
    commit_seq: u64,
    expect: HashMap<(u32, u32), VecDeque<Expected>>,
    logged: HashMap<(u32, usize), u32>,
    unit_hist: HashMap<(u32, u64), Vec<usize>>,
    // Coordinator.
    coord_waiting: bool,
    start_inflight: u64,
    // Crash / recovery.
    crash_at: Option<(u32, u64)>,
    detect_at: Option<u64>,
    cm: u32,
    int_resp: HashSet<u32>,
    recov_resp: HashSet<u32>,
    home_resp: HashSet<u32>,
    recovered_at: Option<u64>,
    rec_state: u8,
    last_commit: u64,
    /// The last commit: writer, line, cycle.
    last_commit_by: Option<(u32, u64, u64)>,
    t: Trial,
}

#[derive(Debug, Clone)]
struct StoreInfo {
    node: u32,
    line: u64,
    mask: u32,
    vals: Vec<u64>,
    csn: u32,
    commit: Option<u64>,
    val_to: Vec<u32>,
    /// Cycle each VAL was sent (same order as val_to) and the commit cycle (diagnostics).
    val_at: Vec<u64>,
    commit_at: u64,
    msgs: u64,
    bits: u64,
    nacks: u64,
    straddle: bool,
    degraded: bool,
}

/// A store whose VAL went to a unit: its id and the (word, value) records still to come.
type Expected = (usize, Vec<(u32, u64)>);

/// Per-message field bits (contract §5.4; §4.4 widths) plus this header, for the traffic figures.
pub const HEADER_BITS: u64 = 0;

impl System {
    pub fn new(b: &RecxlLoggingUnitBlock, o: &SysOptions, lus: Vec<Box<dyn LuNode>>) -> Result<System, CampaignError> {
        let n = b.n();
        if lus.len() != n as usize {
            return Err(CampaignError::Config(format!("recxl system: {} logging units for num_nodes = {n}", lus.len())));
        }
        if o.variant == Variant::Proactive && b.tag_bits == 0 {
            return Err(CampaignError::Config("recxl system: tag_bits = 0 cannot match VALs when a core has several REPLs outstanding to one line (ReCXL-proactive, §IV-D.4); use tag_bits >= 7 or variant \"baseline\"/\"parallel\"".into()));
        }
        if o.max_words == 0 || o.max_words > b.words() {
            return Err(CampaignError::Config(format!("recxl system: max_words = {} out of range; allowed 1..={} (words per line)", o.max_words, b.words())));
        }
        let lmask = (1u64 << b.la().min(62)) - 1;
        if o.lines == 0 || o.lines >= lmask {
            return Err(CampaignError::Config(format!("recxl system: lines = {} out of range; allowed 1..{lmask}", o.lines)));
        }
        let words = b.words() as usize;
        let cn = lus
            .into_iter()
            .enumerate()
            .map(|(k, lu)| Cn {
                alive: true,
                cores: vec![Core::default(); b.cores_per_node as usize],
                cache: HashMap::new(),
                rdx_pending: HashSet::new(),
                wb_pending: HashSet::new(),
                stale_snoops: HashMap::new(),
                deferred: Vec::new(),
                ts: vec![0; n as usize],
                csn: 0,
                lu,
                repl_in: VecDeque::new(),
                val_in: VecDeque::new(),
                log: vec![Bits::zeros(b.rec() as usize); b.lr() as usize],
                reads: VecDeque::new(),
                region: BTreeMap::new(),
                regions: vec![(Self::region_base(k as u32), 64 * o.dump_region_beats)],
                restarting: false,
                dump_start: false,
                dump_commit: false,
                failed: NodeMask::empty(),
                quiesce: false,
                paused: false,
                interrupted: false,
                fq: VecDeque::new(),
                fetch_homes: VecDeque::new(),
                fr: Vec::new(),
                outs: None,
                commits: 0,
                commits_at_end_of_recovery: 0,
            })
            .collect();
        Ok(System {
            b: b.clone(),
            o: o.clone(),
            shape: b.shape.map(),
            words,
            n,
            cn,
            homes: (0..n).map(|_| Home::default()).collect(),
            mem: HashMap::new(),
            fabric: BTreeMap::new(),
            seq: 0,
            now: 0,
            rng: SplitMix64::new(o.seed),
            failed: NodeMask::empty(),
            golden: HashMap::new(),
            stores: Vec::new(),
            commit_seq: 0,
            expect: HashMap::new(),
            logged: HashMap::new(),
            unit_hist: HashMap::new(),
            coord_waiting: false,
            start_inflight: 0,
            crash_at: None,
            detect_at: None,
            cm: 0,
            int_resp: HashSet::new(),
            recov_resp: HashSet::new(),
            home_resp: HashSet::new(),
            recovered_at: None,
            rec_state: 0,
            last_commit: 0,
            last_commit_by: None,
            t: Trial::default(),
        })
    }

    fn region_base(node: u32) -> u64 {
        (node as u64 + 1) << 24
    }

    /// Unit `k`'s epoch overflowed its region: the software gives it a new region twice as
    /// large right after the old one (whose MN memory keeps its committed epochs) and restarts
    /// the epoch with `ctl_dump_start`. False when the unit's address range is used up.
    fn supply_region(&mut self, k: u32) -> bool {
        let c = &mut self.cn[k as usize];
        let (base, bytes) = *c.regions.last().expect("a region");
        let next = (base + bytes, 2 * bytes);
        if next.0 + next.1 > Self::region_base(k + 1) {
            return false;
        }
        c.regions.push(next);
        c.restarting = true;
        self.t.dump_overflows += 1;
        true
    }

    /// Unit `k` shows an overflowed epoch, no traversal, and no restart on its way (the outputs
    /// seen are those of the last cycle stepped, so a restart already sent shows as overflowed
    /// until the unit takes it).
    fn overflowed(&self, k: u32) -> bool {
        let c = &self.cn[k as usize];
        !c.restarting && !c.dump_start && c.outs.as_ref().is_some_and(|o| o.st_dump_overflow && !o.st_dump_busy)
    }

    fn dw_mask(&self) -> u64 {
        if self.b.dw() >= 64 {
            u64::MAX
        } else {
            (1 << self.b.dw()) - 1
        }
    }

    fn csn_mask(&self) -> u32 {
        match self.b.csn_bits {
            0 => 0,
            32 => u32::MAX,
            w => (1 << w) - 1,
        }
    }

    // ---- fabric ----

    fn send(&mut self, from: Option<u32>, dst: Dst, m: Msg) {
        let local = matches!((from, dst), (Some(a), Dst::Cn(b)) if a == b);
        // The writer's own unit sits behind its CXL port: its REPL/VAL take one switch traversal
        // (L_min, no jitter). A 1-cycle local path breaks A1 for the writer's own log (finding).
        let lat = if local { self.o.local_latency } else { self.o.l_min + self.rng.range(0, self.o.jitter) };
        self.send_at(self.now + lat, dst, m);
    }

    fn send_at(&mut self, t: u64, dst: Dst, m: Msg) {
        if self.o.trace && matches!(m, Msg::Interrupt | Msg::InterruptResp { .. } | Msg::InitRecov | Msg::Fetch { .. } | Msg::FetchResp { .. } | Msg::InitRecovResp { .. } | Msg::RecovEnd | Msg::RecovEndResp { .. }) {
            let what = match &m {
                Msg::Fetch { home, lines } => format!("FetchLatestVers home {home} → CN, {} lines", lines.len()),
                Msg::FetchResp { node, recs } => format!("FetchLatestVersResp CN {node} → home, {} records", recs.len()),
                other => format!("{other:?}"),
            };
            self.t.trace.push(format!("cycle {:>7} → {:>7}: {what} to {dst:?}", self.now, t));
        }
        self.seq += 1;
        self.fabric.insert((t, self.seq), (dst, m));
    }

    fn line_bits(&self, k: u64) -> (u64, u64, u64) {
        // REPL, ACK, VAL field bits (contract §5.4).
        let (nb, cb, tg, la, w) = (self.b.nb() as u64, self.b.cb() as u64, self.b.tag_bits as u64, self.b.la() as u64, self.b.words() as u64);
        let repl = nb + cb + tg + self.b.nack_enable as u64 + la + w + self.b.dw() as u64 * k;
        let ack = nb + cb + tg + la + self.b.nack_enable as u64;
        let val = nb + cb + tg + la + self.b.ts_bits as u64 + self.b.csn_bits as u64;
        (repl + HEADER_BITS, ack + HEADER_BITS, val + HEADER_BITS)
    }

    // ---- the run ----

    pub fn run(mut self) -> Result<Trial, CampaignError> {
        let o = self.o.clone();
        if let Crash::At { node, cycle } = o.crash {
            self.crash_at = Some((node, cycle));
        }
        if o.crash == Crash::Random {
            let node = self.rng.range(0, self.n as u64 - 1) as u32;
            let cycle = self.rng.range(o.warmup, o.cycles.max(o.warmup + 1) - 1);
            self.crash_at = Some((node, cycle));
        }
        let mut script: VecDeque<ScriptStore> = o.script.iter().cloned().collect();
        let hard_end = o.cycles + o.watchdog * 4 + 200_000;
        loop {
            // Crash.
            self.check_crash();
            // Deliver messages due now.
            while let Some((&k, _)) = self.fabric.iter().next() {
                if k.0 > self.now {
                    break;
                }
                let (dst, m) = self.fabric.remove(&k).expect("present");
                self.deliver(dst, m);
            }
            // Detection.
            if self.detect_at == Some(self.now) {
                self.detect();
            }
            // Workload.
            let traffic = self.now < o.cycles;
            while script.front().is_some_and(|s| s.cycle <= self.now) {
                let s = script.pop_front().expect("front");
                self.deposit(s.node, s.core, s.line, s.mask, Some(s.value));
            }
            if o.script.is_empty() {
                self.random_traffic(traffic);
            }
            for n in 0..self.n {
                if self.cn[n as usize].alive {
                    self.step_cores(n);
                    self.retry_snoops(n);
                }
            }
            self.coordinator();
            for n in 0..self.n {
                if self.cn[n as usize].alive {
                    self.step_lu(n)?;
                }
            }
            self.recovery_progress();
            self.now += 1;
            // End: traffic over, recovered (if crashed), every SB empty, LUs idle.
            let recovered = self.crash_at.is_none_or(|(_, c)| c >= o.cycles.max(self.now) || self.recovered_at.is_some());
            let after_ok = self.recovered_at.is_none() || self.after_recovery_done();
            if self.now >= o.cycles && recovered && after_ok && self.quiet() {
                break;
            }
            let waiting = self.cn.iter().any(|c| c.alive && !c.paused && c.cores.iter().any(|k| !k.sb.is_empty()));
            if waiting && self.now - self.last_commit > o.watchdog && self.rec_state == 0 {
                self.t.violations.push(format!("S7: no store committed for {} cycles (deadlock) at cycle {}: {}", o.watchdog, self.now, self.stuck()));
                break;
            }
            if self.now > hard_end {
                self.t.violations.push(format!("S7: trial did not finish by cycle {hard_end}"));
                break;
            }
        }
        self.final_epoch()?;
        self.check_all();
        self.t.cycles = self.now;
        self.t.rtl_mismatches = self.cn.iter().map(|c| c.lu.mismatches()).sum();
        for c in &self.cn {
            let m = c.lu.model();
            self.t.ambiguous += m.counter(ctr::VAL_AMBIGUOUS);
            self.t.row_hwm = self.t.row_hwm.max(m.counter(ctr::ROW_HWM));
            self.t.log_hwm = self.t.log_hwm.max(m.counter(ctr::LOG_HWM));
            self.t.dump_beats += m.counter(ctr::BEATS);
            self.t.records_dumped += m.counter(ctr::DUMPED);
            self.t.records_logged += m.counter(ctr::LOGGED);
            self.t.discarded += m.counter(ctr::DISCARDED);
            self.t.epochs = self.t.epochs.max(m.epoch() as u64);
        }
        Ok(self.t)
    }

    /// The waiting SB heads, for the watchdog's message.
    fn stuck(&self) -> String {
        let mut out = Vec::new();
        for (n, c) in self.cn.iter().enumerate() {
            if !c.alive {
                continue;
            }
            for (k, core) in c.cores.iter().enumerate() {
                if let Some(e) = core.sb.front() {
                    let h = &self.homes[(e.line % self.n as u64) as usize];
                    out.push(format!(
                        "CN {n}.{k} line {:#x} cache {:?} rdx {} acks {:?} vals {} paused {} | home {:?} busy {:?} queue {:?} deferred {:?}",
                        e.line,
                        c.cache.get(&e.line).map(|x| x.0),
                        c.rdx_pending.contains(&e.line),
                        e.acks,
                        e.vals_sent,
                        c.paused,
                        h.dir.get(&e.line),
                        h.busy.get(&e.line),
                        h.queue.get(&e.line),
                        c.deferred
                    ));
                }
            }
        }
        out.join("; ")
    }

    fn after_recovery_done(&self) -> bool {
        self.cn.iter().all(|c| !c.alive || c.commits - c.commits_at_end_of_recovery >= self.o.after_stores || self.o.script.len() as u64 > 0)
    }

    fn quiet(&self) -> bool {
        self.fabric.is_empty()
            && self.cn.iter().all(|c| {
                !c.alive || (c.cores.iter().all(|k| k.sb.is_empty()) && c.repl_in.is_empty() && c.val_in.is_empty() && c.lu.model().rows_used() == 0 && c.outs.as_ref().is_some_and(|o| !o.logw_valid))
            })
    }

    fn random_traffic(&mut self, traffic: bool) {
        let after = self.recovered_at.is_some();
        for n in 0..self.n {
            let c = &self.cn[n as usize];
            if !c.alive || c.paused {
                continue;
            }
            let need_more = traffic || (after && c.commits - c.commits_at_end_of_recovery < self.o.after_stores);
            if !need_more {
                continue;
            }
            // No draw at rate 0: trials without evictions keep their random sequence.
            if !c.interrupted && self.o.evict_rate > 0.0 && self.rng.chance(self.o.evict_rate) {
                self.evict(n);
            }
            for k in 0..self.b.cores_per_node {
                if self.rng.chance(self.o.store_rate) && self.cn[n as usize].cores[k as usize].sb.len() < self.o.sb_cap {
                    let line = self.rng.range(1, self.o.lines);
                    let nw = self.rng.range(1, self.o.max_words as u64) as u32;
                    let mut mask = 0u32;
                    let first = self.rng.range(0, (self.words as u64).saturating_sub(nw as u64)) as u32;
                    for w in 0..nw {
                        mask |= 1 << (first + w);
                    }
                    self.deposit(n, k, line, mask, None);
                }
                if self.rng.chance(self.o.load_rate) {
                    let line = self.rng.range(1, self.o.lines);
                    let c = &mut self.cn[n as usize];
                    if !c.cache.contains_key(&line) && !c.rdx_pending.contains(&line) && !c.wb_pending.contains(&line) {
                        c.rdx_pending.insert(line);
                        self.t.coh_msgs += 1;
                        self.t.loads += 1;
                        self.send(Some(n), Dst::Home((line % self.n as u64) as u32), Msg::GetS { line, node: n });
                    }
                }
            }
        }
    }

    /// Evict one random line that nothing in flight uses: S silently, M with a writeback.
    fn evict(&mut self, n: u32) {
        let c = &self.cn[n as usize];
        let busy = |l: u64| c.rdx_pending.contains(&l) || c.wb_pending.contains(&l) || c.deferred.iter().any(|d| d.0 == l) || c.cores.iter().any(|k| k.sb.iter().any(|e| e.line == l));
        let mut cand: Vec<u64> = c.cache.keys().copied().filter(|l| !busy(*l)).collect();
        if cand.is_empty() {
            return;
        }
        cand.sort_unstable();
        let line = cand[self.rng.range(0, cand.len() as u64 - 1) as usize];
        let c = &mut self.cn[n as usize];
        let (st, data) = c.cache.remove(&line).expect("cached");
        if st == Line::S {
            self.t.clean_evictions += 1;
            return;
        }
        c.wb_pending.insert(line);
        self.t.writebacks += 1;
        self.t.coh_msgs += 1;
        self.send(Some(n), Dst::Home((line % self.n as u64) as u32), Msg::PutM { line, node: n, data });
    }

    fn deposit(&mut self, n: u32, k: u32, line: u64, mask: u32, value: Option<u64>) {
        let dwm = self.dw_mask();
        let vals: Vec<u64> = (0..self.words).map(|w| if mask >> w & 1 == 1 { value.unwrap_or_else(|| self.rng.next_u64()) & dwm } else { 0 }).collect();
        let id = self.stores.len();
        let set = self.shape.map(line, &NodeMask::empty());
        let dests: Vec<u32> = set.nodes.iter().copied().filter(|d| !self.failed.has(*d) || !self.cn[n as usize].interrupted).collect();
        let tagm = if self.b.tag_bits == 0 { 0 } else { (1u32 << self.b.tag_bits) - 1 };
        let core = &mut self.cn[n as usize].cores[k as usize];
        let tag = core.next_tag & tagm;
        core.next_tag = core.next_tag.wrapping_add(1);
        let degraded = dests.len() < set.nodes.len();
        self.stores.push(StoreInfo { node: n, line, mask, vals: vals.clone(), csn: 0, commit: None, val_to: Vec::new(), val_at: Vec::new(), commit_at: 0, msgs: 0, bits: 0, nacks: 0, straddle: false, degraded });
        let e = Entry { id, line, mask, vals, tag, acks: vec![AckSt::NotSent; dests.len()], dests, vals_sent: 0, csn: 0, holding: false, wt_wait: 0, enter: self.now };
        let head = core.sb.is_empty();
        core.sb.push_back(e);
        if head {
            // The watchdog counts from the later of the last commit and this store's arrival.
            self.last_commit = self.last_commit.max(self.now.saturating_sub(self.o.watchdog / 2));
        }
        let c = &mut self.cn[n as usize];
        if self.o.prefetch && !matches!(c.cache.get(&line), Some((Line::M, _))) && !c.rdx_pending.contains(&line) && !c.wb_pending.contains(&line) {
            c.rdx_pending.insert(line);
            self.t.coh_msgs += 1;
            self.send(Some(n), Dst::Home((line % self.n as u64) as u32), Msg::RdX { line, node: n });
        }
        if self.o.variant == Variant::Proactive {
            let idx = self.cn[n as usize].cores[k as usize].sb.len() - 1;
            self.send_repls(n, k, idx, head);
        }
    }

    fn send_repls(&mut self, n: u32, k: u32, idx: usize, at_head: bool) {
        let e = self.cn[n as usize].cores[k as usize].sb[idx].clone();
        let dw = self.b.dw() as usize;
        let mut data = Bits::zeros(self.b.lw() as usize);
        for w in 0..self.words {
            if e.mask >> w & 1 == 1 {
                data.set_field(w * dw, dw, e.vals[w]);
            }
        }
        let (rb, _, _) = self.line_bits(e.mask.count_ones() as u64);
        for (j, d) in e.dests.iter().enumerate() {
            if e.acks[j] != AckSt::NotSent {
                continue;
            }
            if self.failed.has(*d) && self.cn[n as usize].interrupted {
                self.cn[n as usize].cores[k as usize].sb[idx].acks[j] = AckSt::Acked;
                continue;
            }
            self.cn[n as usize].cores[k as usize].sb[idx].acks[j] = AckSt::Pending;
            self.stores[e.id].msgs += 1;
            self.stores[e.id].bits += rb;
            self.send(Some(n), Dst::Cn(*d), Msg::Repl { node: n, core: k, tag: e.tag, at_head, line: e.line, mask: e.mask, data: data.clone() });
        }
    }

    fn step_cores(&mut self, n: u32) {
        let v = self.o.variant;
        if self.cn[n as usize].paused {
            return;
        }
        for k in 0..self.b.cores_per_node {
            let Some(e) = self.cn[n as usize].cores[k as usize].sb.front().cloned() else { continue };
            let c = &self.cn[n as usize];
            let owned = matches!(c.cache.get(&e.line), Some((Line::M, _)));
            if c.interrupted && c.quiesce && !(owned && e.vals_sent > 0) {
                // Interrupt: finish only what is under way (a store sending its VALs).
                if !(owned && e.acks.iter().all(|a| *a == AckSt::Acked) && e.holding) {
                    continue;
                }
            }
            if !owned && !c.rdx_pending.contains(&e.line) && !c.wb_pending.contains(&e.line) {
                self.cn[n as usize].rdx_pending.insert(e.line);
                self.t.coh_msgs += 1;
                self.send(Some(n), Dst::Home((e.line % self.n as u64) as u32), Msg::RdX { line: e.line, node: n });
            }
            if v.replicated() {
                let may_repl = match v {
                    Variant::Baseline => owned,
                    _ => true,
                };
                if may_repl && e.acks.contains(&AckSt::NotSent) {
                    self.send_repls(n, k, 0, true);
                }
            }
            if !owned {
                continue;
            }
            self.cn[n as usize].cores[k as usize].sb[0].holding = true;
            let e = self.cn[n as usize].cores[k as usize].sb[0].clone();
            let ready = match v {
                Variant::Wb => true,
                Variant::Wt => {
                    if e.wt_wait == 0 {
                        self.cn[n as usize].cores[k as usize].sb[0].wt_wait = self.now + 350;
                    }
                    e.wt_wait != 0 && self.now >= e.wt_wait
                }
                _ => e.acks.iter().all(|a| *a == AckSt::Acked),
            };
            if !ready {
                continue;
            }
            if v.replicated() && e.vals_sent < e.dests.len() {
                let j = e.vals_sent;
                if j == 0 {
                    let c = &mut self.cn[n as usize];
                    c.csn = c.csn.wrapping_add(1);
                    let csn = c.csn;
                    c.cores[k as usize].sb[0].csn = csn;
                    self.stores[e.id].csn = csn;
                    if c.interrupted && !self.stores[e.id].degraded {
                        self.stores[e.id].straddle = true;
                    }
                }
                let csn = self.cn[n as usize].cores[k as usize].sb[0].csn;
                // One VAL per cycle; VALs to a replica known to have failed are skipped without
                // taking a cycle (the store commits with the last live VAL).
                let mut j = j;
                let mut sent = false;
                while j < e.dests.len() {
                    let d = e.dests[j];
                    let dead = self.failed.has(d) && self.cn[n as usize].interrupted;
                    if dead {
                        self.stores[e.id].straddle |= !self.stores[e.id].degraded;
                        j += 1;
                        continue;
                    }
                    if sent {
                        break;
                    }
                    sent = true;
                    j += 1;
                    let c = &mut self.cn[n as usize];
                    c.ts[d as usize] = c.ts[d as usize].wrapping_add(1);
                    let tsm = if self.b.ts_bits >= 32 { u32::MAX } else { (1 << self.b.ts_bits) - 1 };
                    let ts = c.ts[d as usize] & tsm;
                    let (_, _, vb) = self.line_bits(0);
                    self.stores[e.id].msgs += 1;
                    self.stores[e.id].bits += vb;
                    self.stores[e.id].val_to.push(d);
                    self.stores[e.id].val_at.push(self.now);
                    let words: Vec<(u32, u64)> = (0..self.words as u32).filter(|w| e.mask >> w & 1 == 1).map(|w| (w, e.vals[w as usize])).collect();
                    self.expect.entry((d, n)).or_default().push_back((e.id, words));
                    self.send(Some(n), Dst::Cn(d), Msg::Val { node: n, core: k, tag: e.tag, line: e.line, ts, csn: csn & self.csn_mask() });
                }
                self.cn[n as usize].cores[k as usize].sb[0].vals_sent = j;
                if j < e.dests.len() {
                    continue;
                }
            }
            // Commit.
            let c = &mut self.cn[n as usize];
            let entry = c.cores[k as usize].sb.pop_front().expect("head");
            let data = &mut c.cache.get_mut(&entry.line).expect("owned").1;
            let g = self.golden.entry(entry.line).or_insert_with(|| vec![0; self.words]);
            for w in 0..self.words {
                if entry.mask >> w & 1 == 1 {
                    data[w] = entry.vals[w];
                    g[w] = entry.vals[w];
                }
            }
            c.commits += 1;
            self.commit_seq += 1;
            self.stores[entry.id].commit = Some(self.commit_seq);
            self.stores[entry.id].commit_at = self.now;
            self.t.commits += 1;
            self.t.store_wait_cycles += self.now - entry.enter;
            self.last_commit = self.now;
            self.last_commit_by = Some((n, entry.line, self.now));
        }
    }

    fn holds(&self, n: u32, line: u64) -> bool {
        self.cn[n as usize].cores.iter().any(|k| k.sb.front().is_some_and(|e| e.line == line && e.holding))
    }

    fn retry_snoops(&mut self, n: u32) {
        let pending = std::mem::take(&mut self.cn[n as usize].deferred);
        for (line, excl) in pending {
            self.snoop(n, line, excl);
        }
    }

    fn snoop(&mut self, n: u32, line: u64, excl: bool) {
        let c = &self.cn[n as usize];
        let has = matches!(c.cache.get(&line), Some((Line::M, _)));
        let stale = c.stale_snoops.get(&line).copied().unwrap_or(0);
        if stale > 0 || (!has && c.wb_pending.contains(&line)) {
            // The line was written back: the home took the PutM as this snoop's answer. (A WbAck
            // can overtake the snoop; the count keeps a late snoop from taking a re-acquired line.)
            let e = self.cn[n as usize].stale_snoops.entry(line).or_insert(0);
            *e -= 1;
            if *e == 0 {
                self.cn[n as usize].stale_snoops.remove(&line);
            }
            return;
        }
        if !has || self.holds(n, line) {
            // The grant is still in flight, or a store between RdX_ACK and VAL holds the line (U15).
            self.cn[n as usize].deferred.push((line, excl));
            return;
        }
        let c = &mut self.cn[n as usize];
        let data = c.cache.get(&line).expect("has").1.clone();
        if excl {
            c.cache.remove(&line);
        } else {
            c.cache.get_mut(&line).expect("has").0 = Line::S;
        }
        for k in c.cores.iter_mut() {
            for e in k.sb.iter_mut() {
                if e.line == line {
                    e.holding = false;
                }
            }
        }
        self.t.coh_msgs += 1;
        self.send(Some(n), Dst::Home((line % self.n as u64) as u32), Msg::SnoopResp { line, node: n, data });
    }

    // ---- delivery ----

    fn deliver(&mut self, dst: Dst, m: Msg) {
        match dst {
            Dst::Cn(n) => {
                if matches!(m, Msg::DumpStart) && !self.cn[n as usize].alive {
                    self.start_inflight -= 1;
                }
                if !self.cn[n as usize].alive {
                    return;
                }
                self.deliver_cn(n, m)
            }
            Dst::Home(h) => self.deliver_home(h, m),
        }
    }

    fn deliver_cn(&mut self, n: u32, m: Msg) {
        match m {
            Msg::Repl { .. } => self.cn[n as usize].repl_in.push_back(m),
            Msg::Val { .. } => self.cn[n as usize].val_in.push_back(m),
            Msg::Ack { from, core, tag, line, nack } => {
                let ack_bits = self.line_bits(0).1;
                let c = &mut self.cn[n as usize];
                let mut nacked = None;
                for (i, e) in c.cores[core as usize].sb.iter_mut().enumerate() {
                    if e.line == line && (self.b.tag_bits == 0 || e.tag == tag) {
                        if let Some(j) = e.dests.iter().position(|d| *d == from) {
                            if e.acks[j] == AckSt::Pending {
                                e.acks[j] = if nack { AckSt::NotSent } else { AckSt::Acked };
                                if nack {
                                    nacked = Some(e.id);
                                }
                                self.stores[e.id].msgs += 1;
                                self.stores[e.id].bits += ack_bits;
                                let _ = i;
                                break;
                            }
                        }
                    }
                }
                if let Some(id) = nacked {
                    self.stores[id].nacks += 1;
                    self.t.nack_retries += 1;
                }
            }
            Msg::Grant { line, data, excl } => {
                let c = &mut self.cn[n as usize];
                c.rdx_pending.remove(&line);
                if !matches!(c.cache.get(&line), Some((Line::M, _))) {
                    c.cache.insert(line, (if excl { Line::M } else { Line::S }, data));
                }
            }
            Msg::Snoop { line, excl } => self.snoop(n, line, excl),
            Msg::WbAck { line, snooped } => {
                let c = &mut self.cn[n as usize];
                c.wb_pending.remove(&line);
                if snooped {
                    let e = c.stale_snoops.entry(line).or_insert(0);
                    *e += 1;
                    if *e == 0 {
                        c.stale_snoops.remove(&line);
                    }
                }
            }
            Msg::Inv { line } => {
                let c = &mut self.cn[n as usize];
                if matches!(c.cache.get(&line), Some((Line::S, _))) {
                    c.cache.remove(&line);
                }
                self.t.coh_msgs += 1;
                self.send(Some(n), Dst::Home((line % self.n as u64) as u32), Msg::InvAck { line, node: n });
            }
            Msg::DumpStart => {
                self.cn[n as usize].dump_start = true;
                self.start_inflight -= 1;
            }
            Msg::DumpCommit => self.cn[n as usize].dump_commit = true,
            Msg::Interrupt => {
                let failed = self.failed;
                let c = &mut self.cn[n as usize];
                c.interrupted = true;
                c.quiesce = true;
                c.failed = failed;
                // Stores waiting on the failed replica's REPL_ACK treat it as received (U10).
                for k in c.cores.iter_mut() {
                    for e in k.sb.iter_mut() {
                        for (j, d) in e.dests.iter().enumerate() {
                            if failed.has(*d) && e.acks[j] != AckSt::Acked {
                                self.t.forced_acks += (e.acks[j] == AckSt::Pending) as u64;
                                e.acks[j] = AckSt::Acked;
                                self.stores[e.id].straddle = true;
                            }
                        }
                    }
                }
            }
            Msg::InterruptResp { node } => {
                self.int_resp.insert(node);
            }
            Msg::RecovEnd => {
                let c = &mut self.cn[n as usize];
                c.quiesce = false;
                c.paused = false;
                c.commits_at_end_of_recovery = c.commits;
                let cm = self.cm;
                self.send(Some(n), Dst::Cn(cm), Msg::RecovEndResp { node: n });
            }
            Msg::RecovEndResp { node } => {
                self.recov_resp.insert(node);
            }
            Msg::InitRecovResp { home } => {
                self.home_resp.insert(home);
            }
            Msg::Fetch { home, lines } => {
                let c = &mut self.cn[n as usize];
                let k = lines.len();
                for (i, l) in lines.into_iter().enumerate() {
                    c.fq.push_back((l, i + 1 == k, home));
                }
                c.fetch_homes.push_back(home);
            }
            other => unreachable!("CN message {other:?}"),
        }
    }

    fn deliver_home(&mut self, h: u32, m: Msg) {
        match m {
            Msg::RdX { line, node } => self.request(h, line, true, node),
            Msg::GetS { line, node } => self.request(h, line, false, node),
            Msg::InvAck { line, node } => {
                if let Some(t) = self.homes[h as usize].busy.get_mut(&line) {
                    t.acks &= !(1 << node);
                }
                self.try_complete(h, line);
            }
            Msg::SnoopResp { line, node, data } => {
                let waiting = self.homes[h as usize].busy.get(&line).is_some_and(|t| t.snoop == Some(node));
                if waiting {
                    self.mem.insert(line, data);
                    self.homes[h as usize].busy.get_mut(&line).expect("busy").snoop = None;
                    self.try_complete(h, line);
                }
            }
            Msg::PutM { line, node, data } => {
                let home = &mut self.homes[h as usize];
                let snooping = home.busy.get(&line).is_some_and(|t| t.snoop == Some(node));
                if snooping {
                    // The writeback crossed the home's snoop: it answers it, and the old owner
                    // is no sharer.
                    self.mem.insert(line, data);
                    home.dir.insert(line, Dir::I);
                    home.busy.get_mut(&line).expect("busy").snoop = None;
                    self.try_complete(h, line);
                } else if home.dir.get(&line) == Some(&Dir::M(node)) {
                    self.mem.insert(line, data);
                    home.dir.insert(line, Dir::I);
                }
                // Otherwise recovery already rebuilt the line (the writer failed): ignore it.
                self.t.coh_msgs += 1;
                self.send(None, Dst::Cn(node), Msg::WbAck { line, snooped: snooping });
            }
            Msg::InitRecov => self.home_recover(h),
            Msg::FetchResp { node, recs } => {
                let home = &mut self.homes[h as usize];
                let mut per: HashMap<u64, Vec<Record>> = HashMap::new();
                for (l, r) in recs {
                    per.entry(l).or_default().push(r);
                }
                for (l, rs) in per {
                    home.got.entry(l).or_default().push((node, rs));
                }
                home.expect -= 1;
                if home.expect == 0 {
                    self.home_finish(h);
                }
            }
            other => unreachable!("home message {other:?}"),
        }
    }

    fn request(&mut self, h: u32, line: u64, excl: bool, req: u32) {
        let home = &mut self.homes[h as usize];
        if home.busy.contains_key(&line) || home.recovering {
            home.queue.entry(line).or_default().push_back((excl, req));
            return;
        }
        let st = home.dir.get(&line).cloned().unwrap_or(Dir::I);
        let mut t = Txn { excl, req, acks: 0, snoop: None };
        match st {
            Dir::M(o) if o != req => t.snoop = Some(o),
            Dir::S(mask) if excl => t.acks = mask & !(1 << req),
            _ => {}
        }
        home.busy.insert(line, t.clone());
        if let Some(o) = t.snoop {
            self.t.coh_msgs += 1;
            self.send(None, Dst::Cn(o), Msg::Snoop { line, excl });
        }
        for s in 0..self.n {
            if t.acks >> s & 1 == 1 {
                self.t.coh_msgs += 1;
                self.t.invalidations += 1;
                self.send(None, Dst::Cn(s), Msg::Inv { line });
            }
        }
        self.try_complete(h, line);
    }

    fn try_complete(&mut self, h: u32, line: u64) {
        let home = &mut self.homes[h as usize];
        let Some(t) = home.busy.get(&line).cloned() else { return };
        if t.acks != 0 || t.snoop.is_some() {
            return;
        }
        home.busy.remove(&line);
        let st = home.dir.get(&line).cloned().unwrap_or(Dir::I);
        let data = self.mem.get(&line).cloned().unwrap_or_else(|| vec![0; self.words]);
        let new = if self.failed.has(t.req) {
            Dir::I
        } else if t.excl {
            Dir::M(t.req)
        } else {
            let prev = match st {
                Dir::S(m) => m,
                Dir::M(o) => 1 << o,
                Dir::I => 0,
            };
            Dir::S(prev | 1 << t.req)
        };
        home.dir.insert(line, new);
        if !self.failed.has(t.req) {
            self.t.coh_msgs += 1;
            self.t.shared_grants += !t.excl as u64;
            self.send(None, Dst::Cn(t.req), Msg::Grant { line, data, excl: t.excl });
        }
        if let Some((excl, req)) = self.homes[h as usize].queue.get_mut(&line).and_then(|q| q.pop_front()) {
            self.request(h, line, excl, req);
        }
    }

    // ---- logging units ----

    fn step_lu(&mut self, n: u32) -> Result<(), SimError> {
        let b = &self.b;
        let c = &mut self.cn[n as usize];
        let (base, size) = *c.regions.last().expect("a region");
        let mut inp = LuInputs {
            node_id: n,
            failed: c.failed,
            dump_base: base,
            dump_limit: base + size,
            dump_start: std::mem::take(&mut c.dump_start),
            dump_commit: std::mem::take(&mut c.dump_commit),
            quiesce: c.quiesce,
            stat_sel: 0,
            repl_valid: false,
            repl_node: 0,
            repl_core: 0,
            repl_tag: 0,
            repl_at_head: false,
            repl_line: 0,
            repl_mask: 0,
            repl_data: Bits::zeros(b.lw() as usize),
            ack_ready: true,
            val_valid: false,
            val_node: 0,
            val_core: 0,
            val_tag: 0,
            val_line: 0,
            val_ts: 0,
            val_csn: 0,
            logw_ready: true,
            logr_req_ready: c.reads.is_empty(),
            logr_rsp_valid: false,
            logr_rsp_data: Bits::zeros(b.rec() as usize),
            dump_wr_ready: true,
            fq_valid: false,
            fq_line: 0,
            fq_last: false,
            fr_ready: true,
        };
        if let Some(Msg::Repl { node, core, tag, at_head, line, mask, data }) = c.repl_in.front() {
            inp.repl_valid = true;
            inp.repl_node = *node;
            inp.repl_core = *core;
            inp.repl_tag = *tag;
            inp.repl_at_head = *at_head;
            inp.repl_line = *line;
            inp.repl_mask = *mask;
            inp.repl_data = data.clone();
        }
        if let Some(Msg::Val { node, core, tag, line, ts, csn }) = c.val_in.front() {
            inp.val_valid = true;
            inp.val_node = *node;
            inp.val_core = *core;
            inp.val_tag = *tag;
            inp.val_line = *line;
            inp.val_ts = *ts;
            inp.val_csn = *csn;
        }
        if let Some((t, d)) = c.reads.front() {
            if *t <= self.now {
                inp.logr_rsp_valid = true;
                inp.logr_rsp_data = d.clone();
            }
        }
        if let Some((l, last, _)) = c.fq.front() {
            inp.fq_valid = true;
            inp.fq_line = *l;
            inp.fq_last = *last;
        }
        let o = c.lu.outputs(&inp, self.now)?;
        if inp.repl_valid && o.repl_ready {
            c.repl_in.pop_front();
        }
        if inp.val_valid {
            c.val_in.pop_front();
        }
        if inp.logr_rsp_valid && o.logr_rsp_ready {
            c.reads.pop_front();
        }
        if o.logr_req_valid && inp.logr_req_ready {
            c.reads.push_back((self.now + 2, c.log[o.logr_req_idx as usize].clone()));
        }
        if o.dump_wr_valid {
            c.region.insert(o.dump_wr_addr, o.dump_wr_data.clone());
        }
        if inp.fq_valid && o.fq_ready {
            c.fq.pop_front();
        }
        let mut fetch_done = None;
        if o.fr_valid {
            if o.fr_match {
                c.fr.push((o.fr_line, Record { value: o.fr_data, line: o.fr_line, word: o.fr_word, core: o.fr_core, node: o.fr_node, csn: o.fr_csn, valid: true }));
            }
            if o.fr_last {
                fetch_done = Some(std::mem::take(&mut c.fr));
            }
        }
        let ack = if o.ack_valid { Some((o.ack_node, o.ack_core, o.ack_tag, o.ack_line, o.ack_nack)) } else { None };
        let logw = if o.logw_valid { Some((o.logw_idx, o.logw_data.clone())) } else { None };
        c.lu.tick(&inp);
        if !o.st_dump_overflow {
            c.restarting = false;
        }
        c.outs = Some(o);
        if let Some((idx, data)) = logw {
            c.log[idx as usize] = data.clone();
            self.on_record(n, &data);
        }
        if let Some((dn, core, tag, line, nack)) = ack {
            self.send(Some(n), Dst::Cn(dn), Msg::Ack { from: n, core, tag, line, nack });
        }
        if let Some(recs) = fetch_done {
            let home = self.cn[n as usize].fetch_homes.pop_front().expect("a batch was loaded");
            self.t.fetch_batches += 1;
            self.send(Some(n), Dst::Home(home), Msg::FetchResp { node: n, recs });
        }
        Ok(())
    }

    /// A record entered unit `u`'s DRAM log: it must be the next expected word of its source (in
    /// TS order, S6: only validated updates), carry the store's CSN, and keep line order (S4).
    fn on_record(&mut self, u: u32, data: &Bits) {
        let r = self.cn[u as usize].lu.model().unpack(data);
        let q = self.expect.entry((u, r.node)).or_default();
        let Some((id, words)) = q.front_mut() else {
            self.t.violations.push(format!("S6: unit {u} logged a record of CN {} line {:#x} no VAL was sent for", r.node, r.line));
            return;
        };
        let id = *id;
        let (w, v) = words.remove(0);
        if words.is_empty() {
            q.pop_front();
        }
        let s = &self.stores[id];
        if s.line != r.line || w != r.word || v != r.value || (self.b.csn_bits > 0 && s.csn & self.csn_mask() != r.csn) {
            if self.b.tag_bits == 0 {
                // H1 without tags: a VAL matched another REPL of the same core and line (the next
                // store's REPL overtook this VAL in the fabric); counted, not asserted.
                self.t.mislogged += 1;
                return;
            }
            self.t.violations.push(format!("S6: unit {u} logged {:?}, expected store {id} (line {:#x} word {w} value {v:#x} csn {})", r, s.line, s.csn));
            return;
        }
        *self.logged.entry((u, id)).or_insert(0) += 1;
        let h = self.unit_hist.entry((u, r.line)).or_default();
        if h.last().is_none_or(|l| *l != id) {
            h.push(id);
        }
    }

    // ---- dump coordinator ----

    fn coordinator(&mut self) {
        let p = self.o.dump_period;
        if p == 0 || self.rec_state != 0 {
            return;
        }
        let live: Vec<u32> = (0..self.n).filter(|k| !self.failed.has(*k) || self.detect_at.is_none_or(|d| self.now < d)).collect();
        if !self.coord_waiting {
            if self.now % p == p - 1 {
                self.coord_waiting = true;
                for k in live {
                    let skew = match &self.o.dump_skew {
                        Some(s) => s[k as usize],
                        None => self.rng.range(0, self.o.jitter),
                    };
                    self.start_inflight += 1;
                    self.send_at(self.now + self.o.l_min + skew, Dst::Cn(k), Msg::DumpStart);
                }
            }
        } else if let Some(k) = live.iter().copied().find(|k| self.start_inflight == 0 && self.cn[*k as usize].alive && self.overflowed(*k)) {
            // An overflowed unit: a new region, and its epoch restarts (the others stay done).
            if self.supply_region(k) {
                self.start_inflight += 1;
                self.send_at(self.now + self.o.l_min, Dst::Cn(k), Msg::DumpStart);
            }
        } else if self.start_inflight == 0 && live.iter().all(|k| self.cn[*k as usize].alive && self.cn[*k as usize].outs.as_ref().is_some_and(|o| o.st_dump_done)) {
            self.coord_waiting = false;
            for k in live {
                self.send(None, Dst::Cn(k), Msg::DumpCommit);
            }
        }
    }

    // ---- crash and recovery ----

    fn check_crash(&mut self) {
        if self.detect_at.is_some() || !self.failed.is_empty() {
            return;
        }
        let hit = match self.o.crash {
            Crash::None => None,
            Crash::At { .. } | Crash::Random => self.crash_at.filter(|(_, t)| *t == self.now).map(|(n, _)| n),
            Crash::When { node, after, cond } => (self.now >= after && self.cond(node, cond)).then_some(node),
        };
        let Some(c) = hit else { return };
        self.crash_at = Some((c, self.now));
        self.t.crashed = Some(c);
        self.t.crash_cycle = self.now;
        self.cn[c as usize].alive = false;
        self.failed.set(c);
        self.detect_at = Some(self.now + self.o.detect_delay);
        // The partially validated store of c, if any, and the golden value it implies.
        for k in &self.cn[c as usize].cores {
            if let Some(e) = k.sb.front() {
                if e.vals_sent > 0 && e.vals_sent < e.dests.len() {
                    self.t.partial = true;
                    let applied = e.dests[..e.vals_sent].iter().any(|d| *d != c);
                    self.t.partial_applied |= applied;
                    if applied {
                        let g = self.golden.entry(e.line).or_insert_with(|| vec![0; self.words]);
                        for (w, gw) in g.iter_mut().enumerate() {
                            if e.mask >> w & 1 == 1 {
                                *gw = e.vals[w];
                            }
                        }
                        self.commit_seq += 1;
                        self.stores[e.id].commit = Some(self.commit_seq);
                    }
                }
            }
        }
    }

    fn cond(&self, node: u32, cond: CrashWhen) -> bool {
        let c = &self.cn[node as usize];
        match cond {
            CrashWhen::PartialVal => c.cores.iter().any(|k| k.sb.front().is_some_and(|e| e.vals_sent > 0 && e.vals_sent < e.dests.len() && e.dests[..e.vals_sent].iter().any(|d| *d != node))),
            CrashWhen::DumpBusy => c.outs.as_ref().is_some_and(|o| o.st_dump_busy) && c.lu.model().epoch() > 0,
            CrashWhen::AfterEpochCommit => c.lu.model().epoch() >= 2 && c.outs.as_ref().is_some_and(|o| !o.st_dump_done && !o.st_dump_busy) && !self.coord_waiting,
            CrashWhen::AcksOutstanding => c.cores.iter().any(|k| k.sb.front().is_some_and(|e| e.vals_sent == 0 && e.acks.contains(&AckSt::Pending))),
            CrashWhen::ReplicaOfInFlight => (0..self.n).any(|w| w != node && self.cn[w as usize].cores.iter().any(|k| k.sb.iter().any(|e| e.dests.iter().zip(&e.acks).any(|(d, a)| *d == node && *a == AckSt::Pending)))),
            CrashWhen::PendingRdX => self.homes.iter().any(|h| h.busy.values().any(|t| t.snoop == Some(node) && t.req != node)),
            CrashWhen::OwnGroupCommit => self.last_commit_by.is_some_and(|(w, line, at)| w == node && at + 1 == self.now && self.shape.is_member(line, node)),
        }
    }

    fn detect(&mut self) {
        let (c, _) = self.crash_at.expect("crashed");
        self.cm = (0..self.n).find(|k| *k != c).expect("a live CN");
        if self.o.trace {
            self.t.trace.push(format!("cycle {:>7}: switch sets Viral_Status[{c}], MSI to CN {} (the CM)", self.now, self.cm));
        }
        self.rec_state = 1;
        self.coord_waiting = false;
        for k in 0..self.n {
            if k != c {
                self.send(Some(self.cm), Dst::Cn(k), Msg::Interrupt);
            }
        }
    }

    fn live(&self) -> Vec<u32> {
        (0..self.n).filter(|k| !self.failed.has(*k)).collect()
    }

    fn recovery_progress(&mut self) {
        match self.rec_state {
            1 => {
                // InterruptResp: each CN whose cores are idle and whose unit is quiesced answers once.
                for k in self.live() {
                    let c = &self.cn[k as usize];
                    if !c.interrupted || c.paused {
                        continue;
                    }
                    let cores_idle = c.cores.iter().all(|core| core.sb.iter().all(|e| !e.acks.contains(&AckSt::Pending)) && core.sb.front().is_none_or(|e| e.vals_sent == 0));
                    if cores_idle && c.outs.as_ref().is_some_and(|o| o.st_quiesced) {
                        self.cn[k as usize].paused = true;
                        let cm = self.cm;
                        self.send(Some(k), Dst::Cn(cm), Msg::InterruptResp { node: k });
                    }
                }
                if self.int_resp.len() == self.live().len() {
                    self.rec_state = 2;
                    for h in 0..self.n {
                        self.send(Some(self.cm), Dst::Home(h), Msg::InitRecov);
                    }
                }
            }
            2 if self.home_resp.len() == self.n as usize => {
                self.rec_state = 3;
                for k in self.live() {
                    self.send(Some(self.cm), Dst::Cn(k), Msg::RecovEnd);
                }
            }
            3 if self.recov_resp.len() == self.live().len() => {
                self.rec_state = 0;
                self.recovered_at = Some(self.now);
                self.t.recovery_cycles = self.now - self.detect_at.expect("detected");
                self.last_commit = self.now;
                if self.o.trace {
                    self.t.trace.push(format!("cycle {:>7}: all RecovEndResp in; recovery took {} cycles", self.now, self.t.recovery_cycles));
                }
            }
            _ => {}
        }
    }

    /// Algorithm 1 (our reading): drop the failed CN from sharer masks; fetch the owned lines'
    /// latest versions from the live group members, in batches of fetch_queries per unit.
    fn home_recover(&mut self, h: u32) {
        let (c, _) = self.crash_at.expect("crashed");
        let home = &mut self.homes[h as usize];
        home.recovering = true;
        let mut owned = Vec::new();
        for (line, st) in home.dir.iter_mut() {
            match st {
                Dir::S(m) => {
                    self.t.failed_shared_lines += *m >> c & 1;
                    *m &= !(1 << c);
                }
                Dir::M(o) if *o == c => owned.push(*line),
                _ => {}
            }
        }
        owned.sort_unstable();
        // Transactions waiting on the failed CN: its InvAck counts as received; a snoop of it is
        // aborted and retried after the line is recovered (U10).
        let mut retry = Vec::new();
        for (line, t) in home.busy.iter_mut() {
            t.acks &= !(1 << c);
            if t.snoop == Some(c) {
                retry.push((*line, t.excl, t.req));
            }
        }
        self.t.retried_rdx += retry.len() as u64;
        for (line, excl, req) in &retry {
            home.busy.remove(line);
            home.queue.entry(*line).or_default().push_front((*excl, *req));
        }
        self.t.owned_lines += owned.len() as u64;
        home.owned = owned.clone();
        let mut per_unit: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        for l in &owned {
            for m in self.shape.map(*l, &NodeMask::empty()).nodes {
                if m != c {
                    per_unit.entry(m).or_default().push(*l);
                }
            }
        }
        let fq = self.b.fetch_queries as usize;
        let mut batches = 0;
        for (u, lines) in per_unit {
            for chunk in lines.chunks(fq) {
                batches += 1;
                self.send(None, Dst::Cn(u), Msg::Fetch { home: h, lines: chunk.to_vec() });
            }
        }
        self.homes[h as usize].expect = batches;
        if batches == 0 {
            self.home_finish(h);
        }
    }

    /// §V-C with H2/H5: merge the members' lists, apply per word the newest logged record, else the
    /// newest in the MN dumps, else leave memory; the entry becomes uncached.
    fn home_finish(&mut self, h: u32) {
        let (c, _) = self.crash_at.expect("crashed");
        let owned = std::mem::take(&mut self.homes[h as usize].owned);
        let got = std::mem::take(&mut self.homes[h as usize].got);
        let dumps = self.parse_dumps();
        for line in owned {
            let lists: Vec<Vec<Record>> = got.get(&line).map(|v| v.iter().map(|(_, r)| r.clone()).collect()).unwrap_or_default();
            let (merged, undecidable) = merge(&lists, c, self.b.csn_bits > 0);
            self.t.undecidable += undecidable as u64;
            let mut data = self.mem.get(&line).cloned().unwrap_or_else(|| vec![0; self.words]);
            let mut done = vec![false; self.words];
            if self.o.defect == Defect::PerLineRecovery {
                if let Some(r) = merged.first() {
                    data[r.word as usize] = r.value;
                    done[r.word as usize] = true;
                    self.t.words_from_logs += 1;
                }
                done.iter_mut().for_each(|d| *d = true);
            }
            for r in &merged {
                if !done[r.word as usize] {
                    done[r.word as usize] = true;
                    data[r.word as usize] = r.value;
                    self.t.words_from_logs += 1;
                }
            }
            for w in 0..self.words {
                if !done[w] {
                    if let Some(v) = dumps.get(&(line, w as u32)) {
                        data[w] = *v;
                        self.t.words_from_dumps += 1;
                    }
                }
            }
            self.mem.insert(line, data);
            self.homes[h as usize].dir.insert(line, Dir::I);
        }
        self.homes[h as usize].recovering = false;
        // Sorted: messages sent in hash order would make a trial depend on the process.
        let mut busy: Vec<u64> = self.homes[h as usize].busy.keys().copied().collect();
        busy.sort_unstable();
        for l in busy {
            self.try_complete(h, l);
        }
        let mut lines: Vec<u64> = self.homes[h as usize].queue.keys().copied().collect();
        lines.sort_unstable();
        for l in lines {
            if !self.homes[h as usize].busy.contains_key(&l) {
                if let Some((excl, req)) = self.homes[h as usize].queue.get_mut(&l).and_then(|q| q.pop_front()) {
                    self.request(h, l, excl, req);
                }
            }
        }
        let cm = self.cm;
        self.send(None, Dst::Cn(cm), Msg::InitRecovResp { home: h });
    }

    /// Every epoch dumped into unit `c`'s regions, in the order their trailers were written:
    /// (epoch, its records). An overflowed epoch's beats at a region's end have no trailer and
    /// are left out; a re-dumped epoch appears once per trailer.
    fn dumped_epochs(&self, c: &Cn) -> Vec<(u32, Vec<Record>)> {
        let rec = self.b.rec() as usize;
        let m = c.lu.model();
        let mut out = Vec::new();
        for (base, bytes) in &c.regions {
            let mut cur: Vec<Record> = Vec::new();
            let mut a = *base;
            while let Some(beat) = c.region.get(&a).filter(|_| a < base + bytes) {
                if !beat.get(rec - 1) && beat.field(0, 32) as u32 == TRAILER_MAGIC {
                    out.push((beat.field(32, 32) as u32, std::mem::take(&mut cur)));
                } else {
                    for j in 0..512 / rec {
                        let r = m.unpack(&beat.slice(j * rec, rec));
                        if r.valid {
                            cur.push(r);
                        }
                    }
                }
                a += 64;
            }
        }
        out
    }

    /// Newest dumped value per (line, word) over every region (the crashed node's too: MN memory
    /// survives), complete epochs only, a re-dump superseding its epoch number.
    fn parse_dumps(&self) -> HashMap<(u64, u32), u64> {
        let mut best: HashMap<(u64, u32), ((u32, usize), u64)> = HashMap::new();
        for c in &self.cn {
            let epochs: BTreeMap<u32, Vec<Record>> = self.dumped_epochs(c).into_iter().collect();
            for (e, recs) in epochs {
                for (i, r) in recs.iter().enumerate() {
                    let key = (e, i);
                    let slot = best.entry((r.line, r.word)).or_insert((key, r.value));
                    if key >= slot.0 {
                        *slot = (key, r.value);
                    }
                }
            }
        }
        best.into_iter().map(|(k, (_, v))| (k, v)).collect()
    }

    /// Every dumped record: (unit, epoch, index, line, word, value), complete epochs only.
    fn dump_records(&self) -> Vec<(u32, u32, usize, u64, u32, u64)> {
        let mut out = Vec::new();
        for (u, c) in self.cn.iter().enumerate() {
            for (e, recs) in self.dumped_epochs(c) {
                for (i, r) in recs.into_iter().enumerate() {
                    out.push((u as u32, e, i, r.line, r.word, r.value));
                }
            }
        }
        out
    }

    /// One more dump epoch on the quiet system, so S5 can check the dumps are complete.
    fn final_epoch(&mut self) -> Result<(), CampaignError> {
        if self.o.dump_period == 0 || self.t.violations.iter().any(|v| v.starts_with("S7")) {
            return Ok(());
        }
        for _round in 0..2 {
            for k in self.live() {
                self.cn[k as usize].dump_start = true;
            }
            let mut guard = 0;
            loop {
                for k in self.live() {
                    if self.overflowed(k) && self.supply_region(k) {
                        self.cn[k as usize].dump_start = true;
                    }
                    self.step_lu(k)?;
                }
                self.now += 1;
                guard += 1;
                if self.live().iter().all(|k| self.cn[*k as usize].outs.as_ref().is_some_and(|o| o.st_dump_done)) || guard > 400_000 {
                    break;
                }
            }
            for k in self.live() {
                self.cn[k as usize].dump_commit = true;
                self.step_lu(k)?;
            }
            self.now += 1;
        }
        Ok(())
    }

    // ---- scoreboards ----

    fn check_all(&mut self) {
        let crashed = self.crash_at.filter(|_| self.t.crashed.is_some()).map(|(c, _)| c);
        // S2: the failed CN is in no sharer mask and owns no line.
        if let Some(c) = crashed {
            for h in &self.homes {
                for (l, st) in &h.dir {
                    match st {
                        Dir::M(o) if *o == c => self.t.violations.push(format!("S2: line {l:#x} still owned by failed CN {c}")),
                        Dir::S(m) if m >> c & 1 == 1 => self.t.violations.push(format!("S2: failed CN {c} still shares line {l:#x}")),
                        _ => {}
                    }
                }
            }
        }
        // S1 / S3: every line, word by word, holds its latest committed value (S1 for the lines
        // the failed CN owned: those were rebuilt from logs and dumps).
        let lines: Vec<u64> = self.golden.keys().copied().collect();
        for line in lines {
            let g = self.golden[&line].clone();
            let h = (line % self.n as u64) as usize;
            let now = match self.homes[h].dir.get(&line) {
                Some(Dir::M(o)) if self.cn[*o as usize].alive => self.cn[*o as usize].cache.get(&line).map(|x| x.1.clone()),
                _ => None,
            };
            let v = now.or_else(|| self.mem.get(&line).cloned()).unwrap_or_else(|| vec![0; self.words]);
            if v != g {
                let was_owned = self.recovered_lines_contains(line);
                let board = if was_owned { "S1" } else { "S3" };
                self.t.violations.push(format!("{board}: line {line:#x} reads {v:x?}, latest committed {g:x?}"));
            }
        }
        // S4: per unit and line, records in commit order (A1); inversions counted when J ≥ L_min.
        for ((u, line), ids) in &self.unit_hist {
            let h: Vec<u64> = ids.iter().map(|i| self.stores[*i].commit.unwrap_or(u64::MAX)).collect();
            let inv = h.windows(2).filter(|w| w[0] > w[1]).count() as u64;
            if inv > 0 {
                if self.o.jitter >= self.o.l_min {
                    self.t.inversions += inv;
                } else {
                    let k = h.windows(2).position(|w| w[0] > w[1]).expect("an inversion");
                    let (a, b) = (&self.stores[ids[k]], &self.stores[ids[k + 1]]);
                    self.t.violations.push(format!(
                        "S4: unit {u} logged line {line:#x} out of commit order {h:?}: store {} (CN {}, VALs {:?} at {:?}, commit {}) before store {} (CN {}, VALs {:?} at {:?}, commit {})",
                        ids[k], a.node, a.val_to, a.val_at, a.commit_at, ids[k + 1], b.node, b.val_to, b.val_at, b.commit_at
                    ));
                }
            }
        }
        // S5 / S8: every committed store logged exactly once by every live member it validated
        // at, and the replication messages are 3·R (3·(R−1) after the crash) plus NACK retries.
        let r = self.b.shape.replicas as u64;
        for (id, s) in self.stores.iter().enumerate() {
            if s.commit.is_none() {
                continue;
            }
            let set = self.shape.map(s.line, &NodeMask::empty());
            for m in set.nodes {
                if self.failed.has(m) {
                    continue;
                }
                let k = self.logged.get(&(m, id)).copied().unwrap_or(0);
                let want = if crashed == Some(s.node) && !s.val_to.contains(&m) { 0 } else { s.mask.count_ones() };
                if k != want {
                    self.t.violations.push(format!("S5: store {id} (CN {} line {:#x}) logged {k} words at unit {m}, expected {want}", s.node, s.line));
                }
            }
            if s.straddle || crashed == Some(s.node) {
                continue;
            }
            let want = if s.degraded { 3 * (r - 1) } else { 3 * r } + 2 * s.nacks;
            if s.msgs != want {
                self.t.violations.push(format!("S8: store {id} used {} replication messages, expected {want}", s.msgs));
            }
            if s.degraded {
                self.t.degraded_stores += 1;
                self.t.degraded_msgs += s.msgs - 2 * s.nacks;
            } else {
                self.t.repl_stores += 1;
                self.t.repl_msgs += s.msgs - 2 * s.nacks;
                self.t.repl_bits += s.bits;
            }
        }
        // S8: records a unit logged = Σ popcount of the stores it validated (its own counter).
        for u in self.live() {
            let want: u64 = self.logged.iter().filter(|((m, _), _)| *m == u).map(|(_, k)| *k as u64).sum();
            let got = self.cn[u as usize].lu.model().counter(ctr::LOGGED);
            let max = if self.b.counter_bits >= 64 { u64::MAX } else { (1 << self.b.counter_bits) - 1 };
            if got != want.min(max) {
                self.t.violations.push(format!("S8: unit {u} counts {got} records logged, the scoreboard saw {want}"));
            }
        }
        // S5 (dumps): after the final epochs, every committed word is in the dumps.
        if self.o.dump_period > 0 && !self.t.has("S7") {
            let dumps = self.parse_dumps();
            let mut seen: HashMap<(u64, u32), u64> = HashMap::new();
            for s in self.stores.iter().filter(|s| s.commit.is_some()) {
                for w in 0..self.words as u32 {
                    if s.mask >> w & 1 == 1 {
                        seen.insert((s.line, w), s.vals[w as usize]);
                    }
                }
            }
            // The newest committed word must be the newest dumped one.
            // The failed CN's partially validated store is not required there: recovery wrote it
            // to memory, and it may sit in a non-in-charge unit's log only.
            let mut latest: HashMap<(u64, u32), (u64, u64)> = HashMap::new();
            let mut partial_words = HashSet::new();
            for s in self.stores.iter().filter(|s| s.commit.is_some()) {
                let partial = crashed == Some(s.node) && s.commit_at == 0;
                for w in 0..self.words as u32 {
                    if s.mask >> w & 1 == 1 {
                        let e = latest.entry((s.line, w)).or_insert((0, 0));
                        if s.commit.expect("committed") >= e.0 {
                            *e = (s.commit.expect("committed"), s.vals[w as usize]);
                            if partial {
                                partial_words.insert((s.line, w));
                            } else {
                                partial_words.remove(&(s.line, w));
                            }
                        }
                    }
                }
            }
            for ((l, w), (_, v)) in latest {
                if partial_words.contains(&(l, w)) {
                    continue;
                }
                if dumps.get(&(l, w)) != Some(&v) {
                    let id = self.stores.iter().rposition(|s| s.line == l && s.mask >> w & 1 == 1 && s.vals[w as usize] == v).unwrap_or(0);
                    let st = &self.stores[id];
                    let hist: Vec<String> = self.stores.iter().enumerate().filter(|(_, s)| s.line == l && s.mask >> w & 1 == 1).map(|(i, s)| format!("store {i} CN {} commit {:?}@{} value {:#x}", s.node, s.commit, s.commit_at, s.vals[w as usize])).collect();
                    let dumped: Vec<String> = self.dump_records().into_iter().filter(|d| d.3 == l && d.4 == w).map(|d| format!("unit {} epoch {} idx {} value {:#x}", d.0, d.1, d.2, d.5)).collect();
                    let units = [format!("history {hist:?}; dumped {dumped:?}")];
                    self.t.violations.push(format!(
                        "S5: line {l:#x} word {w}: newest dumped {:?}, newest committed {v:#x} (store {id} of CN {} committed at {}, VALs {:?} at {:?}; crash {:?}; in charge {:?}; {})",
                        dumps.get(&(l, w)),
                        st.node,
                        st.commit_at,
                        st.val_to,
                        st.val_at,
                        self.crash_at,
                        self.shape.map(l, &NodeMask::empty()),
                        units.join("; ")
                    ));
                }
            }
            let _ = seen;
        }
        // S7: live CNs committed stores after RecovEnd.
        if self.recovered_at.is_some() {
            let after: u64 = self.cn.iter().filter(|c| c.alive).map(|c| c.commits - c.commits_at_end_of_recovery).sum();
            self.t.stores_after_recovery = after;
            if self.o.script.is_empty() && after < self.o.after_stores {
                self.t.violations.push(format!("S7: only {after} stores committed after RecovEnd"));
            }
        }
    }

    fn recovered_lines_contains(&self, line: u64) -> bool {
        self.t.crashed.is_some_and(|c| self.stores.iter().any(|s| s.node == c && s.line == line))
    }
}

/// The merge rule of contract §5.3 over the members' newest-first lists of one line: returns the
/// merged newest-first list and whether the merge was undecidable (csn_bits = 0 only).
pub fn merge(lists: &[Vec<Record>], failed: u32, csn: bool) -> (Vec<Record>, bool) {
    let lists: Vec<&Vec<Record>> = lists.iter().filter(|l| !l.is_empty()).collect();
    let Some(longest) = lists.iter().max_by_key(|l| l.len()) else { return (Vec::new(), false) };
    let id = |r: &Record| if csn { (r.node, r.csn as u64, 0) } else { (r.node, r.word as u64, r.value) };
    let heads: Vec<_> = lists.iter().map(|l| id(&l[0])).collect();
    if heads.iter().all(|h| *h == heads[0]) {
        return ((*longest).clone(), false);
    }
    // The heads differ: the newer one is the failed CN's partially validated update.
    let mut tops: Vec<&&Vec<Record>> = lists.iter().filter(|l| l[0].node == failed).collect();
    tops.sort_by_key(|l| std::cmp::Reverse(l[0].csn));
    let undecidable = !csn && (tops.is_empty() || tops.iter().any(|t| id(&t[0]) != id(&tops[0][0])));
    let Some(top) = tops.first() else { return ((*longest).clone(), true) };
    let head = id(&top[0]);
    let top_recs: Vec<Record> = if csn {
        top.iter().take_while(|r| id(r) == head).copied().collect()
    } else {
        top.iter().take_while(|r| r.node == failed && !lists.iter().any(|l| id(&l[0]) != head && id(&l[0]) == id(r))).copied().collect()
    };
    let base = lists.iter().filter(|l| id(&l[0]) != head).max_by_key(|l| l.len()).map(|l| (*l).clone()).unwrap_or_default();
    let mut out = top_recs;
    out.extend(base);
    (out, undecidable)
}
