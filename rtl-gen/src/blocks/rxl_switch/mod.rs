//! Block kind `rxl_switch`: a FEC-only RXL switch port (no sequence state), as two modules so a
//! campaign can corrupt a flit between them: `<prefix><name>_link_rx` and
//! `<prefix><name>_link_tx` (see [`model`]).

pub mod model;
