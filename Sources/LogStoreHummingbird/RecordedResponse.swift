#if Hummingbird
import Hummingbird
import LogStore
import Foundation

/// Wraps a response's body so its bytes reach the logger as they are written, and the task
/// completes once the body has been written (or failed to be).
enum RecordedResponse {
    static func tap(_ response: Response, taskID: UUID, url: URL?, logger: NetworkLogger) -> Response {
        var response = response
        let head = NetworkResponse(
            url: url, statusCode: Int(response.status.code), headers: HeaderDictionary.make(response.headers))
        let body = response.body
        // Built with the original length, not with `ResponseBody.map`, which drops it (in 2.0)
        // and would turn a Content-Length response into a chunked one.
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            let tapping = TappingBodyWriter(parent: writer, taskID: taskID, logger: logger)
            do {
                try await body.write(tapping)
            } catch {
                logger.logTaskCompleted(taskID: taskID, response: head, error: RouteError.make(error))
                throw error
            }
            logger.logTaskCompleted(taskID: taskID, response: head, error: nil)
        }
        return response
    }
}

/// Hands every buffer to its parent writer, and a copy to the logger (which keeps the body up to
/// the store's size limit and counts the rest).
struct TappingBodyWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter
    let taskID: UUID
    let logger: NetworkLogger

    mutating func write(_ buffer: ByteBuffer) async throws {
        logger.logDataReceived(taskID: taskID, data: Data(buffer.readableBytesView))
        try await parent.write(buffer)
    }

    mutating func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
        for buffer in buffers {
            logger.logDataReceived(taskID: taskID, data: Data(buffer.readableBytesView))
        }
        try await parent.write(contentsOf: buffers)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await parent.finish(trailingHeaders)
    }
}
#endif
