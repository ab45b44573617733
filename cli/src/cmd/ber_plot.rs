//! An analytic curve against BER with a campaign's measured points on it, as SVG: RIFL's Fig. 9
//! (Eq. 8's bandwidth ratio, points from `rtl-gen sim rifl-sweep --csv`) and Gen-Z LLR's goodput
//! (points from `rtl-gen sim genz --csv`). The BER axis is logarithmic, the figure axis 0..1.

use std::path::Path;

const LOG_MIN: i32 = -12;
const LOG_MAX: i32 = -3;

/// The BERs an analytic curve is drawn at: 20 per decade over the axis.
pub fn axis_bers() -> Vec<f64> {
    let n = 20 * (LOG_MAX - LOG_MIN) as usize;
    (0..=n).map(|k| 10f64.powf(LOG_MIN as f64 + k as f64 / 20.0)).collect()
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

/// The plot: `curve` as a line labelled `curve_label`, `points` as dots, on the shared writer
/// ([`rtl_gen_sim::plot`]).
pub fn svg(title: &str, y_label: &str, curve_label: &str, curve: &[(f64, f64)], points: &[(f64, f64)]) -> String {
    use rtl_gen_sim::plot::{Axis, Panel, Plot, Scale, Series, Style};
    let mut series = vec![Series::new(curve_label, curve.to_vec(), Style::Smooth)];
    if !points.is_empty() {
        series.push(Series::new(format!("campaign ({} points)", points.len()), points.to_vec(), Style::Points));
    }
    Plot {
        title: title.into(),
        x: Axis { label: "bit error rate".into(), scale: Scale::Log { min_exp: LOG_MIN, max_exp: LOG_MAX, every: 1 } },
        panels: vec![Panel { y: Axis { label: y_label.into(), scale: Scale::Linear { min: 0.0, max: 1.0, step: 0.2 } }, series }],
    }
    .svg()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The curve over the whole axis, one dot per point, both legend entries.
    #[test]
    fn curve_and_points_on_the_axes() {
        let curve: Vec<(f64, f64)> = axis_bers().into_iter().map(|b| (b, 1.0)).collect();
        assert_eq!(curve.len(), 181);
        let s = svg("t", "ratio", "Eq. 8", &curve, &[(1e-12, 0.0), (1e-3, 0.5)]);
        // x 1e-12..1e-3 over 90..640; y 0..1 over 305..55.
        assert!(s.contains(r#"points="90.0,55.0 "#) && s.contains(r#" 640.0,55.0""#), "{s}");
        assert!(s.contains(r#"<circle cx="90.0" cy="305.0""#) && s.contains(r#"<circle cx="640.0" cy="180.0""#), "{s}");
        assert_eq!(s.matches("<circle").count(), 2 + 1);
        for l in [">Eq. 8<", ">campaign (2 points)<", ">bit error rate<", ">ratio<", ">1e-12<", ">1e-3<"] {
            assert!(s.contains(l), "{l}");
        }
    }
}
