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
    /// A function of one unpremultiplied pixel whose colour must be in a given encoding (a 3D LUT
    /// made for sRGB-encoded values): the renderer converts from and back to the working space
    /// around it when they differ.
    case pixelIn(ColorEncoding, any PixelFunction)

    /// Whether every colour channel of the output depends only on the same channel of the input.
    public var isPerChannel: Bool {
        switch self {
        case .linear(let m): m.isPerChannel
        case .curve: true
        case .pixel(let f), .pixelIn(_, let f): f.isPerChannel
        }
    }

    /// A short description for render plans (`sfumato apply --explain`).
    public var summary: String {
        switch self {
        case .linear: "4x4 matrix"
        case .curve(let c): "curve \(c.name)"
        case .pixel(let f): "pixel function \(f.name)"
        case .pixelIn(let e, let f): "pixel function \(f.name) on \(e == .srgb ? "sRGB-encoded" : "linear") values"
        }
    }

    /// The stage as the working space `encoding` runs it: ``pixelIn(_:_:)`` becomes the pixel
    /// function, between transfer curves where the encodings differ.
    func expanded(for encoding: ColorEncoding) -> [PointStage] {
        guard case .pixelIn(let wanted, let f) = self else { return [self] }
        if wanted == encoding { return [.pixel(f)] }
        return [.curve(_TransferCurve(decode: encoding == .srgb)), .pixel(f), .curve(_TransferCurve(decode: encoding != .srgb))]
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
    /// Whether each colour channel of the output depends only on the same channel of the input,
    /// and alpha is kept (default false): 8-bit sources then map through one table per channel.
    var isPerChannel: Bool { get }
    /// Whether ``apply(_:)-(StraightBytes)`` maps 8-bit pixels directly (default false).
    var mapsStraightBytes: Bool { get }
    /// The same function over straight 8-bit pixels, when `mapsStraightBytes` (see ``StraightBytes``).
    func apply(_ bytes: StraightBytes)
    /// The function for a GPU device, when one is written (default nil); it must give the
    /// byte path's bytes.
    var deviceFunction: DevicePixelFunction? { get }
}

extension PixelFunction {
    public var isPerChannel: Bool { false }
    /// No byte path unless a function provides one.
    public var mapsStraightBytes: Bool { false }
    public func apply(_ bytes: StraightBytes) {}
    public var deviceFunction: DevicePixelFunction? { nil }
}

/// A per-pixel function a GPU device runs on 8-bit pixels (``PixelFunction/deviceFunction``).
public enum DevicePixelFunction: Sendable, Equatable {
    /// R, G, B = `maximum` where ((R/255)·w.x + (G/255)·w.y) + (B/255)·w.z > `threshold`, else 0;
    /// alpha kept (encoded values).
    case threshold(weights: SIMD3<Float>, threshold: Float, maximum: Float)
}

/// A run of straight (or opaque) 8-bit pixels for a ``PixelFunction`` that can map them without
/// going through floats: how stored levels read as working values, and how values are stored.
///
/// A function that sets `mapsStraightBytes` must keep alpha, write 0, 0, 0, 0 where alpha is 0, and
/// give the same bytes as its float path would for opaque pixels and straight destinations
/// (`level` is exactly what the float path reads, `encode` exactly how it stores). For a
/// premultiplied destination the renderer premultiplies the stored bytes, rounding twice as the
/// per-channel tables do (within a level of the float path).
///
/// Example (a threshold on red):
/// ```swift
/// let on = bytes.encode(1), off = bytes.encode(0)
/// for i in 0..<bytes.count {
///     let s = bytes.source + 4 * i, d = bytes.destination + 4 * i
///     let o = s[3] == 0 ? 0 : bytes.level[Int(s[0])] > 0.5 ? on : off
///     d[0] = o; d[1] = o; d[2] = o; d[3] = s[3]
/// }
/// ```
public struct StraightBytes {
    /// `count` RGBA8 pixels in, straight alpha.
    public let source: UnsafePointer<UInt8>
    /// `count` RGBA8 pixels out, straight alpha (the renderer premultiplies afterwards if needed).
    public let destination: UnsafeMutablePointer<UInt8>
    /// Number of pixels, 0 or more.
    public let count: Int
    /// The working-space value (0...1) of each stored level 0...255.
    public let level: UnsafePointer<Float>
    /// Whether `level` decodes sRGB to linear light; when false, level k is exactly
    /// `Float(k) * (1 / 255)`, which byte kernels may compute in vectors instead of looking up.
    public let linear: Bool

    /// The stored level of a working-space colour value (clamped to 0...1, rounded).
    public func encode(_ value: Float) -> UInt8 {
        var out = SIMD4<UInt8>()
        var v = SIMD4<Float>(value, value, value, 1)
        withUnsafeMutableBytes(of: &out) { o in
            _Convert.storeRGBA8(&v, 1, linear: linear, premultiplied: false, o.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return out.x
    }
}
