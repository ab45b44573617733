//! A block's parameters as the banners print them, for tests that check a derived value.

/// `(field, text)` for every parameter of `b`.
pub fn texts(b: &dyn rtl_gen::blocks::Block) -> Vec<(&'static str, String)> {
    rtl_gen::blocks::param_texts(b.kind(), &b.typed_params())
}
