#!/usr/bin/env python3
"""Runs every scaleout command shown in the README and docs/ against the bundled files, so the docs
cannot rot. Usage: scripts/check-doc-commands.py BUILD_DIR [FILE.md ...]

A command is a line inside a fenced block that starts with `scaleout`, `scaleout-gui`,
`build/cli/scaleout` or `build/gui/scaleout-gui` (after an optional `$ ` prompt); a trailing `\\`
joins the next line, a trailing `# comment` is dropped. The commands of one file run in order in one
scratch directory that sees the checkout's models/, topologies/, experiments/, tests/ and build/, so a
`compare` finds the files the `run` and `simulate` before it wrote. A block opened with
```` ```yaml file=NAME ```` (a plain file name) is written to NAME there, for the commands after it:
a plan the docs ask the reader to write.

Each must exit 0; 1 only where it is a negative answer (`plan`: a target not reached; `validate`,
`study`: a tolerance passed) and nothing printed `error:`. Any other status fails the check, unless
the output the docs show starts with `error:` (a refusal shown on purpose), which must exit 2. A command still running after the time limit (60 s) has read its
input and begun: it is stopped with everything it started, and fails the check (the docs show
commands that finish in seconds here).

After a `$ ` prompt, the lines up to the next prompt or the fence's end are the output the docs
show: each of them, except `...`, must appear in what the command printed, spaces aside. Wall-clock
seconds ("in 0.21 s") are not compared; nor are the figures of what runs for real (`run`,
`validate`, `calibrate` measure this machine): their lines are compared with numbers masked, signs
included (an error can come out either way).

Commands on an emulated cluster (`cluster up`, `--cluster emulated`) run as root, and a file
whose commands brought one up has it brought down at its end whatever failed; without root they
are listed, not run. Commands that need what a test machine lacks are listed, not run: other
hosts, a GPU (`--backend cuda` without `--dry-run`), a window (scaleout-gui without
--render), a batch scheduler, and templates naming a file in capitals (PLAN, TOPOLOGY).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMAND = re.compile(r"^(\$ )?((build/cli/|build/gui/)?scaleout(-gui)?)( |$)")
EMULATED = re.compile(r"\bcluster (up|down)\b|--cluster emulated")
NOT_HERE = [
    (re.compile(r"--launch external|--hosts"), "needs other hosts"),
    (re.compile(r"--backend cuda(?!.*--dry-run)"), "needs a GPU"),
    (re.compile(r"^\S*scaleout-gui(?!.*--render)"), "opens a window"),
    (re.compile(r"\bsbatch\b|--emit-slurm"), "needs a batch scheduler"),
    (re.compile(r"\b[A-Z]{4,}\b"), "a template (names its files in capitals)"),
]


def fenced_blocks(path):
    """Yields (its opening fence's info string, its lines) for each fenced block of a markdown
    file."""
    block = None
    info = ""
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.lstrip().startswith("```"):
                if block is None:
                    block = []
                    info = line.strip()[3:].strip()
                else:
                    yield info, block
                    block = None
            elif block is not None:
                block.append(line)


FILE_BLOCK = re.compile(r"^\w*\s+file=([\w][\w.-]*)$")


def commands_of(block):
    """(command, prompted, shown output lines) for each command of a block."""
    out = []
    i = 0
    while i < len(block):
        m = COMMAND.match(block[i].strip())
        if m and out and out[-1][1] and not block[i].strip().startswith("$ "):
            m = None  # after a prompt, up to the next one: output (a help's example lines)
        if not m:
            if out and out[-1][1]:
                out[-1][2].append(block[i])
            i += 1
            continue
        text = block[i].strip()
        while text.endswith("\\") and i + 1 < len(block):
            i += 1
            text = text[:-1].rstrip() + " " + block[i].strip()
        prompted = text.startswith("$ ")
        text = text[2:] if prompted else text
        text = re.sub(r"\s+#.*$", "", text)
        out.append((text, prompted, []))
        i += 1
    return out


MEASURES = re.compile(r"^\S*scaleout (run|validate|calibrate)\b")
WALL_SECONDS = re.compile(r"\d+(\.\d+)? s\b")
NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")


def normalized(text, measured):
    """Spaces collapsed, wall-clock seconds masked, and every number (with its sign) masked when
    `measured`."""
    text = WALL_SECONDS.sub("# s", " ".join(text.split()))
    return NUMBER.sub("#", text) if measured else text


def missing_lines(command, shown, output):
    """The lines the docs show that the command's output no longer holds."""
    measured = bool(MEASURES.match(command))
    printed = "\n".join(normalized(line, measured) for line in output.splitlines())
    return [s for s in shown if s.strip() and s.strip() != "..."
            and normalized(s, measured) not in printed]


def scratch_dir(build):
    work = tempfile.mkdtemp(prefix="scaleout-docs.")
    for name in ("models", "topologies", "experiments", "tests"):
        os.symlink(os.path.join(ROOT, name), os.path.join(work, name))
    os.symlink(build, os.path.join(work, "build"))
    return work


NEGATIVE_ANSWER = re.compile(r"^\S*scaleout (plan|validate|study)\b")


def run_one(command, work, env, timeout):
    """(exit status, output); status None when stopped at the time limit (with its children)."""
    p = subprocess.Popen(["bash", "-c", command], cwd=work, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, _ = p.communicate()
        return None, out


def status_ok(command, rc, output, refusal):
    if refusal:
        return rc == 2
    if rc == 1:
        return bool(NEGATIVE_ANSWER.match(command)) and "error:" not in output
    return rc == 0


def not_here(command):
    """Why `command` cannot run on this machine, or None."""
    if EMULATED.search(command) and os.geteuid() != 0:
        return "needs an emulated cluster: network namespaces, as root"
    return next((w for r, w in NOT_HERE if r.search(command)), None)


def check_file(path, build, env, timeout):
    """Returns (checked, skipped, failures) for one markdown file."""
    checked = skipped = 0
    failures = []
    work = scratch_dir(build)
    emulated = False
    try:
        for info, block in fenced_blocks(path):
            written = FILE_BLOCK.match(info)
            if written:  # a file the reader writes: its lines, as indented in a list, dedented
                with open(os.path.join(work, written.group(1)), "w", encoding="utf-8") as f:
                    f.write(textwrap.dedent("\n".join(block)) + "\n")
                continue
            for command, prompted, shown in commands_of(block):
                why = not_here(command)
                if why:
                    skipped += 1
                    print(f"  skipped ({why}): {command}")
                    continue
                emulated = emulated or bool(EMULATED.search(command))
                rc, output = run_one(command, work, env, timeout)
                where = f"{os.path.relpath(path, ROOT)}: {command}"
                if rc is None:
                    failures.append(f"{where}\n    still running after {timeout} s: stopped")
                    continue
                refusal = bool(shown) and shown[0].startswith("error:")
                if not status_ok(command, rc, output, refusal):
                    failures.append(f"{where}\n    exit {rc}: {output.strip()[-600:]}")
                    continue
                missing = missing_lines(command, shown, output)
                if prompted and missing:
                    failures.append(f"{where}\n    the docs show lines it no longer prints:\n"
                                    + "\n".join("      " + s for s in missing[:5]))
                    continue
                checked += 1
    finally:
        if emulated:  # never leave namespaces behind, whatever failed
            run_one(os.path.join(build, "cli", "scaleout") + " cluster down", work, env, timeout)
        shutil.rmtree(work, ignore_errors=True)
    return checked, skipped, failures


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: check-doc-commands.py BUILD_DIR [FILE.md ...]")
    build = os.path.abspath(sys.argv[1])
    files = sys.argv[2:] or [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
        if f.endswith(".md"))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               PATH=os.pathsep.join([os.path.join(build, "cli"), os.path.join(build, "gui"),
                                     os.environ.get("PATH", "")]))
    checked = skipped = 0
    failures = []
    for path in files:
        print(os.path.relpath(path, ROOT))
        c, k, f = check_file(path, build, env, timeout=60)
        checked, skipped = checked + c, skipped + k
        failures += f
    for f in failures:
        print("FAIL " + f)
    print(f"{checked} commands checked, {skipped} listed as needing what this machine lacks, "
          f"{len(failures)} failed")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
