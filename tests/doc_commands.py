#!/usr/bin/env python3
"""tests/doc_commands.py: runs a document's commands as a reader types them, so that the
document cannot rot.

    doc_commands.py lines  DOC SECTION BUILD ROOT   every command line of the ```sh blocks of
                                                    SECTION (a heading, e.g. "## Usage")
    doc_commands.py blocks DOC BUILD ROOT           every fenced block of DOC in order

`lines`: each line of a block that starts a command (continuation lines are indented comments)
runs alone through `sh -c`, as typed, comments included; it must exit 0. A line that needs a
GPU (`--backend cuda`) is skipped, with the reason, unless one is present (/dev/nvidia0) or
HDGC_LIBCUDA is set; an `mpirun` line is skipped when mpirun is missing.

`blocks`: a ```sh block runs as one `sh -e` script; a ```python block runs through python3; a
block whose info string names a file (```hdg mine.hdg) is written to that file, as the text
asks the reader to do. A ```text block right after a block that ran is its output as shown:
each of its lines must be a line of what the block printed, except lines with "time:" or
"trace dofs" (timings and iteration counts vary by machine); "..." in a shown line stands for
any text (the digits rounding leaves to the machine, a long message shortened), so the line must
match a printed line with the rest as shown. A ```sh line that builds
or installs (`make`, `export PATH=`, `python3 -m venv`, `pip install`, `v/bin/...`) is left out:
the test's environment stands for it (BUILD's hdgc first on PATH, the package through
PYTHONPATH), and tests/pip_install.sh runs the pip route.

Everything runs in a fresh folder (Open MPI's session folder too) holding links to ROOT's examples/, tests/ and python/, with
BUILD (its hdgc) first on PATH, the package found through PYTHONPATH and HDGC_LIBRARY (as
`pip install .` would find it), and a kernel cache of its own. Prints one line per command and
"N passed, N failed, N skipped"; exits 1 when one failed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT = int(os.environ.get("HDGC_DOC_TIMEOUT", "600"))


def fenced_blocks(text):
    """[(info string, body)] of the fenced blocks of a Markdown text."""
    return [(m.group(1).strip(), m.group(2))
            for m in re.finditer(r"^```([^\n]*)\n(.*?)^```\s*$", text, re.S | re.M)]


def section(text, heading):
    """The text under `heading` up to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    m = re.search(r"^" + re.escape(heading) + r"\s*$", text, re.M)
    if not m:
        sys.exit(f"doc_commands: no section {heading!r}")
    rest = text[m.end():]
    end = re.search(r"^#{1,%d} " % level, rest, re.M)
    return rest[:end.start()] if end else rest


def have_gpu():
    return os.path.exists("/dev/nvidia0") or bool(os.environ.get("HDGC_LIBCUDA"))


def skip_reason(line):
    cmd = line.split(" #")[0]   # the command, not its comment
    if re.search(r"--backends? (\S*,)?cuda", cmd) and not have_gpu():
        return "needs an NVIDIA GPU (none here: no /dev/nvidia0, HDGC_LIBCUDA unset)"
    if cmd.startswith("mpirun") and not shutil.which("mpirun"):
        return "needs mpirun (Debian: openmpi-bin)"
    return None


def environment(build, root, work):
    bindir = os.path.join(work, ".bin")
    os.makedirs(bindir)
    os.symlink(os.path.join(build, "hdgc"), os.path.join(bindir, "hdgc"))
    env = dict(os.environ)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.path.join(root, "python")
    env["HDGC_LIBRARY"] = os.path.join(build, "libhdgc.so")
    env["HDGC_CACHE_DIR"] = os.path.join(work, ".cache")
    env["MPLBACKEND"] = "Agg"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # mpirun as root and with more ranks than cores (a CI machine): Open MPI's own switches
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    # a session folder of its own: Open MPI's shared /tmp/ompi.HOST.UID, created and removed by
    # every other MPI process of the machine, once failed a PETSc start here (orte_session_dir)
    os.makedirs(os.path.join(work, ".ompi"))
    env.setdefault("OMPI_MCA_orte_tmpdir_base", os.path.join(work, ".ompi"))
    for name in ("examples", "tests", "python"):
        os.symlink(os.path.join(root, name), os.path.join(work, name))
    return env


class Runner:
    def __init__(self, env, work):
        self.env, self.work = env, work
        self.passed = self.failed = self.skipped = 0

    def run(self, what, argv, label, expect=None):
        t = time.time()
        try:
            p = subprocess.run(argv, cwd=self.work, env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace", timeout=TIMEOUT)
            rc, out = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            rc, out = "timeout", (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        dt = time.time() - t
        missing = missing_lines(expect, out) if rc == 0 and expect else []
        if missing:
            rc = "0, but its output lacks the lines shown"
            out = "missing:\n" + "\n".join(missing) + "\n--- output:\n" + out
        if rc == 0:
            self.passed += 1
            print(f"PASS ({dt:.1f} s) {label}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL (exit {rc}, {dt:.1f} s) {label}\n" + "".join("    | " + l + "\n" for l in out.splitlines()[-30:]),
                  flush=True)

    def skip(self, label, why):
        self.skipped += 1
        print(f"SKIP {label}: {why}", flush=True)


SETUP = re.compile(r"\s*(make( |$)|export PATH=|python3 -m venv|pip install|v/bin/)")
VARYING = ("time:", "trace dofs")
ELLIPSIS = "..."


def shown_in(line, have):
    """Whether a shown line is one of the printed lines `have`: equal, or with each "..." of
    the shown line standing for any text."""
    line = line.rstrip()
    if ELLIPSIS not in line:
        return line in have
    pattern = re.compile(".*".join(re.escape(part) for part in line.split(ELLIPSIS)))
    return any(pattern.fullmatch(h) for h in have)


def missing_lines(shown, out):
    """The lines of a shown output (a ```text block) that the real output lacks."""
    have = {line.rstrip() for line in out.splitlines()}
    return [line for line in shown.splitlines()
            if line.strip() and not any(v in line for v in VARYING) and not shown_in(line, have)]


def run_lines(runner, text):
    for info, body in fenced_blocks(text):
        if info.split()[:1] != ["sh"]:
            continue
        for line in body.splitlines():
            if not line.strip() or line[0].isspace() or line.lstrip().startswith("#"):
                continue
            why = skip_reason(line)
            if why:
                runner.skip(line, why)
            else:
                runner.run(line, ["sh", "-c", line], line)


def run_blocks(runner, text):
    blocks = fenced_blocks(text)
    for i, (info, body) in enumerate(blocks):
        words = info.split()
        shown = blocks[i + 1][1] if i + 1 < len(blocks) and blocks[i + 1][0] == "text" else None
        if len(words) >= 2:
            with open(os.path.join(runner.work, words[1]), "w") as f:
                f.write(body)
            print(f"WROTE {words[1]}", flush=True)
        elif words == ["sh"]:
            kept = []
            for line in body.splitlines():
                if SETUP.match(line):
                    runner.skip(line, "build and install: the test's environment stands for it")
                else:
                    kept.append(line)
            if not any(l.strip() for l in kept):
                continue
            label = "sh: " + " | ".join(l for l in kept if l.strip() and not l.startswith(" "))[:200]
            runner.run(label, ["sh", "-ec", "\n".join(kept)], label, shown)
        elif words == ["python"]:
            first = next((l for l in body.splitlines() if l.strip()), "")
            runner.run(first, [sys.executable, "-c", body], "python: " + first + " ...", shown)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "lines" and len(sys.argv) == 6:
        doc, heading, build, root = sys.argv[2:]
    elif mode == "blocks" and len(sys.argv) == 5:
        doc, build, root = sys.argv[2:]
    else:
        sys.exit(__doc__)
    build, root = os.path.abspath(build), os.path.abspath(root)
    with open(doc) as f:
        text = f.read()
    work = tempfile.mkdtemp(prefix="hdgc-doc-")
    try:
        runner = Runner(environment(build, root, work), work)
        if mode == "lines":
            run_lines(runner, section(text, heading))
        else:
            run_blocks(runner, text)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{runner.passed} passed, {runner.failed} failed, {runner.skipped} skipped")
    if runner.passed + runner.failed == 0:
        print("doc_commands: ran nothing")
        return 1
    return 1 if runner.failed else 0


if __name__ == "__main__":
    sys.exit(main())
