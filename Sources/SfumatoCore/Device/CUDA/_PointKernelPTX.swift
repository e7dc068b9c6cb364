/// PTX for a fused point program on opaque RGBA8 pixels, generated at run time (as Core Image
/// compiles its fused kernels). The text depends only on the program's shape, the kind and order
/// of its steps; every number (matrix, tables) is a kernel argument, so moving a slider launches
/// the module already loaded.
///
/// Each step is one of the CPU's own 8-bit routes, with the same arithmetic, so the bytes agree:
/// - `table`: one 256-entry table per colour channel (per-channel programs, `_PointExec.lut`),
///   held in shared memory;
/// - `matrixTail` (`_PointExec.mapMatrixTail`): the matrix in float, multiply then add in the
///   CPU's order with no fused multiply-add, rounded to the nearest of 16384 steps by the same
///   1.5·2^23 trick, then a table of the curves per channel; the last `w mod 4` pixels of each
///   tile row take the CPU's fixed-point route (nine tables of products), as its loop does.
///
/// Kernel `sfumato_point(src, dst: u64, count, width, tileWidth, ragged, rowPixels: u32, then per
/// step its arguments)` (`ragged` 1 when some tile row's width is not a multiple of 4; rows are
/// `rowPixels` apart, padding included): blocks of 256 threads, each thread four pixels (one 16-byte load and store) per
/// turn of a grid-stride loop; alpha is kept (every pixel is opaque).
enum _PointKernelPTX {
    enum Step: Equatable, Hashable {
        case table
        case matrixTail
    }

    static let entry = "sfumato_point"
    static let blockSize = 256

    /// Bytes of shared memory a matrix tail's table takes (three tables of 16385 steps, padded).
    static let tailBytes = 49168

    /// Dynamic shared memory the kernel for `steps` needs.
    static func sharedBytes(for steps: [Step]) -> Int { steps.filter { $0 == .matrixTail }.count * tailBytes }

    /// Kernel arguments of one step (after the seven common ones), in order.
    static func parameterCount(_ step: Step) -> Int { step == .table ? 1 : 16 }

    /// The PTX text of the kernel for `steps` (at least one).
    static func text(for steps: [Step]) -> String {
        precondition(!steps.isEmpty, "a point kernel needs a step")
        var params = [
            ".param .u64 src", ".param .u64 dst", ".param .u32 count", ".param .u32 width", ".param .u32 tileWidth",
            ".param .u32 ragged", ".param .u32 rowPixels"
        ]
        var shared: [String] = []
        var setup: [String] = []
        var tailOffset = 0
        for (i, step) in steps.enumerated() {
            switch step {
            case .table:
                params.append(".param .u64 table\(i)")
                shared.append(".shared .align 4 .b8 lut\(i)[768];")
                // Threads 0..<192 copy one word each of the 768-byte table.
                setup += [
                    "ld.param.u64 %rd30, [table\(i)];", "cvta.to.global.u64 %rd30, %rd30;",
                    "setp.lt.u32 %p2, %r4, 192;", "@!%p2 bra SKIP\(i);",
                    "mul.wide.u32 %rd31, %r4, 4;", "add.u64 %rd32, %rd30, %rd31;", "ld.global.nc.u32 %r20, [%rd32];",
                    "mov.u32 %r21, lut\(i);", "mad.lo.u32 %r21, %r4, 4, %r21;", "st.shared.u32 [%r21], %r20;",
                    "SKIP\(i):"
                ]
            case .matrixTail:
                params += (0..<12).map { ".param .f32 m\(i)_\($0)" }
                params += [".param .u64 levels\(i)", ".param .u64 fixed\(i)", ".param .u64 tail\(i)", ".param .f32 top\(i)"]
                shared.append(".shared .align 4 .f32 level\(i)[256];")
                setup += [
                    "ld.param.u64 %rd30, [levels\(i)];", "cvta.to.global.u64 %rd30, %rd30;",
                    "mul.wide.u32 %rd31, %r4, 4;", "add.u64 %rd32, %rd30, %rd31;", "ld.global.nc.f32 %f20, [%rd32];",
                    "mov.u32 %r21, level\(i);", "mad.lo.u32 %r21, %r4, 4, %r21;", "st.shared.f32 [%r21], %f20;",
                    // The curves' table into dynamic shared memory, a word a thread per turn: its
                    // lookups, three a pixel at scattered steps, are the kernel's hot loads.
                    "ld.param.u64 %rd30, [tail\(i)];", "cvta.to.global.u64 %rd30, %rd30;", "mov.u32 %r22, %r4;",
                    "TAILCOPY\(i):", "setp.ge.u32 %p2, %r22, \(tailBytes / 4);", "@%p2 bra TAILDONE\(i);",
                    "mul.wide.u32 %rd31, %r22, 4;", "add.u64 %rd32, %rd30, %rd31;", "ld.global.nc.u32 %r20, [%rd32];",
                    "mov.u32 %r21, tables;", "add.u32 %r21, %r21, \(tailOffset);", "mad.lo.u32 %r21, %r22, 4, %r21;",
                    "st.shared.u32 [%r21], %r20;", "add.u32 %r22, %r22, %r3;", "bra TAILCOPY\(i);", "TAILDONE\(i):"
                ]
                tailOffset += tailBytes
            }
        }
        var labels = 0  // each pixel's code has branches of its own
        var body: [String] = [
            "ld.param.u64 %rd1, [src];", "ld.param.u64 %rd2, [dst];", "ld.param.u32 %r1, [count];",
            "ld.param.u32 %r8, [width];", "ld.param.u32 %r9, [tileWidth];", "ld.param.u32 %r19, [ragged];", "ld.param.u32 %r23, [rowPixels];",
            "cvta.to.global.u64 %rd1, %rd1;", "cvta.to.global.u64 %rd2, %rd2;",
            "mov.u32 %r2, %ctaid.x;", "mov.u32 %r3, %ntid.x;", "mov.u32 %r4, %tid.x;", "mov.u32 %r5, %nctaid.x;"
        ]
        body += setup
        body += [
            "bar.sync 0;",
            "mad.lo.u32 %r6, %r2, %r3, %r4;",  // global thread
            "mul.lo.u32 %r7, %r5, %r3;",  // threads in the grid
            "shr.u32 %r10, %r1, 2;",  // quads
            "mov.u32 %r11, %r6;",
            "QUAD:", "setp.ge.u32 %p1, %r11, %r10;", "@%p1 bra REST;",
            "mul.wide.u32 %rd3, %r11, 16;", "add.u64 %rd4, %rd1, %rd3;", "add.u64 %rd5, %rd2, %rd3;",
            "ld.global.nc.v4.u32 {%r12, %r13, %r14, %r15}, [%rd4];"
        ]
        for k in 0..<4 {
            body.append("shl.b32 %r16, %r11, 2;")
            if k > 0 { body.append("add.u32 %r16, %r16, \(k);") }
            body += pixel(input: "%r\(12 + k)", index: "%r16", steps: steps, labels: &labels)
            body.append("mov.u32 %r\(12 + k), %r17;")
        }
        body += [
            "st.global.v4.u32 [%rd5], {%r12, %r13, %r14, %r15};",
            "add.u32 %r11, %r11, %r7;", "bra QUAD;",
            // The last count mod 4 pixels, one a thread.
            "REST:", "and.b32 %r18, %r1, 3;", "setp.ge.u32 %p1, %r6, %r18;", "@%p1 bra DONE;",
            "shl.b32 %r16, %r10, 2;", "add.u32 %r16, %r16, %r6;",
            "mul.wide.u32 %rd3, %r16, 4;", "add.u64 %rd4, %rd1, %rd3;", "add.u64 %rd5, %rd2, %rd3;",
            "ld.global.nc.u32 %r12, [%rd4];"
        ]
        body += pixel(input: "%r12", index: "%r16", steps: steps, labels: &labels)
        body += ["st.global.u32 [%rd5], %r17;", "DONE:", "ret;"]
        if tailOffset > 0 { shared.append(".extern .shared .align 16 .b8 tables[];") }
        let name = steps.map { $0 == .table ? "t" : "m" }.joined()
        return """
            // Sfumato point kernel (\(name)), generated by _PointKernelPTX.
            .version 7.0
            .target sm_80
            .address_size 64

            \(shared.joined(separator: "\n"))

            .visible .entry \(entry)(
                \(params.joined(separator: ",\n    "))
            )
            {
                .reg .pred %p<8>;
                .reg .b16 %rs<4>;
                .reg .b32 %r<80>;
                .reg .f32 %f<40>;
                .reg .b64 %rd<40>;
            \(body.map { $0.hasSuffix(":") ? $0 : "    " + $0 }.joined(separator: "\n"))
            }

            """
    }

    /// One pixel: the word in `input`, its index in the image in `index`; the result in %r17.
    /// Channels live in %r40 (red), %r41 (green), %r42 (blue).
    private static func pixel(input: String, index: String, steps: [Step], labels: inout Int) -> [String] {
        var code = ["and.b32 %r40, \(input), 255;", "bfe.u32 %r41, \(input), 8, 8;", "bfe.u32 %r42, \(input), 16, 8;"]
        for (i, step) in steps.enumerated() {
            switch step {
            case .table:
                for c in 0..<3 {
                    code += [
                        "mov.u32 %r43, lut\(i);", "add.u32 %r43, %r43, %r\(40 + c);",
                        "ld.shared.u8 %r\(40 + c), [%r43+\(c * 256)];"
                    ]
                }
            case .matrixTail:
                labels += 1
                let offset = steps[..<i].filter { $0 == .matrixTail }.count * tailBytes
                code += matrixTail(i, index: index, label: "MT\(labels)", tailOffset: offset)
            }
        }
        code += [
            "and.b32 %r17, \(input), 0xFF000000;", "shl.b32 %r41, %r41, 8;", "shl.b32 %r42, %r42, 16;",
            "or.b32 %r17, %r17, %r40;", "or.b32 %r17, %r17, %r41;", "or.b32 %r17, %r17, %r42;"
        ]
        return code
    }

    /// `mapMatrixTail` for one pixel, step `i`.
    private static func matrixTail(_ i: Int, index: String, label: String, tailOffset: Int) -> [String] {
        var code = [
            // Which route the CPU's loop takes: x within its tile, and the tile's own width (only
            // where some tile row has a width that is not a multiple of 4: %r19 says).
            "mov.u32 %r24, tables;", "add.u32 %r24, %r24, \(tailOffset);",
            "setp.eq.u32 %p4, %r19, 0;", "@%p4 bra \(label)_FLOAT;",
            "rem.u32 %r50, \(index), %r23;", "rem.u32 %r51, %r50, %r9;", "sub.u32 %r52, %r50, %r51;",
            "sub.u32 %r52, %r8, %r52;", "min.u32 %r52, %r52, %r9;", "and.b32 %r53, %r52, 3;", "sub.u32 %r52, %r52, %r53;",
            "setp.ge.u32 %p3, %r51, %r52;", "@%p3 bra \(label)_FIXED;",
            "\(label)_FLOAT:",
            // Float: the levels from shared memory.
            "mov.u32 %r54, level\(i);",
            "mad.lo.u32 %r55, %r40, 4, %r54;", "ld.shared.f32 %f1, [%r55];",
            "mad.lo.u32 %r55, %r41, 4, %r54;", "ld.shared.f32 %f2, [%r55];",
            "mad.lo.u32 %r55, %r42, 4, %r54;", "ld.shared.f32 %f3, [%r55];",
            "ld.param.f32 %f9, [top\(i)];"
        ]
        for o in 0..<3 {
            code += [
                "ld.param.f32 %f4, [m\(i)_\(4 * o)];", "ld.param.f32 %f5, [m\(i)_\(4 * o + 1)];",
                "ld.param.f32 %f6, [m\(i)_\(4 * o + 2)];", "ld.param.f32 %f7, [m\(i)_\(4 * o + 3)];",
                "mul.rn.f32 %f10, %f4, %f1;", "mul.rn.f32 %f11, %f5, %f2;", "add.rn.f32 %f10, %f10, %f11;",
                "mul.rn.f32 %f11, %f6, %f3;", "add.rn.f32 %f10, %f10, %f11;", "add.rn.f32 %f10, %f10, %f7;",
                "add.rn.f32 %f10, %f10, 0f4B400000;", "max.f32 %f10, %f10, 0f4B400000;", "min.f32 %f10, %f10, %f9;",
                "mov.b32 %r56, %f10;", "sub.u32 %r56, %r56, 0x4B400000;",
                "add.u32 %r56, %r56, %r24;", "ld.shared.u8 %r\(60 + o), [%r56+\(o * 16385)];"
            ]
        }
        code += ["bra \(label)_END;", "\(label)_FIXED:"]
        // Fixed point: sum of three products from the tables, plus the bias with its rounding half.
        code += [
            "ld.param.u64 %rd22, [fixed\(i)];", "cvta.to.global.u64 %rd22, %rd22;",
            "mul.wide.u32 %rd23, %r40, 4;", "add.u64 %rd23, %rd22, %rd23;",
            "mul.wide.u32 %rd24, %r41, 4;", "add.u64 %rd24, %rd22, %rd24;",
            "mul.wide.u32 %rd25, %r42, 4;", "add.u64 %rd25, %rd22, %rd25;"
        ]
        for o in 0..<3 {
            let base = 3 * o * 256 * 4
            code += [
                "ld.global.nc.s32 %r57, [%rd23+\(base)];", "ld.global.nc.s32 %r58, [%rd24+\(base + 1024)];",
                "ld.global.nc.s32 %r59, [%rd25+\(base + 2048)];", "ld.global.nc.s32 %r56, [%rd22+\((9 * 256 + o) * 4)];",
                "add.s32 %r56, %r56, %r57;", "add.s32 %r56, %r56, %r58;", "add.s32 %r56, %r56, %r59;",
                "shr.s32 %r56, %r56, 4;", "max.s32 %r56, %r56, 0;", "min.s32 %r56, %r56, 16384;",
                "add.u32 %r56, %r56, %r24;", "ld.shared.u8 %r\(60 + o), [%r56+\(o * 16385)];"
            ]
        }
        code += ["\(label)_END:", "mov.u32 %r40, %r60;", "mov.u32 %r41, %r61;", "mov.u32 %r42, %r62;"]
        return code
    }

}
