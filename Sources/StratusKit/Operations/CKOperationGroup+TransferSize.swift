import Foundation

extension CKOperationGroup {
    /// A rough size of the data a group's operations move.
    public enum TransferSize: Int, Sendable {
        case unknown = 0
        case kilobytes = 1
        case megabytes = 2
        case tensOfMegabytes = 3
        case hundredsOfMegabytes = 4
        case gigabytes = 5
        case tensOfGigabytes = 6
        case hundredsOfGigabytes = 7
    }
}
