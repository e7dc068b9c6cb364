import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// ``Image/insertingIntermediate()``: the pixels of rendering to an 8-bit bitmap and going on from
/// it, in one render.
@Suite("8-bit intermediates")
struct IntermediateTests {
    static let adjust: [any Filter] = [
        HueAdjust(angle: 1), ColorControls(saturation: 2, brightness: 0.1, contrast: 1.2), ExposureAdjust(ev: 0.5), GammaAdjust(power: 1.5)
    ]

    @Test("an intermediate gives the bytes of a render to a bitmap filtered on, in either working space, any tiling", arguments: [WorkingSpace.none, .linear])
    func sameAsTwoRenders(ws: WorkingSpace) throws {
        let photo = Image(bitmap: try Fixtures.photo("rocket.jpg"))
        let context = RenderContext(workingSpace: ws)
        let adjusted = Self.adjust.reduce(photo) { $1.apply(to: $0) }
        let then: (Image) -> Image = { Median(diameter: 3).apply(to: GaussianBlur(radius: 2, edges: .clamp).apply(to: $0)) }
        let stored = Image(bitmap: try context.render(adjusted))
        let recipe = then(adjusted.insertingIntermediate())
        for context in [context, RenderContext(options: .init(workingSpace: ws, tileWidth: 40, tileHeight: 8))] {
            let a = try context.render(recipe), b = try context.render(then(stored))
            #expect(a == b, "tiles of \(context.options.tileWidth)x\(context.options.tileHeight): \(Pixels.maxDifference(a, b)) levels apart")
        }
        if ws == .none {
            let plan = try context.explain(recipe)
            #expect(plan.contains("8-bit intermediate") && plan.contains("on 8-bit tiles"), "\(plan)")
        }
    }

    @Test("over 8-bit pixels an intermediate is nothing; over floats it clips what 8 bits cannot hold")
    func clipsOnlyFloats() throws {
        let photo = Image(bitmap: try Fixtures.photo("rocket.jpg"))
        let none = RenderContext(workingSpace: .none)
        #expect(!(try none.explain(photo.insertingIntermediate())).contains("intermediate"))
        // Exposure +2 then −2: in float the highlights come back; through 8 bits they stay clipped.
        let up = ExposureAdjust(ev: 2).apply(to: photo)
        let floats = try none.render(ExposureAdjust(ev: -2).apply(to: up))
        let clipped = try none.render(ExposureAdjust(ev: -2).apply(to: up.insertingIntermediate()))
        #expect(Pixels.maxDifference(floats, try none.render(photo)) <= 1)
        #expect(Pixels.maxDifference(clipped, floats) > 100)
    }
}
