import Foundation
import SfumatoCodecs
import SfumatoCore

/// Damaged copies of a file, for decoders that must refuse them with a typed error (or decode
/// them), never trap.
public enum Damage {
    /// Prefixes at about `count` lengths spread from empty to one byte short.
    public static func truncations(_ bytes: [UInt8], count: Int = 97) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: max(1, bytes.count / count)).map { Array(bytes.prefix($0)) }
    }

    /// `count` copies, each with `changes` bytes set to pseudo-random values at pseudo-random
    /// places (a fixed linear congruential sequence from `seed`, so a failure repeats).
    public static func mutations(_ bytes: [UInt8], count: Int, changes: Int, seed: UInt64) -> [[UInt8]] {
        var state = seed
        return (0..<count).map { _ in
            var mutated = bytes
            for _ in 0..<changes {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                mutated[Int(state >> 33) % mutated.count] = UInt8(truncatingIfNeeded: state >> 17)
            }
            return mutated
        }
    }

    /// Decodes each file; rethrows any error that is not a ``SfumatoError`` (an untyped failure).
    public static func decodeEach(_ files: [[UInt8]]) throws {
        for file in files {
            do { _ = try ImageIO.read(bytes: file, name: "damaged") } catch let e as SfumatoError { _ = e.description }
        }
    }
}
