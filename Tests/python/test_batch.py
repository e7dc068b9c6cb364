"""`sfumato batch` killed and resumed, and across a Ray cluster that loses a node.

A batch killed with SIGKILL at any moment leaves only whole outputs (each written atomically) and a
manifest of what it finished; run again, it does exactly the rest. On Ray (a local cluster: a head
and two worker nodes on this machine, from ray.cluster_utils), a few hundred photos split into
shards, one worker node removed mid-run, and every photo done exactly once at the end.
"""
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from conftest import PHOTOS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "integrations" / "ray"))


def make_photos(folder, count, size=(320, 213)):
    """`count` distinct JPEGs (crops of the bundled photos, each a little different) in two subfolders."""
    sources = [np.asarray(Image.open(PHOTOS / n).convert("RGB")) for n in ("rocket.jpg", "coffee.png", "chelsea.png", "hubble_deep_field.jpg")]
    paths = []
    for i in range(count):
        source = sources[i % len(sources)]
        y, x = (i * 7) % (source.shape[0] - size[1]), (i * 13) % (source.shape[1] - size[0])
        crop = source[y:y + size[1], x:x + size[0]]
        path = folder / f"set-{i % 3}" / f"photo-{i:04d}.jpg"
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(crop).save(path, quality=90)
        paths.append(path)
    return paths


def manifest_records(path):
    """The manifest's whole lines (a line cut short by a kill is not a record)."""
    records = []
    for line in Path(path).read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return records


def outputs(folder):
    """The files under `folder`, relative to it, without hidden ones (manifests, a temporary)."""
    found = (p.relative_to(folder) for p in Path(folder).rglob("*") if p.is_file())
    return sorted(str(p) for p in found if not any(part.startswith(".") for part in p.parts))


def test_sigkill_in_the_middle_then_resume_does_exactly_the_rest(sfumato, tmp_path):
    photos = make_photos(tmp_path / "in", 60)
    out = tmp_path / "out"
    argv = [sfumato, "batch", str(tmp_path / "in"), "-o", str(out), "-f", "gaussian-blur:radius=3", "--jobs", "1", "--json"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    finished = 0
    for line in process.stdout:
        if '"event":"file"' in line:
            finished += 1
            if finished == 20:
                break
    process.send_signal(signal.SIGKILL)
    process.wait()
    manifest = out / ".sfumato-batch.jsonl"
    first = [r for r in manifest_records(manifest) if r["status"] == "done"]
    assert 20 <= len(first) < len(photos)
    # Nothing half-written under its real name: every output there decodes whole.
    for name in outputs(out):
        with Image.open(out / name) as image:
            image.load()
    recorded = {r["output"] for r in first}
    assert recorded <= set(outputs(out))

    again = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout.splitlines()[-1])
    assert summary["event"] == "summary" and summary["failed"] == 0
    assert summary["skipped"] == len(first) and summary["done"] == len(photos) - len(first), summary
    records = [r for r in manifest_records(manifest) if r["status"] == "done"]
    counts = {}
    for r in records:
        counts[r["output"]] = counts.get(r["output"], 0) + 1
    assert sorted(counts) == sorted(str(p.relative_to(tmp_path / "in")) for p in photos)
    assert set(counts.values()) == {1}, "an output was done twice"
    assert not [p for p in out.rglob(".photo-*")], "a temporary was left behind"
    assert outputs(out) == sorted(counts)


@pytest.fixture
def ray_cluster():
    """A head (no CPUs: it only schedules) and two one-CPU worker nodes, on this machine's loopback.
    A dead node is noticed within about a second (the default health check takes 15 s)."""
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "include_dashboard": False,
        "_system_config": {"health_check_period_ms": 300, "health_check_failure_threshold": 3, "health_check_initial_delay_ms": 0},
    })
    workers = [cluster.add_node(num_cpus=1) for _ in range(2)]
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    yield cluster, workers
    ray.shutdown()
    cluster.shutdown()


def test_ray_batch_survives_a_node_removed_mid_run(sfumato, tmp_path, ray_cluster):
    import sfumato_ray

    cluster, workers = ray_cluster
    photos = make_photos(tmp_path / "in", 240)
    out = tmp_path / "out"
    result = {}

    def run():
        result.update(sfumato_ray.run([tmp_path / "in"], out, ["-f", "gaussian-blur:radius=3"], shards=12, sfumato=sfumato))

    driver = threading.Thread(target=run)
    started = time.monotonic()
    driver.start()
    # Once a quarter of the photos are done, one worker node goes away (its raylet and workers killed).
    manifests = out / sfumato_ray.MANIFESTS
    while time.monotonic() - started < 120:
        done = sum(len(manifest_records(p)) for p in manifests.glob("shard-*.jsonl")) if manifests.exists() else 0
        if done >= len(photos) // 4:
            break
        time.sleep(0.05)
    assert done < len(photos), "the batch ended before a node could be removed"
    cluster.remove_node(workers[1], allow_graceful=False)
    driver.join(240)
    assert not driver.is_alive(), "the batch did not finish on the remaining node"

    records = result["records"]
    assert sorted(r["output"] for r in records) == sorted(str(p.relative_to(tmp_path / "in")) for p in photos)
    assert all(r["status"] == "done" for r in records), [r for r in records if r["status"] != "done"][:3]
    assert all(r["done_count"] == 1 for r in records), "a photo was done twice"
    assert outputs(out) == sorted(r["output"] for r in records)
    gathered = manifest_records(manifests / "manifest.jsonl")
    assert len(gathered) == len(photos)
    print(f"ray: {len(photos)} photos in {result['seconds']:.1f} s with a node removed")
