import Foundation

/// Pixel storage: small blocks from the C heap, large ones mapped straight from the kernel and
/// marked for transparent huge pages, with the last few large blocks kept for reuse by
/// renders that overwrite every byte.
///
/// Why mappings: a fresh 6000x4000 RGBA8 output is 96 MB; in 4 KB pages its first touch costs
/// ~23 000 page faults, a measurable share of a fast filter. With 2 MB pages it is ~50 (Linux
/// 6.7 and later place large anonymous mappings on 2 MB boundaries; older kernels give huge
/// pages to the aligned part). Anonymous mappings are zero by definition, so nothing is
/// cleared twice.
///
/// Why reuse: even in huge pages, the kernel clears a fresh mapping before the first write
/// (~100 MB per 6000x4000 RGBA8 render: CIHueAdjust went from 53 to 44-47 ms without it). A
/// render's output is written whole, so it may take a freed block of the same size as it is,
/// as general-purpose allocators (jemalloc, mimalloc) keep freed memory for the next request.
/// Blocks that must start zero never come from the cache.
enum _PixelMemory {
    /// Blocks at least this large are mapped (a few huge pages' worth).
    static let mappingThreshold = 8 << 20
    static let hugePage = 2 << 20
    /// At most this many freed mappings, and this many bytes, are kept for reuse.
    static let cachedBlocks = 2
    static let cachedBytes = 512 << 20

    /// Freed mappings by length, most recent last.
    private static let cache = _Locked<[(memory: UnsafeMutableRawPointer, length: Int)]>([])

    /// Zeroed memory for `byteCount` bytes; nil when none can be had.
    static func allocateZeroed(byteCount: Int) -> UnsafeMutableRawPointer? {
        guard byteCount >= mappingThreshold else { return calloc(1, max(byteCount, 1)) }
        return _map(_mappedLength(byteCount))
    }

    /// Memory for `byteCount` bytes that the caller overwrites whole before reading: a kept
    /// block of the same mapped length when there is one, else fresh (zeroed) memory.
    static func allocateForOverwrite(byteCount: Int) -> UnsafeMutableRawPointer? {
        guard byteCount >= mappingThreshold else { return malloc(max(byteCount, 1)) }
        let length = _mappedLength(byteCount)
        let kept: UnsafeMutableRawPointer? = cache.withLock { blocks in
            guard let i = blocks.lastIndex(where: { $0.length == length }) else { return nil }
            return blocks.remove(at: i).memory
        }
        return kept ?? _map(length)
    }

    static func free(_ memory: UnsafeMutableRawPointer, byteCount: Int) {
        guard byteCount >= mappingThreshold else { return Foundation.free(memory) }
        let length = _mappedLength(byteCount)
        // Keep the newest blocks within the limits; unmap what falls out.
        let released: [(memory: UnsafeMutableRawPointer, length: Int)] = cache.withLock { blocks in
            guard length <= cachedBytes else { return [(memory, length)] }
            blocks.append((memory, length))
            var out: [(memory: UnsafeMutableRawPointer, length: Int)] = []
            while blocks.count > cachedBlocks || blocks.reduce(0, { $0 + $1.length }) > cachedBytes {
                out.append(blocks.removeFirst())
            }
            return out
        }
        for block in released { munmap(block.memory, block.length) }
    }

    private static func _map(_ length: Int) -> UnsafeMutableRawPointer? {
        let memory = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let memory, memory != MAP_FAILED else { return nil }
        // Advice only: where huge pages are off or unavailable the mapping works with small ones.
        _ = madvise(memory, length, MADV_HUGEPAGE)
        return memory
    }

    private static func _mappedLength(_ byteCount: Int) -> Int {
        (byteCount + hugePage - 1) / hugePage * hugePage
    }
}
