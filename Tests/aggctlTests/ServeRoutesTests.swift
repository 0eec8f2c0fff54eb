import Aggregator
import Foundation
import HTTPServer
import Testing

@testable import AggctlCLI

/// How `serve` answers, without a socket: methods, the token, routes, entity tags.
struct ServeRoutesTests {
    let views = ServedViews(
        result: MergeResult(
            now: Date(timeIntervalSince1970: 1_796_040_000), accounts: [], devices: [], problems: [],
            newestEntry: nil),
        refresh: 60, tokenRequired: true)

    func request(_ method: String, _ target: String, _ headers: [String: String] = [:]) -> HTTPRequest {
        let headers = headers["Host"] == nil ? headers.merging(["Host": "127.0.0.1:8787"]) { $1 } : headers
        return HTTPRequest(method: method, target: target, port: 8787) { name in
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    static let loopback = AnsweredHosts(listen: .default)

    func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name == name }?.value
    }

    @Test("each route answers its view with a tag; the same tag again is 304; other paths 404, other methods 405")
    func routes() {
        let routes = ServeRoutes(token: nil, hosts: Self.loopback)
        let state = ServedSnapshot(views: views, error: nil)
        let status = routes.answer(request("GET", "/api/status"), state: state)
        #expect(status.status == 200 && status.body == views.status.body)
        #expect(header(status, "Content-Type") == "application/json")
        let tag = header(status, "ETag")
        #expect(tag == views.status.entityTag)
        let again = routes.answer(request("GET", "/api/status?x=1", ["If-None-Match": "W/\(tag ?? "")"]), state: state)
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(routes.answer(request("HEAD", "/metrics"), state: state).status == 200)
        let page = routes.answer(request("GET", "/"), state: state)
        #expect(header(page, "Content-Security-Policy") == ServeRoutes.pagePolicy)
        #expect(routes.answer(request("GET", "/etc/passwd"), state: state).status == 404)
        #expect(routes.answer(request("GET", "/../api/status"), state: state).status == 404)
        let post = routes.answer(request("POST", "/api/status"), state: state)
        #expect(post.status == 405 && header(post, "Allow") == "GET, HEAD")
        #expect(routes.answer(request("GET", "/healthz"), state: ServedSnapshot()).status == 503)
        let away = ServedSnapshot(views: views, error: "store away")
        #expect(routes.answer(request("GET", "/healthz"), state: away).status == 503)
        #expect(routes.answer(request("GET", "/healthz"), state: state).status == 200)
    }

    @Test("with a token every route needs it; a wrong, a longer or a missing one is 401, never echoed")
    func token() {
        let secret = Array("correct-horse-battery-staple".utf8)
        let routes = ServeRoutes(token: secret, hosts: Self.loopback)
        let state = ServedSnapshot(views: views, error: nil)
        for given in [nil, "Bearer wrong", "Bearer correct-horse-battery-staplex", "Basic Y29ycmVjdA==", "Bearer "] {
            for path in ["/api/status", "/metrics", "/healthz"] {
                let answer = routes.answer(
                    request("GET", path, given.map { ["Authorization": $0] } ?? [:]), state: state)
                #expect(answer.status == 401, "\(path) with \(given ?? "none")")
                #expect(!String(decoding: answer.body, as: UTF8.self).contains("correct"))
            }
        }
        // The page without the token is the shell that asks for it, and the script; both hold nothing
        // of the store.
        let shell = routes.answer(request("GET", "/"), state: state)
        #expect(shell.status == 200 && shell.body == views.shell.body && shell.body != views.page.body)
        #expect(routes.answer(request("GET", "/dashboard.js"), state: state).body == ServedViews.script.body)
        let right = routes.answer(
            request("GET", "/api/status", ["Authorization": "bearer correct-horse-battery-staple"]), state: state)
        #expect(right.status == 200)
    }

    @Test("listen addresses: loopback or not, ports, and what is refused")
    func listenAddresses() throws {
        func parse(_ text: String) -> ListenAddress? { try? ListenAddress.parse(text).get() }
        #expect(parse("127.0.0.1:8787")?.isLoopback == true)
        #expect(parse("localhost:0")?.isLoopback == true)
        #expect(parse("[::1]:8787")?.isLoopback == true)
        #expect(parse("0.0.0.0:8787")?.isLoopback == false)
        #expect(parse("[::]:8787")?.isLoopback == false)
        #expect(parse("192.168.1.5:80")?.description == "192.168.1.5:80")
        #expect(parse("[::1]:8787")?.description == "[::1]:8787")
        for bad in [
            "8787", "host:80", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:", "::1:80", "[::1]80", "1.2.3.4:8x",
        ] {
            #expect(parse(bad) == nil, "\(bad)")
        }
    }

    @Test("byte strings compare equal only when they are")
    func sameBytes() {
        #expect(ServeRoutes.sameBytes(Array("abc".utf8), Array("abc".utf8)))
        #expect(!ServeRoutes.sameBytes(Array("abc".utf8), Array("abd".utf8)))
        #expect(!ServeRoutes.sameBytes(Array("ab".utf8), Array("abc".utf8)))
        #expect(!ServeRoutes.sameBytes([], Array("a".utf8)))
        #expect(ServeRoutes.sameBytes([], []))
    }
}

/// Which `Host` names serve answers for: a page that rebinds its own name to 127.0.0.1 reads nothing.
struct AnsweredHostsTests {
    @Test("loopback: localhost and loopback addresses with the port; other names, ports or none are refused")
    func loopback() {
        let hosts = AnsweredHosts(listen: .default)
        for header in ["127.0.0.1:8787", "localhost:8787", "LOCALHOST:8787", "[::1]:8787", "127.0.0.2:8787"] {
            #expect(hosts.answers(header, port: 8787), "\(header)")
        }
        for header in [
            nil, "", "evil.example:8787", "evil.example", "localhost", "localhost:80", "127.0.0.1:8788",
            "localhost.:8787", "127.0.0.1:8787:1", "[::1", "127.1:8787", "localhost:+8787", "192.168.1.5:8787",
        ] {
            #expect(!hosts.answers(header, port: 8787), "\(header ?? "no Host")")
        }
        let routes = ServeRoutes(token: nil, hosts: hosts)
        let request = HTTPRequest(method: "GET", target: "/api/status", port: 8787) { name in
            name.lowercased() == "host" ? "evil.example:8787" : nil
        }
        let refused = routes.answer(request, state: ServedSnapshot())
        #expect(refused.status == 421 && header(refused, "Cache-Control") == "no-store")
    }

    @Test("a wildcard listen address answers any IP address with its port; --allow-host names any port")
    func wildcardAndNames() throws {
        let any = try ListenAddress.parse("0.0.0.0:8787").get()
        let hosts = AnsweredHosts(listen: any, names: ["Dash.Example.org"])
        #expect(hosts.answers("192.168.1.5:8787", port: 8787))
        #expect(hosts.answers("[fe80::1]:8787", port: 8787))
        #expect(!hosts.answers("192.168.1.5:9000", port: 8787))
        #expect(hosts.answers("dash.example.org", port: 8787), "a proxy in front, on its own port")
        #expect(hosts.answers("dash.example.org:443", port: 8787))
        #expect(!hosts.answers("evil.example:8787", port: 8787))
        let lan = AnsweredHosts(listen: try ListenAddress.parse("192.168.1.5:8787").get())
        #expect(lan.answers("192.168.1.5:8787", port: 8787))
        #expect(!lan.answers("192.168.1.6:8787", port: 8787))
        #expect(AnsweredHosts.problem(withName: "dash.example.org") == nil)
        #expect(AnsweredHosts.problem(withName: "[::1]") == nil)
        for bad in ["", "dash.example.org:8787", "a b", "évil", "x/y"] {
            #expect(AnsweredHosts.problem(withName: bad) != nil, "\(bad)")
        }
    }

    func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name == name }?.value
    }
}
