import Foundation
#if arch(x86_64)
    import SfumatoAVX512
#endif

/// A run of point stages compiled for execution: adjacent linear maps multiplied into one matrix,
/// adjacent unpremultiplied operations sharing one unpremultiply / premultiply.
struct _PointProgram: @unchecked Sendable {
    enum Segment {
        /// Linear map of premultiplied pixels.
        case matrix(Matrix4)
        /// Operations on unpremultiplied pixels: curves (alpha kept) and pixel functions (alpha may change).
        case unpremultiplied([PointStage])
    }

    var segments: [Segment] = []
    /// Filter names folded into this program, in order.
    var names: [String] = []
    /// How many source stages were folded into each matrix (for plans).
    var description: [String] = []
    var isPerChannel = true

    init(stages: [PointStage], name: String, fuse: Bool = true) {
        append(stages, name: name, fuse: fuse)
    }

    init() {}

    mutating func append(_ stages: [PointStage], name: String, fuse: Bool = true) {
        names.append(name)
        for stage in stages {
            isPerChannel = isPerChannel && stage.isPerChannel
            switch stage {
            case .linear(let m):
                if fuse, case .matrix(let previous)? = segments.last {
                    segments[segments.count - 1] = .matrix(m * previous)
                    description[description.count - 1] += " + \(name)"
                } else {
                    segments.append(.matrix(m))
                    description.append("matrix[\(name)")
                }
            case .curve, .pixel, .pixelIn:
                if fuse, case .unpremultiplied(var ops)? = segments.last {
                    ops.append(stage)
                    segments[segments.count - 1] = .unpremultiplied(ops)
                    description[description.count - 1] += " + \(name) \(stage.summary)"
                } else {
                    segments.append(.unpremultiplied([stage]))
                    description.append("unpremultiply[\(name) \(stage.summary)")
                }
            }
        }
    }

    var summary: String {
        description.map { $0 + "]" }.joined(separator: " -> ")
    }

    /// Runs the program in place over `count` premultiplied pixels.
    func run(_ p: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int, alpha: UnsafeMutablePointer<Float>) {
        for segment in segments {
            switch segment {
            case .matrix(let m):
                for i in 0..<count { p[i] = m * p[i] }
            case .unpremultiplied(let ops):
                var changesAlpha = false
                for i in 0..<count {
                    let v = p[i]
                    let a = v.w
                    alpha[i] = a
                    if a != 1 {
                        if a > 0 {
                            var u = v * (1 / a)
                            u.w = a
                            p[i] = u
                        } else {
                            p[i] = SIMD4(0, 0, 0, a)
                        }
                    }
                }
                for op in ops {
                    switch op {
                    case .curve(let c): c.apply(p, count: count)
                    case .pixel(let f), .pixelIn(_, let f): f.apply(p, count: count); changesAlpha = true
                    case .linear(let m): for i in 0..<count { p[i] = m * p[i] }
                    }
                }
                if changesAlpha {
                    for i in 0..<count {
                        let v = p[i]
                        p[i] = SIMD4(v.x * v.w, v.y * v.w, v.z * v.w, v.w)
                    }
                } else {
                    for i in 0..<count {
                        let a = alpha[i]
                        let v = p[i]
                        p[i] = SIMD4(v.x * a, v.y * a, v.z * a, a)
                    }
                }
            }
        }
    }
}
