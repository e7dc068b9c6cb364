import SfumatoCore

/// Filters defined by a rectangle's width and height (area max and min, closing, opening): they
/// share their parameter declarations, so their fields come from here.
public protocol RectangleFilter: DeclaredFilter {
    var width: Int { get set }
    var height: Int { get set }
}

/// The parameters every rectangle filter declares.
enum _Rectangle {
    static let width = ParameterSpec.integer("width", default: 3, range: 1...255, unit: .pixels, help: "window width")
    static let height = ParameterSpec.integer("height", default: 3, range: 1...255, unit: .pixels, help: "window height")

    static func descriptor(_ display: String, _ short: String, _ summary: String, sourceFile: String = #filePath) -> FilterDescriptor {
        FilterDescriptor(
            displayName: display, coreImageName: nil, shortName: short, category: .morphology, summary: summary,
            parameters: [width, height], sourceFile: sourceFile)
    }
}

extension RectangleFilter {
    public static var fields: [FilterField<Self>] { [.integer(_Rectangle.width, \.width), .integer(_Rectangle.height, \.height)] }
}
