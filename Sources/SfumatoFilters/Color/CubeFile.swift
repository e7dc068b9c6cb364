import Foundation
import SfumatoCore

/// A 3D lookup table read from a `.cube` file (the Adobe / DaVinci Resolve text format):
/// `LUT_3D_SIZE n` then n^3 lines of `r g b`, red changing fastest; `TITLE`, comments (`#`) and
/// blank lines are allowed, `DOMAIN_MIN 0 0 0` / `DOMAIN_MAX 1 1 1` too (other domains and 1D
/// tables are refused). Sizes 2...65; every value must be a finite number.
///
/// ```swift
/// let lut = try CubeFile(text: String(contentsOfFile: "film.cube"))
/// let filter = ColorCubeWithColorSpace(dimension: lut.dimension, data: lut.rgba)
/// ```
public struct CubeFile: Sendable, Equatable {
    /// The table's side, 2...65.
    public let dimension: Int
    /// dimension^3 RGBA values (alpha 1), red fastest: the layout of CIColorCube's data.
    public let rgba: [Double]

    /// Sides beyond this are refused before anything is allocated.
    public static let maximumDimension = 65
    /// Files beyond this many bytes are refused unread (a 65^3 table is about 8 MB of text).
    public static let maximumBytes = 64 << 20

    /// Parses the text of a `.cube` file.
    public init(text: String) throws {
        var dimension: Int?
        var values: [Double] = []
        var lineNumber = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let line =
                raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            if line.isEmpty { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            func fail(_ why: String) -> SfumatoError { .invalidArgument(".cube line \(lineNumber): \(why)") }
            switch words[0].uppercased() {
            case "TITLE":
                continue
            case "LUT_1D_SIZE":
                throw fail("1D tables are not supported (a 3D table has LUT_3D_SIZE)")
            case "LUT_3D_SIZE":
                guard dimension == nil, words.count == 2, let n = Int(words[1]), (2...Self.maximumDimension).contains(n) else {
                    throw fail("LUT_3D_SIZE must appear once, with a size 2...\(Self.maximumDimension)")
                }
                dimension = n
                values.reserveCapacity(n * n * n * 4)
            case "DOMAIN_MIN", "DOMAIN_MAX":
                let want = words[0].uppercased() == "DOMAIN_MIN" ? 0.0 : 1.0
                guard words.count == 4, words.dropFirst().allSatisfy({ Double($0) == want }) else {
                    throw fail("only the domain 0...1 is supported")
                }
            default:
                guard let n = dimension else { throw fail("table values before LUT_3D_SIZE") }
                guard words.count == 3 else { throw fail("expected three numbers (r g b), got \(words.count) words") }
                let rgb = words.compactMap(Double.init)
                guard rgb.count == 3, rgb.allSatisfy(\.isFinite) else { throw fail("\(line) is not three finite numbers") }
                guard values.count < n * n * n * 4 else { throw fail("more than \(n)^3 table entries") }
                values.append(contentsOf: rgb + [1])
            }
        }
        guard let n = dimension else { throw SfumatoError.invalidArgument(".cube: no LUT_3D_SIZE line") }
        guard values.count == n * n * n * 4 else {
            throw SfumatoError.invalidArgument(".cube: \(values.count / 4) table entries where LUT_3D_SIZE \(n) needs \(n * n * n)")
        }
        self.dimension = n
        rgba = values
    }

    /// Reads and parses the file at `path`, refusing one over ``maximumBytes`` unread.
    public init(path: String) throws {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let size = attributes?[.size] as? Int else { throw SfumatoError.io("\(path): cannot read the .cube file") }
        guard size <= Self.maximumBytes else { throw SfumatoError.tooLarge("\(path): \(size) bytes is too large for a .cube file") }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw SfumatoError.invalidArgument("\(path): not a text .cube file")
        }
        try self.init(text: text)
    }

    /// The identity table of side `n`.
    public static func identity(_ n: Int) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(n * n * n * 4)
        let k = Double(n - 1)
        for b in 0..<n { for g in 0..<n { for r in 0..<n { out += [Double(r) / k, Double(g) / k, Double(b) / k, 1] } } }
        return out
    }
}
