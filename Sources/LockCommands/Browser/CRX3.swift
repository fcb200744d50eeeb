import Crypto
import Foundation
import _CryptoExtras

/// A packed Chromium extension (CRX3): the only form Chromium installs by policy from outside
/// its web store. A CRX3 is `Cr24`, version 3, a protobuf header holding the signer's public key,
/// an RSA-SHA256 signature and the extension's id, then the zip archive.
/// (components/crx_file/crx3.proto in Chromium's source.)
struct CRX3 {
    /// The signing key: its public half names the extension (the id is derived from it).
    let key: _RSA.Signing.PrivateKey

    /// The extension id Chromium derives from the key: the first 16 bytes of the SHA-256 of
    /// the public key (SubjectPublicKeyInfo, DER), each half-byte written as `a`…`p`.
    var extensionID: String { Self.extensionID(publicKey: key.publicKey.derRepresentation) }

    static func extensionID(publicKey: Data) -> String {
        let digest = Array(SHA256.hash(data: publicKey)).prefix(16)
        let letters = digest.flatMap { [$0 >> 4, $0 & 0x0f] }.map { Character(UnicodeScalar(UInt8(ascii: "a") + $0)) }
        return String(letters)
    }

    /// The packed extension: `archive` is its zip (the same archive Firefox installs).
    func pack(archive: Data) throws -> Data {
        let publicKey = key.publicKey.derRepresentation
        let id = Array(SHA256.hash(data: publicKey)).prefix(16)
        // SignedData { bytes crx_id = 1; }
        let signedData = Self.field(1, Data(id))
        var signed = Data("CRX3 SignedData\u{0}".utf8)
        signed += Self.littleEndian(UInt32(signedData.count))
        signed += signedData
        signed += archive
        let signature = try key.signature(for: signed, padding: .insecurePKCS1v1_5).rawRepresentation
        // CrxFileHeader { repeated AsymmetricKeyProof sha256_with_rsa = 2; bytes signed_header_data = 10000; }
        // AsymmetricKeyProof { bytes public_key = 1; bytes signature = 2; }
        let proof = Self.field(1, publicKey) + Self.field(2, signature)
        let header = Self.field(2, proof) + Self.field(10000, signedData)
        return Data("Cr24".utf8) + Self.littleEndian(3) + Self.littleEndian(UInt32(header.count)) + header + archive
    }

    /// A length-delimited protobuf field (wire type 2).
    static func field(_ number: UInt64, _ bytes: Data) -> Data {
        varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes
    }

    static func varint(_ value: UInt64) -> Data {
        var value = value
        var bytes = Data()
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
        return bytes
    }

    static func littleEndian(_ value: UInt32) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
}
