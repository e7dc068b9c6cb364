import Foundation
import SfumatoCLI
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// Runs the command line in-process, capturing what it prints.
func sfumato(_ args: String...) -> (code: Int32, out: String, err: String) {
    let o = TextOutput(capture: true)
    let code = SfumatoCommand.run(args, output: o)
    return (code, o.out, o.err)
}

@Suite("Command-line parsing")
struct ParsingTests {
    @Test("filter specs: names, key=value pairs, vectors, text and flags")
    func filterSpecs() throws {
        #expect(try FilterSpecParser.parse("CIMedianFilter") == FilterStep(name: "CIMedianFilter", values: [:]))
        let tone = try FilterSpecParser.parse("CIToneCurve:inputPoint1=[0.25 0.4],inputPoint3=[0.75, 0.9]")
        #expect(tone.values["inputPoint1"] == .vector([0.25, 0.4]))
        #expect(tone.values["inputPoint3"] == .vector([0.75, 0.9]))
        let blur = try FilterSpecParser.parse("gaussian-blur:radius=8,edges=clamp")
        #expect(blur.values == ["radius": .number(8), "edges": .text("clamp")])
        #expect(try FilterSpecParser.parse(" hue-adjust : angle = -1.5e-1 ").values["angle"] == .number(-0.15))
        for bad in ["", "blur:radius", "blur:=3", "blur:radius=[1 2", "blur:radius=", "blur:r=1,r=2", "blur:v=[1 x]"] {
            #expect(throws: CLIError.self, "\(bad)") { try FilterSpecParser.parse(bad) }
        }
    }

    @Test("recipes: a JSON array of steps; clear errors otherwise")
    func recipes() throws {
        let json =
            #"[{"filter": "CIHueAdjust", "inputAngle": 1.2}, {"filter": "exposure-adjust", "ev": 0.5}, {"filter": "gaussian-blur", "radius": 2, "edges": "zero"}, {"filter": "CIToneCurve", "inputPoint2": [0.5, 0.7]}]"#
        let steps = try FilterSpecParser.parseRecipe(Data(json.utf8), name: "r.json")
        #expect(steps.count == 4)
        #expect(steps[0] == FilterStep(name: "CIHueAdjust", values: ["inputAngle": .number(1.2)]))
        #expect(steps[3].values["inputPoint2"] == .vector([0.5, 0.7]))
        for bad in ["{", "{}", "[1]", "[{\"inputAngle\": 1}]", "[{\"filter\": \"x\", \"v\": {\"a\": 1}}]", "[{\"filter\": \"x\", \"v\": [\"a\"]}]"] {
            #expect(throws: CLIError.self, "\(bad)") { try FilterSpecParser.parseRecipe(Data(bad.utf8), name: "r.json") }
        }
    }

    @Test("filter names and parameter keys: Core Image name, short name, with or without input, any case")
    func names() throws {
        #expect(try FilterRegistry.filterType(named: "CIHueAdjust") == HueAdjust.self)
        #expect(try FilterRegistry.filterType(named: "hue-adjust") == HueAdjust.self)
        #expect(try FilterRegistry.filterType(named: "cihueadjust") == HueAdjust.self)
        #expect(try FilterRegistry.filterType(named: "HueAdjust") == HueAdjust.self)
        for key in ["inputAngle", "angle", "ANGLE", "InputAngle"] {
            let f = try FilterRegistry.make("CIHueAdjust", values: [key: .number(0.5)]) as! HueAdjust
            #expect(f.angle == 0.5)
        }
        #expect((try FilterRegistry.make("gaussian-blur", values: ["radius": .number(3)]) as! GaussianBlur).edges == .clamp)
        #expect((try FilterRegistry.make("CIGaussianBlur", values: ["radius": .number(3)]) as! GaussianBlur).edges == .grow)
        #expect(throws: SfumatoError.self) { try FilterRegistry.make("hue-adjust", values: ["angel": .number(1)]) }
        #expect(throws: SfumatoError.self) { try FilterRegistry.make("CIExposureAdjust", values: ["ev": .number(11)]) }
        #expect(throws: SfumatoError.self) { try FilterRegistry.make("CIExposureAdjust", values: ["ev": .text("lots")]) }
    }
}

@Suite("sfumato command")
struct CommandTests {
    @Test("apply with -f and --recipe writes the filtered image at the input's size")
    func apply() throws {
        let folder = try Fixtures.temporaryFolder("cli")
        defer { try? FileManager.default.removeItem(at: folder) }
        let recipe = folder.appendingPathComponent("r.json")
        try Data(#"[{"filter": "CIColorControls", "inputSaturation": 1.5}, {"filter": "CIGammaAdjust", "inputPower": 1.2}]"#.utf8).write(to: recipe)
        for (input, out) in [("rocket.jpg", "a.png"), ("coffee.png", "b.jpg"), ("chelsea.png", "c.webp")] {
            let o = folder.appendingPathComponent(out).path
            let r = sfumato("apply", Fixtures.path(input), "-o", o, "-f", "CIHueAdjust:inputAngle=0.5", "--recipe", recipe.path, "--quality", "85")
            #expect(r.code == 0, "\(r.err)")
            let info = try ImageIO.info(path: o)
            let original = try ImageIO.info(path: Fixtures.path(input))
            #expect(info.width == original.width && info.height == original.height)
        }
        // Explain prints the fused plan.
        let e = sfumato(
            "apply", Fixtures.path("rocket.jpg"), "--explain", "-f", "hue-adjust:angle=1", "-f", "exposure-adjust:ev=0.5", "-f", "gamma-adjust:power=1.5")
        #expect(e.code == 0)
        #expect(e.out.contains("matrix[CIHueAdjust + CIExposureAdjust]"))
        #expect(e.out.contains("CIGammaAdjust"))
    }

    @Test("thumbnail: fits the box (never enlarging), --crop fills it, -o DIR or a %s pattern, metadata kept or stripped")
    func thumbnail() throws {
        let folder = try Fixtures.temporaryFolder("cli-thumbnail")
        defer { try? FileManager.default.removeItem(at: folder) }
        var r = sfumato("thumbnail", Fixtures.path("rocket.jpg"), Fixtures.path("chelsea.png"), "-s", "200x100", "-o", folder.path + "/tn_%s.webp")
        #expect(r.code == 0, "\(r.err)")
        let rocket = try ImageIO.info(path: folder.appendingPathComponent("tn_rocket.webp").path)
        #expect(rocket.format == .webp && rocket.width == 150 && rocket.height == 100)
        r = sfumato("thumbnail", Fixtures.path("rocket.jpg"), "-s", "120", "--crop", "-o", folder.appendingPathComponent("crops").path)
        #expect(r.code == 0, "\(r.err)")
        let crop = folder.appendingPathComponent("crops/rocket.jpg").path
        let info = try ImageIO.info(path: crop)
        #expect(info.width == 120 && info.height == 120)
        let source = try ImageIO.info(path: Fixtures.path("rocket.jpg"))
        #expect(info.metadata.hadColorProfile == source.metadata.hadColorProfile)
        r = sfumato("thumbnail", Fixtures.path("rocket.jpg"), "-s", "120", "--strip", "-o", folder.appendingPathComponent("bare").path)
        #expect(r.code == 0, "\(r.err)")
        let bare = try ImageIO.info(path: folder.appendingPathComponent("bare/rocket.jpg").path)
        #expect(bare.metadata.isEmpty)
        r = sfumato("thumbnail", Fixtures.path("chelsea.png"), "-s", "4000", "-o", folder.appendingPathComponent("big").path)
        let big = try ImageIO.info(path: folder.appendingPathComponent("big/chelsea.jpg").path)
        let original = try ImageIO.info(path: Fixtures.path("chelsea.png"))
        #expect(r.code == 0 && big.width == original.width && big.height == original.height, "never enlarged")
        // The centre of a --crop thumbnail is the centre of the photo, shrunk (Lanczos in linear light).
        let cropped = try ImageIO.read(path: crop).bitmap
        #expect(cropped.width == 120)
        r = sfumato("thumbnail", "/nonexistent.jpg", "-o", folder.path)
        #expect(r.code == 1 && r.err.contains("nonexistent"), "\(r.err)")
        r = sfumato("thumbnail", Fixtures.path("rocket.jpg"), "-s", "0x10")
        #expect(r.code == 2, "\(r.err)")
    }

    @Test("docs/FILTER-REFERENCE.md is what sfumato filters --markdown writes (regenerate it when a filter changes)")
    func reference() throws {
        let r = sfumato("filters", "--markdown")
        #expect(r.code == 0)
        let page = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/FILTER-REFERENCE.md"), encoding: .utf8)
        #expect(page == r.out, "run: swift run sfumato filters --markdown > docs/FILTER-REFERENCE.md")
        for d in FilterRegistry.descriptors { #expect(page.contains("`\(d.shortName)`"), "\(d.shortName) is missing") }
    }

    @Test("geometry changes the output's size; a .cube file grades through -f and recipes; bad ones are usage errors")
    func geometryAndLUTs() throws {
        let folder = try Fixtures.temporaryFolder("cli-geometry")
        defer { try? FileManager.default.removeItem(at: folder) }
        let o = folder.appendingPathComponent("out.png").path
        var r = sfumato("apply", Fixtures.path("rocket.jpg"), "-o", o, "-f", "lanczos-scale:scale=0.25")
        #expect(r.code == 0, "\(r.err)")
        #expect(try ImageIO.info(path: o).width == 160)
        r = sfumato("apply", Fixtures.path("rocket.jpg"), "-o", o, "-f", "crop:rectangle=[10 20 100 50]")
        #expect(r.code == 0, "\(r.err)")
        #expect(try ImageIO.info(path: o).height == 50)
        r = sfumato("apply", Fixtures.path("rocket.jpg"), "-o", o, "-f", "affine:transform=[1e5 0 0 1e5 0 0]")
        #expect(r.code == 1 && r.err.contains("pixel limit"), "\(r.err)")
        r = sfumato("apply", Fixtures.path("rocket.jpg"), "-o", o, "-f", "affine:transform=[1 2 2 4 0 0]")
        #expect(r.code != 0 && r.err.contains("determinant"), "\(r.err)")
        let cube = folder.appendingPathComponent("grade.cube")
        var text = "LUT_3D_SIZE 2\n"
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { text += "\(1 - r) \(1 - g) \(1 - b)\n" } } }
        try Data(text.utf8).write(to: cube)
        r = sfumato("apply", Fixtures.path("chelsea.png"), "-o", o, "-f", "lut:cube=\(cube.path)")
        #expect(r.code == 0, "\(r.err)")
        let inverted = try ImageIO.read(path: o).bitmap, photo = try Fixtures.photo("chelsea.png")
        #expect(inverted.bytes(x: 10, y: 10).x == 255 - photo.bytes(x: 10, y: 10).x)
        let recipe = folder.appendingPathComponent("r.json")
        try Data(#"[{"filter": "CIColorCubeWithColorSpace", "inputCubeData": "\#(cube.path)"}]"#.utf8).write(to: recipe)
        r = sfumato("apply", Fixtures.path("chelsea.png"), "-o", o, "--recipe", recipe.path)
        #expect(r.code == 0, "\(r.err)")
        try Data("LUT_3D_SIZE 2\n0 0 0\n".utf8).write(to: cube)
        r = sfumato("apply", Fixtures.path("chelsea.png"), "-o", o, "-f", "lut:cube=\(cube.path)")
        #expect(r.code == 2 && r.err.contains("table entries"), "\(r.err)")
        r = sfumato("apply", Fixtures.path("chelsea.png"), "-o", o, "-f", "lut:cube=/nonexistent/x.cube")
        #expect(r.code == 2, "\(r.err)")
        r = sfumato("batch", Fixtures.path("chelsea.png"), "-o", folder.path, "-f", "crop:rectangle=[0 0 10 10]")
        #expect(r.code == 2 && r.err.contains("geometry"), "\(r.err)")
    }

    @Test("exit codes: 0 success, 2 usage errors, 1 failures, each with a one-line message naming the problem")
    func errors() throws {
        let folder = try Fixtures.temporaryFolder("cli-errors")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("o.jpg").path
        func check(_ r: (code: Int32, out: String, err: String), _ code: Int32, _ fragment: String) {
            #expect(r.code == code, "\(r.err)")
            #expect(r.err.hasPrefix("sfumato: ") && r.err.contains(fragment), "\(r.err)")
            #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        }
        check(sfumato("frobnicate"), 2, "unknown command frobnicate")
        check(sfumato("apply", Fixtures.path("rocket.jpg")), 2, "needs -o OUTPUT")
        check(sfumato("apply", "-o", out), 2, "needs an INPUT")
        check(sfumato("apply", Fixtures.path("rocket.jpg"), "-o", out, "--quality", "0"), 2, "--quality must be")
        check(sfumato("apply", Fixtures.path("rocket.jpg"), "-o", out, "--bogus"), 2, "unknown option --bogus")
        check(sfumato("apply", Fixtures.path("rocket.jpg"), "-o", out, "-f", "blurr"), 2, "no filter named blurr")
        check(sfumato("apply", Fixtures.path("rocket.jpg"), "-o", out, "-f", "CIExposureAdjust:inputEV=20"), 2, "ev must be -10...10, not 20")
        check(sfumato("apply", Fixtures.path("rocket.jpg"), "-o", folder.appendingPathComponent("o.gif").path), 2, "cannot tell the format")
        check(sfumato("apply", folder.appendingPathComponent("missing.jpg").path, "-o", out), 1, "cannot open")
        // A truncated JPEG: failure, message names the file, and no output (not even a partial one).
        let jpeg = try ImageIO.readBytes(path: Fixtures.path("hubble_deep_field.jpg"))
        let cut = folder.appendingPathComponent("cut.jpg")
        try Data(jpeg.prefix(jpeg.count / 2)).write(to: cut)
        check(sfumato("apply", cut.path, "-o", out, "-f", "gaussian-blur:radius=2"), 1, "cut.jpg: truncated JPEG data")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cut.jpg"])
        let notImage = folder.appendingPathComponent("notes.png")
        try Data("just text".utf8).write(to: notImage)
        check(sfumato("info", notImage.path), 1, "not a JPEG, PNG, WebP, HEIF, AVIF or TIFF image")
    }

    @Test("filters lists every filter; --json is valid JSON with ranges")
    func filters() throws {
        let r = sfumato("filters")
        #expect(r.code == 0)
        #expect(r.out.contains("CIHueAdjust, hue-adjust"))
        let j = sfumato("filters", "--json")
        let parsed = try JSONSerialization.jsonObject(with: Data(j.out.utf8)) as! [[String: Any]]
        #expect(parsed.count == FilterRegistry.descriptors.count)
        let exposure = parsed.first { $0["name"] as? String == "CIExposureAdjust" }!
        let ev = (exposure["parameters"] as! [[String: Any]])[0]
        #expect(ev["minimum"] as? Double == -10 && ev["maximum"] as? Double == 10 && ev["default"] as? Double == 0)
    }

    @Test("devices names the CPU and the GPU or why not; --device is checked, and auto renders the CPU's bytes without a GPU")
    func devices() throws {
        let r = sfumato("devices")
        #expect(r.code == 0)
        #expect(r.out.contains("cpu: CPU"))
        #expect(r.out.contains("cuda: "))
        #expect(sfumato("apply", Fixtures.path("rocket.jpg"), "-o", "/tmp/x.png", "--device", "tpu").code == 2)
        let folder = try Fixtures.temporaryFolder("devices")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cpu = folder.appendingPathComponent("cpu.png").path, auto = folder.appendingPathComponent("auto.png").path
        let args = ["--working-space", "none", "-f", "median:diameter=5", "-f", "gamma-adjust:power=1.4"]
        #expect(SfumatoCommand.run(["apply", Fixtures.path("rocket.jpg"), "-o", cpu] + args, output: TextOutput(capture: true)) == 0)
        let explain = TextOutput(capture: true)
        #expect(SfumatoCommand.run(["apply", Fixtures.path("rocket.jpg"), "-o", auto, "--device", "auto", "--explain"] + args, output: explain) == 0)
        #expect(explain.out.contains("device: "))
        if !RenderDevice.cuda.availability.isAvailable {
            #expect(Pixels.maxDifference(try ImageIO.read(path: cpu).bitmap, try ImageIO.read(path: auto).bitmap) == 0)
        }
    }

    @Test("--linear-float keeps blurs on floats in linear light: its plan names no words, its bytes within a level")
    func linearFloat() throws {
        let folder = try Fixtures.temporaryFolder("linear-float")
        defer { try? FileManager.default.removeItem(at: folder) }
        let words = folder.appendingPathComponent("words.png").path, floats = folder.appendingPathComponent("floats.png").path
        let args = ["-f", "box-blur:radius=3"]
        for (out, extra) in [(words, [String]()), (floats, ["--linear-float"])] {
            let explain = TextOutput(capture: true)
            #expect(SfumatoCommand.run(["apply", Fixtures.path("rocket.jpg"), "-o", out, "--explain"] + args + extra, output: explain) == 0)
            #expect(explain.out.contains("linear light in 16-bit words") == extra.isEmpty, "\(explain.out)")
            #expect(SfumatoCommand.run(["apply", Fixtures.path("rocket.jpg"), "-o", out] + args + extra, output: TextOutput(capture: true)) == 0)
        }
        let difference = Pixels.maxDifference(try ImageIO.read(path: words).bitmap, try ImageIO.read(path: floats).bitmap)
        #expect(difference <= 1 + 1e-4, "\(difference) levels")
    }

    @Test("info reports format, size, profile and orientation")
    func info() throws {
        let r = sfumato("info", Fixtures.path("rocket.jpg"), Fixtures.path("camera.png"))
        #expect(r.code == 0)
        #expect(r.out.contains("rocket.jpg: JPEG 640x427"))
        #expect(r.out.contains("Adobe RGB (1998)"))
        #expect(r.out.contains("camera.png: PNG 512x512"))
        #expect(r.out.contains("8-bit grey"))
        let j = sfumato("info", "--json", Fixtures.path("chelsea.png"))
        let o = try JSONSerialization.jsonObject(with: Data(j.out.utf8)) as! [String: Any]
        #expect(o["width"] as? Int == 451 && o["format"] as? String == "png")
    }
}
