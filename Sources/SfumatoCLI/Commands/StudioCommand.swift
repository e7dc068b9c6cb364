import Foundation
import SfumatoCore
import SfumatoStudio

/// `sfumato studio`: the server and browser page.
enum StudioCommand {
    static let help = """
        usage: sfumato studio [DOCUMENT.sfumato | IMAGE] [--port P] [--host H] [--lan [--reset-certificates]]
                              [--document PATH] [--new-token]

        Starts the studio and prints the URL to open; the URL carries a secret token, kept by the
        browser (a cookie) after the first visit, without which every request is refused. The
        token is kept in $XDG_CONFIG_HOME/sfumato/studio-token (readable by you alone), so the
        URL stays the same across restarts; --new-token makes a new one. With no
        argument, opens the bundled sample photo. An IMAGE gets a document (kept in
        $XDG_DATA_HOME/sfumato/documents, or at --document PATH), so every change is saved as it
        happens.
          --port P     port (default 8080; 0 picks a free one)
          --host H     the address to listen on (default: 127.0.0.1 and ::1, this machine only);
                       an address other machines can reach needs --lan
          --lan        listen on every interface (or on --host) with TLS, for an iPad on the
                       same network; prints a QR code of the URL. The certificate comes from a
                       certificate authority of this machine's own (kept in
                       $XDG_CONFIG_HOME/sfumato/lan), which a device installs once from the
                       studio's /pair page
          --reset-certificates  with --lan: a new certificate authority (devices pair again)
        """

    static func run(_ args: [String], output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.value("--port")
        spec.value("--host")
        spec.value("--document")
        spec.flag("--lan")
        spec.flag("--new-token")
        spec.flag("--reset-certificates")
        spec.flag("--help", "-h")
        let a = try Arguments(args, spec: spec)
        if a.has("--help") { output.print(help); return }
        guard a.positionals.count <= 1 else { throw CLIError.usage("studio takes at most one DOCUMENT or IMAGE") }
        let lan = a.has("--lan")
        guard lan || !a.has("--reset-certificates") else { throw CLIError.usage("--reset-certificates goes with --lan") }
        var listen = lan ? WebServer.Listen.allInterfaces : .loopback
        if let host = a.value("--host") {
            let loopback = ["127.0.0.1", "::1", "localhost"].contains(host.lowercased())
            guard lan || loopback else {
                throw CLIError.usage("--host \(host) would let other machines in without TLS or a certificate: add --lan")
            }
            guard host.lowercased() != "localhost" else { throw CLIError.usage("--host takes an address: 127.0.0.1 or ::1") }
            listen = .address(host)
            if host == "0.0.0.0" || host == "::" { listen = .allInterfaces }
        }
        let port = try a.integer("--port", in: 0...65535) ?? 8080
        let document = try StudioLauncher.document(for: a.positionals.first, documentPath: a.value("--document"))
        let token = try StudioLauncher.token(renew: a.has("--new-token"))
        let studio = try Studio(document: document, folder: StudioLauncher.documentsFolder) { line in
            StandardStream.error.write("studio: " + line + "\n")
        }
        var tls: WebServer.TLSFiles?
        var certificates: StudioCertificates?
        if lan {
            var listening: [String] = []
            if case .address(let h) = listen { listening.append(h) }
            let made = try StudioLauncher.certificates(listeningOn: listening, reset: a.has("--reset-certificates"))
            tls = WebServer.TLSFiles(certificate: made.server.path, key: made.serverKey.path)
            studio.pairing = try Pairing(certificates: made)
            certificates = made
        }
        let names: Set<String> = lan ? StudioLauncher.hostNames() : []
        let server = try WebServer(
            listen: listen, port: port, tls: tls, token: token, names: names, publicPaths: lan ? Pairing.paths : [],
            delegate: studio)
        studio.transport = server
        let scheme = lan ? "https" : "http"
        var shown = "127.0.0.1"
        if case .address(let h) = listen { shown = h.contains(":") ? "[\(h)]" : h }
        if lan && listen == .allInterfaces { shown = StudioLauncher.localAddresses().first ?? "127.0.0.1" }
        let url = "\(scheme)://\(shown):\(server.port)/?token=\(token)"
        output.print("Sfumato studio: \(url)")
        output.print(
            "Listening on \(server.addresses.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ", ")) port \(server.port)"
                + (lan ? " (TLS)" : " (this machine only)"))
        if lan, let certificates {
            if let code = QRCode(url) {
                output.print("Scan with the iPad's camera to open the studio:")
                for line in code.lines(colors: output.isTerminal) { output.print(line) }
            }
            output.print("First time on a device? Open \(scheme)://\(shown):\(server.port)/pair there to install and trust the")
            output.print("studio's certificate authority (\(certificates.authority.path)), then scan again.")
        }
        output.print("Document: \(document.path)")
        // Serve until interrupted; stop cleanly so the document is left consistent. (A plain
        // handler setting a flag: dispatch signal sources need the signal blocked in every
        // thread, and worker threads may already exist.)
        _studioStopRequested = 0
        signal(SIGINT, _studioSignalHandler)
        signal(SIGTERM, _studioSignalHandler)
        signal(SIGHUP, _studioSignalHandler)
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
