//! The design file: `[design]` settings and `[[blocks]]`, parsed with serde and validated into
//! block objects by the kinds of the registry. Every error names the block and field.

use crate::blocks::{self, Block};
use crate::error::{ConfigError, ConfigResult};
use crate::fields::FieldReader;
pub use crate::info::{DesignInfo, ResetStyle};
use crate::output::header::HeaderTemplate;
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// A validated design: what every generator and reference model is built from.
#[derive(Debug)]
pub struct Design {
    pub info: DesignInfo,
    pub blocks: Vec<Box<dyn Block>>,
    /// sha256 of the canonical form of the design (key order and formatting do not matter).
    pub hash: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    design: RawDesign,
    #[serde(default)]
    blocks: Vec<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDesign {
    name: String,
    prefix: Option<String>,
    reset: Option<String>,
    clock_mhz: Option<f64>,
    header_template: Option<String>,
}

/// The built-in default design, generated into `generated/`.
pub const DEFAULT_DESIGN: &str = include_str!("../designs/default.toml");

pub const CLOCK_MHZ_RANGE: (f64, f64) = (1.0, 2000.0);

/// Lower snake case: a letter, then letters, digits and underscores; what module and file names
/// are made of.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && s.len() <= 64
}

impl Design {
    pub fn builtin_default() -> Design {
        Design::parse(DEFAULT_DESIGN, "<built-in default design>").expect("the built-in default design is valid")
    }

    /// A design file; its `header_template` is relative to the file's folder.
    pub fn from_file(path: &std::path::Path) -> ConfigResult<Design> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::Syntax { path: path.display().to_string(), message: format!("cannot read: {e}") })?;
        Design::parse_in(&text, &path.display().to_string(), path.parent().unwrap_or(std::path::Path::new("")))
    }

    /// Design text whose `header_template` (if any) is relative to the current directory.
    pub fn parse(text: &str, origin: &str) -> ConfigResult<Design> {
        Design::parse_in(text, origin, std::path::Path::new(""))
    }

    /// Design text read from a file in `dir`: `header_template` is relative to `dir`.
    pub fn parse_in(text: &str, origin: &str, dir: &std::path::Path) -> ConfigResult<Design> {
        let raw: RawFile = toml::from_str(text).map_err(|e| ConfigError::Syntax { path: origin.to_string(), message: e.to_string().trim().to_string() })?;
        let info = validate_design(raw.design, dir)?;
        if raw.blocks.is_empty() {
            return Err(ConfigError::NoBlocks);
        }
        let mut blocks: Vec<Box<dyn Block>> = Vec::new();
        for (index, table) in raw.blocks.iter().enumerate() {
            let block = parse_block(index, table)?;
            if let Some(first) = blocks.iter().position(|b| b.name() == block.name()) {
                return Err(ConfigError::DuplicateName { block: block.name().to_string(), first });
            }
            blocks.push(block);
        }
        let hash = canonical_hash(text, info.header_template.as_ref());
        let design = Design { info, blocks, hash };
        design.check_module_names()?;
        Ok(design)
    }

    /// Two blocks can still collide through suffixes (`a` + `_check` vs a block named
    /// `a_check`): caught here rather than as an overwritten file.
    fn check_module_names(&self) -> ConfigResult<()> {
        let mut seen: Vec<(String, String)> = Vec::new();
        for b in &self.blocks {
            for m in b.module_names(&self.info) {
                if let Some((_, other)) = seen.iter().find(|(n, _)| *n == m) {
                    return Err(ConfigError::ModuleCollision { module: m, block: b.name().to_string(), other: other.clone() });
                }
                seen.push((m, b.name().to_string()));
            }
        }
        Ok(())
    }

    pub fn block(&self, name: &str) -> Option<&dyn Block> {
        self.blocks.iter().find(|b| b.name() == name).map(|b| b.as_ref())
    }

    /// Module name of a block's module with an optional suffix.
    pub fn module_name(&self, block: &str, suffix: &str) -> String {
        format!("{}{block}{suffix}", self.info.prefix)
    }
}

fn validate_design(raw: RawDesign, dir: &std::path::Path) -> ConfigResult<DesignInfo> {
    if !is_identifier(&raw.name) {
        return Err(ConfigError::Design {
            field: "name",
            problem: format!("= \"{}\" is not allowed; use lower snake case (a-z first, then a-z, 0-9, _), at most 64 characters", raw.name),
        });
    }
    let prefix = raw.prefix.unwrap_or_else(|| format!("{}_", raw.name));
    if !prefix.is_empty() && !is_identifier(&prefix) {
        return Err(ConfigError::Design {
            field: "prefix",
            problem: format!("= \"{prefix}\" is not allowed; use \"\" or lower snake case starting with a-z (e.g. \"{}_\")", raw.name),
        });
    }
    let reset = match raw.reset.as_deref() {
        None | Some("sync_high") => ResetStyle::SyncHigh,
        Some("async_low") => ResetStyle::AsyncLow,
        Some(other) => {
            return Err(ConfigError::Design { field: "reset", problem: format!("= \"{other}\" is not allowed; allowed \"sync_high\" (port rst), \"async_low\" (port rst_n)") })
        }
    };
    let clock_mhz = raw.clock_mhz.unwrap_or(250.0);
    let (lo, hi) = CLOCK_MHZ_RANGE;
    if !(lo..=hi).contains(&clock_mhz) {
        return Err(ConfigError::Design { field: "clock_mhz", problem: format!("= {clock_mhz} is out of range; allowed {lo}..={hi}") });
    }
    // Read and syntax-checked now, so a bad template fails before anything is generated.
    let header_template = match raw.header_template {
        None => None,
        Some(path) if path.trim().is_empty() => {
            return Err(ConfigError::Design { field: "header_template", problem: "= \"\" is not allowed; name a template file relative to the design file's folder".into() })
        }
        Some(path) => Some(HeaderTemplate::load(&path, dir).map_err(|problem| ConfigError::Design { field: "header_template", problem })?),
    };
    Ok(DesignInfo { name: raw.name, prefix, reset, clock_mhz, header_template })
}

fn parse_block(index: usize, table: &toml::Table) -> ConfigResult<Box<dyn Block>> {
    let header = |field: &'static str, problem: String| ConfigError::BlockHeader { index, field, problem };
    let kinds = || blocks::KINDS.iter().map(|k| k.kind()).collect::<Vec<_>>().join(", ");
    let kind_name = match table.get("kind") {
        Some(toml::Value::String(s)) => s.clone(),
        Some(other) => return Err(header("kind", format!("= {other} is not a string; allowed {}", kinds()))),
        None => return Err(header("kind", format!("is required; allowed {}", kinds()))),
    };
    let name = match table.get("name") {
        Some(toml::Value::String(s)) if is_identifier(s) => s.clone(),
        Some(toml::Value::String(s)) => {
            return Err(header("name", format!("= \"{s}\" is not allowed; use lower snake case (a-z first, then a-z, 0-9, _), at most 64 characters")))
        }
        Some(other) => return Err(header("name", format!("= {other} is not a string"))),
        None => return Err(header("name", "is required".into())),
    };
    let kind = blocks::kind(&kind_name).ok_or_else(|| ConfigError::Field {
        block: name.clone(),
        kind: "?",
        field: "kind".into(),
        problem: format!("= \"{kind_name}\" is not a block kind; allowed {}", kinds()),
    })?;
    let mut reader = FieldReader::new(&name, kind.kind(), kind.fields(), table);
    let block = kind.parse(&mut reader)?;
    reader.finish()?;
    Ok(block)
}

/// Hash of the design's meaning: parsed and re-serialised so comments, whitespace and key order
/// do not change it. A header template's text is part of it (its path is already in the TOML).
fn canonical_hash(text: &str, header: Option<&HeaderTemplate>) -> String {
    let value: toml::Table = toml::from_str(text).expect("already parsed once");
    let mut canonical = toml::to_string(&value).expect("a parsed table serialises");
    if let Some(h) = header {
        canonical.push_str("\0header_template\0");
        canonical.push_str(h.source());
    }
    let digest = Sha256::digest(canonical.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
