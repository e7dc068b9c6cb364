import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoFilters
import SfumatoInk

extension Studio {
    /// The document as `GET /api/document` and `state` messages describe it (STUDIO-PROTOCOL.md).
    func documentJSON() -> [String: Any] {
        let st = visibleState
        let doc = document
        let preview = sessions.values.sorted { $0.id < $1.id }.first(where: \.hello).map(previewSize) ?? (width: doc.width, height: doc.height)
        let edits: [[String: Any]] = st.edits.map { step in
            var o: [String: Any] = ["filter": step.filter, "workingSpace": step.workingSpace.rawValue]
            for (k, v) in step.values {
                switch v {
                case .number(let d): o[k] = d
                case .vector(let a): o[k] = a
                case .text(let t): o[k] = t
                case .flag(let b): o[k] = b
                }
            }
            return o
        }
        return [
            "name": doc.name, "path": doc.path, "width": doc.width, "height": doc.height,
            "previewWidth": preview.width, "previewHeight": preview.height, "mode": mode.rawValue,
            "adjust": [
                "hue": st.adjust.hue, "saturation": st.adjust.saturation, "brightness": st.adjust.brightness,
                "contrast": st.adjust.contrast, "exposure": st.adjust.exposure, "gamma": st.adjust.gamma
            ],
            "curve": ["levels": st.curve, "samples": ToneCurve(levels: st.curve).spline.samples(count: 256)],
            "preset": ["index": st.preset, "name": GalleryPreset.all[st.preset].name, "names": GalleryPreset.all.map(\.name)],
            "brush": ["brush": brush.kind.rawValue, "color": brush.color, "keepStrokes": keepStrokes, "pressureCurve": brush.pressureCurve],
            "edits": edits, "strokeCount": st.visibleStrokes.count, "strokesDrawn": st.strokes.count,
            "historyLength": doc.historyLength, "historyPosition": doc.historyPosition,
            "canUndo": doc.canUndo, "canRedo": doc.canRedo
        ]
    }
}

extension Studio {
    /// Opens posted image bytes as a new document in the studio's folder, for every page.
    func openPhoto(_ bytes: [UInt8], name: String) -> HTTPResponse {
        guard !bytes.isEmpty else { return .error(400, "send the image file as the request body") }
        let safe = String(name.filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }.prefix(100))
        var base = (safe.isEmpty ? "photo" : (safe as NSString).deletingPathExtension)
        if base.isEmpty { base = "photo" }
        do {
            // Checked from the header before anything is decoded: a small file can claim a huge image.
            let info = try ImageIO.info(bytes: bytes, name: safe.isEmpty ? "photo" : safe)
            guard info.width * info.height <= limits.openPixels else {
                return .error(413, "a \(info.width)x\(info.height) photo is over the studio's limit of \(limits.openPixels / 1_000_000) megapixels")
            }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var path = folder.appendingPathComponent(base + ".sfumato").path
            var n = 2
            while FileManager.default.fileExists(atPath: path) {
                path = folder.appendingPathComponent("\(base)-\(n).sfumato").path
                n += 1
            }
            let doc = try Document.create(at: path, image: bytes, name: safe.isEmpty ? "photo" : safe)
            document = doc
            liveAdjust = nil
            liveCurve = nil
            saveSettings()
            log("opened \(safe) as \(path)")
            for s in sessions.values {
                let abandoned = s.stroke?.renderer
                s.stroke = nil
                publish(s)
                s.work.async {
                    s.preview = nil
                    abandoned?.discard()
                }
                resize(s)
            }
            broadcastState()
            return .json(bytes: published.withLock { $0 })
        } catch let e as SfumatoError {
            return .error(e.isTooLarge ? 413 : 400, e.description)
        } catch {
            return .error(500, "\(error)")
        }
    }
}
