import Foundation
import Synchronization

/// A block of pixels in memory: the input and output of renders, owned and freed by this object.
///
/// Rows are `rowBytes` apart; pixels are RGBA in ``format``, with colour encoded by ``encoding`` and
/// alpha stored as ``alpha`` says. A bitmap is a reference type so large pixel buffers are never
/// copied by accident; it is `Sendable` because distinct renders write distinct rows.
///
/// ```swift
/// let bitmap = try Bitmap(width: 640, height: 480, format: .rgba8)
/// bitmap.setPixel(x: 0, y: 0, [1, 0, 0, 1])   // opaque red
/// ```
public final class Bitmap: @unchecked Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Storage format of each pixel.
    public let format: PixelFormat
    /// Transfer function of the stored colour values.
    public let encoding: ColorEncoding
    /// Whether colour is premultiplied by alpha.
    public let alpha: AlphaMode
    /// Distance between the starts of two rows, in bytes.
    public let rowBytes: Int
    /// The first byte of the first row.
    public let baseAddress: UnsafeMutableRawPointer

    /// Set by ``declareOpaque()``; forgotten by every write Sfumato makes through its own API.
    var _declaredOpaque = false

    /// The largest bitmap Sfumato allocates by default, in pixels (2 gigapixels).
    public static let maximumPixelCount = 2_000_000_000

    /// Allocates a bitmap filled with transparent black (zero).
    ///
    /// - Throws: ``SfumatoError/tooLarge`` when width x height exceeds ``maximumPixelCount``
    ///   or memory cannot be had; ``SfumatoError/invalidArgument`` for a non-positive size.
    public convenience init(
        width: Int, height: Int, format: PixelFormat = .rgba8,
        encoding: ColorEncoding? = nil, alpha: AlphaMode = .premultiplied
    ) throws {
        try self.init(width: width, height: height, format: format, encoding: encoding, alpha: alpha, zeroed: true)
    }

    /// Allocates a bitmap whose bytes are unspecified, for code that writes every pixel before
    /// anything reads it (a decoder's rows): its memory is not cleared, and may be the block a
    /// freed bitmap of the same size left, with no fresh pages to fault in (a 24-megapixel
    /// decode's page faults cost about a fifth of it).
    ///
    /// - Throws: as ``init(width:height:format:encoding:alpha:)``.
    public static func forOverwrite(
        width: Int, height: Int, format: PixelFormat = .rgba8, encoding: ColorEncoding? = nil, alpha: AlphaMode = .premultiplied
    ) throws -> Bitmap {
        try Bitmap(width: width, height: height, format: format, encoding: encoding, alpha: alpha, zeroed: false)
    }

    /// A bitmap whose bytes are unspecified unless `zeroed`: only for callers that write every
    /// pixel before anything reads it (a render's output), which may then reuse freed memory.
    init(width: Int, height: Int, format: PixelFormat, encoding: ColorEncoding?, alpha: AlphaMode, zeroed: Bool) throws {
        guard width > 0, height > 0 else {
            throw SfumatoError.invalidArgument("bitmap size \(width)x\(height) must be positive")
        }
        guard width <= Bitmap.maximumPixelCount / height else {
            throw SfumatoError.tooLarge("bitmap of \(width)x\(height) pixels exceeds the limit of \(Bitmap.maximumPixelCount) pixels")
        }
        self.width = width
        self.height = height
        self.format = format
        self.encoding = encoding ?? (format == .rgbaFloat32 ? .linear : .srgb)
        self.alpha = alpha
        self.rowBytes = width * format.bytesPerPixel
        let byteCount = height * rowBytes
        let memory = zeroed ? _PixelMemory.allocateZeroed(byteCount: byteCount) : _PixelMemory.allocateForOverwrite(byteCount: byteCount)
        guard let memory else {
            throw SfumatoError.tooLarge("cannot allocate \(width)x\(height) \(format)")
        }
        self.baseAddress = memory
    }

    deinit {
        // A GPU device that locked this bitmap's pages unlocks them first (one atomic load for
        // every other bitmap: nothing is asked until a device has locked pages at all).
        if _BitmapFreeObserver.active.load(ordering: .acquiring) { _BitmapFreeObserver.willFree(baseAddress) }
        _PixelMemory.free(baseAddress, byteCount: byteCount)
    }

    /// The bitmap's rectangle, at the origin.
    public var bounds: Rect { Rect(width: width, height: height) }

    /// Total bytes of pixel data.
    public var byteCount: Int { rowBytes * height }

    /// The start of row `y`.
    @inlinable public func row(_ y: Int) -> UnsafeMutableRawPointer {
        baseAddress + y * rowBytes
    }

    /// Reads a pixel as four floats, scaled to 0...1 for integer formats, exactly as stored
    /// (no change of encoding or alpha).
    public func pixel(x: Int, y: Int) -> SIMD4<Float> {
        precondition(bounds.contains(x: x, y: y), "pixel (\(x), \(y)) outside \(width)x\(height)")
        let p = row(y)
        switch format {
        case .rgba8:
            let b = p.assumingMemoryBound(to: UInt8.self) + 4 * x
            return SIMD4(Float(b[0]), Float(b[1]), Float(b[2]), Float(b[3])) / 255
        case .rgba16:
            let b = p.assumingMemoryBound(to: UInt16.self) + 4 * x
            return SIMD4(Float(b[0]), Float(b[1]), Float(b[2]), Float(b[3])) / 65535
        case .rgbaFloat32:
            return p.assumingMemoryBound(to: SIMD4<Float>.self)[x]
        case .gray8:
            let g = Float(p.load(fromByteOffset: x, as: UInt8.self)) / 255
            return SIMD4(g, g, g, 1)
        case .rgb8:
            let b = p.assumingMemoryBound(to: UInt8.self) + 3 * x
            return SIMD4(Float(b[0]) / 255, Float(b[1]) / 255, Float(b[2]) / 255, 1)
        }
    }

    /// Writes a pixel from four floats (0...1 for integer formats; clamped and rounded). A
    /// ``PixelFormat/gray8`` pixel keeps the luminance of the colour over black, as renders do:
    /// ``SRGB/luminanceWeights`` on R, G and B as given, times alpha.
    public func setPixel(x: Int, y: Int, _ value: SIMD4<Float>) {
        precondition(bounds.contains(x: x, y: y), "pixel (\(x), \(y)) outside \(width)x\(height)")
        _declaredOpaque = false
        let p = row(y)
        switch format {
        case .rgba8:
            let b = p.assumingMemoryBound(to: UInt8.self) + 4 * x
            for c in 0..<4 { b[c] = UInt8(max(0, min(255, (value[c] * 255).rounded()))) }
        case .rgba16:
            let b = p.assumingMemoryBound(to: UInt16.self) + 4 * x
            for c in 0..<4 { b[c] = UInt16(max(0, min(65535, (value[c] * 65535).rounded()))) }
        case .rgbaFloat32:
            p.assumingMemoryBound(to: SIMD4<Float>.self)[x] = value
        case .gray8:
            let y = (value * SRGB.luminanceWeights).sum() * value.w.bounded(0, 1)
            p.storeBytes(of: UInt8(max(0, min(255, (y * 255).rounded()))), toByteOffset: x, as: UInt8.self)
        case .rgb8:
            let b = p.assumingMemoryBound(to: UInt8.self) + 3 * x
            for c in 0..<3 { b[c] = UInt8(max(0, min(255, (value[c] * value.w.bounded(0, 1) * 255).rounded()))) }
        }
    }

    /// The raw 8-bit channels of pixel (`x`, `y`) of an RGBA8 bitmap.
    public func bytes(x: Int, y: Int) -> SIMD4<UInt8> {
        precondition(format == .rgba8 && bounds.contains(x: x, y: y))
        return (row(y) + 4 * x).loadUnaligned(as: SIMD4<UInt8>.self)
    }

    /// Fills every pixel with transparent black.
    public func clear() {
        _declaredOpaque = false
        memset(baseAddress, 0, byteCount)
    }

    /// A copy of the pixels, format and flags.
    public func copy() throws -> Bitmap {
        let other = try Bitmap(width: width, height: height, format: format, encoding: encoding, alpha: alpha)
        memcpy(other.baseAddress, baseAddress, byteCount)
        other._declaredOpaque = _declaredOpaque
        return other
    }

    /// Whether every pixel has alpha 1: declared (``declareOpaque()``) or checked over the data.
    public var isOpaque: Bool { _isOpaque(threads: defaultThreadCount) }

    /// Declares that every pixel has alpha 1, so renders need not read the whole bitmap to find
    /// out (a 24-megapixel check costs about a tenth of a fast 8-bit filter). Decoders call it for
    /// images without alpha. Setting a pixel, clearing and rendering into the bitmap forget it;
    /// code that writes alpha below 1 through ``baseAddress`` or ``row(_:)`` must call
    /// ``pixelsChanged()``, or renders will treat those pixels as opaque.
    ///
    /// ```swift
    /// let photo = try ImageIO.read(path: "photo.jpg").bitmap   // a JPEG: declared opaque
    /// photo.row(0).storeBytes(of: 0, toByteOffset: 3, as: UInt8.self)
    /// photo.pixelsChanged()                                       // alpha is checked again
    /// ```
    public func declareOpaque() { _declaredOpaque = true }

    /// Forgets a ``declareOpaque()`` after writing pixels through raw pointers.
    public func pixelsChanged() { _declaredOpaque = false }

    /// `isOpaque` on up to `threads` threads (a render's own thread count).
    func _isOpaque(threads: Int) -> Bool {
        if _declaredOpaque { return true }
        // Large bitmaps are checked in bands of rows in parallel (a 24 MP scan is memory-bound
        // and runs before every render of the bitmap); each band writes only its own flag.
        let bands = width * height >= 1 << 20 && threads > 1 ? 16 : 1
        if bands == 1 { return _rowsAreOpaque(0..<height) }
        let flags = UnsafeMutablePointer<Bool>.allocate(capacity: bands)
        defer { flags.deallocate() }
        let box = _UncheckedSendable(flags)
        parallelFor(bands, threads: threads) { band in
            box.value[band] = self._rowsAreOpaque((band * self.height / bands)..<((band + 1) * self.height / bands))
        }
        return (0..<bands).allSatisfy { flags[$0] }
    }

    /// Whether every pixel of rows `rows` has alpha 1.
    private func _rowsAreOpaque(_ rows: Range<Int>) -> Bool {
        if format.isAlwaysOpaque { return true }
        for y in rows {
            let p = row(y)
            switch format {
            case .rgba8:
                // Eight pixels' alphas per step in two vectors (checked for every render of a bitmap).
                let raw = UnsafeRawPointer(p)
                var x = 0
                var all = SIMD4<UInt32>(repeating: .max), more = all
                while x + 8 <= width {
                    all &= raw.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<UInt32>.self)
                    more &= raw.loadUnaligned(fromByteOffset: 4 * x + 16, as: SIMD4<UInt32>.self)
                    x += 8
                }
                if ((all & more) | 0x00FF_FFFF) != SIMD4(repeating: .max) { return false }
                let b = p.assumingMemoryBound(to: UInt8.self)
                while x < width { if b[4 * x + 3] != 255 { return false }; x += 1 }
            case .rgba16:
                let b = p.assumingMemoryBound(to: UInt16.self)
                for x in 0..<width where b[4 * x + 3] != 65535 { return false }
            case .rgbaFloat32:
                let b = p.assumingMemoryBound(to: Float.self)
                for x in 0..<width where b[4 * x + 3] != 1 { return false }
            case .gray8, .rgb8:
                return true
            }
        }
        return true
    }
}

/// Whether two bitmaps hold the same size, format and bytes.
public func == (lhs: Bitmap, rhs: Bitmap) -> Bool {
    guard lhs.width == rhs.width, lhs.height == rhs.height, lhs.format == rhs.format else { return false }
    let rowLength = lhs.width * lhs.format.bytesPerPixel
    for y in 0..<lhs.height where memcmp(lhs.row(y), rhs.row(y), rowLength) != 0 { return false }
    return true
}

/// Who must hear of a bitmap's memory before it is freed (a GPU device unlocking the pages it
/// locked for transfers), by the memory's address.
enum _BitmapFreeObserver {
    static let active = Atomic<Bool>(false)
    private static let observers = _Locked<[UnsafeMutableRawPointer: @Sendable () -> Void]>([:])

    /// Runs `body` once, just before the bitmap whose memory starts at `base` is freed.
    static func observe(_ base: UnsafeMutableRawPointer, _ body: @escaping @Sendable () -> Void) {
        observers.withLock { $0[base] = body }
        active.store(true, ordering: .releasing)
    }

    static func willFree(_ base: UnsafeMutableRawPointer) {
        if let body = observers.withLock({ $0.removeValue(forKey: base) }) { body() }
    }
}
