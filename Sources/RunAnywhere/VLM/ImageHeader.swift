#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An encoded image's format and size, with its structure checked without decoding it.
///
/// The decoders behind the backends (stb_image in libmtmd) accept cut-short and damaged files
/// more or less silently, and decode whatever size a header claims. So before any image
/// reaches C, this walks the file: a PNG's chunks with their CRCs up to `IEND`, a JPEG's
/// segments and entropy-coded data up to its end-of-image marker. A file cut short, a damaged
/// chunk, a format the decoders do not read, or a size over ``VLMImage/maximumPixelCount``
/// is an `.invalidImage` naming the problem.
package struct ImageHeader: Sendable, Equatable {
    /// `nil` for raw pixels.
    package var format: VLMImage.Format?
    package var width: Int
    package var height: Int

    package init(format: VLMImage.Format?, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// Reads and checks an encoded image.
    ///
    /// - Throws: `.invalidImage`.
    package init(_ data: Data) throws(SDKException) {
        guard data.count <= VLMImage.maximumEncodedSize else {
            throw SDKException(
                .invalidImage,
                "The image has \(data.count) bytes; the limit is \(VLMImage.maximumEncodedSize)"
            )
        }
        let parsed = data.withUnsafeBytes { bytes in
            Result { () throws(SDKException) in
                if bytes.starts(with: Self.pngSignature) { return (VLMImage.Format.png, try Self.png(bytes)) }
                if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return (VLMImage.Format.jpeg, try Self.jpeg(bytes)) }
                throw SDKException(
                    .invalidImage,
                    "The data is not a PNG or JPEG image\(Self.otherFormat(bytes).map { " (it looks like \($0))" } ?? "")",
                    recovery: "Convert it to PNG or JPEG, or pass raw RGB pixels (VLMImage.fromRawRGB)"
                )
            }
        }
        let (format, size) = try parsed.get()
        try Self.checkSize(width: size.width, height: size.height)
        self.init(format: format, width: size.width, height: size.height)
    }

    /// Checks raw pixels: a size within the limits and exactly `channels` bytes per pixel.
    package static func checkRaw(width: Int, height: Int, bytes: Int, channels: Int) throws(SDKException) {
        try checkSize(width: width, height: height)
        guard bytes == width * height * channels else {
            throw SDKException(
                .invalidImage,
                "\(width)×\(height) pixels with \(channels) bytes each take \(width * height * channels) bytes, "
                    + "but \(bytes) were given"
            )
        }
    }

    static func checkSize(width: Int, height: Int) throws(SDKException) {
        guard width > 0, height > 0 else {
            throw SDKException(.invalidImage, "The image is \(width)×\(height) pixels: both sides must be at least 1")
        }
        guard width <= VLMImage.maximumDimension, height <= VLMImage.maximumDimension,
            width * height <= VLMImage.maximumPixelCount
        else {
            let megapixels = String(printf: "%.1f", Double(width) * Double(height) / 1_048_576)
            throw SDKException(
                .invalidImage,
                "The image is \(width)×\(height) pixels (\(megapixels) megapixels); the limit is "
                    + "\(VLMImage.maximumPixelCount / 1_048_576) megapixels and \(VLMImage.maximumDimension) per side",
                recovery: "Scale it down first"
            )
        }
    }

    // MARK: PNG

    /// The most bytes the decoder may hold for a PNG's pixels: 64 megapixels of RGB. A 16-bit
    /// RGBA image of as many pixels would need 512 MiB, from a file of a few kilobytes.
    static let maximumDecodedBytes = 3 * VLMImage.maximumPixelCount

    /// Refuses a PNG whose pixels, at the width the decoder holds them (one or two bytes a
    /// channel), would take more than ``maximumDecodedBytes``.
    private static func checkDecodedSize(width: Int, height: Int, colorType: UInt8, depth: UInt8) throws(SDKException) {
        // Sides beyond the limit are refused by the size check, with a message of their own.
        guard width <= VLMImage.maximumDimension, height <= VLMImage.maximumDimension else { return }
        let channels = [0: 1, 2: 3, 3: 3, 4: 2, 6: 4][colorType] ?? 4
        let bytes = width * height * channels * (depth == 16 ? 2 : 1)
        guard bytes > maximumDecodedBytes else { return }
        throw SDKException(
            .invalidImage,
            "The PNG is \(width)×\(height) pixels of \(channels) channels at \(depth) bits: decoding it would take "
                + "\(bytes / 1_048_576) MiB; the limit is \(maximumDecodedBytes / 1_048_576) MiB",
            recovery: "Scale it down, or save it with 8 bits a channel"
        )
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Bit depths PNG allows per colour type (grey, RGB, palette, grey+alpha, RGBA).
    private static let pngDepths: [UInt8: Set<UInt8>] = [
        0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
    ]

    private static func png(_ bytes: UnsafeRawBufferPointer) throws(SDKException) -> (width: Int, height: Int) {
        var offset = pngSignature.count
        var size: (width: Int, height: Int)?
        var colorType: UInt8 = 0
        var sawPalette = false
        var sawData = false
        while true {
            guard offset + 8 <= bytes.count else { throw cutShort("PNG", "before its IEND chunk") }
            let length = Int(bigEndian32(bytes, offset))
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw damaged("PNG", "byte \(offset) should start a chunk but does not")
            }
            guard length <= 0x7FFF_FFFF, offset + 12 + length <= bytes.count else {
                throw cutShort("PNG", "in its \(type) chunk")
            }
            let stored = bigEndian32(bytes, offset + 8 + length)
            guard crc32(UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 8 + length)])) == stored else {
                throw damaged("PNG", "the checksum of its \(type) chunk at byte \(offset) does not match")
            }
            let body = offset + 8
            if size == nil {
                guard type == "IHDR", length == 13 else { throw damaged("PNG", "it does not start with an IHDR chunk") }
                let width = Int(bigEndian32(bytes, body))
                let height = Int(bigEndian32(bytes, body + 4))
                colorType = bytes[body + 9]
                guard pngDepths[colorType]?.contains(bytes[body + 8]) == true, bytes[body + 10] == 0,
                    bytes[body + 11] == 0, bytes[body + 12] <= 1
                else {
                    throw damaged("PNG", "its IHDR chunk has an invalid colour type, bit depth or method")
                }
                try checkDecodedSize(width: width, height: height, colorType: colorType, depth: bytes[body + 8])
                size = (width, height)
            }
            switch type {
            case "PLTE": sawPalette = true
            case "IDAT": sawData = true
            case "IEND":
                guard sawData else { throw damaged("PNG", "it has no image data (IDAT)") }
                guard colorType != 3 || sawPalette else { throw damaged("PNG", "it has colour indices but no palette") }
                return size!
            default: break
            }
            offset += 12 + length
        }
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// The CRC-32 PNG chunks carry (ISO 3309, as in zlib).
    package static func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        crcTable.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }

    // MARK: JPEG

    private static func jpeg(_ bytes: UnsafeRawBufferPointer) throws(SDKException) -> (width: Int, height: Int) {
        var offset = 2
        var size: (width: Int, height: Int)?
        var sawScan = false
        while true {
            guard offset < bytes.count else { throw cutShort("JPEG", "before its end-of-image marker") }
            guard bytes[offset] == 0xFF else {
                throw damaged("JPEG", "byte \(offset) should start a marker but does not")
            }
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }  // fill bytes
            guard offset < bytes.count else { throw cutShort("JPEG", "before its end-of-image marker") }
            let marker = bytes[offset]
            offset += 1
            switch marker {
            case 0xD9:
                guard let size, sawScan else { throw damaged("JPEG", "it ends before any image data") }
                return size
            case 0x01, 0xD0...0xD7:
                continue  // markers without a segment
            case 0x00, 0xD8:
                throw damaged("JPEG", "an unexpected marker at byte \(offset - 1)")
            default:
                guard offset + 2 <= bytes.count else { throw cutShort("JPEG", "in a segment header") }
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                guard length >= 2 else { throw damaged("JPEG", "a segment at byte \(offset) has length \(length)") }
                guard offset + length <= bytes.count else { throw cutShort("JPEG", "in a segment") }
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    // One frame per file: the decoder sizes its buffers from the first, so a
                    // small second one must not vouch for a huge first.
                    guard size == nil else {
                        throw damaged("JPEG", "it has a second frame header at byte \(offset - 2)")
                    }
                    size = try frame(marker, UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
                }
                offset += length
                if marker == 0xDA {
                    guard size != nil else { throw damaged("JPEG", "its image data comes before its frame header") }
                    sawScan = true
                    offset = try endOfScan(bytes, from: offset)
                }
            }
        }
    }

    /// The size in a start-of-frame segment, if stb_image decodes that kind of frame.
    private static func frame(
        _ marker: UInt8,
        _ segment: UnsafeRawBufferPointer
    ) throws(SDKException) -> (width: Int, height: Int) {
        guard segment.count >= 8 else { throw damaged("JPEG", "its frame header is too short") }
        guard [0xC0, 0xC1, 0xC2].contains(marker) else {
            throw SDKException(
                .invalidImage,
                "The JPEG is coded in a way the decoder does not read (frame type SOF\(marker - 0xC0)): "
                    + "only baseline and progressive Huffman JPEGs are",
                recovery: "Save it again as a baseline or progressive JPEG, or as PNG"
            )
        }
        guard segment[2] == 8 else {
            throw SDKException(.invalidImage, "The JPEG has \(segment[2])-bit samples; only 8-bit JPEGs are read")
        }
        guard [1, 3, 4].contains(segment[7]) else {
            throw damaged("JPEG", "its frame has \(segment[7]) colour components")
        }
        let height = Int(segment[3]) << 8 | Int(segment[4])
        let width = Int(segment[5]) << 8 | Int(segment[6])
        return (width, height)
    }

    /// Where the marker after a scan's entropy-coded data starts. In that data 0xFF is followed
    /// by 0x00 (a stuffed byte) or a restart marker; anything else is the next marker.
    private static func endOfScan(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(SDKException) -> Int {
        var offset = start
        while offset + 1 < bytes.count {
            if bytes[offset] == 0xFF {
                let next = bytes[offset + 1]
                if next != 0x00, next != 0xFF, !(0xD0...0xD7).contains(next) { return offset }
                offset += next == 0xFF ? 1 : 2
            } else {
                offset += 1
            }
        }
        throw cutShort("JPEG", "in its image data")
    }

    // MARK: Helpers

    private static func bigEndian32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    private static func cutShort(_ format: String, _ where: String) -> SDKException {
        SDKException(.invalidImage, "The \(format) image is cut short: it ends \(`where`)")
    }

    private static func damaged(_ format: String, _ what: String) -> SDKException {
        SDKException(.invalidImage, "The \(format) image is damaged: \(what)")
    }

    /// Formats people pass by mistake, named in the error.
    private static func otherFormat(_ bytes: UnsafeRawBufferPointer) -> String? {
        if bytes.starts(with: Array("GIF8".utf8)) { return "a GIF" }
        if bytes.starts(with: Array("BM".utf8)) { return "a BMP" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)),
            Array(bytes[8..<12]) == Array("WEBP".utf8)
        {
            return "a WebP"
        }
        if bytes.count >= 12, Array(bytes[4..<12]) == Array("ftypheic".utf8) { return "a HEIC" }
        return nil
    }
}
