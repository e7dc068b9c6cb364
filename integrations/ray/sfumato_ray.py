"""Sfumato batches across a Ray cluster.

The inputs are split into shards (`sfumato batch --shard I/N`, by a hash of each path, so every node
computes the same split); each shard is one Ray task that runs `sfumato batch` on the node it lands
on, against storage every node shares. A task whose node dies is retried elsewhere (Ray's task
retries), and since `sfumato batch` resumes from its shard's manifest, the retry does only what the
dead node had not finished. At the end the shards' manifests are gathered into one, a line an input.

    python integrations/ray/sfumato_ray.py --address auto /shared/photos -o /shared/out -- --thumbnail 400x400

Everything after `--` goes to `sfumato batch` as it is. Needs `ray` (PyPI) on every node and the
`sfumato` binary on each node's PATH (or --sfumato PATH), the inputs and OUTDIR at the same paths on
every node. README.md in this folder says how to start a cluster.
"""
import argparse
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import ray
import ray.cloudpickle

# The tasks travel with their code: a node needs Ray and sfumato, not this file.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])

MANIFESTS = ".sfumato-ray"   # under OUTDIR: one manifest a shard, and the gathered one beside them


class SfumatoStopped(RuntimeError):
    """`sfumato batch` ended without finishing (killed, or its node went away): worth a retry."""


def _die_with_parent():
    """Runs in the child before exec: if the Ray worker that started it dies, so does it (a shard's
    manifest is locked by one batch at a time, and a leftover would hold it)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@ray.remote(num_cpus=1, max_retries=5, retry_exceptions=[SfumatoStopped])
def run_shard(sfumato, inputs, outdir, index, count, batch_args, jobs):
    """One shard on whichever node Ray chose: `sfumato batch ... --shard index/count`."""
    manifest = Path(outdir) / MANIFESTS / f"shard-{index}-of-{count}.jsonl"
    argv = [sfumato, "batch", *inputs, "-o", outdir, "--shard", f"{index}/{count}", "--manifest", str(manifest),
            "--json", "--jobs", str(jobs), *batch_args]
    started = time.monotonic()
    process = subprocess.run(argv, capture_output=True, text=True, preexec_fn=_die_with_parent)
    if process.returncode not in (0, 1):   # 1: some files failed, which the manifest records
        raise SfumatoStopped(f"shard {index}/{count}: sfumato batch exited with {process.returncode}: {process.stderr[-500:]}")
    lines = [json.loads(line) for line in process.stdout.splitlines() if line.startswith("{")]
    summary = next((line for line in reversed(lines) if line.get("event") == "summary"), {})
    return {"shard": index, "node": ray.get_runtime_context().get_node_id(), "seconds": time.monotonic() - started, **summary}


def gather(outdir, count):
    """The shards' manifests as one: each output's last record, a `skipped` one standing for the run
    that did it. Written to OUTDIR/.sfumato-ray/manifest.jsonl; returns the records."""
    final = {}
    done_records = {}
    for index in range(count):
        path = Path(outdir) / MANIFESTS / f"shard-{index}-of-{count}.jsonl"
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:   # a line cut short by a kill
                continue
            if record.get("status") == "done":
                done_records[record["output"]] = done_records.get(record["output"], 0) + 1
            if record.get("status") != "skipped" or record["output"] not in final:
                final[record["output"]] = record
    records = [dict(final[k], done_count=done_records.get(k, 0)) for k in sorted(final)]
    out = Path(outdir) / MANIFESTS / "manifest.jsonl"
    out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    return records


def run(inputs, outdir, batch_args=(), shards=None, sfumato="sfumato", jobs=1):
    """Runs the batch on the connected Ray cluster; returns {records, shards, seconds}."""
    outdir = str(Path(outdir).resolve())
    inputs = [str(Path(p).resolve()) for p in inputs]
    (Path(outdir) / MANIFESTS).mkdir(parents=True, exist_ok=True)
    # More shards than CPUs, so a retried shard is a small part of the work and the load evens out.
    count = shards or max(1, 4 * int(ray.cluster_resources().get("CPU", 1)))
    started = time.monotonic()
    tasks = [run_shard.remote(sfumato, inputs, outdir, i, count, list(batch_args), jobs) for i in range(count)]
    results = ray.get(tasks)
    seconds = time.monotonic() - started
    return {"records": gather(outdir, count), "shards": results, "seconds": seconds}


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    batch_args = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description="Run `sfumato batch` across a Ray cluster.")
    parser.add_argument("inputs", nargs="+", help="files and folders, at the same paths on every node")
    parser.add_argument("-o", "--output", required=True, help="the output folder, shared by every node")
    parser.add_argument("--address", default=os.environ.get("RAY_ADDRESS", "auto"), help="the Ray cluster (default auto)")
    parser.add_argument("--shards", type=int, help="how many tasks (default: 4 a CPU of the cluster)")
    parser.add_argument("--jobs", type=int, default=1, help="files at once within a task (default 1: one task a CPU)")
    parser.add_argument("--sfumato", default="sfumato", help="the sfumato binary on each node")
    args = parser.parse_args(own)
    ray.init(address=args.address)
    result = run(args.inputs, args.output, batch_args, args.shards, args.sfumato, args.jobs)
    records = result["records"]
    failed = [r for r in records if r["status"] == "failed"]
    done = len(records) - len(failed)
    print(f"sfumato on ray: {done} done, {len(failed)} failed, {len(result['shards'])} shards on "
          f"{len({s['node'] for s in result['shards']})} nodes in {result['seconds']:.1f} s "
          f"({done / max(result['seconds'], 1e-9):.1f} files/s); manifest {Path(args.output) / MANIFESTS / 'manifest.jsonl'}")
    for r in failed:
        print(f"failed: {r['input']}: {r.get('reason', 'failed')}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
