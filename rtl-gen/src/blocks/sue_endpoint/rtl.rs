//! The `sue_endpoint` top module: the packer and the transport instantiated and wired (the
//! packer's PDU stream into the transport, the transport's per-destination slot state back as
//! the packer's `dest_ok`, the link partner's `tx_vc_pause` to both), every other port of the
//! two passed through (the packer's counters renamed `cnt_pk_*`).

use super::{SueEndpointBlock, PACKER_COUNTERS};
use crate::blocks::GeneratedModule;
use crate::hw::build::id;
use crate::hw::module::{clock_ports, Role};
use crate::hw::verilog::{Expr, Item, Module};
use crate::info::DesignInfo;

/// The top module `name`, instantiating the packer module `pk` and the transport module `tp`.
pub(crate) fn module(b: &SueEndpointBlock, design: &DesignInfo, pk: &str, tp: &str, name: &str) -> GeneratedModule {
    let c = &b.common;
    let pkm = b.packer_block.module(design, pk).module;
    let tpm = b.transport_block.module(design, tp).module;
    let mut ports = clock_ports(design);
    let mut it: Vec<Item> = Vec::new();
    let mut pk_conns: Vec<(String, Expr)> = vec![
        ("clk".into(), id("clk")),
        (design.reset.port().into(), id(design.reset.port())),
    ];
    let mut tp_conns = pk_conns.clone();
    it.push(Item::comment("Internal: the packer's PDU stream into the transport, the transport's slot state back as dest_ok."));
    for p in &pkm.ports {
        let n = p.name.as_str();
        if n == "clk" || n == "rst" || n == "rst_n" {
            continue;
        }
        if let Some(rest) = n.strip_prefix("m_axis_pdu_") {
            let w = format!("pdu_{rest}");
            it.push(Item::wire(&w, p.width, &p.doc));
            pk_conns.push((n.to_string(), id(&w)));
        } else if n == "dest_ok" {
            pk_conns.push(("dest_ok".into(), id("tx_dest_ready_w")));
        } else if n == "vc_pause" {
            pk_conns.push(("vc_pause".into(), id("tx_vc_pause")));
        } else {
            let outer = PACKER_COUNTERS
                .iter()
                .find(|(a, _)| *a == n)
                .map_or(n, |(_, b)| b);
            let mut q = p.clone();
            q.name = outer.to_string();
            ports.push(q);
            pk_conns.push((n.to_string(), id(outer)));
        }
    }
    it.push(Item::wire(
        "tx_dest_ready_w",
        c.num_xpu,
        "transport: a slot is free per destination (packer dest_ok)",
    ));
    for p in &tpm.ports {
        let n = p.name.as_str();
        if n == "clk" || n == "rst" || n == "rst_n" {
            continue;
        }
        if let Some(rest) = n.strip_prefix("s_axis_pdu_") {
            tp_conns.push((n.to_string(), id(&format!("pdu_{rest}"))));
        } else if n == "tx_dest_ready" {
            tp_conns.push(("tx_dest_ready".into(), id("tx_dest_ready_w")));
        } else {
            ports.push(p.clone());
            tp_conns.push((n.to_string(), id(n)));
        }
    }
    it.push(Item::Instance {
        module: pk.to_string(),
        name: "u_packer".into(),
        conns: pk_conns,
    });
    it.push(Item::Instance {
        module: tp.to_string(),
        name: "u_transport".into(),
        conns: tp_conns,
    });
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items: it, reset: Some(design.reset) },
        latency: b.tx_latency(),
        summary: format!(
            "SUE endpoint: {pk} (per-{{destination, VC}} packing, up to {} bytes per PDU) feeding {tp} (RH, R-CRC, go-back-N, ACK/NACK, per-VC receive buffers, unpacking).",
            c.max_pack_bytes
        ),
        notes: b.notes(),
        role: Role::Endpoint,
        origin: None,
    }
}
