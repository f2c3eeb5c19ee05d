//! The seen marker: the JSON body of one `seen/<sha256-of-id>.json` file. Its own file so the
//! marker files (`seen.rs`) and their derived index (`seen_index.rs`) both use it without
//! importing each other.

use serde::{Deserialize, Serialize};

/// A marker's JSON body. The schema is open: fields this version does not know are kept and
/// written back unchanged when the marker is rewritten.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Marker {
    pub id: String,
    /// Unix seconds when the item was first surfaced.
    pub seen_at: i64,
    /// First 16 hex chars of SHA-256 of the body (a thread's whole transcript).
    pub body_hash: String,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}
