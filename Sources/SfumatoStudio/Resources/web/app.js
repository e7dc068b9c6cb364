"use strict";
// The studio page: wires the connection, the stage, pen input, the mode bar and the mode panels together.
// The server owns the document; the page sends intents and shows what comes back.
(function (S) {
  const { util } = S;
  const MODES = ["adjust", "sketch", "shade", "curve", "gallery"];
  const DRAWING_MODES = new Set(["sketch", "shade"]);
  const PEN_MODES = new Set(["adjust", "sketch", "shade"]);
  const HOLD_KEYS = { 1: "hue-saturation", 2: "brightness-contrast", 3: "gamma-exposure" };
  // After the user changes the mode or brush here, a server state saying otherwise is older news for a while.
  const LOCAL_WINS_MS = 1500;

  const state = {
    mode: "adjust",
    document: null,
    hold: null,                 // the held Adjust pair, and what holds it ("key:1", "pointer:7")
    holdSource: null,
    brush: { sketch: "force-pen", shade: "pencil" },
    color: "#336699",
    keepStrokes: false,
    pressureCurve: [[0, 0], [1, 1]],
    penOnly: false,
    penSeen: false,
    beforeAfter: false,
    presetIndex: 0,             // the gallery preset shown (the page's own while its change is on its way)
    lastLocalChange: { mode: -Infinity, brush: -Infinity, preset: -Infinity },
    lastViewport: "",
  };

  const $ = (selector) => document.querySelector(selector);
  const $$ = (selector) => Array.from(document.querySelectorAll(selector));

  // ---- the parts ----------------------------------------------------------------------------------

  const connection = new S.Connection({ onOpen, onMessage, onFrame, onClose });
  const view = new S.View({ onViewportChange: sendViewport });
  view.doneListeners.push((header) => connection.send({ type: S.protocol.client.drawn, seq: header.seq }));
  const camera = new S.Camera({ connection, view, onChange: (on) => setPressed($("#camera-toggle"), on) });
  const curveEditor = new S.CurveEditor({ onChange: (levels, final) => connection.send({ type: S.protocol.client.curve, levels, final }) });
  const pressureEditor = new S.PressureCurveEditor({
    onChange: (points) => { state.pressureCurve = points; sendBrush(); },
  });
  const pen = new S.PenInput({
    view, connection,
    hooks: {
      mode: () => state.mode,
      penOnly: () => state.penOnly,
      penSeen: penSeen,
      sendsPen: () => PEN_MODES.has(state.mode),
      // Only pen batches that will come back as pixels are timed (latency bookkeeping).
      expectsPixels: () => DRAWING_MODES.has(state.mode) || (state.mode === "adjust" && !!state.hold),
      tailColor: tailColor,
      pencilFollows: () => state.mode === "adjust" && !!state.hold,
      // A mouse or a finger steers Adjust's pairs by its drag (it has no tilt to lean).
      steersByDrag: () => state.mode === "adjust" && !!state.hold,
      swipe: onSwipe,
      strokeEnded: sendStatsSoon,
      hover: onHover,
      hoverEnd: () => { if (!pen.drawing) view.setPencil({ visible: false }); },
    },
  });
  new S.TouchGestures({
    view,
    hooks: { undo, redo, drawing: () => pen.drawing, gestureStarted: () => pen.yieldToGesture() },
  });

  // ---- connection ---------------------------------------------------------------------------------

  function onOpen(isReconnect) {
    setConnectionStatus("open");
    const vp = view.viewport();
    state.lastViewport = JSON.stringify(vp);
    // acks: the page confirms each preview frame once drawn (or skipped), so the server never
    // renders faster than this device can show.
    // rawRegions: a page on this machine takes small regions and drafts as raw pixels (no JPEG either end).
    connection.send({ type: S.protocol.client.hello, ...vp, acks: true, rawRegions: S.util.isLoopback() });
    // A fresh page takes the document's mode and brush from the first state; a reconnecting page
    // restores its own, since the server ended its session (and a stroke in progress) when it dropped.
    if (isReconnect) {
      connection.send({ type: S.protocol.client.mode, mode: state.mode });
      if (DRAWING_MODES.has(state.mode)) sendBrush();
      if (state.hold) connection.send({ type: S.protocol.client.hold, pair: state.hold });
      if (state.beforeAfter) connection.send({ type: S.protocol.client.beforeAfter, on: true });
      camera.announce();
    }
  }

  function onClose() {
    setConnectionStatus("closed");
    pen.abort();
    S.stats.dropPending();
    view.setPencil({ visible: false });
  }

  function onMessage(message) {
    switch (message.type) {
      case S.protocol.server.state: applyDocument(message.document); break;
      case S.protocol.server.label: showLabel(message.text); break;
      case S.protocol.server.pencil:
        // The page's own samples drive the pencil while it draws; the server's pose covers the rest.
        if (!pen.drawing && (state.hold || !message.visible)) view.setPencil(message);
        break;
      case S.protocol.server.threshold: showThreshold(message.below); break;
      case S.protocol.server.error:
        console.warn("sfumato server:", message.message);
        util.toast(message.message || "The server refused a message", true);
        break;
      case S.protocol.server.refused:
        // A pen batch the document could not record: say so, rather than let the stroke look saved.
        console.warn("sfumato server refused pen batch", message.batch, "of stroke", message.stroke, ":", message.message);
        util.toast("Part of a stroke could not be saved: " + (message.message || "refused"), true);
        break;
      default: break;   // newer servers may say more
    }
  }

  function onFrame(frame) {
    // While a pen drags Adjust's parameters, their label comes with the picture it describes.
    if (typeof frame.header.label === "string") showLabel(frame.header.label);
    view.drawFrame(frame);
  }

  function sendViewport(vp) {
    const key = JSON.stringify(vp);
    if (key === state.lastViewport || !connection.isOpen) return;
    state.lastViewport = key;
    connection.send({ type: S.protocol.client.viewport, ...vp });
  }

  function setConnectionStatus(status) {
    const el = $("#connection");
    el.className = "connection " + status;
    el.title = status === "open" ? "Connected" : "Reconnecting…";
  }

  // ---- the document ---------------------------------------------------------------------------------

  function applyDocument(doc) {
    if (!doc) return;
    state.document = doc;
    window.sfumatoDocument = doc;
    view.setDocumentSize(doc.width, doc.height);
    const now = performance.now();
    if (MODES.includes(doc.mode) && doc.mode !== state.mode && now - state.lastLocalChange.mode > LOCAL_WINS_MS) {
      setMode(doc.mode, { send: false });
    }
    if (doc.brush && now - state.lastLocalChange.brush > LOCAL_WINS_MS) adoptBrush(doc.brush);
    curveEditor.setState(doc.curve);
    // Quick arrow presses run ahead of the server's echoes: the page's own index wins for a moment.
    if (doc.preset && (doc.preset.index === state.presetIndex || now - state.lastLocalChange.preset > LOCAL_WINS_MS)) {
      state.presetIndex = doc.preset.index;
    }
    showPreset();
    $("#undo").disabled = !doc.canUndo;
    $("#redo").disabled = !doc.canRedo;
    document.title = (doc.name ? doc.name + " — " : "") + "Sfumato Studio";
  }

  function adoptBrush(brush) {
    // Not while the colour picker is open: its unsent choice is newer than any server state.
    if (typeof brush.color === "string" && document.activeElement !== $("#color")) state.color = brush.color;
    if (typeof brush.keepStrokes === "boolean") state.keepStrokes = brush.keepStrokes;
    if (Array.isArray(brush.pressureCurve)) state.pressureCurve = brush.pressureCurve;
    if (brush.brush === "force-pen") state.brush.sketch = "force-pen";
    else if (brush.brush === "pencil" || brush.brush === "pen") state.brush.shade = brush.brush;
    else if (brush.brush === "eraser" && DRAWING_MODES.has(state.mode)) state.brush[state.mode] = "eraser";
    renderBrush();
  }

  // ---- modes ------------------------------------------------------------------------------------------

  function setMode(mode, { send }) {
    if (!MODES.includes(mode)) return;
    const previous = state.mode;
    if (previous === "adjust" && mode !== "adjust") holdEnd(null);
    if (previous === "gallery" && mode !== "gallery") camera.stop();
    state.mode = mode;
    document.body.dataset.mode = mode;
    for (const button of $$("#modes [data-mode]")) {
      const active = button.dataset.mode === mode;
      button.classList.toggle("active", active);
      button.setAttribute("aria-pressed", String(active));
    }
    for (const panel of $$("[data-panel]")) panel.hidden = !panel.dataset.panel.split(" ").includes(mode);
    for (const el of $$("[data-for]")) el.hidden = !el.dataset.for.split(" ").includes(mode);
    if (mode !== "shade") showThreshold(false);
    view.setTailMode(DRAWING_MODES.has(mode));
    if (send) {
      state.lastLocalChange.mode = performance.now();
      connection.send({ type: S.protocol.client.mode, mode });
      if (DRAWING_MODES.has(mode)) sendBrush();
    }
  }

  // ---- Adjust: spring-loaded buttons --------------------------------------------------------------------

  function holdStart(pair, source) {
    if (state.mode !== "adjust" || state.hold === pair) return;
    state.hold = pair;
    state.holdSource = source;
    for (const b of $$("[data-adjust]")) b.classList.toggle("active", b.dataset.adjust === pair);
    connection.send({ type: S.protocol.client.hold, pair });
  }

  /** Releases the held pair if `source` holds it (null: whatever holds it). */
  function holdEnd(source) {
    if (!state.hold || (source && state.holdSource !== source)) return;
    state.hold = null;
    state.holdSource = null;
    for (const b of $$("[data-adjust]")) b.classList.remove("active");
    connection.send({ type: S.protocol.client.hold, pair: null });
    showLabel(null);
    view.setPencil({ visible: false });
  }

  function showLabel(text) {
    // A label still on its way after the button was released must not bring it back.
    if (text && !state.hold) return;
    const label = $("#label");
    label.hidden = !text;
    label.textContent = text || "";
  }

  // ---- Sketch and Shade: brushes ------------------------------------------------------------------------

  function currentBrush() { return state.mode === "shade" ? state.brush.shade : state.brush.sketch; }

  function sendBrush() {
    state.lastLocalChange.brush = performance.now();
    connection.send({
      type: S.protocol.client.brush, brush: currentBrush(), color: state.color, keepStrokes: state.keepStrokes,
      pressureCurve: state.pressureCurve,
    });
  }

  function renderBrush() {
    setPressed($("#keep-strokes"), state.keepStrokes);
    $("#color").value = state.color;
    pressureEditor.setPoints(state.pressureCurve);
    for (const b of $$("#brush-choice [data-brush]")) b.classList.toggle("active", b.dataset.brush === state.brush.sketch);
    for (const b of $$("#shade-brush-choice [data-brush]")) b.classList.toggle("active", b.dataset.brush === state.brush.shade);
  }

  /** The provisional tail's colour: roughly what the server will draw. */
  function tailColor(sample) {
    const brush = currentBrush();
    if (state.mode === "sketch" && brush === "force-pen") return util.hueColor(sample.pressure);
    if (state.mode === "shade" && brush !== "eraser") return state.color;
    if (DRAWING_MODES.has(state.mode)) return "rgba(255,255,255,0.75)";
    return null;
  }

  /**
   * A pen hovering over the stage (Apple Pencil on iPadOS 16.4+): Shade's indicator says what
   * touching down would draw, and in Adjust the held pair's virtual pencil follows the pen.
   */
  function onHover(sample) {
    if (state.mode === "shade") showThreshold(sample.altitude < S.protocol.pencil.tiltThreshold);
    if (state.mode === "adjust" && state.hold) {
      view.setPencil({ visible: true, x: sample.x, y: sample.y, altitude: sample.altitude, azimuth: sample.azimuth });
    }
  }

  function showThreshold(below) {
    const el = $("#threshold");
    el.dataset.below = String(!!below);
    el.querySelector("span").textContent = below ? "Shading" : "Line";
  }

  // ---- Gallery ----------------------------------------------------------------------------------------

  function presetNames() {
    const names = state.document && state.document.preset && state.document.preset.names;
    return Array.isArray(names) && names.length ? names : null;
  }

  function showPreset() {
    const names = presetNames();
    if (!names) return;
    $("#gallery-label").textContent = names[state.presetIndex] || "";
    $("#gallery-index").textContent = `${state.presetIndex + 1}/${names.length}`;
  }

  /** Next / previous preset with wrap-around; shown at once, confirmed by the server's state. */
  function stepPreset(delta) {
    const names = presetNames();
    if (!names) return;
    const n = names.length;
    state.presetIndex = (((state.presetIndex + delta) % n) + n) % n;
    state.lastLocalChange.preset = performance.now();
    showPreset();
    connection.send({ type: S.protocol.client.preset, index: state.presetIndex });
  }

  function onSwipe(direction) {
    if (direction === "left") stepPreset(1);
    else if (direction === "right") stepPreset(-1);
    else camera.toggle();
  }

  // ---- everywhere: history, before/after, open, export, palm rejection -----------------------------------

  function undo() { if (!connection.send({ type: S.protocol.client.undo })) util.api("/api/undo", { method: "POST" }).then(applyDocument).catch(showError); }
  function redo() { if (!connection.send({ type: S.protocol.client.redo })) util.api("/api/redo", { method: "POST" }).then(applyDocument).catch(showError); }

  function toggleBeforeAfter() {
    state.beforeAfter = !state.beforeAfter;
    setPressed($("#before-after"), state.beforeAfter);
    connection.send({ type: S.protocol.client.beforeAfter, on: state.beforeAfter });
  }

  function exportPhoto(format) {
    const link = document.createElement("a");
    link.href = util.withToken("/api/export?format=" + format);
    const base = ((state.document && state.document.name) || "sfumato").replace(/\.[^.]+$/, "");
    link.download = `${base}-sfumato.${format === "png" ? "png" : "jpg"}`;
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  async function openFile(file) {
    if (!file) return;
    if (!/^image\/(jpeg|png|webp|heic|heif|avif|tiff)$/.test(file.type) && !/\.(jpe?g|png|webp|heic|heif|avif|tiff?)$/i.test(file.name)) {
      util.toast("Open a JPEG, PNG, WebP, HEIC, AVIF or TIFF photo", true);
      return;
    }
    util.toast("Opening " + file.name + "…");
    try {
      const doc = await util.api("/api/open?name=" + encodeURIComponent(file.name), {
        method: "POST", body: file, headers: { "Content-Type": file.type || "application/octet-stream" },
      });
      applyDocument(doc);
      util.toast("Opened " + file.name);
    } catch (error) {
      util.toast(error.status === 413 ? "That photo is too large to open" : "Could not open it: " + error.message, true);
    }
  }

  function showError(error) { util.toast(error.message, true); }

  function setPenOnly(on) {
    state.penOnly = on;
    setPressed($("#pen-only"), on);
  }

  /** Palm rejection turns on by itself the first time a pen touches. */
  function penSeen() {
    if (state.penSeen) return;
    state.penSeen = true;
    if (!state.penOnly) {
      setPenOnly(true);
      util.toast("Pen detected: fingers no longer draw (pen only)");
    }
  }

  let statsTimer = 0;
  let statsSentCount = 0;
  /** Optional: tell the server the latency figures a moment after strokes end (it logs them). */
  function sendStatsSoon() {
    clearTimeout(statsTimer);
    statsTimer = setTimeout(() => {
      const s = S.stats.snapshot();
      if (s.count && s.count !== statsSentCount) {
        statsSentCount = s.count;
        connection.send({ type: S.protocol.client.stats, ...s });
      }
    }, 1000);
  }

  function setPressed(button, on) {
    button.setAttribute("aria-pressed", String(!!on));
    button.classList.toggle("on", !!on);
  }

  // ---- DOM wiring ---------------------------------------------------------------------------------------

  function wireControls() {
    for (const button of $$("#modes [data-mode]")) {
      button.addEventListener("click", () => setMode(button.dataset.mode, { send: true }));
    }
    for (const button of $$("[data-adjust]")) {
      const pair = button.dataset.adjust;
      button.addEventListener("pointerdown", (e) => {
        e.preventDefault();   // no focus ring, no text selection, no emulated mouse events
        try { button.setPointerCapture(e.pointerId); } catch (_) { /* gone */ }
        holdStart(pair, "pointer:" + e.pointerId);
      });
      for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) {
        button.addEventListener(type, (e) => holdEnd("pointer:" + e.pointerId));
      }
      button.addEventListener("contextmenu", (e) => e.preventDefault());
    }
    $("#keep-strokes").addEventListener("click", () => { state.keepStrokes = !state.keepStrokes; renderBrush(); sendBrush(); });
    $("#color").addEventListener("input", (e) => { state.color = e.target.value; });
    $("#color").addEventListener("change", (e) => { state.color = e.target.value; sendBrush(); });
    for (const b of $$("#brush-choice [data-brush]")) {
      b.addEventListener("click", () => { state.brush.sketch = b.dataset.brush; renderBrush(); sendBrush(); });
    }
    for (const b of $$("#shade-brush-choice [data-brush]")) {
      b.addEventListener("click", () => { state.brush.shade = b.dataset.brush; renderBrush(); sendBrush(); });
    }
    $("#gallery-prev").addEventListener("click", () => stepPreset(-1));
    $("#gallery-next").addEventListener("click", () => stepPreset(1));
    $("#camera-toggle").addEventListener("click", () => camera.toggle());
    $("#undo").addEventListener("click", undo);
    $("#redo").addEventListener("click", redo);
    $("#before-after").addEventListener("click", toggleBeforeAfter);
    $("#fit-view").addEventListener("click", () => view.resetView());
    $("#export").addEventListener("click", (e) => exportPhoto(e.shiftKey || e.altKey ? "png" : "jpeg"));
    $("#pen-only").addEventListener("click", () => setPenOnly(!state.penOnly));
    $("#open").addEventListener("change", (e) => { openFile(e.target.files[0]); e.target.value = ""; });
    wireDragAndDrop();
    wireKeys();
  }

  function wireDragAndDrop() {
    const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes("Files");
    let depth = 0;
    document.addEventListener("dragenter", (e) => {
      if (!hasFiles(e)) return;
      depth++;
      document.body.classList.add("dropping");
    });
    document.addEventListener("dragleave", (e) => {
      if (!hasFiles(e)) return;
      if (--depth <= 0) { depth = 0; document.body.classList.remove("dropping"); }
    });
    document.addEventListener("dragover", (e) => { if (hasFiles(e)) e.preventDefault(); });
    document.addEventListener("drop", (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      document.body.classList.remove("dropping");
      openFile(e.dataTransfer.files[0]);
    });
  }

  function wireKeys() {
    window.addEventListener("keydown", (e) => {
      const inRange = e.target instanceof HTMLInputElement && e.target.type === "range";
      const command = e.ctrlKey || e.metaKey;
      const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      if (command && key === "z") { e.preventDefault(); if (e.shiftKey) redo(); else undo(); return; }
      if (command && key === "y") { e.preventDefault(); redo(); return; }
      if (command || e.altKey) return;
      if (HOLD_KEYS[key] && state.mode === "adjust") {
        e.preventDefault();
        if (!e.repeat) holdStart(HOLD_KEYS[key], "key:" + key);
        return;
      }
      if (e.key === "?") { S.stats.toggleOverlay(); return; }
      if (key === "b") { toggleBeforeAfter(); return; }
      if (key === "0" && !inRange) { view.resetView(); return; }
      if (state.mode === "gallery" && !inRange) {
        if (e.key === "ArrowRight") { e.preventDefault(); stepPreset(1); return; }
        if (e.key === "ArrowLeft") { e.preventDefault(); stepPreset(-1); return; }
        if (key === "v") { camera.toggle(); return; }
      }
    });
    window.addEventListener("keyup", (e) => {
      const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      if (HOLD_KEYS[key]) holdEnd("key:" + key);
    });
    // A key released while the window was in the background never sends keyup.
    window.addEventListener("blur", () => { if (state.holdSource && state.holdSource.startsWith("key:")) holdEnd(null); });
  }

  // ---- start ----------------------------------------------------------------------------------------------

  wireControls();
  setMode("adjust", { send: false });
  renderBrush();
  connection.connect();
})(window.Sfumato);
