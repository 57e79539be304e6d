#if Hummingbird
public import Hummingbird
public import LogStore
import Foundation

/// A Hummingbird 2 router middleware that records every request the server handles as an
/// inbound network task: method, URL, headers and body of the request; status, headers and body
/// of the response; the duration; and the error when the route throws.
///
/// ```swift
/// import Hummingbird
/// import LogStore
/// import LogStoreHummingbird
///
/// let router = Router()
/// router.add(middleware: LogStoreRequestMiddleware(store: store))
/// ```
///
/// Add it first, so it sees the requests the other middleware turn away and the responses they
/// change. It changes nothing the client receives: the request body is read only when its
/// `Content-Length` fits the store's `LogStore.Configuration.bodySizeLimit` (and is
/// put back for the route), and the response body is copied as it streams out, keeping its
/// length. The store redacts secrets (`Redaction`) before anything is stored.
///
/// A task completes when the response body has been written, so its duration includes the
/// streaming. An error thrown by the route (or a later middleware) is recorded, then rethrown
/// unchanged: an `HTTPResponseError` as a response with its status, any other error as a 500
/// response with the error, which is the status Hummingbird answers with.
public struct LogStoreRequestMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The logger the tasks go through; its `NetworkLogger.filter` decides which
    /// requests are recorded.
    public let logger: NetworkLogger

    /// Records through `logger`, which must be shared by nothing that reuses its task ids.
    ///
    /// - Parameter logger: the logger the tasks go through.
    public init(logger: NetworkLogger) {
        self.logger = logger
    }

    /// Records into `store` through a logger of its own.
    ///
    /// - Parameters:
    ///   - store: where the tasks go.
    ///   - label: the label of the tasks' technical messages. Default: `"http.server"`.
    ///   - filter: which requests to record, by URL (leave out health checks here). Default: all.
    public init(store: LogStore, label: String = "http.server", filter: URLFilter = URLFilter()) {
        self.init(logger: NetworkLogger(store: store, label: label, filter: filter))
    }

    /// Records `input` and the response the rest of the chain makes of it.
    ///
    /// - Throws: what `next` throws, unchanged, or the error reading the request body.
    public func handle(
        _ input: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var request = input
        let taskID = UUID()
        let url = InboundURL.make(request)
        var recorded = NetworkRequest(
            url: url, method: request.method.rawValue, headers: HeaderDictionary.make(request.headers))
        let limit = logger.store.configuration.bodySizeLimit
        // Only a body whose declared length fits is read ahead: a larger (or unannounced)
        // upload streams to the route untouched, and its Content-Length header tells its size.
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > 0, length <= limit {
            do {
                let body = try await request.collectBody(upTo: limit)
                recorded.body = Data(body.readableBytesView)
            } catch {
                logger.logTaskCreated(taskID: taskID, request: recorded, direction: .inbound)
                logger.logTaskCompleted(taskID: taskID, response: nil, error: RouteError.make(error))
                throw error
            }
        }
        logger.logTaskCreated(taskID: taskID, request: recorded, direction: .inbound)
        let response: Response
        do {
            response = try await next(request, context)
        } catch let answer as any HTTPResponseError {
            logger.logTaskCompleted(
                taskID: taskID, response: NetworkResponse(url: url, statusCode: Int(answer.status.code)), error: nil)
            throw answer
        } catch {
            logger.logTaskCompleted(
                taskID: taskID, response: NetworkResponse(url: url, statusCode: 500), error: RouteError.make(error))
            throw error
        }
        return RecordedResponse.tap(response, taskID: taskID, url: url, logger: logger)
    }
}
#endif
