//! Definitions shared by the Scale-Up Ethernet kinds (`sue_packer`, and the transport and
//! endpoint built on it): the wire formats of [`wire`] (reliability header, R-CRC, PDU), the
//! untimed reference of the reliable transport protocol, [`transport`], and the fields every
//! SUE kind has ([`SueCommon`]).
//!
//! Source: the SUE specification (the seed `sue-scale-up-ethernet.txt`): §3.3 (PDU of up to
//! 4096 bytes of packed commands, RH + R-CRC), Table 3 (RH field widths), §4.2 (processing
//! flow), §4.4 (packing). Bit positions, the CRC model and the PDU byte layout are the choices
//! of the contract `specs/sue.md` §4.2 (the seed's Fig. 8 exists only as a caption).

pub mod transport;
pub mod wire;

use crate::error::{ConfigError, ConfigResult};
use crate::fields::{concat_fields, FieldReader, FieldSpec, FieldType};
use serde::{Deserialize, Serialize};

/// Largest packed payload of one PDU (seed §3.3: "up to 4096 bytes of packed SUE PDU").
pub const MAX_PDU_PAYLOAD: u64 = 4096;
/// Largest number of XPUs: the RH xpuid is 10 bits (seed Table 3).
pub const MAX_XPU: u64 = 1024;
/// Width of xpuid on every port (`tdest`, `tid`).
pub const XPUID_BITS: u32 = 10;
/// Width of a PDU's command count (`ncmds`): max_pack_bytes / cmd_bytes <= 512.
pub const NCMDS_BITS: u32 = 10;
/// Storage guard for any SUE RAM (our choice, contract §4.4/§4.5).
pub const MAX_STORAGE_BYTES: u64 = 16 << 20;
/// Allowed beat widths in bytes.
pub const DATA_BYTES: [u64; 5] = [8, 16, 32, 64, 128];
/// Beat widths the transport (and the endpoint) support: the RH and the R-CRC share the last
/// beat, which an 8-byte beat cannot hold.
pub const TRANSPORT_DATA_BYTES: [u64; 4] = [16, 32, 64, 128];

/// `data_bytes` of the packer.
pub const DATA_BYTES_FIELD: FieldSpec = FieldSpec { name: "data_bytes", ty: FieldType::UInt { min: 8, max: 128 }, default: Some("32"), doc: "beat width in bytes: 8, 16, 32, 64 or 128 (the seed's example bus is N = 256 bits, §3.2.1)" };

/// `data_bytes` as the transport and the endpoint list it.
pub const TRANSPORT_DATA_BYTES_FIELD: FieldSpec = FieldSpec { name: "data_bytes", ty: FieldType::UInt { min: 16, max: 128 }, default: Some("32"), doc: "beat width in bytes: 16, 32, 64 or 128 (the RH and the R-CRC share the last beat; the seed's example bus is N = 256 bits, §3.2.1)" };

/// The shared fields after `data_bytes`.
const SHARED_FIELDS: [FieldSpec; 5] = [
    FieldSpec { name: "cmd_bytes", ty: FieldType::UInt { min: 8, max: 4096 }, default: Some("64"), doc: "fixed command size in bytes, a multiple of data_bytes, at most max_pack_bytes" },
    FieldSpec { name: "num_xpu", ty: FieldType::UInt { min: 2, max: 1024 }, default: Some("4"), doc: "XPU ids 0..num_xpu-1 (the RH xpuid is 10 bits, seed Table 3)" },
    FieldSpec { name: "num_vc", ty: FieldType::UInt { min: 1, max: 4 }, default: Some("2"), doc: "virtual channels (RH vc is 2 bits; requests VC0, responses VC1, seed §3.2.2)" },
    FieldSpec { name: "max_pack_bytes", ty: FieldType::UInt { min: 8, max: 4096 }, default: Some("2048"), doc: "packing limit on payload bytes per PDU: a multiple of cmd_bytes, at least cmd_bytes (seed §3.3: at most 4096; default the seed's \"2K\", §4.4)" },
    FieldSpec { name: "counter_bits", ty: FieldType::UInt { min: 1, max: 64 }, default: Some("32"), doc: "width of the saturating status counters" },
];

/// The [`SueCommon`] fields of the packer, first in its table.
pub const COMMON_FIELDS: [FieldSpec; 6] = concat_fields([DATA_BYTES_FIELD], SHARED_FIELDS);

/// The [`SueCommon`] fields of the transport and the endpoint (16-byte beats at least).
pub const TRANSPORT_COMMON_FIELDS: [FieldSpec; 6] = concat_fields([TRANSPORT_DATA_BYTES_FIELD], SHARED_FIELDS);

/// The shared fields, validated: part of every SUE kind's parameter struct (flattened, so the
/// design-file names are these).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SueCommon {
    pub data_bytes: u32,
    pub cmd_bytes: u32,
    pub num_xpu: u32,
    pub num_vc: u32,
    pub max_pack_bytes: u32,
    pub counter_bits: u32,
}

/// An error about `field` of block `block` of kind `kind`.
pub fn field_error(block: &str, kind: &'static str, field: &str, problem: impl Into<String>) -> ConfigError {
    ConfigError::Field { block: block.to_string(), kind, field: field.to_string(), problem: problem.into() }
}

/// Why a `data_bytes` outside `sizes` is refused.
fn beat_rule(sizes: &[u64], n: u64) -> String {
    let list = sizes.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    if sizes == TRANSPORT_DATA_BYTES && DATA_BYTES.contains(&n) {
        format!("= {n} is not supported by sue_transport in this version; allowed {list} (the RH and the R-CRC share the last beat)")
    } else {
        format!("= {n} is not allowed; allowed {list}")
    }
}

/// Why a `max_pack_bytes` is refused.
fn pack_rule(cmd_bytes: u64, n: u64) -> String {
    format!("= {n} is out of range; allowed cmd_bytes..=4096 ({cmd_bytes}..=4096) in multiples of cmd_bytes — a packed SUE PDU carries at most 4096 bytes (SUE §3.3)")
}

impl SueCommon {
    /// The range checks of the shared fields whose error says the SUE's reason (the other
    /// ranges are the field reader's): run before [`crate::fields::read_params`]. `sizes` are
    /// the beat widths the kind supports ([`DATA_BYTES`], or [`TRANSPORT_DATA_BYTES`] for the
    /// transport and the endpoint).
    pub fn read_ranges(r: &mut FieldReader, sizes: &[u64]) -> ConfigResult<()> {
        r.uint_with_reason("data_bytes", |n| beat_rule(sizes, n))?;
        let cmd_bytes = r.uint("cmd_bytes")?;
        r.uint_with_reason("num_xpu", |n| format!("= {n} is out of range; allowed 2..=1024 (the RH xpuid is 10 bits)"))?;
        r.uint_with_reason("num_vc", |n| format!("= {n} is out of range; allowed 1..=4 (the RH vc is 2 bits)"))?;
        r.uint_with_reason("max_pack_bytes", |n| pack_rule(cmd_bytes, n))?;
        Ok(())
    }

    /// The combinations of the shared fields, for block `block` of kind `kind`.
    pub fn check(&self, block: &str, kind: &'static str, sizes: &[u64]) -> ConfigResult<()> {
        let SueCommon { data_bytes, cmd_bytes, max_pack_bytes, .. } = *self;
        if !sizes.contains(&u64::from(data_bytes)) {
            return Err(field_error(block, kind, "data_bytes", beat_rule(sizes, data_bytes.into())));
        }
        if cmd_bytes % data_bytes != 0 {
            return Err(field_error(
                block,
                kind,
                "cmd_bytes",
                format!("= {cmd_bytes} is not a multiple of data_bytes ({data_bytes}); allowed {}, {}, {}, … up to max_pack_bytes", data_bytes, 2 * data_bytes, 3 * data_bytes),
            ));
        }
        if u64::from(max_pack_bytes) > MAX_PDU_PAYLOAD || max_pack_bytes < cmd_bytes || max_pack_bytes % cmd_bytes != 0 {
            return Err(field_error(block, kind, "max_pack_bytes", pack_rule(cmd_bytes.into(), max_pack_bytes.into())));
        }
        Ok(())
    }

    /// Beats per command.
    pub fn cmd_beats(&self) -> u32 {
        self.cmd_bytes / self.data_bytes
    }

    /// Commands per PDU at most.
    pub fn max_cmds(&self) -> u32 {
        self.max_pack_bytes / self.cmd_bytes
    }

    /// Queues: one per {destination, VC}, index q = vc × num_xpu + dest (contract §4.3).
    pub fn num_queues(&self) -> u32 {
        self.num_xpu * self.num_vc
    }

    pub fn queue(&self, dest: u32, vc: u32) -> u32 {
        vc * self.num_xpu + dest
    }

    /// Largest value of a counter.
    pub fn counter_max(&self) -> u64 {
        if self.counter_bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.counter_bits) - 1
        }
    }
}
