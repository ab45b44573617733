//! Running the external EDA tools (Verilator, Icarus, Yosys, SymbiYosys, OpenSTA) over a generated tree.

pub mod asic;
pub mod formal;
pub mod fpga;
pub mod lint;
pub mod synth;

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The part of `manifest.json` the tools need.
#[derive(Debug, Deserialize)]
pub struct TreeManifest {
    pub design: String,
    /// The design's clock (the SDC's period); absent from trees written before it was recorded.
    #[serde(default)]
    pub clock_mhz: Option<f64>,
    pub modules: Vec<TreeModule>,
}

#[derive(Debug, Deserialize)]
pub struct TreeModule {
    pub name: String,
    pub file: String,
    /// `ram` for a RAM wrapper (its shape in `params`: `width`, `depth`, `read`, `style`).
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub params: std::collections::BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub depends: Vec<String>,
    /// Ports, clock and reset (the FPGA measurement wrapper is built from them).
    #[serde(default)]
    pub ports: Vec<TreePort>,
    #[serde(default)]
    pub clock: Option<String>,
    #[serde(default)]
    pub reset: Option<TreeReset>,
    /// Every clock port with its frequency and its domain's reset (empty: combinational).
    #[serde(default)]
    pub clocks: Vec<TreeClock>,
}

#[derive(Debug, Deserialize)]
pub struct TreeClock {
    pub name: String,
    /// The port bit of a clock that is one bit of a per-lane vector (`rx_clk[0]` of `rx_clk_0`).
    #[serde(default)]
    pub port: Option<String>,
    pub mhz: f64,
    #[serde(default)]
    pub reset: Option<TreeReset>,
}

#[derive(Debug, Deserialize)]
pub struct TreePort {
    pub name: String,
    /// `input` or `output`.
    pub dir: String,
    pub width: u32,
}

#[derive(Debug, Deserialize)]
pub struct TreeReset {
    pub name: String,
    #[serde(default)]
    pub active_low: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{path}: cannot read the manifest of a generated tree ({reason}); run `rtl-gen generate` first or pass the tree folder")]
    Manifest { path: String, reason: String },
    #[error("`{tool}` is not installed or not on PATH ({reason}); install it with `scripts/setup` (apt-get install -y verilator yosys iverilog)")]
    Missing { tool: String, reason: String },
    /// A tool or a file that comes with a Debian package other than the default ones.
    #[error("{what} is not installed ({reason}); install the Debian package `{package}` (`scripts/setup` does: apt-get install -y {package})")]
    MissingPackage { what: String, package: String, reason: String },
    #[error("refusing to pass the path {path} to a tool: {reason}; move the tree to a folder whose path has no such character")]
    UnsafePath { path: String, reason: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl TreeManifest {
    pub fn load(tree: &Path) -> Result<TreeManifest, ToolError> {
        let path = tree.join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|e| ToolError::Manifest { path: path.display().to_string(), reason: e.to_string() })?;
        let manifest: TreeManifest = serde_json::from_str(&text).map_err(|e| ToolError::Manifest { path: path.display().to_string(), reason: e.to_string() })?;
        manifest.validate().map_err(|reason| ToolError::Manifest { path: path.display().to_string(), reason })?;
        Ok(manifest)
    }

    /// Every name and path the tools pass on, checked before any tool runs: module, port,
    /// clock and reset names and dependencies are Verilog identifiers, files are relative `.v`
    /// paths inside the tree made of [`is_tree_path`] components. A manifest comes with a tree,
    /// possibly someone else's: nothing in it may reach a tool as a command or an option.
    fn validate(&self) -> Result<(), String> {
        if !is_identifier(&self.design) {
            return Err(format!("design name `{}` is not an identifier", self.design.escape_debug()));
        }
        for (i, m) in self.modules.iter().enumerate() {
            let at = |what: String| format!("modules[{i}]: {what}");
            if !is_identifier(&m.name) {
                return Err(at(format!("name `{}` is not a Verilog identifier", m.name.escape_debug())));
            }
            if !is_tree_path(&m.file) || !m.file.ends_with(".v") {
                return Err(at(format!("file `{}` of module {} is not a relative .v path inside the tree (letters, digits, `_`, `-`, `.` in each folder name, no `..`)", m.file.escape_debug(), m.name)));
            }
            let names = m.depends.iter().map(|d| ("depends", d)).chain(m.ports.iter().map(|p| ("port", &p.name))).chain(m.clock.iter().map(|c| ("clock", c))).chain(m.reset.iter().map(|r| ("reset", &r.name)));
            for (what, name) in names {
                if !is_identifier(name) {
                    return Err(at(format!("{what} `{}` of module {} is not a Verilog identifier", name.escape_debug(), m.name)));
                }
            }
            if m.ports.iter().any(|p| p.dir != "input" && p.dir != "output") {
                return Err(at(format!("a port of module {} has a direction other than input or output", m.name)));
            }
        }
        Ok(())
    }

    /// The source files of `module` and everything it instantiates, dependencies first.
    pub fn sources(&self, tree: &Path, module: &str) -> Vec<PathBuf> {
        let mut out = Vec::new();
        self.collect(tree, module, &mut out);
        out
    }

    fn collect(&self, tree: &Path, module: &str, out: &mut Vec<PathBuf>) {
        if let Some(m) = self.modules.iter().find(|m| m.name == module) {
            for d in &m.depends {
                self.collect(tree, d, out);
            }
            let p = tree.join(&m.file);
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
}

/// A Verilog simple identifier as the generator emits them: `[A-Za-z_][A-Za-z0-9_]*` (no `$`,
/// which Tcl would substitute).
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.bytes();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_') && chars.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// A relative path inside a tree: `/`-separated components of letters, digits, `_`, `-` and
/// `.`, none empty, none starting with `.` or `-` (so no `..`, no hidden file, nothing a tool
/// could read as an option), nothing a shell, Tcl or Yosys script gives a meaning to.
pub fn is_tree_path(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 255
        && s.split('/').all(|c| {
            !c.is_empty() && !c.starts_with(['.', '-']) && c.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        })
}

/// `path` as one double-quoted word of a Yosys script. Yosys has no escape inside quotes, so a
/// path holding a quote, a backslash, a control character or a character a script or Tcl gives
/// a meaning to (`;`, `$`, `[`, `]`, `{`, `}`, `#`, a backtick) is refused rather than passed.
pub fn yosys_word(path: &Path) -> Result<String, ToolError> {
    let text = path.to_str().ok_or_else(|| ToolError::UnsafePath { path: path.display().to_string(), reason: "not UTF-8".into() })?;
    if let Some(c) = text.chars().find(|&c| c.is_control() || matches!(c, '"' | '\\' | ';' | '$' | '[' | ']' | '{' | '}' | '#' | '`')) {
        return Err(ToolError::UnsafePath { path: text.escape_debug().to_string(), reason: format!("it holds {:?}, which a Yosys script cannot quote", c) });
    }
    Ok(format!("\"{text}\""))
}

/// [`yosys_word`] of each path, joined by spaces.
pub fn yosys_words(paths: &[PathBuf]) -> Result<String, ToolError> {
    Ok(paths.iter().map(|p| yosys_word(p)).collect::<Result<Vec<_>, _>>()?.join(" "))
}

/// The number of parallel tool runs: the machine's cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// `f` over `items` on `jobs` threads, taking items in order; results in completion order.
/// EDA runs are independent processes, so a simple shared queue is all the scheduling needed.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                results.lock().expect("a worker panicked").push(r);
            });
        }
    });
    results.into_inner().expect("a worker panicked")
}

/// Run a tool, returning (success, stdout + stderr).
pub fn run(cmd: &mut Command) -> Result<(bool, String), ToolError> {
    let tool = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd.output().map_err(|e| ToolError::Missing { tool, reason: e.to_string() })?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok((out.status.success(), text))
}

/// What one tool run cost: CPU seconds (user + system) and the peak resident memory of the
/// tool and every process it waited for (Yosys's ABC runs included), from `wait4`.
#[derive(Debug, Clone, Copy)]
pub struct ToolUsage {
    pub cpu_seconds: f64,
    pub peak_mb: f64,
}

impl ToolUsage {
    /// Two runs of one measurement (the ABC fallback): CPU adds up, memory peaks.
    pub fn then(self, next: ToolUsage) -> ToolUsage {
        ToolUsage { cpu_seconds: self.cpu_seconds + next.cpu_seconds, peak_mb: self.peak_mb.max(next.peak_mb) }
    }
}

/// A running tool whose stdout and stderr are read to their end on two threads while it runs,
/// so a chatty tool never blocks on a full pipe.
struct Piped {
    child: std::process::Child,
    out: std::thread::JoinHandle<Vec<u8>>,
    err: std::thread::JoinHandle<Vec<u8>>,
}

impl Piped {
    fn spawn(cmd: &mut Command) -> Result<Piped, ToolError> {
        let tool = cmd.get_program().to_string_lossy().into_owned();
        let mut child = cmd
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| ToolError::Missing { tool, reason: e.to_string() })?;
        let out = drain(Box::new(child.stdout.take().expect("piped stdout")));
        let err = drain(Box::new(child.stderr.take().expect("piped stderr")));
        Ok(Piped { child, out, err })
    }

    /// stdout then stderr, once the tool has ended.
    fn text(out: std::thread::JoinHandle<Vec<u8>>, err: std::thread::JoinHandle<Vec<u8>>) -> String {
        let mut text = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
        text.push_str(&String::from_utf8_lossy(&err.join().unwrap_or_default()));
        text
    }
}

/// Read a child's pipe to its end on a thread.
fn drain(mut pipe: Box<dyn std::io::Read + Send>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// [`run`], also measuring the run's [`ToolUsage`]. The child is reaped with `wait4`, whose
/// resource usage covers the child and its own waited-for children — what `/usr/bin/time`
/// reports — while `getrusage(RUSAGE_CHILDREN)` would mix parallel runs together.
pub fn run_measured(cmd: &mut Command) -> Result<(bool, String, ToolUsage), ToolError> {
    use std::os::unix::process::ExitStatusExt;
    let Piped { child, out, err } = Piped::spawn(cmd)?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain old data that `wait4` fills in; `pid` is our own child, which
    // std has not reaped (we never call `wait` on `child`).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = loop {
        // SAFETY: pointers to two live locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break r;
        }
    };
    if reaped < 0 {
        return Err(ToolError::Io(std::io::Error::last_os_error()));
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    // Linux reports `ru_maxrss` in KiB.
    let usage = ToolUsage { cpu_seconds: seconds(usage.ru_utime) + seconds(usage.ru_stime), peak_mb: usage.ru_maxrss as f64 / 1024.0 };
    Ok((std::process::ExitStatus::from_raw(status).success(), Piped::text(out, err), usage))
}

/// [`run`] for at most `limit`: (success, or `None` when the tool was stopped at the limit;
/// stdout + stderr, up to the stop).
pub fn run_limited(cmd: &mut Command, limit: std::time::Duration) -> Result<(Option<bool>, String), ToolError> {
    let Piped { mut child, out, err } = Piped::spawn(cmd)?;
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if start.elapsed() >= limit {
            // The tool's own children (SymbiYosys's solvers, Yosys's ABC) go with it: left
            // running they would hold the output pipes open and the machine busy.
            let family = descendants(child.id());
            let _ = child.kill();
            for pid in family {
                // SAFETY: kill(2) with a pid read from /proc as a descendant of our child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    Ok((status.map(|s| s.success()), Piped::text(out, err)))
}

/// Every process below `root` (children, their children, ...), read from `/proc/<pid>/stat`;
/// empty where there is no `/proc`.
fn descendants(root: u32) -> Vec<i32> {
    let parent_of = |pid: i32| -> Option<i32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so read after the last `)`.
        stat[stat.rfind(')')? + 1..].split_whitespace().nth(1)?.parse().ok()
    };
    let links: Vec<(i32, i32)> = std::fs::read_dir("/proc")
        .map(|dir| dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok()).filter_map(|pid| Some((pid, parent_of(pid)?))).collect())
        .unwrap_or_default();
    let mut family = vec![root as i32];
    let mut i = 0;
    while i < family.len() {
        let parent = family[i];
        family.extend(links.iter().filter(|&&(_, pp)| pp == parent).map(|&(pid, _)| pid));
        i += 1;
    }
    family.split_off(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limited_run_is_stopped_and_keeps_what_it_printed() {
        let limit = std::time::Duration::from_secs(2);
        let (status, text) = run_limited(Command::new("sh").args(["-c", "echo placing; exec sleep 30"]), limit).expect("sh runs");
        assert_eq!(status, None, "stopped at the limit");
        assert!(text.contains("placing"), "the output up to the stop is kept: {text:?}");
        let (status, text) = run_limited(Command::new("sh").args(["-c", "echo done; exit 2"]), limit * 15).expect("sh runs");
        assert_eq!((status, text.as_str()), (Some(false), "done\n"));
    }

    #[test]
    fn a_limited_run_stops_the_tools_children_too() {
        // The solver runs below the tool, as z3 under SymbiYosys: it must not outlive the limit
        // (nor hold the output pipe open until it ends).
        let started = std::time::Instant::now();
        let (status, text) = run_limited(Command::new("sh").args(["-c", "sleep 60 & echo $!; wait"]), std::time::Duration::from_secs(2)).expect("sh runs");
        assert_eq!(status, None, "stopped at the limit");
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "returned without waiting for the grandchild");
        let grandchild: u32 = text.trim().parse().expect("the grandchild's pid");
        let gone = (0..50).any(|_| {
            let state = std::fs::read_to_string(format!("/proc/{grandchild}/stat")).ok();
            let alive = state.is_some_and(|s| s.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')));
            if alive {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            !alive
        });
        assert!(gone, "the grandchild {grandchild} still runs");
    }

    #[test]
    fn measured_runs_count_the_grandchildren_and_keep_status_and_output() {
        // The busy loop runs in a grandchild, as ABC runs under Yosys.
        let busy = "sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'; echo done; echo oops >&2; exit 3";
        let (ok, text, usage) = run_measured(Command::new("sh").args(["-c", busy])).expect("sh runs");
        assert!(!ok, "exit 3 is a failure");
        assert!(text.contains("done") && text.contains("oops"), "{text}");
        assert!(usage.cpu_seconds > 0.05, "the grandchild's loop is counted: {usage:?}");
        assert!(usage.peak_mb > 0.5 && usage.peak_mb < 1000.0, "{usage:?}");
        let (ok, _, quick) = run_measured(&mut Command::new("true")).expect("true runs");
        assert!(ok && quick.cpu_seconds < usage.cpu_seconds, "{quick:?} vs {usage:?}");
        assert!(matches!(run_measured(&mut Command::new("no-such-tool-rtlgen")), Err(ToolError::Missing { .. })));
    }
}
