import SfumatoCore

/// What a filter is, as data: the same table drives the command line's help and parsing, the
/// studio's controls, recipes and documents.
public struct FilterDescriptor: Sendable {
    /// Display name, e.g. `Hue Adjust`.
    public let displayName: String
    /// Core Image name (`CIHueAdjust`), if Core Image has this filter.
    public let coreImageName: String?
    /// Short kebab-case name for the command line (`hue-adjust`).
    public let shortName: String
    /// The domain, which is also the folder the filter's file lives in.
    public let category: FilterCategory
    /// One line on what it does.
    public let summary: String
    /// The parameters, in display order.
    public let parameters: [ParameterSpec]
    /// Defaults that apply instead of the declared ones when the filter is named by its short
    /// name (`gaussian-blur` clamps its edges, `CIGaussianBlur` keeps Core Image's rule).
    public let shortNameDefaults: [String: ParameterValue]

    /// The file that declares the filter (its path when built), for the check
    /// that its category matches its folder.
    public let sourceFile: String

    /// The name recipes are written with: the Core Image name when there is one.
    public var name: String { coreImageName ?? shortName }

    public init(
        displayName: String, coreImageName: String?, shortName: String, category: FilterCategory, summary: String,
        parameters: [ParameterSpec], shortNameDefaults: [String: ParameterValue] = [:], sourceFile: String = #filePath
    ) {
        self.sourceFile = sourceFile
        self.shortNameDefaults = shortNameDefaults
        self.displayName = displayName
        self.coreImageName = coreImageName
        self.shortName = shortName
        self.category = category
        self.summary = summary
        self.parameters = parameters
    }

    /// The parameter `name` refers to (with or without `input`, any case), or nil.
    public func parameter(named name: String) -> ParameterSpec? {
        parameters.first { $0.matches(name) }
    }
}

/// A filter: a typed value that builds a new image recipe from an input recipe.
///
/// Each filter also round-trips through ``FilterArguments`` (the table form used by recipes and
/// documents): `try F(arguments: f.arguments)` equals `f`.
public protocol Filter: Sendable {
    /// The filter's declaration.
    static var descriptor: FilterDescriptor { get }
    /// Builds the filter from validated table values (defaults filled in).
    init(arguments: FilterArguments) throws
    /// The filter's values in table form.
    var arguments: FilterArguments { get }
    /// The filtered recipe.
    func apply(to image: Image) -> Image
    /// Whether an opaque input gives an opaque output over the input's extent (a Core Image
    /// blur fades its edges; a colour matrix may rewrite alpha).
    var preservesOpacity: Bool { get }
}

extension Filter {
    public var preservesOpacity: Bool { true }
}

/// Parameter values keyed by their declarations, already checked against kind and range.
public struct FilterArguments: Sendable {
    /// Values by canonical key.
    public private(set) var values: [String: ParameterValue] = [:]
    /// Image-valued parameters by canonical key.
    public private(set) var images: [String: Image] = [:]
    /// Where image-valued parameters came from (paths), for recipes and plans.
    public private(set) var imageNames: [String: String] = [:]

    /// Set by ``DeclaredFilter/init(uncheckedArguments:)``: fields take lists of any length,
    /// as the memberwise initialisers do.
    var unchecked = false

    public init() {}

    /// Sets a value (no validation; use ``FilterDescriptor`` parsing for user input).
    public mutating func set(_ spec: ParameterSpec, _ value: ParameterValue) { values[spec.key] = value }

    /// Sets an image.
    public mutating func set(_ spec: ParameterSpec, image: Image, name: String) {
        images[spec.key] = image
        imageNames[spec.key] = name
    }

    /// The number for `spec` (its default when absent).
    public func number(_ spec: ParameterSpec) -> Double {
        switch values[spec.key] ?? spec.defaultValue {
        case .number(let v): v
        case .vector(let v): v.first ?? 0
        case .flag(let b): b ? 1 : 0
        default: 0
        }
    }

    /// The vector for `spec` (its default when absent).
    public func vector(_ spec: ParameterSpec) -> [Double] {
        switch values[spec.key] ?? spec.defaultValue {
        case .vector(let v): v
        case .number(let v): [v]
        default: []
        }
    }

    /// The choice for `spec` (its default when absent).
    public func choice(_ spec: ParameterSpec) -> String {
        if case .text(let t)? = values[spec.key] ?? spec.defaultValue { return t }
        return ""
    }

    /// The flag for `spec` (its default when absent).
    public func flag(_ spec: ParameterSpec) -> Bool {
        if case .flag(let b)? = values[spec.key] ?? spec.defaultValue { return b }
        return false
    }

    /// The image for `spec`, if given.
    public func image(_ spec: ParameterSpec) -> Image? { images[spec.key] }

    /// Whether a value for `spec` was given.
    public func has(_ spec: ParameterSpec) -> Bool { values[spec.key] != nil || images[spec.key] != nil }
}

extension Filter {
    /// Builds the filter from user-given values (any key spelling), validated.
    ///
    /// ```swift
    /// let f = try ExposureAdjust(values: ["ev": .number(0.5)])
    /// ```
    public init(values: [String: ParameterValue], images: [String: (Image, String)] = [:]) throws {
        self = try Self(arguments: try Self.descriptor.arguments(values: values, images: images))
    }
}

extension FilterDescriptor {
    /// Validates user-given values (keys in any accepted spelling) into arguments.
    public func arguments(
        values: [String: ParameterValue], images: [String: (Image, String)] = [:],
        requireImages: Bool = true
    ) throws -> FilterArguments {
        var a = FilterArguments()
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let spec = parameter(named: name) else {
                throw SfumatoError.unknownName(
                    "\(self.name): no parameter \(name); parameters are "
                        + parameters.map(\.shortKey).joined(separator: ", "))
            }
            a.set(spec, try spec.validate(value, filter: self.name))
        }
        for (name, (image, path)) in images {
            guard let spec = parameter(named: name), spec.kind == .image else {
                throw SfumatoError.unknownName("\(self.name): no image parameter \(name)")
            }
            a.set(spec, image: image, name: path)
        }
        for spec in parameters where requireImages && spec.kind == .image && a.image(spec) == nil && !spec.optional {
            throw SfumatoError.invalidArgument("\(self.name): needs \(spec.shortKey)=IMAGE")
        }
        return a
    }
}
