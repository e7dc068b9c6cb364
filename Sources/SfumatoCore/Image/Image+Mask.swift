extension Image {
    /// This image where `mask` is white and `background` where it is black (CIBlendWithMask):
    /// out = S m + D (1 − m) on premultiplied working values, all four channels, where m is the
    /// mask's luminance 0.2125 R + 0.7154 G + 0.0721 B (Rec. 709, Core Image's weights) of its
    /// premultiplied working values, clamped to 0...1, so a transparent mask shows the background.
    /// The extent is the union of this image's and the background's; outside an input's extent
    /// that input is transparent.
    ///
    /// One pass over the three inputs; on 8-bit tiles when all three are 8-bit (the `.none`
    /// working space, a Gray8 mask read as one byte a pixel).
    public func blended(over background: Image, mask: Image) -> Image {
        Image(node: _Node(.maskBlend, inputs: [node, background.node, mask.node], extent: extent.union(background.extent)))
    }
}
