//! One file's text at a commit from a loopback GitHub (the diff's context on demand): the
//! request names `SHA:PATH`, the same blob is read once, and a file over 1 MiB or a binary one
//! is refused, saying so, and not asked for again.

use crate::support;

use std::sync::Mutex;

use pr_shepherd::pr::PrCoords;
use pr_shepherd::source::github::contents::{BlobCache, ContentsError, cached_file_at};
use serde_json::{Value, json};
use support::github_client::{loopback_github, quick_options};
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const TOKEN: &str = "ghp_LoopbackTestToken0123456789abcdef";
const HEAD: &str = "5f0c6a1d9e2b7c4a8f3e6d1b0a9c8e7f6d5c4b3a";

fn coords() -> PrCoords {
    PrCoords {
        host: None,
        owner: "acme".into(),
        repo: "widgets".into(),
        number: 7,
    }
}

/// GitHub's answer for one blob.
fn answer(object: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "data": {
            "rateLimit": {"cost": 1, "remaining": 4999, "resetAt": "2026-12-02T10:00:00Z"},
            "repository": {"object": object},
        }
    }))
}

async fn expect_blob(server: &MockServer, path_: &str, object: Value) {
    Mock::given(method("POST"))
        .and(path("/graphql"))
        .and(body_partial_json(
            json!({"variables": {"owner": "acme", "repo": "widgets", "expression": format!("{HEAD}:{path_}")}}),
        ))
        .respond_with(answer(object))
        .expect(1)
        .mount(server)
        .await;
}

#[tokio::test]
async fn a_file_is_read_once_by_sha_and_path_and_kept_by_blob_id() {
    let server = MockServer::start().await;
    expect_blob(
        &server,
        "src/walk.rs",
        json!({"__typename": "Blob", "oid": "0a1b2c", "byteSize": 12, "isBinary": false,
               "isTruncated": false, "text": "fn main() {}"}),
    )
    .await;
    let gh = loopback_github(&server.uri(), TOKEN, quick_options()).unwrap();
    let cache = Mutex::new(BlobCache::default());
    for _ in 0..2 {
        let f = cached_file_at(&gh, &cache, &coords(), HEAD, "src/walk.rs")
            .await
            .unwrap();
        assert_eq!(
            (f.oid.as_str(), f.text.as_ref()),
            ("0a1b2c", "fn main() {}")
        );
    }
    assert_eq!(cache.lock().unwrap().bytes(), 12);
    let asked = server.received_requests().await.unwrap();
    assert_eq!(asked.len(), 1, "the second read made no request");
    let body: Value = serde_json::from_slice(&asked[0].body).unwrap();
    assert!(
        body["query"]
            .as_str()
            .unwrap()
            .contains("object(expression: $expression)"),
        "{body}"
    );
    server.verify().await;
}

#[tokio::test]
async fn over_one_mib_and_binary_files_are_refused_once() {
    let server = MockServer::start().await;
    expect_blob(
        &server,
        "data/big.json",
        json!({"__typename": "Blob", "oid": "b1", "byteSize": 3_355_443, "isBinary": false,
               "isTruncated": true, "text": null}),
    )
    .await;
    expect_blob(
        &server,
        "assets/logo.png",
        json!({"__typename": "Blob", "oid": "b2", "byteSize": 900, "isBinary": true,
               "isTruncated": false, "text": null}),
    )
    .await;
    expect_blob(&server, "gone.rs", Value::Null).await;
    let gh = loopback_github(&server.uri(), TOKEN, quick_options()).unwrap();
    let cache = Mutex::new(BlobCache::default());
    for _ in 0..2 {
        let e = cached_file_at(&gh, &cache, &coords(), HEAD, "data/big.json")
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`data/big.json` is 3.2 MiB; the console shows files up to 1 MiB"
        );
        let e = cached_file_at(&gh, &cache, &coords(), HEAD, "assets/logo.png")
            .await
            .unwrap_err();
        assert!(matches!(e, ContentsError::Binary { .. }), "{e}");
        assert!(e.to_string().contains("binary"), "{e}");
        let e = cached_file_at(&gh, &cache, &coords(), HEAD, "gone.rs")
            .await
            .unwrap_err();
        assert!(
            e.to_string().contains("not a file at commit 5f0c6a1d9e2b"),
            "{e}"
        );
    }
    assert_eq!(cache.lock().unwrap().bytes(), 0);
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
    server.verify().await;
}
