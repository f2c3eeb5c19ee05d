//! Organization membership, as the author-association fallback needs it.

use super::{GitHub, GitHubError};

/// Whether `login` is a member of the organization `org`: `GET /orgs/{org}/members/{login}`
/// answers 204 for a member, 404 (or 302 to the public list, for a requester outside the org)
/// otherwise. `Ok(None)` when GitHub would not say (403 and the like): the caller treats that as
/// community, the conservative choice.
pub async fn is_org_member(
    gh: &GitHub,
    org: &str,
    login: &str,
) -> Result<Option<bool>, GitHubError> {
    let path = format!("/orgs/{org}/members/{login}");
    let status = gh.get_status(&path, "the org membership check").await?;
    Ok(match status.as_u16() {
        204 => Some(true),
        404 | 302 => Some(false),
        _ => None,
    })
}
