"use strict";
// Pointer input on #canvas: every coalesced sample goes to the server, one batch per move event as the
// browser delivers them (pointerrawupdate as the input arrives where the browser has it, else pointermove
// once per frame; never more than one batch per 4 ms), "down" and "up" immediately; predicted samples
// ride along and feed the provisional tail.
// In the gallery the same pointer drags are swipes instead. Palm rejection drops touches in pen-only mode;
// otherwise a finger draws once it is clearly alone (see TOUCH_DELAY_MS), so two fingers are a gesture.
// A pen that hovers (Apple Pencil on iPadOS 16.4+: moves with no button) drives the virtual pencil and
// Shade's threshold indicator through hooks.hover, and never draws.
(function (S) {
  const SWIPE_MIN_PX = 50;        // a swipe is a drag longer than this (CSS px)...
  const SWIPE_DOMINANCE = 1.5;    // ...along one axis by at least this factor over the other
  const MIN_BATCH_INTERVAL_MS = 4; // pen batches at most 250 per second, whatever the browser delivers
  // A finger's stroke starts once it has been down this long or moved this far with no second finger:
  // a pinch or a two-finger tap never leaves a mark.
  const TOUCH_DELAY_MS = 120;
  const TOUCH_SLOP_PX = 12;
  // Azimuth from whole-degree tilt follows each reading by a gain growing as the tilt's square, full
  // from this tilt (degrees) on: see steadyAngles.
  const STEADY_TILT_DEG = 8;
  // A mouse or a finger has no tilt: in Adjust it steers by the drag from where it went down, as if
  // leaning a pen that way, fully (flat on the paper) this far (CSS px) away.
  const DRAG_LEAN_PX = 240;

  class PenInput {
    /**
     * hooks: mode(), penOnly(), penSeen(), sendsPen(), expectsPixels(), tailColor(sample) -> css | null,
     *        pencilFollows() -> bool, steersByDrag() -> bool, swipe(direction), strokeEnded(), hover(sample),
     *        hoverEnd()
     */
    constructor({ view, connection, hooks }) {
      this.view = view;
      this.connection = connection;
      this.hooks = hooks;
      this.canvas = view.canvas;
      this.strokeId = 0;        // per page, increasing
      this.batchId = 0;         // page-wide, increasing; frames echo the highest batch they include
      this.active = null;       // the stroke in progress: {pointerId, stroke, pending, predicted, tracks, pencil}
      this.swipe = null;        // the gallery drag in progress: {pointerId, x0, y0, x, y}
      this.pressureMice = new Set();   // pointers reported as a mouse that send pressure (see kindOf)
      this.azimuths = new Map();       // pointerId -> the steadied azimuth from tilt (see steadyAngles)
      this.waitingTouch = null;        // a finger not yet drawing: {pointerId, x0, y0, samples, timer}
      this.dragOrigin = null;          // where the pointer in use went down: {pointerId, x, y} (client px)
      // Moves go out as soon as the browser delivers them (see listen). Holding them for
      // requestAnimationFrame instead cost 4-7 ms of pen-to-pixels latency for most samples (the
      // frame clock and the input arrive out of phase). A browser that delivers moves faster than
      // MIN_BATCH_INTERVAL_MS is held to one batch per interval; what arrives in between goes out
      // when the interval ends.
      this.lastSend = -Infinity;
      this.flushTimer = 0;
      this.listen();
    }

    listen() {
      const c = this.canvas;
      c.addEventListener("pointerdown", (e) => this.down(e));
      // Where the browser has pointerrawupdate (Chromium), samples are taken from it: it is
      // dispatched as soon as the input arrives, while pointermove waits for the next animation
      // frame (half a frame of pen-to-pixels latency on average, a whole one at worst). pointermove
      // then only brings the predicted samples, which pointerrawupdate does not carry.
      this.rawUpdates = "onpointerrawupdate" in window;
      if (this.rawUpdates) c.addEventListener("pointerrawupdate", (e) => this.move(e, true));
      c.addEventListener("pointermove", (e) => this.move(e, !this.rawUpdates));
      c.addEventListener("pointerup", (e) => this.up(e, "up"));
      c.addEventListener("pointercancel", (e) => this.up(e, "cancel"));
      c.addEventListener("pointerleave", (e) => {
        this.azimuths.delete(e.pointerId);
        if (!this.active && this.kindOf(e) === "pen") this.hooks.hoverEnd();
      });
      // If capture is lost without an up (element hidden, tab switch), the stroke must still end.
      c.addEventListener("lostpointercapture", (e) => {
        if (this.active && this.active.pointerId === e.pointerId) this.up(e, "cancel");
        if (this.swipe && this.swipe.pointerId === e.pointerId) this.swipe = null;
      });
      // Long-press menus and the barrel button's context menu would interrupt drawing.
      c.addEventListener("contextmenu", (e) => e.preventDefault());
    }

    // ---- samples ---------------------------------------------------------------------------

    /** A protocol sample from a pointer event (positions in document pixels). */
    sample(event, coalesced) {
      const at = this.view.clientToDoc(event.clientX, event.clientY);
      if (!at) return null;
      const pointerType = this.kindOf(event);
      const { altitude, azimuth } = pointerType !== "pen" && this.hooks.steersByDrag && this.hooks.steersByDrag()
        ? this.dragAngles(event) : this.steadyAngles(event, S.util.penAngles(event));
      let pressure = event.pressure;
      // Hardware without pressure reports 0.5 while pressed; a few browsers report 0 for such touches.
      if (pointerType !== "pen" && pressure === 0 && (event.buttons & 1)) pressure = 0.5;
      return {
        x: at.x, y: at.y, pressure, altitude, azimuth,
        twist: event.twist || 0,
        tangentialPressure: event.tangentialPressure || 0,
        pointerType,
        buttons: event.buttons,
        t: event.timeStamp,
        coalesced,
      };
    }

    /**
     * Angles for a pointer with no tilt, from its drag: leaning toward where it moved, by
     * 90 degrees x distance / DRAG_LEAN_PX at most (upright where it went down).
     */
    dragAngles(event) {
      const o = this.dragOrigin;
      if (!o || o.pointerId !== event.pointerId) return { altitude: Math.PI / 2, azimuth: 0 };
      const dx = event.clientX - o.x, dy = event.clientY - o.y;
      const d = Math.hypot(dx, dy);
      if (!(d > 0)) return { altitude: Math.PI / 2, azimuth: 0 };
      const lean = Math.min(1, d / DRAG_LEAN_PX) * Math.PI / 2;
      // Pointer Events' azimuth: 0 toward +x, growing toward +y (clockwise on screen).
      return { altitude: Math.PI / 2 - lean, azimuth: (Math.atan2(dy, dx) + 2 * Math.PI) % (2 * Math.PI) };
    }

    /**
     * The event's pointer type, except that a "mouse" whose pressure varies is a pen: Firefox on
     * Linux reports some Wacom pens as a mouse (Mozilla bug 1606832) but passes their pressure on,
     * and a mouse only ever reports 0 or 0.5. Once seen, that pointer stays a pen.
     */
    kindOf(event) {
      const type = event.pointerType || "mouse";
      if (type !== "mouse") return type;
      const p = event.pressure;
      if ((event.buttons & 1) && p > 0 && p !== 0.5 && p <= 1) this.pressureMice.add(event.pointerId);
      return this.pressureMice.has(event.pointerId) ? "pen" : "mouse";
    }

    /**
     * The pen's angles, with the azimuth steadied where it comes from whole-degree tilt (Safari
     * before 18.2 has no angle pair): near upright a tilt of (1, 0) against (0, 1) is a quarter turn
     * of azimuth, and Adjust's hue follows the azimuth. Such an azimuth moves toward each reading by
     * min(1, (tilt / STEADY_TILT_DEG)^2) of the way: it holds still while the pen stands up and follows
     * a leaning pen at once. An angle pair from the browser is used as it is.
     */
    steadyAngles(event, angles) {
      if (typeof event.azimuthAngle === "number") return angles;
      const id = event.pointerId;
      const last = this.azimuths.get(id);
      // A reading that is not a number (a broken driver) neither moves nor poisons what is kept.
      if (!Number.isFinite(angles.azimuth)) return { altitude: angles.altitude, azimuth: last === undefined ? 0 : last };
      if (last === undefined) {
        this.azimuths.set(id, angles.azimuth);
        return angles;
      }
      const tilt = Math.hypot(event.tiltX || 0, event.tiltY || 0) || 0;   // NaN tilt: hold still
      const gain = Math.min(1, (tilt / STEADY_TILT_DEG) ** 2);
      let turn = angles.azimuth - last;
      turn -= 2 * Math.PI * Math.round(turn / (2 * Math.PI));   // the short way round
      const azimuth = ((last + gain * turn) % (2 * Math.PI) + 2 * Math.PI) % (2 * Math.PI);
      this.azimuths.set(id, azimuth);
      return { altitude: angles.altitude, azimuth };
    }

    /** Every sample merged into this event (the event itself is the last one), oldest first. */
    coalescedSamples(event) {
      let events = event.getCoalescedEvents ? event.getCoalescedEvents() : null;
      if (!events || !events.length) events = [event];
      const samples = [];
      events.forEach((e, i) => {
        const s = this.sample(e, i < events.length - 1);
        if (s) samples.push(s);
      });
      return samples;
    }

    predictedSamples(event) {
      const events = event.getPredictedEvents ? event.getPredictedEvents() : [];
      const samples = [];
      for (const e of events) {
        const s = this.sample(e, false);
        if (s) samples.push(s);
      }
      return samples;
    }

    // ---- pointer events ----------------------------------------------------------------------

    down(event) {
      if (this.active || this.swipe || this.waitingTouch) return;   // one pointer at a time
      if (event.pointerType === "mouse" && event.button !== 0) return;
      if (this.kindOf(event) === "pen") this.hooks.penSeen();   // pen-only mode counts a pen reported as a mouse
      // Gallery: drags are swipes, fingers included (palm rejection is for drawing).
      if (this.hooks.mode() === "gallery") {
        this.swipe = { pointerId: event.pointerId, x0: event.clientX, y0: event.clientY };
        this.capture(event);
        event.preventDefault();
        return;
      }
      if (event.pointerType === "touch" && this.hooks.penOnly()) return;   // palm rejection
      // While disconnected nothing can be drawn; a stroke begun now would reach the next session half-made.
      if (!this.hooks.sendsPen() || !this.connection.isOpen) return;
      this.dragOrigin = { pointerId: event.pointerId, x: event.clientX, y: event.clientY };
      const first = this.sample(event, false);
      if (!first) return;
      event.preventDefault();
      this.capture(event);
      if (event.pointerType === "touch") {
        // A finger waits to be sure it is alone (see TOUCH_DELAY_MS); its samples are kept meanwhile.
        const waiting = { pointerId: event.pointerId, x0: event.clientX, y0: event.clientY, samples: [first] };
        waiting.timer = setTimeout(() => this.startWaitingTouch(), TOUCH_DELAY_MS);
        this.waitingTouch = waiting;
        return;
      }
      this.begin(event.pointerId, first);
    }

    /** The waiting finger is alone: its stroke begins with what it has collected. */
    startWaitingTouch() {
      const w = this.waitingTouch;
      if (!w) return;
      clearTimeout(w.timer);
      this.waitingTouch = null;
      if (!this.hooks.sendsPen() || !this.connection.isOpen) return;
      this.begin(w.pointerId, w.samples[0]);
      if (w.samples.length > 1) {
        this.active.pending.push(...w.samples.slice(1));
        this.flushSoon();
      }
    }

    /** A second finger landed: a waiting finger never draws, and a gallery drag is no swipe. */
    yieldToGesture() {
      if (this.waitingTouch) {
        clearTimeout(this.waitingTouch.timer);
        this.waitingTouch = null;
      }
      this.swipe = null;
    }

    /** Starts a stroke with its first sample (sent as "down") and any more (sent as moves). */
    begin(pointerId, first) {
      const stroke = ++this.strokeId;
      this.active = {
        pointerId, stroke, pending: [], predicted: [],
        tracks: this.hooks.expectsPixels(),
        tailColor: this.hooks.tailColor(first),
      };
      if (this.active.tailColor) this.view.tailBegin(this.active.tailColor);
      this.send("down", [first], []);
      this.followPencil(first);
    }

    /** A move event; `withSamples` false: a pointermove whose samples came by pointerrawupdate. */
    move(event, withSamples) {
      if (this.swipe && this.swipe.pointerId === event.pointerId) return;
      const w = this.waitingTouch;
      if (w && w.pointerId === event.pointerId) {
        if (withSamples) w.samples.push(...this.coalescedSamples(event));
        if (Math.hypot(event.clientX - w.x0, event.clientY - w.y0) > TOUCH_SLOP_PX) this.startWaitingTouch();
        return;
      }
      const a = this.active;
      if (!a && event.type === "pointermove" && !(event.buttons & 1) && this.kindOf(event) === "pen") {
        // A hovering pen: it shows where it would draw, and never draws.
        const s = this.sample(event, false);
        if (s) this.hooks.hover(s);
        return;
      }
      if (!a || a.pointerId !== event.pointerId) return;
      if (event.type === "pointermove") {
        // Predictions only feed the provisional tail: a stroke without one (Adjust) skips them.
        a.predicted = a.tailColor ? this.predictedSamples(event) : [];
        if (!withSamples) {
          // The predictions go out with the next batch; the tail shows them now. (Its coalesced
          // samples are the raw ones again: taking those "newer than the last raw sample" as a
          // safety net sent some samples twice in Chromium, 113-123 a 101-sample stroke.)
          if (a.tailColor) this.view.tailPredict(a.predicted);
          return;
        }
      }
      const samples = this.coalescedSamples(event);
      if (!samples.length) return;
      a.pending.push(...samples);
      this.followPencil(samples[samples.length - 1]);
      this.flushSoon();
    }

    /** Sends the pending moves now, or when MIN_BATCH_INTERVAL_MS has passed since the last batch. */
    flushSoon() {
      if (this.flushTimer) return;
      const wait = this.lastSend + MIN_BATCH_INTERVAL_MS - performance.now();
      if (wait <= 0) { this.flushNow(); return; }
      this.flushTimer = setTimeout(() => {
        this.flushTimer = 0;
        // Checked again on performance.now's clock: the timer's own clock may end the wait a little early.
        if (this.active && this.active.pending.length) this.flushSoon();
      }, Math.ceil(wait));   // whole milliseconds: a timer rounded down could fire before the interval ends
    }

    up(event, phase) {
      if (this.swipe && this.swipe.pointerId === event.pointerId) {
        this.finishSwipe(event);
        return;
      }
      const w = this.waitingTouch;
      if (w && w.pointerId === event.pointerId) {
        // A quick tap of one finger: a dot, as the pen would make. A cancelled touch leaves nothing.
        if (phase === "up") this.startWaitingTouch(); else this.yieldToGesture();
      }
      const a = this.active;
      if (!a || a.pointerId !== event.pointerId) return;
      // The up event itself is not a sample (its pressure is 0); pending moves go with it.
      this.send(phase, a.pending, []);
      a.pending = [];
      this.active = null;
      if (a.tailColor) this.view.tailEnd();
      if (this.hooks.pencilFollows()) this.view.setPencil({ visible: false });
      this.hooks.strokeEnded();
    }

    /** Everything collected since the last message, in order. */
    flushNow() {
      const a = this.active;
      const samples = a.pending;
      a.pending = [];
      // Predictions from an earlier pointermove that these samples have overtaken are dropped.
      const newest = samples.length ? samples[samples.length - 1].t : -Infinity;
      this.send("move", samples, a.predicted.filter((p) => p.t > newest));
    }

    send(phase, samples, predicted) {
      const a = this.active;
      const batch = ++this.batchId;
      this.lastSend = performance.now();
      const sent = this.connection.send({ type: S.protocol.client.pen, phase, stroke: a.stroke, batch, samples, predicted });
      if (!sent) return;
      if (a.tracks) S.stats.track(batch, samples.map((s) => s.t));
      if (a.tailColor && samples.length) {
        // The force pen's hue follows the pressure: the tail takes the newest sample's colour.
        this.view.tail.color = this.hooks.tailColor(samples[samples.length - 1]) || a.tailColor;
        this.view.tailAdd(samples, batch, predicted);
      }
    }

    /** The page's own last sample drives the virtual pencil: no round trip. */
    followPencil(sample) {
      if (!this.hooks.pencilFollows()) return;
      this.view.setPencil({ visible: true, x: sample.x, y: sample.y, altitude: sample.altitude, azimuth: sample.azimuth });
    }

    capture(event) {
      try { this.canvas.setPointerCapture(event.pointerId); } catch (_) { /* pointer already gone */ }
    }

    /** The connection dropped: the server ends the stroke itself; later moves of this pointer are ignored. */
    abort() {
      this.yieldToGesture();
      if (this.active && this.active.tailColor) this.view.tailClear();
      this.active = null;
    }

    get drawing() { return !!this.active; }

    // ---- gallery swipes ------------------------------------------------------------------------

    finishSwipe(event) {
      const { x0, y0 } = this.swipe;
      this.swipe = null;
      const dx = event.clientX - x0, dy = event.clientY - y0;
      const ax = Math.abs(dx), ay = Math.abs(dy);
      if (ax > SWIPE_MIN_PX && ax > SWIPE_DOMINANCE * ay) this.hooks.swipe(dx < 0 ? "left" : "right");
      else if (ay > SWIPE_MIN_PX && ay > SWIPE_DOMINANCE * ax) this.hooks.swipe(dy < 0 ? "up" : "down");
    }
  }

  S.PenInput = PenInput;
})(window.Sfumato);
