import Foundation
import SfumatoDocument
import SfumatoFilters
import SfumatoInk

extension Studio {
    /// The document as `GET /api/document` and `state` messages describe it (STUDIO-PROTOCOL.md).
    func documentJSON() -> [String: Any] {
        let st = visibleState
        let doc = document
        let preview = sessions.values.compactMap { s -> (Int, Int)? in
            guard s.hello else { return nil }
            let scale = min(Double(s.viewport.width) * s.dpr / Double(doc.width), Double(s.viewport.height) * s.dpr / Double(doc.height), 1)
            return (max(1, Int((Double(doc.width) * scale).rounded())), max(1, Int((Double(doc.height) * scale).rounded())))
        }.first ?? (doc.width, doc.height)
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
            "previewWidth": preview.0, "previewHeight": preview.1, "mode": mode,
            "adjust": ["hue": st.adjust.hue, "saturation": st.adjust.saturation, "brightness": st.adjust.brightness,
                       "contrast": st.adjust.contrast, "exposure": st.adjust.exposure, "gamma": st.adjust.gamma],
            "curve": ["levels": st.curve, "samples": ToneCurve(levels: st.curve).spline.samples(count: 256)],
            "preset": ["index": st.preset, "name": GalleryPreset.all[st.preset].name, "names": GalleryPreset.all.map(\.name)],
            "brush": ["brush": brush.kind.rawValue, "color": brush.color, "keepStrokes": keepStrokes, "pressureCurve": brush.pressureCurve],
            "edits": edits, "strokeCount": st.visibleStrokes.count, "strokesDrawn": st.strokes.count,
            "historyLength": doc.historyLength, "historyPosition": doc.historyPosition,
            "canUndo": doc.canUndo, "canRedo": doc.canRedo,
        ]
    }
}
