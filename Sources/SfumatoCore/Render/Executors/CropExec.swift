import Foundation

/// A crop: transparent outside the crop rectangle.
final class _CropExec: _Exec, @unchecked Sendable {
    let input: _Exec
    init(_ input: _Exec, extent: Rect) {
        self.input = input
        super.init(extent: extent, natural: input.natural, children: [input])
    }

    override var isPixelForPixel: Bool { true }

    override var explanation: String { "crop to \(extent)" }

    override var opaqueWithin: Bool { input.opaqueWithin }

    override var sRGBBytes: Bool { input.sRGBBytes }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let inside = rect.intersection(extent)
        if inside == rect { return try input.produce(rect, kind, w) }
        let out = w.buffer(kind, rect)
        out.zero()
        if !inside.isEmpty {
            let b = try input.produce(inside, kind, w)
            _copy(b, out, inside)
        }
        return out
    }

    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        if extent.contains(rect) { return try input.store(rect, into: d, w) }
        try super.store(rect, into: d, w)
    }
}
