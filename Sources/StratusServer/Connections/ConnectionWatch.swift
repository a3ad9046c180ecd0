import NIOCore

/// The first handler of every connection: admits it under the connection cap and enforces the
/// idle, header, body and write timeouts, so slow or silent clients cannot hold connections
/// the server needs for others. `RequestPhaseHandler`, further up the pipeline, reports where
/// each request stands; this handler sees the raw bytes, so it knows when a request's first byte
/// arrives.
final class ConnectionWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private enum Phase {
        case idle
        case readingHead
        case readingBody
        case responding
        /// Refused at the cap: its 503 is on the way, input is discarded.
        case refused
    }

    private let limits: ConnectionLimits
    private let registry: ConnectionRegistry
    private var activity: ConnectionActivity?
    private var context: ChannelHandlerContext?
    private var phase = Phase.idle
    /// When the current phase runs out; `nil` while the server works on a request.
    private var deadline: NIODeadline?
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var stallTimer: Scheduled<Void>?
    private var responseStarted = false

    init(limits: ConnectionLimits, registry: ConnectionRegistry) {
        self.limits = limits
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { admit(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        stallTimer?.cancel()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        if activity == nil { admit(context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let activity { registry.remove(activity) }
        timer?.cancel()
        stallTimer?.cancel()
        context.fireChannelInactive()
    }

    private func admit(_ context: ChannelHandlerContext) {
        let channel = context.channel
        let activity = ConnectionActivity(close: { channel.close(promise: nil) })
        self.activity = activity
        switch registry.admit(activity) {
        case .admitted:
            enterIdle()
        case .admittedInPlaceOf(let idlest):
            idlest.close()
            enterIdle()
        case .refused:
            refuse(context)
        }
    }

    /// Answers 503 and closes: the output side first, so the answer is not lost to a reset while
    /// the client is still sending; the rest after a moment.
    private func refuse(_ context: ChannelHandlerContext) {
        phase = .refused
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(CannedResponse.tooManyConnections(maximum: registry.maximum))))
            .whenComplete { _ in
                channel.close(mode: .output, promise: nil)
                channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
            }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch phase {
        case .refused:
            return
        case .idle:
            // The first byte of a request: its headers must now arrive within the header timeout.
            phase = .readingHead
            activity?.enter(.readingHead)
            deadline = .now() + TimeAmount(limits.headerTimeout)
        case .readingHead, .readingBody, .responding:
            break
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Timers are set once a read is processed: most requests arrive whole in one read and
        // need none beyond the one already running.
        ensureTimer()
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stallTimer?.cancel()
            stallTimer = nil
        } else if stallTimer == nil {
            // The client is not reading what it asked for; its connection is not kept for it.
            let channel = context.channel
            stallTimer = context.eventLoop.scheduleTask(in: TimeAmount(limits.writeTimeout)) { channel.close(promise: nil) }
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Reports from RequestPhaseHandler

    func requestHeadReceived() {
        phase = .readingBody
        responseStarted = false
        activity?.enter(.busy)
        deadline = .now() + TimeAmount(limits.bodyTimeout)
    }

    func bodyReceived(bytes: Int) {
        guard phase == .readingBody, let current = deadline else { return }
        // One more second for every `bodyBytesPerSecond` bytes: a steady upload never runs out.
        deadline = current + .nanoseconds(Int64(bytes) * 1_000_000_000 / Int64(max(1, limits.bodyBytesPerSecond)))
    }

    func requestEnded() {
        phase = .responding
        deadline = nil
    }

    func responseHeadWritten() { responseStarted = true }

    func responseEnded() {
        guard phase != .refused else { return }
        enterIdle()
    }

    // MARK: Timers

    private func enterIdle() {
        phase = .idle
        activity?.enter(.idle)
        deadline = .now() + TimeAmount(limits.idleTimeout)
        ensureTimer()
    }

    /// Makes sure the timer fires by the deadline. One timer serves every phase: it checks the
    /// deadline when it fires, so a later deadline needs no new timer.
    func ensureTimer() {
        guard let deadline else { return }
        if timer != nil, let timerDeadline, timerDeadline <= deadline { return }
        schedule(at: deadline)
    }

    private func schedule(at time: NIODeadline) {
        guard let context else { return }
        timer?.cancel()
        timerDeadline = time
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: time) { [self] in timerFired() }
    }

    private func timerFired() {
        timer = nil
        timerDeadline = nil
        guard let deadline, let context else { return }
        if NIODeadline.now() < deadline {
            schedule(at: deadline)
            return
        }
        switch phase {
        case .idle, .refused, .responding:
            context.close(promise: nil)
        case .readingHead:
            answerAndClose(CannedResponse.headerTimeout(limits.headerTimeout), context: context)
        case .readingBody:
            if responseStarted {
                context.close(promise: nil)
            } else {
                answerAndClose(CannedResponse.bodyTimeout(limits.bodyTimeout, bytesPerSecond: limits.bodyBytesPerSecond), context: context)
            }
        }
    }

    private func answerAndClose(_ response: ByteBuffer, context: ChannelHandlerContext) {
        phase = .refused
        deadline = nil
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(response))).whenComplete { _ in channel.close(promise: nil) }
    }
}
