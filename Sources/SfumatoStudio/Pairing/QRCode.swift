import CQREncode

/// A QR code (libqrencode), and its drawing as text: what `sfumato studio --lan` prints so an
/// iPad's camera opens the studio's URL.
public struct QRCode: Sendable {
    /// Modules per side, without the quiet zone.
    public let size: Int
    /// Row by row, true where a module is dark.
    public let modules: [Bool]

    /// Encodes `text` (8-bit mode, error correction M, the smallest version that fits).
    public init?(_ text: String) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        // Bit 0 of each byte is the module's colour (1: dark); the others say what it is part of.
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// Whether the module at (x, y) is dark; the quiet zone and beyond are light.
    public func isDark(_ x: Int, _ y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }

    /// Lines of text, two modules a character (upper half block, lower half block, full block,
    /// space), with a quiet zone of `quiet` modules. With `colors`, each line is drawn black on
    /// white (ANSI), so the code reads the right way round on a dark terminal too; without, a drawn
    /// block is a dark module.
    public func lines(quiet: Int = 4, colors: Bool) -> [String] {
        var out: [String] = []
        var y = -quiet
        while y < size + quiet {
            var line = colors ? "\u{1B}[30;47m" : ""
            for x in -quiet..<(size + quiet) {
                switch (isDark(x, y), isDark(x, y + 1)) {
                case (true, true): line += "\u{2588}"
                case (true, false): line += "\u{2580}"
                case (false, true): line += "\u{2584}"
                case (false, false): line += " "
                }
            }
            out.append(line + (colors ? "\u{1B}[0m" : ""))
            y += 2
        }
        return out
    }
}
