/// How the pencil's shading lays graphite on the paper: the definition the tests check.
///
/// At a pixel at distance `d` from the stroke's axis (radius `r`, layer pixels), with the seed's
/// opacity `o` (force / 4, which is also how hard the pencil presses), on paper of tooth height `t`
/// and with the stroke's streak `s` there:
/// - **edge** = smoothstep((r + 0.8 w (t - 1/2) - d) / w + 1/2) with w = max(1.5, r / 4): the edge is
///   soft over w, a quarter of the radius, and ragged where the paper's tooth is;
/// - **fill** = smoothstep((h - (1 - depth)) / 0.4 + 1/2) with h = 0.8 t + 0.2 s and
///   depth = 0.1 + 0.8 o: light pressure reaches only the tooth's peaks, hard pressure most of its
///   valleys, and streaks run along the stroke;
/// - **coverage** = edge x o x (1 - 0.4 (1 - h)) x fill: where graphite reaches, peaks still take more of it.
/// Passes composite toward ``sheen`` rather than 1: the layer's alpha a becomes a + coverage (sheen - a),
/// so tone builds with every pass and saturates below black.
enum _Graphite {
    /// The most alpha graphite reaches however many passes: a mid-grey pencil never makes black.
    static let sheen: Float = 0.85
    /// The soft edge's width, as a fraction of the radius, and at least 1.5 layer pixels.
    static let edgeFraction: Float = 0.25
    static let minimumEdge: Float = 1.5
    /// How far the ragged edge strays, as a fraction of the edge's width.
    static let raggedness: Float = 0.8
    /// The weight of the along-the-stroke streaks in the height the graphite meets.
    static let streakWeight: Float = 0.2
    /// Over how much of the tooth's height graphite thins out to bare paper: wide, so a pass leaves
    /// greys between its darkest and the paper, and valleys it barely reached fill with more passes.
    static let softness: Float = 0.4

    /// How much less graphite a valley holds than a peak where both are reached: the tooth shows
    /// through even a hard-pressed pass.
    static let grainContrast: Float = 0.4
    /// How deep into the tooth graphite reaches at no pressure and, added, at full pressure: a
    /// pencil pressed hard still leaves the deepest valleys lighter.
    static let minimumDepth: Float = 0.1
    static let depthRange: Float = 0.8

    /// The farthest beyond the radius graphite reaches (the edge's soft and ragged half).
    @inline(__always) static func reach(_ r: Float) -> Float { (0.5 + raggedness / 2) * max(minimumEdge, edgeFraction * r) }

    @inline(__always) static func smooth(_ x: SIMD4<Float>) -> SIMD4<Float> {
        let t = _clamp01(x)
        return t * t * (3 - 2 * t)
    }

    /// The coverage of four pixels.
    @inline(__always)
    static func coverage(
        d: SIMD4<Float>, r: SIMD4<Float>, opacity o: SIMD4<Float>, tooth t: SIMD4<Float>, streak s: SIMD4<Float>
    ) -> SIMD4<Float> {
        var w = edgeFraction * r
        w.replace(with: minimumEdge, where: w .< minimumEdge)
        let edge = smooth((r + raggedness * w * (t - 0.5) - d) / w + 0.5)
        let h = (1 - streakWeight) * t + streakWeight * s
        let depth = minimumDepth + depthRange * _clamp01(o)
        return edge * o * (1 - grainContrast * (1 - h)) * smooth((h - (1 - depth)) * (1 / softness) + 0.5)
    }
}
