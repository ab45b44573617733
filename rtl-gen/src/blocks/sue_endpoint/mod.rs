//! Block kind `sue_endpoint`: one SUE instance port, the packer ([`crate::blocks::sue_packer`])
//! and the transport ([`crate::blocks::sue_transport`]) wired together (contract §4.6): the
//! packer's PDU stream feeds the transport, the transport's `tx_dest_ready` is the packer's
//! `dest_ok`, and the link partner's `tx_vc_pause` pauses both. Modules `<name>_packer`,
//! `<name>_transport` and the top `<name>`. The reference model is [`model::EndpointModel`].

pub mod model;

use crate::blocks::sue::{SueCommon, COMMON_FIELDS};
use crate::blocks::sue_packer::{read_packer, SuePackerBlock};
use crate::blocks::sue_transport::{read_transport, SueTransportBlock, TRANSPORT_FIELDS};
use crate::blocks::{Block, BlockKind, GeneratedModule};
use crate::info::DesignInfo;
use crate::error::ConfigResult;
use crate::fields::{FieldReader, FieldSpec, FieldType};
use crate::hw::build::id;
use crate::hw::module::{clock_ports, Role};
use crate::hw::verilog::{Expr, Item, Module};
use model::EndpointModel;

pub struct SueEndpointKind;

static FIELDS: [FieldSpec; 25] = [
    crate::blocks::sue::TRANSPORT_DATA_BYTES_FIELD,
    COMMON_FIELDS[1],
    COMMON_FIELDS[2],
    COMMON_FIELDS[3],
    COMMON_FIELDS[4],
    COMMON_FIELDS[5],
    FieldSpec {
        name: "queue_depth",
        ty: FieldType::UInt { min: 1, max: 1024 },
        default: Some("32"),
        doc: "packer: commands per {destination, VC} queue",
    },
    FieldSpec {
        name: "hold_cycles",
        ty: FieldType::UInt { min: 0, max: 65535 },
        default: Some("0"),
        doc: "packer: 0 = never wait to pack (seed §4.4); > 0 our extension",
    },
    TRANSPORT_FIELDS[0],
    TRANSPORT_FIELDS[1],
    TRANSPORT_FIELDS[2],
    TRANSPORT_FIELDS[3],
    TRANSPORT_FIELDS[4],
    TRANSPORT_FIELDS[5],
    TRANSPORT_FIELDS[6],
    TRANSPORT_FIELDS[7],
    TRANSPORT_FIELDS[8],
    TRANSPORT_FIELDS[9],
    TRANSPORT_FIELDS[10],
    TRANSPORT_FIELDS[11],
    TRANSPORT_FIELDS[12],
    TRANSPORT_FIELDS[13],
    TRANSPORT_FIELDS[14],
    TRANSPORT_FIELDS[15],
    TRANSPORT_FIELDS[16],
];

/// A validated `sue_endpoint` block: its two parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SueEndpointBlock {
    pub name: String,
    pub common: SueCommon,
    pub packer: SuePackerBlock,
    pub transport: SueTransportBlock,
}

/// The packer's counters as the endpoint exposes them (`cnt_pk_*`).
pub const PACKER_COUNTERS: [(&str, &str); 7] = [
    ("cnt_cmd_in", "cnt_pk_cmd_in"),
    ("cnt_cmd_drop_framing", "cnt_pk_cmd_drop_framing"),
    ("cnt_cmd_drop_dest", "cnt_pk_cmd_drop_dest"),
    ("cnt_cmd_drop_vc", "cnt_pk_cmd_drop_vc"),
    ("cnt_cmd_drop_err", "cnt_pk_cmd_drop_err"),
    ("cnt_pdu_out", "cnt_pk_pdu_out"),
    ("cnt_cmd_out", "cnt_pk_cmd_out"),
];

impl SueEndpointBlock {
    pub fn model(&self) -> EndpointModel {
        EndpointModel::new(self)
    }

    /// TX latency, the module's `latency`: from the cycle a command's last beat is taken on
    /// `s_axis_cmd` (an idle endpoint, `m_axis_tx_tready` high, the VC not paused) to the cycle
    /// its PDU's first beat is valid on `m_axis_tx`: the packer's latency to the PDU's first
    /// beat, its other cmd_bytes / data_bytes − 1 beats (the transport stores a PDU whole),
    /// then the transport's latency from the PDU's last beat. Measured on the RTL by
    /// `sim/tests/sue_latency.rs`.
    pub fn tx_latency(&self) -> u32 {
        self.packer.latency() + self.common.cmd_beats() - 1 + self.transport.tx_latency()
    }

    /// RX latency: the transport's (received PDU's last beat taken → first command beat).
    pub fn rx_latency(&self) -> u32 {
        self.transport.rx_latency()
    }

    /// The module-doc lines: the endpoint's latencies, then the transport's notes but its
    /// latencies (the XPU id, the give-up rule and the wire format apply as they are).
    fn notes(&self) -> Vec<String> {
        let (pk, cb, tx) = (self.packer.latency(), self.common.cmd_beats(), self.transport.tx_latency());
        let mut n = vec![
            format!("TX latency {}: a command whose last beat is taken on s_axis_cmd in cycle T reaches an idle endpoint's m_axis_tx as the first beat of its PDU in T+{} = packer {pk} (the PDU's first beat leaves the packer in T+{pk}) + {} more PDU beat(s) of a one-command PDU (cmd_bytes / data_bytes = {cb}; the transport stores a PDU whole) + transport {tx} (from the PDU's last beat to its first beat on m_axis_tx). A longer PDU adds its extra beats.", self.tx_latency(), self.tx_latency(), cb - 1),
            format!("RX latency {}: as the transport's, from the last beat of a good in-order PDU taken on s_axis_rx to its first command beat on m_axis_cmd.", self.rx_latency()),
            "tx_vc_pause pauses both the packer's VC selection and the transport's PDU starts.".into(),
        ];
        n.extend(self.transport.notes().into_iter().skip(2));
        n
    }
}

impl BlockKind for SueEndpointKind {
    fn kind(&self) -> &'static str {
        "sue_endpoint"
    }
    fn summary(&self) -> &'static str {
        "SUE endpoint: sue_packer + sue_transport wired together (one port)"
    }
    fn fields(&self) -> &'static [FieldSpec] {
        &FIELDS
    }
    fn parse(&self, r: &mut FieldReader) -> ConfigResult<Box<dyn Block>> {
        let common = SueCommon::read(r, &crate::blocks::sue::TRANSPORT_DATA_BYTES)?;
        let (queue_depth, hold_cycles) = read_packer(r, &common)?;
        let p = read_transport(r, &common)?;
        let name = r.block().to_string();
        Ok(Box::new(SueEndpointBlock {
            packer: SuePackerBlock {
                name: format!("{name}_packer"),
                common: common.clone(),
                queue_depth,
                hold_cycles,
            },
            transport: SueTransportBlock {
                name: format!("{name}_transport"),
                common: common.clone(),
                p,
            },
            name,
            common,
        }))
    }
}

impl Block for SueEndpointBlock {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> &'static str {
        "sue_endpoint"
    }
    fn params(&self) -> Vec<(&'static str, String)> {
        let mut p = self.common.params();
        p.push(("queue_depth", self.packer.queue_depth.to_string()));
        p.push(("hold_cycles", self.packer.hold_cycles.to_string()));
        p.extend(self.transport.p.params());
        p
    }
    fn module_names(&self, design: &DesignInfo) -> Vec<String> {
        vec![
            format!("{}{}_packer", design.prefix, self.name),
            format!("{}{}_transport", design.prefix, self.name),
            format!("{}{}", design.prefix, self.name),
        ]
    }
    fn modules(&self, design: &DesignInfo) -> Vec<GeneratedModule> {
        let names = self.module_names(design);
        let mut out = self.packer.elaborate(design);
        out.extend(self.transport.elaborate(design));
        out.push(self.top(design, &names[0], &names[1], &names[2]));
        out
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl SueEndpointBlock {
    fn top(&self, design: &DesignInfo, pk: &str, tp: &str, name: &str) -> GeneratedModule {
        let c = &self.common;
        let pkm = self.packer.module(design, pk).module;
        let tpm = self.transport.module(design, tp).module;
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
            latency: self.tx_latency(),
            summary: format!(
                "SUE endpoint: {pk} (per-{{destination, VC}} packing, up to {} bytes per PDU) feeding {tp} (RH, R-CRC, go-back-N, ACK/NACK, per-VC receive buffers, unpacking).",
                c.max_pack_bytes
            ),
            notes: self.notes(),
            role: Role::Endpoint,
            origin: None,
        }
    }
}
