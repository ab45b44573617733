//! The import rules of ARCHITECTURE.md hold in the code: every `crate::<module>` path in
//! `rtl-gen/src` outside test modules and comments names a module its top-level module may
//! import, and the rules themselves have no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The rule list of ARCHITECTURE.md: lines `- `a`, `b` (what): `c`, `d`` or `…: leaves`.
fn documented_rules() -> BTreeMap<String, BTreeSet<String>> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let start = doc.find("Import rules inside `rtl-gen`").expect("the import rules section");
    let mut rules = BTreeMap::new();
    for line in doc[start..].lines().skip(1).skip_while(|l| !l.starts_with("- ")).take_while(|l| l.starts_with("- ")) {
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

/// `crate::<module>` paths of a file's code: comments and everything from the test module on
/// (`#[cfg(test)]`, which the crate keeps at the end of a file) left out.
fn imports(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at + 7..];
            let name: String = tail.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            // Items of the crate root (`crate::GENERATOR`) are not modules.
            if name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
                out.insert(name);
            }
            rest = tail;
        }
    }
    out
}

#[test]
fn every_import_is_one_the_architecture_allows() {
    let rules = documented_rules();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
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
        for m in imports(&std::fs::read_to_string(f).expect("read")) {
            if m != top && !allowed.contains(&m) {
                bad.push(format!("{}: `{top}` imports `crate::{m}`, which ARCHITECTURE.md does not allow (allowed: {allowed:?})", rel.display()));
            }
        }
    }
    assert!(bad.is_empty(), "imports against the documented layers:\n{}", bad.join("\n"));
}

#[test]
fn the_documented_rules_have_no_cycle() {
    let rules = documented_rules();
    // Depth-first search for a back edge.
    fn visit(m: &str, rules: &BTreeMap<String, BTreeSet<String>>, path: &mut Vec<String>, done: &mut BTreeSet<String>) -> Option<Vec<String>> {
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
    for m in rules.keys() {
        let mut path = Vec::new();
        assert_eq!(visit(m, &rules, &mut path, &mut done), None, "a cycle in the documented import rules");
    }
}

#[test]
fn the_checker_sees_an_import_and_skips_comments_and_tests() {
    let text = "use crate::hw::verilog::Expr;\n/// see [`crate::blocks::Block`]\nlet x = crate::math::gf2::BitVec::zeros(1); // crate::config\n#[cfg(test)]\nmod tests { use crate::config::Design; }\n";
    assert_eq!(imports(text), ["hw", "math"].iter().map(|s| s.to_string()).collect());
}
