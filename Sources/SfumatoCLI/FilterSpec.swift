import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters

/// One filter step as the user wrote it: a name and raw parameter values.
public struct FilterStep: Equatable, Sendable {
    public var name: String
    public var values: [String: ParameterValue]

    public init(name: String, values: [String: ParameterValue]) {
        self.name = name
        self.values = values
    }
}

public enum FilterSpecParser {
    /// Parses `NAME` or `NAME:key=value,key=value`; vectors in brackets (`[0.25 0.4]`, commas
    /// allowed inside).
    public static func parse(_ text: String) throws -> FilterStep {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw CLIError.usage("empty filter; write NAME or NAME:key=value,...") }
        guard let colon = trimmed.firstIndex(of: ":") else { return FilterStep(name: trimmed, values: [:]) }
        let name = String(trimmed[..<colon])
        var values: [String: ParameterValue] = [:]
        for part in splitTopLevel(String(trimmed[trimmed.index(after: colon)...])) {
            let p = part.trimmingCharacters(in: .whitespaces)
            if p.isEmpty { continue }
            guard let eq = p.firstIndex(of: "=") else {
                throw CLIError.usage("\(name): expected key=value, got \(p)")
            }
            let key = String(p[..<eq]).trimmingCharacters(in: .whitespaces)
            let raw = String(p[p.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { throw CLIError.usage("\(name): a parameter has no name in \(p)") }
            if values[key] != nil { throw CLIError.usage("\(name): \(key) given twice") }
            values[key] = try value(raw, context: "\(name): \(key)")
        }
        return try resolvingFiles(FilterStep(name: name, values: values))
    }

    /// Replaces a `.cube` file's path given for a cube's data by the table (and its dimension).
    static func resolvingFiles(_ step: FilterStep) throws -> FilterStep {
        guard let type = try? FilterRegistry.filterType(named: step.name) else { return step }
        var out = step
        for (key, value) in step.values {
            guard case .text(let path) = value, let spec = type.descriptor.parameter(named: key), spec.key == "inputCubeData" else { continue }
            guard path.lowercased().hasSuffix(".cube") else {
                throw CLIError.usage("\(step.name): \(key) takes numbers in brackets or a .cube file's path, got \(path)")
            }
            let cube: CubeFile
            do { cube = try CubeFile(path: path) } catch let e as SfumatoError { throw CLIError.usage("\(path): \(e.description)") }
            out.values[key] = .vector(cube.rgba)
            out.values["inputCubeDimension"] = .number(Double(cube.dimension))
        }
        return out
    }

    /// Splits on commas that are not inside brackets.
    static func splitTopLevel(_ s: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for ch in s {
            if ch == "[" { depth += 1 }
            if ch == "]" { depth -= 1 }
            if ch == "," && depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        parts.append(current)
        return parts
    }

    /// A raw value: a number, a bracketed vector, true/false, or text.
    static func value(_ raw: String, context: String) throws -> ParameterValue {
        if raw.hasPrefix("[") {
            guard raw.hasSuffix("]") else { throw CLIError.usage("\(context): unclosed bracket in \(raw)") }
            let inner = raw.dropFirst().dropLast()
            let items = inner.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            var numbers: [Double] = []
            for item in items {
                guard let d = Double(item) else { throw CLIError.usage("\(context): \(item) is not a number") }
                numbers.append(d)
            }
            return .vector(numbers)
        }
        if let d = Double(raw) { return .number(d) }
        if raw == "true" { return .flag(true) }
        if raw == "false" { return .flag(false) }
        if raw.isEmpty { throw CLIError.usage("\(context): missing value") }
        return .text(raw)
    }

    /// Parses a recipe: a JSON array of objects, each with "filter" and its parameters.
    /// Everything wrong with a recipe's content is a usage error (exit 2), as it is for `-f`.
    public static func parseRecipe(_ data: Data, name: String) throws -> [FilterStep] {
        let json: JSONValue
        do {
            json = JSONValue(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
        } catch {
            let reason = (((error as NSError).userInfo["NSDebugDescription"] as? String) ?? "unreadable")
                .replacingOccurrences(of: " is not representable in Swift", with: " is out of range")
            throw CLIError.usage("\(name): not valid JSON (\(reason))")
        }
        guard case .array(let steps) = json else {
            throw CLIError.usage("\(name): a recipe is a JSON array of steps like {\"filter\": \"CIHueAdjust\", \"inputAngle\": 1.2}")
        }
        return try steps.enumerated().map { index, step in
            guard case .object(let fields) = step else {
                throw CLIError.usage("\(name): step \(index + 1) is not an object")
            }
            guard case .string(let filter)? = fields["filter"] else {
                throw CLIError.usage("\(name): step \(index + 1) has no \"filter\" name")
            }
            var values: [String: ParameterValue] = [:]
            for (key, v) in fields where key != "filter" {
                values[key] = try v.parameterValue(context: "\(name): step \(index + 1) (\(filter)) \(key)")
            }
            return try resolvingFiles(FilterStep(name: filter, values: values))
        }
    }
}

/// Any JSON value, as JSONSerialization parsed it (true and 1 told apart by their types: on
/// Linux NSNumber 1 also casts to Bool).
enum JSONValue: Equatable {
    case number(Double), string(String), bool(Bool), array([JSONValue]), object([String: JSONValue]), null

    init(_ any: Any) {
        if ObjectIdentifier(type(of: any)) == ObjectIdentifier(type(of: NSNumber(value: true) as Any)), let b = any as? Bool {
            self = .bool(b)
        } else if let n = any as? NSNumber {
            self = .number(n.doubleValue)
        } else if let s = any as? String {
            self = .string(s)
        } else if let a = any as? [Any] {
            self = .array(a.map(JSONValue.init))
        } else if let o = any as? [String: Any] {
            self = .object(o.mapValues(JSONValue.init))
        } else {
            self = .null
        }
    }

    func parameterValue(context: String) throws -> ParameterValue {
        switch self {
        case .number(let d): return .number(d)
        case .string(let s): return .text(s)
        case .bool(let b): return .flag(b)
        case .array(let items):
            return .vector(
                try items.map {
                    guard case .number(let d) = $0 else { throw CLIError.usage("\(context): vectors hold numbers only") }
                    return d
                })
        case .object, .null:
            throw CLIError.usage("\(context): expected a number, vector, string or boolean")
        }
    }
}

/// Turns steps into a recipe, loading image-valued parameters from files.
enum RecipeBuilder {
    /// The steps applied to `image`; `scale` (0...1] shrinks their lengths in pixels, for an image
    /// decoded at that fraction of its size.
    static func build(_ steps: [FilterStep], on image: Image, pixelLimit: Int, scale: Double = 1) throws -> (Image, [any Filter]) {
        var current = image
        var filters: [any Filter] = []
        for step in steps {
            let type = try FilterRegistry.filterType(named: step.name)
            var values = step.values
            var images: [String: (Image, String)] = [:]
            for (key, value) in step.values {
                if let spec = type.descriptor.parameter(named: key), spec.kind == .image {
                    guard case .text(let path) = value else {
                        throw SfumatoError.invalidArgument("\(type.descriptor.name): \(spec.shortKey) takes an image file path")
                    }
                    let (loaded, _) = try ImageIO.open(path: path, options: DecodeOptions(pixelLimit: pixelLimit))
                    images[key] = (loaded, path)
                    values[key] = nil
                }
            }
            let made = try FilterRegistry.make(step.name, values: values, images: images)
            let filter = scale == 1 ? made : scaledFilter(made, by: scale)
            filters.append(filter)
            current = filter.apply(to: current)
        }
        return (current, filters)
    }
}
