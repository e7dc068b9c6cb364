import Foundation

/// How a transform reads between pixel centres.
///
/// Each is a separable kernel k(t) on the distance t (in input pixels) from the sampled point to a
/// pixel centre. When a transform shrinks, the kernel is widened by the shrink factor on that
/// axis (the output pixel's footprint), so that shrinking filters rather than aliases: the same
/// rule as libvips' reduce and Pillow's resize. ``nearest`` is never widened: it picks one pixel.
/// Shrinks of 0.1 % or less (a turn whose cosine and sine were rounded) are not widened either.
public enum Sampling: String, CaseIterable, Sendable {
    /// The pixel whose square holds the point (exact pixel moves; blocky when enlarging).
    case nearest
    /// The triangle kernel, k(t) = 1 - |t| for |t| < 1: bilinear interpolation.
    case bilinear
    /// Keys' cubic convolution with a = -0.75 (OpenCV's INTER_CUBIC, Core Image's bicubic
    /// scale with B 0, C 0.75), support 2.
    case bicubic
    /// The Lanczos window of 3 lobes, k(t) = sinc(t) sinc(t / 3) for |t| < 3.
    case lanczos3

    /// How far the unwidened kernel reaches, in pixels (0 for nearest).
    public var support: Double {
        switch self {
        case .nearest: 0
        case .bilinear: 1
        case .bicubic: 2
        case .lanczos3: 3
        }
    }

    /// k(t), the weight at distance t (a pixel centre to the sampled point, in kernel units).
    public func weight(_ t: Double) -> Double {
        let x = abs(t)
        switch self {
        case .nearest:
            return x < 0.5 ? 1 : 0
        case .bilinear:
            return x < 1 ? 1 - x : 0
        case .bicubic:
            let a = -0.75
            if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
            if x < 2 { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a }
            return 0
        case .lanczos3:
            if x < 1e-9 { return 1 }
            if x >= 3 { return 0 }
            let px = Double.pi * x
            return 3 * sin(px) * sin(px / 3) / (px * px)
        }
    }
}
