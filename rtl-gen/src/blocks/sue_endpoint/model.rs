//! Reference model of `sue_endpoint`: the packer's and the transport's cycle-accurate models
//! wired as the RTL wires them (PDU stream, dest_ok = tx_dest_ready, tx_vc_pause to both).

use super::SueEndpointBlock;
use crate::blocks::sue_packer::model::{PackerModel, PkInputs, PkOutputs};
use crate::blocks::sue_transport::model::{TpInputs, TpOutputs, TransportModel};

/// The inputs of one cycle.
#[derive(Debug, Clone, Default)]
pub struct EpInputs {
    pub cmd_valid: bool,
    pub cmd_data: Vec<u8>,
    pub cmd_last: bool,
    pub cmd_dest: u32,
    /// [1:0] vc, [2] flush, [3] err.
    pub cmd_user: u8,
    pub tx_ready: bool,
    pub tx_vc_pause: u32,
    pub rx_valid: bool,
    pub rx_data: Vec<u8>,
    pub rx_keep: u128,
    pub rx_last: bool,
    pub rx_user: bool,
    pub out_ready: bool,
    pub xpu_vc_pause: u32,
    /// The `local_xpuid` input (`xpuid_source = "port"`; ignored with a constant id).
    pub local_xpuid: u32,
}

#[derive(Debug, Clone)]
pub struct EndpointModel {
    pub pk: PackerModel,
    pub tp: TransportModel,
}

impl EndpointModel {
    pub fn new(b: &SueEndpointBlock) -> EndpointModel {
        EndpointModel {
            pk: b.packer_block.model(),
            tp: b.transport_block.model(),
        }
    }

    /// The two parts' inputs for this cycle.
    fn split(&self, i: &EpInputs) -> (PkInputs, TpInputs) {
        let pko = self.pk.outputs(&PkInputs::default());
        let mut tpi = TpInputs {
            pdu_valid: pko.pdu_valid,
            pdu_data: self.pk.pdu_data().to_vec(),
            pdu_last: pko.pdu_last,
            pdu_dest: pko.pdu_dest,
            pdu_user: pko.pdu_user,
            tx_ready: i.tx_ready,
            tx_vc_pause: i.tx_vc_pause,
            rx_valid: i.rx_valid,
            rx_data: i.rx_data.clone(),
            rx_keep: i.rx_keep,
            rx_last: i.rx_last,
            rx_user: i.rx_user,
            cmd_ready: i.out_ready,
            xpu_vc_pause: i.xpu_vc_pause,
            local_xpuid: i.local_xpuid,
        };
        if tpi.pdu_data.is_empty() {
            tpi.pdu_data = vec![0; i.rx_data.len()];
        }
        let tpo = self.tp.outputs(&tpi);
        let pki = PkInputs {
            cmd_valid: i.cmd_valid,
            cmd_data: i.cmd_data.clone(),
            cmd_last: i.cmd_last,
            cmd_dest: i.cmd_dest,
            cmd_user: i.cmd_user,
            vc_pause: i.tx_vc_pause,
            dest_ok: tpo.tx_dest_ready,
            pdu_ready: tpo.pdu_ready,
        };
        (pki, tpi)
    }

    pub fn outputs(&self, i: &EpInputs) -> (PkOutputs, TpOutputs) {
        let (pki, tpi) = self.split(i);
        (self.pk.outputs(&pki), self.tp.outputs(&tpi))
    }

    pub fn clock(&mut self, i: &EpInputs) {
        let (pki, tpi) = self.split(i);
        self.pk.tick(&pki);
        self.tp.clock(&tpi);
    }
}
