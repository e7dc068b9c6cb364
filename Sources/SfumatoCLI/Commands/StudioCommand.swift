import Foundation
import SfumatoCore
import SfumatoStudio

/// `sfumato studio`: the server and browser page.
enum StudioCommand {
    static let help = """
        usage: sfumato studio [DOCUMENT.sfumato | IMAGE] [--port P] [--host H] [--lan] [--document PATH]

        Starts the studio and prints the URL to open. With no argument, opens the bundled sample
        photo. An IMAGE gets a document (kept in ~/.local/share/sfumato/documents, or at
        --document PATH), so every change is saved as it happens.
          --port P     port (default 8080; 0 picks a free one)
          --host H     address to listen on (default 127.0.0.1)
          --lan        listen on all interfaces with TLS (a self-signed certificate kept in
                       ~/.config/sfumato) and a pairing token that the printed URL carries
        """

    static func run(_ args: [String], output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.value("--port")
        spec.value("--host")
        spec.value("--document")
        spec.flag("--lan")
        spec.flag("--help", "-h")
        let a = try Arguments(args, spec: spec)
        if a.has("--help") { output.print(help); return }
        guard a.positionals.count <= 1 else { throw CLIError.usage("studio takes at most one DOCUMENT or IMAGE") }
        let lan = a.has("--lan")
        var host = a.value("--host") ?? (lan ? "0.0.0.0" : "127.0.0.1")
        if lan && a.value("--host") == nil { host = "0.0.0.0" }
        var port = try a.integer("--port", in: 0...65535) ?? 8080
        if port == 0 { port = StudioLauncher.freePort(host: host) }
        let document = try StudioLauncher.document(for: a.positionals.first, documentPath: a.value("--document"))
        let token = lan ? StudioLauncher.makeToken() : nil
        let studio = try Studio(document: document, token: token, folder: StudioLauncher.documentsFolder) { line in
            StandardStream.error.write("studio: " + line + "\n")
        }
        var certificate: (String, String)?
        if lan { certificate = try StudioLauncher.certificate() }
        let server = try WebServer(host: host, port: port, certificate: certificate?.0, key: certificate?.1, delegate: studio)
        studio.server = server
        let scheme = lan ? "https" : "http"
        let suffix = token.map { "?token=\($0)" } ?? ""
        let shown = host == "0.0.0.0" ? (StudioLauncher.localAddresses().first ?? "127.0.0.1") : host
        output.print("Sfumato studio: \(scheme)://\(shown):\(port)/\(suffix)")
        if lan {
            output.print("Pairing token: \(token!) (the URL carries it; the certificate is self-signed, so accept it once)")
        }
        output.print("Document: \(document.path)")
        // Serve until interrupted; stop cleanly so the document is left consistent. (A plain
        // handler setting a flag: dispatch signal sources need the signal blocked in every
        // thread, and worker threads may already exist.)
        _studioStopRequested = 0
        signal(SIGINT, _studioSignalHandler)
        signal(SIGTERM, _studioSignalHandler)
        // A reader that went away (closed terminal, `| head`) must not end the studio: writes to it fail
        // with EPIPE instead, which StandardStream ignores.
        signal(SIGPIPE, SIG_IGN)
        while _studioStopRequested == 0 { usleep(50_000) }
        server.stop()
        try studio.document.checkpoint()
    }
}

nonisolated(unsafe) var _studioStopRequested: sig_atomic_t = 0

/// Async-signal-safe: only sets a flag the main thread polls.
func _studioSignalHandler(_ signal: Int32) {
    _studioStopRequested = 1
}
