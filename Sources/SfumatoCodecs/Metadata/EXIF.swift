/// Reads the orientation tag (0x0112) from an EXIF block (a TIFF structure), with every offset
/// bounds-checked. This is the only EXIF field Sfumato needs; anything malformed reads as 1.
enum _EXIF {
    /// `data` may start with the JPEG APP1 prefix `Exif\0\0` or directly with the TIFF header.
    static func orientation(_ data: [UInt8]) -> Int {
        var start = 0
        if data.count >= 6 && data[0..<6] == [0x45, 0x78, 0x69, 0x66, 0, 0] { start = 6 }
        guard data.count >= start + 8 else { return 1 }
        let little: Bool
        switch (data[start], data[start + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return 1
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= data.count else { return nil }
            let a = Int(data[at]), b = Int(data[at + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
            return lo | hi << 16
        }
        guard u16(start + 2) == 42, let ifd = u32(start + 4), let count = u16(start + ifd) else { return 1 }
        for i in 0..<min(count, 512) {
            let entry = start + ifd + 2 + 12 * i
            guard let tag = u16(entry) else { return 1 }
            if tag == 0x0112 {
                guard let type = u16(entry + 2), type == 3, let value = u16(entry + 8) else { return 1 }
                return (1...8).contains(value) ? value : 1
            }
        }
        return 1
    }
}
