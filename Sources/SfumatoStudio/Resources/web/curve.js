"use strict";
// Two small curve editors: the Tone Curve mode's five vertical sliders over the engine's spline, and the
// brushes' pressure curve (a few draggable points, linear between them).
(function (S) {
  const IDENTITY_LEVELS = [0, 0.25, 0.5, 0.75, 1];

  /** A canvas whose backing store follows its CSS size times devicePixelRatio; calls draw(ctx, w, h). */
  function hiDpiCanvas(canvas, draw) {
    const ctx = canvas.getContext("2d");
    let width = 0, height = 0;
    function redraw() {
      if (!width || !height) return;
      const dpr = window.devicePixelRatio || 1;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, height);
      draw(ctx, width, height);
    }
    new ResizeObserver(() => {
      const r = canvas.getBoundingClientRect();
      const dpr = window.devicePixelRatio || 1;
      width = r.width; height = r.height;
      canvas.width = Math.max(1, Math.round(width * dpr));
      canvas.height = Math.max(1, Math.round(height * dpr));
      redraw();
    }).observe(canvas);
    return redraw;
  }

  function drawGrid(ctx, x0, y0, w, h, divisions) {
    ctx.strokeStyle = "rgba(255,255,255,0.08)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let i = 0; i <= divisions; i++) {
      const x = Math.round(x0 + w * i / divisions) + 0.5, y = Math.round(y0 + h * i / divisions) + 0.5;
      ctx.moveTo(x, y0); ctx.lineTo(x, y0 + h);
      ctx.moveTo(x0, y); ctx.lineTo(x0 + w, y);
    }
    ctx.stroke();
    ctx.setLineDash([3, 4]);
    ctx.strokeStyle = "rgba(255,255,255,0.18)";
    ctx.beginPath();
    ctx.moveTo(x0, y0 + h); ctx.lineTo(x0 + w, y0);
    ctx.stroke();
    ctx.setLineDash([]);
  }

  // ---- the tone curve editor --------------------------------------------------------------------

  class CurveEditor {
    /** onChange(levels, final): final=false while dragging (preview), true on release (commit). */
    constructor({ onChange }) {
      this.onChange = onChange;
      this.canvas = document.getElementById("curve-canvas");
      this.sliders = Array.from(document.querySelectorAll("[data-curve-point]"))
        .sort((a, b) => a.dataset.curvePoint - b.dataset.curvePoint);
      this.levels = IDENTITY_LEVELS.slice();
      this.samples = null;           // the engine's f at 256 points, for `samplesFor`
      this.samplesFor = null;        // the levels those samples belong to
      this.dragging = false;
      this.fetching = false;
      this.redraw = hiDpiCanvas(this.canvas, (ctx, w, h) => this.draw(ctx, w, h));
      // The sliders are rotated horizontal ranges (style.css): their length is the plot's height.
      const box = this.canvas.parentElement, track = box.querySelector(".curve-sliders");
      new ResizeObserver(() => track.style.setProperty("--track", `${box.getBoundingClientRect().height}px`)).observe(box);
      this.listen();
    }

    listen() {
      for (const slider of this.sliders) {
        const i = Number(slider.dataset.curvePoint);
        slider.addEventListener("pointerdown", () => { this.dragging = true; });
        // A press without a move fires no change event: stop deferring to the user anyway.
        for (const type of ["pointerup", "pointercancel"]) {
          slider.addEventListener(type, () => setTimeout(() => { this.dragging = false; }, 0));
        }
        slider.addEventListener("input", () => {
          this.dragging = true;
          this.levels[i] = Number(slider.value);
          this.onChange(this.levels.slice(), false);
          this.fetchSamples();
          this.redraw();
        });
        // `change` comes on release (and after keyboard steps): commit the value.
        slider.addEventListener("change", () => {
          this.dragging = false;
          this.levels[i] = Number(slider.value);
          this.onChange(this.levels.slice(), true);
          this.fetchSamples();
        });
      }
      document.getElementById("curve-reset").addEventListener("click", () => {
        this.levels = IDENTITY_LEVELS.slice();
        this.sliders.forEach((s, i) => { s.value = String(this.levels[i]); });
        this.onChange(this.levels.slice(), true);
        this.fetchSamples();
      });
    }

    /** The server's curve state (ignored while the user is dragging: their values are newer). */
    setState(curve) {
      if (!curve) return;
      if (!this.dragging && Array.isArray(curve.levels) && curve.levels.length === 5) {
        this.levels = curve.levels.slice();
        this.sliders.forEach((s, i) => { s.value = String(this.levels[i]); });
      }
      if (Array.isArray(curve.samples) && curve.samples.length >= 2) {
        this.samples = curve.samples;
        this.samplesFor = curve.levels.slice();
      }
      this.redraw();
    }

    /**
     * The drawn curve is the engine's own spline, so while dragging the editor asks the server for it.
     * Latest wins: one request in flight; when it returns, ask again if the levels moved meanwhile.
     */
    async fetchSamples() {
      if (this.fetching) return;
      this.fetching = true;
      try {
        while (!sameLevels(this.samplesFor, this.levels)) {
          const levels = this.levels.slice();
          const answer = await S.util.api("/api/curve?levels=" + levels.map((v) => +v.toFixed(4)).join(","));
          if (answer && Array.isArray(answer.samples)) {
            this.samples = answer.samples;
            this.samplesFor = levels;
            this.redraw();
          } else break;
        }
      } catch (error) {
        console.warn("sfumato: curve samples", error);
      } finally {
        this.fetching = false;
      }
    }

    /** Plot area inset by half a slider thumb, so each thumb sits exactly on its control point. */
    plotArea(w, h) {
      const thumb = parseFloat(getComputedStyle(this.canvas.parentElement).getPropertyValue("--thumb")) || 28;
      return { x: thumb / 2, y: thumb / 2, w: w - thumb, h: h - thumb };
    }

    draw(ctx, w, h) {
      const a = this.plotArea(w, h);
      drawGrid(ctx, a.x, a.y, a.w, a.h, 4);
      const X = (u) => a.x + u * a.w, Y = (v) => a.y + (1 - v) * a.h;

      // The engine's curve (stale while a fresh one is on its way: then drawn fainter).
      if (this.samples) {
        const fresh = sameLevels(this.samplesFor, this.levels);
        ctx.strokeStyle = fresh ? "#f0c27a" : "rgba(240,194,122,0.55)";
        ctx.lineWidth = 2.5;
        ctx.lineJoin = "round";
        ctx.beginPath();
        const n = this.samples.length;
        this.samples.forEach((v, i) => {
          const px = X(i / (n - 1)), py = Y(S.util.clamp(v, 0, 1));
          if (i === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
        });
        ctx.stroke();
      }
      // The five control points (the slider thumbs sit on top of them).
      ctx.fillStyle = "rgba(240,194,122,0.35)";
      this.levels.forEach((v, i) => {
        ctx.beginPath();
        ctx.arc(X(i / 4), Y(v), 4, 0, 2 * Math.PI);
        ctx.fill();
      });
    }
  }

  function sameLevels(a, b) {
    if (!a || !b || a.length !== b.length) return false;
    return a.every((v, i) => Math.abs(v - b[i]) < 1e-6);
  }

  // ---- the pressure curve editor ------------------------------------------------------------------

  const MAX_POINTS = 6;
  const HIT_RADIUS = 16;   // CSS px: generous, for fingers

  class PressureCurveEditor {
    /** onChange(points) on release; points: [[x, y], ...] in 0...1, sorted by x, first x 0, last x 1. */
    constructor({ onChange }) {
      this.onChange = onChange;
      this.canvas = document.getElementById("pressure-curve");
      this.points = [[0, 0], [1, 1]];
      this.drag = null;
      this.lastTap = { time: 0, x: 0, y: 0 };
      this.redraw = hiDpiCanvas(this.canvas, (ctx, w, h) => this.draw(ctx, w, h));
      this.listen();
    }

    setPoints(points) {
      if (this.drag || !Array.isArray(points) || points.length < 2) return;
      this.points = points.map((p) => [Number(p[0]), Number(p[1])]);
      this.redraw();
    }

    area() {
      const r = this.canvas.getBoundingClientRect();
      const pad = 8;
      return { left: r.left + pad, top: r.top + pad, w: r.width - 2 * pad, h: r.height - 2 * pad, pad };
    }

    toCurve(event) {
      const a = this.area();
      return [S.util.clamp((event.clientX - a.left) / a.w, 0, 1), S.util.clamp(1 - (event.clientY - a.top) / a.h, 0, 1)];
    }

    nearest(event) {
      const a = this.area();
      let best = -1, bestDistance = HIT_RADIUS;
      this.points.forEach(([x, y], i) => {
        const d = Math.hypot(a.left + x * a.w - event.clientX, a.top + (1 - y) * a.h - event.clientY);
        if (d < bestDistance) { best = i; bestDistance = d; }
      });
      return best;
    }

    listen() {
      const c = this.canvas;
      c.addEventListener("pointerdown", (e) => {
        e.preventDefault();
        // Our own double-tap detection: dblclick is unreliable for touch with touch-action: none.
        const now = performance.now();
        const doubleTap = now - this.lastTap.time < 350 && Math.hypot(e.clientX - this.lastTap.x, e.clientY - this.lastTap.y) < 20;
        this.lastTap = { time: now, x: e.clientX, y: e.clientY };
        const hit = this.nearest(e);
        if (doubleTap) { this.toggleAt(e, hit); return; }
        if (hit < 0) return;
        this.drag = { index: hit, pointerId: e.pointerId };
        c.setPointerCapture(e.pointerId);
      });
      c.addEventListener("pointermove", (e) => {
        if (!this.drag || e.pointerId !== this.drag.pointerId) return;
        this.moveTo(this.drag.index, this.toCurve(e));
        this.redraw();
      });
      const end = (e) => {
        if (!this.drag || e.pointerId !== this.drag.pointerId) return;
        this.drag = null;
        this.onChange(this.points.map((p) => [round3(p[0]), round3(p[1])]));
      };
      c.addEventListener("pointerup", end);
      c.addEventListener("pointercancel", end);
    }

    /** End points keep x = 0 and x = 1; inner points stay between their neighbours; y stays in 0...1. */
    moveTo(index, [x, y]) {
      const last = this.points.length - 1;
      y = S.util.clamp(y, 0, 1);
      if (index === 0) x = 0;
      else if (index === last) x = 1;
      else x = S.util.clamp(x, this.points[index - 1][0] + 0.02, this.points[index + 1][0] - 0.02);
      this.points[index] = [x, y];
    }

    /** Double tap: on an inner point removes it; elsewhere adds one there. */
    toggleAt(event, hit) {
      if (hit > 0 && hit < this.points.length - 1) {
        this.points.splice(hit, 1);
      } else if (hit < 0 && this.points.length < MAX_POINTS) {
        const [x, y] = this.toCurve(event);
        const at = this.points.findIndex((p) => p[0] > x);
        if (at > 0 && x - this.points[at - 1][0] > 0.02 && this.points[at][0] - x > 0.02) this.points.splice(at, 0, [x, y]);
      } else return;
      this.redraw();
      this.onChange(this.points.map((p) => [round3(p[0]), round3(p[1])]));
    }

    draw(ctx, w, h) {
      const pad = 8, pw = w - 2 * pad, ph = h - 2 * pad;
      drawGrid(ctx, pad, pad, pw, ph, 2);
      const X = (u) => pad + u * pw, Y = (v) => pad + (1 - v) * ph;
      ctx.strokeStyle = "#f0c27a";
      ctx.lineWidth = 2;
      ctx.beginPath();
      this.points.forEach(([x, y], i) => { if (i === 0) ctx.moveTo(X(x), Y(y)); else ctx.lineTo(X(x), Y(y)); });
      ctx.stroke();
      for (const [x, y] of this.points) {
        ctx.beginPath();
        ctx.arc(X(x), Y(y), 4.5, 0, 2 * Math.PI);
        ctx.fillStyle = "#f0c27a";
        ctx.fill();
        ctx.strokeStyle = "rgba(0,0,0,0.6)";
        ctx.lineWidth = 1;
        ctx.stroke();
      }
    }
  }

  function round3(v) { return Math.round(v * 1000) / 1000; }

  S.CurveEditor = CurveEditor;
  S.PressureCurveEditor = PressureCurveEditor;
})(window.Sfumato);
