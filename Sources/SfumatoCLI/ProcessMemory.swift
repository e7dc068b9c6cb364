import CMalloc

/// How the process's allocator returns memory to the system.
public enum ProcessMemory {
    /// Blocks of at least this many bytes are mapped on their own and unmapped when freed.
    public static let largeBlock = 256 * 1024

    /// Makes every allocation of ``largeBlock`` bytes or more its own mapping, returned to the
    /// system when freed. glibc raises its threshold after each large free (up to 32 MiB), so that
    /// tiles, strips and decoded files of one image are kept by its heaps for the next: a batch
    /// then holds the peak of every thread's heap. Fixed, the resident size follows what is in
    /// use (`sfumato thumbnail` of 50 photos of 24 MP, two at once: peak 74 -> 55 MiB, and faster,
    /// the heaps staying small). Batches and `apply` call it; the studio does not, as its previews
    /// reuse warm memory from one frame to the next.
    public static func returnLargeBlocks() {
        _ = mallopt(M_MMAP_THRESHOLD, Int32(largeBlock))
    }
}
