import SfumatoCore

/// Trilinear lookup in an n x n x n RGBA table (red fastest): the straight colour, clamped to
/// 0...1, scaled by n - 1; the eight surrounding entries mixed by the fractions. The output colour
/// is the mix's RGB, its alpha the pixel's times the mix's.
struct _CubeLookup: PixelFunction {
    let n: Int
    let table: [SIMD4<Float>]
    let name: String

    init(dimension n: Int, data: [Double], name: String) {
        self.n = n
        self.name = name
        var entries: [SIMD4<Float>] = []
        entries.reserveCapacity(n * n * n)
        for i in 0..<(n * n * n) {
            let o = 4 * i
            entries.append(SIMD4<Float>(Float(data[o]), Float(data[o + 1]), Float(data[o + 2]), Float(data[o + 3])))
        }
        table = entries
    }

    func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        let k = Float(n - 1), top = n - 2
        table.withUnsafeBufferPointer { t in
            for i in 0..<count {
                let p = pixels[i]
                // Clamped with NaN to 0 (maxps gives its second operand for NaN).
                let q = _minps(_maxps(p, .zero), .one) * k
                let c = SIMD3(q.x, q.y, q.z)
                let r = min(Int(c.x), top), g = min(Int(c.y), top), b = min(Int(c.z), top)
                let f = c - SIMD3(Float(r), Float(g), Float(b))
                let base = r + n * (g + n * b)
                let (dg, db) = (n, n * n)
                let c00 = t[base] + (t[base + 1] - t[base]) * f.x
                let c10 = t[base + dg] + (t[base + dg + 1] - t[base + dg]) * f.x
                let c01 = t[base + db] + (t[base + db + 1] - t[base + db]) * f.x
                let c11 = t[base + dg + db] + (t[base + dg + db + 1] - t[base + dg + db]) * f.x
                let c0 = c00 + (c10 - c00) * f.y, c1 = c01 + (c11 - c01) * f.y
                let v = c0 + (c1 - c0) * f.z
                pixels[i] = SIMD4(v.x, v.y, v.z, p.w * v.w)
            }
        }
    }
}

/// The parameters both cube filters declare.
enum _CubeParameters {
    static let dimension = ParameterSpec.integer(
        "inputCubeDimension", short: "dimension", default: 2, range: 2...65, unit: .taps,
        help: "the table's side n (the data holds n^3 RGBA entries)")
    static let data = ParameterSpec.vector(
        "inputCubeData", short: "cube", default: CubeFile.identity(2), count: nil,
        help: "n^3 RGBA values, red fastest; on the command line and in recipes, a .cube file's path")

    static func validate(dimension n: Int, data: [Double]) throws {
        guard (2...CubeFile.maximumDimension).contains(n) else {
            throw SfumatoError.invalidArgument("cube dimension \(n) is outside 2...\(CubeFile.maximumDimension)")
        }
        guard data.count == n * n * n * 4 else {
            throw SfumatoError.invalidArgument("cube data: \(data.count) values where dimension \(n) needs \(n * n * n * 4)")
        }
        guard data.allSatisfy({ $0.isFinite && abs($0) < 1e6 }) else {
            throw SfumatoError.invalidArgument("cube data: every value must be a finite number within +-1e6")
        }
    }
}
