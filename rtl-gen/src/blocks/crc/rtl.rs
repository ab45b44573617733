//! The generator and checker modules of a `crc` block.

use super::CrcBlock;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::verilog::{Item, Module, Port};
use crate::hw::xor_net::{self, Columns, XorNet};

/// Ports shared by both modules: clock, reset and in_valid when pipelined, data, seq.
fn input_ports(b: &CrcBlock, design: &DesignInfo, seq_doc: &str) -> Vec<Port> {
    let mut ports = Vec::new();
    if b.pipeline > 0 {
        ports.extend(clock_ports(design));
        ports.push(Port::input("in_valid", 1, "data (and seq) valid this cycle"));
    }
    ports.push(Port::input("data", b.data_bits, "message; byte i at [8i+7:8i], byte 0 first on the wire"));
    if b.seq_bits > 0 {
        ports.push(Port::input("seq", b.seq_bits, seq_doc));
    }
    ports
}

fn reset_of(b: &CrcBlock, design: &DesignInfo) -> Option<crate::info::ResetStyle> {
    (b.pipeline > 0).then_some(design.reset)
}

fn notes(b: &CrcBlock) -> Vec<String> {
    let mut n = vec![format!(
        "crc is the catalogue value of the {}-byte message (byte 0 first): CRC(data{})",
        b.data_bits / 8,
        if b.seq_bits > 0 { " ^ {{(data_bits-seq_bits){1'b0}}, seq}" } else { "" }
    )];
    if b.seq_bits > 0 {
        n.push("ISN (RXL paper §7.3): the sender's sequence number is never transmitted; a receiver checking with its expected number sees a dropped or replayed flit as a CRC error.".into());
    }
    n
}

pub fn generator(b: &CrcBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let mut ports = input_ports(b, design, "sequence number XORed into data[seq_bits-1:0] (ISN)");
    ports.push(Port::output("crc", b.algorithm.width, "CRC of the message"));
    if b.pipeline > 0 {
        ports.push(Port::output("out_valid", 1, "crc valid; in_valid delayed by the latency"));
    }
    let mut items = Vec::new();
    let map = b.algorithm.affine(b.data_bits as usize, b.seq_bits as usize);
    let (parts, input) = xor_net::isn_columns(b.data_bits, b.seq_bits);
    items.push(Item::comment(&format!("crc = M·{input} ^ c over GF(2) (inverted where c is 1): {}.", b.network.how(b.pipeline))));
    xor_net::emit(&mut items, &XorNet { name: "crc", input: Columns::Parts(&parts), map: &map, style: b.network }, "crc", b.pipeline);
    if b.pipeline > 0 {
        xor_net::emit_valid_pipe(&mut items, "valid_pipe", "in_valid", "out_valid", b.pipeline);
    }
    items.extend(super::props::generator(b));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: reset_of(b, design) },
        latency: b.pipeline,
        summary: format!(
            "{}-bit CRC over a {}-bit message in one cycle{}.",
            b.algorithm.width,
            b.data_bits,
            if b.seq_bits > 0 { format!(", with a {}-bit implicit sequence number", b.seq_bits) } else { String::new() }
        ),
        notes: notes(b),
        role: Role::Crc,
        origin: None,
    }
}

/// The checker computes the syndrome `CRC(data, seq) ^ crc_in` with `crc_in` as extra
/// identity columns of the same network, so checking costs no comparator level of its own.
pub fn checker(b: &CrcBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let w = b.algorithm.width;
    let mut ports = input_ports(b, design, "the receiver's expected sequence number (ISN)");
    ports.push(Port::input("crc_in", w, "received CRC"));
    ports.push(Port::output("ok", 1, "1 iff crc_in equals the CRC of data (with seq)"));
    if b.pipeline > 0 {
        ports.push(Port::output("out_valid", 1, "ok valid; in_valid delayed by the latency"));
    }
    let mut items = Vec::new();
    let crc_map = b.algorithm.affine(b.data_bits as usize, b.seq_bits as usize);
    xor_net::emit_crc_checker(&mut items, &crc_map, b.data_bits, b.seq_bits, b.network, b.pipeline, &format!("syndrome = M·{{seq, data}} ^ c ^ crc_in: {}.", b.network.how(b.pipeline)));
    items.extend(super::props::checker(b));
    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: reset_of(b, design) },
        latency: b.pipeline,
        summary: format!("Checks a {}-bit CRC over a {}-bit message{}: ok = 1 iff crc_in matches.", w, b.data_bits, if b.seq_bits > 0 { " against the expected sequence number" } else { "" }),
        notes: notes(b),
        role: Role::CrcCheck,
        origin: None,
    }
}
