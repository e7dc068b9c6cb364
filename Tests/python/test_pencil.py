"""The virtual pencil drawn by the studio's page in headless Chromium: the WebGL capsule's raster (its
projected length follows cos(altitude), its body points along the azimuth, the light sits upper left
so its lit side turns as the pencil does), and which renderer the page picks: WebGL on a GPU, the 2D
drawing where WebGL is software (as here: SwiftShader), either when the URL asks."""
import math

from studio_support import Tab, pencil_alpha, until_async

LENGTH = 120          # canvas pixels per unit of the capsule's height
CAP = 0.05 * LENGTH   # its cap radius, pixels

# Draws the pencil in a pose on a canvas of its own and returns its alpha and luminance, row by row.
DRAW = """([altitude, azimuth, length]) => {
    const c = document.createElement('canvas');
    c.width = c.height = 2 * length + 40;
    const pencil = window.Sfumato.PencilGL.create(c);
    if (!pencil) return null;
    const tip = length + 20;
    pencil.draw(tip, tip, altitude, azimuth, 1, length);
    const gl = c.getContext('webgl');
    const pixels = new Uint8Array(c.width * c.height * 4);
    gl.readPixels(0, 0, c.width, c.height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
    const alpha = [], light = [];
    for (let y = c.height - 1; y >= 0; y--) {          // readPixels starts at the bottom row
        const a = [], l = [];
        for (let x = 0; x < c.width; x++) {
            const i = 4 * (y * c.width + x);
            a.push(pixels[i + 3]);
            l.push(pixels[i + 3] ? (pixels[i] + pixels[i + 1] + pixels[i + 2]) / 3 / pixels[i + 3] : 0);   // 0...1, unpremultiplied
        }
        alpha.push(a); light.push(l);
    }
    return {alpha, light, tip};
}"""


def extent(alpha, tip, axis):
    """How far the pencil reaches from the tip (a pixel corner) along +x (axis 0) or +y (axis 1), and
    behind it: to the far side of the last pixel whose centre it covers (at least half alpha)."""
    covered = [(x, y) for y, row in enumerate(alpha) for x, a in enumerate(row) if a >= 128]
    along = [(x if axis == 0 else y) for x, y in covered]
    return max(along) + 1 - tip, tip - min(along)


def test_capsule_projects_to_cos_altitude_along_the_azimuth(studio, run):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        for altitude in [0.1, 0.5, 0.9, 1.3]:
            for azimuth, axis in [(0, 0), (math.pi / 2, 1)]:
                drawn = await tab.page.evaluate(DRAW, [altitude, azimuth, LENGTH])
                ahead, behind = extent(drawn["alpha"], drawn["tip"], axis)
                # The silhouette: the near cap's disc about r cos(a), the far one's about (1 - r) cos(a), each of radius r.
                expected = (LENGTH - CAP) * math.cos(altitude) + CAP
                assert abs(ahead - expected) <= 1, f"altitude {altitude}, azimuth {azimuth}: reaches {ahead}, expected {expected:.1f}"
                assert abs(behind - (CAP - CAP * math.cos(altitude))) <= 1, f"behind the tip {behind}"
    run(scenario)


def test_the_lit_side_turns_with_the_azimuth(studio, run):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        for azimuth, side in [(0, (0, -1)), (math.pi / 2, (-1, 0)), (math.pi, (0, -1)), (-math.pi / 2, (-1, 0))]:
            drawn = await tab.page.evaluate(DRAW, [0.3, azimuth, LENGTH])
            tip, light = drawn["tip"], drawn["light"]
            # Across the body halfway along it: the light (upper left, in front) brightens the side facing it.
            mid = 0.5 * LENGTH * math.cos(0.3)
            cx, cy = tip + mid * math.cos(azimuth), tip + mid * math.sin(azimuth)
            lit = light[round(cy + 0.6 * CAP * side[1])][round(cx + 0.6 * CAP * side[0])]
            dark = light[round(cy - 0.6 * CAP * side[1])][round(cx - 0.6 * CAP * side[0])]
            assert lit > dark + 0.15, f"azimuth {azimuth}: lit side {lit:.2f}, far side {dark:.2f}"
            # Ambient 15%: even the far side of the warm-white body is not black.
            assert dark > 0.15, f"azimuth {azimuth}: far side {dark:.2f}"
    run(scenario)


def test_the_page_picks_its_pencil_renderer(studio, run):
    async def scenario(context):
        def url(query):
            return studio.url + ("&" if "?" in studio.url else "?") + query if query else studio.url
        for query, expected in [(None, "2d"), ("pencil=webgl", "webgl"), ("pencil=2d", "2d")]:
            tab = await Tab.open(context, url(query))
            software = await tab.page.evaluate("() => window.Sfumato.util.rendersInSoftware()")
            assert software, "headless Chromium here renders WebGL in software"
            renderer = await tab.page.evaluate("() => document.getElementById('pencil-canvas').dataset.renderer")
            assert renderer == expected, f"{query}: {renderer}"
            await tab.page.close()
    run(scenario)


def test_webgl_pencil_follows_the_pen_and_fades(studio, run):
    """The page's own WebGL pencil, end to end: it fades in under a held pair, lies along the pen's
    azimuth (leaning right here) and fades out when the pair is let go."""
    async def scenario(context):
        tab = await Tab.open(context, studio.url + ("&" if "?" in studio.url else "?") + "pencil=webgl")
        page = tab.page
        to_client = await tab.mapper()
        cx, cy = to_client(960, 640)
        await page.keyboard.down("1")
        pose = {"tilt": (40, 0), "force": 0.4}
        await tab.pen.down(cx, cy, **pose)
        await tab.pen.moves([(cx + 6 * i, cy) for i in range(1, 13)], **pose)
        tip_x, tip_y = cx + 72, cy
        await page.wait_for_timeout(350)   # faded in (0.25 s)
        await tab.screenshot("pencil-webgl")
        pencil = await pencil_alpha(tab, tip_x, tip_y)
        assert pencil["tip"] > 0, "no virtual pencil at the contact point"
        assert pencil["along"] > pencil["against"], "the pencil's body must lie along the azimuth (to the right here)"
        await tab.pen.up(tip_x, tip_y, **pose)
        await page.keyboard.up("1")
        # It fades out over 0.25 s of animation frames (however slowly a loaded machine draws them).
        await until_async(lambda: pencil_alpha(tab, tip_x, tip_y), lambda p: p["tip"] == 0, "the virtual pencil to fade out", timeout=20)
    run(scenario)
