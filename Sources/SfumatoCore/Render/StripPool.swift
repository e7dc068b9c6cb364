/// Strip buffers of one size, reused for the length of a render to a sink.
///
/// A strip of a wide image is over a megabyte: allocated fresh each time, it comes from `mmap`
/// (glibc's threshold is fixed low so freed strips go back to the system), and every first write
/// to its pages faults and zeroes them. That was a tenth of a streamed render's CPU. Reusing the
/// buffers of strips already written costs no more memory than the render's peak, since the pool
/// holds only buffers that were once in use at the same time, and at most ``idleLimit`` idle.
final class _StripPool: @unchecked Sendable {
    private let byteCount: Int
    private let free = _Locked<[UnsafeMutableRawPointer]>([])

    /// `byteCount`: the size of every buffer (a full strip's rows).
    init(byteCount: Int) { self.byteCount = byteCount }

    deinit { free.withLock { for p in $0 { p.deallocate() } } }

    /// A buffer of `byteCount` bytes, uninitialised (a strip's tiles write every byte).
    func take() -> UnsafeMutableRawPointer {
        free.withLock { $0.popLast() } ?? .allocate(byteCount: byteCount, alignment: 64)
    }

    /// Gives a buffer from ``take()`` back; beyond ``idleLimit`` idle ones it goes back to the system.
    func give(_ buffer: UnsafeMutableRawPointer) {
        let kept = free.withLock { f -> Bool in
            guard f.count < _StripPool.idleLimit else { return false }
            f.append(buffer)
            return true
        }
        if !kept { buffer.deallocate() }
    }

    /// One idle buffer is enough to skip most page faults; each more one adds a strip to the peak
    /// for little (6000x4000 JPEG, Gaussian 2, to JPEG: none idle 0.19 s and 48.7 MiB, one 0.18 s
    /// and 49.3 MiB, two 0.16 s and 50.3 MiB, medians of 7).
    static let idleLimit = 1
}
