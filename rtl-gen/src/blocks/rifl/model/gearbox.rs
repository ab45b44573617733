//! The AXI4-Stream width converter (§5.A) used in both directions: a byte packer from `I`-byte
//! input beats to `O`-byte output beats that keeps packets apart (a packet always starts at
//! byte 0 of an output beat, as RIFL needs for its groups).
//!
//! TX: user beats (`user_bits`) → groups of `lanes` payloads; RX: groups → user beats.
//!
//! Cycle behaviour (RTL `<prefix><name>_txgear` / `_rxgear`). A buffer of C = I + O bytes
//! holds `fill` bytes of one packet at its bottom (bytes at and above `fill` are zero) and the
//! flag `eop` (the packet's last beat is in):
//! * `out_valid = fill ≥ O || eop`; the beat is the bottom O bytes, `out_keep` the first
//!   min(fill, O) bytes, `out_last = eop && fill ≤ O`;
//! * at the edge, an output transfer drops the bottom O bytes (all, with `out_last`: a
//!   *flush*); an input transfer then places its kept bytes (contiguous from byte 0, at least
//!   one; all I unless `in_last`) at the new fill level `base` and sets `eop` with `in_last`;
//! * `in_ready = (!eop || flush && overlap) && base + I ≤ C`: it looks at this cycle's output
//!   transfer, so the buffer stays small (C = I + O) at full rate. With `overlap` (the RX
//!   converter) the next packet enters in the cycle the previous one's last beat leaves; without
//!   it (TX) one cycle later, so a packet boundary costs the sender exactly one slot and the
//!   receiver, which loses at most one input slot per packet, always keeps up (otherwise its
//!   flow-control buffer would fill at full load and add latency).
//!
//! Within a packet every input beat is full, so input beat n of a packet lands at packet byte
//! n·I and output beat m starts at packet byte m·O (after a partial last beat nothing is placed
//! until the flush, base 0). The RTL uses that: it never shifts held bytes but keeps them in a
//! ring written at n·I and read at m·O (both mod the ring size), with the same ports cycle for
//! cycle (bytes outside the held ones are never read: the output beat is masked by `out_keep`).

/// The state of one converter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gearbox {
    pub in_bytes: usize,
    pub out_bytes: usize,
    pub buf: Vec<u8>,
    pub fill: usize,
    pub eop: bool,
    /// Accept the next packet in the flush cycle (the RX converter).
    pub overlap: bool,
}

/// The converter's combinational outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GearOut<'a> {
    pub valid: bool,
    pub data: &'a [u8],
    /// Valid bytes of the output beat (its `out_keep` is this many ones from byte 0).
    pub count: usize,
    pub last: bool,
}

impl Gearbox {
    pub fn new(in_bytes: usize, out_bytes: usize, overlap: bool) -> Self {
        let cap = in_bytes + out_bytes;
        Gearbox { in_bytes, out_bytes, buf: vec![0; cap], fill: 0, eop: false, overlap }
    }

    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// `in_ready` given this cycle's `out_ready`.
    pub fn in_ready(&self, out_ready: bool) -> bool {
        let out = self.out();
        let do_out = out.valid && out_ready;
        let flush = do_out && out.last;
        let base = if flush {
            0
        } else if do_out {
            self.fill - self.out_bytes
        } else {
            self.fill
        };
        (!self.eop || (flush && self.overlap)) && base + self.in_bytes <= self.capacity()
    }

    pub fn out(&self) -> GearOut<'_> {
        let o = self.out_bytes;
        GearOut { valid: self.fill >= o || self.eop, data: &self.buf[..o], count: self.fill.min(o), last: self.eop && self.fill <= o }
    }

    /// One clock edge. `in_data` holds at least `in_count` bytes (the rest are ignored).
    pub fn tick(&mut self, in_valid: bool, in_data: &[u8], in_count: usize, in_last: bool, out_ready: bool) {
        let o = self.out_bytes;
        let out = self.out();
        let (do_out, out_last) = (out.valid && out_ready, out.last);
        let do_in = in_valid && self.in_ready(out_ready);
        if do_out {
            if out_last {
                self.buf.iter_mut().for_each(|b| *b = 0);
                self.fill = 0;
                self.eop = false;
            } else {
                self.buf.copy_within(o.., 0);
                let cap = self.capacity();
                self.buf[cap - o..].iter_mut().for_each(|b| *b = 0);
                self.fill -= o;
            }
        }
        if do_in {
            assert!((1..=self.in_bytes).contains(&in_count), "in_keep must keep 1..={} bytes", self.in_bytes);
            assert!(in_last || in_count == self.in_bytes, "a beat that is not the last must keep every byte");
            self.buf[self.fill..self.fill + in_count].copy_from_slice(&in_data[..in_count]);
            self.fill += in_count;
            self.eop = in_last;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Push packets through and collect output beats; returns packets as byte vectors.
    fn run(i: usize, o: usize, packets: &[Vec<u8>], ready_pattern: u64, overlap: bool) -> (Vec<Vec<u8>>, u64) {
        let mut g = Gearbox::new(i, o, overlap);
        let mut out_packets = vec![];
        let mut cur = vec![];
        let (mut pk, mut pos) = (0usize, 0usize);
        let mut cycles = 0u64;
        while out_packets.len() < packets.len() {
            cycles += 1;
            assert!(cycles < 1_000_000);
            let ready = (ready_pattern >> (cycles % 64)) & 1 == 1;
            let out = g.out();
            if out.valid && ready {
                cur.extend_from_slice(&out.data[..out.count]);
                if out.last {
                    out_packets.push(std::mem::take(&mut cur));
                } else {
                    assert_eq!(out.count, o);
                }
            }
            let (valid, data, count, last) = if pk < packets.len() {
                let p = &packets[pk];
                let n = (p.len() - pos).min(i);
                let mut d = p[pos..pos + n].to_vec();
                d.resize(i, 0xEE);
                (true, d, n, pos + n == p.len())
            } else {
                (false, vec![0; i], 1, false)
            };
            let accepted = valid && g.in_ready(ready);
            g.tick(valid, &data, count, last, ready);
            if accepted {
                pos += count;
                if last {
                    pk += 1;
                    pos = 0;
                }
            }
        }
        (out_packets, cycles)
    }

    #[test]
    fn packets_survive_every_width_pair() {
        let packets: Vec<Vec<u8>> = (1..60).map(|n| (0..n * 3).map(|k| (k * 31 + n) as u8).collect()).collect();
        for (i, o) in [(32, 30), (30, 32), (8, 14), (14, 8), (64, 62), (16, 120), (128, 30), (4, 4)] {
            for pattern in [u64::MAX, 0x5555_5555_5555_5555, 0xF0F0_0FF0_1234_8765] {
                for overlap in [false, true] {
                    let (got, _) = run(i, o, &packets, pattern, overlap);
                    assert_eq!(got, packets, "I={i} O={o} overlap {overlap}");
                }
            }
        }
    }

    #[test]
    fn full_rate_within_a_packet() {
        // One 3000-byte packet 32 → 30: 100 output beats in about 100 cycles, not 200.
        let (_, cycles) = run(32, 30, &[vec![7u8; 3000]], u64::MAX, false);
        assert!(cycles <= 104, "{cycles} cycles");
        let (_, cycles) = run(30, 32, &[vec![7u8; 3000]], u64::MAX, true);
        assert!(cycles <= 104, "{cycles} cycles");
    }

    #[test]
    fn receiver_keeps_up_with_the_sender() {
        // The RX converter (30-byte groups in, 32-byte beats out, overlap) loses at most one input
        // slot per packet; the TX converter (32-byte beats in, 30-byte groups out) loses exactly
        // one output slot per packet.
        for len in [1usize, 29, 30, 31, 32, 33, 61, 62, 63, 64, 95, 300, 4001] {
            let packets: Vec<Vec<u8>> = (0..50).map(|k| vec![k as u8; len]).collect();
            let groups = 50 * len.div_ceil(30) as u64;
            let (got, rx_cycles) = run(30, 32, &packets, u64::MAX, true);
            assert_eq!(got, packets);
            assert!(rx_cycles <= groups + 50 + 4, "len {len}: RX {rx_cycles} cycles for {groups} groups");
            let mut g = Gearbox::new(32, 30, false);
            let (mut outs, mut cycles, mut pk, mut pos) = (0u64, 0u64, 0usize, 0usize);
            while outs < groups {
                cycles += 1;
                let o = g.out();
                outs += o.valid as u64;
                let n = if pk < 50 { (len - pos).min(32) } else { 1 };
                let last = pk < 50 && pos + n == len;
                let take = pk < 50 && g.in_ready(true);
                g.tick(pk < 50, &[1u8; 32], n, last, true);
                if take {
                    pos += n;
                    if last {
                        pk += 1;
                        pos = 0;
                    }
                }
            }
            assert!(cycles >= groups + 49, "len {len}: TX {cycles} cycles for {groups} groups");
        }
    }
}
