"""Batches: `sfumato batch` against vipsthumbnail and GNU parallel running vips, on the same photos and
the same cores, and `sfumato batch` on a local Ray cluster of one and of two nodes.

    scripts/bench --batch [--count 200] [--rounds 3]

Makes COUNT photos of 6000x4000 (JPEG q90, eight different pictures), then times, interleaved, the
median of ROUNDS whole runs of:
- one photo: the first photo fitted into 400x400: `sfumato thumbnail` against `vipsthumbnail`.
- thumbnail: every photo fitted into 400x400, JPEG q90. Sfumato: `sfumato thumbnail -s 400x400` and
  `sfumato batch --thumbnail 400x400`;
  vipsthumbnail: one process over all files (its own threads), and `parallel vipsthumbnail` (a
  process a file, a job a core); the faster of the two is the peer.
- blur and thumbnail: a Gaussian of sigma 2 (at the photo's size) and the thumbnail. Sfumato:
  `sfumato batch -f gaussian-blur:radius=2 --thumbnail 400x400` (decodes DCT-scaled and blurs with the
  sigma scaled to the decoded size); the peer: `parallel` running `vips thumbnail` then `vips
  gaussblur` with the sigma scaled to the thumbnail (the same work in the order vips does it fastest).
Peak memory is the largest resident size of any process of the run (wait4's ru_maxrss), and per job.
Then the Ray run: the same blur-and-thumbnail batch through integrations/ray/sfumato_ray.py on a
cluster with one worker node and with two (one CPU each), from ray.cluster_utils.

Writes the "## Batches" section of BENCHMARKS.md (bench.py keeps it when it rewrites the rest).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT / "Tests" / "Fixtures" / "photos"
SIZE = (6000, 4000)
BOX = 400
SIGMA = 2.0


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def make_photos(folder, count):
    """COUNT photos of SIZE: eight pictures (the bundled photos enlarged, with a fine grain so they
    compress like camera photos), copied round-robin."""
    base = []
    names = ["rocket.jpg", "coffee.png", "chelsea.png", "hubble_deep_field.jpg", "astronaut.png", "camera.png"]
    rng = np.random.default_rng(7)
    for i in range(8):
        path = folder / "base" / f"base-{i}.jpg"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            picture = Image.open(PHOTOS / names[i % len(names)]).convert("RGB").resize(SIZE, Image.LANCZOS)
            if i >= len(names):
                picture = picture.transpose(Image.FLIP_LEFT_RIGHT)
            pixels = np.asarray(picture).astype(np.int16) + rng.integers(-6, 7, size=(SIZE[1], SIZE[0], 1), dtype=np.int16)
            Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(path, quality=90)
        base.append(path)
    photos = folder / "photos"
    if photos.exists() and len(list(photos.glob("*.jpg"))) == count:
        return sorted(photos.glob("*.jpg"))
    shutil.rmtree(photos, ignore_errors=True)
    photos.mkdir(parents=True)
    for i in range(count):
        shutil.copyfile(base[i % len(base)], photos / f"photo-{i:04d}.jpg")
    return sorted(photos.glob("*.jpg"))


def timed(argv, **kw):
    """Runs a command; (seconds, peak resident MiB of its largest process)."""
    started = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - started
    stderr = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv[0]} failed: {stderr[-800:]}")
    return seconds, usage.ru_maxrss / 1024


def fresh(folder):
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def runs(sfumato, photos, work, cores):
    """The commands of each row, each a function(out folder) -> argv."""
    listing = work / "list.txt"
    listing.write_text("".join(f"{p}\n" for p in photos))
    scale = BOX / max(SIZE)
    shell = (f"vips thumbnail {{}} {work}/shm/{{/.}}.v {BOX} && "
             f"vips gaussblur {work}/shm/{{/.}}.v {{OUT}}/{{/.}}.jpg[Q=90] {SIGMA * scale:.4f} && rm {work}/shm/{{/.}}.v")
    return {
        "one photo": {
            "sfumato thumbnail": lambda out: [sfumato, "thumbnail", str(photos[0]), "-s", f"{BOX}x{BOX}", "-o", str(out),
                                              "--quality", "90"],
            "vipsthumbnail": lambda out: ["vipsthumbnail", "--size", f"{BOX}x{BOX}", "-o", f"{out}/%s.jpg[Q=90]", str(photos[0])],
        },
        "thumbnail": {
            "sfumato thumbnail": lambda out: [sfumato, "thumbnail", *map(str, photos), "-s", f"{BOX}x{BOX}", "-o", str(out),
                                              "--quality", "90", "--jobs", str(cores)],
            "sfumato batch": lambda out: [sfumato, "batch", "--from", str(listing), "-o", str(out), "--thumbnail", f"{BOX}x{BOX}",
                                          "--quality", "90", "--jobs", str(cores)],
            "vipsthumbnail": lambda out: ["vipsthumbnail", "--size", f"{BOX}x{BOX}", "-o", f"{out}/%s.jpg[Q=90]", *map(str, photos)],
            "parallel vipsthumbnail": lambda out: ["parallel", "-j", str(cores), "--will-cite", "vipsthumbnail", "--size", f"{BOX}x{BOX}",
                                                   "-o", f"{out}/%s.jpg[Q=90]", "{}", "::::", str(listing)],
        },
        "blur and thumbnail": {
            "sfumato batch": lambda out: [sfumato, "batch", "--from", str(listing), "-o", str(out), "-f", f"gaussian-blur:radius={SIGMA}",
                                          "--thumbnail", f"{BOX}x{BOX}", "--quality", "90", "--jobs", str(cores)],
            "parallel vips": lambda out: ["parallel", "-j", str(cores), "--will-cite", shell.replace("{OUT}", str(out)), "::::", str(listing)],
        },
    }


def ray_throughput(sfumato, photos, work, nodes):
    """Seconds for the blur-and-thumbnail batch on a local Ray cluster of `nodes` one-CPU workers."""
    import ray
    from ray.cluster_utils import Cluster

    sys.path.insert(0, str(ROOT / "integrations" / "ray"))
    import sfumato_ray

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(nodes):
        cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    try:
        folder = fresh(work / f"ray-{nodes}")
        result = sfumato_ray.run(photos, folder, ["-f", f"gaussian-blur:radius={SIGMA}", "--thumbnail", f"{BOX}x{BOX}"],
                                 shards=8 * nodes, sfumato=sfumato)
        records = result["records"]
        bad = [r for r in records if r["status"] != "done"]
        assert not bad and len(records) == len(photos), f"{len(records)} records of {len(photos)}; not done: {bad[:3]}"
        return result["seconds"]
    finally:
        ray.shutdown()
        cluster.shutdown()


def section(meta, table, ray_rows):
    out = ["## Batches", "",
           f"Produced by `{meta['command']}` on {meta['date']}: {meta['count']} photos of {SIZE[0]}x{SIZE[1]} (JPEG q90), "
           f"{meta['cores']} cores, medians of {meta['rounds']} interleaved runs of the whole batch (wall time, one run a "
           f"command). Thumbnails fit {BOX}x{BOX}, JPEG q90; the blur is a Gaussian of sigma {SIGMA} at the photo's size. "
           "Peak memory: the largest resident size of any process of the run; per job: that, for Sfumato's one process "
           f"running {meta['cores']} files at once, divided by {meta['cores']}.", "",
           "| batch | tool | seconds | photos/s | peak MiB (per job) | Sfumato's speed-up |", "|---|---|---:|---:|---:|---:|"]
    for row, tools in table.items():
        # The speed-up is the peer's time over Sfumato's fastest way to do the same batch.
        ours = min(f["seconds"] for tool, f in tools.items() if tool.startswith("sfumato"))
        photos = 1 if row == "one photo" else meta["count"]
        for tool, f in tools.items():
            mine = tool.startswith("sfumato")
            per_job = f["peak_mib"] / meta["cores"] if mine and photos > 1 else f["peak_mib"]
            speed = "" if mine else f"{f['seconds'] / ours:.2f}x"
            out.append(f"| {row} | {tool} | {f['seconds']:.2f} | {photos / f['seconds']:.1f} | "
                       f"{f['peak_mib']:.0f} ({per_job:.0f}) | {speed} |")
    if ray_rows:
        out += ["", "On Ray (integrations/ray/sfumato_ray.py, a local cluster from ray.cluster_utils, one CPU a worker node, "
                "blur and thumbnail, one run each, Ray's start-up not counted):", "",
                "| worker nodes | seconds | photos/s | scaling |", "|---:|---:|---:|---:|"]
        one = ray_rows.get(1)
        for n, s in sorted(ray_rows.items()):
            out.append(f"| {n} | {s:.2f} | {meta['count'] / s:.1f} | {one / s:.2f}x |")
    return "\n".join(out) + "\n"


def write_section(text):
    path = ROOT / "BENCHMARKS.md"
    old = path.read_text() if path.exists() else "# Sfumato benchmarks\n"
    start = old.find("## Batches")
    if start >= 0:
        end = old.find("\n## ", start + 1)
        old = old[:start] + (old[end + 1:] if end >= 0 else "")
    path.write_text(old.rstrip("\n") + "\n\n" + text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", default=str(ROOT / "Benchmarks" / "work" / "batch"))
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--make-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make_only:
        make_photos(Path(args.work), args.count)
        return
    for tool in ("vips", "vipsthumbnail", "parallel"):
        if not shutil.which(tool):
            sys.exit(f"batch_bench: needs {tool} (Debian: libvips-tools, parallel)")
    sfumato = str(ROOT / ".build" / "release" / "sfumato")
    cores = len(os.sched_getaffinity(0))
    work = Path(args.work)
    log(f"batch_bench: making {args.count} photos of {SIZE[0]}x{SIZE[1]} in {work}")
    # In a child: this process forks every measured command, and a fork's peak resident size starts
    # with its parent's pages, so the parent must stay small.
    subprocess.run([sys.executable, __file__, "--make-only", "--count", str(args.count), "--work", str(work)], check=True)
    photos = sorted((work / "photos").glob("*.jpg"))
    (work / "shm").mkdir(exist_ok=True)
    commands = runs(sfumato, photos, work, cores)
    results = {row: {tool: [] for tool in tools} for row, tools in commands.items()}
    for r in range(args.rounds):
        for row, tools in commands.items():
            for tool, argv in tools.items():
                out = fresh(work / "out")
                seconds, peak = timed(argv(out))
                made = len(list(out.glob("*.jpg")))
                wanted = 1 if row == "one photo" else len(photos)
                assert made == wanted, f"{tool}: {made} of {wanted} outputs"
                results[row][tool].append((seconds, peak))
                log(f"round {r + 1}: {row}: {tool}: {seconds:.2f} s, {peak:.0f} MiB")
    table = {row: {tool: {"seconds": statistics.median(s for s, _ in v), "peak_mib": max(p for _, p in v)}
                   for tool, v in tools.items()} for row, tools in results.items()}
    ray_rows = {}
    if not args.no_ray:
        for nodes in (1, 2):
            ray_rows[nodes] = ray_throughput(sfumato, photos, work, nodes)
            log(f"ray: {nodes} node(s): {ray_rows[nodes]:.2f} s")
    meta = {"command": "scripts/bench --batch" + (f" --count {args.count}" if args.count != 200 else "")
            + (f" --rounds {args.rounds}" if args.rounds != 3 else "") + (" --no-ray" if args.no_ray else ""),
            "date": time.strftime("%Y-%m-%d"), "count": len(photos), "cores": cores, "rounds": args.rounds}
    text = section(meta, table, ray_rows)
    write_section(text)
    (ROOT / "Benchmarks" / "batch-results.json").write_text(json.dumps({"meta": meta, "table": table, "ray": ray_rows}, indent=2) + "\n")
    print(text)


if __name__ == "__main__":
    main()
