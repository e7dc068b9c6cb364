/// A 4x4 matrix acting on RGBA column vectors: `out = m * v`.
///
/// Colour filters that are linear in premultiplied RGBA (hue rotation, saturation, exposure, and
/// affine maps that keep alpha, whose bias sits in the alpha column) are `Matrix4`s; the renderer
/// multiplies a run of them into one before touching any pixel.
///
/// ```swift
/// let doubleRed = Matrix4(rows: [[2, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
/// doubleRed * SIMD4<Float>(0.25, 0.5, 0.5, 1)   // (0.5, 0.5, 0.5, 1)
/// ```
public struct Matrix4: Sendable, Equatable, CustomStringConvertible {
    /// Columns, so that `m * v = c0*v.x + c1*v.y + c2*v.z + c3*v.w` (four vector multiply-adds).
    public var columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)

    /// Creates a matrix from its columns.
    public init(columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)) {
        self.columns = columns
    }

    /// Creates a matrix from four rows of four values (`rows[i][j]` is row i, column j).
    public init(rows: [[Double]]) {
        precondition(rows.count == 4 && rows.allSatisfy { $0.count == 4 }, "Matrix4 needs 4 rows of 4")
        func column(_ j: Int) -> SIMD4<Float> {
            SIMD4(Float(rows[0][j]), Float(rows[1][j]), Float(rows[2][j]), Float(rows[3][j]))
        }
        columns = (column(0), column(1), column(2), column(3))
    }

    /// The identity.
    public static let identity = Matrix4(columns: (SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, 0, 0, 1)))

    /// Element at row `i`, column `j`.
    public subscript(row i: Int, column j: Int) -> Float {
        switch j {
        case 0: columns.0[i]
        case 1: columns.1[i]
        case 2: columns.2[i]
        default: columns.3[i]
        }
    }

    /// The matrix as rows of Doubles.
    public var rows: [[Double]] {
        (0..<4).map { i in (0..<4).map { j in Double(self[row: i, column: j]) } }
    }

    /// Applies the matrix to a vector.
    @inlinable @inline(__always)
    public static func * (m: Matrix4, v: SIMD4<Float>) -> SIMD4<Float> {
        var r = m.columns.0 * v.x
        r += m.columns.1 * v.y
        r += m.columns.2 * v.z
        r += m.columns.3 * v.w
        return r
    }

    /// The product `a * b` (apply `b` first, then `a`).
    public static func * (a: Matrix4, b: Matrix4) -> Matrix4 {
        Matrix4(columns: (a * b.columns.0, a * b.columns.1, a * b.columns.2, a * b.columns.3))
    }

    /// Whether the matrix leaves alpha alone (last row 0 0 0 1).
    public var keepsAlpha: Bool {
        columns.0.w == 0 && columns.1.w == 0 && columns.2.w == 0 && columns.3.w == 1
    }

    /// Whether each colour channel depends only on itself (and alpha): no channel mixing.
    public var isPerChannel: Bool {
        keepsAlpha && columns.0.y == 0 && columns.0.z == 0 && columns.1.x == 0 && columns.1.z == 0
            && columns.2.x == 0 && columns.2.y == 0
    }

    public static func == (a: Matrix4, b: Matrix4) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2 && a.columns.3 == b.columns.3
    }

    public var description: String {
        rows.map { "[" + $0.map { String(format: "%.4f", $0) }.joined(separator: " ") + "]" }.joined(separator: " ")
    }
}

import Foundation
