//! One AXI4-Stream bundle of a Verilated module, found from the module's own ports by the
//! names the generator's builder gives them (`rtl_gen::hw::axis`): drivers read and drive
//! `tvalid`, `tdata`, ... through it instead of spelling the port names.

use crate::{Bits, Dut, PortId, SimError};
use rtl_gen::hw::axis::{signal_name, Signal};

/// The ports of bundle `name` that the module has, resolved once.
#[derive(Debug, Clone)]
pub struct Axis {
    pub name: String,
    /// The signals the module has: the resolved port, its width and its name.
    ports: Vec<(Signal, PortId, usize, String)>,
}

impl Axis {
    /// The bundle `name` of `dut`'s module: `tdata`, `tvalid` and `tready` must exist, the
    /// others are taken where the module has them.
    pub fn of(dut: &Dut, name: &str) -> Result<Axis, SimError> {
        let mut ports = Vec::new();
        for signal in Signal::ALL {
            let port = signal_name(name, signal);
            match dut.info().port(&port) {
                Some(p) => ports.push((signal, dut.port(&port)?, p.width as usize, port)),
                None if matches!(signal, Signal::Data | Signal::Valid | Signal::Ready) => {
                    dut.port(&port)?;
                }
                None => {}
            }
        }
        Ok(Axis { name: name.to_string(), ports })
    }

    fn find(&self, signal: Signal) -> Result<(PortId, usize), SimError> {
        self.ports.iter().find(|(s, ..)| *s == signal).map(|(_, id, w, _)| (*id, *w)).ok_or_else(|| SimError::Design {
            message: format!("stream {} has no {}", self.name, signal.suffix()),
        })
    }

    pub fn has(&self, signal: Signal) -> bool {
        self.ports.iter().any(|(s, ..)| *s == signal)
    }

    /// Width of `signal` (0 when the bundle has none).
    pub fn width(&self, signal: Signal) -> usize {
        self.find(signal).map_or(0, |(_, w)| w)
    }

    /// The port name of `signal`, for mismatch reports (empty when the bundle has none).
    pub fn label(&self, signal: Signal) -> &str {
        self.ports.iter().find(|(s, ..)| *s == signal).map_or("", |(.., name)| name.as_str())
    }

    pub fn set(&self, dut: &mut Dut, signal: Signal, value: &Bits) -> Result<(), SimError> {
        dut.set_port(self.find(signal)?.0, value)
    }

    pub fn set_u64(&self, dut: &mut Dut, signal: Signal, value: u64) -> Result<(), SimError> {
        dut.set_port_u64(self.find(signal)?.0, value)
    }

    pub fn get(&self, dut: &Dut, signal: Signal) -> Result<Bits, SimError> {
        dut.get_port(self.find(signal)?.0)
    }

    pub fn get_u64(&self, dut: &Dut, signal: Signal) -> Result<u64, SimError> {
        dut.get_port_u64(self.find(signal)?.0)
    }

    /// `tvalid` and `tready` both high: a beat moves at the next edge.
    pub fn fires(&self, dut: &Dut) -> Result<bool, SimError> {
        Ok(self.get_u64(dut, Signal::Valid)? == 1 && self.get_u64(dut, Signal::Ready)? == 1)
    }
}
