import Foundation
import Logging
import StratusEngine
import StratusPush

/// The push delivery service `stratus serve` runs. `STRATUS_PUSH_CA_FILE` names extra
/// certificate authorities (PEM) to trust for push providers: a gateway with a private
/// certificate, or a test server standing in for APNs.
func makePushDelivery(storage: any RecordStorage, environment: [String: String], logger: Logger) throws -> PushDeliveryService {
    var options = PushDeliveryOptions()
    if let path = environment["STRATUS_PUSH_CA_FILE"], !path.isEmpty {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CloudKitError.badRequest("STRATUS_PUSH_CA_FILE='\(path)' cannot be read; give a PEM certificate file")
        }
        options.trustedCertificatesPEM = pem
    }
    return try PushDeliveryService(storage: storage, logger: logger, options: options)
}
