//! The result file of every campaign: what a campaign (or one shard of it) writes as JSON and
//! `merge` reads, and the Markdown report, CSV and SVG written beside it. It sits above every
//! campaign because it names each one's results; each campaign owns its records and their
//! writers (`campaign::rxl::record`, `campaign::rifl::sweep`, ...).

use crate::campaign::genz::campaign::GenzResults;
use crate::campaign::recxl::campaign::RecxlResults;
use crate::campaign::rifl::sweep::SweepResults;
use crate::campaign::rxl::record::rxl_csv;
use crate::campaign::rxl::RxlResults;
use crate::campaign::sue::campaign::SueResults;
use crate::link::CampaignError;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What a campaign (or one shard of it) writes as JSON, and `merge` reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "campaign", rename_all = "snake_case")]
pub enum ResultFile {
    Rxl(RxlResults),
    RiflSweep(SweepResults),
    Genz(GenzResults),
    Recxl(RecxlResults),
    Sue(SueResults),
}

impl ResultFile {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("records serialise")
    }

    pub fn from_json(text: &str, origin: &str) -> Result<ResultFile, CampaignError> {
        serde_json::from_str(text).map_err(|e| CampaignError::Config(format!("{origin}: not a campaign result file ({e})")))
    }

    pub fn read(path: &Path) -> Result<ResultFile, CampaignError> {
        let text = std::fs::read_to_string(path).map_err(|e| crate::SimError::io(format!("reading {}", path.display()), e))?;
        ResultFile::from_json(&text, &path.display().to_string())
    }

    pub fn write_json(&self, path: &Path) -> Result<(), CampaignError> {
        write_file(path, &self.to_json())
    }

    /// Merges the shards of one campaign (all of the same kind, options and seed, every shard
    /// exactly once) into the result of the single run.
    pub fn merge(files: Vec<ResultFile>) -> Result<ResultFile, CampaignError> {
        let mut rxl = Vec::new();
        let mut rifl = Vec::new();
        let mut genz = Vec::new();
        let mut recxl = Vec::new();
        let mut sue = Vec::new();
        for f in files {
            match f {
                ResultFile::Rxl(r) => rxl.push(r),
                ResultFile::RiflSweep(r) => rifl.push(r),
                ResultFile::Genz(r) => genz.push(r),
                ResultFile::Recxl(r) => recxl.push(r),
                ResultFile::Sue(r) => sue.push(r),
            }
        }
        let kinds = [!rxl.is_empty(), !rifl.is_empty(), !genz.is_empty(), !recxl.is_empty(), !sue.is_empty()];
        if kinds.iter().filter(|&&k| k).count() > 1 {
            return Err(CampaignError::Config("cannot merge results of different campaigns (RXL, RIFL sweep, Gen-Z, ReCXL, SUE) into one".into()));
        }
        if !genz.is_empty() {
            return Ok(ResultFile::Genz(GenzResults::merge(genz)?));
        }
        if !recxl.is_empty() {
            return Ok(ResultFile::Recxl(RecxlResults::merge(recxl)?));
        }
        if !sue.is_empty() {
            return Ok(ResultFile::Sue(SueResults::merge(sue)?));
        }
        match (rxl.is_empty(), rifl.is_empty()) {
            (false, _) => Ok(ResultFile::Rxl(RxlResults::merge(rxl)?)),
            (true, false) => Ok(ResultFile::RiflSweep(SweepResults::merge(rifl)?)),
            (true, true) => Err(CampaignError::Config("nothing to merge: no result files".into())),
        }
    }

    /// Reads and merges result files.
    pub fn merge_files<P: AsRef<Path>>(paths: &[P]) -> Result<ResultFile, CampaignError> {
        ResultFile::merge(paths.iter().map(|p| ResultFile::read(p.as_ref())).collect::<Result<Vec<_>, _>>()?)
    }

    /// The campaign's Markdown report (tables as a single run prints them).
    pub fn report(&self) -> String {
        match self {
            ResultFile::Rxl(r) => r.report(),
            ResultFile::RiflSweep(r) => r.report(),
            ResultFile::Genz(r) => r.report(),
            ResultFile::Recxl(r) => r.report(),
            ResultFile::Sue(r) => r.report(),
        }
    }

    /// Writes `PREFIX.json`, `PREFIX.csv`, `PREFIX.md` (and `PREFIX.svg` for the sweep); returns
    /// the paths written.
    pub fn write_all(&self, prefix: &str) -> Result<Vec<String>, CampaignError> {
        let mut files = vec![(format!("{prefix}.json"), self.to_json()), (format!("{prefix}.md"), self.report())];
        match self {
            ResultFile::Rxl(r) => files.push((format!("{prefix}.csv"), rxl_csv(&r.rows()))),
            ResultFile::Recxl(r) => files.push((format!("{prefix}.csv"), r.csv())),
            ResultFile::Sue(r) => files.push((format!("{prefix}.csv"), r.csv())),
            ResultFile::RiflSweep(r) => {
                files.push((format!("{prefix}.csv"), r.csv()));
                if r.reference().is_some() {
                    files.push((format!("{prefix}.svg"), r.svg()));
                }
            }
            ResultFile::Genz(r) => {
                files.push((format!("{prefix}.csv"), r.csv()));
                if r.shard.is_all() {
                    files.push((format!("{prefix}.svg"), r.svg()));
                }
            }
        }
        for (path, text) in &files {
            write_file(Path::new(path), text)?;
        }
        Ok(files.into_iter().map(|(p, _)| p).collect())
    }
}

/// Writes `text` to `path`, creating the folder.
pub fn write_file(path: &Path, text: &str) -> Result<(), CampaignError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| crate::SimError::io(format!("creating {}", dir.display()), e))?;
    }
    std::fs::write(path, text).map_err(|e| crate::SimError::io(format!("writing {}", path.display()), e))?;
    Ok(())
}
