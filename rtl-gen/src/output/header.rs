//! The user's own file header (`[design] header_template = "FILE"`): a [Tera] template, read
//! and syntax-checked when the design file is parsed, rendered at generation time above the
//! generated banner of every file (copyright, licence, export classification…). The project's
//! own templates stay compile-time checked askama templates; only this one is read at run time.
//!
//! Context of every render (all strings unless noted):
//!
//! | variable | module files (`rtl/*.v`, `docs/*.md`) | design files (`.core`, `.f`, `.xdc`, `.sdc`) |
//! |---|---|---|
//! | `design` | design name | design name |
//! | `block` | the block that owns the module | `""` |
//! | `kind` | kind of the generator that built the module | `""` |
//! | `module` | module name | `""` |
//! | `params` | list of `{name, value}`: that generator's parameters | `[]` |
//! | `file` | file name (`x.v`, `x.md`, `d.core`, `d.f`, `d.xdc`, `d.sdc`) | |
//! | `generator` | `rtl-gen <version>` | |
//! | `version` | the generator's version | |
//!
//! The rendered text (trailing blank lines removed) becomes comment lines in each file's syntax:
//! `// ` in Verilog, `# ` in `.xdc`, `.sdc`, `.f` and `.core` (after the `CAPI=2:` line FuseSoC
//! requires first), and one HTML comment `<!-- … -->` at the top of Markdown docs (invisible
//! when rendered, present in the source). Headers are deterministic: Tera's date and random
//! functions are compiled out (no default features) and `get_env` is disabled; nothing depends
//! on the template's location on disk.
//!
//! [Tera]: https://keats.github.io/tera/

use serde::Serialize;
use std::path::Path;

/// The variables a header template may use.
pub const VARIABLES: &str = "design, block, kind, module, params (list of {name, value}), file, generator, version";

/// A parsed header template.
#[derive(Clone)]
pub struct HeaderTemplate {
    /// The path as the design file writes it (relative to the design file's folder): the name
    /// errors use, never an absolute path.
    pub path: String,
    source: String,
    tera: tera::Tera,
}

impl std::fmt::Debug for HeaderTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeaderTemplate").field("path", &self.path).field("bytes", &self.source.len()).finish()
    }
}

impl PartialEq for HeaderTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.source == other.source
    }
}

/// A header that failed to render for one file: the template, the line of the first use of the
/// offending variable, the variable and the output file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("header_template {template}, line {line}: {problem} (rendering the header of {file}); available: {VARIABLES}")]
pub struct HeaderError {
    pub template: String,
    /// 1-based; 0 when the variable does not appear literally in the template.
    pub line: usize,
    /// The variable Tera could not resolve (empty for other render errors).
    pub variable: String,
    pub problem: String,
    pub file: String,
}

/// Comment syntax of the file a header goes into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentStyle {
    /// Verilog: `// `.
    Slash,
    /// XDC, SDC, filelists, FuseSoC cores (YAML): `# `.
    Hash,
    /// Markdown: one `<!-- … -->` block.
    Html,
}

/// One parameter as the template sees it.
#[derive(Serialize)]
struct Param<'a> {
    name: &'a str,
    value: &'a str,
}

/// What a header is rendered for. Design-wide files leave block, kind and module empty.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeaderContext<'a> {
    pub design: &'a str,
    pub block: &'a str,
    pub kind: &'a str,
    pub module: &'a str,
    pub params: &'a [(&'static str, String)],
    /// File name, e.g. `rtlgen_crc32.v`.
    pub file: &'a str,
}

impl<'a> HeaderContext<'a> {
    /// A design-wide file (`.core`, `.f`, `.xdc`, `.sdc`): no block, kind, module or params.
    pub fn design_file(design: &'a str, file: &'a str) -> HeaderContext<'a> {
        HeaderContext { design, file, ..HeaderContext::default() }
    }
}

/// Tera's name for the one template (errors quote it; we replace them with our own text).
const NAME: &str = "header";

impl HeaderTemplate {
    /// Read and parse `path` (as written in the design file) relative to `dir` (the design
    /// file's folder). The error is the problem text for the `header_template` field.
    pub fn load(path: &str, dir: &Path) -> Result<HeaderTemplate, String> {
        let full = dir.join(path);
        let source = std::fs::read_to_string(&full).map_err(|e| format!("= \"{path}\": cannot read {} ({e})", full.display()))?;
        HeaderTemplate::parse(path, &source)
    }

    /// Parse template text; `path` names it in errors.
    pub fn parse(path: &str, source: &str) -> Result<HeaderTemplate, String> {
        let mut tera = tera::Tera::default();
        tera.autoescape_on(vec![]);
        // Headers must not depend on the machine or the moment: no environment variables.
        tera.register_function("get_env", |_: &std::collections::HashMap<String, tera::Value>| {
            Err(tera::Error::msg("get_env is disabled in header templates: output must not depend on the environment"))
        });
        tera.add_raw_template(NAME, source).map_err(|e| format!("= \"{path}\": {}", syntax_problem(&e)))?;
        Ok(HeaderTemplate { path: path.to_string(), source: source.to_string(), tera })
    }

    /// The template text (part of the design hash).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The rendered text, trailing whitespace of each line and trailing blank lines removed.
    pub fn render_text(&self, c: &HeaderContext) -> Result<String, HeaderError> {
        let mut ctx = tera::Context::new();
        ctx.insert("design", c.design);
        ctx.insert("block", c.block);
        ctx.insert("kind", c.kind);
        ctx.insert("module", c.module);
        ctx.insert("params", &c.params.iter().map(|(n, v)| Param { name: n, value: v }).collect::<Vec<_>>());
        ctx.insert("file", c.file);
        ctx.insert("generator", crate::GENERATOR);
        ctx.insert("version", env!("CARGO_PKG_VERSION"));
        let text = self.tera.render(NAME, &ctx).map_err(|e| self.render_error(&e, c.file))?;
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        let end = lines.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
        Ok(lines[..end].join("\n"))
    }

    /// The header as comment lines ending in a newline; empty when the template renders empty.
    pub fn render(&self, c: &HeaderContext, style: CommentStyle) -> Result<String, HeaderError> {
        Ok(comment(&self.render_text(c)?, style))
    }

    fn render_error(&self, e: &tera::Error, file: &str) -> HeaderError {
        let messages = chain(e);
        // Tera: "Variable `x.y` not found in context while rendering 'header'".
        let variable = messages
            .iter()
            .find_map(|m| m.split_once("Variable `").and_then(|(_, r)| r.split_once("` not found")).map(|(v, _)| v.to_string()))
            .unwrap_or_default();
        let (line, problem) = if variable.is_empty() {
            let problem = messages.last().cloned().unwrap_or_default().replace(&format!("'{NAME}'"), "the template");
            (0, problem)
        } else {
            (first_use(&self.source, &variable), format!("variable `{variable}` is not defined"))
        };
        HeaderError { template: self.path.clone(), line, variable, problem, file: file.to_string() }
    }
}

/// Every message of an error and its sources.
fn chain(e: &dyn std::error::Error) -> Vec<String> {
    let mut out = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        out.push(s.to_string());
        cur = s.source();
    }
    out
}

/// "line L, column C: <what pest expected>" from Tera's parse error.
fn syntax_problem(e: &tera::Error) -> String {
    let messages = chain(e);
    let text = messages.last().cloned().unwrap_or_default();
    let at = text.lines().find_map(|l| l.trim().strip_prefix("--> ")).and_then(|lc| lc.split_once(':'));
    let expected = text.lines().find_map(|l| l.trim().strip_prefix("= ")).unwrap_or(text.lines().next().unwrap_or("")).trim();
    match at {
        Some((line, col)) => format!("line {line}, column {col}: template syntax error: {expected}"),
        None => format!("template syntax error: {}", text.replace(&format!("'{NAME}'"), "the template")),
    }
}

/// The first line (1-based) where `variable` (its first path segment, `a` of `a.b[0]`) is used
/// as a name inside `{{ }}` or `{% %}`; 0 if none.
fn first_use(source: &str, variable: &str) -> usize {
    let root: String = variable.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if root.is_empty() {
        return 0;
    }
    let mut in_tag = false;
    let bytes = source.as_bytes();
    let mut line = 1;
    let mut i = 0;
    while i < bytes.len() {
        let two = &bytes[i..bytes.len().min(i + 2)];
        if !in_tag && (two == b"{{" || two == b"{%") {
            in_tag = true;
            i += 2;
            continue;
        }
        if in_tag && (two == b"}}" || two == b"%}") {
            in_tag = false;
            i += 2;
            continue;
        }
        if bytes[i] == b'\n' {
            line += 1;
        }
        if in_tag && bytes[i..].starts_with(root.as_bytes()) {
            let before = i.checked_sub(1).map(|j| bytes[j]);
            let after = bytes.get(i + root.len()).copied();
            let ident = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
            if !ident(before) && !after.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return line;
            }
        }
        i += 1;
    }
    0
}

/// `text` as comment lines in `style`, each ending in a newline; empty for empty text.
pub fn comment(text: &str, style: CommentStyle) -> String {
    if text.is_empty() {
        return String::new();
    }
    let prefixed = |p: &str| {
        text.lines().map(|l| if l.is_empty() { format!("{}\n", p.trim_end()) } else { format!("{p}{l}\n") }).collect::<String>()
    };
    match style {
        CommentStyle::Slash => prefixed("// "),
        CommentStyle::Hash => prefixed("# "),
        // `--` may not appear inside an HTML comment; a lone `-` after it keeps the text readable.
        CommentStyle::Html => format!("<!--\n{}\n-->\n", text.replace("--", "- -")),
    }
}

/// `header` above `body`, except that a first line `body` must keep (FuseSoC's `CAPI=2:`)
/// stays first.
pub fn prepend(header: &str, body: &str, keep_first_line: bool) -> String {
    if header.is_empty() {
        return body.to_string();
    }
    if keep_first_line {
        if let Some((first, rest)) = body.split_once('\n') {
            return format!("{first}\n{header}{rest}");
        }
    }
    format!("{header}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARAMS: &[(&str, String)] = &[];

    fn ctx<'a>(params: &'a [(&'static str, String)]) -> HeaderContext<'a> {
        HeaderContext { design: "d", block: "b", kind: "crc", module: "d_b", params, file: "d_b.v" }
    }

    #[test]
    fn renders_variables_and_params() {
        let params = [("width", "32".to_string()), ("poly", "0x04C11DB7".to_string())];
        let t = HeaderTemplate::parse("h.tera", "(c) ACME  \n{{ module }} of {{ design }}/{{ block }} ({{ kind }}, {{ file }})\n{% for p in params %}{{ p.name }}={{ p.value }} {% endfor %}\n{{ generator }} {{ version }}\n\n\n").expect("valid");
        let text = t.render_text(&ctx(&params)).expect("renders");
        assert_eq!(text, format!("(c) ACME\nd_b of d/b (crc, d_b.v)\nwidth=32 poly=0x04C11DB7\n{} {}", crate::GENERATOR, env!("CARGO_PKG_VERSION")));
        assert_eq!(comment("a\n\nb", CommentStyle::Slash), "// a\n//\n// b\n");
        assert_eq!(comment("a\nb", CommentStyle::Hash), "# a\n# b\n");
        assert_eq!(comment("a --> b", CommentStyle::Html), "<!--\na - -> b\n-->\n");
        assert_eq!(comment("", CommentStyle::Hash), "");
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let e = HeaderTemplate::parse("h.tera", "ok\nfine\n{{ module + }}\nmore\n").expect_err("operator without operand");
        assert!(e.starts_with("= \"h.tera\": line 3, column"), "{e}");
    }

    #[test]
    fn undefined_variable_names_template_line_and_variable() {
        let t = HeaderTemplate::parse("h.tera", "line one\n{% if module %}{{ module }}{% endif %}\n{{ modul.name }}\n").expect("valid syntax");
        let e = t.render_text(&ctx(PARAMS)).expect_err("undefined");
        assert_eq!((e.line, e.variable.as_str()), (3, "modul.name"));
        let msg = e.to_string();
        assert!(msg.starts_with("header_template h.tera, line 3: variable `modul.name` is not defined (rendering the header of d_b.v)"), "{msg}");
    }

    #[test]
    fn environment_is_not_reachable() {
        let t = HeaderTemplate::parse("h.tera", "{{ get_env(name=\"HOME\") }}").expect("valid syntax");
        let e = t.render_text(&ctx(PARAMS)).expect_err("get_env disabled");
        assert!(e.to_string().contains("get_env is disabled"), "{e}");
    }

    #[test]
    fn capi_line_stays_first() {
        assert_eq!(prepend("# h\n", "CAPI=2:\nname: x\n", true), "CAPI=2:\n# h\nname: x\n");
        assert_eq!(prepend("// h\n", "// banner\n", false), "// h\n// banner\n");
    }
}
