import SfumatoCore

/// CIColorMatrix: out = (R·px, G·px, B·px, A·px) + bias on the unpremultiplied colour.
///
/// When the alpha row is (0 0 0 1), the bias leaves alpha alone and no colour row reads alpha,
/// the filter is linear in premultiplied RGBA and fuses into one matrix with its neighbours;
/// otherwise it runs as its own per-pixel stage.
///
/// ```swift
/// ColorMatrix(r: [0, 1, 0, 0], g: [1, 0, 0, 0], b: [0, 0, 1, 0]).apply(to: photo)   // swap red and green
/// ```
public struct ColorMatrix: DeclaredFilter, Equatable {
    public static let rVector = ParameterSpec.vector("inputRVector", default: [1, 0, 0, 0], count: 4, help: "red row")
    public static let gVector = ParameterSpec.vector("inputGVector", default: [0, 1, 0, 0], count: 4, help: "green row")
    public static let bVector = ParameterSpec.vector("inputBVector", default: [0, 0, 1, 0], count: 4, help: "blue row")
    public static let aVector = ParameterSpec.vector("inputAVector", default: [0, 0, 0, 1], count: 4, help: "alpha row")
    public static let biasVector = ParameterSpec.vector("inputBiasVector", default: [0, 0, 0, 0], count: 4, help: "added after the rows")
    public static let fields: [FilterField<ColorMatrix>] = [
        .vector(rVector, \.r), .vector(gVector, \.g), .vector(bVector, \.b), .vector(aVector, \.a), .vector(biasVector, \.bias)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Color Matrix", coreImageName: "CIColorMatrix", shortName: "color-matrix", category: .color,
        summary: "multiply RGBA by a 4x4 matrix and add a bias", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(r: [1, 0, 0, 0]) }

    public var r: [Double], g: [Double], b: [Double], a: [Double], bias: [Double]

    /// A matrix from its rows and bias, four numbers each. A list of another length is kept as
    /// given (`init(arguments:)` refuses one) and leaves the image as it is.
    public init(
        r: [Double] = [1, 0, 0, 0], g: [Double] = [0, 1, 0, 0], b: [Double] = [0, 0, 1, 0],
        a: [Double] = [0, 0, 0, 1], bias: [Double] = [0, 0, 0, 0]
    ) {
        self.r = r; self.g = g; self.b = b; self.a = a; self.bias = bias
    }

    /// Whether the filter is linear in premultiplied RGBA.
    public var isPremultipliedLinear: Bool {
        _lists(r, g, b, a, bias, count: 4) && a == [0, 0, 0, 1] && bias[3] == 0 && r[3] == 0 && g[3] == 0 && b[3] == 0
    }

    public var preservesOpacity: Bool { _lists(a, bias, count: 4) && a == [0, 0, 0, 1] && bias[3] == 0 }

    public func apply(to image: Image) -> Image {
        guard _lists(r, g, b, a, bias, count: 4) else { return image }
        if isPremultipliedLinear {
            let m = Matrix4(rows: [
                [r[0], r[1], r[2], bias[0]], [g[0], g[1], g[2], bias[1]], [b[0], b[1], b[2], bias[2]], [0, 0, 0, 1]
            ])
            return image.applying([.linear(m)], name: Self.descriptor.name)
        }
        let m = Matrix4(rows: [r, g, b, a])
        let bv = SIMD4<Float>(bias.map(Float.init))
        return image.applying([.pixel(AffinePixelFunction(matrix: m, bias: bv))], name: Self.descriptor.name)
    }
}

/// out = M·px + bias on unpremultiplied RGBA (alpha may change).
public struct AffinePixelFunction: PixelFunction {
    public let matrix: Matrix4
    public let bias: SIMD4<Float>
    public var name: String { "affine RGBA" }

    public func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for i in 0..<count {
            var v = matrix * pixels[i] + bias
            v.w = v.w.bounded(0, 1)
            pixels[i] = v
        }
    }
}
