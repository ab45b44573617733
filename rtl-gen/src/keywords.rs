//! Reserved words of Verilog-2005 (IEEE 1364-2005 Annex B) and SystemVerilog (IEEE 1800-2017
//! Annex B): a module may not be called any of them, or no tool parses the file. Module names
//! are lower snake case, so only the lower-case words matter.

/// Verilog-2005 keywords.
const VERILOG_2005: &[&str] = &[
    "always", "and", "assign", "automatic", "begin", "buf", "bufif0", "bufif1", "case", "casex", "casez", "cell", "cmos", "config", "deassign", "default",
    "defparam", "design", "disable", "edge", "else", "end", "endcase", "endconfig", "endfunction", "endgenerate", "endmodule", "endprimitive", "endspecify",
    "endtable", "endtask", "event", "for", "force", "forever", "fork", "function", "generate", "genvar", "highz0", "highz1", "if", "ifnone", "incdir",
    "include", "initial", "inout", "input", "instance", "integer", "join", "large", "liblist", "library", "localparam", "macromodule", "medium", "module",
    "nand", "negedge", "nmos", "nor", "noshowcancelled", "not", "notif0", "notif1", "or", "output", "parameter", "pmos", "posedge", "primitive", "pull0",
    "pull1", "pulldown", "pullup", "pulsestyle_onevent", "pulsestyle_ondetect", "rcmos", "real", "realtime", "reg", "release", "repeat", "rnmos", "rpmos",
    "rtran", "rtranif0", "rtranif1", "scalared", "showcancelled", "signed", "small", "specify", "specparam", "strong0", "strong1", "supply0", "supply1",
    "table", "task", "time", "tran", "tranif0", "tranif1", "tri", "tri0", "tri1", "triand", "trior", "trireg", "unsigned", "use", "uwire", "vectored",
    "wait", "wand", "weak0", "weak1", "while", "wire", "wor", "xnor", "xor",
];

/// Keywords SystemVerilog (1800-2017) adds to Verilog-2005.
const SYSTEMVERILOG: &[&str] = &[
    "accept_on", "alias", "always_comb", "always_ff", "always_latch", "assert", "assume", "before", "bind", "bins", "binsof", "bit", "break", "byte",
    "chandle", "checker", "class", "clocking", "const", "constraint", "context", "continue", "cover", "covergroup", "coverpoint", "cross", "dist", "do",
    "endchecker", "endclass", "endclocking", "endgroup", "endinterface", "endpackage", "endprogram", "endproperty", "endsequence", "enum", "eventually",
    "expect", "export", "extends", "extern", "final", "first_match", "foreach", "forkjoin", "global", "iff", "ignore_bins", "illegal_bins", "implements",
    "implies", "import", "inside", "int", "interconnect", "interface", "intersect", "join_any", "join_none", "let", "local", "logic", "longint", "matches",
    "modport", "nettype", "new", "nexttime", "null", "package", "packed", "priority", "program", "property", "protected", "pure", "rand", "randc",
    "randcase", "randsequence", "ref", "reject_on", "restrict", "return", "s_always", "s_eventually", "s_nexttime", "s_until", "s_until_with", "sequence",
    "shortint", "shortreal", "soft", "solve", "static", "string", "strong", "struct", "super", "sync_accept_on", "sync_reject_on", "tagged", "this",
    "throughout", "timeprecision", "timeunit", "type", "typedef", "union", "unique", "unique0", "until", "until_with", "untyped", "var", "virtual", "void",
    "wait_order", "weak", "wildcard", "with", "within",
];

/// Which standard reserves `name`, if one does.
pub fn reserved_by(name: &str) -> Option<&'static str> {
    if VERILOG_2005.contains(&name) {
        Some("Verilog-2005")
    } else if SYSTEMVERILOG.contains(&name) {
        Some("SystemVerilog")
    } else {
        None
    }
}

/// Whether `name` has the form of a RAM wrapper's name under `prefix` (`<prefix>ram_1r1w_<W>x<D>`,
/// `<prefix>ram_1r1w_async_<W>x<D>`, `<prefix>ram_1r1w_outreg_<W>x<D>`, `<prefix>lutram_1r1w_…`,
/// any width and depth): which
/// wrappers a design emits is known only after its modules are built, so the design check
/// reserves the whole form and no block's module may take such a name.
pub fn ram_wrapper_form(name: &str, prefix: &str) -> bool {
    let Some(rest) = name.strip_prefix(prefix) else { return false };
    let Some(rest) = rest.strip_prefix("ram_1r1w_").or_else(|| rest.strip_prefix("lutram_1r1w_")) else { return false };
    let rest = rest.strip_prefix("async_").or_else(|| rest.strip_prefix("outreg_")).unwrap_or(rest);
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    matches!(rest.split_once('x'), Some((w, d)) if number(w) && number(d))
}

#[cfg(test)]
mod tests {
    use super::reserved_by;

    #[test]
    fn keywords_of_both_standards_are_reserved() {
        assert_eq!(reserved_by("module"), Some("Verilog-2005"));
        assert_eq!(reserved_by("logic"), Some("SystemVerilog"));
        assert_eq!(reserved_by("crc32"), None);
    }
}
