/// PTX for a fused point program on opaque RGBA8 pixels, generated at run time (as Core Image
/// compiles its fused kernels). The text depends only on the program's shape, the kind and order
/// of its steps; every number (matrix products, tables) is a kernel argument, so moving a slider
/// launches the module already loaded.
///
/// Each step is one of the CPU's own 8-bit routes, done with the same integers:
/// - `table`: one 256-entry table per colour channel (per-channel programs, `_PointExec.lut`);
/// - `matrixTail`: nine 256-entry tables of fixed-point products (the matrix), three biases,
///   then per channel a table of the curves over 16385 steps (`_PointExec.tailFixed`).
///
/// Kernel `sfumato_point` takes `(src u64, dst u64, count u32, then per step: tables u64)`; one
/// thread maps one pixel (4 bytes; alpha is kept, every pixel being opaque); blocks of 256.
enum _PointKernelPTX {
    enum Step: Equatable, Hashable {
        case table
        case matrixTail
    }

    static let entry = "sfumato_point"
    static let blockSize = 256

    /// The PTX text of the kernel for `steps` (at least one).
    static func text(for steps: [Step]) -> String {
        precondition(!steps.isEmpty, "a point kernel needs a step")
        var params = [".param .u64 src", ".param .u64 dst", ".param .u32 count"]
        for (i, step) in steps.enumerated() {
            switch step {
            case .table: params.append(".param .u64 table\(i)")
            case .matrixTail: params += [".param .u64 fixed\(i)", ".param .u64 tail\(i)"]
            }
        }
        var body: [String] = [
            "ld.param.u64 %rd1, [src];", "ld.param.u64 %rd2, [dst];", "ld.param.u32 %r1, [count];",
            "mov.u32 %r2, %ctaid.x;", "mov.u32 %r3, %ntid.x;", "mov.u32 %r4, %tid.x;",
            "mad.lo.u32 %r5, %r2, %r3, %r4;",
            "setp.ge.u32 %p1, %r5, %r1;", "@%p1 bra DONE;",
            "cvta.to.global.u64 %rd1, %rd1;", "cvta.to.global.u64 %rd2, %rd2;",
            "mul.wide.u32 %rd3, %r5, 4;", "add.u64 %rd4, %rd1, %rd3;", "add.u64 %rd5, %rd2, %rd3;",
            "ld.global.nc.u32 %r6, [%rd4];",
            // Channels: %r10 red, %r11 green, %r12 blue; alpha stays in %r6's top byte.
            "and.b32 %r10, %r6, 255;", "bfe.u32 %r11, %r6, 8, 8;", "bfe.u32 %r12, %r6, 16, 8;",
        ]
        for (i, step) in steps.enumerated() {
            switch step {
            case .table:
                body.append("ld.param.u64 %rd10, [table\(i)];")
                body.append("cvta.to.global.u64 %rd10, %rd10;")
                for c in 0..<3 {
                    let ch = "%r\(10 + c)"
                    body += [
                        "add.u32 %r20, \(ch), \(c * 256);", "cvt.u64.u32 %rd11, %r20;", "add.u64 %rd12, %rd10, %rd11;",
                        "ld.global.nc.u8 %rs1, [%rd12];", "cvt.u32.u16 \(ch), %rs1;",
                    ]
                }
            case .matrixTail:
                body += [
                    "ld.param.u64 %rd10, [fixed\(i)];", "cvta.to.global.u64 %rd10, %rd10;",
                    "ld.param.u64 %rd13, [tail\(i)];", "cvta.to.global.u64 %rd13, %rd13;",
                ]
                // Index of each channel's entry in its table of products, as byte offsets.
                body += [
                    "mul.wide.u32 %rd20, %r10, 4;", "mul.wide.u32 %rd21, %r11, 4;", "mul.wide.u32 %rd22, %r12, 4;",
                    "add.u64 %rd20, %rd10, %rd20;", "add.u64 %rd21, %rd10, %rd21;", "add.u64 %rd22, %rd10, %rd22;",
                ]
                for o in 0..<3 {
                    // sum = f[(3o)*256 + r] + f[(3o+1)*256 + g] + f[(3o+2)*256 + b] + bias[o] (wrapping,
                    // as the CPU's &+), index = clamp(sum >> 4, 0, 16384), out = tail[o*16385 + index].
                    let base = 3 * o * 256 * 4
                    body += [
                        "ld.global.nc.s32 %r30, [%rd20+\(base)];",
                        "ld.global.nc.s32 %r31, [%rd21+\(base + 256 * 4)];",
                        "ld.global.nc.s32 %r32, [%rd22+\(base + 512 * 4)];",
                        "ld.global.nc.s32 %r33, [%rd10+\((9 * 256 + o) * 4)];",
                        "add.s32 %r34, %r30, %r31;", "add.s32 %r34, %r34, %r32;", "add.s32 %r34, %r34, %r33;",
                        "shr.s32 %r34, %r34, 4;", "max.s32 %r34, %r34, 0;", "min.s32 %r34, %r34, 16384;",
                        "add.s32 %r34, %r34, \(o * 16385);", "cvt.u64.u32 %rd23, %r34;", "add.u64 %rd23, %rd13, %rd23;",
                        "ld.global.nc.u8 %rs1, [%rd23];", "cvt.u32.u16 %r\(40 + o), %rs1;",
                    ]
                }
                body += ["mov.u32 %r10, %r40;", "mov.u32 %r11, %r41;", "mov.u32 %r12, %r42;"]
            }
        }
        body += [
            "and.b32 %r7, %r6, 0xFF000000;",  // alpha, kept
            "shl.b32 %r11, %r11, 8;", "shl.b32 %r12, %r12, 16;",
            "or.b32 %r7, %r7, %r10;", "or.b32 %r7, %r7, %r11;", "or.b32 %r7, %r7, %r12;",
            "st.global.u32 [%rd5], %r7;",
            "DONE:", "ret;",
        ]
        let name = steps.map { $0 == .table ? "t" : "m" }.joined()
        return """
            // Sfumato point kernel (\(name)), generated by _PointKernelPTX.
            .version 7.0
            .target sm_80
            .address_size 64

            .visible .entry \(entry)(
                \(params.joined(separator: ",\n    "))
            )
            {
                .reg .pred %p<4>;
                .reg .b16 %rs<4>;
                .reg .b32 %r<64>;
                .reg .b64 %rd<32>;
                \(body.map { $0.hasSuffix(":") ? $0 : "    " + $0 }.joined(separator: "\n    "))
            }

            """
    }
}
