import SfumatoCore

/// CIColorPolynomial: each channel of the straight colour, alpha included, through its own cubic:
///
///     c' = a0 + a1 c + a2 c^2 + a3 c^3        (the coefficients per channel, in that order)
public struct ColorPolynomial: DeclaredFilter, Equatable {
    static func spec(_ key: String, _ channel: String) -> ParameterSpec {
        .vector(key, default: [0, 1, 0, 0], count: 4, help: "\(channel): a0 a1 a2 a3 of a0 + a1 c + a2 c^2 + a3 c^3")
    }
    public static let red = spec("inputRedCoefficients", "red")
    public static let green = spec("inputGreenCoefficients", "green")
    public static let blue = spec("inputBlueCoefficients", "blue")
    public static let alpha = spec("inputAlphaCoefficients", "alpha")
    public static let fields: [FilterField<ColorPolynomial>] = [
        .vector(red, \.red), .vector(green, \.green), .vector(blue, \.blue), .vector(alpha, \.alpha)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Color Polynomial", coreImageName: "CIColorPolynomial", shortName: "color-polynomial", category: .color,
        summary: "a cubic polynomial on each channel", parameters: fields.map(\.spec))

    /// Every parameter at its default (the identity).
    public init() { self.init(red: [0, 1, 0, 0]) }

    public var red: [Double], green: [Double], blue: [Double], alpha: [Double]

    public init(red: [Double] = [0, 1, 0, 0], green: [Double] = [0, 1, 0, 0], blue: [Double] = [0, 1, 0, 0], alpha: [Double] = [0, 1, 0, 0]) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public func apply(to image: Image) -> Image {
        guard _lists(red, green, blue, alpha, count: 4) else { return image }
        // Column k holds the k-th coefficient of each channel.
        let k = (0..<4).map { i in SIMD4<Float>(Float(red[i]), Float(green[i]), Float(blue[i]), Float(alpha[i])) }
        return image.applying([.pixel(CubicPixels(a0: k[0], a1: k[1], a2: k[2], a3: k[3]))], name: Self.descriptor.name)
    }
}

struct CubicPixels: PixelFunction {
    let a0: SIMD4<Float>, a1: SIMD4<Float>, a2: SIMD4<Float>, a3: SIMD4<Float>
    var name: String { "cubic polynomial" }
    /// Alpha's polynomial the identity (0, 1, 0, 0).
    var isPerChannel: Bool { a0.w == 0 && a1.w == 1 && a2.w == 0 && a3.w == 0 }

    func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for i in 0..<count {
            let c = pixels[i]
            pixels[i] = a0 + c * (a1 + c * (a2 + c * a3))  // Horner
        }
    }
}
