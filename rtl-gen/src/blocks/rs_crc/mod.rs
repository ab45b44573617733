//! Block kind `rs_crc`: a CRC defined over GF(2^m), such as the PCIe 6.0 / CXL 3 flit CRC,
//! with the Implicit Sequence Number folded in.

pub mod model;
