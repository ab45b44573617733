//! The one check every design-error test makes: the design is refused, and the error names
//! what the user must fix (block, field, value, allowed range: the fragments the test expects).

use rtl_gen::config::Design;

/// Parse `text`, expect an error, and check it contains every fragment.
pub fn refused(text: &str, fragments: &[&str]) {
    let err = Design::parse(text, "bad.toml").expect_err(&format!("accepted a bad design:\n{text}")).to_string();
    for f in fragments {
        assert!(err.contains(f), "error `{err}` does not mention `{f}`\n--- design ---\n{text}");
    }
}
