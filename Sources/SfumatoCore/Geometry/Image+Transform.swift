import Foundation

extension Image {
    /// The image mapped through an affine transform, sampled with `sampling`.
    ///
    /// The extent becomes the bounding box of the transformed extent. Pixels the map brings from
    /// outside the extent are transparent (a finite image gets soft edges; call
    /// ``clampedToExtent()`` first, and crop after, for hard ones). A transform that squashes the
    /// plane (determinant 0) or is not finite gives ``empty``.
    ///
    /// ```swift
    /// let turned = photo.transformed(by: .rotation(0.2), sampling: .lanczos3)
    /// ```
    public func transformed(by transform: AffineMap, sampling: Sampling = .bicubic) -> Image {
        if transform == .identity { return self }
        if transform.a == 1, transform.b == 0, transform.c == 0, transform.d == 1,
            transform.tx == transform.tx.rounded(), transform.ty == transform.ty.rounded(), abs(transform.tx) < 1e9, abs(transform.ty) < 1e9
        {
            return translatedBy(dx: Int(transform.tx), dy: Int(transform.ty))
        }
        return transformed(by: ProjectiveMap(transform), sampling: sampling)
    }

    /// The image mapped through a projective transform (a perspective), sampled with `sampling`.
    ///
    /// As ``transformed(by:sampling:)-(AffineMap,_)``; when part of the extent maps behind
    /// the viewer (w <= 0) the result's extent is infinite, and pixels there are transparent.
    public func transformed(by transform: ProjectiveMap, sampling: Sampling = .bicubic) -> Image {
        guard !extent.isEmpty, let kernel = _WarpKernel(transform, input: extent, sampling: sampling) else { return .empty }
        return applying(kernel)
    }

    /// The image turned upright from an EXIF orientation (1...8; 1, and anything else, leaves it
    /// as it is): exact pixel moves, with the extent keeping its origin (and swapping width and
    /// height for 5...8). The lazy twin of ``Bitmap/oriented(_:)``.
    ///
    /// ```swift
    /// let upright = Image(bitmap: stored).oriented(6)   // a portrait shot with the phone turned
    /// ```
    public func oriented(_ orientation: Int) -> Image {
        guard (2...8).contains(orientation), !extent.isEmpty, !extent.isInfinite else { return self }
        let e = extent
        let w = Double(e.width), h = Double(e.height)
        // Each orientation's map in coordinates relative to the extent's origin.
        let relative: AffineMap =
            switch orientation {
            case 2: AffineMap(a: -1, b: 0, c: 0, d: 1, tx: w, ty: 0)
            case 3: AffineMap(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
            case 4: AffineMap(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: h)
            case 5: AffineMap(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
            case 6: AffineMap(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
            case 7: AffineMap(a: 0, b: -1, c: -1, d: 0, tx: h, ty: w)
            default: AffineMap(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
            }
        let origin = Double(e.x), top = Double(e.y)
        let t = AffineMap.translation(dx: -origin, dy: -top).concatenating(relative).concatenating(.translation(dx: origin, dy: top))
        return transformed(by: ProjectiveMap(t), sampling: .nearest)
    }
}
