"use strict";
// Finger gestures on the stage, as pen users know them from Procreate: two fingers pinch to zoom and
// pan the view (the document's pixels, not the page), a two-finger tap undoes, a three-finger tap
// redoes. Nothing here draws; while a pen (or a finger already drawing) is down, fingers are ignored.
// Desktop: ctrl + wheel (a trackpad's pinch) zooms about the pointer, the wheel pans a zoomed view.
(function (S) {
  const TAP_MS = 300;          // a tap: every finger up within this time of the first one down...
  const TAP_SLOP_PX = 12;      // ...none having moved further than this (CSS px)
  const SNAP_TO_FIT = 1.04;    // a pinch that ends this close to the fitted view fits it exactly
  const WHEEL_ZOOM = 0.0025;   // zoom per wheel delta pixel with ctrl (the browser's pinch on a trackpad)

  class TouchGestures {
    /** hooks: undo(), redo(), drawing() -> bool (a stroke in progress), gestureStarted() */
    constructor({ view, hooks }) {
      this.view = view;
      this.hooks = hooks;
      this.touches = new Map();   // pointerId -> {x, y, x0, y0}
      this.tap = null;            // {start, fingers, moved}: the touches so far, while they may be a tap
      this.pinch = null;          // {ids: [a, b], distance, mid, scale, x, y}: the view when the pinch began
      const c = view.canvas;
      c.addEventListener("pointerdown", (e) => this.down(e));
      c.addEventListener("pointermove", (e) => this.move(e));
      c.addEventListener("pointerup", (e) => this.up(e, true));
      c.addEventListener("pointercancel", (e) => this.up(e, false));
      c.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
    }

    down(event) {
      if (event.pointerType !== "touch") return;
      if (this.hooks.drawing()) return;   // a pen, or a finger already drawing, is down
      this.touches.set(event.pointerId, { x: event.clientX, y: event.clientY, x0: event.clientX, y0: event.clientY });
      if (this.touches.size === 1) {
        this.tap = { start: event.timeStamp, fingers: 1, moved: false };
        return;
      }
      this.hooks.gestureStarted();
      if (this.tap) this.tap.fingers = Math.max(this.tap.fingers, this.touches.size);
      if (this.touches.size === 2) this.beginPinch();
    }

    move(event) {
      const t = this.touches.get(event.pointerId);
      if (!t) return;
      t.x = event.clientX;
      t.y = event.clientY;
      if (this.tap && Math.hypot(t.x - t.x0, t.y - t.y0) > TAP_SLOP_PX) this.tap.moved = true;
      if (this.pinch) this.updatePinch();
    }

    up(event, lifted) {
      if (!this.touches.delete(event.pointerId)) return;
      if (this.pinch && this.pinch.ids.includes(event.pointerId)) this.endPinch();
      if (this.touches.size) return;
      const tap = this.tap;
      this.tap = null;
      if (!lifted || !tap || tap.moved || event.timeStamp - tap.start > TAP_MS) return;
      if (tap.fingers === 2) this.hooks.undo();
      else if (tap.fingers === 3) this.hooks.redo();
    }

    // ---- pinch -----------------------------------------------------------------------------

    /** The two fingers' midpoint and distance, and the view when the pinch began. */
    beginPinch() {
      const ids = Array.from(this.touches.keys()).slice(0, 2);
      const [a, b] = ids.map((id) => this.touches.get(id));
      const z = this.view.zoom;
      this.pinch = {
        ids, distance: Math.max(1, Math.hypot(b.x - a.x, b.y - a.y)),
        mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }, scale: z.scale, x: z.x, y: z.y,
      };
    }

    /** The document point that was under the fingers' midpoint stays under it, scaled by their spread. */
    updatePinch() {
      const p = this.pinch;
      const [a, b] = p.ids.map((id) => this.touches.get(id));
      const scale = p.scale * Math.hypot(b.x - a.x, b.y - a.y) / p.distance;
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      const stage = this.view.stageRect();
      const m0x = p.mid.x - stage.left, m0y = p.mid.y - stage.top;
      const k = S.util.clamp(scale, 1, Infinity) / p.scale;
      this.view.setView(scale, mid.x - stage.left - (m0x - p.x) * k, mid.y - stage.top - (m0y - p.y) * k);
    }

    endPinch() {
      this.pinch = null;
      const s = this.view.zoom.scale;
      if (s > 1 && s < SNAP_TO_FIT) this.view.resetView();
    }

    // ---- wheel -----------------------------------------------------------------------------

    wheel(event) {
      if (event.ctrlKey) {
        event.preventDefault();
        this.view.zoomAbout(Math.exp(-event.deltaY * WHEEL_ZOOM), event.clientX, event.clientY);
      } else if (this.view.zoom.scale > 1) {
        event.preventDefault();
        this.view.panBy(-event.deltaX, -event.deltaY);
      }
    }
  }

  S.TouchGestures = TouchGestures;
})(window.Sfumato);
