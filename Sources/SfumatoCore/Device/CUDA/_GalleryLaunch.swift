import Foundation

/// Launches the hand-written gallery kernels (`Kernels/gallery.cu`, compiled into `_GalleryPTX`;
/// docs/GPU-KERNELS.md gives each kernel's arguments and launch shape).
enum _GalleryLaunch {
    /// The kernel entries a device kernel runs, for plans.
    static func entries(for k: DeviceKernel) -> [String] {
        switch k {
        case .gaussian(let w, let interpolating):
            interpolating || w.count - 1 > 24 ? ["sfumato_gaussian_vertical", "sfumato_gaussian_horizontal"] : ["sfumato_gaussian"]
        case .median(let d): [d == 3 ? "sfumato_median3" : d == 5 ? "sfumato_median5" : d == 7 ? "sfumato_median7" : "sfumato_median"]
        case .rectangle: ["sfumato_extreme_rows", "sfumato_extreme_columns"]
        case .probe: ["sfumato_extreme_spans"]
        case .convolution(let w, let h, _, _, _, _): [w == 3 && h == 3 ? "sfumato_convolve3x3" : "sfumato_convolve"]
        case .sobel: ["sfumato_sobel"]
        }
    }

    private static func function(_ name: String, _ context: _CUDAContext) throws -> OpaquePointer {
        try context.function(name, key: "gallery") { _GalleryPTX.text }
    }

    private static func ceil(_ a: Int, _ b: Int) -> Int { (a + b - 1) / b }

    /// Runs `k` from `buffers.current` into `buffers.spare` and swaps them (a rectangle's two
    /// passes go through a third buffer).
    static func run(_ k: DeviceKernel, clamp: Bool, _ buffers: _CUDARoute.Buffers, context: _CUDAContext) throws {
        let w = buffers.width, h = buffers.height, pitch = buffers.pitch
        let image: [_CUDAContext.Argument] = [.int32(Int32(w)), .int32(Int32(h)), .int32(Int32(pitch)), .int32(4), .int32(clamp ? 0 : 1)]
        let src = _CUDAContext.Argument.pointer(buffers.current.address), dst = _CUDAContext.Argument.pointer(buffers.spare.address)
        switch k {
        case .gaussian(let weights, let interpolating):
            let radius = Int32(weights.count - 1)
            let table = try _DeviceBuffer.table(context, weights)  // kept by the context's constants
            if !interpolating && radius <= 24 {
                try context.launch(
                    try function("sfumato_gaussian", context), grid: (ceil(w * 4, 512), ceil(h, 16), 1), block: (32, 8, 1),
                    [src, dst] + image + [.pointer(table.address), .int32(radius)], name: "sfumato_gaussian", on: buffers.stream)
            } else {
                // Rows filtered vertically into 16-bit words (the anchors only, when interpolating),
                // then horizontally.
                let rows = interpolating ? (h + 4) / 2 + 1 : h
                let words = try buffers.scratch(bytes: rows * 2 * pitch)
                let tail: [_CUDAContext.Argument] = [.pointer(table.address), .int32(radius), .int32(interpolating ? 1 : 0), .int32(0)]
                try context.launch(
                    try function("sfumato_gaussian_vertical", context), grid: (ceil(ceil(w * 4, 4), 32), ceil(rows, 32), 1),
                    block: (32, 8, 1), [src, .pointer(words.address)] + image + tail, name: "sfumato_gaussian_vertical", on: buffers.stream)
                try context.launch(
                    try function("sfumato_gaussian_horizontal", context), grid: (ceil(w * 4, 512), ceil(h, 40), 1), block: (32, 8, 1),
                    [.pointer(words.address), dst] + image + tail, name: "sfumato_gaussian_horizontal", on: buffers.stream)
            }
        case .median(let d):
            if d <= 7 {
                let entry = d == 3 ? "sfumato_median3" : d == 5 ? "sfumato_median5" : "sfumato_median7"
                try context.launch(
                    try function(entry, context), grid: (ceil(ceil(w, 4), 32), ceil(h, 8), 1), block: (32, 8, 1), [src, dst] + image,
                    name: entry, on: buffers.stream)
            } else {
                try context.launch(
                    try function("sfumato_median", context), grid: (ceil(w * 4, 64), ceil(h, 64), 1), block: (64, 1, 1),
                    [src, dst] + image + [.int32(Int32(d))], name: "sfumato_median", on: buffers.stream)
            }
        case .rectangle(let rw, let rh, let maximum):
            let mid = try buffers.scratch(bytes: pitch * h)
            try context.launch(
                try function("sfumato_extreme_rows", context), grid: (ceil(w, 32), ceil(h, 8), 1), block: (32, 8, 1),
                [src, .pointer(mid.address)] + image + [.int32(Int32(rw)), .int32(Int32(-(rw / 2))), .int32(maximum ? 1 : 0)],
                name: "sfumato_extreme_rows", on: buffers.stream)
            try context.launch(
                try function("sfumato_extreme_columns", context), grid: (ceil(ceil(w * 4, 4), 32), ceil(h, 8), 1), block: (32, 8, 1),
                [.pointer(mid.address), dst] + image + [.int32(Int32(rh)), .int32(Int32(-(rh / 2))), .int32(maximum ? 1 : 0)],
                name: "sfumato_extreme_columns", on: buffers.stream)
        case .probe(let spans, let maximum):
            let table = try _DeviceBuffer.table(context, spans.flatMap { [Int32($0.dy), Int32($0.x0), Int32($0.x1)] })
            try context.launch(
                try function("sfumato_extreme_spans", context), grid: (ceil(w, 32), ceil(h, 8), 1), block: (32, 8, 1),
                [src, dst] + image + [.pointer(table.address), .int32(Int32(spans.count)), .int32(maximum ? 1 : 0)],
                name: "sfumato_extreme_spans", on: buffers.stream)
        case .convolution(let kw, let kh, let weights, let shift, let bias, let keepAlpha):
            let tail: [_CUDAContext.Argument] = [.int32(Int32(shift)), .int32(bias), .int32(keepAlpha ? 1 : 0)]
            if kw == 3 && kh == 3 {
                try context.launch(
                    try function("sfumato_convolve3x3", context), grid: (ceil(w, 32), ceil(h, 8), 1), block: (32, 8, 1),
                    [src, dst] + image + weights.map { .int32($0) } + tail, name: "sfumato_convolve3x3", on: buffers.stream)
            } else {
                let table = try _DeviceBuffer.table(context, weights)
                try context.launch(
                    try function("sfumato_convolve", context), grid: (ceil(w, 32), ceil(h, 8), 1), block: (32, 8, 1),
                    [src, dst] + image + [.int32(Int32(kw)), .int32(Int32(kh)), .pointer(table.address)] + tail, name: "sfumato_convolve", on: buffers.stream)
            }
        case .sobel:
            try context.launch(
                try function("sfumato_sobel", context), grid: (ceil(w, 32), ceil(h, 8), 1), block: (32, 8, 1), [src, dst] + image,
                name: "sfumato_sobel", on: buffers.stream)
        }
        buffers.swap()
    }

    /// A pixel function over the current image, into the spare buffer (swapped).
    static func pixel(_ f: DevicePixelFunction, _ buffers: _CUDARoute.Buffers, context: _CUDAContext) throws {
        switch f {
        case .threshold(let weights, let threshold, let maximum):
            // The byte of `maximum` as StraightBytes.encode stores it (encoded values).
            let on = Int32((maximum.bounded(0, 1) * 255).rounded(.toNearestOrEven))
            try context.launch(
                try function("sfumato_threshold", context), grid: (ceil(ceil(buffers.width * 4, 16), 64), ceil(buffers.height, 4), 1),
                block: (64, 4, 1),
                [
                    .pointer(buffers.current.address), .pointer(buffers.spare.address), .int32(Int32(buffers.width)),
                    .int32(Int32(buffers.height)), .int32(Int32(buffers.pitch)), .int32(4), .float(weights.x), .float(weights.y),
                    .float(weights.z), .float(threshold), .int32(on), .int32(0)
                ], name: "sfumato_threshold", on: buffers.stream)
        }
        buffers.swap()
    }

    /// Adds the current image's 256-bin counts per channel (R, G, B, A) to `counts`.
    static func histogram(_ buffers: _CUDARoute.Buffers, into counts: _DeviceBuffer, context: _CUDAContext) throws {
        try context.launch(
            try function("sfumato_histogram", context), grid: (min(ceil(buffers.width, 256), 8), min(buffers.height, 128), 1),
            block: (256, 1, 1),
            [
                .pointer(buffers.current.address), .int32(Int32(buffers.width)), .int32(Int32(buffers.height)),
                .int32(Int32(buffers.pitch)), .int32(4), .pointer(counts.address)
            ], name: "sfumato_histogram", on: buffers.stream)
    }
}
