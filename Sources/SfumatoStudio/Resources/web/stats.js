"use strict";
// Pen-to-pixels latency, as STUDIO-PROTOCOL.md "Latency" defines it: each sample's event.timeStamp
// against performance.now() right after the first frame whose batch covers it has been drawn.
(function (S) {
  const latencies = [];     // every latency measured so far (ms)
  const sampleTimes = [];   // the event.timeStamp of each, in the same order
  let sorted = null;        // latencies sorted, rebuilt lazily after new data
  let pending = [];         // [{batch, times:[t...]}] in increasing batch order, not yet drawn

  /** Remember the sample times of a pen batch that should come back as pixels. */
  let tracked = 0;          // samples tracked since the last reset, drawn or not
  function track(batch, times) {
    if (times.length) pending.push({ batch, times });
    tracked += times.length;
  }

  /** A frame covering pen batches <= batch was just drawn at `now`. */
  function frameDrawn(batch, now) {
    if (typeof batch !== "number") return;
    let counted = 0;
    while (pending.length && pending[0].batch <= batch) {
      for (const t of pending.shift().times) { latencies.push(now - t); sampleTimes.push(t); }
      counted++;
    }
    if (counted) { sorted = null; scheduleOverlay(); }
  }

  /** Samples sent on a connection that dropped will never be drawn: forget them. */
  function dropPending() { pending = []; }

  /** Nearest-rank percentile (p in 0...100) of the latencies; 0 when there are none. */
  function percentile(p) {
    if (!latencies.length) return 0;
    if (!sorted) sorted = latencies.slice().sort((a, b) => a - b);
    const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
    return sorted[rank - 1];
  }

  // window.sfumatoStats is always {count, p50, p95, p99}; the figures are getters so they are
  // current whenever read (also through JSON.stringify / Playwright's evaluate).
  const stats = {};
  Object.defineProperties(stats, {
    count: { enumerable: true, get: () => latencies.length },
    p50: { enumerable: true, get: () => round(percentile(50)) },
    p95: { enumerable: true, get: () => round(percentile(95)) },
    p99: { enumerable: true, get: () => round(percentile(99)) },
    reset: { enumerable: false, value: () => { latencies.length = sampleTimes.length = 0; sorted = null; pending = []; tracked = 0; scheduleOverlay(); } },
    // How many samples the page sent to come back as pixels since the last reset (count: how many did).
    tracked: { enumerable: false, get: () => tracked },
    // Every latency since the last reset, in the order counted (for harnesses that split them).
    values: { enumerable: false, value: () => latencies.slice() },
    // The same as [event.timeStamp, latency] pairs: when each sample was taken, on performance.now()'s
    // clock (for harnesses that line the latencies up with other measurements).
    samples: { enumerable: false, value: () => latencies.map((latency, i) => [sampleTimes[i], latency]) },
  });
  window.sfumatoStats = stats;

  function round(ms) { return Math.round(ms * 100) / 100; }

  function snapshot() { return { count: stats.count, p50: stats.p50, p95: stats.p95, p99: stats.p99 }; }

  // The `?` overlay. Extra lines (camera rate) come from whoever registers them.
  const extraLines = new Map();
  function setLine(key, text) {
    if (text) extraLines.set(key, text); else extraLines.delete(key);
    scheduleOverlay();
  }

  const scheduleOverlay = S.util.frameScheduler(renderOverlay);
  function renderOverlay() {
    const el = document.getElementById("stats");
    if (!el || el.hidden) return;
    const s = snapshot();
    const lines = [
      "pen → pixels latency",
      `samples ${s.count}`,
      `p50 ${s.p50.toFixed(1)} ms`,
      `p95 ${s.p95.toFixed(1)} ms`,
      `p99 ${s.p99.toFixed(1)} ms`,
    ];
    for (const text of extraLines.values()) lines.push(text);
    el.textContent = lines.join("\n");
  }

  function toggleOverlay() {
    const el = document.getElementById("stats");
    el.hidden = !el.hidden;
    renderOverlay();
  }

  S.stats = { track, frameDrawn, dropPending, snapshot, toggleOverlay, setLine };
})(window.Sfumato);
