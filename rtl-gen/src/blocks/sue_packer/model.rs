//! Cycle-accurate reference model of `sue_packer`: every register of the RTL and every decision
//! rule of contract §4.4, evaluated on the state before the clock edge.

use super::SuePackerBlock;
use std::collections::VecDeque;

/// The inputs of one cycle.
#[derive(Debug, Clone, Default)]
pub struct PkInputs {
    pub cmd_valid: bool,
    /// One beat, `data_bytes` bytes (byte i = tdata[8i+7:8i]).
    pub cmd_data: Vec<u8>,
    pub cmd_last: bool,
    pub cmd_dest: u32,
    /// [1:0] vc, [2] flush, [3] err.
    pub cmd_user: u8,
    /// Bit v: do not start PDUs of VC v.
    pub vc_pause: u32,
    /// Per destination: a PDU to it may start (empty = all ones).
    pub dest_ok: Vec<bool>,
    pub pdu_ready: bool,
}

/// The saturating counters, in port order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PkCounters {
    pub cmd_in: u64,
    pub cmd_drop_framing: u64,
    pub cmd_drop_dest: u64,
    pub cmd_drop_vc: u64,
    pub cmd_drop_err: u64,
    pub pdu_out: u64,
    pub cmd_out: u64,
}

impl PkCounters {
    pub const NAMES: [&'static str; 7] = [
        "cnt_cmd_in",
        "cnt_cmd_drop_framing",
        "cnt_cmd_drop_dest",
        "cnt_cmd_drop_vc",
        "cnt_cmd_drop_err",
        "cnt_pdu_out",
        "cnt_cmd_out",
    ];

    pub fn values(&self) -> [u64; 7] {
        [
            self.cmd_in,
            self.cmd_drop_framing,
            self.cmd_drop_dest,
            self.cmd_drop_vc,
            self.cmd_drop_err,
            self.pdu_out,
            self.cmd_out,
        ]
    }
}

/// What the module shows in a cycle (registered outputs plus `cmd_ready`, which depends on the
/// first beat's sideband).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PkOutputs {
    pub cmd_ready: bool,
    pub q_space: Vec<bool>,
    pub queued_cmds: u32,
    pub pdu_valid: bool,
    pub pdu_last: bool,
    pub pdu_dest: u32,
    /// {ncmds[9:0], vc[1:0]}.
    pub pdu_user: u32,
    pub counters: PkCounters,
}

#[derive(Debug, Clone, Default)]
struct Queue {
    /// Committed commands not yet counted out by a PDU's descriptor (the RTL's cnt).
    cmds: VecDeque<Vec<u8>>,
    /// Commands holding RAM: queued plus those of a PDU still being read out.
    used: u32,
    age: u32,
    urgent: bool,
}

/// A command committed last cycle (the RTL's `cm_oh_q`, `cm_flush_q`): it reaches its queue's
/// counts at this edge.
#[derive(Debug, Clone)]
struct Commit {
    q: usize,
    flush: bool,
    bytes: Vec<u8>,
}

/// The registered events the counters take a cycle later.
#[derive(Debug, Clone, Default)]
struct Events {
    commit: bool,
    drop_framing: bool,
    drop_dest: bool,
    drop_vc: bool,
    drop_err: bool,
    pdu: bool,
    /// Commands of the PDU started (0 when none).
    n: u32,
    /// Slots freed: (queue, commands).
    release: Option<(usize, u32)>,
}

#[derive(Debug, Clone)]
pub struct PackerModel {
    b: SuePackerBlock,
    q: Vec<Queue>,
    // Input side.
    in_beat: u32,
    in_skip: bool,
    in_q: u32,
    in_dest_bad: bool,
    in_vc_bad: bool,
    in_flush: bool,
    in_err: bool,
    partial: Vec<u8>,
    commit: Option<Commit>,
    ev: Events,
    // Arbiter: the grant register and the round-robin pointers (last granted).
    grant: Option<usize>,
    vp: u32,
    qp: Vec<u32>,
    // Read engine: beats of the current PDU still to load.
    rd_beats: VecDeque<Vec<u8>>,
    rd_q: u32,
    rd_n: u32,
    // Output registers.
    out_valid: bool,
    out_data: Vec<u8>,
    out_last: bool,
    out_dest: u32,
    out_vc: u32,
    total: u32,
    cnt: PkCounters,
}

impl PackerModel {
    pub fn new(b: &SuePackerBlock) -> PackerModel {
        let c = &b.common;
        PackerModel {
            b: b.clone(),
            q: vec![Queue::default(); c.num_queues() as usize],
            in_beat: 0,
            in_skip: false,
            in_q: 0,
            in_dest_bad: false,
            in_vc_bad: false,
            in_flush: false,
            in_err: false,
            partial: Vec::new(),
            commit: None,
            ev: Events::default(),
            grant: None,
            vp: c.num_vc - 1,
            qp: vec![c.num_xpu - 1; c.num_vc as usize],
            rd_beats: VecDeque::new(),
            rd_q: 0,
            rd_n: 0,
            out_valid: false,
            out_data: vec![0; c.data_bytes as usize],
            out_last: false,
            out_dest: 0,
            out_vc: 0,
            total: 0,
            cnt: PkCounters::default(),
        }
    }

    pub fn reset(&mut self) {
        *self = PackerModel::new(&self.b);
    }

    /// Commands committed to queue (dest, vc) and not yet counted out by a PDU.
    pub fn queued(&self, dest: u32, vc: u32) -> usize {
        self.q[self.b.common.queue(dest, vc) as usize].cmds.len()
    }

    /// The output beat's data (meaningful while `pdu_valid`).
    pub fn pdu_data(&self) -> &[u8] {
        &self.out_data
    }

    fn first(&self) -> bool {
        self.in_beat == 0 && !self.in_skip
    }

    fn sideband(&self, i: &PkInputs) -> (u32, bool, bool) {
        let c = &self.b.common;
        let vc = u32::from(i.cmd_user & 3);
        let (dbad, vbad) = (i.cmd_dest >= c.num_xpu, vc >= c.num_vc);
        let q = if dbad || vbad {
            0
        } else {
            c.queue(i.cmd_dest, vc)
        };
        (q, dbad, vbad)
    }

    fn committed_to(&self, q: usize) -> bool {
        self.commit.as_ref().is_some_and(|c| c.q == q)
    }

    /// Room for one more command: slots held, the slot of a command in progress and a command
    /// committed last cycle (not yet in `used`).
    fn space(&self, q: usize) -> bool {
        let reserved =
            self.in_beat > 0 && !self.in_dest_bad && !self.in_vc_bad && self.in_q as usize == q;
        self.q[q].used + u32::from(reserved) + u32::from(self.committed_to(q)) < self.b.packer.queue_depth
    }

    fn ready(&self, i: &PkInputs) -> bool {
        if !self.first() {
            return true;
        }
        let (q, dbad, vbad) = self.sideband(i);
        dbad || vbad || self.space(q as usize)
    }

    pub fn outputs(&self, i: &PkInputs) -> PkOutputs {
        PkOutputs {
            cmd_ready: self.ready(i),
            q_space: (0..self.q.len()).map(|q| self.space(q)).collect(),
            queued_cmds: self.total,
            pdu_valid: self.out_valid,
            pdu_last: self.out_last,
            pdu_dest: self.out_dest,
            pdu_user: (self.rd_n << 2) | self.out_vc,
            counters: self.cnt.clone(),
        }
    }

    /// Queue `q` may be granted: commands waiting (or one committed last cycle), its VC not
    /// paused, its destination ok, not in the grant register, and (with a hold) full, flushed
    /// or old enough.
    fn eligible(&self, q: usize, i: &PkInputs) -> bool {
        let c = &self.b.common;
        let (v, d) = (q as u32 / c.num_xpu, q as u32 % c.num_xpu);
        let qu = &self.q[q];
        let n = qu.cmds.len() as u32;
        let h = self.b.packer.hold_cycles;
        (n > 0 || self.committed_to(q))
            && (i.vc_pause >> v) & 1 == 0
            && i.dest_ok.get(d as usize).copied().unwrap_or(true)
            && self.grant != Some(q)
            && (h == 0
                || n >= c.max_cmds()
                || qu.urgent
                || self.commit.as_ref().is_some_and(|cm| cm.q == q && cm.flush)
                || qu.age >= h)
    }

    /// First index after `ptr` (circularly) among `n` with `req`.
    fn round_robin(n: u32, ptr: u32, req: impl Fn(u32) -> bool) -> Option<u32> {
        (1..=n).map(|k| (ptr + k) % n).find(|&x| req(x))
    }

    /// The arbiter's pick: VC round robin, then destination round robin within that VC.
    fn pick(&self, i: &PkInputs) -> Option<(u32, u32)> {
        let c = &self.b.common;
        let v = Self::round_robin(c.num_vc, self.vp, |v| {
            (0..c.num_xpu).any(|d| self.eligible(c.queue(d, v) as usize, i))
        })?;
        let d = Self::round_robin(c.num_xpu, self.qp[v as usize], |d| {
            self.eligible(c.queue(d, v) as usize, i)
        })
        .expect("an eligible queue");
        Some((v, d))
    }

    fn sat_add(&self, x: &mut u64, n: u64) {
        *x = x.saturating_add(n).min(self.b.common.counter_max());
    }

    pub fn tick(&mut self, i: &PkInputs) {
        let c = self.b.common.clone();
        let cmd_beats = c.cmd_beats();
        let h = self.b.packer.hold_cycles;
        // ---- Everything below reads the state before the edge.
        let adv = !self.out_valid || i.pdu_ready;
        let busy = !self.rd_beats.is_empty();
        let issue = adv && busy;
        let decide = adv && !busy && self.grant.is_some();
        let grant_free = self.grant.is_none() || decide;
        let pick = if grant_free { self.pick(i) } else { None };
        let ready = self.ready(i);
        // Counters and the total from last cycle's events.
        let max = c.counter_max();
        {
            let (ev, k) = (&self.ev, &mut self.cnt);
            let inc = |x: &mut u64, b: bool| *x = (*x + u64::from(b)).min(max);
            inc(&mut k.cmd_in, ev.commit);
            inc(&mut k.cmd_drop_framing, ev.drop_framing);
            inc(&mut k.cmd_drop_dest, ev.drop_dest);
            inc(&mut k.cmd_drop_vc, ev.drop_vc);
            inc(&mut k.cmd_drop_err, ev.drop_err);
            inc(&mut k.pdu_out, ev.pdu);
        }
        let mut co = self.cnt.cmd_out;
        self.sat_add(&mut co, u64::from(self.ev.n));
        self.cnt.cmd_out = co;
        self.total += u32::from(self.ev.commit);
        if let Some((q, n)) = self.ev.release {
            self.q[q].used -= n;
            self.total -= n;
        }
        let mut ev = Events::default();
        let mut took: Option<(usize, u32, u32)> = None; // (q, n, waiting before)
        // ---- Read engine.
        if issue {
            self.out_data = self.rd_beats.pop_front().expect("busy");
            self.out_valid = true;
            self.out_last = self.rd_beats.is_empty();
            if self.out_last {
                ev.release = Some((self.rd_q as usize, self.rd_n));
            }
        } else if decide {
            // The granted queue's PDU starts: n = min(waiting, MAX_CMDS) counted out now.
            let q = self.grant.expect("granted");
            let before = self.q[q].cmds.len() as u32;
            let n = before.min(c.max_cmds());
            let mut bytes = Vec::with_capacity((n * c.cmd_bytes) as usize);
            for _ in 0..n {
                bytes.extend(self.q[q].cmds.pop_front().expect("queued"));
            }
            let mut beats: VecDeque<Vec<u8>> = bytes.chunks(c.data_bytes as usize).map(|b| b.to_vec()).collect();
            self.out_data = beats.pop_front().expect("a beat");
            self.out_valid = true;
            self.out_last = beats.is_empty();
            self.out_dest = q as u32 % c.num_xpu;
            self.out_vc = q as u32 / c.num_xpu;
            self.rd_beats = beats;
            self.rd_q = q as u32;
            self.rd_n = n;
            if self.out_last {
                ev.release = Some((q, n));
            }
            ev.pdu = true;
            ev.n = n;
            took = Some((q, n, before));
        } else if adv {
            self.out_valid = false;
        }
        // ---- Hold state (age, urgent) from the counts before the edge.
        let committed = self.commit.take();
        if h > 0 {
            for (qi, qu) in self.q.iter_mut().enumerate() {
                let tk = took.filter(|t| t.0 == qi);
                let before = tk.map_or(qu.cmds.len() as u32, |t| t.2);
                // The age counts from the commit's event (the cycle before it is counted).
                let arriving = committed.as_ref().is_some_and(|cm| cm.q == qi);
                qu.age = if (before == 0 && !arriving) || tk.is_some() { 0 } else { (qu.age + 1).min(h) };
                let took_all = tk.is_some_and(|t| t.1 == t.2);
                let flushed = committed.as_ref().is_some_and(|cm| cm.q == qi && cm.flush);
                qu.urgent = flushed || (qu.urgent && !took_all);
            }
        }
        // ---- Last cycle's commit reaches its queue.
        if let Some(cm) = committed {
            let qu = &mut self.q[cm.q];
            qu.cmds.push_back(cm.bytes);
            qu.used += 1;
        }
        // ---- Grant register and pointers.
        if grant_free {
            self.grant = pick.map(|(v, d)| {
                self.vp = v;
                self.qp[v as usize] = d;
                c.queue(d, v) as usize
            });
        }
        // ---- Input side.
        if i.cmd_valid && ready {
            if self.in_skip {
                if i.cmd_last {
                    self.in_skip = false;
                }
            } else {
                let first = self.in_beat == 0;
                let (q, dbad, vbad) = if first {
                    self.sideband(i)
                } else {
                    (self.in_q, self.in_dest_bad, self.in_vc_bad)
                };
                let flush = if first {
                    (i.cmd_user >> 2) & 1 == 1
                } else {
                    self.in_flush
                };
                let err = (!first && self.in_err) || (i.cmd_user >> 3) & 1 == 1;
                if first {
                    self.partial.clear();
                    self.in_q = q;
                    self.in_dest_bad = dbad;
                    self.in_vc_bad = vbad;
                    self.in_flush = flush;
                }
                self.in_err = err;
                self.partial.extend_from_slice(&i.cmd_data);
                let beat_last = self.in_beat == cmd_beats - 1;
                if i.cmd_last && beat_last {
                    if dbad {
                        ev.drop_dest = true;
                    } else if vbad {
                        ev.drop_vc = true;
                    } else if err {
                        ev.drop_err = true;
                    } else {
                        ev.commit = true;
                        self.commit = Some(Commit { q: q as usize, flush: flush && h > 0, bytes: std::mem::take(&mut self.partial) });
                    }
                    self.in_beat = 0;
                } else if i.cmd_last || beat_last {
                    ev.drop_framing = true;
                    self.in_skip = !i.cmd_last;
                    self.in_beat = 0;
                } else {
                    self.in_beat += 1;
                }
            }
        }
        self.ev = ev;
    }
}
