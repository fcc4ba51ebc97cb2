#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The README's performance tables have the rows `make bench` prints, by name and target.

Nothing is measured: the rows are read from the benchmark scripts' source. tests/bench/run
prints one table row per `row FIGURE MEASURED REFERENCE TARGET OK RATIO` call; a shell
expansion in FIGURE or TARGET ($name, ${x}, $(...)) stands for any text. tests/bench/replay
prints its rows with printf. Each README row must be one the scripts print, with its target,
and every row the scripts print must be in the README. TAP on stdout.

Usage: readme-bench.py [TOP_SRCDIR] (default $top_srcdir)
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402


def shell_words(text):
    """Split one shell command into words, keeping $(...) and quotes inside a word intact."""
    words, word, i, in_word = [], "", 0, False
    while i < len(text):
        c = text[i]
        if c in " \t":
            if in_word:
                words.append(word)
                word, in_word = "", False
            i += 1
            continue
        in_word = True
        if c == '"':
            i += 1
            while text[i] != '"':
                if text.startswith("$(", i):
                    j = command_end(text, i + 2)
                    word += text[i:j]
                    i = j
                    continue
                if text[i] == "\\":
                    i += 1
                word += text[i]
                i += 1
            i += 1
        elif c == "'":
            j = text.index("'", i + 1)
            word += text[i + 1:j]
            i = j + 1
        elif text.startswith("$(", i):
            j = command_end(text, i + 2)
            word += text[i:j]
            i = j
        else:
            word += c
            i += 1
    if in_word:
        words.append(word)
    return words


def command_end(text, i):
    """The index just past the ')' closing a $( opened before i."""
    depth, quote = 1, None
    while depth:
        c = text[i]
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return i


def pattern(shell_text):
    """A regex for what a double-quoted shell word can print."""
    out, i = "", 0
    while i < len(shell_text):
        if shell_text.startswith("$(", i):
            i = command_end(shell_text, i + 2)
            out += ".+?"
        elif shell_text.startswith("${", i):
            i = shell_text.index("}", i) + 1
            out += ".+?"
        elif shell_text[i] == "$" and i + 1 < len(shell_text) and re.match(r"[A-Za-z_]", shell_text[i + 1]):
            i += re.match(r"\$[A-Za-z_][A-Za-z0-9_]*", shell_text[i:]).end()
            out += ".+?"
        else:
            out += re.escape(shell_text[i])
            i += 1
    return "^" + out + "$"


def commands(path):
    """The script's commands, continuation lines joined."""
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    return [line.strip() for line in text.splitlines()]


def bench_rows(path):
    rows = []
    for line in commands(path):
        if line.startswith("row \""):
            w = shell_words(line)
            rows.append((w[1], pattern(w[1]), pattern(w[4])))
    return rows


def replay_rows(path):
    names = []
    for line in commands(path):
        m = re.match(r"printf '%-44s[^']*' \"([^\"]+)\"", line)
        if m:
            names.append(m.group(1))
    return names


def readme_tables(path):
    with open(path) as f:
        text = f.read()
    section = text[text.index("\n## Performance"):]
    section = section[:section.index("\n## ", 1)]
    block = section[section.index("```\n") + 4:]
    block = block[:block.index("```")]
    table, replay = [], []
    for line in block.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] != "figure" and not cells[0].startswith("-"):
                table.append((cells[0], cells[3]))
        elif line.strip() and not line.startswith("figure"):
            replay.append(line[:44].strip())
    return table, replay


def main(t):
    top = sys.argv[1] if len(sys.argv) > 1 else os.environ["top_srcdir"]
    rows = bench_rows(os.path.join(top, "tests/bench/run"))
    replay = replay_rows(os.path.join(top, "tests/bench/replay"))
    table, readme_replay = readme_tables(os.path.join(top, "README.md"))
    t.ok(len(rows) >= 10 and len(replay) == 2 and "figure" not in replay,
           "the benchmark scripts' rows are found (%d row calls, %d replay rows)" % (len(rows), len(replay)))
    unknown, wrong_target, used = [], [], set()
    for name, target in table:
        match = [r for r in rows if re.match(r[1], name)]
        if len(match) != 1:
            unknown.append("%s (matches %d rows of tests/bench/run)" % (name, len(match)))
            continue
        used.add(match[0][0])
        if not re.match(match[0][2], target):
            wrong_target.append("%s: README target '%s', the script's %s" % (name, target, match[0][2]))
    t.ok(not unknown, "every README table row is one tests/bench/run prints (%d rows)" % len(table), unknown)
    t.ok(not wrong_target, "... with the target the script prints", wrong_target)
    missing = [r[0] for r in rows if r[0] not in used]
    t.ok(not missing, "every row tests/bench/run prints is in the README", missing)
    t.ok(readme_replay == replay, "the replay rows are the ones tests/bench/replay prints",
           ["README %s, script %s" % (readme_replay, replay)] if readme_replay != replay else ())


if __name__ == "__main__":
    tap.run(main)
