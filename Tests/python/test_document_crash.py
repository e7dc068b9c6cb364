"""Crash test for documents: a child process applies a stream of edits and strokes and is
killed with SIGKILL at random moments; after each kill the document must open, pass
`sfumato doc check`, and hold every action the child reported as committed."""
import json
import os
import random
import signal
import subprocess
import time

from conftest import PHOTOS


def test_sigkill_never_loses_committed_work(sfumato, tmp_path):
    doc = tmp_path / "crash.sfumato"
    subprocess.run([sfumato, "doc", "new", str(PHOTOS / "rocket.jpg"), "-o", str(doc)], check=True, capture_output=True)
    rng = random.Random(42)
    kills = 0
    for round_ in range(24):
        child = subprocess.Popen([sfumato, "doc", "stress", str(doc), "--seed", str(round_)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        os.set_blocking(child.stdout.fileno(), False)
        deadline = time.monotonic() + rng.uniform(0.05, 0.6)
        committed = 0
        buffer = b""
        while time.monotonic() < deadline:
            chunk = child.stdout.read()
            if chunk:
                buffer += chunk
            time.sleep(0.005)
        child.send_signal(signal.SIGKILL)
        child.wait()
        # Whatever the child managed to say before dying counts as acknowledged.
        rest = child.stdout.read()
        if rest:
            buffer += rest
        for line in buffer.decode().splitlines():
            if line.startswith("committed "):
                committed = max(committed, int(line.split()[1]))
        kills += 1
        check = subprocess.run([sfumato, "doc", "check", str(doc), "--json"], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        report = json.loads(check.stdout)
        assert report["ok"], report
        assert report["actions"] >= committed, (round_, report, committed)
        assert report["position"] == report["actions"]
    assert kills >= 20
    # The survivor still renders and takes more work.
    subprocess.run([sfumato, "doc", "render", str(doc), "-o", str(tmp_path / "after.png"), "--width", "200"], check=True,
                   capture_output=True)
