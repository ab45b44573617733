//! RXL's Fig. 8 as an SVG: the device FIT of CXL 3.0 and RXL at each switching level, on a
//! logarithmic axis (the two differ by some 18 decades once a switch can drop flits).

use rtl_gen::analysis::rxl::{fer_uc_from_code, fit_pair, Inputs};
use std::fmt::Write as _;

const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 80.0;
const TOP: f64 = 50.0;
const PLOT_H: f64 = 320.0;
/// The FIT axis spans 1e-40 … 1e20: RXL's escapes sit near 1e-3 at the paper's case and far
/// below it at low BER; bars are clamped at the axis floor.
const LOG_MIN: f64 = -40.0;
const LOG_MAX: f64 = 20.0;

fn y(fit: f64) -> f64 {
    let l = if fit > 0.0 { fit.log10().clamp(LOG_MIN, LOG_MAX) } else { LOG_MIN };
    TOP + PLOT_H * (LOG_MAX - l) / (LOG_MAX - LOG_MIN)
}

/// The plot of `i` (validated by the caller).
pub fn svg(i: &Inputs) -> String {
    let fer_uc = i.fer_uc.unwrap_or_else(|| fer_uc_from_code(i.ber));
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    let _ = writeln!(s, "<text x=\"{}\" y=\"25\" text-anchor=\"middle\" font-size=\"15\">Device FIT of CXL 3.0 and RXL against switching levels (BER {:e}, FER_UC {:.1e})</text>", W / 2.0, i.ber, fer_uc);
    for e in (LOG_MIN as i32..=LOG_MAX as i32).step_by(10) {
        let yy = y(10f64.powi(e));
        let _ = writeln!(s, "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">1e{e}</text>", W - 20.0, LEFT - 6.0, yy + 4.0);
    }
    let _ = writeln!(s, "<text x=\"18\" y=\"{}\" transform=\"rotate(-90 18 {})\" text-anchor=\"middle\">FIT (failures per 10^9 device-hours)</text>", TOP + PLOT_H / 2.0, TOP + PLOT_H / 2.0);
    let levels = i.max_levels + 1;
    let group = (W - 20.0 - LEFT) / levels as f64;
    let bar = group * 0.3;
    for level in 0..levels {
        let (cxl, rxl) = fit_pair(i, fer_uc, level);
        let x0 = LEFT + group * level as f64 + group * 0.15;
        for (k, (fit, colour)) in [(cxl, "#c0392b"), (rxl, "#2471a3")].into_iter().enumerate() {
            let x = x0 + k as f64 * (bar + group * 0.1);
            let top = y(fit);
            let _ = writeln!(s, "<rect x=\"{x:.1}\" y=\"{top:.1}\" width=\"{bar:.1}\" height=\"{:.1}\" fill=\"{colour}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{fit:.1e}</text>", TOP + PLOT_H - top, x + bar / 2.0, top - 4.0);
        }
        let _ = writeln!(s, "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{level} {}</text>", x0 + bar + group * 0.05, TOP + PLOT_H + 18.0, if level == 0 { "(direct)" } else { "switch level(s)" });
    }
    let ly = H - 30.0;
    let _ = writeln!(s, "<rect x=\"{LEFT}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"#c0392b\"/><text x=\"{}\" y=\"{ly}\">CXL 3.0 (Eq. 5, 8)</text>", ly - 10.0, LEFT + 18.0);
    let _ = writeln!(s, "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"#2471a3\"/><text x=\"{}\" y=\"{ly}\">RXL (Eq. 10)</text>", LEFT + 200.0, ly - 10.0, LEFT + 218.0);
    s.push_str("</svg>\n");
    s
}
