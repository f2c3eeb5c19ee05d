#!/usr/bin/env python3
"""Adds `fileContents` to a bundled fixture: each modified file's text at the base and at the
head, built from its patch and the lines around the hunks given here, so the diff's context on
demand (`e`, `E`) has a file to show offline. The texts agree with the patch by construction:
the old side of each hunk at its old line numbers in the base, the new side at its new numbers
in the head, the same lines outside the hunks in both (tests/console/diff_context.rs checks it).

Usage: python3 scripts/fixture_file_contents.py assets/fixtures/demo.json
"""

import json
import re
import sys

# The lines outside the hunks, by path: before the first hunk and after the last (the gap
# between hunks would go here too; the demo's files have one hunk each).
AROUND = {
    "src/client/mod.rs": (
        [],
        [
            "",
            "/// The default timeout of a request, in seconds.",
            "pub const DEFAULT_TIMEOUT_SECS: u64 = 10;",
            "",
            "/// Builds a client for `base_url` with the default timeout.",
            "pub fn client(base_url: &str) -> Result<Client, Error> {",
            "    Client::builder(base_url)",
            "        .user_agent(USER_AGENT)",
            "        .timeout(std::time::Duration::from_secs(DEFAULT_TIMEOUT_SECS))",
            "        .build()",
            "}",
            "",
            "#[cfg(test)]",
            "mod tests {",
            "    use super::*;",
            "",
            "    #[test]",
            "    fn the_user_agent_names_the_crate() {",
            "        assert!(USER_AGENT.starts_with(\"rivet/\"));",
            "    }",
            "}",
        ],
    ),
    "bindings/python/rivet/client.py": (
        [
            '"""A small HTTP client over rivet\'s native core."""',
            "",
            "from __future__ import annotations",
            "",
            "from typing import Any",
            "",
            "from .errors import RivetError",
            "from .response import Response",
            "",
            "",
            "from ._native import Client as _Client",
        ],
        [
            "",
            "    def __enter__(self) -> Client:",
            "        return self",
            "",
            "    def __exit__(self, *exc: Any) -> None:",
            "        self.close()",
            "",
            "    def __repr__(self) -> str:",
            '        return f"Client({self._base_url!r})"',
        ],
    ),
}

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def sides(patch):
    """The hunks of `patch` as (old_start, old_lines, new_start, new_lines)."""
    out = []
    for line in patch.split("\n"):
        m = HUNK.match(line)
        if m:
            out.append([int(m.group(1)), [], int(m.group(3)), []])
        elif out and line[:1] in (" ", "-", "+"):
            if line[0] != "+":
                out[-1][1].append(line[1:])
            if line[0] != "-":
                out[-1][3].append(line[1:])
    return out


def texts(path, patch):
    before, after = AROUND[path]
    hunks = sides(patch)
    assert len(hunks) == 1, f"{path}: one hunk expected"
    old_start, old, new_start, new = hunks[0]
    assert len(before) == old_start - 1 == new_start - 1, f"{path}: {len(before)} lines before"
    base = before + old + after
    head = before + new + after
    return "\n".join(base) + "\n", "\n".join(head) + "\n"


def main(path):
    with open(path) as f:
        fixture = json.load(f)
    pr = fixture["pr"]
    contents = []
    for file in pr["files"]:
        if file["path"] not in AROUND:
            continue
        base, head = texts(file["path"], file["patch"])
        contents.append({"sha": pr["baseSha"], "path": file["path"], "text": base})
        contents.append({"sha": pr["headSha"], "path": file["path"], "text": head})
    fixture["fileContents"] = contents
    with open(path, "w") as f:
        json.dump(fixture, f, indent=2, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
