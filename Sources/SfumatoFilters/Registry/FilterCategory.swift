/// A filter's domain. Each is a folder of `Sources/SfumatoFilters`, and a filter's file lives in
/// its category's folder (a test checks it).
public enum FilterCategory: String, Sendable, CaseIterable, Codable {
    /// Per-pixel colour and tone.
    case color = "Color"
    /// Blurs and medians.
    case blur = "Blur"
    /// Weighted neighbourhoods and edge detectors.
    case convolution = "Convolution"
    /// Maxima and minima over neighbourhoods.
    case morphology = "Morphology"
    /// Mappings computed from histograms.
    case histogram = "Histogram"
    /// Combining two images.
    case composite = "Composite"
    /// Moving pixels: transforms, crops, scaling.
    case geometry = "Geometry"
    /// Reductions: an area summed up in a few pixels (average, extremes, histogram).
    case reduction = "Reduction"
    /// Looks: cells, edges.
    case stylize = "Stylize"
    /// Images made from nothing but their coordinates (they ignore the image they are applied to).
    case generator = "Generator"
}
