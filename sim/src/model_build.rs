//! Turning a manifest module into a loadable shared library, with a content-addressed cache.
//!
//! Pipeline (each step appends its command line and output to `build.log`):
//! 1. `verilator --cc` (with `--trace` only when waveforms are wanted) on the module's file and
//!    its dependencies' files;
//! 2. parse the generated `Vdut.h`, check its ports against the manifest, write the shim;
//! 3. compile the Verilated C++ as a few unity translation units (hot `eval` code at `-O2`,
//!    constructors/trace-setup "slow" code at `-O0`, as Verilator's own makefile does), in
//!    parallel;
//! 4. link them with the cached Verilator runtime objects into `lib<module>.so`.
//!
//! The Verilator runtime (`verilated.cpp`, `verilated_threads.cpp`, `verilated_vcd_c.cpp`) is
//! compiled once per toolchain+flags into `target/verilator-cache/runtime-<hash>/` and linked
//! into every model, so a model build only compiles the model. The runtime headers every unit
//! includes (`verilated.h`, `verilated_vcd_c.h`) are precompiled once per optimisation level and
//! trace setting into `target/verilator-cache/pch-<hash>/`: parsing them was most of a small
//! model's compile time (the replica map's fast unit: 0.8 CPU-s, 0.3 with the precompiled
//! header). A unit includes the precompiled header with
//! `-include`; g++ checks it against the unit's flags and falls back to the plain headers (with
//! a `-Winvalid-pch` warning in `build.log`) if it does not fit, so it changes no model, only
//! the time to build it.
//!
//! Caching: a model lives in `target/verilator-cache/<hash>/`, where the hash covers the module
//! sources, the port list (which determines the shim), the shim generator and this file's source
//! text, `verilator --version`, the compiler's `--version`, and every flag. A directory only
//! appears under its final name through an atomic `rename` of a finished temporary directory, so
//! "the directory exists" means "the build is complete". Builders of the same hash serialise on
//! an exclusive `flock` of `<hash>.lock` (works across processes and across threads of one
//! process, since every builder opens its own file description); a waiter re-checks after
//! getting the lock and finds the finished directory.

use std::env;
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::manifest::{Module, Tree};
use crate::shim::{self, MODEL_PREFIX};
use crate::SimError;

/// Bump to invalidate every cached model and runtime (e.g. after a cache layout change).
const CACHE_FORMAT: &str = "rtl-gen-sim cache v1";

/// Fixed Verilator flags (part of the cache key). `-Wno-fatal`: lint is a separate gate, a
/// warning must not stop a simulation; `--x-assign 0`: zero for X assignments (the generated
/// RTL writes none); `--x-initial unique`: every variable's initial value comes from Verilator's
/// random reset, chosen when the model is created ([`crate::Initial`]: zeros by default, or
/// random from a seed): the flag is part of the cache key, and one cached build serves both; `--no-timing`: delays are ignored (synthesis
/// semantics) instead of requiring coroutines. `--output-split` / `--output-split-cfuncs`:
/// wide decoders (RS FEC) otherwise become one multi-megabyte C++ function, which g++ compiles
/// in time far worse than linear; split, the units compile in parallel and each stays small.
/// `-fno-const-bit-op-tree`: Verilator 5.006's bit-op-tree optimisation miscompiles XOR/XNOR
/// trees of single-bit wires (verilator#4059, fixed in 5.010): a Yosys `write_verilog` netlist
/// of a 16-bit CRC that Icarus and `-O0` simulate correctly gave wrong bits on every vector
/// (`sim/tests/cosim_design.rs` runs that netlist). The generated RTL writes XOR networks as
/// masked reductions already, so the pass gains nothing here.
/// `-fno-dfg`: Verilator 5.006's dataflow-graph pass turns a wide XOR network (the shared-node
/// CRC networks of the RXL endpoints, a 2,048-bit `lut6_tree` CRC) into one function holding
/// thousands of temporaries, which `--output-split-cfuncs` cannot split and g++ compiles in far
/// worse than linear time (one 6 MB function: 260 s); without the pass the same networks are
/// ordinary split statements (the `rtlgen_rxl_ep` model: 52 → 30 MB of C++, 166 → 89 CPU-s at
/// `-O1` file by file).
const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "-fno-const-bit-op-tree",
    "-fno-dfg",
    "--output-split",
    "20000",
    "--output-split-cfuncs",
    "2000",
    "--prefix",
    MODEL_PREFIX,
    "-Wno-fatal",
    "--x-assign",
    "0",
    "--x-initial",
    "unique",
    "--no-timing",
];

/// C++ flags of every translation unit (the preprocessor defines match `--trace` VCD and what
/// `verilated.mk` passes; the warning switches are Verilator's own for generated code).
/// `-fvisibility=hidden` keeps everything but the shim's exports private to each library.
const CXX_FLAGS: &[&str] = &[
    "-std=gnu++17",
    "-fPIC",
    "-fvisibility=hidden",
    "-faligned-new",
    "-fcf-protection=none",
    "-Wno-bool-operation",
    "-Wno-sign-compare",
    "-Wno-uninitialized",
    "-Wno-unused-but-set-variable",
    "-Wno-unused-parameter",
    "-Wno-unused-variable",
    "-Wno-shadow",
    "-DVM_COVERAGE=0",
    "-DVM_SC=0",
    "-DVM_TRACE_FST=0",
];
/// Verilator flag and C++ defines of a model built for VCD waveforms. Trace code grows with the
/// registers (a quarter of the pipelined KP4 decoder's 185 MB of C++), so models are built with
/// it only when waveforms are asked for (`RTLGEN_WAVES`, or
/// [`Dut::build_traced`](crate::Dut::build_traced)); traced and untraced builds are cached apart.
/// The runtime objects are shared by both: `VM_TRACE` changes no layout in the runtime headers.
const TRACE_VERILATOR_FLAG: &str = "--trace";
const TRACE_DEFINES: &[&str] = &["-DVM_TRACE=1", "-DVM_TRACE_VCD=1"];
const NO_TRACE_DEFINES: &[&str] = &["-DVM_TRACE=0", "-DVM_TRACE_VCD=0"];
/// Optimisation of the runtime objects and of the model's fast-path (eval) code.
const OPT_FAST: &str = "-O2";
/// Optimisation of the eval code of very large models (more than `LARGE_MODEL_BYTES` of fast-path
/// C++): `-O2` costs minutes there for little simulation speed.
const OPT_LARGE: &str = "-O1";
const LARGE_MODEL_BYTES: u64 = 4 << 20;
/// Optimisation of run-once code (constructors, trace declarations): compile speed matters more.
const OPT_SLOW: &str = "-O0";
/// Link flags. `-Bsymbolic` binds each library's references to its own copies, so several
/// models (each with its own runtime copy) coexist in one process.
const LINK_FLAGS: &[&str] = &["-shared", "-Wl,-Bsymbolic", "-pthread", "-latomic"];
/// Runtime sources compiled once, from `$VERILATOR_ROOT/include`.
const RUNTIME_SOURCES: &[&str] = &[
    "verilated.cpp",
    "verilated_threads.cpp",
    "verilated_vcd_c.cpp",
];
/// Sources (with their dependencies) above this size are Verilated one at a time across every
/// process sharing the cache: Verilator took 12–16 GB for one RXL endpoint (about 2.5 MB of
/// Verilog around its CRC and FEC networks), and two at once were killed by the kernel's
/// out-of-memory killer on a 24 GiB machine. The lock covers the Verilator run only; the
/// compiler runs are smaller and stay parallel.
const LARGE_SOURCE_BYTES: u64 = 1 << 20;
/// The header precompiled for every translation unit: the runtime headers the Verilated classes
/// and the shim include.
const PCH_NAME: &str = "rtlgen_pch.h";
const PCH_TEXT: &str = "#include \"verilated.h\"\n#include \"verilated_vcd_c.h\"\n";
/// Fast-path C++ above this size is split into several translation units compiled in parallel.
const UNITY_CHUNK_BYTES: u64 = 256 * 1024;
/// Largest unity translation unit: beyond a few megabytes g++ gains nothing from sharing the
/// headers and its memory grows, so a model of tens of megabytes becomes many units (still
/// compiled `jobs()` at a time) instead of one per CPU.
const UNITY_MAX_BYTES: u64 = 4 << 20;

/// What a build produced.
#[derive(Debug, Clone)]
pub struct BuildInfo {
    /// The module that was built.
    pub module: String,
    /// The shared library that was loaded.
    pub library: PathBuf,
    /// Cache key (hex sha256 prefix) = name of the cache directory.
    pub hash: String,
    /// `true` when the library came from the cache (no Verilator or compiler run).
    pub cache_hit: bool,
    /// Wall time of the whole build/lookup, including waiting for other builders.
    pub elapsed: Duration,
    /// The build log (Verilator and compiler output).
    pub log: PathBuf,
}

/// The tools found on this machine (looked up once per process).
#[derive(Debug)]
pub struct Toolchain {
    pub verilator: OsString,
    pub verilator_version: String,
    pub verilator_root: PathBuf,
    pub cxx: OsString,
    pub cxx_version: String,
}

static TOOLCHAIN: Mutex<Option<Arc<Toolchain>>> = Mutex::new(None);

/// Finds Verilator (env `VERILATOR`, else `verilator` on PATH) and the C++ compiler (env `CXX`,
/// else `g++`), with their versions. Errors say how to install the missing tool.
pub fn toolchain() -> Result<Arc<Toolchain>, SimError> {
    let mut slot = TOOLCHAIN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(tc) = slot.as_ref() {
        return Ok(tc.clone());
    }
    let verilator = env::var_os("VERILATOR").unwrap_or_else(|| "verilator".into());
    let missing = |reason: String| SimError::VerilatorMissing {
        command: verilator.to_string_lossy().into_owned(),
        reason,
    };
    let cxx = env::var_os("CXX").unwrap_or_else(|| "g++".into());
    // Three process start-ups (Verilator's is a Perl script): run them concurrently, since
    // every test process pays this once.
    let (version, root, cxx_version) = std::thread::scope(|s| {
        let v = s.spawn(|| first_line_of(&verilator, &["--version"]));
        let r = s.spawn(|| first_line_of(&verilator, &["--getenv", "VERILATOR_ROOT"]));
        let c = first_line_of(&cxx, &["--version"]);
        let join = |h: std::thread::ScopedJoinHandle<'_, Result<String, String>>| {
            h.join()
                .unwrap_or_else(|_| Err("probe thread panicked".into()))
        };
        (join(v), join(r), c)
    });
    let verilator_version = version.map_err(missing)?;
    let verilator_root = PathBuf::from(root.map_err(missing)?);
    for src in RUNTIME_SOURCES {
        if !verilator_root.join("include").join(src).is_file() {
            return Err(missing(format!(
                "runtime source {} not found (incomplete installation?)",
                verilator_root.join("include").join(src).display()
            )));
        }
    }
    let cxx_version = cxx_version.map_err(|reason| SimError::CompilerMissing {
        command: cxx.to_string_lossy().into_owned(),
        reason,
    })?;
    let tc = Arc::new(Toolchain {
        verilator,
        verilator_version,
        verilator_root,
        cxx,
        cxx_version,
    });
    *slot = Some(tc.clone());
    Ok(tc)
}

fn first_line_of(program: &OsString, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "`{} {}` exited with {}: {}",
            program.to_string_lossy(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .next()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .ok_or_else(|| "no output".into())
}

/// The workspace's target directory: `CARGO_TARGET_DIR` if set (relative to the workspace
/// root when relative), else `<workspace root>/target`, where the workspace root is the
/// nearest ancestor of `CARGO_MANIFEST_DIR` (at run time, else this crate's at compile time)
/// whose `Cargo.toml` has a `[workspace]` table.
pub fn target_dir() -> PathBuf {
    let root = workspace_root();
    match env::var_os("CARGO_TARGET_DIR") {
        Some(t) if !t.is_empty() => {
            let t = PathBuf::from(t);
            if t.is_absolute() {
                t
            } else {
                root.join(t)
            }
        }
        _ => root.join("target"),
    }
}

pub(crate) fn workspace_root() -> PathBuf {
    let start = env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    for dir in start.ancestors() {
        if let Ok(toml) = fs::read_to_string(dir.join("Cargo.toml")) {
            if toml.lines().any(|l| l.trim() == "[workspace]") {
                return dir.to_path_buf();
            }
        }
    }
    start
}

/// `<target>/verilator-cache`.
pub fn cache_dir() -> PathBuf {
    target_dir().join("verilator-cache")
}

/// Length-prefixed fields, so that no two different field lists hash alike.
struct KeyHasher(Sha256);

impl KeyHasher {
    fn new() -> Self {
        let mut h = KeyHasher(Sha256::new());
        h.field("format", CACHE_FORMAT.as_bytes());
        h
    }
    fn field(&mut self, label: &str, data: &[u8]) {
        for part in [label.as_bytes(), data] {
            self.0.update((part.len() as u64).to_le_bytes());
            self.0.update(part);
        }
    }
    fn flags(&mut self, label: &str, flags: &[&str]) {
        self.field(label, flags.join("\u{1f}").as_bytes());
    }
    fn toolchain(&mut self, tc: &Toolchain) {
        self.field("verilator", tc.verilator_version.as_bytes());
        self.field(
            "verilator-root",
            tc.verilator_root.to_string_lossy().as_bytes(),
        );
        self.field("cxx", tc.cxx.to_string_lossy().as_bytes());
        self.field("cxx-version", tc.cxx_version.as_bytes());
        self.flags("cxx-flags", CXX_FLAGS);
        self.field("opt-fast", OPT_FAST.as_bytes());
        self.field("opt-large", OPT_LARGE.as_bytes());
    }
    /// First 32 hex digits (128 bits): short paths, no realistic collisions.
    fn finish(self) -> String {
        let d = self.0.finalize();
        d.iter().take(16).map(|b| format!("{b:02x}")).collect()
    }
}

/// Builds (or finds in the cache) the shared library of `module` and returns where it is;
/// `trace` builds it able to write VCD waveforms.
pub fn build_model(tree: &Tree, module: &Module, trace: bool) -> Result<BuildInfo, SimError> {
    let start = Instant::now();
    let tc = toolchain()?;
    let sources = tree.sources(&module.name)?;
    let cache = cache_dir();
    let runtime = runtime_objects(&tc, &cache)?;

    let mut key = KeyHasher::new();
    key.toolchain(&tc);
    key.flags("verilator-flags", VERILATOR_FLAGS);
    key.field("trace", if trace { b"vcd" } else { b"off" });
    key.field("opt-slow", OPT_SLOW.as_bytes());
    key.flags("link-flags", LINK_FLAGS);
    key.field("shim-generator", include_str!("shim.rs").as_bytes());
    key.field("builder", include_str!("model_build.rs").as_bytes());
    key.field("top", module.name.as_bytes());
    for p in &module.ports {
        key.field(
            "port",
            format!("{} {} {}", p.name, p.dir, p.width).as_bytes(),
        );
    }
    for src in &sources {
        let text =
            fs::read(src).map_err(|e| SimError::io(format!("reading {}", src.display()), e))?;
        let name = src
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        key.field("source-name", name.as_bytes());
        key.field("source", &text);
    }
    let hash = key.finish();
    let lib_name = format!("lib{}.so", module.name);

    let (dir, hit) = cached_dir(&cache, &hash, |tmp| {
        build_into(tmp, &tc, module, &sources, &runtime, &lib_name, trace)
    })?;
    Ok(BuildInfo {
        module: module.name.clone(),
        library: dir.join(&lib_name),
        hash,
        cache_hit: hit,
        elapsed: start.elapsed(),
        log: dir.join("build.log"),
    })
}

/// The cached runtime objects for this toolchain, compiling them first if needed.
fn runtime_objects(tc: &Toolchain, cache: &Path) -> Result<Vec<PathBuf>, SimError> {
    let mut key = KeyHasher::new();
    key.toolchain(tc);
    key.flags("runtime-sources", RUNTIME_SOURCES);
    let name = format!("runtime-{}", key.finish());
    let objects = |dir: &Path| -> Vec<PathBuf> {
        RUNTIME_SOURCES
            .iter()
            .map(|s| dir.join(Path::new(s).with_extension("o")))
            .collect()
    };
    let (dir, _) = cached_dir(cache, &name, |tmp| {
        let mut log = BuildLog::create(tmp)?;
        let include = tc.verilator_root.join("include");
        let cmds = RUNTIME_SOURCES
            .iter()
            .zip(objects(tmp))
            .map(|(src, obj)| {
                let mut c = cxx_command(tc, OPT_FAST, true);
                c.arg("-c").arg(include.join(src)).arg("-o").arg(obj);
                c
            })
            .collect();
        run_parallel(
            &mut log,
            cmds,
            "compiling the Verilator runtime",
            "verilator-runtime",
        )
    })?;
    Ok(objects(&dir))
}

/// The precompiled runtime headers for units compiled with `opt` and `trace` (built into the
/// cache the first time), as the path to pass to `-include`; `None` when they cannot be built
/// (the units then parse the headers themselves: slower, the same model). A failure is noted in
/// `log` and not retried by this process.
fn precompiled_header(tc: &Toolchain, opt: &str, trace: bool, log: &mut BuildLog) -> Option<PathBuf> {
    static REFUSED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut key = KeyHasher::new();
    key.toolchain(tc);
    key.field("pch-opt", opt.as_bytes());
    key.field("trace", if trace { b"vcd" } else { b"off" });
    key.field("pch-text", PCH_TEXT.as_bytes());
    let name = format!("pch-{}", key.finish());
    if REFUSED.lock().unwrap_or_else(|e| e.into_inner()).contains(&name) {
        return None;
    }
    let built = cached_dir(&cache_dir(), &name, |tmp| {
        let mut pch_log = BuildLog::create(tmp)?;
        let header = tmp.join(PCH_NAME);
        write_file(&header, PCH_TEXT)?;
        let mut c = cxx_command(tc, opt, trace);
        c.arg("-x").arg("c++-header").arg(&header).arg("-o").arg(tmp.join(format!("{PCH_NAME}.gch")));
        run_one(&mut pch_log, c, "precompiling the Verilator runtime headers", "verilator-pch")
    });
    match built {
        Ok((dir, _)) => Some(dir.join(PCH_NAME)),
        Err(e) => {
            log.note(&format!("# no precompiled header ({e}); the units parse the runtime headers"));
            REFUSED.lock().unwrap_or_else(|e| e.into_inner()).push(name);
            None
        }
    }
}

fn cxx_command(tc: &Toolchain, opt: &str, trace: bool) -> Command {
    let include = tc.verilator_root.join("include");
    let mut c = Command::new(&tc.cxx);
    c.args(CXX_FLAGS)
        .args(if trace { TRACE_DEFINES } else { NO_TRACE_DEFINES })
        .arg(opt)
        .arg("-I")
        .arg(&include)
        .arg("-I")
        .arg(include.join("vltstd"));
    c
}

/// The cache protocol described in the module docs: returns `(<cache>/<name>, was_hit)`.
/// `build` fills a fresh temporary directory; on failure that directory is kept as
/// `<cache>/failed-<name>-<pid>` so the log in the error stays readable.
fn cached_dir(
    cache: &Path,
    name: &str,
    build: impl FnOnce(&Path) -> Result<(), SimError>,
) -> Result<(PathBuf, bool), SimError> {
    let final_dir = cache.join(name);
    if final_dir.is_dir() {
        return Ok((final_dir, true));
    }
    fs::create_dir_all(cache)
        .map_err(|e| SimError::io(format!("creating {}", cache.display()), e))?;
    let lock = exclusive_lock(&cache.join(format!("{name}.lock")))?;
    // Another builder may have finished while we waited for the lock.
    if final_dir.is_dir() {
        return Ok((final_dir, true));
    }
    // Temporary directories of `name` are only created under this lock, so any left now
    // belong to a builder that was killed: remove them.
    remove_dirs_with_prefix(cache, &format!(".tmp-{name}-"));
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let tmp = cache.join(format!(
        ".tmp-{name}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).map_err(|e| SimError::io(format!("creating {}", tmp.display()), e))?;
    if let Err(mut err) = build(&tmp) {
        // Per process, so a concurrent builder failing the same way cannot delete the log this
        // error points at. Removed again once the same key builds successfully.
        let failed = cache.join(format!("failed-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&failed);
        if fs::rename(&tmp, &failed).is_ok() {
            if let SimError::BuildFailed { log, .. } = &mut err {
                *log = failed.join("build.log");
            }
        }
        return Err(err);
    }
    fs::rename(&tmp, &final_dir).map_err(|e| {
        SimError::io(
            format!("renaming {} to {}", tmp.display(), final_dir.display()),
            e,
        )
    })?;
    drop(lock);
    remove_dirs_with_prefix(cache, &format!("failed-{name}-"));
    Ok((final_dir, false))
}

/// An exclusive `flock` of `path` (created if missing), held until the file is dropped.
fn exclusive_lock(path: &Path) -> Result<File, SimError> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| SimError::io(format!("opening lock file {}", path.display()), e))?;
    fs4::FileExt::lock(&file).map_err(|e| SimError::io(format!("locking {}", path.display()), e))?;
    Ok(file)
}

/// Deletes the cache entries whose names start with `prefix` (best effort).
fn remove_dirs_with_prefix(cache: &Path, prefix: &str) {
    if let Ok(rd) = fs::read_dir(cache) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(prefix) {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
}

/// `build.log` of one build: every command with its output.
struct BuildLog {
    path: PathBuf,
    file: File,
}

impl BuildLog {
    fn create(dir: &Path) -> Result<Self, SimError> {
        let path = dir.join("build.log");
        let file = File::create(&path)
            .map_err(|e| SimError::io(format!("creating {}", path.display()), e))?;
        Ok(BuildLog { path, file })
    }

    fn note(&mut self, text: &str) {
        // A log write failure must not hide the build's own result.
        let _ = writeln!(self.file, "{text}");
    }

    fn record(&mut self, line: &str, out: &std::io::Result<Output>, secs: f64) {
        self.note(&format!("$ {line}"));
        match out {
            Ok(o) => {
                let _ = self.file.write_all(&o.stdout);
                let _ = self.file.write_all(&o.stderr);
                self.note(&format!("# {} after {secs:.2}s", o.status));
            }
            Err(e) => self.note(&format!("# could not start: {e}")),
        }
    }

    fn failure(&mut self, module: &str, stage: &str) -> SimError {
        let _ = self.file.flush();
        let text = fs::read_to_string(&self.path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(40)..].join("\n");
        SimError::BuildFailed {
            module: module.to_string(),
            stage: stage.to_string(),
            log: self.path.clone(),
            tail,
        }
    }
}

/// Runs commands on a pool of `jobs()` workers (a worker takes the next command as soon as
/// it is free), logs each in submission order, and fails if any failed.
fn run_parallel(
    log: &mut BuildLog,
    cmds: Vec<Command>,
    stage: &str,
    module: &str,
) -> Result<(), SimError> {
    type Outcome = (String, std::io::Result<Output>, f64);
    let n = cmds.len();
    let queue = Mutex::new(
        cmds.into_iter()
            .enumerate()
            .collect::<std::collections::VecDeque<_>>(),
    );
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs().min(n) {
            s.spawn(|| loop {
                let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
                let Some((i, mut cmd)) = next else { break };
                let line = command_line(&cmd);
                let t = Instant::now();
                let out = cmd.output();
                let outcome = (line, out, t.elapsed().as_secs_f64());
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(outcome);
            });
        }
    });
    let mut ok = true;
    for r in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
        match r {
            Some((line, out, secs)) => {
                log.record(&line, &out, secs);
                ok &= matches!(out, Ok(o) if o.status.success());
            }
            None => ok = false,
        }
    }
    if ok {
        Ok(())
    } else {
        Err(log.failure(module, stage))
    }
}

fn command_line(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

fn run_one(log: &mut BuildLog, cmd: Command, stage: &str, module: &str) -> Result<(), SimError> {
    run_parallel(log, vec![cmd], stage, module)
}

/// Parallel compiler processes: `RTLGEN_SIM_JOBS`, else the number of CPUs (at most 8).
fn jobs() -> usize {
    env::var("RTLGEN_SIM_JOBS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
                .min(8)
        })
}

fn build_into(
    tmp: &Path,
    tc: &Toolchain,
    module: &Module,
    sources: &[PathBuf],
    runtime: &[PathBuf],
    lib_name: &str,
    trace: bool,
) -> Result<(), SimError> {
    let name = &module.name;
    let mut log = BuildLog::create(tmp)?;
    let obj = tmp.join("obj");

    // 1. Verilate, one large module at a time on this machine (see `LARGE_SOURCE_BYTES`).
    let large = sources.iter().filter_map(|f| fs::metadata(f).ok()).map(|m| m.len()).sum::<u64>() > LARGE_SOURCE_BYTES;
    let large_lock = if large { Some(exclusive_lock(&cache_dir().join("large-verilator.lock"))?) } else { None };
    let mut v = Command::new(&tc.verilator);
    v.args(VERILATOR_FLAGS)
        .args(trace.then_some(TRACE_VERILATOR_FLAG))
        .arg("--top-module")
        .arg(name)
        .arg("-Mdir")
        .arg(&obj)
        .args(sources);
    run_one(&mut log, v, "running verilator", name)?;
    drop(large_lock);

    // 2. Ports and shim.
    let header_path = obj.join(format!("{MODEL_PREFIX}.h"));
    let header = fs::read_to_string(&header_path)
        .map_err(|e| SimError::io(format!("reading {}", header_path.display()), e))?;
    let cxx_names = shim::match_ports(module, &shim::parse_verilated_ports(&header))
        .inspect_err(|e| log.note(&e.to_string()))?;
    let shim_path = obj.join("rtlgen_shim.cpp");
    write_file(&shim_path, &shim::generate(module, &cxx_names))?;

    // 3. Unity translation units, compiled in parallel.
    let classes =
        fs::read_to_string(obj.join(format!("{MODEL_PREFIX}_classes.mk"))).unwrap_or_default();
    let (mut fast, slow) = model_files(&classes, &obj);
    fast.push(shim_path);
    let fast_bytes: u64 = fast.iter().filter_map(|f| fs::metadata(f).ok()).map(|m| m.len()).sum();
    let opt = if fast_bytes > LARGE_MODEL_BYTES { OPT_LARGE } else { OPT_FAST };
    let mut units: Vec<(PathBuf, &str)> = Vec::new();
    for (i, group) in split_by_size(fast, jobs()).iter().enumerate() {
        let unit = obj.join(format!("rtlgen_fast_{i}.cpp"));
        write_file(&unit, &includes(group))?;
        units.push((unit, opt));
    }
    for (i, group) in split_by_size(slow, 1).iter().enumerate() {
        let unit = obj.join(format!("rtlgen_slow_{i}.cpp"));
        write_file(&unit, &includes(group))?;
        units.push((unit, OPT_SLOW));
    }
    let mut headers: Vec<(&str, Option<PathBuf>)> = Vec::new();
    for (_, opt) in &units {
        if !headers.iter().any(|(o, _)| o == opt) {
            headers.push((opt, precompiled_header(tc, opt, trace, &mut log)));
        }
    }
    let mut objects = Vec::new();
    let cmds = units
        .iter()
        .map(|(unit, opt)| {
            let o = unit.with_extension("o");
            let mut c = cxx_command(tc, opt, trace);
            if let Some((_, Some(pch))) = headers.iter().find(|(h, _)| h == opt) {
                c.arg("-Winvalid-pch").arg("-include").arg(pch);
            }
            c.arg("-I").arg(&obj).arg("-c").arg(unit).arg("-o").arg(&o);
            objects.push(o);
            c
        })
        .collect();
    run_parallel(&mut log, cmds, "compiling the Verilated model", name)?;

    // 4. Link.
    let mut l = Command::new(&tc.cxx);
    l.arg("-o")
        .arg(tmp.join(lib_name))
        .args(&objects)
        .args(runtime)
        .args(LINK_FLAGS);
    run_one(&mut log, l, "linking the shared library", name)?;
    for o in &objects {
        let _ = fs::remove_file(o);
    }
    Ok(())
}

fn write_file(path: &Path, text: &str) -> Result<(), SimError> {
    fs::write(path, text).map_err(|e| SimError::io(format!("writing {}", path.display()), e))
}

/// A unity file's body. Names only, not paths: the unit sits next to the files it includes,
/// so the cached `obj/` stays compilable by hand after the temporary directory is renamed.
fn includes(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| {
            format!(
                "#include \"{}\"\n",
                f.file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default()
            )
        })
        .collect()
}

/// The model's fast-path and slow-path `.cpp` files, from Verilator's `Vdut_classes.mk`
/// (`VM_CLASSES_*` and `VM_SUPPORT_*` lists). If that file cannot be understood, every
/// `Vdut*.cpp` is treated as fast-path.
fn model_files(classes_mk: &str, obj: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut fast, mut slow) = (Vec::new(), Vec::new());
    let mut current: Option<bool> = None; // Some(true) = fast list, Some(false) = slow list
    for line in classes_mk.lines() {
        let t = line.trim();
        if let Some((var, _)) = t.split_once("+=") {
            current = match var.trim() {
                "VM_CLASSES_FAST" | "VM_SUPPORT_FAST" => Some(true),
                "VM_CLASSES_SLOW" | "VM_SUPPORT_SLOW" => Some(false),
                _ => None,
            };
            continue;
        }
        if t.is_empty() || t.starts_with('#') {
            current = None;
            continue;
        }
        if let Some(is_fast) = current {
            let base = t.trim_end_matches('\\').trim();
            if !base.is_empty() {
                let f = obj.join(format!("{base}.cpp"));
                if is_fast {
                    fast.push(f)
                } else {
                    slow.push(f)
                }
            }
        }
    }
    if fast.is_empty() {
        slow.clear();
        if let Ok(rd) = fs::read_dir(obj) {
            let mut all: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "cpp")
                        && p.file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with(MODEL_PREFIX))
                })
                .collect();
            all.sort();
            fast = all;
        }
    }
    (fast, slow)
}

/// Splits files into groups of similar total size: `max_groups` at most while the code is small
/// (one per `UNITY_CHUNK_BYTES`, so small models stay one unit), but always enough that no group
/// is much over `UNITY_MAX_BYTES`.
fn split_by_size(files: Vec<PathBuf>, max_groups: usize) -> Vec<Vec<PathBuf>> {
    let sized: Vec<(u64, PathBuf)> = files
        .into_iter()
        .map(|f| (fs::metadata(&f).map(|m| m.len()).unwrap_or(0), f))
        .collect();
    group_sizes(sized, max_groups)
}

/// [`split_by_size`] on known sizes: largest first into the lightest group.
fn group_sizes(sized: Vec<(u64, PathBuf)>, max_groups: usize) -> Vec<Vec<PathBuf>> {
    let total: u64 = sized.iter().map(|(s, _)| s).sum();
    let by_chunk = (total.div_ceil(UNITY_CHUNK_BYTES) as usize).clamp(1, max_groups.max(1));
    let by_cap = total.div_ceil(UNITY_MAX_BYTES) as usize;
    let n = by_chunk.max(by_cap).min(sized.len()).max(1);
    let mut groups: Vec<(u64, Vec<PathBuf>)> = vec![(0, Vec::new()); n];
    let mut order = sized;
    order.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (size, f) in order {
        if let Some(g) = groups.iter_mut().min_by_key(|g| g.0) {
            g.0 += size;
            g.1.push(f);
        }
    }
    groups
        .into_iter()
        .map(|(_, mut g)| {
            g.sort();
            g
        })
        .filter(|g| !g.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sized(sizes: &[u64]) -> Vec<(u64, PathBuf)> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, PathBuf::from(format!("f{i:02}.cpp"))))
            .collect()
    }

    fn total_of(group: &[PathBuf], sizes: &[u64]) -> u64 {
        group
            .iter()
            .map(|p| sizes[p.to_string_lossy()[1..3].parse::<usize>().unwrap()])
            .sum()
    }

    #[test]
    fn small_models_stay_one_unit() {
        let sizes = [100_000, 50_000, 30_000];
        assert_eq!(group_sizes(sized(&sizes), 8).len(), 1);
    }

    #[test]
    fn medium_models_get_one_unit_per_job() {
        let sizes = [900_000; 4];
        let groups = group_sizes(sized(&sizes), 2);
        assert_eq!(groups.len(), 2);
        assert!(groups.iter().all(|g| total_of(g, &sizes) == 1_800_000));
    }

    #[test]
    fn large_models_are_capped_per_unit_and_keep_every_file_once() {
        // The rtlgen_rxl_ep model: tens of megabytes in files of up to 5 MB.
        let sizes = [
            5_000_000, 3_200_000, 2_600_000, 2_000_000, 2_000_000, 1_800_000, 1_300_000, 700_000,
            450_000, 16_000,
        ];
        let groups = group_sizes(sized(&sizes), 2);
        let total: u64 = sizes.iter().sum();
        assert_eq!(groups.len() as u64, total.div_ceil(UNITY_MAX_BYTES));
        let mut seen: Vec<PathBuf> = groups.iter().flatten().cloned().collect();
        seen.sort();
        assert_eq!(seen, sized(&sizes).into_iter().map(|(_, p)| p).collect::<Vec<_>>());
        // Largest-first packing: no group holds more than the cap plus its first (largest) file.
        for g in &groups {
            assert!(total_of(g, &sizes) <= UNITY_MAX_BYTES + 5_000_000, "{g:?}");
        }
    }
}
