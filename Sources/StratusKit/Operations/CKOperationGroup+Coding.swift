import Foundation

// Secure coding for operation groups, so an app can keep a group (a long import spread over
// launches) and report its later operations under the same ID.

extension CKOperationGroup: NSSecureCoding {
    public class var supportsSecureCoding: Bool { true }

    /// Archives the ID, name, quantity, transfer sizes and default configuration's settings.
    public func encode(with coder: NSCoder) {
        coder.encode(operationGroupID as NSString, forKey: "operationGroupID")
        if let name { coder.encode(name as NSString, forKey: "name") }
        coder.encode(quantity, forKey: "quantity")
        coder.encode(expectedSendSize.rawValue, forKey: "expectedSendSize")
        coder.encode(expectedReceiveSize.rawValue, forKey: "expectedReceiveSize")
        if let configuration = defaultConfiguration {
            coder.encode(configuration.timeoutIntervalForRequest, forKey: "timeoutIntervalForRequest")
            coder.encode(configuration.timeoutIntervalForResource, forKey: "timeoutIntervalForResource")
            coder.encode(configuration.allowsCellularAccess, forKey: "allowsCellularAccess")
            coder.encode(configuration.isLongLived, forKey: "isLongLived")
            coder.encode(configuration.qualityOfService.rawValue, forKey: "qualityOfService")
        }
    }

    /// Reads what ``encode(with:)`` wrote besides the ID; absent settings keep their defaults.
    func decodeSettings(_ coder: NSCoder) {
        name = coder.decodeStringIfPresent(forKey: "name")
        quantity = coder.decodeInteger(forKey: "quantity")
        expectedSendSize = TransferSize(rawValue: coder.decodeInteger(forKey: "expectedSendSize")) ?? .unknown
        expectedReceiveSize = TransferSize(rawValue: coder.decodeInteger(forKey: "expectedReceiveSize")) ?? .unknown
        guard coder.containsValue(forKey: "timeoutIntervalForRequest") else { return }
        let configuration = CKOperation.Configuration()
        configuration.timeoutIntervalForRequest = coder.decodeDouble(forKey: "timeoutIntervalForRequest")
        configuration.timeoutIntervalForResource = coder.decodeDouble(forKey: "timeoutIntervalForResource")
        configuration.allowsCellularAccess = coder.decodeBool(forKey: "allowsCellularAccess")
        configuration.isLongLived = coder.decodeBool(forKey: "isLongLived")
        configuration.qualityOfService = QualityOfService(rawValue: coder.decodeInteger(forKey: "qualityOfService")) ?? .default
        defaultConfiguration = configuration
    }
}
