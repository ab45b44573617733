//! The replica map as one Rust function, used by the logging-unit model, the system simulation
//! and the co-simulation of the `recxl_replica_map` RTL (contract §4.9; the paper leaves the hash
//! and the group formation open, U1/U2/U5/U12).
//!
//! f = XOR of the 16-bit chunks of the line address; the group of a line is the N rotating
//! slots g, g+1, …, g+R−1 (mod N) with g = f mod N, so the set depends on the address only
//! ("all updates to a given line address are logged in the same set of nodes", paper §III-A)
//! and every CN is a member of R groups. Dump duty inside a group (paper §IV-E "each unit is in
//! charge of a range of physical addresses") goes to slot k = (f >> NB) mod R, or to the next
//! live slot after it when that member has failed (U12: no remapping after a failure).

/// A set of CNs (bit n = CN n), up to 256 nodes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NodeMask(pub [u64; 4]);

impl NodeMask {
    pub fn empty() -> Self {
        NodeMask([0; 4])
    }
    pub fn with(mut self, n: u32) -> Self {
        self.set(n);
        self
    }
    pub fn set(&mut self, n: u32) {
        self.0[(n / 64) as usize] |= 1 << (n % 64);
    }
    pub fn has(&self, n: u32) -> bool {
        self.0[(n / 64) as usize] >> (n % 64) & 1 == 1
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }
    /// Bits set here and not in `old`.
    pub fn gained_over(&self, old: &NodeMask) -> bool {
        self.0.iter().zip(old.0.iter()).any(|(a, b)| a & !b != 0)
    }
    pub fn from_u64(v: u64) -> Self {
        NodeMask([v, 0, 0, 0])
    }
    /// The low `n` bits as little-endian bytes (for Verilator ports).
    pub fn to_bytes(&self, n: u32) -> Vec<u8> {
        (0..n.div_ceil(8)).map(|i| (self.0[(i / 8) as usize] >> (8 * (i % 8))) as u8).collect()
    }
}

/// Geometry of the map: N nodes, R replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapShape {
    pub num_nodes: u32,
    pub replicas: u32,
}

/// What the map answers for one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaSet {
    /// Slot j's CN, j = 0..R−1.
    pub nodes: Vec<u32>,
    /// The slot in charge of dumping the line when every member is alive.
    pub dump_slot: u32,
    /// The live member in charge of dumping; `None` when all R members failed.
    pub dump_node: Option<u32>,
}

impl MapShape {
    /// NB = max(1, ⌈log2 N⌉).
    pub fn node_bits(&self) -> u32 {
        crate::hw::build::clog2(self.num_nodes as u64)
    }
    /// Width of `dump_slot`: max(1, ⌈log2 R⌉).
    pub fn slot_bits(&self) -> u32 {
        crate::hw::build::clog2(self.replicas as u64)
    }

    /// f: the XOR of the 16-bit chunks of the line address.
    pub fn fold(line: u64) -> u32 {
        let mut f = 0u64;
        let mut x = line;
        while x != 0 {
            f ^= x & 0xFFFF;
            x >>= 16;
        }
        f as u32
    }

    /// The replica group and dump duty of `line` given the failed CNs.
    pub fn map(&self, line: u64, failed: &NodeMask) -> ReplicaSet {
        let (n, r) = (self.num_nodes, self.replicas);
        let f = Self::fold(line);
        let g = f % n;
        let nodes: Vec<u32> = (0..r).map(|j| (g + j) % n).collect();
        let dump_slot = (f >> self.node_bits()) % r;
        let dump_node = (0..r).map(|i| nodes[((dump_slot + i) % r) as usize]).find(|c| !failed.has(*c));
        ReplicaSet { nodes, dump_slot, dump_node }
    }

    /// Whether `node` is a member of `line`'s group.
    pub fn is_member(&self, line: u64, node: u32) -> bool {
        let g = Self::fold(line) % self.num_nodes;
        (node + self.num_nodes - g) % self.num_nodes < self.replicas
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_rotate_and_every_node_is_in_r_groups() {
        let s = MapShape { num_nodes: 16, replicas: 3 };
        let mut count = [0u32; 16];
        for line in 0..16u64 {
            let set = s.map(line, &NodeMask::empty());
            assert_eq!(set.nodes, vec![line as u32 % 16, (line as u32 + 1) % 16, (line as u32 + 2) % 16]);
            for n in &set.nodes {
                count[*n as usize] += 1;
                assert!(s.is_member(line, *n));
            }
        }
        assert!(count.iter().all(|c| *c == 3));
    }

    #[test]
    fn dump_duty_moves_to_the_next_live_member() {
        let s = MapShape { num_nodes: 4, replicas: 2 };
        // f = 0x0013 ^ 0x0001 = 0x12: g = 2, slot = (0x12 >> 2) % 2 = 0.
        let line = 0x0001_0013;
        let set = s.map(line, &NodeMask::empty());
        assert_eq!((set.nodes.clone(), set.dump_slot, set.dump_node), (vec![2, 3], 0, Some(2)));
        assert_eq!(s.map(line, &NodeMask::empty().with(2)).dump_node, Some(3));
        assert_eq!(s.map(line, &NodeMask::empty().with(2).with(3)).dump_node, None);
    }
}
