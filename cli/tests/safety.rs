//! The `rtl-gen` binary on trees and inputs a careless or hostile user hands it: `generate`
//! never deletes or writes a file it does not own (foreign files, symbolic links, the design
//! file inside its own output folder), a crafted `manifest.json` never reaches a tool as a
//! command, header templates are bounded, and every campaign option refuses a value past its
//! range with the range in the error and in `--help`.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::workspace;

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtl-gen")).args(args).current_dir(dir).env("CARGO_TARGET_DIR", workspace().join("target")).output().expect("run rtl-gen")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr of a run that must fail with status 2, an `error:` line and no panic.
fn fails(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "status {:?}, stdout:\n{}\nstderr:\n{err}", o.status, stdout(o));
    assert!(!err.contains("panicked") && err.contains("error"), "{err}");
    err
}

fn succeeds(o: &Output) -> String {
    assert!(o.status.success(), "status {:?}\nstdout:\n{}\nstderr:\n{}", o.status, stdout(o), String::from_utf8_lossy(&o.stderr));
    stdout(o)
}

fn design(name: &str, block: &str) -> String {
    format!("[design]\nname = \"{name}\"\n\n[[blocks]]\nkind = \"crc\"\nname = \"{block}\"\nwidth = 8\npoly = 0x07\ndata_bits = 16\n")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("folders");
    std::fs::write(path, text).expect("write");
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Plain `rtl-gen generate` in a project whose `constraints/` holds the team's own files: they
/// stay, are named in a warning, and a second run still leaves them.
#[test]
fn generate_leaves_foreign_files_in_the_constraints_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let board = dir.path().join("constraints/board/my_board.xdc");
    write(&board, "set_property PACKAGE_PIN E3 [get_ports clk]\n");
    write(&dir.path().join("constraints/pins.xdc"), "# the team's pins\n");
    write(&dir.path().join("generated/rtl/hand_written.v"), "module hand_written; endmodule\n");
    for _ in 0..2 {
        let out = run(dir.path(), &["generate"]);
        succeeds(&out);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!stdout(&out).lines().any(|l| l.starts_with("removed")), "{}", stdout(&out));
        assert!(err.contains("not written by the generator") && err.contains("my_board.xdc") && err.contains("pins.xdc") && err.contains("hand_written.v"), "{err}");
    }
    assert_eq!(read(&board), "set_property PACKAGE_PIN E3 [get_ports clk]\n");
    assert_eq!(read(&dir.path().join("constraints/pins.xdc")), "# the team's pins\n");
    assert!(dir.path().join("generated/rtl/hand_written.v").is_file());
    assert!(dir.path().join("constraints/rtlgen.xdc").is_file());
    // `check` notes the foreign files without failing on them.
    let check = run(dir.path(), &["check"]);
    succeeds(&check);
    assert!(String::from_utf8_lossy(&check.stderr).contains("note: not written by the generator"), "{}", String::from_utf8_lossy(&check.stderr));
}

/// A design whose blocks change: the files of the old block that the previous manifest lists
/// and nobody edited are removed; an edited one and every foreign file stay.
#[test]
fn generate_removes_only_its_own_unedited_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let toml = dir.path().join("d.toml");
    write(&toml, &design("d", "old"));
    succeeds(&run(dir.path(), &["generate", "d.toml", "--out", "out"]));
    let root = dir.path().join("out/d");
    let edited = root.join("docs/d_old_check.md");
    std::fs::write(&edited, read(&edited) + "my notes\n").expect("edit");
    write(&root.join("constraints/board/my_board.xdc"), "board\n");
    write(&root.join("notes.txt"), "notes\n");

    write(&toml, &design("d", "new"));
    let out = run(dir.path(), &["generate", "d.toml", "--out", "out"]);
    let text = succeeds(&out);
    for gone in ["rtl/d_old.v", "rtl/d_old_check.v", "docs/d_old.md"] {
        assert!(text.contains(&format!("removed out/d/{gone}")), "{gone}:\n{text}");
        assert!(!root.join(gone).exists(), "{gone}");
    }
    assert!(edited.is_file() && read(&edited).ends_with("my notes\n"), "an edited file stays");
    assert_eq!(read(&root.join("constraints/board/my_board.xdc")), "board\n");
    assert_eq!(read(&root.join("notes.txt")), "notes\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("d_old_check.md") && err.contains("my_board.xdc") && err.contains("notes.txt"), "{err}");
}

/// The design file (or its header template) inside the folder `generate` writes: refused,
/// nothing written, nothing deleted.
#[test]
fn design_file_or_template_inside_the_output_folder_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let toml = dir.path().join("out/d/design.toml");
    write(&toml, &design("d", "crc8"));
    let err = fails(&run(dir.path(), &["generate", "out/d/design.toml", "--out", "out"]));
    assert!(err.contains("holds the design file out/d/design.toml"), "{err}");
    assert!(toml.is_file() && !dir.path().join("out/d/rtl").exists());

    // The template in the tree's constraints folder, the design beside it: refused as well.
    write(&dir.path().join("t.toml"), &design("t", "crc8").replace("[design]\n", "[design]\nheader_template = \"out/t/constraints/legal.tera\"\n"));
    let template = dir.path().join("out/t/constraints/legal.tera");
    write(&template, "(c) ACME\n");
    let err = fails(&run(dir.path(), &["generate", "t.toml", "--out", "out"]));
    assert!(err.contains("holds the header template out/t/constraints/legal.tera"), "{err}");
    assert_eq!(read(&template), "(c) ACME\n");
}

/// Symbolic links inside the tree: a link at a generated file's path is replaced (its target
/// untouched); a linked folder the generator must write into is refused before anything is
/// written; a linked folder holding a file the old manifest lists is not deleted through.
#[test]
fn symbolic_links_are_never_followed_out_of_the_tree() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(&dir.path().join("d.toml"), &design("d", "crc8"));
    succeeds(&run(dir.path(), &["generate", "d.toml", "--out", "out"]));
    let root = dir.path().join("out/d");
    let outside = dir.path().join("outside");
    write(&outside.join("victim.v"), "the user's own file\n");

    // A generated file's path is a link to a file outside: replaced by the file.
    let module = root.join("rtl/d_crc8.v");
    let fresh = read(&module);
    std::fs::remove_file(&module).expect("remove");
    std::os::unix::fs::symlink(outside.join("victim.v"), &module).expect("link");
    let text = succeeds(&run(dir.path(), &["generate", "d.toml", "--out", "out"]));
    assert!(text.contains("replaced the symbolic link"), "{text}");
    assert_eq!(read(&outside.join("victim.v")), "the user's own file\n");
    assert!(!std::fs::symlink_metadata(&module).expect("exists").file_type().is_symlink());
    assert_eq!(read(&module), fresh);

    // The docs folder is a link to a folder outside holding a file of a generated doc's name.
    write(&outside.join("docs/d_crc8.md"), "outside doc\n");
    std::fs::remove_dir_all(root.join("docs")).expect("remove docs");
    std::os::unix::fs::symlink(outside.join("docs"), root.join("docs")).expect("link");
    let err = fails(&run(dir.path(), &["generate", "d.toml", "--out", "out"]));
    assert!(err.contains("is a symbolic link inside the output folder"), "{err}");
    assert_eq!(read(&outside.join("docs/d_crc8.md")), "outside doc\n");
    std::fs::remove_file(root.join("docs")).expect("unlink");
    succeeds(&run(dir.path(), &["generate", "d.toml", "--out", "out"]));

    // The manifest lists a demo file (and a path outside the tree) with the hashes of files
    // outside; `demo` is a link to them. Neither is deleted.
    write(&outside.join("demo/d_x_demo.v"), "outside demo\n");
    std::os::unix::fs::symlink(outside.join("demo"), root.join("demo")).expect("link");
    let sha = |text: &str| rtl_gen::output::tree::sha256_hex(text.as_bytes());
    let manifest_path = root.join("manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_str(&read(&manifest_path)).expect("json");
    let files = manifest["files"].as_array_mut().expect("files");
    files.push(serde_json::json!({"path": "demo/d_x_demo.v", "sha256": sha("outside demo\n")}));
    files.push(serde_json::json!({"path": "../../outside/victim.v", "sha256": sha("the user's own file\n")}));
    files.push(serde_json::json!({"path": "rtl/../../../outside/victim.v", "sha256": sha("the user's own file\n")}));
    std::fs::write(&manifest_path, serde_json::to_string_pretty(&manifest).expect("json")).expect("write");
    succeeds(&run(dir.path(), &["generate", "d.toml", "--out", "out"]));
    assert_eq!(read(&outside.join("demo/d_x_demo.v")), "outside demo\n");
    assert_eq!(read(&outside.join("victim.v")), "the user's own file\n");
}

/// Hostile manifests: names and paths that would run `touch` if pasted into a Yosys, Tcl or
/// shell command, or reach outside the tree. Every subcommand that reads a manifest refuses
/// each before any tool runs, naming the field.
#[test]
fn hostile_manifests_are_refused_by_every_subcommand() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(&dir.path().join("d.toml"), &design("d", "crc8"));
    succeeds(&run(dir.path(), &["generate", "d.toml", "--out", "out"]));
    let tree = dir.path().join("out/d");
    let clean: serde_json::Value = serde_json::from_str(&read(&tree.join("manifest.json"))).expect("json");
    let pwned = dir.path().join("PWNED");
    // (field, hostile value, what the error names)
    let cases: &[(&str, serde_json::Value, &str)] = &[
        ("file", "rtl/d_crc8.v; exec -- touch PWNED;".into(), "file"),
        ("file", "rtl/d_crc8.v\"; exec -- touch PWNED; \"".into(), "file"),
        ("file", "rtl/[exec touch PWNED].v".into(), "file"),
        ("file", "rtl/$(touch PWNED).v".into(), "file"),
        ("file", "../../d.toml".into(), "file"),
        ("file", "/etc/passwd".into(), "file"),
        ("file", "rtl/-Wno-fatal.v".into(), "file"),
        ("file", "+define+X.v".into(), "file"),
        ("name", "d_crc8; exec -- touch PWNED".into(), "name"),
        ("name", "d_crc8[exec touch PWNED]".into(), "name"),
        ("depends", serde_json::json!(["x; exec -- touch PWNED"]), "depends"),
        ("clock", "clk; exec -- touch PWNED".into(), "clock"),
    ];
    let tree_arg = tree.display().to_string();
    for (field, value, named) in cases {
        let mut m = clean.clone();
        m["modules"][0][*field] = value.clone();
        std::fs::write(tree.join("manifest.json"), serde_json::to_string_pretty(&m).expect("json")).expect("write");
        // synth/report/fpga stop at the manifest; fpga is asked for synthesis only at most.
        for args in [
            vec!["lint", tree_arg.as_str()],
            vec!["synth", tree_arg.as_str(), "-j", "1"],
            vec!["report", tree_arg.as_str(), "-j", "1"],
            vec!["fpga", tree_arg.as_str(), "--pnr-timeout", "1", "--work", "fpga-work", "--json", "fpga.json"],
            vec!["sim", "cosim", "--tree", tree_arg.as_str(), "--vectors", "10"],
        ] {
            let out = run(dir.path(), &args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_ne!(out.status.code(), Some(0), "{args:?} with {field} = {value}: accepted\n{err}");
            assert!(!err.contains("panicked"), "{err}");
            // The tools' runner names the field; the simulator refuses the module (and may
            // still test the other one).
            if args[0] != "sim" {
                assert!(err.contains(named) && err.contains("manifest"), "{args:?} with {field} = {value}:\n{err}");
            }
            assert!(!pwned.exists() && !tree.join("PWNED").exists(), "{args:?} with {field} = {value} ran a command");
        }
    }
}

/// Header templates that would recurse, allocate, block or inject: each a clean error naming
/// the template, in seconds; a bare CR cannot end the `#` comment of the `.core`.
#[test]
fn header_template_abuse_is_bounded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let toml = design("h", "crc8").replace("[design]\n", "[design]\nheader_template = \"h.tera\"\n");
    write(&dir.path().join("h.toml"), &toml);
    let template = dir.path().join("h.tera");
    let abuse: &[(&str, String, &str)] = &[
        ("self-include", "{% include \"header\" %}".into(), "`include` is not available"),
        ("recursive macro", "{% macro m() %}{{ self::m() }}{% endmacro m %}{{ self::m() }}".into(), "macros"),
        ("huge range", "{% for i in range(end=200000000) %}x{% endfor %}".into(), "at most 1000"),
        ("doubling variable", "{% set s = \"x\" %}{% for i in range(end=64) %}{% set_global s = s ~ s %}{% endfor %}{{ s }}".into(), "`set` is not available"),
        ("oversize output", format!("{{% for i in range(end=1000) %}}{}\n{{% endfor %}}", "y".repeat(100)), "exceeds 65536 bytes"),
        ("oversize template", "z".repeat(70_000), "at most 65536"),
        ("deep nesting", "{% if true %}".repeat(100) + &"{% endif %}".repeat(100), "nested more than 64"),
        ("vertical tab", "a\u{b}b".into(), "control character U+000B"),
        ("YAML line break", "a\u{2028}injected: 1".into(), "U+2028"),
        ("slow", "{% for i in range(end=1000) %}{% for j in range(end=1000) %}{% for k in range(end=1000) %}{% endfor %}{% endfor %}{% endfor %}".into(), "longer than 5 s"),
    ];
    for (what, text, expect) in abuse {
        std::fs::write(&template, text).expect("template");
        let start = std::time::Instant::now();
        let err = fails(&run(dir.path(), &["generate", "h.toml", "--out", "out"]));
        assert!(err.contains("h.tera") && err.contains(expect), "{what}:\n{err}");
        assert!(start.elapsed().as_secs() < 30, "{what} took {:?}", start.elapsed());
    }
    // Not a regular file: a FIFO (which would block a plain read forever) and /dev/zero.
    std::fs::remove_file(&template).expect("remove");
    assert!(Command::new("mkfifo").arg(&template).status().expect("mkfifo").success());
    let err = fails(&run(dir.path(), &["generate", "h.toml", "--out", "out"]));
    assert!(err.contains("h.tera is not a regular file"), "{err}");
    write(&dir.path().join("z.toml"), &toml.replace("\"h.tera\"", "\"/dev/zero\""));
    let err = fails(&run(dir.path(), &["generate", "z.toml", "--out", "out"]));
    assert!(err.contains("/dev/zero is not a regular file"), "{err}");
    assert!(!dir.path().join("out").exists(), "nothing written");

    // A bare CR (and CR LF) ends a line: every line of the header is a comment in every file.
    std::fs::remove_file(&template).expect("remove");
    std::fs::write(&template, "(c) ACME\rinjected: 1\r\nclass: x\n").expect("template");
    succeeds(&run(dir.path(), &["generate", "h.toml", "--out", "out"]));
    let core = read(&dir.path().join("out/h/h.core"));
    assert!(!core.contains('\r') && core.starts_with("CAPI=2:\n# (c) ACME\n# injected: 1\n# class: x\n"), "{core}");
    assert!(core.lines().all(|l| !l.starts_with("injected")), "{core}");
    let v = read(&dir.path().join("out/h/rtl/h_crc8.v"));
    assert!(v.starts_with("// (c) ACME\n// injected: 1\n// class: x\n"), "{v}");
}

/// Each bounded option past its bound: status 2, the range in the error and in `--help`.
#[test]
fn campaign_options_past_their_bounds_name_the_range() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases: &[(&[&str], &str, &str)] = &[
        (&["sim", "genz", "--impl", "model", "--cable-m", "1000.5"], "--cable-m", "0..=1000"),
        (&["sim", "genz", "--impl", "model", "--cable-m", "1e18"], "--cable-m", "0..=1000"),
        (&["sim", "genz", "--impl", "model", "--cycle-ns", "0.05"], "--cycle-ns", "0.1..=100"),
        (&["sim", "genz", "--impl", "model", "--cycles", "1000000001"], "--cycles", "1..=10^9"),
        (&["sim", "genz", "--impl", "model", "--burst-bits", "2049"], "--burst-bits", "1..=2048"),
        (&["sim", "genz", "--compare", "--line-gbps", "10001"], "--line-gbps", "0.001..=10000"),
        (&["sim", "genz", "--compare", "--line-us", "0.5"], "--line-us", "1..=1e7"),
        (&["sim", "genz", "--figures", "--sizes", "264"], "--sizes", "8..=256"),
        (&["sim", "genz", "--figures", "--cables", "10001"], "--cables", "0..=10000"),
        (&["sim", "genz", "--figures", "--occupancy-cables", "-1"], "--occupancy-cables", "0..=10000"),
        (&["sim", "rxl", "--impl", "model", "--flits", "1199"], "--flits", "1200..=10^12"),
        (&["sim", "rxl", "--ber", "-1"], "--ber", "0..=1"),
    ];
    for (args, option, range) in cases {
        let err = fails(&run(dir.path(), args));
        let allowed = range.replace("10^9", "1000000000").replace("10^12", "1000000000000").replace("1e7", "10000000");
        assert!(err.contains(option) && (err.contains(range) || err.contains(&allowed)), "{args:?}:\n{err}");
        let help = stdout(&run(dir.path(), &[args[0], args[1], "--help"]));
        assert!(help.contains(range), "{} --help lacks {range}:\n{help}", args[1]);
    }
    // Negative values are values: the option's range check answers, not "unexpected argument".
    let err = fails(&run(dir.path(), &["sim", "rxl", "--ber", "-1"]));
    assert!(err.contains("-1 is out of range; allowed 0..=1") && !err.contains("unexpected argument"), "{err}");
}

/// At the bound the run goes through: the longest cable and the shortest period of the
/// single-link run.
#[test]
fn genz_link_runs_at_its_bounds() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The default block's LLR timer is 4096 cycles at 1 ns: at most 4096 - 256 = 3840 cycles
    // each way, 768 m; clean there with bit errors, bursts and drops.
    let out = succeeds(&run(dir.path(), &["sim", "genz", "--impl", "model", "--cable-m", "768", "--ber", "1e-5", "--burst", "1e-4", "--drop", "1e-4", "--cycles", "20000"]));
    assert!(out.contains("delay 3840 cycles (768 m)") && out.contains("scoreboard errors 0, missing 0"), "{out}");
    let err = fails(&run(dir.path(), &["sim", "genz", "--impl", "model", "--cable-m", "768.1", "--ber", "0"]));
    assert!(err.contains("LLR timer of 4096 cycles") && err.contains("allowed at most 768.0 m at this period"), "{err}");
    // The shortest period at the longest cable the option allows: refused for the same reason.
    let err = fails(&run(dir.path(), &["sim", "genz", "--impl", "model", "--cable-m", "1000", "--cycle-ns", "0.1"]));
    assert!(err.contains("allowed at most 76.8 m at this period"), "{err}");
}

/// A run too short to measure the bandwidth loss is refused with the minimum; at the minimum
/// the loss of a fault-free run is 0, not 100 %.
#[test]
fn rxl_short_runs_are_refused_and_the_minimum_measures() {
    let dir = tempfile::tempdir().expect("temp dir");
    let err = fails(&run(dir.path(), &["sim", "rxl", "--impl", "model", "--flits", "2000", "--segments", "2"]));
    assert!(err.contains("1000 link cycles per segment") && err.contains("at least 1200"), "{err}");
    let out = succeeds(&run(dir.path(), &["sim", "rxl", "--impl", "model", "--flits", "1200"]));
    let row = out.lines().find(|l| l.contains("| rxl ") && l.contains('%')).unwrap_or_else(|| panic!("a result row:\n{out}"));
    assert!(row.contains("| 0.0000 %"), "{row}\n{out}");
}

#[test]
fn recxl_lu_field_set_by_the_campaign_and_merge_of_a_folder_say_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let err = fails(&run(dir.path(), &["sim", "recxl", "--lu", "sram_rows=4"]));
    assert!(err.contains("the campaign sets `sram_rows` itself") && !err.contains("duplicate key"), "{err}");
    let err = fails(&run(dir.path(), &["sim", "recxl", "--lu", "free_lag=0\n[design]"]));
    assert!(err.contains("is not a value"), "{err}");
    std::fs::create_dir(dir.path().join("shards")).expect("folder");
    let err = fails(&run(dir.path(), &["sim", "merge", "shards"]));
    assert!(err.contains("shards: is a folder, not a result file") && err.contains("shards/*.json"), "{err}");
}
