import SfumatoCore

/// The Metal Performance Shaders gallery filters, registered after the Core Image set.
let _galleryFilters: [any Filter.Type] = [
    Median.self, Laplacian.self, Sobel.self, ThresholdBinary.self, Convolution.self, Dilate.self, Erode.self,
    AreaMax.self, AreaMin.self, Closing.self, Opening.self, HistogramEqualization.self, HistogramSpecification.self
]
