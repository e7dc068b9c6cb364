import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// A render into a row sink that must start again because its streamed source was read out of
/// order (here by design: the photo over itself moved three quarters of its height down, so the lowest strips
/// read rows the stream has already passed). The sink keeps what it took; the retry gives it
/// exactly the rest: every row once, the bytes of a render into memory.
@Suite("A streamed render into a sink that starts again")
struct StreamRestartTests {
    final class Rows: RowSink {
        var data: [UInt8] = []
        var rows = 0
        func write(rows pointer: UnsafeRawPointer, rowBytes: Int, count: Int) throws {
            data += UnsafeRawBufferPointer(start: pointer, count: rowBytes * count)
            rows += count
        }
    }

    @Test("every row once, the same bytes as a render into memory", arguments: [1, 2])
    func restart(threads: Int) throws {
        let folder = try Fixtures.temporaryFolder("stream-restart")
        let path = folder.appendingPathComponent("photo.jpg").path
        try ImageIO.write(try Fixtures.photo("rocket.jpg"), to: path)
        let (streamed, info) = try ImageIO.open(path: path)
        let h = info.height
        let recipe = SourceOverCompositing(background: streamed).apply(to: streamed.translatedBy(dx: 0, dy: 3 * h / 4))
            .cropped(to: streamed.extent)
        let context = RenderContext(options: .init(workingSpace: .linear, threads: threads, tileHeight: 16))
        let sink = Rows()
        try context.render(recipe, rect: streamed.extent, format: .rgba8, to: sink)
        #expect(sink.rows == h, "\(sink.rows) rows for an image of \(h)")
        let (whole, _) = try ImageIO.open(path: path, options: DecodeOptions())
        let memory = try context.render(
            SourceOverCompositing(background: Image(bitmap: try ImageIO.read(path: path).bitmap))
                .apply(to: Image(bitmap: try ImageIO.read(path: path).bitmap).translatedBy(dx: 0, dy: 3 * h / 4))
                .cropped(to: whole.extent), rect: whole.extent)
        let bytes = Array(UnsafeRawBufferPointer(start: memory.baseAddress, count: memory.byteCount))
        #expect(sink.data == bytes, "the sink's rows differ from a render into memory")
        // Into memory the render starts again from the top: the same bytes.
        let direct = try context.render(recipe, rect: streamed.extent)
        #expect(memcmp(direct.baseAddress, memory.baseAddress, memory.byteCount) == 0)
    }

    @Test("a JPEG written in strips joined by restart markers, started again, decodes as one scan", arguments: [1, 2])
    func restartIntoJPEG(threads: Int) throws {
        let folder = try Fixtures.temporaryFolder("stream-restart-jpeg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("photo.jpg").path
        try ImageIO.write(try Fixtures.photo("rocket.jpg"), to: path)
        let (streamed, info) = try ImageIO.open(path: path)
        let recipe = SourceOverCompositing(background: streamed).apply(to: streamed.translatedBy(dx: 0, dy: 3 * info.height / 4))
            .cropped(to: streamed.extent)
        let context = RenderContext(options: .init(workingSpace: .linear, threads: threads, tileHeight: 16))
        let strips = folder.appendingPathComponent("strips.jpg").path
        let writer = try ImageIO.makeWriter(path: strips, format: .jpeg, width: info.width, height: info.height, hasAlpha: false)
        try context.render(recipe, rect: streamed.extent, format: .rgba8, to: writer)
        try writer.finish()
        let memory = try context.render(recipe, rect: streamed.extent)
        let oneScan = folder.appendingPathComponent("one-scan.jpg").path
        let rows = try ImageIO.makeWriter(path: oneScan, format: .jpeg, width: info.width, height: info.height, hasAlpha: false)
        try rows.write(rows: memory.baseAddress, rowBytes: memory.rowBytes, count: memory.height)
        try rows.finish()
        let bytes = try ImageIO.readBytes(path: strips)
        #expect((0..<(bytes.count - 1)).contains { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD0 })
        let same = try ImageIO.read(path: strips).bitmap == ImageIO.read(path: oneScan).bitmap
        #expect(same)
    }
}
