import Foundation

/// A render's plan lowered to GPU steps over one resident image, or the reason it cannot be.
///
/// The route takes what the CPU's plan already decided (fused point programs with their 8-bit
/// tables, kernels on 8-bit tiles, histograms) and runs the same integers on the GPU: the image
/// is uploaded once, every step reads one device buffer and writes the other, and the result is
/// downloaded once.
struct _CUDARoute {
    enum Step {
        /// A fused point program through its 8-bit tables.
        case point(_PointExec)
        /// A pixel function with a device form (encoded values).
        case pixel(DevicePixelFunction, name: String)
        /// A neighbourhood kernel; `clamp` repeats edge pixels, otherwise outside is transparent.
        case neighborhood(DeviceKernel, clamp: Bool, name: String)
        /// Histograms of the image and of each reference (routes of their own), then the
        /// mapping's tables.
        case histogram(_HistogramExec, references: [_CUDARoute])
    }

    /// Why a render stays on the CPU, in words for `--explain` and errors.
    struct Unsupported: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    let source: Bitmap
    var steps: [Step] = []
    /// The CPU render's tile width (its 8-bit loops treat the last pixels of each tile row apart).
    var tileWidth = 1024

    var width: Int { source.width }
    var height: Int { source.height }

    /// Lowers `plan` for a render of `rect`.
    static func lower(_ plan: _Plan, rect: Rect, tileWidth: Int) throws(Unsupported) -> _CUDARoute {
        guard plan.streams.isEmpty else { throw Unsupported("a streamed source (the GPU route takes decoded images)") }
        var route = try lower(plan.root, plan.workingSpace)
        route.tileWidth = tileWidth
        guard rect == plan.root.extent, rect == route.source.bounds else {
            throw Unsupported("the region \(rect) is not the whole image \(route.source.bounds)")
        }
        // The kernels address an image with 32-bit offsets: a larger one runs in bands, which a
        // histogram cannot.
        guard route.bandRows(budget: .max) != nil else {
            throw Unsupported("an image of \(rect.width)x\(rect.height) with a histogram (the GPU kernels take images under 4 GiB)")
        }
        return route
    }

    private static func lower(_ e: _Exec, _ ws: WorkingSpace) throws(Unsupported) -> _CUDARoute {
        switch e {
        case let b as _BitmapExec:
            guard b.bitmap.format == .rgba8, b.bitmap.encoding == .srgb else {
                throw Unsupported("a \(b.bitmap.format) \(b.bitmap.encoding) source (the GPU route takes 8-bit sRGB RGBA)")
            }
            guard b.opaqueWithin else { throw Unsupported("a source with transparency (the GPU route takes opaque images)") }
            return _CUDARoute(source: b.bitmap)
        case let h as _HistogramExec:
            guard ws == .none, h.mapping.bins == 256 else {
                throw Unsupported("\(h.mapping.name) in linear light (the GPU counts 8-bit levels)")
            }
            var route = try lower(h.inputs[0], ws)
            var references: [_CUDARoute] = []
            for input in h.inputs.dropFirst() { references.append(try lower(input, ws)) }
            route.steps.append(.histogram(h, references: references))
            return route
        case let p as _PointExec where ws == .none && p.lut == nil && p.bytePixelFunction?.deviceFunction != nil:
            var route = try lower(p.input, ws)
            route.steps.append(.pixel(p.bytePixelFunction!.deviceFunction!, name: p.program.names.joined(separator: " + ")))
            return route
        case let p as _PointExec:
            guard p.lut != nil || (p.tailFixed != nil && p.tailLinear == (ws == .linear)) else {
                throw Unsupported("the point program \(p.program.names.joined(separator: " + ")) has no 8-bit route")
            }
            var route = try lower(p.input, ws)
            route.steps.append(.point(p))
            return route
        case let i as _IntermediateExec:
            // Between GPU steps the image is premultiplied sRGB RGBA8 already: what an 8-bit
            // intermediate holds.
            return try lower(i.input, ws)
        case let c as _CropExec:
            if let n = c.input as? _NeighborhoodExec {
                let clamped = n.input as? _ClampExec
                let base = clamped?.input ?? n.input
                guard base.extent == c.extent else { throw Unsupported("a crop that is not the kernel's input extent") }
                // On float tiles (after a point pass, or in linear light) the CPU keeps values
                // outside 0...1 into the kernel; 8-bit kernels would clip them first.
                guard n.useBytes, !n.useGray else {
                    throw Unsupported("\(n.kernel.name) on float tiles (after a point filter, or in linear light; the GPU runs 8-bit kernels)")
                }
                guard let k = n.kernel.deviceKernel else { throw Unsupported("\(n.kernel.name) has no GPU kernel yet") }
                var route = try lower(base, ws)
                route.steps.append(.neighborhood(k, clamp: clamped != nil, name: n.kernel.name))
                return route
            }
            guard c.extent == c.input.extent else { throw Unsupported("a crop inside the image") }
            return try lower(c.input, ws)
        case let n as _NeighborhoodExec:
            throw Unsupported("\(n.kernel.name) growing the image (edges .grow)")
        default:
            throw Unsupported("\(e.explanation) has no GPU form")
        }
    }

    /// Lines for `--explain`: the transfers and the kernels, in order.
    var explanation: [String] {
        var lines = ["upload \(width)x\(height) RGBA8 (\(width * height * 4 >> 20) MiB) once"]
        let bands = bandRows() ?? []
        if !bands.isEmpty {
            lines[0] +=
                ", in \(bands.count) bands of about \(height / bands.count) rows (and \(halo ?? 0) more each side), each band's copies and kernels overlapping the others' on \(min(Self.bandStreamCount, bands.count)) streams (when source and result can be page-locked)"
        }
        for step in steps {
            switch step {
            case .point(let p):
                lines.append(
                    "kernel sfumato_point (\(p.lut != nil ? "a table per channel" : "a matrix, then a table per channel")): \(p.program.names.joined(separator: " + "))"
                )
            case .pixel(_, let name):
                lines.append("kernel sfumato_threshold: \(name)")
            case .neighborhood(let k, let clamp, let name):
                lines.append("kernel \(_GalleryLaunch.entries(for: k).joined(separator: " + ")): \(name), edges \(clamp ? "clamped" : "transparent")")
            case .histogram(let h, let references):
                lines.append(
                    "kernel sfumato_histogram over the image\(references.isEmpty ? "" : " and \(references.count) reference(s)"), then \(h.mapping.name)'s tables: kernel sfumato_point"
                )
            }
        }
        lines.append("download once")
        return lines
    }
}
