//! `Dut`: one live Verilated model, driven from Rust.
//!
//! Port names are resolved to indices and storage pointers once, when the model is built; a
//! port write or read is then a bounds/width check plus a plain memory copy into Verilator's
//! port storage (no FFI call), and `eval` is one FFI call. Ports can also be looked up once as
//! a [`PortId`] to skip the name lookup in hot loops.
//!
//! Threading: a Verilated model is not thread-safe and the shim hands out raw pointers into
//! it, so `Dut` is deliberately neither `Send` nor `Sync` (it holds a `PhantomData<*const ()>`
//! marker). Build one `Dut` per test thread; separate `Dut`s, even of the same module, are
//! independent (each has its own `VerilatedContext`).
//!
//! Loaded libraries are never unloaded: a process keeps one handle per `.so` (reused by every
//! later `Dut` of the same model) until it exits. `dlclose` of a library whose C++ runtime has
//! registered thread-local destructors is unsafe, and test processes are short-lived.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CString};
use std::fs;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use libloading::Library;

use crate::manifest::{Dir, Module, Tree};
use crate::model_build::{self, BuildInfo};
use crate::shim::{Storage, SHIM_ABI_VERSION};
use crate::waves;
use crate::start::{Initial, TrafficBeforeReset};
use crate::{Bits, SimError, TestRng};

type CreateFn = unsafe extern "C" fn(u32, u32) -> *mut c_void;
type HandleFn = unsafe extern "C" fn(*mut c_void);
type SetTimeFn = unsafe extern "C" fn(*mut c_void, u64);
type TraceOpenFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;
type PortPtrFn = unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void;
type SetWordsFn = unsafe extern "C" fn(*mut c_void, u32, *const u32);
type GetWordsFn = unsafe extern "C" fn(*mut c_void, u32, *mut u32);
type CountFn = unsafe extern "C" fn() -> u32;

/// The shim's functions in one loaded library.
struct Model {
    create: CreateFn,
    destroy: HandleFn,
    eval: HandleFn,
    set_time: SetTimeFn,
    trace_open: TraceOpenFn,
    trace_dump: HandleFn,
    trace_flush: HandleFn,
    trace_close: HandleFn,
    port_ptr: PortPtrFn,
    set_words: SetWordsFn,
    get_words: GetWordsFn,
    /// Keeps the code behind the function pointers mapped.
    _lib: Library,
}

/// Process-wide table of loaded models, by library path (see module docs on unloading).
fn loaded_models() -> &'static Mutex<HashMap<PathBuf, Arc<Model>>> {
    static MODELS: OnceLock<Mutex<HashMap<PathBuf, Arc<Model>>>> = OnceLock::new();
    MODELS.get_or_init(|| Mutex::new(HashMap::new()))
}

fn load_model(path: &Path, port_count: usize) -> Result<Arc<Model>, SimError> {
    let mut table = loaded_models().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = table.get(path) {
        return Ok(m.clone());
    }
    let err = |source| SimError::Load {
        path: path.to_path_buf(),
        source,
    };
    // SAFETY: the library was produced by this crate's builder (its static initialisers are
    // Verilator's); its exported symbols have exactly the signatures declared above, which is
    // what the ABI version check below guards.
    unsafe {
        let lib = Library::new(path).map_err(err)?;
        let abi: CountFn = *lib.get(b"rtlgen_sim_abi_version\0").map_err(err)?;
        if abi() != SHIM_ABI_VERSION {
            return Err(SimError::BadModel {
                path: path.to_path_buf(),
                reason: format!("shim ABI version {} (expected {SHIM_ABI_VERSION})", abi()),
            });
        }
        let count: CountFn = *lib.get(b"rtlgen_sim_port_count\0").map_err(err)?;
        if count() as usize != port_count {
            return Err(SimError::BadModel {
                path: path.to_path_buf(),
                reason: format!("it has {} ports, the manifest {port_count}", count()),
            });
        }
        let model = Model {
            create: *lib.get(b"rtlgen_sim_create\0").map_err(err)?,
            destroy: *lib.get(b"rtlgen_sim_destroy\0").map_err(err)?,
            eval: *lib.get(b"rtlgen_sim_eval\0").map_err(err)?,
            set_time: *lib.get(b"rtlgen_sim_set_time\0").map_err(err)?,
            trace_open: *lib.get(b"rtlgen_sim_trace_open\0").map_err(err)?,
            trace_dump: *lib.get(b"rtlgen_sim_trace_dump\0").map_err(err)?,
            trace_flush: *lib.get(b"rtlgen_sim_trace_flush\0").map_err(err)?,
            trace_close: *lib.get(b"rtlgen_sim_trace_close\0").map_err(err)?,
            port_ptr: *lib.get(b"rtlgen_sim_port_ptr\0").map_err(err)?,
            set_words: *lib.get(b"rtlgen_sim_set_words\0").map_err(err)?,
            get_words: *lib.get(b"rtlgen_sim_get_words\0").map_err(err)?,
            _lib: lib,
        };
        let model = Arc::new(model);
        table.insert(path.to_path_buf(), model.clone());
        Ok(model)
    }
}

/// A port resolved once with [`Dut::port`], for hot loops. Only valid with the `Dut` that
/// produced it (using it with another one is an error, not undefined behaviour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PortId {
    index: u32,
    dut: u64,
}

/// One port: manifest facts plus where Verilator keeps its value.
struct Slot {
    name: String,
    dir: Dir,
    width: u32,
    storage: Storage,
    /// Start of the port's storage inside the live model (valid while `handle` lives).
    ptr: *mut u8,
}

/// Half a clock period in simulation time units (a `tick` advances time by 10).
const HALF_PERIOD: u64 = 5;

/// A live Verilated model of one module.
///
/// Not `Send` and not `Sync` (see the module docs), which the compiler enforces:
///
/// ```compile_fail
/// fn needs_send<T: Send>() {}
/// needs_send::<rtl_gen_sim::Dut>();
/// ```
///
/// ```compile_fail
/// fn needs_sync<T: Sync>() {}
/// needs_sync::<rtl_gen_sim::Dut>();
/// ```
pub struct Dut {
    model: Arc<Model>,
    handle: *mut c_void,
    module: Module,
    slots: Vec<Slot>,
    by_name: HashMap<String, u32>,
    clock: Option<u32>,
    reset: Option<(u32, bool)>,
    id: u64,
    time: u64,
    cycle: u64,
    wave: Option<PathBuf>,
    build: BuildInfo,
    _not_send_sync: PhantomData<*const ()>,
}

impl Dut {
    /// Builds (or loads from the cache) `module` of `tree` and instantiates it. With
    /// `RTLGEN_WAVES=1` it traces to `<target>/waves/<module>.vcd`; tests should prefer
    /// [`Dut::build_named`] so parallel tests do not share a file.
    pub fn build(tree: &Tree, module: &str) -> Result<Dut, SimError> {
        Dut::build_named(tree, module, module)
    }

    /// Like [`Dut::build`], naming the waveform after `test_name` when `RTLGEN_WAVES` is set.
    /// Without `RTLGEN_WAVES` the model is built without tracing (less C++ to compile: a quarter
    /// of a register-heavy model's); [`Dut::trace_to`] then fails and says so.
    pub fn build_named(tree: &Tree, module: &str, test_name: &str) -> Result<Dut, SimError> {
        let waves = waves::waves_enabled();
        let mut dut = Dut::build_with(tree, module, waves)?;
        if waves {
            let path = waves::wave_path_for(test_name);
            dut.trace_to(&path)?;
            waves::record(path);
        }
        Ok(dut)
    }

    /// Builds a model that can write VCD waveforms whatever `RTLGEN_WAVES` says; start one with
    /// [`Dut::trace_to`].
    pub fn build_traced(tree: &Tree, module: &str) -> Result<Dut, SimError> {
        Dut::build_with(tree, module, true)
    }

    fn build_with(tree: &Tree, module: &str, trace: bool) -> Result<Dut, SimError> {
        let m = tree.module(module)?;
        let build = model_build::build_model(tree, m, trace)?;
        let start = tree.start();
        let mut dut = Dut::instantiate(m, build, start.initial)?;
        dut.eval();
        if let Some(traffic) = start.traffic_before_reset {
            dut.traffic_then_reset(traffic)?;
        }
        Ok(dut)
    }

    fn instantiate(m: &Module, build: BuildInfo, initial: Initial) -> Result<Dut, SimError> {
        let model = load_model(&build.library, m.ports.len())?;
        let (rand_reset, seed) = initial.verilator();
        // SAFETY: `create` has no preconditions; a null result is handled.
        let handle = unsafe { (model.create)(rand_reset, seed) };
        if handle.is_null() {
            return Err(SimError::CreateFailed {
                module: m.name.clone(),
            });
        }
        let mut slots = Vec::with_capacity(m.ports.len());
        let mut bad_port = None;
        for (i, p) in m.ports.iter().enumerate() {
            // SAFETY: `handle` is live and `i` is below the library's (checked) port count.
            let ptr = unsafe { (model.port_ptr)(handle, i as u32) } as *mut u8;
            if ptr.is_null() {
                bad_port = Some(p.name.clone());
            }
            slots.push(Slot {
                name: p.name.clone(),
                dir: p.dir,
                width: p.width,
                storage: Storage::for_width(p.width),
                ptr,
            });
        }
        if let Some(port) = bad_port {
            // SAFETY: `handle` came from this model's `create` and is destroyed once.
            unsafe { (model.destroy)(handle) };
            return Err(SimError::BadModel {
                path: build.library.clone(),
                reason: format!("no storage for port `{port}`"),
            });
        }
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let by_name = m
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i as u32))
            .collect::<HashMap<_, _>>();
        let clock = m.clock.as_ref().and_then(|c| by_name.get(c).copied());
        let reset = m
            .reset
            .as_ref()
            .and_then(|r| by_name.get(&r.name).map(|&i| (i, r.active_low)));
        Ok(Dut {
            model,
            handle,
            module: m.clone(),
            slots,
            by_name,
            clock,
            reset,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            time: 0,
            cycle: 0,
            wave: None,
            build,
            _not_send_sync: PhantomData,
        })
    }

    /// The module's manifest entry (ports, latency, clock, reset).
    pub fn info(&self) -> &Module {
        &self.module
    }

    /// How the model was obtained (library path, cache hit, build time, log).
    pub fn build_info(&self) -> &BuildInfo {
        &self.build
    }

    /// Rising clock edges applied so far by [`Dut::tick`] (and [`Dut::reset`]).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Current simulation time (10 units per clock cycle).
    pub fn time(&self) -> u64 {
        self.time
    }

    /// The waveform being written, if any: print it when a comparison fails.
    pub fn wave_path(&self) -> Option<&Path> {
        self.wave.as_deref()
    }

    /// Resolves a port name once, for [`Dut::set_port`] / [`Dut::get_port`] in hot loops.
    pub fn port(&self, name: &str) -> Result<PortId, SimError> {
        match self.by_name.get(name) {
            Some(&index) => Ok(PortId {
                index,
                dut: self.id,
            }),
            None => Err(SimError::UnknownPort {
                module: self.module.name.clone(),
                port: name.to_string(),
                available: self
                    .slots
                    .iter()
                    .map(|s| format!("{} {}[{}]", s.dir, s.name, s.width))
                    .collect(),
            }),
        }
    }

    fn slot_index(&self, id: PortId) -> Result<usize, SimError> {
        if id.dut != self.id {
            return Err(SimError::ForeignPort {
                module: self.module.name.clone(),
            });
        }
        Ok(id.index as usize)
    }

    fn width_error(&self, i: usize, detail: String) -> SimError {
        let s = &self.slots[i];
        SimError::WidthMismatch {
            module: self.module.name.clone(),
            port: s.name.clone(),
            width: s.width,
            detail,
        }
    }

    fn writable(&self, i: usize) -> Result<(), SimError> {
        let s = &self.slots[i];
        if s.dir != Dir::Input {
            return Err(SimError::NotAnInput {
                module: self.module.name.clone(),
                port: s.name.clone(),
                dir: s.dir,
            });
        }
        Ok(())
    }

    /// Drives input `name` with `value`, whose width must equal the port's.
    pub fn set(&mut self, name: &str, value: &Bits) -> Result<(), SimError> {
        let id = self.port(name)?;
        self.set_port(id, value)
    }

    /// Drives input `name` with `value` (any port width, as long as `value` fits in it).
    pub fn set_u64(&mut self, name: &str, value: u64) -> Result<(), SimError> {
        let id = self.port(name)?;
        self.set_port_u64(id, value)
    }

    /// The current value of port `name` (inputs read back what was driven).
    pub fn get(&self, name: &str) -> Result<Bits, SimError> {
        self.get_port(self.port(name)?)
    }

    /// The current value of port `name`, which must be at most 64 bits wide.
    pub fn get_u64(&self, name: &str) -> Result<u64, SimError> {
        self.get_port_u64(self.port(name)?)
    }

    /// [`Dut::set`] with a pre-resolved port.
    pub fn set_port(&mut self, id: PortId, value: &Bits) -> Result<(), SimError> {
        let i = self.slot_index(id)?;
        self.writable(i)?;
        let s = &self.slots[i];
        if value.width() != s.width as usize {
            return Err(self.width_error(
                i,
                format!("the value is {} bits wide ({value})", value.width()),
            ));
        }
        // SAFETY: `ptr` points at this port's live storage of `storage.bytes()` bytes, and
        // `value` has exactly the port's width, so its words cover that many bytes.
        unsafe { write_storage(s.ptr, s.storage, value.words()) };
        Ok(())
    }

    /// [`Dut::set_u64`] with a pre-resolved port.
    pub fn set_port_u64(&mut self, id: PortId, value: u64) -> Result<(), SimError> {
        let i = self.slot_index(id)?;
        self.writable(i)?;
        let s = &self.slots[i];
        if s.width < 64 && value >> s.width != 0 {
            return Err(self.width_error(i, format!("the value {value:#x} does not fit in it")));
        }
        // SAFETY: as in `set_port`; the one-word source is zero-extended for wide ports.
        unsafe {
            match s.storage {
                Storage::Wide(_) => write_storage(
                    s.ptr,
                    s.storage,
                    Bits::from_u64(value, s.width as usize).words(),
                ),
                storage => write_storage(s.ptr, storage, &[value]),
            }
        }
        Ok(())
    }

    /// [`Dut::get`] with a pre-resolved port.
    pub fn get_port(&self, id: PortId) -> Result<Bits, SimError> {
        let i = self.slot_index(id)?;
        let mut out = Bits::zeros(self.slots[i].width as usize);
        self.read_slot(i, &mut out);
        Ok(out)
    }

    /// Reads a port into `out` without allocating (when `out` already has the port's width).
    pub fn get_port_into(&self, id: PortId, out: &mut Bits) -> Result<(), SimError> {
        let i = self.slot_index(id)?;
        if out.width() != self.slots[i].width as usize {
            *out = Bits::zeros(self.slots[i].width as usize);
        }
        self.read_slot(i, out);
        Ok(())
    }

    /// [`Dut::get_u64`] with a pre-resolved port.
    pub fn get_port_u64(&self, id: PortId) -> Result<u64, SimError> {
        let i = self.slot_index(id)?;
        let s = &self.slots[i];
        if s.width > 64 {
            return Err(self.width_error(i, "get_u64 reads at most 64 bits; use get()".into()));
        }
        // SAFETY: `ptr` is this port's live storage, of the size `storage` says.
        Ok(unsafe { read_small(s.ptr, s.storage) })
    }

    fn read_slot(&self, i: usize, out: &mut Bits) {
        let s = &self.slots[i];
        // SAFETY: `ptr` is this port's live storage; `out` has the port's width.
        match s.storage {
            Storage::Wide(n) => {
                out.fill_words(|words| unsafe { copy_wide_out(s.ptr, n, words) });
            }
            storage => {
                let v = unsafe { read_small(s.ptr, storage) };
                out.fill_words(|words| {
                    if let Some(w) = words.first_mut() {
                        *w = v;
                    }
                });
            }
        }
    }

    /// Drives an input from 32-bit words (word 0 = bits `[31:0]`) through the shim's word API
    /// instead of direct storage access; `words` must hold exactly `ceil(width/32)` words,
    /// except that ports of 33..=64 bits take 2. Mostly useful to cross-check the bridge.
    pub fn set_words(&mut self, name: &str, words: &[u32]) -> Result<(), SimError> {
        let i = self.slot_index(self.port(name)?)?;
        self.writable(i)?;
        let s = &self.slots[i];
        let n = s.storage.words32();
        if words.len() != n {
            return Err(
                self.width_error(i, format!("{} words were given, {n} expected", words.len()))
            );
        }
        let packed = pack_u32(words);
        if Bits::from_words(&packed, s.width as usize).words() != packed.as_slice() {
            return Err(self.width_error(i, "the words set bits above the port's width".into()));
        }
        // SAFETY: `handle` is live; the index is in range; `words` has the count the shim reads.
        unsafe { (self.model.set_words)(self.handle, i as u32, words.as_ptr()) };
        Ok(())
    }

    /// Reads a port as 32-bit words through the shim's word API (see [`Dut::set_words`]).
    pub fn get_words(&self, name: &str) -> Result<Vec<u32>, SimError> {
        let i = self.slot_index(self.port(name)?)?;
        let mut out = vec![0u32; self.slots[i].storage.words32()];
        // SAFETY: as in `set_words`; `out` has the count the shim writes.
        unsafe { (self.model.get_words)(self.handle, i as u32, out.as_mut_ptr()) };
        Ok(out)
    }

    /// Evaluates the model with the current inputs (combinational settling). When tracing,
    /// the result is dumped and time advances by one unit.
    pub fn eval(&mut self) {
        // SAFETY: `handle` is live for the lifetime of `self`.
        unsafe { (self.model.eval)(self.handle) };
        self.advance(1);
    }

    /// One full clock cycle: evaluate the inputs with the clock low, raise the clock and
    /// evaluate (the rising edge), lower it and evaluate again, so the outputs read afterwards
    /// are those after the edge. Time advances by 10 (dumps at +0 before the edge, at +5 after
    /// it; the falling edge shows at the next dump). For a module without a clock this is just
    /// an evaluation plus the time step.
    pub fn tick(&mut self) {
        // SAFETY (all calls): `handle` is live; the clock pointer is its 1-byte storage.
        unsafe { (self.model.eval)(self.handle) };
        self.advance(HALF_PERIOD);
        if let Some(clk) = self.clock {
            let p = self.slots[clk as usize].ptr;
            unsafe {
                p.write(1);
                (self.model.eval)(self.handle);
            }
            self.advance(HALF_PERIOD);
            unsafe {
                p.write(0);
                (self.model.eval)(self.handle);
            }
        } else {
            self.advance(HALF_PERIOD);
        }
        self.cycle += 1;
    }

    /// One edge of one of several clocks ([`crate::clocks`]): sets the clock port `clock` to
    /// `rising` and evaluates once, so the inputs set since the last evaluation act at this edge
    /// and the outputs read afterwards are those after it. The caller orders the edges of all
    /// clocks in time; [`Dut::tick`] is the one-clock shorthand.
    pub fn clock_edge(&mut self, clock: PortId, rising: bool) -> Result<(), SimError> {
        self.set_port_u64(clock, u64::from(rising))?;
        self.eval();
        if rising {
            self.cycle += 1;
        }
        Ok(())
    }

    /// `n` calls of [`Dut::tick`].
    pub fn ticks(&mut self, n: u64) {
        for _ in 0..n {
            self.tick();
        }
    }

    /// Asserts the module's reset (from the manifest: `rst` active high, or `rst_n` active
    /// low), evaluates (an asynchronous reset acts here), runs `cycles` clock cycles, releases
    /// the reset and evaluates. Other inputs keep their values. A synchronous reset needs at
    /// least one cycle.
    pub fn reset(&mut self, cycles: u32) -> Result<(), SimError> {
        let (idx, active_low) = self.reset.ok_or_else(|| SimError::NoReset {
            module: self.module.name.clone(),
        })?;
        let p = self.slots[idx as usize].ptr;
        // SAFETY: `p` is the 1-byte storage of the (validated 1-bit input) reset port.
        unsafe { p.write(u8::from(!active_low)) };
        self.eval();
        for _ in 0..cycles {
            self.tick();
        }
        unsafe { p.write(u8::from(active_low)) };
        self.eval();
        Ok(())
    }

    /// [`TrafficBeforeReset`]: random traffic out of reset, the reset asserted in it (between
    /// clock edges), the inputs back to zero with the reset still asserted. A module without a
    /// single clock and a reset (combinational, or with several clocks) starts as it is.
    fn traffic_then_reset(&mut self, traffic: TrafficBeforeReset) -> Result<(), SimError> {
        let (Some(clock), Some((rst, active_low))) = (self.clock, self.reset) else { return Ok(()) };
        let mut seed = traffic.seed ^ 0x005E_ED0F_7AFF_1C00;
        for b in self.module.name.bytes() {
            seed = (seed ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
        }
        let mut rng = TestRng::from_seed(seed);
        let inputs: Vec<u32> = (0..self.slots.len() as u32).filter(|&i| self.slots[i as usize].dir == Dir::Input && i != clock && i != rst).collect();
        let mut drive = |dut: &mut Dut, random: bool| -> Result<(), SimError> {
            for &i in &inputs {
                let w = dut.slots[i as usize].width as usize;
                let v = if random { rng.bits(w) } else { Bits::zeros(w) };
                dut.set_port(PortId { index: i, dut: dut.id }, &v)?;
            }
            Ok(())
        };
        let reset = self.slots[rst as usize].ptr;
        // SAFETY: `reset` is the 1-byte storage of the (validated 1-bit input) reset port.
        unsafe { reset.write(u8::from(active_low)) };
        for _ in 0..traffic.cycles {
            drive(self, true)?;
            self.tick();
        }
        // Asserted after the falling edge, half a period before the next rising one.
        unsafe { reset.write(u8::from(!active_low)) };
        self.eval();
        drive(self, true)?;
        self.tick();
        drive(self, false)?;
        self.eval();
        self.cycle = 0;
        Ok(())
    }

    /// Starts writing a VCD waveform to `path` (parent directories are created). The current
    /// state is dumped at once. Only one trace per `Dut`.
    pub fn trace_to(&mut self, path: impl AsRef<Path>) -> Result<(), SimError> {
        let path = path.as_ref();
        let fail = |reason: String| SimError::Trace {
            path: path.to_path_buf(),
            reason,
        };
        if let Some(w) = &self.wave {
            return Err(fail(format!("this Dut already traces to {}", w.display())));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)
                .map_err(|e| fail(format!("cannot create {}: {e}", dir.display())))?;
        }
        let c_path = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| fail("path contains a NUL byte".into()))?;
        // SAFETY: `handle` is live and `c_path` is a NUL-terminated string that outlives the call.
        let rc = unsafe { (self.model.trace_open)(self.handle, c_path.as_ptr()) };
        match rc {
            0 => {}
            1 => return Err(fail("this Dut already traces".into())),
            3 => {
                return Err(fail(
                    "the model was built without tracing: build it with Dut::build_traced, or set RTLGEN_WAVES=1"
                        .into(),
                ))
            }
            _ => return Err(fail("Verilator could not open it for writing".into())),
        }
        self.wave = Some(path.to_path_buf());
        self.advance(1);
        Ok(())
    }

    /// Flushes the waveform to disk (e.g. before printing its path in a failure).
    pub fn flush_trace(&mut self) {
        if self.wave.is_some() {
            // SAFETY: `handle` is live.
            unsafe { (self.model.trace_flush)(self.handle) };
        }
    }

    /// Dumps the current state at the current time when tracing, then advances time by `dt`,
    /// so every dump happens at a strictly larger time than the previous one.
    fn advance(&mut self, dt: u64) {
        if self.wave.is_some() {
            // SAFETY: `handle` is live.
            unsafe {
                (self.model.set_time)(self.handle, self.time);
                (self.model.trace_dump)(self.handle);
            }
        }
        self.time += dt;
    }
}

impl Drop for Dut {
    fn drop(&mut self) {
        if self.wave.is_some() {
            self.advance(1);
            // SAFETY: `handle` is live.
            unsafe { (self.model.trace_close)(self.handle) };
        }
        // SAFETY: `handle` came from this model's `create` and is destroyed exactly once.
        unsafe { (self.model.destroy)(self.handle) };
    }
}

impl std::fmt::Debug for Dut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dut")
            .field("module", &self.module.name)
            .field("cycle", &self.cycle)
            .field("time", &self.time)
            .field("library", &self.build.library)
            .field("wave", &self.wave)
            .finish()
    }
}

/// Writes the low `storage.bytes()` bytes of `words` (little-endian value) into `ptr`.
///
/// # Safety
/// `ptr` must point at `storage.bytes()` writable bytes; `words` must hold at least
/// `ceil(storage.bytes() / 8)` words.
unsafe fn write_storage(ptr: *mut u8, storage: Storage, words: &[u64]) {
    let w0 = words.first().copied().unwrap_or(0);
    match storage {
        Storage::U8 => ptr.write(w0 as u8),
        Storage::U16 => (ptr as *mut u16).write_unaligned(w0 as u16),
        Storage::U32 => (ptr as *mut u32).write_unaligned(w0 as u32),
        Storage::U64 => (ptr as *mut u64).write_unaligned(w0),
        Storage::Wide(n) => {
            let dst = ptr as *mut u32;
            for i in 0..n {
                let w = words.get(i / 2).copied().unwrap_or(0);
                dst.add(i).write_unaligned((w >> (32 * (i % 2))) as u32);
            }
        }
    }
}

/// Reads a port of at most 64 bits.
///
/// # Safety
/// `ptr` must point at `storage.bytes()` readable bytes and `storage` must not be `Wide`.
unsafe fn read_small(ptr: *const u8, storage: Storage) -> u64 {
    match storage {
        Storage::U8 => ptr.read() as u64,
        Storage::U16 => (ptr as *const u16).read_unaligned() as u64,
        Storage::U32 => (ptr as *const u32).read_unaligned() as u64,
        Storage::U64 => (ptr as *const u64).read_unaligned(),
        Storage::Wide(_) => 0,
    }
}

/// Copies `n` 32-bit words from Verilator storage into 64-bit words.
///
/// # Safety
/// `src` must point at `4 * n` readable bytes and `dst` must hold `ceil(n / 2)` words.
unsafe fn copy_wide_out(src: *const u8, n: usize, dst: &mut [u64]) {
    let src = src as *const u32;
    for (i, d) in dst.iter_mut().enumerate().take(n.div_ceil(2)) {
        let lo = src.add(2 * i).read_unaligned() as u64;
        let hi = if 2 * i + 1 < n {
            src.add(2 * i + 1).read_unaligned() as u64
        } else {
            0
        };
        *d = lo | (hi << 32);
    }
}

fn pack_u32(words: &[u32]) -> Vec<u64> {
    words
        .chunks(2)
        .map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32)
        .collect()
}
