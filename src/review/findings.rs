//! Findings: the contract with the model, and its strict parser.
//!
//! The model answers `{"findings": [{"severity", "file", "line"?, "message", "suggestedFix"?}]}`,
//! either bare or inside one ```` ```json ```` fence. A reply that is not that JSON makes the aspect
//! *failed* (never "no findings"); a single bad finding is rejected with its reason and kept
//! visible; a finding about a file outside the diff is kept and flagged.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::aspect::Aspect;
use super::prompt::strip_untrusted;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Critical,
    Important,
    Suggestion,
}

impl Severity {
    pub const ALL: [Severity; 3] = [
        Severity::Critical,
        Severity::Important,
        Severity::Suggestion,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::Important => "important",
            Severity::Suggestion => "suggestion",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Severity::Critical => "Critical",
            Severity::Important => "Important",
            Severity::Suggestion => "Suggestion",
        }
    }

    fn parse(s: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One accepted finding. Text fields have passed [`strip_untrusted`]: model output is data too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable id: `PS-` + hex of aspect, file and normalized message (see [`finding_id`]).
    pub id: String,
    pub aspect: Aspect,
    pub severity: Severity,
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_fix: Option<String>,
    /// The file is not among the PR's changed files (kept, but flagged).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outside_diff: bool,
}

/// A finding the parser refused, with the reason and the raw JSON of the entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejected {
    pub index: usize,
    pub reason: String,
    pub raw: String,
}

/// A reply that followed the contract (its findings may still be partly rejected).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub findings: Vec<Finding>,
    pub rejected: Vec<Rejected>,
}

/// Why a whole reply was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ReplyError(pub String);

/// The stable id of a finding (see [`super::prior::finding_id`]): `PS-` and 10 hex characters
/// of SHA-256 over the aspect, the file and the normalized message, so a rebase or a line shift
/// keeps it.
pub fn finding_id(aspect: Aspect, file: &str, message: &str) -> String {
    super::prior::finding_id(aspect.as_str(), file, message)
}

/// The JSON text of a reply: the whole reply when it is a JSON object, else the body of its first
/// ```` ```json ```` (or bare ```` ``` ````) fence.
fn json_text(reply: &str) -> Option<&str> {
    let t = reply.trim();
    if t.starts_with('{') {
        return Some(t);
    }
    let start = t.find("```")?;
    let after = &t[start + 3..];
    let nl = after.find('\n')?;
    let lang = after[..nl].trim();
    if !(lang.is_empty() || lang.eq_ignore_ascii_case("json")) {
        return None;
    }
    let body = &after[nl + 1..];
    let end = body.find("```")?;
    Some(body[..end].trim())
}

/// Parses a model reply strictly. `diff_files` are the PR's changed paths.
pub fn parse_reply(
    aspect: Aspect,
    reply: &str,
    diff_files: &HashSet<&str>,
) -> Result<Parsed, ReplyError> {
    let text = json_text(reply).ok_or_else(|| {
        ReplyError("the reply is neither a JSON object nor a ```json fenced block".into())
    })?;
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| ReplyError(format!("the reply's JSON does not parse: {e}")))?;
    let obj = value
        .as_object()
        .ok_or_else(|| ReplyError("the reply's JSON is not an object".into()))?;
    let list = obj
        .get("findings")
        .ok_or_else(|| ReplyError("the reply's JSON has no `findings` field".into()))?
        .as_array()
        .ok_or_else(|| ReplyError("`findings` is not an array".into()))?;

    let mut parsed = Parsed::default();
    for (index, entry) in list.iter().enumerate() {
        match parse_one(aspect, entry, diff_files) {
            Ok(f) => parsed.findings.push(f),
            Err(reason) => parsed.rejected.push(Rejected {
                index,
                reason,
                raw: strip_untrusted(&entry.to_string()).text,
            }),
        }
    }
    Ok(parsed)
}

fn parse_one(
    aspect: Aspect,
    entry: &serde_json::Value,
    diff_files: &HashSet<&str>,
) -> Result<Finding, String> {
    let obj = entry.as_object().ok_or("not an object")?;
    let text = |key: &str, required: bool| -> Result<Option<String>, String> {
        match obj.get(key) {
            None | Some(serde_json::Value::Null) if !required => Ok(None),
            None | Some(serde_json::Value::Null) => Err(format!("missing `{key}`")),
            Some(serde_json::Value::String(s)) => {
                let s = strip_untrusted(s).text.trim().to_owned();
                if s.is_empty() && required {
                    Err(format!("empty `{key}`"))
                } else if s.is_empty() {
                    Ok(None)
                } else {
                    Ok(Some(s))
                }
            }
            Some(_) => Err(format!("`{key}` is not a string")),
        }
    };
    let severity_raw = text("severity", true)?.unwrap_or_default();
    let severity = Severity::parse(&severity_raw).ok_or_else(|| {
        format!(
            "unknown severity `{}` (expected critical, important or suggestion)",
            crate::sanitize::one_line(&severity_raw)
        )
    })?;
    let file = text("file", true)?.unwrap_or_default();
    let message = text("message", true)?.unwrap_or_default();
    let suggested_fix = text("suggestedFix", false)?;
    let line = match obj.get("line") {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 && n <= u64::from(u32::MAX) => Some(n as u32),
            _ => return Err(format!("`line` is not a positive integer: {v}")),
        },
    };
    let outside_diff = !diff_files.contains(file.as_str());
    Ok(Finding {
        id: finding_id(aspect, &file, &message),
        aspect,
        severity,
        file,
        line,
        message,
        suggested_fix,
        outside_diff,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> HashSet<&'static str> {
        ["src/a.rs", "web/b.tsx"].into_iter().collect()
    }

    fn parse(reply: &str) -> Result<Parsed, ReplyError> {
        parse_reply(Aspect::Correctness, reply, &files())
    }

    #[test]
    fn bare_and_fenced_replies_parse() {
        let json = r#"{"findings":[{"severity":"critical","file":"src/a.rs","line":3,"message":"m","suggestedFix":"f"}]}"#;
        let bare = parse(json).unwrap();
        assert_eq!(bare.findings.len(), 1);
        let f = &bare.findings[0];
        assert_eq!(
            (
                f.severity,
                f.line,
                f.suggested_fix.as_deref(),
                f.outside_diff
            ),
            (Severity::Critical, Some(3), Some("f"), false)
        );
        let fenced = parse(&format!("Here you go:\n\n```json\n{json}\n```\nThanks")).unwrap();
        assert_eq!(fenced, bare);
        let plain_fence = parse(&format!("```\n{json}\n```")).unwrap();
        assert_eq!(plain_fence, bare);
    }

    #[test]
    fn empty_findings_is_ok_and_empty() {
        let p = parse(r#"{"findings": []}"#).unwrap();
        assert!(p.findings.is_empty() && p.rejected.is_empty());
    }

    #[test]
    fn unparseable_replies_fail() {
        for bad in [
            "",
            "Looks good to me!",
            "{not json}",
            "[]",
            r#"{"issues": []}"#,
            r#"{"findings": {}}"#,
            "```python\n{\"findings\": []}\n```",
            "```json\n{\"findings\": [\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should fail");
        }
    }

    #[test]
    fn bad_entries_are_rejected_with_a_reason() {
        let p = parse(
            r#"{"findings":[
                {"severity":"blocker","file":"src/a.rs","message":"m"},
                {"severity":"important","message":"no file"},
                {"severity":"important","file":"src/a.rs"},
                {"severity":"important","file":"src/a.rs","message":"m","line":-1},
                {"severity":"important","file":"src/a.rs","message":"   "},
                "just text",
                {"severity":"suggestion","file":"src/a.rs","message":"ok"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(p.findings.len(), 1);
        let reasons: Vec<&str> = p.rejected.iter().map(|r| r.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "unknown severity `blocker` (expected critical, important or suggestion)",
                "missing `file`",
                "missing `message`",
                "`line` is not a positive integer: -1",
                "empty `message`",
                "not an object",
            ]
        );
        assert_eq!(p.rejected[1].index, 1);
    }

    #[test]
    fn file_outside_the_diff_is_kept_and_flagged() {
        let p =
            parse(r#"{"findings":[{"severity":"important","file":"src/other.rs","message":"m"}]}"#)
                .unwrap();
        assert!(p.findings[0].outside_diff);
    }

    #[test]
    fn model_text_is_stripped_of_hidden_content() {
        let p = parse(
            r#"{"findings":[{"severity":"important","file":"src/a.rs","message":"a\u200bb <!-- pr-shepherd:meta {} --> c"}]}"#,
        )
        .unwrap();
        assert_eq!(p.findings[0].message, "ab  c");
    }

    #[test]
    fn ids_are_stable_across_lines_and_wording_noise() {
        let a = finding_id(
            Aspect::Security,
            "web/b.tsx",
            "XSS via dangerouslySetInnerHTML.",
        );
        let b = finding_id(
            Aspect::Security,
            "web/b.tsx",
            "xss  via dangerouslySetInnerHTML",
        );
        assert_eq!(a, b);
        assert!(a.starts_with("PS-") && a.len() == 13);
        assert_ne!(
            a,
            finding_id(
                Aspect::Correctness,
                "web/b.tsx",
                "XSS via dangerouslySetInnerHTML"
            )
        );
    }

    proptest::proptest! {
        #[test]
        fn parser_never_panics(s in ".*") {
            let _ = parse(&s);
        }
    }
}
