import Foundation
import SfumatoFilters

/// `sfumato filters`: every filter with its parameters, defaults and ranges.
enum FiltersCommand {
    static let help = """
        usage: sfumato filters [--json] [NAME]

        Lists every filter (or one) with its parameters, defaults and ranges.
        """

    static func run(_ args: [String], output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.flag("--json")
        spec.flag("--help", "-h")
        let a = try Arguments(args, spec: spec)
        if a.has("--help") { output.print(help); return }
        var descriptors = FilterRegistry.descriptors
        if let name = a.positionals.first {
            descriptors = [try FilterRegistry.filterType(named: name).descriptor]
        }
        if a.has("--json") {
            let json = descriptors.map(jsonObject)
            let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
            output.print(String(decoding: data, as: UTF8.self))
            return
        }
        for d in descriptors {
            let names = [d.coreImageName, d.shortName].compactMap { $0 }.joined(separator: ", ")
            output.print("\(names) (\(d.category.rawValue)): \(d.summary)")
            for p in d.parameters {
                var line = "    \(p.shortKey)"
                if p.key != p.shortKey { line += " (\(p.key))" }
                line += ": \(p.kind.rawValue)"
                if let v = p.defaultValue { line += ", default \(v)" }
                if p.kind == .number || p.kind == .integer || (p.kind == .vector && p.minimum != nil) { line += ", \(p.rangeText)" }
                if let s = p.sliderRange, p.kind == .number, s.lowerBound != p.minimum || s.upperBound != p.maximum {
                    line += " (slider \(_fmt(s.lowerBound))...\(_fmt(s.upperBound)))"
                }
                if !p.choices.isEmpty { line += ", one of \(p.choices.joined(separator: "|"))" }
                if p.unit != .none { line += ", \(p.unit.rawValue)" }
                line += " — \(p.help)"
                output.print(line)
            }
        }
    }

    static func jsonObject(_ d: FilterDescriptor) -> [String: Any] {
        var o: [String: Any] = [
            "name": d.name, "shortName": d.shortName, "displayName": d.displayName, "category": d.category.rawValue,
            "summary": d.summary
        ]
        if let ci = d.coreImageName { o["coreImageName"] = ci }
        o["parameters"] = d.parameters.map { p -> [String: Any] in
            var q: [String: Any] = ["key": p.key, "shortKey": p.shortKey, "kind": p.kind.rawValue, "help": p.help]
            if let v = p.defaultValue { q["default"] = jsonValue(v) }
            if let m = p.minimum { q["minimum"] = m }
            if let m = p.maximum { q["maximum"] = m }
            if let s = p.sliderRange { q["slider"] = [s.lowerBound, s.upperBound] }
            if let c = p.count { q["count"] = c }
            if !p.choices.isEmpty { q["choices"] = p.choices }
            if p.unit != .none { q["unit"] = p.unit.rawValue }
            return q
        }
        if !d.shortNameDefaults.isEmpty {
            o["shortNameDefaults"] = d.shortNameDefaults.mapValues(jsonValue)
        }
        return o
    }

    static func jsonValue(_ v: ParameterValue) -> Any {
        switch v {
        case .number(let d): d
        case .vector(let a): a
        case .text(let t): t
        case .flag(let b): b
        }
    }
}

func _fmt(_ v: Double) -> String {
    v == v.rounded() ? String(Int(v)) : String(format: "%.5g", v)
}
