//! `<p>`: the RIFL node top (see `model::node`): TX gearbox, segmenting and dispatch over the
//! lanes (with more than one lane through a skid buffer per lane), per lane TX/RX/flow-control
//! buffer, RX group assembly, RX gearbox, status.

use crate::hw::build::*;
use crate::hw::count::sat_accumulator;
use crate::hw::props::Formal;
use super::Names;
use crate::blocks::rifl::model::params::Params;
use crate::blocks::rifl::Recovered;
use crate::hw::axis::{Axis, Signal};
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::verilog::{Expr, Item, Module, Port, UnOp};

/// Width of the status counters.
pub const COUNTER_BITS: u32 = 32;

/// User beats into the node.
pub const USER_IN: &str = "s_axis";
/// Delivered user beats out of the node.
pub const USER_OUT: &str = "m_axis";

/// The user stream bundles of a node with `u`-byte beats: [`USER_IN`], [`USER_OUT`].
pub fn streams(u: u32) -> [Axis; 2] {
    [
        Axis::sink(USER_IN, 8 * u, "user data in; byte i at [8i+7:8i]", "a user beat is offered", "registered state only (no path from any input)")
            .keep("kept bytes, contiguous from byte 0; all ones except on the tlast beat")
            .last("last beat of a packet"),
        Axis::source(USER_OUT, 8 * u, "user data out; bytes not kept are zero", "a delivered beat is presented", "the user takes the beat (backpressure fills the flow-control buffers, which pause the far end)")
            .keep("kept bytes, contiguous from byte 0")
            .last("last beat of a packet"),
    ]
}

/// The sum of the bits of an `l`-bit vector as a `w`-bit number.
fn popcount(v: &str, l: u32, w: u32) -> Expr {
    (0..l).map(|j| cat(vec![zeros(w - 1), bit_of(v, l, j)])).reduce(add).expect("at least one lane")
}

pub fn module(p: &Params, design: &DesignInfo, n: &Names, rec: Option<&Recovered>, temporal: Option<u32>) -> GeneratedModule {
    let (f, r, l) = (p.frame_bits, p.raw_bits() as u32, p.lanes);
    let s = p.payload_bytes() as u32;
    // u: the user beat on clk (with temporal bonding a group of T user beats), g: a lane group.
    let u = p.user_bytes() as u32;
    let g = p.group_bytes() as u32;
    let t = temporal.unwrap_or(1);
    let [user_in, user_out] = streams(u / t);
    let mut ports = clock_ports(design);
    if let Some(t) = temporal {
        ports.extend(super::tbond::user_clock_ports(design, t));
    }
    ports.extend(user_in.ports());
    ports.extend(user_out.ports());
    if temporal.is_some() {
        for port in ports.iter_mut().filter(|p| p.name.starts_with(USER_IN) || p.name.starts_with(USER_OUT)) {
            port.doc = format!("{} (user_clk)", port.doc);
        }
    }
    ports.extend([
        Port::output("tx_frame", l * f, "frames to the transceivers, lane j at [(j+1)*F-1:j*F] (registered)"),
        Port::input("tx_ready", 1, "the transceivers take tx_frame at this edge (all lanes)"),
        Port::input("rx_frame", l * f, "frames from the transceivers, lane j at [(j+1)*F-1:j*F]"),
        Port::input("rx_valid", l, "rx_frame of lane j is valid this cycle"),
        Port::output("link_up", 1, "every lane is transferring data (Normal, Retrans or Send Retrans), registered"),
        Port::output("frame_errors", COUNTER_BITS, "frames detected in error while in step (each starts a recovery), all lanes (saturating)"),
        Port::output("retransmissions", COUNTER_BITS, "retransmission procedures started, all lanes (saturating)"),
        Port::output("pause_events", COUNTER_BITS, "times a lane left data transfer for Send Pause or Pause (saturating)"),
    ]);
    if let Some(rec) = rec {
        recovered_ports(&mut ports, design, l, rec);
    }
    let gt = rec.and_then(|r| r.gt_bits);
    let mut it: Vec<Item> = Vec::new();
    if gt.is_some() {
        it.push(Item::wire("tx_frame", l * f, "each lane's frame register, lane j at [(j+1)*F-1:j*F] (clk), into its GT width converter"));
        it.push(Item::wire("rx_frame", l * f, "each lane's aligned frame, lane j at [(j+1)*F-1:j*F] (rx_clk[j])"));
        it.push(Item::wire("rx_valid", l, "lane j's aligner completed a frame at this rx_clk[j] edge"));
    }
    // The transceivers take a frame at every clk edge through the GT width converters.
    let tx_ready = if gt.is_some() { Expr::one() } else { id("tx_ready") };
    let lane = |base: &str, j: u32| format!("{base}_{j}");
    localparam(&mut it, "ST_RETRANS", 3, 3, "TX state Retrans; Send Retrans (4) and Normal (5) above it: the states that transfer data");

    if let Some(t) = temporal {
        it.push(Item::comment(&format!("Temporal bonding: {t} user beats of {} bytes on user_clk <-> one beat of {u} bytes on clk.", u / t)));
        it.extend(temporal_stages(design, n, &user_in, &user_out, u));
    }
    // The gearboxes' user side: the user streams, or with temporal bonding the clk side of its stages.
    let user_side = |axis: &Axis, sig: Signal, bonded: &str| if temporal.is_some() { id(&format!("{bonded}_{}", bond_suffix(sig))) } else { axis.sig(sig) };
    it.push(Item::comment(&format!("TX: user beats of {u} bytes -> groups of {l} x {s} payload bytes.")));
    // More than one lane: each lane has its own TX and RX skid buffer (see below).
    let per_lane = l > 1;
    let every_lane = |e: Expr| if l == 1 { e } else { Expr::Repeat(l, Box::new(e)) };
    for (name, w, doc) in [
        ("txg_valid", 1, ""),
        ("txg_ready", 1, ""),
        ("txg_data", 8 * g, ""),
        ("txg_keep", g, ""),
        ("txg_last", 1, ""),
        ("seg_ready", l, "lane j's slot would carry user data"),
        ("slot", 1, "this slot may carry user data (the transceivers take it, no Idle slot owed)"),
        ("lane_take", l, "lane j takes user data in this slot"),
        ("go", l, "lane j is handed its offered segment at this edge (it takes it when its seg_ready holds, which the lane checks itself)"),
    ] {
        it.push(Item::wire(name, w, doc));
    }
    it.push(clocked_instance(
        &n.txgear,
        "u_txgear",
        design.reset,
        vec![
            ("in_valid", user_side(&user_in, Signal::Valid, "txb")),
            ("in_ready", user_side(&user_in, Signal::Ready, "txb")),
            ("in_data", user_side(&user_in, Signal::Data, "txb")),
            ("in_keep", user_side(&user_in, Signal::Keep, "txb")),
            ("in_last", user_side(&user_in, Signal::Last, "txb")),
            ("out_valid", id("txg_valid")),
            ("out_ready", id("txg_ready")),
            ("out_data", id("txg_data")),
            ("out_keep", id("txg_keep")),
            ("out_last", id("txg_last")),
        ],
    ));
    it.push(Item::comment("Segmenting: the TX gearbox's group cut into one raw region per lane (meta per Table 1, the format code in a partial end's last byte)."));
    for j in 0..l {
        let keep = lane("seg_keep", j);
        wire(&mut it, &keep, s, "", Expr::slice("txg_keep", (j + 1) * s - 1, j * s));
        let next_lo = if j + 1 < l { Expr::bit("txg_keep", (j + 1) * s) } else { Expr::zero() };
        wire(&mut it, &lane("seg_end", j), 1, "the packet ends in this lane's segment", all(vec![id("txg_last"), Expr::bit(&keep, 0), next_lo.not()]));
        let k_lo = Expr::bit(&keep, 0);
        let k_hi = Expr::bit(&keep, s - 1);
        let end = id(&lane("seg_end", j));
        wire(&mut it, &lane("seg_meta", j), 2, "meta code (Table 1)", cat(vec![end.clone(), Expr::and(k_lo, Expr::or(end.clone().not(), k_hi.clone()))]));
        thermo_count(&mut it, &lane("seg_cnt", j), &keep, s);
        let cw = bits_for(s as u64);
        let cnt8 = if cw < 8 { cat(vec![zeros(8 - cw), id(&lane("seg_cnt", j))]) } else { id(&lane("seg_cnt", j)) };
        let partial = Expr::and(end, k_hi.not());
        let top_byte = Expr::or(Expr::slice("txg_data", 8 * (j + 1) * s - 1, 8 * (j + 1) * s - 8), Expr::and(cnt8, Expr::Repeat(8, Box::new(partial))));
        wire(&mut it, &lane("seg_raw", j), r, "{payload with the format code, meta}", cat(vec![top_byte, Expr::slice("txg_data", 8 * (j + 1) * s - 9, 8 * j * s), id(&lane("seg_meta", j))]));
    }
    if per_lane {
        it.push(Item::comment("Dispatch: the segmented group waits in a skid buffer (the TX gearbox sees its registered ready), which hands it to the lanes' own skid buffers when each has room (their registered readies); each lane takes its segment in its own next slot that carries user data. No register sees an AND over the lanes' slot state: when no lane stalls a group still leaves in one slot, a stalled lane lets the others run up to two groups ahead (the receivers' flow-control buffers absorb it)."));
    } else {
        it.push(Item::comment("Dispatch: the segmented group waits in a skid buffer, so the lane's ready reaches neither the TX gearbox (its ready is a register) nor the segmenting (the lane takes a registered group)."));
    }
    if let Some(rec) = rec.filter(|r| r.compensation) {
        it.push(Item::comment("Clock compensation: a slot the local clock gained on the far end's carries no user data."));
        it.push(Item::wire("comp_idle", 1, "this slot is an owed Idle slot"));
        it.push(compensation(design, n, l, rec));
        let mut terms = vec![id("comp_idle").not()];
        if gt.is_none() {
            terms.insert(0, id("tx_ready"));
        }
        it.push(Item::assign(id("slot"), all(terms)));
    } else {
        it.push(Item::assign(id("slot"), id("tx_ready")));
    }
    it.push(Item::assign(id("lane_take"), Expr::and(id("seg_ready"), every_lane(id("slot")))));
    let segs = cat((0..l).rev().map(|j| id(&lane("seg_raw", j))).collect());
    // The lanes' segments: the TX skid buffer's group, or each lane's skid buffer's segment.
    let mut offered: Vec<(Expr, String)> = Vec::new();
    if per_lane {
        it.push(Item::wire("lanes_room", 1, "every lane's skid buffer has room (registered readies)"));
        let txs = crate::hw::skid::skid(&mut it, "txs", l * r, id("txg_valid"), segs, id("lanes_room"));
        it.push(Item::assign(id("txg_ready"), id(&txs.in_ready)));
        let mut rooms = Vec::new();
        for j in 0..l {
            let hand = Expr::and(id(&txs.valid), id("lanes_room"));
            let b = crate::hw::skid::skid(&mut it, &lane("ltx", j), r, hand, Expr::slice(&txs.data, (j + 1) * r - 1, j * r), bit_of("lane_take", l, j));
            rooms.push(id(&b.in_ready));
            offered.push((id(&b.data), b.valid));
        }
        it.push(Item::assign(id("lanes_room"), all(rooms)));
    } else {
        let txs = crate::hw::skid::skid(&mut it, "txs", l * r, id("txg_valid"), segs, id("lane_take"));
        it.push(Item::assign(id("txg_ready"), id(&txs.in_ready)));
        offered.push((id(&txs.data), txs.valid));
    }
    // A lane's seg_take leaves out the terms of its seg_ready the lane checks itself (Normal, no
    // flow-control frame due): the two-level seg_ready does not sit in front of the lane's
    // stage-1 logic. The far end's pause is the one term the lane does not check.
    let go: Vec<Expr> = offered.iter().enumerate().map(|(j, (_, v))| all(vec![id("slot"), id(&lane("rfc", j as u32)).not(), id(v)])).collect();
    let go = Item::assign(id("go"), if l == 1 { go[0].clone() } else { cat(go.into_iter().rev().collect()) });

    // Lane j's head as the group assembly sees it (data, valid).
    let mut heads: Vec<(String, String)> = Vec::new();
    for j in 0..l {
        it.push(Item::comment(&format!("Lane {j}: transmitter, receiver, flow-control buffer.")));
        for (name, w) in [
            ("tx_state", 3),
            ("retrans_start", 1),
            ("pause_event", 1),
            ("rx_out_valid", 1),
            ("rx_out_raw", r),
            ("oos", 1),
            ("preq", 1),
            ("rreq", 1),
            ("ferr", 1),
            ("rfc", 1),
            ("errp", 1),
            ("fc_high", 1),
            ("fc_low", 1),
            ("head", r),
            ("head_valid", 1),
            ("pop", 1),
        ] {
            it.push(Item::wire(&lane(name, j), w, ""));
        }
        let frame_slice = |v: &str| Expr::slice(v, (j + 1) * f - 1, j * f);
        it.push(clocked_instance(
            &n.tx,
            &format!("u_tx{j}"),
            design.reset,
            vec![
                ("en", tx_ready.clone()),
                ("out_of_sync", id(&lane("oos", j))),
                ("pause_req", id(&lane("preq", j))),
                ("retrans_req", id(&lane("rreq", j))),
                ("frame_error", id(&lane("ferr", j))),
                ("remote_fc", id(&lane("rfc", j))),
                ("fc_high", id(&lane("fc_high", j))),
                ("fc_low", id(&lane("fc_low", j))),
                ("seg_take", bit_of("go", l, j)),
                ("seg_raw", offered[j as usize].0.clone()),
                ("seg_ready", bit_of("seg_ready", l, j)),
                ("state", id(&lane("tx_state", j))),
                ("retrans_start", id(&lane("retrans_start", j))),
                ("pause_event", id(&lane("pause_event", j))),
                ("tx_frame", frame_slice("tx_frame")),
            ],
        ));
        if let Some(w) = gt {
            it.push(gt_converter(design, n, j, w, frame_slice("tx_frame")));
        }
        let rx_outs = vec![
            ("out_valid", id(&lane("rx_out_valid", j))),
            ("out_raw", id(&lane("rx_out_raw", j))),
            ("out_of_sync", id(&lane("oos", j))),
            ("pause_req", id(&lane("preq", j))),
            ("retrans_req", id(&lane("rreq", j))),
            ("frame_error", id(&lane("ferr", j))),
            ("remote_fc", id(&lane("rfc", j))),
            ("err_pulse", id(&lane("errp", j))),
        ];
        if let Some(w) = gt {
            it.push(lane_aligner(design, n, l, j, w, frame_slice("rx_frame")));
        }
        if rec.is_some() {
            it.push(recovered_receiver(design, n, l, j, rx_outs, frame_slice("rx_frame")));
        } else {
            let mut conns = vec![("in_valid", bit_of("rx_valid", l, j)), ("in_frame", frame_slice("rx_frame"))];
            conns.extend(rx_outs);
            it.push(clocked_instance(&n.rx, &format!("u_rx{j}"), design.reset, conns));
        }
        // More lanes: the head passes through the lane's skid buffer, which the group assembly
        // pops; the flow-control buffer pops on its registered ready.
        let fifo_pop = if per_lane {
            let b = crate::hw::skid::skid(&mut it, &lane("lrx", j), r, id(&lane("head_valid", j)), id(&lane("head", j)), id(&lane("pop", j)));
            heads.push((b.data, b.valid));
            id(&b.in_ready)
        } else {
            heads.push((lane("head", j), lane("head_valid", j)));
            id(&lane("pop", j))
        };
        it.push(clocked_instance(
            &n.fifo,
            &format!("u_fifo{j}"),
            design.reset,
            vec![
                ("push", id(&lane("rx_out_valid", j))),
                ("din", id(&lane("rx_out_raw", j))),
                ("pop", fifo_pop),
                ("dout", id(&lane("head", j))),
                ("dout_valid", id(&lane("head_valid", j))),
                ("high", id(&lane("fc_high", j))),
                ("low", id(&lane("fc_low", j))),
            ],
        ));
    }

    // After the lanes: go reads their remote_fc flags.
    it.push(go);
    it.push(Item::comment("RX: a group is lanes 0..j with a head each, lane j ending the packet or being the last lane; the next packet starts at lane 0."));
    let mut keeps = Vec::new();
    let mut datas = Vec::new();
    let mut lasts = Vec::new();
    let mut eops = Vec::new();
    for j in 0..l {
        let (head, hv) = heads[j as usize].clone();
        let pre = if j == 0 { Expr::one() } else { id(&lane("pre", j)) };
        let hv = id(&hv);
        let eop = Expr::bit(&head, 1);
        wire(&mut it, &lane("in_grp", j), 1, "lane j belongs to the group at the heads", Expr::and(pre.clone(), hv.clone()));
        if j + 1 < l {
            wire(&mut it, &lane("pre", j + 1), 1, "lanes 0..j have heads that do not end a packet", all(vec![pre.clone(), hv.clone(), eop.clone().not()]));
        }
        let is_last = if j + 1 == l { Expr::and(pre.clone(), hv.clone()) } else { all(vec![pre.clone(), hv.clone(), eop.clone()]) };
        wire(&mut it, &lane("grp_end", j), 1, "the group ends at lane j", is_last);
        lasts.push(id(&lane("grp_end", j)));
        eops.push(Expr::and(id(&lane("grp_end", j)), eop));
        let partial = Expr::and(Expr::bit(&head, 1), Expr::bit(&head, 0).not());
        let kname = lane("grp_keep", j);
        it.push(Item::wire(&kname, s, "valid payload bytes of lane j in the group"));
        for i in 0..s {
            let byte_ok = Expr::or(partial.clone().not(), lt(dec(8, i as u64), Expr::slice(&head, r - 1, r - 8)));
            it.push(Item::assign(bit_of(&kname, s, i), Expr::and(id(&lane("in_grp", j)), byte_ok)));
        }
        keeps.push(id(&kname));
        datas.push(Expr::slice(&head, r - 1, 2));
    }
    keeps.reverse();
    datas.reverse();
    for (name, w) in [("grp_valid", 1), ("grp_last", 1), ("grp_ready", 1), ("grp_keep", g), ("grp_data", 8 * g)] {
        it.push(Item::wire(name, w, ""));
    }
    it.push(Item::assign(id("grp_valid"), any(lasts)));
    it.push(Item::assign(id("grp_last"), any(eops)));
    it.push(Item::assign(id("grp_keep"), cat(keeps)));
    it.push(Item::assign(id("grp_data"), cat(datas)));
    it.push(Item::comment("The group waits in a skid buffer: the buffers' pop looks at its registered ready, not at the RX gearbox, and the gearbox takes a registered group (data, keep, last)."));
    let rxs = crate::hw::skid::skid(&mut it, "rxs", 8 * g + g + 1, id("grp_valid"), cat(vec![id("grp_last"), id("grp_keep"), id("grp_data")]), id("grp_ready"));
    for j in 0..l {
        it.push(Item::assign(id(&lane("pop", j)), all(vec![id("grp_valid"), id(&rxs.in_ready), id(&lane("in_grp", j))])));
    }
    it.push(clocked_instance(
        &n.rxgear,
        "u_rxgear",
        design.reset,
        vec![
            ("in_valid", id(&rxs.valid)),
            ("in_ready", id("grp_ready")),
            ("in_data", Expr::slice(&rxs.data, 8 * g - 1, 0)),
            ("in_keep", Expr::slice(&rxs.data, 9 * g - 1, 8 * g)),
            ("in_last", Expr::bit(&rxs.data, 9 * g)),
            ("out_valid", user_side(&user_out, Signal::Valid, "rxb")),
            ("out_ready", user_side(&user_out, Signal::Ready, "rxb")),
            ("out_data", user_side(&user_out, Signal::Data, "rxb")),
            ("out_keep", user_side(&user_out, Signal::Keep, "rxb")),
            ("out_last", user_side(&user_out, Signal::Last, "rxb")),
        ],
    ));

    it.push(Item::comment("Status: link_up and saturating counters of the lanes' events, registered first (the counters run one edge behind the events)."));
    let iw = bits_for(l as u64);
    let cb = COUNTER_BITS;
    for (vec, parts) in [("errp_v", "errp"), ("retr_v", "retrans_start"), ("pause_v", "pause_event"), ("xfer_v", "xfer")] {
        if parts == "xfer" {
            let bits: Vec<Expr> = (0..l).rev().map(|j| ge(id(&lane("tx_state", j)), id("ST_RETRANS"))).collect();
            wire(&mut it, vec, l, "lane j is transferring (state >= Retrans)", cat(bits));
        } else {
            wire(&mut it, vec, l, "", cat((0..l).rev().map(|j| id(&lane(parts, j))).collect()));
        }
    }
    let mut reset = vec![set_id("link_up_q", Expr::zero())];
    let mut body = vec![set_id("link_up_q", Expr::red(UnOp::RedAnd, id("xfer_v")))];
    reg(&mut it, "link_up_q", 1, "");
    // Each counter adds its registered events' count into its low bits; the bits above step by
    // one on that carry chunk by chunk (hw::count), so no carry chain runs the counter's width.
    let lw = iw.max(4);
    for (cnt, v) in [("frame_errors", "errp_v"), ("retransmissions", "retr_v"), ("pause_events", "pause_v")] {
        let q = format!("{cnt}_q");
        let ev = format!("{cnt}_ev");
        reg(&mut it, &ev, l, &format!("{v} one edge later"));
        reset.push(set_id(&ev, dec(l, 0)));
        body.push(set_id(&ev, id(v)));
        let events = if lw > iw { cat(vec![zeros(lw - iw), popcount(&ev, l, iw)]) } else { popcount(&ev, l, iw) };
        sat_accumulator(&mut it, &mut reset, &mut body, &q, cb, events, lw, Expr::Repeat(cb, Box::new(Expr::one())), "", design.reset);
        it.push(Item::assign(id(cnt), id(&q)));
    }
    it.push(Item::assign(id("link_up"), id("link_up_q")));
    it.push(Item::AlwaysFf { reset: Some(reset), body });
    // The node's own properties are its counters' (hw::count); every sub-module carries and
    // proves its own, so the node's proof leaves them free: the counters hold for any events.
    let subs: Vec<String> = it.iter().filter_map(|i| if let Item::Instance { name, .. } = i { Some(name.clone()) } else { None }).collect();
    let subs: Vec<&str> = subs.iter().map(String::as_str).collect();
    it.push(Item::Formal(Formal::free(&subs)));

    let mut notes = vec![
            super::codec::LAYOUT_NOTE.into(),
            super::codec::CODES_NOTE.into(),
            super::codec::CRC_NOTE.into(),
            "Channel bonding: the TX gearbox cuts the user stream into groups of lanes x S bytes that never span two packets; payload j goes out on lane j. Empty upper lanes of a packet's last group send fillers, which receivers do not buffer. At the receiver each lane's flow-control buffer absorbs the lane skew; a group is lanes 0..j with heads, lane j ending the packet or being the last lane, and the next packet starts at lane 0 again.".to_string(),
    ];
    if per_lane {
        notes.push("Dispatch with more than one lane: each lane has a skid buffer of its own on the TX side (the group's skid buffer hands a group to all of them at once when each has room) and on the RX side (between its flow-control buffer, which pops on the skid buffer's registered ready, and the group assembly, which reads registered heads), so no register sees an AND over the lanes' slot state. Each lane takes its segment in its own next slot that carries user data: when no lane stalls, a group leaves in one slot on every lane; a lane held by recovery or flow control lets the others run up to two groups ahead, which the receivers' flow-control buffers absorb like any lane skew.".to_string());
    }
    match rec {
        None => notes.extend([
            if per_lane {
                "Latency (no errors, tx_ready high, lanes idle): an s_axis beat accepted at one edge is in tx_frame four edges later (TX gearbox, the TX skid buffer's register, the lane's skid buffer, the lane's two stages); from the first s_axis beat of a packet to its first m_axis beat through a zero-delay cable is 14 cycles, plus the cable. The four skid buffers on the path (group and lane, TX and RX) add one cycle each and keep one group per cycle.".to_string()
            } else {
                "Latency (no errors, tx_ready high, lanes idle): an s_axis beat accepted at one edge is in tx_frame three edges later (TX gearbox, the TX skid buffer's register, the lane's two stages); from the first s_axis beat of a packet to its first m_axis beat through a zero-delay cable is 12 cycles (110 ns at the 109.4 MHz frame clock of 256-bit frames at 28 Gb/s), plus the cable. The two skid buffers (TX and RX glue) add one cycle each and keep one group per cycle.".to_string()
            },
            format!("Status counters are {cb}-bit and saturate at 2^{cb}-1; each counts a lane event one edge after the event (the events are registered first): frame_errors counts frames failing verification while the lane was in sync and in step (a detected error that starts a recovery; frames failing during the recovery are not counted), retransmissions counts procedures (of 2.5*2^n frames) started, pause_events counts lanes leaving data transfer for Send Pause (local loss of sync) or Pause (the far end's)."),
            "One clock here (clocking = \"single\"): rx_frame is taken in the clk domain, as from a transceiver whose RX data is already moved to the TX clock. With clocking = \"recovered\" the same node takes each lane on its recovered clock rx_clk[j]: that lane's receiver runs there and an asynchronous FIFO of the CDC kit carries its delivered raw regions and event flags into clk, and clock compensation on a free-running clock pauses the TX controller for each cycle the local clock gains over the far end's.".to_string(),
        ]),
        Some(rec) => {
            notes.push(format!("Status counters are {cb}-bit and saturate at 2^{cb}-1; each counts a lane event one edge after the event (the events are registered first): frame_errors counts frames failing verification while the lane was in sync and in step (a detected error that starts a recovery; frames failing during the recovery are not counted), retransmissions counts procedures (of 2.5*2^n frames) started, pause_events counts lanes leaving data transfer for Send Pause (local loss of sync) or Pause (the far end's)."));
            notes.extend(recovered_notes(n, rec, if per_lane { "four" } else { "three" }));
        }
    }
    if let Some(t) = temporal {
        notes.push(temporal_note(n, t, u));
    }
    GeneratedModule {
        module: Module { name: n.top.clone(), ports, items: it, reset: Some(design.reset) },
        latency: 2,
        summary: format!(
            "RIFL node (Shen, Zheng, Chow): {}-bit AXI4-Stream in and out{}, {l} lane(s) of {f}-bit frames with a {}-bit payload, CRC-12 ^ frame-ID verification, in-band NACK retransmission from a {}-frame buffer, flow control, {}channel bonding.",
            8 * u / t,
            temporal.map_or(String::new(), |t| format!(" on user_clk ({t} x clk, temporal bonding)")),
            p.payload_bits(),
            p.ids(),
            if p.scrambler { "1+x^13+x^33 scrambling, " } else { "" }
        ),
        notes,
        role: Role::Node,
        origin: None,
    }
}

/// The suffix of a temporal bonding stage's clk-side signal (`txb_valid`, `rxb_data`, ...).
fn bond_suffix(sig: Signal) -> &'static str {
    match sig {
        Signal::Valid => "valid",
        Signal::Ready => "ready",
        Signal::Data => "data",
        Signal::Keep => "keep",
        Signal::Last => "last",
        Signal::Id | Signal::Dest | Signal::User => unreachable!("a node's user streams carry no {sig:?}"),
    }
}

/// The temporal bonding stages: the user streams on user_clk, their clk sides `txb_*` (into
/// the TX gearbox) and `rxb_*` (out of the RX gearbox), `u` bytes per clk beat.
fn temporal_stages(design: &DesignInfo, n: &Names, user_in: &Axis, user_out: &Axis, u: u32) -> Vec<Item> {
    let user = super::tbond::user_domain(design);
    let mut it = Vec::new();
    for side in ["txb", "rxb"] {
        for (sig, w) in [(Signal::Valid, 1), (Signal::Ready, 1), (Signal::Data, 8 * u), (Signal::Keep, u), (Signal::Last, 1)] {
            it.push(Item::wire(&format!("{side}_{}", bond_suffix(sig)), w, if side == "txb" { "clk side of the TX bonding stage" } else { "clk side of the RX bonding stage" }));
        }
    }
    let stage = |module: &str, inst: &str, user_stream: &Axis, user_is_in: bool, side: &str| {
        let (user_port, clk_port) = if user_is_in { ("in", "out") } else { ("out", "in") };
        let mut conns: Vec<(String, Expr)> = vec![(user.clock.clone(), id(&user.clock)), (user.reset.clone(), id(&user.reset))];
        for sig in [Signal::Valid, Signal::Ready, Signal::Data, Signal::Keep, Signal::Last] {
            conns.push((format!("{user_port}_{}", bond_suffix(sig)), user_stream.sig(sig)));
            conns.push((format!("{clk_port}_{}", bond_suffix(sig)), id(&format!("{side}_{}", bond_suffix(sig)))));
        }
        let conns: Vec<(&str, Expr)> = conns.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        clocked_instance(module, inst, design.reset, conns)
    };
    it.push(stage(&n.tbond_tx, "u_tbond_tx", user_in, true, "txb"));
    it.push(stage(&n.tbond_rx, "u_tbond_rx", user_out, false, "rxb"));
    it
}

fn temporal_note(n: &Names, t: u32, u: u32) -> String {
    format!(
        "Temporal channel bonding (user_clk_ratio = {t}): s_axis and m_axis run on user_clk, {t} x clk from the same source (every clk rising edge one of its own), {}-bit beats; {} collects up to {t} beats of a packet into one {}-bit beat on clk for the TX gearbox (a group ends at tlast), and {} sends each {}-bit beat of the RX gearbox as up to {t} user beats. The node carries {t} user beats per clk cycle; at full rate within a packet no user beat waits. Latency on top of the clk-side figures: TX 2 to {} user_clk cycles until the group is offered to clk, RX none (a group's first beat is presented at the clk edge it is taken). Reset user_rst with rst.",
        8 * u / t,
        n.tbond_tx,
        8 * u,
        n.tbond_rx,
        8 * u,
        t + 1
    )
}

/// The ports a node on recovered clocks adds: each lane's clock and reset, the free clock of the
/// compensation, and each lane's CDC FIFO level and overflow flag.
fn recovered_ports(ports: &mut Vec<Port>, design: &DesignInfo, l: u32, rec: &Recovered) {
    let (_, rx, free) = super::comp::domains(design);
    for port in ports.iter_mut() {
        match port.name.as_str() {
            "rx_frame" => port.doc = "frames from the transceivers, lane j at [(j+1)*F-1:j*F], in the rx_clk[j] domain".into(),
            "rx_valid" => port.doc = "rx_frame of lane j is valid at this rx_clk[j] edge".into(),
            _ => {}
        }
    }
    let reset = if design.reset.active_low() { "asynchronous, active low" } else { "synchronous to rx_clk[j], active high" };
    ports.extend([
        Port::input(&rx.clock, l, "lane j's recovered clock at bit j: rx_frame and rx_valid of lane j are in its domain"),
        Port::input(&rx.reset, l, &format!("lane j's receiver reset at bit j, {reset}")),
        Port::output("rx_cdc_level", l * super::rxcdc::level_bits(), &format!("lane j's CDC FIFO level at [{w}j+{}:{w}j], as its rx_clk[j] side knows it", super::rxcdc::level_bits() - 1, w = super::rxcdc::level_bits())),
        Port::output("rx_cdc_overflow", l, "lane j's CDC FIFO refused an entry while full (sticky; rx_clk[j] register): the far end sent faster than clk takes"),
    ]);
    if let Some(w) = rec.gt_bits {
        let fast = super::gtx::fast_domain(design);
        let ratio = ports.iter().find(|p| p.name == "tx_frame").map_or(0, |p| p.width / l) / w;
        ports.retain(|p| !matches!(p.name.as_str(), "tx_frame" | "tx_ready" | "rx_frame" | "rx_valid"));
        ports.extend([
            Port::input(&fast.clock, 1, &format!("fast TX clock, {ratio} x clk from the same source (every clk rising edge is one of its rising edges): the GT width converters")),
            Port::input(&fast.reset, 1, &super::comp::reset_doc(design, &fast.clock)),
            Port::output("tx_fast_gt_data", l * w, &format!("words to the transceivers, lane j at [(j+1)*{w}-1:j*{w}], one per tx_fast_clk cycle, bit 0 first on the wire (tx_fast_clk registers)")),
            Port::input("rx_gt_data", l * w, &format!("words from the transceivers, lane j at [(j+1)*{w}-1:j*{w}] at every rx_clk[j] edge, bit 0 first on the wire, frame boundary anywhere")),
            Port::output("rx_aligned", l, "lane j's Lane Aligner has locked on the frame boundary (rx_clk[j] register)"),
        ]);
    }
    if rec.compensation {
        ports.extend([Port::input(&free.clock, 1, "free-running clock of the clock compensation (at least 1/32 of clk and rx_clk)"), Port::input(&free.reset, 1, &super::comp::reset_doc(design, &free.clock))]);
    }
}

/// Lane `j`'s receiver on its recovered clock, its outputs `outs` in the clk domain.
fn recovered_receiver(design: &DesignInfo, n: &Names, l: u32, j: u32, outs: Vec<(&str, Expr)>, frame: Expr) -> Item {
    let (_, rx, _) = super::comp::domains(design);
    let lb = super::rxcdc::level_bits();
    let mut conns = vec![
        (rx.clock.as_str(), bit_of(&rx.clock, l, j)),
        (rx.reset.as_str(), bit_of(&rx.reset, l, j)),
        ("rx_valid", bit_of("rx_valid", l, j)),
        ("rx_frame", frame),
        ("rx_cdc_level", if l == 1 { id("rx_cdc_level") } else { Expr::slice("rx_cdc_level", (j + 1) * lb - 1, j * lb) }),
        ("rx_cdc_overflow", bit_of("rx_cdc_overflow", l, j)),
    ];
    conns.extend(outs);
    clocked_instance(&n.rxcdc, &format!("u_rx{j}"), design.reset, conns)
}

/// The clock compensation against lane 0's recovered clock: `comp_idle` in the clk domain.
/// With `gt_bits` the recovered clock is the far end's transceiver clock: the count takes lane
/// 0's completed frames (one per far-end clk cycle).
fn compensation(design: &DesignInfo, n: &Names, l: u32, rec: &Recovered) -> Item {
    let (_, rx, free) = super::comp::domains(design);
    let gt = rec.gt_bits.is_some();
    let mut conns = vec![
        ("slot", if gt { Expr::one() } else { id("tx_ready") }),
        ("idle", id("comp_idle")),
        (rx.clock.as_str(), bit_of(&rx.clock, l, 0)),
        (rx.reset.as_str(), bit_of(&rx.reset, l, 0)),
    ];
    if gt {
        conns.push(("rx_tick", bit_of("rx_valid", l, 0)));
    }
    conns.extend([(free.clock.as_str(), id(&free.clock)), (free.reset.as_str(), id(&free.reset))]);
    clocked_instance(&n.comp, "u_comp", design.reset, conns)
}

/// Lane `j`'s TX GT width converter: its frame register out as `gt_bits` words on tx_fast_clk.
fn gt_converter(design: &DesignInfo, n: &Names, j: u32, w: u32, frame: Expr) -> Item {
    let fast = super::gtx::fast_domain(design);
    clocked_instance(
        &n.gtx,
        &format!("u_gtx{j}"),
        design.reset,
        vec![("frame", frame), (fast.clock.as_str(), id(&fast.clock)), (fast.reset.as_str(), id(&fast.reset)), ("tx_fast_data", Expr::slice("tx_fast_gt_data", (j + 1) * w - 1, j * w))],
    )
}

/// Lane `j`'s Lane Aligner on its recovered clock: transceiver words in, frames into the lane's
/// receiver (`rx_frame`, `rx_valid`).
fn lane_aligner(design: &DesignInfo, n: &Names, l: u32, j: u32, w: u32, frame: Expr) -> Item {
    let (_, rx, _) = super::comp::domains(design);
    instance(
        &n.align,
        &format!("u_align{j}"),
        vec![
            ("clk", bit_of(&rx.clock, l, j)),
            (design.reset.port(), bit_of(&rx.reset, l, j)),
            ("gt_data", Expr::slice("rx_gt_data", (j + 1) * w - 1, j * w)),
            ("frame", frame),
            ("frame_valid", bit_of("rx_valid", l, j)),
            ("aligned", bit_of("rx_aligned", l, j)),
        ],
    )
}

/// `tx_edges`: the edges from an accepted s_axis beat to tx_frame, in words.
fn recovered_notes(n: &Names, rec: &Recovered, tx_edges: &str) -> Vec<String> {
    let mut v = vec![
        format!("Clocks: clk (TX controller, TX gearbox, flow-control buffers, RX group assembly, RX gearbox, status); rx_clk[j] (lane j's {}receiver: verification, descrambler, Listing 1 counters, control and flow-control monitors, in {}){}{}. Every crossing is inside {}{}: the CDC kit's Gray-pointer FIFO and synchronizers, nothing else.", if rec.gt_bits.is_some() { "Lane Aligner and " } else { "" }, n.rxcdc, if rec.gt_bits.is_some() { "; tx_fast_clk (the GT width converters, related to clk)" } else { "" }, if rec.compensation { "; free_clk (the compensation's comparison)" } else { "" }, n.rxcdc, if rec.compensation { format!(" and {}", n.comp) } else { String::new() }),
        format!("Receive path: each lane's receiver writes one entry per frame that delivers data, pulses an error or changes a flag into its {}-entry CDC FIFO ({}), which clk drains one entry per cycle into the lane's flow-control buffer and flags. Latency from rx_frame to the flow-control buffer: 1 rx_clk cycle + 2 clk cycles more than with one clock, plus the wait for the first clk edge after the FIFO write (up to one clk cycle; one clk cycle more when an rx_clk edge falls in a synchronizer's sampling window); the TX path is unchanged (an s_axis beat accepted at one edge is in tx_frame {tx_edges} edges later).", crate::blocks::rifl::model::rxcdc::CDC_DEPTH, n.cdc),
        "Resets: rst (or rst_n) resets the clk domain, rx_rst[j] lane j's receiver and the write side of its CDC FIFO, free_rst the compensation's free domain, tx_fast_rst (with gt_bits) the fast TX domain: assert them together (each for at least one edge of its clock with the synchronous reset), release in any order.".into(),
    ];
    if let Some(w) = rec.gt_bits {
        v.push(format!(
            "Transceiver width {w} bits (gt_bits): tx_fast_clk runs at frame_bits/{w} = R times clk from the same source, every clk rising edge one of its own. Each lane's GT width converter ({}) takes the lane's frame register at the edge the two clocks share and sends it as R words on tx_fast_gt_data, word 0 (frame[{}:0], the SYN first on the wire) first, one per tx_fast_clk cycle: a frame registered at a clk edge leaves from the next clk edge on (1 clk cycle). The transceivers take a frame every clk cycle: there is no tx_ready. The TX controller, scrambler and verification-code generator stay on clk.",
            n.gtx,
            w - 1
        ));
        v.push(format!(
            "Receive path per lane, all on rx_clk[j] (the transceiver's recovered clock, the far end's tx_fast_clk): rx_gt_data -> Lane Aligner ({}: finds the frame boundary by the SYN, one-bit slips while searching, rx_aligned once locked) -> the lane receiver ({}), which takes a frame every R rx_clk cycles. A frame leaves the aligner 1 rx_clk cycle after its last word arrived; the compensation counts lane 0's frames, one per far-end clk cycle.",
            n.align, n.rxcdc
        ));
    }
    if rec.compensation {
        v.push(format!("Clock compensation ({}): cycle counts of clk and of rx_clk[0] (the far end's TX clock) are compared on free_clk; each clk cycle gained is paid by one frame slot that carries no user data (comp_idle holds the TX gearbox), so this node never sends data frames faster than the far end's clk drains its CDC FIFOs. The far end's FIFO level then stays at a few entries at any ppm offset; the slower node pays nothing.", n.comp));
    } else {
        v.push("compensation = false: no Idle slots are inserted; when this node's clk is faster than the far end's, the far end's CDC FIFOs fill at the ppm offset during long bursts and overflow (rx_cdc_overflow). Only for showing why compensation exists.".into());
    }
    v
}
