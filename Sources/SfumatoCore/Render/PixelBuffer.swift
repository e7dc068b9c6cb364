import Foundation

/// Memory for tiles, recycled within one worker of one render so that a render of thousands of
/// tiles allocates a handful of buffers (fresh pages cost a fault each; reuse keeps them warm).
final class _BufferPool {
    private var free: [Int: [UnsafeMutableRawPointer]] = [:]
    private var all: [UnsafeMutableRawPointer] = []

    /// A block of at least `bytes` bytes, 64-byte aligned.
    func take(bytes: Int) -> (UnsafeMutableRawPointer, Int) {
        let size = _BufferPool.sizeClass(bytes)
        if var list = free[size], let p = list.popLast() {
            free[size] = list
            return (p, size)
        }
        let p = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        all.append(p)
        return (p, size)
    }

    func give(_ p: UnsafeMutableRawPointer, size: Int) {
        free[size, default: []].append(p)
    }

    static func sizeClass(_ bytes: Int) -> Int {
        // Powers of two and their 1.5x midpoints: little waste, few classes.
        var s = 4096
        while s < bytes {
            if s + s / 2 >= bytes { return s + s / 2 }
            s *= 2
        }
        return s
    }

    deinit {
        for p in all { p.deallocate() }
    }
}

/// A tile's pixels, owned (returned to its pool when released) or borrowed (a view into a bitmap
/// that must not be written).
final class _PixelBuffer {
    let kind: TileKind
    private(set) var rect: Rect
    let raw: UnsafeMutableRawPointer
    /// Pixels from one row to the next.
    let stride: Int
    /// Whether the pixels may be written (owned scratch) or only read (a view of a source).
    let isWritable: Bool
    private let pool: _BufferPool?
    private let size: Int
    private let keepAlive: AnyObject?

    /// A fresh, uninitialised buffer covering `rect`.
    init(kind: TileKind, rect: Rect, pool: _BufferPool) {
        self.kind = kind
        self.rect = rect
        self.stride = max(rect.width, 1)
        let bytes = stride * max(rect.height, 1) * kind.bytesPerPixel
        let (p, size) = pool.take(bytes: bytes)
        self.raw = p
        self.size = size
        self.pool = pool
        self.isWritable = true
        self.keepAlive = nil
    }

    /// A read-only view of memory someone else owns.
    init(kind: TileKind, rect: Rect, view: UnsafeMutableRawPointer, stride: Int, keepAlive: AnyObject) {
        self.kind = kind
        self.rect = rect
        self.raw = view
        self.stride = stride
        self.size = 0
        self.pool = nil
        self.isWritable = false
        self.keepAlive = keepAlive
    }

    deinit {
        pool?.give(raw, size: size)
    }

    /// Moves the buffer's rectangle without touching pixels (translation is free).
    func relabel(_ r: Rect) {
        precondition(r.width == rect.width && r.height == rect.height)
        rect = r
    }

    var floatTile: FloatTile {
        precondition(kind == .float)
        return FloatTile(rect: rect, base: raw.assumingMemoryBound(to: SIMD4<Float>.self), stride: stride)
    }

    /// The pixels of a `.byte` (RGBA) or `.gray` buffer.
    var byteTile: ByteTile {
        precondition(kind != .float)
        return ByteTile(rect: rect, base: raw.assumingMemoryBound(to: UInt8.self), stride: stride, channels: kind == .gray ? 1 : 4)
    }

    /// Sets every pixel to transparent black (black, for grey).
    func zero() {
        let bpp = kind.bytesPerPixel
        if stride == rect.width {
            memset(raw, 0, rect.area * bpp)
        } else {
            for r in 0..<rect.height { memset(raw + r * stride * bpp, 0, rect.width * bpp) }
        }
    }
}
