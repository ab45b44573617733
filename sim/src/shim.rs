//! The C++ side of the bridge: parsing the Verilated model's port list and generating the
//! `extern "C"` shim that Rust calls through `libloading`.
//!
//! Why parse `Vdut.h`: Verilator renames some identifiers in C++ (a port `a__b` becomes
//! `a___05Fb`), and the header's `VL_IN16(&name,msb,lsb)` declarations are the ground truth for
//! every port's C++ name, direction and width. Checking them against the manifest catches a
//! manifest that disagrees with its RTL before anything is compiled, and the shim is written
//! with the exact C++ names.
//!
//! The shim exposes ports by index (manifest order). Besides 32-bit word set/get functions it
//! returns a raw pointer to each port's storage, which stays valid for the model's lifetime: the
//! Rust side then reads and writes ports with plain memory accesses, so a port access costs no
//! FFI call at all and `eval` is the only call in a hot loop.

use std::fmt::Write as _;

use crate::manifest::{Dir, Module};
use crate::SimError;

/// Version of the C ABI between `dut.rs` and the generated shim. Bump on any signature change;
/// it is checked when a library is loaded and is part of the cache key.
pub const SHIM_ABI_VERSION: u32 = 2;

/// Verilator `--prefix` of every model: fixed, so the shim template does not depend on names.
/// Each model lives in its own `.so` loaded with `RTLD_LOCAL` and hidden visibility, so equal
/// class names in different libraries never meet.
pub const MODEL_PREFIX: &str = "Vdut";

/// How Verilator stores a port of a given width (and so how Rust must access it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// `CData`, 1..=8 bits.
    U8,
    /// `SData`, 9..=16 bits.
    U16,
    /// `IData`, 17..=32 bits.
    U32,
    /// `QData`, 33..=64 bits.
    U64,
    /// `VlWide<N>`, 65+ bits: `N` little-endian 32-bit words.
    Wide(usize),
}

impl Storage {
    pub fn for_width(width: u32) -> Storage {
        match width {
            0..=8 => Storage::U8,
            9..=16 => Storage::U16,
            17..=32 => Storage::U32,
            33..=64 => Storage::U64,
            w => Storage::Wide(w.div_ceil(32) as usize),
        }
    }

    /// Size in bytes of the C++ object.
    pub fn bytes(self) -> usize {
        match self {
            Storage::U8 => 1,
            Storage::U16 => 2,
            Storage::U32 => 4,
            Storage::U64 => 8,
            Storage::Wide(n) => 4 * n,
        }
    }

    /// Number of 32-bit words in the shim's word API.
    pub fn words32(self) -> usize {
        match self {
            Storage::U64 => 2,
            Storage::Wide(n) => n,
            _ => 1,
        }
    }
}

/// A port as declared in the Verilated header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerilatedPort {
    /// Name of the C++ member.
    pub cxx_name: String,
    /// The Verilog name (Verilator's `__0XX` escapes decoded).
    pub name: String,
    pub dir: Dir,
    pub width: u32,
}

/// Extracts the ports from the text of `Vdut.h` (lines like `VL_INW(&data,1945,0,61);`).
pub fn parse_verilated_ports(header: &str) -> Vec<VerilatedPort> {
    header
        .lines()
        .filter_map(|l| parse_port_line(l.trim()))
        .collect()
}

fn parse_port_line(line: &str) -> Option<VerilatedPort> {
    let (dir, rest) = if let Some(r) = line.strip_prefix("VL_INOUT") {
        (Dir::Inout, r)
    } else if let Some(r) = line.strip_prefix("VL_IN") {
        (Dir::Input, r)
    } else if let Some(r) = line.strip_prefix("VL_OUT") {
        (Dir::Output, r)
    } else {
        return None;
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    let args = rest.strip_prefix("(&")?.split_once(')')?.0;
    let mut it = args.split(',').map(str::trim);
    let cxx_name = it.next()?.to_string();
    let msb: i64 = it.next()?.parse().ok()?;
    let lsb: i64 = it.next()?.parse().ok()?;
    let width = u32::try_from((msb - lsb).abs() + 1).ok()?;
    Some(VerilatedPort {
        name: decode_verilator_name(&cxx_name),
        cxx_name,
        dir,
        width,
    })
}

/// Undoes Verilator's C++ name escaping: `__0XX` (two hex digits) stands for the byte `0xXX`.
pub fn decode_verilator_name(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"__0") && i + 5 <= b.len() {
            let hex = std::str::from_utf8(&b[i + 3..i + 5]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v as char);
                i += 5;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// Pairs each manifest port (in manifest order) with its Verilated C++ name, or explains every
/// disagreement between the manifest and the RTL.
pub fn match_ports(module: &Module, verilated: &[VerilatedPort]) -> Result<Vec<String>, SimError> {
    let mut problems = Vec::new();
    let mut names = Vec::with_capacity(module.ports.len());
    for p in &module.ports {
        match verilated.iter().find(|v| v.name == p.name) {
            None => problems.push(format!(
                "manifest port `{}` is not a port of the Verilog module",
                p.name
            )),
            Some(v) => {
                if v.dir != p.dir {
                    problems.push(format!(
                        "port `{}` is an {} in the manifest but an {} in the RTL",
                        p.name, p.dir, v.dir
                    ));
                }
                if v.width != p.width {
                    problems.push(format!(
                        "port `{}` is {} bits in the manifest but {} bits in the RTL",
                        p.name, p.width, v.width
                    ));
                }
                names.push(v.cxx_name.clone());
            }
        }
    }
    for v in verilated {
        if module.port(&v.name).is_none() {
            problems.push(format!(
                "RTL port `{}` ({} bits, {}) is missing from the manifest",
                v.name, v.width, v.dir
            ));
        }
    }
    if let Some(p) = module.ports.iter().find(|p| p.dir == Dir::Inout) {
        problems.push(format!(
            "port `{}` is an inout, which the harness does not drive",
            p.name
        ));
    }
    if problems.is_empty() {
        Ok(names)
    } else {
        Err(SimError::PortMismatch {
            module: module.name.clone(),
            detail: problems.join("; "),
        })
    }
}

/// C++ source of the shim for `module`, whose ports have the C++ names `cxx_names` (manifest
/// order). Deterministic: it is part of the model's cache key.
pub fn generate(module: &Module, cxx_names: &[String]) -> String {
    let p = MODEL_PREFIX;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by rtl-gen-sim: C-ABI bridge to the Verilated model of `{}`.",
        module.name
    );
    let _ = writeln!(s, "// Port indices follow the manifest order. Do not edit.");
    let _ = write!(
        s,
        r#"#include "{p}.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif
#include <cstdint>
#include <new>

#define RTLGEN_EXPORT extern "C" __attribute__((visibility("default")))

namespace {{
// Verilator's random reset (0 zeros, 2 random) and seed, set before the model's constructor
// gives every variable its initial value (`--x-initial unique`).
int configure(VerilatedContext& ctx, int rand_reset, int seed) {{
    ctx.randReset(rand_reset);
    if (rand_reset != 0) ctx.randSeed(seed);
    return rand_reset;
}}
struct Sim {{
    VerilatedContext ctx;
    int rand_reset;
    {p} top;
#if VM_TRACE
    VerilatedVcdC* vcd = nullptr;
#endif
    bool finished = false;
    Sim(int mode, int seed) : ctx(), rand_reset(configure(ctx, mode, seed)), top(&ctx, "TOP") {{}}
}};
inline Sim* S(void* h) {{ return static_cast<Sim*>(h); }}
}}  // namespace

"#
    );
    // Compile-time proof that the storage the Rust side assumes is the storage Verilator chose.
    for (port, cxx) in module.ports.iter().zip(cxx_names) {
        let bytes = Storage::for_width(port.width).bytes();
        let _ = writeln!(
            s,
            "static_assert(sizeof({p}::{cxx}) == {bytes}, \"port {} ({} bits): unexpected Verilator storage size\");",
            port.name, port.width
        );
    }
    let _ = write!(
        s,
        r#"
RTLGEN_EXPORT uint32_t rtlgen_sim_abi_version() {{ return {SHIM_ABI_VERSION}; }}
RTLGEN_EXPORT uint32_t rtlgen_sim_port_count() {{ return {n}; }}

RTLGEN_EXPORT void* rtlgen_sim_create(uint32_t rand_reset, uint32_t seed) {{
    Sim* s = new (std::nothrow) Sim(static_cast<int>(rand_reset), static_cast<int>(seed));
    if (!s) return nullptr;
#if VM_TRACE
    // Must precede any trace() call; it only allows tracing, it does not start it.
    s->ctx.traceEverOn(true);
#endif
    return s;
}}

RTLGEN_EXPORT void rtlgen_sim_final(void* h) {{
    Sim* s = S(h);
    if (!s->finished) {{ s->top.final(); s->finished = true; }}
}}

RTLGEN_EXPORT void rtlgen_sim_trace_close(void* h) {{
#if VM_TRACE
    Sim* s = S(h);
    if (s->vcd) {{ s->vcd->close(); delete s->vcd; s->vcd = nullptr; }}
#else
    (void)h;
#endif
}}

RTLGEN_EXPORT void rtlgen_sim_destroy(void* h) {{
    rtlgen_sim_trace_close(h);
    rtlgen_sim_final(h);
    delete S(h);
}}

RTLGEN_EXPORT void rtlgen_sim_eval(void* h) {{ S(h)->top.eval(); }}
// Time is kept on the Rust side and handed over only when it matters (before a trace dump),
// so a non-traced eval costs one FFI call.
RTLGEN_EXPORT void rtlgen_sim_set_time(void* h, uint64_t t) {{ S(h)->ctx.time(t); }}
RTLGEN_EXPORT uint64_t rtlgen_sim_time(void* h) {{ return S(h)->ctx.time(); }}

// Returns 0 when tracing started, 1 if already tracing, 2 if the file cannot be opened, 3 if
// the model was Verilated without --trace.
RTLGEN_EXPORT int rtlgen_sim_trace_open(void* h, const char* path) {{
#if VM_TRACE
    Sim* s = S(h);
    if (s->vcd) return 1;
    s->vcd = new VerilatedVcdC;
    s->top.trace(s->vcd, 99);
    s->vcd->open(path);
    if (!s->vcd->isOpen()) {{ delete s->vcd; s->vcd = nullptr; return 2; }}
    return 0;
#else
    (void)h; (void)path;
    return 3;
#endif
}}

RTLGEN_EXPORT void rtlgen_sim_trace_dump(void* h) {{
#if VM_TRACE
    Sim* s = S(h);
    if (s->vcd) s->vcd->dump(s->ctx.time());
#else
    (void)h;
#endif
}}

RTLGEN_EXPORT void rtlgen_sim_trace_flush(void* h) {{
#if VM_TRACE
    Sim* s = S(h);
    if (s->vcd) s->vcd->flush();
#else
    (void)h;
#endif
}}

RTLGEN_EXPORT void* rtlgen_sim_port_ptr(void* h, uint32_t idx) {{
    Sim* s = S(h);
    switch (idx) {{
"#,
        n = module.ports.len()
    );
    for (i, cxx) in cxx_names.iter().enumerate() {
        let _ = writeln!(s, "    case {i}: return static_cast<void*>(&s->top.{cxx});");
    }
    let _ = write!(
        s,
        r#"    default: return nullptr;
    }}
}}

RTLGEN_EXPORT void rtlgen_sim_set_words(void* h, uint32_t idx, const uint32_t* w) {{
    Sim* s = S(h);
    switch (idx) {{
"#
    );
    for (i, (port, cxx)) in module.ports.iter().zip(cxx_names).enumerate() {
        if port.dir != Dir::Input {
            continue;
        }
        let body = match Storage::for_width(port.width) {
            Storage::U8 => format!("s->top.{cxx} = static_cast<CData>(w[0]);"),
            Storage::U16 => format!("s->top.{cxx} = static_cast<SData>(w[0]);"),
            Storage::U32 => format!("s->top.{cxx} = static_cast<IData>(w[0]);"),
            Storage::U64 => format!(
                "s->top.{cxx} = static_cast<QData>(w[0]) | (static_cast<QData>(w[1]) << 32);"
            ),
            Storage::Wide(n) => format!("for (int i = 0; i < {n}; ++i) s->top.{cxx}[i] = w[i];"),
        };
        let _ = writeln!(s, "    case {i}: {body} break;");
    }
    let _ = write!(
        s,
        r#"    default: break;
    }}
}}

RTLGEN_EXPORT void rtlgen_sim_get_words(void* h, uint32_t idx, uint32_t* w) {{
    Sim* s = S(h);
    switch (idx) {{
"#
    );
    for (i, (port, cxx)) in module.ports.iter().zip(cxx_names).enumerate() {
        let body = match Storage::for_width(port.width) {
            Storage::U8 | Storage::U16 | Storage::U32 => format!("w[0] = s->top.{cxx};"),
            Storage::U64 => format!(
                "w[0] = static_cast<uint32_t>(s->top.{cxx}); w[1] = static_cast<uint32_t>(s->top.{cxx} >> 32);"
            ),
            Storage::Wide(n) => format!("for (int i = 0; i < {n}; ++i) w[i] = s->top.{cxx}[i];"),
        };
        let _ = writeln!(s, "    case {i}: {body} break;");
    }
    s.push_str("    default: break;\n    }\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_header_lines() {
        let h = "    VL_IN8(&a1,0,0);\n    VL_INW(&a1946,1945,0,61);\n    VL_OUT64(&y33,32,0);\n\
                 VL_OUT(&y17,16,0);\n    VL_IN8(&a___05Fb,0,0);\n    int other;\n";
        let p = parse_verilated_ports(h);
        assert_eq!(p.len(), 5);
        assert_eq!(
            (p[1].name.as_str(), p[1].width, p[1].dir),
            ("a1946", 1946, Dir::Input)
        );
        assert_eq!((p[2].width, p[2].dir), (33, Dir::Output));
        assert_eq!((p[3].width, p[3].dir), (17, Dir::Output));
        assert_eq!(
            (p[4].name.as_str(), p[4].cxx_name.as_str()),
            ("a__b", "a___05Fb")
        );
    }

    #[test]
    fn decodes_escapes() {
        assert_eq!(decode_verilator_name("q___05F_r"), "q___r");
        assert_eq!(decode_verilator_name("plain_name"), "plain_name");
        assert_eq!(decode_verilator_name("x__0"), "x__0");
    }

    #[test]
    fn storage_classes() {
        assert_eq!(Storage::for_width(1), Storage::U8);
        assert_eq!(Storage::for_width(9), Storage::U16);
        assert_eq!(Storage::for_width(17), Storage::U32);
        assert_eq!(Storage::for_width(33), Storage::U64);
        assert_eq!(Storage::for_width(65), Storage::Wide(3));
        assert_eq!(Storage::for_width(1946), Storage::Wide(61));
        assert_eq!(Storage::for_width(16384), Storage::Wide(512));
    }
}
