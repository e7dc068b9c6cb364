import SfumatoCore

/// The vignettes' factor m(d) as a grey mask (not a colour: the renderer never converts it), and
/// the pass that multiplies an image's colour by it, alpha kept.
struct _RadialFactor: PixelGenerator {
    let cx: Double, cy: Double
    /// m at a distance d from the centre.
    let factor: @Sendable (Double) -> Double
    let name: String
    var encoding: ColorEncoding { .linear }
    var isColor: Bool { false }

    func generate(into row: UnsafeMutablePointer<SIMD4<Float>>, x: Int, y: Int, count: Int) {
        let dy = Double(y) + 0.5 - cy
        for i in 0..<count {
            let dx = Double(x + i) + 0.5 - cx
            let m = Float(factor((dx * dx + dy * dy).squareRoot()))
            row[i] = SIMD4(m, m, m, 1)
        }
    }
}

/// out = S (m, m, m, 1): the image's premultiplied colour times the mask's first channel.
struct _ScaleByMask: BlendKernel {
    let name: String
    func outputExtent(foreground: Rect, background: Rect) -> Rect { foreground }
    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        for i in 0..<count {
            let m = background[i].x
            output[i] = foreground[i] * SIMD4(m, m, m, 1)
        }
    }
}

/// t^2 (3 - 2 t) of t = clamp((x - e0) / (e1 - e0), 0, 1); a step at e0 when e1 == e0.
func _smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
    if e1 <= e0 { return x < e0 ? 0 : 1 }
    let t = ((x - e0) / (e1 - e0)).bounded(0, 1)
    return t * t * (3 - 2 * t)
}
