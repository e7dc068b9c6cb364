import Foundation

/// The entry points of the fuzzers (`scripts/fuzz TARGET SECONDS`) and of their regression
/// tests, which run every kept input through the same code without libFuzzer.
///
/// Each target takes any bytes and must return normally: errors are the expected answer to
/// bad input; a trap, a hang or runaway memory is a finding.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// JPEG, PNG and WebP decoding with metadata (EXIF orientation, ICC profiles), whole and header-only.
    case decoders
    /// `-f` filter specs and JSON recipes: parsed, checked, built and rendered on a small image.
    case recipes
    /// Studio WebSocket messages: decoded, then acted on by an in-process studio.
    case studioMessages = "studio-messages"
    /// Studio HTTP requests: access checks on their headers, query parsing, the routes.
    case studioRequests = "studio-requests"
    /// `.sfumato` documents: opened, checked, replayed and rendered.
    case documents

    /// Runs one input.
    public func run(_ data: [UInt8]) {
        switch self {
        case .decoders: _FuzzDecoders.run(data)
        case .recipes: _FuzzRecipes.run(data)
        case .studioMessages: _FuzzStudio.shared.message(data)
        case .studioRequests: _FuzzStudio.shared.request(data)
        case .documents: _FuzzDocuments.run(data)
        }
    }
}
