extension Bitmap {
    /// An opaque RGBA8 copy of a ``PixelFormat/gray8`` bitmap, R = G = B = the grey level (for
    /// consumers without greyscale, such as WebP encoding).
    ///
    /// ```swift
    /// let rgba = try grey.expandedToRGBA8()   // grey.pixel(x: 0, y: 0) == rgba.pixel(x: 0, y: 0)
    /// ```
    ///
    /// - Throws: ``SfumatoError/invalidArgument`` when the bitmap is not Gray8.
    public func expandedToRGBA8() throws -> Bitmap {
        guard format == .gray8 else { throw SfumatoError.invalidArgument("expandedToRGBA8 takes a Gray8 bitmap, not \(format)") }
        let out = try Bitmap(width: width, height: height, format: .rgba8, encoding: encoding, alpha: .straight, zeroed: false)
        for y in 0..<height {
            _Convert.grayToBytes(row(y).assumingMemoryBound(to: UInt8.self), width, out.row(y).assumingMemoryBound(to: UInt8.self))
        }
        out.declareOpaque()
        return out
    }
}
