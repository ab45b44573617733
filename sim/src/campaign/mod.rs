//! Link and system campaigns: every campaign of the workspace lives here, runs the links of
//! [`crate::link`] (channel, nodes, lockstep twins) or its own systems, and shares the
//! scoreboards, [`progress::Progress`] and the sharding of [`shard`]: RXL, RIFL, Gen-Z LLR, SUE
//! and ReCXL, one submodule each with the same shape. Each campaign owns its results type and
//! their writers (Markdown tables, CSV, SVG); [`crate::results::ResultFile`], above every
//! campaign, is the JSON file a shard writes and `merge` reads.
//!
//! | module | what |
//! |---|---|
//! | [`rxl`] | the RXL campaign loop over endpoint blocks × topologies × segments ([`rxl::campaign`]), its records, tables, CSV and SVG ([`rxl::record`]) |
//! | [`genz`] | [`genz::campaign`] the figures campaign (`rtl-gen sim genz --figures`), [`genz::compare`] RIFL vs RXL vs Gen-Z LLR |
//! | [`rifl`] | [`rifl::sweep`] the BER sweep and its SVG |
//! | [`recxl`] | ReCXL: the multi-node system (compute nodes, directories, fabric, logging units as models or RTL twins), crashes and recovery; [`recxl::campaign`] the random-crash figures campaign |
//! | [`sue`] | SUE: the packer's packing sweep, the switch model (per-class queues, PFC, loss, reordering between classes), the N-XPU fabric of RTL `sue_endpoint`s with scoreboards, the figures of `rtl-gen sim sue --figures` |
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
//! // both: JSON / CSV / Markdown / SVG, and rtl-gen sim merge FILES… (crate::results)
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

pub mod genz;
pub mod progress;
pub mod recxl;
pub mod rifl;
pub mod rxl;
pub mod shard;
pub mod sue;

pub use crate::link::channel::{Channel, ChannelStats, Faults, Frame};
pub use crate::link::CampaignError;
pub use progress::{Progress, ProgressStyle};
pub use shard::Shard;

