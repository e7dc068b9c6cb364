/// One per-pixel step of a colour filter. A filter that maps each pixel on its own (without
/// looking at neighbours) describes itself as stages; the renderer fuses consecutive stages of
/// consecutive filters into one pass over the pixels, multiplying runs of ``linear(_:)`` stages
/// into a single matrix.
public enum PointStage: Sendable {
    /// A linear map of premultiplied RGBA. Affine colour maps that keep alpha fit here: the bias
    /// goes in the alpha column (`c' = M c + b` is `c'·a = M (c·a) + b·a`).
    case linear(Matrix4)
    /// A function applied to each of R, G and B of the unpremultiplied colour; alpha kept.
    case curve(any ChannelCurve)
    /// Any function of one unpremultiplied RGBA pixel.
    case pixel(any PixelFunction)

    /// Whether every colour channel of the output depends only on the same channel of the input.
    public var isPerChannel: Bool {
        switch self {
        case .linear(let m): m.isPerChannel
        case .curve: true
        case .pixel: false
        }
    }

    /// A short description for render plans (`sfumato apply --explain`).
    public var summary: String {
        switch self {
        case .linear: "4x4 matrix"
        case .curve(let c): "curve \(c.name)"
        case .pixel(let f): "pixel function \(f.name)"
        }
    }
}

/// A per-channel function, applied to R, G and B of unpremultiplied pixels.
///
/// Implement ``apply(_:count:)`` over a run of pixels with vector code; lane 3 (alpha) may hold
/// anything afterwards, the renderer restores it.
public protocol ChannelCurve: Sendable {
    /// Name shown in render plans, e.g. `gamma 1.5`.
    var name: String { get }
    /// Applies the curve in place to lanes 0, 1, 2 of `count` pixels.
    func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int)
}

/// A general per-pixel function of unpremultiplied RGBA.
public protocol PixelFunction: Sendable {
    /// Name shown in render plans.
    var name: String { get }
    /// Applies the function in place to `count` unpremultiplied pixels (alpha may change).
    func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int)
}
