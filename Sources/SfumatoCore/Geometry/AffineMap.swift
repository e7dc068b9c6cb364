import Foundation

/// A 2-D affine map of the image plane, in pixel coordinates (x to the right, y down, a pixel's
/// centre at its index + 0.5): `x' = a x + c y + tx`, `y' = b x + d y + ty` (the order of
/// `CGAffineTransform`'s fields).
///
/// Unlike Core Image, whose y axis points up, a positive ``rotation(_:)`` turns the picture
/// clockwise as it is seen (y points down here).
///
/// ```swift
/// let t = AffineMap.rotation(.pi / 6).concatenating(.translation(dx: 40, dy: 0))
/// let turned = photo.transformed(by: t, sampling: .bicubic)
/// ```
public struct AffineMap: Hashable, Sendable, CustomStringConvertible {
    /// The linear part, x' = a x + c y.
    public var a: Double, b: Double, c: Double, d: Double
    /// The translation in pixels.
    public var tx: Double, ty: Double

    /// The map `x' = a x + c y + tx, y' = b x + d y + ty`.
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    /// Leaves every point where it is.
    public static let identity = AffineMap(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// Moves every point by (dx, dy) pixels.
    public static func translation(dx: Double, dy: Double) -> AffineMap {
        AffineMap(a: 1, b: 0, c: 0, d: 1, tx: dx, ty: dy)
    }

    /// Scales about the origin by `sx` across and `sy` down.
    public static func scale(_ sx: Double, _ sy: Double) -> AffineMap {
        AffineMap(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    /// Turns about the origin by `angle` radians, clockwise as seen (y points down).
    public static func rotation(_ angle: Double) -> AffineMap {
        let (s, k) = (sin(angle), cos(angle))
        return AffineMap(a: k, b: s, c: -s, d: k, tx: 0, ty: 0)
    }

    /// This map followed by `next`.
    public func concatenating(_ next: AffineMap) -> AffineMap {
        AffineMap(
            a: next.a * a + next.c * b, b: next.b * a + next.d * b,
            c: next.a * c + next.c * d, d: next.b * c + next.d * d,
            tx: next.a * tx + next.c * ty + next.tx, ty: next.b * tx + next.d * ty + next.ty)
    }

    /// Where the point (x, y) goes.
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + c * y + tx, b * x + d * y + ty)
    }

    /// The determinant of the linear part (the factor areas are scaled by).
    public var determinant: Double { a * d - b * c }

    /// Whether every field is a finite number.
    public var isFinite: Bool { [a, b, c, d, tx, ty].allSatisfy(\.isFinite) }

    /// The map that undoes this one; nil when it squashes the plane onto a line or a point (or
    /// is not finite).
    public var inverted: AffineMap? {
        let det = determinant
        guard isFinite, det.isFinite, abs(det) > 1e-12 else { return nil }
        let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
        let t = AffineMap(a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ic * ty), ty: -(ib * tx + id * ty))
        return t.isFinite ? t : nil
    }

    public var description: String {
        "[\(_short(a)) \(_short(b)) \(_short(c)) \(_short(d)) \(_short(tx)) \(_short(ty))]"
    }
}

func _short(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(format: "%.6g", v)
}
