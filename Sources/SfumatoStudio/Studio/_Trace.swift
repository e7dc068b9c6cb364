import Foundation

/// Set SFUMATO_TRACE=1 to log render and frame timings, and refused requests.
let _trace = ProcessInfo.processInfo.environment["SFUMATO_TRACE"] == "1"

/// Milliseconds on the monotonic clock.
func _now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}
