//! RIFL's Fig. 9 as an SVG: Eq. 8's bandwidth ratio against BER (the analytic curve), with a
//! campaign's measured points on it when a sweep CSV is given (`rtl-gen sim rifl-sweep --csv`:
//! columns `ber` and `bandwidth_ratio`).

use rtl_gen::analysis::rifl::ratio_curve;
use std::fmt::Write as _;
use std::path::Path;

const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 80.0;
const TOP: f64 = 50.0;
const PLOT_W: f64 = 600.0;
const PLOT_H: f64 = 320.0;
const LOG_MIN: f64 = -12.0;
const LOG_MAX: f64 = -3.0;

fn x(ber: f64) -> f64 {
    LEFT + PLOT_W * (ber.log10().clamp(LOG_MIN, LOG_MAX) - LOG_MIN) / (LOG_MAX - LOG_MIN)
}

fn y(ratio: f64) -> f64 {
    TOP + PLOT_H * (1.0 - ratio.clamp(0.0, 1.0))
}

/// `(ber, ratio)` of every row with BER > 0 of a sweep CSV; an error names the file and line.
pub fn read_points(path: &Path) -> anyhow::Result<Vec<(f64, f64)>> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).ok_or_else(|| anyhow::anyhow!("--points {}: no `{name}` column (a `rtl-gen sim rifl-sweep --csv` file has `ber` and `bandwidth_ratio`)", path.display()));
    let (b, r) = (col("ber")?, col("bandwidth_ratio")?);
    let mut out = Vec::new();
    for (k, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        let num = |i: usize| cells.get(i).and_then(|c| c.parse::<f64>().ok()).ok_or_else(|| anyhow::anyhow!("--points {}: line {} is not a number in every column", path.display(), k + 2));
        let (ber, ratio) = (num(b)?, num(r)?);
        if ber > 0.0 {
            out.push((ber, ratio));
        }
    }
    Ok(out)
}

/// The plot: Eq. 8 for `frame_bits` × `lanes` slots and `n_stall`, and `points`.
pub fn svg(frame_bits: u32, lanes: u32, n_stall: f64, points: &[(f64, f64)]) -> String {
    let bers: Vec<f64> = (0..=180).map(|k| 10f64.powf(LOG_MIN + k as f64 * (LOG_MAX - LOG_MIN) / 180.0)).collect();
    let curve = ratio_curve(frame_bits, lanes, n_stall, &bers);
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    let _ = writeln!(s, "<text x=\"{}\" y=\"25\" text-anchor=\"middle\" font-size=\"15\">RIFL bandwidth ratio against BER: Eq. 8, {lanes} x {frame_bits}-bit frames, N_stall = {n_stall}</text>", W / 2.0);
    for k in 0..=5 {
        let r = k as f64 * 0.2;
        let _ = writeln!(s, "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{r:.1}</text>", LEFT + PLOT_W, y(r), y(r), LEFT - 6.0, y(r) + 4.0);
    }
    for e in LOG_MIN as i32..=LOG_MAX as i32 {
        let xx = x(10f64.powi(e));
        let _ = writeln!(s, "<line x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{TOP}\" y2=\"{}\" stroke=\"#eee\"/><text x=\"{xx:.1}\" y=\"{}\" text-anchor=\"middle\">1e{e}</text>", TOP + PLOT_H, TOP + PLOT_H + 16.0);
    }
    let _ = writeln!(s, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">bit error rate</text>", LEFT + PLOT_W / 2.0, TOP + PLOT_H + 36.0);
    let _ = writeln!(s, "<text x=\"18\" y=\"{}\" transform=\"rotate(-90 18 {})\" text-anchor=\"middle\">bandwidth ratio</text>", TOP + PLOT_H / 2.0, TOP + PLOT_H / 2.0);
    let path: Vec<String> = curve.iter().map(|&(b, r)| format!("{:.1},{:.1}", x(b), y(r))).collect();
    let _ = writeln!(s, "<polyline fill=\"none\" stroke=\"#2471a3\" stroke-width=\"2\" points=\"{}\"/>", path.join(" "));
    for &(b, r) in points {
        let _ = writeln!(s, "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#c0392b\"/>", x(b), y(r));
    }
    let ly = H - 22.0;
    let _ = writeln!(s, "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#2471a3\" stroke-width=\"2\"/><text x=\"{}\" y=\"{ly}\">Eq. 8 (analytic)</text>", LEFT + 24.0, ly - 4.0, ly - 4.0, LEFT + 30.0);
    if !points.is_empty() {
        let _ = writeln!(s, "<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"#c0392b\"/><text x=\"{}\" y=\"{ly}\">campaign ({} points)</text>", LEFT + 212.0, ly - 4.0, LEFT + 222.0, points.len());
    }
    s.push_str("</svg>\n");
    s
}
