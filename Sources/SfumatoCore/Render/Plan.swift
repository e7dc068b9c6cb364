import Foundation

/// A recipe turned into executors for one render: point filters fused, streams and reductions
/// collected for their own passes.
final class _Plan: @unchecked Sendable {
    let workingSpace: WorkingSpace
    let fuse: Bool
    /// Whether kernels may use their linear-light 8-bit variant (``RenderContext/Options/linearBytes``).
    let linearBytes: Bool
    /// The render's thread count (also for the checks made while planning).
    let threads: Int
    private(set) var root: _Exec!
    /// Whether every pass is pixel for pixel (``_Exec/isPixelForPixel``).
    private(set) lazy var isPixelForPixel: Bool = {
        func all(_ e: _Exec) -> Bool { e.isPixelForPixel && e.children.allSatisfy(all) }
        return all(root)
    }()
    private(set) var streams: [_StreamExec] = []
    /// Histogram executors, innermost first (an inner one's result can feed an outer one's input).
    private(set) var histograms: [_HistogramExec] = []
    private var memo: [ObjectIdentifier: _Exec] = [:]
    /// Stream sources replaced by fully decoded bitmaps (after a streaming window miss).
    private let materialized: [ObjectIdentifier: Bitmap]

    init(
        _ image: Image, workingSpace: WorkingSpace, fuse: Bool, linearBytes: Bool = true, threads: Int = defaultThreadCount,
        materialized: [ObjectIdentifier: Bitmap] = [:]
    ) throws {
        self.workingSpace = workingSpace
        self.fuse = fuse
        self.linearBytes = linearBytes
        self.threads = threads
        self.materialized = materialized
        try _Plan.checkDepth(image.node, fuse: fuse)
        root = try build(image.node)
    }

    private func build(_ node: _Node) throws -> _Exec {
        let id = ObjectIdentifier(node)
        if let e = memo[id] { return e }
        let e = try make(node)
        memo[id] = e
        return e
    }

    private func make(_ node: _Node) throws -> _Exec {
        let ws = workingSpace
        switch node.op {
        case .bitmap(let b):
            return _BitmapExec(b, ws, threads: threads)
        case .stream(let s):
            if let b = materialized[ObjectIdentifier(s)] { return _BitmapExec(b, ws, threads: threads) }
            let e = _StreamExec(s, ws)
            streams.append(e)
            return e
        case .constant(let c, let enc):
            return _ConstantExec(c, enc, extent: node.extent, ws)
        case .generator(let g):
            return _GeneratorExec(g, extent: node.extent, ws)
        case .crop:
            return _CropExec(try build(node.inputs[0]), extent: node.extent)
        case .clamp:
            return _ClampExec(try build(node.inputs[0]))
        case .translate(let dx, let dy):
            return _TranslateExec(try build(node.inputs[0]), dx: dx, dy: dy, extent: node.extent)
        case .point(let stages, let name):
            // Fold a chain of point nodes into one program over the chain's base input.
            var chain: [([PointStage], String)] = [(stages, name)]
            var base = node.inputs[0]
            if fuse {
                while case .point(let s, let n) = base.op {
                    chain.append((s, n))
                    base = base.inputs[0]
                }
            }
            var program = _PointProgram()
            for (s, n) in chain.reversed() { program.append(s.flatMap { $0.expanded(for: ws.encoding) }, name: n, fuse: fuse) }
            return _PointExec(try build(base), program: program, extent: node.extent, ws: ws)
        case .neighborhood(let k):
            return _NeighborhoodExec(try build(node.inputs[0]), k, extent: node.extent, ws: ws, linearBytes: linearBytes)
        case .blend(let k):
            return _BlendExec(try build(node.inputs[0]), try build(node.inputs[1]), k, extent: node.extent)
        case .intermediate:
            let input = try build(node.inputs[0])
            // 8-bit tiles already hold what the intermediate would: nothing to store.
            if input.natural == .byte || input.natural == .gray { return input }
            return _IntermediateExec(input, ws: ws)
        case .maskBlend:
            return _MaskBlendExec(try build(node.inputs[0]), try build(node.inputs[1]), try build(node.inputs[2]), extent: node.extent)
        case .reduction(let r, let area):
            return _ReductionExec(try build(node.inputs[0]), r, area: area, extent: node.extent, threads: threads)
        case .histogram(let m):
            let inputs = try node.inputs.map { try build($0) }
            for input in inputs where input.extent.isInfinite {
                throw SfumatoError.invalidArgument("\(m.name) needs inputs of finite extent (crop the image first)")
            }
            let e = _HistogramExec(inputs, m, extent: node.extent, ws: ws)
            histograms.append(e)
            return e
        }
    }

    /// The union of the regions of `target` (a stream) that rendering `rect` of `exec` reads.
    func region(of target: _Exec, for rect: Rect, from exec: _Exec) -> Rect {
        if exec === target { return rect.intersection(target.extent) }
        if rect.isEmpty { return .zero }
        switch exec {
        case let e as _NeighborhoodExec:
            return region(of: target, for: e.kernel.regionOfInterest(for: rect), from: e.input)
        case let e as _TranslateExec:
            return region(of: target, for: rect.offsetBy(dx: -e.dx, dy: -e.dy), from: e.input)
        case let e as _ClampExec:
            let ex = e.input.extent
            let x0 = min(max(rect.x, ex.x), ex.maxX - 1), x1 = min(max(rect.maxX - 1, ex.x), ex.maxX - 1)
            let y0 = min(max(rect.y, ex.y), ex.maxY - 1), y1 = min(max(rect.maxY - 1, ex.y), ex.maxY - 1)
            return region(of: target, for: Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1), from: e.input)
        case let e as _CropExec:
            return region(of: target, for: rect.intersection(e.extent), from: e.input)
        case let e as _ReductionExec:
            return region(of: target, for: e.area, from: e.input)
        case let e as _HistogramExec:
            return e.inputs.dropFirst().reduce(region(of: target, for: rect, from: e.input)) { r, _ in r }
        default:
            return exec.children.reduce(Rect.zero) { $0.union(region(of: target, for: rect, from: $1)) }
        }
    }

    /// Lines describing the executors, inputs first (post-order), for `--explain`.
    func describe() -> [String] {
        var lines: [String] = []
        var seen = Set<ObjectIdentifier>()
        func visit(_ e: _Exec, depth: Int) {
            if seen.contains(ObjectIdentifier(e)) {
                lines.append(String(repeating: "  ", count: depth) + "(shared) " + e.explanation)
                return
            }
            seen.insert(ObjectIdentifier(e))
            for c in e.children { visit(c, depth: depth + 1) }
            lines.append(String(repeating: "  ", count: depth) + e.explanation + "  [\(e.extent), \(e.natural)]")
        }
        visit(root, depth: 0)
        return lines
    }
}
