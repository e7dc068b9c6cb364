/// Errors of the command line: usage mistakes exit with 2, everything else with 1.
public enum CLIError: Error, CustomStringConvertible {
    /// The command line itself is wrong (unknown option, missing argument).
    case usage(String)
    /// The command could not do its job.
    case failure(String)

    public var description: String {
        switch self {
        case .usage(let m), .failure(let m): m
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .usage: 2
        case .failure: 1
        }
    }
}
