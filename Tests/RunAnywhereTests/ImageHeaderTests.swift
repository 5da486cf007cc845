import Foundation
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

/// The checks every image passes before a backend decodes it, on PNG and JPEG files built
/// byte by byte here: each kind of damage must be an `.invalidImage` that says what is wrong.
/// The real-engine tests run the real photographs and the decoder.
@Suite("Image headers")
struct ImageHeaderTests {
    private func expectInvalid(
        _ bytes: [UInt8],
        mentioning words: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let header = try ImageHeader(Data(bytes))
            Issue.record("accepted \(header)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .invalidImage, sourceLocation: sourceLocation)
            #expect(error.message.contains(words), "\(error.message)", sourceLocation: sourceLocation)
        }
    }

    @Test("A whole PNG gives its format and size")
    func readsAPNG() throws {
        #expect(
            try ImageHeader(Data(TestImages.png(width: 80, height: 60)))
                == ImageHeader(format: .png, width: 80, height: 60)
        )
        let grey = try ImageHeader(Data(TestImages.png(width: 3, height: 5, colorType: 0, depth: 16)))
        #expect(grey.width == 3 && grey.height == 5)
    }

    @Test("A whole JPEG gives its format and size, baseline or progressive")
    func readsAJPEG() throws {
        #expect(
            try ImageHeader(Data(TestImages.jpeg(width: 640, height: 427)))
                == .init(format: .jpeg, width: 640, height: 427)
        )
        #expect(try ImageHeader(Data(TestImages.jpeg(width: 9, height: 7, frame: 0xC2))).width == 9)
    }

    @Test("A PNG cut anywhere is refused as cut short")
    func truncatedPNG() {
        let whole = TestImages.png(width: 8, height: 8)
        for length in [9, 20, 33, whole.count / 2, whole.count - 13, whole.count - 1] {
            expectInvalid(Array(whole.prefix(length)), mentioning: "cut short")
        }
    }

    @Test("A JPEG cut anywhere is refused as cut short")
    func truncatedJPEG() {
        let whole = TestImages.jpeg(width: 8, height: 8)
        for length in [3, 5, 12, 30, whole.count - 3, whole.count - 1] {
            expectInvalid(Array(whole.prefix(length)), mentioning: "cut short")
        }
    }

    @Test("A changed byte in a PNG chunk fails its checksum")
    func damagedPNG() {
        var bytes = TestImages.png(width: 8, height: 8)
        bytes[50] ^= 0x40
        expectInvalid(bytes, mentioning: "checksum")
    }

    @Test("PNGs whose header or chunks make no sense are damaged")
    func malformedPNG() {
        // No IHDR first.
        expectInvalid(TestImages.signature + TestImages.chunk("IEND", []), mentioning: "IHDR")
        // Colour type 2 (RGB) cannot have 4-bit samples.
        expectInvalid(TestImages.png(width: 4, height: 4, depth: 4), mentioning: "colour type")
        // Palette colour without a palette.
        expectInvalid(TestImages.png(width: 4, height: 4, colorType: 3), mentioning: "palette")
        // No image data.
        let header = TestImages.bigEndian(4) + TestImages.bigEndian(4) + [8, 2, 0, 0, 0]
        expectInvalid(
            TestImages.signature + TestImages.chunk("IHDR", header) + TestImages.chunk("IEND", []),
            mentioning: "IDAT"
        )
        // A chunk type that is not four letters.
        expectInvalid(
            TestImages.signature + TestImages.chunk("IHDR", header) + [0, 0, 0, 0, 1, 2, 3, 4],
            mentioning: "chunk"
        )
    }

    @Test("JPEGs the decoder does not read say so")
    func unsupportedJPEG() {
        expectInvalid(TestImages.jpeg(width: 8, height: 8, frame: 0xC3), mentioning: "SOF3")  // lossless
        expectInvalid(TestImages.jpeg(width: 8, height: 8, frame: 0xC9), mentioning: "SOF9")  // arithmetic
        expectInvalid(TestImages.jpeg(width: 8, height: 8, precision: 12), mentioning: "12-bit")
        expectInvalid(TestImages.jpeg(width: 8, height: 0), mentioning: "8×0")
    }

    @Test("A JPEG with a broken segment or no image data is damaged")
    func malformedJPEG() {
        var broken = TestImages.jpeg(width: 8, height: 8)
        broken[5] = 0x05  // the APP0 segment's length no longer ends on a marker
        expectInvalid(broken, mentioning: "damaged")
        expectInvalid([0xFF, 0xD8, 0xFF, 0xD9], mentioning: "before any image data")
    }

    @Test("A JPEG with a second frame header is damaged: a small one cannot vouch for a huge first")
    func secondFrameHeader() {
        // The decoder allocates for the first frame (46000 × 15000 here, gigabytes); a walk that
        // kept the last frame's size would have let it through on the 8 × 8 one.
        let huge = TestImages.jpeg(width: 46000, height: 15000)
        let small = TestImages.jpeg(width: 8, height: 8)
        let twoFrames = Array(huge.dropLast(2)) + Array(small.dropFirst(8).dropLast(2)) + [0xFF, 0xD9]
        expectInvalid(twoFrames, mentioning: "second frame header")
        let twoSmall = Array(small.dropLast(2)) + Array(small.dropFirst(8).dropLast(2)) + [0xFF, 0xD9]
        expectInvalid(twoSmall, mentioning: "second frame header")
    }

    @Test("Images over the size limit are refused before anything decodes them")
    func hugeImages() {
        expectInvalid(TestImages.png(width: 20000, height: 20000), mentioning: "megapixels")
        expectInvalid(TestImages.png(width: 16385, height: 1), mentioning: "per side")
        expectInvalid(TestImages.jpeg(width: 65535, height: 65535), mentioning: "megapixels")
        // 8192² RGBA at 16 bits would be 512 MiB decoded, from a file of kilobytes; at 8 bits RGB it is allowed.
        expectInvalid(
            TestImages.png(width: 8192, height: 8192, colorType: 6, depth: 16),
            mentioning: "decoding it would take"
        )
        #expect(throws: Never.self) { try ImageHeader(Data(TestImages.png(width: 8192, height: 8192))) }
        #expect(throws: SDKException.self) {
            try VLMImage.fromRawRGB(Data(count: 3), width: 100_000, height: 100_000).prepared()
        }
    }

    @Test("Data that is not PNG or JPEG is named when it can be")
    func otherFormats() {
        expectInvalid(Array("GIF89a......".utf8), mentioning: "GIF")
        expectInvalid(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), mentioning: "WebP")
        expectInvalid(Array("hello, world".utf8), mentioning: "not a PNG or JPEG")
        expectInvalid([], mentioning: "not a PNG or JPEG")
    }

    @Test("Raw pixels must have exactly three bytes per pixel")
    func rawPixels() throws {
        #expect(try VLMImage.fromRawRGB(Data(count: 12), width: 2, height: 2).prepared().header.width == 2)
        for (count, width, height) in [(11, 2, 2), (13, 2, 2), (0, 0, 0), (3, -1, -3)] {
            #expect(throws: SDKException.self) {
                try VLMImage.fromRawRGB(Data(count: count), width: width, height: height).prepared()
            }
        }
    }

    @Test("RGBA pixels lose their alpha channel and nothing else")
    func rgbaToRGB() throws {
        let image = try VLMImage(rawRGBA: Data([1, 2, 3, 255, 4, 5, 6, 0]), width: 2, height: 1)
        #expect(image.source == .rgb(Data([1, 2, 3, 4, 5, 6]), width: 2, height: 1))
        #expect(VLMImage.fromRawRGBA(Data([1, 2, 3, 255, 4, 5, 6, 0]), width: 2, height: 1) == image)
        #expect(throws: SDKException.self) { try VLMImage(rawRGBA: Data(count: 7), width: 2, height: 1) }
        // The original SDK's form does not throw: the request that uses the image does, saying why.
        let wrong = VLMImage.fromRawRGBA(Data(count: 7), width: 2, height: 1)
        do {
            _ = try wrong.prepared()
            Issue.record("a wrong RGBA byte count was accepted")
        } catch {
            #expect(error.code == .invalidImage)
            #expect(error.message.contains("7"), "\(error.message)")
        }
    }

    @Test(
        "Base64 images decode, with or without a data URL prefix; the original's form defers a refusal to the request"
    )
    func base64() throws {
        let bytes = Data(TestImages.png(width: 2, height: 2))
        #expect(try VLMImage(base64: bytes.base64EncodedString()).source == .encoded(bytes))
        #expect(
            try VLMImage(base64: "data:image/png;base64," + bytes.base64EncodedString()).source == .encoded(bytes)
        )
        #expect(VLMImage.fromBase64(bytes.base64EncodedString()).source == .encoded(bytes))
        #expect(try VLMImage.fromBase64(bytes.base64EncodedString()).prepared().header.width == 2)
        #expect(throws: SDKException.self) { try VLMImage(base64: "!!!") }
        let refused = VLMImage.fromBase64("!!!")
        do {
            _ = try refused.prepared()
            Issue.record("text that is not base64 made a usable image")
        } catch {
            #expect(error.code == .invalidImage)
            #expect(error.message.contains("base64"))
        }
        // The refusal survives a round trip through JSON, as a request queued on disk would make.
        let decoded = try JSONDecoder().decode(VLMImage.self, from: JSONEncoder().encode(refused))
        #expect(decoded == refused)
        #expect(throws: SDKException.self) { try decoded.prepared() }
    }

    @Test("An encoded image of the wrong declared format is refused")
    func declaredFormat() throws {
        let png = Data(TestImages.png(width: 2, height: 2))
        #expect(try VLMImage.fromEncoded(png, format: .png).prepared().header.format == .png)
        #expect(throws: SDKException.self) { try VLMImage.fromEncoded(png, format: .jpeg).prepared() }
    }

    @Test("Files are read when used: a missing file or a folder is an invalid image")
    func files() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-img-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.png")
        try Data(TestImages.png(width: 5, height: 4)).write(to: file)
        let (image, header) = try VLMImage.fromFile(file).prepared()
        #expect(header == ImageHeader(format: .png, width: 5, height: 4))
        #expect(image.source == .encoded(try Data(contentsOf: file)))
        for bad in [folder, folder.appendingPathComponent("missing.png")] {
            #expect(throws: SDKException.self) { try VLMImage.fromFile(bad).prepared() }
        }
    }

    @Test("Images survive a JSON round trip inside chat messages")
    func codable() throws {
        let message = ChatMessage.user("What is this?", images: [.fromRawRGB(Data([1, 2, 3]), width: 1, height: 1)])
        let decoded = try JSONDecoder().decode(ChatMessage.self, from: JSONEncoder().encode(message))
        #expect(decoded == message)
    }
}
