/// One request's task: asks the handler, then writes its response into the exchange's queue.
enum HTTPExchangeRunner {
    /// Answers `head` (from `peer`) with `handler`'s response, written to `output`; ends the
    /// exchange with how the connection goes on: kept, closed, or aborted when the body could not
    /// be sent as announced.
    static func run(_ head: HTTPRequestHead, peer: String, handler: any HTTPHandler, output: HTTPExchangeOutput) async {
        let response = await handler.respond(to: head.request(peer: peer))
        let plan = HTTPResponsePlan(request: head, response: response)
        do {
            switch response.body {
            case .bytes(let bytes):
                guard plan.sendsBody, !bytes.isEmpty else {
                    try output.enqueue(plan.head)
                    break
                }
                // A small body goes out with the head, in one send and one TCP segment.
                if bytes.count <= 16 * 1024 {
                    try output.enqueue(plan.head + bytes)
                } else {
                    try output.enqueue(plan.head)
                    try output.enqueue(bytes)
                }
            case .stream(_, let write):
                try output.enqueue(plan.head)
                if plan.sendsBody {
                    try await write(HTTPStreamWriter(output: output, framing: plan.framing))
                    try output.endBody(framing: plan.framing)
                }
            }
            output.finish(plan.keepAlive ? .keepAlive : .close)
        } catch {
            // The stream threw, wrote a wrong length, or the connection is gone: what was sent
            // cannot be completed, so the connection is closed without a last chunk.
            output.finish(.abort)
        }
    }
}
