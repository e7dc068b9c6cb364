import SfumatoCore

/// One parameter of a filter and the property that holds its value: declared once, it gives the
/// filter its table form both ways (``DeclaredFilter``) and, for lengths, its scaling.
///
/// ```swift
/// static let fields: [FilterField<ExposureAdjust>] = [.number(ev, \.ev)]
/// ```
public struct FilterField<F>: @unchecked Sendable {
    /// The declaration.
    public let spec: ParameterSpec
    let read: (F, inout FilterArguments) -> Void
    let write: (inout F, FilterArguments) throws -> Void
    let scale: ((inout F, Double) -> Void)?

    /// A field with its own reading and writing (values that live in another shape, such as one
    /// element of a list).
    public init(
        _ spec: ParameterSpec, read: @escaping (F) -> ParameterValue, write: @escaping (inout F, FilterArguments) throws -> Void
    ) {
        self.spec = spec
        self.read = { f, a in a.set(spec, read(f)) }
        self.write = write
        scale = nil
    }

    init(
        spec: ParameterSpec, read: @escaping (F, inout FilterArguments) -> Void, write: @escaping (inout F, FilterArguments) throws -> Void,
        scale: ((inout F, Double) -> Void)?
    ) {
        self.spec = spec
        self.read = read
        self.write = write
        self.scale = scale
    }

    /// A real number; one in ``ParameterUnit/pixels`` scales with the image.
    public static func number(_ spec: ParameterSpec, _ path: WritableKeyPath<F, Double>) -> FilterField {
        FilterField(
            spec: spec, read: { f, a in a.set(spec, .number(f[keyPath: path])) }, write: { f, a in f[keyPath: path] = a.number(spec) },
            scale: spec.unit == .pixels ? { f, k in f[keyPath: path] = spec.clamped(f[keyPath: path] * k) } : nil)
    }

    /// A whole number; one in ``ParameterUnit/pixels`` scales with the image (rounded, odd where it must be).
    public static func integer(_ spec: ParameterSpec, _ path: WritableKeyPath<F, Int>) -> FilterField {
        FilterField(
            spec: spec, read: { f, a in a.set(spec, .number(Double(f[keyPath: path]))) },
            // Unchecked arguments (the Swift API's) may hold NaN or 1e300: taken as 0 or within Int32.
            write: { f, a in
                let v = a.number(spec)
                f[keyPath: path] = Int(v.isNaN ? 0 : v.bounded(-0x7FFF_FFFF, 0x7FFF_FFFF))
            },
            scale: spec.unit == .pixels ? { f, k in f[keyPath: path] = spec.scaledInteger(f[keyPath: path], by: k) } : nil)
    }

    /// A list of numbers.
    public static func vector(_ spec: ParameterSpec, _ path: WritableKeyPath<F, [Double]>) -> FilterField {
        FilterField(
            spec: spec, read: { f, a in a.set(spec, .vector(f[keyPath: path])) },
            write: { f, a in
                // A wrong length is an error, but where unchecked (what the memberwise
                // initialisers can make, which every filter must render).
                let v = a.vector(spec)
                if !a.unchecked, let count = spec.count, v.count != count {
                    throw SfumatoError.invalidArgument("\(spec.shortKey) needs \(count) numbers, not \(v.count)")
                }
                f[keyPath: path] = v
            },
            scale: nil)
    }

    /// A switch.
    public static func flag(_ spec: ParameterSpec, _ path: WritableKeyPath<F, Bool>) -> FilterField {
        FilterField(
            spec: spec, read: { f, a in a.set(spec, .flag(f[keyPath: path])) }, write: { f, a in f[keyPath: path] = a.flag(spec) },
            scale: nil)
    }

    /// One of an enumeration's cases, by raw value.
    public static func choice<E: RawRepresentable>(_ spec: ParameterSpec, _ path: WritableKeyPath<F, E>) -> FilterField
    where E.RawValue == String {
        FilterField(
            spec: spec, read: { f, a in a.set(spec, .text(f[keyPath: path].rawValue)) },
            write: { f, a in
                guard let e = E(rawValue: a.choice(spec)) else {
                    throw SfumatoError.invalidArgument("\(spec.shortKey) must be one of \(spec.choices.joined(separator: ", "))")
                }
                f[keyPath: path] = e
            }, scale: nil)
    }

    /// An image, with the name it came by (a path, for plans and recipes); nil when left out of
    /// an ``ParameterSpec/optional`` one.
    public static func image(_ spec: ParameterSpec, _ path: WritableKeyPath<F, Image?>, name: WritableKeyPath<F, String>) -> FilterField {
        FilterField(
            spec: spec,
            read: { f, a in if let image = f[keyPath: path] { a.set(spec, image: image, name: f[keyPath: name]) } },
            write: { f, a in
                guard let image = a.image(spec) else {
                    if spec.optional { return }
                    throw SfumatoError.invalidArgument("\(spec.shortKey): needs an image (\(spec.shortKey)=IMAGE)")
                }
                f[keyPath: path] = image
                f[keyPath: name] = a.imageNames[spec.key] ?? spec.shortKey
            }, scale: nil)
    }
}

extension FilterField {
    /// An image the filter cannot do without (its default, until one is given, is empty).
    public static func image(_ spec: ParameterSpec, _ path: WritableKeyPath<F, Image>, name: WritableKeyPath<F, String>) -> FilterField {
        FilterField(
            spec: spec, read: { f, a in a.set(spec, image: f[keyPath: path], name: f[keyPath: name]) },
            write: { f, a in
                guard let image = a.image(spec) else {
                    throw SfumatoError.invalidArgument("\(spec.shortKey): needs an image (\(spec.shortKey)=IMAGE)")
                }
                f[keyPath: path] = image
                f[keyPath: name] = a.imageNames[spec.key] ?? spec.shortKey
            }, scale: nil)
    }
}

/// A filter that declares its parameters once, as ``FilterField``s: its table form
/// (`init(arguments:)`, `arguments`), its descriptor's parameter list and its scaling to another
/// image size all follow from them.
///
/// ```swift
/// public struct ExposureAdjust: DeclaredFilter {
///     public static let ev = ParameterSpec.number("inputEV", default: 0, range: -10...10, unit: .stops, help: "stops")
///     public static let fields: [FilterField<Self>] = [.number(ev, \.ev)]
///     public static let descriptor = FilterDescriptor(..., parameters: fields.map(\.spec))
///     public var ev = 0.0
///     public init() {}
///     public func apply(to image: Image) -> Image { ... }
/// }
/// ```
public protocol DeclaredFilter: Filter {
    /// The parameters and the properties holding them, in display order.
    static var fields: [FilterField<Self>] { get }
    /// The filter with every parameter at its default.
    init()
    /// Rules between parameters (a kernel's weights and its size), checked after they are set.
    func validate() throws
}

extension DeclaredFilter {
    public func validate() throws {}

    public init(arguments a: FilterArguments) throws {
        self = try Self.written(a)
        try validate()
    }

    /// The filter with `arguments` as given, unvalidated: what the memberwise initialisers make
    /// of any numbers and lists. Every filter renders such a one without a trap (tests hold it
    /// to that); throws only for a choice that names no case (or a field's own shape).
    public init(uncheckedArguments a: FilterArguments) throws {
        var a = a
        a.unchecked = true
        self = try Self.written(a)
    }

    /// A filter at its defaults with every field written from `a`.
    private static func written(_ a: FilterArguments) throws -> Self {
        var f = Self()
        for field in fields { try field.write(&f, a) }
        return f
    }

    public var arguments: FilterArguments {
        var a = FilterArguments()
        for field in Self.fields { field.read(self, &a) }
        return a
    }

    /// The filter for an image `factor` times the size: every length (``ParameterUnit/pixels``) scaled.
    public func scaled(by factor: Double) -> Self {
        var f = self
        for field in Self.fields { field.scale?(&f, factor) }
        return f
    }
}

/// `filter` adapted to an image `factor` times the size (unchanged when it has no lengths).
public func scaledFilter(_ filter: any Filter, by factor: Double) -> any Filter {
    if factor == 1 { return filter }
    func scale<F: DeclaredFilter>(_ f: F) -> any Filter { f.scaled(by: factor) }
    if let d = filter as? any DeclaredFilter { return scale(d) }
    return filter
}

extension ParameterSpec {
    /// A number kept within the declared range.
    func clamped(_ v: Double) -> Double {
        v.isNaN ? minimum ?? 0 : min(max(v, minimum ?? -.infinity), maximum ?? .infinity)
    }

    /// A whole number scaled, rounded, kept odd when it must be, within the declared range.
    func scaledInteger(_ n: Int, by factor: Double) -> Int {
        // Within Int32 where the spec sets no bound, so that any factor converts.
        var v = Int(clamped((Double(n) * factor).rounded()).bounded(-0x7FFF_FFFF, 0x7FFF_FFFF))
        let top = maximum.map { Int($0) } ?? Int.max
        if odd && v % 2 == 0 { v = v + 1 <= top ? v + 1 : v - 1 }
        return v
    }
}

/// Whether every list holds `count` numbers. The memberwise initialisers take lists of any length;
/// a filter given others leaves its image as it is (a generator: makes none).
@inline(__always)
func _lists(_ lists: [Double]..., count: Int) -> Bool { lists.allSatisfy { $0.count == count } }
