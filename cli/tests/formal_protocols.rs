//! `rtl-gen formal` on the sequential protocol blocks (FSMs, buffers, streams, windows): a
//! small test design of each kind is checked in seconds (bounded model checks with Yices, at the
//! stated depth) and a mutant with the bug its properties are for fails with a counterexample.

mod common;
use common::formal::{assert_counterexample, generate, mutate, row, text};
use common::rtl_gen;
use std::path::Path;

/// `rtl-gen formal TREE --module M --bmc --depth D --engine smtbmc-yices --work WORK` in `dir`.
fn bmc(dir: &Path, tree: &Path, module: &str, depth: u32, work: &str) -> (Option<i32>, String) {
    let d = depth.to_string();
    let out = rtl_gen(&["formal", tree.to_str().expect("utf-8"), "--module", module, "--bmc", "--depth", &d, "--engine", "smtbmc-yices", "--work", work], dir);
    (out.status.code(), text(&out))
}

/// The smallest RIFL lane: 128-bit frames, a 1-bit frame ID (a 2-frame retransmission buffer,
/// a procedure of 5 slots), no scrambler. Init takes 2 slots and the longest quiet run outside
/// Normal 4 (RETRANS_LAST), so depth 10 covers a whole procedure after the fill.
const RIFL: &str = r#"
[design]
name = "frifl"
reset = "sync_high"

[[blocks]]
kind = "rifl"
name = "rl"
frame_bits = 128
frame_id_bits = 1
retrans_threshold = 1
control_repeat = 2
scrambler = false
fc_buffer_frames = 4
fc_on_frames = 2
fc_off_frames = 1
"#;

const RIFL_DEPTH: u32 = 10;

/// The resend window one slot too long: the procedure resends 2^n entries instead of 2^n - 1,
/// the last of them the oldest entry it skipped (a frame the receiver in step already took).
const RIFL_RESEND_END: &str = "localparam [2:0] RESEND_END = 3'd2;";
const RIFL_RESEND_END_MUTANT: &str = "localparam [2:0] RESEND_END = 3'd4;";

#[test]
fn rifl_lane_tx_and_rx_hold_their_window_and_states_and_an_overlong_resend_is_caught() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = generate(dir.path(), "rifl.toml", RIFL, "out_rifl", "frifl");
    for (m, n) in [("frifl_rl_tx", 10), ("frifl_rl_rx", 11)] {
        let (code, t) = bmc(dir.path(), &tree, m, RIFL_DEPTH, &format!("work_{m}"));
        assert_eq!(code, Some(0), "{t}");
        assert!(row(&t, m).contains(&format!("| {n} | smtbmc-yices | bounded to depth {RIFL_DEPTH} (BMC")), "{t}");
    }
    let mutant = mutate(&tree, dir.path(), "frifl_rl_tx", RIFL_RESEND_END, RIFL_RESEND_END_MUTANT);
    let (code, t) = bmc(dir.path(), &mutant, "frifl_rl_tx", RIFL_DEPTH, "work_mutant");
    assert_eq!(code, Some(1), "{t}");
    assert_counterexample(&t, "frifl_rl_tx", dir.path());
    assert!(row(&t, "frifl_rl_tx").contains("(p_resend_window)"), "{t}");
}

/// The same lane with 16-bit user beats: gearboxes of 2 into 14 bytes (TX) and 14 into 2 (RX),
/// rings of 28 and 42 bytes.
const RIFL_GEAR: &str = r#"
[design]
name = "fgear"
reset = "sync_high"

[[blocks]]
kind = "rifl"
name = "rl"
frame_bits = 128
frame_id_bits = 1
retrans_threshold = 1
control_repeat = 2
scrambler = false
user_bits = 16
fc_buffer_frames = 4
fc_on_frames = 2
fc_off_frames = 1
"#;

/// Depth 8 covers three 14-byte input beats of the RX gearbox with their packet ends and output
/// beats, and one full output beat of the TX gearbox.
const GEAR_DEPTH: u32 = 8;

/// Two mutants of the RX gearbox: the output transfer without `out_ready` (a dropped tready: the
/// beat leaves untaken), and ring byte 1 written from input byte 0 (a byte corrupted on its way).
const GEAR_MUTANTS: [(&str, &str, &str); 2] = [
    ("assign do_out = out_valid & out_ready;", "assign do_out = out_valid;", "p_fill"),
    ("ring[15:8] <= in_data[15:8];", "ring[15:8] <= in_data[7:0];", "p_tag_byte"),
];

#[test]
fn rifl_gearboxes_pass_every_byte_in_order_and_a_dropped_tready_and_a_corrupted_byte_are_caught() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = generate(dir.path(), "gear.toml", RIFL_GEAR, "out_gear", "fgear");
    for m in ["fgear_rl_txgear", "fgear_rl_rxgear"] {
        let (code, t) = bmc(dir.path(), &tree, m, GEAR_DEPTH, &format!("work_{m}"));
        assert_eq!(code, Some(0), "{t}");
        assert!(row(&t, m).contains(&format!("| 5 | smtbmc-yices | bounded to depth {GEAR_DEPTH} (BMC")), "{t}");
    }
    for (from, to, property) in GEAR_MUTANTS {
        let mutant = mutate(&tree, dir.path(), "fgear_rl_rxgear", from, to);
        let (code, t) = bmc(dir.path(), &mutant, "fgear_rl_rxgear", GEAR_DEPTH, &format!("work_{property}"));
        assert_eq!(code, Some(1), "{t}");
        assert_counterexample(&t, "fgear_rl_rxgear", dir.path());
        assert!(row(&t, "fgear_rl_rxgear").contains(&format!("({property})")), "{t}");
        std::fs::remove_dir_all(&mutant).expect("remove the mutant");
    }
}

/// An RXL switch with 2-bit status counters (they saturate within the depth); its link modules'
/// FEC decoder and encoder are free instances of the proof.
const RXL_SW: &str = r#"
[design]
name = "fsw"
reset = "sync_high"

[[blocks]]
kind = "rxl_switch"
name = "sw"
counter_bits = 2
"#;

const RXL_SW_DEPTH: u32 = 6;

/// The ingress delivering a flit the decoder found uncorrectable (and counting it dropped too).
const RXL_SW_DROP: &str = "out_valid_q <= dec_valid & (~dec_uncorrectable);";
const RXL_SW_DROP_MUTANT: &str = "out_valid_q <= dec_valid;";

#[test]
fn the_rxl_switch_ingress_delivers_or_drops_every_flit_and_a_delivered_uncorrectable_flit_is_caught() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = generate(dir.path(), "sw.toml", RXL_SW, "out_sw", "fsw");
    let (code, t) = bmc(dir.path(), &tree, "fsw_sw_link_rx", RXL_SW_DEPTH, "work");
    assert_eq!(code, Some(0), "{t}");
    assert!(row(&t, "fsw_sw_link_rx").contains(&format!("| 8 | smtbmc-yices | bounded to depth {RXL_SW_DEPTH} (BMC")), "{t}");
    // With the bounds on its parts the conservation is inductive: proven, not only bounded.
    let out = rtl_gen(&["formal", tree.to_str().expect("utf-8"), "--module", "fsw_sw_link_rx", "--depth", "1", "--engine", "smtbmc-yices", "--work", "work_induction"], dir.path());
    let t = text(&out);
    assert!(out.status.success() && row(&t, "fsw_sw_link_rx").contains("| 8 | smtbmc-yices | proven | 1 |"), "{t}");
    let mutant = mutate(&tree, dir.path(), "fsw_sw_link_rx", RXL_SW_DROP, RXL_SW_DROP_MUTANT);
    let (code, t) = bmc(dir.path(), &mutant, "fsw_sw_link_rx", RXL_SW_DEPTH, "work_mutant");
    assert_eq!(code, Some(1), "{t}");
    assert_counterexample(&t, "fsw_sw_link_rx", dir.path());
    assert!(row(&t, "fsw_sw_link_rx").contains("(p_flits_conserved)"), "{t}");
}

/// A SUE packer of two one-beat queues of two 8-byte commands, PDUs of up to two commands,
/// 2-bit status counters (they saturate within the depth).
const SUE_PK: &str = r#"
[design]
name = "fsue"
reset = "sync_high"

[[blocks]]
kind = "sue_packer"
name = "pk"
data_bytes = 8
cmd_bytes = 8
num_xpu = 2
num_vc = 1
max_pack_bytes = 16
queue_depth = 2
counter_bits = 2
"#;

/// The clean check's depth (the tagged command's counters make deeper steps slow); the mutants
/// stop at their first failure, found within `SUE_MUTANT_DEPTH`.
const SUE_DEPTH: u32 = 8;
const SUE_MUTANT_DEPTH: u32 = 20;

/// The read engine's advance, and a mutant that advances whether or not the PDU beat was taken.
const SUE_ADV: &str = "assign adv = (~out_valid_q) | m_axis_pdu_tready;";
const SUE_ADV_MUTANT: &str = "assign adv = 1'b1;";

/// Every command of a queue written to its slot 0 (the next command overwrites a waiting one).
const SUE_WADDR: &str = "assign waddr = {q_first, wptr_cur};";
const SUE_WADDR_MUTANT: &str = "assign waddr = {q_first, 1'b0};";

#[test]
fn a_small_sue_packer_keeps_its_stream_queues_commands_and_counters_and_mutants_are_caught() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = generate(dir.path(), "sue.toml", SUE_PK, "out_sue", "fsue");
    let (code, t) = bmc(dir.path(), &tree, "fsue_pk", SUE_DEPTH, "work");
    assert_eq!(code, Some(0), "{t}");
    assert!(row(&t, "fsue_pk").contains(&format!("| 18 | smtbmc-yices | bounded to depth {SUE_DEPTH} (BMC")), "{t}");
    for (from, to, property) in [(SUE_ADV, SUE_ADV_MUTANT, "p_m_axis_pdu_stable"), (SUE_WADDR, SUE_WADDR_MUTANT, "p_tag_data")] {
        let mutant = mutate(&tree, dir.path(), "fsue_pk", from, to);
        let (code, t) = bmc(dir.path(), &mutant, "fsue_pk", SUE_MUTANT_DEPTH, &format!("work_{property}"));
        assert_eq!(code, Some(1), "{t}");
        assert_counterexample(&t, "fsue_pk", dir.path());
        assert!(row(&t, "fsue_pk").contains(&format!("({property})")), "{t}");
        std::fs::remove_dir_all(&mutant).expect("remove the mutant");
    }
}

/// A ReCXL Logging Unit of four SRAM rows (two nodes of one core, two replicas, a 512-byte log,
/// the head reserve and NACKs on): four REPLs fill it within the depth.
const RECXL_LU: &str = r#"
[design]
name = "flu"
reset = "sync_high"

[[blocks]]
kind = "recxl_logging_unit"
name = "lu"
num_nodes = 2
cores_per_node = 1
replicas = 2
addr_bits = 24
word_bytes = 8
ts_bits = 8
tag_bits = 2
csn_bits = 0
sram_rows = 4
log_bytes = 512
fetch_queries = 1
counter_bits = 16
"#;

const RECXL_DEPTH: u32 = 10;

/// The REPL admission, and a mutant that admits a REPL into a full SRAM Log Buffer.
const RECXL_READY: &str = "assign repl_ready_w = (rows_used_q < ROWS) & (ack_cnt_q < 3'd4);";
const RECXL_READY_MUTANT: &str = "assign repl_ready_w = (rows_used_q <= ROWS) & (ack_cnt_q < 3'd4);";

#[test]
fn a_small_recxl_logging_unit_keeps_its_rows_and_states_and_an_overfull_admission_is_caught() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = generate(dir.path(), "lu.toml", RECXL_LU, "out_lu", "flu");
    let (code, t) = bmc(dir.path(), &tree, "flu_lu", RECXL_DEPTH, "work");
    assert_eq!(code, Some(0), "{t}");
    assert!(row(&t, "flu_lu").contains(&format!("| 46 | smtbmc-yices | bounded to depth {RECXL_DEPTH} (BMC")), "{t}");
    let mutant = mutate(&tree, dir.path(), "flu_lu", RECXL_READY, RECXL_READY_MUTANT);
    let (code, t) = bmc(dir.path(), &mutant, "flu_lu", RECXL_DEPTH, "work_mutant");
    assert_eq!(code, Some(1), "{t}");
    assert_counterexample(&t, "flu_lu", dir.path());
    assert!(row(&t, "flu_lu").contains("(p_rows_used)"), "{t}");
}

/// Two RXL endpoints with the smallest timers (their CRC, FEC and replay buffer are free
/// instances of the proof, so the 2048-bit flit costs nothing): one in rxl mode, one the CXL
/// baseline. A discarding end must send a NACK within nack_timeout + 1 = 3 link cycles, a
/// delivered payload be acknowledged within ack_timeout + 1 = 2; the planted lost-NACK
/// deadlock shows at step 8, so depth 10 catches it and saturates the 2-bit counters.
const RXL_EP: &str = r#"
[design]
name = "frxl"
reset = "sync_high"

[[blocks]]
kind = "rxl_endpoint"
name = "ep"
replay_depth = 2
ack_every = 1
ack_timeout = 1
nack_timeout = 2
replay_timeout = 2
counter_bits = 2

[[blocks]]
kind = "rxl_endpoint"
name = "cx"
mode = "cxl_baseline"
replay_depth = 3
ack_every = 2
ack_timeout = 2
nack_timeout = 3
replay_timeout = 3
counter_bits = 2
"#;

const RXL_DEPTH: u32 = 10;

/// Two mutants of the NACK repeat: the timer's compare one step late (the timer reaches
/// NACK_TIMEOUT, an encoding it must never hold), and the repeat dropped from the pending NACK
/// (a lost NACK is never sent again: the end discards for ever, the deadlock `p_nack_repeat`
/// is for).
const RXL_MUTANTS: [(&str, &str, &str); 2] = [
    ("(nack_timer == (NACK_TIMEOUT - 2'd1))", "(nack_timer == NACK_TIMEOUT)", "p_nack_timer"),
    ("nack_pending <= trigger_nack | renack | ", "nack_pending <= trigger_nack | ", "p_nack_repeat"),
];

#[test]
fn a_small_rxl_endpoint_keeps_its_timers_acks_and_counters_and_a_lost_nack_deadlock_is_caught() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = generate(dir.path(), "rxl.toml", RXL_EP, "out_rxl", "frxl");
    let (code, t) = bmc(dir.path(), &tree, "frxl_ep", RXL_DEPTH, "work");
    assert_eq!(code, Some(0), "{t}");
    assert!(row(&t, "frxl_ep").contains(&format!("| 16 | smtbmc-yices | bounded to depth {RXL_DEPTH} (BMC")), "{t}");
    for (from, to, property) in RXL_MUTANTS {
        let mutant = mutate(&tree, dir.path(), "frxl_ep", from, to);
        let (code, t) = bmc(dir.path(), &mutant, "frxl_ep", RXL_DEPTH, &format!("work_{property}"));
        assert_eq!(code, Some(1), "{t}");
        assert_counterexample(&t, "frxl_ep", dir.path());
        assert!(row(&t, "frxl_ep").contains(&format!("({property})")), "{t}");
        std::fs::remove_dir_all(&mutant).expect("remove the mutant");
    }
}

#[test]
#[ignore = "the CXL-baseline endpoint's check to depth 12 takes about a minute; run with RTLGEN_LONG=1 and --ignored"]
fn the_cxl_baseline_endpoint_holds_its_properties_to_depth() {
    if !common::long() {
        eprintln!("skipped: set RTLGEN_LONG=1");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = generate(dir.path(), "rxl.toml", RXL_EP, "out_rxl", "frxl");
    let (code, t) = bmc(dir.path(), &tree, "frxl_cx", 12, "work");
    assert_eq!(code, Some(0), "{t}");
    assert!(row(&t, "frxl_cx").contains("| 16 | smtbmc-yices | bounded to depth 12 (BMC"), "{t}");
}

/// A SUE transport of two PSN spaces (two destinations, one VC), a window of one PDU in two
/// slots, PDUs of one or two 16-byte commands (one beat each), a receive buffer of four beats
/// and a queue of four PDUs, 2-bit status counters, the shortest timers (a timeout takes 64
/// cycles, beyond the depth: the go-back-N rules are reached through received NACKs). A whole
/// PDU is stored, sent and acknowledged within six cycles, so the window fills within the depth.
const SUE_TP: &str = r#"
[design]
name = "fstp"
reset = "sync_high"

[[blocks]]
kind = "sue_transport"
name = "tp"
data_bytes = 16
cmd_bytes = 16
num_xpu = 2
num_vc = 1
max_pack_bytes = 32
counter_bits = 2
xpuid_source = "constant"
window = 1
rto_cycles = 64
nack_timeout_cycles = 16
rx_buf_bytes_per_vc = 64
"#;

/// The clean check's depth in the default run (each step beyond doubles its time: depth 10
/// takes minutes, opt-in); the mutants stop at their first failure, within `SUE_TP_MUTANT_DEPTH`.
const SUE_TP_DEPTH: u32 = 5;
const SUE_TP_LONG_DEPTH: u32 = 10;
const SUE_TP_MUTANT_DEPTH: u32 = 12;

/// One mutant per family, and the property it must fail: the TX engine advancing without
/// `m_axis_tx_tready`; the ingest's window check off by one (a PDU stored in a full window);
/// an ACK of `hwm` taken (una moved past what was sent); a NACK resuming one PDU after the
/// PSN it names; the command output starting with no PDU queued (a read of an empty buffer).
const SUE_TP_MUTANTS: [(&str, &str, &str); 5] = [
    ("assign adv = (~out_valid_q) | m_axis_tx_tready;", "assign adv = 1'b1;", "p_m_axis_tx_stable"),
    ("assign win_free = {s1_used < WINDOW, s0_used < WINDOW};", "assign win_free = {s1_used < WINDOW, s0_used <= WINDOW};", "p_s0_window"),
    ("(r_du[1:0] < r_dh);", "(r_du[1:0] <= r_dh);", "p_s1_una_moves"),
    ("s0_snd <= r_rpsn;", "s0_snd <= r_rpsn + 16'd1;", "p_s0_goback"),
    ("assign o_req = (v0_mc != 3'd0) & (~xpu_vc_pause);", "assign o_req = ~xpu_vc_pause;", "p_v0_no_underflow"),
];

/// A status counter stepping from all ones (its saturation dropped): it needs four received
/// PDUs, so it runs with the long check.
const SUE_TP_COUNTER: (&str, &str, &str) = ("assign cnt_rx_pdu_q_en = rv_end_q & (~cnt_rx_pdu_q_ones);", "assign cnt_rx_pdu_q_en = rv_end_q;", "p_cnt_rx_pdu_sat");

#[test]
fn a_small_sue_transport_keeps_its_streams_window_queues_and_counters_and_mutants_are_caught() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = generate(dir.path(), "tp.toml", SUE_TP, "out_tp", "fstp");
    let (code, t) = bmc(dir.path(), &tree, "fstp_tp", SUE_TP_DEPTH, "work");
    assert_eq!(code, Some(0), "{t}");
    assert!(row(&t, "fstp_tp").contains(&format!("| 67 | smtbmc-yices | bounded to depth {SUE_TP_DEPTH} (BMC")), "{t}");
    for (from, to, property) in SUE_TP_MUTANTS {
        let mutant = mutate(&tree, dir.path(), "fstp_tp", from, to);
        let (code, t) = bmc(dir.path(), &mutant, "fstp_tp", SUE_TP_MUTANT_DEPTH, &format!("work_{property}"));
        assert_eq!(code, Some(1), "{t}");
        assert_counterexample(&t, "fstp_tp", dir.path());
        assert!(row(&t, "fstp_tp").contains(&format!("({property})")), "{t}");
        std::fs::remove_dir_all(&mutant).expect("remove the mutant");
    }
}

#[test]
#[ignore = "the small SUE transport's check to depth 10 takes minutes; run with RTLGEN_LONG=1 and --ignored"]
fn a_small_sue_transport_holds_its_properties_to_depth_and_a_wrapping_counter_is_caught() {
    if !common::long() {
        eprintln!("skipped: set RTLGEN_LONG=1");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = generate(dir.path(), "tp.toml", SUE_TP, "out_tp", "fstp");
    let (code, t) = bmc(dir.path(), &tree, "fstp_tp", SUE_TP_LONG_DEPTH, "work");
    assert_eq!(code, Some(0), "{t}");
    assert!(row(&t, "fstp_tp").contains(&format!("| 67 | smtbmc-yices | bounded to depth {SUE_TP_LONG_DEPTH} (BMC")), "{t}");
    let (from, to, property) = SUE_TP_COUNTER;
    let mutant = mutate(&tree, dir.path(), "fstp_tp", from, to);
    let (code, t) = bmc(dir.path(), &mutant, "fstp_tp", SUE_TP_MUTANT_DEPTH, "work_counter");
    assert_eq!(code, Some(1), "{t}");
    assert_counterexample(&t, "fstp_tp", dir.path());
    assert!(row(&t, "fstp_tp").contains(&format!("({property})")), "{t}");
}
