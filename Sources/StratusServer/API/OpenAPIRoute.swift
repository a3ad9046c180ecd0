import Hummingbird
import NIOCore

/// `GET /openapi.yaml`: the OpenAPI description of this server's HTTP API (API/openapi.yaml,
/// embedded in the binary at build time; docs/openapi.yaml is the same file).
extension Router<BasicRequestContext> {
    func addOpenAPIRoute() {
        let document = ByteBuffer(bytes: PackageResources.openapi_yaml)
        get("/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8", .cacheControl: "no-cache"],
                body: ResponseBody(byteBuffer: document))
        }
    }
}
