/// How one pixel of a ``Bitmap`` is stored: four channels, R G B A, in that order, three
/// (R G B, opaque), or one grey channel.
public enum PixelFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// 8 bits per channel, 4 bytes a pixel.
    case rgba8
    /// 16 bits per channel (native byte order), 8 bytes a pixel.
    case rgba16
    /// 32-bit float per channel, 16 bytes a pixel; values may lie outside 0...1.
    case rgbaFloat32
    /// One 8-bit grey channel, 1 byte a pixel, always opaque: a pixel of value g reads as
    /// RGBA (g, g, g, 1). Colour written to it keeps its luminance (Rec. 709 weights in the working
    /// space; premultiplied colour, so partial alpha lands over black). In the `.none` working
    /// space, convolutions with integer weights, Sobel, the Gaussian (σ below 12) and morphology
    /// run on it a byte a pixel.
    case gray8
    /// Packed 8-bit R G B, 3 bytes a pixel, always opaque: a pixel reads as RGBA (r, g, b, 1).
    /// A quarter less memory than ``rgba8`` for opaque photos. Colour written to it with partial
    /// alpha is stored as its premultiplied values (colour over black in the working space).
    /// Renders expand rows to RGBA8 in cache, so every filter reads and writes it.
    case rgb8

    /// Bytes one pixel takes.
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8: 4
        case .rgba16: 8
        case .rgbaFloat32: 16
        case .gray8: 1
        case .rgb8: 3
        }
    }

    /// Stored channels a pixel: 4, 3 for ``rgb8``, or 1 for ``gray8``.
    public var channels: Int { self == .gray8 ? 1 : self == .rgb8 ? 3 : 4 }

    /// Whether every pixel of this format is opaque by construction (no stored alpha).
    public var isAlwaysOpaque: Bool { self == .gray8 || self == .rgb8 }

    /// Bits per channel (8, 16 or 32).
    public var bitsPerChannel: Int { 8 * bytesPerPixel / channels }

    public var description: String {
        switch self {
        case .rgba8: "RGBA8"
        case .rgba16: "RGBA16"
        case .rgbaFloat32: "RGBA Float32"
        case .gray8: "Gray8"
        case .rgb8: "RGB8"
        }
    }
}

/// The transfer function the stored values are encoded with.
public enum ColorEncoding: String, Sendable, CustomStringConvertible {
    /// The sRGB curve (IEC 61966-2-1): what 8- and 16-bit files hold.
    case srgb
    /// Linear light with sRGB primaries (extended range for floats).
    case linear

    public var description: String { self == .srgb ? "sRGB" : "linear sRGB" }
}

/// Whether colour channels are stored multiplied by alpha.
public enum AlphaMode: String, Sendable, CustomStringConvertible {
    /// Colour already multiplied by alpha (Core Image's and Sfumato's working form).
    case premultiplied
    /// Colour independent of alpha (what PNG and WebP files hold).
    case straight

    public var description: String { rawValue }
}

/// The space filters compute in.
///
/// `.linear` (the default, as in Core Image) decodes sRGB input to linear light, filters, and
/// encodes on output. `.none` filters the sRGB-encoded values directly, as the PencilController
/// and MetalImageFilters apps did (Core Image with colour management off).
public enum WorkingSpace: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Linear-light extended sRGB.
    case linear
    /// No colour management: the encoded values themselves.
    case none

    /// The encoding working values carry in this space.
    public var encoding: ColorEncoding { self == .linear ? .linear : .srgb }

    public var description: String { rawValue }
}
