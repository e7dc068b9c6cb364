import Foundation
import SfumatoCLI
import SfumatoCodecs
import SfumatoTestSupport
import Testing

/// A folder of real photos with bad files among them: a truncated JPEG, an empty file, a file that
/// is not an image, a FIFO and a dangling link named like photos.
private func photoFolder() throws -> (folder: URL, good: [String], bad: [String]) {
    let folder = try Fixtures.temporaryFolder("batch-in")
    let sub = folder.appendingPathComponent("trip/day 2")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    var good: [String] = []
    for (name, into) in [("rocket.jpg", "trip"), ("hubble_deep_field.jpg", "trip/day 2"), ("coffee.png", ""), ("chelsea.png", "trip/day 2")] {
        let target = folder.appendingPathComponent(into).appendingPathComponent(name)
        try FileManager.default.copyItem(atPath: Fixtures.path(name), toPath: target.path)
        good.append(into.isEmpty ? name : into + "/" + name)
    }
    let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("rocket.jpg")))
    try jpeg.prefix(jpeg.count / 3).write(to: folder.appendingPathComponent("trip/truncated.jpg"))
    try Data().write(to: folder.appendingPathComponent("empty.jpg"))
    try Data("not an image at all".utf8).write(to: folder.appendingPathComponent("notes.png"))
    #expect(mkfifo(folder.appendingPathComponent("pipe.jpg").path, 0o644) == 0)
    try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("gone.jpg").path, withDestinationPath: "/nonexistent/x.jpg")
    return (folder, good, ["trip/truncated.jpg", "empty.jpg", "notes.png", "pipe.jpg", "gone.jpg"])
}

private func manifest(_ path: String) throws -> [[String: Any]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
}

/// Every file under a folder, relative to it, hidden ones included (a leftover temporary shows).
private func files(_ folder: URL) -> [String] {
    (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).filter {
        var d: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path, isDirectory: &d) && !d.boolValue
    }.sorted()
}

@Suite("sfumato batch")
struct BatchTests {
    @Test("every good file done, every bad one reported with a reason, no partial output, exit 1")
    func goodAndBad() throws {
        let (input, good, bad) = try photoFolder()
        let out = try Fixtures.temporaryFolder("batch-out")
        let r = sfumato("batch", input.path, "-o", out.path, "-f", "gaussian-blur:radius=2", "--thumbnail", "200x200", "--format", "jpeg")
        #expect(r.code == 1, "\(r.err)")
        let written = files(out).filter { !$0.hasPrefix(".sfumato-batch") }
        #expect(written == good.map { ($0 as NSString).deletingPathExtension + ".jpg" }.sorted())
        for name in written {
            let image = try ImageIO.read(path: out.appendingPathComponent(name).path)
            #expect(max(image.bitmap.width, image.bitmap.height) == 200, "\(name) fits 200x200")
        }
        let records = try manifest(out.appendingPathComponent(".sfumato-batch.jsonl").path)
        #expect(records.count == good.count + bad.count)
        for name in bad {
            let record = try #require(records.first { ($0["input"] as? String)?.hasSuffix("/" + name) == true }, "\(name) reported")
            #expect(record["status"] as? String == "failed")
            #expect(!((record["reason"] as? String) ?? "").isEmpty)
        }
        let reasons = Dictionary(uniqueKeysWithValues: records.map { (($0["input"] as! NSString).lastPathComponent, $0["reason"] as? String ?? "") })
        #expect(reasons["pipe.jpg"] == "not a regular file")
        #expect(reasons["gone.jpg"] == "no such file")
        #expect(reasons["empty.jpg"] == "empty file")
        for name in bad { #expect(r.err.contains("failed: ") && r.err.contains(name), "\(name) in the summary") }
        // The thumbnail's JPEG was decoded DCT-scaled: the record keeps the output's size.
        let hubble = try #require(records.first { ($0["input"] as? String)?.hasSuffix("hubble_deep_field.jpg") == true })
        #expect(hubble["width"] as? Int == 200 && hubble["height"] as? Int == 174)
    }

    @Test("run again: nothing left to do; a changed recipe or input is redone, the rest skipped")
    func resume() throws {
        let (input, good, _) = try photoFolder()
        for name in ["pipe.jpg", "gone.jpg", "empty.jpg", "notes.png", "trip/truncated.jpg"] {
            try FileManager.default.removeItem(at: input.appendingPathComponent(name))
        }
        let out = try Fixtures.temporaryFolder("batch-out")
        let args = ["batch", input.path, "-o", out.path, "--thumbnail", "160", "--json"]
        let first = SfumatoCommand.run(args, output: TextOutput(capture: true))
        #expect(first == 0)
        let o = TextOutput(capture: true)
        #expect(SfumatoCommand.run(args, output: o) == 0)
        #expect(o.out.contains("\"done\":0,\"skipped\":\(good.count),\"failed\":0"), "\(o.out)")
        // One input changes: only it is redone.
        try FileManager.default.removeItem(at: input.appendingPathComponent("coffee.png"))
        try FileManager.default.copyItem(atPath: Fixtures.path("astronaut.png"), toPath: input.appendingPathComponent("coffee.png").path)
        let changed = TextOutput(capture: true)
        #expect(SfumatoCommand.run(args, output: changed) == 0)
        #expect(changed.out.contains("\"done\":1,\"skipped\":\(good.count - 1),"), "\(changed.out)")
        // Another size is another recipe: everything is redone.
        let other = TextOutput(capture: true)
        #expect(SfumatoCommand.run(["batch", input.path, "-o", out.path, "--thumbnail", "120", "--json"], output: other) == 0)
        #expect(other.out.contains("\"done\":\(good.count),\"skipped\":0,"), "\(other.out)")
        // A deleted output is written again.
        try FileManager.default.removeItem(at: out.appendingPathComponent("coffee.png"))
        let again = TextOutput(capture: true)
        #expect(SfumatoCommand.run(["batch", input.path, "-o", out.path, "--thumbnail", "120", "--json"], output: again) == 0)
        #expect(again.out.contains("\"done\":1,"), "\(again.out)")
    }

    @Test("shards 0..N-1 together cover every input exactly once")
    func shards() throws {
        let (input, good, _) = try photoFolder()
        for name in ["pipe.jpg", "gone.jpg"] { try FileManager.default.removeItem(at: input.appendingPathComponent(name)) }
        var seen: [String] = []
        for i in 0..<3 {
            let o = TextOutput(capture: true)
            let code = SfumatoCommand.run(["batch", input.path, "-o", "/tmp/unused", "--shard", "\(i)/3", "--dry-run"], output: o)
            #expect(code == 0)
            seen += o.out.split(separator: "\n").map { String($0.components(separatedBy: " <- ").last!) }
        }
        #expect(seen.sorted() == (good + ["empty.jpg", "notes.png", "trip/truncated.jpg"]).map { input.path + "/" + $0 }.sorted())
        for bad in ["3/3", "-1/2", "1", "a/b", "0/0"] {
            #expect(sfumato("batch", input.path, "-o", "/tmp/unused", "--shard", bad).code == 2, "\(bad)")
        }
    }

    @Test("lists, standard input's paths, include and exclude globs, name patterns; collisions refused")
    func inputsAndNames() throws {
        let (input, _, _) = try photoFolder()
        let list = input.appendingPathComponent("list.txt")
        try "# photos\n\(input.path)/coffee.png\n\n\(input.path)/trip/rocket.jpg\n".write(to: list, atomically: true, encoding: .utf8)
        let listed = sfumato("batch", "--from", list.path, "-o", "/tmp/unused", "--dry-run", "--name", "{stem}-small.{ext}", "--format", "webp")
        #expect(listed.code == 0)
        #expect(listed.out.contains("/tmp/unused/coffee-small.webp <- \(input.path)/coffee.png"), "\(listed.out)")
        #expect(listed.out.contains("/tmp/unused/trip/rocket-small.webp <- \(input.path)/trip/rocket.jpg"), "\(listed.out)")
        let picked = sfumato("batch", input.path, "-o", "/tmp/unused", "--dry-run", "--include", "*.png", "--exclude", "notes.*")
        #expect(
            picked.out.split(separator: "\n").map { String($0.components(separatedBy: " <- ").last!) }.sorted()
                == ["\(input.path)/coffee.png", "\(input.path)/trip/day 2/chelsea.png"], "\(picked.out)")
        // Two inputs that would write one output: refused before anything is done.
        let clash = sfumato("batch", input.path, "-o", "/tmp/unused", "--dry-run", "--name", "same.jpg")
        #expect(clash.code == 2 && clash.err.contains("would both write"))
        for bad in ["../x.jpg", "/abs.jpg", "{nope}.jpg", "a//b.jpg"] {
            #expect(sfumato("batch", input.path, "-o", "/tmp/unused", "--name", bad).code == 2, "\(bad)")
        }
        for bad in [["--thumbnail", "0x10"], ["--thumbnail", "axb"], ["--memory", "1K"], ["--memory", "nanG"], ["--jobs", "0"]] {
            #expect(sfumato(["batch", input.path, "-o", "/tmp/unused"] + bad).code == 2, "\(bad)")
        }
    }
}

private func sfumato(_ args: [String]) -> (code: Int32, out: String, err: String) {
    let o = TextOutput(capture: true)
    return (SfumatoCommand.run(args, output: o), o.out, o.err)
}
