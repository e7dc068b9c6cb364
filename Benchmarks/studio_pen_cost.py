"""Server CPU per Adjust pen batch: `sfumato studio` on a 1920x1280 photo, driven over its WebSocket
without a browser (hue-saturation held; 4 samples a batch at 90 batches a second; every frame
acknowledged at once, as a page that keeps up would). Prints the server's CPU time per batch and per
frame (from /proc), a stable number where browser-driven latency figures are noisy.

    SFUMATO=.build/release/sfumato .venv/bin/python Benchmarks/studio_pen_cost.py [BATCHES]
"""
import asyncio
import json
import os
import pathlib
import struct
import sys
import tempfile

import websockets

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "Tests" / "python"))
from studio_support import PHOTO_SIZE, PHOTOS, Studio  # noqa: E402


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(url, pid, batches):
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "viewport": {"width": 1280, "height": 744}, "dpr": 1,
                                  "acks": True, "rawRegions": True}))
        await ws.send(json.dumps({"type": "mode", "mode": "adjust"}))
        await ws.send(json.dumps({"type": "hold", "pair": "hue-saturation"}))
        frames = 0

        async def acknowledge():
            nonlocal frames
            async for message in ws:
                if isinstance(message, bytes) and message[:4] == b"FRM1":
                    length = struct.unpack("<I", message[4:8])[0]
                    frames += 1
                    await ws.send(json.dumps({"type": "drawn", "seq": json.loads(message[8:8 + length])["seq"]}))

        reader = asyncio.create_task(acknowledge())
        await asyncio.sleep(1.0)   # the first frames, the preview's first render
        cpu0, frames0 = cpu_seconds(pid), frames
        for i in range(batches):
            samples = [{"x": 600 + i % 300 + k, "y": 500, "pressure": 0.5, "altitude": 0.9 + 0.0005 * (i % 200),
                        "azimuth": 0.1, "twist": 0, "tangentialPressure": 0, "pointerType": "pen", "buttons": 1,
                        "t": i * 16 + k, "coalesced": k < 3} for k in range(4)]
            await ws.send(json.dumps({"type": "pen", "phase": "down" if i == 0 else "move", "stroke": 1,
                                      "batch": i + 1, "samples": samples, "predicted": []}))
            await asyncio.sleep(1 / 90)
        await asyncio.sleep(0.5)
        cpu, count = cpu_seconds(pid) - cpu0, frames - frames0
        reader.cancel()
        return cpu, count


def main():
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    binary = os.environ.get("SFUMATO", ".build/release/sfumato")
    folder = pathlib.Path(tempfile.mkdtemp())
    from PIL import Image
    photo = folder / "rocket-1920.png"
    Image.open(PHOTOS / "rocket.jpg").convert("RGB").resize(PHOTO_SIZE, Image.LANCZOS).save(photo)
    server = Studio(binary, photo, folder).start()
    try:
        cpu, frames = asyncio.run(measure(server.ws_url, server.process.pid, batches))
    finally:
        server.stop()
    print(f"{batches} pen batches, {frames} frames: server CPU {cpu * 1000:.0f} ms, "
          f"{cpu * 1000 / batches:.2f} ms a batch, {cpu * 1000 / max(frames, 1):.2f} ms a frame")


if __name__ == "__main__":
    main()
