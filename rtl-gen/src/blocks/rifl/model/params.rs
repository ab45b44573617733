//! The parameters of one RIFL node (a validated `rifl` block) and the sizes derived from them.

/// Every parameter the model and the RTL are built from (defaults already resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Frame size F in bits: 128, 256, 512, 1024 or 2048.
    pub frame_bits: u32,
    /// Frame ID width n; the retransmission buffer holds 2^n frames.
    pub frame_id_bits: u32,
    /// 12-bit CRC generator, normal form (x^12 implied).
    pub crc_poly: u16,
    /// AXI4-Stream data width (a power of two ≥ 8).
    pub user_bits: u32,
    pub lanes: u32,
    /// Flow-control buffer depth in frames, per lane.
    pub fc_buffer_frames: u32,
    /// Send a flow-control pause frame when the buffer holds more than this many frames.
    pub fc_on_frames: u32,
    /// Send a flow-control resume frame when it holds fewer than this many (after a pause).
    pub fc_off_frames: u32,
    pub scrambler: bool,
    /// Listing 1's rollback distance (the RX must see this many good frames in sequence).
    pub retrans_threshold: u32,
    /// Consecutive requests that raise a control flag (and quiet frames that clear it).
    pub control_repeat: u32,
}

/// Width of the verification code (CRC-12 XOR frame ID).
pub const VCODE_BITS: u32 = 12;

impl Params {
    /// The payload P = F − 2 (SYN) − 2 (meta) − 12 (verification code).
    pub fn payload_bits(&self) -> usize {
        self.frame_bits as usize - 16
    }
    pub fn payload_bytes(&self) -> usize {
        self.payload_bits() / 8
    }
    /// The scrambled and CRC-protected region `{payload, meta}`: P + 2 bits.
    pub fn raw_bits(&self) -> usize {
        self.payload_bits() + 2
    }
    pub fn frame_width(&self) -> usize {
        self.frame_bits as usize
    }
    /// 2^n: frame IDs, retransmission buffer entries.
    pub fn ids(&self) -> u32 {
        1 << self.frame_id_bits
    }
    pub fn id_mask(&self) -> u32 {
        self.ids() - 1
    }
    /// Frames of one retransmission procedure: 2.5·2^n (§4.C).
    pub fn retrans_frames(&self) -> u32 {
        5 * self.ids() / 2
    }
    pub fn user_bytes(&self) -> usize {
        self.user_bits as usize / 8
    }
    /// Bytes of one group: one payload per lane, all sent in the same frame slot.
    pub fn group_bytes(&self) -> usize {
        self.lanes as usize * self.payload_bytes()
    }
    pub fn lanes(&self) -> usize {
        self.lanes as usize
    }
    /// Cycles from a frame entering the node's receive side to its transmit side answering it
    /// over a zero-delay cable (first beat in to first beat out): 12 with one lane, 14 with more
    /// (each lane's own TX and RX skid buffers add one cycle each way).
    pub fn node_pass_cycles(&self) -> u32 {
        if self.lanes > 1 { 14 } else { 12 }
    }
    /// Width of the CRC message `{payload, 5'b0, syn[1], meta}`.
    pub fn crc_msg_bits(&self) -> usize {
        self.payload_bits() + 8
    }
}

/// Table 2 of the paper: the minimal frame ID width for each frame size (100 Gb/s, 500 ns RTT).
pub fn table2_frame_id_bits(frame_bits: u32) -> u32 {
    match frame_bits {
        128 => 9,
        256 => 8,
        512 => 7,
        1024 => 6,
        _ => 5,
    }
}

/// Speed of light in the cable (m/s) and the circuit delay per direction the derivation assumes
/// (the paper's §2.B example: 100 ns).
pub const CABLE_M_PER_S: f64 = 2.0e8;
pub const CIRCUIT_NS: f64 = 100.0;

/// Frames in flight during one round trip (Eq. 2–4 and 13): RTT = 2·(T_circuit + L/c).
pub fn rtt_frames(cable_m: u32, lane_gbps: u32, frame_bits: u32) -> u32 {
    let rtt_ns = 2.0 * (CIRCUIT_NS + cable_m as f64 / CABLE_M_PER_S * 1e9);
    (rtt_ns * lane_gbps as f64 / frame_bits as f64).ceil() as u32
}

/// The frame ID width the authors' RTL derives: ⌈log2(16 + 16 + RTT frames)⌉ (rollback
/// distance, request repeats and slack, plus the frames in flight).
pub fn derived_frame_id_bits(cable_m: u32, lane_gbps: u32, frame_bits: u32) -> u32 {
    let need = 32 + rtt_frames(cable_m, lane_gbps, frame_bits);
    32 - (need - 1).leading_zeros()
}

/// A small, fast test configuration (used by unit tests of the model).
pub const fn small() -> Params {
    Params {
        frame_bits: 128,
        frame_id_bits: 6,
        crc_poly: 0x80F,
        user_bits: 64,
        lanes: 1,
        fc_buffer_frames: 64,
        fc_on_frames: 42,
        fc_off_frames: 21,
        scrambler: true,
        retrans_threshold: 16,
        control_repeat: 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_sizes() {
        let p = Params { frame_bits: 256, frame_id_bits: 8, ..small() };
        assert_eq!(p.payload_bits(), 240);
        assert_eq!(p.payload_bytes(), 30);
        assert_eq!(p.retrans_frames(), 640);
        // 10 m of cable at 28 Gb/s: RTT = 2·(100 + 50) ns = 300 ns → 8400 bits → 33 frames.
        assert_eq!(rtt_frames(10, 28, 256), 33);
        assert_eq!(derived_frame_id_bits(10, 28, 256), 7);
        // 500 m at 100 Gb/s: 2·(100 + 2500) ns = 5.2 µs → 2032 frames + 32 → 12 bits.
        assert_eq!(derived_frame_id_bits(500, 100, 256), 12);
    }
}
