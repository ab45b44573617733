//! The project's hand-written documentation as data: its pages, their links and anchors, the
//! `rtl-gen` command lines of their fenced shell blocks and the files those blocks name. Used by
//! the binary's documentation checks (`docs_check`, `headline`) and by the integration test that
//! runs the short commands (`cli/tests/docs_commands.rs`, which includes this file by path).
#![allow(dead_code)]

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser as Markdown, Tag, TagEnd};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// The repository root (the CLI crate sits one level below it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// The pages the checks read: user-facing Markdown written by hand (the generated module docs
/// under `generated/docs/` are checked by `rtl-gen check`).
pub fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut out: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "CHANGELOG.md"].iter().map(|p| root.join(p)).filter(|p| p.is_file()).collect();
    for dir in ["sim", "docs"] {
        collect_md(&root.join(dir), &mut out);
    }
    out.sort();
    out
}

pub fn collect_md(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_md(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH
}

/// GitHub's anchor of a heading's text.
pub fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Every anchor a page defines: its headings' anchors, numbered on repeats.
pub fn anchors(text: &str) -> HashSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = HashSet::new();
    let mut heading: Option<String> = None;
    for ev in Markdown::new_ext(text, options()) {
        match ev {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) if heading.is_some() => heading.as_mut().unwrap().push_str(&t),
            Event::End(TagEnd::Heading(_)) => {
                let base = anchor_of(&heading.take().unwrap_or_default());
                let n = seen.entry(base.clone()).or_insert(0);
                out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
                *n += 1;
            }
            _ => {}
        }
    }
    out
}

/// `(link target, line)` of every link and image of a page.
pub fn links(text: &str) -> Vec<(String, usize)> {
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    Markdown::new_ext(text, options())
        .into_offset_iter()
        .filter_map(|(ev, range)| match ev {
            Event::Start(Tag::Link { dest_url, .. }) | Event::Start(Tag::Image { dest_url, .. }) => Some((dest_url.to_string(), line_of(range.start))),
            _ => None,
        })
        .collect()
}

/// Why `target`, linked from `page`, does not resolve (None: it does).
pub fn broken(page: &Path, target: &str, anchor_cache: &mut BTreeMap<PathBuf, HashSet<String>>) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let file = if path.is_empty() { page.to_path_buf() } else { page.parent().unwrap().join(path) };
    if !file.exists() {
        return Some(format!("`{path}` does not exist"));
    }
    let root = root().canonicalize().unwrap();
    if !file.canonicalize().is_ok_and(|f| f.starts_with(&root)) {
        return Some(format!("`{path}` is outside the repository"));
    }
    let anchor = anchor?;
    if file.extension().is_none_or(|x| x != "md") {
        return None;
    }
    let set = anchor_cache.entry(file.clone()).or_insert_with(|| anchors(&read(&file)));
    (!set.contains(anchor)).then(|| format!("no heading of {} has the anchor `#{anchor}`", file.strip_prefix(root).unwrap_or(&file).display()))
}

/// The `rtl-gen` command lines of a page's fenced blocks, each as its arguments and the line.
pub fn command_lines(text: &str) -> Vec<(Vec<String>, usize)> {
    let mut out = Vec::new();
    let mut in_block: Option<(usize, String)> = None;
    for (ev, range) in Markdown::new_ext(text, options()).into_offset_iter() {
        match ev {
            Event::Start(Tag::CodeBlock(kind)) => {
                let shell = match &kind {
                    CodeBlockKind::Fenced(lang) => lang.is_empty() || matches!(lang.as_ref(), "sh" | "bash" | "shell" | "console"),
                    CodeBlockKind::Indented => true,
                };
                in_block = shell.then(|| (text[..range.start].matches('\n').count() + 1, String::new()));
            }
            Event::Text(t) if in_block.is_some() => in_block.as_mut().unwrap().1.push_str(&t),
            Event::End(TagEnd::CodeBlock) => {
                if let Some((first, body)) = in_block.take() {
                    out.extend(commands_in(&body, first));
                }
            }
            _ => {}
        }
    }
    out
}

/// The `rtl-gen` invocations of a shell block: continuation lines joined, prompts, comments,
/// environment assignments, loop keywords and the rest of a pipeline or `&&` chain set aside;
/// a shell variable (`$K`, `${SLURM_ARRAY_TASK_ID}`) stands for `0`. Blocks that show a
/// synopsis with `[OPTIONS]` are fenced as `text` and not read.
pub fn commands_in(body: &str, first_line: usize) -> Vec<(Vec<String>, usize)> {
    let mut out = Vec::new();
    let mut joined = String::new();
    let mut start = 0;
    for (i, line) in body.lines().enumerate() {
        if joined.is_empty() {
            start = first_line + 1 + i;
        }
        if let Some(head) = line.trim_end().strip_suffix('\\') {
            joined.push_str(head);
            joined.push(' ');
            continue;
        }
        joined.push_str(line);
        let full = std::mem::take(&mut joined);
        let full = full.trim().trim_start_matches("$ ");
        let full = full.split(" #").next().unwrap_or(full);
        for segment in full.split("&&").flat_map(|s| s.split(';')).flat_map(|s| s.split('|').take(1)) {
            let words: Vec<String> = shell_words(segment).iter().map(|w| expand_variables(w)).collect();
            let at = words.iter().position(|w| {
                let assignment = w.contains('=') && !w.starts_with('-');
                !assignment && !matches!(w.as_str(), "do" | "then" | "else" | "time")
            });
            let Some(at) = at else { continue };
            let program = words[at].rsplit('/').next().unwrap_or(&words[at]);
            if program != "rtl-gen" {
                continue;
            }
            let args: Vec<String> = words[at..].iter().take_while(|w| !w.starts_with('>') && !w.starts_with("2>")).cloned().collect();
            out.push((args, start));
        }
    }
    out
}

/// `word` with each shell variable replaced by `0`.
pub fn expand_variables(word: &str) -> String {
    let mut out = String::new();
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let len = if let Some(braced) = after.strip_prefix('{') {
            braced.find('}').map_or(after.len(), |e| e + 2)
        } else {
            after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len())
        };
        out.push_str(if len == 0 { "$" } else { "0" });
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// Words of a shell command: blanks split, single and double quotes group.
pub fn shell_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

pub fn relative(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// The files a page's TOML blocks define: a fenced `toml` block whose first line is
/// `# file: NAME` is the content of NAME, so an example's later commands can read it.
pub fn example_files(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_block: Option<String> = None;
    for ev in Markdown::new_ext(text, options()) {
        match ev {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) if lang.as_ref() == "toml" => in_block = Some(String::new()),
            Event::Text(t) if in_block.is_some() => in_block.as_mut().unwrap().push_str(&t),
            Event::End(TagEnd::CodeBlock) => {
                if let Some(body) = in_block.take() {
                    let name = body.lines().next().and_then(|l| l.trim().strip_prefix("# file:")).map(|n| n.trim().to_string());
                    if let Some(name) = name.filter(|n| !n.is_empty() && !n.contains('/') && !n.starts_with('.')) {
                        out.push((name, body));
                    }
                }
            }
            _ => {}
        }
    }
    out
}
