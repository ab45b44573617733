//! SUE (Scale-Up Ethernet) campaigns. Today: [`packing`], the packer's packing efficiency and
//! packing latency versus offered load on the Verilated RTL (checked in lockstep against the
//! model and by the scoreboard while it measures), the seed's §4.4 claim that opportunistic
//! packing lifts wire efficiency at load without delaying a lone command. The transport,
//! endpoint and fabric campaigns of issue 13 are not built yet.

pub mod packing;
