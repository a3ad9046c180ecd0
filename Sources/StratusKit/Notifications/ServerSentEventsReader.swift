import Foundation
import StratusModel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads a Server-Sent Events response as it arrives and hands out each event's `data`.
/// URLSession's delegate API is the one that delivers a body in pieces on Linux too.
///
/// `@unchecked Sendable`: `buffer` is touched only from the session's delegate queue, which is
/// serial (`maxConcurrentOperationCount = 1`); the continuation is thread-safe.
final class ServerSentEventsReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let continuation: AsyncThrowingStream<String, any Error>.Continuation
    private var buffer = Data()
    private var status = 0

    /// Connects to `url` and returns the event payloads; the sequence ends when the server
    /// closes the stream, and throws when the connection fails or the answer is not a stream.
    static func events(from url: URL) -> AsyncThrowingStream<String, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: String.self)
        let reader = ServerSentEventsReader(continuation: continuation)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.ephemeral
        // The server sends a keep-alive comment after each quiet courier timeout (30 s).
        configuration.timeoutIntervalForRequest = 120
        let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: queue)
        var request = URLRequest(url: url)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        let task = session.dataTask(with: request)
        continuation.onTermination = { _ in
            task.cancel()
            session.invalidateAndCancel()
        }
        task.resume()
        return stream
    }

    private init(continuation: AsyncThrowingStream<String, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        buffer.append(data)
        guard status == 200 else { return }
        // Events end with a blank line; `data:` lines hold the payload, `:` lines are comments.
        let separator = Data("\n\n".utf8)
        while let end = buffer.range(of: separator) {
            let event = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex..<end.upperBound)
            let payload = event.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { $0.hasPrefix("data:") }
                .map { $0.dropFirst(5).drop { $0 == " " } }
                .joined(separator: "\n")
            if !payload.isEmpty { continuation.yield(payload) }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            continuation.finish(throwing: CKError(.networkFailure, "the notification stream broke: \(error.localizedDescription)"))
        } else if status != 200 {
            let json = try? JSONValue.parse(buffer)
            continuation.finish(throwing: json.flatMap { CKError(errorDictionary: $0) } ?? CKError(.serverRejectedRequest, "HTTP \(status) from the notification stream"))
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
