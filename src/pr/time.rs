//! Timestamps on the hot paths: GitHub's `2024-05-01T12:00:00Z` form read and written without
//! chrono's general-purpose parser and formatter (which cost ~10 % of a 10,000-item listing).
//! Anything else goes through chrono, so results and error messages are chrono's own.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserializer, Serializer};

/// `YYYY-MM-DDTHH:MM:SSZ` exactly (what GitHub sends), else `None`.
fn parse_plain_utc(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    if b.len() != 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<u32> {
        b.get(range)?.iter().try_fold(0u32, |acc, &d| {
            d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0'))
        })
    };
    let year = i32::try_from(num(0..4)?).ok()?;
    NaiveDate::from_ymd_opt(year, num(5..7)?, num(8..10)?)?
        .and_hms_opt(num(11..13)?, num(14..16)?, num(17..19)?)
        .map(|t| t.and_utc())
}

/// Parses like chrono's `DateTime<Utc>` deserializer does.
pub fn parse(s: &str) -> Result<DateTime<Utc>, chrono::ParseError> {
    match parse_plain_utc(s) {
        Some(t) => Ok(t),
        None => s.parse(),
    }
}

/// Writes `t` as chrono's serializer does (RFC 3339, `Z`, fractional seconds only when there
/// are any, in 3, 6 or 9 digits); `None` for what the fast path does not cover.
fn format_into(t: &DateTime<Utc>, out: &mut [u8; 32]) -> Option<usize> {
    use chrono::{Datelike, Timelike};
    let year = u32::try_from(t.year()).ok().filter(|y| *y <= 9999)?;
    let nanos = t.nanosecond();
    if nanos >= 1_000_000_000 {
        return None; // leap second: chrono's own rendering
    }
    let mut w = Out { buf: out, n: 0 };
    w.num(year, 4);
    w.byte(b'-');
    w.num(t.month(), 2);
    w.byte(b'-');
    w.num(t.day(), 2);
    w.byte(b'T');
    w.num(t.hour(), 2);
    w.byte(b':');
    w.num(t.minute(), 2);
    w.byte(b':');
    w.num(t.second(), 2);
    if nanos != 0 {
        w.byte(b'.');
        if nanos.is_multiple_of(1_000_000) {
            w.num(nanos / 1_000_000, 3);
        } else if nanos.is_multiple_of(1_000) {
            w.num(nanos / 1_000, 6);
        } else {
            w.num(nanos, 9);
        }
    }
    w.byte(b'Z');
    Some(w.n)
}

/// A cursor over the formatting buffer (30 bytes at most are written).
struct Out<'a> {
    buf: &'a mut [u8; 32],
    n: usize,
}

impl Out<'_> {
    fn byte(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.n) {
            *slot = b;
            self.n += 1;
        }
    }

    /// `value` in exactly `digits` decimal digits, zero-padded.
    fn num(&mut self, value: u32, digits: u32) {
        for i in (0..digits).rev() {
            let digit = value / 10u32.pow(i) % 10;
            self.byte(b'0' + u8::try_from(digit).unwrap_or(0));
        }
    }
}

/// `serialize_with` for a timestamp: the same text as chrono's serializer, faster.
pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    let mut buf = [0u8; 32];
    match format_into(t, &mut buf).and_then(|n| std::str::from_utf8(&buf[..n]).ok()) {
        Some(text) => s.serialize_str(text),
        None => serde::Serialize::serialize(t, s),
    }
}

/// `serialize_with` for an optional timestamp.
pub fn serialize_opt<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => serialize(t, s),
        None => s.serialize_none(),
    }
}

struct Visitor;

impl serde::de::Visitor<'_> for Visitor {
    type Value = DateTime<Utc>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        // chrono's words, so a bad fixture gets the same message as before.
        f.write_str("an RFC 3339 formatted date and time string")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        parse(v).map_err(E::custom)
    }
}

/// `deserialize_with` for a timestamp: chrono's rules and messages, faster.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    d.deserialize_str(Visitor)
}

/// `deserialize_with` for an optional timestamp.
pub fn deserialize_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
    struct Opt;
    impl<'de> serde::de::Visitor<'de> for Opt {
        type Value = Option<DateTime<Utc>>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an RFC 3339 formatted date and time string")
        }

        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            deserialize(d).map(Some)
        }
    }
    d.deserialize_option(Opt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Fast {
        #[serde(serialize_with = "serialize", deserialize_with = "deserialize")]
        t: DateTime<Utc>,
        #[serde(
            default,
            serialize_with = "serialize_opt",
            deserialize_with = "deserialize_opt"
        )]
        o: Option<DateTime<Utc>>,
    }

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Chrono {
        t: DateTime<Utc>,
        #[serde(default)]
        o: Option<DateTime<Utc>>,
    }

    proptest! {
        #[test]
        fn same_text_and_values_as_chrono(
            secs in -70_000_000_000i64..300_000_000_000i64,
            nanos in prop_oneof![Just(0u32), 0u32..1_000_000_000, (0u32..1000).prop_map(|m| m * 1_000_000), (0u32..1_000_000).prop_map(|u| u * 1_000)],
            some in any::<bool>(),
        ) {
            let t = DateTime::<Utc>::from_timestamp(secs, nanos).unwrap();
            let o = some.then_some(t);
            let fast = serde_json::to_string(&Fast { t, o }).unwrap();
            let slow = serde_json::to_string(&Chrono { t, o }).unwrap();
            prop_assert_eq!(&fast, &slow);
            let back: Fast = serde_json::from_str(&slow).unwrap();
            prop_assert_eq!(back, Fast { t, o });
        }
    }

    #[test]
    fn other_forms_and_errors_are_chronos() {
        for text in [
            r#"{"t":"2024-05-01T12:00:00Z"}"#,
            r#"{"t":"2024-05-01T12:00:00+02:00","o":null}"#,
            r#"{"t":"2024-05-01T12:00:00.5Z","o":"2024-02-29T00:00:00Z"}"#,
            r#"{"t":"2024-02-30T00:00:00Z"}"#,
            r#"{"t":"2024-05-01T25:00:00Z"}"#,
            r#"{"t":"2024-05-01 12:00:00Z"}"#,
            r#"{"t":"+2024-05-01T12:00:00Z"}"#,
            r#"{"t":"not a time"}"#,
            r#"{"t":5}"#,
            r#"{"t":null}"#,
            r#"{"o":"2024-05-01T12:00:00Z"}"#,
            r#"{"t":"2024-05-01T12:00:00Z","o":7}"#,
        ] {
            let fast = serde_json::from_str::<Fast>(text)
                .map(|f| (f.t, f.o))
                .map_err(|e| e.to_string());
            let slow = serde_json::from_str::<Chrono>(text)
                .map(|c| (c.t, c.o))
                .map_err(|e| e.to_string());
            assert_eq!(fast, slow, "{text}");
        }
    }
}
