//! The record every generator returns for one module: the Verilog tree plus what the banner,
//! docs, manifest and simulator need to know about it (typed role, latency, own parameters).

use super::verilog::{Item, Module, Port};
use crate::info::DesignInfo;
use serde::{Deserialize, Serialize};

/// What a module is within its block. Tests, the simulator and the manifest find modules by
/// (block, role); only the generators turn a role into a module-name suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// CRC generator (`crc`, `rs_crc`; the CRC inside an endpoint).
    Crc,
    /// CRC checker: data + CRC in, ok out.
    CrcCheck,
    /// Streaming CRC over AXI4-Stream beats (`crc_stream`).
    CrcStream,
    /// Replay buffer (`replay_buffer`; the one inside an endpoint).
    Replay,
    /// Reed-Solomon encoder (`rs_fec`).
    FecEnc,
    /// Reed-Solomon decoder (`rs_fec`).
    FecDec,
    /// A whole RXL / CXL link endpoint (`rxl_endpoint`).
    Endpoint,
    /// Switch port receive half: decode and drop uncorrectable (`rxl_switch`).
    LinkRx,
    /// Switch port transmit half: re-encode (`rxl_switch`).
    LinkTx,
    /// A whole RIFL node (`rifl`).
    Node,
    /// RIFL TX controller.
    Tx,
    /// RIFL RX controller.
    Rx,
    /// RIFL flow-control buffer.
    Fifo,
    /// RIFL user-to-lane width converter.
    TxGear,
    /// RIFL lane-to-user width converter.
    RxGear,
    /// RIFL frame encoder (CRC ^ frame ID into the verification code).
    FrameEncode,
    /// RIFL frame checker.
    FrameCheck,
    /// RIFL CRC-12 network.
    FrameCrc,
    /// RIFL scrambler.
    Scrambler,
    /// RIFL descrambler.
    Descrambler,
    /// RIFL receiver on its recovered clock with the crossing into the node clock.
    RxCdc,
    /// RIFL clock compensation (TX and RX cycle counters compared on a free-running clock).
    ClockComp,
    /// RIFL Lane Aligner: transceiver words to aligned frames on a recovered clock.
    LaneAligner,
    /// RIFL TX GT width converter: frames on clk to transceiver words on the fast TX clock.
    GtTxWidth,
    /// RIFL temporal channel bonding, TX: user beats on the user clock into groups on clk.
    TemporalBondTx,
    /// RIFL temporal channel bonding, RX: groups on clk out as user beats on the user clock.
    TemporalBondRx,
    /// SUE packer (`sue_packer`; the one inside a SUE endpoint).
    SuePacker,
    /// SUE transport (`sue_transport`; the one inside a SUE endpoint).
    SueTransport,
    /// ReCXL replica map (`recxl_replica_map`).
    ReplicaMap,
    /// ReCXL Logging Unit (`recxl_logging_unit`).
    LoggingUnit,
    /// A whole Gen-Z LLR interface, TX and RX of one end of a link (`genz_llr`).
    Interface,
    /// Asynchronous FIFO between two clock domains (`async_fifo`).
    AsyncFifo,
    /// A generic RAM wrapper, one module per RAM shape ([`super::ram`]).
    Ram,
}

impl Role {
    pub const ALL: &'static [Role] = &[
        Role::Crc,
        Role::CrcCheck,
        Role::CrcStream,
        Role::Replay,
        Role::FecEnc,
        Role::FecDec,
        Role::Endpoint,
        Role::LinkRx,
        Role::LinkTx,
        Role::Node,
        Role::Tx,
        Role::Rx,
        Role::Fifo,
        Role::TxGear,
        Role::RxGear,
        Role::FrameEncode,
        Role::FrameCheck,
        Role::FrameCrc,
        Role::Scrambler,
        Role::Descrambler,
        Role::RxCdc,
        Role::ClockComp,
        Role::LaneAligner,
        Role::GtTxWidth,
        Role::TemporalBondTx,
        Role::TemporalBondRx,
        Role::SuePacker,
        Role::SueTransport,
        Role::ReplicaMap,
        Role::LoggingUnit,
        Role::Interface,
        Role::AsyncFifo,
        Role::Ram,
    ];

    /// The name in manifest.json and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Crc => "crc",
            Role::CrcCheck => "crc_check",
            Role::CrcStream => "crc_stream",
            Role::Replay => "replay",
            Role::FecEnc => "fec_enc",
            Role::FecDec => "fec_dec",
            Role::Endpoint => "endpoint",
            Role::LinkRx => "link_rx",
            Role::LinkTx => "link_tx",
            Role::Node => "node",
            Role::Tx => "tx",
            Role::Rx => "rx",
            Role::Fifo => "fifo",
            Role::TxGear => "tx_gear",
            Role::RxGear => "rx_gear",
            Role::FrameEncode => "frame_encode",
            Role::FrameCheck => "frame_check",
            Role::FrameCrc => "frame_crc",
            Role::Scrambler => "scrambler",
            Role::Descrambler => "descrambler",
            Role::RxCdc => "rx_cdc",
            Role::ClockComp => "clock_comp",
            Role::LaneAligner => "lane_aligner",
            Role::GtTxWidth => "gt_tx_width",
            Role::TemporalBondTx => "temporal_bond_tx",
            Role::TemporalBondRx => "temporal_bond_rx",
            Role::SuePacker => "sue_packer",
            Role::SueTransport => "sue_transport",
            Role::ReplicaMap => "replica_map",
            Role::LoggingUnit => "logging_unit",
            Role::Interface => "interface",
            Role::AsyncFifo => "async_fifo",
            Role::Ram => "ram",
        }
    }

    /// A part of a RIFL node that the node's own modules may not instantiate (the frame
    /// encoder, whose function the transmitter computes in its own network) but that the tree
    /// keeps as a file for users and unit tests. Elaboration emits identical parts of two blocks
    /// once even when nothing instantiates them; a block's interface modules (every other role)
    /// always keep their own names.
    pub fn is_node_part(self) -> bool {
        matches!(
            self,
            Role::Tx | Role::Rx | Role::Fifo | Role::TxGear | Role::RxGear | Role::FrameEncode | Role::FrameCheck | Role::FrameCrc | Role::Scrambler | Role::Descrambler | Role::RxCdc | Role::ClockComp | Role::LaneAligner | Role::GtTxWidth | Role::TemporalBondTx | Role::TemporalBondRx
        )
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.iter().copied().find(|r| r.as_str() == s)
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which (sub-)block built a module: its kind and that block's own parameters. A module an
/// endpoint builds through the `rs_fec` generator lists the FEC's parameters, not the endpoint's.
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub kind: &'static str,
    /// Typed values, in the order of the kind's field table.
    pub params: Vec<(&'static str, serde_json::Value)>,
}

/// A module ready to emit, with what its banner and docs say about it.
#[derive(Debug, Clone)]
pub struct GeneratedModule {
    pub module: Module,
    pub role: Role,
    /// Cycles from an input sample to the matching output (0 = combinational).
    pub latency: u32,
    /// What the module does, a few sentences for the banner and docs.
    pub summary: String,
    /// Further documentation lines (bit layouts, orientation notes) for the banner and docs.
    pub notes: Vec<String>,
    /// Set by [`crate::blocks::Block::elaborate`] from the block that built the module.
    pub origin: Option<Origin>,
}

impl GeneratedModule {
    pub fn name(&self) -> &str {
        &self.module.name
    }
    pub fn ports(&self) -> &[Port] {
        &self.module.ports
    }
    /// Module names this module instantiates, in order of first instance: derived from the
    /// tree, never kept by hand beside it.
    pub fn depends(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for item in &self.module.items {
            if let Item::Instance { module, .. } = item {
                if !out.contains(module) {
                    out.push(module.clone());
                }
            }
        }
        out
    }
}

/// The module `rtl-gen fpga` wraps `module` in for place and route (its pins and signature
/// register): a name the design's own modules must leave free.
pub fn fpga_wrapper_name(module: &str) -> String {
    format!("{module}_fpga_wrap")
}

/// `clk` and the design's reset port, first in the port list of every clocked module.
pub fn clock_ports(design: &DesignInfo) -> Vec<Port> {
    let reset_doc = if design.reset.active_low() { "asynchronous reset, active low" } else { "synchronous reset, active high" };
    vec![Port::input("clk", 1, "clock"), Port::input(design.reset.port(), 1, reset_doc)]
}

