import Hummingbird
import StratusEngine

/// `GET /share/<shortGUID>`: the page a share's URL opens in a browser, saying who shared what.
/// Apps pass the same URL to records/resolve and records/accept.
struct SharePage: Sendable {
    let engine: Engine

    func add(to router: Router<BasicRequestContext>) {
        router.get("/share/:guid") { _, context in await page(guid: context.parameters.get("guid") ?? "") }
    }

    func page(guid: String) async -> Response {
        guard let summary = try? await engine.shareSummary(shortGUID: guid) else {
            return html(SharePage.render(title: "Share not found", body: "No share has this address. Ask the person who shared it for a new link."), status: .notFound)
        }
        let what = summary.rootRecordName.map { "the record “\($0)”" } ?? "the zone “\(summary.zoneName)”"
        let title = summary.title ?? "A shared item"
        return html(SharePage.render(title: title, body: "\(summary.ownerName) shared \(what) of \(summary.container) with you. Open it in the app to accept the share."))
    }

    static func render(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(SignInPage.escape(title))</title></head>
        <body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem">
        <h1>\(SignInPage.escape(title))</h1>
        <p>\(SignInPage.escape(body))</p>
        </body>
        </html>
        """
    }

    func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
