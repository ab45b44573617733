//! Names of the environment variables that replay a run and switch waveforms on. They sit below
//! everything because the error messages of the scoreboard name them, and the scoreboard's error
//! is part of [`crate::SimError`], which every other module returns.

/// Name of the seed environment variable.
pub const SEED_ENV: &str = "RTLGEN_SEED";

/// Name of the waveform switch.
pub const WAVES_ENV: &str = "RTLGEN_WAVES";
