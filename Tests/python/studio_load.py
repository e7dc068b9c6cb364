"""A bounded flood against `sfumato studio`, with the figures a user cares about.

While one well-behaved page draws its own strokes and a prober asks for /api/document every 50 ms:
  1. `connections` WebSockets open at once and say hello (most are refused: the studio serves a few pages);
  2. `drawers` clients draw strokes at `rate` pen batches a second each, for `seconds`
     (half of them never read what the server sends them);
then everyone leaves, and the studio's memory is read until it settles.

Prints (and returns) accepted/refused connections, pen batches sent and acknowledged per second,
/api/document response times (p50/p99/max), the page's own pen-to-frame round trips, peak and final
memory, and checks every acknowledged stroke is in the document file with every sample it was sent.

    .venv/bin/python Tests/python/studio_load.py [--connections 200] [--drawers 20] [--seconds 30] [--rate 60]
"""
import argparse
import asyncio
import json
import pathlib
import sqlite3
import struct
import sys
import tempfile
import time
import urllib.request

import websockets

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from conftest import PHOTOS, sfumato_binary  # noqa: E402
from studio_support import Studio  # noqa: E402


def rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values, p):
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(p / 100 * len(s) + 0.5)) - 1))]


def frame_batch(message):
    """The pen batch a binary frame reports, or None."""
    if isinstance(message, bytes) and message[:4] == b"FRM1":
        n = struct.unpack("<I", message[4:8])[0]
        return json.loads(message[8:8 + n]).get("batch")
    return None


def stroke_samples(drawer, stroke, count=24):
    """A stroke's samples: its own row, so the document's copy can be found and compared."""
    y = 20 + (drawer * 37 + stroke * 11) % 380   # inside the 640x427 photo: every batch changes pixels
    return [{"x": 60.0 + 20 * k + 0.25 * drawer, "y": float(y), "pressure": 0.3 + 0.02 * (k % 20), "t": float(k * 16),
             "pointerType": "pen", "buttons": 1} for k in range(count)]


class Figures:
    def __init__(self):
        self.accepted = self.refused = 0
        self.batches_sent = 0
        self.document_times = []
        self.document_failures = 0
        self.own_round_trips = []
        self.acknowledged = []   # (drawer, stroke, samples) of strokes the server confirmed
        self.refused_batches = 0


async def connect(url, figures, hello=True, acks=False):
    try:
        ws = await websockets.connect(url, max_size=None, open_timeout=10, close_timeout=1)
    except Exception:
        figures.refused += 1
        return None
    figures.accepted += 1
    if hello:
        await ws.send(json.dumps({"type": "hello", "viewport": {"width": 800, "height": 600}, "dpr": 1, "acks": acks}))
    return ws


async def drawer(url, index, figures, seconds, rate, reads):
    """Draws strokes of 24 samples, 4 a batch, at `rate` batches a second. A stroke counts as
    acknowledged once a frame reports its last batch (only readers can tell)."""
    ws = await connect(url, figures)
    if ws is None:
        return
    frames_seen = {"batch": -1}
    reader = None
    if reads:
        async def read():
            try:
                async for m in ws:
                    b = frame_batch(m)
                    if b is not None:
                        frames_seen["batch"] = max(frames_seen["batch"], b)
                    elif isinstance(m, str) and json.loads(m).get("type") == "refused":
                        figures.refused_batches += 1
            except websockets.ConnectionClosed:
                pass
        reader = asyncio.create_task(read())
    await ws.send(json.dumps({"type": "mode", "mode": "shade"}))
    await ws.send(json.dumps({"type": "brush", "brush": "pen", "keepStrokes": True}))
    batch, stroke = 1000 * index, 0
    pending = []   # (last batch, stroke, samples) waiting for a frame
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            stroke += 1
            samples = stroke_samples(index, stroke)
            for start in range(0, len(samples), 4):
                batch += 1
                await ws.send(json.dumps({"type": "pen", "phase": "down" if start == 0 else "move", "stroke": stroke,
                                          "batch": batch, "samples": samples[start:start + 4]}))
                figures.batches_sent += 1
                await asyncio.sleep(1 / rate)
            batch += 1
            await ws.send(json.dumps({"type": "pen", "phase": "up", "stroke": stroke, "batch": batch, "samples": []}))
            pending.append((batch, stroke, samples))
            while pending and pending[0][0] - 1 <= frames_seen["batch"]:
                _, s, samples_ = pending.pop(0)
                figures.acknowledged.append((index, s, samples_))
        await asyncio.sleep(1.0)
        while pending and pending[0][0] - 1 <= frames_seen["batch"]:
            _, s, samples_ = pending.pop(0)
            figures.acknowledged.append((index, s, samples_))
    except websockets.ConnectionClosed:
        pass
    finally:
        if reader:
            reader.cancel()
        await ws.close()


async def own_page(url, figures, seconds):
    """The page a user is drawing on: one batch, then the time until a frame shows it."""
    ws = await connect(url, figures)
    if ws is None:
        raise AssertionError("the user's own page was refused")
    got = asyncio.Queue()

    async def read():
        try:
            async for m in ws:
                b = frame_batch(m)
                if b is not None:
                    await got.put(b)
        except websockets.ConnectionClosed:
            pass
    reader = asyncio.create_task(read())
    await ws.send(json.dumps({"type": "mode", "mode": "shade"}))
    end = time.monotonic() + seconds
    batch, stroke = 9_000_000, 0
    while time.monotonic() < end:
        stroke += 1
        samples = stroke_samples(99, stroke, 8)
        for i, phase in enumerate(["down", "move"]):
            batch += 1
            t0 = time.monotonic()
            await ws.send(json.dumps({"type": "pen", "phase": phase, "stroke": stroke, "batch": batch,
                                      "samples": samples[4 * i:4 * i + 4]}))
            try:
                while await asyncio.wait_for(got.get(), 10) < batch:
                    pass
                figures.own_round_trips.append((time.monotonic() - t0) * 1000)
            except TimeoutError:
                figures.own_round_trips.append(10_000.0)
        batch += 1
        await ws.send(json.dumps({"type": "pen", "phase": "up", "stroke": stroke, "batch": batch, "samples": []}))
        await asyncio.sleep(0.2)
    reader.cancel()
    await ws.close()


async def prober(studio, figures, stop):
    def get():
        t0 = time.monotonic()
        with urllib.request.urlopen(studio.base + f"api/document?token={studio.token}", timeout=10) as r:
            r.read()
        return (time.monotonic() - t0) * 1000
    while not stop.is_set():
        try:
            figures.document_times.append(await asyncio.to_thread(get))
        except Exception:
            figures.document_failures += 1
        await asyncio.sleep(0.05)


async def flood(studio, connections, drawers, seconds, rate):
    figures = Figures()
    url = studio.ws_url
    pid = studio.process.pid
    peak = {"rss": 0.0}
    stop = asyncio.Event()

    async def watch():
        while not stop.is_set():
            peak["rss"] = max(peak["rss"], rss_mib(pid))
            await asyncio.sleep(0.1)

    # The user's page first, so the flood meets a studio that is already serving someone.
    probe = asyncio.create_task(prober(studio, figures, stop))
    watcher = asyncio.create_task(watch())
    own = asyncio.create_task(own_page(url, figures, seconds + 4))
    await asyncio.sleep(1.0)
    baseline = rss_mib(pid)
    sockets = await asyncio.gather(*[connect(url, figures) for _ in range(connections)])
    await asyncio.sleep(1.0)
    for ws in sockets:
        if ws is not None:
            await ws.close()
    await asyncio.sleep(0.5)
    t0 = time.monotonic()
    await asyncio.gather(*[drawer(url, i, figures, seconds, rate, reads=i % 2 == 0) for i in range(drawers)])
    elapsed = time.monotonic() - t0
    await own
    stop.set()
    await probe
    await watcher
    # Memory back near where it started once everyone has gone.
    final = rss_mib(pid)
    for _ in range(40):
        await asyncio.sleep(0.25)
        final = rss_mib(pid)
        if final <= baseline * 1.25 + 32:
            break
    return figures, baseline, peak["rss"], final, elapsed


def strokes_in_document(path):
    """Every stroke's samples in the document file, as (x, y) pairs (read-only, beside the studio)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = {}
    for stroke, data in db.execute("SELECT stroke, data FROM samples ORDER BY stroke, batch"):
        for i in range(0, len(data), 40):
            x, y = struct.unpack_from("<ff", data, i)
            out.setdefault(stroke, []).append((x, y))
    db.close()
    return list(out.values())


def run(binary, connections=200, drawers=20, seconds=30, rate=60, folder=None):
    folder = pathlib.Path(folder or tempfile.mkdtemp())
    studio = Studio(binary, PHOTOS / "rocket.jpg", folder).start()
    try:
        figures, baseline, peak, final, elapsed = asyncio.run(flood(studio, connections, drawers, seconds, rate))
        assert studio.process.poll() is None, "the studio died under load"
        doc = studio.document()
    finally:
        studio.stop()
    stored = [[(round(x, 2), round(y, 2)) for x, y in s] for s in strokes_in_document(studio.document_path)]
    missing = 0
    for _, _, samples in figures.acknowledged:
        want = [(round(float(s["x"]), 2), round(float(s["y"]), 2)) for s in samples]
        if want not in stored:
            missing += 1
    result = {
        "connections": connections, "accepted": figures.accepted, "refused": figures.refused,
        "drawers": drawers, "seconds": round(elapsed, 1),
        "batches_sent": figures.batches_sent, "batches_per_second": round(figures.batches_sent / max(elapsed, 1e-9), 1),
        "strokes_acknowledged": len(figures.acknowledged), "acknowledged_strokes_missing": missing,
        "refused_batches": figures.refused_batches,
        "document_requests": len(figures.document_times), "document_failures": figures.document_failures,
        "document_ms_p50": round(percentile(figures.document_times, 50), 1),
        "document_ms_p99": round(percentile(figures.document_times, 99), 1),
        "document_ms_max": round(max(figures.document_times, default=0), 1),
        "own_round_trip_ms_p50": round(percentile(figures.own_round_trips, 50), 1),
        "own_round_trip_ms_p99": round(percentile(figures.own_round_trips, 99), 1),
        "rss_baseline_mib": round(baseline, 1), "rss_peak_mib": round(peak, 1), "rss_final_mib": round(final, 1),
        "strokes_drawn": doc["strokesDrawn"],
    }
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--connections", type=int, default=200)
    p.add_argument("--drawers", type=int, default=20)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--rate", type=float, default=60)
    a = p.parse_args()
    print(json.dumps(run(sfumato_binary(), a.connections, a.drawers, a.seconds, a.rate), indent=2))


if __name__ == "__main__":
    main()
