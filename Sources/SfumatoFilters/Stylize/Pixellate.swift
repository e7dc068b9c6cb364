import SfumatoCore

/// CIPixellate: the image in square cells `scale` pixels wide (rounded, at least 1), one cell's
/// corner at the centre (rounded to a pixel); each pixel takes the mean of its cell, edges clamped
/// (**choice**: Core Image samples one point per cell; the mean does not flicker as the image moves).
public struct Pixellate: DeclaredFilter, Equatable {
    public static let center = ParameterSpec.vector(
        "inputCenter", short: "center", default: [150, 150], count: 2, range: -1e6...1e6, help: "a corner of a cell, in pixels")
    public static let scale = ParameterSpec.number(
        "inputScale", default: 8, range: 1...1000, slider: 1...100, unit: .pixels, help: "the cells' side, in pixels")
    public static let fields: [FilterField<Pixellate>] = [.vector(center, \.center), .number(scale, \.scale)]
    public static let descriptor = FilterDescriptor(
        displayName: "Pixellate", coreImageName: "CIPixellate", shortName: "pixellate", category: .stylize,
        summary: "big square pixels", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(center: [150, 150], scale: 8) }

    public var center: [Double], scale: Double

    public init(center: [Double], scale: Double = 8) {
        self.center = center
        self.scale = scale
    }

    public func apply(to image: Image) -> Image {
        // Values set through the Swift API skip the declared ranges: cells of 1 (or NaN) leave the
        // image as it is, larger ones stop at 1000, a centre outside ±1e6 (or not two numbers) is
        // taken at the range's edge (or 0).
        guard scale >= 1.5 else { return image }
        let s = Int(min(scale, Self.scale.maximum ?? 1000).rounded())
        func corner(_ i: Int) -> Int {
            guard center.count == 2, !center[i].isNaN else { return 0 }
            return Int(min(max(center[i], -1e6), 1e6).rounded())
        }
        return _withEdges(image, .clamp) { $0.applying(_CellMeanKernel(size: s, x0: corner(0), y0: corner(1))) }
    }
}

/// Each pixel the mean of its `size` x `size` cell of a grid through (x0, y0).
struct _CellMeanKernel: NeighborhoodKernel {
    let size: Int, x0: Int, y0: Int
    var name: String { "CIPixellate" }
    var detail: String { "\(size)x\(size) cells" }
    func outputExtent(forInput extent: Rect) -> Rect { extent }

    /// The first pixel of the cell holding `v` on an axis whose grid passes through `origin`.
    func cellStart(_ v: Int, _ origin: Int) -> Int {
        let d = v - origin
        return origin + (d >= 0 ? d / size : -((-d + size - 1) / size)) * size
    }

    /// Calls `body` with the first pixel of each cell meeting `o` and the rows and columns of `o`
    /// it covers, cells row by row.
    func forEachCell(in o: Rect, _ body: (_ cx: Int, _ cy: Int, _ rows: Range<Int>, _ columns: Range<Int>) -> Void) {
        var cy = cellStart(o.y, y0)
        while cy < o.maxY {
            var cx = cellStart(o.x, x0)
            while cx < o.maxX {
                body(cx, cy, max(cy, o.y)..<min(cy + size, o.maxY), max(cx, o.x)..<min(cx + size, o.maxX))
                cx += size
            }
            cy += size
        }
    }

    func regionOfInterest(for output: Rect) -> Rect {
        let x = cellStart(output.x, x0), y = cellStart(output.y, y0)
        let x1 = cellStart(output.maxX - 1, x0) + size, y1 = cellStart(output.maxY - 1, y0) + size
        return Rect(x: x, y: y, width: x1 - x, height: y1 - y)
    }

    func apply(input: FloatTile, output out: FloatTile, scratch: TileScratch) throws {
        let o = out.rect
        forEachCell(in: o) { cx, cy, rows, columns in
            var acc = SIMD4<Double>.zero
            for y in cy..<(cy + size) {
                let src = input.row(y) - input.rect.x
                for x in cx..<(cx + size) { acc += SIMD4<Double>(src[x]) }
            }
            let mean = SIMD4<Float>(acc / Double(size * size))
            for y in rows {
                let dst = out.row(y) - o.x
                for x in columns { dst[x] = mean }
            }
        }
    }
}

/// The cell means on 8-bit tiles: integer sums (a cell of at most 2^23 pixels of 255 stays
/// below 2^31 in each channel), round(sum / n) by a float multiply (exact where the product's
/// error is below the 1 / 2n a mean of integers keeps from a half: cells of up to 16,000 pixels;
/// within its rounding beyond), the float route's level there.
extension _CellMeanKernel {
    var supportsBytes: Bool { true }
    var supportsGray: Bool { true }

    func apply(input: ByteTile, output out: ByteTile, scratch: TileScratch) throws {
        let o = out.rect, c = input.channels, n = size * size
        let scale = SIMD4<Float>(repeating: 1 / Float(n))
        forEachCell(in: o) { cx, cy, rows, columns in
            var acc = SIMD4<Int32>.zero
            for y in cy..<(cy + size) {
                let src = input.pointer(x: cx, y: y)
                if c == 4 {
                    let raw = UnsafeRawPointer(src)
                    for i in 0..<size { acc &+= _widenedBytes(raw.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt8>.self)) }
                } else {
                    for i in 0..<size { acc.x &+= Int32(src[i]) }
                }
            }
            let mean = SIMD4<UInt8>(truncatingIfNeeded: _roundedInts(SIMD4<Float>(acc) * scale))
            for y in rows {
                let dst = out.pointer(x: columns.lowerBound, y: y)
                if c == 4 {
                    let raw = UnsafeMutableRawPointer(dst)
                    for i in 0..<columns.count { raw.storeBytes(of: mean, toByteOffset: 4 * i, as: SIMD4<UInt8>.self) }
                } else {
                    dst.update(repeating: mean.x, count: columns.count)
                }
            }
        }
    }
}
