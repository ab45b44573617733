//! Properties of the frame codec: `_crc`, `_encode`, `_check`, the scrambler and descrambler.
//! Each is proven against a reference probed from the model, not from the generator's
//! matrices: every one of these functions is affine over GF(2) (the CRC-12 starts at 0 and has
//! no output XOR; the scrambler is linear in its state and input), so the model evaluated on
//! the all-zero input and every unit input defines it on every input, and the reference is one
//! flat masked parity per output bit. `rtl-gen formal` evaluates the module over GF(2) and
//! proves each output equal to its reference for every input.
//!
//! - `_crc`: `crc` is the table-driven CRC-12 model ([`CrcModel`]) of `data`.
//! - `_encode`: `frame` is the model's [`Codec::encode`] of `syn`, `line` and `id` (layout,
//!   CRC message and frame-ID fold included).
//! - `_check`: the CRC wire is the model's CRC of the received frame's message
//!   ([`Codec::crc`]); `ok` is the model's rule (SYN 01 or 10, and the verification code equal
//!   to that CRC XOR the expected ID), proven with the CRC wire as the cut (so SAT sees only
//!   the comparison).
//! - scrambler and descrambler: for every state, `dout` and `state_next` are the serial
//!   definition's line bits and state after the frame ([`scramble_serial`],
//!   [`descramble_serial`]); the state register is a free input of the proof, so it holds in
//!   every state, reachable or not; the register loads `state_next` when `en` (and 0 in reset).

use crate::bits::Bits;
use crate::blocks::crc::model::CrcModel;
use crate::blocks::rifl::model::codec::{crc_algo, Codec};
use crate::blocks::rifl::model::params::Params;
use crate::blocks::rifl::model::scrambler::{descramble_serial, scramble_serial};
use crate::hw::build::{and, cat, eq, id, or, zeros};
use crate::hw::props::Formal;
use crate::hw::verilog::{Expr, Item};
use crate::math::gf2::BitVec;

/// The affine map `f` (inputs `n_in` bits, outputs `n_out` bits) as rows (output bit j: the mask
/// of the inputs it reads) and the constant, from `n_in + 1` evaluations.
fn probe(n_in: usize, n_out: usize, f: impl Fn(&Bits) -> Bits) -> (Vec<BitVec>, Bits) {
    let c0 = f(&Bits::zeros(n_in));
    let mut rows = vec![BitVec::zeros(n_in); n_out];
    for k in 0..n_in {
        let mut x = Bits::zeros(n_in);
        x.set(k, true);
        let y = f(&x);
        for (j, row) in rows.iter_mut().enumerate() {
            if y.get(j) != c0.get(j) {
                row.set(k, true);
            }
        }
    }
    (rows, c0)
}

/// A reference wire `name` (`rows.len()` bits): one flat masked parity of `of` per bit.
fn reference(f: &mut Formal, name: &str, of: Expr, (rows, c0): (Vec<BitVec>, Bits), doc: &str) -> Expr {
    f.items.push(Item::wire(name, rows.len() as u32, doc));
    let bits = rows.iter().enumerate().rev().map(|(j, r)| if r.is_zero() { Expr::dec(1, u64::from(c0.get(j))) } else { Expr::parity(of.clone(), r.clone(), c0.get(j)) }).collect();
    f.items.push(Item::assign(id(name), Expr::Concat(bits)));
    id(name)
}

/// `_crc`: `p_crc_ref`.
pub fn crc(p: &Params) -> Item {
    let w = p.crc_msg_bits();
    let model = CrcModel::new(crc_algo(p.crc_poly));
    let probed = probe(w, 12, |x| {
        let mut v = BitVec::zeros(w);
        (0..w).filter(|&k| x.get(k)).for_each(|k| v.set(k, true));
        Bits::from_u64(model.of_bits(&v, 0, 0), 12)
    });
    let mut f = Formal::combinational();
    let r = reference(&mut f, "f_ref_crc", id("data"), probed, "reference: the table-driven CRC-12 model of data, probed on unit messages");
    f.assert("p_crc_ref", "crc is the model's CRC-12 of data", None, eq(id("crc"), r));
    Item::Formal(f)
}

/// `_encode`: `p_frame_ref`.
pub fn encode(p: &Params) -> Item {
    let codec = Codec::new(*p);
    let (r, ib, fw) = (p.raw_bits(), p.frame_id_bits as usize, p.frame_width());
    // Inputs as the vector {id, line, syn}.
    let probed = probe(2 + r + ib, fw, |x| codec.encode(x.field(0, 2) as u8, &x.slice(2, r), x.field(2 + r, ib) as u32));
    let mut f = Formal::combinational();
    let of = cat(vec![id("id"), id("line"), id("syn")]);
    let refr = reference(&mut f, "f_ref_frame", of, probed, "reference: the model's encoded frame of {id, line, syn}, probed on unit inputs");
    f.assert("p_frame_ref", "frame is the model's frame: layout, CRC-12 message and frame-ID fold", None, eq(id("frame"), refr));
    Item::Formal(f)
}

/// `_check`: `p_crc_ref` and `p_ok` (the CRC wire `crc` the cut).
pub fn check(p: &Params) -> Item {
    let codec = Codec::new(*p);
    let (r, ib, fw) = (p.raw_bits(), p.frame_id_bits as usize, p.frame_width() as u32);
    let probed = probe(fw as usize, 12, |x| Bits::from_u64(u64::from(codec.crc(x.get(1), &x.slice(2, r))), 12));
    let mut f = Formal::combinational();
    let refr = reference(&mut f, "f_ref_crc", id("frame"), probed, "reference: the model's CRC-12 of the received frame's message, probed on unit frames");
    f.assert("p_crc_ref", "the CRC wire is the model's CRC-12 of the received frame's SYN bit and line region", None, eq(id("crc"), refr));
    f.cut_points.push("crc".into());
    let syn = Expr::slice("frame", 1, 0);
    let legal = or(eq(syn.clone(), Expr::dec(2, 1)), eq(syn, Expr::dec(2, 2)));
    let expected = if ib == 12 { id("id") } else { cat(vec![zeros(12 - ib as u32), id("id")]) };
    let ok = and(legal.clone(), eq(Expr::slice("frame", fw - 1, fw - 12), Expr::xor(id("crc"), expected)));
    f.assert("p_legal", "legal is 1 exactly when SYN is 01 (data) or 10 (control)", None, eq(id("legal"), legal));
    f.assert("p_ok", "ok is the model's check: a legal SYN and the verification code equal to the CRC XOR the expected frame ID", None, eq(id("ok"), ok));
    Item::Formal(f)
}

/// The scrambler (`descramble = false`) or descrambler: `p_dout_ref`, `p_state_next_ref`.
pub fn scrambler(p: &Params, descramble: bool) -> Item {
    let r = p.raw_bits();
    let serial = |x: &Bits| {
        let (state, din) = (x.field(r, 33), x.slice(0, r));
        if descramble {
            descramble_serial(state, &din)
        } else {
            scramble_serial(state, &din)
        }
    };
    let mut f = Formal::combinational();
    f.free_registers.push("state".into());
    let of = cat(vec![id("state"), id("din")]);
    let doc = if descramble { "descramble_serial" } else { "scramble_serial" };
    let out = reference(&mut f, "f_ref_dout", of.clone(), probe(r + 33, r, |x| serial(x).0), &format!("reference: the line bits of the model's {doc} from {{state, din}}"));
    let next = reference(&mut f, "f_ref_state_next", of, probe(r + 33, 33, |x| Bits::from_u64(serial(x).1, 33)), &format!("reference: the state after the frame in {doc}"));
    f.assert("p_dout_ref", &format!("dout is the model's {doc} of din from the state, in every state"), None, eq(id("dout"), out));
    f.assert("p_state_next_ref", "state_next is the model's state after the frame (its last 33 line bits), in every state", None, eq(id("state_next"), next));
    Item::Formal(f)
}
