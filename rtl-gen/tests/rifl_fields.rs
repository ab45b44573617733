//! `rifl` fields: the derived defaults, and bad fields refused with an error naming the block,
//! the field, the value and the allowed range (or what to change instead).

use rtl_gen::config::Design;
#[path = "support/refused.rs"]
mod refused;
use refused::refused;

const HEADER: &str = "[design]\nname = \"t\"\n";

fn rifl(fields: &str) -> String {
    format!("{HEADER}[[blocks]]\nkind = \"rifl\"\nname = \"r\"\n{fields}\n")
}

fn rifl_params(fields: &str) -> rtl_gen::blocks::rifl::model::Params {
    let d = Design::parse(&rifl(fields), "rifl.toml").expect("valid rifl block");
    d.blocks[0].as_any().downcast_ref::<rtl_gen::blocks::rifl::RiflBlock>().expect("a rifl block").model_params
}

#[test]
fn rifl_defaults_and_derivations() {
    let p = rifl_params("");
    assert_eq!((p.frame_bits, p.frame_id_bits, p.crc_poly, p.user_bits, p.lanes), (256, 8, 0x80F, 256, 1));
    assert_eq!((p.fc_buffer_frames, p.fc_on_frames, p.fc_off_frames), (256, 170, 85));
    assert_eq!((p.retrans_threshold, p.control_repeat, p.scrambler), (16, 8, true));
    // Table 2 for each frame size.
    for (f, n) in [(128, 9), (512, 7), (1024, 6), (2048, 5)] {
        assert_eq!(rifl_params(&format!("frame_bits = {f}")).frame_id_bits, n);
    }
    // 10 m at 28 Gb/s: 2 x (100 + 50) ns = 33 frames of 256 bits; clog2(32 + 33) = 7.
    assert_eq!(rifl_params("cable_m = 10\nlane_gbps = 28").frame_id_bits, 7);
}

#[test]
fn rifl_frame_bits_not_a_frame_size() {
    refused(&rifl("frame_bits = 384"), &["block `r`", "`frame_bits`", "384", "128, 256, 512, 1024, 2048"]);
    refused(&rifl("frame_bits = 4096"), &["`frame_bits`", "4096", "128..=2048"]);
}

#[test]
fn rifl_crc_poly_without_hd4() {
    // x^12 + 1 misses the weight-2 pattern x^12 + 1 itself.
    refused(&rifl("crc_poly = 0x001"), &["block `r`", "`crc_poly`", "0x001", "weight 2", "HD", "0x80F"]);
    refused(&rifl("crc_poly = 0x1000"), &["`crc_poly`", "4096", "1..=4095"]);
}

#[test]
fn rifl_frame_id_space_too_small() {
    refused(&rifl("frame_id_bits = 4"), &["`frame_id_bits`", "= 4", "2 x retrans_threshold = 32", "5..=12"]);
    refused(&rifl("frame_id_bits = 6\ncable_m = 100\nlane_gbps = 100"), &["`frame_id_bits`", "= 6", "100 m at 100 Gb/s", "9..=12"]);
    refused(&rifl("cable_m = 500\nlane_gbps = 400\nframe_bits = 128"), &["`cable_m`", "500", "frames in flight"]);
}

#[test]
fn rifl_cable_needs_a_rate() {
    refused(&rifl("cable_m = 10"), &["`lane_gbps`", "is required when cable_m is given"]);
    refused(&rifl("lane_gbps = 25"), &["`cable_m`", "is required when lane_gbps is given"]);
}

#[test]
fn rifl_user_bits_and_lanes() {
    refused(&rifl("user_bits = 48"), &["`user_bits`", "48", "power of two"]);
    refused(&rifl("lanes = 17"), &["`lanes`", "17", "1..=16"]);
}

#[test]
fn rifl_flow_control_thresholds() {
    refused(&rifl("fc_buffer_frames = 64\nfc_on_frames = 20\nfc_off_frames = 30"), &["`fc_off_frames`", "30", "1..=19"]);
    refused(&rifl("fc_buffer_frames = 64\nfc_on_frames = 64"), &["`fc_on_frames`", "64", "1..=63"]);
    refused(&rifl("fc_buffer_frames = 2"), &["`fc_buffer_frames`", "= 2", "4..=65536"]);
    // 10 m at 100 Gb/s brings 118 frames per round trip: 300 - 200 = 100 frames above ON is short.
    refused(&rifl("cable_m = 10\nlane_gbps = 100\nfc_buffer_frames = 300\nfc_on_frames = 200\nfc_off_frames = 100"), &["`fc_buffer_frames`", "Eq. 20", "318"]);
}

#[test]
fn rifl_unknown_field() {
    refused(&rifl("retrans_treshold = 16"), &["block `r`", "`retrans_treshold`", "not a field of kind rifl", "retrans_threshold"]);
}

/// A round trip no frame ID width covers is refused on `cable_m` with what to change, never as
/// an empty range ("allowed 15..=12"), whether `frame_id_bits` is given or derived.
#[test]
fn rifl_round_trip_beyond_12_id_bits_names_what_to_change() {
    for fields in ["cable_m = 500\nlane_gbps = 1000\nframe_id_bits = 5", "cable_m = 500\nlane_gbps = 1000"] {
        let err = Design::parse(&rifl(fields), "rifl.toml").expect_err("no frame ID width covers it").to_string();
        assert!(err.contains("`cable_m`") && err.contains("change instead") && err.contains("cable_m at most") && err.contains("lane_gbps at most"), "{err}");
        assert!(!err.contains("15..=12"), "{err}");
        if fields.contains("frame_id_bits") {
            continue;
        }
        // The limits it names are the legal ends: each alone makes the design parse.
        let number_after = |what: &str| -> u32 { err.split(what).nth(1).and_then(|r| r.trim_start().split(|c: char| !c.is_ascii_digit()).next()).and_then(|n| n.parse().ok()).expect(what) };
        let (cable, rate) = (number_after("cable_m at most"), number_after("lane_gbps at most"));
        // (Other limits may still apply there, e.g. the flow-control buffer's Eq. 20.)
        let round_trip_refused = |f: String| Design::parse(&rifl(&f), "r").err().is_some_and(|e| e.to_string().contains("frame ID bits can name"));
        assert!(!round_trip_refused(fields.replace("cable_m = 500", &format!("cable_m = {cable}"))), "cable_m = {cable} still too long");
        assert!(!round_trip_refused(fields.replace("lane_gbps = 1000", &format!("lane_gbps = {rate}"))), "lane_gbps = {rate} still too fast");
        assert!(round_trip_refused(fields.replace("cable_m = 500", &format!("cable_m = {}", cable + 1))), "cable_m = {} fits too", cable + 1);
    }
}

/// Temporal bonding: the paper's three interfaces of four 256-bit lanes (1024 bits at clk, 512
/// at 2 x clk, 256 at 4 x clk) are legal and all carry 1024 bits per clk cycle; a ratio that is
/// not 1, 2 or 4, or a clk-side stream wider than the lanes carry, is refused naming the field;
/// `user_clk_ratio = 1` is the node without the field (same parameters, same modules).
#[test]
fn rifl_user_clk_ratio() {
    for (user, t) in [(1024, 1), (512, 2), (256, 4)] {
        let p = rifl_params(&format!("lanes = 4\nuser_bits = {user}\nuser_clk_ratio = {t}"));
        assert_eq!(p.user_bits, 1024, "user_bits = {user} at T = {t}: the clk side");
    }
    refused(&rifl("user_clk_ratio = 3"), &["block `r`", "`user_clk_ratio`", "3", "1, 2 or 4"]);
    refused(&rifl("lanes = 4\nuser_bits = 512\nuser_clk_ratio = 4"), &["`user_clk_ratio`", "2048 bits", "user_bits at most 256"]);
    refused(&rifl("user_bits = 256\nuser_clk_ratio = 2"), &["`user_clk_ratio`", "user_bits at most 128"]);
    let names = |fields: &str| {
        let d = Design::parse(&rifl(fields), "rifl.toml").expect("valid rifl block");
        let params = d.blocks[0].typed_params();
        let e = d.elaborate();
        (params, e.modules.iter().map(|m| (m.name().to_string(), m.module.ports.len())).collect::<Vec<_>>())
    };
    assert_eq!(names("user_clk_ratio = 1"), names(""));
    let (_, bonded) = names("user_bits = 64\nuser_clk_ratio = 2");
    assert!(bonded.iter().any(|(n, _)| n == "t_r_tbond_tx") && bonded.iter().any(|(n, _)| n == "t_r_tbond_rx"), "{bonded:?}");
}
