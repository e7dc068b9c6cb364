import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters

/// Checks every filter the same way, so that a new filter gets the whole battery by being
/// registered: its table form round-trips; it writes every pixel of its output (into a bitmap
/// full of garbage); tiled, streamed and AVX-512 renders give exactly the bytes of the plain one.
/// Each check returns the problems it found, in words (empty: none).
public enum FilterVerifier {
    /// A filter of `type` with every parameter at its default, and one with other valid values
    /// (each number and length moved inside its range), images given where needed.
    public static func samples(_ type: any DeclaredFilter.Type, image: Image) throws -> [any Filter] {
        let d = type.descriptor
        var images: [String: (Image, String)] = [:]
        for p in d.parameters where p.kind == .image { images[p.key] = (image.translatedBy(dx: 3, dy: -2), "shifted source") }
        var values: [String: ParameterValue] = [:]
        for p in d.parameters {
            guard let lo = p.minimum, let hi = p.maximum, p.kind == .number || p.kind == .integer, p.unit != .taps else { continue }
            let slider = p.sliderRange ?? lo...hi
            var v = slider.lowerBound + 0.37 * (slider.upperBound - slider.lowerBound)
            if p.kind == .integer {
                v = v.rounded()
                if p.odd && Int(v) % 2 == 0 { v += 1 }
                v = min(max(v, lo), hi)
            }
            values[p.key] = .number(v)
        }
        return [
            try type.init(arguments: try d.arguments(values: [:], images: images)),
            try type.init(arguments: try d.arguments(values: values, images: images))
        ]
    }

    /// `F(arguments: f.arguments)` has the same arguments as `f`.
    public static func roundTrip(_ filter: any Filter) -> [String] {
        func check<F: Filter>(_ f: F) -> [String] {
            let a = f.arguments
            guard let back = try? F(arguments: a) else { return ["\(F.descriptor.name): its own arguments are refused"] }
            let b = back.arguments
            var problems: [String] = []
            if a.values != b.values { problems.append("\(F.descriptor.name): values \(a.values) came back as \(b.values)") }
            if a.imageNames != b.imageNames { problems.append("\(F.descriptor.name): images \(a.imageNames) came back as \(b.imageNames)") }
            for p in F.descriptor.parameters where p.kind != .image && a.values[p.key] == nil {
                problems.append("\(F.descriptor.name): \(p.key) is missing from its arguments")
            }
            return problems
        }
        return check(filter)
    }

    /// Levels a filter's tiled renders may differ by, where its definition allows it: Deriche's
    /// recursive Gaussian (sigma 4 and up) starts each tile's recursions from the edge of what the
    /// tile reads (4 sigma around it), so tiny tiles (16x5) move a few levels and the default
    /// tiles about one; filters that compose it and take a wide radius inherit that (shadows and
    /// highlights judge the light by it, the sharpeners and glows add a fraction of it: a level).
    /// Every other filter is exact.
    public static let tileTolerance: [String: Float] = [
        "CIGaussianBlur": 3, "CIHighlightShadowAdjust": 1, "CIUnsharpMask": 1, "CISharpenLuminance": 1, "CIBloom": 1, "CIGloom": 1
    ]

    /// Renders `image` through `filter` over `rect`; the same bytes from a garbage-filled bitmap,
    /// small tiles, a streamed source (when `streamed` is given) and the baseline vectors.
    public static func renders(_ filter: any Filter, source: Bitmap, streamed: Image?, workingSpace ws: WorkingSpace) throws -> [String] {
        let name = type(of: filter).descriptor.name
        let image = Image(bitmap: source)
        let rect = source.bounds
        let recipe = filter.apply(to: image).cropped(to: rect)
        let plain = try RenderContext(workingSpace: ws).render(recipe, rect: rect)
        var problems: [String] = []
        func same(_ other: Bitmap, _ what: String, tolerance: Float = 0) {
            guard memcmp(plain.baseAddress, other.baseAddress, plain.byteCount) != 0 else { return }
            let difference = Pixels.maxDifference(plain, other)
            if difference > tolerance + 1e-3 { problems.append("\(name), \(ws): \(what) differs (max \(difference) levels)") }
        }
        let tiles = tileTolerance[name] ?? 0
        let dirty = try Bitmap(width: rect.width, height: rect.height, format: .rgba8, alpha: .straight)
        memset(dirty.baseAddress, 0xA5, dirty.byteCount)
        try RenderContext(workingSpace: ws).render(recipe, rect: rect, into: dirty)
        same(dirty, "a render into a garbage-filled bitmap")
        let tiled = RenderContext(options: .init(workingSpace: ws, tileWidth: 16, tileHeight: 5))
        same(try tiled.render(recipe, rect: rect), "a render in 16x5 tiles", tolerance: tiles)
        let oneThread = RenderContext(options: .init(workingSpace: ws, threads: 1))
        same(try oneThread.render(recipe, rect: rect), "a render on one thread", tolerance: tiles)
        if let streamed {
            same(try RenderContext(workingSpace: ws).render(filter.apply(to: streamed).cropped(to: rect), rect: rect), "a render of the streamed file")
        }
        if CPUFeatures.wideVectors {
            same(try CPUFeatures.withBaselineVectors { try RenderContext(workingSpace: ws).render(recipe, rect: rect) }, "the baseline (non-AVX-512) render")
        }
        return problems
    }
}
