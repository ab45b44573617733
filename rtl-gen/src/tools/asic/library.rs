//! The standard-cell library of an ASIC run: one of the OSU libraries Debian's `qflow` package
//! ships (`/usr/share/qflow/tech/<lib>/`), or any Liberty file, and the names of its sequential
//! cells (the flip-flop count of a mapped netlist is the number of instances of those).

use super::super::ToolError;
use std::path::{Path, PathBuf};

/// Where Debian's `qflow` installs its technology files.
pub const QFLOW_TECH: &str = "/usr/share/qflow/tech";

/// The library as the user names it (`--lib`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LibraryChoice {
    /// OSU 0.18 µm (TSMC 0.18 design rules, scalable CMOS).
    Osu018,
    /// OSU 0.35 µm.
    Osu035,
    /// OSU 0.5 µm.
    Osu050,
    /// A Liberty file of the user's library (no cell Verilog known).
    File(PathBuf),
}

impl LibraryChoice {
    /// `osu018`, `osu035`, `osu050` or a path ending in `.lib`.
    pub fn parse(s: &str) -> Result<LibraryChoice, String> {
        match s {
            "osu018" => Ok(LibraryChoice::Osu018),
            "osu035" => Ok(LibraryChoice::Osu035),
            "osu050" => Ok(LibraryChoice::Osu050),
            p if p.ends_with(".lib") => Ok(LibraryChoice::File(PathBuf::from(p))),
            other => Err(format!("`{}` is neither osu018, osu035, osu050 nor the path of a Liberty file ending in .lib", other.escape_debug())),
        }
    }

    /// The OSU folder and file stem under [`QFLOW_TECH`] (the 0.5 µm files are `osu05_*`).
    fn osu(&self) -> Option<(&'static str, &'static str, &'static str)> {
        match self {
            LibraryChoice::Osu018 => Some(("osu018", "osu018_stdcells", "OSU 0.18 µm")),
            LibraryChoice::Osu035 => Some(("osu035", "osu035_stdcells", "OSU 0.35 µm")),
            LibraryChoice::Osu050 => Some(("osu050", "osu05_stdcells", "OSU 0.5 µm")),
            LibraryChoice::File(_) => None,
        }
    }

    /// The library's files, checked to exist; a missing OSU library names the `qflow` package.
    pub fn resolve(&self) -> Result<Library, ToolError> {
        let (name, liberty, cell_verilog) = match (self, self.osu()) {
            (_, Some((dir, stem, title))) => {
                let folder = Path::new(QFLOW_TECH).join(dir);
                let liberty = folder.join(format!("{stem}.lib"));
                if !liberty.is_file() {
                    return Err(ToolError::MissingPackage { what: format!("the {title} standard-cell library ({})", liberty.display()), package: "qflow".into(), reason: "file not found".into() });
                }
                (dir.to_string(), liberty, Some(folder.join(format!("{stem}.v"))).filter(|v| v.is_file()))
            }
            (LibraryChoice::File(path), None) => {
                if !path.is_file() {
                    return Err(ToolError::Io(std::io::Error::new(std::io::ErrorKind::NotFound, format!("--lib {}: no such Liberty file", path.display()))));
                }
                let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                (name, path.clone(), None)
            }
            (_, None) => unreachable!("only File has no OSU folder"),
        };
        let text = std::fs::read_to_string(&liberty).map_err(|e| ToolError::Io(std::io::Error::new(e.kind(), format!("reading {}: {e}", liberty.display()))))?;
        let sequential = sequential_cells(&text);
        let cells = cell_names(&text);
        if sequential.is_empty() {
            return Err(ToolError::Io(std::io::Error::other(format!("{}: no flip-flop cell (no `cell` with an `ff` group): not a Liberty file Yosys can map registers to", liberty.display()))));
        }
        Ok(Library { name, liberty, cell_verilog, cells, sequential })
    }
}

/// A resolved library.
#[derive(Debug, Clone)]
pub struct Library {
    /// `osu018`, … or the Liberty file's stem.
    pub name: String,
    pub liberty: PathBuf,
    /// The cells' Verilog models (OSU libraries), for gate-level simulation.
    pub cell_verilog: Option<PathBuf>,
    /// Every cell of the library.
    pub cells: Vec<String>,
    /// Cells holding state: a `cell` group with an `ff` or `latch` group.
    pub sequential: Vec<String>,
}

/// The names of the `cell (NAME)` groups of a Liberty text.
pub fn cell_names(liberty: &str) -> Vec<String> {
    liberty
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("cell"))
        .filter_map(|r| r.trim_start().strip_prefix('(').and_then(|r| r.split(')').next()))
        .map(|n| n.trim().trim_matches('"').to_string())
        .collect()
}

/// The cells of a Liberty text that hold an `ff (…)` or `latch (…)` group. Liberty nests groups
/// in braces; a cell's name is the argument of `cell (NAME)` at depth 1 (inside `library`).
pub fn sequential_cells(liberty: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut current: Option<String> = None;
    for line in liberty.lines() {
        let t = line.trim_start();
        if depth == 1 {
            if let Some(rest) = t.strip_prefix("cell") {
                let rest = rest.trim_start();
                if let Some(arg) = rest.strip_prefix('(').and_then(|r| r.split(')').next()) {
                    current = Some(arg.trim().trim_matches('"').to_string());
                }
            }
        }
        if depth == 2 {
            let group = t.split(['(', ' ']).next().unwrap_or("");
            if matches!(group, "ff" | "latch") {
                if let Some(c) = &current {
                    if !out.contains(c) {
                        out.push(c.clone());
                    }
                }
            }
        }
        for b in t.bytes() {
            match b {
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names_and_paths_are_bounded() {
        assert_eq!(LibraryChoice::parse("osu018"), Ok(LibraryChoice::Osu018));
        assert_eq!(LibraryChoice::parse("osu050"), Ok(LibraryChoice::Osu050));
        assert_eq!(LibraryChoice::parse("my/cells.lib"), Ok(LibraryChoice::File("my/cells.lib".into())));
        let e = LibraryChoice::parse("sky130").expect_err("not a library");
        assert!(e.contains("osu018, osu035, osu050") && e.contains(".lib"), "{e}");
        let e = LibraryChoice::File("/no/such/cells.lib".into()).resolve().expect_err("missing file").to_string();
        assert!(e.contains("/no/such/cells.lib"), "{e}");
    }

    #[test]
    fn sequential_cells_are_the_cells_with_an_ff_or_latch_group() {
        let lib = "library (x) {\n  cell (AND2) {\n    area : 1;\n    pin (Y) { function : \"A&B\"; }\n  }\n  cell (DFF) {\n  ff (IQ,IQN) {\n    next_state : \"D\";\n  }\n  }\n  cell(LAT) {\n    latch (IQ,IQN) { data_in : \"D\"; }\n  }\n}\n";
        assert_eq!(sequential_cells(lib), ["DFF", "LAT"]);
        assert_eq!(cell_names(lib), ["AND2", "DFF", "LAT"]);
    }

    /// The OSU 0.18 µm library of Debian's qflow, when installed: its three flip-flops and its
    /// latch.
    #[test]
    fn osu018_has_its_flip_flops_and_latch() {
        match LibraryChoice::Osu018.resolve() {
            Ok(lib) => {
                assert_eq!(lib.sequential, ["DFFNEGX1", "DFFPOSX1", "DFFSR", "LATCH"]);
                assert!(lib.cell_verilog.is_some_and(|v| v.ends_with("osu018_stdcells.v")));
            }
            Err(e) => assert!(e.to_string().contains("`qflow`"), "{e}"),
        }
    }
}
