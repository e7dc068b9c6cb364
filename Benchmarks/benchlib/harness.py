"""Timing: the sfumato-bench server, rows run round by round, whole processes for the end-to-end rows."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .common import CORES, PIL, TOOLS, WORK, SfumatoFailure, _import_errors, cv2, log, wait_for_binary
from .peers import PENCIL_SPECS


@dataclass
class Row:
    group: str
    op: str
    image: str
    computes: str
    tools: dict[str, Callable] = field(default_factory=dict)  # sfumato -> returns ms; peers -> timed here
    details: str = ""  # the long description, for the Notes
    excluded: set[str] = field(default_factory=set)  # computes something else: shown, not ranked
    notes: list[str] = field(default_factory=list)
    samples: dict[str, list[float]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    filters: tuple[str, ...] = ()  # the Sfumato filters the row runs, as `sfumato filters` names them
    needs: set[str] = field(default_factory=set)  # sfumato-bench commands beyond the basic ones (e.g. fusion)
    pair: str | None = None  # the op of the row this one is compared with (fusion off vs on)
    cli: dict[str, list[str]] = field(default_factory=dict)  # whole-process commands, timed when the bench can't
    cli_samples: dict[str, list[float]] = field(default_factory=dict)
    quick_skip: dict[str, str] = field(default_factory=dict)  # peer -> why quick mode leaves it out (slow)


_KEEPALIVE: list = []


# ---------------------------------------------------------------------------------------------
# sfumato-bench: the in-process timing server


class SfumatoBench:
    def __init__(self, binary: Path, threads: int):
        self.binary = binary
        self.stderr = tempfile.TemporaryFile(mode="w+")
        for attempt in range(10):
            wait_for_binary(binary)
            try:
                self.proc = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=self.stderr, text=True, bufsize=1)
                break
            except (FileNotFoundError, OSError) as e:  # ETXTBSY while the linker writes it
                if attempt == 9:
                    raise SfumatoFailure(f"cannot start {binary}: {e}") from e
                time.sleep(3)
        self.command(f"threads {threads}")

    def command(self, line: str) -> str:
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            reply = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            reply = ""
        if not reply:
            rc = self.proc.poll()
            self.stderr.seek(0)
            err = self.stderr.read()
            if len(err) > 1500:  # a Swift crash report: its first lines say what went wrong
                err = err[:1500] + "\n..."
            raise SfumatoFailure(f"sfumato-bench died (exit {rc}) on `{line}`\n{err}")
        reply = reply.rstrip("\n")
        if reply.startswith("error"):
            raise SfumatoFailure(f"sfumato-bench: `{line}` -> {reply}")
        return reply

    def ms(self, line: str) -> float:
        reply = self.command(line)
        if not reply.startswith("ms "):
            raise SfumatoFailure(f"sfumato-bench: `{line}` -> unexpected reply {reply!r}")
        return float(reply.split()[1])

    def explain(self, line: str) -> str:
        first = self.command(line)
        lines = [first]
        while lines[-1] != "end":
            nxt = self.proc.stdout.readline()
            if not nxt:
                raise SfumatoFailure(f"sfumato-bench died during `{line}`")
            lines.append(nxt.rstrip("\n"))
        return "\n".join(lines[:-1])

    def close(self) -> None:
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()



def check_fusion(srv: SfumatoBench, rows: list[Row]) -> None:
    """Rows that time unfused renders need sfumato-bench's `fusion on|off`: fail at once, clearly, without it."""
    names = [r.op for r in rows if "fusion" in r.needs]
    if not names:
        return
    try:
        srv.command("fusion off")
    except SfumatoFailure as e:
        if "unknown command" not in str(e):
            raise
        raise SfumatoFailure(
            f"{srv.binary} does not know the `fusion on|off` command (it answered `{str(e).split(' -> ', 1)[-1]}`), "
            f"which these rows need: {'; '.join(names)}.\nRebuild it (swift build -c release --product sfumato-bench) "
            f"and run again, or leave those rows out with --only.") from None
    plan = srv.explain(f"explain img none {PENCIL_SPECS}")
    srv.command("fusion on")
    first = plan.splitlines()[0] if plan else ""
    if "fusion off" not in first:
        raise SfumatoFailure(f"{srv.binary} accepted `fusion off` but its render plan still says: {first!r}")


def sfumato_filters(cli_bin: Path) -> list[tuple[str, ...]]:
    """Every filter `sfumato filters` lists, as its names: ("CIHueAdjust", "hue-adjust"), ("median",), ..."""
    for attempt in range(10):
        wait_for_binary(cli_bin)
        try:
            out = subprocess.run([str(cli_bin), "filters"], capture_output=True, text=True, timeout=60)
            break
        except OSError:
            if attempt == 9:
                raise
            time.sleep(3)
    if out.returncode != 0:
        raise SfumatoFailure(f"`{cli_bin} filters` exited {out.returncode}: {out.stderr.strip()[-300:]}")
    filters = []
    for line in out.stdout.splitlines():
        if line and not line[0].isspace() and " (" in line:
            filters.append(tuple(n.strip() for n in line.split(" (", 1)[0].split(",")))
    if not filters:
        raise SfumatoFailure(f"`{cli_bin} filters` listed no filters")
    return filters


def uncovered(filters: list[tuple[str, ...]], rows: list[Row]) -> list[str]:
    have = {n for r in rows for n in r.filters}
    known = {n for names in filters for n in names}
    for r in rows:
        for n in set(r.filters) - known:
            log(f"warning: row “{r.op}” names a filter `{n}` that `sfumato filters` does not list")
    return [" / ".join(names) for names in filters if not have.intersection(names)]


def run_cli(row: Row, warmup: int, rounds: int) -> None:
    """Times the row's whole-process `sfumato apply` commands, interleaved round by round (wall ms)."""
    row.cli_samples = {k: [] for k in row.cli}
    for r in range(warmup + rounds):
        for k, cmd in row.cli.items():
            for attempt in range(10):  # the binary may be mid-rebuild: wait for it, retry
                wait_for_binary(Path(cmd[0]))
                t0 = time.perf_counter()
                try:
                    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True, timeout=600)
                except OSError as e:  # ETXTBSY while the linker writes it
                    if attempt == 9:
                        raise SfumatoFailure(f"{row.op}: cannot run {cmd[0]}: {e}") from e
                    time.sleep(3)
                    continue
                ms = (time.perf_counter() - t0) * 1000
                if p.returncode != 0:
                    raise SfumatoFailure(f"{row.op}: `{' '.join(cmd)}` exited {p.returncode}: "
                                         f"{p.stderr.strip()[-500:]}")
                break
            if r >= warmup:
                row.cli_samples[k].append(ms)
    try:
        os.remove(WORK / "cli-out.jpg")
    except FileNotFoundError:
        pass


def run_row(row: Row, warmup: int, rounds: int, budget_s: float) -> None:
    if row.cli:
        run_cli(row, warmup, rounds)
    for t in TOOLS:
        if t not in row.tools and t in _import_errors:
            row.failed[t] = _import_errors[t]
    samples = {t: [] for t in row.tools}
    spent = {t: 0.0 for t in row.tools}
    for r in range(warmup + rounds):
        for t in TOOLS:
            fn = row.tools.get(t)
            if fn is None or t in row.failed:
                continue
            # A very slow tool stops early (it keeps at least one measured sample).
            if samples[t] and spent[t] > budget_s * 1000:
                continue
            if r < warmup and r > 0 and spent[t] > budget_s * 500:
                continue  # one warm-up is enough for a slow one
            try:
                if t == "sfumato":
                    ms = fn()
                else:
                    t0 = time.perf_counter()
                    fn()
                    ms = (time.perf_counter() - t0) * 1000
            except SfumatoFailure:
                raise
            except Exception as e:
                if t == "sfumato":
                    raise SfumatoFailure(f"{row.op}: {e}") from e
                row.failed[t] = f"{type(e).__name__}: {e}".splitlines()[0][:200]
                continue
            spent[t] += ms
            # A call slower than half the budget needs no warming: it counts as a measured sample.
            if r >= warmup or ms > budget_s * 500:
                samples[t].append(ms)
    row.samples = samples



# ---------------------------------------------------------------------------------------------
# End to end (whole processes)

CV_SCRIPT = """import sys, cv2
im = cv2.imread(sys.argv[1], cv2.IMREAD_COLOR)
out = cv2.GaussianBlur(im, (0, 0), 2, borderType=cv2.BORDER_REPLICATE)
cv2.imwrite(sys.argv[2], out, [cv2.IMWRITE_JPEG_QUALITY, 90])
"""
PIL_SCRIPT = """import sys
from PIL import Image, ImageFilter
Image.open(sys.argv[1]).filter(ImageFilter.GaussianBlur(2)).save(sys.argv[2], quality=90)
"""


# Peak RSS comes from wait4's rusage. A child spawned straight from this (big) process would
# inherit this process's memory high-water mark at exec, so the runs are spawned by a small,
# fresh launcher process instead (its own ~10 MB is the floor of what can be measured).
LAUNCHER = r"""
import json, os, sys, time
for line in sys.stdin:
    req = json.loads(line)
    try:
        fa = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
              (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
              (os.POSIX_SPAWN_OPEN, 2, req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
        t0 = time.perf_counter()
        pid = os.posix_spawnp(req["cmd"][0], req["cmd"], req["env"], file_actions=fa)
        _, status, ru = os.wait4(pid, 0)
        out = {"wall": time.perf_counter() - t0, "rc": os.waitstatus_to_exitcode(status), "maxrss_kb": ru.ru_maxrss}
    except OSError as e:
        out = {"error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


class Launcher:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        fd, self.errpath = tempfile.mkstemp(prefix="bench-e2e-", suffix=".err")
        os.close(fd)

    def run(self, cmd: list[str], env: dict) -> tuple[float, float]:
        """Runs a command; returns (wall s, peak RSS MiB) of that one child."""
        for attempt in range(10):
            self.proc.stdin.write(json.dumps({"cmd": cmd, "env": env, "stderr": self.errpath}) + "\n")
            self.proc.stdin.flush()
            reply = json.loads(self.proc.stdout.readline() or '{"error": "launcher died"}')
            if "error" not in reply:
                break
            if attempt == 9 or "launcher died" in reply["error"]:
                raise RuntimeError(f"cannot run {cmd[0]}: {reply['error']}")
            log(f"retrying {cmd[0]}: {reply['error']}")  # e.g. the binary is being rebuilt
            time.sleep(3)
        if reply["rc"] != 0:
            err = Path(self.errpath).read_text(errors="replace")[-500:].strip()
            raise RuntimeError(f"exit {reply['rc']}: {err}")
        return reply["wall"], reply["maxrss_kb"] / 1024.0

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
        try:
            os.remove(self.errpath)
        except OSError:
            pass


@dataclass
class E2E:
    image: str
    path: Path
    runs: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)


E2E_TOOLS = ["sfumato-none", "sfumato-linear", "opencv", "libvips", "pillow"]
E2E_LABEL = {"sfumato-none": "Sfumato (none)", "sfumato-linear": "Sfumato (linear)", "opencv": "OpenCV (Python)",
             "libvips": "vips CLI", "pillow": "Pillow (Python)"}
E2E_COMMANDS = {  # (command, comment)
    "sfumato-none": ("sfumato apply IN -o OUT.jpg -f gaussian-blur:radius=2 --working-space none",
                     "encoded values, like the peers"),
    "sfumato-linear": ("sfumato apply IN -o OUT.jpg -f gaussian-blur:radius=2", "linear light, Sfumato's default"),
    "opencv": ("cv2.imread(IN); cv2.GaussianBlur(im, (0, 0), 2, borderType=cv2.BORDER_REPLICATE); "
               "cv2.imwrite(OUT, out, [cv2.IMWRITE_JPEG_QUALITY, 90])", "a Python script"),
    "libvips": ("vips gaussblur IN 'OUT.jpg[Q=90,subsample_mode=on]' 2", "Debian's vips command"),
    "pillow": ("Image.open(IN).filter(ImageFilter.GaussianBlur(2)).save(OUT, quality=90)", "a Python script"),
}


def run_e2e(e: E2E, sfumato: Path, warmup: int, rounds: int, launcher: Launcher) -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "e2e_opencv.py").write_text(CV_SCRIPT)
    (WORK / "e2e_pillow.py").write_text(PIL_SCRIPT)
    vips_cli = shutil.which("vips")
    env = dict(os.environ, VIPS_CONCURRENCY=str(CORES))
    out = lambda t: str(WORK / f"e2e-out-{t}.jpg")  # noqa: E731
    cmds = {
        "sfumato-none": [str(sfumato), "apply", str(e.path), "-o", out("sfn"), "-f", "gaussian-blur:radius=2",
                         "--working-space", "none"],
        "sfumato-linear": [str(sfumato), "apply", str(e.path), "-o", out("sfl"), "-f", "gaussian-blur:radius=2"],
        "opencv": [sys.executable, str(WORK / "e2e_opencv.py"), str(e.path), out("cv")] if cv2 else None,
        "libvips": [vips_cli, "gaussblur", str(e.path), out("vips") + "[Q=90,subsample_mode=on]", "2"] if vips_cli else None,
        "pillow": [sys.executable, str(WORK / "e2e_pillow.py"), str(e.path), out("pil")] if PIL else None,
    }
    if not vips_cli:
        e.failed["libvips"] = "Debian's `vips` command not found"
    if not cv2:
        e.failed["opencv"] = _import_errors["opencv"]
    if not PIL:
        e.failed["pillow"] = _import_errors["pillow"]
    e.runs = {t: [] for t in E2E_TOOLS}
    for r in range(warmup + rounds):
        for t in E2E_TOOLS:
            cmd = cmds[t]
            if cmd is None or t in e.failed:
                continue
            if t.startswith("sfumato"):
                wait_for_binary(sfumato)
            try:
                wall, mb = launcher.run(cmd, env)
            except Exception as ex:
                if t.startswith("sfumato"):
                    raise SfumatoFailure(f"end to end {e.image}: {' '.join(cmd)}: {ex}") from ex
                e.failed[t] = str(ex).splitlines()[0][:200]
                continue
            if r >= warmup:
                e.runs[t].append((wall, mb))
    for t in ("sfn", "sfl", "cv", "vips", "pil"):
        try:
            os.remove(out(t))
        except FileNotFoundError:
            pass


