import Foundation
import SfumatoCLI
import SfumatoCodecs
import SfumatoCore
import SfumatoTestSupport
import Testing

@Suite("The command line against hostile input")
struct HostileInputTests {
    @Test("one error, one exit code, whichever way the filter steps come (2 for what was asked, 1 for what failed)")
    func sameErrorSameCode() throws {
        let folder = try Fixtures.temporaryFolder("cli-routes")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("o.jpg").path
        let photo = Fixtures.path("rocket.jpg")
        func recipe(_ text: String) throws -> String {
            let p = folder.appendingPathComponent("r\(text.hashValue).json")
            try Data(text.utf8).write(to: p)
            return p.path
        }
        let viaFlag = sfumato("apply", photo, "-o", out, "-f", "CIExposureAdjust:inputEV=20")
        let viaRecipe = sfumato("apply", photo, "-o", out, "--recipe", try recipe(#"[{"filter": "CIExposureAdjust", "inputEV": 20}]"#))
        #expect(viaFlag.code == 2 && viaRecipe.code == 2, "\(viaFlag.err) \(viaRecipe.err)")
        #expect(
            sfumato("apply", photo, "-o", out, "-f", "nosuch").code
                == sfumato(
                    "apply", photo, "-o", out, "--recipe",
                    try recipe(#"[{"filter": "nosuch"}]"#)
                ).code)
        // JSON that cannot hold its numbers, and a folder given as a recipe: plain words, the file named.
        let huge = sfumato("apply", photo, "-o", out, "--recipe", try recipe(#"[{"filter": "CIExposureAdjust", "inputEV": 1e309}]"#))
        #expect(
            huge.code == 2 && huge.err.contains("not valid JSON") && !huge.err.contains("Error Domain") && !huge.err.contains("DecodingError"),
            "\(huge.err)")
        let dir = folder.appendingPathComponent("a-folder.json")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let folderRecipe = sfumato("apply", photo, "-o", out, "--recipe", dir.path)
        #expect(
            folderRecipe.code == 1 && folderRecipe.err.contains("a-folder.json: is a folder") && !folderRecipe.err.contains("NSCocoaErrorDomain"),
            "\(folderRecipe.err)")
        let folderScene = sfumato("ink", dir.path, "-o", folder.appendingPathComponent("i.png").path)
        #expect(folderScene.code == 1 && folderScene.err.contains("is a folder"), "\(folderScene.err)")
    }

    @Test("a recipe of 60,000 steps runs; one chaining 600 neighbourhood filters, or reaching too far, is refused in words")
    func longRecipes() throws {
        let folder = try Fixtures.temporaryFolder("cli-long")
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ steps: [[String: Any]]) throws -> String {
            let p = folder.appendingPathComponent("r\(steps.count).json")
            try JSONSerialization.data(withJSONObject: steps).write(to: p)
            return p.path
        }
        let out = folder.appendingPathComponent("o.png").path
        let long = sfumato(
            "apply", Fixtures.path("rocket.jpg"), "-o", out, "--working-space", "none",
            "--recipe", try write(Array(repeating: ["filter": "CIExposureAdjust", "inputEV": 0.0001], count: 60_000)))
        #expect(long.code == 0, "\(long.err)")
        let deep = sfumato(
            "apply", Fixtures.path("rocket.jpg"), "-o", out, "--recipe",
            try write(Array(repeating: ["filter": "CIMedianFilter"], count: 600)))
        #expect(deep.code == 1 && deep.err.contains("more than 512 filters"), "\(deep.err)")
        let wide = sfumato(
            "apply", Fixtures.path("rocket.jpg"), "-o", out, "--recipe",
            try write(Array(repeating: ["filter": "CIGaussianBlur", "inputRadius": 100], count: 60)))
        #expect(wide.code == 1 && wide.err.contains("reach too far"), "\(wide.err)")
    }

    @Test("ink scenes with positions of 1e20 and NaN-free extremes draw without a trap")
    func farInk() throws {
        let folder = try Fixtures.temporaryFolder("cli-ink")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scene = folder.appendingPathComponent("s.json")
        try Data(
            #"{"canvas": {"width": 300, "height": 200}, "strokes": [{"brush": "pen", "samples": [{"x": 1e20, "y": 3}, {"x": 5, "y": -1e20}, {"x": 1.7e308, "y": 1.7e308}]}]}"#
                .utf8
        ).write(to: scene)
        let r = sfumato("ink", scene.path, "-o", folder.appendingPathComponent("i.png").path)
        #expect(r.code == 0, "\(r.err)")
    }
}
