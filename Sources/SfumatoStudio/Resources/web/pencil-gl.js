"use strict";
// The virtual pencil as PencilController built it: a capsule (cap radius 0.05, height 1, its pivot at
// the tip) under an orthographic camera looking down -z, rotated by the Euler angles (altitude, 0,
// -azimuth - pi/2) and lit by 15% ambient light and one omni light at (-10, 10, 30). Drawn with WebGL;
// S.PencilGL.create gives null where the browser has none, and the page falls back to pencil.js.
//
// World space is the scene's: x right, y up, +z toward the viewer; one unit is the capsule's height,
// `length` canvas pixels. The rotation pitches the capsule up from the paper by the altitude (about x),
// then turns it about the view axis (z): Rz(-azimuth - pi/2) Rx(altitude). So the body, seen from the
// camera, points along the azimuth in the page's y-down coordinates, and its projected length is
// cos(altitude) of its height.
(function (S) {
  const CAP_RADIUS = 0.05;
  const HEIGHT = 1;
  const AMBIENT = 0.15;
  const LIGHT = [-10, 10, 30];
  const WOOD = [0.933, 0.922, 0.894];       // a warm white body
  const GRAPHITE = [0.275, 0.282, 0.314];   // the tip end, so it reads as a pencil

  /** Rows of the 3x3 rotation Rz(-azimuth - pi/2) Rx(altitude) (model to world). */
  function rotation(altitude, azimuth) {
    const t = -azimuth - Math.PI / 2;
    const cz = Math.cos(t), sz = Math.sin(t), cx = Math.cos(altitude), sx = Math.sin(altitude);
    return [
      [cz, -sz * cx, sz * sx],
      [sz, cz * cx, -cz * sx],
      [0, sx, cx],
    ];
  }

  function rotate(m, p) {
    return [0, 1, 2].map((i) => m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2]);
  }

  /**
   * Where a model point (x, y, z; the tip at the origin, the axis along +y to y = 1) lands on the
   * canvas: [x, y] in canvas units, y down, for a pencil whose tip touches (tipX, tipY).
   */
  function project(point, tipX, tipY, altitude, azimuth, length) {
    const w = rotate(rotation(altitude, azimuth), point);
    return [tipX + w[0] * length, tipY - w[1] * length];
  }

  /** The box (canvas units) the pencil covers in this pose: its two caps' discs and a pixel of antialiasing. */
  function bounds(tipX, tipY, altitude, azimuth, length) {
    const r = CAP_RADIUS * length + 2;
    const a = project([0, CAP_RADIUS, 0], tipX, tipY, altitude, azimuth, length);
    const b = project([0, HEIGHT - CAP_RADIUS, 0], tipX, tipY, altitude, azimuth, length);
    return {
      left: Math.min(a[0], b[0]) - r, top: Math.min(a[1], b[1]) - r,
      right: Math.max(a[0], b[0]) + r, bottom: Math.max(a[1], b[1]) + r,
    };
  }

  /**
   * The capsule as a surface of revolution about +y: a hemisphere about y = r, a cylinder up to
   * y = 1 - r, a hemisphere about that. Per vertex: position, normal, and how much graphite it shows.
   */
  function capsuleMesh(sides = 32, capRings = 8) {
    const profile = [];   // [radius, y, normal radius, normal y]
    for (let i = 0; i <= capRings; i++) {
      const a = -Math.PI / 2 + (Math.PI / 2) * (i / capRings);
      profile.push([CAP_RADIUS * Math.cos(a), CAP_RADIUS + CAP_RADIUS * Math.sin(a), Math.cos(a), Math.sin(a)]);
    }
    for (const y of [0.14, 0.2]) profile.push([CAP_RADIUS, y, 1, 0]);   // where the graphite ends
    for (let i = 0; i <= capRings; i++) {
      const a = (Math.PI / 2) * (i / capRings);
      profile.push([CAP_RADIUS * Math.cos(a), HEIGHT - CAP_RADIUS + CAP_RADIUS * Math.sin(a), Math.cos(a), Math.sin(a)]);
    }
    const vertices = [];
    for (const [radius, y, nr, ny] of profile) {
      const graphite = y <= 0.14 ? 1 : 0;
      for (let j = 0; j <= sides; j++) {
        const phi = (2 * Math.PI * j) / sides, c = Math.cos(phi), s = Math.sin(phi);
        vertices.push(radius * c, y, radius * s, nr * c, ny, nr * s, graphite);
      }
    }
    const indices = [];
    for (let i = 0; i + 1 < profile.length; i++) {
      for (let j = 0; j < sides; j++) {
        const a = i * (sides + 1) + j, b = a + sides + 1;
        indices.push(a, b, a + 1, a + 1, b, b + 1);
      }
    }
    return { vertices: new Float32Array(vertices), indices: new Uint16Array(indices) };
  }

  const VERTEX = `
    attribute vec3 position;
    attribute vec3 normal;
    attribute float graphite;
    uniform mat3 rotation;
    uniform vec2 tip;        // canvas pixels, y down
    uniform float scale;     // canvas pixels per unit
    uniform vec2 size;       // the canvas, pixels
    varying vec3 vNormal;
    varying vec3 vWorld;
    varying float vGraphite;
    void main() {
      vec3 w = rotation * position;
      vWorld = w;
      vNormal = rotation * normal;
      vGraphite = graphite;
      vec2 p = tip + vec2(w.x, -w.y) * scale;
      gl_Position = vec4(p.x / size.x * 2.0 - 1.0, 1.0 - p.y / size.y * 2.0, -0.4 * w.z, 1.0);
    }`;
  const FRAGMENT = `
    precision mediump float;
    uniform vec3 light;
    uniform vec3 wood;
    uniform vec3 graphiteColor;
    uniform float ambient;
    uniform float opacity;
    varying vec3 vNormal;
    varying vec3 vWorld;
    varying float vGraphite;
    void main() {
      vec3 n = normalize(vNormal);
      vec3 l = normalize(light - vWorld);
      float diffuse = max(dot(n, l), 0.0);
      float specular = pow(max(dot(n, normalize(l + vec3(0.0, 0.0, 1.0))), 0.0), 40.0) * 0.25;
      vec3 base = mix(wood, graphiteColor, vGraphite);
      vec3 c = min(base * (ambient + diffuse) + specular, vec3(1.0));
      gl_FragColor = vec4(c * opacity, opacity);
    }`;

  function compile(gl, type, source) {
    const shader = gl.createShader(type);
    gl.shaderSource(shader, source);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader));
    return shader;
  }

  /** A WebGL pencil on `canvas`, or null where the browser gives no WebGL (or it fails to set up). */
  function create(canvas) {
    let gl = null;
    try {
      // preserveDrawingBuffer: the canvas is redrawn only when the pose changes, and tests read it back.
      gl = canvas.getContext("webgl", { alpha: true, premultipliedAlpha: true, antialias: true, depth: true, preserveDrawingBuffer: true });
      if (!gl) return null;
      const program = gl.createProgram();
      gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, VERTEX));
      gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
      gl.linkProgram(program);
      if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
      gl.useProgram(program);
      const mesh = capsuleMesh();
      gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
      gl.bufferData(gl.ARRAY_BUFFER, mesh.vertices, gl.STATIC_DRAW);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, gl.createBuffer());
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, mesh.indices, gl.STATIC_DRAW);
      for (const [name, size, offset] of [["position", 3, 0], ["normal", 3, 12], ["graphite", 1, 24]]) {
        const at = gl.getAttribLocation(program, name);
        gl.enableVertexAttribArray(at);
        gl.vertexAttribPointer(at, size, gl.FLOAT, false, 28, offset);
      }
      const u = {};
      for (const name of ["rotation", "tip", "scale", "size", "light", "wood", "graphiteColor", "ambient", "opacity"]) {
        u[name] = gl.getUniformLocation(program, name);
      }
      gl.uniform3fv(u.light, LIGHT);
      gl.uniform3fv(u.wood, WOOD);
      gl.uniform3fv(u.graphiteColor, GRAPHITE);
      gl.uniform1f(u.ambient, AMBIENT);
      gl.enable(gl.DEPTH_TEST);
      gl.clearColor(0, 0, 0, 0);
      const count = mesh.indices.length;
      return {
        kind: "webgl",
        /** Draws the pencil, its tip at (tipX, tipY) canvas pixels, `length` pixels per unit of height. */
        draw(tipX, tipY, altitude, azimuth, opacity, length) {
          gl.viewport(0, 0, canvas.width, canvas.height);
          gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
          if (opacity <= 0) return;
          const m = rotation(altitude, azimuth);
          // Column-major for GLSL.
          gl.uniformMatrix3fv(u.rotation, false, [m[0][0], m[1][0], m[2][0], m[0][1], m[1][1], m[2][1], m[0][2], m[1][2], m[2][2]]);
          gl.uniform2f(u.tip, tipX, tipY);
          gl.uniform1f(u.scale, length);
          gl.uniform2f(u.size, canvas.width, canvas.height);
          gl.uniform1f(u.opacity, opacity);
          gl.drawElements(gl.TRIANGLES, count, gl.UNSIGNED_SHORT, 0);
        },
      };
    } catch (error) {
      console.warn("virtual pencil: no WebGL, drawing it in 2D", error);
      return null;
    }
  }

  S.PencilGL = { create, project, bounds, rotation, capsuleMesh, CAP_RADIUS, HEIGHT };
})(window.Sfumato);
