//! Block kind `rxl_endpoint`: a full-duplex RXL (implicit sequence number) or CXL 3.0 baseline
//! link endpoint: flit assembly with CRC and FEC, go-back-N replay, ACK coalescing.
//! [`flit`] describes the flit, [`model`] the cycle-accurate behaviour.

pub mod flit;
pub mod model;
