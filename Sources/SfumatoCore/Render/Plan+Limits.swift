import Foundation

extension _Plan {
    /// Passes a recipe may chain, one inside another (a render runs them recursively per tile).
    static let maximumDepth = 512

    /// Pixels one pass may need for one tile (1 GiB of float pixels): filters whose regions of
    /// interest add up past this (hundreds of wide blurs in a row) are refused, not allowed to
    /// take the machine's memory.
    static let maximumTilePixels = 1 << 26

    /// Refuses a recipe deeper than ``maximumDepth`` passes (point filters that fuse count once).
    /// Iterative: the check itself must not overflow the stack it protects.
    static func checkDepth(_ root: _Node, fuse: Bool) throws {
        var depth: [ObjectIdentifier: Int] = [:]
        var stack: [(node: _Node, expanded: Bool)] = [(root, false)]
        while let (node, expanded) = stack.popLast() {
            let id = ObjectIdentifier(node)
            if depth[id] != nil { continue }
            if !expanded {
                stack.append((node, true))
                for input in node.inputs where depth[ObjectIdentifier(input)] == nil { stack.append((input, false)) }
                continue
            }
            var d = 0
            for input in node.inputs {
                var step = 1
                if fuse, case .point = node.op, case .point = input.op { step = 0 }
                d = max(d, depth[ObjectIdentifier(input)]! + step)
            }
            guard d <= maximumDepth else {
                throw SfumatoError.tooLarge(
                    "the recipe chains more than \(maximumDepth) filters one after another; "
                        + "split it and render in parts")
            }
            depth[id] = d
        }
    }

    /// Refuses a render whose tiles would need more than ``maximumTilePixels`` at some pass:
    /// each pass's demand is the union of what the passes reading it need (regions of interest),
    /// propagated from `tile` at the root in topological order.
    func checkReach(tile: Rect) throws {
        var order: [_Exec] = []
        var seen = Set<ObjectIdentifier>()
        var stack: [(_Exec, Bool)] = [(root, false)]
        while let (e, expanded) = stack.popLast() {
            if expanded { order.append(e); continue }
            if seen.contains(ObjectIdentifier(e)) { continue }
            seen.insert(ObjectIdentifier(e))
            stack.append((e, true))
            for c in e.children where !seen.contains(ObjectIdentifier(c)) { stack.append((c, false)) }
        }
        var demand: [ObjectIdentifier: Rect] = [ObjectIdentifier(root): tile]
        for e in order.reversed() {
            guard let rect = demand[ObjectIdentifier(e)], !rect.isEmpty else { continue }
            if !rect.isInfinite && rect.width * rect.height > Self.maximumTilePixels {
                throw SfumatoError.tooLarge(
                    "the recipe's filters reach too far: one \(tile.width)x\(tile.height) tile needs "
                        + "\(rect.width)x\(rect.height) pixels at \(e.explanation); use fewer or smaller neighbourhood filters")
            }
            func need(_ child: _Exec, _ r: Rect) {
                let id = ObjectIdentifier(child)
                demand[id] = demand[id].map { $0.union(r) } ?? r
            }
            switch e {
            case let n as _NeighborhoodExec:
                need(n.input, n.kernel.regionOfInterest(for: rect))
            case let t as _TranslateExec:
                need(t.input, rect.offsetBy(dx: -t.dx, dy: -t.dy))
            case let c as _ClampExec:
                need(c.input, rect.intersection(c.input.extent))
            case let c as _CropExec:
                need(c.input, rect.intersection(c.extent))
            case let h as _HistogramExec:
                need(h.input, rect)
            case let r as _ReductionExec:
                need(r.input, r.firstStrip)
            default:
                for c in e.children { need(c, rect) }
            }
        }
    }
}
