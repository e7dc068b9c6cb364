import Foundation

/// Compiled GPU modules by their source text: a text is compiled once per process, so a render
/// that only changes numbers (kernel arguments) compiles nothing.
final class _ModuleCache<Module>: @unchecked Sendable {
    private let lock = NSLock()
    private var modules: [String: Module] = [:]
    /// How many texts were compiled.
    private(set) var compiled = 0

    /// The module for `text`, made by `compile` the first time the text is seen.
    func module(for text: String, compile: (String) throws -> Module) rethrows -> Module {
        lock.lock()
        defer { lock.unlock() }
        if let m = modules[text] { return m }
        let m = try compile(text)
        modules[text] = m
        compiled += 1
        return m
    }
}
