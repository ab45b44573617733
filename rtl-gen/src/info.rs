//! The design-wide settings every generator reads (`[design]` after validation). A leaf module:
//! the construction kit, the blocks and the design parser all import it, it imports none of them
//! (the header template is itself a leaf of `output`).

use crate::header::HeaderTemplate;

/// The reset port every clocked module of a design gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResetStyle {
    /// Port `rst`, active high, synchronous to `clk` (the default).
    SyncHigh,
    /// Port `rst_n`, active low, asynchronous assertion.
    AsyncLow,
}

impl ResetStyle {
    /// The values of a `reset` field, as error messages list them.
    pub const ALLOWED: &'static str = "\"sync_high\" (port rst), \"async_low\" (port rst_n)";

    /// The style a `reset` field names.
    pub fn parse(text: &str) -> Option<ResetStyle> {
        [ResetStyle::SyncHigh, ResetStyle::AsyncLow].into_iter().find(|s| s.as_str() == text)
    }
    pub fn port(self) -> &'static str {
        match self {
            ResetStyle::SyncHigh => "rst",
            ResetStyle::AsyncLow => "rst_n",
        }
    }
    pub fn active_low(self) -> bool {
        self == ResetStyle::AsyncLow
    }
    pub fn as_str(self) -> &'static str {
        match self {
            ResetStyle::SyncHigh => "sync_high",
            ResetStyle::AsyncLow => "async_low",
        }
    }
    /// The port and its behaviour, as banners and docs describe it.
    pub fn describe(self) -> &'static str {
        match self {
            ResetStyle::SyncHigh => "rst, synchronous, active high",
            ResetStyle::AsyncLow => "rst_n, asynchronous, active low",
        }
    }
}

/// The `[design]` table after validation.
#[derive(Debug, Clone, PartialEq)]
pub struct DesignInfo {
    pub name: String,
    pub prefix: String,
    pub reset: ResetStyle,
    pub clock_mhz: f64,
    /// The part of the FuseSoC core's Vivado target (`vivado_part`).
    pub vivado_part: String,
    /// The user's file header (`header_template = "FILE"`), parsed; rendered above the banner
    /// of every file.
    pub header_template: Option<HeaderTemplate>,
}

