//! The RTL of a `rifl` block: one generator per module, each the machine of the matching
//! `model` part.

mod align;
mod align_props;
mod codec;
mod codec_props;
mod comp;
mod comp_props;
mod fifo;
mod fifo_props;
mod gear_props;
mod gearbox;
mod gtx;
mod rx;
mod rxcdc;
mod rxcdc_props;
mod tbond;
mod top;
mod tx;
mod tx_props;
mod rx_props;

pub use codec::scrambler_maps;
pub use gtx::fast_domain;
pub use tbond::user_domain;
pub use top::{streams, COUNTER_BITS, USER_IN, USER_OUT};

use super::{Recovered, RiflBlock, RiflBondParams, RiflClockParams, RiflGearParams, RiflLaneParams};
use crate::blocks::async_fifo::AsyncFifoParams;
use crate::blocks::rifl::model::rxcdc::{Entry, CDC_DEPTH, CDC_SYNC_STAGES};
use crate::fields::KindParams;
use crate::hw::module::{GeneratedModule, Origin, Role};
use crate::info::DesignInfo;

/// The module names of one block.
#[derive(Debug, Clone)]
pub struct Names {
    pub top: String,
    pub tx: String,
    pub rx: String,
    pub fifo: String,
    pub txgear: String,
    pub rxgear: String,
    pub encode: String,
    pub check: String,
    pub crc: String,
    pub scrambler: String,
    pub descrambler: String,
    /// With `clocking = "recovered"`: a lane's receiver on its recovered clock, its CDC FIFO,
    /// the clock compensation.
    pub rxcdc: String,
    pub cdc: String,
    pub comp: String,
    /// With `gt_bits`: a lane's Lane Aligner and TX GT width converter.
    pub align: String,
    pub gtx: String,
    /// With `user_clk_ratio` 2 or 4: the temporal bonding stages.
    pub tbond_tx: String,
    pub tbond_rx: String,
}

impl Names {
    pub fn new(b: &RiflBlock, design: &DesignInfo) -> Names {
        let base = format!("{}{}", design.prefix, b.name);
        let m = |s: &str| format!("{base}{s}");
        Names {
            top: base.clone(),
            tx: m("_tx"),
            rx: m("_rx"),
            fifo: m("_fifo"),
            txgear: m("_txgear"),
            rxgear: m("_rxgear"),
            encode: m("_encode"),
            check: m("_check"),
            crc: m("_crc"),
            scrambler: m("_scrambler"),
            descrambler: m("_descrambler"),
            rxcdc: m("_rxcdc"),
            cdc: m("_cdc"),
            comp: m("_comp"),
            align: m("_align"),
            gtx: m("_gtx"),
            tbond_tx: m("_tbond_tx"),
            tbond_rx: m("_tbond_rx"),
        }
    }

    /// Every module of the block (the scrambler pair only with `scrambler = true`; the
    /// recovered-clock parts only with `recovered`, the compensation only with it on, the
    /// temporal bonding stages only with `temporal`).
    pub fn all(&self, scrambler: bool, recovered: Option<&Recovered>, temporal: Option<u32>) -> Vec<String> {
        let mut v = vec![self.top.clone(), self.tx.clone(), self.rx.clone(), self.fifo.clone(), self.txgear.clone(), self.rxgear.clone(), self.encode.clone(), self.check.clone(), self.crc.clone()];
        if scrambler {
            v.push(self.scrambler.clone());
            v.push(self.descrambler.clone());
        }
        if let Some(rec) = recovered {
            v.push(self.rxcdc.clone());
            v.push(self.cdc.clone());
            if rec.compensation {
                v.push(self.comp.clone());
            }
            if rec.gt_bits.is_some() {
                v.push(self.align.clone());
                v.push(self.gtx.clone());
            }
        }
        if temporal.is_some() {
            v.push(self.tbond_tx.clone());
            v.push(self.tbond_rx.clone());
        }
        v
    }
}

pub fn module_names(b: &RiflBlock, design: &DesignInfo) -> Vec<String> {
    Names::new(b, design).all(b.params.scrambler, b.recovered.as_ref(), b.temporal)
}

pub fn modules(b: &RiflBlock, design: &DesignInfo) -> Vec<GeneratedModule> {
    let p = &b.model_params;
    let n = Names::new(b, design);
    let mut out = vec![
        top::module(p, design, &n, b.recovered.as_ref(), b.temporal),
        tx::module(p, design, &n),
        rx::module(p, design, &n),
        fifo::module(p, design, &n),
        gearbox::module(design, &n.txgear, Role::TxGear, p.user_bytes() as u32, p.group_bytes() as u32, false, "(TX: user beats to lane groups)"),
        gearbox::module(design, &n.rxgear, Role::RxGear, p.group_bytes() as u32, p.user_bytes() as u32, true, "(RX: lane groups to user beats)"),
        codec::encode(p, &n),
        codec::check(p, &n),
        codec::crc(p, design, &n),
    ];
    if p.scrambler {
        out.push(codec::scrambler(p, design, &n, false));
        out.push(codec::scrambler(p, design, &n, true));
    }
    if let Some(rec) = &b.recovered {
        out.push(rxcdc::module(p, design, &n));
        // Without rx_clk_mhz the recovered clock is the far end's clk, or with gt_bits its fast clock.
        let rx_mhz = rec.rx_clk_mhz.unwrap_or(design.clock_mhz.round() as u32 * rec.gt_bits.map_or(1, |w| p.frame_bits / w));
        let fifo = AsyncFifoParams { width: Entry::bits(p.raw_bits() as u32), depth: CDC_DEPTH, sync_stages: CDC_SYNC_STAGES, registered_output: false, wr_clk_mhz: rx_mhz, rd_clk_mhz: design.clock_mhz.round() as u32 };
        let block = fifo.block(&n.cdc).expect("the CDC FIFO's shape is legal");
        let mut m = crate::blocks::async_fifo::rtl::module(&block, design, &n.cdc);
        m.origin = Some(Origin { kind: "async_fifo", params: fifo.to_list() });
        out.push(m);
        if rec.compensation {
            out.push(comp::module(design, &n, rec.gt_bits.is_some()));
        }
        if let Some(w) = rec.gt_bits {
            out.push(align::module(p, w, design, &n));
            out.push(gtx::module(p.frame_bits, w, design, &n));
        }
    }
    if let Some(t) = b.temporal {
        let w = p.user_bits / t;
        out.push(tbond::tx_module(w, t, design, &n));
        out.push(tbond::rx_module(w, t, design, &n));
    }
    // Each module carries what it is built from: the lane modules the lane parameters, the
    // gearboxes their widths, so nodes that differ elsewhere share them.
    let lane = Origin { kind: "rifl", params: RiflLaneParams::of(p).to_list() };
    let gear = Origin { kind: "rifl", params: RiflGearParams::of(p).to_list() };
    let bond = b.temporal.map(|t| Origin { kind: "rifl", params: RiflBondParams { user_bits: p.user_bits / t, user_clk_ratio: t }.to_list() });
    let clocks = b.recovered.as_ref().map(|rec| Origin { kind: "rifl", params: RiflClockParams::of(p, rec).to_list() });
    for m in &mut out {
        match m.role {
            Role::Node | Role::AsyncFifo => {}
            Role::RxCdc | Role::ClockComp | Role::LaneAligner | Role::GtTxWidth => m.origin = clocks.clone(),
            Role::TxGear | Role::RxGear => m.origin = Some(gear.clone()),
            Role::TemporalBondTx | Role::TemporalBondRx => m.origin = bond.clone(),
            _ => m.origin = Some(lane.clone()),
        }
    }
    out
}
