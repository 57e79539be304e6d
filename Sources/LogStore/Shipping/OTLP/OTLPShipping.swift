import Foundation

/// An OTLP/HTTP logs endpoint as a shipper's destination: each request one
/// `ExportLogsServiceRequest` in JSON (``OTLPLogsEncoder``), gzip-compressed.
///
/// Retried only where the OTLP specification says a retry may help (429, 502, 503, 504, and a
/// failed connection), after the `Retry-After` the endpoint gave; 400 and 413 are refusals.
/// A gap goes out as a warning record saying how many rows were lost.
final class OTLPShipping: ShippingDestination {
    private let destination: OTLPDestination
    private let node: String
    private let poster: HTTPPoster

    init(_ destination: OTLPDestination, node: String, timeout: Duration) {
        self.destination = destination
        self.node = node
        poster = HTTPPoster(timeout: timeout)
    }

    func prepare() async throws(ShippingFailure) {}

    func encode(_ rows: ShippingRows, shipment: Shipment) throws(ShippingFailure) -> ShippingRequest {
        let encoder = OTLPLogsEncoder(resource: OTLPResource(
            serviceName: destination.serviceName, serviceInstanceID: shipment.store.uuidString.lowercased(),
            hostName: node))
        let body = encoder.encode(messages: rows.messages + rows.gaps.map(Self.gapMessage), tasks: rows.tasks)
        var headers = destination.headers
        headers["Content-Type"] = "application/json"
        let encoded = try ShippingRequest.Body(query: nil, bytes: body, headers: headers, compresses: shipment.compresses)
        return ShippingRequest(rows: rows, bodies: [encoded], bytes: body.count)
    }

    func send(_ request: ShippingRequest) async throws(ShippingFailure) {
        let target = destination.url.withoutCredentials
        for body in request.bodies {
            let answer: HTTPPoster.Answer
            do {
                answer = try await poster.post(destination.url, body: body.payload, headers: body.headers)
            } catch {
                throw .retryable("\(target): \(error.localizedDescription)", retryAfter: nil)
            }
            switch answer.status {
            case 200..<300:
                continue
            case 429, 502, 503, 504:
                throw .retryable(
                    "\(target) answered \(answer.status): \(answer.excerpt)",
                    retryAfter: answer.headers["retry-after"].flatMap(RetryAfter.parse))
            default:
                throw .refused("\(target) answered \(answer.status): \(answer.excerpt)", tooLarge: answer.status == 413)
            }
        }
    }

    /// A gap as a log record: a warning with the entity and the count, id 0.
    private static func gapMessage(_ gap: ShippedGap) -> LogStore.Message {
        LogStore.Message(
            id: 0, createdAt: gap.date, level: .warning, label: "logstore.gap",
            text: "\(gap.rows) \(gap.entity == .task ? "tasks" : "messages") were deleted by the store's size limit before they were shipped",
            metadata: [
                "logstore.gap.entity": .string("\(gap.entity)"), "logstore.gap.rows": .string(String(gap.rows)),
                "logstore.gap.cursor": .string(String(gap.cursor)),
            ],
            file: nil, function: nil, line: nil, threadID: nil, threadName: nil, sessionID: UUID(uuid: UUID.nilUUID))
    }
}
