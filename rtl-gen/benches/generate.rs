//! Generator speed: building every file of the built-in default design in memory (matrices,
//! networks, templates, manifest). Not a test: `cargo bench -p rtl-gen --bench generate`.

use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use std::path::Path;
use std::time::Instant;

fn main() {
    let runs = 5;
    let mut best = f64::MAX;
    let mut files = 0;
    let mut bytes = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let set = tree::build(&Design::builtin_default().elaborate(), Layout::default_design(Path::new("bench")));
        best = best.min(start.elapsed().as_secs_f64());
        files = set.files.len();
        bytes = set.files.values().map(Vec::len).sum::<usize>();
    }
    println!("default design: {files} files, {:.1} MB, generated in {:.3} s (best of {runs})", bytes as f64 / 1e6, best);
}
