//! An analytic curve against BER with a campaign's measured points on it, as SVG: RIFL's Fig. 9
//! (Eq. 8's bandwidth ratio, points from `rtl-gen sim rifl-sweep --csv`) and Gen-Z LLR's goodput
//! (points from `rtl-gen sim genz --csv`). The BER axis is logarithmic, the figure axis 0..1.

use std::fmt::Write as _;
use std::path::Path;

const W: f64 = 720.0;
const H: f64 = 460.0;
const LEFT: f64 = 80.0;
const TOP: f64 = 50.0;
const PLOT_W: f64 = 600.0;
const PLOT_H: f64 = 320.0;
const LOG_MIN: f64 = -12.0;
const LOG_MAX: f64 = -3.0;

fn x(ber: f64) -> f64 {
    LEFT + PLOT_W * (ber.log10().clamp(LOG_MIN, LOG_MAX) - LOG_MIN) / (LOG_MAX - LOG_MIN)
}

fn y(v: f64) -> f64 {
    TOP + PLOT_H * (1.0 - v.clamp(0.0, 1.0))
}

/// The BERs an analytic curve is drawn at: 20 per decade over the axis.
pub fn axis_bers() -> Vec<f64> {
    let n = 20 * (LOG_MAX - LOG_MIN) as usize;
    (0..=n).map(|k| 10f64.powf(LOG_MIN + k as f64 * (LOG_MAX - LOG_MIN) / n as f64)).collect()
}

/// `(x, y)` of the CSV rows with x > 0 whose `filters` columns equal the given numbers (or
/// text); an error names the file, the missing column or the line.
pub fn read_points(path: &Path, x_col: &str, y_col: &str, filters: &[(&str, &str)]) -> anyhow::Result<Vec<(f64, f64)>> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).ok_or_else(|| anyhow::anyhow!("--points {}: no `{name}` column", path.display()));
    let (xi, yi) = (col(x_col)?, col(y_col)?);
    let filters: Vec<(usize, &str)> = filters.iter().map(|&(c, v)| col(c).map(|i| (i, v))).collect::<anyhow::Result<_>>()?;
    let same = |cell: &str, want: &str| cell == want || matches!((cell.parse::<f64>(), want.parse::<f64>()), (Ok(a), Ok(b)) if a == b);
    let mut out = Vec::new();
    for (k, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        if !filters.iter().all(|&(i, v)| cells.get(i).is_some_and(|c| same(c, v))) {
            continue;
        }
        let num = |i: usize| cells.get(i).and_then(|c| c.parse::<f64>().ok()).ok_or_else(|| anyhow::anyhow!("--points {}: line {} has no number in column {}", path.display(), k + 2, header[i]));
        let (px, py) = (num(xi)?, num(yi)?);
        if px > 0.0 {
            out.push((px, py));
        }
    }
    Ok(out)
}

/// The plot: `curve` as a line labelled `curve_label`, `points` as dots.
pub fn svg(title: &str, y_label: &str, curve_label: &str, curve: &[(f64, f64)], points: &[(f64, f64)]) -> String {
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    let _ = writeln!(s, "<text x=\"{}\" y=\"25\" text-anchor=\"middle\" font-size=\"15\">{title}</text>", W / 2.0);
    for k in 0..=5 {
        let v = k as f64 * 0.2;
        let _ = writeln!(s, "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v:.1}</text>", LEFT + PLOT_W, y(v), y(v), LEFT - 6.0, y(v) + 4.0);
    }
    for e in LOG_MIN as i32..=LOG_MAX as i32 {
        let xx = x(10f64.powi(e));
        let _ = writeln!(s, "<line x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{TOP}\" y2=\"{}\" stroke=\"#eee\"/><text x=\"{xx:.1}\" y=\"{}\" text-anchor=\"middle\">1e{e}</text>", TOP + PLOT_H, TOP + PLOT_H + 16.0);
    }
    let _ = writeln!(s, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">bit error rate</text>", LEFT + PLOT_W / 2.0, TOP + PLOT_H + 36.0);
    let _ = writeln!(s, "<text x=\"18\" y=\"{}\" transform=\"rotate(-90 18 {})\" text-anchor=\"middle\">{y_label}</text>", TOP + PLOT_H / 2.0, TOP + PLOT_H / 2.0);
    let path: Vec<String> = curve.iter().map(|&(b, v)| format!("{:.1},{:.1}", x(b), y(v))).collect();
    let _ = writeln!(s, "<polyline fill=\"none\" stroke=\"#2471a3\" stroke-width=\"2\" points=\"{}\"/>", path.join(" "));
    for &(b, v) in points {
        let _ = writeln!(s, "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#c0392b\"/>", x(b), y(v));
    }
    // The legend row sits well below the axis label (at TOP + PLOT_H + 36).
    let ly = H - 14.0;
    let _ = writeln!(s, "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#2471a3\" stroke-width=\"2\"/><text x=\"{}\" y=\"{ly}\">{curve_label}</text>", LEFT + 24.0, ly - 4.0, ly - 4.0, LEFT + 30.0);
    if !points.is_empty() {
        let _ = writeln!(s, "<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"#c0392b\"/><text x=\"{}\" y=\"{ly}\">campaign ({} points)</text>", LEFT + 252.0, ly - 4.0, LEFT + 262.0, points.len());
    }
    s.push_str("</svg>\n");
    s
}
