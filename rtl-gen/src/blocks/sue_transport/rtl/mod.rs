//! The `sue_transport` module, in sections: [`ports`], TX ingest into the retransmission slots
//! ([`ingest`]), TX selection ([`select`]), the TX engine with the R-CRC ([`engine`], maps in
//! [`crc`]), the RX checker ([`rx`]), the per-space protocol state ([`space`]: PSNs, timers,
//! ACK/NACK flags), the receive buffers and command output ([`deliver`]) and the counters and
//! port assignments ([`status`]). Every rule mirrors [`super::model::TransportModel`]; the
//! sections append to one item list in this order, so the module reads top to bottom as the
//! data flows.

mod crc;
mod deliver;
mod engine;
mod ingest;
mod ports;
mod rx;
mod select;
mod space;
mod status;

use super::model::crc_init;
use super::{SueTransportBlock, TransportParams};
use crate::blocks::crc::model::CrcModel;
use crate::blocks::protocol::sue::wire::Op;
use crate::blocks::protocol::sue::XPUID_BITS;
use crate::hw::build::{
    add, any, bit_of, bits_for, cat, clog2, dec, id, localparam, sub, wire, zeros, zext,
};
use crate::hw::module::{GeneratedModule, Role};
use crate::hw::select::rep;
use crate::hw::verilog::{BinOp, Expr, Item, Module};
use crate::info::DesignInfo;

/// What every section shares: the configuration's widths and sizes, the localparams it
/// compares against (as expressions naming them) and the R-CRC.
pub(super) struct Ctx<'a> {
    pub p: &'a TransportParams,
    pub crc: CrcModel,
    /// Destinations, VCs, PSN spaces per destination, PSN spaces.
    pub x: u32,
    pub v: u32,
    pub kpp: u32,
    pub ns: u32,
    /// Beat bits and bytes; beats of a command.
    pub dw: u32,
    pub db: u32,
    pub cbt: u32,
    /// Slots per space and their index bits; beats per slot and their index bits.
    pub slots: u32,
    pub sb: u32,
    pub sbeats: u32,
    pub bb: u32,
    /// Index bits of a space, a destination, a VC.
    pub snb: u32,
    pub xb: u32,
    pub vb: u32,
    /// Widths: payload beat count, command count, status counters, retransmission timer,
    /// unacknowledged count, ACK age, NACK age.
    pub pbw: u32,
    pub nw: u32,
    pub kb: u32,
    pub tw: u32,
    pub uw: u32,
    pub aw: u32,
    pub nkw: u32,
    /// Receive buffer: its RAM beats per VC and pointer bits, the beats-held width.
    pub rrb: u32,
    pub rpw: u32,
    pub ubw: u32,
    /// Receive PDU queue: depth, pointer bits, count width.
    pub md: u32,
    pub mdw: u32,
    pub mcw: u32,
    /// Beat-within-command bits; command output beat count width.
    pub cbw: u32,
    pub olw: u32,
    /// Window arithmetic bits: every PSN difference the sender compares (`next - una`,
    /// `hwm - snd`, `snd - una` after an ACK) lies in `-window..=window`, so it is exact modulo
    /// `2^pw` with `2^pw > 2·window + 1`: the compares use the PSNs' low `pw` bits only, not 16.
    pub pw: u32,
    /// The localparams: `WINDOW`, `MAX_CMDS`, `PACK_BEATS`, `RTO_LAST`, `ACK_COALESCE`,
    /// `ACK_DELAY` (only with a delay), `NACK_LAST`, `RX_ROOM`, `RX_PAUSE_AT`, `CNT_MAX`,
    /// `CRC_INIT`, the RH ops, and `NUM_XPU` / `NUM_VC` where below the field's range.
    pub window_e: Expr,
    pub m_e: Expr,
    pub pb_e: Expr,
    pub rto_last: Expr,
    pub coal_e: Expr,
    pub delay_e: Option<Expr>,
    pub nto_last: Expr,
    pub room_e: Expr,
    pub pause_e: Expr,
    pub cnt_max: Expr,
    pub init_e: Expr,
    pub op_ack: Expr,
    pub op_nack: Expr,
    pub op_reserved: Expr,
    pub num_xpu: Option<Expr>,
    pub num_vc: Option<Expr>,
}

impl Ctx<'_> {
    /// Destination of PSN space `s`.
    pub fn dest_of(&self, s: u32) -> u32 {
        s / self.kpp
    }
    /// VC of PSN space `s` (0 with one space per destination).
    pub fn vc_of(&self, s: u32) -> u32 {
        s % self.kpp
    }
    /// The slot meta word of space `sidx` at PSN `psn` (its slot bits).
    pub fn meta_at(&self, sidx: Expr, psn: &str) -> Expr {
        Expr::Index(
            "meta".into(),
            Box::new(cat(vec![sidx, Expr::slice(psn, self.sb - 1, 0)])),
        )
    }
    /// Register `v<vc>_<name>` of the VC that `sel` (2 bits) names: an AND-OR over the VCs.
    pub fn vsel(&self, name: &str, w: u32, sel: Expr) -> Expr {
        any((0..self.v)
            .map(|vv| {
                Expr::and(
                    rep(w, Expr::eq(sel.clone(), dec(2, vv as u64))),
                    id(&format!("v{vv}_{name}")),
                )
            })
            .collect())
    }
    /// The low window-arithmetic bits of PSN register or wire `name`.
    pub fn psn_lo(&self, name: &str) -> Expr {
        Expr::slice(name, self.pw - 1, 0)
    }
    /// `a - b` of two PSNs known to be within a window of each other, on `pw` bits.
    pub fn psn_diff(&self, a: &str, b: &str) -> Expr {
        sub(self.psn_lo(a), self.psn_lo(b))
    }
    /// `a == b` of two PSNs known to be within a window of each other.
    pub fn psn_same(&self, a: &str, b: &str) -> Expr {
        Expr::eq(self.psn_lo(a), self.psn_lo(b))
    }
}

/// Name `f` of PSN space `s`: `s<s>_<f>`.
pub(super) fn sp(s: u32, f: &str) -> String {
    format!("s{s}_{f}")
}

/// `a · k` for a constant `k`, as a sum of shifted copies (`w` bits wide, `a` is `aw` bits).
fn mul_const(a: &str, aw: u32, k: u32, w: u32) -> Expr {
    let mut terms = Vec::new();
    for j in 0..32 {
        if (k >> j) & 1 == 1 {
            if j >= w {
                continue;
            }
            let keep = aw.min(w - j);
            let src = if keep == aw {
                id(a)
            } else {
                Expr::slice(a, keep - 1, 0)
            };
            let shifted = if j == 0 {
                src
            } else {
                cat(vec![src, zeros(j)])
            };
            terms.push(zext(shifted, keep + j, w));
        }
    }
    terms.into_iter().reduce(add).expect("k > 0")
}

/// A wire of which only some bits are used, between lint pragmas (its other bits are part of
/// a shared word such as a slot's meta or a PSN).
fn partly_used(items: &mut Vec<Item>, name: &str, width: u32, doc: &str, value: Expr) {
    items.push(Item::pragma("verilator lint_off UNUSED"));
    wire(items, name, width, doc, value);
    items.push(Item::pragma("verilator lint_on UNUSED"));
}

fn ge(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Ge, a, b)
}

fn gt(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Gt, a, b)
}

/// Bit `vc` (an expression of 2 bits) of the `v`-bit vector `vec`: an AND-OR over the VCs.
fn vc_bit(vec: &str, v: u32, vc: Expr) -> Expr {
    any((0..v)
        .map(|j| Expr::and(Expr::eq(vc.clone(), dec(2, j as u64)), bit_of(vec, v, j)))
        .collect())
}

/// Whether counter `name` has a register: without the partition check no PDU is dropped for
/// its partition, so that counter is a constant zero.
fn counted(p: &TransportParams, name: &str) -> bool {
    p.partition_check || name != "cnt_rx_partition_err"
}

pub fn module(b: &SueTransportBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let c = &b.common;
    let p = &b.resolved;
    let (x, v) = (c.num_xpu, c.num_vc);
    let kpp = b.per_peer();
    let ns = b.spaces();
    let dw = 8 * c.data_bytes;
    let db = c.data_bytes;
    let cbt = c.cmd_beats();
    let m = c.max_cmds();
    let pb = c.max_pack_bytes / c.data_bytes;
    let slots = b.slots();
    let sb = clog2(slots as u64);
    let sbeats = b.slot_beats();
    let bb = clog2(sbeats as u64);
    let snb = clog2(ns as u64);
    let xb = clog2(x as u64);
    let vb = clog2(v as u64);
    let pbw = bits_for(pb as u64 + 1);
    let nw = bits_for(m as u64);
    let kb = c.counter_bits;
    let tw = bits_for(p.rto_cycles as u64);
    let uw = bits_for(p.ack_coalesce as u64);
    let aw = bits_for(p.ack_delay_cycles as u64);
    let nkw = bits_for(p.nack_timeout_cycles as u64);
    let rb = b.rx_beats();
    let rrb = b.rx_ram_beats();
    let rpw = clog2(rrb as u64);
    let ubw = bits_for(rb as u64);
    let md = b.rx_meta_depth();
    let mdw = clog2(md as u64);
    let mcw = bits_for(md as u64);
    let cbw = clog2(cbt as u64);
    let olw = bits_for(cbt as u64);
    let pw = (clog2(u64::from(p.window) + 1) + 1).min(16);
    let crc = p.rcrc.model();

    let ports = ports::ports(b, design);
    let mut it: Vec<Item> = Vec::new();
    let window_e = localparam(
        &mut it,
        "WINDOW",
        pw,
        p.window as u64,
        "PDUs per PSN space stored and unacknowledged",
    );
    let m_e = localparam(
        &mut it,
        "MAX_CMDS",
        nw,
        m as u64,
        "commands per PDU at most",
    );
    let pb_e = localparam(
        &mut it,
        "PACK_BEATS",
        pbw,
        pb as u64,
        "payload beats of a maximum PDU",
    );
    let rto_last = localparam(
        &mut it,
        "RTO_LAST",
        tw,
        (p.rto_cycles - 1) as u64,
        "timer value at which the retransmission timeout fires (rto_cycles - 1)",
    );
    let coal_e = localparam(
        &mut it,
        "ACK_COALESCE",
        uw,
        p.ack_coalesce as u64,
        "accepted PDUs that make an ACK due",
    );
    let delay_e = if p.ack_delay_cycles > 0 {
        Some(localparam(
            &mut it,
            "ACK_DELAY",
            aw,
            p.ack_delay_cycles as u64,
            "cycles a pending ACK may wait",
        ))
    } else {
        None
    };
    let nto_last = localparam(
        &mut it,
        "NACK_LAST",
        nkw,
        (p.nack_timeout_cycles - 1) as u64,
        "NACK re-arm: age at which a persisting gap is NACKed again",
    );
    let room_e = localparam(
        &mut it,
        "RX_ROOM",
        ubw,
        (rb - pb) as u64,
        "most beats held with room for a maximum PDU",
    );
    let pause_e = localparam(
        &mut it,
        "RX_PAUSE_AT",
        ubw,
        (rb - p.rx_pause_bytes / db) as u64,
        "beats held above which the VC is paused",
    );
    let cmax = if kb >= 64 { u64::MAX } else { (1u64 << kb) - 1 };
    let cnt_max = localparam(
        &mut it,
        "CNT_MAX",
        kb,
        cmax,
        "status counters saturate here",
    );
    let crc_init_v = crc_init(&crc) as u64;
    let init_e = localparam(
        &mut it,
        "CRC_INIT",
        32,
        crc_init_v,
        "R-CRC register before the first byte",
    );

    // RH op codes compared on receipt (the model's `Op`), and the sideband limits checked on
    // ingest where they are below the field's range.
    let op_ack = localparam(
        &mut it,
        "OP_ACK",
        2,
        Op::Ack as u64,
        "RH op: cumulative ACK up to rpsn",
    );
    let op_nack = localparam(
        &mut it,
        "OP_NACK",
        2,
        Op::Nack as u64,
        "RH op: NACK, rpsn is the first missing PSN",
    );
    let op_reserved = localparam(
        &mut it,
        "OP_RESERVED",
        2,
        Op::Reserved as u64,
        "RH op: never sent, a header error on receipt",
    );
    let num_xpu = (x < 1024).then(|| {
        localparam(
            &mut it,
            "NUM_XPU",
            XPUID_BITS,
            x as u64,
            "xpuids below this are valid destinations",
        )
    });
    let num_vc = (v < 4).then(|| localparam(&mut it, "NUM_VC", 2, v as u64, "virtual channels"));
    let cx = Ctx {
        p,
        crc,
        x,
        v,
        kpp,
        ns,
        dw,
        db,
        cbt,
        slots,
        sb,
        sbeats,
        bb,
        snb,
        xb,
        vb,
        pbw,
        nw,
        kb,
        tw,
        uw,
        aw,
        nkw,
        rrb,
        rpw,
        ubw,
        md,
        mdw,
        mcw,
        cbw,
        olw,
        pw,
        window_e,
        m_e,
        pb_e,
        rto_last,
        coal_e,
        delay_e,
        nto_last,
        room_e,
        pause_e,
        cnt_max,
        init_e,
        op_ack,
        op_nack,
        op_reserved,
        num_xpu,
        num_vc,
    };
    ingest::sideband(&cx, &mut it);
    ingest::space_regs(&cx, &mut it);
    ingest::window(&cx, &mut it);
    ingest::store(&cx, &mut it);
    let dest_pick = select::select(&cx, &mut it);
    engine::engine(&cx, &mut it, dest_pick);
    rx::frame(&cx, &mut it);
    rx::header(&cx, &mut it);
    rx::checks(&cx, &mut it);
    rx::verdict(&cx, &mut it);
    rx::regs(&cx, &mut it);
    space::protocol(&cx, &mut it);
    deliver::output(&cx, &mut it);
    deliver::buffers(&cx, &mut it);
    status::counters(&cx, &mut it);
    status::outputs(&cx, &mut it);

    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: it, reset: Some(design.reset) },
        latency: b.tx_latency(),
        summary: format!(
            "SUE transport: {ns} PSN spaces ({}), window {} in {slots} slots of {} bytes each; R-CRC {}; go-back-N on NACK and after {} cycles; receive buffers of {} bytes per VC ({v} VCs).",
            if kpp > 1 { "per {destination, VC}" } else { "per destination" },
            p.window,
            c.max_pack_bytes,
            p.rcrc.name(),
            p.rto_cycles,
            p.rx_buf_bytes_per_vc
        ),
        notes: b.notes(),
        role: Role::SueTransport,
        origin: None,
    }
}
