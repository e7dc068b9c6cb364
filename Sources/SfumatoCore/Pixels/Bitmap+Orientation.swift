import Foundation

extension Bitmap {
    /// The bitmap turned upright according to an EXIF orientation (1...8; 1 is already upright).
    ///
    /// Orientations 5...8 swap width and height. Values outside 1...8 are treated as 1.
    ///
    /// ```swift
    /// let upright = try bitmap.oriented(6)   // stored rotated: turn 90 degrees clockwise
    /// ```
    public func oriented(_ orientation: Int) throws -> Bitmap {
        guard (2...8).contains(orientation) else { return self }
        let swaps = orientation >= 5
        let ow = swaps ? height : width, oh = swaps ? width : height
        let out = try Bitmap(width: ow, height: oh, format: format, encoding: encoding, alpha: alpha)
        let bpp = format.bytesPerPixel
        // For output pixel (x, y), the stored pixel it comes from.
        func source(_ x: Int, _ y: Int) -> (Int, Int) {
            switch orientation {
            case 2: (width - 1 - x, y)  // mirrored horizontally
            case 3: (width - 1 - x, height - 1 - y)  // rotated 180
            case 4: (x, height - 1 - y)  // mirrored vertically
            case 5: (y, x)  // transposed
            case 6: (y, height - 1 - x)  // rotate 90 clockwise to view
            case 7: (width - 1 - y, height - 1 - x)  // transverse
            default: (width - 1 - y, x)  // 8: rotate 90 counter-clockwise to view
            }
        }
        parallelFor(oh) { y in
            let d = out.row(y)
            for x in 0..<ow {
                let (sx, sy) = source(x, y)
                memcpy(d + x * bpp, row(sy) + sx * bpp, bpp)
            }
        }
        if _declaredOpaque { out.declareOpaque() }
        return out
    }
}
