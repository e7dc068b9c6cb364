import Foundation

/// Every stream source in a recipe.
func _streamSources(_ node: _Node) -> [any RowSource] {
    var seen = Set<ObjectIdentifier>()
    var out: [any RowSource] = []
    func visit(_ n: _Node) {
        if case .stream(let s) = n.op, !seen.contains(ObjectIdentifier(s)) {
            seen.insert(ObjectIdentifier(s))
            out.append(s)
        }
        n.inputs.forEach(visit)
    }
    visit(node)
    return out
}

/// Reads a whole stream into a bitmap.
func _decodeWhole(_ s: any RowSource) throws -> Bitmap {
    let b = try Bitmap(width: s.width, height: s.height, format: s.format, encoding: .srgb, alpha: .straight)
    let reader = try s.makeReader()
    var y = 0
    while y < s.height {
        let n = try reader.read(into: b.row(y), rowBytes: b.rowBytes, count: min(64, s.height - y))
        if n <= 0 { throw SfumatoError.truncated("\(s.summary): image data ended at row \(y) of \(s.height)") }
        y += n
    }
    return b
}
