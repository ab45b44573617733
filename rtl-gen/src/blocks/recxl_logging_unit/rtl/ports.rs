//! The module's ports (contract §4.3), in the contract's order: configuration and control,
//! status and counters, REPL, REPL_ACK, VAL, the log write and read ports, the dump write port,
//! FetchLatestVers queries and responses.

use super::super::RecxlLoggingUnitBlock;
use crate::hw::module::clock_ports;
use crate::hw::verilog::Port;
use crate::info::DesignInfo;

pub(super) fn ports(b: &RecxlLoggingUnitBlock, design: &DesignInfo) -> Vec<Port> {
    let n = b.n();
    let (nb, cb, tg, cs, ts, la) = (b.nb(), b.cb(), b.tag_bits, b.csn_bits, b.ts_bits, b.la());
    let (wd, wib, dw, lw, rec) = (b.words(), b.wib(), b.dw(), b.lw(), b.rec());
    let (lib, lcb, qb, cnt, a) = (b.lib(), b.lcb(), b.qb(), b.counter_bits, b.shape.addr_bits);
    let rcb = b.rb() + 1;
    let mut ports = clock_ports(design);
    let mut push = |p: Port| ports.push(p);
    push(Port::input("cfg_node_id", nb, "this CN's ID; static (change it only in reset)"));
    push(Port::input("cfg_failed_mask", n, "bit n = CN n has failed; bits may be set in any cycle (at Interrupt, before the unit quiesces), never cleared"));
    push(Port::input("cfg_dump_base", a, "byte address of this unit's dump region, 64-byte aligned; change only while st_dump_busy is low"));
    push(Port::input("cfg_dump_limit", a, "exclusive end of the dump region; change only while st_dump_busy is low"));
    push(Port::input("ctl_dump_start", 1, "pulse: start a dump epoch (taken while idle, not done, and no fetch runs)"));
    push(Port::input("ctl_dump_commit", 1, "pulse: every unit finished this epoch (barrier)"));
    push(Port::input("ctl_quiesce", 1, "level: Interrupt .. RecovEnd"));
    push(Port::output("st_quiesced", 1, "InterruptResp condition of this unit"));
    push(Port::output("st_dump_busy", 1, "epoch traversal running"));
    push(Port::output("st_dump_done", 1, "traversal and trailer written, waiting for commit"));
    push(Port::output("st_dump_overflow", 1, "the last epoch stopped at cfg_dump_limit (abandoned, no trailer); cleared by the next accepted ctl_dump_start"));
    push(Port::output("st_log_almost_full", 1, "log occupancy >= high-water mark"));
    push(Port::output("st_log_count", lcb, "records held in the DRAM log"));
    push(Port::output("st_rows_used", rcb, "SRAM rows in use"));
    push(Port::output("st_epoch", 32, "committed epochs"));
    push(Port::input("stat_sel", 5, "counter select"));
    push(Port::output("stat_data", cnt, "counter stat_sel, registered (1-cycle latency)"));
    push(Port::input("repl_valid", 1, "REPL offered"));
    push(Port::output("repl_ready", 1, "a row is free and the ACK FIFO has room"));
    push(Port::input("repl_src_node", nb, "requester CN"));
    push(Port::input("repl_src_core", cb, "requester core"));
    if tg > 0 {
        push(Port::input("repl_tag", tg, "transaction tag (H1)"));
    }
    push(Port::input("repl_at_head", 1, "store at the SB head (H4)"));
    push(Port::input("repl_line", la, "physical line address"));
    push(Port::input("repl_mask", wd, "Word Mask, bit i = word i"));
    push(Port::input("repl_data", lw, "word i at [DW*i+DW-1 : DW*i]"));
    push(Port::output("ack_valid", 1, "REPL_ACK offered"));
    push(Port::input("ack_ready", 1, "REPL_ACK taken"));
    push(Port::output("ack_dst_node", nb, "requester CN"));
    push(Port::output("ack_dst_core", cb, "requester core"));
    if tg > 0 {
        push(Port::output("ack_tag", tg, "transaction tag"));
    }
    push(Port::output("ack_line", la, "line acknowledged"));
    push(Port::output("ack_nack", 1, "1 = not logged, re-send at the SB head (H4)"));
    push(Port::input("val_valid", 1, "VAL offered"));
    push(Port::output("val_ready", 1, "always 1: VAL is never backpressured"));
    push(Port::input("val_src_node", nb, "requester CN"));
    push(Port::input("val_src_core", cb, "requester core"));
    if tg > 0 {
        push(Port::input("val_tag", tg, "transaction tag"));
    }
    push(Port::input("val_line", la, "line validated"));
    push(Port::input("val_ts", ts, "logical timestamp (§IV-C)"));
    if cs > 0 {
        push(Port::input("val_csn", cs, "commit sequence number (H2)"));
    }
    push(Port::output("logw_valid", 1, "append one record to the DRAM log"));
    push(Port::input("logw_ready", 1, "the log memory takes it"));
    push(Port::output("logw_idx", lib, "record index (wraps at LR)"));
    push(Port::output("logw_data", rec, "record (contract §4.4)"));
    push(Port::output("logr_req_valid", 1, "log read request"));
    push(Port::input("logr_req_ready", 1, "read request taken"));
    push(Port::output("logr_req_idx", lib, "record index to read"));
    push(Port::input("logr_rsp_valid", 1, "read data"));
    push(Port::output("logr_rsp_ready", 1, "read data taken"));
    push(Port::input("logr_rsp_data", rec, "record read"));
    push(Port::output("dump_wr_valid", 1, "64-byte write to the MN dump region"));
    push(Port::input("dump_wr_ready", 1, "write taken"));
    push(Port::output("dump_wr_addr", a, "byte address, 64-byte aligned"));
    push(Port::output("dump_wr_data", 512, "RPB records, or the trailer"));
    push(Port::output("dump_wr_last", 1, "epoch trailer beat"));
    push(Port::input("fq_valid", 1, "FetchLatestVers query"));
    push(Port::output("fq_ready", 1, "query taken (quiesced, fetch idle)"));
    push(Port::input("fq_line", la, "queried line"));
    push(Port::input("fq_last", 1, "last query of the batch"));
    push(Port::output("fr_valid", 1, "FetchLatestVersResp beat"));
    push(Port::input("fr_ready", 1, "beat taken"));
    push(Port::output("fr_match", 1, "beat carries a logged update (0 on the terminating beat)"));
    push(Port::output("fr_qidx", qb, "query index"));
    push(Port::output("fr_line", la, "line"));
    push(Port::output("fr_word", wib, "word index"));
    push(Port::output("fr_src_node", nb, "writer CN"));
    push(Port::output("fr_src_core", cb, "writer core"));
    if cs > 0 {
        push(Port::output("fr_csn", cs, "commit sequence number"));
    }
    push(Port::output("fr_data", dw, "word value"));
    push(Port::output("fr_age", lib, "0 = newest record of the log"));
    push(Port::output("fr_last", 1, "terminating beat"));

    ports
}
