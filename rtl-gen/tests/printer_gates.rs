//! What a reviewer expects of every emitted Verilog file, checked on the text of every `.v` file
//! of the default design (elaborated in-process, no EDA tool needed): every signal declared
//! before its first use, no AND/OR with a constant all-zeros or all-ones operand, no replication
//! of a constant (`{16{1'd0}}` is `16'd0`), no identity wire (`assign a = b;` between two
//! internal signals), and no value written bare that the file names with a `localparam` for the
//! same signal (`link <= 2'd0` where `link <= LINK_UP` and `LINK_DOWN = 2'd0` exist). The
//! Verilator `-Wall` lint of the same files is in `eda_gates.rs`.

use rtl_gen::config::Design;
use rtl_gen::output::tree::{self, Layout};
use std::collections::HashMap;

/// Every `.v` file of the default tree: (file name, text).
fn default_verilog() -> Vec<(String, String)> {
    let layout = Layout::default_design(std::path::Path::new("/nonexistent"));
    let files = tree::build(&Design::builtin_default().elaborate(), layout).files;
    let out: Vec<(String, String)> = files
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "v"))
        .map(|(p, bytes)| (p.file_name().expect("file").to_string_lossy().into_owned(), String::from_utf8(bytes).expect("utf-8")))
        .collect();
    assert!(out.len() > 40, "the default tree has its modules ({} files)", out.len());
    out
}

/// A line without its `//` comment.
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    /// A sized literal: whether all its bits are 0, whether all are 1, its width and its value
    /// (when it fits 128 bits).
    Num { zero: bool, ones: bool, width: u32, value: Option<u128> },
    Op(String),
}

fn literal(text: &str) -> Tok {
    let (w, rest) = text.split_once('\'').expect("sized literal");
    let width: u32 = w.parse().expect("width");
    let (base, digits) = rest.split_at(1);
    let digits: String = digits.chars().filter(|c| *c != '_').collect();
    let zero = digits.chars().all(|c| c == '0');
    let ones = match base {
        "h" | "H" => {
            // All ones: exactly ⌈width/4⌉ digits, the top one holding the remaining bits.
            let top = width - 4 * (digits.len() as u32 - 1).min(width / 4);
            let head = u32::from_str_radix(&digits[..1], 16).unwrap_or(0);
            digits.len() as u32 == width.div_ceil(4) && digits[1..].chars().all(|c| c == 'f' || c == 'F') && head == (1 << top.min(4)) - 1
        }
        "b" | "B" => digits.len() as u32 == width && digits.chars().all(|c| c == '1'),
        _ => width <= 64 && digits.parse::<u128>().is_ok_and(|v| v == (1u128 << width) - 1),
    };
    let radix = match base {
        "h" | "H" => 16,
        "b" | "B" => 2,
        "o" | "O" => 8,
        _ => 10,
    };
    Tok::Num { zero, ones, width, value: u128::from_str_radix(&digits, radix).ok() }
}

fn tokens(line: &str) -> Vec<Tok> {
    let b: Vec<char> = code(line).chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '\'' || b[i] == '_') {
                i += 1;
            }
            let t: String = b[start..i].iter().collect();
            out.push(if t.contains('\'') { literal(&t) } else { Tok::Name(t) });
        } else if c.is_alphabetic() || c == '_' || c == '.' {
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(Tok::Name(b[start..i].iter().collect()));
        } else {
            let two: String = b[i..(i + 2).min(b.len())].iter().collect();
            if ["&&", "||", "==", "!=", "<=", ">=", "~^", "~|", "~&"].contains(&two.as_str()) {
                out.push(Tok::Op(two));
                i += 2;
            } else {
                out.push(Tok::Op(c.to_string()));
                i += 1;
            }
        }
    }
    out
}

fn ends_operand(t: Option<&Tok>) -> bool {
    match t {
        Some(Tok::Name(_)) | Some(Tok::Num { .. }) => true,
        Some(Tok::Op(o)) => o == ")" || o == "]" || o == "}",
        None => false,
    }
}

fn is_op(t: Option<&Tok>, ops: &[&str]) -> bool {
    matches!(t, Some(Tok::Op(o)) if ops.contains(&o.as_str()))
}

/// Whether some all-zeros or all-ones literal of the line is a whole operand of a binary `&`
/// or `|` (`x & 1'd0`, `x & (~1'd0)`, `1'd1 & y`); comparisons (`(a != 4'd0) & b`) and masks
/// of other values are fine.
fn constant_and_or(line: &str) -> bool {
    let t = tokens(line);
    let binary = |i: usize| is_op(t.get(i), &["&", "|"]) && i > 0 && ends_operand(t.get(i - 1));
    for (i, tok) in t.iter().enumerate() {
        let Tok::Num { zero, ones, .. } = *tok else { continue };
        if !zero && !ones {
            continue;
        }
        // The operand around the literal: `~` and `(` before it, as many `)` after it.
        let mut l = i;
        let mut open = 0;
        while l > 0 && is_op(t.get(l - 1), &["~", "("]) {
            l -= 1;
            open += usize::from(is_op(t.get(l), &["("]));
        }
        let mut r = i + 1;
        for _ in 0..open {
            if !is_op(t.get(r), &[")"]) {
                break;
            }
            r += 1;
        }
        if r - (i + 1) != open {
            continue; // the literal is part of a larger parenthesised expression
        }
        let whole_right = l == 0 || is_op(t.get(l - 1), &["=", "(", ",", "?", ":", "{", "&", "|", "<="]);
        let whole_left = t.get(r).is_none() || is_op(t.get(r), &[";", ")", ",", "}", "?", ":", "&", "|"]);
        if (l > 0 && binary(l - 1) && whole_left) || (binary(r) && whole_right) {
            return true;
        }
    }
    false
}

/// Declared names of a file with the line of their declaration and whether they are ports.
fn declarations(text: &str) -> HashMap<String, (usize, bool)> {
    let mut out = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let t = tokens(line);
        let port = matches!(t.first(), Some(Tok::Name(k)) if k == "input" || k == "output");
        let Some(k) = t.iter().position(|x| matches!(x, Tok::Name(k) if ["wire", "reg", "localparam", "function", "integer"].contains(&k.as_str()))) else { continue };
        // The first name after the keyword that is not inside the range brackets.
        let mut depth = 0;
        for x in &t[k + 1..] {
            match x {
                Tok::Op(o) if o == "[" => depth += 1,
                Tok::Op(o) if o == "]" => depth -= 1,
                Tok::Name(name) if depth == 0 => {
                    out.entry(name.clone()).or_insert((n, port));
                    break;
                }
                _ => {}
            }
        }
    }
    out
}

fn uses_before_declaration(text: &str) -> Vec<String> {
    let decl = declarations(text);
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for t in tokens(line) {
            if let Tok::Name(name) = t {
                if decl.get(&name).is_some_and(|&(d, _)| d > n) {
                    out.push(format!("line {}: `{name}` used before its declaration on line {}", n + 1, decl[&name].0 + 1));
                }
            }
        }
    }
    out
}

fn identity_wires(text: &str) -> Vec<String> {
    let decl = declarations(text);
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if let [Tok::Name(kw), Tok::Name(a), Tok::Op(eq), Tok::Name(b), Tok::Op(semi)] = tokens(line).as_slice() {
            let internal = |s: &str| decl.get(s).is_some_and(|&(_, port)| !port);
            if kw == "assign" && eq == "=" && semi == ";" && internal(a) && decl.contains_key(b.as_str()) {
                out.push(format!("line {}: {}", n + 1, line.trim()));
            }
        }
    }
    out
}

fn constant_replications(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = tokens(line);
        // `{ N { literal } }`
        let found = t.windows(6).any(|w| is_op(w.first(), &["{"]) && matches!(&w[1], Tok::Name(n) if n.chars().all(|c| c.is_ascii_digit())) && is_op(w.get(2), &["{"]) && matches!(w[3], Tok::Num { .. }) && is_op(w.get(4), &["}"]) && is_op(w.get(5), &["}"]));
        if found {
            out.push(format!("line {}: {}", n + 1, line.trim()));
        }
    }
    out
}

/// The sized value of each `localparam` of a file, by name: (width, value).
fn localparams(text: &str) -> HashMap<String, (u32, u128)> {
    let mut out = HashMap::new();
    for line in text.lines() {
        let t = tokens(line);
        if !matches!(t.first(), Some(Tok::Name(k)) if k == "localparam") {
            continue;
        }
        let Some(eq) = t.iter().position(|x| matches!(x, Tok::Op(o) if o == "=")) else { continue };
        if let (Some(Tok::Name(name)), Some(Tok::Num { width, value: Some(v), .. })) = (t.get(eq - 1), t.get(eq + 1)) {
            out.insert(name.clone(), (*width, *v));
        }
    }
    out
}

/// Operators that set or compare a signal with a value.
const SET_OR_COMPARE: [&str; 7] = ["=", "<=", "==", "!=", ">=", "<", ">"];

/// `signal op value` and `value op signal` of a line: (signal, the value's token).
fn set_or_compared(line: &str) -> Vec<(String, Tok)> {
    let t = tokens(line);
    let mut out = Vec::new();
    for w in t.windows(3) {
        if !is_op(w.get(1), &SET_OR_COMPARE) {
            continue;
        }
        match (&w[0], &w[2]) {
            (Tok::Name(s), v @ (Tok::Name(_) | Tok::Num { .. })) => out.push((s.clone(), v.clone())),
            (v @ Tok::Num { .. }, Tok::Name(s)) => out.push((s.clone(), v.clone())),
            _ => {}
        }
    }
    out
}

/// The family of a `localparam`: its name up to the first `_` (`LINK_UP`, `LINK_DOWN`: `LINK`).
fn family(name: &str) -> &str {
    name.split('_').next().unwrap_or(name)
}

/// Values written as bare literals where the file names them: a signal set or compared with a
/// `localparam` is set or compared elsewhere with a literal whose value and width a
/// `localparam` of the same family names (`link <= 2'd0` beside `link <= LINK_UP`, with
/// `LINK_DOWN = 2'd0`).
fn bare_named_values(text: &str) -> Vec<String> {
    let params = localparams(text);
    let mut families: HashMap<String, Vec<&str>> = HashMap::new();
    for line in text.lines() {
        for (signal, value) in set_or_compared(line) {
            if let Tok::Name(p) = &value {
                if let Some((name, _)) = params.get_key_value(p) {
                    families.entry(signal).or_default().push(family(name));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if matches!(tokens(line).first(), Some(Tok::Name(k)) if k == "localparam") {
            continue;
        }
        for (signal, value) in set_or_compared(line) {
            // One-bit values are flags and beat parities, not codes a name stands for.
            let Tok::Num { width: width @ 2.., value: Some(v), .. } = value else { continue };
            let Some(fams) = families.get(&signal) else { continue };
            let named = params.iter().find(|(name, &(w, x))| w == width && x == v && fams.contains(&family(name)));
            if let Some((name, _)) = named {
                out.push(format!("line {}: `{signal}` against {width}'d{v}, which is {name}: {}", n + 1, line.trim()));
            }
        }
    }
    out
}

fn report(check: impl Fn(&str) -> Vec<String>) -> String {
    let mut all = Vec::new();
    for (file, text) in default_verilog() {
        for f in check(&text).into_iter().take(3) {
            all.push(format!("{file} {f}"));
        }
    }
    all.join("\n")
}

#[test]
fn checks_see_what_they_look_for() {
    assert!(constant_and_or("    assign e = pre_ok & (~hdr_bad) & 1'd0;"));
    assert!(constant_and_or("    assign g = 1'd1 & head_valid_0;"));
    assert!(constant_and_or("    assign s = txg_last & seg_keep_0[0] & (~1'd0);"));
    assert!(constant_and_or("    assign m = (r0_vm & 1'd0)"));
    assert!(constant_and_or("    assign p = ^(keep_n & 64'hffffffffffffffff);"));
    assert!(constant_and_or("    assign q = a | 8'd255;"));
    assert!(!constant_and_or("    assign t = (~ctl_ack) & (rb_count != 10'd0) & (x == 11'd0);"));
    assert!(!constant_and_or("    assign c = ^(seg_keep & 30'h2fffffff);"));
    assert!(!constant_and_or("    assign k = in_grp & ((~h[1]) | (8'd0 < h[241:234]));"));
    let late = "module m (\n    input wire a\n);\n    assign x = ~y;\n    wire x;\n    wire y;\n    assign y = a;\nendmodule\n";
    assert_eq!(uses_before_declaration(late).len(), 2);
    assert_eq!(identity_wires(late).len(), 1);
    assert_eq!(constant_replications("    assign z = {{3{1'd0}}, a};").len(), 1);
    assert!(constant_replications("    assign z = {3{a}};").is_empty());
    let bare = "    localparam [1:0] LINK_DOWN = 2'd0;\n    localparam [1:0] LINK_UP = 2'd2;\n            link <= 2'd0;\n            link <= LINK_UP;\n    assign up = link == 2'd2;\n    assign n = count == 2'd0;\n";
    assert_eq!(bare_named_values(bare).len(), 2, "{:?}", bare_named_values(bare));
}

#[test]
fn every_signal_is_declared_before_its_first_use() {
    let found = report(uses_before_declaration);
    assert!(found.is_empty(), "uses before declaration:\n{found}");
}

#[test]
fn no_and_or_has_a_constant_operand() {
    let found = report(|text| text.lines().enumerate().filter(|(_, l)| constant_and_or(l)).map(|(n, l)| format!("line {}: {}", n + 1, l.trim())).collect());
    assert!(found.is_empty(), "AND/OR with an all-zeros or all-ones operand:\n{found}");
}

#[test]
fn no_constant_is_replicated() {
    let found = report(constant_replications);
    assert!(found.is_empty(), "constant replications (write N'd0):\n{found}");
}

#[test]
fn no_identity_wires() {
    let found = report(identity_wires);
    assert!(found.is_empty(), "identity wires:\n{found}");
}

#[test]
fn no_named_value_is_written_bare() {
    let mut found = Vec::new();
    for (file, text) in default_verilog() {
        found.extend(bare_named_values(&text).into_iter().take(3).map(|f| format!("{file} {f}")));
    }
    assert!(found.is_empty(), "bare values a localparam names:\n{}", found.join("\n"));
}

/// `initial` statements outside `` `ifdef FORMAL `` (where the proofs' shadow registers start
/// from a known value): a synthesizable file that relies on one works on an FPGA and not on an
/// ASIC, whose flops power up unknown.
fn initial_outside_formal(text: &str) -> Vec<String> {
    let mut in_formal = false;
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let c = code(line).trim();
        if c.starts_with("`ifdef FORMAL") {
            in_formal = true;
        } else if c.starts_with("`endif") {
            in_formal = false;
        } else if !in_formal && (c == "initial" || c.starts_with("initial ")) {
            found.push(format!("line {}: {c}", n + 1));
        }
    }
    found
}

#[test]
fn no_initial_value_is_relied_upon() {
    assert_eq!(initial_outside_formal("module m;\n    initial q = 1'd0;\nendmodule\n").len(), 1);
    assert!(initial_outside_formal("`ifdef FORMAL\n    initial f_past_valid = 1'd0;\n`endif\n").is_empty());
    // The RIFL demo's testbench is simulation only; every other file is synthesizable.
    let mut all = Vec::new();
    for (file, text) in default_verilog().into_iter().filter(|(f, _)| !f.ends_with("_tb.v")) {
        all.extend(initial_outside_formal(&text).into_iter().map(|f| format!("{file} {f}")));
    }
    assert!(all.is_empty(), "initial outside `ifdef FORMAL:\n{}", all.join("\n"));
}
