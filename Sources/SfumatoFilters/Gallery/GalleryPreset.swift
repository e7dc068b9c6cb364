import SfumatoCore

/// One of the twelve filters of the MetalImageFilters app, with exactly its parameters. The
/// app ran them on 8-bit sRGB-encoded values, so render presets in the `.none` working space.
///
/// ```swift
/// let sobel = GalleryPreset.all[4]            // "Sobel"
/// let recipe = sobel.apply(to: photo, reference: nil)
/// ```
public struct GalleryPreset: Sendable {
    /// The label the app showed, e.g. `Sobel`.
    public let name: String
    /// Kebab-case file name without extension, e.g. `sobel`.
    public let slug: String
    /// The filters, in order; `reference` is used by histogram specification only.
    let make: @Sendable (Image?) -> [any Filter]

    /// The recipe for `image`; `reference` defaults to `image` itself (histogram specification
    /// then changes nothing).
    public func apply(to image: Image, reference: Image?) -> Image {
        make(reference ?? image).reduce(image) { $1.apply(to: $0) }
    }

    /// Whether the preset needs a reference image.
    public var needsReference: Bool { slug == "histogram-specification" }

    /// The twelve presets in the app's order (swiping right goes forward, wrapping around).
    public static let all: [GalleryPreset] = [
        GalleryPreset(name: "Pass Through", slug: "pass-through") { _ in [] },
        GalleryPreset(name: "Gaussian Blur", slug: "gaussian-blur") { _ in [GaussianBlur(radius: 5, edges: .zero)] },
        GalleryPreset(name: "Median", slug: "median") { _ in [Median(diameter: 5)] },
        GalleryPreset(name: "Laplacian", slug: "laplacian") { _ in [Laplacian(bias: 0)] },
        GalleryPreset(name: "Sobel", slug: "sobel") { _ in [Sobel()] },
        GalleryPreset(name: "Threshold Binary", slug: "threshold-binary") { _ in [ThresholdBinary(threshold: 0.5, maximum: 1)] },
        GalleryPreset(name: "Convolution Emboss", slug: "convolution-emboss") { _ in
            [try! Convolution(width: 3, height: 3, weights: [-2, 0, 0, 0, 1, 0, 0, 0, 2])]
        },
        GalleryPreset(name: "Convolution Sharpen", slug: "convolution-sharpen") { _ in
            [try! Convolution(width: 3, height: 3, weights: [-0.5, -1, -0.5, -1, 7, -1, -0.5, -1, -0.5])]
        },
        GalleryPreset(name: "Dilate Bokeh", slug: "dilate-bokeh") { _ in [Dilate.disc(diameter: 15, radius: 7)] },
        GalleryPreset(name: "Morphology Closing", slug: "morphology-closing") { _ in [Closing(width: 9, height: 9)] },
        GalleryPreset(name: "Histogram Equalization", slug: "histogram-equalization") { _ in [HistogramEqualization()] },
        GalleryPreset(name: "Histogram Specification", slug: "histogram-specification") { r in
            [HistogramSpecification(reference: r!)]
        }
    ]

    /// The preset a name or slug refers to (any case), or nil.
    public static func named(_ name: String) -> GalleryPreset? {
        let n = name.lowercased()
        return all.first { $0.slug == n || $0.name.lowercased() == n }
    }
}
