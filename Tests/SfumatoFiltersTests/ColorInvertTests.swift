import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

@Suite("CIColorInvert against its definition")
struct ColorInvertTests {
    @Test("1 - v in each working space, alpha kept, on real photos and translucent pixels")
    func definition() throws {
        let photos = try [Fixtures.photo("rocket.jpg"), Fixtures.photo("coffee.png"), Pixels.noise(57, 41, seed: 3, alpha: true)]
        for photo in photos {
            for ws in [WorkingSpace.none, .linear] {
                let out = try RenderContext(workingSpace: ws).render(ColorInvert().apply(to: Image(bitmap: photo)), rect: photo.bounds)
                var worst = 0.0
                for (x, y) in Pixels.samplePoints(photo.width, photo.height) {
                    let p = photo.bytes(x: x, y: y), q = out.bytes(x: x, y: y)
                    #expect(q.w == p.w)
                    guard p.w > 0 else { continue }
                    for c in 0..<3 {
                        // Straight colour: the inverse of the colour (premultiplying and back only rounds).
                        let want = Reference.toLevel(1 - Reference.toWorking(p[c], ws), ws)
                        worst = max(worst, abs(Double(q[c]) - want))
                    }
                }
                #expect(worst <= (photo.isOpaque ? 1 : 2), "\(ws): \(worst) levels")
            }
        }
    }

    @Test("fuses with its neighbours into one matrix")
    func fuses() throws {
        let image = ColorInvert().apply(to: ExposureAdjust(ev: 0.5).apply(to: Image(bitmap: try Pixels.noise(8, 8))))
        let plan = try RenderContext(workingSpace: .none).explain(image)
        #expect(plan.contains("CIExposureAdjust + CIColorInvert"), "\(plan)")
    }
}
