"use strict";
// The stage: #canvas holds the server's preview (backing store = preview pixels, CSS-fitted with
// object-fit: contain), #draft-canvas the reduced drafts of a pen drag (at their own size, stretched
// by the compositor over #canvas until the next sharp frame), #camera-canvas the filtered camera
// frames, #overlay (device pixels of the stage, hidden while empty) the provisional stroke tail, and
// #pencil-canvas the virtual pencil.
(function (S) {
  const PENCIL_FADE_S = 0.25;
  const TAIL_TIMEOUT_MS = 600;   // an unconfirmed tail disappears at the latest this long after pen up
  const MAX_ZOOM = 16;           // the view's largest magnification of the fitted photo

  /**
   * Decodes a frame's image into {source (for drawImage), width, height, close()}. Drafts go
   * through WebCodecs' ImageDecoder where the browser has it: it reads the message's bytes
   * directly, while createImageBitmap needs a Blob, which Chromium hands to its browser process
   * and reads back, a round trip per frame (about 2 ms off Adjust's pen-to-pixels p50 here).
   * Sharp frames keep createImageBitmap: its RGB decode (libjpeg-turbo's smooth chroma
   * upsampling) lands closer to the server's pixels than a YUV VideoFrame drawn to a canvas.
   */
  async function decodeImage(frame) {
    if (frame.header.draft && typeof ImageDecoder === "function") {
      let decoder = null;
      try {
        decoder = new ImageDecoder({ data: frame.image, type: frame.type });
        const { image } = await decoder.decode();
        return { source: image, width: image.displayWidth, height: image.displayHeight, close: () => image.close() };
      } catch (_) {
        // A browser whose ImageDecoder cannot take this type: the Blob route below.
      } finally {
        if (decoder) decoder.close();
      }
    }
    const bitmap = await createImageBitmap(new Blob([frame.image], { type: frame.type }));
    return { source: bitmap, width: bitmap.width, height: bitmap.height, close: () => bitmap.close() };
  }

  class View {
    constructor({ onViewportChange }) {
      this.stage = document.getElementById("stage");
      this.canvas = document.getElementById("canvas");
      this.ctx = this.canvas.getContext("2d", { alpha: false });   // opaque: the compositor skips what lies under it
      this.draftCanvas = document.getElementById("draft-canvas");
      this.draftCtx = this.draftCanvas.getContext("2d", { alpha: false });
      // A software compositor stretches the draft over the stage every frame of a drag: bilinear
      // took Chromium's about 1.3 ms a frame here, nearest-neighbour about half that. Where a GPU
      // does the stretching it costs nothing, and the draft keeps its smoother bilinear look.
      setTimeout(() => this.draftCanvas.classList.toggle("nearest", S.util.rendersInSoftware()), 0);
      this.cameraCanvas = document.getElementById("camera-canvas");
      this.cameraCtx = this.cameraCanvas.getContext("2d");
      this.overlay = document.getElementById("overlay");
      this.overlayCtx = this.overlay.getContext("2d");
      this.overlayInked = false;    // whether #overlay holds anything to clear
      this.tailMode = false;        // whether the mode draws strokes (see setTailMode)
      // WebGL where the GPU draws it; a software WebGL (SwiftShader, llvmpipe) costs a frame more
      // than the 2D drawing (Benchmarks/pencil_frame_cost.py). ?pencil=webgl or ?pencil=2d decides.
      const pencilParam = new URLSearchParams(location.search).get("pencil");
      this.setUpPencil(document.getElementById("pencil-canvas"),
                       pencilParam === "webgl" || (pencilParam !== "2d" && !S.util.rendersInSoftware()));
      this.onViewportChange = onViewportChange;

      this.docWidth = 0;            // document (full-resolution) size, from the server's state
      this.docHeight = 0;
      this.rect = null;             // cached client rect of #canvas (zoomed: see setView)
      this.stageBox = null;         // cached client rect of #stage
      // The view: the fitted photo magnified by `scale` (1 = fit) and moved by (x, y) stage CSS px.
      // It is a transform of the picture's canvases, so the pen's mapping to the document (through
      // #canvas's client rect) stays exact at every zoom; the server renders for the magnified size.
      this.zoom = { scale: 1, x: 0, y: 0 };
      this.zoomed = document.querySelectorAll("#canvas, #draft-canvas, #camera-canvas");
      this.drawChain = Promise.resolve();
      this.cameraFrameListeners = [];
      this.previewListeners = [];
      // Called once per preview frame, drawn or skipped: the page acknowledges it to the server.
      this.doneListeners = [];

      this.tail = { points: [], predicted: [], color: "#fff", endedAt: 0 };
      this.pencil = { visible: false, opacity: 0, x: 0, y: 0, altitude: Math.PI / 2, azimuth: 0, lastTime: 0 };
      this.scheduleOverlay = S.util.frameScheduler((time) => this.renderOverlay(time));

      this.observeSize();
    }

    // ---- size and coordinates ------------------------------------------------------------

    observeSize() {
      let timer = 0;
      this.viewportChanged = () => {
        // Debounced: a rotation, a window drag or a pinch produces a burst of sizes; the server re-renders once.
        clearTimeout(timer);
        timer = setTimeout(() => this.onViewportChange(this.viewport()), 120);
      };
      const changed = () => {
        this.rect = null;
        this.stageBox = null;
        this.resizeOverlay();
        this.setView(this.zoom.scale, this.zoom.x, this.zoom.y);   // still within the new size
        this.viewportChanged();
      };
      new ResizeObserver(changed).observe(this.stage);
      window.addEventListener("scroll", () => { this.rect = null; this.stageBox = null; }, { passive: true });
      this.resizeOverlay();
    }

    /**
     * The stage in CSS pixels and the device pixels per CSS pixel of the photo as shown (the
     * display's ratio times the zoom, within the protocol's limit): what hello/viewport report.
     */
    viewport() {
      const r = this.stageRect();
      const limit = (S.protocol.limits && S.protocol.limits.maxDevicePixelRatio) || 8;
      const dpr = Math.min(limit, (window.devicePixelRatio || 1) * this.zoom.scale);
      return { viewport: { width: Math.round(r.width), height: Math.round(r.height) }, dpr };
    }

    // ---- zoom and pan ----------------------------------------------------------------------

    /**
     * Shows the fitted photo magnified by `scale` (1...MAX_ZOOM) and moved by (x, y) stage CSS
     * pixels, kept so the picture always covers the stage it covered when fitted.
     */
    setView(scale, x, y) {
      const r = this.stageRect();
      const s = S.util.clamp(Number.isFinite(scale) ? scale : 1, 1, MAX_ZOOM);
      const z = {
        scale: s,
        x: S.util.clamp(Number.isFinite(x) ? x : 0, r.width * (1 - s), 0),
        y: S.util.clamp(Number.isFinite(y) ? y : 0, r.height * (1 - s), 0),
      };
      const was = this.zoom;
      if (z.scale === was.scale && z.x === was.x && z.y === was.y) return;
      this.zoom = z;
      const transform = s === 1 ? "" : `translate(${z.x}px, ${z.y}px) scale(${s})`;
      for (const element of this.zoomed) element.style.transform = transform;
      document.body.dataset.zoomed = String(s > 1);
      this.rect = null;
      this.scheduleOverlay();
      if (z.scale !== was.scale) this.viewportChanged();
    }

    /** Zooms by `factor` about the client point (cx, cy), which stays where it is. */
    zoomAbout(factor, cx, cy) {
      const r = this.stageRect(), z = this.zoom;
      const s = S.util.clamp(z.scale * factor, 1, MAX_ZOOM);
      const px = cx - r.left, py = cy - r.top;
      this.setView(s, px - (px - z.x) * s / z.scale, py - (py - z.y) * s / z.scale);
    }

    panBy(dx, dy) { this.setView(this.zoom.scale, this.zoom.x + dx, this.zoom.y + dy); }

    /** Back to the photo fitted to the stage. */
    resetView() { this.setView(1, 0, 0); }

    resizeOverlay() {
      const r = this.stage.getBoundingClientRect();
      const dpr = window.devicePixelRatio || 1;
      this.overlay.width = Math.max(1, Math.round(r.width * dpr));
      this.overlay.height = Math.max(1, Math.round(r.height * dpr));
      this.overlayCtx.setTransform(dpr, 0, 0, dpr, 0, 0);
      this.scheduleOverlay();
    }

    setDocumentSize(width, height) {
      this.docWidth = width;
      this.docHeight = height;
    }

    canvasRect() {
      if (!this.rect) this.rect = this.canvas.getBoundingClientRect();
      return this.rect;
    }

    stageRect() {
      if (!this.stageBox) this.stageBox = this.stage.getBoundingClientRect();
      return this.stageBox;
    }

    /** Where the photo is shown, in client coordinates (object-fit: contain letterboxes it). */
    imageRect() {
      const box = this.canvasRect();
      const aspectW = this.canvas.width > 1 ? this.canvas.width : this.docWidth;
      const aspectH = this.canvas.height > 1 ? this.canvas.height : this.docHeight;
      if (!aspectW || !aspectH) return null;
      const scale = Math.min(box.width / aspectW, box.height / aspectH);
      const width = aspectW * scale, height = aspectH * scale;
      return { left: box.left + (box.width - width) / 2, top: box.top + (box.height - height) / 2, width, height };
    }

    /** Client coordinates -> document pixels (the protocol's x = (clientX - imgLeft) / imgWidth * width). */
    clientToDoc(clientX, clientY) {
      const img = this.imageRect();
      if (!img || !this.docWidth) return null;
      return {
        x: (clientX - img.left) / img.width * this.docWidth,
        y: (clientY - img.top) / img.height * this.docHeight,
      };
    }

    /** Document pixels -> overlay (stage CSS pixel) coordinates. */
    docToStage(x, y) {
      const img = this.imageRect();
      const box = this.stageRect();
      return {
        x: img.left - box.left + x / this.docWidth * img.width,
        y: img.top - box.top + y / this.docHeight * img.height,
      };
    }

    // ---- frames from the server ------------------------------------------------------------

    /**
     * Draws frames strictly in arrival order, so a small region frame never lands under an older
     * full frame. Region frames start decoding at once (decodes overlap); a full frame supersedes
     * every frame before it, so when full frames come faster than they can be decoded (Adjust
     * with a fast pen) the stale ones are skipped without decoding: the screen shows the newest
     * picture, and its pen batch covers the skipped ones for the latency figures.
     */
    drawFrame(frame) {
      const h = frame.header;
      if (frame.pixels) {
        // A raw draft stands for the whole preview: older frames still decoding are skipped.
        if (h.draft) this.latestFull = Math.max(this.latestFull || 0, h.seq || 0);
        this.drawRawFrame(frame);
        return;
      }
      if (!frame.image.length) {
        // An image-less frame only acknowledges pen batches that changed nothing on screen.
        this.drawChain = this.drawChain.then(() => {
          S.stats.frameDrawn(h.batch, performance.now());
          this.confirmTail(h.batch);
        });
        return;
      }
      const preview = h.kind !== "camera";
      const full = preview && !(h.x || 0) && !(h.y || 0) && h.w === h.previewWidth && h.h === h.previewHeight;
      if (full) this.latestFull = Math.max(this.latestFull || 0, h.seq || 0);
      const early = full ? null : decodeImage(frame);
      this.drawChain = this.drawChain.then(async () => {
        const done = () => { if (preview) for (const listener of this.doneListeners) listener(h); };
        if (preview && (h.seq || 0) < (this.latestFull || 0)) {
          if (early) early.then((b) => b.close(), () => {});
          done();
          return;   // a newer full frame is on its way
        }
        let bitmap;
        try { bitmap = await (early || decodeImage(frame)); } catch (error) { console.warn("sfumato: undecodable frame", error); done(); return; }
        if (preview && !h.draft && !this.draftPathWarm) this.warmDraftPath(frame);
        // Once decoded, a frame is drawn even if a newer one has arrived meanwhile: it is still
        // newer than what is on screen, and dropping it could starve the screen while a fast pen
        // keeps frames coming.
        try {
          if (h.kind === "camera") this.drawCameraFrame(h, bitmap);
          else this.drawPreviewFrame(h, bitmap);
        } catch (error) {
          console.warn("sfumato: frame not drawn", error);   // the chain goes on with the next frame
        } finally {
          bitmap.close();
          done();
        }
      });
    }

    /**
     * The first drafts of the first drag paid for starting the draft decoder (about 50 ms in
     * Chromium) and for the 2D pencil's first gradients: both are done once, off the drag, with the
     * first sharp frame's bytes and an offscreen canvas.
     */
    warmDraftPath(frame) {
      this.draftPathWarm = true;
      setTimeout(() => {
        // A page on this machine gets its drafts raw: no decoder to start.
        if (!S.util.isLoopback()) {
          decodeImage({ header: { draft: true }, image: frame.image, type: frame.type })
            .then((image) => image.close(), () => {});
        }
        if (!this.pencilGL) {
          const c = document.createElement("canvas");
          c.width = c.height = 64;
          S.drawPencil(c.getContext("2d"), 32, 32, 1, 0, 1, 110);
        }
      }, 0);
    }

    /**
     * A raw RGBA region or draft (from a server on this machine: a stroke's few pixels, or a
     * draft's, need no codec): written in place, in its turn, with nothing asynchronous on the way.
     */
    drawRawFrame(frame) {
      const h = frame.header;
      this.drawChain = this.drawChain.then(() => {
        if ((h.seq || 0) >= (this.latestFull || 0)) {
          this.ensurePreviewSize(h.previewWidth, h.previewHeight);
          if (h.draft) {
            this.showRawDraft(new ImageData(frame.pixels, h.w, h.h));
          } else {
            this.leaveDraft(h);
            this.ctx.putImageData(new ImageData(frame.pixels, h.w, h.h), h.x || 0, h.y || 0);
          }
          this.previewDrawn(h);
        }
        for (const listener of this.doneListeners) listener(h);
      });
    }

    drawPreviewFrame(header, bitmap) {
      this.ensurePreviewSize(header.previewWidth, header.previewHeight);
      if (header.draft) {
        this.showDraft(bitmap);
        this.previewDrawn(header);
        return;
      }
      this.leaveDraft(header);
      const w = header.w || bitmap.width, h = header.h || bitmap.height;
      this.ctx.drawImage(bitmap.source, header.x || 0, header.y || 0, w, h);
      this.previewDrawn(header);
    }

    /**
     * A draft stays at its own few pixels: scaling it up is the compositor's job, so the page
     * copies a ninth of the pixels per frame instead of the whole preview.
     */
    showDraft(bitmap) {
      this.draftContext(bitmap.width, bitmap.height).drawImage(bitmap.source, 0, 0);
    }

    /** A draft as raw pixels (from a server on this machine): the same, with no decoder on the way. */
    showRawDraft(image) {
      this.draftContext(image.width, image.height).putImageData(image, 0, 0);
    }

    /** #draft-canvas shown, at the draft's own size (resized first: resizing clears it). */
    draftContext(width, height) {
      const d = this.draftCanvas;
      if (d.width !== width || d.height !== height) { d.width = width; d.height = height; }
      d.hidden = false;
      return this.draftCtx;
    }

    /**
     * Before a sharp frame lands: a full one simply replaces the draft; a region would land
     * under it, so the draft is first copied (stretched) into the preview it stands for.
     */
    leaveDraft(header) {
      if (this.draftCanvas.hidden) return;
      const full = !(header.x || 0) && !(header.y || 0) && header.w === this.canvas.width && header.h === this.canvas.height;
      if (!full) this.ctx.drawImage(this.draftCanvas, 0, 0, this.canvas.width, this.canvas.height);
      this.draftCanvas.hidden = true;
    }

    /** Bookkeeping once a preview frame is on the canvas. */
    previewDrawn(header) {
      const now = performance.now();   // right after drawing: the latency end point
      S.stats.frameDrawn(header.batch, now);
      this.confirmTail(header.batch);
      for (const listener of this.previewListeners) listener(header);
    }

    /** A new preview size (viewport change, new photo): keep the old picture, scaled, until the full frame lands. */
    ensurePreviewSize(width, height) {
      if (!width || !height || (this.canvas.width === width && this.canvas.height === height)) return;
      let old = null;
      if (this.canvas.width > 1) {
        old = document.createElement("canvas");
        old.width = this.canvas.width;
        old.height = this.canvas.height;
        old.getContext("2d").drawImage(this.canvas, 0, 0);
      }
      this.canvas.width = width;
      this.canvas.height = height;
      if (old) this.ctx.drawImage(old, 0, 0, width, height);
      this.rect = null;
      this.scheduleOverlay();
    }

    drawCameraFrame(header, bitmap) {
      if (this.cameraCanvas.width !== bitmap.width || this.cameraCanvas.height !== bitmap.height) {
        this.cameraCanvas.width = bitmap.width;
        this.cameraCanvas.height = bitmap.height;
      }
      this.cameraCtx.drawImage(bitmap.source, 0, 0);
      S.stats.frameDrawn(header.batch, performance.now());
      for (const listener of this.cameraFrameListeners) listener(header);
    }

    showCamera(on) {
      this.cameraCanvas.hidden = !on;
      if (on) this.cameraCtx.clearRect(0, 0, this.cameraCanvas.width, this.cameraCanvas.height);
    }

    // ---- the provisional tail ---------------------------------------------------------------

    /** Starts a provisional tail in `color` for a new stroke. */
    tailBegin(color) {
      this.tail = { points: [], predicted: [], color, endedAt: 0 };
      this.scheduleOverlay();
    }

    /** Real samples (document px) of pen batch `batch`, shown until a frame covering the batch is drawn. */
    tailAdd(samples, batch, predicted) {
      for (const s of samples) this.tail.points.push({ x: s.x, y: s.y, batch });
      this.tail.predicted = predicted || [];
      this.scheduleOverlay();
    }

    /** Newer predicted samples (document px) for the tail's faint end. */
    tailPredict(predicted) {
      this.tail.predicted = predicted || [];
      this.scheduleOverlay();
    }

    tailEnd() {
      this.tail.predicted = [];
      this.tail.endedAt = performance.now();
      this.scheduleOverlay();
    }

    tailClear() {
      this.tail.points = [];
      this.tail.predicted = [];
      this.scheduleOverlay();
    }

    /** Drops the points the server has drawn, keeping the last one so the tail stays joined to the stroke. */
    confirmTail(batch) {
      const points = this.tail.points;
      if (typeof batch !== "number" || !points.length) return;
      let drawn = 0;
      while (drawn < points.length && points[drawn].batch <= batch) drawn++;
      if (drawn === 0) return;
      const rest = points.slice(drawn - 1);
      // Once the pen is up and everything is drawn, nothing provisional remains.
      this.tail.points = this.tail.endedAt && rest.length === 1 ? [] : rest;
      this.scheduleOverlay();
    }

    // ---- the virtual pencil --------------------------------------------------------------

    /** pose: {visible, x, y (document px), altitude, azimuth}; the pencil fades in and out over 0.25 s. */
    setPencil(pose) {
      if (pose.visible) Object.assign(this.pencil, { x: pose.x, y: pose.y, altitude: pose.altitude, azimuth: pose.azimuth });
      this.pencil.visible = !!pose.visible;
      this.scheduleOverlay();
    }

    // ---- overlay rendering ---------------------------------------------------------------

    renderOverlay(time) {
      let again = this.renderTail();
      again = this.renderPencil(time) || again;
      if (again) this.scheduleOverlay();
    }

    /**
     * Whether the mode draws strokes. Elsewhere #overlay is hidden while it holds nothing, so the
     * compositor has no stage-sized layer to blend over a changing photo; in the drawing modes it
     * stays shown (bringing a hidden stage-sized layer back costs a stroke's first frames).
     */
    setTailMode(on) {
      this.tailMode = on;
      this.overlay.hidden = !on && !this.overlayInked;
    }

    /** The provisional tail on #overlay. */
    renderTail() {
      const ctx = this.overlayCtx;
      if (this.overlayInked) {
        const r = this.stage.getBoundingClientRect();
        ctx.clearRect(0, 0, r.width, r.height);
        this.overlayInked = false;
      }
      const again = this.docWidth ? this.drawTail(ctx) : false;
      this.overlayInked = this.docWidth > 0 && this.tail.points.length > 0;
      this.overlay.hidden = !this.tailMode && !this.overlayInked;
      return again;
    }

    /** Thin line through the unconfirmed real samples, then fainter through the predicted ones. */
    drawTail(ctx) {
      const tail = this.tail;
      if (tail.endedAt && performance.now() - tail.endedAt > TAIL_TIMEOUT_MS) tail.points = [];
      if (!tail.points.length) return false;
      ctx.save();
      // Predictions can overshoot the photo; the tail stays on it, like the ink will.
      const img = this.imageRect(), box = this.stageRect();
      ctx.beginPath();
      ctx.rect(img.left - box.left, img.top - box.top, img.width, img.height);
      ctx.clip();
      ctx.lineCap = "round";
      ctx.lineJoin = "round";
      ctx.strokeStyle = tail.color;
      ctx.lineWidth = 2;
      ctx.globalAlpha = 0.9;
      this.polyline(ctx, tail.points);
      if (tail.predicted.length) {
        ctx.globalAlpha = 0.45;
        ctx.lineWidth = 1.5;
        this.polyline(ctx, [tail.points[tail.points.length - 1]].concat(tail.predicted));
      }
      ctx.restore();
      return !!tail.endedAt;   // keep checking the timeout after pen up
    }

    polyline(ctx, points) {
      ctx.beginPath();
      points.forEach((p, i) => {
        const q = this.docToStage(p.x, p.y);
        if (i === 0) ctx.moveTo(q.x, q.y); else ctx.lineTo(q.x, q.y);
      });
      if (points.length === 1) {
        const q = this.docToStage(points[0].x, points[0].y);
        ctx.lineTo(q.x + 0.01, q.y);
      }
      ctx.stroke();
    }

    /**
     * The pencil on its own canvas, just big enough for the pencil in its current pose (see
     * S.pencilBounds), placed by a transform. The canvas keeps its size while the pencil fits and
     * does not leave much of it empty, so a moving pen rarely reallocates it.
     */
    renderPencil(time) {
      const again = this.advancePencilFade(time);
      const p = this.pencil, c = this.pencilCanvas;
      if (p.opacity <= 0 || !this.docWidth) { c.hidden = true; return again; }
      const at = this.docToStage(p.x, p.y);
      const box = this.stageRect();
      const length = S.util.clamp(0.32 * Math.min(box.width, box.height), 110, 300);
      const bounds = (this.pencilGL ? S.PencilGL.bounds : S.pencilBounds)(at.x, at.y, p.altitude, p.azimuth, length);
      const dpr = window.devicePixelRatio || 1;
      const x0 = Math.floor(bounds.left), y0 = Math.floor(bounds.top);
      const width = Math.ceil((Math.ceil(bounds.right) - x0) * dpr), height = Math.ceil((Math.ceil(bounds.bottom) - y0) * dpr);
      if (c.width < width || c.height < height || c.width > width + 96 || c.height > height + 96 || this.pencilDpr !== dpr) {
        c.width = width + 32;
        c.height = height + 32;
        c.style.width = `${c.width / dpr}px`;
        c.style.height = `${c.height / dpr}px`;
        this.pencilDpr = dpr;
      }
      const opacity = easeInOut(p.opacity);
      if (this.pencilGL) {
        this.pencilGL.draw((at.x - x0) * dpr, (at.y - y0) * dpr, p.altitude, p.azimuth, opacity, length * dpr);
      } else {
        const ctx = this.pencilCtx;
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.clearRect(0, 0, c.width, c.height);
        ctx.setTransform(dpr, 0, 0, dpr, -x0 * dpr, -y0 * dpr);
        S.drawPencil(ctx, at.x, at.y, p.altitude, p.azimuth, opacity, length);
      }
      c.style.transform = `translate(${x0}px, ${y0}px)`;
      c.hidden = false;
      return again;
    }

    /**
     * The pencil's canvas and how it is drawn: WebGL (S.PencilGL) if `webgl` and the browser
     * gives a context, else the 2D canvas (S.drawPencil). A lost WebGL context (a backgrounded
     * tab on iPad) drops to 2D on a fresh canvas: a canvas keeps the kind of context it first gave.
     */
    setUpPencil(canvas, webgl) {
      this.pencilCanvas = canvas;
      this.pencilGL = webgl ? S.PencilGL.create(canvas) : null;
      canvas.dataset.renderer = this.pencilGL ? "webgl" : "2d";   // which one draws it, for a look from outside
      if (this.pencilGL) {
        canvas.addEventListener("webglcontextlost", () => {
          const fresh = canvas.cloneNode(false);
          canvas.replaceWith(fresh);
          this.setUpPencil(fresh, false);
          this.scheduleOverlay();
        }, { once: true });
        this.pencilCtx = null;
        return;
      }
      this.pencilCtx = canvas.getContext("2d");
      if (!this.pencilCtx) {
        // A WebGL context that failed to set up still owns the canvas.
        const fresh = canvas.cloneNode(false);
        canvas.replaceWith(fresh);
        fresh.dataset.renderer = "2d";
        this.pencilCanvas = fresh;
        this.pencilCtx = fresh.getContext("2d");
      }
    }

    /** Advances the pencil's 0.25 s fade; true while it is still fading. */
    advancePencilFade(time) {
      const p = this.pencil;
      const target = p.visible ? 1 : 0;
      if (p.opacity !== target) {
        // Fading: advance by the real frame time (the first frame of a fade only starts the clock).
        if (p.lastTime) {
          const step = Math.min(0.1, (time - p.lastTime) / 1000) / PENCIL_FADE_S;
          p.opacity = target > p.opacity ? Math.min(1, p.opacity + step) : Math.max(0, p.opacity - step);
        }
        p.lastTime = time;
      } else {
        p.lastTime = 0;
      }
      return p.opacity !== target;
    }
  }

  function easeInOut(t) { return t * t * (3 - 2 * t); }

  S.View = View;
})(window.Sfumato);
