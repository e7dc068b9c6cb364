import SfumatoCore

/// Filters whose parameters are lengths in pixels, so a preview rendered at a smaller scale can
/// use proportionally smaller ones and look like the full-size result scaled down.
public protocol ScalableFilter: Filter {
    /// The filter for an image `factor` times the size (0 < factor).
    func scaled(by factor: Double) -> Self
}

/// `filter` adapted to an image `factor` times the size (unchanged when it has no lengths).
public func scaledFilter(_ filter: any Filter, by factor: Double) -> any Filter {
    if factor == 1 { return filter }
    if let s = filter as? any ScalableFilter { return s.scaled(by: factor) }
    return filter
}

/// An odd window size scaled, at least 1.
func _scaledOdd(_ n: Int, _ factor: Double) -> Int {
    let v = Int((Double(n) * factor).rounded())
    return max(1, v % 2 == 0 ? v + 1 : v)
}

extension GaussianBlur: ScalableFilter {
    public func scaled(by factor: Double) -> GaussianBlur { GaussianBlur(radius: radius * factor, edges: edges) }
}

extension Median: ScalableFilter {
    public func scaled(by factor: Double) -> Median { Median(diameter: max(3, _scaledOdd(diameter, factor))) }
}
