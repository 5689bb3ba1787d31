#!/usr/bin/env python3
"""Fails when docs/options.md is not what scripts/make-options-doc.py writes from this build.
Usage: scripts/check-options-doc.py BUILD_DIR

Regenerates the page into a temporary file and compares it with docs/options.md, command by
command: exit 0 when they are the same, 1 naming the first command whose help differs (and how to
regenerate), 2 on a usage error. Without the GUI built, the scaleout-gui section is not compared.
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "options.md")


def sections(text):
    """{heading: its lines} for each `## ` section, in order; the part before them as ''."""
    out = {"": []}
    current = ""
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            out[current] = []
        else:
            out[current].append(line)
    return out


def main():
    if len(sys.argv) != 2:
        print("usage: check-options-doc.py BUILD_DIR", file=sys.stderr)
        sys.exit(2)
    build = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="scaleout-options.") as tmp:
        fresh_path = os.path.join(tmp, "options.md")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-options-doc.py"),
                            build, "-o", fresh_path], text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        if p.returncode != 0:
            print(p.stdout.strip())
            sys.exit(1)
        with open(fresh_path, encoding="utf-8") as f:
            fresh = sections(f.read())
    try:
        with open(DOC, encoding="utf-8") as f:
            shown = sections(f.read())
    except OSError as e:
        print(f"docs/options.md: {e.strerror}")
        sys.exit(1)
    gui_built = os.access(os.path.join(build, "gui", "scaleout-gui"), os.X_OK)
    if not gui_built:
        shown.pop("scaleout-gui", None)
    regenerate = "regenerate it: scripts/make-options-doc.py " + sys.argv[1]
    for name in list(fresh) + [n for n in shown if n not in fresh]:
        if name not in shown:
            print(f"docs/options.md is stale: it has no section for `{name}`; {regenerate}")
            sys.exit(1)
        if name not in fresh:
            print(f"docs/options.md is stale: `{name}` is no longer a command; {regenerate}")
            sys.exit(1)
        if fresh[name] != shown[name]:
            what = f"`{name} --help`" if name else "the page's opening"
            got = next((a, b) for a, b in zip(fresh[name] + [""] * len(shown[name]),
                                               shown[name] + [""] * len(fresh[name])) if a != b)
            print(f"docs/options.md is stale: {what} differs\n"
                  f"  the page shows: {got[1]}\n  the program prints: {got[0]}\n{regenerate}")
            sys.exit(1)
    note = "" if gui_built else " (no GUI built: scaleout-gui not compared)"
    print(f"docs/options.md is current: {len(fresh) - 1} commands{note}")


if __name__ == "__main__":
    main()
