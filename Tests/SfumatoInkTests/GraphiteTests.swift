import Foundation
import SfumatoCore
import SfumatoInk
import Testing

/// A flat pencil (altitude 0.1: the widest shading, 60 px, r = 30) from x0 to x1 at height y.
func shading(pressure: Double, x0: Double = 20, x1: Double = 380, y: Double = 70, samples: Int = 200) -> Stroke {
    Stroke(brush: BrushSettings(kind: .pencil), samples: line(samples, x0: x0, x1: x1, y: y, pressure: pressure, altitude: 0.1))
}

/// Mean alpha over a box of a layer.
func meanAlpha(_ layer: InkLayer, x: Range<Int>, y: Range<Int>) -> Double {
    var sum = 0.0
    for j in y { for i in x { sum += Double(px(layer, i, j).w) } }
    return sum / Double(x.count * y.count)
}

/// The distance (pixels, linearly interpolated) at which a field's autocorrelation along (dx, dy)
/// first falls below 1/e, over a window of it: the grain's correlation length in that direction.
func correlationLength(_ value: (Int, Int) -> Double, x: Range<Int>, y: Range<Int>, dx: Int, dy: Int) -> Double {
    var values: [Double] = []
    for j in y { for i in x { values.append(value(i, j)) } }
    let mean = values.reduce(0, +) / Double(values.count)
    let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
    var previous = 1.0
    for lag in 1...32 {
        var sum = 0.0, n = 0
        for j in y where y.contains(j + lag * dy) {
            for i in x where x.contains(i + lag * dx) {
                sum += (value(i, j) - mean) * (value(i + lag * dx, j + lag * dy) - mean)
                n += 1
            }
        }
        let r = sum / Double(n) / variance
        if r < 1 / M_E { return Double(lag - 1) + (previous - 1 / M_E) / (previous - r) }
        previous = r
    }
    return 32
}

@Suite("Graphite")
struct GraphiteTests {
    /// The stroke's inside, where its edge is full: |y - 70| < r / 2.
    let inside = (x: 100..<300, y: 55..<85)

    @Test("tone inside a shading stroke rises with pressure, light pressure catching only the tooth's peaks")
    func toneRisesWithPressure() throws {
        var tones: [Double] = []
        var touched: [Double] = []
        for pressure in [0.15, 0.4, 0.8] {
            let layer = try InkLayer(width: 400, height: 140)
            layer.draw(shading(pressure: pressure))
            tones.append(meanAlpha(layer, x: inside.x, y: inside.y))
            var n = 0
            for j in inside.y { for i in inside.x where px(layer, i, j).w > 0.01 { n += 1 } }
            touched.append(Double(n) / Double(inside.x.count * inside.y.count))
        }
        #expect(tones[0] > 0.005 && tones[1] > 2 * tones[0] && tones[2] > 1.5 * tones[1], "tones \(tones)")
        #expect(tones.allSatisfy { $0 < Double(Pencil.graphiteSheen) }, "tones \(tones)")
        // Light pressure reaches a minority of the paper, hard pressure nearly all of it.
        #expect(touched[0] < 0.5 && touched[2] > 0.9, "fraction of paper touched \(touched)")
    }

    @Test("repeated passes darken toward the sheen and never past it")
    func passesBuildTowardTheSheen() throws {
        let layer = try InkLayer(width: 400, height: 140)
        let stroke = shading(pressure: 0.4)
        var tones: [Double] = []
        for passes in 1...16 {
            layer.draw(stroke)
            if [1, 2, 4, 16].contains(passes) { tones.append(meanAlpha(layer, x: inside.x, y: inside.y)) }
        }
        #expect(tones[1] > 1.5 * tones[0] && tones[2] > 1.3 * tones[1] && tones[3] > tones[2], "tones \(tones)")
        var darkest: Float = 0
        for j in 0..<140 { for i in 0..<400 { darkest = max(darkest, px(layer, i, j).w) } }
        #expect(darkest <= Pencil.graphiteSheen + 1e-5, "darkest \(darkest)")
        // The same pressure never reaches the deepest valleys, so the tone saturates short of the sheen:
        // each pass from the fourth to the sixteenth adds less than a quarter of what the first did.
        #expect(tones[3] > 0.5 * Double(Pencil.graphiteSheen) && (tones[3] - tones[2]) / 12 < tones[0] / 4, "tones \(tones)")
    }

    @Test("the paper's tooth: heights uniform on 0...1, a grain 2 to 5 pixels long and longer along x")
    func toothStatistics() {
        let paper = PaperTooth.shared
        let n = PaperTooth.size
        var heights = (0..<(n * n)).map { Double(paper.height(x: $0 % n, y: $0 / n)) }
        heights.sort()
        for decile in 1...9 { #expect(abs(heights[decile * n * n / 10] - Double(decile) / 10) < 0.01) }
        let tooth = { (x: Int, y: Int) in Double(paper.height(x: x, y: y)) }
        let along = correlationLength(tooth, x: 0..<n, y: 0..<n, dx: 1, dy: 0)
        let across = correlationLength(tooth, x: 0..<n, y: 0..<n, dx: 0, dy: 1)
        #expect(along > 1.5 && along < 5, "correlation length along x \(along)")
        #expect(across > 0.8 && across < 3, "correlation length along y \(across)")
        #expect(along / across > 1.2 && along / across < 2.5, "anisotropy \(along / across)")
        // Tileable: the tile's far edge continues into its near one.
        #expect(paper.height(x: n, y: 7) == paper.height(x: 0, y: 7) && paper.height(x: -1, y: 7) == paper.height(x: n - 1, y: 7))
    }

    @Test("a stroke's grain is the same everywhere on the canvas and fixed to it")
    func grainFixedToTheCanvas() throws {
        let layer = try InkLayer(width: 1100, height: 140)
        layer.draw(shading(pressure: 0.5, x0: 20, x1: 1080))
        let alpha = { (x: Int, y: Int) in Double(px(layer, x, y).w) }
        var lengths: [(Double, Double)] = []
        for x0 in [100, 460, 820] {
            let window = x0..<(x0 + 180)
            lengths.append(
                (
                    correlationLength(alpha, x: window, y: inside.y, dx: 1, dy: 0),
                    correlationLength(alpha, x: window, y: inside.y, dx: 0, dy: 1)
                ))
        }
        for (along, across) in lengths {
            #expect(along > 1.5 && along < 8 && across > 0.8 && across < 4 && along > 1.2 * across, "\(lengths)")
            #expect(abs(along - lengths[0].0) < 0.25 * lengths[0].0 && abs(across - lengths[0].1) < 0.25 * lengths[0].1, "\(lengths)")
        }
        // The same stroke moved by the tile's size meets the same paper; moved by 37 pixels, other paper.
        for (shift, same) in [(256, true), (37, false)] {
            let moved = try InkLayer(width: 1100, height: 140)
            moved.draw(shading(pressure: 0.5, x0: 20 + Double(shift), x1: 1080 + Double(shift)))
            var difference = 0.0
            for j in inside.y { for i in 400..<600 { difference += abs(Double(px(moved, i + shift, j).w - px(layer, i, j).w)) } }
            difference /= Double(200 * inside.y.count)
            if same { #expect(difference < 1e-6, "shift \(shift): \(difference)") } else { #expect(difference > 0.05, "shift \(shift): \(difference)") }
        }
    }

    /// Rows' mean alpha across a horizontal stroke at y 70, over columns 60..<340.
    func profile(_ layer: InkLayer, height: Int) -> [Double] {
        (0..<height).map { meanAlpha(layer, x: 60..<340, y: $0..<($0 + 1)) }
    }

    /// Distance over which a profile falls from 90% to 10% of `level` at the stroke's lower edge,
    /// each crossing found coming in from outside (the inside's streaks dip below 90% here and there).
    func falloff(_ profile: [Double], level: Double) -> Double {
        func crossing(_ fraction: Double) -> Double {
            for y in stride(from: profile.count - 2, to: 70, by: -1) where profile[y] >= fraction * level {
                return Double(y) + (profile[y] - fraction * level) / (profile[y] - profile[y + 1])
            }
            return 70
        }
        return crossing(0.1) - crossing(0.9)
    }

    @Test("shading edges fall off over max(1.5, r / 4) pixels and stop at the stated reach; the upright line stays crisp")
    func edges() throws {
        // Altitude 0.1: r = 30, edge width 7.5; altitude 0.5: r about 2.6, edge 1.5.
        for altitude in [0.1, 0.5] {
            let r = max(60 * (1 - (max(0.25, altitude) - 0.25) / (Double.pi / 6 - 0.25)), 5) / 2
            let layer = try InkLayer(width: 400, height: 140)
            layer.draw(Stroke(brush: BrushSettings(kind: .pencil), samples: line(200, y: 70, pressure: 0.9, altitude: altitude)))
            let rows = profile(layer, height: 140)
            let level = rows[(70 - Int(r / 2))...(70 + Int(r / 2))].reduce(0, +) / Double(2 * Int(r / 2) + 1)
            let w = max(1.5, r / 4)
            let measured = falloff(rows, level: level)
            // Smoothstep's 10-90% is 0.6 w, the ragged edge widens it, and sampling at pixel centres adds up to a pixel.
            #expect(measured > 0.5 * w && measured < 1.2 * w + 1, "altitude \(altitude): falls off over \(measured) px, edge \(w)")
            // Half the level at the radius (within a pixel), nothing beyond the reach.
            let half = (71..<140).last { rows[$0] >= level / 2 }! + 1
            #expect(abs(Double(half - 70) - r) <= 1.5, "altitude \(altitude): half level at \(half - 70), radius \(r)")
            let reach = r + (0.5 + 0.4) * w + 1
            #expect(rows[(70 + Int(reach.rounded(.up)))...].allSatisfy { $0 == 0 }, "altitude \(altitude): graphite beyond \(reach)")
        }
        let upright = try InkLayer(width: 400, height: 140)
        upright.draw(Stroke(brush: BrushSettings(kind: .pencil), samples: line(40, y: 70, pressure: 0.9, altitude: 1.2)))
        let rows = profile(upright, height: 140)
        // One pixel of analytic antialiasing, sampled at pixel centres: 1.6.
        #expect(falloff(rows, level: rows[70]) <= 1.7, "the upright line's edge \(falloff(rows, level: rows[70]))")
    }
}

@Suite("Graphite: each pixel from the piece nearest it")
struct GraphiteCoverageTests {
    @Test("a circle of 1,000 samples and a sharp turn leave no pixel inside the stroke bare at full pressure")
    func noHoles() throws {
        // Full pressure reaches every height of the tooth (depth 0.9: even height 0 gets some graphite).
        let layer = try InkLayer(width: 400, height: 400)
        let circle = (0..<1000).map { k -> PenSample in
            let a = Double(k) / 999 * 2 * .pi
            return PenSample(x: 200 + 120 * cos(a), y: 200 + 120 * sin(a), pressure: 1, altitude: 0.1, timestamp: Double(k))
        }
        layer.draw(Stroke(brush: BrushSettings(kind: .pencil), samples: circle))
        var bare = 0
        for y in 0..<400 {
            for x in 0..<400 {
                let d = abs(((Double(x) + 0.5 - 200) * (Double(x) + 0.5 - 200) + (Double(y) + 0.5 - 200) * (Double(y) + 0.5 - 200)).squareRoot() - 120)
                if d < 30 - 7.5 && px(layer, x, y).w <= 0 { bare += 1 }
            }
        }
        #expect(bare == 0, "\(bare) bare pixels inside the circle's stroke")
        // A V: the outside of its turn is the wedge between the two pieces' caps.
        let turn = try InkLayer(width: 400, height: 300)
        let v = [(60.0, 250.0), (200.0, 60.0), (340.0, 250.0)].enumerated().map { k, p in
            PenSample(x: p.0, y: p.1, pressure: 1, altitude: 0.1, timestamp: Double(k) * 50)
        }
        turn.draw(Stroke(brush: BrushSettings(kind: .pencil), samples: v))
        var bareAtTurn = 0
        for y in 30..<90 {
            for x in 170..<230 where (Double(x - 200) * Double(x - 200) + Double(y - 60) * Double(y - 60)) < 20 * 20 {
                if px(turn, x, y).w <= 0 { bareAtTurn += 1 }
            }
        }
        #expect(bareAtTurn == 0, "\(bareAtTurn) bare pixels at the turn")
    }
}
