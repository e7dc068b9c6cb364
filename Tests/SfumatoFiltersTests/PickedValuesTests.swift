import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// Kernels that pick input values (``NeighborhoodKernel/picksInputValues``: medians, minimum and
/// maximum over shapes, nearest-neighbour moves) commute with sRGB's encoding, so in linear
/// light they run on the sRGB bytes of opaque 8-bit images: the promise is the float route's
/// bytes exactly, not within a level.
@Suite("Picked values in linear light: the float route's bytes exactly", .serialized)
struct PickedValuesTests {
    static let filters: [(String, any Filter)] = [
        ("CIMedianFilter", MedianFilter()),
        ("median 5", Median(diameter: 5)),
        ("median 9", Median(diameter: 9)),
        ("area max 9x5", AreaMax(width: 9, height: 5)),
        ("area min 3x17", AreaMin(width: 3, height: 17)),
        ("closing 5x5 (two kernels, bytes between them)", Closing(width: 5, height: 5)),
        ("opening 9x9", Opening(width: 9, height: 9)),
        ("dilate, 15x15 disc", Dilate.disc()),
        ("erode, flat 3x3", try! Erode(width: 3, height: 3, probe: [1, 0, 1, 0, 0, 0, 1, 0, 1])),
        ("a quarter turn, nearest", AffineTransformFilter(transform: AffineMap(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0), sampling: .nearest)),
        ("a turn of 0.3, nearest", AffineTransformFilter(transform: AffineMap(a: 0.955, b: 0.296, c: -0.296, d: 0.955, tx: 3, ty: 0), sampling: .nearest))
    ]

    @Test("every filter, photos and hard cases, whole and in small tiles: identical bytes, the plan naming the route")
    func identical() throws {
        for (what, filter) in Self.filters {
            for (imageName, bitmap) in LinearBytesTests.images {
                let recipe = filter.apply(to: Image(bitmap: bitmap))
                for options in [RenderContext.Options(), .init(tileWidth: 16, tileHeight: 5)] {
                    var floatOptions = options
                    floatOptions.linearBytes = false
                    let bytes = RenderContext(options: options), floats = RenderContext(options: floatOptions)
                    let plan = try bytes.explain(recipe, rect: recipe.extent)
                    #expect(plan.contains("picked values"), "\(what) \(imageName): \(plan)")
                    #expect(!(try floats.explain(recipe, rect: recipe.extent)).contains("picked values"))
                    #expect(try bytes.render(recipe) == (try floats.render(recipe)), "\(what) \(imageName)")
                }
            }
        }
    }

    @Test("values that are not the input's keep the float route: a translucent image, a probe with levels, bilinear sampling, encoded output")
    func fallbacks() throws {
        let photo = Image(bitmap: GalleryImages.photos[0].1), context = RenderContext()
        let cases: [(String, Image)] = [
            ("translucent", Median(diameter: 3).apply(to: Image(bitmap: Photos.alphaNoise))),
            ("a probe with levels", try Dilate(width: 3, height: 3, probe: [0.5, 0.2, 0.5, 0.2, 0, 0.2, 0.5, 0.2, 0.5]).apply(to: photo)),
            ("a probe of 1s alone", try Dilate(width: 3, height: 3, probe: [Double](repeating: 1, count: 9)).apply(to: photo)),
            (
                "bilinear",
                AffineTransformFilter(transform: AffineMap(a: 0.955, b: 0.296, c: -0.296, d: 0.955, tx: 3, ty: 0), sampling: .bilinear).apply(to: photo)
            ),
            ("after a colour change", Median(diameter: 3).apply(to: ExposureAdjust(ev: 0.5).apply(to: photo)))
        ]
        for (name, recipe) in cases {
            #expect(!(try context.explain(recipe, rect: recipe.extent)).contains("picked values"), "\(name)")
        }
        // Float output reads float tiles: the same floats either way.
        let median = Median(diameter: 5).apply(to: photo)
        var off = RenderContext.Options()
        off.linearBytes = false
        #expect(try context.render(median, format: .rgbaFloat32) == (try RenderContext(options: off).render(median, format: .rgbaFloat32)))
    }
}
