//! `Bench`: one elaborated design and the generated tree it is simulated from. Tests, campaigns
//! and `rtl-gen sim` pick a block and a role and get the typed block (and so its reference model),
//! the module's ports and a built [`Dut`]; nobody retypes a module-name suffix or a port list.
//!
//! Where the design comes from:
//! - [`Bench::default_design`]: the built-in design and the committed `generated/` tree;
//! - [`Bench::from_design`] / [`Bench::from_design_file`]: a design (TOML) generated into
//!   `<target>/bench/<design>/` (written only where it changed, under a file lock, so parallel
//!   tests share it);
//! - [`Bench::from_tree`]: a generated tree alone; its `manifest.json` lists every block with
//!   its parameters, so the models are rebuilt from the same design as the RTL;
//! - [`Bench::with_tree`]: a design and a tree of Verilog files taken as they are (a hand-edited
//!   file, a post-synthesis netlist with the same ports): [`Bench::differing_modules`] names the
//!   files that are not what the design generates.

use crate::{Dut, SimError, Tree};
use rtl_gen::blocks::Block;
use rtl_gen::config::Design;
use rtl_gen::elab::{ElabModule, Elaborated};
use rtl_gen::hw::module::Role;
use rtl_gen::output::tree::{self, FileSet, Layout};
use std::any::Any;
use std::fs;
use std::path::{Path, PathBuf};

/// A design, elaborated, with the tree its modules are simulated from.
pub struct Bench {
    elab: Elaborated,
    tree: Tree,
    /// The files the design generates, for [`Bench::differing_modules`].
    expected: FileSet,
}

impl std::fmt::Debug for Bench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bench").field("design", &self.elab.design.info.name).field("tree", &self.tree.root()).finish()
    }
}

fn design_error(e: rtl_gen::error::ConfigError) -> SimError {
    SimError::Design { message: e.to_string() }
}

impl Bench {
    /// The built-in default design and the committed `generated/` tree (kept identical to the
    /// generator's output by `rtl-gen check`).
    pub fn default_design() -> Result<Bench, SimError> {
        let root = crate::model_build::workspace_root();
        let layout = Layout::default_design(&root);
        let elab = Design::builtin_default().elaborate();
        let expected = tree::build(&elab, layout.clone());
        let tree = Tree::open(&layout.root)?;
        Ok(Bench { elab, tree, expected })
    }

    /// `design` generated into `<target>/bench/<design name>/` and opened there.
    pub fn from_design(design: Design) -> Result<Bench, SimError> {
        let out = crate::target_dir().join("bench");
        let elab = design.elaborate();
        let layout = Layout::for_design_file(&out, &elab.design);
        let expected = tree::build(&elab, layout.clone());
        fs::create_dir_all(&out).map_err(|e| SimError::io(format!("creating {}", out.display()), e))?;
        let lock_path = out.join(format!("{}.lock", elab.design.info.name));
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| SimError::io(format!("opening {}", lock_path.display()), e))?;
        fs4::FileExt::lock(&lock).map_err(|e| SimError::io(format!("locking {}", lock_path.display()), e))?;
        let written = expected.write().map_err(|e| SimError::io(format!("writing the tree of design `{}`", elab.design.info.name), e));
        let _ = fs4::FileExt::unlock(&lock);
        written?;
        let tree = Tree::open(&layout.root)?;
        Ok(Bench { elab, tree, expected })
    }

    /// A design file, generated as [`Bench::from_design`] does.
    pub fn from_design_file(path: impl AsRef<Path>) -> Result<Bench, SimError> {
        Bench::from_design(Design::from_file(path.as_ref()).map_err(design_error)?)
    }

    /// A design given as TOML text (`origin` names it in errors).
    pub fn from_toml(text: &str, origin: &str) -> Result<Bench, SimError> {
        Bench::from_design(Design::parse(text, origin).map_err(design_error)?)
    }

    /// A generated tree on its own: the design is rebuilt from its manifest.
    pub fn from_tree(dir: impl AsRef<Path>) -> Result<Bench, SimError> {
        let tree = Tree::open(dir.as_ref())?;
        let json = fs::read_to_string(tree.manifest_path()).map_err(|e| SimError::io(format!("reading {}", tree.manifest_path().display()), e))?;
        let design = Design::from_manifest(&json, &tree.manifest_path().display().to_string()).map_err(design_error)?;
        Bench::with_tree(design, dir)
    }

    /// `design`'s models against the Verilog files in `dir` as they are.
    pub fn with_tree(design: Design, dir: impl AsRef<Path>) -> Result<Bench, SimError> {
        let tree = Tree::open(dir.as_ref())?;
        let elab = design.elaborate();
        let root = tree.root().to_path_buf();
        let layout = Layout { constraints: root.join("constraints"), root, regenerate: String::new() };
        let expected = tree::build(&elab, layout);
        Ok(Bench { elab, tree, expected })
    }

    pub fn elab(&self) -> &Elaborated {
        &self.elab
    }

    pub fn design(&self) -> &Design {
        &self.elab.design
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Makes every module built from the bench from now on (by any driver or campaign node)
    /// start as `start` says: random initial contents, or random traffic with the reset
    /// asserted in it, before the driver's own reset.
    pub fn set_start(&mut self, start: crate::Start) {
        self.tree.set_start(start);
    }

    /// The block called `name`, which must be of the concrete type `B` (e.g.
    /// `rtl_gen::blocks::crc::CrcBlock`).
    pub fn block<B: Block + 'static>(&self, name: &str) -> Result<&B, SimError> {
        let b = self.design().block(name).ok_or_else(|| self.unknown_block(name))?;
        (b.as_any() as &dyn Any).downcast_ref::<B>().ok_or_else(|| SimError::WrongKind {
            block: name.to_string(),
            kind: b.kind().to_string(),
            expected: short_type_name::<B>(),
        })
    }

    /// Every block of the concrete type `B`, in design order.
    pub fn blocks<B: Block + 'static>(&self) -> Vec<&B> {
        self.design().blocks.iter().filter_map(|b| b.as_any().downcast_ref::<B>()).collect()
    }

    /// Names of the blocks of kind `kind`, in design order.
    pub fn blocks_of_kind(&self, kind: &str) -> Vec<&str> {
        self.design().blocks.iter().filter(|b| b.kind() == kind).map(|b| b.name()).collect()
    }

    fn unknown_block(&self, name: &str) -> SimError {
        SimError::UnknownBlock {
            block: name.to_string(),
            known: self.design().blocks.iter().map(|b| format!("{} ({})", b.name(), b.kind())).collect::<Vec<_>>().join(", "),
        }
    }

    /// The module of `block` with `role` (shared modules are found from every block using them).
    pub fn module(&self, block: &str, role: Role) -> Result<&ElabModule, SimError> {
        if self.design().block(block).is_none() {
            return Err(self.unknown_block(block));
        }
        self.elab.module(block, role).ok_or_else(|| SimError::NoSuchRole {
            block: block.to_string(),
            role: role.as_str().to_string(),
            roles: self.elab.modules_of(block).iter().map(|m| m.role.as_str()).collect::<Vec<_>>().join(", "),
        })
    }

    /// Check that `block` exists (any kind).
    pub fn module_any(&self, block: &str) -> Result<&dyn Block, SimError> {
        self.design().block(block).ok_or_else(|| self.unknown_block(block))
    }

    /// Build (or load from the cache) the module of `block` with `role`; `test` names the
    /// waveform when `RTLGEN_WAVES` is set.
    pub fn dut(&self, block: &str, role: Role, test: &str) -> Result<Dut, SimError> {
        let m = self.module(block, role)?;
        Dut::build_named(&self.tree, m.name(), test)
    }

    /// Modules whose Verilog file in the tree is not what the design generates (banners and
    /// user headers aside: the text from `` `default_nettype none`` on is compared), or that
    /// the tree lacks.
    pub fn differing_modules(&self) -> Vec<String> {
        let mut out = Vec::new();
        for m in &self.elab.modules {
            let rel = PathBuf::from(format!("rtl/{}.v", m.name()));
            let want = self.expected.files.iter().find(|(p, _)| p.ends_with(&rel)).map(|(_, b)| String::from_utf8_lossy(b).into_owned());
            let have = fs::read_to_string(self.tree.root().join(&rel)).ok();
            let same = match (want, have) {
                (Some(w), Some(h)) => body(&w) == body(&h),
                _ => false,
            };
            if !same {
                out.push(m.name().to_string());
            }
        }
        out
    }
}

/// The module text after the banner: from `` `default_nettype none`` on, or all of it.
fn body(text: &str) -> &str {
    text.find("`default_nettype none").map(|i| &text[i..]).unwrap_or(text)
}

fn short_type_name<B>() -> String {
    std::any::type_name::<B>().rsplit("::").next().unwrap_or("?").to_string()
}
