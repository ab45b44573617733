//! The README's headline table against the committed results it quotes. Each figure of the
//! table is followed by a hidden comment naming its source, `<!-- FILE KEY -->`: FILE a JSON or
//! CSV file of the repository (a CSV is an array of rows keyed by its header), KEY a path into it:
//! `name` takes an object's field, `[field=value,…]` the one array element whose fields have those
//! values, `mean[field=value,…]` the mean over every such element, and a trailing `*F` scales the
//! result (`*100` for a percentage). The figure shown must be the source's value rounded to the
//! decimals shown, so a re-measured result and the README cannot drift apart.

use crate::docs_pages::{read, root};
use serde_json::Value;

/// One figure of the table: its row, the number as shown, and its source.
#[derive(Debug)]
struct Figure {
    row: String,
    shown: String,
    file: String,
    key: String,
}

/// The heading the table follows.
const HEADING: &str = "## Headline results";

/// The table's rows (first cell, then every cell) after `HEADING`.
fn table(readme: &str) -> Vec<Vec<String>> {
    let after = readme.split_once(HEADING).map(|(_, rest)| rest).unwrap_or("");
    after
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // the header and the separator
        .map(|l| l.trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

/// The figures of one cell: each number directly before a `<!-- FILE KEY -->` comment.
fn figures_of(row: &str, cell: &str) -> Result<Vec<Figure>, String> {
    let mut out = Vec::new();
    let mut rest = cell;
    while let Some(at) = rest.find("<!--") {
        let before = rest[..at].trim_end();
        let end = rest[at..].find("-->").ok_or_else(|| format!("row {row}: an unclosed comment"))? + at;
        let words: Vec<&str> = rest[at + 4..end].split_whitespace().collect();
        let [file, key] = words[..] else { return Err(format!("row {row}: the comment `{}` is not `FILE KEY`", rest[at..end + 3].trim())) };
        let number: String = before.chars().rev().skip_while(|c| !c.is_ascii_digit()).take_while(|c| c.is_ascii_digit() || matches!(c, ',' | '.' | '-')).collect::<Vec<_>>().into_iter().rev().collect();
        if number.is_empty() {
            return Err(format!("row {row}: no figure before the comment naming {file} {key}"));
        }
        out.push(Figure { row: row.to_string(), shown: number, file: file.to_string(), key: key.to_string() });
        rest = &rest[end + 3..];
    }
    Ok(out)
}

/// A committed results file as JSON (a CSV becomes an array of rows of strings).
fn load(file: &str) -> Result<Value, String> {
    let path = root().join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{file}: {e}"))?;
    if file.ends_with(".json") {
        return serde_json::from_str(&text).map_err(|e| format!("{file}: {e}"));
    }
    if !file.ends_with(".csv") {
        return Err(format!("{file}: a results file is .json or .csv"));
    }
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let rows = lines
        .filter(|l| !l.is_empty())
        .map(|l| Value::Object(header.iter().zip(l.split(',')).map(|(h, v)| (h.to_string(), Value::String(v.to_string()))).collect()))
        .collect();
    Ok(Value::Array(rows))
}

/// A value as a number (JSON numbers and numeric strings alike).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// Whether `element` has every `field=value` of a selector.
fn matches(element: &Value, selector: &str) -> bool {
    selector.split(',').all(|pair| {
        let Some((field, want)) = pair.split_once('=') else { return false };
        match element.get(field) {
            Some(Value::String(s)) => s == want,
            Some(v) => number(v).zip(want.parse::<f64>().ok()).is_some_and(|(a, b)| a == b),
            None => false,
        }
    })
}

/// The number `key` names in `value`.
fn lookup(value: &Value, key: &str) -> Result<f64, String> {
    let (path, scale) = match key.rsplit_once('*') {
        Some((p, f)) => (p, f.parse::<f64>().map_err(|_| format!("`*{f}` is not a scale"))?),
        None => (key, 1.0),
    };
    Ok(walk(value, path.trim_start_matches('.'))? * scale)
}

fn walk(value: &Value, path: &str) -> Result<f64, String> {
    if path.is_empty() {
        return number(value).ok_or_else(|| format!("{value} is not a number"));
    }
    let (mean, rest) = match path.strip_prefix("mean[") {
        Some(r) => (true, Some(r)),
        None => (false, path.strip_prefix('[')),
    };
    if let Some(rest) = rest {
        let (selector, after) = rest.split_once(']').ok_or("an unclosed `[`")?;
        let after = after.trim_start_matches('.');
        let hits: Vec<&Value> = value.as_array().ok_or("`[…]` on something that is not an array")?.iter().filter(|e| matches(e, selector)).collect();
        return match (mean, hits.len()) {
            (_, 0) => Err(format!("no element has {selector}")),
            (false, 1) => walk(hits[0], after),
            (false, n) => Err(format!("{n} elements have {selector} (use mean[…] to average them)")),
            (true, n) => Ok(hits.iter().map(|h| walk(h, after)).sum::<Result<f64, String>>()? / n as f64),
        };
    }
    let end = path.find(['.', '[']).unwrap_or(path.len());
    let field = &path[..end];
    let next = value.get(field).ok_or_else(|| format!("no field `{field}`"))?;
    walk(next, path[end..].trim_start_matches('.'))
}

/// Whether `source` rounds to the figure as shown (its decimals).
fn agrees(shown: &str, source: f64) -> bool {
    let plain = shown.replace(',', "");
    let Ok(value) = plain.parse::<f64>() else { return false };
    let decimals = plain.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    (source - value).abs() <= 0.5 * 10f64.powi(-decimals) + 1e-9 * value.abs().max(1.0)
}

/// Every disagreement of the table in `readme` with its sources, and how many figures it has.
fn check(readme: &str) -> (Vec<String>, usize) {
    let mut bad = Vec::new();
    let mut count = 0;
    let mut cache: std::collections::BTreeMap<String, Result<Value, String>> = Default::default();
    for cells in table(readme) {
        let row = cells.first().cloned().unwrap_or_default();
        for (i, cell) in cells.iter().enumerate().skip(2) {
            // The figure columns (LUT4, Fmax, area) hold a sourced number or a dash.
            if (2..=4).contains(&i) && !cell.contains("<!--") && cell.trim() != "–" {
                bad.push(format!("row {row}: the figure `{cell}` names no results file"));
            }
            let figures = match figures_of(&row, cell) {
                Ok(f) => f,
                Err(e) => {
                    bad.push(e);
                    continue;
                }
            };
            for f in figures {
                count += 1;
                let data = cache.entry(f.file.clone()).or_insert_with(|| load(&f.file));
                let found = data.as_ref().map_err(|e| e.clone()).and_then(|d| lookup(d, &f.key));
                match found {
                    Ok(v) if agrees(&f.shown, v) => {}
                    Ok(v) => bad.push(format!("row {}: the README shows {}, {} {} holds {v}", f.row, f.shown, f.file, f.key)),
                    Err(e) => bad.push(format!("row {}: {} {}: {e}", f.row, f.file, f.key)),
                }
            }
        }
    }
    (bad, count)
}

#[test]
fn every_headline_figure_of_the_readme_is_its_committed_result() {
    let (bad, count) = check(&read(&root().join("README.md")));
    assert!(count >= 20, "the headline table quotes its figures with their sources ({count} found)");
    assert!(bad.is_empty(), "headline figures that disagree with their results files:\n{}", bad.join("\n"));
}

#[test]
fn a_changed_figure_a_wrong_key_and_an_unsourced_figure_are_caught() {
    let readme = read(&root().join("README.md"));
    let (clean, _) = check(&readme);
    assert!(clean.is_empty(), "{clean:?}");
    // The CRC-32's LUT4 count, one more than measured.
    let shown = "375 <!-- results/fpga/ecp5-85k.json [module=rtlgen_crc32].lut4.used -->";
    assert!(readme.contains(shown), "the test's figure is in the README");
    let (bad, _) = check(&readme.replace(shown, &shown.replacen("375", "376", 1)));
    assert!(bad.len() == 1 && bad[0].contains("`rtlgen_crc32`") && bad[0].contains("376") && bad[0].contains("375"), "{bad:?}");
    let (bad, _) = check(&readme.replace("[module=rtlgen_crc32].lut4.used", "[module=rtlgen_crc33].lut4.used"));
    assert!(bad.iter().any(|b| b.contains("no element has module=rtlgen_crc33")), "{bad:?}");
    let (bad, _) = check(&readme.replace(shown, "375"));
    assert!(bad.iter().any(|b| b.contains("names no results file")), "{bad:?}");
    assert!(agrees("79.5", 79.55) && agrees("1,797,480", 1797480.0) && !agrees("0.969", 0.9703));
}
