"use strict";
// The virtual pencil of PencilController: a capsule seen from above in orthographic projection, its
// tip at the contact point and its body leaning along the azimuth. Drawn with canvas 2D gradients that
// follow a fixed light (upper left, in front), like the original's ambient + omni light on a white capsule.
(function (S) {
  const BASE = [238, 235, 228];          // the capsule's material: a warm white
  const GRAPHITE = [70, 72, 80];         // the tip end, so the pencil reads as a pencil
  const AMBIENT = 0.15;                  // the original's 15% white ambient light
  const LIGHT = normalize([-0.45, -0.6, 0.66]);   // screen space: x right, y down, z toward the viewer
  const HALF = normalize([LIGHT[0], LIGHT[1], LIGHT[2] + 1]);   // Blinn half vector (viewer at +z)

  function normalize(v) {
    const n = Math.hypot(v[0], v[1], v[2]);
    return [v[0] / n, v[1] / n, v[2] / n];
  }

  /** Lit colour for a surface normal n (screen space). */
  function shade(color, n) {
    const diffuse = Math.max(0, n[0] * LIGHT[0] + n[1] * LIGHT[1] + n[2] * LIGHT[2]);
    const specular = Math.pow(Math.max(0, n[0] * HALF[0] + n[1] * HALF[1] + n[2] * HALF[2]), 40) * 0.55;
    const k = AMBIENT + (1 - AMBIENT) * diffuse;
    const c = color.map((v) => Math.min(255, Math.round(v * k + 255 * specular)));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }

  /**
   * The body's cross-section as a gradient across its width: the normal at offset u (-1...1) across the
   * axis is u * side + sqrt(1 - u^2) * toward-viewer, where side is the screen direction perpendicular
   * to the azimuth.
   */
  function bodyGradient(ctx, r, azimuth, color) {
    const side = [-Math.sin(azimuth), Math.cos(azimuth)];
    const gradient = ctx.createLinearGradient(0, -r, 0, r);   // in the rotated frame: y is across
    for (let i = 0; i <= 12; i++) {
      const u = -1 + i / 6;
      const w = Math.sqrt(Math.max(0, 1 - u * u));
      gradient.addColorStop(i / 12, shade(color, [u * side[0], u * side[1], w]));
    }
    return gradient;
  }

  /** A sphere of radius r at (x, y), shaded by the same light (the capsule's hemispherical caps). */
  function sphere(ctx, x, y, r, color) {
    const gradient = ctx.createRadialGradient(x + LIGHT[0] * r * 0.55, y + LIGHT[1] * r * 0.55, r * 0.05, x, y, r);
    gradient.addColorStop(0, shade(color, HALF));
    gradient.addColorStop(0.45, shade(color, normalize([LIGHT[0], LIGHT[1], 1.2])));
    gradient.addColorStop(1, shade(color, normalize([-LIGHT[0], -LIGHT[1], 0.35])));
    ctx.fillStyle = gradient;
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fill();
  }

  /**
   * Where the pencil's parts go: the cap radius 0.05 * length (at least 4 units), the projected
   * body length * cos(altitude) long, so an upright pen shows only its round end; the shadow further
   * off the more upright the pencil stands (its far end is higher).
   */
  function geometry(tipX, tipY, altitude, azimuth, length) {
    const r = Math.max(0.05 * length, 4);
    const axis = Math.max(0, (length - 2 * r) * Math.cos(altitude));
    const dx = Math.cos(azimuth), dy = Math.sin(azimuth);
    const near = [tipX + dx * r, tipY + dy * r];              // centre of the cap touching the paper
    const far = [near[0] + dx * axis, near[1] + dy * axis];   // centre of the raised end cap
    const up = Math.sin(altitude);
    return { r, axis, near, far, shadow: [4 + 10 * up, 6 + 12 * up], spread: 5 + 4 * up };
  }

  /**
   * The box (canvas units) that everything drawPencil paints lies in, antialiasing included: the
   * pencil's canvas is only this big, so each frame clears, uploads and blends a few thousand
   * pixels, not a square the pencil could turn around in.
   */
  function pencilBounds(tipX, tipY, altitude, azimuth, length) {
    const g = geometry(tipX, tipY, altitude, azimuth, length);
    const shadowR = g.r + g.spread, [ox, oy] = g.shadow;
    const xs = [g.near[0] - g.r, g.far[0] - g.r, g.near[0] + g.r, g.far[0] + g.r,
      g.near[0] + ox - shadowR, g.far[0] + ox - shadowR, g.near[0] + ox + shadowR, g.far[0] + ox + shadowR, tipX - 4, tipX + 4];
    const ys = [g.near[1] - g.r, g.far[1] - g.r, g.near[1] + g.r, g.far[1] + g.r,
      g.near[1] + oy - shadowR, g.far[1] + oy - shadowR, g.near[1] + oy + shadowR, g.far[1] + oy + shadowR, tipY - 4, tipY + 4];
    return { left: Math.min(...xs) - 2, top: Math.min(...ys) - 2, right: Math.max(...xs) + 2, bottom: Math.max(...ys) + 2 };
  }

  /**
   * Draws the pencil. (tipX, tipY): contact point in canvas units; length: the capsule's full length
   * in the same units (see geometry).
   */
  function drawPencil(ctx, tipX, tipY, altitude, azimuth, opacity, length) {
    if (opacity <= 0) return;
    const { r, axis, near, far, shadow, spread } = geometry(tipX, tipY, altitude, azimuth, length);
    const [offX, offY] = shadow;

    ctx.save();
    ctx.globalAlpha = opacity;

    // The shadow on the photo, soft by stacking widening capsules of faint black, not by
    // shadowBlur: a blur redone every frame costs a software-rendered page more than everything
    // else it draws.
    ctx.fillStyle = "rgba(0,0,0,0.09)";
    for (let i = 3; i >= 0; i--) {
      capsulePath(ctx, [near[0] + offX, near[1] + offY], [far[0] + offX, far[1] + offY], r + spread * i / 3);
      ctx.fill();
    }

    // Near cap (graphite), body, then the far cap on top: the far end is nearer the viewer.
    sphere(ctx, near[0], near[1], r, GRAPHITE);
    ctx.save();
    ctx.translate(near[0], near[1]);
    ctx.rotate(azimuth);
    if (axis > 0.5) {
      ctx.fillStyle = bodyGradient(ctx, r, azimuth, BASE);
      ctx.fillRect(0, -r, axis, 2 * r);
      // The sharpened end: graphite blending into the wood over the first part of the body.
      const sharpened = ctx.createLinearGradient(0, 0, Math.min(axis, 3 * r), 0);
      sharpened.addColorStop(0, "rgba(60,62,70,0.85)");
      sharpened.addColorStop(1, "rgba(60,62,70,0)");
      ctx.fillStyle = sharpened;
      ctx.fillRect(0, -r, Math.min(axis, 3 * r), 2 * r);
    }
    ctx.restore();
    sphere(ctx, far[0], far[1], r, BASE);

    // A fine ring marks the exact contact point under the tip.
    ctx.strokeStyle = "rgba(255,255,255,0.8)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.arc(tipX, tipY, 2.5, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.restore();
  }

  function capsulePath(ctx, a, b, r) {
    const angle = Math.atan2(b[1] - a[1], b[0] - a[0]);
    ctx.beginPath();
    ctx.arc(a[0], a[1], r, angle + Math.PI / 2, angle + 3 * Math.PI / 2);
    ctx.arc(b[0], b[1], r, angle - Math.PI / 2, angle + Math.PI / 2);
    ctx.closePath();
  }

  S.drawPencil = drawPencil;
  S.pencilBounds = pencilBounds;
})(window.Sfumato);
