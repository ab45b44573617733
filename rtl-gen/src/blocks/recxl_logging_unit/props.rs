//! Properties of the ReCXL Logging Unit, at its row and engine registers:
//!
//! - legal states: every SRAM Log Buffer row is FREE, PENDING or VALID, the fetch engine is
//!   idle, traversing or on its terminating beat (the dump engine's four states fill its two
//!   bits);
//! - rows: `rows_used_q` is exactly the number of rows that are not FREE (occupancy = rows
//!   taken − rows freed), never above ROWS, and the rows held by SB-head REPLs are among them;
//! - the DRAM log holds at most LOG_RECORDS records (no overflow; the count is unsigned, so an
//!   underflow would wrap above it).

use crate::hw::build::{add, all, and, dec, eq, id, le, ne};
use crate::hw::props::{running, Formal};
use crate::hw::verilog::{Expr, Item};
use crate::info::DesignInfo;

/// `rows` SRAM rows, row counts of `rcb` bits.
pub fn properties(design: &DesignInfo, rows: u32, rcb: u32) -> Item {
    let reset = design.reset;
    let mut f = Formal::clocked(reset);
    let run = running(reset);
    let legal: Vec<_> = (0..rows).map(|i| ne(id(&format!("r{i}_st")), dec(2, 3))).collect();
    f.assert("p_rows_legal", "every row is FREE, PENDING or VALID", Some(run.clone()), all(legal));
    f.assert("p_fetch_legal", "the fetch engine is in F_IDLE, F_TRAV or F_LAST", Some(run.clone()), ne(id("fstate_q"), dec(2, 3)));
    f.items.push(Item::wire("f_rows_taken", rcb, "rows that are not FREE"));
    // Each row's "taken" bit widened to the count's width by a sized zero (`{3'd0, bit}`): the
    // property block is printed as built, so no `{N{1'd0}}` replication.
    let widen = |bit: Expr| if rcb > 1 { Expr::Concat(vec![dec(rcb - 1, 0), bit]) } else { bit };
    let taken = (0..rows).map(|i| widen(ne(id(&format!("r{i}_st")), id("ROW_FREE")))).reduce(add).expect("at least one row");
    f.items.push(Item::assign(id("f_rows_taken"), taken));
    f.assert(
        "p_rows_used",
        "rows_used_q counts the rows that are not FREE, at most ROWS, and the SB-head rows are among them",
        Some(run.clone()),
        and(eq(id("rows_used_q"), id("f_rows_taken")), and(le(id("rows_used_q"), id("ROWS")), le(id("head_used_q"), id("rows_used_q")))),
    );
    f.assert("p_log_count", "the DRAM log holds at most LOG_RECORDS records", Some(run), le(id("count_q"), id("LOG_RECORDS")));
    Item::Formal(f)
}
