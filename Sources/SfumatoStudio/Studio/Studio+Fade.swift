import Foundation
import SfumatoCore

extension Studio {
    // MARK: ForceSketch's fade

    func startFade() {
        if fadeTimer != nil { return }
        let t = DispatchSource.makeTimerSource(queue: queue)
        t.schedule(deadline: .now() + .milliseconds(16), repeating: .milliseconds(16))
        t.setEventHandler { [weak self] in self?.fadeTick() }
        fadeTimer = t
        t.resume()
    }

    func stopFade() {
        fadeTimer?.cancel()
        fadeTimer = nil
    }

    /// One display frame of the fade on every page that is not drawing.
    func fadeTick() {
        if sessions.values.contains(where: { $0.stroke != nil }) { stopFade(); return }
        let group = DispatchGroup()
        let remaining = _Counter()
        for s in sessions.values {
            group.enter()
            s.work.async {
                defer { group.leave() }
                guard let p = s.preview, !p.fadingBounds.isEmpty else { return }
                let before = p.fadingBounds
                if p.fading.fadeStep(.transparent, inkIn: before) > 0 {
                    remaining.add()
                    // The blur spreads ink by its radius each frame.
                    p.fadingBounds = p.fadingBounds.insetBy(dx: -3, dy: -3).intersection(p.bounds)
                } else {
                    p.fading.clear()
                    p.fadingBounds = .zero
                }
                self.schedule(s, dirty: before.union(p.fadingBounds), batch: s.batch)
            }
        }
        group.notify(queue: queue) { if remaining.value == 0 { self.stopFade() } }
    }
}

final class _Counter: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var value = 0
    func add() { lock.lock(); value += 1; lock.unlock() }
}
