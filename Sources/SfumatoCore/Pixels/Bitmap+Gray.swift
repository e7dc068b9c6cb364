extension Bitmap {
    /// An opaque RGBA8 copy of a ``PixelFormat/gray8`` bitmap, R = G = B = the grey level, or of
    /// a ``PixelFormat/rgb8`` one (for consumers without greyscale or packed RGB, such as WebP
    /// encoding).
    ///
    /// ```swift
    /// let rgba = try grey.expandedToRGBA8()   // grey.pixel(x: 0, y: 0) == rgba.pixel(x: 0, y: 0)
    /// ```
    ///
    /// - Throws: ``SfumatoError/invalidArgument`` when the bitmap is neither Gray8 nor RGB8.
    public func expandedToRGBA8() throws -> Bitmap {
        guard format.isAlwaysOpaque else {
            throw SfumatoError.invalidArgument("expandedToRGBA8 takes a Gray8 or RGB8 bitmap, not \(format)")
        }
        let out = try Bitmap(width: width, height: height, format: .rgba8, encoding: encoding, alpha: .straight, zeroed: false)
        let expand = format == .gray8 ? _Convert.grayToBytes : _Convert.expandRGB
        parallelFor(height) { y in
            expand(self.row(y).assumingMemoryBound(to: UInt8.self), self.width, out.row(y).assumingMemoryBound(to: UInt8.self))
        }
        out.declareOpaque()
        return out
    }

    /// A packed ``PixelFormat/rgb8`` copy of an opaque RGBA8 bitmap (a quarter less memory).
    ///
    /// ```swift
    /// let packed = try photo.packedToRGB8()   // photo.pixel(x: 0, y: 0) == packed.pixel(x: 0, y: 0)
    /// ```
    ///
    /// - Throws: ``SfumatoError/invalidArgument`` when the bitmap is not RGBA8 or not opaque.
    public func packedToRGB8() throws -> Bitmap {
        guard format == .rgba8, isOpaque else {
            throw SfumatoError.invalidArgument("packedToRGB8 takes an opaque RGBA8 bitmap, not \(isOpaque ? "" : "a translucent ")\(format)")
        }
        let out = try Bitmap(width: width, height: height, format: .rgb8, encoding: encoding, alpha: .straight, zeroed: false)
        parallelFor(height) { y in
            _Convert.packRGB(self.row(y).assumingMemoryBound(to: UInt8.self), self.width, out.row(y).assumingMemoryBound(to: UInt8.self))
        }
        out.declareOpaque()
        return out
    }
}
