import Foundation
@testable import StratusApp
import Testing

/// The backup archive's headers at the ustar size field's limit (8 GiB less a byte, 11 octal
/// digits): larger sizes go into a pax `size` record and the field's GNU base-256 form, and the
/// reader takes either.
@Suite("Tar headers of large files")
struct TarFormatTests {
    static let nineGiB: Int64 = 9 << 30

    @Test func sizesUpToTheOctalLimitKeepOneUstarBlock() throws {
        let header = try TarFormat.header(name: "a", size: TarFormat.largestOctalSize)
        #expect(header.count == TarFormat.blockSize)
        #expect(try TarFormat.parse(header: header)?.size == TarFormat.largestOctalSize)
    }

    @Test func largerSizesGetAPaxRecordAndABase256SizeField() throws {
        let header = try TarFormat.header(name: "large.bin", size: Self.nineGiB)
        #expect(header.count == 3 * TarFormat.blockSize, "pax header, its records, the file's header")
        let pax = try #require(try TarFormat.parse(header: Array(header[0..<512])))
        #expect(pax.type == UInt8(ascii: "x") && pax.name == "PaxHeaders/large.bin")
        let records = Array(header[512..<(512 + Int(pax.size))])
        #expect(String(decoding: records, as: UTF8.self) == "19 size=9663676416\n", "the length, 19, counts the whole record")
        #expect(try TarFormat.paxSize(records) == Self.nineGiB)
        let file = try #require(try TarFormat.parse(header: Array(header[1024..<1536])))
        #expect(file.name == "large.bin" && file.type == UInt8(ascii: "0"))
        #expect(file.size == Self.nineGiB, "base-256 size field")
    }

    @Test func aPaxSizeIsReadWhereTheUstarFieldSaysNothing() throws {
        // As tar writers that put the size only in the pax record leave the ustar field.
        var header = try TarFormat.header(name: "large.bin", size: Self.nineGiB)
        header.replaceSubrange((1024 + 124)..<(1024 + 136), with: Array("00000000000\u{0}".utf8))
        #expect(try TarFormat.parse(header: Array(header[1024..<1536]))?.size == 0)
        #expect(try TarFormat.paxSize(Array(TarFormat.paxRecord("path", "x") + TarFormat.paxRecord("size", "\(Self.nineGiB)"))) == Self.nineGiB)
        #expect(throws: BackupError.self) { try TarFormat.paxSize(Array("99 size=1\n".utf8)) }
    }
}
