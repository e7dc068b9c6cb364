import Foundation
import SfumatoCore

/// CICheckerboardGenerator: squares `width` pixels wide, a color0 square's corner at the
/// centre. With u = (x - cx) / width, v = (y - cy) / width at the pixel centre, the sign is
/// s = +1 where floor(u) + floor(v) is even (color0), -1 where odd; sharpness k softens each
/// edge over a band b = (1 - k) width / 2 on either side: with e the distance to the nearest
/// edge on an axis, g = b > 0 ? min(e / b, 1) : 1, the mix is t = (1 - s gu gv) / 2 toward color1
/// (**choice**: Apple gives no formula; k = 1 is hard-edged). Infinite extent.
public struct CheckerboardGenerator: DeclaredFilter, Equatable {
    public static let center = ParameterSpec.point("inputCenter", short: "center", default: [150, 150], help: "a corner of a color0 square")
    public static let color0 = ParameterSpec.color("inputColor0", short: "color0", default: [1, 1, 1, 1], help: "one colour")
    public static let color1 = ParameterSpec.color("inputColor1", short: "color1", default: [0, 0, 0, 1], help: "the other colour")
    public static let width = ParameterSpec.number(
        "inputWidth", short: "width", default: 80, range: 1...1e6, slider: 2...400, unit: .pixels, help: "the squares' side")
    public static let sharpness = ParameterSpec.number(
        "inputSharpness", short: "sharpness", default: 1, range: 0...1, help: "1: hard edges; less: softer")
    public static let fields: [FilterField<CheckerboardGenerator>] = [
        .vector(center, \.center), .vector(color0, \.color0), .vector(color1, \.color1), .number(width, \.width), .number(sharpness, \.sharpness)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Checkerboard", coreImageName: "CICheckerboardGenerator", shortName: "checkerboard", category: .generator,
        summary: "squares of two colours", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(center: [150, 150], color0: [1, 1, 1, 1], color1: [0, 0, 0, 1], width: 80, sharpness: 1) }

    public var center: [Double], color0: [Double], color1: [Double], width: Double, sharpness: Double

    public init(center: [Double], color0: [Double], color1: [Double], width: Double, sharpness: Double) {
        (self.center, self.color0, self.color1, self.width, self.sharpness) = (center, color0, color1, width, sharpness)
    }

    public var preservesOpacity: Bool { _lists(color0, color1, count: 4) && color0[3] >= 1 && color1[3] >= 1 }

    public func apply(to image: Image) -> Image {
        guard center.count == 2, _lists(color0, color1, count: 4) else { return .empty }
        return Image(generator: _Checkerboard(center: center, width: width, band: (1 - sharpness) * width / 2, ramp: _ColorRamp(color0, color1)))
    }
}

struct _Checkerboard: PixelGenerator {
    let center: [Double], width: Double, band: Double, ramp: _ColorRamp
    var name: String { "CICheckerboardGenerator" }
    var encoding: ColorEncoding { .srgb }

    func generate(into row: UnsafeMutablePointer<SIMD4<Float>>, x: Int, y: Int, count: Int) {
        func axis(_ p: Double) -> (odd: Bool, g: Double) {
            let u = p / width
            let cell = u.rounded(.down)
            let f = u - cell
            let e = min(f, 1 - f) * width
            let odd = cell.isFinite && Int(cell.truncatingRemainder(dividingBy: 2)) != 0
            return (odd, band > 0 ? min(e / band, 1) : 1)
        }
        let (oy, gy) = axis(Double(y) + 0.5 - center[1])
        for i in 0..<count {
            let (ox, gx) = axis(Double(x + i) + 0.5 - center[0])
            let s: Double = ox == oy ? 1 : -1
            row[i] = ramp.color(Float((1 - s * gx * gy) / 2))
        }
    }
}
