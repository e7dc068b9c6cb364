"""The virtual pencil's cost per frame in headless Chromium: the WebGL capsule (pencil-gl.js) against
the 2D canvas drawing (pencil.js) it replaced as the default, each drawing a moving pose on a canvas
sized as the page sizes it: the main thread's time per frame (what a frame's script costs; both
rasterise later, elsewhere) and the time until the pixels exist (a one-pixel read-back forces them).
Prints the median and p90 milliseconds per frame of each, and which WebGL renderer ran (SwiftShader
here: software, the worst case for WebGL).

    .venv/bin/python Benchmarks/pencil_frame_cost.py [FRAMES]
"""
import asyncio
import json
import pathlib
import sys

from playwright.async_api import async_playwright

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "Tests" / "python"))
from studio_support import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

WEB = pathlib.Path(__file__).resolve().parents[1] / "Sources" / "SfumatoStudio" / "Resources" / "web"

MEASURE = """async ([frames, length, finish]) => {
    const S = window.Sfumato;
    const poses = Array.from({length: frames}, (_, i) => [200 + 40 * Math.sin(i / 9), 200 + 30 * Math.cos(i / 7),
        0.2 + 1.2 * (0.5 + 0.5 * Math.sin(i / 13)), i / 11]);
    function sized(canvas, bounds) {
        const x0 = Math.floor(bounds.left), y0 = Math.floor(bounds.top);
        const w = Math.ceil(bounds.right) - x0 + 32, h = Math.ceil(bounds.bottom) - y0 + 32;
        if (canvas.width < w - 32 || canvas.height < h - 32 || canvas.width > w + 64 || canvas.height > h + 64) {
            canvas.width = w; canvas.height = h;
        }
        return [x0, y0];
    }
    const results = {};
    // 2D: what the page drew before.
    {
        const c = document.createElement('canvas'), ctx = c.getContext('2d');
        const times = [];
        for (const [x, y, alt, az] of poses) {
            const t0 = performance.now();
            const [x0, y0] = sized(c, S.pencilBounds(x, y, alt, az, length));
            ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.clearRect(0, 0, c.width, c.height);
            ctx.setTransform(1, 0, 0, 1, -x0, -y0);
            S.drawPencil(ctx, x, y, alt, az, 1, length);
            if (finish) ctx.getImageData(0, 0, 1, 1);
            times.push(performance.now() - t0);
        }
        results['2d'] = times;
    }
    // WebGL: the capsule.
    {
        const c = document.createElement('canvas');
        const pencil = S.PencilGL.create(c), gl = c.getContext('webgl'), pixel = new Uint8Array(4);
        const info = gl.getExtension('WEBGL_debug_renderer_info');
        results.renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
        const times = [];
        for (const [x, y, alt, az] of poses) {
            const t0 = performance.now();
            const [x0, y0] = sized(c, S.PencilGL.bounds(x, y, alt, az, length));
            pencil.draw(x - x0, y - y0, alt, az, 1, length);
            if (finish) gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
            times.push(performance.now() - t0);
        }
        results.webgl = times;
    }
    return results;
}"""


def summary(times):
    times = sorted(times[10:])   # the first frames warm caches and compile shaders
    return times[len(times) // 2], times[len(times) * 9 // 10]


async def main(frames):
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = await browser.new_page()
        await page.set_content("<html><body></body></html>")
        await page.evaluate("() => { window.Sfumato = {}; }")
        for name in ["pencil", "pencil-gl"]:
            await page.add_script_tag(content=(WEB / f"{name}.js").read_text())
        report = {"frames": frames}
        for finish in [False, True]:
            results = await page.evaluate(MEASURE, [frames, 200, finish])
            report["renderer"] = results["renderer"]
            for kind in ["2d", "webgl"]:
                median, p90 = summary(results[kind])
                report[f"{kind} {'to pixels' if finish else 'main thread'}"] = {"median_ms": round(median, 3), "p90_ms": round(p90, 3)}
        await browser.close()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 400))
