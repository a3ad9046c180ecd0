import HummingbirdBcrypt
import StratusEngine

/// bcrypt (salted, slow) for account passwords.
public struct BcryptHasher: PasswordHashing {
    /// Work factor: 2^cost rounds. 10 takes tens of milliseconds here; tests may use less.
    public var cost: UInt8

    public init(cost: UInt8 = 10) {
        self.cost = cost
    }

    public func hash(_ password: String) -> String { Bcrypt.hash(password, cost: cost) }

    public func verify(_ password: String, hash: String) -> Bool { Bcrypt.verify(password, hash: hash) }
}
