import Portable
import Snapshots

/// An access key and secret as the AWS tools find them: the environment first (`AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), then the shared credentials file, then the config file,
/// for the profile `AWS_PROFILE` (else `default`). None of it ever reaches a message: `source` says where
/// the key came from, never what it is.
struct S3Credentials: Equatable, Sendable {
    var accessKey: String
    var secret: String
    var sessionToken: String?
    /// "the environment (AWS_ACCESS_KEY_ID)", "~/.aws/credentials [work]", ...
    var source: String
}

/// The settings of one S3 store: where to send requests, in which region, signed with what.
struct S3Settings: Equatable, Sendable {
    /// `scheme://host[:port]`, without a trailing slash.
    var endpoint: String
    var region: String
    /// Path-style (`endpoint/bucket/key`) for a custom endpoint; virtual-hosted (`bucket.endpoint/key`)
    /// for AWS itself, where path-style is being retired. A bucket with dots is always path-style: its
    /// virtual host would not match AWS's TLS certificate.
    var pathStyle: Bool
    var credentials: S3Credentials?
    /// Where the endpoint and region came from, for `doctor`.
    var endpointSource: String
    var regionSource: String
    var profile: String

    /// Resolves everything from `environment` and the files under `home/.aws/` (or
    /// `AWS_SHARED_CREDENTIALS_FILE` and `AWS_CONFIG_FILE`).
    ///
    /// - Throws: `StoreError.failed` naming the variable or file entry that is malformed.
    static func resolve(bucket: String, environment: [String: String], home: String) throws -> S3Settings {
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let profile = variable("AWS_PROFILE") ?? "default"
        let credentialsPath = variable("AWS_SHARED_CREDENTIALS_FILE") ?? home + "/.aws/credentials"
        let configPath = variable("AWS_CONFIG_FILE") ?? home + "/.aws/config"
        let credentialsFile = AWSSharedFile.load(credentialsPath)
        let configFile = AWSSharedFile.load(configPath)
        // The credentials file names a profile plainly; the config file as "profile NAME" (but "default").
        let credentialsSection = credentialsFile?.sections[profile]
        let configSection = configFile?.sections[profile == "default" ? "default" : "profile " + profile]
        let shownCredentialsPath = shown(credentialsPath, home: home)
        let shownConfigPath = shown(configPath, home: home)

        var credentials: S3Credentials?
        if let key = variable("AWS_ACCESS_KEY_ID"), let secret = variable("AWS_SECRET_ACCESS_KEY") {
            credentials = S3Credentials(
                accessKey: key, secret: secret, sessionToken: variable("AWS_SESSION_TOKEN"),
                source: "the environment (AWS_ACCESS_KEY_ID)")
        } else {
            for (section, path) in [(credentialsSection, shownCredentialsPath), (configSection, shownConfigPath)] {
                guard let section, let key = section["aws_access_key_id"], let secret = section["aws_secret_access_key"]
                else { continue }
                credentials = S3Credentials(
                    accessKey: key, secret: secret, sessionToken: section["aws_session_token"],
                    source: "\(path) [\(profile)]")
                break
            }
        }

        var region = "us-east-1"
        var regionSource = "the default"
        if let value = variable("AWS_REGION") {
            (region, regionSource) = (value, "AWS_REGION")
        } else if let value = variable("AWS_DEFAULT_REGION") {
            (region, regionSource) = (value, "AWS_DEFAULT_REGION")
        } else if let value = configSection?["region"] {
            (region, regionSource) = (value, "\(shownConfigPath) [\(profile)]")
        }
        // A region goes into the host name and the signature's scope: letters, digits and dashes only.
        let regionCharacters = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
        }
        guard !region.isEmpty, region.utf8.count <= 64, region.utf8.allSatisfy(regionCharacters)
        else {
            throw StoreError.failed(
                operation: "open", target: "s3://\(bucket)/",
                reason: "the region from \(regionSource) is not a region name (such as eu-west-1)")
        }

        var endpointText: String?
        var endpointSource = "AWS"
        for name in ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"] {
            if let value = variable(name) {
                (endpointText, endpointSource) = (value, name)
                break
            }
        }
        if endpointText == nil, let value = configSection?["endpoint_url"] {
            (endpointText, endpointSource) = (value, "\(shownConfigPath) [\(profile)]")
        }
        let endpoint: String
        let pathStyle: Bool
        if let endpointText {
            guard let url = URLComponents(string: endpointText), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = url.percentEncodedHost, !host.isEmpty,
                url.user == nil, url.password == nil, url.query == nil, url.fragment == nil,
                url.percentEncodedPath.isEmpty || url.percentEncodedPath == "/"
            else {
                throw StoreError.failed(
                    operation: "open", target: "s3://\(bucket)/",
                    reason: "\(endpointSource) is not an endpoint URL (expected http(s)://HOST[:PORT], no path)")
            }
            endpoint = "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
            pathStyle = true
        } else {
            endpoint = "https://s3.\(region).amazonaws.com"
            pathStyle = bucket.contains(".")
        }
        return S3Settings(
            endpoint: endpoint, region: region, pathStyle: pathStyle, credentials: credentials,
            endpointSource: endpointSource, regionSource: regionSource, profile: profile)
    }

    /// A path under the home folder as `~/...`, for messages.
    private static func shown(_ path: String, home: String) -> String {
        path.hasPrefix(home + "/") ? "~" + path.dropFirst(home.count) : path
    }
}

/// The AWS shared files' format: `[section]` headers, `key = value` lines, `#` and `;` comments; keys are
/// case-insensitive, values trimmed. Lines that are neither (the nested `s3 =` blocks) are skipped.
struct AWSSharedFile {
    var sections: [String: [String: String]] = [:]

    static func load(_ path: String) -> AWSSharedFile? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return AWSSharedFile(text)
    }

    init(_ text: String) {
        var current: String?
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = rawLine.trimmingBlanks()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().trimmingBlanks()
                current = name.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                continue
            }
            guard let current, rawLine.first.map({ !$0.isWhitespace }) ?? false,
                let equals = line.firstIndex(of: "=")
            else { continue }
            let key = line[..<equals].trimmingBlanks().lowercased()
            let value = line[line.index(after: equals)...].trimmingBlanks()
            guard !value.isEmpty else { continue }
            sections[current, default: [:]][key] = value
        }
    }
}
