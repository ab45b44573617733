//! The per-lane flow-control buffer (§4.D): a first-word-fall-through FIFO whose storage is a
//! block RAM (synchronous read) of `fc_buffer_frames` raw regions, plus a head register.
//!
//! Cycle behaviour (RTL `<prefix><name>_fifo`), at every clock edge:
//! * `fetch = mem_count != 0 && (!head_valid || pop)`: the head register loads the oldest
//!   stored entry (the RAM read), `rd_ptr` advances;
//! * `push` writes `din` at `wr_ptr` (dropped, and counted by the model, when `mem_count` is
//!   already `fc_buffer_frames`: the thresholds are sized so that it never happens);
//! * `head_valid <= fetch || (head_valid && !pop)`.
//!
//! A pushed entry reaches the head two edges later. `level = mem_count + head_valid` drives
//! `high = level > fc_on_frames` and `low = level < fc_off_frames` (of this cycle's level; the
//! RTL holds them in registers that take the next level's comparison at every edge).

use crate::bits::Bits;
use super::params::Params;

#[derive(Debug, Clone)]
pub struct Fifo {
    depth: u32,
    on: u32,
    off: u32,
    pub mem: Vec<Bits>,
    pub wr_ptr: u32,
    pub rd_ptr: u32,
    pub mem_count: u32,
    pub head: Bits,
    pub head_valid: bool,
    /// Pushes dropped because the memory was full (never in a correctly sized link).
    pub overflows: u64,
    /// Highest level seen.
    pub max_level: u32,
}

impl Fifo {
    pub fn new(p: &Params) -> Self {
        Fifo {
            depth: p.fc_buffer_frames,
            on: p.fc_on_frames,
            off: p.fc_off_frames,
            mem: vec![Bits::zeros(p.raw_bits()); p.fc_buffer_frames as usize],
            wr_ptr: 0,
            rd_ptr: 0,
            mem_count: 0,
            head: Bits::zeros(p.raw_bits()),
            head_valid: false,
            overflows: 0,
            max_level: 0,
        }
    }

    pub fn level(&self) -> u32 {
        self.mem_count + self.head_valid as u32
    }
    pub fn high(&self) -> bool {
        self.level() > self.on
    }
    pub fn low(&self) -> bool {
        self.level() < self.off
    }

    fn next(&self, ptr: u32) -> u32 {
        if ptr + 1 == self.depth {
            0
        } else {
            ptr + 1
        }
    }

    pub fn tick(&mut self, push: bool, din: &Bits, pop: bool) {
        let pop = pop && self.head_valid;
        let fetch = self.mem_count != 0 && (!self.head_valid || pop);
        let mut count = self.mem_count;
        if fetch {
            self.head = self.mem[self.rd_ptr as usize].clone();
            self.rd_ptr = self.next(self.rd_ptr);
            count -= 1;
        }
        if push {
            if self.mem_count < self.depth {
                self.mem[self.wr_ptr as usize] = din.clone();
                self.wr_ptr = self.next(self.wr_ptr);
                count += 1;
            } else {
                self.overflows += 1;
            }
        }
        self.mem_count = count;
        self.head_valid = fetch || (self.head_valid && !pop);
        self.max_level = self.max_level.max(self.level());
    }
}
