//! A skid buffer: a stream stage with a *registered* ready, so the producer's transfer
//! (`in_valid & in_ready`) no longer depends combinationally on the consumer's ready, and the
//! consumer sees a registered beat. Two entries (the output register and the skid register)
//! keep one transfer per cycle while the consumer takes every beat.
//!
//! Cycle behaviour, at every edge (`free = !out_valid | out_ready`, `in_ready = !sk_valid`):
//! * `free`: the output register loads the skid entry if there is one (the skid empties), else
//!   the input beat (`out_valid <= sk_valid | in_valid`);
//! * not `free`: an input beat goes into the skid register (`in_valid & in_ready`).
//!
//! A beat taken at one edge is presented at the next (when the skid was empty). Only the two
//! valid flags are reset: the output data register loads at every `free` edge (what it holds
//! without its flag is never read), the skid data register at every edge it is empty and the
//! output register stalls.

use super::build::*;
use super::verilog::{Expr, Item};

/// The names of one skid buffer's signals, `<name>_...`.
#[derive(Debug, Clone)]
pub struct Skid {
    /// `<name>_in_ready`: the stage takes `in_valid` at this edge (a register's complement).
    pub in_ready: String,
    /// `<name>_valid`, `<name>_data`: the registered beat presented to the consumer.
    pub valid: String,
    pub data: String,
}

/// Emits the skid buffer `name` on `width`-bit beats: `in_valid`/`in_data` from the producer,
/// `out_ready` from the consumer. Returns the names of its ready, valid and data.
pub fn skid(items: &mut Vec<Item>, name: &str, width: u32, in_valid: Expr, in_data: Expr, out_ready: Expr) -> Skid {
    let n = |s: &str| format!("{name}_{s}");
    let (valid, data, sk_valid, sk_data, in_ready, free) = (n("valid"), n("data"), n("sk_valid"), n("sk_data"), n("in_ready"), n("free"));
    reg(items, &valid, 1, "the output register holds a beat");
    reg(items, &data, width, "the beat presented to the consumer");
    reg(items, &sk_valid, 1, "the skid register holds a beat (the consumer stalled while one came in)");
    reg(items, &sk_data, width, "the beat taken while the output register was stalled");
    wire(items, &in_ready, 1, "registered: empty skid register", id(&sk_valid).not());
    wire(items, &free, 1, "the output register is empty or handed over at this edge", or(id(&valid).not(), out_ready));
    items.push(Item::AlwaysFf {
        reset: Some(vec![set_id(&valid, Expr::zero()), set_id(&sk_valid, Expr::zero())]),
        body: vec![if_else(
            id(&free),
            vec![set_id(&valid, or(id(&sk_valid), in_valid.clone())), set_id(&sk_valid, Expr::zero())],
            vec![when(and(in_valid, id(&in_ready)), vec![set_id(&sk_valid, Expr::one())])],
        )],
    });
    items.push(Item::AlwaysFf {
        reset: None,
        body: vec![if_else(id(&free), vec![set_id(&data, mux(id(&sk_valid), id(&sk_data), in_data.clone()))], vec![when(id(&in_ready), vec![set_id(&sk_data, in_data)])])],
    });
    Skid { in_ready, valid, data }
}

/// The cycle model of [`skid`]: the same two registers over any beat type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkidModel<T> {
    pub out: Option<T>,
    pub skid: Option<T>,
}

impl<T: Clone> Default for SkidModel<T> {
    fn default() -> Self {
        SkidModel { out: None, skid: None }
    }
}

impl<T: Clone> SkidModel<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// `in_ready` (a register: the skid entry is free).
    pub fn in_ready(&self) -> bool {
        self.skid.is_none()
    }

    /// One edge: `input` is the producer's beat when it is valid.
    pub fn tick(&mut self, input: Option<&T>, out_ready: bool) {
        let taken = if self.in_ready() { input.cloned() } else { None };
        if self.out.is_none() || out_ready {
            self.out = self.skid.take().or(taken);
        } else if taken.is_some() {
            self.skid = taken;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::eval::Sim;
    use crate::hw::verilog::{Module, Port};
    use crate::info::ResetStyle;

    /// The RTL against the model under pseudo-random valid and ready; every beat arrives once,
    /// in order, and a producer that always offers with a consumer that always takes moves one
    /// beat per cycle.
    #[test]
    fn the_rtl_follows_the_model_and_keeps_full_rate() {
        let mut items = Vec::new();
        let s = skid(&mut items, "sb", 8, id("in_valid"), id("in_data"), id("out_ready"));
        items.push(Item::assign(id("in_ready"), id(&s.in_ready)));
        items.push(Item::assign(id("out_valid"), id(&s.valid)));
        items.push(Item::assign(id("out_data"), id(&s.data)));
        let ports = vec![
            Port::input("clk", 1, ""),
            Port::input("rst", 1, ""),
            Port::input("in_valid", 1, ""),
            Port::input("in_data", 8, ""),
            Port::input("out_ready", 1, ""),
            Port::output("in_ready", 1, ""),
            Port::output("out_valid", 1, ""),
            Port::output("out_data", 8, ""),
        ];
        let mut sim = Sim::new(&Module { name: "sb".into(), ports, items, reset: Some(ResetStyle::SyncHigh) });
        sim.set_u64("rst", 1);
        sim.clock();
        sim.set_u64("rst", 0);
        let mut m = SkidModel::<u64>::new();
        let (mut next, mut expect, mut x) = (0u64, 0u64, 0x2545_f491u64);
        for cyc in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // The last 1000 cycles: always valid, always ready.
            let (v, r) = if cyc >= 3000 { (true, true) } else { (x & 3 != 0, x & 12 != 0) };
            sim.set_u64("in_valid", v as u64);
            sim.set_u64("in_data", next & 0xff);
            sim.set_u64("out_ready", r as u64);
            assert_eq!(sim.get_u64("in_ready") == 1, m.in_ready(), "in_ready at cycle {cyc}");
            assert_eq!(sim.get_u64("out_valid") == 1, m.out.is_some(), "out_valid at cycle {cyc}");
            if let Some(d) = m.out {
                assert_eq!(sim.get_u64("out_data"), d & 0xff, "out_data at cycle {cyc}");
                if r {
                    assert_eq!(d, expect, "beats in order, each once");
                    expect += 1;
                }
            }
            if cyc >= 3002 {
                assert!(m.in_ready() && m.out.is_some(), "full rate at cycle {cyc}");
            }
            let took = v && m.in_ready();
            m.tick(v.then_some(&next), r);
            sim.clock();
            if took {
                next += 1;
            }
        }
        assert!(expect > 1500);
    }
}
