import Foundation
import HTTP
import TestSupport
import Testing

@testable import Snapshots
@testable import Stores

/// `s3://` locations, the endpoint, region and credentials as the AWS tools find them, and what S3's
/// error answers are made to say: all without a server.
struct S3SettingsTests {
    @Test(
        "s3:// values that name anything but a bucket and prefix are refused",
        arguments: [
            ("s3://", "has no bucket"),
            ("s3://ab/x/", "has the bucket 'ab'"),
            ("s3://bad%20name/x/", "has the bucket"),
            ("s3://key:secret@bucket/x/", "holds credentials"),
            ("s3://bucket:9000/x/", "has a port"),
            ("s3://bucket/a//b/", "has an empty segment"),
            ("s3://bucket/a/../b/", "has a '..' segment"),
            ("s3://bucket/x/?versionId=1", "has a query"),
            ("s3://bucket/x/#frag", "has a fragment"),
        ])
    func refused(text: String, reason: String) {
        do {
            _ = try StoreLocation.parse(text)
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(error.reason.hasPrefix(reason), "\(error.reason)")
        }
    }

    @Test("a bucket and prefix parse to keys directly under PREFIX/")
    func parsed() throws {
        #expect(
            try S3Location.parse("s3://team-usage/aggctl/prod")
                == S3Location(bucket: "team-usage", prefix: "aggctl/prod/"))
        #expect(try S3Location.parse("s3://team-usage") == S3Location(bucket: "team-usage", prefix: ""))
        // Decoded once: the location handed to the store reads back to the same prefix.
        for (text, prefix) in [
            ("s3://b-1/f/pct%2541/", "f/pct%41/"), ("s3://b-1/a%20b/c+d/", "a b/c+d/"), ("s3://b-1/%25/", "%/"),
            ("s3://b-1/caf%C3%A9/", "café/"),
        ] {
            let location = try S3Backend().parse(text)
            #expect(try S3Location.parse(location.address) == S3Location(bucket: "b-1", prefix: prefix), "\(text)")
            #expect(location.displayName == "s3://b-1/" + prefix)
        }
        #expect(
            try S3Location.parse("s3://team-usage/my%20store/") == S3Location(bucket: "team-usage", prefix: "my store/")
        )
        let location = try StoreLocation.parse("S3://team-usage/aggctl/")
        #expect(location.backend == S3Backend.name)
        #expect(location.displayName == "s3://team-usage/aggctl/")
    }

    @Test("URLs are canonical for SigV4: sorted query, RFC 3986 encoding with upper-case hex, encoded key segments")
    func canonicalURLs() throws {
        let settings = try S3Settings.resolve(
            bucket: "b-1", environment: ["AWS_ENDPOINT_URL": "http://127.0.0.1:9000"], home: "/nonexistent")
        let store = S3Store(
            location: S3Location(bucket: "b-1", prefix: "a b/c+d/"), settings: settings, http: .init(),
            clock: { Date() })
        let list = store.request(
            "GET", key: nil, query: [("prefix", "a b/c+d/"), ("list-type", "2"), ("continuation-token", "x=/y")])
        #expect(
            list.url == "http://127.0.0.1:9000/b-1/?continuation-token=x%3D%2Fy&list-type=2&prefix=a%20b%2Fc%2Bd%2F")
        let get = store.request("GET", key: "a b/c+d/laptop=1.json")
        #expect(get.url == "http://127.0.0.1:9000/b-1/a%20b/c%2Bd/laptop%3D1.json")
        #expect(get.headers.contains { $0.name == "x-amz-content-sha256" && $0.value == SHA256.hex([UInt8]()) })
        let put = store.request("PUT", key: "k.json", body: Data("{}".utf8))
        #expect(put.headers.contains { $0.name == "x-amz-content-sha256" && $0.value == SHA256.hex(Array("{}".utf8)) })
    }

    @Test("a session token travels as x-amz-security-token (signed with the rest), and only when there is one")
    func sessionToken() throws {
        var settings = try S3Settings.resolve(
            bucket: "b-1",
            environment: [
                "AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S",
                "AWS_SESSION_TOKEN": "session-token-value",
            ], home: "/nonexistent")
        func headers() -> [String] {
            let store = S3Store(
                location: S3Location(bucket: "b-1", prefix: ""), settings: settings, http: .init(), clock: { Date() })
            return store.request("GET", key: "x.json").headers.map { "\($0.name): \($0.value)" }
        }
        #expect(headers().contains("x-amz-security-token: session-token-value"))
        settings.credentials?.sessionToken = nil
        #expect(!headers().contains { $0.hasPrefix("x-amz-security-token") })
    }

    @Test("AWS itself is virtual-hosted (path-style for dotted buckets); a custom endpoint is path-style")
    func addressing() throws {
        let aws = try S3Settings.resolve(bucket: "team", environment: ["AWS_REGION": "eu-west-1"], home: "/nonexistent")
        #expect(aws.endpoint == "https://s3.eu-west-1.amazonaws.com")
        #expect(!aws.pathStyle)
        let awsStore = S3Store(
            location: S3Location(bucket: "team", prefix: "p/"), settings: aws, http: .init(), clock: { Date() })
        #expect(awsStore.request("GET", key: "p/x.json").url == "https://team.s3.eu-west-1.amazonaws.com/p/x.json")
        #expect(try S3Settings.resolve(bucket: "team.example", environment: [:], home: "/nonexistent").pathStyle)
        let custom = try S3Settings.resolve(
            bucket: "team", environment: ["AWS_ENDPOINT_URL": "https://minio.example.org:9000/"], home: "/nonexistent")
        #expect(custom.endpoint == "https://minio.example.org:9000")
        #expect(custom.pathStyle)
        #expect(throws: StoreError.self) {
            try S3Settings.resolve(bucket: "team", environment: ["AWS_ENDPOINT_URL": "ftp://x/"], home: "/nonexistent")
        }
        for region in ["eu west", "us-east-1/evil", "é", "a\r\nb"] {
            #expect(throws: StoreError.self, "\(region.debugDescription)") {
                try S3Settings.resolve(bucket: "team", environment: ["AWS_REGION": region], home: "/nonexistent")
            }
        }
    }

    @Test("credentials: the environment first, then ~/.aws/credentials, then ~/.aws/config, for AWS_PROFILE")
    func credentialSources() throws {
        let home = TemporaryDirectory("aggctl-aws")
        try FileManager.default.createDirectory(atPath: home.file(".aws"), withIntermediateDirectories: true)
        try """
        # shared credentials
        [default]
        aws_access_key_id = DEFAULTKEY
        aws_secret_access_key = default-secret

        [work]
        aws_access_key_id=WORKKEY
        aws_secret_access_key=work-secret
        aws_session_token = work-token
        """.write(toFile: home.file(".aws/credentials"), atomically: true, encoding: .utf8)
        try """
        [default]
        region = eu-central-1
        [profile work]
        region = ap-south-1
        endpoint_url = http://127.0.0.1:9000
        s3 =
          addressing_style = path
        [profile config-only]
        aws_access_key_id = CONFIGKEY
        aws_secret_access_key = config-secret
        """.write(toFile: home.file(".aws/config"), atomically: true, encoding: .utf8)

        let fromDefault = try S3Settings.resolve(bucket: "team", environment: [:], home: home.path)
        #expect(fromDefault.credentials?.accessKey == "DEFAULTKEY")
        #expect(fromDefault.credentials?.source == "~/.aws/credentials [default]")
        #expect(fromDefault.region == "eu-central-1")

        let work = try S3Settings.resolve(bucket: "team", environment: ["AWS_PROFILE": "work"], home: home.path)
        #expect(
            work.credentials
                == S3Credentials(
                    accessKey: "WORKKEY", secret: "work-secret", sessionToken: "work-token",
                    source: "~/.aws/credentials [work]"))
        #expect(work.region == "ap-south-1" && work.endpoint == "http://127.0.0.1:9000" && work.pathStyle)

        let configOnly = try S3Settings.resolve(
            bucket: "team", environment: ["AWS_PROFILE": "config-only"], home: home.path)
        #expect(configOnly.credentials?.accessKey == "CONFIGKEY")
        #expect(configOnly.credentials?.source == "~/.aws/config [config-only]")

        let environment = try S3Settings.resolve(
            bucket: "team",
            environment: [
                "AWS_PROFILE": "work", "AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "env-secret",
                "AWS_REGION": "us-west-2",
            ], home: home.path)
        #expect(environment.credentials?.accessKey == "ENVKEY")
        #expect(environment.credentials?.sessionToken == nil, "a session token belongs to the key it came with")
        #expect(environment.region == "us-west-2" && environment.regionSource == "AWS_REGION")
    }

    @Test("S3's errors say what to do: the bucket's region, the clock's offset, the policy, and never a key")
    func explanations() throws {
        let settings = S3Settings(
            endpoint: "https://s3.us-east-1.amazonaws.com", region: "us-east-1", pathStyle: false,
            credentials: S3Credentials(accessKey: "AKIAEXAMPLEKEY", secret: "very-secret", source: "AWS_ACCESS_KEY_ID"),
            endpointSource: "AWS", regionSource: "the default", profile: "default")
        func explain(_ status: Int, _ body: String, headers: [String: String] = [:], now: Date = Date()) -> String {
            S3ErrorExplanation(
                response: HTTPResponse(status: status, headers: headers, body: Data(body.utf8)), bucket: "team",
                settings: settings, now: now
            ).text(operation: "list", target: "s3://team/p/")
        }
        #expect(
            explain(
                400,
                "<Error><Code>AuthorizationHeaderMalformed</Code><Message>the region 'us-east-1' is wrong; expecting 'eu-west-1'</Message><Region>eu-west-1</Region></Error>"
            )
            .contains(
                "bucket 'team' is in region 'eu-west-1', not 'us-east-1' (from the default); set AWS_REGION=eu-west-1"))
        #expect(
            explain(
                301, "<Error><Code>PermanentRedirect</Code></Error>", headers: ["x-amz-bucket-region": "ap-south-1"]
            )
            .contains("set AWS_REGION=ap-south-1"))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let skewed = explain(
            403,
            "<Error><Code>RequestTimeTooSkewed</Code><RequestTime>2027-01-15T06:00:00Z</RequestTime><ServerTime>2027-01-15T08:00:00Z</ServerTime></Error>",
            now: now)
        #expect(skewed.contains("this machine is 2 h 0 min behind the server"), "\(skewed)")
        let denied = explain(403, "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>")
        #expect(denied.contains("List on the prefix"), "\(denied)")
        let signature = explain(403, "<Error><Code>SignatureDoesNotMatch</Code></Error>")
        #expect(signature.contains("check the secret access key, and this machine's clock"))
        for text in [denied, signature, skewed] {
            #expect(!text.contains("AKIAEXAMPLEKEY") && !text.contains("very-secret"))
        }
        let hostile = explain(500, "<Error><Code>Internal\u{1B}[31m</Code><Message>line\nbreak</Message></Error>")
        #expect(!hostile.contains("\u{1B}") && !hostile.contains("\n"), "\(hostile)")
        #expect(explain(503, "<Error><Code>SlowDown</Code></Error>").contains("throttling"))
    }
}

/// doctor's clock offsets in words.
struct DurationWordsTests {
    @Test(
        "seconds below two minutes, then minutes, then hours and minutes, rounded",
        arguments: [
            (45.2, "45 s"), (119.6, "120 s"), (130, "2 min"), (1019, "17 min"), (7199, "2 h 0 min"),
            (9000, "2 h 30 min"),
        ])
    func words(seconds: Double, text: String) {
        #expect(DurationWords.text(seconds) == text)
    }
}
