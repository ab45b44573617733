//! `rtl-gen analyze rxl|rifl|genz|sue|crc|rs`: the seeds' reliability arithmetic ([`rtl_gen::analysis`]) with
//! units and equation numbers; no options print the paper's own case, options override inputs.

use super::{ber_plot, CmdResult};
use rtl_gen::analysis::{crc, genz, rifl, rs, rxl, sue, Figure};
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Command {
    /// RXL against CXL 3.0 (Eq. 1-14, Fig. 8): FER, FEC and CRC escapes, ordering failures,
    /// FIT, bandwidth loss.
    Rxl(RxlArgs),
    /// RIFL (Eq. 1-4, 8-16, 26, Tables 2 and 5): retransmission buffer, frame ID and checksum
    /// widths, bandwidth ratio, MTBF.
    Rifl(RiflArgs),
    /// Gen-Z LLR: retry slots, credits and recovery time from line rate, cable and packet
    /// size; goodput against BER.
    Genz(GenzArgs),
    /// SUE transport: window, retransmission storage and timeout from port rate and round
    /// trip; goodput against loss.
    Sue(SueArgs),
    /// A CRC's Hamming distance, low-weight undetected patterns and undetected-error
    /// probability at a message length and BER, from its weight distribution.
    Crc(CrcArgs),
    /// Reed-Solomon post-FEC codeword, symbol and bit error rates from the pre-FEC BER
    /// (KR4, KP4, the CXL flit code or RS(n, k)), random or DFE burst errors.
    Rs(RsArgs),
}

#[derive(clap::Args)]
pub struct GenzArgs {
    /// Line rate of one direction over all lanes, Gb/s.
    #[arg(long, default_value_t = 64.0)]
    line_gbps: f64,
    /// Lanes (a divisor of the beat's bits).
    #[arg(long, default_value_t = 1)]
    lanes: u32,
    /// Cable length, m (5 ns/m one way).
    #[arg(long, default_value_t = 100.0)]
    cable_m: f64,
    /// Beat width of the block: 4 or 8 bytes.
    #[arg(long, default_value_t = 8)]
    data_bytes: u32,
    /// EE packet size, bytes (whole beats).
    #[arg(long, default_value_t = 64)]
    packet_bytes: u32,
    /// Packets delivered per LLR ACK (1..=255).
    #[arg(long, default_value_t = 16)]
    ack_every: u32,
    /// Bit error rate (0..=1e-2).
    #[arg(long, default_value_t = 1e-6)]
    ber: f64,
    /// Also write the figures as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also draw the goodput against BER as SVG here.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// A `rtl-gen sim genz --csv` file whose goodput points at this packet size and cable go on
    /// the curve.
    #[arg(long, requires = "svg")]
    points: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct SueArgs {
    /// Port rate, Gb/s (the seed's SerDes: 200).
    #[arg(long, default_value_t = 200.0)]
    port_gbps: f64,
    /// End-to-end round trip, ns (the seed's budget: 2,000).
    #[arg(long, default_value_t = 2000.0)]
    rtt_ns: f64,
    /// Payload bytes per PDU (8..=4096).
    #[arg(long, default_value_t = 2048)]
    payload_bytes: u32,
    /// Accepted PDUs that make an ACK due.
    #[arg(long, default_value_t = 1)]
    ack_coalesce: u32,
    /// Probability that a link drops a PDU (0..=0.5).
    #[arg(long, default_value_t = 1e-6)]
    drop: f64,
    /// Bit error rate per link (0..=1e-2).
    #[arg(long, default_value_t = 0.0)]
    ber: f64,
    /// The window in use (1..=1024; omitted: the one for full rate).
    #[arg(long)]
    window: Option<u64>,
    /// PSN spaces: num_xpu, times num_vc with psn_scope = dest_vc (1..=4096).
    #[arg(long, default_value_t = 1024)]
    psn_spaces: u64,
    /// Also write the figures as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct CrcArgs {
    /// CRC width in bits (3..=64).
    #[arg(long, default_value_t = 32)]
    width: u32,
    /// Generator polynomial, normal form without the x^width term (hex with 0x, or decimal).
    #[arg(long, default_value = "0x04C11DB7", value_parser = parse_poly)]
    poly: u64,
    /// Protected message bits (1..=65536 less the width); default a 1,514-byte Ethernet frame.
    #[arg(long, default_value_t = 1514 * 8)]
    data_bits: u64,
    /// Bit error rate (0..=0.5).
    #[arg(long, default_value_t = 1e-12)]
    ber: f64,
    /// Messages per second for the undetected-error rate (0 leaves it out); default 10 Gb/s of
    /// 1,518-byte frames.
    #[arg(long, default_value_t = 10e9 / (1518.0 * 8.0))]
    messages_per_s: f64,
    /// Also write the figures as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

fn parse_poly(s: &str) -> Result<u64, String> {
    let t = s.replace('_', "");
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    };
    v.map_err(|_| format!("{s:?} is not a polynomial; allowed a 64-bit number, hex as 0x…"))
}

/// The RS codes `analyze rs` knows by name.
#[derive(Clone, Copy, clap::ValueEnum)]
enum RsCodeArg {
    Kr4,
    Kp4,
    Cxl,
    Custom,
}

#[derive(clap::Args)]
pub struct RsArgs {
    /// The code: kr4 (RS(528,514)), kp4 (RS(544,514)), cxl (3 ways, t = 1) or custom (--n,
    /// --k, --m).
    #[arg(long, value_enum, default_value_t = RsCodeArg::Kp4)]
    code: RsCodeArg,
    /// Custom code length in symbols (3..=2^m - 1).
    #[arg(long, default_value_t = 255)]
    n: u64,
    /// Custom code message symbols (1..=n - 2).
    #[arg(long, default_value_t = 239)]
    k: u64,
    /// Custom code symbol bits (3..=16).
    #[arg(long, default_value_t = 8)]
    m: u32,
    /// Pre-FEC bit error rate (0..=0.1); default IEEE 802.3's usual KP4 threshold.
    #[arg(long, default_value_t = 2.4e-4)]
    ber: f64,
    /// DFE error propagation: the probability that an error repeats into the next bit
    /// (0..=0.99); omitted: independent errors.
    #[arg(long)]
    dfe_tap: Option<f64>,
    /// Codewords per second for the time between failed codewords (0 leaves it out); default
    /// 100 Gb/s of KR4/KP4 codewords, 5e8 CXL flits, none for a custom code.
    #[arg(long)]
    codewords_per_s: Option<f64>,
    /// Also write the figures as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also plot the post-FEC codeword error rate against pre-FEC BER (1e-7 … 1e-2) of KR4, KP4
    /// and the CXL flit code (and the custom code) as SVG, under the chosen error model.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

/// Post-FEC codeword error rate against pre-FEC BER, one curve per code, 10 points per decade;
/// rates below 1e-30 are off the axis (left out).
pub fn rs_svg(codes: &[rs::Code], errors: rs::Errors) -> String {
    use rtl_gen_sim::plot::{Axis, Panel, Plot, Scale, Series, Style};
    let bers: Vec<f64> = (0..=50).map(|k| 10f64.powf(-7.0 + k as f64 / 10.0)).collect();
    let series = codes.iter().map(|c| Series::new(c.name.clone(), bers.iter().map(|&b| (b, rs::post_fec(c, b, errors).codeword_failure)).collect(), Style::Smooth)).collect();
    let model = match errors {
        rs::Errors::Random => "independent bit errors".to_string(),
        rs::Errors::Dfe(tap) => format!("DFE bursts, tap {tap}"),
    };
    Plot {
        title: format!("Reed-Solomon post-FEC codeword error rate vs pre-FEC BER ({model})"),
        x: Axis { label: "pre-FEC bit error rate".into(), scale: Scale::Log { min_exp: -7, max_exp: -2, every: 1 } },
        panels: vec![Panel { y: Axis { label: "codeword (flit) error rate after FEC".into(), scale: Scale::Log { min_exp: -30, max_exp: 0, every: 5 } }, series }],
    }
    .svg()
}

#[derive(clap::Args)]
pub struct RxlArgs {
    /// Raw bit error rate (0..=0.5).
    #[arg(long, default_value_t = 1e-6)]
    ber: f64,
    /// Flit size in bits (8..=65536).
    #[arg(long, default_value_t = 2048)]
    flit_bits: u64,
    /// Uncorrectable flit error rate after FEC (0..=FER), or `code` to compute it from the
    /// 3-way t = 1 RS code under independent errors (default: PCIe 6.0's 3e-5, as the paper).
    #[arg(long, default_value = "3e-5")]
    fer_uc: String,
    /// CRC width in bits (1..=64).
    #[arg(long, default_value_t = 64)]
    crc_bits: u32,
    /// Flits per second of the device (1..=1e13).
    #[arg(long, default_value_t = 5e8)]
    flits_per_s: f64,
    /// Share of flits carrying an AckNum (0..=1).
    #[arg(long, default_value_t = 0.1)]
    p_coalescing: f64,
    /// Channel time of a flit, ns.
    #[arg(long, default_value_t = 2.0)]
    flit_ns: f64,
    /// Channel time of a retried flit, ns (at least --flit-ns).
    #[arg(long, default_value_t = 102.0)]
    retry_ns: f64,
    /// Switching levels in the Fig. 8 table (0..=8).
    #[arg(long, default_value_t = 3)]
    max_levels: u32,
    /// Also write the figures as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also draw Fig. 8 (device FIT of CXL 3.0 and RXL per switching level) as SVG here.
    #[arg(long)]
    svg: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct RiflArgs {
    /// Line rate λ_line, Gb/s.
    #[arg(long, default_value_t = 100.0)]
    line_gbps: f64,
    /// RTT of Table 2 (Eq. 13), ns.
    #[arg(long, default_value_t = 500.0)]
    rtt_ns: f64,
    /// Circuit delay per direction of Eq. 3, ns.
    #[arg(long, default_value_t = 100.0)]
    circuit_ns: f64,
    /// Cable length of Eq. 4, m.
    #[arg(long, default_value_t = 500.0)]
    cable_m: f64,
    /// Speed of light in the cable (Eq. 4's C), m/s.
    #[arg(long, default_value_t = 3e8)]
    cable_m_per_s: f64,
    /// Bit error rate (0..=1e-2).
    #[arg(long, default_value_t = 1e-7)]
    ber: f64,
    /// Required MTBF of the checksum choice (Table 2), years.
    #[arg(long, default_value_t = 100.0)]
    lifetime_years: f64,
    /// Frame size of Eq. 8-11 and Table 5 (128, 256, 512, 1024, 2048).
    #[arg(long, default_value_t = 256)]
    frame_bits: u32,
    /// Verification code width (3..=64).
    #[arg(long, default_value_t = 12)]
    verification_bits: u32,
    /// Frames lost per error event (default: one retransmission procedure per direction).
    #[arg(long)]
    n_stall: Option<f64>,
    /// Also write the figures as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also draw Fig. 9 (Eq. 8's bandwidth ratio against BER) as SVG here.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Lanes bonded into one slot for the Fig. 9 curve (an error in any lane's frame stalls the
    /// slot).
    #[arg(long, default_value_t = 1)]
    lanes: u32,
    /// A `rtl-gen sim rifl-sweep --csv` file (columns `ber`, `bandwidth_ratio`) whose measured
    /// points go on the Fig. 9 curve.
    #[arg(long, requires = "svg")]
    points: Option<PathBuf>,
}

pub fn run(c: Command) -> CmdResult {
    let (title, figures, json) = match c {
        Command::Rxl(a) => {
            let fer_uc = match a.fer_uc.as_str() {
                "code" => None,
                s => Some(s.parse::<f64>().map_err(|_| {
                    anyhow::anyhow!(
                        "--fer-uc {s:?} is neither a number nor `code`; allowed 0..=FER or `code`"
                    )
                })?),
            };
            let i = rxl::Inputs {
                ber: a.ber,
                flit_bits: a.flit_bits,
                fer_uc,
                crc_bits: a.crc_bits,
                flits_per_s: a.flits_per_s,
                p_coalescing: a.p_coalescing,
                flit_ns: a.flit_ns,
                retry_ns: a.retry_ns,
                max_levels: a.max_levels,
            };
            let paper = i == rxl::Inputs::paper();
            let title = if paper {
                "RXL vs CXL 3.0, the paper's case (Jung et al. §7.1-7.2)"
            } else {
                "RXL vs CXL 3.0"
            };
            let figures = rxl::analyze(&i)?;
            if let Some(path) = &a.svg {
                write_svg(path, &super::fig8::svg(&i))?;
            }
            (title, figures, a.json)
        }
        Command::Rifl(a) => {
            let i = rifl::Inputs {
                line_gbps: a.line_gbps,
                rtt_ns: a.rtt_ns,
                circuit_ns: a.circuit_ns,
                cable_m: a.cable_m,
                cable_m_per_s: a.cable_m_per_s,
                ber: a.ber,
                lifetime_years: a.lifetime_years,
                frame_bits: a.frame_bits,
                verification_bits: a.verification_bits,
                n_stall: a.n_stall,
            };
            let paper = i == rifl::Inputs::paper();
            let title = if paper {
                "RIFL, the paper's case (Shen et al.: 100 Gb/s, 500 ns RTT, BER 1e-7)"
            } else {
                "RIFL"
            };
            let figures = rifl::analyze(&i)?;
            if let Some(path) = &a.svg {
                rtl_gen::analysis::check_range("lanes", a.lanes as f64, 1.0, 16.0)?;
                let n_stall = figures.iter().find(|f| f.name.starts_with("N_stall")).map(|f| f.value).ok_or_else(|| anyhow::anyhow!("the RIFL analysis gave no N_stall"))?;
                let points = a.points.as_deref().map(|p| ber_plot::read_points(p, "ber", "bandwidth_ratio", &[])).transpose()?.unwrap_or_default();
                let curve = rifl::ratio_curve(i.frame_bits, a.lanes, n_stall, &ber_plot::axis_bers());
                let title = format!("RIFL bandwidth ratio against BER: Eq. 8, {} x {}-bit frames, N_stall = {n_stall}", a.lanes, i.frame_bits);
                write_svg(path, &ber_plot::svg(&title, "bandwidth ratio", "Eq. 8 (analytic)", &curve, &points))?;
            }
            (title, figures, a.json)
        }
        Command::Genz(a) => {
            let i = genz::Inputs { line_gbps: a.line_gbps, lanes: a.lanes, cable_m: a.cable_m, data_bytes: a.data_bytes, packet_bytes: a.packet_bytes, ack_every: a.ack_every, ber: a.ber };
            let title = if i == genz::Inputs::measured_case() { "Gen-Z LLR, the measured campaign's case (64 Gb/s, 8-byte beats, 64-byte packets, 100 m, BER 1e-6)" } else { "Gen-Z LLR" };
            let figures = genz::analyze(&i)?;
            if let Some(path) = &a.svg {
                let (size, cable) = (i.packet_bytes.to_string(), i.cable_m.to_string());
                let points = a.points.as_deref().map(|p| ber_plot::read_points(p, "ber", "goodput", &[("kind", "goodput"), ("size", &size), ("cable_m", &cable)])).transpose()?.unwrap_or_default();
                let curve: Vec<(f64, f64)> = ber_plot::axis_bers().into_iter().map(|ber| (ber, genz::goodput(&genz::Inputs { ber, ..i.clone() }))).collect();
                let title = format!("Gen-Z LLR goodput against BER: {}-byte packets, {} m, ACK every {}", i.packet_bytes, i.cable_m, i.ack_every);
                write_svg(path, &ber_plot::svg(&title, "goodput (fraction of the line)", "g0 / (1 + errors per recovery)", &curve, &points))?;
            }
            (title, figures, a.json)
        }
        Command::Sue(a) => {
            let i = sue::Inputs { port_gbps: a.port_gbps, rtt_ns: a.rtt_ns, payload_bytes: a.payload_bytes, ack_coalesce: a.ack_coalesce, drop: a.drop, ber: a.ber, window: a.window, psn_spaces: a.psn_spaces };
            let title = if i == sue::Inputs::seed() { "SUE transport, the seed's budget (200 Gb/s port, 2 us round trip, 1,024 XPUs, 2 KiB PDUs)" } else { "SUE transport" };
            (title, sue::analyze(&i)?, a.json)
        }
        Command::Crc(a) => {
            let i = crc::Inputs { width: a.width, poly: a.poly, data_bits: a.data_bits, ber: a.ber, messages_per_s: a.messages_per_s };
            let title = if i == crc::Inputs::default_case() { "CRC-32 (IEEE 802.3) over a 1,514-byte Ethernet frame" } else { "CRC" };
            (title, crc::analyze(&i)?, a.json)
        }
        Command::Rs(a) => {
            let code = match a.code {
                RsCodeArg::Kr4 => rs::Code::kr4(),
                RsCodeArg::Kp4 => rs::Code::kp4(),
                RsCodeArg::Cxl => rs::Code::cxl(),
                RsCodeArg::Custom => rs::Code::custom(a.n, a.k, a.m)?,
            };
            let errors = a.dfe_tap.map_or(rs::Errors::Random, rs::Errors::Dfe);
            let i = rs::Inputs { codewords_per_s: a.codewords_per_s.unwrap_or_else(|| code.default_rate()), code, ber: a.ber, errors };
            let figures = rs::analyze(&i)?;
            if let Some(path) = &a.svg {
                let mut codes = vec![rs::Code::kr4(), rs::Code::kp4(), rs::Code::cxl()];
                if matches!(a.code, RsCodeArg::Custom) {
                    codes.push(i.code.clone());
                }
                write_svg(path, &rs_svg(&codes, errors))?;
            }
            ("Reed-Solomon post-FEC error rates", figures, a.json)
        }
    };
    print!("{}", table(title, &figures));
    if let Some(path) = json {
        std::fs::write(&path, json_text(&figures))
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

fn write_svg(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    super::sim::output_file("--svg", path)?;
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
}

/// A figure as text: never NaN or inf as a number (`unbounded` / `undefined` instead).
pub fn number(v: f64) -> String {
    if v.is_nan() {
        "undefined".into()
    } else if v.is_infinite() {
        "unbounded".into()
    } else if v == 0.0 {
        "0".into()
    } else if (1e-3..1e4).contains(&v.abs()) {
        format!("{}", (v * 1e4).round() / 1e4)
    } else {
        format!("{v:.3e}")
    }
}

/// Figures as an aligned table under a title (also `rtl-gen plan`'s predictions).
pub fn table(title: &str, figures: &[Figure]) -> String {
    let mut s = format!("{title}\n\n");
    let w = figures
        .iter()
        .map(|f| f.name.chars().count())
        .max()
        .unwrap_or(0);
    for f in figures {
        let paper = f
            .paper
            .map(|p| format!("  paper {}", number(p)))
            .unwrap_or_default();
        let note = if f.note.is_empty() {
            String::new()
        } else {
            format!("  ({})", f.note)
        };
        s += &format!(
            "{:<w$}  {:>11} {:<9}  [{}]{paper}{note}\n",
            f.name,
            number(f.value),
            f.unit,
            f.source
        );
    }
    s
}

fn json_value(v: f64) -> serde_json::Value {
    if v.is_finite() {
        serde_json::json!(v)
    } else {
        serde_json::json!(number(v))
    }
}

fn json_text(figures: &[Figure]) -> String {
    let rows: Vec<serde_json::Value> = figures
        .iter()
        .map(|f| {
            serde_json::json!({
                "name": f.name, "value": json_value(f.value), "unit": f.unit, "source": f.source,
                "paper": f.paper.map(json_value), "note": f.note,
            })
        })
        .collect();
    serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One curve per code at 10 points per decade, placed on the log-log axes; rates under
    /// 1e-30 left out; the labels.
    #[test]
    fn rs_svg_places_the_curves() {
        let s = rs_svg(&[rs::Code::kp4(), rs::Code::cxl()], rs::Errors::Random);
        assert_eq!(s.matches("<polyline").count(), 2);
        // KP4 at BER 1e-2 fails every codeword: the top right corner.
        assert!(s.contains("640.0,55.0\""), "{s}");
        // At 10^-3.6 (x = 464.0) the point sits at log10 of the model's rate.
        let v = rs::post_fec(&rs::Code::kp4(), 10f64.powf(-3.6), rs::Errors::Random).codeword_failure;
        assert!(v > 1e-30 && v < 1.0);
        assert!(s.contains(&format!("464.0,{:.1}", 305.0 - (v.log10() + 30.0) / 30.0 * 250.0)), "{s}");
        let kp4 = s.lines().find(|l| l.contains("<polyline")).unwrap();
        let drawn = (0..=50).filter(|k| rs::post_fec(&rs::Code::kp4(), 10f64.powf(-7.0 + *k as f64 / 10.0), rs::Errors::Random).codeword_failure >= 1e-30).count();
        assert_eq!(kp4.matches(',').count(), drawn);
        for l in ["KP4 RS(544,514)", "CXL flit FEC (3 ways, t = 1)", "pre-FEC bit error rate", "codeword (flit) error rate after FEC", ">1e-30<", ">1e-7<"] {
            assert!(s.contains(l), "{l}");
        }
    }
}
