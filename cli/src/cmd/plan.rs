//! `rtl-gen plan rifl|rxl|genz|sue|crc|rs`: block parameters from a link's requirements
//! ([`rtl_gen::analysis::plan`], [`rtl_gen::analysis::genz_plan`], [`rtl_gen::analysis::sue_plan`]),
//! with reasons, predicted figures and optionally a design file for `rtl-gen generate`.

use super::analyze::{number, table};
use super::CmdResult;
use rtl_gen::analysis::code_plan::{self, plan_crc, plan_rs};
use rtl_gen::analysis::genz_plan::{self, plan_genz};
use rtl_gen::analysis::plan::{plan_rifl, Requirements};
use rtl_gen::analysis::rxl_plan::{self, plan_rxl};
use rtl_gen::analysis::sue_plan::{self, plan_sue};
use rtl_gen::analysis::{genz, sue};
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum Command {
    /// RIFL: frame size, lanes, user width and the frame ID derivation for a line rate, cable,
    /// BER and MTBF.
    Rifl(RiflArgs),
    /// RXL endpoint: replay buffer and timeouts for a line rate, cable, switching levels and
    /// BER.
    Rxl(RxlArgs),
    /// Gen-Z LLR: beat, ACK batching, retry slots and credits for a line rate, cable, packet
    /// size and BER.
    Genz(GenzArgs),
    /// SUE endpoint: beat, window and timeouts for a port rate, round trip, PDU size, XPU count
    /// and loss.
    Sue(SueArgs),
    /// CRC: the narrowest catalogued CRC (8, 16, 32, 64 bits) whose undetected messages are at
    /// least --mttf-years apart.
    Crc(CrcArgs),
    /// Reed-Solomon: KR4 or KP4 for a pre-FEC BER and a post-FEC target, and the symbols per
    /// clock for a line rate.
    Rs(RsArgs),
}

#[derive(clap::Args)]
pub struct CrcArgs {
    /// Message bits per check (a multiple of 8, 8..=4096).
    #[arg(long)]
    data_bits: u64,
    /// Bit error rate the CRC sees.
    #[arg(long)]
    ber: f64,
    /// Messages per second.
    #[arg(long)]
    messages_per_s: f64,
    /// Required mean time between undetected messages, years.
    #[arg(long)]
    mttf_years: f64,
    /// Write the design file here (refused if the file exists).
    #[arg(long)]
    emit: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct RsArgs {
    /// Pre-FEC bit error rate.
    #[arg(long)]
    ber: f64,
    /// Required post-FEC bit error rate.
    #[arg(long, default_value_t = 1e-15)]
    target_ber: f64,
    /// DFE error propagation (0..=0.99); omitted: independent errors.
    #[arg(long)]
    dfe_tap: Option<f64>,
    /// Line rate through the decoder, Gb/s.
    #[arg(long, default_value_t = 100.0)]
    line_gbps: f64,
    /// Decoder clock, MHz.
    #[arg(long, default_value_t = 312.5)]
    clock_mhz: f64,
    /// Write the design file here (refused if the file exists).
    #[arg(long)]
    emit: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct RxlArgs {
    /// Line rate of one direction, Gb/s (x16 at 64 GT/s: 1024).
    #[arg(long, default_value_t = 1024.0)]
    line_gbps: f64,
    /// Cable length of each link, m.
    #[arg(long)]
    cable_m: f64,
    /// Switches between the endpoints (0..=8).
    #[arg(long, default_value_t = 0)]
    switch_levels: u32,
    /// Raw bit error rate.
    #[arg(long, default_value_t = 1e-6)]
    ber: f64,
    /// Write the design file here (refused if the file exists).
    #[arg(long)]
    emit: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct GenzArgs {
    /// Line rate of one direction over all lanes, Gb/s.
    #[arg(long)]
    line_gbps: f64,
    /// Cable length, m.
    #[arg(long)]
    cable_m: f64,
    /// Bit error rate of the link (0..=1e-2).
    #[arg(long)]
    ber: f64,
    /// Largest EE packet, bytes.
    #[arg(long, default_value_t = 256)]
    packet_bytes: u32,
    /// Lanes (a divisor of the beat's bits).
    #[arg(long, default_value_t = 1)]
    lanes: u32,
    /// Virtual channels (1..=4).
    #[arg(long, default_value_t = 2)]
    vcs: u32,
    /// Fastest clock the implementation runs at, MHz.
    #[arg(long, default_value_t = 1000.0)]
    max_clock_mhz: f64,
    /// Goodput required at --ber with packets of --packet-bytes (fraction of the line).
    #[arg(long, default_value_t = 0.9)]
    min_goodput: f64,
    /// Write the design file here (refused if the file exists).
    #[arg(long)]
    emit: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct SueArgs {
    /// Port rate, Gb/s.
    #[arg(long)]
    port_gbps: f64,
    /// End-to-end round trip, ns.
    #[arg(long)]
    rtt_ns: f64,
    /// XPUs (2..=1024).
    #[arg(long)]
    num_xpu: u32,
    /// Packing limit per PDU, bytes.
    #[arg(long, default_value_t = 2048)]
    max_pack_bytes: u32,
    /// Command size, bytes.
    #[arg(long, default_value_t = 64)]
    cmd_bytes: u32,
    /// Virtual channels (1..=4).
    #[arg(long, default_value_t = 2)]
    num_vc: u32,
    /// Probability that a link drops a PDU.
    #[arg(long, default_value_t = 1e-6)]
    drop: f64,
    /// Bit error rate per link.
    #[arg(long, default_value_t = 0.0)]
    ber: f64,
    /// Clock of the endpoint, MHz.
    #[arg(long, default_value_t = 500.0)]
    clock_mhz: f64,
    /// Write the design file here (refused if the file exists).
    #[arg(long)]
    emit: Option<PathBuf>,
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
    match c {
        Command::Rifl(a) => run_rifl(a),
        Command::Rxl(a) => run_rxl(a),
        Command::Genz(a) => run_genz(a),
        Command::Sue(a) => run_sue(a),
        Command::Crc(a) => run_crc(a),
        Command::Rs(a) => run_rs(a),
    }
}

/// Refuses an `--emit` path that exists before any work is done.
fn check_emit(emit: Option<&Path>) -> anyhow::Result<()> {
    if let Some(path) = emit.filter(|p| p.exists()) {
        anyhow::bail!("--emit {}: the file exists; refusing to overwrite it (remove it or choose another path)", path.display());
    }
    Ok(())
}

fn write_emit(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    println!("\nwrote {} (generate with: rtl-gen generate {})", path.display(), path.display());
    Ok(())
}

fn print_reasons(reasons: &[(&'static str, String)]) {
    println!("chosen:");
    for (field, why) in reasons {
        println!("  {field}: {why}");
    }
    println!();
}

fn run_rxl(a: RxlArgs) -> CmdResult {
    check_emit(a.emit.as_deref())?;
    let req = rxl_plan::Requirements { line_gbps: a.line_gbps, cable_m: a.cable_m, switch_levels: a.switch_levels, ber: a.ber };
    let plan = plan_rxl(&req)?;
    println!("RXL plan: {} Gb/s, {} m per link, {} switch level(s), BER {:e}\n", req.line_gbps, req.cable_m, req.switch_levels, req.ber);
    print_reasons(&plan.reasons);
    print!("{}", table("predicted (RXL vs CXL 3.0 on this link):", &plan.figures()?));
    if let Some(path) = a.emit {
        let command = format!("rtl-gen plan rxl --line-gbps {} --cable-m {} --switch-levels {} --ber {:e}", req.line_gbps, req.cable_m, req.switch_levels, req.ber);
        write_emit(&path, &plan.design_toml(&command))?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

fn run_genz(a: GenzArgs) -> CmdResult {
    check_emit(a.emit.as_deref())?;
    let req = genz_plan::Requirements { line_gbps: a.line_gbps, lanes: a.lanes, cable_m: a.cable_m, ber: a.ber, packet_bytes: a.packet_bytes, vcs: a.vcs, max_clock_mhz: a.max_clock_mhz, min_goodput: a.min_goodput };
    let plan = plan_genz(&req)?;
    println!("Gen-Z LLR plan: {} Gb/s over {} lane(s), {} m, BER {:e}, packets of {} bytes\n", req.line_gbps, req.lanes, req.cable_m, req.ber, req.packet_bytes);
    print_reasons(&plan.reasons);
    print!("{}", table("predicted:", &genz::analyze(&plan.link)?));
    if let Some(path) = a.emit {
        let command = format!("rtl-gen plan genz --line-gbps {} --cable-m {} --ber {:e} --packet-bytes {} --lanes {} --vcs {} --max-clock-mhz {} --min-goodput {}", req.line_gbps, req.cable_m, req.ber, req.packet_bytes, req.lanes, req.vcs, req.max_clock_mhz, req.min_goodput);
        write_emit(&path, &plan.design_toml(&command))?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

fn run_sue(a: SueArgs) -> CmdResult {
    check_emit(a.emit.as_deref())?;
    let req = sue_plan::Requirements { port_gbps: a.port_gbps, rtt_ns: a.rtt_ns, max_pack_bytes: a.max_pack_bytes, cmd_bytes: a.cmd_bytes, num_xpu: a.num_xpu, num_vc: a.num_vc, drop: a.drop, ber: a.ber, clock_mhz: a.clock_mhz };
    let plan = plan_sue(&req)?;
    println!("SUE plan: {} Gb/s port, {} ns round trip, {} XPUs, PDUs of up to {} bytes, drop {:e}\n", req.port_gbps, req.rtt_ns, req.num_xpu, req.max_pack_bytes, req.drop);
    print_reasons(&plan.reasons);
    print!("{}", table("predicted:", &sue::analyze(&plan.link)?));
    if let Some(path) = a.emit {
        let command = format!("rtl-gen plan sue --port-gbps {} --rtt-ns {} --num-xpu {} --max-pack-bytes {} --cmd-bytes {} --num-vc {} --drop {:e} --ber {:e} --clock-mhz {}", req.port_gbps, req.rtt_ns, req.num_xpu, req.max_pack_bytes, req.cmd_bytes, req.num_vc, req.drop, req.ber, req.clock_mhz);
        write_emit(&path, &plan.design_toml(&command))?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

fn run_crc(a: CrcArgs) -> CmdResult {
    check_emit(a.emit.as_deref())?;
    let req = code_plan::CrcRequirements { data_bits: a.data_bits, ber: a.ber, messages_per_s: a.messages_per_s, mttf_years: a.mttf_years };
    let plan = plan_crc(&req)?;
    println!("CRC plan: {}-bit messages, BER {:e}, {:e} messages/s, >= {:e} years between undetected messages\n", req.data_bits, req.ber, req.messages_per_s, req.mttf_years);
    println!("chosen: {}\n", plan.reason);
    println!("candidates: name  width  HD at n  P_ud estimate  P_ud bound  years between undetected");
    for c in &plan.candidates {
        let hd = c.distance.map_or_else(|| "> 4".to_string(), |d| d.to_string());
        println!("  {:<16} {:>3}  {:>5}  {:>11}  {:>11}  {:>11}", c.crc.name, c.crc.width, hd, number(c.p_undetected), number(c.p_bound), number(c.mttf_years));
    }
    if let Some(path) = a.emit {
        let command = format!("rtl-gen plan crc --data-bits {} --ber {:e} --messages-per-s {:e} --mttf-years {:e}", req.data_bits, req.ber, req.messages_per_s, req.mttf_years);
        write_emit(&path, &plan.design_toml(&command))?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

fn run_rs(a: RsArgs) -> CmdResult {
    check_emit(a.emit.as_deref())?;
    let req = code_plan::RsRequirements { ber: a.ber, target_ber: a.target_ber, dfe_tap: a.dfe_tap, line_gbps: a.line_gbps, clock_mhz: a.clock_mhz };
    let plan = plan_rs(&req)?;
    println!("RS plan: pre-FEC BER {:e}{}, post-FEC target {:e}, {} Gb/s at {} MHz\n", req.ber, req.dfe_tap.map_or(String::new(), |t| format!(" (DFE tap {t})")), req.target_ber, req.line_gbps, req.clock_mhz);
    print_reasons(&plan.reasons);
    if let Some(path) = a.emit {
        let dfe = req.dfe_tap.map_or(String::new(), |t| format!(" --dfe-tap {t}"));
        let command = format!("rtl-gen plan rs --ber {:e} --target-ber {:e}{dfe} --line-gbps {} --clock-mhz {}", req.ber, req.target_ber, req.line_gbps, req.clock_mhz);
        write_emit(&path, &plan.design_toml(&command))?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

fn run_rifl(a: RiflArgs) -> CmdResult {
    let req = Requirements {
        line_gbps: a.line_gbps,
        cable_m: a.cable_m,
        ber: a.ber,
        mtbf_years: a.mtbf_years,
        lanes: a.lanes,
    };
    check_emit(a.emit.as_deref())?;
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
        write_emit(&path, &plan.design_toml(&command))?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}
