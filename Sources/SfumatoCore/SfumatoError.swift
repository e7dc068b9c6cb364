/// The errors the engine reports. Each carries a message that names the problem in words a user
/// can act on; ``description`` is that message.
public enum SfumatoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A parameter or argument outside what is allowed (name, value and range in the message).
    case invalidArgument(String)
    /// An image or buffer larger than the configured limit.
    case tooLarge(String)
    /// Image data that is damaged: not decodable as the format it claims.
    case corrupt(String)
    /// Image data that ends early.
    case truncated(String)
    /// A valid file of a kind or variant Sfumato does not read or write.
    case unsupported(String)
    /// A file system or library failure.
    case io(String)
    /// A filter or key that does not exist.
    case unknownName(String)
    /// Work stopped because it was asked to (``CancellationToken``).
    case cancelled(String)

    public var description: String {
        switch self {
        case .invalidArgument(let m), .tooLarge(let m), .corrupt(let m), .truncated(let m),
            .unsupported(let m), .io(let m), .unknownName(let m), .cancelled(let m):
            return m
        }
    }
}
