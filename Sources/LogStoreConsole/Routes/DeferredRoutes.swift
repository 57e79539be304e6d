import Synchronization

/// The server's handler until the routes are ready: they need the port the server bound, so
/// the server starts first and the routes are installed right after. A request arriving in
/// between (nobody knows the token yet) gets 503.
final class DeferredRoutes: HTTPHandler {
    private let routes = Mutex<ConsoleRoutes?>(nil)

    func install(_ routes: ConsoleRoutes) {
        self.routes.withLock { $0 = routes }
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard let routes = routes.withLock({ $0 }) else {
            return ResponseHeaders.error(.failed("the console is starting"))
        }
        return await routes.respond(to: request)
    }
}
