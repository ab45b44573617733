//! AXI4-Stream port bundles: one builder names, orders, sizes and directs the `t*` signals of a
//! stream so every generator declares its streams alike, and the simulator finds them again
//! by the same names ([`signal_name`]).
//!
//! A bundle `name` has the ports `<name>_tdata`, `<name>_tkeep`, `<name>_tvalid`,
//! `<name>_tready`, `<name>_tlast`, `<name>_tid`, `<name>_tdest`, `<name>_tuser` (those it
//! uses), in that order. A sink (the module takes beats: `s_axis_*`, `in_*`) drives only
//! `tready`; a source (`m_axis_*`, `out_*`) drives everything but `tready`.

use super::build::{and, id};
use super::verilog::{Expr, Port};

/// The signals of a bundle, in port order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Data,
    Keep,
    Valid,
    Ready,
    Last,
    Id,
    Dest,
    User,
}

impl Signal {
    /// Every signal in port order.
    pub const ALL: [Signal; 8] = [Signal::Data, Signal::Keep, Signal::Valid, Signal::Ready, Signal::Last, Signal::Id, Signal::Dest, Signal::User];

    pub fn suffix(self) -> &'static str {
        match self {
            Signal::Data => "tdata",
            Signal::Keep => "tkeep",
            Signal::Valid => "tvalid",
            Signal::Ready => "tready",
            Signal::Last => "tlast",
            Signal::Id => "tid",
            Signal::Dest => "tdest",
            Signal::User => "tuser",
        }
    }
}

/// The port name of `signal` in bundle `name`: `s_axis_pdu` + `Valid` = `s_axis_pdu_tvalid`.
pub fn signal_name(name: &str, signal: Signal) -> String {
    format!("{name}_{}", signal.suffix())
}

/// Which way beats go through the module's bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The module takes beats (it drives `tready`).
    Sink,
    /// The module presents beats (it drives everything but `tready`).
    Source,
}

/// One bundle under construction: `tdata`, `tvalid` and `tready` always, the others as added.
#[derive(Debug, Clone)]
pub struct Axis {
    pub name: String,
    pub side: Side,
    /// Width and doc of each signal the bundle has.
    signals: Vec<(Signal, u32, String)>,
}

impl Axis {
    /// A bundle the module takes beats on: `data` bits of `tdata` (its doc), the docs of
    /// `tvalid` and `tready`.
    pub fn sink(name: &str, data: u32, data_doc: &str, valid_doc: &str, ready_doc: &str) -> Axis {
        Axis::new(name, Side::Sink, data, data_doc, valid_doc, ready_doc)
    }

    /// A bundle the module presents beats on.
    pub fn source(name: &str, data: u32, data_doc: &str, valid_doc: &str, ready_doc: &str) -> Axis {
        Axis::new(name, Side::Source, data, data_doc, valid_doc, ready_doc)
    }

    fn new(name: &str, side: Side, data: u32, data_doc: &str, valid_doc: &str, ready_doc: &str) -> Axis {
        let signals = vec![(Signal::Data, data, data_doc.to_string()), (Signal::Valid, 1, valid_doc.to_string()), (Signal::Ready, 1, ready_doc.to_string())];
        Axis { name: name.to_string(), side, signals }
    }

    fn with(mut self, signal: Signal, width: u32, doc: &str) -> Axis {
        assert!(!self.has(signal), "{}: {} given twice", self.name, signal.suffix());
        self.signals.push((signal, width, doc.to_string()));
        self
    }

    /// `tkeep`, one bit per byte of `tdata`.
    pub fn keep(self, doc: &str) -> Axis {
        let bytes = self.width(Signal::Data).div_ceil(8);
        self.with(Signal::Keep, bytes, doc)
    }
    pub fn last(self, doc: &str) -> Axis {
        self.with(Signal::Last, 1, doc)
    }
    pub fn id(self, width: u32, doc: &str) -> Axis {
        self.with(Signal::Id, width, doc)
    }
    pub fn dest(self, width: u32, doc: &str) -> Axis {
        self.with(Signal::Dest, width, doc)
    }
    pub fn user(self, width: u32, doc: &str) -> Axis {
        self.with(Signal::User, width, doc)
    }

    pub fn has(&self, signal: Signal) -> bool {
        self.signals.iter().any(|(s, _, _)| *s == signal)
    }

    /// Width of `signal` (0 when the bundle has none).
    pub fn width(&self, signal: Signal) -> u32 {
        self.signals.iter().find(|(s, _, _)| *s == signal).map_or(0, |(_, w, _)| *w)
    }

    /// The port name of `signal` (whether the bundle has it or not).
    pub fn port(&self, signal: Signal) -> String {
        signal_name(&self.name, signal)
    }

    /// `signal` as an expression.
    pub fn sig(&self, signal: Signal) -> Expr {
        id(&self.port(signal))
    }

    /// `tvalid & tready`: a beat moves this cycle.
    pub fn fire(&self) -> Expr {
        and(self.sig(Signal::Valid), self.sig(Signal::Ready))
    }

    /// The bundle's ports in port order, directed by its side.
    pub fn ports(&self) -> Vec<Port> {
        Signal::ALL
            .iter()
            .filter_map(|&signal| {
                let (_, width, doc) = self.signals.iter().find(|(s, _, _)| *s == signal)?;
                let driven_here = (signal == Signal::Ready) == (self.side == Side::Sink);
                let name = self.port(signal);
                Some(if driven_here { Port::output(&name, *width, doc) } else { Port::input(&name, *width, doc) })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::verilog::Dir;

    #[test]
    fn a_sink_drives_only_tready_and_ports_come_in_spec_order() {
        let a = Axis::sink("s_axis_rx", 64, "beats", "offered", "taken").user(1, "error").last("end").keep("enables");
        let ports = a.ports();
        let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["s_axis_rx_tdata", "s_axis_rx_tkeep", "s_axis_rx_tvalid", "s_axis_rx_tready", "s_axis_rx_tlast", "s_axis_rx_tuser"]);
        let outputs: Vec<&str> = ports.iter().filter(|p| p.dir == Dir::Output).map(|p| p.name.as_str()).collect();
        assert_eq!(outputs, ["s_axis_rx_tready"]);
        assert_eq!(a.width(Signal::Keep), 8);
        let b = Axis::source("out", 10, "beat", "valid", "taken");
        let outputs: Vec<String> = b.ports().into_iter().filter(|p| p.dir == Dir::Output).map(|p| p.name).collect();
        assert_eq!(outputs, ["out_tdata", "out_tvalid"]);
        assert_eq!(b.fire().render(), "out_tvalid & out_tready");
    }
}
