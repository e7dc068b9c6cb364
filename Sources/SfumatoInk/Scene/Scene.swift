import Foundation
import SfumatoCore

/// A drawing as data: a canvas and strokes of pen samples. The command line (`sfumato ink`) and
/// the tests render these.
///
/// ```json
/// {"canvas": {"width": 400, "height": 300, "background": "#ffffff"},
///  "strokes": [{"brush": "force-pen", "color": "#336699",
///               "samples": [{"x": 10.5, "y": 20, "pressure": 0.4, "altitude": 1.1, "azimuth": 0.3, "t": 0}]}]}
/// ```
public struct Scene: Sendable, Codable, Equatable {
    public struct Canvas: Sendable, Codable, Equatable {
        public var width: Int
        public var height: Int
        /// `#rrggbb`, or nil / "transparent" for none.
        public var background: String?
    }

    public struct SceneStroke: Sendable, Codable, Equatable {
        public var brush: BrushKind
        public var color: String?
        public var pressureCurve: [[Double]]?
        public var width: [Double]?
        public var noPressure: Bool?
        public var fades: Bool?
        public var samples: [PenSample]

        /// The stroke as the ink engine stores it.
        public var stroke: Stroke {
            Stroke(
                brush: BrushSettings(
                    kind: brush, color: color ?? "#000000", pressureCurve: pressureCurve ?? [[0, 0], [1, 1]],
                    width: width, noPressure: noPressure),
                samples: samples, fades: fades ?? false)
        }
    }

    public var canvas: Canvas
    public var strokes: [SceneStroke]

    /// Parses a scene, checking sizes (1...20000 per side) and colours.
    public static func decode(_ data: Data, name: String = "scene") throws -> Scene {
        let scene: Scene
        do {
            scene = try JSONDecoder().decode(Scene.self, from: data)
        } catch let e as DecodingError {
            throw SfumatoError.invalidArgument("\(name): not a valid scene (\(_describe(e)))")
        }
        guard (1...20000).contains(scene.canvas.width), (1...20000).contains(scene.canvas.height) else {
            throw SfumatoError.invalidArgument("\(name): canvas must be 1...20000 pixels per side, not \(scene.canvas.width)x\(scene.canvas.height)")
        }
        if let bg = scene.canvas.background, bg != "transparent", parseColor(bg) == nil {
            throw SfumatoError.invalidArgument("\(name): background \(bg) is not a #rrggbb colour")
        }
        for (i, s) in scene.strokes.enumerated() {
            if let c = s.color, parseColor(c) == nil {
                throw SfumatoError.invalidArgument("\(name): stroke \(i + 1) colour \(c) is not a #rrggbb colour")
            }
        }
        return scene
    }

    /// Renders the strokes into an ink layer of the canvas size (`scale` layer pixels per canvas pixel).
    public func layer(scale: Double = 1, format: PixelFormat = .rgbaFloat32) throws -> InkLayer {
        let layer = try InkLayer(
            width: max(1, Int((Double(canvas.width) * scale).rounded())),
            height: max(1, Int((Double(canvas.height) * scale).rounded())), scale: scale, format: format)
        for s in strokes { layer.draw(s.stroke) }
        return layer
    }
}

func _describe(_ e: DecodingError) -> String {
    switch e {
    case .keyNotFound(let k, let c): "missing \(k.stringValue) at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
    case .typeMismatch(_, let c), .valueNotFound(_, let c): "wrong type at \(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)"
    case .dataCorrupted(let c): c.debugDescription
    @unknown default: "\(e)"
    }
}
