/// What the GPU route would do, for tests on machines without a GPU (and for tools that explain
/// a render). Not a stable interface: `@_spi(DeviceInspection) import SfumatoCore`.
@_spi(DeviceInspection) public enum DeviceInspection {
    /// The route's steps for a render of the whole image, as `--explain` prints them (upload,
    /// each kernel, download), or why the image stays on the CPU.
    public static func steps(_ image: Image, workingSpace: WorkingSpace) -> Result<[String], DeviceRouteUnavailable> {
        do {
            let plan = try _Plan(image, workingSpace: workingSpace, fuse: true)
            return .success(try _CUDARoute.lower(plan, rect: image.extent, tileWidth: 1024).explanation)
        } catch let e as _CUDARoute.Unsupported {
            return .failure(DeviceRouteUnavailable(reason: e.description))
        } catch {
            return .failure(DeviceRouteUnavailable(reason: "\(error)"))
        }
    }

    /// The bands a render of the whole image runs in on the GPU with `deviceBudget` bytes of
    /// device memory: each band's own rows and the rows it uploads (its own and a halo each
    /// side); empty when it runs whole, nil when it fits neither way.
    public static func bands(
        _ image: Image, workingSpace: WorkingSpace, deviceBudget: Int = .max
    ) throws -> [(own: Range<Int>, held: Range<Int>)]? {
        let plan = try _Plan(image, workingSpace: workingSpace, fuse: true)
        let route = try _CUDARoute.lower(plan, rect: image.extent, tileWidth: 1024)
        guard let own = route.bandRows(budget: deviceBudget) else { return nil }
        return Array(zip(own, route.heldRows(own))).map { (own: $0.0, held: $0.1) }
    }

    /// Renders on the CPU, into `bitmap` (RGBA8, straight, the image's size), only the border a GPU
    /// render of `image` redoes on the CPU (pixels that depend on a transparent outside); returns
    /// its depth (rows, columns), nil when there is none.
    @discardableResult
    public static func redoTransparentBorder(_ image: Image, workingSpace: WorkingSpace, into bitmap: Bitmap) throws -> (rows: Int, columns: Int)? {
        let context = RenderContext(options: .init(workingSpace: workingSpace))
        let plan = try _Plan(image, workingSpace: workingSpace, fuse: true)
        let route = try _CUDARoute.lower(plan, rect: image.extent, tileWidth: 1024)
        let d = _Destination(
            base: bitmap.row(0), rowBytes: bitmap.rowBytes, rect: image.extent, format: bitmap.format, encoding: bitmap.encoding,
            alpha: bitmap.alpha)
        try context.redoTransparentBorder(image, route, into: d)
        return route.transparentBorder
    }

    /// Device bytes a band of `rows` rows of `image` holds on one stream (two image buffers and
    /// a scratch buffer).
    public static func deviceBytes(_ image: Image, rows: Int) -> Int { 4 * ((image.extent.width * 4 + 15) & ~15) * rows }

    /// The texts of the generated point kernels the route would launch, in order.
    public static func pointKernelTexts(_ image: Image, workingSpace: WorkingSpace) throws -> [String] {
        let plan = try _Plan(image, workingSpace: workingSpace, fuse: true)
        let route = try _CUDARoute.lower(plan, rect: image.extent, tileWidth: 1024)
        return route.steps.compactMap { step in
            guard case .point(let p) = step else { return nil }
            return _PointKernelPTX.text(for: [p.lut != nil ? .table : .matrixTail])
        }
    }

    /// How many compilations a module cache makes for `texts` in order (each new text once).
    public static func compilations(_ texts: [String]) -> Int {
        let cache = _ModuleCache<Int>()
        var count = 0
        for t in texts {
            _ = cache.module(for: t) { _ in
                count += 1
                return count
            }
        }
        return count
    }
}

/// Why a render has no GPU route.
@_spi(DeviceInspection) public struct DeviceRouteUnavailable: Error, Sendable {
    /// In words, as `--explain` prints it.
    public let reason: String
}
