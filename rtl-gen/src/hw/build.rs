//! Short-hand builders over the typed Verilog tree, shared by the hand-structured generators
//! (replay buffer, RXL endpoint and switch, RIFL): they only shorten the common shapes, every
//! module is still an `hw::verilog` tree.

use super::verilog::{BinOp, Expr, Item};

pub fn id(name: &str) -> Expr {
    Expr::id(name)
}
pub fn dec(width: u32, value: u64) -> Expr {
    Expr::dec(width, value)
}
pub fn and(a: Expr, b: Expr) -> Expr {
    Expr::and(a, b)
}
pub fn or(a: Expr, b: Expr) -> Expr {
    Expr::or(a, b)
}
pub fn eq(a: Expr, b: Expr) -> Expr {
    Expr::eq(a, b)
}
pub fn ne(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Ne, a, b)
}
pub fn lt(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Lt, a, b)
}
/// `a >= b` as `!(a < b)`.
pub fn ge(a: Expr, b: Expr) -> Expr {
    lt(a, b).lnot()
}
pub fn add(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Add, a, b)
}
pub fn sub(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Sub, a, b)
}
pub fn mux(sel: Expr, a: Expr, b: Expr) -> Expr {
    Expr::mux(sel, a, b)
}

/// Declare the wire `name` of `width` bits and drive it with `value`.
pub fn wire(items: &mut Vec<Item>, name: &str, width: u32, doc: &str, value: Expr) {
    items.push(Item::wire(name, width, doc));
    items.push(Item::assign(id(name), value));
}

/// Bits to hold 0..=max (at least 1).
pub fn bits_for(max: u64) -> u32 {
    (u64::BITS - max.leading_zeros()).max(1)
}

#[cfg(test)]
mod tests {
    use super::bits_for;

    #[test]
    fn bits_for_holds_the_maximum() {
        assert_eq!(bits_for(0), 1);
        assert_eq!(bits_for(1), 1);
        assert_eq!(bits_for(7), 3);
        assert_eq!(bits_for(8), 4);
        assert_eq!(bits_for(255), 8);
        assert_eq!(bits_for(256), 9);
        assert_eq!(bits_for(u64::MAX), 64);
    }
}
