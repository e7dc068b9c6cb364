import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The few entry points of NVIDIA's driver API that the CUDA device calls, found at run time in
/// `libcuda.so.1` (the driver's own library). Nothing CUDA is needed to build: where the library
/// or a GPU is missing, ``load()`` says why and the renderer stays on the CPU.
///
/// Names are the versioned symbols the driver exports (CUDA's headers map `cuMemAlloc` to
/// `cuMemAlloc_v2` and so on); the primary context avoids `cuCtxCreate`'s changing signature.
struct _CUDADriver: @unchecked Sendable {
    typealias Result = Int32
    typealias DevicePointer = UInt64

    let cuInit: @convention(c) (UInt32) -> Result
    let cuDriverGetVersion: @convention(c) (UnsafeMutablePointer<Int32>) -> Result
    let cuDeviceGetCount: @convention(c) (UnsafeMutablePointer<Int32>) -> Result
    let cuDeviceGet: @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Result
    let cuDeviceGetName: @convention(c) (UnsafeMutablePointer<CChar>, Int32, Int32) -> Result
    let cuDeviceGetAttribute: @convention(c) (UnsafeMutablePointer<Int32>, Int32, Int32) -> Result
    let cuDeviceTotalMem: @convention(c) (UnsafeMutablePointer<Int>, Int32) -> Result
    let cuDevicePrimaryCtxRetain: @convention(c) (UnsafeMutablePointer<OpaquePointer?>, Int32) -> Result
    let cuCtxSetCurrent: @convention(c) (OpaquePointer?) -> Result
    let cuMemAlloc: @convention(c) (UnsafeMutablePointer<DevicePointer>, Int) -> Result
    let cuMemFree: @convention(c) (DevicePointer) -> Result
    let cuMemAllocHost: @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>, Int) -> Result
    let cuMemFreeHost: @convention(c) (UnsafeMutableRawPointer?) -> Result
    let cuMemHostRegister: @convention(c) (UnsafeMutableRawPointer?, Int, UInt32) -> Result
    let cuMemHostUnregister: @convention(c) (UnsafeMutableRawPointer?) -> Result
    let cuMemGetInfo: @convention(c) (UnsafeMutablePointer<Int>, UnsafeMutablePointer<Int>) -> Result
    let cuMemcpyHtoDAsync: @convention(c) (DevicePointer, UnsafeRawPointer?, Int, OpaquePointer?) -> Result
    let cuMemcpyDtoHAsync: @convention(c) (UnsafeMutableRawPointer?, DevicePointer, Int, OpaquePointer?) -> Result
    let cuMemcpyDtoDAsync: @convention(c) (DevicePointer, DevicePointer, Int, OpaquePointer?) -> Result
    let cuMemsetD8Async: @convention(c) (DevicePointer, UInt8, Int, OpaquePointer?) -> Result
    let cuStreamCreate: @convention(c) (UnsafeMutablePointer<OpaquePointer?>, UInt32) -> Result
    let cuStreamSynchronize: @convention(c) (OpaquePointer?) -> Result
    let cuEventCreate: @convention(c) (UnsafeMutablePointer<OpaquePointer?>, UInt32) -> Result
    let cuEventRecord: @convention(c) (OpaquePointer?, OpaquePointer?) -> Result
    let cuEventSynchronize: @convention(c) (OpaquePointer?) -> Result
    let cuEventElapsedTime: @convention(c) (UnsafeMutablePointer<Float>, OpaquePointer?, OpaquePointer?) -> Result
    let cuEventDestroy: @convention(c) (OpaquePointer?) -> Result
    let cuModuleLoadDataEx:
        @convention(c) (
            UnsafeMutablePointer<OpaquePointer?>, UnsafeRawPointer, UInt32, UnsafeMutablePointer<Int32>?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> Result
    let cuModuleGetFunction: @convention(c) (UnsafeMutablePointer<OpaquePointer?>, OpaquePointer?, UnsafePointer<CChar>) -> Result
    let cuFuncSetAttribute: @convention(c) (OpaquePointer?, Int32, Int32) -> Result
    let cuLaunchKernel:
        @convention(c) (
            OpaquePointer?, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, OpaquePointer?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> Result
    let cuGetErrorString: @convention(c) (Result, UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Result

    /// Why a driver could not be loaded, in words for `--explain` and `sfumato devices`.
    enum LoadFailure: Error, CustomStringConvertible {
        case noLibrary(String)
        case missingSymbol(String)
        case initFailed(Int32)

        var description: String {
            switch self {
            case .noLibrary(let why): "no NVIDIA driver: libcuda.so.1 could not be loaded (\(why))"
            case .missingSymbol(let s): "the NVIDIA driver lacks \(s) (too old?)"
            case .initFailed(let code): "the NVIDIA driver did not start (cuInit returned \(code): no GPU visible?)"
            }
        }
    }

    /// Loads `libcuda.so.1` (or `SFUMATO_CUDA_LIBRARY`, for tests) and looks every entry up.
    static func load(path: String? = nil) throws -> _CUDADriver {
        let name = path ?? ProcessInfo.processInfo.environment["SFUMATO_CUDA_LIBRARY"] ?? "libcuda.so.1"
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            throw LoadFailure.noLibrary(dlerror().map { String(cString: $0) } ?? name)
        }
        func symbol<T>(_ names: String..., as: T.Type) throws -> T {
            for n in names {
                if let p = dlsym(handle, n) { return unsafeBitCast(p, to: T.self) }
            }
            throw LoadFailure.missingSymbol(names[0])
        }
        return _CUDADriver(
            cuInit: try symbol("cuInit", as: (@convention(c) (UInt32) -> Result).self),
            cuDriverGetVersion: try symbol("cuDriverGetVersion", as: (@convention(c) (UnsafeMutablePointer<Int32>) -> Result).self),
            cuDeviceGetCount: try symbol("cuDeviceGetCount", as: (@convention(c) (UnsafeMutablePointer<Int32>) -> Result).self),
            cuDeviceGet: try symbol("cuDeviceGet", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Result).self),
            cuDeviceGetName: try symbol("cuDeviceGetName", as: (@convention(c) (UnsafeMutablePointer<CChar>, Int32, Int32) -> Result).self),
            cuDeviceGetAttribute: try symbol(
                "cuDeviceGetAttribute", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32, Int32) -> Result).self),
            cuDeviceTotalMem: try symbol("cuDeviceTotalMem_v2", as: (@convention(c) (UnsafeMutablePointer<Int>, Int32) -> Result).self),
            cuDevicePrimaryCtxRetain: try symbol(
                "cuDevicePrimaryCtxRetain", as: (@convention(c) (UnsafeMutablePointer<OpaquePointer?>, Int32) -> Result).self),
            cuCtxSetCurrent: try symbol("cuCtxSetCurrent", as: (@convention(c) (OpaquePointer?) -> Result).self),
            cuMemAlloc: try symbol("cuMemAlloc_v2", as: (@convention(c) (UnsafeMutablePointer<DevicePointer>, Int) -> Result).self),
            cuMemFree: try symbol("cuMemFree_v2", as: (@convention(c) (DevicePointer) -> Result).self),
            cuMemAllocHost: try symbol(
                "cuMemAllocHost_v2", as: (@convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>, Int) -> Result).self),
            cuMemFreeHost: try symbol("cuMemFreeHost", as: (@convention(c) (UnsafeMutableRawPointer?) -> Result).self),
            cuMemHostRegister: try symbol(
                "cuMemHostRegister_v2", "cuMemHostRegister",
                as: (@convention(c) (UnsafeMutableRawPointer?, Int, UInt32) -> Result).self),
            cuMemHostUnregister: try symbol("cuMemHostUnregister", as: (@convention(c) (UnsafeMutableRawPointer?) -> Result).self),
            cuMemGetInfo: try symbol(
                "cuMemGetInfo_v2", as: (@convention(c) (UnsafeMutablePointer<Int>, UnsafeMutablePointer<Int>) -> Result).self),
            cuMemcpyHtoDAsync: try symbol(
                "cuMemcpyHtoDAsync_v2", as: (@convention(c) (DevicePointer, UnsafeRawPointer?, Int, OpaquePointer?) -> Result).self),
            cuMemcpyDtoHAsync: try symbol(
                "cuMemcpyDtoHAsync_v2", as: (@convention(c) (UnsafeMutableRawPointer?, DevicePointer, Int, OpaquePointer?) -> Result).self),
            cuMemcpyDtoDAsync: try symbol(
                "cuMemcpyDtoDAsync_v2", as: (@convention(c) (DevicePointer, DevicePointer, Int, OpaquePointer?) -> Result).self),
            cuMemsetD8Async: try symbol(
                "cuMemsetD8Async", as: (@convention(c) (DevicePointer, UInt8, Int, OpaquePointer?) -> Result).self),
            cuStreamCreate: try symbol("cuStreamCreate", as: (@convention(c) (UnsafeMutablePointer<OpaquePointer?>, UInt32) -> Result).self),
            cuStreamSynchronize: try symbol("cuStreamSynchronize", as: (@convention(c) (OpaquePointer?) -> Result).self),
            cuEventCreate: try symbol("cuEventCreate", as: (@convention(c) (UnsafeMutablePointer<OpaquePointer?>, UInt32) -> Result).self),
            cuEventRecord: try symbol("cuEventRecord", as: (@convention(c) (OpaquePointer?, OpaquePointer?) -> Result).self),
            cuEventSynchronize: try symbol("cuEventSynchronize", as: (@convention(c) (OpaquePointer?) -> Result).self),
            cuEventElapsedTime: try symbol(
                "cuEventElapsedTime_v2", "cuEventElapsedTime",
                as: (@convention(c) (UnsafeMutablePointer<Float>, OpaquePointer?, OpaquePointer?) -> Result).self),
            cuEventDestroy: try symbol("cuEventDestroy_v2", "cuEventDestroy", as: (@convention(c) (OpaquePointer?) -> Result).self),
            cuModuleLoadDataEx: try symbol(
                "cuModuleLoadDataEx",
                as: (@convention(c) (
                    UnsafeMutablePointer<OpaquePointer?>, UnsafeRawPointer, UInt32, UnsafeMutablePointer<Int32>?,
                    UnsafeMutablePointer<UnsafeMutableRawPointer?>?
                ) -> Result).self),
            cuModuleGetFunction: try symbol(
                "cuModuleGetFunction",
                as: (@convention(c) (UnsafeMutablePointer<OpaquePointer?>, OpaquePointer?, UnsafePointer<CChar>) -> Result).self),
            cuFuncSetAttribute: try symbol("cuFuncSetAttribute", as: (@convention(c) (OpaquePointer?, Int32, Int32) -> Result).self),
            cuLaunchKernel: try symbol(
                "cuLaunchKernel",
                as: (@convention(c) (
                    OpaquePointer?, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, OpaquePointer?,
                    UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
                ) -> Result).self),
            cuGetErrorString: try symbol(
                "cuGetErrorString", as: (@convention(c) (Result, UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Result).self)
        )
    }

    /// Throws ``SfumatoError/unsupported(_:)`` naming the call and the driver's message when
    /// `result` is not CUDA_SUCCESS (0).
    func check(_ result: Result, _ call: @autoclosure () -> String) throws {
        guard result != 0 else { return }
        var text: UnsafePointer<CChar>?
        _ = cuGetErrorString(result, &text)
        let message = text.map { String(cString: $0) } ?? "error \(result)"
        throw SfumatoError.unsupported("CUDA: \(call()) failed: \(message) (\(result))")
    }
}
