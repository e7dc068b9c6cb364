import SfumatoCore

/// CIMaximumComponent: grey from the largest colour channel, m = max(R, G, B); alpha kept.
public struct MaximumComponent: DeclaredFilter, Equatable {
    public static let fields: [FilterField<MaximumComponent>] = []
    public static let descriptor = FilterDescriptor(
        displayName: "Maximum Component", coreImageName: "CIMaximumComponent", shortName: "maximum-component", category: .color,
        summary: "grey from each pixel's largest channel", parameters: fields.map(\.spec))

    public init() {}

    public func apply(to image: Image) -> Image {
        image.applying([.pixel(ComponentGrey(largest: true))], name: Self.descriptor.name)
    }
}

/// CIMinimumComponent: grey from the smallest colour channel, m = min(R, G, B); alpha kept.
public struct MinimumComponent: DeclaredFilter, Equatable {
    public static let fields: [FilterField<MinimumComponent>] = []
    public static let descriptor = FilterDescriptor(
        displayName: "Minimum Component", coreImageName: "CIMinimumComponent", shortName: "minimum-component", category: .color,
        summary: "grey from each pixel's smallest channel", parameters: fields.map(\.spec))

    public init() {}

    public func apply(to image: Image) -> Image {
        image.applying([.pixel(ComponentGrey(largest: false))], name: Self.descriptor.name)
    }
}

struct ComponentGrey: PixelFunction {
    let largest: Bool
    var name: String { largest ? "max(R, G, B)" : "min(R, G, B)" }

    func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for i in 0..<count {
            let p = pixels[i]
            let m = largest ? max(p.x, p.y, p.z) : min(p.x, p.y, p.z)
            pixels[i] = SIMD4(m, m, m, p.w)
        }
    }

    /// 8-bit pixels directly: the stored levels' order is their working values' (both working
    /// spaces' conversions are increasing), and a level read and stored again is the same level,
    /// so the largest (smallest) level is what the float path stores.
    var mapsStraightBytes: Bool { true }
    func apply(_ bytes: StraightBytes) {
        let src = UnsafeRawPointer(bytes.source), dst = UnsafeMutableRawPointer(bytes.destination)
        var i = 0
        // Four pixels a step where none is clear: the pixel's bytes shifted down by one and two
        // bytes, so that the low byte of each 32-bit lane meets G and B beside R.
        while i + 4 <= bytes.count {
            let v = src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<UInt8>.self)
            let w = unsafeBitCast(v, to: SIMD4<UInt32>.self)
            let alpha = w & 0xFF00_0000
            if alpha.x == 0 || alpha.y == 0 || alpha.z == 0 || alpha.w == 0 { break }
            let g = _bytesShiftedDown(w, 8), b = _bytesShiftedDown(w, 16)
            let m = largest ? _maxBytes(v, _maxBytes(g, b)) : _minBytes(v, _minBytes(g, b))
            let level = unsafeBitCast(m, to: SIMD4<UInt32>.self) & 0xFF
            dst.storeBytes(of: level &* 0x01_0101 | alpha, toByteOffset: 4 * i, as: SIMD4<UInt32>.self)
            i += 4
        }
        for i in i..<bytes.count {
            let p = src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt8>.self)
            let a = p.w
            let m = a == 0 ? 0 : largest ? max(p.x, p.y, p.z) : min(p.x, p.y, p.z)
            dst.storeBytes(of: SIMD4(m, m, m, a), toByteOffset: 4 * i, as: SIMD4<UInt8>.self)
        }
    }
}
