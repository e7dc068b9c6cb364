"use strict";
// The gallery's live camera: getUserMedia frames drawn at 960x540, sent as "CAM1" JPEG messages at up
// to 30 fps with at most two frames in flight; the server answers each with a filtered frame.
(function (S) {
  const WIDTH = 960, HEIGHT = 540;
  const MAX_FPS = 30;
  const MAX_IN_FLIGHT = 2;
  const LOST_AFTER_MS = 1000;   // a frame not answered by then is forgotten, so a lost one can't stall us

  class Camera {
    constructor({ connection, view, onChange }) {
      this.connection = connection;
      this.view = view;
      this.onChange = onChange;
      this.video = document.getElementById("camera-video");
      this.canvas = document.createElement("canvas");
      this.canvas.width = WIDTH;
      this.canvas.height = HEIGHT;
      this.ctx = this.canvas.getContext("2d");
      this.on = false;
      this.stream = null;
      this.frameNumber = 0;
      this.inFlight = new Map();   // frame number -> time sent (encoding included)
      this.lastSent = 0;
      this.fresh = false;         // a new video frame has arrived since the last send
      this.waitTimer = 0;
      this.drawnTimes = [];        // arrival times of filtered frames in the last second
      this.framesDrawn = 0;
      this.fpsLabel = document.getElementById("camera-fps");
      view.cameraFrameListeners.push((header) => this.frameDrawn(header));

      const self = this;
      window.sfumatoCamera = {
        get on() { return self.on; },
        get framesDrawn() { return self.framesDrawn; },
        get framesSent() { return self.frameNumber; },
        get fps() { return self.fps(); },
      };
    }

    async toggle() { return this.on ? this.stop() : this.start(); }

    async start() {
      if (this.on) return;
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
        S.util.toast("No camera access here (a secure page is needed)", true);
        return;
      }
      try {
        this.stream = await navigator.mediaDevices.getUserMedia({
          audio: false,
          video: { width: { ideal: WIDTH }, height: { ideal: HEIGHT }, frameRate: { ideal: MAX_FPS } },
        });
      } catch (error) {
        S.util.toast("Camera unavailable: " + error.message, true);
        return;
      }
      this.video.srcObject = this.stream;
      await this.video.play().catch(() => {});
      this.on = true;
      this.inFlight.clear();
      this.announce();
      this.view.showCamera(true);
      this.onChange(true);
      this.nextTick();
    }

    stop() {
      if (!this.on) return;
      this.on = false;
      if (this.stream) for (const track of this.stream.getTracks()) track.stop();
      this.stream = null;
      this.video.srcObject = null;
      this.connection.send({ type: S.protocol.client.camera, on: false, width: WIDTH, height: HEIGHT });
      this.view.showCamera(false);
      this.drawnTimes = [];
      this.updateFps();
      this.onChange(false);
    }

    /** Tell the server (again, after a reconnect) that camera frames are coming. */
    announce() {
      if (this.on) this.connection.send({ type: S.protocol.client.camera, on: true, width: WIDTH, height: HEIGHT });
    }

    /** One tick per new video frame where the browser can say so, else per animation frame. */
    nextTick() {
      if (!this.on) return;
      if (this.video.requestVideoFrameCallback) this.video.requestVideoFrameCallback(() => this.tick());
      else requestAnimationFrame(() => this.tick());
    }

    tick() {
      if (!this.on) return;
      this.nextTick();
      this.fresh = true;   // a video frame not sent yet
      this.trySend();
    }

    /**
     * Sends the newest video frame if fewer than two are in flight and the 30 fps budget allows.
     * Called on every new video frame and whenever a filtered frame comes back, so a frame skipped
     * because the pipe was full goes out as soon as there is room, not one video frame later.
     */
    trySend() {
      if (!this.on || !this.fresh || !this.video.videoWidth || !this.connection.isOpen) return;
      const now = performance.now();
      for (const [n, sent] of this.inFlight) if (now - sent > LOST_AFTER_MS) this.inFlight.delete(n);
      if (this.inFlight.size >= MAX_IN_FLIGHT) return;
      const wait = this.lastSent + 1000 / MAX_FPS - 2 - now;
      if (wait > 0) {
        if (!this.waitTimer) this.waitTimer = setTimeout(() => { this.waitTimer = 0; this.trySend(); }, wait);
        return;
      }
      this.fresh = false;
      this.lastSent = now;
      this.send(now);
    }

    /** Draws the video frame cropped to fill 960x540, encodes it as JPEG and sends it with its header. */
    send(now) {
      const vw = this.video.videoWidth, vh = this.video.videoHeight;
      const scale = Math.max(WIDTH / vw, HEIGHT / vh);
      const sw = WIDTH / scale, sh = HEIGHT / scale;
      this.ctx.drawImage(this.video, (vw - sw) / 2, (vh - sh) / 2, sw, sh, 0, 0, WIDTH, HEIGHT);
      const number = ++this.frameNumber;
      this.inFlight.set(number, now);
      this.canvas.toBlob((blob) => {
        if (!blob || !this.on) { this.inFlight.delete(number); return; }
        const header = new Uint8Array(8);
        header.set([0x43, 0x41, 0x4d, 0x31]);   // "CAM1"
        new DataView(header.buffer).setUint32(4, number >>> 0, true);
        // A Blob of header + JPEG goes out as one binary message without copying the JPEG here.
        if (!this.connection.sendBinary(new Blob([header, blob]))) this.inFlight.delete(number);
      }, "image/jpeg", 0.8);
    }

    /** A filtered frame came back and was drawn: it and any older ones are no longer in flight. */
    frameDrawn(header) {
      for (const n of this.inFlight.keys()) if (n <= header.frame) this.inFlight.delete(n);
      if (!this.on) return;
      this.trySend();
      this.framesDrawn++;
      const now = performance.now();
      this.drawnTimes.push(now);
      while (this.drawnTimes.length && now - this.drawnTimes[0] > 1000) this.drawnTimes.shift();
      this.updateFps();
    }

    fps() {
      const times = this.drawnTimes;
      if (times.length < 2) return 0;
      return (times.length - 1) * 1000 / Math.max(1, times[times.length - 1] - times[0]);
    }

    updateFps() {
      const text = this.on ? `${this.fps().toFixed(1)} fps` : "";
      if (this.fpsLabel.textContent !== text) this.fpsLabel.textContent = text;
      S.stats.setLine("camera", this.on ? "camera " + text : "");
    }
  }

  S.Camera = Camera;
})(window.Sfumato);
