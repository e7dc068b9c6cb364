"use strict";
// The page's pure logic, in node's own test runner: the token in URLs, pen angles, the curve
// editors' rules, and the pen's batching (every sample once, in order, one batch per 4 ms at most).
//   node --test Tests/js
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const WEB = path.join(__dirname, "../../Sources/SfumatoStudio/Resources/web");

/** A page-like global: window, location, and the page's scripts run in it. */
function page(url = "http://127.0.0.1:8080/?token=abc123") {
  const context = { console, setTimeout, clearTimeout, URL, URLSearchParams, Math, performance };
  context.window = context;
  context.location = new URL(url);
  vm.createContext(context);
  for (const name of ["protocol-fixture", "util", "stats", "curve", "pen", "gestures"]) {
    const file = name === "protocol-fixture" ? null : path.join(WEB, name + ".js");
    // The server makes protocol.js from its Swift declarations; the names are the messages' own.
    const protocol = "window.Sfumato = {protocol: {client: new Proxy({}, {get: (_, k) => k}), server: new Proxy({}, {get: (_, k) => k})}};";
    vm.runInContext(file ? fs.readFileSync(file, "utf8") : protocol, context,
                    { filename: file || name });
  }
  return context.Sfumato;
}

test("the token from the page's URL rides on every request and the WebSocket", () => {
  const S = page("http://127.0.0.1:8080/?token=abc123");
  assert.equal(S.util.token, "abc123");
  assert.equal(S.util.withToken("/api/document"), "/api/document?token=abc123");
  assert.equal(S.util.withToken("/api/render?width=5"), "/api/render?width=5&token=abc123");
  assert.equal(S.util.webSocketURL(), "ws://127.0.0.1:8080/ws?token=abc123");
  assert.equal(S.util.isLoopback(), true);
  const lan = page("https://192.0.2.7:8443/?token=t");
  assert.equal(lan.util.webSocketURL(), "wss://192.0.2.7:8443/ws?token=t");
  assert.equal(lan.util.isLoopback(), false);
  const none = page("http://127.0.0.1:8080/");
  assert.equal(none.util.withToken("/api/document"), "/api/document");
});

test("tilt to altitude and azimuth by the W3C conversion", () => {
  const { anglesFromTilt } = page().util;
  const near = (a, b) => assert.ok(Math.abs(a - b) < 1e-9, `${a} vs ${b}`);
  let r = anglesFromTilt(0, 0);
  near(r.altitude, Math.PI / 2);
  near(r.azimuth, 0);
  r = anglesFromTilt(0, 45);
  near(r.altitude, Math.PI / 4);
  near(r.azimuth, Math.PI / 2);
  r = anglesFromTilt(-45, 0);
  near(r.azimuth, Math.PI);
  r = anglesFromTilt(90, 0);
  near(r.altitude, 0);
  r = anglesFromTilt(30, -30);
  assert.ok(r.azimuth > 3 * Math.PI / 2 && r.azimuth < 2 * Math.PI);
  assert.ok(r.altitude > 0 && r.altitude < Math.PI / 2);
});

test("hue colours and clamping", () => {
  const { hueColor, clamp } = page().util;
  assert.equal(hueColor(0), "rgba(255,0,0,1)");
  assert.equal(hueColor(1 / 3, 0.5), "rgba(0,255,0,0.5)");
  assert.equal(clamp(5, 0, 1), 1);
  assert.equal(clamp(-5, 0, 1), 0);
  assert.equal(clamp(0.25, 0, 1), 0.25);
});

test("the pressure curve keeps its ends at x 0 and 1 and inner points between their neighbours", () => {
  const S = page();
  const editor = { points: [[0, 0], [0.5, 0.5], [1, 1]], redraw() {} };
  const moveTo = S.PressureCurveEditor.prototype.moveTo;
  moveTo.call(editor, 0, [0.3, 0.2]);
  assert.equal(editor.points[0][0], 0);
  moveTo.call(editor, 2, [0.7, 0.9]);
  assert.equal(editor.points[2][0], 1);
  moveTo.call(editor, 1, [1.5, 2]);
  assert.ok(editor.points[1][0] < 1 && editor.points[1][1] <= 1, JSON.stringify(editor.points));
  moveTo.call(editor, 1, [-3, -1]);
  assert.ok(editor.points[1][0] > 0 && editor.points[1][1] >= 0, JSON.stringify(editor.points));
});

test("the tone curve keeps the user's levels while they drag, takes the server's otherwise", () => {
  const S = page();
  const slider = () => ({ value: "" });
  const editor = { dragging: true, levels: [0, 0.1, 0.2, 0.3, 1], sliders: [slider(), slider(), slider(), slider(), slider()], redraw() {} };
  const setState = S.CurveEditor.prototype.setState;
  setState.call(editor, { levels: [0, 0.25, 0.5, 0.75, 1], samples: [0, 1] });
  assert.deepEqual(editor.levels, [0, 0.1, 0.2, 0.3, 1]);
  editor.dragging = false;
  setState.call(editor, { levels: [0, 0.25, 0.5, 0.75, 1], samples: [0, 1] });
  assert.deepEqual(editor.levels, [0, 0.25, 0.5, 0.75, 1]);
  assert.deepEqual(editor.sliders.map((s) => s.value), ["0", "0.25", "0.5", "0.75", "1"]);
});

/** A PenInput on a stub canvas; returns it, the messages it sent and a way to fire events. */
function pen(S) {
  const handlers = {};
  const canvas = { addEventListener: (type, f) => { handlers[type] = f; }, setPointerCapture() {} };
  const view = {
    canvas, clientToDoc: (x, y) => ({ x, y }), tailBegin() {}, tailAdd() {}, tailEnd() {}, tailPredict() {}, tailClear() {},
    setPencil() {}, tail: {},
  };
  const sent = [];
  const connection = { isOpen: true, send: (m) => { sent.push({ ...m, at: performance.now() }); return true; } };
  const hooks = {
    mode: () => "sketch", penOnly: () => false, penSeen() {}, sendsPen: () => true, expectsPixels: () => false,
    tailColor: () => null, pencilFollows: () => false, swipe() {}, strokeEnded() {},
    hover: (s) => hovered.push(s), hoverEnd() {},
  };
  const hovered = [];
  const input = new S.PenInput({ view, connection, hooks });
  let t = 0;
  const event = (type, x, extra = {}) => ({
    type, pointerId: 1, pointerType: "pen", button: 0, buttons: type === "pointerup" ? 0 : 1, clientX: x, clientY: 10,
    pressure: 0.5, tiltX: 0, tiltY: 0, timeStamp: ++t, preventDefault() {}, ...extra,
  });
  return { input, sent, hovered, fire: (type, x, extra) => handlers[type](event(type, x, extra)) };
}

test("pen batches: every sample once and in order, at most one batch per 4 ms, pending samples go with up", async () => {
  const S = page();
  const { sent, fire } = pen(S);
  fire("pointerdown", 0);
  for (let i = 1; i <= 60; i++) {
    fire("pointermove", i);
    if (i % 7 === 0) await new Promise((r) => setTimeout(r, 3));
  }
  fire("pointerup", 61);
  await new Promise((r) => setTimeout(r, 20));
  const xs = sent.flatMap((m) => m.samples.map((s) => s.x));
  assert.deepEqual(xs, Array.from({ length: 61 }, (_, i) => i), "every sample once, in order");
  assert.equal(sent[0].phase, "down");
  assert.equal(sent[sent.length - 1].phase, "up");
  const batches = sent.map((m) => m.batch);
  assert.deepEqual(batches, [...batches].sort((a, b) => a - b), "batch numbers increase");
  const moves = sent.filter((m) => m.phase === "move");
  for (let i = 1; i < moves.length; i++) {
    assert.ok(moves[i].at - moves[i - 1].at >= 4 - 1e-6, `moves ${i - 1} and ${i} ${moves[i].at - moves[i - 1].at} ms apart`);
  }
  assert.ok(moves.length < 60, "moves were batched");
  assert.ok(sent.every((m) => m.stroke === 1));
});

test("a second stroke gets the next stroke number; a move of another pointer is ignored", () => {
  const S = page();
  const { sent, fire } = pen(S);
  fire("pointerdown", 0);
  fire("pointermove", 5, { pointerId: 2 });
  fire("pointerup", 1);
  fire("pointerdown", 2);
  fire("pointerup", 3);
  assert.deepEqual(sent.map((m) => [m.phase, m.stroke]), [["down", 1], ["up", 1], ["down", 2], ["up", 2]]);
  assert.ok(sent.every((m) => !m.samples.some((s) => s.x === 5)));
});

test("a pen reported as a mouse (varying pressure) draws as a pen and counts as one; a real mouse stays a mouse", () => {
  const S = page();
  const { input, sent, fire } = pen(S);
  let seen = 0;
  input.hooks.penSeen = () => { seen++; };
  fire("pointerdown", 0, { pointerType: "mouse", pressure: 0.5 });
  fire("pointermove", 1, { pointerType: "mouse", pressure: 0.5 });
  fire("pointerup", 2, { pointerType: "mouse", pressure: 0 });
  assert.ok(sent.flatMap((m) => m.samples).every((s) => s.pointerType === "mouse"), "a mouse's 0.5 is no pressure");
  assert.equal(seen, 0);
  fire("pointerdown", 3, { pointerType: "mouse", pressure: 0.31 });
  fire("pointermove", 4, { pointerType: "mouse", pressure: 0.42 });
  fire("pointerup", 5, { pointerType: "mouse", pressure: 0 });
  const wacom = sent.filter((m) => m.stroke === 2).flatMap((m) => m.samples);
  assert.deepEqual(wacom.map((s) => [s.pointerType, s.pressure]), [["pen", 0.31], ["pen", 0.42]]);
  assert.equal(seen, 1, "pen-only mode is told a pen is here");
});

test("the WebGL pencil's capsule projects to cos(altitude) of its length, along the azimuth", () => {
  const context = { window: {}, Math, console };
  context.window = context;
  context.Sfumato = {};
  vm.createContext(context);
  vm.runInContext(fs.readFileSync(path.join(WEB, "pencil-gl.js"), "utf8"), context);
  const P = context.Sfumato.PencilGL;
  const length = 200;
  for (const altitude of [0, 0.3, Math.PI / 6, 0.9, 1.3, Math.PI / 2]) {
    for (const azimuth of [0, 0.7, Math.PI / 2, 2.5, -1.2]) {
      const tip = P.project([0, 0, 0], 50, 60, altitude, azimuth, length);
      const end = P.project([0, P.HEIGHT, 0], 50, 60, altitude, azimuth, length);
      assert.ok(Math.hypot(tip[0] - 50, tip[1] - 60) < 1e-9, "the pivot is the tip");
      const dx = end[0] - tip[0], dy = end[1] - tip[1];
      assert.ok(Math.abs(Math.hypot(dx, dy) - length * Math.cos(altitude)) < 1, `altitude ${altitude}: ${Math.hypot(dx, dy)}`);
      if (altitude < 1.5) {
        const direction = Math.atan2(dy, dx), error = Math.abs(Math.atan2(Math.sin(direction - azimuth), Math.cos(direction - azimuth)));
        assert.ok(error < 1e-6, `azimuth ${azimuth}: the body points at ${direction}`);
      }
      // The raised end is nearer the viewer (+z) the more upright the pencil stands.
      const z = P.rotation(altitude, azimuth)[2][1];
      assert.ok(Math.abs(z - Math.sin(altitude)) < 1e-9);
    }
  }
  // The mesh: a closed capsule of radius 0.05 from y 0 to 1.
  const mesh = P.capsuleMesh();
  let minY = Infinity, maxY = -Infinity, maxR = 0;
  for (let i = 0; i < mesh.vertices.length; i += 7) {
    minY = Math.min(minY, mesh.vertices[i + 1]);
    maxY = Math.max(maxY, mesh.vertices[i + 1]);
    maxR = Math.max(maxR, Math.hypot(mesh.vertices[i], mesh.vertices[i + 2]));
  }
  assert.ok(Math.abs(minY) < 1e-6 && Math.abs(maxY - 1) < 1e-6 && Math.abs(maxR - 0.05) < 1e-6);   // float32
  assert.ok(mesh.indices.every((i) => i < mesh.vertices.length / 7));
});

test("azimuth from whole-degree tilt holds still near upright and follows a leaning pen", () => {
  const S = page();
  const { sent, fire } = pen(S);
  // No angle pair (Safari before 18.2): the events carry integer tilt only.
  fire("pointerdown", 0, { tiltX: 20, tiltY: 0 });
  const upright = [[1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [0, 0], [-1, 1], [1, -1]];
  upright.forEach(([tiltX, tiltY], i) => fire("pointermove", 1 + i, { tiltX, tiltY }));
  fire("pointermove", 20, { tiltX: 0, tiltY: 30 });   // leaning toward +y: a quarter turn, at once
  fire("pointerup", 21, { tiltX: 0, tiltY: 30 });
  const azimuths = sent.flatMap((m) => m.samples.map((s) => s.azimuth));
  assert.equal(azimuths.length, upright.length + 2);
  const near = azimuths.slice(1, 1 + upright.length);
  // Unfiltered these span the whole circle (Adjust's hue with them); steadied they stay within 12
  // degrees of where the leaning pen left them.
  for (const a of near) assert.ok(Math.min(a, 2 * Math.PI - a) < 0.21, `azimuth ${a} near upright`);
  assert.ok(Math.abs(azimuths[azimuths.length - 1] - Math.PI / 2) < 1e-9, "a leaning pen's azimuth is its own");
});

test("an angle pair from the browser is used as it is", () => {
  const S = page();
  const { sent, fire } = pen(S);
  fire("pointerdown", 0, { tiltX: 1, tiltY: 0, altitudeAngle: 1.5, azimuthAngle: 0 });
  fire("pointermove", 1, { tiltX: 0, tiltY: 1, altitudeAngle: 1.5, azimuthAngle: 1.57 });
  fire("pointerup", 2);
  assert.deepEqual(sent.flatMap((m) => m.samples.map((s) => s.azimuth)), [0, 1.57]);
});

test("a hovering pen is shown and never draws", () => {
  const S = page();
  const { sent, hovered, fire } = pen(S);
  fire("pointermove", 5, { buttons: 0, pressure: 0, tiltX: 70, tiltY: 0 });
  fire("pointermove", 6, { buttons: 0, pressure: 0, tiltX: 10, tiltY: 0 });
  assert.equal(sent.length, 0);
  assert.equal(hovered.length, 2);
  assert.ok(hovered[0].altitude < Math.PI / 6 && hovered[1].altitude > Math.PI / 6);
});

test("a finger draws once it is clearly alone; a second finger makes it a gesture that leaves no mark", async () => {
  const S = page();
  const { input, sent, fire } = pen(S);
  const touch = { pointerType: "touch", pressure: 0 };
  fire("pointerdown", 0, touch);
  fire("pointermove", 3, touch);
  input.yieldToGesture();            // what TouchGestures does when the second finger lands
  fire("pointermove", 40, touch);
  fire("pointerup", 40, touch);
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(sent.length, 0, "a pinch or a two-finger tap draws nothing");

  fire("pointerdown", 0, touch);
  for (let x = 2; x <= 20; x += 2) fire("pointermove", x, touch);   // past the slop: it draws
  fire("pointerup", 20, touch);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(sent[0].phase, "down");
  assert.equal(sent[sent.length - 1].phase, "up");
  assert.deepEqual(sent.flatMap((m) => m.samples.map((s) => s.x)), [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
  assert.ok(sent.every((m) => m.samples.every((s) => s.pressure === 0.5)), "a finger presses 0.5");

  sent.length = 0;
  fire("pointerdown", 50, touch);    // a finger that stays still draws after the delay
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(sent.length, 1);
  fire("pointerup", 50, touch);
  assert.equal(sent[1].phase, "up");
});

/** TouchGestures on a stub canvas and view; returns what it did and a way to fire touches. */
function gestures(S) {
  const handlers = {};
  const canvas = { addEventListener: (type, f) => { handlers[type] = f; } };
  const did = [];
  const view = {
    canvas, zoom: { scale: 1, x: 0, y: 0 },
    stageRect: () => ({ left: 0, top: 0, width: 1000, height: 800 }),
    setView(scale, x, y) { this.zoom = { scale: Math.max(1, scale), x, y }; },
    resetView() { this.zoom = { scale: 1, x: 0, y: 0 }; did.push("fit"); },
    zoomAbout() {}, panBy() {},
  };
  const hooks = { undo: () => did.push("undo"), redo: () => did.push("redo"), drawing: () => false, gestureStarted: () => did.push("gesture") };
  new S.TouchGestures({ view, hooks });
  let t = 0;
  const fire = (type, id, x, y, dt = 10) => handlers[type]({ pointerType: "touch", pointerId: id, clientX: x, clientY: y, timeStamp: (t += dt) });
  return { did, view, fire };
}

test("a two-finger tap undoes, a three-finger tap redoes, a slow or moving one does neither", () => {
  const S = page();
  const g = gestures(S);
  g.fire("pointerdown", 1, 100, 100); g.fire("pointerdown", 2, 200, 100);
  g.fire("pointerup", 1, 100, 100); g.fire("pointerup", 2, 200, 100);
  assert.deepEqual(g.did, ["gesture", "undo"]);
  g.did.length = 0;
  g.fire("pointerdown", 1, 100, 100); g.fire("pointerdown", 2, 200, 100); g.fire("pointerdown", 3, 300, 100);
  g.fire("pointerup", 2, 200, 100); g.fire("pointerup", 1, 100, 100); g.fire("pointerup", 3, 300, 100);
  assert.deepEqual(g.did, ["gesture", "gesture", "redo"]);
  g.did.length = 0;
  g.fire("pointerdown", 1, 100, 100); g.fire("pointerdown", 2, 200, 100);
  g.fire("pointerup", 1, 100, 100, 400); g.fire("pointerup", 2, 200, 100);
  g.fire("pointerdown", 1, 100, 100); g.fire("pointerdown", 2, 200, 100); g.fire("pointermove", 2, 240, 100);
  g.fire("pointerup", 1, 100, 100); g.fire("pointerup", 2, 240, 100);
  assert.ok(!g.did.includes("undo") && !g.did.includes("redo"), g.did.join());
});

test("a pinch zooms about the fingers' midpoint and pans with it; ending near the fit snaps to it", () => {
  const S = page();
  const g = gestures(S);
  g.fire("pointerdown", 1, 400, 300); g.fire("pointerdown", 2, 500, 300);
  g.fire("pointermove", 1, 350, 300); g.fire("pointermove", 2, 550, 300);   // 100 px apart -> 200: twice
  assert.equal(g.view.zoom.scale, 2);
  // The document point under the midpoint (450, 300) stays there: stage = zoom.x + scale * point.
  assert.equal(g.view.zoom.x + 2 * 450, 450);
  assert.equal(g.view.zoom.y + 2 * 300, 300);
  g.fire("pointermove", 1, 300, 350); g.fire("pointermove", 2, 500, 350);   // both 50 px left and down: a pan
  assert.equal(g.view.zoom.x + 2 * 450, 400);
  assert.equal(g.view.zoom.y + 2 * 300, 350);
  g.fire("pointerup", 1, 300, 350); g.fire("pointerup", 2, 500, 350);
  assert.ok(!g.did.includes("undo"), "a pinch is no tap");
  g.fire("pointerdown", 1, 400, 300); g.fire("pointerdown", 2, 500, 300);
  g.fire("pointermove", 2, 451, 300);   // nearly back to the fit
  g.fire("pointerup", 1, 400, 300); g.fire("pointerup", 2, 451, 300);
  assert.deepEqual(g.view.zoom, { scale: 1, x: 0, y: 0 });
});

test("a tilt that is not a number neither moves the azimuth nor poisons the next ones", () => {
  const S = page();
  const { sent, fire } = pen(S);
  fire("pointerdown", 0, { tiltX: 30, tiltY: 0 });
  fire("pointermove", 1, { tiltX: NaN, tiltY: 0 });
  fire("pointermove", 2, { tiltX: Infinity, tiltY: 5 });
  fire("pointermove", 3, { tiltX: 0, tiltY: 30 });
  fire("pointerup", 4, { tiltX: 0, tiltY: 30 });
  const azimuths = sent.flatMap((m) => m.samples.map((s) => s.azimuth));
  assert.ok(azimuths.every(Number.isFinite), `azimuths ${azimuths}`);
  assert.ok(Math.abs(azimuths[azimuths.length - 1] - Math.PI / 2) < 1e-9);
});

test("in Adjust a mouse steers by its drag: leaning toward where it moved, flat at 240 px; a pen keeps its tilt", async () => {
  const S = page();
  const { input, sent, fire } = pen(S);
  input.hooks.steersByDrag = () => true;
  fire("pointerdown", 100, { pointerType: "mouse", pressure: 0.5 });
  fire("pointermove", 220, { pointerType: "mouse", pressure: 0.5 });
  fire("pointermove", 100, { pointerType: "mouse", pressure: 0.5, clientY: 10 + 480 });
  fire("pointerup", 100, { pointerType: "mouse", pressure: 0, clientY: 10 + 480 });
  await new Promise((r) => setTimeout(r, 20));
  const [down, right, below] = sent.flatMap((m) => m.samples);
  assert.equal(down.altitude, Math.PI / 2, "upright where it went down");
  assert.ok(Math.abs(right.altitude - Math.PI / 4) < 1e-12 && Math.abs(right.azimuth) < 1e-12, "120 px right: 45 degrees toward +x");
  assert.ok(Math.abs(below.altitude) < 1e-12 && Math.abs(below.azimuth - Math.PI / 2) < 1e-12, "480 px down: flat, toward +y");
  // A pen's own tilt wins, drag or not.
  fire("pointerdown", 100, { tiltX: 40, tiltY: 0 });
  fire("pointerup", 300, { tiltX: 40, tiltY: 0 });
  const pen40 = sent.filter((m) => m.stroke === 2).flatMap((m) => m.samples)[0];
  assert.ok(Math.abs(pen40.altitude - (Math.PI / 2 - (40 * Math.PI) / 180)) < 1e-9, `${pen40.altitude}`);
});
