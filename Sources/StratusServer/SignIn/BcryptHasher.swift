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

    /// bcrypt reads only the first 72 bytes, so a longer password would match any password that
    /// shares them. No account can have one (sign-up refuses them), so a longer one never matches.
    public func verify(_ password: String, hash: String) -> Bool {
        password.utf8.count <= BcryptHasher.maximumPasswordBytes && Bcrypt.verify(password, hash: hash)
    }

    /// The most bytes bcrypt reads.
    public static let maximumPasswordBytes = 72
}
