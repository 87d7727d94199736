import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Answers requests on one HTTP/1.1 connection or one HTTP/2 stream (behind
/// `HTTP2FramePayloadToHTTP1ServerCodec`), writing bodies in chunks as the channel allows.
///
/// Everything runs on the channel's event loop: latency and trickling are scheduled tasks,
/// never sleeps, so a slow response never holds up other streams.
final class FixtureHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    enum Transport {
        case http1
        case http2
    }

    private struct Sending {
        var plan: ResponsePlan
        var sent = 0
        var closeAfter: Bool
        /// Completes when the most recent write that matters (head, then the last chunk) is out.
        var lastWrite: EventLoopFuture<Void>
        var remaining: Int { plan.sendLimit - sent }
    }

    static let chunkSize = 16 * 1024
    /// Bytes of generated bodies: the byte at offset p is `p & 0xFF`.
    private static let pattern: ByteBuffer = {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(chunkSize + 256)
        for index in 0..<(chunkSize + 256) {
            buffer.writeInteger(UInt8(truncatingIfNeeded: index))
        }
        return buffer
    }()

    private let core: FixtureServerCore
    private let transport: Transport
    private var requestHead: HTTPRequestHead?
    private var sending: Sending?
    private var pendingStart: Scheduled<Void>?
    private var pendingTick: Scheduled<Void>?
    private var isActive = true
    private var isPumping = false

    init(core: FixtureServerCore, transport: Transport) {
        self.core = core
        self.transport = transport
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestHead = head
        case .body:
            break  // request bodies are ignored
        case .end:
            guard let head = requestHead else { return }
            requestHead = nil
            respond(to: head, context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, pendingTick == nil {
            pump(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        stop()
        context.close(promise: nil)
    }

    /// Cancels timers and drops the response in progress: the client went away.
    private func stop() {
        isActive = false
        pendingStart?.cancel()
        pendingStart = nil
        pendingTick?.cancel()
        pendingTick = nil
        sending = nil
    }

    // MARK: Responding

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let request = FixtureRequest(
            method: head.method.rawValue,
            target: head.uri,
            headers: head.headers.map { ($0.name, $0.value) }
        )
        let plan = core.plan(for: request)
        let closeAfter = transport == .http1 && (!head.isKeepAlive || plan.closeConnectionAfter)
        let version = transport == .http1 ? head.version : .http1_1
        if plan.latencyMilliseconds > 0 {
            pendingStart = context.eventLoop.assumeIsolated().scheduleTask(
                in: .milliseconds(Int64(plan.latencyMilliseconds))
            ) {
                self.pendingStart = nil
                self.start(plan, version: version, closeAfter: closeAfter, context: context)
            }
        } else {
            start(plan, version: version, closeAfter: closeAfter, context: context)
        }
    }

    private func start(_ plan: ResponsePlan, version: HTTPVersion, closeAfter: Bool, context: ChannelHandlerContext) {
        guard isActive else { return }
        var headers = HTTPHeaders(plan.headers)
        if let contentLength = plan.contentLength {
            headers.replaceOrAdd(name: "content-length", value: String(contentLength))
        }
        if closeAfter {
            headers.replaceOrAdd(name: "connection", value: "close")
        }
        let head = HTTPResponseHead(
            version: version,
            status: HTTPResponseStatus(statusCode: plan.status),
            headers: headers
        )
        let headWritten = context.eventLoop.makePromise(of: Void.self)
        context.write(wrapOutboundOut(.head(head)), promise: headWritten)
        sending = Sending(plan: plan, closeAfter: closeAfter, lastWrite: headWritten.futureResult)
        pump(context: context)
    }

    /// Writes body chunks while the channel is writable; resumes on writability or on the next tick.
    private func pump(context: ChannelHandlerContext) {
        // flush() can fire channelWritabilityChanged re-entrantly; the loops below re-check
        // writability after every flush instead of letting a nested pump write the same bytes.
        guard isActive, !isPumping, var state = sending else { return }
        isPumping = true
        defer { isPumping = false }
        if let bytesPerSecond = state.plan.bytesPerSecond {
            guard pendingTick == nil else { return }
            if state.remaining > 0, context.channel.isWritable {
                writeChunk(min(state.remaining, max(1, bytesPerSecond / 10), Self.chunkSize), &state, context)
                sending = state
                context.flush()
            }
            guard isActive else { return }
            if state.remaining > 0 {
                pendingTick = context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(100)) {
                    self.pendingTick = nil
                    self.pump(context: context)
                }
                return
            }
        } else {
            // Flush every chunk: handlers like NIOSSLHandler hold unflushed writes where the
            // channel's writability cannot see them, so writing 1 GiB before one flush would buffer it all.
            while isActive, state.remaining > 0, context.channel.isWritable {
                writeChunk(min(state.remaining, Self.chunkSize), &state, context)
                sending = state
                context.flush()
            }
            if state.remaining == 0 {
                context.flush()  // the head, when there is no body
            }
            guard isActive, state.remaining == 0 else { return }  // channelWritabilityChanged resumes
        }
        finish(state, context: context)
    }

    private func writeChunk(_ length: Int, _ state: inout Sending, _ context: ChannelHandlerContext) {
        let chunk: ByteBuffer
        switch state.plan.body {
        case .buffer(let buffer):
            chunk = buffer.getSlice(at: buffer.readerIndex + state.sent, length: length) ?? ByteBuffer()
        case .generated:
            chunk = Self.pattern.getSlice(at: (state.sent + state.plan.generatedStart) & 0xFF, length: length) ?? ByteBuffer()
        }
        state.sent += length
        if state.remaining == 0 {
            let written = context.eventLoop.makePromise(of: Void.self)
            context.write(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: written)
            state.lastWrite = written.futureResult
        } else {
            context.write(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
        }
    }

    private func finish(_ state: Sending, context: ChannelHandlerContext) {
        sending = nil
        switch state.plan.ending {
        case .complete:
            let ended = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: ended)
            if state.closeAfter {
                ended.futureResult.assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
            }
        case .reset:
            context.flush()
            // Reset only once the promised bytes are out, so the client really gets them first.
            state.lastWrite.assumeIsolated().whenComplete { _ in
                self.reset(context: context)
            }
        case .stall:
            context.flush()  // then nothing: stop() cleans up when the client goes away
        }
    }

    private func reset(context: ChannelHandlerContext) {
        guard isActive else { return }
        switch transport {
        case .http1:
            context.close(promise: nil)
        case .http2:
            // RST_STREAM(INTERNAL_ERROR) must bypass the HTTP/1 codec, which only takes HTTP parts.
            if let codec = try? context.pipeline.syncOperations.context(
                handlerType: HTTP2FramePayloadToHTTP1ServerCodec.self
            ) {
                codec.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(.internalError)), promise: nil)
            } else {
                context.close(promise: nil)
            }
        }
    }
}
