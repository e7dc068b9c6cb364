import Foundation
import SfumatoCore
import SfumatoInk
import SfumatoTestSupport
import Testing

/// A straight horizontal stroke of `n` samples from x0 to x1 at height y.
func line(
    _ n: Int, x0: Double = 20, x1: Double = 380, y: Double = 50, pressure: Double = 0.5, altitude: Double = .pi / 2,
    azimuth: Double = 0, kind: PointerKind = .pen
) -> [PenSample] {
    (0..<n).map { k in
        PenSample(
            x: x0 + (x1 - x0) * Double(k) / Double(max(n - 1, 1)), y: y, pressure: pressure, altitude: altitude,
            azimuth: azimuth, pointerKind: kind, timestamp: Double(k) * 4)
    }
}

/// Premultiplied float pixel of a layer.
func px(_ layer: InkLayer, _ x: Int, _ y: Int) -> SIMD4<Float> {
    layer.accumulator.bitmap.pixel(x: x, y: y)
}

func hue(_ c: SIMD3<Float>) -> Double {
    let mx = max(c.x, c.y, c.z), mn = min(c.x, c.y, c.z), d = Double(mx - mn)
    if d == 0 { return 0 }
    var h: Double
    if mx == c.x { h = Double(c.y - c.z) / d } else if mx == c.y { h = 2 + Double(c.z - c.x) / d } else { h = 4 + Double(c.x - c.y) / d }
    h /= 6
    return h < 0 ? h + 1 : h
}

@Suite("Ink")
struct InkTests {
    @Test("a straight force-pen stroke at pressure p is 20p pixels wide and has hue p", arguments: [0.1, 0.25, 0.5, 0.75, 0.95])
    func forcePen(p: Double) throws {
        let layer = try InkLayer(width: 400, height: 100)
        layer.draw(Stroke(brush: BrushSettings(kind: .forcePen), samples: line(60, pressure: p)))
        for x in [100, 200, 300] {
            let width = (0..<100).reduce(0.0) { $0 + Double(px(layer, x, $1).w) }
            #expect(abs(width - 20 * p) <= 0.5, "pressure \(p): \(width) px wide at x \(x)")
        }
        let c = px(layer, 200, 50)
        #expect(abs(hue(SIMD3(c.x, c.y, c.z) / c.w) - p) < 0.01 || abs(hue(SIMD3(c.x, c.y, c.z) / c.w) - p + 1) < 0.01)
        // A mouse (no pressure hardware): 10 wide and grey.
        let mouse = try InkLayer(width: 400, height: 100)
        mouse.draw(Stroke(brush: BrushSettings(kind: .forcePen), samples: line(60, pressure: 0.5, kind: .mouse)))
        let w = (0..<100).reduce(0.0) { $0 + Double(px(mouse, 200, $1).w) }
        #expect(abs(w - 10) <= 0.5)
        let g = px(mouse, 200, 50)
        #expect(abs(g.x - 0.5) < 0.01 && abs(g.y - 0.5) < 0.01 && abs(g.z - 0.5) < 0.01)
    }

    @Test("pencil: line width force x 4 upright; shading width by altitude and opacity force / 4 (of the sheen) when tilted")
    func pencil() throws {
        let pressure = 0.5, force = pressure * 4.17
        let upright = try InkLayer(width: 400, height: 100)
        upright.draw(Stroke(brush: BrushSettings(kind: .pencil), samples: line(40, pressure: pressure, altitude: 1.2)))
        let lineWidth = (0..<100).reduce(0.0) { $0 + Double(px(upright, 200, $1).w) }
        #expect(abs(lineWidth - force * 4) <= 0.5, "line \(lineWidth)")
        for altitude in [0.1, 0.25, 0.35, 0.45] {
            let layer = try InkLayer(width: 400, height: 140)
            layer.draw(Stroke(brush: BrushSettings(kind: .pencil), samples: line(40, y: 70, pressure: pressure, altitude: altitude)))
            let a = max(0.25, altitude), n = (a - 0.25) / (Double.pi / 6 - 0.25)
            let expected = max(60 * (1 - n), 5)
            // Width: the mean tone across the stroke is half its inside level at the radius.
            let rows = (0..<140).map { y in (100..<300).reduce(0.0) { $0 + Double(px(layer, $1, y).w) } / 200 }
            // (The level over the inner half; the crossing found coming in from outside: the inside's streaks vary.)
            let level = rows[(70 - Int(expected / 4))...(70 + Int(expected / 4))].reduce(0, +) / Double(2 * Int(expected / 4) + 1)
            let half = (71..<140).last { rows[$0] >= level / 2 }!
            let below = Double(half) + (rows[half] - level / 2) / (rows[half] - rows[half + 1])
            #expect(abs(2 * (below - 70) - expected) <= 1.5, "altitude \(altitude): \(2 * (below - 70)) wide, expected \(expected)")
            // Opacity: where the tooth is fully filled, one pass leaves force / 4 of graphite's sheen.
            var inside: [Float] = []
            for y in (70 - Int(expected / 4))..<(70 + Int(expected / 4)) {
                for x in 100..<300 { inside.append(px(layer, x, y).w) }
            }
            let full = inside.max()!
            #expect(abs(Double(full) - force / 4 * Double(Pencil.graphiteSheen)) < 0.01, "altitude \(altitude): opacity \(full)")
        }
    }

    @Test("one translucent stroke has no darker beads where its pieces overlap; two strokes do build up")
    func beadsAndBuildUp() throws {
        let dense = try InkLayer(width: 400, height: 140)
        dense.draw(Stroke(brush: BrushSettings(kind: .pencil), samples: line(300, y: 70, pressure: 0.3, altitude: 0.3)))
        let sparse = try InkLayer(width: 400, height: 140)
        sparse.draw(Stroke(brush: BrushSettings(kind: .pencil), samples: line(2, y: 70, pressure: 0.3, altitude: 0.3)))
        var worst: Float = 0
        for x in 40..<360 { for y in 60..<80 { worst = max(worst, abs(px(dense, x, y).w - px(sparse, x, y).w)) } }
        #expect(worst < 1e-4, "dense and sparse strokes differ by \(worst)")
        let twice = try InkLayer(width: 400, height: 140)
        let s = Stroke(brush: BrushSettings(kind: .pencil), samples: line(50, y: 70, pressure: 0.3, altitude: 0.3))
        func meanAlpha() -> Float { (100..<300).reduce(0) { $0 + px(twice, $1, 70).w } / 200 }
        twice.draw(s)
        let once = meanAlpha()
        twice.draw(s)
        #expect(meanAlpha() > once * 1.6, "one stroke \(once), two \(meanAlpha())")
    }

    @Test("the eraser clears")
    func eraser() throws {
        let layer = try InkLayer(width: 400, height: 100)
        layer.draw(Stroke(brush: BrushSettings(kind: .pen, color: "#204080", width: [8, 8]), samples: line(30)))
        #expect(px(layer, 200, 50).w == 1)
        layer.draw(Stroke(brush: BrushSettings(kind: .eraser, width: [30, 30]), samples: line(20, x0: 150, x1: 250)))
        #expect(px(layer, 200, 50).w == 0)
        #expect(px(layer, 100, 50).w == 1)
    }

    @Test("ForceSketch's fade whitens strokes (the original's formula) on a white canvas")
    func fadeWhiten() throws {
        let layer = try InkLayer(width: 200, height: 100, format: .rgba8)
        layer.draw(Stroke(brush: BrushSettings(kind: .forcePen), samples: line(40, x0: 20, x1: 180, pressure: 2.0 / 3)))
        let before = px(layer, 100, 50)
        #expect(before.z > 0.9 && before.x < 0.1)  // blue
        for _ in 0..<20 { layer.fadeStep(.whiten) }
        let after = px(layer, 100, 50)
        #expect(after.x / after.w > 0.95 && after.y / after.w > 0.95, "colour \(after / after.w)")  // white
    }

    @Test(
        "fade steps make the layer converge to empty within about a second of frames, never growing in alpha",
        arguments: [PixelFormat.rgba8, .rgbaFloat32])
    func fade(format: PixelFormat) throws {
        let layer = try InkLayer(width: 200, height: 100, format: format)
        layer.draw(Stroke(brush: BrushSettings(kind: .forcePen), samples: line(40, x0: 20, x1: 180, pressure: 0.8)))
        var previous: Float = 1
        var steps = 0
        while steps < 2000 {
            let m = layer.fadeStep()
            #expect(m <= previous + 1e-6)
            previous = m
            steps += 1
            if m == 0 { break }
        }
        #expect(previous == 0, "still \(previous) after \(steps) steps")
        #expect(layer.isEmpty)
        #expect(steps > 10 && steps <= 60, "\(steps) steps")  // a visible fade, gone within a second at 60 fps
    }

    @Test(
        "a fade limited to the ink's rectangle gives the whole layer's fade, whatever the other buffer held",
        arguments: [PixelFormat.rgba8, .rgbaFloat32])
    func fadeInRegion(format: PixelFormat) throws {
        let stroke = Stroke(brush: BrushSettings(kind: .forcePen), samples: line(30, x0: 150, x1: 330, y: 60, pressure: 0.7))
        let whole = try InkLayer(width: 360, height: 140, format: format)
        whole.draw(stroke)
        // The limited layer faded another stroke first and was cleared, as the studio does: its
        // second buffer still holds that fade's last frame, far from the new stroke.
        let limited = try InkLayer(width: 360, height: 140, format: format)
        var ink = limited.draw(Stroke(brush: BrushSettings(kind: .forcePen), samples: line(20, x0: 10, x1: 90, y: 100)))
        for _ in 0..<4 {
            limited.fadeStep(inkIn: ink)
            ink = ink.insetBy(dx: -3, dy: -3)
        }
        limited.clear()
        ink = limited.draw(stroke)
        for step in 0..<30 {
            let a = whole.fadeStep(), b = limited.fadeStep(inkIn: ink)
            ink = ink.insetBy(dx: -3, dy: -3)
            #expect(a == b, "step \(step)")
            let x = whole.accumulator.bitmap, y = limited.accumulator.bitmap
            let same = (0..<x.height).allSatisfy { memcmp(x.row($0), y.row($0), x.width * x.format.bytesPerPixel) == 0 }
            #expect(same, "step \(step): the layers differ")
            if !same || a == 0 { break }
        }
    }

    @Test("incremental rendering, batch by batch, equals rendering the whole stroke at once", arguments: [BrushKind.forcePen, .pencil, .pen])
    func incremental(kind: BrushKind) throws {
        var samples: [PenSample] = []
        for k in 0..<120 {
            let t = Double(k) / 119
            samples.append(
                PenSample(
                    x: 30 + 300 * t, y: 100 + 60 * sin(t * 7), pressure: 0.2 + 0.7 * t, altitude: 0.3 + 1.2 * t,
                    azimuth: t * 3, timestamp: Double(k)))
        }
        let settings = BrushSettings(kind: kind, color: "#336699")
        let full = try InkLayer(width: 360, height: 220)
        full.draw(Stroke(brush: settings, samples: samples))
        let incremental = try InkLayer(width: 360, height: 220)
        let r = incremental.begin(settings)
        var i = 0, batch = 1
        var dirtyUnion = Rect.zero
        while i < samples.count {
            let n = min(batch, samples.count - i)
            dirtyUnion = dirtyUnion.union(r.append(Array(samples[i..<(i + n)])))
            i += n
            batch = batch % 5 + 1
        }
        dirtyUnion = dirtyUnion.union(r.finish())
        incremental.commit(r)
        #expect(incremental.accumulator.bitmap == full.accumulator.bitmap)
        // Every changed pixel was inside some reported dirty rectangle.
        for y in 0..<220 { for x in 0..<360 where px(full, x, y).w > 0 { #expect(dirtyUnion.contains(x: x, y: y)) } }
    }

    @Test("a discarded stroke composites nothing, and the tiles it gives back draw the next stroke clean")
    func discard() throws {
        let settings = BrushSettings(kind: .forcePen, color: "#336699")
        let first = try InkLayer(width: 400, height: 100)
        first.draw(Stroke(brush: settings, samples: line(60, pressure: 0.8)))
        let layer = try InkLayer(width: 400, height: 100)
        let r = layer.begin(settings)
        r.append(line(60, pressure: 0.8))
        #expect(!r.bounds.isEmpty)
        r.discard()
        #expect(r.isFinished && r.bounds.isEmpty)
        #expect(layer.commit(r) == .zero && layer.isEmpty)
        // The same stroke again, on tiles that just came back from the discarded one.
        layer.draw(Stroke(brush: settings, samples: line(60, pressure: 0.8)))
        #expect(layer.accumulator.bitmap == first.accumulator.bitmap)
    }

    @Test("W3C tilt <-> altitude/azimuth at the special angles and in each quadrant")
    func tilt() {
        let cases: [(Double, Double, Double, Double)] = [
            (0, 0, .pi / 2, 0), (90, 0, 0, 0), (-90, 0, 0, .pi), (0, 90, 0, .pi / 2), (0, -90, 0, 3 * .pi / 2),
            (40, 0, .pi / 2 - 40 * .pi / 180, 0), (0, -30, .pi / 2 - 30 * .pi / 180, 3 * .pi / 2),
            (45, 45, atan(1 / 2.0.squareRoot()), .pi / 4), (-45, 45, atan(1 / 2.0.squareRoot()), 3 * .pi / 4),
            (-45, -45, atan(1 / 2.0.squareRoot()), 5 * .pi / 4), (45, -45, atan(1 / 2.0.squareRoot()), 7 * .pi / 4),
            (90, 30, 0, 0)
        ]
        for (tx, ty, alt, az) in cases {
            let (a, z) = PenSample.angles(tiltX: tx, tiltY: ty)
            #expect(abs(a - alt) < 1e-9 && abs(z - az) < 1e-9, "tilt (\(tx), \(ty)) -> (\(a), \(z))")
        }
        for (tx, ty) in [(10.0, 20.0), (-30, 15), (-5, -60), (70, -10), (0, 45), (45, 0)] {
            let (a, z) = PenSample.angles(tiltX: tx, tiltY: ty)
            let back = PenSample.tilt(altitude: a, azimuth: z)
            #expect(abs(back.tiltX - tx) < 1e-9 && abs(back.tiltY - ty) < 1e-9)
        }
        // The JSON form accepts tiltX/tiltY instead of the angles.
        let s = try! JSONDecoder().decode(PenSample.self, from: Data(#"{"x": 1, "y": 2, "tiltX": 40, "tiltY": 0}"#.utf8))
        #expect(abs(s.altitude - (Double.pi / 2 - 40 * .pi / 180)) < 1e-12 && s.azimuth == 0 && s.pressure == 0.5)
    }

    @Test("PencilController: the formulas and labels of docs/spec/SEEDS.md for a table of poses")
    func pencilController() {
        func sample(_ alt: Double, _ az: Double) -> PenSample { PenSample(x: 5, y: 6, altitude: alt, azimuth: az) }
        var p = PencilControllerParameters()
        PencilController.update(&p, mode: .hueSaturation, sample: sample(.pi / 4, 0))
        #expect(p.hue == .pi && p.saturation == 4)
        #expect(PencilController.label(p, mode: .hueSaturation) == "↻Hue: 180.00°  ∢Saturation: 4.00")
        PencilController.update(&p, mode: .hueSaturation, sample: sample(.pi / 2 - 40 * .pi / 180, 3.4 * .pi / 180))
        #expect(PencilController.label(p, mode: .hueSaturation) == "↻Hue: 183.40°  ∢Saturation: 3.56")
        PencilController.update(&p, mode: .brightnessContrast, sample: sample(.pi / 4, .pi / 2))
        #expect(PencilController.label(p, mode: .brightnessContrast) == "⇔Brightness: 0.00  ⇕Contrast: 0.50")
        PencilController.update(&p, mode: .brightnessContrast, sample: sample(0, .pi / 3))
        #expect(abs(p.brightness - 0.5) < 1e-12 && abs(p.contrast - (1 - 3.0.squareRoot() / 2)) < 1e-12)
        PencilController.update(&p, mode: .gammaExposure, sample: sample(.pi / 4, .pi))
        #expect(PencilController.label(p, mode: .gammaExposure) == "⇔Gamma: 0.50  ⇕Exposure: 0.00")
        PencilController.update(&p, mode: .gammaExposure, sample: sample(.pi / 8, 3 * .pi / 2))
        #expect(abs(p.gamma - 1) < 1e-12 && abs(p.exposure - 0.75) < 1e-12)
        #expect(PencilController.label(p, mode: .gammaExposure) == "⇔Gamma: 1.00  ⇕Exposure: 0.75")
        // Every pair kept its last values.
        #expect(p.saturation > 3.5 && abs(p.brightness - 0.5) < 1e-12)
        #expect(PencilController.label(p, mode: .off) == nil)
        let pose = PencilController.pose(sample(1, 0.5))
        #expect(pose.rotationX == 1 && pose.rotationY == 0 && abs(pose.rotationZ - (-0.5 - .pi / 2)) < 1e-12)
    }

    @Test("scenes decode, validate, and render")
    func scene() throws {
        let json =
            ##"{"canvas": {"width": 120, "height": 80, "background": "#ffffff"}, "strokes": [{"brush": "force-pen", "samples": [{"x": 10, "y": 40, "pressure": 0.5}, {"x": 110, "y": 40, "pressure": 0.5}]}]}"##
        let s = try Scene.decode(Data(json.utf8))
        let layer = try s.layer()
        #expect(px(layer, 60, 40).w == 1)
        #expect(throws: SfumatoError.self) { try Scene.decode(Data(#"{"canvas": {"width": 0, "height": 5}, "strokes": []}"#.utf8)) }
        #expect(throws: SfumatoError.self) { try Scene.decode(Data(#"{"canvas": {"width": 5, "height": 5, "background": "red"}, "strokes": []}"#.utf8)) }
        #expect(throws: SfumatoError.self) { try Scene.decode(Data(#"{"strokes": []}"#.utf8)) }
    }
}
