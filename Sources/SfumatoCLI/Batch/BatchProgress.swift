import Foundation

/// How a batch tells people how it is going: on a terminal, a bar redrawn in place on standard
/// error (files done, rate, bytes, time left); with `--json`, one JSON line a file on standard
/// output; otherwise nothing until the summary.
final class BatchProgress: @unchecked Sendable {
    enum Style { case bar, json, quiet }

    let total: Int
    let style: Style
    private let output: TextOutput
    private let lock = NSLock()
    private let started = DispatchTime.now().uptimeNanoseconds
    private var counts: [BatchRecord.Status: Int] = [:]
    private var inputBytes = 0
    private var outputBytes = 0
    private var lastDrawn: UInt64 = 0

    init(total: Int, style: Style, output: TextOutput) {
        self.total = total
        self.style = style
        self.output = output
    }

    var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }

    func finished(_ record: BatchRecord) {
        lock.withLock {
            counts[record.status, default: 0] += 1
            if record.status == .done {
                inputBytes += record.inputBytes ?? 0
                outputBytes += record.outputBytes ?? 0
            }
            let done = counts.values.reduce(0, +)
            switch style {
            case .json:
                var line = record.json
                line.removeLast()  // the closing brace: the progress goes in the same object
                output.print(line + ",\"event\":\"file\",\"done\":\(done),\"total\":\(total)}")
            case .bar:
                let now = DispatchTime.now().uptimeNanoseconds
                if done == total || now - lastDrawn > 100_000_000 {
                    lastDrawn = now
                    output.error(bar(done: done), terminator: "\r")
                }
            case .quiet:
                break
            }
        }
    }

    private func bar(done: Int) -> String {
        let t = max(elapsed, 1e-3)
        let width = 28
        let filled = total == 0 ? width : width * done / total
        let rate = Double(done) / t
        let left = rate > 0 ? Double(total - done) / rate : 0
        let failed = counts[.failed, default: 0]
        return "[" + String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + "\(done)/\(total) files  \(String(format: "%.1f", rate))/s  \(Self.bytes(inputBytes)) in, \(Self.bytes(outputBytes)) out"
            + (failed > 0 ? "  \(failed) failed" : "") + "  \(Self.clock(left)) left  "
    }

    /// The closing lines: counts, time and rate, then each failure with its reason.
    func summary(_ records: [BatchRecord]) {
        let done = records.filter { $0.status == .done }.count
        let skipped = records.filter { $0.status == .skipped }.count
        let failures = records.filter { $0.status == .failed }
        let t = elapsed
        lock.withLock {
            if style == .bar { output.error("", terminator: "\n") }
            if style == .json {
                output.print(
                    "{\"event\":\"summary\",\"done\":\(done),\"skipped\":\(skipped),\"failed\":\(failures.count),"
                        + "\"seconds\":\(String(format: "%.3f", t)),\"input_bytes\":\(inputBytes),\"output_bytes\":\(outputBytes)}")
                return
            }
            let rate = t > 0 ? Double(done) / t : 0
            output.error(
                "batch: \(done) done, \(skipped) already done, \(failures.count) failed in \(String(format: "%.1f", t)) s"
                    + " (\(String(format: "%.1f", rate)) files/s, \(Self.bytes(inputBytes)) in, \(Self.bytes(outputBytes)) out)")
            for f in failures { output.error("failed: \(f.input): \(f.reason ?? "failed")") }
        }
    }

    static func bytes(_ n: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var v = Double(n)
        var u = 0
        while v >= 1000 && u < units.count - 1 {
            v /= 1000
            u += 1
        }
        return u == 0 ? "\(n) B" : String(format: "%.1f", v) + " " + units[u]
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
