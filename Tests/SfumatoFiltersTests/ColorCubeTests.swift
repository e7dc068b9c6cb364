import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// The 3D lookup tables against a Double trilinear reference on a real photo, and the `.cube`
/// reader against good and hostile files.
@Suite("Color cubes and .cube files")
struct ColorCubeTests {
    /// A smooth, non-linear grade sampled on an n-cube (red fastest).
    static func grade(_ n: Int) -> [Double] {
        var out: [Double] = []
        let k = Double(n - 1)
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    let (x, y, z) = (Double(r) / k, Double(g) / k, Double(b) / k)
                    out += [min(1, 0.1 + 0.9 * x * x + 0.1 * z), y.squareRoot() * 0.95, 0.8 * z + 0.15 * x * y, 1]
                }
            }
        }
        return out
    }

    /// The definition: clamp, scale by n - 1, mix the eight neighbours.
    static func lookup(_ data: [Double], _ n: Int, _ c: [Double]) -> [Double] {
        let s = c.prefix(3).map { min(max($0, 0), 1) * Double(n - 1) }
        let i = s.map { min(Int($0), n - 2) }
        let f = zip(s, i).map { $0 - Double($1) }
        var out = [0.0, 0, 0]
        for corner in 0..<8 {
            let d = [(corner & 1), (corner >> 1) & 1, (corner >> 2) & 1]
            var w = 1.0
            for k in 0..<3 { w *= d[k] == 1 ? f[k] : 1 - f[k] }
            let index = 4 * ((i[0] + d[0]) + n * ((i[1] + d[1]) + n * (i[2] + d[2])))
            for k in 0..<3 { out[k] += w * data[index + k] }
        }
        return out
    }

    @Test("CIColorCube in the working space, CIColorCubeWithColorSpace on sRGB-encoded values, within 1 level")
    func definition() throws {
        let photo = try Fixtures.photo("rocket.jpg")
        let n = 17, data = Self.grade(17)
        for ws in [WorkingSpace.none, .linear] {
            for srgbLookup in [false, true] {
                let filter: any Filter = srgbLookup ? ColorCubeWithColorSpace(dimension: n, data: data) : ColorCube(dimension: n, data: data)
                let out = try RenderContext(workingSpace: ws).render(filter.apply(to: Image(bitmap: photo)), rect: photo.bounds)
                var worst = 0.0
                for (x, y) in Pixels.samplePoints(photo.width, photo.height, count: 2000) {
                    let p = photo.bytes(x: x, y: y)
                    let got = out.bytes(x: x, y: y)
                    let want: [Double]
                    if srgbLookup || ws == .none {
                        want = Self.lookup(data, n, [Double(p.x) / 255, Double(p.y) / 255, Double(p.z) / 255]).map { ($0 * 255).rounded() }
                    } else {
                        want = Self.lookup(data, n, Reference.working(photo, x, y, .linear)).map { Reference.toLevel($0, .linear) }
                    }
                    for k in 0..<3 { worst = max(worst, abs(Double(got[k]) - min(max(want[k], 0), 255))) }
                }
                #expect(worst <= 1, "\(type(of: filter).descriptor.name) in \(ws): \(worst) levels")
            }
        }
    }

    @Test("the identity table leaves the photo as it is")
    func identity() throws {
        let photo = try Fixtures.photo("chelsea.png")
        let out = try RenderContext(workingSpace: .none).render(
            ColorCubeWithColorSpace(dimension: 9, data: CubeFile.identity(9)).apply(to: Image(bitmap: photo)), rect: photo.bounds)
        #expect(Pixels.maxDifference(out, photo) <= 1)
    }

    @Test(".cube files: the format's keywords and comments; hostile files refused with the line")
    func files() throws {
        var text = "# made by hand\nTITLE \"grade\"\r\nLUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1.0 1 1\n\n"
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { text += "\(r) \(g) \(Double(b) * 0.5)  # entry\n" } } }
        let cube = try CubeFile(text: text)
        #expect(cube.dimension == 2 && cube.rgba.count == 32 && cube.rgba[4 * 7 + 2] == 0.5 && cube.rgba[4 * 7 + 3] == 1)
        let hostile = [
            "LUT_1D_SIZE 4\n0 0 0\n", "0 0 0\n", "LUT_3D_SIZE 66\n", "LUT_3D_SIZE 1\n", "LUT_3D_SIZE 2\nLUT_3D_SIZE 2\n",
            "LUT_3D_SIZE 2\n" + String(repeating: "0 0 0\n", count: 7), "LUT_3D_SIZE 2\n" + String(repeating: "0 0 0\n", count: 9),
            "LUT_3D_SIZE 2\nnan 0 0\n" + String(repeating: "0 0 0\n", count: 7), "LUT_3D_SIZE 2\n1e999 0 0\n",
            "LUT_3D_SIZE 2\nDOMAIN_MAX 2 2 2\n", "LUT_3D_SIZE 2\n0 0\n", "LUT_3D_SIZE 99999999999999999999\n"
        ]
        for h in hostile { #expect(throws: SfumatoError.self, "\(h.prefix(30))") { try CubeFile(text: h) } }
        #expect(throws: SfumatoError.self) { try ColorCube(dimension: 3, data: CubeFile.identity(2)).validate() }
        #expect(throws: SfumatoError.self) {
            try FilterRegistry.make("lut", values: ["dimension": .number(2), "cube": .vector(Array(repeating: .nan, count: 32))])
        }
    }
}
