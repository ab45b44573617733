//! Properties of one RIFL lane's receiver, at its registered outputs and Listing 1's counters:
//!
//! - Listing 1's window: `frame_id` never runs ahead of `threshold` and never lags it by more
//!   than RETRANS_THRESHOLD (mod 2^n), and a lane without a frame error is in step
//!   (`frame_id` = `threshold`);
//! - consistent outputs: a delivered frame (`out_valid`) comes with no frame error and no new
//!   error; a new error (`err_pulse`) comes with the frame error flag; the two request flags
//!   (pause, retransmit) are never up together, and neither is up while the lane is out of
//!   sync;
//! - the control monitor's run counters saturate at CONTROL_REPEAT.

use crate::hw::build::{and, dec, eq, id, le, sub};
use crate::hw::props::{running, Formal};
use crate::hw::verilog::Item;
use crate::info::DesignInfo;

/// `ib`: frame ID bits.
pub fn properties(design: &DesignInfo, ib: u32) -> Item {
    let reset = design.reset;
    let mut f = Formal::clocked(reset);
    let run = running(reset);
    f.items.push(Item::wire("f_lag", ib, "threshold - frame_id (mod 2^n): frames the rolled-back count still has to catch up"));
    f.items.push(Item::assign(id("f_lag"), sub(id("threshold"), id("frame_id"))));
    f.assert("p_rx_window", "frame_id lags threshold by at most RETRANS_THRESHOLD and never runs ahead of it", Some(run.clone()), le(id("f_lag"), id("RETRANS_THRESHOLD")));
    f.assert("p_rx_in_step", "without a frame error the lane is in step: frame_id = threshold", Some(and(run.clone(), id("frame_error_q").not())), eq(id("f_lag"), dec(ib, 0)));
    f.assert("p_rx_deliver", "a delivered frame comes with no frame error and no new error", Some(and(run.clone(), id("out_valid_q"))), and(id("frame_error_q").not(), id("err_pulse_q").not()));
    f.assert("p_rx_err", "a new error comes with the frame error flag", Some(and(run.clone(), id("err_pulse_q"))), id("frame_error_q"));
    f.assert("p_rx_requests", "the pause and retransmit request flags are never up together", Some(run.clone()), and(id("pause_req_q"), id("retrans_req_q")).not());
    f.assert("p_rx_sync_quiet", "no request flag is up while the lane is out of sync", Some(and(run.clone(), id("oos"))), and(id("pause_req_q").not(), id("retrans_req_q").not()));
    for c in ["sync_cnt", "pause_cnt", "retr_cnt", "pause_quiet", "retr_quiet"] {
        f.assert(&format!("p_rx_{c}_max"), &format!("{c} saturates at CONTROL_REPEAT"), Some(run.clone()), le(id(c), id("CONTROL_REPEAT")));
    }
    Item::Formal(f)
}
