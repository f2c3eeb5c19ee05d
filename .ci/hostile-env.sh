# Sourced by .ci/run: a user environment that would change the answers of any test reading it.
#
# - a temporary HOME and XDG_CONFIG_HOME/STATE/DATA/CACHE_HOME; the pr-shepherd config.toml there
#   has a bad theme, a key remap and a `[review]` table (anthropic at 127.0.0.1:9, a model,
#   no retries, correctness always skipped); a user theme `dark.toml` that does not parse;
# - junk state (a corrupt draft and seen marker of the demo PR) in PR_SHEPHERD_STATE_DIR and in
#   the XDG state/data dirs;
# - GH_TOKEN, GITHUB_TOKEN, a GitHub App (GH_APP_*), a `gh` first on PATH that hands out a token;
# - OPENAI_API_KEY, ANTHROPIC_API_KEY; GITHUB_API_URL, GITHUB_GRAPHQL_URL, OPENAI_BASE_URL and
#   ANTHROPIC_BASE_URL at 127.0.0.1:9 (nothing listens there); GITHUB_SERVER_URL of an Enterprise
#   host; GITHUB_EVENT_NAME/PATH; PR_SHEPHERD_IDENTITY;
# - PR_SHEPHERD_HTTP_* allowing one attempt, a 1 s timeout and deadline, no rate-limit wait;
# - RUST_LOG=trace (a debug log on stderr);
# - NO_COLOR; an EDITOR, VISUAL and BROWSER that fail; TERM=dumb, a 20x5 COLUMNS/LINES, the C
#   locale.
#
# The suite must pass regardless: every test builds its own environment (tests/support/env.rs).
# The caller removes "$hostile" when done.

# cargo and rustup live under the real HOME; keep them reachable.
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"

hostile="$(mktemp -d "${TMPDIR:-/tmp}/pr-shepherd-hostile.XXXXXX")"
export HOME="$hostile/home"
export XDG_CONFIG_HOME="$HOME/.config"
export XDG_STATE_HOME="$HOME/.local/state"
export XDG_DATA_HOME="$HOME/.local/share"
export XDG_CACHE_HOME="$HOME/.cache"
mkdir -p "$XDG_CONFIG_HOME/pr-shepherd/themes" "$XDG_STATE_HOME/pr-shepherd" \
  "$XDG_DATA_HOME/pr-shepherd" "$XDG_CACHE_HOME" "$hostile/bin" "$hostile/state/acme-rivet/482/seen"

cat >"$XDG_CONFIG_HOME/pr-shepherd/config.toml" <<'TOML'
theme = "hostile-no-such-theme"
[keys]
quit = "F12"
down = "x"
[review]
llm = "anthropic"
llm_url = "http://127.0.0.1:9"
model = "hostile-model"
retries = 0
aspect_timeout_secs = 1
[review.skip.correctness]
always = true
TOML
# A user theme that shadows the built-in one and does not parse.
echo 'this is = not [a theme' >"$XDG_CONFIG_HOME/pr-shepherd/themes/dark.toml"

# Junk where a state dir would be read: a stray file, unreadable markers, a bogus draft.
for d in "$hostile/state" "$XDG_STATE_HOME/pr-shepherd" "$XDG_DATA_HOME/pr-shepherd"; do
  mkdir -p "$d/acme-rivet/482/seen"
  echo junk >"$d/junk"
  echo '{not json' >"$d/acme-rivet/482/draft.json"
  echo '{not json' >"$d/acme-rivet/482/seen/junk.json"
done
export PR_SHEPHERD_STATE_DIR="$hostile/state"

# A `gh` that would hand out a token as the credentials' last resort.
printf '#!/bin/sh\necho gho_HostileGhCliToken0123456789\n' >"$hostile/bin/gh"
chmod +x "$hostile/bin/gh"
export PATH="$hostile/bin:$PATH"

export GH_TOKEN=ghp_HostileUserToken0123456789abcdef
export GITHUB_TOKEN=ghs_HostileActionsToken0123456789
export GH_APP_ID=424242
export GH_APP_PRIVATE_KEY=not-a-key
export GH_APP_INSTALLATION_ID=4242
export OPENAI_API_KEY=sk-hostile-0123456789
export ANTHROPIC_API_KEY=sk-ant-hostile-0123456789
export GITHUB_API_URL=http://127.0.0.1:9
export GITHUB_GRAPHQL_URL=http://127.0.0.1:9/graphql
export GITHUB_SERVER_URL=https://ghe.hostile.invalid
export OPENAI_BASE_URL=http://127.0.0.1:9/v1
export ANTHROPIC_BASE_URL=http://127.0.0.1:9
export GITHUB_EVENT_NAME=pull_request
export GITHUB_EVENT_PATH="$hostile/no-such-event.json"
export PR_SHEPHERD_IDENTITY=hostile-login
export PR_SHEPHERD_HTTP_BACKOFF_MS=30000
export PR_SHEPHERD_HTTP_MAX_WAIT_S=0
export PR_SHEPHERD_HTTP_TIMEOUT_S=1
export PR_SHEPHERD_HTTP_ATTEMPTS=1
export PR_SHEPHERD_HTTP_DEADLINE_S=1
# A debug log on every stderr a test might read.
export RUST_LOG=trace
export NO_COLOR=1
export EDITOR=false VISUAL=false BROWSER=false
export TERM=dumb COLUMNS=20 LINES=5 LANG=C LC_ALL=C
