import Foundation
import StratusTestSupport

/// A throwaway self-signed certificate for 127.0.0.1 (and localhost), made with the openssl
/// command (`.ci/run` installs it when missing): what a test TLS server presents and its
/// client trusts.
struct TestCertificate {
    let certificatePath: String
    let keyPath: String

    var certificatePEM: String { (try? String(contentsOfFile: certificatePath, encoding: .utf8)) ?? "" }

    struct Failure: Error, CustomStringConvertible { let description: String }

    static func make(in folder: URL) async throws -> TestCertificate {
        try RequiredTool.openssl.require()
        let certificate = folder.appendingPathComponent("server.pem").path, key = folder.appendingPathComponent("server.key").path
        let child = try ChildProcess(
            "/usr/bin/env",
            arguments: [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ])
        let errors = await child.stderr!.text()
        _ = await child.stdout!.text()
        guard await child.termination.status == 0 else {
            throw Failure(description: "openssl could not make a test certificate (install openssl; .ci/run does): \(errors)")
        }
        return TestCertificate(certificatePath: certificate, keyPath: key)
    }
}
