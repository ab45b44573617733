//! `rtl-gen list`

use super::CmdResult;
use rtl_gen::blocks::KINDS;
use rtl_gen::fields::FieldDefault;

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> CmdResult {
    println!("Design file: [design] name, prefix (default \"<name>_\"), reset (\"sync_high\" → rst | \"async_low\" → rst_n), clock_mhz (1..=2000, default 250),");
    println!("  header_template (optional: a Tera template file, relative to the design file, rendered as your own header above the banner of every file; variables {})", rtl_gen::header::VARIABLES);
    println!("Then one [[blocks]] table per block with `kind`, `name` (lower snake case), optionally `reset` (the block's own style, default the design's) and the kind's fields:\n");
    for k in KINDS {
        println!("{} — {}", k.kind(), k.summary());
        let w = k.fields().iter().map(|f| f.name.len()).max().unwrap_or(0);
        for f in k.fields() {
            let default = match f.default_value() {
                FieldDefault::Required => "required".to_string(),
                FieldDefault::Value(d) => format!("default {d}"),
                FieldDefault::Derived(from) => format!("derived from {from}"),
            };
            println!("  {:<w$}  {} ({}; allowed {})", f.name, f.doc, default, f.allowed());
        }
        println!();
    }
    Ok(std::process::ExitCode::SUCCESS)
}
