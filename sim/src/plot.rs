//! Line plots as hand-written SVG, for the campaigns' and analyses' figures: a title, one or more
//! panels stacked over a shared x axis (linear or logarithmic), each panel with its own y axis,
//! tick labels, grid and series, and each panel's legend to the right of its plot area so that it
//! never covers data or labels. Output depends on the input only (fixed layout, one decimal).

use std::fmt::Write as _;

/// How an axis maps values.
#[derive(Debug, Clone, PartialEq)]
pub enum Scale {
    /// `min..=max`, a tick every `step` from `min`.
    Linear { min: f64, max: f64, step: f64 },
    /// `10^min_exp ..= 10^max_exp`, a tick every `every` decades.
    Log { min_exp: i32, max_exp: i32, every: i32 },
}

impl Scale {
    /// A linear axis from 0 (or below, for negative data) that holds every value, with 4–10
    /// ticks at 1, 2 or 5 × 10^k.
    pub fn linear_fit(values: &[f64]) -> Scale {
        let finite = values.iter().copied().filter(|v| v.is_finite());
        let (lo, hi) = finite.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let span = if hi - lo > 0.0 { hi - lo } else { 1.0 };
        let mag = 10f64.powi((span / 5.0).log10().floor() as i32);
        let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| span / s <= 8.0 + 1e-9).unwrap_or(10.0 * mag);
        // The 1e-9 keeps a value on a tick (0.05 / 0.01 = 5.000000000000001) from adding a tick.
        Scale::Linear { min: (lo / step + 1e-9).floor() * step, max: ((hi / step - 1e-9).ceil() * step).max(step), step }
    }

    /// A logarithmic axis over whole decades holding every positive value.
    pub fn log_fit(values: &[f64]) -> Scale {
        let pos: Vec<f64> = values.iter().copied().filter(|v| v.is_finite() && *v > 0.0).collect();
        let lo = pos.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = pos.iter().copied().fold(0.0, f64::max);
        if pos.is_empty() {
            return Scale::Log { min_exp: -1, max_exp: 0, every: 1 };
        }
        let (min_exp, max_exp) = (lo.log10().floor() as i32, (hi.log10().ceil() as i32).max(lo.log10().floor() as i32 + 1));
        Scale::Log { min_exp, max_exp, every: ((max_exp - min_exp) as f64 / 10.0).ceil().max(1.0) as i32 }
    }

    /// Position of `v` in 0..=1 along the axis; `None` for a value outside the axis (or not
    /// positive on a log axis): such a point is left out, never drawn at the edge.
    fn fraction(&self, v: f64) -> Option<f64> {
        let f = match *self {
            Scale::Linear { min, max, .. } => (v - min) / (max - min),
            Scale::Log { min_exp, max_exp, .. } if v > 0.0 => (v.log10() - min_exp as f64) / (max_exp - min_exp) as f64,
            Scale::Log { .. } => return None,
        };
        (f.is_finite() && (-1e-9..=1.0 + 1e-9).contains(&f)).then_some(f.clamp(0.0, 1.0))
    }

    /// The ticks: (value, label).
    fn ticks(&self) -> Vec<(f64, String)> {
        match *self {
            Scale::Linear { min, max, step } => {
                // Steps are 1, 2 or 5 × 10^k: as many decimals as the step has.
                let decimals = if step >= 1.0 { 0 } else { (-step.log10() - 1e-9).ceil() as usize };
                let n = ((max - min) / step + 1e-9).floor() as i64;
                (0..=n).map(|k| min + k as f64 * step).map(|v| (v, format!("{v:.decimals$}"))).collect()
            }
            Scale::Log { min_exp, max_exp, every } => (min_exp..=max_exp).filter(|e| (e - min_exp) % every.max(1) == 0).map(|e| (10f64.powi(e), format!("1e{e}"))).collect(),
        }
    }
}

/// An axis: its label (with the unit) and scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub label: String,
    pub scale: Scale,
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A solid line with a dot at every point.
    Line,
    /// A dashed line with a dot at every point.
    Dashed,
    /// A dashed line without dots (a prediction or a limit).
    Curve,
    /// A solid line without dots (an analytic curve).
    Smooth,
    /// Dots only (a scatter of measurements that are no sequence).
    Points,
    /// Rings only: a second scatter that leaves a dot at the same place visible.
    Rings,
}

/// One named line of a panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
}

impl Series {
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>, style: Style) -> Series {
        Series { name: name.into(), points, style }
    }
}

/// A plot area with its own y axis and series.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub y: Axis,
    pub series: Vec<Series>,
}

/// A figure: panels stacked over one x axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    pub title: String,
    pub x: Axis,
    pub panels: Vec<Panel>,
}

const COLOURS: [&str; 8] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];
const WIDTH: f64 = 960.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 640.0;
const LEGEND_X: f64 = 660.0;
const TOP: f64 = 55.0;
const PANEL_H: f64 = 250.0;
const PANEL_GAP: f64 = 60.0;

/// `&`, `<` and `>` as entities, for text from names and titles.
fn escape(t: &str) -> String {
    t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

impl Plot {
    pub fn height(&self) -> f64 {
        TOP + self.panels.len() as f64 * PANEL_H + self.panels.len().saturating_sub(1) as f64 * PANEL_GAP + 60.0
    }

    pub fn svg(&self) -> String {
        let h = self.height();
        let mut s = String::new();
        let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{h}" font-family="sans-serif" font-size="12">"#);
        let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/><text x="{}" y="28" text-anchor="middle" font-size="15">{}</text>"#, WIDTH / 2.0, escape(&self.title));
        let xpos = |v: f64| self.x.scale.fraction(v).map(|f| LEFT + f * (RIGHT - LEFT));
        // A series keeps its colour in every panel it appears in (by name).
        let mut names: Vec<&str> = Vec::new();
        for (i, panel) in self.panels.iter().enumerate() {
            let top = TOP + i as f64 * (PANEL_H + PANEL_GAP);
            let bottom = top + PANEL_H;
            let ypos = |v: f64| panel.y.scale.fraction(v).map(|f| bottom - f * PANEL_H);
            for (v, label) in panel.y.scale.ticks() {
                let Some(y) = ypos(v) else { continue };
                let _ = writeln!(s, r##"<line x1="{LEFT}" x2="{RIGHT}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{label}</text>"##, LEFT - 6.0, y + 4.0);
            }
            for (v, label) in self.x.scale.ticks() {
                let Some(x) = xpos(v) else { continue };
                let _ = writeln!(s, r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{bottom}" stroke="#eee"/><line x1="{x:.1}" x2="{x:.1}" y1="{bottom}" y2="{:.1}" stroke="black"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{label}</text>"##, bottom + 5.0, bottom + 18.0);
            }
            let _ = writeln!(s, r#"<line x1="{LEFT}" x2="{RIGHT}" y1="{bottom}" y2="{bottom}" stroke="black"/><line x1="{LEFT}" x2="{LEFT}" y1="{top}" y2="{bottom}" stroke="black"/>"#);
            let mid = (top + bottom) / 2.0;
            let _ = writeln!(s, r#"<text x="22" y="{mid:.1}" transform="rotate(-90 22 {mid:.1})" text-anchor="middle">{}</text>"#, escape(&panel.y.label));
            for (k, series) in panel.series.iter().enumerate() {
                let c = match names.iter().position(|n| *n == series.name) {
                    Some(i) => COLOURS[i % COLOURS.len()],
                    None => {
                        names.push(&series.name);
                        COLOURS[(names.len() - 1) % COLOURS.len()]
                    }
                };
                let dash = if matches!(series.style, Style::Dashed | Style::Curve) { r#" stroke-dasharray="6 4""# } else { "" };
                let dots = matches!(series.style, Style::Line | Style::Dashed | Style::Points);
                let scatter = matches!(series.style, Style::Points | Style::Rings);
                let ring = |x: f64, y: f64| format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="5" fill="none" stroke="{c}" stroke-width="1.5"/>"#);
                let pts: Vec<(f64, f64)> = series.points.iter().filter_map(|&(x, y)| Some((xpos(x)?, ypos(y)?))).collect();
                if pts.len() > 1 && !scatter {
                    let d: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
                    let _ = writeln!(s, r#"<polyline fill="none" stroke="{c}" stroke-width="2"{dash} points="{}"/>"#, d.join(" "));
                }
                if dots || series.style == Style::Rings {
                    for &(x, y) in &pts {
                        let _ = if dots { write!(s, r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{c}"/>"#) } else { write!(s, "{}", ring(x, y)) };
                    }
                    if !pts.is_empty() {
                        s.push('\n');
                    }
                }
                // The legend entry, right of the plot area.
                let ly = top + 12.0 + 18.0 * k as f64;
                if !scatter {
                    let _ = write!(s, r#"<line x1="{LEGEND_X}" x2="{}" y1="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="2"{dash}/>"#, LEGEND_X + 26.0, ly - 4.0, ly - 4.0);
                }
                if dots {
                    let _ = write!(s, r#"<circle cx="{}" cy="{:.1}" r="3" fill="{c}"/>"#, LEGEND_X + 13.0, ly - 4.0);
                } else if series.style == Style::Rings {
                    s.push_str(&ring(LEGEND_X + 13.0, ly - 4.0));
                }
                let _ = writeln!(s, r#"<text x="{}" y="{ly:.1}">{}</text>"#, LEGEND_X + 32.0, escape(&series.name));
            }
        }
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#, (LEFT + RIGHT) / 2.0, h - 14.0, escape(&self.x.label));
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plot() -> Plot {
        Plot {
            title: "T <1>".into(),
            x: Axis { label: "offered load (fraction of the link)".into(), scale: Scale::Linear { min: 0.0, max: 1.0, step: 0.5 } },
            panels: vec![
                Panel { y: Axis { label: "efficiency (%)".into(), scale: Scale::Linear { min: 0.0, max: 100.0, step: 50.0 } }, series: vec![Series::new("measured", vec![(0.0, 0.0), (0.5, 50.0), (1.0, 100.0)], Style::Line)] },
                Panel {
                    y: Axis { label: "latency (cycles)".into(), scale: Scale::Log { min_exp: 0, max_exp: 2, every: 1 } },
                    series: vec![Series::new("p50", vec![(0.0, 1.0), (1.0, 100.0), (0.5, 0.0)], Style::Dashed), Series::new("limit", vec![(0.0, 10.0), (1.0, 10.0)], Style::Curve)],
                },
            ],
        }
    }

    #[test]
    fn coordinates_ticks_labels_and_legend() {
        let s = plot().svg();
        // Panel 0: x 0 → 90, 1 → 640; y 0 → 305 (bottom), 100 → 55 (top).
        assert!(s.contains(r#"points="90.0,305.0 365.0,180.0 640.0,55.0""#), "{s}");
        // Panel 1 (top 365, bottom 615), log: 1 → 615, 100 → 365; the 0 cannot be drawn.
        assert!(s.contains(r#"stroke-dasharray="6 4" points="90.0,615.0 640.0,365.0""#), "{s}");
        assert!(s.contains(r#"points="90.0,490.0 640.0,490.0""#), "{s}");
        // Dots: 3 + 2 on the data, one per dotted legend entry (the curve has none).
        assert_eq!(s.matches("<circle").count(), 3 + 2 + 2);
        for label in ["offered load (fraction of the link)", "efficiency (%)", "latency (cycles)", ">measured<", ">p50<", ">limit<", ">1e0<", ">1e2<", ">0.5<", ">100<", "T &lt;1&gt;"] {
            assert!(s.contains(label), "{label} missing");
        }
        assert!(!s.contains("NaN") && !s.contains("inf"));
        assert_eq!(plot().svg(), s, "deterministic");
        // The same name keeps its colour in another panel.
        let mut two = plot();
        two.panels[1].series[0].name = "measured".into();
        let t = two.svg();
        assert_eq!(t.matches(r##"stroke="#1f77b4""##).count(), 4, "two lines and two legend lines in blue");
        // The legend starts right of the plot area.
        assert!(s.contains(r#"<line x1="660" x2="686""#));
    }

    #[test]
    fn fitted_axes_hold_the_data() {
        assert_eq!(Scale::linear_fit(&[0.1, 0.74]), Scale::Linear { min: 0.0, max: 0.8, step: 0.1 });
        assert_eq!(Scale::linear_fit(&[3.0, 637.0]), Scale::Linear { min: 0.0, max: 700.0, step: 100.0 });
        assert_eq!(Scale::log_fit(&[0.0, 2e-9, 3e-3]), Scale::Log { min_exp: -9, max_exp: -2, every: 1 });
        assert_eq!(Scale::log_fit(&[2e-40, 1.0]), Scale::Log { min_exp: -40, max_exp: 0, every: 4 });
        assert_eq!(Scale::linear_fit(&[0.005, 0.05]), Scale::Linear { min: 0.0, max: 0.05, step: 0.01 });
        let t = Scale::Linear { min: 0.0, max: 0.8, step: 0.2 }.ticks();
        assert_eq!(t.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>(), ["0.0", "0.2", "0.4", "0.6", "0.8"]);
    }
}
