// A copy whose stores bypass the cache (non-temporal), for destinations too large to stay in it:
// a plain store first reads the destination's line, a streaming store does not, so a large copy
// moves a third fewer bytes.

#if arch(x86_64)
    import CWideVectors
    import Foundation
    import _Builtin_intrinsics.intel

    /// Copies `count` bytes from `s` to `d` (not overlapping): the unaligned head and tail with
    /// `memcpy`, the 64-byte-aligned body of `d` with streaming stores. Callers fence (`sfence`)
    /// before other threads read `d` (``_storeFence()``).
    @inline(never)
    public func _streamingCopyAVX512(_ s: UnsafeRawPointer, _ d: UnsafeMutableRawPointer, count: Int) {
        let head = min(count, (64 &- Int(bitPattern: d) & 63) & 63)
        if head > 0 { memcpy(d, s, head) }
        var i = head
        while i &+ 64 <= count {
            let v = s.loadUnaligned(fromByteOffset: i, as: __m512i.self)
            _mm512_stream_si512(d.advanced(by: i).assumingMemoryBound(to: __m512i.self), v)
            i &+= 64
        }
        if i < count { memcpy(d + i, s + i, count &- i) }
    }

    /// Orders streaming stores before what follows (`sfence`).
    public func _storeFence() { sfumato_store_fence() }
#endif
