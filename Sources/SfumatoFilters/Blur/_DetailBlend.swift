import SfumatoCore

/// Two-image passes that the sharpening, noise and glow filters compose with a Gaussian blur:
/// the image (foreground, I) against its blur (background, B), premultiplied working values.
struct _DetailBlend: BlendKernel {
    enum Rule: Sendable {
        /// I + k (I - B) (unsharp mask).
        case unsharp(Float)
        /// I + k (L(I) - L(B)) on R, G and B: luminance detail only (sharpen luminance).
        case luminance(Float)
        /// B + (1 + k) shrink(I - B, t), shrink(d, t) = sign(d) max(abs(d) - t, 0) (noise reduction).
        case shrink(threshold: Float, sharpen: Float)
        /// I + kB - I kB on R, G and B (screen with the scaled blur: bloom).
        case bloom(Float)
        /// I (1 - k) + k I B on R, G and B (toward multiply with the blur: gloom).
        case gloom(Float)
    }
    let rule: Rule
    let name: String

    func outputExtent(foreground: Rect, background: Rect) -> Rect { foreground }

    /// Bloom and gloom mix each channel with itself and stay within 0...1, so opaque 8-bit pairs
    /// go through the table of their float results; the sharpeners can leave 0...1, which an
    /// 8-bit result would clip before a later filter, so they stay in float.
    var opaqueBytes: OpaqueByteBlend? {
        switch rule {
        case .bloom, .gloom: .perChannel
        case .unsharp, .luminance, .shrink: nil
        }
    }

    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        let weights = SIMD4<Float>(0.2125, 0.7154, 0.0721, 0)
        for i in 0..<count {
            let p = foreground[i], b = background[i]
            var o: SIMD4<Float>
            switch rule {
            case .unsharp(let k):
                o = p + k * (p - b)
                o.w = p.w
            case .luminance(let k):
                let d = k * ((p * weights).sum() - (b * weights).sum())
                o = p + SIMD4(d, d, d, 0)
            case .shrink(let t, let k):
                let d = p - b
                func shrink(_ v: Float) -> Float { v < 0 ? min(v + t, 0) : max(v - t, 0) }
                o = b + (1 + k) * SIMD4(shrink(d.x), shrink(d.y), shrink(d.z), 0)
                o.w = p.w
            case .bloom(let k):
                let g = k * b
                o = p + g - p * g
                o.w = p.w
            case .gloom(let k):
                o = p * (1 - k) + k * p * b
                o.w = p.w
            }
            output[i] = o
        }
    }
}

/// The image blended with its clamped-edge Gaussian blur of `sigma` by `rule` (the extent kept):
/// below σ 4 the sharpeners and noise reduction as one fused kernel (``_DetailKernel``), the
/// rest as two nodes.
func _withBlur(_ image: Image, sigma: Double, _ rule: _DetailBlend.Rule, name: String) -> Image {
    guard let sigma = _gaussianSigma(sigma) else { return image }
    if let fused = _DetailKernel(sigma: sigma, rule: rule, name: name), fused.supportsEncodedBytes {
        return _withEdges(image, .clamp) { $0.applying(fused) }
    }
    let blurred = GaussianBlur(radius: sigma, edges: .clamp).apply(to: image)
    return image.blended(with: blurred, by: _DetailBlend(rule: rule, name: name))
}
