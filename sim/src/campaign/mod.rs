//! Link and system campaigns: every campaign of the workspace lives here and shares the
//! [`channel::Channel`], the scoreboards, [`progress::Progress`], the result records of
//! [`record`] and the sharding of [`shard`]: RXL, RIFL, Gen-Z LLR, SUE and ReCXL, one submodule
//! each with the same shape.
//!
//! | module | what |
//! |---|---|
//! | [`channel`] | the one fault-injecting delay line (BER, bursts, drops, symbol errors beyond the FEC) for flits and lane frames |
//! | [`rxl`] | RXL / CXL-baseline endpoints and FEC-only switches (models, RTL, lockstep), the campaign loop, Eq. 7 / Eq. 11–14 |
//! | [`genz`] | two Gen-Z LLR interfaces (models, or RTL + model twins) on [`genz::run_link`]; [`genz::campaign`] the figures campaign (`rtl-gen sim genz --figures`), [`genz::compare`] RIFL vs RXL vs Gen-Z LLR |
//! | [`rifl`] | two RIFL nodes (model, RTL, lockstep twins) with traffic flows and scoreboard; [`rifl::sweep`] the BER sweep |
//! | [`recxl`] | ReCXL: the multi-node system (compute nodes, directories, fabric, logging units as models or RTL twins), crashes and recovery; [`recxl::campaign`] the random-crash figures campaign |
//! | [`sue`] | SUE: the packer's packing sweep, the switch model (per-class queues, PFC, loss, reordering between classes), the N-XPU fabric of RTL `sue_endpoint`s with scoreboards, the figures of `rtl-gen sim sue --figures` |
//! | [`record`] | serde records, Markdown tables, CSV, JSON result files, the sweep's SVG, `merge` |
//! | [`progress`] | progress bar on a terminal, plain lines otherwise |
//! | [`shard`] | `Shard` ("K/N"), per-unit seeds, completeness checks |
//!
//! # Entry points (what `rtl-gen sim …` calls)
//!
//! ```text
//! // rtl-gen sim rxl
//! campaign::rxl::endpoints_for_mode(&Bench, ModeSel) -> Result<Vec<String>, CampaignError>
//! campaign::rxl::run(&Bench, &RxlOptions, Shard, &mut Progress) -> Result<RxlResults, CampaignError>
//! // rtl-gen sim rifl-sweep
//! campaign::rifl::sweep::sweep(&Bench, &SweepOptions, Shard, &mut Progress) -> Result<SweepResults, CampaignError>
//! // both: JSON / CSV / Markdown / SVG, and rtl-gen sim merge FILES…
//! ResultFile::Rxl(results) / ResultFile::RiflSweep(results)
//! ResultFile::write_all(&self, prefix) -> Result<Vec<String>, CampaignError>   // PREFIX.json .md .csv (.svg)
//! ResultFile::report(&self) -> String                                          // the tables a single run prints
//! ResultFile::merge_files(&[path]) -> Result<ResultFile, CampaignError>       // N shards → the single run
//! "K/N".parse::<Shard>()
//! ```
//!
//! Options are plain structs with `Default` (no clap here). Blocks are taken from the
//! [`crate::Bench`], so the models always come from the same design as the RTL (a design file,
//! or a tree's manifest); a missing block or one of the wrong kind is a [`crate::SimError`]
//! (`UnknownBlock` listing the design's blocks, `WrongKind` naming the kind needed).
//!
//! Sharding: a campaign is a fixed list of work units whose randomness depends on the campaign
//! seed and the unit only; `--shard K/N` runs the units `u % N == K` and the merge of all N
//! shards' records is exactly the single run's (tested in `sim/tests/campaign_shards.rs`).
//!
//! Randomness: SplitMix64 everywhere (`rtl_gen::math::splitmix`, [`crate::TestRng`]).

pub mod channel;
pub mod genz;
pub mod progress;
pub mod recxl;
pub mod record;
pub mod rifl;
pub mod rxl;
pub mod shard;
pub mod sue;

pub use channel::{Channel, ChannelStats, Faults, Frame};
pub use progress::{Progress, ProgressStyle};
pub use record::ResultFile;
pub use shard::Shard;

use crate::SimError;

/// Why a campaign stopped.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// Building, loading or driving a model, or a block missing / of the wrong kind.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// Options that cannot run (named, with what is allowed), or result files that do not merge.
    #[error("campaign: {0}")]
    Config(String),
    /// A node running the RTL and the model in lockstep saw them disagree.
    #[error("{node}: RTL and model disagree at cycle {cycle} on {what}: RTL {rtl}, model {model}")]
    Mismatch { node: String, cycle: u64, what: String, rtl: String, model: String },
    /// The scoreboard found a packet lost, duplicated, reordered or corrupted.
    #[error("scoreboard: {0}")]
    Scoreboard(String),
}
