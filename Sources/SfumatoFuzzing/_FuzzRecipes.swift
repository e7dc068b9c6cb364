import Foundation
import SfumatoCLI
import SfumatoCore
import SfumatoFilters

/// Filter specs (one per line) and recipes (the whole input as JSON): each step that passes the
/// checks is made and rendered on a small image in both working spaces.
enum _FuzzRecipes {
    static let image: Image = {
        let b = try! Bitmap(width: 13, height: 9, format: .rgba8)
        for y in 0..<9 {
            for x in 0..<13 { b.row(y).storeBytes(of: UInt32(truncatingIfNeeded: x * 977 + y * 131 + 0xFF00_0000), toByteOffset: 4 * x, as: UInt32.self) }
        }
        return Image(bitmap: b)
    }()

    static func run(_ data: [UInt8]) {
        var steps: [FilterStep] = []
        if let recipe = try? FilterSpecParser.parseRecipe(Data(data), name: "fuzz") { steps += recipe.prefix(8) }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n").prefix(8) {
            if let step = try? FilterSpecParser.parse(String(line)) { steps.append(step) }
        }
        var current = image
        for step in steps {
            guard let filter = try? FilterRegistry.make(step.name, values: step.values) else { continue }
            current = filter.apply(to: current).cropped(to: image.extent)
        }
        for space in [WorkingSpace.none, .linear] {
            _ = try? RenderContext(options: .init(workingSpace: space, threads: 1)).render(current, rect: image.extent)
        }
    }
}
