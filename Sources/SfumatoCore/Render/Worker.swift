import Foundation

/// Per-thread state of one render: the buffer pool, a scratch allocator for kernels, and a chunk
/// of floats for fused point passes. Never shared between threads.
final class _Worker {
    let pool = _BufferPool()
    let scratch: TileScratch
    let workingSpace: WorkingSpace
    /// Pixels processed per step of a fused point pass: 1024 x 16 bytes = 16 KB, in L1 with its
    /// alphas. A step's fixed costs (each stage's dispatch, retains of its curves shared by every
    /// thread) halve with 1024 against 256: the float PencilController chain at 24 MP went
    /// 72 -> 64.5 ms (2048: no better).
    static let chunk = 1024
    let chunkBuffer: UnsafeMutablePointer<SIMD4<Float>>
    let alphaBuffer: UnsafeMutablePointer<Float>

    init(workingSpace: WorkingSpace) {
        self.workingSpace = workingSpace
        scratch = TileScratch(pool: pool)
        chunkBuffer = .allocate(capacity: _Worker.chunk)
        alphaBuffer = .allocate(capacity: _Worker.chunk)
    }

    deinit {
        chunkBuffer.deallocate()
        alphaBuffer.deallocate()
    }

    var linear: Bool { workingSpace == .linear }

    func buffer(_ kind: TileKind, _ rect: Rect) -> _PixelBuffer {
        _PixelBuffer(kind: kind, rect: rect, pool: pool)
    }
}

/// Where the final pixels of a render go: rows of a bitmap-like block in a stored format.
struct _Destination: @unchecked Sendable {
    /// Pixel (rect.x, rect.y) of the render lands here.
    var base: UnsafeMutableRawPointer
    var rowBytes: Int
    /// The rectangle of the image being rendered (image coordinates).
    var rect: Rect
    var format: PixelFormat
    var encoding: ColorEncoding
    var alpha: AlphaMode
    /// The bitmap holding these rows, when there is one (a GPU device can then lock its pages).
    var owner: Bitmap? = nil

    func row(_ y: Int) -> UnsafeMutableRawPointer { base + (y - rect.y) * rowBytes }
}
