//! Checks of the project's own documentation, run with the binary's unit tests because one of
//! them needs the command-line parser itself:
//! - every relative link and image in the README, ARCHITECTURE.md, `docs/` and `sim/*.md`
//!   names a file that exists, and every `#anchor` names a heading of its target page (GitHub's
//!   anchor rule: lower case, punctuation dropped, blanks to `-`, repeats numbered `-1`, `-2`);
//! - every `rtl-gen …` command line in a fenced block is accepted by the argument parser, so a
//!   renamed flag cannot leave a page that tells users to type it.

use crate::Cli;
use clap::Parser;
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser as Markdown, Tag, TagEnd};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// The repository root (the CLI crate sits one level below it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// The pages the checks read: user-facing Markdown written by hand (the generated module docs
/// under `generated/docs/` are checked by `rtl-gen check`).
fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut out: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "CHANGELOG.md"].iter().map(|p| root.join(p)).filter(|p| p.is_file()).collect();
    for dir in ["sim", "docs"] {
        collect_md(&root.join(dir), &mut out);
    }
    out.sort();
    out
}

fn collect_md(dir: &Path, out: &mut Vec<PathBuf>) {
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

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH
}

/// GitHub's anchor of a heading's text.
fn anchor_of(heading: &str) -> String {
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
fn anchors(text: &str) -> HashSet<String> {
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
fn links(text: &str) -> Vec<(String, usize)> {
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
fn broken(page: &Path, target: &str, anchor_cache: &mut BTreeMap<PathBuf, HashSet<String>>) -> Option<String> {
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
fn command_lines(text: &str) -> Vec<(Vec<String>, usize)> {
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
fn commands_in(body: &str, first_line: usize) -> Vec<(Vec<String>, usize)> {
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
fn expand_variables(word: &str) -> String {
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
fn shell_words(s: &str) -> Vec<String> {
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

fn relative(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn every_relative_link_and_anchor_of_the_docs_resolves() {
    let mut cache = BTreeMap::new();
    let mut bad = Vec::new();
    let pages = pages();
    assert!(pages.len() >= 7, "README, ARCHITECTURE and the sim pages are read: {pages:?}");
    let mut count = 0;
    for page in &pages {
        for (target, line) in links(&read(page)) {
            count += 1;
            if let Some(why) = broken(page, &target, &mut cache) {
                bad.push(format!("{}:{line}: ({target}) {why}", relative(page)));
            }
        }
    }
    assert!(count >= 20, "the pages link to each other ({count} links found)");
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

#[test]
fn every_rtl_gen_command_line_of_the_docs_parses() {
    let mut bad = Vec::new();
    let mut count = 0;
    for page in pages() {
        for (args, line) in command_lines(&read(&page)) {
            count += 1;
            if let Err(e) = Cli::try_parse_from(&args) {
                let first = e.to_string().lines().next().unwrap_or_default().to_string();
                bad.push(format!("{}:{line}: `{}`: {first}", relative(&page), args.join(" ")));
            }
        }
    }
    assert!(count >= 10, "the pages show command lines ({count} found)");
    assert!(bad.is_empty(), "command lines the parser refuses:\n{}", bad.join("\n"));
}

#[test]
fn the_checks_catch_a_broken_anchor_a_missing_file_and_an_unknown_flag() {
    let page = root().join("README.md");
    let mut cache = BTreeMap::new();
    assert!(broken(&page, "ARCHITECTURE.md", &mut cache).is_none());
    assert!(broken(&page, "NO_SUCH_FILE.md", &mut cache).is_some());
    assert!(broken(&page, "#no-such-heading-anywhere", &mut cache).is_some());
    assert!(broken(&page, "../outside.md", &mut cache).is_some() || !root().parent().unwrap().join("outside.md").exists());
    assert_eq!(anchor_of("ASIC hand-off (`rtl-gen asic`, OSU 0.18 µm)"), "asic-hand-off-rtl-gen-asic-osu-018-µm");
    let text = "# A\n## A\n```sh\n$ RTLGEN_LONG=1 ./target/release/rtl-gen synth generated \\\n    --module x --bogus && echo ok\n```\n";
    assert!(anchors(text).contains("a-1"));
    let cmds = command_lines(text);
    assert_eq!(cmds.len(), 1);
    assert_eq!(cmds[0].0, ["./target/release/rtl-gen", "synth", "generated", "--module", "x", "--bogus"]);
    assert!(Cli::try_parse_from(&cmds[0].0).is_err(), "an unknown flag is refused");
    let looped = command_lines("```sh\nfor K in 0 1; do rtl-gen sim genz --shard $K/2 --out /tmp/o${K}; done\n```\n");
    assert_eq!(looped[0].0, ["rtl-gen", "sim", "genz", "--shard", "0/2", "--out", "/tmp/o0"]);
    assert!(Cli::try_parse_from(["rtl-gen", "synth", "generated", "--module", "x"]).is_ok());
}
