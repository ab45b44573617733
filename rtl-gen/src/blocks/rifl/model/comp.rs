//! Clock compensation of a node on recovered clocks (§4.E, end of §5.B), edge by edge: the
//! machine `<p>_comp` implements. Three clocks: the TX clock (`clk_edge`), lane 0's recovered
//! clock, the far end's TX clock (`rx_edge`), and a free-running clock (`free_edge`). Each edge
//! updates only its own domain's registers from the values every register holds before it, as
//! one evaluation per edge does in the RTL; a synchronizer is a shift register of its domain.

/// Bits of the two cycle counters (their steps between two free-clock edges stay below half of
/// 2^COUNT_BITS with a free clock of at least 1/32 of the others).
pub const COUNT_BITS: u32 = 7;
/// Bits of the balance (TX cycles gained, offset by the floor).
pub const BALANCE_BITS: u32 = 8;
/// The balance of no gain: room for the far end being faster, or for sampling noise.
pub const BALANCE_FLOOR: u32 = 16;
/// Bits of the owed-Idle counter that crosses back into the TX clock.
pub const OWED_BITS: u32 = 8;
/// Flops of each synchronizer.
pub const SYNC_STAGES: u32 = 2;

fn gray(b: u32) -> u32 {
    b ^ (b >> 1)
}

fn bin(g: u32) -> u32 {
    let mut b = g;
    let mut s = g >> 1;
    while s != 0 {
        b ^= s;
        s >>= 1;
    }
    b
}

fn mask(bits: u32) -> u32 {
    (1 << bits) - 1
}

/// The registers of the three domains.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Compensation {
    // clk domain
    tx_bin: u32,
    tx_gray: u32,
    owed_sync: [u32; SYNC_STAGES as usize],
    paid: u32,
    // rx_clk domain
    rx_bin: u32,
    rx_gray: u32,
    // free_clk domain
    tx_sync: [u32; SYNC_STAGES as usize],
    rx_sync: [u32; SYNC_STAGES as usize],
    tx_seen: u32,
    rx_seen: u32,
    tx_prev: u32,
    rx_prev: u32,
    seen: bool,
    primed: bool,
    /// TX steps minus recovered steps between the last two samples.
    net: i64,
    balance: u32,
    owed_bin: u32,
    owed_gray: u32,
    /// Idle slots the TX domain has taken (no register: for the tests).
    pub idles: u64,
}

impl Compensation {
    /// Every domain in reset.
    pub fn new() -> Compensation {
        Compensation { balance: BALANCE_FLOOR, ..Compensation::default() }
    }

    /// `idle`: the TX slot at the next clk edge must carry no user data.
    pub fn idle(&self) -> bool {
        bin(self.owed_sync[SYNC_STAGES as usize - 1]) != self.paid
    }

    /// Cycles gained and not yet owed (balance above the floor; negative: the far end gains).
    pub fn gain(&self) -> i64 {
        self.balance as i64 - BALANCE_FLOOR as i64
    }

    /// A rising edge of clk; `slot`: tx_ready at it.
    pub fn clk_edge(&mut self, slot: bool) {
        let idle = self.idle();
        self.tx_bin = (self.tx_bin + 1) & mask(COUNT_BITS);
        self.tx_gray = gray(self.tx_bin);
        self.owed_sync = [self.owed_gray, self.owed_sync[0]];
        if idle && slot {
            self.paid = (self.paid + 1) & mask(OWED_BITS);
            self.idles += 1;
        }
    }

    /// A rising edge of the recovered clock.
    pub fn rx_edge(&mut self) {
        self.rx_tick_edge(true);
    }

    /// A rising edge of the recovered clock with `rx_tick` (the node with `gt_bits`: its
    /// recovered clock is the far end's transceiver clock, R times its clk, and the count
    /// advances once per frame the lane aligner completes).
    pub fn rx_tick_edge(&mut self, tick: bool) {
        if !tick {
            return;
        }
        self.rx_bin = (self.rx_bin + 1) & mask(COUNT_BITS);
        self.rx_gray = gray(self.rx_bin);
    }

    /// A rising edge of the free-running clock: three register stages (the counts in binary,
    /// their net step, the balance), each from the values before the edge.
    pub fn free_edge(&mut self) {
        let m = mask(COUNT_BITS);
        let pay = self.balance > BALANCE_FLOOR;
        let sum = self.balance as i64 + self.net - pay as i64;
        self.balance = sum.clamp(0, mask(BALANCE_BITS) as i64) as u32;
        self.net = if self.primed { (self.tx_seen.wrapping_sub(self.tx_prev) & m) as i64 - (self.rx_seen.wrapping_sub(self.rx_prev) & m) as i64 } else { 0 };
        self.tx_prev = self.tx_seen;
        self.rx_prev = self.rx_seen;
        self.primed = self.seen;
        self.seen = true;
        self.tx_seen = bin(self.tx_sync[SYNC_STAGES as usize - 1]);
        self.rx_seen = bin(self.rx_sync[SYNC_STAGES as usize - 1]);
        if pay {
            self.owed_bin = (self.owed_bin + 1) & mask(OWED_BITS);
            self.owed_gray = gray(self.owed_bin);
        }
        self.tx_sync = [self.tx_gray, self.tx_sync[0]];
        self.rx_sync = [self.rx_gray, self.rx_sync[0]];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edges of three ideal clocks (periods in arbitrary units), in time order.
    fn run(tx_period: u64, rx_period: u64, free_period: u64, until: u64) -> Compensation {
        let mut c = Compensation::new();
        let mut next = [0u64, 1, 2];
        let periods = [tx_period, rx_period, free_period];
        loop {
            let k = (0..3).min_by_key(|&k| (next[k], k)).expect("three clocks");
            if next[k] > until {
                return c;
            }
            match k {
                0 => c.clk_edge(true),
                1 => c.rx_edge(),
                _ => c.free_edge(),
            }
            next[k] += periods[k];
        }
    }

    #[test]
    fn a_faster_tx_clock_owes_one_idle_per_cycle_gained_and_a_slower_one_none() {
        // 200 ppm faster TX clock over 10^6 cycles gains 200 cycles.
        let c = run(1_000_000, 1_000_200, 9_000_000, 1_000_000 * 1_000_000);
        assert!((198..=203).contains(&c.idles), "{} idles", c.idles);
        let c = run(1_000_200, 1_000_000, 9_000_000, 1_000_000 * 1_000_000);
        assert!(c.idles <= 1, "the slower end pays nothing ({})", c.idles);
        // Equal clocks: sampling noise costs at most a couple of slots.
        let c = run(1_000_000, 1_000_000, 3_333_333, 1_000_000 * 1_000_000);
        assert!(c.idles <= 2, "{}", c.idles);
    }
}
