import SfumatoStudio
import Testing

@Suite("Who may talk to the studio: Host, Origin and token")
struct AccessPolicyTests {
    let token = "0123456789abcdef0123456789abcdef"
    var policy: AccessPolicy { AccessPolicy(token: token, port: 8080, secure: false) }

    func decide(
        _ policy: AccessPolicy, host: String? = "127.0.0.1:8080", origin: String? = nil, query: String? = nil,
        cookie: String? = nil, path: String = "/api/document"
    ) -> AccessPolicy.Decision {
        policy.decide(.init(path: path, host: host, origin: origin, queryToken: query, cookieHeader: cookie))
    }

    @Test("the token: in the URL (and then kept as a cookie) or in the cookie; nothing else")
    func tokens() {
        #expect(decide(policy, query: token) == .allow(setCookie: true))
        #expect(decide(policy, query: token, cookie: "sfumato-8080=\(token)") == .allow(setCookie: false))
        #expect(decide(policy, cookie: "other=1; sfumato-8080=\(token)") == .allow(setCookie: false))
        for wrong in [nil, "", "0123456789abcdef0123456789abcdeF0", String(token.dropLast()), String(repeating: "0", count: 32)] {
            #expect(decide(policy, query: wrong) != .allow(setCookie: true), "\(wrong ?? "none")")
            #expect(decide(policy, query: wrong) != .allow(setCookie: false), "\(wrong ?? "none")")
        }
        // A cookie for another port's studio is not this one's.
        if case .allow = decide(policy, cookie: "sfumato-8081=\(token)") { Issue.record("another port's cookie was taken") }
        #expect(policy.cookie.contains("HttpOnly") && policy.cookie.contains("SameSite=Strict") && !policy.cookie.contains("Secure"))
        #expect(AccessPolicy(token: token, port: 8080, secure: true).cookie.contains("Secure"))
    }

    @Test("Host: only this studio's names with its port (DNS rebinding is refused)")
    func host() {
        for ok in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"] {
            #expect(decide(policy, host: ok, query: token) == .allow(setCookie: true), "\(ok)")
        }
        for bad in [
            nil, "", "evil.example:8080", "127.0.0.1:8081", "127.0.0.1", "127.0.0.1.evil.example:8080", "localhost:8080@evil",
            "[::1]", "[::1:8080", "a:b:c", "localhost:0", "localhost:99999", "192.0.2.2:8080", String(repeating: "a", count: 500)
        ] {
            if case .allow = decide(policy, host: bad, query: token) { Issue.record("Host \(bad ?? "none") was let in") }
        }
        // With --lan: the machine's names and current addresses too.
        let lan = AccessPolicy(
            token: token, port: 8443, secure: true, names: AccessPolicy.loopbackNames.union(["studio.local"]),
            isLocalAddress: { $0 == "192.0.2.2" })
        #expect(decide(lan, host: "studio.local:8443", query: token) == .allow(setCookie: true))
        #expect(decide(lan, host: "192.0.2.2:8443", query: token) == .allow(setCookie: true))
        if case .allow = decide(lan, host: "192.0.2.3:8443", query: token) { Issue.record("a foreign address was let in") }
        // The default port may be left out of Host.
        let standard = AccessPolicy(token: token, port: 443, secure: true)
        #expect(decide(standard, host: "localhost", query: token) == .allow(setCookie: true))
    }

    @Test("Origin: absent (not a browser) or this studio's own; every other site is refused")
    func origin() {
        #expect(decide(policy, origin: "http://127.0.0.1:8080", query: token) == .allow(setCookie: true))
        #expect(decide(policy, origin: "http://localhost:8080", query: token) == .allow(setCookie: true))
        for bad in ["http://evil.example", "null", "https://127.0.0.1:8080", "http://127.0.0.1:8081", "file://", "http://127.0.0.1:8080.evil"] {
            if case .allow = decide(policy, origin: bad, query: token) { Issue.record("Origin \(bad) was let in") }
        }
    }

    @Test("public paths need no token, but still the right Host and Origin")
    func publicPaths() {
        var p = policy
        p.publicPaths = ["/pair"]
        #expect(decide(p, path: "/pair") == .allow(setCookie: false))
        if case .allow = decide(p, host: "evil.example:8080", path: "/pair") { Issue.record("a foreign Host reached a public path") }
    }
}

@Suite("Query strings")
struct QueryTests {
    @Test("empty keys, bare '=', empty pieces and percent-escapes: parsed, never a trap")
    func hostileQueries() {
        // `GET /?=` once trapped the server: splitting "=" gave no pieces at all.
        #expect(HTTPRequest.parseQuery(["="]) == [:])
        #expect(HTTPRequest.parseQuery(["=x", "&&", "a=", "b=2=3", "c", "t%3Dk=v%20w+x"]) == ["a": "", "b": "2=3", "c": "", "t=k": "v w x"])
        #expect(HTTPRequest.parseQuery(["token=abc&width=20"]) == ["token": "abc", "width": "20"])
    }
}
