"use strict";
// The WebSocket to the server: JSON messages both ways, binary FRM1 frames in, binary CAM1 frames
// out. Reconnects by itself with exponential backoff.
(function (S) {
  const FRAME_MAGIC = "FRM1";
  const decoder = new TextDecoder();

  /**
   * Parses a binary server frame: "FRM1" + uint32 LE header length + header JSON + image bytes.
   * Returns {header, image, type} (encoded image bytes and their MIME type), {header, pixels} (raw
   * RGBA rows, format "rgba"), or null when the bytes are not a frame.
   */
  function parseFrame(buffer) {
    if (buffer.byteLength < 8) return null;
    const bytes = new Uint8Array(buffer);
    if (String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]) !== FRAME_MAGIC) return null;
    const headerLength = new DataView(buffer).getUint32(4, true);
    if (8 + headerLength > buffer.byteLength) return null;
    let header;
    try { header = JSON.parse(decoder.decode(bytes.subarray(8, 8 + headerLength))); } catch (_) { return null; }
    if (header.format === "rgba") {
      const pixels = new Uint8ClampedArray(buffer, 8 + headerLength);
      if (!(header.w > 0 && header.h > 0) || pixels.length !== 4 * header.w * header.h) return null;
      return { header, pixels };
    }
    const type = header.format === "png" ? "image/png" : "image/jpeg";
    const image = bytes.subarray(8 + headerLength);
    return { header, image, type };
  }

  class Connection {
    /**
     * handlers: onOpen(isReconnect), onMessage(json), onFrame({header, image, type} | {header, pixels}), onClose()
     */
    constructor(handlers) {
      this.handlers = handlers;
      this.socket = null;
      this.attempt = 0;          // failed attempts since the last successful open (for the backoff)
      this.everOpened = false;
      this.timer = 0;
    }

    get isOpen() { return !!this.socket && this.socket.readyState === WebSocket.OPEN; }

    connect() {
      clearTimeout(this.timer);
      const socket = new WebSocket(S.util.webSocketURL());
      socket.binaryType = "arraybuffer";
      this.socket = socket;
      socket.onopen = () => {
        const isReconnect = this.everOpened;
        this.everOpened = true;
        this.attempt = 0;
        this.handlers.onOpen(isReconnect);
      };
      socket.onmessage = (event) => this.receive(event.data);
      socket.onclose = () => {
        if (this.socket !== socket) return;
        this.socket = null;
        this.handlers.onClose();
        this.scheduleReconnect();
      };
      // onerror is always followed by onclose, which does the work.
    }

    /** 0.25 s, 0.5 s, 1 s, then every 2 s, with a little jitter so many tabs don't stampede. */
    scheduleReconnect() {
      const delay = Math.min(2000, 250 * 2 ** this.attempt) * (0.85 + Math.random() * 0.3);
      this.attempt++;
      this.timer = setTimeout(() => this.connect(), delay);
    }

    receive(data) {
      if (typeof data === "string") {
        let message;
        try { message = JSON.parse(data); } catch (_) { console.warn("sfumato: bad JSON from server"); return; }
        this.handlers.onMessage(message);
        return;
      }
      const frame = parseFrame(data);
      if (frame) this.handlers.onFrame(frame);
      else console.warn("sfumato: unknown binary message from server");
    }

    /** Sends a JSON message; returns false (and drops it) while disconnected. */
    send(message) {
      if (!this.isOpen) return false;
      this.socket.send(JSON.stringify(message));
      return true;
    }

    sendBinary(buffer) {
      if (!this.isOpen) return false;
      this.socket.send(buffer);
      return true;
    }

    /** Bytes queued in the socket but not yet on the wire (used to avoid flooding it with camera frames). */
    get bufferedAmount() { return this.socket ? this.socket.bufferedAmount : 0; }
  }

  S.Connection = Connection;
  S.parseFrame = parseFrame;
})(window.Sfumato);
