import Foundation

/// An attempt about to be sent, as a ``RequestObserver`` sees it.
public struct ObservedAttempt: Sendable {
    /// The task's identifier, unique within its session (the same for each attempt of a retried task).
    public let taskIdentifier: Int
    /// The value the task carries for observers (AFCore's `SessionTask.observationContext`; for the
    /// standard observer, a `Logger` that replaces the session's), or nil.
    public let context: (any Sendable)?
    private let readRequest: @Sendable () -> ObservedRequest?

    /// An attempt of task `taskIdentifier` carrying `context`, whose request `request` reads when asked.
    public init(taskIdentifier: Int, context: (any Sendable)?, request: @escaping @Sendable () -> ObservedRequest?) {
        self.taskIdentifier = taskIdentifier
        self.context = context
        readRequest = request
    }

    /// The request as it is to be sent, read when asked: a task made from an `HTTPRequest` builds it
    /// only then. Nil when the task has no request with a URL.
    public var request: ObservedRequest? { readRequest() }
}

/// A request as observers see it: plain values.
public struct ObservedRequest: Sendable {
    /// The method as sent (uppercased).
    public let method: String
    /// The URL, with whatever credentials and query it holds (an observer that reports it redacts it).
    public let url: URL
    /// The header fields, as the request holds them.
    public let headerFields: [(name: String, value: String)]

    /// A request of `method` to `url` with `headerFields`.
    public init(method: String, url: URL, headerFields: [(name: String, value: String)]) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
    }
}

/// How an observed attempt ended.
public struct ObservedAttemptEnd: Sendable {
    /// The response's status code, or nil when no response head arrived.
    public let statusCode: Int?
    /// The error that ended the attempt, or nil when it completed (whatever its status).
    public let error: (any Error)?
    /// Bytes of request body sent.
    public let bytesSent: Int64
    /// Bytes of response body received (after content decoding).
    public let bytesReceived: Int64
    /// For a connection that carries messages after its handshake (a WebSocket's): the data messages
    /// sent over its whole life; nil for a request.
    public let messagesSent: Int?
    /// For a connection that carries messages (a WebSocket's): the data messages received; nil for a request.
    public let messagesReceived: Int?

    /// An attempt's end; the message counts default to nil (a request, not a message connection).
    public init(statusCode: Int?, error: (any Error)?, bytesSent: Int64, bytesReceived: Int64,
                messagesSent: Int? = nil, messagesReceived: Int? = nil) {
        self.statusCode = statusCode
        self.error = error
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.messagesSent = messagesSent
        self.messagesReceived = messagesReceived
    }
}

/// A session's gauges: what its engine holds at a moment.
public struct SessionGauges: Sendable, Equatable {
    /// Connections (sockets) the session holds open, busy or idle.
    public let openConnections: Int
    /// Tasks waiting for a connection (per-host limits) or for the network to come back.
    public let waitingTasks: Int

    /// Gauges of `openConnections` and `waitingTasks`.
    public init(openConnections: Int, waitingTasks: Int) {
        self.openConnections = openConnections
        self.waitingTasks = waitingTasks
    }
}
