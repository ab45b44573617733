//! Campaigns beyond one machine.
//!
//! A campaign is a fixed list of independent *work units* (RXL: endpoint × topology × segment;
//! RIFL sweep: one BER point each), numbered 0..n in a fixed order. Each unit's randomness is a
//! function of the campaign seed and the unit alone ([`unit_seed`], or for the RIFL sweep the
//! campaign seed itself at every point), never of the machine or the shard, so:
//! - `Shard { index: K, count: N }` runs the units `u` with `u % N == K` (round robin, so
//!   expensive units that sit next to each other spread over the shards);
//! - every shard writes its unit records (JSON), and merging the records of all N shards gives
//!   exactly the records of the single run (`count = 1`) with the same options and seed; the
//!   tables, CSV and plots are computed from the merged records.

use crate::campaign::CampaignError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A deterministic slice of a campaign: shard `index` of `count` (0-based, "K/N" on the
/// command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The whole campaign.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    pub fn new(index: u32, count: u32) -> Result<Shard, CampaignError> {
        if count == 0 || index >= count {
            return Err(CampaignError::Config(format!("shard {index}/{count}: allowed K/N with N ≥ 1 and 0 ≤ K < N")));
        }
        Ok(Shard { index, count })
    }

    /// Whether unit `unit` belongs to this shard.
    pub fn owns(&self, unit: usize) -> bool {
        unit % self.count as usize == self.index as usize
    }

    /// The units of `0..total` this shard runs.
    pub fn units(&self, total: usize) -> Vec<usize> {
        (0..total).filter(|&u| self.owns(u)).collect()
    }

    pub fn is_all(&self) -> bool {
        self.count == 1
    }
}

impl Default for Shard {
    fn default() -> Shard {
        Shard::ALL
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// "K/N", 0 ≤ K < N.
impl FromStr for Shard {
    type Err = CampaignError;
    fn from_str(s: &str) -> Result<Shard, CampaignError> {
        let bad = || CampaignError::Config(format!("shard `{s}`: expected K/N with 0 ≤ K < N (e.g. 0/4)"));
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k = k.trim().parse::<u32>().map_err(|_| bad())?;
        let n = n.trim().parse::<u32>().map_err(|_| bad())?;
        Shard::new(k, n).map_err(|_| bad())
    }
}

/// The seed of work unit `unit` of a campaign seeded `seed`: a SplitMix64-derived sub-stream,
/// independent of the shard that runs it.
pub fn unit_seed(seed: u64, unit: usize) -> u64 {
    rtl_gen::math::splitmix::derive_seed(seed, unit as u64)
}

/// Checks that `shards` (the shard of each file being merged) are one campaign split into
/// `count` parts, each present exactly once.
pub fn check_complete(shards: &[Shard]) -> Result<(), CampaignError> {
    let Some(first) = shards.first() else {
        return Err(CampaignError::Config("nothing to merge: no result files".into()));
    };
    let n = first.count;
    let mut seen = vec![false; n as usize];
    for s in shards {
        if s.count != n {
            return Err(CampaignError::Config(format!("shard {s} does not belong to a campaign split into {n} shards (the first file's)")));
        }
        if std::mem::replace(&mut seen[s.index as usize], true) {
            return Err(CampaignError::Config(format!("shard {s} given twice")));
        }
    }
    let missing: Vec<String> = seen.iter().enumerate().filter(|(_, &x)| !x).map(|(k, _)| format!("{k}/{n}")).collect();
    if !missing.is_empty() {
        return Err(CampaignError::Config(format!("shards missing: {}", missing.join(", "))));
    }
    Ok(())
}

/// One shard's result as [`merge_units`] takes it: its shard, what every shard of the campaign
/// must share (options, parameters, unit count), and its unit records.
pub type ShardPart<C, R> = (Shard, C, Vec<R>);

/// The unit records of one campaign's shards, in unit order. The shards must be complete
/// ([`check_complete`]) and share one configuration; where `units` gives the campaign's unit
/// count, every unit must be there exactly once.
pub fn merge_units<C: PartialEq, R>(
    parts: Vec<ShardPart<C, R>>,
    units: impl Fn(&C) -> Option<usize>,
    unit: impl Fn(&R) -> usize,
) -> Result<(C, Vec<R>), CampaignError> {
    let shards: Vec<Shard> = parts.iter().map(|p| p.0).collect();
    check_complete(&shards)?;
    let mut parts = parts.into_iter();
    let (first, config, mut records) = parts.next().expect("check_complete refuses no parts");
    for (shard, c, r) in parts {
        if c != config {
            return Err(CampaignError::Config(format!(
                "shard {shard} ran other options than shard {first}: not one campaign"
            )));
        }
        records.extend(r);
    }
    records.sort_by_key(&unit);
    if let Some(n) = units(&config) {
        if records.len() != n || records.iter().enumerate().any(|(i, r)| unit(r) != i) {
            return Err(CampaignError::Config(format!(
                "the shards hold {} unit records for a campaign of {n} units",
                records.len()
            )));
        }
    }
    Ok((config, records))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_split_and_check() {
        let s: Shard = "1/4".parse().expect("valid");
        assert_eq!(s, Shard { index: 1, count: 4 });
        assert_eq!(s.to_string(), "1/4");
        for bad in ["4/4", "1", "a/b", "0/0", "-1/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let all: Vec<usize> = (0..4).flat_map(|k| Shard { index: k, count: 4 }.units(10)).collect();
        let mut sorted = all.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>(), "every unit exactly once");
        assert!(check_complete(&[Shard { index: 1, count: 2 }, Shard { index: 0, count: 2 }]).is_ok());
        assert!(check_complete(&[Shard { index: 1, count: 2 }]).is_err());
        assert!(check_complete(&[Shard { index: 0, count: 2 }, Shard { index: 0, count: 2 }]).is_err());
        assert_ne!(unit_seed(5, 0), unit_seed(5, 1));
    }

    #[test]
    fn merge_units_orders_records_and_refuses_mixed_or_holey_campaigns() {
        let sh = |k| Shard::new(k, 2).expect("shard");
        let (c, r) = merge_units(vec![(sh(1), 3, vec![1]), (sh(0), 3, vec![0, 2])], |&n| Some(n), |&u| u).expect("one campaign");
        assert_eq!((c, r), (3, vec![0, 1, 2]));
        let e = merge_units(vec![(sh(0), 3, vec![0, 2]), (sh(1), 4, vec![1])], |&n| Some(n), |&u| u).expect_err("two campaigns");
        assert!(e.to_string().contains("other options"), "{e}");
        let e = merge_units(vec![(sh(0), 3, vec![0]), (sh(1), 3, vec![2])], |&n| Some(n), |&u| u).expect_err("unit 1 missing");
        assert!(e.to_string().contains("hold 2 unit records for a campaign of 3"), "{e}");
        assert!(merge_units(vec![(sh(0), 3, vec![0]), (sh(1), 3, vec![2])], |_| None, |&u| u).is_ok());
    }
}
