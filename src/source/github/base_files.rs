//! Files of a PR's base branch, read at the base commit in one GraphQL request: each wanted file
//! as `object(expression: "BASE_SHA:path")` and each wanted folder as a tree whose blobs are read
//! too. Only ever the base commit: the review's guidance must not come from the PR's head.

use serde_json::{Value, json};

use super::{GitHub, GitHubError};
use crate::pr::{BaseFile, PrCoords};

/// The most characters kept of one file (a longer one is cut).
pub const MAX_BASE_FILE_CHARS: usize = 262_144;
/// The most files read from one folder.
pub const MAX_FOLDER_FILES: usize = 50;
/// A folder's files are read when their name ends with this.
pub const FOLDER_SUFFIX: &str = ".instructions.md";

const BLOB_FIELDS: &str = "... on Blob { byteSize isBinary isTruncated text }";

/// The query for `files` files and `folders` folders (`$f0…`, `$d0…`: `SHA:path` expressions).
pub fn base_files_query(files: usize, folders: usize) -> String {
    let mut vars = vec!["$owner: String!".to_owned(), "$repo: String!".to_owned()];
    let mut sel = String::new();
    for i in 0..files {
        vars.push(format!("$f{i}: String!"));
        sel.push_str(&format!(
            "    f{i}: object(expression: $f{i}) {{ {BLOB_FIELDS} }}\n"
        ));
    }
    for i in 0..folders {
        vars.push(format!("$d{i}: String!"));
        sel.push_str(&format!(
            "    d{i}: object(expression: $d{i}) {{ ... on Tree {{ entries {{ name type object {{ {BLOB_FIELDS} }} }} }} }}\n"
        ));
    }
    format!(
        "query BaseFiles({}) {{\n  rateLimit {{\n    cost\n    remaining\n    resetAt\n  }}\n  repository(owner: $owner, name: $repo) {{\n{sel}  }}\n}}\n",
        vars.join(", ")
    )
}

/// Reads `files` and the blobs of `folders` (named `*.instructions.md`) at commit `sha`. A file
/// that does not exist at that commit is simply not returned.
pub async fn base_files(
    gh: &GitHub,
    coords: &PrCoords,
    sha: &str,
    files: &[String],
    folders: &[String],
) -> Result<Vec<BaseFile>, GitHubError> {
    if sha.trim().is_empty() {
        return Err(GitHubError::Graphql(
            "the PR's base commit is not known".to_owned(),
        ));
    }
    let mut vars = serde_json::Map::new();
    vars.insert("owner".into(), json!(coords.owner));
    vars.insert("repo".into(), json!(coords.repo));
    for (i, f) in files.iter().enumerate() {
        vars.insert(format!("f{i}"), json!(format!("{sha}:{f}")));
    }
    for (i, d) in folders.iter().enumerate() {
        vars.insert(format!("d{i}"), json!(format!("{sha}:{d}")));
    }
    let what = format!("{coords}: the review guidance on the base branch");
    let reply = gh
        .graphql(
            &base_files_query(files.len(), folders.len()),
            Value::Object(vars),
            &what,
        )
        .await?;
    let repo = repository_of(&reply, &what)?;
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate() {
        if let Some(text) = blob_text(&repo[format!("f{i}")]) {
            out.push(BaseFile {
                path: f.clone(),
                commit: Some(sha.to_owned()),
                text,
            });
        }
    }
    for (i, d) in folders.iter().enumerate() {
        let entries = repo[format!("d{i}")]["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut found: Vec<(String, String)> = entries
            .iter()
            .filter(|e| e["type"] == "blob")
            .filter_map(|e| {
                let name = e["name"].as_str()?;
                if !name.ends_with(FOLDER_SUFFIX) || name.contains('/') {
                    return None;
                }
                Some((name.to_owned(), blob_text(&e["object"])?))
            })
            .collect();
        found.sort();
        found.truncate(MAX_FOLDER_FILES);
        for (name, text) in found {
            out.push(BaseFile {
                path: format!("{d}/{name}"),
                commit: Some(sha.to_owned()),
                text,
            });
        }
    }
    Ok(out)
}

/// A blob's text, cut to [`MAX_BASE_FILE_CHARS`]; `None` for anything that is not a text blob.
fn blob_text(v: &Value) -> Option<String> {
    if v.get("isBinary").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let text = v.get("text")?.as_str()?;
    Some(match text.char_indices().nth(MAX_BASE_FILE_CHARS) {
        Some((i, _)) => text[..i].to_owned(),
        None => text.to_owned(),
    })
}

/// The `repository` of a GraphQL answer, or the answer's first error (or "no repository") as
/// `{what}: …`: what every read of one repository's objects starts from.
pub(super) fn repository_of<'a>(
    reply: &'a super::GraphqlReply,
    what: &str,
) -> Result<&'a Value, GitHubError> {
    reply
        .data
        .as_ref()
        .and_then(|d| d.get("repository"))
        .filter(|r| !r.is_null())
        .ok_or_else(|| {
            GitHubError::Graphql(format!(
                "{what}: {}",
                reply
                    .errors
                    .first()
                    .map(super::GraphqlError::message_line)
                    .unwrap_or_else(|| "no repository in the answer".to_owned())
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_names_each_file_and_folder() {
        let q = base_files_query(2, 1);
        assert!(q.starts_with("query BaseFiles($owner: String!, $repo: String!, $f0: String!, $f1: String!, $d0: String!)"));
        assert!(q.contains("f1: object(expression: $f1)"));
        assert!(q.contains("d0: object(expression: $d0) { ... on Tree { entries"));
    }

    #[test]
    fn only_text_blobs_count() {
        assert_eq!(blob_text(&json!({"isBinary": true, "text": null})), None);
        assert_eq!(blob_text(&Value::Null), None);
        assert_eq!(
            blob_text(&json!({"isBinary": false, "text": "hi"})).as_deref(),
            Some("hi")
        );
        let long = "x".repeat(MAX_BASE_FILE_CHARS + 5);
        assert_eq!(
            blob_text(&json!({"text": long})).map(|t| t.len()),
            Some(MAX_BASE_FILE_CHARS)
        );
    }
}
