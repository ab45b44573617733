//! Checks of the project's own documentation, run with the binary's unit tests because one of
//! them needs the command-line parser itself:
//! - every relative link and image in the README, ARCHITECTURE.md, `docs/` and `sim/*.md`
//!   names a file that exists, and every `#anchor` names a heading of its target page (GitHub's
//!   anchor rule: lower case, punctuation dropped, blanks to `-`, repeats numbered `-1`, `-2`);
//! - every `rtl-gen …` command line in a fenced block is accepted by the argument parser, so a
//!   renamed flag cannot leave a page that tells users to type it (the short ones are also run:
//!   `cli/tests/docs_commands.rs`);
//! - no page cites a contract or an issue number.

use crate::docs_pages::{anchor_of, anchors, broken, command_lines, links, pages, read, relative, root};
use crate::Cli;
use clap::Parser;
use std::collections::BTreeMap;

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
fn no_page_cites_a_contract_or_an_issue_number() {
    // The pages speak of the project in its own words: a choice is stated, not referred to a
    // document outside the repository, and history (issue numbers) stays in git.
    let mut bad = Vec::new();
    for page in pages() {
        for (i, line) in read(&page).lines().enumerate() {
            let lower = line.to_lowercase();
            let issue_number = lower.match_indices("issue ").any(|(at, m)| lower[at + m.len()..].starts_with(|c: char| c.is_ascii_digit()));
            if lower.contains("contract") || issue_number {
                bad.push(format!("{}:{}: {}", relative(&page), i + 1, line.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "pages citing a contract or an issue number:\n{}", bad.join("\n"));
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
