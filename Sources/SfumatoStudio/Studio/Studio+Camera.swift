import Foundation
import SfumatoCore
import SfumatoFilters

extension Studio {
    /// A camera frame from a page: filtered through the gallery's preset and sent back (latest
    /// wins: at most two frames a page are filtered at once, newer ones replace the waiting one).
    func cameraFrame(_ s: _Session, _ data: [UInt8]) {
        guard data.count > 8, Array(data[0..<4]) == Array("CAM1".utf8) else {
            refuse(s, "binary messages are camera frames: CAM1 + frame number + JPEG")
            return
        }
        let number = UInt32(data[4]) | UInt32(data[5]) << 8 | UInt32(data[6]) << 16 | UInt32(data[7]) << 24
        let preset = document.state.preset
        let presetReference = document.state.presetReference
        let doc = document
        let reference = presetReference.flatMap { try? doc.image(hash: $0) }.map { Image(bitmap: $0) }
        s.cameraLock.lock()
        s.cameraFrame = (data, number)
        let start = s.cameraBusy < 2
        if start { s.cameraBusy += 1 }
        s.cameraLock.unlock()
        if !start { return }
        cameraWork.enter()
        DispatchQueue.global().async {
            defer { self.cameraWork.leave() }
            while true {
                s.cameraLock.lock()
                guard let (bytes, n) = s.cameraFrame else {
                    s.cameraBusy -= 1
                    s.cameraLock.unlock()
                    return
                }
                s.cameraFrame = nil
                s.cameraLock.unlock()
                self.filterCameraFrame(s, bytes, n, preset: preset, reference: reference)
            }
        }
    }

    /// Decodes, filters and sends back one camera frame (two run at once, one per core).
    func filterCameraFrame(_ s: _Session, _ bytes: [UInt8], _ n: UInt32, preset: Int, reference: Image?) {
        let t0 = _now()
        guard let input = _decodeCameraFrame(bytes[8...]) else {
            queue.async { self.refuse(s, "camera frame \(n) is not a decodable JPEG of at most 4096x4096") }
            return
        }
        let image = Image(bitmap: input)
        do {
            // One thread per frame: two frames in flight keep both cores busy with less overhead.
            // On a GPU when there is one (the whole frame at once).
            let context = RenderContext(options: .init(workingSpace: .none, threads: 1, device: .auto))
            let out = try context.render(
                GalleryPreset.all[preset].apply(to: image, reference: reference).cropped(to: image.extent),
                rect: image.extent)
            let t2 = _now()
            guard let jpeg = _encodeJPEG(out, quality: 80) else { return }
            if _trace {
                log(
                    String(
                        format: "camera frame %d: decode+filter %.1f ms, jpeg %.1f ms (%d bytes in, %d out)",
                        Int(n), t2 - t0, _now() - t2, bytes.count, jpeg.count))
            }
            let header = FrameHeader(
                sequence: 0, batch: 0, kind: .camera, region: (0, 0, out.width, out.height),
                preview: (out.width, out.height), format: .jpeg, cameraFrame: Int(n))
            transport?.send(s.id, header.message(jpeg), binary: true)
        } catch {
            log("camera: \(error)")
        }
    }
}
