//! A port's direction. The manifest lists it, the shim sorts ports by it and
//! [`crate::SimError::NotAnInput`] names it, so it sits below all three.

use serde::Deserialize;

/// Port direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    Input,
    Output,
    /// Parsed so that a manifest containing one still loads; building such a module fails.
    Inout,
}

impl std::fmt::Display for Dir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Dir::Input => "input",
            Dir::Output => "output",
            Dir::Inout => "inout",
        })
    }
}
