//! Typed, range-checked access to one `[[blocks]]` table. Each block kind declares its fields once
//! as [`FieldSpec`]s; the same list drives parsing, error messages and `rtl-gen list`.

use crate::error::{ConfigError, ConfigResult};
use std::collections::BTreeSet;

/// The type and the allowed values of a field.
#[derive(Debug, Clone, Copy)]
pub enum FieldType {
    /// An integer in `min..=max`.
    UInt { min: u64, max: u64 },
    /// A wide integer (TOML integer or `"0x…"` string) of at most the bit count another field
    /// gives (`width_field`), checked by the block.
    Bits { width_field: &'static str },
    Bool,
    /// One of a fixed list of strings.
    Choice(&'static [&'static str]),
}

/// One field of a block kind.
#[derive(Debug, Clone, Copy)]
pub struct FieldSpec {
    pub name: &'static str,
    pub ty: FieldType,
    /// `None`: required. `Some(TOML value)`: the default. `Some("derived: …")` ([`DERIVED`]): when
    /// not given, the kind computes it from other fields (what follows the prefix says from what).
    pub default: Option<&'static str>,
    pub doc: &'static str,
}

/// Prefix of a [`FieldSpec::default`] that the kind computes from other fields.
pub const DERIVED: &str = "derived: ";

/// What happens when a field is not given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldDefault {
    Required,
    /// This TOML value.
    Value(&'static str),
    /// Computed by the kind from other fields, as the text says.
    Derived(&'static str),
}

impl FieldSpec {
    pub fn default_value(&self) -> FieldDefault {
        match self.default {
            None => FieldDefault::Required,
            Some(d) => match d.strip_prefix(DERIVED) {
                Some(from) => FieldDefault::Derived(from),
                None => FieldDefault::Value(d),
            },
        }
    }

    /// The allowed range as users read it in errors and in `rtl-gen list`.
    pub fn allowed(&self) -> String {
        match self.ty {
            FieldType::UInt { min, max } => format!("{min}..={max}"),
            FieldType::Bits { width_field } => {
                format!("0..2^{width_field} (TOML integer or \"0x…\" string)")
            }
            FieldType::Bool => "true or false".into(),
            FieldType::Choice(c) => c.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", "),
        }
    }
}

/// Reads the fields of one block, remembering which were used so leftovers are reported.
pub struct FieldReader<'a> {
    block: String,
    kind: &'static str,
    specs: &'static [FieldSpec],
    table: &'a toml::Table,
    used: BTreeSet<String>,
}

impl<'a> FieldReader<'a> {
    pub fn new(block: &str, kind: &'static str, specs: &'static [FieldSpec], table: &'a toml::Table) -> Self {
        let mut used = BTreeSet::new();
        used.insert("kind".to_string());
        used.insert("name".to_string());
        FieldReader { block: block.to_string(), kind, specs, table, used }
    }

    pub fn block(&self) -> &str {
        &self.block
    }

    /// An error about `field` of this block.
    pub fn error(&self, field: &str, problem: impl Into<String>) -> ConfigError {
        ConfigError::Field { block: self.block.clone(), kind: self.kind, field: field.to_string(), problem: problem.into() }
    }

    fn spec(&self, name: &str) -> &'static FieldSpec {
        self.specs
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("block kind {} reads undeclared field `{name}`", self.kind))
    }

    /// The raw value, or the default parsed as TOML, or a missing-field error.
    fn value(&mut self, name: &str) -> ConfigResult<toml::Value> {
        let spec = self.spec(name);
        self.used.insert(name.to_string());
        if let Some(v) = self.table.get(name) {
            return Ok(v.clone());
        }
        match spec.default_value() {
            FieldDefault::Derived(_) => panic!("{}.{name} has a derived default: the kind reads it only when it is set (FieldReader::is_set)", self.kind),
            FieldDefault::Value(d) => {
                let parsed: toml::Table = toml::from_str(&format!("v = {d}"))
                    .unwrap_or_else(|e| panic!("default of {}.{name} is not TOML: {e}", self.kind));
                Ok(parsed["v"].clone())
            }
            FieldDefault::Required => Err(self.error(name, format!("is required; allowed {}", spec.allowed()))),
        }
    }

    pub fn is_set(&self, name: &str) -> bool {
        self.table.contains_key(name)
    }

    pub fn uint(&mut self, name: &str) -> ConfigResult<u64> {
        let (n, min, max) = self.number(name)?;
        if n < min || n > max {
            return Err(self.error(name, format!("= {n} is out of range; allowed {min}..={max}")));
        }
        Ok(n)
    }

    /// [`uint`](Self::uint), but a number outside the field's range is refused with the kind's
    /// own reason, `why(n)` (which states the allowed range in the field's terms), so
    /// `rtl-gen list` shows the one real range and the error still says why it is the range.
    pub fn uint_with_reason(&mut self, name: &str, why: impl FnOnce(u64) -> String) -> ConfigResult<u64> {
        let (n, min, max) = self.number(name)?;
        if n < min || n > max {
            return Err(self.error(name, why(n)));
        }
        Ok(n)
    }

    /// The unsigned number a UInt field holds, not yet checked against its range (returned
    /// with it): a non-negative integer, or a string in hex, binary or decimal as the wide
    /// fields take them. A negative or non-numeric value is refused here.
    fn number(&mut self, name: &str) -> ConfigResult<(u64, u64, u64)> {
        let spec = self.spec(name);
        let FieldType::UInt { min, max } = spec.ty else { panic!("{}.{name} is not a UInt field", self.kind) };
        let n = match &self.value(name)? {
            toml::Value::Integer(i) if *i >= 0 => *i as u64,
            toml::Value::Integer(i) => return Err(self.error(name, format!("= {i} is out of range; allowed {min}..={max}"))),
            toml::Value::String(s) => match parse_wide(s) {
                Some(n) if n <= u64::MAX as u128 => n as u64,
                Some(_) => return Err(self.error(name, format!("= \"{s}\" is out of range; allowed {min}..={max}"))),
                None => return Err(self.error(name, format!("= \"{s}\" is not a number; allowed {min}..={max} as an integer or a \"0x…\" string"))),
            },
            other => return Err(self.error(name, format!("= {other} is not an integer; allowed {min}..={max}"))),
        };
        Ok((n, min, max))
    }

    pub fn u32(&mut self, name: &str) -> ConfigResult<u32> {
        self.uint(name).map(|v| v as u32)
    }

    pub fn bool(&mut self, name: &str) -> ConfigResult<bool> {
        match self.value(name)? {
            toml::Value::Boolean(b) => Ok(b),
            other => Err(self.error(name, format!("= {other} is not a boolean; allowed true or false"))),
        }
    }

    pub fn choice(&mut self, name: &str) -> ConfigResult<&'static str> {
        let spec = self.spec(name);
        let FieldType::Choice(options) = spec.ty else { panic!("{}.{name} is not a Choice field", self.kind) };
        let v = self.value(name)?;
        let allowed = spec.allowed();
        match &v {
            toml::Value::String(s) => options
                .iter()
                .find(|o| **o == s.as_str())
                .copied()
                .ok_or_else(|| self.error(name, format!("= \"{s}\" is not allowed; allowed {allowed}"))),
            other => Err(self.error(name, format!("= {other} is not a string; allowed {allowed}"))),
        }
    }

    /// A wide unsigned number of at most `bits` bits: a non-negative TOML integer, or a string in
    /// hex (`0x…`), binary (`0b…`) or decimal; `_` separators allowed in strings.
    pub fn bits(&mut self, name: &str, bits: u32) -> ConfigResult<u128> {
        let v = self.value(name)?;
        let range = if bits >= 128 { "0..2^128".to_string() } else { format!("0..=0x{:X} ({bits} bits)", (1u128 << bits) - 1) };
        let n: u128 = match &v {
            toml::Value::Integer(i) if *i >= 0 => *i as u128,
            toml::Value::Integer(i) => {
                return Err(self.error(name, format!("= {i} is negative; allowed {range}; write values above 2^63 as a \"0x…\" string")))
            }
            toml::Value::String(s) => parse_wide(s).ok_or_else(|| self.error(name, format!("= \"{s}\" is not a number; allowed {range} as an integer or a \"0x…\" string")))?,
            other => return Err(self.error(name, format!("= {other} is not a number; allowed {range}"))),
        };
        if bits < 128 && n >> bits != 0 {
            return Err(self.error(name, format!("= 0x{n:X} does not fit; allowed {range}")));
        }
        Ok(n)
    }

    /// Every field the table has that the kind does not know is an error naming the known ones.
    pub fn finish(self) -> ConfigResult<()> {
        for key in self.table.keys() {
            if !self.used.contains(key) && !self.specs.iter().any(|s| s.name == key) {
                let known: Vec<&str> = self.specs.iter().map(|s| s.name).collect();
                return Err(self.error(key, format!("is not a field of kind {}; known fields: kind, name, {}", self.kind, known.join(", "))));
            }
        }
        Ok(())
    }
}

/// A parameter list as modules and the manifest carry it: each field of a block kind with its
/// typed value (integers, booleans and strings as the kind's parameter struct serialises them),
/// in the order of the kind's [`FieldSpec`] table.
pub type ParamList = Vec<(&'static str, serde_json::Value)>;

/// A kind's parameter struct: field names are the design-file names, and the kind's
/// [`FieldSpec`] table is the one list of their types, ranges, defaults and docs.
pub trait KindParams: serde::Serialize + serde::de::DeserializeOwned {
    const KIND: &'static str;
    fn fields() -> &'static [FieldSpec];

    /// The struct as a [`ParamList`], in table order; unset optional fields left out.
    fn to_list(&self) -> ParamList {
        let serde_json::Value::Object(map) = serde_json::to_value(self).expect("a parameter struct serialises") else {
            panic!("{} parameters do not serialise to an object", Self::KIND)
        };
        let mut out: ParamList = Vec::new();
        for (key, value) in map {
            if value.is_null() {
                continue;
            }
            let spec = Self::fields().iter().find(|s| s.name == key).unwrap_or_else(|| panic!("{}.{key} is not in the kind's field table", Self::KIND));
            out.push((spec.name, value));
        }
        let order = |name: &str| Self::fields().iter().position(|s| s.name == name);
        out.sort_by_key(|(name, _)| order(name));
        out
    }

    /// The struct back from a [`ParamList`] (a module's origin, a manifest entry).
    fn from_list(list: &[(&'static str, serde_json::Value)]) -> Result<Self, String> {
        let map: serde_json::Map<String, serde_json::Value> = list.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        serde_json::from_value(serde_json::Value::Object(map)).map_err(|e| format!("{} parameters: {e}", Self::KIND))
    }
}

/// Read a whole `[[blocks]]` table into a kind's parameter struct: every field of the table is
/// read and range-checked by its [`FieldSpec`] (the messages of the typed readers above),
/// defaults are filled in, fields with a derived default stay unset when not given, and the
/// result is deserialised. Combinations of fields are the struct's own validation.
pub fn read_params<P: KindParams>(r: &mut FieldReader) -> ConfigResult<P> {
    let mut map = serde_json::Map::new();
    for spec in P::fields() {
        if matches!(spec.default_value(), FieldDefault::Derived(_)) && !r.is_set(spec.name) {
            continue;
        }
        let value = match spec.ty {
            FieldType::UInt { .. } => serde_json::Value::from(r.uint(spec.name)?),
            FieldType::Bool => serde_json::Value::Bool(r.bool(spec.name)?),
            FieldType::Choice(_) => serde_json::Value::String(r.choice(spec.name)?.to_string()),
            FieldType::Bits { width_field } => {
                let width = map.get(width_field).and_then(|w| w.as_u64()).unwrap_or_else(|| panic!("{}.{} needs {width_field} earlier in the table", P::KIND, spec.name));
                let n = r.bits(spec.name, width.min(128) as u32)?;
                match u64::try_from(n) {
                    Ok(n) => serde_json::Value::from(n),
                    Err(_) => serde_json::Value::String(format!("0x{n:X}")),
                }
            }
        };
        map.insert(spec.name.to_string(), value);
    }
    serde_json::from_value(serde_json::Value::Object(map)).map_err(|e| r.error("kind", format!("parameters do not match the kind's table: {e}")))
}

/// A parameter value as banners, docs and header templates print it: strings as they are,
/// numbers in decimal, a wide constant ([`FieldType::Bits`]) in hex with as many digits as
/// its width field asks (`0x04C11DB7` for a 32-bit CRC), and a polynomial given as an integer
/// field (`crc_poly`, `field_poly`) in hex.
pub fn value_text(specs: &[FieldSpec], list: &[(&'static str, serde_json::Value)], field: &str, value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => {
            let width_field = specs.iter().find(|s| s.name == field).and_then(|s| match s.ty {
                FieldType::Bits { width_field } => Some(width_field),
                _ => None,
            });
            let width = width_field.and_then(|w| list.iter().find(|(k, _)| *k == w)).and_then(|(_, v)| v.as_u64());
            // A polynomial of a UInt field (`crc_poly`, `field_poly`) reads as one in hex.
            let poly = field.ends_with("poly") && specs.iter().any(|s| s.name == field && matches!(s.ty, FieldType::UInt { .. }));
            match (width, n.as_u64()) {
                (Some(w), Some(x)) => format!("0x{x:0digits$X}", digits = (w as usize).div_ceil(4)),
                (None, Some(x)) if poly => format!("{x:#X}"),
                _ => n.to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// Two field tables one after the other, as a constant (`N` = `A + B`, checked when it is
/// evaluated): how a kind lists the fields it shares with others without repeating them.
pub const fn concat_fields<const A: usize, const B: usize, const N: usize>(a: [FieldSpec; A], b: [FieldSpec; B]) -> [FieldSpec; N] {
    assert!(A + B == N, "concat_fields: N must be A + B");
    const BLANK: FieldSpec = FieldSpec { name: "", ty: FieldType::Bool, default: None, doc: "" };
    let mut out = [BLANK; N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

fn parse_wide(s: &str) -> Option<u128> {
    let t: String = s.trim().chars().filter(|c| *c != '_').collect();
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        u128::from_str_radix(h, 16).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        u128::from_str_radix(b, 2).ok()
    } else {
        lower.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::parse_wide;

    #[test]
    fn wide_numbers_parse_in_three_bases() {
        assert_eq!(parse_wide("0x42F0_E1EB_A9EA_3693"), Some(0x42F0_E1EB_A9EA_3693));
        assert_eq!(parse_wide("0b101"), Some(5));
        assert_eq!(parse_wide("1234"), Some(1234));
        assert_eq!(parse_wide("0xZZ"), None);
    }
}
