//! Block kind `rs_fec`: interleaved Reed-Solomon FEC for flits (CXL/PCIe 6 generic and pcie6
//! layouts, Ethernet KR4/KP4).

pub mod model;
