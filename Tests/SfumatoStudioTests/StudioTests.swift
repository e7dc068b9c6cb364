import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoInk
import SfumatoStudio
import SfumatoTestSupport
import Testing

@Suite("Studio, in-process: every message type, malformed forms, latest wins, fades, two pages")
struct StudioTests {
    @Test("hello: the document's state, then one full frame at the viewport's size")
    func hello() throws {
        let h = try StudioHarness()
        h.connect(1, width: 400, height: 300)
        h.settle()
        let page = h.transport.page(1)
        #expect(page.texts.first?["type"] as? String == "state")
        let state = page.texts.first?["document"] as? [String: Any]
        #expect(state?["width"] as? Int == h.document.width)
        let frame = try #require(page.frames.first)
        #expect(frame.kind == "preview")
        // The photo fitted into 400x300: 400 wide for a landscape photo.
        #expect(frame.header["previewWidth"] as? Int == 400 && frame.header["w"] as? Int == 400)
        #expect(page.handled == 1, "every message is reported handled (the server's read window)")
    }

    @Test("each message type has its effect")
    func everyMessageType() throws {
        let h = try StudioHarness()
        h.connect(1)
        h.settle()
        h.send(1, ["type": "mode", "mode": "curve"])
        h.send(1, ["type": "curve", "levels": [0, 0.3, 0.5, 0.8, 1], "final": true])
        h.send(1, ["type": "preset", "index": 3])
        h.send(1, ["type": "brush", "brush": "pen", "color": "#112233", "keepStrokes": true])
        h.settle()
        #expect(h.document.state.curve == [0, 0.3, 0.5, 0.8, 1] && h.document.state.preset == 3)
        let last = try #require(h.transport.texts(1, type: "state").last?["document"] as? [String: Any])
        #expect(last["mode"] as? String == "curve")
        #expect((last["brush"] as? [String: Any])?["color"] as? String == "#112233")
        h.send(1, ["type": "undo"])
        h.settle()
        #expect(h.document.state.preset == 0)
        h.send(1, ["type": "redo"])
        h.settle()
        #expect(h.document.state.preset == 3)
        // hold: a label; viewport: a new frame at the new size; beforeAfter: a frame; drawn, stats: quietly taken.
        h.send(1, ["type": "mode", "mode": "adjust"])
        h.send(1, ["type": "hold", "pair": "hue-saturation"])
        h.settle()
        #expect(h.transport.texts(1, type: "label").last?["text"] is String)
        h.transport.clear(1)
        h.send(1, ["type": "viewport", "viewport": ["width": 200, "height": 200], "dpr": 1])
        h.send(1, ["type": "beforeAfter", "on": true])
        h.send(1, ["type": "drawn", "seq": 1])
        h.send(1, ["type": "stats", "count": 3, "p50": 1, "p95": 2, "p99": 3])
        h.send(1, ["type": "camera", "on": false])
        h.settle()
        #expect(h.transport.page(1).frames.contains { $0.header["previewWidth"] as? Int == 200 })
        #expect(h.transport.errors(1).isEmpty, "\(h.transport.errors(1))")
        #expect(h.log.contains { $0.contains("latency: count 3") })
    }

    @Test("Adjust: a held pair and a pen drag change the parameters; pen up commits them")
    func adjust() throws {
        let h = try StudioHarness()
        h.connect(1)
        h.send(1, ["type": "hold", "pair": "hue-saturation"])
        h.send(1, ["type": "pen", "phase": "down", "stroke": 1, "batch": 1, "samples": [["x": 300, "y": 200, "altitude": 0.7, "azimuth": 1]]])
        h.send(1, ["type": "pen", "phase": "up", "stroke": 1, "batch": 2, "samples": []])
        h.settle()
        let adjust = h.document.state.adjust
        #expect(abs(adjust.hue - (Double.pi + 1)) < 1e-5)
        #expect(abs(adjust.saturation - 8 * (Double.pi / 2 - 0.7) / (Double.pi / 2)) < 1e-5)
    }

    @Test("a stroke lands in the document with its samples, and frames report its batches")
    func strokeLands() throws {
        let h = try StudioHarness()
        h.connect(1)
        h.send(1, ["type": "mode", "mode": "sketch"])
        h.send(1, ["type": "brush", "keepStrokes": true])
        h.stroke(1, stroke: 1, firstBatch: 10, count: 40, perBatch: 8)
        h.settle()
        let strokes = h.document.state.visibleStrokes
        #expect(strokes.count == 1 && strokes[0].stroke.samples.count == 40 && strokes[0].finished)
        #expect(h.transport.page(1).frames.map(\.batch).max() ?? 0 >= 14)
        // Reopened from the file, the same stroke.
        let again = try Document(open: h.document.path)
        #expect(again.state.visibleStrokes.first?.stroke.samples == strokes[0].stroke.samples)
    }

    @Test("a pen batch that cannot be recorded is refused to the page, naming stroke and batch")
    func refusedBatch() throws {
        let h = try StudioHarness()
        h.studio.webSocketOpened(1)
        h.send(1, ["type": "mode", "mode": "sketch"])
        // No hello yet: no preview to draw into, so nothing can be shown as drawn.
        h.send(1, ["type": "pen", "phase": "down", "stroke": 4, "batch": 7, "samples": [["x": 10, "y": 10]]])
        h.settle()
        let refused = try #require(h.transport.texts(1, type: "refused").first)
        #expect(refused["stroke"] as? Int == 4 && refused["batch"] as? Int == 7)
        #expect(h.document.state.strokes.isEmpty)
    }

    @Test("malformed messages each get one error; the page goes on working")
    func malformed() throws {
        let h = try StudioHarness()
        h.connect(1)
        h.settle()
        let bad = [
            "not json", "[1]", "{\"type\":\"preset\",\"index\":1e300}", "{\"type\":\"pen\",\"phase\":\"down\",\"stroke\":-1e19,\"batch\":1,\"samples\":[]}",
            "{\"type\":\"pen\",\"phase\":\"down\",\"stroke\":1,\"batch\":1e300,\"samples\":[]}",
            "{\"type\":\"pen\",\"phase\":\"down\",\"stroke\":1,\"batch\":1,\"samples\":[{\"x\":1e20,\"y\":1}]}",
            "{\"type\":\"hello\",\"viewport\":{\"width\":1e300,\"height\":5}}", "{\"type\":\"curve\",\"levels\":[0,0,0,0,1e400]}"
        ]
        for text in bad { h.sendRaw(1, text) }
        h.studio.webSocketMessage(1, .binary([1, 2, 3]))
        h.studio.webSocketMessage(1, .binary(Array("CAM1".utf8) + [1, 0, 0, 0, 9, 9, 9]))
        h.studio.webSocketMessage(1, .tooLarge(bytes: 99_000_000, binary: false))
        h.settle()
        #expect(h.transport.errors(1).count == bad.count + 3, "\(h.transport.errors(1))")
        #expect(h.transport.page(1).handled == bad.count + 4)
        h.send(1, ["type": "mode", "mode": "sketch"])
        h.send(1, ["type": "brush", "keepStrokes": true])
        h.stroke(1, stroke: 2, firstBatch: 1)
        h.settle()
        #expect(h.document.state.visibleStrokes.count == 1)
    }

    @Test("samples far outside the document are drawn at its edge, never walked to")
    func farSamples() throws {
        let h = try StudioHarness()
        h.connect(1)
        h.send(1, ["type": "mode", "mode": "sketch"])
        h.send(
            1,
            [
                "type": "pen", "phase": "down", "stroke": 1, "batch": 1,
                "samples": [["x": -999_999, "y": 999_999], ["x": 999_999, "y": -999_999], ["x": 10, "y": 10]]
            ])
        h.send(1, ["type": "pen", "phase": "up", "stroke": 1, "batch": 2, "samples": []])
        h.settle()
        let samples = try #require(h.document.state.strokes.first).stroke.samples
        let side = Double(max(h.document.width, h.document.height))
        #expect(samples.allSatisfy { abs($0.x) <= 2 * side && abs($0.y) <= 2 * side })
    }

    @Test("two pages: a stroke drawn on one appears on the other")
    func twoPages() throws {
        let h = try StudioHarness()
        h.connect(1)
        h.connect(2)
        h.send(1, ["type": "mode", "mode": "shade"])
        h.send(1, ["type": "brush", "brush": "pen", "color": "#ff0000"])
        h.settle()
        h.transport.clear(2)
        h.stroke(1, stroke: 1, firstBatch: 1, y: 150)
        h.settle()
        let frames = h.transport.page(2).frames
        #expect(!frames.isEmpty, "page 2 got the finished stroke")
        #expect(h.transport.texts(2, type: "state").last.flatMap { ($0["document"] as? [String: Any])?["strokeCount"] as? Int } == 1)
    }

    @Test("latest wins: while a page is not reading, its changes wait as one frame")
    func latestWins() throws {
        let h = try StudioHarness()
        h.connect(1)
        h.settle()
        h.transport.hold(1)
        h.send(1, ["type": "mode", "mode": "curve"])
        for i in 0..<30 { h.send(1, ["type": "curve", "levels": [0, 0.25, 0.5, 0.5 + Double(i) / 100, 1], "final": false]) }
        h.settle()
        let queued = h.transport.pending(1)
        #expect(queued <= 3, "30 changes queued \(queued) messages")
        h.transport.release(1)
        h.settle()
        let frames = h.transport.page(1).frames
        #expect(frames.count <= 4)
        // The newest frame shows the newest curve.
        #expect(h.transport.pending(1) == 0)
    }

    @Test("ForceSketch's fade: a stroke that fades sends fading frames, step by step, then stops")
    func fades() throws {
        let h = try StudioHarness()
        // Stepped by hand: how many frames a fade sends must not depend on how busy the machine is.
        h.studio.fadeClock = .manual
        h.connect(1)
        h.send(1, ["type": "mode", "mode": "sketch"])
        h.send(1, ["type": "brush", "keepStrokes": false])
        h.stroke(1, stroke: 1, firstBatch: 1)
        h.settle()
        let before = h.transport.page(1).frames.count
        var steps = 0
        while steps < 10_000, h.studio.stepFade() {
            h.settle()
            steps += 1
        }
        let sent = h.transport.page(1).frames.count - before
        // Each step blurs and dims the ink once and sends one frame; the ink is gone in a second or
        // two at the display's rate: a fade, not one jump to clear, and not an endless one.
        #expect(steps >= 10 && steps <= 600, "the fade took \(steps) steps")
        #expect(sent == steps, "one frame a step (\(sent) frames, \(steps) steps)")
        #expect(!h.studio.stepFade(), "the fade has ended")
        #expect(h.document.state.strokes.count == 1 && h.document.state.visibleStrokes.isEmpty)
    }

    @Test("ForceSketch's fade at the display's rate ends by itself")
    func fadesOnTheDisplayClock() throws {
        let h = try StudioHarness()
        h.connect(1)
        h.send(1, ["type": "mode", "mode": "sketch"])
        h.send(1, ["type": "brush", "keepStrokes": false])
        h.stroke(1, stroke: 1, firstBatch: 1)
        h.settle()
        // A few seconds; longer on a slow, sanitized build: wait for its end (up to 120 s).
        // (How many frames it sends depends on the machine's load: the manual clock's test counts them.)
        let deadline = Date().addingTimeInterval(120)
        while h.studio.isFading && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!h.studio.isFading, "the fade has ended")
        h.settle()
        #expect(h.document.state.strokes.count == 1 && h.document.state.visibleStrokes.isEmpty)
    }

    @Test("a page flooding the studio waits behind its own messages, not in front of another page's")
    func fairness() throws {
        let h = try StudioHarness()
        h.connect(1)
        h.connect(2)
        h.settle()
        // Page 1's backlog builds up behind a busy queue; page 2's message comes after all of it.
        let release = h.studio.holdQueue()
        for i in 0..<200 { h.sendRaw(1, "{\"type\":\"flood-\(i)\"}") }
        h.sendRaw(2, "{\"type\":\"from-page-two\"}")
        release()
        h.settle()
        // Page 2's is taken within one turn (after at most one of page 1's), not after the backlog.
        let order = h.log.filter { $0.contains("unknown message type") }
        #expect(order.count == 201)
        let position = try #require(order.firstIndex { $0.contains("from-page-two") })
        #expect(position <= 1, "page 2's message was taken after \(position) of page 1's")
    }

    @Test("/api/document answers from the published state while the studio's queue is busy")
    func documentWhileBusy() throws {
        let h = try StudioHarness()
        h.connect(1)
        h.settle()
        // However busy the queue is (held here, as by a long render), the answer comes.
        let release = h.studio.holdQueue()
        for _ in 0..<300 { h.sendRaw(1, "{\"type\":\"curve\",\"levels\":[0,0.2,0.5,0.7,1],\"final\":false}") }
        let answered = DispatchSemaphore(value: 0)
        h.studio.handle(HTTPRequest(method: .get, path: "/api/document")) { r in
            #expect(r.status == 200)
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 30) == .success, "answered while the queue was held")
        release()
        h.settle()
    }

    @Test("HTTP routes: methods, errors, HEAD-safe answers, renders within the document's size")
    func routes() throws {
        let h = try StudioHarness()
        #expect(h.call(.get, "/").status == 200)
        #expect(h.call(.get, "/static/protocol.js").body.count > 100)
        #expect(h.call(.post, "/api/document").status == 405)
        #expect(h.call(.get, "/api/undo").status == 405)
        #expect(h.call(.get, "/api/render", ["width": "\(h.document.width + 1)"]).status == 400)
        #expect(h.call(.get, "/api/render", ["width": "1e300"]).status == 400)
        let small = h.call(.get, "/api/render", ["width": "64"])
        #expect(small.status == 200 && small.contentType == "image/png")
        #expect(h.call(.get, "/api/curve", ["levels": "0,0.2,nan,0.7,1"]).status == 400)
        #expect(h.call(.get, "/api/curve", ["levels": "0,0.2,0.5,0.7,1,"]).status == 400)
        #expect(h.call(.get, "/static/../../etc/passwd").status == 404)
        #expect(h.call(.post, "/api/open", body: Array("not an image".utf8)).status == 400)
    }

    @Test("previews within their limits: each page's, and all pages' together")
    func previewBudget() throws {
        var limits = StudioLimits()
        limits.previewPixels = 600_000
        limits.allPreviewPixels = 1_000_000
        let h = try StudioHarness(photo: "hubble_deep_field.jpg", limits: limits)
        h.connect(1, width: 4000, height: 4000)
        h.connect(2, width: 4000, height: 4000)
        h.settle()
        func pixels(_ id: Int) -> Int {
            let f = h.transport.page(id).frames.last!
            return (f.header["previewWidth"] as! Int) * (f.header["previewHeight"] as! Int)
        }
        #expect(pixels(1) <= 600_000 && pixels(1) > 550_000, "\(pixels(1))")
        #expect(pixels(2) <= 1_000_000 - pixels(1) + 2_000 && pixels(2) > 300_000, "\(pixels(2))")
    }

    @Test("the page's message names come from the protocol's declarations, and every one it sends exists")
    func pageNames() throws {
        let h = try StudioHarness()
        let done = DispatchSemaphore(value: 0)
        let box = _ResponseBox()
        h.studio.handle(HTTPRequest(method: .get, path: "/static/protocol.js")) {
            box.response = $0; done.signal()
        }
        _ = done.wait(timeout: .now() + 10)
        let script = String(decoding: box.response!.body, as: UTF8.self)
        let json = try #require(script.range(of: "Object.freeze(").map { script[$0.upperBound...].dropLast(3) })
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        let client = (object["client"] as! [String: String]).keys.sorted()
        #expect(client == ClientMessage.Kind.allCases.map(\.rawValue).sorted())
        #expect((object["server"] as! [String: String]).keys.sorted() == ServerMessage.Kind.allCases.map(\.rawValue).sorted())
        let web = Fixtures.root.appendingPathComponent("Sources/SfumatoStudio/Resources/web")
        for file in try FileManager.default.contentsOfDirectory(atPath: web.path) where file.hasSuffix(".js") {
            let text = try String(contentsOf: web.appendingPathComponent(file), encoding: .utf8)
            for side in ["client", "server"] {
                let pattern = try Regex("S\\.protocol\\.\(side)\\.([A-Za-z]+)")
                for match in text.matches(of: pattern) {
                    let name = String(match.output[1].substring ?? "")
                    let known = side == "client" ? client : ServerMessage.Kind.allCases.map(\.rawValue)
                    #expect(known.contains(name), "\(file) uses \(side) message \(name), which the protocol does not have")
                }
            }
            #expect(!text.contains("type: \""), "\(file) writes a message name by hand")
        }
    }

    @Test("a render whose client left stops")
    func cancelledRender() throws {
        let h = try StudioHarness()
        let request = HTTPRequest(method: .get, path: "/api/export", query: ["format": "png"])
        request.cancellation.cancel()
        let done = DispatchSemaphore(value: 0)
        let box = _ResponseBox()
        h.studio.handle(request) {
            box.response = $0; done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(box.response?.status != 200)
    }
}

final class _ResponseBox: @unchecked Sendable {
    var response: HTTPResponse?
}
