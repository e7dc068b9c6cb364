/// A small command-line parser: options with values (`-o FILE`, `--quality=90`), flags
/// (`--explain`) and positional arguments, checked against what each command declares.
struct Arguments {
    /// Option names that take a value, with their aliases (`-o` for `--output`).
    struct Spec {
        var valued: [String: String] = [:]  // any spelling -> canonical
        var flags: [String: String] = [:]
        var repeatable: Set<String> = []

        mutating func value(_ names: String..., repeatable r: Bool = false) {
            for n in names { valued[n] = names[0] }
            if r { repeatable.insert(names[0]) }
        }

        mutating func flag(_ names: String...) {
            for n in names { flags[n] = names[0] }
        }
    }

    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `args` (without the program and command names). `-` alone is a positional
    /// (standard input/output); `--` ends options.
    init(_ args: [String], spec: Spec) throws {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals || a == "-" || !a.hasPrefix("-") {
                positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            var name = a
            var inline: String?
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                name = String(a[..<eq])
                inline = String(a[a.index(after: eq)...])
            }
            if let canonical = spec.flags[name] {
                if inline != nil { throw CLIError.usage("\(name) takes no value") }
                flags.insert(canonical)
            } else if let canonical = spec.valued[name] {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard i < args.count else { throw CLIError.usage("\(name) needs a value") }
                    value = args[i]
                    i += 1
                }
                if values[canonical] != nil && !spec.repeatable.contains(canonical) {
                    throw CLIError.usage("\(name) given twice")
                }
                values[canonical, default: []].append(value)
            } else {
                throw CLIError.usage("unknown option \(name)")
            }
        }
    }

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// An integer option within a range.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let v = value(name) else { return nil }
        guard let n = Int(v), range.contains(n) else {
            throw CLIError.usage("\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not \(v)")
        }
        return n
    }
}
