import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// Every blend mode and compositing operator against a plain Double reference of its definition
/// (the W3C Compositing and Blending formulas, written out again here), on two real photos, the
/// source with an alpha ramp so that the compositing terms are exercised, in both working spaces:
/// within 1 level where alpha is at least 1/2 (colour), alpha within 1 level everywhere.
@Suite("Blend modes and compositing against their definitions")
struct CompositeTests {
    typealias Mix = (_ b: Double, _ s: Double) -> Double

    static func lum(_ c: [Double]) -> Double { 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2] }
    static func clip(_ c: [Double]) -> [Double] {
        let l = lum(c), n = c.min()!, x = c.max()!
        var o = c
        if n < 0 { o = o.map { l + ($0 - l) * l / (l - n) } }
        if x > 1 { o = o.map { l + ($0 - l) * (1 - l) / (x - l) } }
        return o
    }
    static func setLum(_ c: [Double], _ l: Double) -> [Double] { clip(c.map { $0 + l - lum(c) }) }
    static func sat(_ c: [Double]) -> Double { c.max()! - c.min()! }
    static func setSat(_ c: [Double], _ s: Double) -> [Double] {
        let lo = c.min()!, hi = c.max()!
        return hi > lo ? c.map { ($0 - lo) * s / (hi - lo) } : [0, 0, 0]
    }
    static func burn(_ b: Double, _ s: Double) -> Double { b == 1 ? 1 : s == 0 ? 0 : 1 - min(1, (1 - b) / s) }
    static func dodge(_ b: Double, _ s: Double) -> Double { b == 0 ? 0 : s == 1 ? 1 : min(1, b / (1 - s)) }
    static func hard(_ b: Double, _ s: Double) -> Double { s <= 0.5 ? 2 * b * s : 1 - 2 * (1 - b) * (1 - s) }

    /// name -> B(Cb, Cs) on straight RGB in 0...1.
    nonisolated(unsafe) static let modes: [(String, ([Double], [Double]) -> [Double])] = {
        func sep(_ f: @escaping Mix) -> ([Double], [Double]) -> [Double] { { b, s in (0..<3).map { f(b[$0], s[$0]) } } }
        return [
            ("CIMultiplyBlendMode", sep { $0 * $1 }),
            ("CIScreenBlendMode", sep { $0 + $1 - $0 * $1 }),
            ("CIOverlayBlendMode", sep { hard($1, $0) }),
            (
                "CISoftLightBlendMode",
                sep { b, s in
                    s <= 0.5 ? b - (1 - 2 * s) * b * (1 - b) : b + (2 * s - 1) * ((b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()) - b)
                }
            ),
            ("CIHardLightBlendMode", sep(hard)),
            ("CIDarkenBlendMode", sep(min)),
            ("CILightenBlendMode", sep(max)),
            ("CIDifferenceBlendMode", sep { abs($0 - $1) }),
            ("CIExclusionBlendMode", sep { $0 + $1 - 2 * $0 * $1 }),
            ("CIColorDodgeBlendMode", sep(dodge)),
            ("CIColorBurnBlendMode", sep(burn)),
            ("CILinearDodgeBlendMode", sep { min(1, $0 + $1) }),
            ("CILinearBurnBlendMode", sep { max(0, $0 + $1 - 1) }),
            ("CISubtractBlendMode", sep { max(0, $0 - $1) }),
            ("CIDivideBlendMode", sep { b, s in s == 0 ? (b == 0 ? 0 : 1) : min(1, b / s) }),
            ("CIPinLightBlendMode", sep { b, s in s <= 0.5 ? min(b, 2 * s) : max(b, 2 * s - 1) }),
            ("CIVividLightBlendMode", sep { b, s in s <= 0.5 ? burn(b, 2 * s) : dodge(b, 2 * s - 1) }),
            ("CIHueBlendMode", { b, s in setLum(setSat(s, sat(b)), lum(b)) }),
            ("CISaturationBlendMode", { b, s in setLum(setSat(b, sat(s)), lum(b)) }),
            ("CIColorBlendMode", { b, s in setLum(s, lum(b)) }),
            ("CILuminosityBlendMode", { b, s in setLum(b, lum(s)) })
        ]
    }()

    /// The source: rocket with alpha falling from 1 at the left to 0.1 at the right; the backdrop: coffee.
    static func images() throws -> (Bitmap, Bitmap) {
        let size = Rect(width: 300, height: 200)
        let opaque = try RenderContext(workingSpace: .none).render(Image(bitmap: try Fixtures.photo("rocket.jpg")), rect: size)
        // A new bitmap: the rendered one may be marked opaque, which its new alpha would contradict.
        let source = try Bitmap(width: size.width, height: size.height, format: .rgba8, alpha: .straight)
        memcpy(source.baseAddress, opaque.baseAddress, opaque.byteCount)
        for y in 0..<size.height {
            let row = source.row(y).assumingMemoryBound(to: UInt8.self)
            for x in 0..<size.width { row[4 * x + 3] = UInt8((255 - 230 * Double(x) / 299).rounded()) }
        }
        let backdrop = try RenderContext(workingSpace: .none).render(Image(bitmap: try Fixtures.photo("coffee.png")).translatedBy(dx: -40, dy: -30), rect: size)
        return (source, backdrop)
    }

    /// Straight working RGBA of the composite out = f(S, D) given premultiplied S, D.
    /// Both sources: the alpha ramp (the float route, pixel by pixel, in the 8-bit route) and the
    /// opaque photo (the 8-bit route's table or vector code, where a mode has one).
    static func check(_ filter: (Image, Image) -> Image, _ name: String, _ reference: ([Double], [Double]) -> [Double]) throws {
        let (ramp, backdrop) = try images()
        let opaque = try RenderContext(workingSpace: .none).render(Image(bitmap: try Fixtures.photo("rocket.jpg")), rect: ramp.bounds)
        for source in [ramp, opaque] { try check(filter, name, reference, source: source, backdrop: backdrop) }
    }

    static func check(
        _ filter: (Image, Image) -> Image, _ name: String, _ reference: ([Double], [Double]) -> [Double], source: Bitmap, backdrop: Bitmap
    ) throws {
        for ws in [WorkingSpace.none, .linear] {
            let out = try RenderContext(workingSpace: ws).render(filter(Image(bitmap: source), Image(bitmap: backdrop)), rect: source.bounds)
            var worst = 0.0
            for (x, y) in Pixels.samplePoints(source.width, source.height, count: 1500) {
                let s = Reference.working(source, x, y, ws), d = Reference.working(backdrop, x, y, ws)
                let ps = s.prefix(3).map { $0 * s[3] } + [s[3]], pd = d.prefix(3).map { $0 * d[3] } + [d[3]]
                let o = reference(ps, pd)
                let got = out.bytes(x: x, y: y)
                let alpha = (min(max(o[3], 0), 1) * 255).rounded()
                worst = max(worst, abs(Double(got.w) - alpha))
                guard alpha >= 128 else { continue }
                for k in 0..<3 { worst = max(worst, abs(Double(got[k]) - Reference.toLevel(o[k] / o[3], ws))) }
            }
            #expect(worst <= 1, "\(name), \(ws), \(source.isOpaque ? "opaque" : "alpha ramp"): \(worst) levels from the definition")
        }
    }

    @Test("each blend mode: co = cs (1 - ab) + cb (1 - as) + as ab B(Cb, Cs)", arguments: 0..<21)
    func blendMode(_ index: Int) throws {
        let (name, mix) = Self.modes[index]
        let type = try FilterRegistry.filterType(named: name)
        #expect(type.descriptor.category == .composite)
        try Self.check(
            { s, d in
                try! FilterRegistry.make(name, images: ["inputBackgroundImage": (d, "backdrop")]).apply(to: s)
            }, name
        ) { ps, pd in
            let cs = ps.prefix(3).map { ps[3] > 0 ? min(max($0 / ps[3], 0), 1) : 0 }
            let cb = pd.prefix(3).map { pd[3] > 0 ? min(max($0 / pd[3], 0), 1) : 0 }
            let b = mix(Array(cb), Array(cs))
            let (a, ab) = (ps[3], pd[3])
            var out: [Double] = []
            for k in 0..<3 {
                let own: Double = ps[k] * (1 - ab) + pd[k] * (1 - a)
                out.append(own + a * ab * b[k])
            }
            return out + [a + ab * (1 - a)]
        }
    }

    @Test("the separable modes' 8-bit vector code gives their float results' table for all 65,536 pairs of levels")
    func opaqueByteRows() throws {
        let modes: [(String, any BlendKernel, OpaqueByteRows?)] = [
            ("multiply", BlendModeFilter<MultiplyBlendMode>.kernel, MultiplyBlendMode.opaqueByteRows),
            ("screen", BlendModeFilter<ScreenBlendMode>.kernel, ScreenBlendMode.opaqueByteRows),
            ("overlay", BlendModeFilter<OverlayBlendMode>.kernel, OverlayBlendMode.opaqueByteRows),
            ("difference", BlendModeFilter<DifferenceBlendMode>.kernel, DifferenceBlendMode.opaqueByteRows),
            ("darken", BlendModeFilter<DarkenBlendMode>.kernel, DarkenBlendMode.opaqueByteRows),
            ("lighten", BlendModeFilter<LightenBlendMode>.kernel, LightenBlendMode.opaqueByteRows),
            ("linear dodge", BlendModeFilter<LinearDodgeBlendMode>.kernel, LinearDodgeBlendMode.opaqueByteRows),
            ("linear burn", BlendModeFilter<LinearBurnBlendMode>.kernel, LinearBurnBlendMode.opaqueByteRows),
            ("subtract", BlendModeFilter<SubtractBlendMode>.kernel, SubtractBlendMode.opaqueByteRows),
            ("exclusion", BlendModeFilter<ExclusionBlendMode>.kernel, ExclusionBlendMode.opaqueByteRows),
            ("hard light", BlendModeFilter<HardLightBlendMode>.kernel, HardLightBlendMode.opaqueByteRows)
        ]
        // Pixel k pairs source level k % 256 with backdrop level k / 256 in red, and other pairs
        // in green and blue, so every channel's lanes are exercised; 65,537 pixels: a ragged end.
        let n = 65537
        var f = [UInt8](repeating: 255, count: 4 * n), b = f
        for k in 0..<n {
            for c in 0..<3 {
                let j = (k &* [1, 40503, 7919][c]) % 65536
                f[4 * k + c] = UInt8(j & 255)
                b[4 * k + c] = UInt8(j >> 8)
            }
        }
        // With the AVX-512 twins (multiply, difference, darken, lighten, subtract, linear dodge and
        // burn: 16 pixels a step) where the processor has them, and without.
        let baseline = modes.map { m in
            (m.0 + " (baseline)", m.1, m.2.map { rows -> OpaqueByteRows in { f, b, o, n in CPUFeatures.withBaselineVectors { rows(f, b, o, n) } } })
        }
        for (name, kernel, rows) in modes + baseline {
            let rows = try #require(rows, "\(name) has vector code")
            #expect(kernel.opaqueBytes != nil)
            let tables = kernel.opaqueByteTables()
            var out = [UInt8](repeating: 0, count: 4 * n)
            let done = rows(f, b, &out, n)
            #expect(done == n - n % 4, "\(name): opaque pixels are blended four at a time")
            var wrong = 0
            for k in 0..<done {
                for c in 0..<3 where out[4 * k + c] != tables[c][256 * Int(b[4 * k + c]) + Int(f[4 * k + c])] { wrong += 1 }
                if out[4 * k + 3] != 255 { wrong += 1 }
            }
            #expect(wrong == 0, "\(name): \(wrong) bytes differ from the float route's table")
            // A pixel with any transparency stops the run at its group of four.
            var g = f
            g[4 * 1001 + 3] = 254
            #expect(rows(g, b, &out, n) == 1000, "\(name) stops before a transparent source pixel")
            var c = b
            c[4 * 7 + 3] = 0
            #expect(rows(f, c, &out, n) == 4, "\(name) stops before a transparent backdrop pixel")
        }
        #expect(BlendModeFilter<HueBlendMode>.kernel.opaqueBytes == nil, "non-separable modes stay in float")
    }

    @Test("Porter-Duff operators and the multiply compositing")
    func operators() throws {
        let cases: [(String, ([Double], [Double]) -> [Double])] = [
            ("CISourceOverCompositing", { s, d in (0..<4).map { s[$0] + d[$0] * (1 - s[3]) } }),
            ("CISourceAtopCompositing", { s, d in (0..<4).map { s[$0] * d[3] + d[$0] * (1 - s[3]) } }),
            ("CISourceInCompositing", { s, d in (0..<4).map { s[$0] * d[3] } }),
            ("CISourceOutCompositing", { s, d in (0..<4).map { s[$0] * (1 - d[3]) } }),
            ("CIMultiplyCompositing", { s, d in (0..<4).map { s[$0] * d[$0] } })
        ]
        for (name, reference) in cases {
            try Self.check({ s, d in try! FilterRegistry.make(name, images: ["inputBackgroundImage": (d, "backdrop")]).apply(to: s) }, name, reference)
        }
    }

    @Test("blend with mask: S m + D (1 - m), m the mask's luminance")
    func blendWithMask() throws {
        let mask = try RenderContext(workingSpace: .none).render(Image(bitmap: try Fixtures.photo("chelsea.png")), rect: Rect(width: 300, height: 200))
        for ws in [WorkingSpace.none, .linear] {
            let (source, backdrop) = try Self.images()
            let f = BlendWithMask(background: Image(bitmap: backdrop), mask: Image(bitmap: mask))
            let out = try RenderContext(workingSpace: ws).render(f.apply(to: Image(bitmap: source)), rect: source.bounds)
            var worst = 0.0
            for (x, y) in Pixels.samplePoints(300, 200, count: 1500) {
                let s = Reference.working(source, x, y, ws), d = Reference.working(backdrop, x, y, ws), m = Reference.working(mask, x, y, ws)
                let l = min(max(0.2125 * m[0] + 0.7154 * m[1] + 0.0721 * m[2], 0), 1)
                let o = (0..<4).map { k in (k < 3 ? s[k] * s[3] : s[3]) * l + (k < 3 ? d[k] * d[3] : d[3]) * (1 - l) }
                let got = out.bytes(x: x, y: y)
                worst = max(worst, abs(Double(got.w) - (o[3] * 255).rounded()))
                guard o[3] >= 0.5 else { continue }
                for k in 0..<3 { worst = max(worst, abs(Double(got[k]) - Reference.toLevel(o[k] / o[3], ws))) }
            }
            #expect(worst <= 1, "\(ws): \(worst) levels")
        }
    }

    @Test("blend with mask over opaque 8-bit photos, with a colour and a grey mask: 8-bit tiles, the definition's bytes, any tiling")
    func blendWithMaskBytes() throws {
        let size = Rect(width: 300, height: 200)
        let none = RenderContext(workingSpace: .none)
        let source = try none.render(Image(bitmap: try Fixtures.photo("rocket.jpg")), rect: size)
        let backdrop = try none.render(Image(bitmap: try Fixtures.photo("coffee.png")).translatedBy(dx: -40, dy: -30), rect: size)
        let colourMask = try none.render(Image(bitmap: try Fixtures.photo("chelsea.png")), rect: size)
        let grayMask = try none.render(Image(bitmap: colourMask), format: .gray8)
        let small = RenderContext(options: .init(workingSpace: .none, tileWidth: 48, tileHeight: 8))
        for mask in [colourMask, grayMask] {
            let recipe = BlendWithMask(background: Image(bitmap: backdrop), mask: Image(bitmap: mask)).apply(to: Image(bitmap: source))
            #expect(try none.explain(recipe).contains("blend with mask (per pixel, 8-bit)"), "\(mask.format)")
            let out = try none.render(recipe, rect: size)
            #expect(out == (try small.render(recipe, rect: size)), "\(mask.format): tiles of 48x8 give the same bytes")
            var worst = 0.0, off = 0
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let s = source.bytes(x: x, y: y), d = backdrop.bytes(x: x, y: y)
                    let l: Double
                    if mask.format == .gray8 {
                        l = Double(mask.row(y).load(fromByteOffset: x, as: UInt8.self)) / 255
                    } else {
                        let m = mask.bytes(x: x, y: y)
                        l = min(max((0.2125 * Double(m.x) + 0.7154 * Double(m.y) + 0.0721 * Double(m.z)) / 255, 0), 1)
                    }
                    let got = out.bytes(x: x, y: y)
                    for k in 0..<4 {
                        let want = (Double(s[k]) * l + Double(d[k]) * (1 - l)).rounded()
                        let diff = abs(Double(got[k]) - want)
                        worst = max(worst, diff)
                        if diff > 0 { off += 1 }
                    }
                }
            }
            // A grey mask's bytes exactly; a colour mask's luminance is taken as a level: within one.
            #expect(worst <= (mask.format == .gray8 ? 0 : 1), "\(mask.format): \(worst) levels, \(off) bytes off")
        }
    }
}
