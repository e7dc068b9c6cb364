import SfumatoCore

/// What kind of value a filter parameter takes.
public enum ParameterKind: String, Sendable, Equatable {
    /// A real number.
    case number
    /// A whole number.
    case integer
    /// A fixed-length list of numbers (a point, a colour, a matrix row).
    case vector
    /// One of a few named choices.
    case choice
    /// True or false.
    case flag
    /// Another image (a background, a reference).
    case image
}

/// The unit a number is measured in, for help text and UI labels.
public enum ParameterUnit: String, Sendable, Equatable {
    case none = ""
    case radians = "rad"
    case pixels = "px"
    /// Taps of a kernel given with its weights (a size, but not a length that scales with the image).
    case taps = "taps"
    case stops = "EV"
    case scalar = "x"
}

/// A parameter value as written in recipes, documents and on the command line.
public enum ParameterValue: Sendable, Equatable, CustomStringConvertible {
    case number(Double)
    case vector([Double])
    case text(String)
    case flag(Bool)

    public var description: String {
        switch self {
        case .number(let v): _format(v)
        case .vector(let v): "[" + v.map(_format).joined(separator: " ") + "]"
        case .text(let t): t
        case .flag(let b): b ? "true" : "false"
        }
    }
}

func _format(_ v: Double) -> String {
    if v == v.rounded() && abs(v) < 1e15 { return String(Int(v)) }
    var s = String(format: "%.6g", v)
    if s.contains("e") { s = String(v) }
    return s
}

/// The declaration of one parameter: its keys, kind, default and ranges. Filters keep these as
/// static constants and read their typed values through them, so keys never appear as strings
/// inside filter code.
///
/// ```swift
/// static let angle = ParameterSpec.number("inputAngle", default: 0, range: -.pi ... .pi, unit: .radians,
///                                         help: "rotation about the grey axis")
/// ```
public struct ParameterSpec: Sendable, Equatable {
    /// Core Image key (`inputAngle`), or a plain key for filters without a Core Image twin.
    public let key: String
    /// Short key for the command line (`angle`): the key without `input`, first letter lowered.
    public let shortKey: String
    /// Kind of value.
    public let kind: ParameterKind
    /// Value used when the parameter is not given (nil for images).
    public let defaultValue: ParameterValue?
    /// Smallest allowed value (numbers, and each element of vectors when set).
    public let minimum: Double?
    /// Largest allowed value.
    public let maximum: Double?
    /// Range a slider in a UI should cover (within minimum...maximum).
    public let sliderRange: ClosedRange<Double>?
    /// Elements of a vector.
    public let count: Int?
    /// Allowed names of a choice.
    public let choices: [String]
    /// Unit, for help and labels. Parameters in ``ParameterUnit/pixels`` are lengths: a filter
    /// for an image `k` times the size uses `k` times them (``DeclaredFilter/scaled(by:)``).
    public let unit: ParameterUnit
    /// Whole numbers that must be odd (window sides with a centre pixel).
    public let odd: Bool
    /// Images that may be left out.
    public let optional: Bool
    /// One line of help.
    public let help: String

    static func shortKey(for key: String) -> String {
        guard key.hasPrefix("input"), key.count > 5 else { return key }
        // inputAngle -> angle, inputEV -> ev, inputRVector -> rVector.
        let rest = Array(key.dropFirst(5))
        let capitals = rest.prefix { $0.isUppercase }.count
        let lower = capitals == rest.count ? capitals : max(1, capitals - 1)
        return String(rest.prefix(lower)).lowercased() + String(rest.dropFirst(lower))
    }

    init(
        key: String, shortKey: String? = nil, kind: ParameterKind, defaultValue: ParameterValue?, minimum: Double? = nil,
        maximum: Double? = nil, sliderRange: ClosedRange<Double>? = nil, count: Int? = nil, choices: [String] = [],
        unit: ParameterUnit = .none, odd: Bool = false, optional: Bool = false, help: String
    ) {
        self.odd = odd
        self.optional = optional
        self.key = key
        self.shortKey = shortKey ?? ParameterSpec.shortKey(for: key)
        self.kind = kind
        self.defaultValue = defaultValue
        self.minimum = minimum
        self.maximum = maximum
        self.sliderRange = sliderRange ?? ((minimum != nil && maximum != nil) ? minimum!...maximum! : nil)
        self.count = count
        self.choices = choices
        self.unit = unit
        self.help = help
    }

    /// A real-valued parameter allowed in `range` (a slider may cover a narrower `slider` range).
    public static func number(
        _ key: String, short: String? = nil, default value: Double, range: ClosedRange<Double>,
        slider: ClosedRange<Double>? = nil, unit: ParameterUnit = .none, help: String
    ) -> ParameterSpec {
        ParameterSpec(
            key: key, shortKey: short, kind: .number, defaultValue: .number(value), minimum: range.lowerBound,
            maximum: range.upperBound, sliderRange: slider, unit: unit, help: help)
    }

    /// A whole-number parameter allowed in `range` (odd ones only when `odd`).
    public static func integer(
        _ key: String, short: String? = nil, default value: Int, range: ClosedRange<Int>,
        unit: ParameterUnit = .none, odd: Bool = false, help: String
    ) -> ParameterSpec {
        ParameterSpec(
            key: key, shortKey: short, kind: .integer, defaultValue: .number(Double(value)),
            minimum: Double(range.lowerBound), maximum: Double(range.upperBound), unit: unit, odd: odd, help: help)
    }

    /// A vector of `count` numbers (nil `count`: any length), each element in `range` when given.
    public static func vector(
        _ key: String, short: String? = nil, default value: [Double], count: Int?,
        range: ClosedRange<Double>? = nil, help: String
    ) -> ParameterSpec {
        ParameterSpec(
            key: key, shortKey: short, kind: .vector, defaultValue: .vector(value), minimum: range?.lowerBound,
            maximum: range?.upperBound, count: count, help: help)
    }

    /// One of several named choices.
    public static func choice(
        _ key: String, short: String? = nil, default value: String, _ choices: [String],
        help: String
    ) -> ParameterSpec {
        ParameterSpec(key: key, shortKey: short, kind: .choice, defaultValue: .text(value), choices: choices, help: help)
    }

    /// A true/false switch.
    public static func flag(_ key: String, short: String? = nil, default value: Bool, help: String) -> ParameterSpec {
        ParameterSpec(key: key, shortKey: short, kind: .flag, defaultValue: .flag(value), help: help)
    }

    /// Another image (one that may be left out when `optional`).
    public static func image(_ key: String, short: String? = nil, optional: Bool = false, help: String) -> ParameterSpec {
        ParameterSpec(key: key, shortKey: short, kind: .image, defaultValue: nil, optional: optional, help: help)
    }

    /// Whether `name` names this parameter: the key, the short key, or the key without `input`,
    /// case-insensitively.
    public func matches(_ name: String) -> Bool {
        let n = name.lowercased()
        return n == key.lowercased() || n == shortKey.lowercased() || n == ParameterSpec.shortKey(for: key).lowercased()
    }

    /// Checks a value's kind and range; returns it normalised (integers rounded).
    public func validate(_ value: ParameterValue, filter: String) throws -> ParameterValue {
        func fail(_ why: String) -> SfumatoError {
            .invalidArgument("\(filter): \(shortKey) \(why)")
        }
        func check(_ v: Double) throws {
            guard v.isFinite else { throw fail("must be a finite number, not \(v)") }
            if let minimum, v < minimum { throw fail("must be \(rangeText), not \(_format(v))") }
            if let maximum, v > maximum { throw fail("must be \(rangeText), not \(_format(v))") }
        }
        switch (kind, value) {
        case (.number, .number(let v)):
            try check(v)
            return value
        case (.integer, .number(let v)):
            guard v == v.rounded() else { throw fail("must be a whole number, not \(_format(v))") }
            try check(v)
            if odd && Int(v) % 2 == 0 { throw fail("must be odd, not \(_format(v))") }
            return value
        case (.vector, .vector(let v)):
            if let count, v.count != count { throw fail("needs \(count) numbers, not \(v.count)") }
            for x in v { try check(x) }
            return value
        case (.vector, .number(let v)) where count == 1:
            try check(v)
            return .vector([v])
        case (.choice, .text(let t)):
            guard let match = choices.first(where: { $0.lowercased() == t.lowercased() }) else {
                throw fail("must be one of \(choices.joined(separator: ", ")), not \(t)")
            }
            return .text(match)
        case (.flag, .flag):
            return value
        case (.flag, .number(let v)) where v == 0 || v == 1:
            return .flag(v == 1)
        case (.flag, .text(let t)) where ["true", "false", "yes", "no", "on", "off"].contains(t.lowercased()):
            return .flag(["true", "yes", "on"].contains(t.lowercased()))
        case (.image, _):
            throw fail("takes an image")
        default:
            throw fail("must be \(kindText), not \(value)")
        }
    }

    var kindText: String {
        switch kind {
        case .number: "a number"
        case .integer: "a whole number"
        case .vector: count.map { "\($0) numbers in brackets, e.g. [" + Array(repeating: "0", count: $0).joined(separator: " ") + "]" } ?? "numbers in brackets"
        case .choice: "one of \(choices.joined(separator: ", "))"
        case .flag: "true or false"
        case .image: "an image"
        }
    }

    /// The allowed range in words, e.g. `-3.14159...3.14159`.
    public var rangeText: String {
        switch (minimum, maximum) {
        case let (lo?, hi?): "\(_format(lo))...\(_format(hi))"
        case let (lo?, nil): "at least \(_format(lo))"
        case let (nil, hi?): "at most \(_format(hi))"
        default: "any value"
        }
    }
}

/// JSON form: numbers, arrays of numbers, strings and booleans, as recipes write them.
extension ParameterValue: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .flag(b); return }
        if let d = try? c.decode(Double.self) { self = .number(d); return }
        if let s = try? c.decode(String.self) { self = .text(s); return }
        self = .vector(try c.decode([Double].self))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let d): try c.encode(d)
        case .vector(let v): try c.encode(v)
        case .text(let t): try c.encode(t)
        case .flag(let b): try c.encode(b)
        }
    }
}
