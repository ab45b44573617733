//! The design file: `[design]` settings and `[[blocks]]`, parsed with serde and validated into
//! block objects by the kinds of the registry. Every error names the block and field.

use crate::blocks::{self, Block};
use crate::error::{ConfigError, ConfigResult};
use crate::fields::FieldReader;
pub use crate::info::{DesignInfo, ResetStyle};
use crate::header::HeaderTemplate;
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// A validated design: what every generator and reference model is built from.
#[derive(Debug)]
pub struct Design {
    pub info: DesignInfo,
    pub blocks: Vec<Box<dyn Block>>,
    /// Each block's reset style (its own `reset` field, else the design's), by block index.
    pub resets: Vec<ResetStyle>,
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
    vivado_part: Option<String>,
    header_template: Option<String>,
}

/// The built-in default design, generated into `generated/`.
pub const DEFAULT_DESIGN: &str = include_str!("../designs/default.toml");

pub const CLOCK_MHZ_RANGE: (f64, f64) = (1.0, 2000.0);

/// The AMD part of the core's Vivado target when the design names none (a Virtex UltraScale+
/// VU9P, the part of the RIFL paper's measurements).
pub const DEFAULT_VIVADO_PART: &str = "xcvu9p-flga2104-2L-e";

/// An AMD/Xilinx part name as Vivado takes it: `xc`, then lower-case letters, digits and
/// dashes, with at least a device and a package field (e.g. `xc7a35tcpg236-1`,
/// `xcvu9p-flga2104-2L-e`; the temperature grade letter may be upper case).
pub fn is_vivado_part(s: &str) -> bool {
    s.starts_with("xc")
        && s.len() <= 40
        && s.contains('-')
        && !s.ends_with('-')
        && !s.contains("--")
        && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == 'L' || c == 'H')
}

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
        let mut resets = Vec::new();
        for (index, table) in raw.blocks.iter().enumerate() {
            // `reset` is a field of every kind, read here rather than by each kind's parser.
            let mut table = table.clone();
            let reset = table.remove("reset");
            let block = parse_block(index, &table)?;
            if let Some(first) = blocks.iter().position(|b| b.name() == block.name()) {
                return Err(ConfigError::DuplicateName { block: block.name().to_string(), first });
            }
            resets.push(match reset {
                None => info.reset,
                Some(v) => block_reset(block.as_ref(), &v)?,
            });
            blocks.push(block);
        }
        let hash = canonical_hash(text, info.header_template.as_ref());
        let design = Design { info, blocks, resets, hash };
        design.check_module_names()?;
        Ok(design)
    }

    /// The design a generated tree was made from, rebuilt from its `manifest.json` (which lists
    /// every block with all its parameters): a tree describes itself and can be simulated
    /// without its TOML. The parameters pass through the same field validation as a design file.
    pub fn from_manifest(json: &str, origin: &str) -> ConfigResult<Design> {
        let syntax = |message: String| ConfigError::Syntax { path: origin.to_string(), message };
        let m: serde_json::Value = serde_json::from_str(json).map_err(|e| syntax(format!("not JSON: {e}")))?;
        let text_of = |v: &serde_json::Value, what: &str| -> ConfigResult<String> {
            v.as_str().map(str::to_string).ok_or_else(|| syntax(format!("`{what}` is missing or not a string (a manifest written before rtl-gen listed blocks?)")))
        };
        let mut design = toml::Table::new();
        design.insert("name".into(), toml::Value::String(text_of(&m["design"], "design")?));
        design.insert("prefix".into(), toml::Value::String(text_of(&m["prefix"], "prefix")?));
        design.insert("reset".into(), toml::Value::String(text_of(&m["reset"], "reset")?));
        let clock = m["clock_mhz"].as_f64().ok_or_else(|| syntax("`clock_mhz` is missing".into()))?;
        design.insert("clock_mhz".into(), toml::Value::Float(clock));
        let mut blocks = Vec::new();
        for b in m["blocks"].as_array().ok_or_else(|| syntax("`blocks` is missing (a manifest written before rtl-gen listed blocks?)".into()))? {
            let mut params = Vec::new();
            for (k, v) in b["params"].as_object().ok_or_else(|| syntax("`blocks[].params` is missing".into()))? {
                let value = json_to_toml(v).ok_or_else(|| syntax(format!("parameter `{k}` = {v} is not a boolean, number or string")))?;
                params.push((k.clone(), value));
            }
            let mut t = block_table(&text_of(&b["kind"], "blocks[].kind")?, &text_of(&b["name"], "blocks[].name")?, params);
            if let Some(reset) = b.get("reset") {
                t.insert("reset".into(), toml::Value::String(text_of(reset, "blocks[].reset")?));
            }
            blocks.push(toml::Value::Table(t));
        }
        let mut file = toml::Table::new();
        file.insert("design".into(), toml::Value::Table(design));
        file.insert("blocks".into(), toml::Value::Array(blocks));
        let text = toml::to_string(&file).map_err(|e| syntax(e.to_string()))?;
        let mut d = Design::parse(&text, origin)?;
        if let Some(h) = m["design_hash"].as_str() {
            d.hash = h.to_string();
        }
        Ok(d)
    }

    /// Two blocks can still collide through suffixes (`a` + `_check` vs a block named
    /// `a_check`): caught here rather than as an overwritten file. Every module the tree emits
    /// counts (the RIFL demo top and testbench), and so does the FPGA wrapper `rtl-gen fpga`
    /// builds around each of them.
    fn check_module_names(&self) -> ConfigResult<()> {
        let mut seen: Vec<(String, String)> = Vec::new();
        for (bi, b) in self.blocks.iter().enumerate() {
            for m in b.module_names(&self.block_info(bi)) {
                if let Some(standard) = crate::keywords::reserved_by(&m) {
                    return Err(ConfigError::ReservedName { module: m, block: b.name().to_string(), standard });
                }
                if let Some((_, other)) = seen.iter().find(|(n, _)| *n == m) {
                    return Err(ConfigError::ModuleCollision { module: m, block: b.name().to_string(), other: other.clone() });
                }
                seen.push((m, b.name().to_string()));
            }
        }
        // The tree's companion modules: each demo's, of the first block that offers it.
        let mut reserved: Vec<(String, String)> = Vec::new();
        let mut demos: Vec<&'static str> = Vec::new();
        for (b, c) in self.blocks.iter().filter_map(|b| Some((b, b.companion_modules(&self.info)?))) {
            if demos.contains(&c.demo) {
                continue;
            }
            demos.push(c.demo);
            for m in c.names {
                reserved.push((m.clone(), format!("the module `{m}` the tree emits for block `{}` (its {} FPGA demo)", b.name(), c.demo)));
            }
        }
        for (m, block) in &seen {
            if crate::keywords::ram_wrapper_form(m, &self.info.prefix) {
                let what = format!("the names of the RAM wrappers (`{0}ram_1r1w_<W>x<D>`, `{0}ram_1r1w_async_<W>x<D>`, `{0}lutram_1r1w_…`)", self.info.prefix);
                return Err(ConfigError::ModuleReserved { module: m.clone(), block: block.clone(), what });
            }
        }
        for (m, _) in &seen {
            reserved.push((blocks::fpga_wrapper_name(m), format!("the wrapper `rtl-gen fpga` builds around module `{m}`")));
        }
        for (m, block) in &seen {
            if let Some((_, what)) = reserved.iter().find(|(n, _)| n == m) {
                return Err(ConfigError::ModuleReserved { module: m.clone(), block: block.clone(), what: what.clone() });
            }
        }
        Ok(())
    }

    /// The settings block `index` is generated with: the design's, with the block's own reset
    /// style.
    pub fn block_info(&self, index: usize) -> DesignInfo {
        DesignInfo { reset: self.resets[index], ..self.info.clone() }
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
        None => ResetStyle::SyncHigh,
        Some(text) => ResetStyle::parse(text).ok_or_else(|| ConfigError::Design { field: "reset", problem: format!("= \"{text}\" is not allowed; allowed {}", ResetStyle::ALLOWED) })?,
    };
    let clock_mhz = raw.clock_mhz.unwrap_or(250.0);
    let (lo, hi) = CLOCK_MHZ_RANGE;
    if !(lo..=hi).contains(&clock_mhz) {
        return Err(ConfigError::Design { field: "clock_mhz", problem: format!("= {clock_mhz} is out of range; allowed {lo}..={hi}") });
    }
    let vivado_part = raw.vivado_part.unwrap_or_else(|| DEFAULT_VIVADO_PART.to_string());
    if !is_vivado_part(&vivado_part) {
        return Err(ConfigError::Design {
            field: "vivado_part",
            problem: format!("= \"{vivado_part}\" is not a Vivado part name; allowed: \"xc\" then lower-case letters, digits and dashes with a package field, e.g. \"{DEFAULT_VIVADO_PART}\" (the default) or \"xc7a35tcpg236-1\""),
        });
    }
    // Read and syntax-checked now, so a bad template fails before anything is generated.
    let header_template = match raw.header_template {
        None => None,
        Some(path) if path.trim().is_empty() => {
            return Err(ConfigError::Design { field: "header_template", problem: "= \"\" is not allowed; name a template file relative to the design file's folder".into() })
        }
        Some(path) => Some(HeaderTemplate::load(&path, dir).map_err(|problem| ConfigError::Design { field: "header_template", problem })?),
    };
    Ok(DesignInfo { name: raw.name, prefix, reset, clock_mhz, vivado_part, header_template })
}

/// A block's own `reset = "sync_high" | "async_low"`.
fn block_reset(block: &dyn Block, value: &toml::Value) -> ConfigResult<ResetStyle> {
    let problem = match value {
        toml::Value::String(text) => match ResetStyle::parse(text) {
            Some(style) => return Ok(style),
            None => format!("= \"{text}\" is not allowed; allowed {}", ResetStyle::ALLOWED),
        },
        other => format!("= {other} is not a string; allowed {}", ResetStyle::ALLOWED),
    };
    Err(ConfigError::Field { block: block.name().to_string(), kind: block.kind(), field: "reset".into(), problem })
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

/// A parameter value of a manifest or a module's origin as the TOML value a design file writes:
/// numbers beyond TOML's integers become decimal strings, which the wide fields read.
fn json_to_toml(v: &serde_json::Value) -> Option<toml::Value> {
    Some(match v {
        serde_json::Value::Bool(x) => toml::Value::Boolean(*x),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::String(n.to_string()),
        },
        serde_json::Value::String(x) => toml::Value::String(x.clone()),
        _ => return None,
    })
}

/// The `[[blocks]]` table of a block given by kind, name and parameter values. Parameters that
/// are not fields of the kind are derived values the banner shows (rs_crc's `bit_map`): left
/// out, the kind's parser recomputes them.
fn block_table(kind: &str, name: &str, params: Vec<(String, toml::Value)>) -> toml::Table {
    let mut t = toml::Table::new();
    t.insert("kind".into(), toml::Value::String(kind.to_string()));
    t.insert("name".into(), toml::Value::String(name.to_string()));
    let fields = blocks::kind(kind).map(|k| k.fields()).unwrap_or(&[]);
    for (k, v) in params.into_iter().filter(|(k, _)| fields.iter().any(|f| f.name == k)) {
        t.insert(k, v);
    }
    t
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
