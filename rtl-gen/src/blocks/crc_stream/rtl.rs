//! The `crc_stream` module: loop register, then the un-shift pipeline.

use super::CrcStreamBlock;
use crate::hw::module::{clock_ports, GeneratedModule, Role};
use crate::info::DesignInfo;
use crate::hw::verilog::{Expr, Item, Module, Port, Stmt};
use crate::hw::xor_net::{self, Columns, XorNet, XorStyle};
use crate::math::gf2::{AffineMap, BitMatrix, BitVec};

/// Register-domain matrices: `next = A·state ⊕ B·beat` (beat columns in Verilog bit order).
fn loop_map(b: &CrcStreamBlock) -> AffineMap {
    let w = b.algo.width as usize;
    let n = 8 * b.word_bytes as usize;
    let u = b.algo.register().unroll(n);
    let rows = (0..w)
        .map(|r| {
            let mut row = BitVec::zeros(w + n);
            for c in u.state.row(r).iter_ones() {
                row.set(c, true);
            }
            let fed = u.input.row(r);
            for k in 0..n {
                if fed.get(b.algo.feed_position(k)) {
                    row.set(w + k, true);
                }
            }
            row
        })
        .collect();
    AffineMap { matrix: BitMatrix::from_rows(w + n, rows), constant: BitVec::zeros(w) }
}

/// `pad` = number of invalid bytes of a contiguous `in_keep`: bit j of a thermometer code's
/// count is the XOR of its entries at positions q·2^j − 1, here counted from the top on ~keep.
fn pad_masks(word_bytes: usize, bits: u32) -> Vec<BitVec> {
    (0..bits)
        .map(|j| {
            let mut m = BitVec::zeros(word_bytes);
            let step = 1usize << j;
            let mut q = 1;
            while q * step <= word_bytes {
                m.set(word_bytes - q * step, true);
                q += 1;
            }
            m
        })
        .collect()
}

pub fn module(b: &CrcStreamBlock, design: &DesignInfo, name: &str) -> GeneratedModule {
    let w = b.algo.width;
    let wb = b.word_bytes;
    let steps = b.unshift_steps();
    let mut ports = clock_ports(design);
    ports.extend([
        Port::input("in_valid", 1, "a beat is presented this cycle"),
        Port::input("in_first", 1, "first beat of a message"),
        Port::input("in_last", 1, "last beat of a message"),
        Port::input("in_keep", wb, "valid bytes, contiguous from byte 0; partial only on the last beat"),
        Port::input("in_data", 8 * wb, "beat; byte i at [8i+7:8i], byte 0 first on the wire"),
        Port::output("crc_valid", 1, "crc holds the CRC of the message whose last beat came LATENCY cycles ago"),
        Port::output("crc", w, "CRC of the whole message"),
    ]);
    let mut items = Vec::new();
    let init = Expr::Const(BitVec::from_u128(w as usize, b.algo.init as u128));
    items.push(Item::Localparam { name: "INIT".into(), value: init, doc: "register value before the first byte (Rocksoft init)".into() });
    items.push(Item::comment("Loop: one whole beat per cycle; bytes not kept are zeroed and undone behind the loop."));
    items.push(Item::reg("state", w, "CRC register between the beats of a message"));
    items.push(Item::wire("beat", 8 * wb, "in_data with the bytes not kept forced to zero"));
    // A one-byte beat has a 1-bit in_keep, declared without a range.
    let keep_bit = |i: u32| if wb == 1 { Expr::id("in_keep") } else { Expr::bit("in_keep", i) };
    let keep_bytes = Expr::Concat((0..wb).rev().map(|i| Expr::Repeat(8, Box::new(keep_bit(i)))).collect());
    items.push(Item::assign(Expr::id("beat"), Expr::and(Expr::id("in_data"), keep_bytes)));
    items.push(Item::wire("state_in", w, "the register a beat continues from"));
    items.push(Item::assign(Expr::id("state_in"), Expr::mux(Expr::id("in_first"), Expr::id("INIT"), Expr::id("state"))));
    items.push(Item::wire("feed", 8 * wb + w, "{beat, state_in}"));
    items.push(Item::assign(Expr::id("feed"), Expr::Concat(vec![Expr::id("beat"), Expr::id("state_in")])));
    items.push(Item::wire("state_next", w, "register after this beat"));
    xor_net::emit(&mut items, &XorNet { name: "loop", input: Columns::One("feed"), map: &loop_map(b), style: XorStyle::SHARED }, "state_next", 0);
    let accept_last = Expr::and(Expr::id("in_valid"), Expr::id("in_last"));
    items.push(Item::AlwaysFf {
        reset: Some(vec![Stmt::set(Expr::id("state"), Expr::id("INIT"))]),
        body: vec![Stmt::when(Expr::id("in_valid"), vec![Stmt::set(Expr::id("state"), Expr::id("state_next"))])],
    });

    // Stage 1: capture the padded register of a finished message and its pad count.
    items.push(Item::comment("Stage 1: the finished message's register, still multiplied by x^(8*pad)."));
    let mut valid_regs = vec![];
    items.push(Item::reg("s1_valid", 1, "stage 1 holds a finished message"));
    items.push(Item::reg("s1_state", w, ""));
    valid_regs.push(Stmt::set(Expr::id("s1_valid"), accept_last.clone()));
    let mut capture = vec![Stmt::set(Expr::id("s1_state"), Expr::id("state_next"))];
    if steps > 0 {
        items.push(Item::wire("keep_n", wb, "bytes not kept"));
        items.push(Item::assign(Expr::id("keep_n"), Expr::id("in_keep").not()));
        items.push(Item::wire("pad", steps, "number of bytes not kept (in_keep is contiguous from byte 0)"));
        for (j, m) in pad_masks(wb as usize, steps).into_iter().enumerate() {
            let lhs = if steps == 1 { Expr::id("pad") } else { Expr::bit("pad", j as u32) };
            items.push(Item::assign(lhs, Expr::parity(Expr::id("keep_n"), m, false)));
        }
        items.push(Item::reg("s1_pad", steps, ""));
        capture.push(Stmt::set(Expr::id("s1_pad"), Expr::id("pad")));
    }
    items.push(Item::AlwaysFf { reset: Some(vec![Stmt::set(Expr::id("s1_valid"), Expr::zero())]), body: valid_regs });
    items.push(Item::AlwaysFf { reset: None, body: vec![Stmt::when(accept_last, capture)] });

    // Un-shift stages: two conditional multiplications by x^(-8·2^j) per registered stage.
    let mut stage = 1u32;
    let mut j = 0u32;
    while j < steps {
        // Un-shift stages exist only for word_bytes > 1, where parsing required an odd polynomial.
        let inv_byte = b.algo.register().step_matrix().pow(8).inverse().expect("odd polynomial (checked for word_bytes > 1): x is invertible");
        let (cur, next) = (format!("s{stage}"), format!("s{}", stage + 1));
        items.push(Item::comment(&format!("Stage {}: undo pad bits {}..{} (multiply by x^(-8*2^j) where pad[j] is set).", stage + 1, j, (j + 1).min(steps - 1))));
        let mut value = format!("{cur}_state");
        let mut body = vec![];
        for jj in j..(j + 2).min(steps) {
            let u = inv_byte.pow(1u64 << jj);
            let wire = format!("{cur}_unshift{jj}");
            items.push(Item::wire(&wire, w, &format!("register divided by x^{}", 8u64 << jj)));
            let pad_bit = pad_bit(&cur, steps, j, jj);
            for i in 0..w as usize {
                let shifted = Expr::parity(Expr::id(&value), u.row(i).clone(), false);
                let kept = if w == 1 { Expr::id(&value) } else { Expr::bit(&value, i as u32) };
                let lhs = if w == 1 { Expr::id(&wire) } else { Expr::bit(&wire, i as u32) };
                items.push(Item::assign(lhs, Expr::mux(pad_bit.clone(), shifted, kept)));
            }
            value = wire;
        }
        items.push(Item::reg(&format!("{next}_valid"), 1, ""));
        items.push(Item::reg(&format!("{next}_state"), w, ""));
        body.push(Stmt::set(Expr::id(&format!("{next}_state")), Expr::id(&value)));
        let remaining = steps.saturating_sub(j + 2);
        if remaining > 0 {
            items.push(Item::reg(&format!("{next}_pad"), remaining, ""));
            let hi = steps - j - 1;
            body.push(Stmt::set(Expr::id(&format!("{next}_pad")), Expr::Slice(format!("{cur}_pad"), hi, 2)));
        }
        items.push(Item::AlwaysFf {
            reset: Some(vec![Stmt::set(Expr::id(&format!("{next}_valid")), Expr::zero())]),
            body: vec![Stmt::set(Expr::id(&format!("{next}_valid")), Expr::id(&format!("{cur}_valid")))],
        });
        items.push(Item::AlwaysFf { reset: None, body });
        stage += 1;
        j += 2;
    }
    let last = format!("s{stage}");
    items.push(Item::comment("Output: reflection and xorout are wiring and inverters."));
    items.push(Item::assign(Expr::id("crc_valid"), Expr::id(&format!("{last}_valid"))));
    let reg = format!("{last}_state");
    let bits: Vec<Expr> = (0..w)
        .rev()
        .map(|i| {
            let src = if b.algo.refout { w - 1 - i } else { i };
            if w == 1 {
                Expr::id(&reg)
            } else {
                Expr::bit(&reg, src)
            }
        })
        .collect();
    let out = if bits.len() == 1 { bits.into_iter().next().expect("one bit") } else { Expr::Concat(bits) };
    let out = if b.algo.xorout != 0 { Expr::xor(out, Expr::Const(BitVec::from_u128(w as usize, b.algo.xorout as u128))) } else { out };
    items.push(Item::assign(Expr::id("crc"), out));
    items.push(super::props::properties(b));

    GeneratedModule {
        module: Module { name: name.to_string(), ports, items, reset: Some(design.reset) },
        latency: b.latency(),
        summary: format!(
            "{}-bit CRC of messages of any length arriving as {}-byte beats, one beat per cycle with no gap between messages; crc_valid pulses {} cycles after the beat with in_last.",
            w,
            wb,
            b.latency()
        ),
        notes: vec![
            "in_keep must be contiguous from byte 0 (all ones except on the last beat, which keeps at least byte 0).".into(),
            "The loop zero-pads a partial last beat; the stages behind it divide the padding back out (x^-8 per pad byte), so one loop network serves every in_keep pattern.".into(),
        ],
        role: Role::CrcStream,
        origin: None,
    }
}

/// The pad bit `jj` as seen in stage `cur`: stage 1 holds all bits, later stages drop two per
/// stage.
fn pad_bit(cur: &str, steps: u32, base: u32, jj: u32) -> Expr {
    let width = steps - base;
    let reg = format!("{cur}_pad");
    if width == 1 {
        Expr::id(&reg)
    } else {
        Expr::bit(&reg, jj - base)
    }
}
