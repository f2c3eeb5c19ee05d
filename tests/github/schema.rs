//! Every GraphQL document the live source sends is valid against GitHub's public schema.

use apollo_compiler::{ExecutableDocument, Schema};
use pr_shepherd::source::github::batch::inbox_prs_query;
use pr_shepherd::source::github::{QUERIES, thread_comments_query};

const SCHEMA: &str = include_str!("../data/github-schema.graphql");

#[test]
fn queries_validate_against_githubs_schema() {
    let schema = Schema::parse_and_validate(SCHEMA, "github-schema.graphql")
        .map_err(|e| e.errors.to_string())
        .unwrap();
    assert!(!QUERIES.is_empty());
    for (name, text) in QUERIES {
        if let Err(e) = ExecutableDocument::parse_and_validate(&schema, *text, *name) {
            panic!("{name} is not valid against GitHub's schema:\n{}", e.errors);
        }
    }
    // The generated thread-comment continuations, for one thread and for a batch.
    for n in [1, 3, 20] {
        let text = thread_comments_query(n);
        if let Err(e) = ExecutableDocument::parse_and_validate(
            &schema,
            text.as_str(),
            "thread_comments.graphql",
        ) {
            panic!(
                "thread_comments_query({n}) is not valid:\n{}\n{text}",
                e.errors
            );
        }
    }
    // The inbox's generated batch of PRs, for one PR and for a full batch.
    for n in [1, 2, pr_shepherd::source::github::batch::PRS_PER_REQUEST] {
        let text = inbox_prs_query(n);
        if let Err(e) =
            ExecutableDocument::parse_and_validate(&schema, text.as_str(), "inbox_prs_query")
        {
            panic!("inbox_prs_query({n}) is not valid:\n{}\n{text}", e.errors);
        }
    }
}

#[test]
fn a_wrong_field_is_caught() {
    // The check can fail: a misspelt field is refused.
    let schema = Schema::parse_and_validate(SCHEMA, "github-schema.graphql")
        .map_err(|e| e.errors.to_string())
        .unwrap();
    let bad = "query { viewer { logn } }";
    assert!(ExecutableDocument::parse_and_validate(&schema, bad, "bad.graphql").is_err());
}
