//! Where waveforms go and whether to write them.
//!
//! Tracing every test would slow the default run and fill the disk, so waveforms are opt-in:
//! with `RTLGEN_WAVES=1` each [`Dut::build_named`](crate::Dut::build_named) writes
//! `<target>/waves/<test name>.vcd`; a scoreboard failure prints that path (or how to get one).
//! VCD rather than FST: FST needs zlib and another runtime object, VCD opens everywhere
//! (GTKWave, Surfer, PulseView) and the traces of single tests are small.

use std::cell::{Cell, RefCell};
use std::env;
use std::path::PathBuf;

use crate::env_vars::WAVES_ENV;
use crate::model_build::target_dir;

thread_local! {
    /// Set by [`traced`]: trace every model this thread builds, whatever `RTLGEN_WAVES` says.
    static FORCED: Cell<bool> = const { Cell::new(false) };
    /// The waveforms started on this thread inside [`traced`].
    static WRITTEN: RefCell<Vec<PathBuf>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with waveforms on for every model this thread builds through
/// [`Dut::build_named`](crate::Dut::build_named), and returns what `f` returned with the VCD
/// files written (complete once the models are dropped, as they are when `f` returns them not).
/// Used to re-run a failed co-simulation with the same seed and name its waveform.
pub fn traced<T>(f: impl FnOnce() -> T) -> (T, Vec<PathBuf>) {
    let was = FORCED.with(|c| c.replace(true));
    let before = WRITTEN.with(|w| w.borrow().len());
    let out = f();
    FORCED.with(|c| c.set(was));
    let paths = WRITTEN.with(|w| w.borrow_mut().split_off(before));
    (out, paths)
}

/// Notes a waveform started on this thread (for [`traced`]).
pub(crate) fn record(path: PathBuf) {
    WRITTEN.with(|w| w.borrow_mut().push(path));
}

/// True inside [`traced`], or when `RTLGEN_WAVES` is set to anything but empty, `0`, `false`,
/// `no` or `off`.
pub fn waves_enabled() -> bool {
    if FORCED.with(Cell::get) {
        return true;
    }
    match env::var(WAVES_ENV) {
        Ok(v) => !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "no" | "off"
        ),
        Err(_) => false,
    }
}

/// `<target>/waves`.
pub fn waves_dir() -> PathBuf {
    target_dir().join("waves")
}

/// `<target>/waves/<name>.vcd`, with characters that are unsafe in file names (`::`, `/`,
/// spaces, ...) replaced by `_`.
pub fn wave_path_for(name: &str) -> PathBuf {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = if safe.is_empty() || safe.starts_with('.') {
        format!("wave{safe}")
    } else {
        safe
    };
    waves_dir().join(format!("{safe}.vcd"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitised() {
        let p = wave_path_for("harness::tick/reset 1");
        assert_eq!(
            p.file_name().and_then(|n| n.to_str()),
            Some("harness__tick_reset_1.vcd")
        );
        assert!(p.parent().is_some_and(|d| d.ends_with("waves")));
    }
}
