//! The block-kind pages of the reference (`docs/reference/kinds/<kind>.md` and their index),
//! written from the same field definitions that parse design files and that `rtl-gen list`
//! prints, and from the elaborated default design (which modules a block of the kind emits, their
//! roles and latencies, linked to the module pages of `generated/docs/`). A test compares the
//! committed pages with these, so a page cannot fall behind the code.

use crate::blocks::{BlockKind, KINDS};
use crate::elab::Elaborated;
use crate::fields::FieldDefault;

/// Where the pages live, relative to the repository root.
pub const DIR: &str = "docs/reference/kinds";

/// From a page in [`DIR`] to the repository root.
const TO_ROOT: &str = "../../..";

/// `(file name in DIR, text)` of every kind's page and the index (`README.md`).
pub fn kind_pages(default: &Elaborated) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = KINDS.iter().map(|k| (format!("{}.md", k.kind()), kind_page(*k, default))).collect();
    out.push(("README.md".to_string(), index()));
    out
}

fn index() -> String {
    let mut s = String::from("# Block kinds\n\n");
    s.push_str(&format!("Generated from the field definitions (the ones `rtl-gen list` prints and design files are\nchecked against); do not edit. A design file holds one `[design]` table and one `[[blocks]]`\ntable per block, with `kind`, `name` (lower snake case) and the kind's fields. Every block may\nalso set `reset`: {} (default: the `[design]` table's `reset`, itself `\"sync_high\"` by\ndefault); the block's modules and every module it instantiates take that style.\n\n", crate::info::ResetStyle::ALLOWED));
    s.push_str("| kind | what it is |\n|---|---|\n");
    for k in KINDS {
        s.push_str(&format!("| [`{0}`]({0}.md) | {1} |\n", k.kind(), cell(k.summary())));
    }
    s
}

/// Text for a table cell: `|` escaped, line breaks folded.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn kind_page(k: &dyn BlockKind, default: &Elaborated) -> String {
    let mut s = format!("# `{}`\n\n{}\n\n", k.kind(), k.summary());
    s.push_str("Generated from the kind's field definitions and the default design; do not edit.\n\n## Fields\n\n");
    s.push_str("| field | meaning | when not given | allowed |\n|---|---|---|---|\n");
    for f in k.fields() {
        let default = match f.default_value() {
            FieldDefault::Required => "required".to_string(),
            FieldDefault::Value(d) => format!("`{d}`"),
            FieldDefault::Derived(from) => format!("derived from {from}"),
        };
        s.push_str(&format!("| `{}` | {} | {} | {} |\n", f.name, cell(f.doc), cell(&default), cell(&f.allowed())));
    }
    s.push_str("\n## Modules\n\n");
    let blocks: Vec<usize> = default.design.blocks.iter().enumerate().filter(|(_, b)| b.kind() == k.kind()).map(|(i, _)| i).collect();
    if blocks.is_empty() {
        s.push_str("The default design has no block of this kind; generating a design with one writes the pages\nof its modules (ports, bit layouts, latency) into the tree's `docs/` folder.\n");
        return s;
    }
    s.push_str("The modules the default design's blocks of this kind emit, with their pages (ports, bit\nlayouts, latency) in `generated/docs/`. A module shared with an earlier block is listed under\nevery block that uses it.\n\n");
    s.push_str("| block | module | role | latency (cycles) |\n|---|---|---|---|\n");
    for bi in blocks {
        let block = default.design.blocks[bi].name();
        for m in default.modules.iter().filter(|m| m.block == bi || m.shared_by.contains(&bi)) {
            s.push_str(&format!("| `{block}` | [`{0}`]({TO_ROOT}/generated/docs/{0}.md) | {1} | {2} |\n", m.name(), m.role, m.latency));
        }
    }
    s
}
