import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoInk

extension Document {
    /// The recipe of the picture, in the `.none` working space: photo -> edit stack ->
    /// PencilController chain -> tone curve (in linear light, as Core Image's default) -> gallery
    /// preset -> ink layers (Shade, then Sketch).
    ///
    /// With `width`, the full-size recipe is resampled to that width (area averaging): a preview
    /// is exactly the export scaled down, and the renderer only computes the full-size pixels
    /// each output tile needs, strip by strip.
    public func recipe(width requested: Int? = nil, state given: DocumentState? = nil) throws -> Image {
        let full = try interactiveRecipe(width: nil, state: given)
        guard let w = requested, w != full.extent.width else { return full }
        guard w > 0 && w <= 20000 else { throw SfumatoError.invalidArgument("width must be 1...20000, not \(w)") }
        let h = max(1, Int((Double(full.extent.height) * Double(w) / Double(full.extent.width)).rounded()))
        return full.resized(width: w, height: h)
    }

    /// The same picture built at `width` for interactive work: the photo is resampled first,
    /// lengths in filter parameters (blur radii, window sizes) scale with it and strokes are drawn
    /// at the same scale. Much cheaper than ``recipe(width:state:)`` for a large photo; it differs
    /// from the export scaled down only where resampling and non-linear filters do not commute
    /// (fine high-contrast detail): about a level on average.
    public func interactiveRecipe(width requested: Int? = nil, state given: DocumentState? = nil) throws -> Image {
        let st = given ?? state
        let full = try photo()
        var image = Image(bitmap: full)
        var scale = 1.0
        if let w = requested, w != full.width {
            guard w > 0 && w <= 20000 else { throw SfumatoError.invalidArgument("width must be 1...20000, not \(w)") }
            scale = Double(w) / Double(full.width)
            image = image.resized(width: w, height: max(1, Int((Double(full.height) * scale).rounded())))
        }
        let extent = image.extent
        for step in st.edits {
            let filter = scaledFilter(try FilterRegistry.make(step.filter, values: step.values), by: scale)
            image = filter.apply(to: image.convertingEncoding(from: .srgb, to: step.workingSpace.encoding))
                .convertingEncoding(from: step.workingSpace.encoding, to: .srgb).cropped(to: extent)
        }
        image = try look(st, on: image)
        let strokes = st.visibleStrokes
        if !strokes.isEmpty {
            let layer = try InkLayer(width: extent.width, height: extent.height, scale: scale)
            for kind in LayerKind.allCases {
                for s in strokes where s.layer == kind { layer.draw(s.stroke) }
            }
            image = SourceOverCompositing(background: image).apply(to: layer.image).cropped(to: extent)
        }
        return image
    }

    /// The colour look of a state over an image: PencilController chain, tone curve (in linear
    /// light) and gallery preset (over the adjusted picture as an 8-bit intermediate), cropped
    /// to the image's extent.
    public func look(_ st: DocumentState, on input: Image) throws -> Image {
        let extent = input.extent
        var image = st.adjust.apply(to: input)
        if !st.curveIsIdentity {
            image = ToneCurve(levels: st.curve).apply(to: image.convertingEncoding(from: .srgb, to: .linear))
                .convertingEncoding(from: .linear, to: .srgb)
        }
        if st.preset != 0 {
            let preset = GalleryPreset.all[st.preset]
            var reference: Image?
            if preset.needsReference, let hash = st.presetReference { reference = Image(bitmap: try self.image(hash: hash)) }
            // The preset filters the adjusted picture as an 8-bit image (as the gallery's GPU
            // filters filtered a texture): its 8-bit kernels, one GPU run for the whole look.
            image = preset.apply(to: image.insertingIntermediate(), reference: reference).cropped(to: extent)
        }
        return image
    }

    /// The picture rendered (RGBA8, straight alpha), `width` pixels wide or full size.
    public func render(width: Int? = nil, context: RenderContext = RenderContext(workingSpace: .none)) throws -> Bitmap {
        let r = try recipe(width: width)
        return try context.render(r, rect: r.extent)
    }
}
