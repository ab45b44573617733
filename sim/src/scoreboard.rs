//! Comparing the DUT's transaction stream with the reference model's.
//!
//! The test pushes what the model expects ([`Scoreboard::push_expected`]) and what the DUT did
//! ([`Scoreboard::push_actual`]), each with the cycle it happened on. Transactions are matched
//! in order; the first mismatch is returned as an error carrying everything needed to debug
//! it: the transaction index, both cycles, both values, the RNG seed (with the command to
//! replay it) and the waveform path. The first error is sticky: later pushes and
//! [`Scoreboard::finish`] keep returning it, so a test that ignores one result still fails.
//! `finish` also fails when one side produced more transactions than the other.

use std::collections::VecDeque;
use std::fmt::{self, Debug};
use std::path::{Path, PathBuf};

use crate::env_vars::{SEED_ENV, WAVES_ENV};

/// Seed and waveform of a run, appended to every scoreboard failure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunContext {
    pub seed: Option<u64>,
    pub wave: Option<PathBuf>,
}

impl fmt::Display for RunContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.seed {
            Some(s) => write!(
                f,
                "\n  seed:     {s:#018x} (replay with {SEED_ENV}={s:#018x})"
            )?,
            None => write!(f, "\n  seed:     (none recorded)")?,
        }
        match &self.wave {
            Some(w) => write!(f, "\n  waveform: {}", w.display()),
            None => write!(
                f,
                "\n  waveform: none (rerun with {WAVES_ENV}=1 to write one under target/waves/)"
            ),
        }
    }
}

/// Why a scoreboard failed (boxed, so `Result`s on the hot path stay small). Values are kept
/// as their `Debug` text so the error is `'static` and cloneable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScoreboardError {
    /// The first pair of transactions that differ.
    #[error(transparent)]
    Mismatch(Box<Mismatch>),
    /// One side produced more transactions than the other.
    #[error(transparent)]
    CountMismatch(Box<CountMismatch>),
}

/// The first differing pair of transactions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "scoreboard `{name}`: mismatch at transaction #{index}\n  expected: {expected} (model, cycle {expected_cycle})\n  actual:   {actual} (DUT, cycle {actual_cycle}){context}"
)]
pub struct Mismatch {
    pub name: String,
    /// 0-based position in the stream.
    pub index: u64,
    pub expected_cycle: u64,
    pub actual_cycle: u64,
    pub expected: String,
    pub actual: String,
    pub context: RunContext,
}

/// Transactions left without a counterpart at [`Scoreboard::finish`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "scoreboard `{name}`: after {matched} matching transactions, {pending_expected} expected and {pending_actual} actual transactions are unmatched; first unmatched: {first} (cycle {first_cycle}){context}"
)]
pub struct CountMismatch {
    pub name: String,
    pub matched: u64,
    pub pending_expected: usize,
    pub pending_actual: usize,
    /// `expected X` or `actual X`: the oldest unmatched transaction.
    pub first: String,
    pub first_cycle: u64,
    pub context: RunContext,
}

/// In-order comparison of expected (model) and actual (DUT) transactions.
#[derive(Debug)]
pub struct Scoreboard<T> {
    name: String,
    expected: VecDeque<(u64, T)>,
    actual: VecDeque<(u64, T)>,
    matched: u64,
    context: RunContext,
    failure: Option<ScoreboardError>,
}

impl<T: PartialEq + Debug> Scoreboard<T> {
    /// An empty scoreboard; `name` appears in every message.
    pub fn new(name: impl Into<String>) -> Self {
        Scoreboard {
            name: name.into(),
            expected: VecDeque::new(),
            actual: VecDeque::new(),
            matched: 0,
            context: RunContext::default(),
            failure: None,
        }
    }

    /// Records the seed to print on failure (usually `rng.seed()`).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.context.seed = Some(seed);
        self
    }

    /// Records the waveform to print on failure (usually `dut.wave_path()`).
    pub fn with_wave(mut self, wave: Option<&Path>) -> Self {
        self.context.wave = wave.map(Path::to_path_buf);
        self
    }

    /// Pushes a transaction the model expects, seen at `cycle`.
    pub fn push_expected(&mut self, cycle: u64, value: T) -> Result<(), ScoreboardError> {
        self.expected.push_back((cycle, value));
        self.compare()
    }

    /// Pushes a transaction the DUT produced at `cycle`.
    pub fn push_actual(&mut self, cycle: u64, value: T) -> Result<(), ScoreboardError> {
        self.actual.push_back((cycle, value));
        self.compare()
    }

    /// Number of matched transactions so far.
    pub fn matched(&self) -> u64 {
        self.matched
    }

    /// `(expected, actual)` transactions waiting for their counterpart.
    pub fn pending(&self) -> (usize, usize) {
        (self.expected.len(), self.actual.len())
    }

    /// Ends the comparison: the number of matched transactions, or the first mismatch, or a
    /// count mismatch when one side has transactions left over.
    pub fn finish(self) -> Result<u64, ScoreboardError> {
        if let Some(f) = self.failure {
            return Err(f);
        }
        let first = match (self.expected.front(), self.actual.front()) {
            (Some((c, v)), _) => Some((format!("expected {v:?}"), *c)),
            (None, Some((c, v))) => Some((format!("actual {v:?}"), *c)),
            (None, None) => None,
        };
        match first {
            None => Ok(self.matched),
            Some((first, first_cycle)) => {
                Err(ScoreboardError::CountMismatch(Box::new(CountMismatch {
                    name: self.name,
                    matched: self.matched,
                    pending_expected: self.expected.len(),
                    pending_actual: self.actual.len(),
                    first,
                    first_cycle,
                    context: self.context,
                })))
            }
        }
    }

    fn compare(&mut self) -> Result<(), ScoreboardError> {
        if let Some(f) = &self.failure {
            return Err(f.clone());
        }
        while !self.expected.is_empty() && !self.actual.is_empty() {
            let (Some((ec, e)), Some((ac, a))) =
                (self.expected.pop_front(), self.actual.pop_front())
            else {
                break;
            };
            if e != a {
                let err = ScoreboardError::Mismatch(Box::new(Mismatch {
                    name: self.name.clone(),
                    index: self.matched,
                    expected_cycle: ec,
                    actual_cycle: ac,
                    expected: format!("{e:?}"),
                    actual: format!("{a:?}"),
                    context: self.context.clone(),
                }));
                self.failure = Some(err.clone());
                return Err(err);
            }
            self.matched += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_in_order_and_reports_first_mismatch() {
        let mut sb = Scoreboard::new("t").with_seed(7);
        assert!(sb.push_expected(1, 10u32).is_ok());
        assert!(sb.push_actual(3, 10u32).is_ok());
        assert!(sb.push_actual(4, 11u32).is_ok());
        let err = sb.push_expected(2, 12u32).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("transaction #1"), "{msg}");
        assert!(msg.contains("expected: 12 (model, cycle 2)"), "{msg}");
        assert!(msg.contains("actual:   11 (DUT, cycle 4)"), "{msg}");
        assert!(msg.contains("RTLGEN_SEED=0x0000000000000007"), "{msg}");
        assert!(sb.push_actual(5, 1).is_err(), "sticky");
        assert!(sb.finish().is_err());
    }

    #[test]
    fn finish_reports_leftovers() {
        let mut sb = Scoreboard::new("t");
        assert!(sb.push_expected(1, "a").is_ok());
        assert!(sb.push_expected(2, "b").is_ok());
        assert!(sb.push_actual(2, "a").is_ok());
        let msg = sb.finish().unwrap_err().to_string();
        assert!(msg.contains("1 expected and 0 actual"), "{msg}");
        assert!(msg.contains("expected \"b\" (cycle 2)"), "{msg}");
        let ok: Scoreboard<u8> = Scoreboard::new("empty");
        assert_eq!(ok.finish(), Ok(0));
    }
}
