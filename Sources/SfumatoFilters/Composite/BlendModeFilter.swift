import SfumatoCore

/// A blend mode of the W3C Compositing and Blending Level 1 model: a mixing function
/// B(Cb, Cs) of the backdrop's and the source's straight colours, each clamped to 0...1, composited
/// source-over:
///
///     co = cs (1 - ab) + cb (1 - as) + as ab B(Cb, Cs)        (premultiplied cs, cb)
///     ao = as + ab (1 - as)
///
/// Each mode is one file: its formula, its names and its descriptor.
public protocol BlendMode: Sendable {
    /// Names, category and summary (declared in the mode's own file).
    static var descriptor: FilterDescriptor { get }
    /// B(Cb, Cs) on straight colours in 0...1.
    static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float>
    /// Whether B mixes each channel only with itself (the separable modes; the default): opaque
    /// 8-bit pixels then blend through a table of B's results (``OpaqueByteBlend``). The four
    /// non-separable modes say false.
    static var isSeparable: Bool { get }
    /// Vector code for opaque 8-bit pixels of a separable mode, giving the table's bytes for
    /// every pair of levels (its tests check all 65,536); nil (the default): the table.
    static var opaqueByteRows: OpaqueByteRows? { get }
}

extension BlendMode {
    public static var isSeparable: Bool { true }
    public static var opaqueByteRows: OpaqueByteRows? { nil }
}

/// The parameters every blend mode takes.
public enum BlendModeParameters {
    /// The backdrop.
    public static let background = ParameterSpec.image(
        "inputBackgroundImage", short: "background", help: "the image underneath (the backdrop)")
    /// The declared list.
    public static let all = [background]
}

/// Core Image's blend-mode filters: the image (the source) over a background (the backdrop)
/// mixed by `Mode`. The extent is the union of both.
///
/// ```swift
/// BlendModeFilter<MultiplyBlendMode>(background: paper).apply(to: ink)
/// ```
public struct BlendModeFilter<Mode: BlendMode>: DeclaredFilter {
    public static var fields: [FilterField<BlendModeFilter>] { [.image(BlendModeParameters.background, \.background, name: \.backgroundName)] }
    public static var descriptor: FilterDescriptor { Mode.descriptor }

    /// Every parameter at its default (no background yet).
    public init() { self.init(background: .empty) }

    public var background: Image
    /// Where the background came from (a path), for recipes.
    public var backgroundName: String

    public init(background: Image, name: String = "background") {
        self.background = background
        backgroundName = name
    }

    /// Opaque over opaque stays opaque; a transparent part of either side does not.
    public func apply(to image: Image) -> Image {
        image.blended(with: background, by: Self.kernel)
    }

    /// The per-pixel kernel the filter applies.
    public static var kernel: any BlendKernel { _BlendModeKernel<Mode>() }
}

struct _BlendModeKernel<Mode: BlendMode>: BlendKernel {
    var name: String { Mode.descriptor.name }

    func outputExtent(foreground: Rect, background: Rect) -> Rect { foreground.union(background) }

    var opaqueBytes: OpaqueByteBlend? {
        guard Mode.isSeparable else { return nil }
        return Mode.opaqueByteRows.map { .perChannel(rows: $0) } ?? .perChannel
    }

    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        // Straight colour clamped to 0...1 as `clamped(lowerBound:upperBound:)` clamps (NaN to 0),
        // in maxps and minps: the generic SIMD3 clamp was two calls a pixel.
        @inline(__always) func straight(_ p: SIMD4<Float>) -> SIMD3<Float> {
            guard p.w > 0 else { return .zero }
            let v = _minps(_maxps(p / p.w, .zero), .one)
            return SIMD3(v.x, v.y, v.z)
        }
        for i in 0..<count {
            let s = foreground[i], d = background[i]
            let cs = SIMD3(s.x, s.y, s.z), cb = SIMD3(d.x, d.y, d.z)
            let straightS = straight(s), straightB = straight(d)
            let mixed = Mode.blend(backdrop: straightB, source: straightS)
            let co = cs * (1 - d.w) + cb * (1 - s.w) + (s.w * d.w) * mixed
            output[i] = SIMD4(co, s.w + d.w * (1 - s.w))
        }
    }
}

/// One channel at a time, for the separable modes written per channel.
@inline(__always)
func _perChannel(_ b: SIMD3<Float>, _ s: SIMD3<Float>, _ f: (Float, Float) -> Float) -> SIMD3<Float> {
    SIMD3(f(b.x, s.x), f(b.y, s.y), f(b.z, s.z))
}
