import Foundation
import RunAnywhere

/// PNG and JPEG files built byte by byte, for tests of the image checks and of routes that
/// take images: small, valid unless a test damages them, and needing no codec.
public enum TestImages {
    /// A PNG chunk with its length and CRC.
    public static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        let crc = typed.withUnsafeBytes { ImageHeader.crc32($0) }
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc)
    }

    /// `value`'s four bytes, most significant first.
    public static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// The eight bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// An RGB PNG of `width × height` whose pixel data is stored uncompressed (deflate's
    /// stored blocks), so no zlib is needed to write it.
    public static func png(width: Int, height: Int, colorType: UInt8 = 2, depth: UInt8 = 8) -> [UInt8] {
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [depth, colorType, 0, 0, 0]
        let row = [UInt8](repeating: 0, count: 1 + min(width, 64) * 3)
        let raw = Array((0..<min(height, 64)).map { _ in row }.joined())
        let stored: [UInt8] =
            [
                0x78, 0x01, 0x01, UInt8(raw.count & 0xFF), UInt8(raw.count >> 8), UInt8(~raw.count & 0xFF),
                UInt8((~raw.count >> 8) & 0xFF),
            ] + raw + [0, 0, 0, 1]
        return signature + chunk("IHDR", header) + chunk("IDAT", stored) + chunk("IEND", [])
    }

    /// A minimal JPEG's segments: SOI, a frame header of `width × height`, a scan with a few
    /// entropy-coded bytes (one stuffed 0xFF and one restart marker), EOI.
    public static func jpeg(width: Int, height: Int, frame: UInt8 = 0xC0, precision: UInt8 = 8) -> [UInt8] {
        let sof: [UInt8] = [
            0xFF, frame, 0, 17, precision, UInt8(height >> 8), UInt8(height & 0xFF),
            UInt8(width >> 8), UInt8(width & 0xFF), 3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1,
        ]
        let sos: [UInt8] = [0xFF, 0xDA, 0, 12, 3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0]
        let scan: [UInt8] = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56]
        return [0xFF, 0xD8] + [0xFF, 0xE0, 0, 4, 0, 0] + sof + sos + scan + [0xFF, 0xD9]
    }

    /// `png(width:height:)` as a base64 `data:` URL, as web clients send images.
    public static func pngDataURL(width: Int, height: Int) -> String {
        "data:image/png;base64," + Data(png(width: width, height: height)).base64EncodedString()
    }
}
