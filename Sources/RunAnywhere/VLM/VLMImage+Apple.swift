// The original SDK's image inputs from Apple's frameworks. Neither framework exists on Linux, so
// this file compiles only for Apple platforms, and has not been compiled here.
#if canImport(CoreVideo)
import CoreVideo
import Foundation

extension VLMImage {
    /// A video frame (the original SDK's input) in 32-bit BGRA, RGBA or ARGB, as raw RGB
    /// pixels. Apple platforms only: CoreVideo does not exist on Linux.
    ///
    /// A frame in another pixel format (a camera's YUV planes), or over ``maximumDimension``
    /// on a side or ``maximumPixelCount`` in all, makes an image every request refuses with
    /// `.invalidImage`, before any pixel is copied; convert or scale it first.
    public static func fromPixelBuffer(_ buffer: CVPixelBuffer) -> VLMImage {
        // Where red, green and blue sit in each 4-byte pixel.
        let channels: (red: Int, green: Int, blue: Int)
        switch CVPixelBufferGetPixelFormatType(buffer) {
        case kCVPixelFormatType_32BGRA: channels = (2, 1, 0)
        case kCVPixelFormatType_32RGBA: channels = (0, 1, 2)
        case kCVPixelFormatType_32ARGB: channels = (1, 2, 3)
        default: return refused("The pixel buffer is not 32-bit BGRA, RGBA or ARGB")
        }
        let width = CVPixelBufferGetWidth(buffer)
        let height = CVPixelBufferGetHeight(buffer)
        do {
            try ImageHeader.checkSize(width: width, height: height)
        } catch {
            return refused(error.message)
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
                    out[to] = source[from + channels.red]
                    out[to + 1] = source[from + channels.green]
                    out[to + 2] = source[from + channels.blue]
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
    /// A UIKit image (the original SDK's input), upright, as its PNG encoding. Apple platforms
    /// with UIKit only: UIKit does not exist on Linux. An image with nothing to draw makes an
    /// image every request refuses with `.invalidImage`.
    public static func fromUIImage(_ image: UIImage) -> VLMImage {
        var bitmap = image
        // PNG keeps no orientation, and an image backed only by a CIImage has no bitmap:
        // drawing gives both an upright bitmap.
        if image.imageOrientation != .up || image.cgImage == nil {
            bitmap = UIGraphicsImageRenderer(size: image.size).image { _ in image.draw(at: .zero) }
        }
        guard let png = bitmap.pngData() else { return refused("The image has no bitmap to encode") }
        return .fromEncoded(png, format: .png)
    }
}
#endif
