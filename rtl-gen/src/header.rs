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
use std::sync::Arc;

/// Largest template file, and largest rendered header (per file), in bytes.
pub const MAX_BYTES: usize = 64 * 1024;
/// Most elements one `range(...)` may produce.
pub const MAX_RANGE: usize = 1_000;
/// Deepest nesting of `if`/`for`/`filter` blocks.
pub const MAX_NESTING: usize = 64;
/// Longest one header may take to render.
pub const RENDER_SECONDS: u64 = 5;
/// Stack of the thread that parses and renders a template: deep enough for any template of
/// [`MAX_BYTES`] that [`MAX_NESTING`] admits (pest and Tera recurse per nesting level).
const STACK_BYTES: usize = 256 << 20;

/// The variables a header template may use.
pub const VARIABLES: &str = "design, block, kind, module, params (list of {name, value}), file, generator, version";

/// A parsed header template.
#[derive(Clone)]
pub struct HeaderTemplate {
    /// The path as the design file writes it (relative to the design file's folder): the name
    /// errors use, never an absolute path.
    pub path: String,
    source: String,
    tera: Arc<tera::Tera>,
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
    /// file's folder). The error is the problem text for the `header_template` field. Only a
    /// regular file of at most [`MAX_BYTES`] is read (a FIFO, a device or a folder is refused
    /// before it is opened for reading, and the read stops past the limit).
    pub fn load(path: &str, dir: &Path) -> Result<HeaderTemplate, String> {
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;
        let full = dir.join(path);
        let cannot = |e: String| format!("= \"{path}\": cannot read {} ({e})", full.display());
        let meta = std::fs::metadata(&full).map_err(|e| cannot(e.to_string()))?;
        if !meta.is_file() {
            return Err(format!("= \"{path}\": {} is not a regular file", full.display()));
        }
        if meta.len() > MAX_BYTES as u64 {
            return Err(format!("= \"{path}\": {} holds {} bytes; a header template may hold at most {MAX_BYTES}", full.display(), meta.len()));
        }
        // Non-blocking: should the file have become a FIFO since, opening it does not wait.
        let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(&full).map_err(|e| cannot(e.to_string()))?;
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return Err(format!("= \"{path}\": {} is not a regular file", full.display()));
        }
        let mut bytes = Vec::new();
        file.take(MAX_BYTES as u64 + 1).read_to_end(&mut bytes).map_err(|e| cannot(e.to_string()))?;
        if bytes.len() > MAX_BYTES {
            return Err(format!("= \"{path}\": {} holds more than {MAX_BYTES} bytes; a header template may hold at most {MAX_BYTES}", full.display()));
        }
        let source = String::from_utf8(bytes).map_err(|_| cannot("not UTF-8 text".into()))?;
        HeaderTemplate::parse(path, &source)
    }

    /// Parse template text; `path` names it in errors. Besides Tera's syntax, a header template
    /// is bounded: at most [`MAX_BYTES`], no `include`, `extends`, `import` or macro (there is
    /// one template, so each could only recurse into itself), no `set` (a variable rebuilt in a
    /// loop could grow without bound before any output is written), blocks nested at most
    /// [`MAX_NESTING`] deep, `range` at most [`MAX_RANGE`] elements.
    pub fn parse(path: &str, source: &str) -> Result<HeaderTemplate, String> {
        if source.len() > MAX_BYTES {
            return Err(format!("= \"{path}\": {} bytes; a header template may hold at most {MAX_BYTES}", source.len()));
        }
        let owned = source.to_string();
        let parsed = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn(move || -> Result<tera::Tera, String> {
                let mut tera = tera::Tera::default();
                tera.autoescape_on(vec![]);
                // Headers must not depend on the machine or the moment: no environment variables.
                tera.register_function("get_env", |_: &std::collections::HashMap<String, tera::Value>| {
                    Err(tera::Error::msg("get_env is disabled in header templates: output must not depend on the environment"))
                });
                tera.register_function("range", bounded_range);
                tera.add_raw_template(NAME, &owned).map_err(|e| syntax_problem(&e))?;
                let t = tera.get_template(NAME).map_err(|e| e.to_string())?;
                if !t.macros.is_empty() || !t.imported_macro_files.is_empty() || t.parent.is_some() {
                    return Err("macros, `import` and `extends` are not available in a header template (it is the only template: they could only recurse into it)".into());
                }
                bounded(&t.ast, 1)?;
                Ok(tera)
            })
            .map_err(|e| format!("= \"{path}\": cannot start the template parser ({e})"))?
            .join()
            .map_err(|_| format!("= \"{path}\": the template parser failed"))?;
        let tera = parsed.map_err(|problem| format!("= \"{path}\": {problem}"))?;
        Ok(HeaderTemplate { path: path.to_string(), source: source.to_string(), tera: Arc::new(tera) })
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
        let text = self.render_bounded(ctx, c.file)?;
        // One line end: CR LF and a bare CR both end a line (a bare CR would otherwise end a
        // `#` comment in YAML and let the header inject keys into the `.core`).
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        if let Some(ch) = text.chars().find(|&ch| (ch.is_control() && ch != '\n' && ch != '\t') || matches!(ch, '\u{2028}' | '\u{2029}')) {
            return Err(self.limit_error(format!("the rendered header holds the control character U+{:04X}; only tab and newline are allowed", ch as u32), c.file));
        }
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        let end = lines.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
        Ok(lines[..end].join("\n"))
    }

    /// The header as comment lines ending in a newline; empty when the template renders empty.
    pub fn render(&self, c: &HeaderContext, style: CommentStyle) -> Result<String, HeaderError> {
        Ok(comment(&self.render_text(c)?, style))
    }

    /// Render on a thread of its own with a deep stack, at most [`MAX_BYTES`] of output and
    /// [`RENDER_SECONDS`] of time. A render past the time limit is abandoned (its thread ends
    /// with the process, which reports the error and exits).
    fn render_bounded(&self, ctx: tera::Context, file: &str) -> Result<String, HeaderError> {
        let tera = Arc::clone(&self.tera);
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn(move || {
                let mut out = Capped(Vec::new());
                let result = tera.render_to(NAME, &ctx, &mut out).map(|()| out.0);
                let _ = send.send(result);
            })
            .map_err(|e| self.limit_error(format!("cannot start the renderer ({e})"), file))?;
        match receive.recv_timeout(std::time::Duration::from_secs(RENDER_SECONDS)) {
            Ok(Ok(bytes)) => String::from_utf8(bytes).map_err(|_| self.limit_error("the rendered header is not UTF-8".into(), file)),
            Ok(Err(e)) if chain(&e).iter().any(|m| m.contains(OVERSIZE)) => Err(self.limit_error(format!("the rendered header exceeds {MAX_BYTES} bytes"), file)),
            Ok(Err(e)) => Err(self.render_error(&e, file)),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(self.limit_error(format!("rendering took longer than {RENDER_SECONDS} s"), file)),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(self.limit_error("the renderer failed".into(), file)),
        }
    }

    fn limit_error(&self, problem: String, file: &str) -> HeaderError {
        HeaderError { template: self.path.clone(), line: 0, variable: String::new(), problem, file: file.to_string() }
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

/// The message of [`Capped`]'s write error.
const OVERSIZE: &str = "rendered header over the size limit";

/// A buffer that refuses to grow past [`MAX_BYTES`].
struct Capped(Vec<u8>);

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + buf.len() > MAX_BYTES {
            return Err(std::io::Error::other(OVERSIZE));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Tera's `range(end, start = 0, step_by = 1)` refusing more than [`MAX_RANGE`] elements.
fn bounded_range(args: &std::collections::HashMap<String, tera::Value>) -> tera::Result<tera::Value> {
    let arg = |name: &str, default: Option<u64>| -> tera::Result<u64> {
        match args.get(name) {
            Some(v) => v.as_u64().ok_or_else(|| tera::Error::msg(format!("`range` received {name}={v}, which is not a non-negative integer"))),
            None => default.ok_or_else(|| tera::Error::msg("`range` needs an `end` argument")),
        }
    };
    let (start, end, step) = (arg("start", Some(0))?, arg("end", None)?, arg("step_by", Some(1))?);
    if step == 0 {
        return Err(tera::Error::msg("`range` received step_by=0"));
    }
    let count = end.saturating_sub(start).div_ceil(step);
    if count > MAX_RANGE as u64 {
        return Err(tera::Error::msg(format!("`range` of {count} elements; a header template may use at most {MAX_RANGE}")));
    }
    Ok(tera::Value::from((0..count).map(|i| start + i * step).collect::<Vec<u64>>()))
}

/// Refuse `include` (the template could only include itself), `extends`, `import`, macro
/// definitions and `set` wherever they appear, and blocks nested deeper than [`MAX_NESTING`].
fn bounded(nodes: &[tera::ast::Node], depth: usize) -> Result<(), String> {
    use tera::ast::Node;
    if depth > MAX_NESTING {
        return Err(format!("blocks nested more than {MAX_NESTING} deep"));
    }
    for n in nodes {
        match n {
            Node::Include(..) => return Err("`include` is not available in a header template (it is the only template: an include could only recurse into it)".into()),
            Node::Extends(..) | Node::ImportMacro(..) | Node::MacroDefinition(..) | Node::Super => {
                return Err("macros, `import`, `extends` and `super` are not available in a header template (it is the only template: they could only recurse into it)".into())
            }
            // A variable set in a loop can double each time round (`s = s ~ s`) and exhaust
            // memory before any output is written; a header needs no state of its own.
            Node::Set(..) => return Err("`set` is not available in a header template (a variable rebuilt in a loop could grow without bound); write the expression where it is used".into()),
            Node::Block(_, b, _) => bounded(&b.body, depth + 1)?,
            Node::FilterSection(_, f, _) => bounded(&f.body, depth + 1)?,
            Node::Forloop(_, f, _) => {
                bounded(&f.body, depth + 1)?;
                bounded(f.empty_body.as_deref().unwrap_or(&[]), depth + 1)?;
            }
            Node::If(i, _) => {
                for (_, _, body) in &i.conditions {
                    bounded(body, depth + 1)?;
                }
                if let Some((_, body)) = &i.otherwise {
                    bounded(body, depth + 1)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
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
