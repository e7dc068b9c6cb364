import SfumatoCodecs
import SfumatoCore
import SfumatoFilters

/// Shrink-on-load for `sfumato apply`: a JPEG whose steps scale it down to half or less is
/// decoded DCT-scaled (1/2, 1/4 or 1/8: libjpeg-turbo's reduced inverse DCT, far less work than a
/// full decode) and the Lanczos step resamples the rest. As libvips' thumbnail does, the
/// reduced decode stops short of the output: at least a 2x Lanczos shrink remains, so the
/// kernel, not the DCT's block scaling, shapes the result.
///
/// Only on encoded values (`--working-space none`): the reduced DCT averages encoded values,
/// which in linear light darkens fine bright detail (measured against the full decode: a mean
/// 0.5...2 levels darker, a star field's stars by up to 42; libvips' thumbnail turns it off in
/// linear light for the same reason). On encoded values it stays within what a two-stage
/// shrink costs anyway (Pillow's draft mode then LANCZOS is as far from its direct LANCZOS).
///
/// Only where the result stays the same image: one geometry step, a Lanczos scale; before it
/// only filters that keep the extent and take no second image (their lengths in pixels shrink
/// with the decode, so they look as at full size); after it anything (it runs at the output's
/// size either way).
struct ShrinkOnLoad {
    /// The DCT scale denominator: 2, 4 or 8.
    let factor: Int
    /// Which step is the Lanczos scale, and the filter it makes.
    let resizeStep: Int
    let resize: LanczosScaleTransform

    /// The plan for `steps` over a file described by `info` in `workingSpace`, or nil to decode
    /// at full size.
    static func plan(_ steps: [FilterStep], info: ImageInfo, workingSpace: WorkingSpace) -> ShrinkOnLoad? {
        guard info.format == .jpeg, workingSpace == .none else { return nil }
        var found: (index: Int, filter: LanczosScaleTransform)?
        for (i, step) in steps.enumerated() {
            guard let type = try? FilterRegistry.filterType(named: step.name) else { return nil }
            let descriptor = type.descriptor
            if descriptor.category == .geometry {
                guard found == nil, let f = try? FilterRegistry.make(step.name, values: step.values) as? LanczosScaleTransform else {
                    return nil
                }
                found = (i, f)
            } else if found == nil {
                // Before the resize: no reduction (its extent is not the image's) and no second image.
                if descriptor.category == .reduction { return nil }
                if step.values.keys.contains(where: { descriptor.parameter(named: $0)?.kind == .image }) { return nil }
            }
        }
        guard let (index, resize) = found else { return nil }
        let shrink = max(resize.scale * resize.aspectRatio, resize.scale)
        guard let k = [8, 4, 2].first(where: { shrink * Double($0) <= 0.5 }) else { return nil }
        return ShrinkOnLoad(factor: k, resizeStep: index, resize: resize)
    }

    /// The recipe over the reduced decode `source` of a file whose upright size is `fullSize`:
    /// the steps before the resize with their lengths scaled, the resize to exactly the size the
    /// full decode would give, then the rest. Nil when the steps before the resize change the
    /// extent (a Core Image edge rule growing it): then the full decode is the honest one.
    func build(
        _ steps: [FilterStep], on source: Image, fullSize: (width: Int, height: Int), pixelLimit: Int
    ) throws -> (Image, [any Filter])? {
        let before = Array(steps[..<resizeStep]), after = Array(steps[(resizeStep + 1)...])
        let (prepared, early) = try RecipeBuilder.build(before, on: source, pixelLimit: pixelLimit, scale: 1 / Double(factor))
        guard prepared.extent == source.extent else { return nil }
        let size = resize.outputSize(width: fullSize.width, height: fullSize.height)
        let resized = prepared.resized(width: size.width, height: size.height, sampling: .lanczos3)
        let (result, late) = try RecipeBuilder.build(after, on: resized, pixelLimit: pixelLimit)
        return (result, early + [resize] + late)
    }

    /// The plan's line for `--explain`.
    func explanation(fullSize: (width: Int, height: Int)) -> String {
        let w = (fullSize.width + factor - 1) / factor, h = (fullSize.height + factor - 1) / factor
        let sizes = "\(w)x\(h) of \(fullSize.width)x\(fullSize.height)"
        return "decode: JPEG DCT-scaled to 1/\(factor) (\(sizes)), then Lanczos-3 for the rest (--full-decode: decode whole)"
    }
}
