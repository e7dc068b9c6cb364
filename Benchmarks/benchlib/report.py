"""BENCHMARKS.md and results.json: the machine, the versions, medians and ratios."""
from __future__ import annotations

import platform
import statistics
import subprocess
from pathlib import Path

from .common import CORES, LABEL, PEERS, PIL, ROOT, TOOLS, cv2, np, pyvips
from .harness import E2E, E2E_COMMANDS, E2E_LABEL, E2E_TOOLS
from .rows import GROUPS, Row  # noqa: F401

# ---------------------------------------------------------------------------------------------
# Report


def cmd_out(args: list[str]) -> str:
    try:
        return subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=30).stdout.strip()
    except Exception:
        return ""


def machine() -> dict:
    model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    debian = ""
    try:
        debian = Path("/etc/debian_version").read_text().strip()
    except OSError:
        pass
    try:
        load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        load = None
    return {"cpu": model or platform.processor() or "unknown", "cores": CORES, "memory": mem, "loadavg_at_start": load,
            "os": f"{platform.system()} {platform.release()}" + (f", Debian {debian}" if debian else "")}


def versions(bench_bin: Path, cli_bin: Path) -> dict:
    v = {"python": platform.python_version(), "numpy": np.__version__}
    v["opencv"] = cv2.__version__ if cv2 else None
    if pyvips:
        v["libvips"] = f"{pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}"
        v["pyvips"] = getattr(pyvips, "__version__", "?")
    else:
        v["libvips"] = None
    v["pillow"] = PIL.__version__ if PIL else None
    v["vips_cli"] = cmd_out(["vips", "--version"]) or None
    commit = cmd_out(["git", "rev-parse", "--short", "HEAD"])
    dirty = cmd_out(["git", "status", "--porcelain", "--untracked-files=no"])
    v["sfumato_commit"] = (commit + (" (+ uncommitted changes)" if dirty else "")) if commit else None
    first = cmd_out([str(cli_bin), "--help"]).splitlines()
    v["sfumato"] = first[0].split(":")[0] if first else None
    return v


def med(xs):
    return statistics.median(xs) if xs else None


def fmt_ms(x) -> str:
    if x is None:
        return "—"
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def row_result(row: Row, rounds: int) -> dict:
    medians = {t: med(row.samples.get(t, [])) for t in TOOLS}
    ranked = {t: medians[t] for t in PEERS if medians[t] is not None and t not in row.excluded}
    fastest = min(ranked, key=ranked.get) if ranked else None
    ratio = (medians["sfumato"] / ranked[fastest]) if fastest else None
    notes = list(row.notes)
    for t, why in row.failed.items():
        notes.append(f"{LABEL[t]} failed: {why}")
    for t in TOOLS:
        n = len(row.samples.get(t, []))
        if 0 < n < rounds:
            notes.append(f"{LABEL[t]}: {n} of {rounds} rounds (slow; stopped at the time budget)")
    cli = {k: med(v) for k, v in row.cli_samples.items()}
    return {"group": row.group, "operation": row.op, "filters": list(row.filters), "image": row.image,
            "computes": row.computes, "details": row.details,
            "cli_ms": cli or None,
            "cli_commands": {k: " ".join(c).replace(f"{ROOT}/", "") for k, c in row.cli.items()} or None,
            "cli_samples_ms": {k: [round(x, 3) for x in v] for k, v in row.cli_samples.items()} or None,
            "ms": medians, "samples_ms": {t: [round(x, 3) for x in row.samples.get(t, [])] for t in TOOLS},
            "excluded_from_ranking": sorted(row.excluded), "fastest_peer": fastest,
            "fastest_peer_ms": ranked.get(fastest) if fastest else None,
            "ratio_sfumato_over_fastest": ratio, "notes": notes}


def e2e_result(e: E2E) -> dict:
    tools = {}
    for t in E2E_TOOLS:
        runs = e.runs.get(t, [])
        tools[t] = {"wall_s": med([w for w, _ in runs]), "peak_mib": max((m for _, m in runs), default=None),
                    "runs": [{"wall_s": round(w, 4), "peak_mib": round(m, 1)} for w, m in runs],
                    "command": E2E_COMMANDS[t][0], "failed": e.failed.get(t)}
    peers = {t: tools[t] for t in ("opencv", "libvips", "pillow") if tools[t]["wall_s"] is not None}
    fastest = min(peers, key=lambda t: peers[t]["wall_s"]) if peers else None
    leanest = min(peers, key=lambda t: peers[t]["peak_mib"]) if peers else None
    def ratios(t: str) -> dict:
        s = tools[t]
        key = t.replace("-", "_")
        return {f"wall_ratio_{key}_over_fastest": (s["wall_s"] / peers[fastest]["wall_s"]) if fastest and s["wall_s"] else None,
                f"peak_ratio_{key}_over_leanest": (s["peak_mib"] / peers[leanest]["peak_mib"]) if leanest and s["peak_mib"] else None}
    return {"image": e.image, "path": str(e.path.relative_to(ROOT)) if e.path.is_relative_to(ROOT) else str(e.path),
            "tools": tools, "fastest_peer": fastest, "leanest_peer": leanest,
            **ratios("sfumato-linear"), **ratios("sfumato-none")}


def ratio_cell(r) -> str:
    if r is None:
        return "—"
    return f"**{r:.2f}**" if r > 1 else f"{r:.2f}"


def remeasured(meta: dict) -> str:
    """The rows re-measured since the full run (with --merge), each named once; the rows' notes say when."""
    names = list(dict.fromkeys(op for m in meta.get("merged", []) for op in m["operations"]))
    if not names:
        return ""
    last = meta["merged"][-1]["date"]
    return (f" Since then, up to {last}, {len(names)} rows were re-measured alone with `--merge` "
            f"(each row's note says when, at which commit): {'; '.join(names)}.")


def markdown(meta: dict, rows: list[dict], e2e: list[dict]) -> str:
    m, v, th = meta["machine"], meta["versions"], meta["threads"]
    out = [f"# Sfumato benchmarks{' (quick)' if meta['mode'] == 'quick' else ''}", "",
           f"Produced by `{meta['command']}` on {meta['date']} in {meta['duration_s']:.0f} s." + remeasured(meta), "",
           "## Machine and tools", "",
           f"- **CPU:** {m['cpu']}, {m['cores']} cores; **memory:** {m['memory']}; {m['os']}"
           + (f"; load average before the run {m['loadavg_at_start']}" if m.get("loadavg_at_start") else ""),
           f"- **Sfumato:** {v.get('sfumato') or '?'} at commit `{v.get('sfumato_commit') or '?'}` (release build)",
           f"- **OpenCV** {v.get('opencv') or '—'} (opencv-python-headless), **libvips** {v.get('libvips') or '—'} "
           f"(pyvips {v.get('pyvips', '—')}, pyvips-binary), **Pillow** {v.get('pillow') or '—'}, "
           f"**numpy** {v.get('numpy')}, **Python** {v.get('python')}",
           f"- **Debian vips CLI** (end-to-end rows): {v.get('vips_cli') or '—'}",
           f"- **Threads:** Sfumato {th['sfumato']} (= cores), OpenCV {th['opencv']} (cv2.getNumThreads), "
           f"libvips {th['libvips']} (concurrency), Pillow 1 (its filters are single-threaded)",
           f"- **Rounds:** {meta['warmup']} warm-up + {meta['rounds']} measured, interleaved per round "
           f"(Sfumato, OpenCV, libvips, Pillow); each cell is the median in milliseconds.", "",
           "## Operations", "",
           f"Input: {meta['source_photo']} resampled with Pillow LANCZOS to {meta['size']}; every tool gets the same "
           f"pixels (from the PNG). **Sfumato processes 4 channels (RGBA) where OpenCV, libvips and Pillow get "
           f"3-channel images**; in the rows marked grey every tool, Sfumato included (Gray8), works on the same "
           f"1-channel grey image (OpenCV's BT.601 conversion of the photo). Sfumato / fastest > 1 (bold) means "
           f"Sfumato is slower than the fastest peer.", "",
           "| operation | image | what each computes | Sfumato ms | OpenCV ms | libvips ms | Pillow ms | fastest peer | Sfumato / fastest |",
           "|---|---|---|---:|---:|---:|---:|---|---:|"]
    group = None
    for r in rows:
        if r["group"] != group:
            group = r["group"]
            out.append(f"| **{group}** |" + " |" * 8)
        cells = []
        for t in TOOLS:
            c = fmt_ms(r["ms"][t])
            if t in r["excluded_from_ranking"] and r["ms"][t] is not None:
                c += " †"
            n = len(r["samples_ms"][t])
            if 0 < n < meta["rounds"]:
                c += f" (n={n})"
            cells.append(c)
        slower = r["ratio_sfumato_over_fastest"] is not None and r["ratio_sfumato_over_fastest"] > 1
        if slower:
            cells[0] = f"**{cells[0]}**"
        fp = LABEL[r["fastest_peer"]] if r["fastest_peer"] else "—"
        op = r["operation"] + (f" · `{r['filters'][0]}`" if len(r.get("filters") or []) == 1 else "")
        computes = r["computes"]
        if r.get("cli_ms"):
            computes += ("; whole process (`sfumato apply`, start-up and codecs included): "
                         + ", ".join(f"{fmt_ms(v)} ms {k} the filter" for k, v in r["cli_ms"].items()))
        out.append(f"| {op} | {r['image']} | {computes} | " + " | ".join(cells) +
                   f" | {fp} | {ratio_cell(r['ratio_sfumato_over_fastest'])} |")
    out += ["", "† computes something different in kind (see the row): shown for reference, not ranked.", ""]

    if e2e:
        out += ["## End to end (whole process)", "",
                "Load a JPEG, Gaussian blur σ 2, save JPEG q90, one process per run (start-up, decode, filter, "
                "encode, file I/O). Wall time is the median; peak is the largest peak RSS over the runs, in MiB "
                "(wait4 rusage of the process, spawned by a small launcher so that the harness's own memory does "
                "not leak into it; about 10 MiB is the floor). Ratios compare Sfumato with the fastest / leanest peer: in linear light, "
                "Sfumato's default, and (after the slash) on the encoded values, as the peers compute.", "",
                "| image | runs | " + " | ".join(E2E_LABEL[t] for t in E2E_TOOLS) +
                " | fastest peer | Sfumato wall / fastest (linear / none) | Sfumato peak / leanest (linear / none) |",
                "|---|---:|" + "---:|" * len(E2E_TOOLS) + "---|---:|---:|"]
        for e in e2e:
            cells = []
            for t in E2E_TOOLS:
                x = e["tools"][t]
                cells.append("—" if x["wall_s"] is None else f"{x['wall_s']:.2f} s · {x['peak_mib']:.0f} MiB")
            n = max(len(x["runs"]) for x in e["tools"].values())
            fp = E2E_LABEL[e["fastest_peer"]] if e["fastest_peer"] else "—"
            out.append(f"| {e['image']} | {n} | " + " | ".join(cells) + f" | {fp} | "
                       f"{ratio_cell(e.get('wall_ratio_sfumato_linear_over_fastest'))} / "
                       f"{ratio_cell(e['wall_ratio_sfumato_none_over_fastest'])} | "
                       f"{ratio_cell(e.get('peak_ratio_sfumato_linear_over_leanest'))} / "
                       f"{ratio_cell(e['peak_ratio_sfumato_none_over_leanest'])} |")
        out += ["", "Commands:", ""]
        out += [f"- {E2E_LABEL[t]}, {E2E_COMMANDS[t][1]}: `{E2E_COMMANDS[t][0]}`" for t in E2E_TOOLS]
        out.append("")

    fl = meta.get("filters") or {}
    if fl.get("without_row"):
        coverage = (f"- **Coverage.** `sfumato filters` lists {len(fl['listed'])} filters; **no row for: "
                    f"{', '.join(fl['without_row'])}**.")
    elif fl.get("listed"):
        coverage = (f"- **Coverage.** Each of the {len(fl['listed'])} filters that `sfumato filters` lists has a row "
                    f"(the filter name follows the operation; a row without one runs a chain of several): "
                    f"{', '.join(fl['listed'])}. CISourceOverCompositing and histogram-specification take a second "
                    f"image, which sfumato-bench's `filter` command can't load, so their rows give whole-process "
                    f"`sfumato apply` times instead of in-memory ones.")
    else:
        coverage = None
    out += ["## Notes", ""] + ([coverage] if coverage else []) + [
            "- **Like for like.** Sfumato renders RGBA (4 channels) where the peers get RGB (3): it moves a third "
            "more bytes. The crop and the area averages and extremes, which only move or read bytes, give Sfumato the photo "
            "as packed RGB8 (3 bytes a pixel, what `DecodeOptions.packRGB` decodes to), as the peers hold it. "
            "Rows marked “grey” follow the issue's OpenCV targets, which were quoted for grey images: "
            "there Sfumato renders a Gray8 bitmap to Gray8, a byte a pixel, as the peers do.",
            "- **Where it is timed.** Sfumato is timed inside `sfumato-bench` (monotonic clock) around "
            "`RenderContext.render`, which allocates the output bitmap; the filter graph is built before the clock "
            "starts. Its pixel memory keeps the last two large freed blocks and gives one to the next render of the "
            "same size without clearing it (the render writes every byte), so from the second round on the kernel "
            "no longer zeroes fresh pages for Sfumato's output; the peers' allocators hand large outputs back to the "
            "kernel and get fresh (zeroed) pages each call. Peers are timed in Python with `time.perf_counter()` "
            "around one call that allocates its output (a few µs of Python overhead); vips pipelines are forced "
            "with `copy_memory()`, and libvips' operation cache is off.",
            "- **Working space.** 8-bit rows use Sfumato's `none` working space (maths on the sRGB-encoded values, "
            "as OpenCV, vips and Pillow do). Sfumato's default is linear light, which costs a decode/encode of the "
            "transfer function per pixel (compare the two Sfumato end-to-end columns).",
            "- **Codecs.** All the JPEG codecs are libjpeg-turbo based (Sfumato links Debian's libturbojpeg; "
            "opencv-python-headless and pyvips-binary bundle their own builds).",
            "- **Pillow** is single-threaded for these filters; OpenCV, libvips and Sfumato use every core. A tool "
            "that runs past the per-row time budget stops early with fewer samples (shown as n=).",
            "- **End to end** includes process start-up: Python and `import cv2` / PIL for the script rows, the "
            "Debian libvips (not pyvips-binary) for the vips CLI row. Peak RSS of the Python rows includes the "
            "interpreter and libraries.",
            ]
    details = list(dict.fromkeys(r["details"] for r in rows if r["details"]))
    if details:
        out += ["", "What each row runs:", ""] + [f"- {d}" for d in details]
    extra = [f"- {r['operation']}: {n}" for r in rows for n in r["notes"]]
    extra += [f"- End to end {e['image']}: {E2E_LABEL[t]} failed: {x['failed']}"
              for e in e2e for t, x in e["tools"].items() if x["failed"]]
    if extra:
        out += ["", "Per-row notes:", ""] + extra
    out.append("")
    return "\n".join(out)


