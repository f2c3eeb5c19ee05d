//! Findings: the contract with the model, and its tolerant parser.
//!
//! The model answers `{"findings": [{"severity", "file", "line"?, "message", "suggestedFix"?}]}`.
//! [`contract_schema`] is that contract as a JSON Schema — the one place it is written down: the
//! HTTP backends send it as structured output (`response_format` json_schema, or an Anthropic tool's
//! `input_schema`), and [`parse_reply`] checks the same fields, severities and types.
//!
//! The parser is tolerant where real models stray and strict where it matters: the JSON object may
//! stand alone, sit in a ```` ```json ```` fence, or come before or after prose; trailing commas are
//! dropped; common severity words map onto the three levels ([`SEVERITY_SYNONYMS`], each mapping is
//! reported in [`Parsed::note`]). A reply with no readable findings object makes the aspect
//! *failed* (never "no findings"); a single bad finding is rejected with its reason and kept
//! visible; a finding about a file outside the diff is kept and flagged.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::aspect::Aspect;
use super::inputs::prompt::strip_untrusted;

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

    /// Reads a model's severity word: one of the three contract words (any case), or a synonym
    /// from [`SEVERITY_SYNONYMS`]. The flag is true when a synonym was mapped.
    pub fn read(word: &str) -> Option<(Severity, bool)> {
        let w = word.trim().to_ascii_lowercase();
        let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        if let Some(s) = Severity::parse(w) {
            return Some((s, false));
        }
        let w = w.replace(['_', ' '], "-");
        SEVERITY_SYNONYMS
            .iter()
            .find(|(syn, _)| *syn == w)
            .map(|(_, s)| (*s, true))
    }
}

/// Severity words models commonly use instead of the contract's three, and the level each maps
/// to (matched case-insensitively; documented in docs/json-output.md). The rule: what must block
/// the merge is critical, what is a real defect is important, everything graded below that — and
/// "warning"/"medium", which the playbook's "when in doubt, pick the lower one" puts there — is a
/// suggestion.
pub(crate) const SEVERITY_SYNONYMS: &[(&str, Severity)] = &[
    ("blocker", Severity::Critical),
    ("blocking", Severity::Critical),
    ("severe", Severity::Critical),
    ("fatal", Severity::Critical),
    ("showstopper", Severity::Critical),
    ("high", Severity::Important),
    ("major", Severity::Important),
    ("error", Severity::Important),
    ("bug", Severity::Important),
    ("must-fix", Severity::Important),
    ("medium", Severity::Suggestion),
    ("moderate", Severity::Suggestion),
    ("warning", Severity::Suggestion),
    ("low", Severity::Suggestion),
    ("minor", Severity::Suggestion),
    ("nit", Severity::Suggestion),
    ("nitpick", Severity::Suggestion),
    ("trivial", Severity::Suggestion),
    ("info", Severity::Suggestion),
    ("informational", Severity::Suggestion),
    ("note", Severity::Suggestion),
    ("style", Severity::Suggestion),
    ("optional", Severity::Suggestion),
];

/// The name under which the contract is sent as structured output (schema name, tool name).
pub const CONTRACT_NAME: &str = "report_findings";

/// The output contract as a JSON Schema, in the form OpenAI's strict structured output accepts
/// (every property required, optional ones nullable, no additional properties); Anthropic takes the
/// same object as a tool's `input_schema`. [`parse_reply`] checks these same fields.
pub fn contract_schema() -> serde_json::Value {
    let severities: Vec<&str> = Severity::ALL.iter().map(|s| s.as_str()).collect();
    serde_json::json!({
        "type": "object",
        "properties": {
            "findings": {
                "type": "array",
                "description": "One entry per problem; an empty array when the aspect found nothing.",
                "items": {
                    "type": "object",
                    "properties": {
                        "severity": {"type": "string", "enum": severities},
                        "file": {"type": "string", "description": "The path as shown in the diff."},
                        "line": {
                            "type": ["integer", "null"],
                            "description": "A line (>= 1) of the new version, or null."
                        },
                        "message": {"type": "string", "description": "What is wrong, when, and why it matters."},
                        "suggestedFix": {"type": ["string", "null"], "description": "The concrete change, or null."},
                        "rule": {"type": ["string", "null"], "description": "The repository rule the finding rests on (its file and section, like `AGENTS.md § Errors`), or null."},
                        "id": {"type": ["string", "null"], "description": "Verification only: the id of the finding verified; null in a review."},
                        "confidence": {"type": ["integer", "null"], "description": "Verification only: 0-100, how sure you are that the finding is a real problem in this diff; null in a review."},
                        "evidence": {"type": ["string", "null"], "description": "Verification only: one line copied exactly from the diff that shows the problem; null in a review."}
                    },
                    "required": ["severity", "file", "line", "message", "suggestedFix", "rule", "id", "confidence", "evidence"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["findings"],
        "additionalProperties": false
    })
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
    /// The repository rule it rests on, as the model named it (`AGENTS.md § Errors`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The verifier's confirmation, when the verifier ran and confirmed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<Verdict>,
}

#[cfg(test)]
impl Finding {
    /// An important correctness finding at `file:line` (for tests).
    pub(crate) fn for_test(file: &str, line: u32, message: &str) -> Finding {
        Finding {
            id: finding_id(crate::review::aspect::Aspect::Correctness, file, message),
            aspect: crate::review::aspect::Aspect::Correctness,
            severity: Severity::Important,
            file: file.into(),
            line: Some(line),
            message: message.into(),
            suggested_fix: None,
            outside_diff: false,
            rule: None,
            verified: None,
        }
    }
}

/// The verifier's confirmation of a finding: its score and the diff line it quoted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub confidence: u8,
    pub evidence: String,
}

/// The longest rule name kept (a longer one is cut).
pub(crate) const MAX_RULE_CHARS: usize = 200;

/// A finding the parser refused, with the reason and the raw JSON of the entry. `file` and
/// `message` are kept when the entry had them as text, so the review can still show it
/// ("unclassified") instead of dropping it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejected {
    pub index: usize,
    pub reason: String,
    pub raw: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A reply that followed the contract (its findings may still be partly rejected).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub findings: Vec<Finding>,
    pub rejected: Vec<Rejected>,
    /// Severity synonyms that were mapped: the word as written (lowercased), its level, how often.
    pub mapped: std::collections::BTreeMap<String, (Severity, usize)>,
}

impl Parsed {
    /// What the parser did that the maintainer should know (the severity words it mapped).
    pub fn note(&self) -> Option<String> {
        if self.mapped.is_empty() {
            return None;
        }
        let each: Vec<String> = self
            .mapped
            .iter()
            .map(|(word, (sev, n))| format!("`{word}` → {sev} ({n})"))
            .collect();
        Some(format!("severity words mapped: {}", each.join(", ")))
    }
}

/// Why a whole reply was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ReplyError(pub String);

/// The stable id of a finding (see [`super::inputs::prior::finding_id`]): `PS-` and 10 hex
/// characters of SHA-256 over the aspect, the file and the normalized message, so a rebase or a line shift
/// keeps it.
pub fn finding_id(aspect: Aspect, file: &str, message: &str) -> String {
    super::inputs::prior::finding_id(aspect.as_str(), file, message)
}

/// The literal marker that ends a reply written when addressing feedback.
pub(crate) const DEFAULT_REPLY_MARKER: &str = "— AI Coding Agent";

/// Model text (a finding's message, suggested fix, rule; a verifier's evidence) made unable to
/// read as a marker reply once posted: when `fields` together hold every word of `marker` and its
/// key character (its first one that is not whitespace nor part of a character reference; `—`
/// for the default), every occurrence of that character in them is written as a numeric
/// character reference (`&#8212;`). GitHub renders it as the character, while the raw text —
/// what the classification reads — never holds the marker, however quotes, code spans or
/// comments would be cut out of it (`classify::own_words` only removes text and adds spaces).
/// Returns whether anything was changed.
pub(crate) fn defuse_marker(fields: &mut [&mut String], marker: &str) -> bool {
    let Some(key) = marker
        .trim()
        .chars()
        .find(|c| !c.is_whitespace() && !c.is_ascii_digit() && !matches!(c, '&' | '#' | ';'))
    else {
        return false;
    };
    let joined: String = fields
        .iter()
        .map(|f| f.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let words_there = marker
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| joined.contains(w));
    if !words_there || !joined.contains(key) {
        return false;
    }
    let reference = format!("&#{};", key as u32);
    for f in fields.iter_mut() {
        if f.contains(key) {
            **f = f.replace(key, &reference);
        }
    }
    true
}

/// A finding's model-written text, defused ([`defuse_marker`]) against the default marker, the
/// pieces together (an inline comment joins them).
fn defuse_model_text(message: &mut String, fix: &mut Option<String>, rule: &mut Option<String>) {
    let mut fields: Vec<&mut String> = vec![message];
    fields.extend(fix.as_mut());
    fields.extend(rule.as_mut());
    defuse_marker(&mut fields, DEFAULT_REPLY_MARKER);
}

/// How many `{` positions of a reply are tried as the start of the object (a bound on the work a
/// brace-heavy reply can cause).
const MAX_OBJECT_STARTS: usize = 512;

/// The candidate JSON texts of a reply, most likely first: the whole reply when it starts with
/// `{`, the body of every ```` ``` ```` fence, then every balanced `{…}` span (string-aware), so an
/// object before or after prose, or in a fence of any language, is found.
fn candidates(reply: &str) -> Vec<&str> {
    let t = reply.trim();
    let mut out = Vec::new();
    if t.starts_with('{') {
        out.push(t);
    }
    let mut rest = t;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let Some(nl) = after.find('\n') else { break };
        let body = &after[nl + 1..];
        let Some(end) = body.find("```") else { break };
        out.push(body[..end].trim());
        rest = &body[end + 3..];
    }
    for (i, _) in t.match_indices('{').take(MAX_OBJECT_STARTS) {
        if let Some(len) = balanced_len(&t[i..]) {
            out.push(&t[i..i + len]);
        }
    }
    out
}

/// The length of the balanced `{…}` that `s` starts with (strings and escapes respected), or
/// `None` when it is not closed.
fn balanced_len(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (c == '}').then_some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` without commas that directly precede a closing `}` or `]` (outside strings).
fn drop_trailing_commas(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(',') {
        return s.into();
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut in_str = false;
    let mut escaped = false;
    for (i, &c) in chars.iter().enumerate() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else if c == '"' {
            in_str = true;
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']')) {
                continue;
            }
        }
        out.push(c);
    }
    out.into()
}

/// The `findings` array of the first candidate that is an object with one; else why not.
pub(crate) fn findings_array(reply: &str) -> Result<Vec<serde_json::Value>, ReplyError> {
    let mut not_array = None;
    let mut saw_object = false;
    let mut other = None;
    for text in candidates(reply) {
        match serde_json::from_str::<serde_json::Value>(&drop_trailing_commas(text)) {
            Ok(serde_json::Value::Object(mut obj)) => {
                saw_object = true;
                match obj.remove("findings") {
                    Some(serde_json::Value::Array(list)) => return Ok(list),
                    Some(_) => {
                        not_array.get_or_insert_with(|| "`findings` is not an array".to_owned());
                    }
                    None => {}
                }
            }
            Ok(_) => {
                other.get_or_insert_with(|| "the reply's JSON is not an object".to_owned());
            }
            Err(e) if e.is_eof() => {
                other.get_or_insert_with(|| {
                    format!("the reply's JSON object is never closed (was the answer cut?): {e}")
                });
            }
            Err(e) => {
                other.get_or_insert_with(|| format!("the reply's JSON does not parse: {e}"));
            }
        }
    }
    let why = match (not_array, saw_object, other) {
        (Some(e), _, _) => e,
        (None, true, _) => "the reply's JSON has no `findings` field".to_owned(),
        (None, false, Some(e)) => e,
        (None, false, None) if reply.contains('{') => {
            "the reply's JSON object is never closed (was the answer cut?)".to_owned()
        }
        (None, false, None) => {
            "the reply holds no JSON object (neither bare, fenced nor within the text)".to_owned()
        }
    };
    Err(ReplyError(why))
}

/// Parses a model reply (tolerantly, see the module doc). `diff_files` are the PR's changed paths.
pub fn parse_reply(
    aspect: Aspect,
    reply: &str,
    diff_files: &HashSet<&str>,
) -> Result<Parsed, ReplyError> {
    let list = findings_array(reply)?;
    let mut parsed = Parsed::default();
    for (index, entry) in list.iter().enumerate() {
        match parse_one(aspect, entry, diff_files) {
            Ok((f, mapped)) => {
                if let Some(word) = mapped {
                    parsed.mapped.entry(word).or_insert((f.severity, 0)).1 += 1;
                }
                parsed.findings.push(f);
            }
            Err(reason) => {
                let keep = |key: &str| {
                    entry
                        .get(key)
                        .and_then(|v| v.as_str())
                        .map(|s| strip_untrusted(s).text.trim().to_owned())
                        .filter(|s| !s.is_empty())
                        .map(|mut s| {
                            defuse_marker(&mut [&mut s], DEFAULT_REPLY_MARKER);
                            s
                        })
                };
                parsed.rejected.push(Rejected {
                    index,
                    reason,
                    raw: strip_untrusted(&entry.to_string()).text,
                    file: keep("file"),
                    message: keep("message"),
                });
            }
        }
    }
    Ok(parsed)
}

/// One entry of `findings`, and the severity word when a synonym was mapped.
fn parse_one(
    aspect: Aspect,
    entry: &serde_json::Value,
    diff_files: &HashSet<&str>,
) -> Result<(Finding, Option<String>), String> {
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
    let (severity, mapped) = Severity::read(&severity_raw).ok_or_else(|| {
        format!(
            "unknown severity `{}` (expected critical, important or suggestion)",
            crate::sanitize::one_line(&severity_raw)
        )
    })?;
    let mapped = mapped.then(|| crate::sanitize::one_line(&severity_raw.to_lowercase()));
    let file = text("file", true)?.unwrap_or_default();
    let message = text("message", true)?.unwrap_or_default();
    let suggested_fix = text("suggestedFix", false)?;
    // A rule that is not text is no rule (the finding itself stands).
    let rule = text("rule", false).ok().flatten().map(|r| {
        let r = crate::sanitize::one_line(&r);
        match r.char_indices().nth(MAX_RULE_CHARS) {
            Some((i, _)) => format!("{}…", &r[..i]),
            None => r,
        }
    });
    let line = match obj.get("line") {
        None | Some(serde_json::Value::Null) => None,
        // A number written as text (`"41"`) is read as the number.
        Some(v) => match v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        {
            Some(n) if n >= 1 && n <= u64::from(u32::MAX) => Some(n as u32),
            _ => return Err(format!("`line` is not a positive integer: {v}")),
        },
    };
    let outside_diff = !diff_files.contains(file.as_str());
    let (mut message, mut suggested_fix, mut rule) = (message, suggested_fix, rule);
    defuse_model_text(&mut message, &mut suggested_fix, &mut rule);
    let finding = Finding {
        id: finding_id(aspect, &file, &message),
        aspect,
        severity,
        file,
        line,
        message,
        suggested_fix,
        outside_diff,
        rule,
        verified: None,
    };
    Ok((finding, mapped))
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
            "```json\n{\"findings\": [\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should fail");
        }
    }

    #[test]
    fn bad_entries_are_rejected_with_a_reason() {
        let p = parse(
            r#"{"findings":[
                {"severity":"urgent-ish","file":"src/a.rs","message":"m"},
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
                "unknown severity `urgent-ish` (expected critical, important or suggestion)",
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

    const ONE: &str = r#"{"findings":[{"severity":"important","file":"src/a.rs","line":3,"message":"m","suggestedFix":null}]}"#;

    #[test]
    fn json_after_or_before_prose_without_a_fence_parses() {
        let bare = parse(ONE).unwrap();
        assert_eq!(bare.findings.len(), 1);
        for reply in [
            format!("Here is my review of the correctness aspect:\n{ONE}"),
            format!("{ONE}\n\nLet me know if you want more detail {{or not}}."),
            format!("I looked at {{the retry loop}}. Result: {ONE} — done."),
            format!("```rust\nfn x() {{}}\n```\nThe review:\n```javascript\n{ONE}\n```"),
        ] {
            assert_eq!(parse(&reply).unwrap(), bare, "{reply}");
        }
    }

    #[test]
    fn trailing_commas_are_tolerated_but_not_inside_strings() {
        let p = parse(
            r#"{"findings": [{"severity": "critical", "file": "src/a.rs", "message": "a ,] b",},],}"#,
        )
        .unwrap();
        assert_eq!(p.findings.len(), 1);
        assert_eq!(p.findings[0].message, "a ,] b");
        assert_eq!(drop_trailing_commas(r#"[1, 2 , ]"#), "[1, 2  ]");
        assert_eq!(drop_trailing_commas(r#""x,}""#), r#""x,}""#);
    }

    #[test]
    fn severity_synonyms_map_onto_three_levels_and_are_noted() {
        let p = parse(
            r#"{"findings":[
                {"severity":"high","file":"src/a.rs","message":"one"},
                {"severity":"HIGH","file":"src/a.rs","message":"two"},
                {"severity":"Blocker","file":"src/a.rs","message":"three"},
                {"severity":"nit","file":"src/a.rs","message":"four"},
                {"severity":"Critical","file":"src/a.rs","message":"five"}
            ]}"#,
        )
        .unwrap();
        let sev: Vec<Severity> = p.findings.iter().map(|f| f.severity).collect();
        assert_eq!(
            sev,
            [
                Severity::Important,
                Severity::Important,
                Severity::Critical,
                Severity::Suggestion,
                Severity::Critical
            ]
        );
        assert_eq!(
            p.note().as_deref(),
            Some(
                "severity words mapped: `blocker` → critical (1), `high` → important (2), `nit` → suggestion (1)"
            )
        );
        assert!(p.rejected.is_empty());
        assert_eq!(parse(ONE).unwrap().note(), None);
        for (word, sev) in SEVERITY_SYNONYMS {
            assert_eq!(Severity::read(word), Some((*sev, true)), "{word}");
        }
        assert_eq!(
            Severity::read("Must Fix"),
            Some((Severity::Important, true))
        );
        assert_eq!(Severity::read("whatever"), None);
    }

    #[test]
    fn the_severity_table_is_documented() {
        let doc = include_str!("../../docs/json-output.md");
        for (word, sev) in SEVERITY_SYNONYMS {
            assert!(
                doc.contains(&format!("`{word}`")),
                "{word} ({sev}) undocumented"
            );
        }
        assert!(doc.contains(CONTRACT_NAME));
        // The schema printed in the doc is the one sent (descriptions aside).
        fn strip(v: &mut serde_json::Value) {
            if let Some(o) = v.as_object_mut() {
                o.remove("description");
                o.values_mut().for_each(strip);
            }
        }
        let at = doc.find("### The findings contract").unwrap();
        let block = &doc[at..];
        let start = block.find("```json\n").unwrap() + 8;
        let end = start + block[start..].find("```").unwrap();
        let mut documented: serde_json::Value = serde_json::from_str(&block[start..end]).unwrap();
        let mut sent = contract_schema();
        strip(&mut documented);
        strip(&mut sent);
        assert_eq!(documented, sent);
    }

    #[test]
    fn a_line_written_as_text_is_read() {
        let p = parse(r#"{"findings":[{"severity":"important","file":"src/a.rs","line":"41","message":"m"}]}"#)
            .unwrap();
        assert_eq!(p.findings[0].line, Some(41));
    }

    #[test]
    fn rejected_entries_keep_their_file_and_message() {
        let p = parse(r#"{"findings":[{"severity":"urgent-ish","file":"src/a.rs","message":"Loop never ends."}]}"#)
            .unwrap();
        let r = &p.rejected[0];
        assert_eq!(
            (r.file.as_deref(), r.message.as_deref()),
            (Some("src/a.rs"), Some("Loop never ends."))
        );
    }

    #[test]
    fn reasons_say_what_is_wrong() {
        let why = |r: &str| parse(r).unwrap_err().0;
        assert!(why(r#"{"issues": []}"#).contains("no `findings` field"));
        assert!(why(r#"{"findings": {}}"#).contains("not an array"));
        assert!(why("{\"findings\": [\n").contains("never closed"));
        assert!(why("{oops}").contains("does not parse"));
        assert!(why("LGTM").contains("no JSON object"));
    }

    /// The schema and the parser are one contract: what the schema requires, the parser requires;
    /// the severities are the same; every schema-valid entry is accepted.
    #[test]
    fn the_schema_is_the_contract_the_parser_checks() {
        let schema = contract_schema();
        let item = &schema["properties"]["findings"]["items"];
        let enum_: Vec<&str> = item["properties"]["severity"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(enum_, ["critical", "important", "suggestion"]);
        let props: Vec<&String> = item["properties"].as_object().unwrap().keys().collect();
        let required: Vec<&str> = item["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            props.len(),
            required.len(),
            "strict: every property required"
        );
        let full = serde_json::json!({"severity": "important", "file": "src/a.rs", "line": 2,
            "message": "m", "suggestedFix": "f", "rule": "AGENTS.md § Errors", "id": null,
            "confidence": null, "evidence": null});
        let one = |v: &serde_json::Value| {
            parse(&serde_json::json!({"findings": [v]}).to_string()).unwrap()
        };
        assert_eq!(one(&full).findings.len(), 1);
        for key in &required {
            let nullable = item["properties"][key]["type"].is_array();
            let mut v = full.clone();
            v[*key] = serde_json::Value::Null;
            let p = one(&v);
            assert_eq!(p.findings.len(), usize::from(nullable), "{key} null");
        }
    }

    fn finding_json() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        (
            0usize..3,
            "[a-z][a-z/._-]{0,20}",
            proptest::option::of(1u32..100_000),
            "\\PC{1,60}",
            proptest::option::of("\\PC{0,40}"),
            any::<bool>(),
        )
            .prop_map(|(sev, file, line, message, fix, trailing)| {
                let q = |s: &str| serde_json::Value::from(s).to_string();
                let mut fields = vec![
                    format!("\"severity\": {}", q(Severity::ALL[sev].as_str())),
                    format!("\"file\": {}", q(&file)),
                    format!(
                        "\"line\": {}",
                        line.map_or("null".to_owned(), |l| l.to_string())
                    ),
                    format!("\"message\": {}", q(&message)),
                ];
                if let Some(fix) = fix {
                    fields.push(format!("\"suggestedFix\": {}", q(&fix)));
                }
                let comma = if trailing { "," } else { "" };
                format!("{{{}{comma}}}", fields.join(", "))
            })
    }

    proptest::proptest! {
        #[test]
        fn parser_never_panics(s in ".*") {
            let _ = parse(&s);
        }

        /// Valid contract JSON wrapped in arbitrary prose (before, after, fenced or not, trailing
        /// commas or not) parses to the same findings as the bare JSON.
        #[test]
        fn contract_json_in_prose_parses_to_the_same_findings(
            entries in proptest::collection::vec(finding_json(), 0..5),
            before in ".{0,80}",
            after in ".{0,80}",
            fence in 0u8..3,
            trailing in proptest::bool::ANY,
        ) {
            let comma = if trailing && !entries.is_empty() { "," } else { "" };
            let strict = format!("{{\"findings\": [{}]}}", entries.join(", "));
            let json = format!("{{\"findings\": [{}{comma}]}}", entries.join(", "));
            let body = match fence {
                0 => json,
                1 => format!("```json\n{json}\n```"),
                _ => format!("```\n{json}\n```"),
            };
            let reply = format!("{before}\n{body}\n{after}");
            let expected = parse(&strict);
            proptest::prop_assert!(expected.is_ok(), "{strict}");
            proptest::prop_assert_eq!(parse(&reply), expected);
        }
    }
}
