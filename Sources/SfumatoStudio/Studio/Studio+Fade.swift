import Foundation
import SfumatoCore

/// What paces ForceSketch's fade.
public enum FadeClock: Sendable {
    /// One step per display frame (16 ms), as the app.
    case display
    /// One step per ``Studio/stepFade()`` call.
    case manual
}

extension Studio {
    // MARK: ForceSketch's fade

    func startFade() {
        if fading { return }
        fading = true
        guard fadeClock == .display else { return }
        let t = DispatchSource.makeTimerSource(queue: queue)
        t.schedule(deadline: .now() + .milliseconds(16), repeating: .milliseconds(16))
        t.setEventHandler { [weak self] in self?.fadeTick() }
        fadeTimer = t
        t.resume()
    }

    func stopFade() {
        fading = false
        fadeTimer?.cancel()
        fadeTimer = nil
    }

    /// With the ``FadeClock/manual`` clock: one step of the fade, if one is under way; returns
    /// once the step's frames are scheduled. Returns whether a fade was under way.
    @discardableResult
    public func stepFade() -> Bool {
        let running = queue.sync { fading }
        guard running else { return false }
        let stepped = DispatchSemaphore(value: 0)
        queue.async { self.fadeTick { stepped.signal() } }
        stepped.wait()
        return true
    }

    /// One display frame of the fade on every page that is not drawing.
    func fadeTick(done: @escaping @Sendable () -> Void = {}) {
        if sessions.values.contains(where: { $0.stroke != nil }) { stopFade(); done(); return }
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
        group.notify(queue: queue) {
            if remaining.value == 0 { self.stopFade() }
            done()
        }
    }
}

final class _Counter: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var value = 0
    func add() { lock.lock(); value += 1; lock.unlock() }
}
