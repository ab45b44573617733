//! The import rules of ARCHITECTURE.md hold in the code, for both library crates: every
//! `crate::<module>` path in `rtl-gen/src` and `sim/src` outside test modules and comments names
//! a module its top-level module may import, and the rules themselves have no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Rules = BTreeMap<String, BTreeSet<String>>;

/// One library crate: its sources and the heading of its rule list in ARCHITECTURE.md.
struct Crate {
    src: &'static str,
    heading: &'static str,
}

const RTL_GEN: Crate = Crate { src: "src", heading: "Import rules inside `rtl-gen`" };
const SIM: Crate = Crate { src: "../sim/src", heading: "Import rules inside `rtl-gen-sim`" };

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A rule list of ARCHITECTURE.md: lines `- `a`, `b` (what): `c`, `d`` or `…: leaves`, right
/// after the line that starts with `heading`.
fn documented_rules(heading: &str) -> Rules {
    let doc = std::fs::read_to_string(root().join("../ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let start = doc.find(heading).unwrap_or_else(|| panic!("the section `{heading}`"));
    parse_rules(&doc[start..])
}

fn parse_rules(section: &str) -> Rules {
    let mut rules = BTreeMap::new();
    for line in section.lines().skip(1).skip_while(|l| !l.starts_with("- ")).take_while(|l| l.starts_with("- ")) {
        let (who, imports) = line[2..].rsplit_once(": ").expect("`- modules: imports`");
        let names = |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(str::to_string).collect() };
        let allowed: BTreeSet<String> = names(imports).into_iter().collect();
        for m in names(who.split(" (").next().unwrap_or(who)) {
            rules.insert(m, allowed.clone());
        }
    }
    assert!(rules.len() >= 10, "the rule list parsed: {rules:?}");
    rules
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The crate root's re-exports (`pub use module::{A, B};`, `pub use module::A;` in `lib.rs`):
/// item name → the module that defines it, so `crate::SimError` counts as an import of `error`.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let code: String = lib.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let statements: Vec<&str> = code.split(';').map(str::trim).collect();
    let modules: BTreeSet<&str> = statements.iter().filter_map(|s| s.strip_prefix("pub mod ").or_else(|| s.strip_prefix("mod "))).collect();
    let mut out = BTreeMap::new();
    for stmt in &statements {
        let Some(path) = stmt.strip_prefix("pub use ") else { continue };
        let Some((module, items)) = path.split_once("::").filter(|(m, _)| modules.contains(m)) else { continue };
        for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = item.rsplit(" as ").next().unwrap_or(item).rsplit("::").next().unwrap_or(item).trim();
            if !name.is_empty() {
                out.insert(name.to_string(), module.to_string());
            }
        }
    }
    out
}

/// The leading identifier of `s`.
fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// Top-level modules a file's code names through `crate::` (`crate::a::b`, `crate::{a, B}`;
/// an item the root re-exports counts as its module): comments and everything from the test
/// module on (`#[cfg(test)]`, which both crates keep at the end of a file) left out.
fn imports(text: &str, reexported: &BTreeMap<String, String>) -> BTreeSet<String> {
    let code: String = text.split("#[cfg(test)]").next().unwrap_or("").lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut names = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let tail = &rest[at + 7..];
        if let Some(group) = tail.strip_prefix('{') {
            // `crate::{a::X, B}`: the first name of every item at the group's top level.
            let (mut depth, mut item_start) = (0usize, true);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && !c.is_whitespace() => {
                        names.push(ident(&group[i..]).to_string());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            names.push(ident(tail).to_string());
        }
        rest = tail;
    }
    names
        .into_iter()
        .filter_map(|n| match reexported.get(&n) {
            Some(module) => Some(module.clone()),
            // Other items of the crate root (`crate::GENERATOR`) are not modules.
            None => n.chars().next().is_some_and(|c| c.is_ascii_lowercase()).then_some(n),
        })
        .collect()
}

/// Every import of `krate`'s sources that its rules do not allow, and every top-level module
/// without a rule.
fn violations(krate: &Crate, rules: &Rules) -> Vec<String> {
    let src = root().join(krate.src);
    let reexported = reexports(&std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let top = rel.components().next().expect("component").as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        if top == "lib" {
            continue;
        }
        let Some(allowed) = rules.get(&top) else {
            bad.push(format!("{}: module `{top}` has no import rule in ARCHITECTURE.md", rel.display()));
            continue;
        };
        for m in imports(&std::fs::read_to_string(f).expect("read"), &reexported) {
            if m != top && !allowed.contains(&m) {
                bad.push(format!("{}: `{top}` imports `crate::{m}`, which ARCHITECTURE.md does not allow (allowed: {allowed:?})", rel.display()));
            }
        }
    }
    bad
}

/// A cycle of the rules (modules in import order), if they have one.
fn cycle(rules: &Rules) -> Option<Vec<String>> {
    // Depth-first search for a back edge.
    fn visit(m: &str, rules: &Rules, path: &mut Vec<String>, done: &mut BTreeSet<String>) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            return Some(path[i..].to_vec());
        }
        if !done.insert(m.to_string()) {
            return None;
        }
        path.push(m.to_string());
        for n in rules.get(m).into_iter().flatten() {
            if let Some(c) = visit(n, rules, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    rules.keys().find_map(|m| visit(m, rules, &mut Vec::new(), &mut done))
}

#[test]
fn every_rtl_gen_import_is_one_the_architecture_allows() {
    let bad = violations(&RTL_GEN, &documented_rules(RTL_GEN.heading));
    assert!(bad.is_empty(), "imports against the documented layers:\n{}", bad.join("\n"));
}

#[test]
fn every_sim_import_is_one_the_architecture_allows() {
    let bad = violations(&SIM, &documented_rules(SIM.heading));
    assert!(bad.is_empty(), "imports against the documented layers:\n{}", bad.join("\n"));
}

#[test]
fn the_documented_rules_have_no_cycle() {
    for krate in [RTL_GEN, SIM] {
        assert_eq!(cycle(&documented_rules(krate.heading)), None, "a cycle in the documented import rules of {}", krate.src);
    }
}

#[test]
fn the_cycle_finder_finds_a_back_edge() {
    let mut rules = parse_rules("rules\n- `a`, `b`, `c`, `d`, `e`, `f`, `g`, `h`: leaves\n- `i` (above): `a`\n- `j`: `i`, `a`\n- `k`: `j`\n");
    assert_eq!(cycle(&rules), None);
    rules.get_mut("i").expect("i").insert("k".into());
    assert_eq!(cycle(&rules), Some(vec!["i".to_string(), "k".into(), "j".into()]));
}

#[test]
fn the_checker_sees_an_import_and_skips_comments_and_tests() {
    let text = "use crate::hw::verilog::Expr;\n/// see [`crate::blocks::Block`]\nlet x = crate::math::gf2::BitVec::zeros(1); // crate::config\n#[cfg(test)]\nmod tests { use crate::config::Design; }\n";
    assert_eq!(imports(text, &BTreeMap::new()), ["hw", "math"].iter().map(|s| s.to_string()).collect());
}

#[test]
fn the_checker_reads_groups_and_the_roots_reexports() {
    let lib = "//! The crate.\n\nmod bench;\npub mod manifest;\npub use bench::Bench;\npub use manifest::{Dir, Tree as T};\npub use rtl_gen::bits::Bits;\n";
    let text = "use crate::{\n    cosim::{self, Tally},\n    Bench, Bits,\n    T,\n};\nlet g = crate::GENERATOR;\n";
    assert_eq!(imports(text, &reexports(lib)), ["bench", "cosim", "manifest"].iter().map(|s| s.to_string()).collect());
}
