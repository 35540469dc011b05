import AFNetworking
import ArgumentParser
import Foundation

/// Performs one `af` request: builds it from the options and items, runs it on a session manager,
/// prints the response, and maps failures to the documented exit codes.
struct RequestRunner {
    let method: String
    let options: RequestOptions

    func run() async throws {
        let items = RequestItems(try options.items.map(RequestItem.init(parsing:)))
        guard let parsed = URL(string: options.url), parsed.scheme != nil, parsed.host != nil else {
            throw ValidationError("'\(options.url)' is not an absolute URL.")
        }
        let url = Self.appendingQuery(items.query, to: parsed)
        let completionQueue = DispatchQueue(label: "af.completion")
        let manager = try makeManager(host: url.host, completionQueue: completionQueue)
        do {
            try await perform(url: url, items: items, on: manager)
        } catch {
            await manager.shutDown(draining: completionQueue)
            throw error
        }
        await manager.shutDown(draining: completionQueue)
    }

    private func perform(url: URL, items: RequestItems, on manager: URLSessionManager) async throws {
        if options.stream {
            let parts = options.parts(for: method)
            try await StreamRunner(manager: manager, request: try plainRequest(url: url, items: items),
                                   printsHead: parts.contains("h"),
                                   style: options.raw ? nil : TerminalStyle.forStandardOutput()).run()
            return
        }
        if let path = options.download {
            try await DownloadRunner(manager: manager, request: try plainRequest(url: url, items: items),
                                     destination: URL(fileURLWithPath: path), resume: options.continue,
                                     verbose: options.verbose).run()
            return
        }

        let prepared = try prepare(url: url, items: items)
        if options.verbose { Self.printRequest(prepared.request) }
        let parts = options.parts(for: method)
        let style = options.raw ? nil : TerminalStyle.forStandardOutput()
        if parts.contains("H") || parts.contains("B") {
            SentRequestPrinter(style: style).print(prepared, headers: parts.contains("H"), body: parts.contains("B"))
        }
        // A spinner on stderr (terminals only) once the request has run longer than the activation delay.
        let activity = NetworkActivityIndicatorManager.shared
        TerminalActivityIndicator.standardError.attach(to: activity)
        activity.isEnabled = true
        let outcome = await Self.perform(prepared, on: manager)
        activity.isEnabled = false
        TerminalActivityIndicator.standardError.hideNow()
        if options.verbose, let metrics = outcome.metrics { TimingReport(metrics: metrics).print() }
        if let error = outcome.error {
            FileHandle.standardError.write(Data("af: \(Self.describe(error))\n".utf8))
            throw ExitStatus.forFailure(error)
        }
        guard let response = outcome.response as? HTTPURLResponse else { throw ExitCode.failure }
        let printer = ResponsePrinter(raw: options.raw, xpath: options.xpath, decode: options.decode, style: style)
        if parts.contains("h") {
            printer.printHead(response, protocolName: outcome.metrics?.networkProtocolName, reason: outcome.reasonPhrase)
        }
        if parts.contains("b") && method != "HEAD" { try printer.printBody(outcome.data ?? Data(), response: response) }
        if response.statusCode >= 400 { throw ExitStatus.httpError }
    }

    // MARK: Building

    /// The disk capacity of `--cache` (AFNetworking's image downloader's: 150 MB).
    static let cacheCapacity = 150 * 1024 * 1024

    private func makeManager(host: String?, completionQueue: DispatchQueue) throws -> URLSessionManager {
        let configuration = URLSessionConfiguration.default
        // As curl does: http_proxy, https_proxy, all_proxy and no_proxy from the environment.
        configuration.connectionProxyDictionary = [URLSessionConfiguration.environmentProxiesKey: true]
        if let timeout = options.timeout { configuration.timeoutIntervalForRequest = timeout }
        if let maxTime = options.maxTime { configuration.timeoutIntervalForResource = maxTime }
        // As curl: no cache unless asked for (then an RFC 9111 cache on disk, kept between runs), in a
        // directory readable by this user only: created 0700 before Foundation would make it 0755.
        configuration.urlCache = options.cache.map {
            let path = URL(fileURLWithPath: $0).path
            PrivateFiles.makeDirectory(atPath: path)
            return URLCache(memoryCapacity: 0, diskCapacity: Self.cacheCapacity, diskPath: path)
        }
        // Any status comes back as data: af prints error bodies too and exits with its own code.
        let serializer = HTTPResponseSerializer(validation: HTTPResponseValidation(acceptableStatusCodes: nil))
        let manager = URLSessionManager(sessionConfiguration: configuration, responseSerializer: serializer)
        manager.completionQueue = completionQueue
        if let limit = options.maxRedirects { manager.maximumRedirects = limit }
        if options.http11 { manager.httpVersion = .http1_1 }
        if options.http2 { manager.httpVersion = .http2 }
        if let policy = try options.tls.securityPolicy(for: host) { try manager.setSecurityPolicy(policy) }
        manager.clientIdentity = try options.tls.clientIdentity()
        if let retries = options.retry, retries > 0 {
            manager.interceptor = AnnouncedRetries(policy: RetryPolicy(retryLimit: retries))
        }
        if options.waitForNetwork {
            manager.reachabilityManager = NetworkReachabilityManager.shared
            manager.waitsForConnectivity = true
            var hooks = manager.hooks
            hooks.taskIsWaitingForConnectivity = { _ in
                FileHandle.standardError.write(Data("af: the network is down; waiting for it\n".utf8))
            }
            manager.hooks = hooks
        }
        return manager
    }

    /// The serializer the options and items call for, with af's User-Agent and credentials.
    private func requestSerializer(items: RequestItems) -> HTTPRequestSerializer {
        let useJSON = options.json || (!options.form && !items.fields.isEmpty)
        let serializer = useJSON
            ? JSONRequestSerializer(applicationName: "af", applicationVersion: AF.configuration.version)
            : HTTPRequestSerializer(applicationName: "af", applicationVersion: AF.configuration.version)
        if let user = options.user, let colon = user.firstIndex(of: ":") {
            serializer.setAuthorizationHeaderField(username: String(user[..<colon]),
                                                   password: String(user[user.index(after: colon)...]))
        }
        return serializer
    }

    private func prepare(url: URL, items: RequestItems) throws -> PreparedRequest {
        if options.multipart || !items.files.isEmpty {
            let serializer = requestSerializer(items: items)
            var streamed = try serializer.multipartFormRequest(
                method: method, urlString: url.absoluteString, parameters: items.bodyParameters
            ) { form in
                for file in items.files { try form.appendPart(withFileURL: URL(fileURLWithPath: file.path), name: file.name) }
            }
            Self.apply(items.headers, to: &streamed.request)
            return PreparedRequest(request: streamed.request, body: streamed.body)
        }
        var request = try requestSerializer(items: items)
            .request(method: method, urlString: url.absoluteString, parameters: items.bodyParameters)
        Self.apply(items.headers, to: &request)
        return PreparedRequest(request: request, body: nil)
    }

    private func plainRequest(url: URL, items: RequestItems) throws -> URLRequest {
        var request = try requestSerializer(items: items).request(method: method, urlString: url.absoluteString, parameters: nil)
        Self.apply(items.headers, to: &request)
        return request
    }

    private static func apply(_ headers: [(String, String)], to request: inout URLRequest) {
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    }

    static func appendingQuery(_ query: [(String, String)], to url: URL) -> URL {
        guard !query.isEmpty else { return url }
        let encoded = query.map { "\(percentEscapedString($0.0))=\(percentEscapedString($0.1))" }.joined(separator: "&")
        let separator = url.query == nil ? "?" : "&"
        return URL(string: url.absoluteString + separator + encoded) ?? url
    }

    // MARK: Running

    /// A request and, for multipart, its streamed body.
    struct PreparedRequest: Sendable {
        var request: URLRequest
        var body: (any BodySource)?
    }

    /// What one transfer produced.
    struct Outcome: Sendable {
        var response: URLResponse?
        var data: Data?
        var error: (any Error)?
        var metrics: SessionTaskMetrics?
        var reasonPhrase: String?
    }

    static func perform(_ prepared: PreparedRequest, on manager: URLSessionManager) async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let taskBox = TaskBox()
            let completion: @Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void = { response, object, error in
                continuation.resume(returning: Outcome(response: response, data: object as? Data, error: error,
                                                       metrics: taskBox.task?.metrics,
                                                       reasonPhrase: taskBox.task?.statusReasonPhrase))
            }
            let task: SessionTask
            if let body = prepared.body {
                task = manager.uploadTask(withStreamedRequest: StreamedRequest(request: prepared.request, body: body),
                                          completionHandler: completion)
            } else {
                task = manager.dataTask(with: prepared.request, completionHandler: completion)
            }
            taskBox.task = task
            task.resume()
        }
    }

    /// Holds the task so its completion handler can read the metrics.
    final class TaskBox: @unchecked Sendable {
        // @unchecked Sendable: written once before resume(), read in the completion that resume() leads to.
        var task: SessionTask?
    }

    // MARK: Reporting

    static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        return "\(nsError.localizedDescription) (\(nsError.domain) \(nsError.code))"
    }

    private static func printRequest(_ request: URLRequest) {
        var lines = ["> \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")"]
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            lines.append("> \(name): \(value)")
        }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

/// The timings of one task, for `--verbose`.
struct TimingReport {
    let metrics: SessionTaskMetrics

    func print() {
        func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
        if metrics.resourceFetchType == .localCache {
            FileHandle.standardError.write(Data("< from the cache: no request was sent\n".utf8))
            return
        }
        let text = """
            < protocol \(metrics.networkProtocolName ?? "unknown")\(metrics.isReusedConnection ? " (reused connection)" : "")
            < dns \(ms(metrics.domainLookupDuration)), connect \(ms(metrics.connectDuration)), \
            tls \(ms(metrics.secureConnectionDuration)), first byte \(ms(metrics.timeToFirstByte)), \
            total \(ms(metrics.totalDuration)); redirects \(metrics.redirectCount); \
            sent \(metrics.countOfRequestBodyBytesSent) B, received \(metrics.countOfResponseBytesReceived) B

            """
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// `--retry`: the retry policy, saying on stderr what it retries and when (as curl --retry does).
struct AnnouncedRetries: RequestInterceptor {
    let policy: RetryPolicy

    func retry(_ request: URLRequest, after failure: AttemptFailure, attempt: Int) async -> RetryDecision {
        let decision = await policy.retry(request, after: failure, attempt: attempt)
        let cause = failure.response.map { "HTTP \($0.statusCode)" } ?? failure.error.map { RequestRunner.describe($0) } ?? "failure"
        switch decision {
        case .retry:
            FileHandle.standardError.write(Data("af: attempt \(attempt) failed (\(cause)); retrying\n".utf8))
        case .retryAfter(let delay):
            let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            FileHandle.standardError.write(Data(
                "af: attempt \(attempt) failed (\(cause)); retrying in \(String(format: "%.1f", seconds)) s\n".utf8))
        case .doNotRetry, .fail:
            break
        }
        return decision
    }
}
