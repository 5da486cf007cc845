// The original SDK's image inputs from Apple's frameworks. Neither framework exists on Linux, so
// this file compiles only for Apple platforms, and has not been compiled here.
#if canImport(CoreVideo)
import CoreVideo
import Foundation

extension VLMImage {
    /// A video frame (the original SDK's input) in 32-bit BGRA or RGBA, as raw RGB pixels.
    /// Apple platforms only: CoreVideo does not exist on Linux.
    ///
    /// A frame in another pixel format (a camera's YUV planes) or larger than
    /// ``maximumDimension`` makes an image every request refuses with `.invalidImage`; convert
    /// or scale it first.
    public static func fromPixelBuffer(_ buffer: CVPixelBuffer) -> VLMImage {
        let format = CVPixelBufferGetPixelFormatType(buffer)
        let isBGRA = format == kCVPixelFormatType_32BGRA
        guard isBGRA || format == kCVPixelFormatType_32RGBA else {
            return refused("The pixel buffer is not 32-bit BGRA or RGBA")
        }
        let width = CVPixelBufferGetWidth(buffer)
        let height = CVPixelBufferGetHeight(buffer)
        guard (1...maximumDimension).contains(width), (1...maximumDimension).contains(height) else {
            return refused("The pixel buffer is \(width) × \(height) pixels")
        }
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        let rowBytes = CVPixelBufferGetBytesPerRow(buffer)
        guard let base = CVPixelBufferGetBaseAddress(buffer), rowBytes >= width * 4 else {
            return refused("The pixel buffer has no readable pixels")
        }
        let source = UnsafeRawBufferPointer(start: base, count: rowBytes * height)
        var rgb = Data(count: width * height * 3)
        rgb.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) in
            for y in 0..<height {
                for x in 0..<width {
                    let from = y * rowBytes + x * 4
                    let to = (y * width + x) * 3
                    out[to] = source[from + (isBGRA ? 2 : 0)]
                    out[to + 1] = source[from + 1]
                    out[to + 2] = source[from + (isBGRA ? 0 : 2)]
                }
            }
        }
        return .fromRawRGB(rgb, width: width, height: height)
    }

    /// An image every request refuses with `.invalidImage`, saying why.
    private static func refused(_ problem: String) -> VLMImage {
        VLMImage(source: .encoded(Data()), expectedFormat: nil, problem: problem)
    }
}
#endif

#if canImport(UIKit)
import UIKit

extension VLMImage {
    /// A UIKit image (the original SDK's input), as its PNG encoding. Apple platforms with
    /// UIKit only: UIKit does not exist on Linux. An image with no bitmap to encode (one
    /// backed only by a `CIImage`) makes an image every request refuses with `.invalidImage`.
    public static func fromUIImage(_ image: UIImage) -> VLMImage {
        .fromEncoded(image.pngData() ?? Data(), format: .png)
    }
}
#endif
