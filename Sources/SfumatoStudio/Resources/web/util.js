"use strict";
// Small shared helpers: the pairing token, API URLs, pen angle conversion, colours.
window.Sfumato = window.Sfumato || {};

(function (S) {
  const token = new URLSearchParams(location.search).get("token");

  /** Adds ?token=T (from this page's URL) to a same-origin path: with --lan every request needs it. */
  function withToken(path) {
    if (!token) return path;
    const url = new URL(path, location.href);
    url.searchParams.set("token", token);
    return url.pathname + url.search;
  }

  function webSocketURL() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = token ? "?token=" + encodeURIComponent(token) : "";
    return scheme + "//" + location.host + "/ws" + query;
  }

  /** Whether the page talks to a server on this machine (loopback: bytes cost nothing to move). */
  function isLoopback() {
    const h = location.hostname;
    return h === "localhost" || h === "[::1]" || /^127\./.test(h);
  }

  /** fetch() a JSON API; rejects with the server's {"error"} message on a non-2xx answer. */
  async function api(path, options) {
    const response = await fetch(withToken(path), options);
    let body = null;
    try { body = await response.json(); } catch (_) { /* not JSON */ }
    if (!response.ok) {
      const error = new Error((body && body.error) || response.status + " " + response.statusText);
      error.status = response.status;
      throw error;
    }
    return body;
  }

  const HALF_PI = Math.PI / 2;
  const DEG = Math.PI / 180;

  /** W3C Pointer Events 3 conversion from tiltX/tiltY (degrees) to {altitude, azimuth} (radians). */
  function anglesFromTilt(tiltX, tiltY) {
    let azimuth = 0;
    if (tiltX === 0) {
      azimuth = tiltY > 0 ? HALF_PI : tiltY < 0 ? 3 * HALF_PI : 0;
    } else if (tiltY === 0) {
      azimuth = tiltX < 0 ? Math.PI : 0;
    } else if (Math.abs(tiltX) === 90 || Math.abs(tiltY) === 90) {
      azimuth = 0;
    } else {
      azimuth = Math.atan2(Math.tan(tiltY * DEG), Math.tan(tiltX * DEG));
      if (azimuth < 0) azimuth += 2 * Math.PI;
    }
    let altitude;
    if (Math.abs(tiltX) === 90 || Math.abs(tiltY) === 90) altitude = 0;
    else if (tiltX === 0) altitude = HALF_PI - Math.abs(tiltY) * DEG;
    else if (tiltY === 0) altitude = HALF_PI - Math.abs(tiltX) * DEG;
    else {
      const tx = Math.tan(tiltX * DEG), ty = Math.tan(tiltY * DEG);
      altitude = Math.atan(1 / Math.sqrt(tx * tx + ty * ty));
    }
    return { altitude, azimuth };
  }

  /** The pen pose of a pointer event: the angle pair when the browser has it, else from the tilt pair. */
  function penAngles(event) {
    if (typeof event.altitudeAngle === "number" && typeof event.azimuthAngle === "number") {
      return { altitude: event.altitudeAngle, azimuth: event.azimuthAngle };
    }
    if (typeof event.tiltX === "number" && typeof event.tiltY === "number" && (event.tiltX || event.tiltY)) {
      return anglesFromTilt(event.tiltX, event.tiltY);
    }
    return { altitude: HALF_PI, azimuth: 0 };
  }

  /** HSB (all 0...1, hue wrapping) to a CSS colour: the force pen's colour for a pressure. */
  function hueColor(hue, alpha) {
    const h = ((hue % 1) + 1) % 1 * 6;
    const x = 1 - Math.abs((h % 2) - 1);
    const [r, g, b] = h < 1 ? [1, x, 0] : h < 2 ? [x, 1, 0] : h < 3 ? [0, 1, x]
      : h < 4 ? [0, x, 1] : h < 5 ? [x, 0, 1] : [1, 0, x];
    return `rgba(${Math.round(r * 255)},${Math.round(g * 255)},${Math.round(b * 255)},${alpha === undefined ? 1 : alpha})`;
  }

  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

  /** Runs fn at most once per animation frame, however often it is requested. */
  function frameScheduler(fn) {
    let requested = false;
    return function schedule() {
      if (requested) return;
      requested = true;
      requestAnimationFrame((time) => { requested = false; fn(time); });
    };
  }

  /**
   * Whether this browser renders without a GPU, judged by the renderer its WebGL reports
   * (SwiftShader, llvmpipe and the like). Such a browser composites the page in software too, where
   * every stretched picture costs CPU each frame. No WebGL at all counts as software too: Chromium
   * without a usable GPU offers none unless told to fall back to SwiftShader.
   */
  function rendersInSoftware() {
    let gl = null;
    try {
      gl = document.createElement("canvas").getContext("webgl");
      if (!gl) return true;
      const info = gl.getExtension("WEBGL_debug_renderer_info");
      const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
      return /swiftshader|llvmpipe|softpipe|software/i.test(renderer);
    } catch (_) {
      return false;
    } finally {
      const lose = gl && gl.getExtension("WEBGL_lose_context");
      if (lose) lose.loseContext();   // a context is a scarce resource: give it back at once
    }
  }

  /** A small transient message at the bottom of the stage. */
  let toastTimer = 0;
  function toast(text, isError) {
    const el = document.getElementById("toast");
    if (!el) return;
    el.textContent = text;
    el.classList.toggle("error", !!isError);
    el.classList.add("visible");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => el.classList.remove("visible"), isError ? 4000 : 2200);
  }

  S.util = { token, withToken, webSocketURL, isLoopback, api, anglesFromTilt, penAngles, hueColor, clamp, frameScheduler, toast, rendersInSoftware };
})(window.Sfumato);
