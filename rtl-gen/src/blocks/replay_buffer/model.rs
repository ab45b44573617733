//! Cycle-accurate reference model of the `replay_buffer` module.
//!
//! State: `head` (oldest unacknowledged sequence number), `tail` (the number the next push
//! gets), `rd` (the number on the output), the RAM, its read register and its output register,
//! `q_ok` (the output register holds entry `rd`) and `s1_ok` (the read register holds entry
//! `rd + q_ok`: the one after the presented entry, or `rd`'s own while none is presented). The RTL also keeps `count`, `full` and the window's
//! wrap-around (`tail < head`) in registers, functions of these, so that its window tests are
//! comparisons with the pointers in parallel (formal property `p_flags`). Sequence numbers are
//! `seq_bits` wide and wrap; every comparison is made on offsets from `head`, which stay below
//! 2^seq_bits because `depth` ≤ 2^seq_bits − 1.
//!
//! Acks and replays are registered: the request presented in a cycle (`ack_*`, `replay_*`) is
//! judged in the next one, by the rules below, against that cycle's pointers.
//!
//! Per clock edge, from the values before it:
//! - `head` is an output; `count = tail − head` (a register in the RTL, updated from the next
//!   head and tail), `full = count == depth`, `push_ready = !full`, `push_seq = tail`;
//!   `out_valid = q_ok`, `out_seq = rd`, `out_data` = the output register.
//! - A push (push_valid && push_ready) writes entry `tail` and increments it.
//! - An ack (the one presented the cycle before) is taken when `ack_seq − head < count` (an entry actually held); others are stale
//!   and ignored. It moves `head` to `ack_seq + 1`.
//! - The output pointer: a replay with `replay_seq − head ≤ count` moves it to `replay_seq`
//!   (even while the output is stalled: the presented entry is withdrawn); otherwise an output
//!   transfer (out_valid && out_ready) increments it. If the ack judged at the same edge frees
//!   the replayed entry, or (without a replay) the presented one, it moves to the new head
//!   instead (acknowledged entries are not re-sent).
//! - A stall is `q_ok && !out_ready` (an entry presented and not taken). The output register
//!   loads the read register unless stalled; the read register loads the word at
//!   `rd + q_ok + s1_ok` (the entry after the ones the two registers hold) unless stalled while
//!   it holds its entry. Next cycle the output register is valid if it held during a stall or
//!   took a valid read register; the read register is valid if it held, or read an address
//!   other than the old `tail` (nothing there yet, or the entry being written at this edge:
//!   that read is undefined and never used). Neither is valid after a pointer jump (a replay,
//!   or an ack that freed the pointer's entry): they hold the old stream's entries, and the new
//!   one reaches the output two cycles later. So a push reaches the output three cycles later
//!   when the output had caught up, a replayed entry three cycles after the replay is judged,
//!   and the stream runs at one entry per cycle.

/// Inputs of one clock cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RbInputs {
    pub push_valid: bool,
    /// ⌈entry_bits/8⌉ bytes, bit k at byte k/8 bit k%8 (= push_data[k]).
    pub push_data: Vec<u8>,
    pub ack_valid: bool,
    pub ack_seq: u32,
    pub replay_valid: bool,
    pub replay_seq: u32,
    pub out_ready: bool,
}

/// Outputs during a cycle (they depend on registers only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RbOutputs {
    pub push_ready: bool,
    pub push_seq: u32,
    pub out_valid: bool,
    pub out_seq: u32,
    pub head: u32,
    pub count: u32,
    pub full: bool,
}

#[derive(Debug, Clone)]
pub struct ReplayBufferModel {
    entry_bytes: usize,
    seq_mask: u32,
    depth: u32,
    addr_mask: u32,
    head: u32,
    tail: u32,
    rd: u32,
    q_ok: bool,
    s1_ok: bool,
    ram: Vec<Vec<u8>>,
    /// The RAM's read register and output register.
    ram_q: Vec<u8>,
    out_q: Vec<u8>,
    /// The ack and replay presented last cycle, judged at this edge.
    ack: (bool, u32),
    replay: (bool, u32),
}

impl ReplayBufferModel {
    pub fn new(entry_bits: u32, seq_bits: u32, depth: u32) -> Self {
        assert!(depth >= 2 && u64::from(depth) < 1u64 << seq_bits, "depth {depth} with seq_bits {seq_bits}");
        let entry_bytes = (entry_bits as usize).div_ceil(8);
        let ram_entries = (depth as usize).next_power_of_two();
        ReplayBufferModel {
            entry_bytes,
            seq_mask: ((1u64 << seq_bits) - 1) as u32,
            depth,
            addr_mask: ram_entries as u32 - 1,
            head: 0,
            tail: 0,
            rd: 0,
            q_ok: false,
            s1_ok: false,
            ram: vec![vec![0; entry_bytes]; ram_entries],
            ram_q: vec![0; entry_bytes],
            out_q: vec![0; entry_bytes],
            ack: (false, 0),
            replay: (false, 0),
        }
    }

    /// Synchronous reset: the pointers and the valid flags; RAM contents are kept, as in the RTL.
    pub fn reset(&mut self) {
        self.head = 0;
        self.tail = 0;
        self.rd = 0;
        self.q_ok = false;
        self.s1_ok = false;
        self.ack = (false, 0);
        self.replay = (false, 0);
    }

    fn sub(&self, a: u32, b: u32) -> u32 {
        a.wrapping_sub(b) & self.seq_mask
    }

    pub fn count(&self) -> u32 {
        self.sub(self.tail, self.head)
    }

    /// Oldest unacknowledged sequence number.
    pub fn head(&self) -> u32 {
        self.head
    }

    pub fn outputs(&self) -> RbOutputs {
        let count = self.count();
        RbOutputs { push_ready: count != self.depth, push_seq: self.tail, out_valid: self.q_ok, out_seq: self.rd, head: self.head, count, full: count == self.depth }
    }

    /// `out_data`: the RAM's output register (meaningful while out_valid).
    pub fn out_data(&self) -> &[u8] {
        &self.out_q
    }

    /// The stored entry with sequence number `seq` (whatever the RAM holds at its address).
    pub fn entry(&self, seq: u32) -> &[u8] {
        &self.ram[(seq & self.addr_mask) as usize]
    }

    /// One rising clock edge with `inp` applied during the cycle before it.
    pub fn tick(&mut self, inp: &RbInputs) {
        let count = self.count();
        let full = count == self.depth;
        let push = inp.push_valid && !full;
        let out_fire = self.q_ok && inp.out_ready;
        let ((ack_valid, ack_seq), (replay_valid, replay_seq)) = (self.ack, self.replay);
        self.ack = (inp.ack_valid, inp.ack_seq & self.seq_mask);
        self.replay = (inp.replay_valid, inp.replay_seq & self.seq_mask);
        let ack_off = self.sub(ack_seq, self.head);
        let ack_ok = ack_valid && ack_off < count;
        let head_n = if ack_ok { (ack_seq + 1) & self.seq_mask } else { self.head };
        let replay_ok = replay_valid && self.sub(replay_seq, self.head) <= count;
        // A taken ack frees the entries from the head to ack_seq: the replayed one, or the
        // presented one (then the stepped pointer, rd + 1, is the new head or freed too).
        let frees = |x: u32| ack_ok && self.sub(x, self.head) <= ack_off;
        let (free_rd, rd_n) = if replay_ok {
            (false, if frees(replay_seq) { head_n } else { replay_seq })
        } else if frees(self.rd) {
            (true, head_n)
        } else {
            (false, if out_fire { (self.rd + 1) & self.seq_mask } else { self.rd })
        };
        let jump = replay_ok || free_rd;
        // The two read stages; a read of the entry written at this edge (rd_addr == tail) is
        // not used, so the model's read-first order is as good as any.
        let stall = self.q_ok && !inp.out_ready;
        let rd_en = !stall || !self.s1_ok;
        let rd_addr = (self.rd + u32::from(self.q_ok) + u32::from(self.s1_ok)) & self.seq_mask;
        if !stall {
            self.out_q.clone_from(&self.ram_q);
        }
        if rd_en {
            self.ram_q.clone_from(&self.ram[(rd_addr & self.addr_mask) as usize]);
        }
        if push {
            assert_eq!(inp.push_data.len(), self.entry_bytes, "push_data length in bytes");
            self.ram[(self.tail & self.addr_mask) as usize].clone_from(&inp.push_data);
        }
        let s1_ok = self.s1_ok;
        self.q_ok = !jump && (stall || s1_ok);
        self.s1_ok = !jump && ((stall && s1_ok) || rd_addr != self.tail);
        self.tail = (self.tail + push as u32) & self.seq_mask;
        self.head = head_n;
        self.rd = rd_n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(v: u8) -> Vec<u8> {
        vec![v; 2]
    }

    fn push(v: u8) -> RbInputs {
        RbInputs { push_valid: true, push_data: data(v), ..Default::default() }
    }

    #[test]
    fn pushes_stream_out_in_order_one_per_cycle() {
        let mut m = ReplayBufferModel::new(16, 4, 8);
        let mut seen = vec![];
        for c in 0..12u8 {
            let mut inp = if c < 6 { push(c + 10) } else { RbInputs::default() };
            inp.out_ready = true;
            let o = m.outputs();
            if o.out_valid {
                seen.push((o.out_seq, m.out_data()[0]));
            }
            m.tick(&inp);
        }
        assert_eq!(seen, (0..6).map(|i| (i as u32, 10 + i as u8)).collect::<Vec<_>>());
        assert_eq!(m.outputs().count, 6, "nothing acknowledged yet");
    }

    #[test]
    fn ack_frees_and_replay_rewinds() {
        let mut m = ReplayBufferModel::new(16, 4, 8);
        for c in 0..8u8 {
            m.tick(&RbInputs { out_ready: true, ..push(c) });
        }
        assert!(m.outputs().full);
        m.tick(&RbInputs { ack_valid: true, ack_seq: 2, out_ready: true, ..Default::default() });
        assert_eq!(m.outputs().count, 8, "judged the cycle after");
        m.tick(&RbInputs::default());
        assert_eq!(m.outputs().count, 5);
        // Stale ack (already freed) and an ack beyond the tail are ignored.
        m.tick(&RbInputs { ack_valid: true, ack_seq: 1, ..Default::default() });
        m.tick(&RbInputs { ack_valid: true, ack_seq: 9, ..Default::default() });
        m.tick(&RbInputs::default());
        assert_eq!(m.outputs().count, 5);
        m.tick(&RbInputs { replay_valid: true, replay_seq: 4, ..Default::default() });
        m.tick(&RbInputs::default());
        let o = m.outputs();
        assert_eq!((o.out_valid, o.out_seq), (false, 4), "the RAM reads the replayed entry");
        m.tick(&RbInputs::default());
        assert_eq!((m.outputs().out_valid, m.outputs().out_seq), (false, 4), "and moves it to its output register");
        m.tick(&RbInputs::default());
        let o = m.outputs();
        assert!(o.out_valid);
        assert_eq!((o.out_seq, m.out_data()[0]), (4, 4));
        // Replay of an acknowledged entry is ignored.
        m.tick(&RbInputs { replay_valid: true, replay_seq: 1, ..Default::default() });
        m.tick(&RbInputs::default());
        assert_eq!(m.outputs().out_seq, 4);
    }
}
