import CJPEG
import Foundation
import SfumatoCore

/// JPEG compression of opaque RGBA rows with the colour conversion on a second thread.
///
/// libjpeg-turbo spends about a quarter of a compression converting RGB to Y, Cb and Cr and
/// downsampling the chroma, and the rest on the DCT and the entropy coder, all on one thread.
/// Here a helper thread runs TurboJPEG's own conversion (`tjEncodeYUVPlanes`, the same SIMD
/// code) a band of rows ahead, while the calling thread compresses the bands already converted
/// through libjpeg's raw-data input: the conversion's time leaves the critical path, and memory
/// stays a few bands however large the image. The planes are padded to whole blocks as
/// libjpeg's scanline input pads them, so the file is the same byte for byte: the last pixel
/// repeated across before converting (the last MCU column is converted again from such a
/// copy), and the last converted row repeated down.
enum _JPEGPlanarEncoder {
    /// Luma rows converted at a time: a multiple of 16, the tallest MCU.
    static let bandRows = 64
    /// Bands converted ahead of the compressor at most.
    static let ringBands = 4

    /// Whether an image is worth a second thread: more than one core, and at least a megapixel.
    static func worthwhile(width: Int, height: Int) -> Bool {
        defaultThreadCount > 1 && height >= 2 * bandRows && width * height >= 1 << 20
    }

    /// Compresses `height` rows of `width` opaque RGBA pixels, `rowBytes` apart; writes the ICC
    /// profile and the APPn markers given, in order, before the first row.
    static func encode(
        rows: UnsafeRawPointer, width: Int, height: Int, rowBytes: Int, options: EncodeOptions,
        icc: [UInt8], markers: [(marker: Int32, data: [UInt8])]
    ) throws -> [UInt8] {
        let geometry = _PlaneGeometry(width: width, height: height, subsampling: options.chromaSubsampling)
        guard let e = sf_jpeg_encoder_create() else { throw SfumatoError.io("cannot create a JPEG encoder") }
        defer { sf_jpeg_encoder_destroy(e) }
        let output = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: 1)
        let size = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
        output.initialize(to: nil)
        size.initialize(to: 0)
        defer {
            free(output.pointee)
            output.deallocate()
            size.deallocate()
        }
        func check(_ status: Int32) throws {
            if status != 0 {
                throw SfumatoError.io("JPEG encoding failed (\(String(cString: sf_jpeg_message(&e.pointee.err))))")
            }
        }
        try check(
            sf_jpeg_start_compress_planes(
                e, output, size, Int32(width), Int32(height), Int32(options.quality),
                Int32(options.chromaSubsampling.rawValue), options.fastDCT ? 1 : 0))
        if !icc.isEmpty { try check(icc.withUnsafeBufferPointer { sf_jpeg_write_icc(e, $0.baseAddress, UInt32($0.count)) }) }
        for (marker, data) in markers {
            try check(data.withUnsafeBufferPointer { sf_jpeg_write_marker(e, marker, $0.baseAddress, UInt32($0.count)) })
        }

        let ring = _PlaneRing(geometry: geometry, bands: ringBands, bandRows: bandRows)
        let converter = _PlaneConverter(rows: rows, rowBytes: rowBytes, geometry: geometry, ring: ring)
        converter.start()
        do {
            for band in 0..<ring.count(height: height) {
                try converter.waitFor(band)
                let (y, cb, cr) = ring.planes(band)
                let lines = geometry.lines
                var row = 0
                while row < ring.paddedRows(band, height: height) {
                    try check(
                        sf_jpeg_write_planes(
                            e, y + row * geometry.lumaStride, geometry.lumaStride, cb + row / geometry.vertical * geometry.chromaStride,
                            cr + row / geometry.vertical * geometry.chromaStride, geometry.chromaStride))
                    row += lines
                }
                converter.release(band)
            }
        } catch {
            converter.cancel()
            throw error
        }
        converter.finish()
        try check(sf_jpeg_finish_compress(e))
        guard let bytes = output.pointee else { throw SfumatoError.io("JPEG encoding produced nothing") }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(size.pointee)))
    }
}

/// The planes' sizes for an image and a chroma subsampling.
struct _PlaneGeometry {
    let width: Int
    let height: Int
    let subsampling: Int32
    /// Luma samples per chroma sample, across and down.
    let horizontal: Int
    let vertical: Int
    /// Luma rows in one row of MCUs.
    let lines: Int
    /// The planes' strides: the width padded to whole blocks.
    let lumaStride: Int
    let chromaStride: Int

    init(width: Int, height: Int, subsampling: EncodeOptions.ChromaSubsampling) {
        self.width = width
        self.height = height
        (horizontal, vertical, self.subsampling) =
            switch subsampling {
            case .s444: (1, 1, Int32(TJSAMP_444.rawValue))
            case .s422: (2, 1, Int32(TJSAMP_422.rawValue))
            case .s420: (2, 2, Int32(TJSAMP_420.rawValue))
            }
        lines = 8 * vertical
        lumaStride = (width + 8 * horizontal - 1) / (8 * horizontal) * 8 * horizontal
        chromaStride = lumaStride / horizontal
    }
}

/// A ring of band buffers: luma, then Cb, then Cr, each padded to whole blocks.
final class _PlaneRing: @unchecked Sendable {
    let geometry: _PlaneGeometry
    let bands: Int
    let bandRows: Int
    private let lumaBytes: Int
    private let chromaBytes: Int
    private let memory: UnsafeMutablePointer<UInt8>

    init(geometry: _PlaneGeometry, bands: Int, bandRows: Int) {
        self.geometry = geometry
        self.bands = bands
        self.bandRows = bandRows
        lumaBytes = geometry.lumaStride * bandRows
        chromaBytes = geometry.chromaStride * (bandRows / geometry.vertical)
        memory = .allocate(capacity: bands * (lumaBytes + 2 * chromaBytes))
    }

    deinit { memory.deallocate() }

    func count(height: Int) -> Int { (height + bandRows - 1) / bandRows }

    /// Band `band`'s luma rows in the image, and those rounded up to whole rows of MCUs.
    func rows(_ band: Int, height: Int) -> Int { min(bandRows, height - band * bandRows) }
    func paddedRows(_ band: Int, height: Int) -> Int {
        (rows(band, height: height) + geometry.lines - 1) / geometry.lines * geometry.lines
    }

    func planes(_ band: Int) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) {
        let y = memory + (band % bands) * (lumaBytes + 2 * chromaBytes)
        return (y, y + lumaBytes, y + lumaBytes + chromaBytes)
    }
}

/// The helper thread that fills the ring a band ahead of the compressor.
final class _PlaneConverter: @unchecked Sendable {
    private let rows: UnsafeRawPointer
    private let rowBytes: Int
    private let geometry: _PlaneGeometry
    private let ring: _PlaneRing
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchGroup()
    private let lock = NSLock()
    private var cancelled = false
    private var failure: String?

    init(rows: UnsafeRawPointer, rowBytes: Int, geometry: _PlaneGeometry, ring: _PlaneRing) {
        self.rows = rows
        self.rowBytes = rowBytes
        self.geometry = geometry
        self.ring = ring
        free = DispatchSemaphore(value: ring.bands)
    }

    func start() {
        done.enter()
        Thread.detachNewThread { [self] in
            defer { done.leave() }
            guard let handle = tjInitCompress() else {
                stop(failure: "cannot create a JPEG colour converter")
                return
            }
            defer { tjDestroy(handle) }
            let edge = _EdgeColumns(geometry, bandRows: ring.bandRows)
            for band in 0..<ring.count(height: geometry.height) {
                free.wait()
                if lock.withLock({ cancelled }) { return }
                if let message = convert(band, handle, edge) {
                    stop(failure: message)
                    return
                }
                ready.signal()
            }
        }
    }

    /// Waits until band `band` is converted (bands are taken in order).
    func waitFor(_ band: Int) throws {
        ready.wait()
        if let failure = lock.withLock({ failure }) { throw SfumatoError.io("JPEG encoding failed (\(failure))") }
    }

    /// The compressor is done with band `band`: its buffer may take the next.
    func release(_ band: Int) { free.signal() }

    /// Stops the helper early (the compressor failed) and waits for it.
    func cancel() {
        lock.withLock { cancelled = true }
        for _ in 0..<ring.bands { free.signal() }
        done.wait()
    }

    /// Waits for the helper after the last band.
    func finish() { done.wait() }

    private func stop(failure message: String) {
        lock.withLock { failure = message }
        ready.signal()
    }

    /// Converts one band with TurboJPEG, then pads the planes out to whole blocks. Returns
    /// TurboJPEG's message on failure.
    private func convert(_ band: Int, _ handle: tjhandle, _ edge: _EdgeColumns) -> String? {
        let g = geometry
        let first = band * ring.bandRows
        let count = ring.rows(band, height: g.height)
        let (y, cb, cr) = ring.planes(band)
        var planes: [UnsafeMutablePointer<UInt8>?] = [y, cb, cr]
        var strides = [Int32(g.lumaStride), Int32(g.chromaStride), Int32(g.chromaStride)]
        let status = planes.withUnsafeMutableBufferPointer { p in
            tjEncodeYUVPlanes(
                handle, (rows + first * rowBytes).assumingMemoryBound(to: UInt8.self), Int32(g.width), Int32(rowBytes),
                Int32(count), Int32(TJPF_RGBA.rawValue), p.baseAddress, &strides, g.subsampling, 0)
        }
        if status != 0 { return String(cString: tjGetErrorStr2(handle)) }
        // TurboJPEG wrote its plane sizes (rows rounded up to the subsampling). The columns out to
        // whole blocks, then the rows.
        let lumaRows = (count + g.vertical - 1) / g.vertical * g.vertical
        if g.lumaStride > g.width,
            let message = edge.convert(rows + first * rowBytes, rowBytes: rowBytes, count: count, handle, into: (y, cb, cr))
        {
            return message
        }
        let padded = ring.paddedRows(band, height: g.height)
        _repeatLastRow(y, stride: g.lumaStride, rows: lumaRows, to: padded)
        for plane in [cb, cr] {
            _repeatLastRow(plane, stride: g.chromaStride, rows: lumaRows / g.vertical, to: padded / g.vertical)
        }
        return nil
    }
}

/// The last MCU column of each band converted again from a copy whose last pixel repeats out to
/// whole blocks, as libjpeg's scanline input extends the image before downsampling: repeating
/// the last converted chroma sample instead would differ where the width is even.
final class _EdgeColumns {
    private let geometry: _PlaneGeometry
    /// The first column of the last MCU column, and the columns from there to the padded width.
    private let x0: Int
    private let columns: Int
    private let pixels: UnsafeMutablePointer<UInt8>
    private let planes: UnsafeMutablePointer<UInt8>

    init(_ geometry: _PlaneGeometry, bandRows: Int) {
        self.geometry = geometry
        let mcu = 8 * geometry.horizontal
        x0 = (geometry.width - 1) / mcu * mcu
        columns = geometry.lumaStride - x0
        pixels = .allocate(capacity: 4 * columns * bandRows)
        planes = .allocate(capacity: 3 * columns * bandRows)
    }

    deinit {
        pixels.deallocate()
        planes.deallocate()
    }

    /// Converts the edge of `count` rows and writes it over the band's planes from column `x0`.
    func convert(
        _ rows: UnsafeRawPointer, rowBytes: Int, count: Int, _ handle: tjhandle,
        into band: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>)
    ) -> String? {
        let g = geometry, real = g.width - x0
        for r in 0..<count {
            let source = (rows + r * rowBytes + 4 * x0).assumingMemoryBound(to: UInt8.self)
            let row = pixels + 4 * columns * r
            row.update(from: source, count: 4 * real)
            for x in real..<columns { (row + 4 * x).update(from: source + 4 * (real - 1), count: 4) }
        }
        let chroma = columns / g.horizontal, chromaRows = (count + g.vertical - 1) / g.vertical
        let lumaRows = chromaRows * g.vertical
        let luma = planes, blue = planes + columns * lumaRows, red = blue + chroma * chromaRows
        var out: [UnsafeMutablePointer<UInt8>?] = [luma, blue, red]
        var strides = [Int32(columns), Int32(chroma), Int32(chroma)]
        let status = out.withUnsafeMutableBufferPointer { p in
            tjEncodeYUVPlanes(
                handle, pixels, Int32(columns), Int32(4 * columns), Int32(count), Int32(TJPF_RGBA.rawValue), p.baseAddress,
                &strides, g.subsampling, 0)
        }
        if status != 0 { return String(cString: tjGetErrorStr2(handle)) }
        for r in 0..<lumaRows { (band.0 + r * g.lumaStride + x0).update(from: luma + r * columns, count: columns) }
        for r in 0..<chromaRows {
            (band.1 + r * g.chromaStride + x0 / g.horizontal).update(from: blue + r * chroma, count: chroma)
            (band.2 + r * g.chromaStride + x0 / g.horizontal).update(from: red + r * chroma, count: chroma)
        }
        return nil
    }
}

/// Repeats the last of `rows` rows down to `target` rows.
private func _repeatLastRow(_ p: UnsafeMutablePointer<UInt8>, stride: Int, rows: Int, to target: Int) {
    for r in rows..<max(rows, target) { (p + r * stride).update(from: p + (rows - 1) * stride, count: stride) }
}
