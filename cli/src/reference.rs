//! The reference pages of the docs book that are written from code: one page per command from
//! the CLI's own help (`docs/reference/commands/`) and one per block kind from the field
//! definitions (`docs/reference/kinds/`, [`rtl_gen::output::reference`]). The test fails,
//! naming each stale, missing or extra page, when the committed pages differ from what the code
//! says; `RTLGEN_BLESS=1` with the same test writes them (only those two folders).

use crate::docs_pages::root;
use crate::Cli;
use clap::CommandFactory;
use rtl_gen::config::Design;
use std::collections::BTreeMap;

const COMMANDS_DIR: &str = "docs/reference/commands";

/// `(file name, text)` of every command's page (subcommands of `sim`, `analyze` and `plan`
/// each have their own) and the index.
fn command_pages() -> Vec<(String, String)> {
    let mut cli = Cli::command().bin_name("rtl-gen");
    cli.build();
    let mut pages = Vec::new();
    let mut index = String::from("# Commands\n\nGenerated from the command line's own help; do not edit.\n\n| command | what it does |\n|---|---|\n");
    for sub in cli.get_subcommands() {
        walk(sub, &mut vec![sub.get_name().to_string()], &mut pages, &mut index);
    }
    pages.push(("README.md".to_string(), index));
    pages
}

fn walk(cmd: &clap::Command, path: &mut Vec<String>, pages: &mut Vec<(String, String)>, index: &mut String) {
    if cmd.get_name() == "help" {
        return;
    }
    let file = format!("{}.md", path.join("-"));
    let title = format!("rtl-gen {}", path.join(" "));
    let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
    index.push_str(&format!("| [`{title}`]({file}) | {} |\n", about.replace('|', "\\|")));
    let help = cmd.clone().render_long_help().to_string();
    let mut page = format!("# `{title}`\n\nGenerated from `{title} --help`; do not edit.\n\n```text\n{}\n```\n", help.trim_end());
    let subs: Vec<&clap::Command> = cmd.get_subcommands().filter(|s| s.get_name() != "help").collect();
    if !subs.is_empty() {
        page.push_str("\n## Subcommands\n\n");
        for s in &subs {
            page.push_str(&format!("- [`{title} {}`]({}-{}.md)\n", s.get_name(), path.join("-"), s.get_name()));
        }
    }
    pages.push((file, page));
    for s in subs {
        path.push(s.get_name().to_string());
        walk(s, path, pages, index);
        path.pop();
    }
}

/// Every generated page, keyed by its path relative to the repository root.
fn expected() -> BTreeMap<String, String> {
    let default = Design::builtin_default().elaborate();
    let kinds = rtl_gen::output::reference::kind_pages(&default).into_iter().map(|(f, t)| (format!("{}/{f}", rtl_gen::output::reference::DIR), t));
    let commands = command_pages().into_iter().map(|(f, t)| (format!("{COMMANDS_DIR}/{f}"), t));
    kinds.chain(commands).collect()
}

/// The `.md` files now in the two generated folders.
fn on_disk() -> Vec<String> {
    let mut out = Vec::new();
    for dir in [rtl_gen::output::reference::DIR, COMMANDS_DIR] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if name.ends_with(".md") {
                out.push(format!("{dir}/{name}"));
            }
        }
    }
    out
}

#[test]
fn the_generated_reference_pages_are_current() {
    let expected = expected();
    assert!(expected.len() > 30, "a page per kind and per command: {}", expected.len());
    if std::env::var_os("RTLGEN_BLESS").is_some() {
        for (path, text) in &expected {
            let p = root().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            if std::fs::read_to_string(&p).ok().as_deref() != Some(text) {
                std::fs::write(&p, text).unwrap();
            }
        }
        for path in on_disk().into_iter().filter(|p| !expected.contains_key(p)) {
            // Only a page these folders' generator wrote before (it carries the marker).
            let p = root().join(&path);
            if std::fs::read_to_string(&p).is_ok_and(|t| t.contains("; do not edit.")) {
                std::fs::remove_file(p).unwrap();
            }
        }
    }
    let mut problems = Vec::new();
    for (path, text) in &expected {
        match std::fs::read_to_string(root().join(path)) {
            Err(_) => problems.push(format!("missing: {path}")),
            Ok(t) if &t != text => problems.push(format!("stale: {path}")),
            Ok(_) => {}
        }
    }
    for path in on_disk().into_iter().filter(|p| !expected.contains_key(p)) {
        problems.push(format!("extra: {path}"));
    }
    assert!(
        problems.is_empty(),
        "the reference pages differ from the code; rewrite them with\n  RTLGEN_BLESS=1 cargo test -p rtl-gen-cli --bin rtl-gen the_generated_reference_pages_are_current\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_command_and_kind_has_a_page() {
    let pages = expected();
    for k in rtl_gen::blocks::KINDS {
        let text = &pages[&format!("{}/{}.md", rtl_gen::output::reference::DIR, k.kind())];
        for f in k.fields() {
            assert!(text.contains(&format!("| `{}` |", f.name)), "{}: field {}", k.kind(), f.name);
        }
    }
    for name in ["generate", "check", "lint", "synth", "fpga", "formal", "asic", "sim-rxl", "sim-cosim", "analyze-rxl", "plan-rifl"] {
        let text = pages.get(&format!("{COMMANDS_DIR}/{name}.md")).unwrap_or_else(|| panic!("no page for {name}"));
        assert!(text.contains(&format!("Usage: rtl-gen {}", name.replace('-', " "))), "{name}: {text}");
    }
}
