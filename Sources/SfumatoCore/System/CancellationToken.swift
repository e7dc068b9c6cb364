import Synchronization

/// A flag one thread sets to ask work running on others to stop (a render whose client left).
///
/// Renders given one in ``RenderContext/Options/cancellation`` check it before each strip and
/// end with ``SfumatoError/cancelled(_:)``.
///
/// ```swift
/// let token = CancellationToken()
/// let context = RenderContext(options: .init(cancellation: token))
/// // on another thread: token.cancel()
/// ```
public final class CancellationToken: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A token not yet cancelled.
    public init() {}

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Asks the work to stop (idempotent).
    public func cancel() { flag.store(true, ordering: .releasing) }

    /// Throws ``SfumatoError/cancelled(_:)`` when cancelled.
    public func check(_ what: @autoclosure () -> String = "the work") throws {
        if isCancelled { throw SfumatoError.cancelled("\(what()) was cancelled") }
    }
}
