import CWebSockets
import Foundation
import SfumatoCore

extension WebServer {
    /// Writes what is due on a writable HTTP connection; returns -1 to close.
    func writeHTTP(_ wsi: OpaquePointer?, _ c: Connection) -> Int32 {
        lock.lock()
        guard let r = c.response else { lock.unlock(); return 0 }
        lock.unlock()
        let pre = Int(SF_LWS_PRE)
        // HEAD: the headers GET would send, without the body.
        let bodyCount = c.method == .head ? 0 : r.body.count
        if !c.headersSent {
            var headers = r.headers
            if c.setCookie { headers.append(("set-cookie", access.cookie)) }
            if c.closeAfterResponse { headers.append(("connection", "close")) }
            headers.append(("x-content-type-options", "nosniff"))
            var buffer = [UInt8](repeating: 0, count: pre + 8192)
            let ok: Bool = buffer.withUnsafeMutableBufferPointer { b in
                let start = b.baseAddress! + pre
                var p: UnsafeMutablePointer<UInt8>? = start
                let end = start + 8192 - 1
                if lws_add_http_common_headers(wsi, UInt32(r.status), r.contentType, lws_filepos_t(r.body.count), &p, end) != 0 { return false }
                for (name, value) in headers {
                    let n = name.lowercased() + ":"
                    if lws_add_http_header_by_name(wsi, n, value, Int32(value.utf8.count), &p, end) != 0 { return false }
                }
                return lws_finalize_write_http_header(wsi, start, &p, end) == 0
            }
            if !ok { return -1 }
            c.headersSent = true
            if bodyCount == 0 { return complete(wsi, c) }
            lws_callback_on_writable(wsi)
            return 0
        }
        let chunk = min(64 * 1024, bodyCount - c.sentBytes)
        var buffer = [UInt8](repeating: 0, count: pre + chunk)
        buffer.replaceSubrange(pre..<(pre + chunk), with: r.body[c.sentBytes..<(c.sentBytes + chunk)])
        let last = c.sentBytes + chunk >= bodyCount
        let written = buffer.withUnsafeMutableBufferPointer {
            lws_write(wsi, $0.baseAddress! + pre, chunk, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        if written < 0 { return -1 }
        c.sentBytes += chunk
        if last { return complete(wsi, c) }
        lws_callback_on_writable(wsi)
        return 0
    }

    /// The response is out: keep the connection for another request, or close it.
    private func complete(_ wsi: OpaquePointer?, _ c: Connection) -> Int32 {
        if c.closeAfterResponse { return -1 }
        if lws_http_transaction_completed(wsi) != 0 { return -1 }
        lock.lock()
        c.response = nil
        c.headersSent = false
        c.sentBytes = 0
        c.body = []
        c.bodyTooLarge = false
        lock.unlock()
        return 0
    }

    /// Sends the next queued WebSocket message; returns -1 to close.
    func writeWebSocket(_ wsi: OpaquePointer?, _ c: Connection) -> Int32 {
        lock.lock()
        if c.outbox.isEmpty {
            let closing = c.closing
            lock.unlock()
            return closing ? -1 : 0
        }
        let (data, binary) = c.outbox.removeFirst()
        c.queuedBytes -= data.count
        let more = !c.outbox.isEmpty || c.closing
        let drained = c.outbox.isEmpty
        lock.unlock()
        let pre = Int(SF_LWS_PRE)
        var buffer = [UInt8](repeating: 0, count: pre + data.count)
        buffer.replaceSubrange(pre..<(pre + data.count), with: data)
        let n = buffer.withUnsafeMutableBufferPointer {
            lws_write(wsi, $0.baseAddress! + pre, data.count, binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT)
        }
        if n < data.count { return -1 }
        if _trace && binary { StandardStream.error.write(String(format: "studio: %d bytes written at %.1f\n", data.count, _now())) }
        if more { lws_callback_on_writable(wsi) }
        if drained { delegate.webSocketDrained(c.id) }
        return 0
    }
}
