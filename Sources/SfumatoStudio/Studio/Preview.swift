import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoFilters
import SfumatoInk

/// One page's view of the document at its screen size: the picture (photo, edits and colour
/// parameters) as 8-bit pixels, the ink layers at the same scale, and a frame buffer that
/// composites them. Everything here runs on the session's own serial queue.
final class _Preview: @unchecked Sendable {
    let width: Int
    let height: Int
    /// Preview pixels per document pixel.
    let scale: Double
    /// Photo resampled to the preview, plus the edit stack; the key says which edits.
    var base: Bitmap?
    var baseKey = ""
    /// `base` through the PencilController chain, tone curve and gallery preset.
    var adjusted: Bitmap?
    var adjustedKey = ""
    /// Ink: Shade strokes, kept Sketch strokes, and ForceSketch's fading layer (8-bit, as the app).
    let shade: InkLayer
    let sketch: InkLayer
    let fading: InkLayer
    /// The kept strokes drawn into `shade` and `sketch` (document ids).
    var inkedStrokes = Set<Int>()
    /// Where the kept layers and the fading layer hold ink (pixels outside are copied, not blended).
    var keptBounds = Rect.zero
    var fadingBounds = Rect.zero
    /// The composited picture the page sees.
    let frame: Bitmap
    /// On the GPU when there is one (the look is a whole-frame render of a decoded bitmap, which
    /// the GPU route takes); the CPU otherwise.
    let context = RenderContext(options: .init(workingSpace: .none, device: .auto))
    /// Drafts are small (a ninth of the preview): one thread renders one in well under a
    /// millisecond, and a fork-join across cores would wait for whichever core the browser holds.
    let draftContext = RenderContext(options: .init(workingSpace: .none, threads: 1))

    init(width: Int, height: Int, documentWidth: Int) throws {
        self.width = width
        self.height = height
        scale = Double(width) / Double(documentWidth)
        shade = try InkLayer(width: width, height: height, scale: scale)
        sketch = try InkLayer(width: width, height: height, scale: scale)
        fading = try InkLayer(width: width, height: height, scale: scale, format: .rgba8)
        frame = try Bitmap(width: width, height: height, format: .rgba8, alpha: .straight)
    }

    var bounds: Rect { Rect(width: width, height: height) }

    /// Brings `base` and `adjusted` up to date with a document state (and live parameters).
    func update(document: Document, state: DocumentState, beforeAfter: Bool) throws {
        let key = "\(state.edits.count):" + state.edits.map { "\($0.filter)\($0.values)\($0.workingSpace)" }.joined(separator: "|")
        if base == nil || key != baseKey {
            var s = DocumentState()
            s.edits = state.edits
            base = try context.render(try document.interactiveRecipe(width: width, state: s), rect: bounds)
            baseKey = key
            adjusted = nil
        }
        var look = state
        look.strokes = []
        look.edits = []
        if beforeAfter { look = DocumentState() }
        let lookKey = "\(beforeAfter)\(look.adjust)\(look.curve)\(look.preset)\(look.presetReference ?? "")"
        if adjusted == nil || lookKey != adjustedKey {
            let image = try document.look(look, on: Image(bitmap: base!))
            let out = try adjusted ?? Bitmap(width: width, height: height, format: .rgba8, alpha: .straight)
            try context.render(image, rect: bounds, into: out)
            adjusted = out
            adjustedKey = lookKey
        }
    }

    /// Draft frames are this many times smaller than the preview on each side. A ninth of the
    /// pixels: in the latency test on a 2-core machine, Adjust's p50 went from ~39 ms (half
    /// size) to ~24 ms, since the page's JPEG decode gates every frame; colour is what the
    /// user judges while dragging, and the sharp full frame follows when the pen lifts.
    static let draftDivisor = 3

    /// Reduced base and picture for draft frames while a pen drags the colour parameters.
    var draftBase: Bitmap?
    var draftBaseKey = ""
    var draft: Bitmap?

    /// A draft frame: the look rendered over a reduced copy of the picture's base (a third of
    /// each side), with the kept ink sampled at that size. A ninth of the pixels to filter,
    /// encode, send and decode, so the picture keeps up with the pen; the full frame follows
    /// when the pen lifts. The bitmap is reused by the next draft.
    func renderDraft(document: Document, state: DocumentState, beforeAfter: Bool) throws -> Bitmap? {
        guard base != nil else { return nil }
        let k = _Preview.draftDivisor
        let dw = max(1, width / k), dh = max(1, height / k)
        try prepareDraft()
        var look = state
        look.strokes = []
        look.edits = []
        if beforeAfter { look = DocumentState() }
        let out = try draft ?? Bitmap(width: dw, height: dh, format: .rgba8, alpha: .straight)
        draft = out
        try draftContext.render(try document.look(look, on: Image(bitmap: draftBase!)), rect: Rect(width: dw, height: dh), into: out)
        let ink = keptBounds.union(fadingBounds)
        if !beforeAfter && !ink.isEmpty {
            // Only the columns the ink covers are read from each layer.
            let columns = (ink.x / k)..<min(dw, (ink.maxX + k - 1) / k)
            let first = min(k * columns.lowerBound, width - 1)
            let count = min(k * (columns.upperBound - 1), width - 1) - first + 1
            let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: max(count, 1))
            defer { row.deallocate() }
            for y in (ink.y / k)..<min(dh, (ink.maxY + k - 1) / k) where !columns.isEmpty {
                let o = out.row(y).assumingMemoryBound(to: UInt8.self)
                for layer in [shade, sketch, fading] {
                    layer.readRow(min(k * y, height - 1), x: first, count: count, into: row)
                    for x in columns {
                        let sv = row[min(k * x, width - 1) - first]
                        if sv.w <= 0 { continue }
                        let p = o + 4 * x
                        let bg = SIMD4<Float>(Float(p[0]), Float(p[1]), Float(p[2]), 255) * (1 / 255)
                        let v = sv + bg * (1 - sv.w)
                        p[0] = UInt8(v.x.bounded(0, 1) * 255 + 0.5)
                        p[1] = UInt8(v.y.bounded(0, 1) * 255 + 0.5)
                        p[2] = UInt8(v.z.bounded(0, 1) * 255 + 0.5)
                    }
                }
            }
        }
        return out
    }

    /// Brings the reduced photo that drafts start from up to date (it took the first draft of a
    /// drag 20-25 ms: done when an Adjust button is pressed, the draft path is warm when the pen lands).
    func prepareDraft() throws {
        guard let base, draftBase == nil || draftBaseKey != baseKey else { return }
        let k = _Preview.draftDivisor
        let dw = max(1, width / k), dh = max(1, height / k)
        draftBase = try context.render(Image(bitmap: base).resized(width: dw, height: dh), rect: Rect(width: dw, height: dh))
        draftBaseKey = baseKey
    }

    /// Redraws the kept ink layers from the document's strokes when they changed.
    func updateInk(_ state: DocumentState) {
        let kept = state.strokes.filter { !$0.stroke.fades }
        if Set(kept.map(\.id)) == inkedStrokes { return }
        shade.clear()
        sketch.clear()
        keptBounds = .zero
        for s in kept {
            keptBounds = keptBounds.union((s.layer == .shade ? shade : sketch).draw(s.stroke))
        }
        inkedStrokes = Set(kept.map(\.id))
    }

    /// Composites `rect` of the frame: picture, Shade, Sketch, the fading layer and the strokes
    /// in progress (straight RGBA8; the picture counts as opaque, so the ink's pixels are too).
    func compose(_ rect: Rect, active: [StrokeRenderer], showInk: Bool) {
        let r = rect.intersection(bounds)
        if r.isEmpty { return }
        guard let adjusted else { return }
        // Only where there is ink is anything blended; the rest of the picture is copied.
        var inkArea = Rect.zero
        if showInk {
            inkArea = keptBounds.union(fadingBounds)
            for stroke in active { inkArea = inkArea.union(stroke.bounds) }
            inkArea = inkArea.intersection(r)
        }
        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: max(inkArea.width, 1))
        let layer = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: max(inkArea.width, 1))
        defer { row.deallocate(); layer.deallocate() }
        for y in r.y..<r.maxY {
            memcpy(frame.row(y) + 4 * r.x, adjusted.row(y) + 4 * r.x, 4 * r.width)
            guard y >= inkArea.y && y < inkArea.maxY else { continue }
            let a = inkArea
            let src = adjusted.row(y).assumingMemoryBound(to: UInt8.self) + 4 * a.x
            for x in 0..<a.width {
                // The preview shows the picture opaque (as its JPEG frames do, and the drafts): a
                // translucent photo's straight colours must not be taken for premultiplied ones.
                let p = src + 4 * x
                row[x] = SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), 255) * (1 / 255)
            }
            for ink in [shade, sketch, fading] {
                ink.readRow(y, x: a.x, count: a.width, into: layer)
                for x in 0..<a.width {
                    let s = layer[x]
                    if s.w > 0 { row[x] = s + row[x] * (1 - s.w) }
                }
            }
            for stroke in active {
                stroke.compositeRow(y, x0: a.x, count: a.width, onto: row)
            }
            let out = frame.row(y).assumingMemoryBound(to: UInt8.self) + 4 * a.x
            for x in 0..<a.width {
                let v = row[x]
                let a = v.w.bounded(0, 1)
                let c = a > 0 ? v * (1 / a) : .zero
                let o = out + 4 * x
                o[0] = UInt8(c.x.bounded(0, 1) * 255 + 0.5)
                o[1] = UInt8(c.y.bounded(0, 1) * 255 + 0.5)
                o[2] = UInt8(c.z.bounded(0, 1) * 255 + 0.5)
                o[3] = UInt8(a * 255 + 0.5)
            }
        }
    }

    /// The RGBA bytes of a region of the frame, row after row (a raw frame for a page on loopback).
    func rawPixels(_ rect: Rect) -> [UInt8]? {
        _rawBytes(frame, rect)
    }

    /// JPEG of a region of the frame, straight from the frame buffer (no copy).
    func jpeg(_ rect: Rect, quality: Int = 85) -> [UInt8]? {
        let r = rect.intersection(bounds)
        if r.isEmpty { return nil }
        return try? JPEG.encode(
            rows: frame.row(r.y) + 4 * r.x, width: r.width, height: r.height, rowBytes: frame.rowBytes,
            options: _Preview.frameOptions(quality: quality))
    }

    /// Preview frames: 4:2:0 and the fast DCT (they go out many times a second, and are replaced).
    static func frameOptions(quality: Int) -> EncodeOptions {
        var o = EncodeOptions(quality: quality)
        o.chromaSubsampling = .s420
        o.fastDCT = true
        return o
    }
}

/// Decodes a camera frame (a JPEG of at most 4096x4096) into RGBA8, or nil.
func _decodeCameraFrame(_ bytes: ArraySlice<UInt8>) -> Bitmap? {
    var options = DecodeOptions(pixelLimit: 4096 * 4096)
    options.applyOrientation = false
    guard let decoded = try? JPEG.decode(Array(bytes), name: "camera frame", options: options),
        decoded.bitmap.width <= 4096, decoded.bitmap.height <= 4096
    else { return nil }
    return decoded.bitmap
}

/// The RGBA bytes of a region of an RGBA8 bitmap, row after row without padding; nil when the
/// region is empty.
func _rawBytes(_ b: Bitmap, _ rect: Rect) -> [UInt8]? {
    let r = rect.intersection(Rect(width: b.width, height: b.height))
    if r.isEmpty { return nil }
    let rowBytes = 4 * r.width
    return [UInt8](unsafeUninitializedCapacity: rowBytes * r.height) { buffer, count in
        for y in 0..<r.height {
            memcpy(buffer.baseAddress! + y * rowBytes, b.row(r.y + y) + 4 * r.x, rowBytes)
        }
        count = rowBytes * r.height
        // Opaque, as a JPEG is: the page's canvases are opaque, and what a browser makes of a
        // translucent pixel put there is its own choice (Chromium ignores the alpha).
        for i in stride(from: 3, to: count, by: 4) { buffer[i] = 255 }
    }
}

/// JPEG of a whole opaque RGBA8 bitmap (a draft or a filtered camera frame).
func _encodeJPEG(_ b: Bitmap, quality: Int) -> [UInt8]? {
    try? withExtendedLifetime(b) {
        try JPEG.encode(
            rows: b.baseAddress, width: b.width, height: b.height, rowBytes: b.rowBytes,
            options: _Preview.frameOptions(quality: quality))
    }
}
