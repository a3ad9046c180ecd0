/// Told of every request the server answers, once, after its response is ready: on the fast
/// path for database requests and on the router alike (`ServerConfiguration.requestObservers`).
///
/// `observe` runs on the request's task before the response is written, so it must be quick and
/// must not wait: count, append to a buffer, or hand the summary to a task of its own.
public protocol RequestObserver: Sendable {
    func observe(_ summary: RequestSummary)
}
