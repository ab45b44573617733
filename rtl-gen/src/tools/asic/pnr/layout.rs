//! The routed layout as qrouter wrote it (DEF) with the cell sizes of the library's LEF: die
//! and core area, the cells placed (logic and spacer), their area, and the routed wires per
//! metal layer. Only the parts of DEF 5.x that qflow writes are read: `UNITS`, `DIEAREA`,
//! `COMPONENTS` (`+ PLACED ( x y ) orient`), and the `ROUTED`/`FIXED`/`NEW` paths of `NETS` and
//! `SPECIALNETS`.

use std::collections::BTreeMap;

/// A rectangle in µm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    pub fn width(&self) -> f64 {
        self.x1 - self.x0
    }
    pub fn height(&self) -> f64 {
        self.y1 - self.y0
    }
    pub fn area(&self) -> f64 {
        self.width() * self.height()
    }
}

/// One placed cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub macro_name: String,
    pub rect: Rect,
    /// A spacer cell (the library's fill cell) rather than logic.
    pub spacer: bool,
}

/// A straight wire piece (or a via, when both ends coincide) on one layer, in µm.
#[derive(Debug, Clone, PartialEq)]
pub struct Wire {
    pub layer: String,
    pub from: (f64, f64),
    pub to: (f64, f64),
    /// Drawn width in µm (`SPECIALNETS` give it; regular nets use the layer's).
    pub width: Option<f64>,
    /// A power or ground wire (`SPECIALNETS`).
    pub special: bool,
}

impl Wire {
    pub fn length(&self) -> f64 {
        (self.to.0 - self.from.0).abs() + (self.to.1 - self.from.1).abs()
    }
}

/// The routed layout.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    pub die: Option<Rect>,
    pub cells: Vec<Placed>,
    pub wires: Vec<Wire>,
    /// Components whose macro the LEF does not define (none expected).
    pub unknown_macros: Vec<String>,
}

impl Layout {
    /// The smallest rectangle holding every placed cell: the standard-cell rows.
    pub fn core(&self) -> Option<Rect> {
        let mut it = self.cells.iter().map(|c| c.rect);
        let first = it.next()?;
        Some(it.fold(first, |a, r| Rect { x0: a.x0.min(r.x0), y0: a.y0.min(r.y0), x1: a.x1.max(r.x1), y1: a.y1.max(r.y1) }))
    }
    pub fn logic_cells(&self) -> usize {
        self.cells.iter().filter(|c| !c.spacer).count()
    }
    pub fn logic_area(&self) -> f64 {
        self.cells.iter().filter(|c| !c.spacer).map(|c| c.rect.area()).sum()
    }
    /// Signal wire length per metal layer in µm (power and ground wires, vias not counted).
    pub fn wire_length(&self) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::new();
        for w in self.wires.iter().filter(|w| !w.special && !w.layer.starts_with("via:")) {
            *out.entry(w.layer.clone()).or_insert(0.0) += w.length();
        }
        out
    }
}

/// `MACRO name … SIZE w BY h ;` of a LEF text: cell sizes in µm.
pub fn lef_sizes(lef: &str) -> BTreeMap<String, (f64, f64)> {
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in lef.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["MACRO", name, ..] => current = Some(name.to_string()),
            ["SIZE", x, "BY", y, ..] => {
                if let (Some(name), Ok(x), Ok(y)) = (current.take(), x.parse(), y.trim_end_matches(';').parse()) {
                    out.insert(name, (x, y));
                }
            }
            _ => {}
        }
    }
    out
}

/// The DEF's statements from `start` to its `END` line, as one token stream.
fn section<'a>(def: &'a str, start: &str) -> Vec<&'a str> {
    let mut inside = false;
    let mut out = Vec::new();
    let end = format!("END {start}");
    for line in def.lines() {
        let t = line.trim();
        if !inside {
            inside = t.starts_with(&format!("{start} ")) || t == start;
            continue;
        }
        if t.starts_with(&end) {
            break;
        }
        out.extend(t.split_whitespace());
    }
    out
}

/// The routed DEF read with the LEF's cell sizes; `spacer` is the library's fill cell name.
pub fn parse_def(def: &str, sizes: &BTreeMap<String, (f64, f64)>, spacer: &str) -> Result<Layout, String> {
    let dbu: f64 = def
        .lines()
        .find_map(|l| l.trim().strip_prefix("UNITS DISTANCE MICRONS").and_then(|r| r.trim().trim_end_matches(';').trim().parse().ok()))
        .ok_or("no `UNITS DISTANCE MICRONS` line")?;
    let mut layout = Layout::default();
    if let Some(line) = def.lines().find(|l| l.trim_start().starts_with("DIEAREA")) {
        let n: Vec<f64> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        if n.len() >= 4 {
            layout.die = Some(Rect { x0: n[0] / dbu, y0: n[1] / dbu, x1: n[2] / dbu, y1: n[3] / dbu });
        }
    }
    // - NAME MACRO + PLACED ( x y ) ORIENT ;
    let comps = section(def, "COMPONENTS");
    let mut i = 0;
    while i < comps.len() {
        if comps[i] == "-" && i + 2 < comps.len() {
            let macro_name = comps[i + 2].to_string();
            let mut j = i + 3;
            while j < comps.len() && comps[j] != ";" && !matches!(comps[j], "PLACED" | "FIXED") {
                j += 1;
            }
            if j + 5 < comps.len() && comps[j + 1] == "(" {
                let (x, y) = (comps[j + 2].parse::<f64>().map_err(|e| e.to_string())? / dbu, comps[j + 3].parse::<f64>().map_err(|e| e.to_string())? / dbu);
                let orient = comps[j + 5];
                match sizes.get(&macro_name) {
                    Some(&(w, h)) => {
                        let (w, h) = if matches!(orient, "E" | "W" | "FE" | "FW") { (h, w) } else { (w, h) };
                        layout.cells.push(Placed { spacer: macro_name == spacer, macro_name, rect: Rect { x0: x, y0: y, x1: x + w, y1: y + h } });
                    }
                    None => layout.unknown_macros.push(macro_name),
                }
            }
            i = j;
        }
        i += 1;
    }
    routes(&section(def, "NETS"), dbu, false, &mut layout.wires);
    routes(&section(def, "SPECIALNETS"), dbu, true, &mut layout.wires);
    Ok(layout)
}

/// The wires of `ROUTED`/`FIXED`/`NEW layer [width] ( x y ) ( x|* y|* ) … [via]` paths. A via
/// name after a point is a zero-length wire on the path's layer at that point.
fn routes(tokens: &[&str], dbu: f64, special: bool, out: &mut Vec<Wire>) {
    let mut i = 0;
    while i < tokens.len() {
        if !matches!(tokens[i], "ROUTED" | "FIXED" | "COVER" | "NEW") || i + 1 >= tokens.len() {
            i += 1;
            continue;
        }
        let layer = tokens[i + 1].to_string();
        i += 2;
        let mut width = None;
        if special {
            if let Some(w) = tokens.get(i).and_then(|t| t.parse::<f64>().ok()) {
                width = Some(w / dbu);
                i += 1;
            }
        }
        let mut last: Option<(f64, f64)> = None;
        while i < tokens.len() && !matches!(tokens[i], ";" | "NEW" | "+" | "-") {
            if tokens[i] == "(" && i + 2 < tokens.len() {
                let coord = |t: &str, prev: Option<f64>| if t == "*" { prev } else { t.parse::<f64>().ok().map(|v| v / dbu) };
                let x = coord(tokens[i + 1], last.map(|p| p.0));
                let y = coord(tokens[i + 2], last.map(|p| p.1));
                if let (Some(x), Some(y)) = (x, y) {
                    if let Some(from) = last {
                        out.push(Wire { layer: layer.clone(), from, to: (x, y), width, special });
                    }
                    last = Some((x, y));
                }
                // Skip to the closing parenthesis (an extension value may precede it).
                while i < tokens.len() && tokens[i] != ")" {
                    i += 1;
                }
            } else if tokens[i] != ")" {
                if let Some(p) = last {
                    out.push(Wire { layer: format!("via:{}", tokens[i]), from: p, to: p, width, special });
                }
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEF: &str = "VERSION 5.6 ;\nUNITS DISTANCE MICRONS 100 ;\nDIEAREA ( -320 -300 ) ( 6160 4300 ) ;\n\
        COMPONENTS 3 ;\n- BUFX2_5 BUFX2 + PLACED ( 40 50 ) S ;\n- FILL_0 FILL + PLACED ( 1240 50 ) FS ;\n- INV_1 INVX1 + PLACED ( 40 1050 ) N ;\nEND COMPONENTS\n\
        NETS 1 ;\n- a\n  ( PIN a ) \n  ( INV_1 A ) \n+ ROUTED metal1 ( 2400 1400 ) M2_M1 \n  NEW metal2 ( 2400 1400 ) ( * 1200 ) M3_M2 \n  NEW metal3 ( 2400 1200 ) ( 2800 * ) ;\nEND NETS\n\
        SPECIALNETS 1 ;\n- vdd\n+ FIXED metal1 40 ( 1600 50 ) ( * * ) viagen21_post\n  NEW metal5 50 ( 0 0 ) ( 0 4000 ) ;\nEND SPECIALNETS\nEND DESIGN\n";

    #[test]
    fn def_components_and_routes_are_read_in_microns() {
        let sizes = lef_sizes("MACRO BUFX2\n  SIZE 2.400 BY 10.000 ;\nEND BUFX2\nMACRO FILL\n SIZE 0.8 BY 10 ;\nMACRO INVX1\n  SIZE 1.600 BY 10.000 ;\n");
        assert_eq!(sizes.get("INVX1"), Some(&(1.6, 10.0)));
        let l = parse_def(DEF, &sizes, "FILL").expect("parsed");
        assert_eq!(l.die, Some(Rect { x0: -3.2, y0: -3.0, x1: 61.6, y1: 43.0 }));
        assert_eq!(l.cells.len(), 3);
        assert_eq!(l.logic_cells(), 2);
        assert!((l.logic_area() - 40.0).abs() < 1e-9);
        let core = l.core().expect("cells");
        assert!((core.x0 - 0.4).abs() < 1e-9 && (core.y1 - 20.5).abs() < 1e-9, "{core:?}");
        let len = l.wire_length();
        assert_eq!(len.get("metal2"), Some(&2.0));
        assert_eq!(len.get("metal3"), Some(&4.0));
        assert!(!len.contains_key("metal5"), "power wires are not signal length");
        assert_eq!(len.len(), 2, "metal2 and metal3 only, no via: {len:?}");
        assert!(l.wires.iter().any(|w| w.special && w.layer == "metal5" && w.width == Some(0.5) && w.length() == 40.0));
        assert!(l.wires.iter().any(|w| w.layer == "via:M3_M2"));
        assert!(parse_def("VERSION 5.6 ;\n", &sizes, "FILL").is_err());
    }
}
