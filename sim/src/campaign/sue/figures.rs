//! The figures of `rtl-gen sim sue --figures` (filled in below).
