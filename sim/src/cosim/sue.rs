//! SUE packer (`sue_packer`) in lockstep with its cycle-accurate model: every output compared
//! every cycle (tready, q_space, queued_cmds, the PDU stream when valid, every counter), under
//! random commands to every {destination, VC} (some with a bad destination or VC, an err bit or
//! broken framing), random output backpressure, VC pause and dest_ok gating. Independently of
//! the model, a scoreboard checks that every good command comes out exactly once, bit-exact, in
//! order per {destination, VC}, in PDUs of at most max_pack_bytes whose tdest/tuser match.

use super::{Options, Tally};
use crate::axis::Axis;
use crate::{Bench, Bits, Dut, SimError, TestRng};
use rtl_gen::hw::axis::Signal::{Data, Dest, Last, Ready, User, Valid};
use rtl_gen::blocks::sue_packer::model::{PackerModel, PkCounters, PkInputs};
use rtl_gen::blocks::sue_packer::{SuePackerBlock, SuePackerParams};
use rtl_gen::elab::ElabModule;
use std::collections::VecDeque;

/// A command to offer: its beats and sideband, and whether the packer must queue it.
#[derive(Debug, Clone)]
pub struct Cmd {
    pub dest: u32,
    /// [1:0] vc, [2] flush, [3] err (on every beat).
    pub user: u8,
    pub beats: Vec<Vec<u8>>,
    /// Index of the beat carrying tlast (`beats.len()` = none: the next command's first beat
    /// would end the discard, so a missing tlast is followed by a stray tlast beat).
    pub last_at: usize,
    pub good: bool,
}

/// One PDU seen on the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pdu {
    pub dest: u32,
    pub vc: u32,
    pub ncmds: u32,
    pub bytes: Vec<u8>,
    /// Cycle of the first beat's handshake.
    pub start: u64,
}

/// The packer and its model side by side, with the stimulus queue and the scoreboard.
pub struct PackerLockstep {
    pub b: SuePackerBlock,
    pub dut: Dut,
    /// The command stream in and the PDU stream out.
    cmd: Axis,
    pdu: Axis,
    pub model: PackerModel,
    pub tally: Tally,
    pub cycle: u64,
    /// Commands waiting to be offered, and the beat of the first one being offered.
    pub pending: VecDeque<Cmd>,
    beat: usize,
    /// Good commands accepted and not yet seen in a PDU, per queue, with their commit cycle.
    expect: Vec<VecDeque<Vec<u8>>>,
    committed_at: Vec<VecDeque<u64>>,
    /// Per command sent: cycles from its tlast handshake to its PDU's first beat handshake.
    pub latencies: Vec<u64>,
    cur: Option<Pdu>,
    /// Every PDU seen, in order.
    pub pdus: Vec<Pdu>,
}

impl PackerLockstep {
    pub fn new(
        bench: &Bench,
        b: &SuePackerBlock,
        dut_name: &str,
    ) -> Result<PackerLockstep, SimError> {
        let m = bench.module(&b.name, rtl_gen::hw::module::Role::SuePacker)?;
        PackerLockstep::with_module(bench, b, m, dut_name)
    }

    pub fn with_module(
        bench: &Bench,
        b: &SuePackerBlock,
        m: &ElabModule,
        dut_name: &str,
    ) -> Result<PackerLockstep, SimError> {
        let mut dut = Dut::build_named(bench.tree(), m.name(), dut_name)?;
        dut.reset(2)?;
        let (cmd, pdu) = (Axis::of(&dut, "s_axis_cmd")?, Axis::of(&dut, "m_axis_pdu")?);
        let mut model = b.model();
        model.reset();
        let nq = b.common.num_queues() as usize;
        Ok(PackerLockstep {
            b: b.clone(),
            dut,
            cmd,
            pdu,
            model,
            tally: Tally::default(),
            cycle: 0,
            pending: VecDeque::new(),
            beat: 0,
            expect: vec![VecDeque::new(); nq],
            committed_at: vec![VecDeque::new(); nq],
            latencies: Vec::new(),
            cur: None,
            pdus: Vec::new(),
        })
    }

    /// One cycle: offer the next pending beat, drive `inp`'s other fields, compare, clock.
    pub fn step(&mut self, mut inp: PkInputs) -> Result<(), SimError> {
        let db = self.b.common.data_bytes as usize;
        let nq = self.b.common.num_queues() as usize;
        if let Some(c) = self.pending.front() {
            inp.cmd_valid = true;
            inp.cmd_data = c.beats[self.beat].clone();
            inp.cmd_last = self.beat == c.last_at;
            inp.cmd_dest = c.dest;
            inp.cmd_user = c.user;
        } else {
            inp.cmd_valid = false;
            inp.cmd_data = vec![0; db];
        }
        if inp.dest_ok.is_empty() {
            inp.dest_ok = vec![true; self.b.common.num_xpu as usize];
        }
        let (d, cmd, pdu) = (&mut self.dut, &self.cmd, &self.pdu);
        cmd.set_u64(d, Valid, inp.cmd_valid as u64)?;
        cmd.set(d, Data, &Bits::from_bytes_width(&inp.cmd_data, 8 * db))?;
        cmd.set_u64(d, Last, inp.cmd_last as u64)?;
        cmd.set_u64(d, Dest, u64::from(inp.cmd_dest))?;
        cmd.set_u64(d, User, u64::from(inp.cmd_user))?;
        d.set_u64("vc_pause", u64::from(inp.vc_pause))?;
        let mut ok = Bits::zeros(inp.dest_ok.len());
        for (i, &b) in inp.dest_ok.iter().enumerate() {
            ok.set(i, b);
        }
        d.set("dest_ok", &ok)?;
        pdu.set_u64(d, Ready, inp.pdu_ready as u64)?;
        d.eval();
        let o = self.model.outputs(&inp);
        let (c, t) = (self.cycle, &mut self.tally);
        t.compare(c, cmd.label(Ready), o.cmd_ready as u64, cmd.get_u64(d, Ready)?);
        let mut qs = Bits::zeros(nq);
        for (i, &b) in o.q_space.iter().enumerate() {
            qs.set(i, b);
        }
        t.compare_bits(c, "q_space", &qs, &d.get("q_space")?);
        t.compare(c, "queued_cmds", u64::from(o.queued_cmds), d.get_u64("queued_cmds")?);
        t.compare(c, pdu.label(Valid), o.pdu_valid as u64, pdu.get_u64(d, Valid)?);
        if o.pdu_valid {
            t.compare(c, pdu.label(Last), o.pdu_last as u64, pdu.get_u64(d, Last)?);
            t.compare(c, pdu.label(Dest), u64::from(o.pdu_dest), pdu.get_u64(d, Dest)?);
            t.compare(c, pdu.label(User), u64::from(o.pdu_user), pdu.get_u64(d, User)?);
            t.compare_bits(c, pdu.label(Data), &Bits::from_bytes_width(self.model.pdu_data(), 8 * db), &pdu.get(d, Data)?);
        }
        for (name, v) in PkCounters::NAMES.iter().zip(o.counters.values()) {
            t.compare(c, name, v, d.get_u64(name)?);
        }
        t.vectors += 1;

        // Scoreboard, from the model's (compared) outputs and the stimulus alone.
        if inp.cmd_valid && o.cmd_ready {
            let cmd = self.pending.front().expect("offered").clone();
            if self.beat == cmd.last_at || self.beat + 1 == cmd.beats.len() {
                if cmd.good {
                    let q = self.b.common.queue(cmd.dest, u32::from(cmd.user & 3)) as usize;
                    self.expect[q].push_back(cmd.beats.concat());
                    self.committed_at[q].push_back(c);
                }
                self.pending.pop_front();
                self.beat = 0;
            } else {
                self.beat += 1;
            }
        }
        if o.pdu_valid && inp.pdu_ready {
            let cb = self.b.common.cmd_bytes as usize;
            let p = self.cur.get_or_insert_with(|| Pdu {
                dest: o.pdu_dest,
                vc: o.pdu_user & 3,
                ncmds: o.pdu_user >> 2,
                bytes: Vec::new(),
                start: c,
            });
            t.compare(
                c,
                "scoreboard: tdest/tuser constant over a PDU",
                (p.dest, p.vc, p.ncmds),
                (o.pdu_dest, o.pdu_user & 3, o.pdu_user >> 2),
            );
            p.bytes.extend_from_slice(self.model.pdu_data());
            if o.pdu_last {
                let p = self.cur.take().expect("a PDU");
                t.compare(
                    c,
                    "scoreboard: PDU bytes = ncmds x cmd_bytes",
                    p.bytes.len(),
                    p.ncmds as usize * cb,
                );
                t.compare(
                    c,
                    "scoreboard: PDU within max_pack_bytes",
                    true,
                    p.bytes.len() <= self.b.common.max_pack_bytes as usize && p.ncmds >= 1,
                );
                let q = self.b.common.queue(p.dest, p.vc) as usize;
                for cmd in p.bytes.chunks(cb) {
                    let want = self.expect.get_mut(q).and_then(|e| e.pop_front());
                    if let Some(at) = self.committed_at.get_mut(q).and_then(|e| e.pop_front()) {
                        self.latencies.push(p.start - at);
                    }
                    t.compare(
                        c,
                        "scoreboard: command in order, exactly once, bit-exact",
                        want.as_deref(),
                        Some(cmd),
                    );
                }
                self.pdus.push(p);
            }
        }
        self.model.tick(&inp);
        self.dut.tick();
        self.cycle += 1;
        Ok(())
    }

    /// 1 while a PDU's beats are being taken (its first beat was handed over), else 0.
    pub fn pdus_in_progress(&self) -> usize {
        self.cur.is_some() as usize
    }

    /// Commands accepted and not yet sent.
    pub fn outstanding(&self) -> usize {
        self.expect.iter().map(|e| e.len()).sum()
    }

    /// Run with the output open and nothing paused until every command was offered and sent
    /// (at most `limit` cycles); a command still outstanding is a scoreboard mismatch.
    pub fn drain(&mut self, limit: u64) -> Result<(), SimError> {
        let mut n = 0;
        while (!self.pending.is_empty() || self.outstanding() > 0 || self.cur.is_some())
            && n < limit
        {
            self.step(PkInputs {
                pdu_ready: true,
                ..Default::default()
            })?;
            n += 1;
        }
        let c = self.cycle;
        self.tally.compare(
            c,
            "scoreboard: every accepted command sent after draining",
            0,
            self.outstanding() + self.pending.len(),
        );
        Ok(())
    }

    /// A command of random content tagged with its sequence number, to (dest, vc).
    pub fn command(&self, rng: &mut TestRng, seq: u32, dest: u32, vc: u32) -> Cmd {
        let c = &self.b.common;
        let mut bytes = rng.bytes(c.cmd_bytes as usize);
        bytes[..4].copy_from_slice(&seq.to_le_bytes());
        let good = dest < c.num_xpu && vc < c.num_vc;
        let beats: Vec<Vec<u8>> = bytes
            .chunks(c.data_bytes as usize)
            .map(|b| b.to_vec())
            .collect();
        Cmd {
            dest,
            user: (vc & 3) as u8,
            last_at: beats.len() - 1,
            beats,
            good,
        }
    }
}

/// Random traffic with faults, pause and backpressure, then drained.
pub fn random_traffic(
    t: &mut PackerLockstep,
    rng: &mut TestRng,
    cycles: u64,
) -> Result<(), SimError> {
    let c = t.b.common.clone();
    let mut seq = 0u32;
    let mut vc_pause = 0u32;
    let mut dest_ok = vec![true; c.num_xpu as usize];
    for cyc in 0..cycles {
        // Phases of 1500 cycles: output mostly stalled (queues fill, PDUs pack), balanced, open.
        let (p_cmd, p_ready) = match (cyc / 1500) % 3 {
            0 => (0.9, 0.15),
            1 => (0.6, 0.6),
            _ => (0.3, 0.95),
        };
        if t.pending.len() < 2 && rng.chance(p_cmd) {
            // Hot destinations: a skewed choice so some queues pack deep.
            let dest = if rng.chance(0.01) {
                c.num_xpu + rng.range(0, 3) as u32
            } else if rng.chance(0.5) {
                0
            } else {
                rng.range(0, c.num_xpu as u64 - 1) as u32
            };
            let vc = if rng.chance(0.01) && c.num_vc < 4 {
                c.num_vc
            } else {
                rng.range(0, c.num_vc as u64 - 1) as u32
            };
            let mut cmd = t.command(rng, seq, dest.min(1023), vc);
            seq += 1;
            if rng.chance(0.1) {
                cmd.user |= 4; // flush
            }
            if rng.chance(0.01) {
                cmd.user |= 8; // err
                cmd.good = false;
            }
            if rng.chance(0.01) && cmd.beats.len() > 1 {
                cmd.last_at = rng.range(0, cmd.beats.len() as u64 - 2) as usize; // tlast early
                cmd.beats.truncate(cmd.last_at + 1);
                cmd.good = false;
            } else if rng.chance(0.01) {
                // tlast missing: two extra beats, the second with tlast ends the discard.
                let extra = cmd.beats[0].clone();
                cmd.beats.push(extra.clone());
                cmd.beats.push(extra);
                cmd.last_at = cmd.beats.len() - 1;
                cmd.good = false;
            }
            t.pending.push_back(cmd);
        }
        if rng.chance(0.01) {
            vc_pause = rng.range(0, (1u64 << c.num_vc) - 1) as u32;
        }
        if rng.chance(0.01) {
            let d = rng.range(0, c.num_xpu as u64 - 1) as usize;
            dest_ok[d] = !dest_ok[d];
        }
        let inp = PkInputs {
            vc_pause,
            dest_ok: dest_ok.clone(),
            pdu_ready: rng.chance(p_ready),
            ..Default::default()
        };
        t.step(inp)?;
    }
    t.drain(
        20 * (c.num_queues() as u64) * u64::from(t.b.packer.queue_depth) * u64::from(c.cmd_beats()) + 1000,
    )
}

/// The cosim driver of `sue_packer` modules.
pub fn packer(
    bench: &Bench,
    m: &ElabModule,
    opts: &Options,
    rng: &mut TestRng,
) -> Result<Tally, SimError> {
    let b = &super::kind_params::<SuePackerParams>(m)?.block("model").map_err(|e| super::design_error(m, e))?;
    let mut t = PackerLockstep::with_module(bench, b, m, &format!("cosim_{}", m.name()))?;
    random_traffic(&mut t, rng, opts.vectors)?;
    let mut tally = t.tally;
    tally.cycles = t.cycle;
    Ok(tally)
}
