// Runs gallery.cu's kernels on the host (host_prelude.h's fibers) for scripts/cuda-kernels-hostcheck.
// Images are raw files: int32 width, height, channels, then the rows, premultiplied RGBA or grey.
// usage: harness COMMAND IN OUT ARGS... (see main)
#include "host_prelude.h"
#include "../../Sources/SfumatoCore/Device/CUDA/Kernels/gallery.cu"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <zlib.h>

// ---- launch traces (SF_TRACE_DIR, SF_TRACE_NAME): every launch's kernel, geometry and arguments, and
// each buffer's bytes before its first launch and at the end, so scripts/cuda-hostcheck/replay.py
// can run the same launches on a GPU and compare every byte.
struct SfTraceBuffer { const u8* base; size_t size; int id; std::string init; };
static std::vector<SfTraceBuffer> g_buffers;
static std::string g_launches;
static const char* g_trace_dir = getenv("SF_TRACE_DIR");

static void reg(const void* p, size_t size) { g_buffers.push_back({(const u8*)p, size, (int)g_buffers.size(), ""}); }
template <class T> static T* reg(std::vector<T>& v) { reg(v.data(), v.size() * sizeof(T)); return v.data(); }

static std::string blob(const u8* p, size_t n) {
    // Content-addressed, zlib-compressed: <dir>/<fnv1a-64 hex>.z
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
    char name[64];
    snprintf(name, sizeof name, "%016llx-%zu.z", (unsigned long long)h, n);
    std::string path = std::string(g_trace_dir) + "/" + name;
    if (FILE* f = fopen(path.c_str(), "rb")) { fclose(f); return name; }
    uLongf len = compressBound(n);
    std::vector<u8> z(len);
    compress2(z.data(), &len, p, n, 6);
    FILE* f = fopen(path.c_str(), "wb");
    fwrite(z.data(), 1, len, f);
    fclose(f);
    return name;
}

static void trace_arg(std::string& out, int v) { out += ",[\"i32\"," + std::to_string(v) + "]"; }
static void trace_arg(std::string& out, float v) { u32 b; memcpy(&b, &v, 4); out += ",[\"f32\"," + std::to_string(b) + "]"; }
static void trace_arg(std::string& out, const void* p) {
    for (auto& b : g_buffers) {
        if ((const u8*)p >= b.base && (const u8*)p < b.base + b.size) {
            if (b.init.empty()) b.init = blob(b.base, b.size);
            out += ",[\"buf\"," + std::to_string(b.id) + "," + std::to_string((const u8*)p - b.base) + "]";
            return;
        }
    }
    fprintf(stderr, "trace: unregistered pointer\n");
    exit(3);
}
template <class... A> static void trace_launch(const char* name, SfDim g, SfDim b, A... a) {
    if (!g_trace_dir) return;
    std::string args;
    (trace_arg(args, a), ...);
    char head[256];
    snprintf(head, sizeof head, "{\"kernel\":\"%s\",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d],\"args\":[", name, g.x, g.y, g.z, b.x, b.y, b.z);
    if (!g_launches.empty()) g_launches += ",\n";
    g_launches += head + args.substr(1) + "]}";
}
static void trace_finish() {
    if (!g_trace_dir) return;
    const char* name = getenv("SF_TRACE_NAME");
    std::string path = std::string(g_trace_dir) + "/" + (name ? name : "trace") + ".json";
    FILE* f = fopen(path.c_str(), "w");
    fprintf(f, "{\"launches\":[\n%s],\n\"buffers\":[", g_launches.c_str());
    bool first = true;
    for (auto& b : g_buffers) {
        if (b.init.empty()) continue;
        fprintf(f, "%s\n{\"id\":%d,\"size\":%zu,\"init\":\"%s\",\"final\":\"%s\"}", first ? "" : ",", b.id, b.size,
                b.init.c_str(), blob(b.base, b.size).c_str());
        first = false;
    }
    fprintf(f, "]}\n");
    fclose(f);
}

#define LAUNCH(fn, grid, block, ...) \
    do { trace_launch(#fn, grid, block, __VA_ARGS__); sf_launch(grid, block, [&] { fn(__VA_ARGS__); }); } while (0)

struct Img {
    int w = 0, h = 0, c = 0, pitch = 0;
    std::vector<u8> data;
    u8* p() { return data.data(); }
};

static Img make(int w, int h, int c) {
    Img m;
    m.w = w; m.h = h; m.c = c;
    m.pitch = (w * c + 15) & ~15;
    m.data.assign((size_t)m.pitch * h + 64, 0xA5);  // padding is garbage: kernels must not read it into results
    return m;
}

// Images live in a list so their buffers stay put (the trace registers them by address).
static std::vector<Img*> g_images;
static Img& image(int w, int h, int c) {
    Img* m = new Img(make(w, h, c));
    reg(m->data);
    g_images.push_back(m);
    return *m;
}

static Img& load(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    int hdr[3];
    if (fread(hdr, 4, 3, f) != 3) exit(2);
    Img& m = image(hdr[0], hdr[1], hdr[2]);
    for (int y = 0; y < m.h; y++) if (fread(m.p() + (size_t)y * m.pitch, 1, m.w * m.c, f) != (size_t)(m.w * m.c)) exit(2);
    fclose(f);
    return m;
}

static void save(const char* path, Img& m) {
    FILE* f = fopen(path, "wb");
    int hdr[3] = {m.w, m.h, m.c};
    fwrite(hdr, 4, 3, f);
    for (int y = 0; y < m.h; y++) fwrite(m.p() + (size_t)y * m.pitch, 1, m.w * m.c, f);
    fclose(f);
}

static int cdiv(int a, int b) { return (a + b - 1) / b; }

// _GaussianKernel.init(sigma:) and .fixedWeights, step by step in the same types.
static std::vector<u16> gaussian_fixed(double sigma, int& radius) {
    radius = std::max(1, (int)std::ceil(3 * sigma));
    std::vector<double> w(radius + 1);
    for (int k = 0; k <= radius; k++) w[k] = std::exp(-(double)(k * k) / (2 * sigma * sigma));
    double tail = 0;
    for (int k = 1; k <= radius; k++) tail += w[k];
    const double sum = w[0] + 2 * tail;
    std::vector<float> wf(radius + 1);
    for (int k = 0; k <= radius; k++) wf[k] = (float)(w[k] / sum);
    float ftail = 0;
    for (int k = 1; k <= radius; k++) ftail += wf[k];
    const float total = wf[0] + 2 * ftail;
    std::vector<u16> fixed(radius + 1);
    for (int k = 0; k <= radius; k++) fixed[k] = (u16)std::min(65535.0, std::round((double)(wf[k] / total) * 65535));
    return fixed;
}

static std::vector<std::vector<u8>*> g_keep;
template <class T> static std::vector<T>& keep(std::vector<T> v) {
    auto* p = new std::vector<T>(std::move(v));
    reg(*p);
    return *p;
}

static void gaussian(Img& in, Img& out, double sigma, int edge, int parity) {
    int radius;
    std::vector<u16>& fixed = keep(gaussian_fixed(sigma, radius));
    const int interp = sigma >= 8;
    const int rows = interp ? sf_gauss_anchor_count(in.h, parity) : in.h;
    std::vector<u16>& words = keep(std::vector<u16>((size_t)in.pitch * rows + 64, 0x5A5A));
    const int groups = cdiv(in.w * in.c, 4);
    LAUNCH(sfumato_gaussian_vertical, SfDim({cdiv(groups, 32), cdiv(rows, 32), 1}), SfDim({32, 8, 1}),
           (const u8*)in.p(), words.data(), in.w, in.h, in.pitch, in.c, edge, (const u16*)fixed.data(), radius, interp, parity);
    LAUNCH(sfumato_gaussian_horizontal, SfDim({cdiv(in.w * in.c, 512), cdiv(in.h, SF_GH_ROWS), 1}), SfDim({32, 8, 1}),
           (const u16*)words.data(), out.p(), in.w, in.h, in.pitch, in.c, edge, (const u16*)fixed.data(), radius, interp, parity);
    if (!interp && radius <= SF_GF_MAX_RADIUS) {
        // The one-launch kernel must give the same bytes.
        Img& fused = image(in.w, in.h, in.c);
        LAUNCH(sfumato_gaussian, SfDim({cdiv(in.w * in.c, 512), cdiv(in.h, SF_GF_ROWS), 1}), SfDim({32, 8, 1}),
               (const u8*)in.p(), fused.p(), in.w, in.h, in.pitch, in.c, edge, (const u16*)fixed.data(), radius);
        for (int y = 0; y < in.h; y++)
            if (memcmp(out.p() + (size_t)y * out.pitch, fused.p() + (size_t)y * fused.pitch, in.w * in.c)) {
                fprintf(stderr, "sfumato_gaussian differs from the two passes on row %d\n", y);
                exit(1);
            }
    }
    fprintf(stderr, "gaussian sigma %g radius %d interp %d weights", sigma, radius, interp);
    for (int k = 0; k <= std::min(radius, 4); k++) fprintf(stderr, " %u", fixed[k]);
    fprintf(stderr, "\n");
}

static void extreme_rect(Img& in, Img& out, int w, int h, int maximum, int edge) {
    Img& mid = image(in.w, in.h, in.c);
    const int units = in.c == 4 ? in.w : cdiv(in.w, 4);
    LAUNCH(sfumato_extreme_rows, SfDim({cdiv(units, 32), cdiv(in.h, 8), 1}), SfDim({32, 8, 1}),
           (const u8*)in.p(), mid.p(), in.w, in.h, in.pitch, in.c, edge, w, -(w / 2), maximum);
    LAUNCH(sfumato_extreme_columns, SfDim({cdiv(cdiv(in.w * in.c, 4), 32), cdiv(in.h, 8), 1}), SfDim({32, 8, 1}),
           (const u8*)mid.p(), out.p(), in.w, in.h, in.pitch, in.c, edge, h, -(h / 2), maximum);
}

// Runs sfumato_extreme_spans with the runs of a flat probe (0 = in), as _ProbeKernel finds them.
static void extreme_flat(Img& in, Img& out, int pw, int ph, const std::vector<double>& probe, int maximum, int edge) {
    std::vector<int> sp;
    const int cx = pw / 2, cy = ph / 2;
    for (int i = 0; i < ph; i++) {
        int a = -1, b = -1;
        for (int j = 0; j < pw; j++) if (probe[i * pw + j] == 0) { if (a < 0) a = j; b = j; }
        if (a < 0) continue;
        sp.push_back(i - cy); sp.push_back(a - cx); sp.push_back(b - cx);
    }
    std::vector<int>& spans = keep(sp);
    const int units = in.c == 4 ? in.w : cdiv(in.w, 4);
    LAUNCH(sfumato_extreme_spans, SfDim({cdiv(units, 32), cdiv(in.h, 8), 1}), SfDim({32, 8, 1}),
           (const u8*)in.p(), out.p(), in.w, in.h, in.pitch, in.c, edge, (const int*)spans.data(), (int)spans.size() / 3, maximum);
}

static void extreme_probe(Img& in, Img& out, int pw, int ph, const std::vector<double>& probe, int maximum, int edge) {
    std::vector<u8> lv(pw * ph);
    for (int i = 0; i < pw * ph; i++) lv[i] = (u8)std::min(std::max(std::round((float)probe[i] * 255.0f), 0.0f), 255.0f);
    std::vector<u8>& q = keep(lv);
    LAUNCH(sfumato_extreme_probe, SfDim({cdiv(in.w, 32), cdiv(in.h, 8), 1}), SfDim({32, 8, 1}),
           (const u8*)in.p(), out.p(), in.w, in.h, in.pitch, in.c, edge, pw, ph, (const u8*)q.data(), maximum);
}

static std::vector<u32>& histogram(Img& in) {
    std::vector<u32>& counts = keep(std::vector<u32>(1024, 0));
    LAUNCH(sfumato_histogram, SfDim({3, std::min(in.h, 7), 1}), SfDim({256, 1, 1}),
           (const u8*)in.p(), in.w, in.h, in.pitch, in.c, counts.data());
    return counts;
}

static void lookup(Img& in, Img& out, std::vector<u8>& table) {
    LAUNCH(sfumato_lookup, SfDim({cdiv(cdiv(in.w * in.c, 16), 64), cdiv(in.h, 4), 1}), SfDim({64, 4, 1}),
           (const u8*)in.p(), out.p(), in.w, in.h, in.pitch, in.c, (const u8*)table.data());
}

// HistogramEqualization.table.
static std::vector<u8> equalization(const u32* counts) {
    long n = 0, cdfMin = 0;
    for (int i = 0; i < 256; i++) n += counts[i];
    for (int i = 0; i < 256; i++) if (counts[i] > 0) { cdfMin = counts[i]; break; }
    std::vector<u8> t(256);
    if (cdfMin == n) { for (int i = 0; i < 256; i++) t[i] = (u8)i; return t; }
    long cdf = 0;
    for (int i = 0; i < 256; i++) {
        cdf += counts[i];
        t[i] = (u8)std::max(0.0, std::min(255.0, std::round(255 * (double)(cdf - cdfMin) / (double)(n - cdfMin))));
    }
    return t;
}

// _ConvolutionKernel.factor, in Float.
static bool factor(int w, int h, const std::vector<float>& m, std::vector<float>& column, std::vector<float>& row) {
    if (!(w > 1 && h > 1)) return false;
    int best = 0;
    for (int i = 1; i < w * h; i++) if (std::fabs(m[best]) < std::fabs(m[i])) best = i;
    const int p = best / w, q = best % w;
    if (m[p * w + q] == 0) return false;
    row.assign(w, 0); column.assign(h, 0);
    for (int i = 0; i < w; i++) row[i] = m[p * w + i];
    for (int j = 0; j < h; j++) column[j] = m[j * w + q] / m[p * w + q];
    float scale = 0;
    for (float v : m) scale = std::max(scale, std::fabs(v));
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++)
            if (std::fabs(m[j * w + i] - column[j] * row[i]) > 1e-6f * scale) return false;
    return true;
}

static int run(int argc, char** argv) {
    const std::string cmd = argv[1];
    Img& in = load(argv[2]);
    Img& out = image(in.w, in.h, in.c);
    auto arg = [&](int i) { return atof(argv[4 + i]); };
    auto iarg = [&](int i) { return atoi(argv[4 + i]); };
    const SfDim b32x8{32, 8, 1};
    const SfDim pixels{cdiv(in.w, 32), cdiv(in.h, 8), 1};
    const u8* src = in.p();
    if (cmd == "gaussian") {
        gaussian(in, out, arg(0), iarg(1), argc > 6 ? iarg(2) : 0);
    } else if (cmd == "median") {
        const int d = iarg(0), edge = iarg(2);
        const std::string which = argv[5];
        const SfDim quads{cdiv(cdiv(in.w, 4), 32), cdiv(in.h, 8), 1};
        if (which == "net" && d == 3) LAUNCH(sfumato_median3, quads, b32x8, src, out.p(), in.w, in.h, in.pitch, in.c, edge);
        else if (which == "net" && d == 5) LAUNCH(sfumato_median5, quads, b32x8, src, out.p(), in.w, in.h, in.pitch, in.c, edge);
        else if (which == "net" && d == 7) LAUNCH(sfumato_median7, quads, b32x8, src, out.p(), in.w, in.h, in.pitch, in.c, edge);
        else LAUNCH(sfumato_median, SfDim({cdiv(in.w * in.c, 64), cdiv(in.h, 64), 1}), SfDim({64, 1, 1}),
                    src, out.p(), in.w, in.h, in.pitch, in.c, edge, d);
    } else if (cmd == "conv3") {
        std::vector<int>& w = keep(std::vector<int>(9));
        for (int i = 0; i < 9; i++) w[i] = iarg(3 + i);
        const int shift = iarg(0), bias = iarg(1), keepAlpha = iarg(2);
        LAUNCH(sfumato_convolve3x3, pixels, b32x8, src, out.p(), in.w, in.h, in.pitch, in.c, 0,
               w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], shift, bias, keepAlpha);
        Img& other = image(in.w, in.h, in.c);
        LAUNCH(sfumato_convolve, pixels, b32x8, src, other.p(), in.w, in.h, in.pitch, in.c, 0, 3, 3, (const int*)w.data(), shift, bias, keepAlpha);
        for (int y = 0; y < in.h; y++)
            if (memcmp(out.p() + (size_t)y * out.pitch, other.p() + (size_t)y * other.pitch, in.w * in.c)) {
                fprintf(stderr, "sfumato_convolve differs from sfumato_convolve3x3 on row %d\n", y);
                return 1;
            }
    } else if (cmd == "sobel") {
        LAUNCH(sfumato_sobel, pixels, b32x8, src, out.p(), in.w, in.h, in.pitch, in.c, 0);
    } else if (cmd == "sobelluma") {
        const float wr = (float)arg(0), wg = (float)arg(1), wb = (float)arg(2);
        LAUNCH(sfumato_sobel_luma, pixels, b32x8, src, out.p(), in.w, in.h, in.pitch, in.c, 0, wr, wg, wb);
    } else if (cmd == "convf") {
        const int kw = iarg(0), kh = iarg(1);
        const float bias = (float)arg(2);
        const int keepAlpha = iarg(3);
        std::vector<float> wts(kw * kh), column, row;
        for (int i = 0; i < kw * kh; i++) wts[i] = (float)arg(4 + i);
        const int separable = factor(kw, kh, wts, column, row);
        if (!separable) { column.assign(kh, 0); row.assign(kw, 0); }
        fprintf(stderr, "convf separable %d\n", separable);
        std::vector<float>& W = keep(wts);
        std::vector<float>& R = keep(row);
        std::vector<float>& C = keep(column);
        LAUNCH(sfumato_convolve_float, pixels, b32x8, src, out.p(), in.w, in.h, in.pitch, in.c, 0, kw, kh,
               (const float*)W.data(), (const float*)R.data(), (const float*)C.data(), separable, bias, keepAlpha);
    } else if (cmd == "rect") {
        extreme_rect(in, out, iarg(0), iarg(1), iarg(2), 0);
    } else if (cmd == "closing") {
        Img& mid = image(in.w, in.h, in.c);
        extreme_rect(in, mid, iarg(0), iarg(1), 1, 0);
        extreme_rect(mid, out, iarg(0), iarg(1), 0, 0);
    } else if (cmd == "disc") {
        // Dilate.disc(diameter:radius:)
        const int d = iarg(0);
        const double radius = arg(1), c = d / 2.0;
        std::vector<double> probe(d * d);
        for (int k = 0; k < d * d; k++) probe[k] = std::hypot((double)(k / d) - c, (double)(k % d) - c) < radius ? 0 : 1;
        const std::string how = argc > 6 ? argv[6] : "spans";
        if (how == "spans") extreme_flat(in, out, d, d, probe, 1, 0);
        else extreme_probe(in, out, d, d, probe, 1, 0);
    } else if (cmd == "probe") {
        const int pw = iarg(0), ph = iarg(1), maximum = iarg(2);
        std::vector<double> probe(pw * ph);
        for (int i = 0; i < pw * ph; i++) probe[i] = arg(3 + i);
        extreme_probe(in, out, pw, ph, probe, maximum, 0);
    } else if (cmd == "hist") {
        std::vector<u32>& counts = histogram(in);
        FILE* f = fopen(argv[3], "w");
        for (int i = 0; i < 1024; i++) fprintf(f, "%u\n", counts[i]);
        fclose(f);
        return 0;
    } else if (cmd == "equalize") {
        std::vector<u32>& counts = histogram(in);
        std::vector<u8> t(768);
        for (int c = 0; c < 3; c++) {
            std::vector<u8> e = equalization(counts.data() + 256 * c);
            std::copy(e.begin(), e.end(), t.begin() + 256 * c);
        }
        lookup(in, out, keep(t));
    } else if (cmd == "threshold") {
        const float threshold = (float)arg(0), maximum = (float)arg(1);
        const float wr = (float)arg(2), wg = (float)arg(3), wb = (float)arg(4);
        // StraightBytes.encode: clamp, x 255, nearest (ties to even).
        const int on = (int)std::nearbyint(std::min(std::max(maximum, 0.0f), 1.0f) * 255.0f), off = 0;
        LAUNCH(sfumato_threshold, SfDim({cdiv(cdiv(in.w * in.c, 16), 64), cdiv(in.h, 4), 1}), SfDim({64, 4, 1}),
               src, out.p(), in.w, in.h, in.pitch, in.c, wr, wg, wb, threshold, on, off);
    } else {
        fprintf(stderr, "unknown command %s\n", cmd.c_str());
        return 2;
    }
    save(argv[3], out);
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 4) { fprintf(stderr, "usage: harness COMMAND IN OUT ARGS...\n"); return 2; }
    const int rc = run(argc, argv);
    trace_finish();
    return rc;
}
