import Foundation
import SfumatoCLI
import SfumatoCodecs
import SfumatoCore
import SfumatoTestSupport
import Testing

/// `sfumato apply --working-space none` decodes a JPEG DCT-scaled when a Lanczos scale shrinks it
/// to half or less. Tolerance against the full decode: the same size, within 1.25 levels on
/// average with 99 % of values within 14 (what a two-stage shrink costs on sharp photos: Pillow's
/// draft decode then LANCZOS is 0.96 and 11 from its direct LANCZOS on rocket.jpg to a quarter;
/// measured here 1.05 and 12, on the Hubble field 0.44...0.64 and 3...4).
@Suite("Shrink-on-load in apply")
struct ShrinkOnLoadTests {
    /// Runs apply with `filters` twice, by default (with --explain) and with --full-decode, and
    /// returns both outputs and the default run's plan.
    func both(_ input: String, _ filters: [String], in folder: URL, workingSpace: String = "none") throws -> (shrunk: Bitmap, full: Bitmap, plan: String) {
        let a = folder.appendingPathComponent("a.png").path, b = folder.appendingPathComponent("b.png").path
        let steps = ["--working-space", workingSpace] + filters.flatMap { ["-f", $0] }
        let explain = TextOutput(capture: true)
        let r1 = SfumatoCommand.run(["apply", input, "-o", a, "--explain"] + steps, output: explain)
        let r2 = SfumatoCommand.run(["apply", input, "-o", b, "--full-decode"] + steps, output: TextOutput(capture: true))
        #expect(r1 == 0 && r2 == 0)
        return (try ImageIO.read(path: a).bitmap, try ImageIO.read(path: b).bitmap, explain.out)
    }

    /// The 99th percentile and the mean of the colour channels' absolute differences.
    func difference(_ a: Bitmap, _ b: Bitmap) -> (p99: Int, mean: Double) {
        var differences: [Int] = []
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = SIMD4<Int>(truncatingIfNeeded: a.bytes(x: x, y: y)), q = SIMD4<Int>(truncatingIfNeeded: b.bytes(x: x, y: y))
                for c in 0..<3 { differences.append(abs(p[c] - q[c])) }
            }
        }
        differences.sort()
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        return (differences[differences.count * 99 / 100], mean)
    }

    @Test("a quarter, an eighth, with a blur before it and an EXIF turn: within the tolerance of the full decode")
    func closeToTheFullDecode() throws {
        let folder = try Fixtures.temporaryFolder("shrink-on-load")
        defer { try? FileManager.default.removeItem(at: folder) }
        let turned = folder.appendingPathComponent("turned.jpg").path
        let rocket = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("rocket.jpg"))))
        try Data(withOrientation(rocket, 6)).write(to: URL(fileURLWithPath: turned))
        let cases: [(String, [String], factor: Int, size: (Int, Int))] = [
            (Fixtures.path("rocket.jpg"), ["lanczos-scale:scale=0.25"], 2, (160, 107)),
            (Fixtures.path("hubble_deep_field.jpg"), ["lanczos-scale:scale=0.1"], 4, (100, 87)),
            (Fixtures.path("hubble_deep_field.jpg"), ["gaussian-blur:radius=4", "lanczos-scale:scale=0.2", "CIColorInvert"], 2, (200, 174)),
            (turned, ["lanczos-scale:scale=0.25,aspect=0.8"], 2, (85, 160))
        ]
        for (input, filters, factor, size) in cases {
            let (shrunk, full, plan) = try both(input, filters, in: folder)
            #expect(plan.contains("DCT-scaled to 1/\(factor)"), "\(filters): \(plan)")
            #expect(shrunk.width == size.0 && shrunk.height == size.1 && full.width == size.0 && full.height == size.1)
            guard shrunk.width == full.width && shrunk.height == full.height else { continue }
            let (p99, mean) = difference(shrunk, full)
            #expect(p99 <= 14 && mean <= 1.25, "\(filters): 99th percentile \(p99), mean \(mean)")
        }
    }

    @Test("a thumbnail keeps a Lanczos step: the Hubble field to 125 px within 3.5 levels on average of the full linear-light Lanczos")
    func thumbnailKeepsALanczosStep() throws {
        let folder = try Fixtures.temporaryFolder("shrink-thumbnail")
        defer { try? FileManager.default.removeItem(at: folder) }
        let hubble = Fixtures.path("hubble_deep_field.jpg")
        let thumb = folder.appendingPathComponent("tn_hubble_deep_field.png").path, exact = folder.appendingPathComponent("exact.png").path
        #expect(SfumatoCommand.run(["thumbnail", hubble, "-s", "125", "-o", folder.path + "/tn_%s.png"], output: TextOutput(capture: true)) == 0)
        #expect(SfumatoCommand.run(["apply", hubble, "-o", exact, "-f", "lanczos-scale:scale=0.125"], output: TextOutput(capture: true)) == 0)
        let a = try ImageIO.read(path: thumb).bitmap, b = try ImageIO.read(path: exact).bitmap
        #expect(a.width == b.width && a.height == b.height)
        // 1000x872 decoded at 1/8 would leave the DCT all of the shrink: 7.9 levels off on
        // average, the stars dimmed. At 1/4 the Lanczos step does half: 3.1 measured.
        let (_, mean) = difference(a, b)
        #expect(mean <= 3.5, "mean \(mean)")
    }

    @Test("no shrink where it would change the image: linear light, a mild scale, a crop, a reduction, an edge rule that grows, a PNG")
    func onlyWhereTheImageStaysTheSame() throws {
        let folder = try Fixtures.temporaryFolder("shrink-on-load-not")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(String, [String])] = [
            (Fixtures.path("rocket.jpg"), ["lanczos-scale:scale=0.6"]),
            (Fixtures.path("rocket.jpg"), ["crop:rectangle=[0 0 400 300]", "lanczos-scale:scale=0.25"]),
            (Fixtures.path("rocket.jpg"), ["CIAreaAverage", "lanczos-scale:scale=0.25"]),
            // CIGaussianBlur grows the extent: the plan falls back to the full decode.
            (Fixtures.path("rocket.jpg"), ["CIGaussianBlur:inputRadius=2", "lanczos-scale:scale=0.25"]),
            (Fixtures.path("chelsea.png"), ["lanczos-scale:scale=0.25"])
        ]
        for (input, filters) in cases {
            let (shrunk, full, plan) = try both(input, filters, in: folder)
            #expect(!plan.contains("DCT-scaled"), "\(filters): \(plan)")
            #expect(shrunk == full, "\(filters)")
        }
        // Linear light (the default): the reduced DCT would average encoded values.
        let (shrunk, full, plan) = try both(Fixtures.path("rocket.jpg"), ["lanczos-scale:scale=0.25"], in: folder, workingSpace: "linear")
        #expect(!plan.contains("DCT-scaled") && shrunk == full, "\(plan)")
    }
}
