/// How many connections the server keeps open and how long it waits on each.
///
/// Every open connection holds a file descriptor, and a process that runs out of descriptors
/// cannot accept, open a spool file or read `/proc` (the Linux dispatch runtime stops the process
/// when it cannot), so the connection cap stays well below the descriptor limit.
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections served at once. At the cap, a new connection takes the place of the connection
    /// idle the longest; when every connection is busy, it is answered 503 and closed.
    public var maximumConnections: Int
    /// How long a connection may stay open without a request before it is closed.
    public var idleTimeout: Duration
    /// How long a client has to send a request's headers, from its first byte.
    public var headerTimeout: Duration
    /// How long a client has to send a request body, extended by one second for every
    /// `bodyBytesPerSecond` bytes received, so large uploads over slow links still finish.
    public var bodyTimeout: Duration
    /// The slowest body transfer rate the body timeout allows for once it is under way.
    public var bodyBytesPerSecond: Int
    /// How long a client may leave its responses unread (the connection cannot take more
    /// output) before it is closed.
    public var writeTimeout: Duration

    public init(
        maximumConnections: Int, idleTimeout: Duration = .seconds(60), headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(30), bodyBytesPerSecond: Int = 1000, writeTimeout: Duration = .seconds(30)
    ) {
        self.maximumConnections = maximumConnections
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.bodyBytesPerSecond = bodyBytesPerSecond
        self.writeTimeout = writeTimeout
    }

    /// Limits for a process that may open `descriptorLimit` files.
    public init(descriptorLimit: Int) {
        self.init(maximumConnections: ConnectionLimits.defaultMaximum(descriptorLimit: descriptorLimit))
    }

    /// Descriptors kept for everything but client sockets: database files and connections, the
    /// event loops, logs, the runtime.
    public static let reservedDescriptors = 128
    /// The default cap never exceeds this, however high the descriptor limit: each connection
    /// also costs memory.
    public static let defaultCeiling = 10_000

    /// Two fifths of the descriptors left after the reserve: a connection can hold a second
    /// descriptor (an upload's spool file or a download's blob file), and connections being
    /// refused at the cap hold one each for a moment. At least 8, at most `defaultCeiling`.
    public static func defaultMaximum(descriptorLimit: Int) -> Int {
        min(defaultCeiling, safeMaximum(descriptorLimit: descriptorLimit))
    }

    /// The most connections `descriptorLimit` carries safely; a larger explicit cap is refused at
    /// start.
    public static func safeMaximum(descriptorLimit: Int) -> Int {
        max(8, (descriptorLimit - reservedDescriptors) * 2 / 5)
    }

    /// Sockets accepted beyond the cap only to be answered 503; past this many the server stops
    /// accepting until some close (new clients wait in the listen backlog).
    var refusalAllowance: Int { max(8, maximumConnections / 8) }
}
