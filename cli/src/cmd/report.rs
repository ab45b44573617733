//! `rtl-gen report [DIR] [--module M]… [-j N] [--flow auto|full|fast] [--out DIR]`: the synthesis
//! report (DESIGN.md, "Performance is measured"): Yosys LUT6 / FF / memory / LUT-depth rows for
//! every module of a generated tree, as a Markdown table in `<out>/report.md` and JSON in
//! `<out>/report.json` (`<out>` = target/synth), the table also printed.
//!
//! Flows as `rtl-gen synth --flow auto`: ABC's full LUT-mapping script with memories mapped to
//! block RAM, except for modules with a Verilog file over 1.4 MB (the whole-codeword KP4 encoder, KR4/KP4
//! decoders and 400G decoder of the variants design), which take `synth -noabc; abc -lut 6
//! -fast`; each row names its flow and Yosys's CPU time and peak memory. Every module of the
//! default design takes the block-RAM flow, the largest (the KP4 decoder, the endpoints) within
//! 8 CPU minutes and 1.6 GB each. Needs yosys (scripts/setup).
//!
//! `--crc-svg FILE --rows REPORT.json` runs no synthesis: it plots the CRC networks' rows of a
//! report already made (LUT6 and FFs against data bits, one series per CRC width and role), the
//! data and CRC widths read from the tree's manifest (the `data` and `crc` / `crc_in` ports).

use super::synth::{synthesise, write_file, Selection};
use super::CmdResult;
use rtl_gen::tools::synth;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub selection: Selection,
    /// Folder of report.md and report.json.
    #[arg(long, value_name = "DIR", default_value = "target/synth")]
    pub out: PathBuf,
    /// Instead of synthesising, plot the CRC modules of --rows as SVG (LUT6 and FFs against
    /// data bits).
    #[arg(long, value_name = "FILE", requires = "rows")]
    pub crc_svg: Option<PathBuf>,
    /// The report JSON (`report.json`, e.g. results/synth/default.json) --crc-svg reads.
    #[arg(long, value_name = "REPORT.json", requires = "crc_svg")]
    pub rows: Option<PathBuf>,
}

/// One CRC network of a report: (module, CRC width, data bits, checker?, LUT6, FFs).
type CrcRow = (String, u32, u32, bool, f64, f64);

/// The CRC networks among `rows` (a report's JSON): the modules of `manifest` with a `data`
/// input and a `crc` output (generator) or `crc_in` input (checker).
fn crc_rows(manifest: &rtl_gen::tools::TreeManifest, rows: &serde_json::Value) -> anyhow::Result<Vec<CrcRow>> {
    let rows = rows.as_array().ok_or_else(|| anyhow::anyhow!("--rows: not a list of report rows"))?;
    let mut out = Vec::new();
    for r in rows {
        let Some(name) = r.get("module").and_then(|m| m.as_str()) else { anyhow::bail!("--rows: a row without `module`") };
        let Some(m) = manifest.modules.iter().find(|m| m.name == name) else { continue };
        let port = |n: &str| m.ports.iter().find(|p| p.name == n).map(|p| p.width);
        let (Some(data), Some((crc, checker))) = (port("data"), port("crc").map(|w| (w, false)).or(port("crc_in").map(|w| (w, true)))) else { continue };
        let num = |k: &str| r.get(k).and_then(|v| v.as_f64()).ok_or_else(|| anyhow::anyhow!("--rows: row {name} has no number `{k}`"));
        out.push((name.to_string(), crc, data, checker, num("luts")?, num("ffs")?));
    }
    anyhow::ensure!(!out.is_empty(), "--rows: no row is a CRC network of the tree (a module with a `data` input and a `crc` output or `crc_in` input)");
    Ok(out)
}

/// LUT6 (log) and FFs against data bits (log), one series per CRC width and role: generators as
/// dots, checkers as rings (a checker sits at its generator's data width).
fn crc_svg(rows: &[CrcRow], title: &str) -> String {
    use rtl_gen_sim::plot::{Axis, Panel, Plot, Scale, Series, Style};
    let mut keys: Vec<(u32, bool)> = rows.iter().map(|r| (r.1, r.3)).collect();
    keys.sort();
    keys.dedup();
    let series = |value: fn(&CrcRow) -> f64| -> Vec<Series> {
        keys.iter()
            .map(|&(w, checker)| {
                let pts = rows.iter().filter(|r| (r.1, r.3) == (w, checker)).map(|r| (r.2 as f64, value(r))).collect();
                let (role, style) = if checker { ("checker", Style::Rings) } else { ("generator", Style::Points) };
                Series::new(format!("CRC-{w} {role}"), pts, style)
            })
            .collect()
    };
    let bits: Vec<f64> = rows.iter().map(|r| r.2 as f64).collect();
    let luts: Vec<f64> = rows.iter().map(|r| r.4).collect();
    let ffs: Vec<f64> = rows.iter().map(|r| r.5).collect();
    Plot {
        title: title.into(),
        x: Axis { label: "data bits per cycle".into(), scale: Scale::log_fit(&bits) },
        panels: vec![
            Panel { y: Axis { label: "LUT6".into(), scale: Scale::log_fit(&luts) }, series: series(|r| r.4) },
            Panel { y: Axis { label: "flip-flops".into(), scale: Scale::linear_fit(&ffs) }, series: series(|r| r.5) },
        ],
    }
    .svg()
}

fn plot_crc(a: &Args, svg: &std::path::Path, rows: &std::path::Path) -> CmdResult {
    let manifest = rtl_gen::tools::TreeManifest::load(&a.selection.tree)?;
    let text = std::fs::read_to_string(rows).map_err(|e| anyhow::anyhow!("--rows {}: {e}", rows.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("--rows {}: {e}", rows.display()))?;
    let crc = crc_rows(&manifest, &json)?;
    let title = format!("CRC networks of design {}: area against data width (Yosys 0.23, abc -lut 6)", manifest.design);
    write_file(svg, &crc_svg(&crc, &title))?;
    for (name, w, data, _, luts, ffs) in &crc {
        println!("{name}: CRC-{w} over {data} bits, {luts} LUT6, {ffs} FFs");
    }
    println!("wrote {}", svg.display());
    Ok(ExitCode::SUCCESS)
}

pub fn run(a: Args) -> CmdResult {
    if let (Some(svg), Some(rows)) = (&a.crc_svg, &a.rows) {
        return plot_crc(&a, svg, rows);
    }
    let (_, rows) = synthesise(&a.selection)?;
    let table = synth::table(&rows);
    let (md, json) = (a.out.join("report.md"), a.out.join("report.json"));
    write_file(&md, &table)?;
    write_file(&json, &(serde_json::to_string_pretty(&rows)? + "\n"))?;
    print!("{table}");
    println!("report: {}, {}", md.display(), json.display());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two generators and a checker: one dot per row and panel, log LUT6 axis, labels.
    #[test]
    fn crc_svg_plots_each_row() {
        let rows: Vec<CrcRow> = vec![("a".into(), 32, 100, false, 100.0, 0.0), ("b".into(), 32, 1000, false, 1000.0, 20.0), ("c".into(), 32, 1000, true, 1000.0, 0.0)];
        let s = crc_svg(&rows, "crc");
        // x 1e2..1e3 over 90..640; LUT6 1e2..1e3 over 305..55; FFs 0..20 over 615..365.
        assert!(s.contains(r#"<circle cx="90.0" cy="305.0""#), "{s}");
        assert!(s.contains(r#"<circle cx="640.0" cy="55.0""#), "{s}");
        assert!(s.contains(r#"<circle cx="640.0" cy="365.0""#), "{s}");
        assert!(s.contains(r##"<circle cx="640.0" cy="55.0" r="5" fill="none""##), "the checker is a ring: {s}");
        assert_eq!(s.matches("<circle").count(), 3 * 2 + 2 * 2);
        assert!(!s.contains("<polyline"), "a scatter has no lines");
        for l in [">CRC-32 generator<", ">CRC-32 checker<", ">LUT6<", ">flip-flops<", ">data bits per cycle<", ">1e2<", ">1e3<"] {
            assert!(s.contains(l), "{l}");
        }
    }
}
