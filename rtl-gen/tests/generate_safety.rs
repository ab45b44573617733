//! Property: writing random designs, one after another, into an output folder seeded with
//! foreign files and symbolic links (to files and folders outside, and at a generated file's
//! path) changes nothing but the generator's own files. Everything outside the tree, every
//! foreign file and every link other than one at a generated path is byte-identical afterwards,
//! and the tree's regular files are exactly the generator's plus the foreign ones.
//!
//! Four cases by default (seconds); `RTLGEN_LONG=1` runs 200.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A random valid design: 1..=3 CRC blocks of random geometry, random names.
fn random_design(rng: &mut StdRng) -> String {
    let name = |rng: &mut StdRng| -> String { (0..rng.random_range(1..=6)).map(|_| rng.random_range(b'a'..=b'z') as char).collect() };
    let mut text = format!("[design]\nname = \"d{}\"\n", name(rng));
    let polys = [(8, "0x07"), (16, "0x1021"), (32, "0x04C11DB7"), (5, "0x05"), (12, "0x80F")];
    let mut used = Vec::new();
    for _ in 0..rng.random_range(1..=3) {
        let b = format!("b{}", name(rng));
        if used.contains(&b) {
            continue;
        }
        let (width, poly) = polys[rng.random_range(0..polys.len())];
        let data_bits = [8, 16, 32, 64][rng.random_range(0..4)];
        let checker = rng.random_bool(0.5);
        text += &format!("\n[[blocks]]\nkind = \"crc\"\nname = \"{b}\"\nwidth = {width}\npoly = {poly}\ndata_bits = {data_bits}\nchecker = {checker}\n");
        used.push(b);
    }
    text
}

/// Every entry under `dir` (not following links): path → file bytes, or the link's target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (bool, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries {
            let p = e.expect("entry").path();
            let meta = std::fs::symlink_metadata(&p).expect("metadata");
            if meta.file_type().is_symlink() {
                out.insert(p.clone(), (true, std::fs::read_link(&p).expect("link").into_os_string().into_encoded_bytes()));
            } else if meta.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), (false, std::fs::read(&p).expect("read")));
            }
        }
    }
    out
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("folder")).expect("folders");
    std::fs::write(path, bytes).expect("write");
}

fn one_case(seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().expect("temp dir");
    let outside = dir.path().join("outside");
    write(&outside.join("victim.v"), b"module victim; endmodule\n");
    write(&outside.join("sub/keep.md"), b"outside doc\n");
    let out = dir.path().join("out");
    let texts: Vec<String> = (0..3).map(|_| random_design(&mut rng)).collect();
    let parse = |t: &str| Design::parse(t, "random design").expect("a valid random design");
    let designs: Vec<Design> = texts.iter().map(|t| parse(t)).collect();

    // Seed every design's tree folder with foreign files and links before the first write.
    let mut link_at_generated = Vec::new();
    for d in &designs {
        let root = out.join(&d.info.name);
        for f in ["rtl/hand.v", "docs/notes.md", "constraints/board/my_board.xdc", "constraints/pins.xdc", "README.txt", "demo/x.v"] {
            write(&root.join(f), format!("foreign {f} {seed}\n").as_bytes());
        }
        std::fs::create_dir_all(root.join("rtl")).expect("rtl");
        std::os::unix::fs::symlink(&outside, root.join("rtl/linked_folder")).expect("link");
        std::os::unix::fs::symlink(outside.join("victim.v"), root.join("rtl/linked_file.v")).expect("link");
        std::os::unix::fs::symlink(outside.join("sub"), root.join("constraints/linked_sub")).expect("link");
        // A link at the path of the design's first module: replaced, its target untouched.
        let first = format!("rtl/{}_{}.v", d.info.name, d.blocks[0].name());
        if !root.join(&first).exists() {
            std::os::unix::fs::symlink(outside.join("victim.v"), root.join(&first)).expect("link");
            link_at_generated.push(root.join(first));
        }
    }
    let outside_before = snapshot(&outside);
    let foreign_before: BTreeMap<PathBuf, (bool, Vec<u8>)> = snapshot(&out).into_iter().filter(|(p, _)| !link_at_generated.contains(p)).collect();

    // Each design written, then the next (same names may repeat: a tree rewritten with other
    // blocks removes the old generator files only).
    for (i, d) in designs.iter().enumerate() {
        let elab = parse(&texts[i]).elaborate();
        let set = tree::try_build(&elab, Layout::for_design_file(&out, d)).expect("builds");
        set.write().unwrap_or_else(|e| panic!("seed {seed}, design {i}: {e}"));
        assert_eq!(snapshot(&outside), outside_before, "seed {seed}, design {i}: a file outside the tree changed");
        let now = snapshot(&out);
        for (p, v) in &foreign_before {
            assert_eq!(now.get(p), Some(v), "seed {seed}, design {i}: foreign {} changed or vanished", p.display());
        }
        for (p, bytes) in &set.files {
            assert_eq!(now.get(p), Some(&(false, bytes.clone())), "seed {seed}, design {i}: {} is not the generated file", p.display());
        }
        // Nothing else in this design's tree: generator files and foreign entries only.
        for p in now.keys().filter(|p| p.starts_with(&set.layout.root)) {
            assert!(set.files.contains_key(p) || foreign_before.contains_key(p), "seed {seed}, design {i}: unexpected {}", p.display());
        }
        assert!(set.check().expect("check").iter().all(|s| !s.is_stale()), "seed {seed}, design {i}: not fresh after write");
    }
}

/// Four random cases by default, 200 with `RTLGEN_LONG=1`.
#[test]
fn generate_changes_nothing_but_its_own_files() {
    let cases = if std::env::var("RTLGEN_LONG").is_ok_and(|v| v == "1") { 200 } else { 4 };
    for seed in 0..cases {
        one_case(seed);
    }
}
