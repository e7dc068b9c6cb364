import SfumatoCore

/// Every filter Sfumato has, found by Core Image name or short name.
///
/// ```swift
/// let type = try FilterRegistry.filterType(named: "CIHueAdjust")      // or "hue-adjust"
/// let filter = try type.init(values: ["angle": .number(1.2)])
/// let out = filter.apply(to: image)
/// ```
public enum FilterRegistry {
    /// All filter types, in display order: the one list a new filter is added to.
    public static let all: [any DeclaredFilter.Type] = [
        // Colour (Core Image)
        HueAdjust.self, ColorControls.self, ExposureAdjust.self, GammaAdjust.self, ToneCurve.self, ColorMatrix.self, ColorInvert.self,
        SepiaTone.self, ColorMonochrome.self, ColorPosterize.self, ColorClamp.self, ColorPolynomial.self, MaximumComponent.self,
        MinimumComponent.self, Vibrance.self, Vignette.self, VignetteEffect.self, ColorCube.self, ColorCubeWithColorSpace.self,
        TemperatureAndTint.self, WhitePointAdjust.self, HighlightShadowAdjust.self,
        // Compositing
        SourceOverCompositing.self, SourceAtopCompositing.self, SourceInCompositing.self, SourceOutCompositing.self, MultiplyCompositing.self,
        BlendWithMask.self,
        BlendModeFilter<MultiplyBlendMode>.self, BlendModeFilter<ScreenBlendMode>.self, BlendModeFilter<OverlayBlendMode>.self,
        BlendModeFilter<SoftLightBlendMode>.self,
        BlendModeFilter<HardLightBlendMode>.self, BlendModeFilter<DarkenBlendMode>.self, BlendModeFilter<LightenBlendMode>.self,
        BlendModeFilter<DifferenceBlendMode>.self,
        BlendModeFilter<ExclusionBlendMode>.self, BlendModeFilter<ColorDodgeBlendMode>.self, BlendModeFilter<ColorBurnBlendMode>.self,
        BlendModeFilter<LinearDodgeBlendMode>.self,
        BlendModeFilter<LinearBurnBlendMode>.self, BlendModeFilter<SubtractBlendMode>.self, BlendModeFilter<DivideBlendMode>.self,
        BlendModeFilter<PinLightBlendMode>.self,
        BlendModeFilter<VividLightBlendMode>.self, BlendModeFilter<HueBlendMode>.self, BlendModeFilter<SaturationBlendMode>.self,
        BlendModeFilter<ColorBlendMode>.self,
        BlendModeFilter<LuminosityBlendMode>.self,
        // Generators
        ConstantColorGenerator.self, LinearGradient.self, RadialGradient.self, CheckerboardGenerator.self, RandomGenerator.self,
        // Geometry
        AffineTransformFilter.self, Crop.self, LanczosScaleTransform.self, StraightenFilter.self, PerspectiveTransform.self,
        // Blur and noise
        GaussianBlur.self, MedianFilter.self, BoxBlur.self, DiscBlur.self, MotionBlur.self, ZoomBlur.self, UnsharpMask.self,
        SharpenLuminance.self, NoiseReduction.self, Bloom.self, Gloom.self,
        // Reductions
        AreaAverage.self, AreaMaximum.self, AreaMinimum.self, AreaMinMax.self, AreaHistogram.self,
        // Stylize
        Pixellate.self, Edges.self,
        // The Metal Performance Shaders gallery set
        Median.self, Laplacian.self, Sobel.self, ThresholdBinary.self, Convolution.self, Dilate.self, Erode.self,
        AreaMax.self, AreaMin.self, Closing.self, Opening.self, HistogramEqualization.self, HistogramSpecification.self
    ]

    /// The filter type `name` names: a Core Image name or a short name, any case.
    public static func filterType(named name: String) throws -> any Filter.Type {
        let n = name.lowercased()
        for type in all {
            let d = type.descriptor
            let ci = d.coreImageName?.lowercased()
            // Core Image names without the CI prefix ("HueAdjust") are accepted too.
            if ci == n || d.shortName == n || ci == "ci" + n { return type }
        }
        var best = ""
        var bestDistance = Int.max
        for type in all {
            let short = type.descriptor.shortName
            let d = _distance(short, n)
            if d < bestDistance { bestDistance = d; best = short }
        }
        throw SfumatoError.unknownName("no filter named \(name); did you mean \(best)? (sfumato filters lists them all)")
    }

    /// Builds a filter from user-given values, applying the short name's defaults when the filter
    /// was named by its short name.
    ///
    /// ```swift
    /// let blur = try FilterRegistry.make("gaussian-blur", values: ["radius": .number(8)])  // edges clamp
    /// ```
    public static func make(
        _ name: String, values: [String: ParameterValue] = [:],
        images: [String: (Image, String)] = [:]
    ) throws -> any Filter {
        let type = try filterType(named: name)
        let d = type.descriptor
        var v = values
        if name.lowercased() == d.shortName {
            for (key, value) in d.shortNameDefaults where !v.keys.contains(where: { d.parameter(named: $0)?.key == key }) {
                v[key] = value
            }
        }
        return try type.init(arguments: try d.arguments(values: v, images: images))
    }

    /// Descriptors of every filter.
    public static var descriptors: [FilterDescriptor] {
        var out: [FilterDescriptor] = []
        for type in all { out.append(type.descriptor) }
        return out
    }
}

/// Edit distance, for suggestions.
func _distance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in 1...max(b.count, 1) where !b.isEmpty {
            let old = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = old
        }
    }
    return row[b.count]
}
