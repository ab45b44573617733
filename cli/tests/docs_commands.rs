//! The short `rtl-gen` command lines of the documentation, run: every page's fenced shell blocks
//! in page order, in a fresh folder per page that holds the files its `# file: NAME` TOML blocks
//! define. Only commands that finish in seconds are run (`list`, `analyze`, `plan`, and
//! `generate`/`check` of a design file the page defines, `lint`/`synth` of a tree an earlier
//! command of the page wrote); the campaigns, `sim`, `fpga`, `asic`, `formal` and `report` are
//! only parsed (`docs_check`).

#[path = "../src/docs_pages.rs"]
mod docs_pages;
mod common;

use std::path::Path;

/// Whether `args` (after the program name) is a short command that can run in `dir`.
fn runnable(args: &[String], dir: &Path) -> bool {
    let positional = |from: usize| args.iter().skip(from).find(|a| !a.starts_with('-')).map(|a| dir.join(a));
    match args.first().map(String::as_str) {
        Some("list") => true,
        Some("analyze") | Some("plan") => !args.iter().any(|a| a == "--points"),
        // A design file of the page and an explicit output folder: never the default design or
        // the committed generated/.
        Some("generate") | Some("check") => positional(1).is_some_and(|p| p.is_file()) && args.iter().any(|a| a == "--out"),
        Some("lint") | Some("synth") => positional(1).is_some_and(|p| p.join("manifest.json").is_file()),
        _ => false,
    }
}

#[test]
fn the_short_command_lines_of_the_docs_run() {
    let mut bad = Vec::new();
    let mut ran = Vec::new();
    for page in docs_pages::pages() {
        let text = docs_pages::read(&page);
        let commands = docs_pages::command_lines(&text);
        if commands.is_empty() {
            continue;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        for (name, body) in docs_pages::example_files(&text) {
            std::fs::write(dir.path().join(name), body).expect("write an example file");
        }
        for (args, line) in commands {
            let args = &args[1..];
            if !runnable(args, dir.path()) {
                continue;
            }
            let words: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = common::rtl_gen(&words, dir.path());
            let at = format!("{}:{line}: `rtl-gen {}`", docs_pages::relative(&page), args.join(" "));
            if !out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                bad.push(format!("{at}: {}\n    {}", out.status, err.lines().take(4).collect::<Vec<_>>().join("\n    ")));
            }
            ran.push(at);
        }
    }
    let readme_example = ["generate mylink.toml", "check mylink.toml", "lint build/mylink", "synth build/mylink"];
    for want in readme_example {
        assert!(ran.iter().any(|r| r.starts_with("README.md") && r.contains(want)), "the README's example `rtl-gen {want}` ran; ran: {ran:#?}");
    }
    assert!(bad.is_empty(), "documented commands that fail:\n{}", bad.join("\n"));
}
