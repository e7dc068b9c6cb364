extension Image {
    /// This image as an 8-bit intermediate holds it: every pixel stored as premultiplied RGBA8,
    /// sRGB-encoded, rounded to a level, then read on from there (Core Image's
    /// `insertingIntermediate()` with an 8-bit working format).
    ///
    /// Rendering the image to an 8-bit bitmap and filtering that bitmap gives the same pixels;
    /// with an intermediate, the render stays one tiled pass (and one GPU run: the device keeps
    /// the 8-bit image resident between its steps). After it, filters that have 8-bit forms
    /// (median, morphology, the 8-bit Gaussian and convolutions) run on 8-bit tiles, where
    /// after float point filters they would run on float tiles, keeping values outside 0...1
    /// that the intermediate clips. Photo filters in a gallery (a texture a pass) work this way.
    public func insertingIntermediate() -> Image {
        Image(node: _Node(.intermediate, inputs: [node], extent: extent))
    }
}
