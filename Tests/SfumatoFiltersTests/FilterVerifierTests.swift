import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// The shared battery over the whole registry: a filter is covered by being registered.
@Suite("Every registered filter, through FilterVerifier")
struct FilterVerifierTests {
    /// A real photo's crop (opaque), and the same pixels as a PNG file read back streamed.
    static let source: Bitmap = {
        let photo = try! Fixtures.photo("rocket.jpg")
        return try! Pixels.make(173, 121) { x, y in photo.pixel(x: x * 3 + 20, y: y * 3 + 10) }
    }()
    static let streamedPath: String = {
        let path = try! Fixtures.temporaryFolder("verifier").appendingPathComponent("source.png").path
        try! ImageIO.write(source, to: path)
        return path
    }()

    @Test("arguments round-trip, defaults and other values", arguments: FilterRegistry.all.map { $0.descriptor.name })
    func roundTrip(_ name: String) throws {
        let type = FilterRegistry.all.first { $0.descriptor.name == name }!
        for filter in try FilterVerifier.samples(type, image: Image(bitmap: Self.source)) {
            let problems = FilterVerifier.roundTrip(filter)
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    @Test(
        "whole output; tiled, one-thread, streamed and baseline renders give the same bytes",
        arguments: FilterRegistry.all.map { $0.descriptor.name })
    func renders(_ name: String) throws {
        let type = FilterRegistry.all.first { $0.descriptor.name == name }!
        let (streamed, _) = try ImageIO.open(path: Self.streamedPath)
        for filter in try FilterVerifier.samples(type, image: Image(bitmap: Self.source)) {
            for ws in [WorkingSpace.none, .linear] {
                let problems = try FilterVerifier.renders(filter, source: Self.source, streamed: streamed, workingSpace: ws)
                #expect(problems.isEmpty, "\(problems)")
            }
        }
    }

    @Test("each filter's file lives in its category's folder, and every folder is a category")
    func categories() throws {
        for type in FilterRegistry.all {
            let d = type.descriptor
            let folder = URL(fileURLWithPath: d.sourceFile).deletingLastPathComponent().lastPathComponent
            #expect(folder == d.category.rawValue, "\(d.name) says \(d.category.rawValue) but lives in \(d.sourceFile)")
        }
        let root = Fixtures.root.appendingPathComponent("Sources/SfumatoFilters")
        let folders = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { !["Registry", "Gallery"].contains($0) && !$0.contains(".") }
        #expect(Set(folders) == Set(FilterCategory.allCases.map(\.rawValue)))
    }

    @Test("a filter for a smaller image has its lengths scaled, and nothing else")
    func scaling() throws {
        let blur = GaussianBlur(radius: 8, edges: .clamp)
        #expect((scaledFilter(blur, by: 0.5) as! GaussianBlur) == GaussianBlur(radius: 4, edges: .clamp))
        #expect((scaledFilter(Median(diameter: 9), by: 0.5) as! Median).diameter == 5)
        #expect((scaledFilter(Median(diameter: 5), by: 0.1) as! Median).diameter == 3)
        #expect((scaledFilter(AreaMax(width: 9, height: 4), by: 0.5) as! AreaMax) == AreaMax(width: 5, height: 2))
        let emboss = try Convolution(width: 3, height: 3, weights: [-2, 0, 0, 0, 1, 0, 0, 0, 2])
        #expect((scaledFilter(emboss, by: 0.25) as! Convolution) == emboss, "kernel taps are not lengths")
        #expect((scaledFilter(ExposureAdjust(ev: 1), by: 0.5) as! ExposureAdjust) == ExposureAdjust(ev: 1))
    }
}
