import Foundation
import SfumatoCore

/// An ink layer: strokes composited source-over onto an ``ImageAccumulator`` (premultiplied,
/// sRGB-encoded values), one stroke at a time, each composited once when it ends.
///
/// ```swift
/// let layer = try InkLayer(width: 1920, height: 1280)
/// let stroke = layer.begin(BrushSettings(kind: .forcePen))
/// stroke.append(samples)          // returns the dirty rectangle
/// layer.commit(stroke)            // composites it
/// ```
public final class InkLayer: @unchecked Sendable {
    /// The layer's pixels.
    public let accumulator: ImageAccumulator
    /// Layer pixels per document pixel (a preview layer of a large photo has scale < 1).
    public let scale: Double
    private var fadeScratch: UnsafeMutablePointer<SIMD4<Float>>?
    private var fadeScratchCount = 0

    /// A transparent layer of `width` x `height` layer pixels.
    public init(width: Int, height: Int, scale: Double = 1, format: PixelFormat = .rgbaFloat32) throws {
        accumulator = try ImageAccumulator(extent: Rect(width: width, height: height), format: format, encoding: .srgb)
        self.scale = scale
    }

    deinit { fadeScratch?.deallocate() }

    public var width: Int { accumulator.extent.width }
    public var height: Int { accumulator.extent.height }

    /// The layer as a recipe (premultiplied sRGB-encoded values: render it in the `.none`
    /// working space, or convert).
    public var image: Image { accumulator.image }

    /// Starts a stroke on this layer.
    public func begin(_ settings: BrushSettings, hasPressure: Bool = true) -> StrokeRenderer {
        StrokeRenderer(settings: settings, scale: scale, clip: accumulator.extent, hasPressure: hasPressure)
    }

    /// Composites a finished (or, at a disconnect, unfinished) stroke onto the layer; returns the
    /// changed pixels.
    @discardableResult
    public func commit(_ stroke: StrokeRenderer) -> Rect {
        if !stroke.isFinished { stroke.finish() }
        let area = stroke.bounds.intersection(accumulator.extent)
        if area.isEmpty { return .zero }
        let b = accumulator.bitmap
        if b.format == .rgbaFloat32 {
            // Straight into the layer's rows: only the columns the stroke inked are read and written.
            let x0 = area.x
            stroke.composite(onto: { b.row($0).assumingMemoryBound(to: SIMD4<Float>.self) + x0 }, area: area)
            return area
        }
        let s = _CoverageMask.tileSize
        let rows = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: s * s)
        defer { rows.deallocate() }
        stroke.forEachTile(in: area) { r, _, _ in
            for y in r.y..<r.maxY { _readRow(b, y, r.x, r.width, rows + (y - r.y) * s) }
            stroke.composite(onto: { rows + ($0 - r.y) * s }, area: r)  // one tile: one lookup
            for y in r.y..<r.maxY { _writeRow(b, y, r.x, r.width, rows + (y - r.y) * s) }
        }
        return area
    }

    /// Draws a whole stroke at once (replaying a document, rendering a scene).
    @discardableResult
    public func draw(_ stroke: Stroke) -> Rect {
        let r = begin(stroke.brush, hasPressure: stroke.hasPressure)
        r.append(stroke.samples)
        defer { r.discard() }
        return commit(r)
    }

    /// Clears the layer.
    public func clear() { accumulator.clear() }

    /// Premultiplied sRGB-encoded floats of `count` pixels of row `y` from column `x`.
    public func readRow(_ y: Int, x: Int, count: Int, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        _readRow(accumulator.bitmap, y, x, count, out)
    }

    /// Whether every pixel is fully transparent.
    public var isEmpty: Bool {
        let b = accumulator.bitmap
        for y in 0..<b.height {
            let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: b.width)
            defer { row.deallocate() }
            _readRow(b, y, 0, b.width, row)
            for x in 0..<b.width where row[x].w > 0 { return false }
        }
        return true
    }

    // MARK: ForceSketch's fade

    /// How the fade's brightness step acts.
    public enum FadeMode: String, Sendable {
        /// Exactly ForceSketch: brightness +0.05 on the unpremultiplied colour, so strokes whiten
        /// and vanish into a white canvas (alpha only spreads).
        case whiten
        /// For a transparent layer over a photo, where whitening would leave a white haze: the
        /// same step lowers opacity instead (alpha - 0.05, colour kept), so strokes vanish into
        /// whatever is underneath in the same twenty-odd frames and the layer empties (decision).
        case transparent
    }

    /// One display frame of ForceSketch's fade: accumulator <- gaussianBlur(radius 1)(
    /// colourControls(brightness +0.05)(accumulator)), with Core Image's rules (transparent
    /// outside the layer), in place: the two buffers of the accumulator swap, scratch rows are
    /// kept between frames, nothing is allocated per frame. Returns the largest alpha left
    /// (0: the layer is empty).
    ///
    /// `inkIn`: where the layer may hold ink (it is transparent elsewhere; default: anywhere). The
    /// step then filters only that rectangle grown by the blur's reach and clears the rest of the
    /// new buffer: a stroke's fade on a 1116x744 layer went from the whole layer's 40-70 ms of CPU
    /// a frame to its own few hundred thousand pixels. Example: `layer.fadeStep(inkIn: bounds)`,
    /// then grow `bounds` by 3 (the blur's reach at sigma 1) for the next frame.
    @discardableResult
    public func fadeStep(
        _ mode: FadeMode = .transparent, brightness: Float = 0.05, sigma: Double = 1,
        inkIn region: Rect? = nil
    ) -> Float {
        let w = width, h = height
        let radius = Int((3 * sigma).rounded(.up))
        var weights = (0...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let norm = weights[0] + 2 * weights.dropFirst().reduce(0, +)
        weights = weights.map { $0 / norm }
        // What this step writes: the ink's rectangle grown by the blur's reach, within the layer.
        let layer = Rect(width: w, height: h)
        let area = (region ?? layer).insetBy(dx: -radius, dy: -radius).intersection(layer)
        // Scratch kept between frames: a float copy of the horizontal pass, plus one padded row
        // per band of rows.
        let bands = _InkConstants.bands
        let rowLength = w + 2 * radius
        let needed = w * h + bands * rowLength
        if fadeScratchCount < needed {
            fadeScratch?.deallocate()
            fadeScratch = .allocate(capacity: needed)
            fadeScratchCount = needed
        }
        let mid = _UnsafeBox(fadeScratch!)
        let maxAlpha = _MaxFloat()
        let weightsBox = _UnsafeBox(weights)
        let x0 = area.x, n = area.width, y0 = area.y, rows = area.height
        accumulator.withBuffers { source, destination in
            let src = _UnsafeBox(source), dst = _UnsafeBox(destination)
            // Outside `area` the new buffer is transparent (it may hold an older frame there).
            _clearOutside(area, destination)
            if area.isEmpty { return }
            // Horizontal pass over `area`'s rows, with the brightness, into `mid` (the source is
            // read `radius` columns either side; beyond the layer it is transparent).
            parallelFor(bands) { band in
                let row = mid.value + w * h + band * rowLength
                let weights = weightsBox.value
                let from = max(0, x0 - radius), to = min(w, x0 + n + radius)
                for y in (y0 + band * rows / bands)..<(y0 + (band + 1) * rows / bands) {
                    row.update(repeating: .zero, count: n + 2 * radius)
                    _readRow(src.value, y, from, to - from, row + radius + (from - x0))
                    for i in (radius + from - x0)..<(radius + to - x0) {
                        var v = row[i]
                        let a = v.w
                        if a > 0 {
                            if mode == .whiten {
                                v += SIMD4(brightness * a, brightness * a, brightness * a, 0)
                                v = v.bounded(0, a)
                                v.w = a
                            } else {
                                v *= max(0, a - brightness) / a
                            }
                            row[i] = v
                        }
                    }
                    let out = mid.value + y * w + x0
                    for x in 0..<n {
                        var acc = row[radius + x] * weights[0]
                        for k in 1...radius { acc += (row[radius + x - k] + row[radius + x + k]) * weights[k] }
                        out[x] = acc
                    }
                }
            }
            // Vertical pass into the back buffer (rows beyond `area` are transparent: nothing
            // within the blur's reach of them holds ink).
            parallelFor(bands) { band in
                let out = mid.value + w * h + band * rowLength
                let weights = weightsBox.value
                var localMax: Float = 0
                for y in (y0 + band * rows / bands)..<(y0 + (band + 1) * rows / bands) {
                    for x in x0..<(x0 + n) {
                        var acc = mid.value[y * w + x] * weights[0]
                        for k in 1...radius {
                            let up = y - k >= y0 ? mid.value[(y - k) * w + x] : .zero
                            let down = y + k < y0 + rows ? mid.value[(y + k) * w + x] : .zero
                            acc += (up + down) * weights[k]
                        }
                        out[x - x0] = acc
                    }
                    _writeRow(dst.value, y, x0, n, out)
                    // What was stored counts: 8-bit layers round faint alpha to 0, which is how they empty.
                    _readRow(dst.value, y, x0, n, out)
                    for x in 0..<n { localMax = max(localMax, out[x].w) }
                }
                maxAlpha.update(localMax)
            }
        }
        return maxAlpha.value
    }
}

/// Sets every pixel of `b` outside `keep` to transparent black.
func _clearOutside(_ keep: Rect, _ b: Bitmap) {
    let bpp = b.format.bytesPerPixel
    for y in 0..<b.height {
        if keep.isEmpty || y < keep.y || y >= keep.maxY {
            memset(b.row(y), 0, b.width * bpp)
        } else {
            if keep.x > 0 { memset(b.row(y), 0, keep.x * bpp) }
            if keep.maxX < b.width { memset(b.row(y) + keep.maxX * bpp, 0, (b.width - keep.maxX) * bpp) }
        }
    }
}

enum _InkConstants {
    /// Bands of rows processed in parallel by the fade (each with its own scratch row).
    static let bands = 16
}

/// Reads premultiplied floats from a layer bitmap row (RGBA8 or Float32).
func _readRow(_ b: Bitmap, _ y: Int, _ x: Int, _ n: Int, _ out: UnsafeMutablePointer<SIMD4<Float>>) {
    if b.format == .rgbaFloat32 {
        out.update(from: b.row(y).assumingMemoryBound(to: SIMD4<Float>.self) + x, count: n)
    } else {
        let p = b.row(y).assumingMemoryBound(to: UInt8.self) + 4 * x
        for i in 0..<n {
            out[i] = SIMD4(Float(p[4 * i]), Float(p[4 * i + 1]), Float(p[4 * i + 2]), Float(p[4 * i + 3])) * (1 / 255)
        }
    }
}

/// Writes premultiplied floats to a layer bitmap row (clamped and rounded for RGBA8).
func _writeRow(_ b: Bitmap, _ y: Int, _ x: Int, _ n: Int, _ v: UnsafePointer<SIMD4<Float>>) {
    if b.format == .rgbaFloat32 {
        (b.row(y).assumingMemoryBound(to: SIMD4<Float>.self) + x).update(from: v, count: n)
    } else {
        let p = b.row(y).assumingMemoryBound(to: UInt8.self) + 4 * x
        for i in 0..<n {
            let a = v[i].w.bounded(0, 1)
            let c = v[i].bounded(0, a) * 255
            p[4 * i] = UInt8(c.x + 0.5)
            p[4 * i + 1] = UInt8(c.y + 0.5)
            p[4 * i + 2] = UInt8(c.z + 0.5)
            p[4 * i + 3] = UInt8(a * 255 + 0.5)
        }
    }
}

struct _UnsafeBox<T>: @unchecked Sendable {
    let value: T
    init(_ v: T) { value = v }
}

final class _MaxFloat: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var value: Float = 0
    func update(_ v: Float) {
        lock.lock()
        value = max(value, v)
        lock.unlock()
    }
}
