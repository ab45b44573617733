//! `rtl-gen plan rifl`: RIFL parameters from a link's requirements ([`rtl_gen::analysis::plan`]),
//! with reasons, predicted figures and optionally a design file for `rtl-gen generate`.

use super::analyze::number;
use super::CmdResult;
use rtl_gen::analysis::plan::{plan_rifl, Requirements};
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Command {
    /// RIFL: frame size, lanes, user width and the frame ID derivation for a line rate, cable,
    /// BER and MTBF.
    Rifl(RiflArgs),
}

#[derive(clap::Args)]
pub struct RiflArgs {
    /// Total line rate over all lanes, Gb/s.
    #[arg(long)]
    line_gbps: u32,
    /// Cable length, m (1..=500).
    #[arg(long)]
    cable_m: u32,
    /// Bit error rate of the link (1e-30..=1e-2).
    #[arg(long)]
    ber: f64,
    /// Required MTBF (time to a 1 % chance of an undetected frame error), years.
    #[arg(long)]
    mtbf_years: f64,
    /// Bonded lanes (1..=16).
    #[arg(long, default_value_t = 1)]
    lanes: u32,
    /// Write the design file here (refused if the file exists).
    #[arg(long)]
    emit: Option<PathBuf>,
}

pub fn run(c: Command) -> CmdResult {
    let Command::Rifl(a) = c;
    let req = Requirements {
        line_gbps: a.line_gbps,
        cable_m: a.cable_m,
        ber: a.ber,
        mtbf_years: a.mtbf_years,
        lanes: a.lanes,
    };
    if let Some(path) = a.emit.as_deref().filter(|p| p.exists()) {
        anyhow::bail!("--emit {}: the file exists; refusing to overwrite it (remove it or choose another path)", path.display());
    }
    let plan = plan_rifl(&req)?;
    let c = &plan.chosen;
    println!(
        "RIFL plan: {} Gb/s over {} lane(s), {} m, BER {:e}, MTBF >= {:e} years\n",
        req.line_gbps, req.lanes, req.cable_m, req.ber, req.mtbf_years
    );
    println!("chosen:");
    for (field, why) in &plan.reasons {
        println!("  {field}: {why}");
    }
    println!("\npredicted (frame_bits = {}):", c.frame_bits);
    println!(
        "  frame_id_bits           {:>11}            [Eq. 13 with the block's round trip]",
        c.frame_id_bits
    );
    println!(
        "  frames per round trip   {:>11}            [Eq. 2-4]",
        c.rtt_frames
    );
    println!(
        "  frame efficiency        {:>11}            [Eq. 11]",
        number(c.efficiency)
    );
    println!(
        "  bandwidth ratio         {:>11}            [Eq. 8]",
        number(c.bandwidth_ratio)
    );
    println!(
        "  goodput                 {:>11} Gb/s       [Eq. 8 x Eq. 11]",
        number(c.goodput_gbps)
    );
    println!(
        "  MTBF                    {:>11} years      [Eq. 14/26]",
        number(c.mtbf_years)
    );
    println!(
        "  errors per procedure    {:>11}            [livelock at 1]",
        number(c.errors_per_procedure)
    );
    println!("\nall frame sizes: frame_bits  frame_id_bits  ratio  goodput(Gb/s)  MTBF(years)");
    for k in &plan.candidates {
        println!(
            "  {:>5}  {:>3}  {:>8}  {:>9}  {:>11}",
            k.frame_bits,
            k.frame_id_bits,
            number(k.bandwidth_ratio),
            number(k.goodput_gbps),
            number(k.mtbf_years)
        );
    }
    if let Some(path) = a.emit {
        let command = format!(
            "rtl-gen plan rifl --line-gbps {} --cable-m {} --ber {:e} --mtbf-years {:e} --lanes {}",
            req.line_gbps, req.cable_m, req.ber, req.mtbf_years, req.lanes
        );
        std::fs::write(&path, plan.design_toml(&command))
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
        println!(
            "\nwrote {} (generate with: rtl-gen generate {})",
            path.display(),
            path.display()
        );
    }
    Ok(std::process::ExitCode::SUCCESS)
}
