import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoFilters
import SfumatoInk
import SfumatoTestSupport
import Testing

func wavyStroke(_ i: Int, _ kind: BrushKind = .forcePen, width: Double = 640, height: Double = 427) -> Stroke {
    let samples = (0..<40).map { k -> PenSample in
        let t = Double(k) / 39
        return PenSample(
            x: width * (0.1 + 0.8 * t), y: height * (0.2 + 0.05 * Double(i % 10)) + 20 * sin(t * 6 + Double(i)),
            pressure: 0.3 + 0.5 * t, altitude: kind == .pencil ? 0.3 : 1.2, azimuth: 0.7, timestamp: Double(k) * 4)
    }
    return Stroke(brush: BrushSettings(kind: kind, color: "#223366"), samples: samples)
}

@Suite("Documents")
struct DocumentTests {
    let folder: URL
    let photoBytes: [UInt8]

    init() throws {
        folder = try Fixtures.temporaryFolder("doc")
        photoBytes = try ImageIO.readBytes(path: Fixtures.path("rocket.jpg"))
    }

    func newDocument(_ name: String = "d.sfumato") throws -> Document {
        try Document.create(at: folder.appendingPathComponent(name).path, image: photoBytes, name: "rocket.jpg")
    }

    @Test("undo and redo every kind of action; history survives reopening")
    func undoRedo() throws {
        let doc = try newDocument()
        let base = try doc.render()
        try doc.apply(.edit(RecipeStep(filter: "CIExposureAdjust", values: ["inputEV": .number(0.7)])))
        try doc.apply(.adjust(PencilControllerParameters(hue: 1, saturation: 2, brightness: 0.1, contrast: 1.2, exposure: 0.5, gamma: 1.5)))
        try doc.apply(.curve([0, 0.4, 0.6, 0.8, 1]))
        try doc.apply(.preset(4, reference: nil))
        let strokeID = try doc.addStroke(wavyStroke(1), layer: .sketch)
        #expect(doc.historyLength == 5 && doc.historyPosition == 5)
        #expect(doc.state.edits.count == 1 && doc.state.adjust.gamma == 1.5 && doc.state.curve[1] == 0.4 && doc.state.preset == 4)
        #expect(doc.state.strokes.map(\.id) == [strokeID])
        var renders = [try doc.render()]
        // Undo one at a time: each action disappears in reverse order.
        try doc.undo(); #expect(doc.state.strokes.isEmpty); renders.append(try doc.render())
        try doc.undo(); #expect(doc.state.preset == 0)
        try doc.undo(); #expect(doc.state.curveIsIdentity)
        try doc.undo(); #expect(doc.state.adjust.isNeutral)
        try doc.undo(); #expect(doc.state.edits.isEmpty)
        #expect(try doc.undo() == 0)
        #expect(try doc.render() == base)
        // Redo everything, reopen, and the same picture comes back bit for bit.
        #expect(try doc.redo(10) == 5)
        #expect(try doc.render() == renders[0])
        try doc.undo()
        let reopened = try Document(open: doc.path)
        #expect(reopened.historyPosition == 4 && reopened.historyLength == 5)
        #expect(try reopened.render() == renders[1])
        try reopened.redo()
        #expect(try reopened.render() == renders[0])
        // A new action after undo drops the redo branch.
        try reopened.undo(2)
        try reopened.apply(.curve([0.1, 0.3, 0.5, 0.7, 0.9]))
        #expect(reopened.historyLength == 4 && !reopened.canRedo)
        #expect(try reopened.check().ok)
    }

    @Test("the export equals rendering the same recipe directly")
    func exportEqualsRecipe() throws {
        let doc = try newDocument()
        try doc.apply(.edit(RecipeStep(filter: "gaussian-blur", values: ["radius": .number(2)])))
        try doc.apply(.adjust(PencilControllerParameters(hue: 0.5, saturation: 1.5)))
        let photo = try ImageIO.read(bytes: photoBytes).bitmap
        // Written out by hand: blur in linear light, then the chain on encoded values.
        let blurred = try RenderContext(workingSpace: .linear).render(
            GaussianBlur(radius: 2, edges: .clamp).apply(to: Image(bitmap: photo)),
            format: .rgbaFloat32, alpha: .premultiplied, encoding: .srgb)
        var recipe = Image(bitmap: blurred)
        recipe = ColorControls(saturation: 1.5).apply(to: HueAdjust(angle: 0.5).apply(to: recipe))
        let direct = try RenderContext(workingSpace: .none).render(recipe)
        #expect(Pixels.maxDifference(try doc.render(), direct) <= 1)
    }

    @Test("a preview agrees with the export scaled down (mean within 1 level, every pixel within a few)")
    func previewMatchesExport() throws {
        let doc = try newDocument()
        try doc.apply(.edit(RecipeStep(filter: "gaussian-blur", values: ["radius": .number(4)])))
        try doc.apply(.curve([0, 0.35, 0.6, 0.85, 1]))
        try doc.apply(.adjust(PencilControllerParameters(saturation: 1.4, contrast: 1.1)))
        for i in 0..<6 { try doc.addStroke(wavyStroke(i, i % 2 == 0 ? .pen : .forcePen), layer: .sketch) }
        let export = try doc.render()
        for width in [320, 213] {
            let preview = try doc.render(width: width)
            let scaled = try RenderContext(workingSpace: .none).render(Image(bitmap: export).resized(width: preview.width, height: preview.height))
            let mean = Pixels.meanDifference(preview, scaled)
            let worst = Pixels.maxDifference(preview, scaled)
            #expect(mean <= 1, "width \(width): mean \(mean)")
            #expect(worst <= 3, "width \(width): worst \(worst)")
            // The studio's interactive preview (resampled first) stays close too.
            let interactive = try RenderContext(workingSpace: .none).render(try doc.interactiveRecipe(width: width))
            #expect(Pixels.meanDifference(interactive, scaled) <= 2.5, "interactive at \(width): mean \(Pixels.meanDifference(interactive, scaled))")
        }
    }

    @Test("renders are deterministic: the same document renders identically in another process")
    func otherProcess() throws {
        let doc = try newDocument()
        try doc.apply(.curve([0, 0.3, 0.5, 0.8, 1]))
        for i in 0..<3 { try doc.addStroke(wavyStroke(i, .pencil), layer: .shade) }
        let here = try doc.render()
        let out = folder.appendingPathComponent("other.png").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sfumato")
        p.arguments = ["doc", "render", doc.path, "-o", out]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(try ImageIO.read(path: out).bitmap == here)
    }

    @Test("files that are not documents, damaged documents and newer schemas give clear errors and are not written")
    func badFiles() throws {
        func bytes(_ path: String) -> [UInt8] { (try? ImageIO.readBytes(path: path)) ?? [] }
        func expectError(_ path: String, _ fragment: String) {
            let before = bytes(path)
            do {
                _ = try Document(open: path)
                Issue.record("\(path) opened")
            } catch let e as SfumatoError {
                #expect(e.description.contains(fragment), "\(e.description)")
            } catch { Issue.record("untyped \(error)") }
            #expect(bytes(path) == before, "\(path) was modified")
        }
        let text = folder.appendingPathComponent("notes.sfumato").path
        try Data("just some text, long enough to look like a header".utf8).write(to: URL(fileURLWithPath: text))
        expectError(text, "not a Sfumato document")
        let png = folder.appendingPathComponent("photo.sfumato").path
        try Data(try ImageIO.readBytes(path: Fixtures.path("chelsea.png"))).write(to: URL(fileURLWithPath: png))
        expectError(png, "not a Sfumato document")
        expectError(folder.appendingPathComponent("missing.sfumato").path, "no such document")
        // Another program's SQLite database.
        let foreign = folder.appendingPathComponent("foreign.sfumato").path
        let good = try newDocument("good.sfumato")
        for i in 0..<4 { try good.addStroke(wavyStroke(i), layer: .sketch) }
        try good.checkpoint()
        let goodBytes = bytes(good.path)
        var other = goodBytes
        // Application id lives at offset 68 of the SQLite header.
        other[68] = 0; other[69] = 0; other[70] = 0; other[71] = 1
        try Data(other).write(to: URL(fileURLWithPath: foreign))
        expectError(foreign, "not a Sfumato document")
        // A newer schema: user_version at offset 60.
        var newer = goodBytes
        newer[60] = 0; newer[61] = 0; newer[62] = 0; newer[63] = 99
        let newerPath = folder.appendingPathComponent("newer.sfumato").path
        try Data(newer).write(to: URL(fileURLWithPath: newerPath))
        expectError(newerPath, "newer Sfumato")
        // Truncated, and damaged in the middle.
        let cut = folder.appendingPathComponent("cut.sfumato").path
        try Data(goodBytes.prefix(goodBytes.count / 3)).write(to: URL(fileURLWithPath: cut))
        expectError(cut, "damaged")
        var garbled = goodBytes
        for i in stride(from: 4096 + 100, to: min(goodBytes.count, 4096 * 3), by: 7) { garbled[i] = 0x5A }
        let garbledPath = folder.appendingPathComponent("garbled.sfumato").path
        try Data(garbled).write(to: URL(fileURLWithPath: garbledPath))
        expectError(garbledPath, "damaged")
    }

    @Test("a stroke's committed samples survive when the session ends mid-stroke; the stroke counts as ended")
    func unfinishedStroke() throws {
        let path: String
        do {
            let doc = try newDocument()
            path = doc.path
            let id = try doc.beginStroke(layer: .sketch, brush: BrushSettings(kind: .forcePen), fades: false)
            try doc.appendSamples(stroke: id, Array(wavyStroke(0).samples.prefix(10)))
            try doc.appendSamples(stroke: id, Array(wavyStroke(0).samples[10..<20]))
            // No endStroke: the page went away.
        }
        let reopened = try Document(open: path)
        #expect(reopened.state.strokes.count == 1)
        #expect(reopened.state.strokes[0].stroke.samples.count == 20)
        #expect(try reopened.check().unfinishedStrokes == 1)
        _ = try reopened.render()
    }

    @Test("stored samples round-trip exactly what the live stroke drew")
    func samplePrecision() throws {
        let doc = try newDocument()
        let s = wavyStroke(3)
        let id = try doc.addStroke(s, layer: .sketch)
        let back = try Document(open: doc.path).state.strokes.first { $0.id == id }!.stroke.samples
        #expect(back == Document.stored(s.samples))
        #expect(zip(back, s.samples).allSatisfy { abs($0.x - $1.x) < 1e-3 && abs($0.pressure - $1.pressure) < 1e-6 })
    }
}
