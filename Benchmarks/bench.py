#!/usr/bin/env python3
"""Sfumato benchmark harness: times Sfumato against OpenCV, libvips (pyvips) and Pillow.

Run it through scripts/bench (which makes the virtual environment and builds the binaries):

    scripts/bench            # full: 6000x4000 images, 7 rounds, plus a ~100 MP end-to-end run
    scripts/bench --quick    # 1920x1280 images, 3 rounds, a 25 MP end-to-end run (under 2 minutes)

Every row runs Sfumato and each peer in the same process run, interleaved round by round
(Sfumato, OpenCV, libvips, Pillow, then the next round), after warm-up rounds, and reports
medians. Sfumato is timed inside `sfumato-bench` (one long-lived process, monotonic clock,
`RenderContext.render` allocating its output, as the peers' calls do); the peers are timed here
with time.perf_counter() around the call. End-to-end rows start a whole process per run and record wall time and peak RSS
(wait4 rusage of that child, spawned by a small launcher process).

Every filter `sfumato filters` lists gets at least one row (a missing one is warned about and named in
the report). The two that take a second image (CISourceOverCompositing, histogram-specification) can't
be loaded by sfumato-bench's `filter` command, so they are timed as whole `sfumato apply` processes,
with and without the filter. The "fusion off" rows need sfumato-bench's `fusion on|off` command; an
older sfumato-bench without it stops the run at the start with a message saying so.

Writes BENCHMARKS.md (repository root) and Benchmarks/results.json.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib.common import CORES, LABEL, PIL, ROOT, TOOLS, SfumatoFailure, _import_errors, cv2, log, pyvips, wait_for_binary  # noqa: E402
from benchlib.harness import (  # noqa: E402
    E2E,
    E2E_LABEL,
    E2E_TOOLS,
    Launcher,
    SfumatoBench,
    check_fusion,
    run_e2e,
    run_row,
    sfumato_filters,
    uncovered,
)
from benchlib.images import make_image, source_photo  # noqa: E402
from benchlib.report import e2e_result, fmt_ms, machine, markdown, med, row_result, versions  # noqa: E402
from benchlib.rows import build_rows  # noqa: E402

# ---------------------------------------------------------------------------------------------


def merged(path: Path, meta: dict, fresh: list[dict], e2e: list[dict]):
    """The report at `path` with `fresh`'s rows in place of the same operations (and their end-to-end
    rows, if this run made any); each fresh row notes when and at which commit it was measured."""
    old = json.loads(path.read_text())
    stamp = f"Re-measured {meta['date']} at commit {meta['versions'].get('sfumato_commit') or '?'} (`{meta['command']}`)."
    by_op = {r["operation"]: r for r in fresh}
    rows = []
    for r in old["rows"]:
        if r["operation"] in by_op:
            r = by_op.pop(r["operation"])
            r["notes"] = r["notes"] + [stamp]
        rows.append(r)
    rows += [dict(r, notes=r["notes"] + [stamp]) for r in by_op.values()]
    kept = dict(old["meta"])
    kept.setdefault("merged", []).append({"date": meta["date"], "command": meta["command"],
                                          "operations": [r["operation"] for r in fresh]})
    return kept, rows, e2e or old.get("end_to_end", [])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1920x1280 images, 3 rounds, 25 MP end to end")
    ap.add_argument("--rounds", type=int, help="measured rounds (default 7, quick 3)")
    ap.add_argument("--warmup", type=int, help="warm-up rounds (default 2, quick 1)")
    ap.add_argument("--only", help="regex: run only matching operations")
    ap.add_argument("--no-e2e", action="store_true", help="skip the end-to-end runs")
    ap.add_argument("--bin", default=os.environ.get("SFUMATO_BIN_DIR", str(ROOT / ".build" / "release")),
                    help="folder with sfumato and sfumato-bench")
    ap.add_argument("--markdown", default=str(ROOT / "BENCHMARKS.md"))
    ap.add_argument("--json", default=str(ROOT / "Benchmarks" / "results.json"))
    ap.add_argument("--command", default=None, help="command line to record in the report")
    ap.add_argument("--merge", action="store_true",
                    help="with --only: replace the matching rows of the existing JSON and markdown (each marked "
                         "with this run's date and commit), keep the others and the end-to-end rows as they were")
    args = ap.parse_args()
    if args.merge and not args.only:
        ap.error("--merge needs --only (which rows to re-measure)")

    quick = args.quick
    w, h = (1920, 1280) if quick else (6000, 4000)
    rounds = args.rounds or (3 if quick else 7)
    warmup = args.warmup if args.warmup is not None else (1 if quick else 2)
    budget_s = 4.0 if quick else 45.0
    bins = Path(args.bin)
    bench_bin, cli_bin = bins / "sfumato-bench", bins / "sfumato"
    started = time.monotonic()
    mach = machine()  # before the run, for its load average

    if PIL is None:
        log("Pillow is needed to make the test images: " + _import_errors["pillow"])
        return 2
    if cv2 is not None:
        cv2.setNumThreads(CORES)
    if pyvips is not None:
        pyvips.cache_set_max(0)
        pyvips.cache_set_max_mem(0)
        if hasattr(pyvips, "concurrency_set"):
            pyvips.concurrency_set(CORES)
    for t, why in _import_errors.items():
        log(f"warning: {LABEL[t]} unavailable ({why}); its column will be blank")

    src = source_photo()
    jpg, png = make_image(src, w, h)
    big_wh = (6120, 4080) if quick else (12240, 8160)
    big_jpg = None
    if not args.no_e2e:
        big_jpg, _ = make_image(src, *big_wh, png=False)

    try:
        wait_for_binary(bench_bin)
        wait_for_binary(cli_bin)
        srv = SfumatoBench(bench_bin, CORES)
        try:
            rows = build_rows(srv, cli_bin, jpg, png, w, h)
            listed = sfumato_filters(cli_bin)
            missing = uncovered(listed, rows)
            if missing:
                log(f"warning: no row for these filters of `sfumato filters`: {', '.join(missing)}")
            if args.only:
                rows = [r for r in rows if re.search(args.only, r.op, re.I)]
            check_fusion(srv, rows)
            if quick:
                for r in rows:
                    for t, why in r.quick_skip.items():
                        if r.tools.pop(t, None) is not None:
                            r.notes.append(f"{LABEL[t]} left out of quick runs ({why}); the full run times it.")
            for i, row in enumerate(rows, 1):
                t0 = time.monotonic()
                run_row(row, warmup, rounds, budget_s)
                meds = "  ".join(f"{LABEL[t]} {fmt_ms(med(row.samples.get(t, [])))}" for t in TOOLS if t in row.tools)
                meds += "  ".join(f"sfumato apply {k} the filter {fmt_ms(med(v))}" for k, v in row.cli_samples.items())
                log(f"[{i}/{len(rows)}] {row.op}: {meds}  ({time.monotonic() - t0:.1f} s)")
        finally:
            srv.close()
        by_op = {r.op: r for r in rows}
        for r in rows:
            other = by_op.get(r.pair) if r.pair else None
            a, b = med(r.samples.get("sfumato", [])), med(other.samples.get("sfumato", [])) if other else None
            if a and b:
                r.notes.append(f"{a / b:.2f}× the time of “{other.op}” ({fmt_ms(a)} vs {fmt_ms(b)} ms).")

        e2es: list[E2E] = []
        if not args.no_e2e:
            plan = [(E2E(f"{w}×{h} JPEG", jpg), 1, 3 if quick else 5),
                    (E2E(f"{big_wh[0]}×{big_wh[1]} JPEG ({big_wh[0] * big_wh[1] / 1e6:.0f} MP)", big_jpg), 0, 2)]
            launcher = Launcher()
            for e, wu, n in plan:
                t0 = time.monotonic()
                try:
                    run_e2e(e, cli_bin, wu, n, launcher)
                except SfumatoFailure:
                    launcher.close()
                    raise
                log(f"end to end {e.image}: " + "  ".join(
                    f"{E2E_LABEL[t]} {med([x for x, _ in e.runs[t]]) or 0:.2f}s/"
                    f"{max((m for _, m in e.runs[t]), default=0):.0f}MiB" for t in E2E_TOOLS) +
                    f"  ({time.monotonic() - t0:.1f} s)")
                e2es.append(e)
            launcher.close()
    except SfumatoFailure as e:
        log(f"\nbench: Sfumato failed, aborting:\n{e}")
        return 1

    meta = {
        "mode": "quick" if quick else "full",
        "command": args.command or ("scripts/bench" + (" --quick" if quick else "")),
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "duration_s": time.monotonic() - started,
        "machine": mach,
        "versions": versions(bench_bin, cli_bin),
        "threads": {"sfumato": CORES, "opencv": cv2.getNumThreads() if cv2 else None,
                    "libvips": pyvips.concurrency_get() if pyvips and hasattr(pyvips, "concurrency_get")
                    else os.environ.get("VIPS_CONCURRENCY")},
        "size": f"{w}×{h}", "source_photo": str(src.relative_to(ROOT)) if src.is_relative_to(ROOT) else src.name,
        "warmup": warmup, "rounds": rounds, "time_budget_per_tool_per_row_s": budget_s,
    }
    meta["filters"] = {"listed": [" / ".join(n) for n in listed], "without_row": missing}
    rows_out = [row_result(r, rounds) for r in rows]
    e2e_out = [e2e_result(e) for e in e2es]
    if args.merge:
        meta, rows_out, e2e_out = merged(Path(args.json), meta, rows_out, e2e_out)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"meta": meta, "rows": rows_out, "end_to_end": e2e_out}, indent=2,
                                          ensure_ascii=False) + "\n")
    # The batch benchmark's section (Benchmarks/batch_bench.py) is its own: kept as it was.
    previous = Path(args.markdown).read_text() if Path(args.markdown).exists() else ""
    kept = previous[previous.find("## Batches"):] if "## Batches" in previous else ""
    Path(args.markdown).write_text(markdown(meta, rows_out, e2e_out).rstrip("\n") + ("\n\n" + kept if kept else "\n"))
    log(f"wrote {Path(args.markdown).relative_to(ROOT) if Path(args.markdown).is_relative_to(ROOT) else args.markdown} "
        f"and {Path(args.json).relative_to(ROOT) if Path(args.json).is_relative_to(ROOT) else args.json} "
        f"in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

