import Foundation

/// A message or request that breaks the protocol: a plain sentence naming the field and the rule.
public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Strict reading of one JSON object as `JSONSerialization` parsed it: every field read has the
/// type and range asked for, and ``checkNoOthers()`` refuses fields nobody read. Numbers never
/// trap: they are checked as `Double` (finite, in range) before any conversion to `Int`.
struct _JSONFields {
    let object: [String: Any]
    /// Where this object sits in the message, for errors (`pen.samples[3]`).
    let path: String
    private var read: Set<String> = []

    init(_ value: Any?, path: String) throws(ProtocolError) {
        guard let o = value as? [String: Any] else { throw ProtocolError("\(path) must be a JSON object") }
        object = o
        self.path = path
    }

    private mutating func value(_ key: String) -> Any? {
        read.insert(key)
        guard let v = object[key], !(v is NSNull) else { return nil }
        return v
    }

    /// Refuses fields that were never read.
    func checkNoOthers() throws(ProtocolError) {
        if let extra = object.keys.filter({ !read.contains($0) }).sorted().first {
            throw ProtocolError("\(path) has an unknown field \"\(extra.prefix(40))\"")
        }
    }

    /// A number in `range` (finite), or nil when absent or null.
    mutating func number(_ key: String, in range: ClosedRange<Double>) throws(ProtocolError) -> Double? {
        guard let v = value(key) else { return nil }
        guard let d = _jsonNumber(v) else { throw ProtocolError("\(path).\(key) must be a number") }
        guard d.isFinite, range.contains(d) else {
            throw ProtocolError("\(path).\(key) must be a number in \(_show(range.lowerBound))...\(_show(range.upperBound)), not \(_show(d))")
        }
        return d
    }

    mutating func requiredNumber(_ key: String, in range: ClosedRange<Double>) throws(ProtocolError) -> Double {
        guard let d = try number(key, in: range) else { throw ProtocolError("\(path) needs \(key)") }
        return d
    }

    /// A whole number in `range`, or nil when absent or null.
    mutating func integer(_ key: String, in range: ClosedRange<Int>) throws(ProtocolError) -> Int? {
        guard let v = value(key) else { return nil }
        guard let d = _jsonNumber(v) else { throw ProtocolError("\(path).\(key) must be a whole number") }
        // Range first, in Double: Int(d) of 1e300 would trap.
        guard d.isFinite, d >= Double(range.lowerBound), d <= Double(range.upperBound), let i = Int(exactly: d) else {
            throw ProtocolError("\(path).\(key) must be a whole number in \(range.lowerBound)...\(range.upperBound), not \(_show(d))")
        }
        return i
    }

    mutating func requiredInteger(_ key: String, in range: ClosedRange<Int>) throws(ProtocolError) -> Int {
        guard let i = try integer(key, in: range) else { throw ProtocolError("\(path) needs \(key)") }
        return i
    }

    mutating func bool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard _isJSONBool(v), let b = v as? Bool else { throw ProtocolError("\(path).\(key) must be true or false") }
        return b
    }

    mutating func requiredBool(_ key: String) throws(ProtocolError) -> Bool {
        guard let b = try bool(key) else { throw ProtocolError("\(path) needs \(key) (true or false)") }
        return b
    }

    /// A string of at most `maxLength` characters, or nil when absent or null.
    mutating func string(_ key: String, maxLength: Int = 256) throws(ProtocolError) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v as? String else { throw ProtocolError("\(path).\(key) must be a string") }
        guard s.utf8.count <= maxLength else { throw ProtocolError("\(path).\(key) is longer than \(maxLength) bytes") }
        return s
    }

    /// One of an enumeration's raw values, or nil when absent or null.
    mutating func choice<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type) throws(ProtocolError) -> E?
    where E.RawValue == String {
        guard let s = try string(key, maxLength: 64) else { return nil }
        guard let e = E(rawValue: s) else {
            throw ProtocolError("\(path).\(key) must be one of \(E.allCases.map { $0.rawValue }.joined(separator: ", ")), not \"\(s.prefix(40))\"")
        }
        return e
    }

    /// An array of at most `maxCount` elements, or nil when absent or null.
    mutating func array(_ key: String, maxCount: Int) throws(ProtocolError) -> [Any]? {
        guard let v = value(key) else { return nil }
        guard let a = v as? [Any] else { throw ProtocolError("\(path).\(key) must be an array") }
        guard a.count <= maxCount else { throw ProtocolError("\(path).\(key) has \(a.count) elements; at most \(maxCount)") }
        return a
    }

    /// A nested object, or nil when absent or null.
    mutating func object(_ key: String) throws(ProtocolError) -> _JSONFields? {
        guard let v = value(key) else { return nil }
        return try _JSONFields(v, path: "\(path).\(key)")
    }
}

private let _boolType = ObjectIdentifier(type(of: NSNumber(value: true) as Any))

/// Whether a parsed JSON value is `true` or `false` (Foundation's NSNumber 0 and 1 also cast to Bool).
func _isJSONBool(_ v: Any) -> Bool {
    ObjectIdentifier(type(of: v)) == _boolType || type(of: v) == Bool.self
}

/// A parsed JSON number as a Double (huge integers approximately), or nil for any other value.
func _jsonNumber(_ v: Any) -> Double? {
    if _isJSONBool(v) { return nil }
    if let d = v as? Double { return d }
    if let i = v as? Int { return Double(i) }
    if let n = v as? NSNumber { return n.doubleValue }
    return nil
}

/// A number as errors show it.
func _show(_ d: Double) -> String {
    if d.isNaN { return "NaN" }
    if d.isInfinite { return d > 0 ? "infinity" : "-infinity" }
    if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
    return String(describing: d)
}

/// Parses a message's bytes as one JSON object, with a plain error for anything else.
func _parseJSONObject(_ bytes: [UInt8], path: String) throws(ProtocolError) -> _JSONFields {
    let parsed: Any
    do {
        parsed = try JSONSerialization.jsonObject(with: Data(bytes))
    } catch {
        throw ProtocolError("\(path) is not valid JSON (\(_jsonReason(error)))")
    }
    return try _JSONFields(parsed, path: path)
}

/// Foundation's reason for a JSON error, without its domain and code.
func _jsonReason(_ error: Error) -> String {
    let ns = error as NSError
    if let d = ns.userInfo["NSDebugDescription"] as? String { return String(d.prefix(160)) }
    return "unreadable"
}
