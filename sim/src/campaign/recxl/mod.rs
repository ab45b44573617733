//! ReCXL system campaigns: [`system`] is the multi-node simulation of contract
//! `recxl.md` §5.3 (compute nodes, directories, fabric, logging units as models or RTL twins
//! ([`node`]), dump coordinator, crash, Table I recovery, scoreboards S1–S8); [`campaign`] runs
//! random crashes per variant with shards and computes the figures of §5.4.

pub mod campaign;
pub mod node;
pub mod system;

pub use node::{LuNode, RtlTwin};
pub use system::{Crash, CrashWhen, Defect, ScriptStore, SysOptions, System, Trial, Variant};
