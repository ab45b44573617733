//! Progress reporting for long campaigns: a one-line bar redrawn in place on a terminal, plain
//! lines (at most one every `interval`) when stderr is not a terminal (CI logs, pipes, files),
//! or nothing ([`Progress::hidden`], the tests).
//!
//! Hand-written rather than `indicatif`: one bar at a time, no styling, no extra dependency, and
//! the non-TTY fallback the campaigns need is a few lines.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressStyle {
    /// Redraw a bar on stderr (a terminal).
    Bar,
    /// A plain line on stderr at most every `interval` and at the end of each task.
    Lines,
    /// Nothing.
    Hidden,
}

/// Progress of the current task (one campaign run, one sweep point, …).
#[derive(Debug)]
pub struct Progress {
    style: ProgressStyle,
    interval: Duration,
    label: String,
    unit: &'static str,
    total: u64,
    started: Instant,
    last: Option<Instant>,
}

impl Progress {
    /// A bar when stderr is a terminal, plain lines every 10 s otherwise.
    pub fn auto() -> Progress {
        Progress::with_style(if std::io::stderr().is_terminal() { ProgressStyle::Bar } else { ProgressStyle::Lines })
    }

    /// Nothing is printed.
    pub fn hidden() -> Progress {
        Progress::with_style(ProgressStyle::Hidden)
    }

    pub fn with_style(style: ProgressStyle) -> Progress {
        let interval = if style == ProgressStyle::Bar { Duration::from_millis(200) } else { Duration::from_secs(10) };
        Progress { style, interval, label: String::new(), unit: "cycles", total: 0, started: Instant::now(), last: None }
    }

    /// Minimum time between two updates.
    pub fn interval(mut self, interval: Duration) -> Progress {
        self.interval = interval;
        self
    }

    pub fn style(&self) -> ProgressStyle {
        self.style
    }

    /// Starts a task of `total` `unit`s.
    pub fn start(&mut self, label: &str, total: u64, unit: &'static str) {
        self.label = label.to_string();
        self.total = total;
        self.unit = unit;
        self.started = Instant::now();
        self.last = None;
    }

    /// `done` of the task's total are done; printed only when the interval has passed.
    pub fn set(&mut self, done: u64) {
        if self.style == ProgressStyle::Hidden {
            return;
        }
        let now = Instant::now();
        if self.last.is_some_and(|t| now - t < self.interval) {
            return;
        }
        self.last = Some(now);
        self.print(done, false);
    }

    /// Ends the task (`done` units), with its wall time.
    pub fn finish(&mut self, done: u64) {
        if self.style != ProgressStyle::Hidden {
            self.print(done, true);
        }
    }

    /// A message between tasks (on its own line).
    pub fn note(&mut self, msg: &str) {
        if self.style != ProgressStyle::Hidden {
            eprintln!("{msg}");
        }
    }

    fn print(&self, done: u64, end: bool) {
        let secs = self.started.elapsed().as_secs_f64();
        let rate = done as f64 / secs.max(1e-9);
        let frac = if self.total == 0 { 1.0 } else { (done as f64 / self.total as f64).min(1.0) };
        let eta = if done > 0 && !end { self.total.saturating_sub(done) as f64 / rate } else { 0.0 };
        let mut err = std::io::stderr().lock();
        let _ = match self.style {
            ProgressStyle::Bar => {
                let width = 30;
                let filled = ((frac * width as f64) as usize).min(width);
                write!(
                    err,
                    "\r{} [{}{}] {:5.1} % {done}/{} {}, {:.1} k/s, {} {:.0} s   {}",
                    self.label,
                    "#".repeat(filled),
                    ".".repeat(width - filled),
                    100.0 * frac,
                    self.total,
                    self.unit,
                    rate / 1e3,
                    if end { "took" } else { "ETA" },
                    if end { secs } else { eta },
                    if end { "\n" } else { "" }
                )
            }
            ProgressStyle::Lines => writeln!(
                err,
                "{}: {done}/{} {} ({:.1} %), {:.1} k/s, {} {:.0} s",
                self.label,
                self.total,
                self.unit,
                100.0 * frac,
                rate / 1e3,
                if end { "took" } else { "ETA" },
                if end { secs } else { eta }
            ),
            ProgressStyle::Hidden => Ok(()),
        };
        let _ = err.flush();
    }
}
