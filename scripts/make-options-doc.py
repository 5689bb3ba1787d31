#!/usr/bin/env python3
"""Writes docs/options.md, every command's `--help`, from the programs of a build.
Usage: scripts/make-options-doc.py BUILD_DIR [-o FILE]   (default FILE: docs/options.md)

It runs `scaleout --help`, `scaleout CMD --help` for each subcommand that help lists (and theirs,
as `cluster up`), and `scaleout-gui --help` when the GUI is built, each named `scaleout` or
`scaleout-gui` so the text does not depend on where the build is. scripts/check-options-doc.py
regenerates it and fails when docs/options.md differs.
"""
import os
import re
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TITLE = "# Command-line options"
HOW = ("Every command's `--help`, as this version prints it. Made by "
       "`scripts/make-options-doc.py BUILD_DIR`; a test (`scripts/check-options-doc.py`) fails "
       "when this page differs from what the programs print.")


def help_text(program, name, words):
    """What `name words... --help` prints, run from `program` with argv[0] = name."""
    p = subprocess.run([name] + words + ["--help"], executable=program, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT,
                       env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), timeout=60)
    if p.returncode != 0:
        sys.exit(f"{' '.join([name] + words)} --help exited {p.returncode}:\n{p.stdout}")
    return p.stdout.rstrip("\n")


def subcommands(text):
    """The names a help text lists under `Subcommands:`, in its order."""
    names = []
    inside = False
    for line in text.splitlines():
        if line.startswith("Subcommands:"):
            inside = True
        elif inside and line and not line.startswith(" "):
            inside = False
        elif inside:
            m = re.match(r"^  (\S+)", line)
            if m:
                names.append(m.group(1))
    return names


def commands(build):
    """(heading, help text) for each command, in the order the page shows them."""
    cli = os.path.join(build, "cli", "scaleout")
    if not os.access(cli, os.X_OK):
        sys.exit(f"no {cli}: build first")
    out = []

    def walk(words):
        text = help_text(cli, "scaleout", words)
        out.append((" ".join(["scaleout"] + words), text))
        for sub in subcommands(text):
            walk(words + [sub])

    walk([])
    gui = os.path.join(build, "gui", "scaleout-gui")
    if os.access(gui, os.X_OK):
        out.append(("scaleout-gui", help_text(gui, "scaleout-gui", [])))
    return out


def page(build):
    parts = [TITLE, "", textwrap.fill(HOW, 100)]
    for heading, text in commands(build):
        parts += ["", f"## {heading}", "", "```", f"$ {heading} --help", text, "```"]
    return "\n".join(parts) + "\n"


def main():
    args = sys.argv[1:]
    output = os.path.join(ROOT, "docs", "options.md")
    if "-o" in args:
        i = args.index("-o")
        if i + 1 >= len(args):
            sys.exit("usage: make-options-doc.py BUILD_DIR [-o FILE]")
        output = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit("usage: make-options-doc.py BUILD_DIR [-o FILE]")
    text = page(os.path.abspath(args[0]))
    with open(output, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"written to {output}")


if __name__ == "__main__":
    main()
