#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An image for a vision-language model: a PNG or JPEG file, its bytes, or raw RGB pixels.
///
/// ```swift
/// let photo = VLMImage.fromFilePath("/photos/cat.jpg")
/// let result = try await RunAnywhere.processImage(photo, options: .defaults(prompt: "What animal is this?"))
/// ```
///
/// Nothing is read or decoded when an image is made: the SDK checks it when a request uses it
/// (``SDKException/Code/invalidImage`` for a file that is not a whole PNG or JPEG, or is larger
/// than ``maximumPixelCount``), and the backend decodes it and resizes it to what the model's
/// vision projector takes.
public struct VLMImage: Sendable, Codable, Equatable {
    /// Where the image's pixels come from.
    public enum Source: Sendable, Codable, Equatable {
        /// A PNG or JPEG file, read when a request uses it.
        case file(URL)
        /// The bytes of a PNG or JPEG file.
        case encoded(Data)
        /// Pixels as 8-bit red, green, blue triples, row by row from the top left.
        case rgb(Data, width: Int, height: Int)
    }

    /// The encoded image formats the SDK reads.
    public enum Format: String, Sendable, Codable, CaseIterable {
        /// Portable Network Graphics: grey, grey and alpha, RGB, RGBA or palette; 1–16 bits.
        case png
        /// JPEG (JFIF or Exif), baseline or progressive, grey, YCbCr or CMYK.
        case jpeg
    }

    /// Where the pixels come from.
    public var source: Source

    /// The most pixels an image may have (64 megapixels, e.g. 8192 × 8192): decoding holds
    /// three bytes per pixel in memory before the image is scaled down for the projector.
    public static let maximumPixelCount = 64 * 1024 * 1024
    /// The longest side an image may have, in pixels.
    public static let maximumDimension = 16384
    /// The largest encoded file the SDK reads, in bytes.
    public static let maximumEncodedSize = 256 * 1024 * 1024

    /// Creates an image from a source.
    public init(source: Source) {
        self.source = source
    }

    /// A PNG or JPEG file at `path`.
    public static func fromFilePath(_ path: String) -> VLMImage {
        VLMImage(source: .file(URL(fileURLWithPath: path)))
    }

    /// A PNG or JPEG file.
    public static func fromFile(_ url: URL) -> VLMImage {
        VLMImage(source: .file(url))
    }

    /// The bytes of a PNG or JPEG file. When `format` is given, a request fails unless the
    /// bytes are in that format.
    public static func fromEncoded(_ data: Data, format: Format? = nil) -> VLMImage {
        VLMImage(source: .encoded(data), expectedFormat: format)
    }

    /// The bytes of a PNG or JPEG file in base64, as web APIs send images (a `data:` URL
    /// prefix such as `data:image/png;base64,` is accepted).
    ///
    /// - Throws: `.invalidImage` when the text is not base64.
    public init(base64 text: String) throws(SDKException) {
        var payload = Substring(text.trimmed())
        if payload.hasPrefix("data:"), let comma = payload.firstIndex(of: ",") {
            payload = payload[payload.index(after: comma)...]
        }
        guard let data = Data(base64Encoded: String(payload), options: .ignoreUnknownCharacters), !data.isEmpty else {
            throw SDKException(.invalidImage, "The image text is not base64")
        }
        self.init(source: .encoded(data))
    }

    /// The bytes of a PNG or JPEG file in base64 (the original SDK's form, which does not
    /// throw): text that is not base64 makes an image every request refuses with
    /// `.invalidImage`. ``init(base64:)`` throws at once.
    public static func fromBase64(_ text: String) -> VLMImage {
        do {
            return try VLMImage(base64: text)
        } catch {
            return VLMImage(source: .encoded(Data()), expectedFormat: nil, problem: error.message)
        }
    }

    /// Raw pixels: `width × height` RGB triples (3 bytes each), row by row from the top left.
    public static func fromRawRGB(_ pixels: Data, width: Int, height: Int) -> VLMImage {
        VLMImage(source: .rgb(pixels, width: width, height: height))
    }

    /// Raw pixels with alpha: `width × height` RGBA quadruples. The alpha channel is dropped
    /// (the projectors take RGB).
    ///
    /// - Throws: `.invalidImage` when the size or the byte count is wrong.
    public init(rawRGBA pixels: Data, width: Int, height: Int) throws(SDKException) {
        try ImageHeader.checkRaw(width: width, height: height, bytes: pixels.count, channels: 4)
        var rgb = Data(count: width * height * 3)
        rgb.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) in
            pixels.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
                for pixel in 0..<(width * height) {
                    out[pixel * 3] = input[pixel * 4]
                    out[pixel * 3 + 1] = input[pixel * 4 + 1]
                    out[pixel * 3 + 2] = input[pixel * 4 + 2]
                }
            }
        }
        self.init(source: .rgb(rgb, width: width, height: height))
    }

    /// Raw pixels with alpha (the original SDK's form, which does not throw): a wrong size or
    /// byte count makes an image every request refuses with `.invalidImage`.
    /// ``init(rawRGBA:width:height:)`` throws at once.
    public static func fromRawRGBA(_ pixels: Data, width: Int, height: Int) -> VLMImage {
        do {
            return try VLMImage(rawRGBA: pixels, width: width, height: height)
        } catch {
            return VLMImage(
                source: .rgb(Data(), width: width, height: height),
                expectedFormat: nil,
                problem: error.message
            )
        }
    }

    /// The format `fromEncoded(_:format:)` was told to expect.
    var expectedFormat: Format?

    /// Why a request must refuse the image, found when it was made by a form that does not
    /// throw (``fromBase64(_:)``, ``fromRawRGBA(_:width:height:)``).
    var problem: String?

    init(source: Source, expectedFormat: Format?, problem: String? = nil) {
        self.source = source
        self.expectedFormat = expectedFormat
        self.problem = problem
    }

    enum CodingKeys: String, CodingKey {
        case source
        case expectedFormat = "expected_format"
        case problem
    }
}

extension VLMImage {
    /// The image as a request hands it to a backend: a file read into memory, every source
    /// checked (``ImageHeader``), with its size.
    ///
    /// - Throws: `.invalidImage`, naming what is wrong.
    package func prepared() throws(SDKException) -> (image: VLMImage, header: ImageHeader) {
        if let problem { throw SDKException(.invalidImage, problem) }
        switch source {
        case .file(let url):
            let data = try Self.read(url)
            let header: ImageHeader
            do {
                header = try ImageHeader(data)
            } catch {
                throw SDKException(.invalidImage, "\(url.lastPathComponent): \(error.message)")
            }
            return (VLMImage(source: .encoded(data)), header)
        case .encoded(let data):
            let header = try ImageHeader(data)
            if let expectedFormat, let format = header.format, format != expectedFormat {
                throw SDKException(
                    .invalidImage,
                    "The image is \(format.rawValue.uppercased()), not \(expectedFormat.rawValue.uppercased())"
                )
            }
            return (self, header)
        case .rgb(let pixels, let width, let height):
            try ImageHeader.checkRaw(width: width, height: height, bytes: pixels.count, channels: 3)
            return (self, ImageHeader(format: nil, width: width, height: height))
        }
    }

    private static func read(_ url: URL) throws(SDKException) -> Data {
        guard FileSystem.isReadableFile(url) else {
            throw SDKException(.invalidImage, "The image file \(url.path) does not exist or cannot be read")
        }
        let size = FileSystem.fileSize(url) ?? 0
        guard size <= maximumEncodedSize else {
            throw SDKException(
                .invalidImage,
                "The image file \(url.lastPathComponent) has \(size) bytes; the limit is \(maximumEncodedSize)"
            )
        }
        do {
            return try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw SDKException(
                .invalidImage,
                "Could not read the image file \(url.path): \(error.readableDescription)"
            )
        }
    }
}

/// What the issue calls the image input of `describeImage`: the same type.
public typealias ImageInput = VLMImage
