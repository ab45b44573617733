//! Block kind `sue_packer`: the SUE mapping and packing layer (seed §1.2, §3.3, §4.2 steps 2–3,
//! §4.4). Commands (fixed `cmd_bytes`, `tlast` on the last beat) are queued per {destination,
//! VC} in one inferred block RAM; a two-level round robin (VCs, then destinations within the
//! VC, seed §4.2 step 3) picks an eligible queue and packs up to `max_pack_bytes` of its
//! commands (≤ 4096, seed §3.3) into one PDU payload. With the default `hold_cycles = 0` the
//! packer never waits to pack: "If a destination queue has a single transaction, the
//! transaction is sent. SUE does not delay transactions for reasons of packing" (seed §4.4).
//! `hold_cycles > 0` is our extension (contract §4.4): a queue short of a full PDU may wait that
//! many cycles unless a command with the flush bit (the seed's "transmit without waiting",
//! §4.2 step 2) is queued.
//!
//! Timing: a command committed in cycle T to an idle packer starts its PDU in T+3 (commit event,
//! grant, PDU start and RAM read: one pipeline stage each, so no register-to-register path
//! crosses more than one of them); the next queue is granted while the current PDU is sent, so
//! PDUs follow each other with no idle cycle; one beat per cycle in and out.
//! The cycle-accurate reference model is [`model::PackerModel`].

pub mod model;
mod props;
pub(crate) mod rtl;

use crate::blocks::sue::{SueCommon, COMMON_FIELDS, MAX_STORAGE_BYTES};
use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::ConfigResult;
use crate::fields::{FieldReader, FieldSpec, FieldType};
use model::PackerModel;

pub struct SuePackerKind;

static FIELDS: [FieldSpec; 8] = [
    COMMON_FIELDS[0],
    COMMON_FIELDS[1],
    COMMON_FIELDS[2],
    COMMON_FIELDS[3],
    COMMON_FIELDS[4],
    COMMON_FIELDS[5],
    FieldSpec { name: "queue_depth", ty: FieldType::UInt { min: 1, max: 1024 }, default: Some("32"), doc: "commands per {destination, VC} queue (RAM rounded up to a power of two)" },
    FieldSpec {
        name: "hold_cycles",
        ty: FieldType::UInt { min: 0, max: 65535 },
        default: Some("0"),
        doc: "0 = never wait to pack (seed §4.4); > 0 = our extension: a queue short of a full PDU may wait this many cycles for more commands unless flushed",
    },
];

/// A validated `sue_packer` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuePackerBlock {
    pub name: String,
    pub common: SueCommon,
    pub queue_depth: u32,
    pub hold_cycles: u32,
}

impl SuePackerBlock {
    pub fn model(&self) -> PackerModel {
        PackerModel::new(self)
    }

    /// The module's `latency`: from the cycle a command's last beat is taken on `s_axis_cmd`
    /// (an idle packer, `dest_ok` set and the VC not paused, `m_axis_pdu_tready` high) to the
    /// cycle its PDU's first beat is valid on `m_axis_pdu`: the command is committed in T
    /// (registered as an event), its queue granted in T + 1, its PDU started (commands counted
    /// out) and first beat read out of the RAM in T + 2, presented in T + 3. Measured on the RTL
    /// by `sim/tests/sue_latency.rs`.
    pub fn latency(&self) -> u32 {
        3
    }

    /// The module, named `name` (the endpoint embeds it as `<name>_packer`).
    pub fn module(&self, design: &DesignInfo, name: &str) -> GeneratedModule {
        rtl::module(self, design, name)
    }
}

/// Read the packer's own fields after the shared ones (also used by the endpoint).
pub fn read_packer(r: &mut FieldReader, common: &SueCommon) -> ConfigResult<(u32, u32)> {
    let queue_depth = r.u32("queue_depth")?;
    let storage =
        u64::from(common.num_queues()) * u64::from(queue_depth) * u64::from(common.cmd_bytes);
    if storage > MAX_STORAGE_BYTES {
        return Err(r.error(
            "queue_depth",
            format!(
                "= {queue_depth} makes the packer storage num_xpu × num_vc × queue_depth × cmd_bytes = {storage} bytes, over the 16 MiB limit; allowed 1..={}",
                (MAX_STORAGE_BYTES / (u64::from(common.num_queues()) * u64::from(common.cmd_bytes))).max(1)
            ),
        ));
    }
    let hold_cycles = r.u32("hold_cycles")?;
    Ok((queue_depth, hold_cycles))
}

impl BlockKind for SuePackerKind {
    fn kind(&self) -> &'static str {
        "sue_packer"
    }
    fn summary(&self) -> &'static str {
        "SUE packer: per-{destination, VC} command queues in block RAM, two-level round robin, packs up to max_pack_bytes per PDU, never waits by default"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        let common = SueCommon::read(r, &crate::blocks::sue::DATA_BYTES)?;
        let (queue_depth, hold_cycles) = read_packer(r, &common)?;
        Ok(Box::new(SuePackerBlock {
            name: r.block().to_string(),
            common,
            queue_depth,
            hold_cycles,
        }))
    }
}

impl Block for SuePackerBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "sue_packer"
    }
    fn params(&self) -> Vec<(&'static str, String)> {
        let mut p = self.common.params();
        p.push(("queue_depth", self.queue_depth.to_string()));
        p.push(("hold_cycles", self.hold_cycles.to_string()));
        p
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        vec![format!("{}{}", design.prefix, self.name)]
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        vec![self.module(design, &self.module_names(design)[0])]
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
