//! Gate-level simulation of a mapped netlist through the project's Verilator co-simulation.
//!
//! Verilator 5.006 cannot read the OSU cell models (`osu018_stdcells.v`): their flip-flops and
//! latches are user-defined primitives (`udp_dff`, `udp_tlat`) instantiated without instance
//! names, a syntax error to Verilator, which in any case supports no sequential UDP. So the
//! cells are modelled from the library's Liberty file instead, the description synthesis and
//! timing use: Yosys's `read_liberty` builds each cell from its `function` and `ff`/`latch`
//! groups, the mapped netlist is flattened into those models and written as plain Verilog
//! (`-noattr`), one module with the RTL module's name and ports. Every mapped cell instance
//! and every net of the netlist survives into that file; only the cells' insides become
//! Yosys's generic gates.
//!
//! [`gate_tree`] then copies the tree (manifest and sources) with the module's file replaced by
//! that netlist, so `rtl-gen sim cosim --tree` and `sim::Bench::from_tree` run it against the
//! reference model like any RTL.
//!
//! A netlist with RAM macros (`--ram macro`) keeps their instances: the wrappers' RTL is read as
//! black boxes while flattening, so the gate-level tree runs the netlist around the wrapper's
//! own RTL, the behavioural model of the macro.

use super::super::{run, yosys_word, ToolError, TreeManifest};
use super::Library;
use std::path::{Path, PathBuf};

use std::process::Command;

/// The Yosys script writing `top` of the mapped `netlist` flattened into the cells' Liberty
/// functions. Paths are quoted words (`macros`: the RAM wrappers' RTL, empty or words with a
/// leading blank), `top` a checked identifier.
pub fn script(liberty: &str, netlist: &str, top: &str, macros: &str, out: &str) -> String {
    let macros = if macros.trim().is_empty() { String::new() } else { format!(" read_verilog -lib {};", macros.trim()) };
    format!("read_liberty -ignore_miss_func {liberty};{macros} read_verilog {netlist}; hierarchy -top {top}; flatten; hierarchy -top {top}; opt_clean; write_verilog -noattr {out}")
}

/// Writes the simulation netlist of the mapped `netlist` of `top` to `out`; `macros` the RTL
/// files of the RAM wrappers it instantiates as macros (left as instances).
pub fn simulation_netlist(library: &Library, netlist: &Path, top: &str, macros: &[PathBuf], out: &Path) -> Result<(), ToolError> {
    let macro_words = if macros.is_empty() { String::new() } else { super::super::yosys_words(macros)? };
    let script = script(&yosys_word(&library.liberty)?, &yosys_word(netlist)?, top, &macro_words, &yosys_word(out)?);
    let (ok, log) = run(Command::new("yosys").args(["-q", "-p", &script]))?;
    if !ok {
        return Err(ToolError::Io(std::io::Error::other(format!("yosys could not flatten the netlist of {top} into the cells of {}:\n{log}", library.name))));
    }
    Ok(())
}

/// A copy of `tree` in `dest` (its manifest and module files) with the file of `module`
/// replaced by `gate_netlist`; returns `dest`.
pub fn gate_tree(tree: &Path, manifest: &TreeManifest, module: &str, gate_netlist: &Path, dest: &Path) -> Result<PathBuf, ToolError> {
    let m = manifest.modules.iter().find(|m| m.name == module).ok_or_else(|| ToolError::Io(std::io::Error::other(format!("no module {module} in design {}", manifest.design))))?;
    std::fs::create_dir_all(dest)?;
    std::fs::copy(tree.join("manifest.json"), dest.join("manifest.json"))?;
    // Every module file (so the other modules of a block still co-simulate, as RTL); a file
    // already there (another module's netlist) is kept.
    for other in &manifest.modules {
        let to = dest.join(&other.file);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if other.name == m.name {
            std::fs::copy(gate_netlist, &to)?;
        } else if !to.exists() {
            std::fs::copy(tree.join(&other.file), &to)?;
        }
    }
    Ok(dest.to_path_buf())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_script_flattens_into_the_liberty_models_and_drops_them() {
        let s = super::script("\"l.lib\"", "\"n.v\"", "top", "", "\"g.v\"");
        assert!(s.starts_with("read_liberty -ignore_miss_func \"l.lib\"; read_verilog \"n.v\""), "{s}");
        assert!(s.contains("flatten; hierarchy -top top") && s.ends_with("write_verilog -noattr \"g.v\""), "{s}");
        let s = super::script("\"l.lib\"", "\"n.v\"", "top", "\"r.v\"", "\"g.v\"");
        assert!(s.starts_with("read_liberty -ignore_miss_func \"l.lib\"; read_verilog -lib \"r.v\"; read_verilog \"n.v\""), "{s}");
    }
}
