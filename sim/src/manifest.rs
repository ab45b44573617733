//! Reading a generated design tree through its `manifest.json`.
//!
//! The manifest is the single source of port names, directions and widths: the harness never
//! hand-copies a width, so a generator change that widens a bus flows into every test. Fields
//! the harness does not use are parsed leniently (optional, unknown fields ignored) so the
//! generator can grow the schema without breaking the simulator.
//!
//! Structural checks (unique names, widths in range, clock/reset naming real 1-bit inputs,
//! dependencies that exist) run per module in [`Tree::module`], so one bad module does not stop
//! tests of the others.

use std::collections::HashSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

pub use crate::port::Dir;
use crate::SimError;

/// Widest port the harness accepts (the manifest contract: 1..=16384 bits).
pub const MAX_PORT_WIDTH: u32 = 16384;

/// One port of a module.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub width: u32,
}

/// The reset port of a clocked module.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Reset {
    pub name: String,
    /// `false`: `rst`, synchronous active high. `true`: `rst_n`, asynchronous active low.
    #[serde(default)]
    pub active_low: bool,
}

/// One module entry of the manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct Module {
    pub name: String,
    /// Block name in the design file (absent for helper modules).
    #[serde(default)]
    pub block: Option<String>,
    /// Block kind (`crc`, `crc_stream`, ...).
    #[serde(default)]
    pub kind: Option<String>,
    /// Source file relative to the tree root, e.g. `rtl/rtlgen_crc32.v`.
    pub file: String,
    /// Pipeline latency in cycles (0 = combinational).
    #[serde(default)]
    pub latency: u32,
    /// Clock port name, `None` for combinational modules.
    #[serde(default)]
    pub clock: Option<String>,
    #[serde(default)]
    pub reset: Option<Reset>,
    /// Names of modules (of the same tree) this one instantiates.
    #[serde(default)]
    pub depends: Vec<String>,
    pub ports: Vec<Port>,
}

impl Module {
    /// The port called `name`, if any.
    pub fn port(&self, name: &str) -> Option<&Port> {
        self.ports.iter().find(|p| p.name == name)
    }

    /// Input ports in manifest order.
    pub fn inputs(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter().filter(|p| p.dir == Dir::Input)
    }

    /// Output ports in manifest order.
    pub fn outputs(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter().filter(|p| p.dir == Dir::Output)
    }

    fn invalid(&self, reason: String) -> SimError {
        SimError::InvalidModule {
            module: self.name.clone(),
            reason,
        }
    }

    /// Structural checks the bridge relies on (see module docs).
    fn validate(&self) -> Result<(), SimError> {
        if !is_identifier(&self.name) {
            return Err(self.invalid(format!(
                "module name `{}` is not a Verilog identifier",
                self.name
            )));
        }
        if self.ports.is_empty() {
            return Err(self.invalid("no ports".into()));
        }
        let mut seen = HashSet::new();
        for p in &self.ports {
            if !is_identifier(&p.name) {
                return Err(self.invalid(format!(
                    "port name `{}` is not a Verilog identifier",
                    p.name
                )));
            }
            if !seen.insert(p.name.as_str()) {
                return Err(self.invalid(format!("port `{}` listed twice", p.name)));
            }
            if p.width == 0 || p.width > MAX_PORT_WIDTH {
                return Err(self.invalid(format!(
                    "port `{}` has width {}, outside 1..={MAX_PORT_WIDTH}",
                    p.name, p.width
                )));
            }
        }
        let one_bit_input = |role: &str, name: &str| -> Result<(), SimError> {
            match self.port(name) {
                Some(p) if p.dir == Dir::Input && p.width == 1 => Ok(()),
                Some(p) => Err(self.invalid(format!(
                    "{role} `{name}` must be a 1-bit input, but is a {}-bit {}",
                    p.width, p.dir
                ))),
                None => Err(self.invalid(format!("{role} `{name}` is not one of the ports"))),
            }
        };
        if let Some(clk) = &self.clock {
            one_bit_input("clock", clk)?;
        }
        if let Some(rst) = &self.reset {
            one_bit_input("reset", &rst.name)?;
        }
        Ok(())
    }
}

/// The parsed `manifest.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    #[serde(default)]
    pub generator: String,
    #[serde(default)]
    pub design: String,
    #[serde(default)]
    pub design_hash: String,
    pub modules: Vec<Module>,
    #[serde(default)]
    pub files: Vec<FileEntry>,
}

/// One `files` entry (path and its sha256 as written by the generator).
#[derive(Debug, Clone, Deserialize)]
pub struct FileEntry {
    pub path: String,
    #[serde(default)]
    pub sha256: String,
}

/// A generated design tree: its root directory and manifest.
#[derive(Debug, Clone)]
pub struct Tree {
    root: PathBuf,
    manifest_path: PathBuf,
    manifest: Manifest,
    /// How models built from the tree start ([`crate::Start`]).
    start: crate::Start,
}

impl Tree {
    /// Opens a tree from its root directory (containing `manifest.json`) or from the path of
    /// the manifest itself.
    pub fn open(path: impl AsRef<Path>) -> Result<Tree, SimError> {
        let path = path.as_ref();
        let is_json = path.extension().is_some_and(|e| e == "json") && !path.is_dir();
        let manifest_path = if is_json {
            path.to_path_buf()
        } else {
            path.join("manifest.json")
        };
        let root = manifest_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let text = fs::read_to_string(&manifest_path).map_err(|source| SimError::Io {
            context: format!("reading {}", manifest_path.display()),
            source,
        })?;
        let manifest: Manifest =
            serde_json::from_str(&text).map_err(|source| SimError::ManifestParse {
                path: manifest_path.clone(),
                source,
            })?;
        let root = fs::canonicalize(&root).unwrap_or(root);
        Ok(Tree {
            root,
            manifest_path,
            manifest,
            start: crate::Start::default(),
        })
    }

    /// How every [`crate::Dut`] built from the tree starts.
    pub fn start(&self) -> crate::Start {
        self.start
    }

    /// Makes every [`crate::Dut`] built from now on start as `start` says.
    pub fn set_start(&mut self, start: crate::Start) {
        self.start = start;
    }

    /// Root directory of the tree.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Path of `manifest.json`.
    pub fn manifest_path(&self) -> &Path {
        &self.manifest_path
    }

    /// The whole manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The same tree with one more module entry: a top the generator writes outside `rtl/` (the
    /// FPGA demos under `demo/`), which the manifest does not list, built like any module.
    pub fn with_module(&self, module: Module) -> Tree {
        let mut t = self.clone();
        t.manifest.modules.push(module);
        t
    }

    /// Names of all modules, in manifest order.
    pub fn module_names(&self) -> impl Iterator<Item = &str> {
        self.manifest.modules.iter().map(|m| m.name.as_str())
    }

    /// The module called `name`, after checking its entry (see module docs).
    pub fn module(&self, name: &str) -> Result<&Module, SimError> {
        let m = self.find(name)?;
        m.validate()?;
        Ok(m)
    }

    fn find(&self, name: &str) -> Result<&Module, SimError> {
        self.manifest
            .modules
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| SimError::UnknownModule {
                module: name.to_string(),
                manifest: self.manifest_path.clone(),
                available: self.module_names().map(String::from).collect(),
            })
    }

    /// Source files Verilator needs for `name`: its own file and, transitively, those of every
    /// module it depends on (dependencies first, each once). Paths are checked to exist and to
    /// stay inside the tree.
    pub fn sources(&self, name: &str) -> Result<Vec<PathBuf>, SimError> {
        let mut order = Vec::new();
        let mut visiting = Vec::new();
        self.visit(name, &mut visiting, &mut order)?;
        order
            .iter()
            .map(|m| {
                let m = self.find(m)?;
                self.source_path(m)
            })
            .collect()
    }

    fn visit(
        &self,
        name: &str,
        visiting: &mut Vec<String>,
        order: &mut Vec<String>,
    ) -> Result<(), SimError> {
        if order.iter().any(|n| n == name) {
            return Ok(());
        }
        if visiting.iter().any(|n| n == name) {
            return Err(SimError::InvalidModule {
                module: visiting.first().cloned().unwrap_or_default(),
                reason: format!(
                    "dependency cycle through `{name}`: {}",
                    visiting.join(" -> ")
                ),
            });
        }
        let m = self.find(name)?;
        visiting.push(name.to_string());
        for d in &m.depends {
            if self.find(d).is_err() {
                return Err(SimError::InvalidModule {
                    module: m.name.clone(),
                    reason: format!(
                        "depends on `{d}`, which is not in {}",
                        self.manifest_path.display()
                    ),
                });
            }
            self.visit(d, visiting, order)?;
        }
        visiting.pop();
        order.push(name.to_string());
        Ok(())
    }

    fn source_path(&self, m: &Module) -> Result<PathBuf, SimError> {
        let rel = Path::new(&m.file);
        // The path reaches Verilator's command line: the same rule as the EDA tools' runner.
        if rel.is_absolute()
            || rel.components().any(|c| matches!(c, Component::ParentDir))
            || !rtl_gen::tools::is_tree_path(&m.file)
        {
            return Err(SimError::InvalidModule {
                module: m.name.clone(),
                reason: format!(
                    "file `{}` must be a relative path inside the tree (letters, digits, `_`, `-`, `.` in each folder name, no `..`)",
                    m.file.escape_debug()
                ),
            });
        }
        let p = self.root.join(rel);
        if !p.is_file() {
            return Err(SimError::InvalidModule {
                module: m.name.clone(),
                reason: format!("source file {} does not exist", p.display()),
            });
        }
        Ok(p)
    }
}

/// Verilog simple identifier (what the generator emits): `[A-Za-z_][A-Za-z0-9_]*`. Names go
/// into generated C++, so anything else is rejected rather than escaped.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
