//! The output tree of a design: building every file in memory, writing only what changed, and
//! comparing with what is on disk (`rtl-gen check`).
//!
//! Layout (DESIGN.md): `rtl/*.v`, `<design>.f`, `<design>.core`, `docs/<module>.md`,
//! `manifest.json` under the tree root, and `<design>.xdc`/`.sdc` in the constraints folder
//! (`<root>/constraints/` for a design file, the workspace's `constraints/` for the built-in
//! default design, whose root is `generated/`).

use super::banner::{self, Provenance};
use super::cdc_constraints;
use super::demo;
use super::demo_pair;
use crate::header::{prepend, CommentStyle, HeaderContext, HeaderError};
use crate::blocks;
use crate::config::Design;
use crate::elab::{ElabModule, Elaborated};
use crate::hw::module::Role;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// Where a design's files go, relative to a base directory.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Tree root (rtl/, docs/, manifest...).
    pub root: PathBuf,
    /// Folder of the .xdc and .sdc.
    pub constraints: PathBuf,
    /// The command that regenerates this tree, for banners.
    pub regenerate: String,
}

impl Layout {
    /// The built-in default design: `generated/` and `constraints/` under `base`.
    pub fn default_design(base: &Path) -> Layout {
        Layout { root: base.join("generated"), constraints: base.join("constraints"), regenerate: "rtl-gen generate".into() }
    }

    /// A design file's tree: `out/<design name>/` with its own constraints folder.
    pub fn for_design_file(out: &Path, design: &Design) -> Layout {
        let root = out.join(&design.info.name);
        Layout {
            constraints: root.join("constraints"),
            root,
            regenerate: format!("rtl-gen generate <design file of \"{}\"> --out <dir>", design.info.name),
        }
    }

    /// The folders the generator writes into (other files in them are left alone).
    pub fn owned_dirs(&self) -> Vec<PathBuf> {
        vec![self.root.clone(), self.constraints.clone()]
    }
}

/// A module as the simulator reads it from the manifest: enough to find it by (block, role),
/// rebuild its reference model from the blocks' parameters and drive its ports.
#[derive(Serialize)]
struct ManifestModule<'a> {
    name: &'a str,
    role: Role,
    /// The design block that owns it (the first one, if shared).
    block: &'a str,
    /// Kind of the generator that built it, and that generator's own parameters.
    kind: &'a str,
    params: serde_json::Map<String, serde_json::Value>,
    /// Other blocks that instantiate this same module.
    shared_by: Vec<&'a str>,
    file: String,
    latency: u32,
    clock: Option<&'static str>,
    reset: Option<ManifestReset>,
    /// Every clock with its frequency and its domain's reset: the one `clk` of a single-clock
    /// module, each `<side>_clk` of a multi-clock one and each bit of a per-lane clock vector
    /// (`rx_clk_0` on port bit `rx_clk[0]`, reset `rx_rst[0]`), as the constraint files name
    /// them (empty: combinational).
    clocks: Vec<ManifestClock>,
    depends: &'a [String],
    ports: Vec<ManifestPort<'a>>,
}

#[derive(Serialize)]
struct ManifestClock {
    /// The clock's name, as the constraint files' `create_clock -name` gives it: the port, or
    /// `<port>_<k>` for bit k of a per-lane clock vector.
    name: String,
    /// The port bit it enters on, when that is not `name` (`rx_clk[0]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    port: Option<String>,
    mhz: f64,
    reset: Option<ManifestDomainReset>,
}

#[derive(Serialize)]
struct ManifestDomainReset {
    /// The reset port, or its bit (`rx_rst[0]`) for a per-lane clock.
    name: String,
    active_low: bool,
}

/// The clocks of `m` as the manifest lists them: every clock the constraint files create (each
/// bit of a per-lane clock vector its own), each with its domain's reset.
fn manifest_clocks(m: &ElabModule, design_mhz: f64) -> Vec<ManifestClock> {
    if cdc_constraints::needs_constraints(m) {
        return cdc_constraints::constraint_clocks(m, design_mhz)
            .into_iter()
            .map(|c| {
                let (port, bit) = match c.port.strip_prefix('{').and_then(|p| p.strip_suffix("]}")).and_then(|p| p.split_once('[')) {
                    Some((port, k)) => (port.to_string(), k.parse::<u32>().ok()),
                    None => (c.port.clone(), None),
                };
                let reset = domain_reset(m, &port).map(|(name, active_low)| ManifestDomainReset { name: bit.map_or(name.clone(), |k| format!("{name}[{k}]")), active_low });
                ManifestClock { port: bit.map(|k| format!("{port}[{k}]")), name: c.name, mhz: c.mhz, reset }
            })
            .collect();
    }
    if !(m.clocked() && m.port("clk").is_some()) {
        return Vec::new();
    }
    let reset = m.module.reset.filter(|r| m.port(r.port()).is_some()).map(|r| ManifestDomainReset { name: r.port().to_string(), active_low: r.active_low() });
    vec![ManifestClock { name: "clk".to_string(), port: None, mhz: design_mhz, reset }]
}

/// The reset port of the domain of clock port `clock` and whether it is active low: the one its
/// register groups name, else the module's reset for `clk`, else the CDC kit's name for the
/// domain (`<side>_rst`, `<side>_rst_n`) when the module has that port (a module whose domain's
/// registers all sit in sub-modules, as a recovered RIFL node's per-lane receivers do).
fn domain_reset(m: &ElabModule, clock: &str) -> Option<(String, bool)> {
    let active_low = |name: &str| m.module.reset.map_or(name.ends_with("_n"), |r| r.active_low());
    if let Some((_, r)) = cdc_constraints::domain_resets(m).into_iter().find(|(c, r)| c == clock && m.port(r).is_some()) {
        let low = active_low(&r);
        return Some((r, low));
    }
    if clock == "clk" {
        return m.module.reset.filter(|r| m.port(r.port()).is_some()).map(|r| (r.port().to_string(), r.active_low()));
    }
    let side = clock.strip_suffix("clk")?;
    ["rst", "rst_n"].iter().map(|r| format!("{side}{r}")).find(|r| m.port(r).is_some()).map(|r| {
        let low = active_low(&r);
        (r, low)
    })
}

#[derive(Serialize)]
struct ManifestReset {
    name: &'static str,
    active_low: bool,
}

#[derive(Serialize)]
struct ManifestPort<'a> {
    name: &'a str,
    dir: crate::hw::verilog::Dir,
    width: u32,
}

#[derive(Serialize)]
struct ManifestFile {
    path: String,
    sha256: String,
}

/// A block of the design with every parameter (defaults resolved): with these the tree can be
/// simulated without its TOML ([`crate::config::Design::from_manifest`]).
#[derive(Serialize)]
struct ManifestBlock<'a> {
    name: &'a str,
    kind: &'a str,
    /// The block's reset style (its own `reset` field, else the design's).
    reset: &'static str,
    params: serde_json::Map<String, serde_json::Value>,
}

#[derive(Serialize)]
struct Manifest<'a> {
    generator: &'static str,
    design: &'a str,
    design_hash: &'a str,
    prefix: &'a str,
    reset: &'static str,
    clock_mhz: f64,
    blocks: Vec<ManifestBlock<'a>>,
    modules: Vec<ManifestModule<'a>>,
    files: Vec<ManifestFile>,
}

fn param_map(params: &[(&'static str, serde_json::Value)]) -> serde_json::Map<String, serde_json::Value> {
    params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

/// Every file of a design, keyed by path (relative to the current base), in memory.
pub struct FileSet {
    pub files: BTreeMap<PathBuf, Vec<u8>>,
    pub layout: Layout,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Relative path from `from` (a directory) to `to`, both under the same base; used so the
/// manifest never holds absolute paths.
fn relative(from: &Path, to: &Path) -> String {
    let f: Vec<_> = from.components().collect();
    let t: Vec<_> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_string(), f.len() - common).collect();
    parts.extend(t[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    parts.join("/")
}

/// Build every file of an elaborated design in memory.
///
/// # Panics
/// When the design's `header_template` fails to render (a variable it uses is not defined):
/// designs from user files go through [`try_build`].
pub fn build(elab: &Elaborated, layout: Layout) -> FileSet {
    try_build(elab, layout).unwrap_or_else(|e| panic!("{e}"))
}

/// Build every file of an elaborated design in memory; the error is a header template that
/// does not render for some file.
pub fn try_build(elab: &Elaborated, layout: Layout) -> Result<FileSet, HeaderError> {
    let design = &elab.design;
    let name = &design.info.name;
    let mut files = BTreeMap::new();
    // The user's header above each file's own banner (nothing without `header_template`).
    let header = |ctx: HeaderContext, style: CommentStyle, body: String| -> Result<Vec<u8>, HeaderError> {
        Ok(match &design.info.header_template {
            None => body.into_bytes(),
            Some(t) => prepend(&t.render(&ctx, style)?, &body, body.starts_with("CAPI=")).into_bytes(),
        })
    };
    let block_names: Vec<&str> = design.blocks.iter().map(|b| b.name()).collect();
    let block_kinds: Vec<&str> = design.blocks.iter().map(|b| b.kind()).collect();
    for m in &elab.modules {
        let shared: Vec<&str> = m.shared_by.iter().map(|&b| block_names[b]).collect();
        let texts = blocks::param_texts(m.kind, &m.params);
        let shown = blocks::annotated_params(m.kind, &texts);
        let prov = Provenance {
            design: name,
            block: block_names[m.block],
            block_kind: block_kinds[m.block],
            kind: m.kind,
            params: &shown,
            shared_by: &shared,
            regenerate: &layout.regenerate,
        };
        let (v, md) = (format!("{}.v", m.name()), format!("{}.md", m.name()));
        let ctx = HeaderContext { design: name, block: prov.block, kind: m.kind, module: m.name(), params: &texts, file: &v };
        files.insert(layout.root.join(format!("rtl/{v}")), header(ctx, CommentStyle::Slash, banner::verilog_file(m, &prov))?);
        files.insert(layout.root.join(format!("docs/{md}")), header(HeaderContext { file: &md, ..ctx }, CommentStyle::Html, banner::module_doc(m, &prov))?);
    }
    // Dependency order for the filelist and the core: a module after everything it instantiates.
    let order = elab.dependency_order();
    let ordered_files: Vec<String> = order.iter().map(|&i| format!("rtl/{}.v", elab.modules[i].name())).collect();
    let ordered_modules: Vec<String> = order.iter().map(|&i| elab.modules[i].name().to_string()).collect();
    let [f, core, xdc, sdc] = ["f", "core", "xdc", "sdc"].map(|ext| format!("{name}.{ext}"));
    files.insert(layout.root.join(&f), header(HeaderContext::design_file(name, &f), CommentStyle::Hash, ordered_files.join("\n") + "\n")?);
    // The FPGA demo of the design's first single-clock RIFL node, when it has one.
    let demo_node = elab.modules.iter().find(|m| m.role == Role::Node && m.kind == "rifl" && m.port("rx_clk").is_none());
    let demo_params = demo_node.map(|m| blocks::annotated_params(m.kind, &blocks::param_texts(m.kind, &m.params))).unwrap_or_default();
    let demo = demo_node.and_then(|m| {
        let width = |p: &str| m.port(p).map(|p| p.width);
        Some(demo::DemoNode {
            design: name,
            regenerate: &layout.regenerate,
            node: m.name(),
            block: block_names[m.block],
            params: &demo_params,
            user_bits: width("s_axis_tdata")?,
            line_bits: width("tx_frame")?,
            reset: m.module.reset?,
        })
    });
    let core_demo = demo.as_ref().map(|d| banner::CoreDemo {
        node_files: {
            // The node and everything under it, in the filelist's dependency order.
            let mut need = vec![d.node.to_string()];
            let mut i = 0;
            while i < need.len() {
                if let Some(m) = elab.modules.iter().find(|m| m.name() == need[i]) {
                    for dep in &m.depends {
                        if !need.contains(dep) {
                            need.push(dep.clone());
                        }
                    }
                }
                i += 1;
            }
            ordered_modules.iter().filter(|m| need.contains(m)).map(|m| format!("rtl/{m}.v")).collect()
        },
        node: d.node.to_string(),
        top: demo::top_name(d.node),
        tb: demo::tb_name(d.node),
        top_file: format!("demo/{}.v", demo::top_name(d.node)),
        tb_file: format!("demo/{}.v", demo::tb_name(d.node)),
        freq_mhz: demo::FREQ_MHZ,
    });
    if let (Some(d), Some(c)) = (&demo, &core_demo) {
        files.insert(layout.root.join(&c.top_file), header(HeaderContext::design_file(name, &c.top_file), CommentStyle::Slash, demo::top_text(d))?);
        files.insert(layout.root.join(&c.tb_file), header(HeaderContext::design_file(name, &c.tb_file), CommentStyle::Slash, demo::tb_text(d))?);
    }
    // The two-clock FPGA demo of the design's first recovered-clock RIFL node that takes whole
    // frames and compensates (two copies on unrelated clocks), when it has one.
    let pair_node = elab.modules.iter().find(|m| m.role == Role::Node && m.kind == "rifl" && m.port("rx_clk").is_some() && m.port("tx_fast_clk").is_none() && m.port("free_clk").is_some());
    let pair_params = pair_node.map(|m| blocks::annotated_params(m.kind, &blocks::param_texts(m.kind, &m.params))).unwrap_or_default();
    let pair = pair_node.and_then(|m| {
        let width = |p: &str| m.port(p).map(|p| p.width);
        let lanes = width("rx_clk")?;
        Some(demo_pair::PairNode {
            design: name,
            regenerate: &layout.regenerate,
            node: m.name(),
            block: block_names[m.block],
            params: &pair_params,
            user_bits: width("s_axis_tdata")?,
            line_bits: width("tx_frame")?,
            lanes,
            level_bits: width("rx_cdc_level")? / lanes,
            reset: m.module.reset?,
        })
    });
    if let Some(p) = &pair {
        for (module, text) in [(demo_pair::top_name(p.node), demo_pair::top_text(p)), (demo_pair::tb_name(p.node), demo_pair::tb_text(p))] {
            let file = format!("demo/{module}.v");
            files.insert(layout.root.join(&file), header(HeaderContext::design_file(name, &file), CommentStyle::Slash, text)?);
        }
    }
    files.insert(
        layout.root.join(&core),
        header(HeaderContext::design_file(name, &core), CommentStyle::Hash, banner::core_file(name, &layout.regenerate, &ordered_files, &ordered_modules, core_demo.as_ref(), &design.info.vivado_part))?,
    );
    files.insert(layout.constraints.join(&xdc), header(HeaderContext::design_file(name, &xdc), CommentStyle::Hash, banner::xdc_file(name, &layout.regenerate, design.info.clock_mhz))?);
    files.insert(layout.constraints.join(&sdc), header(HeaderContext::design_file(name, &sdc), CommentStyle::Hash, banner::sdc_file(name, &layout.regenerate, design.info.clock_mhz))?);
    // A module with several clocks gets constraint files of its own: its clocks and crossings.
    for m in elab.modules.iter().filter(|m| cdc_constraints::needs_constraints(m)) {
        let (mx, ms) = (format!("{}.xdc", m.name()), format!("{}.sdc", m.name()));
        let under = elab.hierarchy(m);
        files.insert(layout.constraints.join(&mx), header(HeaderContext::design_file(name, &mx), CommentStyle::Hash, cdc_constraints::xdc(m, &under, name, &layout.regenerate, design.info.clock_mhz))?);
        files.insert(layout.constraints.join(&ms), header(HeaderContext::design_file(name, &ms), CommentStyle::Hash, cdc_constraints::sdc(m, &under, name, &layout.regenerate, design.info.clock_mhz))?);
    }

    let manifest_modules = elab
        .modules
        .iter()
        .map(|m| ManifestModule {
            name: m.name(),
            role: m.role,
            block: block_names[m.block],
            kind: m.kind,
            params: param_map(&m.params),
            shared_by: m.shared_by.iter().map(|&b| block_names[b]).collect(),
            file: format!("rtl/{}.v", m.name()),
            latency: m.latency,
            // A module with several clocks (`wr_clk`, `rd_clk`) has no single clock or reset to name.
            clock: (m.clocked() && m.port("clk").is_some()).then_some("clk"),
            reset: m.module.reset.filter(|r| m.port(r.port()).is_some()).map(|r| ManifestReset { name: r.port(), active_low: r.active_low() }),
            clocks: manifest_clocks(m, design.info.clock_mhz),
            depends: &m.depends,
            ports: m.ports().iter().map(|p| ManifestPort { name: &p.name, dir: p.dir, width: p.width }).collect(),
        })
        .collect();
    let manifest_blocks = design.blocks.iter().zip(&design.resets).map(|(b, r)| ManifestBlock { name: b.name(), kind: b.kind(), reset: r.as_str(), params: param_map(&b.typed_params()) }).collect();
    let manifest_files = files.iter().map(|(p, bytes)| ManifestFile { path: relative(&layout.root, p), sha256: sha256_hex(bytes) }).collect();
    let manifest = Manifest {
        generator: crate::GENERATOR,
        design: name,
        design_hash: &design.hash,
        prefix: &design.info.prefix,
        reset: design.info.reset.as_str(),
        clock_mhz: design.info.clock_mhz,
        blocks: manifest_blocks,
        modules: manifest_modules,
        files: manifest_files,
    };
    let json = serde_json::to_string_pretty(&manifest).expect("manifest serialises") + "\n";
    files.insert(layout.root.join("manifest.json"), json.into_bytes());
    Ok(FileSet { files, layout })
}

/// What `write` did.
#[derive(Debug, Default)]
pub struct WriteReport {
    pub written: Vec<PathBuf>,
    pub unchanged: usize,
    /// Files the previous manifest lists as written by the generator, unedited since, that it
    /// no longer produces: the only files `write` ever deletes.
    pub removed: Vec<PathBuf>,
    /// Symbolic links at a generated file's path, replaced by the file (their targets untouched).
    pub replaced_links: Vec<PathBuf>,
    /// Files in the tree's folders that the generator did not write (or that were edited since
    /// it wrote them and that it no longer produces): left where they are.
    pub left: Vec<PathBuf>,
}

/// One difference between disk and the generator.
#[derive(Debug)]
pub enum Stale {
    Missing(PathBuf),
    Changed { path: PathBuf, diff: String },
    /// A file the previous generation wrote that the generator no longer produces (`generate`
    /// removes it).
    Extra(PathBuf),
    /// A file the generator did not write: `generate` leaves it, so it does not make the tree
    /// stale.
    Foreign(PathBuf),
}

impl Stale {
    /// Whether `generate` would change something for this entry (a foreign file: no).
    pub fn is_stale(&self) -> bool {
        !matches!(self, Stale::Foreign(_))
    }
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stale::Missing(p) => write!(f, "missing: {}", p.display()),
            Stale::Extra(p) => write!(f, "extra (written by an earlier generation, no longer produced): {}", p.display()),
            Stale::Foreign(p) => write!(f, "note: not written by the generator (generate leaves it): {}", p.display()),
            Stale::Changed { path, diff } => write!(f, "stale: {}\n{diff}", path.display()),
        }
    }
}

/// Every file and symbolic link under `dir`, without following links (a link to a folder is
/// listed, not entered).
fn files_under(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir() || m.file_type().is_symlink()) {
        return Ok(out);
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let entry = entry?;
            let p = entry.path();
            if entry.file_type()?.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn refused(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

/// Is `c` a name the generator gives files (design and module names are Verilog identifiers)?
fn is_name(c: &str) -> bool {
    !c.is_empty() && c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `file` with `path`'s components resolved against the real file system as far as they exist
/// (symbolic links and `..` included), the rest appended: where `path` is or would be.
pub fn resolved(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(path) };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            return rest.iter().rev().fold(c, |p, r: &&std::ffi::OsStr| p.join(r));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return abs,
        }
    }
}

impl FileSet {
    /// The folder a path of this set lives under and may not leave: the tree root, or the
    /// constraints folder when it is outside the root (the default design's `constraints/`).
    fn anchor(&self, path: &Path) -> &Path {
        if path.starts_with(&self.layout.root) {
            &self.layout.root
        } else {
            &self.layout.constraints
        }
    }

    /// Refuse `path` when a folder between its anchor and it is a symbolic link: writing or
    /// deleting through it would touch a file outside the output folder.
    fn no_linked_folder(&self, path: &Path) -> io::Result<()> {
        let anchor = self.anchor(path);
        for dir in path.ancestors().skip(1).take_while(|d| d.starts_with(anchor) && *d != anchor) {
            if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(refused(format!(
                    "refusing to write {}: {} is a symbolic link inside the output folder, and the generator never writes or deletes through one; remove the link or choose another output folder",
                    path.display(),
                    dir.display()
                )));
            }
        }
        Ok(())
    }

    /// The files the previous generation wrote, from the manifest on disk (path → sha256),
    /// keeping only paths of the shapes the generator writes: `rtl/N.v`, `demo/N.v`,
    /// `docs/N.md`, `N.f`, `N.core` under the root and `N.xdc`, `N.sdc` in the constraints
    /// folder, `N` a name. Anything else a manifest lists (`..`, other folders) is ignored: a
    /// crafted manifest cannot make `write` delete a file of another shape.
    fn previous(&self) -> BTreeMap<PathBuf, String> {
        let mut out = BTreeMap::new();
        let manifest = self.layout.root.join("manifest.json");
        if !std::fs::symlink_metadata(&manifest).is_ok_and(|m| m.is_file()) || self.no_linked_folder(&manifest).is_err() {
            return out;
        }
        let Ok(text) = std::fs::read_to_string(&manifest) else { return out };
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else { return out };
        let constraints = relative(&self.layout.root, &self.layout.constraints);
        for f in json["files"].as_array().into_iter().flatten() {
            let (Some(path), Some(sha)) = (f["path"].as_str(), f["sha256"].as_str()) else { continue };
            let shaped = match path.rsplit_once('/') {
                Some((dir, file)) => match file.rsplit_once('.') {
                    Some((n, ext)) => is_name(n) && matches!((dir, ext), ("rtl" | "demo", "v") | ("docs", "md")) || (dir == constraints && is_name(n) && matches!(ext, "xdc" | "sdc")),
                    None => false,
                },
                None => path.rsplit_once('.').is_some_and(|(n, ext)| is_name(n) && matches!(ext, "f" | "core")),
            };
            if !shaped {
                continue;
            }
            let disk = match path.strip_prefix(&format!("{constraints}/")) {
                Some(file) => self.layout.constraints.join(file),
                None => self.layout.root.join(path),
            };
            out.insert(disk, sha.to_string());
        }
        out
    }

    /// Write files whose content differs and remove the files the previous generation wrote
    /// (its manifest lists them) that the generator no longer produces, when they are unedited;
    /// every other file is left in place and listed in the report. Unchanged files keep their
    /// timestamps, so downstream builds do not rerun. A file is replaced through a new file
    /// renamed over it, so a symbolic link (or hard link) at its path is replaced, never written
    /// through; a symbolic link to a folder inside the tree is refused before anything is
    /// written.
    pub fn write(&self) -> io::Result<WriteReport> {
        let mut report = WriteReport::default();
        for path in self.files.keys() {
            self.no_linked_folder(path)?;
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
                return Err(refused(format!("refusing to write {}: a folder is in the way", path.display())));
            }
        }
        let previous = self.previous();
        for (path, bytes) in &self.files {
            let meta = std::fs::symlink_metadata(path).ok();
            let link = meta.as_ref().is_some_and(|m| m.file_type().is_symlink());
            if !link && std::fs::read(path).ok().as_deref() == Some(bytes.as_slice()) {
                report.unchanged += 1;
                continue;
            }
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            replace(path, bytes)?;
            if link {
                report.replaced_links.push(path.clone());
            }
            report.written.push(path.clone());
        }
        for (path, sha) in &previous {
            if self.files.contains_key(path) || self.no_linked_folder(path).is_err() {
                continue;
            }
            let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
            if regular && std::fs::read(path).is_ok_and(|b| sha256_hex(&b) == *sha) {
                std::fs::remove_file(path)?;
                report.removed.push(path.clone());
            }
        }
        for dir in self.layout.owned_dirs() {
            for p in files_under(&dir)? {
                if !self.files.contains_key(&p) && !report.removed.contains(&p) && !report.left.contains(&p) {
                    report.left.push(p);
                }
            }
        }
        Ok(report)
    }

    /// Every difference between disk and what `write` would produce; empty when fresh. Files
    /// the generator did not write are listed as [`Stale::Foreign`] (not stale).
    pub fn check(&self) -> io::Result<Vec<Stale>> {
        let mut stale = Vec::new();
        for (path, bytes) in &self.files {
            match std::fs::read(path) {
                Err(_) => stale.push(Stale::Missing(path.clone())),
                Ok(disk) if disk != *bytes => stale.push(Stale::Changed { path: path.clone(), diff: short_diff(&disk, bytes) }),
                Ok(_) => {}
            }
        }
        let previous = self.previous();
        let mut seen = Vec::new();
        for dir in self.layout.owned_dirs() {
            for p in files_under(&dir)? {
                if self.files.contains_key(&p) || seen.contains(&p) {
                    continue;
                }
                let ours = previous.get(&p).is_some_and(|sha| std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) && std::fs::read(&p).is_ok_and(|b| sha256_hex(&b) == *sha));
                stale.push(if ours { Stale::Extra(p.clone()) } else { Stale::Foreign(p.clone()) });
                seen.push(p);
            }
        }
        Ok(stale)
    }
}

/// Write `bytes` to a new file beside `path` and rename it over `path`: a link at `path` is
/// replaced, not followed, and a reader never sees half a file.
fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.rtl-gen-new"));
    // A leftover of an interrupted run (or anything at that name) is removed, not followed.
    if std::fs::symlink_metadata(&tmp).is_ok() {
        std::fs::remove_file(&tmp)?;
    }
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    f.write_all(bytes)?;
    drop(f);
    std::fs::rename(&tmp, path)
}

/// A unified diff (disk → generator) cut to 40 lines.
fn short_diff(disk: &[u8], fresh: &[u8]) -> String {
    let a = String::from_utf8_lossy(disk);
    let b = String::from_utf8_lossy(fresh);
    let diff = similar::TextDiff::from_lines(a.as_ref(), b.as_ref());
    let text = diff.unified_diff().context_radius(2).header("on disk", "generator").to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: String = lines.iter().take(40).map(|l| {
        let l: String = l.chars().take(160).collect();
        format!("    {l}\n")
    }).collect();
    if lines.len() > 40 {
        out.push_str(&format!("    ... {} more diff lines\n", lines.len() - 40));
    }
    out
}
